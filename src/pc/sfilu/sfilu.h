/*
   SFPC's ILU(0)/ILU(k) factor (SFILU): options, the factor on the host or on the GPU, and the shift
   and failure policy. PCSFILU (sfilu.c) and the "sfilu" MatSolverType behind PCILU
   (sfilu_factor.c) are two thin fronts over it.
*/
#pragma once

#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/trifactor.h>
#include <sfpc/private/trifactor_device.h>
#include <sfpc/private/eisenstat.h>

/* What one numeric ILU(0) attempt found; rows are -1 when nothing was found. */
typedef struct {
  PetscInt    badrow;    /* lowest row whose pivot failed */
  PetscInt    nonfinite; /* lowest row with an Inf or NaN entry */
  PetscScalar badpivot;  /* the pivot of badrow */
} SFILUResult;

/* SIP's factorization on the GPU: sync-free (one launch, published values polled) or level-synchronous (one launch per hyperplane) */
typedef enum {
  SFILU_SIP_SYNCFREE,
  SFILU_SIP_LEVELSYNC
} SFILUSIPVariant;
PETSC_INTERN const char *const SFILUSIPVariants[];

/*
   The grid's points in hyperplane order (i + wy j + wz k ascending), on the device, for the GPU
   factorizations that run by hyperplanes: SIP's and ILU(0)'s on the 7-point grid (weights 1, 1;
   sip_device.cu) and ILU(0)'s on the 27-point one (2, 4; ilu0_box_device.cu). Plane p holds
   positions [start[p], start[p+1]) of order, padded with -1 so that each plane starts at a
   multiple of 32 (a warp's 32 points then never depend on each other). Built once per pattern
   with what a point's factorization needs of the pattern, so that the numeric factorization reads
   no column indices: for SIP rec (see sip_device.cu) and pub, where each point publishes its
   inverse pivot and upper coefficients for its +x/+y/+z neighbours, also in hyperplane order (a
   warp's neighbours are then consecutive positions: coalesced); for the 27-point kernel info and pub,
   a record of 16 values per point in natural order (inverse pivot, U entries by slot).
*/
typedef struct {
  PetscInt     nplanes;
  PetscInt    *start; /* host, nplanes + 1 */
  int         *order; /* device, start[nplanes] entries */
  int         *rec;   /* device, SIP: 4 ints per position */
  PetscScalar *pub;   /* device, SIP: 4 values per position (4 arrays of start[nplanes]); 27-point ILU(0): 16 per point */
  int         *info;  /* device, 27-point ILU(0): 4 ints per point (natural order), its row's start, the mask of the box's slots and its slots in the sweeps' slabs */
} SFILUPlanes;

/*
   How the GPU generic ILU(0) kernel pairs a row's entries with those of a dependency's U row: by the
   masks of SFILUMatchMap, by a binary search over the lanes, or with the U row broadcast entry by
   entry; auto maps the rows a map can hold and searches or broadcasts the others by the width of the levels.
*/
typedef enum {
  SFILU_FACTOR_MATCH_AUTO,
  SFILU_FACTOR_MATCH_MAP,
  SFILU_FACTOR_MATCH_SEARCH,
  SFILU_FACTOR_MATCH_BROADCAST
} SFILUFactorMatch;
PETSC_INTERN const char *const SFILUFactorMatches[];

/* Whether this choice factors with the match map (where the map holds the row). */
static inline PetscBool SFILUFactorMatchUsesMap(SFILUFactorMatch m)
{
  return (PetscBool)(m == SFILU_FACTOR_MATCH_AUTO || m == SFILU_FACTOR_MATCH_MAP);
}

/*
   For the GPU generic ILU(0) kernel, per L entry (r, c): which positions of row r the update by U(c)
   changes and which entries of U(c) it reads, as two 32-bit masks (relative to the row's first entry
   and to U(c)'s diagonal); both lists are sorted by column, so the k-th set bit of one pairs with the
   k-th of the other; and the offsets in U(c) of the first 16 ranks, 4 bits each (0: not held, the
   offset is then found in the U mask). Built once per pattern, so that a refactorization loads only
   the U(c) values it uses and neither their columns nor searches. Row mask bit 0 (never a position
   updated: it is the row's first L entry) marks an entry the masks cannot hold (row r or U(c) longer
   than 32): its row is factored by search or broadcast.
*/
#define SFILU_MATCH_WORDS 4 /* unsigned words per L entry in the match map */
typedef struct {
  PetscInt  nl;     /* L entries */
  int      *lstart; /* device, n + 1: the first L entry of each row */
  unsigned *masks;  /* device, SFILU_MATCH_WORDS per L entry: {positions in row r, positions in U(c), offsets of ranks 0-7, of ranks 8-15}; {1, 0, 0, 0} where they cannot be held */
} SFILUMatchMap;

