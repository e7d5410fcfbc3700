/*
   Device-side pieces shared by every sync-free kernel of SFPC (CUDA only).

   A sync-free sweep runs a DAG of rows with no barrier between levels. Its schedule (built
   once per nonzero pattern by src/mat/hybsf/analysis.cu) lists the rows in an order that
   respects dependencies and packs them into warp tasks: task w holds the rows
   order[start[w] .. start[w+1]), all of the same level (so never dependent on each other),
   each row handled by a vector of vec[w] lanes (1, 2, 4, 8, 16 or 32).

   Kernels take tasks from an atomic ticket, never from blockIdx: a warp holding ticket w
   only waits for rows of tasks < w, whose warps already run, so the sweep progresses without
   any forward-progress guarantee between blocks. Warps are persistent (a bounded number, each
   taking tickets until one is past the end), so that the number of warps polling at once stays
   tunable.

   Readiness: the factorization publishes each row with an epoch flag (release store; waiters
   poll relaxed, then fence with acquire), so a new sweep only bumps the epoch and never clears
   flags. The solves publish each unknown through its value (see WaitValue()); a NaN in the
   data is never mistaken for "not ready" in either scheme.
*/
#pragma once

#include <climits>
#include <cuda/atomic>
#include <sfpc/private/trifactor_device.h>


