/*
   Adaptive FSAI on the host: the reference of the GPU set-up, and the path for host matrices.

   A is SPD (only its symmetry is assumed, a_jr = a_rj, not checked). G is lower triangular and
   M^{-1} = G^T G. Row i of G is a scaled unit-diagonal row g~_i = e_i + sum_{j in P} g_j e_j with
   P a set of columns j < i (Isotton's thesis, shared/seeds/002, ch. 3, eqs. 3.7-3.16):

     values on P:  A[P,P] g_P = -A[P,i]                                          (3.7)
     psi_i      =  g~_i^T A g~_i = a_ii + A[i,P] g_P = a_ii - |y|^2,  L y = A[P,i], A[P,P] = L L^T
     scaling    :  G[i,:] = g~_i / sqrt(psi_i), so diag(G A G^T) = I              (3.8, 3.9)

   (the thesis prints D_G[i,i] = 1/psi_i; the square root is needed for 3.8, see the errata in
   shared/notes/seed-002-chronos.md). psi_i is row i's factor in the Kaporin number
   kappa = (prod_i psi_i / det A)^{1/n} (3.14), so each row can be grown on its own. The gradient
   of psi_i along a new position j < i is d psi_i / d g_j = 2 (A g~_i)_j (3.15); it vanishes on P
   (by 3.7), and (A g~_i)_j = sum_{r in P + {i}} a_rj g~_r is the scatter of the rows of A on the
   pattern (a sparse matrix times sparse vector). The search, per row, from P = {} (G~_0 = I):

     step k = 1..k_max: candidates j < i, j not in P, (A g~_i)_j != 0; add the s of largest
       |(A g~_i)_j| (ties: the smaller column) to P; solve 3.7 again;
     stop after the step when psi_k / psi_0 <= tol (3.16, psi_0 = a_ii), after k_max steps, when
     P holds max_nnz_row - 1 entries, or when no candidate is left.

   P only grows, so psi_k is the minimum of g~^T A g~ over a growing space: it never increases
   (here it is a_ii minus a growing sum of squares). P is kept in the order entries were added,
   so each step extends the Cholesky factor of A[P,P] by the new rows instead of refactoring.
   After the search, optionally, entries with |g_j| sqrt(a_jj / a_ii) < filter are dropped (a test
   invariant under symmetric diagonal scaling of A); the values are then computed again on the
   final pattern, which is also what a refactorization with the pattern kept does.

   Every row uses only its own scratch, bounded by the options: P and the dense factor
   (m_max = min(k_max s, max_nnz_row - 1) entries, m_max^2 for L) and the gradient candidates
   ((m_max + 1) times the longest row of A). Rows run in order here; on the GPU each row is a warp.
   A non-positive a_ii or pivot of A[P,P], a psi_i not positive to rounding, or an Inf/NaN is a
   failure: A is not SPD. The first failing row is reported and the rest are not computed.
*/
#include "afsai.h"

const char *const AFSAIFailures[] = {"none", "a non-positive diagonal entry", "a non-positive Cholesky pivot of A[P,P]", "a non-positive psi", "an Inf or NaN", "AFSAIFailure", "AFSAI_FAIL_", NULL};

/* The scratch of one row. */
typedef struct {
  PetscInt     mmax;    /* off-diagonal entries a row of G may hold */
  PetscInt    *P;       /* the row's pattern, in the order entries were added (the dense system's order) */
  PetscInt    *Psorted; /* the same, sorted */
  PetscScalar *L;       /* Cholesky factor of A[P,P], row-major, leading dimension mmax */
  PetscScalar *y;       /* L^{-1} A[P,i] */
  PetscScalar *g;       /* A[P,P] g = -A[P,i] */
  PetscInt    *ccol;    /* gradient contributions, (mmax + 1) * longest row of A at most, then the candidates */
  PetscInt    *cidx;    /* where each contribution was gathered */
  PetscScalar *cval;    /* the contributions */
  PetscScalar *gval;    /* the candidates' gradients */
} AFSAIRow;

