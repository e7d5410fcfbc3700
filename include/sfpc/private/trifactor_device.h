/*
   The sync-free engine on the GPU (src/mat/hybsf): an in-place LU factor with the layout of
   trifactor.h (diagonal slots hold 1/u_ii), the dependency schedules of its L and U parts,
   and its solves. Everything lives on the device and is built from device CSR; the host
   keeps sizes and the counters that make sweeps need no re-zeroing.
*/
#pragma once

#include <petscsys.h>

/*
   A sync-free sweep's schedule (see sfdevice.cuh): rows in dispatch order, packed into warp
   tasks; task w holds rows order[start[w] .. start[w+1]), one vector of vec[w] lanes each.
*/
typedef struct {
  int            ntasks;
  int            nlevels;
  int           *order;
  int           *start;
  unsigned char *vec;
} SFPCSchedule;

typedef struct _n_SFPCTriDevice *SFPCTriDevice;
struct _n_SFPCTriDevice {
  PetscInt           n, nnz;
  int               *i, *j, *diag; /* device copy of the pattern; diag[r] = position of the diagonal slot */
  PetscScalar       *a;            /* device factor values */
  SFPCSchedule       lower, upper; /* L's schedule also orders the ILU(0) factorization */
  int               *flags;        /* flags[r] == epoch: row r is done in the current sweep */
  int                epoch;
  unsigned long long *counter;     /* ticket dispenser; ticketbase = tickets handed out before this sweep */
  unsigned long long ticketbase;
  int                resident;     /* warps that fit on the GPU at once: sweeps launch no more (persistent warps) */
  PetscScalar       *z;            /* L-solve output, U-solve input; holds the solve sentinel between applies */
  int               *report;       /* two ints in which a sweep reports rows back (e.g. the first failing pivot) */
  PetscInt           rows_by_vec[6]; /* rows of L handled by vectors of 1, 2, 4, 8, 16, 32 lanes */
};

#define SFPC_DEFAULT_WARPS_PER_SM 24
PETSC_INTERN PetscErrorCode SFPCTriDeviceSetWarpsPerSM(SFPCTriDevice, PetscInt);
PETSC_INTERN PetscErrorCode SFPCTriDeviceCreate(PetscInt, const PetscInt *, const PetscInt *, PetscInt, SFPCTriDevice *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceDestroy(SFPCTriDevice *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSolve(SFPCTriDevice, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceBytes(SFPCTriDevice, PetscLogDouble *);
/*
   For a kernel that sweeps ntasks tasks with persistent warps (each takes tickets until one is past
   the end): its grid (blocks of SFPC_WARPS_PER_BLOCK warps), a fresh epoch, and its ticket base.
*/
PETSC_INTERN PetscErrorCode SFPCTriDeviceBeginSweep(SFPCTriDevice, PetscInt, int *, int *, unsigned long long *);
PETSC_INTERN PetscErrorCode SFPCScheduleBuild(SFPCTriDevice, PetscBool, SFPCSchedule *);
