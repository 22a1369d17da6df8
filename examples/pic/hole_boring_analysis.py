#!/usr/bin/env python3
"""Hole-boring analysis of a `nbody pic run` output directory: its openPMD files pic_*.h5, or,
from a build without HDF5, its reduced outputs (profile_*.csv, spectrum_*.csv, phase_*.csv).

Measures the front (the laser piston: the peak of the electron density, averaged over y) against
time, fits its velocity over the flat top of the pulse, and compares it with Robinson et al.,
Plasma Phys. Control. Fusion 51, 024004 (2009): v_hb/c = sqrt(Pi)/(1 + sqrt(Pi)),
Pi = I/(rho c^3), rho = sum over ion species of n_i m_i. Also the ion energy spectra, with the
reflected-ion energy E_i = m_i c^2 2 Pi/(1 + 2 sqrt Pi). Writes hole_boring.json and, with
matplotlib, hole_boring_front.png, hole_boring_spectrum.png and hole_boring_phase_space.png (x-p_x
of electrons and the first ion species, E_y and E_z along x) into the directory.

The program itself draws field maps and phase spaces (PNG, no Python needed) with
`--set output.images_every=N` (docs/pic.md, Outputs); this script adds the measurements.

usage: hole_boring_analysis.py CONFIG.toml RUN_DIR [--fit-from T] [--fit-to T]   (times in periods)
"""
import glob
import json
import math
import os
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None
import numpy as np

try:
    import h5py
except ImportError:  # the CSV outputs need only numpy
    h5py = None

MASS = {"electron": 1.0, "positron": 1.0, "proton": 1836.15267343, "deuteron": 3670.48, "triton": 5496.92}
MEC2_MEV = 0.51099895


