#!/usr/bin/env bash
# The sfilu apply and refactorization for each layout x levels of the sweeps, each run side by side
# with PETSc's ILU (so every line carries its own baseline). On the GPU host:
#   bench/gpu-run bash bench/run-layouts.sh [quick|warps]
# warps: the hyb/asap sweeps for several -pc_sfilu_warps_per_sm instead (SFPC_WARPS, SFPC_WARPS_CASES).
# Writes bench/results/layouts-<gpu>.json (copied to $OUT when set) and prints one line per run.
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/layouts-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/sfilu
printf '%-24s %-5s %-5s %10s %10s %8s %10s %8s\n' case layout levels "apply ms" "ILU ms" ratio "refact ms" ratio
run() { # case layout levels problem-args...
  local c=$1 lay=$2 lev=$3; shift 3
  $b -json "$out" -case "$c-$lay-$lev" -pc_sfilu_layout "$lay" -pc_sfilu_levels "$lev" "$@" |
    awk -v c="$c" -v l="$lay" -v v="$lev" '/petsc-ilu-cusparse/{ba=$4; br=$3} /sfpc-sfilu/{sa=$4; sr=$3}
      END {printf "%-24s %-5s %-5s %10.4f %10.4f %8.2f %10.3f %8.2f\n", c, l, v, sa, ba, ba/sa, sr, br/sr}'
}
if [ "${1:-}" = warps ]; then
  # SFPC_WARPS_CASES: "name|problem args" entries (default: 7-point Poisson at 128^3 and 256^3)
  IFS=';' read -r -a wcases <<< "${SFPC_WARPS_CASES:-poisson7-128|-problem poisson7 -n 128 -repeat 10;poisson7-256|-problem poisson7 -n 256 -repeat 5 -warmup 1}"
  for w in ${SFPC_WARPS:-4 8 12 16 24 32 48 64}; do
    for c in "${wcases[@]}"; do
      # shellcheck disable=SC2086
      run "${c%%|*}-w$w" hyb asap ${c#*|} -pc_sfilu_warps_per_sm $w
    done
  done
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/"
  exit 0
fi
cases=("poisson7-128|-problem poisson7 -n 128 -repeat 10"
       "poisson27-128|-problem poisson27 -n 128 -repeat 10"
       "poisson7-128-permuted|-problem poisson7 -n 128 -permute 1 -repeat 10"
       "convdiff-128-pe100|-problem convdiff -n 128 -peclet 100 -repeat 10")
[ "${1:-}" = quick ] && cases=("poisson7-64|-problem poisson7 -n 64 -repeat 10")
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  for lay in csr hyb; do for lev in asap alap; do
    # shellcheck disable=SC2086
    run "$name" $lay $lev $args
  done; done
done
if [ "${1:-}" != quick ]; then
  for lay in csr hyb; do for lev in asap alap; do run poisson7-256 $lay $lev -problem poisson7 -n 256 -repeat 5 -warmup 1; done; done
fi
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
