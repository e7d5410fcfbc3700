static char help[] = "PCApplyTranspose() of PCSFDILU: M^{-T} from A's own coloring, E and storage (M(A)^T is the DILU of A^T with A's coloring).\n"
                     "The adjoint identity (M^{-T} u, v) = (u, M^{-1} v) for u, v of no structure, before and after new values of the\n"
                     "same pattern; BiCG, which applies M^{-T}; KSPSolveTranspose() with GAMG and sfdilu level smoothers under\n"
                     "Richardson (they apply M^{-T} in a transposed solve), the true residual of A^T x = b checked; -gamg_adjoint: the adjoint\n"
                     "identity of a whole PC (prefix adj_), e.g. GAMG with sfdilu Richardson smoothers weighted by -adj_mg_levels_pc_sfdilu_omega.\n"
                     "Options: problem options of tests/problems.c, -asymmetric (a pattern that is not symmetric), -zero (a_00 = 0:\n"
                     "with -dilu_pc_sfdilu_shift_type nonzero the shifted E; without, the failed PC's applies give Inf), -gamg, -device (everything also on an aijcusparse copy:\n"
                     "M^{-T} u equal to the host's to rounding, and the host's iterations). The PC's options carry the prefix dilu_.\n";

#include <petscksp.h>
#include <sfpc.h>
#include "problems.h"

/* x_i = sin(k + 0.37 i) by global row: the same vectors on any number of ranks (VecSetRandom() draws each rank's part alike). */
static PetscErrorCode FillByRow(Vec x, PetscInt k)
{
  PetscInt     rs, re;
  PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(x, &rs, &re));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt i = rs; i < re; i++) xa[i - rs] = PetscSinReal((PetscReal)k + 0.37 * (PetscReal)i);
  PetscCall(VecRestoreArrayWrite(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint identity of the DILU of A, set up anew, then after new values 2 A + I of the same pattern; Mtu: M^{-T} u of the first set-up that did not fail. */
static PetscErrorCode CheckAdjoint(Mat A, const char *where, Vec u, Vec v, Vec Mtu)
{
  PC             pc;
  Vec            Mv, w;
  PCFailedReason failed;
  PetscBool      kept = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)A), &pc));
  PetscCall(PCSetType(pc, PCSFDILU));
  PetscCall(PCSetOptionsPrefix(pc, "dilu_"));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(VecDuplicate(v, &Mv));
  PetscCall(VecDuplicate(u, &w));
  for (PetscInt k = 0; k < 2; k++) {
    PetscScalar lhs, rhs;
    PetscReal   nw, nv, nu, nmv;
    if (k) { /* new values: A^T's DILU must follow */
      PetscCall(MatScale(A, 2.0));
      PetscCall(MatShift(A, 1.0));
    }
    PetscCall(PCSetOperators(pc, A, A));
    PetscCall(PCSetUp(pc));
    PetscCall(PCGetFailedReason(pc, &failed));
    PetscCall(PCApply(pc, v, Mv));
    PetscCall(PCApplyTranspose(pc, u, w));
    if (failed != PC_NOERROR) { /* as PCApply(), the transposed apply of a failed PC gives Inf, for the KSP to stop on */
      PetscCall(VecNorm(w, NORM_INFINITY, &nw));
      PetscCall(VecNorm(Mv, NORM_INFINITY, &nmv));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s: set-up failed (%s); M^-T u and M^-1 v are Inf: %s\n", where, k ? ", new values" : "", PCFailedReasons[failed], PetscIsInfReal(nw) && PetscIsInfReal(nmv) ? "yes" : "NO"));
      continue;
    }
    if (!kept) PetscCall(VecCopy(w, Mtu));
    kept = PETSC_TRUE;
    PetscCall(VecDot(w, v, &lhs));
    PetscCall(VecDot(u, Mv, &rhs));
    PetscCall(VecNorm(w, NORM_2, &nw));
    PetscCall(VecNorm(v, NORM_2, &nv));
    PetscCall(VecNorm(u, NORM_2, &nu));
    PetscCall(VecNorm(Mv, NORM_2, &nmv));
    PetscCall(PetscInfo(pc, "%s: |(M^-T u, v) - (u, M^-1 v)| = %g, scale %g\n", where, (double)PetscAbsScalar(lhs - rhs), (double)PetscMax(nw * nv, nu * nmv)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s: (M^-T u, v) = (u, M^-1 v) to rounding: %s\n", where, k ? ", new values" : "", PetscAbsScalar(lhs - rhs) <= 1e-12 * PetscMax(nw * nv, nu * nmv) ? "yes" : "NO"));
  }
  PetscCall(VecDestroy(&Mv));
  PetscCall(VecDestroy(&w));
  PetscCall(PCDestroy(&pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MAX_ITS 500

/* A solve with the options of prefix, transposed or not: its reason, iterations, residual norms (hist[0 .. its]) and whether ||b - op(A) x|| <= 1e-7 ||b||. */
static PetscErrorCode Solve(Mat A, Vec b, const char *prefix, PetscBool transpose, KSPConvergedReason *reason, PetscInt *its, PetscReal hist[], PetscBool *small)
{
  KSP       ksp;
  Vec       x, r;
  PetscReal nr, nb;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, MAX_ITS));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetResidualHistory(ksp, hist, MAX_ITS + 1, PETSC_TRUE));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &r));
  if (transpose) PetscCall(KSPSolveTranspose(ksp, b, x));
  else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  if (transpose) PetscCall(MatMultTranspose(A, x, r));
  else PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *small = (PetscBool)(nr <= 1e-7 * nb);
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The solve on A and (device) on its GPU copy. The GPU applies agree with the host's to rounding only (sums in
   another order, and in the local row order other rows first); BiCG's residual is erratic near convergence and
   amplifies those differences there (16^3, local order, H100: the norms agree to 8 digits down to 1e-6 ||r_0||,
   then 23 host against 21 GPU iterations at rtol 1e-10), so the GPU solve must converge with the host's residual
   history, to 1e-4 relative, in every iteration whose residual is above 1e-7 ||r_0||.
