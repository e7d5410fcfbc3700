/*
   Transposed solves. The engine keeps, on first use, a second engine factor for the transpose of
   its matrix M: the entries of M^T are M's, permuted (sorted by column, then row), and the
   diagonal slots keep their inverse diagonals, so
     (LU)^{-T} = L^{-T} U^{-T}: a lower sweep of M^T with U's diagonal, then a unit upper sweep;
     one triangle T^{-T}: the sweep of the other side of M^T, with T's diagonal.
   The transposed factor has its own analysis (its dependency DAG is a different one); after the
   values change it is refilled through the permutation, lazily, on the next transposed solve.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <petscdevice_cuda.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

namespace
{
/* key of entry k of row r: (column, row), so that sorting by key orders M^T by rows */
__global__ void KeysKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, unsigned long long *key, int *pos, int *count)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  for (int k = ai[r]; k < ai[r + 1]; k++) {
    key[k] = (unsigned long long)aj[k] * (unsigned long long)n + (unsigned long long)r;
    pos[k] = k;
    atomicAdd(count + aj[k], 1);
  }
}

__global__ void ColumnsKernel(int nnz, int n, const unsigned long long *__restrict__ key, int *tj)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) tj[k] = (int)(key[k] % (unsigned long long)n);
}

__global__ void GatherKernel(int nnz, const int *__restrict__ perm, const double *__restrict__ a, double *at)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) at[k] = a[perm[k]];
}

/* The transposed factor of T, analysed for the sweeps that T's transposed solves need. */
PetscErrorCode CreateTranspose(SFPCTriDevice T, SFPCTriDevice *out)
{
  const int           n = (int)T->n, nnz = (int)T->nnz, tpb = 256;
  cudaStream_t        stream;
  unsigned long long *key, *skey;
  int                *pos, *perm, *ti, *tj;
  sfpc::CubScratch    scratch;
  int                 bits     = 1;
  SFPCTriOptions      o        = T->opt;
  PetscErrorCode      ierr;

  PetscFunctionBegin;
  if (o.layout == SFPC_LAYOUT_GRID) o.layout = SFPC_LAYOUT_AUTO; /* transposed solves keep the level layouts */
  o.grid[0] = o.grid[1] = o.grid[2] = 0;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  while (bits < 64 && (1ULL << bits) < (unsigned long long)n * (unsigned long long)n) bits++;
  PetscCallCUDA(cudaMallocAsync(&key, sizeof(*key) * nnz, stream));
  PetscCallCUDA(cudaMallocAsync(&skey, sizeof(*skey) * nnz, stream));
  PetscCallCUDA(cudaMallocAsync(&pos, sizeof(int) * nnz, stream));
  PetscCallCUDA(cudaMallocAsync(&perm, sizeof(int) * nnz, stream));
  PetscCallCUDA(cudaMallocAsync(&ti, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&tj, sizeof(int) * nnz, stream));
  PetscCallCUDA(cudaMemsetAsync(ti, 0, sizeof(int) * (n + 1), stream));
  KeysKernel<<<sfpc::LaunchBlocks(n, tpb), tpb, 0, stream>>>(n, T->i, T->j, key, pos, ti);
  PetscCallCUDA(cudaGetLastError());
  auto sort = [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, pos, perm, nnz, 0, bits, stream); };
  auto scan = [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, ti, ti, n + 1, stream); };
  PetscCall(sfpc::CubReserve(scratch, sort));
  PetscCall(sfpc::CubReserve(scratch, scan));
  PetscCall(sfpc::CubAllocate(scratch, stream));
  PetscCall(sfpc::CubRun(scratch, sort));
  PetscCall(sfpc::CubRun(scratch, scan));
  ColumnsKernel<<<sfpc::LaunchBlocks(nnz, tpb), tpb, 0, stream>>>(nnz, n, skey, tj);
  PetscCallCUDA(cudaGetLastError());

  /* M^T's lower part is M's upper part transposed: the sweeps, and which of them has a unit diagonal, swap sides */
  o.lower      = T->opt.upper;
  o.upper      = T->opt.lower;
  o.lower_unit = T->opt.upper_unit;
  o.upper_unit = T->opt.lower_unit;
  ierr = SFPCTriDeviceCreate(n, nnz, ti, tj, PETSC_TRUE, &o, out);
  if (!ierr) (*out)->perm = perm; /* the factor's from here on */
  PetscCall(sfpc::CubRelease(scratch, stream));
  PetscCallCUDA(cudaFreeAsync(key, stream));
  PetscCallCUDA(cudaFreeAsync(skey, stream));
  PetscCallCUDA(cudaFreeAsync(pos, stream));
  PetscCallCUDA(cudaFreeAsync(ti, stream));
  PetscCallCUDA(cudaFreeAsync(tj, stream));
  if (ierr) PetscCallCUDA(cudaFreeAsync(perm, stream));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

/*
   T's transposed factor (an engine factor in T's numbering whose L sweep is U^T's and U sweep L^T's), built on first use and
   refilled when T's values changed since; it has T's point-blocks (the transpose keeps them).
*/
PetscErrorCode SFPCTriDeviceGetTranspose(SFPCTriDevice T, SFPCTriDevice *Tt)
{
  PetscFunctionBegin;
  if (!T->transpose) {
    PetscCall(CreateTranspose(T, &T->transpose));
    T->transpose_stale = PETSC_TRUE;
  }
  PetscCall(SFPCTriDeviceSetBlocks(T->transpose, T->blocks.asked, T->blocks.sweeps, T->blocks.slabs));
  if (T->transpose_stale) {
    cudaStream_t stream;
    const int    tpb = 256;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    if (T->nnz) GatherKernel<<<sfpc::LaunchBlocks(T->nnz, tpb), tpb, 0, stream>>>((int)T->nnz, T->transpose->perm, T->a, T->transpose->a);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(SFPCTriDeviceValuesChanged(T->transpose));
    T->transpose_stale = PETSC_FALSE;
  }
  *Tt = T->transpose;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = (LU)^{-T} b; b and x may be the same. */
PetscErrorCode SFPCTriDeviceSolveTranspose(SFPCTriDevice T, const PetscScalar *b, PetscScalar *x)
{
  SFPCTriDevice Tt = NULL;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCTriDeviceGetTranspose(T, &Tt));
  PetscCall(SFPCTriDeviceSolve(Tt, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One transposed sweep: x = L^{-T} b (lower) or U^{-T} b; x must not alias b. */
PetscErrorCode SFPCTriDeviceSweepTranspose(SFPCTriDevice T, PetscBool lower, const PetscScalar *b, PetscScalar *x)
{
  SFPCTriDevice Tt = NULL;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCTriDeviceGetTranspose(T, &Tt));
  PetscCall(SFPCTriDeviceSweep(Tt, (PetscBool)!lower, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}
