static char help[] = "A solve by Richardson iterations (-ksp_type richardson, PCApplyRichardson() where the PC has one) with each SFPC PC\n"
                     "of -pcs (default sfdilu,afsai,sfilu), tested against the KSP's tolerances (-test 1: the PCs' -pc_<type>_richardson_test)\n"
                     "or running its steps (-test 0). After a failed set-up (-zero: a_00 = 0 on rank 0, a failure of one rank of\n"
                     "several) every rank must stop with KSP_DIVERGED_PC_FAILED after no step, x filled with Inf as by the failed PC's\n"
                     "apply (-own_loop: KSPRICHARDSON's own loop, for comparison: it stops so when tested, leaving x = 0, and runs its\n"
                     "steps into Inf when not); without a failure the solve must reach 1e-6 (tested) or run its steps. The right-hand\n"
                     "side must come back unchanged. Problem options of tests/problems.c; -sfpc_device_view: SFPCDeviceView(NULL) first.\n"
                     "-norms: instead, for each PC of -pcs, the tested loop with each -pc_<type>_richardson_norm against KSPRICHARDSON's\n"
                     "own loop with the matching norm (-ksp_norm_type preconditioned, unpreconditioned, or the 1-norm test of\n"
                     "SFPCKSPSetConvergedResidual1Norm()): the same number of steps, and the same reason.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

static PetscErrorCode MonitorNothing(KSP ksp, PetscInt k, PetscReal rnorm, void *ctx)
{
  return PETSC_SUCCESS;
}

/* A KSPRICHARDSON on A with PC type pt, rtol, abstol (PETSC_CURRENT: PETSc's) and maxit; ownloop: with a monitor that does
   nothing, which makes KSPRICHARDSON run its own loop instead of calling PCApplyRichardson(). Options are read by the caller. */
