/*
   The GPU multicolor DILU (PCSFDILU on MATSEQAIJCUSPARSE), from PETSc's device CSR; nothing of
   the matrix goes to the host.

   Per nonzero pattern: the rows are colored (JPL or the grid's residues on the device, sfdilu.h; or
   greedy on the host from a copy of the pattern), sorted by (color, row), and A's pattern is permuted symmetrically
   into that order, P A P^T: a proper coloring leaves no same-color entry off the diagonal, so its
   strictly lower part is L_c and its upper part U_c. The sync-free engine (src/mat/hybsf)
   analyses that pattern once: its dependency levels are the colors (or fewer, where a color
   does not depend on the one before it), its warp tasks bin each color's rows by length.

   Per set of values: E in color order, sync-free over the engine's L schedule (a row waits only
   for the E_j it reads), then the engine factor's values: L entries a_ij / E_j (unit diagonal),
   diagonal slots 1/E_i, U entries a_ij. With u = E z, M^{-1} r is then the engine's LU solve:
   (I + L_c E^{-1}) u = r, (E + U_c) y = u: one kernel per sweep. The per-color variant runs the
   same two sweeps with one launch per color (the classic multicolor smoother).

   Per apply: gather into color order (done by the sweeps themselves where they can), two sweeps, scatter
   back; PCApplyRichardson() fuses the residual into the gather and the update into the scatter. A
   transposed apply runs the engine's transposed solve of the same factor (its own analysis, made on
   first use, then refilled on the device).
*/
#include <cuda/atomic>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <petscdevice_cuda.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#define SFDILU_BLOCK_INDEX int
#include "dilu_blocks.h"

/* The parts a solve by parts takes (PartsLayout()): boxes of the grid where one is known, else the engine's ranges of consecutive rows. */
typedef struct {
  int           np, maxrows; /* parts, and the largest one's rows */
  PetscBool     fits;        /* in a block's shared memory */
  SFPCPartsGrid grid;        /* the boxes (grid.b[0] = 0: ranges of rows) */
} SFDILUParts;

struct _n_SFDILUDevice {
  int         *color;  /* color of each row */
  int         *order;  /* rows sorted by (color, row): position q holds row order[q] */
  int         *iperm;  /* iperm[order[q]] = q */
  int         *tpos;   /* per entry of A: position of a_ji for a_ij, or -1; after the row order, only for a_ij of a lower-colored column (what E reads) */
  int         *src;    /* per entry of the factor: its position in A, or -1 (a diagonal A lacks) */
  PetscScalar *einv;   /* 1/E, in color order */
  PetscScalar *rp, *yp; /* work vectors in color order */
  PetscScalar *kp;      /* Eisenstat's form: K = diag(A) - 2 E in color order (made by its first set-up) */
  PetscInt    *cstart; /* host: positions of color c are cstart[c] .. cstart[c+1] */
  PetscInt    *hcolor; /* host copy of color, made on request */
  int          lanes;      /* lanes per row of the kernels over A's rows (E's values) */
  int          rlanes;     /* lanes per row of the fused residual: half of lanes (1-2 entries a lane, at most 16 lanes; H200, a
                              Richardson step 1.12-1.23x faster on 7- and 27-point 128^3 grids than with lanes, 1.01-1.02x on elasticity,
                              bench/README.md, "Solves by parts") */
  int          sweeplanes; /* lanes per row of the per-color sweeps (one triangle of a row) */
  int          bandwidth;  /* the local order's: largest |column - row| of A */
  SFDILUParts  parts;      /* of the solves by parts, once the rows are colored */
  PetscInt     nnz;    /* entries of A */
  SFPCTriDevice T;     /* P A P^T's pattern, its schedules and the factor values */
  /* by point-blocks (dilu_blocks.h) */
  int         *points;  /* the points sorted by (color, point) */
  PetscInt    *pcstart; /* host: points of color c are points[pcstart[c] .. pcstart[c+1]), c < npc (some possibly empty) */
  PetscInt     npc;
  PetscScalar *lu;      /* the factor's values on A's pattern, natural numbering */
  PetscScalar *eblk;    /* each point's E_I = L_I U_I */
};

/*
   The local order (-pc_sfdilu_order local): rows sorted by (window of row + color * D, color, row) with
   D = SFDILU_LOCAL_SKEW * bandwidth + 1, windows of -pc_sfdilu_local_window keys. For coupled rows i, j with
   color(j) < color(i), (i + color(i) D) - (j + color(j) D) >= D - bandwidth > 0, so a row comes after
   every lower-colored neighbour: the lower triangle of P A P^T is still L_c, and the DILU the same
   operator. A row's lower-colored neighbours lie at most (colors * D) keys back, and the engine dispatches
   the sweeps window by window (half as many rows, its window-major mode), so the unknowns the
   warps in flight read, about colors * D rows, stay in L2 where the whole vector does not. A larger D
   puts a row's dependencies further back (fewer waits on warps still in flight), a smaller one keeps
   the rows read closer; H100, 7-point 256^3, apply ms (color order 5.96, per color 3.25): D of 4
   bandwidths and windows of 2^18 keys 2.78, of 2^20 keys 2.98; 8 bandwidths and 2^18 keys 3.39; 2
   bandwidths and 2^16 keys 3.18 (bench/README.md). With a bandwidth near n (a permuted matrix) the
   order degenerates to the color order.
*/
#define SFDILU_LOCAL_SKEW 4

namespace
{
const int TPB = 256;

/* tpos, and (unless extra is NULL) per row c the number of rows r with a_rc but no a_cr: the symmetrized pattern's extra neighbours of c. */
__global__ void TransposePositions(int n, const int *__restrict__ ai, const int *__restrict__ aj, int *tpos, int *extra)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  for (int k = ai[r]; k < ai[r + 1]; k++) {
    const int c = aj[k], t = sfpc::FindSorted(aj, ai[c], ai[c + 1], r);
    tpos[k] = t;
    if (t < 0 && extra) atomicAdd(extra + c, 1);
  }
}

__global__ void FillExtra(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ tpos, const int *__restrict__ xi, int *xfill, int *xj)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  for (int k = ai[r]; k < ai[r + 1]; k++)
    if (tpos[k] < 0) xj[xi[aj[k]] + atomicAdd(xfill + aj[k], 1)] = r;
}

__device__ __forceinline__ int LoadColor(const int *color, int c)
{
  return cuda::atomic_ref<const int, cuda::thread_scope_device>(color[c]).load(cuda::memory_order_relaxed);
}

/* Row r against the neighbours list[lo, hi) in round k: sfdilu.h's rule, the host's (dilu_host.c). */
__device__ __forceinline__ void JPLCompare(int r, unsigned hr, const int *__restrict__ list, int lo, int hi, const int *color, int round, unsigned seed, int *ismax, int *ismin)
{
  for (int k = lo; k < hi; k++) SFDILUVisit(r, hr, list[k], LoadColor(color, list[k]), round, seed, ismax, ismin);
}

/* One JPL round (sfdilu.h); rows colored in it are counted in *colored. */
__global__ void JPLRound(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ xi, const int *__restrict__ xj, int *color, int round, unsigned seed, int *colored)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n || LoadColor(color, r) >= 0) return;
  const unsigned hr    = SFDILUHash((unsigned)r, seed);
  int            ismax = 1, ismin = 1;
  JPLCompare(r, hr, aj, ai[r], ai[r + 1], color, round, seed, &ismax, &ismin);
  JPLCompare(r, hr, xj, xi[r], xi[r + 1], color, round, seed, &ismax, &ismin);
  if (ismax || ismin) {
    cuda::atomic_ref<int, cuda::thread_scope_device>(color[r]).store(2 * round + (ismax ? 0 : 1), cuda::memory_order_relaxed);
    sfpc::AtomicAddWarp(colored, 1);
  }
}

/*
   After the coloring: tpos kept only where E reads it, entries a_ij of a lower-colored column j (with an a_ji), so
   that E reads no colors: two scattered loads per product instead of three (3% off a re-set-up on an H100,
   bench/README.md, sfdilu).
*/
__global__ void LowerPositions(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ color, int *tpos)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int cr = color[r];
  for (int k = ai[r]; k < ai[r + 1]; k++)
    if (color[aj[k]] >= cr) tpos[k] = -1;
}

__global__ void CountColors(int n, const int *__restrict__ color, int *count)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) atomicAdd(count + color[r], 1);
}

__global__ void RenumberColors(int n, const int *__restrict__ map, int *color, int *rows)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  color[r] = map[color[r]];
  rows[r]  = r;
}

/* Largest |column - row| over A's entries (*bw zeroed before). */
__global__ void BandwidthKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, int *bw)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  int       m = 0;
  if (r >= n) return;
  for (int k = ai[r]; k < ai[r + 1]; k++) m = max(m, abs(aj[k] - r));
  sfpc::AtomicMaxWarp(bw, m);
}

/* The local order's sort key of each row (see SortRows()). */
__global__ void LocalKeys(int n, const int *__restrict__ color, long long skew, long long window, int ncolors, unsigned long long *key)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) key[r] = (unsigned long long)((r + color[r] * skew) / window) * (unsigned long long)ncolors + (unsigned long long)color[r];
}

/* Step of each row of the color order in a solve by parts: its color. */
__global__ void ColorSteps(int n, const int *__restrict__ order, const int *__restrict__ color, int *step)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < n) step[q] = color[order[q]];
}

