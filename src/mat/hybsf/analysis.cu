/*
   Dependency analysis of a triangular part, on the GPU, once per nonzero pattern:
   1. ASAP levels, sync-free: a warp per 32 consecutive rows, taken by ticket in the solve's
      order, level(r) = 1 + max level of the rows it depends on.
   2. Optionally ALAP levels (Freire's SpTRSV_Lev, shared/seeds/001 section 4.2.2), sync-free in
      the reverse order: level(r) = min level of the rows that depend on r, minus 1. A row that
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
   ASAP levels. A ticket is a segment of 32 consecutive rows in the solve's order, one row per
   lane: taking one row per warp made the analysis a chain of ~n/32 hops of L2 latency (33 ms at
   128^3 on an H200, 13x cuSPARSE's analysis). Each lane waits for the rows it depends on, those in
   its own segment included, and publishes its level as soon as it has it: settling a segment
   together (tried first) made every segment wait for its slowest lane, a false dependency that
   chained all segments of a grid whose lines are not a multiple of 32 rows (22 ms at 100^3 against
   2.5 ms at 128^3). Lanes waiting on lanes of their own warp rely on independent thread
   scheduling (sm_70 and later), which the CUDA build of SFPC requires anyway (sm_90).
*/
template <bool LOWER>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) LevelKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int *level, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31, nseg = (n + 31) / 32;
  for (long long t; (t = sfpc::TakeTask(counter, base)) < nseg;) {
    const int q = (int)t * 32 + lane; /* position in the solve's order */
    if (q < n) {
      const int r = LOWER ? q : n - 1 - q, kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
      int       lv = 0;
      for (int k = kb; k < ke; k++) {
        const int c = aj[k];
        int       l;
        while ((l = cuda::atomic_ref<const int, cuda::thread_scope_device>(level[c]).load(cuda::memory_order_relaxed)) == 0) sfpc::Backoff();
        lv = max(lv, l);
      }
      cuda::atomic_ref<int, cuda::thread_scope_device>(level[r]).store(lv + 1, cuda::memory_order_relaxed); /* the level is the data: no release needed */
      __threadfence(); /* but push the store out before taking the next segment */
    }
  }
}

/* pending[c] = how many rows depend on row c */
template <bool LOWER>
__global__ void DependentsKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int *pending)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
  for (int k = kb; k < ke; k++) atomicAdd(pending + aj[k], 1);
}

#define SFPC_ALAP_UNSET 0x7F7F7F7F /* what a byte-wise fill with 0x7F leaves: no dependent has lowered it */

/*
   ALAP levels: rows are taken in the reverse of the solve order, so the rows a row waits for (its
   dependents) hold earlier tickets and already run. Each dependent lowers alap[c] to its own level
   minus 1, then counts itself off pending[c]; row c is final when pending[c] reaches 0.
*/
template <bool LOWER>
__global__ void AlapKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *nlevels, int *alap, int *pending, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31;
  for (long long t; (t = sfpc::TakeTask(counter, base)) < n;) {
    const int r = LOWER ? n - 1 - (int)t : (int)t;
    int       lv = 0;
    if (lane == 0) {
      while (cuda::atomic_ref<int, cuda::thread_scope_device>(pending[r]).load(cuda::memory_order_relaxed) != 0) sfpc::Backoff();
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
      lv = cuda::atomic_ref<int, cuda::thread_scope_device>(alap[r]).load(cuda::memory_order_relaxed);
      if (lv == SFPC_ALAP_UNSET) lv = *nlevels; /* a sink */
      alap[r] = lv;
    }
    lv           = __shfl_sync(0xffffffffu, lv, 0);
    const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
    for (int k = kb + lane; k < ke; k += 32) atomicMin(alap + aj[k], lv - 1);
    __threadfence(); /* each lowering is visible before its count */
    for (int k = kb + lane; k < ke; k += 32) atomicSub(pending + aj[k], 1);
  }
}

/*
   A row's bucket: level - 1 in the high 32 bits, then the window of its position in the solve's order,
   then its length class (3 bits); window-major (major > 0 rows a window): the window in the high 32
   bits, then level - 1, then the class.
*/
typedef unsigned long long Key;
#define SFPC_KEY_HIGH 32
#ifndef SFPC_DISPATCH_WINDOW
  #define SFPC_DISPATCH_WINDOW 8192 /* rows; a partial task per class and window costs at most 7 tasks per window */
#endif

/* Sort key of each row and the off-diagonal entries of the triangle (summed per block). */
template <bool LOWER>
__global__ void __launch_bounds__(256) KeyKernel(int n, const int *__restrict__ ai, const int *__restrict__ ad, const int *__restrict__ level, int major, Key *key, int *row, unsigned long long *nnz)
{
  typedef cub::BlockReduce<int, 256> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  int       d = 0;
  if (r < n) {
    d      = LOWER ? ad[r] - ai[r] : ai[r + 1] - ad[r] - 1;
    const int q = LOWER ? r : n - 1 - r;
    const Key l = (Key)(level[r] - 1), c = (Key)LengthClass(d);
    key[r]      = major > 0 ? ((Key)(q / major) << SFPC_KEY_HIGH) | (l << 3) | c : (l << SFPC_KEY_HIGH) | ((Key)(q / SFPC_DISPATCH_WINDOW) << 3) | c;
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

__global__ void FillTasksKernel(const int *nruns, const Key *rkey, const int *rcount, const int *rrow0, const int *rtask0, int *start, unsigned char *vec)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= *nruns) return;
  const int s = KeyVector(rkey[b]), perwarp = 32 / s;
  for (int r = 0, w = rtask0[b]; r < rcount[b]; r += perwarp, w++) {
    start[w] = rrow0[b] + r;
    vec[w]   = (unsigned char)s;
  }
}

