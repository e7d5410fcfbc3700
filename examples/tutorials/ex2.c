static char help[] = "SFPC in a time loop: backward Euler for u_t - Laplace(u) + w(t) . grad(u) = 1 on the unit cube (7-point\n"
                     "stencil, first-order upwinding, u = 0 on the boundary) with a velocity w(t) that turns with time, so the\n"
                     "matrix I/dt + A(t) gets new values every step and keeps its nonzero pattern. PETSc then sets the PC up\n"
                     "with SAME_NONZERO_PATTERN and SFPC redoes only its numeric part: sfilu the numeric factorization, sfdilu\n"
                     "E (the coloring kept), afsai the values of G (its pattern kept). The program prints each step's\n"
                     "iterations and, at the end, how many symbolic and numeric set-ups ran.\n"
                     "Options: -n <points per direction>, -steps <s>, -dt <dt>, -peclet <Pe> (0: pure diffusion, symmetric: use\n"
                     "-ksp_type cg -pc_type afsai), and any KSP/PC option (default GMRES with -pc_type sfilu). On the GPU:\n"
                     "-dm_mat_type aijcusparse -dm_vec_type cuda.\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <sfpc.h>

/* I/dt - Laplace + w . grad, scaled by h^2, with w = peclet (cos(t), sin(t), 1/2): upwinded, so the matrix is an M-matrix. */
static PetscErrorCode AssembleStep(DM da, PetscReal dt, PetscReal peclet, PetscReal t, Mat A)
{
  DMDALocalInfo  info;
  const PetscReal w[3] = {peclet * PetscCosReal(t), peclet * PetscSinReal(t), 0.5 * peclet};
  PetscReal      h2;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  h2 = 1.0 / (PetscReal)((info.mx + 1) * (info.mx + 1));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil     row = {.k = k, .j = j, .i = i}, col[7];
        PetscScalar    v[7];
        PetscInt       nc = 0;
        PetscReal      diag = 6.0 + h2 / dt;
        const PetscInt off[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};

        for (PetscInt d = 0; d < 6; d++) {
          const PetscReal wd   = w[d / 2];                                                   /* the velocity along this neighbour's axis */
          const PetscReal up   = (d % 2 == 0) ? PetscMax(wd, 0.0) : PetscMax(-wd, 0.0); /* upwind: the neighbour the flow comes from */
          MatStencil      c    = {.k = k + off[d][2], .j = j + off[d][1], .i = i + off[d][0]};
          diag += up;
          if (c.i < 0 || c.j < 0 || c.k < 0 || c.i >= info.mx || c.j >= info.my || c.k >= info.mz) continue; /* Dirichlet zero */
          col[nc] = c;
          v[nc++] = -1.0 - up;
        }
        col[nc] = row;
        v[nc++] = diag;
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How many times the log event called name has run (0 if it never did). */
static PetscErrorCode EventCount(const char *name, PetscInt *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM             da;
  Mat            A;
  Vec            u, rhs, f;
  KSP            ksp;
  PC             pc;
  PCType         pctype;
  PetscInt       n = 32, steps = 10, its, total = 0;
  PetscReal      dt = 0.01, peclet = 10, h2;
  PetscLogDouble t0, t1, setup = 0, first = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscLogDefaultBegin()); /* for the set-up counts at the end */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peclet", &peclet, NULL));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &u));
  PetscCall(VecDuplicate(u, &rhs));
  PetscCall(VecDuplicate(u, &f));
  h2 = 1.0 / (PetscReal)((n + 1) * (n + 1));
  PetscCall(VecSet(f, h2)); /* the source 1, scaled by h^2 like the stencil */
  PetscCall(VecZeroEntries(u));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSFILU));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE)); /* the previous step's solution */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Backward Euler, %" PetscInt_FMT "^3 points, %" PetscInt_FMT " steps of %g, Peclet %g, PC %s\n", n, steps, (double)dt, (double)peclet, pctype));

  for (PetscInt s = 0; s < steps; s++) {
    KSPConvergedReason reason;
    PetscCall(AssembleStep(da, dt, peclet, (s + 1) * dt * 20, A)); /* new values, the same pattern */
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(VecCopy(u, rhs)); /* (I/dt + A) u_new = u_old/dt + f, scaled by h^2 */
    PetscCall(VecAXPBY(rhs, 1.0, h2 / dt, f));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscTime(&t1));
    if (s == 0) first = t1 - t0;
    else setup += t1 - t0;
    PetscCall(KSPSolve(ksp, rhs, u));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    total += its;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  step %2" PetscInt_FMT ": %s in %" PetscInt_FMT " iterations\n", s + 1, KSPConvergedReasons[reason], its));
  }
  {
    const char *events[][2] = {
      {"SFILUSymbolic", "SFILUNumeric"},
      {"SFDILUColor",   "SFDILUSetUp" },
      {"AFSAIPattern",  "AFSAIValues" }
    };
    for (int e = 0; e < 3; e++) {
      PetscInt sym, num;
      PetscCall(EventCount(events[e][0], &sym));
      PetscCall(EventCount(events[e][1], &num));
      if (sym || num) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " iterations in all; set-ups (log events, this rank): %s %" PetscInt_FMT ", %s %" PetscInt_FMT "\n", total, events[e][0], sym, events[e][1], num));
    }
  }
  if (steps > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  time        first set-up %.4f s, later set-ups %.4f s each\n", first, setup / (steps - 1)));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&rhs));
  PetscCall(VecDestroy(&f));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  testset:
    filter: grep -v "^  time"
    args: -n 10 -steps 4
    test:
      suffix: sfilu
    test:
      suffix: sfdilu
      args: -pc_type sfdilu
    test:
      suffix: afsai
      args: -peclet 0 -ksp_type cg -pc_type afsai
    test:
      suffix: mpi
      nsize: 2
    test:
      requires: gpu
      suffix: gpu_sfilu
      args: -dm_mat_type aijcusparse -dm_vec_type cuda -use_gpu_aware_mpi 0
      output_file: output/ex2_sfilu.out
    test:
      requires: gpu
      suffix: gpu_sfdilu
      args: -pc_type sfdilu -pc_sfdilu_coloring greedy -dm_mat_type aijcusparse -dm_vec_type cuda -use_gpu_aware_mpi 0
      output_file: output/ex2_sfdilu.out

TEST*/
