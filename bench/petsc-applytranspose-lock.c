static char help[] = "Reproducer for a PETSc report, PETSc alone (no SFPC call): a PCApplyTranspose() that fails leaves its input\n"
                     "vector read-locked. On a diagonal matrix of order -n (default 10): PCApplyTranspose() with (1) a PCSHELL\n"
                     "without a transpose apply, (2) a PCJACOBI and an output vector of the wrong length; then PCApply() with\n"
                     "(3) the same PCJACOBI and vectors, (4) a PCSHELL without an apply. Each error is caught\n"
                     "(PetscReturnErrorHandler); the input's lock count (VecLockGet()) is printed and a VecSet() on it is tried\n"
                     "(error 73 is PETSC_ERR_ARG_WRONGSTATE, the lock).\n";

#include <petscpc.h>

static PetscErrorCode ShellApply(PC pc, Vec x, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(VecCopy(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Calls PCApply() (transpose false) or PCApplyTranspose() expecting an error, then reports on x */
static PetscErrorCode Try(PC pc, PetscBool transpose, Vec x, Vec y, const char *what)
{
  PetscErrorCode ierr, ierrset;
  PetscInt       lock;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr    = transpose ? PCApplyTranspose(pc, x, y) : PCApply(pc, x, y);
  ierrset = VecSet(x, 1.0);
  PetscCall(PetscPopErrorHandler());
  PetscCall(VecLockGet(x, &lock));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: error %d; then x's lock count is %" PetscInt_FMT " and VecSet(x) returns %d\n", what, (int)ierr, lock, (int)ierrset));
  while (lock-- > 0) PetscCall(VecLockReadPop(x)); /* undo the leftover lock: each case starts from an unlocked x */
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat      A;
  Vec      x, y, yshort;
  PC       pc;
  PetscInt n = 10;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 1, NULL, 0, NULL, &A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(y, 2.0));
  PetscCall(MatDiagonalSet(A, y, INSERT_VALUES));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecCreateFromOptions(PETSC_COMM_WORLD, NULL, 1, PETSC_DECIDE, n + 1, &yshort));

  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetApply(pc, ShellApply)); /* and no PCShellSetApplyTranspose() */
  PetscCall(PCSetUp(pc));
  PetscCall(Try(pc, PETSC_TRUE, x, y, "PCApplyTranspose(), PCSHELL without a transpose"));

  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(PCSetUp(pc));
  PetscCall(Try(pc, PETSC_TRUE, x, yshort, "PCApplyTranspose(), PCJACOBI, y of length n+1"));
  PetscCall(Try(pc, PETSC_FALSE, x, yshort, "PCApply(), PCJACOBI, y of length n+1"));

  PetscCall(PCSetType(pc, PCSHELL)); /* a new shell, this time without any apply */
  PetscCall(PCSetUp(pc));
  PetscCall(Try(pc, PETSC_FALSE, x, y, "PCApply(), PCSHELL without an apply"));

  PetscCall(PCDestroy(&pc));
  PetscCall(VecDestroy(&yshort));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
