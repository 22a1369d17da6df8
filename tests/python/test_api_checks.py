"""The Python API's own arguments (those the schema does not check) and the state written
through the views: a bad value is one error naming the argument (or the body and field) and the
value, and nothing is stepped."""
import math

import numpy as np
import pytest

import nbody


def two_bodies(**kw):
    params = dict(dt=0.01, softening=0.0, precision="fp64", device="cpu", integrator="leapfrog")
    params.update(kw)
    return nbody.Simulation(**params).add(m=[1.0, 1e-3], x=[[0, 0, 0], [1, 0, 0]], v=[[0, 0, 0], [0, 1, 0]])


# ---- ids ------------------------------------------------------------------------------------

@pytest.mark.parametrize("ident, error, message", [
    (-1, ValueError, "id: must be in [0, 2^64 - 1] (got -1)"),
    (2**64, ValueError, "id: must be in [0, 2^64 - 1] (got 18446744073709551616)"),
    (1.5, TypeError, "id: expected a whole number, got float 1.5"),
    (True, TypeError, "id: expected a whole number, got bool"),
    ("7", TypeError, "id: expected a whole number, got str"),
])
def test_a_bad_id_is_refused_naming_it(ident, error, message):
    sim = nbody.Simulation(device="cpu")
    with pytest.raises(error) as e:
        sim.add(m=1.0, id=ident)
    assert message in str(e.value)
    assert sim._bodies is None  # nothing added


def test_bad_ids_in_arrays_name_their_index():
    with pytest.raises(ValueError, match=r"id\[1\]: must be in \[0, 2\^64 - 1\] \(got -3\)"):
        nbody.Simulation(device="cpu").add(m=[1.0, 1.0], x=[[0, 0, 0], [1, 0, 0]], id=np.array([4, -3]))
    with pytest.raises(ValueError, match="id: must have 2 values"):
        nbody.Simulation(device="cpu").add(m=[1.0, 1.0], x=[[0, 0, 0], [1, 0, 0]], id=[4])
    with pytest.raises(ValueError, match="id: 5 is already the id of body 0"):
        nbody.Simulation(device="cpu").add(m=1.0, id=5).add(m=1.0, x=(1, 0, 0), id=5)


def test_the_largest_id_is_kept_exactly():
    sim = nbody.Simulation(device="cpu").add(m=1.0, id=2**64 - 1).add(m=1.0, x=(1, 0, 0), id=np.uint64(3))
    assert sim.id.tolist() == [2**64 - 1, 3]


# ---- bodies ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(m=-1.0), "m: must be > 0 (got -1.0 for body 0 of this call)"),
    (dict(m=[1.0, np.nan], x=np.zeros((2, 3))), "m: body 1 of this call is not finite (got nan)"),
    (dict(m=1.0, x=(np.inf, 0, 0)), "x: body 0 of this call is not finite (got [inf, 0.0, 0.0])"),
    (dict(m=1.0, v=(0, np.nan, 0)), "v: body 0 of this call is not finite"),
    (dict(m=1.0, x=("a", 0, 0)), "x: expected numbers (could not convert string to float: 'a')"),
    (dict(m="heavy"), "m: expected numbers, got str 'heavy'"),
])
def test_bad_bodies_are_refused_at_add_naming_the_argument(kwargs, message):
    with pytest.raises((ValueError, TypeError)) as e:
        nbody.Simulation(device="cpu").add(**kwargs)
    assert message in str(e.value)


