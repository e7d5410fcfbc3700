/* Test and benchmark problems (PDE stencils on a cube, Matrix Market files) and small helpers the tests share. */
#pragma once

#include <petscmat.h>
#include <petscksp.h>
#include <petscdmda.h>

PETSC_EXTERN PetscErrorCode TestProblemCreate(MPI_Comm, Mat *, char *, size_t);

/* The velocity field of the cavity problem (and of tests/ex5.c), scaled by its first argument. */
PETSC_EXTERN void TestCavityVelocity(PetscReal, PetscReal, PetscReal, PetscReal, PetscReal[3]);
/* That problem on a 3-D DMDA (tests/ex5.c, ex11.c): Dirichlet face rows, a scale, a zero row (problems.c). */
PETSC_EXTERN PetscErrorCode TestAssembleCavityDMDA(DM, PetscReal, PetscBool, PetscReal, PetscInt, Mat);

/* The options -asymmetric (A replaced by TestAsymmetricCopy()), -zero (a_00 = 0) and -spoil_nan (a_00 = NaN), applied to A; -asymmetric is said in desc. */
PETSC_EXTERN PetscErrorCode TestProblemVariants(Mat *, char *, size_t);
/* A copy of A with a third of its upper entries removed ((i + j) mod 3 == 0, j > i): a pattern that is not symmetric, any number of ranks. */
PETSC_EXTERN PetscErrorCode TestAsymmetricCopy(Mat, Mat *);

/* How many times the log event called name has run on this rank (logging must be on: PetscLogDefaultBegin()). */
PETSC_EXTERN PetscErrorCode TestEventCount(const char *, PetscInt *);
/* New values of the same pattern (2 A + I) and ksp's solve again, counting two log events (problems.c). */
PETSC_EXTERN PetscErrorCode TestResolveNewValues(KSP, Mat, Vec, const char *, const char *, PetscInt *, KSPConvergedReason *, PetscInt *, PetscInt *);

/* Sets each option of the list "-a 1 -flag -b x ..." as "-<prefix>a 1 ...", unless the command line set that name already. */
PETSC_EXTERN PetscErrorCode TestOptionsSetPrefixed(const char *, const char *);

/* pc's ASCII view in buf (what rank 0 writes; other ranks get what they print, often nothing). */
PETSC_EXTERN PetscErrorCode TestPCViewToString(PC, char[], size_t);
PETSC_EXTERN PetscErrorCode TestPCViewToStringFormat(PC, PetscViewerFormat, char[], size_t); /* the same in a given format */
PETSC_EXTERN PetscErrorCode TestPCFingerprint(PC, char[32]); /* PCSFILU's factor fingerprint from its detailed view, or "none" */

/* Whether two vectors hold the same bits on every rank of x's communicator (read on the host; collective). */
PETSC_EXTERN PetscErrorCode TestVecSameBits(Vec, Vec, PetscBool *);

/* Whether pc's ASCII view (rank 0's, told to every rank of pc's communicator) contains text. */
PETSC_EXTERN PetscErrorCode TestPCViewHas(PC, const char *, PetscBool *);
