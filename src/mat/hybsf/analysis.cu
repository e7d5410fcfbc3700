/*
   Dependency analysis of a triangular part, on the GPU, once per nonzero pattern:
   1. ASAP levels, sync-free: level(r) = 1 + max level of the rows it depends on. Either a warp
      per 32 consecutive rows, taken by ticket in the solve's order, polling their dependencies
      (LevelKernel), or, on large grids with short rows, a ready queue over the triangle and its
      transpose (QueueLevelKernel; UseQueue() says when, and why).
   2. Optionally ALAP levels (Freire's SpTRSV_Lev, shared/seeds/001 section 4.2.2), sync-free in
      the reverse order: level(r) = min level of the rows that depend on r, minus 1 (by the queue:
      the longest path from r to a sink h(r), then nlevels + 1 - h(r), the same levels). A row that
      nothing depends on (a sink) goes to the last level. The thesis says both "leaves keep their
      level" and (Alg. 17) "leaves go to the last level"; we take the last level: nothing waits
      for a sink, so dispatching it after every row that something waits for lets the warps
      serve the critical path first, and it cannot delay anything. Every dependency of r then
      has a level below r's, so the order stays a valid (deadlock-free) dispatch order.
   3. Rows sorted by (level, window, length class) and packed into warp tasks: a row with d
      dependencies gets a vector of 1 (d <= 1), 2, 4, 8, 16 or 32 (d > 16) lanes, and a task
      packs 32/vector rows of one bucket (same level, so independent). A window is
      SFPC_DISPATCH_WINDOW consecutive rows of the solve's order. Sorted by (level, class) alone, a
      wide level whose rows mix classes (a color of the multicolor DILU, a level of a permuted
      matrix) was dispatched, and its slabs built, as one pass over the level per class, each
      reading the CSR rows and the unknowns of the whole level again; by windows it is one pass,
      and rows of one level are independent in any order (H100, bench/README.md: set-ups 1.6x
      faster on such patterns, their solves up to 5%).
      With opt.window_major = w > 0 the order is (window of w rows, level, class) instead: windows
      first. Still a valid dispatch order for any triangle, since a row's dependencies come before
      it in the solve's order, so in its window or an earlier one; it keeps the warps in flight on
      a few windows of rows, which pays where a numbering puts each row's dependencies a bounded
      distance back (the multicolor DILU's local order, dilu_device.cu) and would serialize a
      3-D stencil in natural order (its chains cross every window).
   The classes are those of Freire's multirow SpTRSV (shared/seeds/001, section 4.1).
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <petscdevice_cuda.h>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

namespace
{
/* Length class of a row with d dependencies, and the vector size of each class. */
__host__ __device__ inline int LengthClass(int d)
{
  return d <= 1 ? (d == 0 ? 0 : 1) : d <= 2 ? 2 : d <= 4 ? 3 : d <= 8 ? 4 : d <= 16 ? 5 : 6;
}
__host__ __device__ inline int ClassVector(int c)
{
  return c <= 1 ? 1 : 1 << (c - 1);
}

/*
   Back-off of a levels-pass warp that learned nothing in a round: SLEEP_NS, doubled after each
   such round up to SLEEP_MAX_NS, back to SLEEP_NS once a lane finishes. ncu showed the pass
   issue-bound (63% of the SMs' issue slots, 45 warps per SM polling; 7-point 128^3, H100): most
   warps hold segments far behind the level wavefront and their polls take issue slots from the
   warps on it. A fixed 128 ns was 3-5% faster than the solves' 32 ns, 2048 ns 25-40% slower (a
   warp on the wavefront then wakes late); doubling from 64 to 512 ns with 64 warps per SM (more
   segments in flight, which a fixed back-off made 7% slower) is 6-12% faster than a fixed 128 ns
   with 48 on 7-point grids, the same on 27-point ones (H100, bench/README.md).
*/
#ifndef SFPC_ANALYSIS_SLEEP_NS
  #define SFPC_ANALYSIS_SLEEP_NS 64
#endif
#ifndef SFPC_ANALYSIS_SLEEP_MAX_NS
  #define SFPC_ANALYSIS_SLEEP_MAX_NS 512
#endif
struct AnalysisBackoff {
  unsigned ns = SFPC_ANALYSIS_SLEEP_NS;
  /* the end of a warp's round: progress (a lane finished) starts over; else sleep (when this lane still waits) and double */
  __device__ __forceinline__ void Round(bool progress, bool waits)
  {
    if (progress) ns = SFPC_ANALYSIS_SLEEP_NS;
    else {
      if (waits) __nanosleep(ns);
      ns = min(2 * ns, (unsigned)SFPC_ANALYSIS_SLEEP_MAX_NS);
    }
  }
};
#ifndef SFPC_QUEUE_WARPS_PER_SM
  #define SFPC_QUEUE_WARPS_PER_SM 32 /* 8 and 16 measured the same within 5%, 64 slower (H100) */
