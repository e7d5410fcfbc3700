static char help[] = "PCSFDILU (multicolor DILU) on the host: one apply against an independent implementation of the\n"
                     "formulas in this file (greedy coloring in natural order, E_i = a_ii - sum_{color(j) < color(i)} a_ij a_ji / E_j,\n"
                     "y = (E + U_c)^{-1} E (E + L_c)^{-1} r), before and after new values of the same pattern; GMRES with sfdilu;\n"
                     "GAMG with sfdilu level smoothers under Richardson and Chebyshev against GAMG's defaults, and GAMG's re-set-up\n"
                     "with new values (the coloring kept); a zero E_i.\n"
                     "Options: problem options of tests/problems.c, -gamg (the GAMG runs), -zero (make a_00 zero),\n"
                     "-noref (no comparison with the reference, which is quadratic in the size and sequential).\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

/* The reference: y = M^{-1} r, straight from the definitions, with dense row access through MatGetRow(). */
static PetscErrorCode ReferenceApply(Mat A, Vec r, Vec y, PetscInt *ncolors)
{
  PetscInt           n;
  PetscInt          *color;
  PetscScalar       *E, *z, *ya;
  const PetscScalar *ra;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PetscMalloc3(n, &color, n, &E, n, &z));
  *ncolors = 0;
  for (PetscInt i = 0; i < n; i++) { /* smallest color unused by neighbours j < i, in either direction */
    PetscBool *used;
    PetscCall(PetscCalloc1(n + 1, &used));
    for (PetscInt j = 0; j < i; j++) {
      PetscScalar aij, aji;
      PetscCall(MatGetValue(A, i, j, &aij));
      PetscCall(MatGetValue(A, j, i, &aji));
      if (aij != 0.0 || aji != 0.0) used[color[j]] = PETSC_TRUE;
    }
    color[i] = 0;
    while (used[color[i]]) color[i]++;
    *ncolors = PetscMax(*ncolors, color[i] + 1);
    PetscCall(PetscFree(used));
  }
  for (PetscInt c = 0; c < *ncolors; c++)
    for (PetscInt i = 0; i < n; i++) {
      if (color[i] != c) continue;
      PetscCall(MatGetValue(A, i, i, &E[i]));
      for (PetscInt j = 0; j < n; j++) {
        PetscScalar aij, aji;
        if (color[j] >= c) continue;
        PetscCall(MatGetValue(A, i, j, &aij));
        PetscCall(MatGetValue(A, j, i, &aji));
        E[i] -= aij * aji / E[j];
      }
    }
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArrayWrite(y, &ya));
  for (PetscInt c = 0; c < *ncolors; c++)
    for (PetscInt i = 0; i < n; i++) {
      if (color[i] != c) continue;
      z[i] = ra[i];
      for (PetscInt j = 0; j < n; j++) {
        PetscScalar aij;
        if (color[j] >= c) continue;
        PetscCall(MatGetValue(A, i, j, &aij));
        z[i] -= aij * z[j];
      }
      z[i] /= E[i];
    }
  for (PetscInt c = *ncolors - 1; c >= 0; c--)
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar t = 0;
      if (color[i] != c) continue;
      for (PetscInt j = 0; j < n; j++) {
        PetscScalar aij;
        if (color[j] <= c) continue;
        PetscCall(MatGetValue(A, i, j, &aij));
        t += aij * ya[j];
      }
      ya[i] = z[i] - t / E[i];
    }
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(PetscFree3(color, E, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One PCApply against the reference, to rounding (relative, max norm). */
static PetscErrorCode CompareApply(PC pc, Mat A, Vec r, const char *when)
{
  Vec       y, yref;
  PetscReal err, nrm;
  PetscInt  ncolors;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(r, &y));
  PetscCall(VecDuplicate(r, &yref));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, r, y));
  PetscCall(ReferenceApply(A, r, yref, &ncolors));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nrm));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCall(PetscInfo(pc, "apply %s: max |y - y_ref| / max |y_ref| = %g\n", when, (double)(err / nrm)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "apply %s: %" PetscInt_FMT " colors, agrees with the reference to rounding: %s\n", when, ncolors, err <= 1e-12 * nrm ? "yes" : "NO"));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves; with resolve, solves again with new values of the same pattern, reporting what the second set-up redid. */
