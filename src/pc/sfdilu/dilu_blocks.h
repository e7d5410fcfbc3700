/*
   DILU by point-blocks (-pc_sfdilu_blocks): E is block diagonal, one bs x bs block a point (bs the matrix's block size,
   the unknowns of a node), M = (E + L_c) E^{-1} (E + U_c) with L_c/U_c the blocks coupling a point to points of lower/
   higher colors, the points colored as a graph of their own (AmgX's DILU for block matrices does the same). For Q1
   elasticity that treats a node's three displacements together: on 16^3 hexahedra GMRES(100) to 1e-8 took 134
   iterations with JPL's 46 point colors against 162 with 115 row colors row by row, and 189 with 8 greedy point colors
   (a numpy model of both, bench/README.md, sfdilu, "DILU by point-blocks").

   M = E + L_c + U_c + L_c E^{-1} U_c = (I + L_c E^{-1}) (I + U_c E^{-1}) E, so
     M^{-1} r = E^{-1} (I + U_c E^{-1})^{-1} (I + L_c E^{-1})^{-1} r:
   two unit triangular sweeps whose entries, row (I, a) and column (J, b) of a point J of another color, are
   (A_IJ E_J^{-1})[a, b], then E^{-1} point by point. With the rows' color their point's, the sweeps' pattern is A's
   without the couplings inside a point (those live in E), and their steps are the point colors: a third of the row
   colors a coloring of the rows by field would need at bs = 3, and a sweep's chain as short. So the engine's solves, their
   parts and per-color sweeps serve the blocks with unit factors, and only the multiply by E^{-1} is added (after the
   sweeps; before them for the transposed apply, M^{-T} = (I + L_c E^{-1})^{-T} (I + U_c E^{-1})^{-T} E^{-T}).
     E_I = A_II - sum over lower-colored J of (A_IJ E_J^{-1}) A_JI
   reads only lower-colored points' E^{-1}: E is computed color by color, then every sweep entry at once. The pattern must
   hold every coupled pair of points as a dense bs x bs block, every row of a point with the same columns (checked at
   set-up).

   The same functions compute a point's E^{-1} and its rows' values for the host (dilu_blocks.c) and the device
   (dilu_device.cu), each product and sum rounded alone and summed in the same order (the device's warp butterfly
   reproduced on the host), so that the GPU factor is meant to be bitwise the host's; tests/ex19.c checks the applies
   against each other and an independent reference to 1e-11, and the GPU's iteration counts against the host's.
*/
#pragma once

#include "sfdilu.h"
#include <sfpc/private/pivot.h>

#define SFDILU_MAX_BS 8 /* largest point-block: E's LU lives in registers (or local memory) of one thread */

#if defined(__CUDA_ARCH__)
  #define SFDILU_MUL(a, b) __dmul_rn(a, b)
  #define SFDILU_SUB(a, b) __dsub_rn(a, b)
  #define SFDILU_ADD(a, b) __dadd_rn(a, b)
  #define SFDILU_DIV(a, b) __ddiv_rn(a, b)
#else
  #define SFDILU_MUL(a, b) ((a) * (b))
  #define SFDILU_SUB(a, b) ((a) - (b))
  #define SFDILU_ADD(a, b) ((a) + (b))
  #define SFDILU_DIV(a, b) ((a) / (b))
#endif

/* The index type of the CSR arrays the including file works on (PetscInt on the host, int on the device). */
#ifndef SFDILU_BLOCK_INDEX
  #define SFDILU_BLOCK_INDEX PetscInt
#endif

#define SFDILU_LANES 32 /* a point's blocks are shared by the lanes of a warp (the host walks the same lanes in turn) */

