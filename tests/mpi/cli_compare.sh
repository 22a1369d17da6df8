#!/usr/bin/env bash
# The program over several ranks against one process, byte for byte.
# Usage: cli_compare.sh CHECK NBODY MPIRUN WORKDIR, CHECK one of
#   same_bits     runs on 1 process and under mpirun -np 1, 2, 3 write the same snapshots,
#                 checkpoints, diagnostics and Lagrangian radii (hermite4 block steps, leapfrog;
#                 on the CPU the tree too, Barnes-Hut and relative)
#   restart       a run stopped at a checkpoint on 2 ranks and resumed on 3 (and one on 3
#                 resumed by a single process) ends with the files of the uninterrupted run: the
#                 direct sum, and on the CPU the tree with the relative criterion (leapfrog, euler)
#   failing_rank  a rank that fails (rank 1, then rank 0) ends every rank: non-zero exit status,
#                 the failing rank named, no hang (every mpirun under a timeout)
#   hdf5          HDF5 snapshots under mpirun -np 2 and 3 (written collectively where the build has
#                 parallel HDF5, by rank 0 otherwise) are the single process's bytes; so are the
#                 files of the pipelined exchange; a snapshot that cannot be written (a file size
#                 limit) ends the run naming a rank, leaving no temporary file
# NBODY_MPI_DEVICE=cuda runs same_bits and restart on GPUs (one per rank) instead of the CPU.
set -euo pipefail
device=${NBODY_MPI_DEVICE:-cpu}
check=$1 nbody=$2 mpirun=$3 work=$4
rm -rf "$work"
mkdir -p "$work"

mpi() {
  local np=$1
  shift
  timeout 100 "$mpirun" -np "$np" --oversubscribe "$@"
}

# Each run writes into DIR/run (config.toml and the run id name the directory as given).
in_dir() {
  mkdir -p "$1"
  local d=$1
  shift
  (cd "$d" && "$@")
}

