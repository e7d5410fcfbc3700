/*
   Eisenstat's form of a PC whose factor is P D^{-1} Q with A's off-diagonal entries in P and Q (the algebra and the
   contract with the PC: include/sfpc/private/eisenstat.h). Here: the changes of variable around the KSP's solve, the
   shell operator composed from the PC's sweeps (unless the PC fuses it), D as the PC while the form is active, the
   couplings between ranks, and the cases where the form steps aside.
*/
#include <sfpc/private/eisenstat.h>
#include <petsc/private/kspimpl.h> /* KSP's transpose_solve */

/* The KSP's operator, y = t + P^{-1} (x + K t [+ A_o t]), t = Q^{-1} x, with t's ghost values on the way while x + K t is formed. */
static PetscErrorCode MatMult_Eisenstat(Mat S, Vec xin, Vec yout)
{
  SFPCEisenstat *E;
  Vec            x = xin, y = yout;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &E));
  if (E->ops.mult) {
    PetscCall((*E->ops.mult)(E->pc, xin, yout));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (E->ondevice) PetscCall(SFPCStageVecs(xin, yout, PETSC_FALSE, E->option, &E->xd, &E->yd, &x, &y)); /* the KSP's host vectors: device copies */
  if (!E->t) PetscCall(VecDuplicate(E->w, &E->t));
  PetscCall((*E->ops.sweep)(E->pc, SFPC_EISENSTAT_SOLVE_Q, x, E->t));
  if (E->scatter) PetscCall(VecScatterBegin(E->scatter, E->t, E->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecPointwiseMult(E->w, E->k, E->t));
  PetscCall(VecAXPY(E->w, 1.0, x));
  if (E->scatter) {
    PetscCall(VecScatterEnd(E->scatter, E->t, E->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetLocalVector(E->w, E->wl));
    PetscCall(MatMultAdd(E->Ao, E->ghost, E->wl, E->wl));
    PetscCall(VecRestoreLocalVector(E->w, E->wl));
  }
  PetscCall((*E->ops.sweep)(E->pc, SFPC_EISENSTAT_SOLVE_P, E->w, y));
  PetscCall(VecAXPY(y, 1.0, E->t));
  if (E->ondevice) PetscCall(SFPCUnstageVecs(yout, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   In *why, why this solve cannot take the form, or NULL. The solve then runs with the plain PC (PetscInfo() says why), which
   is what the KSP asked for in every case: a transposed solve, a symmetric preconditioning side, or a KSP that multiplies by the operator's transpose
   (the shell has no transpose); a KSP that never applies the operator (KSPPREONLY, PCBJACOBI's and PCASM's default for
   their blocks: the form saves an operator product, and there is none to save; its sweeps would give the plain PC's
   result with two vector copies more); an operator with a null space (KSPSolve() removes it from the right-hand side, which the form has changed); a matrix
   changed since the PC was set up (a reused preconditioner: K and D^{-1}, and the couplings between ranks, belong to
   the old one); another operator than the matrix factored. Each is the same on every rank.
*/
static PetscErrorCode FormRefused(SFPCEisenstat *E, KSP ksp, const char **why)
{
  PC               pc  = E->pc;
  MatNullSpace     nsp = NULL, tnsp = NULL;
  PetscObjectState state;
  PetscObjectId    id;
  PetscBool        transposes, preonly;

  PetscFunctionBegin;
  *why = NULL;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &transposes, KSPBICG, KSPCGNE, KSPCGLS, KSPLSQR, ""));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
  PetscCall(MatGetNullSpace(pc->mat, &nsp));
  PetscCall(MatGetTransposeNullSpace(pc->mat, &tnsp));
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &state));
  PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &id));
  if (ksp->transpose_solve) *why = "a transposed solve";
  else if (ksp->pc_side == PC_SYMMETRIC) *why = "a symmetric preconditioning side (the KSP applies the factor's sweeps itself)";
  else if (transposes) *why = "a KSP that multiplies by the operator's transpose";
  else if (preonly) *why = "a KSP that never applies the operator (preonly: the form would save nothing)";
  else if (pc->mat != pc->pmat) *why = "the KSP's operator is not the matrix factored";
  else if (nsp || tnsp) *why = "the operator has a null space";
  else if (id != E->pmat || state != E->state) *why = "the matrix changed since the PC was set up (a reused preconditioner)";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The caller's b and A back: PCPostSolve() (ksp the KSP that solved), or the next solve of that KSP, or PCReset() (ksp NULL:
   the KSP may be gone), after a solve that stopped on an error half way. b was never written; the KSP's reference to it
   returns to the KSP if the KSP still solves with P^{-1} b, and is dropped otherwise (a new solve has set its own b).
