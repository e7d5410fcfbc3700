/*
   The grid layout of the sync-free engine: L and U sweeps of a factor whose pattern is (part of)
   the 7-point stencil of a known nx x ny x nz grid, x fastest. The level formulation crosses L2
   once per hyperplane i + j + k (nx + ny + nz - 2 hops per sweep, about 1.2 us each); this walk
   keeps the x and y dependencies inside a warp and pays a hop per z-plane and per 32 y-lines.

   One warp per tile line (jb, k): the 32 y-lines j = 32 jb + lane of z-plane k. The warp walks
   steps t = 0 .. nx + 30; at step t lane l does point i = t - l. So
   - the -x neighbour (i - 1, j, k) is the lane's own result of the previous step (a register),
   - the -y neighbour (i, j - 1, k) is lane l - 1's result of the previous step (a shuffle),
   - lane 0's -y neighbour comes from the warp of (jb - 1, k), through the output vector, read in
     chunks of C steps (lanes 0 .. C - 1 load the C values of line (32 jb - 1, k) lane 0 needs; only
     values still holding the solve sentinel are read again: a chunk, not a step, pays the L2 round trip),
   - every lane's -z neighbour is the same lane's result of the same step in the warp of (jb, k - 1):
     a block of W warps (-pc_sfilu_grid_planes) does W consecutive z-planes of one tile column and
     hands it over in shared memory (GridPlanesKernel); only the block's first plane reads it from the
     output vector, in chunks like the -y line.
   The U sweep is the same walk over the reversed numbering r' = n - 1 - r: a point's +x, +y, +z
   neighbours are its -x', -y', -z' ones there.

   Blocks take their tasks by atomic ticket in z-major order (w = kb * njb + jb), so a block only waits
   on blocks of lower tickets, which have taken them and run: no deadlock whatever the residency, and
   no grid barrier. Values are published through the output with the sentinel, as the other
   layouts' solves do (sfdevice.cuh): no flags, no fences.

   Arithmetic: the CSR sweep's (SFPCTriFactorSweep_Host()) operation for operation: b minus the
   products in column order (-z, -y, -x for L; +x, +y, +z for U), times the inverse pivot when not
   unit, with no fused multiply-add; entries the pattern lacks are skipped (never 0 * x).

   A warp's step touches 32 lines at once (lane l is nx - 1 points after lane l + 1), so each access of
   a natural-order array costs 32 cache lines: few warps are busy at a time, and their load/store
   units, not bandwidth, bound them (the first version, everything in natural order: 0.93 ms for the
   L+U apply at 128^3 on an H100, about 200 ns a step). Hence:
   - coefficients {c_x, c_y, c_z, 1/pivot} and the mask of present entries sit in "skewed slabs"
     (gridslabs.cuh; stored by the hyperplane factorizations, else gathered from the factor's CSR by
     GridFillKernel after each change of values): slot
     (w * (nx + 31) + t) * 32 + l holds what lane l of tile line w needs at step t, so a step's are
     one coalesced run; the next chunk's are prefetched into L2 and loaded a chunk ahead;
   - the other sweep's vector is reset to the sentinel once the warp's line is done, with stores
     along x (coalesced), not point by point;
   - right-hand sides and the other warps' results of a chunk are loaded a chunk ahead, the right-hand
     side also prefetched into L2 GRID_B_AHEAD columns ahead (L+U apply on an H100, bench/README.md:
     128^3 0.483 -> 0.461 ms, 256^3 1.836 -> 1.814 ms; 32 columns: 0.467, 1.866).
   The right-hand side and the result stay in the caller's natural order.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/gridslabs.cuh>
#include <sfpc/private/gridresidual.cuh>
#include <petscdevice_cuda.h>
#include <climits>

namespace
{
#define GRID_B_AHEAD 16

struct GridArgs {
  int nx, ny, nz, njb, n, ts; /* ts = nx + 31: steps (slots) per tile line */
  long long ntasks;
  const GridCoef *__restrict__ coef;
  const unsigned char *__restrict__ mask;
};

/* Point r' of the walk, in the factor's numbering. */
template <bool UP>
__device__ __forceinline__ int Point(const GridArgs &g, int rp)
{
  return UP ? g.n - 1 - rp : rp;
}

/* What a lane needs for C steps of its line besides the coefficients: right-hand sides, masks, the -z results, lane 0's -y results. */
template <int C>
struct GridChunk {
  GridCoef           c[C];
  double             b[C];
  unsigned           m[C];
  unsigned long long z[C], y;
};

/* A tile line's geometry in the walk's numbering. */
struct GridLine {
  int       line, below, left; /* (0, j, k), (0, j, k - 1), (0, 32 jb - 1, k) */
  long long slot;              /* slot of step 0 of this lane */
  bool      active, hasbelow, hasleft;
};

