static char help[] = "The grid layout of the GPU sweeps (-pc_sfilu_layout grid): ILU(0) and SIP on a 3-D DMDA.\n"
                     "Upwinded convection-diffusion (nonsymmetric), optionally with Dirichlet rows (boundary points keep\n"
                     "only their diagonal, so entries inside the grid are missing from the pattern).\n"
                     "Options: -nx -ny -nz <grid>, -peclet <p>, -dirichlet, -nodm (no DMDA attached: the grid comes from\n"
                     "-pc_sfilu_grid, or read from the pattern), -box (a 27-point DMDA), -corners (with -box: the 20 couplings\n"
                     "of the box beyond the 7-point stencil get values, nonsymmetric: a 27-point matrix), -fact <ilu0|sip> (the host run's;\n"
                     "with -device only that one, else both), -layout <grid|auto|hyb> (what the PCs are told), -device (compare on the GPU).\n"
                     "Without -device: a host solve only (the CPU checks of the layout option, errors included).\n"
                     "With -device, for ILU(0) and SIP: the layout the GPU factor took; one GPU apply against the host's\n"
                     "(bitwise); GMRES on the GPU and on the host (iterations, residual histories to rounding); the same\n"
                     "after the values change (SAME_NONZERO_PATTERN refactorization); Richardson on the host and on the GPU\n"
                     "(with the grid layout the residual fused into the L sweep): steps, reasons, solutions bitwise. -ba: also B A x\n"
                     "(PCApplyBAorAB(), left) on the GPU against the host's (with -d_pc_sfilu_ba_fused, A x formed inside the L sweep).\n"
                     "-smoother: also Richardson as a PCMG smoother's KSP runs it (no norm, the test skipped, rtol passed on).\n";

#include <petscksp.h>
#include <petscdmda.h>
#include <sfpc.h>
#include "problems.h"

static const char *YesNo(PetscBool b)
{
  return b ? "yes" : "NO";
}

static PetscBool corners = PETSC_FALSE; /* -corners */
static PetscBool ba      = PETSC_FALSE; /* -ba */
static PetscBool smoother = PETSC_FALSE; /* -smoother */

