/*
   PCSFDILU: multicolor DILU as a preconditioner and as a multigrid level smoother (with a
   PCApplyRichardson() for -mg_levels_ksp_type richardson). This file picks the path: the host
   (dilu_host.c, the reference), the GPU (dilu_device.cu) or, with -pc_sfdilu_parallel, the global
   DILU across ranks (dilu_global.c on the host; its E and apply on the GPU for a CUSPARSE matrix,
   dilu_global_device.cu); otherwise on MPI matrices each rank smooths its diagonal block,
   block-Jacobi style.
*/
#include "dilu_blocks.h"
#include <sfpc/private/pivot.h>
#include <petscdmda.h>

const char *const PCSFDILUColoringTypes[] = {"auto", "greedy", "jpl", "grid", "PCSFDILUColoringType", "PCSFDILU_COLORING_", NULL};
const char *const PCSFDILUSweepTypes[]    = {"auto", "syncfree", "percolor", "parts", "PCSFDILUSweepType", "PCSFDILU_SWEEP_", NULL};
const char *const PCSFDILUOrderTypes[]    = {"auto", "color", "local", "PCSFDILUOrderType", "PCSFDILU_ORDER_", NULL};

/*
   Whether a vector of n entries takes more than 40% of the GPU's L2 (l2 bytes): past that, a color's pass
   in color order reads its neighbours more and more from DRAM. H100 (50 MB of L2), 7-point Poisson, apply
   ms, sync-free in color order / local order / per color: 128^3 (a vector 34% of L2) 0.371 / 0.418 / 0.458,
   144^3 (48%) 0.62 / 0.58 / 0.63, 160^3 (66%) 1.00 / 0.77 / 0.86, 182^3 1.80 / 1.09 / 1.28, 256^3 5.96 /
   2.79 / 3.25; the 2-color greedy coloring at 128^3 (1M rows a color) 0.219 sync-free against 0.239 per
   color (bench/README.md).
*/
#define SFDILU_LOCAL_L2_FRACTION 0.4
PetscBool SFDILUBeyondL2(PetscInt n, PetscLogDouble l2)
{
  return (PetscBool)((PetscLogDouble)n * sizeof(PetscScalar) > SFDILU_LOCAL_L2_FRACTION * l2);
}

/* auto: by parts where the coloring found they pay (PartsPay(): at least 8192 entries of A a part); otherwise sync-free, except in color order (asked for) beyond L2, where one launch per color was faster (above). */
PCSFDILUSweepType SFDILUSweepUsed(SFDILU *s)
{
  if (s->sweep != PCSFDILU_SWEEP_AUTO) return s->sweep;
  if (s->byparts) return PCSFDILU_SWEEP_PARTS;
  return s->ordered == PCSFDILU_ORDER_COLOR && s->beyondl2 ? PCSFDILU_SWEEP_PERCOLOR : PCSFDILU_SWEEP_SYNCFREE;
}

/* The GPU row order to take with a coloring: color for the per-color sweeps; auto: local beyond L2, color below (above). */
PCSFDILUOrderType SFDILUOrderUsed(SFDILU *s)
{
  if (s->sweep == PCSFDILU_SWEEP_PERCOLOR) return PCSFDILU_ORDER_COLOR;
  if (s->gpuorder != PCSFDILU_ORDER_AUTO) return s->gpuorder;
  return s->beyondl2 ? PCSFDILU_ORDER_LOCAL : PCSFDILU_ORDER_COLOR;
}

