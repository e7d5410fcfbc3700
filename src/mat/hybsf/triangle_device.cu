/*
   A triangle of a square device CSR matrix as an engine factor, built on the GPU (the same
   entries and checks as triangle_host.c): one thread per row counts, a scan gives the row
   offsets, a vector of lanes per row fills. Faults come back as the lowest 4 * row + kind.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/triangle.h>
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <petscdevice_cuda.h>
#include <cub/device/device_scan.cuh>

namespace
{
__device__ inline void Fault(unsigned long long *fault, int r, SFPCTriangleFault kind)
{
  atomicMin(fault, 4ULL * (unsigned long long)r + (unsigned long long)kind);
}

/* count[r] = engine entries of row r (strict triangle + diagonal slot) */
template <bool LOWER>
__global__ void CountKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, int *count)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int c = 1;
  for (int k = ai[r]; k < ai[r + 1]; k++) c += LOWER ? aj[k] < r : aj[k] > r;
  count[r] = c;
}

/*
   Checks row r (as RowCheck() in triangle_host.c, faults in the same order) and, unless
   fault-checking only, writes its engine entries at ti[r]... With check (refilling an existing
   factor), the columns must be those already in tj. V lanes per row read
   its entries V at a time and place the triangle's by a ballot: a thread per row (before) read
   and wrote strided, 10x the bytes' time on a randomly permuted 27-point matrix.
*/
template <bool LOWER, int V>
__global__ void FillKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const double *__restrict__ aa, bool unit, const int *__restrict__ ti, int *tj, double *ta, bool check, bool write, unsigned long long *fault)
{
  const long long g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / V;
  const int       t = threadIdx.x & (V - 1), first = threadIdx.x & 31 & ~(V - 1);
  const unsigned  group = (V == 32 ? 0xffffffffu : (1u << V) - 1) << first;
  if (g >= n) return; /* the whole vector */
  const int r = (int)g, q0 = ti[r], q1 = ti[r + 1], ke = ai[r + 1];
  int       q = q0 + (LOWER ? 0 : 1);
  bool      hasd = false, bad = false, finite = true;
  double    d    = 1.0;
  for (int kb = ai[r]; kb < ke; kb += V) {
    const int      k  = kb + t;
    const int      c  = k < ke ? aj[k] : -1;
    const double   v  = k < ke ? aa[k] : 0.0;
    const bool     in = c >= 0 && (LOWER ? c < r : c > r);
    const unsigned m = (__ballot_sync(group, in) & group) >> first, dm = (__ballot_sync(group, c == r) & group) >> first;
    const int      p = q + __popc(m & ((1u << t) - 1));
    if (dm) {
      hasd = true;
      d    = __shfl_sync(group, v, __ffs(dm) - 1, V);
    }
    if ((in || (c == r && !unit)) && !isfinite(v)) finite = false; /* a unit triangle does not read its diagonal */
    if (in) {
      if (check && (p >= q1 || tj[p] != c)) bad = true;
      else if (write) {
        if (!check) tj[p] = c;
        ta[p] = v;
      }
    }
    q += __popc(m);
  }
  if (__any_sync(group, bad)) {
    if (t == 0) Fault(fault, r, SFPC_TRIANGLE_PATTERN_CHANGED);
    return;
  }
  finite = __all_sync(group, finite);
  if (t) return;
  const int dq = LOWER ? q : q0;
  if (!unit && !hasd) Fault(fault, r, SFPC_TRIANGLE_MISSING_DIAGONAL);
  else if (!unit && isfinite(d) && !SFPCTriangleDiagonalInvertible(d)) Fault(fault, r, SFPC_TRIANGLE_ZERO_DIAGONAL);
  else if (check && (q + (LOWER ? 1 : 0) != q1 || tj[dq] != r)) Fault(fault, r, SFPC_TRIANGLE_PATTERN_CHANGED);
  else if (!finite) Fault(fault, r, SFPC_TRIANGLE_NONFINITE);
  else if (write) {
    if (!check) tj[dq] = r;
    ta[dq] = unit ? 1.0 : 1.0 / d;
  }
}

template <int V>
void LaunchFillV(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool lower, PetscBool unit, const int *ti, int *tj, double *ta, bool check, bool write, unsigned long long *dfault, cudaStream_t stream)
{
  const int tpb = 256, nb = sfpc::LaunchBlocks((long long)n * V, tpb); /* n * V passes 2^31 from 6.7*10^7 rows at 32 lanes a row */

  if (lower) FillKernel<true, V><<<nb, tpb, 0, stream>>>((int)n, ai, aj, aa, unit, ti, tj, ta, check, write, dfault);
  else FillKernel<false, V><<<nb, tpb, 0, stream>>>((int)n, ai, aj, aa, unit, ti, tj, ta, check, write, dfault);
}

