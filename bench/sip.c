static char help[] = "Benchmark: Stone's SIP on the GPU (-pc_type sfilu -pc_sfilu_factorization sip), side by side in one run.\n"
                     "Per SIP iteration and its stages: residual (SpMV + AYPX), 1-norm, forward sweep, backward sweep, whole\n"
                     "apply, and the refactorization with the sync-free and the level-synchronous SIP factorization (and\n"
                     "ILU(0)'s for reference); a whole SIP iteration (Richardson, 1-norm test, -its iterations; with the grid layout also\n"
                     "with the residual fused into the forward sweep, with and without the test). Then time to\n"
                     "solution: GMRES (rtol -rtol) with SIP, with sfilu ILU(0) and with PETSc's ILU on aijcusparse (cuSPARSE),\n"
                     "and the standalone SIP iteration (KSPRICHARDSON's loop, and fused) to a 1-norm reduction of -sip_rtol. Device stages are medians of\n"
                     "-repeat CUDA-event timings after -warmup; set-ups and solves use the wall clock around a device sync.\n"
                     "Options: problem options of tests/problems.c (a 7-point problem: the grid is -n cubed), -case <name>,\n"
                     "-json <file> (append records), -alpha <0.92>, -its <20>, -setups <3>, -solves <2>, -sip_maxit <2000>.\n"
                     "Last, the factorization kernels alone, by PETSc's GPU timers (PetscLogGpuTime()); -factor_only: only the\n"
                     "refactorizations and the kernels alone; -factor_warps <w,...>: also the sync-free SIP kernel with w warps per SM.\n"
                     "The sweeps, the apply and the iteration are timed with the hyb layout and with the grid layout of the\n"
                     "engine's sweeps (-pc_sfilu_layout grid), side by side; the rest runs with the default (auto: grid).\n"
                     "-stages_only: the iteration's stages and the whole iteration only (no refactorizations, no solves).\n";

#include <petscksp.h>
#include <petscdevice_cuda.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateIncrease(): a refactorization of the same values */
#include <sfpc.h>
#include "../tests/problems.h"
#include "timing.h"

typedef struct {
  Mat A;
  Vec x, b, r;
  PC  pc;
} Ctx;

static PetscErrorCode SpMVOp(void *p)
{
  Ctx *c = (Ctx *)p;
  return MatMult(c->A, c->x, c->r);
}