__global__ void InvertOrder(int n, const int *__restrict__ order, int *iperm)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < n) iperm[order[q]] = q;
}

/* Row lengths of P A P^T, with a diagonal slot where A has none; by point-blocks of bs rows (bs > 1) without the couplings inside a point (E holds them, dilu_blocks.h). */
__global__ void PermutedLengths(int n, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ order, int *len)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int r = order[q];
  len[q]      = bs > 1 ? ai[r + 1] - ai[r] - bs + 1 : ai[r + 1] - ai[r] + (sfpc::FindSorted(aj, ai[r], ai[r + 1], r) < 0);
}

/* P A P^T's columns (unsorted within rows) and the position in A each entry comes from. */
__global__ void PermutedEntries(int n, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ order, const int *__restrict__ iperm, const int *__restrict__ pi, int *pj, int *src)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int r = order[q];
  int       p = pi[q];
  bool      diag = false;
  for (int k = ai[r]; k < ai[r + 1]; k++) {
    if (bs > 1 && aj[k] != r && aj[k] / bs == r / bs) continue;
    pj[p]  = iperm[aj[k]];
    src[p] = k;
    diag |= aj[k] == r;
    p++;
  }
  if (!diag) {
    pj[p]  = q;
    src[p] = -1;
  }
}

/*
   E_q of the row at position q of the color order, by its vector of s lanes (lane t, the vector's mask): the
   lanes load the row's entries, wait for 1/E_j of their lower-colored neighbours (each 1/E_j is its own flag,
   published once, as the solves publish their unknowns) and form the products a_ij (1/E_j) a_ji at once, one entry
   per lane; then every lane sums them in the host reference's order (entries ascending, separately rounded, no
   fused multiply-add), so E is bitwise the host's. (One lane per row, the first version, walked the entries one
   dependent load chain after the other: bench/README.md, sfdilu.) A failed E_i still publishes (1/E_i = 0) so
   that no row waits forever; found[0] is the first failing position, found[1] the first non-finite one. Returns,
   on the vector's first lane, the row sum of |A| as bits (nonnegative doubles order like them; 0 for NaN).
*/
__device__ __forceinline__ unsigned long long DiagonalRow(int q, int s, int t, int v0, unsigned vmask, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ A, const int *__restrict__ tpos, const int *__restrict__ order, const int *__restrict__ iperm, double shift, double zeropivot, double *einv, int *found)
{
  const int r = order[q], rb = ai[r], re = ai[r + 1];
  double    rowsum = 0, e = shift;
  for (int k0 = rb; k0 < re; k0 += s) {
    const int k    = k0 + t;
    int       kind = 0; /* of this lane's entry: 1 the diagonal, 2 a product to subtract, 0 neither */
    double    term = 0, mag = 0;
    if (k < re) {
      const int    c = aj[k], tk = tpos[k]; /* tk >= 0: c has a lower color and a_ci exists (LowerPositions()) */
      const double v = A[k];
      mag            = fabs(v);
      if (c == r) {
        kind = 1;
        term = v;
      } else if (tk >= 0) {
        const int qc = iperm[c];
        kind         = 2;
        term         = __dmul_rn(__dmul_rn(v, sfpc::WaitValue(einv, qc)), A[tk]);
      }
    }
    for (int j = 0; j < min(s, re - k0); j++) {
      const int    kj = __shfl_sync(vmask, kind, v0 + j);
      const double tj = __shfl_sync(vmask, term, v0 + j);
      rowsum          = __dadd_rn(rowsum, __shfl_sync(vmask, mag, v0 + j));
      if (kj == 1) e = __dadd_rn(e, tj);
      else if (kj == 2) e = __dsub_rn(e, tj);
    }
  }
  if (t) return 0;
  const bool   nonfinite = !isfinite(rowsum) || !isfinite(e);
  const bool   failed    = !isfinite(rowsum) || SFPCPivotFails(e, zeropivot * rowsum, 0);
  const double inv       = failed ? 0.0 : __ddiv_rn(1.0, e);
  if (failed) {
    atomicMin(found, q);
    if (nonfinite) atomicMin(found + 1, q);
  }
  sfpc::PublishValue(einv, q, inv);
  return isnan(rowsum) ? 0 : (unsigned long long)__double_as_longlong(rowsum);
}

/*
   E sync-free over the engine's L schedule: a row waits only for the rows whose E it reads. Each warp keeps the
   largest row sum it saw and adds it to rmax once, at the end: one atomicMax on one address per row serialized in L2
   and was most of the kernel's time (bench/README.md, sfdilu).
*/
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) DiagonalKernel(const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ A, const int *__restrict__ tpos, const int *__restrict__ order, const int *__restrict__ iperm, SFPCSchedule S, unsigned long long *counter, unsigned long long base, double shift, double zeropivot, double *einv, int *found, unsigned long long *rmax)
{
  const int          lane = threadIdx.x & 31;
  unsigned long long top  = 0;
  for (long long w; (w = sfpc::TakeTask(counter, base)) < S.ntasks;) {
    const int s = S.vec[w], t = lane & (s - 1), v0 = lane & ~(s - 1), p = S.start[w] + lane / s;
    if (p < S.start[w + 1]) top = max(top, DiagonalRow(S.order[p], s, t, v0, sfpc::VectorMask(lane, s), ai, aj, A, tpos, order, iperm, shift, zeropivot, einv, found)); /* whole vectors */
  }
  sfpc::AtomicMaxWarp(rmax, top);
}

/* The engine factor's values from A and 1/E (see the top of this file), vectors of s lanes per row (coalesced, as an SpMV reads). */
__global__ void FactorValues(int n, int s, const int *__restrict__ ti, const int *__restrict__ tj, const int *__restrict__ src, const double *__restrict__ A, const double *__restrict__ einv, double *a)
{
  const int q = (int)((blockIdx.x * (long long)blockDim.x + threadIdx.x) / s);
  if (q >= n) return;
  for (int k = ti[q] + (threadIdx.x & (s - 1)); k < ti[q + 1]; k += s) {
    const int    c = tj[k];
    const double v = src[k] >= 0 ? A[src[k]] : 0.0;
    a[k]           = c < q ? v * einv[c] : (c == q ? einv[q] : v);
  }
}

/*
   E^{-1} of the points[p0 .. p1) of one color (dilu_blocks.h), a warp a point: each lane its share of the point's blocks,
   summed by the butterfly the host reproduces (dilu_blocks.c), then every lane the inverse, lane a bs + c storing entry
   (a, c). A failing row is kept in *first (and, a NaN or Inf, in *firstbad) as its (color, row) key, the order the host
   finds it in; rmax gets the largest row sum. (A thread a point, the first version, took 4.6x the row-by-row set-up's
   time with new values: a color's few thousand points left the SMs nearly idle.)
*/
template <int BS>
__global__ void BlockInverses(int p0, int p1, int n, const int *__restrict__ points, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ A, const int *__restrict__ tpos, const int *__restrict__ color, double shift, double zeropivot, double *einv, unsigned long long *first, unsigned long long *rmax)
{
  const int p = p0 + (int)((blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32), lane = threadIdx.x & 31;
  double    sum = 0;
  if (p < p1) { /* whole warps */
    const int pt = points[p];
    double    C[SFDILU_MAX_BS][SFDILU_MAX_BS], rs[SFDILU_MAX_BS], X[BS * BS];
    int       nonfinite;
    SFDILUBlockLane(pt, lane, BS, ai, aj, A, tpos, color, einv, C, rs);
    for (int d = 16; d > 0; d /= 2)
      for (int a = 0; a < BS; a++) {
        rs[a] = __dadd_rn(rs[a], __shfl_xor_sync(0xffffffffu, rs[a], d));
        for (int c = 0; c < BS; c++) C[a][c] = __dadd_rn(C[a][c], __shfl_xor_sync(0xffffffffu, C[a][c], d));
      }
    {
      const int f = SFDILUBlockFinish(pt, BS, ai, aj, A, C, rs, shift, zeropivot, X, &sum, &nonfinite);
      if (lane < BS * BS) einv[(size_t)pt * BS * BS + lane] = X[lane];
      if (f >= 0 && lane == 0) {
        const unsigned long long key = (unsigned long long)color[pt * BS + f] * (unsigned long long)n + (unsigned long long)(pt * BS + f);
        atomicMin(first, key);
        if (nonfinite) atomicMin(first + 1, key);
      }
    }
  }
  sfpc::AtomicMaxWarp(rmax, isnan(sum) ? 0ULL : (unsigned long long)__double_as_longlong(sum));
}

/* The sweeps' values of every point's rows, once E^{-1} is known (dilu_blocks.h). */
template <int BS>
__global__ void BlockRows(int np, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ A, const double *__restrict__ einv, double *lu)
{
  const int pt = blockIdx.x * blockDim.x + threadIdx.x;
  if (pt < np) SFDILUBlockRows(pt, BS, ai, aj, A, einv, lu);
}

/*
   y = omega E^{-1} w point by point (add: y += ...), y in natural order, w in natural order (iperm NULL) or in the
   sweeps' order; transposed (before the transposed sweeps): y = E^{-T} w with y in the sweeps' order, w natural.
*/
enum BlockMode { BLOCK_COPY, BLOCK_ADD, BLOCK_TRANSPOSE };
template <int BS>
__global__ void BlockMultiply(int np, const int *__restrict__ iperm, const double *__restrict__ einv, const double *w, double omega, BlockMode mode, double *y)
{
  const int pt = blockIdx.x * blockDim.x + threadIdx.x;
  double    wv[BS], yv[BS];
  if (pt >= np) return;
  for (int b = 0; b < BS; b++) wv[b] = w[iperm && mode != BLOCK_TRANSPOSE ? iperm[pt * BS + b] : pt * BS + b];
  SFDILUBlockMult(BS, einv + (size_t)pt * BS * BS, mode == BLOCK_TRANSPOSE, omega, wv, yv);
  for (int a = 0; a < BS; a++) {
    const int i = mode == BLOCK_TRANSPOSE && iperm ? iperm[pt * BS + a] : pt * BS + a;
    y[i]        = mode == BLOCK_ADD ? y[i] + yv[a] : yv[a];
  }
}

/* Points of bs rows: each one's blocks (cnt, where asked for) after the check that its rows hold the same whole aligned blocks, its own among them; the first row of a point that fails in *bad. */
__global__ void PointBlocks(int np, int bs, const int *__restrict__ ai, const int *__restrict__ aj, int *cnt, int *bad)
{
  const int pt = blockIdx.x * blockDim.x + threadIdx.x;
  if (pt >= np) return;
  const int r0 = pt * bs, len = ai[r0 + 1] - ai[r0];
  bool      ok = len % bs == 0, own = false;
  for (int a = 0; a < bs && ok; a++) {
    ok = ai[r0 + a + 1] - ai[r0 + a] == len;
    for (int k = 0; k < len && ok; k++) {
      const int c = aj[ai[r0 + a] + k];
      ok          = c == aj[ai[r0] + k] && c % bs == k % bs;
      own |= c == r0;
    }
  }
  if (cnt) cnt[pt] = ok ? len / bs : 0;
  if (!ok || !own) atomicMin(bad, r0);
}

/* The points' pattern: point pt's neighbours from its first row's blocks. */
__global__ void PointColumns(int np, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ pi, int *pj)
{
  const int pt = blockIdx.x * blockDim.x + threadIdx.x;
  if (pt >= np) return;
  for (int t = 0; t < pi[pt + 1] - pi[pt]; t++) pj[pi[pt] + t] = aj[ai[pt * bs] + t * bs] / bs;
}

/* Rows' colors, their points'; and the points in natural order, to be sorted by color. */
__global__ void PointRowColors(int n, int bs, const int *__restrict__ pcolor, int *color, int *idx)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  color[r] = pcolor[r / bs];
  if (r % bs == 0) idx[r / bs] = r / bs;
}

