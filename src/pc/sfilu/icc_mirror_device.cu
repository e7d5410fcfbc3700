/*
   ICC's mirror map (icc_mirror.c) built on the GPU from A's device CSR: a thread a row finds each lower
   entry's mirror by a binary search of the row it names, and the counts of entries below and above the
   diagonal tell whether every one has its mirror: no pass over the pattern on the host and no copy of the
   map up. A pattern that fails here is mapped again on the host, whose error names the entry.
*/
#include <petscdevice_cuda.h>
#include <sfpc/private/sfdevice.cuh>
#include "sfilu.h"

namespace
{
__global__ void MirrorKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, int *__restrict__ map, unsigned long long *__restrict__ counts)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int       lower = 0, upper = 0, missing = 0;

  if (i >= n) return;
  for (int k = ai[i]; k < ai[i + 1]; k++) {
    const int j = aj[k];

    if (j >= i) {
      map[k] = k;
      upper += j > i;
      continue;
    }
    map[k] = sfpc::FindSorted(aj, ai[j], ai[j + 1], i);
    missing += map[k] < 0;
    lower++;
  }
  if (lower) atomicAdd(counts, (unsigned long long)lower);
  if (upper) atomicAdd(counts + 1, (unsigned long long)upper);
  if (missing) atomicAdd(counts + 2, (unsigned long long)missing);
}
} // namespace

/* f (A's pattern) with its map built on the device; *ok false, and nothing kept, where the pattern is not structurally symmetric. */
PetscErrorCode SFILUMirrorCreate_Device(SFILUFill *f, Mat A, PetscBool *ok)
{
  const PetscInt    *ai, *aj;
  PetscInt           n;
  cudaStream_t       stream;
  unsigned long long counts[3], *dcounts;
  const int          tpb = 128;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCallCUDA(cudaMallocAsync(&f->d_fmap, sizeof(int) * PetscMax(f->nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dcounts, sizeof(counts), stream));
  PetscCallCUDA(cudaMemsetAsync(dcounts, 0, sizeof(counts), stream));
  if (n) MirrorKernel<<<sfpc::LaunchBlocks(n, tpb), tpb, 0, stream>>>((int)n, ai, aj, f->d_fmap, dcounts);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(counts, dcounts, sizeof(counts), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dcounts, stream));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  *ok = (PetscBool)(counts[2] == 0 && counts[0] == counts[1]);
  if (!*ok) PetscCall(SFILUFillDestroy_Device(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
