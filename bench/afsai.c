static char help[] = "Benchmark: PCAFSAI on aijcusparse, its GPU set-up against the host set-up of the same matrix\n"
                     "(-pc_afsai_setup host: the host reference from the matrix's host copy), side by side in one run, by\n"
                     "phase (pattern search, values, G and G^T), and the re-set-up with new values of the same pattern;\n"
                     "then PCG to -ksp_rtol 1e-8 with afsai (GPU set-up) against PCG with Jacobi on the same GPU: iterations,\n"
                     "solve time (after a warm-up solve) and time to solution (set-up + solve). GPU set-ups: median of\n"
                     "-repeat from scratch, wall clock around a device synchronization; the host set-up runs once.\n"
                     "Options: problem options of tests/problems.c, -case <name>, -json <file> (append records), -repeat,\n"
                     "-host 0 (skip the host set-up, which takes ~20 s at 128^3: host columns and ratios print as 0),\n"
                     "-pc_afsai_* (both set-ups).\n";

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

/* PCG with the given PC type (afsai: GPU set-up) to rtol 1e-8: set-up time, solve time after a warm-up solve, iterations. */
static PetscErrorCode TimePCG(Mat A, Vec b, Vec x, const char *pctype, double *setup, double *solve, PetscInt *its)
{
  KSP                ksp;
  PC                 pc;
  double             t0, t1;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-pc_afsai_setup", "device"));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(WallNow(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(WallNow(&t1));
  *setup = t1 - t0;
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x)); /* warm-up */
  PetscCall(VecZeroEntries(x));
  PetscCall(WallNow(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(WallNow(&t1));
  *solve = t1 - t0;
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "PCG with %s did not converge: %s", pctype, KSPConvergedReasons[reason]);
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat             A;
  Vec             x, b;
  PC              pc;
  PetscInt        n, nnz, repeat = 3, its[2];
  PetscBool       hostref = PETSC_TRUE;
  char            casename[128], json[PETSC_MAX_PATH_LEN] = "";
  SetUpTime       host, dev, *runs;
  double         *tt, resetup, pcgsetup[2], pcgsolve[2];
  BenchProvenance pv;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host", &hostref, NULL));
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

  PetscCall(TimePCG(A, b, x, PCAFSAI, &pcgsetup[0], &pcgsolve[0], &its[0]));
  PetscCall(TimePCG(A, b, x, PCJACOBI, &pcgsetup[1], &pcgsolve[1], &its[1]));

  PetscCall(BenchProvenanceGet(argc, argv, &pv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros; nnz(G) %" PetscInt_FMT " (host %" PetscInt_FMT ": %s), fill %.3f; %s\n", casename, n, nnz, dev.nnzG, host.nnzG, !hostref ? "not run" : dev.nnzG == host.nnzG ? "same" : "DIFFERENT", (double)dev.nnzG / nnz, pv.gpu));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12s %12s %12s %12s\n", "set-up (s)", "total", "pattern", "values", "G, G^T"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12.4f %12.4f %12.4f %12.4f\n", "GPU", dev.total, dev.pattern, dev.values, dev.assembly));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12.4f %12.4f %12.4f %12.4f\n", "host (1 core)", host.total, host.pattern, host.values, host.assembly));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-22s %12.1f %12.1f %12.1f\n", "host / GPU", host.total / dev.total, host.pattern / dev.pattern, host.values / dev.values));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU re-set-up (same pattern, new values): %.4f s; set-up throughput %.1f Mnnz(G)/s\n", resetup, 1e-6 * dev.nnzG / dev.total));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  PCG rtol 1e-8: afsai %" PetscInt_FMT " its, solve %.4f s, set-up %.4f s; jacobi %" PetscInt_FMT " its, solve %.4f s; solve ratio %.2f, time to solution ratio %.2f\n", its[0], pcgsolve[0], pcgsetup[0], its[1], pcgsolve[1], pcgsolve[1] / pcgsolve[0],
                        (pcgsetup[1] + pcgsolve[1]) / (pcgsetup[0] + pcgsolve[0])));
  if (json[0]) {
    FILE       *f;
    const char *metric[] = {"setup_s", "pattern_s", "values_s", "assembly_s", "resetup_s", "pcg_solve_s", "pcg_time_to_solution_s"};
    const char *base[]   = {"afsai-host-setup", "afsai-host-setup", "afsai-host-setup", "afsai-host-setup", "afsai-host-setup", "jacobi-pcg", "jacobi-pcg"};
    double      sv[7]    = {dev.total, dev.pattern, dev.values, dev.assembly, resetup, pcgsolve[0], pcgsetup[0] + pcgsolve[0]};
    double      bv[7]    = {host.total, host.pattern, host.values, host.assembly, host.values + host.assembly, pcgsolve[1], pcgsetup[1] + pcgsolve[1]};

    PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
    for (int k = 0; k < 7; k++) {
      char bs[64] = "null", rs[64] = "null"; /* no host set-up (-host 0): no baseline */
      if (hostref || k >= 5) {
        PetscCall(PetscSNPrintf(bs, sizeof(bs), "%.6e", bv[k]));
        PetscCall(PetscSNPrintf(rs, sizeof(rs), "%.4f", bv[k] / sv[k]));
      }
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"afsai\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"nnz_G\": %" PetscInt_FMT ", \"nnz_G_host\": %" PetscInt_FMT ", \"metric\": \"%s\", \"sfpc\": %.6e, \"baseline\": %s, \"baseline_name\": \"%s\", \"ratio\": %s, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", \"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n", casename, n, nnz, dev.nnzG, host.nnzG, metric[k], sv[k], bs, base[k], rs, its[0], its[1], pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
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
