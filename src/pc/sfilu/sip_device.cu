/*
   Stone's SIP factorization on the GPU, in place in the engine's factor values (the layout of
   ILU(0), so that the engine's sync-free L and U sweeps apply it unchanged). The arithmetic of a
   point is sippoint.h's, shared with the host reference, so the factor is bitwise the host's.

   Point l needs its -x, -y, -z neighbours finished (their pivots and upper coefficients), so the
   points of a hyperplane i + j + k = s are independent and depend only on plane s - 1. Two
   schedules over the points in hyperplane order (SFILUPlanes, weights 1, 1), one thread per point:
   - syncfree (the thesis's SIP_ES, shared/notes/seed-000-seveso.md section 1.6): one launch;
     persistent warps take 32 points of one plane by atomic ticket (a warp only ever waits on
     points of earlier planes, whose tickets were taken before its own: no deadlock whatever the
     order blocks run in), load what does not wait (their records, their rows of A), then poll
     the neighbours' published values.
   - levelsync (the 2012 paper's SIP7GPU-HP, shared/notes/seed-003-004-sip.md section 2.3): one
     launch per hyperplane, no waiting; kept as the baseline.

   What makes a point cheap (bench/README.md, sip): the pattern is a checked 7-point stencil with
   sorted columns (-z, -y, -x, diagonal, +x, +y, +z, each present or not), so every position a
   point touches follows from its diagonal slot and which entries exist. Once per pattern
   SIPRecordKernel stores that per position of the hyperplane order (rec: diagonal slot, presence
   bits, where the neighbours sit in the order), read by a warp as 32 consecutive 16-byte records.
   A point publishes what its +x/+y/+z neighbours need (inverse pivot, upper coefficients) in pub,
   also in hyperplane order: the -x, -y and -z neighbours of a warp's 32 points are three runs of
   consecutive positions of plane s - 1 (per line of the plane the warp covers), so those loads
   coalesce, where the factor's CSR rows of
   neighbouring points lie nx - 1 rows apart (a sector each). The sync-free schedule publishes
   through the values themselves (pub holds the sentinel of sfdevice.cuh until written; waiters
   poll the values they need with relaxed loads, all at once): no flags and no fences on the
   chain, as the engine's solves.
*/
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/gridslabs.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include "sippoint.h"
#include "planes.cuh"

/* SIP's sync-free factorization keeps this many warps per SM unless -pc_sfilu_warps_per_sm says otherwise (measured on an H100, bench/README.md) */
#define SFILU_SIP_WARPS_PER_SM 8

/*
   A record, per position of the hyperplane order: x the point's diagonal slot (-1: padding), y its
   presence bits, z the position of its -x neighbour (the -y one is z - 1: the same line of plane
   s - 1, one j lower), w that of its -z neighbour. Bits: 0-2 the -x/-y/-z entries exist (and the
   neighbour does), 3-5 the +x/+y/+z entries exist, 6 + 3d + e the -d neighbour's row has its +e entry.
*/
#define SIP_UPPER(bits)    ((bits) >> 3 & 7u)
#define SIP_NBUP(bits, d)  ((bits) >> (6 + 3 * (d)) & 7u)

