#!/usr/bin/env bash
# `nbody bench --suite tree-scaling --quick` under mpirun -np NP (bench/tree_scaling.cpp) with tiny
# sizes: it exits 0, and its JSON and CSV hold the weak and strong records of 1, 2, ..., NP ranks,
# each verified, timed with its phases, with the device, bytes and peaks, and a force error
# p99 <= 1e-2 (theta 0.5); on more than one rank bytes were exchanged, the strong record has the
# 1-rank record's bits and an efficiency. Performance is never asserted. Bad input: one line, status 2.
# Usage: tree_scaling.sh NP NBODY MPIRUN WORKDIR
set -euo pipefail
np=$1 nbody=$2 mpirun=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

timeout 100 "$mpirun" -np "$np" --oversubscribe "$nbody" bench --suite tree-scaling --quick --tree-bodies-per-rank 1024 \
  --tree-bodies 3000 --tree-theta 0.5 --json "$work/t.json" --csv "$work/t.csv" > "$work/out.txt" 2> "$work/err.txt" ||
  { cat "$work/out.txt" "$work/err.txt"; fail "the suite failed on $np ranks"; }
cat "$work/out.txt"
j="$work/t.json"
ks=(1)
k=2
while [ "$k" -lt "$np" ]; do ks+=("$k"); k=$((k * 2)); done
[ "$np" -gt 1 ] && ks+=("$np")
records=$(grep -c '"suite": "tree-scaling"' "$j" || true)
[ "$records" -eq $((2 * ${#ks[@]})) ] || fail "expected $((2 * ${#ks[@]})) records, got $records"
for kind in weak strong; do
  for k in "${ks[@]}"; do
    grep -q "\"rung\": \"$kind-$k\"" "$j" || fail "no $kind-$k record"
  done
done
[ "$(grep -c '"verified": true' "$j")" -eq "$records" ] || fail "a record is not verified"
grep -q '"complete": true' "$j" || fail "the JSON is not marked complete"
for f in '"ranks"' '"device": "cpu"' '"threads_per_rank"' '"phase_median_s"' '"decomposition"' '"top_tree"' \
         '"exchange"' '"build"' '"multipoles"' '"walk"' '"integration"' '"bodies_steps_per_s_per_rank"' \
         '"bytes_sent_max"' '"peak_bodies_max"' '"peak_cells_max"' '"force_error_p50"' '"force_error_p99"'; do
  [ "$(grep -c "$f" "$j")" -ge "$records" ] || fail "$f missing from a record"
done
# The accuracy beside the speed: every record's p99 within 1e-2 (and above 0: the tree is not the direct sum).
grep -o '"force_error_p99": [^,]*' "$j" | awk -F': ' '{ if (!($2 > 0 && $2 <= 1e-2)) { print "p99 " $2; bad = 1 } } END { exit bad }' ||
  fail "a force error p99 is not in (0, 1e-2]"
if [ "$np" -gt 1 ]; then
  # (the records of 1 rank send nothing, those of more ranks send something)
  grep -o '"bytes_sent_max": [^,]*' "$j" | awk -F': ' '$2 > 0 { n++ } END { exit !(n >= 2) }' ||
    fail "no bytes exchanged on more than one rank"
  grep -q '"same_bits_as_one_rank": true' "$j" || fail "the strong record does not have the 1-rank bits"
  ! grep -q '"same_bits_as_one_rank": false' "$j" || fail "a strong record differs from one rank"
  [ "$(grep -c '"efficiency"' "$j")" -ge 2 ] || fail "no weak and strong efficiency"
  grep -q '"speedup_vs_one_rank"' "$j" || fail "no strong speedup"
else
  ! grep -o '"bytes_sent_max": [^,]*' "$j" | grep -vq ': 0$' || fail "one rank sent bytes"
fi
[ "$(grep -c '^tree-scaling,' "$work/t.csv")" -eq "$records" ] || fail "CSV rows"
head -1 "$work/t.csv" | grep -q ',ranks,device,threads_per_rank,model,theta,bodies_per_rank,decomposition_s,' ||
  fail "CSV lacks the phase columns"
head -1 "$work/t.csv" | grep -q ',force_error_p50,force_error_p99,force_error_max$' || fail "CSV lacks the force errors"

# --rungs picks weak or strong.
"$nbody" bench --suite tree-scaling --quick --tree-bodies 600 --rungs strong --json "$work/s.json" > /dev/null 2>&1 ||
  fail "--rungs strong failed"
[ "$(grep -c '"suite": "tree-scaling"' "$work/s.json")" -eq 1 ] && grep -q '"rung": "strong-1"' "$work/s.json" ||
  fail "--rungs strong: not the strong record alone"

# Bad input: one line naming the option, status 2.
for bad in "--tree-bodies 1" "--tree-bodies-per-rank x" "--tree-models cube"; do
  set +e
  # shellcheck disable=SC2086
  "$nbody" bench --suite tree-scaling $bad > /dev/null 2> "$work/bad.txt"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$bad gave status $rc"
  grep -q -- "${bad%% *}" "$work/bad.txt" || fail "the error does not name ${bad%% *}"
  [ "$(wc -l < "$work/bad.txt")" -eq 1 ] || fail "$bad: not one line"
done
echo "tree-scaling on $np rank(s): $records records verified"
