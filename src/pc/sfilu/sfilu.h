/* Private data of PCSFILU, shared by its host and device implementation files. */
#pragma once

#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/trifactor.h>

typedef struct {
  /* options */
  MatFactorShiftType shifttype;
  PetscReal          shiftamount; /* first nonzero shift, relative to the largest row sum of |A| */
  PetscReal          zeropivot;   /* pivot tolerance, relative to the row sum of |A| */

  /* the factor; its pattern is rebuilt only when A's nonzero pattern changes */
  SFPCTriFactor F;
  PetscReal    *rowsum; /* sum_j |a_ij| of the last factored matrix */
  PetscReal    *pivtol;

  /* what the last numeric factorization did, for PCView and failure messages */
  PetscReal   shift;   /* diagonal shift finally applied */
  PetscInt    nshifts; /* factorizations redone with a larger shift */
  PetscInt    failrow; /* -1, or the row that failed */
  PetscScalar failval; /* its pivot (or offending entry) */
} PC_SFILU;

PETSC_INTERN PetscErrorCode SFILUFactorNumeric_Host(SFPCTriFactor *, const PetscScalar[], PetscReal, const PetscReal[], PetscBool, PetscInt *);
