static char help[] = "Refused input that must leave the PC and the caller's data as they were:\n"
                     "  - a vector of the wrong size given to each apply PETSc does not check itself (PCApplyTranspose(),\n"
                     "    PCApplySymmetricLeft/Right(), PCApplyRichardson()): PETSC_ERR_ARG_SIZ, and the next correct call gives\n"
                     "    the same result bit for bit as one made before;\n"
                     "  - a KSPSolve() with Eisenstat's form that stops on an error (a NaN initial guess under\n"
                     "    KSPSetErrorIfNotConverged()): the caller's b unchanged, and a retry from a zero guess converges for b;\n"
                     "  - Eisenstat's form with b read-locked (a KSP inside PCKSP or a PCSHELL, PCBJACOBI's block): taken, b\n"
                     "    unchanged, A x = b solved; under KSPPREONLY (no operator to save) the plain PC, bit for bit;\n"
                     "  - MatConvert() to MATHYBSF with four sizes for -mat_hybsf_grid: refused.\n"
                     "Problem options of tests/problems.c; -mat_type aijcusparse for the GPU.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

typedef enum {
  OP_TRANSPOSE,
  OP_LEFT,
  OP_RIGHT,
  OP_RICHARDSON
} Op;
static const char *const OpNames[] = {"PCApplyTranspose", "PCApplySymmetricLeft", "PCApplySymmetricRight", "PCApplyRichardson"};

static PetscErrorCode CallOp(PC pc, Op op, Vec x, Vec y, Vec w)
{
  PetscInt                    its;
  PCRichardsonConvergedReason reason;

  PetscFunctionBegin;
  switch (op) {
  case OP_TRANSPOSE:
    PetscCall(PCApplyTranspose(pc, x, y));
    break;
  case OP_LEFT:
    PetscCall(PCApplySymmetricLeft(pc, x, y));
    break;
  case OP_RIGHT:
    PetscCall(PCApplySymmetricRight(pc, x, y));
    break;
  case OP_RICHARDSON:
    PetscCall(VecZeroEntries(y));
    PetscCall(PCApplyRichardson(pc, x, y, w, 0, 0, 1e300, 2, PETSC_TRUE, &its, &reason));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Values that are the same on every run and machine */
static PetscErrorCode FillVec(Vec v)
{
  PetscScalar *a;
  PetscInt     n, r0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetOwnershipRange(v, &r0, NULL));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = 0.5 + (PetscReal)(((unsigned long long)(r0 + i + 1) * 2654435761ULL) % 1024) / 1024.0;
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each op of a set-up PC of type pt (the symmetric sides where it has them): a reference result, the op with a short output (then input) vector, the op again. */
static PetscErrorCode WrongSizes(Mat A, const char *pt, PetscBool symmetric)
{
  PC        pc;
  Vec       x, y, y0, w, s;
  PetscBool hasrich;

  PetscFunctionBegin;
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApplyRichardsonExists(pc, &hasrich));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &y0));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(FillVec(x));
  for (Op op = OP_TRANSPOSE; op <= OP_RICHARDSON; op++) {
    PetscErrorCode eout, ein;
    PetscBool      same;
    VecType        type;

    if ((op == OP_RICHARDSON && !hasrich) || ((op == OP_LEFT || op == OP_RIGHT) && !symmetric)) continue;
    PetscCall(CallOp(pc, op, x, y0, w));
    PetscCall(VecGetType(x, &type));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)x), &s)); /* new each time: PETSc leaves a refused input read-locked */
    PetscCall(VecSetSizes(s, 2, PETSC_DECIDE));
    PetscCall(VecSetType(s, type));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    eout = CallOp(pc, op, x, s, w);
    ein  = CallOp(pc, op, s, y, w);
    PetscCall(PetscPopErrorHandler());
    PetscCall(VecDestroy(&s));
    PetscCall(CallOp(pc, op, x, y, w));
    PetscCall(TestVecSameBits(y, y0, &same));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: short output %s, short input %s; then the same result as before: %s\n", pt, OpNames[op], eout == PETSC_ERR_ARG_SIZ ? "refused (size)" : "NOT REFUSED", ein == PETSC_ERR_ARG_SIZ ? "refused (size)" : "NOT REFUSED", same ? "yes" : "NO"));
  }
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&x));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   For an Eisenstat case: option opt set, x and b (b filled, b0 a copy of it), and a KSP of type kt on A with PC type pt to
   rtol 1e-10, options not yet read (the caller adds its settings first).
*/
static PetscErrorCode EisenstatSetUp(Mat A, const char *pt, const char *opt, KSPType kt, Vec *x, Vec *b, Vec *b0, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, opt, "true"));
  PetscCall(MatCreateVecs(A, x, b));
  PetscCall(VecDuplicate(*b, b0));
  PetscCall(FillVec(*b));
  PetscCall(VecCopy(*b, *b0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, kt));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What EisenstatSetUp() made, and the option cleared. */
static PetscErrorCode EisenstatTearDown(const char *opt, Vec *x, Vec *b, Vec *b0, KSP *ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPDestroy(ksp));
  PetscCall(VecDestroy(x));
  PetscCall(VecDestroy(b0));
  PetscCall(VecDestroy(b));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether ||b - A x|| <= 1e-8 ||b||. */
