/*
   The grid layout's sweeps for a factor whose pattern is (part of) the 27-point box stencil of a known
   nx x ny x nz grid, x fastest (gridsweep.cu has the 7-point ones). In the level formulation a point
   (i, j, k) of L waits for (i + 1, j - 1, k) and (i + 1, j + 1, k - 1): its level is i + 2j + 4k, about
   7n hops of 1.8 us a sweep on an n^3 grid (the hyb layout at 256^3: 6.5 ms for L+U on an H200). This
   walk keeps x and y inside a warp and pays an L2 hop per z-plane and per 30 y-lines.

   One warp per tile line w = k * njb + jb: lanes 1 .. 30 compute y-lines j = 30 jb - k % 30 + l - 1 of z-plane k
   (BoxLaneLine(): a plane's tiles start a line lower than the plane below's, gridslabs.cuh, so that line j + 1 of
   plane k - 1 is the same lane's of the tile below); lane 0 carries the line below lane 1's (the tile below's last,
   computed by another warp) and lane 31 the line above lane 30's, both only read. At step t lane l is at point
   i = t - 2l, two steps behind lane l - 1, so
   - (i - 1, j, k) is the lane's own result of step t - 1 (a register),
   - (i - 1 .. i + 1, j - 1, k) are lane l - 1's results of steps t - 3 .. t - 1 (a shuffle a step, kept
     three deep); lane 0's "results" are line j - 1's values (the tile below's), read from the output vector,
   - (i - 1 .. i + 1, j - 1 .. j + 1, k - 1): each lane keeps a window of its own line in plane k - 1,
     columns i - 3 .. i + 3, read from the output vector a column a step; lane l - 1's window (it is
     two columns ahead) holds line j - 1's three, lane l + 1's (two behind) line j + 1's: shuffles.
   Values from other warps come a chunk of C steps at a time, a chunk ahead; only those still holding the
   sentinel are read again (a chunk, not a step, pays the L2 round trip).

   Tickets go in (k, jb) order: a task reads tile jb - 1 of plane k and two tiles of plane k - 1 (jb - 1 and jb, or
   jb and jb + 1 where k % 30 wraps to 0), all of lower tickets, taken by warps that run: no deadlock whatever the
   residency. Values are
   published through the output with the sentinel (sfdevice.cuh).

   Arithmetic: the CSR sweep's (SFPCTriFactorSweep_Host()) operation for operation: b minus the products
   in ascending column order, times the inverse pivot when not unit, no fused multiply-add; entries the
   pattern lacks are skipped. The U sweep is the same walk over the reversed numbering r' = n - 1 - r,
   where U's neighbours are the lower ones and ascending columns are the terms in reverse.

   The residual b - A x (or the product A x) fused into the L sweep (gridresidual.cuh): residual tasks in the walk's
   ticket stream, six a sweep task (its lines in parts of five), each waited for by that task after its wait for the
   plane below. On an H100 it pays from about 5*10^5 points (gridsweep.cu, SFPC_BOX_RES_MIN_ROWS).

   Coefficients: the 13 terms and the inverse pivot of a point, and the mask of the terms the pattern has,
   in skewed slabs (gridslabs.cuh): slot (w * (nx + 62) + t) * 32 + l is what lane l of tile line w needs at
   step t, one coalesced run a step. The 27-point factorization stores them as it goes; other values are
   gathered from the factor's CSR (BoxFillKernel).
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/gridslabs.cuh>
#include <sfpc/private/gridresidual.cuh>
#include <petscdevice_cuda.h>

namespace
{
#define BOX_CHUNK 2  /* steps per read of other warps' results (208 registers a thread; 4 would double the coefficients held, about 110 more) */

struct BoxArgs {
  int nx, ny, nz, njb, n, ts; /* njb: tile lines per z-plane; ts = nx + 62: steps (slots) per tile line */
  long long ntasks;
  const BoxCoef *__restrict__ coef;
  const unsigned short *__restrict__ mask;
};

template <bool UP>
__device__ __forceinline__ int BoxPoint(const BoxArgs &g, int rp)
{
  return UP ? g.n - 1 - rp : rp;
}

/* The lanes first .. last of tile line (jb, k) that lie on lines of the grid (none: last < first; the skew leaves a plane's first or last tile line empty). */
__device__ __forceinline__ void BoxTaskLanes(const BoxArgs &g, int jb, int k, int *first, int *last)
{
  const int j1 = BoxLaneLine(jb, k, 1);
  *first       = max(1, 1 - j1);
  *last        = min(BOX_LINES, g.ny - j1);
}

