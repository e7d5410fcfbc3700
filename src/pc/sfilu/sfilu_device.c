/*
   The GPU side of the SFILU factor, for MATSEQAIJCUSPARSE: the factor, its analysis and its
   solves stay on the GPU. The matrix is read through PETSc's device CSR; nothing of it is
   copied to the host.
*/
#include "sfilu.h"

#if defined(SFPC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

PetscErrorCode SFILUSymbolic_Device(SFILU *s, Mat A)
{
  const PetscInt *ai, *aj;
  PetscInt        n;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(SFPCTriDeviceCreate(n, ai, aj, s->warps_per_sm, &s->T));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUGetValues_Device(Mat A, const PetscScalar **aa)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILURestoreValues_Device(Mat A, const PetscScalar **aa)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-1} x. Host vectors (a device matrix used with -vec_type standard) pass through a device copy. */
PetscErrorCode SFILUApply_Device(SFILU *s, Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMemType       mx, my;

  PetscFunctionBegin;
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
      PetscCall(PetscInfo(x, "Host vectors with a GPU factor: each apply copies through the device; use -vec_type cuda (or MatCreateVecs()) to avoid it\n"));
      PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, s->T->n, &s->work));
    }
    PetscCall(VecCopy(x, s->work));
    PetscCall(VecCUDAGetArray(s->work, &wa));
    PetscCall(SFPCTriDeviceSolve(s->T, wa, wa));
    PetscCall(VecCUDARestoreArray(s->work, &wa));
    PetscCall(VecCopy(s->work, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUReset_Device(SFILU *s)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceDestroy(&s->T));
  PetscCall(VecDestroy(&s->work));
  s->ondevice = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
PetscErrorCode SFILUReset_Device(SFILU *s)
{
  s->ondevice = PETSC_FALSE;
  return PETSC_SUCCESS;
}
PetscErrorCode SFILUSymbolic_Device(SFILU *s, Mat A)
{
  (void)s;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "SFPC was built without CUDA");
}
PetscErrorCode SFILUGetValues_Device(Mat A, const PetscScalar **aa)
{
  (void)aa;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "SFPC was built without CUDA");
}
PetscErrorCode SFILURestoreValues_Device(Mat A, const PetscScalar **aa)
{
  (void)aa;
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "SFPC was built without CUDA");
}
PetscErrorCode SFILUApply_Device(SFILU *s, Vec x, Vec y)
{
  (void)s;
  (void)y;
  SETERRQ(PetscObjectComm((PetscObject)x), PETSC_ERR_SUP, "SFPC was built without CUDA");
}
#endif
