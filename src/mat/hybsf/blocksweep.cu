/*
   Sweeps by point-blocks (SFPCBlockSweeps, trifactor_device.h). A matrix with several fields per grid
   point couples each point's rows to one another, so a row-by-row sweep pays one dependent L2 hop
   per field: SNES ex19's 4-field cavity has 2044 row levels a sweep, 4(i + j) + field, and its L+U
   apply took 3.4 ms on an H100 (0.84 us a level; bench/README.md). Here a warp takes the bs rows of a
   block: every row waits for the unknowns it needs outside the block (from blocks of earlier levels
   of the block graph), then the block's own triangle is solved inside the warp, and the chain is the
   block graph's levels (511 a sweep on that cavity).

   The levels come from the engine's analysis (analysis.cu) run on the quotient pattern: row B of it
   lists the distinct blocks B's rows have entries in, B itself included (every row has its diagonal).
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <cub/device/device_scan.cuh>
#include <petscdevice_cuda.h>

/*
   Polls of the block sweeps do not sleep between loads: on the driven cavity (H100) the L+U apply took
   1.39-1.40 ms without, 1.52 with the 32 ns of the row sweeps and 1.55 with 100 (bench/README.md); a block
   level waits on two blocks of the level before (the point's -x and -y neighbours), and the sooner a
   poll sees the later one, the shorter the chain.
*/
#ifndef SFPC_BLOCK_POLL_SLEEP_NS
  #define SFPC_BLOCK_POLL_SLEEP_NS 0
#endif

/* Entries a lane loads before its first wait (sfpc::WaitedDot()): by default 32 / S, so a row's vector of S lanes loads 32 entries at once. */
#ifndef SFPC_BLOCK_PRELOAD
  #define SFPC_BLOCK_PRELOAD 0
#endif

namespace
{
/* The longest part (L: left of the diagonal; U: right of it) of a row, in slots of s lanes. */
__global__ void BlockSlotsKernel(bool lower, int n, int s, const int *__restrict__ ai, const int *__restrict__ ad, int *slots)
{
  int m = 0;
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) m = max(m, ((lower ? ad[r] - ai[r] : ai[r + 1] - ad[r] - 1) + s - 1) / s);
  m = __reduce_max_sync(0xffffffffu, m);
  if ((threadIdx.x & 31) == 0 && m) atomicMax(slots, m);
}

/* The slab of a sweep by blocks (SFPCBlockSweeps, trifactor_device.h): entry (w P + q) L + l, L = bs s lanes. */
__global__ void BlockSlabKernel(bool lower, int bs, int s, int P, int nb, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int2 *slab)
{
  const int       L     = bs * s;
  const long long total = (long long)nb * P * L;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const long long w = e / ((long long)P * L);
    const int       q = (int)(e % ((long long)P * L)) / L, l = (int)(e % L), r = order[w] * bs + l / s;
    const int       kb = lower ? ai[r] : ad[r] + 1, ke = lower ? ad[r] : ai[r + 1], k = kb + l % s + q * s;
    slab[e]            = k < ke ? make_int2(aj[k], k) : make_int2(-1, 0);
  }
}

