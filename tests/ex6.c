static char help[] = "PCSFDILU (multicolor DILU) on the host and the GPU: one apply against an independent implementation of the\n"
                     "formulas in this file (greedy coloring in natural order, E_i = a_ii - sum_{color(j) < color(i)} a_ij a_ji / E_j,\n"
                     "y = (E + U_c)^{-1} E (E + L_c)^{-1} r), before and after new values of the same pattern; GMRES with sfdilu;\n"
                     "GAMG with sfdilu level smoothers under Richardson and Chebyshev against GAMG's defaults, and GAMG's re-set-up\n"
                     "with new values (the coloring kept); a zero E_i.\n"
                     "Options: problem options of tests/problems.c, -gamg (the GAMG runs), -zero (make a_00 zero), -spoil_nan (make a_00 NaN),\n"
                     "-zero_rhs (b = 0; with -dilu_ksp_initial_guess_nonzero the solve starts from a random guess),\n"
                     "-asymmetric (drop a third of the upper entries from the pattern: a pattern that is not symmetric),\n"
                     "-noref (no comparison with the reference, which is quadratic in the size and sequential),\n"
                     "-device (everything also on a seqaijcusparse copy: the GPU smoother against the reference, the host smoother\n"
                     "with the same options, and the host's iteration counts);\n"
                     "-api_coloring <auto,greedy,jpl,grid>, -api_sweep <auto,syncfree,percolor,parts>, -api_order <auto,color,local> (the dilu_\n"
                     "PCs given these through PCSFDILUSet{Coloring,Sweep,Order}Type() after their options, in this order),\n"
                     "-api_check (the getters return what the setters set; a coloring type set after set-up recolors at the next\n"
                     "set-up as -pc_sfdilu_coloring does; the setters do nothing on another PC type).\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

