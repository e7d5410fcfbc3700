/*
   Multicolor DILU on the host: the reference of the GPU smoother, and the path for host
   matrices. Rows of one color never couple (a proper coloring of the symmetrized pattern), so
   each color's rows can run at once; here they simply run in (color, row) order.
*/
#include "dilu_blocks.h"
#include <sfpc/private/trifactor.h>
#include <sfpc/private/pivot.h>

/* Position of c in the sorted a[lo, hi), or -1: a column in a row of a CSR pattern, a ghost in a sorted list. */
PetscInt SFDILUFindSorted(const PetscInt a[], PetscInt lo, PetscInt hi, PetscInt c)
{
  const PetscInt end = hi;
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (a[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && a[lo] == c ? lo : -1;
}

/* The transposed pattern (ti, tj): the neighbours of r through a_jr, with which the rows of A give the symmetrized pattern. */
static PetscErrorCode TransposePattern(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt **ti, PetscInt **tj)
{
  PetscInt *fill;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, ti));
  PetscCall(PetscMalloc1(PetscMax(ai[n], 1), tj));
  PetscCall(PetscCalloc1(n + 1, &fill));
  for (PetscInt k = 0; k < ai[n]; k++) (*ti)[aj[k] + 1]++;
  for (PetscInt r = 0; r < n; r++) (*ti)[r + 1] += (*ti)[r];
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) (*tj)[(*ti)[aj[k]] + fill[aj[k]]++] = r;
  PetscCall(PetscFree(fill));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy in natural order (deterministic): each row takes the smallest color none of its already colored neighbours has. */
static PetscErrorCode ColorGreedy(PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt ti[], const PetscInt tj[], PetscInt color[], PetscInt *ncolors)
{
  PetscInt *mark, nc = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &mark));
  for (PetscInt c = 0; c <= n; c++) mark[c] = -1;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt c = 0;
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++)
      if (aj[k] < r) mark[color[aj[k]]] = r;
    for (PetscInt k = ti[r]; k < ti[r + 1]; k++)
      if (tj[k] < r) mark[color[tj[k]]] = r;
    while (mark[c] == r) c++;
    color[r] = c;
    nc       = PetscMax(nc, c + 1);
  }
  PetscCall(PetscFree(mark));
  *ncolors = nc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row r against the neighbours list[lo, hi) in round k (sfdilu.h's rule). */
static void JPLCompare(PetscInt r, unsigned hr, const PetscInt list[], PetscInt lo, PetscInt hi, const PetscInt color[], PetscInt round, unsigned seed, int *ismax, int *ismin)
{
  for (PetscInt k = lo; k < hi; k++) SFDILUVisit((int)r, hr, (int)list[k], (int)color[list[k]], (int)round, seed, ismax, ismin);
}

/* The JPL min/max coloring of sfdilu.h, round by round as the device runs it; colors are squeezed later. */
static PetscErrorCode ColorJPL(PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscInt ti[], const PetscInt tj[], PetscInt seed, PetscInt color[], PetscInt *ncolors)
{
  PetscInt left = n, round = 0;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++) color[r] = -1;
  for (; left > 0; round++) {
    for (PetscInt r = 0; r < n; r++) {
      int            ismax = 1, ismin = 1;
      const unsigned hr    = SFDILUHash((unsigned)r, (unsigned)seed);
      if (color[r] >= 0) continue;
      JPLCompare(r, hr, aj, ai[r], ai[r + 1], color, round, (unsigned)seed, &ismax, &ismin);
      JPLCompare(r, hr, tj, ti[r], ti[r + 1], color, round, (unsigned)seed, &ismax, &ismin);
      if (ismax || ismin) {
        color[r] = 2 * round + (ismax ? 0 : 1);
        left--;
      }
    }
  }
  *ncolors = 2 * round;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Renumbers the colors used among 0 .. nc - 1 as 0, 1, ... in their order (JPL may leave a round's minimum color empty, a small box some of the grid's). */
PetscErrorCode SFDILUSqueezeColors(PetscInt n, PetscInt nc, PetscInt color[], PetscInt *ncolors)
{
  PetscInt *map;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nc + 1, &map));
  for (PetscInt r = 0; r < n; r++) map[color[r]] = 1;
  *ncolors = 0;
  for (PetscInt c = 0; c < nc; c++) map[c] = map[c] ? (*ncolors)++ : -1;
  for (PetscInt r = 0; r < n; r++) color[r] = map[color[r]];
  PetscCall(PetscFree(map));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Colors the rows of the sequential pattern (n, ai, aj) by type (greedy or jpl), colors squeezed. */
