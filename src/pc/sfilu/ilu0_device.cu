/*
   Numeric ILU(0) on the GPU, sync-free, in place in the engine's factor values.

   Rows run in the order of the L schedule (same analysis as the L solve): a vector of lanes per
   row walks its L entries left to right; for each one it waits until the row it names is
   finished, forms the multiplier, and subtracts the multiple of that row's U part from the
   entries of its own row that share a column (a merge for one-lane rows, a binary search per
   lane otherwise). The vector size comes from the row's length class, as the thesis's
   ILU_adapt chooses it from row lengths (shared/seeds/001, chapter 5).
*/
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"

namespace
{
/*
   a - l*u rounded twice, as the host reference computes it: no fused multiply-add, so the
   device factor is bitwise the host factor (each entry sees the same operations in the same order).
*/
__device__ __forceinline__ double Update(double a, double l, double u)
{
  return __dsub_rn(a, __dmul_rn(l, u));
}

/* Position of column col in aj[lo, hi), or -1. */
__device__ __forceinline__ int FindColumn(const int *__restrict__ aj, int lo, int end, int col)
{
  int hi = end;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (aj[mid] < col) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && aj[lo] == col ? lo : -1;
}

/*
   found[0]: lowest row whose pivot failed (|u| <= zeropivot * rowsum, or Re u <= that when
   positive, or u not finite); found[1]: lowest row with an Inf/NaN entry. Both start at n.
   Failed pivots stay in their slot for the report; good ones are replaced by 1/u.
*/
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) ILU0Kernel(const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ A, double *a, SFPCSchedule S, int *flags, int epoch, unsigned long long *counter, unsigned long long base, double shift, double zeropivot, int positive, int *found)
{
  const int lane = threadIdx.x & 31;
  for (long long w; (w = sfpc::TakeTask(counter, base)) < S.ntasks;) { /* persistent warps */
    const int      s = S.vec[w], t = lane & (s - 1);
    const int      p      = S.start[w] + lane / s;
    const bool     active = p < S.start[w + 1]; /* whole vectors are active or not */
    const unsigned vmask  = sfpc::VectorMask(lane, s);
    int            r = 0, rb = 0, re = 0, rd = 0;
    double         rowsum = 0;

    if (active) {
      r  = S.order[p];
      rb = ai[r];
      re = ai[r + 1];
      rd = ad[r];
      for (int k = rb + t; k < re; k += s) {
        const double v = A[k];
        rowsum += fabs(v);
        a[k] = k == rd ? v + shift : v;
      }
    }
    rowsum = sfpc::VectorSum(rowsum, s); /* all lanes: the last whole-warp step before the next ticket */
    if (active) {
      __syncwarp(vmask);

      /*
         The dependencies in chunks of s, one per lane: what does not wait (the row c, where its
         U part starts and ends) and whether c is finished already are read by all lanes at once,
         so that the serial walk below waits only on rows not finished yet and its first loads
         are the values. The walk keeps the host's order (k ascending), so the factor stays bitwise.
      */
      const int v0 = lane & ~(s - 1); /* the vector's first lane */
      for (int k0 = rb; k0 < rd; k0 += s) {
        const int kc = k0 + t, nk = min(s, rd - k0);
        int       c = 0, cd = 0, ce = 0;
        bool      ready = true;
        if (kc < rd) {
          c     = aj[kc];
          cd    = ad[c];
          ce    = ai[c + 1];
          ready = sfpc::IsReady(flags, c, epoch);
        }
        const unsigned seen = __ballot_sync(vmask, ready);
        sfpc::AcquireReady();
        __syncwarp(vmask); /* each lane's acquire covers what the others read of the rows it saw finished */
        for (int j = 0; j < nk; j++) {
          const int k = k0 + j, cj = __shfl_sync(vmask, c, v0 + j), dj = __shfl_sync(vmask, cd, v0 + j), me = __shfl_sync(vmask, ce, v0 + j);
          if (!(seen >> (v0 + j) & 1)) sfpc::WaitReady(flags, cj, epoch);
          const double l = __dmul_rn(a[k], __ldcg(a + dj)); /* row cj is final: its diagonal slot holds 1/u */
          if (s == 1) { /* one lane: merge U(cj) with the rest of row r */
            int q = k + 1;
            for (int m = dj + 1; m < me && q < re; m++) {
              const int col = aj[m];
              while (q < re && aj[q] < col) q++;
              if (q < re && aj[q] == col) a[q] = Update(a[q], l, __ldcg(a + m));
            }
          } else {
            for (int m = dj + 1 + t; m < me; m += s) {
              const int q = FindColumn(aj, k + 1, re, aj[m]);
              if (q >= 0) a[q] = Update(a[q], l, __ldcg(a + m));
            }
          }
          __syncwarp(vmask); /* every lane has read a[k] and finished its updates */
          if (t == 0) a[k] = l;
        }
      }
      if (t == 0) {
        const double u   = a[rd];
        const double tol = zeropivot * rowsum;
        if (!isfinite(rowsum)) atomicMin(found + 1, r);
        if (!isfinite(u) || (positive ? u <= tol : fabs(u) <= tol)) atomicMin(found, r);
        else a[rd] = __ddiv_rn(1.0, u);
      }
      __threadfence(); /* the row's values reach every SM before the row is published */
      __syncwarp(vmask);
      if (t == 0) sfpc::StoreRelease(flags + r, epoch);
    }
  }
}

