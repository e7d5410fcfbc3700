static char help[] = "Benchmark: the GPU multicolor DILU smoother (PCSFDILU on aijcusparse), its sync-free sweeps (one kernel\n"
                     "per sweep, colors as dependency levels) against the per-color variant (one launch per color and\n"
                     "sweep), side by side in one run, with one SpMV of the same matrix as the yardstick. Times one apply\n"
                     "(gather, forward and backward sweep, scatter), one fused Richardson step x += M^{-1}(b - A x), the\n"
                     "set-up (coloring, permutation, analysis, E), the re-set-up with new values (E only), and the transposed\n"
                     "apply (PCApplyTranspose(); its first call analyses the transposed factor). With -gamg,\n"
                     "also GAMG-preconditioned GMRES to -ksp_rtol 1e-8 with sfdilu Richardson level smoothers against\n"
                     "GAMG's defaults (Chebyshev/Jacobi). Device work is timed with CUDA events, set-ups with the wall\n"
                     "clock around a device synchronization; medians of -repeat runs after -warmup.\n"
                     "Options: problem options of tests/problems.c, -case <name>, -json <file> (append records),\n"
                     "-coloring jpl|greedy|grid, -order auto|color|local (the sync-free sweeps' row order; the per-color ones take color), -gamg,\n"
                     "-versus <coloring>: the sync-free apply and GMRES(100) with -pc_type sfdilu to 1e-8 with -coloring against this coloring,\n"
                     "-parts: also the solves by parts (-pc_sfdilu_sweep parts: one kernel, a block per range of rows) against the per-color ones.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "../tests/problems.h"
#include "timing.h"

typedef struct {
  PC  pc;
  Mat A;
  Vec b, x, w, y;
} Smoother;

static PetscErrorCode ApplyOp(void *ctx)
{
  Smoother *s = (Smoother *)ctx;
  return PCApply(s->pc, s->b, s->y);
}

static PetscErrorCode ApplyTransposeOp(void *ctx)
{
  Smoother *s = (Smoother *)ctx;
  return PCApplyTranspose(s->pc, s->b, s->y);
}

static PetscErrorCode RichardsonOp(void *ctx)
{
  Smoother                   *s = (Smoother *)ctx;
  PetscInt                    its;
  PCRichardsonConvergedReason reason;
  return PCApplyRichardson(s->pc, s->b, s->x, s->w, 0, 0, 0, 1, PETSC_FALSE, &its, &reason);
}

static PetscErrorCode SpMVOp(void *ctx)
{
  Smoother *s = (Smoother *)ctx;
  return MatMult(s->A, s->x, s->y);
}

typedef struct {
  double   apply, richardson, setup, resetup;
  double   tfirst, tapply; /* sync-free only: the first transposed apply (its analysis included), and one after */
  PetscInt colors;
} Result;

