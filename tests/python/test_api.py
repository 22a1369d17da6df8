"""The Python API: parameters and their checks, bodies given from Python, numpy views of the
engine's memory, stepping with callbacks, progress and Ctrl-C."""
import os
import signal
import threading

import numpy as np
import pytest

import nbody


def small(**kw):
    params = dict(ic="plummer", n=64, seed=3, device="cpu", precision="fp64")
    params.update(kw)
    return nbody.Simulation(**params)


# ---- parameters -------------------------------------------------------------------------

def test_every_schema_parameter_is_a_keyword():
    keys = {p["key"] for p in nbody.parameters()}
    assert {"ic", "n", "seed", "dt", "softening", "integrator", "precision", "device", "out",
            "snapshot_every", "units", "king_w0"} <= keys
    dt = next(p for p in nbody.parameters() if p["key"] == "dt")
    assert dt["kind"] == "float" and dt["section"] == "integrator" and dt["min_exclusive"]


@pytest.mark.parametrize("kwargs, message", [
    ({"dt": -1.0}, "dt: must be > 0 (got -1)"),
    ({"n": 0}, "n: must be in [1, "),
    ({"n": 2.5}, "n: expected a whole number"),
    ({"integrator": "rk4"}, "integrator: unknown value 'rk4' (choose from"),
    ({"precision": "fp16"}, "precision: unknown value 'fp16'"),
    ({"virial_ratio": 0.5}, "virial_ratio: applies to --ic uniform-sphere only (the run uses plummer)"),
    ({"softening": "small"}, "softening: expected a number, got 'small'"),
    ({"dt": True}, "dt: expected a number, got a bool"),
    ({"bogus": 1}, "bogus: unknown parameter"),
    ({"units": "cgs"}, "units: unknown value 'cgs'"),
    ({"steps": 10, "t_end": 1.0}, "t_end: give steps or t_end, not both"),
])
def test_a_bad_argument_is_one_value_error_naming_it(kwargs, message, tmp_path):
    kwargs = dict(kwargs)
    with pytest.raises(ValueError) as e:
        if "steps" in kwargs:
            nbody.run(out=tmp_path / "run", log=None, **kwargs)
        else:
            nbody.Simulation(**kwargs)
    assert message in str(e.value)
    assert isinstance(e.value, nbody.InputError)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_bad_run_writes_nothing(tmp_path):
    out = tmp_path / "run"
    for bad in ({"dt": 0.0}, {"snapshot_format": "vtk"}, {"ic": "king", "king_w0": 30.0}, {"n": 10, "ic": "solar-system"}):
        with pytest.raises(ValueError):
            nbody.run(out=out, steps=5, log=None, **bad)
        assert not out.exists()


def test_model_defaults_as_the_program():
    # dt and softening are the model's own unless given (nbody run's rule).
    sim = nbody.Simulation(ic="king", units="galactic", mass_scale=1e5, length_scale=0.01, n=16)
    assert sim.config["dt"] == pytest.approx(0.01 * np.sqrt(0.01**3 / (4.300917270038e-06 * 1e5)), rel=1e-6)
    assert sim.config["softening"] == pytest.approx(1e-4)
    assert nbody.Simulation(ic="solar-system", units="solar", n=10).config["softening"] == 0
    assert nbody.Simulation(dt=0.003).config["dt"] == 0.003


def test_numpy_scalars_and_paths_are_accepted():
    sim = nbody.Simulation(n=np.int64(32), dt=np.float32(0.5), ic="plummer", device="cpu")
    assert sim.config["n"] == 32 and sim.config["dt"] == 0.5


# ---- bodies from Python ------------------------------------------------------------------

