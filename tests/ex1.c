static char help[] = "Compares PCSFILU with PETSc's PCILU on one system: iterations and residual history.\n"
                     "Problem options as in problems.c; -refactor also changes the values (same pattern) and compares again.\n"
                     "-device: also runs PCSFILU on a seqaijcusparse copy with CUDA vectors (the GPU path), checks that it ran\n"
                     "on the GPU and that two solves give bitwise the same solution.\n"
                     "A run passes when it ends like PETSc's ILU, within one iteration, and -tol <t> bounds\n"
                     "|r_sfilu(k) - r_ilu(k)| / r_ilu(k) at every iteration k.\n";

#include <petscksp.h>
#include "problems.h"

#define MAXHIST 2000

typedef struct {
  const char *name;
  Mat         A;
  Vec         b, x;
  KSP         ksp;
  PetscReal   hist[MAXHIST];
  PetscInt    nhist;
} Run;

static PetscErrorCode RunCreate(const char *name, Mat A, PCType type, Run *run)
{
  PC pc;

  PetscFunctionBegin;
  run->name = name;
  run->A    = A;
  PetscCall(MatCreateVecs(A, &run->x, &run->b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &run->ksp));
  PetscCall(KSPSetOperators(run->ksp, A, A));
  PetscCall(KSPSetType(run->ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(run->ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, 1000));
  PetscCall(KSPSetFromOptions(run->ksp));
  PetscCall(KSPGetPC(run->ksp, &pc));
  PetscCall(PCSetType(pc, type));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(KSPSetResidualHistory(run->ksp, run->hist, MAXHIST, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunDestroy(Run *run)
{
  PetscFunctionBegin;
  PetscCall(KSPDestroy(&run->ksp));
  PetscCall(VecDestroy(&run->x));
  PetscCall(VecDestroy(&run->b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves A x = b from a zero guess, b = A xt. */
static PetscErrorCode RunSolve(Run *run, Vec xt)
{
  PetscFunctionBegin;
  PetscCall(VecCopy(xt, run->x)); /* xt may live elsewhere: copy through x, then b = A x */
  PetscCall(MatMult(run->A, run->x, run->b));
  PetscCall(VecZeroEntries(run->x));
  PetscCall(KSPSolve(run->ksp, run->b, run->x));
  PetscCall(KSPGetResidualHistory(run->ksp, NULL, &run->nhist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char *stage, Run *ref, Run *run, PetscReal tol, PetscBool *ok)
{
  KSPConvergedReason r1, r2;
  PetscInt           its1, its2;
  PetscReal          worst = 0;

  PetscFunctionBegin;
  PetscCall(KSPGetConvergedReason(ref->ksp, &r1));
  PetscCall(KSPGetConvergedReason(run->ksp, &r2));
  PetscCall(KSPGetIterationNumber(ref->ksp, &its1));
  PetscCall(KSPGetIterationNumber(run->ksp, &its2));
  for (PetscInt k = 0; k < PetscMin(ref->nhist, run->nhist); k++) worst = PetscMax(worst, PetscAbsReal(run->hist[k] - ref->hist[k]) / ref->hist[k]);
  *ok = (PetscBool)(*ok && r1 == r2 && PetscAbsInt(its1 - its2) <= 1 && worst <= tol);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s %s in %" PetscInt_FMT " iterations, %s %s in %" PetscInt_FMT "\n", stage, ref->name, KSPConvergedReasons[r1], its1, run->name, KSPConvergedReasons[r2], its2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s residual history agrees to the tolerance: %s\n", stage, run->name, worst <= tol ? "yes" : "NO"));
  PetscCall(PetscInfo(NULL, "%s: largest relative residual difference %g\n", run->name, (double)worst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EventCount(const char *name, PetscInt *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device run: its PC says it works on the GPU, and a second solve reproduces the solution bit for bit. */
static PetscErrorCode CheckDeviceRun(Run *run, Vec xt, PetscBool *ok)
{
  PC                 pc;
  PetscViewer        sv;
  char               view[4096] = "";
  Vec                first;
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscBool          same;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(run->ksp, &pc));
  PetscCall(PetscViewerStringOpen(PETSC_COMM_SELF, view, sizeof(view), &sv));
  PetscCall(PCView(pc, sv));
  PetscCall(PetscViewerDestroy(&sv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s factored on the GPU: %s\n", run->name, strstr(view, "on the GPU") ? "yes" : "NO"));
  PetscCall(VecDuplicate(run->x, &first));
  PetscCall(VecCopy(run->x, first));
  PetscCall(RunSolve(run, xt));
  PetscCall(VecGetLocalSize(first, &n));
  PetscCall(VecGetArrayRead(first, &a));
  PetscCall(VecGetArrayRead(run->x, &b));
  same = (PetscBool)!memcmp(a, b, n * sizeof(PetscScalar));
  PetscCall(VecRestoreArrayRead(run->x, &b));
  PetscCall(VecRestoreArrayRead(first, &a));
  PetscCall(VecDestroy(&first));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s repeated solve bitwise identical: %s\n", run->name, same ? "yes" : "NO"));
  *ok = (PetscBool)(*ok && same && strstr(view, "on the GPU"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, Ad = NULL;
  Vec         xt;
  Run        *ilu, *sf, *sfd = NULL;
  PetscRandom rnd;
  PetscReal   tol = 1e-6;
  PetscBool   refactor = PETSC_FALSE, device = PETSC_FALSE, ok = PETSC_TRUE;
  char        desc[256];
  PetscInt    nsym, nnum;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-refactor", &refactor, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(MatCreateVecs(A, &xt, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 42));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));

  PetscCall(PetscCalloc1(1, &ilu));
  PetscCall(PetscCalloc1(1, &sf));
  PetscCall(RunCreate("ilu", A, PCILU, ilu));
  PetscCall(RunCreate("sfilu", A, "sfilu", sf));
  if (device) {
    PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
    PetscCall(PetscCalloc1(1, &sfd));
    PetscCall(RunCreate("sfilu-gpu", Ad, "sfilu", sfd));
  }
  for (PetscInt stage = 0; stage < (refactor ? 2 : 1); stage++) {
    const char *name = stage ? "refactored" : "first";

    if (stage) { /* new values, same pattern: only the numeric factorization may rerun */
      PetscCall(MatScale(A, 2.0));
      PetscCall(MatShift(A, 1.0));
      if (Ad) {
        PetscCall(MatScale(Ad, 2.0));
        PetscCall(MatShift(Ad, 1.0));
      }
    }
    PetscCall(RunSolve(ilu, xt));
    PetscCall(RunSolve(sf, xt));
    PetscCall(Compare(name, ilu, sf, tol, &ok));
    if (sfd) {
      PetscCall(RunSolve(sfd, xt));
      PetscCall(Compare(name, ilu, sfd, tol, &ok));
      PetscCall(CheckDeviceRun(sfd, xt, &ok));
    }
  }
  PetscCall(EventCount("SFILUSymbolic", &nsym));
  PetscCall(EventCount("SFILUNumeric", &nnum));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "sfilu symbolic factorizations %" PetscInt_FMT ", numeric %" PetscInt_FMT "\n", nsym, nnum));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", ok ? "PASS" : "FAIL"));

  PetscCall(RunDestroy(ilu));
  PetscCall(RunDestroy(sf));
  PetscCall(PetscFree(ilu));
  PetscCall(PetscFree(sf));
  if (sfd) PetscCall(RunDestroy(sfd));
  PetscCall(PetscFree(sfd));
  PetscCall(MatDestroy(&Ad));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&xt));
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
      suffix: poisson7
      args: -problem poisson7 -n 20
    test:
      suffix: poisson7_refactor
      args: -problem poisson7 -n 12 -refactor
    test:
      suffix: poisson27
      args: -problem poisson27 -n 12
    test:
      suffix: aniso
      args: -problem anisotropic -n 14 -aniso 0.001
    test:
      suffix: convdiff
      args: -problem convdiff -n 16 -peclet {{0.1 10}separate output} -ksp_gmres_restart 100
    test:
      suffix: poisson7_permuted
      args: -problem poisson7 -n 12 -permute 7
    test:
      suffix: convdiff_permuted
      args: -problem convdiff -n 12 -peclet 5 -permute 3 -ksp_gmres_restart 100
    # PETSc's ILU uses its inode variant on these block-structured matrices by default: the same
    # factorization with other rounding, which GMRES amplifies on such ill-conditioned systems.
    test:
      suffix: bcsstk16
      args: -problem file -f ${sfpc_dir}/tests/data/bcsstk16.mtx.gz -ksp_gmres_restart 200 -mat_no_inode
    test:
      suffix: bcsstk26
      args: -problem file -f ${sfpc_dir}/tests/data/bcsstk26.mtx.gz -ksp_gmres_restart 200 -mat_no_inode
    test:
      suffix: bcsstk28
      args: -problem file -f ${sfpc_dir}/tests/data/bcsstk28.mtx.gz -ksp_gmres_restart 200 -mat_no_inode

TEST*/
