/*
   Host reference of the sync-free engine: the in-place LU factor layout and its forward and
   backward solves. The GPU kernels are tested against these, and CI (no GPU) runs them.
*/
#include <sfpc/private/trifactor.h>
#include <sfpc/private/trifactor_device.h>

/*
   Copies the pattern of a square CSR matrix and locates the diagonals. Fails, before anything
   is allocated, when a row's columns are not strictly increasing or its diagonal is missing:
   ILU(0) in place needs a slot for every pivot.
*/
PetscErrorCode SFPCTriFactorCreateFromCSR(PetscInt n, const PetscInt ai[], const PetscInt aj[], SFPCTriFactor *F)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++) {
    PetscBool has_diag = PETSC_FALSE;
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      PetscCheck(aj[k] >= 0 && aj[k] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Column index %" PetscInt_FMT " in row %" PetscInt_FMT " is outside [0, %" PetscInt_FMT ")", aj[k], r, n);
      PetscCheck(k == ai[r] || aj[k - 1] < aj[k], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Columns of row %" PetscInt_FMT " are not sorted and unique", r);
      if (aj[k] == r) has_diag = PETSC_TRUE;
    }
    PetscCheck(has_diag, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Matrix is missing diagonal entry in row %" PetscInt_FMT " (insert an explicit zero there, and use a shift, to factor it)", r);
  }
  F->n   = n;
  F->nnz = ai[n];
  PetscCall(PetscMalloc4(n + 1, &F->i, F->nnz, &F->j, n, &F->diag, F->nnz, &F->a));
  PetscCall(PetscArraycpy(F->i, ai, n + 1));
  PetscCall(PetscArraycpy(F->j, aj, F->nnz));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt k = ai[r];
    while (aj[k] != r) k++;
    F->diag[r] = k;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFPCTriFactorDestroy(SFPCTriFactor *F)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(F->i, F->j, F->diag, F->a));
  F->n = F->nnz = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One sweep over the lower (entries left of the diagonal) or upper part, row-oriented: x = L^{-1} b or U^{-1} b; x may alias b. */
PetscErrorCode SFPCTriFactorSweep_Host(const SFPCTriFactor *F, PetscBool lower, PetscBool unit, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt    *i = F->i, *j = F->j, *d = F->diag;
  const PetscScalar *a = F->a;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < F->n; t++) {
    const PetscInt r  = lower ? t : F->n - 1 - t;
    const PetscInt kb = lower ? i[r] : d[r] + 1, ke = lower ? d[r] : i[r + 1];
    PetscScalar    s  = b[r];
    for (PetscInt k = kb; k < ke; k++) s -= a[k] * x[j[k]];
    x[r] = unit ? s : s * a[d[r]];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transpose of that sweep, column-oriented over the same storage: x = L^{-T} b or U^{-T} b; x may alias b. */
PetscErrorCode SFPCTriFactorSweepTranspose_Host(const SFPCTriFactor *F, PetscBool lower, PetscBool unit, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt    *i = F->i, *j = F->j, *d = F->diag;
  const PetscScalar *a = F->a;

  PetscFunctionBegin;
  if (x != b) PetscCall(PetscArraycpy(x, b, F->n));
  for (PetscInt t = 0; t < F->n; t++) { /* L^T is upper triangular (columns from last to first), U^T lower: finish x_r, then scatter */
    const PetscInt r  = lower ? F->n - 1 - t : t;
    const PetscInt kb = lower ? i[r] : d[r] + 1, ke = lower ? d[r] : i[r + 1];
    if (!unit) x[r] *= a[d[r]];
    for (PetscInt k = kb; k < ke; k++) x[j[k]] -= a[k] * x[r];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = U^{-1} L^{-1} b (L unit); x may alias b. */
PetscErrorCode SFPCTriFactorSolve_Host(const SFPCTriFactor *F, const PetscScalar b[], PetscScalar x[])
{
  PetscFunctionBegin;
  PetscCall(SFPCTriFactorSweep_Host(F, PETSC_TRUE, PETSC_TRUE, b, x));
  PetscCall(SFPCTriFactorSweep_Host(F, PETSC_FALSE, PETSC_FALSE, x, x));
  PetscCall(PetscLogFlops(2.0 * F->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = L^{-T} U^{-T} b; x may alias b. */
PetscErrorCode SFPCTriFactorSolveTranspose_Host(const SFPCTriFactor *F, const PetscScalar b[], PetscScalar x[])
{
  PetscFunctionBegin;
  PetscCall(SFPCTriFactorSweepTranspose_Host(F, PETSC_FALSE, PETSC_FALSE, b, x));
  PetscCall(SFPCTriFactorSweepTranspose_Host(F, PETSC_TRUE, PETSC_TRUE, x, x));
  PetscCall(PetscLogFlops(2.0 * F->nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How the engine builds a device factor unless told otherwise (here, not in the CUDA sources: the fronts set it up in every build). */
PetscErrorCode SFPCTriOptionsDefault(SFPCTriOptions *o)
{
  PetscFunctionBegin;
  o->warps_per_sm = PETSC_DECIDE;
  o->layout       = SFPC_LAYOUT_AUTO;
  o->levels       = SFPC_LEVELS_AUTO;
  o->lower = o->upper = PETSC_TRUE;
  o->lower_unit       = PETSC_TRUE;
  o->upper_unit       = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
