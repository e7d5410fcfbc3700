static char help[] = "PCAFSAI (adaptive FSAI) on the host. Checks of the factor G of a PC set up on the problem: G is lower\n"
                     "triangular, diag(G A G^T) = I, rows within the entry limit. Then, by option:\n"
                     "-ref: G against an independent dense implementation of the search and values (sequential, small);\n"
                     "-mono <K>: psi_i = 1/g_ii^2, row i's factor in the Kaporin number, never increases over steps 0..K;\n"
                     "-cg: CG iterations with afsai against Jacobi; -reuse: new values of the same pattern (pattern kept,\n"
                     "or searched again with -afsai_pc_afsai_reuse_pattern 0; -reuse_steps <k>: then new values again with k search\n"
                     "steps, which a new search must follow); -gamg: afsai as GAMG level smoother under\n"
                     "Richardson and Chebyshev; -bjacobi: -pc_type afsai against bjacobi with afsai blocks (MPI; -repattern: then again after\n"
                     "a coupling new outside the diagonal blocks); -split: the split\n"
                     "preconditioner G A G^T (-ksp_pc_side symmetric) with GMRES.\n"
                     "Matrix: problem options of tests/problems.c, -jitter (off-diagonals scaled by 0.5-1.5, symmetric, then\n"
                     "made diagonally dominant: no ties in the search), -shift <s> (A + s I: not SPD for s negative enough),\n"
                     "-negative_row <r> (a_rr = -1), -nan_row <r> (a_{r,r-1} = a_{r-1,r} = NaN), -breakdown (a 4 x 4 matrix on which the search meets a Cholesky breakdown),\n"
                     "-uneven (rank r gets rows in proportion to r + 1), -empty_rank <r> (rank r gets none).\n"
                     "-symmetric: whether A is symmetric bit for bit; -rbm (elasticity): A z vanishes, for the near null space's\n"
                     "vectors z (rigid body modes), on every row but those of the nodes next to the clamped face.\n"
                     "-device: with -mat_type aijcusparse, also says whether G is applied on the GPU (-bind_cpu: A bound to the CPU, G must\n"
                     "then be on the host, as -pc_gamg_cpu_pin_coarse_grids binds GAMG's coarse levels). -compare_setup (aijcusparse,\n"
                     "sequential): the GPU set-up against the host set-up of the same matrix (-pc_afsai_setup host): pattern,\n"
                     "values, CG iterations.\n"
                     "Options of the PCs: prefix afsai_ (e.g. -afsai_pc_afsai_steps 5); -api_search steps,stepsize,tol: PCAFSAISetSearch() on the\n"
                     "PC of -ref after its options.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

/* A deterministic factor in [0.5, 1.5) for the pair {i, j}. */
static PetscReal PairFactor(PetscInt i, PetscInt j)
{
  const unsigned long long a = (unsigned long long)PetscMin(i, j), b = (unsigned long long)PetscMax(i, j);
  return 0.5 + (PetscReal)(((a * 2654435761ULL) ^ (b * 40503ULL + 977ULL)) % 1000) / 1000.0;
}

