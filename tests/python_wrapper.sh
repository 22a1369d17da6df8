#!/usr/bin/env bash
# scripts/python finds an interpreter with the modules a program needs although the first python3
# on PATH lacks them (a fake one that fails every import), and names what is missing otherwise.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$1"
rm -rf "$work" && mkdir -p "$work/bin"
printf '#!/bin/sh\nexit 1\n' >"$work/bin/python3"
chmod +x "$work/bin/python3"
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then echo "no /usr/bin/python3 with numpy: skipped"; exit 77; fi
got="$(PATH="$work/bin:$PATH" "$root/scripts/python" --needs numpy -c 'import numpy, sys; print(sys.executable)')"
[ "$got" = /usr/bin/python3 ] || { echo "ran $got, expected /usr/bin/python3"; exit 1; }
set +e
msg="$(PATH="$work/bin:$PATH" "$root/scripts/python" --needs no_such_module_zz -c 'pass' 2>&1)"
rc=$?
set -e
[ $rc -eq 3 ] || { echo "exit $rc for a missing module, expected 3"; exit 1; }
echo "$msg" | grep -q "no module no_such_module_zz" || { echo "message does not name the module: $msg"; exit 1; }
echo "$msg" | grep -q "apt-get install python3-no_such_module_zz" || { echo "no install hint: $msg"; exit 1; }
echo ok
