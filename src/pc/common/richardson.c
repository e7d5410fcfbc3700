/* The Richardson loop shared by SFPC's PCs (their PCApplyRichardson()). */
#include <sfpc/private/sfpcimpl.h>

/*
   Up to its steps of x += omega M^{-1} (b - A x), A = pc->mat; w holds the residual, r the correction; a zero guess skips
   the first residual. With rtol > 0 (a solve by Richardson iterations) each step first tests the 2-norm of the correction
   M^{-1} (b - A x), KSPRICHARDSON's default norm, against max(rtol r0, abstol) and dtol r0, r0 being the norm of
   M^{-1} b as KSPConvergedDefault() takes it (with a zero guess, the first correction's). With rtol 0, a smoother's use
   (PCMG gives its smoothers rtol 0), it runs its steps and computes no norm. Its steps done without meeting the test end
   in PCRICHARDSON_CONVERGED_ITS, as PETSc's own PCApplyRichardson() implementations do.
*/
PetscErrorCode SFPCRichardsonSweeps(PC pc, PetscErrorCode (*apply)(PC, Vec, Vec), PetscReal omega, Vec b, Vec x, Vec w, Vec r, PetscInt its, PetscBool guesszero, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  const PetscBool test = (PetscBool)(rtol > 0);
  PetscReal       rnorm, rnorm0 = 0, ttol = 0;

  PetscFunctionBegin;
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  if (test && !guesszero) {
    PetscCall((*apply)(pc, b, r));
    PetscCall(VecNorm(r, NORM_2, &rnorm0));
  }
  for (PetscInt k = 0; k < its; k++) {
    if (k == 0 && guesszero) PetscCall(VecCopy(b, w));
    else PetscCall(MatResidual(pc->mat, b, x, w));
    PetscCall((*apply)(pc, w, r));
    if (test) {
      PetscCall(VecNorm(r, NORM_2, &rnorm));
      if (k == 0) {
        if (guesszero) rnorm0 = rnorm;
        ttol = PetscMax(rtol * rnorm0, abstol);
      }
      if (rnorm <= ttol) *reason = rnorm < abstol ? PCRICHARDSON_CONVERGED_ATOL : PCRICHARDSON_CONVERGED_RTOL;
      else if (PetscIsInfOrNanReal(rnorm) || (dtol > 0 && rnorm >= dtol * rnorm0)) *reason = PCRICHARDSON_DIVERGED_DTOL;
      if (*reason != PCRICHARDSON_CONVERGED_ITS) {
        PetscCall(PetscInfo(pc, "Richardson stopped at step %" PetscInt_FMT ": norm %g, first %g (%s)\n", k, (double)rnorm, (double)rnorm0, *reason == PCRICHARDSON_DIVERGED_DTOL ? "diverged" : "converged"));
        *outits = k;
        break;
      }
    }
    if (k == 0 && guesszero) PetscCall(VecAXPBY(x, omega, 0.0, r));
    else PetscCall(VecAXPY(x, omega, r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
