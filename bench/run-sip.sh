#!/usr/bin/env bash
# The SIP benchmark suite, on the GPU host: bench/gpu-run bash bench/run-sip.sh [quick|factor|grid|fused|cubes]
# (grid: the iteration's stages and the whole iteration only, hyb and grid layouts side by side, -stages_only;
# fused: the same cases into bench/results/sip-fused-<gpu>.json, for the iteration with the residual fused into the sweep)
# Writes JSON records to bench/results/sip-<gpu>.json (copied to $OUT when set) and prints the tables.
# Cases: 3-D Poisson and the lid-driven-cavity-like upwinded convection-diffusion (tests/problems.c
# "cavity", cell Peclet number 5 at the fastest point) at 64^3, 128^3 (and 256^3 unless quick).
# factor: only the factorizations (refactorization and kernels alone, sync-free against level-synchronous)
# of Poisson at 64^3, 128^3, 256^3 and the cavity at 256^3, into bench/results/sip-factor-<gpu>.json.
# cubes: the demo (build/bin/ex1), SIP under KSPRICHARDSON for 300 steps, the residual fused off and on, on the cubes
# around the default's threshold (128^3, 144^3, 160^3), with KSPRICHARDSON's default test and with none, two runs each:
# solve seconds into bench/results/sip-fused-cubes-<gpu>.txt.
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/sip-$gpu.json
[ "${1:-}" = grid ] && out=bench/results/sip-grid-$gpu.json
[ "${1:-}" = fused ] && out=bench/results/sip-fused-$gpu.json
[ "${1:-}" = factor ] && out=bench/results/sip-factor-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/sip
run() { echo "+ $b $*"; $b -json "$out" "$@"; }
if [ "${1:-}" = grid ] || [ "${1:-}" = fused ]; then
  for n in 64 128; do run -case poisson7-$n -problem poisson7 -n $n -repeat 10 -stages_only; done
  run -case cavity-128-pe5 -problem cavity -peclet 5 -n 128 -repeat 10 -stages_only
  run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1 -stages_only
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = cubes ]; then
  out=bench/results/sip-fused-cubes-$gpu.txt; : > "$out"
  for n in 128 144 160; do for test in default none; do
    topt=; [ $test = none ] && topt="-ksp_norm_type none -ksp_atol 0 -ksp_rtol 0"
    for _ in 1 2; do for fused in false true; do
      # shellcheck disable=SC2086
      t=$(build/bin/ex1 -mat_type aijcusparse -n $n -ksp_type richardson -ksp_max_it 300 -ksp_rtol 1e-30 $topt -pc_sfilu_factorization sip -pc_sfilu_richardson_fused $fused | grep -o 'solve [0-9.]* s')
      echo "$n^3 test=$test fused=$fused $t" | tee -a "$out"
    done; done
  done; done
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = factor ]; then
  for n in 64 128; do run -factor_only -case poisson7-$n -problem poisson7 -n $n -repeat 10 -warmup 2; done
  run -factor_only -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 2
  run -factor_only -case cavity-256-pe5 -problem cavity -peclet 5 -n 256 -repeat 5 -warmup 2
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
for n in 64 128; do
  run -case poisson7-$n -problem poisson7 -n $n -repeat 10
  run -case cavity-$n-pe5 -problem cavity -peclet 5 -n $n -repeat 10
done
if [ "${1:-}" != quick ]; then
  run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1 -setups 1 -solves 1 -sip_maxit 1000
  run -case cavity-256-pe5 -problem cavity -peclet 5 -n 256 -repeat 5 -warmup 1 -setups 1 -solves 1 -sip_maxit 1000
fi
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
