/*
   Stone's SIP factorization on the GPU, in place in the engine's factor values (the layout of
   ILU(0), so that the engine's sync-free L and U sweeps apply it unchanged). The arithmetic of a
   point is sippoint.h's, shared with the host reference, so the factor is bitwise the host's.

   Point l needs its -x, -y, -z neighbours finished (their pivots and upper coefficients), so the
   points of a hyperplane i + j + k = s are independent and depend only on plane s - 1. Two
   schedules over the points in hyperplane order (SFILUSIPPlanes), one thread per point:
   - syncfree (the thesis's SIP_ES, shared/notes/seed-000-seveso.md section 1.6): one launch;
     persistent warps take 32 points of one plane by atomic ticket (a warp only ever waits on
     points of earlier planes, whose tickets were taken before its own: no deadlock whatever the
     order blocks run in), load what does not wait (its own row of A, its neighbours' pattern),
     then wait on the neighbours' epoch flags and publish its own with release order.
   - levelsync (the 2012 paper's SIP7GPU-HP, shared/notes/seed-003-004-sip.md section 2.3): one
     launch per hyperplane, no flags; kept for comparison.
*/
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include "sippoint.h"

namespace
{
/* What every point's kernel needs. */
struct SIPArgs {
  const int *__restrict__ ai, *__restrict__ aj, *__restrict__ ad;
  const double *__restrict__ A; /* the matrix's values, in the factor's pattern */
  double *a;                    /* the factor */
  int     dims[3], stride[3];
  double  alpha, shift, zeropivot;
  int     positive;
  int    *found; /* T->report: lowest failed pivot row, lowest row with an Inf/NaN entry */
};

/* Factors point r; SYNCFREE: waits on the neighbours' flags first and publishes r's after. */
template <bool SYNCFREE>
__device__ __forceinline__ void FactorPoint(const SIPArgs &g, int r, const int *flags, int epoch)
{
  const int  at[3] = {r % g.dims[0], (r / g.dims[0]) % g.dims[1], r / g.stride[2]};
  const int  rb = g.ai[r], re = g.ai[r + 1], rd = g.ad[r];
  int        lo[3] = {-1, -1, -1}, up[3] = {-1, -1, -1}, pos[3][3];
  double     rowsum = 0, L[3], U[3], s;
  SIPPointIn in     = {};

  /* what does not wait: the point's own row, and where its neighbours keep their upper coefficients */
  for (int k = rb; k < re; k++) {
    const double v = g.A[k];
    const int    c = g.aj[k];
    rowsum += fabs(v); /* in CSR order, as the host sums */
    for (int d = 0; d < 3; d++) {
      if (at[d] > 0 && c == r - g.stride[d]) lo[d] = k, in.Al[d] = v;
      if (at[d] < g.dims[d] - 1 && c == r + g.stride[d]) up[d] = k, in.Au[d] = v;
    }
  }
  in.Adiag = SIPAdd(g.A[rd], g.shift);
  for (int d = 0; d < 3; d++) {
    if (lo[d] < 0) continue;
    const int m = r - g.stride[d];
    in.lower |= 1u << d;
    for (int e = 0; e < 3; e++) pos[d][e] = -1;
    for (int q = g.ad[m] + 1; q < g.ai[m + 1]; q++) {
      const int c = g.aj[q];
      for (int e = 0; e < 3; e++)
        if (c == m + g.stride[e] && (e == d || at[e] < g.dims[e] - 1)) pos[d][e] = q, in.nbup[d] |= 1u << e; /* m's coordinates are r's, one less along d */
    }
  }
  if (SYNCFREE) {
    for (int d = 0; d < 3; d++)
      if (lo[d] >= 0) sfpc::PollReady(flags, r - g.stride[d], epoch);
    sfpc::AcquireReady();
  }
  /* the finished neighbours' values: written by other SMs during this kernel, so read past L1 */
  for (int d = 0; d < 3; d++) {
    if (lo[d] < 0) continue;
    in.dinv[d] = __ldcg(g.a + g.ad[r - g.stride[d]]);
    for (int e = 0; e < 3; e++)
      if (pos[d][e] >= 0) in.Um[d][e] = __ldcg(g.a + pos[d][e]);
  }
  SIPPointFactor(&in, g.alpha, L, U, &s);
  for (int d = 0; d < 3; d++) {
    if (lo[d] >= 0) g.a[lo[d]] = L[d];
    if (up[d] >= 0) g.a[up[d]] = U[d];
  }
  if (!isfinite(rowsum)) atomicMin(g.found + 1, r);
  if (SIPPivotFails(s, SIPMul(g.zeropivot, rowsum), g.positive)) {
    atomicMin(g.found, r);
    g.a[rd] = s; /* left for the report; dependents compute garbage, but only rows above r, which are not reported */
  } else g.a[rd] = __ddiv_rn(1.0, s);
  if (SYNCFREE) sfpc::StoreRelease((int *)flags + r, epoch); /* release: the row's values are visible before the flag */
}

/* Sync-free: persistent warps, each ticket 32 positions of one plane (order is padded per plane to multiples of 32). */
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) SIPSyncFreeKernel(SIPArgs g, const int *__restrict__ order, long long ntasks, int *flags, int epoch, unsigned long long *counter, unsigned long long base)
{
  for (long long w; (w = sfpc::TakeTask(counter, base)) < ntasks;) {
    const int r = order[32 * w + (threadIdx.x & 31)];
    if (r >= 0) FactorPoint<true>(g, r, flags, epoch);
  }
}

