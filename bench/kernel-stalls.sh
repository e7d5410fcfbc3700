#!/usr/bin/env bash
# Where one kernel's warps wait, instruction by instruction, from Nsight Compute's warp-state sampling (ncu on the GPU
# host, able to read counters; build with SFPC_EXTRA_CUFLAGS=-lineinfo to see source lines):
#   bench/gpu-run bash bench/kernel-stalls.sh KERNEL-REGEX CMD [ARGS...]
# Profiles the 4th launch of the kernel (the first ones warm up), prints its stall reasons and the instructions with
# the most samples (SASS with the CUDA line), and leaves the full per-instruction table in $OUT/stalls.csv if $OUT is set.
set -euo pipefail
kernel=$1; shift
tmp=$(mktemp -d)
ncu --kernel-name "regex:$kernel" --launch-skip "${KS_SKIP:-3}" --launch-count 1 --section WarpStateStats --section SourceCounters \
  --section SpeedOfLight --import-source yes -o "$tmp/rep" "$@" > "$tmp/run.log" 2>&1 || { tail -20 "$tmp/run.log"; exit 1; }
ncu -i "$tmp/rep.ncu-rep" --section WarpStateStats --section SpeedOfLight 2> /dev/null | grep -v '^ *-*$' | sed -n '1,60p'
ok=0
for p in "--print-source=cuda,sass" "--print-source=sass" "--print-source sass"; do
  if ncu -i "$tmp/rep.ncu-rep" --page source --csv $p > "$tmp/src.csv" 2> "$tmp/src.err" && [ -s "$tmp/src.csv" ]; then ok=1; break; fi
done
[ $ok = 1 ] || { cat "$tmp/src.err"; ncu --help | grep -A4 -e '--page' -e 'print-source'; exit 1; }
[ -n "${OUT:-}" ] && cp "$tmp/src.csv" "$OUT/stalls.csv"
python3 - "$tmp/src.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hi = next(i for i, r in enumerate(rows) if any("Sampling" in c for c in r))
head, body = rows[hi], rows[hi + 1:]
col = next(i for i, c in enumerate(head) if "Sampling (All" in c)
num = lambda s: float(s.replace(",", "")) if s.replace(",", "").replace(".", "").isdigit() else 0.0
body = [r for r in body if len(r) == len(head)]
total = sum(num(r[col]) for r in body) or 1
print(f"{len(body)} instructions, {total:.0f} samples; columns: {head}")
for r in sorted(body, key=lambda r: -num(r[col]))[:40]:
    extra = [f"{h}={r[i]}" for i, h in enumerate(head) if i != col and "stall" in h.lower() and num(r[i]) >= 0.05 * num(r[col]) > 0]
    print(f"{100 * num(r[col]) / total:5.1f}%  " + " | ".join(c for c in r[:3]) + ("  [" + ", ".join(extra) + "]" if extra else ""))
PY
rm -rf "$tmp"