*/
static PetscErrorCode SolveBoth(Mat A, Mat Ad, Vec b, const char *prefix, PetscBool transpose)
{
  KSPConvergedReason reason;
  PetscInt           its, itsd;
  PetscReal          hist[MAX_ITS + 1] = {0}, histd[MAX_ITS + 1] = {0}; /* a failed set-up records no norm */
  PetscBool          small, same = PETSC_TRUE;
  const char        *op = transpose ? " transposed" : "", *opA = transpose ? "^T" : "";
  Vec                bd;

  PetscFunctionBegin;
  PetscCall(Solve(A, b, prefix, transpose, &reason, &its, hist, &small));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s: %s in %" PetscInt_FMT " iterations; ||b - A%s x|| <= 1e-7 ||b||: %s\n", prefix, op, KSPConvergedReasons[reason], its, opA, small ? "yes" : "NO"));
  if (!Ad) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreateVecs(Ad, NULL, &bd));
  PetscCall(VecCopy(b, bd));
  PetscCall(Solve(Ad, bd, prefix, transpose, &reason, &itsd, histd, &small));
  PetscCall(PetscInfo(NULL, "%s%s on the GPU: %" PetscInt_FMT " iterations (host %" PetscInt_FMT ")\n", prefix, op, itsd, its));
  for (PetscInt k = 0; k <= PetscMin(its, itsd); k++)
    if (hist[k] > 1e-7 * hist[0]) same = (PetscBool)(same && PetscAbsReal(histd[k] - hist[k]) <= 1e-4 * hist[k]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%s (GPU): %s; the host's residual history down to 1e-7 ||r_0||: %s; ||b - A%s x|| <= 1e-7 ||b||: %s\n", prefix, op, reason > 0 ? "converged" : "NOT converged", same ? "yes" : "NO", opA, small ? "yes" : "NO"));
  PetscCall(VecDestroy(&bd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -gamg_adjoint: the adjoint identity (u, B v) = (B^T u, v) of a whole KSP's PC B (options prefix adj_, e.g. PCGAMG with sfdilu
   Richardson smoothers and -adj_mg_levels_pc_sfdilu_omega 0.7). PCMG's transposed apply runs its smoothers' KSPs transposed,
   where KSPRICHARDSON steps with PCApplyTranspose() in its own loop and not PCApplyRichardson(): the weight must be in both.
*/
static PetscErrorCode CheckAdjointKSP(Mat A, const char *where, Vec u, Vec v)
{
  KSP         ksp;
  PC          pc;
  Vec         Bv, Btu;
  PetscScalar ubv, btuv;
  PetscReal   rel;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "adj_"));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(VecDuplicate(u, &Bv));
  PetscCall(VecDuplicate(u, &Btu));
  PetscCall(PCApply(pc, v, Bv));
  PetscCall(PCApplyTranspose(pc, u, Btu));
  PetscCall(VecDot(Bv, u, &ubv));
  PetscCall(VecDot(v, Btu, &btuv));
  rel = PetscAbsScalar(ubv - btuv) / PetscMax(PetscAbsScalar(ubv), PetscAbsScalar(btuv));
  PetscCall(PetscInfo(NULL, "%s: (u, B v) %g, (B^T u, v) %g, relative difference %g\n", where, (double)PetscRealPart(ubv), (double)PetscRealPart(btuv), (double)rel));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "adj_ PC (%s): (u, B v) = (B^T u, v) to 1e-12: %s\n", where, rel <= 1e-12 ? "yes" : "NO"));
  PetscCall(VecDestroy(&Btu));
  PetscCall(VecDestroy(&Bv));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, Ad = NULL;
  Vec         u, v, b, Mtu;
  char        desc[256];
  PetscBool   gamg = PETSC_FALSE, device = PETSC_FALSE, adjoint = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-device", &device, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg_adjoint", &adjoint, NULL));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, &A, desc, sizeof(desc)));
  PetscCall(TestProblemVariants(&A, desc, sizeof(desc)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem: %s\n", desc));
  if (device) PetscCall(MatConvert(A, MATAIJCUSPARSE, MAT_INITIAL_MATRIX, &Ad));
  PetscCall(MatCreateVecs(A, &u, &v));
  PetscCall(VecDuplicate(u, &Mtu));
  PetscCall(VecDuplicate(v, &b));
  PetscCall(FillByRow(u, 1));
  PetscCall(FillByRow(v, 2));
  PetscCall(FillByRow(b, 3));

  /* the solves first: the adjoint checks change the values */
  PetscCall(SolveBoth(A, Ad, b, "bicg_", PETSC_FALSE));
  if (gamg) PetscCall(SolveBoth(A, Ad, b, "gamg_", PETSC_TRUE));
  if (adjoint) {
    PetscCall(CheckAdjointKSP(A, "host", u, v));
    if (Ad) {
      Vec ud, vd;

      PetscCall(MatCreateVecs(Ad, &ud, &vd));
      PetscCall(VecCopy(u, ud));
      PetscCall(VecCopy(v, vd));
      PetscCall(CheckAdjointKSP(Ad, "GPU", ud, vd));
      PetscCall(VecDestroy(&ud));
      PetscCall(VecDestroy(&vd));
    }
  }
  if (Ad) {
    Vec       ud, vd, Mtud, diff;
    PetscReal err, nrm;
    PetscCall(MatCreateVecs(Ad, &ud, &vd));
    PetscCall(VecDuplicate(ud, &Mtud));
    PetscCall(VecCopy(u, ud));
    PetscCall(VecCopy(v, vd));
    PetscCall(CheckAdjoint(Ad, "GPU", ud, vd, Mtud));
    PetscCall(CheckAdjoint(A, "host", u, v, Mtu));
    PetscCall(VecDuplicate(Mtu, &diff));
    PetscCall(VecCopy(Mtud, diff));
    PetscCall(VecAXPY(diff, -1.0, Mtu));
    PetscCall(VecNorm(diff, NORM_INFINITY, &err));
    PetscCall(VecNorm(Mtu, NORM_INFINITY, &nrm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GPU M^-T u agrees with the host's to rounding: %s\n", err <= 1e-12 * nrm ? "yes" : "NO"));
    PetscCall(VecDestroy(&diff));
    PetscCall(VecDestroy(&ud));
    PetscCall(VecDestroy(&vd));
    PetscCall(VecDestroy(&Mtud));
  } else PetscCall(CheckAdjoint(A, "host", u, v, Mtu));

  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&Mtu));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  testset:
    args: -bicg_ksp_type bicg -bicg_pc_type sfdilu -bicg_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_coloring jpl
    test:
      suffix: convdiff
      args: -problem convdiff -n 8 -peclet 20 -gamg -gamg_ksp_type gmres -gamg_pc_type gamg -gamg_mg_levels_ksp_type richardson -gamg_mg_levels_pc_type sfdilu
    test:
      suffix: asymmetric
      args: -problem convdiff -n 8 -peclet 5 -asymmetric
    test: # a weight other than 1: PCMG's transposed apply is the adjoint of its apply
      suffix: gamg_omega
      args: -problem convdiff -n 8 -peclet 5 -gamg_adjoint -adj_pc_type gamg -adj_mg_levels_ksp_type richardson -adj_mg_levels_pc_type sfdilu -adj_mg_levels_pc_sfdilu_omega {{0.7 1}separate output}
    test:
      suffix: permuted
      args: -problem convdiff -n 8 -peclet 5 -permute 3 -asymmetric
    test: # A's shifted E: A^T gets the same shift
      suffix: shifted
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_shift_type nonzero -bicg_pc_sfdilu_shift_type nonzero
    test: # a zero pivot, no shift: the transposed apply of the failed PC flags Inf; new values 2 A + I set it up again
      suffix: zeropivot
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_coloring greedy -bicg_pc_sfdilu_coloring greedy
    test: # each rank's diagonal block
      suffix: mpi
      nsize: {{2 3}separate output}
      args: -problem convdiff -n 8 -peclet 5 -asymmetric
    test: # the global DILU across ranks: the same on 1 to 3 ranks
      suffix: global
      nsize: {{1 2 3}shared output}
      args: -problem convdiff -n 8 -peclet 5 -asymmetric -dilu_pc_sfdilu_parallel -bicg_pc_sfdilu_parallel
    test: # no structure (tests/problems.c): rows of 0-1000 entries, weakly dominant; in each rank's block and globally
      suffix: random
      nsize: {{1 2}separate output}
      args: -problem random -n 10 -random_seed 5 -random_dominance 0.9
    test: # (3 ranks on a 2-core CI machine take 23 s here: a halo exchange a color, 50 colors, oversubscribed; ex7 has them)
      suffix: random_global
      nsize: {{1 2}shared output}
      args: -problem random -n 10 -random_seed 5 -random_dominance 0.9 -dilu_pc_sfdilu_parallel -bicg_pc_sfdilu_parallel
    test: # dense point-blocks of 3 rows on the random pattern, DILU row by row (the GPU sweeps by the engine's point-blocks)
      suffix: random_blocks
      args: -problem random -n 8 -random_seed 9 -random_block 3 -dilu_pc_sfdilu_blocks false -bicg_pc_sfdilu_blocks false
    test: # and DILU by those point-blocks (auto's choice)
      suffix: random_blocks_auto
      args: -problem random -n 8 -random_seed 9 -random_block 3

  testset:
    requires: gpu
    args: -device -use_gpu_aware_mpi 0 -bicg_ksp_type bicg -bicg_pc_type sfdilu -bicg_pc_sfdilu_coloring jpl -dilu_pc_sfdilu_coloring jpl
    test:
      suffix: gpu_convdiff
      args: -problem convdiff -n 8 -peclet 20 -gamg -gamg_ksp_type gmres -gamg_pc_type gamg -gamg_mg_levels_ksp_type richardson -gamg_mg_levels_pc_type sfdilu
    test: # GAMG's coarse levels pinned to the CPU: their transposed DILU stays on the host
      suffix: gpu_pinned
      args: -problem convdiff -n 8 -peclet 20 -gamg -gamg_ksp_type gmres -gamg_pc_type gamg -gamg_mg_levels_ksp_type richardson -gamg_mg_levels_pc_type sfdilu -gamg_pc_gamg_cpu_pin_coarse_grids
      output_file: output/ex13_gpu_convdiff.out
    test:
      suffix: gpu_asymmetric
      args: -problem convdiff -n 8 -peclet 5 -asymmetric
    test:
      suffix: gpu_gamg_omega
      args: -problem convdiff -n 8 -peclet 5 -gamg_adjoint -adj_pc_type gamg -adj_mg_levels_ksp_type richardson -adj_mg_levels_pc_type sfdilu -adj_mg_levels_pc_sfdilu_omega 0.7
    test:
      suffix: gpu_local
      args: -problem convdiff -n 16 -peclet 5 -asymmetric -dilu_pc_sfdilu_order local -dilu_pc_sfdilu_local_window 512 -bicg_pc_sfdilu_order local -bicg_pc_sfdilu_local_window 512
    test: # forward sweeps one launch per color; the transposed ones are the engine's sync-free sweeps all the same
      suffix: gpu_percolor
      args: -problem convdiff -n 8 -peclet 5 -asymmetric -dilu_pc_sfdilu_sweep percolor -bicg_pc_sfdilu_sweep percolor
      output_file: output/ex13_gpu_asymmetric.out
    test: # each rank's diagonal block on the GPU
      suffix: gpu_mpi
      nsize: 2
      args: -problem convdiff -n 8 -peclet 5 -asymmetric
    test: # the global DILU on the GPU: a_ji for a_ij in the same per-color kernels
      suffix: gpu_global
      nsize: {{1 2}shared output}
      args: -problem convdiff -n 8 -peclet 5 -asymmetric -dilu_pc_sfdilu_parallel -bicg_pc_sfdilu_parallel
      output_file: output/ex13_gpu_asymmetric.out
    test: # E fails on the GPU as on the host (greedy coloring: row 0 first); M^-T u compared after the new values
      suffix: gpu_zeropivot
      args: -problem poisson7 -n 6 -zero -dilu_pc_sfdilu_coloring greedy -bicg_pc_sfdilu_coloring greedy
    test: # no structure: M^-T u the host's to rounding, the host's BiCG iterations
      suffix: gpu_random
      nsize: {{1 2}separate output}
      args: -problem random -n 10 -random_seed 5 -random_dominance 0.9
    test:
      suffix: gpu_random_global
      nsize: {{1 2}shared output}
      args: -problem random -n 10 -random_seed 5 -random_dominance 0.9 -dilu_pc_sfdilu_parallel -bicg_pc_sfdilu_parallel
    test:
      suffix: gpu_random_blocks
      args: -problem random -n 8 -random_seed 9 -random_block 3 -dilu_pc_sfdilu_blocks false -bicg_pc_sfdilu_blocks false
    test:
      suffix: gpu_random_blocks_auto
      args: -problem random -n 8 -random_seed 9 -random_block 3

TEST*/
