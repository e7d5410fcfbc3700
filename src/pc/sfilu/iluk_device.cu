/*
   ILU(k) on the GPU: A's values scattered into the factor's pattern (SFILUFill) before each numeric
   factorization, which is then ILU(0)'s kernel on that pattern. The map is built on the host with the
   pattern (SFILUFillPattern()) and copied up once; the values stay on the device.
*/
#include <petscdevice_cuda.h>
#include "sfilu.h"

namespace
{
__global__ void ScatterKernel(int nnz, const int *__restrict__ amap, const double *__restrict__ aa, double *fa)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < nnz) fa[amap[q]] = aa[q];
}
} // namespace

PetscErrorCode SFILUFillCreate_Device(SFILUFill *f, const PetscInt amap[])
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&f->d_amap, sizeof(int) * PetscMax(f->nnz_a, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&f->d_a, sizeof(PetscScalar) * PetscMax(f->nnz, 1), stream));
  PetscCallCUDA(cudaMemcpyAsync(f->d_amap, amap, sizeof(int) * f->nnz_a, cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogCpuToGpu(sizeof(int) * f->nnz_a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f->d_a = A's values aa (device, A's pattern) in the factor's pattern, zero at the fill. */
PetscErrorCode SFILUFillValues_Device(const SFILUFill *f, const PetscScalar *aa)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaMemsetAsync(f->d_a, 0, sizeof(PetscScalar) * f->nnz, stream));
  if (f->nnz_a) ScatterKernel<<<(int)((f->nnz_a + tpb - 1) / tpb), tpb, 0, stream>>>((int)f->nnz_a, f->d_amap, aa, f->d_a);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUFillDestroy_Device(SFILUFill *f)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!f->d_amap && !f->d_a) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaFreeAsync(f->d_amap, stream));
  PetscCallCUDA(cudaFreeAsync(f->d_a, stream));
  f->d_amap = NULL;
  f->d_a    = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
