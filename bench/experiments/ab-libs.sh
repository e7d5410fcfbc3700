#!/usr/bin/env bash
# Two builds of libsfpc.so side by side in one device call: the pack's (A) and another (B, built from another commit or
# with other -D flags: touch the .cu file, make lib SFPC_EXTRA_CUFLAGS=..., copy lib/libsfpc.so aside, carry it). Each
# case runs ROUNDS times (default 2) in A, B order, each in its own process (bench/dilu, -parts), and the table gives
# the median apply of each variant per build, ms:
#   bench/gpu-run bash bench/experiments/ab-libs.sh B.so 'name:-problem poisson7 -n 128 -repeat 10' ...
set -eu
. "$(dirname "$0")/ab-swap.sh"
ab_begin "$1"; shift
rounds=${ROUNDS:-2} log=$(mktemp)
for c in "$@"; do
  for r in $(seq "$rounds"); do
    for v in A B; do
      ab_use $v
      build/bench/dilu ${c#*:} -parts | grep -E '^  (syncfree|percolor|parts) ' | awk -v c="${c%%:*}" -v v=$v '{print c, v, $1, $2}' >> "$log"
    done
  done
done
ab_use A
python3 - "$log" <<'PY'
import sys, collections, statistics
t = collections.defaultdict(list)
for l in open(sys.argv[1]):
    c, v, k, ms = l.split()
    t[(c, k, v)].append(float(ms))
cases = list(dict.fromkeys(c for c, _, _ in t))
print(f"{'case':24s}{'variant':>10s}{'A ms':>10s}{'B ms':>10s}{'B/A':>7s}   (all A | all B)")
for c in cases:
    for k in ("percolor", "syncfree", "parts"):
        a, b = t.get((c, k, "A")), t.get((c, k, "B"))
        if not a or not b: continue
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{c:24s}{k:>10s}{ma:10.4f}{mb:10.4f}{mb / ma:7.3f}   ({' '.join(f'{x:.4f}' for x in a)} | {' '.join(f'{x:.4f}' for x in b)})")
PY
