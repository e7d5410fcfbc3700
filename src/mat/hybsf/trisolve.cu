/*
   Sync-free triangular solves over the engine's CSR factor (the multirow scheme of Freire's
   SpTRSV_mr, shared/seeds/001 section 4.1): each warp takes a task by ticket, splits into
   vectors of vec lanes, one row each; a lane waits for each unknown it needs, the vector
   reduces, and its first lane publishes the row. No barrier between levels.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>

namespace
{
/*
   LOWER: x = L^{-1} b with L unit lower triangular (the entries left of the diagonal).
   UPPER: x = U^{-1} b with U the diagonal and right of it, the diagonal slot holding 1/u_rr.
   x must hold the sentinel on entry; each row, once done, sets reset[r] to the sentinel, which
   readies the other sweep's output (LOWER resets the U output, UPPER its own input) so that no
   pass over memory is needed between applies.
*/
template <bool LOWER>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) TriSolveKernel(const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, SFPCSchedule S, const double *b, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31;
  for (long long w; (w = sfpc::TakeTask(counter, base)) < S.ntasks;) {
    const int  s = S.vec[w], t = lane & (s - 1);
    const int  p      = S.start[w] + lane / s;
    const bool active = p < S.start[w + 1];
    int        r      = 0;
    double     sum    = 0;

    if (active) {
      r            = S.order[p];
      const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
      for (int k = kb + t; k < ke; k += s) sum += a[k] * sfpc::WaitValue(x, aj[k]);
    }
    sum = sfpc::VectorSum(sum, s);
    if (active && t == 0) {
      const double br = b[r];
      sfpc::ResetValue(reset, r); /* after reading b: in the U sweep reset is b */
      sfpc::PublishValue(x, r, LOWER ? br - sum : (br - sum) * a[ad[r]]);
    }
  }
}

template <bool LOWER>
PetscErrorCode TriSweep(SFPCTriDevice T, const SFPCSchedule &S, const PetscScalar *b, PetscScalar *x, PetscScalar *reset, cudaStream_t stream)
{
  int                blocks, epoch;
  unsigned long long base;

  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceBeginSweep(T, S.ntasks, &blocks, &epoch, &base));
  TriSolveKernel<LOWER><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(T->i, T->j, T->diag, T->a, S, b, x, reset, T->counter, base);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* x = U^{-1} L^{-1} b on the device; b and x are device arrays and may be the same (b is read before x is touched). */
PetscErrorCode SFPCTriDeviceSolve(SFPCTriDevice T, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  /* b -> z (L), z -> x (U); T->z holds the sentinel between applies, and the L sweep sets x to it */
  PetscCall(TriSweep<true>(T, T->lower, b, T->z, x, stream));
  PetscCall(TriSweep<false>(T, T->upper, T->z, x, T->z, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