/* The fill of a triangle of trinnz entries (diagonal slots included), with lanes per row for A's average row (about twice the triangle's). */
PetscErrorCode LaunchFill(PetscInt n, PetscInt trinnz, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool lower, PetscBool unit, const int *ti, int *tj, double *ta, bool check, bool write, unsigned long long *dfault, cudaStream_t stream)
{
  const double row = 2.0 * trinnz / PetscMax(n, 1);

  PetscFunctionBegin;
  if (row <= 8) LaunchFillV<8>(n, ai, aj, aa, lower, unit, ti, tj, ta, check, write, dfault, stream);
  else if (row <= 16) LaunchFillV<16>(n, ai, aj, aa, lower, unit, ti, tj, ta, check, write, dfault, stream);
  else LaunchFillV<32>(n, ai, aj, aa, lower, unit, ti, tj, ta, check, write, dfault, stream);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FaultCheck(unsigned long long *dfault, cudaStream_t stream)
{
  unsigned long long fault;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(&fault, dfault, sizeof(fault), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if (fault != ~0ULL) PetscCall(SFPCTriangleFaultError((PetscInt)(fault / 4), (SFPCTriangleFault)(fault % 4)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* The engine factor of A's lower or upper triangle, A's CSR (ai, aj, aa) on the device; opt says how to analyse it. */
PetscErrorCode SFPCTriangleCreate_Device(PetscInt n, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool lower, PetscBool unit, const SFPCTriOptions *opt, SFPCTriDevice *out)
{
  cudaStream_t       stream;
  int               *ti, *tj, nnz = 0;
  double            *ta;
  unsigned long long *dfault, none = ~0ULL;
  const int          tpb = 256, nb = sfpc::LaunchBlocks(n, tpb);
  SFPCTriOptions     o = *opt;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&ti, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dfault, sizeof(*dfault), stream));
  PetscCallCUDA(cudaMemcpyAsync(dfault, &none, sizeof(none), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemsetAsync(ti, 0, sizeof(int) * (n + 1), stream));
  if (n) {
    if (lower) CountKernel<true><<<nb, tpb, 0, stream>>>((int)n, ai, aj, ti);
    else CountKernel<false><<<nb, tpb, 0, stream>>>((int)n, ai, aj, ti);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, ti, ti, (int)n + 1, stream); }));
  PetscCallCUDA(cudaMemcpyAsync(&nnz, ti + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaMallocAsync(&tj, sizeof(int) * PetscMax(nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&ta, sizeof(double) * PetscMax(nnz, 1), stream));
  if (n) PetscCall(LaunchFill(n, nnz, ai, aj, aa, lower, unit, ti, tj, ta, false, true, dfault, stream));
  ierr = FaultCheck(dfault, stream);
  if (!ierr) {
    o.lower      = lower;
    o.upper      = (PetscBool)!lower;
    o.lower_unit = o.upper_unit = unit;
    ierr = SFPCTriDeviceCreate(n, nnz, ti, tj, PETSC_TRUE, &o, out);
  }
  if (!ierr) {
    PetscCallCUDA(cudaMemcpyAsync((*out)->a, ta, sizeof(double) * nnz, cudaMemcpyDeviceToDevice, stream));
    ierr = SFPCTriDeviceValuesChanged(*out);
  }
  PetscCallCUDA(cudaFreeAsync(ti, stream));
  PetscCallCUDA(cudaFreeAsync(tj, stream));
  PetscCallCUDA(cudaFreeAsync(ta, stream));
  PetscCallCUDA(cudaFreeAsync(dfault, stream));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New values of the same pattern into T (from A's device CSR); checked on the device before anything is written. */
PetscErrorCode SFPCTriangleSetValues_Device(SFPCTriDevice T, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool lower, PetscBool unit)
{
  cudaStream_t        stream;
  unsigned long long *dfault, none = ~0ULL;
  PetscErrorCode      ierr;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&dfault, sizeof(*dfault), stream));
  PetscCallCUDA(cudaMemcpyAsync(dfault, &none, sizeof(none), cudaMemcpyHostToDevice, stream));
  PetscCall(LaunchFill(T->n, T->nnz, ai, aj, aa, lower, unit, T->i, T->j, T->a, true, false, dfault, stream));
  ierr = FaultCheck(dfault, stream);
  if (!ierr) ierr = LaunchFill(T->n, T->nnz, ai, aj, aa, lower, unit, T->i, T->j, T->a, true, true, dfault, stream);
  if (!ierr) ierr = SFPCTriDeviceValuesChanged(T);
  PetscCallCUDA(cudaFreeAsync(dfault, stream));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
