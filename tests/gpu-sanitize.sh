#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over SFPC's GPU paths on small
# cases: analysis (ASAP and ALAP), sync-free ILU(0), both solves in both layouts, refactorization,
# a failing pivot and a NaN; MATHYBSF triangles (build, single sweeps, refill) with rows of 0 to
# 3000 entries; SIP's GPU factorization, sync-free and level-synchronous, on a non-cubic grid.
# Run on the GPU host through bench/gpu-run: bench/gpu-run bash tests/gpu-sanitize.sh
set -u
lib=$PWD/lib/libsfpc.so
ex1=build/tests/tests/ex1 ex2=build/tests/tests/ex2 ex4=build/tests/tests/ex4 ex5=build/tests/tests/ex5
cases=(
  "$ex1 -dll_append $lib -device -problem poisson7 -n 6 -refactor"
  "$ex1 -dll_append $lib -device -problem poisson7 -n 6 -refactor -pc_sfilu_layout hyb -pc_sfilu_levels alap"
  "$ex1 -dll_append $lib -device -problem convdiff -n 5 -peclet 10 -permute 3"
  "$ex1 -dll_append $lib -device -problem convdiff -n 5 -peclet 10 -permute 3 -pc_sfilu_layout csr -pc_sfilu_levels alap"
  "$ex2 -dll_append $lib -mat_type aijcusparse -case zeropivot -pc_sfilu_shift_type nonzero"
  "$ex2 -dll_append $lib -mat_type aijcusparse -case nan"
  "$ex4 -mat_type aijcusparse -case random -n 300"
  "$ex4 -mat_type aijcusparse -case rowlengths -triangle upper"
  "$ex5 -device -nx 7 -ny 5 -nz 4 -alphas 0,0.92"
)
status=0
for tool in memcheck racecheck synccheck initcheck; do
  for c in "${cases[@]}"; do
    # racecheck: PETSc's MatMult runs cuSPARSE kernels whose shared-memory use racecheck flags; check ours only
    filt=""; [ $tool = racecheck ] && filt="--kernel-name-exclude kns=cusparse"
    out=$(compute-sanitizer --tool $tool $filt --error-exitcode 9 $c -use_gpu_aware_mpi 0 2>&1); rc=$?
    summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
    printf '%-10s rc=%d %-40s %s\n' "$tool" $rc "$(echo "$c" | sed 's/-dll_append [^ ]* //; s|build/tests/tests/||')" "$summary"
    [ $rc -eq 0 ] || { status=1; echo "$out" | grep -v "^=========     Host Frame" | head -40; }
  done
done
exit $status