/*
   The quotient pattern, a warp per block: the block's entries mapped to blocks, the first occurrence of
   each kept, ranked by comparing pairs (at most SFPC_BLOCK_MAX_ENTRIES entries: once per pattern).
   COUNT: qcount[B] = distinct blocks, and *big = the largest block's entries when one exceeds the limit;
   else the row into qj at qi[B], ascending, and qd[B] = the position of B.
*/
template <bool COUNT>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) QuotientKernel(int nblocks, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ qi, int *qcount, int *qj, int *qd, int *big)
{
  __shared__ int sq[SFPC_WARPS_PER_BLOCK][SFPC_BLOCK_MAX_ENTRIES];
  __shared__ bool sfirst[SFPC_WARPS_PER_BLOCK][SFPC_BLOCK_MAX_ENTRIES];
  int           *q = sq[threadIdx.x / 32];
  bool          *first = sfirst[threadIdx.x / 32];
  const int      lane = threadIdx.x & 31;
  for (int B = (blockIdx.x * blockDim.x + threadIdx.x) / 32; B < nblocks; B += gridDim.x * blockDim.x / 32) {
    const int R0 = B * bs, E0 = ai[R0], nb = ai[R0 + bs] - E0;
    if (nb > SFPC_BLOCK_MAX_ENTRIES) { /* only the count pass sees this: the set-up stops after it */
      if (COUNT && lane == 0) atomicMax(big, nb);
      continue;
    }
    for (int e = lane; e < nb; e += 32) q[e] = aj[E0 + e] / bs;
    __syncwarp();
    int d = 0;
    for (int e = lane; e < nb; e += 32) {
      bool f = true;
      for (int x = 0; f && x < e; x++) f = q[x] != q[e];
      first[e] = f;
      d += f;
    }
    d = __reduce_add_sync(0xffffffffu, d);
    __syncwarp();
    if (COUNT) {
      if (lane == 0) qcount[B] = d;
    } else {
      for (int e = lane; e < nb; e += 32)
        if (first[e]) {
          int rank = 0;
          for (int x = 0; x < nb; x++) rank += first[x] && q[x] < q[e];
          qj[qi[B] + rank] = q[e];
          if (q[e] == B) qd[B] = qi[B] + rank;
        }
    }
    __syncwarp();
  }
}

/*
   x = L^{-1} b (LOWER) or U^{-1} b over blocks of bs rows (S lanes a row, bs <= 32 / S), the blocks in
   dispatch order, one per ticket; x holds the sentinel on entry and reset is handled as in trisolve.cu.
   Row f of the block is the vector of lanes [f S, f S + S): it sums its entries outside the block, each
   waited for, and leaves those inside in shared memory; lane f then holds the row's right-hand side
   minus that sum, and the block's triangle is solved across lanes 0..bs-1, an unknown a shuffle.
   SLAB: the row's columns and positions come from the sweep's slab (P slots a lane) by the ticket,
   all P loads at once, then the values and the unknowns outside the block; then every pending
   unknown of the lane is polled at once until none is (a lane's entries come from several points,
   and polling them one after another pays a round trip per late point), and the products are
   added in the CSR walk's order (the same sum bit for bit).
*/
template <bool LOWER, bool UNIT, int S, bool SLAB>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) BlockSolveKernel(int bs, int nblocks, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, const int2 *__restrict__ slab, int P, const double *b, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  constexpr int  M = SFPC_BLOCK_MAX_ROWS;
  __shared__ double scoef[SFPC_WARPS_PER_BLOCK][M * M];
  double        *coef = scoef[threadIdx.x / 32]; /* coef[f M + g]: row f's entry in column g of the block */
  const int      lane = threadIdx.x & 31, f = lane / S, t = lane & (S - 1);
  const unsigned full = 0xffffffffu;

  for (long long w; (w = sfpc::TakeTask(counter, base)) < nblocks;) {
    const int R0 = order[w] * bs;
    double    br = 0, di = 1, sum = 0;

    for (int e = lane; e < bs * M; e += 32) coef[e] = 0; /* the rows the block has */
    if (lane < bs) { /* read before any reset: b may be the array this sweep resets */
      br = b[R0 + lane];
      if (!UNIT) di = a[ad[R0 + lane]];
    }
    __syncwarp();
    if (SLAB && f < bs) {
      constexpr int      PM = SFPC_BLOCK_MAX_SLOTS;
      const int2        *s  = slab + (size_t)w * P * (bs * S) + lane;
      int2               e[PM];
      double             v[PM];
      unsigned long long xb[PM];
  #pragma unroll
      for (int q = 0; q < PM && q < P; q++) e[q] = sfpc::LoadOnce(s + q * bs * S);
  #pragma unroll
      for (int q = 0; q < PM && q < P; q++)
        if (e[q].x >= 0) {
          v[q] = a[e[q].y];
          if ((unsigned)(e[q].x - R0) >= (unsigned)bs) xb[q] = sfpc::LoadBits(x, e[q].x);
        }
  #pragma unroll
      for (int q = 0; q < PM && q < P; q++) /* the block's own entries, after every load was issued */
        if (e[q].x >= 0 && (unsigned)(e[q].x - R0) < (unsigned)bs) {
          coef[f * M + e[q].x - R0] = v[q];
          e[q].x                    = -1;
        }
      for (;;) { /* every pending entry polled at once: a round trip per poll, not per late point */
        bool pending = false;
  #pragma unroll
        for (int q = 0; q < PM && q < P; q++) pending |= e[q].x >= 0 && xb[q] == SFPC_SENTINEL;
        if (!pending) break;
        sfpc::Backoff<SFPC_BLOCK_POLL_SLEEP_NS>();
  #pragma unroll
        for (int q = 0; q < PM && q < P; q++)
          if (e[q].x >= 0 && xb[q] == SFPC_SENTINEL) xb[q] = sfpc::LoadBits(x, e[q].x);
      }
  #pragma unroll
      for (int q = 0; q < PM && q < P; q++)
        if (e[q].x >= 0) sum += v[q] * __longlong_as_double((long long)xb[q]);
    } else if (f < bs) {
      const int r = R0 + f, kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
      sum = sfpc::WaitedDot<SFPC_BLOCK_PRELOAD ? SFPC_BLOCK_PRELOAD : 32 / S, SFPC_BLOCK_POLL_SLEEP_NS>(0.0, aj, a, kb + t, ke, S, x, [&](int c, double v) {
        const bool inside = (unsigned)(c - R0) < (unsigned)bs;
        if (inside) coef[f * M + c - R0] = v;
        return inside;
      });
    }
    sum      = sfpc::VectorSum(sum, S);
    double p = br - __shfl_sync(full, sum, (lane < bs ? lane : 0) * S);
    __syncwarp();
    double cf[M], xv = 0;
#pragma unroll
    for (int g = 0; g < M; g++) cf[g] = lane < bs && g < bs ? coef[lane * M + g] : 0.0;
    /* the block's triangle: unknown g is final once the rows before it (L) or after it (U) were subtracted */
#pragma unroll
    for (int h = 0; h < M; h++) {
      const int g = LOWER ? h : M - 1 - h;
      if (g < bs) {
        const double xg = __shfl_sync(full, UNIT ? p : p * di, g);
        if (lane == g) xv = xg;
        p -= cf[g] * xg; /* lanes past g in the sweep's direction; the others are done or hold 0 there */
      }
    }
    if (lane < bs) {
      if (reset) sfpc::ResetValue(reset, R0 + lane);
      sfpc::PublishValue(x, R0 + lane, xv);
    }
    __syncwarp(); /* coef is reused by the next block */
  }
}

