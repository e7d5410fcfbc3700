/*
   The global multicolor DILU's per-pattern data, shared by the host code (dilu_global.c, the
   reference) and the GPU code (dilu_global_device.cu), which runs the same formulas color by
   color on device copies of the same metadata.
*/
#pragma once

#include <petscsf.h>
#include "sfdilu.h"

typedef struct _n_SFDILUGlobalDevice *SFDILUGlobalDevice;

struct _n_SFDILUGlobal {
  PetscInt     rstart, n, nghost, nnz;
  PetscInt    *ai;     /* local rows in CSR with global columns */
  PetscInt    *aj;
  PetscInt    *where;  /* per entry: local index (>= 0) or -(1 + ghost index) of its column */
  PetscInt    *ccolor; /* per entry: color of its column */
  PetscScalar *aa, *at; /* per entry: a_ij, and a_ji (0 where A has no a_ji) */
  PetscInt    *order, *cstart; /* local rows by color, within one those with no ghost neighbour first */
  PetscInt    *cbound; /* positions cbound[c] .. cstart[c+1] - 1: the rows of color c with a ghost neighbour */
  PetscInt    *garray; /* global index of each ghost */
  Mat          At;     /* A^T, for a_ji */
  PetscSF      halo;   /* every ghost from its owner (the coloring's rounds); leaves in ghost order */
  PetscSF     *chalo;  /* chalo[c]: the ghosts of color c only; NULL where no rank has one */
  PetscInt     nchalo;
  PetscScalar *ghostv; /* the ghost values of the host sweeps */
  SFDILUGlobalDevice dev; /* the GPU copy (dilu_global_device.cu), for a CUSPARSE matrix */
};

/* where the values of each entry are found in A's own storage (dilu_global.c) */
PETSC_INTERN PetscErrorCode SFDILUGlobalValueSources(SFDILUGlobal, Mat, PetscInt[], PetscInt[], PetscSF *);
/* ghost <- local over a halo PetscSF (host or device memory); one half of a color of a sweep, around its exchange (dilu_global.c) */
PETSC_INTERN PetscErrorCode SFDILUGlobalExchange(PetscSF, MPI_Datatype, PetscMemType, const void *, void *);
PETSC_INTERN PetscErrorCode SFDILUGlobalColorPart(SFDILUGlobal, PetscInt, PetscInt, PetscBool, PetscInt, PetscMemType, const PetscScalar *, PetscScalar *, PetscInt *, PetscInt *);
/* the first failing global row (fail[0], PETSC_INT_MAX if none) and whether it is Inf/NaN (fail[1]) made collective */
PETSC_INTERN PetscErrorCode SFDILUGlobalAgree(SFDILU *, MPI_Comm, const PetscInt[2], PetscReal, PetscReal *);

/* the GPU version (dilu_global_device.cu; refusing stubs without CUDA) */
PETSC_INTERN PetscErrorCode SFDILUGlobalColorRounds_Device(SFDILU *, SFDILUGlobal, MPI_Comm, PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode SFDILUGlobalUpload_Device(SFDILU *, Mat);
PETSC_INTERN PetscErrorCode SFDILUGlobalReset_Device(SFDILUGlobal);
