#!/usr/bin/env bash
# PETSc tutorials built from the PETSc install with no SFPC code, given -pc_type sfilu through
# -dll_append (on the command line, and through PETSC_OPTIONS), compared with
# tests/output/petsc-tutorials.out (host) and, where a GPU is visible,
# tests/output/petsc-tutorials-gpu.out (aijcusparse). PETSc's own ILU runs beside each as the
# reference (ILU(0), and ILU(1)/ILU(2) through the levels options): the host sfilu must give its iteration counts exactly.
# Reports in the harness's TAP and counts formats so 'make check' counts it.
# Usage: petsc-tutorial.sh TESTDIR SFPC_DIR [gpu]  (MPIEXEC and PETSCDIFF from the environment)
set -u
. "$(dirname "$0")/report-output.sh"
testdir=$1 sfpc=$2 mode=${3:-host}
t=$testdir/petsc-tutorials
lib="-dll_append $sfpc/lib/libsfpc.so"
keep='Linear solve|Nonlinear solve|type: (sfilu|ilu)|ILU\(0\)|shift type|Number of (SNES|Linear)'
cav="-da_grid_x 24 -da_grid_y 24 -snes_converged_reason -ksp_converged_reason"
if [ "$mode" = gpu ]; then
  gpu="-dm_mat_type aijcusparse -dm_vec_type cuda -use_gpu_aware_mpi 0"
  gpu2="-mat_type aijcusparse -vec_type cuda -use_gpu_aware_mpi 0" # KSP ex2 has no DM
  label=petsc-tutorials-gpu
  run() {
    echo "# $*" | sed "s|$t/||; s|$sfpc|SFPC|g"
    $MPIEXEC -n 1 "$@" 2>&1 | grep -E "$keep"
  }
  {
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfilu -ksp_converged_reason $gpu
    run "$t/ex19" $cav $lib -pc_type sfilu $gpu
    run "$t/ex19" $cav $lib -pc_type sfilu -pc_sfilu_fill_levels 1 $gpu
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfilu -pc_sfilu_eisenstat -ksp_type cg -ksp_converged_reason $gpu
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfdilu -pc_sfdilu_eisenstat -ksp_type cg -ksp_converged_reason $gpu
    echo "# (2 ranks) ex45 ... -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type sfilu (GPU)"
    $MPIEXEC -n 2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type sfilu -ksp_converged_reason $gpu 2>&1 | grep -E "$keep"
    run "$t/ex2" -m 40 -n 40 $lib -pc_type icc -pc_factor_mat_solver_type sfilu -ksp_type cg -ksp_converged_reason $gpu2
    echo "# (2 ranks) ex2 -m 40 -n 40 ... -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_mat_solver_type sfilu -ksp_type cg (GPU)"
    $MPIEXEC -n 2 "$t/ex2" -m 40 -n 40 $lib -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_mat_solver_type sfilu -ksp_type cg -ksp_converged_reason $gpu2 2>&1 | grep -E "$keep"
  } > "$t/$label.out"
else
  label=petsc-tutorials
  run2() {
    echo "# (2 ranks) $*" | sed "s|$t/||; s|$sfpc|SFPC|g"
    $MPIEXEC "$@" 2>&1 | grep -E "$keep"
  }
  run() {
    echo "# $*" | sed "s|$t/||; s|$sfpc|SFPC|g"
    $MPIEXEC -n 1 "$@" 2>&1 | grep -E "$keep"
  }
  {
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfilu -ksp_converged_reason -ksp_view
    PETSC_OPTIONS="${PETSC_OPTIONS:-} $lib" run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -pc_type sfilu -ksp_converged_reason
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -pc_type ilu -ksp_converged_reason
    run "$t/ex19" $cav $lib -pc_type sfilu
    run "$t/ex19" $cav -pc_type ilu
    # ILU(1): Newton refactors at every step (PETSc's aijcusparse ILU(1) would factor on the host)
    run "$t/ex19" $cav $lib -pc_type sfilu -pc_sfilu_fill_levels 1
    run "$t/ex19" $cav -pc_type ilu -pc_factor_levels 1
    # Eisenstat's form under CG, and as PCMG's level smoother under Richardson (the same iterates as without it: the same counts)
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfilu -pc_sfilu_eisenstat -ksp_type cg -ksp_converged_reason
    run "$t/ex45" -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 $lib -ksp_type cg -pc_type mg -pc_mg_levels 3 -mg_levels_ksp_type richardson -mg_levels_pc_type sfilu -mg_levels_pc_sfilu_eisenstat -ksp_converged_reason
    run "$t/ex45" -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 $lib -ksp_type cg -pc_type mg -pc_mg_levels 3 -mg_levels_ksp_type richardson -mg_levels_pc_type sfilu -ksp_converged_reason
    # sfdilu under CG, without and with its Eisenstat form (multicolor DILU always has the form)
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfdilu -ksp_type cg -ksp_converged_reason
    run "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfdilu -pc_sfdilu_eisenstat -ksp_type cg -ksp_converged_reason
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type sfdilu -pc_sfdilu_eisenstat -ksp_type cg -ksp_converged_reason
    # as PCBJACOBI's block PC under its default preonly KSP (no operator product to save) the form steps aside: the plain sfilu's 14 iterations
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type bjacobi -sub_pc_type sfilu -sub_pc_sfilu_eisenstat -ksp_type cg -ksp_converged_reason
    # the factor as a PCILU solver type, per block of block Jacobi on two ranks
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type sfilu -ksp_converged_reason
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -pc_type bjacobi -sub_pc_type ilu -ksp_converged_reason
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 $lib -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type sfilu -sub_pc_factor_levels 2 -ksp_converged_reason
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex45" -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_levels 2 -ksp_converged_reason
    # and as a PCICC solver type, under CG, on one rank and per block on two; PETSc's ICC beside each (KSP ex2's
    # symmetric Laplacian: ex45's boundary rows are not, and ICC reads the upper triangle only)
    run "$t/ex2" -m 40 -n 40 $lib -pc_type icc -pc_factor_mat_solver_type sfilu -ksp_type cg -ksp_converged_reason
    run "$t/ex2" -m 40 -n 40 -pc_type icc -ksp_type cg -ksp_converged_reason
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex2" -m 40 -n 40 $lib -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_mat_solver_type sfilu -ksp_type cg -ksp_converged_reason
    MPIEXEC="$MPIEXEC -n 2" run2 "$t/ex2" -m 40 -n 40 -pc_type bjacobi -sub_pc_type icc -ksp_type cg -ksp_converged_reason
  } > "$t/$label.out"
fi
report_output "$label" "$sfpc/tests/output/$label.out" "$t/$label.out" "$testdir"