PetscErrorCode SFDILUColorRows_Host(PetscInt n, const PetscInt ai[], const PetscInt aj[], PCSFDILUColoringType type, PetscInt seed, PetscInt color[], PetscInt *ncolors)
{
  PetscInt *ti, *tj, nc = 0;

  PetscFunctionBegin;
  PetscCall(TransposePattern(n, ai, aj, &ti, &tj));
  if (type == PCSFDILU_COLORING_JPL) PetscCall(ColorJPL(n, ai, aj, ti, tj, seed, color, &nc));
  else PetscCall(ColorGreedy(n, ai, aj, ti, tj, color, &nc));
  PetscCall(SFDILUSqueezeColors(n, nc, color, ncolors));
  PetscCall(PetscFree(ti));
  PetscCall(PetscFree(tj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid's colors of the n rows (s->grid, or one read from A's pattern: SFDILU_GRID_GUESS), checked against every entry, squeezed; ok: whether they color A properly. */
static PetscErrorCode ColorGrid(SFDILU *s, PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscBool *ok)
{
  PetscInt dims[3] = {0, 0, 0};

  PetscFunctionBegin;
  if (!s->grid.dim) PetscCall(SFPCGridGuess_Host(n, ai, aj, 1, SFDILU_GRID_GUESS, dims));
  PetscCall(SFDILUGridFromDims(s, dims, ok));
  if (!*ok) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt r = 0; r < n; r++) s->color[r] = SFDILUGridColor(&s->grid, r);
  for (PetscInt r = 0; r < n && *ok; r++)
    for (PetscInt k = ai[r]; k < ai[r + 1] && *ok; k++)
      if (aj[k] != r && s->color[aj[k]] == s->color[r]) {
        PetscCall(SFDILUGridConflict(s, r, aj[k], s->color[r]));
        *ok = PETSC_FALSE;
      }
  if (*ok && s->bs > 1) /* by points (a DMDA's, bs its fields): a point's color is its residue, its rows' without the field */
    for (PetscInt r = 0; r < n; r++) s->color[r] /= s->bs;
  if (*ok) PetscCall(SFDILUSqueezeColors(n, SFDILUGridColors(&s->grid) / s->bs, s->color, &s->ncolors));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Colors A's rows (s->coloring: the grid's where SFDILUTriesGrid() and one colors A properly, else greedy unless jpl was asked for), sorts them by (color, row), finds each entry's transposed position. */
PetscErrorCode SFDILUColor_Host(SFDILU *s, Mat A)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *fill;
  PetscBool       done, grid = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUColor, A, 0, 0, 0));
  PetscCall(SFDILUReset_Host(s));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
  s->n       = n;
  PetscCall(PetscMalloc5(PetscMax(n, 1), &s->color, n, &s->order, /* color non-NULL even on an empty rank: it says the rows were colored */ n + 1, &s->cstart, PetscMax(ai[n], 1), &s->tpos, n, &s->einv));
  if (SFDILUTriesGrid(s, n)) PetscCall(ColorGrid(s, n, ai, aj, &grid));
  s->colored = grid ? PCSFDILU_COLORING_GRID : (s->coloring == PCSFDILU_COLORING_JPL ? PCSFDILU_COLORING_JPL : PCSFDILU_COLORING_GREEDY);
  if (s->bs > 1 && grid) {
    PetscBool fit;
    PetscCall(SFDILUBlocksFit_Host(n, ai, aj, s->bs, PETSC_FALSE, &fit));
  } else if (s->bs > 1) PetscCall(SFDILUColorBlocks_Host(n, ai, aj, s->bs, s->colored, s->seed, s->color, &s->ncolors));
  else if (!grid) PetscCall(SFDILUColorRows_Host(n, ai, aj, s->colored, s->seed, s->color, &s->ncolors));
  PetscCall(PetscArrayzero(s->cstart, n + 1));
  for (PetscInt r = 0; r < n; r++) s->cstart[s->color[r] + 1]++;
  for (PetscInt c = 0; c < s->ncolors; c++) s->cstart[c + 1] += s->cstart[c];
  PetscCall(PetscCalloc1(n + 1, &fill));
  for (PetscInt r = 0; r < n; r++) s->order[s->cstart[s->color[r]] + fill[s->color[r]]++] = r;
  PetscCall(PetscFree(fill));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) s->tpos[k] = SFDILUFindSorted(aj, ai[aj[k]], ai[aj[k] + 1], r);
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
    if (PetscIsInfOrNanReal(rowsum) || SFPCPivotFails(e, s->zeropivot * rowsum, 0)) {
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
static void ApplyRows(const SFDILU *s, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], const PetscScalar r[], PetscScalar z[], PetscScalar y[])
{
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
}

