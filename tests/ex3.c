static char help[] = "GPU smoke test: SFPC's CUDA build sees the device PETSc uses and its kernels run there,\n"
                     "and PETSc's own CUDA vectors work in the same process.\n";

#include <petscvec.h>
#include <sfpc.h>

int main(int argc, char **argv)
{
  Vec       v;
  PetscReal norm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(SFPCDeviceView(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, 1000, &v));
  PetscCall(VecSet(v, 2.0));
  PetscCall(VecNorm(v, NORM_1, &norm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VECSEQCUDA 1-norm of 1000 twos: %g\n", (double)norm));
  PetscCall(VecDestroy(&v));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    requires: gpu
    args: -use_gpu_aware_mpi 0
    filter: sed -e "s/^SFPC device.*SFPC kernels run/SFPC kernels run/"

TEST*/
