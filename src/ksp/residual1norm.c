/*
   The stopping test of SIP codes (Stone 1968; Ferziger and Peric's SIPSOL; the SIP papers of
   shared/notes/seed-003-004-sip.md): the 1-norm of the true residual b - A x, relative to the
   1-norm of the first one. PETSc's own tests measure 2-norms, so this is a convergence test of
   its own, usable with any KSP.
*/
#include <sfpc.h>
#include <petsc/private/kspimpl.h>

typedef struct {
  PetscReal *hist;  /* 1-norms of the residuals of the current solve */
  PetscInt   n, na; /* recorded, allocated */
  Vec        t, v;  /* work of KSPBuildResidual(), for KSPs other than Richardson */
} Residual1Norm;

static PetscErrorCode Residual1NormDestroy(PetscCtxRt ctx)
{
  Residual1Norm *c = *(Residual1Norm **)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree(c->hist));
  PetscCall(VecDestroy(&c->t));
  PetscCall(VecDestroy(&c->v));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The residual b - A x of the current iterate, and whether it is the KSP's own (no extra work). */
static PetscErrorCode Residual1NormResidual(KSP ksp, Residual1Norm *c, Vec *r)
{
  PetscBool rich;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPRICHARDSON, &rich));
  if (rich && ksp->nwork >= 1) {
    /* KSPRICHARDSON calls the test right after forming r = b - A x in its first work vector
       (rich.c, every norm type): reading it saves a MatMult per iteration, which is what the SIP
       iteration costs most after the sweeps. */
    *r = ksp->work[0];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (c->t) { /* the KSP may have been reset to another size since the last solve */
    PetscInt n1, n2;
    PetscCall(VecGetSize(c->t, &n1));
    PetscCall(VecGetSize(ksp->vec_rhs, &n2));
    if (n1 != n2) {
      PetscCall(VecDestroy(&c->t));
      PetscCall(VecDestroy(&c->v));
    }
  }
  if (!c->t) {
    PetscCall(VecDuplicate(ksp->vec_rhs, &c->t));
    PetscCall(VecDuplicate(ksp->vec_rhs, &c->v));
  }
  PetscCall(KSPBuildResidual(ksp, c->t, c->v, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SFPCKSPConvergedResidual1Norm - Convergence test on the 1-norm of the true residual, as SIP codes stop:
  converged when ||b - A x_n||_1 <= max(rtol ||b - A x_0||_1, abstol), diverged when it exceeds dtol ||b - A x_0||_1
  or is not finite (`KSP_DIVERGED_PC_FAILED` when the preconditioner failed).

  Collective

  Input Parameters:
+ ksp   - the `KSP`
. it    - the iteration
. rnorm - the norm the `KSP` computed (not used: the test measures its own)
- ctx   - the context made by `SFPCKSPSetConvergedResidual1Norm()`

  Output Parameter:
. reason - the outcome

  Notes:
  Install it with `SFPCKSPSetConvergedResidual1Norm()`. With `KSPRICHARDSON` (the standalone SIP iteration,
  `-ksp_type richardson -pc_type sfilu -pc_sfilu_factorization sip`) it reads the residual Richardson has just formed;
  with `-ksp_norm_type none` Richardson computes no 2-norm besides, so an iteration is the papers' residual, 1-norm,
  forward and backward sweeps and update, nothing more. Other `KSP`s pay a `KSPBuildResidual()` (a `MatMult`) per
  iteration. `rtol`, `abstol`, `dtol` and the iteration limit are the `KSP`'s (`KSPSetTolerances()`).

  Level: intermediate

.seealso: `SFPCKSPSetConvergedResidual1Norm()`, `SFPCKSPGetResidual1Norms()`, `KSPConvergedDefault()`, `PCSFILU`
@*/
PetscErrorCode SFPCKSPConvergedResidual1Norm(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  Residual1Norm *c = (Residual1Norm *)ctx;
  Vec            r;
  PetscReal      norm1, rtol, abstol, dtol;

  PetscFunctionBegin;
  (void)rnorm;
  *reason = KSP_CONVERGED_ITERATING;
  PetscCall(Residual1NormResidual(ksp, c, &r));
  PetscCall(VecNorm(r, NORM_1, &norm1));
  if (!it) c->n = 0;
  if (c->n == c->na) {
    c->na = PetscMax(2 * c->na, 64);
    PetscCall(PetscRealloc(sizeof(PetscReal) * c->na, &c->hist));
  }
  c->hist[c->n++] = norm1;
  PetscCall(KSPGetTolerances(ksp, &rtol, &abstol, &dtol, NULL));
  PetscCall(PetscInfo(ksp, "iteration %" PetscInt_FMT ": residual 1-norm %g (relative %g)\n", it, (double)norm1, c->hist[0] > 0 ? (double)(norm1 / c->hist[0]) : 0.0));
  if (PetscIsInfOrNanReal(norm1)) {
    PCFailedReason pcreason;
    PetscCall(PCReduceFailedReason(ksp->pc));
    PetscCall(PCGetFailedReason(ksp->pc, &pcreason));
    *reason = pcreason ? KSP_DIVERGED_PC_FAILED : KSP_DIVERGED_NANORINF;
  } else if (norm1 <= PetscMax(rtol * c->hist[0], abstol)) *reason = norm1 <= abstol ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL;
  else if (dtol != (PetscReal)PETSC_UNLIMITED && norm1 >= dtol * c->hist[0] && it > 0) *reason = KSP_DIVERGED_DTOL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  SFPCKSPSetConvergedResidual1Norm - Makes a `KSP` stop on the 1-norm of the true residual relative to the first
  (`SFPCKSPConvergedResidual1Norm()`), the test of the SIP papers.

  Logically Collective

  Input Parameter:
. ksp - the `KSP`; call after `KSPSetFromOptions()`, which would otherwise replace the test

  Example:
.vb
  -ksp_type richardson -ksp_norm_type none -pc_type sfilu -pc_sfilu_factorization sip
.ve
  then `SFPCKSPSetConvergedResidual1Norm(ksp)`: the standalone SIP iteration, stopping when the residual's 1-norm has
  dropped by rtol.

  Level: intermediate

.seealso: `SFPCKSPConvergedResidual1Norm()`, `SFPCKSPGetResidual1Norms()`, `KSPSetConvergenceTest()`
@*/
PetscErrorCode SFPCKSPSetConvergedResidual1Norm(KSP ksp)
{
  Residual1Norm *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(PetscNew(&c));
  PetscCall(KSPSetConvergenceTest(ksp, SFPCKSPConvergedResidual1Norm, c, Residual1NormDestroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SFPCKSPGetResidual1Norms - The residual 1-norms the last solve measured, one per test (the first is that of the initial
  guess): the SIP routines' "final residual" is the last of them.

  Not Collective

  Input Parameter:
. ksp - a `KSP` set up with `SFPCKSPSetConvergedResidual1Norm()`

  Output Parameters:
+ n     - how many
- norms - the norms (owned by the `KSP`; valid until its next solve)

  Level: intermediate

.seealso: `SFPCKSPSetConvergedResidual1Norm()`
@*/
PetscErrorCode SFPCKSPGetResidual1Norms(KSP ksp, PetscInt *n, const PetscReal *norms[])
{
  KSPConvergenceTestFn *fn;
  Residual1Norm        *c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(ksp, KSP_CLASSID, 1);
  PetscCall(KSPGetConvergenceTest(ksp, &fn, (void **)&c, NULL));
  PetscCheck(fn == SFPCKSPConvergedResidual1Norm, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONGSTATE, "This KSP does not stop on the residual 1-norm: call SFPCKSPSetConvergedResidual1Norm() first");
  *n = c->n;
  if (norms) *norms = c->hist;
  PetscFunctionReturn(PETSC_SUCCESS);
}
