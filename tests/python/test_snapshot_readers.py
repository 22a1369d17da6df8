#!/usr/bin/env python3
"""An nbody HDF5 snapshot opens in h5py and in yt: particle count, positions and masses match, and
the units of a run in physical units reach yt.

Usage: test_snapshot_readers.py NBODY_EXE WORK_DIR
Exits 77 (ctest SKIP_RETURN_CODE) when h5py, numpy or yt is not installed.
"""
import os
import shutil
import subprocess
import sys

SKIP = 77


def main():
    nbody, work = sys.argv[1], sys.argv[2]
    try:
        import h5py
        import numpy as np
    except ImportError as e:
        print(f"SKIP: h5py/numpy not installed ({e}); install python3-h5py")
        return SKIP
    try:
        import yt
    except ImportError as e:
        print(f"SKIP: yt not installed ({e}); install python3-yt")
        return SKIP
    yt.set_log_level(40)

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    for precision, dtype in (("fp32", np.float32), ("fp64", np.float64)):
        out = os.path.join(work, precision)
        subprocess.run([nbody, "run", "-n", "300", "--steps", "4", "--backend", "cpu", "--precision", precision,
                        "--snapshot-format", "hdf5", "--out", out], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
        snap = os.path.join(out, "snapshot_001.hdf5")
        # The reference: the same snapshot converted to CSV by nbody, 9 or 17 significant digits.
        csv = os.path.join(work, precision + ".csv")
        subprocess.run([nbody, "convert", snap, csv], check=True, stdout=subprocess.DEVNULL)
        ref = np.genfromtxt(csv, delimiter=",", names=True)
        ref_pos = np.stack([ref["x"], ref["y"], ref["z"]], axis=1).astype(dtype)
        ref_mass = ref["m"].astype(dtype)

        with h5py.File(snap, "r") as f:
            header = f["Header"].attrs
            checks = {
                "NumPart_ThisFile": int(header["NumPart_ThisFile"][1]) == 300,
                "NumPart_Total": int(header["NumPart_Total"][1]) == 300,
                "Flag_DoublePrecision": int(header["Flag_DoublePrecision"]) == (1 if precision == "fp64" else 0),
                "Time": abs(float(header["Time"]) - 0.04) < 1e-12,
                "Redshift": float(header["Redshift"]) == 0.0,
                "Code": header["Code"] == b"nbody",
                "Coordinates dtype": f["PartType1/Coordinates"].dtype == dtype,
                "Coordinates": np.array_equal(f["PartType1/Coordinates"][...], ref_pos),
                "Masses": np.array_equal(f["PartType1/Masses"][...], ref_mass),
                "ParticleIDs": np.array_equal(f["PartType1/ParticleIDs"][...], ref["id"].astype(np.uint64)),
                "Units": float(f["Units"].attrs["UnitLength_in_cm"]) == 1.0,
                "Parameters": f["Parameters"].attrs["precision"] == precision.encode()
                and int(f["Parameters"].attrs["n"]) == 300,
            }
            failures += [f"h5py {precision}: {k}" for k, ok in checks.items() if not ok]

        # An isolated system: yt needs a bounding box around the bodies (BoxSize is 0).
        ds = yt.load(snap, bounding_box=[[-1e3, 1e3]] * 3)
        ad = ds.all_data()
        pos = ad["PartType1", "Coordinates"].to("code_length").d
        mass = ad["PartType1", "Masses"].to("code_mass").d
        ids = ad["PartType1", "ParticleIDs"].d.astype(np.uint64)
        order = np.argsort(ids)  # yt may return particles in another order
        checks = {
            "count": len(ids) == 300,
            "positions": np.array_equal(pos[order].astype(dtype), ref_pos),
            "masses": np.array_equal(mass[order].astype(dtype), ref_mass),
            "time": abs(float(ds.current_time.to("code_time").d) - 0.04) < 1e-12,
        }
        failures += [f"yt {precision}: {k}" for k, ok in checks.items() if not ok]

    # A run in galactic units: /Units holds kpc, Msun and km/s in cgs, and yt given them as its
    # unit_base measures in those units.
    out = os.path.join(work, "galactic")
    subprocess.run([nbody, "run", "--ic", "plummer", "-n", "300", "--steps", "1", "--backend", "cpu", "--units",
                    "galactic", "--mass-scale", "1e5", "--length-scale", "0.01", "--snapshot-format", "hdf5",
                    "--out", out], check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, OMP_NUM_THREADS="1"))
    snap = os.path.join(out, "snapshot_000.hdf5")
    with h5py.File(snap, "r") as f:
        units = f["Units"].attrs
        checks = {
            "UnitLength_in_cm": abs(float(units["UnitLength_in_cm"]) / 3.0856775814913673e21 - 1) < 1e-12,
            "UnitMass_in_g": abs(float(units["UnitMass_in_g"]) / 1.98841e33 - 1) < 1e-5,
            "UnitVelocity_in_cm_per_s": float(units["UnitVelocity_in_cm_per_s"]) == 1e5,
            "Parameters units": f["Parameters"].attrs["units"] == b"galactic",
            # GADGET-4 records its units in /Parameters too, where its readers look for them.
            "Parameters UnitLength_in_cm": float(f["Parameters"].attrs["UnitLength_in_cm"])
            == float(units["UnitLength_in_cm"]),
            "Parameters UnitMass_in_g": float(f["Parameters"].attrs["UnitMass_in_g"]) == float(units["UnitMass_in_g"]),
            "Parameters UnitVelocity_in_cm_per_s": float(f["Parameters"].attrs["UnitVelocity_in_cm_per_s"])
            == float(units["UnitVelocity_in_cm_per_s"]),
        }
        failures += [f"h5py galactic: {k}" for k, ok in checks.items() if not ok]
        unit_base = {k: float(v) for k, v in units.items()}
    # yt (4.1) takes GADGET's code units from unit_base, not from /Units: pass them on.
    ds = yt.load(snap, bounding_box=[[-1.0, 1.0]] * 3, unit_base=unit_base)
    checks = {
        "length unit": abs(float(ds.length_unit.to("kpc").d) - 1) < 1e-9,
        "mass unit": abs(float(ds.mass_unit.to("Msun").d) - 1) < 1e-4,
        "velocity unit": abs(float(ds.velocity_unit.to("km/s").d) - 1) < 1e-9,
    }
    failures += [f"yt galactic: {k}" for k, ok in checks.items() if not ok]

    # The same snapshot as CSV keeps the time and the units in its comment line, which numpy's
    # CSV readers skip; converted back to HDF5 the units are those of the run.
    csv = os.path.join(work, "galactic.csv")
    back = os.path.join(work, "galactic_back.hdf5")
    subprocess.run([nbody, "convert", snap, csv], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([nbody, "convert", csv, back], check=True, stdout=subprocess.DEVNULL)
    rows = np.genfromtxt(csv, delimiter=",", names=True)
    with open(csv) as text:
        meta = text.readlines()[1]
    with h5py.File(snap, "r") as f:
        want = {k: float(v) for k, v in f["Units"].attrs.items()}
    with h5py.File(back, "r") as f:
        checks = {
            "rows": len(rows) == 300,
            "comment": meta.startswith("# time = ") and "UnitLength_in_cm = " in meta,
            "units kept": all(float(f["Units"].attrs[k]) == v for k, v in want.items()),
        }
    failures += [f"csv galactic: {k}" for k, ok in checks.items() if not ok]

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("h5py and yt read the snapshots: counts, positions, masses, ids, header and units match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
