/*
   The 27-point grid layout's slabs (src/mat/hybsf/gridbox.cu has the sweeps that read them): where each
   sweep finds a point's coefficients. Two kernels write them: the gather from the factor's CSR after a change
   of values (gridbox.cu) and the 27-point ILU(0) (src/pc/sfilu/ilu0_box_device.cu), which stores each point's
   row as it finishes it, so that a refactorization does not read the factor back.
*/
#pragma once

#include <sfpc/private/trifactor_device.h>

#define BOX_LINES 30 /* y-lines a sweep's warp computes */
#define BOX_TERMS 13 /* lower neighbours of a point in the box stencil */

/*
   A point's 13 coefficients, in ascending column order of the walk's numbering, and its inverse pivot: term t is
   lower neighbour (i + di, j + dj, k + dk) with t = 3 (dj + 1) + di + 1 for dk = -1, 9 + di + 1 for dk = 0, dj = -1,
   and 12 for (i - 1, j, k). That is the neighbour's box slot 9 (dk + 1) + 3 (dj + 1) + di + 1, the numbering the
   factorization uses; U's term t, in the reversed numbering, is the mirrored neighbour, box slot 26 - t.
*/
struct alignas(16) BoxCoef {
  double c[BOX_TERMS + 1];
};

/* Both sweeps' slabs (NULL for a sweep not on the grid layout) and the geometry that places a point in them. */
struct BoxSlabs {
  BoxCoef        *lower, *upper;
  unsigned short *lmask, *umask;
  int             nx, ny, nz;
  int             njb, ts; /* tile lines per z-plane; nx + 2 BOX_LINES + 2: steps (slots) per tile line */
};

static inline BoxSlabs SFPCGridBoxSlabs(SFPCTriDevice T)
{
  BoxSlabs S;
  S.lower = T->lower.layout == SFPC_LAYOUT_GRID ? (BoxCoef *)T->lower.gcoef : NULL;
  S.upper = T->upper.layout == SFPC_LAYOUT_GRID ? (BoxCoef *)T->upper.gcoef : NULL;
  S.lmask = S.lower ? (unsigned short *)T->lower.gmask : NULL;
  S.umask = S.upper ? (unsigned short *)T->upper.gmask : NULL;
  S.nx = T->grid.nx, S.ny = T->grid.ny, S.nz = T->grid.nz;
  S.njb = (S.ny + BOX_LINES - 1) / BOX_LINES;
  S.ts  = S.nx + 2 * BOX_LINES + 2;
  return S;
}

/* Slot of point (i, j, k) of a sweep's numbering: step i + 2l of lane l = j % 30 + 1 of tile line (k, j / 30), 32 lanes a step. */
__device__ __forceinline__ long long BoxSlot(int njb, int ts, int i, int j, int k)
{
  const int jb = j / BOX_LINES, l = j - BOX_LINES * jb + 1;
  return (((long long)k * njb + jb) * ts + i + 2 * l) * 32 + l;
}

/*
   Point (i, j, k)'s row of the factor into both sweeps' slabs: v by box slot (0 where the row lacks the slot,
   the inverse pivot in slot 13), own the slots it has. L at the point's slot, U at the reversed point's, whose
   lower neighbours U's are; every index a constant, so that v stays in registers.
*/
__device__ __forceinline__ void BoxStore(const BoxSlabs &S, int i, int j, int k, const double v[27], unsigned own)
{
  if (S.lower) {
    BoxCoef lo;
#pragma unroll
    for (int t = 0; t <= BOX_TERMS; t++) lo.c[t] = v[t];
    const long long s = BoxSlot(S.njb, S.ts, i, j, k);
    S.lower[s]        = lo;
    S.lmask[s]        = (unsigned short)(own & ((1u << BOX_TERMS) - 1u));
  }
  if (S.upper) {
    BoxCoef  up;
    unsigned mu = 0;
#pragma unroll
    for (int t = 0; t < BOX_TERMS; t++) {
      up.c[t] = v[26 - t];
      mu |= (own >> (26 - t) & 1u) << t;
    }
    up.c[BOX_TERMS]   = v[BOX_TERMS];
    const long long s = BoxSlot(S.njb, S.ts, S.nx - 1 - i, S.ny - 1 - j, S.nz - 1 - k);
    S.upper[s]        = up;
    S.umask[s]        = (unsigned short)mu;
  }
}
