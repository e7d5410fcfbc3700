/*
   SFPC's multicolor DILU (PCSFDILU), host reference: a distance-1 coloring of the symmetrized
   pattern, the DILU diagonal E in color order, and the two sweeps of
   M = (E + L_c) E^{-1} (E + U_c), L_c/U_c the entries coupling a row to rows of lower/higher colors.
*/
#pragma once

#include <sfpc/private/sfpcimpl.h>

typedef struct {
  /* options */
  PetscReal omega;     /* Richardson weight of PCApplyRichardson() */
  PetscReal zeropivot; /* E_i fails when |E_i| <= zeropivot * sum_j |a_ij| */
  PetscBool shift;     /* on a failed E_i, redo with A + a I, a = shiftamount * max_i sum_j |a_ij| doubled until none fails */
  PetscReal shiftamount;
  PetscReal shifted;   /* the a finally applied */

  /* per nonzero pattern */
  PetscInt  n, ncolors;
  PetscInt *color; /* color of each row */
  PetscInt *order; /* rows sorted by (color, row) */
  PetscInt *cstart; /* rows of color c: order[cstart[c] .. cstart[c+1]) */
  PetscInt *tpos;  /* tpos[k]: position of a_ji for the entry a_ij at position k, or -1 (pattern not symmetric there) */

  /* per numeric set-up */
  PetscScalar   *einv; /* 1 / E_i */
  Mat            A;    /* the sequential matrix the factor was built from (the diagonal block of an MPI one) */
  PCFailedReason failure;
  PetscInt       failrow;
  Vec            z;    /* the forward sweep's output */
} SFDILU;

PETSC_INTERN PetscErrorCode SFDILUColor_Host(SFDILU *, Mat);
PETSC_INTERN PetscErrorCode SFDILUSetUp_Host(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApply_Host(SFDILU *, const PetscScalar[], PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFDILUReset_Host(SFDILU *);

