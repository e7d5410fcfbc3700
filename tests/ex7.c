static char help[] = "SFPC preconditioners on MPI matrices: each rank works on its diagonal block, so -pc_type sfilu equals\n"
                     "-pc_type bjacobi -sub_pc_type ilu (PETSc's) and -pc_type sfdilu equals bjacobi with sfdilu blocks, residual\n"
                     "history for residual history. The matrix is a 3-D convection-diffusion stencil (7-point, upwind) with\n"
                     "uneven rows per rank (-planes: whole z-planes, so each block is a grid); -empty_rank <r> gives rank r no rows;\n"
                     "-check_colors: PCSFDILUGetColoring() on every rank, the colors summed; -columns_decide: columns split evenly.\n"
                     "With -asm: -pc_type asm -sub_pc_type sfilu against -sub_pc_type ilu (PETSc's), residual history for residual\n"
                     "history, with -overlap <k> (default 1). -refusal: the first PC's set-up is expected to fail; the error is caught\n"
                     "and each rank's message printed. -history_rtol <r>: histories compared entry by entry to relative r, not bitwise\n"
                     "(GPU matrices: PETSc's ILU there is cuSPARSE's, whose operations differ).\n"
                     "With -global: the global multicolor DILU (-pc_sfdilu_parallel) instead, whose iterations and colors must\n"
                     "not depend on the number of ranks.\n"
                     "Options: -n <grid points per direction>, -peclet <p>, -empty_rank <r>, -global, -nan_row <r> (a NaN\n"
                     "on the diagonal of global row r: the set-up fails on every rank), -asymmetric (drop the upper entries a_ij\n"
                     "with i + j divisible by 3: a pattern that is not symmetric, also across ranks), -compare_host (with\n"
                     "-global: the PC against one set up on a host copy of A: the same colors, applies bitwise equal, before\n"
                     "and after new values of the same pattern, which must not color again; for a GPU matrix the GPU path\n"
                     "against the host reference). -problem <name>: that matrix of tests/problems.c instead (e.g. -problem random:\n"
                     "no structure, couplings between any two ranks), with its options.\n";

#include <math.h>
#include <string.h>
#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

