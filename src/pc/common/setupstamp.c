/*
   The matrix a PC was set up from, for the products with A that a PC fuses into its sweeps (sfilu's B A x and Richardson
   residual, sfdilu's Richardson residual). Those read A's current values but were laid out for its object and pattern at
   set-up, and they stand for the KSP's operator: so they serve only while the operator is the preconditioning matrix
   (not after KSPSetOperators(ksp, A2, A), which PETSc passes to the PC without a new set-up), the same object (not a new
   one under KSPSetReusePreconditioner(), which skips the set-up), with the same nonzero pattern.
*/
#include <sfpc/private/sfpcimpl.h>

/* A matrix's object and nonzero pattern now (SFPCMatStampSame(): still the same object and pattern). */
PetscErrorCode SFPCMatStampTake(Mat A, SFPCMatStamp *t)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &t->id));
  PetscCall(MatGetNonzeroState(A, &t->nonzerostate));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCMatStampSame(Mat A, const SFPCMatStamp *t, PetscBool *same)
{
  SFPCMatStamp now;

  PetscFunctionBegin;
  PetscCall(SFPCMatStampTake(A, &now));
  *same = (PetscBool)(now.id == t->id && now.nonzerostate == t->nonzerostate);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCSetUpStampTake(PC pc, SFPCMatStamp *t)
{
  PetscFunctionBegin;
  PetscCall(SFPCMatStampTake(pc->pmat, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCSetUpStampHolds(PC pc, const SFPCMatStamp *t, PetscBool *holds)
{
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(SFPCMatStampSame(pc->pmat, t, &same));
  *holds = (PetscBool)(pc->mat == pc->pmat && same);
  PetscFunctionReturn(PETSC_SUCCESS);
}
