/*
   The triangular-factor data of SFPC's sync-free engine (src/mat/hybsf), host side.

   An incomplete LU factor is kept in place in one CSR matrix M = (L - I) + U with the pattern
   of A: entries left of the diagonal are L (unit diagonal, not stored), the rest are U,
   except that the diagonal slots hold the inverse pivots 1/u_ii (solves then multiply, as
   PETSc's own factors do). diag[i] is the position of the diagonal slot of row i. Every user of the engine (ILU(0), SIP, DILU)
   fills such a factor and calls the engine's solves.
*/
#pragma once

#include <petscsys.h>

typedef struct {
  PetscInt     n;    /* rows */
  PetscInt     nnz;  /* stored entries */
  PetscInt    *i;    /* row offsets, n+1 */
  PetscInt    *j;    /* column indices, sorted within each row */
  PetscInt    *diag; /* position of the diagonal entry of each row */
  PetscScalar *a;    /* factor values */
} SFPCTriFactor;

PETSC_INTERN PetscErrorCode SFPCTriFactorCheckCSR(PetscInt, const PetscInt[], const PetscInt[]);
PETSC_INTERN PetscErrorCode SFPCTriFactorCreateFromCSR(PetscInt, const PetscInt[], const PetscInt[], SFPCTriFactor *);
PETSC_INTERN PetscErrorCode SFPCTriFactorDestroy(SFPCTriFactor *);
PETSC_INTERN PetscErrorCode SFPCTriFactorSweep_Host(const SFPCTriFactor *, PetscBool, PetscBool, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFPCTriFactorSweepTranspose_Host(const SFPCTriFactor *, PetscBool, PetscBool, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFPCTriFactorSolve_Host(const SFPCTriFactor *, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFPCTriFactorSolveTranspose_Host(const SFPCTriFactor *, const PetscScalar[], PetscScalar[]);

/*
   Grids: the rows of a factor are the points of an nx x ny x nz grid, x fastest, and its pattern is
   (a subset of) the 7-point stencil when every column is the row itself or a grid neighbour, of the
   27-point box when every column is the row itself or a point of its 3 x 3 x 3 box. The check (host
   and device; box: against the box, else the 7 points), and the error of the engine's grid layout
   when it fails; SIP reports its own (sfilu).
*/
PETSC_INTERN PetscErrorCode SFPCGridCheckSize(PetscInt, const PetscInt[3], const char *);
PETSC_INTERN PetscErrorCode SFPCGridFindOutside_Host(const SFPCTriFactor *, const PetscInt[3], PetscBool, PetscInt *, PetscInt *);
/* The stencils SFPCGridGuess() may find besides the 3-D 7-point one (flags of its argument what) */
#define SFPC_GRID_GUESS_BOX   1 /* the 27-point one */
#define SFPC_GRID_GUESS_PLANE 2 /* a 2-D 5-point one (with SFPC_GRID_GUESS_BOX also 9-point), as a grid of one plane */
PETSC_INTERN PetscErrorCode SFPCGridGuess(PetscInt, PetscInt, PetscInt, const PetscInt[], const PetscInt[], PetscInt, int, PetscInt[3]);
PETSC_INTERN PetscErrorCode SFPCGridGuess_Host(PetscInt, const PetscInt[], const PetscInt[], PetscInt, int, PetscInt[3]);

/* The rows SFPCGridGuess() reads of an n-row pattern, the same for the host and the device copy: up to 4 from the middle (none below 8 rows). */
#define SFPC_GRID_GUESS_ROWS 4
static inline void SFPCGridGuessRows(PetscInt n, PetscInt *r0, PetscInt *nr)
{
  *r0 = n / 2;
  *nr = n < 8 ? 0 : PetscMin(SFPC_GRID_GUESS_ROWS, n - n / 2);
}
PETSC_INTERN PetscErrorCode SFPCGridLayoutError(const PetscInt[3], PetscBool, PetscInt, PetscInt);
