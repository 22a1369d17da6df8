#!/usr/bin/env bash
# `nbody pic run` over several ranks against one process, byte for byte (docs/pic.md, "Several
# processes"). Usage: pic_compare.sh CHECK NBODY MPIRUN WORKDIR, CHECK one of
#   same_bits  one process with solver.deposit = "deterministic" and mpirun -np 1, 2, 3 (and 3
#              with the load balance) write the same diagnostics.csv, checkpoints, units.json,
#              openPMD files, profile/spectrum/phase CSV files and PNG images; also 1 x 2 and
#              2 x 2 blocks (parallel.ranks_y), on GPUs
#              2 x 2 blocks and 3 slabs with the load balance exchanging GPU to GPU
#              (parallel.exchange = "ipc"), and on the CPU "auto" on 4 ranks
#   restart    a run of 30 steps on 2 ranks, resumed on 3 to step 60 (--resume DIR --steps 60),
#              ends with the checkpoints, diagnostics, outputs and images of the uninterrupted
#              single-process run
#   refusals   a GPU run with a deposition that does not run over blocks (or without a device), a
#              too narrow grid, block rows that do not divide the ranks or a grid too short for
#              them, GPU-to-GPU exchanges on the CPU under mpirun: one line, exit status 2
# NBODY_PIC_DEVICE=cuda: same_bits and restart on GPU blocks (every run, the single process's too);
# with NBODY_PIC_PRECISION=float32 too, every run with the float32 particle store
# (solver.particle_precision: the resume's checkpoints carry the store's bits).
set -euo pipefail
check=$1 nbody=$2 mpirun=$3 work=$4
device=()
[ "${NBODY_PIC_DEVICE:-cpu}" = cuda ] && device=(--set solver.device=cuda)
if [ "${NBODY_PIC_PRECISION:-float64}" != float64 ]; then
  device+=(--set "solver.particle_precision=$NBODY_PIC_PRECISION")
fi
rm -rf "$work"
mkdir -p "$work"

mpi() {
  local np=$1
  shift
  timeout 100 "$mpirun" -np "$np" --oversubscribe "$@"
}

cat > "$work/hb.toml" <<'TOML'
[grid]
nx = 60
ny = 4
dx = 0.02
dy = 0.04
x0 = -0.2
boundary_x = "open"
[time]
steps = 60
courant = 0.95
[solver]
field = "ck"
shape = "tsc"
deposit = "deterministic"
[laser]
a0 = 3.0
polarisation = "circular"
envelope = "sin2"
duration = 1.0
[output]
diag_every = 10
fields_every = 30
images_every = 30
checkpoint_every = 30
[[species]]
name = "electron"
ppc = 4
density = 4.0
x_start = -0.15
x_end = 0.9
temperature_keV = 10.0
boundary_xmin = "thermal"
boundary_xmax = "absorb"
[[species]]
name = "deuteron"
ppc = 2
density = 4.0
x_start = -0.15
x_end = 0.9
boundary_xmin = "reflect"
boundary_xmax = "absorb"
TOML
# (a build without the renderer, e.g. on GPU machines without libpng and cairo, refuses images)
if ! "$nbody" --version | grep -q "render"; then
  sed -i 's/^images_every = 30$/images_every = 0/' "$work/hb.toml"
fi

# Every file of A (but deck.toml, which names the directory and the ranks' layout, run.log with
# its timestamps and the lock with its process id) has the same bytes in B. `skip` names files
# left out.
compare_dirs() {
  local a=$1 b=$2 skip=${3:-} n=0
  while IFS= read -r f; do
    local rel=${f#"$a"/}
    case "$rel" in deck.toml | run.log | .nbody.lock) continue ;; esac
    if [ -n "$skip" ] && [[ "$rel" =~ $skip ]]; then continue; fi
    if ! cmp -s "$f" "$b/$rel"; then
      echo "FAIL: $b/$rel differs from $a/$rel"
      exit 1
    fi
    n=$((n + 1))
  done < <(find "$a" -type f | sort)
  [ "$n" -gt 10 ] || { echo "FAIL: only $n files compared"; exit 1; }
  echo "same bytes: $b and $a ($n files)"
}

