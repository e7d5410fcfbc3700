/*
   MATHYBSF: one triangle of a square matrix stored for sync-free triangular solves (the engine's
   factor with a single sweep). Built from MATSEQAIJCUSPARSE it lives and solves on the GPU, from
   MATSEQAIJ on the host with the reference arithmetic.
*/
#include <sfpc/private/hybsfimpl.h>
#include <sfpc/private/sfpcimpl.h>

const char *const MatHYBSFTriangles[] = {"lower", "upper", "MatHYBSFTriangle", "MAT_HYBSF_", NULL};
const char *const SFPCLayouts[]       = {"auto", "csr", "hyb", "grid", "SFPCLayout", "SFPC_LAYOUT_", NULL};
const char *const SFPCLevelsTypes[]   = {"auto", "asap", "alap", "SFPCLevels", "SFPC_LEVELS_", NULL};

/* A source SFPC can take a triangle of: square, MATSEQAIJ (host) or MATSEQAIJCUSPARSE (GPU unless bound to the CPU). */
static PetscErrorCode HYBSFCheckSource(Mat A, PetscBool *ondevice)
{
  PetscInt  m, n;
  PetscBool isseqaij, iscusparse, bound = PETSC_FALSE;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "MATHYBSF takes a triangle of a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseqaij)); /* AIJ's subtypes (aijperm, aijsell, ...) are read as AIJ, as the PCs read them */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &iscusparse));
  PetscCall(MatGetType(A, &type));
  PetscCheck(isseqaij || iscusparse, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "MATHYBSF is built from %s (or one of its subtypes) or %s, not %s", MATSEQAIJ, MATSEQAIJCUSPARSE, type);
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MATHYBSF needs an assembled matrix");
  PetscCheck(!A->factortype, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MATHYBSF takes a triangle of an unfactored matrix; this one is a factor (MatGetFactor())");
  if (iscusparse) PetscCall(MatBoundToCPU(A, &bound));
  *ondevice = (PetscBool)(iscusparse && !bound);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves, conversions and queries need a triangle made by MatCreateHYBSF() or MatConvert(), not an empty MatSetType() shell. */
static PetscErrorCode HYBSFCheckBuilt(Mat B)
{
  PetscFunctionBegin;
  PetscCheck(((Mat_HYBSF *)B->data)->built, PetscObjectComm((PetscObject)B), PETSC_ERR_ARG_WRONGSTATE, "MATHYBSF not built: use MatCreateHYBSF() or MatConvert()");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The host factor from MATSEQAIJ A, or with reuse its new values. A refused matrix (a fault in a
   row, found before anything is written) is handed back as it came, its arrays restored, so that a
   caller who catches the error keeps both the matrix and the factor it had.
*/
static PetscErrorCode HYBSFBuild_Host(Mat_HYBSF *h, Mat A, PetscBool reuse)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n;
  PetscBool          done;
  const PetscBool    lower = (PetscBool)(h->tri == MAT_HYBSF_LOWER);
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  if (reuse) ierr = SFPCTriangleSetValues_Host(&h->F, ai, aj, aa, lower, h->unit);
  else ierr = SFPCTriangleCreate_Host(n, ai, aj, aa, lower, h->unit, &h->F);
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Builds B's factor from A, or with reuse refills it (same pattern, same place). */
static PetscErrorCode HYBSFBuild(Mat B, Mat A, PetscBool reuse)
{
  Mat_HYBSF     *h = (Mat_HYBSF *)B->data;
  PetscBool      ondevice;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(HYBSFCheckSource(A, &ondevice));
  PetscCheck(!reuse || ondevice == h->ondevice, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP, "Refilling a MATHYBSF needs a source of the kind it was built from (%s)", h->ondevice ? MATSEQAIJCUSPARSE : MATSEQAIJ);
  PetscCall(PetscLogEventBegin(SFPC_TriAnalysis, B, A, 0, 0));
  ierr = ondevice ? MatHYBSFBuild_Device(h, A, reuse) : HYBSFBuild_Host(h, A, reuse);
  PetscCall(PetscLogEventEnd(SFPC_TriAnalysis, B, A, 0, 0));
  PetscCall(ierr);
  h->ondevice     = ondevice;
  h->built        = PETSC_TRUE;
  B->assembled    = PETSC_TRUE;
  B->preallocated = PETSC_TRUE;
  PetscCall(PetscObjectStateIncrease((PetscObject)B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatCreateHYBSF - Creates a `MATHYBSF` matrix from one triangle of a square matrix, for sync-free triangular solves.

  Collective

  Input Parameters:
+ A      - the source, `MATSEQAIJCUSPARSE` (analysis and solves on the GPU) or `MATSEQAIJ` (on the host); not changed
. tri    - `MAT_HYBSF_LOWER` or `MAT_HYBSF_UPPER`: the entries on and below, or on and above, the diagonal
. unit   - the diagonal is taken as 1 (stored diagonal entries are ignored and may be absent)
. layout - `SFPC_LAYOUT_CSR`, `SFPC_LAYOUT_HYB` or `SFPC_LAYOUT_AUTO` (on the GPU: the grid layout where A's pattern reads as a
           7-point or 27-point stencil in natural order on a grid, else csr or hyb per the analysis)
- levels - `SFPC_LEVELS_ASAP`, `SFPC_LEVELS_ALAP` or `SFPC_LEVELS_AUTO`

  Output Parameter:
. T - the matrix; `MatSolve()` computes x = T^{-1} b

  Level: intermediate

  Notes:
  A missing or zero diagonal entry (when not unit) is an error, and so is an Inf or NaN among the entries the triangle keeps
  (`PETSC_ERR_FP`); with `MatConvert()` `MAT_REUSE_MATRIX` each is found before anything is written, so the factor keeps its values.

  With `SFPC_LAYOUT_AUTO` on the GPU, a grid is read from a few rows of A's pattern (distances 1, nx and nx*ny to the
  neighbours of an interior point, or the 27 of a box) and the whole triangle is checked against its stencil; where it
  fits, the solves walk the grid (`MatHYBSFSetGrid()`) and the set-up computes no dependency levels, which is most of a
  level layout's analysis. Otherwise, still with `SFPC_LAYOUT_AUTO`, A's block size (`MatGetBlockSize()`, e.g. the fields
  of a `DMDA` point) gives point-blocks: where the graph of the blocks has at most 3/4 of the rows' levels, the GPU
  sweep goes a warp a block, resolving a block's own rows inside the warp (`MatHYBSFGetInfo()` reports the block size).
  Ask for `SFPC_LAYOUT_HYB` or `SFPC_LAYOUT_CSR` to keep the level layouts, row by row.

.seealso: `MATHYBSF`, `MatHYBSFGetInfo()`, `MatConvert()`, `MatHYBSFSetGrid()`
@*/
PetscErrorCode MatCreateHYBSF(Mat A, MatHYBSFTriangle tri, PetscBool unit, SFPCLayout layout, SFPCLevels levels, Mat *T)
{
  Mat        B;
  Mat_HYBSF *h;
  PetscInt   n;
  PetscBool  ondevice;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(T, 6);
  PetscCheck(tri == MAT_HYBSF_LOWER || tri == MAT_HYBSF_UPPER, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown triangle %d", (int)tri);
  PetscCheck(layout != SFPC_LAYOUT_GRID, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "SFPC_LAYOUT_GRID needs the grid: create with SFPC_LAYOUT_AUTO and call MatHYBSFSetGrid()");
  PetscCheck(layout >= SFPC_LAYOUT_AUTO && layout <= SFPC_LAYOUT_HYB, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown layout %d", (int)layout);
  PetscCheck(levels >= SFPC_LEVELS_AUTO && levels <= SFPC_LEVELS_ALAP, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Unknown levels %d", (int)levels);
  PetscCall(HYBSFCheckSource(A, &ondevice));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, n, n, n, n));
  PetscCall(MatSetType(B, MATHYBSF));
  PetscCall(PetscLayoutSetUp(B->rmap));
  PetscCall(PetscLayoutSetUp(B->cmap));
  h             = (Mat_HYBSF *)B->data;
  h->tri        = tri;
  h->unit       = unit;
  h->opt.layout = layout;
  h->opt.levels = levels;
  {
    PetscErrorCode ierr = HYBSFBuild(B, A, PETSC_FALSE);
    if (ierr) PetscCall(MatDestroy(&B)); /* a refused source leaves nothing behind */
    PetscCall(ierr);
  }
  *T = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert(A, MATHYBSF, ...): options from A's prefix choose the triangle and the storage. */
static PetscErrorCode MatConvertFrom_HYBSF(Mat A, MatType type, MatReuse reuse, Mat *M)
{
  MatHYBSFTriangle tri     = MAT_HYBSF_LOWER;
  PetscBool        unit    = PETSC_FALSE;
  SFPCLayout       layout  = SFPC_LAYOUT_AUTO;
  SFPCLevels       levels  = SFPC_LEVELS_AUTO;
  PetscInt         dims[4] = {0, 0, 0, 0}, nd = 4; /* one more than a grid has: a fourth size is refused, not dropped */
  PetscBool        grid    = PETSC_FALSE;

  PetscFunctionBegin;
  (void)type;
  PetscCheck(reuse != MAT_INPLACE_MATRIX, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "MATHYBSF keeps one triangle: it cannot replace its source in place");
  if (reuse == MAT_REUSE_MATRIX) {
    PetscBool ishybsf;
    PetscCall(PetscObjectTypeCompare((PetscObject)*M, MATHYBSF, &ishybsf));
    PetscCheck(ishybsf, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONG, "MAT_REUSE_MATRIX needs a MATHYBSF made from a matrix of the same pattern");
    PetscCheck((*M)->rmap->n == A->rmap->n, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_SIZ, "MAT_REUSE_MATRIX needs a MATHYBSF of the same size");
    PetscCall(HYBSFCheckBuilt(*M)); /* an empty MatSetType() shell has no pattern to refill */
    PetscCall(HYBSFBuild(*M, A, PETSC_TRUE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscObjectOptionsBegin((PetscObject)A);
  PetscCall(PetscOptionsEnum("-mat_hybsf_triangle", "Triangle of the matrix to keep", "MatCreateHYBSF", MatHYBSFTriangles, (PetscEnum)tri, (PetscEnum *)&tri, NULL));
  PetscCall(PetscOptionsBool("-mat_hybsf_unit_diagonal", "Take the diagonal as 1", "MatCreateHYBSF", unit, &unit, NULL));
  PetscCall(PetscOptionsEnum("-mat_hybsf_layout", "Storage of the off-diagonal entries", "MatCreateHYBSF", SFPCLayouts, (PetscEnum)layout, (PetscEnum *)&layout, NULL));
  PetscCall(PetscOptionsEnum("-mat_hybsf_levels", "Dependency levels that order the rows", "MatCreateHYBSF", SFPCLevelsTypes, (PetscEnum)levels, (PetscEnum *)&levels, NULL));
  PetscCall(PetscOptionsIntArray("-mat_hybsf_grid", "Grid nx,ny,nz (x fastest) whose points the rows are: the grid layout", "MatHYBSFSetGrid", dims, &nd, &grid));
  PetscOptionsEnd();
  PetscCheck(!grid || nd == 3, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "-mat_hybsf_grid needs three sizes nx,ny,nz");
  PetscCheck(grid || layout != SFPC_LAYOUT_GRID, PetscObjectComm((PetscObject)A), PETSC_ERR_USER_INPUT, "-mat_hybsf_layout grid needs the grid: -mat_hybsf_grid nx,ny,nz");
  PetscCheck(!grid || layout == SFPC_LAYOUT_GRID || layout == SFPC_LAYOUT_AUTO, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP, "-mat_hybsf_grid gives the grid layout: it does not go with -mat_hybsf_layout %s", SFPCLayouts[layout]);
  PetscCall(MatCreateHYBSF(A, tri, unit, grid ? SFPC_LAYOUT_AUTO : layout, levels, M));
  if (grid) { /* a grid the pattern does not fit: no half-made matrix is left to the caller */
    PetscErrorCode ierr = MatHYBSFSetGrid(*M, dims[0], dims[1], dims[2]);
    if (ierr) PetscCall(MatDestroy(M));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert(T, MATSEQAIJ or MATSEQAIJCUSPARSE, ...): the triangle as stored, its diagonal 1 / (the stored inverse), so A's to rounding (1 when unit). */
static PetscErrorCode MatConvert_HYBSF(Mat B, MatType type, MatReuse reuse, Mat *M)
{
  Mat_HYBSF     *h = (Mat_HYBSF *)B->data;
  PetscInt      *i, *j, n = B->rmap->n;
  PetscScalar   *a;
  Mat            C;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(reuse != MAT_INPLACE_MATRIX, PetscObjectComm((PetscObject)B), PETSC_ERR_SUP, "MATHYBSF converts to a new matrix only");
  PetscCall(HYBSFCheckBuilt(B));
  if (h->ondevice) PetscCall(MatHYBSFGetCSR_Device(h, &i, &j, &a));
  else {
    PetscCall(PetscMalloc3(n + 1, &i, h->F.nnz, &j, h->F.nnz, &a));
    PetscCall(PetscArraycpy(i, h->F.i, n + 1));
    PetscCall(PetscArraycpy(j, h->F.j, h->F.nnz));
    PetscCall(PetscArraycpy(a, h->F.a, h->F.nnz));
  }
  for (PetscInt r = 0; r < n; r++) { /* diagonal slots hold inverses */
    for (PetscInt k = i[r]; k < i[r + 1]; k++)
      if (j[k] == r) a[k] = h->unit ? 1.0 : 1.0 / a[k];
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)B), &C));
  PetscCall(MatSetSizes(C, n, n, n, n));
  PetscCall(MatSetType(C, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(C, i, j, a));
  PetscCall(PetscFree3(i, j, a));
  /* a refused target type (a triangle is no SBAIJ) leaves no intermediate matrix behind */
  ierr = MatConvert(C, type, MAT_INPLACE_MATRIX, &C);
  if (!ierr && reuse == MAT_REUSE_MATRIX) ierr = MatCopy(C, *M, DIFFERENT_NONZERO_PATTERN);
  if (ierr || reuse == MAT_REUSE_MATRIX) PetscCall(MatDestroy(&C));
  else *M = C;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HYBSFSolve(Mat B, Vec b, Vec x, PetscBool transpose)
{
  Mat_HYBSF      *h     = (Mat_HYBSF *)B->data;
  const PetscBool lower = (PetscBool)(h->tri == MAT_HYBSF_LOWER);

  PetscFunctionBegin;
  PetscCall(HYBSFCheckBuilt(B));
  PetscCall(PetscLogEventBegin(SFPC_TriSolve, B, b, x, 0));
  if (h->ondevice) PetscCall(MatHYBSFSolve_Device(h, b, x, transpose));
  else {
    const PetscScalar *ba;
    PetscScalar       *xa;

    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    if (transpose) PetscCall(SFPCTriFactorSweepTranspose_Host(&h->F, lower, h->unit, ba, xa));
    else PetscCall(SFPCTriFactorSweep_Host(&h->F, lower, h->unit, ba, xa));
    PetscCall(PetscLogFlops(2.0 * (h->F.nnz - h->F.n) + (h->unit ? 0 : h->F.n)));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
  }
  PetscCall(PetscLogEventEnd(SFPC_TriSolve, B, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_HYBSF(Mat B, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(HYBSFSolve(B, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_HYBSF(Mat B, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(HYBSFSolve(B, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatHYBSFGetInfo - What a `MATHYBSF` matrix chose (layout, levels) and holds (levels, warp tasks, memory).

  Not Collective

  Input Parameter:
. T - the `MATHYBSF` matrix

  Output Parameter:
. info - the figures; on the host the layout is csr and there are no warp tasks

  Level: intermediate

.seealso: `MATHYBSF`, `MatCreateHYBSF()`
@*/
PetscErrorCode MatHYBSFGetInfo(Mat T, MatHYBSFInfo *info)
{
  Mat_HYBSF *h;
  PetscBool  ishybsf;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(T, MAT_CLASSID, 1);
  PetscAssertPointer(info, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)T, MATHYBSF, &ishybsf));
  PetscCheck(ishybsf, PetscObjectComm((PetscObject)T), PETSC_ERR_ARG_WRONG, "Not a MATHYBSF matrix");
  h = (Mat_HYBSF *)T->data;
  PetscCall(HYBSFCheckBuilt(T));
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->ondevice = h->ondevice;
  if (h->ondevice) {
#if defined(SFPC_HAVE_CUDA)
    const SFPCSchedule *S = h->tri == MAT_HYBSF_LOWER ? &h->T->lower : &h->T->upper;
    info->layout          = S->layout;
    info->levels          = S->levels;
    info->nlevels         = S->nlevels;
    info->ntasks          = S->layout == SFPC_LAYOUT_GRID ? (PetscInt)SFPCGridTasks(h->T) : S->ntasks;
    info->nnz             = S->nnz;
    info->block_size      = h->T->blocks.use[h->tri == MAT_HYBSF_LOWER ? 0 : 1] ? h->T->blocks.bs : 1;
    PetscCall(SFPCTriDeviceBytes(h->T, &info->bytes, &info->csr_bytes));
#endif
  } else {
    info->layout     = SFPC_LAYOUT_CSR;
    info->levels     = SFPC_LEVELS_ASAP;
    info->block_size = 1;
    info->nnz        = h->F.nnz - h->F.n;
    info->bytes      = (PetscLogDouble)h->F.nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) + (h->F.n * 2.0 + 1) * sizeof(PetscInt);
    info->csr_bytes  = (PetscLogDouble)info->nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) + (h->F.n + 1.0) * sizeof(PetscInt);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatHYBSFSetGrid - Tells a `MATHYBSF` matrix that its rows are the points of an nx x ny x nz grid (x fastest) and its
  triangle part of the grid's 7-point stencil or 27-point box, so that its GPU solves walk the grid (the grid layout).

  Collective

  Input Parameters:
+ T  - the `MATHYBSF` matrix
. nx - points along x (the fastest index)
. ny - points along y
- nz - points along z

  Level: intermediate

  Notes:
  A pattern with an entry outside its row's 27-point box is an error. On the GPU the solves switch to the grid
  layout (one warp per 32 lines along x: fewer L2 round trips on the dependency chain than the level layouts); on the
  host the check is made and the solves are unchanged. Transposed solves keep a level layout.
  Option: `-mat_hybsf_grid nx,ny,nz` with `MatConvert()`.

.seealso: `MATHYBSF`, `MatCreateHYBSF()`, `MatHYBSFGetInfo()`
@*/
PetscErrorCode MatHYBSFSetGrid(Mat T, PetscInt nx, PetscInt ny, PetscInt nz)
{
  Mat_HYBSF     *h;
  PetscBool      ishybsf;
  const PetscInt dims[3] = {nx, ny, nz};

  PetscFunctionBegin;
  PetscValidHeaderSpecific(T, MAT_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)T, MATHYBSF, &ishybsf));
  PetscCheck(ishybsf, PetscObjectComm((PetscObject)T), PETSC_ERR_ARG_WRONG, "Not a MATHYBSF matrix");
  h = (Mat_HYBSF *)T->data;
  PetscCall(HYBSFCheckBuilt(T));
  if (h->ondevice) PetscCall(MatHYBSFSetGrid_Device(h, dims));
  else {
    PetscInt r, c;
    PetscCall(SFPCGridCheckSize(h->F.n, dims, "The grid layout"));
    PetscCall(SFPCGridFindOutside_Host(&h->F, dims, PETSC_TRUE, &r, &c));
    if (r >= 0) PetscCall(SFPCGridLayoutError(dims, PETSC_FALSE, r, c));
  }
  for (int d = 0; d < 3; d++) h->opt.grid[d] = dims[d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_HYBSF(Mat B, PetscViewer viewer)
{
  Mat_HYBSF *h = (Mat_HYBSF *)B->data;
  PetscBool  isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS); /* as PETSc's types do with viewers they have nothing for; MatConvert() to AIJ shows the entries */
  if (!h->built) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "MATHYBSF, not built\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "MATHYBSF: %s triangle, %s diagonal, %" PetscInt_FMT " rows, solves on the %s\n", MatHYBSFTriangles[h->tri], h->unit ? "unit" : "non-unit", B->rmap->n, h->ondevice ? "GPU (sync-free)" : "host"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
#if defined(SFPC_HAVE_CUDA)
  if (h->ondevice) PetscCall(SFPCTriDeviceView(h->T, viewer));
#endif
  if (!h->ondevice) {
    MatHYBSFInfo info;
    PetscCall(MatHYBSFGetInfo(B, &info));
    PetscCall(PetscViewerASCIIPrintf(viewer, "%" PetscInt_FMT " off-diagonal entries in CSR, %.3g MiB\n", info.nnz, (double)(info.bytes / 1048576.0)));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_HYBSF(Mat B)
{
  Mat_HYBSF *h = (Mat_HYBSF *)B->data;

  PetscFunctionBegin;
  PetscCall(MatHYBSFReset_Device(h));
  PetscCall(SFPCTriFactorDestroy(&h->F));
  PetscCall(PetscFree(B->data));
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   MatConvert() gives its result the source's symmetry flags (MatSetOption() after the converter), so a triangle taken
   from a symmetric or SPD matrix would claim to be so, and so would its conversion back to AIJ (which
   MatIsSymmetric() and MatConvert() to SBAIJ then trust). A triangle holds one half of its source: those flags are
   undone here, whoever sets them.
*/
static PetscErrorCode MatSetOption_HYBSF(Mat B, MatOption op, PetscBool flg)
{
  PetscFunctionBegin;
  if (flg && (op == MAT_SYMMETRIC || op == MAT_HERMITIAN || op == MAT_SPD || op == MAT_STRUCTURALLY_SYMMETRIC)) {
    PetscCall(PetscInfo(B, "MATHYBSF holds one triangle: %s ignored\n", MatOptions[op]));
    B->symmetric = B->hermitian = B->spd = B->structurally_symmetric = PETSC_BOOL3_UNKNOWN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATHYBSF - "hybsf": one triangle of a square sparse matrix for synchronization-free triangular solves; see `MatCreateHYBSF()`.

   Options Database Keys (prefix of the source matrix, read by `MatConvert()`):
+  -mat_hybsf_triangle <lower,upper> - the triangle, diagonal included (default lower)
.  -mat_hybsf_unit_diagonal <false> - take the diagonal as 1
.  -mat_hybsf_layout <auto,csr,hyb,grid> - storage on the GPU (auto: the grid layout where the pattern reads as a grid, see `MatCreateHYBSF()`; grid needs -mat_hybsf_grid, which goes with auto or grid only)
.  -mat_hybsf_levels <auto,asap,alap> - dependency levels ordering the rows
-  -mat_hybsf_grid <nx,ny,nz> - the rows are the points of this grid (x fastest): the grid layout, `MatHYBSFSetGrid()`

   Level: intermediate

   Notes:
   Supports `MatSolve()`, `MatSolveTranspose()` (on the GPU through a transposed copy analysed on first use), `MatView()`, and `MatConvert()` to and from
   `MATSEQAIJ`/`MATSEQAIJCUSPARSE` (`MAT_REUSE_MATRIX` from AIJ refills the values of the same pattern and keeps the analysis).

.seealso: `MatCreateHYBSF()`, `MatHYBSFGetInfo()`, `PCSFILU`
M*/
PetscErrorCode MatCreate_HYBSF(Mat B)
{
  Mat_HYBSF *h;

  PetscFunctionBegin;
  PetscCall(PetscNew(&h));
  PetscCall(SFPCTriOptionsDefault(&h->opt));
  h->opt.solves_only      = PETSC_TRUE; /* one triangle, no factorization ordered by its levels */
  B->data                 = h;
  B->ops->solve           = MatSolve_HYBSF;
  B->ops->solvetranspose  = MatSolveTranspose_HYBSF;
  B->ops->view            = MatView_HYBSF;
  B->ops->destroy         = MatDestroy_HYBSF;
  B->ops->convert         = MatConvert_HYBSF;
  B->ops->convertfrom     = MatConvertFrom_HYBSF;
  B->ops->setoption       = MatSetOption_HYBSF;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATHYBSF));
  PetscFunctionReturn(PETSC_SUCCESS);
}
