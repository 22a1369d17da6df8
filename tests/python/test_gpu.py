"""The Python API on a GPU (marked gpu: skipped without a CUDA device): particle fields as device
arrays read without a copy by CuPy (__cuda_array_interface__) and PyTorch (DLPack), to_numpy
copies, the GPU against the CPU, and the bit-exact continuation on the GPU."""
import numpy as np
import pytest

import nbody

pytestmark = pytest.mark.gpu

FIELDS = ("x", "y", "z", "vx", "vy", "vz", "m", "id")


def gpu(**kw):
    params = dict(ic="plummer", n=1000, seed=9, device="cuda", precision="fp32")
    params.update(kw)
    return nbody.Simulation(**params)


def test_fields_on_the_device_are_device_arrays():
    sim = gpu()
    assert sim.on_device and sim.backend.startswith("cuda")
    x = sim.x
    assert isinstance(x, nbody.DeviceArray) and x.device.startswith("cuda:")
    assert x.shape == (1000,) and x.dtype == np.float32 and sim.id.dtype == np.uint64
    np.testing.assert_array_equal(x.to_numpy(), sim.particles()["x"].astype(np.float32))
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == "<f4" and cai["shape"] == (1000,) and cai["data"][0] != 0
    assert x.__dlpack_device__()[0] == 2
    with pytest.raises(ValueError, match="to_numpy"):
        sim.engine.view("x")
    copies = sim.to_numpy()
    assert copies["m"].dtype == np.float32 and len(copies["id"]) == 1000


def test_cupy_reads_without_a_copy():
    cp = pytest.importorskip("cupy")
    sim = gpu(precision="fp64")
    arr = sim.device_array("vx")
    c = cp.asarray(arr)
    assert c.data.ptr == arr.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(cp.asnumpy(c), sim.particles()["vx"])
    sim.step(5)  # the CuPy array sees the state as it advances (same memory)
    np.testing.assert_array_equal(cp.asnumpy(c), sim.particles()["vx"])


def test_torch_reads_through_dlpack_without_a_copy():
    torch = pytest.importorskip("torch")
    sim = gpu()
    arr = sim.device_array("y")
    t = torch.from_dlpack(arr)
    assert t.is_cuda and t.dtype == torch.float32 and t.data_ptr() == arr.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(t.cpu().numpy(), sim.to_numpy()["y"])
    ids = torch.from_dlpack(sim.device_array("id"))
    assert ids.dtype == torch.uint64 and int(ids[:10].cpu().sum()) == 45
    del sim, arr
    assert t.shape == (1000,) and float(t.abs().sum().cpu()) > 0  # the tensor keeps the simulation alive


def test_gpu_agrees_with_the_cpu():
    a = gpu(precision="fp64")
    b = nbody.Simulation(ic="plummer", n=1000, seed=9, device="cpu", precision="fp64")
    a.step(20)
    b.step(20)
    diff = np.abs(a.positions - b.positions).max()
    print(f"[ measured ] fp64, 20 steps: max |x_gpu - x_cpu| = {diff:.3e}")
    assert diff < 1e-10
    assert a.energy() == pytest.approx(b.energy(), rel=1e-12)


@pytest.mark.parametrize("precision", ["fp32", "fp64", "mixed"])
def test_checkpoint_resumes_bit_exactly_on_the_gpu(tmp_path, precision):
    whole = gpu(precision=precision)
    whole.step(12)
    part = gpu(precision=precision)
    part.step(5)
    back = nbody.Simulation.resume(part.checkpoint(tmp_path / "gpu.ckpt"))
    assert back.on_device
    back.step(7)
    w, b = whole.to_numpy(), back.to_numpy()
    for f in FIELDS:
        assert w[f].tobytes() == b[f].tobytes(), f


def test_a_gpu_run_from_python_resumes_in_the_program(tmp_path, cli):
    params = dict(ic="plummer", n=2000, seed=4, device="cuda", precision="fp32", diag_every=5, snapshot_every=10,
                  snapshot_format="csv")
    flags = [a for k, v in params.items() for a in ("--" + k.replace("_", "-"), str(v))]
    cli("run", *flags, "--steps", 30, "--out", tmp_path / "ref")
    nbody.run(steps=30, out=tmp_path / "py", log=None, callback=lambda s: s.step != 10, every=10, **params)
    assert nbody.load(tmp_path / "py").checkpoint().step == 10
    cli("run", "--resume", tmp_path / "py")
    for name in ("diagnostics.csv", "lagrangian_radii.csv", "snapshot_003.csv"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "ref" / name).read_bytes(), name