/*
   Issues the loads of the chunk of steps t0 .. t0 + C - 1 that no other warp writes (none waits here: the results are used a chunk
   later), and prefetches the next chunk's slabs into L2.
*/
template <bool UP, int C>
__device__ __forceinline__ void LoadChunk(const GridArgs &g, const GridLine &L, const double *b, int lane, int t0, GridChunk<C> &c)
{
#pragma unroll
  for (int s = 0; s < C; s++) {
    const int  i  = t0 + s - lane;
    const bool in = L.active && i >= 0 && i < g.nx;
    c.m[s]        = 0;
    if (in) {
      const int r = Point<UP>(g, L.line + i);
      c.b[s]      = b[r]; /* a plain load: in an LU solve b may be the array this sweep resets (its own points only) */
      c.m[s]      = g.mask[L.slot + 32 * (t0 + s)];
      c.c[s]      = g.coef[L.slot + 32 * (t0 + s)];
    }
  }
  { /* the next chunk's C * 32 slots of coefficients (32 bytes each) in 128-byte lines, and of masks */
    const long long first = L.slot - lane + 32LL * (t0 + C);
    for (int q = lane; q < 8 * C; q += 32)
      if (t0 + C + q / 8 < g.ts) asm volatile("prefetch.global.L2 [%0];" ::"l"(g.coef + first + 4 * q));
    if (lane == 0 && t0 + C < g.ts) asm volatile("prefetch.global.L2 [%0];" ::"l"(g.mask + first));
  }
  { /* the right-hand side GRID_B_AHEAD columns ahead, which no other warp brings into L2 (a 32-byte sector holds 4 columns) */
    const int ib = t0 - lane + GRID_B_AHEAD;
    if (L.active && ib >= 0 && ib < g.nx) asm volatile("prefetch.global.L2 [%0];" ::"l"(b + Point<UP>(g, L.line + ib)));
  }
}

/* Issues the loads of the same chunk's results of other blocks (the -z line for a block's first plane, lane 0's -y line): the sentinel where not published yet. */
template <bool UP, int C>
__device__ __forceinline__ void LoadLinks(const GridArgs &g, const GridLine &L, const double *x, int lane, int t0, GridChunk<C> &c)
{
#pragma unroll
  for (int s = 0; s < C; s++) {
    const int i = t0 + s - lane;
    c.z[s]      = L.hasbelow && i >= 0 && i < g.nx ? sfpc::LoadBits(x, Point<UP>(g, L.below + i)) : 0;
  }
  c.y = L.hasleft && t0 + lane < g.nx ? sfpc::LoadBits(x, Point<UP>(g, L.left + t0 + lane)) : 0;
}

/*
   Blocks of W warps for W consecutive z-planes of one tile column: block task w = kb * njb + jb (one
   ticket per block, z-major), warp q doing tile line (jb, W kb + q). Warp q's -z line is warp q - 1's
   line, computed by the same lane at the same step: lane l of warp q - 1 hands its result of each step
   to lane l of warp q through a slot in shared memory (GRID_HAND chunks of slots per warp pair), with
   the value as the signal as in global memory: a slot holds the sentinel until written, the reader
   takes the value and puts the sentinel back, and the writer waits for a free slot (atomics, so that
   no barrier is needed: each warp runs as far as its own inputs allow). Warp q waits for a step's slot
   just before that step, not for a chunk's C slots at once: a plane then lags the one below by about a
   step instead of a chunk (L+U apply at 128^3 0.65 -> 0.48 ms, 256^3 1.90 -> 1.83 ms; H100). Only warp 0 reads -z through
   L2 (the top plane of the block below, a lower ticket), and every warp reads its lane 0's -y line
   through L2 (the block of tile column jb - 1, a lower ticket): the chain of a tile column pays nz / W
   hops instead of nz.
*/
#define GRID_HAND 4

/*
   Tile (k, jb) of the fused residual, by the W warps of a block. The tile's 32 y-lines are consecutive
   rows (nact nx of them from the tile's first), so the warps take them as one range, 32 RB rows per warp
   at a time (warp q the runs q, q + W, ...), RB rows per lane so that the loads of RB rows are in flight
   together; every lane busy whatever nx is. RB = 2: with 4 the fused kernel spilled (255 registers) and its
   SIP iteration was 2.91 instead of 2.54 ms at 256^3; with 1, 2.67 ms (H100). The grid layout's pattern check put every column inside the
   row's 7-point stencil, so a row with as many entries as it has grid neighbours (and itself) has
   exactly those, in the stencil's order (-z, -y, -x, diagonal, +x, +y, +z: CSR's ascending order): its
   columns need no loads, and its x values are loaded while its row pointers are still on their way
   (loads one level deep instead of three). Other rows (fewer entries: e.g. Dirichlet rows) read their
   columns. The sum is the host's MatMult's, entry by entry in CSR order (products rounded, no fused
   multiply-add), and r_i = b_i - sum as MatResidual() forms it (without b: r_i = sum, the product alone).
*/
#define GRID_RES_ROWS    2
#define GRID_RES_ENTRIES 7
template <int W>
__device__ void GridResidualTile(const GridArgs &g, const GridResidual &R, int k, int jb, double *red)
{
  const int lane = threadIdx.x & 31, q = threadIdx.x >> 5, tile = k * g.njb + jb, plane = g.nx * g.ny;
  const int first = (k * g.ny + 32 * jb) * g.nx, count = min(32, g.ny - 32 * jb) * g.nx;
  const int off[GRID_RES_ENTRIES] = {-plane, -g.nx, -1, 0, 1, g.nx, plane};
  double    acc = 0;

  for (int i0 = 32 * GRID_RES_ROWS * q; i0 < count; i0 += 32 * GRID_RES_ROWS * W) {
    int      e0[GRID_RES_ROWS], e1[GRID_RES_ROWS];
    unsigned has[GRID_RES_ROWS]; /* bit t: stencil entry t is inside the grid */
    double   xv[GRID_RES_ROWS][GRID_RES_ENTRIES], v[GRID_RES_ROWS][GRID_RES_ENTRIES], s[GRID_RES_ROWS];
#pragma unroll
    for (int u = 0; u < GRID_RES_ROWS; u++) {
      const int i = i0 + 32 * u + lane, l = i / g.nx, px = i - l * g.nx, py = 32 * jb + l;
      e0[u] = e1[u] = 0, has[u] = 0;
      if (i < count) {
        e0[u]  = R.ai[first + i], e1[u] = R.ai[first + i + 1];
        has[u] = (k > 0) | (py > 0) << 1 | (px > 0) << 2 | 1u << 3 | (px < g.nx - 1) << 4 | (py < g.ny - 1) << 5 | (k < g.nz - 1) << 6;
      }
    }
#pragma unroll
    for (int u = 0; u < GRID_RES_ROWS; u++)
#pragma unroll
      for (int t = 0; t < GRID_RES_ENTRIES; t++)
        if (has[u] >> t & 1) xv[u][t] = R.x0[first + i0 + 32 * u + lane + off[t]];
#pragma unroll
    for (int u = 0; u < GRID_RES_ROWS; u++) {
      int e = e0[u];
      if (e1[u] - e0[u] != __popc(has[u])) has[u] = 0; /* not the whole stencil: by CSR below */
#pragma unroll
      for (int t = 0; t < GRID_RES_ENTRIES; t++)
        if (has[u] >> t & 1) v[u][t] = R.a[e++];
    }
#pragma unroll
    for (int u = 0; u < GRID_RES_ROWS; u++) {
      s[u] = 0;
      if (has[u]) {
#pragma unroll
        for (int t = 0; t < GRID_RES_ENTRIES; t++)
          if (has[u] >> t & 1) s[u] = __dadd_rn(s[u], __dmul_rn(v[u][t], xv[u][t]));
      } else
        s[u] = GridResidualRowByCSR(R, e0[u], e1[u]);
    }
#pragma unroll
    for (int u = 0; u < GRID_RES_ROWS; u++)
      if (i0 + 32 * u + lane < count) GridResidualStore(R, first + i0 + 32 * u + lane, s[u], acc);
  }
  GridResidualPublish<W>(R, tile, acc, red);
}

