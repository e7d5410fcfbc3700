#!/usr/bin/env bash
# The MPI scaling benchmark (bench/scaling.c) on a GPU host with 4 GPUs, one rank per GPU:
#   bench/gpu-run bash bench/run-scaling.sh [weak|eisenstat|eisenstat-solve|global|global-large|strong|convdiff|strongcd (each also NAME-boxes)|gamg|gamg-strong|gamg-convdiff|gamg-strongcd|gamg-small|gamg-levels|gamg-2m|gamg-4m|gamg-threshold|gamg-grid|gamg-sor|gamg-sor-gpu|gamg-products|gamg-timeloop|gamg-unsmoothed|gamg-richtest]...
# weak:     3-D Poisson, about 2*10^7 rows per GPU (271^3, 342^3, 431^3 on 1, 2, 4 GPUs): PETSc's
#           block-Jacobi ILU(0) and every SFPC block-Jacobi PC (sfilu, SIP, sfdilu, afsai).
# global:   the same at about 5*10^6 rows per GPU (171^3, 215^3, 271^3), with the two global modes
#           (-pc_sfdilu_parallel, -pc_afsai_gather 4) too; GLOBAL_CONFIGS=... runs only those configurations.
# strong:   271^3 on 2 and 4 GPUs (the 1-GPU run is weak's).
# eisenstat: weak's problems under CG: PETSc's block-Jacobi ILU(0), sfilu and sfdilu, each with and without Eisenstat's
#           form (no MatMult() in CG's operator; the couplings between ranks multiplied inside it), records in the series weak.
# eisenstat-solve: the same five on one GPU at 271^3, CG to rtol 1e-8 (median of 3 solves): time to solution.
# global-large: the global DILU (-pc_sfdilu_parallel) at weak's sizes (about 2*10^7 rows per GPU).
# weak-boxes: weak with each rank owning the box a 3-D DMDA gives it (-boxes; 1 x 2 x 2 on 4 ranks, z-slabs on 2), as a
#           DMDA application's matrix is split: half the halo of z-slabs' middle ranks on 4 GPUs. So do
#           global-boxes, global-large-boxes, convdiff-boxes (records in the series weak5m-boxes, weak-boxes, weak-boxes)
#           and strong-boxes, strongcd-boxes (strong-boxes).
# convdiff: weak for upwinded convection-diffusion (Pe 5), aFSAI (SPD only) left out; strongcd: strong for it (records in
#           the series strong; the 1-GPU run is convdiff's).
# gamg:     GAMG with its default smoothers, sfdilu and afsai smoothers, about 2.5*10^6 rows per GPU; GAMG's
#           Galerkin products run on the host (bench/README.md). gamg-strong: the same at 215^3 (9.9*10^6 rows) on 1, 2
#           and 4 GPUs (records in the series strong). gamg-convdiff, gamg-strongcd: gamg and gamg-strong for the
#           upwinded convection-diffusion problem (Pe 5), without aFSAI (SPD only). GAMG's set-up at 215^3 on one GPU
#           takes about a minute a configuration: give these RUN_LIMIT=400. gamg-small: the same at about 10^6 (100^3,
#           126^3, 159^3). gamg-levels: one GPU, 10^6 rows (100^3), Poisson, anisotropic (1e-3) and
#           convection-diffusion (Pe 20): GAMG's defaults against sfdilu smoothers as auto colors them (greedy on
#           the small levels, JPL on the others), with JPL on every level (the earlier default), with greedy on
#           every level, with one step before and after, and on the finer levels only (sfdilu on levels 3 and
#           up, or on the finest level only, GAMG's defaults below). Medians of 5 solves. gamg-2m: one GPU,
#           2*10^6 rows (126^3), anisotropic and convection-diffusion, GAMG's defaults, sfdilu on every level and
#           on the finest level only. gamg-4m: the anisotropic one at 4.1*10^6 rows (160^3), where the
#           finest level's sfdilu takes the local row order, GAMG's defaults against sfdilu on the finest level.
#           gamg-grid: the anisotropic problem at 2*10^6 and 4.1*10^6 rows, GAMG's defaults against the
#           finest level's sfdilu with the JPL and with the grid coloring.
#           gamg-threshold: the anisotropic problem at 10^6 and 2*10^6 rows with GAMG's aggregation threshold
#           at 0.01 (weak z couplings dropped: aggregates in x-y planes) for both, defaults against the finest
#           level's sfdilu (RUN_LIMIT=300: GAMG's set-up takes longer with the threshold).
# gamg-sor: one GPU, 10^6 rows (100^3), anisotropic (1e-3), convection-diffusion (Pe 20) and Poisson: GAMG's defaults,
#           sfdilu Richardson smoothers on every level and on the finest level only, sfdilu Chebyshev smoothers on every
#           level (GPU), then GAMG with PETSc's SOR Richardson
#           smoothers on the host (-host, its own process: PETSc's SOR has no GPU kernel).
# gamg-sor-gpu: gamg-sor's GPU configurations with GAMG's Galerkin products on the GPU (-gamg_gpu_products, PETSc's
#           default; every other gamg series forms them on the host), each GAMG in a process of its own (a second GAMG
#           set-up in one process can hang in cuSPARSE's SpGEMM, bench/README.md), and the host SOR run on one rank and
#           on HOST_RANKS ranks (default: every core of the host; PETSc's SOR is then local to each rank's rows).
# gamg-products: GAMG's set-up with its Galerkin products on the host against on the GPU (-gamg_gpu_products), side by
#           side in one call, GAMG's defaults and sfdilu Richardson smoothers, the gamg-sor problems, one process each.
# gamg-timeloop: gamg-sor-gpu's configurations (without the 1-rank host run) with -resetup: each also times the
#           re-set-up after new values of the same pattern, what every step of a time loop pays (GAMG reuses its
#           interpolation by default, so no second symbolic GPU product: the hang does not arise).
# gamg-unsmoothed: GAMG's defaults and sfdilu smoothers without prolongator smoothing (-pc_gamg_agg_nsmooths 0), GPU
#           products, the gamg-sor problems.
# gamg-richtest: the gamg-sor problems, GPU products, one process a configuration, medians of 5 solves: GAMG's defaults,
#           sfdilu Richardson smoothers as they run by default (their steps, no norm: on one GPU three kernels a step),
#           the same testing the KSP's tolerances at each step (-mg_levels_pc_sfdilu_richardson_test, what every GAMG run
#           before 2026-11-29 did), and sfdilu on the finest level.
# All but gamg run a fixed 100 iterations (-rtol 1e-12 -max_it 100): time per iteration is the weak-scaling
# metric. Each run has a 150 s limit (RUN_LIMIT); one silent for 100 s (QUIET) prints its processes' stacks
# and is ended (bench/stacks-if-stuck.sh). Records go to bench/results/scaling-<gpu>.json (and $OUT); a table at
# the end (bench/scaling-summary.py); RESULTS=<file> writes them elsewhere; RANKS="1 2" runs only those rank counts. On an H200 x4, weak took 250 s and
# global 160 s. On fewer GPUs the runs with more ranks than GPUs are skipped.
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
out=${RESULTS:-bench/results/scaling-$gpu.json}
mkdir -p bench/results
run() { # ranks, then the benchmark's options
  local p=$1; shift
  [[ " $* " == *" -host "* ]] || [ "$p" -le "$ngpu" ] || { echo "skipped: $p ranks on $ngpu GPUs"; return; }
  [[ " ${RANKS:-$p} " == *" $p "* ]] || { echo "skipped: $p ranks (RANKS=$RANKS)"; return; }
  echo "+ mpiexec -n $p build/bench/scaling $*"; local t0=$SECONDS
  timeout ${RUN_LIMIT:-150} bash bench/stacks-if-stuck.sh -q ${QUIET:-100} mpiexec -n "$p" build/bench/scaling -json "$out" -repeat 1 "$@" || echo "  failed or timed out"
  echo "  ($((SECONDS - t0)) s)"
}
fixed="-rtol 1e-12 -max_it 100"
gamg_problems=("anisotropic -aniso 1e-3" "convdiff -peclet 20" "poisson7") # the gamg-sor family's three problems at 10^6 rows
block=bjacobi-ilu,sfilu,sip,sfdilu
for series in "${@:-weak}"; do
  split=; [[ $series == *-boxes ]] && split=-boxes
  case ${series%-boxes} in
  weak) for pn in 1:271 2:342 4:431; do run ${pn%:*} -series $series -problem poisson7 -n ${pn#*:} $split $fixed -configs $block,afsai; done ;;
  global) for pn in 1:171 2:215 4:271; do run ${pn%:*} -series ${series/global/weak5m} -problem poisson7 -n ${pn#*:} $split $fixed -configs ${GLOBAL_CONFIGS:-$block,afsai,sfdilu-global,afsai-gather}; done ;;
  global-large) for pn in 1:271 2:342 4:431; do run ${pn%:*} -series ${series/global-large/weak} -problem poisson7 -n ${pn#*:} $split $fixed -configs sfdilu-global; done ;;
  eisenstat-solve) run 1 -series eisenstat-solve -problem poisson7 -n 271 $split -rtol 1e-8 -max_it 3000 -repeat 3 -configs bjacobi-ilu-cg,sfilu-cg,sfilu-cg-eisenstat,sfdilu-cg,sfdilu-cg-eisenstat ;;
  eisenstat) for pn in 1:271 2:342 4:431; do run ${pn%:*} -series ${series/eisenstat/weak} -problem poisson7 -n ${pn#*:} $split $fixed -configs bjacobi-ilu-cg,sfilu-cg,sfilu-cg-eisenstat,sfdilu-cg,sfdilu-cg-eisenstat; done ;;
  strong) for p in 2 4; do run $p -series $series -problem poisson7 -n 271 $split $fixed -configs $block,afsai; done ;;
  strongcd) for p in 2 4; do run $p -series ${series/strongcd/strong} -problem convdiff -peclet 5 -n 271 $split $fixed -configs $block; done ;;
  convdiff) for pn in 1:271 2:342 4:431; do run ${pn%:*} -series ${series/convdiff/weak} -problem convdiff -peclet 5 -n ${pn#*:} $split $fixed -configs $block; done ;;
  gamg-small) for pn in 1:100 2:126 4:159; do run ${pn%:*} -series weak1m -problem poisson7 -n ${pn#*:} -rtol 1e-8 -configs gamg,gamg-sfdilu,gamg-afsai; done ;;
  gamg-levels) for pr in "poisson7" "anisotropic -aniso 1e-3" "convdiff -peclet 20"; do run 1 -series gamg-levels -problem $pr -n 100 -rtol 1e-8 -repeat 5 -configs gamg,gamg-sfdilu,gamg-sfdilu-jpl,gamg-sfdilu-greedy,gamg-sfdilu-1,gamg-sfdilu-fine,gamg-sfdilu-top,gamg-sfdilu-top2; done ;;
  gamg-2m) for pr in "anisotropic -aniso 1e-3" "convdiff -peclet 20"; do run 1 -series gamg-2m -problem $pr -n 126 -rtol 1e-8 -repeat 5 -configs gamg,gamg-sfdilu,gamg-sfdilu-top; done ;;
  gamg-threshold) th="-gamg_pc_gamg_threshold 0.01 -gamg-sfdilu-top_pc_gamg_threshold 0.01"
    for n in 100 126; do run 1 -series gamg-threshold -problem anisotropic -aniso 1e-3 -n $n -rtol 1e-8 -repeat 5 -configs gamg,gamg-sfdilu-top $th; done ;;
  gamg-grid) for n in 126 160; do run 1 -series gamg-grid -problem anisotropic -aniso 1e-3 -n $n -rtol 1e-8 -repeat 5 -configs gamg,gamg-sfdilu-top,gamg-sfdilu-top-grid; done ;;
  gamg-sor) for pr in "${gamg_problems[@]}"; do
      run 1 -series gamg-sor -problem $pr -n 100 -rtol 1e-8 -repeat 3 -configs gamg,gamg-sfdilu,gamg-sfdilu-top,gamg-sfdilu-cheby
      run 1 -series gamg-sor -problem $pr -n 100 -rtol 1e-8 -repeat 1 -host -configs gamg-sor; done ;;
  gamg-sor-gpu) for pr in "${gamg_problems[@]}"; do
      for c in gamg gamg-sfdilu gamg-sfdilu-top; do run 1 -series $series -problem $pr -n 100 -rtol 1e-8 -repeat 3 -gamg_gpu_products -configs $c; done
      for p in 1 ${HOST_RANKS:-$(nproc)}; do run $p -series $series -problem $pr -n 100 -rtol 1e-8 -repeat 1 -host -configs gamg-sor; done; done ;;
  gamg-richtest) for pr in "${gamg_problems[@]}"; do # the smoothers' Richardson steps untested (the default) against tested
      for c in gamg gamg-sfdilu gamg-sfdilu-tested gamg-sfdilu-top; do run 1 -series $series -problem $pr -n 100 -rtol 1e-8 -repeat 5 -gamg_gpu_products -configs $c; done; done ;;
  gamg-products) for pr in "${gamg_problems[@]}"; do
      for c in gamg gamg-sfdilu; do for g in "" -gamg_gpu_products; do
        run 1 -series $series${g:+-gpu} -problem $pr -n 100 -rtol 1e-8 -repeat 3 $g -configs $c; done; done; done ;;
  gamg-timeloop) for pr in "${gamg_problems[@]}"; do
      for c in gamg gamg-sfdilu gamg-sfdilu-top; do run 1 -series $series -problem $pr -n 100 -rtol 1e-8 -repeat 3 -resetup -gamg_gpu_products -configs $c; done
      run ${HOST_RANKS:-$(nproc)} -series $series -problem $pr -n 100 -rtol 1e-8 -repeat 3 -resetup -host -configs gamg-sor; done ;;
  gamg-unsmoothed) for pr in "${gamg_problems[@]}"; do
      for c in gamg gamg-sfdilu; do run 1 -series $series -problem $pr -n 100 -rtol 1e-8 -repeat 3 -gamg_gpu_products -configs $c -${c}_pc_gamg_agg_nsmooths 0; done; done ;;
  gamg-4m) run 1 -series gamg-4m -problem anisotropic -aniso 1e-3 -n 160 -rtol 1e-8 -repeat 5 -configs gamg,gamg-sfdilu-top ;;
  gamg-strong) for p in 1 2 4; do run $p -series strong -problem poisson7 -n 215 -rtol 1e-8 -configs gamg,gamg-sfdilu,gamg-afsai; done ;;
  gamg) for pn in 1:136 2:171 4:215; do run ${pn%:*} -series weak -problem poisson7 -n ${pn#*:} -rtol 1e-8 -configs gamg,gamg-sfdilu,gamg-afsai; done ;;
  gamg-convdiff) for pn in 1:136 2:171 4:215; do run ${pn%:*} -series weak -problem convdiff -peclet 5 -n ${pn#*:} -rtol 1e-8 -configs gamg,gamg-sfdilu; done ;;
  gamg-strongcd) for p in 1 2 4; do run $p -series strong -problem convdiff -peclet 5 -n 215 -rtol 1e-8 -configs gamg,gamg-sfdilu; done ;;
  *) echo "unknown series $series"; exit 1 ;;
  esac
done
python3 bench/scaling-summary.py "$out"
[ -n "${OUT:-}" ] && cp "$out" "$OUT/" || true
