#!/usr/bin/env bash
# `nbody bench --suite pic-scaling --quick` under mpirun -np NP (bench/pic_scaling.cpp): it exits
# 0, and its JSON and CSV hold the strong and weak records of 1, 2, ..., NP ranks (and on more
# than one rank the moving target with the even split and with the load balance, and the grid in
# slabs and in blocks), every one
# verified (Gauss's law, the 1-rank run's total energy) and timed with its time split; on more
# than one rank the speedup and efficiency against one rank; --rungs picks the groups. One row
# of cells (TSC, periodic y) verified. A bad --pic-ny: one line, status 2.
# Usage: pic_scaling.sh NP NBODY MPIRUN WORKDIR
set -euo pipefail
np=$1 nbody=$2 mpirun=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

timeout 100 "$mpirun" -np "$np" --oversubscribe "$nbody" bench --suite pic-scaling --quick --rungs strong,weak,moving-target \
  --json "$work/s.json" --csv "$work/s.csv" > "$work/out.txt" 2> "$work/err.txt" ||
  { cat "$work/out.txt" "$work/err.txt"; fail "the suite failed on $np ranks"; }
cat "$work/out.txt"
j="$work/s.json"
ks=(1)
k=2
while [ "$k" -lt "$np" ]; do ks+=("$k"); k=$((k * 2)); done
[ "$np" -gt 1 ] && ks+=("$np")
records=$(grep -c '"suite": "pic-scaling"' "$j" || true)
want=$((2 * ${#ks[@]}))
[ "$np" -gt 1 ] && want=$((want + 2))  # the moving target, even and balanced
[ "$records" -eq "$want" ] || fail "expected $want records, got $records"
for kind in strong weak; do
  for k in "${ks[@]}"; do
    grep -q "\"rung\": \"$kind-$k\"" "$j" || fail "no $kind-$k record"
  done
done
if [ "$np" -gt 1 ]; then
  grep -q "\"rung\": \"moving-target-even-$np\"" "$j" || fail "no moving-target-even-$np record"
  grep -q "\"rung\": \"moving-target-balanced-$np\"" "$j" || fail "no moving-target-balanced-$np record"
  grep -q '"speedup_vs_even_split"' "$j" || fail "the balanced record has no speedup over the even split"
  grep -Eq '"rebalances": [1-9]' "$j" || fail "the load balance did not move the slabs"
fi
[ "$(grep -c '"verified": true' "$j")" -eq "$records" ] || fail "a record is not verified"
for f in '"ranks"' '"cells"' '"particles"' '"ns_per_particle_step"' '"particles_median_s"' '"fields_s"' \
         '"comm_median_s"' '"migration_sort_s"' '"gauss_residual_change"' '"energy_change_vs_one_rank"' '"device"'; do
  [ "$(grep -c "$f" "$j")" -ge "$records" ] || fail "$f missing from a record"
done
grep -q '"complete": true' "$j" || fail "the JSON is not marked complete"
if [ "$np" -gt 1 ]; then
  grep -q '"speedup_vs_one_rank"' "$j" || fail "no strong speedup"
  [ "$(grep -c '"efficiency"' "$j")" -ge 2 ] || fail "no strong and weak efficiency"
fi
[ "$(grep -c '^pic-scaling,' "$work/s.csv")" -eq "$records" ] || fail "CSV rows"
head -1 "$work/s.csv" | grep -q ',ranks,cells,ns_per_particle_step,particles_s,fields_s,comm_s,migration_sort_s,' ||
  fail "CSV lacks the time split columns"

# One row of cells under the periodic TSC stencil (its guards are each other's images) keeps
# Gauss's law: the records are verified. (What a failed check does, "pic WRONG" and no time, is
# PicScalingCheck.AFailedCheckIsWrongAndUntimed.)
"$nbody" bench --suite pic-scaling --quick --pic-ny 1 --json "$work/f.json" > /dev/null 2> "$work/f.txt" ||
  { cat "$work/f.txt"; fail "one row of cells failed its check"; }
[ "$(grep -c '"verified": true' "$work/f.json")" -eq 2 ] || fail "the one-row records are not verified"

# --rungs picks the record groups; blocks: the slabs and every block shape of the ranks (16 rows:
# 8 per block row), the blocks' energy the slabs' to the bit, timed against them.
if [ "$np" -gt 1 ]; then
  timeout 100 "$mpirun" -np "$np" --oversubscribe "$nbody" bench --suite pic-scaling --quick --pic-ny 16 --rungs blocks \
    --json "$work/b.json" > "$work/b.txt" 2>&1 || { cat "$work/b.txt"; fail "--rungs blocks failed"; }
  grep -q "\"rung\": \"blocks-${np}x1\"" "$work/b.json" || fail "no slab record among the blocks"
  grep -q "\"rung\": \"blocks-$((np / 2))x2\"" "$work/b.json" || fail "no blocks-$((np / 2))x2 record"
  [ "$(grep -c '"verified": true' "$work/b.json")" -ge 2 ] || fail "the block records are not verified"
  grep -q '"speedup_vs_slabs"' "$work/b.json" || fail "no time against the slabs"
  grep -q "the slabs' to the bit" "$work/b.json" || fail "the blocks' energy is not the slabs'"
  timeout 100 "$mpirun" -np "$np" --oversubscribe "$nbody" bench --suite pic-scaling --quick --rungs strong-balanced \
    --json "$work/sb.json" > /dev/null 2>&1 || fail "--rungs strong-balanced failed"
  [ "$(grep -c '"rung": "strong-balanced-' "$work/sb.json")" -eq $((${#ks[@]} - 1)) ] || fail "strong-balanced: a record per rank count > 1"
  [ "$(grep -c '"rebalances"' "$work/sb.json")" -eq $((${#ks[@]} - 1)) ] || fail "strong-balanced: no rebalances field"
  grep -q '"speedup_vs_one_rank"' "$work/sb.json" || fail "strong-balanced: no speedup over one rank"
  timeout 100 "$mpirun" -np "$np" --oversubscribe "$nbody" bench --suite pic-scaling --quick --rungs moving-target \
    --json "$work/m.json" > /dev/null 2>&1 || fail "--rungs moving-target failed"
  [ "$(grep -c '"suite": "pic-scaling"' "$work/m.json")" -eq 2 ] || fail "--rungs moving-target: not its two records alone"
fi

# Bad input: one line naming the option, status 2.
for bad in "--pic-ny -3" "--pic-steps -1" "--pic-deposit tiled" "--pic-precision float16"; do
  set +e
  # shellcheck disable=SC2086
  "$nbody" bench --suite pic-scaling $bad > /dev/null 2> "$work/bad.txt"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$bad gave status $rc"
  grep -q -- "${bad%% *}" "$work/bad.txt" || fail "the error does not name ${bad%% *}"
  [ "$(wc -l < "$work/bad.txt")" -eq 1 ] || fail "$bad: not one line"
done
echo "pic-scaling on $np rank(s): $records records verified"
