/*
   The global multicolor DILU across ranks (-pc_sfdilu_parallel) on the GPU, for MPIAIJCUSPARSE
   (and SEQAIJCUSPARSE) matrices: the host reference (dilu_global.c) color by color, one kernel
   per color over that color's local rows, with the ghost values exchanged by the same PetscSFs,
   on device memory, where the host exchanges them: the kernel of a color's rows with no ghost
   neighbour is queued between the start and the end of the exchange, so it runs while the host
   waits for MPI (this MPI stages device data through the host).

   The JPL rounds run here, one kernel per round on the rows' pattern (uploaded once per pattern),
   the ghosts' colors brought by the halo PetscSF; the host then squeezes the colors and builds
   the per-entry metadata (column colors, the rows by color), uploaded once. Per set of values, a_ij and a_ji
   come from A's device value arrays (positions found once, SFDILUGlobalValueSources()); the a_ji
   of ghost columns, which live in other ranks' off-diagonal blocks, come through a PetscSF on
   device memory. No A^T and nothing of the matrix on the host.

   One thread per row sums the row's entries in the host's order with separately rounded
   operations (no fused multiply-add), so E and the applies are bitwise the host's.
*/
#include <petscdevice_cuda.h>
#include <cuda/atomic>
#include <sfpc/private/sfdevice.cuh>
#include "dilu_global.h"
#include <sfpc/private/pivot.h>

struct _n_SFDILUGlobalDevice {
  int         *ai, *where, *ccolor, *order; /* the host's metadata (dilu_global.h) */
  int         *srca, *srct;                 /* where a_ij and a_ji are in A's value arrays (SFDILUGlobalValueSources()) */
  PetscScalar *aa, *at, *einv, *z;
  PetscSF      tsf;   /* a_ji of ghost columns, from their owners' off-diagonal blocks */
  PetscScalar *ghost; /* the ghost values */
};

namespace
{
const int TPB = 256;

/*
   One JPL round over the local rows (sfdilu.h's rule on global rows, ColorRounds_Host()'s loop).
   Rows colored in this round may be read by their neighbours in the same round: either value
   still competes, so the outcome does not depend on the order (relaxed atomics keep it a
   well-defined read).
*/
__global__ void JPLRound(int n, int rstart, const int *__restrict__ ai, const int *__restrict__ where, const int *__restrict__ garray, const int *__restrict__ gcolor, int *color, int round, unsigned seed, int *colored)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || cuda::atomic_ref<int, cuda::thread_scope_device>(color[i]).load(cuda::memory_order_relaxed) >= 0) return;
  const int      row   = rstart + i;
  const unsigned hr    = SFDILUHash((unsigned)row, seed);
  int            ismax = 1, ismin = 1;
  for (int k = ai[i]; k < ai[i + 1]; k++) {
    const int w  = where[k];
    const int cc = w >= 0 ? cuda::atomic_ref<int, cuda::thread_scope_device>(color[w]).load(cuda::memory_order_relaxed) : gcolor[-(1 + w)];
    SFDILUVisit(row, hr, w >= 0 ? rstart + w : garray[-(1 + w)], cc, round, seed, &ismax, &ismin);
  }
  if (ismax || ismin) {
    cuda::atomic_ref<int, cuda::thread_scope_device>(color[i]).store(2 * round + (ismax ? 0 : 1), cuda::memory_order_relaxed);
    sfpc::AtomicAddWarp(colored, 1);
  }
}

/* a_ij and the local a_ji; the ghost a_ji are the SF's (at's other entries stay 0 from the upload). */
__global__ void GatherValues(int nnz, const int *__restrict__ srca, const int *__restrict__ srct, const double *__restrict__ da, const double *__restrict__ oa, double *aa, double *at)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  const int sa = srca[k], st = srct[k];
  aa[k] = sa >= 0 ? da[sa] : (sa <= -2 ? oa[-2 - sa] : 0.0);
  if (st >= 0) at[k] = da[st];
}

__device__ __forceinline__ double Value(int w, const double *__restrict__ local, const double *__restrict__ ghost)
{
  return w >= 0 ? local[w] : ghost[-(1 + w)];
}

