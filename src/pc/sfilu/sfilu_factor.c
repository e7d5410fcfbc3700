/*
   The "sfilu" MatSolverType: SFPC's ILU factor (ilu0.c) behind PCILU, so that
   -pc_type ilu -pc_factor_mat_solver_type sfilu, and -sub_pc_factor_mat_solver_type sfilu under
   PCBJACOBI/PCASM, use it; and behind PCICC (-pc_type icc -pc_factor_mat_solver_type sfilu), where the
   factor is the ILU of A with its lower triangle mirroring the upper one (icc_mirror.c). PCFactor's
   -pc_factor_levels, -pc_factor_shift_type, -pc_factor_shift_amount and -pc_factor_zeropivot apply, with
   the meaning PCSFILU gives them (zero pivot relative to row sums); the GPU engine's options are PCSFILU's
   under -mat_sfilu_ and the PC's prefix (sfilu_options.c), e.g. -mat_sfilu_layout hyb, -sub_mat_sfilu_warps_per_sm 8.
*/
#include "sfilu.h"
#include <petsc/private/matimpl.h>

static PetscErrorCode SFILUSetFactorInfo(SFILU *s, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  s->shifttype   = (MatFactorShiftType)(int)info->shifttype;
  s->shiftamount = info->shiftamount > 0 ? info->shiftamount : 100.0 * PETSC_MACHINE_EPSILON;
  s->zeropivot   = info->zeropivot >= 0 ? info->zeropivot : 100.0 * PETSC_MACHINE_EPSILON;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* LU's and Cholesky's numeric factorization alike: PCICC calls the latter */
static PetscErrorCode MatFactorNumeric_SFILU(Mat B, Mat A, const MatFactorInfo *info)
{
  SFILU *s = (SFILU *)B->data;

  PetscFunctionBegin;
  PetscCall(SFILUSetFactorInfo(s, info));
  PetscCall(SFILUNumeric(s, A, (PetscObject)B, A->erroriffailure));
  B->factorerrortype = s->failure == PC_NOERROR ? MAT_FACTOR_NOERROR : (s->failure == PC_FACTOR_NUMERIC_ZEROPIVOT ? MAT_FACTOR_NUMERIC_ZEROPIVOT : MAT_FACTOR_OTHER);
  if (s->failure != PC_NOERROR) {
    B->factorerror_zeropivot_row   = s->failrow;
    B->factorerror_zeropivot_value = PetscAbsScalar(s->failvalue);
  }
  B->assembled    = PETSC_TRUE;
  B->preallocated = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolve_SFILU(Mat B, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(SFILUApply((SFILU *)B->data, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatSolveTranspose_SFILU(Mat B, Vec b, Vec x)
{
  PetscFunctionBegin;
  PetscCall(SFILUApply((SFILU *)B->data, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The symmetric application (PCApplySymmetricLeft/Right(), -ksp_pc_side symmetric): MatForwardSolve() and
   MatBackwardSolve(). For ILU they are the L and the U sweep. PETSc writes an ICC factor U^T D U with U unit upper
   and its forward solve D^{-1/2} U^{-T} b, its backward U^{-1} D^{-1/2} y; here U^T is the unit L and the sweeps' U
   is D U, so they are D^{-1/2} L^{-1} b and (D U)^{-1} D^{1/2} y, which need D > 0, as PETSc's do.
*/
static PetscErrorCode RootDiagonal(Mat B, SFILU *s, Vec like)
{
  PetscObjectState state;
  PetscLayout      map;
  PetscReal        dmin;
  PetscInt         row;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)B, &state));
  if (s->root && state == s->root_state) PetscFunctionReturn(PETSC_SUCCESS);
  if (!s->root) {
    PetscCall(VecCreate(PetscObjectComm((PetscObject)like), &s->root));
    PetscCall(VecGetLayout(like, &map));
    PetscCall(VecSetLayout(s->root, map));
    PetscCall(VecSetType(s->root, s->ondevice ? VECCUDA : VECSTANDARD)); /* filled by the factor's side */
  }
  PetscCall(SFILUInverseDiagonal(s, s->root));
  PetscCall(VecMin(s->root, &row, &dmin));
  PetscCheck(dmin > 0, PETSC_COMM_SELF, PETSC_ERR_SUP, "ICC's symmetric application (MatForwardSolve(), MatBackwardSolve()) needs positive pivots; row %" PetscInt_FMT " has 1/D = %g", row, (double)dmin);
  PetscCall(VecSqrtAbs(s->root));
  s->root_state = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatForwardSolve_SFILU(Mat B, Vec b, Vec y)
{
  SFILU *s = (SFILU *)B->data;

  PetscFunctionBegin;
  if (s->failure != PC_NOERROR) { /* as MatSolve() of a failed factor */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SFILUSweep(s, PETSC_TRUE, b, y));
  if (s->icc) {
    PetscCall(RootDiagonal(B, s, b));
    PetscCall(VecPointwiseMult(y, y, s->root));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatBackwardSolve_SFILU(Mat B, Vec y, Vec x)
{
  SFILU *s = (SFILU *)B->data;
  Vec    t = y;

  PetscFunctionBegin;
  if (s->failure != PC_NOERROR) {
    PetscCall(VecFlag(x, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->icc) {
    PetscCall(RootDiagonal(B, s, y));
    if (!s->symwork) PetscCall(VecDuplicate(y, &s->symwork));
    PetscCall(VecPointwiseDivide(s->symwork, y, s->root));
    t = s->symwork;
  }
  PetscCall(SFILUSweep(s, PETSC_FALSE, t, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether is holds 0, 1, ..., n - 1, read from its indices: MatReorderForNonzeroDiagonal() swaps the indices of the
   natural ordering's IS in place and leaves that IS's cached "identity" flag set, so ISIdentity() cannot tell.
*/
static PetscErrorCode OrderingIsNatural(IS is, PetscBool *natural)
{
  const PetscInt *idx;
  PetscInt        n;

  PetscFunctionBegin;
  *natural = PETSC_TRUE;
  if (!is) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ISGetLocalSize(is, &n));
  PetscCall(ISGetIndices(is, &idx));
  for (PetscInt i = 0; i < n && *natural; i++) *natural = (PetscBool)(idx[i] == i);
  PetscCall(ISRestoreIndices(is, &idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FactorSymbolic(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  SFILU    *s = (SFILU *)B->data;
  PetscBool ondevice, idr = PETSC_TRUE, idc = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(info->levels >= 0, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be nonnegative, not %g", (double)info->levels);
  PetscCall(OrderingIsNatural(row, &idr));
  PetscCall(OrderingIsNatural(col, &idc));
  PetscCheck(idr && idc, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The sfilu solver uses the natural ordering only: use -pc_factor_mat_ordering_type natural, without -pc_factor_nonzeros_along_diagonal");
  PetscCall(SFILUCheckMatrix(A, &ondevice));
  PetscCall(SFILUSetFactorInfo(s, info));
  PetscOptionsBegin(PetscObjectComm((PetscObject)B), ((PetscObject)B)->prefix, "Options of the sfilu solver type (SFPC's ILU and ICC behind PCILU and PCICC)", "Mat");
  PetscCall(SFILUSetEngineFromOptions(PetscOptionsObject, s, "-mat_sfilu_", MATSOLVERSFILU));
  PetscOptionsEnd();
  s->fill_levels = (PetscInt)info->levels;
  s->icc         = (PetscBool)(B->factortype == MAT_FACTOR_ICC);
  B->info.fill_ratio_given = info->fill;
  { /* as PCSFILU without a DM: the grid layout where the pattern is a 7- or 27-point stencil in natural order (ILU(0) on the GPU; on the host read only to check a grid layout asked for) */
    PetscInt dims[3] = {0, 0, 0};

    PetscCheck(s->fill_levels == 0 || s->engine.layout != SFPC_LAYOUT_GRID, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The grid layout (-mat_sfilu_layout grid) sweeps ILU(0)'s stencil: with %" PetscInt_FMT " levels of fill use -mat_sfilu_layout auto, hyb or csr", s->fill_levels);
    if (s->fill_levels == 0 && (ondevice || s->engine.layout == SFPC_LAYOUT_GRID)) PetscCall(SFILUGridFromPattern(A, ondevice, PETSC_TRUE, dims));
    for (int d = 0; d < 3; d++) s->sip_dims[d] = s->engine.grid[d] = dims[d];
    s->engine.grid_guessed = (PetscBool)(dims[0] > 0);
  }
  PetscCall(SFILUSymbolic(s, A, ondevice));
  B->ops->lufactornumeric       = MatFactorNumeric_SFILU;
  B->ops->choleskyfactornumeric = MatFactorNumeric_SFILU;
  B->ops->solve                 = MatSolve_SFILU;
  B->ops->solvetranspose        = s->icc ? MatSolve_SFILU : MatSolveTranspose_SFILU; /* ICC's factor is symmetric: no transposed factor to build */
  B->ops->forwardsolve          = MatForwardSolve_SFILU;
  B->ops->backwardsolve         = MatBackwardSolve_SFILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatILUFactorSymbolic_SFILU(Mat B, Mat A, IS row, IS col, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(FactorSymbolic(B, A, row, col, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatICCFactorSymbolic_SFILU(Mat B, Mat A, IS perm, const MatFactorInfo *info)
{
  PetscFunctionBegin;
  PetscCall(FactorSymbolic(B, A, perm, perm, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatView_SFILU(Mat B, PetscViewer viewer)
{
  PetscBool         isascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL) PetscCall(SFILUView((SFILU *)B->data, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatGetInfo_SFILU(Mat B, MatInfoType flag, MatInfo *info)
{
  SFILU *s = (SFILU *)B->data;

  PetscFunctionBegin;
  (void)flag;
  PetscCall(PetscMemzero(info, sizeof(*info)));
  info->block_size = 1.0;
  info->nz_used    = (PetscLogDouble)(s->ondevice && s->T ? s->T->nnz : s->F.nnz);
  info->nz_allocated = info->nz_used;
  info->fill_ratio_given  = B->info.fill_ratio_given;
  info->fill_ratio_needed = s->fill.nnz ? (PetscLogDouble)s->fill.nnz / (PetscLogDouble)PetscMax(s->fill.nnz_a, 1) : 1.0; /* what PCFactor's view prints */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatFactorGetSolverType_SFILU(Mat B, MatSolverType *type)
{
  PetscFunctionBegin;
  (void)B;
  *type = MATSOLVERSFILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatDestroy_SFILU(Mat B)
{
  PetscFunctionBegin;
  PetscCall(SFILUReset((SFILU *)B->data));
  PetscCall(PetscFree(B->data));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registered for MATSEQAIJ and MATSEQAIJCUSPARSE with MAT_FACTOR_ILU and MAT_FACTOR_ICC (SFPCInitializePackage()). */
PetscErrorCode MatGetFactor_SFILU(Mat A, MatFactorType ftype, Mat *F)
{
  Mat      B;
  SFILU   *s;
  PetscInt n;

  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_ILU || ftype == MAT_FACTOR_ICC, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The sfilu solver provides ILU(k) and ICC(k) only, not %s", MatFactorTypes[ftype]);
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  PetscCall(MatSetSizes(B, n, n, n, n));
  PetscCall(PetscStrallocpy(MATSOLVERSFILU, &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  PetscCall(PetscNew(&s));
  PetscCall(SFILUInitialize(s));
  B->data                    = s;
  if (ftype == MAT_FACTOR_ILU) B->ops->ilufactorsymbolic = MatILUFactorSymbolic_SFILU;
  else B->ops->iccfactorsymbolic = MatICCFactorSymbolic_SFILU;
  B->ops->getinfo            = MatGetInfo_SFILU;
  B->ops->view               = MatView_SFILU;
  B->ops->destroy            = MatDestroy_SFILU;
  B->factortype              = ftype;
  B->assembled               = PETSC_TRUE; /* what -ksp_view expects of a factor */
  B->preallocated            = PETSC_TRUE;
  /* PCFactor passes its ordering only to a factor that can use one; it then also applies -pc_factor_nonzeros_along_diagonal
     to it. Natural ordering is what this factor runs: anything else (an ordering asked for, or rows swapped to move
     small pivots off the diagonal) must reach FactorSymbolic()'s refusal instead of being dropped silently */
  B->canuseordering          = PETSC_TRUE;
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERSFILU, &B->solvertype));
  PetscCall(PetscStrallocpy(MATORDERINGNATURAL, (char **)&B->preferredordering[ftype]));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_SFILU));
  *F = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}
