static char help[] = "Benchmark: SFPC's sfilu against PETSc's ILU(0) on aijcusparse (cuSPARSE csrilu02 + SpSV),\n"
                     "side by side in one run on one GPU, with one SpMV of the same matrix as the yardstick.\n"
                     "Times set-up (analysis + numeric factorization), refactorization (numeric only), one apply\n"
                     "(L and U solves), one B A x (PCApplyBAorAB(), left: left-preconditioned GMRES's operator) and a whole KSPSolve to -ksp_rtol (1e-8). Each time is the median of -repeat\n"
                     "runs after -warmup runs; device work is timed with CUDA events, set-ups (which include host\n"
                     "work) with the wall clock around a device synchronization.\n"
                     "Options: problem options of tests/problems.c, -case <name>, -json <file> (append records),\n"
                     "-grid nx,ny,nz (the problem is a 7-point or 27-point stencil on this grid: sfilu also with the grid layout of its\n"
                     "sweeps, -pc_sfilu_layout grid, beside the hyb layout; and once more with -pc_sfilu_grid_factor 0), -apply_only (one set-up, the apply alone),\n"
                     "-solve 0 (no KSPSolve: set-up, refactorization and apply only), -solve_only (one set-up, then the KSPSolve alone),\n"
                     "-solve_ksp <type> (the KSP of the whole solve for every method, default gmres: e.g. cg on the symmetric\n"
                     "problems, bcgs on the nonsymmetric ones; its metric is then kspsolve_<type>_s),\n"
                     "-grid_planes p1,p2,.. and -grid_chunks c1,c2 (with -grid: the grid layout also with these -pc_sfilu_grid_planes and\n"
                     "-pc_sfilu_grid_chunk, every pair, as more methods), -grid_unfused (with -grid: the grid layout also with\n"
                     "-pc_sfilu_ba_fused false, GMRES's B A x as MatMult() and the apply), -eisenstat (sfilu also in Eisenstat's form,\n"
                     "-pc_sfilu_eisenstat, with the grid layout where -grid is given, else hyb: its solve needs no MatMult()), -factor_matches m1,m2,.. (the hyb layout also with these\n"
                     "-pc_sfilu_factor_match, as more methods), -block_sizes b1,b2,.. (the hyb layout also with these -pc_sfilu_block_size,\n"
                     "as more methods), -fill_levels k (ILU(k) in every method: PETSc's then factors on the host,\n"
                     "as its aijcusparse ILU does for k > 0, and solves with cuSPARSE; not with -grid), -icc (PCICC instead: PETSc's ICC on\n"
                     "aijcusparse, cuSPARSE csric02 and SpSV with L and L^T, against PCICC with -pc_factor_mat_solver_type sfilu; no other variant).\n";

#include <petscksp.h>
#include <petscdevice_cuda.h>
#include <sfpc.h>
#include "../tests/problems.h"
#include "timing.h"

typedef struct {
  const char *name;
  PCType      pctype;
  const char *solver; /* MatSolverType, or NULL */
  const char *prefix; /* options prefix of its KSP (sfilu's layout is set under it) */
  double      setup, refactor, apply, solve, ba; /* ba: B A x as left-preconditioned GMRES forms it (PCApplyBAorAB()) */
  PetscInt    its;
  PetscReal   truerel; /* ||b - A x|| / ||b|| after the last solve */
} Method;

/* An operator y = op(x) with its object, for TimeDeviceOp(). */
typedef struct {
  PetscObject obj;
  Vec         x, y, w; /* w: work vector, where the operator needs one */
} Operands;

static PetscErrorCode ApplyOp(void *ctx)
{
  Operands *o = (Operands *)ctx;
  return PCApply((PC)o->obj, o->x, o->y);
}

static PetscErrorCode BAOp(void *ctx)
{
  Operands *o = (Operands *)ctx;
  return PCApplyBAorAB((PC)o->obj, PC_LEFT, o->x, o->y, o->w);
}

static PetscErrorCode SpMVOp(void *ctx)
{
  Operands *o = (Operands *)ctx;
  return MatMult((Mat)o->obj, o->x, o->y);
}
/* The KSP of the whole solve (-solve_ksp), the same for every method. */
static char solve_ksp[64] = KSPGMRES;