#endif
#ifndef SFPC_QUEUE_MIN_WINDOWS
  #define SFPC_QUEUE_MIN_WINDOWS 9 /* the ready queue from this many times the polling pass's rows in flight (UseQueue()) */
#endif

/*
   ASAP levels. A ticket is a segment of 32 consecutive rows in the solve's order, one row per
   lane: taking one row per warp made the analysis a chain of ~n/32 hops of L2 latency (33 ms at
   128^3 on an H200, 13x cuSPARSE's analysis). Each lane publishes its level as soon as it has it:
   settling a segment together (tried first) made every segment wait for its slowest lane, a false
   dependency that chained all segments of a grid whose lines are not a multiple of 32 rows (22 ms
   at 100^3 against 2.5 ms at 128^3).
   Dependencies inside the segment are settled through shared memory by the warp in lockstep:
   lanes spinning on global memory for rows of their own warp (the version before) left every
   link of such a chain (a grid line: lane i waits for lane i - 1) to the scheduler of diverged
   lanes, microseconds a link, and a warp held its segment about 32 of them, which throttled the
   whole pass through the warps in flight (3.9 ms of a 5 ms analysis at 128^3, 7-point, H100). Now
   a round polls each lane's next rows in earlier segments once; while lanes finish, rounds of
   shared memory only follow the chain in the segment (tens of cycles a link).
*/
template <bool LOWER>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) LevelKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int *level, unsigned long long *counter, unsigned long long base)
{
  __shared__ int seglevel[SFPC_WARPS_PER_BLOCK][32];
  volatile int  *mine = seglevel[threadIdx.x / 32];
  const int      lane = threadIdx.x & 31, nseg = (n + 31) / 32;
  for (long long t; (t = sfpc::TakeTask(counter, base)) < nseg;) {
    const int       q0 = (int)t * 32, q = q0 + lane; /* positions in the solve's order */
    AnalysisBackoff backoff;
    const int       r  = LOWER ? q : n - 1 - q;
    int             xk = 0, xe = 0, ik = 0, ie = 0, lv = 0; /* the row's dependencies in earlier segments [xk, xe) and in this one [ik, ie) */
    bool            done = q >= n, poll = true;
    if (!done) {
      const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
      const int lo = sfpc::LowerBound(aj, kb, ke, LOWER ? q0 : n - q0); /* the first column past the segment's first row, n - 1 - q0 for U */
      xk = LOWER ? kb : lo;
      xe = LOWER ? lo : ke;
      ik = LOWER ? lo : kb;
      ie = LOWER ? ke : lo;
    }
    mine[lane] = 0;
    __syncwarp();
    while (__any_sync(0xffffffffu, !done)) {
      bool finished = false;
      if (!done) { /* as far as the rows this one depends on are known */
        for (; poll && xk < xe; xk++) {
          const int l = cuda::atomic_ref<const int, cuda::thread_scope_device>(level[aj[xk]]).load(cuda::memory_order_relaxed);
          if (!l) break;
          lv = max(lv, l);
        }
        for (; ik < ie; ik++) {
          const int l = mine[(LOWER ? aj[ik] : n - 1 - aj[ik]) - q0];
          if (!l) break;
          lv = max(lv, l);
        }
        if (xk == xe && ik == ie) {
          lv++;
          cuda::atomic_ref<int, cuda::thread_scope_device>(level[r]).store(lv, cuda::memory_order_relaxed); /* the level is the data: no release needed */
          done = finished = true;
        }
      }
      __syncwarp(); /* the round's reads of the segment's levels before its writes: no lane reads a level while it is written */
      if (finished) mine[lane] = lv;
      __syncwarp();
      poll = !__any_sync(0xffffffffu, finished); /* lanes finished: follow them in shared memory first */
      backoff.Round(!poll, !done);
    }
    __threadfence(); /* push the stores out before taking the next segment */
  }
}

/*
   The rows a row depends on, or the rows that depend on it: j[b[r] + off .. e[r]). The triangle's
   own rows give the first (L: b = i, e = diag; U: b = diag, off = 1, e = i + 1), its transpose,
   built here by counting, the second.
*/
struct Adjacency {
  const int *b, *e, *j;
  int        off;
};

