/* SFPCDeviceView() for a build without GPU code (make SFPC_WITH_CUDA=0); src/sys/device.cu otherwise. */
#include <sfpc/private/sfpcimpl.h>

#if !defined(SFPC_HAVE_CUDA)
PetscErrorCode SFPCDeviceView(PetscViewer viewer)
{
  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &viewer)); /* PETSc's default for a NULL viewer */
  PetscValidHeaderSpecific(viewer, PETSC_VIEWER_CLASSID, 1);
  PetscCall(PetscViewerASCIIPrintf(viewer, "SFPC device: none (SFPC was built without CUDA); host paths only\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
