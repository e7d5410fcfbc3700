/*
   One triangle of a square CSR matrix as an engine factor (what MATHYBSF holds): the entries
   strictly below (lower) or above (upper) the diagonal, plus a diagonal slot in every row that
   holds the inverse diagonal, or 1 for a unit diagonal (where the matrix may lack the entry).
*/
#pragma once

#include <sfpc/private/trifactor.h>
#include <sfpc/private/trifactor_device.h>

/* What made a matrix unusable, reported as 4 * row + kind by the device kernels. */
typedef enum {
  SFPC_TRIANGLE_MISSING_DIAGONAL,
  SFPC_TRIANGLE_ZERO_DIAGONAL,
  SFPC_TRIANGLE_PATTERN_CHANGED,
  SFPC_TRIANGLE_NONFINITE /* an Inf or NaN among the entries the triangle keeps: a solve would spread it silently */
} SFPCTriangleFault;

/* A finite diagonal the slot can hold as its inverse: not 0, and not so small (subnormal) that 1/d overflows to Inf. */
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline int SFPCTriangleDiagonalInvertible(double d)
{
  const double inv = 1.0 / d;
  return d != 0.0 && inv - inv == 0.0; /* inv - inv is NaN for an infinite inv; a NaN d is reported as non-finite instead */
}

PETSC_INTERN PetscErrorCode SFPCTriangleFaultError(PetscInt, SFPCTriangleFault);
PETSC_INTERN PetscErrorCode SFPCTriangleCreate_Host(PetscInt, const PetscInt[], const PetscInt[], const PetscScalar[], PetscBool, PetscBool, SFPCTriFactor *);
PETSC_INTERN PetscErrorCode SFPCTriangleSetValues_Host(SFPCTriFactor *, const PetscInt[], const PetscInt[], const PetscScalar[], PetscBool, PetscBool);
PETSC_INTERN PetscErrorCode SFPCTriangleCreate_Device(PetscInt, const PetscInt *, const PetscInt *, const PetscScalar *, PetscBool, PetscBool, const SFPCTriOptions *, SFPCTriDevice *);
PETSC_INTERN PetscErrorCode SFPCTriangleSetValues_Device(SFPCTriDevice, const PetscInt *, const PetscInt *, const PetscScalar *, PetscBool, PetscBool);