def test_add_one_by_one_and_from_arrays_agree():
    a = nbody.Simulation(dt=0.01, softening=0.0, precision="fp64", device="cpu")
    a.add(m=1.0)
    a.add(m=1e-3, x=(1, 0, 0), v=(0, 1, 0))
    b = nbody.Simulation.from_arrays(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 1, 0]],
                                     dt=0.01, softening=0.0, precision="fp64", device="cpu")
    assert a.n == b.n == 2
    np.testing.assert_array_equal(a.id, [0, 1])
    a.step(10)
    b.step(10)
    np.testing.assert_array_equal(a.positions, b.positions)


@pytest.mark.parametrize("m, x, message", [
    ([1.0, -1.0], [[0, 0, 0], [1, 0, 0]], "m: must be > 0 (got -1.0 for body 1 of this call)"),
    ([1.0, 1.0], [[0, 0, 0], [np.nan, 0, 0]], "x: body 1 of this call is not finite (got [nan, 0.0, 0.0])"),
    ([1.0], [[0, 0]], "add: x must have shape (3,) or (1, 3)"),
])
def test_bad_bodies_are_value_errors(m, x, message):
    with pytest.raises(ValueError) as e:
        nbody.Simulation(device="cpu").add(m=m, x=x, v=np.zeros((len(m), 3))).engine
    assert message in str(e.value)


def test_add_is_refused_beside_a_model():
    with pytest.raises(ValueError, match="add: the bodies come from ic='king'"):
        nbody.Simulation(ic="king").add(m=1.0)
    sim = nbody.Simulation(device="cpu").add(m=[1.0, 1.0], x=[[0, 0, 0], [1, 0, 0]], v=np.zeros((2, 3)))
    sim.step(1)
    sim.add(m=1.0, x=(0, 1, 0))  # after the first step too (test_orbits.py compares the bits)
    assert sim.n == 3 and sim.step_count == 1


# ---- views ----------------------------------------------------------------------------------

def test_views_alias_the_engine_memory():
    sim = small()
    x = sim.x
    assert x.dtype == np.float64 and x.shape == (64,)
    assert not x.flags.owndata
    before = sim.particles()["x"].copy()
    x[0] = 42.0  # a write through the view is the simulation's state
    assert sim.particles()["x"][0] == 42.0
    assert sim.x[0] == 42.0
    np.testing.assert_array_equal(sim.particles()["x"][1:], before[1:])
    sim.vx[:] = 0.0
    assert np.all(sim.particles()["vx"] == 0.0)
    # The view follows the state as the simulation steps (same memory).
    sim.step(3)
    np.testing.assert_array_equal(x, sim.particles()["x"])


def test_float32_runs_give_float32_views():
    sim = small(precision="fp32")
    assert sim.x.dtype == np.float32 and sim.m.dtype == np.float32
    assert sim.id.dtype == np.uint64
    assert sim.to_numpy()["vz"].dtype == np.float32


def test_ids_are_read_only_and_hermite_views_too():
    sim = small()
    with pytest.raises(ValueError):
        sim.id[0] = 7
    h = small(integrator="hermite4")
    assert not h.x.flags.writeable


def test_writing_positions_invalidates_the_accelerations():
    # Two identical simulations; in one a body is moved through a view before stepping on. The
    # step after the write must use forces of the new positions: the same as a simulation built
    # from the moved state.
    a = small(integrator="leapfrog")
    a.step(2)
    state = a.particles()
    x = a.x
    x[5] += 0.1
    a.step(3)
    moved = {k: v.copy() for k, v in state.items()}
    moved["x"][5] += 0.1
    b = nbody.Simulation.from_arrays(m=moved["m"], x=np.stack([moved["x"], moved["y"], moved["z"]], 1),
                                     v=np.stack([moved["vx"], moved["vy"], moved["vz"]], 1), id=moved["id"],
                                     dt=a.dt, softening=a.config["softening"], precision="fp64", device="cpu")
    b.step(3)
    np.testing.assert_array_equal(a.positions, b.positions)
    del x
    assert a.engine.position_views == 0


