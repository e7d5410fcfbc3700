static char help[] = "Reproducer for a PETSc report, PETSc alone (no SFPC call): PCSetUp() with PCICC leaks its ordering index sets\n"
                     "when the symbolic factorization fails. A tridiagonal matrix of order -n (default 10) without a stored\n"
                     "diagonal entry in its row 3 is given to a PCICC; PCSetUp() returns an error (caught, PetscReturnErrorHandler)\n"
                     "and the PC and the matrix are destroyed. Run with -malloc_debug -malloc_dump: memory allocated under\n"
                     "MatGetOrdering() remains at PetscFinalize(). -pc_type ilu does the same with PCILU, which keeps its\n"
                     "orderings in the PC and leaks nothing.\n";

#include <petscpc.h>

int main(int argc, char **argv)
{
  Mat            A;
  PC             pc;
  PetscInt       n = 10;
  PetscErrorCode ierr;
  const char    *msg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, NULL, &A));
  for (PetscInt i = 0; i < n; i++) {
    if (i != 3) PetscCall(MatSetValue(A, i, i, 4.0, INSERT_VALUES)); /* row 3 has no diagonal entry */
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCICC));
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PCSetUp(pc); /* fails in the symbolic factorization: the matrix misses a diagonal entry */
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscErrorMessage(ierr, &msg, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "PCSetUp() returned error %d (%s)\n", (int)ierr, msg));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