/*
   Part p of tile w of the fused residual (gridresidual.cuh): the rows of BOX_RES_LINES of sweep task w's lines,
   consecutive y-lines of one z-plane, by one warp, a row a lane at a time. A tile comes in
   BOX_RES_PARTS parts, each its own ticket and flag, so that a tile is written soon after its tickets are taken.
   SFPCGridFindOutside_Device() put every column inside its row's box and CSR sorts them, so a row with as many
   entries as it has box neighbours in the grid has exactly those, in box-slot order: its x values are loaded while
   its row pointers are on their way, and its columns are not read. Other rows (fewer entries: Dirichlet rows, a
   19-point stencil) read their columns.
*/
__device__ void BoxResidualPart(const BoxArgs &g, const GridResidual &R, long long w, int p, double *red)
{
  const int lane = threadIdx.x & 31, k = (int)(w / g.njb), jb = (int)(w - (long long)k * g.njb), plane = g.nx * g.ny;
  int       first, last;
  double    acc = 0;

  BoxTaskLanes(g, jb, k, &first, &last);
  const int l0 = first + BOX_RES_LINES * p, l1 = min(last, l0 + BOX_RES_LINES - 1);
  const int j0 = BoxLaneLine(jb, k, l0), rows = l1 >= l0 ? (l1 - l0 + 1) * g.nx : 0, row0 = (k * g.ny + j0) * g.nx;
  const unsigned hz = (k > 0) | 2u | (k < g.nz - 1) << 2; /* bit d + 1: the neighbour at dk = d is in the grid */
  for (int i = lane; i < rows; i += 32) {
    const int      r = row0 + i, l = i / g.nx, px = i - l * g.nx, py = j0 + l, e0 = R.ai[r], e1 = R.ai[r + 1];
    const unsigned hx = (px > 0) | 2u | (px < g.nx - 1) << 2, hy = (py > 0) | 2u | (py < g.ny - 1) << 2;
    unsigned       has = 0; /* bit t: box slot t is in the grid */
    double         s   = 0;
#pragma unroll
    for (int t = 0; t < 27; t++) has |= (hx >> (t % 3) & hy >> (t / 3 % 3) & hz >> (t / 9) & 1u) << t;
    if (e1 - e0 == __popc(has)) {
      int e = e0;
      /* a z-plane of the box at a time, 18 loads in flight a lane: all 27 at once took the kernel past 255 registers into 700 bytes
         of spills, and two rows a lane into 80 bytes, which cost the walk more than the loads saved (bench/README.md) */
#pragma unroll
      for (int t0 = 0; t0 < 27; t0 += 9) {
        double xv[9], v[9];
#pragma unroll
        for (int t = 0; t < 9; t++)
          if (has >> (t0 + t) & 1) xv[t] = R.x0[r + (t % 3 - 1) + g.nx * (t / 3 - 1) + plane * (t0 / 9 - 1)], v[t] = R.a[e++];
#pragma unroll
        for (int t = 0; t < 9; t++)
          if (has >> (t0 + t) & 1) s = __dadd_rn(s, __dmul_rn(v[t], xv[t]));
      }
    } else s = GridResidualRowByCSR(R, e0, e1);
    GridResidualStore(R, r, s, acc);
  }
  GridResidualPublish<1>(R, (int)(w * BOX_RES_PARTS + p), acc, red);
}

/* A lane's geometry in its tile line, in the walk's numbering. */
struct BoxLine {
  int       row, below;  /* (0, j, k), (0, j, k - 1) */
  long long slot;        /* slot of step 0 */
  bool      comp;        /* lanes 1 .. 30 on a line of the grid */
  bool      hasbelow;    /* a line of the grid, not in the first plane: the window is read */
  bool      halo;        /* lane 0 above the first tile: line 30 jb - 1 is read */
};

/* What a lane needs for C steps: coefficients, masks, right-hand sides; the window's next columns and lane 0's line. */
template <int C>
struct BoxChunk {
  BoxCoef            c[C];
  double             b[C];
  unsigned           m[C];
  unsigned long long z[C], h[C];
};

