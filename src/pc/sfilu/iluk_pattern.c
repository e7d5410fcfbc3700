/*
   The pattern of ILU(k) by levels of fill, on the host, once per pattern of A: an entry of A has
   level 0; eliminating row i with a pivot row p < i brings U(p)'s column j into row i at level
   lev(i, p) + lev(p, j) + 1 (the smallest over the pivots), kept when it is at most k (Saad,
   Iterative Methods for Sparse Linear Systems, 2nd ed., sec. 10.3.3; the rule of PETSc's host ILU(k)).
   The numeric factorization is then ILU(0)'s on this pattern, A's values gathered into it with zeros
   at the fill: the same operations, so the same factor, on the host and on the GPU.

   Only A's pattern is read (for an aijcusparse matrix PETSc keeps it on the host, where its own ILU(k)
   reads it too); the values never leave the device.
*/
#include "sfilu.h"

/* Grows the three per-entry outputs of *cap entries to hold need (counted in 64 bits: ILU(k) fill can pass 32-bit indices). */
static PetscErrorCode Reserve(PetscInt64 need, PetscInt *cap, PetscInt **pj, PetscInt **plev, PetscInt **fmap)
{
  PetscInt64 c = *cap;

  PetscFunctionBegin;
  if (need <= c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(need <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The ILU(k) pattern has more than %" PetscInt_FMT " entries, beyond this PETSc's 32-bit indices: use fewer levels of fill", PETSC_INT_MAX);
  while (c < need) c = PetscMin(2 * c + 16, (PetscInt64)PETSC_INT_MAX);
  *cap = (PetscInt)c;
  PetscCall(PetscRealloc(sizeof(PetscInt) * *cap, pj));
  PetscCall(PetscRealloc(sizeof(PetscInt) * *cap, plev));
  PetscCall(PetscRealloc(sizeof(PetscInt) * *cap, fmap));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The ILU(levels) pattern P of the n x n CSR pattern (ai, aj) (checked as SFPCTriFactorCheckCSR() does:
   sorted columns and a diagonal in every row), sorted by column in each row, and fmap[p], the entry of A
   at P's position p (-1 at the fill: a factorization gathers A's values with one read per entry). The caller
   frees pi, pj and fmap with PetscFree().

   Row i is a linked list of its columns in increasing order (next[], headed by next[n], ended by n). The
   list is walked from its first column; each pivot p < i met on the way merges U(p)'s columns of small
   enough level into it behind p, so fill left of the diagonal is itself eliminated when the walk gets to it.
*/
PetscErrorCode SFILUFillPattern(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt levels, PetscInt **pi_out, PetscInt **pj_out, PetscInt **fmap_out)
{
  PetscInt *pi, *pj, *plev, *pdiag, *next, *lev, *fmap, cap = (PetscInt)PetscMin(2 * (PetscInt64)ai[n] + 16, (PetscInt64)PETSC_INT_MAX), nnz = 0;

  PetscFunctionBegin;
  PetscCheck(levels >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Levels of fill must be nonnegative, not %" PetscInt_FMT, levels);
  PetscCall(SFPCTriFactorCheckCSR(n, ai, aj));
  PetscCall(PetscMalloc1(n + 1, &pi));
  PetscCall(PetscMalloc1(cap, &pj));
  PetscCall(PetscMalloc1(cap, &plev));
  PetscCall(PetscMalloc3(n, &pdiag, n + 1, &next, PetscMax(n, 1), &lev));
  PetscCall(PetscMalloc1(cap, &fmap));
  for (PetscInt c = 0; c < n; c++) lev[c] = -1;
  pi[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt prev = n, len = 0;

    for (PetscInt q = ai[i]; q < ai[i + 1]; q++) { /* A's row, level 0 */
      next[prev]   = aj[q];
      prev         = aj[q];
      lev[aj[q]]   = 0;
    }
    next[prev] = n;
    for (PetscInt p = next[n]; p < i; p = next[p]) {
      const PetscInt lp  = lev[p]; /* final: only pivots left of p could lower it, and they came first */
      PetscInt       cur = p;

      if (lp >= levels) continue; /* any fill through p would be above the limit */
      for (PetscInt q = pdiag[p] + 1; q < pi[p + 1]; q++) {
        const PetscInt j = pj[q], l = lp + plev[q] + 1;

        if (l > levels) continue;
        while (next[cur] < j) cur = next[cur];
        if (next[cur] == j) lev[j] = PetscMin(lev[j], l);
        else {
          next[j]   = next[cur];
          next[cur] = j;
          lev[j]    = l;
        }
        cur = j;
      }
    }
    for (PetscInt c = next[n]; c < n; c = next[c]) len++;
    PetscCall(Reserve((PetscInt64)nnz + len, &cap, &pj, &plev, &fmap));
    for (PetscInt c = next[n], q = ai[i]; c < n; c = next[c]) {
      if (c == i) pdiag[i] = nnz;
      fmap[nnz] = q < ai[i + 1] && aj[q] == c ? q++ : -1; /* A's columns are a sorted subset of the row's */
      pj[nnz]   = c;
      plev[nnz] = lev[c];
      lev[c]    = -1;
      nnz++;
    }
    pi[i + 1] = nnz;
  }
  PetscCall(PetscFree(plev));
  PetscCall(PetscFree3(pdiag, next, lev));
  *pi_out   = pi;
  *pj_out   = pj;
  *fmap_out = fmap;
  PetscFunctionReturn(PETSC_SUCCESS);
}