namespace
{
/* What every point's kernel needs. */
struct SIPArgs {
  const int4 *__restrict__ rec;
  const int *__restrict__ order;
  const double *__restrict__ A; /* the matrix's values, in the factor's pattern */
  double   *a;                  /* the factor */
  double   *pub;                /* pub[f * npos + p], f = 0: inverse pivot (the failed pivot on failure), 1 + e: U towards +e */
  long long npos;
  double    alpha, shift, zeropivot;
  int       positive;
  int      *found; /* T->report: lowest failed pivot row, lowest row with an Inf/NaN entry */
  int       paired; /* A and the factor are 16-byte aligned: interior rows move as pairs (RowPairs()) */
  GridSlabs slabs;  /* the grid sweeps' copy of the factor (none on other layouts) */
};

/* Row slots in column order: -z, -y, -x, diagonal, +x, +y, +z; bit t set when slot t exists. */
__device__ __forceinline__ unsigned RowSlots(unsigned bits)
{
  return (bits >> 2 & 1u) | (bits & 2u) | (bits & 1u) << 2 | 8u | SIP_UPPER(bits) << 4;
}

/*
   Whether the row has all seven entries (every point off the grid's boundary), so that it is the 7
   consecutive slots [rd - 3, rd + 4): it is then read and written as aligned pairs of doubles
   (where the arrays allow, SIPArgs.paired), 4 memory instructions instead of 7, each pair within
   one 32-byte sector (lanes' rows lie nx - 1 rows apart: every instruction is 32 requests).
*/
__device__ __forceinline__ bool RowPairs(const SIPArgs &g, unsigned slots)
{
  return g.paired && slots == 0x7fu;
}

/* What a point loads before it waits: the row of A of the point with record rc, by slot (0 where absent). */
__device__ __forceinline__ void LoadRow(const SIPArgs &g, int4 rc, double v[7])
{
  const unsigned slots = RowSlots((unsigned)rc.y);
  const int      first = rc.x - __popc((unsigned)rc.y & 7u);

  if (rc.x >= 0 && RowPairs(g, slots)) {
    const int     odd = first & 1;
    const double2 *p  = (const double2 *)(g.A + first - odd);
    double        w[8];
#pragma unroll
    for (int k = 0; k < 4; k++) {
      const double2 x = (odd || k < 3) ? p[k] : make_double2(g.A[first + 6], 0.0); /* the last pair would run past the row when even */
      w[2 * k] = x.x, w[2 * k + 1] = x.y;
    }
#pragma unroll
    for (int t = 0; t < 7; t++) v[t] = odd ? w[t + 1] : w[t];
    return;
  }
#pragma unroll
  for (int t = 0; t < 7; t++) v[t] = (rc.x >= 0 && (slots >> t & 1u)) ? g.A[first + __popc(slots & ((1u << t) - 1u))] : 0.0;
}

/* Factors the point at position p of the order, with record rc and row v (LoadRow()); SYNCFREE: waits for the neighbours' published values. */
template <bool SYNCFREE>
__device__ __forceinline__ void FactorPoint(const SIPArgs &g, long long p, int4 rc, const double v[7])
{
  const unsigned bits = (unsigned)rc.y, lower = bits & 7u, slots = RowSlots(bits);
  const int      first = rc.x - __popc(lower), q[3] = {rc.z, rc.z - 1, rc.w};
  double         rowsum = 0, nv[3][4] = {}, L[3], U[3], s, piv;
  unsigned       need = 0; /* bit 4 d + f: value f of the -d neighbour (f = 0 inverse pivot, 1 + e its U towards +e) */
  SIPPointIn     in   = {};

#pragma unroll
  for (int t = 0; t < 7; t++)
    if (slots >> t & 1u) rowsum += fabs(v[t]); /* in CSR order, as the host sums */
  in.lower = lower;
  in.Adiag = SIPAdd(v[3], g.shift);
#pragma unroll
  for (int d = 0; d < 3; d++) {
    in.Al[d]   = v[2 - d];
    in.Au[d]   = v[4 + d];
    in.nbup[d] = (lower >> d & 1u) ? SIP_NBUP(bits, d) : 0u;
    need |= (lower >> d & 1u) ? (1u | in.nbup[d] << 1) << 4 * d : 0u;
  }
  if (SYNCFREE) {
    /* all outstanding values at once (relaxed, past L1), again for those still the sentinel */
    for (;;) {
      unsigned long long b[3][4];
#pragma unroll
      for (int d = 0; d < 3; d++)
#pragma unroll
        for (int f = 0; f < 4; f++) b[d][f] = (need >> (4 * d + f) & 1u) ? cuda::atomic_ref<const unsigned long long, cuda::thread_scope_device>(*(const unsigned long long *)(g.pub + f * g.npos + q[d])).load(cuda::memory_order_relaxed) : SFPC_SENTINEL;
#pragma unroll
      for (int d = 0; d < 3; d++)
#pragma unroll
        for (int f = 0; f < 4; f++)
          if ((need >> (4 * d + f) & 1u) && b[d][f] != SFPC_SENTINEL) {
            nv[d][f] = __longlong_as_double((long long)b[d][f]);
            need &= ~(1u << (4 * d + f));
          }
      if (!need) break;
      sfpc::Backoff();
    }
  } else {
#pragma unroll
    for (int d = 0; d < 3; d++)
#pragma unroll
      for (int f = 0; f < 4; f++)
        if (need >> (4 * d + f) & 1u) nv[d][f] = __ldcg(g.pub + f * g.npos + q[d]); /* written by the previous launch */
  }
#pragma unroll
  for (int d = 0; d < 3; d++) {
    in.dinv[d] = nv[d][0];
#pragma unroll
    for (int e = 0; e < 3; e++) in.Um[d][e] = nv[d][1 + e];
  }
  SIPPointFactor(&in, g.alpha, L, U, &s);
  if (!isfinite(rowsum)) atomicMin(g.found + 1, g.order[p]);
  if (SFPCPivotFails(s, SIPMul(g.zeropivot, rowsum), g.positive)) {
    atomicMin(g.found, g.order[p]);
    piv = s; /* left for the report; dependents compute garbage, but only rows above it, which are not reported */
  } else piv = SIPDiv(1.0, s);
  if (RowPairs(g, slots)) {
    const double row[8] = {L[2], L[1], L[0], piv, U[0], U[1], U[2], 0.0};
    double2     *q      = (double2 *)(g.a + (first & ~1));
    if (first & 1) {
      g.a[first] = row[0];
#pragma unroll
      for (int k = 0; k < 3; k++) q[k + 1] = make_double2(row[2 * k + 1], row[2 * k + 2]);
    } else {
#pragma unroll
      for (int k = 0; k < 3; k++) q[k] = make_double2(row[2 * k], row[2 * k + 1]);
      g.a[first + 6] = row[6];
    }
  } else {
#pragma unroll
    for (int d = 0; d < 3; d++) {
      if (lower >> d & 1u) g.a[first + __popc(slots & ((1u << (2 - d)) - 1u))] = L[d];
      if (slots >> (4 + d) & 1u) g.a[first + __popc(slots & ((1u << (4 + d)) - 1u))] = U[d];
    }
    g.a[rc.x] = piv;
  }
  if (g.slabs.lower || g.slabs.upper) { /* the grid layout (the grid's sides are 0 otherwise) */
    const int    r     = g.order[p];
    const double lo[3] = {(lower & 1u) ? L[0] : 0.0, (lower & 2u) ? L[1] : 0.0, (lower & 4u) ? L[2] : 0.0};
    const double up[3] = {(slots & 16u) ? U[0] : 0.0, (slots & 32u) ? U[1] : 0.0, (slots & 64u) ? U[2] : 0.0};
    GridStore(g.slabs, r % g.slabs.nx, r / g.slabs.nx % g.slabs.ny, r / (g.slabs.nx * g.slabs.ny), lo, up, piv, lower, SIP_UPPER(bits));
  }
  sfpc::PublishValue(g.pub, (int)p, piv); /* relaxed stores: each value is its own readiness (a NaN that matches the sentinel is published as another NaN) */
#pragma unroll
  for (int e = 0; e < 3; e++) sfpc::PublishValue(g.pub + (1 + e) * g.npos, (int)p, U[e]);
}

/*
   Sync-free: persistent warps, each ticket 32 positions of one plane (order is padded per plane to
   multiples of 32). A ticket's own loads are a chain of round trips (ticket, record, row of A)
   that do not wait on other points, so each warp runs them two tickets ahead, while it polls for
   the current one: it holds the current ticket (record and row loaded), the next (record loaded)
   and the one after (atomic in flight). Still no deadlock: the lowest unfinished ticket is always
   some warp's current one (a warp holding tickets ahead holds a lower current one), and everything
   it waits for is lower. Each warp takes 3 tickets past the end.
*/
#define SIP_TICKETS_AHEAD 2
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) SIPSyncFreeKernel(SIPArgs g, long long ntasks, unsigned long long *counter, unsigned long long base)
{
  const int          lane = threadIdx.x & 31;
  long long          w0 = sfpc::TakeTask(counter, base), w1 = sfpc::TakeTask(counter, base);
  unsigned long long raw2 = lane ? 0 : atomicAdd(counter, 1ULL); /* lane 0's ticket after next, broadcast when needed */
  int4               rc0 = w0 < ntasks ? __ldg(g.rec + 32 * w0 + lane) : make_int4(-1, 0, 0, 0);
  int4               rc1 = w1 < ntasks ? __ldg(g.rec + 32 * w1 + lane) : make_int4(-1, 0, 0, 0);
  double             v0[7], v1[7];

  LoadRow(g, rc0, v0);
  while (w0 < ntasks) {
    const long long w2 = (long long)(__shfl_sync(0xffffffffu, raw2, 0) - base);
    const int4      rc2 = w2 < ntasks ? __ldg(g.rec + 32 * w2 + lane) : make_int4(-1, 0, 0, 0);
    raw2 = lane ? 0 : atomicAdd(counter, 1ULL);
    LoadRow(g, rc1, v1);
    if (rc0.x >= 0) FactorPoint<true>(g, 32 * w0 + lane, rc0, v0);
    w0 = w1, rc0 = rc1, w1 = w2, rc1 = rc2;
#pragma unroll
    for (int t = 0; t < 7; t++) v0[t] = v1[t];
  }
}

