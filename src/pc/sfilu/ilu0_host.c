/*
   Host ILU(0): the reference the GPU factorization is checked against, and the path used
   for host matrices. Row-oriented (IKJ) elimination restricted to the pattern of A.
*/
#include "sfilu.h"

/*
   Factors A + shift*I into F->a (F holds A's pattern), storing 1/u_rr in the diagonal slots.
   Stops at the first row whose pivot fails the test and returns it in *badrow (-1 if none),
   with u_rr left in its slot: |u_rr| <= pivtol[r] or, when positive is set,
   Re(u_rr) <= pivtol[r]; a pivot that is NaN or Inf always fails.
*/
PetscErrorCode SFILUFactorNumeric_Host(SFPCTriFactor *F, const PetscScalar aa[], PetscReal shift, const PetscReal pivtol[], PetscBool positive, PetscInt *badrow)
{
  const PetscInt *ai = F->i, *aj = F->j, *ad = F->diag;
  PetscScalar    *a  = F->a;
  PetscInt       *pos; /* pos[c] = position of column c in the current row, or -1 */
  PetscLogDouble  flops = 0;

  PetscFunctionBegin;
  *badrow = -1;
  PetscCall(PetscMalloc1(F->n, &pos));
  for (PetscInt c = 0; c < F->n; c++) pos[c] = -1;
  for (PetscInt r = 0; r < F->n && *badrow < 0; r++) {
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      a[k]        = aa[k];
      pos[aj[k]] = k;
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
    {
      const PetscScalar u = a[ad[r]];
      if (PetscIsInfOrNanScalar(u) || (positive ? PetscRealPart(u) <= pivtol[r] : PetscAbsScalar(u) <= pivtol[r])) *badrow = r; /* the slot keeps u_rr for the report */
      else a[ad[r]] = 1.0 / u;
    }
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) pos[aj[k]] = -1;
  }
  PetscCall(PetscFree(pos));
  PetscCall(PetscLogFlops(flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}