/*
   A hand-over slot's value: one compare-and-swap that leaves it as it is (an atomic add of 0 compiled to a load and a
   compare-and-swap loop). A relaxed block-scope load instead, as the solves by parts read their hand-overs
   (partsweep.cu), was 1.02x slower at 7-point 128^3 and 1.00-1.01x at 256^3 (H200, bench/README.md, sfdilu, "Fewer
   instructions a slice").
*/
__device__ __forceinline__ unsigned long long HandRead(unsigned long long *p)
{
  return atomicCAS(p, SFPC_SENTINEL, SFPC_SENTINEL);
}

/* With RES (the L sweep of a fused residual): which task ticket t is; a tile task returns -1 and its tile in *tile (-1: none, past the end). */
template <int W>
__device__ __forceinline__ long long GridResidualTask(const GridArgs &g, const GridResidual &R, long long t, long long *tile)
{
  long long tw;
  int       p;
  const long long w = GridResidualTicket(t, W, R.lead, &tw, &p);
  *tile = -1;
  if (w < 0 && tw < g.ntasks) {
    const int kb = (int)(tw / g.njb), jb = (int)(tw - (long long)kb * g.njb), k = W * kb + p;
    if (k < g.nz) *tile = (long long)k * g.njb + jb;
  }
  return w;
}