/*
   Lane l's share of point pt's E_I (rows pt bs .. pt bs + bs - 1 of A = ai/aj/aa; tpos[k] the position of a_ji for a_ij, at
   least for entries of lower-colored columns; color the rows' colors, their points'): over its blocks t = l, l + 32, ...,
   C += (A_IJ E_J^{-1}) A_JI for each lower-colored J (einv: E_J^{-1}, bs x bs row major), and over its entries
   k = l, l + 32, ... of each row the sum of |a|. Each sum in that order, each product and sum rounded alone.
*/
static inline SFDILU_HOSTDEVICE void SFDILUBlockLane(int pt, int lane, int bs, const SFDILU_BLOCK_INDEX *ai, const SFDILU_BLOCK_INDEX *aj, const PetscScalar *aa, const SFDILU_BLOCK_INDEX *tpos, const SFDILU_BLOCK_INDEX *color, const PetscScalar *einv, PetscScalar C[SFDILU_MAX_BS][SFDILU_MAX_BS], PetscReal sum[SFDILU_MAX_BS])
{
  const SFDILU_BLOCK_INDEX r0 = (SFDILU_BLOCK_INDEX)pt * bs, nb = (ai[r0 + 1] - ai[r0]) / bs, cI = color[r0];

  for (int a = 0; a < bs; a++) {
    sum[a] = 0;
    for (SFDILU_BLOCK_INDEX k = ai[r0 + a] + lane; k < ai[r0 + a + 1]; k += SFDILU_LANES) sum[a] = SFDILU_ADD(sum[a], fabs(aa[k]));
    for (int c = 0; c < bs; c++) C[a][c] = 0;
  }
  for (SFDILU_BLOCK_INDEX t = lane; t < nb; t += SFDILU_LANES) {
    const SFDILU_BLOCK_INDEX c0 = aj[ai[r0] + t * bs], J = c0 / bs;
    if (J != pt && color[c0] < cI) {
      const PetscScalar *EJ = einv + (size_t)J * bs * bs;
      PetscScalar        L[SFDILU_MAX_BS][SFDILU_MAX_BS];
      for (int a = 0; a < bs; a++)
        for (int b = 0; b < bs; b++) {
          PetscScalar x = 0;
          for (int m = 0; m < bs; m++) x = SFDILU_ADD(x, SFDILU_MUL(aa[ai[r0 + a] + t * bs + m], EJ[m * bs + b]));
          L[a][b] = x;
        }
      for (int b = 0; b < bs; b++) {
        const SFDILU_BLOCK_INDEX kt = tpos[ai[r0] + t * bs + b]; /* row (J, b) of block (J, I) */
        if (kt < 0) continue;                                    /* no block (J, I) in a nonsymmetric pattern */
        for (int a = 0; a < bs; a++)
          for (int c = 0; c < bs; c++) C[a][c] = SFDILU_ADD(C[a][c], SFDILU_MUL(L[a][b], aa[kt + c]));
      }
    }
  }
}

/*
   E_I^{-1} of point pt into X (bs x bs, row major), from C and sum summed over the lanes: E_I = A_II + shift I - C, its LU without
   pivoting, then its inverse column by column. A pivot u fails when |u| <= zeropivot * (row sum of |A|) or either is not
   finite; its inverse is then 0 (so the rest stays finite), and the return value is the point's first failing row's
   field, or -1; *nonfinite says whether that failure is a NaN or Inf; *rowsum the largest row sum of the point's rows.
*/
static inline SFDILU_HOSTDEVICE int SFDILUBlockFinish(int pt, int bs, const SFDILU_BLOCK_INDEX *ai, const SFDILU_BLOCK_INDEX *aj, const PetscScalar *aa, PetscScalar C[SFDILU_MAX_BS][SFDILU_MAX_BS], const PetscReal sum[SFDILU_MAX_BS], PetscReal shift, PetscReal zeropivot, PetscScalar *X, PetscReal *rowsum, int *nonfinite)
{
  PetscScalar              S[SFDILU_MAX_BS][SFDILU_MAX_BS];
  const SFDILU_BLOCK_INDEX r0 = (SFDILU_BLOCK_INDEX)pt * bs, nb = (ai[r0 + 1] - ai[r0]) / bs;
  int                      failed = -1;

  *rowsum    = 0;
  *nonfinite = 0;
  for (SFDILU_BLOCK_INDEX t = 0; t < nb; t++)
    if (aj[ai[r0] + t * bs] / bs == pt)
      for (int a = 0; a < bs; a++)
        for (int b = 0; b < bs; b++) S[a][b] = SFDILU_SUB(SFDILU_ADD(a == b ? shift : 0.0, aa[ai[r0 + a] + t * bs + b]), C[a][b]);
  for (int a = 0; a < bs; a++) *rowsum = PetscMax(*rowsum, sum[a]);
  for (int m = 0; m < bs; m++) { /* S = L U, 1 / u_mm kept on the diagonal */
    const PetscScalar p   = S[m][m];
    const int         bad = !(sum[m] - sum[m] == 0) || SFPCPivotFails(p, zeropivot * sum[m], 0);
    const PetscScalar inv = bad ? 0.0 : SFDILU_DIV(1.0, p);
    if (bad && failed < 0) {
      failed     = m;
      *nonfinite = !(sum[m] - sum[m] == 0) || !(p - p == 0);
    }
    S[m][m] = inv;
    for (int a = m + 1; a < bs; a++) {
      S[a][m] = SFDILU_MUL(S[a][m], inv);
      for (int b = m + 1; b < bs; b++) S[a][b] = SFDILU_SUB(S[a][b], SFDILU_MUL(S[a][m], S[m][b]));
    }
  }
  for (int c = 0; c < bs; c++) { /* column c of S^{-1}: L y = e_c, then U x = y */
    PetscScalar y[SFDILU_MAX_BS];
    for (int a = 0; a < bs; a++) {
      y[a] = a == c ? 1.0 : 0.0;
      for (int m = 0; m < a; m++) y[a] = SFDILU_SUB(y[a], SFDILU_MUL(S[a][m], y[m]));
    }
    for (int a = bs - 1; a >= 0; a--) {
      for (int m = a + 1; m < bs; m++) y[a] = SFDILU_SUB(y[a], SFDILU_MUL(S[a][m], y[m]));
      y[a] = SFDILU_MUL(y[a], S[a][a]);
    }
    for (int a = 0; a < bs; a++) X[a * bs + c] = y[a];
  }
  return failed;
}

