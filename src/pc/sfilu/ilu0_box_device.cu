/*
   ILU(0) on the GPU for a factor whose pattern is (part of) the 27-point box stencil of a known grid, x fastest:
   the 27-point grid layout's factorization (the generic kernel, ilu0_device.cu, pays a flag, a fence and a
   match per dependency; bench/README.md, "The 27-point factorization").

   Point (i, j, k) needs its 13 lower neighbours finished; the latest of them, (i - 1, j, k), (i + 1, j - 1, k)
   and (i + 1, j + 1, k - 1), lie on hyperplane s - 1 of s = i + 2j + 4k, so the points of a hyperplane are
   independent. One thread per point; persistent warps take 32 points of one hyperplane by atomic ticket
   (SFILUPlanes with weights 2, 4; a warp only waits on lower planes, whose tickets were taken before its own:
   no deadlock whatever the residency).

   A point publishes what its upper neighbours read of it, its inverse pivot and U entries, as a record of 128
   bytes (pub, the sentinel of sfdevice.cuh until written, filled before the launch; a record's values sit at
   constant offsets from one address, where reading them from the factor's CSR row took a register per value:
   the first version spilled); a point reads each value it needs with a relaxed load, again while it is the
   sentinel. No flags, no fences. A finished point's row goes to the factor's CSR values (for the transposed
   factor, conversions and views) and into the grid layout's slabs (BoxStore(), gridslabs.cuh), so the sweeps need no gather.

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

/*
   Warps per SM unless -pc_sfilu_warps_per_sm says otherwise: enough for about 3.5 planes in flight, from 4 to 8
   (H100, refactorization ms at 128^3, 73 tasks a plane: 8.67 / 8.65 / 9.99 with 2 / 4 / 8 warps; at 256^3, 293 tasks
   a plane: 39.98 / 35.30 / 34.91 / 40.36 with 4 / 6 / 8 / 12; more planes polled at once flood L2).
*/
#define SFILU_BOX_PLANES_IN_FLIGHT 3.5
#define SFILU_BOX_WARPS_MIN        4
#define SFILU_BOX_WARPS_MAX        8

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
__host__ __device__ constexpr bool InBox(int d)
{
  return d >= -1 && d <= 1;
}

/* Whether upper slot u of lower neighbour o is a column of the point's box: slot o + u - 13 of the point. */
__host__ __device__ constexpr bool Pairs(int o, int u)
{
  return InBox(SlotDx(o) + SlotDx(u)) && InBox(SlotDy(o) + SlotDy(u)) && InBox(SlotDz(o) + SlotDz(u));
}

struct BoxArgs {
  const int *__restrict__ order; /* position -> point */
  const int2 *__restrict__ info; /* point -> (start of its row, mask of the slots it has) */
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
  unsigned m = 1;
  for (int u = BOX_DIAG + 1; u < BOX_SLOTS; u++)
    if (Pairs(o, u)) m |= 1u << (u - BOX_DIAG);
  return m;
}

/* A lower neighbour: its published record, and the values of it the point uses (bit f, as BoxUses()). */
struct Neighbour {
  const double *rec;
  unsigned      use;
};

/* The values of lower neighbour o a point uses, as bits: f = 0 the inverse pivot, f = u - 13 its U entry u. */
struct NbValues {
  unsigned long long v[BOX_TERMS + 1];
};

/* The values of neighbour o (slots nbm) the point (slots own) uses: the neighbour is in the row, and for an U entry u both rows have its column (slot o + u - 13 of the point). */
__device__ __forceinline__ unsigned NeighbourUses(int o, unsigned own, unsigned nbm)
{
  return (own >> o & 1u) ? (BoxUses(o) & (own >> o) & (nbm >> BOX_DIAG)) | 1u : 0u;
}

/* Loads the values of neighbour O the point uses; only those still the sentinel when again. */
template <int O>
__device__ __forceinline__ void Load(const Neighbour &nb, NbValues &b, bool again)
{
#pragma unroll
  for (int f = 0; f <= BOX_TERMS; f++)
    if ((BoxUses(O) >> f & 1u) && (nb.use >> f & 1u) && (!again || b.v[f] == SFPC_SENTINEL)) b.v[f] = sfpc::LoadBits(nb.rec, f);
}

