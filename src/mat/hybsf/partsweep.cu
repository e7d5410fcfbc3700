/*
   Solves by parts: an LU solve in which each thread block owns a part, a range of consecutive rows of the caller's
   numbering (the "home" rows: sfdilu's natural order, or its grid numbered box by box: partboxes.cu), and keeps the
   part's unknowns in shared memory from the gather of its right-hand side to the scatter of its result, through both
   sweeps, in one launch.

   Why: in color order (sfdilu) the engine's row sweeps gather each unknown from L2 in an order that has lost the
   matrix's locality: from 2*10^6 rows both the row sweeps and the per-color ones run at about 3 SpMVs, bound by L2
   traffic (bench/README.md, sfdilu, "The floor of each case"). A part of consecutive home rows reads most of its
   couplings from its own shared memory; only the rows it shares with other parts go through L2.

   Order: the caller gives each factor row a step (sfdilu: its color) with every L entry from a lower step and every U
   entry from a higher one (checked here). A part's rows are sorted by step and cut into slices of 32 / lanes rows
   (the entries of a slice in coalesced slots); the block's warps take its slices in turn, the L sweep's in step order,
   then, after one barrier, the U sweep's in reverse. Nothing else synchronizes them: a row waits for each unknown it
   reads, inside the part through a flag a row in shared memory, outside it through the unknown's value in a
   publication buffer (sync-free, as the engine's sweeps do: sfdevice.cuh, WaitValue()). A slice waits only on slices
   of lower steps of its sweep (or of the L sweep), every warp takes its slices in that order, and every block is
   resident (a cooperative launch, one block per SM): so the unfinished slice of the lowest step always runs, and
   nothing deadlocks.

   The publication buffers: apply k publishes into the pair of parity k % 2 and resets its own rows of the other
   pair, which apply k - 1 used and nobody reads any more; so nothing is cleared between applies.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <petscdevice_cuda.h>

#ifndef SFPC_PARTS_THREADS
  /* a block per SM, 28 warps at 70 registers a thread, nothing spilled. More warps pay as long as nothing spills: with
     4 slots a batch, 24 warps (80 registers) were 1.13-1.19x faster than 32 (64 registers, spilling); with 3 a batch,
     28 warps are 1.04-1.12x faster than those 24 (H200; bench/README.md, "Solves by parts" and "A slice's batches of
     slots pipelined") */
  #define SFPC_PARTS_THREADS 896
#endif
#ifndef SFPC_PARTS_PRELOAD
  /* slots a lane loads at once (a batch): a slice's first batch is loaded while the warp's slice before runs, each later
     one while the batch before waits */
  #define SFPC_PARTS_PRELOAD 3
#endif
#ifndef SFPC_PARTS_ROWS_IN_FLIGHT
  #define SFPC_PARTS_ROWS_IN_FLIGHT 4 /* natural rows a thread of the gather and of the scatter loads at once */
#endif
#define SFPC_PARTS_MIN_ROWS 32   /* rows of a part at least: fewer parts on small matrices */
#ifndef SFPC_PARTS_MIN_SLICES
  #define SFPC_PARTS_MIN_SLICES 8 /* slices a step of a part should fill (PartLanes()) */
#endif
#ifndef SFPC_PARTS_ENTRIES_PER_LANE
  #define SFPC_PARTS_ENTRIES_PER_LANE 4 /* lanes per row: the fewest (a power of two) that leave a lane about this many entries of a triangle */
#endif

