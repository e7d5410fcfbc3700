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

} // namespace

/* Resident warps of a schedule's solves and factorization: wps per SM, or by default from how wide its levels are. */
void SFPCScheduleWarps(SFPCTriDevice T, SFPCSchedule *S)
{
  const PetscInt wps = T->opt.warps_per_sm;
  const PetscBool wide = (PetscBool)(S->nlevels > 0 && S->ntasks > (PetscInt)SFPC_WIDE_TASKS_PER_SM * S->nlevels * T->sms);
  const PetscBool busy = (PetscBool)(S->nlevels > 0 && S->ntasks >= (PetscInt)SFPC_BUSY_TASKS_PER_SM * S->nlevels * T->sms);
  const PetscInt  nrows = S->rows_by_vec[0] + S->rows_by_vec[1] + S->rows_by_vec[2] + S->rows_by_vec[3] + S->rows_by_vec[4] + S->rows_by_vec[5];
  const PetscBool longrows = (PetscBool)(2 * (S->rows_by_vec[3] + S->rows_by_vec[4] + S->rows_by_vec[5]) > nrows); /* most tasks hold at most 4 rows */
  const PetscInt  solve = S->layout == SFPC_LAYOUT_GRID ? (T->grid.box ? SFPC_GRID_BOX_WARPS_PER_SM : SFPC_GRID_WARPS_PER_SM) : (wide ? SFPC_WIDE_WARPS_PER_SM : (busy && longrows ? SFPC_BUSY_SOLVE_WARPS_PER_SM : SFPC_SOLVE_WARPS_PER_SM));
  const PetscInt  factor = wide ? SFPC_WIDE_WARPS_PER_SM : (busy ? SFPC_BUSY_WARPS_PER_SM : SFPC_FACTOR_WARPS_PER_SM);

  S->solve_resident  = T->sms * (int)PetscMax(wps != PETSC_DECIDE ? wps : solve, SFPC_WARPS_PER_BLOCK);
  S->factor_resident = T->sms * (int)PetscMax(wps != PETSC_DECIDE ? wps : factor, SFPC_WARPS_PER_BLOCK);
}

