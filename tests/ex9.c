static char help[] = "PCAFSAI across MPI ranks with gathered rows (-pc_afsai_gather k): G is lower triangular in the global\n"
                     "numbering with diag(G A G^T) = I, CG converges, and when k reaches across the whole grid the search sees\n"
                     "what one rank sees, so the iterations equal one rank's. Compared with each rank's diagonal block (k = 0).\n"
                     "Options: problem options of tests/problems.c, -gathers k1,k2,... (the k to run), -negative_row r (make\n"
                     "a_rr negative: the set-up must fail on every rank, the G of no rank being built).\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

/* G lower triangular (global columns <= the row) and max |diag(G A G^T) - 1|, on the MPI matrices. */
static PetscErrorCode CheckFactor(Mat A, Mat G, PetscBool *lower, PetscReal *dev)
{
  Mat                Gt, GAGt;
  Vec                d;
  PetscInt           rstart, rend;
  const PetscScalar *da;

  PetscFunctionBegin;
  *lower = PETSC_TRUE;
  *dev   = 0;
  PetscCall(MatGetOwnershipRange(G, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt *cols;
    PetscInt        nc;
    PetscCall(MatGetRow(G, i, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nc; k++) *lower = (PetscBool)(*lower && cols[k] <= i);
    PetscCall(MatRestoreRow(G, i, &nc, &cols, NULL));
  }
  PetscCall(MatTranspose(G, MAT_INITIAL_MATRIX, &Gt));
  PetscCall(MatPtAP(A, Gt, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &GAGt));
  PetscCall(MatCreateVecs(GAGt, &d, NULL));
  PetscCall(MatGetDiagonal(GAGt, d));
  PetscCall(VecGetArrayRead(d, &da));
  for (PetscInt i = 0; i < rend - rstart; i++) *dev = PetscMax(*dev, PetscAbsScalar(da[i] - 1.0));
  PetscCall(VecRestoreArrayRead(d, &da));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, lower, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, dev, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&GAGt));
  PetscCall(MatDestroy(&Gt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat      A;
  Vec      b, x;
  char     desc[256];
  PetscInt gathers[8] = {0, 1, 2, 16}, ng = 4, negrow = -1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-gathers", gathers, &ng, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-negative_row", &negrow, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  if (negrow >= 0) {
    PetscInt rstart, rend;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    if (negrow >= rstart && negrow < rend) PetscCall(MatSetValue(A, negrow, negrow, -1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  for (PetscInt g = 0; g < ng; g++) {
    KSP       ksp;
    PC        pc;
    Mat       G;
    PetscInt  its;
    PetscBool lower;
    PetscReal dev;
    char      k[16];
    PetscCall(PetscSNPrintf(k, sizeof(k), "%" PetscInt_FMT, gathers[g]));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_afsai_gather", k));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 1000));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, "afsai"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    if (negrow >= 0) {
      KSPConvergedReason reason;
      PCFailedReason     failed;
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCall(PCGetFailedReason(pc, &failed));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather %" PetscInt_FMT ", a_%" PetscInt_FMT "%" PetscInt_FMT " < 0: %s, PC %s\n", gathers[g], negrow, negrow, KSPConvergedReasons[reason], PCFailedReasons[failed]));
      PetscCall(KSPDestroy(&ksp));
      continue;
    }
    PetscCall(PCAFSAIGetFactor(pc, &G));
    if (gathers[g] > 0) {
      PetscCall(CheckFactor(A, G, &lower, &dev));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather %" PetscInt_FMT ": G lower triangular: %s, diag(G A G^T) = I to 1e-12: %s, CG %" PetscInt_FMT " iterations\n", gathers[g], lower ? "yes" : "NO", dev <= 1e-12 ? "yes" : "NO", its));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diagonal blocks: CG %" PetscInt_FMT " iterations\n", its));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  test:
    suffix: poisson7
    nsize: {{1 2 3}separate output}
    args: -problem poisson7 -n 6 -gathers 0,1,2,16

  test:
    suffix: notspd
    nsize: {{1 2 3}shared output}
    args: -problem poisson7 -n 6 -gathers 2 -negative_row 150

TEST*/
