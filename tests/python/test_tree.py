"""The Barnes-Hut tree through the Python API: its keywords come from the schema."""
import pytest

import nbody


def test_tree_keywords_and_energy_against_the_direct_sum():
    keys = {p["key"] for p in nbody.parameters()}
    assert {"theta", "tree_criterion", "tree_alpha", "tree_leaf_size", "tree_group_size"} <= keys
    params = dict(ic="plummer", n=512, seed=3, device="cpu", precision="fp64")
    tree = nbody.Simulation(gravity="tree", theta=0.5, **params)
    direct = nbody.Simulation(gravity="direct", **params)
    # The potential energy from the tree: within 1e-4 of the direct sum's at theta = 0.5.
    assert tree.energy() == pytest.approx(direct.energy(), rel=1e-4)
    tree.step(10)
    assert tree.step_count == 10


def test_tree_refusals_name_the_parameter():
    with pytest.raises(ValueError) as e:
        nbody.Simulation(ic="plummer", n=64, device="cpu", gravity="tree", integrator="hermite4")
    assert "needs jerks" in str(e.value)
    with pytest.raises(ValueError) as e:
        nbody.Simulation(ic="plummer", n=64, device="cpu", theta=0.4)
    assert "--gravity tree" in str(e.value)