/* Adds one to count[c] for each entry (r, c) of a. */
__global__ void CountKernel(int n, Adjacency a, int *count)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  for (int k = a.b[r] + a.off; k < a.e[r]; k++) atomicAdd(count + a.j[k], 1);
}

/* The transpose of a: row c of it lists the rows r with (r, c) in a, in no particular order (levels do not depend on it). */
__global__ void ScatterKernel(int n, Adjacency a, int *fill, int *tj)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  for (int k = a.b[r] + a.off; k < a.e[r]; k++) tj[atomicAdd(fill + a.j[k], 1)] = r;
}

/*
   The first slot of m new entries at the ready queue's tail: one atomic per group of lanes doing it
   together (a per-row atomic on one address serializes in L2).
*/
__device__ inline unsigned int QueueSlots(unsigned int m, unsigned int *tail)
{
  const cg::coalesced_group g = cg::coalesced_threads();
  const unsigned int        before = cg::exclusive_scan(g, m);
  unsigned int              k = 0;
  if (g.thread_rank() == g.size() - 1) k = atomicAdd(tail, before + m);
  return g.shfl(k, g.size() - 1) + before;
}

/* Appends row r to the ready queue (with a release: what the lane did or acquired before, the levels the queued row will read). */
__device__ inline void Enqueue(int r, int *queue, unsigned int *tail)
{
  cuda::atomic_ref<int, cuda::thread_scope_device>(queue[QueueSlots(1, tail)]).store(r, cuda::memory_order_release);
}

#define SFPC_QUEUE_BATCH 8 /* dependencies read, and dependents counted off, at once: one L2 round trip a batch */

/* pending[r] = how many rows r waits for; the rows that wait for none start the queue. */
__global__ void SourcesKernel(int n, Adjacency pull, int *pending, int *queue, unsigned int *tail)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int d = pull.e[r] - pull.b[r] - pull.off;
  pending[r]  = d;
  if (!d) Enqueue(r, queue, tail);
}

/*
   Longest paths through a DAG by a ready queue: level(r) = 1 + max level of the rows r pulls from
   (1 for none). A warp takes 32 consecutive queue slots by ticket; a slot holds the row the queue
   handed it once that row's last dependency is done, so no lane ever polls a row that is not ready,
   and the warps in flight work on the wavefront of the DAG however far apart its rows are. The
   row's level is stored, released, and counted off each row it pushes to; the lane that counts a row
   to zero queues it. Levels come out the same whatever order rows are queued in. The pass is
   latency-bound (a hop is its chain of dependent L2 round trips): the first dependents are read with
   the dependencies, one round trip fewer (6-11% faster); pushing levels by atomic max to the rows that
   wait, and running the row a lane makes ready itself, measured 10-60% slower (bench/README.md).
   The polling pass (LevelKernel: a warp per 32 consecutive rows of the solve's order, polling
   their dependencies) keeps its warps on whatever rows come next in that order: on a 3-D stencil in
   natural order the level wavefront crosses every plane, and its warps spend most of the pass
   polling rows far ahead of the wavefront (9 us a level at 128^3, 32 at 215^3; bench/README.md).
*/
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) QueueLevelKernel(int n, Adjacency pull, Adjacency push, int *level, int *pending, int *queue, unsigned int *tail, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31, nchunk = (n + 31) / 32;
  for (long long t; (t = sfpc::TakeTask(counter, base)) < nchunk;) {
    const int       k    = (int)t * 32 + lane;
    bool            done = k >= n;
    AnalysisBackoff backoff;
    while (__any_sync(0xffffffffu, !done)) {
      bool got = false;
      if (!done) {
        const int r = cuda::atomic_ref<int, cuda::thread_scope_device>(queue[k]).load(cuda::memory_order_acquire);
        if (r >= 0) {
          int       lv = 0, d[SFPC_QUEUE_BATCH];
          const int pe = pull.e[r], qe = push.e[r], p0 = push.b[r] + push.off;
  #pragma unroll
          for (int u = 0; u < SFPC_QUEUE_BATCH; u++) d[u] = p0 + u < qe ? push.j[p0 + u] : -1; /* the first dependents, read with the dependencies: one round trip fewer a hop */
          for (int p = pull.b[r] + pull.off; p < pe; p += SFPC_QUEUE_BATCH) {
            int l[SFPC_QUEUE_BATCH];
  #pragma unroll
            for (int u = 0; u < SFPC_QUEUE_BATCH; u++) l[u] = p + u < pe ? cuda::atomic_ref<int, cuda::thread_scope_device>(level[pull.j[p + u]]).load(cuda::memory_order_relaxed) : 0;
  #pragma unroll
            for (int u = 0; u < SFPC_QUEUE_BATCH; u++) lv = max(lv, l[u]);
          }
          cuda::atomic_ref<int, cuda::thread_scope_device>(level[r]).store(lv + 1, cuda::memory_order_relaxed);
          cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device); /* the level before the counts */
          for (int p = p0; p < qe; p += SFPC_QUEUE_BATCH) {
            unsigned ready = 0;
            if (p > p0) {
  #pragma unroll
              for (int u = 0; u < SFPC_QUEUE_BATCH; u++) d[u] = p + u < qe ? push.j[p + u] : -1;
            }
  #pragma unroll
            for (int u = 0; u < SFPC_QUEUE_BATCH; u++)
              if (d[u] >= 0 && cuda::atomic_ref<int, cuda::thread_scope_device>(pending[d[u]]).fetch_sub(1, cuda::memory_order_relaxed) == 1) ready |= 1u << u;
            if (ready) {
              unsigned int s = QueueSlots(__popc(ready), tail);
              cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_device); /* acquire the levels of the ready rows' other dependencies, release them with the slots */
  #pragma unroll
              for (int u = 0; u < SFPC_QUEUE_BATCH; u++)
                if (ready >> u & 1) cuda::atomic_ref<int, cuda::thread_scope_device>(queue[s++]).store(d[u], cuda::memory_order_relaxed);
            }
          }
          done = got = true;
        }
      }
      backoff.Round(__any_sync(0xffffffffu, got), !done);
    }
  }
}

