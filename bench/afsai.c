static char help[] = "Benchmark: PCAFSAI on aijcusparse, its GPU set-up against the host set-up of the same matrix\n"
                     "(-pc_afsai_setup host: the host reference from the matrix's host copy), side by side in one run, by\n"
                     "phase (pattern search, values, G and G^T), and the re-set-up with new values of the same pattern;\n"
                     "then PCG to -ksp_rtol 1e-8 with afsai (GPU set-up) against PCG with Jacobi on the same GPU (and, with\n"
                     "-gamg, PCG with GAMG's default smoothers and with afsai Chebyshev smoothers, Galerkin products on the\n"
                     "host): iterations, set-up, solve (median of -repeat solves after a warm-up solve) and time to solution\n"
                     "(set-up + solve). GPU set-ups: median of -repeat from scratch after a warm-up one; PCG set-ups: one\n"
                     "KSPSetUp each (afsai's after the set-ups above, GAMG's the first in the process). Every time is wall\n"
                     "clock between two device synchronizations; the host set-up runs once.\n"
                     "Options: problem options of tests/problems.c, -case <name>, -json <file> (append records), -repeat,\n"
                     "-host 0 (skip the host set-up, which takes ~20 s at 128^3: host columns and ratios print as 0),\n"
                     "-gamg (add the two GAMG solvers), -gamg_solver gamg|gamg-afsai (only that one, -gamg implied: with -gamg_gpu_products a second\n"
                     "GAMG set-up in one process can hang in cuSPARSE's SpGEMM, bench/README.md), -gamg_gpu_products (GAMG's\n"
                     "Galerkin products on the GPU, as an application gets them), -pc_afsai_* (both set-ups and PCG's afsai).\n";

#include <petscksp.h>
#include <sfpc.h>
#include "../tests/problems.h"
#include "timing.h"

typedef struct {
  double   total, pattern, values, assembly;
  PetscInt nnzG;
} SetUpTime;

