/*
   Sync-free triangular solves over the engine's factor, no barrier between levels.

   csr layout (Freire's multirow SpTRSV_mr, shared/seeds/001 section 4.1): each warp takes a
   task by ticket, splits into vectors of vec lanes, one row each; a lane waits for each unknown
   it needs, the vector reduces, and its first lane publishes the row.

   hyb layout (section 4.2.1, hyblayout.cu): the same arithmetic, but a task's rows, columns and
   values come from its slab with coalesced loads, and tasks are assigned statically (warp g
   takes tasks g, g + W, g + 2W, ...), so a warp loads its next task while it waits on the
   current one. Static assignment is deadlock-free only when every warp is resident at once,
   which a cooperative launch guarantees (or refuses to launch): the lowest unfinished task
   then depends only on finished tasks and its warp is running it.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>
#include <climits>

/*
   Entries a lane of the csr sweeps (and of a hyb row past 32 entries) loads before its first wait
   (sfpc::WaitedDot()). 1: entry by entry; 4 changed nothing on the permuted 7-point 128^3 (csr, 0.373 against
   0.375 ms) and the rows of Q1 elasticity (hyb with tails, 3.78 against 3.71 ms; H100, bench/README.md), whose
   lanes have one or two entries each.
*/
#ifndef SFPC_CSR_PRELOAD
  #define SFPC_CSR_PRELOAD 1
#endif

namespace
{
__device__ __forceinline__ bool NoneAside(int, double)
{
  return false;
}

/* Row r's right-hand side: b[r], or with GATHER (an L sweep of SFPCTriDeviceSolveGathered()) b[perm[r]]. */
template <bool GATHER>
__device__ __forceinline__ double RightHandSide(const double *b, const int *perm, int r)
{
  return b[GATHER ? perm[r] : r];
}

/*
   LOWER: x = L^{-1} b over the entries left of the diagonal; UPPER: over the entries right of it.
   The diagonal slot holds the inverse diagonal; UNIT sweeps do not read it.
   x must hold the sentinel on entry. When reset is given, each row, once done, sets reset[r] to
   the sentinel, which readies the other sweep's output (in an LU solve, L resets the U output, U
   its own input) so that no pass over memory is needed between applies.
*/
template <bool LOWER, bool UNIT, bool GATHER>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) CSRSolveKernel(const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, SFPCSchedule S, const double *b, const int *perm, double *x, double *reset, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31;
  for (long long w; (w = sfpc::TakeTask(counter, base)) < S.ntasks;) {
    const int  s = S.vec[w], t = lane & (s - 1);
    const int  p      = S.start[w] + lane / s;
    const bool active = p < S.start[w + 1];
    int        r      = 0;
    double     sum    = 0;

    if (active) {
      r            = S.order[p];
      const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
      sum          = sfpc::WaitedDot<SFPC_CSR_PRELOAD, SFPC_POLL_SLEEP_NS>(0.0, aj, a, kb + t, ke, s, x, NoneAside);
    }
    sum = sfpc::VectorSum(sum, s);
    if (active && t == 0) {
      const double br = RightHandSide<GATHER>(b, perm, r);
      if (reset) sfpc::ResetValue(reset, r); /* after reading b: in the U sweep of an LU solve reset is b */
      sfpc::PublishValue(x, r, UNIT ? br - sum : (br - sum) * a[ad[r]]);
    }
  }
}

/* What a lane needs of its task before waiting: read together, and a task ahead of use. */
struct HybSlot {
  int    s;   /* lanes per row in this task */
  int    col; /* -1: padding */
  int    r;   /* the lane's row, -1 past the task's rows */
  double val;
};

__device__ __forceinline__ HybSlot LoadSlot(const SFPCSchedule &S, int w, int lane)
{
  const long long k = 32LL * w + lane;
  return HybSlot{sfpc::LoadOnce(S.vec + w), sfpc::LoadOnce(S.cols + k), sfpc::LoadOnce(S.rows + k), sfpc::LoadOnce(S.vals + k)};
}

/*
   Where a sweep also stores its result (the U sweep of SFPCTriDeviceSolveGathered(): sfdilu's scatter back to natural
   order): y[scatter[r]] = omega x[r] (scatter NULL: y[r]); y NULL: nowhere.
*/
struct SweepOut {
  const int *scatter;
  double     omega;
  double    *y;
};

