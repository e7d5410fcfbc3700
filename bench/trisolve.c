static char help[] = "Benchmark: SFPC's MATHYBSF sync-free triangular solves against cuSPARSE SpSV, side by side in one\n"
                     "run on one GPU, with one SpMV of the same triangle as the yardstick.\n"
                     "The triangles are exactly the patterns of A's ILU(0) factors: L = lower triangle of A with a unit\n"
                     "diagonal (stored diagonal ignored), U = upper triangle of A with its diagonal (non-unit).\n"
                     "Per triangle: cuSPARSE SpSV on A's own device CSR (fill mode and diagonal type attributes; it reads\n"
                     "only that triangle), MatCreateHYBSF() with layout csr|hyb x levels asap|alap and auto/auto, and\n"
                     "MatMult() of the triangle stored as its own aijcusparse matrix. Analysis = building the solver from\n"
                     "A (cuSPARSE: descriptors, buffer size, buffer cudaMalloc, SpSV_analysis; SFPC: MatCreateHYBSF()),\n"
                     "wall clock around a device synchronization, median of -arepeat after -awarmup; solve = one\n"
                     "triangular solve (cusparseSpSV_solve or MatSolve()), CUDA events, median of -repeat after -warmup.\n"
                     "Every SFPC solution is compared with cuSPARSE's (relative 2-norm difference, error above 1e-8), and\n"
                     "every solution's normwise backward error is checked against the triangle stored for the SpMV.\n"
                     "Values: by default each row of A is rescaled (off-diagonal |a_ij| summing to 1/2, diagonal\n"
                     "1 + |a_ii|/(|a_ii| + sum_j |a_ij|), in [1,2]) so that the solves can neither overflow nor lose\n"
                     "accuracy: A's own unit-lower triangle grows like 3^(i+j+k) on a 7-point stencil and overflows on\n"
                     "large grids. Patterns, hence times, are A's. -rescale 0 keeps A's values.\n"
                     "Options: problem options of tests/problems.c, -case <name>, -json <file> (append one record per\n"
                     "triangle and method), -warmup <3> -repeat <20> (solves), -awarmup <1> -arepeat <3> (analyses),\n"
                     "-rescale <1>, -mempool_keep (the default CUDA memory pool keeps freed memory: an experiment on\n"
                     "the cost of stream-ordered allocations).\n";

#include <petscmat.h>
#include <petscdevice_cuda.h>
#include <sfpc.h>
#include <time.h>
#include "../tests/problems.h"
#include "timing.h"

#define NVARIANTS 5
/* The SFPC variants: every layout x levels pair, then what auto picks. */
static const struct {
  const char *name;
  SFPCLayout  layout;
  SFPCLevels  levels;
} Variants[NVARIANTS] = {
  {"sfpc-csr-asap", SFPC_LAYOUT_CSR,  SFPC_LEVELS_ASAP},
  {"sfpc-csr-alap", SFPC_LAYOUT_CSR,  SFPC_LEVELS_ALAP},
  {"sfpc-hyb-asap", SFPC_LAYOUT_HYB,  SFPC_LEVELS_ASAP},
  {"sfpc-hyb-alap", SFPC_LAYOUT_HYB,  SFPC_LEVELS_ALAP},
  {"sfpc-auto",     SFPC_LAYOUT_AUTO, SFPC_LEVELS_AUTO}
};
/* What one method measured on one triangle (times in seconds). */
typedef struct {
  const char  *name;
  PetscBool    sfpc;
  SFPCLayout   layout; /* requested */
  SFPCLevels   levels;
  MatHYBSFInfo info;   /* SFPC only: what it built */
  double       analysis, solve;
  double       relerr; /* ||x - x_cusparse|| / ||x_cusparse||, 2-norms; 0 for cuSPARSE itself */
  double       berr;   /* ||T x - b||_inf / (||T||_inf ||x||_inf + ||b||_inf) */
} Method;

