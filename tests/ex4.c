static char help[] = "MATHYBSF triangular solves against a plain host triangular solve written here.\n"
                     "For each triangle (-triangle lower,upper) and diagonal kind (-unit 0,1) of a square matrix it solves\n"
                     "T x = b (MatSolve()) and T^T x = b (MatSolveTranspose()) with every layout x levels combination\n"
                     "(csr, hyb x asap, alap, and auto/auto) made by MatCreateHYBSF(), then again after new values of the\n"
                     "same pattern (MatConvert() MAT_REUSE_MATRIX), then once through MatConvert() MAT_INITIAL_MATRIX with\n"
                     "the -mat_hybsf_* options. Each solve must agree with the reference to -tol and repeat bit for bit.\n"
                     "The error is max_i |x_i - x_ref_i| / s_i, where s_i = (|b_i| + sum_j |t_ij x_ref_j|) / |t_ii| is the\n"
                     "size of what row i sums (s_i >= |x_ref_i|); for T^T x = b the same over the rows of T^T (t_ji for t_ij).\n"
                     "  -case random|rowlengths|chain|spread|problem  the matrix (problem: tests/problems.c, e.g. -problem file -f F)\n"
                     "  -n <rows> -seed <s>   size and seed of the generated matrices\n"
                     "  -values random|original  problem case: random diagonally dominant values on its pattern, or its own\n"
                     "  -bad rectangular|missingdiag|zerodiag|zerodiag_reuse|nonfinite|nonfinite_reuse|pattern_reuse|layout_enum|shell|shell_reuse\n"
                     "     spoil the input: must be an error (nonfinite: NaN off-diagonal entries in row n/2; nonfinite_reuse: a refill\n"
                     "     with an Inf diagonal entry, caught: the factor must solve as before)\n"
                     "     (shell: MatSolve() with a MATHYBSF made by MatSetType() and assembled, never built from a matrix;\n"
                     "     shell_reuse: MatConvert() MAT_REUSE_MATRIX of a host matrix into such a MATHYBSF, then MatSolve())\n"
                     "  -nan_outside   NaN in the entries of row n/2 the triangle does not keep (one -triangle): must solve as usual\n"
                     "  -mat_hybsf_grid nx,ny,nz   the MatConvert() solve with the grid layout (GPU; on the host the pattern is checked)\n"
                     "  -auto_grid   on the GPU, auto must resolve to the grid layout (read from the pattern); without it, to csr or hyb\n"
                     "  -auto_blocks   on the GPU, auto must sweep by the problem's point-blocks (its block size); without it, row by row\n"
                     "  -zero_value <v>   with -bad zerodiag(_reuse): the spoiled diagonal's value (default 0; 1e-310 overflows when inverted)\n"
                     "  -symmetric_flag   A is marked SPD (MatSetOption()) before MatConvert(): neither the triangle nor its conversion back may claim symmetry\n"
                     "Every triangle is also converted back to AIJ (MatConvert()), which must give A's triangle.\n"
                     "The matrix type comes from -mat_type (seqaij: host path; aijcusparse: GPU path).\n";

#include <petscmat.h>
#include <sfpc.h>
#include "problems.h"

/* A square sparsity pattern in CSR with sorted columns (the full matrix, both triangles). */
typedef struct {
  PetscInt  n, ncols; /* ncols > n only for the rectangular bad case */
  PetscInt  bs;       /* the problem matrix's block size (fields a point), 1 for generated patterns */
  PetscInt *i, *j;
} Pattern;

/* The off-diagonal lower-triangle columns of every row, built row by row. */
typedef struct {
  PetscInt  n, nnz, cap;
  PetscInt *i, *j;
} Rows;