template <bool LOWER, bool UNIT, bool GATHER>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) HybSolveKernel(const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, SFPCSchedule S, const double *b, const int *perm, double *x, double *reset, SweepOut out)
{
  const int lane = threadIdx.x & 31, nw = gridDim.x * SFPC_WARPS_PER_BLOCK;
  int       w    = blockIdx.x * SFPC_WARPS_PER_BLOCK + threadIdx.x / 32;
  if (w >= S.ntasks) return;
  HybSlot cur = LoadSlot(S, w, lane), next = cur;
  bool    head = cur.r >= 0 && (lane & (cur.s - 1)) == 0; /* the lane that publishes its row */
  double  br   = head ? RightHandSide<GATHER>(b, perm, cur.r) : 0, di = 1;
  int     q    = 0; /* where out.y takes the row: loaded with its right-hand side, so that no load holds the warp after it publishes */
  if (!UNIT && head) di = S.dinv[cur.r];
  if (out.y && head) q = out.scatter ? sfpc::LoadOnce(out.scatter + cur.r) : cur.r;

  for (; w < S.ntasks; w += nw) {
    if (w + nw < S.ntasks) next = LoadSlot(S, w + nw, lane);
    double sum = cur.col >= 0 ? cur.val * sfpc::WaitValue(x, cur.col) : 0;
    if (cur.s == 32) { /* one row; past 32 entries it continues in the CSR */
      const int r = __shfl_sync(0xffffffffu, cur.r, 0), kb = (LOWER ? ai[r] : ad[r] + 1) + 32, ke = LOWER ? ad[r] : ai[r + 1];
      sum = sfpc::WaitedDot<SFPC_CSR_PRELOAD, SFPC_POLL_SLEEP_NS>(sum, aj, a, kb + lane, ke, 32, x, NoneAside);
    }
    sum = sfpc::VectorSum(sum, cur.s);
    if (head) {
      const double v = UNIT ? br - sum : (br - sum) * di;
      if (reset) sfpc::ResetValue(reset, cur.r);
      sfpc::PublishValue(x, cur.r, v);
      if (out.y) out.y[q] = out.omega * v;
    }
    cur  = next;
    head = cur.r >= 0 && (lane & (cur.s - 1)) == 0;
    if (head) { /* the next row's right-hand side, in flight while it waits */
      br = RightHandSide<GATHER>(b, perm, cur.r);
      if (!UNIT) di = S.dinv[cur.r];
      if (out.y) q = out.scatter ? sfpc::LoadOnce(out.scatter + cur.r) : cur.r;
    }
  }
}

__global__ void FillSentinelKernel(int n, double *x)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) sfpc::ResetValue(x, r);
}