def species_mass(s):
    if s.get("mass"):
        return s["mass"]
    return MASS[s.get("type", s["name"])]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    cfg_path, run_dir = argv[1], argv[2]
    opts = dict(zip(argv[3::2], argv[4::2]))
    with open(cfg_path, "rb") as f:
        cfg = tomllib.load(f)
    laser = cfg["laser"]
    a0 = laser["a0"]
    circular = laser.get("polarisation", "linear") == "circular"
    # Intensity in n_c m_e c^3: a0^2 (circular, |a| = a0) or a0^2 / 2 (linear, cycle average).
    intensity = a0 * a0 * (1.0 if circular else 0.5)
    ions = [s for s in cfg["species"] if species_mass(s) > 1.5]
    rho = sum(s["density"] * species_mass(s) for s in ions)
    Pi = intensity / rho
    v_theory = math.sqrt(Pi) / (1 + math.sqrt(Pi))

    files = sorted(glob.glob(os.path.join(run_dir, "pic_*.h5")))
    profiles = sorted(glob.glob(os.path.join(run_dir, "profile_*.csv")))
    if files and h5py is None and not profiles:
        print("reading openPMD files needs h5py (Debian: python3-h5py)")
        return 1
    use_csv = not files or h5py is None
    if use_csv and not profiles:
        print(f"no openPMD files and no profile_*.csv in {run_dir}")
        return 1
    times, fronts = [], []
    last = None
    g = cfg["grid"]
    t_start = cfg.get("time", {}).get("t_start", 0.0)
    dt_periods = None
    if use_csv:
        with open(os.path.join(run_dir, "units.json")) as f:
            dt_periods = json.load(f)["dt"] / (2 * math.pi)
        for name in profiles:
            step = int(os.path.basename(name)[len("profile_"):-len(".csv")])
            data = np.genfromtxt(name, delimiter=",", names=True)
            h = data["weight_electron"]
            if h.max() <= 0:
                continue
            times.append(t_start + step * dt_periods)
            fronts.append(float(data["x_lambda"][h.argmax()]))
            last = name
    else:
        for name in files:
            with h5py.File(name, "r") as f:
                it = next(iter(f["data"].values()))
                t = it.attrs["time"] / (2 * math.pi)  # periods
                p = it["particles/electron"]
                x = p["position/x"][()] / (2 * math.pi)  # wavelengths
                w = p["weighting"][()]
                edges = g["x0"] + g["dx"] * np.arange(g["nx"] + 1)
                h, _ = np.histogram(x, bins=edges, weights=w)
                if h.max() <= 0:
                    continue
                times.append(t)
                fronts.append(0.5 * (edges[h.argmax()] + edges[h.argmax() + 1]))
                last = name
    times, fronts = np.array(times), np.array(fronts)
    t0 = float(opts.get("--fit-from", times[0] + 0.4 * (times[-1] - times[0])))
    t1 = float(opts.get("--fit-to", times[-1]))
    sel = (times >= t0) & (times <= t1)
    v_measured = float(np.polyfit(times[sel], fronts[sel], 1)[0]) if sel.sum() >= 2 else float("nan")

    spectra = {}
    if use_csv:
        spectrum = np.genfromtxt(last.replace("profile_", "spectrum_"), delimiter=",", names=True, dtype=None,
                                 encoding="utf-8")
    for s in ions:
        m = species_mass(s)
        expected = m * MEC2_MEV * 2 * Pi / (1 + 2 * math.sqrt(Pi))
        if use_csv:
            rows = spectrum[spectrum["species"] == s["name"]]
            mid = 0.5 * (rows["e_lo_MeV"] + rows["e_hi_MeV"])
            fast = mid > 0.3 * expected
            hist = rows["weight"][fast]
            edges = np.append(rows["e_lo_MeV"][fast], rows["e_hi_MeV"][fast][-1:]) if fast.any() else np.zeros(2)
            peak = float(mid[fast][hist.argmax()]) if fast.any() and hist.max() > 0 else float("nan")
            hist = hist if fast.any() else np.zeros(1)
        else:
            with h5py.File(last, "r") as f:
                it = next(iter(f["data"].values()))
                p = it["particles/" + s["name"]]
                u2 = sum(p["momentum/" + c][()] ** 2 for c in "xyz")
                e_mev = (np.sqrt(1 + u2) - 1) * m * MEC2_MEV
                w = p["weighting"][()]
                fast = e_mev > 0.3 * expected
                hist, edges = np.histogram(e_mev[fast], bins=60, weights=w[fast]) if fast.any() else (np.zeros(1), np.zeros(2))
                peak = float(0.5 * (edges[hist.argmax()] + edges[hist.argmax() + 1])) if fast.any() else float("nan")
        spectra[s["name"]] = {"peak_MeV": peak, "expected_MeV": expected, "hist": np.asarray(hist).tolist(),
                              "edges": np.asarray(edges).tolist()}

    result = {
        "a0": a0, "circular": circular, "Pi": Pi, "v_hb_theory": v_theory, "v_hb_measured": v_measured,
        "ratio": v_measured / v_theory, "fit_periods": [t0, t1],
        "front": {"t_periods": times.tolist(), "x_lambda": fronts.tolist()},
        "ion_peaks": {k: {"peak_MeV": v["peak_MeV"], "expected_MeV": v["expected_MeV"]} for k, v in spectra.items()},
    }
    with open(os.path.join(run_dir, "hole_boring.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"Pi = {Pi:.4g}: v_hb/c theory {v_theory:.4f}, measured {v_measured:.4f} (ratio {v_measured / v_theory:.3f}, "
          f"fit over t = {t0:.2f}..{t1:.2f} periods)")
    for k, v in spectra.items():
        print(f"{k}: spectrum peak {v['peak_MeV']:.3f} MeV, reflected-ion energy {v['expected_MeV']:.3f} MeV")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.colors
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot(times, fronts, "o-", ms=3, label="front (electron density peak)")
        ax.plot(times, fronts[sel][0] + v_theory * (times - times[sel][0]), "--", label=f"Robinson v_hb = {v_theory:.4f} c")
        ax.set_xlabel("t (laser periods)")
        ax.set_ylabel("x (wavelengths)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(run_dir, "hole_boring_front.png"), dpi=120)
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for k, v in spectra.items():
            e = np.array(v["edges"])
            ax.step(0.5 * (e[1:] + e[:-1]), v["hist"], where="mid", label=k)
            ax.axvline(v["expected_MeV"], ls="--", lw=0.8)
        ax.set_xlabel("ion energy (MeV)")
        ax.set_ylabel("dN/dE (arb.)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(run_dir, "hole_boring_spectrum.png"), dpi=120)
        # Phase space x-p_x of the ions and electrons, and the fields, at the last dump.
        fig, axes = plt.subplots(3, 1, figsize=(6, 7), sharex=True)
        names = ["electron"] + [s["name"] for s in ions][:1]
        if use_csv:
            phase = np.genfromtxt(last.replace("profile_", "phase_"), delimiter=",", names=True, dtype=None,
                                  encoding="utf-8")
            prof = np.genfromtxt(last, delimiter=",", names=True)
            for ax, name in zip(axes[:2], names):
                rows = phase[phase["species"] == name]
                ax.scatter(rows["x_lambda"], rows["ux"], c=np.log10(rows["weight"]), s=1, marker="s", cmap="viridis")
                ax.set_ylabel(f"{name} u_x = p_x / m c")
            xs, ey, ez = prof["x_lambda"], prof["Ey_mid"], prof["Ez_mid"]
            t_last = times[-1]
        else:
            with h5py.File(last, "r") as f:
                it = next(iter(f["data"].values()))
                for ax, name in zip(axes[:2], names):
                    p = it["particles/" + name]
                    x = p["position/x"][()] / (2 * math.pi)
                    ax.hist2d(x, p["momentum/x"][()], bins=(300, 200), weights=p["weighting"][()], cmap="viridis",
                              norm=matplotlib.colors.LogNorm())
                    ax.set_ylabel(f"{name} u_x = p_x / m c")
                E = it["meshes/E"]
                ey_all = E["y"][()]
                xs = (E.attrs["gridGlobalOffset"][1] / (2 * math.pi)
                      + np.arange(ey_all.shape[1]) * E.attrs["gridSpacing"][1] / (2 * math.pi))
                ey, ez = ey_all[ey_all.shape[0] // 2], E["z"][()][ey_all.shape[0] // 2]
                t_last = it.attrs["time"] / (2 * math.pi)
        axes[2].plot(xs, ey, lw=0.7, label="E_y")
        axes[2].plot(xs, ez, lw=0.7, label="E_z")
        axes[2].set_ylabel("E (m_e c omega0 / e)")
        axes[2].set_xlabel("x (wavelengths)")
        axes[2].legend()
        fig.suptitle(f"t = {t_last:.2f} periods")
        fig.tight_layout()
        fig.savefig(os.path.join(run_dir, "hole_boring_phase_space.png"), dpi=120)
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
