"""Plots of a run with matplotlib.

``nbody.plot.diagnostics(run)``: a gravity run (``nbody run --out DIR``); ``nbody.plot.pic(run)``:
a PIC run (``nbody pic run --out DIR``, a directory with deck.toml); ``nbody.plot.run_figure(path)``
picks the one the directory is. The file is also the program ``nbody plot`` runs,

    python3 plot.py RUN_DIR OUT.png

which needs numpy and matplotlib only (not the compiled module): it reads the CSV files itself.
"""
import os
import re
import sys
import warnings

import numpy as np

__all__ = ["diagnostics", "pic", "run_figure", "panel_boxes"]


class PlotError(ValueError):
    """A run directory that cannot be plotted (missing or empty files), named in the message."""


def _read_csv(path):
    """A CSV file with a header as a numpy structured array; None when absent or without rows."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a header without rows: "Empty input file"
        # deletechars="": keep the column names as written ("r_0.5").
        data = np.genfromtxt(path, delimiter=",", names=True, comments=None, dtype=None, deletechars="",
                             encoding="utf-8")
    data = np.atleast_1d(data)
    if data.dtype.names is None or data.size == 0:
        return None
    return data


def _unit_name(text):
    """The short name of a unit as model.toml describes it: "kpc/(km/s) = 0.9778 Gyr" -> "kpc/(km/s)"."""
    if not text:
        return None
    for sep in (" (", " = "):
        if sep in text and not text.startswith("("):
            text = text.split(sep)[0]
    return text.strip() or None


def _model_units(path):
    """The [units] table of a run directory's model.toml (names only), or {}."""
    units, section = {}, None
    model = os.path.join(path, "model.toml")
    if not os.path.isfile(model):
        return units
    with open(model, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]").strip()
            elif section == "units" and "=" in line:
                key, value = (s.strip() for s in line.split("=", 1))
                if value.startswith('"') and value.endswith('"'):
                    units[key] = value[1:-1]
    return units


class _GravityTables:
    """What diagnostics() needs of a gravity run directory, read without the compiled module."""

    def __init__(self, path):
        self.path = os.fspath(path)
        if not os.path.isdir(self.path):
            raise PlotError(f"{self.path}: not a directory")
        self.diagnostics = _read_csv(os.path.join(self.path, "diagnostics.csv"))
        self.lagrangian_radii = _read_csv(os.path.join(self.path, "lagrangian_radii.csv"))
        self.units = _model_units(self.path)


def _tables(run):
    if isinstance(run, (str, os.PathLike)):
        run = _GravityTables(run)
    diag, radii = run.diagnostics, run.lagrangian_radii
    if diag is None:
        raise PlotError(f"{os.path.join(str(getattr(run, 'path', run)), 'diagnostics.csv')}: no diagnostics rows")
    return run, diag, radii


def _positive(values, floor=1e-17):
    """Values for a log axis: zeros (a quantity exactly conserved) drawn at `floor`."""
    return np.maximum(np.asarray(values, dtype=float), floor)


def diagnostics(run, fig=None, title=None):
    """Four panels against simulation time: the relative energy error |E - E0|/|E0| (log
    scale), the virial ratio 2K/|W| (with its equilibrium value 1), the Lagrangian radii (1 % to
    90 % of the mass, log scale) and the drifts of the momentum |P - P0| and of the angular
    momentum |L - L0|/|L0| (log scale), with the run's units where model.toml names them.
    ``run``: a :class:`nbody.Run`, a run directory's path, or an object with ``diagnostics`` and
    ``lagrangian_radii`` structured arrays. Returns the matplotlib figure
    (``fig.savefig("run.png")``)."""
    import matplotlib.pyplot as plt

    run, diag, radii = _tables(run)
    units = getattr(run, "units", None) or {}
    time_unit, length_unit = _unit_name(units.get("time")), _unit_name(units.get("length"))
    if fig is None:
        fig = plt.figure(figsize=(7, 10))
    axes = fig.subplots(4, 1, sharex=True)
    t = diag["time"]
    err = np.asarray(diag["rel_energy_error"], dtype=float)
    axes[0].semilogy(t[1:], _positive(err[1:]), "-", color="C0")
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
    axes[2].set_ylabel("Lagrangian radius" + (f" ({length_unit})" if length_unit else ""))
    names = diag.dtype.names
    if "momentum_drift" in names and "angular_momentum_drift" in names:
        axes[3].semilogy(t[1:], _positive(diag["momentum_drift"][1:]), "-", color="C2", label="|P - P0|")
        axes[3].semilogy(t[1:], _positive(diag["angular_momentum_drift"][1:]), "-", color="C3",
                         label="|L - L0| / |L0|")
        axes[3].legend(fontsize="small")
    axes[3].set_ylabel("momentum drifts")
    axes[3].set_xlabel("time" + (f" ({time_unit})" if time_unit else ""))
    name = title if title is not None else getattr(run, "path", None)
    if name:
        axes[0].set_title(str(name))
    fig.tight_layout()
    return fig