/*
   Point-blocks of the GPU generic ILU(0) (ilu0_block_device.cu): with a block size bs > 1 (the
   matrix's, MatGetBlockSize(), or -pc_sfilu_block_size) a warp factors the bs consecutive rows of a
   block together, their dependencies inside the block resolved inside the warp, so that the
   factorization's chain of dependent L2 round trips follows the levels of the block graph instead of
   those of the rows (a 4-field 2-D cavity: 511 instead of 2044). order lists the blocks sorted by the
   levels of the block graph: the engine's (SFPCBlockSweeps, whose sweeps go by the same blocks). Built
   with the first factorization that uses the match map; bs stays 0 where the engine has no blocks or
   the pattern does not fit the kernel's shared memory (why says which), and the rows are then factored
   one by one.

   Blocks whose couplings are dense bs x bs blocks (a DMDA's fields, Q1 elasticity, MATBAIJ-like patterns)
   are factored by ilu0_dense_device.cu instead (dense set): every L entry of a block's rows in point C
   updates the same points, so the match map of the points' pattern (the quotient, one entry a point
   pair: 27 for a 27-point stencil) serves all bs x bs of them, and rows of any length up to the block's
   SFPC_BLOCK_MAX_ENTRIES / bs fit (3-D multi-field stencils, elasticity: 35-81 entries a row). The kernel
   of this file takes the other blocks, of rows of at most 32 entries.
*/
#define SFILU_BLOCK_MAX_ROWS     SFPC_BLOCK_MAX_ROWS
#define SFILU_BLOCK_MAX_ENTRIES  128 /* entries of a block's rows together */
#define SFILU_BLOCK_MAX_LENTRIES 64  /* L entries of a block's rows together */
#define SFILU_BLOCK_MAX_STAGE    512 /* values staged per block from the U rows it depends on outside itself */
#ifndef SFILU_DENSE_MAX_STAGE
  #define SFILU_DENSE_MAX_STAGE 1024 /* dense blocks: U values staged at once (a point's dependencies in groups that fit) */
#endif
#define SFILU_DENSE_MAX_SEGMENTS 512  /* dense blocks: rows of bs x bs U blocks a block stages, all groups together */
typedef struct {
  PetscInt    bs;      /* rows a block; 0: rows one by one */
  PetscInt    nb;      /* blocks */
  PetscInt    nlevels; /* levels of the block graph */
  const int  *order;   /* device, nb: blocks in dispatch order (the engine's) */
  PetscBool   tried;   /* built (or found not to fit) for the current pattern */
  PetscBool   tried_map; /* ... with a match map (-pc_sfilu_factor_match map), which blocks of short rows need */
  PetscInt    epoch;     /* ... against the engine's blocks of this T->blocks_epoch (their order is borrowed) */
  const char *why;     /* why bs is 0 after a try; NULL when blocks are used */
  PetscInt    max_entries, max_lentries, max_stage; /* the largest block's needs */
  PetscBool     dense;     /* factored as dense point-blocks (ilu0_dense_device.cu) */
  const char   *dense_why; /* why not, when tried */
  SFILUMatchMap nodes;     /* dense: the match map of the points' pattern */
} SFILUBlocks;

/*
   ILU(k), k > 0: the factor's pattern is A's with the fill of levels up to k (SFILUFillPattern()), so the
   numeric factorization reads A's values gathered into it: fmap[p] is the entry of A at the factor's
   position p, -1 at the fill (which starts at zero). Built once per pattern, on the side of the factor (host or device).
*/
typedef struct {
  PetscInt     nnz_a;  /* entries of A */
  PetscInt     nnz;    /* entries of the factor */
  PetscInt    *fmap;   /* host factor: position in the factor -> A's entry, -1 at the fill */
  PetscScalar *a;      /* host factor: A's values in the factor's pattern (allocated by the first gather: a map composed into another never holds values) */
  int         *d_fmap; /* device factor: the same two on the device */
  PetscScalar *d_a;
} SFILUFill;

