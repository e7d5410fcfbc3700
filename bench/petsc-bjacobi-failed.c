static char help[] = "Reproducer for a PETSc report, PETSc alone (no SFPC call): a failed factorization is remembered after the\n"
                     "matrix is fixed. A tridiagonal matrix of order -n (default 10) whose first diagonal entry is a stored 0 is\n"
                     "solved with GMRES and -pc_type bjacobi (default; asm, ilu, icc, lu and so on may be given): the zero pivot\n"
                     "makes the solve fail. The entry is then set to 4 (same nonzero pattern) and the same KSP solves again; a\n"
                     "third solve uses a new KSP. With -sub_pc_type lu -sub_pc_factor_mat_ordering_type natural the sub-PC\n"
                     "refactors without error in the second solve, but PCBJACOBI and PCASM still report PC_SUBPC_ERROR and the solve\n"
                     "fails. With ILU or ICC (PETSc's default sub-PC is ILU) the factorization is not even redone: the sub-PC keeps\n"
                     "its zero-pivot error. -clear: PCSetFailedReason(pc, PC_NOERROR) on the outer PC before the second solve.\n"
                     "Prints, for each solve, the KSP's reason and the failed reasons of the PC and of its first sub-PC.\n";

#include <petscksp.h>

/* The outer PC's failed reason, and the first sub-PC's, after a solve of ksp */
static PetscErrorCode Report(KSP ksp, const char *what)
{
  PC                 pc, subpc;
  KSP               *subksp;
  PetscInt           nsub, its;
  PetscBool          isasm, isbjacobi;
  KSPConvergedReason reason;
  PCFailedReason     outer, inner;

  PetscFunctionBeginUser;
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetFailedReason(pc, &outer));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCASM, &isasm));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &isbjacobi));
  if (isasm) PetscCall(PCASMGetSubKSP(pc, &nsub, NULL, &subksp));
  else if (isbjacobi) PetscCall(PCBJacobiGetSubKSP(pc, &nsub, NULL, &subksp));
  else subksp = &ksp; /* -pc_type ilu and the like: no sub-PC, the PC itself is printed twice */
  PetscCall(KSPGetPC(subksp[0], &subpc));
  PetscCall(PCGetFailedReason(subpc, &inner));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: KSP %s after %" PetscInt_FMT " iterations; outer PC failed reason %s; sub-PC failed reason %s\n", what, KSPConvergedReasons[reason], its, PCFailedReasons[outer], PCFailedReasons[inner]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NewKSP(Mat A, KSP *ksp)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCBJACOBI));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A;
  Vec         x, b;
  KSP         ksp, fresh;
  PetscInt    n = 10, rstart, rend, zero = 0;
  PetscScalar four  = 4.0;
  PetscBool   clear = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-clear", &clear, NULL));
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscScalar d = i ? 4.0 : 0.0; /* a_00 = 0: a factorization in natural order meets a zero pivot */

    PetscCall(MatSetValue(A, i, i, d, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));

  PetscCall(NewKSP(A, &ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Report(ksp, "solve 1, a_00 = 0"));

  if (!rstart) PetscCall(MatSetValues(A, 1, &zero, 1, &zero, &four, INSERT_VALUES)); /* same pattern, nonsingular pivots */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (clear) {
    PC pc;

    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetFailedReason(pc, PC_NOERROR));
  }
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Report(ksp, "solve 2, a_00 = 4, same KSP"));

  PetscCall(NewKSP(A, &fresh));
  PetscCall(KSPSolve(fresh, b, x));
  PetscCall(Report(fresh, "solve 3, a_00 = 4, new KSP"));

  PetscCall(KSPDestroy(&fresh));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