/* Issues the loads of steps t0 .. t0 + C - 1 (none waits here) and prefetches the next chunk's slabs into L2. */
template <bool UP, int C>
__device__ __forceinline__ void BoxLoad(const BoxArgs &g, const BoxLine &L, const double *b, const double *x, int lane, int t0, BoxChunk<C> &c)
{
#pragma unroll
  for (int s = 0; s < C; s++) {
    const int i = t0 + s - 2 * lane, zc = i + 4;
    c.m[s]              = 0;
    c.b[s]              = 0;
    c.c[s].c[BOX_TERMS] = 0;
    if (L.comp && i >= 0 && i < g.nx) {
      c.b[s] = b[BoxPoint<UP>(g, L.row + i)]; /* a plain load: in an LU solve b may be the array this sweep resets */
      c.m[s] = g.mask[L.slot + 32 * (t0 + s)];
      c.c[s] = g.coef[L.slot + 32 * (t0 + s)];
    }
    c.z[s] = L.hasbelow && zc >= 0 && zc < g.nx ? sfpc::LoadBits(x, BoxPoint<UP>(g, L.below + zc)) : 0;
    c.h[s] = L.halo && i >= 0 && i < g.nx ? sfpc::LoadBits(x, BoxPoint<UP>(g, L.row + i)) : 0;
  }
  { /* the next chunk's slabs, 112 bytes a slot, in 128-byte lines */
    const long long first = L.slot - lane + 32LL * (t0 + C);
    const int       lines = (C * 32 * (int)sizeof(BoxCoef)) / 128;
    for (int q = lane; q < lines; q += 32)
      if (t0 + C + q * 128 / (32 * (int)sizeof(BoxCoef)) < g.ts) asm volatile("prefetch.global.L2 [%0];" ::"l"((const char *)(g.coef + first) + 128 * q));
    if (lane == 0 && t0 + C < g.ts) asm volatile("prefetch.global.L2 [%0];" ::"l"(g.mask + first));
  }
}

/* Reads again, together, the chunk's values of other warps that still held the sentinel, until none does. */
template <bool UP, int C>
__device__ __forceinline__ void BoxWait(const BoxArgs &g, const BoxLine &L, const double *x, int lane, int t0, BoxChunk<C> &c)
{
  for (;;) {
    bool pending = false;
#pragma unroll
    for (int s = 0; s < C; s++) pending |= c.z[s] == SFPC_SENTINEL || c.h[s] == SFPC_SENTINEL;
    if (!__any_sync(0xffffffffu, pending)) return;
    sfpc::Backoff();
#pragma unroll
    for (int s = 0; s < C; s++) {
      const int i = t0 + s - 2 * lane;
      if (c.z[s] == SFPC_SENTINEL) c.z[s] = sfpc::LoadBits(x, BoxPoint<UP>(g, L.below + i + 4));
      if (c.h[s] == SFPC_SENTINEL) c.h[s] = sfpc::LoadBits(x, BoxPoint<UP>(g, L.row + i));
    }
  }
}

__device__ __forceinline__ double Bits(unsigned long long v)
{
  return __longlong_as_double((long long)v);
}

/* What a lane carries from step to step: the window of the line below, lane l - 1's last three results, its own last one. */
struct BoxState {
  unsigned long long zw[7];
  double             prev, y0, y1, y2; /* lane l - 1's results at columns i + 1, i, i - 1 */
};

/* Steps t0 .. t0 + C - 1 of a tile line, from chunk c. A step's arithmetic runs on every lane (the chunk holds no terms, a zero
   right-hand side and pivot where the lane has no point): no branch splits the chunk, so that steps overlap where they can. */
