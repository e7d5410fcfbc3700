static char help[] = "PCSFDILU by point-blocks (-pc_sfdilu_blocks) on the host and the GPU: one apply against an independent dense\n"
                     "implementation of block DILU in this file (the PC's point colors checked proper; E_I = A_II - sum over lower-colored\n"
                     "points J of A_IJ E_J^{-1} A_JI by Gauss-Jordan inverses; y = (E + U_c)^{-1} E (E + L_c)^{-1} r block by block),\n"
                     "before and after new values of the same pattern; the transposed apply against the apply (<M^{-T} x, r> = <x, M^{-1} r>);\n"
                     "a solve with it (GMRES, or Richardson through the fused PCApplyRichardson()), on the GPU with the host's iteration\n"
                     "counts; a zero or NaN diagonal block; refused patterns and options; auto's choice (blocks where the pattern and options\n"
                     "allow, else rows; the reference then takes the block size the PC took).\n"
                     "Options: problem options of tests/problems.c, -device (also on a seqaijcusparse copy), -zero (zero the first point's\n"
                     "diagonal block), -spoil_nan (a_00 NaN), -block_size k (MatSetBlockSize() after the problem's), -api (PCSFDILUSetBlocks()\n"
                     "instead of the option, and PCSFDILUGetBlocks() checked).\n";

#include <petscksp.h>
#include <sfpc.h>
#include <stdlib.h>
#include <string.h>
#include "problems.h"

/* inv = B^{-1} by Gauss-Jordan with partial pivoting (an algorithm the library does not use), bs x bs row major. */
static PetscErrorCode DenseInverse(PetscInt bs, const PetscScalar B[], PetscScalar inv[])
{
  PetscScalar W[8][16];

  PetscFunctionBegin;
  PetscCheck(bs <= 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "block size %" PetscInt_FMT, bs);
  for (PetscInt i = 0; i < bs; i++)
    for (PetscInt j = 0; j < 2 * bs; j++) W[i][j] = j < bs ? B[i * bs + j] : (j - bs == i ? 1.0 : 0.0);
  for (PetscInt k = 0; k < bs; k++) {
    PetscInt p = k;
    for (PetscInt i = k + 1; i < bs; i++)
      if (PetscAbsScalar(W[i][k]) > PetscAbsScalar(W[p][k])) p = i;
    for (PetscInt j = 0; j < 2 * bs; j++) {
      const PetscScalar t = W[k][j];
      W[k][j]             = W[p][j];
      W[p][j]             = t;
    }
    for (PetscInt j = 2 * bs - 1; j >= k; j--) W[k][j] /= W[k][k];
    for (PetscInt i = 0; i < bs; i++)
      if (i != k)
        for (PetscInt j = 2 * bs - 1; j >= k; j--) W[i][j] -= W[i][k] * W[k][j];
  }
  for (PetscInt i = 0; i < bs; i++)
    for (PetscInt j = 0; j < bs; j++) inv[i * bs + j] = W[i][bs + j];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M^{-1} r of block DILU with the PC's row colors (their points'), from a dense copy of A; *proper: whether the point coloring is proper and every row of a point has the point's color. */
static PetscErrorCode ReferenceApply(Mat A, PetscInt bs, const PetscInt color[], const PetscScalar r[], PetscScalar y[], PetscBool *proper)
{
  PetscInt     n, np, *pc, *order;
  PetscScalar *D, *Einv, *z, *t, *blk;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &n, NULL));
  np = n / bs;
  PetscCall(PetscCalloc1(n * n, &D));
  PetscCall(PetscMalloc6(np, &pc, np, &order, np * bs * bs, &Einv, n, &z, bs, &t, bs * bs, &blk));
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscCall(MatGetRow(A, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++) D[i * n + cols[k]] = vals[k];
    PetscCall(MatRestoreRow(A, i, &nc, &cols, &vals));
  }