typedef struct {
  /* options */
  MatFactorShiftType shifttype;
  PetscReal          shiftamount;  /* first nonzero shift, relative to the largest row sum of |A| */
  PetscReal          zeropivot;    /* pivot tolerance, relative to the row sum of |A| */
  SFPCTriOptions     engine;      /* GPU: warps per SM, layout and levels of the sweeps */
  PetscInt           fill_levels; /* ILU(k): levels of fill k (0: ILU(0)) */
  PetscBool          sip;         /* Stone's SIP instead of ILU(0) (7-point stencils on a 3-D grid) */
  PetscReal          sip_alpha;   /* SIP's cancellation parameter; 0 is ILU(0) */
  PetscInt           sip_grid[3]; /* -pc_sfilu_sip_grid: the whole grid, x fastest (0: none given) */
  PetscInt           sip_dims[3]; /* the grid of the block the factor is built on (this rank's part on MPI matrices) */
  struct {
    PetscBool valid, box;
    PetscInt  dims[3];
  } guess; /* the grid read from the pattern (box: 7-point or 27-point), kept for new values of the same pattern */
  SFILUSIPVariant    sip_variant; /* GPU factorization schedule */
  PetscBool          built_sip;   /* the factor's pattern was set up (and checked) for SIP */
  PetscBool          grid_factor; /* GPU grid layout: ILU(0) factored by SIP's hyperplane kernel with alpha 0 (SFILUHyperplaneILU0_Device()) */
  PetscBool          built_grid_factor; /* grid_factor when the factor's pattern was set up */
  SFPCLayout         built_layout;      /* engine.layout then (the host path checks a grid layout asked for at set-up) */
  SFILUFactorMatch   factor_match; /* GPU generic ILU(0) kernel: how a row finds its entries in U(c) */
  PetscInt           block_size;   /* GPU generic ILU(0) kernel: rows per point-block (PETSC_DECIDE: the matrix's block size; 1: none) */
  PetscInt           block_rows;   /* the block size the current pattern was set up with */
  PetscBool3         block_sweeps; /* GPU sweeps by the point-blocks: always, never, or (unknown) where they shorten the chain */
  PetscBool3         block_slabs;  /* and their columns from slabs: always, never, or (unknown) where the levels are wide */

  /* the factor, on the host (F) or on the device (T); its pattern and analysis are rebuilt only when A's pattern changes */
  PetscBool     ondevice;
  SFPCTriFactor F;
  SFPCTriDevice T;
  SFILUPlanes    planes; /* GPU SIP, and GPU ILU(0) on the grid layout */
  SFILUMatchMap  map;    /* GPU generic ILU(0), built by its first factorization that uses it */
  SFILUBlocks    blocks; /* GPU generic ILU(0) by point-blocks, built with the map */
  SFILUFill      fill;   /* ILU(k), k > 0: where A's values go in the factor */
  PetscBool      icc;    /* ICC (the solver type behind PCICC): the factor is of A with its lower triangle mirroring the upper (icc_mirror.c) */
  SFILUFill      mirror; /* icc: A's values with the lower triangle's taken from the upper, in A's pattern */
  Vec              root, symwork;  /* the solver type's symmetric application (sfilu_factor.c): ICC's D^{-1/2}, and a work vector */
  PetscObjectState root_state;     /* the factor Mat's state root was made at */
  SFPCMatStamp   stamp;          /* pc->pmat at set-up: the fused products take A as the operator only while it holds */
  PetscInt       built_levels; /* the levels of fill the factor's pattern was built for */
  Vec           xd, yd; /* device stand-ins of host vectors given to a device factor (SFPCStageVecs()) */
  Vec           delta; /* PCApplyRichardson()'s correction (LU)^{-1} r */

  /* PCApplyRichardson() (-ksp_type richardson): residual fused into the GPU grid sweep, and the norm it tests */
  PetscBool3          rich_fused; /* unknown: where it pays (SFILUFusedResidualPays_Device()) */
  SFPCRichardsonNorm rich_norm;
  PetscBool           rich_test; /* the fused loop tests the KSP's tolerances (a solve, the default) or runs its steps (a smoother) */
  PetscBool3          ba_fused; /* PCApplyBAorAB() with PC_LEFT: A x formed inside the same L sweep; unknown: where it pays */

  /* what the last numeric factorization did */
  PetscReal      shift;   /* diagonal shift finally applied */
  PetscInt       nshifts; /* factorizations redone with a larger shift */
  PCFailedReason failure; /* PC_NOERROR, PC_FACTOR_NUMERIC_ZEROPIVOT or PC_FACTOR_OTHER */
  PetscInt       failrow;
  PetscInt       rstart;  /* global row of the block's first (PCSFILU on an MPI matrix; else 0): failures are reported in global rows */
  PetscScalar    failvalue;

  /* Eisenstat's form (-pc_sfilu_eisenstat; include/sfpc/private/eisenstat.h, eisenstat.c) */
  SFPCEisenstat eis;
  PetscBool3    dilu;           /* the pattern's ILU(0) keeps A's off-diagonal entries; unknown: not checked since the pattern was built */
  PetscInt      badrow, badcol; /* where it does not: entry (badrow, badcol) is updated */
} SFILU;