template <bool UP, bool UNIT, int C, int W, bool RES>
__global__ void __launch_bounds__(32 * W) GridPlanesKernel(GridArgs g, GridResidual R, const double *b, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  __shared__ unsigned long long hand[W > 1 ? W - 1 : 1][GRID_HAND][C][32]; /* warp q's results for warp q + 1 */
  __shared__ long long          task, rtile;
  __shared__ double             red[W];
  const unsigned                full = 0xffffffffu;
  const int                     lane = threadIdx.x & 31, q = threadIdx.x >> 5, plane = g.nx * g.ny;
  const long long               ntickets = RES ? SFPCGridResidualTickets(g.ntasks, W, R.lead) : g.ntasks;

  for (int e = threadIdx.x; e < (W > 1 ? W - 1 : 1) * GRID_HAND * C * 32; e += blockDim.x) (&hand[0][0][0][0])[e] = SFPC_SENTINEL; /* every task leaves them so */
  for (;;) {
    if (threadIdx.x == 0) {
      const long long t = (long long)(atomicAdd(counter, 1ULL) - base);
      long long       tl = -1;
      task               = t >= ntickets ? g.ntasks : RES ? GridResidualTask<W>(g, R, t, &tl) : t;
      rtile              = tl;
    }
    __syncthreads();
    const long long w = task;
    if (w >= g.ntasks) break; /* the same for every thread of the block */
    if (RES && w < 0) {       /* a tile of the residual */
      const long long tl = rtile;
      if (tl >= 0) GridResidualTile<W>(g, R, (int)(tl / g.njb), (int)(tl % g.njb), red);
      __syncthreads(); /* task and rtile are read by all before they are taken again */
      continue;
    }
    const int  kb = (int)(w / g.njb), jb = (int)(w - (long long)kb * g.njb), k = W * kb + q, j = 32 * jb + lane;
    const int  nact = min(32, g.ny - 32 * jb), nsteps = g.nx + nact - 1, nchunks = (nsteps + C - 1) / C;
    const bool live = k < g.nz;                            /* the last block of a column may have more warps than planes */
    const bool fed = W > 1 && q > 0 && live;               /* -z from warp q - 1 */
    const bool feeds = W > 1 && q < W - 1 && k + 1 < g.nz; /* warp q + 1 takes this line's results */

    if (live) {
      GridLine     L;
      GridChunk<C> ping, pong;
      double       prev = 0;

      L.line     = (k * g.ny + j) * g.nx;
      L.slot     = (((long long)k * g.njb + jb) * g.ts) * 32 + lane;
      L.below    = L.line - plane;
      L.left     = (k * g.ny + 32 * jb - 1) * g.nx;
      L.active   = lane < nact;
      L.hasbelow = L.active && k > 0 && q == 0;
      L.hasleft  = jb > 0 && lane < C;
      if (RES) GridResidualWait(R, k * g.njb + jb); /* this plane's tile of r is written */
      /*
         Chunk c, its inputs in cur, the next chunk's loads into nxt. The path from warp q - 1's results (or another block's) to this
         warp's holds only the wait and the arithmetic: the next chunk's own loads are issued before the wait, warp q - 1's step s is
         awaited by step s alone, and the check that warp q + 1 has freed the slots of the next chunk comes after the arithmetic.
      */
      auto chunk = [&](int c, GridChunk<C> &cur, GridChunk<C> &nxt) {
        const int           t0 = c * C;
        unsigned long long *in = &hand[fed ? q - 1 : 0][c % GRID_HAND][0][lane], *out = &hand[feeds ? q : 0][c % GRID_HAND][0][lane];

        if (t0 + C < nsteps) LoadChunk<UP, C>(g, L, b, lane, t0 + C, nxt);

        if (fed) { /* the -z line from warp q - 1: the chunk's C slots read together; a step waits below only for its own */
#pragma unroll
          for (int s = 0; s < C; s++) cur.z[s] = HandRead(in + 32 * s);
        }
        /* the other blocks' results this chunk needs: those not published when loaded are read again, together */
        for (;;) {
          bool pending = cur.y == SFPC_SENTINEL;
          if (q == 0) {
#pragma unroll
            for (int s = 0; s < C; s++) pending |= cur.z[s] == SFPC_SENTINEL;
          }
          if (!__any_sync(full, pending)) break;
          sfpc::Backoff();
          if (q == 0) {
#pragma unroll
            for (int s = 0; s < C; s++)
              if (cur.z[s] == SFPC_SENTINEL) cur.z[s] = sfpc::LoadBits(x, Point<UP>(g, L.below + t0 + s - lane));
          }
          if (cur.y == SFPC_SENTINEL) cur.y = sfpc::LoadBits(x, Point<UP>(g, L.left + t0 + lane));
        }
        /* the next chunk's results of other blocks, read as late as they can be: fewer of them still hold the sentinel */
        if (t0 + C < nsteps) LoadLinks<UP, C>(g, L, x, lane, t0 + C, nxt);
#pragma unroll
        for (int s = 0; s < C; s++) {
          if (fed) { /* step s of warp q - 1, then its slot is free */
            while (__any_sync(full, cur.z[s] == SFPC_SENTINEL))
              if (cur.z[s] == SFPC_SENTINEL) cur.z[s] = HandRead(in + 32 * s);
            atomicExch(in + 32 * s, SFPC_SENTINEL);
          }
          const int    i  = t0 + s - lane;
          const double yl = __longlong_as_double((long long)__shfl_sync(full, cur.y, s));
          double       ym = __shfl_up_sync(full, prev, 1);
          if (lane == 0) ym = yl;
          if (L.active && i >= 0 && i < g.nx) {
            const unsigned m  = cur.m[s];
            const double   zm = __longlong_as_double((long long)cur.z[s]);
            double         v  = cur.b[s];
            const int      r  = Point<UP>(g, L.line + i);
            if (UP) {
              if (m & 1) v = sfpc::SubProduct(v, cur.c[s].x, prev);
              if (m & 2) v = sfpc::SubProduct(v, cur.c[s].y, ym);
              if (m & 4) v = sfpc::SubProduct(v, cur.c[s].z, zm);
            } else {
              if (m & 4) v = sfpc::SubProduct(v, cur.c[s].z, zm);
              if (m & 2) v = sfpc::SubProduct(v, cur.c[s].y, ym);
              if (m & 1) v = sfpc::SubProduct(v, cur.c[s].x, prev);
            }
            if (!UNIT) v = __dmul_rn(v, cur.c[s].w);
            sfpc::PublishValue(x, r, v);
            prev = v;
          }
          if (feeds) atomicExch(out + 32 * s, sfpc::PublishedBits(prev)); /* every slot is written (warp q + 1 uses it only where this lane computed a point) */
        }
        if (feeds && c + 1 < nchunks) { /* warp q + 1 has taken chunk c + 1 - GRID_HAND from the slots chunk c + 1 writes */
          out = &hand[q][(c + 1) % GRID_HAND][0][lane];
          for (;;) {
            bool busy = false;
#pragma unroll
            for (int s = 0; s < C; s++) busy |= HandRead(out + 32 * s) != SFPC_SENTINEL;
            if (!__any_sync(full, busy)) break;
          }
        }
      };
      /* the two buffers in turn, the loop unrolled by two, so that no chunk is copied (a copy waits for the loads in flight) */
      LoadChunk<UP, C>(g, L, b, lane, 0, ping);
      LoadLinks<UP, C>(g, L, x, lane, 0, ping);
      for (int c = 0; c < nchunks; c += 2) {
        chunk(c, ping, pong);
        if (c + 1 < nchunks) chunk(c + 1, pong, ping);
      }
      if (reset) { /* every point of the lines was read (b may be reset): the other sweep's vector, along x */
        for (int l = 0; l < nact; l++) {
          const int base = L.line - lane * g.nx + l * g.nx; /* (0, 32 jb + l, k) */
          for (int i = lane; i < g.nx; i += 32) sfpc::ResetValue(reset, Point<UP>(g, base + i));
        }
      }
    }
    __syncthreads(); /* task is read by all before it is taken again */
  }
}