/* The sequential matrix DILU works on (A itself, or the diagonal block of an MPI A) and whether it is on the GPU. */
static PetscErrorCode SFDILULocalMatrix(Mat A, Mat *Ad, PetscBool *ondevice)
{
  PetscBool cusparse, bound;

  PetscFunctionBegin;
  *ondevice = PETSC_FALSE;
  PetscCall(SFPCLocalAIJ(A, "PCSFDILU", Ad, &cusparse, &bound));
  *ondevice = (PetscBool)(cusparse && !bound);
#if !defined(SFPC_HAVE_CUDA)
  PetscCheck(!*ondevice, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "This SFPC was built without CUDA (SFPC_WITH_CUDA=0): PCSFDILU cannot run on a %s matrix; use -mat_type aij", ((PetscObject)A)->type_name);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E of A + shift I, on the host or on the GPU. */
static PetscErrorCode SFDILUSetUpValues(SFDILU *s, Mat Ad, PetscReal shift, PetscReal *rmax)
{
  PetscFunctionBegin;
  if (s->glob && s->ondevice) PetscCall(SFDILUSetUp_GlobalDevice(s, Ad, shift, rmax));
  else if (s->glob) PetscCall(SFDILUSetUp_Global(s, Ad, shift, rmax));
  else if (s->ondevice) PetscCall(SFDILUSetUp_Device(s, Ad, shift, rmax));
  else if (s->bs > 1) PetscCall(SFDILUSetUpBlocks_Host(s, Ad, shift, rmax));
  else PetscCall(SFDILUSetUp_Host(s, Ad, shift, rmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether the rows of an n-row block are colored by the grid where one is known: when asked for, and by auto above
   the small levels' size (bench/README.md, the grid coloring: on 7-point grids on an H100 its applies took 1.7-1.9x
   less time than JPL's and its GMRES iterations were as few or fewer; greedy on the host took more iterations than either).
*/
PetscBool SFDILUWantsGrid(const SFDILU *s, PetscInt n)
{
  return (PetscBool)(s->coloring == PCSFDILU_COLORING_GRID || (s->coloring == PCSFDILU_COLORING_AUTO && n > SFDILU_AUTO_SMALL_ROWS));
}

/*
   The same for the rows being colored now: row by row, or by points of a DMDA's fields (-pc_sfdilu_blocks true; a point's
   color is then its residue); an empty block (a rank with no rows) has no grid to find and nothing to color.
*/
PetscBool SFDILUTriesGrid(const SFDILU *s, PetscInt n)
{
  return (PetscBool)(n > 0 && (s->bs == 1 || (s->grid.dim > 0 && s->grid.dof == s->bs)) && SFDILUWantsGrid(s, n));
}

/*
   The grid of the rows being colored: s->grid where a DMDA gave one, else dims read off the pattern (SFPCGridGuess()
   with SFDILU_GRID_GUESS: a 7- or 27-point stencil in natural order, or a 5- or 9-point one of a plane, one field;
   dims[0] = 0 for none). found: whether there is one; none is an error when the grid coloring was asked for (auto takes
   another coloring).
*/
PetscErrorCode SFDILUGridFromDims(SFDILU *s, const PetscInt dims[3], PetscBool *found)
{
  PetscFunctionBegin;
  if (!s->grid.dim && dims[0] > 0) {
    s->grid.dof = 1;
    s->grid.m   = s->gridmod;
    s->grid.dim = dims[2] > 1 ? 3 : 2;
    s->grid.guessed = PETSC_TRUE;
    for (int d = 0; d < 3; d++) {
      s->grid.start[d] = 0;
      s->grid.size[d]  = dims[d];
    }
  }
  *found = (PetscBool)(s->grid.dim > 0);
  PetscCheck(*found || s->coloring != PCSFDILU_COLORING_GRID, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "-pc_sfdilu_coloring grid needs the grid: attach a DMDA to the PC (KSPSetDM()/PCSetDM()), or give a matrix whose pattern is a 7- or 27-point stencil (or a 2-D 5- or 9-point one) of one field in natural order (none could be read from this one's)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Entry a_rc couples two rows of one grid color (couplings beyond the stencil the modulus allows, or a periodic wrap):
   an error when the grid coloring was asked for (on comm: every rank of it raises it); under auto only said (-info),
   and another coloring taken.
*/
PetscErrorCode SFDILUGridConflictOn(MPI_Comm comm, const SFDILU *s, PetscInt r, PetscInt c, PetscInt color)
{
  const SFDILUGrid *g = &s->grid;

  PetscFunctionBegin;
  PetscCheck(s->coloring != PCSFDILU_COLORING_GRID || !g->guessed, comm, PETSC_ERR_ARG_INCOMP, "-pc_sfdilu_coloring grid needs a 7- or 27-point stencil (or a 2-D 5- or 9-point one) of one field in natural order (x fastest): no DMDA gave the grid and this pattern is not one (a few of its rows read as a %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, but rows %" PetscInt_FMT " and %" PetscInt_FMT " are coupled and both take its color %" PetscInt_FMT "); attach the DMDA (KSPSetDM()/PCSetDM()) or take another -pc_sfdilu_coloring", g->size[0], g->size[1], g->size[2], r, c, color);
  PetscCheck(s->coloring != PCSFDILU_COLORING_GRID, comm, PETSC_ERR_ARG_INCOMP, "-pc_sfdilu_coloring grid is not a proper coloring of this matrix: rows %" PetscInt_FMT " and %" PetscInt_FMT " are coupled and both take color %" PetscInt_FMT " (grid box %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " fields, modulus %" PetscInt_FMT "): a coupling farther than %" PetscInt_FMT " points along each axis, or across a periodic boundary whose length is not a multiple of the modulus; raise -pc_sfdilu_grid_modulus or take another -pc_sfdilu_coloring", r, c, color, g->size[0], g->size[1], g->size[2], g->dof, g->m, g->m - 1);
  PetscCall(PetscInfo(NULL, "auto coloring: the grid's colors couple rows %" PetscInt_FMT " and %" PetscInt_FMT "; another coloring taken\n", r, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same for one block, found by this rank alone. */
PetscErrorCode SFDILUGridConflict(const SFDILU *s, PetscInt r, PetscInt c, PetscInt color)
{
  PetscFunctionBegin;
  PetscCall(SFDILUGridConflictOn(PETSC_COMM_SELF, s, r, c, color));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The grid coloring's grid from a DMDA attached to the PC (any dimension, fields and stencil), whose rows on
   this rank are in PETSc's ordering the points of its box, fields fastest; the modulus at least the stencil
   width + 1. Without a DMDA the grid is read from the pattern when the rows are colored (dim 0 until then).
*/
static PetscErrorCode SFDILUGridFromDM(PC pc, Mat A, SFDILU *s)
{
  PetscBool isda = PETSC_FALSE;
  PetscInt  dim, dof, sw, nrows, xs[3], xm[3];

  PetscFunctionBegin;
  s->grid.dim     = 0;
  s->grid.guessed = PETSC_FALSE;
  if (pc->dm) PetscCall(PetscObjectTypeCompare((PetscObject)pc->dm, DMDA, &isda));
  if (!isda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDAGetInfo(pc->dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, &sw, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(pc->dm, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  PetscCall(MatGetLocalSize(A, &nrows, NULL));
  { /* the DMDA splits the grid as the matrix's rows on every rank, or it is not this matrix's grid (decided on all ranks together) */
    PetscMPIInt fits = nrows == dof * xm[0] * xm[1] * xm[2], all;
    PetscCallMPI(MPIU_Allreduce(&fits, &all, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)pc)));
    PetscCheck(all || s->coloring != PCSFDILU_COLORING_GRID, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "-pc_sfdilu_coloring grid: the PC's DMDA does not split the unknowns as the matrix's rows (on this rank %" PetscInt_FMT " unknowns, %" PetscInt_FMT " rows)", dof * xm[0] * xm[1] * xm[2], nrows);
    if (!all) PetscFunctionReturn(PETSC_SUCCESS); /* auto: not this matrix's grid */
  }
  s->grid.dim = dim;
  s->grid.dof = dof;
  s->grid.m   = PetscMax(s->gridmod, sw + 1);
  for (int d = 0; d < 3; d++) {
    s->grid.start[d] = d < dim ? xs[d] : 0;
    s->grid.size[d]  = d < dim ? xm[d] : 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyRichardson_SFDILU(PC, Vec, Vec, Vec, PetscReal, PetscReal, PetscReal, PetscInt, PetscBool, PetscInt *, PCRichardsonConvergedReason *);

static PetscErrorCode PCSetUp_SFDILU(PC pc)
{
  SFDILU     *s = (SFDILU *)pc->data;
  Mat         Ad;
  PetscInt    m, n, bs;
  PetscBool   ondevice;
  const char *rowswhy;

  PetscFunctionBegin;
  PetscCall(MatGetSize(pc->pmat, &m, &n));
  PetscCheck(m == n, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "PCSFDILU needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(SFDILULocalMatrix(pc->pmat, &Ad, &ondevice));
  PetscCall(MatGetLocalSize(Ad, &m, NULL));
  if (s->parallel) { /* the whole matrix: colored on the host, E and the apply where the matrix is */
    if (ondevice) PetscCall(PetscInfo(pc, "-pc_sfdilu_parallel: the symmetrized pattern on the host (once per pattern); coloring rounds, E and the sweeps on the GPU\n"));
    Ad = pc->pmat;
  }
  PetscCall(SFDILUBlockSize(pc, Ad, &bs, &rowswhy));
  /* a new pattern is colored again; new values of the same pattern only redo E */
  if (!pc->setupcalled || pc->flag != SAME_NONZERO_PATTERN || !(s->color || s->dev) || s->n != m || ondevice != s->ondevice || s->coloring_changed || bs != s->bsasked) {
    PetscCall(SFPCEisenstatReset(&s->eis)); /* its vectors follow the factor between host and device */
    PetscCall(SFDILUReset_Global(s)); /* first: it frees its own s->color and s->einv */
    PetscCall(SFDILUReset_Host(s));
    PetscCall(SFDILUReset_Device(s));
    PetscCall(VecDestroy(&s->xd)); /* staging vectors of the previous pattern's layout */
    PetscCall(VecDestroy(&s->yd));
    s->ondevice         = ondevice;
    s->coloring_changed = PETSC_FALSE;
    s->bsasked          = bs;
    s->rowswhy          = rowswhy; /* the options' reason; SFDILUBlocksDecide() may give the grid's or the pattern's */
    if (s->coloring == PCSFDILU_COLORING_GRID || s->coloring == PCSFDILU_COLORING_AUTO) PetscCall(SFDILUGridFromDM(pc, Ad, s));
    if (bs > 1) PetscCall(SFDILUBlocksDecide(pc, Ad, ondevice, &bs));
    s->bs = bs;
    if (s->parallel) PetscCall(SFDILUColor_Global(s, Ad));
    else if (ondevice) PetscCall(SFDILUColor_Device(s, Ad));
    else PetscCall(SFDILUColor_Host(s, Ad));
  }
  PetscCall(PetscObjectReference((PetscObject)Ad));
  PetscCall(MatDestroy(&s->A));
  s->A = Ad;
  {
    PetscReal rmax;
    s->shifted = 0;
    PetscCall(SFDILUSetUpValues(s, Ad, 0, &rmax));
    for (PetscInt k = 0; s->shift && s->failure == PC_FACTOR_NUMERIC_ZEROPIVOT && k < 64; k++) {
      s->shifted = SFPCNonzeroShift(s->shiftamount, rmax, (int)k);
      PetscCall(PetscInfo(pc, "DILU diagonal failed in row %" PetscInt_FMT "; again with the diagonal shifted by %g\n", s->failrow, (double)s->shifted));
      PetscCall(SFDILUSetUpValues(s, Ad, s->shifted, &rmax));
    }
  }
  if (!ondevice && (!s->z || s->n != m)) {
    PetscCall(VecDestroy(&s->z));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &s->z));
  }
  pc->failedreason = s->failure;
  PetscCall(PCReduceFailedReason(pc)); /* a failure on any rank is every rank's: their Richardson loops stop together (SFPCRichardsonSetUpFailed()) */
  if (s->glob) s->rstart = 0;
  else PetscCall(MatGetOwnershipRange(pc->pmat, &s->rstart, NULL));
  if (s->failure != PC_NOERROR) {
    PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, SFPCFailureClass(s->failure, PETSC_ERR_MAT_LU_ZRPVT), "PCSFDILU: the DILU diagonal failed (%s) in row %" PetscInt_FMT, PCFailedReasons[s->failure], s->rstart + s->failrow);
    PetscCall(PetscInfo(pc, "The DILU diagonal failed (%s) in row %" PetscInt_FMT "\n", PCFailedReasons[s->failure], s->rstart + s->failrow));
  }
  pc->ops->applyrichardson = s->eis.use ? NULL : PCApplyRichardson_SFDILU; /* Richardson on the form's operator is KSPRICHARDSON's own loop */
  PetscCall(SFPCSetUpStampTake(pc, &s->stamp));
  PetscCall(PCSFDILUEisenstatSetUp(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Device arrays of the local parts of x (read) and y (read or write) for a GPU factor. Host vectors
   (a GPU matrix used with -vec_type standard) go through device copies, said once under -info.
*/
static PetscErrorCode SFDILUGetDeviceArrays(SFDILU *s, Vec x, Vec y, PetscBool ywrite, const PetscScalar **xa, PetscScalar **ya)
{
  PetscFunctionBegin;
  PetscCall(SFPCStageVecs(x, y, (PetscBool)!ywrite, "PCSFDILU", &s->xd, &s->yd, &s->xs, &s->ys));
  PetscCall(VecGetArrayReadAndMemType(s->xs, xa, NULL));
  if (ywrite) PetscCall(VecGetArrayWriteAndMemType(s->ys, ya, NULL));
  else PetscCall(VecGetArrayAndMemType(s->ys, ya, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFDILURestoreDeviceArrays(SFDILU *s, Vec y, PetscBool ywrite, const PetscScalar **xa, PetscScalar **ya)
{
  PetscFunctionBegin;
  if (ywrite) PetscCall(VecRestoreArrayWriteAndMemType(s->ys, ya));
  else PetscCall(VecRestoreArrayAndMemType(s->ys, ya));
  PetscCall(VecRestoreArrayReadAndMemType(s->xs, xa));
  PetscCall(SFPCUnstageVecs(y, s->ys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   y = M^{-1} x, or M^{-T} x: the same factor and sweeps, with a_ji in place of a_ij (sfdilu.h). On one rank's GPU the
   weight omega rides on the scatter back to natural order (*weighted: y = omega M^{-1} x); elsewhere it is left to the caller.
*/
static PetscErrorCode SFDILUApplyOp(PC pc, PetscBool transpose, PetscReal omega, Vec x, Vec y, PetscBool *weighted)
{
  SFDILU            *s = (SFDILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya, *za;

  PetscFunctionBegin;
  *weighted = PETSC_FALSE;
  if (s->failure != PC_NOERROR) { /* as a failed factor's MatSolve(): the KSP sees Inf and stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->ondevice) {
    PetscCall(SFDILUGetDeviceArrays(s, x, y, PETSC_TRUE, &xa, &ya));
    if (s->glob) PetscCall(SFDILUApply_GlobalDevice(s, transpose, xa, ya));
    else PetscCall(SFDILUApply_Device(s, transpose, omega, xa, ya));
    PetscCall(SFDILURestoreDeviceArrays(s, y, PETSC_TRUE, &xa, &ya));
    *weighted = (PetscBool)!s->glob;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(VecGetArrayWrite(s->z, &za));
  if (s->glob) PetscCall(SFDILUApply_Global(s, transpose, xa, za, ya));
  else PetscCall(SFDILUApply_Host(s, transpose, xa, za, ya));
  PetscCall(VecRestoreArrayWrite(s->z, &za));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   omega M^{-1} x or omega M^{-T} x (the Eisenstat form's D while it is active). The PC is omega M^{-1}: PCApplyRichardson()
   steps x += omega M^{-1} r, and where KSPRICHARDSON runs its own loop instead (a monitor, a transposed solve, a null space:
   KSPSolve_Richardson()) it steps x += PCApply(r), so the weight must be in the apply for the two to be one iteration.
   A Krylov method does not see a constant factor.
*/
static PetscErrorCode SFDILUApplyWeighted(PC pc, PetscBool transpose, PetscReal omega, Vec x, Vec y)
{
  SFDILU   *s        = (SFDILU *)pc->data;
  PetscBool weighted = PETSC_FALSE;

  PetscFunctionBegin;
  if (s->eis.active) PetscCall(SFPCEisenstatApply(&s->eis, x, y));
  else PetscCall(SFDILUApplyOp(pc, transpose, omega, x, y, &weighted));
  if (!weighted && omega != 1) PetscCall(VecScale(y, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M^{-1} x without the weight: the Richardson loops' correction, which they weight themselves */
static PetscErrorCode PCApplyUnweighted_SFDILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(SFDILUApplyWeighted(pc, PETSC_FALSE, 1.0, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_SFDILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(SFDILUApplyWeighted(pc, PETSC_FALSE, ((SFDILU *)pc->data)->omega, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_SFDILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, x, y));
  PetscCall(SFDILUApplyWeighted(pc, PETSC_TRUE, ((SFDILU *)pc->data)->omega, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Up to its steps of x += omega M^{-1} (b - A x). As a smoother (no test: the default, see SFPCRichardsonTests()), on the
   GPU, on one rank and with the operator the preconditioning matrix set up from (SFPCSetUpStampHolds()), a step is three kernels (residual fused into the
   gather, two sweeps, update fused into the scatter); otherwise, and in a solve by Richardson iterations
   (-pc_sfdilu_richardson_test: each step tested), residual, apply and update as three calls (SFPCRichardsonSweeps()).
*/
static PetscErrorCode PCApplyRichardson_SFDILU(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  SFDILU     *s = (SFDILU *)pc->data;
  const PetscBool test = SFPCRichardsonTests(s->richtest, rtol, abstol);
  PetscMPIInt     size;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, b, x));
  PetscCall(SFPCCheckApplySizes(pc, w, x));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCall(SFPCSetUpStampHolds(pc, &s->stamp, &same)); /* the fused step reads s->A, set up from pc->pmat, as the operator */
  if (s->ondevice && !s->glob && size == 1 && same && s->failure == PC_NOERROR && !test) {
    for (PetscInt k = 0; k < its; k++) {
      const PetscBool    zero = (PetscBool)(k == 0 && guesszero);
      const PetscScalar *ba;
      PetscScalar       *xa;
      PetscCall(SFDILUGetDeviceArrays(s, b, x, zero, &ba, &xa));
      PetscCall(SFDILURichardson_Device(s, s->A, ba, xa, zero));
      PetscCall(SFDILURestoreDeviceArrays(s, x, zero, &ba, &xa));
    }
  } else {
    if (!s->d) PetscCall(VecDuplicate(b, &s->d));
    PetscCall(SFPCRichardsonSweeps(pc, PCApplyUnweighted_SFDILU, s->omega, b, x, w, s->d, its, guesszero, test, s->richnorm, rtol, abstol, dtol, outits, reason));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The implementations of PCSFDILUSet/Get{Coloring,Sweep,Order}Type(), also what -pc_sfdilu_coloring, -pc_sfdilu_sweep and
   -pc_sfdilu_order call: a change marks the coloring (and the GPU row order and factor analysis chosen with it) to be
   redone at the next set-up.
*/
static PetscErrorCode PCSFDILUSetColoringType_SFDILU(PC pc, PCSFDILUColoringType type)
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type >= PCSFDILU_COLORING_AUTO && type <= PCSFDILU_COLORING_GRID, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCSFDILUColoringType %d", (int)type);
  if (type != s->coloring) s->coloring_changed = PETSC_TRUE;
  s->coloring = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sweep and order together: the option path sets both at once, the setters one with the other as it is */
static PetscErrorCode SFDILUSetSweepOrder(PC pc, PCSFDILUSweepType sweep, PCSFDILUOrderType order)
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(sweep >= PCSFDILU_SWEEP_AUTO && sweep <= PCSFDILU_SWEEP_PARTS, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCSFDILUSweepType %d", (int)sweep);
  PetscCheck(order >= PCSFDILU_ORDER_AUTO && order <= PCSFDILU_ORDER_LOCAL, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "Unknown PCSFDILUOrderType %d", (int)order);
  PetscCheck(!(order == PCSFDILU_ORDER_LOCAL && sweep == PCSFDILU_SWEEP_PERCOLOR), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "-pc_sfdilu_order local (PCSFDILU_ORDER_LOCAL) needs sync-free sweeps: the per-color sweeps (-pc_sfdilu_sweep percolor, PCSFDILU_SWEEP_PERCOLOR) take each color's rows as one block (-pc_sfdilu_order color)");
  if (sweep != s->sweep || order != s->gpuorder) s->coloring_changed = PETSC_TRUE; /* the row order is chosen with the coloring */
  s->sweep    = sweep;
  s->gpuorder = order;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUSetSweepType_SFDILU(PC pc, PCSFDILUSweepType sweep)
{
  PetscFunctionBegin;
  PetscCall(SFDILUSetSweepOrder(pc, sweep, ((SFDILU *)pc->data)->gpuorder));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUSetOrderType_SFDILU(PC pc, PCSFDILUOrderType order)
{
  PetscFunctionBegin;
  PetscCall(SFDILUSetSweepOrder(pc, ((SFDILU *)pc->data)->sweep, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUSetBlocks_SFDILU(PC pc, PetscBool3 blocks)
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  if (blocks != s->blocks) s->coloring_changed = PETSC_TRUE;
  s->blocks = blocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUGetBlocks_SFDILU(PC pc, PetscBool3 *blocks)
{
  PetscFunctionBegin;
  *blocks = ((SFDILU *)pc->data)->blocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUGetColoringType_SFDILU(PC pc, PCSFDILUColoringType *type)
{
  PetscFunctionBegin;
  *type = ((SFDILU *)pc->data)->coloring;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUGetSweepType_SFDILU(PC pc, PCSFDILUSweepType *sweep)
{
  PetscFunctionBegin;
  *sweep = ((SFDILU *)pc->data)->sweep;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUGetOrderType_SFDILU(PC pc, PCSFDILUOrderType *order)
{
  PetscFunctionBegin;
  *order = ((SFDILU *)pc->data)->gpuorder;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_SFDILU(PC pc, PetscOptionItems PetscOptionsObject)
{
  SFDILU   *s = (SFDILU *)pc->data;
  PetscReal r;
  PetscBool set;
  char      given[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "SFDILU options");
  PetscCall(PetscOptionsReal("-pc_sfdilu_omega", "Weight of the Richardson update x += omega M^{-1} r, in (0, 2)", "PCSFDILU", s->omega, &r, &set));
  PetscCheck(!set || (r > 0 && r < 2), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be in (0, 2)", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfdilu_omega"), (double)r);
  if (set) s->omega = r;
  PetscCall(PetscOptionsBool("-pc_sfdilu_richardson_test", "KSPRICHARDSON through PCApplyRichardson(): test the KSP's tolerances at each step (a solve by Richardson iterations) instead of running its steps (a smoother, as PCSOR's does)", "PCSFDILU", s->richtest, &s->richtest, NULL));
  PetscCall(SFPCRichardsonNormOption(PetscOptionsObject, "-pc_sfdilu_richardson_norm", "PCSFDILU", &s->richnorm));
  PetscCall(PetscOptionsReal("-pc_sfdilu_zeropivot", "E_i fails when |E_i| <= zeropivot * sum_j |a_ij|", "PCSFDILU", s->zeropivot, &r, &set));
  PetscCheck(!set || (r >= 0 && r < 1), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be in [0, 1)", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfdilu_zeropivot"), (double)r);
  if (set) s->zeropivot = r;
  {
    const char *types[] = {"none", "nonzero"};
    PetscInt    type    = s->shift ? 1 : 0;
    PetscCall(PetscOptionsEList("-pc_sfdilu_shift_type", "On a failed E_i: fail the PC (none), or shift the diagonal until none fails (nonzero)", "PCSFDILU", types, 2, types[type], &type, NULL));
    s->shift = (PetscBool)(type == 1);
  }
  PetscCall(PetscOptionsReal("-pc_sfdilu_shift_amount", "First shift, relative to the largest row sum of |A| (doubled at each retry)", "PCSFDILU", s->shiftamount, &r, &set));
  PetscCheck(!set || (r > 0 && !PetscIsInfOrNanReal(r)), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be positive and finite", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfdilu_shift_amount"), (double)r);
  if (set) s->shiftamount = r;
  {
    PCSFDILUColoringType coloring = s->coloring;
    PetscInt             seed     = s->seed;
    PetscCall(PetscOptionsEnum("-pc_sfdilu_coloring", "Coloring: greedy (host), jpl (device for a GPU matrix; the host computes the same), grid (the residues of a structured grid's coordinates), auto: grid above 2^14 rows where a grid is known, else greedy for host matrices and GPU ones of up to 2^14 rows, jpl for larger GPU ones", "PCSFDILU", PCSFDILUColoringTypes, (PetscEnum)coloring, (PetscEnum *)&coloring, NULL));
    PetscInt             gridmod  = s->gridmod;
    PetscCall(PetscOptionsInt("-pc_sfdilu_coloring_seed", "Seed of the JPL coloring's hash", "PCSFDILU", seed, &seed, &set));
    PetscCheck(!set || seed >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be nonnegative", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfdilu_coloring_seed"), seed);
    PetscCall(PetscOptionsInt("-pc_sfdilu_grid_modulus", "Grid coloring: point (i, j, k) takes color (i mod m) + m (j mod m) + m^2 (k mod m) per field (with a DMDA, raised to its stencil width + 1 where smaller)", "PCSFDILU", gridmod, &gridmod, &set));
    PetscCheck(!set || (gridmod >= 2 && gridmod <= 64), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be in [2, 64]", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfdilu_grid_modulus"), gridmod);
    PetscCall(PCSFDILUSetColoringType_SFDILU(pc, coloring));
    if (seed != s->seed || gridmod != s->gridmod) s->coloring_changed = PETSC_TRUE;
    s->seed     = seed;
    s->gridmod  = gridmod;
  }
  {
    PetscBool parallel = s->parallel;
    PetscCall(PetscOptionsBool("-pc_sfdilu_parallel", "The global multicolor DILU across ranks (JPL on global rows, or the grid coloring of the PC's DMDA; before each color only the ghosts of the previous color are exchanged; coloring rounds, E and the sweeps on the GPU for a CUSPARSE matrix) instead of one DILU per diagonal block", "PCSFDILU", parallel, &parallel, NULL));
    if (parallel != s->parallel) s->coloring_changed = PETSC_TRUE;
    s->parallel = parallel;
  }
  {
    PCSFDILUSweepType sweep = s->sweep;
    PCSFDILUOrderType order = s->gpuorder;
    PetscCall(PetscOptionsEnum("-pc_sfdilu_sweep", "GPU sweeps: syncfree (one kernel per sweep), percolor (one launch per color and sweep), parts (one kernel, a block per range of rows, unknowns in shared memory), auto (parts where a block gets at least 256 rows and 8192 entries; else syncfree; percolor only in color order with a vector over 40% of L2)", "PCSFDILU", PCSFDILUSweepTypes, (PetscEnum)sweep, (PetscEnum *)&sweep, NULL));
    PetscCall(PetscOptionsEnum("-pc_sfdilu_order", "GPU row order of the sweeps: color, local (windows of row + color * D, for vectors larger than L2; sync-free only), auto (local where a vector exceeds 40% of L2)", "PCSFDILU", PCSFDILUOrderTypes, (PetscEnum)order, (PetscEnum *)&order, NULL));
    PetscInt          window = s->localwindow;
    PetscCall(PetscOptionsInt("-pc_sfdilu_local_window", "GPU, local order: keys (row + color * D) per window; the sweeps are dispatched by windows of half as many rows", "PCSFDILU", window, &window, NULL));
    PetscCheck(window >= 2 && window <= (1 << 30), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be in [2, 2^30]", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfdilu_local_window"), window);
    PetscCall(SFDILUSetSweepOrder(pc, sweep, order));
    if (window != s->localwindow) s->coloring_changed = PETSC_TRUE; /* the row order is chosen with the coloring */
    s->localwindow = window;
  }
  {
    /* SFPCLayouts without grid: the sweeps run in color order, not on a grid */
    static const char *const layouts[] = {"auto", "csr", "hyb", "SFPCLayout", "SFPC_LAYOUT_", NULL};
    SFPCLayout               layout    = s->engine.layout;
    PetscCall(PetscOptionsEnum("-pc_sfdilu_layout", "GPU sync-free sweeps: storage of the factor in color order, csr or hyb (auto: hyb unless its slabs would take over 3 times the CSR)", "PCSFDILU", layouts, (PetscEnum)layout, (PetscEnum *)&layout, NULL));
    if (layout != s->engine.layout) s->coloring_changed = PETSC_TRUE; /* the factor is analysed with the coloring */
    s->engine.layout = layout;
  }
  PetscCall(SFPCOptionsWarpsPerSM(PetscOptionsObject, "-pc_sfdilu_warps_per_sm", "PCSFDILU", &s->engine.warps_per_sm));
  {
    PetscBool3 blocks = s->blocks;
    PetscCall(PetscOptionsBool3("-pc_sfdilu_blocks", "DILU by the matrix's point-blocks (its block size, at most 8): E's blocks are dense, the points colored (jpl, greedy, or grid by a DMDA of bs fields); true: the pattern must store each coupled pair of points as a whole block; auto: where it does, the other options allow and the rows are not colored by a grid", "PCSFDILUSetBlocks", blocks, &blocks, NULL));
    PetscCall(PCSFDILUSetBlocks(pc, blocks));
  }
  PetscCall(PetscOptionsBool("-pc_sfdilu_eisenstat", "Eisenstat's form: inside KSPSolve() the operator is (E + L_c)^{-1} A (E + U_c)^{-1}, two sweeps without a product with A, preconditioned by E; the same preconditioned spectrum, a MatMult() less an iteration for CG", "PCSFDILU", s->eis.use, &s->eis.use, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_SFDILU(PC pc, PetscViewer viewer)
{
  SFDILU     *s = (SFDILU *)pc->data;
  PetscBool   isascii;
  PetscMPIInt size;
  PetscInt    nsum = s->n;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (!pc->setupcalled) { /* (-ksp_view_pre) nothing colored or computed: no figures to show */
    PetscCall(PetscViewerASCIIPrintf(viewer, "  multicolor DILU%s, omega %g: not set up yet\n", s->parallel ? ", global across ranks" : "", (double)s->omega));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) PetscCallMPI(MPIU_Allreduce(&s->n, &nsum, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
  if (size > 1 && !s->glob) PetscCall(PetscViewerASCIIPrintf(viewer, "  each of %d ranks' diagonal blocks (block Jacobi), %" PetscInt_FMT " rows in all; the figures below are rank 0's block\n", size, nsum));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  multicolor DILU on the %s%s, %" PetscInt_FMT " rows, %" PetscInt_FMT " colors (%s), omega %g\n", s->ondevice ? "GPU" : "host", s->glob ? ", global across ranks" : "", s->glob ? nsum : s->n, s->ncolors,
                                   s->colored == PCSFDILU_COLORING_JPL ? "JPL" : (s->colored == PCSFDILU_COLORING_GRID ? "grid" : "greedy, natural order"), (double)s->omega));
  if (s->bs > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  by point-blocks of %" PetscInt_FMT " rows: the colors are the points', E of dense blocks\n", s->bs));
  else if (s->rowswhy) PetscCall(PetscViewerASCIIPrintf(viewer, "  row by row, not by the matrix's point-blocks (-pc_sfdilu_blocks auto): %s\n", s->rowswhy));
  if (s->colored == PCSFDILU_COLORING_GRID)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  grid coloring: modulus %" PetscInt_FMT ", %" PetscInt_FMT " field(s), box %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT "\n", s->grid.m, s->grid.dof, s->grid.size[0], s->grid.size[1], s->grid.size[2]));
  if (s->shifted > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  diagonal shifted by %g\n", (double)s->shifted));
  if (s->failure != PC_NOERROR) PetscCall(PetscViewerASCIIPrintf(viewer, "  DILU diagonal FAILED (%s) in row %" PetscInt_FMT "\n", PCFailedReasons[s->failure], s->rstart + s->failrow));
  if (size > 1 && !s->glob) { /* rank 0's figures above; a failure anywhere here */
    PCFailedReason failure;
    PetscInt       row, nfailed;

    PetscCall(SFPCBlockFailure(PetscObjectComm((PetscObject)pc), s->rstart, s->failure, s->failrow, &failure, &row, &nfailed));
    if (nfailed) PetscCall(PetscViewerASCIIPrintf(viewer, "  DILU diagonal FAILED on %" PetscInt_FMT " of %d ranks, first (%s) in row %" PetscInt_FMT "\n", nfailed, size, PCFailedReasons[failure], row));
  }
  if (s->ondevice && s->dev) PetscCall(SFDILUView_Device(s, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(SFPCEisenstatView(&s->eis, "E", viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_SFDILU(PC pc)
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFPCEisenstatReset(&s->eis)); /* first: a solve stopped between PCPreSolve() and PCPostSolve() gives b and A back */
  PetscCall(SFDILUReset_Global(s)); /* first: it frees its own s->color and s->einv */
  PetscCall(SFDILUReset_Host(s));
  PetscCall(SFDILUReset_Device(s));
  PetscCall(MatDestroy(&s->A));
  PetscCall(VecDestroy(&s->z));
  PetscCall(VecDestroy(&s->d));
  PetscCall(VecDestroy(&s->xd));
  PetscCall(VecDestroy(&s->yd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_SFDILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_SFDILU(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetColoring_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetColoringType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetColoringType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetBlocks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetBlocks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetSweepType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetSweepType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetOrderType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetOrderType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPreSolveChangeRHS_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFDILUGetColoring_SFDILU(PC pc, PetscInt *ncolors, const PetscInt *color[])
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(s->color || s->dev, PetscObjectComm((PetscObject)pc), PETSC_ERR_ORDER, "Call PCSetUp() before PCSFDILUGetColoring()");
  if (ncolors) *ncolors = s->ncolors;
  if (color) {
    if (s->ondevice && s->dev) PetscCall(SFDILUGetColors_Device(s, color));
    else *color = s->color;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PCSFDILUGetColoring - The coloring a set-up `PCSFDILU` uses on this rank's rows (the diagonal block of an MPI matrix)

  Not Collective

  Input Parameter:
. pc - the `PCSFDILU` preconditioner, after `PCSetUp()`

  Output Parameters:
+ ncolors - the number of colors (pass `NULL` if not wanted)
- color   - the color of each local row, 0 to ncolors - 1 (owned by the PC, valid until its next set-up; `NULL` if not wanted)

  Level: advanced

  Note:
  For a GPU matrix the colors are copied to the host on the first call after each coloring.

.seealso: `PCSFDILU`, `PCSFDILUColoringType`
@*/
PetscErrorCode PCSFDILUGetColoring(PC pc, PetscInt *ncolors, const PetscInt *color[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCSFDILUGetColoring_C", (PC, PetscInt *, const PetscInt *[]), (pc, ncolors, color));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUSetColoringType - Sets how a `PCSFDILU` colors the symmetrized pattern of its matrix

  Logically Collective

  Input Parameters:
+ pc   - the `PCSFDILU` preconditioner (for another type of `PC` the call does nothing)
- type - `PCSFDILU_COLORING_AUTO` (default), `PCSFDILU_COLORING_GREEDY`, `PCSFDILU_COLORING_JPL` or `PCSFDILU_COLORING_GRID`

  Options Database Key:
. -pc_sfdilu_coloring <auto,greedy,jpl,grid> - the same

  Level: intermediate

  Note:
  A type other than the current one is taken at the next set-up (`PCSetUp()` after new operators or new values): the rows
  are then colored again, even for new values of the same nonzero pattern. With -pc_sfdilu_parallel, auto and greedy color by JPL.

.seealso: `PCSFDILU`, `PCSFDILUColoringType`, `PCSFDILUGetColoringType()`, `PCSFDILUGetColoring()`
@*/
PetscErrorCode PCSFDILUSetColoringType(PC pc, PCSFDILUColoringType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCSFDILUSetColoringType_C", (PC, PCSFDILUColoringType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUGetColoringType - Gets the coloring type a `PCSFDILU` was given

  Not Collective

  Input Parameter:
. pc - the `PCSFDILU` preconditioner

  Output Parameter:
. type - the `PCSFDILUColoringType` set (`PCSFDILU_COLORING_AUTO` stays auto: `PCView()` says which coloring a set-up took)

  Level: intermediate

.seealso: `PCSFDILU`, `PCSFDILUColoringType`, `PCSFDILUSetColoringType()`, `PCSFDILUGetColoring()`
@*/
PetscErrorCode PCSFDILUGetColoringType(PC pc, PCSFDILUColoringType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCSFDILUGetColoringType_C", (PC, PCSFDILUColoringType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUSetSweepType - Sets how a GPU `PCSFDILU` runs its two sweeps

  Logically Collective

  Input Parameters:
+ pc    - the `PCSFDILU` preconditioner (for another type of `PC` the call does nothing)
- sweep - `PCSFDILU_SWEEP_AUTO` (default), `PCSFDILU_SWEEP_SYNCFREE`, `PCSFDILU_SWEEP_PERCOLOR` or `PCSFDILU_SWEEP_PARTS`

  Options Database Key:
. -pc_sfdilu_sweep <auto,syncfree,percolor,parts> - the same

  Level: advanced

  Notes:
  The host path (`MATSEQAIJ`) and -pc_sfdilu_parallel do not depend on it. A change is taken at the next set-up
  (`PCSetUp()` after new operators or new values), with a new coloring.

  `PCSFDILU_SWEEP_PERCOLOR` with the order `PCSFDILU_ORDER_LOCAL` is an error (`PETSC_ERR_ARG_INCOMP`), raised by
  whichever of this call and `PCSFDILUSetOrderType()` makes the pair: change the order before choosing the per-color sweeps.

  `PCSFDILU_SWEEP_PARTS` needs a block's shared memory to hold the unknowns of n / (number of SMs) rows (about 25000 on
  an H100 or H200); a larger matrix is an error at set-up (`PETSC_ERR_SUP`). Its transposed apply and Eisenstat's form
  run the sync-free sweeps.

.seealso: `PCSFDILU`, `PCSFDILUSweepType`, `PCSFDILUGetSweepType()`, `PCSFDILUSetOrderType()`
@*/
PetscErrorCode PCSFDILUSetSweepType(PC pc, PCSFDILUSweepType sweep)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, sweep, 2);
  PetscTryMethod(pc, "PCSFDILUSetSweepType_C", (PC, PCSFDILUSweepType), (pc, sweep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUGetSweepType - Gets the sweep type a `PCSFDILU` was given

  Not Collective

  Input Parameter:
. pc - the `PCSFDILU` preconditioner

  Output Parameter:
. sweep - the `PCSFDILUSweepType` set (`PCSFDILU_SWEEP_AUTO` stays auto: `PCView()` on the GPU says which sweeps a set-up took)

  Level: advanced

.seealso: `PCSFDILU`, `PCSFDILUSweepType`, `PCSFDILUSetSweepType()`
@*/
PetscErrorCode PCSFDILUGetSweepType(PC pc, PCSFDILUSweepType *sweep)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(sweep, 2);
  PetscUseMethod(pc, "PCSFDILUGetSweepType_C", (PC, PCSFDILUSweepType *), (pc, sweep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUSetOrderType - Sets the order of the rows in a GPU `PCSFDILU`'s sync-free sweeps

  Logically Collective

  Input Parameters:
+ pc    - the `PCSFDILU` preconditioner (for another type of `PC` the call does nothing)
- order - `PCSFDILU_ORDER_AUTO` (default), `PCSFDILU_ORDER_COLOR` or `PCSFDILU_ORDER_LOCAL`

  Options Database Key:
. -pc_sfdilu_order <auto,color,local> - the same

  Level: advanced

  Notes:
  The host path (`MATSEQAIJ`) and -pc_sfdilu_parallel do not depend on it. A change is taken at the next set-up
  (`PCSetUp()` after new operators or new values), with a new coloring.

  `PCSFDILU_ORDER_LOCAL` with the sweeps `PCSFDILU_SWEEP_PERCOLOR` is an error (`PETSC_ERR_ARG_INCOMP`), raised by
  whichever of this call and `PCSFDILUSetSweepType()` makes the pair: change the sweeps before choosing the local order.

.seealso: `PCSFDILU`, `PCSFDILUOrderType`, `PCSFDILUGetOrderType()`, `PCSFDILUSetSweepType()`
@*/
PetscErrorCode PCSFDILUSetOrderType(PC pc, PCSFDILUOrderType order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, order, 2);
  PetscTryMethod(pc, "PCSFDILUSetOrderType_C", (PC, PCSFDILUOrderType), (pc, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUGetOrderType - Gets the row order a `PCSFDILU` was given

  Not Collective

  Input Parameter:
. pc - the `PCSFDILU` preconditioner

  Output Parameter:
. order - the `PCSFDILUOrderType` set (`PCSFDILU_ORDER_AUTO` stays auto: `PCView()` on the GPU says which order a set-up took)

  Level: advanced

.seealso: `PCSFDILU`, `PCSFDILUOrderType`, `PCSFDILUSetOrderType()`
@*/
PetscErrorCode PCSFDILUGetOrderType(PC pc, PCSFDILUOrderType *order)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(order, 2);
  PetscUseMethod(pc, "PCSFDILUGetOrderType_C", (PC, PCSFDILUOrderType *), (pc, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUSetBlocks - Sets whether a `PCSFDILU` works by the point-blocks of its matrix (block DILU)

  Logically Collective

  Input Parameters:
+ pc     - the `PCSFDILU` preconditioner (for another type of `PC` the call does nothing)
- blocks - `PETSC_BOOL3_TRUE` for E of dense bs x bs blocks, bs the matrix's block size (`MatSetBlockSize()`, a `DMDA`'s dof),
           at most 8; `PETSC_BOOL3_FALSE` for DILU row by row; `PETSC_BOOL3_UNKNOWN` (auto, the default) for blocks wherever
           they are possible

  Options Database Key:
. -pc_sfdilu_blocks <auto,true,false> - the same

  Level: intermediate

  Notes:
  The points (bs rows each) are colored as a graph of their own (jpl, greedy or auto's choice of the two), or by the residues
  of their coordinates in a `DMDA` of bs fields attached to the PC (grid; with true, also the auto coloring's choice there
  above 2^14 rows), and
  M = (E + L_c) E^{-1} (E + U_c) with E_I = A_II - sum over lower-colored neighbours J of A_IJ E_J^{-1} A_JI, as AmgX's DILU
  does for block matrices. The pattern must hold every coupled pair of points as a whole bs x bs block, each row of a point
  with the same columns (as PETSc's FEM and `DMDA` matrices do). Not with -pc_sfdilu_parallel or -pc_sfdilu_eisenstat, nor
  with -pc_sfdilu_coloring grid without a `DMDA`. A block size of 1 is the row-by-row DILU.

  With true, a pattern or an option that does not allow the blocks stops set-up with an error (`PETSC_ERR_ARG_WRONG`,
  `PETSC_ERR_SUP`). Auto takes the blocks where the block size is 2 to 8, the options allow them and the pattern (each
  rank's diagonal block, checked once per pattern) is one of whole blocks, and DILU row by row otherwise (-info says why);
  also row by row wherever the rows are colored by a grid (-pc_sfdilu_coloring grid, or auto's coloring over 2^14 rows
  where a `DMDA` gives the grid): on SNES ex19's cavity the points colored by JPL took 1.27-1.37x the iterations of rows
  in the grid's colors, and the points in the grid's colors (true, with a `DMDA` of bs fields) about as many (-2% to +5%).
  `PCView()` says which it took and, where auto declined the blocks, why. On the block matrices measured
  (bench/README.md, "DILU by point-blocks") the blocks' sweeps were 1.36-1.73x faster than row by row, with fewer or about
  as many Krylov iterations. A change is taken at the next set-up, with a new coloring.

.seealso: `PCSFDILU`, `PCSFDILUGetBlocks()`, `MatSetBlockSize()`
@*/
PetscErrorCode PCSFDILUSetBlocks(PC pc, PetscBool3 blocks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, blocks, 2);
  PetscTryMethod(pc, "PCSFDILUSetBlocks_C", (PC, PetscBool3), (pc, blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFDILUGetBlocks - Gets whether a `PCSFDILU` works by the point-blocks of its matrix

  Not Collective

  Input Parameter:
. pc - the `PCSFDILU` preconditioner

  Output Parameter:
. blocks - what `PCSFDILUSetBlocks()` or -pc_sfdilu_blocks set (`PETSC_BOOL3_UNKNOWN` stays auto: `PCView()` says what a set-up took)

  Level: intermediate

.seealso: `PCSFDILU`, `PCSFDILUSetBlocks()`
@*/
PetscErrorCode PCSFDILUGetBlocks(PC pc, PetscBool3 *blocks)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(blocks, 2);
  PetscUseMethod(pc, "PCSFDILUGetBlocks_C", (PC, PetscBool3 *), (pc, blocks));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCSFDILU - multicolor DILU: M = (E + L_c) E^{-1} (E + U_c), where L_c/U_c hold the entries coupling a row to rows
   of lower/higher colors of a distance-1 coloring of the symmetrized pattern and E, the DILU diagonal, makes
   diag(M) = diag(A). A preconditioner and, above all, a multigrid level smoother (`-mg_levels_pc_type sfdilu`).

   Options Database Keys:
+  -pc_sfdilu_omega <1> - weight of the Richardson update; the PC is omega M^{-1}, so KSPRICHARDSON's own loop and `PCApplyRichardson()` step alike
.  -pc_sfdilu_richardson_test <false> - `PCApplyRichardson()` tests the `KSP`'s tolerances at each step (a solve by Richardson iterations)
   instead of running its steps (a smoother)
.  -pc_sfdilu_richardson_norm <preconditioned,unpreconditioned,1> - the norm that test measures: of M^{-1}(b - A x), of b - A x, or its 1-norm
.  -pc_sfdilu_zeropivot <100*eps> - E_i fails when |E_i| <= zeropivot * sum_j |a_ij|; in [0, 1)
.  -pc_sfdilu_shift_type <none,nonzero> - on a failed E_i, fail the PC or redo with A + a I, a doubled until none fails
.  -pc_sfdilu_shift_amount <100*eps> - the first a, relative to the largest row sum of |A|; positive and finite
.  -pc_sfdilu_coloring <auto,greedy,jpl,grid> - greedy (on the host) or Jones-Plassmann-Luby (on the device for a GPU matrix);
   grid: by the residues of a structured grid's coordinates (a `DMDA` attached to the PC, or a 7- or 27-point pattern, or a 2-D 5- or 9-point one, of one field in natural order),
   checked against every entry; auto: grid above 2^14 rows where a grid is known and its colors are proper, else greedy for
   host matrices and GPU ones of up to 2^14 rows (GAMG's coarse levels: fewer colors, shorter sweeps), jpl for larger GPU ones
.  -pc_sfdilu_coloring_seed <0> - seed of the JPL hash, nonnegative
.  -pc_sfdilu_grid_modulus <3> - the grid coloring's m, in [2, 64] (with a DMDA, raised to its stencil width + 1 where smaller): field f of point (i, j, k) takes color
   f + dof ((i mod m) + m (j mod m) + m^2 (k mod m))
.  -pc_sfdilu_blocks <auto,true,false> - by the matrix's point-blocks (its block size, at most 8): E of dense blocks, the points colored (with
   grid: by a `DMDA` of bs fields, a point's color its residue); auto: where the pattern is one of whole blocks, the options allow and the rows
   are not colored by a grid (`PCSFDILUSetBlocks()`)
.  -pc_sfdilu_parallel <false> - the global multicolor DILU of the whole MPI matrix (JPL on global rows, or with -pc_sfdilu_coloring
   grid the residues of the global coordinates of the `DMDA` attached to the PC, or of each rank's whole z-planes of a 7-point grid
   in natural order, checked across ranks; auto and greedy are JPL here; -pc_sfdilu_sweep, _order and _local_window do not apply; before each
   color only the ghosts of the previous color are exchanged; the coloring rounds, E and the sweeps on the GPU for a CUSPARSE matrix,
   bitwise the host's), whose iterations do not depend on the number of ranks, instead of one DILU per diagonal block
.  -pc_sfdilu_sweep <auto,syncfree,percolor,parts> - GPU: one sync-free kernel per sweep with colors as dependency levels, one launch per
   color, or parts: one kernel for the whole apply, each thread block owning a range of consecutive rows (or, where a grid is known and
   there are at least 8 colors, a box of the grid: a DMDA's, or one read off the pattern with the matrix's block size as the fields of a point) whose unknowns stay in its shared memory (rows of other blocks waited for sync-free); auto: parts where they fit and pay (at least 256 rows and 8192 entries of
   the matrix a block), else syncfree, except in color order (-pc_sfdilu_order color) with a vector
   over 40% of the GPU's L2, where one launch per color was faster
.  -pc_sfdilu_order <auto,color,local> - GPU, sync-free sweeps: rows sorted by color, or local (by windows of row + color * D, D a few
   times the bandwidth, then color, and dispatched window by window: the unknowns a row reads stay in L2); auto: local where a
   vector of the matrix's size exceeds 40% of the GPU's L2 cache
.  -pc_sfdilu_local_window <2^18> - local order: keys (row + color * D) per window, in [2, 2^30]; the sweeps are dispatched by windows of half as many rows
.  -pc_sfdilu_layout <auto,csr,hyb> - GPU sync-free sweeps: the engine's storage of the factor in color order (`MATHYBSF`'s layouts); auto:
   hyb unless its slabs would take over 3 times the CSR's memory
.  -pc_sfdilu_warps_per_sm <-1> - GPU sync-free sweeps: warps each sweep keeps per SM, in [1, 64] (below 4 taken as 4), from the next set-up;
   -1: the engine's default for the width of the colors
-  -pc_sfdilu_eisenstat <false> - Eisenstat's form: inside `KSPSolve()` the operator is (E + L_c)^{-1} A (E + U_c)^{-1}, two sweeps and no
   product with A, preconditioned by E; the same preconditioned spectrum, a `MatMult()` less an iteration for CG (on each rank's diagonal
   block: not with -pc_sfdilu_parallel; a Richardson smoother is then `KSPRICHARDSON`'s own loop, weighted by -ksp_richardson_scale, and
   -pc_sfdilu_omega must be 1). A solve the form cannot serve (`KSPSolveTranspose()`, a KSP that multiplies by the transpose, a read-only
   right-hand side as `PCBJACOBI`'s blocks have, an operator with a null space, a matrix changed since set-up, an operator other than the one
   factored, a failed E on any rank) runs the plain sfdilu; the GPU operator runs the sync-free sweeps whatever -pc_sfdilu_sweep says

   Notes:
   On `MATSEQAIJ` everything runs on the host. On `MATSEQAIJCUSPARSE` everything runs on the GPU from PETSc's device
   CSR: coloring, the permutation to color order, E (a sync-free sweep) and both sweeps of each apply through SFPC's
   sync-free engine; a GPU matrix bound to the CPU (e.g. `-pc_gamg_cpu_pin_coarse_grids`) runs on the host. With the
   same coloring the GPU E is bitwise the host's and an apply agrees to rounding. On `MATMPIAIJ`/`MATMPIAIJCUSPARSE`
   each rank smooths its diagonal block, block-Jacobi style, unless -pc_sfdilu_parallel.

   A new nonzero pattern is colored again; new values of the same pattern (`SAME_NONZERO_PATTERN`) only recompute E.
   A zero or tiny E_i sets `PC_FACTOR_NUMERIC_ZEROPIVOT` (Inf/NaN: `PC_FACTOR_OTHER`). A diagonal entry the pattern
   lacks is taken as 0, as DILU's definition allows: E_i is then the sum over row i's lower-colored neighbours alone, and
   fails only where that is zero or tiny (so a block of an MPI matrix that cuts those neighbours off fails where the
   whole matrix would not). On MPI matrices failures are reported in global rows.

   `PCApplyRichardson()` (`KSPRICHARDSON` without a monitor) runs its steps, computes no norm and reports `KSP_CONVERGED_ITS`
   (diverging or not), as `PCSOR`'s does and as a
   `PCMG` smoother's `KSP` asks (it skips the convergence test, but PETSc passes its rtol, 1e-5, on); on the GPU a step is
   then three kernels and no `MatMult()`. A solve by Richardson iterations that should stop at the `KSP`'s tolerances takes
   -pc_sfdilu_richardson_test (the 2-norm of M^{-1} r tested before each update, as `KSPRICHARDSON`'s default test does) or
   a monitor (`KSPRICHARDSON`'s own loop).

   `PCApplyTranspose()` (BiCG, `KSPSolveTranspose()`, and so transposed solves with DILU level smoothers) applies
   M^{-T} = (E + L_c^T)^{-1} E (E + U_c^T)^{-1} with the same coloring, E and storage: no set-up of its own. On the GPU
   the first transposed apply after a new pattern analyses the transposed engine factor (the sync-free sweeps of M^T,
   kept, refilled on the device after new values); the per-color variant applies M^{-T} with those sync-free sweeps.

   Level: intermediate

.seealso: `PCSFILU`, `PCGAMG`, `PCSFDILUGetColoring()`, `PCSFDILUColoringType`, `PCSFDILUSweepType`, `PCSFDILUOrderType`,
          `PCSFDILUSetColoringType()`, `PCSFDILUGetColoringType()`, `PCSFDILUSetSweepType()`, `PCSFDILUGetSweepType()`,
          `PCSFDILUSetOrderType()`, `PCSFDILUGetOrderType()`, `PCSFDILUSetBlocks()`
M*/
PetscErrorCode PCCreate_SFDILU(PC pc)
{
  SFDILU *s;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  s->omega     = 1.0;
  s->blocks    = PETSC_BOOL3_UNKNOWN;
  s->zeropivot   = 100.0 * PETSC_MACHINE_EPSILON;
  s->shiftamount = 100.0 * PETSC_MACHINE_EPSILON;
  s->failrow   = -1;
  s->eis.option = "-pc_sfdilu_eisenstat";
  s->ordered   = PCSFDILU_ORDER_COLOR;
  s->localwindow = 1 << 18; /* bench/README.md, sfdilu: the fastest of 2^16 to 2^20 at 256^3 on an H100 */
  s->gridmod     = 3; /* bench/README.md, sfdilu, grid coloring: fewer GMRES iterations than 2 (and than JPL), a faster solve */
  PetscCall(SFPCTriOptionsDefault(&s->engine));
  s->engine.lower      = PETSC_TRUE; /* (I + L_c E^{-1}) u = r */
  s->engine.upper      = PETSC_TRUE; /* (E + U_c) y = u */
  s->engine.lower_unit = PETSC_TRUE;
  s->engine.upper_unit = PETSC_FALSE;
  pc->data     = s;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetColoring_C", PCSFDILUGetColoring_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetColoringType_C", PCSFDILUSetColoringType_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetColoringType_C", PCSFDILUGetColoringType_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetBlocks_C", PCSFDILUSetBlocks_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetBlocks_C", PCSFDILUGetBlocks_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetSweepType_C", PCSFDILUSetSweepType_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetSweepType_C", PCSFDILUGetSweepType_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUSetOrderType_C", PCSFDILUSetOrderType_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFDILUGetOrderType_C", PCSFDILUGetOrderType_SFDILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPreSolveChangeRHS_C", PCPreSolveChangeRHS_SFDILU));

  pc->ops->setup            = PCSetUp_SFDILU;
  pc->ops->apply            = PCApply_SFDILU;
  pc->ops->applytranspose   = PCApplyTranspose_SFDILU;
  pc->ops->applyrichardson  = PCApplyRichardson_SFDILU;
  pc->ops->setfromoptions   = PCSetFromOptions_SFDILU;
  pc->ops->view             = PCView_SFDILU;
  pc->ops->reset            = PCReset_SFDILU;
  pc->ops->destroy          = PCDestroy_SFDILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}