_SPECTRUM = re.compile(r"^spectrum_(\d+)\.csv$")


def _latest_spectrum(path):
    """(step, table) of the run's last spectrum_<step>.csv, or (None, None)."""
    steps = sorted(int(m.group(1)) for m in map(_SPECTRUM.match, os.listdir(path)) if m)
    if not steps:
        return None, None
    return steps[-1], _read_csv(os.path.join(path, f"spectrum_{steps[-1]:08d}.csv"))


def pic(run, fig=None, title=None):
    """Four panels of a PIC run directory (diagnostics.csv and the last spectrum_<step>.csv)
    against time in laser periods T0: the energies (field, kinetic per species, total, and the
    initial total plus the energy in minus the energy out through the Poynting planes, which the
    total follows), the energy balance's error |total - total0 - (in - out)| / max|total| (log),
    the Gauss's-law residual (log), and the energy spectra dN/dE of each species against E in
    MeV (log; the run writes them every output.fields_every steps). Energies are per unit length
    in z, in m_e c^2 n_c (c/omega0)^2. Returns the matplotlib figure."""
    import matplotlib.pyplot as plt

    path = os.fspath(run)
    if not os.path.isdir(path):
        raise PlotError(f"{path}: not a directory")
    diag = _read_csv(os.path.join(path, "diagnostics.csv"))
    if diag is None:
        raise PlotError(f"{os.path.join(path, 'diagnostics.csv')}: no diagnostics rows")
    names = diag.dtype.names
    for column in ("time_periods", "field_energy", "total_energy", "energy_in_left", "energy_out_right",
                   "gauss_residual"):
        if column not in names:
            raise PlotError(f"{os.path.join(path, 'diagnostics.csv')}: no column {column}")
    species = [c[len("kinetic_"):] for c in names if c.startswith("kinetic_")]
    if fig is None:
        fig = plt.figure(figsize=(7, 10))
    axes = fig.subplots(4, 1)
    t = np.asarray(diag["time_periods"], dtype=float)
    total = np.asarray(diag["total_energy"], dtype=float)
    balance = total[0] + np.asarray(diag["energy_in_left"], dtype=float) - np.asarray(diag["energy_out_right"],
                                                                                      dtype=float)
    ax = axes[0]
    ax.plot(t, diag["field_energy"], "-", color="C0", label="field")
    for k, s in enumerate(species):
        ax.plot(t, diag["kinetic_" + s], "-", color=f"C{2 + k % 8}", label=f"kinetic {s}")
    ax.plot(t, total, "-", color="k", label="total")
    ax.plot(t, balance, "--", color="0.5", label="total(0) + in - out")
    ax.set_ylabel("energy (m_e c² n_c (c/ω₀)²)")
    ax.legend(fontsize="small", ncol=2)
    scale = max(float(np.max(np.abs(total))), 1e-300)
    axes[1].semilogy(t[1:], _positive(np.abs(total - balance)[1:] / scale), "-", color="C1")
    axes[1].set_ylabel("|E - E0 - (in - out)| / max|E|")
    axes[2].semilogy(t[1:], _positive(np.abs(np.asarray(diag["gauss_residual"], dtype=float))[1:]), "-",
                     color="C4")
    axes[2].set_ylabel("Gauss residual\nmax|∇·E - ρ| change / max|ρ_s|")
    for ax in axes[:3]:
        ax.set_xlim(t[0], t[-1] if t[-1] > t[0] else t[0] + 1)
        ax.set_xlabel("t (T₀, laser periods)")
    ax = axes[3]
    step, spec = _latest_spectrum(path)
    drawn = 0
    if spec is not None:
        for k, s in enumerate(species or sorted(set(spec["species"]))):
            rows = spec[spec["species"] == s]
            if len(rows) == 0:
                continue
            lo, hi, w = (np.asarray(rows[c], dtype=float) for c in ("e_lo_MeV", "e_hi_MeV", "weight"))
            dnde = w / np.maximum(hi - lo, 1e-300)
            edges = np.append(lo, hi[-1])
            if np.any(dnde > 0):
                ax.stairs(np.where(dnde > 0, dnde, np.nan), edges, color=f"C{2 + k % 8}", label=s)
                drawn += 1
    if drawn:
        ax.set_yscale("log")
        ax.legend(fontsize="small")
        when = diag["time_periods"][diag["step"] == step] if "step" in names else []
        ax.set_title(f"spectra at step {step}" + (f", t = {float(when[0]):.2f} T₀" if len(when) else ""),
                     fontsize="medium")
    else:
        ax.text(0.5, 0.5, "no spectrum_<step>.csv with moving particles\n(the run writes them every "
                "output.fields_every steps)", transform=ax.transAxes, ha="center", va="center")
    ax.set_xlabel("E (MeV)")
    ax.set_ylabel("dN/dE (n_c (c/ω₀)² / MeV)")
    name = title if title is not None else path
    if name:
        axes[0].set_title(str(name))
    fig.tight_layout()
    return fig