*/
static PetscErrorCode Deactivate(SFPCEisenstat *E, KSP ksp)
{
  PetscFunctionBegin;
  if (ksp && ksp->vec_rhs == E->b) {
    PetscCall(VecDestroy(&ksp->vec_rhs)); /* the KSP's reference to P^{-1} b */
    ksp->vec_rhs = E->bcaller;
    E->bcaller   = NULL;
  } else PetscCall(VecDestroy(&E->bcaller));
  if (E->pc->mat == E->shell) { /* the references pc->mat held move back */
    PetscCall(MatDestroy(&E->pc->mat));
    E->pc->mat = E->A;
  } else PetscCall(MatDestroy(&E->A)); /* operators set since (KSPSetOperators() after a solve that stopped): pc->mat is the caller's */
  E->A      = NULL;
  E->ksp    = NULL;
  E->active = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The KSP solves with P^{-1} b in place of the caller's b, which is never written (an error in the solve leaves it as it
   was, and unlocked: KSPSolve() locks the right-hand side after PCPreSolve()); x <- Q x when the KSP starts from x; the shell
   in place of A. A factor that failed on any rank is left as it is on every rank (its applies give Inf, which stops the KSP
   as without this form; taken on some ranks only, the form's exchange and A's would wait on each other), and so are the
   solves FormRefused() names. Still active for the same KSP: its last solve stopped on an error before PCPostSolve(), so
   that is undone first.