namespace
{
struct PartsArgs {
  int           n, maxrows, nsteps, parity, lanes, lshift; /* lanes == 1 << lshift */
  SFPCPartsGrid grid;
  const int    *pstart, *hpos, *sstart, *sfirst, *loff, *uoff, *lcol, *ucol;
  const double *lval, *uval, *dinv;
  double       *pub;
};

/* A part's slices in shared memory after its unknowns: first position and slot offsets in each triangle of slices k0 .. k0 + nk (nk + 1 each), then a flag a row. */
struct PartMeta {
  const int *first, *lo, *uo;
  unsigned  *flag; /* byte l % 4 of word l / 4: bit 0 once row l has its L sweep's value, bit 1 its U sweep's */
  int        k0;
};

/*
   A row's value and flags in shared memory, handed between the block's threads as a message: the writer stores the
   value, fences, sets the flag by an atomic OR (four rows share a word); the reader polls the flag and, once set,
   fences and reads the value. The reads of flag and value are relaxed atomic loads at block scope, so that
   compute-sanitizer's racecheck sees every access that crosses threads as ordered; atomic read-modify-writes that
   change nothing (atomicOr(p, 0), atomicCAS(p, 0, 0)), which read them before, took 1.00-1.04x the time (H200,
   bench/README.md, sfdilu, "Fewer instructions a slice").
*/
__device__ __forceinline__ bool RowDone(unsigned *flag, unsigned l, unsigned bit)
{
  const bool done = cuda::atomic_ref<unsigned, cuda::thread_scope_block>(flag[l / 4]).load(cuda::memory_order_relaxed) >> (8 * (l % 4)) & bit;
  if (done) __threadfence_block();
  return done;
}

__device__ __forceinline__ void StoreRow(double *xs, unsigned *flag, unsigned l, unsigned bit, double x)
{
  atomicExch((unsigned long long *)(xs + l), (unsigned long long)__double_as_longlong(x));
  __threadfence_block();
  atomicOr(flag + l / 4, bit << (8 * (l % 4)));
}

__device__ __forceinline__ double LoadRow(double *xs, unsigned l)
{
  return __longlong_as_double((long long)cuda::atomic_ref<unsigned long long, cuda::thread_scope_block>(*(unsigned long long *)(xs + l)).load(cuda::memory_order_relaxed));
}

/* What a lane needs first of a slice: its first slots and (U) its row's inverse diagonal. */
struct Preload {
  int    c[SFPC_PARTS_PRELOAD];
  double v[SFPC_PARTS_PRELOAD];
  double di;
};

/* Slots e0 .. e0 + SFPC_PARTS_PRELOAD - 1 of the lane whose first slot is t0, of per (-1: none). */
__device__ __forceinline__ void LoadSlots(const int *col, const double *val, int t0, int per, int e0, Preload &q)
{
#pragma unroll
  for (int u = 0; u < SFPC_PARTS_PRELOAD; u++) {
    const bool in = e0 + u < per;
    const int  t  = t0 + (e0 + u) * 32;
    q.c[u]        = in ? sfpc::LoadOnce(col + t) : -1;
    q.v[u]        = in ? sfpc::LoadOnce(val + t) : 0.0;
  }
}

/* The first slots of slice k (and its rows' inverse diagonals), loaded while the warp's slice before runs. */
template <bool LOWER>
__device__ __forceinline__ void PreloadSlice(const PartsArgs &P, const PartMeta &M, int k, int k1, Preload &q)
{
  const int  lane = threadIdx.x & 31, j = k - M.k0;
  const int *off  = LOWER ? M.lo : M.uo;
  if (k < M.k0 || k >= k1) return;
  LoadSlots(LOWER ? P.lcol : P.ucol, LOWER ? P.lval : P.uval, off[j] + lane, (off[j + 1] - off[j]) / 32, 0, q);
  q.di = 0.0;
  if (!LOWER) {
    const int g = M.first[j] + (lane >> P.lshift);
    if (g < M.first[j + 1] && (lane & (P.lanes - 1)) == 0) q.di = P.dinv[g];
  }
}

/*
   Slice k of the part [lo, lo + m) in one sweep: each of its rows, x_g = x_g - sum (L) or (x_g - sum) / u_gg (U), the
   sum over its entries' columns: inside the part read from shared memory once their flag says the sweep wrote them,
   outside waited for in pub. All of a lane's reads of a batch of slots are issued before it waits for any unknown of
   another part, and the next batch's slots are loaded before it waits. A row takes P.lanes lanes, a slice 32 / P.lanes
   rows; q holds the slice's first slots.
*/
template <bool LOWER>
__device__ __forceinline__ void PartSlice(const PartsArgs &P, const PartMeta &M, double *xs, int lo, int m, int k, double *pub, const Preload &q)
{
  const int          lane = threadIdx.x & 31, s = P.lanes, j = k - M.k0;
  const int         *off = LOWER ? M.lo : M.uo, g = M.first[j] + (lane >> P.lshift), t0 = off[j] + lane, per = (off[j + 1] - off[j]) / 32;
  const bool         head = g < M.first[j + 1] && (lane & (s - 1)) == 0;
  const unsigned     done = LOWER ? 1 : 2;
  const int         *col = LOWER ? P.lcol : P.ucol;
  const double      *val = LOWER ? P.lval : P.uval;
  double             sum = 0;

  Preload r = q, after;
  for (int e0 = 0; e0 < per; e0 += SFPC_PARTS_PRELOAD) {
    unsigned long long bits[SFPC_PARTS_PRELOAD];
    const bool         more = e0 + SFPC_PARTS_PRELOAD < per;
#pragma unroll
    for (int u = 0; u < SFPC_PARTS_PRELOAD; u++) /* issue the reads of other parts' unknowns */
      bits[u] = r.c[u] >= 0 && (unsigned)(r.c[u] - lo) >= (unsigned)m ? sfpc::LoadBits(pub, r.c[u]) : 0;
    if (more) LoadSlots(col, val, t0, per, e0 + SFPC_PARTS_PRELOAD, after);
#pragma unroll
    for (int u = 0; u < SFPC_PARTS_PRELOAD; u++) {
      const unsigned l = (unsigned)(r.c[u] - lo);
      double         x = 0; /* padding */
      if (r.c[u] < 0) {
      } else if (l < (unsigned)m) {
        while (!RowDone(M.flag, l, done)) sfpc::Backoff(); /* a spinning warp takes issue slots from the warps it waits for */
        x = LoadRow(xs, l);
      } else x = bits[u] == SFPC_SENTINEL ? sfpc::WaitValue(pub, r.c[u]) : __longlong_as_double((long long)bits[u]);
      sum += r.v[u] * x;
    }
    if (more) r = after;
  }
  sum = sfpc::VectorSum(sum, s);
  if (head) {
    const double x = LOWER ? xs[g - lo] - sum : (xs[g - lo] - sum) * q.di;
    StoreRow(xs, M.flag, g - lo, done, x);
    sfpc::PublishValue(pub, g, x);
  }
}

/*
   The vectors' index of the rows a thread of block p walks in NaturalRows() (r = threadIdx.x, + nt, + 2 nt, ...): lo + r,
   or for a box of a grid (SFPCPartsGrid) its natural row. A box's row r has digits (field, x, y, z) in the radices
   (dof, box extents); the walk adds nt's digits with carries, each carry a fixed jump of the natural row. Loading the
   natural row from an index array before each right-hand side and result, or dividing r into its digits, took 1.13x
   the 7-point 128^3 apply's time (H200, bench/README.md, sfdilu, "Parts as boxes of the grid"). BOXES false: ranges,
   no digits. A kernel for each layout, the walk built where the gather and the scatter run (not held through the
   sweeps): 1.02-1.04x faster than one kernel for both, ranges and boxes alike (one call; "Q1 elasticity's nodes as
   boxes").
*/
template <bool BOXES>
struct VectorWalk {
  int at, d[3], len[3], step[3], jump[3], delta;