/* ALAP levels from the longest paths to a sink h: alap = nlevels + 1 - h (a sink: the last level). */
__global__ void AlapFromHeightKernel(int n, const int *nlevels, const int *__restrict__ h, int *level)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) level[r] = *nlevels + 1 - h[r];
}

#define SFPC_ALAP_UNSET 0x7F7F7F7F /* what a byte-wise fill with 0x7F leaves: no dependent has lowered it */

/*
   ALAP levels: rows are taken in the reverse of the solve order, so the rows a row waits for (its
   dependents) hold earlier tickets and already run. Each dependent lowers alap[c] to its own level
   minus 1, then counts itself off pending[c]; row c is final when pending[c] reaches 0. A ticket is
   a segment of 32 rows, one per lane: one row per warp (before) chained n / warps hops, 85 ms
   against the ASAP pass's 4 ms on a 7-point 128^3 triangle (H100). Lanes waiting on lanes of their
   own warp rely on independent thread scheduling (sm_70 and later), which the CUDA build of SFPC
   requires anyway (sm_90).
*/
template <bool LOWER>
__global__ void AlapKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *nlevels, int *alap, int *pending, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31, nseg = (n + 31) / 32;
  for (long long t; (t = sfpc::TakeTask(counter, base)) < nseg;) {
    const int q = (int)t * 32 + lane; /* position in the reverse of the solve's order */
    if (q < n) {
      const int r = LOWER ? n - 1 - q : q, kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
      while (cuda::atomic_ref<int, cuda::thread_scope_device>(pending[r]).load(cuda::memory_order_relaxed) != 0) sfpc::Backoff();
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
      int lv = cuda::atomic_ref<int, cuda::thread_scope_device>(alap[r]).load(cuda::memory_order_relaxed);
      if (lv == SFPC_ALAP_UNSET) lv = *nlevels; /* a sink */
      alap[r] = lv;
      for (int k = kb; k < ke; k++) atomicMin(alap + aj[k], lv - 1);
      __threadfence(); /* each lowering is visible before its count */
      for (int k = kb; k < ke; k++) atomicSub(pending + aj[k], 1);
    }
  }
}

/*
   A row's bucket: level - 1 in the high bits, then the window of its position in the solve's order,
   then its length class (3 bits); window-major (major > 0 rows a window): the window in the high
   bits, then level - 1, then the class. Each field is as wide as n needs (levels <= n), so that the
   radix sort makes as few passes as it can: with fixed 32-bit fields it sorted 53 bits at
   2*10^6 rows, 7 passes where 4 do.
*/
typedef unsigned long long Key;
#ifndef SFPC_DISPATCH_WINDOW
  #define SFPC_DISPATCH_WINDOW 8192 /* rows; a partial task per class and window costs at most 7 tasks per window */
#endif
struct KeyLayout {
  int window;         /* rows per window */
  int lshift, wshift; /* where the level - 1 and the window start */
  int lbits, bits;    /* width of the level field, and of the whole key */
};