/* Largest row sum of |A| (into bound[0]) and largest sum_{j != r} |a_rj| - Re a_rr, clipped at 0 (bound[1]); bit patterns of nonnegative doubles order like integers. */
__global__ void ShiftBoundsKernel(int n, const int *__restrict__ ai, const int *__restrict__ ad, const double *__restrict__ A, unsigned long long *bound)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  double sum = 0;
  for (int k = ai[r]; k < ai[r + 1]; k++) sum += fabs(A[k]);
  const double top = fmax(sum - fabs(A[ad[r]]) - A[ad[r]], 0.0);
  atomicMax(bound, (unsigned long long)__double_as_longlong(sum));
  atomicMax(bound + 1, (unsigned long long)__double_as_longlong(top));
}
} // namespace

/*
   The failure report of a factorization kernel (ILU(0) or SIP): T->report holds {lowest failed
   pivot row, lowest row with an Inf/NaN entry}, both n when none; a failed pivot is left in its
   diagonal slot.
*/
PetscErrorCode SFILUReportBegin_Device(SFPCTriDevice T, SFILUResult *res)
{
  cudaStream_t stream;
  const int    none[2] = {(int)T->n, (int)T->n};

  PetscFunctionBegin;
  res->badrow = res->nonfinite = -1;
  res->badpivot                = 0;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  /* from pageable memory: staged before the call returns (CUDA's API synchronization rules), so none may go out of scope */
  PetscCallCUDA(cudaMemcpyAsync(T->report, none, sizeof(none), cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUReportEnd_Device(SFPCTriDevice T, SFILUResult *res)
{
  cudaStream_t stream;
  int          found[2];

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(found, T->report, sizeof(found), cudaMemcpyDeviceToHost, stream)); /* the one wait of a factorization: PETSc needs the outcome */
  PetscCallCUDA(cudaStreamSynchronize(stream));
  /* the host reference stops at the first row that fails either way: report only that one, as it does
     (rows after a failure are computed from garbage on the device, but every row below it is exact) */
  if (found[1] <= found[0]) found[0] = (int)T->n; /* a row with an Inf/NaN entry fails before its pivot is looked at */
  else found[1] = (int)T->n;
  if (found[1] < T->n) res->nonfinite = found[1];
  if (found[0] < T->n) {
    int d;
    res->badrow = found[0];
    PetscCallCUDA(cudaMemcpy(&d, T->diag + found[0], sizeof(int), cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(&res->badpivot, T->a + d, sizeof(PetscScalar), cudaMemcpyDeviceToHost));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0) of A + shift I, A's values given on the device in the factor's pattern. */
PetscErrorCode SFILUFactorNumeric_Device(SFPCTriDevice T, const PetscScalar *A, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  cudaStream_t       stream;
  int                blocks, epoch;
  unsigned long long base;

  PetscFunctionBegin;
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SFPCTriDeviceTakeTickets(T, T->lower.ntasks, T->lower.factor_resident, &blocks, &base));
  PetscCall(SFPCTriDeviceNextEpoch(T, &epoch));
  PetscCall(PetscLogGpuTimeBegin());
  ILU0Kernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(T->i, T->j, T->diag, A, T->a, T->lower, T->flags, epoch, T->counter, base, (double)shift, (double)zeropivot, (int)positive, T->report);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUShiftBounds_Device(SFPCTriDevice T, const PetscScalar *A, PetscReal *rmax, PetscReal *top)
{
  cudaStream_t        stream;
  unsigned long long  hb[2] = {0, 0}, *db;
  const int           tpb   = 256;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMalloc(&db, sizeof(hb)));
  PetscCallCUDA(cudaMemcpyAsync(db, hb, sizeof(hb), cudaMemcpyHostToDevice, stream));
  if (T->n) ShiftBoundsKernel<<<(int)((T->n + tpb - 1) / tpb), tpb, 0, stream>>>((int)T->n, T->i, T->diag, A, db);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hb, db, sizeof(hb), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(db));
  memcpy(rmax, &hb[0], sizeof(double));
  memcpy(top, &hb[1], sizeof(double));
  PetscFunctionReturn(PETSC_SUCCESS);
}