def test_a_held_view_costs_no_bits():
    # Recomputing the accelerations from unchanged positions gives the same bits.
    a, b = small(), small()
    held = a.x  # noqa: F841 - alive while stepping
    for _ in range(4):
        a.step(2)
        b.step(2)
    np.testing.assert_array_equal(a.positions, b.positions)


def test_dlpack_of_a_host_field():
    sim = small()
    arr = sim.device_array("y")
    assert arr.__dlpack_device__() == (1, 0)
    y = np.from_dlpack(arr)
    np.testing.assert_array_equal(y, sim.particles()["y"])
    sim.y[3] = 5.0
    assert y[3] == 5.0  # no copy
    assert not hasattr(arr, "__cuda_array_interface__")
    np.testing.assert_array_equal(arr.to_numpy(), sim.y)


# ---- stepping ---------------------------------------------------------------------------------

def test_integrate_reaches_the_first_step_at_or_past_t():
    sim = small(dt=0.01)
    sim.integrate(0.1)
    assert sim.step_count == 10 and sim.t == pytest.approx(0.1)
    sim.integrate(0.1)  # already there
    assert sim.step_count == 10
    sim.integrate(0.1234)
    assert sim.step_count == 13
    sim.step(2)
    assert sim.step_count == 15


def test_callbacks_every_k_steps_and_a_stop():
    sim = small()
    seen = []

    def cb(s):
        seen.append((s.step_count, s.t))
        return s.step_count < 12

    result = sim.step(30, callback=cb, every=4)
    assert [k for k, _ in seen] == [4, 8, 12]
    assert result["stopped_by"] == "the callback"
    assert sim.step_count == 12
    sim.step(4)
    assert sim.step_count == 16


def test_an_exception_in_a_callback_stops_at_a_whole_step():
    sim = small()

    def cb(s):
        if s.step_count == 6:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        sim.step(20, callback=cb, every=3)
    assert sim.step_count == 6


def test_ctrl_c_stops_cleanly_between_steps():
    # SIGINT from another thread while the engine steps with the GIL released: the run loop's
    # stop condition runs Python's handler between chunks, the run stops at a whole step and
    # KeyboardInterrupt is raised; the simulation goes on afterwards.
    sim = nbody.Simulation(ic="plummer", n=256, seed=1, device="cpu", precision="fp32")
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sim.integrate(1e6, progress=False, chunk_seconds=0.02)
    finally:
        timer.cancel()
    stopped = sim.step_count
    assert 0 < stopped < sim.engine.step_at_time(1e6)
    assert sim.t == pytest.approx(stopped * sim.dt)
    sim.step(3)
    assert sim.step_count == stopped + 3


def test_text_progress_bar():
    import io
    out = io.StringIO()
    sim = small()
    sim.step(20, progress=nbody.TextProgress(stream=out, interval=0.0), chunk_seconds=1e-9)
    text = out.getvalue()
    assert "\r" in text and "step 20/20 (100%)" in text and "steps/s" in text


def test_diagnostics_energy_and_radii():
    sim = small(n=512)
    d = sim.diagnostics()
    assert d["total"] == sim.energy() == pytest.approx(-0.25, rel=0.1)
    assert d["energy_error"] == 0 and d["step"] == 0
    assert set(d) >= {"kinetic", "potential", "virial_ratio", "momentum", "angular_momentum", "com"}
    r = sim.lagrangian_radii()
    assert len(r) == len(nbody.LAGRANGIAN_FRACTIONS) == 7 and np.all(np.diff(r) > 0)


def test_help_shows_docstrings():
    assert "zero" in nbody.Simulation.__doc__ or "no copy" in nbody.Simulation.__doc__
    for f in (nbody.Simulation.integrate, nbody.Simulation.add, nbody.run, nbody.load, nbody.to_yt,
              nbody.Simulation.checkpoint, nbody.Simulation.resume):
        assert f.__doc__ and len(f.__doc__) > 40
