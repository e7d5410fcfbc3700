/*
   SFPC's adaptive FSAI (PCAFSAI): M^{-1} = G^T G with G lower triangular, its pattern grown row by
   row along the gradient of the Kaporin number. The host reference of the pattern search and of
   the values works on CSR arrays one row at a time, each row with its own bounded scratch, the
   shape a one-warp-per-row GPU port takes; the PC (afsai.c) stores G and G^T as Mats.
*/
#pragma once

#include <sfpc/private/sfpcimpl.h>

/* Why the search of a row stopped. */
typedef enum {
  AFSAI_STOP_TOL,       /* psi_k / psi_0 <= tol */
  AFSAI_STOP_STEPS,     /* k_max steps done */
  AFSAI_STOP_NNZ,       /* the row holds max_nnz_row entries */
  AFSAI_STOP_CANDIDATE, /* no position with a nonzero gradient left */
  AFSAI_NSTOP
} AFSAIStop;

/* Why a row failed: A is not SPD (or holds Inf/NaN). */
typedef enum {
  AFSAI_FAIL_NONE,
  AFSAI_FAIL_DIAGONAL,  /* a_ii <= 0, or absent */
  AFSAI_FAIL_CHOLESKY,  /* a non-positive pivot in the Cholesky factor of A[P,P] */
  AFSAI_FAIL_PSI,       /* psi_i = a_ii + A[i,P] g_P not positive (to rounding) */
  AFSAI_FAIL_NONFINITE, /* Inf or NaN */
  AFSAI_NFAIL
} AFSAIFailure;
PETSC_INTERN const char *const AFSAIFailures[];

typedef struct {
  PetscInt  steps;     /* k_max */
  PetscInt  stepsize;  /* s: positions added per step */
  PetscInt  maxnnzrow; /* entries of a row of G, diagonal included; PETSC_DETERMINE: steps * stepsize + 1 */
  PetscReal tol;       /* eps: a row stops when psi_k / psi_0 <= eps */
  PetscReal filter;    /* after the search, drop g_ij with |g_ij| sqrt(a_jj / a_ii) < filter (unit-diagonal row) */
} AFSAIParams;

/* A sequential AIJ matrix's host CSR (columns sorted in each row). */
typedef struct {
  PetscInt           n, maxrow; /* rows, longest row */
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
} AFSAICSR;

/* The first failure of a set-up: its row (local), its cause and the offending value. */
typedef struct {
  AFSAIFailure cause;
  PetscInt     row;
  PetscScalar  value;
} AFSAIFail;

/* The pattern of G (CSR, columns sorted, the diagonal last in each row) and what the search did. */
typedef struct {
  PetscInt *gi, *gj;
  PetscInt  stepsum, stepsmax;
  PetscInt  nstop[AFSAI_NSTOP];
} AFSAIPattern;

PETSC_INTERN PetscErrorCode AFSAIRowCapacity(const AFSAIParams *, PetscInt64 *);
PETSC_INTERN PetscErrorCode AFSAIPattern_Host(const AFSAICSR *, const AFSAIParams *, AFSAIPattern *, AFSAIFail *);
PETSC_INTERN PetscErrorCode AFSAIValues_Host(const AFSAICSR *, const AFSAIPattern *, PetscScalar[], AFSAIFail *);
PETSC_INTERN PetscErrorCode AFSAIPatternDestroy(AFSAIPattern *);

typedef struct {
  /* options */
  AFSAIParams p;
  PetscReal   omega;        /* Richardson weight set by the user, or PETSC_DETERMINE: 1 / (safety * power-iteration estimate) */
  PetscBool   reusepattern; /* on SAME_NONZERO_PATTERN keep G's pattern and recompute its values only */

  /* per pattern */
  Mat          A;    /* the sequential matrix G was built from (the diagonal block of an MPI one) */
  PetscInt     n;    /* rows of A */
  AFSAIPattern pat;
  PetscInt    *tmap; /* tmap[k]: where G's k-th value goes in G^T's value array */
  Mat          G, Gt;
  PetscBool    ondevice; /* G and G^T are MATSEQAIJCUSPARSE */

  /* per numeric set-up */
  PetscReal      omegaauto; /* 0 until estimated after a set-up */
  AFSAIFail      fail;
  PCFailedReason failure;
  PetscInt       failrow; /* global row of the first failure over the PC's ranks */
  AFSAIFailure   failcause;
  Vec            w, xl, yl, r; /* G x; local views of x and y; Richardson's correction */

  /* statistics over the PC's ranks, and set-up times (largest over them) */
  PetscReal      nrows, nnzG, nnzA, stepsum, nstop[AFSAI_NSTOP];
  PetscInt       stepsmax, nranks;
  PetscLogDouble tpattern, tvalues, ttranspose, tomega;
} PC_AFSAI;