# The files a run writes that must not depend on the number of ranks (run.log has timings).
compare_dirs() {
  local a=$1 b=$2 n=0
  for f in "$a"/*; do
    local name
    name=$(basename "$f")
    case "$name" in run.log | .nbody.lock) continue ;; esac
    if ! cmp -s "$f" "$b/$name"; then
      echo "FAIL: $b/$name differs from $a/$name"
      exit 1
    fi
    n=$((n + 1))
  done
  [ "$(ls "$a" | wc -l)" = "$(ls "$b" | wc -l)" ] || { echo "FAIL: $a and $b hold different files"; ls "$a" "$b"; exit 1; }
  echo "same bytes: $b and $a ($n files)"
}

case "$check" in
same_bits)
  integs=("--integrator hermite4 --dt-mode block --precision fp64 --ic plummer"
          "--integrator leapfrog --precision fp32 --ic king")
  # (CPU) the tree, Barnes-Hut and relative: every rank walks the one-process groups
  [ "$device" = cpu ] && integs+=("--integrator leapfrog --precision fp32 --ic plummer --gravity tree --tree-leaf-size 2 --tree-group-size 4"
                                  "--integrator leapfrog --precision fp64 --ic plummer --gravity tree --tree-leaf-size 2 --tree-group-size 4 --tree-criterion relative --tree-alpha 0.01")
  for integ in "${integs[@]}"; do
    tag=$(echo "$integ" | awk '{print $2 "-" $4 "-" $6 ($8 ? "-" $8 : "")}')
    # shellcheck disable=SC2086
    args=(run --n 67 --steps 30 --dt 0.0078125 --softening 0.05 --threads 1 --device "$device" $integ
          --snapshot-every 10 --checkpoint-every 15 --diag-every 5 --snapshot-format tipsy)
    in_dir "$work/$tag.single" "$nbody" "${args[@]}" --out run > /dev/null
    for np in 1 2 3; do
      in_dir "$work/$tag.np$np" mpi "$np" "$nbody" "${args[@]}" --out run > "$work/$tag.np$np.stdout"
      compare_dirs "$work/$tag.single/run" "$work/$tag.np$np/run"
    done
  done
  ;;
restart)
  # The direct sum, and (CPU) the tree with the relative criterion, whose |a| history every rank
  # keeps whole and rank 0's checkpoint carries: with leapfrog (the resumed run computes the
  # accelerations of the checkpoint's positions again, by the history the last pass read) and
  # euler (by the last pass's |a|). 256 bodies: with 61 the cells the history opens did not
  # change from one step to the next, and a wrong history in the checkpoint went unseen.
  cases=("direct|--n 61 --device $device --integrator leapfrog")
  tree="--n 256 --device cpu --gravity tree --tree-criterion relative --tree-alpha 0.01 --tree-leaf-size 2 --tree-group-size 4 --precision fp32"
  [ "$device" = cpu ] && cases+=("tree|$tree --integrator leapfrog" "tree_euler|$tree --integrator euler")
  for c in "${cases[@]}"; do
    tag=${c%%|*}
    # shellcheck disable=SC2206
    extra=(${c#*|})
    args=(run --dt 0.0078125 --softening 0.05 --threads 1 "${extra[@]}" --ic plummer
          --snapshot-every 10 --checkpoint-every 20 --diag-every 5 --snapshot-format csv)
    in_dir "$work/$tag.whole" "$nbody" "${args[@]}" --steps 60 --out run > /dev/null
    # Stopped at step 20 on 2 ranks (the checkpoint of step 20 is its last), resumed on 3 to 60.
    in_dir "$work/$tag.two_three" mpi 2 "$nbody" "${args[@]}" --steps 20 --out run > /dev/null
    in_dir "$work/$tag.two_three" mpi 3 "$nbody" run --resume run --steps 60 > "$work/$tag.two_three.stdout"
    compare_dirs "$work/$tag.whole/run" "$work/$tag.two_three/run"
    # Stopped at step 20 on 3 ranks, resumed by one process. (A checkpoint keeps the run length it
    # was written with, so the runs stop where the newest two checkpoints, 40 and 60, come after.)
    in_dir "$work/$tag.three_one" mpi 3 "$nbody" "${args[@]}" --steps 20 --out run > /dev/null
    in_dir "$work/$tag.three_one" "$nbody" run --resume run --steps 60 > /dev/null
    compare_dirs "$work/$tag.whole/run" "$work/$tag.three_one/run"
  done
  ;;
failing_rank)
  args=(run --n 64 --steps 100000 --threads 1 --device cpu)
  # Rank 1 cannot read its initial conditions while rank 0 waits in the first force pass.
  set +e
  timeout 100 "$mpirun" --oversubscribe -np 1 "$nbody" "${args[@]}" --ic plummer : -np 1 "$nbody" "${args[@]}" \
    --ic file:"$work/missing.csv" > "$work/rank1.out" 2> "$work/rank1.err"
  status=$?
  set -e
  cat "$work/rank1.err"
  [ "$status" -ne 124 ] || { echo "FAIL: the run hung (killed by the timeout)"; exit 1; }
  [ "$status" -ne 0 ] || { echo "FAIL: exit status 0 for a failing rank"; exit 1; }
  grep -q "nbody: error: rank 1: ic: .*missing.csv" "$work/rank1.err" || { echo "FAIL: rank 1 not named"; exit 1; }
  echo "rank 1 failed: exit status $status, rank named"
  # Rank 0 refuses the run directory (a file is in the way) while rank 1 waits for its first chunk.
  touch "$work/not_a_directory"
  set +e
  timeout 100 "$mpirun" --oversubscribe -np 2 "$nbody" "${args[@]}" --ic plummer --out "$work/not_a_directory" \
    > "$work/rank0.out" 2> "$work/rank0.err"
  status=$?
  set -e
  cat "$work/rank0.err"
  [ "$status" -ne 124 ] || { echo "FAIL: the run hung (killed by the timeout)"; exit 1; }
  [ "$status" -ne 0 ] || { echo "FAIL: exit status 0 for a failing rank"; exit 1; }
  grep -q "nbody: error: rank 0: " "$work/rank0.err" || { echo "FAIL: rank 0 not named"; exit 1; }
  echo "rank 0 failed: exit status $status, rank named"
  ;;
hdf5)
  args=(run --n 203 --steps 12 --dt 0.0078125 --softening 0.05 --threads 1 --device "$device" --integrator leapfrog
        --ic king --snapshot-every 4 --diag-every 4 --snapshot-format hdf5)
  for precision in fp32 fp64; do
    in_dir "$work/$precision.single" "$nbody" "${args[@]}" --precision "$precision" --out run > /dev/null
    for np in 2 3; do
      in_dir "$work/$precision.np$np" mpi "$np" "$nbody" "${args[@]}" --precision "$precision" --out run > /dev/null
      compare_dirs "$work/$precision.single/run" "$work/$precision.np$np/run"
    done
    in_dir "$work/$precision.piped" mpi 3 "$nbody" "${args[@]}" --precision "$precision" \
      --distribution-exchange pipelined --distribution-chunks 3 --out run > /dev/null
    # config.toml, the checkpoints and the snapshots' /Parameters record the exchange: the
    # diagnostics have the gather's bytes, and so do the snapshots' bodies (converted to CSV).
    for f in diagnostics.csv lagrangian_radii.csv; do
      cmp -s "$work/$precision.single/run/$f" "$work/$precision.piped/run/$f" || { echo "FAIL: pipelined $f differs"; exit 1; }
    done
    for f in "$work/$precision.single/run"/snapshot_*.hdf5; do
      name=$(basename "$f" .hdf5)
      "$nbody" convert "$f" "$work/$precision.single.$name.csv" > /dev/null
      "$nbody" convert "$work/$precision.piped/run/$name.hdf5" "$work/$precision.piped.$name.csv" > /dev/null
      cmp -s "$work/$precision.single.$name.csv" "$work/$precision.piped.$name.csv" || { echo "FAIL: pipelined $name differs"; exit 1; }
    done
    echo "same bytes: pipelined exchange on 3 ranks ($precision)"
  done
  # A file size limit (on the ranks alone: 32 KiB) below the first snapshot (about 720 kB): the
  # write fails (EFBIG) on the ranks, which end the run naming themselves. TCP between the ranks:
  # OpenMPI's shared-memory transport needs a backing file larger than the limit.
  set +e
  (cd "$work" && timeout 100 "$mpirun" -np 2 --oversubscribe --mca btl self,tcp sh -c 'ulimit -f 64 && exec "$0" "$@"' \
    "$nbody" run --n 20000 --steps 2 --threads 1 --device "$device" --snapshot-every 2 --snapshot-format hdf5 \
    --out limited > limited.out 2> limited.err)
  status=$?
  set -e
  grep "nbody: error" "$work/limited.err" || true
  [ "$status" -ne 124 ] || { echo "FAIL: the run hung (killed by the timeout)"; exit 1; }
  [ "$status" -ne 0 ] || { echo "FAIL: exit status 0 for a snapshot that could not be written"; exit 1; }
  grep -q "nbody: error: rank [0-9]*: .*snapshot_000.hdf5" "$work/limited.err" || { echo "FAIL: no rank named"; exit 1; }
  if ls "$work/limited" | grep -q "\.tmp\."; then echo "FAIL: a temporary file was left"; ls "$work/limited"; exit 1; fi
  echo "snapshot beyond the file size limit: exit status $status, rank named, no temporary left"
  ;;
*)
  echo "unknown check $check"
  exit 2
  ;;
esac
