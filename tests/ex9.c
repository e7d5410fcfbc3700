static char help[] = "PCAFSAI across MPI ranks with gathered rows (-pc_afsai_gather k): G is lower triangular in the global\n"
                     "numbering with diag(G A G^T) = I, CG converges, and when k reaches across the whole grid the search sees\n"
                     "what one rank sees, so the iterations equal one rank's. Compared with each rank's diagonal block (k = 0).\n"
                     "Options: problem options of tests/problems.c, -gathers k1,k2,... (the k to run), -negative_row r (make\n"
                     "a_rr negative: the set-up must fail on every rank, the G of no rank being built).\n"
                     "With -mat_type aijcusparse: -device (whether the gathered set-up ran on the GPU and G, G^T are\n"
                     "mpiaijcusparse), -compare_setup (the GPU set-up against the host one of the same matrix: the same\n"
                     "pattern, the values bitwise, the same CG iterations), -reuse (new values of the same pattern: the\n"
                     "pattern kept, the values recomputed, the iterations of a fresh set-up).\n";

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

/* A CG solve with the gathered PCAFSAI (gather k, set-up where: NULL for the default); returns the KSP when asked. */
static PetscErrorCode Solve(Mat A, Vec b, PetscInt k, const char *where, PetscInt *its, KSP *kspout)
{
  KSP  ksp;
  PC   pc;
  Vec  x;
  char ks[16];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(ks, sizeof(ks), "%" PetscInt_FMT, k));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_afsai_gather", ks));
  if (where) PetscCall(PetscOptionsSetValue(NULL, "-pc_afsai_setup", where));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 1000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, "afsai"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(VecDestroy(&x));
  if (where) PetscCall(PetscOptionsClearValue(NULL, "-pc_afsai_setup"));
  if (kspout) *kspout = ksp;
  else PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G of two set-ups compared on each rank's diagonal and off-diagonal blocks (a sequential G: itself): the same pattern (and ghost columns), and the values. */
