/* Package registration: dynamic loading (-dll_append) and explicit SFPCInitializePackage(). */
#include <sfpc/private/sfpcimpl.h>

PetscLogEvent SFPC_ILUSymbolic, SFPC_ILUNumeric, SFPC_TriSolve, SFPC_TriAnalysis, SFPC_DILUColor, SFPC_DILUSetUp, SFPC_AFSAIPattern, SFPC_AFSAIValues;

static PetscBool SFPCPackageInitialized = PETSC_FALSE;

/*@C
  SFPCFinalizePackage - Marks the package uninitialized; called by `PetscFinalize()`.

  Level: developer

.seealso: `SFPCInitializePackage()`
@*/
PetscErrorCode SFPCFinalizePackage(void)
{
  PetscFunctionBegin;
  SFPCPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SFPCInitializePackage - Registers SFPC's types (`PCSFILU`, `PCSFDILU`, `PCAFSAI`, the `MATSOLVERSFILU` factor, `MATHYBSF`) and log events with PETSc.

  Call it after `PetscInitialize()` in a program linked with libsfpc; loading the library with
  `-dll_append` calls it for you. Calling it more than once is harmless.

  Level: beginner

.seealso: `PCSFILU`
@*/
PetscErrorCode SFPCInitializePackage(void)
{
  PetscFunctionBegin;
  if (SFPCPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  SFPCPackageInitialized = PETSC_TRUE;
  PetscCall(PCRegister(PCSFILU, PCCreate_SFILU));
  PetscCall(PCRegister(PCSFDILU, PCCreate_SFDILU));
  PetscCall(PCRegister(PCAFSAI, PCCreate_AFSAI));
  /* MatSolverTypeRegister() reads its list before initializing the Mat package, so a first call from a
     library loaded by -dll_append (before PETSc initialized Mat) would replace PETSc's own list */
  PetscCall(MatInitializePackage());
  PetscCall(MatSolverTypeRegister(MATSOLVERSFILU, MATSEQAIJ, MAT_FACTOR_ILU, MatGetFactor_SFILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSFILU, MATSEQAIJCUSPARSE, MAT_FACTOR_ILU, MatGetFactor_SFILU));
  PetscCall(MatRegister(MATHYBSF, MatCreate_HYBSF));
  PetscCall(PetscLogEventRegister("SFILUSymbolic", PC_CLASSID, &SFPC_ILUSymbolic));
  PetscCall(PetscLogEventRegister("SFILUNumeric", PC_CLASSID, &SFPC_ILUNumeric));
  PetscCall(PetscLogEventRegister("SFTriSolve", PC_CLASSID, &SFPC_TriSolve));
  PetscCall(PetscLogEventRegister("SFTriAnalysis", MAT_CLASSID, &SFPC_TriAnalysis));
  PetscCall(PetscLogEventRegister("SFDILUColor", PC_CLASSID, &SFPC_DILUColor));
  PetscCall(PetscLogEventRegister("SFDILUSetUp", PC_CLASSID, &SFPC_DILUSetUp));
  PetscCall(PetscLogEventRegister("AFSAIPattern", PC_CLASSID, &SFPC_AFSAIPattern));
  PetscCall(PetscLogEventRegister("AFSAIValues", PC_CLASSID, &SFPC_AFSAIValues));
  PetscCall(PetscRegisterFinalize(SFPCFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry point PETSc looks up when it opens libsfpc.so through -dll_append. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_sfpc(void)
{
  PetscFunctionBegin;
  PetscCall(SFPCInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
