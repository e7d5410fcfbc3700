/*
   sfilu's Eisenstat form (-pc_sfilu_eisenstat; the algebra and the PC glue: include/sfpc/private/eisenstat.h,
   src/pc/common/eisenstat.c): the check that ILU(0) of the pattern keeps A's off-diagonal entries, and the sweeps the
   form is made of, D = diag(U), P = D + L_A = D L (L unit), Q = D + U_A = U. The host loops here are the reference of
   the GPU path (eisenstat_device.cu, whose operator is the engine's, fused).
*/
#include "sfilu.h"

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

/* x = P^{-1} b = D^{-1} L^{-1} b, Q^{-1} b = U^{-1} b, or Q b */
static PetscErrorCode SweepForm(PC pc, SFPCEisenstatSweep kind, Vec b, Vec x)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (kind == SFPC_EISENSTAT_MULT_Q) PetscCall(MultUpper(s, b, x));
  else PetscCall(SFILUSweep(s, (PetscBool)(kind == SFPC_EISENSTAT_SOLVE_P), b, x));
  if (kind == SFPC_EISENSTAT_SOLVE_P) PetscCall(VecPointwiseMult(x, x, s->eis.dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D^{-1} from the factor's diagonal slots, K = diag(A) - 2 D (k holds diag(A)) */
static PetscErrorCode Diagonals(PC pc, Vec dinv, Vec k)
{
  SFILU       *s = (SFILU *)pc->data;
  PetscScalar *da, *ka;

  PetscFunctionBegin;
  if (s->ondevice) {
    PetscCall(SFILUEisenstatDiagonals_Device(s, dinv, k));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayWrite(dinv, &da));
  PetscCall(VecGetArray(k, &ka));
  for (PetscInt r = 0; r < s->F.n; r++) {
    da[r] = s->F.a[s->F.diag[r]];
    ka[r] = ka[r] - 2.0 / da[r];
  }
  PetscCall(VecRestoreArray(k, &ka));
  PetscCall(VecRestoreArrayWrite(dinv, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device's operator: the engine's, fused (SFILUEisenstatMult_Device()). */
static PetscErrorCode MultDevice(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(SFILUEisenstatMult_Device((SFILU *)pc->data, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCSFILUEisenstatReset(PC pc)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFPCEisenstatReset(&s->eis));
  s->dilu = PETSC_BOOL3_UNKNOWN;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   At the end of PCSetUp(): checks that the form holds (ILU(0) of a pattern whose factorization updates no off-diagonal
   entry, on every rank, checked once per pattern), then the form's own set-up, and installs the pre- and post-solve.
   Without the option it uninstalls them.
*/
PetscErrorCode PCSFILUEisenstatSetUp(PC pc)
{
  SFILU         *s    = (SFILU *)pc->data;
  SFPCEisenstat *E    = &s->eis;
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt    size;

  PetscFunctionBegin;
  if (!E->use) {
    PetscCall(SFPCEisenstatOff(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(!s->built_sip && s->built_levels == 0, comm, PETSC_ERR_SUP, "-pc_sfilu_eisenstat needs ILU(0), whose off-diagonal entries are A's: not %s", s->built_sip ? "SIP" : "ILU(k) with fill");
  if (s->dilu == PETSC_BOOL3_UNKNOWN) { /* a new pattern since the last check: new vectors too (the factor may have moved between host and device) */
    PetscBool bad;

    PetscCall(PCSFILUEisenstatReset(pc));
    if (s->ondevice) PetscCall(SFILUDILUForm_Device(s->T, &s->badrow, &s->badcol));
    else PetscCall(DILUForm_Host(&s->F, &s->badrow, &s->badcol));
    bad = (PetscBool)(s->badrow >= 0);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_C_BOOL, MPI_LOR, comm));
    s->dilu = bad ? PETSC_BOOL3_FALSE : PETSC_BOOL3_TRUE;
  }
  if (s->dilu != PETSC_BOOL3_TRUE) { /* the entry this rank found, if any, in the numbering of its block */
    char where[96] = "on another rank";

    if (s->badrow >= 0) PetscCall(PetscSNPrintf(where, sizeof(where), "entry (%" PetscInt_FMT ", %" PetscInt_FMT ")%s", s->badrow, s->badcol, size > 1 ? " of this rank's block" : ""));
    SETERRQ(comm, PETSC_ERR_SUP, "-pc_sfilu_eisenstat needs an ILU(0) that leaves A's off-diagonal entries as they are, as on 5- and 7-point stencils; on this pattern it updates %s", where);
  }
  E->ops.sweep     = SweepForm;
  E->ops.diagonals = Diagonals;
  E->ops.mult      = s->ondevice ? MultDevice : NULL;
  PetscCall(SFPCEisenstatSetUp(pc, E, s->ondevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether PCPreSolve() changes the right-hand side (PCMG and KSPMatSolve() then give it a copy to change). */
PetscErrorCode PCPreSolveChangeRHS_SFILU(PC pc, PetscBool *change)
{
  PetscFunctionBegin;
  *change = (PetscBool)(((SFILU *)pc->data)->eis.use || pc->ops->presolve); /* installed by a set-up with the option, which may have been turned off since */
  PetscFunctionReturn(PETSC_SUCCESS);
}