static int BitsFor(int m) /* bits that hold 0..m */
{
  int b = 1;
  while (b < 31 && (1 << b) <= m) b++;
  return b;
}

static KeyLayout MakeKeyLayout(int n, int major)
{
  KeyLayout k;
  k.window        = major > 0 ? major : SFPC_DISPATCH_WINDOW;
  k.lbits         = BitsFor(n - 1);
  const int wbits = BitsFor((n - 1) / k.window);
  k.lshift        = major > 0 ? 3 : 3 + wbits;
  k.wshift        = major > 0 ? 3 + k.lbits : 3;
  k.bits          = 3 + wbits + k.lbits;
  return k;
}

/* Sort key of each row and the off-diagonal entries of the triangle (summed per block). */
template <bool LOWER>
__global__ void __launch_bounds__(256) KeyKernel(int n, const int *__restrict__ ai, const int *__restrict__ ad, const int *__restrict__ level, KeyLayout kl, Key *key, int *row, unsigned long long *nnz)
{
  typedef cub::BlockReduce<int, 256> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  int       d = 0;
  if (r < n) {
    d      = LOWER ? ad[r] - ai[r] : ai[r + 1] - ad[r] - 1;
    const int q = LOWER ? r : n - 1 - r;
    const Key l = (Key)(level[r] - 1), c = (Key)LengthClass(d);
    key[r]      = (l << kl.lshift) | ((Key)(q / kl.window) << kl.wshift) | c;
    row[r] = r;
  }
  d = Reduce(tmp).Sum(d);
  if (threadIdx.x == 0) atomicAdd(nnz, (unsigned long long)d);
}

/* nlevels = the largest level */
__global__ void MaxLevelKernel(int n, const int *__restrict__ level, int *nlevels)
{
  int m = 0;
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) m = max(m, level[r]);
  atomicMax(nlevels, m);
}

/* Lanes per row and rows per warp task of a bucket of sort key k. */
__device__ inline int KeyVector(Key k)
{
  return ClassVector((int)(k & 7u));
}

/* Per bucket (run of equal keys): how many tasks it needs. */
__global__ void BucketTasksKernel(const int *nruns, const Key *rkey, const int *rcount, int *rtasks)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= *nruns) return;
  const int perwarp = 32 / KeyVector(rkey[b]);
  rtasks[b]         = (rcount[b] + perwarp - 1) / perwarp;
}

/* One thread per task, its bucket found by bisection: a thread per bucket (before) wrote a wide level's thousands of tasks alone. */
__global__ void FillTasksKernel(int ntasks, const int *nruns, const Key *rkey, const int *rrow0, const int *rtask0, int *start, unsigned char *vec)
{
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= ntasks) return;
  const int lo = sfpc::LowerBound(rtask0, 0, *nruns, w + 1) - 1; /* the last bucket b with rtask0[b] <= w: every bucket has a task */
  const int s = KeyVector(rkey[lo]);
  start[w]    = rrow0[lo] + (w - rtask0[lo]) * (32 / s);
  vec[w]      = (unsigned char)s;
}

/*
   Scalars the host needs to size and describe the schedule: tasks, levels, then rows per vector size (1, 2, ..., 32
   lanes; zeroed before). Reduced per warp first: one atomic per bucket on the same few words took 40 us for the
   10^5 buckets of a 7-point 128^3 triangle.
*/
__global__ void ScheduleSizesKernel(const int *nruns, const Key *rkey, const int *rcount, const int *rtask0, const int *rtasks, KeyLayout kl, int *out)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x, last = *nruns - 1;
  int       lv = 0, rows[6] = {0, 0, 0, 0, 0, 0};
  if (b == 0) out[0] = rtask0[last] + rtasks[last];
  if (b <= last) {
    lv                                  = (int)((rkey[b] >> kl.lshift) & ((1ull << kl.lbits) - 1)) + 1;
    rows[__ffs(KeyVector(rkey[b])) - 1] = rcount[b];
  }
  lv = __reduce_max_sync(0xffffffffu, lv);
  for (int v = 0; v < 6; v++) rows[v] = __reduce_add_sync(0xffffffffu, rows[v]);
  if ((threadIdx.x & 31) == 0 && b - (int)(threadIdx.x & 31) <= last) {
    atomicMax(out + 1, lv);
    for (int v = 0; v < 6; v++)
      if (rows[v]) atomicAdd(out + 2 + v, rows[v]);
  }
}
} // namespace

