#!/usr/bin/env bash
# The PCAFSAI set-up benchmark, on the GPU host: [HOST128=0] bench/gpu-run bash bench/run-afsai.sh [quick|spd|spd-settings]
# Writes one JSON record per case and metric to bench/results/afsai-<gpu>.json (spd:
# afsai-spd-<gpu>.json; copied to $OUT when set) and prints the side-by-side tables (GPU set-up against
# the host set-up by phase; PCG with afsai against PCG with Jacobi on the same GPU, and with spd against
# GAMG too). Defaults of the PC: 10 steps of 1 entry, tol 1e-3 (the issue's hypre settings).
# spd: the issue's SPD problems at about 10^6 rows (Poisson, anisotropic, coefficient jumps, Q1
# elasticity as PETSc's KSP ex56), PCG with afsai against Jacobi, GAMG (default smoothers) and GAMG with
# afsai smoothers, side by side; no host set-up (minutes at this size). GAMG's Galerkin products on the host.
# spd-gpu-products: spd's problems with GAMG's products on the GPU (PETSc's default, what an application gets), each
# GAMG in a process of its own with afsai and Jacobi beside it (a second GAMG set-up in one process can hang in
# cuSPARSE's SpGEMM, bench/README.md).
# elasticity-gamg: Q1 elasticity at 10^6 rows (69^3 nodes), GAMG with and without prolongator smoothing, Galerkin
# products on the host and on the GPU (smoothed with GPU products runs out of device memory on an H200), one
# process each, afsai and Jacobi beside each.
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/afsai-$gpu.json
[ "${1:-}" = spd ] && out=bench/results/afsai-spd-$gpu.json
[ "${1:-}" = spd-settings ] && out=bench/results/afsai-spd-settings-$gpu.json
[ "${1:-}" = spd-gpu-products ] && out=bench/results/afsai-spd-gpu-products-$gpu.json
[ "${1:-}" = elasticity-gamg ] && out=bench/results/afsai-elasticity-gamg-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/afsai
run() { echo "+ $b $*"; timeout ${RUN_LIMIT:-600} $b -json "$out" "$@"; [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true; } # copied after each case: a run cut short keeps what it measured
if [ "${1:-}" = spd ]; then
  run -case poisson7-100 -problem poisson7 -n 100 -host 0 -gamg
  run -case aniso-100 -problem anisotropic -n 100 -aniso 0.001 -host 0 -gamg
  run -case jumps-100 -problem jumps -n 100 -jump 1e4 -jump_cubes 10 -host 0 -gamg
  run -case elasticity-69 -problem elasticity -n 69 -host 0 -gamg
  # a wider search on elasticity's 81-entry rows (G stays sparser than A): fewer iterations for each step
  run -case elasticity-69-step3 -problem elasticity -n 69 -host 0 -pc_afsai_step_size 3
  exit 0
fi
if [ "${1:-}" = spd-gpu-products ]; then
  for pr in "poisson7-100 -problem poisson7 -n 100" "aniso-100 -problem anisotropic -n 100 -aniso 0.001" \
            "jumps-100 -problem jumps -n 100 -jump 1e4 -jump_cubes 10" "elasticity-69 -problem elasticity -n 69"; do
    for g in gamg gamg-afsai; do run -case ${pr%% *}-gpu-products ${pr#* } -host 0 -gamg -gamg_gpu_products -gamg_solver $g || echo "  failed or timed out"; done
  done
  exit 0
fi
if [ "${1:-}" = elasticity-gamg ]; then
  for sm in 1 0; do for g in "" -gamg_gpu_products; do
    run -case elasticity-69-nsmooths$sm${g:+-gpu-products} -problem elasticity -n 69 -host 0 -gamg -gamg_solver gamg $g -gamg_pc_gamg_agg_nsmooths $sm || echo "  failed"
  done; done
  exit 0
fi
# spd-settings: can other search settings, or harder variants of the problems, make afsai pay? (no GAMG)
if [ "${1:-}" = spd-settings ]; then
  run -case poisson7-100-steps5 -problem poisson7 -n 100 -host 0 -pc_afsai_steps 5
  run -case poisson7-100-filter0.05 -problem poisson7 -n 100 -host 0 -pc_afsai_filter 0.05
  run -case jumps-100-steps5 -problem jumps -n 100 -jump 1e4 -jump_cubes 10 -host 0 -pc_afsai_steps 5
  run -case jumps-100-jump1e6 -problem jumps -n 100 -jump 1e6 -jump_cubes 10 -host 0
  run -case elasticity-69-nu0.45 -problem elasticity -n 69 -poisson_ratio 0.45 -host 0
  run -case elasticity-69-steps5 -problem elasticity -n 69 -host 0 -pc_afsai_steps 5
  exit 0
fi
run -case poisson7-64 -problem poisson7 -n 64
run -case poisson7-64-permuted -problem poisson7 -n 64 -permute 1
run -case poisson27-64 -problem poisson27 -n 64
run -case aniso-64 -problem anisotropic -n 64 -aniso 0.001
# HOST128=0: no host reference at 128^3 (it takes ~20 s; its last measurement is in bench/README.md)
[ "${1:-}" = quick ] || run -case poisson7-128 -problem poisson7 -n 128 $([ "${HOST128:-1}" = 0 ] && echo -host 0)
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
