/*
   ILU(0) on the GPU for a factor whose pattern is (part of) the 27-point box stencil of a known grid, x fastest:
   the 27-point grid layout's factorization (the generic kernel, ilu0_device.cu, pays a flag, a fence and a
   match per dependency; bench/README.md, "The 27-point factorization").

   Point (i, j, k) needs its 13 lower neighbours finished; the latest of them, (i - 1, j, k), (i + 1, j - 1, k)
   and (i + 1, j + 1, k - 1), lie on hyperplane s - 1 of s = i + 2j + 4k, so the points of a hyperplane are
   independent. One warp per point, lane t holding the row's box slot t, so that a point's 13 eliminations take
   a few hundred cycles instead of a thread's 114 dependent loads and updates (FactorPoint()); warp w of the W
   resident warps takes positions w, w + W, ... of the hyperplane order (SFILUPlanes with weights 2, 4).

   A point publishes what its upper neighbours read of it, its inverse pivot and U entries, as a record of 128
   bytes (pub, the sentinel of sfdevice.cuh until written, filled before the launch; a record's values sit at
   constant offsets from one address, where reading them from the factor's CSR row took a register per value:
   the first version spilled); a point reads each value it needs with a relaxed load, again while it is the
   sentinel. No flags, no fences. A finished point's row goes to the factor's CSR values (for the transposed
   factor, conversions and views) and into the grid layout's slabs (BoxStoreSlot(), gridslabs.cuh), so the sweeps
   need no gather.

   Arithmetic: the host's IKJ elimination (SFILUFactorNumeric_Host()) operation for operation. Slots are the
   box's offsets in column order, t = 9 (dz + 1) + 3 (dy + 1) + dx + 1 (0 .. 12 lower, 13 the diagonal, 14 .. 26
   upper); for lower slot o, ascending, the multiplier l = a_o / u_oo (times the stored inverse), then each U
   entry u of neighbour o whose column is in the row (slot o + u - 13, when in the box) updates it by a - l u,
   rounded twice. Each entry sees its updates in the order of o, as on the host: the factor is bitwise the host's.
*/
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/gridslabs.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include "planes.cuh"
#include "sippoint.h"

