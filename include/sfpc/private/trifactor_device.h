/*
   The sync-free engine on the GPU (src/mat/hybsf): an in-place LU factor with the layout of
   trifactor.h (diagonal slots hold the inverse diagonal), the dependency schedules of its L and
   U parts, the storage its sweeps read, and its solves. Everything lives on the device and is
   built from device CSR; the host keeps sizes and the counters that make sweeps need no
   re-zeroing.
*/
#pragma once

#include <sfpc.h>
#include <sfpc/private/trifactor.h>

/*
   A sync-free sweep's schedule (see sfdevice.cuh): rows in dispatch order, packed into warp
   tasks; task w holds rows order[start[w] .. start[w+1]), one vector of vec[w] lanes each.

   With the hyb layout a sweep also has, per task, a slab of 32 slots (cols, vals, rows; slot
   w*32 + l is lane l's), so that a warp reads its rows and their entries with coalesced loads
   however far apart the rows are in CSR: lane t of the vector of a row holds that row's entry t
   (column -1, value 0 where the row has fewer) and the row (-1 for lanes past the task's rows).
   A row of more than 32 entries holds its first 32 there and continues in the CSR. dinv[r] is
   the inverse diagonal of row r (non-unit sweeps).

   With the grid layout (gridsweep.cu; gridbox.cu for a 27-point box) the factor is a (subset of the) 7-point stencil of a known
   nx x ny x nz grid, x fastest: the sweep walks the grid itself, one warp per 32 lines along x,
   and keeps no levels of its own (order/start/vec still order the ILU(0) factorization); gcoef
   holds, per point, the -x, -y, -z (L) or +x, +y, +z (U) coefficients and the inverse diagonal,
   gathered from the factor's CSR, and gmask which of them the pattern has, both in "skewed slabs":
   slot (w * (nx + 31) + t) * 32 + l is what lane l of tile line w needs at step t, so that a warp's
   step reads them coalesced (gridsweep.cu).
*/
typedef struct {
  int            ntasks;
  int            nlevels;
  int           *order;
  int           *start;
  unsigned char *vec;
  SFPCLayout     layout; /* csr, hyb or grid */
  SFPCLevels     levels; /* asap or alap */
  PetscBool      unit;   /* unit diagonal: the diagonal slot is not read */
  int           *cols;   /* hyb only */
  int           *rows;   /* hyb only */
  PetscScalar   *vals;   /* hyb only */
  PetscScalar   *dinv;   /* hyb, non-unit only */
  PetscScalar   *gcoef;  /* grid only: 4 per slot, {c_x, c_y, c_z, 1/pivot} */
  unsigned char *gmask;  /* grid only: per slot, bit d (d = x, y, z) when the pattern has that coefficient */
  PetscInt       nnz;    /* off-diagonal entries of this triangle */
  int            solve_resident;  /* warps of this sweep's solves */
  int            factor_resident; /* warps of a factorization ordered by this schedule */
  PetscInt       rows_by_vec[6]; /* rows handled by vectors of 1, 2, 4, 8, 16, 32 lanes */
} SFPCSchedule;

/* How to build an engine factor. */
typedef struct {
  PetscInt   warps_per_sm; /* resident warps per SM of every sweep; PETSC_DECIDE: the defaults below */
  SFPCLayout layout;       /* for both sweeps; auto decides per sweep */
  SFPCLevels levels;
  PetscBool  lower, upper;           /* which sweeps to analyse */
  PetscBool  lower_unit, upper_unit; /* ILU: L unit, U not */
  PetscInt   grid[3];      /* nx, ny, nz of the grid the rows are the points of (x fastest); 0: none known */
  PetscBool  grid_guessed; /* grid was read off a few rows of the pattern (SFPCGridGuess()), not given: an error names no grid */
  PetscInt   grid_chunk;   /* grid layout: x steps per read of another warp's results (2 or 4) */
  PetscInt   grid_planes;  /* grid layout: z-planes per block, the -z line handed over in shared memory (1, 2, 4 or 8; 0: SFPCGridPlanes() decides) */
  PetscInt   window_major; /* > 0: dispatch by windows of this many rows of the solve's order, levels inside each (analysis.cu); 0: by levels */
  PetscBool  solves_only;  /* nothing but the sweeps' own solves uses the schedules (MATHYBSF, one triangle): a sweep that walks the grid computes no levels */
} SFPCTriOptions;

