/*
   The global multicolor DILU across MPI ranks (-pc_sfdilu_parallel), on the host: the true DILU of
   the whole matrix rather than of each rank's diagonal block, so its iterations do not depend on
   the number of ranks.

   The coloring is JPL (sfdilu.h) on global row numbers: a round needs the colors of the ghost
   rows (one halo exchange per round), and it colors the same rows as on one rank, so the
   coloring is the same on any number of ranks. E and the two sweeps run color by color; before
   each color the values of the ghost rows (of lower colors for E and the forward sweep, higher
   for the backward one) are exchanged. Each row's entries are summed in global column order,
   as the sequential code does, so E and the sweeps are bitwise those of one rank; only the
   KSP's reductions round differently.

   a_ji for an entry a_ij comes from the local row i of A^T (formed once per pattern), so no
   remote rows are fetched.
*/
#include <petsc/private/hashseti.h>
#include "sfdilu.h"

struct _n_SFDILUGlobal {
  PetscInt     rstart, n, nghost, nnz;
  PetscInt    *ai;     /* local rows in CSR with global columns */
  PetscInt    *aj;
  PetscInt    *where;  /* per entry: local index (>= 0) or -(1 + ghost index) of its column */
  PetscInt    *ccolor; /* per entry: color of its column */
  PetscScalar *aa, *at; /* per entry: a_ij, and a_ji (0 where A has no a_ji) */
  PetscInt    *order, *cstart; /* local rows by (color, row) */
  PetscInt    *garray; /* global index of each ghost */
  Mat          At;     /* A^T, for a_ji */
  Vec          gv;     /* a global vector's layout (arrays placed in it), and the ghost values of one */
  Vec          ghost;
  VecScatter   scatter;
};