template <bool UP, bool UNIT, int C>
__device__ __forceinline__ void BoxSteps(const BoxArgs &g, const BoxLine &L, double *x, int lane, int t0, const BoxChunk<C> &c, BoxState &st)
{
  const unsigned full = 0xffffffffu;
#pragma unroll
  for (int s = 0; s < C; s++) {
    const int    i     = t0 + s - 2 * lane;
    const bool   ok    = L.comp && i >= 0 && i < g.nx;
    const double v9[9] = {Bits(__shfl_up_sync(full, st.zw[0], 1)), Bits(__shfl_up_sync(full, st.zw[1], 1)), Bits(__shfl_up_sync(full, st.zw[2], 1)), Bits(st.zw[2]), Bits(st.zw[3]), Bits(st.zw[4]), Bits(__shfl_down_sync(full, st.zw[4], 1)), Bits(__shfl_down_sync(full, st.zw[5], 1)), Bits(__shfl_down_sync(full, st.zw[6], 1))};
    const double val[BOX_TERMS] = {v9[0], v9[1], v9[2], v9[3], v9[4], v9[5], v9[6], v9[7], v9[8], st.y2, st.y1, st.y0, st.prev};
    const unsigned m = c.m[s];
    double         v = c.b[s];
    if (UP) {
#pragma unroll
      for (int q = BOX_TERMS - 1; q >= 0; q--)
        if (m >> q & 1) v = sfpc::SubProduct(v, c.c[s].c[q], val[q]);
    } else {
#pragma unroll
      for (int q = 0; q < BOX_TERMS; q++)
        if (m >> q & 1) v = sfpc::SubProduct(v, c.c[s].c[q], val[q]);
    }
    if (!UNIT) v = __dmul_rn(v, c.c[s].c[BOX_TERMS]);
    if (ok) sfpc::PublishValue(x, BoxPoint<UP>(g, L.row + i), v);
    const double res = ok ? v : L.halo ? Bits(c.h[s]) : 0.0;
    st.prev          = res;
    st.y2            = st.y1;
    st.y1            = st.y0;
    st.y0            = __shfl_up_sync(full, res, 1);
#pragma unroll
    for (int q = 0; q < 6; q++) st.zw[q] = st.zw[q + 1];
    st.zw[6] = c.z[s];
  }
}

/* With RES, the L sweep of a fused residual whose tiles (BoxResidualPart()) share the warps' ticket stream (gridresidual.cuh); b is then R.r. */
template <bool UP, bool UNIT, int C, bool RES>
__global__ void __launch_bounds__(32) BoxKernel(BoxArgs g, GridResidual R, const double *b, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  __shared__ double red[1];
  const unsigned    full = 0xffffffffu;
  const int         lane = threadIdx.x & 31, plane = g.nx * g.ny;
  const long long   ntickets = RES ? SFPCGridResidualTickets(g.ntasks, BOX_RES_PARTS, R.lead) : g.ntasks;

  for (;;) {
    const long long t = sfpc::TakeTask(counter, base);
    long long       w = t >= ntickets ? g.ntasks : t, tw;
    int             p;
    if (RES && t < ntickets && (w = GridResidualTicket(t, BOX_RES_PARTS, R.lead, &tw, &p)) < 0) {
      if (tw < g.ntasks) BoxResidualPart(g, R, tw, p, red);
      continue;
    }
    if (w >= g.ntasks) break;
    const int k = (int)(w / g.njb), jb = (int)(w - (long long)k * g.njb), j = BoxLaneLine(jb, k, lane);
    int       first, last; /* lanes on lines of the grid; lane `last` ends at step nx - 1 + 2 last */
    BoxTaskLanes(g, jb, k, &first, &last);
    if (last < first) continue;
    const int  nsteps = g.nx + 2 * last;
    const bool line   = j >= 0 && j < g.ny;
    BoxLine    L;
    L.row      = (k * g.ny + j) * g.nx;
    L.below    = L.row - plane;
    L.slot     = (long long)w * g.ts * 32 + lane;
    L.comp     = lane >= first && lane <= last;
    L.hasbelow = line && k > 0;
    L.halo     = lane == 0 && line;

    /* the window before step 0: columns i0 - 3 .. i0 + 3 of the line below, i0 = -2 lane */
    BoxState st = {};
#pragma unroll
    for (int q = 0; q < 7; q++) {
      const int col = q - 3 - 2 * lane;
      st.zw[q]      = L.hasbelow && col >= 0 && col < g.nx ? sfpc::LoadBits(x, BoxPoint<UP>(g, L.below + col)) : 0;
    }
    for (;;) {
      bool pending = false;
#pragma unroll
      for (int q = 0; q < 7; q++) pending |= st.zw[q] == SFPC_SENTINEL;
      if (!__any_sync(full, pending)) break;
      sfpc::Backoff();
#pragma unroll
      for (int q = 0; q < 7; q++)
        if (st.zw[q] == SFPC_SENTINEL) st.zw[q] = sfpc::LoadBits(x, BoxPoint<UP>(g, L.below + q - 3 - 2 * lane));
    }

    if (RES) /* after the wait for the plane below, by which the tile is mostly written */
      for (int p = 0; p < BOX_RES_PARTS; p++) GridResidualWait(R, (int)(w * BOX_RES_PARTS + p));
    BoxChunk<C> ca, cb; /* two chunks in turn, so that none is copied */
    BoxLoad<UP, C>(g, L, b, x, lane, 0, ca);
    for (int t0 = 0; t0 < nsteps; t0 += 2 * C) {
      BoxWait<UP, C>(g, L, x, lane, t0, ca);
      if (t0 + C < nsteps) BoxLoad<UP, C>(g, L, b, x, lane, t0 + C, cb); /* in flight while this chunk computes */
      BoxSteps<UP, UNIT, C>(g, L, x, lane, t0, ca, st);
      if (t0 + C >= nsteps) break;
      BoxWait<UP, C>(g, L, x, lane, t0 + C, cb);
      if (t0 + 2 * C < nsteps) BoxLoad<UP, C>(g, L, b, x, lane, t0 + 2 * C, ca);
      BoxSteps<UP, UNIT, C>(g, L, x, lane, t0 + C, cb, st);
    }
    if (reset) { /* every point of the lines was read (b may be reset): the other sweep's vector, along x */
      for (int l = first; l <= last; l++) {
        const int row = (k * g.ny + BoxLaneLine(jb, k, l)) * g.nx;
        for (int i = lane; i < g.nx; i += 32) sfpc::ResetValue(reset, BoxPoint<UP>(g, row + i));
      }
    }
  }
}