static PetscErrorCode Solve(Mat A, Vec b, const char *prefix, PetscBool resolve)
{
  KSP                ksp;
  Vec                x;
  PetscInt           its, c0, s0, c1, s1;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s in %" PetscInt_FMT " iterations\n", prefix, KSPConvergedReasons[reason], its));
  if (resolve) {
    PetscCall(TestEventCount("SFDILUColor", &c0));
    PetscCall(TestEventCount("SFDILUSetUp", &s0));
    PetscCall(MatScale(A, 2.0));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(TestEventCount("SFDILUColor", &c1));
    PetscCall(TestEventCount("SFDILUSetUp", &s1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s again, new values: %s in %" PetscInt_FMT " iterations; the set-up colored %" PetscInt_FMT " levels again and recomputed E on %" PetscInt_FMT "\n", prefix, KSPConvergedReasons[reason], its, c1 - c0, s1 - s0));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         b;
  PC          pc;
  PetscRandom rnd;
  char        desc[256];
  PetscBool   gamg = PETSC_FALSE, zero = PETSC_FALSE, noref = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero", &zero, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-noref", &noref, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  if (zero) {
    PetscCall(MatSetValue(A, 0, 0, 0.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));

  if (!zero && !noref) {
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
    PetscCall(PCSetType(pc, PCSFDILU));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(CompareApply(pc, A, b, "first"));
    PetscCall(MatScale(A, 2.0)); /* new values, same pattern: E again, the coloring kept */
    PetscCall(MatShift(A, 1.0));
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(CompareApply(pc, A, b, "after new values"));
    PetscCall(PCDestroy(&pc));
  }
  PetscCall(Solve(A, b, "dilu_", PETSC_FALSE));
  if (gamg) {
    PetscCall(Solve(A, b, "gamg_default_", PETSC_FALSE));
    PetscCall(Solve(A, b, "gamg_dilu_chebyshev_", PETSC_FALSE));
    PetscCall(Solve(A, b, "gamg_dilu_richardson_", PETSC_TRUE)); /* last: it changes A's values */
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  testset:
    args: -dilu_ksp_type gmres -dilu_pc_type sfdilu -dilu_ksp_gmres_restart 100
    test:
      suffix: poisson7
      args: -problem poisson7 -n 6
    test:
      suffix: convdiff
      args: -problem convdiff -n 6 -peclet 20
    test:
      suffix: permuted
      args: -problem poisson27 -n 5 -permute 3
    test:
      suffix: zeropivot
      args: -problem poisson7 -n 6 -zero
    test:
      suffix: zeropivot_shift
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_shift_type nonzero -dilu_pc_sfdilu_shift_amount 1e-2
    test:
      suffix: badomega
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_omega 2.5
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badshift
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_shift_amount -1
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"

  # convection-dominated: GAMG with its default smoothers (Chebyshev/Jacobi) stalls; with DILU under Richardson it
  # converges in 10 iterations; DILU under Chebyshev stalls too here (Chebyshev's real eigenvalue interval does not
  # fit this nonsymmetric operator), while on the smaller MPI case below it converges in 22. With the interpolation
  # reused, GAMG's second set-up (new values) must recompute E on every level and color none again.
  test:
    suffix: gamg
    args: -problem convdiff -n 24 -peclet 20 -noref -gamg -dilu_pc_type sfdilu -dilu_ksp_type gmres -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu

  test:
    suffix: mpi
    nsize: 2
    args: -problem convdiff -n 10 -peclet 20 -noref -gamg -dilu_pc_type sfdilu -dilu_ksp_type gmres -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu

TEST*/
