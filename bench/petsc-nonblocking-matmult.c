static char help[] = "Reproducer for PETSc: MatMult() of an MPIAIJCUSPARSE matrix with the root device context's stream made\n"
                     "non-blocking (-root_device_context_stream_type nonblocking). A is the tridiagonal (-1, 2, -1) of order -n\n"
                     "split over the processes, so each process's off-diagonal block has one or two nonzero rows (compressed rows:\n"
                     "the product goes through a work vector that is then added into y). At step k, x = k and y = A x, whose 1-norm\n"
                     "must be 2k exactly (every entry is an integer). Prints how many of -steps norms were wrong and the first few.\n"
                     "Run it on 2 processes with -mat_type aijcusparse, with and without the option.\n";

#include <petscmat.h>

int main(int argc, char **argv)
{
  Mat      A;
  Vec      x, y;
  PetscInt n = 1000000, steps = 200, wrong = 0, rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCheck(n >= 2 && steps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2 and -steps positive");
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetFromOptions(A)); /* -mat_type aijcusparse (aij: the same program on the host, never wrong) */
  PetscCall(MatSeqAIJSetPreallocation(A, 3, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 3, NULL, 1, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    cols[3] = {i - 1, i, i + 1};
    PetscScalar vals[3] = {-1.0, 2.0, -1.0};
    if (i == 0) PetscCall(MatSetValues(A, 1, &i, 2, cols + 1, vals + 1, INSERT_VALUES));
    else if (i == n - 1) PetscCall(MatSetValues(A, 1, &i, 2, cols, vals, INSERT_VALUES));
    else PetscCall(MatSetValues(A, 1, &i, 3, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &y));
  for (PetscInt k = 1; k <= steps; k++) {
    PetscReal norm;

    PetscCall(VecSet(x, (PetscScalar)k));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecNorm(y, NORM_1, &norm));
    if (norm != 2.0 * (PetscReal)k) {
      if (wrong < 5) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %" PetscInt_FMT ": |A x|_1 = %.17g, expected %.17g\n", k, (double)norm, 2.0 * (double)k));
      wrong++;
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " of %" PetscInt_FMT " norms wrong (n = %" PetscInt_FMT ")\n", wrong, steps, n));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
