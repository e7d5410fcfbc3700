/*
   sfdilu's Eisenstat form (-pc_sfdilu_eisenstat; the algebra and the PC glue: include/sfpc/private/eisenstat.h,
   src/pc/common/eisenstat.c). A proper coloring leaves no same-color entry off the diagonal, so in color order
   M = (E + L_c) E^{-1} (E + U_c) always has A's off-diagonal entries in P = E + L_c and Q = E + U_c, with D = E:
   no pattern to check. Here: the sweeps the form is made of, on the host (dilu_host.c) or the device
   (dilu_device.cu, whose operator is the engine's, fused, on one rank).
*/
#include "sfdilu.h"

/* x = P^{-1} b, Q^{-1} b or Q b */
static PetscErrorCode Sweep(PC pc, SFPCEisenstatSweep kind, Vec b, Vec x)
{
  SFDILU            *s     = (SFDILU *)pc->data;
  const PetscBool    lower = (PetscBool)(kind == SFPC_EISENSTAT_SOLVE_P), mult = (PetscBool)(kind == SFPC_EISENSTAT_MULT_Q);
  const PetscScalar *ba;
  PetscScalar       *xa;

  PetscFunctionBegin;
  if (s->ondevice) {
    SFPCStagedArrays a;

    PetscCall(SFPCStagedArraysGet(b, x, "PCSFDILU", &s->xd, &s->yd, &a));
    PetscCall(SFDILUEisenstat_Device(s, lower, mult, a.xa, a.ya));
    PetscCall(SFPCStagedArraysRestore(x, &a));
  } else { /* host arrays whatever the vectors' type */
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(SFDILUEisenstat_Host(s, lower, mult, ba, xa));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1/E and K = diag(A) - 2 E (k holds diag(A)) */
static PetscErrorCode Diagonals(PC pc, Vec dinv, Vec k)
{
  SFDILU      *s = (SFDILU *)pc->data;
  PetscScalar *da, *ka;

  PetscFunctionBegin;
  if (s->ondevice) {
    PetscCall(VecGetArrayWriteAndMemType(dinv, &da, NULL));
    PetscCall(VecGetArrayAndMemType(k, &ka, NULL));
    PetscCall(SFDILUEisenstatDiagonals_Device(s, da, ka));
    PetscCall(VecRestoreArrayAndMemType(k, &ka));
    PetscCall(VecRestoreArrayWriteAndMemType(dinv, &da));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayWrite(dinv, &da));
  PetscCall(VecGetArray(k, &ka));
  for (PetscInt r = 0; r < s->n; r++) {
    da[r] = s->einv[r];
    ka[r] = ka[r] - 2.0 / da[r];
  }
  PetscCall(VecRestoreArray(k, &ka));
  PetscCall(VecRestoreArrayWrite(dinv, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One rank on the device: the engine's fused operator between a gather and a scatter. */
static PetscErrorCode MultDevice(PC pc, Vec x, Vec y)
{
  SFDILU          *s = (SFDILU *)pc->data;
  SFPCStagedArrays a;
  PetscScalar     *wa;

  PetscFunctionBegin;
  PetscCall(SFPCStagedArraysGet(x, y, "PCSFDILU", &s->xd, &s->yd, &a));
  PetscCall(VecGetArrayWriteAndMemType(s->eis.w, &wa, NULL));
  PetscCall(SFDILUEisenstatMult_Device(s, a.xa, wa, a.ya));
  PetscCall(VecRestoreArrayWriteAndMemType(s->eis.w, &wa));
  PetscCall(SFPCStagedArraysRestore(y, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At the end of PCSetUp(): the form's set-up and its pre- and post-solve, or none without the option. */
PetscErrorCode PCSFDILUEisenstatSetUp(PC pc)
{
  SFDILU        *s = (SFDILU *)pc->data;
  SFPCEisenstat *E = &s->eis;
  PetscMPIInt    size;

  PetscFunctionBegin;
  if (!E->use) {
    PetscCall(SFPCEisenstatOff(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(!s->parallel, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_sfdilu_eisenstat works on each rank's diagonal block (block Jacobi): not with -pc_sfdilu_parallel, whose couplings between ranks are in its triangles");
  PetscCheck(s->omega == 1.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_sfdilu_eisenstat: a Richardson smoother then runs KSPRICHARDSON's own loop on the form's operator, whose weight is -ksp_richardson_scale: not -pc_sfdilu_omega %g", (double)s->omega);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  E->ops.sweep     = Sweep;
  E->ops.diagonals = Diagonals;
  E->ops.mult      = s->ondevice && size == 1 ? MultDevice : NULL; /* several ranks: composed from the device sweeps and PETSc's vector operations */
  PetscCall(SFPCEisenstatSetUp(pc, E, s->ondevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether PCPreSolve() changes the right-hand side (PCMG and KSPMatSolve() then give it a copy to change). */
PetscErrorCode PCPreSolveChangeRHS_SFDILU(PC pc, PetscBool *change)
{
  PetscFunctionBegin;
  *change = (PetscBool)(((SFDILU *)pc->data)->eis.use || pc->ops->presolve); /* installed by a set-up with the option, which may have been turned off since */
  PetscFunctionReturn(PETSC_SUCCESS);
}
