"""nbody.Ensemble: the ensemble run of `nbody ensemble` from Python (docs/ensembles.md)."""
import os

import numpy as np
import pytest

import nbody

DECK = """
[ensemble]
generator = "plummer"
systems = 12
seed = 4
[plummer]
n = 5
[integrator]
name = "hermite4_adaptive"
dt = 0.05
eta = 0.01
[time]
t_end = 2.0
intervals = 4
"""


def test_an_ensemble_runs_and_gives_its_results(tmp_path):
    res = nbody.Ensemble(text=DECK).run(out=tmp_path / "run")
    assert len(res) == 12
    assert set(res.outcome) <= {"end_time", "escape", "collision", "energy_limit"}
    assert res.offset[-1] == 60 and len(res.x) == 60
    assert np.all(res.steps > 0)
    assert res.dE_rel.max() < 1e-3
    assert os.path.exists(tmp_path / "run" / "results.csv")
    rows = (tmp_path / "run" / "results.csv").read_text().splitlines()
    assert len(rows) == 13 and rows[1].startswith("0," + res.outcome[0] + ",")


def test_a_system_is_the_same_alone(tmp_path):
    many = nbody.Ensemble(text=DECK).run()
    one = nbody.Ensemble(text=DECK, set={"ensemble.systems": 1}).run()
    assert one.x[:5].tobytes() == many.x[:5].tobytes()
    assert one.steps[0] == many.steps[0]


def test_a_bad_key_is_refused_by_name(tmp_path):
    with pytest.raises(nbody.InputError, match="integrator.order: unknown key"):
        nbody.Ensemble(text=DECK, set={"integrator.order": 4}).run(out=tmp_path / "run")
    assert not (tmp_path / "run").exists()
