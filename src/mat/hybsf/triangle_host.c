/*
   A triangle of a square CSR matrix as an engine factor, on the host (the reference of
   triangle_device.cu, and what MATHYBSF holds when built from MATSEQAIJ).
*/
#include <sfpc/private/triangle.h>

PetscErrorCode SFPCTriangleFaultError(PetscInt row, SFPCTriangleFault fault)
{
  PetscFunctionBegin;
  PetscCheck(fault != SFPC_TRIANGLE_MISSING_DIAGONAL, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Row %" PetscInt_FMT " has no diagonal entry: a triangle with a non-unit diagonal needs every one", row);
  PetscCheck(fault != SFPC_TRIANGLE_ZERO_DIAGONAL, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Zero diagonal entry in row %" PetscInt_FMT ", or one so small that its inverse overflows: the triangle is singular or cannot be solved in double precision", row);
  PetscCheck(fault != SFPC_TRIANGLE_NONFINITE, PETSC_COMM_SELF, PETSC_ERR_FP, "Row %" PetscInt_FMT " of the triangle has an Inf or NaN entry", row);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Row %" PetscInt_FMT " of the triangle changed its nonzero pattern: refilling values needs the same pattern", row);
}

/* Position of a row's entry of column c in engine order, counted from the row's start; -1 if c is not in the triangle. */
static inline PetscInt EnginePosition(PetscInt r, PetscInt c, PetscBool lower, PetscInt strict_before)
{
  if (c == r) return lower ? strict_before : 0;
  if (lower ? c < r : c > r) return lower ? strict_before : strict_before + 1;
  return -1;
}

/*
   Checks row r (its diagonal; with tj, that its triangle has the columns tj[q0..]; that the entries
   kept are finite) and counts its engine entries (the strict triangle plus the diagonal slot).
   Nothing is written. In a row, a changed pattern comes first, then the diagonal, then Inf/NaN, as
   in triangle_device.cu.
*/
static PetscErrorCode RowCheck(PetscInt r, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], PetscBool lower, PetscBool unit, const PetscInt tj[], PetscInt q0, PetscInt q1, PetscInt *count)
{
  PetscInt    strict = 0;
  PetscBool   hasd = PETSC_FALSE, finite = PETSC_TRUE;
  PetscScalar d    = 0;

  PetscFunctionBegin;
  for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
    const PetscInt c = aj[k], q = EnginePosition(r, c, lower, strict);
    if (q < 0) continue;
    if (tj && c != r && (q0 + q >= q1 || tj[q0 + q] != c)) PetscCall(SFPCTriangleFaultError(r, SFPC_TRIANGLE_PATTERN_CHANGED)); /* the diagonal's slot: after the diagonal's checks, as on the device */
    if (c == r) {
      hasd = PETSC_TRUE;
      d    = aa[k];
      if (!unit && PetscIsInfOrNanScalar(d)) finite = PETSC_FALSE; /* a unit triangle does not read its diagonal */
    } else {
      if (PetscIsInfOrNanScalar(aa[k])) finite = PETSC_FALSE;
      strict++;
    }
  }
  if (!unit && !hasd) PetscCall(SFPCTriangleFaultError(r, SFPC_TRIANGLE_MISSING_DIAGONAL));
  if (!unit && !PetscIsInfOrNanScalar(d) && !SFPCTriangleDiagonalInvertible(d)) PetscCall(SFPCTriangleFaultError(r, SFPC_TRIANGLE_ZERO_DIAGONAL));
  if (tj && (q0 + strict + 1 != q1 || tj[lower ? q1 - 1 : q0] != r)) PetscCall(SFPCTriangleFaultError(r, SFPC_TRIANGLE_PATTERN_CHANGED));
  if (!finite) PetscCall(SFPCTriangleFaultError(r, SFPC_TRIANGLE_NONFINITE));
  *count = strict + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes row r's engine entries from position q0; returns the position of its diagonal slot. */
static PetscInt RowFill(PetscInt r, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], PetscBool lower, PetscBool unit, PetscInt q0, PetscInt tj[], PetscScalar ta[])
{
  PetscInt    strict = 0, dq;
  PetscScalar d      = 1.0;

  for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
    const PetscInt c = aj[k], q = EnginePosition(r, c, lower, strict);
    if (q < 0) continue;
    if (c == r) d = aa[k];
    else {
      tj[q0 + q] = c;
      ta[q0 + q] = aa[k];
      strict++;
    }
  }
  dq     = q0 + (lower ? strict : 0);
  tj[dq] = r;
  ta[dq] = unit ? 1.0 : 1.0 / d;
  return dq;
}

PetscErrorCode SFPCTriangleCreate_Host(PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], PetscBool lower, PetscBool unit, SFPCTriFactor *F)
{
  PetscInt *ti;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &ti));
  ti[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt       c    = 0;
    PetscErrorCode ierr = RowCheck(r, ai, aj, aa, lower, unit, NULL, 0, 0, &c);
    if (ierr) PetscCall(PetscFree(ti));
    PetscCall(ierr);
    ti[r + 1] = ti[r] + c;
  }
  F->n   = n;
  F->nnz = ti[n];
  PetscCall(PetscMalloc4(n + 1, &F->i, F->nnz, &F->j, n, &F->diag, F->nnz, &F->a));
  PetscCall(PetscArraycpy(F->i, ti, n + 1));
  PetscCall(PetscFree(ti));
  for (PetscInt r = 0; r < n; r++) F->diag[r] = RowFill(r, ai, aj, aa, lower, unit, F->i[r], F->j, F->a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New values of the same pattern; checked before anything is written. */
PetscErrorCode SFPCTriangleSetValues_Host(SFPCTriFactor *F, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], PetscBool lower, PetscBool unit)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < F->n; r++) {
    PetscInt c = 0;
    PetscCall(RowCheck(r, ai, aj, aa, lower, unit, F->j, F->i[r], F->i[r + 1], &c));
  }
  for (PetscInt r = 0; r < F->n; r++) (void)RowFill(r, ai, aj, aa, lower, unit, F->i[r], F->j, F->a);
  PetscFunctionReturn(PETSC_SUCCESS);
}
