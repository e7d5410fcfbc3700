static char help[] = "The Eisenstat form of PCSFILU (-pc_sfilu_eisenstat), or of PCSFDILU with -pc sfdilu (-pc_sfdilu_eisenstat), against the\n"
                     "plain PC on one system (problem options of problems.c).\n"
                     "Preconditioned Richardson with a fixed number of steps (-steps, rtol 0) is the same iteration in both forms (the\n"
                     "form changes variables, not iterates): the solutions must agree to -tol, from a zero and from a random guess. A\n"
                     "Krylov solve (-ksp_type, default cg; -ksp_rtol, default 1e-8): the iterations and reasons of both, the true residual\n"
                     "||b - A x|| / ||b|| of the Eisenstat form's solution below -true_tol (default 10 rtol), b given back bit for bit,\n"
                     "and PCApply() outside a solve the plain sfilu's apply bit for bit. -device: the Eisenstat form also on an\n"
                     "aijcusparse copy with CUDA vectors: Richardson's solutions to -tol of the host's, the Krylov iterations (within one)\n"
                     "and residual history (to -tol) of the host's, two solves bit for bit (-host_vecs: with host vectors), the operator itself (taken between\n"
                     "PCPreSolve() and PCPostSolve()) on a random vector the host's to 1e-13 (-bitwise: bit for bit, as the 7-point grid\n"
                     "layout's sweeps and the operator's two passes compute the host's operations), and PCApply() after the solves the\n"
                     "host's to 1e-13. Every Krylov solve says whether its operator was the form's (a MATSHELL inside the solve).\n"
                     "Where the form steps aside (host): -refactor (new values: it is built again), -reuse (new values with\n"
                     "KSPSetReusePreconditioner(): plain sfilu), -transpose (KSPSolveTranspose(): plain), -nullspace (the constants\n"
                     "attached as A's null space: plain, the plain sfilu's solution bit for bit), -stopped (a solve stopped by an error, then\n"
                     "KSPSetOperators() with a new matrix: the next solve takes it, in the form). -nonzero_guess: the Krylov solves\n"
                     "from a random guess (a multiplication by the operator comes first). Options for both PCs (layout, shifts)\n"
                     "are given as usual (-pc_sfilu_...): each PC reads them, the form itself is set here.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

#define MAXHIST 2000

typedef struct {
  PetscInt           its, nhist;
  KSPConvergedReason reason;
  PetscReal          hist[MAXHIST];
  PetscBool          shell;     /* the KSP's operator inside the solve was a MATSHELL (the form's) */
  PetscBool          transpose; /* solve with KSPSolveTranspose() */
} Run;