/* The sweeps' values of point pt's rows: (A_IJ E_J^{-1})[a, :] for each other point J, 1 on the diagonal, 0 elsewhere inside the point. */
static inline SFDILU_HOSTDEVICE void SFDILUBlockRows(int pt, int bs, const SFDILU_BLOCK_INDEX *ai, const SFDILU_BLOCK_INDEX *aj, const PetscScalar *aa, const PetscScalar *einv, PetscScalar *lu)
{
  const SFDILU_BLOCK_INDEX r0 = (SFDILU_BLOCK_INDEX)pt * bs, nb = (ai[r0 + 1] - ai[r0]) / bs;

  for (SFDILU_BLOCK_INDEX t = 0; t < nb; t++) {
    const SFDILU_BLOCK_INDEX J = aj[ai[r0] + t * bs] / bs;
    for (int a = 0; a < bs; a++) {
      const SFDILU_BLOCK_INDEX k = ai[r0 + a] + t * bs;
      for (int b = 0; b < bs; b++) {
        PetscScalar x = 0;
        if (J == pt) x = a == b ? 1.0 : 0.0;
        else
          for (int m = 0; m < bs; m++) x = SFDILU_ADD(x, SFDILU_MUL(aa[k + m], einv[((size_t)J * bs + m) * bs + b]));
        lu[k + b] = x;
      }
    }
  }
}

/* y_I = w E_I^{-1} applied to point pt's bs entries of w (transposed: E_I^{-T}), scaled by omega. */
static inline SFDILU_HOSTDEVICE void SFDILUBlockMult(int bs, const PetscScalar *X, int transpose, PetscReal omega, const PetscScalar *w, PetscScalar *y)
{
  for (int a = 0; a < bs; a++) {
    PetscScalar x = 0;
    for (int b = 0; b < bs; b++) x = SFDILU_ADD(x, SFDILU_MUL(transpose ? X[b * bs + a] : X[a * bs + b], w[b]));
    y[a] = omega == 1.0 ? x : SFDILU_MUL(omega, x);
  }
}

PETSC_INTERN PetscErrorCode SFDILUBlockSize(PC, Mat, PetscInt *, const char **);
PETSC_INTERN PetscErrorCode SFDILUBlocksDecide(PC, Mat, PetscBool, PetscInt *);
PETSC_INTERN PetscErrorCode SFDILUBlocksFit_Host(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscBool, PetscBool *);
PETSC_INTERN PetscErrorCode SFDILUBlocksFit_Device(Mat, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode SFDILUColorBlocks_Host(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PCSFDILUColoringType, PetscInt, PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode SFDILUSetUpBlocks_Host(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApplyBlocks_Host(SFDILU *, PetscBool, const PetscScalar[], PetscScalar[]);