/* Whether a value of neighbour O the point uses is still the sentinel. */
template <int O>
__device__ __forceinline__ bool Pending(const Neighbour &nb, const NbValues &b)
{
  bool pending = false;
#pragma unroll
  for (int f = 0; f <= BOX_TERMS; f++) pending |= (BoxUses(O) >> f & 1u) && (nb.use >> f & 1u) && b.v[f] == SFPC_SENTINEL;
  return pending;
}

/* Row O of the elimination: the multiplier, then the updates of the row's later entries. */
template <int O>
__device__ __forceinline__ void Eliminate(const Neighbour &nb, const NbValues &b, double v[BOX_SLOTS])
{
  if (!(nb.use & 1u)) return;
  const double l = __dmul_rn(v[O], __longlong_as_double((long long)b.v[0]));
  v[O]           = l;
#pragma unroll
  for (int f = 1; f <= BOX_TERMS; f++)
    if ((BoxUses(O) >> f & 1u) && (nb.use >> f & 1u)) v[O + f] = __dsub_rn(v[O + f], __dmul_rn(l, __longlong_as_double((long long)b.v[f]))); /* slot O + u - 13 */
}

/*
   Neighbour O of the elimination and those after it: O's loads, then the warp waits for them together (lanes that
   waited apart would run their loops one after another), reading again those still the sentinel; then O is
   eliminated. Templates, so that every neighbour and value index is a constant and the values stay in registers.
   One neighbour in flight at a time: loads issued further ahead are mostly the sentinel still, and polling them
   slowed the factorization down (bench/README.md, "The 27-point factorization").
*/
template <int O>
struct Elimination {
  static __device__ __forceinline__ void Run(const Neighbour nb[BOX_TERMS], NbValues &b, double v[BOX_SLOTS])
  {
    Load<O>(nb[O], b, false);
    while (__any_sync(0xffffffffu, Pending<O>(nb[O], b))) {
      sfpc::Backoff();
      Load<O>(nb[O], b, true);
    }
    Eliminate<O>(nb[O], b, v);
    Elimination<O + 1>::Run(nb, b, v);
  }
};
template <>
struct Elimination<BOX_TERMS> {
  static __device__ __forceinline__ void Run(const Neighbour *, NbValues &, double *) { }
};

/* Factors point r (-1: a padding lane, which only takes part in the warp's waits): its row, its neighbours' published values, the pivot test, its row written and published. */
__device__ __forceinline__ void FactorPoint(const BoxArgs &g, int r)
{
  const int2     me  = r >= 0 ? g.info[r] : make_int2(0, 0);
  const unsigned own = (unsigned)me.y; /* none on a padding lane: it loads and waits for nothing */
  Neighbour      nb[BOX_TERMS];
  double         v[BOX_SLOTS], rowsum = 0;

#pragma unroll
  for (int o = 0; o < BOX_TERMS; o++) {
    const int c = r + SlotDx(o) + g.slabs.nx * (SlotDy(o) + g.slabs.ny * SlotDz(o));
    nb[o].rec   = g.pub + (size_t)BOX_REC * c;
    nb[o].use   = NeighbourUses(o, own, (own >> o & 1u) ? (unsigned)g.info[c].y : 0u);
  }
#pragma unroll
  for (int t = 0; t < BOX_SLOTS; t++) v[t] = (own >> t & 1u) ? sfpc::LoadOnce(g.A + me.x + Rank(own, t)) : 0.0;
#pragma unroll
  for (int t = 0; t < BOX_SLOTS; t++)
    if (own >> t & 1u) rowsum += fabs(v[t]); /* in column order, as the host sums */
  v[BOX_DIAG] = __dadd_rn(v[BOX_DIAG], g.shift);
  {
    NbValues b;
    Elimination<0>::Run(nb, b, v);
  }
  if (r < 0) return;
  {
    const double u   = v[BOX_DIAG];
    const bool   bad = SFPCPivotFails(u, __dmul_rn(g.zeropivot, rowsum), g.positive);
    if (!isfinite(rowsum)) atomicMin(g.found + 1, r);
    if (bad) atomicMin(g.found, r); /* u stays for the report; dependents compute garbage, but only rows above it, which are not reported */
    v[BOX_DIAG] = bad ? u : __ddiv_rn(1.0, u);
  }
#pragma unroll
  for (int t = 0; t < BOX_SLOTS; t++)
    if (own >> t & 1u) {
      g.a[me.x + Rank(own, t)] = v[t];
      if (t >= BOX_DIAG) sfpc::PublishValue(g.pub + (size_t)BOX_REC * r, t - BOX_DIAG, v[t]);
    }
  BoxStore(g.slabs, r % g.slabs.nx, r / g.slabs.nx % g.slabs.ny, r / (g.slabs.nx * g.slabs.ny), v, own);
}