  __device__ VectorWalk(const PartsArgs &P, int p, int lo, int nt)
  {
    at = lo + (int)threadIdx.x, delta = nt;
    if constexpr (BOXES) Start(P.grid, p, nt);
  }
  __device__ void Start(const SFPCPartsGrid &G, int p, int nt)
  {
    int       first[3], ext[3], r = (int)threadIdx.x, t = nt;
    const int stride[4] = {1, G.dof, G.dof * G.n[0], G.dof * G.n[0] * G.n[1]};
    sfpc::PartsBox(G, p, first, ext);
    len[0] = G.dof, len[1] = ext[0], len[2] = ext[1];
    at = G.dof * first[0] + stride[2] * first[1] + stride[3] * first[2], delta = 0;
    for (int k = 0; k < 3; k++) {
      d[k] = r % len[k], step[k] = t % len[k], r /= len[k], t /= len[k];
      at += d[k] * stride[k], delta += step[k] * stride[k];
      jump[k] = stride[k + 1] - len[k] * stride[k];
    }
    at += r * stride[3], delta += t * stride[3];
  }
  __device__ __forceinline__ int Next()
  {
    const int i = at;
    at += delta;
    if constexpr (BOXES) {
      int c = 0;
#pragma unroll
      for (int k = 0; k < 3; k++) {
        d[k] += step[k] + c;
        c = d[k] >= len[k];
        if (c) d[k] -= len[k], at += jump[k];
      }
    }
    return i;
  }
};

/*
   The part's rows lo + r, r < m, walked coalesced, SFPC_PARTS_ROWS_IN_FLIGHT a thread at once: for each row its position
   h in the part and load(i) are read (i: the row's index in the vectors, VectorWalk), for all of the thread's rows before
   any is used, then use(i, h, value) (the gather of the right-hand side and the scatter of the result: two dependent
   loads a row otherwise, one row at a time).
*/
template <class Walk, class Load, class Use>
__device__ __forceinline__ void NaturalRows(const int *hpos, int lo, int m, Walk walk, Load load, Use use)
{
  const int nt = blockDim.x;
  for (int r0 = threadIdx.x; r0 < m; r0 += SFPC_PARTS_ROWS_IN_FLIGHT * nt) {
    int    h[SFPC_PARTS_ROWS_IN_FLIGHT], i[SFPC_PARTS_ROWS_IN_FLIGHT];
    double v[SFPC_PARTS_ROWS_IN_FLIGHT];
#pragma unroll
    for (int u = 0; u < SFPC_PARTS_ROWS_IN_FLIGHT; u++) {
      const int r = r0 + u * nt;
      i[u]        = walk.Next();
      h[u]        = r < m ? sfpc::LoadOnce(hpos + lo + r) - lo : -1;
      v[u]        = r < m ? load(i[u]) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < SFPC_PARTS_ROWS_IN_FLIGHT; u++)
      if (h[u] >= 0) use(i[u], h[u], v[u]);
  }
}

/*
   y = omega (LU)^{-1} b (add: y += ...) in home numbering; part p is block p, its warps taking its slices in turn,
   warp w slices w, w + warps, ... of the L sweep, then from the last of the U sweep's. b and y may be the same array: a
   block reads and writes only its own rows, reads first. The barrier between the sweeps keeps a row's L value until
   every row of the part that reads it has (the U sweep overwrites it; with a nonsymmetric pattern nothing else orders them).
*/
template <bool BOXES>
__global__ void __launch_bounds__(SFPC_PARTS_THREADS, 1) PartsKernel(PartsArgs P, const double *b, double omega, int add, double *y)
{
  extern __shared__ double xs[];
  const int p = blockIdx.x, lo = P.pstart[p], m = P.pstart[p + 1] - lo, ns = P.nsteps, warps = blockDim.x / 32, nt = blockDim.x;
  const int k0 = P.sstart[p * ns], k1 = P.sstart[(p + 1) * ns], nk = k1 - k0;
  double   *fw = P.pub + 2 * (size_t)P.parity * P.n, *bw = fw + P.n, *old = P.pub + 2 * (size_t)(1 - P.parity) * P.n;
  int      *meta = (int *)(xs + P.maxrows);
  PartMeta  M    = {meta, meta + nk + 1, meta + 2 * nk + 2, (unsigned *)(meta + 3 * nk + 3), k0};
  Preload   cur, next;

  for (int t = threadIdx.x; t <= nk; t += nt) {
    meta[t]              = P.sfirst[k0 + t];
    meta[nk + 1 + t]     = P.loff[k0 + t];
    meta[2 * nk + 2 + t] = P.uoff[k0 + t];
  }
  for (int l = threadIdx.x; l < m; l += nt) {
    if (l % 4 == 0) M.flag[l / 4] = 0;
    sfpc::ResetValue(old, lo + l);
    sfpc::ResetValue(old + P.n, lo + l);
  }
  NaturalRows(P.hpos, lo, m, VectorWalk<BOXES>(P, p, lo, nt), [&](int i) { return b[i]; }, [&](int, int h, double v) { xs[h] = v; });
  __syncthreads();
  PreloadSlice<true>(P, M, k0 + (int)threadIdx.x / 32, k1, cur);
  for (int k = k0 + (int)threadIdx.x / 32; k < k1; k += warps) {
    PreloadSlice<true>(P, M, k + warps, k1, next);
    PartSlice<true>(P, M, xs, lo, m, k, fw, cur);
    cur = next;
  }
  PreloadSlice<false>(P, M, k1 - 1 - (int)threadIdx.x / 32, k1, cur); /* the matrix only: before the barrier */
  __syncthreads();
  for (int k = k1 - 1 - (int)threadIdx.x / 32; k >= k0; k -= warps) {
    PreloadSlice<false>(P, M, k - warps, k1, next);
    PartSlice<false>(P, M, xs, lo, m, k, bw, cur);
    cur = next;
  }
  __syncthreads();
  NaturalRows(
    P.hpos, lo, m, VectorWalk<BOXES>(P, p, lo, nt), [&](int i) { return add ? y[i] : 0.0; }, [&](int i, int h, double v) { y[i] = add ? v + omega * xs[h] : (omega == 1.0 ? xs[h] : omega * xs[h]); });
}

/* Sort key of factor row q: (group = part of its home row and step, its entries in L); the sort is stable, so a group keeps the factor's order among rows of one length. */
__global__ void PartKeys(int n, const int *__restrict__ part, int nsteps, const int *__restrict__ home, const int *__restrict__ step, const int *__restrict__ ti, const int *__restrict__ td, unsigned long long *key, int *idx)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  key[q] = (unsigned long long)(part[home[q]] * (long long)nsteps + step[q]) << 8 | (unsigned long long)min(td[q] - ti[q], 255);
  idx[q] = q;
}

