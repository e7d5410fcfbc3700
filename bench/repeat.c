static char help[] = "Diagnostic: whether identical KSP solves on the GPU repeat. Builds a problem of tests/problems.c, copies it to\n"
                     "aijcusparse (MatSetFromOptions() on the copy, so -mat_cusparse_* options apply), and solves A x = b from x = 0\n"
                     "-solves times (3) with the KSP and PC given by the options, printing each solve's reason, iterations, last residual\n"
                     "norm and the true residual norm to 17 digits, then whether all solves agree bit for bit, and whether two\n"
                     "MatMult() of the same vector do. b is random with a fixed seed. -host: the same on the host matrix (aij).\n"
                     "-resetup: what happens between solves: none (the KSP as it is), values (A and b scaled by 2, so the PC is set\n"
                     "up again on the same pattern), ksp (a new KSP on the same matrix), mat (a new KSP on a copy of the matrix).\n";

#include <petscksp.h>
#include <sfpc.h>
#include "../tests/problems.h"

typedef enum {
  RESETUP_NONE,
  RESETUP_VALUES,
  RESETUP_KSP,
  RESETUP_MAT
} Resetup;
static const char *const Resetups[] = {"none", "values", "ksp", "mat", "Resetup", "RESETUP_", NULL};

int main(int argc, char **argv)
{
  Mat         A, Ad;
  Vec         b, x, bh, r;
  KSP         ksp;
  PetscRandom rnd;
  char        desc[256];
  PetscInt    solves = 3, its0 = -1;
  PetscReal   rn0 = -1;
  PetscBool   same = PETSC_TRUE, host = PETSC_FALSE;
  Resetup     resetup = RESETUP_NONE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-solves", &solves, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host", &host, NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-resetup", Resetups, (PetscEnum *)&resetup, NULL));
  PetscCheck(solves >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-solves must be at least 1");
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(MatConvert(A, host ? MATAIJ : MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
  PetscCall(MatSetFromOptions(Ad));
  PetscCall(MatCreateVecs(Ad, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatCreateVecs(A, NULL, &bh)); /* b drawn on the host, so that -host and the GPU run solve the same system */
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(bh, rnd));
  PetscCall(VecCopy(bh, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, Ad, Ad));
  PetscCall(KSPSetFromOptions(ksp));
  for (PetscInt k = 0; k < solves; k++) {
    PetscInt           its;
    PetscReal          rn, tn;
    KSPConvergedReason reason;

    if (k > 0 && resetup == RESETUP_VALUES) {
      PetscCall(MatScale(Ad, 2.0));
      PetscCall(VecScale(b, 2.0));
    } else if (k > 0 && (resetup == RESETUP_KSP || resetup == RESETUP_MAT)) {
      Mat Ak = Ad;

      if (resetup == RESETUP_MAT) PetscCall(MatDuplicate(Ad, MAT_COPY_VALUES, &Ak));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
      PetscCall(KSPSetOperators(ksp, Ak, Ak));
      PetscCall(KSPSetFromOptions(ksp));
      if (resetup == RESETUP_MAT) PetscCall(MatDestroy(&Ak)); /* the KSP holds it */
    }
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rn));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatMult(Ad, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &tn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, solve %" PetscInt_FMT ": %s in %" PetscInt_FMT " iterations, residual %.17g, true residual %.17g\n", desc, k, KSPConvergedReasons[reason], its, (double)rn, (double)tn));
    if (k == 0) {
      its0 = its;
      rn0  = rn;
    } else if (its != its0 || rn != rn0) same = PETSC_FALSE;
  }
  { /* the SpMV alone */
    Vec       y1, y2;
    PetscReal d;

    PetscCall(VecDuplicate(b, &y1));
    PetscCall(VecDuplicate(b, &y2));
    PetscCall(MatMult(Ad, b, y1));
    PetscCall(MatMult(Ad, b, y2));
    PetscCall(VecAXPY(y2, -1.0, y1));
    PetscCall(VecNorm(y2, NORM_INFINITY, &d));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solves repeat bit for bit: %s; two MatMult() agree bit for bit: %s\n", resetup == RESETUP_VALUES ? "not compared (new values)" : same ? "yes" : "NO", d == 0 ? "yes" : "NO"));
    PetscCall(VecDestroy(&y1));
    PetscCall(VecDestroy(&y2));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&bh));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