/* y = M x or x = M^{-1} b, as a DeviceOp */
typedef struct {
  Mat M;
  Vec in, out;
} MatOpCtx;

static PetscErrorCode MultOp(void *ctx)
{
  MatOpCtx *c = (MatOpCtx *)ctx;
  return MatMult(c->M, c->in, c->out);
}

static PetscErrorCode SolveOp(void *ctx)
{
  MatOpCtx *c = (MatOpCtx *)ctx;
  return MatSolve(c->M, c->in, c->out);
}

/* cuSPARSE SpSV on one triangle of A's device CSR, with PETSc's vectors' device arrays. */
typedef struct {
  cusparseHandle_t     handle;
  cusparseFillMode_t   fill;
  cusparseDiagType_t   diag;
  PetscInt             n, nnz;
  const PetscInt      *ai, *aj; /* A's device CSR */
  const PetscScalar   *aa;
  cusparseDnVecDescr_t vb, vx;
  cusparseSpMatDescr_t mat;
  cusparseSpSVDescr_t  spsv;
  void                *buf;
} SpSV;

/* Everything a cuSPARSE user does before the first solve of a new matrix; this is what "analysis" times.
   The matrix descriptor is created here too (host only, microseconds) because it carries the triangle. */
static PetscErrorCode SpSVSetUp(SpSV *s)
{
  const double one = 1.0;
  size_t       size;

  PetscFunctionBegin;
  /* cuSPARSE takes non-const pointers here; SpSV never writes A */
  PetscCallCUSPARSE(cusparseCreateCsr(&s->mat, s->n, s->n, s->nnz, (void *)s->ai, (void *)s->aj, (void *)s->aa, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  PetscCallCUSPARSE(cusparseSpMatSetAttribute(s->mat, CUSPARSE_SPMAT_FILL_MODE, &s->fill, sizeof(s->fill)));
  PetscCallCUSPARSE(cusparseSpMatSetAttribute(s->mat, CUSPARSE_SPMAT_DIAG_TYPE, &s->diag, sizeof(s->diag)));
  PetscCallCUSPARSE(cusparseSpSV_createDescr(&s->spsv));
  PetscCallCUSPARSE(cusparseSpSV_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat, s->vb, s->vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv, &size));
  PetscCallCUDA(cudaMalloc(&s->buf, PetscMax(size, 1)));
  PetscCallCUSPARSE(cusparseSpSV_analysis(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat, s->vb, s->vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv, s->buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SpSVReset(SpSV *s)
{
  PetscFunctionBegin;
  PetscCallCUSPARSE(cusparseSpSV_destroyDescr(s->spsv));
  PetscCallCUSPARSE(cusparseDestroySpMat(s->mat));
  PetscCallCUDA(cudaFree(s->buf));
  s->spsv = NULL;
  s->mat  = NULL;
  s->buf  = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SpSVSolveOp(void *ctx)
{
  SpSV        *s   = (SpSV *)ctx;
  const double one = 1.0;

  PetscFunctionBegin;
  PetscCallCUSPARSE(cusparseSpSV_solve(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, s->mat, s->vb, s->vx, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, s->spsv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rescales each row of A on the host (see the help text) and checks that every row has its diagonal
   entry: U's solve divides by it, and SpSV would silently treat a missing one as zero. */
static PetscErrorCode PrepareMatrix(Mat A, PetscBool rescale)
{
  const PetscInt *ai, *aj;
  PetscInt        n;
  PetscScalar    *aa;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArray(A, &aa)); /* first: brings the values to the host if the device has newer ones */
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the CSR of A");
  for (PetscInt i = 0; i < n; i++) {
    PetscInt  d = -1;
    PetscReal s = 0, ad;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      if (aj[k] == i) d = k;
      else s += PetscAbsScalar(aa[k]);
    }
    PetscCheck(d >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Row %" PetscInt_FMT " has no diagonal entry: U would be singular", i);
    if (!rescale) continue;
    ad = PetscAbsScalar(aa[d]);
    if (s > 0)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) aa[k] *= 0.5 / s;
    aa[d] = ad + s > 0 ? 1.0 + ad / (ad + s) : 1.0;
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(MatSeqAIJRestoreArray(A, &aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The triangle as its own aijcusparse matrix, diagonal stored (1 for the unit L), for the SpMV yardstick
   and the backward-error check. Built from A's host copy: this is the benchmark's reference, not a
   solver, so it should not share code paths with what it checks. offdiag: its off-diagonal entries. */
static PetscErrorCode TriangleCreate(Mat A, MatHYBSFTriangle tri, Mat *T, PetscInt *offdiag)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n, *ti, *tj, nz = 0;
  PetscScalar       *tv;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cannot read the CSR of A");
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) nz += tri == MAT_HYBSF_LOWER ? aj[k] <= i : aj[k] >= i;
  PetscCall(PetscMalloc3(n + 1, &ti, nz, &tj, nz, &tv));
  ti[0] = 0;
  for (PetscInt i = 0, p = 0; i < n; i++) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      if (tri == MAT_HYBSF_LOWER ? aj[k] > i : aj[k] < i) continue;
      tj[p]   = aj[k];
      tv[p++] = (tri == MAT_HYBSF_LOWER && aj[k] == i) ? 1.0 : aa[k];
    }
    ti[i + 1] = p;
  }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ai, &aj, &done)); /* NULL: it would zero n */
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatCreate(PETSC_COMM_SELF, T));
  PetscCall(MatSetSizes(*T, n, n, n, n));
  PetscCall(MatSetType(*T, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*T, ti, tj, tv));
  PetscCall(MatConvert(*T, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, T));
  *offdiag = nz - n;
  PetscCall(PetscFree3(ti, tj, tv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Normwise backward error of x for T x = b (r is work), and ||x - xref||_2 / ||xref||_2 when xref is given. */
static PetscErrorCode CheckSolution(Mat T, PetscReal normT, Vec b, Vec x, Vec xref, Vec r, double *berr, double *relerr)
{
  PetscReal nr, nx, nb, nd, nref;

  PetscFunctionBegin;
  PetscCall(MatMult(T, x, r));
  PetscCall(VecAXPY(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_INFINITY, &nr));
  PetscCall(VecNorm(x, NORM_INFINITY, &nx));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *berr   = nr / (normT * nx + nb);
  *relerr = 0;
  if (xref) {
    PetscCall(VecWAXPY(r, -1.0, xref, x));
    PetscCall(VecNorm(r, NORM_2, &nd));
    PetscCall(VecNorm(xref, NORM_2, &nref));
    *relerr = nd / nref;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Run-wide facts every record repeats, so each line of the JSON file stands alone. */
typedef struct {
  char      casename[256], gpu[256], cmd[4096], date[64];
  PetscInt  n, nnz, warmup, repeat, awarmup, arepeat;
  int       cudart, cusparse;
  PetscBool rescale;
} RunInfo;

static PetscErrorCode WriteRecord(FILE *f, const RunInfo *ri, MatHYBSFTriangle tri, PetscInt offdiag, double spmv, const Method *base, const Method *m)
{
  const double a10b = base->analysis + 10 * base->solve, a100b = base->analysis + 100 * base->solve;
  char         rec[8192], extra[1024] = "";

  PetscFunctionBegin;
  if (m->sfpc)
    PetscCall(PetscSNPrintf(extra, sizeof(extra), "\"requested_layout\": \"%s\", \"requested_levels\": \"%s\", \"layout\": \"%s\", \"levels\": \"%s\", \"nlevels\": %" PetscInt_FMT ", \"ntasks\": %" PetscInt_FMT ", \"block_size\": %" PetscInt_FMT ", \"stored_offdiag\": %" PetscInt_FMT ", \"bytes\": %.0f, \"csr_bytes\": %.0f, ", SFPCLayouts[m->layout], SFPCLevelsTypes[m->levels], SFPCLayouts[m->info.layout], SFPCLevelsTypes[m->info.levels], m->info.nlevels, m->info.ntasks, m->info.block_size, m->info.nnz, (double)m->info.bytes, (double)m->info.csr_bytes));
  else PetscCall(PetscSNPrintf(extra, sizeof(extra), "\"requested_layout\": null, \"requested_levels\": null, \"layout\": null, \"levels\": null, \"nlevels\": null, \"ntasks\": null, \"block_size\": null, \"stored_offdiag\": null, \"bytes\": null, \"csr_bytes\": null, "));
  PetscCall(PetscSNPrintf(rec, sizeof(rec),
                          "{\"benchmark\": \"trisolve\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"offdiag_per_row_A\": %.4f, "
                          "\"triangle\": \"%s\", \"unit_diagonal\": %s, \"tri_nnz\": %" PetscInt_FMT ", \"tri_offdiag_per_row\": %.4f, \"method\": \"%s\", %s"
                          "\"analysis_ms\": %.6e, \"solve_ms\": %.6e, \"spmv_ms\": %.6e, \"cusparse_analysis_ms\": %.6e, \"cusparse_solve_ms\": %.6e, "
                          "\"speedup_solve\": %.4f, \"speedup_a10\": %.4f, \"speedup_a100\": %.4f, \"solve_over_spmv\": %.4f, "
                          "\"relerr\": %.3e, \"backward_error\": %.3e, \"correct\": %s, \"rescaled\": %s, "
                          "\"warmup\": %" PetscInt_FMT ", \"repeat\": %" PetscInt_FMT ", \"awarmup\": %" PetscInt_FMT ", \"arepeat\": %" PetscInt_FMT ", "
                          "\"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"cusparse\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n",
                          ri->casename, ri->n, ri->nnz, (double)(ri->nnz - ri->n) / ri->n, tri == MAT_HYBSF_LOWER ? "L" : "U", tri == MAT_HYBSF_LOWER ? "true" : "false", offdiag + ri->n, (double)offdiag / ri->n, m->name, extra,
                          1e3 * m->analysis, 1e3 * m->solve, 1e3 * spmv, 1e3 * base->analysis, 1e3 * base->solve,
                          base->solve / m->solve, a10b / (m->analysis + 10 * m->solve), a100b / (m->analysis + 100 * m->solve), m->solve / spmv,
                          m->relerr, m->berr, (m->relerr <= 1e-8 && m->berr <= 1e-8) ? "true" : "false", ri->rescale ? "true" : "false",
                          ri->warmup, ri->repeat, ri->awarmup, ri->arepeat, ri->gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, ri->cudart, ri->cusparse, ri->cmd, ri->date));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, f, "%s", rec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Measures every method on one triangle of A; m[0] is cuSPARSE, m[1..] the SFPC variants. */
static PetscErrorCode BenchTriangle(Mat A, MatHYBSFTriangle tri, Vec b, cusparseHandle_t handle, const RunInfo *ri, Method m[], double *spmv, PetscInt *offdiag, Mat *Tm)
{
  const PetscBool unit = tri == MAT_HYBSF_LOWER ? PETSC_TRUE : PETSC_FALSE;
  const int       warmup = (int)ri->warmup, repeat = (int)ri->repeat, awarmup = (int)ri->awarmup, arepeat = (int)ri->arepeat;
  PetscReal       normT;
  Vec             xc, xs, r;
  double         *t;
  MatOpCtx        op;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(arepeat, &t));
  PetscCall(VecDuplicate(b, &xc));
  PetscCall(VecDuplicate(b, &xs));
  PetscCall(VecDuplicate(b, &r));

  /* the yardstick: one SpMV with the same triangle (diagonal included) */
  PetscCall(TriangleCreate(A, tri, Tm, offdiag));
  PetscCall(MatNorm(*Tm, NORM_INFINITY, &normT));
  op.M   = *Tm;
  op.in  = b;
  op.out = r;
  PetscCall(TimeDeviceOp(MultOp, &op, warmup, repeat, spmv));

  /* cuSPARSE SpSV on A's device CSR, as PETSc's own ILU(0) solve does on its factor */
  {
    SpSV         s = {0};
    PetscScalar *xd;

    s.handle = handle;
    s.fill   = tri == MAT_HYBSF_LOWER ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    s.diag   = unit ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    PetscCall(MatGetSize(A, &s.n, NULL));
    s.nnz = ri->nnz;
    /* the device CSR is made current here, before any timing */
    PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &s.ai, &s.aj));
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &s.aa));
    /* b and xc's device arrays are held for the whole cuSPARSE section: PETSc does not touch them meanwhile */
    {
      const PetscScalar *bd;

      PetscCall(VecCUDAGetArrayRead(b, &bd));
      PetscCall(VecCUDAGetArrayWrite(xc, &xd));
      PetscCallCUSPARSE(cusparseCreateDnVec(&s.vb, s.n, (void *)bd, CUDA_R_64F));
      PetscCallCUSPARSE(cusparseCreateDnVec(&s.vx, s.n, xd, CUDA_R_64F));
      for (int k = -awarmup; k < arepeat; k++) {
        double w0, w1;

        PetscCall(WallNow(&w0));
        PetscCall(SpSVSetUp(&s));
        PetscCall(WallNow(&w1));
        if (k >= 0) t[k] = w1 - w0;
        if (k < arepeat - 1) PetscCall(SpSVReset(&s)); /* the last one is kept for the solves */
      }
      m[0].analysis = Median(t, arepeat);
      PetscCall(TimeDeviceOp(SpSVSolveOp, &s, warmup, repeat, &m[0].solve));
      PetscCall(SpSVReset(&s));
      PetscCallCUSPARSE(cusparseDestroyDnVec(s.vb));
      PetscCallCUSPARSE(cusparseDestroyDnVec(s.vx));
      PetscCall(VecCUDARestoreArrayWrite(xc, &xd));
      PetscCall(VecCUDARestoreArrayRead(b, &bd));
    }
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &s.aa));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &s.ai, &s.aj));
    PetscCall(CheckSolution(*Tm, normT, b, xc, NULL, r, &m[0].berr, &m[0].relerr));
  }

  /* SFPC: one MATHYBSF per variant; each gets its own warm-up creation (CUDA loads kernels lazily, on
     their first launch, and each layout has its own) */
  for (int v = 1; v <= NVARIANTS; v++) {
    Mat T = NULL;

    for (int k = -awarmup; k < arepeat; k++) {
      double w0, w1;
      Mat    M;

      PetscCall(WallNow(&w0));
      PetscCall(MatCreateHYBSF(A, tri, unit, m[v].layout, m[v].levels, &M));
      PetscCall(WallNow(&w1));
      if (k >= 0) t[k] = w1 - w0;
      if (k < arepeat - 1) PetscCall(MatDestroy(&M));
      else T = M;
    }
    m[v].analysis = Median(t, arepeat);
    PetscCall(MatHYBSFGetInfo(T, &m[v].info));
    PetscCheck(m[v].info.ondevice, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatCreateHYBSF() from a MATSEQAIJCUSPARSE matrix did not build on the GPU");
    PetscCall(VecSet(xs, 0.0)); /* a stale solution must not pass for a new one */
    op.M   = T;
    op.in  = b;
    op.out = xs;
    PetscCall(TimeDeviceOp(SolveOp, &op, warmup, repeat, &m[v].solve));
    PetscCall(CheckSolution(*Tm, normT, b, xs, xc, r, &m[v].berr, &m[v].relerr));
    PetscCall(MatDestroy(&T));
  }
  PetscCall(VecDestroy(&xc));
  PetscCall(VecDestroy(&xs));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat                   A;
  Vec                   b;
  PetscRandom           rnd;
  PetscBool             iscusparse;
  char                  desc[256], json[PETSC_MAX_PATH_LEN] = "", raw[4096] = "";
  RunInfo               ri = {.warmup = 3, .repeat = 20, .awarmup = 1, .arepeat = 3, .rescale = PETSC_TRUE};
  Method                m[2][1 + NVARIANTS];
  double                spmv[2];
  PetscInt              offdiag[2];
  cusparseHandle_t      handle;
  PetscBool             ok = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &ri.warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &ri.repeat, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-awarmup", &ri.awarmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-arepeat", &ri.arepeat, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-rescale", &ri.rescale, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", ri.casename, sizeof(ri.casename), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  { /* -mempool_keep: the device's default memory pool keeps freed memory instead of unmapping it at each synchronization */
    PetscBool keep = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-mempool_keep", &keep, NULL));
    if (keep) {
      cudaMemPool_t pool;
      cuuint64_t    threshold = ~(cuuint64_t)0;
      int           dev;
      PetscCallCUDA(cudaGetDevice(&dev));
      PetscCallCUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
      PetscCallCUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
  }
  PetscCheck(ri.warmup >= 0 && ri.awarmup >= 0 && ri.repeat >= 1 && ri.arepeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-warmup and -awarmup must be >= 0, -repeat and -arepeat >= 1");

  /* the matrix, on the GPU */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "aijcusparse"));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &iscusparse));
  if (!iscusparse) PetscCall(MatConvert(A, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &A));
  PetscCall(PrepareMatrix(A, ri.rescale));
  if (!ri.casename[0]) PetscCall(PetscStrncpy(ri.casename, desc, sizeof(ri.casename)));
  PetscCall(MatGetSize(A, &ri.n, NULL));
  {
    MatInfo info;

    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    ri.nnz = (PetscInt)info.nz_used;
  }

  /* a fixed right-hand side: the same on every run, whatever -random_type says */
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetType(rnd, PETSCRANDER48));
  PetscCall(PetscRandomSetSeed(rnd, 20261122));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PetscRandomDestroy(&rnd));

  /* our own cuSPARSE handle, on the stream PETSc's device work (MatMult, MatSolve) runs on, so CUDA
     events on that stream time all methods alike. PETSc has set the stream by now (vectors and the
     matrix are on the device). */
  {
    const PetscScalar *bd;

    PetscCall(VecCUDAGetArrayRead(b, &bd)); /* puts b, and with it PETSc's device context, on the GPU */
    PetscCall(VecCUDARestoreArrayRead(b, &bd));
  }
  PetscCallCUSPARSE(cusparseCreate(&handle));
  PetscCallCUSPARSE(cusparseSetStream(handle, PetscDefaultCudaStream));
  PetscCallCUSPARSE(cusparseGetVersion(handle, &ri.cusparse));

  {
    BenchProvenance pv;
    PetscCall(BenchProvenanceGet(argc, argv, &pv));
    PetscCall(PetscStrncpy(ri.gpu, pv.gpu, sizeof(ri.gpu)));
    PetscCall(PetscStrncpy(ri.cmd, pv.cmd, sizeof(ri.cmd)));
    PetscCall(PetscStrncpy(ri.date, pv.date, sizeof(ri.date)));
    ri.cudart = pv.cudart;
  }
  JSONEscape(ri.casename, raw, sizeof(raw));
  PetscCall(PetscStrncpy(ri.casename, raw, sizeof(ri.casename)));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros (%.2f off-diagonal per row), %s%s\n", ri.casename, ri.n, ri.nnz, (double)(ri.nnz - ri.n) / ri.n, ri.gpu, ri.rescale ? "" : ", values not rescaled"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-3s %-14s %-9s %5s %8s %11s %10s %8s %8s %8s %10s %9s %9s\n", "tri", "method", "chose", "nlev", "ntasks", "analysis ms", "solve ms", "x solve", "x a+10", "x a+100", "solve/SpMV", "rel.err", "bwd.err"));
  for (int k = 0; k < 2; k++) {
    const MatHYBSFTriangle tri = k ? MAT_HYBSF_UPPER : MAT_HYBSF_LOWER;
    Method                *mk  = m[k];
    Mat                    Tm;
    FILE                  *f = NULL;

    mk[0] = (Method){.name = "cusparse-spsv", .sfpc = PETSC_FALSE};
    for (int v = 0; v < NVARIANTS; v++) mk[v + 1] = (Method){.name = Variants[v].name, .sfpc = PETSC_TRUE, .layout = Variants[v].layout, .levels = Variants[v].levels};
    PetscCall(BenchTriangle(A, tri, b, handle, &ri, mk, &spmv[k], &offdiag[k], &Tm));
    PetscCall(MatDestroy(&Tm));

    if (json[0]) PetscCall(PetscFOpen(PETSC_COMM_SELF, json, "a", &f));
    for (int v = 0; v <= NVARIANTS; v++) {
      const Method *x = &mk[v];
      char          chose[16] = "";

      if (x->sfpc && x->info.block_size > 1) PetscCall(PetscSNPrintf(chose, sizeof(chose), "blocks%" PetscInt_FMT "/%s", x->info.block_size, SFPCLevelsTypes[x->info.levels]));
      else if (x->sfpc) PetscCall(PetscSNPrintf(chose, sizeof(chose), "%s/%s", SFPCLayouts[x->info.layout], SFPCLevelsTypes[x->info.levels]));
      if (x->sfpc)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-3s %-14s %-9s %5" PetscInt_FMT " %8" PetscInt_FMT " %11.3f %10.4f %8.2f %8.2f %8.2f %10.2f %9.2e %9.2e%s\n", k ? "U" : "L", x->name, chose, x->info.nlevels, x->info.ntasks, 1e3 * x->analysis, 1e3 * x->solve, mk[0].solve / x->solve, (mk[0].analysis + 10 * mk[0].solve) / (x->analysis + 10 * x->solve),
                              (mk[0].analysis + 100 * mk[0].solve) / (x->analysis + 100 * x->solve), x->solve / spmv[k], x->relerr, x->berr, x->relerr <= 1e-8 && x->berr <= 1e-8 ? "" : "  WRONG"));
      else
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-3s %-14s %-9s %5s %8s %11.3f %10.4f %8s %8s %8s %10.2f %9s %9.2e%s\n", k ? "U" : "L", x->name, "", "", "", 1e3 * x->analysis, 1e3 * x->solve, "1", "1", "1", x->solve / spmv[k], "-", x->berr, x->berr <= 1e-8 ? "" : "  WRONG"));
      if (f) PetscCall(WriteRecord(f, &ri, tri, offdiag[k], spmv[k], &mk[0], x));
      ok = (PetscBool)(ok && x->relerr <= 1e-8 && x->berr <= 1e-8);
    }
    if (f) PetscCall(PetscFClose(PETSC_COMM_SELF, f));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-3s %-14s SpMV of the triangle (%" PetscInt_FMT " off-diagonal entries): %.4f ms\n", k ? "U" : "L", "", offdiag[k], 1e3 * spmv[k]));
  }
  /* after both triangles are recorded, so a wrong solve still leaves its numbers in the JSON file */
  PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "A solution differs from cuSPARSE's by more than 1e-8 (relative 2-norm) or has a backward error above 1e-8: see the lines marked WRONG");

  PetscCallCUSPARSE(cusparseDestroy(handle));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
