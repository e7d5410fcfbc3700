/*
   Host reference of the sync-free engine: the in-place LU factor layout and its forward and
   backward solves. The GPU kernels are tested against these, and CI (no GPU) runs them.
*/
#include <sfpc/private/trifactor.h>
#include <sfpc/private/trifactor_device.h>

/*
   Whether a square CSR pattern can hold an LU factor in place: columns in range and strictly
   increasing in each row, and a diagonal slot in every row (ILU in place needs one for every pivot).
*/
PetscErrorCode SFPCTriFactorCheckCSR(PetscInt n, const PetscInt ai[], const PetscInt aj[])
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies the pattern of a square CSR matrix and locates the diagonals; fails (SFPCTriFactorCheckCSR()) before anything is allocated. */
PetscErrorCode SFPCTriFactorCreateFromCSR(PetscInt n, const PetscInt ai[], const PetscInt aj[], SFPCTriFactor *F)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriFactorCheckCSR(n, ai, aj));
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
  o->grid[0] = o->grid[1] = o->grid[2] = 0;
  o->grid_chunk                        = SFPC_GRID_CHUNK;
  o->grid_planes                       = 0; /* SFPCGridPlanes() decides */
  o->window_major                      = 0;
  o->solves_only                       = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid must have the factor's n rows; who names the user in the error. No rows (an MPI rank that owns none) fit any grid. */
