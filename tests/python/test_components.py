"""Components in Python: sim.component / component_names, snapshots, HDF5 particle types (h5py),
and nbody.to_yt's centred box and per-component particle types."""
import numpy as np
import pytest

import nbody

NAMES = ["galaxy1.disk", "galaxy1.bulge", "galaxy1.halo", "galaxy2.disk", "galaxy2.bulge", "galaxy2.halo"]
# n = 400: 200 bodies a galaxy, disk 15 % and bulge 5 % (the defaults): 30 + 10 + 160 each.
COUNTS = [30, 10, 160, 30, 10, 160]


@pytest.fixture(scope="module")
def collision():
    sim = nbody.Simulation(ic="galaxy-collision", n=400, seed=2, device="cpu")
    sim.step(2)
    return sim


def test_a_simulation_exposes_its_components(collision):
    assert collision.component_names == NAMES
    c = collision.component
    assert c.dtype == np.uint8 and not c.flags.writeable
    assert np.bincount(c, minlength=6).tolist() == COUNTS
    # Each id keeps its component: galaxy 1's disk holds ids 0 .. 29.
    ids = np.asarray(collision.id)
    assert np.all(c[ids < 30] == 0) and np.all(c[(ids >= 200) & (ids < 230)] == 3)
    first = int(np.flatnonzero(ids == 250)[0])
    assert collision.particles[first].component == "galaxy2.halo"


def test_a_csv_snapshot_reads_back_the_components(collision, tmp_path):
    path = collision.save(tmp_path / "s.csv")
    snap = nbody.load(path)
    assert snap.component_names == NAMES
    assert np.array_equal(snap.component, collision.component)
    assert np.array_equal(snap.id, collision.id)


def test_hdf5_particle_types_in_h5py(collision, tmp_path):
    if "hdf5" not in nbody._core.snapshot_formats():
        pytest.skip("built without HDF5")
    h5py = pytest.importorskip("h5py")
    path = collision.save(tmp_path / "s.hdf5")
    with h5py.File(path, "r") as f:
        # halo -> PartType1, disk -> 2, bulge -> 3.
        expect = [0, 320, 60, 20, 0, 0]
        assert f["Header"].attrs["NumPart_ThisFile"].tolist() == expect
        assert f["Header"].attrs["NumPart_Total"].tolist() == expect
        assert [n.decode() for n in f["Header"].attrs["ComponentNames"]] == NAMES
        assert f["Header"].attrs["ComponentTypes"].tolist() == [2, 3, 1, 2, 3, 1]
        assert sorted(np.unique(f["PartType2/Component"][...]).tolist()) == [0, 3]
        assert len(f["PartType1/Coordinates"]) == 320
    snap = nbody.load(path)
    assert np.array_equal(snap.id, collision.id)  # the run's order, restored
    assert np.array_equal(snap.component, collision.component)
    assert np.array_equal(snap.x, np.asarray(collision.x))


def _expect_centred(ds, x, y, z, m):
    com = np.array([np.dot(m, x), np.dot(m, y), np.dot(m, z)]) / m.sum()
    centre = ds.domain_center.to("code_length").d
    width = ds.domain_width.to("code_length").d
    assert np.all(np.abs(centre - com) <= 1e-12 * np.maximum(1.0, width))
    lo, hi = ds.domain_left_edge.to("code_length").d, ds.domain_right_edge.to("code_length").d
    pos = np.stack([x, y, z], axis=1)
    assert np.all(lo < pos.min(axis=0)) and np.all(hi > pos.max(axis=0))


def test_to_yt_is_centred_and_has_a_particle_type_per_component(collision, tmp_path):
    yt = pytest.importorskip("yt")
    yt.set_log_level(40)
    # Off-centre on purpose: the box must follow the centre of mass, not the origin.
    sim = nbody.Simulation(ic="galaxy-collision", n=400, seed=2, device="cpu")
    p = sim.engine.particles()
    p["x"] = p["x"] + 5.0
    sim._engine = sim.engine.with_particles(p, "particles")
    x, y, z, m = (np.asarray(getattr(sim, k), dtype=np.float64) for k in ("x", "y", "z", "m"))
    ds = nbody.to_yt(sim)
    _expect_centred(ds, x, y, z, m)
    ad = ds.all_data()
    for name, count in zip(NAMES, COUNTS):
        assert len(ad[name, "particle_mass"]) == count, name
    assert len(ad["all", "particle_mass"]) == 400
    mass = ad["galaxy2.halo", "particle_mass"].to("code_mass").d.sum()
    assert mass == pytest.approx(m[np.asarray(sim.component) == 5].sum(), rel=1e-12)

    if "hdf5" in nbody._core.snapshot_formats():
        path = sim.save(tmp_path / "c.hdf5")
        ds = nbody.to_yt(path)
        _expect_centred(ds, x, y, z, m)
        ad = ds.all_data()
        assert len(ad["PartType1", "Masses"]) == 320
        for name, count in zip(NAMES, COUNTS):
            assert len(ad[name, "Masses"]) == count, name
