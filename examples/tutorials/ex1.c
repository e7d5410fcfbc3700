static char help[] = "SFPC demo: -Laplace(u) = 1 on the unit cube (7-point stencil, u = 0 on the boundary),\n"
                     "solved with CG and -pc_type sfilu. Options: -n <points per direction>, -compare (also\n"
                     "solve with PETSc's -pc_type ilu), -mat_type aijcusparse (everything on the GPU), and any\n"
                     "KSP/PC/Mat option, e.g. -pc_sfilu_shift_type.\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petscdevice.h>
#include <sfpc.h>

static PetscErrorCode AssembleLaplacian(DM da, Mat A)
{
  DMDALocalInfo info;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        MatStencil  row = {.k = k, .j = j, .i = i}, col[7];
        PetscScalar v[7];
        PetscInt    nc = 0;
        const PetscInt off[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};

        col[nc] = row;
        v[nc++] = 6.0;
        for (PetscInt d = 0; d < 6; d++) { /* neighbours outside the cube are Dirichlet zeros */
          MatStencil c = {.k = k + off[d][2], .j = j + off[d][1], .i = i + off[d][0]};
          if (c.i < 0 || c.j < 0 || c.k < 0 || c.i >= info.mx || c.j >= info.my || c.k >= info.mz) continue;
          col[nc] = c;
          v[nc++] = -1.0;
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Wall clock once the GPU has finished what was queued for A: a KSP that never reads a norm back (-ksp_norm_type none)
   returns while its kernels still run. */
static PetscErrorCode Now(Mat A, PetscLogDouble *t)
{
  PetscBool gpu;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &gpu, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  if (gpu) PetscCall(PetscDeviceContextSynchronize(NULL));
  PetscCall(PetscTime(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sets up and solves once, timing each (a first solve: one-time costs included); prints one summary block. */
static PetscErrorCode SolveAndReport(Mat A, Vec b, Vec x, PCType pctype, PetscBool fromoptions)
{
  KSP                ksp;
  PC                 pc;
  PetscLogDouble     t0, t1, t2;
  PetscInt           its;
  PetscReal          rnorm, bnorm, rtol;
  KSPConvergedReason reason;
  KSPType            ksptype;
  PCType             used;
  Vec                r;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  if (fromoptions) PetscCall(KSPSetFromOptions(ksp));
  PetscCall(Now(A, &t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(Now(A, &t1));
  PetscCall(VecZeroEntries(x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Now(A, &t2));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(PCGetType(pc, &used));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  solver      KSP %s, PC %s, rtol %g\n", ksptype, used, (double)rtol));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  result      %s in %" PetscInt_FMT " iterations, relative true residual %.1e\n", KSPConvergedReasons[reason], its, (double)(rnorm / bnorm)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  time        set-up %.3f s, solve %.3f s\n", t1 - t0, t2 - t1));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        da;
  Mat       A;
  Vec       x, b;
  PetscInt  n = 40, N, mx, my, mz;
  PetscBool compare = PETSC_FALSE;
  MatType   mtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage()); /* this program links libsfpc; others can use -dll_append */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare", &compare, NULL));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, &mz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)); /* -da_grid_x/y/z may have changed n */
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(AssembleLaplacian(da, A));
  PetscCall(MatCreateVecs(A, &x, &b)); /* vectors of the matrix's kind: CUDA vectors for -mat_type aijcusparse */
  PetscCall(VecSet(b, 1.0 / (PetscReal)((mx + 1) * (mx + 1)))); /* f = 1 scaled by h^2 (h along x), like the stencil */
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetType(A, &mtype));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SFPC demo: 3-D Poisson, 7-point stencil, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " = %" PetscInt_FMT " unknowns, matrix type %s\n", mx, my, mz, N, mtype));
  PetscCall(SFPCDeviceView(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(SolveAndReport(A, b, x, PCSFILU, PETSC_TRUE));
  if (compare) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc's own ILU(0) on the same system, for comparison:\n"));
    PetscCall(SolveAndReport(A, b, x, PCILU, PETSC_FALSE));
  }

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    args: -n 12 -compare
    filter: grep -v "SFPC device"

  # Where -pc_sfilu_richardson_fused auto forms Richardson's residual inside the L sweep: on a 144^3 cube (3.0*10^6
  # points, 720 tile lines) it does; on a 128^3 cube (2.1*10^6 points, below the threshold: 0.94-0.99x fused on H100 and
  # H200) and on a flat grid of 2.1*10^6 points (64 tile lines, 1.8x slower fused on an H200) it does not.
  testset:
    requires: gpu
    args: -mat_type aijcusparse -use_gpu_aware_mpi 0 -ksp_type richardson -ksp_max_it 2 -ksp_view
    filter: grep -o -e "products with A formed inside the L sweep: .*" -e "L: grid layout on the [0-9 x]* grid"
    test:
      suffix: gpu_fused_cube
      args: -n 144
    test:
      suffix: gpu_fused_cube_small
      args: -n 128
    test:
      suffix: gpu_fused_flat
      args: -da_grid_x 1024 -da_grid_y 1024 -da_grid_z 2

TEST*/
