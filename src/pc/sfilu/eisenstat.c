/*
   sfilu's Eisenstat form (-pc_sfilu_eisenstat; the algebra is in sfilu.h, SFILUEisenstat): between PCPreSolve()
   and PCPostSolve() the KSP's operator is the shell P^{-1} A Q^{-1}, its right-hand side P^{-1} b, its unknown
   Q x, and the PC applies D. The host loops here are the reference of the GPU path (eisenstat_device.cu, which runs
   the engine's sweeps). On several ranks the host operator is put together from the sweeps, PETSc's vector
   operations and the product with the couplings between ranks (MatMultMPI()).
*/
#include "sfilu.h"
#include <petsc/private/pcimpl.h>
#include <petsc/private/kspimpl.h> /* KSP's transpose_solve */

/* The first off-diagonal entry (row, col) of the pattern that ILU(0) updates: for an L entry (r, c), an entry (c, j) of U(c) with j != r in row r. */
static PetscErrorCode DILUForm_Host(const SFPCTriFactor *F, PetscInt *row, PetscInt *col)
{
  PetscBool *in;

  PetscFunctionBegin;
  *row = *col = -1;
  PetscCall(PetscCalloc1(F->n, &in));
  for (PetscInt r = 0; r < F->n && *row < 0; r++) {
    for (PetscInt k = F->i[r]; k < F->i[r + 1]; k++) in[F->j[k]] = PETSC_TRUE;
    for (PetscInt k = F->i[r]; k < F->diag[r] && *row < 0; k++) {
      const PetscInt c = F->j[k];
      for (PetscInt m = F->diag[c] + 1; m < F->i[c + 1]; m++) {
        if (F->j[m] != r && in[F->j[m]]) {
          *row = r;
          *col = F->j[m];
          break;
        }
      }
    }
    for (PetscInt k = F->i[r]; k < F->i[r + 1]; k++) in[F->j[k]] = PETSC_FALSE;
  }
  PetscCall(PetscFree(in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = L^{-1} b (unit) or U^{-1} b; b and x distinct. */
static PetscErrorCode Sweep(SFILU *s, PetscBool lower, Vec b, Vec x)
{
  const PetscScalar *ba;
  PetscScalar       *xa;

  PetscFunctionBegin;
  if (s->ondevice) PetscCall(SFILUEisenstatSweep_Device(s, lower, b, x));
  else {
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(SFPCTriFactorSweep_Host(&s->F, lower, lower, ba, xa));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(PetscLogFlops((PetscLogDouble)s->F.nnz)); /* about half the factor's entries, two flops each */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = Q x = D x + U_A x (U's off-diagonal entries are A's). */
static PetscErrorCode MultUpper(SFILU *s, Vec x, Vec y)
{
  const SFPCTriFactor *F = &s->F;
  const PetscScalar   *xa, *da;
  PetscScalar         *ya;

  PetscFunctionBegin;
  if (s->ondevice) {
    PetscCall(SFILUEisenstatMultUpper_Device(s, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* host arrays whatever the vectors' type (an aijcusparse matrix bound to the CPU has CUDA vectors) */
  PetscCall(VecGetArrayRead(s->eis.dinv, &da));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  for (PetscInt r = 0; r < F->n; r++) {
    PetscScalar v = xa[r] / da[r];
    for (PetscInt k = F->diag[r] + 1; k < F->i[r + 1]; k++) v += F->a[k] * xa[F->j[k]];
    ya[r] = v;
  }
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(s->eis.dinv, &da));
  PetscCall(PetscLogFlops((PetscLogDouble)F->nnz + F->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks, host factors: y = t + P^{-1} (x + K t + A_o t), t = Q^{-1} x, with t's ghost values on the way while x + K t is formed. */
static PetscErrorCode MatMultMPI(SFILU *s, Vec x, Vec y)
{
  SFILUEisenstat *E = &s->eis;

  PetscFunctionBegin;
  PetscCall(Sweep(s, PETSC_FALSE, x, E->t));
  PetscCall(VecScatterBegin(E->scatter, E->t, E->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecPointwiseMult(E->w, E->k, E->t));
  PetscCall(VecAXPY(E->w, 1.0, x));
  PetscCall(VecScatterEnd(E->scatter, E->t, E->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetLocalVector(E->w, E->wl));
  PetscCall(MatMultAdd(E->Ao, E->ghost, E->wl, E->wl));
  PetscCall(VecRestoreLocalVector(E->w, E->wl));
  PetscCall(Sweep(s, PETSC_TRUE, E->w, y));
  PetscCall(VecPointwiseMult(y, y, E->dinv));
  PetscCall(VecAXPY(y, 1.0, E->t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The KSP's operator: y = t + P^{-1} (x + K t), t = Q^{-1} x, P^{-1} = D^{-1} L^{-1}. */
static PetscErrorCode MatMult_SFILUEisenstat(Mat S, Vec x, Vec y)
{
  PC              pc;
  SFILU          *s;
  SFILUEisenstat *E;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(S, &pc));
  s = (SFILU *)pc->data;
  E = &s->eis;
  if (s->ondevice) PetscCall(SFILUEisenstatMult_Device(s, x, y));
  else if (E->scatter) PetscCall(MatMultMPI(s, x, y));
  else { /* host arrays whatever the vectors' type */
    const PetscInt     n = s->F.n;
    const PetscScalar *xa, *ka, *da;
    PetscScalar       *ya, *wa, *ta;

    PetscCall(VecGetArrayRead(E->k, &ka));
    PetscCall(VecGetArrayRead(E->dinv, &da));
    PetscCall(VecGetArrayWrite(E->w, &wa));
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(VecGetArrayWrite(E->t, &ta));
    PetscCall(SFPCTriFactorSweep_Host(&s->F, PETSC_FALSE, PETSC_FALSE, xa, ta));
    for (PetscInt r = 0; r < n; r++) wa[r] = xa[r] + ka[r] * ta[r];
    PetscCall(SFPCTriFactorSweep_Host(&s->F, PETSC_TRUE, PETSC_TRUE, wa, ya));
    for (PetscInt r = 0; r < n; r++) ya[r] = ta[r] + da[r] * ya[r];
    PetscCall(VecRestoreArrayWrite(E->t, &ta));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PetscCall(VecRestoreArrayWrite(E->w, &wa));
    PetscCall(VecRestoreArrayRead(E->dinv, &da));
    PetscCall(VecRestoreArrayRead(E->k, &ka));
    PetscCall(PetscLogFlops(2.0 * s->F.nnz + 4.0 * n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Why this solve cannot take the form, or NULL. The solve then runs with the plain sfilu (PetscInfo() says why), which
   is what the KSP asked for in every case: a transposed solve (the shell has no transpose); an operator with a null
   space (KSPSolve() removes it from the right-hand side, which the form has changed); a matrix changed since the PC
   was set up (a reused preconditioner: K and D^{-1}, and the couplings between ranks, belong to the old one); another
   operator than the matrix factored.
*/
static const char *FormRefused(PC pc, KSP ksp)
{
  SFILUEisenstat  *E = &((SFILU *)pc->data)->eis;
  MatNullSpace     nsp = NULL, tnsp = NULL;
  PetscObjectState state;
  PetscObjectId    id;

  if (ksp->transpose_solve) return "a transposed solve";
  if (pc->mat != pc->pmat) return "the KSP's operator is not the matrix factored";
  if (MatGetNullSpace(pc->mat, &nsp) || MatGetTransposeNullSpace(pc->mat, &tnsp) || nsp || tnsp) return "the operator has a null space";
  if (PetscObjectStateGet((PetscObject)pc->pmat, &state) || PetscObjectGetId((PetscObject)pc->pmat, &id) || id != E->pmat || state != E->state) return "the matrix changed since the PC was set up (a reused preconditioner)";
  return NULL;
}

/* The caller's b and A back (PCPostSolve(), or PCReset() after a solve that failed half way). */
static PetscErrorCode Deactivate(PC pc)
{
  SFILUEisenstat *E = &((SFILU *)pc->data)->eis;

  PetscFunctionBegin;
  PetscCall(VecCopy(E->b, E->bcaller));
  PetscCall(VecDestroy(&E->bcaller));
  pc->mat   = E->A;
  E->A      = NULL;
  E->active = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   b <- P^{-1} b (the caller's b saved), x <- Q x when the KSP starts from x, and the shell in place of A. A failed
   factor is left as it is (its applies give Inf, which stops the KSP as without this form), and so are the solves
   FormRefused() names.
*/
static PetscErrorCode PCPreSolve_SFILUEisenstat(PC pc, KSP ksp, Vec b, Vec x)
{
  SFILU          *s = (SFILU *)pc->data;
  SFILUEisenstat *E = &s->eis;
  PetscBool       nonzero;
  const char     *why;

  PetscFunctionBegin;
  PetscCheck(!E->active, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCSFILU with -pc_sfilu_eisenstat cannot serve a KSPSolve() nested in another that shares the PC and took the form: give the inner KSP a PC of its own or drop -pc_sfilu_eisenstat");
  if (s->failure != PC_NOERROR) PetscFunctionReturn(PETSC_SUCCESS);
  if ((why = FormRefused(pc, ksp))) {
    PetscCall(PetscInfo(pc, "Eisenstat form not taken for this solve (%s): plain sfilu\n", why));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!E->b) PetscCall(VecDuplicate(b, &E->b));
  if (!E->x) PetscCall(VecDuplicate(x, &E->x));
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  if (nonzero) {
    PetscCall(VecCopy(x, E->x));
    PetscCall(MultUpper(s, E->x, x));
  }
  PetscCall(VecCopy(b, E->b));
  PetscCall(Sweep(s, PETSC_TRUE, E->b, b));
  PetscCall(VecPointwiseMult(b, b, E->dinv));
  PetscCall(PetscObjectReference((PetscObject)b));
  E->bcaller = b;
  E->A       = pc->mat;
  pc->mat    = E->shell;
  E->active  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x <- Q^{-1} x, the caller's b back, A back. */
static PetscErrorCode PCPostSolve_SFILUEisenstat(PC pc, KSP ksp, Vec b, Vec x)
{
  SFILU          *s = (SFILU *)pc->data;
  SFILUEisenstat *E = &s->eis;

  PetscFunctionBegin;
  (void)ksp, (void)b;
  if (!E->active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecCopy(x, E->x));
  PetscCall(Sweep(s, PETSC_FALSE, E->x, x));
  PetscCall(Deactivate(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC's apply while the form is active: y = D x (also the transpose's). */
PetscErrorCode PCSFILUEisenstatApply(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwiseDivide(y, x, ((SFILU *)pc->data)->eis.dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCSFILUEisenstatReset(PC pc)
{
  SFILUEisenstat *E = &((SFILU *)pc->data)->eis;

  PetscFunctionBegin;
  if (E->active) PetscCall(Deactivate(pc)); /* a solve that stopped on an error between PCPreSolve() and PCPostSolve() */
  PetscCall(MatDestroy(&E->shell));
  PetscCall(VecDestroy(&E->dinv));
  PetscCall(VecDestroy(&E->k));
  PetscCall(VecDestroy(&E->w));
  PetscCall(VecDestroy(&E->t));
  PetscCall(VecDestroy(&E->b));
  PetscCall(VecDestroy(&E->x));
  PetscCall(VecDestroy(&E->ghost));
  PetscCall(VecDestroy(&E->wl));
  PetscCall(VecScatterDestroy(&E->scatter));
  PetscCall(MatDestroy(&E->Ao));
  E->pmat = 0;
  E->dilu = PETSC_BOOL3_UNKNOWN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks: pc->pmat's couplings to other ranks (taken again at each set-up: the operators may be new matrices) and the exchange of t's values they need. */
static PetscErrorCode SetUpCouplings(PC pc)
{
  SFILUEisenstat *E = &((SFILU *)pc->data)->eis;
  Mat             Ad;
  const PetscInt *garray;
  PetscInt        nghost;
  IS              is;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&E->ghost));
  PetscCall(VecScatterDestroy(&E->scatter));
  PetscCall(MatDestroy(&E->Ao));
  PetscCall(MatMPIAIJGetSeqAIJ(pc->pmat, &Ad, &E->Ao, &garray));
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
   At the end of PCSetUp(): checks that the form holds (ILU(0) of a pattern whose factorization updates no off-diagonal
   entry, on every rank, checked once per pattern), builds D^{-1} and K from the new factor (and on several ranks the
   exchange the couplings between ranks need), and installs the pre- and post-solve. Without the option it uninstalls them.
*/
PetscErrorCode PCSFILUEisenstatSetUp(PC pc)
{
  SFILU          *s    = (SFILU *)pc->data;
  SFILUEisenstat *E    = &s->eis;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt     size;

  PetscFunctionBegin;
  pc->ops->presolve  = NULL;
  pc->ops->postsolve = NULL;
  if (!E->use) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(!s->built_sip && s->built_levels == 0, comm, PETSC_ERR_SUP, "-pc_sfilu_eisenstat needs ILU(0), whose off-diagonal entries are A's: not %s", s->built_sip ? "SIP" : "ILU(k) with fill");
  if (E->dilu == PETSC_BOOL3_UNKNOWN) { /* a new pattern since the last check: new vectors too (the factor may have moved between host and device) */
    PetscBool bad;

    PetscCall(PCSFILUEisenstatReset(pc));
    if (s->ondevice) PetscCall(SFILUDILUForm_Device(s->T, &E->badrow, &E->badcol));
    else PetscCall(DILUForm_Host(&s->F, &E->badrow, &E->badcol));
    bad = (PetscBool)(E->badrow >= 0);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_C_BOOL, MPI_LOR, comm));
    E->dilu = bad ? PETSC_BOOL3_FALSE : PETSC_BOOL3_TRUE;
  }
  if (E->dilu != PETSC_BOOL3_TRUE) { /* the entry this rank found, if any, in the numbering of its block */
    char where[96] = "on another rank";

    if (E->badrow >= 0) PetscCall(PetscSNPrintf(where, sizeof(where), "entry (%" PetscInt_FMT ", %" PetscInt_FMT ")%s", E->badrow, E->badcol, size > 1 ? " of this rank's block" : ""));
    SETERRQ(comm, PETSC_ERR_SUP, "-pc_sfilu_eisenstat needs an ILU(0) that leaves A's off-diagonal entries as they are, as on 5- and 7-point stencils; on this pattern it updates %s", where);
  }
  if (!E->shell) {
    PetscInt m, n, M, N;
    VecType  vtype;

    PetscCall(MatCreateVecs(pc->pmat, &E->dinv, &E->k));
    PetscCall(VecDuplicate(E->dinv, &E->w));
    if (!s->ondevice) PetscCall(VecDuplicate(E->dinv, &E->t)); /* the device keeps t in the engine */
    PetscCall(MatGetLocalSize(pc->pmat, &m, &n));
    PetscCall(MatGetSize(pc->pmat, &M, &N));
    PetscCall(MatCreateShell(comm, m, n, M, N, pc, &E->shell));
    PetscCall(MatShellSetOperation(E->shell, MATOP_MULT, (PetscErrorCodeFn *)MatMult_SFILUEisenstat));
    PetscCall(MatGetVecType(pc->pmat, &vtype));
    PetscCall(MatShellSetVecType(E->shell, vtype));
  }
  if (size > 1) PetscCall(SetUpCouplings(pc));
  if (s->failure == PC_NOERROR) { /* D^{-1} from the factor's diagonal slots, K = diag(A) - 2 D */
    PetscCall(MatGetDiagonal(pc->pmat, E->k));
    if (s->ondevice) PetscCall(SFILUEisenstatDiagonals_Device(s, E->dinv, E->k));
    else {
      PetscScalar *da, *ka;

      PetscCall(VecGetArrayWrite(E->dinv, &da));
      PetscCall(VecGetArray(E->k, &ka));
      for (PetscInt r = 0; r < s->F.n; r++) {
        da[r] = s->F.a[s->F.diag[r]];
        ka[r] = ka[r] - 2.0 / da[r];
      }
      PetscCall(VecRestoreArray(E->k, &ka));
      PetscCall(VecRestoreArrayWrite(E->dinv, &da));
    }
  }
  PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &E->pmat)); /* what D^{-1}, K and the couplings belong to */
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &E->state));
  pc->ops->presolve  = PCPreSolve_SFILUEisenstat;
  pc->ops->postsolve = PCPostSolve_SFILUEisenstat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether PCPreSolve() changes the right-hand side (PCMG and KSPMatSolve() then give it a copy to change). */
PetscErrorCode PCPreSolveChangeRHS_SFILU(PC pc, PetscBool *change)
{
  PetscFunctionBegin;
  *change = ((SFILU *)pc->data)->eis.use;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCSFILUEisenstatView(PC pc, PetscViewer viewer)
{
  SFILUEisenstat *E = &((SFILU *)pc->data)->eis;

  PetscFunctionBegin;
  if (E->use) PetscCall(PetscViewerASCIIPrintf(viewer, "Eisenstat's form (-pc_sfilu_eisenstat): inside KSPSolve() the operator is (D + L_A)^{-1} A (D + U_A)^{-1}, two sweeps and no product with A, preconditioned by D = diag(U)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
