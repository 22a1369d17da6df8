"""Builds nbody._core with the project's CMake build for `pip install .` (see pyproject.toml).

The extension is the CMake target nbody_python, configured for the Python that runs this
(-DPython3_EXECUTABLE), without the tests. Environment:
  NBODY_BUILD_DIR   an existing configured build tree to build the target in (and take it from),
                    instead of a fresh one under build-python/
  NBODY_CMAKE_ARGS  more arguments for the configure step (e.g. -DNBODY_ENABLE_CUDA=OFF)
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("NBODY_BUILD_DIR")
        if build:
            build = os.path.abspath(build)
        else:
            build = os.path.join(ROOT, "build-python")
            configure = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                         f"-DPython3_EXECUTABLE={sys.executable}", "-DNBODY_ENABLE_PYTHON=ON",
                         "-DNBODY_BUILD_TESTS=OFF"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            configure += shlex.split(os.environ.get("NBODY_CMAKE_ARGS", ""))
            if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
                subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build, "--target", "nbody_python", "--parallel",
                               str(os.cpu_count() or 2)])
        built = glob.glob(os.path.join(build, "python", "nbody", "_core*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one nbody/_core*.so in {build}/python, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("nbody._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