/* Position of global column c in the sorted ghost list, or -1. */
static PetscInt GhostIndex(const PetscInt garray[], PetscInt nghost, PetscInt c)
{
  PetscInt lo = 0, hi = nghost;
  while (lo < hi) {
    const PetscInt mid = (lo + hi) / 2;
    if (garray[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < nghost && garray[lo] == c ? lo : -1;
}

/* ghost <- the ghost entries of the local array v (through the global vector gv). */
static PetscErrorCode ExchangeGhosts(SFDILUGlobal G, const PetscScalar v[], PetscScalar **gh)
{
  PetscFunctionBegin;
  PetscCall(VecPlaceArray(G->gv, v)); /* gv only lends its layout: the scatter reads v in place */
  PetscCall(VecScatterBegin(G->scatter, G->gv, G->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(G->scatter, G->gv, G->ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecResetArray(G->gv));
  PetscCall(VecGetArray(G->ghost, gh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreGhosts(SFDILUGlobal G, PetscScalar **gh)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArray(G->ghost, gh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The local rows of the symmetrized pattern with global columns (A's row i merged with A^T's),
   the ghosts they reach, and the scatter that brings ghost values.
*/
static PetscErrorCode BuildPattern(SFDILUGlobal G, Mat A)
{
  PetscInt   nnz = 0, nghost = 0;
  PetscHSetI ghosts;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &G->rstart, NULL));
  PetscCall(MatGetLocalSize(A, &G->n, NULL));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &G->At));
  PetscCall(PetscMalloc1(G->n + 1, &G->ai));
  PetscCall(PetscHSetICreate(&ghosts));
  G->ai[0] = 0;
  for (PetscInt pass = 0; pass < 2; pass++) { /* count, then fill */
    for (PetscInt i = 0; i < G->n; i++) {
      const PetscInt *ca, *ct;
      PetscInt        na, nt, a = 0, t = 0, m = 0, row = G->rstart + i;
      PetscCall(MatGetRow(A, row, &na, &ca, NULL));
      PetscCall(MatGetRow(G->At, row, &nt, &ct, NULL));
      while (a < na || t < nt) { /* sorted merge of the two column lists */
        const PetscInt c = t >= nt || (a < na && ca[a] <= ct[t]) ? ca[a] : ct[t];
        if (a < na && ca[a] == c) a++;
        if (t < nt && ct[t] == c) t++;
        if (pass) {
          G->aj[G->ai[i] + m] = c;
          if (c < G->rstart || c >= G->rstart + G->n) PetscCall(PetscHSetIAdd(ghosts, c));
        }
        m++;
      }
      PetscCall(MatRestoreRow(G->At, row, &nt, &ct, NULL));
      PetscCall(MatRestoreRow(A, row, &na, &ca, NULL));
      if (!pass) G->ai[i + 1] = G->ai[i] + m;
    }
    if (!pass) {
      nnz = G->ai[G->n];
      PetscCall(PetscMalloc5(PetscMax(nnz, 1), &G->aj, PetscMax(nnz, 1), &G->where, PetscMax(nnz, 1), &G->ccolor, PetscMax(nnz, 1), &G->aa, PetscMax(nnz, 1), &G->at));
    }
  }
  G->nnz = nnz;
  PetscCall(PetscHSetIGetSize(ghosts, &nghost));
  PetscCall(PetscMalloc1(PetscMax(nghost, 1), &G->garray));
  {
    PetscInt off = 0;
    PetscCall(PetscHSetIGetElems(ghosts, &off, G->garray));
  }
  PetscCall(PetscHSetIDestroy(&ghosts));
  PetscCall(PetscSortInt(nghost, G->garray));
  G->nghost = nghost;
  for (PetscInt k = 0; k < nnz; k++) {
    const PetscInt c = G->aj[k];
    G->where[k]      = c >= G->rstart && c < G->rstart + G->n ? c - G->rstart : -(1 + GhostIndex(G->garray, nghost, c));
  }
  {
    IS is;
    PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, G->n, PETSC_DECIDE, NULL, &G->gv)); /* host, even for a CUSPARSE A */
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, nghost, &G->ghost));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, G->garray, PETSC_USE_POINTER, &is));
    PetscCall(VecScatterCreate(G->gv, is, G->ghost, NULL, &G->scatter));
    PetscCall(ISDestroy(&is));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* JPL across ranks (sfdilu.h's rule on global rows), colors squeezed to those used anywhere; then the local rows by color. */
static PetscErrorCode ColorRows(SFDILU *s, SFDILUGlobal G, MPI_Comm comm)
{
  PetscScalar *cv, *gh;
  PetscInt     left, round = 0, nc, *used, *map;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &cv));
  for (PetscInt i = 0; i < G->n; i++) cv[i] = -1;
  PetscCallMPI(MPIU_Allreduce(&G->n, &left, 1, MPIU_INT, MPI_SUM, comm));
  for (; left > 0; round++) {
    PetscInt colored = 0, all;
    PetscCall(ExchangeGhosts(G, cv, &gh));
    for (PetscInt i = 0; i < G->n; i++) {
      const PetscInt row = G->rstart + i;
      const unsigned hr  = SFDILUHash((unsigned)row, (unsigned)s->seed);
      int            ismax = 1, ismin = 1;
      if (PetscRealPart(cv[i]) >= 0) continue;
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) {
        const PetscInt w = G->where[k];
        SFDILUVisit((int)row, hr, (int)G->aj[k], (int)PetscRealPart(w >= 0 ? cv[w] : gh[-(1 + w)]), (int)round, (unsigned)s->seed, &ismax, &ismin);
      }
      if (ismax || ismin) {
        cv[i] = (PetscScalar)(2 * round + (ismax ? 0 : 1));
        colored++;
      }
    }
    PetscCall(RestoreGhosts(G, &gh));
    PetscCallMPI(MPIU_Allreduce(&colored, &all, 1, MPIU_INT, MPI_SUM, comm));
    left -= all;
  }
  nc = 2 * round;
  PetscCall(PetscCalloc2(nc + 1, &used, nc + 1, &map));
  for (PetscInt i = 0; i < G->n; i++) used[(PetscInt)PetscRealPart(cv[i])] = 1;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, used, (PetscMPIInt)(nc + 1), MPIU_INT, MPI_MAX, comm));
  s->ncolors = 0;
  for (PetscInt c = 0; c < nc; c++) map[c] = used[c] ? s->ncolors++ : -1;
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &s->color));
  for (PetscInt i = 0; i < G->n; i++) {
    s->color[i] = map[(PetscInt)PetscRealPart(cv[i])];
    cv[i]       = (PetscScalar)s->color[i];
  }
  /* every entry's column color, the ghosts' from one more exchange */
  PetscCall(ExchangeGhosts(G, cv, &gh));
  for (PetscInt k = 0; k < G->nnz; k++) G->ccolor[k] = (PetscInt)PetscRealPart(G->where[k] >= 0 ? cv[G->where[k]] : gh[-(1 + G->where[k])]);
  PetscCall(RestoreGhosts(G, &gh));
  PetscCall(PetscFree2(used, map));
  PetscCall(PetscFree(cv));
  /* local rows by (color, row) */
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &G->order));
  {
    PetscInt *cnt;
    PetscCall(PetscCalloc1(s->ncolors + 1, &cnt));
    PetscCall(PetscMalloc1(s->ncolors + 1, &G->cstart));
    for (PetscInt i = 0; i < G->n; i++) cnt[s->color[i] + 1]++;
    G->cstart[0] = 0;
    for (PetscInt c = 0; c < s->ncolors; c++) G->cstart[c + 1] = G->cstart[c] + cnt[c + 1];
    PetscCall(PetscArrayzero(cnt, s->ncolors + 1));
    for (PetscInt i = 0; i < G->n; i++) G->order[G->cstart[s->color[i]] + cnt[s->color[i]]++] = i;
    PetscCall(PetscFree(cnt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUColor_Global(SFDILU *s, Mat A)
{
  SFDILUGlobal G;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUColor, A, 0, 0, 0));
  PetscCall(SFDILUReset_Global(s));
  PetscCall(PetscNew(&s->glob));
  G = s->glob;
  PetscCall(BuildPattern(G, A));
  PetscCall(ColorRows(s, G, PetscObjectComm((PetscObject)A)));
  s->n       = G->n;
  s->colored = PCSFDILU_COLORING_JPL;
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &s->einv));
  PetscCall(PetscLogEventEnd(SFPC_DILUColor, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a_ij and a_ji of every local entry (0 where the symmetrized pattern has an entry A lacks). */
static PetscErrorCode GatherValues(SFDILUGlobal G, Mat A)
{
  PetscFunctionBegin;
  for (PetscInt pass = 0; pass < 2; pass++) {
    Mat          M   = pass ? G->At : A;
    PetscScalar *dst = pass ? G->at : G->aa;
    if (pass) PetscCall(MatTranspose(A, MAT_REUSE_MATRIX, &G->At));
    for (PetscInt i = 0; i < G->n; i++) {
      const PetscInt    *c;
      const PetscScalar *v;
      PetscInt           nc, m = 0;
      PetscCall(MatGetRow(M, G->rstart + i, &nc, &c, &v));
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) {
        while (m < nc && c[m] < G->aj[k]) m++;
        dst[k] = m < nc && c[m] == G->aj[k] ? v[m] : 0.0;
      }
      PetscCall(MatRestoreRow(M, G->rstart + i, &nc, &c, &v));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E of A + shift I color by color, the formulas and failure rules of SFDILUSetUp_Host(); the failure is agreed on by all ranks. */
PetscErrorCode SFDILUSetUp_Global(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  SFDILUGlobal G    = s->glob;
  MPI_Comm     comm = PetscObjectComm((PetscObject)A);
  PetscInt     fail[2];
  PetscReal    lmax = 0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscCall(GatherValues(G, A));
  s->failure = PC_NOERROR;
  s->failrow = -1;
  fail[0] = fail[1] = PETSC_INT_MAX; /* first failing global row; whether it is an Inf/NaN */
  for (PetscInt i = 0; i < G->n; i++) s->einv[i] = 0;
  for (PetscInt c = 0; c < s->ncolors; c++) {
    PetscScalar *gh;
    PetscCall(ExchangeGhosts(G, s->einv, &gh));
    for (PetscInt q = G->cstart[c]; q < G->cstart[c + 1]; q++) {
      const PetscInt i = G->order[q], row = G->rstart + i;
      PetscScalar    e = shift;
      PetscReal      rowsum = 0;
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) rowsum += PetscAbsScalar(G->aa[k]);
      lmax = PetscMax(lmax, rowsum);
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) {
        const PetscInt w = G->where[k];
        if (G->aj[k] == row) e += G->aa[k];
        else if (G->ccolor[k] < c && G->at[k] != 0.0) e -= G->aa[k] * (w >= 0 ? s->einv[w] : gh[-(1 + w)]) * G->at[k];
      }
      if (PetscIsInfOrNanReal(rowsum) || PetscIsInfOrNanScalar(e) || PetscAbsScalar(e) <= s->zeropivot * rowsum) {
        if (row < fail[0]) {
          fail[0] = row;
          fail[1] = PetscIsInfOrNanReal(rowsum) || PetscIsInfOrNanScalar(e);
        }
      } else s->einv[i] = 1.0 / e;
    }
    PetscCall(RestoreGhosts(G, &gh));
  }
  {
    PetscInt gfail;
    PetscCallMPI(MPIU_Allreduce(&fail[0], &gfail, 1, MPIU_INT, MPI_MIN, comm));
    PetscCallMPI(MPIU_Allreduce(&lmax, rmax, 1, MPIU_REAL, MPIU_MAX, comm));
    if (gfail != PETSC_INT_MAX) {
      PetscInt other = fail[0] == gfail ? fail[1] : 0, gother;
      PetscCallMPI(MPIU_Allreduce(&other, &gother, 1, MPIU_INT, MPI_MAX, comm));
      s->failure = gother ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT;
      s->failrow = gfail;
    }
  }
  PetscCall(PetscLogFlops(3.0 * G->nnz));
  PetscCall(PetscLogEventEnd(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M^{-1} r on the local arrays: z = (E + L_c)^{-1} r color by color, then y = (E + U_c)^{-1} E z from the top color down. */
PetscErrorCode SFDILUApply_Global(SFDILU *s, const PetscScalar r[], PetscScalar z[], PetscScalar y[])
{
  SFDILUGlobal G = s->glob;
  PetscScalar *gh;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < G->n; i++) z[i] = y[i] = 0;
  for (PetscInt c = 0; c < s->ncolors; c++) {
    PetscCall(ExchangeGhosts(G, z, &gh));
    for (PetscInt q = G->cstart[c]; q < G->cstart[c + 1]; q++) {
      const PetscInt i = G->order[q];
      PetscScalar    t = r[i];
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++)
        if (G->ccolor[k] < c) t -= G->aa[k] * (G->where[k] >= 0 ? z[G->where[k]] : gh[-(1 + G->where[k])]);
      z[i] = t * s->einv[i];
    }
    PetscCall(RestoreGhosts(G, &gh));
  }
  for (PetscInt c = s->ncolors - 1; c >= 0; c--) {
    PetscCall(ExchangeGhosts(G, y, &gh));
    for (PetscInt q = G->cstart[c]; q < G->cstart[c + 1]; q++) {
      const PetscInt i = G->order[q];
      PetscScalar    t = 0;
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++)
        if (G->ccolor[k] > c) t += G->aa[k] * (G->where[k] >= 0 ? y[G->where[k]] : gh[-(1 + G->where[k])]);
      y[i] = z[i] - s->einv[i] * t;
    }
    PetscCall(RestoreGhosts(G, &gh));
  }
  PetscCall(PetscLogFlops(2.0 * G->nnz + 2.0 * G->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUReset_Global(SFDILU *s)
{
  SFDILUGlobal G = s->glob;

  PetscFunctionBegin;
  if (!G) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(G->ai));
  PetscCall(PetscFree5(G->aj, G->where, G->ccolor, G->aa, G->at));
  PetscCall(PetscFree(G->cstart));
  PetscCall(PetscFree(G->order));
  PetscCall(PetscFree(G->garray));
  PetscCall(MatDestroy(&G->At));
  PetscCall(VecDestroy(&G->gv));
  PetscCall(VecDestroy(&G->ghost));
  PetscCall(VecScatterDestroy(&G->scatter));
  PetscCall(PetscFree(s->glob));
  PetscCall(PetscFree(s->color));
  PetscCall(PetscFree(s->einv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
