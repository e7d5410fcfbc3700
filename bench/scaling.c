static char help[] = "Benchmark: SFPC's preconditioners on MPI ranks, one GPU each, against PETSc's block-Jacobi ILU and\n"
                     "GAMG's defaults in the same run (strong and weak scaling: run it on 1, 2, 4 ranks; bench/run-scaling.sh).\n"
                     "For each configuration: set-up time (KSPSetUp, wall clock after a device synchronization on every\n"
                     "rank), iterations and solve time to -rtol (median of -repeat solves after one warm-up solve),\n"
                     "time per iteration. Options: problem options of tests/problems.c (-zslabs is set: each rank owns whole\n"
                     "z-planes, so SIP's blocks are grids; with -boxes each rank owns the box a 3-D DMDA gives it instead),\n"
                     "-configs <list> (names below), -series <label> (weak, strong),\n"
                     "-json <file> (append records), -host (aij instead of aijcusparse), -repeat <r>, -rtol <1e-8>, -max_it <300>\n"
                     "(every configuration's KSP tolerances), -gamg_gpu_products (GAMG's Galerkin products on the GPU, PETSc's\n"
                     "default; without it the benchmark forms them on the host: bench/timing.h, BenchGAMGPlaceProducts()),\n"
                     "-resetup (also time KSPSetUp() after new values of the same pattern, as each step of a time loop pays it:\n"
                     "the median of -repeat, A scaled by 2 and back by 1/2 before each, so the system stays the same).\n"
                     "Each configuration's options carry its name as prefix, so -<name>_<option> changes one of them.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "../tests/problems.h"
#include "timing.h"

