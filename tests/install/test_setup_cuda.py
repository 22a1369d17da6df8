"""`pip install .` builds CUDA only where a GPU is present unless NBODY_CUDA says otherwise.

setup.py's decision, with fake machines: a PATH holding a fake nvidia-smi (one that lists an H100,
one that fails as it does without a driver, or none) and a device file that exists or not; and
once end to end, `setup.py build_ext` in a copy of the build files with a fake cmake that records
its configure command. Run with Debian's python3 (scripts/python --needs setuptools); exit 77
when setuptools is missing.
"""
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

try:
    import setuptools  # noqa: F401  (setup.py imports it)
except ImportError:
    print("SKIP: no setuptools for", sys.executable)
    sys.exit(77)


def load_setup_py():
    """setup.py as a module (not __main__: it defines its helpers and runs no setup())."""
    spec = importlib.util.spec_from_file_location("nbody_setup", os.path.join(ROOT, "setup.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

H100_LIST = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
             "Make sure that the latest NVIDIA driver is installed and running.")


def write_script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class Machine:
    """A temporary bin/ directory standing for PATH, and a device file path that may exist."""

    def __init__(self, tmp, smi=None, device=False):
        self.bin = os.path.join(tmp, "bin")
        os.makedirs(self.bin)
        self.device_file = os.path.join(tmp, "nvidia0")
        if device:
            open(self.device_file, "w").close()
        if smi == "h100":
            write_script(os.path.join(self.bin, "nvidia-smi"),
                         'case "$1" in\n'
                         f'  -L) echo "{H100_LIST}" ;;\n'
                         '  --query-gpu=compute_cap) echo "9.0" ;;\n'
                         '  *) exit 2 ;;\n'
                         'esac\n')
        elif smi == "no-driver":
            write_script(os.path.join(self.bin, "nvidia-smi"), f'echo "{NO_DRIVER}"\nexit 9\n')

    def env(self, **values):
        env = {"PATH": self.bin}
        env.update(values)
        return env


class CudaDecision(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.setup_py = load_setup_py()

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def configure(self, machine, **env):
        command, message = self.setup_py.configure_command(os.path.join(self.tmp, "build"), machine.env(**env),
                                                      python="/usr/bin/python3",
                                                      device_file=machine.device_file)
        return command, message

    def test_auto_without_gpu_builds_no_cuda(self):
        # The case of the report: nvcc installed, no GPU (nvidia-smi fails without a driver).
        for smi in ("no-driver", None):
            with self.subTest(smi=smi):
                m = Machine(os.path.join(self.tmp, str(smi)), smi=smi)
                for value in (None, "auto", "AUTO", ""):
                    env = {} if value is None else {"NBODY_CUDA": value}
                    command, message = self.configure(m, **env)
                    self.assertIn("-DNBODY_ENABLE_CUDA=OFF", command)
                    self.assertFalse(any(a.startswith("-DCMAKE_CUDA_ARCHITECTURES") for a in command))
                    self.assertIn("CPU only", message)

    def test_auto_with_gpu_builds_cuda_for_its_architecture(self):
        m = Machine(self.tmp, smi="h100")
        command, message = self.configure(m)
        self.assertNotIn("-DNBODY_ENABLE_CUDA=OFF", command)
        # Not forced on: a GPU without nvcc still builds (for the CPU), as CMake's default does;
        # an earlier install's cached OFF is dropped so that the default is taken again.
        self.assertNotIn("-DNBODY_ENABLE_CUDA=ON", command)
        self.assertIn("-UNBODY_ENABLE_CUDA", command)
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=90", command)
        self.assertIn("sm_90", message)

    def test_auto_with_device_file_only(self):
        m = Machine(self.tmp, smi=None, device=True)
        command, _ = self.configure(m)
        self.assertNotIn("-DNBODY_ENABLE_CUDA=OFF", command)
        self.assertIn("-UNBODY_ENABLE_CUDA", command)
        self.assertFalse(any(a.startswith("-DCMAKE_CUDA_ARCHITECTURES") for a in command))

    def test_given_architectures_win_over_the_gpu(self):
        m = Machine(self.tmp, smi="h100")
        command, _ = self.configure(m, CMAKE_CUDA_ARCHITECTURES="80")
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=80", command)
        self.assertNotIn("-DCMAKE_CUDA_ARCHITECTURES=90", command)

    def test_on_builds_cuda_without_gpu(self):
        m = Machine(self.tmp, smi="no-driver")
        for value in ("on", "1", "ON"):
            command, _ = self.configure(m, NBODY_CUDA=value)
            self.assertIn("-DNBODY_ENABLE_CUDA=ON", command)
            self.assertNotIn("-DNBODY_ENABLE_CUDA=OFF", command)

    def test_off_builds_no_cuda_with_gpu(self):
        m = Machine(self.tmp, smi="h100", device=True)
        for value in ("off", "0"):
            command, _ = self.configure(m, NBODY_CUDA=value)
            self.assertIn("-DNBODY_ENABLE_CUDA=OFF", command)
            self.assertFalse(any(a.startswith("-DCMAKE_CUDA_ARCHITECTURES") for a in command))

    def test_cmake_args_come_last_and_win(self):
        m = Machine(self.tmp, smi=None)
        command, _ = self.configure(m, NBODY_CMAKE_ARGS="-DNBODY_ENABLE_CUDA=ON -DFOO='a b'")
        self.assertEqual(command[-2:], ["-DNBODY_ENABLE_CUDA=ON", "-DFOO=a b"])
        self.assertLess(command.index("-DNBODY_ENABLE_CUDA=OFF"), command.index("-DNBODY_ENABLE_CUDA=ON"))

    def test_bad_value_is_refused_naming_it(self):
        m = Machine(self.tmp, smi=None)
        with self.assertRaises(ValueError) as caught:
            self.configure(m, NBODY_CUDA="maybe")
        self.assertIn("NBODY_CUDA='maybe'", str(caught.exception))
        self.assertIn("auto, on or off", str(caught.exception))


class SetupBuildExt(unittest.TestCase):
    """setup.py run as pip runs it, in a copy of the build files, with a fake cmake."""

    def run_setup(self, tmp, machine, **env):
        src = os.path.join(tmp, "src")
        os.makedirs(os.path.join(src, "python", "nbody"))
        for name in ("setup.py", "setup.cfg", "pyproject.toml"):
            shutil.copy(os.path.join(ROOT, name), src)
        open(os.path.join(src, "python", "nbody", "__init__.py"), "w").close()
        log = os.path.join(tmp, "cmake.log")
        # Records each call; the build step leaves the module where CMake's build would.
        write_script(os.path.join(machine.bin, "cmake"),
                     f'echo "$@" >> "{log}"\n'
                     'if [ "$1" = --build ]; then mkdir -p "$2/python/nbody" && '
                     ': > "$2/python/nbody/_core.cpython-fake.so"; fi\n')
        full = dict(os.environ)
        full.pop("NBODY_BUILD_DIR", None)
        full.pop("NBODY_CMAKE_ARGS", None)
        full.pop("NBODY_CUDA", None)
        full.pop("CMAKE_CUDA_ARCHITECTURES", None)
        full.update(env)
        # The fake machine's tools first, then the system's (sh, the Python running this).
        full["PATH"] = machine.bin + os.pathsep + "/usr/bin:/bin"
        done = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", os.path.join(tmp, "lib")],
                              cwd=src, env=full, capture_output=True, text=True, timeout=120)
        calls = []
        if os.path.exists(log):
            with open(log) as f:
                calls = f.read().splitlines()
        return done, calls

    def test_no_gpu_configures_without_cuda(self):
        if os.path.exists("/dev/nvidia0"):
            self.skipTest("this machine has /dev/nvidia0: setup.py would rightly see a GPU")
        with tempfile.TemporaryDirectory() as tmp:
            m = Machine(tmp, smi="no-driver")
            done, calls = self.run_setup(tmp, m)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            configure = [c for c in calls if c.startswith("-S ")]
            self.assertEqual(len(configure), 1, calls)
            self.assertIn("-DNBODY_ENABLE_CUDA=OFF", configure[0].split())
            self.assertIn("no GPU found", done.stdout)

    def test_bad_value_is_one_line_and_status_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            m = Machine(tmp, smi=None)
            done, calls = self.run_setup(tmp, m, NBODY_CUDA="yes please")
            self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
            errors = [line for line in done.stderr.splitlines() if "NBODY_CUDA" in line]
            self.assertEqual(errors, ["setup.py: NBODY_CUDA='yes please': expected auto, on or off (1, 0)"])
            self.assertNotIn("Traceback", done.stderr)
            self.assertEqual(calls, [])  # nothing configured or built


if __name__ == "__main__":
    unittest.main(verbosity=2)
