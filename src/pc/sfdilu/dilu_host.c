/*
   Multicolor DILU on the host: the reference of the GPU smoother, and the path for host
   matrices. Rows of one color never couple (a proper coloring of the symmetrized pattern), so
   each color's rows can run at once; here they simply run in (color, row) order.
*/
#include "sfdilu.h"

/* Position of column c in row r (columns sorted), or -1. */
static PetscInt FindSorted(const PetscInt ai[], const PetscInt aj[], PetscInt r, PetscInt c)
{
  PetscInt lo = ai[r], hi = ai[r + 1];
  while (lo < hi) {
    const PetscInt mid = (lo + hi) / 2;
    if (aj[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < ai[r + 1] && aj[lo] == c ? lo : -1;
}

/*
   Greedy distance-1 coloring of the symmetrized pattern, rows in natural order (deterministic):
   each row takes the smallest color none of its already colored neighbours has.
*/
PetscErrorCode SFDILUColor_Host(SFDILU *s, Mat A)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *ti, *tj, *fill, *mark, nc = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUColor, A, 0, 0, 0));
  PetscCall(SFDILUReset_Host(s));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
  s->n = n;
  /* the transposed pattern: neighbours through a_ji */
  PetscCall(PetscCalloc3(n + 1, &ti, PetscMax(ai[n], 1), &tj, n + 1, &fill));
  for (PetscInt k = 0; k < ai[n]; k++) ti[aj[k] + 1]++;
  for (PetscInt r = 0; r < n; r++) ti[r + 1] += ti[r];
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) tj[ti[aj[k]] + fill[aj[k]]++] = r;
  PetscCall(PetscMalloc5(n, &s->color, n, &s->order, n + 1, &s->cstart, PetscMax(ai[n], 1), &s->tpos, n, &s->einv));
  PetscCall(PetscMalloc1(n + 1, &mark));
  for (PetscInt c = 0; c <= n; c++) mark[c] = -1;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt c = 0;
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++)
      if (aj[k] < r) mark[s->color[aj[k]]] = r;
    for (PetscInt k = ti[r]; k < ti[r + 1]; k++)
      if (tj[k] < r) mark[s->color[tj[k]]] = r;
    while (mark[c] == r) c++;
    s->color[r] = c;
    nc          = PetscMax(nc, c + 1);
  }
  /* rows by color */
  s->ncolors = nc;
  PetscCall(PetscArrayzero(s->cstart, n + 1));
  for (PetscInt r = 0; r < n; r++) s->cstart[s->color[r] + 1]++;
  for (PetscInt c = 0; c < nc; c++) s->cstart[c + 1] += s->cstart[c];
  PetscCall(PetscArrayzero(fill, n + 1));
  for (PetscInt r = 0; r < n; r++) s->order[s->cstart[s->color[r]] + fill[s->color[r]]++] = r;
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) s->tpos[k] = FindSorted(ai, aj, aj[k], r);
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree3(ti, tj, fill));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(PetscLogEventEnd(SFPC_DILUColor, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   E_i = a_ii + shift - sum over neighbours j of lower color of a_ij E_j^{-1} a_ji, in color order. A
   zero or tiny E_i (relative to the row sum of |A|) or an Inf/NaN is a failure the PETSc way. Also
   returns the largest row sum of |A|, the scale of a shift.
*/
PetscErrorCode SFDILUSetUp_Host(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUSetUp, A, 0, 0, 0));
  s->failure = PC_NOERROR;
  s->failrow = -1;
  *rmax      = 0;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt r = s->order[q];
    PetscScalar    e = shift;
    PetscReal      rowsum = 0;
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) rowsum += PetscAbsScalar(aa[k]);
    *rmax = PetscMax(*rmax, rowsum);
    if (s->failure != PC_NOERROR) continue; /* past a failure only the row sums are still wanted */
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      const PetscInt c = aj[k];
      if (c == r) e += aa[k];
      else if (s->color[c] < s->color[r] && s->tpos[k] >= 0) e -= aa[k] * s->einv[c] * aa[s->tpos[k]];
    }
    if (PetscIsInfOrNanReal(rowsum) || PetscIsInfOrNanScalar(e) || PetscAbsScalar(e) <= s->zeropivot * rowsum) {
      s->failure = PetscIsInfOrNanReal(rowsum) || PetscIsInfOrNanScalar(e) ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT;
      s->failrow = r;
    } else s->einv[r] = 1.0 / e;
  }
  PetscCall(PetscLogFlops(3.0 * ai[n]));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(PetscLogEventEnd(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M^{-1} r: z = (E + L_c)^{-1} r in color order, then y = (E + U_c)^{-1} E z in reverse; z is work. */
PetscErrorCode SFDILUApply_Host(SFDILU *s, const PetscScalar r[], PetscScalar z[], PetscScalar y[])
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(s->A, &aa));
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt i = s->order[q];
    PetscScalar    t = r[i];
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (s->color[aj[k]] < s->color[i]) t -= aa[k] * z[aj[k]];
    z[i] = t * s->einv[i];
  }
  for (PetscInt q = n - 1; q >= 0; q--) {
    const PetscInt i = s->order[q];
    PetscScalar    t = 0;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (s->color[aj[k]] > s->color[i]) t += aa[k] * y[aj[k]];
    y[i] = z[i] - s->einv[i] * t;
  }
  PetscCall(PetscLogFlops(2.0 * ai[n] + 2.0 * n));
  PetscCall(MatSeqAIJRestoreArrayRead(s->A, &aa));
  PetscCall(MatRestoreRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUReset_Host(SFDILU *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(s->color, s->order, s->cstart, s->tpos, s->einv));
  s->n = s->ncolors = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
