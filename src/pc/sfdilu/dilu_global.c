/*
   The global multicolor DILU across MPI ranks (-pc_sfdilu_parallel), on the host: the true DILU of
   the whole matrix rather than of each rank's diagonal block, so its iterations do not depend on
   the number of ranks.

   The coloring is JPL (sfdilu.h) on global row numbers: a round needs the colors of the ghost
   rows (one halo exchange per round), and it colors the same rows as on one rank, so the
   coloring is the same on any number of ranks. Or, asked for, the grid coloring of the PC's DMDA,
   by global coordinates: the same on any number of ranks by construction, with no rounds. E and the two sweeps run color by color. Before
   color c of a sweep only the ghosts of the color done just before it (c - 1 going up, c + 1
   going down) can have changed, so only they are exchanged, each color through its own PetscSF
   (none where no rank has a ghost of that color, and none before the first color): per sweep
   fewer than colors exchanges of about 1/colors of the halo each. The rows of a color with no
   ghost neighbour run between the start and the end of its exchange. Each row's entries are summed
   in global column order, as the sequential code does, so E and the sweeps are bitwise those of
   one rank; only the KSP's reductions round differently.

   a_ji for an entry a_ij comes from the local row i of A^T (formed once per pattern), so no
   remote rows are fetched.

   For a CUSPARSE matrix the JPL rounds run on the GPU (dilu_global_device.cu, the same rule and
   exchanges, bitwise the same colors), the pattern and the rows-by-color bookkeeping here, once
   per pattern; E and the apply run on the GPU with the same formulas and the same exchanges,
   from A's device values; SFDILUGlobalValueSources() says where in A's storage each entry's a_ij
   and a_ji lie so that the GPU needs no A^T.
*/
#include <petsc/private/hashseti.h>
#include "dilu_global.h"
#include <sfpc/private/pivot.h>

