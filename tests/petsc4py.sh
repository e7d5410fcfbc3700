#!/usr/bin/env bash
# SFPC from petsc4py (examples/python/poisson.py): the plugin loaded by -dll_append at
# petsc4py.init(), every PC chosen by options alone, on 1 and 2 ranks; PETSc's ILU runs beside
# sfilu as the reference (the host sfilu must give its iteration count exactly), and PETSc's ICC beside ICC
# through the sfilu solver type. Compared with
# tests/output/petsc4py.out. Skipped, and counted so, where config/petsc4py.sh finds no petsc4py
# (so on the GPU host, whose Python is another version than the one petsc4py is built for here:
# the GPU route from Python is PETSc's -dm_mat_type aijcusparse, not tested from Python).
# Usage: petsc4py.sh TESTDIR SFPC_DIR  (MPIEXEC and PETSCDIFF from the environment)
set -u
. "$(dirname "$0")/report-output.sh"
testdir=$1 sfpc=$2 label=petsc4py
if ! py=$("$sfpc/config/petsc4py.sh" --find); then
  echo "ok $label # SKIP no petsc4py (config/petsc4py.sh)" | tee -a "$testdir/test_build_tap.log"
  printf 'total 1\nsuccess 0\nfailed 0\nfailures \nskip 1\ntime 0 0\n' > "$testdir/counts/$label.counts"
  exit 0
fi
t=$testdir/petsc4py; mkdir -p "$t"
ex=$sfpc/examples/python/poisson.py
lib="-dll_append $sfpc/lib/libsfpc.so"
run() { # NP ARGS...
  local np=$1; shift
  echo "# (np $np) poisson.py $*" | sed "s|$sfpc|SFPC|g"
  # shellcheck disable=SC2086
  $MPIEXEC -n "$np" $py "$ex" "$@" 2>&1
}
{
  run 1 -n 12 $lib -pc_type sfilu
  run 1 -n 12 -pc_type ilu
  run 1 -n 12 $lib -ksp_type cg -pc_type sfdilu
  run 1 -n 12 $lib -ksp_type cg -pc_type afsai
  run 1 -n 12 $lib -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu
  run 1 -n 12 $lib -ksp_type cg -pc_type icc -pc_factor_mat_solver_type sfilu
  run 1 -n 12 -ksp_type cg -pc_type icc
  run 2 -n 12 $lib -pc_type sfilu
  run 2 -n 12 -pc_type bjacobi
  run 2 -n 12 $lib -ksp_type cg -pc_type sfdilu -pc_sfdilu_parallel
} > "$t/$label.out"
report_output "$label" "$sfpc/tests/output/$label.out" "$t/$label.out" "$testdir"