static PetscErrorCode ResidualOp(void *p)
{
  Ctx *c = (Ctx *)p;
  PetscFunctionBegin;
  PetscCall(MatMult(c->A, c->x, c->r));
  PetscCall(VecAYPX(c->r, -1.0, c->b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Norm1Op(void *p)
{
  Ctx      *c = (Ctx *)p;
  PetscReal nrm;
  return VecNorm(c->r, NORM_1, &nrm);
}

static PetscErrorCode ApplyOp(void *p)
{
  Ctx *c = (Ctx *)p;
  return PCApply(c->pc, c->b, c->x);
}

/* A refactorization: same values, a new matrix state (PCSetUp() then factors again, pattern kept). */
static PetscErrorCode RefactorOp(void *p)
{
  Ctx *c = (Ctx *)p;
  PetscFunctionBegin;
  PetscCall(PetscObjectStateIncrease((PetscObject)c->A));
  PetscCall(PCSetUp(c->pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolveOp(void *p)
{
  Ctx *c = (Ctx *)p;
  return MatSolve(c->A, c->b, c->x); /* A: a MATHYBSF triangle here */
}

/* A KSP with prefix pre whose options come from opts ("-name value ..."; set under the prefix). */
static PetscErrorCode MakeKSP(Mat A, const char *pre, const char *opts, KSP *ksp)
{
  char buf[1024], *tok, *save = NULL;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(buf, opts, sizeof(buf)));
  for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char  name[256];
    char *val = NULL;
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", pre, tok + 1));
    if (save && *save && *save != '-') val = strtok_r(NULL, " ", &save);
    PetscCall(PetscOptionsSetValue(NULL, name, val));
  }
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, pre));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  const char *name, *pre, *opts;
  PetscBool   norm1; /* stop on the residual 1-norm (SIP iteration) */
  double      setup, solve;
  PetscInt    its;
  KSPConvergedReason reason;
} Method;

/* Set-up from scratch (median of setups, a new KSP each), then solves from a zero guess (median of solves, after one warm-up). */
static PetscErrorCode TimeMethod(Mat A, Vec b, Vec x, Method *m, int setups, int solves)
{
  double *t;
  KSP     ksp;
  PC      pc;
  int     nt = PetscMax(setups, solves);

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nt, &t));
  for (int r = -1; r < setups; r++) {
    double w0, w1;
    PetscCall(MakeKSP(A, m->pre, m->opts, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(WallNow(&w0));
    PetscCall(PCSetUp(pc));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
    if (r < setups - 1) PetscCall(KSPDestroy(&ksp));
  }
  m->setup = Median(t, setups);
  if (m->norm1) PetscCall(SFPCKSPSetConvergedResidual1Norm(ksp));
  for (int r = -1; r < solves; r++) {
    double w0, w1;
    PetscCall(VecZeroEntries(x));
    PetscCall(WallNow(&w0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
  }
  m->solve = Median(t, solves);
  PetscCall(KSPGetIterationNumber(ksp, &m->its));
  PetscCall(KSPGetConvergedReason(ksp, &m->reason));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per iteration of its Richardson steps (KSP under prefix pre, options opts; norm1: KSPRICHARDSON's loop with the 1-norm test): median of repeat solves after one warm-up. */
static PetscErrorCode TimeIteration(Mat A, Vec b, Vec x, const char *pre, const char *opts, PetscBool norm1, PetscInt its, int repeat, double *t)
{
  KSP     ksp;
  double *w;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(repeat, &w));
  PetscCall(MakeKSP(A, pre, opts, &ksp));
  if (norm1) PetscCall(SFPCKSPSetConvergedResidual1Norm(ksp));
  PetscCall(KSPSetUp(ksp));
  for (int r = -1; r < repeat; r++) {
    double w0, w1;
    PetscInt k;
    PetscCall(VecZeroEntries(x));
    PetscCall(WallNow(&w0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(WallNow(&w1));
    PetscCall(KSPGetIterationNumber(ksp, &k));
    PetscCheck(k == its, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The timed iteration under %s stopped after %" PetscInt_FMT " of %" PetscInt_FMT " steps", pre, k, its);
    if (r >= 0) w[r] = (w1 - w0) / its;
  }
  *t = Median(w, repeat);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscFree(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A, L, U;
  Vec            x, b, r;
  PetscInt       n, N = 16, nnz, warmup = 3, repeat = 20, its = 20, setups = 3, solves = 2, sipmaxit = 2000;
  PetscReal      alpha = 0.92, rtol = 1e-8, siprtol = 1e-6;
  char           casename[128], json[PETSC_MAX_PATH_LEN] = "", grid[64], sipopts[512], buf[1024];
  BenchProvenance pv;
  Ctx            c;
  /* stage times (s) */
  double         spmv = 0, resid = 0, norm1 = 0, apply[2] = {0, 0}, fwd[2] = {0, 0}, bwd[2] = {0, 0}, fac_sf = 0, fac_ls = 0, fac_ilu = 0, ker_sf = 0, ker_ls = 0, ker_ilu = 0, iter[2] = {0, 0}, iterf[2] = {0, 0}, ker_w[16];
  PetscInt       warps[16], nwarps = 16;
  PetscBool      factoronly = PETSC_FALSE, stages_only = PETSC_FALSE;
  const char    *layout[2] = {"hyb", "grid"}; /* the engine's sweeps: levels in slabs, or the grid walk */
  enum { SIP_GMRES, ILU0_GMRES, CUSPARSE_GMRES, SIP_RICHARDSON, SIP_FUSED, NMETHODS };
  Method         m[NMETHODS];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-setups", &setups, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-solves", &solves, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-sip_maxit", &sipmaxit, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-alpha", &alpha, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sip_rtol", &siprtol, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-factor_only", &factoronly, NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-factor_warps", warps, &nwarps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-stages_only", &stages_only, NULL));
  if (stages_only) nwarps = 0;
  PetscCall(BenchProblemCreate(&A, &x, &b, casename, sizeof(casename), &n, &nnz));
  PetscCheck(n == N * N * N, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "SIP needs a stencil problem on an -n cubed grid");
  PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, N, N, N));
  PetscCall(PetscSNPrintf(sipopts, sizeof(sipopts), "-pc_type sfilu -pc_sfilu_factorization sip -pc_sfilu_sip_grid %s -pc_sfilu_sip_alpha %g", grid, (double)alpha));
  PetscCall(VecDuplicate(b, &r));
  c.A = A, c.x = x, c.b = b, c.r = r, c.pc = NULL;

  /* stages of one SIP iteration */
  if (!factoronly) {
    PetscCall(TimeDeviceOp(SpMVOp, &c, (int)warmup, (int)repeat, &spmv));
    PetscCall(TimeDeviceOp(ResidualOp, &c, (int)warmup, (int)repeat, &resid));
    PetscCall(TimeDeviceOp(Norm1Op, &c, (int)warmup, (int)repeat, &norm1));
  }
  {
    const char *variants[] = {"syncfree", "levelsync", NULL};
    double     *fac[]      = {&fac_sf, &fac_ls, &fac_ilu};
    for (int v = 0; v < 3 && !stages_only; v++) {
      KSP ksp;
      PetscCall(PetscSNPrintf(buf, sizeof(buf), v < 2 ? "%s -pc_sfilu_sip_variant %s" : "-pc_type sfilu", sipopts, variants[v]));
      PetscCall(MakeKSP(A, v == 0 ? "sf_" : v == 1 ? "ls_" : "ilu_", buf, &ksp));
      PetscCall(KSPGetPC(ksp, &c.pc));
      PetscCall(PCSetUp(c.pc));
      PetscCall(TimeDeviceOp(RefactorOp, &c, (int)warmup, (int)repeat, fac[v]));
      PetscCall(KSPDestroy(&ksp));
    }
  }
  if (factoronly) goto factorization;
  for (int l = 0; l < 2; l++) {
    KSP  ksp;
    char pre[16];

    /* the apply (L and U sweeps through the PC) */
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s -pc_sfilu_layout %s", sipopts, layout[l]));
    PetscCall(PetscSNPrintf(pre, sizeof(pre), "ap%d_", l));
    PetscCall(MakeKSP(A, pre, buf, &ksp));
    PetscCall(KSPGetPC(ksp, &c.pc));
    PetscCall(PCSetUp(c.pc));
    PetscCall(TimeDeviceOp(ApplyOp, &c, (int)warmup, (int)repeat, &apply[l]));
    PetscCall(KSPDestroy(&ksp));
    /* the sweeps one at a time: the same engine kernels on A's own triangles (the sweeps' cost depends on the pattern, not the values) */
    PetscCall(MatCreateHYBSF(A, MAT_HYBSF_LOWER, PETSC_TRUE, l ? SFPC_LAYOUT_AUTO : SFPC_LAYOUT_HYB, SFPC_LEVELS_AUTO, &L)); /* auto would read the grid */
    PetscCall(MatCreateHYBSF(A, MAT_HYBSF_UPPER, PETSC_FALSE, l ? SFPC_LAYOUT_AUTO : SFPC_LAYOUT_HYB, SFPC_LEVELS_AUTO, &U));
    if (l) {
      PetscCall(MatHYBSFSetGrid(L, N, N, N));
      PetscCall(MatHYBSFSetGrid(U, N, N, N));
    }
    c.A = L;
    PetscCall(TimeDeviceOp(SolveOp, &c, (int)warmup, (int)repeat, &fwd[l]));
    c.A = U;
    PetscCall(TimeDeviceOp(SolveOp, &c, (int)warmup, (int)repeat, &bwd[l]));
    c.A = A;
    PetscCall(MatDestroy(&L));
    PetscCall(MatDestroy(&U));
    /* a whole SIP iteration: its iterations of Richardson with the 1-norm test (rtol 0: never met), KSPRICHARDSON's loop */
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s -pc_sfilu_layout %s -pc_sfilu_richardson_fused 0 -ksp_type richardson -ksp_norm_type none -ksp_rtol 0 -ksp_max_it %" PetscInt_FMT, sipopts, layout[l], its));
    PetscCall(PetscSNPrintf(pre, sizeof(pre), "it%d_", l));
    PetscCall(TimeIteration(A, b, x, pre, buf, PETSC_TRUE, its, (int)repeat, &iter[l]));
    if (l) { /* the grid layout's fused iteration (PCApplyRichardson()): with its 1-norm test (abstol 1e-50: never met), and with none */
      for (int f = 0; f < 2; f++) {
        PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s -pc_sfilu_layout grid -pc_sfilu_richardson_fused 1 -pc_sfilu_richardson_norm 1 -ksp_type richardson -ksp_norm_type none -ksp_rtol 0 -ksp_atol %s -ksp_max_it %" PetscInt_FMT, sipopts, f ? "0" : "1e-50", its));
        PetscCall(PetscSNPrintf(pre, sizeof(pre), "fu%d_", f));
        PetscCall(TimeIteration(A, b, x, pre, buf, PETSC_FALSE, its, (int)repeat, &iterf[f]));
      }
    }
  }
  if (stages_only) goto print;
  /* time to solution (sfilu ILU(0) is given the grid too: both take the grid layout) */
  {
    static char o[5][768];
    PetscCall(PetscSNPrintf(o[0], sizeof(o[0]), "%s -ksp_type gmres -ksp_rtol %g -ksp_max_it 10000", sipopts, (double)rtol));
    PetscCall(PetscSNPrintf(o[1], sizeof(o[1]), "-pc_type sfilu -pc_sfilu_grid %s -ksp_type gmres -ksp_rtol %g -ksp_max_it 10000", grid, (double)rtol));
    PetscCall(PetscSNPrintf(o[2], sizeof(o[2]), "-pc_type ilu -pc_factor_mat_solver_type cusparse -ksp_type gmres -ksp_rtol %g -ksp_max_it 10000", (double)rtol));
    PetscCall(PetscSNPrintf(o[3], sizeof(o[3]), "%s -ksp_type richardson -ksp_norm_type none -ksp_rtol %g -ksp_max_it %" PetscInt_FMT, sipopts, (double)siprtol, sipmaxit));
    m[SIP_GMRES]      = (Method){"gmres+sfilu-sip", "gs_", o[0], PETSC_FALSE, 0, 0, 0, KSP_CONVERGED_ITERATING};
    m[ILU0_GMRES]     = (Method){"gmres+sfilu-ilu0", "gi_", o[1], PETSC_FALSE, 0, 0, 0, KSP_CONVERGED_ITERATING};
    m[CUSPARSE_GMRES] = (Method){"gmres+petsc-ilu-cusparse", "gc_", o[2], PETSC_FALSE, 0, 0, 0, KSP_CONVERGED_ITERATING};
    PetscCall(PetscSNPrintf(o[4], sizeof(o[4]), "%s -pc_sfilu_richardson_fused 1 -pc_sfilu_richardson_norm 1 -ksp_type richardson -ksp_norm_type none -ksp_rtol %g -ksp_max_it %" PetscInt_FMT, sipopts, (double)siprtol, sipmaxit));
    m[SIP_RICHARDSON] = (Method){"sip-iteration-1norm", "rs_", o[3], PETSC_TRUE, 0, 0, 0, KSP_CONVERGED_ITERATING};
    m[SIP_FUSED]      = (Method){"sip-iteration-fused-1norm", "rf_", o[4], PETSC_FALSE, 0, 0, 0, KSP_CONVERGED_ITERATING};
    for (int k = 0; k < NMETHODS; k++) PetscCall(TimeMethod(A, b, x, &m[k], (int)setups, (int)solves));
  }

  /* the factorization kernel(s) alone: PETSc's GPU timers around them (in the SFILUNumeric event); last, since they synchronize */
factorization:
  {
    const char   *variants[] = {"syncfree", "levelsync", NULL};
    double       *fac[]      = {&ker_sf, &ker_ls, &ker_ilu};
    PetscLogEvent ev;

    PetscCall(PetscLogDefaultBegin());
    PetscCall(PetscLogGpuTime());
    PetscCall(PetscLogEventGetId("SFILUNumeric", &ev));
    for (int v = 0; v < 3 + nwarps; v++) { /* then the sync-free SIP kernel with each -factor_warps */
      KSP                ksp;
      PetscEventPerfInfo i0, i1;
      char               pre[32];
      if (v < 3) PetscCall(PetscSNPrintf(buf, sizeof(buf), v < 2 ? "%s -pc_sfilu_sip_variant %s" : "-pc_type sfilu", sipopts, variants[v]));
      else PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s -pc_sfilu_warps_per_sm %" PetscInt_FMT, sipopts, warps[v - 3]));
      PetscCall(PetscSNPrintf(pre, sizeof(pre), "%s", v == 0 ? "sf_" : v == 1 ? "ls_" : v == 2 ? "ilu_" : "w_"));
      if (v >= 3) PetscCall(PetscSNPrintf(pre, sizeof(pre), "w%d_", v - 3));
      PetscCall(MakeKSP(A, pre, buf, &ksp));
      PetscCall(KSPGetPC(ksp, &c.pc));
      PetscCall(PCSetUp(c.pc));
      PetscCall(RefactorOp(&c)); /* warm-up */
      PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &i0));
      for (int k = 0; k < repeat; k++) PetscCall(RefactorOp(&c));
      PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &i1));
      *(v < 3 ? fac[v] : &ker_w[v - 3]) = (i1.GpuTime - i0.GpuTime) / PetscMax(i1.count - i0.count, 1);
      PetscCall(KSPDestroy(&ksp));
    }
  }

print:
  PetscCall(BenchProvenanceGet(argc, argv, &pv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %" PetscInt_FMT " hyperplanes, %s, alpha %g\n", casename, n, nnz, 3 * N - 2, pv.gpu, (double)alpha));
  if (!factoronly) {
    for (int l = 0; l < 2; l++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-4s layout: SIP iteration %.4f ms = residual %.4f + 1-norm %.4f + forward %.4f + backward %.4f (apply %.4f) + update; SpMV %.4f ms\n", layout[l], 1e3 * iter[l], 1e3 * resid, 1e3 * norm1, 1e3 * fwd[l], 1e3 * bwd[l], 1e3 * apply[l], 1e3 * spmv));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  grid layout, residual fused into the forward sweep: SIP iteration %.4f ms with the 1-norm test, %.4f ms without (unfused / fused with the test: %.2f)\n", 1e3 * iterf[0], 1e3 * iterf[1], iter[1] / iterf[0]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  hyb / grid: iteration %.2f, forward %.2f, backward %.2f, apply %.2f\n", iter[0] / iter[1], fwd[0] / fwd[1], bwd[0] / bwd[1], apply[0] / apply[1]));
  }
  if (stages_only) goto json;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  refactorization: SIP sync-free %.4f ms, SIP level-synchronous %.4f ms (%.2fx), ILU(0) sync-free %.4f ms\n", 1e3 * fac_sf, 1e3 * fac_ls, fac_ls / fac_sf, 1e3 * fac_ilu));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  factorization kernel(s) alone: SIP sync-free %.4f ms, SIP level-synchronous %.4f ms (%.2fx), ILU(0) sync-free %.4f ms\n", 1e3 * ker_sf, 1e3 * ker_ls, ker_ls / ker_sf, 1e3 * ker_ilu));
  for (PetscInt k = 0; k < nwarps; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  SIP sync-free kernel with %" PetscInt_FMT " warps per SM: %.4f ms (level-synchronous / it: %.2fx)\n", warps[k], 1e3 * ker_w[k], ker_ls / ker_w[k]));
  if (factoronly) goto json;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-26s %10s %10s %10s %6s %s\n", "time to solution", "setup ms", "solve ms", "total ms", "its", "reason"));
  for (int k = 0; k < NMETHODS; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-26s %10.2f %10.2f %10.2f %6" PetscInt_FMT " %s\n", m[k].name, 1e3 * m[k].setup, 1e3 * m[k].solve, 1e3 * (m[k].setup + m[k].solve), m[k].its, KSPConvergedReasons[m[k].reason]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  total-time ratios, baseline / gmres+sfilu-sip: sfilu-ilu0 %.2f, petsc-ilu-cusparse %.2f, sip-iteration %.2f, sip-iteration-fused %.2f\n", (m[ILU0_GMRES].setup + m[ILU0_GMRES].solve) / (m[SIP_GMRES].setup + m[SIP_GMRES].solve), (m[CUSPARSE_GMRES].setup + m[CUSPARSE_GMRES].solve) / (m[SIP_GMRES].setup + m[SIP_GMRES].solve), (m[SIP_RICHARDSON].setup + m[SIP_RICHARDSON].solve) / (m[SIP_GMRES].setup + m[SIP_GMRES].solve), (m[SIP_FUSED].setup + m[SIP_FUSED].solve) / (m[SIP_GMRES].setup + m[SIP_GMRES].solve)));
json:
  if (json[0]) {
    FILE       *f;
    const char *stage[] = {"sip_iteration_s", "residual_s", "norm1_s", "forward_s", "backward_s", "apply_s", "spmv_s", "sip_iteration_grid_s", "forward_grid_s", "backward_grid_s", "apply_grid_s", "sip_iteration_grid_fused_1norm_s", "sip_iteration_grid_fused_s", "refactor_sip_syncfree_s", "refactor_sip_levelsync_s", "refactor_ilu0_s", "factor_kernel_sip_syncfree_s", "factor_kernel_sip_levelsync_s", "factor_kernel_ilu0_s"};
    double      sv[]    = {iter[0], resid, norm1, fwd[0], bwd[0], apply[0], spmv, iter[1], fwd[1], bwd[1], apply[1], iterf[0], iterf[1], fac_sf, fac_ls, fac_ilu, ker_sf, ker_ls, ker_ilu};
    const size_t nsv    = stages_only ? 13 : sizeof(sv) / sizeof(sv[0]);
    const char *common  = "\"benchmark\": \"sip\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"alpha\": %g, \"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"";

    PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
    for (size_t k = factoronly ? 13 : 0; k < nsv; k++) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"metric\": \"%s\", \"value\": %.6e, ", stage[k], sv[k]));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, common, casename, n, nnz, (double)alpha, pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "}\n"));
    }
    for (PetscInt k = 0; k < nwarps; k++) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"metric\": \"factor_kernel_sip_syncfree_s\", \"warps_per_sm\": %" PetscInt_FMT ", \"value\": %.6e, ", warps[k], ker_w[k]));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, common, casename, n, nnz, (double)alpha, pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "}\n"));
    }
    for (int k = 0; !factoronly && !stages_only && k < NMETHODS; k++) {
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"metric\": \"time_to_solution\", \"method\": \"%s\", \"setup_s\": %.6e, \"solve_s\": %.6e, \"its\": %" PetscInt_FMT ", \"reason\": \"%s\", ", m[k].name, m[k].setup, m[k].solve, m[k].its, KSPConvergedReasons[m[k].reason]));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, common, casename, n, nnz, (double)alpha, pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "}\n"));
    }
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
