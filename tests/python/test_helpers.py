"""nbody.to_yt and nbody.plot.diagnostics."""
import numpy as np
import pytest

import nbody


@pytest.fixture(scope="module")
def galactic_run(tmp_path_factory):
    fmt = "hdf5" if "hdf5" in nbody._core.snapshot_formats() else "csv"
    out = tmp_path_factory.mktemp("runs") / "king"
    return nbody.run(ic="king", n=300, seed=1, units="galactic", mass_scale=1e5, length_scale=0.01, steps=20,
                     diag_every=5, snapshot_every=10, snapshot_format=fmt, device="cpu", out=out, log=None)


def test_to_yt_has_the_units_and_a_box_around_the_bodies(galactic_run):
    yt = pytest.importorskip("yt")
    yt.set_log_level(40)
    snap = galactic_run[-1]
    ds = nbody.to_yt(snap)
    assert float(ds.length_unit.to("kpc").d) == pytest.approx(1, rel=1e-9)
    assert float(ds.mass_unit.to("Msun").d) == pytest.approx(1, rel=1e-4)
    assert float(ds.current_time.to("code_time").d) == pytest.approx(snap.time, rel=1e-9)
    lo, hi = ds.domain_left_edge.to("code_length").d, ds.domain_right_edge.to("code_length").d
    assert np.all(lo < snap.positions.min(axis=0)) and np.all(hi > snap.positions.max(axis=0))
    ad = ds.all_data()
    kind = "PartType1" if snap.format == "hdf5" else "io"
    mass = ad[kind, "Masses" if kind == "PartType1" else "particle_mass"].to("Msun").d.sum()
    assert mass == pytest.approx(1e5, rel=1e-5)
    assert len(ad[kind, "particle_position_x"]) == 300


def test_to_yt_of_a_simulation_and_of_a_csv_file(tmp_path):
    yt = pytest.importorskip("yt")
    yt.set_log_level(40)
    sim = nbody.Simulation(ic="plummer", n=200, units="solar", mass_scale=10.0, length_scale=100.0, device="cpu")
    ds = nbody.to_yt(sim)
    assert float(ds.length_unit.to("au").d) == pytest.approx(1, rel=1e-9)
    assert ds.all_data()["io", "particle_mass"].to("Msun").d.sum() == pytest.approx(10, rel=1e-5)
    path = sim.save(tmp_path / "s.csv")
    ds = nbody.to_yt(path)
    assert float(ds.length_unit.to("au").d) == pytest.approx(1, rel=1e-9)


def test_plot_diagnostics(galactic_run, tmp_path):
    pytest.importorskip("matplotlib")
    from nbody import plot
    fig = plot.diagnostics(galactic_run)
    axes = fig.get_axes()
    assert len(axes) >= 3
    assert axes[0].get_yscale() == "log" and axes[2].get_yscale() == "log"
    assert len(axes[2].get_lines()) == 7  # one line per Lagrangian radius
    np.testing.assert_allclose(axes[1].get_lines()[0].get_ydata(), galactic_run.diagnostics["virial_ratio"])
    fig.savefig(tmp_path / "d.png")
    assert (tmp_path / "d.png").stat().st_size > 10000