/* The engine factor's values by point-blocks: lu permuted to color order. */
__global__ void FactorFromLU(long long nnz, const int *__restrict__ src, const double *__restrict__ lu, double *a)
{
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k < nnz) a[k] = src[k] >= 0 ? lu[src[k]] : 0.0;
}

__global__ void Gather(int n, const int *__restrict__ order, const double *__restrict__ x, double *xp)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < n) xp[q] = x[sfpc::LoadOnce(order + q)];
}

/* Back to natural order: y = yp, y = omega yp, or y += omega yp. */
enum ScatterMode { COPY, SCALE, ADD };
__global__ void Scatter(int n, const int *__restrict__ order, const double *__restrict__ yp, double *y, double omega, ScatterMode mode)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int r = sfpc::LoadOnce(order + q);
  y[r]        = mode == COPY ? yp[q] : (mode == SCALE ? omega * yp[q] : y[r] + omega * yp[q]);
}

/* Back to natural order, scaled entry by entry: y = d yp (d in color order) */
__global__ void ScatterScaled(int n, const int *__restrict__ order, const double *__restrict__ yp, const double *__restrict__ d, double *y)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < n) y[sfpc::LoadOnce(order + q)] = d[q] * yp[q];
}

/* rp = P (b - A x), or with no iperm b - A x: vectors of s lanes per row, rows in natural order (A, b and x read as an SpMV reads them), scattered writes. */
__global__ void ResidualGather(int n, int s, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ A, const int *__restrict__ iperm, const double *__restrict__ b, const double *__restrict__ x, double *rp)
{
  const int v = (blockIdx.x * blockDim.x + threadIdx.x) / s, t = threadIdx.x & (s - 1);
  const int r = v < n ? v : n - 1; /* surplus vectors redo the last row, so whole warps shuffle */
  double    sum = 0;
  for (int k = ai[r] + t; k < ai[r + 1]; k += s) sum += sfpc::LoadOnce(A + k) * x[sfpc::LoadOnce(aj + k)];
  sum = sfpc::VectorSum(sum, s);
  if (v < n && t == 0) rp[iperm ? iperm[r] : r] = b[r] - sum;
}

/*
   One color of one sweep of the per-color variant, in place: forward u_q -= sum_{j<q} l_qj u_j,
   backward y_q = (1/E_q) (y_q - sum_{j>q} a_qj y_j), over positions [q0, q1). Given b (natural order),
   the forward sweep takes u_q's right-hand side from b[order[q]]: each color gathers its own rows.
*/
template <bool forward>
__global__ void ColorSweep(int q0, int q1, int s, const int *__restrict__ ti, const int *__restrict__ tj, const int *__restrict__ td, const double *__restrict__ a, const int *__restrict__ order, const double *b, double *u)
{
  const int v = q0 + (blockIdx.x * blockDim.x + threadIdx.x) / s, t = threadIdx.x & (s - 1);
  const int q = v < q1 ? v : q1 - 1;
  const int lo = forward ? ti[q] : td[q] + 1, hi = forward ? td[q] : ti[q + 1];
  double    sum = 0;
  for (int k = lo + t; k < hi; k += s) sum += a[k] * u[tj[k]];
  sum = sfpc::VectorSum(sum, s);
  if (v < q1 && t == 0) u[q] = forward ? (b ? b[order[q]] : u[q]) - sum : a[td[q]] * (u[q] - sum);
}
} // namespace

/* Lanes per row for row-parallel kernels: the average row length rounded up to a power of two, at most 32. */
static int RowLanes(PetscInt n, PetscInt nnz)
{
  int s = 1;
  while (s < 32 && s * n < nnz) s *= 2;
  return s;
}

