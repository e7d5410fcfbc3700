static char help[] = "Every SFPC preconditioner on MPI matrices, on this number of ranks: for each of -pcs (sfilu, sip, sfdilu,\n"
                     "sfdilu-global, afsai, afsai-gather) a Krylov solve with the matrix as aij (the host path) and, with\n"
                     "-device, as aijcusparse (each rank on its GPU): the same iterations and residual histories within -tol\n"
                     "(relative, default 1e-6). Problem options of problems.c; the rows are split by whole z-planes (-zslabs), or with\n"
                     "-boxes into the boxes a 3-D DMDA would give the ranks, so SIP's block on each rank is a grid.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

#define MAXHIST 1000

static const struct {
  const char *name, *options;
} PCs[] = {
  {"sfilu", "-ksp_type gmres -pc_type sfilu"},
  {"sip", "-ksp_type gmres -pc_type sfilu -pc_sfilu_factorization sip"},
  {"sfdilu", "-ksp_type gmres -pc_type sfdilu -pc_sfdilu_coloring jpl"}, /* auto colors greedy on the host, JPL on the GPU */
  {"sfdilu-global", "-ksp_type gmres -pc_type sfdilu -pc_sfdilu_parallel"},
  {"afsai", "-ksp_type cg -pc_type afsai"},
  {"afsai-gather", "-ksp_type cg -pc_type afsai -pc_afsai_gather 4"},
};

typedef struct {
  PetscInt           its, nhist;
  PetscReal          hist[MAXHIST];
  KSPConvergedReason reason;
} Run;

