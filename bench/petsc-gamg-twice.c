static char help[] = "Reproducer for a PETSc report, PETSc alone (no SFPC call): on aijcusparse, two KSPs with GAMG set up one\n"
                     "after the other in one process, GAMG's Galerkin products on the GPU (PETSc's default). With PETSc 3.26.1 and\n"
                     "CUDA 13.0 on an H200 the second set-up hung in cusparseSpGEMM_compute() (inside MatPtAP()) in 8 of 8 processes\n"
                     "(bench/README.md, sfdilu, \"GAMG's Galerkin products on the GPU\"). 3-D 7-point Laplacian on\n"
                     "an -n^3 grid (default 48), right-hand side random with a fixed seed, -ksp_type and -ksp_rtol as given (the\n"
                     "hang was seen with the default GMRES at 1e-8), -mat_type (default aijcusparse), -same_ksp (the second set-up\n"
                     "is the first KSP's after new values of the same pattern, A scaled by 2, as in a time loop; with it, GAMG's\n"
                     "-pc_gamg_reuse_interpolation decides whether the hierarchy is rebuilt). Prints a line as each set-up and\n"
                     "solve ends.\n";

#include <petscksp.h>

/* The 7-point Laplacian of an n^3 grid with Dirichlet boundaries, natural order. */
static PetscErrorCode Laplacian(PetscInt n, Mat *A)
{
  PetscInt  rstart, rend;
  PetscBool typed;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n * n, n * n * n));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_type", &typed));
  if (!typed) PetscCall(MatSetType(*A, MATAIJCUSPARSE)); /* -mat_type aij: the same on the host, where it never hung */
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 7, NULL, 3, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r % n, j = (r / n) % n, k = r / (n * n);
    PetscInt       cols[7], m = 0;
    PetscScalar    vals[7];

    cols[m] = r, vals[m++] = 6.0;
    if (i > 0) cols[m] = r - 1, vals[m++] = -1.0;
    if (i < n - 1) cols[m] = r + 1, vals[m++] = -1.0;
    if (j > 0) cols[m] = r - n, vals[m++] = -1.0;
    if (j < n - 1) cols[m] = r + n, vals[m++] = -1.0;
    if (k > 0) cols[m] = r - n * n, vals[m++] = -1.0;
    if (k < n - 1) cols[m] = r + n * n, vals[m++] = -1.0;
    PetscCall(MatSetValues(*A, 1, &r, m, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         x, b;
  PetscRandom rnd;
  PetscInt    n = 48;
  PetscBool   same = PETSC_FALSE;
  KSP         ksp = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-same_ksp", &same, NULL));
  PetscCall(Laplacian(n, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  for (int s = 0; s < 2; s++) { /* the second set-up is where it hung */
    PC       pc;
    PetscInt its;

    if (s == 0 || !same) {
      PetscCall(KSPDestroy(&ksp));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, PCGAMG));
      PetscCall(KSPSetFromOptions(ksp));
    } else { /* new values, same pattern */
      PetscCall(MatScale(A, 2.0));
      PetscCall(KSPSetOperators(ksp, A, A));
    }
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "set-up %d: GAMG set up\n", s + 1));
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "set-up %d: solved in %" PetscInt_FMT " iterations\n", s + 1, its));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