template <bool LOWER, bool UNIT, bool SLAB>
void LaunchBlockSolve(int grid, cudaStream_t stream, int bs, int nb, const int *order, SFPCTriDevice T, const int2 *slab, int P, const double *b, double *x, double *reset, unsigned long long base)
{
  const int S      = SFPC_BLOCK_LANES(bs);
  auto      kernel = S == 16 ? BlockSolveKernel<LOWER, UNIT, 16, SLAB> : S == 8 ? BlockSolveKernel<LOWER, UNIT, 8, SLAB> : BlockSolveKernel<LOWER, UNIT, 4, SLAB>;
  kernel<<<grid, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(bs, nb, order, T->i, T->j, T->diag, T->a, slab, P, b, x, reset, T->counter, base);
}

template <bool LOWER, bool UNIT>
void LaunchBlockSolve(int grid, cudaStream_t stream, int bs, int nb, const int *order, SFPCTriDevice T, const int2 *slab, int P, const double *b, double *x, double *reset, unsigned long long base)
{
  (slab ? LaunchBlockSolve<LOWER, UNIT, true> : LaunchBlockSolve<LOWER, UNIT, false>)(grid, stream, bs, nb, order, T, slab, P, b, x, reset, base);
}

/* The hyb slabs of sweep k (0: L) when it goes by blocks (they would only cost memory and refills), and back when blocks go. */
PetscErrorCode DropSlabs(SFPCTriDevice T, int k, cudaStream_t stream)
{
  SFPCSchedule *S = k ? &T->upper : &T->lower;

  PetscFunctionBegin;
  if (S->layout != SFPC_LAYOUT_HYB) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCScheduleFreeSlabs(S, stream));
  S->layout            = SFPC_LAYOUT_CSR;
  T->blocks.dropped[k] = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The slab of sweep k by blocks (once per pattern; the values are read from the CSR, so a refactorization leaves it
   as it is), where its rows' parts fit SFPC_BLOCK_MAX_SLOTS slots a lane and B->slabs asks for it. By default where
   a level has at least SFPC_BLOCK_SLAB_TASKS_PER_SM blocks an SM on average: there the tasks' own latency binds, and
   the slab with its lanes' unknowns polled together pays (H100, L+U apply against the CSR path: Q1 elasticity 64^3,
   4.6 blocks a level and SM, 2.77 -> 1.79 ms; 5 fields on a 7-point 64^3 grid, 10.4: 1.34 -> 1.08; 4 fields 0.88 ->
   0.84), while where the chain of levels binds it costs (the driven cavity, 1.0: 1.35 -> 1.50 ms; a 2-D 3-field grid,
   1.9: 2.66 -> 3.07; bench/README.md, "Columns by ticket").