namespace
{
#define BOX_SLOTS 27
#define BOX_DIAG  13
#define BOX_REC   16 /* values of a point's published record: 1 / u_rr, U by slot 14 .. 26, 2 unused (128 bytes) */

__host__ __device__ constexpr int SlotDx(int t)
{
  return t % 3 - 1;
}
__host__ __device__ constexpr int SlotDy(int t)
{
  return t / 3 % 3 - 1;
}
__host__ __device__ constexpr int SlotDz(int t)
{
  return t / 9 - 1;
}

struct BoxArgs {
  const int *__restrict__ order; /* position -> point */
  const int4 *__restrict__ info; /* point -> start of its row, mask of the slots it has, its slots in the L and U slabs (BoxRecordKernel) */
  const double *__restrict__ A;  /* the matrix's values, in the factor's pattern */
  double   *a;                   /* the factor */
  double   *pub;                 /* per point BOX_REC values: its inverse pivot and its U entries by slot, the sentinel until written */
  double    shift, zeropivot;
  int       positive;
  int      *found; /* T->report: lowest failed pivot row, lowest row with an Inf/NaN entry */
  BoxSlabs  slabs; /* the sweeps' copy of the factor */
};

__device__ __forceinline__ int Rank(unsigned mask, int t)
{
  return __popc(mask & ((1u << t) - 1u));
}

/* Bit f of the values of lower neighbour o a point with every slot uses: f = 0 its inverse pivot, f = u - 13 its U entry u. */
__host__ __device__ constexpr unsigned BoxUses(int o)
{
  /* per axis, the offsets d of u with d_o + d in the box: 3 bits (d = -1, 0, 1); the box's slots are their product, a
     27-bit mask built by multiplying bit patterns that do not overlap (a loop over u cost a third of the kernel's
     instructions where o was a lane's) */
  const unsigned ax = 7u & ~(SlotDx(o) < 0 ? 1u : SlotDx(o) > 0 ? 4u : 0u), ay = 7u & ~(SlotDy(o) < 0 ? 1u : SlotDy(o) > 0 ? 4u : 0u), az = 7u & ~(SlotDz(o) < 0 ? 1u : SlotDz(o) > 0 ? 4u : 0u);
  const unsigned m = ax * ((ay & 1u) | (ay & 2u) << 2 | (ay & 4u) << 4) * ((az & 1u) | (az & 2u) << 8 | (az & 4u) << 16);
  return m >> BOX_DIAG & 0x3fffu; /* bit f: slot 13 + f; bit 0, the centre, always */
}

/* The values of neighbour o (slots nbm) the point (slots own) uses: the neighbour is in the row, and for an U entry u both rows have its column (slot o + u - 13 of the point). */
__device__ __forceinline__ unsigned NeighbourUses(int o, unsigned own, unsigned nbm)
{
  return (own >> o & 1u) ? (BoxUses(o) & (own >> o) & (nbm >> BOX_DIAG)) | 1u : 0u;
}

/* The neighbour at box slot t of point r (r's own row for t = 13). */
__device__ __forceinline__ int SlotPoint(const BoxSlabs &S, int r, int t)
{
  return r + SlotDx(t) + S.nx * (SlotDy(t) + S.ny * SlotDz(t));
}

/*
   Factors point r with one warp, lane t holding the row's box slot t (lanes 27 .. 31 idle): its row, its
   neighbours' published values, the pivot test, its row written and published. Elimination step o needs, of lower
   neighbour o's record, value t - o in lane t (0: its inverse pivot, for the multiplier in lane o; f > 0: its U
   entry 13 + f, which updates slot o + f), so a neighbour's values come in one coalesced load. Every load is issued
   before the first step, and step o waits only for neighbour o: the neighbours on the plane just below (steps 8,
   11, 12) are the ones still being factored, and the steps before them run meanwhile.
*/
__device__ __forceinline__ void FactorPoint(const BoxArgs &g, int r, int lane, volatile double *absrow)
{
  const int4     me  = g.info[r];
  const unsigned own = (unsigned)me.y;
  const bool     has = lane < BOX_SLOTS && (own >> lane & 1u);
  double         v   = has ? sfpc::LoadOnce(g.A + me.x + Rank(own, lane)) : 0.0, rowsum = 0;
  unsigned       use = 0, need = 0; /* use: lane o < 13, the values of neighbour o the point uses (NeighbourUses()); need: bit o, this lane reads value lane - o of neighbour o */
  unsigned long long b[BOX_TERMS];

  if (lane < BOX_TERMS && (own >> lane & 1u)) use = NeighbourUses(lane, own, (unsigned)g.info[SlotPoint(g.slabs, r, lane)].y);
#pragma unroll
  for (int o = 0; o < BOX_TERMS; o++) {
    const unsigned u = __shfl_sync(0xffffffffu, use, o);
    const int      f = lane - o;
    b[o]             = SFPC_SENTINEL;
    if (f >= 0 && f <= BOX_TERMS && (u >> f & 1u)) {
      need |= 1u << o;
      b[o] = sfpc::LoadBits(g.pub + (size_t)BOX_REC * SlotPoint(g.slabs, r, o), f);
    }
  }
  absrow[lane] = fabs(v);
  __syncwarp();
  if (lane == BOX_DIAG) {
    for (int t = 0; t < BOX_SLOTS; t++) rowsum += absrow[t]; /* in column order, as the host sums (a slot the row lacks adds 0) */
    v = __dadd_rn(v, g.shift);
  }
  __syncwarp(); /* absrow is the next point's */
#pragma unroll
  for (int o = 0; o < BOX_TERMS; o++) {
    if (!(own >> o & 1u)) continue; /* the warp's row: the same in every lane */
    const bool mine = need >> o & 1u;
    while (__any_sync(0xffffffffu, mine && b[o] == SFPC_SENTINEL)) { /* waiting together: lanes that waited apart would poll one after another; longer or doubling pauses measured the same (bench/README.md) */
      sfpc::Backoff();
      if (mine && b[o] == SFPC_SENTINEL) b[o] = sfpc::LoadBits(g.pub + (size_t)BOX_REC * SlotPoint(g.slabs, r, o), lane - o);
    }
    double l = 0;
    if (lane == o) v = l = __dmul_rn(v, __longlong_as_double((long long)b[o])); /* the multiplier: times neighbour o's inverse pivot */
    l = __shfl_sync(0xffffffffu, l, o);
    if (mine && lane > o) v = sfpc::SubProduct(v, l, __longlong_as_double((long long)b[o])); /* slot lane of the point, U entry lane - o + 13 of neighbour o */
  }
  if (lane == BOX_DIAG) {
    const double u   = v;
    const bool   bad = SFPCPivotFails(u, __dmul_rn(g.zeropivot, rowsum), g.positive);
    if (!isfinite(rowsum)) atomicMin(g.found + 1, r);
    if (bad) atomicMin(g.found, r); /* u stays for the report; dependents compute garbage, but only rows above it, which are not reported */
    v = bad ? u : __ddiv_rn(1.0, u);
  }
  if (has) {
    g.a[me.x + Rank(own, lane)] = v;
    if (lane >= BOX_DIAG) sfpc::PublishValue(g.pub + (size_t)BOX_REC * r, lane - BOX_DIAG, v);
  }
  if (lane < BOX_SLOTS) BoxStoreSlot(g.slabs, (unsigned)me.z, (unsigned)me.w, lane, v, own);
}

/*
   Blocks of 4 warps per SM the kernel is compiled for: 8 (60 registers, 32 warps per SM) against none (94 registers, 20
   warps): 3.11 against 3.37-3.41 ms at 128^3, 23.8 against 27.7 at 256^3 (H100; the kernel is issue-bound, and more
   warps hide the latency of each one's chain of steps).
*/
#ifndef SFILU_BOX_BLOCKS_PER_SM
  #define SFILU_BOX_BLOCKS_PER_SM 8
#endif
/*
   A warp a point, warp w of the grid's W taking positions w, w + W, ... of the hyperplane order (a ticket a point
   would be an atomic a point on one counter). A point waits only for points at lower positions, so the lowest
   unfinished point is always being factored, provided every warp is resident: the kernel is launched cooperatively.
*/
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK, SFILU_BOX_BLOCKS_PER_SM) BoxILU0Kernel(BoxArgs g, int npos)
{
  __shared__ double absrow[SFPC_WARPS_PER_BLOCK][32];
  const int         lane = threadIdx.x & 31, w = threadIdx.x / 32;

  for (int p = blockIdx.x * SFPC_WARPS_PER_BLOCK + w; p < npos; p += gridDim.x * SFPC_WARPS_PER_BLOCK) {
    const int r = g.order[p];
    if (r >= 0) FactorPoint(g, r, lane, absrow[w]); /* -1: a plane's padding */
  }
}