/* Off-diagonals scaled by PairFactor() (symmetric), diagonal 1.05 times the row's sum of |off-diagonals| (+ 1): SPD. */
static PetscErrorCode Jitter(Mat *A)
{
  Mat      B;
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(*A, MAT_DO_NOT_COPY_VALUES, &B));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscScalar        v[128];
    PetscReal          sum = 0;

    PetscCall(MatGetRow(*A, i, &nc, &cols, &vals));
    PetscCheck(nc <= 128, PETSC_COMM_SELF, PETSC_ERR_SUP, "-jitter supports rows of up to 128 entries");
    for (PetscInt k = 0; k < nc; k++) {
      v[k] = cols[k] == i ? 0.0 : vals[k] * PairFactor(i, cols[k]);
      sum += PetscAbsScalar(v[k]);
    }
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] == i) v[k] = 1.05 * sum + 1.0;
    PetscCall(MatSetValues(B, 1, &i, nc, cols, v, INSERT_VALUES));
    PetscCall(MatRestoreRow(*A, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDestroy(A));
  *A = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same matrix with rank r owning rows in proportion to r + 1 (rank "empty" none). */
static PetscErrorCode Redistribute(Mat *A, PetscInt empty)
{
  PetscMPIInt rank, size;
  PetscInt    N, weight = 0, before = 0, rstart, rend;
  IS          is;
  Mat         B;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetSize(*A, &N, NULL));
  for (PetscMPIInt r = 0; r < size; r++) weight += r == empty ? 0 : r + 1;
  for (PetscMPIInt r = 0; r < rank; r++) before += r == empty ? 0 : r + 1;
  rstart = N * before / weight;
  rend   = N * (before + (rank == empty ? 0 : rank + 1)) / weight;
  PetscCall(ISCreateStride(PETSC_COMM_WORLD, rend - rstart, rstart, 1, &is));
  PetscCall(MatCreateSubMatrix(*A, is, is, MAT_INITIAL_MATRIX, &B));
  PetscCall(ISDestroy(&is));
  PetscCall(MatDestroy(A));
  *A = B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A 4 x 4 symmetric matrix, not SPD, on which the search of row 3 meets a Cholesky breakdown before any psi is
   negative (with -afsai_pc_afsai_tol 0.01): A[{1,2},{1,2}] = [1e-3 0.05; 0.05 1] is indefinite, but row 2 picks
   column 0 first (|a_20| = 0.1 > |a_21| = 0.05) and stops there by the tolerance (psi = 1 - 0.1^2 / 0.01001 < 0.01),
   while row 3 picks 2, then 1.
*/
static PetscErrorCode BreakdownMatrix(Mat *A)
{
  const PetscInt    i[] = {0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3};
  const PetscInt    j[] = {0, 2, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3};
  const PetscScalar v[] = {0.01001, 0.1, 1e-3, 0.05, 0.1, 0.1, 0.05, 1, 0.5, 0.1, 0.5, 1};

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, 4, 4));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(v); k++) PetscCall(MatSetValue(*A, i[k], j[k], v[k], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode LocalBlock(Mat A, Mat *Ad)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MatGetDiagonalBlock(A, Ad));
  else *Ad = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A PC of type afsai with the options of prefix afsai_, set up on A. */
static PetscErrorCode AFSAICreate(Mat A, PC *pc)
{
  PetscFunctionBegin;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), pc));
  PetscCall(PCSetType(*pc, PCAFSAI));
  PetscCall(PCSetOptionsPrefix(*pc, "afsai_"));
  PetscCall(PCSetFromOptions(*pc));
  {
    PetscReal v[3];
    PetscInt  nv = 3;
    PetscBool set;
    PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-api_search", v, &nv, &set));
    if (set) { /* after the options, as an application would call it; -1 and -2 are PETSC_DETERMINE and PETSC_CURRENT */
      PetscInt  steps, size;
      PetscReal tol;
      PetscCheck(nv == 3, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-api_search needs steps,stepsize,tol");
      PetscCall(PCAFSAISetSearch(*pc, (PetscInt)v[0], (PetscInt)v[1], v[2]));
      PetscCall(PCAFSAIGetSearch(*pc, &steps, &size, &tol));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCAFSAISetSearch(%g, %g, %g): PCAFSAIGetSearch() gives steps %" PetscInt_FMT ", step size %" PetscInt_FMT ", tol %g\n", (double)v[0], (double)v[1], (double)v[2], steps, size, (double)tol));
    }
  }
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(PCSetUp(*pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   G lower triangular, diag(G A G^T) = I to 1e-12 (computed as the diagonal of Gt^T A Gt, Gt = G^T), the longest
   row, the fill; on every rank (its diagonal block), answers reduced over all ranks.
*/
static PetscErrorCode CheckFactor(PC pc, Mat A, const char *when)
{
  Mat                Ad, G, Gh, Ah, Gt, GAGt;
  Vec                d;
  PetscInt           n, nr, nnzA[2], nnzG[2], longest = 0;
  PetscReal          dev = 0;
  PetscBool          lower = PETSC_TRUE;
  const PetscInt    *gi, *gj, *ai, *aj;
  PetscBool          done;
  const PetscScalar *da;

  PetscFunctionBegin;
  PetscCall(LocalBlock(A, &Ad));
  PetscCall(PCAFSAIGetFactor(pc, &G));
  PetscCall(MatGetLocalSize(G, &n, NULL));
  PetscCall(MatGetRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &nr, &gi, &gj, &done));
  for (PetscInt i = 0; i < n; i++) {
    longest = PetscMax(longest, gi[i + 1] - gi[i]);
    for (PetscInt k = gi[i]; k < gi[i + 1]; k++) lower = (PetscBool)(lower && gj[k] <= i);
  }
  nnzG[0] = gi[n];
  PetscCall(MatRestoreRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &nr, &gi, &gj, &done)); /* sets nr to 0 */
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
  nnzA[0] = ai[n];
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ai, &aj, &done));
  /* on host copies: this check must not depend on the GPU product it would otherwise run (cuSPARSE SpGEMM) */
  PetscCall(MatConvert(G, MATSEQAIJ, MAT_INITIAL_MATRIX, &Gh));
  PetscCall(MatConvert(Ad, MATSEQAIJ, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(MatTranspose(Gh, MAT_INITIAL_MATRIX, &Gt));
  PetscCall(MatPtAP(Ah, Gt, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &GAGt));
  PetscCall(MatDestroy(&Gh));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatCreateVecs(GAGt, &d, NULL));
  PetscCall(MatGetDiagonal(GAGt, d));
  PetscCall(VecGetArrayRead(d, &da));
  for (PetscInt i = 0; i < n; i++) dev = PetscMax(dev, PetscAbsScalar(da[i] - 1.0));
  PetscCall(VecRestoreArrayRead(d, &da));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &lower, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dev, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &longest, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(nnzG, nnzG + 1, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(nnzA, nnzA + 1, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: G lower triangular: %s; diag(G A G^T) = I to 1e-12: %s; longest row %" PetscInt_FMT "; fill nnz(G)/nnz(A) %.3f\n", when, lower ? "yes" : "NO", dev <= 1e-12 ? "yes" : "NO", longest, (double)nnzG[1] / (double)nnzA[1]));
  PetscCall(PetscInfo(pc, "max |diag(G A G^T) - 1| = %g\n", (double)dev));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&GAGt));
  PetscCall(MatDestroy(&Gt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves x = -M[P,P]^{-1} M[P,i] by Gaussian elimination with partial pivoting on a dense copy (n x n, row-major). */
static PetscErrorCode DenseSolve(const PetscScalar *M, PetscInt n, PetscInt i, const PetscInt P[], PetscInt m, PetscScalar x[])
{
  PetscScalar *S;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m * (m + 1), &S));
  for (PetscInt r = 0; r < m; r++) {
    for (PetscInt c = 0; c < m; c++) S[r * (m + 1) + c] = M[P[r] * n + P[c]];
    S[r * (m + 1) + m] = -M[P[r] * n + i];
  }
  for (PetscInt c = 0; c < m; c++) {
    PetscInt p = c;
    for (PetscInt r = c + 1; r < m; r++)
      if (PetscAbsScalar(S[r * (m + 1) + c]) > PetscAbsScalar(S[p * (m + 1) + c])) p = r;
    for (PetscInt k = 0; k <= m; k++) {
      const PetscScalar t = S[c * (m + 1) + k];
      S[c * (m + 1) + k]  = S[p * (m + 1) + k];
      S[p * (m + 1) + k]  = t;
    }
    for (PetscInt r = c + 1; r < m; r++) {
      const PetscScalar f = S[r * (m + 1) + c] / S[c * (m + 1) + c];
      for (PetscInt k = c; k <= m; k++) S[r * (m + 1) + k] -= f * S[c * (m + 1) + k];
    }
  }
  for (PetscInt r = m - 1; r >= 0; r--) {
    PetscScalar t = S[r * (m + 1) + m];
    for (PetscInt k = r + 1; k < m; k++) t -= S[r * (m + 1) + k] * x[k];
    x[r] = t / S[r * (m + 1) + r];
  }
  PetscCall(PetscFree(S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The adaptive FSAI of a dense copy of A, straight from the definitions: per step the gradient (A g~)_j over all
   j < i outside P, the s largest |.| > 0 (ties: smaller j) added, g from A[P,P] g = -A[P,i] by Gaussian
   elimination, psi = a_ii + A[i,P] g; the stopping rules and the filter of the options; rows scaled by 1/sqrt(psi).
   Compared with the PC's G: the same pattern, values to 1e-10 (relative to the largest).
*/
static PetscErrorCode CompareReference(PC pc, Mat A)
{
  PetscInt           n, steps, s, maxnnz = -1, mmax, *P, nbad = 0;
  PetscReal          tol, filter = 0, err = 0, big = 0;
  PetscScalar       *M, *gt, *grad, *x;
  Mat                G;
  const PetscInt    *gi, *gj;
  const PetscScalar *ga;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PCAFSAIGetSearch(pc, &steps, &s, &tol)); /* the options' or PCAFSAISetSearch()'s (-api_search) */
  {
    PetscInt  osteps = 10, os = 1; /* without -api_search, the getter must give what the options say (or the defaults) */
    PetscReal otol   = 1e-3;
    PetscBool api;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-api_search", &api));
    PetscCall(PetscOptionsGetInt(NULL, "afsai_", "-pc_afsai_steps", &osteps, NULL));
    PetscCall(PetscOptionsGetInt(NULL, "afsai_", "-pc_afsai_step_size", &os, NULL));
    PetscCall(PetscOptionsGetReal(NULL, "afsai_", "-pc_afsai_tol", &otol, NULL));
    PetscCheck(api || (steps == osteps && s == os && tol == otol), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCAFSAIGetSearch() gives %" PetscInt_FMT ", %" PetscInt_FMT ", %g; the options say %" PetscInt_FMT ", %" PetscInt_FMT ", %g", steps, s, (double)tol, osteps, os, (double)otol);
  }
  PetscCall(PetscOptionsGetInt(NULL, "afsai_", "-pc_afsai_max_nnz_row", &maxnnz, NULL));
  PetscCall(PetscOptionsGetReal(NULL, "afsai_", "-pc_afsai_filter", &filter, NULL));
  mmax = maxnnz > 0 ? PetscMin(steps * s, maxnnz - 1) : steps * s;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PetscCalloc5(n * n, &M, n, &gt, n, &grad, n, &x, n, &P));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt c = 0; c < n; c++) PetscCall(MatGetValue(A, r, c, &M[r * n + c]));
  PetscCall(PCAFSAIGetFactor(pc, &G));
  PetscCall(MatGetRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &gi, &gj, &done));
  PetscCall(MatSeqAIJGetArrayRead(G, &ga));
  for (PetscInt i = 0; i < n; i++) {
    const PetscScalar aii = M[i * n + i];
    PetscScalar       psi = aii;
    PetscInt          m   = 0, kept = 0;

    PetscCall(PetscArrayzero(gt, n));
    gt[i] = 1;
    for (PetscInt k = 0; k < steps && m < mmax; k++) {
      const PetscInt m0 = m;
      for (PetscInt j = 0; j < i; j++) {
        grad[j] = 0;
        for (PetscInt r = 0; r < n; r++) grad[j] += M[j * n + r] * gt[r];
      }
      for (PetscInt q = 0; q < m; q++) grad[P[q]] = 0;
      for (PetscInt t = 0; t < s && m < mmax; t++) {
        PetscInt best = -1;
        for (PetscInt j = 0; j < i; j++)
          if (PetscAbsScalar(grad[j]) > 0 && (best < 0 || PetscAbsScalar(grad[j]) > PetscAbsScalar(grad[best]))) best = j;
        if (best < 0) break;
        P[m++]     = best;
        grad[best] = 0;
      }
      if (m == m0) break;
      PetscCall(DenseSolve(M, n, i, P, m, x));
      psi = aii;
      for (PetscInt q = 0; q < m; q++) {
        gt[P[q]] = x[q];
        psi += M[i * n + P[q]] * x[q];
      }
      if (PetscRealPart(psi) <= tol * PetscRealPart(aii)) break;
    }
    for (PetscInt q = 0; q < m; q++)
      if (PetscAbsScalar(gt[P[q]]) * PetscSqrtReal(PetscRealPart(M[P[q] * n + P[q]] / aii)) >= filter) P[kept++] = P[q];
    m = kept;
    PetscCall(PetscSortInt(m, P));
    PetscCall(DenseSolve(M, n, i, P, m, x));
    psi = aii;
    for (PetscInt q = 0; q < m; q++) psi += M[i * n + P[q]] * x[q];
    /* the PC's row i: P (sorted), then the diagonal */
    if (gi[i + 1] - gi[i] != m + 1 || gj[gi[i] + m] != i) nbad++;
    else {
      for (PetscInt q = 0; q < m; q++) {
        if (gj[gi[i] + q] != P[q]) nbad++;
        err = PetscMax(err, PetscAbsScalar(ga[gi[i] + q] - x[q] / PetscSqrtScalar(psi)));
      }
      err = PetscMax(err, PetscAbsScalar(ga[gi[i] + m] - 1.0 / PetscSqrtScalar(psi)));
    }
  }
  for (PetscInt k = 0; k < gi[n]; k++) big = PetscMax(big, PetscAbsScalar(ga[k]));
  PetscCall(MatSeqAIJRestoreArrayRead(G, &ga));
  PetscCall(MatRestoreRowIJ(G, 0, PETSC_FALSE, PETSC_FALSE, &n, &gi, &gj, &done));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dense reference: same pattern: %s; values agree to 1e-10: %s\n", nbad ? "NO" : "yes", err <= 1e-10 * big ? "yes" : "NO"));
  PetscCall(PetscInfo(pc, "reference: %" PetscInt_FMT " pattern differences, largest value difference %g (largest |g_ij| %g)\n", nbad, (double)err, (double)big));
  PetscCall(PetscFree5(M, gt, grad, x, P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* psi_i = 1 / g_ii^2 for steps 0..K (the other options of prefix afsai_ kept): never increases; (1/n) sum_i log psi_i printed. */
static PetscErrorCode CheckMonotone(Mat A, PetscInt K)
{
  PetscInt   n, rises = 0;
  PetscReal *prev;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(PetscMalloc1(n, &prev));
  for (PetscInt k = 0; k <= K; k++) {
    char      steps[16];
    PC        pc;
    Mat       G;
    Vec       d;
    PetscReal logsum = 0;
    PetscInt  N, rstep = 0;
    const PetscScalar *da;

    PetscCall(PetscSNPrintf(steps, sizeof(steps), "%" PetscInt_FMT, k));
    PetscCall(PetscOptionsSetValue(NULL, "-afsai_pc_afsai_steps", steps));
    PetscCall(AFSAICreate(A, &pc));
    PetscCall(PCAFSAIGetFactor(pc, &G));
    PetscCall(MatCreateVecs(G, &d, NULL));
    PetscCall(MatGetDiagonal(G, d));
    PetscCall(VecGetArrayRead(d, &da));
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal psi = 1.0 / PetscRealPart(da[i] * da[i]);
      if (k > 0 && psi > prev[i] * (1 + 1e-12)) rstep++;
      prev[i] = psi;
      logsum += PetscLogReal(psi);
    }
    PetscCall(VecRestoreArrayRead(d, &da));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &logsum, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    PetscCall(MatGetSize(A, &N, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "steps %" PetscInt_FMT ": (1/n) sum_i log psi_i = %.6f\n", k, (double)(logsum / N)));
    rises += rstep;
    PetscCall(VecDestroy(&d));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-afsai_pc_afsai_steps"));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &rises, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "psi_i never increases with the steps: %s\n", rises ? "NO" : "yes"));
  PetscCall(PetscFree(prev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrix of -problem elasticity is exactly symmetric and its near null space holds the rigid body modes: A z is
   zero (to rounding) except on the rows of the nodes next to the clamped face x = 0 (node x index 1, the first of each
   x-line of N nodes; N from the 3 N (N+1)^2 rows). */
static PetscErrorCode CheckProblem(Mat A, PetscBool rbm)
{
  PetscBool symmetric;

  PetscFunctionBegin;
  PetscCall(MatIsSymmetric(A, 0.0, &symmetric));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "A is symmetric bit for bit: %s\n", symmetric ? "yes" : "NO"));
  if (rbm) {
    MatNullSpace       nsp;
    const Vec         *z;
    PetscInt           nz, rows, N = 1, rstart, rend, bad = 0, nonzero = 0;
    PetscBool          hasconst;
    Vec                y;
    PetscReal          anorm, znorm;
    const PetscScalar *ya;

    PetscCall(MatGetNearNullSpace(A, &nsp));
    PetscCheck(nsp, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-rbm needs -problem elasticity (a near null space)");
    PetscCall(MatNullSpaceGetVecs(nsp, &hasconst, &nz, &z));
    PetscCall(MatGetSize(A, &rows, NULL));
    while (3 * N * (N + 1) * (N + 1) < rows) N++;
    PetscCall(MatNorm(A, NORM_INFINITY, &anorm));
    PetscCall(MatCreateVecs(A, NULL, &y));
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    for (PetscInt k = 0; k < nz; k++) {
      PetscCall(MatMult(A, z[k], y));
      PetscCall(VecNorm(z[k], NORM_INFINITY, &znorm));
      PetscCall(VecGetArrayRead(y, &ya));
      for (PetscInt r = rstart; r < rend; r++) {
        const PetscBool big = (PetscBool)(PetscAbsScalar(ya[r - rstart]) > 1e-12 * anorm * znorm);
        if (big && (r / 3) % N != 0) bad++;
        if (big) nonzero++;
      }
      PetscCall(VecRestoreArrayRead(y, &ya));
    }
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nonzero, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " rigid body modes: A z = 0 away from the clamped face: %s (%s on the rows next to it)\n", nz, bad ? "NO" : "yes", nonzero ? "nonzero" : "ZERO"));
    PetscCall(VecDestroy(&y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A CG (unless the options say otherwise) solve with the options of prefix; its KSP is returned when ksp is not NULL. */
static PetscErrorCode Solve(Mat A, Vec b, const char *prefix, PetscInt *its, KSPConvergedReason *reason, PetscReal **hist, PetscInt *nhist, KSP *kspout)
{
  KSP ksp;
  Vec x;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  if (hist) {
    const PetscReal *h;
    PetscCall(KSPGetResidualHistory(ksp, &h, nhist));
    PetscCall(PetscMalloc1(*nhist, hist));
    PetscCall(PetscArraycpy(*hist, h, *nhist));
  }
  PetscCall(VecDestroy(&x));
  if (kspout) *kspout = ksp;
  else PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveAndPrint(Mat A, Vec b, const char *prefix, PetscInt *its)
{
  KSPConvergedReason reason;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(Solve(A, b, prefix, &n, &reason, NULL, NULL, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s in %" PetscInt_FMT " iterations\n", prefix, KSPConvergedReasons[reason], n));
  if (its) *its = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool bind = PETSC_FALSE; /* -bind_cpu */

/* The afsai_ solve: its outcome, the checks of its factor (or, failed, the PC's reason and view), and the comparison with Jacobi. */
static PetscErrorCode SolveAFSAI(Mat A, Vec b, PetscBool cg, PetscBool device)
{
  KSP                ksp;
  PC                 pc;
  PetscInt           its, jits;
  KSPConvergedReason reason;
  PCFailedReason     pcreason;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-afsai_pc_type", "afsai"));
  PetscCall(Solve(A, b, "afsai_", &its, &reason, NULL, NULL, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetFailedReason(pc, &pcreason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "afsai_: %s in %" PetscInt_FMT " iterations; PC: %s\n", KSPConvergedReasons[reason], its, PCFailedReasons[pcreason]));
  { /* the PC's own Richardson iteration runs its sweeps without a convergence test (as PCSOR's): the true residual says how far it got */
    PetscBool rich;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPRICHARDSON, &rich));
    if (rich) {
      Vec       x, r;
      PetscReal rn, bn;
      PetscCall(KSPGetSolution(ksp, &x));
      PetscCall(VecDuplicate(b, &r));
      PetscCall(MatResidual(A, b, x, r));
      PetscCall(VecNorm(r, NORM_2, &rn));
      PetscCall(VecNorm(b, NORM_2, &bn));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "afsai_: ||b - A x|| / ||b|| = %.1e\n", (double)(rn / bn)));
      PetscCall(VecDestroy(&r));
    }
  }
  if (reason == KSP_DIVERGED_PC_FAILED) PetscCall(PCView(pc, PETSC_VIEWER_STDOUT_WORLD));
  else PetscCall(CheckFactor(pc, A, "afsai_"));
  if (device) {
    Mat       G;
    PetscBool ongpu;
    PetscCall(PCAFSAIGetFactor(pc, &G));
    PetscCall(PetscObjectTypeCompare((PetscObject)G, MATSEQAIJCUSPARSE, &ongpu));
    if (bind) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "A bound to the CPU: G is applied on the host: %s\n", !ongpu ? "yes" : "NO"));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "G is applied on the GPU: %s\n", ongpu ? "yes" : "NO"));
  }
  PetscCall(KSPDestroy(&ksp));
  if (cg) {
    PetscCall(PetscOptionsSetValue(NULL, "-jacobi_pc_type", "jacobi"));
    PetscCall(SolveAndPrint(A, b, "jacobi_", &jits));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CG with afsai needs fewer iterations than with jacobi: %s\n", its < jits ? "yes" : "NO"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The GPU set-up against the host set-up of the same aijcusparse matrix (-pc_afsai_setup host): the same pattern
   exactly, values to 1e-13 relative to the largest |g_ij| (both compute in the same operation order without fused
   multiply-adds, so they are expected bit for bit equal: reported too), and the same CG iteration count.
*/
static PetscErrorCode CompareSetups(Mat A, Vec b)
{
  const char        *where[2] = {"host", "device"};
  PC                 pc[2];
  Mat                G[2];
  const PetscInt    *gi[2], *gj[2];
  const PetscScalar *ga[2];
  PetscInt           n[2], its[2];
  PetscBool          done, ongpu[2], same = PETSC_TRUE;
  PetscReal          err = 0, big = 0;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscOptionsSetValue(NULL, "-afsai_pc_afsai_setup", where[k]));
    PetscCall(AFSAICreate(A, &pc[k]));
    PetscCall(TestPCViewHas(pc[k], "set-up on the GPU", &ongpu[k]));
    PetscCall(PCAFSAIGetFactor(pc[k], &G[k]));
    PetscCall(MatGetRowIJ(G[k], 0, PETSC_FALSE, PETSC_FALSE, &n[k], &gi[k], &gj[k], &done));
    PetscCall(MatSeqAIJGetArrayRead(G[k], &ga[k]));
  }
  same = (PetscBool)(n[0] == n[1]);
  for (PetscInt i = 0; same && i <= n[0]; i++) same = (PetscBool)(gi[0][i] == gi[1][i]);
  for (PetscInt k = 0; same && k < gi[0][n[0]]; k++) same = (PetscBool)(gj[0][k] == gj[1][k]);
  if (same) {
    PetscBool bitwise = PETSC_TRUE;
    for (PetscInt k = 0; k < gi[0][n[0]]; k++) {
      err     = PetscMax(err, PetscAbsScalar(ga[1][k] - ga[0][k]));
      big     = PetscMax(big, PetscAbsScalar(ga[0][k]));
      bitwise = (PetscBool)(bitwise && ga[1][k] == ga[0][k]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU set-up ran on the GPU: %s (host set-up: %s); same pattern as the host set-up: yes; values agree to 1e-13: %s; bitwise: %s\n", ongpu[1] ? "yes" : "NO", ongpu[0] ? "GPU" : "host", err <= 1e-13 * big ? "yes" : "NO", bitwise ? "yes" : "NO"));
    PetscCall(PetscInfo(pc[1], "GPU set-up: max |g_gpu - g_host| / max |g_host| = %g\n", (double)(err / big)));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU set-up ran on the GPU: %s; same pattern as the host set-up: NO\n", ongpu[1] ? "yes" : "NO"));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatSeqAIJRestoreArrayRead(G[k], &ga[k]));
    PetscCall(MatRestoreRowIJ(G[k], 0, PETSC_FALSE, PETSC_FALSE, &n[k], &gi[k], &gj[k], &done));
    PetscCall(PCDestroy(&pc[k]));
  }
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscOptionsSetValue(NULL, "-afsai_pc_afsai_setup", where[k]));
    PetscCall(Solve(A, b, "afsai_", &its[k], &reason, NULL, NULL, NULL));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-afsai_pc_afsai_setup"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CG iterations with the GPU set-up equal the host set-up's: %s (%" PetscInt_FMT ")\n", its[0] == its[1] ? "yes" : "NO", its[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New values of the same pattern (2 A + I): what the re-set-up redid, and the checks of the refreshed factor. */
static PetscErrorCode Reuse(Mat A, Vec b, PetscInt steps)
{
  KSP                ksp;
  PC                 pc;
  PetscInt           its, np, nv;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(Solve(A, b, "afsai_", &its, &reason, NULL, NULL, &ksp));
  PetscCall(TestResolveNewValues(ksp, A, b, "AFSAIPattern", "AFSAIValues", &its, &reason, &np, &nv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "new values, same pattern: %s in %" PetscInt_FMT " iterations; the re-set-up searched %" PetscInt_FMT " patterns and computed values %" PetscInt_FMT " times\n", KSPConvergedReasons[reason], its, np, nv));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(CheckFactor(pc, A, "after new values"));
  if (steps >= 0) { /* other search options on the same pattern: the pattern is searched again with them */
    char value[32];
    PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, steps));
    PetscCall(PetscOptionsSetValue(NULL, "-afsai_pc_afsai_steps", value));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(TestResolveNewValues(ksp, A, b, "AFSAIPattern", "AFSAIValues", &its, &reason, &np, &nv));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "new values and %" PetscInt_FMT " search steps: %s in %" PetscInt_FMT " iterations; the re-set-up searched %" PetscInt_FMT " patterns and computed values %" PetscInt_FMT " times\n", steps, KSPConvergedReasons[reason], its, np, nv));
    PetscCall(CheckFactor(pc, A, "after new search steps"));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Gamg(Mat A, Vec b)
{
  const char *opts[][2] = {
    {"-gamg_default_pc_type",                     "gamg"     },
    {"-gamg_afsai_richardson_pc_type",            "gamg"     },
    {"-gamg_afsai_richardson_mg_levels_ksp_type", "richardson"},
    {"-gamg_afsai_richardson_mg_levels_pc_type",  "afsai"    },
    {"-gamg_afsai_chebyshev_pc_type",             "gamg"     },
    {"-gamg_afsai_chebyshev_mg_levels_pc_type",   "afsai"    },
  };
  const char *prefixes[] = {"gamg_default_", "gamg_afsai_richardson_", "gamg_afsai_chebyshev_"};

  PetscFunctionBegin;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(opts); k++) PetscCall(PetscOptionsSetValue(NULL, opts[k][0], opts[k][1]));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(prefixes); k++) {
    PetscInt p0, p1;
    PetscCall(TestEventCount("AFSAIPattern", &p0));
    PetscCall(SolveAndPrint(A, b, prefixes[k], NULL));
    PetscCall(TestEventCount("AFSAIPattern", &p1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  afsai set up on %" PetscInt_FMT " levels\n", p1 - p0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The split preconditioner G A G^T (-ksp_pc_side symmetric): PCApplySymmetricLeft() multiplies by G, PCApplySymmetricRight()
   by G^T, so the two in turn must be PCApply() bit for bit; then GMRES with the split preconditioner against GMRES with
   afsai on the left.
*/
static PetscErrorCode CheckSplit(Mat A, Vec b)
{
  PC                 pc;
  Vec                l, r, y;
  PetscBool          same;
  PetscInt           its;
  KSPConvergedReason reason;
  const char        *prefixes[2] = {"split_", "left_"};

  PetscFunctionBegin;
  PetscCall(AFSAICreate(A, &pc));
  PetscCall(VecDuplicate(b, &l));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(PCApplySymmetricLeft(pc, b, l));
  PetscCall(PCApplySymmetricRight(pc, l, r));
  PetscCall(PCApply(pc, b, y));
  PetscCall(VecEqual(r, y, &same));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCApplySymmetricRight(PCApplySymmetricLeft(b)) equals PCApply(b) bit for bit: %s\n", same ? "yes" : "NO"));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(PCDestroy(&pc));
  PetscCall(PetscOptionsSetValue(NULL, "-split_ksp_pc_side", "symmetric"));
  for (int k = 0; k < 2; k++) {
    char opt[64];
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sksp_type", prefixes[k]));
    PetscCall(PetscOptionsSetValue(NULL, opt, "gmres"));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_type", prefixes[k]));
    PetscCall(PetscOptionsSetValue(NULL, opt, "afsai"));
    PetscCall(Solve(A, b, prefixes[k], &its, &reason, NULL, NULL, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GMRES, afsai %s: %s in %" PetscInt_FMT " iterations\n", k ? "on the left" : "split (G A G^T)", KSPConvergedReasons[reason], its));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_type afsai against -pc_type bjacobi -sub_pc_type afsai: the same preconditioner, residual for residual. */
static PetscErrorCode CompareBJacobi(Mat A, Vec b)
{
  const char        *prefixes[2] = {"afsai_", "bjacobi_"};
  PetscInt           its[2], nh[2];
  PetscReal         *h[2];
  KSPConvergedReason reason;
  PetscBool          same;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-afsai_pc_type", "afsai"));
  PetscCall(PetscOptionsSetValue(NULL, "-bjacobi_pc_type", "bjacobi"));
  PetscCall(PetscOptionsSetValue(NULL, "-bjacobi_sub_pc_type", "afsai"));
  for (int k = 0; k < 2; k++) PetscCall(Solve(A, b, prefixes[k], &its[k], &reason, &h[k], &nh[k], NULL));
  same = (PetscBool)(nh[0] == nh[1]);
  for (PetscInt k = 0; same && k < nh[0]; k++) same = (PetscBool)(h[0][k] == h[1][k]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-pc_type afsai: %" PetscInt_FMT " iterations, bjacobi with afsai blocks: %" PetscInt_FMT "; residual histories bitwise equal: %s\n", its[0], its[1], same ? "yes" : "NO"));
  for (int k = 0; k < 2; k++) PetscCall(PetscFree(h[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -repattern (with -bjacobi): entries new in the off-diagonal blocks only (row N-1 and column 0, and the mirror: on two
   or more ranks no rank's diagonal block changes) under the same KSP. The MPI matrix's pattern changes, each rank's block
   keeps its own: -pc_type afsai must keep G's pattern as bjacobi's afsai blocks do, residual for residual.
*/
static PetscErrorCode CompareBJacobiRepattern(Mat A, Vec b)
{
  const char        *prefixes[2] = {"afsai_", "bjacobi_"};
  PetscInt           its[2], nh[2], N, rstart, rend;
  const PetscReal   *h[2];
  KSP                ksp[2];
  Mat                B[2];
  Vec                x;
  KSPConvergedReason reason;
  PetscBool          same;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(VecDuplicate(b, &x));
  for (int k = 0; k < 2; k++) {
    const PetscInt r = N - 1, c = 0;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B[k]));
    PetscCall(MatSetOption(B[k], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(Solve(B[k], b, prefixes[k], &its[k], &reason, NULL, NULL, &ksp[k]));
    if (r >= rstart && r < rend) { /* a weak coupling, still SPD: the diagonals grow by as much */
      PetscCall(MatSetValue(B[k], r, c, -0.01, ADD_VALUES));
      PetscCall(MatSetValue(B[k], r, r, 0.01, ADD_VALUES));
    }
    if (c >= rstart && c < rend) {
      PetscCall(MatSetValue(B[k], c, r, -0.01, ADD_VALUES));
      PetscCall(MatSetValue(B[k], c, c, 0.01, ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(B[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B[k], MAT_FINAL_ASSEMBLY));
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp[k], b, x));
    PetscCall(KSPGetIterationNumber(ksp[k], &its[k]));
    PetscCall(KSPGetResidualHistory(ksp[k], &h[k], &nh[k]));
  }
  same = (PetscBool)(nh[0] == nh[1]);
  for (PetscInt k = 0; same && k < nh[0]; k++) same = (PetscBool)(h[0][k] == h[1][k]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after a coupling new outside the diagonal blocks: -pc_type afsai %" PetscInt_FMT " iterations, bjacobi with afsai blocks %" PetscInt_FMT "; residual histories bitwise equal: %s\n", its[0], its[1], same ? "yes" : "NO"));
  for (int k = 0; k < 2; k++) {
    PetscCall(KSPDestroy(&ksp[k]));
    PetscCall(MatDestroy(&B[k]));
  }
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         b;
  PetscRandom rnd;
  char        desc[256];
  PetscInt    mono = -1, empty = -1, negrow = -1, nanrow = -1, reuse_steps = -1;
  PetscReal   shift = 0;
  PetscBool   device = PETSC_FALSE, compare = PETSC_FALSE, ref = PETSC_FALSE, cg = PETSC_FALSE, reuse = PETSC_FALSE, gamg = PETSC_FALSE, bjacobi = PETSC_FALSE, split = PETSC_FALSE, jitter = PETSC_FALSE, uneven = PETSC_FALSE, breakdown = PETSC_FALSE, symmetric = PETSC_FALSE, rbm = PETSC_FALSE, repattern = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bind_cpu", &bind, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ref", &ref, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_setup", &compare, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mono", &mono, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cg", &cg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-reuse", &reuse, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reuse_steps", &reuse_steps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bjacobi", &bjacobi, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-repattern", &repattern, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-split", &split, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-jitter", &jitter, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-uneven", &uneven, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-empty_rank", &empty, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-shift", &shift, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-negative_row", &negrow, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nan_row", &nanrow, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-breakdown", &breakdown, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-symmetric", &symmetric, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rbm", &rbm, NULL));
  if (breakdown) {
    PetscCall(BreakdownMatrix(&A));
    PetscCall(PetscSNPrintf(desc, sizeof(desc), "4 x 4, indefinite"));
  } else PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  if (jitter) PetscCall(Jitter(&A));
  if (bind) PetscCall(MatBindToCPU(A, PETSC_TRUE));
  if (shift != 0) PetscCall(MatShift(A, shift));
  if (negrow >= 0) { /* a_rr = -1 */
    PetscInt rstart, rend;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    if (negrow >= rstart && negrow < rend) PetscCall(MatSetValue(A, negrow, negrow, -1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  if (nanrow > 0) { /* the first row whose gradient meets it is nanrow */
    PetscInt rstart, rend;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    if (nanrow >= rstart && nanrow < rend) PetscCall(MatSetValue(A, nanrow, nanrow - 1, (PetscScalar)NAN, INSERT_VALUES));
    if (nanrow - 1 >= rstart && nanrow - 1 < rend) PetscCall(MatSetValue(A, nanrow - 1, nanrow, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  if (uneven || empty >= 0) PetscCall(Redistribute(&A, empty));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s%s%s\n", desc, jitter ? ", jittered" : "", shift != 0 ? ", shifted" : ""));
  if (symmetric || rbm) PetscCall(CheckProblem(A, rbm));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));

  PetscCall(SolveAFSAI(A, b, cg, device));
  if (ref) {
    PC pc;
    PetscCall(AFSAICreate(A, &pc));
    PetscCall(CompareReference(pc, A));
    PetscCall(PCDestroy(&pc));
  }
  if (compare) PetscCall(CompareSetups(A, b));
  if (mono >= 0) PetscCall(CheckMonotone(A, mono));
  if (bjacobi) PetscCall(CompareBJacobi(A, b));
  if (bjacobi && repattern) PetscCall(CompareBJacobiRepattern(A, b));
  if (split) PetscCall(CheckSplit(A, b));
  if (gamg) PetscCall(Gamg(A, b));
  if (reuse) PetscCall(Reuse(A, b, reuse_steps)); /* last: it changes A's values */
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  # the search and the values against a dense implementation of the definitions, several settings
  test:
    suffix: ref
    args: -problem poisson27 -n 5 -jitter -ref -afsai_pc_afsai_steps {{1 4 10}separate output} -afsai_pc_afsai_step_size {{1 3}separate output}
  test: # the search set by PCAFSAISetSearch() after the options (the reference takes PCAFSAIGetSearch()'s settings)
    suffix: api_search
    args: -problem poisson27 -n 5 -jitter -ref -api_search {{4,3,0.01 -2,2,-1}separate output} -afsai_pc_afsai_steps 1 -afsai_pc_afsai_tol 0.5
  test:
    suffix: api_search_range
    args: -problem poisson27 -n 5 -ref -api_search {{2000,1,0.1 4,0,0.1 4,1,1}separate output}
    filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: mono
    args: -problem poisson27 -n 5 -jitter -mono 6 -afsai_pc_afsai_step_size 3
  test: # a matrix type afsai does not take
    suffix: wrongtype
    nsize: 2
    args: -problem poisson7 -n 4 -mat_type sell
    filter: Error: grep -E "supports" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: ref_limits
    args: -problem poisson7 -n 6 -jitter -ref -afsai_pc_afsai_steps 8 -afsai_pc_afsai_step_size 2 -afsai_pc_afsai_max_nnz_row 6 -afsai_pc_afsai_tol 0.95 -afsai_pc_afsai_filter 0.05 -afsai_ksp_view
    filter: grep -v "set-up time"

  # CG iterations against Jacobi; psi never increases with the steps
  test:
    suffix: poisson7
    args: -problem poisson7 -n 12 -cg -mono 5
  test:
    suffix: poisson27
    args: -problem poisson27 -n 10 -cg -mono 3
  test:
    suffix: aniso
    args: -problem anisotropic -n 12 -aniso 0.001 -cg
  test:
    suffix: filter
    args: -problem poisson27 -n 10 -cg -afsai_pc_afsai_filter 0.05
  test: # the split preconditioner G A G^T (-ksp_pc_side symmetric), on one rank and on the diagonal blocks of two
    suffix: split
    nsize: {{1 2}separate output}
    args: -problem poisson7 -n 10 -split
  test: # no structure (-problem random -random_spd, tests/problems.c): rows of 0-6, 28-40 and 200-2700 entries
    suffix: random
    args: -problem random -random_spd -n 12 -random_seed 3 -cg -mono 3
  test:
    suffix: random_ref
    args: -problem random -random_spd -n 5 -random_seed {{3 4}separate output} -ref -afsai_pc_afsai_steps 6 -afsai_pc_afsai_step_size 2
  test:
    suffix: bcsstk16
    args: -problem file -f ${sfpc_dir}/tests/data/bcsstk16.mtx.gz -cg -mono 3
  test:
    suffix: bcsstk26
    args: -problem file -f ${sfpc_dir}/tests/data/bcsstk26.mtx.gz -cg
  test:
    suffix: bcsstk28
    args: -problem file -f ${sfpc_dir}/tests/data/bcsstk28.mtx.gz -cg -afsai_pc_afsai_steps 20

  # the benchmark's SPD problems beyond Poisson: coefficient jumps (checkerboard, harmonic face means) and Q1
  # elasticity (clamped face, rigid body modes as near null space), exactly symmetric, CG with afsai against Jacobi
  test:
    suffix: jumps
    args: -problem jumps -n 12 -jump 1e4 -jump_cubes 3 -symmetric -cg -mono 3
  # against the dense reference: jittered (the symmetric patterns tie in the search, where rounding picks a side)
  test:
    suffix: jumps_ref
    args: -problem jumps -n 5 -jump 100 -jump_cubes 2 -jitter -ref
  test:
    suffix: elasticity_ref
    args: -problem elasticity -n 3 -jitter -ref -afsai_pc_afsai_step_size {{1 3}separate output}
  test:
    suffix: elasticity
    args: -problem elasticity -n 6 -symmetric -rbm -cg -mono 3
  test:
    suffix: elasticity_mpi
    nsize: {{2 3}separate output}
    args: -problem elasticity -n 5 -symmetric -rbm -bjacobi -cg
  test:
    suffix: elasticity_gamg
    args: -problem elasticity -n 6 -gamg

  # new values of the same pattern: the pattern kept, or searched again on request
  test:
    suffix: reuse
    args: -problem poisson7 -n 8 -reuse -afsai_pc_afsai_reuse_pattern {{1 0}separate output}
  test:
    suffix: reuse_steps
    args: -problem poisson7 -n 8 -reuse -reuse_steps 2 -afsai_pc_afsai_max_nnz_row {{-1 11}separate output}

  # not SPD: a negative diagonal, a non-positive psi (diagonal 1, off-diagonals -1), a Cholesky breakdown
  test:
    suffix: notspd
    args: -problem poisson7 -n 4 -shift {{-7 -5}separate output} -afsai_ksp_converged_reason
  test:
    suffix: breakdown
    args: -breakdown -afsai_pc_afsai_tol 0.01 -afsai_ksp_converged_reason
  test:
    suffix: nan
    args: -problem poisson7 -n 4 -nan_row 37 -afsai_ksp_converged_reason
  test:
    suffix: notspd_error
    args: -problem poisson7 -n 4 -shift -7 -afsai_ksp_error_if_not_converged
    filter: Error: grep -E "Floating point|Zero pivot|not SPD" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: nan_error
    args: -problem poisson7 -n 4 -nan_row 37 -afsai_ksp_error_if_not_converged
    filter: Error: grep -E "Floating point|Zero pivot|not SPD" | sed -e "s/^\[0\]PETSC ERROR: //"

  testset:
    args: -problem poisson7 -n 4
    filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badsteps
      args: -afsai_pc_afsai_steps -1
    test:
      suffix: badstepsize
      args: -afsai_pc_afsai_step_size 0
    test:
      suffix: badmaxnnz
      args: -afsai_pc_afsai_max_nnz_row 0
    test:
      suffix: badtol
      args: -afsai_pc_afsai_tol 1
    test:
      suffix: badfilter
      args: -afsai_pc_afsai_filter -0.1
    test:
      suffix: badomega
      args: -afsai_pc_afsai_omega 2
    test:
      suffix: badcapacity
      args: -afsai_pc_afsai_steps 100 -afsai_pc_afsai_step_size 20
  test: # G's slots on one rank beyond 32-bit indices (2^21 rows of up to 1025 entries): refused before the search
    suffix: badrows
    args: -problem poisson7 -n 128 -afsai_pc_afsai_steps 32 -afsai_pc_afsai_step_size 32
    filter: Error: grep -E "Overflow in integer|32-bit indices" | sed -e "s/^\[0\]PETSC ERROR: //"

  # the PC's own Richardson iteration testing the KSP's tolerances, 40 sweeps: the automatic omega (in the view), a smaller
  # weight (slower), and a weight beyond 2 / rho(G^T G A) (diverges)
  test:
    suffix: richardson
    args: -problem poisson7 -n 8 -afsai_ksp_type richardson -afsai_pc_afsai_richardson_test -afsai_ksp_max_it 40 -afsai_ksp_view -afsai_pc_afsai_omega {{-1 0.5 1.9}separate output}
    filter: grep -v "set-up time"

  # a smoother's KSP as PCMG sets it up (no norm, the test skipped, rtol passed on): all 12 steps by default, stopped at
  # rtol 0.5 with -pc_afsai_richardson_test
  test:
    suffix: richardson_smoother
    args: -problem poisson7 -n 8 -afsai_ksp_type richardson -afsai_ksp_norm_type none -afsai_ksp_convergence_test skip -afsai_ksp_rtol 0.5 -afsai_ksp_max_it 12 -afsai_pc_afsai_richardson_test {{0 1}separate output}

  # a GAMG level smoother, under Richardson (automatic omega) and Chebyshev
  test:
    suffix: gamg
    args: -problem poisson7 -n 16 -gamg
  test:
    suffix: gamg_mpi
    nsize: 2
    args: -problem poisson7 -n 12 -gamg

  # aijcusparse: the set-up on the GPU (pattern, values, G and G^T assembled there), the apply on the GPU
  test:
    suffix: gpu_poisson7
    requires: gpu
    args: -problem poisson7 -n 12 -cg -device -mat_type aijcusparse -use_gpu_aware_mpi 0

  # the GPU set-up against the host set-up of the same matrix: the same pattern, values to 1e-13 (bitwise
  # reported), the same CG iterations; on the test problems, the shared SPD matrices and search variants
  testset:
    requires: gpu
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0 -compare_setup
    test:
      suffix: gpu_cmp_poisson7
      args: -problem poisson7 -n 12
    test: # no structure (-problem random -random_spd, tests/problems.c): rows of 0-6, 28-40 and 200-2700 entries
      suffix: gpu_cmp_random
      args: -problem random -random_spd -n 14 -random_seed {{3 4}separate output}
    test:
      suffix: gpu_cmp_aniso
      args: -problem anisotropic -n 12 -aniso 0.001
    test:
      suffix: gpu_cmp_poisson27
      args: -problem poisson27 -n 10
    test:
      suffix: gpu_cmp_bcsstk16
      args: -problem file -f ${sfpc_dir}/tests/data/bcsstk16.mtx.gz
    test:
      suffix: gpu_cmp_bcsstk26
      args: -problem file -f ${sfpc_dir}/tests/data/bcsstk26.mtx.gz
    test:
      suffix: gpu_cmp_bcsstk28
      args: -problem file -f ${sfpc_dir}/tests/data/bcsstk28.mtx.gz -afsai_pc_afsai_steps 20
    test:
      suffix: gpu_cmp_steps
      args: -problem poisson27 -n 8 -jitter -afsai_pc_afsai_steps {{1 4 40}separate output} -afsai_pc_afsai_step_size {{1 3}separate output}
    test:
      suffix: gpu_cmp_limits
      args: -problem poisson7 -n 10 -jitter -afsai_pc_afsai_steps 8 -afsai_pc_afsai_step_size 2 -afsai_pc_afsai_max_nnz_row 6 -afsai_pc_afsai_tol 0.95 -afsai_pc_afsai_filter 0.05
    test:
      suffix: gpu_cmp_permuted
      args: -problem poisson7 -n 10 -permute 1
    test:
      suffix: gpu_cmp_jumps
      args: -problem jumps -n 12 -jump 1e4 -jump_cubes 3
    test:
      suffix: gpu_cmp_elasticity
      args: -problem elasticity -n 6

  # the GPU set-up's failures (the first failing row and its cause, as on the host), new values of the same
  # pattern (values recomputed on the device), afsai as a GAMG smoother on aijcusparse levels, MPI blocks
  testset:
    requires: gpu
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0
    test:
      suffix: gpu_notspd
      args: -problem poisson7 -n 4 -shift {{-7 -5}separate output} -afsai_ksp_converged_reason
    test:
      suffix: gpu_breakdown
      args: -breakdown -afsai_pc_afsai_tol 0.01 -afsai_ksp_converged_reason
    test:
      suffix: gpu_nan
      args: -problem poisson7 -n 4 -nan_row 37 -afsai_ksp_converged_reason
    test: # the PC's Richardson steps as a smoother's and with the test, on the GPU: the host's outputs
      suffix: gpu_richardson_smoother
      args: -problem poisson7 -n 8 -afsai_ksp_type richardson -afsai_ksp_norm_type none -afsai_ksp_convergence_test skip -afsai_ksp_rtol 0.5 -afsai_ksp_max_it 12
      output_file: output/ex8_richardson_smoother_afsai_pc_afsai_richardson_test-0.out
    test:
      suffix: gpu_richardson_smoother_test
      args: -problem poisson7 -n 8 -afsai_ksp_type richardson -afsai_ksp_norm_type none -afsai_ksp_convergence_test skip -afsai_ksp_rtol 0.5 -afsai_ksp_max_it 12 -afsai_pc_afsai_richardson_test
      output_file: output/ex8_richardson_smoother_afsai_pc_afsai_richardson_test-1.out
    test:
      suffix: gpu_reuse
      args: -problem poisson7 -n 8 -reuse -afsai_pc_afsai_reuse_pattern {{1 0}separate output}
    test:
      suffix: gpu_reuse_steps
      output_file: output/ex8_reuse_steps_afsai_pc_afsai_max_nnz_row--1.out
      args: -problem poisson7 -n 8 -reuse -reuse_steps 2
    test:
      suffix: gpu_gamg
      args: -problem poisson7 -n 16 -gamg
    test: # an aijcusparse matrix bound to the CPU (as -pc_gamg_cpu_pin_coarse_grids binds coarse levels): afsai sets up and applies on the host, as sfilu and sfdilu do
      suffix: gpu_bound
      args: -problem poisson7 -n 12 -device -bind_cpu
    test:
      suffix: gpu_mpi_notspd
      nsize: 2
      args: -problem poisson7 -n 4 -negative_row 50 -uneven
    test:
      suffix: gpu_mpi
      nsize: 2
      args: -problem poisson7 -n 9 -uneven -bjacobi -cg
    test: # G and G^T applied apart on the device, as PCApply() applies them
      suffix: gpu_split
      nsize: {{1 2}separate output}
      args: -problem poisson7 -n 10 -split

  # MPI: each rank its diagonal block, as bjacobi with afsai blocks; uneven rows, a rank without rows
  test:
    suffix: mpi
    nsize: {{1 2 3}separate output}
    args: -problem poisson7 -n 9 -uneven -bjacobi -cg
  test: # a coupling new outside every diagonal block keeps G's pattern, as bjacobi's blocks do
    suffix: mpi_repattern
    nsize: {{2 3}separate output}
    args: -problem poisson7 -n 9 -uneven -bjacobi -repattern -cg
  test:
    suffix: mpi_empty_rank
    nsize: 3
    args: -problem poisson27 -n 7 -empty_rank 1 -bjacobi -mono 2
  # the failing row on rank 1 only: every rank fails, and the view names the global row
  test:
    suffix: mpi_notspd
    nsize: 2
    args: -problem poisson7 -n 4 -negative_row 50 -uneven

TEST*/
