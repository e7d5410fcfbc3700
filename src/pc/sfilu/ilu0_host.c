/*
   Host ILU(0): the reference the GPU factorization is checked against, and the path used
   for host matrices. Row-oriented (IKJ) elimination restricted to the pattern of A.
*/
#include "sfilu.h"
#include <sfpc/private/pivot.h>

/*
   Factors A + shift*I into F->a (F holds A's pattern), storing 1/u_rr in the diagonal slots.
   Stops at the first row whose pivot fails, with u_rr left in its slot: |u_rr| <= zeropivot *
   sum_j |a_rj| (Re u_rr when positive is set), or u_rr not finite. Stops also at the first row
   with an Inf or NaN entry, reported in res->nonfinite.
*/
PetscErrorCode SFILUFactorNumeric_Host(SFPCTriFactor *F, const PetscScalar aa[], PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  const PetscInt *ai = F->i, *aj = F->j, *ad = F->diag;
  PetscScalar    *a  = F->a;
  PetscInt       *pos; /* pos[c] = position of column c in the current row, or -1 */
  PetscLogDouble  flops = 0;

  PetscFunctionBegin;
  res->badrow = res->nonfinite = -1;
  res->badpivot                = 0;
  PetscCall(PetscMalloc1(F->n, &pos));
  for (PetscInt c = 0; c < F->n; c++) pos[c] = -1;
  for (PetscInt r = 0; r < F->n; r++) {
    PetscReal rowsum = 0;

    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      a[k] = aa[k];
      rowsum += PetscAbsScalar(aa[k]);
      pos[aj[k]] = k;
    }
    if (PetscIsInfOrNanReal(rowsum)) {
      res->nonfinite = r;
      break;
    }
    a[ad[r]] += shift;
    for (PetscInt k = ai[r]; k < ad[r]; k++) {
      const PetscInt    c = aj[k];
      const PetscScalar l = a[k] * a[ad[c]]; /* row c is finished: its diagonal slot holds 1/u_cc */

      a[k] = l;
      for (PetscInt m = ad[c] + 1; m < ai[c + 1]; m++) {
        const PetscInt p = pos[aj[m]];
        if (p >= 0) a[p] -= l * a[m];
      }
      flops += 1 + 2.0 * (ai[c + 1] - ad[c] - 1);
    }
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) pos[aj[k]] = -1;
    {
      const PetscScalar u = a[ad[r]];
      const PetscReal   tol = zeropivot * rowsum;

      if (SFPCPivotFails(u, tol, positive)) {
        res->badrow   = r;
        res->badpivot = u;
        break;
      }
      a[ad[r]] = 1.0 / u;
    }
  }
  PetscCall(PetscFree(pos));
  PetscCall(PetscLogFlops(flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest row sum of |A|, and the smallest shift a making A + a I weakly diagonally dominant with a nonnegative diagonal. */
PetscErrorCode SFILUShiftBounds_Host(const SFPCTriFactor *F, const PetscScalar aa[], PetscReal *rmax, PetscReal *top)
{
  PetscFunctionBegin;
  *rmax = *top = 0;
  for (PetscInt r = 0; r < F->n; r++) {
    PetscReal sum = 0;
    for (PetscInt k = F->i[r]; k < F->i[r + 1]; k++) sum += PetscAbsScalar(aa[k]);
    *rmax = PetscMax(*rmax, sum);
    *top  = PetscMax(*top, sum - PetscAbsScalar(aa[F->diag[r]]) - PetscRealPart(aa[F->diag[r]]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
