static char help[] = "Reproducer for a PETSc report, PETSc alone (no SFPC call): PCView() to a string viewer\n"
                     "(PetscViewerStringOpen()) crashes in PCView_Factor() when a factorization PC has operators but is not yet\n"
                     "set up. A KSP on a diagonal SeqAIJ matrix of order -n (default 10), with PETSc's default PC (ILU on one\n"
                     "process; -pc_type icc, lu, cholesky or others may be given), is viewed to a string viewer before any\n"
                     "set-up: its PC with PCView(), or the KSP itself with KSPView() (which calls PCView()) with -view_ksp.\n"
                     "-setup calls KSPSetUp() first. Prints the string on success.\n";

#include <petscksp.h>

int main(int argc, char **argv)
{
  Mat         A;
  Vec         d;
  KSP         ksp;
  PC          pc;
  PetscViewer viewer;
  PetscInt    n     = 10;
  PetscBool   setup = PETSC_FALSE, viewksp = PETSC_FALSE;
  PCType      type;
  char        text[1024];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-setup", &setup, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view_ksp", &viewksp, NULL));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 1, NULL, &A));
  PetscCall(MatCreateVecs(A, &d, NULL));
  PetscCall(VecSet(d, 2.0));
  PetscCall(MatDiagonalSet(A, d, INSERT_VALUES));

  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  if (setup) PetscCall(KSPSetUp(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &type));
  PetscCall(PetscViewerStringOpen(PETSC_COMM_SELF, text, sizeof(text), &viewer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s() to a string viewer, PC %s,%s set up\n", viewksp ? "KSPView" : "PCView", type, setup ? "" : " not"));
  if (viewksp) PetscCall(KSPView(ksp, viewer));
  else PetscCall(PCView(pc, viewer));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "string: \"%s\"\n", text));
  PetscCall(PetscViewerDestroy(&viewer));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
