#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/reliability.sh [full|quick] [OUTDIR] - the reliability
# scenarios, run inside the test VM (make reliability runs the full set,
# tests/vm/check.sh the quick one):
#
#   full:  60 s fault storm at 10 cuts/s; 1000 netns, 100 insmod/rmmod
#          and 100 torusd SIGKILL cycles
#   quick: 10 s storm; 50 netns, 5 insmod/rmmod, 5 torusd kills
#
# Prints PASS:/FAIL: lines; writes OUTDIR/results.json (strict JSON:
# {mode, ok, storm: {...}, churn: {...}}; default OUTDIR build/reliability).
case ${1:-} in -h|--help) sed -n '3,/^case /{/^case /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/../.." || exit 1
. tests/vm/lib.sh
require_vm

mode=${1:-full}
out=${2:-build/reliability}
case $mode in
full)	storm="--seconds 60 --rate 10"
	churn="--netns 1000 --modules 100 --kills 100" ;;
quick)	storm="--seconds 10 --rate 10"
	churn="--netns 50 --modules 5 --kills 5" ;;
*)	echo "usage: $0 [full|quick] [OUTDIR]" >&2; exit 2 ;;
esac
mkdir -p "$out" || exit 1
rm -f "$out/storm.json" "$out/churn.json" "$out/results.json"

status=0
# shellcheck disable=SC2086
python3 tests/vm/storm_test.py $storm --json "$out/storm.json" || status=1
# shellcheck disable=SC2086
python3 tests/vm/churn_test.py $churn --json "$out/churn.json" || status=1

python3 - "$out" "$mode" "$status" <<'PY' || status=1
import json, os, sys
out, mode, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
res = {"mode": mode, "ok": status == 0}
for part in ("storm", "churn"):
    try:
        with open(os.path.join(out, part + ".json")) as f:
            res[part] = json.load(f)
    except (OSError, ValueError):
        res[part] = None
        res["ok"] = False
with open(os.path.join(out, "results.json"), "w") as f:
    json.dump(res, f, indent=1, sort_keys=True, allow_nan=False)
    f.write("\n")
print("# reliability figures: %s" % os.path.join(out, "results.json"))
PY
exit $status
