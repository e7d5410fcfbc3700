/*
   SFPC's adaptive FSAI (PCAFSAI): M^{-1} = G^T G with G lower triangular, its pattern grown row by
   row along the gradient of the Kaporin number. The host reference of the pattern search and of
   the values works on CSR arrays one row at a time, each row with its own bounded scratch, the
   shape a one-warp-per-row GPU port takes; the PC (afsai.c) stores G and G^T as Mats.
*/
#pragma once

#include <sfpc/private/sfpcimpl.h>

#if defined(__CUDACC__)
  #define AFSAI_HOSTDEVICE __host__ __device__
#else
  #define AFSAI_HOSTDEVICE
#endif

/*
   The per-row arithmetic rules the host reference (afsai_host.c) and the GPU set-up
   (afsai_device.cu) share, so that both find the same pattern and the same values bit for bit.
   Real scalars (the pivot tests compare values). Each dense update is rounded twice, t - l u: the host is built for plain x86-64 (no FMA
   instruction to contract into), the device says so with __dmul_rn/__dsub_rn. Sums run in one
   fixed order on both sides (the callers' comments say which).
*/
static inline AFSAI_HOSTDEVICE PetscScalar AFSAISubMul(PetscScalar t, PetscScalar l, PetscScalar u)
{
#if defined(__CUDA_ARCH__)
  return __dsub_rn(t, __dmul_rn(l, u));
#else
  return t - l * u;
#endif
}

static inline AFSAI_HOSTDEVICE PetscScalar AFSAIAddMul(PetscScalar t, PetscScalar l, PetscScalar u)
{
#if defined(__CUDA_ARCH__)
  return __dadd_rn(t, __dmul_rn(l, u));
#else
  return t + l * u;
#endif
}

static inline AFSAI_HOSTDEVICE int AFSAINonFinite(PetscScalar v)
{
#if defined(__CUDA_ARCH__)
  return !isfinite(v);
#else
  return PetscIsInfOrNanScalar(v);
#endif
}

/* A pivot d of A[P,P] (or psi_i) is taken as non-positive when d <= AFSAI_RELPIVOT times the diagonal entry it started from. */
#define AFSAI_RELPIVOT (100.0 * PETSC_MACHINE_EPSILON)

/* Gradient candidate (a, column ca) is preferred to (b, cb): larger |gradient|, ties to the smaller column. */
static inline AFSAI_HOSTDEVICE int AFSAIBeats(PetscReal a, PetscInt ca, PetscReal b, PetscInt cb)
{
  return a > b || (a == b && ca < cb);
}

/* Why a diagonal entry a_ii fails, or 0 (AFSAI_FAIL_NONE). */
#define AFSAIDiagonalCheck(aii) (AFSAINonFinite(aii) ? AFSAI_FAIL_NONFINITE : ((aii) <= 0 ? AFSAI_FAIL_DIAGONAL : AFSAI_FAIL_NONE))
/* Why a pivot (or psi) d that started from ref fails (cause when non-positive), or AFSAI_FAIL_NONE. */
#define AFSAIPivotCheck(d, ref, cause) (AFSAINonFinite(d) ? AFSAI_FAIL_NONFINITE : ((d) <= AFSAI_RELPIVOT * (ref) ? (cause) : AFSAI_FAIL_NONE))

/* The filter: entry g_j of the unit-diagonal row i is kept when |g_j| sqrt(a_jj / a_ii) >= filter (invariant under symmetric diagonal scaling). */
static inline AFSAI_HOSTDEVICE int AFSAIKeep(PetscScalar g, PetscScalar ajj, PetscScalar aii, PetscReal filter)
{
#if defined(__CUDA_ARCH__)
  return __dmul_rn(fabs(g), sqrt(__ddiv_rn(ajj, aii))) >= filter;
#else
  return PetscAbsScalar(g) * PetscSqrtReal(ajj / aii) >= filter;
#endif
}

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

/* The search's defaults (PCCreate_AFSAI() says why) and the ranges that options and PCAFSAISetSearch() accept. */
#define AFSAI_DEFAULT_STEPS     10
#define AFSAI_DEFAULT_STEP_SIZE 1
#define AFSAI_DEFAULT_TOL       1e-3
#define AFSAI_MAX_STEPS         1024
#define AFSAI_MAX_STEP_SIZE     1024

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
PETSC_INTERN PetscErrorCode AFSAIRowCapacityCheck(const AFSAIParams *, PetscInt, PetscInt64 *);
/* rows r0 .. r1 - 1 of the CSR (pattern rows and failures counted from r0) */
PETSC_INTERN PetscErrorCode AFSAIPattern_Host(const AFSAICSR *, const AFSAIParams *, PetscInt, PetscInt, AFSAIPattern *, AFSAIFail *);
PETSC_INTERN PetscErrorCode AFSAIValues_Host(const AFSAICSR *, const AFSAIPattern *, PetscInt, PetscInt, PetscScalar[], AFSAIFail *);
PETSC_INTERN PetscErrorCode AFSAIPatternDestroy(AFSAIPattern *);

