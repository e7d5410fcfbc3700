/*
   DILU by point-blocks (-pc_sfdilu_blocks): E is block diagonal, one bs x bs block a point (bs the matrix's block size,
   the unknowns of a node), M = (E + L_c) E^{-1} (E + U_c) with L_c/U_c the blocks coupling a point to points of lower/
   higher colors, the points colored as a graph of their own (AmgX's DILU for block matrices does the same). For Q1
   elasticity that treats a node's three displacements together: on 16^3 hexahedra GMRES(100) to 1e-8 took 134
   iterations with JPL's 46 point colors against 162 with 115 row colors row by row, and 189 with 8 greedy point colors
   (a numpy model of both, bench/README.md, sfdilu, "DILU by point-blocks").

   With E_I = L_I U_I (LU without pivoting), M = (L_E + L_c U_E^{-1}) (U_E + L_E^{-1} U_c): an LU factor with A's
   pattern, unit lower, once the rows are ordered by (point color, field) (the row color is point color * bs + field,
   a proper coloring of the rows). So the engine's solves, their parts and per-color sweeps, the fused Richardson step
   and the transposed apply serve the blocks unchanged; only the coloring and the factor's values differ:
     L entries of row (I, a): (A_IJ U_EJ^{-1})[a, :] for a lower-colored J, L_EI[a, :] inside the point;
     U entries: (L_EI^{-1} A_IJ)[a, :] for a higher-colored J, U_EI[a, :] inside the point, 1 / U_EI[a, a] on the diagonal;
     E_I = A_II - sum over lower-colored J of (A_IJ U_EJ^{-1}) (L_EJ^{-1} A_JI), so each point reads only factor values
   of lower-colored points. The pattern must hold every coupled pair of points as a dense bs x bs block, every row of a
   point with the same columns (checked at set-up).

   One function computes a point's values for the host (dilu_blocks.c) and the device (dilu_device.cu), rounding each
   product and sum separately on both, so that the GPU's factor is bitwise the host's.
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

/*
   The factor values of point pt (rows pt bs .. pt bs + bs - 1, entries lu on A's pattern ai/aj/aa, natural numbering;
   tpos[k] the position of a_ji for a_ij, at least for entries of lower-colored columns; color the rows' colors),
   from those of its lower-colored neighbours; eblk[pt] gets E_I's LU (bs x bs, row major, unit L below the diagonal,
   U on and above it with 1 / u_aa on the diagonal). A pivot u_aa fails when |u_aa| <= zeropivot * (row sum of |A|)
   or either is not finite: its inverse is then 0 (so the rest stays finite), and the return value is the point's
   first failing row's field, or -1; *nonfinite says whether that failure is a NaN or Inf; *rowsum the largest row sum
   of |A| of the point's rows.
*/
static inline SFDILU_HOSTDEVICE int SFDILUBlockPoint(int pt, int bs, const SFDILU_BLOCK_INDEX *ai, const SFDILU_BLOCK_INDEX *aj, const PetscScalar *aa, const SFDILU_BLOCK_INDEX *tpos, const SFDILU_BLOCK_INDEX *color, PetscReal shift, PetscReal zeropivot, PetscScalar *lu, PetscScalar *eblk, PetscReal *rowsum, int *nonfinite)
{
  PetscScalar              S[SFDILU_MAX_BS][SFDILU_MAX_BS], *E = eblk + (size_t)pt * bs * bs;
  PetscReal                sum[SFDILU_MAX_BS];
  const SFDILU_BLOCK_INDEX r0 = (SFDILU_BLOCK_INDEX)pt * bs, nb = (ai[r0 + 1] - ai[r0]) / bs, cI = color[r0];
  int                      failed = -1;

  *rowsum    = 0;
  *nonfinite = 0;
  for (int a = 0; a < bs; a++) {
    sum[a] = 0;
    for (SFDILU_BLOCK_INDEX k = ai[r0 + a]; k < ai[r0 + a + 1]; k++) sum[a] = SFDILU_ADD(sum[a], fabs(aa[k]));
    *rowsum = PetscMax(*rowsum, sum[a]);
    for (int b = 0; b < bs; b++) S[a][b] = 0;
    S[a][a] = shift;
  }
  /* A_II, then the lower-colored blocks: L_IJ = A_IJ U_EJ^{-1} (stored), E_I -= L_IJ (L_EJ^{-1} A_JI) */
  for (SFDILU_BLOCK_INDEX t = 0; t < nb; t++) {
    const SFDILU_BLOCK_INDEX c0 = aj[ai[r0] + t * bs], J = c0 / bs;
    if (J == pt) {
      for (int a = 0; a < bs; a++)
        for (int b = 0; b < bs; b++) S[a][b] = SFDILU_ADD(S[a][b], aa[ai[r0 + a] + t * bs + b]);
    } else if (color[c0] < cI) {
      const PetscScalar *U = eblk + (size_t)J * bs * bs;
      PetscScalar        L[SFDILU_MAX_BS][SFDILU_MAX_BS];
      for (int a = 0; a < bs; a++) {
        const SFDILU_BLOCK_INDEX k = ai[r0 + a] + t * bs;
        for (int b = 0; b < bs; b++) {
          PetscScalar x = aa[k + b];
          for (int m = 0; m < b; m++) x = SFDILU_SUB(x, SFDILU_MUL(L[a][m], U[m * bs + b]));
          L[a][b]    = SFDILU_MUL(x, U[b * bs + b]);
          lu[k + b] = L[a][b];
        }
      }
      for (int b = 0; b < bs; b++) {
        const SFDILU_BLOCK_INDEX kt = tpos[ai[r0] + t * bs + b]; /* row (J, b) of block (J, I): L_EJ^{-1} A_JI, J's U entries */
        if (kt < 0) continue;                                    /* no block (J, I) in a nonsymmetric pattern */
        for (int a = 0; a < bs; a++)
          for (int c = 0; c < bs; c++) S[a][c] = SFDILU_SUB(S[a][c], SFDILU_MUL(L[a][b], lu[kt + c]));
      }
    }
  }
  /* E_I = L_EI U_EI, no pivoting */
  for (int m = 0; m < bs; m++) {
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
  for (int a = 0; a < bs; a++)
    for (int b = 0; b < bs; b++) E[a * bs + b] = S[a][b];
  /* the diagonal block, and the higher-colored blocks: U_IJ = L_EI^{-1} A_IJ */
  for (SFDILU_BLOCK_INDEX t = 0; t < nb; t++) {
    const SFDILU_BLOCK_INDEX c0 = aj[ai[r0] + t * bs], J = c0 / bs;
    if (J == pt) {
      for (int a = 0; a < bs; a++)
        for (int b = 0; b < bs; b++) lu[ai[r0 + a] + t * bs + b] = S[a][b];
    } else if (color[c0] > cI) {
      for (int c = 0; c < bs; c++)
        for (int a = 0; a < bs; a++) {
          PetscScalar y = aa[ai[r0 + a] + t * bs + c];
          for (int m = 0; m < a; m++) y = SFDILU_SUB(y, SFDILU_MUL(S[a][m], lu[ai[r0 + m] + t * bs + c]));
          lu[ai[r0 + a] + t * bs + c] = y;
        }
    }
  }
  return failed;
}

PETSC_INTERN PetscErrorCode SFDILUBlockSize(PC, Mat, PetscInt *);
PETSC_INTERN PetscErrorCode SFDILUColorBlocks_Host(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PCSFDILUColoringType, PetscInt, PetscInt[], PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode SFDILUSetUpBlocks_Host(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApplyBlocks_Host(SFDILU *, PetscBool, const PetscScalar[], PetscScalar[]);
