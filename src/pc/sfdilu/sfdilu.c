/*
   PCSFDILU: multicolor DILU as a preconditioner and as a multigrid level smoother (with a
   PCApplyRichardson() for -mg_levels_ksp_type richardson). Host path (the reference); on MPI
   matrices each rank smooths its diagonal block, block-Jacobi style.
*/
#include "sfdilu.h"

/* The sequential matrix DILU works on: A itself, or the diagonal block of an MPI A. */
static PetscErrorCode SFDILULocalMatrix(Mat A, Mat *Ad)
{
  PetscBool isseqaij, ismpiaij;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseqaij));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpiaij));
  PetscCall(MatGetType(A, &type));
  {
    char *cusparse = NULL;
    PetscCall(PetscStrstr(type, "cusparse", &cusparse));
    PetscCheck(!cusparse, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "PCSFDILU runs on the host only so far (the GPU smoother is not implemented yet): use -mat_type aij (or -dm_mat_type aij), not %s", type);
  }
  PetscCheck(isseqaij || ismpiaij, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "PCSFDILU supports %s and %s (its diagonal block), not %s", MATSEQAIJ, MATMPIAIJ, type);
  if (ismpiaij) PetscCall(MatGetDiagonalBlock(A, Ad));
  else *Ad = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_SFDILU(PC pc)
{
  SFDILU  *s = (SFDILU *)pc->data;
  Mat      Ad;
  PetscInt m, n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(pc->pmat, &m, &n));
  PetscCheck(m == n, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "PCSFDILU needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(SFDILULocalMatrix(pc->pmat, &Ad));
  PetscCall(MatGetLocalSize(Ad, &m, NULL));
  /* a new pattern is colored again; new values of the same pattern only redo E */
  if (!pc->setupcalled || pc->flag != SAME_NONZERO_PATTERN || !s->color || s->n != m) PetscCall(SFDILUColor_Host(s, Ad));
  PetscCall(PetscObjectReference((PetscObject)Ad));
  PetscCall(MatDestroy(&s->A));
  s->A = Ad;
  {
    PetscReal rmax;
    s->shifted = 0;
    PetscCall(SFDILUSetUp_Host(s, Ad, 0, &rmax));
    for (PetscInt k = 0; s->shift && s->failure == PC_FACTOR_NUMERIC_ZEROPIVOT && k < 64; k++) {
      s->shifted = s->shiftamount * (rmax > 0 ? rmax : 1.0) * PetscPowReal(2.0, (PetscReal)k);
      PetscCall(PetscInfo(pc, "DILU diagonal failed in row %" PetscInt_FMT "; again with the diagonal shifted by %g\n", s->failrow, (double)s->shifted));
      PetscCall(SFDILUSetUp_Host(s, Ad, s->shifted, &rmax));
    }
  }
  if (!s->z || s->n != m) {
    PetscCall(VecDestroy(&s->z));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &s->z));
  }
  pc->failedreason = s->failure;
  if (s->failure != PC_NOERROR) {
    PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "PCSFDILU: the DILU diagonal failed (%s) in row %" PetscInt_FMT, PCFailedReasons[s->failure], s->failrow);
    PetscCall(PetscInfo(pc, "The DILU diagonal failed (%s) in row %" PetscInt_FMT "\n", PCFailedReasons[s->failure], s->failrow));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_SFDILU(PC pc, Vec x, Vec y)
{
  SFDILU            *s = (SFDILU *)pc->data;
  const PetscScalar *xa;
  PetscScalar       *ya, *za;

  PetscFunctionBegin;
  if (s->failure != PC_NOERROR) { /* as a failed factor's MatSolve(): the KSP sees Inf and stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(VecGetArrayWrite(s->z, &za));
  PetscCall(SFDILUApply_Host(s, xa, za, ya));
  PetscCall(VecRestoreArrayWrite(s->z, &za));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* its steps of x += omega M^{-1} (b - A x), with no convergence test: the smoother's use (KSP norm type none). */
static PetscErrorCode PCApplyRichardson_SFDILU(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  SFDILU *s = (SFDILU *)pc->data;
  Vec     d;

  PetscFunctionBegin;
  (void)rtol, (void)abstol, (void)dtol;
  PetscCall(VecDuplicate(b, &d));
  PetscCall(SFPCRichardsonSweeps(pc, PCApply_SFDILU, s->omega, b, x, w, d, its, guesszero));
  PetscCall(VecDestroy(&d));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_SFDILU(PC pc, PetscOptionItems PetscOptionsObject)
{
  SFDILU   *s = (SFDILU *)pc->data;
  PetscReal r;
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "SFDILU options");
  PetscCall(PetscOptionsReal("-pc_sfdilu_omega", "Weight of the Richardson update x += omega M^{-1} r, in (0, 2)", "PCSFDILU", s->omega, &r, &set));
  PetscCheck(!set || (r > 0 && r < 2), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_sfdilu_omega %g is out of range: it must be in (0, 2)", (double)r);
  if (set) s->omega = r;
  PetscCall(PetscOptionsReal("-pc_sfdilu_zeropivot", "E_i fails when |E_i| <= zeropivot * sum_j |a_ij|", "PCSFDILU", s->zeropivot, &r, &set));
  PetscCheck(!set || (r >= 0 && r < 1), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_sfdilu_zeropivot %g is out of range: it must be in [0, 1)", (double)r);
  if (set) s->zeropivot = r;
  {
    const char *types[] = {"none", "nonzero"};
    PetscInt    type    = s->shift ? 1 : 0;
    PetscCall(PetscOptionsEList("-pc_sfdilu_shift_type", "On a failed E_i: fail the PC (none), or shift the diagonal until none fails (nonzero)", "PCSFDILU", types, 2, types[type], &type, NULL));
    s->shift = (PetscBool)(type == 1);
  }
  PetscCall(PetscOptionsReal("-pc_sfdilu_shift_amount", "First shift, relative to the largest row sum of |A| (doubled at each retry)", "PCSFDILU", s->shiftamount, &r, &set));
  PetscCheck(!set || (r > 0 && !PetscIsInfOrNanReal(r)), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_sfdilu_shift_amount %g is out of range: it must be positive and finite", (double)r);
  if (set) s->shiftamount = r;
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_SFDILU(PC pc, PetscViewer viewer)
{
  SFDILU   *s = (SFDILU *)pc->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  multicolor DILU on the host, %" PetscInt_FMT " rows, %" PetscInt_FMT " colors (greedy, natural order), omega %g\n", s->n, s->ncolors, (double)s->omega));
  if (s->shifted > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  diagonal shifted by %g\n", (double)s->shifted));
  if (s->failure != PC_NOERROR) PetscCall(PetscViewerASCIIPrintf(viewer, "  DILU diagonal FAILED (%s) in row %" PetscInt_FMT "\n", PCFailedReasons[s->failure], s->failrow));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_SFDILU(PC pc)
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(SFDILUReset_Host(s));
  PetscCall(MatDestroy(&s->A));
  PetscCall(VecDestroy(&s->z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_SFDILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_SFDILU(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCSFDILU - multicolor DILU: M = (E + L_c) E^{-1} (E + U_c), where L_c/U_c hold the entries coupling a row to rows
   of lower/higher colors of a distance-1 coloring of the symmetrized pattern and E, the DILU diagonal, makes
   diag(M) = diag(A). A preconditioner and, above all, a multigrid level smoother (`-mg_levels_pc_type sfdilu`).

   Options Database Keys:
+  -pc_sfdilu_omega <1> - weight of the Richardson update (`-mg_levels_ksp_type richardson` calls `PCApplyRichardson()`)
.  -pc_sfdilu_zeropivot <100*eps> - E_i fails when |E_i| <= zeropivot * sum_j |a_ij|
.  -pc_sfdilu_shift_type <none,nonzero> - on a failed E_i, fail the PC or redo with A + a I, a doubled until none fails
-  -pc_sfdilu_shift_amount <100*eps> - the first a, relative to the largest row sum of |A|

   Notes:
   Host only so far (`MATSEQAIJ`, and the diagonal block of `MATMPIAIJ`); the GPU smoother is not implemented yet and
   a CUSPARSE matrix gets an error. A new nonzero pattern is colored again; new values of the same pattern
   (`SAME_NONZERO_PATTERN`) only recompute E. A zero or tiny E_i sets `PC_FACTOR_NUMERIC_ZEROPIVOT` (Inf/NaN:
   `PC_FACTOR_OTHER`).

   Level: intermediate

.seealso: `PCSFILU`, `PCGAMG`
M*/
PetscErrorCode PCCreate_SFDILU(PC pc)
{
  SFDILU *s;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  s->omega     = 1.0;
  s->zeropivot   = 100.0 * PETSC_MACHINE_EPSILON;
  s->shiftamount = 100.0 * PETSC_MACHINE_EPSILON;
  s->failrow   = -1;
  pc->data     = s;

  pc->ops->setup            = PCSetUp_SFDILU;
  pc->ops->apply            = PCApply_SFDILU;
  pc->ops->applyrichardson  = PCApplyRichardson_SFDILU;
  pc->ops->setfromoptions   = PCSetFromOptions_SFDILU;
  pc->ops->view             = PCView_SFDILU;
  pc->ops->reset            = PCReset_SFDILU;
  pc->ops->destroy          = PCDestroy_SFDILU;
  PetscFunctionReturn(PETSC_SUCCESS);
}
