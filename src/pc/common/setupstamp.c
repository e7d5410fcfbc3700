/*
   The matrix a PC was set up from, for the products with A that a PC fuses into its sweeps (sfilu's B A x and Richardson
   residual, sfdilu's Richardson residual). Those read A's current values but were laid out for its object and pattern at
   set-up, and they stand for the KSP's operator: so they serve only while the operator is the preconditioning matrix
   (not after KSPSetOperators(ksp, A2, A), which PETSc passes to the PC without a new set-up), the same object (not a new
   one under KSPSetReusePreconditioner(), which skips the set-up), with the same nonzero pattern.
*/
#include <sfpc/private/sfpcimpl.h>

PetscErrorCode SFPCSetUpStampTake(PC pc, SFPCSetUpStamp *t)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &t->id));
  PetscCall(MatGetNonzeroState(pc->pmat, &t->nonzerostate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCSetUpStampHolds(PC pc, const SFPCSetUpStamp *t, PetscBool *holds)
{
  PetscObjectId    id;
  PetscObjectState nz;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &id));
  PetscCall(MatGetNonzeroState(pc->pmat, &nz));
  *holds = (PetscBool)(pc->mat == pc->pmat && id == t->id && nz == t->nonzerostate);
  PetscFunctionReturn(PETSC_SUCCESS);
}
