/* Test and benchmark problems (PDE stencils on a cube, Matrix Market files) and small helpers the tests share. */
#pragma once

#include <petscmat.h>

PETSC_EXTERN PetscErrorCode TestProblemCreate(MPI_Comm, Mat *, char *, size_t);

/* How many times the log event called name has run on this rank (logging must be on: PetscLogDefaultBegin()). */
PETSC_EXTERN PetscErrorCode TestEventCount(const char *, PetscInt *);