/*
   y = M^{-T} r = (E + L_c^T)^{-1} E (E + U_c^T)^{-1} r from A's rows, by scattering each finished unknown to the rows
   it feeds (A^T's rows are A's columns): up the colors, z_i = (r_i - sum_{color(j) < color(i)} a_ji z_j) / E_i; down,
   y_i = z_i - (sum_{color(j) > color(i)} a_ji y_j) / E_i, y holding those sums until row i is reached.
*/
static void ApplyTransposeRows(const SFDILU *s, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], const PetscScalar r[], PetscScalar z[], PetscScalar y[])
{
  for (PetscInt i = 0; i < n; i++) z[i] = r[i], y[i] = 0;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt i = s->order[q];
    z[i] *= s->einv[i];
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (s->color[aj[k]] > s->color[i]) z[aj[k]] -= aa[k] * z[i];
  }
  for (PetscInt q = n - 1; q >= 0; q--) {
    const PetscInt i = s->order[q];
    y[i]             = z[i] - s->einv[i] * y[i];
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (s->color[aj[k]] < s->color[i]) y[aj[k]] += aa[k] * y[i];
  }
}

/* y = M^{-1} r, or M^{-T} r (transpose); z is work. */
PetscErrorCode SFDILUApply_Host(SFDILU *s, PetscBool transpose, const PetscScalar r[], PetscScalar z[], PetscScalar y[])
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  if (s->bs > 1) {
    PetscCall(SFDILUApplyBlocks_Host(s, transpose, r, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(s->A, &aa));
  (transpose ? ApplyTransposeRows : ApplyRows)(s, n, ai, aj, aa, r, z, y);
  PetscCall(PetscLogFlops(2.0 * ai[n] + 2.0 * n));
  PetscCall(MatSeqAIJRestoreArrayRead(s->A, &aa));
  PetscCall(MatRestoreRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Eisenstat's form (dilu_eisenstat.c): x = P^{-1} b with P = E + L_c, up the colors (lower), or x = Q^{-1} b with
   Q = E + U_c, down the colors; or (mult) y = Q b = E b + U_c b.
*/
static void EisenstatRows(const SFDILU *s, PetscBool lower, PetscBool mult, PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], const PetscScalar b[], PetscScalar x[])
{
  for (PetscInt p = 0; p < n; p++) {
    const PetscInt i = s->order[lower ? p : n - 1 - p];
    PetscScalar    t = 0;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (lower ? s->color[aj[k]] < s->color[i] : s->color[aj[k]] > s->color[i]) t += aa[k] * (mult ? b[aj[k]] : x[aj[k]]);
    x[i] = mult ? b[i] / s->einv[i] + t : (b[i] - t) * s->einv[i];
  }
}

/* x = P^{-1} b (lower), Q^{-1} b, or (mult) Q b; b and x distinct. */
PetscErrorCode SFDILUEisenstat_Host(SFDILU *s, PetscBool lower, PetscBool mult, const PetscScalar b[], PetscScalar x[])
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(s->A, &aa));
  EisenstatRows(s, lower, mult, n, ai, aj, aa, b, x);
  PetscCall(PetscLogFlops((PetscLogDouble)ai[n] + 2.0 * n));
  PetscCall(MatSeqAIJRestoreArrayRead(s->A, &aa));
  PetscCall(MatRestoreRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUReset_Host(SFDILU *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(s->color, s->order, s->cstart, s->tpos, s->einv));
  PetscCall(PetscFree2(s->lu, s->eblk));
  s->n = s->ncolors = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
