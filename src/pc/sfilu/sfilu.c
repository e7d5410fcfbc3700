/*
   PCSFILU: the PC front of SFPC's ILU factor (ilu0.c): options, set-up policy (the pattern
   is analysed again only when it changes), failure reporting the PC way, view.
*/
#include "sfilu.h"
#include <petscdmda.h>

/* The grid whose 7-point (or, with box, 27-point) stencil in natural order A's pattern is, read where A's CSR is (SFPCGridGuess()); 0 where none. */
PetscErrorCode SFILUGridFromPattern(Mat A, PetscBool ondevice, PetscBool box, PetscInt dims[3])
{
  PetscFunctionBegin;
  dims[0] = dims[1] = dims[2] = 0;
  if (ondevice) PetscCall(SFILUGridGuess_Device(A, box, dims));
  else {
    const PetscInt *ia, *ja;
    PetscInt        nr; /* MatRestoreRowIJ() zeroes it */
    PetscBool       done;

    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
    if (done) PetscCall(SFPCGridGuess_Host(nr, ia, ja, 1, box ? SFPC_GRID_GUESS_BOX : 0, dims));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The grid of the block the factor is built on (the whole matrix, or this rank's diagonal block),
   for SIP and for the grid layout of the GPU sweeps: the part of the PC's DM this rank owns, when the
   DM is a 3-D DMDA with one field and a star stencil of width 1 (not periodic): in PETSc's ordering of
   a DMDA those rows are the box's points, x fastest; else the z-planes of -pc_sfilu_grid (alias
   -pc_sfilu_sip_grid) this rank's rows cover, which needs each rank's rows to be whole planes; else
   one read from the pattern of A, the block the factor is built on (SFPCGridGuess(): a 7-point
   stencil in natural order; on several ranks each rank's, e.g. its box of a DMDA, taken only where
   every rank finds one), once per pattern; SIP and the GPU sweeps check every row against it. When
   nothing gives a grid, required makes that an error (SIP, or -pc_sfilu_layout grid), else the grid
   is none (0). Returns whether the grid differs from the one the factor was built for.
*/
static PetscErrorCode PCSFILUGrid(PC pc, Mat A, PetscBool ondevice, PetscBool required, PetscBool *changed)
{
  SFILU      *s    = (SFILU *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscInt    dims[3] = {0, 0, 0};
  PetscBool   isda = PETSC_FALSE, guessed = PETSC_FALSE;
  const char *who = s->sip ? "SIP" : "The grid layout (-pc_sfilu_layout grid)", *opt = s->sip ? "-pc_sfilu_sip_grid" : "-pc_sfilu_grid";

  PetscFunctionBegin;
  if (s->fill_levels > 0 && !s->sip) { /* the fill leaves the stencil (ILU(1) of 7 points would fit the box: not tried): no grid layout */
    PetscCheck(!required, comm, PETSC_ERR_SUP, "The grid layout (-pc_sfilu_layout grid) sweeps ILU(0)'s 7-point pattern: with %" PetscInt_FMT " levels of fill use -pc_sfilu_layout auto, hyb or csr", s->fill_levels);
    *changed = (PetscBool)(s->sip_dims[0] != 0);
    for (int d = 0; d < 3; d++) s->sip_dims[d] = s->engine.grid[d] = 0;
    s->engine.grid_guessed = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (pc->dm) PetscCall(PetscObjectTypeCompare((PetscObject)pc->dm, DMDA, &isda));
  if (isda) {
    PetscInt        dim, dof, sw;
    DMBoundaryType  bx, by, bz;
    DMDAStencilType st;
    PetscBool       fits;
    PetscCall(DMDAGetInfo(pc->dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, &sw, &bx, &by, &bz, &st));
    fits = (PetscBool)(dim == 3 && dof == 1 && sw == 1 && (st == DMDA_STENCIL_STAR || !s->sip) && bx != DM_BOUNDARY_PERIODIC && by != DM_BOUNDARY_PERIODIC && bz != DM_BOUNDARY_PERIODIC);
    PetscCheck(fits || !required, comm, PETSC_ERR_SUP, "%s needs a 3-D DMDA with one field and a %s stencil of width 1, not periodic: this one has dimension %" PetscInt_FMT ", %" PetscInt_FMT " fields, stencil %s of width %" PetscInt_FMT, who, s->sip ? "star" : "star or box", dim, dof, st == DMDA_STENCIL_STAR ? "star" : "box", sw);
    if (fits) PetscCall(DMDAGetCorners(pc->dm, NULL, NULL, NULL, &dims[0], &dims[1], &dims[2]));
  } else if (s->sip_grid[0] > 0) {
    PetscInt   M, rstart, rend;
    PetscInt64 plane = (PetscInt64)s->sip_grid[0] * s->sip_grid[1], points = plane * s->sip_grid[2];
    PetscBool  whole;

    PetscCall(MatGetSize(pc->pmat, &M, NULL));
    PetscCheck(M == points, comm, PETSC_ERR_ARG_SIZ, "%s %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " has %" PetscInt64_FMT " points but the matrix has %" PetscInt_FMT " rows", opt, s->sip_grid[0], s->sip_grid[1], s->sip_grid[2], points, M);
    PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, &rend));
    whole = (PetscBool)(rstart % plane == 0 && rend % plane == 0); /* a rank without rows owns zero planes */
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_C_BOOL, MPI_LAND, comm));
    PetscCheck(whole, comm, PETSC_ERR_ARG_INCOMP, "%s with %s on several ranks needs each rank's rows to be whole z-planes of the grid (multiples of nx*ny = %" PetscInt64_FMT " rows); attach a 3-D DMDA instead", who, opt, plane);
    dims[0] = s->sip_grid[0];
    dims[1] = s->sip_grid[1];
    dims[2] = (PetscInt)((rend - rstart) / plane);
  } else {
    const PetscBool box = (PetscBool)!s->sip; /* SIP: 7-point only */
    PetscBool       found;
    PetscInt        n;

    PetscCall(MatGetLocalSize(A, &n, NULL));
    if (pc->setupcalled && pc->flag == SAME_NONZERO_PATTERN && s->guess.valid && s->guess.box == box) /* this pattern's, whatever was built since */
      for (int d = 0; d < 3; d++) dims[d] = s->guess.dims[d];
    else {
      PetscCall(SFILUGridFromPattern(A, ondevice, box, dims));
      s->guess.valid = PETSC_TRUE;
      s->guess.box   = box;
      for (int d = 0; d < 3; d++) s->guess.dims[d] = dims[d];
    }
    found = (PetscBool)(dims[0] > 0 || n == 0); /* a rank without rows agrees with any grid */
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &found, 1, MPI_C_BOOL, MPI_LAND, comm));
    if (!found) dims[0] = dims[1] = dims[2] = 0;
    guessed = (PetscBool)(dims[0] > 0);
    PetscCheck(found || !required, comm, PETSC_ERR_USER_INPUT, "%s needs the grid: attach the 3-D DMDA to the PC (KSPSetDM()/PCSetDM()) or give %s nx,ny,nz (none could be read from the pattern: it is not a %s stencil in natural order)", who, opt, s->sip ? "7-point" : "7-point or 27-point");
  }
  *changed = (PetscBool)(dims[0] != s->sip_dims[0] || dims[1] != s->sip_dims[1] || dims[2] != s->sip_dims[2]);
  for (int d = 0; d < 3; d++) s->sip_dims[d] = s->engine.grid[d] = dims[d];
  s->engine.grid_guessed = guessed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_SFILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (((SFILU *)pc->data)->eis.active) PetscCall(SFPCEisenstatApply(&((SFILU *)pc->data)->eis, x, y));
  else PetscCall(SFILUApply((SFILU *)pc->data, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   its steps of x += (LU)^{-1} (b - A x) with the residual formed inside the GPU grid layout's L sweep (set
   by PCSetUp_SFILU() only then): KSPRICHARDSON's own loop with a MatMult() less per step. With rtol or abstol
   nonzero (and -pc_sfilu_richardson_test, the default) the step's norm (-pc_sfilu_richardson_norm: by default the 2-norm of (LU)^{-1} (b - A x), which
   KSPRICHARDSON's default test measures; or of b - A x, 2- or 1-norm, which come with the sweep) is
   compared before the update with max(rtol r0, abstol) and dtol r0, where r0 is what KSPConvergedDefault()
   takes (the first norm; with a nonzero guess the 2-norm of B b or of b) or, for the 1-norm, what
   SFPCKSPConvergedResidual1Norm() takes (the first). Like PCMG's PCApplyRichardson() it tests even under
   -ksp_norm_type none; -ksp_rtol 0 -ksp_atol 0 runs exactly its steps and waits for no norm. Its steps done without
   meeting the test end in PCRICHARDSON_CONVERGED_ITS (KSP_CONVERGED_ITS), as PCMG's and PCSOR's do: the enum has
   no DIVERGED_ITS, which KSPRICHARDSON's own loop reports there.
*/
static PetscErrorCode PCApplyRichardson_SFILU(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  SFILU          *s    = (SFILU *)pc->data;
  const PetscBool test = SFPCRichardsonTests(s->rich_test, rtol, abstol), pre = (PetscBool)(s->rich_norm == SFPC_RICHARDSON_NORM_PRECONDITIONED);
  const NormType    type = s->rich_norm == SFPC_RICHARDSON_NORM_1 ? NORM_1 : NORM_2;
  SFPCRichardsonTol tol  = {rtol, abstol, dtol, 0, 0};
  PetscReal         rnorm = 0;
  PetscBool         fuse, failed;

  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, b, x));
  PetscCall(SFPCCheckApplySizes(pc, w, x));
  PetscCall(SFPCRichardsonSetUpFailed(pc, x, outits, reason, &failed)); /* not installed after a failure on this rank; another rank's counts too */
  if (failed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCSetUpStampHolds(pc, &s->stamp, &fuse)); /* else KSPSetOperators() gave another operator since the set-up: MatResidual() with it */
  if (!s->delta) PetscCall(VecDuplicate(b, &s->delta));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  if (test) PetscCall(SFPCRichardsonReference(pc, PCApply_SFILU, s->rich_norm, guesszero, b, s->delta, &tol.rnorm0)); /* PCApply_SFILU(): SFILUApply(), as Eisenstat's form is never fused */
  for (PetscInt k = 0; k < its; k++) {
    const PetscBool zero = (PetscBool)(k == 0 && guesszero);
    if (zero) { /* r = b */
      if (test && !pre) PetscCall(VecNorm(b, type, &rnorm));
      PetscCall(SFILUApply(s, b, s->delta, PETSC_FALSE));
    } else PetscCall(SFILUResidualApply_Device(s, pc->mat, fuse, b, x, w, s->delta, type, test && !pre ? &rnorm : NULL));
    if (test) {
      if (pre) PetscCall(VecNorm(s->delta, NORM_2, &rnorm));
      PetscCall(SFPCRichardsonTest(pc, &tol, k, rnorm, reason)); /* the 1-norm test's reference is its first norm (rnorm0 left 0) */
      if (*reason != PCRICHARDSON_CONVERGED_ITS) {
        *outits = k;
        break;
      }
    }
    if (zero) PetscCall(VecAXPBY(x, 1.0, 0.0, s->delta));
    else PetscCall(VecAXPY(x, 1.0, s->delta));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   B A x for a left-preconditioned KSP (GMRES, BiCGStab, ...): A x is formed inside the GPU grid layout's L sweep
   (set by PCSetUp_SFILU() only then), so the operator costs the two sweeps and no MatMult() of its own. The
   product is summed as the host's MatMult() does. Logged as PCApply, the work PCApply() and MatMult() would
   have done; other sides as PCApplyBAorAB() does them.
*/
static PetscErrorCode PCApplyBA_SFILU(PC pc, PCSide side, Vec x, Vec y, Vec work)
{
  PetscBool fuse;

  PetscFunctionBegin;
  if (side == PC_LEFT) {
    PetscCall(SFPCSetUpStampHolds(pc, &((SFILU *)pc->data)->stamp, &fuse));
    if (fuse) {
      PetscCall(PetscLogEventBegin(PC_Apply, pc, x, y, 0));
      PetscCall(SFILUResidualApply_Device((SFILU *)pc->data, pc->mat, PETSC_TRUE, NULL, x, work, y, NORM_2, NULL));
      PetscCall(PetscLogEventEnd(PC_Apply, pc, x, y, 0));
    } else { /* KSPSetOperators() gave another operator since the set-up: PETSc's own left B A x with it */
      PetscCall(MatMult(pc->mat, x, work));
      PetscCall(PCApply(pc, work, y));
    }
  } else if (side == PC_RIGHT) {
    PetscCall(PCApply(pc, x, work));
    PetscCall(MatMult(pc->mat, work, y));
  } else {
    PetscCall(PCApplySymmetricRight(pc, x, work));
    PetscCall(MatMult(pc->mat, work, y));
    PetscCall(VecCopy(y, work));
    PetscCall(PCApplySymmetricLeft(pc, work, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a residual (product: A x alone) with pc's operator can be formed inside the L sweep: one matrix, the one factored, factored without failure, and (opt unknown) where that is faster. */
static PetscBool SFILUFuses(PC pc, Mat A, PetscBool3 opt, PetscBool product)
{
  SFILU *s = (SFILU *)pc->data;

  if (opt == PETSC_BOOL3_FALSE || A != pc->pmat || pc->mat != pc->pmat || s->failure != PC_NOERROR) return PETSC_FALSE;
  return opt == PETSC_BOOL3_TRUE ? SFILUHasFusedResidual_Device(s) : SFILUFusedResidualPays_Device(s, product);
}

/*
   Whether the factor's pattern and analysis must be built again (SFILUSymbolic()), not only its values: a new pattern, a
   factor not built yet or built elsewhere (host/device), a new grid, or a change of an option the pattern or the analysis
   was built for.
*/
static PetscBool SFILUNeedsSymbolic(PC pc, PetscBool ondevice, PetscBool regrid)
{
  SFILU *s = (SFILU *)pc->data;

  if (!pc->setupcalled || pc->flag != SAME_NONZERO_PATTERN || !(s->F.i || s->T) || ondevice != s->ondevice || regrid) return PETSC_TRUE;
  if (s->sip != s->built_sip || s->fill_levels != s->built_levels || s->grid_factor != s->built_grid_factor || s->engine.layout != s->built_layout) return PETSC_TRUE;
  /* the engine options its analysis was built with (warps per SM and point-blocks are applied at each factorization, SFILUGetValues_Device()) */
  return (PetscBool)(s->T && (s->T->opt.levels != s->engine.levels || s->T->opt.grid_chunk != s->engine.grid_chunk || s->T->opt.grid_planes != s->engine.grid_planes));
}

static PetscErrorCode PCSetUp_SFILU(PC pc)
{
  SFILU    *s = (SFILU *)pc->data;
  PetscBool ondevice, regrid = PETSC_FALSE, cusparse, bound;
  Mat       A;

  PetscFunctionBegin;
  PetscCall(SFPCLocalAIJ(pc->pmat, "PCSFILU", &A, &cusparse, &bound)); /* pmat, or each rank's diagonal block (block Jacobi, as PETSc's parallel ILU through PCBJACOBI) */
  PetscCall(SFILUCheckMatrix(A, &ondevice));
  PetscCall(MatGetOwnershipRange(pc->pmat, &s->rstart, NULL));
  /* SIP needs the grid; the GPU sweeps take the grid layout when one is known (auto) and must have one when asked for it */
  PetscCall(PCSFILUGrid(pc, A, ondevice, (PetscBool)(s->sip || s->engine.layout == SFPC_LAYOUT_GRID), &regrid));
  if (SFILUNeedsSymbolic(pc, ondevice, regrid)) PetscCall(SFILUSymbolic(s, A, ondevice));
  PetscCall(SFILUNumeric(s, A, (PetscObject)pc, pc->erroriffailure));
  pc->failedreason = s->failure;
  PetscCall(PCReduceFailedReason(pc)); /* a failure on any rank is every rank's: their Richardson loops stop together (SFPCRichardsonSetUpFailed()) */
  /* -ksp_type richardson takes PCApplyRichardson() only where it saves the residual's pass over A; elsewhere KSPRICHARDSON's own loop is the same iteration */
  pc->ops->applyrichardson = !s->eis.use && SFILUFuses(pc, A, s->rich_fused, PETSC_FALSE) ? PCApplyRichardson_SFILU : NULL;
  pc->ops->applyBA         = !s->eis.use && SFILUFuses(pc, A, s->ba_fused, PETSC_TRUE) ? PCApplyBA_SFILU : NULL;
  PetscCall(SFPCSetUpStampTake(pc, &s->stamp));
  PetscCall(PCSFILUEisenstatSetUp(pc)); /* the Eisenstat form's operator already avoids A: the fusions above are its alternative */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_SFILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, x, y));
  if (((SFILU *)pc->data)->eis.active) PetscCall(SFPCEisenstatApply(&((SFILU *)pc->data)->eis, x, y));
  else PetscCall(SFILUApply((SFILU *)pc->data, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -ksp_pc_side symmetric: the L sweep on the left, the U sweep on the right, as PCILU's MatForwardSolve() and MatBackwardSolve() */
static PetscErrorCode PCApplySymmetricSide_SFILU(PC pc, PetscBool lower, Vec x, Vec y)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, x, y));
  if (s->failure != PC_NOERROR) { /* as the apply of a failed factor: the KSP sees Inf and stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SFILUSweep(s, lower, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_SFILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApplySymmetricSide_SFILU(pc, PETSC_TRUE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_SFILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApplySymmetricSide_SFILU(pc, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetShiftType_SFILU(PC pc, MatFactorShiftType type)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (type == (MatFactorShiftType)PETSC_DECIDE) type = MAT_SHIFT_NONE;
  PetscCheck(type == MAT_SHIFT_NONE || type == MAT_SHIFT_NONZERO || type == MAT_SHIFT_POSITIVE_DEFINITE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU supports shift types none, nonzero and positive_definite, not %s", type == MAT_SHIFT_INBLOCKS ? "INBLOCKS" : "an unknown one");
  s->shifttype = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetShiftAmount_SFILU(PC pc, PetscReal amount)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (amount == (PetscReal)PETSC_DECIDE || amount == (PetscReal)PETSC_DEFAULT) amount = 100.0 * PETSC_MACHINE_EPSILON;
  PetscCheck(amount > 0 && !PetscIsInfOrNanReal(amount), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU shift amount must be positive and finite, not %g", (double)amount);
  s->shiftamount = amount;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetZeroPivot_SFILU(PC pc, PetscReal tol)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (tol == (PetscReal)PETSC_DECIDE || tol == (PetscReal)PETSC_DEFAULT) tol = 100.0 * PETSC_MACHINE_EPSILON;
  PetscCheck(tol >= 0 && tol < 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU zero-pivot tolerance must be in [0, 1), not %g", (double)tol);
  s->zeropivot = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The getters of what the three setters above set (PCILU has them; code written for it reads the settings back). */
static PetscErrorCode PCFactorGetShiftType_SFILU(PC pc, MatFactorShiftType *type)
{
  PetscFunctionBegin;
  *type = ((SFILU *)pc->data)->shifttype;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorGetShiftAmount_SFILU(PC pc, PetscReal *amount)
{
  PetscFunctionBegin;
  *amount = ((SFILU *)pc->data)->shiftamount;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorGetZeroPivot_SFILU(PC pc, PetscReal *tol)
{
  PetscFunctionBegin;
  *tol = ((SFILU *)pc->data)->zeropivot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetLevels_SFILU(PC pc, PetscInt levels)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(levels >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU levels of fill must be nonnegative, not %" PetscInt_FMT, levels);
  if (pc->setupcalled && levels != s->fill_levels) pc->setupcalled = PETSC_FALSE; /* as PCFactor's: a new level count is a new factor at the next solve, same matrix or not */
  s->fill_levels = levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorGetLevels_SFILU(PC pc, PetscInt *levels)
{
  PetscFunctionBegin;
  *levels = ((SFILU *)pc->data)->fill_levels;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_SFILU(PC pc, PetscOptionItems PetscOptionsObject)
{
  SFILU             *s = (SFILU *)pc->data;
  MatFactorShiftType type;
  PetscReal          r;
  PetscBool          set;
  char               given[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "SFILU options");
  { /* MatFactorShiftTypes less INBLOCKS, which has no meaning here: the list -help shows is the one accepted */
    const char *shifts[] = {"none", "nonzero", "positive_definite"};
    PetscInt    shift    = (PetscInt)s->shifttype;
    PetscCall(PetscOptionsEList("-pc_sfilu_shift_type", "Shift applied when a pivot fails", "PCFactorSetShiftType", shifts, 3, shifts[shift], &shift, &set));
    type = (MatFactorShiftType)shift;
    if (set) PetscCall(PCFactorSetShiftType_SFILU(pc, type));
  }
  PetscCall(PetscOptionsReal("-pc_sfilu_shift_amount", "First nonzero shift, relative to the largest row sum of |A|", "PCFactorSetShiftAmount", s->shiftamount, &r, &set));
  if (set) PetscCall(PCFactorSetShiftAmount_SFILU(pc, r));
  PetscCall(PetscOptionsReal("-pc_sfilu_zeropivot", "Pivot tolerance, relative to the row sum of |A|", "PCFactorSetZeroPivot", s->zeropivot, &r, &set));
  if (set) PetscCall(PCFactorSetZeroPivot_SFILU(pc, r));
  {
    PetscInt levels = s->fill_levels;
    PetscCall(PetscOptionsInt("-pc_sfilu_fill_levels", "ILU(k): levels of fill k (0: ILU(0))", "PCFactorSetLevels", levels, &levels, &set));
    if (set) PetscCall(PCFactorSetLevels_SFILU(pc, levels));
  }
  PetscCall(SFILUSetEngineFromOptions(PetscOptionsObject, s, "-pc_sfilu_", "PCSFILU"));
  {
    const char *kinds[] = {"ilu0", "sip"};
    PetscInt    kind    = s->sip ? 1 : 0;
    PetscInt    nd, dims[4], first[3] = {0, 0, 0};
    PetscBool   named[2];
    PetscCall(PetscOptionsEList("-pc_sfilu_factorization", "ILU(0), or Stone's SIP for 7-point stencils on a 3-D grid", "PCSFILU", kinds, 2, kinds[kind], &kind, NULL));
    s->sip = (PetscBool)(kind == 1);
    PetscCall(PetscOptionsReal("-pc_sfilu_sip_alpha", "SIP: partial cancellation of the dropped fill, in [0, 1] (0 is ILU(0))", "PCSFILU", s->sip_alpha, &r, &set));
    if (set) {
      PetscCall(SFILUCheckSIPAlpha(pc, SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_sfilu_sip_alpha"), r));
      s->sip_alpha = r;
    }
    for (int k = 0; k < 2; k++) { /* two names for one grid: SIP's first one, and the general one (grid layout of ILU(0) too) */
      const char *name = k ? "-pc_sfilu_grid" : "-pc_sfilu_sip_grid";
      nd               = 4; /* room for one value too many, to refuse it */
      for (int d = 0; d < 3; d++) dims[d] = s->sip_grid[d];
      PetscCall(PetscOptionsIntArray(name, "Grid nx,ny,nz (x fastest) of a matrix assembled without a DMDA: SIP's, and the GPU sweeps' grid layout (0,0,0: none)", "PCSFILU", dims, &nd, &named[k]));
      PetscCheck(!named[k] || (nd == 3 && dims[0] > 0 && dims[1] > 0 && dims[2] > 0), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s needs three positive sizes nx,ny,nz", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, name));
      PetscCheck(!(k && named[0] && named[1]) || (dims[0] == first[0] && dims[1] == first[1] && dims[2] == first[2]), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP, "-pc_sfilu_sip_grid and -pc_sfilu_grid name one grid: they were given different ones");
      if (named[k])
        for (int d = 0; d < 3; d++) s->sip_grid[d] = first[d] = dims[d];
    }
    PetscCall(PetscOptionsEnum("-pc_sfilu_sip_variant", "SIP on the GPU: factorization sync-free (one launch; points poll the values their neighbours publish) or level-synchronous (one launch per hyperplane)", "PCSFILU", SFILUSIPVariants, (PetscEnum)s->sip_variant, (PetscEnum *)&s->sip_variant, NULL));
  }
  PetscCall(PetscOptionsBool3("-pc_sfilu_richardson_fused", "GPU grid layout: -ksp_type richardson forms the residual inside the L sweep (PCApplyRichardson()) instead of with MatMult() (auto: on grids where that is faster)", "PCSFILU", s->rich_fused, &s->rich_fused, NULL));
  {
    PetscCall(SFPCRichardsonNormOption(PetscOptionsObject, "-pc_sfilu_richardson_norm", "PCSFILU", &s->rich_norm));
    PetscCall(PetscOptionsBool("-pc_sfilu_richardson_test", "The fused Richardson iteration tests the KSP's tolerances at each step (a solve by Richardson iterations, SIP's) instead of running its steps (a multigrid smoother)", "PCSFILU", s->rich_test, &s->rich_test, NULL));
  }
  PetscCall(PetscOptionsBool3("-pc_sfilu_ba_fused", "GPU grid layout: a left-preconditioned KSP (GMRES, BiCGStab, ...) forms A x inside the L sweep of B A x (PCApplyBAorAB()) instead of with MatMult() (auto: on grids where that is faster)", "PCSFILU", s->ba_fused, &s->ba_fused, NULL));
  PetscCall(PetscOptionsBool("-pc_sfilu_eisenstat", "Eisenstat's form: inside KSPSolve() the operator is (D + L_A)^{-1} A (D + U_A)^{-1}, two sweeps without a product with A, preconditioned by D = diag(U); the same preconditioned spectrum, a MatMult() less an iteration for CG (ILU(0) whose off-diagonal entries are A's, e.g. 5- and 7-point stencils)", "PCSFILU", s->eis.use, &s->eis.use, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_SFILU(PC pc, PetscViewer viewer)
{
  PetscBool   isascii;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (!pc->setupcalled) { /* (-ksp_view_pre) nothing built: no figures to show */
    SFILU *s = (SFILU *)pc->data;
    if (s->sip) PetscCall(PetscViewerASCIIPrintf(viewer, "SIP (Stone), alpha %g: not set up yet\n", (double)s->sip_alpha));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(%" PetscInt_FMT "): not set up yet\n", s->fill_levels));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "each of %d ranks factors its diagonal block (block Jacobi); the figures below are rank 0's\n", size));
  PetscCall(SFILUView((SFILU *)pc->data, viewer));
  if (size > 1) { /* rank 0's figures above; a failure anywhere here */
    SFILU         *s = (SFILU *)pc->data;
    PCFailedReason failure;
    PetscInt       row, nfailed;

    PetscCall(SFPCBlockFailure(PetscObjectComm((PetscObject)pc), s->rstart, s->failure, s->failrow, &failure, &row, &nfailed));
    if (nfailed) PetscCall(PetscViewerASCIIPrintf(viewer, "factorization FAILED on %" PetscInt_FMT " of %d ranks, first (%s) in row %" PetscInt_FMT "\n", nfailed, size, PCFailedReasons[failure], row));
  }
  PetscCall(SFPCEisenstatView(&((SFILU *)pc->data)->eis, "diag(U)", viewer));
  if (pc->ops->applyrichardson || pc->ops->applyBA) PetscCall(PetscViewerASCIIPrintf(viewer, "products with A formed inside the L sweep: %s%s%s\n", pc->ops->applyrichardson ? "Richardson's residual" : "", pc->ops->applyrichardson && pc->ops->applyBA ? ", " : "", pc->ops->applyBA ? "left-preconditioned B A x" : ""));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_SFILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCSFILUEisenstatReset(pc));
  PetscCall(SFILUReset((SFILU *)pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_SFILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_SFILU(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftAmount_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetZeroPivot_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetShiftType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetShiftAmount_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetZeroPivot_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetLevels_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPreSolveChangeRHS_C", NULL));
  PetscCall(SFILUComposeAPI(pc, PETSC_FALSE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCSFILU - ILU(0), or ILU(k), built for synchronization-free factorization and triangular solves.

   Options Database Keys:
+  -pc_sfilu_fill_levels <0> - ILU(k): the factor's pattern has the fill of levels up to k (PETSc's rule of levels of fill;
                        the same factor as `PCILU` with -pc_factor_levels k). The pattern is built on the host, once per nonzero
                        pattern of A; on `MATSEQAIJCUSPARSE` A's values are scattered into it on the GPU and the numeric
                        factorization and solves run there as for ILU(0). Not with SIP or the grid layout (7-point patterns only)
.  -pc_sfilu_shift_type <none,nonzero,positive_definite> - on a failed pivot: fail the PC (none), refactor A + a I
                        with a = shift_amount * max_i sum_j |a_ij| doubled until every pivot passes (nonzero), or
                        refactor with fractions 1/16 .. 2 of the shift that makes A + a I diagonally dominant until every
                        pivot is positive (positive_definite)
.  -pc_sfilu_shift_amount <100*eps> - see above; positive and finite
.  -pc_sfilu_zeropivot <100*eps> - pivot u_ii fails when |u_ii| <= zeropivot * sum_j |a_ij| (Re(u_ii) for positive_definite); in [0, 1)
.  -pc_sfilu_warps_per_sm <w> - GPU only: warps each sync-free sweep keeps per SM, in [1, 64] (below 4 taken as 4; when set it
                        also sizes the analysis pass, else 64) (default: per triangle, 48 where
                        its levels are wide, 32 where they hold 8-32 tasks per SM and most rows take 8 lanes or more, else 16 for the solves (the grid layout's sweeps: 4 on 7-point grids, 8 on 27-point ones), and for the factorization 24 where its levels hold 8 tasks
                        per SM or more, else 16; 8 for SIP's sync-free factorization and for the hyperplane ILU(0) of a 7-point grid;
                        the 27-point grid's factorization keeps every warp its registers allow, 32, and w caps it)
.  -pc_sfilu_layout <auto,csr,hyb,grid> - GPU only: how the sweeps store L and U (see `MATHYBSF`); grid walks the 3-D grid
                        (needs one: a 3-D `DMDA` or -pc_sfilu_grid, and a pattern within its 7-point stencil or 27-point box); auto
                        takes grid where it can (with no grid given, one read from the pattern: a 7-point or 27-point stencil in natural order),
                        else hyb unless its padding would more than triple the triangle's memory
.  -pc_sfilu_grid <nx,ny,nz> - the grid (x fastest) of a matrix assembled without a `DMDA`, for SIP and the grid layout
                        (without it, read from the pattern where that is a 7-point or 27-point stencil in natural order)
.  -pc_sfilu_grid_chunk <4> - GPU grid layout, 7-point: x steps per read of the neighbouring warps' results (2 or 4)
.  -pc_sfilu_grid_planes <p> - GPU grid layout, 7-point: z-planes per block of warps, the -z line handed over in shared memory (1, 2, 4 or 8;
                        default 8, fewer on grids of fewer z-planes)
.  -pc_sfilu_grid_factor <true> - GPU grid layout: ILU(0) factored by hyperplanes of the grid instead of the generic sync-free
                        ILU(0) kernel, the host's factor bit for bit either way: on a 7-point pattern the planes i + j + k = const
                        with SIP's kernel and alpha 0 (exactly ILU(0)'s operations there; 48 bytes a grid point more), on a 27-point
                        one the planes i + 2j + 4k = const, a warp a point (148 bytes a grid point more: its published record and row info)
.  -pc_sfilu_factor_match <auto,map,search,broadcast> - GPU generic ILU(0) kernel (every layout but grid): how a row
                        finds the entries of a dependency's U row that update it. map: two 32-bit masks per L entry and the U offsets
                        of its first 16 matches, built with the first factorization (16 bytes per L entry), so that a refactorization
                        loads only the U values it uses; rows over 32 entries, or with a dependency whose U row is longer, are searched or broadcast as in auto.
                        search: a binary search over the lanes (fewer instructions: pays where the levels are wide). broadcast: U(c)
                        broadcast entry by entry (shorter dependent chain: pays where the levels are narrow). auto: map, and for the
                        rows it cannot hold search from 8 tasks per level and SM, else broadcast
.  -pc_sfilu_block_size <bs> - GPU generic ILU(0) kernel: a warp factors bs consecutive rows (a point-block) together, their
                        dependencies on one another resolved inside the warp (registers and shared memory), so that the factorization waits once per level of the
                        block graph instead of once per level of the rows (default: the matrix's block size, MatGetBlockSize(), e.g. a
                        DMDA's dof; 1: row by row). Blocks whose couplings are dense point-blocks (a DMDA's fields, elasticity) are factored
                        as dense blocks (at most 8 rows and 256 entries, a point coupled to at most 32 points); other blocks need the match map
                        and to fit the kernel's shared memory (128 entries, 64 L entries, 512 staged U values, at most 8 rows of at most 32
                        entries); otherwise rows go one by one and the view says why.
                        The sweeps go by the same blocks (see -pc_sfilu_block_sweeps)
.  -pc_sfilu_block_sweeps <bool> - GPU sweeps (the L and U solves of every apply) by the point-blocks of -pc_sfilu_block_size, a warp a block:
                        each block waits once for the blocks it depends on and solves its own rows inside the warp, so a sweep waits once per
                        level of the block graph (SNES ex19's 4-field cavity: 511 instead of 2044). Default: per sweep, where the block graph
                        has at most 3/4 of the rows' levels (not on blocks of unrelated rows); never with the grid layout. The view says which
.  -pc_sfilu_block_slabs <bool> - GPU sweeps by point-blocks: each task reads its rows' columns and CSR positions from a slab indexed by its
                        ticket, one coalesced load instead of three dependent ones (the block's place, its rows' offsets, the columns), for
                        8 more bytes an entry and rows of at most 8 slots a lane, and a lane polls its pending unknowns together. It pays
                        where a task's own latency binds, i.e. levels wide enough to fill the GPU (H100, L+U apply: Q1 elasticity 64^3
                        2.77 -> 1.79 ms, 5 fields on a 7-point 64^3 grid 1.34 -> 1.08), and costs where the chain of levels binds (the
                        driven cavity 11%, a 2-D 3-field grid 16% slower). Default: per sweep, where a level has at least 4 blocks an SM
                        on average. The view says which
.  -pc_sfilu_levels <auto,asap,alap> - GPU only: the dependency levels that order the rows of the sweeps
.  -pc_sfilu_factorization <ilu0,sip> - ILU(0), or Stone's strongly implicit procedure for 7-point stencils on a 3-D
                        grid (same pattern and the same sync-free solves as ILU(0), values that cancel part of the dropped fill)
.  -pc_sfilu_sip_alpha <0.92> - SIP's partial cancellation of the dropped fill, in [0, 1]; 0 is ILU(0)
.  -pc_sfilu_sip_grid <nx,ny,nz> - SIP's (whole) grid when no 3-D DMDA is attached to the PC; on several ranks each
                        rank's rows must then be whole z-planes of it
.  -pc_sfilu_sip_variant <syncfree,levelsync> - GPU only: SIP's factorization over the hyperplanes i + j + k = const,
                        sync-free (one launch, points poll the values their neighbours publish) or level-synchronous (one launch per hyperplane); both give
                        the host's factor bit for bit
.  -pc_sfilu_richardson_fused <auto,true,false> - GPU grid layout: `KSPRICHARDSON` (with its default convergence test or none, no monitor) forms the
                        residual b - A x inside the L sweep (`PCApplyRichardson()`) instead of with a `MatMult()` of its own; auto: on 7-point
                        grids of at least 2.5*10^6 points and 504 tile lines of 32 y-lines (flat grids, slower fused, stay unfused) and 27-point grids of at least 5*10^5 points, where it
                        is faster (smaller grids are slower fused: see bench/README.md)
.  -pc_sfilu_richardson_norm <preconditioned,unpreconditioned,1> - what the fused iteration tests against the `KSP`'s rtol, abstol and
                        dtol: the 2-norm of (LU)^{-1} (b - A x) (as `KSPRICHARDSON`'s default test), the 2-norm of b - A x, or its 1-norm
.  -pc_sfilu_richardson_test <true> - the fused iteration tests the `KSP`'s tolerances at each step (a solve by Richardson iterations, SIP's);
                        false runs its steps without a norm, as a `PCMG` smoother's `KSP` asks (it skips the test but PETSc passes its rtol, 1e-5, on)
.  -pc_sfilu_eisenstat <false> - Eisenstat's form: where ILU(0) keeps A's off-diagonal entries (5- and 7-point stencils), inside
                        `KSPSolve()` the operator is (D + L_A)^{-1} A (D + U_A)^{-1} (two sweeps, no `MatMult()`), preconditioned by D = diag(U);
                        b and the guess are transformed by `PCPreSolve()`, x and b restored by `PCPostSolve()`. On several ranks (block
                        Jacobi) the couplings between ranks are multiplied on the way (their part of a `MatMult()`). Transposed solves,
                        KSPs that multiply by the transpose (BiCG, CGNE, CGLS, LSQR), a read-only right-hand side (a `PCBJACOBI` block),
                        operators with a null space, a reused (lagged) PC, an operator other than the matrix factored and a factor
                        failed on any rank run the plain sfilu
-  -pc_sfilu_ba_fused <auto,true,false> - GPU grid layout: a left-preconditioned `KSP` (GMRES, BiCGStab, ...) forms A x inside the L sweep of
                        (LU)^{-1} A x (`PCApplyBAorAB()`) instead of with a `MatMult()` of its own; auto: on 7-point grids of at least 4*10^6
                        points and 504 tile lines (flat grids, slower fused, stay unfused) and 27-point grids of at least 5*10^5 points, where it is faster (bench/README.md, sfilu)

   Notes:
   Works on `MATSEQAIJ` (on the host) and `MATSEQAIJCUSPARSE` (entirely on the GPU: analysis, sync-free factorization
   and sync-free triangular solves, from the matrix's device CSR); on `MATMPIAIJ`/`MATMPIAIJCUSPARSE` each rank factors
   its diagonal block (block Jacobi). A failed factorization sets `PC_FACTOR_NUMERIC_ZEROPIVOT`
   (or `PC_FACTOR_OTHER` for Inf/NaN entries), so a `KSP` stops with `KSP_DIVERGED_PC_FAILED`; with
   `-ksp_error_if_not_converged` it raises an error instead. A matrix with a missing diagonal entry is an error.
   `PCFactorSetLevels()`, `PCFactorSetShiftType()`, `PCFactorSetShiftAmount()` and `PCFactorSetZeroPivot()` apply to this PC. The same factor is
   available to `PCILU` and `PCICC` as `-pc_factor_mat_solver_type sfilu` (`MATSOLVERSFILU`), which takes the GPU engine's
   options above (layout, levels, warps per SM, grid chunk, planes and factorization, factor match, point-blocks) as
   -mat_sfilu_<name> under the PC's prefix.

   On several ranks SIP, too, factors each rank's diagonal block: the part of the 3-D `DMDA` the rank owns, or the z-planes
   of `-pc_sfilu_sip_grid` its rows cover. The standalone SIP iteration of the
   papers (residual, forward, backward, x += delta) is `-ksp_type richardson -pc_type sfilu -pc_sfilu_factorization sip`;
   their stopping test on the 1-norm of the residual, relative to the first, is `SFPCKSPSetConvergedResidual1Norm()`.
   On the GPU with the grid layout, on the grids -pc_sfilu_richardson_fused auto takes (or with true), the iteration
   forms the residual inside the forward sweep (three kernels a step: the fused forward sweep, the backward sweep, the update)
   when `KSPRICHARDSON` keeps its default test, or none; the 1-norm test is then
   -pc_sfilu_richardson_norm 1. Like `PCMG`'s, this iteration tests rtol and abstol even with -ksp_norm_type none:
   -ksp_rtol 0 -ksp_atol 0 gives a fixed number of steps. The result is the same as `KSPRICHARDSON`'s own loop
   (`SFPCKSPSetConvergedResidual1Norm()` or a monitor selects that one): the residual is summed entry by entry as `MatMult()` on
   the host does.

   Level: beginner

.seealso: `PCILU`, `PCICC`, `MATSOLVERSFILU`, `PCSFILUSetSIP()`, `PCSFILUSetGrid()`, `PCFactorSetShiftType()`, `SFPCKSPSetConvergedResidual1Norm()`
M*/
PetscErrorCode PCCreate_SFILU(PC pc)
{
  SFILU *s;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  PetscCall(SFILUInitialize(s));
  s->eis.option = "-pc_sfilu_eisenstat";
  pc->data = s;

  pc->ops->setup          = PCSetUp_SFILU;
  pc->ops->apply          = PCApply_SFILU;
  pc->ops->applytranspose = PCApplyTranspose_SFILU;
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_SFILU;
  pc->ops->applysymmetricright = PCApplySymmetricRight_SFILU;
  pc->ops->setfromoptions = PCSetFromOptions_SFILU;
  pc->ops->view           = PCView_SFILU;
  pc->ops->reset          = PCReset_SFILU;
  pc->ops->destroy        = PCDestroy_SFILU;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftType_C", PCFactorSetShiftType_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftAmount_C", PCFactorSetShiftAmount_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetZeroPivot_C", PCFactorSetZeroPivot_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetLevels_C", PCFactorGetLevels_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetShiftType_C", PCFactorGetShiftType_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetShiftAmount_C", PCFactorGetShiftAmount_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorGetZeroPivot_C", PCFactorGetZeroPivot_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetLevels_C", PCFactorSetLevels_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCPreSolveChangeRHS_C", PCPreSolveChangeRHS_SFILU));
  PetscCall(SFILUComposeAPI(pc, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
