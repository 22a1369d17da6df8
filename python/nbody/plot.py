"""Plots of a run with matplotlib: ``nbody.plot.diagnostics(run)``."""
import os

import numpy as np

__all__ = ["diagnostics"]


def _tables(run):
    from .files import Run
    if isinstance(run, (str, os.PathLike)):
        run = Run(run)
    diag, radii = run.diagnostics, run.lagrangian_radii
    if diag is None:
        raise ValueError(f"plot.diagnostics: {getattr(run, 'path', run)} has no diagnostics rows")
    return run, diag, radii


def diagnostics(run, fig=None, title=None):
    """Three panels against simulation time: the relative energy error |E - E0|/|E0| (log
    scale), the virial ratio 2K/|W| (with its equilibrium value 1), and the Lagrangian radii
    (1 % to 90 % of the mass, log scale). ``run``: a :class:`nbody.Run`, a run directory's path,
    or an object with ``diagnostics`` and ``lagrangian_radii`` structured arrays. Returns the
    matplotlib figure (``fig.savefig("run.png")``)."""
    import matplotlib.pyplot as plt

    run, diag, radii = _tables(run)
    if fig is None:
        fig = plt.figure(figsize=(7, 8))
    axes = fig.subplots(3, 1, sharex=True)
    t = diag["time"]
    err = np.asarray(diag["rel_energy_error"], dtype=float)
    axes[0].semilogy(t[1:], np.maximum(err[1:], 1e-17), "-", color="C0")
    axes[0].set_ylabel("|E - E0| / |E0|")
    axes[1].plot(t, diag["virial_ratio"], "-", color="C1")
    axes[1].axhline(1.0, color="0.6", lw=0.8, ls="--")
    axes[1].set_ylabel("virial ratio 2K/|W|")
    if radii is not None:
        columns = [c for c in radii.dtype.names if c.startswith("r_")]
        for k, c in enumerate(columns):
            axes[2].semilogy(radii["time"], radii[c], color=plt.cm.viridis(k / max(1, len(columns) - 1)),
                             label=f"{100 * float(c[2:]):g} %")
        axes[2].legend(fontsize="small", ncol=2, title="mass")
    axes[2].set_ylabel("Lagrangian radius")
    axes[2].set_xlabel("time")
    name = title if title is not None else getattr(run, "path", None)
    if name:
        axes[0].set_title(str(name))
    fig.tight_layout()
    return fig
