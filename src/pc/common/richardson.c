/* The Richardson loop shared by SFPC's PCs (their PCApplyRichardson()), and the tolerance test of every SFPC Richardson loop. */
#include <sfpc/private/sfpcimpl.h>
#include <petscksp.h>

/*
   PCRichardsonConvergedReason has no reason for a failed PC nor for an Inf/NaN norm. Both of PETSc's callers of
   PCApplyRichardson() (KSPSolve_Richardson() and its KSPMatSolve()) cast the reason to KSPConvergedReason, whose
   values the PC's enum shares, so those two are given as the KSP's.
*/
static inline PCRichardsonConvergedReason RichardsonReason(KSPConvergedReason r)
{
  return (PCRichardsonConvergedReason)r;
}

/*
   Step k's norm against the tolerances, before the step's update. At k = 0 the reference r0 is fixed: the norm
   the caller put in t->rnorm0 (KSPConvergedDefault()'s with a nonzero guess: of M^{-1} b, or of b), or this first
   norm where that is 0 (a zero guess, or a right-hand side that gives 0, as KSPConvergedDefault() does then).
   An Inf or NaN norm is tested first, as KSPConvergedDefault() does (an Inf first norm would otherwise meet its own
   Inf tolerance): KSP_DIVERGED_PC_FAILED where the PC failed, else KSP_DIVERGED_NANORINF (see RichardsonReason()).
   Then converged when rnorm <= max(rtol r0, abstol), diverged when rnorm >= dtol r0 (dtol > 0); otherwise *reason is
   left as it is.
*/
PetscErrorCode SFPCRichardsonTest(PC pc, SFPCRichardsonTol *t, PetscInt k, PetscReal rnorm, PCRichardsonConvergedReason *reason)
{
  PetscFunctionBegin;
  if (k == 0) {
    if (t->rnorm0 == 0) t->rnorm0 = rnorm;
    t->ttol = PetscMax(t->rtol * t->rnorm0, t->abstol);
  }
  if (PetscIsInfOrNanReal(rnorm)) {
    PCFailedReason failed;

    PetscCall(PCGetFailedReason(pc, &failed));
    *reason = RichardsonReason(failed ? KSP_DIVERGED_PC_FAILED : KSP_DIVERGED_NANORINF);
    PetscCall(PetscInfo(pc, "Richardson stopped at step %" PetscInt_FMT ": norm %g\n", k, (double)rnorm));
  } else if (rnorm <= t->ttol) {
    *reason = rnorm < t->abstol ? PCRICHARDSON_CONVERGED_ATOL : PCRICHARDSON_CONVERGED_RTOL;
    PetscCall(PetscInfo(pc, "Richardson converged at step %" PetscInt_FMT ": norm %g <= %g\n", k, (double)rnorm, (double)t->ttol));
  } else if (t->dtol > 0 && rnorm >= t->dtol * t->rnorm0) {
    *reason = PCRICHARDSON_DIVERGED_DTOL;
    PetscCall(PetscInfo(pc, "Richardson diverged at step %" PetscInt_FMT ": norm %g, first %g, dtol %g\n", k, (double)rnorm, (double)t->rnorm0, (double)t->dtol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A PC whose set-up failed runs no step, tested or not, and ends in KSP_DIVERGED_PC_FAILED, where KSPRICHARDSON's own
   loop stops at its first norm (which the failed apply makes Inf) or, untested, runs its steps into Inf and reports
   KSP_CONVERGED_ITS. x gets Inf, as the failed apply's output does, so that a caller that reads no reason (PCMG's
   smoothers) still passes the failure on. Reads pc->failedreason, which the PCs reduce over the ranks at set-up, so
   every rank returns here or none does (the steps' residuals are collective).
*/
PetscErrorCode SFPCRichardsonSetUpFailed(PC pc, Vec x, PetscInt *outits, PCRichardsonConvergedReason *reason, PetscBool *failed)
{
  PCFailedReason why;

  PetscFunctionBegin;
  PetscCall(PCGetFailedReason(pc, &why));
  *failed = (PetscBool)(why != PC_NOERROR);
  if (*failed) {
    PetscCall(VecFlag(x, 1));
    *outits = 0;
    *reason = RichardsonReason(KSP_DIVERGED_PC_FAILED);
    PetscCall(PetscInfo(pc, "Richardson: the PC's set-up failed (%s); no step run\n", PCFailedReasons[why]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_<type>_richardson_norm, the norm a tested PCApplyRichardson() measures (SFPCRichardsonNorm); man names the PC's manual page. */
PetscErrorCode SFPCRichardsonNormOption(PetscOptionItems PetscOptionsObject, const char name[], const char man[], SFPCRichardsonNorm *norm)
{
  const char *norms[] = {"preconditioned", "unpreconditioned", "1"};
  PetscInt    k       = (PetscInt)*norm;

  PetscFunctionBegin;
  PetscCall(PetscOptionsEList(name, "Norm a Richardson iteration that tests the KSP's tolerances measures: 2-norm of M^{-1}(b - A x) (KSPRICHARDSON's default), 2-norm of b - A x (as -ksp_norm_type unpreconditioned), or its 1-norm (the SIP papers')", man, norms, 3, norms[k], &k, NULL));
  *norm = (SFPCRichardsonNorm)k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The reference r0 of a tested loop, as KSPConvergedDefault() takes it: with a nonzero guess the 2-norm of M^{-1} b (the
   preconditioned norm; r gets M^{-1} b, applied by apply) or of b; 0 with a zero guess or for the 1-norm, whose reference
   is the first step's norm (SFPCRichardsonTest()).
*/
PetscErrorCode SFPCRichardsonReference(PC pc, PetscErrorCode (*apply)(PC, Vec, Vec), SFPCRichardsonNorm norm, PetscBool guesszero, Vec b, Vec r, PetscReal *rnorm0)
{
  PetscFunctionBegin;
  *rnorm0 = 0;
  if (guesszero || norm == SFPC_RICHARDSON_NORM_1) PetscFunctionReturn(PETSC_SUCCESS);
  if (norm == SFPC_RICHARDSON_NORM_PRECONDITIONED) {
    PetscCall((*apply)(pc, b, r));
    PetscCall(VecNorm(r, NORM_2, rnorm0));
  } else PetscCall(VecNorm(b, NORM_2, rnorm0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Up to its steps of x += omega M^{-1} (b - A x), A = pc->mat; w holds the residual, r the correction; a zero guess skips
   the first residual. With test (SFPCRichardsonTests(): a solve by Richardson iterations) each step first tests, by
   SFPCRichardsonTest(), the norm says: the 2-norm of the correction M^{-1} (b - A x), KSPRICHARDSON's default, r0 being
   the norm of M^{-1} b as KSPConvergedDefault() takes it with a nonzero guess; or the 2-norm of b - A x, r0 then that
   of b (as KSPConvergedDefault() under -ksp_norm_type unpreconditioned); or its 1-norm, r0 the first one (as
   SFPCKSPConvergedResidual1Norm()). Without test, a smoother's use, it runs its steps and computes no norm, as PCSOR's
   PCApplyRichardson() does. Its steps done without meeting the test end in PCRICHARDSON_CONVERGED_ITS, as PETSc's own
   PCApplyRichardson() implementations do.
*/
PetscErrorCode SFPCRichardsonSweeps(PC pc, PetscErrorCode (*apply)(PC, Vec, Vec), PetscReal omega, Vec b, Vec x, Vec w, Vec r, PetscInt its, PetscBool guesszero, PetscBool test, SFPCRichardsonNorm norm, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  SFPCRichardsonTol tol = {rtol, abstol, dtol, 0, 0};
  const PetscBool   pre = (PetscBool)(norm == SFPC_RICHARDSON_NORM_PRECONDITIONED);
  PetscReal         rnorm;

  PetscFunctionBegin;
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  {
    PetscBool failed;
    PetscCall(SFPCRichardsonSetUpFailed(pc, x, outits, reason, &failed));
    if (failed) PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (test) PetscCall(SFPCRichardsonReference(pc, apply, norm, guesszero, b, r, &tol.rnorm0));
  for (PetscInt k = 0; k < its; k++) {
    if (k == 0 && guesszero) PetscCall(VecCopy(b, w));
    else PetscCall(MatResidual(pc->mat, b, x, w));
    if (test) {
      if (pre) {
        PetscCall((*apply)(pc, w, r));
        PetscCall(VecNorm(r, NORM_2, &rnorm));
      } else PetscCall(VecNorm(w, norm == SFPC_RICHARDSON_NORM_1 ? NORM_1 : NORM_2, &rnorm)); /* before the apply, which a stop makes useless */
      PetscCall(SFPCRichardsonTest(pc, &tol, k, rnorm, reason));
      if (*reason != PCRICHARDSON_CONVERGED_ITS) {
        *outits = k;
        break;
      }
    }
    if (!test || !pre) PetscCall((*apply)(pc, w, r));
    if (k == 0 && guesszero) PetscCall(VecAXPBY(x, omega, 0.0, r));
    else PetscCall(VecAXPY(x, omega, r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
