"""Builds nbody._core with the project's CMake build for `pip install .` (see pyproject.toml).

The extension is the CMake target nbody_python, configured for the Python that runs this
(-DPython3_EXECUTABLE), without the tests. Environment:
  NBODY_CUDA        auto (the default), on or off (also 1, 0): whether the module has the CUDA
                    backends. auto builds CUDA only where a GPU is present (`nvidia-smi -L` lists
                    one, or /dev/nvidia0 exists) and nvcc is found, for that GPU's architecture
                    (CMAKE_CUDA_ARCHITECTURES when set); on builds it wherever nvcc is (an error
                    without it); off never. As scripts/demo decides for the program.
  NBODY_BUILD_DIR   an existing configured build tree to build the target in (and take it from),
                    instead of a fresh one under build-python/ (NBODY_CUDA does not apply: the tree
                    keeps its own configuration)
  NBODY_CMAKE_ARGS  more arguments for the configure step (e.g. -DNBODY_ENABLE_CUDA=OFF); they
                    come last and win over NBODY_CUDA's
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

_CUDA_CHOICES = {"auto": "auto", "": "auto", "on": "on", "1": "on", "off": "off", "0": "off"}


def _nvidia_smi(env, *args):
    """The output of `nvidia-smi ARGS` found on env's PATH, or None when it is missing or fails."""
    smi = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    if not smi:
        return None
    try:
        done = subprocess.run([smi, *args], env=dict(env), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def gpu_present(env, device_file="/dev/nvidia0"):
    """Whether a GPU is present: nvidia-smi lists one, or the driver's first device file exists."""
    listed = _nvidia_smi(env, "-L")
    if listed and any(line.startswith("GPU ") for line in listed.splitlines()):
        return True
    return os.path.exists(device_file)


def cuda_decision(env, device_file="/dev/nvidia0"):
    """NBODY_CUDA read from env: (configure arguments, a line saying what is built and why).

    Raises ValueError naming the variable and its value when it is none of auto, on, off, 1, 0.
    """
    given = env.get("NBODY_CUDA", "")
    choice = _CUDA_CHOICES.get(given.strip().lower())
    if choice is None:
        raise ValueError(f"NBODY_CUDA={given!r}: expected auto, on or off (1, 0)")
    if choice == "off":
        return ["-DNBODY_ENABLE_CUDA=OFF"], "nbody: building for the CPU only (NBODY_CUDA=off)"
    gpu = gpu_present(env, device_file)
    if choice == "auto" and not gpu:
        return (["-DNBODY_ENABLE_CUDA=OFF"],
                "nbody: building for the CPU only (no GPU found; NBODY_CUDA=on builds CUDA)")
    # on: CUDA, an error without nvcc; auto with a GPU: CUDA where nvcc is found, CMake's default
    # (the cached choice of an earlier configure removed, so that the default is taken again).
    args = ["-DNBODY_ENABLE_CUDA=ON"] if choice == "on" else ["-UNBODY_ENABLE_CUDA"]
    arch = env.get("CMAKE_CUDA_ARCHITECTURES", "").strip()
    if not arch and gpu:
        caps = (_nvidia_smi(env, "--query-gpu=compute_cap", "--format=csv,noheader") or "").split()
        if caps and caps[0].replace(".", "").isdigit():
            arch = caps[0].replace(".", "")  # "9.0" -> 90, the first GPU's
    if arch:
        args.append(f"-DCMAKE_CUDA_ARCHITECTURES={arch}")
    why = "NBODY_CUDA=on" if choice == "on" else "a GPU is present; NBODY_CUDA=off builds without"
    where = f" for sm_{arch}" if arch else ""
    return args, f"nbody: building with CUDA{where} where nvcc is found ({why})"


def configure_command(build, env, python=sys.executable, device_file="/dev/nvidia0"):
    """The CMake configure step of a fresh build tree and the line saying what CUDA it builds."""
    cuda_args, message = cuda_decision(env, device_file)
    command = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
               f"-DPython3_EXECUTABLE={python}", "-DNBODY_ENABLE_PYTHON=ON", "-DNBODY_BUILD_TESTS=OFF"]
    fresh = not os.path.exists(os.path.join(build, "CMakeCache.txt"))
    if fresh and shutil.which("ninja", path=env.get("PATH", os.defpath)):
        command += ["-G", "Ninja"]
    command += cuda_args
    command += shlex.split(env.get("NBODY_CMAKE_ARGS", ""))
    return command, message


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("NBODY_BUILD_DIR")
        if build:
            build = os.path.abspath(build)
        else:
            build = os.path.join(ROOT, "build-python")
            try:
                configure, message = configure_command(build, os.environ)
            except ValueError as e:
                print(f"setup.py: {e}", file=sys.stderr)
                sys.exit(2)
            print(message, flush=True)
            # Configured every time, so that NBODY_CUDA and NBODY_CMAKE_ARGS apply to a tree an
            # earlier install left (CMake keeps what is unchanged).
            subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build, "--target", "nbody_python", "--parallel",
                               str(os.cpu_count() or 2)])
        built = glob.glob(os.path.join(build, "python", "nbody", "_core*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one nbody/_core*.so in {build}/python, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


if __name__ == "__main__":
    setup(ext_modules=[Extension("nbody._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
