#!/usr/bin/env bash
# The sfilu benchmark suite, on the GPU host: bench/gpu-run bash bench/run-sfilu.sh [quick|grid|box|iluk|blocks|planes|ksp|eisenstat|icc|missed]
# (7-point and 27-point cases on an n^3 grid also run sfilu with the grid layout, -grid; grid: the 7-point
# applies alone; box: the 27-point ones in full, and at 128^3 the apply with 4 and 16 warps per SM (default 8);
# iluk: ILU(1) and ILU(2), which PETSc's aijcusparse factors on the host, against sfilu's on the GPU; blocks: matrices
# with several fields a point (2-D and 3-D, Q1 elasticity), ILU(0) by point-blocks (the default, the matrix's block size) beside row
# by row, -block_sizes 1; planes: the 7-point applies alone, cubes of SIZES (default 48 64 80 96 112 128), with 1, 2, 4 and 8 z-planes a block and
# chunks of 4 and 2, the measurement behind SFPCGridPlanes()'s default; ksp: the KSPSolve alone with the Krylov method a user
# would pick beside GMRES, CG on the symmetric stencils and BiCGStab on the nonsymmetric ones, whose operators cost less
# than GMRES's orthogonalization; eisenstat: the same solves with sfilu also in Eisenstat's form, -pc_sfilu_eisenstat, whose
# operator needs no MatMult(): CG on the symmetric 7-point grids, BiCGStab on a nonsymmetric one; icc: PCICC with CG, PETSc's
# cuSPARSE ICC(0) (and ICC(1), factored on the host) against the sfilu solver type's; missed: the cases of issue 3's missed targets,
# set-up, refactorization and apply of the 27-point grids and the permuted matrix, CG on the 27-point grids, GMRES on the 7-point 256^3 one)
# Writes one JSON record per case and metric to bench/results/sfilu-<gpu>.json (copied to $OUT
# when set) and prints the side-by-side tables.
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
out=bench/results/sfilu-$gpu.json
[ "${1:-}" = grid ] && out=bench/results/sfilu-grid-$gpu.json
[ "${1:-}" = iluk ] && out=bench/results/sfilu-iluk-$gpu.json
[ "${1:-}" = box ] && out=bench/results/sfilu-box-$gpu.json
[ "${1:-}" = blocks ] && out=bench/results/sfilu-blocks-$gpu.json
[ "${1:-}" = planes ] && out=bench/results/sfilu-planes-$gpu.json
[ "${1:-}" = ksp ] && out=bench/results/sfilu-ksp-$gpu.json
[ "${1:-}" = eisenstat ] && out=bench/results/sfilu-eisenstat-$gpu.json
[ "${1:-}" = icc ] && out=bench/results/sfilu-icc-$gpu.json
[ "${1:-}" = missed ] && out=bench/results/sfilu-missed-$gpu.json
mkdir -p bench/results; : > "$out"
b=build/bench/sfilu
run() { echo "+ $b $*"; $b -json "$out" "$@"; }
if [ "${1:-}" = grid ]; then
  run -case poisson7-128 -problem poisson7 -n 128 -repeat 10 -grid 128,128,128 -apply_only
  run -case convdiff-128-pe100 -problem convdiff -n 128 -peclet 100 -repeat 10 -grid 128,128,128 -apply_only
  run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1 -grid 256,256,256 -apply_only
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = planes ]; then
  for n in ${SIZES:-48 64 80 96 112 128}; do
    run -case poisson7-$n -problem poisson7 -n $n -repeat 20 -warmup 3 -grid $n,$n,$n -apply_only -grid_planes 1,2,4,8 -grid_chunks 4,2
  done
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = ksp ]; then
  s="-solve_only -repeat 12 -warmup 1"
  for n in 128 256; do
    g="-n $n -grid $n,$n,$n $s"
    for k in gmres cg bcgs; do run -case poisson7-$n -problem poisson7 $g -solve_ksp $k; done
    run -case poisson27-$n -problem poisson27 $g -solve_ksp cg
  done
  run -case aniso-128 -problem anisotropic -aniso 0.001 -n 128 -grid 128,128,128 $s -solve_ksp cg
  for pe in 0.1 100; do run -case convdiff-128-pe$pe -problem convdiff -peclet $pe -n 128 -grid 128,128,128 $s -solve_ksp bcgs; done
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = eisenstat ]; then
  s="-solve_only -repeat 12 -warmup 1 -eisenstat"
  for n in 128 256; do run -case poisson7-$n -problem poisson7 -n $n -grid $n,$n,$n $s -solve_ksp cg; done
  run -case aniso-128 -problem anisotropic -aniso 0.001 -n 128 -grid 128,128,128 $s -solve_ksp cg
  run -case convdiff-128-pe100 -problem convdiff -peclet 100 -n 128 -grid 128,128,128 $s -solve_ksp bcgs
  run -case poisson7-256 -problem poisson7 -n 256 -grid 256,256,256 $s -solve_ksp bcgs
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = missed ]; then
  s="-solve_only -repeat 12 -warmup 1"
  run -case poisson27-128 -problem poisson27 -n 128 -repeat 10 -grid 128,128,128 -solve 0
  run -case poisson7-128-permuted -problem poisson7 -n 128 -permute 1 -repeat 10 -solve 0
  run -case poisson27-128 -problem poisson27 -n 128 -grid 128,128,128 $s -solve_ksp cg
  run -case poisson27-256 -problem poisson27 -n 256 -repeat 5 -warmup 1 -grid 256,256,256 -solve 0
  run -case poisson27-256 -problem poisson27 -n 256 -grid 256,256,256 $s -solve_ksp cg
  run -case poisson7-256 -problem poisson7 -n 256 -grid 256,256,256 $s -solve_ksp gmres
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = icc ]; then
  s="-solve_ksp cg -icc"
  run -case poisson7-128 -problem poisson7 -n 128 -repeat 10 $s
  run -case aniso-128 -problem anisotropic -aniso 0.001 -n 128 -repeat 10 $s
  run -case poisson27-128 -problem poisson27 -n 128 -repeat 10 $s
  run -case poisson7-128-icc1 -problem poisson7 -n 128 -repeat 5 -warmup 1 -fill_levels 1 $s
  run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1 $s
  run -case elasticity-64 -problem elasticity -n 64 -repeat 5 -warmup 1 $s
  run -case jumps-128 -problem jumps -n 128 -repeat 5 -warmup 1 $s
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = blocks ]; then
  build/tests/petsc-tutorials/ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-cavity256.bin > /dev/null 2>&1
  run -case ex19-cavity-256 -problem file -f /tmp/sfpc-cavity256.bin -repeat 5 -warmup 1 -block_sizes 1
  for d in 2 3 4; do
    run -case fields-512x$d -problem fields -n 512 -dof $d -peclet 2 -repeat 10 -solve 0 -block_sizes 1
  done
  run -case fields3d-64x4 -problem fields -dim 3 -n 64 -dof 4 -peclet 2 -repeat 10 -block_sizes 1
  run -case fields3d-64x5 -problem fields -dim 3 -n 64 -dof 5 -peclet 2 -repeat 10 -block_sizes 1
  run -case elasticity-64 -problem elasticity -n 64 -repeat 10 -solve 0 -block_sizes 1
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = box ]; then
  run -case poisson27-128 -problem poisson27 -n 128 -repeat 10 -grid 128,128,128
  for w in 4 16; do
    run -case poisson27-128-w$w -problem poisson27 -n 128 -repeat 10 -grid 128,128,128 -apply_only -g_pc_sfilu_warps_per_sm $w
  done
  run -case poisson27-256 -problem poisson27 -n 256 -repeat 5 -warmup 1 -grid 256,256,256
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
if [ "${1:-}" = iluk ]; then
  r="-repeat 5 -warmup 1"
  run -case poisson7-128 -problem poisson7 -n 128 $r -fill_levels 1
  run -case poisson7-128 -problem poisson7 -n 128 $r -fill_levels 2
  run -case convdiff-128-pe100 -problem convdiff -n 128 -peclet 100 $r -fill_levels 1
  run -case poisson7-128-permuted -problem poisson7 -n 128 -permute 1 $r -fill_levels 1
  run -case poisson27-64 -problem poisson27 -n 64 $r -fill_levels 1
  build/tests/petsc-tutorials/ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-cavity256.bin > /dev/null 2>&1
  run -case ex19-cavity-256 -problem file -f /tmp/sfpc-cavity256.bin $r -fill_levels 1
  [ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
  exit 0
fi
run -case poisson7-128 -problem poisson7 -n 128 -repeat 10 -grid 128,128,128
run -case poisson27-128 -problem poisson27 -n 128 -repeat 10 -grid 128,128,128
run -case aniso-128 -problem anisotropic -n 128 -aniso 0.001 -repeat 10 -grid 128,128,128
run -case convdiff-128-pe0.1 -problem convdiff -n 128 -peclet 0.1 -repeat 10 -grid 128,128,128
run -case convdiff-128-pe100 -problem convdiff -n 128 -peclet 100 -repeat 10 -grid 128,128,128
run -case poisson7-128-permuted -problem poisson7 -n 128 -permute 1 -repeat 10
# the driven cavity of PETSc's SNES ex19 (4 fields, 256x256): its first Newton Jacobian
build/tests/petsc-tutorials/ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 1 -pc_type none -ksp_view_mat binary:/tmp/sfpc-cavity256.bin > /dev/null 2>&1
run -case ex19-cavity-256 -problem file -f /tmp/sfpc-cavity256.bin -repeat 10
if [ "${1:-}" != quick ]; then
  run -case poisson7-256 -problem poisson7 -n 256 -repeat 5 -warmup 1 -grid 256,256,256
  run -case poisson27-256 -problem poisson27 -n 256 -repeat 5 -warmup 1 -grid 256,256,256
fi
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
