/* Private data of PCSFILU, shared by its host and device implementation files. */
#pragma once

#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/trifactor.h>
#include <sfpc/private/trifactor_device.h>

/* What one numeric ILU(0) found; rows are -1 when nothing was found. */
typedef struct {
  PetscInt    badrow;    /* lowest row whose pivot failed */
  PetscInt    nonfinite; /* lowest row with an Inf or NaN entry */
  PetscScalar badpivot;  /* the pivot of badrow */
} SFILUResult;

typedef struct {
  /* options */
  MatFactorShiftType shifttype;
  PetscReal          shiftamount; /* first nonzero shift, relative to the largest row sum of |A| */
  PetscReal          zeropivot;   /* pivot tolerance, relative to the row sum of |A| */
  PetscInt           warps_per_sm; /* GPU sweeps: resident warps per SM */

  /* the factor, on the host (F) or on the device (T); its pattern and analysis are rebuilt only when A's nonzero pattern changes */
  PetscBool     ondevice;
  SFPCTriFactor F;
  SFPCTriDevice T;
  Vec           work; /* device copy of a host vector, when a device factor is applied to host vectors */

  /* what the last numeric factorization did, for PCView and failure messages */
  PetscReal shift;   /* diagonal shift finally applied */
  PetscInt  nshifts; /* factorizations redone with a larger shift */
  PetscInt  failrow; /* -1, or the row that failed */
} PC_SFILU;

PETSC_INTERN PetscErrorCode SFILUFactorNumeric_Host(SFPCTriFactor *, const PetscScalar[], PetscReal, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUShiftBounds_Host(const SFPCTriFactor *, const PetscScalar[], PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode SFILUFactorNumeric_Device(SFPCTriDevice, const PetscScalar *, PetscReal, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUShiftBounds_Device(SFPCTriDevice, const PetscScalar *, PetscReal *, PetscReal *);

/* The shift policy and failure reporting, shared by both paths: factor with numeric(), widen the shift from bounds() while a pivot fails. */
typedef PetscErrorCode (*SFILUNumericFn)(PC, const PetscScalar *, PetscReal, SFILUResult *);
typedef PetscErrorCode (*SFILUBoundsFn)(PC, const PetscScalar *, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode SFILUFactor(PC, const PetscScalar *, SFILUNumericFn, SFILUBoundsFn);

PETSC_INTERN PetscErrorCode PCSetUp_SFILU_Device(PC);
PETSC_INTERN PetscErrorCode PCApply_SFILU_Device(PC, Vec, Vec);
PETSC_INTERN PetscErrorCode PCReset_SFILU_Device(PC);