/* Level-synchronous: the points of one plane, positions [p0, p0 + npos). */
__global__ void SIPPlaneKernel(SIPArgs g, long long p0, int npos)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= npos) return;
  const int4 rc = __ldg(g.rec + p0 + t);
  double     v[7];
  if (rc.x < 0) return;
  LoadRow(g, rc, v);
  FactorPoint<false>(g, p0 + t, rc, v);
}

/* Point r's place in the order and its record (see SIP_UPPER), from the pattern (checked: columns sorted, all grid neighbours). */
__global__ void SIPRecordKernel(SFILUPlaneTable P, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int *order, int4 *rec)
{
  const int nx = P.nx, ny = P.ny, nz = P.nz, r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nx * ny * nz) return;
  const int dims[3] = {nx, ny, nz}, stride[3] = {1, nx, nx * ny};
  const int at[3] = {r % nx, (r / nx) % ny, r / (nx * ny)}, s = at[0] + at[1] + at[2], p = PlanePosition(P, s, at[2], at[1]);
  unsigned  bits = 0;

  /* the grid coordinates tell the directions apart where strides coincide (a side of length 1) */
  for (int k = ai[r]; k < ai[r + 1]; k++) {
    const int c = aj[k];
    for (int d = 0; d < 3; d++) {
      if (at[d] > 0 && c == r - stride[d]) bits |= 1u << d;
      if (at[d] < dims[d] - 1 && c == r + stride[d]) bits |= 8u << d;
    }
  }
  for (int d = 0; d < 3; d++) {
    if (!(bits >> d & 1u)) continue;
    const int m = r - stride[d];
    for (int q = ad[m] + 1; q < ai[m + 1]; q++)
      for (int e = 0; e < 3; e++)
        if (aj[q] == m + stride[e] && (e == d || at[e] < dims[e] - 1)) bits |= 1u << (6 + 3 * d + e); /* m's coordinates are r's, one less along d */
  }
  order[p] = r;
  rec[p]   = make_int4(ad[r], (int)bits, at[0] + at[1] > 0 ? PlanePosition(P, s - 1, at[2], at[1]) : -1, at[2] > 0 ? PlanePosition(P, s - 1, at[2] - 1, at[1]) : -1);
}
} // namespace