/*
   The lowest row with a column outside its 7-point stencil (bad[0]) and outside its 27-point box (bad[1]), as (row << 32) | column.
   One atomic per warp and kind: on a 27-point pattern every row is outside the 7 points, and one atomic per row on one
   word took 0.76 ms at 100^3 (H100), most of a MATHYBSF set-up that walks the grid.
*/
__global__ void GridOutsideKernel(int n, int nx, int ny, const int *__restrict__ ai, const int *__restrict__ aj, unsigned long long *bad)
{
  const int          r    = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  unsigned long long mine[2] = {~0ULL, ~0ULL};
  if (r < n) {
    const int i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
    for (int q = ai[r]; q < ai[r + 1]; q++) {
      const int c = aj[q], ci = c % nx, cj = (c / nx) % ny, ck = c / (nx * ny);
      const int di = abs(ci - i), dj = abs(cj - j), dk = abs(ck - k);
      const unsigned long long at = (unsigned long long)r << 32 | (unsigned)c;
      if (mine[0] == ~0ULL && di + dj + dk > 1) mine[0] = at;
      if (max(di, max(dj, dk)) > 1) {
        mine[1] = at;
        break; /* columns are sorted: the first bad one is the lowest, and outside the box is outside the 7 points */
      }
    }
  }
  for (int s = 0; s < 2; s++) { /* rows rise with the lane: the warp's lowest is its first lane that found one */
    const unsigned found = __ballot_sync(0xffffffffu, mine[s] != ~0ULL);
    if (found && lane == __ffs(found) - 1) atomicMin(bad + s, mine[s]);
  }
}

/*
   Per point: which neighbours' entries the pattern holds and their coefficients, into each grid sweep's
   slabs (L at the point's slot, U at the slot of the reversed point). A neighbour is told by coordinates,
   not by stride alone: where a side has length 1 two strides coincide (nx = 1: x and y neighbours are
   both 1 away).
*/
__global__ void GridFillKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, GridSlabs S)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int at[3] = {r % S.nx, (r / S.nx) % S.ny, r / (S.nx * S.ny)}, dims[3] = {S.nx, S.ny, S.nz}, stride[3] = {1, S.nx, S.nx * S.ny};
  double    lo[3] = {0, 0, 0}, up[3] = {0, 0, 0};
  unsigned  ml = 0, mu = 0;

  for (int q = ai[r]; q < ai[r + 1]; q++) {
    const int c = aj[q];
    for (int d = 0; d < 3; d++) {
      if (at[d] > 0 && c == r - stride[d]) ml |= 1u << d, lo[d] = a[q];
      if (at[d] < dims[d] - 1 && c == r + stride[d]) mu |= 1u << d, up[d] = a[q];
    }
  }
  GridStore(S, at[0], at[1], at[2], lo, up, a[ad[r]], ml, mu);
}

