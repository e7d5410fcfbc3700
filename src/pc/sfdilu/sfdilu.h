/*
   SFPC's multicolor DILU (PCSFDILU): a distance-1 coloring of the symmetrized pattern, the DILU
   diagonal E in color order, and the two sweeps of M = (E + L_c) E^{-1} (E + U_c), L_c/U_c the
   entries coupling a row to rows of lower/higher colors. The host code (dilu_host.c) is the
   reference of the GPU smoother (dilu_device.cu).

   Transposed applies use the same factor: M^T = (E + U_c^T) E^{-1} (E + L_c^T), so M^{-T} r is a sweep
   up the colors with a_ji in place of a_ij, then one down, again with a_ji.
*/
#pragma once

#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/trifactor_device.h>
#include <sfpc/private/eisenstat.h>

#if defined(__CUDACC__)
  #define SFDILU_HOSTDEVICE __host__ __device__
#else
  #define SFDILU_HOSTDEVICE
#endif

/*
   Jones-Plassmann-Luby coloring, min/max variant: in round k every uncolored row whose (hash,
   row) beats those of all its uncolored neighbours takes color 2k (a local maximum) or 2k + 1
   (a local minimum). A neighbour colored in the same round still counts as uncolored, so the
   outcome does not depend on the order rows are visited in: the host and the device color bit
   for bit alike. Empty colors are squeezed out afterwards.
*/
static inline SFDILU_HOSTDEVICE unsigned SFDILUHash(unsigned row, unsigned seed)
{
  unsigned x = row ^ (seed * 0x9E3779B9u); /* a 32-bit integer mixer (xorshift-multiply rounds) */
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* Whether (hash, row) of a beats that of b: hash first, the row breaks ties. */
static inline SFDILU_HOSTDEVICE int SFDILUBeats(unsigned ha, int a, unsigned hb, int b)
{
  return ha > hb || (ha == hb && a > b);
}

/* Whether neighbour c (color cc) still competes in round k. */
static inline SFDILU_HOSTDEVICE int SFDILUCompetes(int cc, int round)
{
  return cc < 0 || cc >= 2 * round;
}

/*
   One neighbour c (color cc) of uncolored row r in round k: r stays a local maximum (ismax) or
   minimum (ismin) only if it beats, or loses to, every neighbour that still competes. The one
   per-neighbour rule of every JPL coloring: host (dilu_host.c), global (dilu_global.c) and device
   (dilu_device.cu).
*/
static inline SFDILU_HOSTDEVICE void SFDILUVisit(int r, unsigned hr, int c, int cc, int round, unsigned seed, int *ismax, int *ismin)
{
  unsigned hc;
  if (c == r || !SFDILUCompetes(cc, round)) return;
  hc = SFDILUHash((unsigned)c, seed);
  if (!SFDILUBeats(hr, r, hc, c)) *ismax = 0;
  if (!SFDILUBeats(hc, c, hr, r)) *ismin = 0;
}

/*
   The grid coloring (PCSFDILU_COLORING_GRID): field f of point (i, j, k) takes color
   f + dof (i mod m + m (j mod m + m (k mod m))). Two points at most m - 1 apart along every axis differ in
   at least one residue, so the coloring is proper for any stencil of width below m (7 or 27 points with
   m = 2). And a row's neighbours of one color are its own color's rows shifted by one offset: rows that
   follow one another in a color read neighbours that follow one another in the other, whole sectors for
   the GPU sweeps, where the colors of a JPL coloring scatter them.
*/
typedef struct {
  PetscInt dof, m;
  PetscInt start[3], size[3]; /* the block's box of points (x fastest): global corner and extent, 1 along absent axes */
  PetscInt dim;               /* 0: no grid */
  PetscBool guessed;          /* read off a few rows of the pattern (SFPCGridGuess()), not given by a DMDA: a conflict says so */
} SFDILUGrid;

static inline SFDILU_HOSTDEVICE PetscInt SFDILUGridColor(const SFDILUGrid *g, PetscInt r)
{
  const PetscInt f = r % g->dof, p = r / g->dof, i = g->start[0] + p % g->size[0], j = g->start[1] + (p / g->size[0]) % g->size[1], k = g->start[2] + p / (g->size[0] * g->size[1]);
  return f + g->dof * (i % g->m + g->m * (j % g->m + g->m * (k % g->m)));
}

/* Colors the grid coloring may use: dof m^dim (some possibly empty on a small box). */
static inline PetscInt SFDILUGridColors(const SFDILUGrid *g)
{
  PetscInt nc = g->dof;
  for (PetscInt d = 0; d < g->dim; d++) nc *= g->m;
  return nc;
}

/*
   The stencils the grid coloring reads off a pattern without a DMDA (SFPCGridGuess()): 3-D 7- and 27-point, 2-D 5- and
   9-point, one field. Not points of several rows (the matrix's block size): on Q1 elasticity (3 rows a node, 27-point
   nodes) the grid's 81 colors took GMRES(100) with sfdilu to 1e-8 in 472 iterations against JPL's 259 (144 colors; host,
   45000 rows), where on the scalar 27-point grid they took 42 against 41 (27 colors against 56; 40^3).
*/
#define SFDILU_GRID_GUESS (SFPC_GRID_GUESS_BOX | SFPC_GRID_GUESS_PLANE)

/* auto colors blocks of up to this many rows (GAMG's coarse levels, whose sweeps want the fewest colors) greedily */
#define SFDILU_AUTO_SMALL_ROWS (1 << 14)

typedef struct _n_SFDILUDevice *SFDILUDevice;
typedef struct _n_SFDILUGlobal *SFDILUGlobal;

typedef struct {
  /* options */
  PetscReal            omega;     /* Richardson weight of PCApplyRichardson() */
  PetscBool            richtest;  /* PCApplyRichardson() tests the KSP's tolerances (a solve) instead of running its steps (a smoother) */
  SFPCRichardsonNorm   richnorm;  /* the norm it then tests */
  SFPCMatStamp       stamp;     /* pc->pmat at set-up: the fused Richardson step takes A as its operator only while it holds */
  PetscReal            zeropivot; /* E_i fails when |E_i| <= zeropivot * sum_j |a_ij| */
  PetscBool            shift;     /* on a failed E_i, redo with A + a I, a = shiftamount * max_i sum_j |a_ij| doubled until none fails */
  PetscReal            shiftamount;
  PetscReal            shifted; /* the a finally applied */
  PCSFDILUColoringType coloring;
  PetscInt             seed;  /* of the JPL hash */
  PCSFDILUSweepType    sweep; /* GPU sweeps */
  PCSFDILUOrderType    gpuorder; /* GPU: row order of the sweeps */
  PetscInt             localwindow; /* GPU, local order: keys per window (the sweeps are dispatched by windows of half as many rows) */
  SFPCTriOptions       engine; /* GPU: how the sync-free sweeps are stored and scheduled */
  PetscInt             gridmod; /* m of the grid coloring */
  PetscBool            coloring_changed; /* the coloring options changed since the last coloring */
  PetscBool3           blocks;           /* DILU by the matrix's point-blocks (dilu_blocks.h): true, false or auto (unknown) */

  /* per nonzero pattern */
  PetscBool            ondevice;
  PCSFDILUColoringType colored; /* greedy, jpl or grid: what the coloring was */
  SFDILUGrid           grid;    /* of the grid coloring */
  PCSFDILUOrderType    ordered; /* color or local: the GPU row order taken with it */
  PetscBool            beyondl2; /* GPU: a vector of n entries takes more than 40% of L2 (SFDILUBeyondL2()) */
  PetscBool            byparts;  /* GPU, sweeps auto: the coloring chose the solves by parts (dilu_device.cu, PartsPay()) */
  PetscInt             n, ncolors;
  PetscInt             bs; /* rows of a point-block (1: row by row; with blocks a row's color is its point's) */
  PetscInt             bsasked; /* what SFDILUBlockSize() asked for at that coloring (auto may have taken 1 instead) */
  const char          *rowswhy; /* auto: why the rows were taken instead of the matrix's point-blocks, for the view (NULL: not declined) */
  PetscInt            *color;  /* color of each row (on the host; for a device factor a copy made on request) */
  PetscInt            *order;  /* host: rows sorted by (color, row) */
  PetscInt            *cstart; /* rows of color c: order[cstart[c] .. cstart[c+1]) (host, both paths) */
  PetscInt            *tpos;   /* host: tpos[k] is the position of a_ji for the entry a_ij at position k, or -1 */
  SFDILUDevice         dev;
  PetscBool            parallel; /* the global DILU across ranks (dilu_global.c) instead of one per diagonal block */
  SFDILUGlobal         glob;

  /* per numeric set-up */
  PetscScalar   *einv; /* host: 1 / E_i */
  PetscScalar   *lu, *eblk; /* host, by point-blocks: the sweeps' values on A's pattern and each E_I^{-1} (dilu_blocks.h) */
  Mat            A;    /* the sequential matrix the factor was built from (the diagonal block of an MPI one) */
  PCFailedReason failure;
  PetscInt       failrow;
  PetscInt       rstart;  /* global row of the block's first (block Jacobi on an MPI matrix; else 0); failrow + rstart is global (failrow already is with glob) */
  Vec            z, d;   /* host: the forward sweep's output; the Richardson correction */
  Vec            xd, yd; /* device copies of host vectors given to a GPU smoother */
  Vec            xs, ys; /* between SFDILUGetDeviceArrays() and the restore: x and y, or xd and yd (not references) */

  SFPCEisenstat eis; /* Eisenstat's form (-pc_sfdilu_eisenstat, dilu_eisenstat.c) */
} SFDILU;

/* Position of c in the sorted a[lo, hi), or -1 (dilu_host.c; PetscFindInt() says -(insertion point + 1) through an error code) */
PETSC_INTERN PetscInt       SFDILUFindSorted(const PetscInt[], PetscInt, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode SFDILUColorRows_Host(PetscInt, const PetscInt[], const PetscInt[], PCSFDILUColoringType, PetscInt, PetscInt[], PetscInt *);
PETSC_INTERN PetscErrorCode SFDILUSqueezeColors(PetscInt, PetscInt, PetscInt[], PetscInt *);
PETSC_INTERN PetscBool      SFDILUWantsGrid(const SFDILU *, PetscInt);
PETSC_INTERN PetscBool      SFDILUTriesGrid(const SFDILU *, PetscInt);
PETSC_INTERN PetscErrorCode SFDILUGridFromDims(SFDILU *, const PetscInt[3], PetscBool *);
PETSC_INTERN PetscErrorCode SFDILUGridConflict(const SFDILU *, PetscInt, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode SFDILUGridConflictOn(MPI_Comm, const SFDILU *, PetscInt, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode SFDILUColor_Host(SFDILU *, Mat);
PETSC_INTERN PetscErrorCode SFDILUSetUp_Host(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApply_Host(SFDILU *, PetscBool, const PetscScalar[], PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFDILUReset_Host(SFDILU *);

/* Eisenstat's form (dilu_eisenstat.c; its sweeps in dilu_host.c and dilu_device.cu) */
PETSC_INTERN PetscErrorCode PCSFDILUEisenstatSetUp(PC);
PETSC_INTERN PetscErrorCode PCPreSolveChangeRHS_SFDILU(PC, PetscBool *);
PETSC_INTERN PetscErrorCode SFDILUEisenstat_Host(SFDILU *, PetscBool, PetscBool, const PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFDILUEisenstat_Device(SFDILU *, PetscBool, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFDILUEisenstatDiagonals_Device(SFDILU *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFDILUEisenstatMult_Device(SFDILU *, const PetscScalar *, PetscScalar *, PetscScalar *);

/* the global DILU across ranks: coloring and metadata on the host (dilu_global.c); E and the apply on the host or, for a CUSPARSE matrix, on the GPU (dilu_global_device.cu) */
PETSC_INTERN PetscErrorCode SFDILUColor_Global(SFDILU *, Mat);
PETSC_INTERN PetscErrorCode SFDILUSetUp_Global(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApply_Global(SFDILU *, PetscBool, const PetscScalar[], PetscScalar[], PetscScalar[]);
PETSC_INTERN PetscErrorCode SFDILUSetUp_GlobalDevice(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApply_GlobalDevice(SFDILU *, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFDILUReset_Global(SFDILU *);

/* the GPU smoother (dilu_device.cu; refusing stubs in a build without CUDA) */
PETSC_INTERN PetscErrorCode SFDILUColor_Device(SFDILU *, Mat);
PETSC_INTERN PetscErrorCode SFDILUSetUp_Device(SFDILU *, Mat, PetscReal, PetscReal *);
PETSC_INTERN PetscErrorCode SFDILUApply_Device(SFDILU *, PetscBool, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFDILURichardson_Device(SFDILU *, Mat, const PetscScalar *, PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode SFDILUGetColors_Device(SFDILU *, const PetscInt **);
PETSC_INTERN PetscErrorCode SFDILUView_Device(SFDILU *, PetscViewer);
PETSC_INTERN PCSFDILUSweepType SFDILUSweepUsed(SFDILU *);
PETSC_INTERN PCSFDILUOrderType SFDILUOrderUsed(SFDILU *);
PETSC_INTERN PetscBool         SFDILUBeyondL2(PetscInt, PetscLogDouble);
PETSC_INTERN PetscErrorCode SFDILUReset_Device(SFDILU *);