/* Where the set-up of a MATSEQAIJCUSPARSE runs (a host matrix is always set up on the host). */
typedef enum {
  AFSAI_SETUP_HOST,
  AFSAI_SETUP_DEVICE
} AFSAISetupType;
PETSC_INTERN const char *const AFSAISetupTypes[];

/*
   The GPU set-up (afsai_device.cu; refusing stubs in a build without CUDA, afsai_nodevice.c): pattern and values on the
   device of rows r0 .. r1 - 1 of a MATSEQAIJCUSPARSE (failures counted from r0, as on the host); then either G and G^T
   assembled there as MATSEQAIJCUSPARSE (all rows searched), or G's pattern (host) and values (device) for the caller.
*/
typedef struct _n_AFSAIDevice *AFSAIDevice;
PETSC_INTERN PetscErrorCode AFSAIPattern_Device(Mat, const AFSAIParams *, PetscInt, PetscInt, AFSAIDevice *, AFSAIPattern *, AFSAIFail *);
PETSC_INTERN PetscErrorCode AFSAIValues_Device(Mat, AFSAIDevice, AFSAIFail *);
PETSC_INTERN PetscErrorCode AFSAIAssemble_Device(AFSAIDevice, PetscBool, Mat *, Mat *);
PETSC_INTERN PetscErrorCode AFSAIDeviceGetFactor(AFSAIDevice, const PetscInt **, const PetscInt **, const PetscScalar **);
PETSC_INTERN PetscErrorCode AFSAIDeviceNnz(AFSAIDevice, PetscInt *);
PETSC_INTERN PetscErrorCode AFSAIDeviceDestroy(AFSAIDevice *);

typedef struct {
  /* options */
  AFSAIParams p;
  PetscReal   omega;        /* Richardson weight set by the user, or PETSC_DETERMINE: 1 / (safety * power-iteration estimate) */
  PetscBool   reusepattern; /* on SAME_NONZERO_PATTERN keep G's pattern and recompute its values only */
  PetscBool   richtest;     /* PCApplyRichardson() tests the KSP's tolerances (a solve) instead of running its steps (a smoother) */
  SFPCRichardsonNorm richnorm; /* the norm it then tests */
  AFSAISetupType setup;     /* where a MATSEQAIJCUSPARSE is set up */
  PetscInt       gather;    /* MPI: 0, each rank's diagonal block; k > 0, rows within distance k gathered (afsai_gather.c) */

  /* per pattern */
  AFSAIParams  pbuilt; /* the search options G's pattern was found with: other values ask for a new search */
  PetscInt     gbuilt; /* ... and its gather distance */
  SFPCMatStamp blockstamp; /* ... and the block it was searched on (the diagonal block of an MPI matrix): a pattern change outside it keeps G's */
  Mat          A;    /* the sequential matrix G was built from (the diagonal block of an MPI one) */
  PetscInt     n;    /* rows of A */
  AFSAIPattern pat;
  PetscInt    *tmap; /* tmap[k]: where G's k-th value goes in G^T's value array */
  Mat          G, Gt;
  PetscBool    ondevice; /* G and G^T are MATSEQAIJCUSPARSE (gathered: MATMPIAIJCUSPARSE) */
  PetscBool    devsetup; /* ... and were computed on the device: the pattern is in dev, not in pat.gi/gj */
  AFSAIDevice  dev;
  IS           ext;   /* gathered mode: the rows gathered (global numbers, sorted) */
  Mat         *Aext;  /* ... A on them */
  PetscInt     first; /* ... where this rank's rows start in them */

  /* per numeric set-up */
  PetscReal        omegaauto; /* 0 until estimated after a set-up */
  PetscObjectId    omegamat;  /* ... from this operator (pc->mat) */
  PetscObjectState omegastate; /* ... in this state: a new operator or new values of it, without a set-up (pc->mat not pc->pmat), need a new estimate */
  AFSAIFail        fail;
  PCFailedReason   failure;
  PetscInt         failrow; /* global row of the first failure over the PC's ranks */
  AFSAIFailure     failcause;
  Vec              w, xl, yl, r; /* G x; local views of x and y; Richardson's correction */
  Vec              xs, ys;       /* device copies of host vectors given to a GPU G */

  /* statistics over the PC's ranks, and set-up times (largest over them) */
  PetscReal      nrows, nnzG, nnzA, stepsum, nstop[AFSAI_NSTOP];
  PetscInt       stepsmax, nranks;
  PetscLogDouble tpattern, tvalues, ttranspose, tomega; /* ttranspose: G^T on the host, assembly of G and G^T on the device */
} PC_AFSAI;

PETSC_INTERN PetscErrorCode AFSAISetUp_Gather(PC_AFSAI *, Mat, PetscBool, PetscInt *);
