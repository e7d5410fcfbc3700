/*
   PETSc's PCApply() checks its vectors' sizes against the preconditioning matrix; PCApplyTranspose(),
   PCApplySymmetricLeft/Right() and PCApplyRichardson() leave that to the PC. SFPC's sweeps index the vectors' arrays by
   the factor's rows, so a vector of another size is refused here before its array is taken (PETSc's message).
*/
#include <sfpc/private/sfpcimpl.h>
#include <petsc/private/pcimpl.h>

PetscErrorCode SFPCCheckApplySizes(PC pc, Vec x, Vec y)
{
  PetscInt m, n, mv, nv;

  PetscFunctionBegin;
  PetscCheck(pc->pmat, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "The PC has no operators: call PCSetOperators() or KSPSetOperators() first");
  PetscCall(MatGetLocalSize(pc->pmat, &m, &n));
  PetscCall(VecGetLocalSize(x, &mv));
  PetscCall(VecGetLocalSize(y, &nv));
  PetscCheck(mv == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Preconditioner number of local rows %" PetscInt_FMT " does not equal input vector size %" PetscInt_FMT, m, mv);
  PetscCheck(nv == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Preconditioner number of local columns %" PetscInt_FMT " does not equal output vector size %" PetscInt_FMT, n, nv);
  PetscFunctionReturn(PETSC_SUCCESS);
}