/*
   Per position g (the sorted order): the position of its home row, the inverse map, and the rows of each group (part,
   step). Part p's positions are its home rows' range, pstart[p] .. pstart[p + 1], so part[] serves both numberings.
*/
__global__ void PartPositions(int n, const int *__restrict__ part, int nsteps, const int *__restrict__ pord, const int *__restrict__ home, const int *__restrict__ step, int *hpos, int *pinv, int *count)
{
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  const int q = pord[g];
  hpos[home[q]] = g;
  pinv[q]       = g;
  atomicAdd(count + part[g] * nsteps + step[q], 1);
}

__global__ void GroupSlices(int ngroups, int R, const int *__restrict__ gstart, int *slices)
{
  const int G = blockIdx.x * blockDim.x + threadIdx.x;
  if (G < ngroups) slices[G] = (gstart[G + 1] - gstart[G] + R - 1) / R;
}

/* Each slice's first position (slices tile the groups in order, so slice k holds positions first[k] .. first[k + 1]). */
__global__ void SliceFirst(int ngroups, int R, const int *__restrict__ gstart, const int *__restrict__ sstart, int *first)
{
  const int G = blockIdx.x * blockDim.x + threadIdx.x;
  if (G >= ngroups) return;
  for (int k = sstart[G]; k < sstart[G + 1]; k++) first[k] = gstart[G] + (k - sstart[G]) * R;
}

/* The slice and the row in it of position g. */
__device__ __forceinline__ void SliceOf(int g, int G, int R, const int *gstart, const int *sstart, int *k, int *rl)
{
  *k  = sstart[G] + (g - gstart[G]) / R;
  *rl = (g - gstart[G]) % R;
}

