/*
   DILU by point-blocks on the host (dilu_blocks.h): the check of the pattern and the points' coloring (also used by the
   GPU path, once per pattern), the factor's values in color order, and the sweeps of that LU factor.
*/
#include "dilu_blocks.h"
#include <string.h>

/*
   The point-block size DILU asks for on A: the matrix's block size with blocks true (an option that excludes them is an
   error) or auto (where the options allow them: 2 to 8 rows, no global DILU, no Eisenstat form), else 1. The grid and
   the pattern are checked by SFDILUBlocksDecide(), once the DMDA's grid is known. *rowswhy: why auto declined (or NULL).
*/
PetscErrorCode SFDILUBlockSize(PC pc, Mat A, PetscInt *bs, const char **rowswhy)
{
  SFDILU     *s = (SFDILU *)pc->data;
  PetscInt    n;
  const char *why = NULL;

  PetscFunctionBegin;
  *bs      = 1;
  *rowswhy = NULL;
  if (s->blocks == PETSC_BOOL3_FALSE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetBlockSize(pc->pmat, bs));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  if (s->blocks == PETSC_BOOL3_UNKNOWN) {
    if (*bs > SFDILU_MAX_BS) why = "the block size exceeds 8";
    else if (s->parallel) why = "-pc_sfdilu_parallel excludes them";
    else if (s->eis.use) why = "-pc_sfdilu_eisenstat excludes them";
    if (*bs > 1 && why) {
      PetscCall(PetscInfo(pc, "auto: DILU row by row, not by the matrix's point-blocks of %" PetscInt_FMT " rows (%s)\n", *bs, why));
      *rowswhy = why;
    }
    if (why) *bs = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(*bs <= SFDILU_MAX_BS, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_sfdilu_blocks: the matrix's block size %" PetscInt_FMT " exceeds the %d point-block rows PCSFDILU supports", *bs, SFDILU_MAX_BS);
  PetscCheck(n % *bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-pc_sfdilu_blocks: %" PetscInt_FMT " local rows are not a whole number of point-blocks of %" PetscInt_FMT, n, *bs);
  PetscCheck(*bs == 1 || !s->parallel, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_sfdilu_blocks is not supported with -pc_sfdilu_parallel (the global DILU is row by row)");
  PetscCheck(*bs == 1 || !s->eis.use, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_sfdilu_blocks is not supported with -pc_sfdilu_eisenstat (the form needs a diagonal E)");
  if (*bs == 1) PetscCall(PetscInfo(pc, "-pc_sfdilu_blocks: the matrix's block size is 1, so DILU runs row by row\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Whether the pattern (n, ai, aj; n a multiple of bs) is one of dense point-blocks of bs rows: each row of a point with
   the same columns, in whole aligned blocks, its own block among them. Where it is not: an error naming the entry, or
   with quiet *fit false.
*/
#define SFDILU_BLOCKS_NEED(cond, ...) \
  do { \
    if (!(cond)) { \
      PetscCheck(quiet, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, __VA_ARGS__); \
      *fit = PETSC_FALSE; \
      PetscFunctionReturn(PETSC_SUCCESS); \
    } \
  } while (0)

PetscErrorCode SFDILUBlocksFit_Host(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PetscBool quiet, PetscBool *fit)
{
  PetscFunctionBegin;
  *fit = PETSC_TRUE;
  for (PetscInt r0 = 0; r0 < n; r0 += bs) {
    const PetscInt len = ai[r0 + 1] - ai[r0];
    PetscBool      own = PETSC_FALSE;
    SFDILU_BLOCKS_NEED(len % bs == 0, "-pc_sfdilu_blocks needs dense point-blocks of %" PetscInt_FMT " rows: row %" PetscInt_FMT " has %" PetscInt_FMT " entries", bs, r0, len);
    for (PetscInt a = 0; a < bs; a++) {
      SFDILU_BLOCKS_NEED(ai[r0 + a + 1] - ai[r0 + a] == len, "-pc_sfdilu_blocks needs dense point-blocks of %" PetscInt_FMT " rows: rows %" PetscInt_FMT " and %" PetscInt_FMT " of one point have different columns", bs, r0, r0 + a);
      for (PetscInt k = 0; k < len; k++) {
        const PetscInt c = aj[ai[r0 + a] + k];
        SFDILU_BLOCKS_NEED(c == aj[ai[r0] + k] && c % bs == k % bs, "-pc_sfdilu_blocks needs dense point-blocks of %" PetscInt_FMT " rows: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") lies in a block that is not stored whole, or not in every row of its point", bs, r0 + a, c);
      }
    }
    for (PetscInt t = 0; t < len / bs; t++) own |= (PetscBool)(aj[ai[r0] + t * bs] == r0);
    SFDILU_BLOCKS_NEED(own, "-pc_sfdilu_blocks: rows %" PetscInt_FMT " to %" PetscInt_FMT " lack their diagonal block", r0, r0 + bs - 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   *bs (> 1, from SFDILUBlockSize()) or 1, once the DMDA's grid is known (s->grid). The grid coloring colors points only
   by a DMDA's grid of bs fields: asked for without one, true is an error. Auto takes rows wherever the rows are colored by
   a grid: on SNES ex19's cavity (GPU, bench/README.md, "Point-blocks by default") the points colored by the DMDA's grid
   took 684 and 1173 GMRES iterations at 128^2 and 192^2 against 697 and 1115 for the rows so colored, solves 1.04x faster
   and 1.07x slower, and the points colored by JPL 887 and 1525. Auto then checks the pattern (on the host or the GPU;
   true: where the points are colored, naming the entry that fails) and takes rows where it is not one of whole
   point-blocks. What auto takes instead of the blocks, and why, is said under -info.
*/
PetscErrorCode SFDILUBlocksDecide(PC pc, Mat A, PetscBool ondevice, PetscInt *bs)
{
  SFDILU   *s = (SFDILU *)pc->data;
  PetscInt  n;
  PetscBool fit;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCheck(s->blocks == PETSC_BOOL3_UNKNOWN || s->coloring != PCSFDILU_COLORING_GRID || (s->grid.dim > 0 && s->grid.dof == *bs), PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP, "-pc_sfdilu_blocks with -pc_sfdilu_coloring grid colors the points by a DMDA's grid of %" PetscInt_FMT " fields: attach one to the PC (KSPSetDM()/PCSetDM())", *bs);
  if (!n) { /* an empty block (a rank without rows, as on GAMG's coarse levels) has nothing to factor: the row-by-row path, whose empty case is tested on the GPU */
    *bs = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->blocks != PETSC_BOOL3_UNKNOWN) PetscFunctionReturn(PETSC_SUCCESS);
  if (s->coloring == PCSFDILU_COLORING_GRID || (s->grid.dim > 0 && SFDILUWantsGrid(s, n))) {
    PetscCall(PetscInfo(pc, "auto: DILU row by row, colored by the grid, not by point-blocks of %" PetscInt_FMT " rows\n", *bs));
    s->rowswhy = "the rows are colored by the grid";
    *bs = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  fit = (PetscBool)(n % *bs == 0);
  if (fit && ondevice) PetscCall(SFDILUBlocksFit_Device(A, *bs, &fit));
  else if (fit) {
    const PetscInt *ai, *aj;
    PetscBool       done;
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
    PetscCall(SFDILUBlocksFit_Host(n, ai, aj, *bs, PETSC_TRUE, &fit));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  }
  if (!fit) {
    PetscCall(PetscInfo(pc, "auto: DILU row by row: the pattern is not one of whole point-blocks of %" PetscInt_FMT " rows (-pc_sfdilu_blocks true says where)\n", *bs));
    s->rowswhy = "the pattern is not one of whole point-blocks";
    *bs = 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Colors the points of bs rows of the pattern (n, ai, aj) by type (greedy or jpl), after checking that it is one of
   dense point-blocks (SFDILUBlocksFit_Host(), an error where not); a row's color is its point's, *ncolors of them.
*/
PetscErrorCode SFDILUColorBlocks_Host(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt bs, PCSFDILUColoringType type, PetscInt seed, PetscInt color[], PetscInt *ncolors)
{
  const PetscInt np = n / bs;
  PetscInt      *pi, *pj, *pc, nc;
  PetscBool      fit;

  PetscFunctionBegin;
  PetscCall(SFDILUBlocksFit_Host(n, ai, aj, bs, PETSC_FALSE, &fit));
  PetscCall(PetscMalloc3(np + 1, &pi, PetscMax(ai[n] / (bs * bs), 1), &pj, PetscMax(np, 1), &pc));
  pi[0] = 0;
  for (PetscInt pt = 0; pt < np; pt++) {
    const PetscInt len = ai[pt * bs + 1] - ai[pt * bs];
    for (PetscInt t = 0; t < len / bs; t++) pj[pi[pt] + t] = aj[ai[pt * bs] + t * bs] / bs;
    pi[pt + 1] = pi[pt] + len / bs;
  }
  PetscCall(SFDILUColorRows_Host(np, pi, pj, type, seed, pc, &nc));
  for (PetscInt r = 0; r < n; r++) color[r] = pc[r / bs];
  *ncolors = nc;
  PetscCall(PetscFree3(pi, pj, pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sum of |a| over a row's entries lo .. hi - 1 as a warp of the device sums it (lane by lane, then its butterfly). */
static PetscReal RowSum(PetscInt lo, PetscInt hi, const PetscScalar aa[])
{
  PetscReal v[SFDILU_LANES], w[SFDILU_LANES];

  for (int l = 0; l < SFDILU_LANES; l++) {
    v[l] = 0;
    for (PetscInt k = lo + l; k < hi; k += SFDILU_LANES) v[l] += PetscAbsScalar(aa[k]);
  }
  for (int d = SFDILU_LANES / 2; d > 0; d /= 2) {
    for (int l = 0; l < SFDILU_LANES; l++) w[l] = v[l] + v[l ^ d];
    memcpy(v, w, sizeof(v));
  }
  return v[0];
}

/*
   E_I^{-1} of point pt (dilu_blocks.h) as a warp of the device computes it: each lane's share, then the sums of the
   shares by the warp's butterfly (after round d, lane l holds v_l + v_{l ^ d}, d = 16, 8, 4, 2, 1), lane 0's.
*/
static int BlockInverse(int pt, int bs, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], const PetscInt tpos[], const PetscInt color[], PetscReal shift, PetscReal zeropivot, PetscScalar einv[], PetscReal *rowsum, int *nonfinite)
{
  PetscScalar C[SFDILU_LANES][SFDILU_MAX_BS][SFDILU_MAX_BS], T[SFDILU_LANES][SFDILU_MAX_BS][SFDILU_MAX_BS];
  PetscReal   sum[SFDILU_LANES][SFDILU_MAX_BS], U[SFDILU_LANES][SFDILU_MAX_BS];

  for (int l = 0; l < SFDILU_LANES; l++) SFDILUBlockLane(pt, l, bs, ai, aj, aa, tpos, color, einv, C[l], sum[l]);
  for (int d = SFDILU_LANES / 2; d > 0; d /= 2) {
    for (int l = 0; l < SFDILU_LANES; l++)
      for (int a = 0; a < bs; a++) {
        U[l][a] = sum[l][a] + sum[l ^ d][a];
        for (int c = 0; c < bs; c++) T[l][a][c] = C[l][a][c] + C[l ^ d][a][c];
      }
    memcpy(C, T, sizeof(C));
    memcpy(sum, U, sizeof(sum));
  }
  return SFDILUBlockFinish(pt, bs, ai, aj, aa, C[0], sum[0], shift, zeropivot, einv + (size_t)pt * bs * bs, rowsum, nonfinite);
}

/* E^{-1} of A + shift I point by point in color order, then the sweeps' values (dilu_blocks.h); failure and largest row sum as SFDILUSetUp_Host() gives them. */
PetscErrorCode SFDILUSetUpBlocks_Host(SFDILU *s, Mat A, PetscReal shift, PetscReal *rmax)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  const PetscInt     bs = s->bs;
  PetscInt           n;
  PetscInt64         first = PETSC_INT64_MAX, firstbad = PETSC_INT64_MAX;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_DILUSetUp, A, 0, 0, 0));
  s->failure = PC_NOERROR;
  s->failrow = -1;
  *rmax      = 0;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  if (!s->lu) PetscCall(PetscMalloc2(PetscMax(ai[n], 1), &s->lu, PetscMax(n * bs, 1), &s->eblk));
  for (PetscInt r = 0; r < n; r++) *rmax = PetscMax(*rmax, RowSum(ai[r], ai[r + 1], aa));
  /* the points of one color in turn, from their first rows; past the color of the first failure nothing is wanted */
  for (PetscInt c = 0; c < s->ncolors && first == PETSC_INT64_MAX; c++)
    for (PetscInt q = s->cstart[c]; q < s->cstart[c + 1]; q += bs) {
      const PetscInt pt = s->order[q] / bs;
      PetscReal      sum;
      int            nonfinite;
      const int      f = BlockInverse((int)pt, (int)bs, ai, aj, aa, s->tpos, s->color, shift, s->zeropivot, s->eblk, &sum, &nonfinite);
      if (f >= 0) { /* the first failing row in (color, row) order, as the device finds it */
        const PetscInt   r   = pt * bs + f;
        const PetscInt64 key = (PetscInt64)s->color[r] * n + r;
        first = PetscMin(first, key);
        if (nonfinite) firstbad = PetscMin(firstbad, key);
      }
    }
  if (first != PETSC_INT64_MAX) {
    s->failure = first == firstbad ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT;
    s->failrow = (PetscInt)(first % n);
  } else
    for (PetscInt pt = 0; pt < n / bs; pt++) SFDILUBlockRows((int)pt, (int)bs, ai, aj, aa, s->eblk, s->lu);
  PetscCall(PetscLogFlops(2.0 * bs * ai[n]));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(PetscLogEventEnd(SFPC_DILUSetUp, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   y = M^{-1} r = E^{-1} (I + U_c E^{-1})^{-1} (I + L_c E^{-1})^{-1} r (dilu_blocks.h): up the colors
   y_i = r_i - sum_{color(j) < color(i)} l_ij y_j, down y_i -= sum_{color(j) > color(i)} u_ij y_j, then E^{-1} point by
   point. Transposed, M^{-T} r = (I + L_c E^{-1})^{-T} (I + U_c E^{-1})^{-T} E^{-T} r from A's rows, each finished
   unknown scattered to the rows it feeds.
*/
PetscErrorCode SFDILUApplyBlocks_Host(SFDILU *s, PetscBool transpose, const PetscScalar r[], PetscScalar y[])
{
  const PetscInt *ai, *aj, *c = s->color, *o = s->order, bs = s->bs;
  PetscInt        n;
  PetscBool       done;
  PetscScalar     w[SFDILU_MAX_BS];

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  if (!transpose) {
    for (PetscInt q = 0; q < n; q++) {
      const PetscInt i = o[q];
      PetscScalar    t = r[i];
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
        if (c[aj[k]] < c[i]) t -= s->lu[k] * y[aj[k]];
      y[i] = t;
    }
    for (PetscInt q = n - 1; q >= 0; q--) {
      const PetscInt i = o[q];
      PetscScalar    t = y[i];
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
        if (c[aj[k]] > c[i]) t -= s->lu[k] * y[aj[k]];
      y[i] = t;
    }
    for (PetscInt pt = 0; pt < n / bs; pt++) {
      PetscCall(PetscArraycpy(w, y + pt * bs, bs));
      SFDILUBlockMult((int)bs, s->eblk + pt * bs * bs, 0, 1.0, w, y + pt * bs);
    }
  } else {
    for (PetscInt pt = 0; pt < n / bs; pt++) SFDILUBlockMult((int)bs, s->eblk + pt * bs * bs, 1, 1.0, r + pt * bs, y + pt * bs);
    for (PetscInt q = 0; q < n; q++) {
      const PetscInt i = o[q];
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
        if (c[aj[k]] > c[i]) y[aj[k]] -= s->lu[k] * y[i];
    }
    for (PetscInt q = n - 1; q >= 0; q--) {
      const PetscInt i = o[q];
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
        if (c[aj[k]] < c[i]) y[aj[k]] -= s->lu[k] * y[i];
    }
  }
  PetscCall(PetscLogFlops(2.0 * ai[n] + 2.0 * bs * n));
  PetscCall(MatRestoreRowIJ(s->A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}