/*
   Point r's place in the order, its row's start and slot mask, and its slots in the sweeps' slabs (where the
   factorization stores its row, BoxStoreSlot()). The slots come from the grid coordinates of
   the columns (SFPCGridFindOutside_Device() put every column in the box, inside the grid), so a slot set means
   that neighbour exists; columns ascend, so slot order is column order.
*/
__global__ void BoxRecordKernel(SFILUPlaneTable P, BoxSlabs S, const int *__restrict__ ai, const int *__restrict__ aj, int *order, int4 *info)
{
  const int nx = P.nx, ny = P.ny, r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nx * ny * P.nz) return;
  const int i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
  unsigned  mask = 0;

  for (int e = ai[r]; e < ai[r + 1]; e++) {
    const int c = aj[e], ci = c % nx, cj = (c / nx) % ny, ck = c / (nx * ny);
    mask |= 1u << (9 * (ck - k + 1) + 3 * (cj - j + 1) + ci - i + 1);
  }
  order[PlanePosition(P, i + 2 * j + 4 * k, k, j)] = r;
  info[r]                                          = make_int4(ai[r], (int)mask, (int)(unsigned)BoxLowerSlot(S, i, j, k), (int)(unsigned)BoxUpperSlot(S, i, j, k)); /* fewer than 2^32 slots: checked */
}
} // namespace