static PetscErrorCode Assemble(PetscInt N, PetscReal peclet, PetscInt empty, PetscBool asym, PetscBool planes, Mat *A)
{
  PetscMPIInt rank, size;
  PetscInt    n = N * N * N, nlocal, rstart, rend;
  const PetscReal h = 1.0 / (N + 1);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  { /* uneven: rank r gets a share proportional to r + 1, rank "empty" none */
    PetscInt weight = 0, before = 0;
    for (PetscMPIInt r = 0; r < size; r++) weight += r == empty ? 0 : r + 1;
    for (PetscMPIInt r = 0; r < rank; r++) before += r == empty ? 0 : r + 1;
    const PetscInt unit = planes ? N * N : 1, units = n / unit; /* planes: whole z-planes a rank, so each block is a grid */
    rstart = unit * (units * before / weight);
    rend   = unit * (units * (before + (rank == empty ? 0 : rank + 1)) / weight);
    nlocal = rend - rstart;
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  { /* -columns_decide: columns split evenly, unlike the rows (a diagonal block that is not square: an error) */
    PetscBool decide = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-columns_decide", &decide, NULL));
    PetscCall(MatSetSizes(*A, nlocal, decide ? PETSC_DECIDE : nlocal, n, n));
  }
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 7, NULL, 6, NULL));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt i = row % N, j = (row / N) % N, k = row / (N * N), at[3] = {i, j, k}, stride[3] = {1, N, N * N};
    const PetscReal v[3] = {peclet, 0.5 * peclet, 0.25 * peclet};
    PetscInt    cols[7], m = 0;
    PetscScalar vals[7], diag = 0;
    for (int d = 0; d < 3; d++) {
      diag += 2.0 / (h * h) + v[d] / h;
      if (at[d] > 0) cols[m] = row - stride[d], vals[m++] = -1.0 / (h * h) - v[d] / h;
      if (at[d] < N - 1 && !(asym && (2 * row + stride[d]) % 3 == 0)) cols[m] = row + stride[d], vals[m++] = -1.0 / (h * h);
    }
    cols[m] = row, vals[m++] = diag;
    PetscCall(MatSetValues(*A, 1, &row, m, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the local arrays of x and y are bitwise equal on every rank. */
static PetscErrorCode BitwiseEqual(Vec x, Vec y, PetscBool *equal)
{
  const PetscScalar *xa, *ya;
  PetscInt           n;
  PetscBool          eq;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(y, &ya));
  eq = (PetscBool)(n == 0 || !memcmp(xa, ya, sizeof(PetscScalar) * n));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCallMPI(MPIU_Allreduce(&eq, equal, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The global DILU pc (set up on A, host or GPU) against one set up on a host copy of A: colors,
   one apply bit for bit; then new values of the same pattern (rows scaled unevenly), which must
   only recompute E, and one apply again.
*/
static PetscErrorCode CompareHost(Mat A, PC pc)
{
  Mat             Ah;
  PC              ph;
  Vec             r, y, rh, yh;
  PetscInt        nc, nch, n, rstart, c0, c1, e0, e1, x0 = 0, x1 = 0, xmax;
  const PetscInt *col, *colh;
  PetscBool       samecol, eq[2], mine;
  PetscScalar    *ra;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(PCCreate(PETSC_COMM_WORLD, &ph));
  PetscCall(PCSetType(ph, PCSFDILU));
  PetscCall(PCSetFromOptions(ph));
  PetscCall(PCSetOperators(ph, Ah, Ah));
  PetscCall(MatCreateVecs(A, &r, &y));
  PetscCall(MatCreateVecs(Ah, &rh, &yh));
  PetscCall(VecGetOwnershipRange(rh, &rstart, NULL));
  PetscCall(VecGetLocalSize(rh, &n));
  PetscCall(VecGetArrayWrite(rh, &ra));
  for (PetscInt i = 0; i < n; i++) ra[i] = PetscSinReal((PetscReal)(rstart + i + 1));
  PetscCall(VecRestoreArrayWrite(rh, &ra));
  {
    const PetscScalar *h;
    PetscCall(VecGetArrayRead(rh, &h));
    PetscCall(VecGetArrayWrite(r, &ra)); /* r may be a GPU vector: its host array, then moved to the GPU */
    PetscCall(PetscArraycpy(ra, h, n));
    PetscCall(VecRestoreArrayWrite(r, &ra));
    PetscCall(VecRestoreArrayRead(rh, &h));
  }
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      PetscCall(TestEventCount("SFDILUColor", &c0));
      PetscCall(TestEventCount("SFDILUSetUp", &e0));
      Vec l, lh; /* rows scaled by 2 + r_i (MatShift() would preallocate a rank without rows again: a new pattern) */
      PetscCall(VecDuplicate(r, &l));
      PetscCall(VecDuplicate(rh, &lh));
      PetscCall(VecCopy(r, l));
      PetscCall(VecCopy(rh, lh));
      PetscCall(VecShift(l, 2.0));
      PetscCall(VecShift(lh, 2.0));
      PetscCall(MatDiagonalScale(A, l, NULL));
      PetscCall(MatDiagonalScale(Ah, lh, NULL));
      PetscCall(VecDestroy(&l));
      PetscCall(VecDestroy(&lh));
    }
    PetscCall(PCSetUp(pc));
    PetscCall(PCSetUp(ph));
    PetscCall(PCApply(pc, r, y));
    if (!pass) PetscCall(TestEventCount("SFBcastBegin", &x0)); /* the host apply's halo exchanges */
    PetscCall(PCApply(ph, rh, yh));
    if (!pass) PetscCall(TestEventCount("SFBcastBegin", &x1));
    PetscCall(BitwiseEqual(y, yh, &eq[pass]));
  }
  PetscCall(TestEventCount("SFDILUColor", &c1));
  PetscCall(TestEventCount("SFDILUSetUp", &e1));
  PetscCall(PCSFDILUGetColoring(pc, &nc, &col));
  PetscCall(PCSFDILUGetColoring(ph, &nch, &colh));
  mine = (PetscBool)(nc == nch);
  for (PetscInt i = 0; mine && i < n; i++) mine = (PetscBool)(col[i] == colh[i]);
  PetscCallMPI(MPIU_Allreduce(&mine, &samecol, 1, MPI_C_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  x1 -= x0;
  PetscCallMPI(MPIU_Allreduce(&x1, &xmax, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "against the host reference: same colors: %s; apply bitwise equal: %s; after new values: colored again: %s, E recomputed: %s, apply bitwise equal: %s\n", samecol ? "yes" : "NO", eq[0] ? "yes" : "NO", c1 == c0 ? "no" : "YES", e1 - e0 == 2 ? "yes" : "NO", eq[1] ? "yes" : "NO"));
  /* one color's ghosts before each color but a sweep's first: at most 2 (colors - 1) exchanges (none on one rank) */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "halo exchanges per apply at most 2 (colors - 1): %s\n", xmax <= 2 * (nch - 1) ? "yes" : "NO"));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&rh));
  PetscCall(VecDestroy(&yh));
  PetscCall(PCDestroy(&ph));
  PetscCall(MatDestroy(&Ah));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(Mat A, Vec b, const char *prefix, PetscInt *its, PetscReal **hist, PetscInt *nhist, PetscBool *failed)
{
  KSP              ksp;
  Vec              x;
  const PetscReal *h;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecDuplicate(b, &x));
  if (failed) { /* -refusal: the set-up's error caught on every rank, each rank's message printed */
    PetscErrorCode ierr;
    const char    *text;
    char          *specific;
    PetscMPIInt    rank;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(PetscErrorMessage(ierr, &text, &specific));
    PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "-%spc_type, rank %d: %s\n", prefix, (int)rank, ierr ? specific : "no error"));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
    *failed = (PetscBool)(ierr != 0);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, failed, 1, MPI_C_BOOL, MPI_LOR, PETSC_COMM_WORLD));
    if (*failed) {
      *nhist = 0;
      *hist  = NULL;
      PetscCall(VecDestroy(&x));
      PetscCall(KSPDestroy(&ksp));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  } else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualHistory(ksp, &h, nhist));
  PetscCall(PetscMalloc1(*nhist, hist));
  PetscCall(PetscArraycpy(*hist, h, *nhist));
  {
    PC        pc;
    PetscBool isdilu, checkcolors = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-check_colors", &checkcolors, NULL));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSFDILU, &isdilu));
    if (isdilu && checkcolors) { /* every rank's block is colored, an empty one with no colors (Not Collective) */
      PetscInt    nc, ncsum, nrows;
      PetscMPIInt empties, isempty;
      PetscCall(PCSFDILUGetColoring(pc, &nc, NULL));
      PetscCall(MatGetLocalSize(A, &nrows, NULL));
      isempty = nrows == 0;
      PetscCallMPI(MPIU_Allreduce(&nc, &ncsum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      PetscCallMPI(MPIU_Allreduce(&isempty, &empties, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-%spc_type: the blocks' colors sum to %" PetscInt_FMT " (%d empty block(s))\n", prefix, ncsum, empties));
    }
  }
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         b;
  PetscInt    N = 10, empty = -1, nanrow = -1;
  PetscReal   peclet = 20, rtolhist = 0;
  PetscMPIInt size;
  PetscBool   global = PETSC_FALSE, asym = PETSC_FALSE, compare = PETSC_FALSE, planes = PETSC_FALSE, asmpair = PETSC_FALSE, refusal = PETSC_FALSE;
  const char *pairs[3][2] = {{"sfilu_", "bjacobi_ilu_"}, {"sfdilu_", "bjacobi_sfdilu_"}, {"asm_sfilu_", "asm_ilu_"}};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &N, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-empty_rank", &empty, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peclet", &peclet, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-global", &global, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nan_row", &nanrow, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-asymmetric", &asym, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_host", &compare, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-planes", &planes, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-asm", &asmpair, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-refusal", &refusal, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-history_rtol", &rtolhist, NULL));
  if (compare) PetscCall(PetscLogDefaultBegin()); /* event counts */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  {
    PetscBool problem;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-problem", &problem));
    if (problem) { /* e.g. -problem random: couplings between any two ranks */
      char desc[256];
      PetscCheck(empty < 0 && !asym && !planes, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-empty_rank, -asymmetric and -planes shape this program's own matrix, not a -problem one");
      PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
    } else PetscCall(Assemble(N, peclet, empty, asym, planes, &A));
  }
  if (nanrow >= 0) {
    PetscInt rstart, rend;
    PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
    if (nanrow >= rstart && nanrow < rend) PetscCall(MatSetValue(A, nanrow, nanrow, (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecSet(b, 1.0));
  if (global) { /* printed alike on any number of ranks */
    KSP        ksp;
    PC         pc;
    Vec        x;
    PetscInt           its, nc;
    PetscReal          rnorm;
    KSPConvergedReason reason;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 500));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCSFDILU));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_sfdilu_parallel", "1"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PCSFDILUGetColoring(pc, &nc, NULL));
    if (nanrow >= 0) {
      PCFailedReason failed;
      PetscCall(PCGetFailedReason(pc, &failed));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "global multicolor DILU with a NaN in row %" PetscInt_FMT ": %s, PC %s\n", nanrow, KSPConvergedReasons[reason], PCFailedReasons[failed]));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "global multicolor DILU, %" PetscInt_FMT "^3 rows: %" PetscInt_FMT " colors, %" PetscInt_FMT " GMRES iterations (%s), residual %.2e\n", N, nc, its, KSPConvergedReasons[reason], (double)rnorm));
    if (compare && nanrow < 0) PetscCall(CompareHost(A, pc));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (!asmpair) {
    PetscCall(PetscOptionsSetValue(NULL, "-sfilu_pc_type", "sfilu"));
    PetscCall(PetscOptionsSetValue(NULL, "-bjacobi_ilu_pc_type", "bjacobi"));
    PetscCall(PetscOptionsSetValue(NULL, "-bjacobi_ilu_sub_pc_type", "ilu"));
    PetscCall(PetscOptionsSetValue(NULL, "-sfdilu_pc_type", "sfdilu"));
    PetscCall(PetscOptionsSetValue(NULL, "-bjacobi_sfdilu_pc_type", "bjacobi"));
    PetscCall(PetscOptionsSetValue(NULL, "-bjacobi_sfdilu_sub_pc_type", "sfdilu"));
  } else {
    char     overlap[16];
    PetscInt k = 1;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-overlap", &k, NULL));
    PetscCall(PetscSNPrintf(overlap, sizeof(overlap), "%" PetscInt_FMT, k));
    for (int q = 0; q < (refusal ? 1 : 2); q++) { /* -refusal: the second PC never runs */
      char name[64];
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%spc_type", pairs[2][q]));
      PetscCall(PetscOptionsSetValue(NULL, name, "asm"));
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%spc_asm_overlap", pairs[2][q]));
      PetscCall(PetscOptionsSetValue(NULL, name, overlap));
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%ssub_pc_type", pairs[2][q]));
      PetscCall(PetscOptionsSetValue(NULL, name, q ? "ilu" : "sfilu"));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d rank(s), %" PetscInt_FMT "^3 rows%s\n", (int)size, N, empty >= 0 ? ", one rank without rows" : ""));
  for (int p = asmpair ? 2 : 0; p < (asmpair ? 3 : 2); p++) {
    PetscInt   its[2], nh[2];
    PetscReal *h[2];
    PetscBool  same;
    PetscBool  failed = PETSC_FALSE;
    PetscCall(Solve(A, b, pairs[p][0], &its[0], &h[0], &nh[0], refusal ? &failed : NULL));
    if (failed) break;
    PetscCall(Solve(A, b, pairs[p][1], &its[1], &h[1], &nh[1], NULL));
    same = (PetscBool)(nh[0] == nh[1]);
    for (PetscInt k = 0; same && k < nh[0]; k++) same = (PetscBool)(rtolhist > 0 ? PetscAbsReal(h[0][k] - h[1][k]) <= rtolhist * PetscAbsReal(h[1][k]) : h[0][k] == h[1][k]);
    if (rtolhist > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-%spc_type: %" PetscInt_FMT " iterations, -%spc_type: %" PetscInt_FMT "; residual histories agree to %g: %s\n", pairs[p][0], its[0], pairs[p][1], its[1], (double)rtolhist, same ? "yes" : "NO"));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-%spc_type: %" PetscInt_FMT " iterations, -%spc_type: %" PetscInt_FMT "; residual histories bitwise equal: %s\n", pairs[p][0], its[0], pairs[p][1], its[1], same ? "yes" : "NO"));
    for (int k = 0; k < 2; k++) PetscCall(PetscFree(h[k]));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  test:
    suffix: ranks
    nsize: {{1 2 3}separate output}
    args: -n 9

  test:
    suffix: empty_rank
    nsize: 3
    args: -n 9 -empty_rank 1
  test: # rows and columns split differently: each PC refuses the matrix on every rank
    suffix: columns_split
    nsize: 2
    args: -n 6 -columns_decide
    filter: Error: grep -E "split alike" | sed -e "s/^\[[0-9]\]PETSC ERROR: //" | sort -u
  test: # the grid coloring of each rank's block, one of them empty
    suffix: empty_rank_grid
    nsize: 3
    args: -n 9 -empty_rank 1 -planes -check_colors -sfdilu_pc_sfdilu_coloring grid -bjacobi_sfdilu_sub_pc_sfdilu_coloring grid
  test: # SIP with alpha 0 (ILU(0)'s operations) and the grid layout on each rank's planes, one rank without rows: the grid given, or read from each block
    suffix: empty_rank_sip
    nsize: 3
    args: -n 9 -empty_rank 1 -planes -sfilu_pc_sfilu_factorization sip -sfilu_pc_sfilu_sip_alpha 0 -sfilu_pc_sfilu_layout grid -sfilu_pc_sfilu_grid 9,9,9
  test:
    suffix: empty_rank_sip_guess
    nsize: 3
    args: -n 9 -empty_rank 1 -planes -sfilu_pc_sfilu_factorization sip -sfilu_pc_sfilu_sip_alpha 0 -sfilu_pc_sfilu_layout grid
    output_file: output/ex7_empty_rank_sip.out

  test: # a NaN in rank 1's block: the view (rank 0's figures) says where, in global rows
    suffix: nan_view
    nsize: 2
    args: -n 9 -nan_row 500 -sfilu_ksp_view -sfdilu_ksp_view
    filter: grep -E "FAILED|iterations"

  # PCASM with sfilu blocks against PETSc's ILU blocks: residual histories bitwise equal (the blocks' rows are no grid)
  test:
    suffix: asm
    nsize: {{2 3}separate output}
    args: -n 9 -asm -overlap {{1 2}separate output}
  # a grid asked for on overlapping ASM blocks that are not one (rank 1's rows start inside a z-plane, the others'
  # give no grid): refused on every rank; rank 1's message says that no grid was given and the pattern is not one
  # (before, it named the grid read off a few of its rows as if it had been given)
  test:
    suffix: asm_refused
    nsize: 3
    args: -n 9 -asm -refusal -asm_sfilu_sub_pc_sfilu_factorization sip
  test:
    suffix: asm_grid_layout_refused
    nsize: 3
    args: -n 9 -asm -refusal -asm_sfilu_sub_pc_sfilu_layout grid

  # no structure (-problem random, tests/problems.c): rows of 0-1000 entries, couplings between any two ranks; the global
  # DILU's colors and iterations the same on 1-3 ranks
  test:
    suffix: random
    nsize: {{2 3}separate output}
    args: -problem random -n 10 -random_seed 5
  test:
    suffix: random_asm
    nsize: 3
    args: -problem random -n 10 -random_seed 5 -asm -overlap {{1 2}separate output}
  test:
    suffix: random_global
    nsize: {{1 2 3}shared output}
    args: -problem random -n 10 -random_seed 5 -global
  test:
    suffix: random_global_compare
    nsize: {{1 3}shared output}
    args: -problem random -n 10 -random_seed 7 -random_dominance 0.8 -global -compare_host

  # ILU(k) in each rank's block: PETSc's bjacobi with ILU(k) blocks, bit for bit
  test:
    suffix: iluk
    nsize: {{2 3}separate output}
    args: -n 9 -sfilu_pc_sfilu_fill_levels 1 -bjacobi_ilu_sub_pc_factor_levels 1
  test:
    suffix: iluk_empty_rank
    nsize: 3
    args: -n 9 -empty_rank 1 -sfilu_pc_sfilu_fill_levels 2 -bjacobi_ilu_sub_pc_factor_levels 2

  # the global DILU: the same colors and iterations on 1, 2 and 3 ranks, uneven and with an empty rank
  test:
    suffix: global
    nsize: {{1 2 3}shared output}
    args: -n 9 -global

  test:
    suffix: global_asymmetric
    nsize: {{1 2 3}shared output}
    args: -n 9 -global -asymmetric

  test:
    suffix: global_nan
    nsize: {{1 2 3}shared output}
    args: -n 9 -global -nan_row 500

  test:
    suffix: global_empty_rank
    nsize: 3
    args: -n 9 -global -empty_rank 1
    output_file: output/ex7_global.out

  # the PC against one on a host copy: on the host trivially equal; the GPU tests below run it against the GPU path
  test:
    suffix: global_compare
    nsize: {{1 2 3}shared output}
    args: -n 9 -global -asymmetric -compare_host

  test:
    suffix: global_compare_empty_rank
    nsize: 3
    args: -n 9 -global -compare_host -empty_rank 1

  # the global DILU on the GPU (aijcusparse: seqaijcusparse on 1 rank, mpiaijcusparse on more; CUDA vectors): the
  # host runs' colors, iterations and failures, bitwise the host reference's applies, also after new values
  testset:
    requires: gpu
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0
    test:
      suffix: gpu_global
      nsize: {{1 2 3}shared output}
      args: -n 9 -global
      output_file: output/ex7_global.out
    test:
      suffix: gpu_global_asymmetric
      nsize: {{1 2 3}shared output}
      args: -n 9 -global -asymmetric
      output_file: output/ex7_global_asymmetric.out
    test:
      suffix: gpu_global_nan
      nsize: {{1 2 3}shared output}
      args: -n 9 -global -nan_row 500
      output_file: output/ex7_global_nan.out
    test:
      suffix: gpu_global_empty_rank
      nsize: 3
      args: -n 9 -global -empty_rank 1
      output_file: output/ex7_global.out
    test:
      suffix: gpu_global_compare
      nsize: {{1 2 3}shared output}
      args: -n 9 -global -asymmetric -compare_host
      output_file: output/ex7_global_compare.out
    test: # no structure: couplings between any two ranks, rows of 0-1000 entries
      suffix: gpu_random_global
      nsize: {{1 2 3}shared output}
      args: -problem random -n 10 -random_seed 5 -global
      output_file: output/ex7_random_global.out
    test:
      suffix: gpu_random_global_compare
      nsize: {{1 3}shared output}
      args: -problem random -n 10 -random_seed 7 -random_dominance 0.8 -global -compare_host
      output_file: output/ex7_random_global_compare.out
    test:
      suffix: gpu_global_compare_empty_rank
      nsize: 3
      args: -n 9 -global -compare_host -empty_rank 1
      output_file: output/ex7_global_compare_empty_rank.out
    # PCASM's sfilu blocks on the GPU (seqaijcusparse) against PETSc's host ILU of the same blocks: the same iterations
    # and histories to rounding (bitwise where every block is a grid, whose layout sweeps in the host's order), the same
    # refusals as the host
    test:
      suffix: gpu_asm
      nsize: {{2 3}separate output}
      args: -n 9 -asm -overlap {{1 2}separate output} -asm_ilu_sub_pc_factor_mat_solver_type petsc -history_rtol 1e-8
      # PETSc's host ILU of an aijcusparse block leaves the cuSPARSE type's composed functions on a matrix it destroys,
      # which -petsc_ci (-checkfunctionlist) prints
      filter: grep -v "function name:"
    test:
      suffix: gpu_asm_refused
      nsize: 3
      args: -n 9 -asm -refusal -asm_sfilu_sub_pc_sfilu_factorization sip
      output_file: output/ex7_asm_refused.out
    test:
      suffix: gpu_asm_grid_layout_refused
      nsize: 3
      args: -n 9 -asm -refusal -asm_sfilu_sub_pc_sfilu_layout grid
      output_file: output/ex7_asm_grid_layout_refused.out

TEST*/
