/* Package registration: dynamic loading (-dll_append) and explicit SFPCInitializePackage(). */
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/trifactor_device.h>

PetscLogEvent SFPC_ILUSymbolic, SFPC_ILUNumeric, SFPC_TriSolve, SFPC_TriAnalysis, SFPC_DILUColor, SFPC_DILUSetUp, SFPC_AFSAIPattern, SFPC_AFSAIValues;
PetscLogEvent SFPC_AFSAIGtPattern, SFPC_AFSAIHostCSR, SFPC_AFSAIMats, SFPC_AFSAIDeviceCSR, SFPC_AFSAIFill;

static PetscBool SFPCPackageInitialized = PETSC_FALSE;

PetscInt SFPCAnalysisQueueRows = PETSC_DECIDE;

/* Options of the package as a whole (the engine's tuning), read once, when the package is initialized. */
static PetscErrorCode SFPCSetFromOptions(void)
{
  PetscInt  m = PETSC_DECIDE;
  PetscBool set;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "SFPC engine options", "Sys");
  PetscCall(PetscOptionsInt("-sfpc_analysis_queue_rows", "SFPC engine analysis (every triangle and factor): dependency levels from the ready queue for triangles of at least this many rows (default: from the GPU's warps in flight and the rows' lengths)", "MATHYBSF", m, &m, &set));
  PetscOptionsEnd();
  PetscCheck(!set || m >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-sfpc_analysis_queue_rows %" PetscInt_FMT " is out of range: it must be >= 0", m);
  if (set) SFPCAnalysisQueueRows = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SFPCFinalizePackage - Marks the package uninitialized; called by `PetscFinalize()`.

  Level: developer

.seealso: `SFPCInitializePackage()`
@*/
PetscErrorCode SFPCFinalizePackage(void)
{
  PetscFunctionBegin;
  SFPCPackageInitialized = PETSC_FALSE;
  SFPCAnalysisQueueRows  = PETSC_DECIDE;
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
  PetscCall(PetscRegisterFinalize(SFPCFinalizePackage)); /* first: a failure below must not leave the flag set past PetscFinalize() */
  PetscCall(PCRegister(PCSFILU, PCCreate_SFILU));
  PetscCall(PCRegister(PCSFDILU, PCCreate_SFDILU));
  PetscCall(PCRegister(PCAFSAI, PCCreate_AFSAI));
  /* MatSolverTypeRegister() reads its list before initializing the Mat package, so a first call from a
     library loaded by -dll_append (before PETSc initialized Mat) would replace PETSc's own list */
  PetscCall(MatInitializePackage());
  PetscCall(MatSolverTypeRegister(MATSOLVERSFILU, MATSEQAIJ, MAT_FACTOR_ILU, MatGetFactor_SFILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSFILU, MATSEQAIJCUSPARSE, MAT_FACTOR_ILU, MatGetFactor_SFILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSFILU, MATSEQAIJ, MAT_FACTOR_ICC, MatGetFactor_SFILU));
  PetscCall(MatSolverTypeRegister(MATSOLVERSFILU, MATSEQAIJCUSPARSE, MAT_FACTOR_ICC, MatGetFactor_SFILU));
  PetscCall(MatRegister(MATHYBSF, MatCreate_HYBSF));
  PetscCall(PetscLogEventRegister("SFILUSymbolic", PC_CLASSID, &SFPC_ILUSymbolic));
  PetscCall(PetscLogEventRegister("SFILUNumeric", PC_CLASSID, &SFPC_ILUNumeric));
  PetscCall(PetscLogEventRegister("SFTriSolve", PC_CLASSID, &SFPC_TriSolve));
  PetscCall(PetscLogEventRegister("SFTriAnalysis", MAT_CLASSID, &SFPC_TriAnalysis));
  PetscCall(PetscLogEventRegister("SFDILUColor", PC_CLASSID, &SFPC_DILUColor));
  PetscCall(PetscLogEventRegister("SFDILUSetUp", PC_CLASSID, &SFPC_DILUSetUp));
  PetscCall(PetscLogEventRegister("AFSAIPattern", PC_CLASSID, &SFPC_AFSAIPattern));
  PetscCall(PetscLogEventRegister("AFSAIValues", PC_CLASSID, &SFPC_AFSAIValues));
  /* the parts of the GPU assembly of G and G^T; per rank (a rank whose set-up failed skips them), so not collective */
  PetscCall(PetscLogEventRegister("AFSAIGtPattern", PC_CLASSID, &SFPC_AFSAIGtPattern));
  PetscCall(PetscLogEventRegister("AFSAIHostCSR", PC_CLASSID, &SFPC_AFSAIHostCSR));
  PetscCall(PetscLogEventRegister("AFSAIMats", PC_CLASSID, &SFPC_AFSAIMats));
  PetscCall(PetscLogEventRegister("AFSAIDeviceCSR", PC_CLASSID, &SFPC_AFSAIDeviceCSR));
  PetscCall(PetscLogEventRegister("AFSAIFill", PC_CLASSID, &SFPC_AFSAIFill));
  PetscCall(PetscLogEventSetCollective(SFPC_AFSAIGtPattern, PETSC_FALSE));
  PetscCall(PetscLogEventSetCollective(SFPC_AFSAIHostCSR, PETSC_FALSE));
  PetscCall(PetscLogEventSetCollective(SFPC_AFSAIMats, PETSC_FALSE));
  PetscCall(PetscLogEventSetCollective(SFPC_AFSAIDeviceCSR, PETSC_FALSE));
  PetscCall(PetscLogEventSetCollective(SFPC_AFSAIFill, PETSC_FALSE));
  PetscCall(SFPCSetFromOptions());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry point PETSc looks up when it opens libsfpc.so through -dll_append. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_sfpc(void)
{
  PetscFunctionBegin;
  PetscCall(SFPCInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}
