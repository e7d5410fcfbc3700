/* Package-internal declarations shared by SFPC's source files (not installed for users). */
#pragma once

#include <sfpc.h>
#include <petsc/private/pcimpl.h>

/* Log events; registered by SFPCInitializePackage(). */
PETSC_INTERN PetscLogEvent SFPC_ILUSymbolic, SFPC_ILUNumeric, SFPC_TriSolve, SFPC_TriAnalysis, SFPC_DILUColor, SFPC_DILUSetUp, SFPC_AFSAIPattern, SFPC_AFSAIValues;
/* parts of PCAFSAI's GPU assembly of G and G^T: G^T's pattern on the device, the host CSRs, the Mats, their device CSRs (PETSc's upload), their values */
PETSC_INTERN PetscLogEvent SFPC_AFSAIGtPattern, SFPC_AFSAIHostCSR, SFPC_AFSAIMats, SFPC_AFSAIDeviceCSR, SFPC_AFSAIFill;

PETSC_INTERN PetscErrorCode PCCreate_SFILU(PC);
PETSC_INTERN PetscErrorCode PCCreate_SFDILU(PC);
PETSC_INTERN PetscErrorCode PCCreate_AFSAI(PC);
PETSC_INTERN PetscErrorCode MatGetFactor_SFILU(Mat, MatFactorType, Mat *);
PETSC_INTERN PetscErrorCode MatCreate_HYBSF(Mat);

