"""Files from Python: snapshots in every format, nbody.load, run directories (nbody.run,
nbody.Run), checkpoints and the bit-exact continuation of a simulation."""
import os

import numpy as np
import pytest

import nbody

FIELDS = ("x", "y", "z", "vx", "vy", "vz", "m", "id")


def small(**kw):
    params = dict(ic="plummer", n=100, seed=5, device="cpu", precision="fp32")
    params.update(kw)
    return nbody.Simulation(**params)


@pytest.mark.parametrize("ext", [".csv", ".tipsy"] + ([".hdf5"] if "hdf5" in nbody._core.snapshot_formats() else []))
def test_save_and_load_every_format(tmp_path, ext):
    sim = small()
    sim.step(3)
    path = sim.save(tmp_path / f"snap{ext}")
    snap = nbody.load(path)
    assert isinstance(snap, nbody.Snapshot) and snap.n == 100
    assert snap.time == pytest.approx(sim.t) or ext == ".tipsy" and snap.time == pytest.approx(sim.t, rel=1e-6)
    mine = sim.particles()
    for f in FIELDS:
        if ext == ".csv" and f != "id":  # CSV: 9 significant digits for float32, which read back exactly
            np.testing.assert_array_equal(snap.__dict__[f].astype(np.float32), mine[f].astype(np.float32))
        else:
            np.testing.assert_array_equal(getattr(snap, f), mine[f])
    assert snap.positions.shape == (100, 3)


def test_save_refuses_an_unknown_extension(tmp_path):
    with pytest.raises(ValueError, match="format"):
        small().save(tmp_path / "snap.xyz")
    assert list(tmp_path.iterdir()) == []


def test_a_bad_file_is_one_value_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,m,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n1,-1,0,0,0,0,0,0\n")
    with pytest.raises(ValueError, match="bad.csv: line 3: mass must be > 0"):
        nbody.load(bad)


@pytest.mark.parametrize("integrator", ["leapfrog", "hermite4"])
def test_checkpoint_resumes_with_the_same_bits(tmp_path, integrator):
    kw = dict(integrator=integrator, precision="fp64")
    if integrator == "hermite4":
        kw.update(dt_mode="block", eta=0.02)
    whole = small(**kw)
    whole.step(10)
    part = small(**kw)
    part.step(4)
    ck = part.checkpoint(tmp_path / "state.ckpt")
    back = nbody.Simulation.resume(ck)
    assert back.step_count == 4 and back.t == part.t
    back.step(6)
    for f in FIELDS:
        assert whole.to_numpy()[f].tobytes() == back.to_numpy()[f].tobytes()
    # The drifts keep measuring from step 0.
    assert back.diagnostics()["energy_error"] == whole.diagnostics()["energy_error"]
    c = nbody.load(ck)
    assert isinstance(c, nbody.Checkpoint) and c.step == 4 and c.config["integrator"] == integrator


def test_run_directory_written_and_read(tmp_path):
    out = tmp_path / "run"
    lines = []
    run = nbody.run(ic="plummer", n=128, seed=2, steps=20, diag_every=5, snapshot_every=10, snapshot_format="csv",
                    device="cpu", out=out, log=lines.append, progress=False)
    assert isinstance(run, nbody.Run)
    assert run.result["last_step"] == 20 and run.result["final"] is not None
    assert any(line.startswith("nbody run: plummer, N = 128") for line in lines)
    assert {"checkpoint_0000000020.ckpt", "config.toml", "diagnostics.csv", "run.log"} <= set(os.listdir(out))
    assert run.config["n"] == 128 and run.config["integrator"] == "leapfrog"
    assert run.units["system"] == "henon"
    assert list(run.diagnostics["step"]) == [0, 5, 10, 15, 20]
    assert "r_0.5" in run.lagrangian_radii.dtype.names
    snaps = list(run)
    assert [s.time for s in snaps] == pytest.approx([0.0, 0.1, 0.2])
    assert snaps[-1].units["UnitLength_in_cm"] == 1.0 and snaps[-1].config["seed"] == 2
    assert len(run) == 3 and run[1].time == pytest.approx(0.1)
    assert run.checkpoint().step == 20
    # A second run into the same directory is refused unless overwrite is given.
    with pytest.raises(ValueError, match="out"):
        nbody.run(n=128, steps=2, out=out, log=None)
    nbody.run(n=64, steps=2, out=out, log=None, overwrite=True)
    assert nbody.Run(out).config["n"] == 64


def test_run_callback_sees_the_run_state(tmp_path):
    seen = []

    def cb(state):
        d = state.diagnostics()
        seen.append((state.step, state.t, d["total"], len(state.particles()["x"])))

    nbody.run(n=64, steps=9, out=tmp_path / "r", log=None, callback=cb, every=3)
    assert [s for s, *_ in seen] == [0, 3, 6, 9]
    assert all(n == 64 for *_, n in seen)
    kept = []
    nbody.run(n=64, steps=3, log=None, callback=kept.append, every=3)
    with pytest.raises(ValueError, match="valid only inside the callback"):
        kept[0].step


def test_run_without_out_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = nbody.run(n=32, steps=3, log=None)
    assert result["directory"] is None and result["last_step"] == 3
    assert list(tmp_path.iterdir()) == []