/* Solves with A under the options of PCs[k] (prefix "<name>_"); a random right-hand side from seed 1 on every call. */
static PetscErrorCode Solve(Mat A, PetscInt k, Run *run)
{
  KSP         ksp;
  Vec         x, b;
  PetscRandom rnd;
  char        prefix[64];

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 1));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", PCs[k].name));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, MAXHIST - 1));
  PetscCall(KSPSetResidualHistory(ksp, run->hist, MAXHIST, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &run->its));
  PetscCall(KSPGetConvergedReason(ksp, &run->reason));
  PetscCall(KSPGetResidualHistory(ksp, NULL, &run->nhist));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, Ad = NULL;
  char        desc[256], *names[16], opt[256], grid[64];
  PetscInt    npcs = 16, N = 16;
  PetscReal   tol  = 1e-6;
  PetscBool   device = PETSC_FALSE, boxes = PETSC_FALSE, set;
  PetscMPIInt size;
  Run        *host, *gpu;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-pcs", names, &npcs, &set));
  PetscCheck(set && npcs > 0, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Name the preconditioners: -pcs a,b,...");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-boxes", &boxes, NULL));
  if (!boxes) PetscCall(PetscOptionsSetValue(NULL, "-zslabs", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "aij"));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  if (device) PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
  PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, N, N, N));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s on %d rank%s\n", desc, size, size > 1 ? "s" : ""));
  PetscCall(PetscMalloc2(1, &host, 1, &gpu));
  for (PetscInt p = 0; p < npcs; p++) {
    PetscInt k = -1;

    for (PetscInt j = 0; j < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(PCs); j++)
      if (!strcmp(names[p], PCs[j].name)) k = j;
    PetscCheck(k >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown preconditioner %s", names[p]);
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "%s_", PCs[k].name));
    PetscCall(TestOptionsSetPrefixed(opt, PCs[k].options));
    if (!strcmp(PCs[k].name, "sip") && !boxes) PetscCall(PetscOptionsSetValue(NULL, "-sip_pc_sfilu_sip_grid", grid)); /* each rank's z-planes of the cube; a box is read from the pattern */
    PetscCall(Solve(A, k, host));
    if (!device) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-13s host: %s in %" PetscInt_FMT "\n", PCs[k].name, KSPConvergedReasons[host->reason], host->its));
      continue;
    }
    PetscCall(Solve(Ad, k, gpu));
    {
      PetscReal worst = 0;
      for (PetscInt i = 0; i < PetscMin(host->nhist, gpu->nhist); i++) worst = PetscMax(worst, PetscAbsReal(host->hist[i] - gpu->hist[i]) / PetscMax(host->hist[i], PETSC_SMALL));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-13s host: %s in %" PetscInt_FMT ", GPU: %s in %" PetscInt_FMT "; same iterations: %s; residual histories within %g: %s\n", PCs[k].name, KSPConvergedReasons[host->reason], host->its, KSPConvergedReasons[gpu->reason], gpu->its, host->its == gpu->its && host->reason == gpu->reason ? "yes" : "NO", (double)tol,
                            host->nhist == gpu->nhist && worst <= tol ? "yes" : "NO"));
    }
  }
  for (PetscInt p = 0; p < npcs; p++) PetscCall(PetscFree(names[p]));
  PetscCall(PetscFree2(host, gpu));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  # the host paths on 1-3 ranks (uneven z-slabs: 10 planes on 3 ranks)
  test:
    suffix: poisson
    nsize: {{1 2 3}separate output}
    args: -problem poisson7 -n 10 -pcs sfilu,sip,sfdilu
  test:
    suffix: poisson_spd
    nsize: {{1 2 3}separate output}
    args: -problem poisson7 -n 10 -pcs sfdilu-global,afsai,afsai-gather
  test:
    suffix: convdiff
    nsize: {{1 2 3}separate output}
    args: -problem convdiff -peclet 5 -n 10 -pcs sfilu,sip,sfdilu,sfdilu-global

  # each rank a box of the grid as a DMDA splits it (1 x 2 x 2 on 4 ranks: 10 x 5 x 5 points, 2 x 2 x 2 on 8; z-slabs on 2
  # and 3): SIP and the grid layout read each rank's box from the pattern
  test:
    suffix: boxes
    nsize: {{1 4 8}separate output}
    args: -problem poisson7 -n 10 -boxes -pcs sfilu,sip,sfdilu,afsai

  # the global DILU with the grid's colors, the grid read from each rank's z-planes: the same iterations on 1-3 ranks
  test:
    suffix: global_grid
    nsize: {{1 2 3}separate output}
    args: -problem convdiff -peclet 5 -n 10 -pcs sfdilu-global -sfdilu-global_pc_sfdilu_coloring grid

  # no structure (-problem random, tests/problems.c): rows of 0-3000 entries, columns on any rank
  test:
    suffix: random
    nsize: {{1 2 3}separate output}
    args: -problem random -n 12 -random_seed 7 -pcs sfilu,sfdilu,sfdilu-global
  test:
    suffix: random_spd
    nsize: {{1 3}separate output}
    args: -problem random -random_spd -n 12 -random_seed 7 -pcs afsai,afsai-gather

  # each rank on its GPU (on a one-GPU host the ranks share it): iterations and histories of the host runs
  testset:
    requires: gpu
    args: -device -use_gpu_aware_mpi 0
    test:
      suffix: gpu_random
      nsize: {{1 2}separate output}
      args: -problem random -n 16 -random_seed 7 -pcs sfilu,sfdilu,sfdilu-global
    test:
      suffix: gpu_random_spd
      nsize: 2
      args: -problem random -random_spd -n 14 -random_seed 7 -pcs afsai,afsai-gather
    test:
      suffix: gpu_poisson
      nsize: {{1 2 4}separate output}
      args: -problem poisson7 -n 12 -pcs sfilu,sip,sfdilu,sfdilu-global,afsai,afsai-gather
    test:
      suffix: gpu_convdiff
      nsize: {{1 2 4}separate output}
      args: -problem convdiff -peclet 5 -n 12 -pcs sfilu,sip,sfdilu,sfdilu-global
    test:
      suffix: gpu_global_grid
      nsize: {{1 2}separate output}
      args: -problem convdiff -peclet 5 -n 12 -pcs sfdilu-global -sfdilu-global_pc_sfdilu_coloring grid
    test:
      suffix: gpu_boxes
      nsize: 4
      args: -problem convdiff -peclet 5 -n 12 -boxes -pcs sfilu,sip,sfdilu
    test: # ILU(2) in each rank's block
      suffix: gpu_iluk
      nsize: {{1 2}separate output}
      args: -problem convdiff -peclet 5 -n 12 -pcs sfilu -sfilu_pc_sfilu_fill_levels 2

TEST*/