/* JPL on the device (sfdilu.h) of the pattern (n, ai, aj): rounds until every row is colored, each round read back (how many it colored); also tpos. Colors 0 .. *ncolors - 1 = 2 rounds - 1, some possibly empty (SortRows() squeezes them). */
static PetscErrorCode ColorJPL_Device(PetscInt n, const int *ai, const int *aj, PetscInt seed, int *color, int *tpos, PetscInt *ncolors, cudaStream_t stream)
{
  int         *extra, *xi, *xfill, *xj, *dcolored, nx, left = (int)n, round = 0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&extra, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&xi, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&xfill, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(extra, 0, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(xfill, 0, sizeof(int) * (n + 1), stream));
  TransposePositions<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, tpos, extra);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, extra, xi, (int)n + 1, stream); }));
  PetscCallCUDA(cudaMemcpyAsync(&nx, xi + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaMallocAsync(&xj, sizeof(int) * PetscMax(nx, 1), stream));
  FillExtra<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, tpos, xi, xfill, xj);
  PetscCallCUDA(cudaGetLastError());

  PetscCallCUDA(cudaMemsetAsync(color, 0xff, sizeof(int) * n, stream)); /* -1: uncolored */
  PetscCallCUDA(cudaMallocAsync(&dcolored, sizeof(int), stream));
  for (; left > 0; round++) { /* the largest (hash, row) left wins every round: at least one row per round */
    int colored;
    PetscCallCUDA(cudaMemsetAsync(dcolored, 0, sizeof(int), stream));
    JPLRound<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, xi, xj, color, round, (unsigned)seed, dcolored);
    PetscCallCUDA(cudaGetLastError()); /* a failed round colors nothing: without the check the loop would not end */
    PetscCallCUDA(cudaMemcpyAsync(&colored, dcolored, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    left -= colored;
  }
  *ncolors = 2 * round;
  PetscCallCUDA(cudaFreeAsync(dcolored, stream));
  PetscCallCUDA(cudaFreeAsync(xj, stream));
  PetscCallCUDA(cudaFreeAsync(xfill, stream));
  PetscCallCUDA(cudaFreeAsync(xi, stream));
  PetscCallCUDA(cudaFreeAsync(extra, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The grid coloring (sfdilu.h), checked as it is written: a column's color comes from the same formula, so one pass
   over the entries both colors and checks. An entry coupling two rows of one color, its row's first, is kept in
   *bad as (row << 32 | column), the smallest over the rows.
*/
__global__ void GridColors(int n, SFDILUGrid g, const int *__restrict__ ai, const int *__restrict__ aj, int *color, unsigned long long *bad)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int cr = (int)SFDILUGridColor(&g, r);
  color[r]     = cr;
  for (int k = ai[r]; k < ai[r + 1]; k++)
    if (aj[k] != r && (int)SFDILUGridColor(&g, aj[k]) == cr) {
      atomicMin(bad, (unsigned long long)r << 32 | (unsigned)aj[k]);
      return;
    }
}

/*
   Colors on the host from a host copy of the device pattern (the host arrays of a GPU matrix may be stale): the rows by
   s->colored (bs 1), or the points of bs rows (SFDILUColorBlocks_Host()); dcolor (device) gets the color of every bs-th
   row, *ncolors their number.
*/
static PetscErrorCode ColorOnHost(SFDILU *s, PetscInt n, PetscInt nnz, const int *ai, const int *aj, PetscInt bs, int *dcolor, PetscInt *ncolors, cudaStream_t stream)
{
  PetscInt *hi, *hj, *hc;
  int      *hd;

  PetscFunctionBegin;
  PetscCall(PetscMalloc4(n + 1, &hi, PetscMax(nnz, 1), &hj, PetscMax(n, 1), &hc, PetscMax(n / bs, 1), &hd));
  PetscCallCUDA(cudaMemcpyAsync(hi, ai, sizeof(int) * (n + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(hj, aj, sizeof(int) * nnz, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if (bs > 1) PetscCall(SFDILUColorBlocks_Host(n, hi, hj, bs, s->colored, s->seed, hc, ncolors));
  else PetscCall(SFDILUColorRows_Host(n, hi, hj, s->colored, s->seed, hc, ncolors));
  for (PetscInt k = 0; k < n / bs; k++) hd[k] = (int)hc[k * bs];
  PetscCallCUDA(cudaMemcpyAsync(dcolor, hd, sizeof(int) * (n / bs), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the host arrays are pageable and freed next */
  PetscCall(PetscFree4(hi, hj, hc, hd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy on the host (ColorOnHost()); tpos on the device. */
static PetscErrorCode ColorGreedy_Device(SFDILU *s, PetscInt n, PetscInt nnz, const int *ai, const int *aj, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(ColorOnHost(s, n, nnz, ai, aj, 1, s->dev->color, &s->ncolors, stream));
  TransposePositions<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, s->dev->tpos, NULL);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first row of a point whose rows do not hold the same whole blocks, its own among them (PointBlocks), or INT_MAX; each point's blocks in cnt where given. */
static PetscErrorCode FirstBadPoint(int np, int bs, const int *ai, const int *aj, int *cnt, cudaStream_t stream, int *bad)
{
  int *dbad;

  PetscFunctionBegin;
  *bad = INT_MAX;
  PetscCallCUDA(cudaMallocAsync(&dbad, sizeof(int), stream));
  PetscCallCUDA(cudaMemcpyAsync(dbad, bad, sizeof(int), cudaMemcpyHostToDevice, stream));
  PointBlocks<<<sfpc::LaunchBlocks(np, TPB), TPB, 0, stream>>>(np, bs, ai, aj, cnt, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(bad, dbad, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(dbad, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same as an error (-pc_sfdilu_blocks true), naming the point. */
static PetscErrorCode CheckPointBlocks(int np, int bs, const int *ai, const int *aj, int *cnt, cudaStream_t stream)
{
  int bad;

  PetscFunctionBegin;
  PetscCall(FirstBadPoint(np, bs, ai, aj, cnt, stream, &bad));
  PetscCheck(bad == INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-pc_sfdilu_blocks needs dense point-blocks of %d rows: the rows from %d do not hold the same whole blocks of %d columns (their own among them)", bs, bad, bs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* auto's check of the pattern of the GPU matrix A (SFDILUBlocksDecide()): whether its rows (a multiple of bs) hold whole point-blocks. */
PetscErrorCode SFDILUBlocksFit_Device(Mat A, PetscInt bs, PetscBool *fit)
{
  const PetscInt *ai, *aj;
  PetscInt        n;
  int             bad;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU PCSFDILU needs 32-bit PetscInt");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(FirstBadPoint((int)(n / bs), (int)bs, ai, aj, NULL, stream, &bad));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  *fit = (PetscBool)(bad == INT_MAX);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The points' grid colors (a DMDA's grid of bs fields, the rows' colors checked proper by ColorGrid_Device()): each point's residue, squeezed; on the host, once per pattern. */
static PetscErrorCode GridPointColors(SFDILU *s, int np, int *pcolor, PetscInt *nc, cudaStream_t stream)
{
  PetscInt *hc;
  int      *hd;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(PetscMax(np, 1), &hc, PetscMax(np, 1), &hd));
  for (int pt = 0; pt < np; pt++) hc[pt] = SFDILUGridColor(&s->grid, (PetscInt)pt * s->bs) / s->bs;
  PetscCall(SFDILUSqueezeColors(np, SFDILUGridColors(&s->grid) / s->bs, hc, nc));
  for (int pt = 0; pt < np; pt++) hd[pt] = (int)hc[pt];
  PetscCallCUDA(cudaMemcpyAsync(pcolor, hd, sizeof(int) * np, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the host arrays are pageable and freed next */
  PetscCall(PetscFree2(hc, hd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   By point-blocks: the pattern checked, the points' pattern built and colored by JPL on the device (greedy: on the host,
   SFDILUColorBlocks_Host(), from a copy of the device pattern; grid: a DMDA's residues, GridPointColors()); a row's color
   its point's; the points sorted by color for the set-up; tpos on the device.
*/
static PetscErrorCode ColorBlocks_Device(SFDILU *s, PetscInt n, PetscInt nnz, const int *ai, const int *aj, cudaStream_t stream)
{
  SFDILUDevice D  = s->dev;
  const int    bs = (int)s->bs, np = (int)(n / s->bs);
  int         *cnt, *pi, *pj, *ptpos, *pcolor, *idx, *skey, *hcount, npnz;
  PetscInt     nc;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&pcolor, sizeof(int) * PetscMax(np, 1), stream));
  if (s->colored == PCSFDILU_COLORING_JPL) {
    PetscCallCUDA(cudaMallocAsync(&cnt, sizeof(int) * (np + 1), stream));
    PetscCallCUDA(cudaMallocAsync(&pi, sizeof(int) * (np + 1), stream));
    PetscCallCUDA(cudaMemsetAsync(cnt + np, 0, sizeof(int), stream));
    PetscCall(CheckPointBlocks(np, bs, ai, aj, cnt, stream));
    PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, cnt, pi, np + 1, stream); }));
    PetscCallCUDA(cudaMemcpyAsync(&npnz, pi + np, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCallCUDA(cudaMallocAsync(&pj, sizeof(int) * PetscMax(npnz, 1), stream));
    PetscCallCUDA(cudaMallocAsync(&ptpos, sizeof(int) * PetscMax(npnz, 1), stream));
    PointColumns<<<sfpc::LaunchBlocks(np, TPB), TPB, 0, stream>>>(np, bs, ai, aj, pi, pj);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(ColorJPL_Device(np, pi, pj, s->seed, pcolor, ptpos, &nc, stream));
    PetscCallCUDA(cudaFreeAsync(ptpos, stream));
    PetscCallCUDA(cudaFreeAsync(pj, stream));
    PetscCallCUDA(cudaFreeAsync(pi, stream));
    PetscCallCUDA(cudaFreeAsync(cnt, stream));
  } else if (s->colored == PCSFDILU_COLORING_GRID) {
    PetscCall(CheckPointBlocks(np, bs, ai, aj, NULL, stream));
    PetscCall(GridPointColors(s, np, pcolor, &nc, stream));
  } else PetscCall(ColorOnHost(s, n, nnz, ai, aj, s->bs, pcolor, &nc, stream));
  s->ncolors = nc;
  /* the rows' colors, and the points sorted by (color, point) with each color's start */
  PetscCallCUDA(cudaMallocAsync(&idx, sizeof(int) * PetscMax(np, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&skey, sizeof(int) * PetscMax(np, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->points, sizeof(int) * PetscMax(np, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&cnt, sizeof(int) * PetscMax(nc, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(cnt, 0, sizeof(int) * PetscMax(nc, 1), stream));
  PointRowColors<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, bs, pcolor, D->color, idx);
  CountColors<<<sfpc::LaunchBlocks(np, TPB), TPB, 0, stream>>>(np, pcolor, cnt);
  PetscCallCUDA(cudaGetLastError());
  {
    int bits = 1;
    while ((1 << bits) < nc) bits++;
    PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, pcolor, skey, idx, D->points, np, 0, bits, stream); }));
  }
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &hcount));
  PetscCallCUDA(cudaMemcpyAsync(hcount, cnt, sizeof(int) * nc, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscMalloc1(nc + 1, &D->pcstart));
  D->pcstart[0] = 0;
  for (PetscInt c = 0; c < nc; c++) D->pcstart[c + 1] = D->pcstart[c] + hcount[c];
  D->npc = nc;
  PetscCall(PetscFree(hcount));
  PetscCallCUDA(cudaFreeAsync(cnt, stream));
  PetscCallCUDA(cudaFreeAsync(skey, stream));
  PetscCallCUDA(cudaFreeAsync(idx, stream));
  PetscCallCUDA(cudaFreeAsync(pcolor, stream));
  PetscCallCUDA(cudaMallocAsync(&D->lu, sizeof(PetscScalar) * PetscMax(nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->eblk, sizeof(PetscScalar) * PetscMax(n * bs, 1), stream));
  TransposePositions<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, D->tpos, NULL);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid coloring on the device (s->grid, or one read from the pattern: SFDILU_GRID_GUESS), checked against every entry; also tpos. ok: whether it colors A properly. */
static PetscErrorCode ColorGrid_Device(SFDILU *s, PetscInt n, const int *ai, const int *aj, cudaStream_t stream, PetscBool *ok)
{
  unsigned long long *dbad, bad = ~0ULL;
  PetscInt            dims[3] = {0, 0, 0};

  PetscFunctionBegin;
  if (!s->grid.dim) PetscCall(SFPCGridGuess_Device(n, ai, aj, 1, SFDILU_GRID_GUESS, dims));
  PetscCall(SFDILUGridFromDims(s, dims, ok));
  if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  s->ncolors = SFDILUGridColors(&s->grid);
  PetscCallCUDA(cudaMallocAsync(&dbad, sizeof(bad), stream));
  PetscCallCUDA(cudaMemcpyAsync(dbad, &bad, sizeof(bad), cudaMemcpyHostToDevice, stream));
  GridColors<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, s->grid, ai, aj, s->dev->color, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&bad, dbad, sizeof(bad), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dbad, stream));
  if (bad != ~0ULL) {
    const PetscInt r = (PetscInt)(bad >> 32);
    PetscCall(SFDILUGridConflict(s, r, (PetscInt)(bad & 0xffffffffULL), SFDILUGridColor(&s->grid, r)));
    *ok = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  TransposePositions<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, s->dev->tpos, NULL);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest |column - row| of A's entries. */
static PetscErrorCode Bandwidth(PetscInt n, const int *ai, const int *aj, cudaStream_t stream, int *bw)
{
  int *dbw;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&dbw, sizeof(int), stream));
  PetscCallCUDA(cudaMemsetAsync(dbw, 0, sizeof(int), stream));
  BandwidthKernel<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, dbw);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(bw, dbw, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dbw, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Squeezes the colors to those used, sorts the rows by (color, row) or in the local order (above; its keys
   read A's pattern ai, aj), and builds cstart (host: the rows of each color, positions of the color order)
   and order/iperm (device).
*/
static PetscErrorCode SortRows(SFDILU *s, PetscInt n, const int *ai, const int *aj, cudaStream_t stream)
{
  SFDILUDevice D = s->dev;
  int         *count, *map, *hcount, *rows, *skeys, nc = (int)s->ncolors, bits = 1;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&count, sizeof(int) * PetscMax(nc, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(count, 0, sizeof(int) * PetscMax(nc, 1), stream));
  CountColors<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, D->color, count);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &hcount));
  PetscCallCUDA(cudaMemcpyAsync(hcount, count, sizeof(int) * nc, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscMalloc1(nc + 1, &D->cstart));
  D->cstart[0] = 0;
  s->ncolors   = 0;
  for (int c = 0; c < nc; c++) { /* hcount becomes the map old color -> new color */
    const int rowsc = hcount[c];
    hcount[c]       = rowsc ? (int)s->ncolors : -1;
    if (rowsc) {
      D->cstart[s->ncolors + 1] = D->cstart[s->ncolors] + rowsc;
      s->ncolors++;
    }
  }
  map = count; /* reuse: same size */
  PetscCallCUDA(cudaMemcpyAsync(map, hcount, sizeof(int) * nc, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMallocAsync(&rows, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&skeys, sizeof(int) * PetscMax(n, 1), stream));
  RenumberColors<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, map, D->color, rows);
  PetscCallCUDA(cudaGetLastError());
  while ((1 << bits) < s->ncolors) bits++;
  {
    int dev, l2;
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    s->beyondl2 = SFDILUBeyondL2(n, (PetscLogDouble)l2);
    s->ordered  = SFDILUOrderUsed(s);
  }
  /* radix sorts are stable: rows of one key stay in natural order */
  if (s->ordered == PCSFDILU_ORDER_LOCAL) {
    unsigned long long *key, *skey;
    int                 bw;
    PetscCall(Bandwidth(n, ai, aj, stream, &bw));
    PetscCallCUDA(cudaMallocAsync(&key, sizeof(unsigned long long) * PetscMax(n, 1), stream));
    PetscCallCUDA(cudaMallocAsync(&skey, sizeof(unsigned long long) * PetscMax(n, 1), stream));
    { /* the largest key has (n - 1 + (colors - 1) skew) / window * colors + colors - 1: only its bits are sorted (2-3 radix passes, not 8) */
      const long long          skew = SFDILU_LOCAL_SKEW * (long long)bw + 1;
      const unsigned long long kmax = (unsigned long long)((n - 1 + (s->ncolors - 1) * skew) / s->localwindow) * (unsigned long long)s->ncolors + (unsigned long long)(s->ncolors - 1);
      int                      kbits = 1;
      while (kbits < 64 && (kmax >> kbits)) kbits++;
      LocalKeys<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, D->color, skew, (long long)s->localwindow, (int)s->ncolors, key);
      PetscCallCUDA(cudaGetLastError());
      PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, key, skey, rows, D->order, (int)n, 0, kbits, stream); }));
    }
    PetscCallCUDA(cudaFreeAsync(skey, stream));
    PetscCallCUDA(cudaFreeAsync(key, stream));
    D->bandwidth = bw;
  } else PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, D->color, skeys, rows, D->order, (int)n, 0, bits, stream); }));
  InvertOrder<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, D->order, D->iperm);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* hcount is read by the copy above */
  PetscCall(PetscFree(hcount));
  PetscCallCUDA(cudaFreeAsync(skeys, stream));
  PetscCallCUDA(cudaFreeAsync(rows, stream));
  PetscCallCUDA(cudaFreeAsync(count, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P A P^T's pattern (columns sorted in each row) and the engine factor on it, dispatched window by window in the local order. */
static PetscErrorCode PermutedFactor(SFDILU *s, PetscInt n, const int *ai, const int *aj, cudaStream_t stream)
{
  SFDILUDevice   D   = s->dev;
  SFPCTriOptions opt = s->engine;
  int         *len, *pi, *pj, *sj, *psrc, npnz;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&len, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&pi, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMemsetAsync(len + n, 0, sizeof(int), stream));
  PermutedLengths<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, (int)s->bs, ai, aj, D->order, len);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, len, pi, (int)n + 1, stream); }));
  PetscCallCUDA(cudaMemcpyAsync(&npnz, pi + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaMallocAsync(&pj, sizeof(int) * PetscMax(npnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&sj, sizeof(int) * PetscMax(npnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&psrc, sizeof(int) * PetscMax(npnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->src, sizeof(int) * PetscMax(npnz, 1), stream));
  PermutedEntries<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, (int)s->bs, ai, aj, D->order, D->iperm, pi, pj, psrc);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceSegmentedSort::SortPairs(tmp, bytes, pj, sj, psrc, D->src, npnz, (int)n, pi, pi + 1, stream); }));
  opt.window_major = s->ordered == PCSFDILU_ORDER_LOCAL ? PetscMax(s->localwindow / 2, 1) : 0;
  PetscCall(SFPCTriDeviceCreate(n, npnz, pi, sj, PETSC_TRUE, &opt, &D->T));
  PetscCallCUDA(cudaFreeAsync(psrc, stream));
  PetscCallCUDA(cudaFreeAsync(sj, stream));
  PetscCallCUDA(cudaFreeAsync(pj, stream));
  PetscCallCUDA(cudaFreeAsync(pi, stream));
  PetscCallCUDA(cudaFreeAsync(len, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether auto takes the solves by parts: where they fit, a part holds at least SFDILU_PARTS_AUTO_MIN rows and at least
   SFDILU_PARTS_AUTO_ENTRIES entries of A. A solve by parts pays a fixed cost (one launch, the gather and the scatter, a
   few slices a step) against the sync-free sweeps' L2 hop a level; the entries of a part, not its rows, say how much
   work of the sweeps runs inside the block. H200, the parts with lanes a row by the slices of a step, apply by parts
   against the sync-free sweeps in the same call (bench/README.md, sfdilu, "Lanes a row by the slices of a step,
   landed"): from 9900 entries a part 0.97-2.6x (7-point 64^3 1.41x, its permuted rows 1.18x, 27-point 40^3 0.97-1.00x,
   48^3-64^3 1.09-1.39x, 2-D grids of 1-4 fields 1.10-1.65x, 3-D grids of 4 fields 1.03-1.45x, Q1 elasticity 1.34-1.66x,
   355 rows a part at least, the 2*10^6-row grids 1.87-2.56x); below 6100 entries 0.76-1.00x on 1-field grids (7-point
   32^3-48^3 0.88-1.00x, permuted 0.82x, 2-D 256^2 and 300^2 0.76-0.80x), 0.98x on 27-point 32^3, 1.15x on a 2-field 2-D
   grid. The rows bound keeps GAMG's small coarse levels (tens of rows a part) on the sync-free sweeps.
*/
#define SFDILU_PARTS_AUTO_MIN     256
#define SFDILU_PARTS_AUTO_ENTRIES 8192
static PetscBool PartsPay(const SFDILU *s)
{
  const SFDILUParts *L = &s->dev->parts;
  return (PetscBool)(L->fits && L->maxrows >= SFDILU_PARTS_AUTO_MIN && (double)L->maxrows * s->dev->nnz >= (double)SFDILU_PARTS_AUTO_ENTRIES * s->n);
}

/*
   The parts of the solves by parts: the boxes of the grid (SFPCPartsBoxes()) where one is known (the PC's DMDA, or a
   7- or 27-point pattern of points in natural order read off a few rows, a point the bs rows of A's block size:
   SFPCGridGuess(); a wrong guess costs speed, never the result) and the colors are at least SFDILU_PARTS_BOX_COLORS,
   else the engine's equal ranges of consecutive rows (SFPCPartsSize()). Boxes cut the hand-overs between parts, one L2
   hop on the chain of each color; ranges gather and scatter contiguous runs. H200, apply by parts (bench/README.md,
   "Parts as boxes of the grid" and "Q1 elasticity's nodes as boxes"): in one call, 4 x 4 x 8 boxes against 128
   z-planes, 1.17x (7-point 128^3, JPL's 20 colors) and 1.32x (27-point, 59 colors); Q1 elasticity's nodes (block size
   3, about 150 colors) as boxes against ranges, 1.15x (2*10^5 rows) and 1.27x (8*10^5); across calls, the earlier
   kernel's ranges 1.10x faster than the boxes with the greedy coloring's 2 colors; with the grid coloring's 8 colors,
   boxes 1.12x faster than ranges (7-point 128^3, one call). The threshold lies between 2 and 8 colors. A 2-D grid (a
   pattern of a 5- or 9-point stencil) gives boxes of its plane: the driven cavity's 1.17x faster than its ranges.
*/
#ifndef SFDILU_PARTS_BOX_COLORS
  #define SFDILU_PARTS_BOX_COLORS 8
#endif
static PetscErrorCode PartsLayout(SFDILU *s, PetscInt bs, const int *ai, const int *aj)
{
  SFDILUParts *L       = &s->dev->parts;
  PetscInt     dims[3] = {0, 0, 0}, dof = 1;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(L, sizeof(*L)));
  if (s->ncolors >= SFDILU_PARTS_BOX_COLORS) {
    if (s->grid.dim > 0) {
      for (int d = 0; d < 3; d++) dims[d] = s->grid.size[d];
      dof = s->grid.dof;
    } else {
      PetscCall(SFPCGridGuess_Device(s->n, ai, aj, bs, SFPC_GRID_GUESS_BOX | SFPC_GRID_GUESS_PLANE, dims));
      dof = bs;
    }
  }
  if (dims[0] > 0) PetscCall(SFPCPartsBoxes(s->dev->T, s->n, dims, dof, s->ncolors, &L->grid, &L->maxrows));
  if (L->grid.b[0]) {
    L->np   = L->grid.b[0] * L->grid.b[1] * L->grid.b[2];
    L->fits = PETSC_TRUE;
  } else PetscCall(SFPCPartsSize(s->dev->T, s->n, s->ncolors, &L->np, &L->maxrows, &L->fits));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The engine's parts for -pc_sfdilu_sweep parts, as PartsLayout() laid them out: the factor's rows in natural order (the engine numbers a grid's boxes), their step their color. */
static PetscErrorCode BuildParts(SFDILU *s, cudaStream_t stream)
{
  SFDILUDevice D = s->dev;
  SFDILUParts *L = &D->parts;
  int         *step;
  PetscBool    fits;

  PetscFunctionBegin;
  PetscCheck(L->fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_sfdilu_sweep parts (PCSFDILU_SWEEP_PARTS): %" PetscInt_FMT " rows make parts of %d rows on this GPU's %d SMs, whose unknowns exceed a block's shared memory; use the sync-free sweeps", s->n, L->maxrows, L->np);
  PetscCallCUDA(cudaMallocAsync(&step, sizeof(int) * s->n, stream));
  ColorSteps<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, D->color, step);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SFPCTriDeviceSetParts(D->T, D->order, step, s->ncolors, &L->grid, &fits));
  PetscCallCUDA(cudaFreeAsync(step, stream));
  PetscCheck(fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_sfdilu_sweep parts (PCSFDILU_SWEEP_PARTS): the slots of %" PetscInt_FMT " rows overflow 32-bit offsets; use the sync-free sweeps", s->n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The auto coloring of a GPU matrix where no grid's colors it (SFDILUTriesGrid()): JPL on the device, except on small levels (GAMG's coarse ones:
   a few thousand nearly dense rows), where a sweep's time is its number of colors (one L2 hop per
   dependency level) and the host's greedy coloring of a copy of the pattern, cheap at that size,
   needs several times fewer (bench/README.md: 54 against 228 colors on a level of 7044 rows).
*/
static PCSFDILUColoringType AutoColoring(PetscInt n)
{
  return n <= SFDILU_AUTO_SMALL_ROWS ? PCSFDILU_COLORING_GREEDY : PCSFDILU_COLORING_JPL;
}

/* Colors A (on the device, or greedy on the host), orders its rows by color and analyses the permuted pattern. */
PetscErrorCode SFDILUColor_Device(SFDILU *s, Mat A)
{
  const PetscInt *ai, *aj;
  PetscInt        n;
  cudaStream_t    stream;
  SFDILUDevice    D;
  PetscBool       grid = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU PCSFDILU needs 32-bit PetscInt");
  PetscCall(PetscLogEventBegin(SFPC_DILUColor, A, 0, 0, 0));
  PetscCall(SFDILUReset_Device(s));
  PetscCall(PetscNew(&s->dev));
  D = s->dev;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  s->n = n;
  PetscCallCUDA(cudaMemcpyAsync(&D->nnz, ai + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  D->lanes      = RowLanes(n, D->nnz);
  D->rlanes     = PetscMax(D->lanes / 2, 1);
  D->sweeplanes = RowLanes(n, (D->nnz + n) / 2);
  PetscCallCUDA(cudaMallocAsync(&D->color, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->order, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->iperm, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->tpos, sizeof(int) * PetscMax(D->nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->einv, sizeof(PetscScalar) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->rp, sizeof(PetscScalar) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->yp, sizeof(PetscScalar) * PetscMax(n, 1), stream));
  if (SFDILUTriesGrid(s, n)) PetscCall(ColorGrid_Device(s, n, ai, aj, stream, &grid));
  s->colored = grid ? PCSFDILU_COLORING_GRID : (s->coloring == PCSFDILU_COLORING_AUTO ? AutoColoring(n) : s->coloring);
  if (s->bs > 1) PetscCall(ColorBlocks_Device(s, n, D->nnz, ai, aj, stream));
  else if (s->colored == PCSFDILU_COLORING_JPL) PetscCall(ColorJPL_Device(n, ai, aj, s->seed, D->color, D->tpos, &s->ncolors, stream));
  else if (!grid) PetscCall(ColorGreedy_Device(s, n, D->nnz, ai, aj, stream));
  PetscCall(SortRows(s, n, ai, aj, stream));
  LowerPositions<<<sfpc::LaunchBlocks(n, TPB), TPB, 0, stream>>>((int)n, ai, aj, D->color, D->tpos);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PermutedFactor(s, n, ai, aj, stream));
  s->byparts = PETSC_FALSE;
  if (n && (s->sweep == PCSFDILU_SWEEP_AUTO || s->sweep == PCSFDILU_SWEEP_PARTS)) {
    PetscInt bs;
    PetscCall(MatGetBlockSize(A, &bs));
    PetscCall(PartsLayout(s, bs, ai, aj));
  }
  if (n && s->sweep == PCSFDILU_SWEEP_AUTO) s->byparts = PartsPay(s);
  if (n && SFDILUSweepUsed(s) == PCSFDILU_SWEEP_PARTS) PetscCall(BuildParts(s, stream));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(PetscLogEventEnd(SFPC_DILUColor, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* LAUNCH(k) for the block size bs, k a compile-time constant (the kernels keep a point's blocks in registers) */
#define SFDILU_BS_DISPATCH(bs, LAUNCH) \
  do { \
    switch (bs) { \
    case 2: LAUNCH(2); break; \
    case 3: LAUNCH(3); break; \
    case 4: LAUNCH(4); break; \
    case 5: LAUNCH(5); break; \
    case 6: LAUNCH(6); break; \
    case 7: LAUNCH(7); break; \
    case 8: LAUNCH(8); break; \
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Point-blocks of %" PetscInt_FMT " rows", (PetscInt)(bs)); \
    } \
    PetscCallCUDA(cudaGetLastError()); \
  } while (0)

/* BlockMultiply() over the points (see it) */
static PetscErrorCode BlocksMultiply(SFDILU *s, const int *iperm, const PetscScalar *w, PetscReal omega, BlockMode mode, PetscScalar *y, cudaStream_t stream)
{
  const int np = (int)(s->n / s->bs), nb = sfpc::LaunchBlocks(np, 128);

  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
#define SFDILU_LAUNCH(k) BlockMultiply<k><<<nb, 128, 0, stream>>>(np, iperm, s->dev->eblk, w, (double)omega, mode, y)
  SFDILU_BS_DISPATCH(s->bs, SFDILU_LAUNCH);
#undef SFDILU_LAUNCH
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * s->bs * s->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   By point-blocks: E^{-1} color by color (a launch a color, a thread a point: each point reads E^{-1} of lower-colored
   points only), then the sweeps' values of every row at once, permuted into the engine factor; failure and rmax as the
   host finds them.
*/
static PetscErrorCode SetUpBlocks_Device(SFDILU *s, const int *ai, const int *aj, const PetscScalar *aa, PetscReal shift, PetscReal *rmax, cudaStream_t stream)
{
  SFDILUDevice       D = s->dev;
  SFPCTriDevice      T = D->T;
  unsigned long long first[2] = {~0ULL, ~0ULL}, bits = 0, *dfirst, *dbits;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&dfirst, sizeof(first), stream));
  PetscCallCUDA(cudaMallocAsync(&dbits, sizeof(bits), stream));
  PetscCallCUDA(cudaMemcpyAsync(dfirst, first, sizeof(first), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemsetAsync(dbits, 0, sizeof(bits), stream));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt c = 0; c < D->npc; c++) {
    const PetscInt p0 = D->pcstart[c], p1 = D->pcstart[c + 1];
    const int      nb = sfpc::LaunchBlocks((p1 - p0) * 32LL, 128);
    if (p1 == p0) continue;
#define SFDILU_LAUNCH(k) BlockInverses<k><<<nb, 128, 0, stream>>>((int)p0, (int)p1, (int)s->n, D->points, ai, aj, aa, D->tpos, D->color, (double)shift, (double)s->zeropivot, D->eblk, dfirst, dbits)
    SFDILU_BS_DISPATCH(s->bs, SFDILU_LAUNCH);
#undef SFDILU_LAUNCH
  }
  {
    const int np = (int)(s->n / s->bs), nb = sfpc::LaunchBlocks(np, 128);
#define SFDILU_LAUNCH(k) BlockRows<k><<<nb, 128, 0, stream>>>(np, ai, aj, aa, D->eblk, D->lu)
    SFDILU_BS_DISPATCH(s->bs, SFDILU_LAUNCH);
#undef SFDILU_LAUNCH
  }
  PetscCallCUDA(cudaGetLastError());
  FactorFromLU<<<sfpc::LaunchBlocks(T->nnz, TPB), TPB, 0, stream>>>((long long)T->nnz, D->src, D->lu, T->a);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(4.0 * s->bs * D->nnz));
  PetscCallCUDA(cudaMemcpyAsync(first, dfirst, sizeof(first), cudaMemcpyDeviceToHost, stream)); /* the set-up's one wait: PETSc needs the outcome */
  PetscCallCUDA(cudaMemcpyAsync(&bits, dbits, sizeof(bits), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dfirst, stream));
  PetscCallCUDA(cudaFreeAsync(dbits, stream));
  memcpy(rmax, &bits, sizeof(double));
  if (first[0] != ~0ULL) {
    s->failure = first[1] == first[0] ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT;
    s->failrow = (PetscInt)(first[0] % (unsigned long long)s->n);
  }
  PetscCall(SFPCTriDeviceValuesChanged(T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E of A + shift I and the engine factor's values; s->failure/failrow as on the host, rmax the largest row sum of |A|. */
PetscErrorCode SFDILUSetUp_Device(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  SFDILUDevice        D = s->dev;
  SFPCTriDevice       T = D->T;
  const PetscInt     *ai, *aj;
  const PetscScalar  *aa;
  cudaStream_t        stream;
  int                 blocks, found[2] = {(int)s->n, (int)s->n}, *dfound;
  unsigned long long  base, bits = 0, *dbits;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUSetUp, A, 0, 0, 0));
  s->failure = PC_NOERROR;
  s->failrow = -1;
  *rmax      = 0;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SFPCTriDeviceSetWarpsPerSM(T, s->engine.warps_per_sm));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &aa));
  if (s->n && s->bs > 1) PetscCall(SetUpBlocks_Device(s, ai, aj, aa, shift, rmax, stream));
  else if (s->n) {
    PetscCallCUDA(cudaMallocAsync(&dfound, sizeof(found), stream));
    PetscCallCUDA(cudaMallocAsync(&dbits, sizeof(bits), stream));
    PetscCallCUDA(cudaMemcpyAsync(dfound, found, sizeof(found), cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaMemsetAsync(dbits, 0, sizeof(bits), stream));
    PetscCall(SFPCTriDeviceTakeTickets(T, T->lower.ntasks, T->lower.factor_resident, &blocks, &base));
    PetscCall(PetscLogGpuTimeBegin());
    PetscCall(SFPCFillSentinel(s->n, D->einv)); /* each 1/E_i is its own flag */
    DiagonalKernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(ai, aj, aa, D->tpos, D->order, D->iperm, T->lower, T->counter, base, (double)shift, (double)s->zeropivot, D->einv, dfound, dbits);
    PetscCallCUDA(cudaGetLastError());
    FactorValues<<<sfpc::LaunchBlocks(s->n * (long long)D->lanes, TPB), TPB, 0, stream>>>((int)s->n, D->lanes, T->i, T->j, D->src, aa, D->einv, T->a);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(4.0 * D->nnz));
    PetscCallCUDA(cudaMemcpyAsync(found, dfound, sizeof(found), cudaMemcpyDeviceToHost, stream)); /* the set-up's one wait: PETSc needs the outcome */
    PetscCallCUDA(cudaMemcpyAsync(&bits, dbits, sizeof(bits), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCallCUDA(cudaFreeAsync(dfound, stream));
    PetscCallCUDA(cudaFreeAsync(dbits, stream));
    memcpy(rmax, &bits, sizeof(double));
    if (found[0] < s->n) {
      int row;
      PetscCallCUDA(cudaMemcpyAsync(&row, D->order + found[0], sizeof(int), cudaMemcpyDeviceToHost, stream));
      PetscCallCUDA(cudaStreamSynchronize(stream));
      s->failure = found[1] == found[0] ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT;
      s->failrow = row;
    }
    PetscCall(SFPCTriDeviceValuesChanged(T));
  }
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &aa));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(PetscLogEventEnd(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Rows up to which the sweeps gather their right-hand side themselves: against a gather kernel, sync-free applies
   1.04-1.14x faster from 3*10^4 to 9*10^5 rows and 1-2% slower at 2*10^6 (H200, bench/README.md, sfdilu, "The gather
   done by the sweeps").
*/
#define SFDILU_SWEEP_GATHER_MAX_ROWS (1 << 20)
/*
   Rows up to which the sync-free U sweep stores the result back in natural order itself (SFPCTriDeviceCanScatter()),
   where a scatter kernel runs above: against that kernel, applies 1.01-1.07x faster at 3*10^4-2.6*10^5 rows and 0.98x at
   8.8*10^5 (7-point 96^3; H200, bench/README.md, sfdilu, "The scatter done by the U sweep").
*/
#ifndef SFDILU_SWEEP_SCATTER_MAX_ROWS
  #define SFDILU_SWEEP_SCATTER_MAX_ROWS (1 << 19)
#endif

/*
   M^{-1} r (transposed: M^{-T} r) in color order, into yp (sync-free) or rp (per color, in place), with r = b in natural
   order, gathered by the sweeps themselves where they can (the engine's csr and hyb sweeps, each forward color of the
   per-color variant; up to SFDILU_SWEEP_GATHER_MAX_ROWS), or (b NULL) already in color order in rp; returns where the
   result is, or NULL where the sync-free sweeps that gathered b also stored y = omega M^{-1} r in natural order (up to
   SFDILU_SWEEP_SCATTER_MAX_ROWS). M^{-T} is the engine's transposed LU solve of the same factor, (E + U_c^T) then
   (I + E^{-1} L_c^T), sync-free whichever sweeps M^{-1} uses.
*/
static PetscErrorCode Sweeps(SFDILU *s, PetscBool transpose, const PetscScalar *b, cudaStream_t stream, PetscScalar **yp, PetscReal omega, PetscScalar *y)
{
  SFDILUDevice    D        = s->dev;
  SFPCTriDevice   T        = D->T, E = T; /* E: the engine factor whose LU solve is the sync-free sweeps' (transposed: T's transposed factor) */
  const PetscBool syncfree = (PetscBool)(transpose || SFDILUSweepUsed(s) == PCSFDILU_SWEEP_SYNCFREE);
  PetscBool       gather;

  PetscFunctionBegin;
  if (transpose) PetscCall(SFPCTriDeviceGetTranspose(T, &E));
  gather = (PetscBool)(b && s->n <= SFDILU_SWEEP_GATHER_MAX_ROWS && (!syncfree || SFPCTriDeviceCanGather(E)));
  if (b && !gather) {
    PetscCall(PetscLogGpuTimeBegin());
    Gather<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, b, D->rp);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
    b = NULL;
  }
  if (syncfree) {
    if (b && y && s->n <= SFDILU_SWEEP_SCATTER_MAX_ROWS && SFPCTriDeviceCanScatter(E)) { /* the scatter too */
      PetscCall(SFPCTriDeviceSolveGathered(E, D->order, b, D->yp, D->order, omega, y));
      *yp = NULL;
    } else {
      if (b) PetscCall(SFPCTriDeviceSolveGathered(E, D->order, b, D->yp, NULL, 1.0, NULL));
      else PetscCall(SFPCTriDeviceSolve(E, D->rp, D->yp));
      *yp = D->yp;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(s->ordered == PCSFDILU_ORDER_COLOR, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Per-color sweeps asked for after a set-up in the local row order: the rows are ordered at set-up (set the options before it, or PCReset())");
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt c = 0; c < s->ncolors; c++) {
    const PetscInt q0 = D->cstart[c], q1 = D->cstart[c + 1];
    ColorSweep<true><<<sfpc::LaunchBlocks((q1 - q0) * (long long)D->sweeplanes, TPB), TPB, 0, stream>>>((int)q0, (int)q1, D->sweeplanes, T->i, T->j, T->diag, T->a, D->order, b, D->rp);
  }
  for (PetscInt c = s->ncolors - 1; c >= 0; c--) {
    const PetscInt q0 = D->cstart[c], q1 = D->cstart[c + 1];
    ColorSweep<false><<<sfpc::LaunchBlocks((q1 - q0) * (long long)D->sweeplanes, TPB), TPB, 0, stream>>>((int)q0, (int)q1, D->sweeplanes, T->i, T->j, T->diag, T->a, D->order, NULL, D->rp);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->nnz));
  *yp = D->rp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   y = omega M^{-1} x (transposed: omega M^{-T} x), device arrays. By point-blocks (dilu_blocks.h) the sweeps are unit and
   E^{-1} multiplies their result point by point (transposed: E^{-T} the right-hand side, gathered into the sweeps' order).
*/
PetscErrorCode SFDILUApply_Device(SFDILU *s, PetscBool transpose, PetscReal omega, const PetscScalar *x, PetscScalar *y)
{
  SFDILUDevice    D      = s->dev;
  const PetscBool blocks = (PetscBool)(s->bs > 1);
  cudaStream_t    stream;
  PetscScalar    *yp;

  PetscFunctionBegin;
  if (!s->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!transpose && SFDILUSweepUsed(s) == PCSFDILU_SWEEP_PARTS) { /* gather, sweeps and weighted scatter in one kernel */
    PetscCall(SFPCTriDeviceSolveParts(D->T, x, blocks ? 1.0 : omega, PETSC_FALSE, blocks ? D->rp : y));
    if (blocks) PetscCall(BlocksMultiply(s, NULL, D->rp, omega, BLOCK_COPY, y, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (blocks && transpose) {
    PetscCall(BlocksMultiply(s, D->iperm, x, 1.0, BLOCK_TRANSPOSE, D->rp, stream));
    x = NULL;
  }
  PetscCall(Sweeps(s, transpose, x, stream, &yp, omega, blocks ? NULL : y));
  if (blocks && !transpose) {
    PetscCall(BlocksMultiply(s, D->iperm, yp, omega, BLOCK_COPY, y, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!yp) PetscFunctionReturn(PETSC_SUCCESS); /* scattered by the sweeps */
  PetscCall(PetscLogGpuTimeBegin());
  Scatter<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, yp, y, (double)omega, omega == 1 ? COPY : SCALE);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  if (omega != 1) PetscCall(PetscLogGpuFlops(1.0 * s->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One Richardson step x += omega M^{-1} (b - A x) (x = omega M^{-1} b from a zero guess), device arrays, the residual fused into the gather. */
PetscErrorCode SFDILURichardson_Device(SFDILU *s, Mat A, const PetscScalar *b, PetscScalar *x, PetscBool guesszero)
{
  SFDILUDevice       D = s->dev;
  cudaStream_t       stream;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscScalar       *yp;
  const PetscBool    parts = (PetscBool)(SFDILUSweepUsed(s) == PCSFDILU_SWEEP_PARTS); /* the residual stays in natural order, the update rides on the kernel's scatter */

  PetscFunctionBegin;
  if (!s->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!guesszero) {
    PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &aa));
    PetscCall(PetscLogGpuTimeBegin());
    ResidualGather<<<sfpc::LaunchBlocks(s->n * (long long)D->rlanes, TPB), TPB, 0, stream>>>((int)s->n, D->rlanes, ai, aj, aa, parts ? NULL : D->iperm, b, x, D->rp);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscLogGpuFlops(2.0 * D->nnz));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &aa));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  }
  if (parts && s->bs > 1) { /* the unit sweeps into rp (in place from the residual), then x (+)= omega E^{-1} rp */
    PetscCall(SFPCTriDeviceSolveParts(D->T, guesszero ? b : D->rp, 1.0, PETSC_FALSE, D->rp));
    PetscCall(BlocksMultiply(s, NULL, D->rp, s->omega, guesszero ? BLOCK_COPY : BLOCK_ADD, x, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (parts) {
    PetscCall(SFPCTriDeviceSolveParts(D->T, guesszero ? b : D->rp, s->omega, (PetscBool)!guesszero, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Sweeps(s, PETSC_FALSE, guesszero ? b : NULL, stream, &yp, s->omega, s->bs > 1 ? NULL : x));
  if (s->bs > 1) {
    PetscCall(BlocksMultiply(s, D->iperm, yp, s->omega, guesszero ? BLOCK_COPY : BLOCK_ADD, x, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!yp) PetscFunctionReturn(PETSC_SUCCESS); /* x = omega M^{-1} b, scattered by the sweeps */
  PetscCall(PetscLogGpuTimeBegin());
  Scatter<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, yp, x, s->omega, guesszero ? SCALE : ADD);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * s->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Eisenstat's form (dilu_eisenstat.c): the engine factor is (I + L_c E^{-1}) and (E + U_c) in color order, so
   P = E + L_c has P^{-1} = E^{-1} L^{-1} and Q = E + U_c is the engine's U: the pieces of the form are the engine's
   (trisolve.cu), between a gather into color order and a scatter back. Device arrays in natural order.
*/

/* x = P^{-1} b (lower), Q^{-1} b, or (mult) Q b; b and x distinct */
PetscErrorCode SFDILUEisenstat_Device(SFDILU *s, PetscBool lower, PetscBool mult, const PetscScalar *b, PetscScalar *x)
{
  SFDILUDevice D = s->dev;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!s->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  Gather<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, b, D->rp);
  PetscCallCUDA(cudaGetLastError());
  if (mult) PetscCall(SFPCTriDeviceMultUpper(D->T, D->rp, D->yp));
  else PetscCall(SFPCTriDeviceSweep(D->T, lower, D->rp, D->yp));
  if (lower && !mult) ScatterScaled<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, D->yp, D->einv, x);
  else Scatter<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, D->yp, x, 1.0, COPY);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dinv = 1/E and k = diag(A) - 2 E, natural order (k holds diag(A) on entry); K is kept in color order for the operator */
PetscErrorCode SFDILUEisenstatDiagonals_Device(SFDILU *s, PetscScalar *dinv, PetscScalar *k)
{
  SFDILUDevice D = s->dev;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!s->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (!D->kp) PetscCallCUDA(cudaMallocAsync((void **)&D->kp, sizeof(PetscScalar) * s->n, stream));
  Gather<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, k, D->kp);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SFPCTriDeviceDiagonals(D->T, D->kp, D->rp, D->kp));
  Scatter<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, D->rp, dinv, 1.0, COPY);
  Scatter<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, D->kp, k, 1.0, COPY);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator y = t + P^{-1} (x + K t), t = Q^{-1} x: the engine's, in color order; w is work of n entries. */
PetscErrorCode SFDILUEisenstatMult_Device(SFDILU *s, const PetscScalar *x, PetscScalar *w, PetscScalar *y)
{
  SFDILUDevice D = s->dev;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!s->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  Gather<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, x, D->rp);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SFPCTriDeviceEisenstat(D->T, D->rp, D->kp, D->einv, w, D->yp));
  PetscCall(PetscLogGpuTimeBegin());
  Scatter<<<sfpc::LaunchBlocks(s->n, TPB), TPB, 0, stream>>>((int)s->n, D->order, D->yp, y, 1.0, COPY);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A host copy of the colors (natural order), made on the first request after each coloring. */
PetscErrorCode SFDILUGetColors_Device(SFDILU *s, const PetscInt **color)
{
  SFDILUDevice D = s->dev;

  PetscFunctionBegin;
  if (!D->hcolor) {
    cudaStream_t stream;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(PetscMalloc1(PetscMax(s->n, 1), &D->hcolor));
    PetscCallCUDA(cudaMemcpyAsync(D->hcolor, D->color, sizeof(int) * s->n, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  *color = D->hcolor;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUView_Device(SFDILU *s, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "  GPU sweeps: %s%s; lanes per row: %d in the fused residual, %d in per-color sweeps\n", PCSFDILUSweepTypes[SFDILUSweepUsed(s)], s->sweep == PCSFDILU_SWEEP_AUTO ? " (auto)" : "", s->dev->rlanes, s->dev->sweeplanes));
  if (s->dev->T && s->dev->T->parts.np) {
    const SFDILUParts *L = &s->dev->parts;
    char               how[64] = "ranges of consecutive rows";
    if (L->grid.b[0]) PetscCall(PetscSNPrintf(how, sizeof(how), "%d x %d x %d boxes of the grid", L->grid.b[0], L->grid.b[1], L->grid.b[2]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  parts: %d blocks of at most %d rows (%s), %d lane%s a row, the colors as steps (the transposed apply and Eisenstat's form: sync-free sweeps)\n", s->dev->T->parts.np, s->dev->T->parts.maxrows, how, s->dev->T->parts.lanes, s->dev->T->parts.lanes == 1 ? "" : "s"));
  }
  if (s->ordered == PCSFDILU_ORDER_LOCAL) PetscCall(PetscViewerASCIIPrintf(viewer, "  row order: local%s (bandwidth %d, D = %lld, windows of %" PetscInt_FMT " keys; sweeps dispatched by windows of %" PetscInt_FMT " rows)\n", s->gpuorder == PCSFDILU_ORDER_AUTO ? " (auto)" : "", s->dev->bandwidth, SFDILU_LOCAL_SKEW * (long long)s->dev->bandwidth + 1, s->localwindow, PetscMax(s->localwindow / 2, 1)));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  row order: color%s\n", s->gpuorder == PCSFDILU_ORDER_AUTO ? " (auto)" : ""));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(SFPCTriDeviceView(s->dev->T, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUReset_Device(SFDILU *s)
{
  SFDILUDevice D = s->dev;
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!D) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  { /* a set-up that failed half way leaves some unallocated */
    void *arrays[] = {D->color, D->order, D->iperm, D->tpos, D->src, D->einv, D->rp, D->yp, D->kp, D->points, D->lu, D->eblk};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
      if (arrays[k]) PetscCallCUDA(cudaFreeAsync(arrays[k], stream));
  }
  PetscCall(SFPCTriDeviceDestroy(&D->T));
  PetscCall(PetscFree(D->cstart));
  PetscCall(PetscFree(D->pcstart));
  PetscCall(PetscFree(D->hcolor));
  PetscCall(PetscFree(s->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
