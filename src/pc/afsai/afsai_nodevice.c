/* A build without CUDA (SFPC_WITH_CUDA=0): PCAFSAI never sets up on the device, so these only free or refuse. */
#include "afsai.h"

#if !defined(SFPC_HAVE_CUDA)
PetscErrorCode AFSAIDeviceDestroy(AFSAIDevice *dev)
{
  *dev = NULL;
  return PETSC_SUCCESS;
}
PetscErrorCode AFSAIDeviceNnz(AFSAIDevice dev, PetscInt *nnz)
{
  (void)dev;
  *nnz = 0;
  return PETSC_SUCCESS;
}
  #define AFSAI_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC was built without CUDA")
PetscErrorCode AFSAIPattern_Device(Mat A, const AFSAIParams *p, PetscInt r0, PetscInt r1, AFSAIDevice *dev, AFSAIPattern *pat, AFSAIFail *fail)
{
  (void)A, (void)p, (void)r0, (void)r1, (void)dev, (void)pat, (void)fail;
  AFSAI_NO_CUDA;
}
PetscErrorCode AFSAIValues_Device(Mat A, AFSAIDevice dev, AFSAIFail *fail)
{
  (void)A, (void)dev, (void)fail;
  AFSAI_NO_CUDA;
}
PetscErrorCode AFSAIAssemble_Device(AFSAIDevice dev, PetscBool newpattern, Mat *G, Mat *Gt)
{
  (void)dev, (void)newpattern, (void)G, (void)Gt;
  AFSAI_NO_CUDA;
}
PetscErrorCode AFSAIDeviceGetFactor(AFSAIDevice dev, const PetscInt **gi, const PetscInt **gj, const PetscScalar **ga)
{
  (void)dev, (void)gi, (void)gj, (void)ga;
  AFSAI_NO_CUDA;
}
#endif