/* Storage of the residual fused into the grid layout's L sweep (gridsweep.cu), made by its first use. */
typedef struct {
  int         *flag;  /* device, per tile of r (32 y-lines of a z-plane): the epoch of the sweep that wrote it */
  double      *part;  /* device, per tile: its share of the norm; then the sum (sum = part + tiles) */
  double      *sum;
  double      *host;  /* pinned copy of *sum */
  void        *ready; /* cudaEvent_t recorded after that copy */
  int          epoch;
} SFPCGridResidual;

/* The grid of a factor whose sweeps use the grid layout (nx = 0: none). */
typedef struct {
  int              nx, ny, nz;
  PetscBool        box; /* the pattern is off the 7-point stencil but inside the 27-point box: gridbox.cu's sweeps */
  SFPCGridResidual res;
} SFPCGrid;

/* A pattern the analysis can schedule besides T's own: n rows of CSR (i, j) with diag[r] the diagonal's position, nnz
   entries, offdiag of them in the triangle scheduled (about: it chooses the levels pass, UseQueue() in analysis.cu). */
typedef struct {
  int        n;
  PetscInt   nnz, offdiag;
  const int *i, *j, *diag;
} SFPCPattern;

/*
   Point-blocks (blocksweep.cu): with a block size bs > 1 the rows come in blocks of bs consecutive
   rows (a grid point's fields), and a sweep may go a block per warp task: the block waits for the
   blocks it depends on, then solves its own rows inside the warp, so the chain of dependent L2 hops
   follows the levels of the block graph, not of the rows (SNES ex19's 4-field cavity: 511 a sweep
   instead of 2044). lower and upper are the schedules of the quotient pattern (a task a block, order:
   the blocks in dispatch order); use[0] and use[1] say which sweeps go by blocks (by default those
   whose block levels are at most 3/4 of their rows'; the grid layout never does). The ILU(0)
   factorization by point-blocks dispatches by lower too.
   A sweep by blocks reads its entries from slab[k] where they fit: for task w, slot q and lane l
   (l < bs times the lanes of a row), the pair {column, CSR position} of the row's entry that lane
   loads in slot q ({-1, 0}: none), so a task's columns are one coalesced load indexed by its ticket
   instead of three dependent ones (order, row offsets, columns); the values stay in the CSR. Those
   sweeps also poll a lane's pending unknowns together.
*/
#define SFPC_BLOCK_MAX_ROWS    8   /* rows of a block: a vector of at least 4 lanes each */
#define SFPC_BLOCK_MAX_ENTRIES 256 /* entries of a block's rows together (the quotient's set-up) */
#define SFPC_BLOCK_MAX_SLOTS   8   /* slots a lane of a sweep's slab: longer row parts are read from the CSR */
#define SFPC_BLOCK_SLAB_TASKS_PER_SM 4 /* blocks a level and SM (on average) from which a sweep reads a slab by default */
#define SFPC_BLOCK_LANES(bs)   ((bs) <= 2 ? 16 : (bs) <= 4 ? 8 : 4) /* lanes of a block's row in the sweeps: the bs rows share a warp */
typedef struct {
  PetscInt     asked;        /* the block size last set (SFPCTriDeviceSetBlocks()); 0: never */
  PetscBool3   sweeps;       /* and whether sweeps were to go by blocks (unknown: where they shorten the chain) */
  PetscBool3   slabs;        /* and whether those read their columns from slabs (unknown: where levels are wide) */
  PetscInt     bs, nb;       /* bs > 1: blocks set up; nb blocks */
  SFPCPattern  quotient;     /* the points' pattern: row B lists, ascending, the blocks B's rows have entries in */
  SFPCSchedule lower, upper; /* of the quotient pattern; ntasks = nb, no start, vec or hyb slabs */
  PetscBool    use[2];       /* the L (0) and U (1) sweeps go by blocks */
  PetscBool    dropped[2];   /* the sweep's hyb slabs were dropped for blocks (rebuilt if blocks go) */
  int         *slab[2];      /* pairs {column, position} of each sweep's tasks (NULL: read from the CSR) */
  int          slots[2];     /* slots a lane of slab[k] */
  const char  *noslab[2];    /* a sweep by blocks without a slab: why */
  const char  *why;          /* asked > 1 but bs == 0: why */
} SFPCBlockSweeps;