/*
   Per point: its row of the factor into each sweep's slabs (BoxStore()), for a factor whose values did not come
   from the 27-point factorization (which stores them itself). The row's columns are merged with the box slots
   inside the grid in ascending order, every slot by a constant index so that the coefficients stay in registers
   (a term index computed per entry put them in local memory, and the division per column cost too: the
   refactorization at 256^3 took 21 ms more than the hyb layout's, H100). SFPCGridFindOutside_Device() put
   every column in the box, and distinct points have distinct columns, so every entry finds its term.
*/
__global__ void BoxFillKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, BoxSlabs S)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int nx = S.nx, ny = S.ny, i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
  const int at[3] = {i, j, k}, dims[3] = {nx, ny, S.nz};
  double    v[27] = {};
  unsigned  own   = 1u << BOX_TERMS;
  int       e     = ai[r];
  const int end   = ai[r + 1];

#pragma unroll
  for (int t = 0; t < 27; t++) { /* box slot t: the neighbour (i, j, k) + d */
    const int d[3] = {t % 3 - 1, t / 3 % 3 - 1, t / 9 - 1};
    const int c    = r + d[0] + nx * (d[1] + ny * d[2]);
    bool      in   = true;
    for (int q = 0; q < 3; q++) in = in && at[q] + d[q] >= 0 && at[q] + d[q] < dims[q];
    if (in && e < end && aj[e] == c) v[t] = a[e++], own |= 1u << t;
  }
  v[BOX_TERMS] = a[ad[r]]; /* the inverse pivot, which the loop found at the diagonal slot too */
  BoxStore(S, i, j, k, v, own);
}
} // namespace

/* Slots of each sweep's slabs on the grid T has. */
static double BoxSlots(SFPCTriDevice T)
{
  return 32.0 * SFPCBoxTilesPerPlane(T->grid.ny) * T->grid.nz * (T->grid.nx + 2.0 * BOX_LINES + 2);
}

/* Bytes of one sweep's slabs. */
double SFPCGridBoxBytes(SFPCTriDevice T)
{
  return BoxSlots(T) * (sizeof(BoxCoef) + sizeof(unsigned short));
}

