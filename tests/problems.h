/* Test and benchmark problems: PDE stencils on a cube and Matrix Market files. */
#pragma once

#include <petscmat.h>

PETSC_EXTERN PetscErrorCode TestProblemCreate(MPI_Comm, Mat *, char *, size_t);