/* A grid-layout sweep (gridsweep.cu), x = T^{-1} b for the lower or upper part, with the reset of the engine's solves (see trisolve.cu). */
PETSC_INTERN PetscErrorCode SFPCGridSweep_Device(SFPCTriDevice, PetscBool, const PetscScalar *, PetscScalar *, PetscScalar *, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCBlockSweep_Device(SFPCTriDevice, PetscBool, const PetscScalar *, PetscScalar *, PetscScalar *, cudaStream_t);
/* Frees the n device arrays of p that are not NULL, on the stream (trifactor_device.cu). */
PETSC_INTERN PetscErrorCode SFPCFreeAll(cudaStream_t, int, void **);
PETSC_INTERN PetscErrorCode SFPCScheduleFree(SFPCSchedule *, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCScheduleFreeSlabs(SFPCSchedule *, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCPatternFree(SFPCPattern *, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCGridBoxSweep_Device(SFPCTriDevice, PetscBool, const PetscScalar *, PetscScalar *, PetscScalar *, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCGridBoxCreate_Device(SFPCTriDevice, SFPCSchedule *, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCGridBoxFill_Device(SFPCTriDevice, cudaStream_t);
PETSC_INTERN PetscErrorCode SFPCGridSweepResidual_Device(SFPCTriDevice, const int *, const int *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscInt, PetscScalar *, PetscScalar *, cudaStream_t);

/* Sync-free sweeps launch this many warps per block. */
#define SFPC_WARPS_PER_BLOCK 4

namespace sfpc
{
/*
   Blocks of a launch of `threads` threads, tpb a block: ceil(threads / tpb), computed in 64 bits, and at least 1 (CUDA
   refuses a grid of none; a caller with nothing to do skips its launch). threads is what the kernel covers: rows,
   entries, or rows times the lanes of each (a warp a row: 32 * rows). It may pass INT_MAX (n * 32 lanes from
   6.7*10^7 rows); the blocks do not for any launch of SFPC (int rows times at most 32 lanes, 32 threads a block or
   more). Were they to, the result is 0, not a wrapped count: CUDA refuses that launch, as it would the true grid
   (more than 2^31 - 1 blocks), and the caller's cudaGetLastError() reports it, where a wrapped, smaller grid would
   silently leave rows out.
*/
__host__ inline int LaunchBlocks(long long threads, int tpb)
{
  const long long blocks = threads > 0 ? (threads - 1) / tpb + 1 : 1;
  return blocks <= INT_MAX ? (int)blocks : 0;
}

__device__ __forceinline__ void StoreRelease(int *p, int v)
{
  cuda::atomic_ref<int, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}

/* Between two polls of a row that is not ready: thousands of polling warps otherwise saturate L2 and slow the rows they wait for. */
#ifndef SFPC_POLL_SLEEP_NS
  #define SFPC_POLL_SLEEP_NS 32
#endif
template <int NS = SFPC_POLL_SLEEP_NS>
__device__ __forceinline__ void Backoff()
{
  if (NS) __nanosleep(NS);
}

/*
   Whether row c of the current sweep is published: an acquire load, so that what this thread reads
   next of the row is what the row published. Relaxed polls with one acquire fence after them
   made the sync-free ILU(0) factorization 1.3x slower on 7-point and driven-cavity matrices (H100,
   bench/README.md): a fence orders all of the thread's memory operations, the load only what follows it.
*/
__device__ __forceinline__ bool IsReady(const int *flags, int c, int epoch)
{
  return cuda::atomic_ref<const int, cuda::thread_scope_device>(flags[c]).load(cuda::memory_order_acquire) == epoch;
}

/* Spins until row c of the current sweep is published (acquire, see IsReady()). */
__device__ __forceinline__ void WaitReady(const int *flags, int c, int epoch)
{
  while (!IsReady(flags, c, epoch)) Backoff();
}

/*
   Solves publish each unknown through its value: an output array holds the sentinel (a NaN with
   a payload no arithmetic produces: computed NaNs carry the canonical payload, and a result that
   happened to match is replaced by the canonical NaN) until the row writes it. One 8-byte
   relaxed load per dependency and no flags or fences on the critical path.
*/
#define SFPC_SENTINEL 0xFFF8DEAD5F5FBEEFULL

template <int NS = SFPC_POLL_SLEEP_NS>
__device__ __forceinline__ double WaitValue(const double *x, int c)
{
  unsigned long long v;
  while ((v = cuda::atomic_ref<const unsigned long long, cuda::thread_scope_device>(*(const unsigned long long *)(x + c)).load(cuda::memory_order_relaxed)) == SFPC_SENTINEL) Backoff<NS>();
  return __longlong_as_double((long long)v);
}

/* The bits a published value is stored as: never the sentinel. */
__device__ __forceinline__ unsigned long long PublishedBits(double v)
{
  const unsigned long long bits = (unsigned long long)__double_as_longlong(v);
  return bits == SFPC_SENTINEL ? 0x7FF8000000000000ULL : bits;
}

__device__ __forceinline__ void PublishValue(double *x, int r, double v)
{
  const unsigned long long bits = PublishedBits(v);
  /* no fence: the value is the only data published. A __threadfence() here made the solves
     10-17% slower on an H200 (bench/README.md, variants). */
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*(unsigned long long *)(x + r)).store(bits, cuda::memory_order_relaxed);
}

__device__ __forceinline__ void ResetValue(double *x, int r)
{
  *(unsigned long long *)(x + r) = SFPC_SENTINEL;
}

/* x[r] as bits, without waiting: the sentinel when not published yet (the grid layouts' chunked reads). */
__device__ __forceinline__ unsigned long long LoadBits(const double *x, int r)
{
  return cuda::atomic_ref<const unsigned long long, cuda::thread_scope_device>(*(const unsigned long long *)(x + r)).load(cuda::memory_order_relaxed);
}

/*
   sum plus, over k = kb, kb + s, ... < ke, a[k] x[aj[k]], each x waited for, where aside(c, v) is false
   (the block sweeps keep a block's own entries aside). A wait is a load whose result decides a branch,
   so a loop that waits entry by entry pays one L2 round trip per entry; here the loads of P entries
   are issued before the first wait, about one round trip per P entries. The products are added in k
   order, as the entry-by-entry loop does: the same sum bit for bit.
*/
template <int P, int NS, class Aside>
__device__ __forceinline__ double WaitedDot(double sum, const int *__restrict__ aj, const double *__restrict__ a, int kb, int ke, int s, const double *x, Aside aside)
{
  for (int k0 = kb; k0 < ke; k0 += P * s) {
    int                c[P];
    double             v[P];
    unsigned long long xb[P];
    const int          m = min(P, (ke - k0 + s - 1) / s); /* entries of this group: the loops stop there, not predicated past it */
  #pragma unroll
    for (int q = 0; q < P && q < m; q++) {
      c[q] = aj[k0 + q * s];
      v[q] = a[k0 + q * s];
    }
  #pragma unroll
    for (int q = 0; q < P && q < m; q++) {
      if (aside(c[q], v[q])) c[q] = -1;
      else xb[q] = LoadBits(x, c[q]);
    }
  #pragma unroll
    for (int q = 0; q < P && q < m; q++)
      if (c[q] >= 0) {
        while (xb[q] == SFPC_SENTINEL) {
          Backoff<NS>();
          xb[q] = LoadBits(x, c[q]);
        }
        sum += v[q] * __longlong_as_double((long long)xb[q]);
      }
  }
  return sum;
}

/* v - c * y as the host's sweeps compute s -= a * x: the product rounded, then the difference (no fused multiply-add). */
__device__ __forceinline__ double SubProduct(double v, double c, double y)
{
  return __dsub_rn(v, __dmul_rn(c, y));
}

/*
   Data a kernel reads once and whole (the hyb slabs of a task, a row of A read by an SpMV-like
   kernel, a permutation) goes through L2 with the evict-first hint, so that L2 keeps the unknowns,
   which later rows read again as dependencies: at 128^3 (bench/README.md, "Cache hints") the hyb
   LU apply 1.08 -> 1.04 ms, the sync-free DILU apply 0.45 -> 0.40 ms on an H100. Not for data read
   in parts by different sweeps or lanes (b[r], one triangle of a combined CSR row): evicted after
   the first touch, those sectors come back from DRAM for the rest (a per-color DILU sweep at 256^3
   became 7% slower). Still coherent loads (ld.global.cs, not the read-only path).
*/
#ifndef SFPC_STREAM_HINTS
  #define SFPC_STREAM_HINTS 1
#endif
template <typename T>
__device__ __forceinline__ T LoadOnce(const T *p)
{
  return SFPC_STREAM_HINTS ? __ldcs(p) : *p;
}

/* The first position p in [lo, hi) of the sorted a with a[p] >= x (hi if none). */
__device__ __forceinline__ int LowerBound(const int *__restrict__ a, int lo, int hi, int x)
{
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Position of column c in the sorted aj[lo, hi), or -1. */
__device__ __forceinline__ int FindSorted(const int *__restrict__ aj, int lo, int hi, int c)
{
  const int p = LowerBound(aj, lo, hi, c);
  return p < hi && aj[p] == c ? p : -1;
}

/* The task of this warp: one ticket per warp, broadcast from lane 0. */
__device__ __forceinline__ long long TakeTask(unsigned long long *counter, unsigned long long base)
{
  unsigned long long t = 0;
  if ((threadIdx.x & 31) == 0) t = atomicAdd(counter, 1ULL);
  t = __shfl_sync(0xffffffffu, t, 0);
  return (long long)(t - base);
}

/*
   Sum over the lanes of one vector of s lanes (s a power of two dividing 32); every lane gets it, and every lane of
   the warp calls it. The warp is reconverged first: its lanes leave their polls at different times, and without the
   __syncwarp() the compiler guards each shuffle with a divergence check that took the slow, collective path in about
   95% of calls (Nsight Compute); with it the hyb apply of the 7-point 128^3 ILU(0) went from 0.99 to 0.83 ms and the
   csr sweeps of bcsstk16 1.45x faster (H200, bench/README.md, "Reconverging before the vector sum").
*/
__device__ __forceinline__ double VectorSum(double v, int s)
{
  __syncwarp();
  for (int off = s >> 1; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off, s);
  return v;
}

/*
   *p = max(*p, v) over the lanes executing this together, by one atomic: a per-row atomic on one address
   serializes in L2 (about one a clock: a millisecond for 2M rows; bench/README.md, sfdilu). For nonnegative
   doubles as bits too: they order like the integers.
*/
__device__ __forceinline__ void AtomicMaxWarp(unsigned long long *p, unsigned long long v)
{
  const unsigned act = __activemask(), hi = __reduce_max_sync(act, (unsigned)(v >> 32));
  const unsigned lo  = __reduce_max_sync(act, (unsigned)(v >> 32) == hi ? (unsigned)v : 0u);
  if ((threadIdx.x & 31) == __ffs(act) - 1 && (hi || lo)) atomicMax(p, (unsigned long long)hi << 32 | lo);
}

__device__ __forceinline__ void AtomicMaxWarp(int *p, int v)
{
  const unsigned act = __activemask();
  const int      m   = __reduce_max_sync(act, v);
  if ((threadIdx.x & 31) == __ffs(act) - 1) atomicMax(p, m);
}

/* *p += v over the lanes executing this together, by one atomic (as AtomicMaxWarp()). */
__device__ __forceinline__ void AtomicAddWarp(int *p, int v)
{
  const unsigned act = __activemask();
  const int      sum = __reduce_add_sync(act, v);
  if ((threadIdx.x & 31) == __ffs(act) - 1) atomicAdd(p, sum);
}

/* Lanes of the vector that lane belongs to, as a mask for __syncwarp(). */
__device__ __forceinline__ unsigned VectorMask(int lane, int s)
{
  const unsigned ones = s == 32 ? 0xffffffffu : ((1u << s) - 1u);
  return ones << (lane & ~(s - 1));
}
/* Box p of a grid of parts (trifactor_device.h, SFPCPartsGrid): its first point and extent along each axis. */
__host__ __device__ inline void PartsBox(const SFPCPartsGrid &G, int p, int first[3], int len[3])
{
  const int c[3] = {p % G.b[0], (p / G.b[0]) % G.b[1], p / (G.b[0] * G.b[1])};
  for (int d = 0; d < 3; d++) {
    const int q = G.n[d] / G.b[d], r = G.n[d] % G.b[d];
    first[d]    = c[d] * q + (c[d] < r ? c[d] : r);
    len[d]      = q + (c[d] < r);
  }
}

/* The box holding grid point c (PartsBox()'s inverse along each axis). */
__host__ __device__ inline int PartsBoxOf(const SFPCPartsGrid &G, const int c[3])
{
  int b[3];
  for (int d = 0; d < 3; d++) {
    const int q = G.n[d] / G.b[d], r = G.n[d] % G.b[d];
    b[d] = c[d] < r * (q + 1) ? c[d] / (q + 1) : r + (c[d] - r * (q + 1)) / q;
  }
  return b[0] + G.b[0] * (b[1] + G.b[1] * b[2]);
}

} // namespace sfpc
