/* The Richardson smoother loop shared by SFPC's PCs (their PCApplyRichardson()). */
#include <sfpc/private/sfpcimpl.h>

/*
   its steps of x += omega M^{-1} (b - A x), A = pc->mat, with no convergence test: the smoother's use
   (KSP norm type none). w holds the residual, r the correction; a zero guess skips the first residual.
*/
PetscErrorCode SFPCRichardsonSweeps(PC pc, PetscErrorCode (*apply)(PC, Vec, Vec), PetscReal omega, Vec b, Vec x, Vec w, Vec r, PetscInt its, PetscBool guesszero)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < its; k++) {
    if (k == 0 && guesszero) PetscCall(VecCopy(b, w));
    else PetscCall(MatResidual(pc->mat, b, x, w));
    PetscCall((*apply)(pc, w, r));
    if (k == 0 && guesszero) PetscCall(VecAXPBY(x, omega, 0.0, r));
    else PetscCall(VecAXPY(x, omega, r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