/* ghost <- the ghost entries of the local array (host or device memory) over sf; a NULL sf moves nothing. */
PetscErrorCode SFDILUGlobalExchange(PetscSF sf, MPI_Datatype unit, PetscMemType mtype, const void *local, void *ghost)
{
  PetscFunctionBegin;
  if (!sf) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSFBcastWithMemTypeBegin(sf, unit, mtype, local, mtype, ghost, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, unit, local, ghost, MPI_REPLACE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   One half of color c of a sweep (up: E and the forward sweep, down: the backward one). Before
   color c only the ghosts of the color done just before it can have changed, so only they move.
   part 0 starts that exchange and gives the rows of color c with no ghost neighbour, which can
   run while it is in flight; part 1 completes it and gives the others.
*/
PetscErrorCode SFDILUGlobalColorPart(SFDILUGlobal G, PetscInt ncolors, PetscInt c, PetscBool up, PetscInt part, PetscMemType mtype, const PetscScalar *local, PetscScalar *ghost, PetscInt *q0, PetscInt *q1)
{
  const PetscInt prev = up ? c - 1 : c + 1;
  PetscSF        sf   = prev >= 0 && prev < PetscMin(ncolors, G->nchalo) ? G->chalo[prev] : NULL;

  PetscFunctionBegin;
  if (sf && part == 0) PetscCall(PetscSFBcastWithMemTypeBegin(sf, MPIU_SCALAR, mtype, local, mtype, ghost, MPI_REPLACE));
  if (sf && part == 1) PetscCall(PetscSFBcastEnd(sf, MPIU_SCALAR, local, ghost, MPI_REPLACE));
  *q0 = part ? G->cbound[c] : G->cstart[c];
  *q1 = part ? G->cstart[c + 1] : G->cbound[c];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The local rows of the symmetrized pattern with global columns (A's row i merged with A^T's),
   the ghosts they reach, and the PetscSF that brings all of them (the coloring's rounds).
*/
static PetscErrorCode BuildPattern(SFDILUGlobal G, Mat A)
{
  PetscInt    nnz = 0, nghost = 0;
  PetscHSetI  ghosts;
  PetscLayout rmap;

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
    G->where[k]      = c >= G->rstart && c < G->rstart + G->n ? c - G->rstart : -(1 + SFDILUFindSorted(G->garray, 0, nghost, c));
  }
  PetscCall(MatGetLayouts(A, &rmap, NULL));
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &G->halo));
  PetscCall(PetscSFSetGraphLayout(G->halo, rmap, nghost, NULL, PETSC_COPY_VALUES, G->garray));
  PetscCall(PetscSFSetUp(G->halo));
  PetscCall(PetscMalloc1(PetscMax(nghost, 1), &G->ghostv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* JPL rounds across ranks (sfdilu.h's rule on global rows) on the host: color[] gets 2 round + (0 or 1); returns the rounds. */
static PetscErrorCode ColorRounds_Host(SFDILU *s, SFDILUGlobal G, MPI_Comm comm, PetscInt color[], PetscInt *rounds)
{
  PetscInt left, round = 0, *gc;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(G->nghost, 1), &gc));
  for (PetscInt i = 0; i < G->n; i++) color[i] = -1;
  PetscCallMPI(MPIU_Allreduce(&G->n, &left, 1, MPIU_INT, MPI_SUM, comm));
  for (; left > 0; round++) {
    PetscInt colored = 0, all;
    PetscCall(SFDILUGlobalExchange(G->halo, MPIU_INT, PETSC_MEMTYPE_HOST, color, gc));
    for (PetscInt i = 0; i < G->n; i++) {
      const PetscInt row = G->rstart + i;
      const unsigned hr  = SFDILUHash((unsigned)row, (unsigned)s->seed);
      int            ismax = 1, ismin = 1;
      if (color[i] >= 0) continue;
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) {
        const PetscInt w = G->where[k];
        SFDILUVisit((int)row, hr, (int)G->aj[k], (int)(w >= 0 ? color[w] : gc[-(1 + w)]), (int)round, (unsigned)s->seed, &ismax, &ismin);
      }
      if (ismax || ismin) {
        color[i] = 2 * round + (ismax ? 0 : 1);
        colored++;
      }
    }
    PetscCallMPI(MPIU_Allreduce(&colored, &all, 1, MPIU_INT, MPI_SUM, comm));
    left -= all;
  }
  PetscCall(PetscFree(gc));
  *rounds = round;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One PetscSF per color for the ghosts of that color (gc: the ghosts' colors); NULL where no rank has a ghost of it. */
static PetscErrorCode BuildColorHalos(SFDILUGlobal G, Mat A, PetscInt ncolors, const PetscInt gc[])
{
  PetscInt   *cnt, *any, *off, *ilocal, *gremote;
  PetscLayout rmap;

  PetscFunctionBegin;
  PetscCall(MatGetLayouts(A, &rmap, NULL));
  PetscCall(PetscCalloc3(ncolors, &cnt, ncolors, &any, ncolors + 1, &off));
  PetscCall(PetscMalloc2(PetscMax(G->nghost, 1), &ilocal, PetscMax(G->nghost, 1), &gremote));
  for (PetscInt g = 0; g < G->nghost; g++) cnt[gc[g]]++;
  PetscCallMPI(MPIU_Allreduce(cnt, any, ncolors, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  for (PetscInt c = 0; c < ncolors; c++) off[c + 1] = off[c] + cnt[c];
  PetscCall(PetscArrayzero(cnt, ncolors));
  for (PetscInt g = 0; g < G->nghost; g++) { /* ghosts by color, in ghost order within one */
    const PetscInt q = off[gc[g]] + cnt[gc[g]]++;
    ilocal[q] = g, gremote[q] = G->garray[g];
  }
  PetscCall(PetscCalloc1(ncolors, &G->chalo));
  G->nchalo = ncolors;
  for (PetscInt c = 0; c < ncolors; c++) {
    if (!any[c]) continue;
    PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &G->chalo[c]));
    PetscCall(PetscSFSetGraphLayout(G->chalo[c], rmap, off[c + 1] - off[c], ilocal + off[c], PETSC_COPY_VALUES, gremote + off[c]));
    PetscCall(PetscSFSetUp(G->chalo[c]));
  }
  PetscCall(PetscFree2(ilocal, gremote));
  PetscCall(PetscFree3(cnt, any, off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Without a DMDA: each rank's rows as whole z-planes of one 7-point grid in natural order (a slab partition), read
   from the rank's diagonal block (SFPCGridGuess_Host()): nx and ny must agree on every rank with rows, and the rank's
   first row must start a plane, which gives its planes' global z. Leaves s->grid.dim 0 when that is not so.
*/
static PetscErrorCode GridFromSlabs(SFDILU *s, SFDILUGlobal G, Mat A, MPI_Comm comm)
{
  Mat             Ad;
  const PetscInt *ai, *aj;
  PetscInt        n, dims[3] = {0, 0, 0}, lo[2], hi[2];
  PetscBool       done, ok;

  PetscFunctionBegin;
  PetscCall(MatGetDiagonalBlock(A, &Ad));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  if (done && G->n) PetscCall(SFPCGridGuess_Host(G->n, ai, aj, 1, 0, dims));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  ok = (PetscBool)(!G->n || (dims[0] > 0 && G->rstart % (dims[0] * dims[1]) == 0));
  for (int d = 0; d < 2; d++) lo[d] = G->n ? dims[d] : PETSC_INT_MAX, hi[d] = G->n ? dims[d] : 0;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, lo, 2, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, hi, 2, MPIU_INT, MPI_MAX, comm));
  if (!ok || lo[0] != hi[0] || lo[1] != hi[1]) PetscFunctionReturn(PETSC_SUCCESS);
  s->grid.dof = 1;
  s->grid.m   = s->gridmod;
  s->grid.dim = 3;
  s->grid.guessed = PETSC_TRUE;
  s->grid.start[0] = s->grid.start[1] = 0;
  s->grid.start[2] = G->n ? G->rstart / (dims[0] * dims[1]) : 0;
  s->grid.size[0]  = lo[0];
  s->grid.size[1]  = lo[1];
  s->grid.size[2]  = G->n ? dims[2] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The grid coloring of the global rows: s->grid is this rank's box of the PC's DMDA by global coordinates (or its
   z-planes of a slab partition, GridFromSlabs()), so every rank colors its rows as one rank would, with no rounds. Checked against every entry of the symmetrized pattern,
   ghosts included (one exchange of the colors); a coupling within one color is SFDILUGridConflictOn()'s error, the
   lowest such row's, on every rank. nc: the bound of the colors.
*/
static PetscErrorCode ColorGrid_Global(SFDILU *s, SFDILUGlobal G, Mat A, MPI_Comm comm, PetscInt color[], PetscInt *nc)
{
  PetscInt *gc, bad[3] = {PETSC_INT_MAX, PETSC_INT_MAX, PETSC_INT_MAX}, row;

  PetscFunctionBegin;
  if (!s->grid.dim) PetscCall(GridFromSlabs(s, G, A, comm));
  PetscCheck(s->grid.dim > 0, comm, PETSC_ERR_USER_INPUT, "-pc_sfdilu_coloring grid with -pc_sfdilu_parallel needs the grid's global coordinates: attach a DMDA to the PC (KSPSetDM()/PCSetDM()), or give each rank whole z-planes of a 7-point grid in natural order (none could be read from this matrix)");
  for (PetscInt i = 0; i < G->n; i++) color[i] = SFDILUGridColor(&s->grid, i);
  PetscCall(PetscMalloc1(PetscMax(G->nghost, 1), &gc));
  PetscCall(SFDILUGlobalExchange(G->halo, MPIU_INT, PETSC_MEMTYPE_HOST, color, gc));
  for (PetscInt i = 0; i < G->n && bad[0] == PETSC_INT_MAX; i++)
    for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) {
      const PetscInt w = G->where[k], cc = w >= 0 ? color[w] : gc[-(1 + w)];
      if (w != i && cc == color[i]) {
        bad[0] = G->rstart + i, bad[1] = G->aj[k], bad[2] = color[i];
        break;
      }
    }
  PetscCall(PetscFree(gc));
  PetscCallMPI(MPIU_Allreduce(&bad[0], &row, 1, MPIU_INT, MPI_MIN, comm));
  if (bad[0] != row) bad[1] = bad[2] = PETSC_INT_MAX;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad[1], 2, MPIU_INT, MPI_MIN, comm));
  if (row != PETSC_INT_MAX) PetscCall(SFDILUGridConflictOn(comm, s, row, bad[1], bad[2])); /* on every rank: the grid coloring was asked for */
  *nc = SFDILUGridColors(&s->grid);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the rounds (or the grid's colors, below nc): colors squeezed to those used anywhere, every entry's column color, the per-color halos, the local rows by (color, row). */
static PetscErrorCode FinishColoring(SFDILU *s, SFDILUGlobal G, Mat A, PetscInt color[], PetscInt nc)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)A);
  PetscInt *used, *map, *gc, *cnt;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(nc + 1, &used, nc + 1, &map));
  for (PetscInt i = 0; i < G->n; i++) used[color[i]] = 1;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, used, (PetscMPIInt)(nc + 1), MPIU_INT, MPI_MAX, comm));
  s->ncolors = 0;
  for (PetscInt c = 0; c < nc; c++) map[c] = used[c] ? s->ncolors++ : -1;
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &s->color));
  for (PetscInt i = 0; i < G->n; i++) s->color[i] = map[color[i]];
  PetscCall(PetscFree2(used, map));
  PetscCall(PetscMalloc1(PetscMax(G->nghost, 1), &gc));
  PetscCall(SFDILUGlobalExchange(G->halo, MPIU_INT, PETSC_MEMTYPE_HOST, s->color, gc));
  for (PetscInt k = 0; k < G->nnz; k++) G->ccolor[k] = G->where[k] >= 0 ? s->color[G->where[k]] : gc[-(1 + G->where[k])];
  PetscCall(BuildColorHalos(G, A, s->ncolors, gc));
  PetscCall(PetscFree(gc));
  /* local rows by color; within one, the rows with no ghost neighbour first (they need no exchange) */
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &G->order));
  PetscCall(PetscCalloc1(s->ncolors + 1, &cnt));
  PetscCall(PetscMalloc2(s->ncolors + 1, &G->cstart, s->ncolors, &G->cbound));
  for (PetscInt i = 0; i < G->n; i++) cnt[s->color[i] + 1]++;
  G->cstart[0] = 0;
  for (PetscInt c = 0; c < s->ncolors; c++) G->cstart[c + 1] = G->cstart[c] + cnt[c + 1];
  PetscCall(PetscArrayzero(cnt, s->ncolors + 1));
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt i = 0; i < G->n; i++) {
      PetscBool ghosted = PETSC_FALSE;
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) ghosted = (PetscBool)(ghosted || G->where[k] < 0);
      if (ghosted == (PetscBool)pass) G->order[G->cstart[s->color[i]] + cnt[s->color[i]]++] = i;
    }
    if (!pass)
      for (PetscInt c = 0; c < s->ncolors; c++) G->cbound[c] = G->cstart[c] + cnt[c];
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFDILUColor_Global(SFDILU *s, Mat A)
{
  SFDILUGlobal G;
  PetscInt    *color, rounds, nc;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUColor, A, 0, 0, 0));
  PetscCall(SFDILUReset_Global(s));
  PetscCall(PetscNew(&s->glob));
  G = s->glob;
  PetscCall(BuildPattern(G, A));
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &color));
  if (s->coloring == PCSFDILU_COLORING_GRID) PetscCall(ColorGrid_Global(s, G, A, PetscObjectComm((PetscObject)A), color, &nc));
  else {
    if (s->ondevice) PetscCall(SFDILUGlobalColorRounds_Device(s, G, PetscObjectComm((PetscObject)A), color, &rounds));
    else PetscCall(ColorRounds_Host(s, G, PetscObjectComm((PetscObject)A), color, &rounds));
    nc = 2 * rounds;
  }
  PetscCall(FinishColoring(s, G, A, color, nc));
  PetscCall(PetscFree(color));
  s->n       = G->n;
  s->colored = s->coloring == PCSFDILU_COLORING_GRID ? PCSFDILU_COLORING_GRID : PCSFDILU_COLORING_JPL;
  PetscCall(PetscMalloc1(PetscMax(G->n, 1), &s->einv));
  if (s->ondevice) PetscCall(SFDILUGlobalUpload_Device(s, A));
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