def run_figure(path, fig=None, title=None):
    """The figure of a run directory: :func:`pic` where it has deck.toml, else :func:`diagnostics`."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise PlotError(f"{path}: not a directory")
    if os.path.isfile(os.path.join(path, "deck.toml")):
        return pic(path, fig=fig, title=title)
    if os.path.isfile(os.path.join(path, "config.toml")):
        return diagnostics(path, fig=fig, title=title)
    raise PlotError(f"{path}: not a run directory (no config.toml nor deck.toml)")


def panel_boxes(fig):
    """The panels' pixel boxes in the saved image (at the figure's dpi): "x y w h" each, x from
    the left and y from the top, as the program's own images record theirs."""
    fig.canvas.draw()
    height = fig.get_size_inches()[1] * fig.dpi
    boxes = []
    for ax in fig.get_axes():
        b = ax.get_window_extent()
        boxes.append(f"{int(round(b.x0))} {int(round(height - b.y1))} {int(round(b.width))} {int(round(b.height))}")
    return boxes


def _save(fig, out, kind):
    """The figure written atomically (a temporary beside `out`, then renamed); PNG files carry
    the panels' boxes in a tEXt chunk."""
    fmt = os.path.splitext(out)[1][1:].lower() or "png"
    metadata = {"Software": "nbody plot"}
    if fmt == "png":
        metadata.update({"Title": f"{kind} run plot", "Panels": "; ".join(panel_boxes(fig))})
    tmp = os.path.join(os.path.dirname(os.path.abspath(out)), f".{os.path.basename(out)}.{os.getpid()}.tmp")
    try:
        fig.savefig(tmp, format=fmt, dpi=100, metadata=metadata)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def main(argv):
    """python3 plot.py RUN_DIR OUT: the run's figure to OUT (.png, .pdf or .svg). Bad input: one
    line "nbody: error: plot: ..." on stderr and exit status 2."""
    if len(argv) != 3:
        print("usage: plot.py RUN_DIR OUT.png", file=sys.stderr)
        return 2
    path, out = argv[1], argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        fig = run_figure(path)
        _save(fig, out, "PIC" if os.path.isfile(os.path.join(path, "deck.toml")) else "gravity")
    except (PlotError, OSError, ValueError, KeyError, IndexError) as e:
        message = " ".join(str(e).split())
        print(f"nbody: error: plot: {message}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
