#!/usr/bin/env bash
# Runs PETSc's KSP tutorial ex45, built from the PETSc install with no SFPC code, with
# -pc_type sfilu loaded through -dll_append (once on the command line, once through
# PETSC_OPTIONS), and compares with tests/output/petsc-tutorial-ex45.out.
# Reports in the harness's TAP and counts formats so 'make check' counts it.
# Usage: petsc-tutorial.sh TESTDIR SFPC_DIR   (MPIEXEC and PETSCDIFF from the environment)
set -u
testdir=$1 sfpc=$2
exe=$testdir/petsc-tutorials/ex45
out=$testdir/petsc-tutorials/ex45.out
grid="-da_grid_x 12 -da_grid_y 12 -da_grid_z 12"
keep='Linear solve|type: (sfilu|ilu)|ILU\(0\)|shift type'
{
  echo "# -dll_append on the command line"
  $MPIEXEC -n 1 "$exe" $grid -dll_append "$sfpc/lib/libsfpc.so" -pc_type sfilu -ksp_converged_reason -ksp_view 2>&1 | grep -E "$keep"
  echo "# -dll_append in PETSC_OPTIONS"
  PETSC_OPTIONS="-dll_append $sfpc/lib/libsfpc.so" $MPIEXEC -n 1 "$exe" $grid -pc_type sfilu -ksp_converged_reason 2>&1 | grep -E "$keep"
  echo "# PETSc's own ILU on the same problem"
  $MPIEXEC -n 1 "$exe" $grid -pc_type ilu -ksp_converged_reason 2>&1 | grep -E "$keep"
} > "$out"
label=petsc-tutorial-ex45_sfilu
if $PETSCDIFF "$sfpc/tests/output/petsc-tutorial-ex45.out" "$out" > "$out.diff" 2>&1; then
  result="ok $label"; success=1; failed=0
else
  result="not ok $label # output differs"; success=0; failed=1
  sed 's/^/#\t/' "$out.diff"
fi
echo "$result" | tee -a "$testdir/test_build_tap.log"
printf 'total 1\nsuccess %d\nfailed %d\nfailures %s\ntime 0 0\n' $success $failed "$( [ $failed = 1 ] && echo $label)" > "$testdir/counts/$label.counts"