#define AIJ(P, Q, a, b) D[((P) * bs + (a)) * n + (Q) * bs + (b)]
  *proper = PETSC_TRUE;
  for (PetscInt P = 0; P < np; P++) {
    pc[P] = color[P * bs];
    for (PetscInt a = 0; a < bs; a++)
      if (color[P * bs + a] != pc[P]) *proper = PETSC_FALSE;
  }
  for (PetscInt P = 0; P < np; P++)
    for (PetscInt Q = 0; Q < np; Q++) {
      PetscBool coupled = PETSC_FALSE;
      for (PetscInt a = 0; a < bs; a++)
        for (PetscInt b = 0; b < bs; b++) coupled |= AIJ(P, Q, a, b) != 0.0 || AIJ(Q, P, a, b) != 0.0;
      if (P != Q && coupled && pc[P] == pc[Q]) *proper = PETSC_FALSE;
    }
  if (!*proper) {
    PetscCall(PetscFree(D));
    PetscCall(PetscFree6(pc, order, Einv, z, t, blk));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  { /* points by (color, point) */
    PetscInt k = 0, maxc = 0;
    for (PetscInt P = 0; P < np; P++) maxc = PetscMax(maxc, pc[P]);
    for (PetscInt c = 0; c <= maxc; c++)
      for (PetscInt P = 0; P < np; P++)
        if (pc[P] == c) order[k++] = P;
  }
  for (PetscInt q = 0; q < np; q++) { /* E_I, inverted */
    const PetscInt P = order[q];
    for (PetscInt a = 0; a < bs; a++)
      for (PetscInt b = 0; b < bs; b++) blk[a * bs + b] = AIJ(P, P, a, b);
    for (PetscInt Q = 0; Q < np; Q++) {
      if (pc[Q] >= pc[P]) continue;
      for (PetscInt a = 0; a < bs; a++)
        for (PetscInt c = 0; c < bs; c++) {
          PetscScalar s = 0;
          for (PetscInt b = 0; b < bs; b++)
            for (PetscInt d = 0; d < bs; d++) s += AIJ(P, Q, a, b) * Einv[Q * bs * bs + b * bs + d] * AIJ(Q, P, d, c);
          blk[a * bs + c] -= s;
        }
    }
    PetscCall(DenseInverse(bs, blk, Einv + P * bs * bs));
  }
  for (PetscInt q = 0; q < np; q++) { /* z_I = E_I^{-1} (r_I - sum_{lower Q} A_IJ z_J) */
    const PetscInt P = order[q];
    for (PetscInt a = 0; a < bs; a++) {
      t[a] = r[P * bs + a];
      for (PetscInt Q = 0; Q < np; Q++)
        if (pc[Q] < pc[P])
          for (PetscInt b = 0; b < bs; b++) t[a] -= AIJ(P, Q, a, b) * z[Q * bs + b];
    }
    for (PetscInt a = 0; a < bs; a++) {
      z[P * bs + a] = 0;
      for (PetscInt b = 0; b < bs; b++) z[P * bs + a] += Einv[P * bs * bs + a * bs + b] * t[b];
    }
  }
  for (PetscInt q = np - 1; q >= 0; q--) { /* y_I = z_I - E_I^{-1} sum_{higher Q} A_IJ y_J */
    const PetscInt P = order[q];
    for (PetscInt a = 0; a < bs; a++) {
      t[a] = 0;
      for (PetscInt Q = 0; Q < np; Q++)
        if (pc[Q] > pc[P])
          for (PetscInt b = 0; b < bs; b++) t[a] += AIJ(P, Q, a, b) * y[Q * bs + b];
    }
    for (PetscInt a = 0; a < bs; a++) {
      y[P * bs + a] = z[P * bs + a];
      for (PetscInt b = 0; b < bs; b++) y[P * bs + a] -= Einv[P * bs * bs + a * bs + b] * t[b];
    }
  }
#undef AIJ
  PetscCall(PetscFree(D));
  PetscCall(PetscFree6(pc, order, Einv, z, t, blk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||a - b|| / ||b|| */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rel = nb > 0 ? nd / nb : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One apply of the PC against the reference on A's host copy Ah (values as the PC's matrix holds them), and the transposed apply against it. */
static PetscErrorCode CheckApply(PC pc, Mat Ah, PetscInt bs, Vec r, const char *what)
{
  Vec                y, yref, x, w;
  const PetscInt    *color;
  PetscInt           nc;
  const PetscScalar *ra;
  PetscScalar       *ya;
  PetscBool          proper = PETSC_FALSE;
  PetscReal          rel = 0;
  PetscScalar        d1, d2;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(r, &y));
  PetscCall(VecDuplicate(r, &x));
  PetscCall(VecDuplicate(r, &w));
  PetscCall(MatCreateVecs(Ah, &yref, NULL));
  PetscCall(PCApply(pc, r, y));
  PetscCall(PCSFDILUGetColoring(pc, &nc, &color));
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArrayWrite(yref, &ya));
  PetscCall(ReferenceApply(Ah, bs, color, ra, ya, &proper));
  PetscCall(VecRestoreArrayWrite(yref, &ya));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %" PetscInt_FMT " colors, points properly colored, a row's color its point's: %s\n", what, nc, proper ? "yes" : "NO"));
  if (proper) {
    Vec                yh;
    const PetscScalar *ga;
    PetscScalar       *ha;
    PetscInt           n;
    PetscCall(MatCreateVecs(Ah, &yh, NULL));
    PetscCall(VecGetLocalSize(y, &n));
    PetscCall(VecGetArrayRead(y, &ga)); /* y may be a GPU vector */
    PetscCall(VecGetArrayWrite(yh, &ha));
    PetscCall(PetscArraycpy(ha, ga, n));
    PetscCall(VecRestoreArrayWrite(yh, &ha));
    PetscCall(VecRestoreArrayRead(y, &ga));
    PetscCall(RelDiff(yh, yref, &rel));
    PetscCall(VecDestroy(&yh));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: apply against the dense block reference: %s\n", what, rel < 1e-11 ? "agrees (< 1e-11)" : "DIFFERS"));
    if (rel >= 1e-11) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    relative difference %g\n", (double)rel));
  }
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(PCApplyTranspose(pc, x, w));
  PetscCall(VecDot(w, r, &d1));
  PetscCall(VecDot(x, y, &d2));
  rel = PetscAbsScalar(d1 - d2) / PetscMax(PetscAbsScalar(d2), PETSC_SMALL);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: <M^-T x, r> = <x, M^-1 r>: %s\n", what, rel < 1e-11 ? "yes (< 1e-11)" : "NO"));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&yref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solve and the checks on one matrix (the host one, or its GPU copy); *its: the KSP's iterations (-1 on a failed PC). */
static PetscErrorCode Run(Mat A, Mat Ah, PetscInt bs, PetscBool api, const char *where, PetscInt *its)
{
  KSP                ksp;
  PC                 pc;
  Vec                b, x, r;
  KSPConvergedReason reason;
  PetscRandom        rnd;
  char               what[64];
  PetscInt           taken;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "dilu_"));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSFDILU));
  PetscCall(KSPSetFromOptions(ksp));
  if (api) {
    PetscBool3 blocks;
    PetscCall(PCSFDILUGetBlocks(pc, &blocks));
    PetscCheck(blocks == PETSC_BOOL3_UNKNOWN, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCSFDILUGetBlocks() does not return the default, auto");
    PetscCall(PCSFDILUSetBlocks(pc, PETSC_BOOL3_TRUE));
    PetscCall(PCSFDILUGetBlocks(pc, &blocks));
    PetscCheck(blocks == PETSC_BOOL3_TRUE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "PCSFDILUGetBlocks() does not return what was set");
  }
  PetscCall(KSPSetUp(ksp));
  { /* what the set-up took (auto: blocks or rows): the reference below is block DILU with that block size */
    char        view[4096];
    const char *line;
    PetscCall(TestPCViewToString(pc, view, sizeof(view)));
    line  = strstr(view, "by point-blocks of ");
    taken = line ? atoi(line + strlen("by point-blocks of ")) : 1;
    if (taken > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: DILU by point-blocks of %" PetscInt_FMT " rows\n", where, taken));
    else {
      const char *why = strstr(view, "(-pc_sfdilu_blocks auto): ");
      char        reason[128] = "";
      if (why) { /* the view's reason, to its end of line */
        PetscCall(PetscStrncpy(reason, why + strlen("(-pc_sfdilu_blocks auto): "), sizeof(reason)));
        if (strchr(reason, '\n')) *strchr(reason, '\n') = 0;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: DILU row by row (the matrix's block size: %" PetscInt_FMT "; the view's reason: %s)\n", where, bs, why ? reason : "none"));
    }
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSetRandom(r, rnd));
  {
    PCFailedReason failed;
    PetscCall(PCGetFailedReason(pc, &failed));
    if (failed != PC_NOERROR) {
      char view[4096], *line;
      PetscCall(TestPCViewToString(pc, view, sizeof(view)));
      line = strstr(view, "FAILED");
      if (line && strchr(line, '\n')) *strchr(line, '\n') = 0;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: the PC failed at set-up: %s (view: %s)\n", where, PCFailedReasons[failed], line ? line : "no FAILED line"));
      *its = -1;
    }
  }
  if (*its >= 0) {
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s", where));
    PetscCall(CheckApply(pc, Ah, taken, r, what));
    PetscCall(VecSet(x, 1.0));
    PetscCall(MatMult(A, x, b));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, its));
    {
      KSPType type;
      PetscCall(KSPGetType(ksp, &type));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s %s in %" PetscInt_FMT " iterations\n", where, type, KSPConvergedReasons[reason], *its));
    }
    /* new values of the same pattern: the coloring kept, the factor redone (2A: M^{-1} halves) */
    PetscCall(MatScale(A, 2.0));
    if (Ah != A) PetscCall(MatScale(Ah, 2.0));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s, 2A", where));
    PetscCall(CheckApply(pc, Ah, taken, r, what));
    PetscCall(MatScale(A, 0.5));
    if (Ah != A) PetscCall(MatScale(Ah, 0.5));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat       A, Ad = NULL;
  char      name[256];
  PetscInt  bs, setbs = 0, its = 0, dits = 0;
  PetscBool device = PETSC_FALSE, zero = PETSC_FALSE, nan = PETSC_FALSE, api = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero", &zero, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-spoil_nan", &nan, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-api", &api, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-block_size", &setbs, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, name, sizeof(name)));
  if (setbs > 0) PetscCall(MatSetBlockSize(A, setbs));
  PetscCall(MatGetBlockSize(A, &bs));
  if (zero || nan) { /* values only: the pattern stays */
    for (PetscInt a = 0; a < (zero ? bs : 1); a++)
      for (PetscInt b = 0; b < (zero ? bs : 1); b++) PetscCall(MatSetValue(A, a, b, nan ? NAN : 0.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, block size %" PetscInt_FMT "\n", name, bs));
  PetscCall(Run(A, A, bs, api, "host", &its));
  if (device) {
    PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
    PetscCall(Run(Ad, A, bs, api, "GPU", &dits));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU iterations equal to the host's: %s\n", dits == its ? "yes" : "NO"));
    PetscCall(MatDestroy(&Ad));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  testset:
    args: -dilu_ksp_type gmres -dilu_ksp_gmres_restart 100 -dilu_pc_sfdilu_blocks
    test: # Q1 elasticity (3 rows a node), both point colorings
      suffix: elasticity
      args: -problem elasticity -n 3 -dilu_pc_sfdilu_coloring {{greedy jpl}separate output}
    test: # 3 fields a point with convection (a nonsymmetric matrix), 2-D and 3-D
      suffix: fields
      args: -problem fields -dim {{2 3}separate output} -dof 3 -n 5 -peclet 20
    test: # a zero diagonal block: a zero pivot; a NaN: the other failure
      suffix: zero
      args: -problem elasticity -n 2 -zero
    test:
      suffix: nan
      args: -problem elasticity -n 2 -spoil_nan
    test: # patterns that are not dense point-blocks, and options the blocks refuse
      suffix: notblocks
      args: -problem poisson7 -n 4 -block_size 2
      filter: Error: grep -E "needs dense point-blocks" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: bigblocks
      args: -problem poisson7 -n 3 -block_size 9
      filter: Error: grep -E "point-block rows PCSFDILU supports" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: eisenstat
      args: -problem elasticity -n 2 -dilu_pc_sfdilu_eisenstat
      filter: Error: grep -E "not supported with" | sed -e "s/^\[0\]PETSC ERROR: //"
    test: # the grid coloring colors points only by a DMDA's grid (tests/ex14.c), and there is none here
      suffix: grid
      args: -problem elasticity -n 2 -dilu_pc_sfdilu_coloring grid
      filter: Error: grep -E "colors the points by a DMDA" | sed -e "s/^\[0\]PETSC ERROR: //"

  test: # PCSFDILUSetBlocks() and PCSFDILUGetBlocks(), no option given
    suffix: api
    args: -dilu_ksp_type gmres -dilu_ksp_gmres_restart 100 -problem elasticity -n 2 -api

  testset: # auto (the default): blocks where the pattern holds whole blocks, rows where it does not or an option excludes them
    args: -dilu_ksp_type gmres -dilu_ksp_gmres_restart 100
    test:
      suffix: auto
      args: -problem {{elasticity fields}separate output} -n 3 -peclet 20 -dilu_pc_sfdilu_blocks auto
    test:
      suffix: auto_notblocks
      args: -problem poisson7 -n 4 -block_size 2
    test:
      suffix: auto_eisenstat
      args: -problem elasticity -n 2 -dilu_pc_sfdilu_eisenstat
    test:
      suffix: auto_parallel
      args: -problem elasticity -n 2 -dilu_pc_sfdilu_parallel
    test:
      suffix: auto_bigblocks
      args: -problem poisson7 -n 3 -block_size 9

  test: # the fused Richardson steps (PCApplyRichardson(), its tolerance test on)
    suffix: richardson
    args: -problem fields -dim 2 -dof 3 -n 5 -peclet 20 -dilu_pc_sfdilu_blocks -dilu_ksp_type richardson -dilu_pc_sfdilu_richardson_test -dilu_ksp_rtol 1e-8

  test:
    suffix: gpu_richardson
    requires: gpu
    args: -device -use_gpu_aware_mpi 0 -problem fields -dim 2 -dof 3 -n 5 -peclet 20 -dilu_pc_sfdilu_blocks -dilu_ksp_type richardson -dilu_pc_sfdilu_richardson_test -dilu_ksp_rtol 1e-8 -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}

  testset:
    requires: gpu
    args: -device -use_gpu_aware_mpi 0 -dilu_ksp_type gmres -dilu_ksp_gmres_restart 100 -dilu_pc_sfdilu_blocks
    test:
      suffix: gpu_elasticity
      args: -problem elasticity -n 3 -dilu_pc_sfdilu_coloring {{greedy jpl}separate output} -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}
    test:
      suffix: gpu_fields
      args: -problem fields -dim {{2 3}separate output} -dof 3 -n 5 -peclet 20 -dilu_pc_sfdilu_sweep {{syncfree percolor parts}shared output}
    test:
      suffix: gpu_auto
      args: -problem {{elasticity fields}separate output} -n 3 -peclet 20 -dilu_pc_sfdilu_blocks auto -dilu_pc_sfdilu_sweep {{syncfree parts}shared output}
    test:
      suffix: gpu_auto_notblocks
      args: -problem poisson7 -n 4 -block_size 2 -dilu_pc_sfdilu_blocks auto
    test:
      suffix: gpu_zero
      args: -problem elasticity -n 2 -zero
    test:
      suffix: gpu_nan
      args: -problem elasticity -n 2 -spoil_nan

TEST*/