/*
   Solves by parts (partsweep.cu): a block per part of consecutive rows of the caller's numbering (home rows), the part's
   unknowns in shared memory, rows taken step by step (the caller's steps: sfdilu's colors). Positions g are the factor's
   rows sorted by (part, step, entries in L), so part p holds positions [pstart[p], pstart[p + 1]), as its home rows; group G = p nsteps + step
   holds its positions in slices sstart[G] .. sstart[G + 1] of 32 / lanes rows, lanes lanes a
   row. Slice k's L entries are slots loff[k] .. loff[k + 1]: slot loff[k] + 32 e + lane holds entry e lanes + (lane %
   lanes) of the lane's row (ucol/uval alike); columns as positions (-1: padding), and *src the factor positions the
   values come from.
*/
/*
   Parts that are boxes of a grid (partboxes.cu): n[0] x n[1] x n[2] points of dof fields, rows in natural order
   (fields fastest, then x, y, z), split into b[0] x b[1] x b[2] boxes, each axis evenly (the first n mod b boxes one
   point longer). The home rows go box after box (x fastest over the boxes), each box's rows in natural order inside it.
   b[0] = 0: no grid (parts are ranges of the vectors' rows).
*/
typedef struct {
  int n[3], b[3], dof;
} SFPCPartsGrid;

typedef struct {
  int          np, maxrows, nsteps, parity, lanes; /* np = 0: none; maxrows: the largest part's rows */
  SFPCPartsGrid grid;  /* boxes, or none */
  int         *pstart; /* np + 1: part p's home rows (and positions) */
  int         *pord; /* position -> factor row */
  int         *hpos; /* the caller's row -> position */
  int         *sstart, *sfirst, *loff, *uoff; /* sfirst[k]: slice k's first position */
  int         *lcol, *ucol, *lsrc, *usrc;
  PetscScalar *lval, *uval, *dinv;
  PetscScalar *pub; /* 4 n: per parity, the L and U sweeps' published unknowns */
  long long    lslots, uslots;
} SFPCParts;

typedef struct _n_SFPCTriDevice *SFPCTriDevice;
struct _n_SFPCTriDevice {
  PetscInt           n, nnz;
  int               *i, *j, *diag; /* device copy of the pattern; diag[r] = position of the diagonal slot */
  PetscScalar       *a;            /* device factor values */
  SFPCTriOptions     opt;
  SFPCSchedule       lower, upper; /* L's schedule also orders the ILU(0) factorization */
  int               *flags;        /* flags[r] == epoch: row r is done in the current factorization */
  int                epoch;
  unsigned long long *counter;     /* ticket dispenser; ticketbase = tickets handed out before this sweep */
  unsigned long long ticketbase;
  int                sms;          /* multiprocessors of the device */
  int                resident;     /* warps of the analysis sweeps (persistent warps); the schedules hold their own */
  int                hybblocks;    /* blocks of the hyb solve kernels that are all resident at once */
  PetscScalar       *z;            /* L-solve output, U-solve input; holds the solve sentinel between applies */
  int               *report;       /* two ints in which a sweep reports rows back (e.g. the first failing pivot) */
  SFPCTriDevice      transpose;       /* the factor of the transposed matrix, built by the first transposed solve (transpose.cu) */
  PetscBool          transpose_stale; /* its values predate the last change of a */
  int               *perm;            /* in a transposed factor: a[k] = (original factor's a)[perm[k]] */
  SFPCGrid           grid;            /* the grid layout's grid, when a sweep uses it */
  SFPCBlockSweeps    blocks;          /* point-blocks, when set */
  PetscInt           blocks_epoch;    /* counts the rebuilds of blocks: what borrowed its order before one must not use it */
  SFPCParts          parts;           /* solves by parts, when set (SFPCTriDeviceSetParts()) */
};