/* Each slice's slots in each triangle: 32 per slot a lane, the slots of its longest row over s lanes. */
__global__ void SliceSlots(int n, const int *__restrict__ part, int nsteps, int s, const int *__restrict__ pord, const int *__restrict__ step, const int *__restrict__ gstart, const int *__restrict__ sstart, const int *__restrict__ ti, const int *__restrict__ td, long long *lw, long long *uw)
{
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  const int q = pord[g];
  int       k, rl;
  SliceOf(g, part[g] * nsteps + step[q], 32 / s, gstart, sstart, &k, &rl);
  atomicMax((unsigned long long *)lw + k, 32ULL * ((td[q] - ti[q] + s - 1) / s));
  atomicMax((unsigned long long *)uw + k, 32ULL * ((ti[q + 1] - td[q] - 1 + s - 1) / s));
}

/* part[i]: the part whose range pstart[p] .. pstart[p + 1] holds i (parts may be empty) */
__global__ void PartOfRows(int n, int np, const int *__restrict__ pstart, int *part)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) part[i] = sfpc::LowerBound(pstart, 0, np + 1, i + 1) - 1;
}

__global__ void Narrow(int n, const long long *__restrict__ in, int *out)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = (int)in[k];
}

/*
   The slots of position g's row: its entry t in a triangle goes to lane (row in slice) s + t % s, slot t / s of that
   lane; columns as positions, and where in the factor each value is. An entry whose step is not below (L) or above
   (U) its row's is kept in *bad (its row, the smallest).
*/
__global__ void SlotEntries(int n, const int *__restrict__ part, int nsteps, int s, const int *__restrict__ pord, const int *__restrict__ pinv, const int *__restrict__ step, const int *__restrict__ gstart, const int *__restrict__ sstart, const int *__restrict__ ti, const int *__restrict__ tj, const int *__restrict__ td, const int *__restrict__ loff, const int *__restrict__ uoff, int *lcol, int *lsrc, int *ucol, int *usrc, int *bad)
{
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  const int q = pord[g], sq = step[q];
  int       k, rl;
  SliceOf(g, part[g] * nsteps + sq, 32 / s, gstart, sstart, &k, &rl);
  for (int t = 0; t < td[q] - ti[q]; t++) {
    const int e = ti[q] + t, slot = loff[k] + (t / s) * 32 + rl * s + t % s;
    if (step[tj[e]] >= sq) atomicMin(bad, q);
    lcol[slot] = pinv[tj[e]];
    lsrc[slot] = e;
  }
  for (int t = 0; t < ti[q + 1] - td[q] - 1; t++) {
    const int e = td[q] + 1 + t, slot = uoff[k] + (t / s) * 32 + rl * s + t % s;
    if (step[tj[e]] <= sq) atomicMin(bad, q);
    ucol[slot] = pinv[tj[e]];
    usrc[slot] = e;
  }
}

__global__ void SlotValues(long long nslots, const int *__restrict__ src, const double *__restrict__ a, double *val)
{
  const long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (s < nslots) val[s] = src[s] >= 0 ? a[src[s]] : 0.0;
}

__global__ void PartDiagonals(int n, const int *__restrict__ pord, const int *__restrict__ td, const double *__restrict__ a, double *dinv)
{
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n) dinv[g] = a[td[pord[g]]];
}

const int TPB = 256;