/* Levels (longest paths) through the DAG pull / push by the ready queue; pending and queue: n ints of scratch, tail: one. */
static PetscErrorCode QueueLevels(SFPCTriDevice T, int n, Adjacency pull, Adjacency push, int *level, int *pending, int *queue, unsigned int *tail, cudaStream_t stream)
{
  const int          tpb = 256, nb = sfpc::LaunchBlocks(n, tpb);
  int                blocks;
  unsigned long long base;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemsetAsync(queue, 0xFF, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMemsetAsync(tail, 0, sizeof(unsigned int), stream));
  SourcesKernel<<<nb, tpb, 0, stream>>>(n, pull, pending, queue, tail);
  PetscCall(SFPCTriDeviceTakeTickets(T, (n + 31) / 32, T->sms * SFPC_QUEUE_WARPS_PER_SM, &blocks, &base));
  QueueLevelKernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, pull, push, level, pending, queue, tail, T->counter, base);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether levels come from the ready queue (QueueLevelKernel) rather than the polling pass
   (LevelKernel). The queue's hop costs several L2 round trips and fences, about 10 us a level (H100), where
   the polling pass's costs 4 us while its warps in flight cover the level wavefront; on a 3-D grid in natural
   order the wavefront crosses every plane, and the polling pass's levels grow slower with the rows beyond the
   rows in flight. Measured (H100, 2026-11-24, analysis ms L / U, bench/README.md): 7-point 128^3 (8 times the
   rows in flight) queue 3.8-4.0 against 3.4-3.5, 140^3 (10 times) 4.3-4.4 against 5.0-5.1, 150^3 4.8-4.9 against
   6.1-6.3, 160^3 (15 times) 5.3-5.5 against 7.1-7.3, 215^3 10.1 / 10.4 against 19.5 / 21.4 (before the queue read
   dependents with dependencies); rows of 13 dependencies (27-point) take batches of 8 a hop, and the queue
   lost there (128^3: 17.1 / 14.5 against 6.8 / 9.6). -sfpc_analysis_queue_rows m: the queue from m rows on
   (tests set 0; read with the package's options, src/sys/sfpcinit.c).
*/
static PetscBool UseQueue(SFPCTriDevice T, const SFPCPattern *P)
{
  if (SFPCAnalysisQueueRows != PETSC_DECIDE) return (PetscBool)(P->n >= SFPCAnalysisQueueRows);
  return (PetscBool)(P->n >= (PetscInt)SFPC_QUEUE_MIN_WINDOWS * 32 * T->resident && P->offdiag <= SFPC_QUEUE_BATCH * P->n);
}

/* Builds the schedule of the lower (L) or upper (U) part of T's pattern, with ASAP or ALAP levels. */
PetscErrorCode SFPCScheduleBuild(SFPCTriDevice T, PetscBool lower, SFPCLevels levels, SFPCSchedule *S)
{
  SFPCPattern P;

  PetscFunctionBegin;
  P.n       = (int)T->n;
  P.nnz     = T->nnz;
  P.offdiag = (T->nnz - T->n) / (T->opt.lower && T->opt.upper ? 2 : 1); /* of one triangle, about: a factor holds both */
  P.i       = T->i;
  P.j       = T->j;
  P.diag    = T->diag;
  PetscCall(SFPCScheduleBuildPattern(T, &P, lower, levels, T->opt.window_major, S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The same for another pattern P (e.g. the quotient of point-blocks, ilu0_block_device.cu), with T's device, warps
   and tickets; major > 0: window-major dispatch (SFPCTriOptions).
*/
PetscErrorCode SFPCScheduleBuildPattern(SFPCTriDevice T, const SFPCPattern *P, PetscBool lower, SFPCLevels levels, PetscInt window_major, SFPCSchedule *S)
{
  const int          n = P->n;
  cudaStream_t       stream;
  Key               *key, *skey, *rkey;
  int               *row, *level, *rcount, *rtasks, *rrow0, *rtask0, *nruns, *sizes, hsizes[8];
  unsigned long long *nnz, hnnz;
  sfpc::CubScratch   scratch;
  const int          tpb = 256, nb = sfpc::LaunchBlocks(n, tpb);
  const int          major = (int)window_major;
  KeyLayout          kl;
  const PetscBool    queue = UseQueue(T, P);
  const Adjacency    deps  = lower ? Adjacency{P->i, P->diag, P->j, 0} : Adjacency{P->diag, P->i + 1, P->j, 1}; /* the rows each row waits for */

  PetscFunctionBegin;
  PetscCheck(levels == SFPC_LEVELS_ASAP || levels == SFPC_LEVELS_ALAP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Levels must be resolved to asap or alap");
  PetscCheck(major >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Window-major dispatch needs windows >= 0");
  kl = MakeKeyLayout(n, major);
  PetscCheck(kl.bits <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "%d rows in windows of %d rows need a %d-bit sort key (64 at most)", n, kl.window, kl.bits);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  S->levels = levels;
  PetscCallCUDA(cudaMallocAsync(&level, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&key, sizeof(Key) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&skey, sizeof(Key) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&rkey, sizeof(Key) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&row, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&rcount, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&rtasks, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&rrow0, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&rtask0, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&nruns, sizeof(int), stream));
  PetscCallCUDA(cudaMallocAsync(&sizes, sizeof(hsizes), stream));
  PetscCallCUDA(cudaMallocAsync(&nnz, sizeof(unsigned long long), stream));
  PetscCallCUDA(cudaMallocAsync(&S->order, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMemsetAsync(level, 0, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMemsetAsync(nnz, 0, sizeof(unsigned long long), stream));
  auto sort      = [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, row, S->order, n, 0, kl.bits, stream); };
  auto encode    = [&](void *tmp, size_t &bytes) { return cub::DeviceRunLengthEncode::Encode(tmp, bytes, skey, rkey, rcount, nruns, n, stream); };
  auto scantasks = [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, rtasks, rtask0, n, stream); };
  auto scanrows  = [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, rcount, rrow0, n, stream); };
  PetscCall(sfpc::CubReserve(scratch, sort));
  PetscCall(sfpc::CubReserve(scratch, encode));
  PetscCall(sfpc::CubReserve(scratch, scantasks));
  PetscCall(sfpc::CubReserve(scratch, scanrows));
  if (queue) {
    /* 1. ASAP levels by the ready queue, over the triangle's DAG and its transpose (tp, tj); key, skey, rrow0 and rtasks serve as scratch */
    int            *pending = (int *)key, *tp = (int *)skey, *slots = rrow0, *tj;
    unsigned int   *tail;
    auto            scandeps = [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, pending, tp, n + 1, stream); };

    PetscCall(sfpc::CubReserve(scratch, scandeps));
    PetscCall(sfpc::CubAllocate(scratch, stream));
    PetscCallCUDA(cudaMallocAsync(&tj, sizeof(int) * PetscMax(P->nnz, 1), stream));
    PetscCallCUDA(cudaMallocAsync(&tail, sizeof(unsigned int), stream));
    PetscCallCUDA(cudaMemsetAsync(pending, 0, sizeof(int) * (n + 1), stream));
    CountKernel<<<nb, tpb, 0, stream>>>(n, deps, pending);
    PetscCall(sfpc::CubRun(scratch, scandeps));
    PetscCallCUDA(cudaMemcpyAsync(slots, tp, sizeof(int) * n, cudaMemcpyDeviceToDevice, stream));
    ScatterKernel<<<nb, tpb, 0, stream>>>(n, deps, slots, tj);
    PetscCallCUDA(cudaGetLastError());
    const Adjacency dependents = {tp, tp + 1, tj, 0};
    PetscCall(QueueLevels(T, n, deps, dependents, level, pending, slots, tail, stream));

    /* 2. ALAP levels: the same over the reversed DAG gives each row's longest path to a sink */
    if (levels == SFPC_LEVELS_ALAP) {
      int *nlevels = rtasks, *h = (int *)rkey;
      PetscCallCUDA(cudaMemsetAsync(nlevels, 0, sizeof(int), stream));
      MaxLevelKernel<<<PetscMin(nb, 1024), tpb, 0, stream>>>(n, level, nlevels);
      PetscCall(QueueLevels(T, n, dependents, deps, h, pending, slots, tail, stream));
      AlapFromHeightKernel<<<nb, tpb, 0, stream>>>(n, nlevels, h, level);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaFreeAsync(tj, stream));
    PetscCallCUDA(cudaFreeAsync(tail, stream));
  } else {
    unsigned long long base;
    int                blocks;
    PetscCall(sfpc::CubAllocate(scratch, stream));
    /* 1. ASAP levels: one warp per 32 rows */
    PetscCall(SFPCTriDeviceBeginSweep(T, (n + 31) / 32, &blocks, &base));
    if (lower) LevelKernel<true><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, P->i, P->j, P->diag, level, T->counter, base);
    else LevelKernel<false><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, P->i, P->j, P->diag, level, T->counter, base);
    PetscCallCUDA(cudaGetLastError());

    /* 2. ALAP levels, from the ASAP level count; key, rkey and rcount serve as scratch (level count, levels, dependents) */
    if (levels == SFPC_LEVELS_ALAP) {
      int *nlevels = (int *)key, *alap = (int *)rkey, *pending = rcount;
      PetscCallCUDA(cudaMemsetAsync(nlevels, 0, sizeof(int), stream));
      MaxLevelKernel<<<PetscMin(nb, 1024), tpb, 0, stream>>>(n, level, nlevels);
      PetscCallCUDA(cudaMemsetAsync(pending, 0, sizeof(int) * n, stream));
      PetscCallCUDA(cudaMemsetAsync(alap, 0x7F, sizeof(int) * n, stream));
      CountKernel<<<nb, tpb, 0, stream>>>(n, deps, pending);
      PetscCall(SFPCTriDeviceBeginSweep(T, (n + 31) / 32, &blocks, &base));
      if (lower) AlapKernel<true><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, P->i, P->j, P->diag, nlevels, alap, pending, T->counter, base);
      else AlapKernel<false><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, P->i, P->j, P->diag, nlevels, alap, pending, T->counter, base);
      PetscCallCUDA(cudaGetLastError());
      PetscCallCUDA(cudaMemcpyAsync(level, alap, sizeof(int) * n, cudaMemcpyDeviceToDevice, stream));
    }
  }

  /* 3. sort rows by their bucket key (level, window, class; or window, level, class), then one bucket per distinct key */
  if (lower) KeyKernel<true><<<nb, tpb, 0, stream>>>(n, P->i, P->diag, level, kl, key, row, nnz);
  else KeyKernel<false><<<nb, tpb, 0, stream>>>(n, P->i, P->diag, level, kl, key, row, nnz);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubRun(scratch, sort));
  PetscCallCUDA(cudaMemsetAsync(rcount, 0, sizeof(int) * n, stream));
  PetscCall(sfpc::CubRun(scratch, encode));
  /* runs beyond nruns are not written; the scans below run over n entries, so zero them first */
  PetscCallCUDA(cudaMemsetAsync(rtasks, 0, sizeof(int) * n, stream));
  BucketTasksKernel<<<nb, tpb, 0, stream>>>(nruns, rkey, rcount, rtasks);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubRun(scratch, scantasks));
  PetscCall(sfpc::CubRun(scratch, scanrows));

  /* 4. tasks: sizes come back to the host once, to allocate, to launch sweeps and for the views */
  PetscCallCUDA(cudaMemsetAsync(sizes, 0, sizeof(hsizes), stream));
  ScheduleSizesKernel<<<nb, tpb, 0, stream>>>(nruns, rkey, rcount, rtask0, rtasks, kl, sizes);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hsizes, sizes, sizeof(hsizes), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(&hnnz, nnz, sizeof(hnnz), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  S->ntasks  = hsizes[0];
  S->nlevels = hsizes[1];
  S->nnz     = (PetscInt)hnnz;
  for (int v = 0; v < 6; v++) S->rows_by_vec[v] = hsizes[2 + v];
  PetscCall(PetscInfo(NULL, "%s schedule (%s levels): %d levels, %d warp tasks\n", lower ? "L" : "U", SFPCLevelsTypes[levels], S->nlevels, S->ntasks));
  PetscCallCUDA(cudaMallocAsync(&S->start, sizeof(int) * (S->ntasks + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->vec, S->ntasks, stream));
  PetscCallCUDA(cudaMemcpyAsync(S->start + S->ntasks, &n, sizeof(int), cudaMemcpyHostToDevice, stream));
  if (S->ntasks) FillTasksKernel<<<sfpc::LaunchBlocks(S->ntasks, tpb), tpb, 0, stream>>>(S->ntasks, nruns, rkey, rrow0, rtask0, S->start, S->vec);
  PetscCallCUDA(cudaGetLastError());

  PetscCall(sfpc::CubRelease(scratch, stream));
  PetscCallCUDA(cudaFreeAsync(level, stream));
  PetscCallCUDA(cudaFreeAsync(key, stream));
  PetscCallCUDA(cudaFreeAsync(skey, stream));
  PetscCallCUDA(cudaFreeAsync(rkey, stream));
  PetscCallCUDA(cudaFreeAsync(row, stream));
  PetscCallCUDA(cudaFreeAsync(rcount, stream));
  PetscCallCUDA(cudaFreeAsync(rtasks, stream));
  PetscCallCUDA(cudaFreeAsync(rrow0, stream));
  PetscCallCUDA(cudaFreeAsync(rtask0, stream));
  PetscCallCUDA(cudaFreeAsync(nruns, stream));
  PetscCallCUDA(cudaFreeAsync(sizes, stream));
  PetscCallCUDA(cudaFreeAsync(nnz, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
