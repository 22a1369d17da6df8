#!/usr/bin/env bash
# scripts/demo's printed hints work: a small demo run (with an already built nbody), then each
# command the demo prints ("run it again" and "continue with") is run as printed and must succeed.
# Usage: demo_hints.sh NBODY WORKDIR
set -euo pipefail
nbody="$1"
work="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$work" && mkdir -p "$work"
log="$work/demo.txt"
NBODY_DEMO_NBODY="$nbody" NBODY_DEMO_N=256 NBODY_DEMO_STEPS=20 NBODY_DEMO_OUT="$work/demo" \
  "$root/scripts/demo" >"$log"
again="$(sed -n 's/.*run it again, replacing this run: \(.*\))$/\1/p' "$log")"
continue="$(sed -n 's/.*continue with: \(.*\))$/\1/p' "$log")"
[ -n "$again" ] || { echo "no 'run it again' hint in:"; cat "$log"; exit 1; }
[ -n "$continue" ] || { echo "no 'continue with' hint in:"; cat "$log"; exit 1; }
echo "hint: $again"
(cd "$root" && eval "$again") >"$work/again.txt" || { echo "failed: $again"; cat "$work/again.txt"; exit 1; }
echo "hint: $continue"
(cd "$root" && eval "$continue") >"$work/continue.txt" || { echo "failed: $continue"; cat "$work/continue.txt"; exit 1; }
grep -q "step 40\|40 steps\|: 20 steps" "$work/continue.txt" || { echo "the continued run did not reach step 40:"; cat "$work/continue.txt"; exit 1; }
# The demo ends in a picture where the program has the renderer.
if "$nbody" --version | grep -q '^features:.* render'; then
  picture="$(sed -n 's/^picture: //p' "$log")"
  [ -f "$picture" ] || { echo "no picture '$picture' after:"; cat "$log"; exit 1; }
  head -c 8 "$picture" | od -An -c | grep -q 'P   N   G' || { echo "'$picture' is not a PNG"; exit 1; }
fi
echo "ok"
