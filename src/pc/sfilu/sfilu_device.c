/*
   PCSFILU on MATSEQAIJCUSPARSE: the factor, its analysis and its solves stay on the GPU.
   The matrix is read through PETSc's device CSR; nothing of it is copied to the host.
*/
#include "sfilu.h"

#if defined(SFPC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

static PetscErrorCode SFILUNumeric_Device(PC pc, const PetscScalar *aa, PetscReal shift, SFILUResult *res)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFILUFactorNumeric_Device(s->T, aa, shift, s->zeropivot, (PetscBool)(s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE), res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFILUBounds_Device(PC pc, const PetscScalar *aa, PetscReal *rmax, PetscReal *top)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFILUShiftBounds_Device(s->T, aa, rmax, top));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCSetUp_SFILU_Device(PC pc)
{
  PC_SFILU          *s = (PC_SFILU *)pc->data;
  const PetscScalar *aa;

  PetscFunctionBegin;
  if (!pc->setupcalled || pc->flag != SAME_NONZERO_PATTERN || !s->T || !s->ondevice) {
    const PetscInt *ai, *aj;
    PetscInt        n;

    PetscCall(PetscLogEventBegin(SFPC_ILUSymbolic, pc, pc->pmat, 0, 0));
    PetscCall(SFPCTriFactorDestroy(&s->F));
    PetscCall(PCReset_SFILU_Device(pc));
    PetscCall(MatGetLocalSize(pc->pmat, &n, NULL));
    PetscCall(MatSeqAIJCUSPARSEGetIJ(pc->pmat, PETSC_FALSE, &ai, &aj));
    PetscCall(SFPCTriDeviceCreate(n, ai, aj, s->warps_per_sm, &s->T));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(pc->pmat, PETSC_FALSE, &ai, &aj));
    PetscCall(PetscLogEventEnd(SFPC_ILUSymbolic, pc, pc->pmat, 0, 0));
    s->ondevice = PETSC_TRUE;
  }
  PetscCall(SFPCTriDeviceSetWarpsPerSM(s->T, s->warps_per_sm)); /* the option may have changed since the analysis */
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(pc->pmat, &aa));
  PetscCall(SFILUFactor(pc, aa, SFILUNumeric_Device, SFILUBounds_Device));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(pc->pmat, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-1} x. Host vectors (a device matrix used with -vec_type standard) pass through a device copy. */
PetscErrorCode PCApply_SFILU_Device(PC pc, Vec x, Vec y)
{
  PC_SFILU          *s = (PC_SFILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mx, my;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_TriSolve, pc, x, y, 0));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
  if (PetscMemTypeDevice(mx) && PetscMemTypeDevice(my)) {
    PetscCall(SFPCTriDeviceSolve(s->T, xa, ya));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  } else {
    PetscScalar *wa;

    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    if (!s->work) {
      PetscCall(PetscInfo(pc, "Host vectors with a GPU factor: each apply copies through the device; use -vec_type cuda (or MatCreateVecs()) to avoid it\n"));
      PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, s->T->n, &s->work));
    }
    PetscCall(VecCopy(x, s->work));
    PetscCall(VecCUDAGetArray(s->work, &wa));
    PetscCall(SFPCTriDeviceSolve(s->T, wa, wa));
    PetscCall(VecCUDARestoreArray(s->work, &wa));
    PetscCall(VecCopy(s->work, y));
  }
  PetscCall(PetscLogEventEnd(SFPC_TriSolve, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCReset_SFILU_Device(PC pc)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceDestroy(&s->T));
  PetscCall(VecDestroy(&s->work));
  s->ondevice = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
PetscErrorCode PCReset_SFILU_Device(PC pc)
{
  (void)pc;
  return PETSC_SUCCESS;
}
#endif