/*
   How many warps the sweeps keep on each SM (PETSC_DECIDE: per schedule, see the defaults).
   Every warp that waits polls L2: too many slow down the rows they wait for, too few leave
   latency uncovered.
*/
PetscErrorCode SFPCTriDeviceSetWarpsPerSM(SFPCTriDevice T, PetscInt wps)
{
  PetscFunctionBegin;
  PetscCheck(wps == PETSC_DECIDE || (wps >= 1 && wps <= 64), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Warps per SM must be in [1, 64], not %" PetscInt_FMT, wps);
  T->opt.warps_per_sm = wps;
  T->resident         = (int)(T->sms * PetscMax(wps == PETSC_DECIDE ? SFPC_ANALYSIS_WARPS_PER_SM : wps, SFPC_WARPS_PER_BLOCK));
  SFPCScheduleWarps(T, &T->lower);
  SFPCScheduleWarps(T, &T->upper);
  SFPCScheduleWarps(T, &T->blocks.lower);
  SFPCScheduleWarps(T, &T->blocks.upper);
  if (T->transpose) PetscCall(SFPCTriDeviceSetWarpsPerSM(T->transpose, wps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For a factorization or analysis sweep; solves call SFPCTriDeviceTakeTickets() with their sweep's solve_resident. */
PetscErrorCode SFPCTriDeviceBeginSweep(SFPCTriDevice T, PetscInt ntasks, int *blocks, unsigned long long *base)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceTakeTickets(T, ntasks, T->resident, blocks, base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Grid of a sweep of ntasks tasks with at most resident warps, and the base of its tickets (when it takes tickets). */
PetscErrorCode SFPCTriDeviceTakeTickets(SFPCTriDevice T, PetscInt ntasks, int resident, int *blocks, unsigned long long *base)
{
  PetscFunctionBegin;
  *blocks = (int)PetscMin((ntasks + SFPC_WARPS_PER_BLOCK - 1) / SFPC_WARPS_PER_BLOCK, resident / SFPC_WARPS_PER_BLOCK);
  *base   = T->ticketbase;
  T->ticketbase += (unsigned long long)ntasks + (unsigned long long)(*blocks) * SFPC_WARPS_PER_BLOCK; /* one ticket per task, and one past the end per warp */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriDeviceNextEpoch(SFPCTriDevice T, int *epoch)
{
  PetscFunctionBegin;
  if (T->epoch == PETSC_INT_MAX) { /* after 2^31 factorizations start over: the only time flags are cleared */
    cudaStream_t stream;
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMemsetAsync(T->flags, 0, sizeof(int) * T->n, stream));
    T->epoch = 0;
  }
  *epoch = ++T->epoch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes of a sweep's own storage, and of its triangle in CSR (offsets, columns, values). */
static void SweepBytes(const SFPCTriDevice T, const SFPCSchedule *S, PetscLogDouble *own, PetscLogDouble *csr)
{
  const PetscLogDouble slots = 32.0 * S->ntasks;
  *own = S->order ? (PetscLogDouble)T->n * sizeof(int) + (S->ntasks + 1.0) * (sizeof(int) + 1) : 0; /* order, start and vec (a grid walk may have none) */
  if (S->layout == SFPC_LAYOUT_HYB) *own += slots * (2 * sizeof(int) + sizeof(PetscScalar)) + (S->unit ? 0 : (PetscLogDouble)T->n * sizeof(PetscScalar));
  if (S->layout == SFPC_LAYOUT_GRID) *own += T->grid.box ? SFPCGridBoxBytes(T) : 32.0 * ((T->grid.ny + 31) / 32) * T->grid.nz * (T->grid.nx + 31.0) * (4 * sizeof(PetscScalar) + 1); /* skewed slabs */
  *csr = (PetscLogDouble)S->nnz * (sizeof(int) + sizeof(PetscScalar)) + (T->n + 1.0) * sizeof(int);
}

/*
   Analyses one sweep and resolves auto choices. Layout: hyb unless its storage would take more
   than three times the triangle's CSR (rows much shorter than their vectors, where the padding
   costs more bandwidth than the coalescing saves); on the 80 triangles of bench/trisolve.c hyb
   was faster than csr on every one (1.06x to 3.3x, H200), up to 2.3x CSR's memory. Levels: ASAP;
   ALAP was never faster there by more than noise, and costs a second, slower pass.
*/
static PetscErrorCode SweepBuild(SFPCTriDevice T, PetscBool lower, SFPCSchedule *S)
{
  SFPCLevels levels = T->opt.levels;

  PetscFunctionBegin;
  S->unit = lower ? T->opt.lower_unit : T->opt.upper_unit;
  if (levels == SFPC_LEVELS_AUTO) levels = SFPC_LEVELS_ASAP;
  if (T->grid.nx > 0 && T->opt.solves_only && !(T->opt.lower && T->opt.upper)) {
    /* the walk orders itself: no levels pass (most of an analysis), no order; a lone triangle's entries are all but its diagonal slots */
    S->levels = levels;
    S->nnz    = T->nnz - T->n;
  } else PetscCall(SFPCScheduleBuild(T, lower, levels, S));
  S->layout = T->grid.nx > 0 ? SFPC_LAYOUT_GRID : T->opt.layout; /* GridDecide() took the grid: every sweep walks it */
  if (S->layout == SFPC_LAYOUT_AUTO) {
    PetscLogDouble own, csr;
    S->layout = SFPC_LAYOUT_HYB;
    SweepBytes(T, S, &own, &csr);
    S->layout = S->nnz > 0 && own <= 3 * csr ? SFPC_LAYOUT_HYB : SFPC_LAYOUT_CSR;
  }
  if (S->layout == SFPC_LAYOUT_HYB) PetscCall(SFPCScheduleBuildSlabs(T, lower, S));
  SFPCScheduleWarps(T, S);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Which stencil of the grid dims holds T's pattern (checked on the device copy of the pattern, one pass and
   one wait): the 7-point one (*fits, not *box), else the 27-point box (*fits and *box), else none (r, c: the
   first entry outside the box).
*/
static PetscErrorCode GridStencil(SFPCTriDevice T, const PetscInt dims[3], PetscBool *fits, PetscBool *box, PetscInt *r, PetscInt *c)
{
  PetscInt rs[2], cs[2];

  PetscFunctionBegin;
  *fits = *box = PETSC_FALSE;
  *r = *c = -1;
  PetscCall(SFPCGridFindOutside_Device(T, dims, rs, cs));
  *box  = (PetscBool)(rs[0] >= 0);
  *fits = (PetscBool)(rs[1] < 0);
  *r    = rs[1];
  *c    = cs[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether the sweeps walk the grid opt gives (the grid layout), and on which stencil: asked for, or
   auto with a grid whose 7-point stencil or 27-point box holds the pattern. Asking for it without a
   grid, or for a pattern off the box, is an error.
*/
static PetscErrorCode GridDecide(SFPCTriDevice T, const SFPCTriOptions *opt, PetscBool *use, PetscBool *box)
{
  PetscInt r, c;

  PetscFunctionBegin;
  *use = *box = PETSC_FALSE;
  if (opt->layout != SFPC_LAYOUT_GRID && (opt->layout != SFPC_LAYOUT_AUTO || opt->grid[0] <= 0)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCGridLayoutCheckOptions(T->n, opt));
  PetscCall(GridStencil(T, opt->grid, use, box, &r, &c));
  if (!*use && opt->layout == SFPC_LAYOUT_GRID) PetscCall(SFPCGridLayoutError(opt->grid, opt->grid_guessed, r, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pattern check of T (PatternKernel) into the device word dbad; unless trusted, its result *bad comes back. */
static PetscErrorCode PatternCheck(SFPCTriDevice T, PetscBool trusted, unsigned long long *dbad, unsigned long long *bad, cudaStream_t stream)
{
  const int tpb = 256;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(dbad, bad, sizeof(*bad), cudaMemcpyHostToDevice, stream));
  if (T->n > 0) PatternKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, dbad);
  PetscCallCUDA(cudaGetLastError());
  if (!trusted) {
    PetscCallCUDA(cudaMemcpyAsync(bad, dbad, sizeof(*bad), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The new T's device figures and arrays, the pattern (ai, aj) copied there and checked (*bad: the first bad row as
   PatternKernel reports it, ~0 if none or trusted). On an error the caller destroys T, which frees the arrays
   allocated so far; the check's word, which T does not own, is freed here on every path.
*/
static PetscErrorCode CreatePattern(SFPCTriDevice T, const PetscInt *ai, const PetscInt *aj, PetscBool trusted, unsigned long long *bad, cudaStream_t stream)
{
  const PetscInt      n = T->n;
  unsigned long long *dbad;
  int                 dev, perSM;
  PetscErrorCode      ierr;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&T->sms, cudaDevAttrMultiProcessorCount, dev));
  PetscCall(SFPCHybBlocksPerSM(&perSM));
  T->hybblocks = perSM * T->sms;
  PetscCall(SFPCTriDeviceSetWarpsPerSM(T, T->opt.warps_per_sm));
  if (T->nnz < 0) {
    PetscCallCUDA(cudaMemcpyAsync(&T->nnz, ai + n, sizeof(PetscInt), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  PetscCallCUDA(cudaMallocAsync(&T->i, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&T->j, sizeof(int) * PetscMax(T->nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&T->diag, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&T->a, sizeof(PetscScalar) * PetscMax(T->nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&T->flags, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&T->counter, sizeof(unsigned long long), stream));
  PetscCallCUDA(cudaMallocAsync(&T->z, sizeof(PetscScalar) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&T->report, 2 * sizeof(int), stream));
  PetscCall(SFPCFillSentinel(n, T->z));
  PetscCallCUDA(cudaMemcpyAsync(T->i, ai, sizeof(int) * (n + 1), cudaMemcpyDeviceToDevice, stream));
  PetscCallCUDA(cudaMemcpyAsync(T->j, aj, sizeof(int) * T->nnz, cudaMemcpyDeviceToDevice, stream));
  PetscCallCUDA(cudaMemsetAsync(T->a, 0, sizeof(PetscScalar) * PetscMax(T->nnz, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(T->flags, 0, sizeof(int) * PetscMax(n, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(T->counter, 0, sizeof(unsigned long long), stream));

  PetscCallCUDA(cudaMallocAsync(&dbad, sizeof(unsigned long long), stream));
  ierr = PatternCheck(T, trusted, dbad, bad, stream);
  PetscCallCUDA(cudaFreeAsync(dbad, stream));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Builds the engine's factor for the n x n pattern (ai, aj) with nnz entries (< 0: read it from ai),
   given in device memory: copies it, checks it on the device (sorted columns, diagonal present)
   and analyses the sweeps opt asks for. Errors, before anything is kept, like the host
   SFPCTriFactorCreateFromCSR(); a pattern SFPC built itself is trusted, which saves the wait for
   the check. The values are the caller's to fill (T->a), followed by SFPCTriDeviceValuesChanged().
*/
PetscErrorCode SFPCTriDeviceCreate(PetscInt n, PetscInt nnz, const PetscInt *ai, const PetscInt *aj, PetscBool trusted, const SFPCTriOptions *opt, SFPCTriDevice *out)
{
  SFPCTriDevice      T;
  cudaStream_t       stream;
  unsigned long long bad = ~0ULL;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "The SFPC device engine needs 32-bit PetscInt");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscNew(&T));
  T->n   = n;
  T->opt = *opt;
  T->nnz = nnz;
  {
    PetscErrorCode ierr = CreatePattern(T, ai, aj, trusted, &bad, stream);
    if (ierr) PetscCall(SFPCTriDeviceDestroy(&T)); /* T and the arrays it got so far */
    PetscCall(ierr);
  }
  if (bad != ~0ULL) {
    const PetscInt r = (PetscInt)(bad / 4), kind = (PetscInt)(bad % 4);
    PetscCall(SFPCTriDeviceDestroy(&T));
    PetscCheck(kind != 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Row %" PetscInt_FMT " has a column index outside [0, %" PetscInt_FMT ")", r, n);
    PetscCheck(kind != 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Columns of row %" PetscInt_FMT " are not sorted and unique", r);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix is missing diagonal entry in row %" PetscInt_FMT " (insert an explicit zero there, and use a shift, to factor it)", r);
  }
  if (n > 0) {
    PetscBool      grid = PETSC_FALSE, box = PETSC_FALSE;
    PetscErrorCode ierr = GridDecide(T, opt, &grid, &box);
    if (ierr) PetscCall(SFPCTriDeviceDestroy(&T));
    PetscCall(ierr);
    if (grid) { /* the sweeps see it through T->grid.nx; the storage follows them */
      T->grid.nx = (int)opt->grid[0];
      T->grid.ny = (int)opt->grid[1];
      T->grid.nz  = (int)opt->grid[2];
      T->grid.box = box;
    }
  }
  {
    PetscErrorCode ierr = PETSC_SUCCESS;
    if (n > 0 && opt->lower) ierr = SweepBuild(T, PETSC_TRUE, &T->lower);
    if (!ierr && n > 0 && opt->upper) ierr = SweepBuild(T, PETSC_FALSE, &T->upper);
    if (!ierr && T->grid.nx) {
      const PetscInt dims[3] = {T->grid.nx, T->grid.ny, T->grid.nz};
      ierr = SFPCGridCreate_Device(T, dims, T->grid.box);
    }
    if (ierr) PetscCall(SFPCTriDeviceDestroy(&T)); /* nothing is kept on an error */
    PetscCall(ierr);
  }
  *out = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the caller changed T->a: refreshes what the sweeps copied from it. */
static PetscErrorCode ValuesChanged(SFPCTriDevice T, PetscBool gridfilled)
{
  PetscFunctionBegin;
  T->transpose_stale = PETSC_TRUE;
  if (T->lower.layout == SFPC_LAYOUT_HYB) PetscCall(SFPCScheduleFillSlabs(T, PETSC_TRUE, &T->lower));
  if (T->upper.layout == SFPC_LAYOUT_HYB) PetscCall(SFPCScheduleFillSlabs(T, PETSC_FALSE, &T->upper));
  if (!gridfilled) PetscCall(SFPCGridFill_Device(T));
  PetscCall(SFPCPartsFill_Device(T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriDeviceValuesChanged(SFPCTriDevice T)
{
  PetscFunctionBegin;
  PetscCall(ValuesChanged(T, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same, after a writer of T->a that stored the grid layout's slabs too (the hyperplane factorizations: SIP's and the 27-point one). */
PetscErrorCode SFPCTriDeviceValuesChangedGridFilled(SFPCTriDevice T)
{
  PetscFunctionBegin;
  PetscCall(ValuesChanged(T, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Switches the factor's sweeps to the grid layout on the grid dims (MatHYBSFSetGrid()): the pattern
   must fit its 7-point stencil or 27-point box. The hyb slabs go; the levels stay (they order factorizations).
*/
PetscErrorCode SFPCTriDeviceSetGrid(SFPCTriDevice T, const PetscInt dims[3])
{
  PetscInt       r, c;
  PetscBool      fits, box;
  SFPCSchedule  *S[2] = {T->opt.lower ? &T->lower : NULL, T->opt.upper ? &T->upper : NULL};
  cudaStream_t   stream;

  PetscFunctionBegin;
  PetscCall(SFPCGridCheckSize(T->n, dims, "The grid layout"));
  PetscCall(GridStencil(T, dims, &fits, &box, &r, &c));
  if (!fits) PetscCall(SFPCGridLayoutError(dims, PETSC_FALSE, r, c));
  PetscCall(SFPCBlocksDestroy_Device(T)); /* the grid layout's sweeps never go by point-blocks */
  T->grid.box = box; /* read by SFPCScheduleWarps() */
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  for (int k = 0; k < 2; k++) {
    if (!S[k] || !T->n) continue;
    PetscCall(SFPCScheduleFreeSlabs(S[k], stream));
    S[k]->layout = SFPC_LAYOUT_GRID;
    SFPCScheduleWarps(T, S[k]);
  }
  for (int d = 0; d < 3; d++) T->opt.grid[d] = dims[d];
  T->opt.layout = SFPC_LAYOUT_GRID;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCGridCreate_Device(T, dims, box));
  PetscCall(SFPCGridFill_Device(T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stream-ordered frees (no device-wide synchronization, unlike cudaFree()); NULL is nothing to free. */
PetscErrorCode SFPCFreeAll(cudaStream_t stream, int n, void **p)
{
  PetscFunctionBegin;
  for (int k = 0; k < n; k++)
    if (p[k]) PetscCallCUDA(cudaFreeAsync(p[k], stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A schedule's hyb slabs (and inverse diagonals), when its sweeps stop reading them. */
PetscErrorCode SFPCScheduleFreeSlabs(SFPCSchedule *S, cudaStream_t stream)
{
  void *p[] = {S->cols, S->rows, S->vals, S->dinv};

  PetscFunctionBegin;
  PetscCall(SFPCFreeAll(stream, 4, p));
  S->cols = S->rows = NULL;
  S->vals = S->dinv = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCScheduleFree(SFPCSchedule *S, cudaStream_t stream)
{
  void *p[] = {S->order, S->start, S->vec, S->cols, S->rows, S->vals, S->dinv, S->gcoef, S->gmask};

  PetscFunctionBegin;
  PetscCall(SFPCFreeAll(stream, 9, p));
  PetscCall(PetscMemzero(S, sizeof(*S)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriDeviceDestroy(SFPCTriDevice *T)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!*T) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  {
    void *p[] = {(*T)->i, (*T)->j, (*T)->diag, (*T)->a, (*T)->flags, (*T)->counter, (*T)->z, (*T)->report, (*T)->perm};
    PetscCall(SFPCFreeAll(stream, 9, p));
  }
  PetscCall(SFPCGridDestroy_Device(*T)); /* the grid slabs and the fused residual's flags, sums, pinned word and event */
  PetscCall(SFPCScheduleFree(&(*T)->lower, stream));
  PetscCall(SFPCScheduleFree(&(*T)->upper, stream));
  PetscCall(SFPCBlocksDestroy_Device(*T));
  PetscCall(SFPCPartsDestroy_Device(*T));
  PetscCall(SFPCTriDeviceDestroy(&(*T)->transpose));
  PetscCall(PetscFree(*T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Device memory of the factor (pattern, values, diagonals, flags, work vector, and each sweep's
   schedule and slabs), and of the same triangles in plain CSR, the yardstick of the views.
*/
PetscErrorCode SFPCTriDeviceBytes(SFPCTriDevice T, PetscLogDouble *bytes, PetscLogDouble *csrbytes)
{
  PetscLogDouble own, csr;

  PetscFunctionBegin;
  *bytes    = (PetscLogDouble)T->nnz * (sizeof(int) + sizeof(PetscScalar)) + (T->n + 1.0) * sizeof(int) + (PetscLogDouble)T->n * (2 * sizeof(int) + sizeof(PetscScalar));
  *csrbytes = 0;
  if (T->opt.lower) {
    SweepBytes(T, &T->lower, &own, &csr);
    *bytes += own;
    *csrbytes += csr;
  }
  if (T->opt.upper) {
    SweepBytes(T, &T->upper, &own, &csr);
    *bytes += own;
    *csrbytes += csr;
  }
  if (T->blocks.lower.order) *bytes += (PetscLogDouble)T->blocks.nb * sizeof(int); /* the blocks' orders */
  if (T->blocks.upper.order) *bytes += (PetscLogDouble)T->blocks.nb * sizeof(int);
  if (T->blocks.quotient.j) *bytes += (PetscLogDouble)(2 * T->blocks.quotient.n + 1 + T->blocks.quotient.nnz) * sizeof(int); /* the points' pattern */
  for (int k = 0; k < 2; k++) *bytes += (PetscLogDouble)T->blocks.nb * T->blocks.slots[k] * T->blocks.bs * SFPC_BLOCK_LANES(T->blocks.bs) * 2 * sizeof(int); /* the sweeps' slabs */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SweepView(const SFPCTriDevice T, const SFPCSchedule *S, int sms, const char *name, PetscViewer viewer)
{
  const SFPCBlockSweeps *B = &T->blocks;
  const int              k = S == &T->lower ? 0 : 1;
  const SFPCSchedule    *Q = k ? &B->upper : &B->lower;

  PetscFunctionBegin;
  if (B->use[k]) {
    char how[64];
    if (B->slab[k]) PetscCall(PetscSNPrintf(how, sizeof(how), "columns by ticket, %d slots a lane, polled together", B->slots[k]));
    else PetscCall(PetscSNPrintf(how, sizeof(how), "csr: %s", B->noslab[k]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: by point-blocks of %" PetscInt_FMT " rows, a warp each (%s): %d levels of %" PetscInt_FMT " blocks (rows: %d levels), %" PetscInt_FMT " off-diagonal entries, %d warps per SM\n", name, B->bs, how, Q->nlevels, B->nb, S->nlevels, S->nnz, Q->solve_resident / sms));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (B->bs > 1 && S->layout != SFPC_LAYOUT_GRID) PetscCall(PetscViewerASCIIPrintf(viewer, "%s: row by row, not by point-blocks of %" PetscInt_FMT " rows (%s%d levels of blocks against %d of rows)\n", name, B->bs, B->sweeps == PETSC_BOOL3_FALSE ? "told not to; " : "", Q->nlevels, S->nlevels));
  if (S->layout == SFPC_LAYOUT_GRID && T->grid.box) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: grid layout (27-point box) on the %d x %d x %d grid: %lld warp lines of 30 y-lines, %" PetscInt_FMT " off-diagonal entries, %d warps per SM\n", name, T->grid.nx, T->grid.ny, T->grid.nz, SFPCGridTasks(T), S->nnz, SFPCGridBoxWarps(T, S) / sms));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (S->layout == SFPC_LAYOUT_GRID) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: grid layout on the %d x %d x %d grid: %lld warp lines of 32 y-lines, chunks of %" PetscInt_FMT " x-steps, blocks of %" PetscInt_FMT " z-planes, %" PetscInt_FMT " off-diagonal entries, %d warps per SM\n", name, T->grid.nx, T->grid.ny, T->grid.nz, SFPCGridTasks(T), T->opt.grid_chunk, (PetscInt)SFPCGridPlanes(T), S->nnz, SFPCGridBlocks(T, S) * SFPCGridPlanes(T) / sms));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %s layout, %s levels: %d levels, %d warp tasks, %" PetscInt_FMT " off-diagonal entries, %d warps per SM", name, SFPCLayouts[S->layout], SFPCLevelsTypes[S->levels], S->nlevels, S->ntasks, S->nnz, S->solve_resident / sms));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (S->layout == SFPC_LAYOUT_HYB && S->ntasks) PetscCall(PetscViewerASCIIPrintf(viewer, ", slabs %.0f%% filled", 100.0 * (double)S->nnz / (32.0 * S->ntasks) > 100 ? 100.0 : 100.0 * (double)S->nnz / (32.0 * S->ntasks)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  rows by lanes per row: 1:%" PetscInt_FMT " 2:%" PetscInt_FMT " 4:%" PetscInt_FMT " 8:%" PetscInt_FMT " 16:%" PetscInt_FMT " 32:%" PetscInt_FMT "\n", S->rows_by_vec[0], S->rows_by_vec[1], S->rows_by_vec[2], S->rows_by_vec[3], S->rows_by_vec[4], S->rows_by_vec[5]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The engine's part of a view: what each sweep chose, and memory against CSR. */
PetscErrorCode SFPCTriDeviceView(SFPCTriDevice T, PetscViewer viewer)
{
  PetscLogDouble bytes, csr;

  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceBytes(T, &bytes, &csr));
  PetscCall(PetscViewerASCIIPrintf(viewer, "GPU engine: %" PetscInt_FMT " rows, %.3g MiB on the device (%.2f x the triangles in CSR)\n", T->n, (double)(bytes / 1048576.0), csr > 0 ? (double)(bytes / csr) : 0.0));
  if (T->opt.lower) PetscCall(SweepView(T, &T->lower, T->sms, "L", viewer));
  if (T->opt.upper) PetscCall(SweepView(T, &T->upper, T->sms, "U", viewer));
  if (T->transpose) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "transposed factor (for transposed solves):\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(SFPCTriDeviceView(T->transpose, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