*/
PetscErrorCode BuildBlockSlab(SFPCTriDevice T, int k, cudaStream_t stream)
{
  SFPCBlockSweeps    *B     = &T->blocks;
  const SFPCSchedule *Q     = k ? &B->upper : &B->lower;
  const bool          lower = !k;
  const int           s = SFPC_BLOCK_LANES((int)B->bs), n = (int)T->n, grid = PetscMin(n / 256 + 1, 8 * T->sms);
  int                *dslots, P = 0;
  size_t              entries;

  PetscFunctionBegin;
  B->noslab[k] = "told not to";
  if (B->slabs == PETSC_BOOL3_FALSE) PetscFunctionReturn(PETSC_SUCCESS);
  B->noslab[k] = "levels of fewer than " PetscStringize(SFPC_BLOCK_SLAB_TASKS_PER_SM) " blocks an SM";
  if (B->slabs == PETSC_BOOL3_UNKNOWN && Q->ntasks < (PetscInt)SFPC_BLOCK_SLAB_TASKS_PER_SM * Q->nlevels * T->sms) PetscFunctionReturn(PETSC_SUCCESS);
  B->noslab[k] = "rows over " PetscStringize(SFPC_BLOCK_MAX_SLOTS) " slots a lane";
  PetscCallCUDA(cudaMallocAsync(&dslots, sizeof(int), stream));
  PetscCallCUDA(cudaMemsetAsync(dslots, 0, sizeof(int), stream));
  BlockSlotsKernel<<<grid, 256, 0, stream>>>(lower, n, s, T->i, T->diag, dslots);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&P, dslots, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* once per pattern */
  PetscCallCUDA(cudaFreeAsync(dslots, stream));
  if (P > SFPC_BLOCK_MAX_SLOTS) PetscFunctionReturn(PETSC_SUCCESS);
  P       = PetscMax(P, 1);
  entries = (size_t)B->nb * P * B->bs * s;
  PetscCallCUDA(cudaMallocAsync(&B->slab[k], sizeof(int2) * entries, stream));
  /* a capped grid (the kernel strides over the rest), so not LaunchBlocks(), which refuses a count past INT_MAX instead of capping it */
  BlockSlabKernel<<<(int)PetscMin((entries + 255) / 256, (size_t)64 * T->sms), 256, 0, stream>>>(lower, (int)B->bs, s, P, (int)B->nb, Q->order, T->i, T->j, T->diag, (int2 *)B->slab[k]);
  PetscCallCUDA(cudaGetLastError());
  B->slots[k]  = P;
  B->noslab[k] = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RestoreSlabs(SFPCTriDevice T, int k)
{
  SFPCSchedule *S = k ? &T->upper : &T->lower;

  PetscFunctionBegin;
  if (!T->blocks.dropped[k]) PetscFunctionReturn(PETSC_SUCCESS);
  S->layout = SFPC_LAYOUT_HYB;
  PetscCall(SFPCScheduleBuildSlabs(T, (PetscBool)!k, S));
  PetscCall(SFPCScheduleFillSlabs(T, (PetscBool)!k, S));
  T->blocks.dropped[k] = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode SFPCBlocksDestroy_Device(SFPCTriDevice T)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SFPCScheduleFree(&T->blocks.lower, stream));
  PetscCall(SFPCScheduleFree(&T->blocks.upper, stream));
  PetscCall(SFPCPatternFree(&T->blocks.quotient, stream));
  for (int k = 0; k < 2; k++)
    if (T->blocks.slab[k]) PetscCallCUDA(cudaFreeAsync(T->blocks.slab[k], stream));
  PetscCall(PetscMemzero(&T->blocks, sizeof(T->blocks)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The quotient pattern of T's blocks of bs rows (bs divides T's rows): row B lists, ascending, the blocks B's rows
   have entries in, B itself included (diag). On the device; free with SFPCPatternFree(). P->j is NULL where a block
   has more than SFPC_BLOCK_MAX_ENTRIES entries (and nothing is allocated).
*/
static PetscErrorCode Quotient(SFPCTriDevice T, PetscInt bs, SFPCPattern *P)
{
  cudaStream_t stream;
  const int    nb = (int)(T->n / bs), grid = PetscMin(nb / SFPC_WARPS_PER_BLOCK + 1, 64 * T->sms);
  int          hbig = 0, *big, *qi, *qd, *qj, qnnz;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&qi, sizeof(int) * (nb + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&qd, sizeof(int) * PetscMax(nb, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&big, sizeof(int), stream));
  PetscCallCUDA(cudaMemsetAsync(qi, 0, sizeof(int) * (nb + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(big, 0, sizeof(int), stream));
  QuotientKernel<true><<<grid, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(nb, (int)bs, T->i, T->j, NULL, qi, NULL, NULL, big);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, qi, qi, nb + 1, stream); }));
  PetscCallCUDA(cudaMemcpyAsync(&qnnz, qi + nb, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(&hbig, big, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* once per pattern */
  PetscCallCUDA(cudaFreeAsync(big, stream));
  if (hbig) {
    PetscCallCUDA(cudaFreeAsync(qi, stream));
    PetscCallCUDA(cudaFreeAsync(qd, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallCUDA(cudaMallocAsync(&qj, sizeof(int) * PetscMax(qnnz, 1), stream));
  QuotientKernel<false><<<grid, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(nb, (int)bs, T->i, T->j, qi, NULL, qj, qd, NULL);
  PetscCallCUDA(cudaGetLastError());
  P->n       = nb;
  P->nnz     = qnnz;
  P->offdiag = (qnnz - nb) / 2;
  P->i       = qi;
  P->j       = qj;
  P->diag    = qd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCPatternFree(SFPCPattern *P, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (P->j) {
    PetscCallCUDA(cudaFreeAsync((void *)P->i, stream));
    PetscCallCUDA(cudaFreeAsync((void *)P->j, stream));
    PetscCallCUDA(cudaFreeAsync((void *)P->diag, stream));
  }
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Sets up T's point-blocks of bs rows (bs <= 1: none), once per pattern and block size: the quotient
   pattern and the schedules of the sweeps T has, and which sweeps go by blocks (sweeps: all, none, or
   unknown: those whose block levels are at most 3/4 of their rows') and which of those read a slab (slabs,
   as BuildBlockSlab() says). Where the blocks do not
   fit (bs above SFPC_BLOCK_MAX_ROWS, rows not a multiple of bs, a block of more than SFPC_BLOCK_MAX_ENTRIES
   entries) or every sweep walks the grid, T->blocks.why says so and the sweeps go row by row.
*/
PetscErrorCode SFPCTriDeviceSetBlocks(SFPCTriDevice T, PetscInt bs, PetscBool3 sweeps, PetscBool3 slabs)
{
  SFPCBlockSweeps *B = &T->blocks;
  cudaStream_t     stream;
  const int        n = (int)T->n;
  int              nb;
  const SFPCPattern *P = &B->quotient;

  PetscFunctionBegin;
  if (bs < 1) bs = 1;
  if (B->asked == bs && B->sweeps == sweeps && B->slabs == slabs) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < 2; k++) PetscCall(RestoreSlabs(T, k));
  PetscCall(SFPCBlocksDestroy_Device(T));
  T->blocks_epoch++;
  B->asked  = bs;
  B->sweeps = sweeps;
  B->slabs  = slabs;
  if (bs == 1 || !n) PetscFunctionReturn(PETSC_SUCCESS);
  if (bs > SFPC_BLOCK_MAX_ROWS) B->why = "the block size is above " PetscStringize(SFPC_BLOCK_MAX_ROWS);
  else if (n % bs) B->why = "the rows are not a multiple of the block size";
  else if ((!T->opt.lower || T->lower.layout == SFPC_LAYOUT_GRID) && (!T->opt.upper || T->upper.layout == SFPC_LAYOUT_GRID)) B->why = "the sweeps walk the grid (grid layout)";
  if (B->why) PetscFunctionReturn(PETSC_SUCCESS);

  nb = n / (int)bs;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(Quotient(T, bs, &B->quotient)); /* kept: the factorization by dense point-blocks matches its U by it */
  if (!P->j) {
    B->why = "a block of more than " PetscStringize(SFPC_BLOCK_MAX_ENTRIES) " entries";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int k = 0; k < 2; k++) {
    const PetscBool lower = (PetscBool)!k;
    SFPCSchedule   *Q = k ? &B->upper : &B->lower, *S = k ? &T->upper : &T->lower;

    if (!(k ? T->opt.upper : T->opt.lower)) continue;
    PetscCall(SFPCScheduleBuildPattern(T, P, lower, SFPC_LEVELS_ASAP, 0, Q));
    PetscCallCUDA(cudaFreeAsync(Q->start, stream)); /* a task is a block: the order is all the sweeps need */
    PetscCallCUDA(cudaFreeAsync(Q->vec, stream));
    Q->start = NULL;
    Q->vec   = NULL;
    Q->ntasks = nb;
    Q->unit   = S->unit;
    Q->layout = SFPC_LAYOUT_CSR;
    SFPCScheduleWarps(T, Q);
    /* a block level costs about a row level (one hop, bench/README.md): blocks only where they shorten the chain enough */
    B->use[k] = (PetscBool)(S->layout != SFPC_LAYOUT_GRID && (sweeps == PETSC_BOOL3_TRUE || (sweeps == PETSC_BOOL3_UNKNOWN && 4 * Q->nlevels <= 3 * S->nlevels)));
    if (B->use[k]) PetscCall(DropSlabs(T, k, stream));
  }
  B->bs = bs;
  B->nb = nb;
  for (int k = 0; k < 2; k++)
    if (B->use[k]) PetscCall(BuildBlockSlab(T, k, stream));
  PetscCall(PetscInfo(NULL, "Point-blocks of %" PetscInt_FMT " rows: %d blocks; L %d block levels (rows %d, %s), U %d (rows %d, %s)\n", bs, nb, B->lower.nlevels, T->lower.nlevels, B->use[0] ? "by blocks" : "by rows", B->upper.nlevels, T->upper.nlevels, B->use[1] ? "by blocks" : "by rows"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One sweep by blocks (T->blocks.use[!lower]), with the arguments of trisolve.cu's sweeps. */
PetscErrorCode SFPCBlockSweep_Device(SFPCTriDevice T, PetscBool lower, const PetscScalar *b, PetscScalar *x, PetscScalar *reset, cudaStream_t stream)
{
  const SFPCBlockSweeps *B = &T->blocks;
  const SFPCSchedule    *Q = lower ? &B->lower : &B->upper;
  int                    grid;
  unsigned long long     base;

  PetscFunctionBegin;
  PetscCheck(B->use[lower ? 0 : 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Sweep by blocks that were not set up for it");
  PetscCall(SFPCTriDeviceTakeTickets(T, B->nb, Q->solve_resident, &grid, &base));
  const int  k    = lower ? 0 : 1;
  const int2 *slab = (const int2 *)B->slab[k];
  if (lower) (Q->unit ? LaunchBlockSolve<true, true> : LaunchBlockSolve<true, false>)(grid, stream, (int)B->bs, (int)B->nb, Q->order, T, slab, B->slots[k], b, x, reset, base);
  else (Q->unit ? LaunchBlockSolve<false, true> : LaunchBlockSolve<false, false>)(grid, stream, (int)B->bs, (int)B->nb, Q->order, T, slab, B->slots[k], b, x, reset, base);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