/* The configurations: name, what it is, its KSP/PC options (without the prefix; each is given "-<name>_"). */
static const struct {
  const char *name, *what, *options;
} Configs[] = {
  {"bjacobi-ilu", "PETSc block-Jacobi ILU(0) (cuSPARSE)", "-ksp_type gmres -pc_type bjacobi -sub_pc_type ilu"},
  {"sfilu", "SFPC sync-free ILU(0), block Jacobi", "-ksp_type gmres -pc_type sfilu"},
  {"sip", "SFPC SIP (alpha 0.92), block Jacobi", "-ksp_type gmres -pc_type sfilu -pc_sfilu_factorization sip"},
  {"sfdilu", "SFPC multicolor DILU, block Jacobi", "-ksp_type gmres -pc_type sfdilu"},
  {"sfdilu-global", "SFPC multicolor DILU of the whole matrix", "-ksp_type gmres -pc_type sfdilu -pc_sfdilu_parallel"},
  {"afsai", "SFPC adaptive FSAI, block Jacobi", "-ksp_type cg -pc_type afsai"},
  {"afsai-gather", "SFPC adaptive FSAI, rows gathered (k = 4)", "-ksp_type cg -pc_type afsai -pc_afsai_gather 4"},
  {"bjacobi-ilu-cg", "PETSc block-Jacobi ILU(0) (cuSPARSE), CG", "-ksp_type cg -pc_type bjacobi -sub_pc_type ilu"},
  {"sfilu-cg", "SFPC sync-free ILU(0), block Jacobi, CG", "-ksp_type cg -pc_type sfilu"},
  {"sfilu-cg-eisenstat", "SFPC sync-free ILU(0), block Jacobi, CG, Eisenstat's form", "-ksp_type cg -pc_type sfilu -pc_sfilu_eisenstat"},
  {"sfdilu-cg", "SFPC multicolor DILU, block Jacobi, CG", "-ksp_type cg -pc_type sfdilu"},
  {"sfdilu-cg-eisenstat", "SFPC multicolor DILU, block Jacobi, CG, Eisenstat's form", "-ksp_type cg -pc_type sfdilu -pc_sfdilu_eisenstat"},
  {"gamg", "PETSc GAMG, default smoothers", "-ksp_type gmres -pc_type gamg"},
  {"gamg-sfdilu", "GAMG, sfdilu Richardson smoothers", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu"},
  {"gamg-sfdilu-tested", "GAMG, sfdilu Richardson smoothers that test the KSP's tolerances (as before 2026-11-29: a norm a step, an apply more from a nonzero guess, no fused step)", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu -mg_levels_pc_sfdilu_richardson_test"},
  {"gamg-sfdilu-greedy", "GAMG, sfdilu Richardson smoothers, greedy coloring on every level", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu -mg_levels_pc_sfdilu_coloring greedy"},
  {"gamg-sfdilu-jpl", "GAMG, sfdilu Richardson smoothers, JPL coloring on every level", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu -mg_levels_pc_sfdilu_coloring jpl"},
  {"gamg-sfdilu-1", "GAMG, sfdilu Richardson smoothers, one step before and after", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu -mg_levels_ksp_max_it 1"},
  {"gamg-sfdilu-fine", "GAMG, sfdilu Richardson smoothers (1 step) on levels 3 and up, GAMG's defaults on levels 1-2", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sfdilu -mg_levels_ksp_max_it 1 -mg_levels_1_ksp_type chebyshev -mg_levels_1_pc_type jacobi -mg_levels_1_ksp_max_it 2 -mg_levels_2_ksp_type chebyshev -mg_levels_2_pc_type jacobi -mg_levels_2_ksp_max_it 2"},
  {"gamg-sfdilu-top", "GAMG, sfdilu Richardson smoother (1 step) on the finest level, GAMG's defaults below", "-ksp_type gmres -pc_type gamg -mg_fine_ksp_type richardson -mg_fine_pc_type sfdilu -mg_fine_ksp_max_it 1"},
  {"gamg-sfdilu-top-grid", "GAMG, sfdilu Richardson smoother (1 step, grid coloring) on the finest level, GAMG's defaults below", "-ksp_type gmres -pc_type gamg -mg_fine_ksp_type richardson -mg_fine_pc_type sfdilu -mg_fine_ksp_max_it 1 -mg_fine_pc_sfdilu_coloring grid"},
  {"gamg-sfdilu-top2", "GAMG, sfdilu Richardson smoother (2 steps) on the finest level, GAMG's defaults below", "-ksp_type gmres -pc_type gamg -mg_fine_ksp_type richardson -mg_fine_pc_type sfdilu"},
  {"gamg-sfdilu-cheby", "GAMG, sfdilu Chebyshev smoothers (GAMG's level KSP)", "-ksp_type gmres -pc_type gamg -mg_levels_pc_type sfdilu"},
  {"gamg-afsai", "GAMG, afsai Chebyshev smoothers", "-ksp_type cg -pc_type gamg -mg_levels_pc_type afsai"},
  {"gamg-sor", "GAMG, PETSc's SOR Richardson smoothers (a host smoother: with -host only)", "-ksp_type gmres -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type sor"},
};

typedef struct {
  double             setup, solve, resetup; /* resetup < 0: not measured */
  PetscInt           its;
  KSPConvergedReason reason;
} Result;

/* All ranks' device work done, then the wall clock (the slowest rank decides). */
static PetscErrorCode Now(PetscBool host, double *t)
{
  PetscFunctionBegin;
  if (!host) PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunConfig(const char *name, Mat A, Vec b, Vec x, PetscBool host, PetscBool resetup, PetscInt repeat, PetscReal rtol, PetscInt maxit, Result *r)
{
  KSP     ksp;
  char    prefix[64];
  double  t0, t1, *ts;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", name));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, rtol, PETSC_CURRENT, PETSC_CURRENT, maxit));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(Now(host, &t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(Now(host, &t1));
  r->setup = t1 - t0;
  PetscCall(PetscMalloc1(repeat, &ts));
  for (PetscInt k = -1; k < repeat; k++) { /* k = -1: warm-up */
    PetscCall(VecZeroEntries(x));
    PetscCall(Now(host, &t0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(Now(host, &t1));
    if (k >= 0) ts[k] = t1 - t0;
  }
  r->solve = Median(ts, (int)repeat);
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetConvergedReason(ksp, &r->reason));
  r->resetup = -1;
  if (resetup) {
    for (PetscInt k = 0; k < repeat; k++) { /* new values as far as PETSc knows (its state moves), the same system: both scalings are exact */
      PetscCall(MatScale(A, 2.0));
      PetscCall(MatScale(A, 0.5));
      PetscCall(Now(host, &t0));
      PetscCall(KSPSetUp(ksp));
      PetscCall(Now(host, &t1));
      ts[k] = t1 - t0;
    }
    r->resetup = Median(ts, (int)repeat);
  }
  PetscCall(PetscFree(ts));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat             A;
  Vec             x, b;
  PetscInt        n, nnz, nconf = 32, repeat = 2, N = 16, maxit = 300;
  PetscReal       rtol = 1e-8;
  char           *conf[32], json[PETSC_MAX_PATH_LEN] = "", series[32] = "", casename[128], desc[256];
  PetscBool       host = PETSC_FALSE, gamg = PETSC_FALSE, boxes = PETSC_FALSE, resetup = PETSC_FALSE, set, help_asked;
  PetscMPIInt     size;
  BenchProvenance pv;
  PetscRandom     rnd;
  MatInfo         info;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsHasHelp(NULL, &help_asked));
  if (help_asked) { /* the configurations the help text refers to */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Configurations (-configs):\n"));
    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(Configs); k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %s: %s\n", Configs[k].name, Configs[k].what, Configs[k].options));
  }
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host", &host, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-boxes", &boxes, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-resetup", &resetup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCheck(repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeat must be at least 1");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-series", series, sizeof(series), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_it", &maxit, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-configs", conf, &nconf, &set));
  if (help_asked && !set) { /* -help alone: the help and the list above, no run */
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCheck(set && nconf > 0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Name the configurations: -configs a,b,... (see -help)");
  for (PetscInt c = 0; c < nconf; c++) {
    PetscBool known = PETSC_FALSE;
    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(Configs); k++)
      if (!strcmp(conf[c], Configs[k].name)) {
        char prefix[64];
        known = PETSC_TRUE;
        gamg  = (PetscBool)(gamg || !strncmp(conf[c], "gamg", 4));
        PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", Configs[k].name));
        PetscCall(TestOptionsSetPrefixed(prefix, Configs[k].options));
        if (!strcmp(Configs[k].name, "sip") && !boxes) { /* SIP's grid: each rank's z-planes of the cube (with -boxes SIP reads each rank's box from the pattern) */
          char grid[64];
          PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, N, N, N));
          PetscCall(PetscOptionsSetValue(NULL, "-sip_pc_sfilu_sip_grid", grid));
        }
      }
    PetscCheck(known, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown configuration %s", conf[c]);
    PetscCheck(host || strcmp(conf[c], "gamg-sor"), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "gamg-sor is PETSc's host smoother: run it with -host");
  }
  if (!host && gamg) PetscCall(BenchGAMGPlaceProducts());
  if (!boxes) PetscCall(PetscOptionsSetValue(NULL, "-zslabs", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", host ? "aij" : "aijcusparse"));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(PetscStrncpy(casename, desc, sizeof(casename)));
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  nnz = (PetscInt)info.nz_used;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatMult(A, x, b));
  PetscCall(BenchProvenanceGet(argc, argv, &pv));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows (%.3g per rank), %" PetscInt_FMT " nonzeros, %d ranks, %s\n", casename, n, (double)n / size, nnz, size, pv.gpu));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-14s %10s %6s %10s %12s %12s  %s\n", "config", "set-up s", "its", "solve s", "ms/iteration", "re-set-up s", "reason"));
  for (PetscInt c = 0; c < nconf; c++) {
    Result r;

    char   rs[32] = "null", rt[32] = "-"; /* the re-set-up for the JSON record and for the table: none without -resetup */

    PetscCall(RunConfig(conf[c], A, b, x, host, resetup, repeat, rtol, maxit, &r));
    if (r.resetup >= 0) {
      PetscCall(PetscSNPrintf(rs, sizeof(rs), "%.6e", r.resetup));
      PetscCall(PetscSNPrintf(rt, sizeof(rt), "%.4f", r.resetup));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-14s %10.3f %6" PetscInt_FMT " %10.4f %12.4f %12s  %s\n", conf[c], r.setup, r.its, r.solve, r.its ? 1e3 * r.solve / r.its : 0.0, rt, KSPConvergedReasons[r.reason]));
    if (json[0]) {
      FILE *f;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"scaling\", \"series\": \"%s\", \"case\": \"%s\", \"ranks\": %d, \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"config\": \"%s\", \"mat_type\": \"%s\", \"setup_s\": %.6e, \"resetup_s\": %s, \"solve_s\": %.6e, \"its\": %" PetscInt_FMT ", \"iteration_s\": %.6e, \"reason\": \"%s\", \"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n", series, casename, size, n, nnz, conf[c], host ? "aij" : "aijcusparse", r.setup, rs, r.solve, r.its, r.its ? r.solve / r.its : 0.0, KSPConvergedReasons[r.reason], pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
    }
  }
  for (PetscInt c = 0; c < nconf; c++) PetscCall(PetscFree(conf[c]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