/* The phase times PCAFSAI's view reports (its "set-up time (s)" line), read back from the view written to memory. */
static PetscErrorCode PhaseTimes(PC pc, SetUpTime *t)
{
  static char buf[8192];
  char       *line;
  Mat         G;
  MatInfo     info;

  PetscFunctionBegin;
  PetscCall(TestPCViewToString(pc, buf, sizeof(buf)));
  line = strstr(buf, "set-up time (s): pattern");
  PetscCheck(line, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAFSAI's view has no set-up times");
  PetscCheck(sscanf(line, "set-up time (s): pattern %lf, values %lf, %*[^0-9] %lf", &t->pattern, &t->values, &t->assembly) == 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cannot read PCAFSAI's set-up times");
  PetscCall(PCAFSAIGetFactor(pc, &G));
  PetscCall(MatGetInfo(G, MAT_LOCAL, &info));
  t->nnzG = (PetscInt)info.nz_used;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A PCAFSAI set up on A with the given -pc_afsai_setup; times by phase. */
static PetscErrorCode SetUpAFSAI(Mat A, const char *where, PC *pc, SetUpTime *t)
{
  double t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-pc_afsai_setup", where));
  PetscCall(PCCreate(PETSC_COMM_WORLD, pc));
  PetscCall(PCSetType(*pc, PCAFSAI));
  PetscCall(PCSetFromOptions(*pc));
  PetscCall(PCSetOperators(*pc, A, A));
  PetscCall(WallNow(&t0));
  PetscCall(PCSetUp(*pc));
  PetscCall(WallNow(&t1));
  t->total = t1 - t0;
  PetscCall(PhaseTimes(*pc, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PCG solvers compared, each under an options prefix of its own but afsai's (so that -pc_afsai_* apply to it). */
typedef struct {
  const char *name, *prefix, *pctype, *options;
} Solver;
static const Solver solvers[] = {
  {"afsai",      "",           PCAFSAI,  ""                         },
  {"jacobi",     "jacobi_",    PCJACOBI, ""                         },
  {"gamg",       "gamg_",      PCGAMG,   ""                         },
  {"gamg-afsai", "gamgafsai_", PCGAMG,   "-mg_levels_pc_type afsai"},
};

typedef struct {
  double   setup, solve;
  PetscInt its;
} PCGTime;

/* PCG with solver s (afsai: GPU set-up) to rtol 1e-8: set-up time, median solve time of repeat solves after a warm-up solve, iterations. */
static PetscErrorCode TimePCG(Mat A, Vec b, Vec x, const Solver *s, PetscInt repeat, PCGTime *t)
{
  KSP                ksp;
  PC                 pc;
  double             t0, t1, *tt;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-pc_afsai_setup", "device"));
  if (s->options[0]) PetscCall(TestOptionsSetPrefixed(s->prefix, s->options));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, s->prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, s->pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 20000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(WallNow(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(WallNow(&t1));
  t->setup = t1 - t0;
  PetscCall(PetscMalloc1(repeat, &tt));
  for (PetscInt k = -1; k < repeat; k++) { /* k = -1: warm-up */
    PetscCall(VecZeroEntries(x));
    PetscCall(WallNow(&t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(WallNow(&t1));
    if (k >= 0) tt[k] = t1 - t0;
  }
  t->solve = Median(tt, (int)repeat);
  PetscCall(PetscFree(tt));
  PetscCall(KSPGetIterationNumber(ksp, &t->its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "PCG with %s did not converge: %s", s->name, KSPConvergedReasons[reason]);
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat             A;
  Vec             x, b;
  PC              pc;
  PetscInt        n, nnz, repeat = 3, nsolvers, use[PETSC_STATIC_ARRAY_LENGTH(solvers)] = {0, 1, 2, 3};
  PetscBool       hostref = PETSC_TRUE, gamg = PETSC_FALSE, one;
  char            casename[128], json[PETSC_MAX_PATH_LEN] = "", gamgsolver[32];
  SetUpTime       host, dev, *runs;
  double         *tt, resetup;
  PCGTime         pcg[PETSC_STATIC_ARRAY_LENGTH(solvers)];
  BenchProvenance pv;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host", &hostref, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-gamg_solver", gamgsolver, sizeof(gamgsolver), &one));
  gamg     = (PetscBool)(gamg || one); /* naming a GAMG asks for it */
  nsolvers = gamg ? 4 : 2;
  if (one) { /* afsai, Jacobi and the one GAMG named */
    PetscBool found = PETSC_FALSE;

    for (PetscInt k = 2; k < 4 && !found; k++) {
      PetscCall(PetscStrcmp(gamgsolver, solvers[k].name, &found));
      if (found) use[2] = k;
    }
    PetscCheck(found, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-gamg_solver %s: use gamg or gamg-afsai", gamgsolver);
    nsolvers = 3;
  }
  if (gamg) PetscCall(BenchGAMGPlaceProducts());
  PetscCall(BenchProblemCreate(&A, &x, &b, casename, sizeof(casename), &n, &nnz));

  /* GPU set-ups from scratch (the first also warms up CUDA and cuSPARSE, so it is not counted), then the host's */
  PetscCall(PetscMalloc2(repeat, &runs, repeat, &tt));
  PetscCall(SetUpAFSAI(A, "device", &pc, &dev));
  PetscCall(PCDestroy(&pc));
  for (PetscInt k = 0; k < repeat; k++) {
    PetscCall(SetUpAFSAI(A, "device", &pc, &runs[k]));
    tt[k] = runs[k].total;
    if (k < repeat - 1) PetscCall(PCDestroy(&pc));
  }
  dev.total = Median(tt, (int)repeat);
  for (PetscInt k = 0; k < repeat; k++) tt[k] = runs[k].pattern;
  dev.pattern = Median(tt, (int)repeat);
  for (PetscInt k = 0; k < repeat; k++) tt[k] = runs[k].values;
  dev.values = Median(tt, (int)repeat);
  for (PetscInt k = 0; k < repeat; k++) tt[k] = runs[k].assembly;
  dev.assembly = Median(tt, (int)repeat);
  for (PetscInt k = 0; k < repeat; k++) { /* new values as far as PETSc knows: values and G, G^T refilled, pattern kept */
    double t0, t1;
    PetscCall(MatScale(A, 2.0)); /* exact both ways; MatScale(A, 1.0) would be a no-op */
    PetscCall(MatScale(A, 0.5));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(WallNow(&t0));
    PetscCall(PCSetUp(pc));
    PetscCall(WallNow(&t1));
    tt[k] = t1 - t0;
  }
  resetup = Median(tt, (int)repeat);
  PetscCall(PCDestroy(&pc));
  PetscCall(PetscMemzero(&host, sizeof(host)));
  if (hostref) {
    PetscCall(SetUpAFSAI(A, "host", &pc, &host));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-pc_afsai_setup"));

  for (PetscInt k = 0; k < nsolvers; k++) PetscCall(TimePCG(A, b, x, &solvers[use[k]], repeat, &pcg[k]));

  PetscCall(BenchProvenanceGet(argc, argv, &pv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros; nnz(G) %" PetscInt_FMT " (host %" PetscInt_FMT ": %s), fill %.3f; %s\n", casename, n, nnz, dev.nnzG, host.nnzG, !hostref ? "not run" : dev.nnzG == host.nnzG ? "same" : "DIFFERENT", (double)dev.nnzG / nnz, pv.gpu));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12s %12s %12s %12s\n", "set-up (s)", "total", "pattern", "values", "G, G^T"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12.4f %12.4f %12.4f %12.4f\n", "GPU", dev.total, dev.pattern, dev.values, dev.assembly));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12.4f %12.4f %12.4f %12.4f\n", "host (1 core)", host.total, host.pattern, host.values, host.assembly));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12.1f %12.1f %12.1f\n", "host / GPU", host.total / dev.total, host.pattern / dev.pattern, host.values / dev.values));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU re-set-up (same pattern, new values): %.4f s; set-up throughput %.1f Mnnz(G)/s\n", resetup, 1e-6 * dev.nnzG / dev.total));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %8s %12s %12s %12s %14s %12s\n", "PCG rtol 1e-8", "its", "set-up s", "solve s", "total s", "total/afsai's", "solve/afsai's"));
  for (PetscInt k = 0; k < nsolvers; k++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %8" PetscInt_FMT " %12.4f %12.4f %12.4f %14.2f %12.2f\n", solvers[use[k]].name, pcg[k].its, pcg[k].setup, pcg[k].solve, pcg[k].setup + pcg[k].solve, (pcg[k].setup + pcg[k].solve) / (pcg[0].setup + pcg[0].solve), pcg[k].solve / pcg[0].solve));
  if (json[0]) {
    FILE       *f;
    const char *metric[] = {"setup_s", "pattern_s", "values_s", "assembly_s", "resetup_s"};
    double      sv[5]    = {dev.total, dev.pattern, dev.values, dev.assembly, resetup};
    double      bv[5]    = {host.total, host.pattern, host.values, host.assembly, host.values + host.assembly};
    char        head[1024], tail[8192];

    PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
    PetscCall(PetscSNPrintf(head, sizeof(head), "\"benchmark\": \"afsai\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"nnz_G\": %" PetscInt_FMT ", \"nnz_G_host\": %" PetscInt_FMT, casename, n, nnz, dev.nnzG, host.nnzG));
    PetscCall(PetscSNPrintf(tail, sizeof(tail), "\"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"", pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
    for (int k = 0; k < 5; k++) { /* the GPU set-up against the host's */
      char bs[64] = "null", rs[64] = "null"; /* no host set-up (-host 0): no baseline */
      if (hostref) {
        PetscCall(PetscSNPrintf(bs, sizeof(bs), "%.6e", bv[k]));
        PetscCall(PetscSNPrintf(rs, sizeof(rs), "%.4f", bv[k] / sv[k]));
      }
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{%s, \"metric\": \"%s\", \"sfpc\": %.6e, \"baseline\": %s, \"baseline_name\": \"afsai-host-setup\", \"ratio\": %s, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", %s}\n", head, metric[k], sv[k], bs, rs, pcg[0].its, pcg[1].its, tail));
    }
    for (PetscInt c = 1; c < nsolvers; c++) /* PCG with afsai against each other PCG: set-up, solve, time to solution */
      for (int k = 0; k < 3; k++) {
        const char  *pm[] = {"pcg_setup_s", "pcg_solve_s", "pcg_time_to_solution_s"};
        const double a[]  = {pcg[0].setup, pcg[0].solve, pcg[0].setup + pcg[0].solve}, o[] = {pcg[c].setup, pcg[c].solve, pcg[c].setup + pcg[c].solve};

        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{%s, \"metric\": \"%s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"baseline_name\": \"%s-pcg\", \"ratio\": %.4f, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", %s}\n", head, pm[k], a[k], o[k], solvers[use[c]].name, o[k] / a[k], pcg[0].its, pcg[c].its, tail));
      }
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  PetscCall(PetscFree2(runs, tt));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