static PetscErrorCode RowsCreate(PetscInt n, Rows *L)
{
  PetscFunctionBegin;
  L->n   = n;
  L->nnz = 0;
  L->cap = 4 * n + 64;
  PetscCall(PetscMalloc1(n + 1, &L->i));
  PetscCall(PetscMalloc1(L->cap, &L->j));
  L->i[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Appends row r (rows must come in order); cols are distinct and are sorted here. */
static PetscErrorCode RowsAdd(Rows *L, PetscInt r, PetscInt cnt, PetscInt cols[])
{
  PetscFunctionBegin;
  if (L->nnz + cnt > L->cap) {
    PetscInt *j;

    L->cap = 2 * (L->nnz + cnt);
    PetscCall(PetscMalloc1(L->cap, &j));
    PetscCall(PetscArraycpy(j, L->j, L->nnz));
    PetscCall(PetscFree(L->j));
    L->j = j;
  }
  PetscCall(PetscSortInt(cnt, cols));
  PetscCall(PetscArraycpy(L->j + L->nnz, cols, cnt));
  L->nnz += cnt;
  L->i[r + 1] = L->nnz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RowsDestroy(Rows *L)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(L->i));
  PetscCall(PetscFree(L->j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PatternDestroy(Pattern *P)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(P->i));
  PetscCall(PetscFree(P->j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Q = P with one more entry in row r: the first column of its lower triangle that P lacks (for -bad pattern_reuse). */
static PetscErrorCode PatternAddLowerEntry(const Pattern *P, PetscInt r, Pattern *Q)
{
  PetscInt c = 0, at;

  PetscFunctionBegin;
  at = P->i[r];
  while (at < P->i[r + 1] && P->j[at] == c) {
    at++;
    c++;
  }
  PetscCheck(c < r, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " has a full lower triangle", r);
  Q->n     = P->n;
  Q->ncols = P->ncols;
  Q->bs    = P->bs;
  PetscCall(PetscMalloc1(P->n + 1, &Q->i));
  PetscCall(PetscMalloc1(P->i[P->n] + 1, &Q->j));
  for (PetscInt k = 0; k <= P->n; k++) Q->i[k] = P->i[k] + (k > r);
  PetscCall(PetscArraycpy(Q->j, P->j, at));
  Q->j[at] = c;
  PetscCall(PetscArraycpy(Q->j + at + 1, P->j + at, P->i[P->n] - at));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A uniform integer in [lo, hi). */
static PetscErrorCode RandInt(PetscRandom rnd, PetscInt lo, PetscInt hi, PetscInt *v)
{
  PetscReal u;

  PetscFunctionBegin;
  PetscCall(PetscRandomGetValueReal(rnd, &u));
  *v = lo + (PetscInt)(u * (hi - lo));
  if (*v >= hi) *v = hi - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cnt distinct columns of [0, r) (cnt <= r), a fraction near the diagonal (within band) and the rest anywhere. */
static PetscErrorCode PickColumns(PetscRandom rnd, PetscInt r, PetscInt cnt, PetscInt band, PetscInt *mark, PetscInt stamp, PetscInt cols[])
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < cnt;) {
    PetscInt  c = 0;
    PetscReal u;

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    if (band > 0 && u < 0.5) PetscCall(RandInt(rnd, PetscMax(0, r - band), r, &c));
    else PetscCall(RandInt(rnd, 0, r, &c));
    if (mark[c] == stamp) continue;
    mark[c]   = stamp;
    cols[k++] = c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The lower-triangle off-diagonal pattern of each generated case (the upper triangle is its mirror image,
   so both triangles get the same structure):
     random:     row lengths mixed (none, a few, tens, 60-200), columns half near the diagonal, half anywhere
     rowlengths: rows of exactly 0, 1, 31, 32, 33 off-diagonal entries in turn, a few rows of 3000
     chain:      a bidiagonal: every row depends on the previous one, n levels
     spread:     a chain through every 8th row, carrying 40 extra entries every 16th row; the rows between
                 depend on nothing, on an early chain row, or on their own block, and nothing depends on most
                 of them: ALAP moves them far from their ASAP level, to the last level
*/
static PetscErrorCode GenerateLower(const char *which, PetscInt n, PetscInt seed, Rows *L)
{
  PetscRandom rnd;
  PetscInt   *mark, *cols;
  PetscBool   random, rowlengths, chain, spread;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(which, "random", &random));
  PetscCall(PetscStrcmp(which, "rowlengths", &rowlengths));
  PetscCall(PetscStrcmp(which, "chain", &chain));
  PetscCall(PetscStrcmp(which, "spread", &spread));
  PetscCheck(random || rowlengths || chain || spread, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -case %s", which);
  PetscCheck(!rowlengths || n >= 3100, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-case rowlengths needs -n 3100 or more (rows of 3000 entries)");
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscCalloc1(n, &mark));
  PetscCall(PetscMalloc1(n, &cols));
  for (PetscInt i = 0; i < n; i++) mark[i] = -1;
  PetscCall(RowsCreate(n, L));
  for (PetscInt r = 0; r < n; r++) {
    PetscInt cnt = 0;

    if (random) {
      PetscReal u;

      PetscCall(PetscRandomGetValueReal(rnd, &u));
      if (u < 0.1) cnt = 0;
      else if (u < 0.5) PetscCall(RandInt(rnd, 1, 5, &cnt));
      else if (u < 0.85) PetscCall(RandInt(rnd, 5, 21, &cnt));
      else if (u < 0.97) PetscCall(RandInt(rnd, 28, 41, &cnt));
      else PetscCall(RandInt(rnd, 60, 201, &cnt));
      cnt = PetscMin(cnt, r);
      PetscCall(PickColumns(rnd, r, cnt, 40, mark, r, cols));
    } else if (rowlengths) {
      static const PetscInt cycle[] = {0, 1, 31, 32, 33, 2, 0, 1, 32};

      cnt = (r == n - 1 || r == n - 5 || r == n - 50) ? 3000 : cycle[r % 9];
      cnt = PetscMin(cnt, r);
      PetscCall(PickColumns(rnd, r, cnt, 0, mark, r, cols));
    } else if (chain) {
      if (r > 0) cols[cnt++] = r - 1;
    } else {
      const PetscInt blk = r - r % 8;

      switch (r % 8) {
      case 0: /* the chain */
        if (r >= 8) {
          mark[r - 8] = r;
          cols[cnt++] = r - 8;
          if (r % 16 == 0) {
            PetscCall(PickColumns(rnd, r, PetscMin(40, r / 2), 0, mark, r, cols + 1));
            cnt += PetscMin(40, r / 2);
          }
        }
        break;
      case 1:
      case 2: /* independent */
        break;
      case 3:
      case 4: /* hangs on an early chain row */
        PetscCall(RandInt(rnd, 0, PetscMax(1, PetscMin(blk, n / 20) / 8), &cols[0]));
        cols[0] *= 8;
        cnt = cols[0] < r ? 1 : 0;
        break;
      case 5: /* right after this block's chain row, plus up to 3 earlier rows */
        mark[blk] = r;
        cols[cnt++] = blk;
        {
          PetscInt extra = 0;

          PetscCall(RandInt(rnd, 0, 4, &extra));
          extra = PetscMin(extra, blk);
          PetscCall(PickColumns(rnd, blk, extra, 0, mark, r, cols + 1));
          cnt += extra;
        }
        break;
      case 6: /* a short chain of its own: 1 -> 6 -> 7 */
      case 7:
        cols[cnt++] = r % 8 == 6 ? blk + 1 : r - 1;
        break;
      }
    }
    PetscCall(RowsAdd(L, r, cnt, cols));
  }
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree(cols));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The full square pattern: row r holds the lower columns of row r, its diagonal (unless dropped), and the
   mirror of row n-1-r's lower columns as upper columns.
*/
static PetscErrorCode PatternFromLower(const Rows *L, PetscBool (*keepdiag)(PetscInt, void *), void *ctx, Pattern *P)
{
  const PetscInt n = L->n;
  PetscInt       nz;

  PetscFunctionBegin;
  P->n     = n;
  P->ncols = n;
  P->bs    = 1;
  PetscCall(PetscMalloc1(n + 1, &P->i));
  PetscCall(PetscMalloc1(2 * L->nnz + n, &P->j));
  P->i[0] = nz = 0;
  for (PetscInt r = 0; r < n; r++) {
    const PetscInt m = n - 1 - r;

    for (PetscInt k = L->i[r]; k < L->i[r + 1]; k++) P->j[nz++] = L->j[k];
    if (keepdiag(r, ctx)) P->j[nz++] = r;
    for (PetscInt k = L->i[m + 1] - 1; k >= L->i[m]; k--) P->j[nz++] = n - 1 - L->j[k];
    P->i[r + 1] = nz;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscBool unit;    /* unit runs leave out every 4th diagonal */
  PetscInt  missing; /* a row without its diagonal (the missingdiag bad case), or -1 */
} DiagRule;

static PetscBool KeepDiag(PetscInt r, void *ctx)
{
  DiagRule *rule = (DiagRule *)ctx;

  if (r == rule->missing) return PETSC_FALSE;
  return (PetscBool)!(rule->unit && r % 4 == 1);
}

/* The pattern (and values, when original) of the matrix tests/problems.c makes. */
static PetscErrorCode PatternFromProblem(Pattern *P, PetscScalar **vals, char *desc, size_t len)
{
  Mat                A, Ah;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n, m;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, len));
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(MatGetSize(Ah, &n, &m));
  PetscCheck(n == m, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "The problem matrix is not square");
  PetscCall(MatGetRowIJ(Ah, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() failed");
  PetscCall(MatSeqAIJGetArrayRead(Ah, &aa));
  P->n     = n;
  P->ncols = n;
  PetscCall(MatGetBlockSize(A, &P->bs));
  PetscCall(PetscMalloc1(n + 1, &P->i));
  PetscCall(PetscMalloc1(ai[n], &P->j));
  PetscCall(PetscMalloc1(ai[n], vals));
  PetscCall(PetscArraycpy(P->i, ai, n + 1));
  PetscCall(PetscArraycpy(P->j, aj, ai[n]));
  PetscCall(PetscArraycpy(*vals, aa, ai[n]));
  PetscCall(MatSeqAIJRestoreArrayRead(Ah, &aa));
  PetscCall(MatRestoreRowIJ(Ah, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix of pattern P, of the type -mat_type asks for, values not yet set. */
static PetscErrorCode MatrixCreate(const Pattern *P, Mat *A)
{
  PetscInt    rstart, rend, cstart, cend, *dnnz, *onnz;
  PetscLayout rmap, cmap;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, P->n, P->ncols));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetBlockSize(*A, P->bs)); /* MATHYBSF's auto takes point-blocks from it */
  PetscCall(MatGetLayouts(*A, &rmap, &cmap));
  PetscCall(PetscLayoutSetUp(rmap));
  PetscCall(PetscLayoutSetUp(cmap));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(*A, &cstart, &cend));
  PetscCall(PetscCalloc2(rend - rstart + 1, &dnnz, rend - rstart + 1, &onnz));
  for (PetscInt r = rstart; r < rend; r++) {
    for (PetscInt k = P->i[r]; k < P->i[r + 1]; k++) {
      if (P->j[k] >= cstart && P->j[k] < cend) dnnz[r - rstart]++;
      else onnz[r - rstart]++;
    }
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnnz, 0, onnz));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Fills A (pattern P) with values from the seed, the same on every rank and for every matrix type.
   Off-diagonals are random in (-1, 1); S_r is the sum of their magnitudes in row r. Non-unit: the diagonal
   is +-(1 + S_r), so |x| <= max |b|. Unit: off-diagonals are scaled to S_r = 1/2, so |x| <= 2 max |b|, and
   the stored diagonal (to be ignored) is 0 in every third row and a random +-(5..6) elsewhere.
   With orig (problem case, -values original) the matrix keeps its own values (unit: off-diagonals scaled
   by 1/|a_rr|). zerorow: a row whose diagonal is 0 (a bad case), or -1.
*/
static PetscScalar zero_value = 0.0; /* -zero_value: what the spoiled diagonal holds (1e-310: a subnormal, whose inverse overflows) */

static PetscErrorCode MatrixFill(Mat A, const Pattern *P, PetscBool unit, PetscInt seed, const PetscScalar *orig, PetscInt zerorow)
{
  PetscRandom  rnd;
  PetscInt     rstart, rend, maxlen = 0;
  PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = 0; r < P->n; r++) maxlen = PetscMax(maxlen, P->i[r + 1] - P->i[r]);
  PetscCall(PetscMalloc1(maxlen + 1, &v));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(1000003 * seed + 17)));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt r = 0; r < P->n; r++) { /* every rank draws every row: the values do not depend on the partition */
    const PetscInt len = P->i[r + 1] - P->i[r], *c = P->j + P->i[r];
    PetscReal      S = 0, sign, u, dmag = 1;

    for (PetscInt k = 0; k < len; k++) {
      if (orig) v[k] = orig[P->i[r] + k];
      else {
        PetscCall(PetscRandomGetValueReal(rnd, &u));
        v[k] = 2 * u - 1;
      }
      if (c[k] == r) dmag = PetscAbsScalar(v[k]);
      else S += PetscAbsScalar(v[k]);
    }
    PetscCall(PetscRandomGetValueReal(rnd, &u));
    sign = u < 0.5 ? -1.0 : 1.0;
    PetscCall(PetscRandomGetValueReal(rnd, &u));
    for (PetscInt k = 0; k < len; k++) {
      if (c[k] == r) {
        if (orig) v[k] = unit ? 7.0 : v[k];
        else if (unit) v[k] = r % 3 == 0 ? 0.0 : sign * (5.0 + u);
        else v[k] = sign * (1.0 + S);
        if (r == zerorow) v[k] = zero_value;
      } else if (unit) {
        if (orig) v[k] /= dmag > 0 ? dmag : 1.0;
        else v[k] *= S > 0 ? 0.5 / S : 0.0;
      }
    }
    if (r >= rstart && r < rend) PetscCall(MatSetValues(A, 1, &r, len, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The reference: the triangle's plain row-by-row substitution over the CSR of a seqaij copy of A, and the
   same substitution over the CSR of its transpose (built here) for T^T x = b.
*/
typedef struct {
  PetscInt     n, nnzoff, nlevels, moved; /* off-diagonal entries of the triangle, levels, rows ALAP puts later than ASAP */
  PetscScalar *b, *x;                     /* right-hand side and reference solution of T x = b */
  PetscReal   *scale;                     /* (|b_i| + sum_j |t_ij x_j|) / |t_ii|: the size of what row i sums, >= |x_i| */
  PetscScalar *xt;                        /* reference solution of T^T x = b */
  PetscReal   *scalet;                    /* (|b_i| + sum_j |t_ji xt_j|) / |t_ii|: the same for row i of T^T */
} Reference;

/*
   x = T^{-T} b: T^T's CSR (row c holds column c of the triangle's off-diagonal entries), then the same
   substitution over it, last row first for a lower T (T^T is upper), first row first for an upper T.
   The diagonal is T's own (ignored when unit).
*/
/* Row r's diagonal entry (diag) or its off-diagonal entries set to v: an Inf or NaN that MATHYBSF must refuse. */
static PetscErrorCode SpoilRow(Mat A, const Pattern *P, PetscInt r, PetscBool diag, PetscScalar v)
{
  PetscFunctionBegin;
  for (PetscInt k = P->i[r]; k < P->i[r + 1]; k++)
    if ((P->j[k] == r) == diag) PetscCall(MatSetValue(A, r, P->j[k], v, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* NaN in every entry of row r the triangle does not keep: those of the other side, and the diagonal of a unit triangle. */
static PetscErrorCode SpoilOutside(Mat A, const Pattern *P, PetscInt r, PetscBool lower, PetscBool unit)
{
  PetscFunctionBegin;
  for (PetscInt k = P->i[r]; k < P->i[r + 1]; k++) {
    const PetscInt c = P->j[k];
    if ((lower ? c > r : c < r) || (c == r && unit)) PetscCall(MatSetValue(A, r, c, (PetscScalar)NAN, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A refill of T from A with an Inf on row r's diagonal must fail with PETSC_ERR_FP and leave T as it
   was: T's solve before and after the refused refill agree bit for bit. The error is caught here
   (PetscReturnErrorHandler) and its message printed.
*/
static PetscErrorCode CheckRefusedRefill(Mat A, const Pattern *P, PetscInt r, Mat T, Vec b)
{
  Vec            x0, x1;
  PetscErrorCode ierr;
  PetscBool      same;
  const char    *text, *specific;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &x0));
  PetscCall(VecDuplicate(b, &x1));
  PetscCall(MatSolve(T, b, x0));
  PetscCall(SpoilRow(A, P, r, PETSC_TRUE, (PetscScalar)INFINITY)); /* PETSC_INFINITY is finite */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatConvert(A, MATHYBSF, MAT_REUSE_MATRIX, &T);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The refill with an Inf returned %d, not PETSC_ERR_FP", (int)ierr);
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refill refused: %s: %s\n", text, specific));
  PetscCall(MatSolve(T, b, x1));
  PetscCall(VecEqual(x0, x1, &same));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the factor after the refused refill solves bit for bit as before: %s\n", same ? "yes" : "NO"));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReferenceSolveTranspose(PetscInt n, const PetscInt ai[], const PetscInt aj[], const PetscScalar aa[], PetscBool lower, PetscBool unit, Reference *ref)
{
  PetscInt    *ti, *tj, *fill;
  PetscScalar *tv, *d;

  PetscFunctionBegin;
  PetscCall(PetscCalloc3(n + 1, &ti, n, &fill, n, &d));
  for (PetscInt r = 0; r < n; r++) {
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      const PetscInt c = aj[k];

      if (c == r) d[r] = aa[k];
      else if (lower ? c < r : c > r) ti[c + 1]++;
    }
  }
  for (PetscInt r = 0; r < n; r++) ti[r + 1] += ti[r];
  PetscCall(PetscMalloc2(ti[n], &tj, ti[n], &tv));
  for (PetscInt r = 0; r < n; r++) { /* rows of T in order: each row of T^T gets its columns sorted */
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      const PetscInt c = aj[k];

      if (c != r && (lower ? c < r : c > r)) {
        tj[ti[c] + fill[c]]   = r;
        tv[ti[c] + fill[c]++] = aa[k];
      }
    }
  }
  for (PetscInt t = 0; t < n; t++) {
    const PetscInt r = lower ? n - 1 - t : t;
    PetscScalar    s = ref->b[r];
    PetscReal      sabs = PetscAbsScalar(ref->b[r]);

    for (PetscInt k = ti[r]; k < ti[r + 1]; k++) {
      s -= tv[k] * ref->xt[tj[k]];
      sabs += PetscAbsScalar(tv[k] * ref->xt[tj[k]]);
    }
    ref->xt[r]     = unit ? s : s / d[r];
    ref->scalet[r] = unit ? sabs : sabs / PetscAbsScalar(d[r]);
  }
  PetscCall(PetscFree2(tj, tv));
  PetscCall(PetscFree3(ti, fill, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReferenceSolve(Mat A, PetscBool lower, PetscBool unit, Reference *ref)
{
  Mat                Ah;
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n, *asap, *alap;
  PetscBool          done, isseq;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &isseq));
  if (isseq) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &Ah));
  else PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(MatGetRowIJ(Ah, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ() failed");
  PetscCall(MatSeqAIJGetArrayRead(Ah, &aa));
  PetscCall(PetscMalloc2(n, &asap, n, &alap));
  ref->nnzoff = 0;
  for (PetscInt t = 0; t < n; t++) {
    const PetscInt r = lower ? t : n - 1 - t;
    PetscScalar    s = ref->b[r], d = 0;
    PetscReal      sabs = PetscAbsScalar(ref->b[r]);

    asap[r] = 0;
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      const PetscInt c = aj[k];

      if (c == r) d = aa[k];
      else if (lower ? c < r : c > r) {
        s -= aa[k] * ref->x[c];
        sabs += PetscAbsScalar(aa[k] * ref->x[c]);
        asap[r] = PetscMax(asap[r], asap[c] + 1);
        ref->nnzoff++;
      }
    }
    ref->x[r]     = unit ? s : s / d; /* a missing or zero diagonal gives Inf or NaN here: MATHYBSF must refuse it first */
    ref->scale[r] = unit ? sabs : sabs / PetscAbsScalar(d);
  }
  PetscCall(ReferenceSolveTranspose(n, ai, aj, aa, lower, unit, ref));
  {
    PetscReal xmax = 0, xmed;
    PetscReal *ax;

    PetscCall(PetscMalloc1(n, &ax));
    for (PetscInt r = 0; r < n; r++) ax[r] = PetscAbsScalar(ref->x[r]);
    PetscCall(PetscSortReal(n, ax));
    xmax = n ? ax[n - 1] : 0;
    xmed = n ? ax[n / 2] : 0;
    PetscCall(PetscInfo(NULL, "reference solution: max |x_i| %g, median |x_i| %g\n", (double)xmax, (double)xmed));
    PetscCall(PetscFree(ax));
  }
  ref->nlevels = 0;
  for (PetscInt r = 0; r < n; r++) ref->nlevels = PetscMax(ref->nlevels, asap[r] + 1);
  /* ALAP: the latest level before every row that depends on this one; those with no dependents go last */
  for (PetscInt r = 0; r < n; r++) alap[r] = ref->nlevels - 1;
  for (PetscInt t = n - 1; t >= 0; t--) {
    const PetscInt r = lower ? t : n - 1 - t;

    for (PetscInt k = ai[r]; k < ai[r + 1]; k++) {
      const PetscInt c = aj[k];

      if (c != r && (lower ? c < r : c > r)) alap[c] = PetscMin(alap[c], alap[r] - 1);
    }
  }
  ref->moved = 0;
  for (PetscInt r = 0; r < n; r++) ref->moved += alap[r] > asap[r];
  PetscCall(PetscFree2(asap, alap));
  PetscCall(MatSeqAIJRestoreArrayRead(Ah, &aa));
  PetscCall(MatRestoreRowIJ(Ah, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatDestroy(&Ah));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *LayoutName(SFPCLayout l)
{
  return l == SFPC_LAYOUT_CSR ? "csr" : l == SFPC_LAYOUT_HYB ? "hyb" : l == SFPC_LAYOUT_AUTO ? "auto" : l == SFPC_LAYOUT_GRID ? "grid" : "(invalid)";
}

static const char *LevelsName(SFPCLevels l)
{
  return l == SFPC_LEVELS_ASAP ? "asap" : l == SFPC_LEVELS_ALAP ? "alap" : l == SFPC_LEVELS_AUTO ? "auto" : "(invalid)";
}

/*
   Solves T x = b (or T^T x = b with transpose) twice, into vectors that start full of garbage, and writes
   its verdict into msg: "error ok, repeatable", or "ERROR e > tol" and "NOT REPEATABLE" in their place.
   The error is componentwise, against the size of each row's terms (scale): a plain max-norm relative
   error would hardly see the rows whose x_i is far below max |x| (bcsstk16's own values give x_i from
   1e-9 to 1). With fresh (the solution of a matrix built anew from the same values), the solution must
   equal it bit for bit: ", bitwise as a new build" ends the verdict.
*/
static PetscErrorCode SolveVerdict(Mat T, PetscBool transpose, Vec b, PetscInt n, const PetscScalar xref[], const PetscReal scale[], Vec fresh, PetscReal tol, char msg[], size_t len, PetscReal *err, PetscBool *ok)
{
  Vec                x1, x2;
  const PetscScalar *y1, *y2;
  PetscBool          same, asfresh = PETSC_TRUE;
  char               head[64], tail[64] = "";

  PetscFunctionBegin;
  *err = 0;
  PetscCall(VecDuplicate(b, &x1));
  PetscCall(VecDuplicate(b, &x2));
  PetscCall(VecSet(x1, 1e300));
  PetscCall(VecSet(x2, -3.0));
  if (transpose) {
    PetscCall(MatSolveTranspose(T, b, x1));
    PetscCall(MatSolveTranspose(T, b, x2));
  } else {
    PetscCall(MatSolve(T, b, x1));
    PetscCall(MatSolve(T, b, x2));
  }
  PetscCall(VecGetArrayRead(x1, &y1));
  PetscCall(VecGetArrayRead(x2, &y2));
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal d = PetscAbsScalar(y1[i] - xref[i]), e = d == 0 ? 0 : scale[i] > 0 ? d / scale[i] : PETSC_INFINITY;

    *err = (e != e || e > *err) ? e : *err; /* a NaN sticks */
  }
  if (*err != *err) *err = PETSC_INFINITY;
  same = (PetscBool)!memcmp(y1, y2, n * sizeof(PetscScalar));
  PetscCall(VecRestoreArrayRead(x2, &y2));
  if (fresh) { /* the solution of a matrix built anew from the same values */
    PetscCall(VecGetArrayRead(fresh, &y2));
    asfresh = (PetscBool)!memcmp(y1, y2, n * sizeof(PetscScalar));
    PetscCall(VecRestoreArrayRead(fresh, &y2));
    PetscCall(PetscSNPrintf(tail, sizeof(tail), ", %s a new build", asfresh ? "bitwise as" : "NOT BITWISE AS"));
  }
  PetscCall(VecRestoreArrayRead(x1, &y1));
  if (*err <= tol) PetscCall(PetscSNPrintf(head, sizeof(head), "error ok"));
  else PetscCall(PetscSNPrintf(head, sizeof(head), "ERROR %g > %g", (double)*err, (double)tol));
  PetscCall(PetscSNPrintf(msg, len, "%s, %s%s", head, same ? "repeatable" : "NOT REPEATABLE", tail));
  *ok = (PetscBool)(*ok && *err <= tol && same && asfresh);
  PetscCall(VecDestroy(&x1));
  PetscCall(VecDestroy(&x2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Checks MatSolve() and MatSolveTranspose() of T (SolveVerdict() each) and prints one line:
   "<label>: levels L, error ok, repeatable; transpose error ok, repeatable", L being the triangle's
   dependency levels (computed here). fresh and fresht: the solutions (plain and transposed) of a matrix
   built anew from the same values, or NULL.
   What T reports must agree: its off-diagonal count, whether it is on the device (as A is), and on the
   device the levels it counted (none where it walks the grid from its creation) and the layout and levels it was
   asked for, or resolved from auto: the grid layout with autogrid (the pattern is a grid's stencil in natural
   order, which the GPU build must read), csr or hyb without; and sweeps by point-blocks of autobs rows with auto
   (1: row by row, as every other layout goes). The host path reports csr/asap and no levels whatever was asked (it solves row by row). A disagreement is
   printed on a line of its own and fails the run.
*/
/*
   MatConvert(T, MATSEQAIJ) must give A's triangle as T holds it now (built or refilled: on the GPU the copy back
   must wait for the refill's kernels, -root_device_context_stream_type nonblocking included), the diagonal to
   rounding (T stores its inverse) or 1 when unit, and must not claim symmetry: a triangle is one half of A,
   whatever A's flags say.
*/
static PetscErrorCode CheckConvertBack(Mat T, Mat A, PetscBool lower, PetscBool unit, const char *label, PetscBool *ok)
{
  Mat       C, Ah;
  PetscInt  n, bad = 0, badrow = -1;
  PetscBool set, sym;

  PetscFunctionBegin;
  PetscCall(MatConvert(T, MATSEQAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(MatGetSize(A, &n, NULL));
  for (PetscInt r = 0; r < n; r++) { /* T has A's strict triangle and a diagonal entry in every row (1 when unit, even where A has none) */
    const PetscInt    *ac, *cc;
    const PetscScalar *av, *cv;
    PetscInt           an, cn, strict = 0, wrong = 0;
    PetscScalar        d = 1.0;

    PetscCall(MatGetRow(Ah, r, &an, &ac, &av));
    PetscCall(MatGetRow(C, r, &cn, &cc, &cv));
    for (PetscInt k = 0, q = 0; k < an; k++) {
      if (ac[k] == r) {
        if (!unit) d = av[k];
        continue;
      }
      if (lower ? ac[k] > r : ac[k] < r) continue;
      strict++;
      while (q < cn && cc[q] < ac[k]) q++;
      if (q == cn || cc[q] != ac[k] || cv[q] != av[k]) wrong++; /* off the diagonal T keeps A's values as they are */
    }
    for (PetscInt q = 0; q < cn; q++)
      if (cc[q] == r && PetscAbsScalar(cv[q] - d) <= 4 * PETSC_MACHINE_EPSILON * PetscAbsScalar(d)) strict++; /* the diagonal, 1 / (1 / d) */
    if (cn != strict || strict == 0) wrong++; /* no extra entries, and the diagonal found */
    PetscCall(MatRestoreRow(C, r, &cn, &cc, &cv));
    PetscCall(MatRestoreRow(Ah, r, &an, &ac, &av));
    if (wrong && badrow < 0) badrow = r;
    bad += wrong;
  }
  PetscCall(MatIsSymmetricKnown(C, &set, &sym));
  if (bad || (set && sym)) {
    *ok = PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: MatConvert() back to AIJ: %" PetscInt_FMT " wrong entries (first in row %" PetscInt_FMT ")%s\n", label, bad, badrow, set && sym ? ", marked symmetric" : ""));
  }
  PetscCall(MatIsSymmetricKnown(T, &set, &sym));
  if (set && sym) {
    *ok = PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: the triangle is marked symmetric\n", label));
  }
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&C));
  { /* a refused target type (no triangle is symmetric: SBAIJ) is an error that leaves nothing allocated (-malloc_dump) */
    PetscErrorCode ierr;

    C = NULL;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatConvert(T, MATSEQSBAIJ, MAT_INITIAL_MATRIX, &C);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) {
      *ok = PETSC_FALSE;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: MatConvert() to %s was not refused\n", label, MATSEQSBAIJ));
      PetscCall(MatDestroy(&C));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckSolve(Mat T, const char *label, SFPCLayout layout, SFPCLevels levels, PetscBool ondevice, PetscBool autogrid, PetscInt autobs, Vec b, const Reference *ref, Vec fresh, Vec fresht, PetscReal tol, PetscBool *ok)
{
  MatHYBSFInfo info;
  PetscReal    err, errt;
  char         msg[160], msgt[160];

  PetscFunctionBegin;
  PetscCall(MatHYBSFGetInfo(T, &info));
  PetscCall(SolveVerdict(T, PETSC_FALSE, b, ref->n, ref->x, ref->scale, fresh, tol, msg, sizeof(msg), &err, ok));
  PetscCall(SolveVerdict(T, PETSC_TRUE, b, ref->n, ref->xt, ref->scalet, fresht, tol, msgt, sizeof(msgt), &errt, ok));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: levels %" PetscInt_FMT ", %s; transpose %s\n", label, ref->nlevels, msg, msgt));
  PetscCall(PetscInfo(NULL, "%s: max_i |x_i - x_ref_i| / scale_i = %g, transposed %g\n", label, (double)err, (double)errt));
  if (info.nnz != ref->nnzoff) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: reports %" PetscInt_FMT " off-diagonal entries, the triangle has %" PetscInt_FMT "\n", label, info.nnz, ref->nnzoff));
    *ok = PETSC_FALSE;
  }
  if (info.ondevice != ondevice) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: on the device %s, expected %s\n", label, info.ondevice ? "yes" : "no", ondevice ? "yes" : "no"));
    *ok = PETSC_FALSE;
  }
  if (ondevice) {
    if (info.nlevels != ref->nlevels && !(info.layout == SFPC_LAYOUT_GRID && info.nlevels == 0)) { /* a grid walk chosen at creation counts no levels */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: reports %" PetscInt_FMT " levels, the triangle has %" PetscInt_FMT "\n", label, info.nlevels, ref->nlevels));
      *ok = PETSC_FALSE;
    }
    if ((layout == SFPC_LAYOUT_AUTO && autogrid && info.layout != SFPC_LAYOUT_GRID) || (layout == SFPC_LAYOUT_AUTO && !autogrid && info.layout != SFPC_LAYOUT_CSR && info.layout != SFPC_LAYOUT_HYB) || (layout != SFPC_LAYOUT_AUTO && info.layout != layout)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: reports layout %s for %s\n", label, LayoutName(info.layout), LayoutName(layout)));
      *ok = PETSC_FALSE;
    }
    if ((levels == SFPC_LEVELS_AUTO && info.levels != SFPC_LEVELS_ASAP && info.levels != SFPC_LEVELS_ALAP) || (levels != SFPC_LEVELS_AUTO && info.levels != levels)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: reports levels %s for %s\n", label, LevelsName(info.levels), LevelsName(levels)));
      *ok = PETSC_FALSE;
    }
    if (info.block_size != (layout == SFPC_LAYOUT_AUTO ? autobs : 1)) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: sweeps by blocks of %" PetscInt_FMT " rows, expected %" PetscInt_FMT "\n", label, info.block_size, layout == SFPC_LAYOUT_AUTO ? autobs : 1));
      *ok = PETSC_FALSE;
    }
    if (info.ntasks <= 0 || info.bytes <= 0 || info.csr_bytes <= 0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: reports %" PetscInt_FMT " warp tasks, %g bytes, %g bytes in CSR\n", label, info.ntasks, (double)info.bytes, (double)info.csr_bytes));
      *ok = PETSC_FALSE;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b: random in [-1, 1), drawn on the host so that host and device runs see the same values. */
static PetscErrorCode RandomRHS(Vec b, PetscInt seed, Reference *ref)
{
  PetscRandom  rnd;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(7919 * seed + 5)));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt i = 0; i < ref->n; i++) {
    PetscReal u;

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    ref->b[i] = 2 * u - 1;
  }
  PetscCall(VecGetArrayWrite(b, &a));
  PetscCall(PetscArraycpy(a, ref->b, ref->n));
  PetscCall(VecRestoreArrayWrite(b, &a));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define NCOMBO 5

int main(int argc, char **argv)
{
  static const SFPCLayout layouts[NCOMBO] = {SFPC_LAYOUT_CSR, SFPC_LAYOUT_CSR, SFPC_LAYOUT_HYB, SFPC_LAYOUT_HYB, SFPC_LAYOUT_AUTO};
  static const SFPCLevels levels[NCOMBO]  = {SFPC_LEVELS_ASAP, SFPC_LEVELS_ALAP, SFPC_LEVELS_ASAP, SFPC_LEVELS_ALAP, SFPC_LEVELS_AUTO};
  char                    which[32] = "random", bad[32] = "none", values[32] = "random", desc[256] = "";
  char                   *tris[2]   = {NULL, NULL};
  PetscInt                ntri = 2, nunit = 2, n = -1, seed = 1;
  PetscBool               units[2] = {PETSC_FALSE, PETSC_TRUE}, isproblem, ok = PETSC_TRUE, flg, autogrid = PETSC_FALSE, autoblocks = PETSC_FALSE, outside = PETSC_FALSE, symflag = PETSC_FALSE;
  PetscBool               rectangular, missingdiag, zerodiag, zerodiag_reuse, nonfinite, nonfinite_reuse, pattern_reuse, layout_enum, shell, shell_reuse;
  PetscReal               tol = 1e-12;
  PetscScalar            *orig = NULL;
  PetscMPIInt             size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof(which), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bad", bad, sizeof(bad), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-values", values, sizeof(values), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-auto_grid", &autogrid, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-auto_blocks", &autoblocks, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nan_outside", &outside, NULL));
  PetscCall(PetscOptionsGetScalar(NULL, NULL, "-zero_value", &zero_value, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-symmetric_flag", &symflag, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-triangle", tris, &ntri, &flg));
  if (!flg) {
    PetscCall(PetscStrallocpy("lower", &tris[0]));
    PetscCall(PetscStrallocpy("upper", &tris[1]));
    ntri = 2;
  }
  PetscCall(PetscOptionsGetBoolArray(NULL, NULL, "-unit", units, &nunit, &flg));
  if (!flg) nunit = 2;
  PetscCall(PetscStrcmp(which, "problem", &isproblem));
  PetscCall(PetscStrcmp(bad, "rectangular", &rectangular));
  PetscCall(PetscStrcmp(bad, "missingdiag", &missingdiag));
  PetscCall(PetscStrcmp(bad, "zerodiag", &zerodiag));
  PetscCall(PetscStrcmp(bad, "zerodiag_reuse", &zerodiag_reuse));
  PetscCall(PetscStrcmp(bad, "nonfinite", &nonfinite));
  PetscCall(PetscStrcmp(bad, "nonfinite_reuse", &nonfinite_reuse));
  PetscCall(PetscStrcmp(bad, "pattern_reuse", &pattern_reuse));
  PetscCall(PetscStrcmp(bad, "layout_enum", &layout_enum));
  PetscCall(PetscStrcmp(bad, "shell", &shell));
  PetscCall(PetscStrcmp(bad, "shell_reuse", &shell_reuse));
  PetscCall(PetscStrcmp(bad, "none", &flg));
  PetscCheck(flg || rectangular || missingdiag || zerodiag || zerodiag_reuse || nonfinite || nonfinite_reuse || pattern_reuse || layout_enum || shell || shell_reuse, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -bad %s", bad);
  if (shell || shell_reuse) { /* MatSetType() makes an empty MATHYBSF: even assembled, it must refuse to solve */
    Mat B;
    Vec b, x;
    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetType(B, MATHYBSF)); /* before the sizes, which PETSc allows */
    PetscCall(MatSetSizes(B, 5, 5, 5, 5));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    if (shell_reuse) { /* ... and a refill has no pattern to refill: it must refuse, not leave a built empty factor */
      Mat A;
      PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 5, 5, 1, NULL, &A));
      for (PetscInt i = 0; i < 5; i++) PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatConvert(A, MATHYBSF, MAT_REUSE_MATRIX, &B));
    }
    PetscCall(MatCreateVecs(B, &x, &b));
    PetscCall(MatSolve(B, b, x));
  }
  for (PetscInt t = 0; t < ntri; t++) {
    PetscBool lo, up;

    PetscCall(PetscStrcmp(tris[t], "lower", &lo));
    PetscCall(PetscStrcmp(tris[t], "upper", &up));
    PetscCheck(lo || up, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -triangle %s: lower or upper", tris[t]);
  }
  if (!isproblem) PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));

  for (PetscInt iu = 0; iu < nunit; iu++) {
    const PetscBool unit = units[iu];
    Pattern         P;
    Mat             A;
    Vec             b;
    Reference       ref;
    PetscBool       ondevice;

    /* the matrix: its pattern, the same on every rank */
    if (isproblem) {
      PetscBool keep;

      PetscCall(PetscFree(orig));
      PetscCall(PatternFromProblem(&P, &orig, desc, sizeof(desc)));
      PetscCall(PetscStrcmp(values, "original", &keep));
      if (!keep) PetscCall(PetscFree(orig));
    } else {
      Rows     L;
      DiagRule rule;
      PetscInt nn = n;

      if (nn < 0) {
        PetscBool rl, ch, sp;

        PetscCall(PetscStrcmp(which, "rowlengths", &rl));
        PetscCall(PetscStrcmp(which, "chain", &ch));
        PetscCall(PetscStrcmp(which, "spread", &sp));
        nn = rl ? 3200 : ch ? 5000 : sp ? 4000 : 2000;
      }
      PetscCall(GenerateLower(which, nn, seed, &L));
      rule.unit    = unit;
      rule.missing = missingdiag ? nn / 2 : -1;
      PetscCall(PatternFromLower(&L, KeepDiag, &rule, &P));
      PetscCall(RowsDestroy(&L));
      PetscCall(PetscSNPrintf(desc, sizeof(desc), "%s", which));
    }
    if (rectangular) { /* one more column, with an entry in row 0 */
      PetscInt *j;

      PetscCall(PetscMalloc1(P.i[P.n] + 1, &j));
      PetscCall(PetscArraycpy(j, P.j, P.i[1]));
      j[P.i[1]] = P.n;
      PetscCall(PetscArraycpy(j + P.i[1] + 1, P.j + P.i[1], P.i[P.n] - P.i[1]));
      for (PetscInt r = 1; r <= P.n; r++) P.i[r]++;
      PetscCall(PetscFree(P.j));
      P.j     = j;
      P.ncols = P.n + 1;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s diagonal: %" PetscInt_FMT " rows, %" PetscInt_FMT " entries\n", desc, unit ? "unit" : "non-unit", P.n, P.i[P.n]));
    if (!isproblem) {
      PetscBool rl;

      PetscCall(PetscStrcmp(which, "rowlengths", &rl));
      if (rl) { /* the lengths this case is about, in the lower triangle (the upper one mirrors it) */
        static const PetscInt want[] = {0, 1, 31, 32, 33, 3000};
        PetscBool             all    = PETSC_TRUE;

        for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
          PetscBool found = PETSC_FALSE;

          for (PetscInt r = 0; r < P.n && !found; r++) {
            PetscInt cnt = 0;

            for (PetscInt k = P.i[r]; k < P.i[r + 1]; k++) cnt += P.j[k] < r;
            found = (PetscBool)(cnt == want[w]);
          }
          all = (PetscBool)(all && found);
        }
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rows of 0, 1, 31, 32, 33 and 3000 off-diagonal entries present: %s\n", all ? "yes" : "NO"));
        ok = (PetscBool)(ok && all);
      }
    }

    PetscCall(MatrixCreate(&P, &A));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &ondevice, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
    PetscCall(MatCreateVecs(A, &b, NULL));
    ref.n = P.n;
    PetscCall(PetscMalloc5(P.n, &ref.b, P.n, &ref.x, P.n, &ref.scale, P.n, &ref.xt, P.n, &ref.scalet));

    for (PetscInt it = 0; it < ntri; it++) {
      Mat       T[NCOMBO] = {NULL}, Tc;
      PetscBool lower;
      char      label[128], trilabel[64];

      PetscCall(PetscStrcmp(tris[it], "lower", &lower));
      PetscCall(PetscSNPrintf(trilabel, sizeof(trilabel), "%s %s", lower ? "lower" : "upper", unit ? "unit" : "non-unit"));
      PetscCall(MatrixFill(A, &P, unit, seed, orig, zerodiag ? P.n / 2 : -1));
      if (nonfinite) PetscCall(SpoilRow(A, &P, P.n / 2, PETSC_FALSE, (PetscScalar)NAN));
      if (outside) PetscCall(SpoilOutside(A, &P, P.n / 2, lower, unit));

      /* every layout x levels, from MatCreateHYBSF() */
      for (PetscInt k = 0; k < NCOMBO; k++) {
        PetscCall(MatCreateHYBSF(A, lower ? MAT_HYBSF_LOWER : MAT_HYBSF_UPPER, unit, layout_enum ? (SFPCLayout)7 : layouts[k], levels[k], &T[k]));
        PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatCreateHYBSF() accepted a matrix on %d ranks", size);
        if (k == 0) {
          PetscCall(RandomRHS(b, seed, &ref));
          PetscCall(ReferenceSolve(A, lower, unit, &ref));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " off-diagonal entries, %" PetscInt_FMT " levels, %" PetscInt_FMT " rows later under alap than under asap\n", trilabel, ref.nnzoff, ref.nlevels, ref.moved));
        }
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s %s", trilabel, LayoutName(layouts[k]), LevelsName(levels[k])));
        PetscCall(CheckSolve(T[k], label, layouts[k], levels[k], ondevice, autogrid, autoblocks ? P.bs : 1, b, &ref, NULL, NULL, tol, &ok));
        PetscCall(CheckConvertBack(T[k], A, lower, unit, label, &ok));
      }

      /* new values, same pattern: MatConvert() refills each of them */
      if (pattern_reuse) { /* not the same pattern: one more entry in the triangle */
        Pattern Q;
        Mat     B;

        PetscCall(PatternAddLowerEntry(&P, P.n / 2, &Q));
        PetscCall(MatrixCreate(&Q, &B));
        PetscCall(MatrixFill(B, &Q, unit, seed + 1, NULL, -1));
        PetscCall(MatConvert(B, MATHYBSF, MAT_REUSE_MATRIX, &T[0]));
        PetscCall(MatDestroy(&B));
        PetscCall(PatternDestroy(&Q));
      }
      PetscCall(MatrixFill(A, &P, unit, seed + 1, orig, zerodiag_reuse ? P.n / 2 : -1));
      if (outside) PetscCall(SpoilOutside(A, &P, P.n / 2, lower, unit));
      if (nonfinite_reuse) {
        PetscCall(CheckRefusedRefill(A, &P, P.n / 2, T[0], b));
        for (PetscInt k = 0; k < NCOMBO; k++) PetscCall(MatDestroy(&T[k]));
        break;
      }
      PetscCall(RandomRHS(b, seed + 1, &ref));
      PetscCall(ReferenceSolve(A, lower, unit, &ref));
      for (PetscInt k = 0; k < NCOMBO; k++) {
        Mat Tf;
        Vec xf, xtf;

        PetscCall(MatConvert(A, MATHYBSF, MAT_REUSE_MATRIX, &T[k]));
        /* refilled must solve bit for bit as built anew from the same values */
        PetscCall(MatCreateHYBSF(A, lower ? MAT_HYBSF_LOWER : MAT_HYBSF_UPPER, unit, layouts[k], levels[k], &Tf));
        PetscCall(VecDuplicate(b, &xf));
        PetscCall(VecDuplicate(b, &xtf));
        PetscCall(MatSolve(Tf, b, xf));
        PetscCall(MatSolveTranspose(Tf, b, xtf));
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s %s reused", trilabel, LayoutName(layouts[k]), LevelsName(levels[k])));
        PetscCall(CheckSolve(T[k], label, layouts[k], levels[k], ondevice, autogrid, autoblocks ? P.bs : 1, b, &ref, xf, xtf, tol, &ok));
        PetscCall(CheckConvertBack(T[k], A, lower, unit, label, &ok));
        PetscCall(VecDestroy(&xf));
        PetscCall(VecDestroy(&xtf));
        PetscCall(MatDestroy(&Tf));
        PetscCall(MatDestroy(&T[k]));
      }

      /* MatConvert() from scratch, told the triangle and diagonal by options; layout, levels and grid from the command line */
      {
        SFPCLayout layout = SFPC_LAYOUT_AUTO;
        SFPCLevels lev    = SFPC_LEVELS_AUTO;
        PetscInt   dims[3], nd = 3;
        PetscBool  grid;

        PetscCall(PetscOptionsSetValue(NULL, "-mat_hybsf_triangle", lower ? "lower" : "upper"));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_hybsf_unit_diagonal", unit ? "true" : "false"));
        if (symflag) PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE)); /* a flag MatConvert() passes on; the triangle must drop it */
        PetscCall(MatConvert(A, MATHYBSF, MAT_INITIAL_MATRIX, &Tc));
        if (symflag) PetscCall(MatSetOption(A, MAT_SPD, PETSC_FALSE));
        PetscCall(PetscOptionsGetEnum(NULL, NULL, "-mat_hybsf_layout", SFPCLayouts, (PetscEnum *)&layout, NULL));
        PetscCall(PetscOptionsGetEnum(NULL, NULL, "-mat_hybsf_levels", SFPCLevelsTypes, (PetscEnum *)&lev, NULL));
        PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-mat_hybsf_grid", dims, &nd, &grid));
        if (grid) layout = SFPC_LAYOUT_GRID; /* -mat_hybsf_grid: the GPU solves must walk the grid */
        PetscCall(PetscSNPrintf(label, sizeof(label), "%s from MatConvert()", trilabel));
        PetscCall(CheckSolve(Tc, label, layout, lev, ondevice, autogrid, autoblocks ? P.bs : 1, b, &ref, NULL, NULL, tol, &ok));
        PetscCall(CheckConvertBack(Tc, A, lower, unit, label, &ok));
        PetscCall(MatDestroy(&Tc));
      }
    }
    PetscCall(PetscFree5(ref.b, ref.x, ref.scale, ref.xt, ref.scalet));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PatternDestroy(&P));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", ok ? "PASS" : "FAIL"));
  PetscCall(PetscFree(orig));
  for (PetscInt t = 0; t < ntri; t++) PetscCall(PetscFree(tris[t]));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  # The host path (the reference of the GPU path). Each run covers lower and upper, unit and non-unit diagonal.
  testset:
    args: -mat_type seqaij
    test:
      suffix: random
      args: -case random -symmetric_flag
    test:
      suffix: rowlengths
      args: -case rowlengths
    test:
      suffix: chain
      args: -case chain
    test:
      suffix: spread
      args: -case spread
    test:
      suffix: bcsstk16
      args: -case problem -problem file -f ${sfpc_dir}/tests/data/bcsstk16.mtx.gz -values {{random original}separate output}
    test:
      suffix: permuted
      args: -case problem -problem poisson27 -n 10 -permute 3 -values original
    test:
      suffix: convert_options
      args: -case random -n 500 -seed 2 -mat_hybsf_layout hyb -mat_hybsf_levels alap -symmetric_flag
    # bad input: each a PETSc error (its class and message are the expected output)
    test:
      suffix: rectangular
      args: -case random -n 50 -triangle lower -unit 0 -bad rectangular
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: missingdiag
      args: -case random -n 50 -triangle lower -unit 0 -bad missingdiag
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: zerodiag
      args: -case random -n 50 -triangle upper -unit 0 -bad zerodiag -zero_value {{0 1e-310}}
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: zerodiag_reuse
      args: -case random -n 50 -triangle lower -unit 0 -bad zerodiag_reuse -zero_value {{0 1e-310}}
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: nonfinite
      args: -case random -n 50 -triangle {{lower upper}separate output} -unit {{0 1}separate output} -bad nonfinite
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: nonfinite_reuse
      args: -case random -n 50 -triangle {{lower upper}separate output} -unit 0 -bad nonfinite_reuse
    test: # NaN where the triangle does not read (the other side; a unit triangle's diagonal): solves as usual
      suffix: nan_outside
      args: -case random -n 50 -triangle {{lower upper}separate output} -unit {{0 1}separate output} -nan_outside
    test:
      suffix: pattern_reuse
      args: -case random -n 50 -triangle lower -unit 0 -bad pattern_reuse
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: layout_enum
      args: -case random -n 50 -triangle lower -unit 0 -bad layout_enum
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: shell
      args: -bad shell
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: shell_reuse
      args: -bad shell_reuse
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: layout_option
      args: -case random -n 50 -triangle lower -unit 0 -mat_hybsf_layout 4
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    # the grid layout (-mat_hybsf_grid, MatHYBSFSetGrid()): on the host only checked, so the outputs of the default layout
    test:
      suffix: grid
      args: -case problem -problem convdiff -n 8 -values original -mat_hybsf_grid 8,8,8
    test: # the 27-point box (gridbox.cu on the GPU)
      suffix: grid_box
      args: -case problem -problem poisson27 -n 8 -values original -mat_hybsf_grid 8,8,8
    test: # no grid given: on the GPU auto reads it from the pattern (-auto_grid checks that it did)
      suffix: natural
      args: -case problem -problem poisson7 -n 12 -values original -auto_grid
    test: # 4 fields a point of a 2-D grid: on the GPU auto sweeps by point-blocks of 4 rows (-auto_blocks checks it)
      suffix: blocks
      args: -case problem -problem fields -dim 2 -n 20 -dof 4 -values original -auto_blocks
    # a grid of the wrong size, a pattern off the 27-point box (grid 4 x 16: columns 7 apart are 3 apart in x), two sizes, a grid with another layout, the grid layout without a grid
    test:
      suffix: grid_size
      args: -case problem -problem convdiff -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid 8,8,9
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # negative sizes whose product is the number of rows
      suffix: grid_negative
      args: -case problem -problem convdiff -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid -8,-8,8
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: grid_pattern
      args: -case problem -problem poisson27 -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid 4,16,8
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: grid_dims
      args: -case problem -problem convdiff -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid 64,8
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: grid_layout
      args: -case problem -problem convdiff -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid 8,8,8 -mat_hybsf_layout csr
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: grid_missing
      args: -case problem -problem convdiff -n 8 -values original -triangle lower -unit 0 -mat_hybsf_layout grid
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    # the package option of the GPU analysis: listed by -help, refused out of range when SFPC is initialized
    test:
      suffix: queue_rows_help
      args: -case random -n 20 -help
      filter: grep -E "sfpc_analysis_queue_rows"
    test:
      suffix: queue_rows_range
      args: -case random -n 20 -sfpc_analysis_queue_rows -3
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"

  test: # a triangle of an AIJ subtype, as the PCs take them; a refused conversion back leaves nothing allocated
    suffix: aijperm
    args: -mat_type seqaijperm -case random -n 50 -malloc_debug -malloc_dump
  test:
    suffix: mpi
    nsize: 2
    args: -mat_type aij -case random -n 50 -triangle lower -unit 0
    filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"

  # The GPU path: the same outputs as the host path; the first cases also with levels from the ready
  # queue (analysis.cu), which by default only large grids take
  testset:
    requires: gpu
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0
    test:
      suffix: gpu_random
      args: -case random -symmetric_flag -sfpc_analysis_queue_rows {{0 2147483647}}
      output_file: output/ex4_random.out
    test:
      # PETSc's stream non-blocking: work on the legacy stream would not be ordered with it (the conversion back)
      suffix: gpu_nonblocking
      args: -case random -root_device_context_stream_type nonblocking
      output_file: output/ex4_random.out
    test:
      suffix: gpu_rowlengths
      args: -case rowlengths -sfpc_analysis_queue_rows {{0 2147483647}}
      output_file: output/ex4_rowlengths.out
    test:
      suffix: gpu_chain
      args: -case chain -sfpc_analysis_queue_rows {{0 2147483647}}
      output_file: output/ex4_chain.out
    test:
      suffix: gpu_spread
      args: -case spread -sfpc_analysis_queue_rows {{0 2147483647}}
      output_file: output/ex4_spread.out
    test:
      suffix: gpu_bcsstk16_random
      args: -case problem -problem file -f ${sfpc_dir}/tests/data/bcsstk16.mtx.gz -values random -sfpc_analysis_queue_rows {{0 2147483647}}
      output_file: output/ex4_bcsstk16_values-random.out
    test:
      suffix: gpu_bcsstk16_original
      args: -case problem -problem file -f ${sfpc_dir}/tests/data/bcsstk16.mtx.gz -values original
      output_file: output/ex4_bcsstk16_values-original.out
    test:
      suffix: gpu_permuted
      args: -case problem -problem poisson27 -n 10 -permute 3 -values original -sfpc_analysis_queue_rows {{0 2147483647}}
      output_file: output/ex4_permuted.out
    test:
      suffix: gpu_convert_options
      args: -case random -n 500 -seed 2 -mat_hybsf_layout hyb -mat_hybsf_levels alap -symmetric_flag
      output_file: output/ex4_convert_options.out
    test:
      suffix: gpu_rectangular
      args: -case random -n 50 -triangle lower -unit 0 -bad rectangular
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_rectangular.out
    test:
      suffix: gpu_missingdiag
      args: -case random -n 50 -triangle lower -unit 0 -bad missingdiag
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_missingdiag.out
    test:
      suffix: gpu_zerodiag
      args: -case random -n 50 -triangle upper -unit 0 -bad zerodiag -zero_value {{0 1e-310}}
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_zerodiag.out
    test:
      suffix: gpu_zerodiag_reuse
      args: -case random -n 50 -triangle lower -unit 0 -bad zerodiag_reuse -zero_value {{0 1e-310}}
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_zerodiag_reuse.out
    test:
      suffix: gpu_nonfinite
      args: -case random -n 50 -triangle {{lower upper}separate output} -unit {{0 1}separate output} -bad nonfinite
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: gpu_nonfinite_reuse
      args: -case random -n 50 -triangle {{lower upper}separate output} -unit 0 -bad nonfinite_reuse
    test:
      suffix: gpu_nan_outside
      args: -case random -n 50 -triangle {{lower upper}separate output} -unit {{0 1}separate output} -nan_outside
    test:
      suffix: gpu_pattern_reuse
      args: -case random -n 50 -triangle lower -unit 0 -bad pattern_reuse
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_pattern_reuse.out
    test:
      suffix: gpu_layout_enum
      args: -case random -n 50 -triangle lower -unit 0 -bad layout_enum
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_layout_enum.out
    test:
      suffix: gpu_layout_option
      args: -case random -n 50 -triangle lower -unit 0 -mat_hybsf_layout 4
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_layout_option.out
    test:
      suffix: gpu_grid
      args: -case problem -problem convdiff -n 8 -values original -mat_hybsf_grid 8,8,8 -auto_grid
      output_file: output/ex4_grid.out
    test:
      suffix: gpu_grid_box
      args: -case problem -problem poisson27 -n 8 -values original -mat_hybsf_grid 8,8,8 -auto_grid
      output_file: output/ex4_grid_box.out
    test:
      suffix: gpu_natural
      args: -case problem -problem poisson7 -n 12 -values original -auto_grid
      output_file: output/ex4_natural.out
    test:
      suffix: gpu_blocks
      args: -case problem -problem fields -dim 2 -n 20 -dof 4 -values original -auto_blocks
      output_file: output/ex4_blocks.out
    test:
      suffix: gpu_grid_size
      args: -case problem -problem convdiff -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid 8,8,9
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_grid_size.out
    test:
      suffix: gpu_grid_pattern
      args: -case problem -problem poisson27 -n 8 -values original -triangle lower -unit 0 -mat_hybsf_grid 4,16,8
      filter: Error: grep "^\[0\]PETSC ERROR" | grep -A 2 -m 1 "Error Message" | tail -n 2 | grep -v "See https" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex4_grid_pattern.out

TEST*/