/*
   E of the rows of color c (positions q0 .. q1 of order), SFDILUSetUp_Global()'s loop: failures
   give the first failing global row (found[0]) and the first Inf/NaN one (found[1]); rmax is the
   largest row sum of |A| as bits (nonnegative doubles order like them; NaN sums are skipped as the
   host's PetscMax() skips them).
*/
__global__ void DiagonalColor(int q0, int q1, int c, int rstart, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ where, const int *__restrict__ ccolor, const double *__restrict__ aa, const double *__restrict__ at, const double *__restrict__ ghost, double shift, double zeropivot, double *einv, int *found, unsigned long long *rmax)
{
  const int q = q0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= q1) return;
  const int i = order[q];
  double    e = shift, rowsum = 0;
  for (int k = ai[i]; k < ai[i + 1]; k++) rowsum = __dadd_rn(rowsum, fabs(aa[k]));
  sfpc::AtomicMaxWarp(rmax, isnan(rowsum) ? 0ULL : (unsigned long long)__double_as_longlong(rowsum));
  for (int k = ai[i]; k < ai[i + 1]; k++) {
    const int w = where[k];
    if (w == i) e = __dadd_rn(e, aa[k]);
    else if (ccolor[k] < c && at[k] != 0.0) e = __dsub_rn(e, __dmul_rn(__dmul_rn(aa[k], Value(w, einv, ghost)), at[k]));
  }
  const bool nonfinite = !isfinite(rowsum) || !isfinite(e);
  if (!isfinite(rowsum) || SFPCPivotFails(e, zeropivot * rowsum, 0)) {
    atomicMin(found, rstart + i);
    if (nonfinite) atomicMin(found + 1, rstart + i);
  } else einv[i] = __ddiv_rn(1.0, e);
}

/* z_i = (r_i - sum_{color j < c} a_ij z_j) / E_i over the rows of color c. */
__global__ void ForwardColor(int q0, int q1, int c, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ where, const int *__restrict__ ccolor, const double *__restrict__ aa, const double *__restrict__ einv, const double *__restrict__ r, const double *__restrict__ ghost, double *z)
{
  const int q = q0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= q1) return;
  const int i = order[q];
  double    t = r[i];
  for (int k = ai[i]; k < ai[i + 1]; k++)
    if (ccolor[k] < c) t = __dsub_rn(t, __dmul_rn(aa[k], Value(where[k], z, ghost)));
  z[i] = __dmul_rn(t, einv[i]);
}

/* y_i = z_i - (sum_{color j > c} a_ij y_j) / E_i over the rows of color c. */
__global__ void BackwardColor(int q0, int q1, int c, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ where, const int *__restrict__ ccolor, const double *__restrict__ aa, const double *__restrict__ einv, const double *__restrict__ z, const double *__restrict__ ghost, double *y)
{
  const int q = q0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= q1) return;
  const int i = order[q];
  double    t = 0;
  for (int k = ai[i]; k < ai[i + 1]; k++)
    if (ccolor[k] > c) t = __dadd_rn(t, __dmul_rn(aa[k], Value(where[k], y, ghost)));
  y[i] = __dsub_rn(z[i], __dmul_rn(einv[i], t));
}
} // namespace

