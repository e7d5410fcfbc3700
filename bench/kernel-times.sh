#!/usr/bin/env bash
# Per-kernel device time of one program run, from Nsight Compute (ncu must be on the GPU host and
# able to read counters: the Firecracker H100 and H200 hosts can, gVisor ones cannot):
#   bench/gpu-run bash bench/kernel-times.sh CMD [ARGS...]
# Each kernel is timed alone (ncu serializes launches), so the sum is not the program's wall time:
# it shows where the device time of a phase goes (e.g. MATHYBSF's analysis), not how phases overlap.
# Prints one line per kernel name: launches, total and mean microseconds, largest first; with
# KT_LIST=N first the first N launches in order, one line each.
set -euo pipefail
csv=$(mktemp)
ncu --clock-control none --csv --print-units base --print-kernel-base function --metrics gpu__time_duration.sum "$@" > "$csv" 2> /dev/null || true
python3 - "$csv" <<'PY'
import csv, sys, os, collections
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
tot, cnt = collections.Counter(), collections.Counter()
list_n, listed = int(os.environ.get("KT_LIST", "0")), 0
for r in csv.DictReader(rows):
    if r.get("Metric Name") != "gpu__time_duration.sum": continue
    name = r["Kernel Name"][:70]
    us = float(r["Metric Value"].replace(",", "")) / 1e3
    if listed < list_n:
        print(f"{listed:5d} {name:70s} {us:10.1f}")
        listed += 1
    tot[name] += us
    cnt[name] += 1
print(f"{'kernel':70s} {'calls':>6s} {'total us':>10s} {'mean us':>9s}")
for k, v in tot.most_common():
    print(f"{k:70s} {cnt[k]:6d} {v:10.1f} {v / cnt[k]:9.1f}")
print(f"{'all':70s} {sum(cnt.values()):6d} {sum(tot.values()):10.1f}")
PY
rm -f "$csv"