/*
   Warps per SM, measured on an H200 and an H100 (bench/README.md). Where a level holds few tasks
   per SM (3-D stencils in natural order: long dependency chains) the solves are fastest with 12-16
   warps (fewer warps polling L2 at once), and so is the ILU(0) factorization where levels hold
   fewer than 8 tasks per SM (7-point 128^3: 5.2, the driven cavity: 0.5); from there (27-point
   128^3: 8.9) it wants 24; where levels are wide (a permuted matrix: a few dozen levels) both want
   48, to keep more tasks in flight. The solves of levels of 8-32 tasks per SM whose rows take 8 lanes or more (a task
   of 1-4 rows: DILU's colors of 27-point, elasticity and cavity matrices at 2*10^5-8*10^5 rows, 27-point triangles
   outside the grid walk) are fastest with 32: on an H200 those DILU sweeps 1.14-1.32x faster than with 16, permuted
   27-point triangles 1.25x, 27-point triangles in the csr layout 1.2x; rows of 4 lanes (7-point) were 6-10% slower
   with 32 in the hyb layout, and stay at 16 (bench/README.md, "Warps per SM for DILU's sweeps"). The analysis runs with 64: its lanes poll in lockstep (analysis.cu), and
   more rows in flight shorten its pass (24 before; 48 and 64 made 7-point 100^3 and 128^3 analyses 1.3x
   faster, H100, 2026-11-24), beyond 48 only with its doubling back-off (64 warps with a fixed one: 7%
   slower than 48; 32 warps: 10% slower).
*/
#define SFPC_FACTOR_WARPS_PER_SM 16
#define SFPC_BUSY_WARPS_PER_SM   24
#define SFPC_BUSY_TASKS_PER_SM   8  /* tasks per level and SM from which a factorization wants SFPC_BUSY_WARPS_PER_SM, a solve SFPC_BUSY_SOLVE_WARPS_PER_SM */
#define SFPC_SOLVE_WARPS_PER_SM  16
#define SFPC_BUSY_SOLVE_WARPS_PER_SM 32 /* solves of levels of at least SFPC_BUSY_TASKS_PER_SM tasks per SM, not wide, most rows of 8 lanes or more */
#ifndef SFPC_ANALYSIS_WARPS_PER_SM
  #define SFPC_ANALYSIS_WARPS_PER_SM 64