/* Level-synchronous: the points of one plane. */
__global__ void SIPPlaneKernel(SIPArgs g, const int *__restrict__ order, int npos)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npos) return;
  const int r = order[p];
  if (r >= 0) FactorPoint<false>(g, r, NULL, 0);
}

/* order[table[tstart[s] + k - kmin(s)] + j - jmin(s, k)] = point (i, j, k) of plane s = i + j + k. */
__global__ void SIPOrderKernel(int nx, int ny, int nz, const int *__restrict__ tstart, const int *__restrict__ table, int *order)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nx * ny * nz) return;
  const int i = r % nx, j = (r / nx) % ny, k = r / (nx * ny), s = i + j + k;
  const int kmin = max(0, s - (nx - 1) - (ny - 1)), jmin = max(0, s - k - (nx - 1));
  order[table[tstart[s] + k - kmin] + j - jmin] = r;
}
} // namespace

/* The SIP grid check of SFILUCheckSIPPattern(), on the device's copy of the pattern. */
PetscErrorCode SFILUCheckSIPPattern_Device(SFPCTriDevice T, const PetscInt dims[3])
{
  PetscInt r, c;

  PetscFunctionBegin;
  PetscCall(SFILUCheckSIPGrid(T->n, dims));
  PetscCall(SFPCGridFindOutside_Device(T, dims, &r, &c));
  if (r >= 0) PetscCall(SFILUSIPPatternError(dims, r, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The hyperplane order of the grid, built once per pattern. Within plane s points go by (k, j);
   the host tabulates, for each nonempty line (s, k), where its points start (at most one entry
   per point, and only nx + ny - 1 lines per plane: a few hundred KiB at 256^3), and a kernel
   scatters every point to its place. Each plane starts at a multiple of 32 (padding -1).
*/
PetscErrorCode SFILUSIPPlanesCreate_Device(const PetscInt dims[3], SFILUSIPPlanes *P)
{
  const PetscInt nx = dims[0], ny = dims[1], nz = dims[2], n = nx * ny * nz, tpb = 256;
  PetscInt      *tstart, ntab = 0, *table, pos = 0;
  int           *dtstart, *dtable;
  cudaStream_t   stream;

  PetscFunctionBegin;
  PetscCall(SFILUSIPPlanesDestroy_Device(P));
  P->nplanes = nx + ny + nz - 2;
  PetscCall(PetscMalloc1(P->nplanes + 1, &P->start));
  PetscCall(PetscMalloc1(P->nplanes + 1, &tstart));
  for (PetscInt s = 0; s < P->nplanes; s++) {
    tstart[s] = ntab;
    ntab += PetscMin(nz - 1, s) - PetscMax(0, s - (nx - 1) - (ny - 1)) + 1;
  }
  tstart[P->nplanes] = ntab;
  PetscCall(PetscMalloc1(ntab, &table));
  for (PetscInt s = 0; s < P->nplanes; s++) {
    P->start[s] = pos;
    for (PetscInt k = PetscMax(0, s - (nx - 1) - (ny - 1)), t = tstart[s]; k <= PetscMin(nz - 1, s); k++, t++) {
      const PetscInt jlo = PetscMax(0, s - k - (nx - 1)), jhi = PetscMin(ny - 1, s - k);
      table[t] = pos;
      pos += jhi - jlo + 1;
    }
    pos = (pos + 31) / 32 * 32;
  }
  P->start[P->nplanes] = pos;
  PetscCheck(pos < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "SIP's hyperplane order of %" PetscInt_FMT " points does not fit 32-bit indices", n);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&P->order, sizeof(int) * PetscMax(pos, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dtstart, sizeof(int) * (P->nplanes + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dtable, sizeof(int) * PetscMax(ntab, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(P->order, 0xff, sizeof(int) * pos, stream)); /* -1: padding */
  PetscCallCUDA(cudaMemcpyAsync(dtstart, tstart, sizeof(int) * (P->nplanes + 1), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemcpyAsync(dtable, table, sizeof(int) * ntab, cudaMemcpyHostToDevice, stream));
  if (n) SIPOrderKernel<<<(int)((n + tpb - 1) / tpb), (int)tpb, 0, stream>>>((int)nx, (int)ny, (int)nz, dtstart, dtable, P->order);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaFreeAsync(dtstart, stream));
  PetscCallCUDA(cudaFreeAsync(dtable, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the pageable tables are staged already, but free them only when the copies are done for certain */
  PetscCall(PetscFree(tstart));
  PetscCall(PetscFree(table));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUSIPPlanesDestroy_Device(SFILUSIPPlanes *P)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (P->order) {
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaFreeAsync(P->order, stream));
  }
  PetscCall(PetscFree(P->start));
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SIP factorization of A + shift I (A's device values in the factor's pattern) into T->a, over the planes P of the grid dims. */
PetscErrorCode SFILUFactorSIP_Device(SFPCTriDevice T, const SFILUSIPPlanes *P, const PetscScalar *A, const PetscInt dims[3], PetscReal alpha, SFILUSIPVariant variant, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  cudaStream_t stream;
  SIPArgs      g;

  PetscFunctionBegin;
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  g.ai = T->i, g.aj = T->j, g.ad = T->diag, g.A = A, g.a = T->a, g.found = T->report;
  for (int d = 0; d < 3; d++) g.dims[d] = (int)dims[d];
  g.stride[0] = 1, g.stride[1] = g.dims[0], g.stride[2] = g.dims[0] * g.dims[1];
  g.alpha = (double)alpha, g.shift = (double)shift, g.zeropivot = (double)zeropivot, g.positive = (int)positive;
  PetscCall(PetscLogGpuTimeBegin());
  if (variant == SFILU_SIP_SYNCFREE) {
    const PetscInt     ntasks = P->start[P->nplanes] / 32;
    int                blocks, epoch;
    unsigned long long base;

    PetscCall(SFPCTriDeviceTakeTickets(T, ntasks, T->lower.factor_resident, &blocks, &base));
    PetscCall(SFPCTriDeviceNextEpoch(T, &epoch));
    SIPSyncFreeKernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(g, P->order, ntasks, T->flags, epoch, T->counter, base);
    PetscCallCUDA(cudaGetLastError());
  } else {
    const int tpb = 128;
    for (PetscInt s = 0; s < P->nplanes; s++) {
      const int npos = (int)(P->start[s + 1] - P->start[s]);
      SIPPlaneKernel<<<(npos + tpb - 1) / tpb, tpb, 0, stream>>>(g, P->order + P->start[s], npos);
    }
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(30.0 * T->n));
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
