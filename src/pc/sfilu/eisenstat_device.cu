/*
   The GPU side of sfilu's Eisenstat form (eisenstat.c): the check that ILU(0) of the pattern keeps A's
   off-diagonal entries, the diagonals the operator needs, and the product with Q = D + U_A. The operator itself
   is the engine's (SFPCTriDeviceEisenstat(), trisolve.cu): it runs the engine's sweeps.
*/
#include <petscdevice_cuda.h>
#include "sfilu.h"

namespace
{
/*
   An off-diagonal entry of row r that an ILU(0) update reaches (for L entry (r, c), U(c)'s entries (c, j), j != r, in row r),
   the first found in update order, as the key (r << 32) | j; the lowest row's is kept (the host check reports the same entry).
*/
__global__ void DILUFormKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, unsigned long long *first)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int kb = ai[r], ke = ai[r + 1];
  for (int k = kb; k < ad[r]; k++) {
    const int c = aj[k];
    for (int m = ad[c] + 1; m < ai[c + 1]; m++) {
      const int j = aj[m];
      int       lo = kb, hi = ke;
      if (j == r) continue;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (aj[mid] < j) lo = mid + 1;
        else hi = mid;
      }
      if (lo < ke && aj[lo] == j) {
        atomicMin(first, ((unsigned long long)r << 32) | (unsigned)j);
        return;
      }
    }
  }
}

/* adiag may be k */
__global__ void DiagonalsKernel(int n, const int *__restrict__ ad, const double *__restrict__ a, const double *adiag, double *__restrict__ dinv, double *k)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    const double di = a[ad[r]];
    dinv[r]         = di;
    k[r]            = adiag[r] - 2.0 / di;
  }
}

__global__ void MultUpperKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, const double *__restrict__ dinv, const double *__restrict__ x, double *__restrict__ y)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    double s = x[r] / dinv[r];
    for (int k = ad[r] + 1; k < ai[r + 1]; k++) s += a[k] * x[aj[k]];
    y[r] = s;
  }
}
} // namespace

PetscErrorCode SFILUDILUForm_Device(SFPCTriDevice T, PetscInt *row, PetscInt *col)
{
  cudaStream_t        stream;
  unsigned long long *d, h = ~0ULL;
  const int           tpb = 256;

  PetscFunctionBegin;
  *row = *col = -1;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync((void **)&d, sizeof(*d), stream));
  PetscCallCUDA(cudaMemcpyAsync(d, &h, sizeof(h), cudaMemcpyHostToDevice, stream));
  DILUFormKernel<<<(int)((T->n + tpb - 1) / tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, d);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if (h != ~0ULL) {
    *row = (PetscInt)(h >> 32);
    *col = (PetscInt)(h & 0xffffffffULL);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUEisenstatDiagonals_Device(SFPCTriDevice T, const PetscScalar *adiag, PetscScalar *dinv, PetscScalar *k)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  DiagonalsKernel<<<(int)((T->n + tpb - 1) / tpb), tpb, 0, stream>>>((int)T->n, T->diag, T->a, adiag, dinv, k);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUMultUpper_Device(SFPCTriDevice T, const PetscScalar *dinv, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  MultUpperKernel<<<(int)((T->n + tpb - 1) / tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, T->a, dinv, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->upper.nnz + T->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}
