/*
   The grid layout's slabs, where each sweep finds a point's coefficients: a tile line's lanes read a step's
   in one coalesced run (src/mat/hybsf/gridsweep.cu has the 7-point sweeps, gridbox.cu the 27-point ones).
   Two kinds of kernels write them: the gathers from the factor's CSR after a change of values (GridFillKernel,
   BoxFillKernel) and the hyperplane factorizations (src/pc/sfilu/sip_device.cu for SIP and the 7-point ILU(0),
   ilu0_box_device.cu for the 27-point one), which store each point's row as they finish it, so that a
   refactorization does not read the factor back.
*/
#pragma once

#include <sfpc/private/trifactor_device.h>

/* 7-point: a point's -x, -y, -z (L) or +x, +y, +z (U) coefficients and its inverse pivot; 32 bytes, loaded at once. */
struct alignas(32) GridCoef {
  double x, y, z, w;
};

/*
   Both sweeps' slabs of one stencil (NULL for a sweep not on the grid layout of that stencil) and the geometry that
   places a point in them: njb tile lines per z-plane, ts steps (slots of 32 lanes) per tile line.
*/
template <class Coef, class Mask>
struct SweepSlabs {
  Coef *lower, *upper;
  Mask *lmask, *umask;
  int   nx, ny, nz;
  int   njb, ts;
};

/* T's slabs if its grid layout is on the box stencil (box) or the 7-point one: njb tile lines a z-plane, nx + pad steps each. */
template <class Slabs>
static inline Slabs SFPCSweepSlabs(SFPCTriDevice T, PetscBool box, int njb, int pad)
{
  Slabs S;
  S.lower = T->lower.layout == SFPC_LAYOUT_GRID && T->grid.box == box ? (decltype(S.lower))T->lower.gcoef : NULL;
  S.upper = T->upper.layout == SFPC_LAYOUT_GRID && T->grid.box == box ? (decltype(S.upper))T->upper.gcoef : NULL;
  S.lmask = S.lower ? (decltype(S.lmask))T->lower.gmask : NULL;
  S.umask = S.upper ? (decltype(S.umask))T->upper.gmask : NULL;
  S.nx = T->grid.nx, S.ny = T->grid.ny, S.nz = T->grid.nz;
  S.njb = njb;
  S.ts  = S.nx + pad;
  return S;
}

/* 7-point: tile lines of 32 y-lines, nx + 31 steps (lane l starts l steps late). */
typedef SweepSlabs<GridCoef, unsigned char> GridSlabs;
static inline GridSlabs SFPCGridSlabs(SFPCTriDevice T)
{
  return SFPCSweepSlabs<GridSlabs>(T, PETSC_FALSE, (T->grid.ny + 31) / 32, 31);
}

/* 7-point: slot of point (i, j, k) of a sweep's numbering: step i + l of lane l = j % 32 of tile line (k, j / 32). */
__device__ __forceinline__ long long GridSlot(int njb, int ts, int i, int j, int k)
{
  return (((long long)k * njb + (j >> 5)) * ts + i + (j & 31)) * 32 + (j & 31);
}

/*
   7-point: point (i, j, k)'s row into both sweeps' slabs: lo and up by direction (x, y, z; 0 where absent), the
   inverse pivot, and the masks of the entries present (bit d: direction d). L at the point's slot, U at the
   reversed point's, whose lower neighbours U's are.
*/
__device__ __forceinline__ void GridStore(const GridSlabs &S, int i, int j, int k, const double lo[3], const double up[3], double dinv, unsigned ml, unsigned mu)
{
  if (S.lower) {
    const long long s = GridSlot(S.njb, S.ts, i, j, k);
    S.lower[s]        = GridCoef{lo[0], lo[1], lo[2], dinv};
    S.lmask[s]        = (unsigned char)ml;
  }
  if (S.upper) {
    const long long s = GridSlot(S.njb, S.ts, S.nx - 1 - i, S.ny - 1 - j, S.nz - 1 - k);
    S.upper[s]        = GridCoef{up[0], up[1], up[2], dinv};
    S.umask[s]        = (unsigned char)mu;
  }
}

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

