#!/usr/bin/env bash
# Two builds of libsfpc.so side by side inside GAMG, in one device call: the pack's (A) and another (B, as for
# ab-libs.sh). GMRES with GAMG and sfdilu Richardson smoothers to 1e-8 on the gamg-sor problems at 10^6 rows, A and B
# alternated ROUNDS times (default 2), each in its own process (bench/scaling, set-up, solve and re-set-up); then the
# levels of one GAMG set-up with A and what -pc_sfdilu_sweep auto takes on each:
#   bench/gpu-run bash bench/experiments/ab-gamg.sh B.so
set -eu
. "$(dirname "$0")/ab-swap.sh"
ab_begin "$1"
rounds=${ROUNDS:-2}
echo "columns: config, set-up s, its, solve s, ms/iteration, re-set-up s, reason"
for pr in "anisotropic -aniso 1e-3" "convdiff -peclet 20" "poisson7"; do
  for r in $(seq "$rounds"); do
    for v in A B; do
      ab_use $v
      # shellcheck disable=SC2086
      echo "$pr $v: $(timeout 150 mpiexec -n 1 build/bench/scaling -problem $pr -n 100 -rtol 1e-8 -repeat 3 -resetup -gamg_gpu_products -configs gamg-sfdilu 2>&1 | grep -E '^  gamg-sfdilu ')"
    done
  done
done
ab_use A
timeout 100 build/bench/repeat -problem convdiff -peclet 20 -n 100 -solves 1 -ksp_max_it 1 -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu -ksp_view 2>&1 | grep -E "GPU sweeps|parts:|rows=[0-9]+, cols" | head -30
