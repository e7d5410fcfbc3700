/*
   What SFPC's GPU build sees: the device PETSc uses, and whether the kernels compiled into
   libsfpc.so run on it (the architecture check that turns "no kernel image" into a message).
*/
#include <sfpc/private/sfpcimpl.h>
#include <petscdevice_cuda.h>

__global__ static void SFPCProbeArch(int *arch)
{
#if defined(__CUDA_ARCH__)
  *arch = __CUDA_ARCH__;
#endif
}

/*@C
  SFPCDeviceView - Prints the CUDA device SFPC would use and checks that SFPC's kernels run on it.

  Input Parameter:
. viewer - an ASCII viewer, e.g. `PETSC_VIEWER_STDOUT_WORLD` (NULL: that one)

  Notes:
  Without a usable GPU it says so and returns normally: the host paths still work.
  If the GPU exists but libsfpc.so holds no code for it, it raises `PETSC_ERR_SUP`.

  Level: beginner

.seealso: `SFPCInitializePackage()`
@*/
PetscErrorCode SFPCDeviceView(PetscViewer viewer)
{
  int            ndev = 0, dev, arch = 0, *d_arch;
  cudaError_t    cerr;
  cudaDeviceProp prop;
  cudaStream_t   stream;

  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PETSC_COMM_WORLD, &viewer)); /* PETSc's default for a NULL viewer */
  PetscValidHeaderSpecific(viewer, PETSC_VIEWER_CLASSID, 1);
  cerr = cudaGetDeviceCount(&ndev);
  if (cerr != cudaSuccess || ndev == 0) {
    (void)cudaGetLastError(); /* clear the sticky status so PETSc's later CUDA checks start clean */
    PetscCall(PetscViewerASCIIPrintf(viewer, "SFPC device: none usable (%s); GPU paths unavailable, host paths work\n", cerr == cudaSuccess ? "no CUDA device" : cudaGetErrorString(cerr)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCallCUDA(cudaMallocAsync(&d_arch, sizeof(int), stream));
  SFPCProbeArch<<<1, 1, 0, stream>>>(d_arch);
  cerr = cudaGetLastError();
  if (cerr != cudaSuccess) PetscCallCUDA(cudaFreeAsync(d_arch, stream)); /* a launch refused (no kernel image) leaves the device usable */
  PetscCheck(cerr == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC kernels do not run on %s (compute capability %d.%d): %s; rebuild SFPC and PETSc for this GPU", prop.name, prop.major, prop.minor, cudaGetErrorString(cerr));
  PetscCallCUDA(cudaMemcpyAsync(&arch, d_arch, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d_arch, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SFPC device %d of %d: %s, compute capability %d.%d, %d SMs, %.1f GiB; SFPC kernels run as sm_%d\n", dev, ndev, prop.name, prop.major, prop.minor, prop.multiProcessorCount, (double)prop.totalGlobalMem / 1073741824.0, arch / 10));
  PetscFunctionReturn(PETSC_SUCCESS);
}