#endif
#define SFPC_WIDE_WARPS_PER_SM   48
#define SFPC_WIDE_TASKS_PER_SM   32 /* tasks per level and SM above which a schedule counts as wide */
/*
   Grid-layout sweeps: warps per SM (few are busy at once: a k-line's warp starts one chunk and one
   L2 hop after the line below it, so about (warp duration / that lag) warps per 32 y-lines work
   while the others poll; blocks of z-planes keep at least one block per SM, SFPCGridBlocks()), and
   x steps per chunk read from other warps.
*/
#define SFPC_GRID_WARPS_PER_SM 4
#define SFPC_GRID_CHUNK        4
/* 27-point grid layout (gridbox.cu): warps per SM, one tile line (30 y-lines of a z-plane) each. */
#define SFPC_GRID_BOX_WARPS_PER_SM 8
/*
   Grid layout, z-planes per block of warps, at most (fewer only on grids of fewer z-planes). Since a plane in a block
   waits for the one below step by step, 8 planes were the fastest of 1, 2, 4 and 8 on every cube measured, 16^3 to
   128^3 on an H200 and 32^3 to 128^3 on an H100 (L+U apply against one plane a block: 1.03-1.08x up to 64^3,
   1.18-1.41x at 80^3-112^3, 1.46-1.50x at 128^3; bench/README.md, sfilu, "Planes per block on small and mid-size
   grids"); on an H100, 1.58x faster than one warp a tile line at 256^3 ("Planes per block").
*/
#define SFPC_GRID_PLANES 8
PETSC_INTERN PetscErrorCode SFPCTriOptionsDefault(SFPCTriOptions *);
/* -sfpc_analysis_queue_rows (src/sys/sfpcinit.c): PETSC_DECIDE unless given */
PETSC_INTERN PetscInt SFPCAnalysisQueueRows;
PETSC_INTERN int            SFPCGridPlanes(SFPCTriDevice);
PETSC_INTERN int            SFPCGridBlocks(SFPCTriDevice, const SFPCSchedule *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSetWarpsPerSM(SFPCTriDevice, PetscInt);
PETSC_INTERN PetscErrorCode SFPCTriDeviceCreate(PetscInt, PetscInt, const PetscInt *, const PetscInt *, PetscBool, const SFPCTriOptions *, SFPCTriDevice *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceDestroy(SFPCTriDevice *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceValuesChanged(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCTriDeviceValuesChangedGridFilled(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSolve(SFPCTriDevice, const PetscScalar *, PetscScalar *);
/*
   An LU solve whose right-hand side is in the caller's numbering, perm[r] being the caller's index of the engine's row r
   (sfdilu: natural order around the color order its factor is in): the L sweep reads b[perm[r]], which spares the caller
   a gather kernel (a launch and a pass over two vectors). Only where the L sweep is csr or hyb (SFPCTriDeviceCanGather()).
   Given y, the U sweep also stores omega times each result back through a permutation (the scatter), where that sweep
   is hyb (SFPCTriDeviceCanScatter()): its row's index is loaded with the row's right-hand side, ahead of the waits (a
   first version that loaded it after publishing the row held each warp for a round trip a row, and was 0.77-0.99x a
   scatter kernel's speed on all but small 7-point grids; bench/README.md, sfdilu, "The gather done by the sweeps" and
   "The scatter done by the U sweep").
*/
PETSC_INTERN PetscBool      SFPCTriDeviceCanGather(SFPCTriDevice);
PETSC_INTERN PetscBool      SFPCTriDeviceCanScatter(SFPCTriDevice);
/* Solves by parts (partsweep.cu): the right-hand side gathered, both sweeps and the (weighted) scatter in one kernel. */
PETSC_INTERN PetscErrorCode SFPCPartsSize(SFPCTriDevice, PetscInt, PetscInt, int *, int *, PetscBool *);
PETSC_INTERN PetscErrorCode SFPCPartsFit(SFPCTriDevice, PetscInt, PetscInt, PetscBool *);
PETSC_INTERN PetscErrorCode SFPCPartsGridStarts(const SFPCPartsGrid *, PetscInt **);
PETSC_INTERN PetscErrorCode SFPCPartsBoxes(SFPCTriDevice, PetscInt, const PetscInt[3], PetscInt, PetscInt, SFPCPartsGrid *, int *);
PETSC_INTERN PetscErrorCode SFPCPartsGridHome(const SFPCPartsGrid *, PetscInt, const int *, const int *, int *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSetParts(SFPCTriDevice, const int *, const int *, PetscInt, const SFPCPartsGrid *, PetscBool *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSolveParts(SFPCTriDevice, const PetscScalar *, PetscScalar, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCPartsFill_Device(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCPartsDestroy_Device(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSolveGathered(SFPCTriDevice, const int *, const PetscScalar *, PetscScalar *, const int *, PetscScalar, PetscScalar *);
/* T's transposed factor, in T's numbering: its LU solve is (LU)^{-T} (SFPCTriDeviceSolveTranspose()), gathered too where it can */
PETSC_INTERN PetscErrorCode SFPCTriDeviceGetTranspose(SFPCTriDevice, SFPCTriDevice *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSweep(SFPCTriDevice, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSolveTranspose(SFPCTriDevice, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSweepTranspose(SFPCTriDevice, PetscBool, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceEisenstat(SFPCTriDevice, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceEisenstatBegin(SFPCTriDevice, const PetscScalar *, PetscScalar *, const PetscScalar **);
PETSC_INTERN PetscErrorCode SFPCTriDeviceEisenstatMid(SFPCTriDevice, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceEisenstatEnd(SFPCTriDevice, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceDiagonals(SFPCTriDevice, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceMultUpper(SFPCTriDevice, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSolveResidual(SFPCTriDevice, const int *, const int *, const PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, NormType, PetscScalar *, PetscReal *);
PETSC_INTERN PetscBool      SFPCTriDeviceHasFusedResidual(SFPCTriDevice);
PETSC_INTERN PetscBool      SFPCTriDeviceFusedResidualPays(SFPCTriDevice, PetscBool);
PETSC_INTERN PetscErrorCode SFPCTriDeviceBytes(SFPCTriDevice, PetscLogDouble *, PetscLogDouble *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceView(SFPCTriDevice, PetscViewer);
/*
   For a kernel that sweeps ntasks tasks with persistent warps taking tickets (each until one is
   past the end): its grid (blocks of SFPC_WARPS_PER_BLOCK warps) and its ticket base.
   A factorization that publishes rows by flags also takes a fresh epoch.
*/
PETSC_INTERN PetscErrorCode SFPCTriDeviceBeginSweep(SFPCTriDevice, PetscInt, int *, unsigned long long *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceTakeTickets(SFPCTriDevice, PetscInt, int, int *, unsigned long long *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceNextEpoch(SFPCTriDevice, int *);
PETSC_INTERN PetscErrorCode SFPCScheduleBuild(SFPCTriDevice, PetscBool, SFPCLevels, SFPCSchedule *);
PETSC_INTERN PetscErrorCode SFPCScheduleBuildPattern(SFPCTriDevice, const SFPCPattern *, PetscBool, SFPCLevels, PetscInt, SFPCSchedule *);
PETSC_INTERN PetscErrorCode SFPCScheduleBuildSlabs(SFPCTriDevice, PetscBool, SFPCSchedule *);
PETSC_INTERN PetscErrorCode SFPCScheduleFillSlabs(SFPCTriDevice, PetscBool, SFPCSchedule *);
PETSC_INTERN PetscErrorCode SFPCHybBlocksPerSM(int *);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSetBlocks(SFPCTriDevice, PetscInt, PetscBool3, PetscBool3);
PETSC_INTERN PetscErrorCode SFPCBlocksDestroy_Device(SFPCTriDevice);
PETSC_INTERN void           SFPCScheduleWarps(SFPCTriDevice, SFPCSchedule *);
PETSC_INTERN PetscErrorCode SFPCFillSentinel(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode SFPCGridLayoutCheckOptions(PetscInt, const SFPCTriOptions *);
PETSC_INTERN PetscErrorCode SFPCGridLayoutCheck_Host(const SFPCTriFactor *, const SFPCTriOptions *);
PETSC_INTERN PetscErrorCode SFPCGridFindOutside_Device(SFPCTriDevice, const PetscInt[3], PetscInt[2], PetscInt[2]);
PETSC_INTERN PetscErrorCode SFPCGridGuess_Device(PetscInt, const PetscInt *, const PetscInt *, PetscInt, int, PetscInt[3]);
PETSC_INTERN PetscErrorCode SFPCGridCreate_Device(SFPCTriDevice, const PetscInt[3], PetscBool);
PETSC_INTERN PetscErrorCode SFPCGridFill_Device(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCGridDestroy_Device(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCTriDeviceSetGrid(SFPCTriDevice, const PetscInt[3]);
PETSC_INTERN double         SFPCGridBoxBytes(SFPCTriDevice);
PETSC_INTERN long long      SFPCGridBoxTasks(SFPCTriDevice);
PETSC_INTERN long long      SFPCGridTasks(SFPCTriDevice);
PETSC_INTERN int            SFPCGridBoxWarps(SFPCTriDevice, const SFPCSchedule *);
