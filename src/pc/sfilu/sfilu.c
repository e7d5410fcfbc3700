/*
   PCSFILU: ILU(0) with natural ordering, pivots checked and shifted the PCFactor way.
   This file holds the PC object (options, set-up policy, view) and the host path.
*/
#include "sfilu.h"

/* Number of factorizations a shift policy may redo before the PC gives up. */
#define SFILU_MAX_SHIFTS 64

/*
   The diagonal shift for attempt k = 1, 2, ... after an unshifted factorization failed.
   nonzero: shiftamount * max_i rowsum_i, doubled at each attempt (as PCFactor's NONZERO).
   positive_definite: fractions 1/16 .. 2 of top, the shift that makes A + top*I weakly
   diagonally dominant with a positive diagonal (Manteuffel's shifted incomplete factorization).
*/
static PetscBool SFILUNextShift(const PC_SFILU *s, PetscInt k, PetscReal rmax, PetscReal top, PetscReal *shift)
{
  if (s->shifttype == MAT_SHIFT_NONZERO) {
    if (k > SFILU_MAX_SHIFTS) return PETSC_FALSE;
    *shift = s->shiftamount * (rmax > 0 ? rmax : 1.0) * PetscPowReal(2.0, (PetscReal)(k - 1));
    return PETSC_TRUE;
  }
  if (s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE) {
    if (k > 6) return PETSC_FALSE;
    *shift = top * PetscPowReal(2.0, (PetscReal)(k - 5));
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* Records a failure the PETSc way: an error with -ksp_error_if_not_converged / KSPSetErrorIfNotConverged, else a failed reason. */
static PetscErrorCode SFILUFail(PC pc, PCFailedReason reason, const char *what, PetscInt row, PetscScalar value, PetscReal tol)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  s->failrow = row;
  PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, reason == PC_FACTOR_NUMERIC_ZEROPIVOT ? PETSC_ERR_MAT_LU_ZRPVT : PETSC_ERR_FP, "PCSFILU: %s in row %" PetscInt_FMT ": |value| %g, tolerance %g times the row sum of |A|", what, row, (double)PetscAbsScalar(value), (double)tol);
  PetscCall(PetscInfo(pc, "%s in row %" PetscInt_FMT ": |value| %g, tolerance %g times the row sum of |A|\n", what, row, (double)PetscAbsScalar(value), (double)tol));
  pc->failedreason = reason;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUFactor(PC pc, const PetscScalar *aa, SFILUNumericFn numeric, SFILUBoundsFn bounds)
{
  PC_SFILU   *s        = (PC_SFILU *)pc->data;
  PetscBool   positive = (PetscBool)(s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE);
  PetscReal   rmax = 0, top = 0;
  SFILUResult res;

  PetscFunctionBegin;
  pc->failedreason = PC_NOERROR;
  s->failrow       = -1;
  s->shift         = 0;
  s->nshifts       = 0;
  PetscCall(PetscLogEventBegin(SFPC_ILUNumeric, pc, pc->pmat, 0, 0));
  PetscCall(numeric(pc, aa, 0, &res));
  if (res.badrow >= 0 && res.nonfinite < 0 && s->shifttype != MAT_SHIFT_NONE) {
    PetscCall(bounds(pc, aa, &rmax, &top));
    if (top <= 0) top = s->shiftamount * (rmax > 0 ? rmax : 1.0); /* already dominant: only rounding can make a pivot fail */
    while (res.badrow >= 0 && SFILUNextShift(s, s->nshifts + 1, rmax, top, &s->shift)) {
      s->nshifts++;
      PetscCall(PetscInfo(pc, "Pivot failed in row %" PetscInt_FMT "; refactoring with diagonal shift %g\n", res.badrow, (double)s->shift));
      PetscCall(numeric(pc, aa, s->shift, &res));
    }
  }
  PetscCall(PetscLogEventEnd(SFPC_ILUNumeric, pc, pc->pmat, 0, 0));
  if (res.nonfinite >= 0) PetscCall(SFILUFail(pc, PC_FACTOR_OTHER, "matrix has an Inf or NaN entry", res.nonfinite, PETSC_INFINITY, 0));
  else if (res.badrow >= 0) {
    const PetscReal tol = s->zeropivot;

    if (PetscIsInfOrNanScalar(res.badpivot)) PetscCall(SFILUFail(pc, PC_FACTOR_OTHER, "pivot overflowed to Inf or NaN", res.badrow, res.badpivot, tol));
    else PetscCall(SFILUFail(pc, PC_FACTOR_NUMERIC_ZEROPIVOT, positive ? "nonpositive pivot" : "zero pivot", res.badrow, res.badpivot, tol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFILUNumeric_Host(PC pc, const PetscScalar *aa, PetscReal shift, SFILUResult *res)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFILUFactorNumeric_Host(&s->F, aa, shift, s->zeropivot, (PetscBool)(s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE), res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFILUBounds_Host(PC pc, const PetscScalar *aa, PetscReal *rmax, PetscReal *top)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFILUShiftBounds_Host(&s->F, aa, rmax, top));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_SFILU_Host(PC pc)
{
  PC_SFILU          *s = (PC_SFILU *)pc->data;
  const PetscScalar *aa;

  PetscFunctionBegin;
  if (!pc->setupcalled || pc->flag != SAME_NONZERO_PATTERN || !s->F.i || s->ondevice) {
    const PetscInt *ai, *aj;
    PetscInt        n;
    PetscBool       done;

    PetscCall(PCReset_SFILU_Device(pc));
    PetscCall(PetscLogEventBegin(SFPC_ILUSymbolic, pc, pc->pmat, 0, 0));
    PetscCall(SFPCTriFactorDestroy(&s->F));
    PetscCall(MatGetRowIJ(pc->pmat, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCSFILU cannot read the CSR structure of this matrix");
    PetscCall(SFPCTriFactorCreateFromCSR(n, ai, aj, &s->F));
    PetscCall(MatRestoreRowIJ(pc->pmat, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
    PetscCall(PetscLogEventEnd(SFPC_ILUSymbolic, pc, pc->pmat, 0, 0));
    s->ondevice = PETSC_FALSE;
  }
  PetscCall(MatSeqAIJGetArrayRead(pc->pmat, &aa));
  PetscCall(SFILUFactor(pc, aa, SFILUNumeric_Host, SFILUBounds_Host));
  PetscCall(MatSeqAIJRestoreArrayRead(pc->pmat, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_SFILU(PC pc)
{
  Mat       P = pc->pmat;
  PetscInt  m, n;
  PetscBool isseqaij, iscusparse, bound = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGetSize(P, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCSFILU needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJ, &isseqaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSEQAIJCUSPARSE, &iscusparse));
  if (iscusparse) PetscCall(MatBoundToCPU(P, &bound));
  if (iscusparse && !bound) {
#if defined(SFPC_HAVE_CUDA)
    PetscCall(PCSetUp_SFILU_Device(pc));
    PetscFunctionReturn(PETSC_SUCCESS);
#else
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "This SFPC was built without CUDA (SFPC_WITH_CUDA=0): PCSFILU cannot factor a %s matrix on the GPU; use -mat_type aij", MATSEQAIJCUSPARSE);
#endif
  }
  if (!isseqaij && !iscusparse) {
    MatType   type;
    PetscBool ismpi;

    PetscCall(MatGetType(P, &type));
    PetscCall(PetscStrbeginswith(type, MATMPIAIJ, &ismpi));
    PetscCheck(!ismpi, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCSFILU does not support matrix type %s yet; use -pc_type bjacobi -sub_pc_type sfilu (or asm) for MPI matrices", type);
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCSFILU does not support matrix type %s yet; it supports %s and %s", type, MATSEQAIJ, MATSEQAIJCUSPARSE);
  }
  PetscCall(PCSetUp_SFILU_Host(pc)); /* seqaij, or seqaijcusparse bound to the CPU */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_SFILU_Private(PC pc, Vec x, Vec y, PetscBool transpose)
{
  PC_SFILU          *s = (PC_SFILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  if (pc->failedreason != PC_NOERROR) { /* as MatSolve() does with a failed factor: let the KSP see it */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->ondevice) {
    PetscCheck(!transpose, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "PCSFILU: the transpose apply of a GPU factor is not implemented; use a KSP that needs no transpose");
    PetscCall(PCApply_SFILU_Device(pc, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(SFPC_TriSolve, pc, x, y, 0));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  if (transpose) PetscCall(SFPCTriFactorSolveTranspose_Host(&s->F, xa, ya));
  else PetscCall(SFPCTriFactorSolve_Host(&s->F, xa, ya));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogEventEnd(SFPC_TriSolve, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_SFILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApply_SFILU_Private(pc, x, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyTranspose_SFILU(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCApply_SFILU_Private(pc, x, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetShiftType_SFILU(PC pc, MatFactorShiftType type)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  if (type == (MatFactorShiftType)PETSC_DECIDE) type = MAT_SHIFT_NONE;
  PetscCheck(type == MAT_SHIFT_NONE || type == MAT_SHIFT_NONZERO || type == MAT_SHIFT_POSITIVE_DEFINITE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU supports shift types none, nonzero and positive_definite, not %s", MatFactorShiftTypes[type]);
  s->shifttype = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetShiftAmount_SFILU(PC pc, PetscReal amount)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  if (amount == (PetscReal)PETSC_DECIDE || amount == (PetscReal)PETSC_DEFAULT) amount = 100.0 * PETSC_MACHINE_EPSILON;
  PetscCheck(amount > 0 && !PetscIsInfOrNanReal(amount), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU shift amount must be positive and finite, not %g", (double)amount);
  s->shiftamount = amount;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCFactorSetZeroPivot_SFILU(PC pc, PetscReal tol)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  if (tol == (PetscReal)PETSC_DECIDE || tol == (PetscReal)PETSC_DEFAULT) tol = 100.0 * PETSC_MACHINE_EPSILON;
  PetscCheck(tol >= 0 && tol < 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILU zero-pivot tolerance must be in [0, 1), not %g", (double)tol);
  s->zeropivot = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_SFILU(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_SFILU          *s = (PC_SFILU *)pc->data;
  MatFactorShiftType type;
  PetscReal          r;
  PetscBool          set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "SFILU options");
  PetscCall(PetscOptionsEnum("-pc_sfilu_shift_type", "Shift applied when a pivot fails", "PCFactorSetShiftType", MatFactorShiftTypes, (PetscEnum)s->shifttype, (PetscEnum *)&type, &set));
  if (set) PetscCall(PCFactorSetShiftType_SFILU(pc, type));
  PetscCall(PetscOptionsReal("-pc_sfilu_shift_amount", "First nonzero shift, relative to the largest row sum of |A|", "PCFactorSetShiftAmount", s->shiftamount, &r, &set));
  if (set) PetscCall(PCFactorSetShiftAmount_SFILU(pc, r));
  PetscCall(PetscOptionsReal("-pc_sfilu_zeropivot", "Pivot tolerance, relative to the row sum of |A|", "PCFactorSetZeroPivot", s->zeropivot, &r, &set));
  if (set) PetscCall(PCFactorSetZeroPivot_SFILU(pc, r));
  PetscCall(PetscOptionsRangeInt("-pc_sfilu_warps_per_sm", "GPU sweeps: warps kept per SM (more hide latency, fewer poll less)", "PCSFILU", s->warps_per_sm, &s->warps_per_sm, NULL, 1, 64));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_SFILU(PC pc, PetscViewer viewer)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  ILU(0), natural ordering, factorization and solves on the %s\n", s->ondevice ? "GPU (sync-free)" : "host"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  shift type %s, zero pivot tolerance %g (relative to row sums of |A|)\n", MatFactorShiftTypes[s->shifttype], (double)s->zeropivot));
  if (!pc->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  if (s->ondevice && s->T) {
    SFPCTriDevice  T = s->T;
    PetscLogDouble bytes;

    PetscCall(SFPCTriDeviceBytes(T, &bytes));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factor: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %.3g MiB on the GPU\n", T->n, T->nnz, (double)(bytes / 1048576.0)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  levels: L %d, U %d; warp tasks: L %d, U %d; %" PetscInt_FMT " warps per SM\n", T->lower.nlevels, T->upper.nlevels, T->lower.ntasks, T->upper.ntasks, s->warps_per_sm));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  rows of L by lanes per row: 1:%" PetscInt_FMT " 2:%" PetscInt_FMT " 4:%" PetscInt_FMT " 8:%" PetscInt_FMT " 16:%" PetscInt_FMT " 32:%" PetscInt_FMT "\n", T->rows_by_vec[0], T->rows_by_vec[1], T->rows_by_vec[2], T->rows_by_vec[3], T->rows_by_vec[4], T->rows_by_vec[5]));
  } else if (s->F.i) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factor: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %.3g MiB\n", s->F.n, s->F.nnz, (double)((s->F.nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) + s->F.n * 2 * sizeof(PetscInt)) / 1048576.0)));
  }
  if (s->nshifts) PetscCall(PetscViewerASCIIPrintf(viewer, "  diagonal shift %g applied after %" PetscInt_FMT " refactorization(s)\n", (double)s->shift, s->nshifts));
  if (s->failrow >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization FAILED (%s) in row %" PetscInt_FMT "\n", PCFailedReasons[pc->failedreason], s->failrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_SFILU(PC pc)
{
  PC_SFILU *s = (PC_SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFPCTriFactorDestroy(&s->F));
  PetscCall(PCReset_SFILU_Device(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_SFILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_SFILU(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftAmount_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetZeroPivot_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCSFILU - ILU(0) built for synchronization-free factorization and triangular solves.

   Options Database Keys:
+  -pc_sfilu_shift_type <none,nonzero,positive_definite> - on a failed pivot: fail the PC (none), refactor A + a I
                        with a = shift_amount * max_i sum_j |a_ij| doubled until every pivot passes (nonzero), or
                        refactor with fractions 1/16 .. 2 of the shift that makes A + a I diagonally dominant until every
                        pivot is positive (positive_definite)
.  -pc_sfilu_shift_amount <100*eps> - see above
.  -pc_sfilu_zeropivot <100*eps> - pivot u_ii fails when |u_ii| <= zeropivot * sum_j |a_ij| (Re(u_ii) for positive_definite)
-  -pc_sfilu_warps_per_sm <24> - GPU only: warps each sync-free sweep keeps per SM

   Notes:
   Works on `MATSEQAIJ` (on the host) and `MATSEQAIJCUSPARSE` (entirely on the GPU: analysis, sync-free factorization
   and sync-free triangular solves, from the matrix's device CSR). A failed factorization sets `PC_FACTOR_NUMERIC_ZEROPIVOT` (or `PC_FACTOR_OTHER` for Inf/NaN
   entries), so a `KSP` stops with `KSP_DIVERGED_PC_FAILED`; with `-ksp_error_if_not_converged` it raises an error instead.
   A matrix with a missing diagonal entry is an error. `PCFactorSetShiftType()`, `PCFactorSetShiftAmount()` and
   `PCFactorSetZeroPivot()` apply to this PC.

   Level: beginner

.seealso: `PCILU`, `PCFactorSetShiftType()`
M*/
PetscErrorCode PCCreate_SFILU(PC pc)
{
  PC_SFILU *s;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  s->shifttype   = MAT_SHIFT_NONE;
  s->shiftamount = 100.0 * PETSC_MACHINE_EPSILON;
  s->zeropivot   = 100.0 * PETSC_MACHINE_EPSILON;
  s->failrow     = -1;
  s->warps_per_sm = SFPC_DEFAULT_WARPS_PER_SM;
  pc->data       = s;

  pc->ops->setup          = PCSetUp_SFILU;
  pc->ops->apply          = PCApply_SFILU;
  pc->ops->applytranspose = PCApplyTranspose_SFILU;
  pc->ops->setfromoptions = PCSetFromOptions_SFILU;
  pc->ops->view           = PCView_SFILU;
  pc->ops->reset          = PCReset_SFILU;
  pc->ops->destroy        = PCDestroy_SFILU;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftType_C", PCFactorSetShiftType_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetShiftAmount_C", PCFactorSetShiftAmount_SFILU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCFactorSetZeroPivot_C", PCFactorSetZeroPivot_SFILU));
  PetscFunctionReturn(PETSC_SUCCESS);
}