/*
   Where each local entry's values lie in A's own storage, whose value arrays are in the same order
   on the host and on the device: Ad, A's diagonal block (A itself if sequential), and Ao, its
   off-diagonal block.
     srca[k]: a_ij at Ad's position srca[k] (>= 0), at Ao's position -2 - srca[k] (<= -2), or none (-1);
     srct[k]: a_ji at Ad's position srct[k] for a local column j, else -1.
   For a ghost column j, a_ji is an entry of row j's owner's Ao: tsf brings it, its roots the
   positions of this rank's Ao and its leaves the entries k. It is built by telling the owner of
   each Ao entry's column which of its entries the value belongs to (one all-to-all, per pattern).
*/
PetscErrorCode SFDILUGlobalValueSources(SFDILUGlobal G, Mat A, PetscInt srca[], PetscInt srct[], PetscSF *tsf)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  Mat             Ad = A, Ao = NULL;
  const PetscInt *colmap = NULL, *di, *dj, *oi = NULL, *oj = NULL;
  PetscInt        nd, no = 0, nao = 0, nleaves = 0, *send, *recv, *ilocal;
  PetscSFNode    *iremote;
  PetscMPIInt     size, *scount, *sdispl, *rcount, *rdispl;
  PetscLayout     rmap;
  PetscBool       ismpi, done;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &colmap));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCheck(done && nd == G->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No CSR of the diagonal block");
  if (Ao) {
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
    PetscCheck(done && no == G->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No CSR of the off-diagonal block");
    nao = oi[no];
  }
  for (PetscInt i = 0; i < G->n; i++) {
    for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++) {
      const PetscInt w = G->where[k];
      srct[k]          = -1;
      if (w >= 0) {
        srca[k] = SFDILUFindSorted(dj, di[i], di[i + 1], w);
        srct[k] = SFDILUFindSorted(dj, di[w], di[w + 1], i);
      } else {
        srca[k] = -1;
        for (PetscInt m = Ao ? oi[i] : 0; Ao && m < oi[i + 1]; m++) /* Ao's columns index colmap, not necessarily in global order */
          if (colmap[oj[m]] == G->aj[k]) srca[k] = -2 - m;
      }
    }
  }
  /* every Ao entry (global row g, column c) is a_cg^T for the owner p of row c: send it (c, g, position) */
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetLayouts(A, &rmap, NULL));
  PetscCall(PetscCalloc4(size, &scount, size + 1, &sdispl, size, &rcount, size + 1, &rdispl));
  PetscCall(PetscMalloc1(3 * PetscMax(nao, 1), &send));
  for (PetscInt pass = 0; pass < 2; pass++) { /* count, then fill */
    PetscMPIInt *fill = pass ? rcount : scount; /* rcount doubles as the fill cursor before the all-to-all */
    for (PetscInt i = 0; i < no; i++) {
      for (PetscInt m = oi[i]; m < oi[i + 1]; m++) {
        PetscMPIInt p;
        PetscCall(PetscLayoutFindOwner(rmap, colmap[oj[m]], &p));
        if (pass) {
          PetscInt *t = send + 3 * (sdispl[p] + fill[p]);
          t[0] = colmap[oj[m]], t[1] = G->rstart + i, t[2] = m;
        }
        fill[p]++;
      }
    }
    if (!pass)
      for (PetscMPIInt p = 0; p < size; p++) sdispl[p + 1] = sdispl[p] + scount[p];
  }
  PetscCallMPI(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm));
  for (PetscMPIInt p = 0; p < size; p++) rdispl[p + 1] = rdispl[p] + rcount[p];
  nleaves = rdispl[size];
  for (PetscMPIInt p = 0; p <= size; p++) { /* counted in triples, moved as ints */
    if (p < size) scount[p] *= 3, rcount[p] *= 3;
    sdispl[p] *= 3, rdispl[p] *= 3;
  }
  PetscCall(PetscMalloc1(3 * PetscMax(nleaves, 1), &recv));
  PetscCallMPI(MPI_Alltoallv(send, scount, sdispl, MPIU_INT, recv, rcount, rdispl, MPIU_INT, comm));
  PetscCall(PetscMalloc1(PetscMax(nleaves, 1), &ilocal));
  PetscCall(PetscMalloc1(PetscMax(nleaves, 1), &iremote));
  for (PetscMPIInt p = 0; p < size; p++) {
    for (PetscInt l = rdispl[p] / 3; l < rdispl[p + 1] / 3; l++) {
      const PetscInt *t = recv + 3 * l, i = t[0] - G->rstart;
      ilocal[l] = i >= 0 && i < G->n ? SFDILUFindSorted(G->aj, G->ai[i], G->ai[i + 1], t[1]) : -1; /* the symmetrized pattern has it: row i of A^T */
      PetscCheck(ilocal[l] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the symmetrized pattern is missing", t[0], t[1]);
      iremote[l].rank  = p;
      iremote[l].index = t[2];
    }
  }
  PetscCall(PetscSFCreate(comm, tsf));
  PetscCall(PetscSFSetGraph(*tsf, nao, nleaves, ilocal, PETSC_OWN_POINTER, iremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*tsf));
  PetscCall(PetscFree(recv));
  PetscCall(PetscFree(send));
  PetscCall(PetscFree4(scount, sdispl, rcount, rdispl));
  if (Ao) PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The failure of E and the largest row sum, agreed on by all ranks: the first failing global row, Inf/NaN or a zero pivot (host and GPU alike). */
PetscErrorCode SFDILUGlobalAgree(SFDILU *s, MPI_Comm comm, const PetscInt fail[2], PetscReal lmax, PetscReal *rmax)
{
  PetscInt gfail;

  PetscFunctionBegin;
  s->failure = PC_NOERROR;
  s->failrow = -1;
  PetscCallMPI(MPIU_Allreduce(&fail[0], &gfail, 1, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(&lmax, rmax, 1, MPIU_REAL, MPIU_MAX, comm));
  if (gfail != PETSC_INT_MAX) {
    PetscInt other = fail[0] == gfail ? fail[1] : 0, gother;
    PetscCallMPI(MPIU_Allreduce(&other, &gother, 1, MPIU_INT, MPI_MAX, comm));
    s->failure = gother ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT;
    s->failrow = gfail;
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
  fail[0] = fail[1] = PETSC_INT_MAX; /* first failing global row; whether it is an Inf/NaN */
  for (PetscInt i = 0; i < G->n; i++) s->einv[i] = 0;
  for (PetscInt c = 0, part = 0; c < s->ncolors; part = !part, c += !part) { /* each color in its two parts */
    const PetscScalar *gh = G->ghostv;
    PetscInt           q0, q1;
    PetscCall(SFDILUGlobalColorPart(G, s->ncolors, c, PETSC_TRUE, part, PETSC_MEMTYPE_HOST, s->einv, G->ghostv, &q0, &q1));
    for (PetscInt q = q0; q < q1; q++) {
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
      if (PetscIsInfOrNanReal(rowsum) || SFPCPivotFails(e, s->zeropivot * rowsum, 0)) {
        if (row < fail[0]) {
          fail[0] = row;
          fail[1] = PetscIsInfOrNanReal(rowsum) || PetscIsInfOrNanScalar(e);
        }
      } else s->einv[i] = 1.0 / e;
    }
  }
  PetscCall(SFDILUGlobalAgree(s, comm, fail, lmax, rmax));
  PetscCall(PetscLogFlops(3.0 * G->nnz));
  PetscCall(PetscLogEventEnd(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   y = M^{-1} r on the local arrays: z = (E + L_c)^{-1} r color by color, then y = (E + U_c)^{-1} E z from the top color
   down; transposed, M^{-T} r: the same with a_ji for a_ij (the pattern is symmetrized, so row i holds every a_ji).
*/
PetscErrorCode SFDILUApply_Global(SFDILU *s, PetscBool transpose, const PetscScalar r[], PetscScalar z[], PetscScalar y[])
{
  SFDILUGlobal       G  = s->glob;
  const PetscScalar *gh = G->ghostv, *a = transpose ? G->at : G->aa;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < G->n; i++) z[i] = y[i] = 0;
  for (PetscInt c = 0, part = 0; c < s->ncolors; part = !part, c += !part) { /* each color in its two parts */
    PetscInt q0, q1;
    PetscCall(SFDILUGlobalColorPart(G, s->ncolors, c, PETSC_TRUE, part, PETSC_MEMTYPE_HOST, z, G->ghostv, &q0, &q1));
    for (PetscInt q = q0; q < q1; q++) {
      const PetscInt i = G->order[q];
      PetscScalar    t = r[i];
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++)
        if (G->ccolor[k] < c) t -= a[k] * (G->where[k] >= 0 ? z[G->where[k]] : gh[-(1 + G->where[k])]);
      z[i] = t * s->einv[i];
    }
  }
  for (PetscInt c = s->ncolors - 1, part = 0; c >= 0; part = !part, c -= !part) { /* each color in its two parts */
    PetscInt q0, q1;
    PetscCall(SFDILUGlobalColorPart(G, s->ncolors, c, PETSC_FALSE, part, PETSC_MEMTYPE_HOST, y, G->ghostv, &q0, &q1));
    for (PetscInt q = q0; q < q1; q++) {
      const PetscInt i = G->order[q];
      PetscScalar    t = 0;
      for (PetscInt k = G->ai[i]; k < G->ai[i + 1]; k++)
        if (G->ccolor[k] > c) t += a[k] * (G->where[k] >= 0 ? y[G->where[k]] : gh[-(1 + G->where[k])]);
      y[i] = z[i] - s->einv[i] * t;
    }
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
  PetscCall(PetscFree2(G->cstart, G->cbound));
  PetscCall(PetscFree(G->order));
  PetscCall(PetscFree(G->garray));
  PetscCall(MatDestroy(&G->At));
  PetscCall(PetscSFDestroy(&G->halo));
  if (G->chalo)
    for (PetscInt c = 0; c < G->nchalo; c++) PetscCall(PetscSFDestroy(&G->chalo[c]));
  PetscCall(PetscFree(G->chalo));
  PetscCall(PetscFree(G->ghostv));
  PetscCall(SFDILUGlobalReset_Device(G));
  PetscCall(PetscFree(s->glob));
  PetscCall(PetscFree(s->color));
  PetscCall(PetscFree(s->einv));
  PetscFunctionReturn(PETSC_SUCCESS);
}