/* Scalars the host needs to size and describe the schedule: tasks, levels, then rows per vector size (1, 2, ..., 32 lanes; zeroed before). */
__global__ void ScheduleSizesKernel(const int *nruns, const Key *rkey, const int *rcount, const int *rtask0, const int *rtasks, int major, int *out)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x, last = *nruns - 1;
  if (b == 0) out[0] = rtask0[last] + rtasks[last];
  if (b <= last) {
    atomicMax(out + 1, (int)(major > 0 ? (rkey[b] & 0xFFFFFFFFull) >> 3 : rkey[b] >> SFPC_KEY_HIGH) + 1);
    atomicAdd(out + 2 + __ffs(KeyVector(rkey[b])) - 1, rcount[b]);
  }
}
} // namespace

/* Builds the schedule of the lower (L) or upper (U) part of T's pattern, with ASAP or ALAP levels. */
PetscErrorCode SFPCScheduleBuild(SFPCTriDevice T, PetscBool lower, SFPCLevels levels, SFPCSchedule *S)
{
  const int          n = (int)T->n;
  cudaStream_t       stream;
  Key               *key, *skey, *rkey;
  int               *row, *level, *rcount, *rtasks, *rrow0, *rtask0, *nruns, *sizes, hsizes[8];
  unsigned long long *nnz, hnnz;
  sfpc::CubScratch   scratch;
  const int          tpb = 256, nb = (n + tpb - 1) / tpb;
  unsigned long long base;
  const int          major = (int)T->opt.window_major;
  int                blocks, keybits = SFPC_KEY_HIGH + 1;

  PetscFunctionBegin;
  PetscCheck(levels == SFPC_LEVELS_ASAP || levels == SFPC_LEVELS_ALAP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Levels must be resolved to asap or alap");
  PetscCheck(major >= 0 && (major == 0 || n < (1 << 29)), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Window-major dispatch needs windows >= 0 and fewer than 2^29 rows");
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

  /* 1. ASAP levels: one warp per 32 rows */
  PetscCall(SFPCTriDeviceBeginSweep(T, (n + 31) / 32, &blocks, &base));
  if (lower) LevelKernel<true><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, T->i, T->j, T->diag, level, T->counter, base);
  else LevelKernel<false><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, T->i, T->j, T->diag, level, T->counter, base);
  PetscCallCUDA(cudaGetLastError());

  /* 2. ALAP levels, from the ASAP level count; key, rkey and rcount serve as scratch (level count, levels, dependents) */
  if (levels == SFPC_LEVELS_ALAP) {
    int *nlevels = (int *)key, *alap = (int *)rkey, *pending = rcount;
    PetscCallCUDA(cudaMemsetAsync(nlevels, 0, sizeof(int), stream));
    MaxLevelKernel<<<PetscMin(nb, 1024), tpb, 0, stream>>>(n, level, nlevels);
    PetscCallCUDA(cudaMemsetAsync(pending, 0, sizeof(int) * n, stream));
    PetscCallCUDA(cudaMemsetAsync(alap, 0x7F, sizeof(int) * n, stream));
    if (lower) DependentsKernel<true><<<nb, tpb, 0, stream>>>(n, T->i, T->j, T->diag, pending);
    else DependentsKernel<false><<<nb, tpb, 0, stream>>>(n, T->i, T->j, T->diag, pending);
    PetscCall(SFPCTriDeviceBeginSweep(T, n, &blocks, &base));
    if (lower) AlapKernel<true><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, T->i, T->j, T->diag, nlevels, alap, pending, T->counter, base);
    else AlapKernel<false><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, T->i, T->j, T->diag, nlevels, alap, pending, T->counter, base);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(level, alap, sizeof(int) * n, cudaMemcpyDeviceToDevice, stream));
  }

  /* 3. sort rows by their bucket key (level, window, class; or window, level, class), then one bucket per distinct key */
  if (lower) KeyKernel<true><<<nb, tpb, 0, stream>>>(n, T->i, T->diag, level, major, key, row, nnz);
  else KeyKernel<false><<<nb, tpb, 0, stream>>>(n, T->i, T->diag, level, major, key, row, nnz);
  PetscCallCUDA(cudaGetLastError());
  while (keybits < 64 && (1LL << (keybits - SFPC_KEY_HIGH)) < n) keybits++; /* levels (or windows) <= n: the sort skips the bits none reaches */
  auto sort      = [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, row, S->order, n, 0, keybits, stream); };
  auto encode    = [&](void *tmp, size_t &bytes) { return cub::DeviceRunLengthEncode::Encode(tmp, bytes, skey, rkey, rcount, nruns, n, stream); };
  auto scantasks = [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, rtasks, rtask0, n, stream); };
  auto scanrows  = [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, rcount, rrow0, n, stream); };
  PetscCall(sfpc::CubReserve(scratch, sort));
  PetscCall(sfpc::CubReserve(scratch, encode));
  PetscCall(sfpc::CubReserve(scratch, scantasks));
  PetscCall(sfpc::CubReserve(scratch, scanrows));
  PetscCall(sfpc::CubAllocate(scratch, stream));
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
  ScheduleSizesKernel<<<nb, tpb, 0, stream>>>(nruns, rkey, rcount, rtask0, rtasks, major, sizes);
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
  FillTasksKernel<<<nb, tpb, 0, stream>>>(nruns, rkey, rcount, rrow0, rtask0, S->start, S->vec);
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