# ---- stepping arguments ---------------------------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda s: s.integrate(math.nan), ValueError, "t: must be a finite number (got nan)"),
    (lambda s: s.integrate(math.inf), ValueError, "t: must be a finite number (got inf)"),
    (lambda s: s.integrate("1"), TypeError, "t: expected a number, got str"),
    (lambda s: s.integrate(1e300), ValueError, "t: 1e+300 is too many steps of dt (0.01) away"),
    (lambda s: s.step(1.5), ValueError, "k: must be a whole number (got 1.5)"),
    (lambda s: s.step(-2), ValueError, "k: must be in [0, "),
    (lambda s: s.step("3"), TypeError, "k: expected a whole number, got str"),
    (lambda s: s.step(True), TypeError, "k: expected a whole number, got a bool"),
    (lambda s: s.step(3, chunk_seconds=-1), ValueError, "chunk_seconds: must be > 0 (got -1.0)"),
    (lambda s: s.step(3, chunk_seconds=math.nan), ValueError, "chunk_seconds: must be a finite number (got nan)"),
    (lambda s: s.step(3, every=0, callback=print), ValueError, "every: must be in [1, "),
    (lambda s: s.step(3, every=2.5), ValueError, "every: must be a whole number (got 2.5)"),
    (lambda s: s.step(3, callback=5), TypeError, "callback: not callable (got int)"),
    (lambda s: s.integrate(0.5, chunk_seconds=0), ValueError, "chunk_seconds: must be > 0 (got 0.0)"),
])
def test_a_bad_stepping_argument_is_refused_naming_it(call, error, message):
    sim = two_bodies()
    before = sim.particles()
    with pytest.raises(error) as e:
        call(sim)
    assert message in str(e.value)
    assert sim.step_count == 0
    np.testing.assert_array_equal(sim.particles()["x"], before["x"])


def test_whole_floats_and_numpy_integers_are_step_counts():
    sim = two_bodies()
    sim.step(2.0)
    sim.step(np.int32(3))
    sim.step(1e1)
    assert sim.step_count == 15


# ---- state written through the views --------------------------------------------------------

@pytest.mark.parametrize("field, value, message", [
    ("m", np.nan, "particles: body 1: m is not a finite number (nan), written through a view"),
    ("m", -2.0, "particles: body 1: mass must be > 0 (got -2), written through a view"),
    ("m", 0.0, "particles: body 1: mass must be > 0 (got 0)"),
    ("y", np.nan, "particles: body 1: y is not a finite number (nan)"),
    ("vz", np.inf, "particles: body 1: vz is not a finite number (inf)"),
])
@pytest.mark.parametrize("hold", [True, False])
def test_a_bad_value_written_through_a_view_stops_the_next_step(field, value, message, hold):
    sim = two_bodies()
    sim.step(2)
    view = getattr(sim, field)
    view[1] = value
    if not hold:
        del view  # the view is gone, the write stays: still found
    with pytest.raises(ValueError) as e:
        sim.step(3)
    assert message in str(e.value)
    assert sim.step_count == 2  # no step taken
    getattr(sim, field)[1] = 1.0 if field == "m" else 0.5
    sim.step(1)
    assert sim.step_count == 3 and np.isfinite(sim.energy())


def test_a_write_through_a_dropped_view_recomputes_the_forces():
    # sim.x[1] += d makes a view, writes and drops it: the next step must still use the forces
    # of the moved position (the same bits as a simulation built from the moved state).
    a = two_bodies()
    a.step(3)
    a.x[1] += 0.25
    a.step(4)
    p = a.particles()
    b = two_bodies()
    b.step(3)
    moved = b.particles()
    moved["x"][1] += 0.25
    c = nbody.Simulation(dt=0.01, softening=0.0, precision="fp64", device="cpu", integrator="leapfrog",
                         start_time=b.t)
    c.add(m=moved["m"], x=np.stack([moved["x"], moved["y"], moved["z"]], 1),
          v=np.stack([moved["vx"], moved["vy"], moved["vz"]], 1))
    c.step(4)
    np.testing.assert_array_equal(p["x"], c.particles()["x"])
    np.testing.assert_array_equal(p["vy"], c.particles()["vy"])


# ---- G --------------------------------------------------------------------------------------

@pytest.mark.parametrize("params, G", [
    (dict(units="solar"), 4 * math.pi**2),
    (dict(units="henon"), 1.0),
    (dict(units="galactic"), 4.300917270038e-06),
    (dict(units="solar", gravitational_constant=2.5), 2.5),
])
def test_G_is_the_configured_one_before_the_first_step(params, G):
    sim = nbody.Simulation(device="cpu", **params)
    assert sim.G == pytest.approx(G, rel=1e-9)
    sim.add(m=1.0).add(m=1e-6, x=(1, 0, 0), v=(0, 1, 0))
    before = sim.G
    sim.step(1)
    assert sim.G == before
