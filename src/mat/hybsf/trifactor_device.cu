/*
   The device factor object of the sync-free engine: its pattern (copied from the user's
   device CSR and checked there), its schedules, and the epoch and ticket counters that let
   every sweep start without clearing anything.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>

namespace
{
/* Locates diagonals; reports the first bad row as 4*row + kind (0 missing diagonal, 1 unsorted, 2 column out of range). */
__global__ void PatternKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, int *ad, unsigned long long *bad)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int d = -1, kind = -1;
  for (int k = ai[r]; k < ai[r + 1]; k++) {
    const int c = aj[k];
    if (c < 0 || c >= n) kind = 2;
    else if (k > ai[r] && aj[k - 1] >= c) kind = 1;
    if (c == r) d = k;
  }
  if (kind < 0 && d < 0) kind = 0;
  ad[r] = d;
  if (kind >= 0) atomicMin(bad, 4ULL * (unsigned long long)r + (unsigned long long)kind);
}

__global__ void FillSentinelKernel(int n, double *x)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) sfpc::ResetValue(x, r);
}
} // namespace

/*
   How many warps a sweep keeps on each SM. Every warp that waits polls L2: too many slow down the
   rows they wait for, too few leave latency uncovered. Measured on an H200 (bench/results):
   16-32 per SM is best for the solves of 3-D stencils; all 64 per SM made the analysis 70x slower.
*/
PetscErrorCode SFPCTriDeviceSetWarpsPerSM(SFPCTriDevice T, PetscInt wps)
{
  int dev, sms;

  PetscFunctionBegin;
  PetscCheck(wps >= 1 && wps <= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Warps per SM must be in [1, 64], not %" PetscInt_FMT, wps);
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  T->resident = (int)(sms * PetscMax(wps, SFPC_WARPS_PER_BLOCK));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriDeviceBeginSweep(SFPCTriDevice T, PetscInt ntasks, int *blocks, int *epoch, unsigned long long *base)
{
  PetscFunctionBegin;
  *blocks = (int)PetscMin((ntasks + SFPC_WARPS_PER_BLOCK - 1) / SFPC_WARPS_PER_BLOCK, T->resident / SFPC_WARPS_PER_BLOCK);
  if (T->epoch == PETSC_INT_MAX) { /* after 2^31 sweeps start over: the only time flags are cleared */
    cudaStream_t stream;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemsetAsync(T->flags, 0, sizeof(int) * T->n, stream));
    T->epoch = 0;
  }
  *epoch = ++T->epoch;
  *base  = T->ticketbase;
  T->ticketbase += (unsigned long long)ntasks + (unsigned long long)(*blocks) * SFPC_WARPS_PER_BLOCK; /* one ticket per task, and one past the end per warp */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Builds the engine's factor for the n x n pattern (ai, aj), given in device memory: copies it,
   checks it on the device (sorted columns, diagonal present) and analyses L and U, sweeping with
   warps_per_sm warps per SM (SFPC_DEFAULT_WARPS_PER_SM when unsure).
   Errors, before anything is kept, like the host SFPCTriFactorCreateFromCSR().
*/
PetscErrorCode SFPCTriDeviceCreate(PetscInt n, const PetscInt *ai, const PetscInt *aj, PetscInt warps_per_sm, SFPCTriDevice *out)
{
  SFPCTriDevice      T;
  cudaStream_t       stream;
  unsigned long long bad = ~0ULL, *dbad;
  const int          tpb = 256;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "The SFPC device engine needs 32-bit PetscInt");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscNew(&T));
  T->n = n;
  PetscCallCUDA(cudaMemcpyAsync(&T->nnz, ai + n, sizeof(PetscInt), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaMalloc(&T->i, sizeof(int) * (n + 1)));
  PetscCallCUDA(cudaMalloc(&T->j, sizeof(int) * PetscMax(T->nnz, 1)));
  PetscCallCUDA(cudaMalloc(&T->diag, sizeof(int) * PetscMax(n, 1)));
  PetscCallCUDA(cudaMalloc(&T->a, sizeof(PetscScalar) * PetscMax(T->nnz, 1)));
  PetscCallCUDA(cudaMalloc(&T->flags, sizeof(int) * PetscMax(n, 1)));
  PetscCallCUDA(cudaMalloc(&T->counter, sizeof(unsigned long long)));
  PetscCallCUDA(cudaMalloc(&T->z, sizeof(PetscScalar) * PetscMax(n, 1)));
  PetscCallCUDA(cudaMalloc(&T->report, 2 * sizeof(int)));
  if (n > 0) FillSentinelKernel<<<(int)((n + tpb - 1) / tpb), tpb, 0, stream>>>((int)n, T->z);
  PetscCall(SFPCTriDeviceSetWarpsPerSM(T, warps_per_sm));
  PetscCallCUDA(cudaMemcpyAsync(T->i, ai, sizeof(int) * (n + 1), cudaMemcpyDeviceToDevice, stream));
  PetscCallCUDA(cudaMemcpyAsync(T->j, aj, sizeof(int) * T->nnz, cudaMemcpyDeviceToDevice, stream));
  PetscCallCUDA(cudaMemsetAsync(T->flags, 0, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(T->counter, 0, sizeof(unsigned long long), stream));

  PetscCallCUDA(cudaMalloc(&dbad, sizeof(unsigned long long)));
  PetscCallCUDA(cudaMemcpyAsync(dbad, &bad, sizeof(bad), cudaMemcpyHostToDevice, stream));
  if (n > 0) PatternKernel<<<(int)((n + tpb - 1) / tpb), tpb, 0, stream>>>((int)n, T->i, T->j, T->diag, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&bad, dbad, sizeof(bad), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(dbad));
  if (bad != ~0ULL) {
    const PetscInt r = (PetscInt)(bad / 4), kind = (PetscInt)(bad % 4);
    PetscCall(SFPCTriDeviceDestroy(&T));
    PetscCheck(kind != 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " has a column index outside [0, %" PetscInt_FMT ")", r, n);
    PetscCheck(kind != 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Columns of row %" PetscInt_FMT " are not sorted and unique", r);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix is missing diagonal entry in row %" PetscInt_FMT " (insert an explicit zero there, and use a shift, to factor it)", r);
  }
  if (n > 0) {
    PetscCall(SFPCScheduleBuild(T, PETSC_TRUE, &T->lower));
    PetscCall(SFPCScheduleBuild(T, PETSC_FALSE, &T->upper));
  }
  *out = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFPCScheduleFree(SFPCSchedule *S)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(S->order));
  PetscCallCUDA(cudaFree(S->start));
  PetscCallCUDA(cudaFree(S->vec));
  PetscCall(PetscMemzero(S, sizeof(*S)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriDeviceDestroy(SFPCTriDevice *T)
{
  PetscFunctionBegin;
  if (!*T) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree((*T)->i));
  PetscCallCUDA(cudaFree((*T)->j));
  PetscCallCUDA(cudaFree((*T)->diag));
  PetscCallCUDA(cudaFree((*T)->a));
  PetscCallCUDA(cudaFree((*T)->flags));
  PetscCallCUDA(cudaFree((*T)->counter));
  PetscCallCUDA(cudaFree((*T)->z));
  PetscCallCUDA(cudaFree((*T)->report));
  PetscCall(SFPCScheduleFree(&(*T)->lower));
  PetscCall(SFPCScheduleFree(&(*T)->upper));
  PetscCall(PetscFree(*T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriDeviceBytes(SFPCTriDevice T, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  /* pattern and values, diagonals, flags, two row orders, the solve work vector, and per task a start and a vector size */
  *bytes = (PetscLogDouble)T->nnz * (sizeof(int) + sizeof(PetscScalar)) + (PetscLogDouble)(T->n + 1) * sizeof(int) + (PetscLogDouble)T->n * (4 * sizeof(int) + sizeof(PetscScalar)) + (PetscLogDouble)(T->lower.ntasks + T->upper.ntasks + 2) * (sizeof(int) + 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}
