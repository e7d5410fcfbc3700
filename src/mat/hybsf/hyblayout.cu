/*
   The hyb layout of a sweep (Freire's HYB_syncfree, shared/seeds/001 section 4.2.1): per warp
   task a slab of 32 column/value slots, lane-contiguous, padded inside each row's vector, so that
   a warp reads the entries of its rows with one coalesced load instead of chasing row pointers
   of rows far apart in CSR. A row of more than 32 entries keeps its first 32 in the slab and
   reads the rest from the engine's CSR (where the thesis stores the CSR range in slot 0, we
   read the row pointers: such rows are long, so one more load is small next to their work).
   The slab values are copies: SFPCScheduleFillSlabs() refreshes them after the factor changes.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>

namespace
{
/*
   One thread per slot. The pattern (columns, rows) is written once, when the sweep is built, before
   the caller has any values in T->a; the values (and inverse diagonals) at every change of values.
*/
template <bool LOWER, bool PATTERN>
__global__ void SlabKernel(SFPCSchedule S, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a)
{
  const long long slot = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (slot >= 32LL * S.ntasks) return;
  const int w = (int)(slot / 32), lane = (int)(slot % 32);
  const int s = S.vec[w], p = S.start[w] + lane / s, t = lane & (s - 1);
  int       r = -1, c = -1;
  double    v = 0;
  if (p < S.start[w + 1]) {
    r            = S.order[p];
    const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
    if (kb + t < ke) {
      if (PATTERN) c = aj[kb + t];
      else v = a[kb + t];
    }
    if (!PATTERN && t == 0 && S.dinv) S.dinv[r] = a[ad[r]];
  }
  if (PATTERN) {
    S.cols[slot] = c;
    S.rows[slot] = r;
  } else S.vals[slot] = v;
}

PetscErrorCode LaunchSlabs(SFPCTriDevice T, PetscBool lower, const SFPCSchedule *S, bool pattern)
{
  cudaStream_t    stream;
  const int       tpb   = 256;
  const long long slots = 32LL * S->ntasks;
  const int       grid  = sfpc::LaunchBlocks(slots, tpb);

  PetscFunctionBegin;
  if (!slots) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (pattern) {
    if (lower) SlabKernel<true, true><<<grid, tpb, 0, stream>>>(*S, T->i, T->j, T->diag, T->a);
    else SlabKernel<false, true><<<grid, tpb, 0, stream>>>(*S, T->i, T->j, T->diag, T->a);
  } else {
    if (lower) SlabKernel<true, false><<<grid, tpb, 0, stream>>>(*S, T->i, T->j, T->diag, T->a);
    else SlabKernel<false, false><<<grid, tpb, 0, stream>>>(*S, T->i, T->j, T->diag, T->a);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* Allocates the slabs of a sweep (and its inverse diagonals when not unit) and writes T's pattern into them; the values come with SFPCScheduleFillSlabs(). */
PetscErrorCode SFPCScheduleBuildSlabs(SFPCTriDevice T, PetscBool lower, SFPCSchedule *S)
{
  const size_t slots = 32 * (size_t)S->ntasks;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&S->cols, sizeof(int) * PetscMax(slots, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->rows, sizeof(int) * PetscMax(slots, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->vals, sizeof(PetscScalar) * PetscMax(slots, 1), stream));
  if (!S->unit) PetscCallCUDA(cudaMallocAsync(&S->dinv, sizeof(PetscScalar) * PetscMax(T->n, 1), stream));
  PetscCall(LaunchSlabs(T, lower, S, true));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies T's current values into the slabs of a hyb sweep. */
PetscErrorCode SFPCScheduleFillSlabs(SFPCTriDevice T, PetscBool lower, SFPCSchedule *S)
{
  PetscFunctionBegin;
  PetscCall(LaunchSlabs(T, lower, S, false));
  PetscFunctionReturn(PETSC_SUCCESS);
}
