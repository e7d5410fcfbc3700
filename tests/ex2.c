static char help[] = "PCSFILU on bad input: zero and tiny pivots with each shift type, Inf/NaN entries,\n"
                     "a missing diagonal, a rectangular matrix, a pattern that is not symmetric (for ICC).\n"
                     "-case zeropivot|tinypivot|nan|inf|missingdiag|rectangular|nonsympattern|nonsymupper.\n"
                     "The matrix is the 1-D Laplacian of -n rows with row 0 (or the diagonal of row n/2) spoiled;\n"
                     "with -problem (problems.c, e.g. -problem poisson27 -n 6) that problem's matrix, its diagonal spoiled\n"
                     "the same way (zero, tiny, NaN and Inf cases).\n";

#include <petscksp.h>
#include <math.h>
#include "problems.h"

/* The diagonal entry the case spoils in a matrix assembled already: row, value; row -1 for none. */
static void Spoil(PetscInt n, PetscBool zero, PetscBool tiny, PetscBool nan, PetscBool inf, PetscInt *row, PetscScalar *d)
{
  *row = zero || tiny ? 0 : nan || inf ? n / 2 : -1;
  *d   = zero ? 0.0 : tiny ? 1e-300 : nan ? NAN : INFINITY;
}

static PetscErrorCode BuildMatrix(const char *which, PetscInt n, PetscBool problem, Mat *A)
{
  PetscBool   missing, rect, zero, tiny, nan, inf, nonsym, nonsymup;
  PetscInt    bad;
  PetscScalar spoilt;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(which, "missingdiag", &missing));
  PetscCall(PetscStrcmp(which, "rectangular", &rect));
  PetscCall(PetscStrcmp(which, "zeropivot", &zero));
  PetscCall(PetscStrcmp(which, "tinypivot", &tiny));
  PetscCall(PetscStrcmp(which, "nan", &nan));
  PetscCall(PetscStrcmp(which, "inf", &inf));
  PetscCall(PetscStrcmp(which, "nonsympattern", &nonsym));
  PetscCall(PetscStrcmp(which, "nonsymupper", &nonsymup));
  PetscCheck(missing || rect || zero || tiny || nan || inf || nonsym || nonsymup, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -case %s", which);
  if (problem) {
    char        desc[256];
    PetscInt    row, rstart, rend;
    PetscScalar d;

    PetscCheck(zero || tiny || nan || inf, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-case %s needs the 1-D Laplacian (no -problem)", which);
    PetscCall(TestProblemCreate(PETSC_COMM_WORLD, A, desc, sizeof(desc)));
    PetscCall(MatGetSize(*A, &n, NULL));
    PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
    Spoil(n, zero, tiny, nan, inf, &row, &d);
    if (row >= rstart && row < rend) PetscCall(MatSetValue(*A, row, row, d, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, rect ? n + 1 : n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  Spoil(n, zero, tiny, nan, inf, &bad, &spoilt);
  for (PetscInt r = 0; r < n; r++) {
    const PetscScalar d = r == bad ? spoilt : 2.0;

    if (r > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0, INSERT_VALUES));
    if (!(missing && r == n / 2)) PetscCall(MatSetValue(*A, r, r, d, INSERT_VALUES));
    if (r < n - 1) PetscCall(MatSetValue(*A, r, r + 1, -1.0, INSERT_VALUES));
  }
  if (nonsym) PetscCall(MatSetValue(*A, n - 1, 0, -0.5, INSERT_VALUES));   /* below the diagonal, no mirror above it */
  if (nonsymup) PetscCall(MatSetValue(*A, 0, n - 1, -0.5, INSERT_VALUES)); /* above the diagonal, no mirror below it */
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bitwise equality of values and pattern (MatEqual() would call a NaN different from itself). */
static PetscErrorCode SameBits(Mat A, Mat B, PetscBool *same)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  *same = PETSC_TRUE;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *ca, *cb;
    const PetscScalar *va, *vb;
    PetscInt           na, nb;

    PetscCall(MatGetRow(A, r, &na, &ca, &va));
    PetscCall(MatGetRow(B, r, &nb, &cb, &vb));
    if (na != nb || memcmp(ca, cb, na * sizeof(PetscInt)) || memcmp(va, vb, na * sizeof(PetscScalar))) *same = PETSC_FALSE;
    PetscCall(MatRestoreRow(B, r, &nb, &cb, &vb));
    PetscCall(MatRestoreRow(A, r, &na, &ca, &va));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat                A, Acopy;
  Vec                x, b;
  KSP                ksp;
  PC                 pc;
  PetscInt           n = 10, its;
  PetscBool          problem;
  char               which[32] = "zeropivot";
  KSPConvergedReason reason;
  PCFailedReason     pcreason;
  PetscBool          same;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-problem", &problem));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof(which), NULL));
  PetscCall(BuildMatrix(which, n, problem, &A));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Acopy));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, "sfilu"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PCGetFailedReason(pc, &pcreason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP %s after %" PetscInt_FMT " iterations; PC failed reason %s\n", KSPConvergedReasons[reason], its, PCFailedReasons[pcreason]));
  /* the PC must never touch the user's matrix */
  PetscCall(SameBits(A, Acopy, &same));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix unchanged: %s\n", same ? "yes" : "NO"));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&Acopy));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  testset:
    args: -dll_append ${sfpc_dir}/lib/libsfpc.so
    test:
      suffix: zeropivot
      args: -case zeropivot -ksp_converged_reason
    test:
      suffix: zeropivot_shift
      args: -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type {{nonzero positive_definite}separate output} -pc_sfilu_shift_amount 1e-3
    test:
      suffix: zeropivot_error
      args: -case zeropivot -ksp_error_if_not_converged
      filter: Error: grep -E "PCSFILU|Floating point|Zero pivot" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: nonfinite
      args: -case {{nan inf}separate output} -ksp_converged_reason
    test:
      suffix: missingdiag
      args: -case missingdiag
      filter: Error: grep -E "missing diagonal" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # a matrix type sfilu does not take, on one and two ranks
      suffix: wrongtype
      nsize: {{1 2}separate output}
      args: -case zeropivot -mat_type sell
      filter: Error: grep -E "supports" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: rectangular
      args: -case rectangular
      filter: Error: grep -E "PCSFILU|square" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badoption_zeropivot
      args: -case zeropivot -pc_sfilu_zeropivot 2
      filter: Error: grep -E "must be|supports|allowed bound" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badoption_shifttype
      args: -case zeropivot -pc_sfilu_shift_type inblocks
      filter: Error: grep -E "must be|supports|allowed bound|Unknown option" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # -ksp_view_pre: what is chosen, and no figures of a factor not built
      suffix: view_pre
      args: -case zeropivot -ksp_view_pre -pc_type {{sfilu sfdilu}separate output}
      filter: grep -E "not set up yet"
    test: # four sizes, a negative one, and the two names of the grid given different grids
      suffix: badoption_grid
      args: -case zeropivot -pc_sfilu_grid {{10,1,1,7 -1,2,3}separate output}
      filter: Error: grep -E "needs three|name one grid" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badoption_grid_names
      args: -case zeropivot -pc_sfilu_sip_grid 10,1,1 -pc_sfilu_grid 1,10,1
      filter: Error: grep -E "needs three|name one grid" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badoption_shiftamount
      args: -case zeropivot -pc_sfilu_shift_amount -3
      filter: Error: grep -E "must be|supports|allowed bound" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badoption_warps
      args: -case zeropivot -pc_sfilu_warps_per_sm 0
      filter: Error: grep -E "must be|supports|allowed bound" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # ILU(1) of a tridiagonal matrix has no fill: the same failures and shifts as ILU(0)
      suffix: iluk_zeropivot
      args: -case zeropivot -ksp_converged_reason -pc_sfilu_fill_levels 1
      output_file: output/ex2_zeropivot.out
    test:
      suffix: iluk_shift
      args: -case tinypivot -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3 -pc_sfilu_fill_levels 2
      output_file: output/ex2_zeropivot_shift_case-tinypivot_pc_sfilu_shift_type-nonzero.out
    test:
      suffix: iluk_nonfinite
      args: -case nan -ksp_converged_reason -pc_sfilu_fill_levels 1
      output_file: output/ex2_nonfinite_case-nan.out
    test: # the fill could give the row a diagonal slot; ILU(k) still needs A's own, as PETSc's does
      suffix: iluk_missingdiag
      args: -case missingdiag -pc_sfilu_fill_levels 1
      filter: Error: grep -E "missing diagonal" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_missingdiag.out
    test: # a 27-point matrix on the grid layout (on the GPU factored by its own hyperplane kernel): failures and shifts
      suffix: box_failure
      args: -problem poisson27 -n 6 -pc_sfilu_layout grid -pc_sfilu_grid 6,6,6 -case {{zeropivot nan inf}separate output} -ksp_converged_reason
    test:
      suffix: box_shift
      args: -problem poisson27 -n 6 -pc_sfilu_layout grid -pc_sfilu_grid 6,6,6 -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type {{nonzero positive_definite}separate output} -pc_sfilu_shift_amount 1e-3
    test: # 4 fields a point (block size 4): row 50 is field 2 of a point, a pivot inside a GPU point-block
      suffix: fields_failure
      args: -problem fields -n 5 -dof 4 -case {{zeropivot nan inf}separate output} -ksp_converged_reason
    test:
      suffix: fields_shift
      args: -problem fields -n 5 -dof 4 -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3
    test:
      suffix: fields_error
      args: -problem fields -n 5 -dof 4 -case {{zeropivot nan}separate output} -ksp_error_if_not_converged
      filter: Error: grep -E "PCSFILU|Floating point|Zero pivot" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # 5 fields a point in 3-D, rows of 35 entries (on the GPU: dense point-blocks, ilu0_dense_device.cu); row 0 the first pivot of a block, row 160 a point's first field
      suffix: fields3d_failure
      args: -problem fields -dim 3 -n 4 -dof 5 -case {{zeropivot nan inf}separate output} -ksp_converged_reason
    test:
      suffix: fields3d_shift
      args: -problem fields -dim 3 -n 4 -dof 5 -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3
    test:
      suffix: badoption_block_size
      args: -case zeropivot -pc_sfilu_block_size {{0 -3}separate output}
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badoption_levels
      args: -case zeropivot -pc_sfilu_fill_levels -1
      filter: Error: grep -E "must be|supports|allowed bound" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # PCICC with the sfilu solver type: failures with no shift, its default shift (positive definite), a pattern that is not symmetric
      suffix: icc_failure
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -pc_factor_shift_type none -case {{zeropivot nan}separate output} -ksp_converged_reason
    test:
      suffix: icc_shift
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -case {{zeropivot tinypivot}separate output} -ksp_converged_reason
    test: # the error names the factor behind PCICC, not PCSFILU
      suffix: icc_error
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -pc_factor_shift_type none -case zeropivot -ksp_error_if_not_converged
      filter: Error: grep -E "sfilu solver type" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # the solver type's own options, under the sub-PC's prefix (block Jacobi on one rank)
      suffix: matsolver_badoption
      args: -case zeropivot -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type sfilu -sub_mat_sfilu_warps_per_sm 0
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # the solver type factors in the natural ordering only: another ordering, or rows swapped to move a small pivot off the diagonal, is refused, not dropped
      suffix: matsolver_ordering
      args: -pc_type {{ilu icc}} -pc_factor_mat_solver_type sfilu -case zeropivot -pc_factor_mat_ordering_type rcm
      filter: Error: grep -E "natural ordering" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_matsolver_ordering.out
    test: # the grid layout asked of the solver type: ILU(0)'s stencil only
      suffix: matsolver_grid_levels
      args: -pc_type ilu -pc_factor_mat_solver_type sfilu -case zeropivot -mat_sfilu_layout grid -pc_factor_levels 1
      filter: Error: grep -E "grid layout" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: matsolver_nonzero_diagonal
      args: -pc_type ilu -pc_factor_mat_solver_type sfilu -case zeropivot -pc_factor_nonzeros_along_diagonal
      filter: Error: grep -E "natural ordering" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_matsolver_ordering.out
    test:
      suffix: icc_nonsympattern
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -case nonsympattern
      filter: Error: grep -E "structurally symmetric" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: icc_nonsymupper
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -case nonsymupper
      filter: Error: grep -E "structurally symmetric" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # on 2 ranks each factors its diagonal block; the zero pivot on one rank stops the KSP on both
      suffix: mpi
      nsize: 2
      args: -case zeropivot

  # The same cases on the GPU path: the same outputs as on the host
  testset:
    requires: gpu
    args: -dll_append ${sfpc_dir}/lib/libsfpc.so -mat_type aijcusparse -use_gpu_aware_mpi 0
    test:
      suffix: gpu_zeropivot
      args: -case zeropivot -ksp_converged_reason
      output_file: output/ex2_zeropivot.out
    test:
      suffix: gpu_shift_nonzero
      args: -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3 -pc_sfilu_factor_match {{map search broadcast}shared output}
      output_file: output/ex2_zeropivot_shift_case-zeropivot_pc_sfilu_shift_type-nonzero.out
    test:
      suffix: gpu_shift_pd
      args: -case zeropivot -pc_sfilu_shift_type positive_definite -pc_sfilu_shift_amount 1e-3
      output_file: output/ex2_zeropivot_shift_case-zeropivot_pc_sfilu_shift_type-positive_definite.out
    test:
      suffix: gpu_zeropivot_error
      args: -case zeropivot -ksp_error_if_not_converged
      filter: Error: grep -E "PCSFILU|Floating point|Zero pivot" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_zeropivot_error.out
    test:
      suffix: gpu_nonfinite
      args: -case {{nan inf}separate output} -ksp_converged_reason -pc_sfilu_factor_match {{map search broadcast}shared output}
      output_file: output/ex2_nonfinite_case-nan.out
    test: # ILU(0) by point-blocks of 4 rows (the matrix's block size); the outputs are copies of the host runs'
      suffix: gpu_fields_failure
      args: -problem fields -n 5 -dof 4 -case {{zeropivot nan inf}separate output} -ksp_converged_reason
    test:
      suffix: gpu_fields_error
      args: -problem fields -n 5 -dof 4 -case {{zeropivot nan}separate output} -ksp_error_if_not_converged
      filter: Error: grep -E "PCSFILU|Floating point|Zero pivot" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: gpu_fields_shift
      args: -problem fields -n 5 -dof 4 -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3
    test: # dense point-blocks of 5 rows; the outputs are copies of the host runs'
      suffix: gpu_fields3d_failure
      args: -problem fields -dim 3 -n 4 -dof 5 -case {{zeropivot nan inf}separate output} -ksp_converged_reason
    test:
      suffix: gpu_fields3d_shift
      args: -problem fields -dim 3 -n 4 -dof 5 -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3
    test:
      suffix: gpu_iluk_zeropivot
      args: -case zeropivot -ksp_converged_reason -pc_sfilu_fill_levels 1
      output_file: output/ex2_zeropivot.out
    test:
      suffix: gpu_iluk_shift
      args: -case tinypivot -pc_sfilu_shift_type nonzero -pc_sfilu_shift_amount 1e-3 -pc_sfilu_fill_levels 2
      output_file: output/ex2_zeropivot_shift_case-tinypivot_pc_sfilu_shift_type-nonzero.out
    test:
      suffix: gpu_iluk_nonfinite
      args: -case {{nan inf}separate output} -ksp_converged_reason -pc_sfilu_fill_levels 1
      output_file: output/ex2_nonfinite_case-nan.out
    test: # the host's box_failure and box_shift outputs
      suffix: gpu_box_failure
      args: -problem poisson27 -n 6 -pc_sfilu_layout grid -pc_sfilu_grid 6,6,6 -case {{zeropivot nan inf}separate output} -ksp_converged_reason
    test:
      suffix: gpu_box_shift
      args: -problem poisson27 -n 6 -pc_sfilu_layout grid -pc_sfilu_grid 6,6,6 -case {{zeropivot tinypivot}separate output} -pc_sfilu_shift_type {{nonzero positive_definite}separate output} -pc_sfilu_shift_amount 1e-3
    test:
      suffix: gpu_icc_failure
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -pc_factor_shift_type none -case {{zeropivot nan}separate output} -ksp_converged_reason
    test:
      suffix: gpu_icc_shift
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -case {{zeropivot tinypivot}separate output} -ksp_converged_reason
    test:
      suffix: gpu_icc_error
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -pc_factor_shift_type none -case zeropivot -ksp_error_if_not_converged
      filter: Error: grep -E "sfilu solver type" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_icc_error.out
    test:
      suffix: gpu_icc_nonsympattern
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -case nonsympattern
      filter: Error: grep -E "structurally symmetric" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_icc_nonsympattern.out
    test:
      suffix: gpu_icc_nonsymupper
      args: -pc_type icc -pc_factor_mat_solver_type sfilu -case nonsymupper
      filter: Error: grep -E "structurally symmetric" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_icc_nonsymupper.out
    test:
      suffix: gpu_missingdiag
      args: -case missingdiag
      filter: Error: grep -E "missing diagonal" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex2_missingdiag.out

TEST*/