/*
   One PCSFDILU with the given sweep: set-up (median of 3 from scratch), re-set-up with new values, apply, Richardson step;
   for the sync-free sweeps also the transposed apply (PCApplyTranspose(), BiCG's), its first call (which analyses the
   transposed factor) on the wall clock.
*/
static PetscErrorCode TimeSmoother(Smoother *s, const char *coloring, const char *sweep, const char *order, int warmup, int repeat, Result *r)
{
  double t[3], t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_coloring", coloring));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_sweep", sweep));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_order", order));
  for (int k = 0; k < 3; k++) {
    PetscCall(PCCreate(PETSC_COMM_WORLD, &s->pc));
    PetscCall(PCSetType(s->pc, PCSFDILU));
    PetscCall(PCSetFromOptions(s->pc));
    PetscCall(PCSetOperators(s->pc, s->A, s->A));
    PetscCall(WallNow(&t0));
    PetscCall(PCSetUp(s->pc));
    PetscCall(WallNow(&t1));
    t[k] = t1 - t0;
    if (k < 2) PetscCall(PCDestroy(&s->pc));
  }
  r->setup = Median(t, 3);
  PetscCall(PCSFDILUGetColoring(s->pc, &r->colors, NULL));
  for (int k = 0; k < 3; k++) {
    PetscCall(MatScale(s->A, k % 2 ? 0.5 : 2.0)); /* new values (exactly, powers of two): E again, the coloring kept */
    PetscCall(PCSetOperators(s->pc, s->A, s->A));
    PetscCall(WallNow(&t0));
    PetscCall(PCSetUp(s->pc));
    PetscCall(WallNow(&t1));
    t[k] = t1 - t0;
  }
  r->resetup = Median(t, 3);
  PetscCall(MatScale(s->A, 0.5)); /* back to A */
  PetscCall(TimeDeviceOp(ApplyOp, s, warmup, repeat, &r->apply));
  PetscCall(TimeDeviceOp(RichardsonOp, s, warmup, repeat, &r->richardson));
  if (!strcmp(sweep, "syncfree")) {
    PetscCall(PetscDeviceContextSynchronize(NULL));
    PetscCall(WallNow(&t0));
    PetscCall(PCApplyTranspose(s->pc, s->b, s->y));
    PetscCall(PetscDeviceContextSynchronize(NULL));
    PetscCall(WallNow(&t1));
    r->tfirst = t1 - t0;
    PetscCall(TimeDeviceOp(ApplyTransposeOp, s, warmup, repeat, &r->tapply));
  }
  PetscCall(PCDestroy(&s->pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GAMG-preconditioned GMRES, with sfdilu Richardson smoothers or GAMG's defaults: solve time (after one warm-up solve) and iterations. */
static PetscErrorCode TimeGAMG(Smoother *s, PetscBool dilu, double *time, PetscInt *its)
{
  KSP    ksp;
  double t0, t1;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, dilu ? "dilu_" : "default_"));
  PetscCall(PetscOptionsSetValue(NULL, dilu ? "-dilu_pc_type" : "-default_pc_type", "gamg"));
  if (dilu) {
    PetscCall(PetscOptionsSetValue(NULL, "-dilu_mg_levels_ksp_type", "richardson"));
    PetscCall(PetscOptionsSetValue(NULL, "-dilu_mg_levels_pc_type", "sfdilu"));
  }
  PetscCall(KSPSetOperators(ksp, s->A, s->A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecZeroEntries(s->y));
  PetscCall(KSPSolve(ksp, s->b, s->y)); /* warm-up, includes the set-up */
  PetscCall(VecZeroEntries(s->y));
  PetscCall(WallNow(&t0));
  PetscCall(KSPSolve(ksp, s->b, s->y));
  PetscCall(WallNow(&t1));
  PetscCall(KSPGetIterationNumber(ksp, its));
  *time = t1 - t0;
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* GMRES(100) with -pc_type sfdilu (the coloring given, sync-free sweeps, the order given) to rtol 1e-8: solve time (median of repeat solves after a warm-up solve, which sets up) and iterations. */
static PetscErrorCode TimeSolve(Smoother *s, const char *coloring, const char *order, int repeat, double *time, PetscInt *its)
{
  KSP     ksp;
  PC      pc;
  double *t, t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_coloring", coloring));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_sweep", "syncfree"));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_order", order));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, s->A, s->A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, 100));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 2000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSFDILU));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PetscMalloc1(repeat, &t));
  for (int k = -1; k < repeat; k++) {
    PetscCall(VecZeroEntries(s->y));
    PetscCall(WallNow(&t0));
    PetscCall(KSPSolve(ksp, s->b, s->y));
    PetscCall(WallNow(&t1));
    if (k >= 0) t[k] = t1 - t0;
  }
  *time = Median(t, repeat);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(PetscFree(t));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Smoother        s;
  PetscInt        n, nnz, warmup = 3, repeat = 20, its[2] = {0, 0};
  char            casename[128], json[PETSC_MAX_PATH_LEN] = "", coloring[16] = "jpl", order[16] = "auto";
  const char     *sweeps[3] = {"percolor", "syncfree", "parts"};
  Result          r[3];
  double          spmv = 0, gamg[2] = {0, 0};
  PetscBool       withgamg = PETSC_FALSE, smoother = PETSC_TRUE, withversus = PETSC_FALSE, parts = PETSC_FALSE;
  int             nsweeps;
  char            versus[16] = "";
  BenchProvenance pv;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-coloring", coloring, sizeof(coloring), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-order", order, sizeof(order), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &withgamg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-smoother", &smoother, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-parts", &parts, NULL));
  nsweeps = parts ? 3 : 2;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-versus", versus, sizeof(versus), &withversus));
  PetscCall(BenchProblemCreate(&s.A, &s.x, &s.b, casename, sizeof(casename), &n, &nnz));
  PetscCall(VecDuplicate(s.b, &s.w));
  PetscCall(VecDuplicate(s.b, &s.y));
  PetscCall(VecSet(s.x, 0.0));
  PetscCall(TimeDeviceOp(SpMVOp, &s, (int)warmup, (int)repeat, &spmv));
  if (withgamg) PetscCall(BenchGAMGPlaceProducts());
  PetscCall(PetscMemzero(r, sizeof(r)));
  for (int k = 0; smoother && k < nsweeps; k++) PetscCall(TimeSmoother(&s, coloring, sweeps[k], k ? order : "color", (int)warmup, (int)repeat, &r[k]));
  if (withgamg)
    for (int k = 0; k < 2; k++) PetscCall(TimeGAMG(&s, (PetscBool)k, &gamg[k], &its[k]));
  PetscCall(BenchProvenanceGet(argc, argv, &pv));
  if (withversus) { /* the same sync-free smoother with another coloring (the baseline), in this process: apply, GMRES solve */
    const char *cols[2] = {versus, coloring};
    Result      rv;
    double      solve[2];
    PetscInt    vits[2];
    PetscCall(PetscMemzero(&rv, sizeof(rv)));
    PetscCall(TimeSmoother(&s, versus, "syncfree", order, (int)warmup, (int)repeat, &rv));
    for (int k = 0; k < 2; k++) PetscCall(TimeSolve(&s, cols[k], order, 3, &solve[k], &vits[k]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: sync-free sweeps, %s coloring (%" PetscInt_FMT " colors) against %s (%" PetscInt_FMT " colors): apply %.4f against %.4f ms (%.2fx, %.2f against %.2f SpMVs); GMRES(100) to 1e-8 %" PetscInt_FMT " against %" PetscInt_FMT " iterations, %.2f against %.2f ms (%.2fx)\n", casename, coloring, r[1].colors, versus, rv.colors, 1e3 * r[1].apply, 1e3 * rv.apply, rv.apply / r[1].apply, r[1].apply / spmv, rv.apply / spmv, vits[1], vits[0], 1e3 * solve[1], 1e3 * solve[0], solve[0] / solve[1]));
    if (json[0]) {
      FILE *f;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"sfdilu-coloring\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"coloring\": \"%s\", \"colors\": %" PetscInt_FMT ", \"baseline_coloring\": \"%s\", \"baseline_colors\": %" PetscInt_FMT ", \"metric\": \"apply_s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"ratio\": %.4f, \"spmv_s\": %.6e, \"gpu\": \"%s\", \"command\": \"%s\", \"date\": \"%s\"}\n", casename, n, nnz, coloring, r[1].colors, versus, rv.colors, r[1].apply, rv.apply, rv.apply / r[1].apply, spmv, pv.gpu, pv.cmd, pv.date));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"sfdilu-coloring\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"coloring\": \"%s\", \"colors\": %" PetscInt_FMT ", \"baseline_coloring\": \"%s\", \"baseline_colors\": %" PetscInt_FMT ", \"metric\": \"gmres_solve_s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"ratio\": %.4f, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", \"gpu\": \"%s\", \"command\": \"%s\", \"date\": \"%s\"}\n", casename, n, nnz, coloring, r[1].colors, versus, rv.colors, solve[1], solve[0], solve[0] / solve[1], vits[1], vits[0], pv.gpu, pv.cmd, pv.date));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
    }
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %s coloring: %" PetscInt_FMT " colors, sync-free sweeps in %s order; %s; SpMV %.4f ms\n", casename, n, nnz, coloring, r[1].colors, order, pv.gpu, 1e3 * spmv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %10s %10s %12s %12s %11s\n", "sweeps", "apply ms", "step ms", "set-up ms", "new vals ms", "apply/SpMV"));
  for (int k = 0; k < nsweeps; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %10.4f %10.4f %12.3f %12.3f %11.2f\n", sweeps[k], 1e3 * r[k].apply, 1e3 * r[k].richardson, 1e3 * r[k].setup, 1e3 * r[k].resetup, r[k].apply / spmv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %10.2f %10.2f   (per-color time / sync-free time)\n", "speedup", r[0].apply / r[1].apply, r[0].richardson / r[1].richardson));
  if (parts) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %10.2f %10.2f   (per-color time / parts time)\n", "speedup", r[0].apply / r[2].apply, r[0].richardson / r[2].richardson));
  if (smoother) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  transposed apply (sync-free) %.4f ms, %.2fx the apply's time; its first call %.3f ms (%.2fx the set-up's)\n", 1e3 * r[1].tapply, r[1].tapply / r[1].apply, 1e3 * r[1].tfirst, r[1].tfirst / r[1].setup));
  if (withgamg) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GAMG+GMRES: default smoothers %.2f ms (%" PetscInt_FMT " its), sfdilu Richardson %.2f ms (%" PetscInt_FMT " its): %.2fx\n", 1e3 * gamg[0], its[0], 1e3 * gamg[1], its[1], gamg[0] / gamg[1]));
  if (json[0]) {
    FILE       *f;
    /* apply_transpose_s and first_apply_transpose_s: against the sync-free apply and set-up of the same run */
    const char *metric[] = {"apply_s", "richardson_step_s", "setup_s", "resetup_s", "apply_transpose_s", "first_apply_transpose_s", "gamg_gmres_s"};
    const char *bname[]  = {"sfdilu-percolor", "sfdilu-percolor", "sfdilu-percolor", "sfdilu-percolor", "sfdilu-syncfree-apply", "sfdilu-syncfree-setup", "gamg-default-smoothers"};
    double      sv[7]    = {r[1].apply, r[1].richardson, r[1].setup, r[1].resetup, r[1].tapply, r[1].tfirst, gamg[1]};
    double      bv[7]    = {r[0].apply, r[0].richardson, r[0].setup, r[0].resetup, r[1].apply, r[1].setup, gamg[0]};
    double      pt[4]    = {r[2].apply, r[2].richardson, r[2].setup, r[2].resetup}; /* by parts (-parts) */

    PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
    for (int k = smoother ? 0 : 6; k < (withgamg ? 7 : 6); k++)
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"sfdilu\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"coloring\": \"%s\", \"order\": \"%s\", \"colors\": %" PetscInt_FMT ", \"metric\": \"%s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"baseline_name\": \"%s\", \"ratio\": %.4f, \"spmv_s\": %.6e, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", \"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n", casename, n, nnz, coloring, order, r[1].colors, metric[k], sv[k], bv[k], bname[k], bv[k] / sv[k], spmv, its[1], its[0], pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
    for (int k = 0; smoother && parts && k < 4; k++) /* the solves by parts against the same per-color runs */
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"sfdilu-parts\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"coloring\": \"%s\", \"colors\": %" PetscInt_FMT ", \"metric\": \"%s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"baseline_name\": \"%s\", \"ratio\": %.4f, \"spmv_s\": %.6e, \"syncfree_s\": %.6e, \"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n", casename, n, nnz, coloring, r[2].colors, metric[k], pt[k], bv[k], bname[k], bv[k] / pt[k], spmv, sv[k], pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  PetscCall(VecDestroy(&s.x));
  PetscCall(VecDestroy(&s.b));
  PetscCall(VecDestroy(&s.w));
  PetscCall(VecDestroy(&s.y));
  PetscCall(MatDestroy(&s.A));
  PetscCall(PetscFinalize());
  return 0;
}