static PetscErrorCode MakeKSP(Mat A, const Method *m, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, m->prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, solve_ksp));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, m->pctype));
  if (m->solver) PetscCall(PCFactorSetMatSolverType(pc, m->solver));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeMethod(Mat A, Vec b, Vec x, Method *m, int warmup, int repeat, PetscBool apply_only, PetscBool solve, PetscBool solve_only)
{
  double *t;
  KSP     ksp;
  PC      pc;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(repeat, &t));
  if (apply_only) { /* one set-up, then the apply alone */
    Operands o;
    PetscCall(MakeKSP(A, m, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetUp(pc));
    o = (Operands){(PetscObject)pc, b, x, NULL};
    PetscCall(TimeDeviceOp(ApplyOp, &o, warmup, repeat, &m->apply));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(PetscFree(t));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* set-up from scratch: a new PC each time */
  for (int r = -warmup; !solve_only && r < repeat; r++) {
    double w0, w1;
    PetscCall(MakeKSP(A, m, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(WallNow(&w0));
    PetscCall(PCSetUp(pc));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
    PetscCall(KSPDestroy(&ksp));
  }
  if (!solve_only) m->setup = Median(t, repeat);
  /* refactorization: values change, pattern kept (scaling by 2 and back keeps the problem) */
  PetscCall(MakeKSP(A, m, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetUp(pc));
  for (int r = -warmup; !solve_only && r < repeat; r++) {
    double w0, w1;
    PetscCall(MatScale(A, (r % 2) ? 0.5 : 2.0));
    PetscCall(WallNow(&w0));
    PetscCall(PCSetUp(pc));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
  }
  if (!solve_only) {
    if ((warmup + repeat) % 2) PetscCall(MatScale(A, 0.5));
    PetscCall(PCSetUp(pc));
    m->refactor = Median(t, repeat);
  }
  if (!solve_only) {
    Operands o = {(PetscObject)pc, b, x, NULL};
    PetscCall(TimeDeviceOp(ApplyOp, &o, warmup, repeat, &m->apply));
    PetscCall(VecDuplicate(b, &o.w));
    PetscCall(TimeDeviceOp(BAOp, &o, warmup, repeat, &m->ba));
    PetscCall(VecDestroy(&o.w));
  }
  /* whole solve, from a zero guess, preconditioner already set up */
  for (int r = -PetscMin(warmup, 1); solve && r < PetscMax(repeat / 4, 3); r++) {
    double w0, w1;
    PetscCall(VecZeroEntries(x));
    PetscCall(WallNow(&w0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
  }
  if (solve) {
    Vec       r;
    PetscReal nr, nb;

    m->solve = Median(t, PetscMax(repeat / 4, 3));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    m->truerel = nr / nb;
    PetscCall(VecDestroy(&r));
  }
  PetscCall(KSPGetIterationNumber(ksp, &m->its));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat             A;
  Vec             x, b;
  PetscInt        n, nnz, warmup = 3, repeat = 20, dims[3], nd = 3, levels = 0;
  char            casename[128], json[PETSC_MAX_PATH_LEN] = "", buf[256];
  BenchProvenance pv;
  Method          m[24] = {{"petsc-ilu-cusparse", PCILU, MATSOLVERCUSPARSE, "c_", 0, 0, 0, 0, 0}, {"sfpc-sfilu", "sfilu", NULL, "s_", 0, 0, 0, 0, 0}, {"sfpc-sfilu-grid", "sfilu", NULL, "g_", 0, 0, 0, 0, 0}, {"sfpc-sfilu-grid-generic", "sfilu", NULL, "gg_", 0, 0, 0, 0, 0}};
  int             nm, ngridm; /* methods, and those up to the grid layout's variants */
  PetscInt        planes[5], np = 5, chunks[2] = {4, 0}, nc = 2;
  char            pnames[10][32], pprefix[10][16], *matches[4], mnames[4][32], mprefix[4][8];
  PetscInt        nmatch = 4, bsizes[4], nbs = 4;
  char            bnames[4][32], bprefix[4][8];
  double          spmv = 0;
  PetscBool       grid = PETSC_FALSE, apply_only = PETSC_FALSE, solve = PETSC_TRUE, solve_only = PETSC_FALSE, grid_unfused = PETSC_FALSE, gmres, eisenstat = PETSC_FALSE, icc = PETSC_FALSE;
  char            solve_metric[96];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-grid", dims, &nd, &grid));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-apply_only", &apply_only, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve", &solve, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-solve_only", &solve_only, NULL));
  PetscCheck(!solve_only || (solve && !apply_only), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-solve_only times the KSPSolve alone: not with -solve 0 or -apply_only");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-solve_ksp", solve_ksp, sizeof(solve_ksp), NULL));
  PetscCall(PetscStrcmp(solve_ksp, KSPGMRES, &gmres));
  /* GMRES's solve keeps the metric name of the records before -solve_ksp */
  PetscCall(PetscSNPrintf(solve_metric, sizeof(solve_metric), gmres ? "kspsolve_s" : "kspsolve_%s_s", solve_ksp));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-grid_unfused", &grid_unfused, NULL));
  PetscCheck(!grid_unfused || grid, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-grid_unfused needs -grid nx,ny,nz (it compares the grid layout with and without the fused product)");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-eisenstat", &eisenstat, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fill_levels", &levels, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-icc", &icc, NULL));
  PetscCheck(levels >= 0 && !(levels > 0 && grid), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-fill_levels must be nonnegative, and 0 with -grid (the grid layout sweeps ILU(0)'s pattern)");
  {
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-grid_planes", planes, &np, &set));
    if (!set) np = 0;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-grid_chunks", chunks, &nc, &set));
    if (!set) nc = 1;
    PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-factor_matches", matches, &nmatch, &set));
    if (!set) nmatch = 0;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-block_sizes", bsizes, &nbs, &set));
    if (!set) nbs = 0;
  }
  PetscCall(BenchProblemCreate(&A, &x, &b, casename, sizeof(casename), &n, &nnz));
  if (icc) { /* PCICC with each solver type, the sfilu factor with its default (automatic) layout */
    PetscCheck(!grid && !eisenstat && !grid_unfused && !np && !nmatch && !nbs, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-icc compares PCICC's two solver types only: not with -grid, -eisenstat, -grid_unfused, -grid_planes, -factor_matches or -block_sizes");
    m[0] = (Method){"petsc-icc-cusparse", PCICC, MATSOLVERCUSPARSE, "c_", 0, 0, 0, 0, 0};
    m[1] = (Method){"sfpc-icc-sfilu", PCICC, MATSOLVERSFILU, "s_", 0, 0, 0, 0, 0};
  }
  /* the sfilu methods' layouts: hyb as measured before, and the grid layout where the grid is given */
  if (!icc) PetscCall(PetscOptionsSetValue(NULL, "-s_pc_sfilu_layout", "hyb"));
  if (levels) { /* every method's PC; the variants' prefixes below are given it where they are made */
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "-c_pc_factor_levels %" PetscInt_FMT " -s_pc_%s %" PetscInt_FMT, levels, icc ? "factor_levels" : "sfilu_fill_levels", levels));
    PetscCall(PetscOptionsInsertString(NULL, buf));
  }
  if (grid) {
    PetscCheck(nd == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-grid needs nx,ny,nz");
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, dims[0], dims[1], dims[2]));
    PetscCall(PetscOptionsSetValue(NULL, "-g_pc_sfilu_grid", buf));
    PetscCall(PetscOptionsSetValue(NULL, "-g_pc_sfilu_layout", "grid"));
    /* and with the generic sync-free ILU(0) kernel instead of the hyperplane one (the same factor) */
    PetscCall(PetscOptionsSetValue(NULL, "-gg_pc_sfilu_grid", buf));
    PetscCall(PetscOptionsSetValue(NULL, "-gg_pc_sfilu_layout", "grid"));
    PetscCall(PetscOptionsSetValue(NULL, "-gg_pc_sfilu_grid_factor", "0"));
  }
  nm = grid ? 4 : 2;
  for (PetscInt p = 0; grid && p < np; p++) { /* the grid layout with other planes per block and chunks */
    for (PetscInt c = 0; c < nc; c++) {
      const PetscInt v = p * nc + c;
      PetscCall(PetscSNPrintf(pnames[v], sizeof(pnames[v]), "sfpc-sfilu-grid-p%" PetscInt_FMT "c%" PetscInt_FMT, planes[p], chunks[c]));
      PetscCall(PetscSNPrintf(pprefix[v], sizeof(pprefix[v]), "g%" PetscInt_FMT "c%" PetscInt_FMT "_", planes[p], chunks[c]));
      m[nm] = (Method){pnames[v], "sfilu", NULL, pprefix[v], 0, 0, 0, 0, 0};
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "-%spc_sfilu_grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -%spc_sfilu_layout grid -%spc_sfilu_grid_planes %" PetscInt_FMT " -%spc_sfilu_grid_chunk %" PetscInt_FMT, pprefix[v], dims[0], dims[1], dims[2], pprefix[v], pprefix[v], planes[p], pprefix[v], chunks[c]));
      PetscCall(PetscOptionsInsertString(NULL, buf));
      nm++;
    }
  }
  if (grid && grid_unfused) { /* the grid layout with GMRES's B A x as MatMult() and the apply: the fused product's share of the solve */
    m[nm++] = (Method){"sfpc-sfilu-grid-unfused", "sfilu", NULL, "gu_", 0, 0, 0, 0, 0};
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "-gu_pc_sfilu_grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -gu_pc_sfilu_layout grid -gu_pc_sfilu_ba_fused false", dims[0], dims[1], dims[2]));
    PetscCall(PetscOptionsInsertString(NULL, buf));
  }
  ngridm = nm;
  if (eisenstat) { /* Eisenstat's form: the KSP's operator is two sweeps, no MatMult() */
    m[nm++] = (Method){grid ? "sfpc-sfilu-grid-eisenstat" : "sfpc-sfilu-eisenstat", "sfilu", NULL, "ge_", 0, 0, 0, 0, 0};
    if (grid) PetscCall(PetscSNPrintf(buf, sizeof(buf), "-ge_pc_sfilu_grid %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " -ge_pc_sfilu_layout grid -ge_pc_sfilu_eisenstat", dims[0], dims[1], dims[2]));
    else PetscCall(PetscSNPrintf(buf, sizeof(buf), "-ge_pc_sfilu_layout hyb -ge_pc_sfilu_eisenstat"));
    PetscCall(PetscOptionsInsertString(NULL, buf));
  }
  for (PetscInt v = 0; v < nmatch; v++) { /* the hyb layout with other ways of matching rows in the factorization */
    PetscCall(PetscSNPrintf(mnames[v], sizeof(mnames[v]), "sfpc-sfilu-%s", matches[v]));
    PetscCall(PetscSNPrintf(mprefix[v], sizeof(mprefix[v]), "f%" PetscInt_FMT "_", v));
    m[nm] = (Method){mnames[v], "sfilu", NULL, mprefix[v], 0, 0, 0, 0, 0};
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "-%spc_sfilu_layout hyb -%spc_sfilu_factor_match %s -%spc_sfilu_fill_levels %" PetscInt_FMT, mprefix[v], mprefix[v], matches[v], mprefix[v], levels));
    PetscCall(PetscOptionsInsertString(NULL, buf));
    PetscCall(PetscFree(matches[v]));
    nm++;
  }
  for (PetscInt v = 0; v < nbs; v++) { /* the hyb layout with other point-blocks in the factorization */
    PetscCall(PetscSNPrintf(bnames[v], sizeof(bnames[v]), "sfpc-sfilu-bs%" PetscInt_FMT, bsizes[v]));
    PetscCall(PetscSNPrintf(bprefix[v], sizeof(bprefix[v]), "b%" PetscInt_FMT "_", v));
    m[nm] = (Method){bnames[v], "sfilu", NULL, bprefix[v], 0, 0, 0, 0, 0};
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "-%spc_sfilu_layout hyb -%spc_sfilu_block_size %" PetscInt_FMT " -%spc_sfilu_fill_levels %" PetscInt_FMT, bprefix[v], bprefix[v], bsizes[v], bprefix[v], levels));
    PetscCall(PetscOptionsInsertString(NULL, buf));
    nm++;
  }

  {
    Operands o = {(PetscObject)A, x, b, NULL};
    PetscCall(TimeDeviceOp(SpMVOp, &o, (int)warmup, (int)repeat, &spmv));
  }
  PetscCall(MatMult(A, x, b));
  for (int k = 0; k < nm; k++) PetscCall(TimeMethod(A, b, x, &m[k], (int)warmup, (int)repeat, apply_only, solve, solve_only));

  PetscCall(BenchProvenanceGet(argc, argv, &pv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %s(%" PetscInt_FMT "), %s; SpMV %.4f ms; solve: %s%s\n", casename, n, nnz, icc ? "ICC" : "ILU", levels, pv.gpu, 1e3 * spmv, solve_ksp, solve_only ? " (the solve alone timed)" : ""));
  if (solve_only) { /* the solve alone: its time, iterations and time per iteration (iterations may differ by one or two) */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s %12s %6s %10s %8s %14s\n", "method", "solve ms", "its", "ms / it", "speedup", "||b-Ax||/||b||"));
    for (int k = 0; k < nm; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s %12.2f %6" PetscInt_FMT " %10.4f %8.2f %14.3e\n", m[k].name, 1e3 * m[k].solve, m[k].its, 1e3 * m[k].solve / PetscMax(m[k].its, 1), m[0].solve / m[k].solve, (double)m[k].truerel));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12s %12s %12s %12s %12s %6s %10s\n", "method", "setup ms", "refactor ms", "apply ms", "B A x ms", "solve ms", "its", "apply/SpMV"));
    for (int k = 0; k < nm; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12.3f %12.3f %12.4f %12.4f %12.2f %6" PetscInt_FMT " %10.2f\n", m[k].name, 1e3 * m[k].setup, 1e3 * m[k].refactor, 1e3 * m[k].apply, 1e3 * m[k].ba, 1e3 * m[k].solve, m[k].its, m[k].apply / spmv));
    for (int k = 1; k < nm; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12.2f %12.2f %12.2f %12.2f %12.2f   (baseline time / %s time)\n", "speedup", m[0].setup / m[k].setup, m[0].refactor / m[k].refactor, m[0].apply / m[k].apply, m[0].ba / m[k].ba, m[0].solve / m[k].solve, m[k].name));
  }
  if (grid && !solve_only) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  apply, hyb / grid layout: %.2f\n", m[1].apply / m[2].apply));
  for (int k = 3; grid && !solve_only && k < ngridm; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  apply, %s / grid layout: %.2f\n", m[k].name, m[k].apply / m[2].apply));
  if (grid && grid_unfused && !apply_only) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  B A x, %s / grid layout: %.3f", m[ngridm - 1].name, m[ngridm - 1].ba / m[2].ba));
    if (solve) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; solve: %.3f", m[ngridm - 1].solve / m[2].solve));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }
  if (json[0]) {
    FILE       *f;
    const char *metric[] = {"setup_s", "refactor_s", "apply_s", solve_metric, "applyba_s"};
    double      bv[5]    = {m[0].setup, m[0].refactor, m[0].apply, m[0].solve, m[0].ba};

    PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
    for (int j = 1; j < nm; j++) {
      double sv[5] = {m[j].setup, m[j].refactor, m[j].apply, m[j].solve, m[j].ba};
      for (int k = 0; k < 5; k++) {
        if ((apply_only && k != 2) || (!solve && k == 3) || (solve_only && k != 3)) continue;
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"sfilu\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"metric\": \"%s\", \"method\": \"%s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"baseline_name\": \"%s\", \"ratio\": %.4f, \"spmv_s\": %.6e, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", \"fill_levels\": %" PetscInt_FMT ", ", casename, n, nnz, metric[k], m[j].name, sv[k], bv[k], m[0].name, bv[k] / sv[k], spmv, m[j].its, m[0].its, levels));
        if (k == 3) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "\"true_residual_sfpc\": %.3e, \"true_residual_baseline\": %.3e, ", (double)m[j].truerel, (double)m[0].truerel));
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "\"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n", pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
      }
    }
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