#define SFILU_DEFAULT_SIP_ALPHA 0.92 /* a typical alpha in a public SIP code (shared/notes/seed-000-seveso.md; the thesis gives none) */
PETSC_INTERN PetscErrorCode SFILUComposeAPI(PC, PetscBool);
PETSC_INTERN PetscErrorCode SFILUCheckSIPAlpha(PC, const char *, PetscReal);
PETSC_INTERN PetscErrorCode SFILUInitialize(SFILU *);
PETSC_INTERN PetscErrorCode SFILUReset(SFILU *);
PETSC_INTERN PetscErrorCode SFILUCheckMatrix(Mat, PetscBool *);
PETSC_INTERN PetscErrorCode SFILUSymbolic(SFILU *, Mat, PetscBool);
PETSC_INTERN PetscErrorCode SFILUNumeric(SFILU *, Mat, PetscObject, PetscBool);
PETSC_INTERN PetscErrorCode SFILUApply(SFILU *, Vec, Vec, PetscBool);
PETSC_INTERN PetscErrorCode SFILUSweep(SFILU *, PetscBool, Vec, Vec);
PETSC_INTERN PetscErrorCode SFILUInverseDiagonal(SFILU *, Vec);
PETSC_INTERN PetscErrorCode SFILUInverseDiagonal_Device(SFILU *, Vec);
PETSC_INTERN PetscErrorCode SFILUView(SFILU *, PetscViewer);
PETSC_INTERN PetscErrorCode SFILUSetEngineFromOptions(PetscOptionItems, SFILU *, const char *, const char *);