/* The planes i + 2j + 4k of T's grid (T->grid, a checked 27-point pattern), with each point's row start, box slots and slab slots: 20 bytes a point. */
PetscErrorCode SFILUBoxPlanesCreate_Device(SFPCTriDevice T, SFILUPlanes *P)
{
  const PetscInt  dims[3] = {T->grid.nx, T->grid.ny, T->grid.nz}, n = T->n, tpb = 256;
  const BoxSlabs  S       = SFPCGridBoxSlabs(T); /* its geometry: the slots where the factorization stores each point */
  SFILUPlaneTable tab;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCall(SFILUPlanesCreate_Device(dims, 2, 4, P, &tab));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCheck(32.0 * S.njb * S.nz * S.ts < 4294967296.0, PETSC_COMM_SELF, PETSC_ERR_SUP, "The 27-point factorization by hyperplanes addresses its slabs with 32 bits: this grid is too large (use -pc_sfilu_grid_factor 0)");
  PetscCallCUDA(cudaMallocAsync(&P->info, sizeof(int4) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->pub, sizeof(PetscScalar) * BOX_REC * PetscMax(n, 1), stream));
  if (n) BoxRecordKernel<<<sfpc::LaunchBlocks(n, (int)tpb), (int)tpb, 0, stream>>>(tab, S, T->i, T->j, P->order, (int4 *)P->info);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SFILUPlaneTableFree(&tab));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0) of A + shift I (A's device values in the factor's pattern) into T->a and the sweeps' slabs, over the planes P of T's 27-point grid. */
PetscErrorCode SFILUFactorBox_Device(SFPCTriDevice T, const SFILUPlanes *P, const PetscScalar *A, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  const int    npos = (int)P->start[P->nplanes];
  cudaStream_t stream;
  BoxArgs      g;
  int          perSM, blocks;
  void        *args[] = {(void *)&g, (void *)&npos};

  PetscFunctionBegin;
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  g.order = P->order, g.info = (const int4 *)P->info, g.A = A, g.a = T->a, g.pub = P->pub, g.found = T->report;
  g.slabs = SFPCGridBoxSlabs(T);
  g.shift = (double)shift, g.zeropivot = (double)zeropivot, g.positive = (int)positive;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, BoxILU0Kernel, 32 * SFPC_WARPS_PER_BLOCK, 0));
  if (T->opt.warps_per_sm != PETSC_DECIDE) perSM = PetscMin(perSM, PetscMax(1, (int)T->opt.warps_per_sm / SFPC_WARPS_PER_BLOCK));
  blocks = PetscMin(perSM * T->sms, (npos + SFPC_WARPS_PER_BLOCK - 1) / SFPC_WARPS_PER_BLOCK);
  PetscCall(SFPCFillSentinel(BOX_REC * T->n, P->pub)); /* every value waits to be published */
  PetscCallCUDA(cudaLaunchCooperativeKernel((const void *)BoxILU0Kernel, blocks, 32 * SFPC_WARPS_PER_BLOCK, args, 0, stream)); /* every warp resident: see BoxILU0Kernel */
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(215.0 * T->n)); /* an interior point: 13 multipliers, 101 updates */
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