/* The SIP grid check of SFILUCheckSIPPattern(), on the device's copy of the pattern. */
PetscErrorCode SFILUCheckSIPPattern_Device(SFPCTriDevice T, const PetscInt dims[3], PetscBool guessed)
{
  PetscInt r[2], c[2];

  PetscFunctionBegin;
  PetscCall(SFILUCheckSIPGrid(T->n, dims));
  PetscCall(SFPCGridFindOutside_Device(T, dims, r, c));
  if (r[0] >= 0) PetscCall(SFILUSIPPatternError(dims, guessed, r[0], c[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   SIP's planes (i + j + k) with each position's record; the records and pub take 48 bytes per position
   (about 0.8 GB at 256^3; the factor's CSR takes about 90 bytes per point).
*/
PetscErrorCode SFILUSIPPlanesCreate_Device(SFPCTriDevice T, const PetscInt dims[3], SFILUPlanes *P)
{
  const PetscInt  n = dims[0] * dims[1] * dims[2], tpb = 256;
  SFILUPlaneTable tab;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCall(SFILUPlanesCreate_Device(dims, 1, 1, P, &tab));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&P->rec, sizeof(int4) * PetscMax(P->start[P->nplanes], 1), stream));
  PetscCallCUDA(cudaMallocAsync(&P->pub, sizeof(PetscScalar) * 4 * PetscMax(P->start[P->nplanes], 1), stream));
  PetscCallCUDA(cudaMemsetAsync(P->rec, 0xff, sizeof(int4) * P->start[P->nplanes], stream));
  if (n) SIPRecordKernel<<<sfpc::LaunchBlocks(n, (int)tpb), (int)tpb, 0, stream>>>(tab, T->i, T->j, T->diag, P->order, (int4 *)P->rec);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(SFILUPlaneTableFree(&tab));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SIP factorization of A + shift I (A's device values in the factor's pattern) into T->a (and the grid sweeps' slabs, on that layout), over the planes P of the grid dims. */
PetscErrorCode SFILUFactorSIP_Device(SFPCTriDevice T, const SFILUPlanes *P, const PetscScalar *A, PetscReal alpha, SFILUSIPVariant variant, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  cudaStream_t stream;
  SIPArgs      g;

  PetscFunctionBegin;
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  g.rec = (const int4 *)P->rec, g.order = P->order, g.A = A, g.a = T->a, g.pub = P->pub, g.npos = P->start[P->nplanes], g.found = T->report;
  g.paired = !((uintptr_t)A % 16) && !((uintptr_t)T->a % 16);
  g.slabs  = SFPCGridSlabs(T);
  g.alpha = (double)alpha, g.shift = (double)shift, g.zeropivot = (double)zeropivot, g.positive = (int)positive;
  PetscCall(PetscLogGpuTimeBegin());
  if (variant == SFILU_SIP_SYNCFREE) {
    const PetscInt     ntasks = P->start[P->nplanes] / 32;
    int                blocks;
    unsigned long long base;

    PetscCall(SFPCTriDeviceTakeTickets(T, ntasks, T->opt.warps_per_sm == PETSC_DECIDE ? T->sms * SFILU_SIP_WARPS_PER_SM : T->lower.factor_resident, &blocks, &base));
    T->ticketbase += (unsigned long long)SIP_TICKETS_AHEAD * blocks * SFPC_WARPS_PER_BLOCK; /* the tickets each warp takes ahead, past the end */
    PetscCall(SFPCFillSentinel(4 * P->start[P->nplanes], P->pub)); /* every value waits to be published */
    SIPSyncFreeKernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(g, ntasks, T->counter, base);
    PetscCallCUDA(cudaGetLastError());
  } else {
    const int tpb = 128;
    for (PetscInt s = 0; s < P->nplanes; s++) {
      const int npos = (int)(P->start[s + 1] - P->start[s]);
      SIPPlaneKernel<<<sfpc::LaunchBlocks(npos, tpb), tpb, 0, stream>>>(g, P->start[s], npos);
    }
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(30.0 * T->n));
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