template <bool UP, bool UNIT, int C, bool RES>
PetscErrorCode LaunchPlanes(int planes, int blocks, cudaStream_t stream, const GridArgs &g, const GridResidual &R, const double *b, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  PetscFunctionBegin;
  switch (planes) {
  case 1:
    GridPlanesKernel<UP, UNIT, C, 1, RES><<<blocks, 32, 0, stream>>>(g, R, b, x, reset, counter, base);
    break;
  case 2:
    GridPlanesKernel<UP, UNIT, C, 2, RES><<<blocks, 64, 0, stream>>>(g, R, b, x, reset, counter, base);
    break;
  case 4:
    GridPlanesKernel<UP, UNIT, C, 4, RES><<<blocks, 128, 0, stream>>>(g, R, b, x, reset, counter, base);
    break;
  case 8:
    GridPlanesKernel<UP, UNIT, C, 8, RES><<<blocks, 256, 0, stream>>>(g, R, b, x, reset, counter, base);
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Grid planes per block must be 1, 2, 4 or 8, not %d", planes);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <bool UP, bool UNIT, bool RES>
PetscErrorCode Launch(int chunk, int planes, int blocks, cudaStream_t stream, const GridArgs &g, const GridResidual &R, const double *b, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  PetscFunctionBegin;
  switch (chunk) {
  case 4:
    PetscCall(LaunchPlanes<UP, UNIT, 4, RES>(planes, blocks, stream, g, R, b, x, reset, counter, base));
    break;
  case 2:
    PetscCall(LaunchPlanes<UP, UNIT, 2, RES>(planes, blocks, stream, g, R, b, x, reset, counter, base));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Grid chunk must be 2 or 4, not %d", chunk);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/*
   The first entry (row[s], col[s]) of T's pattern outside its row's 7-point stencil (s = 0) and outside its 27-point
   box (s = 1), or -1, -1, in one pass and one wait (twin of SFPCGridFindOutside_Host(), which checks one of them).
*/
PetscErrorCode SFPCGridFindOutside_Device(SFPCTriDevice T, const PetscInt dims[3], PetscInt row[2], PetscInt col[2])
{
  cudaStream_t       stream;
  unsigned long long bad[2] = {~0ULL, ~0ULL}, *dbad;
  const int          tpb    = 256;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&dbad, sizeof(bad), stream));
  PetscCallCUDA(cudaMemcpyAsync(dbad, bad, sizeof(bad), cudaMemcpyHostToDevice, stream));
  if (T->n) GridOutsideKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, (int)dims[0], (int)dims[1], T->i, T->j, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(bad, dbad, sizeof(bad), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dbad, stream));
  for (int s = 0; s < 2; s++) {
    row[s] = bad[s] == ~0ULL ? -1 : (PetscInt)(bad[s] >> 32);
    col[s] = bad[s] == ~0ULL ? -1 : (PetscInt)(bad[s] & 0xffffffffULL);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SFPCGridGuess() on a device CSR pattern (ai, aj) of n rows: a few rows from the middle copied to the host (two waits); COLS holds a 27-point row of 8 fields. */
PetscErrorCode SFPCGridGuess_Device(PetscInt n, const PetscInt *ai, const PetscInt *aj, PetscInt bs, int what, PetscInt dims[3])
{
  enum { COLS = 27 * 8 };
  cudaStream_t stream;
  PetscInt     r0, nr, rowstart[SFPC_GRID_GUESS_ROWS + 1], cols[COLS];

  PetscFunctionBegin;
  dims[0] = dims[1] = dims[2] = 0;
  SFPCGridGuessRows(n, &r0, &nr);
  if (!nr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(rowstart, ai + r0, sizeof(PetscInt) * (nr + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscInt m = PetscMin(rowstart[nr] - rowstart[0], (PetscInt)COLS), rows = 0;
  while (rows < nr && rowstart[rows + 1] - rowstart[0] <= m) rows++; /* the rows whose columns fit */
  PetscCallCUDA(cudaMemcpyAsync(cols, aj + rowstart[0], sizeof(PetscInt) * m, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(SFPCGridGuess(n, r0, rows, rowstart, cols, bs, what, dims));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Storage of the grid layout for the sweeps that use it (their layout already set to grid); the values come with SFPCGridFill_Device(). */
PetscErrorCode SFPCGridCreate_Device(SFPCTriDevice T, const PetscInt dims[3], PetscBool box)
{
  cudaStream_t   stream;
  const double   slots = 32.0 * ((dims[1] + 31) / 32) * dims[2] * (dims[0] + 31.0);
  SFPCSchedule  *S[2]  = {T->opt.lower ? &T->lower : NULL, T->opt.upper ? &T->upper : NULL};

  PetscFunctionBegin;
  PetscCall(SFPCGridDestroy_Device(T));
  PetscCheck((double)T->n + 32.0 * dims[0] < (double)PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The grid layout's indices of %" PetscInt_FMT " points do not fit 32-bit integers", T->n);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  T->grid.nx = (int)dims[0];
  T->grid.ny = (int)dims[1];
  T->grid.nz  = (int)dims[2];
  T->grid.box = box;
  for (int k = 0; k < 2; k++) {
    if (!S[k] || S[k]->layout != SFPC_LAYOUT_GRID) continue;
    if (T->grid.box) {
      PetscCall(SFPCGridBoxCreate_Device(T, S[k], stream));
      continue;
    }
    PetscCallCUDA(cudaMallocAsync(&S[k]->gcoef, 4 * sizeof(PetscScalar) * (size_t)slots, stream));
    PetscCallCUDA(cudaMallocAsync(&S[k]->gmask, (size_t)slots, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gathers the grid sweeps' coefficients and masks from the factor's values into their slabs (slots no point uses are never read). */
PetscErrorCode SFPCGridFill_Device(SFPCTriDevice T)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  if (!T->grid.nx || !T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (T->grid.box) {
    PetscCall(SFPCGridBoxFill_Device(T, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  GridFillKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, T->a, SFPCGridSlabs(T));
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCGridDestroy_Device(SFPCTriDevice T)
{
  cudaStream_t stream;
  SFPCGridResidual *res = &T->grid.res;
  void             *p[]  = {T->lower.gcoef, T->lower.gmask, T->upper.gcoef, T->upper.gmask, res->flag, res->part};

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  for (int k = 0; k < 6; k++)
    if (p[k]) PetscCallCUDA(cudaFreeAsync(p[k], stream));
  if (res->host) {
    PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)res->ready)); /* no copy into the pinned word is pending */
    PetscCallCUDA(cudaEventDestroy((cudaEvent_t)res->ready));
    PetscCallCUDA(cudaFreeHost(res->host));
  }
  PetscCall(PetscMemzero(res, sizeof(*res)));
  T->lower.gcoef = T->upper.gcoef = NULL;
  T->lower.gmask = T->upper.gmask = NULL;
  T->grid.nx = T->grid.ny = T->grid.nz = 0;
  T->grid.box = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Warp tasks of a grid sweep: lines of 32 y-lines of a z-plane (7-point), or the box's tile lines. */
long long SFPCGridTasks(SFPCTriDevice T)
{
  return T->grid.box ? SFPCGridBoxTasks(T) : (long long)((T->grid.ny + 31) / 32) * T->grid.nz;
}

/* Planes per block of the grid sweeps: the option, or SFPC_GRID_PLANES, halved while it exceeds the grid's planes (a block's extra warps would have no plane). */
int SFPCGridPlanes(SFPCTriDevice T)
{
  int planes = SFPC_GRID_PLANES;

  if (T->opt.grid_planes) return (int)T->opt.grid_planes;
  while (planes > 1 && planes > T->grid.nz) planes /= 2;
  return planes;
}

/* Resident blocks of a grid sweep (before the cap by its tasks): its warps per SM in blocks of SFPCGridPlanes() warps, at least a block per SM. */
int SFPCGridBlocks(SFPCTriDevice T, const SFPCSchedule *S)
{
  return PetscMax(T->sms, S->solve_resident / SFPCGridPlanes(T));
}

/* The arguments of a grid sweep of T's lower or upper part, its block count, and its ticket base (the tickets it takes are counted out). */
static void GridSweepArgs(SFPCTriDevice T, PetscBool lower, long long (*tickets)(long long, int, void *), void *ctx, GridArgs *g, int *blocks, unsigned long long *base)
{
  const SFPCSchedule *S      = lower ? &T->lower : &T->upper;
  const int           planes = SFPCGridPlanes(T);

  g->nx   = T->grid.nx;
  g->ny   = T->grid.ny;
  g->nz   = T->grid.nz;
  g->njb  = (T->grid.ny + 31) / 32;
  g->n    = (int)T->n;
  g->ts   = T->grid.nx + 31;
  g->coef = (const GridCoef *)S->gcoef;
  g->mask = S->gmask;
  /* a ticket per block task, and one past the end per block; at least a block per SM */
  g->ntasks = (long long)g->njb * ((T->grid.nz + planes - 1) / planes);
  *blocks   = (int)PetscMin(g->ntasks, (long long)SFPCGridBlocks(T, S));
  *base     = T->ticketbase;
  T->ticketbase += (unsigned long long)(tickets ? tickets(g->ntasks, planes, ctx) : g->ntasks) + (unsigned long long)*blocks;
}

/* x = L^{-1} b (lower) or U^{-1} b with the grid layout; x holds the sentinel on entry, reset (may be NULL) gets it point by point. */
PetscErrorCode SFPCGridSweep_Device(SFPCTriDevice T, PetscBool lower, const PetscScalar *b, PetscScalar *x, PetscScalar *reset, cudaStream_t stream)
{
  GridArgs           g;
  GridResidual       R = {};
  int                blocks;
  unsigned long long base;
  const int          chunk = (int)T->opt.grid_chunk, planes = SFPCGridPlanes(T);
  const PetscBool    unit  = lower ? T->lower.unit : T->upper.unit;

  PetscFunctionBegin;
  if (T->grid.box) {
    PetscCall(SFPCGridBoxSweep_Device(T, lower, b, x, reset, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  GridSweepArgs(T, lower, NULL, NULL, &g, &blocks, &base);
  if (lower) PetscCall(unit ? Launch<false, true, false>(chunk, planes, blocks, stream, g, R, b, x, reset, T->counter, base) : Launch<false, false, false>(chunk, planes, blocks, stream, g, R, b, x, reset, T->counter, base));
  else PetscCall(unit ? Launch<true, true, false>(chunk, planes, blocks, stream, g, R, b, x, reset, T->counter, base) : Launch<true, false, false>(chunk, planes, blocks, stream, g, R, b, x, reset, T->counter, base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The fused residual (GridResidual): its tiles are taken SFPC_GRID_RES_LEAD_PART-th of the sweep tasks ahead of the
   tasks that need them, and it is the default only on grids of at least SFPC_GRID_RES_MIN_ROWS points swept in blocks
   of several planes. Measured on an H100, 7-point n^3 (bench/README.md, SIP), SIP iteration unfused / fused with the
   1-norm test: n = 64 and 96 (one plane a block) 0.84 and 0.89; 128 1.10, 160 1.20, 192 1.25, 224 1.19, 256 1.21.
   The lead hardly matters about an eighth: 256^3 (256 sweep tasks) lead 16 2.54 ms, 32 2.54, 64 2.56; 128^3
   (64 tasks) lead 4 0.80, 8 0.80, 16 0.81 (fused, no test).
   The product alone (B A x of left-preconditioned GMRES) against MatMult() and the apply, H100, 7-point n^3, ms
   (bench/README.md, sfilu): n = 128 0.595 / 0.573, 160 0.825 / 0.874, 192 1.144 / 1.258, 224 1.625 / 1.871,
   256 2.210 / 2.549: the product's tiles cost more than a MatMult() of their own until the chain is long enough
   to hide them, so it takes a larger grid (SFPC_GRID_BA_MIN_ROWS).
   Those Richardson figures predate 8 planes a block on every grid (2026-11-27), which sped the unfused 128^3 sweeps
   up (H200 iteration 0.851 -> 0.604 ms) more than the fused ones: remeasured 2026-11-28 (bench/run-sip.sh cubes, the
   demo's solve, unfused / fused, H100 and H200): 128^3 0.94-0.99 (and the bench's iteration 0.97 / 0.94), 144^3
   1.02-1.05 on the H100, 0.99-1.00 on the H200, 160^3 1.03-1.08. Hence 2.5*10^6: 128^3 stays unfused, 144^3 is fused.
*/
#define SFPC_GRID_RES_MIN_ROWS 2500000
#define SFPC_GRID_BA_MIN_ROWS  4000000
/*
   Those measurements are cubes, where 2*10^6 points or more come with at least 504 sweep tasks (126^3). Flat grids of as many
   points have few tasks, each a long chain of x-steps, and fusing slows them: H200, SIP under KSPRICHARDSON, unfused /
   fused solve time, 256 x 256 x 32 (256 tasks) 0.81x, 512 x 512 x 8 (128) 0.76x, 1024 x 1024 x 2 (64) 0.57x,
   2048 x 1024 x 2 (64) 0.46x (bench/README.md, SIP, "Flat grids").
*/
#define SFPC_GRID_RES_MIN_TASKS 504
/*
   The 27-point layout (gridbox.cu): B A x fused against MatMult() and the apply, H100, 27-point n^3, ms (bench/README.md,
   sfilu, "The 27-point layout's fused product"): n = 48 0.419 / 0.396, 64 0.603 / 0.587, 80 0.819 / 0.837, 96 1.054 / 1.108,
   112 1.342 / 1.439, 128 1.667-1.673 / 1.836-1.857, 192 3.58 / 3.82, 256 6.95-7.00 / 7.25-7.38. The Richardson residual
   is the same work and one more read of b, so it takes the same threshold.
*/
#define SFPC_BOX_RES_MIN_ROWS 500000

PetscBool SFPCTriDeviceFusedResidualPays(SFPCTriDevice T, PetscBool product)
{
  if (!SFPCTriDeviceHasFusedResidual(T)) return PETSC_FALSE;
  if (T->grid.box) return (PetscBool)(T->n >= SFPC_BOX_RES_MIN_ROWS);
  return (PetscBool)(SFPCGridPlanes(T) > 1 && SFPCGridTasks(T) >= SFPC_GRID_RES_MIN_TASKS && T->n >= (product ? SFPC_GRID_BA_MIN_ROWS : SFPC_GRID_RES_MIN_ROWS));
}

/* The fused residual's tickets, its lead set on the way. */
static long long GridResidualTickets(long long ntasks, int planes, void *lead)
{
  *(int *)lead = SFPCGridResidualLead(ntasks);
  return SFPCGridResidualTickets(ntasks, planes, *(int *)lead);
}

/* Adds the tiles' partial sums in a fixed order: one block, each thread a strided share, then a tree. */
__global__ void GridResidualNormKernel(int ntiles, const double *__restrict__ part, double *sum)
{
  __shared__ double s[256];
  double            t = 0;
  for (int i = threadIdx.x; i < ntiles; i += blockDim.x) t = __dadd_rn(t, part[i]);
  s[threadIdx.x] = t;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] = __dadd_rn(s[threadIdx.x], s[threadIdx.x + o]);
    __syncthreads();
  }
  if (threadIdx.x == 0) *sum = s[0];
}

/*
   x = L^{-1} (b - A x0) with the grid layout, r = b - A x0 written on the way (it is the sweep's right-hand
   side); without b (NULL), x = L^{-1} A x0 and r = A x0. A is in CSR on the device with the factor's pattern. With norm 1 or 2 the sum of |r_i| or r_i^2 is
   left in T->grid.res.sum (device) and a copy of it is on its way to T->grid.res.host (pinned), with
   T->grid.res.ready recorded after it. x holds the sentinel on entry; reset (may be NULL) gets it point by point.
*/
PetscErrorCode SFPCGridSweepResidual_Device(SFPCTriDevice T, const int *ai, const int *aj, const PetscScalar *a, const PetscScalar *b, const PetscScalar *x0, PetscScalar *r, PetscInt norm, PetscScalar *x, PetscScalar *reset, cudaStream_t stream)
{
  GridArgs           g;
  GridResidual       R;
  int                blocks;
  unsigned long long base;
  const int          chunk = (int)T->opt.grid_chunk, planes = SFPCGridPlanes(T), ntiles = T->grid.box ? (int)SFPCGridBoxResidualParts(T) : T->grid.nz * ((T->grid.ny + 31) / 32);
  SFPCGridResidual  *res   = &T->grid.res;

  PetscFunctionBegin;
  PetscCheck(T->lower.layout == SFPC_LAYOUT_GRID && T->lower.unit, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The fused residual needs a unit L sweep with the grid layout");
  if (!res->flag) { /* once per grid: the tiles' flags (epochs start at 1) and partial sums, the sum and its pinned copy */
    PetscCallCUDA(cudaMallocAsync((void **)&res->flag, sizeof(int) * ntiles, stream));
    PetscCallCUDA(cudaMemsetAsync(res->flag, 0, sizeof(int) * ntiles, stream));
    PetscCallCUDA(cudaMallocAsync((void **)&res->part, sizeof(double) * (ntiles + 1), stream));
    res->sum = res->part + ntiles;
    PetscCallCUDA(cudaMallocHost((void **)&res->host, sizeof(double)));
    PetscCallCUDA(cudaEventCreateWithFlags((cudaEvent_t *)&res->ready, cudaEventDisableTiming));
    res->epoch = 0;
  }
  if (res->epoch == INT_MAX) { /* after 2^31 sweeps start again from zeroed flags (an int must not overflow) */
    PetscCallCUDA(cudaMemsetAsync(res->flag, 0, sizeof(int) * ntiles, stream));
    res->epoch = 0;
  }
  ++res->epoch;
  R.ai = ai, R.aj = aj, R.a = a, R.b = b, R.x0 = x0, R.r = r;
  R.flag = res->flag, R.part = res->part, R.epoch = res->epoch, R.norm = (int)norm;
  if (T->grid.box) PetscCall(SFPCGridBoxSweepResidual_Device(T, &R, x, reset, stream));
  else {
    GridSweepArgs(T, PETSC_TRUE, GridResidualTickets, &R.lead, &g, &blocks, &base);
    PetscCall(Launch<false, true, true>(chunk, planes, blocks, stream, g, R, r, x, reset, T->counter, base));
  }
  if (norm) {
    GridResidualNormKernel<<<1, 256, 0, stream>>>(ntiles, res->part, res->sum);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(res->host, res->sum, sizeof(double), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaEventRecord((cudaEvent_t)res->ready, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
