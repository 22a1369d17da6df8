"""nbody.Ensemble: many small independent systems integrated together (docs/ensembles.md).

    import nbody
    ens = nbody.Ensemble("examples/ensemble/scattering.toml", set={"ensemble.systems": 500})
    res = ens.run(out="scatter")          # or out=None: nothing written
    res.outcome[:5], res.dE_rel.max(), res.a[res.pair_j == 1]
    nbody.Ensemble.resume("scatter")      # a run stopped by Ctrl-C (it checkpointed) goes on

The configuration is the TOML of ``nbody ensemble --config``; ``set`` overrides keys as
``--set table.key=value`` does. A bad key or value raises ``nbody.InputError`` (a ValueError)
naming it, before anything is written.
"""
import os as _os

from . import _core


def _overrides(changes):
    out = []
    for key, value in (changes or {}).items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str):
            text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        elif isinstance(value, (list, tuple)):
            text = "[" + ", ".join(repr(float(v)) for v in value) + "]"
        else:
            text = repr(value)
        out.append(f"{key}={text}")
    return out


class EnsembleResult:
    """What a run gave: per system ``outcome`` (names), ``stop_time``, ``time``, ``steps``,
    ``dE_rel``, ``dL_rel``, the most bound pair ``pair_i``, ``pair_j`` and its ``a``, ``e``
    (numpy arrays); every body's final ``m``, ``x`` ... ``vz`` with ``offset`` (system k's bodies
    are offset[k]:offset[k+1]); and the run's ``backend``, ``system_steps``, ``wall_seconds``,
    ``stopped_by``, ``directory``."""

    def __init__(self, d):
        self.__dict__.update(d)

    def __len__(self):
        return len(self.outcome)

    def __repr__(self):
        return f"EnsembleResult({len(self)} systems, {self.system_steps} system-steps on the {self.backend})"


class Ensemble:
    """An ensemble from a configuration file (``config``) or its text (``text``)."""

    def __init__(self, config=None, *, text=None, set=None):
        if (config is None) == (text is None):
            raise ValueError("Ensemble: give config (a file) or text (its TOML), one of them")
        if config is not None:
            with open(config, encoding="utf-8") as f:
                text = f.read()
            self._name = _os.fspath(config)
        else:
            self._name = "configuration"
        self._text = text
        self._set = _overrides(set)

    def run(self, out=None, overwrite=False, log=None, progress=None):
        """Integrates every system to its stop; with ``out`` a run directory as ``nbody ensemble``
        writes it. Returns an :class:`EnsembleResult`."""
        return EnsembleResult(_core.ensemble_run(self._text, self._name, self._set, _os.fspath(out) if out else "",
                                                 overwrite, log, progress))

    @staticmethod
    def resume(directory, set=None, log=None, progress=None):
        """Continues the run in ``directory`` from its newest checkpoint (``set`` may change only
        [output] and [run]); returns the directory."""
        return _core.ensemble_resume(_os.fspath(directory), _overrides(set), log, progress)
