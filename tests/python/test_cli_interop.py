"""The Python API and the nbody program are one engine: a run written from Python resumes in the
program with the same bytes as a run that never stopped, and the other way round; a simulation
stepped in memory gives the program's snapshot byte for byte."""
import os
import signal

import pytest

import nbody

PARAMS = dict(ic="plummer", n=200, seed=11, precision="fp64", integrator="leapfrog", device="cpu",
              diag_every=5, snapshot_every=10, snapshot_format="csv")


def flags(**params):
    out = []
    for k, v in params.items():
        out += ["--" + k.replace("_", "-"), str(v)]
    return out


def same_outputs(a, b):
    """diagnostics.csv, lagrangian_radii.csv and every snapshot of two run directories, as bytes."""
    names = sorted(n for n in os.listdir(a) if n.startswith("snapshot_") or n.endswith(".csv"))
    assert names == sorted(n for n in os.listdir(b) if n.startswith("snapshot_") or n.endswith(".csv"))
    assert "snapshot_004.csv" in names
    for n in names:
        with open(os.path.join(a, n), "rb") as fa, open(os.path.join(b, n), "rb") as fb:
            assert fa.read() == fb.read(), f"{n} differs"


@pytest.fixture
def reference(tmp_path, cli):
    """The program's run of 40 steps that never stopped."""
    ref = tmp_path / "reference"
    cli("run", *flags(**PARAMS), "--steps", 40, "--out", ref)
    return ref


def test_a_python_run_stopped_by_ctrl_c_resumes_in_the_program(tmp_path, cli, reference):
    out = tmp_path / "python"

    def interrupt(state):
        if state.step == 20:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        nbody.run(steps=40, out=out, log=None, callback=interrupt, every=10, **PARAMS)
    ck = nbody.load(out).checkpoint()
    assert ck.step == 20
    assert "stopped at step 20 of 40 (t = 0.2) by KeyboardInterrupt" in (out / "run.log").read_text()
    r = cli("run", "--resume", out)
    assert "resumed at step 20" in r.stdout
    same_outputs(out, reference)


def test_a_program_run_resumes_in_python(tmp_path, cli, reference):
    out = tmp_path / "program"
    cli("run", *flags(**PARAMS), "--steps", 20, "--out", out)
    run = nbody.resume(out, steps=40, log=None)
    assert run.result["first_step"] == 20 and run.result["last_step"] == 40
    same_outputs(out, reference)


def test_resume_refuses_a_change_of_physics(tmp_path, cli):
    out = tmp_path / "program"
    cli("run", *flags(**PARAMS), "--steps", 10, "--out", out)
    before = sorted(os.listdir(out))
    with pytest.raises(ValueError, match="--dt: differs from the run being resumed"):
        nbody.resume(out, steps=20, dt=0.02, log=None)
    assert sorted(os.listdir(out)) == before


def test_a_simulation_in_memory_matches_the_program(tmp_path, cli, reference):
    sim = nbody.Simulation(**{k: v for k, v in PARAMS.items()
                              if k not in ("diag_every", "snapshot_every", "snapshot_format")})
    sim.integrate(0.4)
    assert sim.step_count == 40
    mine = sim.save(tmp_path / "mine.csv")
    with open(mine, "rb") as a, open(reference / "snapshot_004.csv", "rb") as b:
        assert a.read() == b.read()
    # And the program continues a checkpoint written from Python as a new run (--from).
    ck = sim.checkpoint(tmp_path / "state.ckpt")
    cli("run", "--from", ck, "--steps", 5, "--out", tmp_path / "from")
    assert nbody.Run(tmp_path / "from").config["start_time"] == pytest.approx(0.4)


def test_python_resumes_a_program_checkpoint_in_memory(tmp_path, cli, reference):
    out = tmp_path / "program"
    cli("run", *flags(**PARAMS), "--steps", 30, "--checkpoint-every", 10, "--out", out)
    sim = nbody.Simulation.resume(out)  # its newest checkpoint: step 30
    assert sim.step_count == 30
    sim.step(10)
    mine = sim.save(tmp_path / "mine.csv")
    with open(mine, "rb") as a, open(reference / "snapshot_004.csv", "rb") as b:
        assert a.read() == b.read()
    assert sim.diagnostics()["energy_error"] == pytest.approx(
        float(nbody.Run(reference).diagnostics["rel_energy_error"][-1]), rel=0, abs=0)