/* A, or the diagonal block of an MPI AIJ A, as a PC builds from it; any other type is an error naming who (src/sys/localaij.c). */
PETSC_INTERN PetscErrorCode SFPCLocalAIJ(Mat, const char *, Mat *, PetscBool *, PetscBool *);
/* An option's name as given, under the prefix of the options being read, for an error about its value (src/sys/options.c). */
PETSC_INTERN const char *SFPCOptionGiven(char *, size_t, PetscOptionItems, const char *);
PETSC_INTERN PetscErrorCode SFPCOptionsWarpsPerSM(PetscOptionItems, const char *, const char *, PetscInt *);
/* The blocks' failures as one answer on every rank: the lowest failing global row, its reason, how many ranks failed (src/sys/localaij.c). */
PETSC_INTERN PetscErrorCode SFPCBlockFailure(MPI_Comm, PetscInt, PCFailedReason, PetscInt, PCFailedReason *, PetscInt *, PetscInt *);
/*
   The error class of a failed set-up raised under -pc_error_if_failure (or a KSP's error flag): an Inf
   or NaN (PC_FACTOR_OTHER) is PETSC_ERR_FP in every SFPC PC, a pivot that fails is pivotclass
   (PETSC_ERR_MAT_LU_ZRPVT for the LU-like sfilu and sfdilu, PETSC_ERR_MAT_CH_ZRPVT for afsai).
*/
static inline PetscErrorCode SFPCFailureClass(PCFailedReason reason, PetscErrorCode pivotclass)
{
  return reason == PC_FACTOR_OTHER ? PETSC_ERR_FP : pivotclass;
}
/* Refuses a host vector given to a GPU path that PETSc's CUDA code has left incoherent (src/sys/stage.c); output: the result goes there. */
PETSC_INTERN PetscErrorCode SFPCCheckHostVec(Vec, PetscBool, const char *);
/* The vectors a GPU path computes with: x and y, or device stand-ins holding copies of host ones (src/sys/stage.c); then the result back into y. */
PETSC_INTERN PetscErrorCode SFPCStageVecs(Vec, Vec, PetscBool, const char *, Vec *, Vec *, Vec *, Vec *);
PETSC_INTERN PetscErrorCode SFPCUnstageVecs(Vec, Vec);
/* The two device arrays a GPU path's kernels read (x) and write (y), through SFPCStageVecs(); restored (and y's stand-in copied back) by SFPCStagedArraysRestore() */
typedef struct {
  Vec                x, y; /* the vectors the arrays belong to: the caller's, or the stand-ins */
  const PetscScalar *xa;
  PetscScalar       *ya;
} SFPCStagedArrays;
PETSC_INTERN PetscErrorCode SFPCStagedArraysGet(Vec, Vec, const char *, Vec *, Vec *, SFPCStagedArrays *);
PETSC_INTERN PetscErrorCode SFPCStagedArraysRestore(Vec, SFPCStagedArrays *);
/* A matrix's object id and nonzero state (SFPCMatStampSame(): the same object and pattern). Of pc->pmat at set-up: a product with A fused into a PC's sweeps serves the KSP's operator only while SFPCSetUpStampHolds() (src/pc/common/setupstamp.c). */
typedef struct {
  PetscObjectId    id;
  PetscObjectState nonzerostate;
} SFPCMatStamp;
PETSC_INTERN PetscErrorCode SFPCMatStampTake(Mat, SFPCMatStamp *);
PETSC_INTERN PetscErrorCode SFPCMatStampSame(Mat, const SFPCMatStamp *, PetscBool *);
PETSC_INTERN PetscErrorCode SFPCSetUpStampTake(PC, SFPCMatStamp *);
PETSC_INTERN PetscErrorCode SFPCSetUpStampHolds(PC, const SFPCMatStamp *, PetscBool *);
/* x's and y's local sizes against pc->pmat's, where PETSc does not check them (src/pc/common/applysizes.c) */
PETSC_INTERN PetscErrorCode SFPCCheckApplySizes(PC, Vec, Vec);
/* A Richardson loop's tolerances and its reference norm rnorm0 (0: the first step's), tested each step by SFPCRichardsonTest() (src/pc/common/richardson.c). */
typedef struct {
  PetscReal rtol, abstol, dtol;
  PetscReal rnorm0, ttol;
} SFPCRichardsonTol;
PETSC_INTERN PetscErrorCode SFPCRichardsonTest(PC, SFPCRichardsonTol *, PetscInt, PetscReal, PCRichardsonConvergedReason *);
/*
   Whether a PCApplyRichardson() tests the KSP's tolerances: where the PC honours them (-pc_<type>_richardson_test) and they
   ask for a test, rtol or abstol nonzero, as PCMG's does. PETSc hands a smoother's KSP tolerances (rtol 1e-5 under PCMG,
   whose smoothers skip the test) to PCApplyRichardson() unchanged, so only the PC's own setting tells a smoother from a solve.
*/
static inline PetscBool SFPCRichardsonTests(PetscBool honour, PetscReal rtol, PetscReal abstol)
{
  return (PetscBool)(honour && (rtol > 0 || abstol > 0));
}
/*
   The norm a tested PCApplyRichardson() compares with the KSP's tolerances (-pc_<type>_richardson_norm; the PC cannot see
   the KSP's -ksp_norm_type): the 2-norm of M^{-1} (b - A x) (KSPRICHARDSON's default, preconditioned), the 2-norm of
   b - A x (unpreconditioned), or its 1-norm (the SIP papers', with the reference SFPCKSPConvergedResidual1Norm() takes).
*/
typedef enum {
  SFPC_RICHARDSON_NORM_PRECONDITIONED,
  SFPC_RICHARDSON_NORM_UNPRECONDITIONED,
  SFPC_RICHARDSON_NORM_1
} SFPCRichardsonNorm;
PETSC_INTERN PetscErrorCode SFPCRichardsonNormOption(PetscOptionItems, const char[], const char[], SFPCRichardsonNorm *);
/* KSPConvergedDefault()'s reference norm for a tested loop (0: the first step's), M^{-1} b computed by apply where the norm needs it */
PETSC_INTERN PetscErrorCode SFPCRichardsonReference(PC, PetscErrorCode (*)(PC, Vec, Vec), SFPCRichardsonNorm, PetscBool, Vec, Vec, PetscReal *);
/* Up to its steps of x += omega M^{-1} (b - A x), M^{-1} applied by apply, r a work vector, each step tested where test is true: a PC's PCApplyRichardson() (src/pc/common/richardson.c). */
PETSC_INTERN PetscErrorCode SFPCRichardsonSetUpFailed(PC, Vec, PetscInt *, PCRichardsonConvergedReason *, PetscBool *);
PETSC_INTERN PetscErrorCode SFPCRichardsonSweeps(PC, PetscErrorCode (*)(PC, Vec, Vec), PetscReal, Vec, Vec, Vec, Vec, PetscInt, PetscBool, PetscBool, SFPCRichardsonNorm, PetscReal, PetscReal, PetscReal, PetscInt *, PCRichardsonConvergedReason *);