PetscErrorCode SFPCGridCheckSize(PetscInt n, const PetscInt dims[3], const char *who)
{
  PetscFunctionBegin;
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(dims[0] >= 1 && dims[1] >= 1 && dims[2] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: the grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " needs positive sizes", who, dims[0], dims[1], dims[2]);
  PetscCheck((PetscInt64)dims[0] * dims[1] * dims[2] == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "%s: the grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " does not have the matrix's %" PetscInt_FMT " rows", who, dims[0], dims[1], dims[2], n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first entry (row, col) of F outside its row's 7-point stencil (box: 27-point box), or -1, -1 (the device twin is SFPCGridFindOutside_Device()). */
PetscErrorCode SFPCGridFindOutside_Host(const SFPCTriFactor *F, const PetscInt dims[3], PetscBool box, PetscInt *row, PetscInt *col)
{
  const PetscInt nx = dims[0], ny = dims[1];

  PetscFunctionBegin;
  *row = *col = -1;
  for (PetscInt r = 0; r < F->n; r++) {
    const PetscInt i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
    for (PetscInt q = F->i[r]; q < F->i[r + 1]; q++) {
      const PetscInt c = F->j[q], ci = c % nx, cj = (c / nx) % ny, ck = c / (nx * ny);
      const PetscInt di = PetscAbsInt(ci - i), dj = PetscAbsInt(cj - j), dk = PetscAbsInt(ck - k);
      if (box ? PetscMax(di, PetscMax(dj, dk)) > 1 : di + dj + dk > 1) {
        *row = r;
        *col = c;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A grid whose points the rows of an n-row pattern could be, or dims[0] = 0, from rows r0 .. r0+nr-1
   (row q's columns are cols[rowstart[q] - rowstart[0] .. rowstart[q+1] - rowstart[0])): the first row
   whose off-diagonal columns lie at exactly the distances of an interior point of a 7-point stencil
   in natural order, x fastest (1 < a < b, b a multiple of a and n of b: nx = a, ny = b / a,
   nz = n / b), or with SFPC_GRID_GUESS_BOX in what also of a 27-point one (1, a - 1, a, a + 1, then b - a, b and
   b + a, each also - 1 and + 1; rows on one face of the grid have them all too). With SFPC_GRID_GUESS_PLANE also a
   2-D 5-point stencil (1 < a, n a multiple of a: nx = a, ny = n / a, nz = 1), and with both also a 9-point one (1,
   a - 1, a, a + 1). With bs > 1 a point is bs consecutive rows (its fields, as a matrix of block size bs numbers
   them), the distances are between points and dims count points.
   Callers take rows in the middle: rows near the ends are often boundary rows with fewer neighbours,
   or identity rows. Only a guess: whoever uses it checks every row against the stencil.
*/
PetscErrorCode SFPCGridGuess(PetscInt n, PetscInt r0, PetscInt nr, const PetscInt rowstart[], const PetscInt cols[], PetscInt bs, int what, PetscInt dims[3])
{
  enum { MAXD = 13 };
  const PetscInt  points = bs > 0 && n % bs == 0 ? n / bs : 0;
  const PetscBool box = (PetscBool)!!(what & SFPC_GRID_GUESS_BOX), plane = (PetscBool)!!(what & SFPC_GRID_GUESS_PLANE);

  PetscFunctionBegin;
  dims[0] = dims[1] = dims[2] = 0;
  for (PetscInt q = 0; q < nr && points; q++) {
    PetscInt  dist[MAXD], nd = 0, a = 0, b = 0;
    PetscBool flat = PETSC_FALSE;
    for (PetscInt k = rowstart[q] - rowstart[0]; k < rowstart[q + 1] - rowstart[0] && nd <= MAXD; k++) {
      const PetscInt d    = PetscAbsInt(cols[k] / bs - (r0 + q) / bs);
      PetscBool      seen = (PetscBool)(d == 0);
      for (PetscInt e = 0; e < PetscMin(nd, MAXD); e++) seen = (PetscBool)(seen || dist[e] == d);
      if (!seen && nd < MAXD) dist[nd] = d;
      if (!seen) nd++;
    }
    if (nd > MAXD || nd < 2) continue;
    PetscCall(PetscSortInt(nd, dist));
    if (nd == 3) a = dist[1], b = dist[2];
    else if (nd == MAXD && box) { /* the box's distances, a = dist[2] and b = dist[8] */
      const PetscInt x = dist[2], y = dist[8], want[MAXD] = {1, x - 1, x, x + 1, y - x - 1, y - x, y - x + 1, y - 1, y, y + 1, y + x - 1, y + x, y + x + 1};
      PetscBool      fits = PETSC_TRUE;
      for (PetscInt e = 0; e < MAXD; e++) fits = (PetscBool)(fits && dist[e] == want[e]);
      if (fits) a = x, b = y;
    } else if (nd == 2 && plane) a = dist[1], b = points, flat = PETSC_TRUE;
    else if (nd == 4 && plane && box && dist[1] == dist[2] - 1 && dist[3] == dist[2] + 1) a = dist[2], b = points, flat = PETSC_TRUE;
    if (dist[0] == 1 && a > 1 && (flat || b > a) && b % a == 0 && points % b == 0) {
      dims[0] = a;
      dims[1] = b / a;
      dims[2] = points / b;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SFPCGridGuess() on a host CSR pattern (ai, aj) of n rows, from the rows SFPCGridGuessRows() picks (SFPCGridGuess_Device() for a device one). */
PetscErrorCode SFPCGridGuess_Host(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt bs, int what, PetscInt dims[3])
{
  PetscInt r0, nr;

  PetscFunctionBegin;
  dims[0] = dims[1] = dims[2] = 0;
  SFPCGridGuessRows(n, &r0, &nr);
  if (nr) PetscCall(SFPCGridGuess(n, r0, nr, ai + r0, aj + ai[r0], bs, what, dims));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row r of a factor has column c outside the stencil of the grid dims; guessed: dims were read off a few rows of the pattern. */
PetscErrorCode SFPCGridLayoutError(const PetscInt dims[3], PetscBool guessed, PetscInt r, PetscInt c)
{
  PetscCheck(!guessed, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The grid layout needs a 7-point or 27-point stencil in natural order on a 3-D grid (x fastest): none was given and this pattern is not one (a few of its rows read as a %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, but row %" PetscInt_FMT " has column %" PetscInt_FMT "); give the grid (PCSFILU: a 3-D DMDA attached to the PC, or -pc_sfilu_grid nx,ny,nz) or take another layout (-pc_sfilu_layout auto or hyb)", dims[0], dims[1], dims[2], r, c);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The grid layout needs a 7-point or 27-point stencil (or part of one) on the %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, x fastest: row %" PetscInt_FMT " has column %" PetscInt_FMT "; other layouts take any pattern (PCSFILU: -pc_sfilu_layout auto or hyb; MATHYBSF: no grid)", dims[0], dims[1], dims[2], r, c);
}

/* What the grid layout needs before the pattern is looked at: a grid, a chunk it has kernels for, a grid of the factor's n points. */
PetscErrorCode SFPCGridLayoutCheckOptions(PetscInt n, const SFPCTriOptions *o)
{
  PetscFunctionBegin;
  PetscCheck(o->grid[0] > 0 || n == 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "The grid layout needs the grid whose points the rows are: for PCSFILU a 3-D DMDA (one field, star or box stencil of width 1, not periodic) attached to the PC, or -pc_sfilu_grid nx,ny,nz; the sfilu solver type reads it from a 7-point or 27-point pattern in natural order; for MATHYBSF MatHYBSFSetGrid()");
  PetscCheck(o->grid_chunk == 2 || o->grid_chunk == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The grid layout's chunk must be 2 or 4 (more spills registers), not %" PetscInt_FMT, o->grid_chunk);
  PetscCheck(o->grid_planes == 0 || o->grid_planes == 1 || o->grid_planes == 2 || o->grid_planes == 4 || o->grid_planes == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The grid layout's planes per block must be 1, 2, 4 or 8, not %" PetscInt_FMT, o->grid_planes);
  PetscCall(SFPCGridCheckSize(n, o->grid, "The grid layout"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* On the host, where the layout changes nothing: the errors the device would raise when o asks for the grid layout. */
PetscErrorCode SFPCGridLayoutCheck_Host(const SFPCTriFactor *F, const SFPCTriOptions *o)
{
  PetscInt r, c;

  PetscFunctionBegin;
  if (o->layout != SFPC_LAYOUT_GRID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCGridLayoutCheckOptions(F->n, o));
  PetscCall(SFPCGridFindOutside_Host(F, o->grid, PETSC_TRUE, &r, &c));
  if (r >= 0) PetscCall(SFPCGridLayoutError(o->grid, o->grid_guessed, r, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