static PetscErrorCode Solves(Mat A, Vec b, Vec x, PetscBool *solves)
{
  Vec       r;
  PetscReal rn, bn;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(VecDestroy(&r));
  *solves = (PetscBool)(rn <= 1e-8 * bn);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPSolve() with Eisenstat's form (option opt) from a NaN guess, stopped by KSPSetErrorIfNotConverged(); then from zero. */
static PetscErrorCode EisenstatError(Mat A, const char *pt, const char *opt)
{
  KSP            ksp;
  Vec            b, b0, x;
  PetscErrorCode e;
  PetscBool      same, solves;

  PetscFunctionBegin;
  PetscCall(EisenstatSetUp(A, pt, opt, KSPCG, &x, &b, &b0, &ksp));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, NAN));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  e = KSPSolve(ksp, b, x);
  PetscCall(PetscPopErrorHandler());
  PetscCall(TestVecSameBits(b, b0, &same));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s with %s, a NaN guess: %s; b unchanged: %s\n", pt, opt, e == PETSC_ERR_NOT_CONVERGED ? "PETSC_ERR_NOT_CONVERGED" : "ANOTHER OUTCOME", same ? "yes" : "NO"));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(TestVecSameBits(b, b0, &same));
  PetscCall(Solves(A, b0, x, &solves));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  then from zero: ||b - A x|| / ||b|| below 1e-8: %s; b unchanged: %s\n", solves ? "yes" : "NO", same ? "yes" : "NO"));
  PetscCall(EisenstatTearDown(opt, &x, &b, &b0, &ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Notes, at each monitor call, whether the KSP's operator is a MATSHELL (the form's). */
static PetscErrorCode ShellMonitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  Mat       Aop;
  PetscBool isshell;

  PetscFunctionBegin;
  (void)it;
  (void)rnorm;
  PetscCall(KSPGetOperators(ksp, &Aop, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)Aop, MATSHELL, &isshell));
  *(PetscBool *)ctx = isshell;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Eisenstat's form with a right-hand side locked read-only, as a KSP solved inside another PC's apply (PCKSP, PCSHELL)
   or PCBJACOBI's block gets it: the form is taken (it only reads b), b is unchanged and x solves A x = b. A preonly KSP,
   which never applies the operator, runs the plain PC: x is its apply bit for bit.
*/
static PetscErrorCode EisenstatLockedRhs(Mat A, const char *pt, const char *opt)
{
  KSP       ksp;
  PC        pc;
  Vec       b, b0, x, y;
  PetscBool same, shell = PETSC_FALSE, plain, solves;

  PetscFunctionBegin;
  PetscCall(EisenstatSetUp(A, pt, opt, KSPGMRES, &x, &b, &b0, &ksp));
  PetscCall(KSPMonitorSet(ksp, ShellMonitor, &shell, NULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecLockReadPush(b));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(VecLockReadPop(b));
  PetscCall(TestVecSameBits(b, b0, &same));
  PetscCall(Solves(A, b0, x, &solves));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s with %s, b read-locked: the form taken: %s; b unchanged: %s; ||b - A x|| / ||b|| below 1e-8: %s\n", pt, opt, shell ? "yes" : "NO", same ? "yes" : "NO", solves ? "yes" : "NO"));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PCApply(pc, b, y));
  PetscCall(TestVecSameBits(x, y, &plain));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  preonly: x is the plain apply bit for bit: %s\n", plain ? "yes" : "NO"));
  PetscCall(VecDestroy(&y));
  PetscCall(EisenstatTearDown(opt, &x, &b, &b0, &ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FourGridSizes(Mat A)
{
  Mat            T = NULL;
  PetscErrorCode e;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-mat_hybsf_grid", "4,4,1,9"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  e = MatConvert(A, MATHYBSF, MAT_INITIAL_MATRIX, &T);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-mat_hybsf_grid 4,4,1,9: %s\n", e == PETSC_ERR_ARG_OUTOFRANGE ? "refused (out of range)" : "NOT REFUSED"));
  PetscCall(MatDestroy(&T));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_hybsf_grid"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat  A;
  char desc[256];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  PetscCall(WrongSizes(A, PCSFILU, PETSC_TRUE));
  PetscCall(WrongSizes(A, PCSFDILU, PETSC_FALSE));
  PetscCall(WrongSizes(A, PCAFSAI, PETSC_TRUE));
  PetscCall(EisenstatError(A, PCSFILU, "-pc_sfilu_eisenstat"));
  PetscCall(EisenstatError(A, PCSFDILU, "-pc_sfdilu_eisenstat"));
  PetscCall(EisenstatLockedRhs(A, PCSFILU, "-pc_sfilu_eisenstat"));
  PetscCall(EisenstatLockedRhs(A, PCSFDILU, "-pc_sfdilu_eisenstat"));
  PetscCall(FourGridSizes(A));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  test:
    suffix: host
    args: -problem poisson7 -n 5 -malloc_debug -malloc_dump

  test:
    suffix: gpu
    requires: gpu
    args: -problem poisson7 -n 5 -mat_type aijcusparse -use_gpu_aware_mpi 0
    output_file: output/ex18_host.out

TEST*/