/* The greedy coloring the host PC should find: the smallest color unused by neighbours j < i, in either direction. */
static PetscErrorCode ReferenceGreedy(Mat A, PetscInt color[], PetscInt *ncolors)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  *ncolors = 0;
  for (PetscInt i = 0; i < n; i++) {
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the coloring is proper: no two coupled rows (a_ij or a_ji nonzero, i != j) share a color, and colors are 0 .. ncolors - 1. */
static PetscErrorCode ProperColoring(Mat A, const PetscInt color[], PetscInt ncolors, PetscBool *proper)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  *proper = PETSC_TRUE;
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    if (color[i] < 0 || color[i] >= ncolors) *proper = PETSC_FALSE;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] != i && vals[k] != 0.0 && color[cols[k]] == color[i]) *proper = PETSC_FALSE;
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference: y = M^{-1} r for the given coloring, straight from the definitions, with dense row access through MatGetValue(). */
static PetscErrorCode ReferenceApply(Mat A, const PetscInt color[], PetscInt ncolors, Vec r, Vec y)
{
  PetscInt           n;
  PetscScalar       *E, *z, *ya;
  const PetscScalar *ra;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PetscMalloc2(n, &E, n, &z));
  for (PetscInt c = 0; c < ncolors; c++)
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
  for (PetscInt c = 0; c < ncolors; c++)
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
  for (PetscInt c = ncolors - 1; c >= 0; c--)
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
  PetscCall(PetscFree2(E, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   One PCApply (pc set up on Ap, a host or GPU copy of A) against the reference with the PC's own
   coloring, which must be proper; says whether it is the greedy reference's coloring.
*/
static PetscErrorCode CompareApply(PC pc, Mat A, Vec r, const char *when)
{
  Vec             y, yref, rh;
  PetscReal       err, nrm;
  PetscInt        n, ncolors, ngreedy, *greedy;
  const PetscInt *color;
  PetscBool       proper = PETSC_FALSE, same = PETSC_TRUE; /* proper: set by ProperColoring(); the compiler cannot see it through PetscCall() */

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  PetscCall(PCSetUp(pc));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(PCApply(pc, r, y));
  PetscCall(PCSFDILUGetColoring(pc, &ncolors, &color));
  PetscCall(ProperColoring(A, color, ncolors, &proper));
  PetscCall(PetscMalloc1(n, &greedy));
  PetscCall(ReferenceGreedy(A, greedy, &ngreedy));
  for (PetscInt i = 0; i < n; i++) same = (PetscBool)(same && greedy[i] == color[i]);
  PetscCall(PetscFree(greedy));
  PetscCall(MatCreateVecs(A, &rh, &yref));
  PetscCall(VecCopy(r, rh)); /* r and y may be GPU vectors, rh and yref are host ones */
  PetscCall(ReferenceApply(A, color, ncolors, rh, yref));
  PetscCall(VecNorm(yref, NORM_INFINITY, &nrm));
  PetscCall(VecCopy(y, rh));
  PetscCall(VecAXPY(yref, -1.0, rh));
  PetscCall(VecNorm(yref, NORM_INFINITY, &err));
  PetscCall(PetscInfo(pc, "apply %s: max |y - y_ref| / max |y_ref| = %g\n", when, (double)(err / nrm)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "apply %s: %" PetscInt_FMT " colors, proper: %s, the greedy reference's: %s; agrees with the reference to rounding: %s\n", when, ncolors, proper ? "yes" : "NO", same ? "yes" : "no", err <= 1e-12 * nrm ? "yes" : "NO"));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&rh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -api_coloring, -api_sweep, -api_order: the types given through the setters (after PCSetFromOptions()), not options. */
static PetscErrorCode ApiTypes(PC pc)
{
  PetscEnum e;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-api_coloring", PCSFDILUColoringTypes, &e, &set));
  if (set) PetscCall(PCSFDILUSetColoringType(pc, (PCSFDILUColoringType)e));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-api_sweep", PCSFDILUSweepTypes, &e, &set));
  if (set) PetscCall(PCSFDILUSetSweepType(pc, (PCSFDILUSweepType)e));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-api_order", PCSFDILUOrderTypes, &e, &set));
  if (set) PetscCall(PCSFDILUSetOrderType(pc, (PCSFDILUOrderType)e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PrintTypes(PC pc, const char *when)
{
  PCSFDILUColoringType c;
  PCSFDILUSweepType    s;
  PCSFDILUOrderType    o;

  PetscFunctionBegin;
  PetscCall(PCSFDILUGetColoringType(pc, &c));
  PetscCall(PCSFDILUGetSweepType(pc, &s));
  PetscCall(PCSFDILUGetOrderType(pc, &o));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: coloring %s, sweep %s, order %s\n", when, PCSFDILUColoringTypes[c], PCSFDILUSweepTypes[s], PCSFDILUOrderTypes[o]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The three types set through the API, then read back and printed. */
static PetscErrorCode SetTypes(PC pc, PCSFDILUColoringType c, PCSFDILUSweepType w, PCSFDILUOrderType o)
{
  char when[96];

  PetscFunctionBegin;
  PetscCall(PCSFDILUSetColoringType(pc, c));
  PetscCall(PCSFDILUSetSweepType(pc, w));
  PetscCall(PCSFDILUSetOrderType(pc, o));
  PetscCall(PetscSNPrintf(when, sizeof(when), "set %s, %s, %s", PCSFDILUColoringTypes[c], PCSFDILUSweepTypes[w], PCSFDILUOrderTypes[o]));
  PetscCall(PrintTypes(pc, when));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The JPL coloring asked of a set-up PC: through PCSFDILUSetColoringType() (byoption false) or -chk_pc_sfdilu_coloring jpl. */
static PetscErrorCode AskJPL(PC pc, PetscBool byoption)
{
  PetscFunctionBegin;
  if (byoption) {
    PetscCall(PetscOptionsSetValue(NULL, "-chk_pc_sfdilu_coloring", "jpl"));
    PetscCall(PCSetFromOptions(pc));
    PetscCall(PetscOptionsClearValue(NULL, "-chk_pc_sfdilu_coloring"));
  } else PetscCall(PCSFDILUSetColoringType(pc, PCSFDILU_COLORING_JPL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -api_check: the getters return what the setters set; a coloring type changed after set-up is taken at the next set-up
   (new values of the same pattern colored again), exactly as -pc_sfdilu_coloring given then: the same coloring; the same
   type set again colors nothing; the setters do nothing on a PC of another type.
*/
static PetscErrorCode CheckApi(Mat A)
{
  PC              pc[2], pj;
  Mat             B[2];
  PetscInt        n, nc[2];
  const PetscInt *color[2];
  PetscBool       same = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[0]));
  PetscCall(PCSetType(pc[0], PCSFDILU));
  PetscCall(PrintTypes(pc[0], "defaults"));
  PetscCall(SetTypes(pc[0], PCSFDILU_COLORING_JPL, PCSFDILU_SWEEP_PERCOLOR, PCSFDILU_ORDER_COLOR));
  PetscCall(SetTypes(pc[0], PCSFDILU_COLORING_GRID, PCSFDILU_SWEEP_SYNCFREE, PCSFDILU_ORDER_LOCAL));
  PetscCall(SetTypes(pc[0], PCSFDILU_COLORING_GREEDY, PCSFDILU_SWEEP_AUTO, PCSFDILU_ORDER_AUTO));
  PetscCall(PCDestroy(&pc[0]));

  PetscCall(MatGetLocalSize(A, &n, NULL));
  for (PetscInt k = 0; k < 2; k++) { /* k = 0: through PCSFDILUSetColoringType(); k = 1: through -chk_pc_sfdilu_coloring */
    const char *how = k ? "-pc_sfdilu_coloring jpl" : "PCSFDILUSetColoringType(jpl)";
    PetscInt    c0, c1, c2, nc0;

    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B[k]));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[k]));
    PetscCall(PCSetType(pc[k], PCSFDILU));
    PetscCall(PCSetOptionsPrefix(pc[k], "chk_"));
    PetscCall(PCSetFromOptions(pc[k]));
    PetscCall(PCSetOperators(pc[k], B[k], B[k]));
    PetscCall(PCSetUp(pc[k]));
    PetscCall(PCSFDILUGetColoring(pc[k], &nc0, NULL));
    PetscCall(TestEventCount("SFDILUColor", &c0));
    PetscCall(AskJPL(pc[k], k));
    PetscCall(MatScale(B[k], 2.0)); /* new values, same pattern */
    PetscCall(PCSetOperators(pc[k], B[k], B[k]));
    PetscCall(PCSetUp(pc[k]));
    PetscCall(TestEventCount("SFDILUColor", &c1));
    PetscCall(PCSFDILUGetColoring(pc[k], &nc[k], &color[k]));
    PetscCall(AskJPL(pc[k], k)); /* the same again: nothing to color */
    PetscCall(MatScale(B[k], 0.5));
    PetscCall(PCSetOperators(pc[k], B[k], B[k]));
    PetscCall(PCSetUp(pc[k]));
    PetscCall(TestEventCount("SFDILUColor", &c2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s after set-up: %" PetscInt_FMT " colors before, the next set-up colored %" PetscInt_FMT " time(s), %" PetscInt_FMT " colors; the same type again: colored %" PetscInt_FMT " time(s)\n", how, nc0, c1 - c0, nc[k], c2 - c1));
  }
  PetscCall(PCSFDILUGetColoring(pc[0], &nc[0], &color[0])); /* the set-ups above keep the coloring */
  PetscCall(PCSFDILUGetColoring(pc[1], &nc[1], &color[1]));
  same = (PetscBool)(nc[0] == nc[1]);
  for (PetscInt i = 0; same && i < n; i++) same = (PetscBool)(color[0][i] == color[1][i]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the setter's coloring is the option's: %s\n", same ? "yes" : "NO"));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(PCDestroy(&pc[k]));
    PetscCall(MatDestroy(&B[k]));
  }

  PetscCall(PCCreate(PETSC_COMM_WORLD, &pj));
  PetscCall(PCSetType(pj, PCJACOBI));
  PetscCall(PCSFDILUSetColoringType(pj, PCSFDILU_COLORING_JPL));
  PetscCall(PCSFDILUSetSweepType(pj, PCSFDILU_SWEEP_PERCOLOR));
  PetscCall(PCSFDILUSetOrderType(pj, PCSFDILU_ORDER_LOCAL));
  {
    PCType type;
    PetscCall(PCGetType(pj, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the setters on a %s PC: nothing done\n", type));
  }
  PetscCall(PCDestroy(&pj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solves; with resolve, solves again with new values of the same pattern, reporting what the second set-up redid. */
static PetscErrorCode Solve(Mat A, Vec b, const char *prefix, const char *where, PetscBool resolve, PetscInt its[2])
{
  KSP                ksp;
  Vec                x;
  PetscInt           c0, s0, c1, s1;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  {
    PetscBool dilu;
    PetscCall(PetscStrcmp(prefix, "dilu_", &dilu));
    if (dilu) { /* the PCs the -dilu_ options reach */
      PC pc;
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(ApiTypes(pc));
    }
  }
  PetscCall(VecDuplicate(b, &x));
  {
    PetscBool nonzero;
    PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
    if (nonzero) { /* a guess of its own, the same on the host and the GPU */
      PetscRandom rnd;
      PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
      PetscCall(PetscRandomSetSeed(rnd, 7));
      PetscCall(PetscRandomSeed(rnd));
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(PetscRandomDestroy(&rnd));
    }
  }
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its[0]));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s: %s in %" PetscInt_FMT " iterations\n", prefix, where, KSPConvergedReasons[reason], its[0]));
  its[1] = -1;
  if (resolve) {
    PetscCall(TestEventCount("SFDILUColor", &c0));
    PetscCall(TestEventCount("SFDILUSetUp", &s0));
    PetscCall(MatScale(A, 2.0));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its[1]));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(TestEventCount("SFDILUColor", &c1));
    PetscCall(TestEventCount("SFDILUSetUp", &s1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s again, new values: %s in %" PetscInt_FMT " iterations; the set-up colored %" PetscInt_FMT " levels again and recomputed E on %" PetscInt_FMT "\n", prefix, where, KSPConvergedReasons[reason], its[1], c1 - c0, s1 - s0));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solves, on the host matrix and (device) on its GPU copy (the same values), which must take the same iterations. */
static PetscErrorCode SolveBoth(Mat A, Mat Ad, Vec b, const char *prefix, PetscBool resolve)
{
  Vec      bd;
  PetscInt its[2], itsd[2];

  PetscFunctionBegin;
  PetscCall(Solve(A, b, prefix, "", resolve, its));
  if (Ad) {
    PetscCall(MatCreateVecs(Ad, NULL, &bd));
    PetscCall(VecCopy(b, bd));
    PetscCall(Solve(Ad, bd, prefix, " (GPU)", resolve, itsd));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s GPU iterations equal the host's: %s\n", prefix, its[0] == itsd[0] && its[1] == itsd[1] ? "yes" : "NO"));
    PetscCall(VecDestroy(&bd));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The GPU smoother against the host one with the same options (hence the same coloring): one
   apply to rounding, two applies bit for bit, and the GPU's kernels ran (PCApply logged GPU flops).
*/
static PetscErrorCode CompareDevice(Mat A, Mat Ad, Vec r)
{
  PC                 pc, pcd;
  Vec                y, rd, yd, yd2, yh;
  PetscReal          err, nrm, diff;
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pcd));
  PetscCall(PCSetType(pc, PCSFDILU));
  PetscCall(PCSetType(pcd, PCSFDILU));
  PetscCall(PCSetOptionsPrefix(pc, "dilu_"));
  PetscCall(PCSetOptionsPrefix(pcd, "dilu_"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PCSetFromOptions(pcd));
  PetscCall(ApiTypes(pc));
  PetscCall(ApiTypes(pcd));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetOperators(pcd, Ad, Ad));
  PetscCall(PCSetUp(pc));
  PetscCall(PCSetUp(pcd));
  {
    PCFailedReason fh, fd;
    PetscCall(PCGetFailedReason(pc, &fh));
    PetscCall(PCGetFailedReason(pcd, &fd));
    if (fh != PC_NOERROR || fd != PC_NOERROR) { /* a failed E: both must fail alike */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU set-up: %s, host set-up: %s\n", PCFailedReasons[fd], PCFailedReasons[fh]));
      PetscCall(PCDestroy(&pc));
      PetscCall(PCDestroy(&pcd));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatCreateVecs(A, NULL, &y));
  PetscCall(MatCreateVecs(A, NULL, &yh));
  PetscCall(MatCreateVecs(Ad, &yd, &rd));
  PetscCall(VecDuplicate(yd, &yd2));
  PetscCall(VecCopy(r, rd));
  PetscCall(PCApply(pc, r, y));
  PetscCall(PCApply(pcd, rd, yd));
  PetscCall(PCApply(pcd, rd, yd2));
  PetscCall(VecAXPY(yd2, -1.0, yd));
  PetscCall(VecNorm(yd2, NORM_INFINITY, &diff));
  PetscCall(VecCopy(yd, yh));
  PetscCall(VecNorm(y, NORM_INFINITY, &nrm));
  PetscCall(VecAXPY(yh, -1.0, y));
  PetscCall(VecNorm(yh, NORM_INFINITY, &err));
  PetscCall(PetscLogEventGetId("PCApply", &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  PetscCall(PetscInfo(pcd, "GPU apply: max |y_gpu - y_host| / max |y_host| = %g\n", (double)(err / nrm)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU apply ran on the GPU: %s; agrees with the host apply to rounding: %s; repeats bit for bit: %s\n", info.GpuFlops > 0 ? "yes" : "NO", err <= 1e-12 * nrm ? "yes" : "NO", diff == 0 ? "yes" : "NO"));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&yd));
  PetscCall(VecDestroy(&yd2));
  PetscCall(VecDestroy(&rd));
  PetscCall(PCDestroy(&pc));
  PetscCall(PCDestroy(&pcd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, Ad = NULL;
  Vec         b;
  PC          pc;
  PetscRandom rnd;
  char        desc[256];
  PetscBool   gamg = PETSC_FALSE, zero = PETSC_FALSE, nan = PETSC_FALSE, zerorhs = PETSC_FALSE, noref = PETSC_FALSE, device = PETSC_FALSE, apicheck = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscLogDefaultBegin());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero", &zero, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-spoil_nan", &nan, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero_rhs", &zerorhs, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-noref", &noref, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-api_check", &apicheck, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(TestProblemVariants(&A, desc, sizeof(desc)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  if (device) PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(b, rnd));
  if (zerorhs) PetscCall(VecZeroEntries(b));

  if (!zero && !nan && !noref) {
    for (PetscInt k = 0; k < (device ? 2 : 1); k++) { /* the host PC, then the GPU one */
      Mat Ak = k ? Ad : A, Ah;
      Vec bk;
      PetscCall(MatConvert(Ak, MATAIJ, MAT_INITIAL_MATRIX, &Ah)); /* the reference's host copy, changed along with Ak */
      PetscCall(MatCreateVecs(Ak, NULL, &bk));
      PetscCall(VecCopy(b, bk));
      PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
      PetscCall(PCSetType(pc, PCSFDILU));
      PetscCall(PCSetOptionsPrefix(pc, "dilu_"));
      PetscCall(PCSetFromOptions(pc));
      PetscCall(ApiTypes(pc));
      PetscCall(PCSetOperators(pc, Ak, Ak));
      PetscCall(CompareApply(pc, Ah, bk, k ? "first (GPU)" : "first"));
      PetscCall(MatScale(Ak, 2.0)); /* new values, same pattern: E again, the coloring kept */
      PetscCall(MatShift(Ak, 1.0));
      PetscCall(MatScale(Ah, 2.0));
      PetscCall(MatShift(Ah, 1.0));
      PetscCall(PCSetOperators(pc, Ak, Ak));
      PetscCall(CompareApply(pc, Ah, bk, k ? "after new values (GPU)" : "after new values"));
      PetscCall(PCDestroy(&pc));
      PetscCall(VecDestroy(&bk));
      PetscCall(MatDestroy(&Ah));
    }
  }
  if (apicheck) PetscCall(CheckApi(A));
  if (device) PetscCall(CompareDevice(A, Ad, b));
  PetscCall(SolveBoth(A, Ad, b, "dilu_", PETSC_FALSE));
  if (gamg) {
    PetscCall(SolveBoth(A, Ad, b, "gamg_default_", PETSC_FALSE));
    PetscCall(SolveBoth(A, Ad, b, "gamg_dilu_chebyshev_", PETSC_FALSE));
    PetscCall(SolveBoth(A, Ad, b, "gamg_dilu_richardson_", PETSC_TRUE)); /* last: it changes A's values */
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&Ad));
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
    test: # no structure (-problem random, tests/problems.c): rows of 0-6, 28-40 and 200-3000 entries, a nonsymmetric pattern
      suffix: random
      args: -problem random -n 10 -random_seed 3 -random_dominance 0.9 -dilu_pc_sfdilu_coloring {{greedy jpl}separate output}
    test:
      suffix: zeropivot
      args: -problem poisson7 -n 6 -zero
    test:
      suffix: zeropivot_shift
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_shift_type nonzero -dilu_pc_sfdilu_shift_amount 1e-2
    test:
      suffix: nan
      args: -problem poisson7 -n 6 -spoil_nan
    # under -ksp_error_if_not_converged, an error of the class of the failure (the same classes as PCSFILU's)
    test:
      suffix: zeropivot_error
      args: -problem poisson7 -n 6 -zero -dilu_ksp_error_if_not_converged
      filter: Error: grep -E "Floating point|Zero pivot|PCSFDILU" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: nan_error
      args: -problem poisson7 -n 6 -spoil_nan -dilu_ksp_error_if_not_converged
      filter: Error: grep -E "Floating point|Zero pivot|PCSFDILU" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # PCApply() is omega M^{-1}: KSPRICHARDSON's own loop (a monitor) steps x += PCApply(r), GMRES sees a constant factor
      suffix: omega
      args: -problem convdiff -n 6 -peclet 20 -noref -dilu_pc_sfdilu_omega 0.7 -dilu_ksp_type {{richardson gmres}separate output} -dilu_ksp_monitor -options_left 0
      filter: grep -v "Residual norm"
    test:
      suffix: badomega
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_omega 2.5
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badwarps
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_warps_per_sm 65
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badshift
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_shift_amount -1
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badorder
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_order local -dilu_pc_sfdilu_sweep percolor
      filter: Error: grep -E "needs sync-free" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # the same pair through PCSFDILUSetSweepType(), then PCSFDILUSetOrderType(): the same refusal
      suffix: api_badorder
      args: -problem poisson7 -n 4 -noref -api_sweep percolor -api_order local
      filter: Error: grep -E "needs sync-free" | sed -e "s/^\[0\]PETSC ERROR: //"
      output_file: output/ex6_badorder.out
    test: # the getters return what the setters set; a coloring type set after set-up recolors as the option does
      suffix: api_check
      args: -problem poisson7 -n 4 -noref -api_check
    test:
      suffix: badlayout
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_layout grid
      filter: Error: grep -E "Unknown option" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badwindow
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_local_window 1
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # a matrix type DILU does not take (here the diagonal block of an MPI one)
      suffix: wrongtype
      nsize: 2
      args: -problem poisson7 -n 4 -noref -mat_type sell
      filter: Error: grep -E "supports" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: badzeropivot
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_zeropivot 1
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"

  # convection-dominated: GAMG with its default smoothers (Chebyshev/Jacobi) stalls; with DILU under Richardson it
  # converges in 10 iterations; DILU under Chebyshev stalls too here (Chebyshev's real eigenvalue interval does not
  # fit this nonsymmetric operator), while on the smaller MPI case below it converges in 22. With the interpolation
  # reused, GAMG's second set-up (new values) must recompute E on every level and color none again.
  # the JPL coloring (the GPU's) computed on the host: proper, and DILU with it equals the reference
  testset:
    args: -dilu_ksp_type gmres -dilu_pc_type sfdilu -dilu_ksp_gmres_restart 100 -dilu_pc_sfdilu_coloring jpl
    test:
      suffix: jpl_poisson7
      args: -problem poisson7 -n 6
    test:
      suffix: jpl_convdiff_asymmetric
      args: -problem convdiff -n 6 -peclet 20 -asymmetric
    test:
      suffix: jpl_permuted
      args: -problem poisson27 -n 5 -permute 3 -dilu_pc_sfdilu_coloring_seed 7
    test:
      # the global DILU across ranks (here one) colors like JPL and computes the same
      suffix: global_convdiff_asymmetric
      args: -problem convdiff -n 6 -peclet 20 -asymmetric -dilu_pc_sfdilu_parallel
      output_file: output/ex6_jpl_convdiff_asymmetric.out
    test:
      suffix: greedy_asymmetric
      args: -problem poisson27 -n 5 -asymmetric -dilu_pc_sfdilu_coloring greedy
    test:
      suffix: badseed
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_coloring_seed -1
      filter: Error: grep -E "out of range" | sed -e "s/^\[0\]PETSC ERROR: //"

  # the grid coloring, the grid read from the 7-point pattern (tests/ex14.c has DMDAs): proper, DILU with it equals
  # the reference; a pattern without a grid to read
  testset:
    args: -dilu_ksp_type gmres -dilu_pc_type sfdilu -dilu_ksp_gmres_restart 100 -dilu_pc_sfdilu_coloring grid
    test:
      suffix: grid_convdiff
      args: -problem convdiff -n 6 -peclet 20 -dilu_pc_sfdilu_grid_modulus {{2 3}separate output}
    test: # auto: the grid's colors above 2^14 rows; where they couple two rows (a hub row), greedy
      suffix: grid_auto
      args: -problem convdiff -n 26 -peclet 20 -noref -dilu_pc_sfdilu_coloring auto -dilu_ksp_view -hub {{0 3}separate output}
      filter: grep -E "problem|colors|grid coloring|CONVERGED"
    test: # and on grids read off a 27-point pattern and off a 2-D 5-point one: 27 and 9 colors
      suffix: grid_auto_box
      args: -problem poisson27 -n 26 -noref -dilu_pc_sfdilu_coloring auto -dilu_ksp_view
      filter: grep -E "problem|colors|grid coloring|CONVERGED"
    test:
      suffix: grid_auto_plane
      args: -problem fields -dim 2 -dof 1 -n 130 -peclet 10 -noref -dilu_pc_sfdilu_coloring auto -dilu_ksp_view
      filter: grep -E "problem|colors|grid coloring|CONVERGED"
    test: # rows that no grid numbers (a 27-point grid's, permuted)
      suffix: grid_none
      args: -problem poisson27 -n 5 -permute 3 -noref
      filter: Error: grep -E "needs the grid" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # a grid read off a few rows whose colors a hub row couples: the message says that no grid was given and the
      # pattern is not one (before, it asked to raise the modulus of a grid as if one had been given)
      suffix: grid_guess_refused
      args: -problem convdiff -n 6 -peclet 20 -hub 7 -noref
      filter: Error: grep -E -o "coloring grid needs .*"
    test: # the global DILU without a DMDA: each rank's rows are whole z-planes (2 of 4), whose place the rows give
      suffix: grid_global
      nsize: 2
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_parallel
    test: # 64 rows on 3 ranks are not whole planes: no global coordinates
      suffix: grid_global_noplanes
      nsize: 3
      args: -problem poisson7 -n 4 -noref -dilu_pc_sfdilu_parallel
      filter: Error: grep -E "global coordinates" | sed -e "s/^\[0\]PETSC ERROR: //"

  # the coloring set through PCSFDILUSetColoringType() instead of -pc_sfdilu_coloring: the option's output
  testset:
    args: -dilu_ksp_type gmres -dilu_pc_type sfdilu -dilu_ksp_gmres_restart 100
    test:
      suffix: api_jpl_poisson7
      args: -problem poisson7 -n 6 -api_coloring jpl
      output_file: output/ex6_jpl_poisson7.out
    test:
      suffix: api_jpl_convdiff_asymmetric
      args: -problem convdiff -n 6 -peclet 20 -asymmetric -api_coloring jpl
      output_file: output/ex6_jpl_convdiff_asymmetric.out
    test:
      suffix: api_grid_convdiff
      args: -problem convdiff -n 6 -peclet 20 -api_coloring grid -dilu_pc_sfdilu_grid_modulus 2
      output_file: output/ex6_grid_convdiff_dilu_pc_sfdilu_grid_modulus-2.out

  test: # a solve by Richardson iterations: the PC's PCApplyRichardson() (no monitor) with the test stops where KSPRICHARDSON's own loop (a monitor) does
    suffix: richardson_solve
    args: -problem convdiff -n 6 -peclet 2 -noref -dilu_pc_type sfdilu -dilu_pc_sfdilu_richardson_test -dilu_ksp_type richardson -dilu_ksp_rtol 1e-6 -dilu_ksp_converged_reason
  test:
    suffix: richardson_solve_monitor
    args: -problem convdiff -n 6 -peclet 2 -noref -dilu_pc_type sfdilu -dilu_ksp_type richardson -dilu_ksp_rtol 1e-6 -dilu_ksp_converged_reason -dilu_ksp_monitor
    filter: grep -v "Residual norm"
    output_file: output/ex6_richardson_solve.out
  test: # b = 0 from a nonzero guess: the reference norm is the first step's, as KSPConvergedDefault() takes it (not 0)
    suffix: richardson_zero_rhs
    args: -problem convdiff -n 6 -peclet 2 -noref -zero_rhs -dilu_pc_type sfdilu -dilu_pc_sfdilu_richardson_test -dilu_ksp_type richardson -dilu_ksp_initial_guess_nonzero -dilu_ksp_rtol 1e-6 -dilu_ksp_converged_reason
  test:
    suffix: richardson_zero_rhs_monitor
    args: -problem convdiff -n 6 -peclet 2 -noref -zero_rhs -dilu_pc_type sfdilu -dilu_ksp_type richardson -dilu_ksp_initial_guess_nonzero -dilu_ksp_rtol 1e-6 -dilu_ksp_converged_reason -dilu_ksp_monitor
    filter: grep -v "Residual norm"
    output_file: output/ex6_richardson_zero_rhs.out
  test:
    # a smoother's KSP as PCMG sets it up (no norm, the test skipped) keeps its rtol, which PETSc passes to PCApplyRichardson():
    # by default its 12 steps all run (CONVERGED_ITS); with -pc_sfdilu_richardson_test the loop stops at rtol 0.5
    suffix: richardson_smoother
    args: -problem convdiff -n 6 -peclet 2 -noref -dilu_pc_type sfdilu -dilu_ksp_type richardson -dilu_ksp_norm_type none -dilu_ksp_convergence_test skip -dilu_ksp_rtol 0.5 -dilu_ksp_max_it 12 -dilu_pc_sfdilu_richardson_test {{0 1}separate output}

  test:
    suffix: gamg
    args: -problem convdiff -n 24 -peclet 20 -noref -gamg -dilu_pc_type sfdilu -dilu_ksp_type gmres -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu

  test:
    suffix: mpi
    nsize: 2
    args: -problem convdiff -n 10 -peclet 20 -noref -gamg -dilu_pc_type sfdilu -dilu_ksp_type gmres -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu

  # The GPU smoother (seqaijcusparse): against the reference, against the host smoother with the same coloring (one
  # apply to rounding, bitwise repeatable), and the host's iteration counts, with each coloring and sweep variant.
  testset:
    requires: gpu
    args: -dll_append ${sfpc_dir}/lib/libsfpc.so -device -use_gpu_aware_mpi 0 -dilu_ksp_type gmres -dilu_pc_type sfdilu -dilu_ksp_gmres_restart 100
    test:
      suffix: gpu_poisson7
      args: -problem poisson7 -n 6 -dilu_pc_sfdilu_coloring jpl
    test: # no structure (-problem random, tests/problems.c): rows of 0-6, 28-40 and 200-3000 entries, a nonsymmetric pattern
      suffix: gpu_random
      args: -problem random -n 10 -random_seed 3 -random_dominance 0.9 -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_layout {{csr hyb}shared output}
    test: # colors of about 2,300 tasks of two rows each: levels of 8-32 tasks per SM, whose sweeps keep 32 warps per SM (or as asked)
      suffix: gpu_busy_levels
      args: -problem poisson27 -n 64 -noref -dilu_pc_sfdilu_coloring jpl -dilu_ksp_rtol 1e-4 -dilu_pc_sfdilu_warps_per_sm {{-1 16}shared output}
    test: # the weight in the scatter back to natural order on the GPU (a VecScale on the host): the GPU apply against the host's
      suffix: gpu_omega
      args: -problem convdiff -n 6 -peclet 20 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_omega 0.7 -dilu_ksp_type {{richardson gmres}separate output} -dilu_ksp_monitor -options_left 0 -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}
      filter: grep -v "Residual norm"
    test:
      suffix: gpu_convdiff_asymmetric
      args: -problem convdiff -n 6 -peclet 20 -asymmetric -dilu_pc_sfdilu_coloring {{jpl greedy}separate output} -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}
    test:
      suffix: gpu_permuted
      args: -problem poisson27 -n 5 -permute 3 -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output} -dilu_pc_sfdilu_layout {{hyb csr}shared output}
    test:
      # colors wider than the analysis's dispatch window (8192 rows), whose buckets are split by window
      suffix: gpu_wide_colors
      args: -problem convdiff -n 22 -peclet 20 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}
    test:
      # over 2^20 rows (SFDILU_SWEEP_GATHER_MAX_ROWS): the right-hand side gathered into color order by a kernel of
      # its own, not by the sweeps. Modified Gram-Schmidt, because PETSc 3.26.1's CUDA VecMDot() returns a wrong first
      # entry for 65-127 vectors of this length (bench/mdot; bench/README.md, "PETSc's CUDA VecMDot")
      suffix: gpu_gather_kernel
      args: -problem poisson7 -n 102 -noref -dilu_ksp_rtol 1e-4 -dilu_ksp_orthogonalization mgs -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}
    test:
      # auto takes the solves by parts on a grid of 10^6 rows (parts of thousands of rows whose couplings stay near),
      # the parts boxes of the grid read off the 7-point pattern. Modified Gram-Schmidt: GMRES takes 67 iterations here,
      # and PETSc 3.26.1's CUDA VecMDot() can return a wrong first entry for 65-127 vectors (as gpu_gather_kernel)
      suffix: gpu_auto_parts
      args: -problem poisson7 -n 100 -noref -dilu_ksp_rtol 1e-4 -dilu_ksp_orthogonalization mgs -dilu_pc_sfdilu_coloring jpl -dilu_ksp_view
      filter: grep -o -E "GPU sweeps: [a-z]+ [(]auto[)]|GPU apply ran.*|iterations equal.*|boxes of the grid|ranges of consecutive rows|[0-9]+ lanes? a row"
    test:
      # and on Q1 elasticity of 10^5 rows (800 rows a part), whose 151 colors (row by row) hold a few rows of a part each, the
      # parts boxes of the grid of nodes read off the pattern with the matrix's block size 3 (a node's 3 rows); also by
      # point-blocks (auto's choice). The apply only: GMRES to 1e-4 took 146 iterations on the host and 160 on the GPU
      # (H200, row by row), the applies equal to rounding
      suffix: gpu_auto_parts_thin
      args: -problem elasticity -n 32 -noref -dilu_ksp_max_it 5 -dilu_pc_sfdilu_coloring jpl -dilu_ksp_view -dilu_pc_sfdilu_blocks {{false auto}separate output}
      filter: grep -o -E "GPU sweeps: [a-z]+ [(]auto[)]|GPU apply ran.*|boxes of the grid|ranges of consecutive rows|[0-9]+ lanes? a row"
    test:
      # and on a 2-D grid of 4 fields a point (about 780 rows a part, no DMDA): boxes of the plane read off the 5-point
      # pattern of points with the matrix's block size 4, which auto takes by parts, row by row and by point-blocks. The
      # apply only, as above
      suffix: gpu_auto_parts_plane
      args: -problem fields -dim 2 -dof 4 -n 160 -noref -dilu_ksp_max_it 5 -dilu_pc_sfdilu_coloring jpl -dilu_ksp_view -dilu_pc_sfdilu_blocks {{false auto}separate output}
      filter: grep -o -E "GPU sweeps: [a-z]+ [(]auto[)]|GPU apply ran.*|boxes of the grid|ranges of consecutive rows|[0-9]+ lanes? a row"
    test:
      # and not on a 7-point grid of 64000 rows: parts of about 485 rows and 3400 entries of A, where the sync-free
      # sweeps were faster (H200: parts 0.92x); no parts are built
      suffix: gpu_auto_syncfree
      args: -problem poisson7 -n 40 -noref -dilu_ksp_max_it 5 -dilu_pc_sfdilu_coloring jpl -dilu_ksp_view
      filter: grep -o -E "GPU sweeps: [a-z]+ [(]auto[)]|GPU apply ran.*|boxes of the grid|ranges of consecutive rows|[0-9]+ lanes? a row"
    test:
      # parts whose unknowns exceed a block's shared memory (3.4*10^6 rows on the 132 SMs of an H100 SXM or H200; a GPU
      # with 140 SMs or more fits them): PETSC_ERR_SUP naming the sweeps to use instead
      suffix: gpu_parts_too_large
      args: -problem poisson7 -n 150 -noref -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_sweep parts
      filter: Error: grep -E "shared memory" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      # the local order (sorted by windows of row + color * D, dispatched window by window): the same iterations as
      # in color order, the apply the host's to rounding; one window with the default size (then it is the color
      # order), about 100 windows of 512 keys dispatched by 42 windows of 256 rows, one window on the permuted matrix
      suffix: gpu_local
      args: -problem convdiff -n 22 -peclet 20 -noref -dilu_pc_sfdilu_coloring {{jpl greedy}separate output} -dilu_pc_sfdilu_order local -dilu_pc_sfdilu_local_window {{262144 512}shared output}
    test:
      suffix: gpu_local_permuted
      args: -problem poisson27 -n 5 -permute 3 -dilu_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_order local
    test: # the local order through PCSFDILUSetOrderType(), the coloring through PCSFDILUSetColoringType(): the options' output
      suffix: gpu_api_local_permuted
      args: -problem poisson27 -n 5 -permute 3 -api_coloring jpl -api_order local
      output_file: output/ex6_gpu_local_permuted.out
    test:
      suffix: gpu_grid_guess_refused
      args: -problem convdiff -n 6 -peclet 20 -hub 7 -noref -dilu_pc_sfdilu_coloring grid
      filter: Error: grep -E -o "coloring grid needs .*"
      output_file: output/ex6_grid_guess_refused.out
    test:
      suffix: gpu_grid_convdiff
      args: -problem convdiff -n 6 -peclet 20 -dilu_pc_sfdilu_coloring grid -dilu_pc_sfdilu_grid_modulus {{2 3}separate output}
    test: # auto on grids read off a 27-point and a 2-D 5-point pattern on the device: the host's grid colors (grid_auto_box, _plane)
      suffix: gpu_grid_auto_box
      args: -problem poisson27 -n 26 -noref -dilu_pc_sfdilu_coloring auto
    test:
      suffix: gpu_grid_auto_plane
      args: -problem fields -dim 2 -dof 1 -n 130 -peclet 10 -noref -dilu_pc_sfdilu_coloring auto
    test: # wider than L2's share: the grid's colors in the local order
      suffix: gpu_grid_local
      args: -problem convdiff -n 22 -peclet 20 -noref -dilu_pc_sfdilu_coloring grid -dilu_pc_sfdilu_order local -dilu_pc_sfdilu_local_window 512
    test:
      suffix: gpu_zeropivot
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_coloring greedy
    test:
      suffix: gpu_zeropivot_shift
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_coloring greedy -dilu_pc_sfdilu_shift_type nonzero -dilu_pc_sfdilu_shift_amount 1e-2
    test:
      # the smoothers' Richardson steps, x = omega M^{-1} b (b gathered by the L sweep) and x += omega M^{-1} r, in either layout, and by parts
      suffix: gpu_gamg
      args: -gamg_dilu_richardson_mg_levels_pc_sfdilu_layout {{auto csr}shared output} -gamg_dilu_richardson_mg_levels_pc_sfdilu_sweep {{auto parts}shared output} -problem convdiff -n 12 -peclet 20 -noref -gamg -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_mg_levels_pc_sfdilu_coloring jpl -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu -gamg_dilu_chebyshev_mg_levels_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_coloring jpl
    test: # the smoother's steps (three kernels each) and the tested solve on the GPU: the host's outputs
      suffix: gpu_richardson_smoother
      args: -problem convdiff -n 6 -peclet 2 -noref -dilu_ksp_type richardson -dilu_ksp_norm_type none -dilu_ksp_convergence_test skip -dilu_ksp_rtol 0.5 -dilu_ksp_max_it 12 -dilu_pc_sfdilu_coloring greedy -options_left 0 -dilu_pc_sfdilu_richardson_test {{0 1}separate output} -dilu_pc_sfdilu_sweep {{auto parts}shared output}
    test:
      suffix: gpu_gamg_pinned
      args: -problem poisson7 -n 16 -noref -gamg -gamg_default_ksp_type cg -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type cg -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_mg_levels_pc_sfdilu_coloring jpl -gamg_dilu_richardson_pc_gamg_cpu_pin_coarse_grids -gamg_dilu_chebyshev_ksp_type cg -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu -gamg_dilu_chebyshev_mg_levels_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_coloring jpl

  # the global DILU (-pc_sfdilu_parallel) as GAMG's level smoother on 2 ranks (coarse levels with a rank without rows)
  test:
    suffix: mpi_global
    nsize: 2
    args: -problem convdiff -n 10 -peclet 20 -noref -gamg -dilu_pc_type sfdilu -dilu_pc_sfdilu_parallel -dilu_ksp_type gmres -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_mg_levels_pc_sfdilu_parallel -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu -gamg_dilu_chebyshev_mg_levels_pc_sfdilu_parallel

  # the same on the GPU (mpiaijcusparse): the global DILU's E and sweeps on the device, the host run's output
  test:
    suffix: gpu_mpi_global
    requires: gpu
    nsize: 2
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0 -problem convdiff -n 10 -peclet 20 -noref -gamg -dilu_pc_type sfdilu -dilu_pc_sfdilu_parallel -dilu_ksp_type gmres -gamg_default_ksp_type gmres -gamg_default_pc_type gamg -gamg_dilu_richardson_ksp_type gmres -gamg_dilu_richardson_pc_type gamg -gamg_dilu_richardson_mg_levels_ksp_type richardson -gamg_dilu_richardson_mg_levels_pc_type sfdilu -gamg_dilu_richardson_mg_levels_pc_sfdilu_parallel -gamg_dilu_richardson_pc_gamg_reuse_interpolation -gamg_dilu_chebyshev_ksp_type gmres -gamg_dilu_chebyshev_pc_type gamg -gamg_dilu_chebyshev_mg_levels_pc_type sfdilu -gamg_dilu_chebyshev_mg_levels_pc_sfdilu_parallel
    output_file: output/ex6_mpi_global.out

TEST*/