__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK, 1) BoxILU0Kernel(BoxArgs g, long long ntasks, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31;

  for (;;) {
    const long long w = sfpc::TakeTask(counter, base);
    if (w >= ntasks) break;
    FactorPoint(g, g.order[32 * w + lane]); /* every lane: the warp waits together */
  }
}

/*
   Point r's place in the order, and its row's start and slot mask. The slots come from the grid coordinates of
   the columns (SFPCGridFindOutside_Device() put every column in the box, inside the grid), so a slot set means
   that neighbour exists; columns ascend, so slot order is column order.
*/
__global__ void BoxRecordKernel(SFILUPlaneTable P, const int *__restrict__ ai, const int *__restrict__ aj, int *order, int2 *info)
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
  info[r]                                          = make_int2(ai[r], (int)mask);
}
} // namespace

/* The planes i + 2j + 4k of T's grid (T->grid, a checked 27-point pattern), with each point's row start and slots: 12 bytes a point. */
PetscErrorCode SFILUBoxPlanesCreate_Device(SFPCTriDevice T, SFILUPlanes *P)
{
  const PetscInt  dims[3] = {T->grid.nx, T->grid.ny, T->grid.nz}, n = T->n, tpb = 256;
  SFILUPlaneTable tab;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCall(SFILUPlanesCreate_Device(dims, 2, 4, P, &tab));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&P->info, sizeof(int2) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->pub, sizeof(PetscScalar) * BOX_REC * PetscMax(n, 1), stream));
  if (n) BoxRecordKernel<<<(int)((n + tpb - 1) / tpb), (int)tpb, 0, stream>>>(tab, T->i, T->j, P->order, (int2 *)P->info);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SFILUPlaneTableFree(&tab));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int BoxWarpsPerSM(SFPCTriDevice T, const SFILUPlanes *P)
{
  const double per_plane = (double)P->start[P->nplanes] / 32.0 / (double)PetscMax(P->nplanes, 1);

  return (int)PetscMin(SFILU_BOX_WARPS_MAX, PetscMax(SFILU_BOX_WARPS_MIN, PetscCeilReal(SFILU_BOX_PLANES_IN_FLIGHT * per_plane / T->sms)));
}

/* ILU(0) of A + shift I (A's device values in the factor's pattern) into T->a and the sweeps' slabs, over the planes P of T's 27-point grid. */
PetscErrorCode SFILUFactorBox_Device(SFPCTriDevice T, const SFILUPlanes *P, const PetscScalar *A, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  const PetscInt     ntasks = P->start[P->nplanes] / 32;
  cudaStream_t       stream;
  BoxArgs            g;
  int                blocks;
  unsigned long long base;

  PetscFunctionBegin;
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  g.order = P->order, g.info = (const int2 *)P->info, g.A = A, g.a = T->a, g.pub = P->pub, g.found = T->report;
  g.slabs = SFPCGridBoxSlabs(T);
  g.shift = (double)shift, g.zeropivot = (double)zeropivot, g.positive = (int)positive;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SFPCTriDeviceTakeTickets(T, ntasks, T->opt.warps_per_sm == PETSC_DECIDE ? T->sms * BoxWarpsPerSM(T, P) : T->lower.factor_resident, &blocks, &base));
  PetscCall(SFPCFillSentinel(BOX_REC * T->n, P->pub)); /* every value waits to be published */
  BoxILU0Kernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(g, ntasks, T->counter, base);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(215.0 * T->n)); /* an interior point: 13 multipliers, 101 updates */
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