PetscErrorCode SFPCGridBoxCreate_Device(SFPCTriDevice T, SFPCSchedule *S, cudaStream_t stream)
{
  const double slots = BoxSlots(T);

  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&S->gcoef, sizeof(BoxCoef) * (size_t)slots, stream));
  PetscCallCUDA(cudaMallocAsync(&S->gmask, sizeof(unsigned short) * (size_t)slots, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCGridBoxFill_Device(SFPCTriDevice T, cudaStream_t stream)
{
  const int tpb = 256;

  PetscFunctionBegin;
  BoxFillKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, T->a, SFPCGridBoxSlabs(T));
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Flags (and norm partial sums) of a fused residual on the box layout: BOX_RES_PARTS a task. */
long long SFPCGridBoxResidualParts(SFPCTriDevice T)
{
  return SFPCGridBoxTasks(T) * BOX_RES_PARTS;
}

/* Tasks of a box sweep: tile lines, BOX_LINES y-lines of a z-plane each (skewed: gridslabs.cuh). */
long long SFPCGridBoxTasks(SFPCTriDevice T)
{
  return (long long)SFPCBoxTilesPerPlane(T->grid.ny) * T->grid.nz;
}

/* Warps of a box sweep: its schedule's resident warps, at most one per task. */
int SFPCGridBoxWarps(SFPCTriDevice T, const SFPCSchedule *S)
{
  return (int)PetscMin(SFPCGridBoxTasks(T), (long long)S->solve_resident);
}

/* The arguments of a box sweep of T's lower or upper part and its warp count. */
static void BoxSweepArgs(SFPCTriDevice T, const SFPCSchedule *S, BoxArgs *g, int *warps)
{
  const BoxSlabs slabs = SFPCGridBoxSlabs(T);

  g->nx     = T->grid.nx;
  g->ny     = T->grid.ny;
  g->nz     = T->grid.nz;
  g->njb    = slabs.njb;
  g->n      = (int)T->n;
  g->ts     = slabs.ts;
  g->ntasks = SFPCGridBoxTasks(T);
  g->coef   = (const BoxCoef *)S->gcoef;
  g->mask   = (const unsigned short *)S->gmask;
  *warps    = SFPCGridBoxWarps(T, S);
}

/* Launches a box sweep of `tickets` tickets (a ticket per task, or the fused residual's), counting them and one past the end per warp out of T's tickets. */
template <bool RES>
static PetscErrorCode BoxLaunch(SFPCTriDevice T, PetscBool lower, const BoxArgs &g, int warps, long long tickets, const GridResidual &R, const double *b, double *x, double *reset, cudaStream_t stream)
{
  const PetscBool          unit = lower ? T->lower.unit : T->upper.unit;
  const unsigned long long base = T->ticketbase;

  PetscFunctionBegin;
  PetscCheck(!RES || (lower && unit), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The fused residual needs a unit L sweep");
  T->ticketbase += (unsigned long long)tickets + (unsigned long long)warps;
  if (RES) { /* the L sweep of ILU's unit L only */
    BoxKernel<false, true, BOX_CHUNK, true><<<warps, 32, 0, stream>>>(g, R, b, x, reset, T->counter, base);
  } else if (lower) {
    if (unit) BoxKernel<false, true, BOX_CHUNK, false><<<warps, 32, 0, stream>>>(g, R, b, x, reset, T->counter, base);
    else BoxKernel<false, false, BOX_CHUNK, false><<<warps, 32, 0, stream>>>(g, R, b, x, reset, T->counter, base);
  } else {
    if (unit) BoxKernel<true, true, BOX_CHUNK, false><<<warps, 32, 0, stream>>>(g, R, b, x, reset, T->counter, base);
    else BoxKernel<true, false, BOX_CHUNK, false><<<warps, 32, 0, stream>>>(g, R, b, x, reset, T->counter, base);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = L^{-1} b (lower) or U^{-1} b on the 27-point grid layout; x holds the sentinel on entry, reset (may be NULL) gets it point by point. */
PetscErrorCode SFPCGridBoxSweep_Device(SFPCTriDevice T, PetscBool lower, const PetscScalar *b, PetscScalar *x, PetscScalar *reset, cudaStream_t stream)
{
  BoxArgs      g;
  GridResidual R = {};
  int          warps;

  PetscFunctionBegin;
  BoxSweepArgs(T, lower ? &T->lower : &T->upper, &g, &warps);
  PetscCall(BoxLaunch<false>(T, lower, g, warps, g.ntasks, R, b, x, reset, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The L sweep of SFPCGridSweepResidual_Device() on the 27-point grid layout: x = L^{-1} R->r, r written by BOX_RES_PARTS residual tasks a sweep task (R's lead set here). */
PetscErrorCode SFPCGridBoxSweepResidual_Device(SFPCTriDevice T, const GridResidual *R, PetscScalar *x, PetscScalar *reset, cudaStream_t stream)
{
  BoxArgs      g;
  GridResidual Rl = *R;
  int          warps;

  PetscFunctionBegin;
  BoxSweepArgs(T, &T->lower, &g, &warps);
  Rl.lead = SFPCGridResidualLead(g.ntasks);
  PetscCall(BoxLaunch<true>(T, PETSC_TRUE, g, warps, SFPCGridResidualTickets(g.ntasks, BOX_RES_PARTS, Rl.lead), Rl, Rl.r, x, reset, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