template <bool LOWER, bool UNIT, bool GATHER>
PetscErrorCode Sweep(SFPCTriDevice T, const SFPCSchedule &S, const PetscScalar *b, const int *perm, PetscScalar *x, PetscScalar *reset, cudaStream_t stream, SweepOut out)
{
  PetscFunctionBegin;
  PetscCheck(!out.y || (!T->blocks.use[LOWER ? 0 : 1] && S.layout == SFPC_LAYOUT_HYB), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Only a hyb sweep stores its result through a permutation");
  if (T->blocks.use[LOWER ? 0 : 1]) PetscCall(SFPCBlockSweep_Device(T, (PetscBool)LOWER, b, x, reset, stream));
  else if (S.layout == SFPC_LAYOUT_GRID) PetscCall(SFPCGridSweep_Device(T, (PetscBool)LOWER, b, x, reset, stream));
  else if (S.layout == SFPC_LAYOUT_HYB) {
    const int    blocks = PetscMin(PetscMin((S.ntasks + SFPC_WARPS_PER_BLOCK - 1) / SFPC_WARPS_PER_BLOCK, S.solve_resident / SFPC_WARPS_PER_BLOCK), T->hybblocks);
    const int   *ai = T->i, *aj = T->j, *ad = T->diag;
    const double *a = T->a;
    void        *args[] = {(void *)&ai, (void *)&aj, (void *)&ad, (void *)&a, (void *)&S, (void *)&b, (void *)&perm, (void *)&x, (void *)&reset, (void *)&out};
    PetscCallCUDA(cudaLaunchCooperativeKernel((const void *)HybSolveKernel<LOWER, UNIT, GATHER>, blocks, 32 * SFPC_WARPS_PER_BLOCK, args, 0, stream));
  } else {
    int                blocks;
    unsigned long long base;
    PetscCall(SFPCTriDeviceTakeTickets(T, S.ntasks, S.solve_resident, &blocks, &base));
    CSRSolveKernel<LOWER, UNIT, GATHER><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(T->i, T->j, T->diag, T->a, S, b, perm, x, reset, T->counter, base);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* perm: an L sweep that gathers b (SFPCTriDeviceSolveGathered()); the U sweeps never do, so no gathering U kernel is built. out: see SweepOut. */
template <bool LOWER>
PetscErrorCode Sweep(SFPCTriDevice T, const PetscScalar *b, PetscScalar *x, PetscScalar *reset, cudaStream_t stream, const int *perm = NULL, SweepOut out = SweepOut{NULL, 1.0, NULL})
{
  const SFPCSchedule &S = LOWER ? T->lower : T->upper;

  PetscFunctionBegin;
  PetscCheck(LOWER || !perm, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Only the L sweep gathers its right-hand side");
  if (perm) {
    if (S.unit) PetscCall(Sweep<LOWER, true, LOWER>(T, S, b, perm, x, reset, stream, out));
    else PetscCall(Sweep<LOWER, false, LOWER>(T, S, b, perm, x, reset, stream, out));
  } else {
    if (S.unit) PetscCall(Sweep<LOWER, true, false>(T, S, b, NULL, x, reset, stream, out));
    else PetscCall(Sweep<LOWER, false, false>(T, S, b, NULL, x, reset, stream, out));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = U^{-1} L^{-1} b, the L sweep reading b[perm[r]] where perm is given, the U sweep storing out (SweepOut): b -> z (L), z -> x (U); T->z holds the sentinel between applies, and the L sweep sets x to it */
PetscErrorCode LUSolve(SFPCTriDevice T, const int *perm, const PetscScalar *b, PetscScalar *x, SweepOut out = SweepOut{NULL, 1.0, NULL})
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(Sweep<true>(T, b, T->z, x, stream, perm));
  PetscCall(Sweep<false>(T, T->z, x, T->z, stream, NULL, out));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->nnz + (out.y && out.omega != 1.0 ? T->n : 0)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* Blocks per SM at which every hyb solve kernel is resident (the cap of their cooperative launches). */
PetscErrorCode SFPCHybBlocksPerSM(int *blocks)
{
  const void *kernels[] = {(const void *)HybSolveKernel<true, true, false>, (const void *)HybSolveKernel<true, false, false>, (const void *)HybSolveKernel<false, true, false>,
                           (const void *)HybSolveKernel<false, false, false>, (const void *)HybSolveKernel<true, true, true>, (const void *)HybSolveKernel<true, false, true>};

  PetscFunctionBegin;
  *blocks = INT_MAX;
  for (const void *k : kernels) {
    int b;
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 32 * SFPC_WARPS_PER_BLOCK, 0));
    *blocks = PetscMin(*blocks, b);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = U^{-1} L^{-1} b on the device; b and x are device arrays and may be the same (b is read before x is touched). */
PetscErrorCode SFPCTriDeviceSolve(SFPCTriDevice T, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(T->opt.lower && T->opt.upper, PETSC_COMM_SELF, PETSC_ERR_PLIB, "LU solve of an engine factor without both sweeps");
  PetscCall(LUSolve(T, NULL, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether SFPCTriDeviceSolveGathered() can run on T: an LU factor whose L sweep is csr or hyb (the grid and point-block sweeps read b in T's numbering only). */
PetscBool SFPCTriDeviceCanGather(SFPCTriDevice T)
{
  return (PetscBool)(T->opt.lower && T->opt.upper && !T->blocks.use[0] && (T->lower.layout == SFPC_LAYOUT_CSR || T->lower.layout == SFPC_LAYOUT_HYB));
}

/* Whether SFPCTriDeviceSolveGathered() can also scatter: it can gather, and the U sweep is hyb (not by point-blocks). */
PetscBool SFPCTriDeviceCanScatter(SFPCTriDevice T)
{
  return (PetscBool)(SFPCTriDeviceCanGather(T) && !T->blocks.use[1] && T->upper.layout == SFPC_LAYOUT_HYB);
}

/*
   x = U^{-1} L^{-1} P b with (P b)[r] = b[perm[r]]: the L sweep gathers its right-hand side (trifactor_device.h); b and x
   distinct. With y (SFPCTriDeviceCanScatter()), the U sweep also stores y[scatter[r]] = omega x[r] (scatter NULL: y[r]).
*/
PetscErrorCode SFPCTriDeviceSolveGathered(SFPCTriDevice T, const int *perm, const PetscScalar *b, PetscScalar *x, const int *scatter, PetscScalar omega, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(SFPCTriDeviceCanGather(T), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A gathered LU solve needs an engine LU factor whose L sweep is csr or hyb");
  PetscCheck(!y || SFPCTriDeviceCanScatter(T), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A scattering LU solve needs an engine LU factor whose U sweep is hyb");
  PetscCall(LUSolve(T, perm, b, x, SweepOut{scatter, (double)PetscRealPart(omega), y}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether SFPCTriDeviceSolveResidual() can fuse the residual into the L sweep: a unit L with the grid layout (7-point or 27-point), and an upper sweep. */
PetscBool SFPCTriDeviceHasFusedResidual(SFPCTriDevice T)
{
  return (PetscBool)(T && T->n > 0 && T->opt.lower && T->opt.upper && T->lower.layout == SFPC_LAYOUT_GRID && T->lower.unit);
}

/*
   x = U^{-1} L^{-1} (b - A x0), with r = b - A x0 formed inside the L sweep (SFPCGridSweepResidual_Device():
   no pass of its own over A) and stored in r, and rnorm = ||r|| (NORM_1 or NORM_2; NORM_INFINITY is not
   offered: pass no rnorm for none). Without b (NULL): r = A x0 and x = U^{-1} L^{-1} A x0, the left-preconditioned
   operator of PCApplyBAorAB(). A is a device CSR with the factor's pattern (the matrix factored).
   The norm is waited for before the U sweep finishes, so that a caller's convergence test overlaps it.
*/
PetscErrorCode SFPCTriDeviceSolveResidual(SFPCTriDevice T, const int *ai, const int *aj, const PetscScalar *a, const PetscScalar *b, const PetscScalar *x0, PetscScalar *r, NormType type, PetscScalar *x, PetscReal *rnorm)
{
  cudaStream_t   stream;
  const PetscInt norm = !rnorm ? 0 : type == NORM_1 ? 1 : 2;

  PetscFunctionBegin;
  PetscCheck(SFPCTriDeviceHasFusedResidual(T), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The fused residual needs a unit L sweep with the grid layout");
  PetscCheck(!rnorm || type == NORM_1 || type == NORM_2, PETSC_COMM_SELF, PETSC_ERR_SUP, "The fused residual computes 1- and 2-norms only");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SFPCGridSweepResidual_Device(T, ai, aj, a, b, x0, r, norm, T->z, x, stream));
  PetscCall(Sweep<false>(T, T->z, x, T->z, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(4.0 * T->nnz + (b ? T->n : 0))); /* the solve, the products of A x0 and the differences */
  if (rnorm) {
    PetscCallCUDA(cudaEventSynchronize((cudaEvent_t)T->grid.res.ready));
    *rnorm = norm == 1 ? *T->grid.res.host : PetscSqrtReal(*T->grid.res.host);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace
{
/* The host's operations (eisenstat.c), no fused multiply-add: with the grid layout, whose sweeps are the host's too, the operator is the host's bit for bit. */
__global__ void EisenstatMidKernel(int n, const double *__restrict__ x, const double *__restrict__ k, const double *__restrict__ t, double *__restrict__ w)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) w[r] = __dadd_rn(x[r], __dmul_rn(k[r], t[r]));
}

/* dinv = 1/D from the factor's diagonal slots; where k is given, k = diag(A) - 2 D (adiag may be k) */
__global__ void DiagonalsKernel(int n, const int *__restrict__ ad, const double *__restrict__ a, const double *adiag, double *__restrict__ dinv, double *k)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    const double di = a[ad[r]];
    dinv[r]         = di;
    if (k) k[r] = adiag[r] - 2.0 / di;
  }
}

/* y = D x + U_A x, D from the diagonal slots (1/D) */
__global__ void MultUpperKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const double *__restrict__ a, const double *__restrict__ x, double *__restrict__ y)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    double s = x[r] / a[ad[r]];
    for (int k = ad[r] + 1; k < ai[r + 1]; k++) s += a[k] * x[aj[k]];
    y[r] = s;
  }
}

/* y = t + dinv y, and t (the engine's z) back to the sentinel */
__global__ void EisenstatEndKernel(int n, const double *__restrict__ dinv, double *__restrict__ t, double *__restrict__ y)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    y[r] = __dadd_rn(t[r], __dmul_rn(dinv[r], y[r]));
    sfpc::ResetValue(t, r);
  }
}
} // namespace

/*
   Eisenstat's trick for a factor whose off-diagonal entries are A's (U's exactly, L's as a_rc / u_cc): with
   D = diag(U), P = D + L_A and Q = D + U_A, so that the factor is P D^{-1} Q and A = P + Q + K with K = diag(A) - 2 D,
   y = P^{-1} A Q^{-1} x = t + P^{-1} (x + K t), t = Q^{-1} x: two sweeps and no product with A. k holds K,
   dinv 1/D (P^{-1} = D^{-1} L^{-1}); w is work; x, w and y are distinct device arrays. The U sweep readies y for
   the L sweep and the last pass T->z for the next solve, as SFPCTriDeviceSolve() does. The two passes stay kernels of
   their own: fused into the grid layout's L sweep they made it slower (bench/README.md, sfilu, "Eisenstat's form").
   In three steps for a caller that exchanges t's ghost values while w is formed and adds the couplings between ranks
   to w before the L sweep.
*/
PetscErrorCode SFPCTriDeviceEisenstat(SFPCTriDevice T, const PetscScalar *x, const PetscScalar *k, const PetscScalar *dinv, PetscScalar *w, PetscScalar *y)
{
  const PetscScalar *t;

  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceEisenstatBegin(T, x, y, &t));
  PetscCall(SFPCTriDeviceEisenstatMid(T, x, k, w));
  PetscCall(SFPCTriDeviceEisenstatEnd(T, w, dinv, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first step: t = Q^{-1} x, kept in the engine (*t, readable until the last step), y readied for the L sweep. */
PetscErrorCode SFPCTriDeviceEisenstatBegin(SFPCTriDevice T, const PetscScalar *x, PetscScalar *y, const PetscScalar **t)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  *t = T->z;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(T->opt.lower && T->opt.upper && T->lower.unit && !T->upper.unit, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Eisenstat's form needs an LU factor with unit L");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(Sweep<false>(T, x, T->z, y, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(T->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The middle step: w = x + K t. */
PetscErrorCode SFPCTriDeviceEisenstatMid(SFPCTriDevice T, const PetscScalar *x, const PetscScalar *k, PetscScalar *w)
{
  cudaStream_t stream;
  const int    tpb = 256, blocks = sfpc::LaunchBlocks(T->n, tpb);

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  EisenstatMidKernel<<<blocks, tpb, 0, stream>>>((int)T->n, x, k, T->z, w);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The last step: y = t + D^{-1} L^{-1} w, and the engine's t back to the sentinel. */
PetscErrorCode SFPCTriDeviceEisenstatEnd(SFPCTriDevice T, const PetscScalar *w, const PetscScalar *dinv, PetscScalar *y)
{
  cudaStream_t stream;
  const int    tpb = 256, blocks = sfpc::LaunchBlocks(T->n, tpb);

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(Sweep<true>(T, w, y, NULL, stream));
  EisenstatEndKernel<<<blocks, tpb, 0, stream>>>((int)T->n, dinv, T->z, y);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(T->nnz + 2.0 * T->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dinv = 1/D (the factor's diagonal slots hold 1/D); for Eisenstat's form also k = diag(A) - 2 D, adiag holding diag(A) (adiag may be k; k NULL: dinv alone). */
PetscErrorCode SFPCTriDeviceDiagonals(SFPCTriDevice T, const PetscScalar *adiag, PetscScalar *dinv, PetscScalar *k)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  DiagonalsKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->diag, T->a, adiag, dinv, k);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For Eisenstat's form: y = Q x = D x + U_A x (the upper factor's rows, a thread a row: a change of variable once a solve). */
PetscErrorCode SFPCTriDeviceMultUpper(SFPCTriDevice T, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  MultUpperKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, T->a, x, y);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * T->upper.nnz + T->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One sweep, x = L^{-1} b (lower) or U^{-1} b; x must not alias b. */
PetscErrorCode SFPCTriDeviceSweep(SFPCTriDevice T, PetscBool lower, const PetscScalar *b, PetscScalar *x)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(lower ? T->opt.lower : T->opt.upper, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Sweep the engine factor was not analysed for");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SFPCFillSentinel(T->n, x));
  if (lower) PetscCall(Sweep<true>(T, b, x, NULL, stream));
  else PetscCall(Sweep<false>(T, b, x, NULL, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * (lower ? T->lower.nnz : T->upper.nnz) + (lower ? !T->lower.unit : !T->upper.unit) * (PetscLogDouble)T->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fills n entries of x with the sentinel (the state the solves expect of their outputs). */
PetscErrorCode SFPCFillSentinel(PetscInt n, PetscScalar *x)
{
  cudaStream_t stream;
  const int    tpb = 256;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  FillSentinelKernel<<<sfpc::LaunchBlocks(n, tpb), tpb, 0, stream>>>((int)n, x);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
