#!/usr/bin/env bash
# The triangular-solve benchmark suite (MATHYBSF against cuSPARSE SpSV), on the GPU host:
#   bench/gpu-run bash bench/run-trisolve.sh [quick]
# 40 matrices of 10^4 to 10^7 rows plus three small SuiteSparse ones (marked by their row count in
# the records); 'quick' runs 5 small cases. Writes one JSON record per case, triangle and method to
# bench/results/trisolve-<gpu>.json (copied to $OUT when set), prints the per-case tables and then
# the suite summary of bench/trisolve-summary.py. Budget: about 6 minutes on one H200, so bigger
# matrices get fewer repeats (host assembly of 10^7 rows alone takes seconds). A failing case (a
# wrong solve is an error) is reported and the suite goes on; the exit status says whether any failed.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/trisolve-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/trisolve
# repeats by size: solves (events) are cheap, analyses (10^7 rows: tens of ms each, 6 methods x 2
# triangles x (awarmup + arepeat) per case) less so. Every analysis gets a warm-up: the first one in
# a process also pays for loading the kernels (CUDA loads modules lazily), which cuSPARSE's and
# ours both showed as 10-60x outliers when the large tier had none.
S="-warmup 3 -repeat 20 -awarmup 1 -arepeat 3"   # up to ~3e5 rows
M="-warmup 2 -repeat 10 -awarmup 1 -arepeat 2"   # 5e5 to 2e6 rows
L="-warmup 1 -repeat 5 -awarmup 1 -arepeat 1"    # 4e6 rows and more, or 5e7 nonzeros and more
failed=()
run() {
  local name=$1; shift
  local t0=$SECONDS
  echo "+ $b -case $name $*"
  $b -json "$out" -case "$name" "$@" || failed+=("$name")
  echo "  ($((SECONDS - t0)) s)"
}
# the driven cavity of PETSc's SNES ex19 (4 fields): its first Newton Jacobian, saved in PETSc binary
cavity() {
  build/tests/petsc-tutorials/ex19 -da_grid_x "$1" -da_grid_y "$1" -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-trisolve-cavity$1.bin > /dev/null 2>&1
}
p7="-problem poisson7" p27="-problem poisson27" an="-problem anisotropic -aniso 0.001"
cd1="-problem convdiff -peclet 0.1" cd100="-problem convdiff -peclet 100"

if [ "${1:-}" = quick ]; then
  run poisson7-32 $p7 -n 32 $S
  run poisson27-32 $p27 -n 32 $S
  run convdiff-32-pe100 $cd100 -n 32 $S
  run poisson7-46-permuted $p7 -n 46 -permute 1 $S
  run bcsstk16 -problem file -f tests/data/bcsstk16.mtx.gz $S
else
  # small: 1e4 to 3e5 rows, and the SuiteSparse matrices below 1e4
  run poisson7-22 $p7 -n 22 $S
  run poisson7-32 $p7 -n 32 $S
  run poisson7-46 $p7 -n 46 $S
  run poisson7-64 $p7 -n 64 $S
  run aniso-32 $an -n 32 $S
  run aniso-64 $an -n 64 $S
  run convdiff-22-pe0.1 $cd1 -n 22 $S
  run convdiff-46-pe0.1 $cd1 -n 46 $S
  run convdiff-64-pe0.1 $cd1 -n 64 $S
  run convdiff-32-pe100 $cd100 -n 32 $S
  run convdiff-64-pe100 $cd100 -n 64 $S
  run poisson27-22 $p27 -n 22 $S
  run poisson27-32 $p27 -n 32 $S
  run poisson27-46 $p27 -n 46 $S
  run poisson27-64 $p27 -n 64 $S
  run poisson7-46-permuted $p7 -n 46 -permute 1 $S
  run poisson27-64-permuted $p27 -n 64 -permute 1 $S
  cavity 256 && run ex19-cavity-256 -problem file -f /tmp/sfpc-trisolve-cavity256.bin $S || failed+=(ex19-cavity-256)
  run bcsstk16 -problem file -f tests/data/bcsstk16.mtx.gz $S
  run bcsstk26 -problem file -f tests/data/bcsstk26.mtx.gz $S
  run bcsstk28 -problem file -f tests/data/bcsstk28.mtx.gz $S
  # medium: 5e5 to 2e6 rows
  run poisson7-80 $p7 -n 80 $M
  run poisson7-100 $p7 -n 100 $M
  run poisson7-128 $p7 -n 128 $M
  run aniso-100 $an -n 100 $M
  run aniso-128 $an -n 128 $M
  run convdiff-128-pe0.1 $cd1 -n 128 $M
  run convdiff-100-pe100 $cd100 -n 100 $M
  run convdiff-128-pe100 $cd100 -n 128 $M
  run poisson27-80 $p27 -n 80 $M
  run poisson27-100 $p27 -n 100 $M
  run poisson27-128 $p27 -n 128 $L   # 5.6e7 nonzeros
  run poisson7-128-permuted $p7 -n 128 -permute 1 $M
  run aniso-100-permuted $an -n 100 -permute 1 $M
  run convdiff-128-pe100-permuted $cd100 -n 128 -permute 1 $M
  run poisson27-100-permuted $p27 -n 100 -permute 1 $M
  cavity 512 && run ex19-cavity-512 -problem file -f /tmp/sfpc-trisolve-cavity512.bin $M || failed+=(ex19-cavity-512)
  # large: 4e6 to 1e7 rows (27-point kept at 160^3: 1.1e8 nonzeros)
  run poisson7-160 $p7 -n 160 $L
  run convdiff-160-pe0.1 $cd1 -n 160 $L
  run poisson27-160 $p27 -n 160 $L
  run aniso-200 $an -n 200 $L
  run convdiff-200-pe100 $cd100 -n 200 $L
  run poisson7-215 $p7 -n 215 $L
  rm -f /tmp/sfpc-trisolve-cavity256.bin* /tmp/sfpc-trisolve-cavity512.bin*
fi
echo "suite: ${SECONDS} s"
[ -n "${OUT:-}" ] && cp "$out" "$OUT/"
command -v python3 > /dev/null && python3 bench/trisolve-summary.py "$out"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