static PetscErrorCode CompareFactors(Mat G0, Mat G1, PetscBool *same, PetscBool *bitwise, PetscReal *err)
{
  Mat             B[2][2] = {{G0, NULL}, {G1, NULL}};
  const PetscInt *garray[2];
  PetscBool       mpi;
  int             nb = 1;

  PetscFunctionBegin;
  *same    = PETSC_TRUE;
  *bitwise = PETSC_TRUE;
  *err     = 0;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)G0, MATMPIAIJ, &mpi));
  if (mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(G0, &B[0][0], &B[0][1], &garray[0]));
    PetscCall(MatMPIAIJGetSeqAIJ(G1, &B[1][0], &B[1][1], &garray[1]));
    nb = 2;
  }
  for (int d = 0; d < nb; d++) {
    const PetscInt    *ia[2], *ja[2];
    const PetscScalar *va[2];
    PetscInt           n[2], nc[2];
    PetscBool          done;
    for (int k = 0; k < 2; k++) {
      PetscCall(MatGetRowIJ(B[k][d], 0, PETSC_FALSE, PETSC_FALSE, &n[k], &ia[k], &ja[k], &done));
      PetscCall(MatSeqAIJGetArrayRead(B[k][d], &va[k])); /* brings a CUSPARSE block's device values to the host */
      PetscCall(MatGetSize(B[k][d], NULL, &nc[k]));
    }
    *same = (PetscBool)(*same && n[0] == n[1] && nc[0] == nc[1]);
    for (PetscInt i = 0; *same && i <= n[0]; i++) *same = (PetscBool)(ia[0][i] == ia[1][i]);
    for (PetscInt q = 0; *same && q < ia[0][n[0]]; q++) *same = (PetscBool)(ja[0][q] == ja[1][q]);
    for (PetscInt c = 0; *same && d == 1 && c < nc[0]; c++) *same = (PetscBool)(garray[0][c] == garray[1][c]);
    for (PetscInt q = 0; *same && q < ia[0][n[0]]; q++) {
      *err     = PetscMax(*err, PetscAbsScalar(va[0][q] - va[1][q]));
      *bitwise = (PetscBool)(*bitwise && va[0][q] == va[1][q]);
    }
    for (int k = 0; k < 2; k++) {
      PetscCall(MatSeqAIJRestoreArrayRead(B[k][d], &va[k]));
      PetscCall(MatRestoreRowIJ(B[k][d], 0, PETSC_FALSE, PETSC_FALSE, &n[k], &ia[k], &ja[k], &done));
    }
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, same, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, bitwise, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, err, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gathered set-up on the GPU against the host's of the same aijcusparse matrix (-pc_afsai_setup host). */
static PetscErrorCode CompareSetups(Mat A, Vec b, PetscInt k)
{
  const char *where[2] = {"host", "device"};
  KSP         ksp[2];
  PC          pc;
  Mat         G[2];
  PetscInt    its[2];
  PetscBool   ongpu[2], same, bitwise;
  PetscReal   err;

  PetscFunctionBegin;
  for (int t = 0; t < 2; t++) {
    PetscCall(Solve(A, b, k, where[t], &its[t], &ksp[t]));
    PetscCall(KSPGetPC(ksp[t], &pc));
    PetscCall(TestPCViewHas(pc, "set-up on the GPU", &ongpu[t]));
    PetscCall(PCAFSAIGetFactor(pc, &G[t]));
  }
  PetscCall(CompareFactors(G[0], G[1], &same, &bitwise, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather %" PetscInt_FMT ": GPU set-up on the GPU: %s (host set-up: %s); same pattern as the host set-up: %s; values bitwise equal: %s; CG iterations equal: %s (%" PetscInt_FMT ")\n", k, ongpu[1] ? "yes" : "NO", ongpu[0] ? "GPU" : "host", same ? "yes" : "NO", bitwise ? "yes" : "NO", its[0] == its[1] ? "yes" : "NO", its[1]));
  PetscCall(PetscInfo(NULL, "gather %" PetscInt_FMT ": max |g_gpu - g_host| = %g\n", k, (double)err));
  for (int t = 0; t < 2; t++) PetscCall(KSPDestroy(&ksp[t]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   New values of the same pattern (2 A + I): the re-set-up keeps the pattern (searched on A) and recomputes the values,
   which must be those of the new matrix, diag(G (2 A + I) G^T) = I (old values left on the device would fail it); the
   iterations of a fresh set-up (its pattern searched on 2 A + I, so its G may differ).
*/
static PetscErrorCode Reuse(Mat A, Vec b, PetscInt k)
{
  KSP                ksp;
  PC                 pc;
  Mat                G;
  PetscInt           its, fresh, np, nv;
  KSPConvergedReason reason;
  PetscBool          lower;
  PetscReal          dev;

  PetscFunctionBegin;
  PetscCall(Solve(A, b, k, NULL, &its, &ksp));
  PetscCall(TestResolveNewValues(ksp, A, b, "AFSAIPattern", "AFSAIValues", &its, &reason, &np, &nv));
  PetscCall(Solve(A, b, k, NULL, &fresh, NULL));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCAFSAIGetFactor(pc, &G));
  PetscCall(CheckFactor(A, G, &lower, &dev));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather %" PetscInt_FMT ", new values of the same pattern: the re-set-up searched %" PetscInt_FMT " patterns, computed values %" PetscInt_FMT " times; diag(G A G^T) = I to 1e-12: %s; CG %" PetscInt_FMT " iterations (fresh set-up: %" PetscInt_FMT ")\n", k, np, nv, lower && dev <= 1e-12 ? "yes" : "NO", its, fresh));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat      A;
  Vec      b;
  char     desc[256];
  PetscInt  gathers[8] = {0, 1, 2, 16}, ng = 4, negrow = -1;
  PetscBool device = PETSC_FALSE, compare = PETSC_FALSE, reuse = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-gathers", gathers, &ng, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-negative_row", &negrow, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_setup", &compare, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-reuse", &reuse, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  if (negrow >= 0) {
    PetscInt rstart, rend;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    if (negrow >= rstart && negrow < rend) PetscCall(MatSetValue(A, negrow, negrow, -1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  if (compare || reuse) {
    for (PetscInt g = 0; g < ng; g++) {
      if (compare) PetscCall(CompareSetups(A, b, gathers[g]));
      if (reuse) PetscCall(Reuse(A, b, gathers[g]));
    }
    ng = 0;
  }
  for (PetscInt g = 0; g < ng; g++) {
    KSP       ksp;
    PC        pc;
    Mat       G;
    PetscInt  its;
    PetscBool lower;
    PetscReal dev;
    PetscCall(Solve(A, b, gathers[g], NULL, &its, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
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
    if (gathers[g] > 0 && device) {
      PetscBool ongpu, cusparse;
      PetscCall(TestPCViewHas(pc, "set-up on the GPU", &ongpu));
      PetscCall(PetscObjectTypeCompare((PetscObject)G, MATMPIAIJCUSPARSE, &cusparse));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather %" PetscInt_FMT ": set-up on the GPU: %s, G is mpiaijcusparse: %s\n", gathers[g], ongpu ? "yes" : "NO", cusparse ? "yes" : "NO"));
    }
    if (gathers[g] > 0) {
      PetscCall(CheckFactor(A, G, &lower, &dev));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather %" PetscInt_FMT ": G lower triangular: %s, diag(G A G^T) = I to 1e-12: %s, CG %" PetscInt_FMT " iterations\n", gathers[g], lower ? "yes" : "NO", dev <= 1e-12 ? "yes" : "NO", its));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "diagonal blocks: CG %" PetscInt_FMT " iterations\n", its));
    PetscCall(KSPDestroy(&ksp));
  }
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

  # the values-only re-set-up (same pattern, new values): the pattern kept, the values recomputed
  test:
    suffix: reuse
    nsize: {{1 3}shared output}
    args: -problem poisson7 -n 6 -gathers 2 -reuse

  # mpiaijcusparse (on 1 rank too, so the gathered path runs): the set-up on the GPU (the gathered rows uploaded, the
  # owned ones searched there), G and G^T mpiaijcusparse, the apply on the GPU: the host runs' iterations; against the
  # host set-up of the same matrix the same pattern and the same bits; a negative diagonal fails the PC on every rank;
  # the values-only re-set-up as on the host
  testset:
    requires: gpu
    args: -problem poisson7 -n 6 -mat_type mpiaijcusparse -use_gpu_aware_mpi 0
    test:
      suffix: gpu
      nsize: {{1 2 3}separate output}
      args: -gathers 1,2,16 -device
    test:
      suffix: gpu_cmp
      nsize: {{1 2 3}shared output}
      args: -gathers 1,2,16 -compare_setup
    test:
      suffix: gpu_notspd
      nsize: {{1 2 3}shared output}
      args: -gathers 2 -negative_row 150
    test:
      suffix: gpu_reuse
      nsize: {{1 3}shared output}
      args: -gathers 2 -reuse

TEST*/