template <typename T>
PetscErrorCode ExclusiveSum(const T *in, T *out, int count, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, count, stream); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T>
PetscErrorCode ReadBack(const T *d, T *h, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(h, d, sizeof(T), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Slot offsets of one triangle's slices from their slots (count + 1 entries, the last 0), as int; *total: all its slots. */
PetscErrorCode SlotOffsets(int count, long long *slots, long long *scan, int *off, long long *total, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(ExclusiveSum(slots, scan, count + 1, stream));
  PetscCall(ReadBack(scan + count, total, stream));
  Narrow<<<sfpc::LaunchBlocks(count + 1, TPB), TPB, 0, stream>>>(count + 1, scan, off);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/*
   Lanes per row of T's solves by parts with parts of up to rows rows in nsteps steps: the fewest (a power of two) that
   leave a lane about SFPC_PARTS_ENTRIES_PER_LANE entries of a triangle, then doubled while a step of the largest part
   (rows / nsteps) fills fewer than SFPC_PARTS_MIN_SLICES slices and every lane keeps an entry: where a step holds a few
   dozen rows, more lanes a row give the block's warps more slices to run at once.
*/
static int PartLanes(SFPCTriDevice T, PetscInt rows, PetscInt nsteps)
{
  const double per  = T->n ? (double)(T->nnz - T->n) / (2.0 * T->n) : 0; /* entries of a row in one triangle, on average */
  const double step = (double)rows / (double)PetscMax(nsteps, 1);
  int          s    = 1;
  while (s < 32 && SFPC_PARTS_ENTRIES_PER_LANE * s < per) s *= 2;
  while (s < 32 && step * s < 32.0 * SFPC_PARTS_MIN_SLICES && per >= 2 * s) s *= 2;
  return s;
}

/* Shared memory of a part's block, at most: its unknowns, its slices' first positions and slot offsets in each triangle (a group's rows in slices of R), a flag a row. */
static size_t PartBytes(int rows, PetscInt nsteps, int R)
{
  return sizeof(PetscScalar) * (size_t)rows + sizeof(int) * (3 * ((size_t)rows / R + (size_t)nsteps + 1) + ((size_t)rows + 3) / 4);
}

/* The shared memory a block of this device may opt in to: what a part may use. */
static PetscErrorCode OptInSharedMemory(int *smem)
{
  int dev;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Parts and rows per part for n rows and nsteps steps on this device, a block per SM; *fits false where a part's shared memory would exceed a block's. */
PetscErrorCode SFPCPartsSize(SFPCTriDevice T, PetscInt n, PetscInt nsteps, int *np, int *rows, PetscBool *fits)
{
  PetscFunctionBegin;
  *np   = (int)PetscMax(1, PetscMin((PetscInt)T->sms, (n + SFPC_PARTS_MIN_ROWS - 1) / SFPC_PARTS_MIN_ROWS));
  *rows = (int)((n + *np - 1) / *np);
  PetscCall(SFPCPartsFit(T, *rows, nsteps, fits));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether parts of up to rows rows and nsteps steps fit a block's shared memory. */
PetscErrorCode SFPCPartsFit(SFPCTriDevice T, PetscInt rows, PetscInt nsteps, PetscBool *fits)
{
  int smem;

  PetscFunctionBegin;
  PetscCall(OptInSharedMemory(&smem));
  *fits = (PetscBool)(rows <= INT_MAX / 8 && PartBytes((int)rows, nsteps, 32 / PartLanes(T, rows, nsteps)) <= (size_t)smem);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCPartsDestroy_Device(SFPCTriDevice T)
{
  SFPCParts   *P = &T->parts;
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  {
    void *p[] = {P->pstart, P->pord, P->hpos, P->sstart, P->sfirst, P->loff, P->uoff, P->lcol, P->ucol, P->lsrc, P->usrc, P->lval, P->uval, P->dinv, P->pub};
    PetscCall(SFPCFreeAll(stream, (int)(sizeof(p) / sizeof(p[0])), p));
  }
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slots' values and the inverse diagonals from T->a (after each change of the values). */
PetscErrorCode SFPCPartsFill_Device(SFPCTriDevice T)
{
  SFPCParts   *P = &T->parts;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!P->np) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (P->lslots) SlotValues<<<sfpc::LaunchBlocks(P->lslots, TPB), TPB, 0, stream>>>(P->lslots, P->lsrc, T->a, P->lval);
  if (P->uslots) SlotValues<<<sfpc::LaunchBlocks(P->uslots, TPB), TPB, 0, stream>>>(P->uslots, P->usrc, T->a, P->uval);
  PartDiagonals<<<sfpc::LaunchBlocks(T->n, TPB), TPB, 0, stream>>>((int)T->n, P->pord, T->diag, T->a, P->dinv);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Builds T's parts (see the top of this file) for solves whose vectors are in the caller's numbering: natural[q] is
   factor row q's row in the vectors (a permutation), step[q] its step, 0 .. nsteps - 1 (device arrays). Without a
   grid (NULL, or grid->b[0] = 0) the home rows are the vectors' rows and the parts SFPCPartsSize()'s equal ranges of
   them; with one (SFPCPartsBoxes() picks it) the vectors are the grid's rows in natural order, the parts its boxes and
   the home rows its numbering box by box (SFPCPartsGrid). *fits false (and nothing built) where a part would not fit a
   block's shared memory, or its slots the int offsets. The values are filled from T->a.
*/
PetscErrorCode SFPCTriDeviceSetParts(SFPCTriDevice T, const int *natural, const int *step, PetscInt nsteps, const SFPCPartsGrid *grid, PetscBool *fits)
{
  SFPCParts          *P = &T->parts;
  cudaStream_t        stream;
  const int           n = (int)T->n;
  int                 s, R, np, rows = 0, ngroups, nslices, smem, bad = INT_MAX, *dbad, *idx, *count, *pinv, *gstart, *hstart, *part, *boxhome = NULL;
  const int          *home = natural;
  PetscInt           *pstart = NULL;
  long long          *lslots, *uslots, *scan, ltotal, utotal;
  unsigned long long *key, *skey;

  PetscFunctionBegin;
  PetscCall(SFPCPartsDestroy_Device(T));
  PetscCheck(T->opt.lower && T->opt.upper && T->lower.unit && !T->upper.unit, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Solves by parts need an LU factor with unit L");
  PetscCheck(nsteps >= 1 && nsteps <= PetscMax(n, 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Steps of a solve by parts: %" PetscInt_FMT " for %d rows", nsteps, n);
  if (grid && grid->b[0]) {
    np = grid->b[0] * grid->b[1] * grid->b[2];
    PetscCheck(np >= 1 && np <= T->sms && grid->b[1] >= 1 && grid->b[2] >= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Parts: %d x %d x %d boxes on %d SMs", grid->b[0], grid->b[1], grid->b[2], T->sms);
    PetscCall(SFPCPartsGridStarts(grid, &pstart));
    PetscCheck(pstart[np] == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Parts: a grid of %" PetscInt_FMT " rows for a factor of %d", pstart[np], n);
    for (int p = 0; p < np; p++) rows = PetscMax(rows, (int)(pstart[p + 1] - pstart[p]));
    PetscCall(SFPCPartsFit(T, rows, nsteps, fits));
  } else PetscCall(SFPCPartsSize(T, n, nsteps, &np, &rows, fits));
  if (!n || !*fits) {
    PetscCall(PetscFree(pstart));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  s = PartLanes(T, rows, nsteps);
  R = 32 / s;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  ngroups = np * (int)nsteps;

  /* the parts' ranges of home rows, and each home row's part */
  PetscCall(PetscMalloc1(np + 1, &hstart));
  for (int p = 0; p <= np; p++) hstart[p] = pstart ? (int)pstart[p] : PetscMin(p * rows, n);
  PetscCallCUDA(cudaMallocAsync(&P->pstart, sizeof(int) * (np + 1), stream));
  PetscCallCUDA(cudaMemcpyAsync(P->pstart, hstart, sizeof(int) * (np + 1), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* hstart is pageable and freed next */
  PetscCall(PetscFree(hstart));
  PetscCall(PetscFree(pstart));
  PetscCallCUDA(cudaMallocAsync(&part, sizeof(int) * n, stream));
  PartOfRows<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>(n, np, P->pstart, part);
  PetscCallCUDA(cudaGetLastError());
  if (grid && grid->b[0]) { /* boxes: factor row q's home row, its natural row's place box by box */
    P->grid = *grid;
    PetscCallCUDA(cudaMallocAsync(&boxhome, sizeof(int) * n, stream));
    PetscCall(SFPCPartsGridHome(grid, n, P->pstart, natural, boxhome));
    home = boxhome;
  }

  /* positions: rows sorted by (part, step, entries in L) */
  PetscCallCUDA(cudaMallocAsync(&key, sizeof(*key) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&skey, sizeof(*skey) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&idx, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&P->pord, sizeof(int) * n, stream));
  PartKeys<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>(n, part, (int)nsteps, home, step, T->i, T->diag, key, idx);
  PetscCallCUDA(cudaGetLastError());
  {
    int kbits = 9;
    while (kbits < 64 && ((unsigned long long)ngroups >> (kbits - 8))) kbits++;
    PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, idx, P->pord, n, 0, kbits, stream); }));
  }
  PetscCallCUDA(cudaFreeAsync(skey, stream));
  PetscCallCUDA(cudaFreeAsync(key, stream));
  PetscCallCUDA(cudaFreeAsync(idx, stream));
  PetscCallCUDA(cudaMallocAsync(&P->hpos, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&pinv, sizeof(int) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&count, sizeof(int) * (ngroups + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&gstart, sizeof(int) * (ngroups + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->sstart, sizeof(int) * (ngroups + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(count, 0, sizeof(int) * (ngroups + 1), stream));
  PartPositions<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>(n, part, (int)nsteps, P->pord, home, step, P->hpos, pinv, count);
  PetscCallCUDA(cudaGetLastError());
  if (boxhome) PetscCallCUDA(cudaFreeAsync(boxhome, stream));
  PetscCall(ExclusiveSum(count, gstart, ngroups + 1, stream));
  GroupSlices<<<sfpc::LaunchBlocks(ngroups, TPB), TPB, 0, stream>>>(ngroups, R, gstart, count);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemsetAsync(count + ngroups, 0, sizeof(int), stream));
  PetscCall(ExclusiveSum(count, P->sstart, ngroups + 1, stream));
  PetscCall(ReadBack(P->sstart + ngroups, &nslices, stream));
  PetscCallCUDA(cudaMallocAsync(&P->sfirst, sizeof(int) * (nslices + 1), stream));
  PetscCallCUDA(cudaMemcpyAsync(P->sfirst + nslices, &n, sizeof(int), cudaMemcpyHostToDevice, stream));
  SliceFirst<<<sfpc::LaunchBlocks(ngroups, TPB), TPB, 0, stream>>>(ngroups, R, gstart, P->sstart, P->sfirst);
  PetscCallCUDA(cudaGetLastError());

  /* slices: slots, their offsets, then the slots themselves */
  PetscCallCUDA(cudaMallocAsync(&lslots, sizeof(long long) * (nslices + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&uslots, sizeof(long long) * (nslices + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&scan, sizeof(long long) * (nslices + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->loff, sizeof(int) * (nslices + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->uoff, sizeof(int) * (nslices + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(lslots, 0, sizeof(long long) * (nslices + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(uslots, 0, sizeof(long long) * (nslices + 1), stream));
  SliceSlots<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>(n, part, (int)nsteps, s, P->pord, step, gstart, P->sstart, T->i, T->diag, lslots, uslots);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SlotOffsets(nslices, lslots, scan, P->loff, &ltotal, stream));
  PetscCall(SlotOffsets(nslices, uslots, scan, P->uoff, &utotal, stream));
  PetscCallCUDA(cudaFreeAsync(scan, stream));
  PetscCallCUDA(cudaFreeAsync(uslots, stream));
  PetscCallCUDA(cudaFreeAsync(lslots, stream));
  if (ltotal > INT_MAX || utotal > INT_MAX) {
    PetscCallCUDA(cudaFreeAsync(part, stream));
    PetscCallCUDA(cudaFreeAsync(gstart, stream));
    PetscCallCUDA(cudaFreeAsync(count, stream));
    PetscCallCUDA(cudaFreeAsync(pinv, stream));
    PetscCall(SFPCPartsDestroy_Device(T));
    *fits = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  P->lslots = ltotal;
  P->uslots = utotal;
  PetscCallCUDA(cudaMallocAsync(&P->lcol, sizeof(int) * PetscMax(ltotal, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->lsrc, sizeof(int) * PetscMax(ltotal, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->ucol, sizeof(int) * PetscMax(utotal, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->usrc, sizeof(int) * PetscMax(utotal, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->lval, sizeof(PetscScalar) * PetscMax(ltotal, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->uval, sizeof(PetscScalar) * PetscMax(utotal, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(P->lcol, 0xff, sizeof(int) * PetscMax(ltotal, 1), stream)); /* -1: padding */
  PetscCallCUDA(cudaMemsetAsync(P->lsrc, 0xff, sizeof(int) * PetscMax(ltotal, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(P->ucol, 0xff, sizeof(int) * PetscMax(utotal, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(P->usrc, 0xff, sizeof(int) * PetscMax(utotal, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dbad, sizeof(int), stream));
  PetscCallCUDA(cudaMemcpyAsync(dbad, &bad, sizeof(int), cudaMemcpyHostToDevice, stream));
  SlotEntries<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>(n, part, (int)nsteps, s, P->pord, pinv, step, gstart, P->sstart, T->i, T->j, T->diag, P->loff, P->uoff, P->lcol, P->lsrc, P->ucol, P->usrc, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(ReadBack(dbad, &bad, stream));
  PetscCallCUDA(cudaFreeAsync(dbad, stream));
  PetscCallCUDA(cudaFreeAsync(part, stream));
  PetscCallCUDA(cudaFreeAsync(gstart, stream));
  PetscCallCUDA(cudaFreeAsync(count, stream));
  PetscCallCUDA(cudaFreeAsync(pinv, stream));

  PetscCallCUDA(cudaMallocAsync(&P->dinv, sizeof(PetscScalar) * n, stream));
  PetscCallCUDA(cudaMallocAsync(&P->pub, sizeof(PetscScalar) * 4 * (size_t)n, stream));
  PetscCall(SFPCFillSentinel(4 * (PetscInt)n, P->pub));
  /* once, the most any factor's parts may ask for (the attribute belongs to the kernel, not to this factor) */
  PetscCall(OptInSharedMemory(&smem));
  PetscCallCUDA(cudaFuncSetAttribute((const void *)PartsKernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  PetscCallCUDA(cudaFuncSetAttribute((const void *)PartsKernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  P->np      = np;
  P->maxrows = rows;
  P->nsteps = (int)nsteps;
  P->lanes  = s;
  P->parity = 0;
  if (bad != INT_MAX) {
    PetscCall(SFPCPartsDestroy_Device(T));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Factor row %d has an entry whose step does not order it for a solve by parts", bad);
  }
  PetscCall(SFPCPartsFill_Device(T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = omega (LU)^{-1} b, or with add y += omega (LU)^{-1} b, b and y in the numbering given to SFPCTriDeviceSetParts() (they may be the same array). */
PetscErrorCode SFPCTriDeviceSolveParts(SFPCTriDevice T, const PetscScalar *b, PetscScalar omega, PetscBool add, PetscScalar *y)
{
  SFPCParts   *P = &T->parts;
  cudaStream_t stream;
  PartsArgs    args = {(int)T->n, P->maxrows, P->nsteps, P->parity, P->lanes, __builtin_ctz((unsigned)P->lanes), P->grid, P->pstart, P->hpos, P->sstart, P->sfirst, P->loff, P->uoff, P->lcol, P->ucol, P->lval, P->uval, P->dinv, P->pub};
  const size_t smem = PartBytes(P->maxrows, P->nsteps, 32 / P->lanes);
  const double w    = (double)PetscRealPart(omega);
  const int    a    = add ? 1 : 0;
  void        *kargs[] = {(void *)&args, (void *)&b, (void *)&w, (void *)&a, (void *)&y};

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(P->np, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Solve by parts of an engine factor without parts");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaLaunchCooperativeKernel(P->grid.b[0] ? (const void *)PartsKernel<true> : (const void *)PartsKernel<false>, P->np, SFPC_PARTS_THREADS, kargs, smem, stream));
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->nnz + (add ? 2.0 : (omega != 1.0)) * T->n));
  P->parity = 1 - P->parity;
  PetscFunctionReturn(PETSC_SUCCESS);
}
