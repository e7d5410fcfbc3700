#!/usr/bin/env bash
# SFPC as a user's build sees it after 'make install': the demo built by gmakefile.test against
# the installed copy through pkg-config alone (TESTDIR/install/ex1), and a PETSc tutorial with no
# SFPC code given the installed plugin by -dll_append. Checks that both load the installed
# library, not the build tree's, and compares the runs with tests/output/install.out.
# Usage: install.sh TESTDIR SFPC_DIR   (MPIEXEC and PETSCDIFF from the environment)
set -u
. "$(dirname "$0")/report-output.sh"
testdir=$1 sfpc=$2
t=$testdir/install prefix=$testdir/install/prefix
{
  echo "# sfpc.pc: $(grep -E '^(Requires|Libs):' "$prefix/lib/pkgconfig/sfpc.pc" | paste -sd ';')"
  echo "# the demo links: $(ldd "$t/ex1" | awk '/libsfpc/ {print $1, $2, $3}' | sed "s|$prefix|PREFIX|")"
  $MPIEXEC -n 1 "$t/ex1" -n 12 -compare 2>&1 | grep -v -E "SFPC device|^  time"
  echo "# PETSc's KSP ex45 -dll_append PREFIX/lib/libsfpc.so -pc_type sfilu"
  $MPIEXEC -n 1 "$testdir/petsc-tutorials/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -dll_append "$prefix/lib/libsfpc.so" \
    -pc_type sfilu -ksp_converged_reason -ksp_view 2>&1 | grep -E "Linear solve|type: sfilu"
} > "$t/install.out"
report_output install "$sfpc/tests/output/install.out" "$t/install.out" "$testdir"