static PetscErrorCode RichardsonCreate(Mat A, const char *pt, PetscReal rtol, PetscReal abstol, PetscInt maxit, PetscBool ownloop, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetType(*ksp, KSPRICHARDSON));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(KSPSetTolerances(*ksp, rtol, abstol, PETSC_CURRENT, maxit));
  if (ownloop) PetscCall(KSPMonitorSet(*ksp, MonitorNothing, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One Richardson solve from x = 0 with PC type pt; prints the reason, the steps, and what happened to x and b. */
static PetscErrorCode Run(Mat A, Vec b, const char *pt, PetscBool test, PetscBool ownloop)
{
  KSP                ksp;
  Vec                x, b0, r;
  PetscInt           its;
  PetscReal          xmax, rn, bn, db;
  KSPConvergedReason reason;
  char               opt[64], steps[64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-pc_%s_richardson_test", pt));
  PetscCall(PetscOptionsSetValue(NULL, opt, test ? "true" : "false"));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(VecDuplicate(b, &b0));
  PetscCall(VecCopy(b, b0));
  PetscCall(RichardsonCreate(A, pt, test ? 1e-6 : 0.0, test ? PETSC_CURRENT : 0.0, test ? 2000 : 20, ownloop, &ksp));
  if (!test) PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  if (!test) PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(VecNorm(x, NORM_INFINITY, &xmax));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  PetscCall(VecAXPY(b0, -1.0, b));
  PetscCall(VecNorm(b0, NORM_INFINITY, &db));
  if (test && reason > 0) steps[0] = 0; /* a converged solve's steps may differ by one between host and GPU (rounding) */
  else PetscCall(PetscSNPrintf(steps, sizeof(steps), " after %" PetscInt_FMT " steps", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s%s: %s%s; x %s; b %s\n", pt, test ? "tested" : "untested", ownloop ? ", KSPRICHARDSON's loop" : "", KSPConvergedReasons[reason], steps,
                        xmax == 0 ? "0" : (PetscIsInfOrNanReal(xmax) ? "Inf/NaN" : (rn <= 1e-6 * bn ? "solves to 1e-6" : "finite")), db == 0 ? "unchanged" : "CHANGED"));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&b0));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Richardson to rtol 1e-6 with PC type pt: through its PCApplyRichardson() testing the norm named, then KSPRICHARDSON's own loop with that norm. */
static PetscErrorCode CompareNorm(Mat A, Vec b, const char *pt, const char *norm)
{
  PetscInt           its[2];
  KSPConvergedReason reason[2];
  char               opt[2][64];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt[0], sizeof(opt[0]), "-pc_%s_richardson_test", pt));
  PetscCall(PetscSNPrintf(opt[1], sizeof(opt[1]), "-pc_%s_richardson_norm", pt));
  PetscCall(PetscOptionsSetValue(NULL, opt[0], "true"));
  PetscCall(PetscOptionsSetValue(NULL, opt[1], norm));
  for (int own = 0; own < 2; own++) {
    KSP ksp;
    Vec x;

    PetscCall(MatCreateVecs(A, &x, NULL));
    PetscCall(RichardsonCreate(A, pt, 1e-6, PETSC_CURRENT, 2000, (PetscBool)own, &ksp));
    if (own) {
      PetscBool one, unpre;
      PetscCall(PetscStrcmp(norm, "1", &one));
      PetscCall(PetscStrcmp(norm, "unpreconditioned", &unpre));
      if (one) PetscCall(SFPCKSPSetConvergedResidual1Norm(ksp));
      else if (unpre) PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    }
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its[own]));
    PetscCall(KSPGetConvergedReason(ksp, &reason[own]));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s norm: PCApplyRichardson() %s after %" PetscInt_FMT " steps, KSPRICHARDSON's loop %s after %" PetscInt_FMT "; the same: %s\n", pt, norm, KSPConvergedReasons[reason[0]], its[0], KSPConvergedReasons[reason[1]], its[1], its[0] == its[1] && reason[0] == reason[1] ? "yes" : "NO"));
  for (int k = 0; k < 2; k++) PetscCall(PetscOptionsClearValue(NULL, opt[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A;
  Vec       b;
  char      desc[256] = "", *pcs[8];
  PetscInt  npc = 8, t0 = 0, t1 = 1;
  PetscBool flg, test = PETSC_FALSE, both = PETSC_TRUE, ownloop = PETSC_FALSE, norms = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-test", &test, &flg));
  if (flg) both = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-own_loop", &ownloop, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-norms", &norms, NULL));
  {
    PetscBool view = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-sfpc_device_view", &view, NULL));
    if (view) PetscCall(SFPCDeviceView(NULL)); /* NULL: PETSC_VIEWER_STDOUT_WORLD */
  }
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-pcs", pcs, &npc, &flg));
  if (!flg) {
    npc = 3;
    PetscCall(PetscStrallocpy("sfdilu", &pcs[0]));
    PetscCall(PetscStrallocpy("afsai", &pcs[1]));
    PetscCall(PetscStrallocpy("sfilu", &pcs[2]));
  }
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(TestProblemVariants(&A, desc, sizeof(desc)));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  if (!both) t0 = t1 = test;
  for (PetscInt k = 0; k < npc; k++) {
    if (norms) {
      const char *names[] = {"preconditioned", "unpreconditioned", "1"};
      for (int q = 0; q < 3; q++) PetscCall(CompareNorm(A, b, pcs[k], names[q]));
    } else
      for (PetscInt t = t0; t <= t1; t++) PetscCall(Run(A, b, pcs[k], (PetscBool)t, ownloop));
  }
  for (PetscInt k = 0; k < npc; k++) PetscCall(PetscFree(pcs[k]));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  # a_00 = 0: sfdilu's E_0 and afsai's first row fail, and so does sfilu's pivot; on 2 and 3 ranks rank 0 alone fails
  testset:
    args: -problem poisson7 -n 6 -zero
    output_file: output/ex17_zero.out
    test:
      suffix: zero
      nsize: {{1 2 3}}
    test:
      # KSPRICHARDSON's own loop says the same
      suffix: zero_own_loop
      args: -own_loop
      output_file: output/ex17_zero_own_loop.out

  test:
    suffix: healthy
    nsize: {{1 2}}
    args: -problem poisson7 -n 6 -sfpc_device_view
    filter: grep -v "^SFPC device"

  # the tested loops of sfdilu and afsai with each norm against KSPRICHARDSON's own loop with the matching norm (convection-
  # diffusion: M^{-1} r and r have different norms)
  test:
    suffix: norms
    nsize: {{1 2}separate output}
    args: -problem convdiff -n 8 -peclet 5 -norms -pcs sfdilu
  test: # afsai (SPD) on a jumping coefficient, with weight 1: KSPRICHARDSON's own loop has no automatic weight (README)
    suffix: norms_afsai
    nsize: {{1 2}}
    args: -problem jumps -n 8 -jump 100 -jump_cubes 2 -norms -pcs afsai -pc_afsai_omega 1
    output_file: output/ex17_norms_afsai.out

  testset:
    requires: gpu
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0 -problem poisson7 -n 6
    test:
      suffix: gpu_norms
      args: -problem convdiff -n 8 -peclet 5 -norms -pcs sfdilu
      output_file: output/ex17_norms_nsize-1.out
    test:
      suffix: gpu_norms_afsai
      args: -problem jumps -n 8 -jump 100 -jump_cubes 2 -norms -pcs afsai -pc_afsai_omega 1
      output_file: output/ex17_norms_afsai.out
    test:
      suffix: gpu_zero
      args: -zero
      output_file: output/ex17_zero.out
    test:
      suffix: gpu_healthy
      output_file: output/ex17_healthy.out

TEST*/