/* Device copy of a host PetscInt array (32-bit PetscInt: the same bits as int). */
static PetscErrorCode UploadInts(const PetscInt *h, PetscInt n, int **d, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(d, sizeof(int) * PetscMax(n, 1), stream));
  if (n) PetscCallCUDA(cudaMemcpyAsync(*d, h, sizeof(int) * n, cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The device side and the rows' pattern (row offsets, where each entry's column lies), once per pattern: by the JPL rounds, or after the grid coloring. */
static PetscErrorCode UploadRows(SFDILUGlobal G, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (G->dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU PCSFDILU needs 32-bit PetscInt");
  PetscCall(PetscNew(&G->dev));
  PetscCall(UploadInts(G->ai, G->n + 1, &G->dev->ai, stream));
  PetscCall(UploadInts(G->where, G->nnz, &G->dev->where, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* JPL rounds on the device (the rows' pattern uploaded first); color[] as ColorRounds_Host() leaves it, bitwise. */
PetscErrorCode SFDILUGlobalColorRounds_Device(SFDILU *s, SFDILUGlobal G, MPI_Comm comm, PetscInt color[], PetscInt *rounds)
{
  SFDILUGlobalDevice D;
  int               *garray, *dcolor, *gcolor, *dcolored;
  PetscInt           left, round = 0;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(UploadRows(G, stream));
  D = G->dev;
  PetscCall(UploadInts(G->garray, G->nghost, &garray, stream));
  PetscCallCUDA(cudaMallocAsync(&dcolor, sizeof(int) * PetscMax(G->n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&gcolor, sizeof(int) * PetscMax(G->nghost, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dcolored, sizeof(int), stream));
  PetscCallCUDA(cudaMemsetAsync(dcolor, 0xff, sizeof(int) * PetscMax(G->n, 1), stream)); /* -1: uncolored */
  PetscCallMPI(MPIU_Allreduce(&G->n, &left, 1, MPIU_INT, MPI_SUM, comm));
  for (; left > 0; round++) { /* the largest (hash, row) left anywhere wins: at least one row per round */
    int      colored;
    PetscInt all;
    PetscCall(SFDILUGlobalExchange(G->halo, MPIU_INT, PETSC_MEMTYPE_CUDA, dcolor, gcolor));
    PetscCallCUDA(cudaMemsetAsync(dcolored, 0, sizeof(int), stream));
    if (G->n) JPLRound<<<sfpc::LaunchBlocks(G->n, TPB), TPB, 0, stream>>>((int)G->n, (int)G->rstart, D->ai, D->where, garray, gcolor, dcolor, (int)round, (unsigned)s->seed, dcolored);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(&colored, dcolored, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCallMPI(MPIU_Allreduce(&colored, &all, 1, MPIU_INT, MPI_SUM, comm)); /* int into PetscInt: 32-bit PetscInt checked above */
    left -= all;
  }
  if (G->n) PetscCallCUDA(cudaMemcpyAsync(color, dcolor, sizeof(int) * G->n, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dcolored, stream));
  PetscCallCUDA(cudaFreeAsync(gcolor, stream));
  PetscCallCUDA(cudaFreeAsync(dcolor, stream));
  PetscCallCUDA(cudaFreeAsync(garray, stream));
  *rounds = round;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Once per pattern, after the coloring: the rows' pattern where the grid coloring did not upload it, the rest of the metadata, where the values lie in A, the ghost buffer. */
PetscErrorCode SFDILUGlobalUpload_Device(SFDILU *s, Mat A)
{
  SFDILUGlobal       G = s->glob;
  SFDILUGlobalDevice D;
  PetscInt          *srca, *srct;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(UploadRows(G, stream));
  D = G->dev;
  PetscCall(PetscMalloc2(PetscMax(G->nnz, 1), &srca, PetscMax(G->nnz, 1), &srct));
  PetscCall(SFDILUGlobalValueSources(G, A, srca, srct, &D->tsf));
  PetscCall(UploadInts(G->ccolor, G->nnz, &D->ccolor, stream));
  PetscCall(UploadInts(G->order, G->n, &D->order, stream));
  PetscCall(UploadInts(srca, G->nnz, &D->srca, stream));
  PetscCall(UploadInts(srct, G->nnz, &D->srct, stream));
  PetscCallCUDA(cudaMallocAsync(&D->aa, sizeof(PetscScalar) * PetscMax(G->nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->at, sizeof(PetscScalar) * PetscMax(G->nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->einv, sizeof(PetscScalar) * PetscMax(G->n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->z, sizeof(PetscScalar) * PetscMax(G->n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&D->ghost, sizeof(PetscScalar) * PetscMax(G->nghost, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(D->at, 0, sizeof(PetscScalar) * PetscMax(G->nnz, 1), stream)); /* entries no one fills: A lacks a_ji */
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the host arrays are freed below */
  PetscCall(PetscFree2(srca, srct));
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* E of A + shift I color by color on the device, SFDILUSetUp_Global()'s formulas, exchanges and failure rules. */
PetscErrorCode SFDILUSetUp_GlobalDevice(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  SFDILUGlobal        G = s->glob;
  SFDILUGlobalDevice  D = G->dev;
  Mat                 Ad = A, Ao = NULL;
  const PetscInt     *colmap;
  const PetscScalar  *da, *oa = NULL;
  PetscBool           ismpi;
  cudaStream_t        stream;
  int                 found[2] = {PETSC_INT_MAX, PETSC_INT_MAX}, *dfound;
  unsigned long long  bits = 0, *dbits;
  PetscInt            fail[2];
  PetscReal           lmax;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &colmap));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(Ad, &da));
  if (Ao) PetscCall(MatSeqAIJCUSPARSEGetArrayRead(Ao, &oa));
  PetscCall(PetscLogGpuTimeBegin());
  if (G->nnz) GatherValues<<<sfpc::LaunchBlocks(G->nnz, TPB), TPB, 0, stream>>>((int)G->nnz, D->srca, D->srct, da, oa, D->aa, D->at);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscSFBcastWithMemTypeBegin(D->tsf, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, oa, PETSC_MEMTYPE_CUDA, D->at, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(D->tsf, MPIU_SCALAR, oa, D->at, MPI_REPLACE));
  if (Ao) PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(Ao, &oa));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(Ad, &da));

  PetscCallCUDA(cudaMallocAsync(&dfound, sizeof(found), stream));
  PetscCallCUDA(cudaMallocAsync(&dbits, sizeof(bits), stream));
  PetscCallCUDA(cudaMemcpyAsync(dfound, found, sizeof(found), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemsetAsync(dbits, 0, sizeof(bits), stream));
  PetscCallCUDA(cudaMemsetAsync(D->einv, 0, sizeof(PetscScalar) * PetscMax(G->n, 1), stream)); /* a failed E_i stays 0, as on the host */
  for (PetscInt c = 0, part = 0; c < s->ncolors; part = !part, c += !part) { /* each color in its two parts */
    PetscInt q0, q1;
    PetscCall(SFDILUGlobalColorPart(G, s->ncolors, c, PETSC_TRUE, part, PETSC_MEMTYPE_CUDA, D->einv, D->ghost, &q0, &q1));
    PetscCall(PetscLogGpuTimeBegin());
    if (q1 > q0) DiagonalColor<<<sfpc::LaunchBlocks(q1 - q0, TPB), TPB, 0, stream>>>((int)q0, (int)q1, (int)c, (int)G->rstart, D->order, D->ai, D->where, D->ccolor, D->aa, D->at, D->ghost, (double)shift, (double)s->zeropivot, D->einv, dfound, dbits);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
  }
  PetscCallCUDA(cudaMemcpyAsync(found, dfound, sizeof(found), cudaMemcpyDeviceToHost, stream)); /* the set-up's one wait: PETSc needs the outcome */
  PetscCallCUDA(cudaMemcpyAsync(&bits, dbits, sizeof(bits), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(dfound, stream));
  PetscCallCUDA(cudaFreeAsync(dbits, stream));
  memcpy(&lmax, &bits, sizeof(double));
  fail[0] = found[0];
  fail[1] = found[0] != PETSC_INT_MAX && found[1] == found[0];
  PetscCall(SFDILUGlobalAgree(s, PetscObjectComm((PetscObject)A), fail, lmax, rmax));
  PetscCall(PetscLogGpuFlops(3.0 * G->nnz));
  PetscCall(PetscLogEventEnd(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M^{-1} r (M^{-T} r: a_ji for a_ij) on local device arrays, SFDILUApply_Global()'s sweeps and exchanges; z is a device work array. */
PetscErrorCode SFDILUApply_GlobalDevice(SFDILU *s, PetscBool transpose, const PetscScalar *r, PetscScalar *y)
{
  SFDILUGlobal       G = s->glob;
  SFDILUGlobalDevice D = G->dev;
  const PetscScalar *a = transpose ? D->at : D->aa;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (G->n) {
    PetscCallCUDA(cudaMemsetAsync(D->z, 0, sizeof(PetscScalar) * G->n, stream));
    PetscCallCUDA(cudaMemsetAsync(y, 0, sizeof(PetscScalar) * G->n, stream));
  }
  for (PetscInt c = 0, part = 0; c < s->ncolors; part = !part, c += !part) { /* each color in its two parts */
    PetscInt q0, q1;
    PetscCall(SFDILUGlobalColorPart(G, s->ncolors, c, PETSC_TRUE, part, PETSC_MEMTYPE_CUDA, D->z, D->ghost, &q0, &q1));
    PetscCall(PetscLogGpuTimeBegin());
    if (q1 > q0) ForwardColor<<<sfpc::LaunchBlocks(q1 - q0, TPB), TPB, 0, stream>>>((int)q0, (int)q1, (int)c, D->order, D->ai, D->where, D->ccolor, a, D->einv, r, D->ghost, D->z);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
  }
  for (PetscInt c = s->ncolors - 1, part = 0; c >= 0; part = !part, c -= !part) { /* each color in its two parts */
    PetscInt q0, q1;
    PetscCall(SFDILUGlobalColorPart(G, s->ncolors, c, PETSC_FALSE, part, PETSC_MEMTYPE_CUDA, y, D->ghost, &q0, &q1));
    PetscCall(PetscLogGpuTimeBegin());
    if (q1 > q0) BackwardColor<<<sfpc::LaunchBlocks(q1 - q0, TPB), TPB, 0, stream>>>((int)q0, (int)q1, (int)c, D->order, D->ai, D->where, D->ccolor, a, D->einv, D->z, D->ghost, y);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogGpuTimeEnd());
  }
  PetscCall(PetscLogGpuFlops(2.0 * G->nnz + 2.0 * G->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUGlobalReset_Device(SFDILUGlobal G)
{
  SFDILUGlobalDevice D = G->dev;
  cudaStream_t       stream;

  PetscFunctionBegin;
  if (!D) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  { /* an upload that failed half way leaves some unallocated */
    void *arrays[] = {D->ai, D->where, D->ccolor, D->order, D->srca, D->srct, D->aa, D->at, D->einv, D->z, D->ghost};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
      if (arrays[k]) PetscCallCUDA(cudaFreeAsync(arrays[k], stream));
  }
  PetscCall(PetscSFDestroy(&D->tsf));
  PetscCall(PetscFree(G->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