/* Off-diagonal entries a row of G may get. */
PetscErrorCode AFSAIRowCapacity(const AFSAIParams *p, PetscInt64 *mmax)
{
  PetscFunctionBegin;
  *mmax = (PetscInt64)p->steps * p->stepsize;
  if (p->maxnnzrow != PETSC_DETERMINE) *mmax = PetscMin(*mmax, p->maxnnzrow - 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The row capacity of a search of n rows, refused where it cannot be served: a row's dense factor takes cap^2 scalars,
   and the rows are written to fixed slots of cap + 1 entries, then packed, indexed in PetscInt (int on the device).
*/
PetscErrorCode AFSAIRowCapacityCheck(const AFSAIParams *p, PetscInt n, PetscInt64 *cap)
{
  PetscInt64 slots;

  PetscFunctionBegin;
  PetscCall(AFSAIRowCapacity(p, cap));
  PetscCheck(*cap <= 1024, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCAFSAI: -pc_afsai_steps %" PetscInt_FMT " x -pc_afsai_step_size %" PetscInt_FMT " = %" PetscInt64_FMT " off-diagonal entries per row of G is out of range: at most 1024 are supported; lower them or set -pc_afsai_max_nnz_row", p->steps, p->stepsize, *cap);
  slots = (PetscInt64)n * (*cap + 1);
  PetscCheck(slots < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_INT_OVERFLOW, "PCAFSAI: G's %" PetscInt_FMT " rows on this rank of up to %" PetscInt64_FMT " entries each may hold %" PetscInt64_FMT " entries, more than this PETSc's 32-bit indices address: use fewer rows per rank (more ranks) or fewer entries per row (-pc_afsai_max_nnz_row, or -pc_afsai_steps x -pc_afsai_step_size)", n, *cap + 1, slots);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AFSAIRowCreate(const AFSAICSR *A, PetscInt mmax, AFSAIRow *w)
{
  const PetscInt64 cmax64 = (mmax + 1) * (PetscInt64)A->maxrow; /* a row's candidates: its pattern's rows merged */
  PetscInt         cmax;

  PetscFunctionBegin;
  PetscCheck(cmax64 < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAFSAI: %" PetscInt_FMT " entries per row of G times a longest row of A of %" PetscInt_FMT " entries exceed 32-bit indices; lower -pc_afsai_max_nnz_row", mmax + 1, A->maxrow);
  cmax = (PetscInt)cmax64;
  w->mmax = mmax;
  PetscCall(PetscMalloc5(mmax + 1, &w->P, mmax + 1, &w->Psorted, mmax * mmax + 1, &w->L, mmax + 1, &w->y, mmax + 1, &w->g));
  PetscCall(PetscMalloc4(cmax + 1, &w->ccol, cmax + 1, &w->cidx, cmax + 1, &w->cval, cmax + 1, &w->gval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AFSAIRowDestroy(AFSAIRow *w)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(w->P, w->Psorted, w->L, w->y, w->g));
  PetscCall(PetscFree4(w->ccol, w->cidx, w->cval, w->gval));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void AFSAISetFail(AFSAIFail *f, AFSAIFailure cause, PetscInt row, PetscScalar value)
{
  f->cause = cause;
  f->row   = row;
  f->value = value;
}

/* a_rc, or 0 outside A's pattern. */
static PetscErrorCode AFSAIEntry(const AFSAICSR *A, PetscInt r, PetscInt c, PetscScalar *v)
{
  PetscInt loc;

  PetscFunctionBegin;
  PetscCall(PetscFindInt(c, A->ai[r + 1] - A->ai[r], A->aj + A->ai[r], &loc));
  *v = loc >= 0 ? A->aa[A->ai[r] + loc] : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AFSAIDiagonal(const AFSAICSR *A, PetscInt i, PetscScalar *aii, AFSAIFail *fail)
{
  AFSAIFailure cause;

  PetscFunctionBegin;
  PetscCall(AFSAIEntry(A, i, i, aii));
  cause = AFSAIDiagonalCheck(*aii);
  if (cause) AFSAISetFail(fail, cause, i, *aii);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   With P[0..m0) already factored, extends L and y to P[0..m), then psi = a_ii - |y|^2 and g from
   L^T g = -y. Rows of P index rows j < i, whose diagonals were checked before row i.

   The operation order is the GPU's (afsai_device.cu), where the lanes of a warp own the entries:
   each entry is updated in a fixed sequence, t -= l u rounded twice (AFSAISubMul). Row r of L:
   t_c = a(P_r, P_c) minus L[r,k] L[c,k] for k = 0, 1, .., c-1 (column by column, k ascending);
   y_r likewise; psi subtracts y_0^2, y_1^2, ... in order; g by columns from the last:
   t_r = -y_r minus L[k,r] g_k for k = m-1 down to r+1.
*/
static PetscErrorCode AFSAIRowSolve(const AFSAICSR *A, PetscInt i, PetscScalar aii, AFSAIRow *w, PetscInt m0, PetscInt m, PetscScalar *psi, AFSAIFail *fail)
{
  const PetscInt ld = w->mmax;
  PetscScalar   *L  = w->L, *g = w->g;
  AFSAIFailure   cause;

  PetscFunctionBegin;
  for (PetscInt r = m0; r < m; r++) {
    PetscScalar *Lr = L + r * ld, d = 0, app = 0, b;
    for (PetscInt c = 0; c <= r; c++) {
      PetscScalar t;
      PetscCall(AFSAIEntry(A, w->P[r], w->P[c], &t));
      if (c == r) app = t;
      for (PetscInt k = 0; k < c; k++) t = AFSAISubMul(t, Lr[k], L[c * ld + k]);
      if (c < r) Lr[c] = t / L[c * ld + c];
      else d = t;
    }
    cause = AFSAIPivotCheck(d, app, AFSAI_FAIL_CHOLESKY);
    if (cause) {
      AFSAISetFail(fail, cause, i, d);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    Lr[r] = PetscSqrtScalar(d);
    PetscCall(AFSAIEntry(A, i, w->P[r], &b));
    for (PetscInt k = 0; k < r; k++) b = AFSAISubMul(b, Lr[k], w->y[k]);
    w->y[r] = b / Lr[r];
  }
  *psi = aii;
  for (PetscInt r = 0; r < m; r++) *psi = AFSAISubMul(*psi, w->y[r], w->y[r]);
  cause = AFSAIPivotCheck(*psi, aii, AFSAI_FAIL_PSI);
  if (cause) {
    AFSAISetFail(fail, cause, i, *psi);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt r = 0; r < m; r++) g[r] = -w->y[r];
  for (PetscInt k = m - 1; k >= 0; k--) {
    g[k] /= L[k * ld + k];
    for (PetscInt r = 0; r < k; r++) g[r] = AFSAISubMul(g[r], L[k * ld + r], g[k]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The candidates (A g~_i)_j, j < i, j not in P[0..m), as (ccol, gval) sorted by column: rows P and
   i of A scaled by g~ and scattered, duplicates summed. Returns their number. Each (A g~_i)_j sums
   its contributions in the order of the rows: P_0, P_1, ..., P_{m-1}, then i (the GPU's merge
   order), so equal gradients come out equal on both and ties break alike.
*/
static PetscErrorCode AFSAIGradient(const AFSAICSR *A, PetscInt i, AFSAIRow *w, PetscInt m, PetscInt *nc, AFSAIFail *fail)
{
  PetscInt n = 0, q = 0, c = 0;

  PetscFunctionBegin;
  for (PetscInt r = 0; r <= m; r++) {
    const PetscInt    row  = r < m ? w->P[r] : i;
    const PetscScalar coef = r < m ? w->g[r] : 1.0;
    for (PetscInt k = A->ai[row]; k < A->ai[row + 1] && A->aj[k] < i; k++) {
      w->ccol[n]   = A->aj[k];
      w->cidx[n]   = n;
      w->cval[n++] = coef * A->aa[k];
    }
  }
  PetscCall(PetscSortIntWithArray(n, w->ccol, w->cidx));
  for (PetscInt k = 0; k < n;) {
    const PetscInt j = w->ccol[k], k0 = k;
    PetscScalar    v = 0;
    while (k < n && w->ccol[k] == j) k++;
    PetscCall(PetscSortInt(k - k0, w->cidx + k0)); /* gathering order = row order */
    for (PetscInt t = k0; t < k; t++) v += w->cval[w->cidx[t]];
    while (q < m && w->Psorted[q] < j) q++;
    if (q < m && w->Psorted[q] == j) continue; /* in P the gradient is zero up to rounding (3.7) */
    if (PetscIsInfOrNanScalar(v)) {
      AFSAISetFail(fail, AFSAI_FAIL_NONFINITE, i, v);
      break;
    }
    w->ccol[c]   = j; /* c <= k0: ccol[k0..) is still to be read */
    w->gval[c++] = v;
  }
  *nc = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Appends to P the (at most) t candidates of largest nonzero |gradient|, ties to the smaller column. */
static PetscErrorCode AFSAISelect(AFSAIRow *w, PetscInt nc, PetscInt t, PetscInt *m)
{
  PetscFunctionBegin;
  for (PetscInt q = 0; q < t; q++) {
    PetscInt  best = -1;
    PetscReal big  = 0;
    for (PetscInt c = 0; c < nc; c++)
      if (PetscAbsScalar(w->gval[c]) > 0 && (best < 0 || AFSAIBeats(PetscAbsScalar(w->gval[c]), w->ccol[c], big, w->ccol[best]))) {
        big  = PetscAbsScalar(w->gval[c]);
        best = c;
      }
    if (best < 0) break;
    w->P[(*m)++]  = w->ccol[best];
    w->gval[best] = 0; /* taken */
  }
  PetscCall(PetscArraycpy(w->Psorted, w->P, *m));
  PetscCall(PetscSortInt(*m, w->Psorted));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The search of row i; on return P[0..m) holds its pattern and g its unit-diagonal values. */
static PetscErrorCode AFSAISearchRow(const AFSAICSR *A, const AFSAIParams *p, PetscInt i, AFSAIRow *w, PetscInt *m, PetscInt *steps, AFSAIStop *stop, AFSAIFail *fail)
{
  PetscScalar aii, psi;

  PetscFunctionBegin;
  *m     = 0;
  *steps = 0;
  *stop  = AFSAI_STOP_STEPS;
  PetscCall(AFSAIDiagonal(A, i, &aii, fail));
  for (PetscInt k = 0; k < p->steps && !fail->cause; k++) {
    const PetscInt m0 = *m;
    PetscInt       nc;

    if (*m >= w->mmax) {
      *stop = AFSAI_STOP_NNZ;
      break;
    }
    PetscCall(AFSAIGradient(A, i, w, *m, &nc, fail));
    if (fail->cause) break;
    PetscCall(AFSAISelect(w, nc, PetscMin(p->stepsize, w->mmax - *m), m));
    if (*m == m0) {
      *stop = AFSAI_STOP_CANDIDATE;
      break;
    }
    PetscCall(AFSAIRowSolve(A, i, aii, w, m0, *m, &psi, fail));
    if (fail->cause) break;
    *steps = k + 1;
    if (PetscRealPart(psi) <= p->tol * PetscRealPart(aii)) {
      *stop = AFSAI_STOP_TOL;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drops from P the entries with |g_j| sqrt(a_jj / a_ii) < filter. */
static PetscErrorCode AFSAIFilterRow(const AFSAICSR *A, PetscInt i, PetscReal filter, AFSAIRow *w, PetscInt *m)
{
  PetscScalar aii;
  PetscInt    kept = 0;

  PetscFunctionBegin;
  PetscCall(AFSAIEntry(A, i, i, &aii));
  for (PetscInt r = 0; r < *m; r++) {
    PetscScalar ajj;
    PetscCall(AFSAIEntry(A, w->P[r], w->P[r], &ajj));
    if (AFSAIKeep(w->g[r], ajj, aii, filter)) w->P[kept++] = w->P[r];
  }
  *m = kept;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AFSAIPattern_Host(const AFSAICSR *A, const AFSAIParams *p, PetscInt r0, PetscInt r1, AFSAIPattern *pat, AFSAIFail *fail)
{
  const PetscInt n = r1 - r0;
  PetscInt64     cap;
  PetscInt       mmax, *rows, *len;
  AFSAIRow       w;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(pat, sizeof(*pat)));
  AFSAISetFail(fail, AFSAI_FAIL_NONE, -1, 0);
  PetscCall(AFSAIRowCapacityCheck(p, n, &cap));
  mmax = (PetscInt)cap;
  PetscCall(AFSAIRowCreate(A, mmax, &w));
  /* rows are written to fixed slots of mmax + 1 entries, then packed */
  PetscCall(PetscMalloc2((size_t)n * (mmax + 1) + 1, &rows, n + 1, &len));
  for (PetscInt l = 0; l < n && !fail->cause; l++) {
    const PetscInt i   = r0 + l;
    PetscInt      *row = rows + (size_t)l * (mmax + 1), m, steps;
    AFSAIStop      stop;

    PetscCall(AFSAISearchRow(A, p, i, &w, &m, &steps, &stop, fail));
    if (fail->cause) break;
    if (p->filter > 0) PetscCall(AFSAIFilterRow(A, i, p->filter, &w, &m));
    PetscCall(PetscArraycpy(row, w.P, m));
    PetscCall(PetscSortInt(m, row));
    row[m] = i;
    len[l] = m + 1;
    pat->stepsum += steps;
    pat->stepsmax = PetscMax(pat->stepsmax, steps);
    pat->nstop[stop]++;
  }
  if (fail->cause) fail->row -= r0;
  else {
    PetscCall(PetscMalloc1(n + 1, &pat->gi));
    pat->gi[0] = 0;
    for (PetscInt l = 0; l < n; l++) pat->gi[l + 1] = pat->gi[l] + len[l];
    PetscCall(PetscMalloc1(pat->gi[n] + 1, &pat->gj));
    for (PetscInt l = 0; l < n; l++) PetscCall(PetscArraycpy(pat->gj + pat->gi[l], rows + (size_t)l * (mmax + 1), len[l]));
  }
  PetscCall(PetscFree2(rows, len));
  PetscCall(AFSAIRowDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of G on its pattern: row i solved from scratch on the sorted P, then scaled by 1/sqrt(psi_i). */
PetscErrorCode AFSAIValues_Host(const AFSAICSR *A, const AFSAIPattern *pat, PetscInt r0, PetscInt r1, PetscScalar ga[], AFSAIFail *fail)
{
  PetscInt mmax = 0;
  AFSAIRow w;

  PetscFunctionBegin;
  AFSAISetFail(fail, AFSAI_FAIL_NONE, -1, 0);
  for (PetscInt l = 0; l < r1 - r0; l++) mmax = PetscMax(mmax, pat->gi[l + 1] - pat->gi[l] - 1);
  PetscCall(AFSAIRowCreate(A, mmax, &w));
  for (PetscInt l = 0; l < r1 - r0 && !fail->cause; l++) {
    const PetscInt i = r0 + l, m = pat->gi[l + 1] - pat->gi[l] - 1;
    PetscScalar    aii, psi, scale;

    PetscCall(AFSAIDiagonal(A, i, &aii, fail));
    if (fail->cause) break;
    PetscCall(PetscArraycpy(w.P, pat->gj + pat->gi[l], m));
    PetscCall(AFSAIRowSolve(A, i, aii, &w, 0, m, &psi, fail));
    if (fail->cause) break;
    scale = 1.0 / PetscSqrtScalar(psi);
    for (PetscInt r = 0; r < m; r++) ga[pat->gi[l] + r] = scale * w.g[r];
    ga[pat->gi[l] + m] = scale;
  }
  if (fail->cause) fail->row -= r0;
  PetscCall(AFSAIRowDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AFSAIPatternDestroy(AFSAIPattern *pat)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(pat->gi));
  PetscCall(PetscFree(pat->gj));
  PetscCall(PetscMemzero(pat, sizeof(*pat)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