/* Eisenstat's form (eisenstat.c, eisenstat_device.cu) */
PETSC_INTERN PetscErrorCode PCSFILUEisenstatSetUp(PC);
PETSC_INTERN PetscErrorCode PCSFILUEisenstatReset(PC);
PETSC_INTERN PetscErrorCode PCPreSolveChangeRHS_SFILU(PC, PetscBool *);
PETSC_INTERN PetscErrorCode SFILUDILUForm_Device(SFPCTriDevice, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode SFILUEisenstatDiagonals_Device(SFILU *, Vec, Vec);
PETSC_INTERN PetscErrorCode SFILUEisenstatMultUpper_Device(SFILU *, Vec, Vec);
PETSC_INTERN PetscErrorCode SFILUSweep_Device(SFILU *, PetscBool, Vec, Vec);
PETSC_INTERN PetscErrorCode SFILUEisenstatMult_Device(SFILU *, Vec, Vec);

/* host and device kernels of the numeric factorization */
PETSC_INTERN PetscErrorCode SFILUFillPattern(PetscInt, const PetscInt[], const PetscInt[], PetscInt, PetscInt **, PetscInt **, PetscInt **);
PETSC_INTERN PetscErrorCode SFILUFillCreate_Device(SFILUFill *, const PetscInt[]);
PETSC_INTERN PetscErrorCode SFILUFillValues_Device(SFILUFill *, const PetscScalar *);
PETSC_INTERN PetscErrorCode SFILUFillDestroy_Device(SFILUFill *);
PETSC_INTERN PetscErrorCode SFILUFillCompose_Device(SFILUFill *, const SFILUFill *);
PETSC_INTERN PetscErrorCode SFILUMirrorCreate(SFILU *, Mat, PetscBool);
PETSC_INTERN PetscErrorCode SFILUMirrorCreate_Device(SFILUFill *, Mat, PetscBool *);
PETSC_INTERN PetscErrorCode SFILUFactorNumeric_Host(SFPCTriFactor *, const PetscScalar[], PetscReal, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUCheckSIPGrid(PetscInt, const PetscInt[3]);
PETSC_INTERN PetscErrorCode SFILUCheckSIPPattern(const SFPCTriFactor *, const PetscInt[3], PetscBool);
PETSC_INTERN PetscErrorCode SFILUSIPPatternError(const PetscInt[3], PetscBool, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode SFILUFactorSIP_Host(SFPCTriFactor *, const PetscScalar[], const PetscInt[3], PetscReal, PetscReal, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUShiftBounds_Host(const SFPCTriFactor *, const PetscScalar[], PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode SFILUFactorNumeric_Device(SFPCTriDevice, const SFILUMatchMap *, const PetscScalar *, PetscReal, PetscReal, PetscBool, SFILUFactorMatch, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUMatchMapCreate_Device(SFPCTriDevice, SFILUMatchMap *);
PETSC_INTERN PetscErrorCode SFILUMatchMapCreatePattern_Device(int, const int *, const int *, const int *, int, SFILUMatchMap *);
PETSC_INTERN PetscErrorCode SFILUMatchMapDestroy_Device(SFILUMatchMap *);
PETSC_INTERN PetscErrorCode SFILUBlocksCreate_Device(SFPCTriDevice, SFILUMatchMap *, PetscInt, SFILUBlocks *);
PETSC_INTERN PetscErrorCode SFILUBlocksDestroy_Device(SFILUBlocks *);
PETSC_INTERN PetscErrorCode SFILUFactorBlocks_Device(SFPCTriDevice, const SFILUMatchMap *, const SFILUBlocks *, const PetscScalar *, PetscReal, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUDenseBlocksCreate_Device(SFPCTriDevice, PetscInt, SFILUBlocks *);
PETSC_INTERN PetscErrorCode SFILUBlocksSetSchedule_Device(SFPCTriDevice, SFILUBlocks *);
PETSC_INTERN PetscErrorCode SFILUShiftBounds_Device(SFPCTriDevice, const PetscScalar *, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode SFILUReportBegin_Device(SFPCTriDevice, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUReportEnd_Device(SFPCTriDevice, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUCheckSIPPattern_Device(SFPCTriDevice, const PetscInt[3], PetscBool);
PETSC_INTERN PetscErrorCode SFILUSIPPlanesCreate_Device(SFPCTriDevice, const PetscInt[3], SFILUPlanes *);
PETSC_INTERN PetscErrorCode SFILUPlanesDestroy_Device(SFILUPlanes *);
PETSC_INTERN PetscErrorCode SFILUFactorSIP_Device(SFPCTriDevice, const SFILUPlanes *, const PetscScalar *, PetscReal, SFILUSIPVariant, PetscReal, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUBoxPlanesCreate_Device(SFPCTriDevice, SFILUPlanes *);
PETSC_INTERN PetscErrorCode SFILUFactorBox_Device(SFPCTriDevice, const SFILUPlanes *, const PetscScalar *, PetscReal, PetscReal, PetscBool, SFILUResult *);

/* the device side of SFILU (sfilu_device.c; refusing stubs in a build without CUDA) */
PETSC_INTERN PetscErrorCode SFILUSymbolic_Device(SFILU *, Mat, const PetscInt[], const PetscInt[]);
PETSC_INTERN PetscErrorCode SFILUGridGuess_Device(Mat, PetscBool, PetscInt[3]);
PETSC_INTERN PetscErrorCode SFILUGridFromPattern(Mat, PetscBool, PetscBool, PetscInt[3]);
PETSC_INTERN PetscErrorCode SFILUGetValues_Device(SFILU *, Mat, const PetscScalar **);
PETSC_INTERN PetscErrorCode SFILURestoreValues_Device(Mat, const PetscScalar **);
PETSC_INTERN PetscErrorCode SFILUAttempt_Device(SFILU *, const PetscScalar *, PetscReal, PetscBool, SFILUResult *);
PETSC_INTERN PetscErrorCode SFILUBounds_Device(SFILU *, const PetscScalar *, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode SFILUView_Device(SFILU *, PetscViewer);
PETSC_INTERN PetscErrorCode SFILUApply_Device(SFILU *, Vec, Vec, PetscBool);
PETSC_INTERN PetscBool      SFILUHyperplaneILU0_Device(SFILU *);
PETSC_INTERN PetscBool      SFILUHasFusedResidual_Device(SFILU *);
PETSC_INTERN PetscBool      SFILUFusedResidualPays_Device(SFILU *, PetscBool);
PETSC_INTERN PetscErrorCode SFILUResidualApply_Device(SFILU *, Mat, PetscBool, Vec, Vec, Vec, Vec, NormType, PetscReal *);
PETSC_INTERN PetscErrorCode SFILUReset_Device(SFILU *);
PETSC_INTERN PetscErrorCode SFILUCopyFactorToHost_Device(SFILU *, PetscScalar *);

