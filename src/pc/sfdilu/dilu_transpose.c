/*
   PCApplyTranspose() of PCSFDILU: the DILU of A^T.
   E_i = a_ii - sum_{color(j) < color(i)} a_ij a_ji / E_j takes a_ij and a_ji only as their product, so A^T has A's E,
   and with A's coloring its L_c and U_c are U_c^T and L_c^T of A:
     M(A)^T = ((E + L_c) E^{-1} (E + U_c))^T = (E + U_c^T) E^{-1} (E + L_c^T) = M(A^T).
   The coloring is of the symmetrized pattern, the same for A^T; it is compared once per pattern all the same. The
   first transposed apply after a set-up builds A^T and a second DILU on it with the same options; applies then cost
   what PCApply() costs. A sequential A^T is a matrix of A's type whose values come from A's value array where A
   keeps it (on the GPU for CUSPARSE), through PETSc's COO assembly, its pattern set once; on MPI matrices, each
   rank's diagonal block is transposed so, and applied to sequential views of the vectors' local parts; only the
   global DILU across ranks (-pc_sfdilu_parallel) takes PETSc's MatTranspose() of the whole matrix, formed on the
   host. The diagonal shift A's set-up settled on is added to A^T, and A^T's E (the one A's set-up accepted) is not
   tested against a threshold again: row sums of |A^T| are column sums of |A|, and both would otherwise decide
   differently.
*/
#include "sfdilu.h"

static PetscErrorCode SFDILUSameColoring(PC pc, PC tpc)
{
  PetscInt        nc, tnc, n;
  const PetscInt *c, *tc;
  PetscBool       same;

  PetscFunctionBegin;
  PetscCall(PCSFDILUGetColoring(pc, &nc, &c));
  PetscCall(PCSFDILUGetColoring(tpc, &tnc, &tc));
  n    = ((SFDILU *)pc->data)->n;
  same = (PetscBool)(nc == tnc);
  for (PetscInt i = 0; same && i < n; i++) same = (PetscBool)(c[i] == tc[i]);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)pc)));
  PetscCheck(same, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "PCSFDILU: the DILU of A^T was colored differently from A's, so it is not the transpose of A's");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A^T of a sequential AIJ A, as a matrix of A's type: the COO of A's entries transposed (set once per pattern), then A's value array as the COO values. */
static PetscErrorCode SFDILUTransposeSeq(Mat A, PetscBool first, Mat *At)
{
  PetscScalar *aa;
  PetscMemType mtype;

  PetscFunctionBegin;
  if (first) {
    const PetscInt *ai, *aj;
    PetscInt        n, *ci, *cj;
    PetscBool       done, bound;
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCSFDILU cannot read the pattern of this matrix");
    PetscCall(PetscMalloc2(ai[n], &ci, ai[n], &cj));
    for (PetscInt r = 0; r < n; r++)
      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) ci[k] = aj[k], cj[k] = r;
    PetscCall(MatCreate(PETSC_COMM_SELF, At));
    PetscCall(MatSetSizes(*At, n, n, n, n));
    PetscCall(MatSetType(*At, ((PetscObject)A)->type_name));
    PetscCall(MatBoundToCPU(A, &bound));
    if (bound) PetscCall(MatBindToCPU(*At, PETSC_TRUE)); /* A level pinned to the CPU (-pc_gamg_cpu_pin_coarse_grids) stays there */
    PetscCall(MatSetPreallocationCOO(*At, ai[n], ci, cj));
    PetscCall(PetscFree2(ci, cj));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  }
  PetscCall(MatSeqAIJGetCSRAndMemType(A, NULL, NULL, &aa, &mtype)); /* in A's CSR order, where A keeps its values */
  PetscCall(MatSetValuesCOO(*At, aa, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFDILUSetUpTranspose(PC pc)
{
  SFDILU   *s = (SFDILU *)pc->data, *t;
  PetscBool first = (PetscBool)!s->tpc;

  PetscFunctionBegin;
  if (s->glob) PetscCall(MatTranspose(pc->pmat, first ? MAT_INITIAL_MATRIX : MAT_REUSE_MATRIX, &s->At));
  else PetscCall(SFDILUTransposeSeq(s->A, first, &s->At)); /* this rank's diagonal block, or A itself */
  if (s->shifted > 0) PetscCall(MatShift(s->At, s->shifted));
  if (first) {
    PetscCall(PCCreate(PetscObjectComm((PetscObject)s->At), &s->tpc));
    PetscCall(PCSetType(s->tpc, PCSFDILU));
    t              = (SFDILU *)s->tpc->data;
    t->coloring    = s->coloring;
    t->seed        = s->seed;
    t->parallel    = s->parallel;
    t->sweep       = s->sweep;
    t->gpuorder    = s->gpuorder;
    t->localwindow = s->localwindow;
    t->engine      = s->engine;
    t->shift       = PETSC_FALSE; /* A's shift is in A^T already */
    t->zeropivot   = 0;           /* E is A's, accepted by A's set-up (above) */
  }
  PetscCall(PCSetOperators(s->tpc, s->At, s->At));
  PetscCall(PCSetUp(s->tpc));
  if (first) PetscCall(SFDILUSameColoring(pc, s->tpc));
  s->tstale = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PCApplyTranspose_SFDILU(PC pc, Vec x, Vec y)
{
  SFDILU *s = (SFDILU *)pc->data;

  PetscFunctionBegin;
  if (s->failure != PC_NOERROR) { /* as PCApply(): the KSP sees Inf and stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!s->tpc || s->tstale) PetscCall(SFDILUSetUpTranspose(pc));
  if (s->glob) {
    PetscCall(PCApply(s->tpc, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->txl) { /* made for vectors of another kind? */
    PetscBool same;
    PetscCall(PetscObjectTypeCompare((PetscObject)x, s->ttype, &same));
    if (!same) {
      PetscCall(VecDestroy(&s->txl));
      PetscCall(VecDestroy(&s->tyl));
    }
  }
  if (!s->txl) { /* sequential views of x's and y's local parts (of the same kind: CUDA for CUDA vectors) */
    PetscCall(VecCreateLocalVector(x, &s->txl));
    PetscCall(VecCreateLocalVector(y, &s->tyl));
    PetscCall(PetscStrncpy(s->ttype, ((PetscObject)x)->type_name, sizeof(s->ttype)));
  }
  PetscCall(VecGetLocalVectorRead(x, s->txl));
  PetscCall(VecGetLocalVector(y, s->tyl));
  PetscCall(PCApply(s->tpc, s->txl, s->tyl));
  PetscCall(VecRestoreLocalVector(y, s->tyl));
  PetscCall(VecRestoreLocalVectorRead(x, s->txl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUResetTranspose(SFDILU *s)
{
  PetscFunctionBegin;
  PetscCall(PCDestroy(&s->tpc));
  PetscCall(MatDestroy(&s->At));
  PetscCall(VecDestroy(&s->txl));
  PetscCall(VecDestroy(&s->tyl));
  s->tstale = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