*/
static PetscErrorCode PCPreSolve_Eisenstat(PC pc, KSP ksp, Vec b, Vec x)
{
  SFPCEisenstat *E;
  PetscBool      nonzero;
  const char    *why;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)pc, "SFPCEisenstat", (void **)&E));
  if (E->active && E->ksp == ksp) PetscCall(Deactivate(E, ksp));
  PetscCheck(!E->active, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "%s cannot serve a KSPSolve() nested in another that shares the PC and took the form: give the inner KSP a PC of its own or drop %s", E->option, E->option);
  if (E->failed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FormRefused(E, ksp, &why));
  if (why) {
    PetscCall(PetscInfo(pc, "Eisenstat form not taken for this solve (%s): plain %s\n", why, ((PetscObject)pc)->type_name));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(b == ksp->vec_rhs, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCPreSolve() was given a right-hand side that is not the KSP's");
  if (!E->b) PetscCall(VecDuplicate(b, &E->b));
  else { /* a solve that stopped on an error left KSPSolve()'s read lock on P^{-1} b, the right-hand side it solved with */
    PetscInt lock;

    PetscCall(VecLockGet(E->b, &lock));
    for (; lock > 0; lock--) PetscCall(VecLockReadPop(E->b));
  }
  if (!E->x) PetscCall(VecDuplicate(x, &E->x));
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  if (nonzero) {
    PetscCall(VecCopy(x, E->x));
    PetscCall((*E->ops.sweep)(pc, SFPC_EISENSTAT_MULT_Q, E->x, x));
  }
  PetscCall((*E->ops.sweep)(pc, SFPC_EISENSTAT_SOLVE_P, b, E->b));
  E->bcaller = b; /* with the KSP's reference, which P^{-1} b takes a new one in place of */
  PetscCall(PetscObjectReference((PetscObject)E->b));
  ksp->vec_rhs = E->b;
  E->ksp       = ksp;
  E->A         = pc->mat; /* pc->mat's reference to A moves to E->A, and pc->mat takes one of the shell: PCSetOperators() may destroy it */
  PetscCall(PetscObjectReference((PetscObject)E->shell));
  pc->mat   = E->shell;
  E->active = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x <- Q^{-1} x, the KSP's right-hand side and A back. */
static PetscErrorCode PCPostSolve_Eisenstat(PC pc, KSP ksp, Vec b, Vec x)
{
  SFPCEisenstat *E;

  PetscFunctionBegin;
  (void)b;
  PetscCall(PetscObjectContainerQuery((PetscObject)pc, "SFPCEisenstat", (void **)&E));
  if (!E->active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecCopy(x, E->x));
  PetscCall((*E->ops.sweep)(E->pc, SFPC_EISENSTAT_SOLVE_Q, E->x, x));
  PetscCall(Deactivate(E, ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC's apply while the form is active: y = D x (also the transpose's). */
PetscErrorCode SFPCEisenstatApply(SFPCEisenstat *E, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwiseDivide(y, x, E->dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC's set-up without the form: no pre- or post-solve. */
PetscErrorCode SFPCEisenstatOff(PC pc)
{
  PetscFunctionBegin;
  pc->ops->presolve  = NULL;
  pc->ops->postsolve = NULL;
  PetscCall(PetscObjectCompose((PetscObject)pc, "SFPCEisenstat", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCEisenstatReset(SFPCEisenstat *E)
{
  PetscFunctionBegin;
  if (E->active) PetscCall(Deactivate(E, NULL)); /* a solve that stopped on an error between PCPreSolve() and PCPostSolve() */
  if (E->pc) PetscCall(SFPCEisenstatOff(E->pc)); /* the next set-up installs the form again */
  PetscCall(MatDestroy(&E->shell));
  PetscCall(VecDestroy(&E->dinv));
  PetscCall(VecDestroy(&E->k));
  PetscCall(VecDestroy(&E->w));
  PetscCall(VecDestroy(&E->t));
  PetscCall(VecDestroy(&E->b));
  PetscCall(VecDestroy(&E->x));
  PetscCall(VecDestroy(&E->xd));
  PetscCall(VecDestroy(&E->yd));
  PetscCall(VecDestroy(&E->ghost));
  PetscCall(VecDestroy(&E->wl));
  PetscCall(VecScatterDestroy(&E->scatter));
  PetscCall(MatDestroy(&E->Ao));
  E->pmat = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks: pc->pmat's couplings to other ranks (taken again at each set-up: the operators may be new matrices) and the exchange of t's values they need. */
static PetscErrorCode SetUpCouplings(SFPCEisenstat *E)
{
  Mat             Ad;
  const PetscInt *garray;
  PetscInt        nghost;
  IS              is;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&E->ghost));
  PetscCall(VecScatterDestroy(&E->scatter));
  PetscCall(MatDestroy(&E->Ao));
  PetscCall(MatMPIAIJGetSeqAIJ(E->pc->pmat, &Ad, &E->Ao, &garray));
  PetscCall(PetscObjectReference((PetscObject)E->Ao)); /* pc->pmat may be replaced and destroyed while the form keeps it */
  PetscCall(MatGetLocalSize(E->Ao, NULL, &nghost));
  PetscCall(MatCreateVecs(E->Ao, &E->ghost, NULL));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_USE_POINTER, &is));
  PetscCall(VecScatterCreate(E->w, is, E->ghost, NULL, &E->scatter)); /* w has t's layout; t may have no array yet */
  PetscCall(ISDestroy(&is));
  if (!E->wl) PetscCall(VecCreateLocalVector(E->w, &E->wl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   At the end of the PC's set-up, once the PC has checked that the form holds and set E's ops: the shell and the vectors
   (kept until SFPCEisenstatReset()), the couplings between ranks, D^{-1} and K from the new factor unless it failed,
   and the pre- and post-solve, which find E composed with the PC.
*/
PetscErrorCode SFPCEisenstatSetUp(PC pc, SFPCEisenstat *E, PetscBool ondevice)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt size;

  PetscFunctionBegin;
  E->pc       = pc;
  E->ondevice = ondevice;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (!E->shell) {
    PetscInt m, n, M, N;
    VecType  vtype;

    PetscCall(MatCreateVecs(pc->pmat, &E->dinv, &E->k));
    PetscCall(VecDuplicate(E->dinv, &E->w));
    PetscCall(MatGetLocalSize(pc->pmat, &m, &n));
    PetscCall(MatGetSize(pc->pmat, &M, &N));
    PetscCall(MatCreateShell(comm, m, n, M, N, E, &E->shell));
    PetscCall(MatShellSetOperation(E->shell, MATOP_MULT, (PetscErrorCodeFn *)MatMult_Eisenstat));
    PetscCall(MatGetVecType(pc->pmat, &vtype));
    PetscCall(MatShellSetVecType(E->shell, vtype));
  }
  if (size > 1) PetscCall(SetUpCouplings(E));
  E->failed = (PetscBool)(pc->failedreason != PC_NOERROR);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &E->failed, 1, MPI_C_BOOL, MPI_LOR, comm));
  if (!E->failed) {
    PetscCall(MatGetDiagonal(pc->pmat, E->k));
    PetscCall((*E->ops.diagonals)(pc, E->dinv, E->k));
  }
  PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &E->pmat)); /* what D^{-1}, K and the couplings belong to */
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &E->state));
  PetscCall(PetscObjectContainerCompose((PetscObject)pc, "SFPCEisenstat", E, NULL)); /* E lives in pc->data: nothing to free */
  pc->ops->presolve  = PCPreSolve_Eisenstat;
  pc->ops->postsolve = PCPostSolve_Eisenstat;
  PetscFunctionReturn(PETSC_SUCCESS);
}


PetscErrorCode SFPCEisenstatView(SFPCEisenstat *E, const char *what, PetscViewer viewer)
{
  PetscFunctionBegin;
  if (E->use) PetscCall(PetscViewerASCIIPrintf(viewer, "Eisenstat's form (%s): inside KSPSolve() the operator is (D + L_A)^{-1} A (D + U_A)^{-1}, two sweeps and no product with A, preconditioned by D = %s\n", E->option, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}
