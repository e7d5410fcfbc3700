/*
   Eisenstat's form of a preconditioner M = P D^{-1} Q whose triangles carry A's own off-diagonal entries,
   P = D + L_A and Q = D + U_A (sfilu's ILU(0) where no update reaches an off-diagonal entry, as on 5- and 7-point
   stencils; sfdilu's DILU in color order, always). Then A = P + Q + K with K = diag(A) - 2 D, and between
   PCPreSolve() and PCPostSolve() the KSP solves P^{-1} A Q^{-1} (Q x) = P^{-1} b, preconditioned by D: the operator
   is t + P^{-1} (x + K t), t = Q^{-1} x, two sweeps and no product with A, and the preconditioned operator
   D P^{-1} A Q^{-1} is similar to M^{-1} A. A KSP that applies A and the PC separately (CG) saves a MatMult() an
   iteration. PETSc's PCEISENSTAT does the same for SSOR (S. C. Eisenstat, SIAM J. Sci. Stat. Comput. 2, 1981).
   On several ranks M is each rank's diagonal block's (block Jacobi) and A also has the couplings A_o between
   ranks: the operator is t + P^{-1} (x + K t + A_o t), t's ghost values exchanged as MatMult() exchanges x's.

   The PC gives the sweeps (src/pc/common/eisenstat.c composes the rest): at the end of its set-up it calls
   SFPCEisenstatSetUp() (which installs the pre- and post-solve) or, without the option, SFPCEisenstatOff(); it applies
   D (SFPCEisenstatApply()) while the form is active; and it resets the form with the PC and whenever the factor's
   pattern or place (host, device) changes.
*/
#pragma once

#include <sfpc/private/sfpcimpl.h>

/* What a PC's sweep computes, from b into x (distinct vectors) */
typedef enum {
  SFPC_EISENSTAT_SOLVE_P, /* x = P^{-1} b */
  SFPC_EISENSTAT_SOLVE_Q, /* x = Q^{-1} b */
  SFPC_EISENSTAT_MULT_Q   /* x = Q b */
} SFPCEisenstatSweep;

typedef struct {
  PetscErrorCode (*sweep)(PC, SFPCEisenstatSweep, Vec, Vec);
  PetscErrorCode (*diagonals)(PC, Vec, Vec); /* 1/D into the first; K into the second, which holds diag(A) on entry */
  PetscErrorCode (*mult)(PC, Vec, Vec);      /* the operator itself where the PC fuses it (set per set-up), or NULL: composed here */
} SFPCEisenstatOps;

typedef struct {
  PetscBool        use;    /* the PC's option */
  const char      *option; /* its name, for messages */
  SFPCEisenstatOps ops;
  PC               pc;       /* the owner (not referenced) */
  PetscBool        ondevice; /* the PC's sweeps run on the device: the KSP's host vectors are staged through xd, yd */
  Vec              xd, yd;
  Mat              shell;   /* P^{-1} A Q^{-1}: the KSP's operator while active */
  Mat              A;       /* the operator the shell stands in for */
  Vec              dinv, k; /* 1/D and K, as PETSc vectors of pc->pmat */
  Vec              w, t;    /* the operator's work (t made on first use) */
  Vec              b, x;    /* P^{-1} b, the right-hand side the KSP solves with in place of the caller's; a copy of x for the changes of variable */
  Vec              bcaller; /* while active: the caller's right-hand side, never written, with the reference the KSP held on it */
  PetscObjectId    pmat;    /* the matrix D^{-1} and K were built from (its id: unique), and its state then: a solve with another runs plain */
  PetscObjectState state;
  Mat              Ao;        /* several ranks: pc->pmat's couplings to other ranks' unknowns (MatMPIAIJGetSeqAIJ(), referenced) */
  Vec              ghost, wl; /* the values of t those columns need, and w's local part */
  VecScatter       scatter;   /* t -> ghost */
  PetscBool        failed;    /* the factor failed on some rank at the last set-up: every rank runs the plain PC */
  PetscBool        active;    /* between PCPreSolve() and PCPostSolve() */
  KSP              ksp;       /* while active: the KSP whose solve took the form (not referenced) */
} SFPCEisenstat;

PETSC_INTERN PetscErrorCode SFPCEisenstatSetUp(PC, SFPCEisenstat *, PetscBool);
PETSC_INTERN PetscErrorCode SFPCEisenstatOff(PC);
PETSC_INTERN PetscErrorCode SFPCEisenstatApply(SFPCEisenstat *, Vec, Vec);
PETSC_INTERN PetscErrorCode SFPCEisenstatReset(SFPCEisenstat *);
PETSC_INTERN PetscErrorCode SFPCEisenstatView(SFPCEisenstat *, const char *, PetscViewer);