/*
   27-point: the tiles of z-plane k start k % BOX_LINES y-lines low, one line lower than the plane below's, so that tile
   jb of plane k reads only tiles jb - 1 and jb (or jb, jb + 1 where k % BOX_LINES wraps to 0) of plane k - 1, and
   lines j - 1 .. j + 1 of plane k - 1 for its lane l are lanes l - 2 .. l there: line j + 1, which a point's
   (i + 1, j + 1, k - 1) neighbour needs and which is computed last, lies in the same lane of the tile below.
   Unskewed, lane 30's line j + 1 came from the next tile of the plane below, which trails its own tile by 60 steps:
   two L2 hand-overs a plane instead of one (bench/README.md).
   So a plane has (ny + 58) / 30 tile lines, the first and last partly empty.
*/
static inline int SFPCBoxTilesPerPlane(int ny)
{
  return (ny + 2 * BOX_LINES - 2) / BOX_LINES;
}

/* 27-point: tile lines of BOX_LINES y-lines, skewed as above, nx + 2 BOX_LINES + 2 steps (lane l starts 2 l steps late). */
typedef SweepSlabs<BoxCoef, unsigned short> BoxSlabs;
static inline BoxSlabs SFPCGridBoxSlabs(SFPCTriDevice T)
{
  return SFPCSweepSlabs<BoxSlabs>(T, PETSC_TRUE, SFPCBoxTilesPerPlane(T->grid.ny), 2 * BOX_LINES + 2);
}

/* 27-point: y-line of lane l (1 .. BOX_LINES; 0 and 31 carry the neighbouring lines) of tile line jb of z-plane k. */
__device__ __forceinline__ int BoxLaneLine(int jb, int k, int l)
{
  return BOX_LINES * jb - k % BOX_LINES + l - 1;
}

/* 27-point: slot of point (i, j, k) of a sweep's numbering: step i + 2l of its lane l (BoxLaneLine()'s inverse) in tile line (k, jb), 32 lanes a step. */
__device__ __forceinline__ long long BoxSlot(int njb, int ts, int i, int j, int k)
{
  const int u = j + k % BOX_LINES, jb = u / BOX_LINES, l = u - BOX_LINES * jb + 1;
  return (((long long)k * njb + jb) * ts + i + 2 * l) * 32 + l;
}

/* Point (i, j, k)'s slot in the L sweep's slabs, and in the U sweep's (the reversed point's, whose lower neighbours U's are). */
__device__ __forceinline__ long long BoxLowerSlot(const BoxSlabs &S, int i, int j, int k)
{
  return BoxSlot(S.njb, S.ts, i, j, k);
}
__device__ __forceinline__ long long BoxUpperSlot(const BoxSlabs &S, int i, int j, int k)
{
  return BoxSlot(S.njb, S.ts, S.nx - 1 - i, S.ny - 1 - j, S.nz - 1 - k);
}

/*
   Slot t of a point's row of the factor, v, into both sweeps' slabs at the point's slots sl and su (lane t of the
   warp that factored the point: ilu0_box_device.cu); own: the slots the row has. L's terms are slots 0 .. 13 (13:
   the inverse pivot), U's term 26 - t; v = 0 for a slot the row lacks (the sweeps' arithmetic runs over every term).
*/
__device__ __forceinline__ void BoxStoreSlot(const BoxSlabs &S, long long sl, long long su, int t, double v, unsigned own)
{
  if (S.lower && t <= BOX_TERMS) {
    S.lower[sl].c[t] = v;
    if (t == BOX_TERMS) S.lmask[sl] = (unsigned short)(own & ((1u << BOX_TERMS) - 1u));
  }
  if (S.upper && t >= BOX_TERMS && t < 2 * BOX_TERMS + 1) {
    S.upper[su].c[2 * BOX_TERMS - t] = v;
    if (t == BOX_TERMS) S.umask[su] = (unsigned short)(__brev(own) >> (31 - 2 * BOX_TERMS) & ((1u << BOX_TERMS) - 1u)); /* bit t' of U: slot 26 - t' */
  }
}

/* Point (i, j, k)'s whole row, v by box slot (0 where the row lacks the slot), from one thread; every index a constant, so that v stays in registers. */
__device__ __forceinline__ void BoxStore(const BoxSlabs &S, int i, int j, int k, const double v[2 * BOX_TERMS + 1], unsigned own)
{
  const long long sl = BoxLowerSlot(S, i, j, k), su = BoxUpperSlot(S, i, j, k);
#pragma unroll
  for (int t = 0; t < 2 * BOX_TERMS + 1; t++) BoxStoreSlot(S, sl, su, t, v[t], own);
}
