/* A build without CUDA (SFPC_WITH_CUDA=0): PCSFDILU never selects the GPU, so these only reset or refuse. */
#include "dilu_global.h"
#include "dilu_blocks.h"

#if !defined(SFPC_HAVE_CUDA)
PetscErrorCode SFDILUReset_Device(SFDILU *s)
{
  (void)s;
  return PETSC_SUCCESS;
}
PetscErrorCode SFDILUGlobalReset_Device(SFDILUGlobal G)
{
  (void)G;
  return PETSC_SUCCESS;
}
  #define SFDILU_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC was built without CUDA")
PetscErrorCode SFDILUColor_Device(SFDILU *s, Mat A)
{
  (void)s, (void)A;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUBlocksFit_Device(Mat A, PetscInt bs, PetscBool *fit)
{
  (void)A, (void)bs, (void)fit;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUSetUp_Device(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  (void)s, (void)A, (void)shift, (void)rmax;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUApply_Device(SFDILU *s, PetscBool transpose, PetscReal omega, const PetscScalar *x, PetscScalar *y)
{
  (void)s, (void)transpose, (void)omega, (void)x, (void)y;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILURichardson_Device(SFDILU *s, Mat A, const PetscScalar *b, PetscScalar *x, PetscBool guesszero)
{
  (void)s, (void)A, (void)b, (void)x, (void)guesszero;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUGetColors_Device(SFDILU *s, const PetscInt **color)
{
  (void)s, (void)color;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUGlobalColorRounds_Device(SFDILU *s, SFDILUGlobal G, MPI_Comm comm, PetscInt color[], PetscInt *rounds)
{
  (void)s, (void)G, (void)comm, (void)color, (void)rounds;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUGlobalUpload_Device(SFDILU *s, Mat A)
{
  (void)s, (void)A;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUSetUp_GlobalDevice(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  (void)s, (void)A, (void)shift, (void)rmax;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUApply_GlobalDevice(SFDILU *s, PetscBool transpose, const PetscScalar *x, PetscScalar *y)
{
  (void)s, (void)transpose, (void)x, (void)y;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUView_Device(SFDILU *s, PetscViewer viewer)
{
  (void)s, (void)viewer;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUEisenstat_Device(SFDILU *s, PetscBool lower, PetscBool mult, const PetscScalar *b, PetscScalar *x)
{
  (void)s, (void)lower, (void)mult, (void)b, (void)x;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUEisenstatDiagonals_Device(SFDILU *s, PetscScalar *dinv, PetscScalar *k)
{
  (void)s, (void)dinv, (void)k;
  SFDILU_NO_CUDA;
}
PetscErrorCode SFDILUEisenstatMult_Device(SFDILU *s, const PetscScalar *x, PetscScalar *w, PetscScalar *y)
{
  (void)s, (void)x, (void)w, (void)y;
  SFDILU_NO_CUDA;
}
#endif