/* Notes, at the solve's first monitor call, whether the KSP's operator is the form's shell. */
static PetscErrorCode NoteOperator(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  Run *run = (Run *)ctx;
  PC   pc;
  Mat  A;

  PetscFunctionBeginUser;
  (void)rnorm;
  if (it > 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetOperators(pc, &A, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSHELL, &run->shell));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A KSP with the PC pctype (Eisenstat form or not) on A, from the options; steps > 0: Richardson, that many steps, no test. */
static PetscErrorCode KSPMake(Mat A, const char *pctype, PetscBool eis, PetscInt steps, KSP *ksp)
{
  PC   pc;
  char opt[64];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-pc_%s_eisenstat", pctype));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(PetscOptionsSetValue(NULL, opt, eis ? "1" : "0"));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPSetFromOptions(*ksp));
  if (steps > 0) {
    PetscCall(KSPSetType(*ksp, KSPRICHARDSON));
    PetscCall(KSPSetNormType(*ksp, KSP_NORM_NONE));
    PetscCall(KSPSetTolerances(*ksp, 0, 0, PETSC_CURRENT, steps));
  }
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(KSP ksp, Vec b, Vec x0, Vec x, Run *run)
{
  PetscFunctionBeginUser;
  run->shell = PETSC_FALSE;
  PetscCall(KSPMonitorCancel(ksp));
  PetscCall(KSPMonitorSet(ksp, NoteOperator, run, NULL));
  if (x0) {
    PetscCall(VecCopy(x0, x));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  } else PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
  PetscCall(KSPSetResidualHistory(ksp, run->hist, MAXHIST, PETSC_TRUE));
  if (run->transpose) PetscCall(KSPSolveTranspose(ksp, b, x));
  else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &run->its));
  PetscCall(KSPGetConvergedReason(ksp, &run->reason));
  PetscCall(KSPGetResidualHistory(ksp, NULL, &run->nhist));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stops a solve with an error at its first iteration (-stopped). */
static PetscErrorCode StopAtOne(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  (void)ksp, (void)rnorm, (void)ctx;
  return it == 1 ? PETSC_ERR_USER : PETSC_SUCCESS;
}

/* max_i |x_i - y_i| / max_i |y_i| */
static PetscErrorCode RelDiff(Vec x, Vec y, PetscReal *d)
{
  Vec       e;
  PetscReal ny;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(y, &e));
  PetscCall(VecWAXPY(e, -1.0, y, x));
  PetscCall(VecNorm(e, NORM_INFINITY, d));
  PetscCall(VecNorm(y, NORM_INFINITY, &ny));
  if (ny > 0) *d /= ny;
  if (PetscIsInfOrNanReal(*d)) *d = PETSC_INFINITY;
  PetscCall(VecDestroy(&e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether ||b - op(A) x|| <= tol ||b|| (op: A or its transpose). */
static PetscErrorCode TrueResidualBelow(Mat A, PetscBool transpose, Vec b, Vec x, PetscReal tol, PetscBool *below)
{
  Vec       r;
  PetscReal nr, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &r));
  if (transpose) PetscCall(MatMultTranspose(A, x, r));
  else PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *below = (PetscBool)(nr <= tol * nb);
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Eisenstat form's operator on v, taken between PCPreSolve() and PCPostSolve() of ksp (after a solve, which gave ksp its b and x). */
static PetscErrorCode ApplyOperator(KSP ksp, Vec v, Vec y)
{
  PC        pc;
  Mat       S;
  PetscBool isshell;

  PetscFunctionBeginUser;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCPreSolve(pc, ksp));
  PetscCall(PCGetOperators(pc, &S, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)S, MATSHELL, &isshell));
  PetscCheck(isshell, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "The Eisenstat form did not take the KSP's operator: the comparison would be of A");
  PetscCall(MatMult(S, v, y));
  PetscCall(PCPostSolve(pc, ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same histories: equal lengths within one, entries within tol of the first's scale over the common length. */
static PetscBool SameHistory(const Run *a, const Run *b, PetscReal tol)
{
  const PetscInt n = PetscMin(a->nhist, b->nhist);

  if (a->reason != b->reason || PetscAbsInt(a->its - b->its) > 1) return PETSC_FALSE;
  for (PetscInt k = 0; k < n; k++)
    if (!(PetscAbsReal(a->hist[k] - b->hist[k]) <= tol * PetscMax(a->hist[k], PETSC_SMALL * a->hist[0]))) return PETSC_FALSE;
  return PETSC_TRUE;
}

int main(int argc, char **argv)
{
  Mat         A, Ad = NULL;
  Vec         b, x, xe, x0, bsave, r, xh, bd, xd, xd2, x0d;
  PetscRandom rnd;
  KSP         kp, ke, kd;
  PC          pp, pe;
  Run        *plain, *eis, *gpu, *gpu2;
  PetscReal   tol = 1e-10, truetol = -1, rtol, d, nb, nr;
  PetscInt    steps = 6;
  PetscBool   device = PETSC_FALSE, hostvecs = PETSC_FALSE, bitwise = PETSC_FALSE, same, refactor = PETSC_FALSE, reuse = PETSC_FALSE, transpose = PETSC_FALSE, nullspace = PETSC_FALSE, guess = PETSC_FALSE, stopped = PETSC_FALSE, below;
  char        desc[256], ktype[64] = KSPCG, pctype[64] = PCSFILU;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-true_tol", &truetol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bitwise", &bitwise, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host_vecs", &hostvecs, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-refactor", &refactor, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-reuse", &reuse, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-transpose", &transpose, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nullspace", &nullspace, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nonzero_guess", &guess, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-stopped", &stopped, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ksp_type", ktype, sizeof(ktype), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc", pctype, sizeof(pctype), NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(TestProblemVariants(&A, desc, sizeof(desc)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  if (nullspace) { /* the constants, attached as A's null space (and its transpose's): KSPSolve() then projects b, and the form steps aside */
    MatNullSpace nsp;

    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nsp));
    PetscCall(MatSetNullSpace(A, nsp));
    PetscCall(MatSetTransposeNullSpace(A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
  }
  PetscCall(PetscCalloc4(1, &plain, 1, &eis, 1, &gpu, 1, &gpu2));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xe));
  PetscCall(VecDuplicate(x, &x0));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecDuplicate(x, &xh));
  PetscCall(VecDuplicate(b, &bsave));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(x0, rnd));
  if (device) {
    PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
    if (hostvecs) PetscCall(MatCreateVecs(A, &xd, &bd)); /* the GPU PC with the KSP's vectors on the host: staged through device copies */
    else PetscCall(MatCreateVecs(Ad, &xd, &bd));
    PetscCall(VecDuplicate(xd, &xd2));
    PetscCall(VecDuplicate(xd, &x0d));
    PetscCall(VecCopy(b, bd));
    PetscCall(VecCopy(x0, x0d));
  }

  /* Richardson: the same iterates */
  PetscCall(KSPMake(A, pctype, PETSC_FALSE, steps, &kp));
  PetscCall(KSPMake(A, pctype, PETSC_TRUE, steps, &ke));
  if (device) PetscCall(KSPMake(Ad, pctype, PETSC_TRUE, steps, &kd));
  for (int g = 0; g < 2; g++) {
    PCFailedReason failed;

    PetscCall(Solve(kp, b, g ? x0 : NULL, x, plain));
    PetscCall(KSPGetPC(kp, &pp));
    PetscCall(PCGetFailedReason(pp, &failed));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &failed, 1, MPIU_ENUM, MPI_MAX, PETSC_COMM_WORLD)); /* failed on any rank */
    if (failed != PC_NOERROR) break; /* a failed factor: the Krylov part below reports it */
    PetscCall(Solve(ke, b, g ? x0 : NULL, xe, eis));
    PetscCall(RelDiff(xe, x, &d));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "richardson %" PetscInt_FMT " steps from a %s guess: the same solution to %g: %s\n", steps, g ? "random" : "zero", (double)tol, d <= tol ? "yes" : "no"));
    if (d > tol) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  relative difference %g\n", (double)d));
    if (device) {
      PetscCall(Solve(kd, bd, g ? x0d : NULL, xd, gpu));
      PetscCall(VecCopy(xd, xh)); /* the GPU's values on the host */
      PetscCall(RelDiff(xh, xe, &d));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU: the host's solution to %g: %s\n", (double)tol, d <= tol ? "yes" : "no"));
      if (d > tol) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  relative difference %g\n", (double)d));
    }
  }
  PetscCall(KSPDestroy(&kp));
  PetscCall(KSPDestroy(&ke));
  if (device) PetscCall(KSPDestroy(&kd));

  /* Krylov */
  PetscCall(KSPMake(A, pctype, PETSC_FALSE, 0, &kp));
  PetscCall(KSPMake(A, pctype, PETSC_TRUE, 0, &ke));
  PetscCall(KSPGetTolerances(ke, &rtol, NULL, NULL, NULL));
  if (truetol < 0) truetol = 10 * rtol;
  PetscCall(Solve(kp, b, guess ? x0 : NULL, x, plain));
  PetscCall(VecCopy(b, bsave));
  PetscCall(Solve(ke, b, guess ? x0 : NULL, xe, eis));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: plain %s in %" PetscInt_FMT " iterations, eisenstat %s in %" PetscInt_FMT "\n", ktype, KSPConvergedReasons[plain->reason], plain->its, KSPConvergedReasons[eis->reason], eis->its));
  PetscCall(VecEqual(b, bsave, &same));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eisenstat: b given back bit for bit: %s\n", same ? "yes" : "no"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eisenstat: the KSP's operator inside the solve is the form's: %s\n", eis->shell ? "yes" : "no"));
  if (eis->reason > 0 && nullspace) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eisenstat: the solution is the plain %s's bit for bit: %s\n", pctype, (VecEqual(x, xe, &same), same) ? "yes" : "no"));
  if (eis->reason > 0 && !nullspace) {
    PetscCall(MatMult(A, xe, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eisenstat: true residual below %g: %s\n", (double)truetol, nr <= truetol * nb ? "yes" : "no"));
    if (nr > truetol * nb) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ||b - A x|| / ||b|| = %g\n", (double)(nr / nb)));
    /* outside a KSPSolve() the PC is the plain one's */
    PetscCall(KSPGetPC(kp, &pp));
    PetscCall(KSPGetPC(ke, &pe));
    PetscCall(PCApply(pp, x0, x));
    PetscCall(PCApply(pe, x0, xe));
    PetscCall(VecEqual(x, xe, &same));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "eisenstat: PCApply() outside a solve is %s's bit for bit: %s\n", pctype, same ? "yes" : "no"));
  }
  if (device) {
    PetscCall(KSPMake(Ad, pctype, PETSC_TRUE, 0, &kd));
    PetscCall(Solve(kd, bd, NULL, xd, gpu));
    PetscCall(Solve(kd, bd, NULL, xd2, gpu2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: %s in %s the host's iterations, residual history to %g: %s\n", KSPConvergedReasons[gpu->reason], gpu->its == eis->its ? "exactly" : "within one of", (double)tol, SameHistory(eis, gpu, tol) ? "yes" : "no"));
    if (!SameHistory(eis, gpu, tol)) {
      PetscReal dev = 0;
      for (PetscInt k = 0; k < PetscMin(eis->nhist, gpu->nhist); k++) dev = PetscMax(dev, PetscAbsReal(eis->hist[k] - gpu->hist[k]) / PetscMax(eis->hist[k], PETSC_SMALL * eis->hist[0]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  GPU %" PetscInt_FMT " iterations, host %" PetscInt_FMT ", largest relative difference %g\n", gpu->its, eis->its, (double)dev));
    }
    PetscCall(VecEqual(xd, xd2, &same));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: two solves bit for bit: %s\n", same ? "yes" : "no"));
    PetscCall(VecEqual(bd, b, &same));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: b given back bit for bit: %s\n", same ? "yes" : "no"));
    if (eis->reason > 0 && eis->shell) { /* the operator alone (where the solves took the form), and the plain apply after the solves (the engine's work vector must be ready again) */
      PetscCall(ApplyOperator(ke, x0, r)); /* not into the KSPs' solutions, which PCPostSolve() changes */
      PetscCall(ApplyOperator(kd, x0d, xd));
      PetscCall(VecCopy(xd, xh)); /* the GPU's values on the host */
      if (bitwise) {
        PetscCall(VecEqual(xh, r, &same));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: the operator on a random vector bit for bit the host's: %s\n", same ? "yes" : "no"));
      } else {
        PetscCall(RelDiff(xh, r, &d));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: the operator on a random vector the host's to 1e-13: %s\n", d <= 1e-13 ? "yes" : "no"));
      }
      PetscCall(KSPGetPC(kd, &pe));
      PetscCall(PCApply(pe, x0d, xd));
      PetscCall(KSPGetPC(ke, &pe));
      PetscCall(PCApply(pe, x0, xe));
      PetscCall(VecCopy(xd, xh)); /* the GPU's values on the host */
      PetscCall(RelDiff(xh, xe, &d));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU: PCApply() after the solves the host's to 1e-13: %s\n", d <= 1e-13 ? "yes" : "no"));
    }
    PetscCall(KSPDestroy(&kd));
  }
  if (refactor) { /* new values of the same pattern: D^{-1} and K built again */
    PetscCall(MatShift(A, 1.0));
    PetscCall(Solve(kp, b, NULL, x, plain));
    PetscCall(Solve(ke, b, NULL, xe, eis));
    PetscCall(TrueResidualBelow(A, PETSC_FALSE, b, xe, truetol, &below));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "new values: plain %s in %" PetscInt_FMT " iterations, eisenstat %s in %" PetscInt_FMT ", the form's operator: %s, true residual below %g: %s\n", KSPConvergedReasons[plain->reason], plain->its, KSPConvergedReasons[eis->reason], eis->its, eis->shell ? "yes" : "no", (double)truetol, below ? "yes" : "no"));
  }
  if (reuse) { /* new values, the PC kept (KSPSetReusePreconditioner()): its D^{-1} and K are the old matrix's, so the solve runs plain */
    PetscCall(KSPSetReusePreconditioner(ke, PETSC_TRUE));
    PetscCall(MatShift(A, 1.0));
    PetscCall(Solve(ke, b, NULL, xe, eis));
    PetscCall(TrueResidualBelow(A, PETSC_FALSE, b, xe, truetol, &below));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reused PC after new values: eisenstat %s, the form's operator: %s, true residual below %g: %s\n", KSPConvergedReasons[eis->reason], eis->shell ? "yes" : "no", (double)truetol, below ? "yes" : "no"));
    PetscCall(KSPSetReusePreconditioner(ke, PETSC_FALSE));
  }
  if (transpose) { /* KSPSolveTranspose(): the shell has no transpose, so the solve runs plain */
    eis->transpose = PETSC_TRUE;
    PetscCall(Solve(ke, b, NULL, xe, eis));
    eis->transpose = PETSC_FALSE;
    PetscCall(TrueResidualBelow(A, PETSC_TRUE, b, xe, truetol, &below));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "transposed solve: eisenstat %s, the form's operator: %s, true residual of A^T x = b below %g: %s\n", KSPConvergedReasons[eis->reason], eis->shell ? "yes" : "no", (double)truetol, below ? "yes" : "no"));
  }
  if (stopped) { /* a solve stopped by an error between PCPreSolve() and PCPostSolve(), then new operators: the next solve has them */
    Mat            B, S;
    Vec            bstop;
    PetscErrorCode ierr;
    PetscInt       lock;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
    PetscCall(MatShift(B, 1.0));
    PetscCall(VecDuplicate(b, &bstop));
    PetscCall(VecCopy(b, bstop));
    PetscCall(KSPMonitorCancel(ke));
    PetscCall(KSPMonitorSet(ke, StopAtOne, NULL, NULL));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = KSPSolve(ke, bstop, xe);
    PetscCall(PetscPopErrorHandler());
    PetscCall(VecLockGet(bstop, &lock)); /* KSPSolve() returned before giving its read lock back */
    for (; lock > 0; lock--) PetscCall(VecLockReadPop(bstop));
    PetscCall(KSPSetOperators(ke, B, B));
    PetscCall(Solve(ke, b, NULL, xe, eis));
    PetscCall(KSPGetOperators(ke, &S, NULL));
    PetscCall(TrueResidualBelow(B, PETSC_FALSE, b, xe, truetol, &below));
    PetscCall(KSPSetOperators(kp, B, B));
    PetscCall(Solve(kp, b, NULL, x, plain));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a solve stopped by an error: %s; then new operators: the KSP's operator is the new matrix: %s, eisenstat %s in %" PetscInt_FMT " iterations (plain %" PetscInt_FMT "), the form's operator: %s, true residual below %g: %s\n", ierr ? "yes" : "no", S == B ? "yes" : "no", KSPConvergedReasons[eis->reason], eis->its, plain->its, eis->shell ? "yes" : "no", (double)truetol, below ? "yes" : "no"));
    PetscCall(VecDestroy(&bstop));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(KSPDestroy(&kp));
  PetscCall(KSPDestroy(&ke));

  PetscCall(PetscFree4(plain, eis, gpu, gpu2));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xe));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&bsave));
  if (device) {
    PetscCall(VecDestroy(&xd));
    PetscCall(VecDestroy(&xd2));
    PetscCall(VecDestroy(&x0d));
    PetscCall(VecDestroy(&bd));
    PetscCall(MatDestroy(&Ad));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  testset:
    args: -dll_append ${sfpc_dir}/lib/libsfpc.so
    test:
      suffix: poisson7
      args: -problem poisson7 -n 16
    test: # nonsymmetric: BiCGStab and GMRES
      suffix: convdiff
      args: -problem convdiff -n 14 -peclet 10 -ksp_type {{bcgs gmres}separate output}
    test:
      suffix: aniso
      args: -problem anisotropic -n 14 -aniso 0.001
    test: # a 5-point 2-D grid, permuted: the form holds for any ordering of a pattern whose ILU(0) has no fill to drop into it
      suffix: poisson2d_permuted
      args: -problem fields -dim 2 -dof 1 -n 40 -permute 5 -ksp_type gmres -ksp_gmres_restart 200
    test: # a shifted factor (A + s I, a_00 = 0): K is formed with A's diagonal
      suffix: shift
      args: -problem poisson7 -n 10 -zero -pc_sfilu_shift_type positive_definite -ksp_type gmres
    test: # new values (the form rebuilt), a reused PC and a transposed solve (the form steps aside, the solves still right)
      suffix: variants
      args: -problem convdiff -n 10 -peclet 5 -ksp_type gmres -refactor -reuse -transpose -stopped
    test:
      suffix: variants_mpi
      nsize: 2
      args: -problem convdiff -n 10 -peclet 5 -ksp_type gmres -refactor -reuse -transpose -stopped
    test: # -ksp_pc_side symmetric: the plain sfilu applies L^{-1} on the left and U^{-1} on the right (PETSc's seqaij ILU has no such
      # application), and the form steps aside; -steps 0: Richardson takes no symmetric side
      suffix: symmetric_side
      args: -problem convdiff -n 10 -peclet 5 -ksp_type gmres -ksp_pc_side symmetric -steps 0
    test: # a null space attached to A: KSPSolve() projects the right-hand side, so the form steps aside
      suffix: nullspace
      args: -problem poisson7 -n 8 -nullspace -ksp_type gmres
    test: # a failed factor: both stop with the PC's failure
      suffix: zeropivot
      args: -problem poisson7 -n 8 -zero
    test: # 27 points: ILU(0) updates off-diagonal entries, the form does not hold
      suffix: poisson27
      args: -problem poisson27 -n 6
      filter: Error: grep -E "pc_sfilu_eisenstat needs" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: iluk
      args: -problem poisson7 -n 6 -pc_sfilu_fill_levels 1
      filter: Error: grep -E "pc_sfilu_eisenstat needs" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # KSPCHEBYSHEV estimates the eigenvalues of the operator it is given, here the Eisenstat form's
      suffix: chebyshev
      args: -problem poisson7 -n 6 -ksp_type chebyshev -ksp_chebyshev_esteig
    test: # several ranks: each factors its diagonal block, and the couplings between ranks are multiplied on the way
      suffix: mpi
      nsize: {{2 3}separate output}
      args: -problem {{poisson7 convdiff}separate output} -n 12 -peclet 5 -ksp_type bcgs
    test:
      suffix: mpi_cg
      nsize: 3
      args: -problem poisson7 -n 12
    test:
      suffix: mpi_poisson27
      nsize: 2
      args: -problem poisson27 -n 6
      filter: Error: grep -E "pc_sfilu_eisenstat needs" | sed -e "s/^\[.\]PETSC ERROR: //" | sort -u
    test: # sfdilu's form: in color order DILU's triangles always carry A's off-diagonal entries (no pattern to check)
      suffix: dilu
      args: -pc sfdilu -problem {{poisson7 anisotropic}separate output} -n 14 -aniso 0.001
    test:
      suffix: dilu_convdiff
      args: -pc sfdilu -problem convdiff -n 14 -peclet 10 -ksp_type bcgs
    test:
      suffix: dilu_variants
      args: -pc sfdilu -problem convdiff -n 10 -peclet 5 -ksp_type gmres -refactor -reuse -transpose -stopped
    test: # a shifted E (a_00 = 0): K is formed with A's own diagonal
      suffix: dilu_shift
      args: -pc sfdilu -problem poisson7 -n 10 -zero -pc_sfdilu_shift_type nonzero -pc_sfdilu_shift_amount 0.05 -ksp_type gmres
    test:
      suffix: dilu_zeropivot
      args: -pc sfdilu -problem poisson7 -n 8 -zero
    test:
      suffix: dilu_chebyshev
      args: -pc sfdilu -problem poisson7 -n 6 -ksp_type chebyshev -ksp_chebyshev_esteig
    test:
      suffix: dilu_mpi
      nsize: {{2 3}separate output}
      args: -pc sfdilu -problem convdiff -n 12 -peclet 5 -ksp_type bcgs
    test: # a factor failed on one rank only: every rank runs the plain PC (the form on some ranks only would hang in the first product)
      suffix: mpi_zeropivot
      nsize: 2
      args: -pc {{sfilu sfdilu}separate output} -problem poisson7 -n 8 -zero -nonzero_guess
    test: # BiCG multiplies by the operator's transpose, which the form's shell lacks: the plain PC
      suffix: bicg
      args: -pc {{sfilu sfdilu}separate output} -problem convdiff -n 10 -peclet 5 -ksp_type bicg
    test: # a Richardson smoother in the form is KSPRICHARDSON's loop, weighted by -ksp_richardson_scale: -pc_sfdilu_omega is refused
      suffix: dilu_omega
      args: -pc sfdilu -problem poisson7 -n 6 -pc_sfdilu_omega 0.8
      filter: Error: grep -E "ksp_richardson_scale" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # the global DILU's triangles hold the couplings between ranks: refused
      suffix: dilu_parallel
      nsize: 2
      args: -pc sfdilu -problem poisson7 -n 8 -pc_sfdilu_parallel
      filter: Error: grep -E "pc_sfdilu_eisenstat works" | sed -e "s/^\[.\]PETSC ERROR: //" | sort -u

  testset:
    requires: gpu
    args: -dll_append ${sfpc_dir}/lib/libsfpc.so -device -use_gpu_aware_mpi 0 -tol 1e-8
    test:
      suffix: gpu_poisson7
      args: -problem poisson7 -n 24 -pc_sfilu_layout {{grid hyb csr}shared output}
    test: # the grid layout's operator: the host's operations, bit for bit (a short last block of planes, two tile lines a plane)
      suffix: gpu_grid_bitwise
      args: -problem convdiff -n 37 -peclet 3 -ksp_type bcgs -pc_sfilu_layout grid -bitwise
    test:
      suffix: gpu_convdiff
      args: -problem convdiff -n 20 -peclet 10 -ksp_type bcgs -pc_sfilu_layout {{grid hyb}shared output}
    test: # the symmetric side on the GPU: the L and U sweeps alone
      suffix: gpu_symmetric_side
      args: -problem convdiff -n 10 -peclet 5 -ksp_type gmres -ksp_pc_side symmetric -steps 0
    test: # permuted: the hyb layout (a 7-point graph has no triangles, so no ordering gives its ILU(0) fill to drop into it)
      suffix: gpu_convdiff_permuted
      args: -problem convdiff -n 20 -peclet 10 -permute 5 -ksp_type gmres
    test: # the GPU PC with host vectors in the KSP (staged through device copies), one and two ranks
      suffix: gpu_host_vecs
      nsize: {{1 2}separate output}
      args: -problem poisson7 -n 12 -host_vecs -zslabs
    test: # two ranks on the GPU (one GPU is enough: PETSc gives rank r GPU r mod their number)
      suffix: gpu_mpi
      nsize: 2
      args: -problem poisson7 -n 20 -zslabs
    test:
      suffix: gpu_poisson27
      args: -problem poisson27 -n 8
      filter: Error: grep -E "pc_sfilu_eisenstat needs" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # sfdilu's form on the GPU: the engine's operator between a gather into color (or local) order and a scatter back; JPL colors both alike
      suffix: gpu_dilu
      args: -pc sfdilu -pc_sfdilu_coloring jpl -problem poisson7 -n 24 -pc_sfdilu_order {{color local}shared output}
    test: # nonsymmetric: GMRES (BiCGStab's residual history leaves the host's at 1e-5 within its 21 iterations, from rounding)
      suffix: gpu_dilu_convdiff
      args: -pc sfdilu -pc_sfdilu_coloring jpl -problem convdiff -n 24 -peclet 10 -ksp_type gmres -pc_sfdilu_order {{color local}shared output}
    test: # two ranks: the operator composed from the GPU sweeps and PETSc's vector operations
      suffix: gpu_dilu_mpi
      nsize: 2
      args: -pc sfdilu -pc_sfdilu_coloring jpl -problem poisson7 -n 20 -zslabs
    test:
      suffix: gpu_dilu_host_vecs
      args: -pc sfdilu -pc_sfdilu_coloring jpl -problem poisson7 -n 12 -host_vecs

TEST*/
