static char help[] = "The products with A that PCs fuse into their GPU sweeps (sfilu's B A x and Richardson residual on the grid\n"
                     "layout, sfdilu's Richardson step) and afsai's Richardson weight must follow the KSP's operator after the PC's set-up: KSPSetOperators(ksp, B, A)\n"
                     "after a solve with (A, A), which PETSc hands to the PC without a new set-up, and a new operator matrix B under\n"
                     "KSPSetReusePreconditioner(), which skips it (afsai: the operator scaled in place). B = A + 0.5 I; each solve must leave ||b - K x|| / ||b|| below 1e-6 for its operator K.\n"
                     "Problem options of tests/problems.c (7-point Poisson in natural order: sfilu's GPU grid layout reads the grid\n"
                     "from the pattern); -mat_type aijcusparse for the GPU. The KSPs' prefixes: <pc>_<ksp>_, e.g. sfilu_richardson_.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

/* A solve with the current operators, and whether B x = b to 1e-6. */
static PetscErrorCode SolveCheck(KSP ksp, Mat B, Vec b, Vec x, const char *what)
{
  Vec                r;
  PetscReal          rn, bn;
  PetscInt           its;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatResidual(B, b, x, r));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %s in %" PetscInt_FMT "; ||b - K x|| / ||b|| below 1e-6 for the operator K: %s\n", what, KSPConvergedReasons[reason], its, rn <= 1e-6 * bn ? "yes" : "NO"));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One KSP (type kt) with one PC (type pt): a solve with (A, A), then with (B, A) (operator swapped), then with (B2, B2), a new matrix equal to B, under a reused preconditioner. */
static PetscErrorCode Run(Mat A, Vec b, const char *pt, KSPType kt, const char *opts)
{
  KSP  ksp;
  PC   pc;
  Mat  B, B2;
  Vec  x;
  char prefix[64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_%s_", pt, kt));
  PetscCall(TestOptionsSetPrefixed(prefix, opts));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatShift(B, 0.5));
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetType(ksp, kt));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(KSPSetTolerances(ksp, 1e-9, PETSC_CURRENT, PETSC_CURRENT, 400));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s:\n", pt, kt));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(SolveCheck(ksp, A, b, x, "operator A, preconditioner from A"));
  PetscCall(KSPSetOperators(ksp, B, A));
  PetscCall(SolveCheck(ksp, B, b, x, "operator B, preconditioner from A"));
  PetscCall(KSPSetReusePreconditioner(ksp, PETSC_TRUE));
  PetscCall(KSPSetOperators(ksp, B2, B2));
  PetscCall(SolveCheck(ksp, B2, b, x, "operator B2, reused preconditioner from A"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&B2));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* afsai's Richardson weight, 1 / (a margin times an estimate of rho(G^T G K)), is the operator K's: solved with (K, P), then
   with K scaled in place by 3 and P unchanged (no new set-up), the weight must follow K, or the steps diverge. */
static PetscErrorCode RunScaledOperator(Mat A, Vec b)
{
  KSP ksp;
  PC  pc;
  Mat K;
  Vec x;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &K));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "afsai_scaled_"));
  PetscCall(KSPSetType(ksp, KSPRICHARDSON));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCAFSAI));
  PetscCall(KSPSetTolerances(ksp, 1e-9, PETSC_CURRENT, PETSC_CURRENT, 400));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "afsai, richardson, its weight estimated over the operator:\n"));
  PetscCall(KSPSetOperators(ksp, K, A));
  PetscCall(SolveCheck(ksp, K, b, x, "operator K = A, preconditioner from A"));
  PetscCall(MatScale(K, 3.0));
  PetscCall(SolveCheck(ksp, K, b, x, "operator K scaled by 3, preconditioner from A"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat  A;
  Vec  b;
  char desc[256];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  /* sfilu's fused products are forced on (by default they wait for larger grids); its Richardson tests the tolerances */
  PetscCall(Run(A, b, PCSFILU, KSPGMRES, "-pc_sfilu_layout grid -pc_sfilu_ba_fused true"));
  PetscCall(Run(A, b, PCSFILU, KSPRICHARDSON, "-pc_sfilu_layout grid -pc_sfilu_richardson_fused true"));
  /* sfdilu's Richardson runs its 400 steps (a smoother's loop, fused on one GPU) */
  PetscCall(Run(A, b, PCSFDILU, KSPRICHARDSON, "-pc_sfdilu_coloring greedy"));
  PetscCall(RunScaledOperator(A, b));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  test:
    suffix: host
    args: -problem poisson7 -n 10

  test:
    suffix: gpu
    requires: gpu
    args: -problem poisson7 -n 10 -mat_type aijcusparse -use_gpu_aware_mpi 0
    output_file: output/ex16_host.out

TEST*/
