/* MATHYBSF's private data: one triangle as an engine factor, on the host or on the GPU. */
#pragma once

#include <petsc/private/matimpl.h>
#include <sfpc/private/triangle.h>

typedef struct {
  MatHYBSFTriangle tri;
  PetscBool        unit;
  SFPCTriOptions   opt;      /* layout and levels asked for (auto resolved per factor) */
  PetscBool        built;    /* made by MatCreateHYBSF() or MatConvert() (a MatSetType() shell is not, even once assembled) */
  PetscBool        ondevice; /* built from MATSEQAIJCUSPARSE: T, else F */
  SFPCTriFactor    F;
  SFPCTriDevice    T;
  Vec              work[2]; /* device copies of host vectors (right-hand side, solution), when a device factor solves them */
} Mat_HYBSF;

/* the device side (hybsf_device.c; refusing stubs in a build without CUDA) */
PETSC_INTERN PetscErrorCode MatHYBSFBuild_Device(Mat_HYBSF *, Mat, PetscBool);
PETSC_INTERN PetscErrorCode MatHYBSFSolve_Device(Mat_HYBSF *, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode MatHYBSFGetCSR_Device(Mat_HYBSF *, PetscInt **, PetscInt **, PetscScalar **);
PETSC_INTERN PetscErrorCode MatHYBSFReset_Device(Mat_HYBSF *);
PETSC_INTERN PetscErrorCode MatHYBSFSetGrid_Device(Mat_HYBSF *, const PetscInt[3]);
