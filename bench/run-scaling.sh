#!/usr/bin/env bash
# The MPI scaling benchmark (bench/scaling.c), on a GPU host with 4 GPUs, one rank per GPU:
#   bench/gpu-run bash bench/run-scaling.sh [weak|convdiff|gamg|all]
# weak:     3-D Poisson, about 2*10^7 rows per GPU (271^3, 342^3, 431^3 on 1, 2, 4 GPUs), every
#           block-Jacobi PC, the global DILU and the gathered aFSAI, against PETSc's block-Jacobi ILU;
#           plus strong scaling of 271^3 on 2 and 4 GPUs.
# convdiff: the same weak series for upwinded convection-diffusion (Pe 5; the SPD-only aFSAI left out).
# gamg:     GAMG with its default smoothers, sfdilu and afsai smoothers, weak at about 2.5*10^6 rows per
#           GPU (136^3, 171^3, 215^3): GAMG's set-up runs its Galerkin products on the host (bench/README.md).
# Every run does a fixed number of iterations (-rtol 1e-12 -max_it 100: time per iteration, the
# weak-scaling metric), except gamg (to 1e-8). Records go to bench/results/scaling-<gpu>.json (and $OUT).
set -eu
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
out=bench/results/scaling-$gpu.json
mkdir -p bench/results
b=build/bench/scaling
run() { # ranks, then the benchmark's options
  local p=$1; shift
  [ "$p" -le "$ngpu" ] || { echo "skipped: $p ranks on $ngpu GPUs"; return; }
  echo "+ mpiexec -n $p $b $*"; local t0=$SECONDS
  mpiexec -n "$p" $b -json "$out" -repeat 1 "$@"
  echo "  ($((SECONDS - t0)) s)"
}
fixed="-rtol 1e-12 -max_it 100"
block=bjacobi-ilu,sfilu,sip,sfdilu,sfdilu-global
case ${1:-all} in
weak | all)
  for pn in 1:271 2:342 4:431; do run ${pn%:*} -series weak -problem poisson7 -n ${pn#*:} $fixed -configs $block,afsai,afsai-gather; done
  for p in 2 4; do run $p -series strong -problem poisson7 -n 271 $fixed -configs $block,afsai,afsai-gather; done ;;&
convdiff | all)
  for pn in 1:271 2:342 4:431; do run ${pn%:*} -series weak -problem convdiff -peclet 5 -n ${pn#*:} $fixed -configs $block; done ;;&
gamg | all)
  for pn in 1:136 2:171 4:215; do run ${pn%:*} -series weak -problem poisson7 -n ${pn#*:} -rtol 1e-8 -configs gamg,gamg-sfdilu,gamg-afsai; done ;;
esac
python3 bench/scaling-summary.py "$out"
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