case "$check" in
same_bits)
  "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --out "$work/single" > /dev/null
  for np in 1 2 3; do
    mpi "$np" "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --out "$work/np$np" > "$work/np$np.stdout"
    compare_dirs "$work/single" "$work/np$np" '^timings.json$'  # (GPU slabs: measured times)
  done
  # The load balance moves the slab boundaries (every 10 steps, at any imbalance) and changes no byte.
  mpi 3 "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --set balance.every=10 \
    --set balance.threshold=0 --out "$work/np3b" > "$work/np3b.stdout"
  grep -q "load balance moved the slab boundaries" "$work/np3b.stdout" || { echo "FAIL: no rebalance"; cat "$work/np3b.stdout"; exit 1; }
  compare_dirs "$work/single" "$work/np3b" '^timings.json$'
  # 2D blocks: 1 x 2 and 2 x 2 blocks (with the load balance along x) of a taller grid (CPU and GPU).
  "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --set grid.ny=18 --out "$work/tall" > /dev/null
  # (one process with block rows asked for: a note, and the same run)
  "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --set grid.ny=18 --set parallel.ranks_y=2 \
    --out "$work/tall1" > "$work/tall1.stdout"
  grep -q "has no blocks to make on one process" "$work/tall1.stdout" || { echo "FAIL: no note"; cat "$work/tall1.stdout"; exit 1; }
  compare_dirs "$work/tall" "$work/tall1" '^timings.json$'
  mpi 2 "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --set grid.ny=18 --set parallel.ranks_y=2 \
    --out "$work/np2y" > "$work/np2y.stdout"
  grep -q "1 x 2 blocks" "$work/np2y.stdout" || { echo "FAIL: no blocks"; cat "$work/np2y.stdout"; exit 1; }
  compare_dirs "$work/tall" "$work/np2y" '^timings.json$'
  mpi 4 "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --set grid.ny=18 --set parallel.ranks_y=2 \
    --set balance.every=10 --set balance.threshold=0 --out "$work/np4yb" > "$work/np4yb.stdout"
  grep -q "load balance moved the slab boundaries" "$work/np4yb.stdout" || { echo "FAIL: no rebalance"; cat "$work/np4yb.stdout"; exit 1; }
  grep -q "2 x 2 blocks" "$work/np4yb.stdout" || { echo "FAIL: no blocks"; cat "$work/np4yb.stdout"; exit 1; }
  compare_dirs "$work/tall" "$work/np4yb" '^timings.json$'
  if [ ${#device[@]} -gt 0 ]; then
    # GPU to GPU guard messages (CUDA IPC between the ranks' processes): the same bytes.
    mpi 4 "$nbody" pic run --config "$work/hb.toml" "${device[@]}" --set grid.ny=18 --set parallel.ranks_y=2 \
      --set 'parallel.exchange="ipc"' --out "$work/np4yipc" > "$work/np4yipc.stdout"
    compare_dirs "$work/tall" "$work/np4yipc" '^timings.json$'
    mpi 3 "$nbody" pic run --config "$work/hb.toml" "${device[@]}" --set 'parallel.exchange="ipc"' --set balance.every=10 \
      --set balance.threshold=0 --out "$work/np3ipc" > "$work/np3ipc.stdout"
    compare_dirs "$work/single" "$work/np3ipc" '^timings.json$'
  else
    # ("auto": on GPUs it keeps slabs along x)
    mpi 4 "$nbody" pic run --config "$work/hb.toml" --set grid.ny=18 --set 'parallel.ranks_y="auto"' --out "$work/np4auto" \
      > "$work/np4auto.stdout"
    grep -q 'parallel.ranks_y = "auto"' "$work/np4auto.stdout" || { echo "FAIL: no auto shape"; cat "$work/np4auto.stdout"; exit 1; }
    compare_dirs "$work/tall" "$work/np4auto" '^timings.json$'
  fi
  ;;
restart)
  "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --out "$work/whole" > /dev/null
  mpi 2 "$nbody" pic run --config "$work/hb.toml" ${device[@]+"${device[@]}"} --out "$work/two_three" --steps 30 > /dev/null
  mpi 3 "$nbody" pic run --resume "$work/two_three" --steps 60 > "$work/two_three.stdout"
  grep -q "resumed from .* at step 30" "$work/two_three.stdout" || { echo "FAIL: not resumed"; cat "$work/two_three.stdout"; exit 1; }
  # diagnostics.csv too: the resumed run goes on with the Poynting integrals and the Gauss
  # reference of the run it continues.
  compare_dirs "$work/whole" "$work/two_three" '^timings.json$'
  ;;
refusals)
  for bad in "--set solver.device=cuda --set solver.deposit=tiled" "--set grid.nx=20" "--set parallel.ranks_y=2" \
    "--set parallel.ranks_y=3" "--set parallel.exchange=\"ipc\""; do
    set +e
    # shellcheck disable=SC2086
    mpi 3 "$nbody" pic run --config "$work/hb.toml" $bad --out "$work/refused" > "$work/refused.out" 2> "$work/refused.err"
    status=$?
    set -e
    cat "$work/refused.err"
    [ "$status" -eq 2 ] || { echo "FAIL: exit status $status for $bad (expected 2)"; exit 1; }
    [ ! -e "$work/refused" ] || { echo "FAIL: $bad wrote $work/refused"; exit 1; }
    grep -q "over several processes\|too small for 3 processes\|does not divide the 3 processes\|too small for parallel.ranks_y = 3\|it needs solver.device" \
      "$work/refused.err" || { echo "FAIL: no clear message"; exit 1; }
    [ "$(grep -c '^nbody: error' "$work/refused.err")" = 1 ] || { echo "FAIL: not one line from the program"; exit 1; }
  done
  echo "refused with exit status 2"
  ;;
*)
  echo "unknown check $check"
  exit 2
  ;;
esac
