/* The Richardson loop shared by SFPC's PCs (their PCApplyRichardson()), and the tolerance test of every SFPC Richardson loop. */
#include <sfpc/private/sfpcimpl.h>

/*
   Step k's norm against the tolerances, before the step's update. At k = 0 the reference r0 is fixed: the norm
   the caller put in t->rnorm0 (KSPConvergedDefault()'s with a nonzero guess: of M^{-1} b, or of b), or this first
   norm where that is 0 (a zero guess, or a right-hand side that gives 0, as KSPConvergedDefault() does then).
   Converged when rnorm <= max(rtol r0, abstol), diverged on Inf/NaN or rnorm >= dtol r0 (dtol > 0); otherwise
   *reason is left as it is.
*/
PetscErrorCode SFPCRichardsonTest(PC pc, SFPCRichardsonTol *t, PetscInt k, PetscReal rnorm, PCRichardsonConvergedReason *reason)
{
  PetscFunctionBegin;
  if (k == 0) {
    if (t->rnorm0 == 0) t->rnorm0 = rnorm;
    t->ttol = PetscMax(t->rtol * t->rnorm0, t->abstol);
  }
  if (rnorm <= t->ttol) {
    *reason = rnorm < t->abstol ? PCRICHARDSON_CONVERGED_ATOL : PCRICHARDSON_CONVERGED_RTOL;
    PetscCall(PetscInfo(pc, "Richardson converged at step %" PetscInt_FMT ": norm %g <= %g\n", k, (double)rnorm, (double)t->ttol));
  } else if (PetscIsInfOrNanReal(rnorm) || (t->dtol > 0 && rnorm >= t->dtol * t->rnorm0)) {
    *reason = PCRICHARDSON_DIVERGED_DTOL;
    PetscCall(PetscInfo(pc, "Richardson diverged at step %" PetscInt_FMT ": norm %g, first %g, dtol %g\n", k, (double)rnorm, (double)t->rnorm0, (double)t->dtol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Up to its steps of x += omega M^{-1} (b - A x), A = pc->mat; w holds the residual, r the correction; a zero guess skips
   the first residual. With test (SFPCRichardsonTests(): a solve by Richardson iterations) each step first tests the 2-norm
   of the correction M^{-1} (b - A x), KSPRICHARDSON's default norm, by SFPCRichardsonTest(), r0 being the norm of M^{-1} b
   as KSPConvergedDefault() takes it with a nonzero guess. Without it, a smoother's use, it runs its steps and computes no
   norm, as PCSOR's PCApplyRichardson() does. Its steps done without meeting the test end in PCRICHARDSON_CONVERGED_ITS,
   as PETSc's own PCApplyRichardson() implementations do.
*/
PetscErrorCode SFPCRichardsonSweeps(PC pc, PetscErrorCode (*apply)(PC, Vec, Vec), PetscReal omega, Vec b, Vec x, Vec w, Vec r, PetscInt its, PetscBool guesszero, PetscBool test, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  SFPCRichardsonTol tol = {rtol, abstol, dtol, 0, 0};
  PetscReal         rnorm;

  PetscFunctionBegin;
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  if (test && !guesszero) {
    PetscCall((*apply)(pc, b, r));
    PetscCall(VecNorm(r, NORM_2, &tol.rnorm0));
  }
  for (PetscInt k = 0; k < its; k++) {
    if (k == 0 && guesszero) PetscCall(VecCopy(b, w));
    else PetscCall(MatResidual(pc->mat, b, x, w));
    PetscCall((*apply)(pc, w, r));
    if (test) {
      PetscCall(VecNorm(r, NORM_2, &rnorm));
      PetscCall(SFPCRichardsonTest(pc, &tol, k, rnorm, reason));
      if (*reason != PCRICHARDSON_CONVERGED_ITS) {
        *outits = k;
        break;
      }
    }
    if (k == 0 && guesszero) PetscCall(VecAXPBY(x, omega, 0.0, r));
    else PetscCall(VecAXPY(x, omega, r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
