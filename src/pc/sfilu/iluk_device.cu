/*
   ILU(k) on the GPU: A's values gathered into the factor's pattern (SFILUFill) before each numeric
   factorization, which is then ILU(0)'s kernel on that pattern. The map is built on the host with the
   pattern (SFILUFillPattern()) and copied up once; the values stay on the device. A gather per factor
   entry writes every entry once (the fill's zeros too): one launch, where a scatter of A's entries needed
   a memset of the factor's values first.
*/
#include <petscdevice_cuda.h>
#include <sfpc/private/sfdevice.cuh>
#include "sfilu.h"

namespace
{
__global__ void GatherKernel(int nnz, const int *__restrict__ fmap, const double *__restrict__ aa, double *fa)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < nnz) {
    const int q = fmap[p];
    fa[p]       = q >= 0 ? aa[q] : 0.0;
  }
}

__global__ void ComposeKernel(int nnz, int *__restrict__ outer, const int *__restrict__ inner)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < nnz && outer[p] >= 0) outer[p] = inner[outer[p]];
}
} // namespace

/* outer's map taken through inner's, whose source pattern outer then reads directly (ICC(k): the fill's map through the mirror's, one gather a factorization). */
PetscErrorCode SFILUFillCompose_Device(SFILUFill *outer, const SFILUFill *inner)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (outer->nnz) ComposeKernel<<<sfpc::LaunchBlocks(outer->nnz, tpb), tpb, 0, stream>>>((int)outer->nnz, outer->d_fmap, inner->d_fmap);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUFillCreate_Device(SFILUFill *f, const PetscInt fmap[])
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&f->d_fmap, sizeof(int) * PetscMax(f->nnz, 1), stream));
  PetscCallCUDA(cudaMemcpyAsync(f->d_fmap, fmap, sizeof(int) * f->nnz, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* callers free fmap on return; CUDA only says a copy from pageable memory "might" be done by then */
  PetscCall(PetscLogCpuToGpu(sizeof(int) * f->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f->d_a = A's values aa (device, A's pattern) in the factor's pattern, zero at the fill; d_a is allocated by the first call. */
PetscErrorCode SFILUFillValues_Device(SFILUFill *f, const PetscScalar *aa)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!f->d_a) PetscCallCUDA(cudaMallocAsync(&f->d_a, sizeof(PetscScalar) * PetscMax(f->nnz, 1), stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (f->nnz) GatherKernel<<<sfpc::LaunchBlocks(f->nnz, tpb), tpb, 0, stream>>>((int)f->nnz, f->d_fmap, aa, f->d_a);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUFillDestroy_Device(SFILUFill *f)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!f->d_fmap && !f->d_a) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaFreeAsync(f->d_fmap, stream));
  PetscCallCUDA(cudaFreeAsync(f->d_a, stream));
  f->d_fmap = NULL;
  f->d_a    = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