/*
   The test matrix: TestAssembleCavityDMDA()'s, and with -corners every row that is not a Dirichlet row also
   coupled to the 20 points of its box beyond the 7-point stencil (weights that depend on the direction: not
   symmetric), their sum added to the diagonal.
*/
static PetscErrorCode Assemble(DM da, PetscReal peclet, PetscBool dirichlet, PetscReal scale, Mat A)
{
  PetscInt nx, ny, nz, xs, ys, zs, xm, ym, zm;

  PetscFunctionBegin;
  if (corners) PetscCall(MatZeroEntries(A)); /* the corners are added below: not onto the last call's */
  PetscCall(TestAssembleCavityDMDA(da, peclet, dirichlet, scale, -1, A));
  if (!corners) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDAGetInfo(da, NULL, &nx, &ny, &nz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscInt at[3] = {i, j, k}, size[3] = {nx, ny, nz};
        const PetscReal w = 0.1 * scale * (nx + 1) * (nx + 1);
        MatStencil      row = {k, j, i, 0}, col[21];
        PetscScalar     val[21], diag = 0;
        PetscInt        m = 0;
        PetscBool       edge = PETSC_FALSE;

        for (int d = 0; d < 3; d++) edge = (PetscBool)(edge || (size[d] > 2 && (at[d] == 0 || at[d] == size[d] - 1)));
        if (dirichlet && edge) continue;
        for (PetscInt dk = -1; dk <= 1; dk++)
          for (PetscInt dj = -1; dj <= 1; dj++)
            for (PetscInt di = -1; di <= 1; di++) {
              if (PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk) < 2) continue; /* the diagonal and the 7-point stencil */
              if (i + di < 0 || i + di >= nx || j + dj < 0 || j + dj >= ny || k + dk < 0 || k + dk >= nz) continue;
              col[m].i = i + di, col[m].j = j + dj, col[m].k = k + dk, col[m].c = 0;
              val[m]   = -w * (2.0 + di + 0.5 * dj - 0.25 * dk);
              diag -= val[m++];
            }
        col[m]   = row;
        val[m++] = diag;
        PetscCall(MatSetValuesStencil(A, 1, &row, m, col, val, ADD_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A KSP under prefix pre with sfilu (factorization fact) for A; the DMDA attached unless nodm. */
static PetscErrorCode MakeKSP(Mat A, DM da, PetscBool nodm, const char *pre, const char *fact, const char *layout, KSP *ksp)
{
  char opt[64];

  PetscFunctionBegin;
  PetscCall(TestOptionsSetPrefixed(pre, "-ksp_type gmres -ksp_rtol 1e-8 -pc_type sfilu"));
  /* these change from call to call under one prefix: set, not defaulted */
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_sfilu_factorization", pre));
  PetscCall(PetscOptionsSetValue(NULL, opt, fact));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_sfilu_layout", pre));
  PetscCall(PetscOptionsSetValue(NULL, opt, layout));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, pre));
  PetscCall(KSPSetOperators(*ksp, A, A));
  if (!nodm) { /* the PC's DM, not the KSP's: KSPSetUp() below would give GMRES host work vectors from the DMDA, which PETSc's aijcusparse MatMult() leaves stale (README, known problems; tests/ex12.c) */
    PC pc;
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetDM(pc, da));
  }
  PetscCall(KSPSetResidualHistory(*ksp, NULL, PETSC_DECIDE, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether max_i |x_i - y_i| <= tol max_i |x_i| over all ranks (read on the host). */
static PetscErrorCode SameTo(Vec x, Vec y, PetscReal tol, PetscBool *same)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  PetscReal          m[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayRead(y, &b));
  for (PetscInt i = 0; i < n; i++) {
    m[0] = PetscMax(m[0], PetscAbsScalar(a[i] - b[i]));
    m[1] = PetscMax(m[1], PetscAbsScalar(a[i]));
  }
  PetscCall(VecRestoreArrayRead(y, &b));
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, m, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *same = (PetscBool)(m[0] <= tol * m[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves with ksp; its iterations and residual history (copied into hist, nhist). */
static PetscErrorCode Solve(KSP ksp, Vec b, PetscInt *its, PetscReal **hist, PetscInt *nhist)
{
  Vec              x;
  const PetscReal *h;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualHistory(ksp, &h, nhist));
  PetscCall(PetscMalloc1(*nhist, hist));
  PetscCall(PetscArraycpy(*hist, h, *nhist));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves with ksp from a zero guess: iterations, reason, residual history (copied into hist, nhist). */
static PetscErrorCode SolveKSP(KSP ksp, Vec b, PetscInt *its, KSPConvergedReason *reason, PetscReal **hist, PetscInt *nhist)
{
  PetscFunctionBegin;
  PetscCall(Solve(ksp, b, its, hist, nhist));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Richardson with sfilu on the host (KSPRICHARDSON's own loop; the 1-norm test is SFPCKSPSetConvergedResidual1Norm()) and
   on the GPU (PCApplyRichardson() with the residual fused into the L sweep where the layout is grid; its norm by
   -pc_sfilu_richardson_norm): same steps, same reason (but CONVERGED_ITS for DIVERGED_ITS, as PCMG's), and the same
   solution bit for bit (the fused residual sums as the host's MatMult() does; unfused, to 1e-8: cuSPARSE rounds otherwise). x0 NULL: zero initial guess. rtol 0: a fixed number of steps (-ksp_atol 0 too).
   skip: KSPs set up as PCMG's smoothers are (no norm, the test skipped, 5 steps) with this rtol, which PETSc passes on to
   PCApplyRichardson(); the GPU's with -pc_sfilu_richardson_test false, so that it runs the 5 steps as the host's loop does.
*/
static PetscErrorCode CompareRichardson(Mat A, Mat Ad, DM da, PetscBool nodm, const char *fact, const char *layout, NormType type, PetscReal rtol, PetscBool skip, Vec b, Vec bd, Vec x0, Vec x0d)
{
  KSP                k[2];
  Vec                x[2];
  PetscInt           its[2];
  KSPConvergedReason reason[2];
  PetscBool          fused, same;
  PC                 pd;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-dr_pc_sfilu_richardson_norm", type == NORM_1 ? "1" : "preconditioned"));
  PetscCall(PetscOptionsSetValue(NULL, "-dr_pc_sfilu_richardson_fused", "true")); /* by default only on grids of 2.5*10^6 points */
  if (skip) PetscCall(PetscOptionsSetValue(NULL, "-dr_pc_sfilu_richardson_test", "false"));
  PetscCall(MakeKSP(A, da, nodm, "hr_", fact, layout, &k[0]));
  PetscCall(MakeKSP(Ad, da, nodm, "dr_", fact, layout, &k[1]));
  for (int i = 0; i < 2; i++) {
    PetscCall(KSPSetType(k[i], KSPRICHARDSON));
    PetscCall(KSPSetTolerances(k[i], rtol, rtol > 0 ? PETSC_CURRENT : 0.0, rtol > 0 ? PETSC_CURRENT : 1e300, rtol > 0 && !skip ? 1000 : 5)); /* fixed steps: no dtol stop on the host */
    if (skip) {
      PetscCall(KSPSetNormType(k[i], KSP_NORM_NONE));
      PetscCall(KSPSetConvergenceTest(k[i], KSPConvergedSkip, NULL, NULL));
    }
    PetscCall(KSPSetUp(k[i]));
    if (type == NORM_1) { /* the host's test, and the GPU's where it is not fused (several ranks, or no grid layout) */
      PC        pc;
      PetscBool exists;
      PetscCall(KSPGetPC(k[i], &pc));
      PetscCall(PCApplyRichardsonExists(pc, &exists));
      if (i == 0 || !exists) PetscCall(SFPCKSPSetConvergedResidual1Norm(k[i]));
    }
    PetscCall(VecDuplicate(i ? bd : b, &x[i]));
    if (x0) {
      PetscCall(VecCopy(i ? x0d : x0, x[i]));
      PetscCall(KSPSetInitialGuessNonzero(k[i], PETSC_TRUE));
    }
    PetscCall(KSPSolve(k[i], i ? bd : b, x[i]));
    PetscCall(KSPGetIterationNumber(k[i], &its[i]));
    PetscCall(KSPGetConvergedReason(k[i], &reason[i]));
  }
  PetscCall(KSPGetPC(k[1], &pd));
  PetscCall(PCApplyRichardsonExists(pd, &fused));
  if (fused) PetscCall(TestVecSameBits(x[0], x[1], &same));
  else PetscCall(SameTo(x[0], x[1], 1e-8, &same)); /* the GPU's MatMult() (cuSPARSE) rounds differently from the host's */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    Richardson, %s, %s guess: host %s in %" PetscInt_FMT ", GPU %s in %" PetscInt_FMT " (residual fused into the sweep: %s); solutions the same %s: %s\n", skip ? "a smoother's 5 steps (rtol passed on, test skipped)" : (rtol > 0 ? (type == NORM_1 ? "1-norm test" : "default test") : "5 steps"), x0 ? "nonzero" : "zero", KSPConvergedReasons[reason[0]], its[0], KSPConvergedReasons[reason[1]], its[1], fused ? "yes" : "no", fused ? "bit for bit" : "to 1e-8", YesNo(same)));
  for (int i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&x[i]));
    PetscCall(KSPDestroy(&k[i]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-dr_pc_sfilu_richardson_norm"));
  PetscCall(PetscOptionsClearValue(NULL, "-dr_pc_sfilu_richardson_fused"));
  PetscCall(PetscOptionsClearValue(NULL, "-dr_pc_sfilu_richardson_test"));
  if (rtol > 0 && type == NORM_2 && !skip) { /* the default leaves a grid this small to KSPRICHARDSON's loop, where it is faster */
    PetscCall(MakeKSP(Ad, da, nodm, "dr_", fact, layout, &k[1]));
    PetscCall(KSPSetType(k[1], KSPRICHARDSON));
    PetscCall(KSPSetUp(k[1]));
    PetscCall(KSPGetPC(k[1], &pd));
    PetscCall(PCApplyRichardsonExists(pd, &fused));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    Richardson, -pc_sfilu_richardson_fused auto: residual fused into the sweep: %s\n", fused ? "yes" : "no"));
    PetscCall(KSPDestroy(&k[1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   B A x (PCApplyBAorAB(), PC_LEFT, as GMRES calls it) on the host and on the GPU, whose PC may form A x inside the
   L sweep (-d_pc_sfilu_ba_fused): then bit for bit the host's MatMult() and apply; otherwise to 1e-10 (cuSPARSE's
   MatMult() rounds otherwise). The input is left as it was.
*/
static PetscErrorCode CompareBA(PC ph, PC pd, Vec x, Vec xd)
{
  Vec       y[2], w[2], keep;
  PetscBool fused, same, kept;

  PetscFunctionBegin;
  PetscCall(TestPCViewHas(pd, "left-preconditioned B A x", &fused));
  PetscCall(VecDuplicate(xd, &keep));
  PetscCall(VecCopy(xd, keep));
  for (int i = 0; i < 2; i++) {
    PetscCall(VecDuplicate(i ? xd : x, &y[i]));
    PetscCall(VecDuplicate(i ? xd : x, &w[i]));
    PetscCall(PCApplyBAorAB(i ? pd : ph, PC_LEFT, i ? xd : x, y[i], w[i]));
  }
  if (fused) PetscCall(TestVecSameBits(y[0], y[1], &same));
  else PetscCall(SameTo(y[0], y[1], 1e-10, &same));
  PetscCall(TestVecSameBits(keep, xd, &kept));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    B A x: A x inside the L sweep: %s; the host's %s: %s; input kept: %s\n", fused ? "yes" : "no", fused ? "bit for bit" : "to 1e-10", YesNo(same), YesNo(kept)));
  for (int i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&y[i]));
    PetscCall(VecDestroy(&w[i]));
  }
  PetscCall(VecDestroy(&keep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   For one factorization: the GPU with the layout asked for (d_) and with hyb (y_) against the host (h_): the layout
   taken; two applies of different vectors, each against the host's; GMRES; then the same after new values.
*/
static PetscErrorCode Compare(DM da, Mat A, Mat Ad, PetscBool nodm, PetscReal peclet, PetscBool dirichlet, const char *fact, const char *layout)
{
  KSP         kh, kd, ky;
  PC          ph, pd;
  Vec         r[2], rd[2], yh, yd;
  PetscBool   grid, box, boxfactor, same[2];
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(MakeKSP(A, da, nodm, "h_", fact, layout, &kh));
  PetscCall(MakeKSP(Ad, da, nodm, "d_", fact, layout, &kd));
  PetscCall(MakeKSP(Ad, da, nodm, "y_", fact, "hyb", &ky));
  PetscCall(KSPGetPC(kh, &ph));
  PetscCall(KSPGetPC(kd, &pd));
  PetscCall(TestPCViewHas(pd, "grid layout", &grid));
  PetscCall(TestPCViewHas(pd, "grid layout (27-point box)", &box));
  PetscCall(TestPCViewHas(pd, "by hyperplanes i + 2j + 4k", &boxfactor));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, layout %s: the GPU sweeps walk the grid: %s%s%s\n", fact, layout, YesNo(grid), box ? " (27-point box" : "", box ? (boxfactor ? ", factored by hyperplanes)" : ")") : ""));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatCreateVecs(A, NULL, &r[k]));
    PetscCall(MatCreateVecs(Ad, NULL, &rd[k]));
    PetscCall(VecSetRandom(r[k], rnd));
    PetscCall(VecCopy(r[k], rd[k]));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDuplicate(r[0], &yh));
  PetscCall(VecDuplicate(rd[0], &yd));
  for (int pass = 0; pass < 2; pass++) {
    PetscInt           its[3], nh[3];
    PetscReal         *h[3], worst = 0;
    KSPConvergedReason reason[3];
    KSP                ks[3] = {kh, kd, ky};

    if (pass) { /* new values, same pattern: only the numeric factorization and the layout's gather run again */
      PetscCall(Assemble(da, 2 * peclet, dirichlet, 3.0, A));
      PetscCall(MatCopy(A, Ad, SAME_NONZERO_PATTERN));
      for (int k = 0; k < 3; k++) {
        PetscCall(KSPSetOperators(ks[k], k ? Ad : A, k ? Ad : A));
        PetscCall(KSPSetUp(ks[k]));
      }
    }
    for (int k = 0; k < 2; k++) { /* two inputs in a row: each apply must read its own input and leave the work vectors ready */
      PetscCall(PCApply(ph, r[k], yh));
      PetscCall(PCApply(pd, rd[k], yd));
      PetscCall(TestVecSameBits(yh, yd, &same[k]));
    }
    for (int k = 0; k < 3; k++) PetscCall(SolveKSP(ks[k], k ? rd[0] : r[0], &its[k], &reason[k], &h[k], &nh[k]));
    for (PetscInt k = 0; k < PetscMin(nh[0], nh[1]); k++) worst = PetscMax(worst, PetscAbsReal(h[0][k] - h[1][k]) / PetscMax(h[0][k], PETSC_SMALL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: applies bitwise the host's: %s, %s\n", pass ? "new values" : "first values", YesNo(same[0]), YesNo(same[1])));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    GMRES: host %s in %" PetscInt_FMT ", GPU %s in %" PetscInt_FMT ", GPU hyb %s in %" PetscInt_FMT "; GPU residual history agrees with the host's to 1e-6: %s\n", KSPConvergedReasons[reason[0]], its[0], KSPConvergedReasons[reason[1]], its[1], KSPConvergedReasons[reason[2]], its[2], YesNo((PetscBool)(nh[0] == nh[1] && worst <= 1e-6))));
    PetscCall(PetscInfo(NULL, "largest relative residual history difference %g\n", (double)worst));
    if (ba) PetscCall(CompareBA(ph, pd, r[1], rd[1]));
    for (int k = 0; k < 3; k++) PetscCall(PetscFree(h[k]));
    if (!pass) PetscCall(CompareRichardson(A, Ad, da, nodm, fact, layout, NORM_2, 1e-6, PETSC_FALSE, r[0], rd[0], NULL, NULL));
    else {
      PetscCall(CompareRichardson(A, Ad, da, nodm, fact, layout, NORM_1, 1e-6, PETSC_FALSE, r[0], rd[0], r[1], rd[1]));
      PetscCall(CompareRichardson(A, Ad, da, nodm, fact, layout, NORM_2, 0.0, PETSC_FALSE, r[0], rd[0], r[1], rd[1]));
      if (smoother) PetscCall(CompareRichardson(A, Ad, da, nodm, fact, layout, NORM_2, 0.5, PETSC_TRUE, r[0], rd[0], r[1], rd[1]));
    }
  }
  PetscCall(Assemble(da, peclet, dirichlet, 1.0, A)); /* the first values again, for the next factorization */
  PetscCall(MatCopy(A, Ad, SAME_NONZERO_PATTERN));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&r[k]));
    PetscCall(VecDestroy(&rd[k]));
  }
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&yd));
  PetscCall(KSPDestroy(&kh));
  PetscCall(KSPDestroy(&kd));
  PetscCall(KSPDestroy(&ky));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        da;
  Mat       A;
  Vec       b;
  PetscInt  nx = 40, ny = 64, nz = 24;
  PetscReal peclet = 20;
  PetscBool nodm = PETSC_FALSE, dirichlet = PETSC_FALSE, device = PETSC_FALSE, box = PETSC_FALSE, factset = PETSC_FALSE;
  char      layout[16] = "grid", fact[16] = "ilu0";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nx", &nx, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ny", &ny, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nz", &nz, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peclet", &peclet, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nodm", &nodm, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dirichlet", &dirichlet, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &box, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-corners", &corners, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ba", &ba, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-smoother", &smoother, NULL));
  PetscCheck(!corners || box, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-corners needs -box");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-layout", layout, sizeof(layout), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fact", fact, sizeof(fact), &factset));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, nx, ny, nz, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, peclet, dirichlet, 1.0, A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", Peclet %g%s%s, %s\n", nx, ny, nz, (double)peclet, dirichlet ? ", Dirichlet rows" : "", corners ? ", 27-point" : "", nodm ? "no DMDA attached" : "DMDA attached"));
  if (device) {
    Mat Ad;
    PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
    for (int k = 0; k < 2; k++) {
      const char *f = k ? "sip" : "ilu0";
      PetscBool   run;
      PetscCall(PetscStrcmp(fact, f, &run));
      if (run || !factset) PetscCall(Compare(da, A, Ad, nodm, peclet, dirichlet, f, layout));
    }
    PetscCall(MatDestroy(&Ad));
  } else { /* host: the option is checked here too (errors), and changes nothing else */
    KSP      ksp;
    PetscInt its, n;
    PetscReal *h;
    PetscCall(MakeKSP(A, da, nodm, "c_", fact, layout, &ksp));
    PetscCall(Solve(ksp, b, &its, &h, &n));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "host %s with -pc_sfilu_layout %s: %" PetscInt_FMT " GMRES iterations\n", fact, layout, its));
    PetscCall(PetscFree(h));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  # CPU: the grid layout is a GPU storage, but asking for it is checked on the host as well
  test:
    suffix: host
    args: -nx 12 -ny 10 -nz 6 -dirichlet
  test:
    suffix: host_grid_option
    args: -nx 12 -ny 10 -nz 6 -nodm -c_pc_sfilu_grid 12,10,6
  test: # no grid given: read from the pattern
    suffix: host_grid_guess
    args: -nx 12 -ny 10 -nz 6 -nodm
    output_file: output/ex11_host_grid_option.out
  test: # on 3 ranks each reads its box of the DMDA: the iterations of the run with the DMDA attached
    suffix: host_grid_guess_mpi
    nsize: 3
    args: -nx 12 -ny 10 -nz 6 -nodm -fact sip
  test: # nx = 2: a box pattern whose distances coincide, no grid read from it
    suffix: no_grid
    args: -nx 2 -ny 10 -nz 6 -nodm -box
    filter: Error: grep -E "needs the grid" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: wrong_pattern
    args: -nx 12 -ny 10 -nz 6 -nodm -c_pc_sfilu_grid 10,12,6
    filter: Error: grep -E "needs a 7-point or 27-point" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: wrong_size
    args: -nx 12 -ny 10 -nz 6 -nodm -c_pc_sfilu_grid 10,10,6
    filter: Error: grep -E "points but the matrix has" | sed -e "s/^\[0\]PETSC ERROR: //"
  test: # a 27-point matrix on its box DMDA, and without it (the grid read from the pattern); SIP refuses the box DMDA
    suffix: box_dmda
    args: -nx 12 -ny 10 -nz 6 -box -corners -dirichlet -fact ilu0
  test:
    suffix: box_guess
    args: -nx 12 -ny 10 -nz 6 -box -corners -fact ilu0 -nodm
  test:
    suffix: box_dmda_sip
    args: -nx 12 -ny 10 -nz 6 -box -fact sip
    filter: Error: grep -E "needs a 3-D DMDA" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: bad_chunk
    args: -nx 12 -ny 10 -nz 6 -c_pc_sfilu_grid_chunk 5
    filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: bad_planes
    args: -nx 12 -ny 10 -nz 6 -c_pc_sfilu_grid_planes 3
    filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
  test: # two sizes, and a size that is not positive
    suffix: bad_grid
    args: -nx 12 -ny 10 -nz 6 -nodm -c_pc_sfilu_grid {{12,10 12,0,6}separate output}
    filter: Error: grep -E "three positive sizes" | sed -e "s/^\[0\]PETSC ERROR: //"
  test: # levels of fill leave the 7-point pattern: the grid layout asked for, and SIP, refuse them
    suffix: fill_levels
    args: -nx 12 -ny 10 -nz 6 -c_pc_sfilu_fill_levels 1 -fact {{ilu0 sip}separate output}
    filter: Error: grep -E "levels of fill|7-point pattern" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: bad_richardson_norm
    args: -nx 12 -ny 10 -nz 6 -c_pc_sfilu_richardson_norm infinity
    filter: Error: grep -E "richardson_norm" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: host_mpi
    nsize: 2
    args: -nx 12 -ny 10 -nz 6 -dirichlet -fact sip

  # GPU: grid sweeps against the host sweeps, ILU(0) and SIP: cubic-ish, ny not a multiple of 32, ny < 32,
  # sides of length 1, Dirichlet rows, no DMDA (-pc_sfilu_grid), auto choosing grid, chunks of 2 and 4, blocks of
  # 1 (the default on grids this small), 2, 4 and 8 z-planes (a last block with fewer planes than warps), 2 ranks;
  # ILU(0) factored by hyperplanes (the default on the grid layout) and by the generic kernel (gpu_generic_factor)
  testset:
    requires: gpu
    args: -device -use_gpu_aware_mpi 0
    test:
      suffix: gpu_40x64x24
    test:
      suffix: gpu_odd
      args: -nx 23 -ny 45 -nz 7 -dirichlet -h_pc_sfilu_grid_chunk 2 -d_pc_sfilu_grid_chunk 2
    test: # gpu_odd and Richardson as a PCMG smoother's KSP runs it: the fused loop with -pc_sfilu_richardson_test false runs its 5 steps
      suffix: gpu_odd_smoother
      args: -nx 23 -ny 45 -nz 7 -dirichlet -h_pc_sfilu_grid_chunk 2 -d_pc_sfilu_grid_chunk 2 -smoother
    test:
      suffix: gpu_generic_factor
      args: -nx 23 -ny 45 -nz 7 -dirichlet -h_pc_sfilu_grid_chunk 2 -d_pc_sfilu_grid_chunk 2 -d_pc_sfilu_grid_factor 0 -dr_pc_sfilu_grid_factor 0 -d_pc_sfilu_factor_match {{map search broadcast}shared output}
      output_file: output/ex11_gpu_odd.out
    test:
      suffix: gpu_small_y
      args: -nx 17 -ny 9 -nz 5 -dirichlet -h_pc_sfilu_grid_chunk 4 -d_pc_sfilu_grid_chunk 4
    test:
      suffix: gpu_planes8
      args: -nx 23 -ny 45 -nz 7 -dirichlet -h_pc_sfilu_grid_planes 8 -d_pc_sfilu_grid_planes 8
      output_file: output/ex11_gpu_odd.out
    test:
      suffix: gpu_planes2
      args: -nx 23 -ny 45 -nz 7 -dirichlet -h_pc_sfilu_grid_planes 2 -d_pc_sfilu_grid_planes 2 -h_pc_sfilu_grid_chunk 2 -d_pc_sfilu_grid_chunk 2
      output_file: output/ex11_gpu_odd.out
    test:
      suffix: gpu_planes4
      args: -nx 17 -ny 9 -nz 5 -dirichlet -h_pc_sfilu_grid_planes 4 -d_pc_sfilu_grid_planes 4
      output_file: output/ex11_gpu_small_y.out
    test:
      suffix: gpu_nx1
      args: -nx 1 -ny 40 -nz 6
    test:
      suffix: gpu_ny1
      args: -nx 24 -ny 1 -nz 9
    test:
      suffix: gpu_nz1
      args: -nx 33 -ny 70 -nz 1
    test:
      suffix: gpu_nodm
      args: -nx 23 -ny 45 -nz 7 -nodm -h_pc_sfilu_grid 23,45,7 -d_pc_sfilu_grid 23,45,7 -y_pc_sfilu_grid 23,45,7 -hr_pc_sfilu_grid 23,45,7 -dr_pc_sfilu_grid 23,45,7
    test:
      suffix: gpu_auto
      args: -nx 23 -ny 45 -nz 7 -layout auto
    test:
      suffix: gpu_mpi
      nsize: 2
      args: -nx 23 -ny 45 -nz 8 -dirichlet
    test: # no grid given: ILU(0) reads it from the pattern
      suffix: gpu_guess
      args: -nx 23 -ny 45 -nz 7 -dirichlet -nodm -layout auto -fact ilu0
    test: # the same on 2 ranks: each reads its box of the DMDA
      suffix: gpu_guess_mpi
      nsize: 2
      args: -nx 23 -ny 45 -nz 7 -dirichlet -nodm -layout auto -fact ilu0

  # GPU, B A x of a left-preconditioned KSP with A x formed inside the L sweep (-pc_sfilu_ba_fused): ILU(0) and SIP,
  # blocks of 1 and 8 planes, Dirichlet rows (rows read by CSR), no DMDA, the grid read from the pattern; the 27-point
  # box (gridbox.cu's residual tiles: Dirichlet rows, 64 planes past the skew's wraps, three tile lines a plane); on
  # 2 ranks the product is not fused (MatMult() and the apply)
  testset:
    requires: gpu
    args: -device -use_gpu_aware_mpi 0 -ba -d_pc_sfilu_ba_fused true
    test:
      suffix: gpu_ba
    test:
      suffix: gpu_ba_planes8
      args: -nx 23 -ny 45 -nz 7 -dirichlet -d_pc_sfilu_grid_planes 8
    test:
      suffix: gpu_ba_guess
      args: -nx 23 -ny 45 -nz 7 -dirichlet -nodm -layout auto -fact ilu0
    test:
      suffix: gpu_ba_mpi
      nsize: 2
      args: -nx 23 -ny 45 -nz 8 -dirichlet
    test:
      suffix: gpu_ba_box
      args: -nx 9 -ny 37 -nz 4 -dirichlet -box -corners -fact ilu0
    test:
      suffix: gpu_ba_box_deep
      args: -nx 6 -ny 70 -nz 64 -box -corners -fact ilu0

  # GPU, 27-point matrices (gridbox.cu, ILU(0) only): tile lines of 30 y-lines, so ny = 45 (a short last one), 30, 31,
  # 61, ny < 30, sides of length 1, more than 30 and 60 z-planes, Dirichlet rows (boundary rows with only a diagonal), no DMDA (the grid read from
  # the pattern, auto choosing the box), 2 ranks
  testset:
    requires: gpu
    args: -device -use_gpu_aware_mpi 0 -box -corners -fact ilu0
    test:
      suffix: gpu_box
      args: -nx 23 -ny 45 -nz 7 -dirichlet
    test:
      suffix: gpu_box_sizes
      args: -nx {{40 7}separate output} -ny {{30 31 61}separate output} -nz 9
    test: # ten tile lines a plane
      suffix: gpu_box_tall
      args: -nx 5 -ny 275 -nz 3
    test:
      suffix: gpu_box_small
      args: -nx 17 -ny 9 -nz 5
    test:
      suffix: gpu_box_nx1
      args: -nx 1 -ny 40 -nz 6
    test:
      suffix: gpu_box_ny1
      args: -nx 24 -ny 1 -nz 9
    test:
      suffix: gpu_box_nz1
      args: -nx 33 -ny 70 -nz 1
    test: # planes past 30 and 60, where the tiles' skew (gridslabs.cuh) wraps round
      suffix: gpu_box_deep
      args: -nx 6 -ny {{1 35 70}separate output} -nz 64
    test: # the factorization with fewer resident warps (a warp a point, positions w, w + W, ...): the same factor
      suffix: gpu_box_warps
      args: -nx 23 -ny 45 -nz 7 -dirichlet -d_pc_sfilu_warps_per_sm {{1 4}} -dr_pc_sfilu_warps_per_sm {{1 4}}
      output_file: output/ex11_gpu_box.out
    test:
      suffix: gpu_box_guess
      args: -nx 23 -ny 45 -nz 7 -dirichlet -nodm -layout auto
    test:
      suffix: gpu_box_mpi
      nsize: 2
      args: -nx 23 -ny 45 -nz 8 -dirichlet

TEST*/
