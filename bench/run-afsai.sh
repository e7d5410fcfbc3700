#!/usr/bin/env bash
# The PCAFSAI set-up benchmark, on the GPU host: [HOST128=0] bench/gpu-run bash bench/run-afsai.sh [quick]
# Writes one JSON record per case and metric to bench/results/afsai-<gpu>.json (copied to $OUT when
# set) and prints the side-by-side tables (GPU set-up against the host set-up by phase; PCG with afsai
# against PCG with Jacobi on the same GPU). Defaults of the PC: 10 steps of 1 entry, tol 1e-3 (the
# issue's hypre settings).
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/afsai-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/afsai
run() { echo "+ $b $*"; $b -json "$out" "$@"; }
run -case poisson7-64 -problem poisson7 -n 64
run -case poisson7-64-permuted -problem poisson7 -n 64 -permute 1
run -case poisson27-64 -problem poisson27 -n 64
run -case aniso-64 -problem anisotropic -n 64 -aniso 0.001
# HOST128=0: no host reference at 128^3 (it takes ~20 s; its last measurement is in bench/README.md)
[ "${1:-}" = quick ] || run -case poisson7-128 -problem poisson7 -n 128 $([ "${HOST128:-1}" = 0 ] && echo -host 0)
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
