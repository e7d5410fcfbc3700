/* SFPCDeviceView() for a build without GPU code (make SFPC_WITH_CUDA=0); src/sys/device.cu otherwise. */
#include <sfpc/private/sfpcimpl.h>

#if !defined(SFPC_HAVE_CUDA)
PetscErrorCode SFPCDeviceView(PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "SFPC device: none (SFPC was built without CUDA); host paths only\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
