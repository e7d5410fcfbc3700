/*
   SFPC: synchronization-free preconditioners for PETSc.

   Load into any PETSc program with -dll_append <prefix>/lib/libsfpc.so (command line,
   PETSC_OPTIONS or .petscrc), or link libsfpc and call SFPCInitializePackage() after
   PetscInitialize(). Then the types below can be selected by name, e.g. -pc_type sfilu.
*/
#pragma once

#include <petscksp.h>

#define SFPC_VERSION_MAJOR 0
#define SFPC_VERSION_MINOR 1
#define SFPC_VERSION_PATCH 0

/*J
   PCSFILU - "sfilu": ILU(0), or ILU(k) with levels of fill, in the natural ordering, built for
   synchronization-free factorization and triangular solves.

   Options:
+  -pc_sfilu_fill_levels <0> - ILU(k): the pattern with the fill of levels up to k (built on the host once
                             per pattern), factored on the GPU on an aijcusparse matrix; see PCFactorSetLevels()
.  -pc_sfilu_shift_type <none,nonzero,positive_definite> - what to do with a zero (or, for
                             positive_definite, nonpositive) pivot; see PCFactorSetShiftType()
.  -pc_sfilu_shift_amount <a> - first diagonal shift tried by the nonzero shift, relative to
                             the largest row sum of |A|
-  -pc_sfilu_zeropivot <tol>  - a pivot is zero when |u_ii| <= tol * (sum_j |a_ij|)

   The PCFactorSetLevels(), PCFactorSetShiftType(), PCFactorSetShiftAmount() and PCFactorSetZeroPivot()
   calls work on it as on PCILU.
J*/
#define PCSFILU "sfilu"
PETSC_EXTERN PetscErrorCode PCSFILUSetSIP(PC, PetscBool, PetscReal);
PETSC_EXTERN PetscErrorCode PCSFILUGetSIP(PC, PetscBool *, PetscReal *);
PETSC_EXTERN PetscErrorCode PCSFILUSetGrid(PC, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode PCSFILUGetGrid(PC, PetscInt *, PetscInt *, PetscInt *);

/*J
   PCSFDILU - "sfdilu": multicolor DILU, a preconditioner and a multigrid level smoother
   (-mg_levels_pc_type sfdilu), on the host (MATSEQAIJ) and on the GPU (MATSEQAIJCUSPARSE), and
   on the diagonal block of MATMPIAIJ/MATMPIAIJCUSPARSE. See the PCSFDILU manual page for options.
J*/
#define PCSFDILU "sfdilu"

/*E
   PCSFDILUColoringType - how PCSFDILU colors the symmetrized pattern of the matrix

$  PCSFDILU_COLORING_AUTO   - above 2^14 rows grid where a grid is known and its colors are proper; else greedy
                              for a host matrix, and for a GPU matrix jpl, or greedy (host, from a copy of the
                              pattern) at up to 2^14 rows, where a sweep's time is its number of colors
$  PCSFDILU_COLORING_GREEDY - greedy in natural order, on the host (fewest colors, sequential)
$  PCSFDILU_COLORING_JPL    - Jones-Plassmann-Luby with min/max hash rounds (two colors per round), on the
                              device for a GPU matrix; the host computes the same coloring bit for bit
$  PCSFDILU_COLORING_GRID   - for a structured grid: point (i, j, k), field f of dof, takes color
                              f + dof (i mod m + m (j mod m + m (k mod m))), m = -pc_sfdilu_grid_modulus; the grid from
                              a DMDA attached to the PC, or read from a 7- or 27-point pattern (or a 2-D 5- or 9-point
                              one) of one field in natural order

   Set with PCSFDILUSetColoringType() or -pc_sfdilu_coloring; PCSFDILUGetColoringType() returns it.

   Level: intermediate
E*/
typedef enum {
  PCSFDILU_COLORING_AUTO,
  PCSFDILU_COLORING_GREEDY,
  PCSFDILU_COLORING_JPL,
  PCSFDILU_COLORING_GRID
} PCSFDILUColoringType;
PETSC_EXTERN const char *const PCSFDILUColoringTypes[];

/*E
   PCSFDILUSweepType - how the GPU PCSFDILU runs its two sweeps

$  PCSFDILU_SWEEP_AUTO     - parts where they fit and a block gets at least 256 rows and 8192 entries of the
                             matrix; otherwise syncfree, except in color
                             order (PCSFDILU_ORDER_COLOR asked for) with a vector over 40% of the GPU's L2, where each
                             color's pass reads its neighbours from DRAM; then percolor
$  PCSFDILU_SWEEP_SYNCFREE - one sync-free kernel per sweep, colors as dependency levels (the engine's solves)
$  PCSFDILU_SWEEP_PERCOLOR - one launch per color and sweep, the classic multicolor smoother
$  PCSFDILU_SWEEP_PARTS    - one kernel for the whole apply: each thread block owns a range of consecutive rows, keeps
                             their unknowns in shared memory and goes through its colors in order; rows read from other
                             blocks are waited for sync-free (the engine's solves by parts). For matrices whose rows
                             couple mostly with nearby rows (grids in natural order); up to about 25000 rows per SM.
                             Where a grid is known (a DMDA attached to the PC, or a 7- or 27-point pattern in natural
                             order) and there are at least 8 colors, the blocks own boxes of the grid instead

   Set with PCSFDILUSetSweepType() or -pc_sfdilu_sweep; PCSFDILUGetSweepType() returns it.

   Level: intermediate
E*/
typedef enum {
  PCSFDILU_SWEEP_AUTO,
  PCSFDILU_SWEEP_SYNCFREE,
  PCSFDILU_SWEEP_PERCOLOR,
  PCSFDILU_SWEEP_PARTS
} PCSFDILUSweepType;
PETSC_EXTERN const char *const PCSFDILUSweepTypes[];

/*E
   PCSFDILUOrderType - the order of the rows in the GPU PCSFDILU's sync-free sweeps

$  PCSFDILU_ORDER_AUTO  - local where a vector of the matrix's size exceeds 40% of the GPU's L2 cache, else color
$  PCSFDILU_ORDER_COLOR - rows sorted by (color, row): a color's pass reads its neighbours across the whole vector
$  PCSFDILU_ORDER_LOCAL - rows sorted by windows of row + color * D (D a few times the matrix's bandwidth), then
                          color: a row's lower-colored neighbours are at most a few windows back, and the sweeps
                          run window by window, so the unknowns they read stay in L2 (sync-free sweeps only)

   Set with PCSFDILUSetOrderType() or -pc_sfdilu_order; PCSFDILUGetOrderType() returns it.

   Level: advanced
E*/
typedef enum {
  PCSFDILU_ORDER_AUTO,
  PCSFDILU_ORDER_COLOR,
  PCSFDILU_ORDER_LOCAL
} PCSFDILUOrderType;
PETSC_EXTERN const char *const PCSFDILUOrderTypes[];

PETSC_EXTERN PetscErrorCode PCSFDILUGetColoring(PC, PetscInt *, const PetscInt *[]);
PETSC_EXTERN PetscErrorCode PCSFDILUSetColoringType(PC, PCSFDILUColoringType);
PETSC_EXTERN PetscErrorCode PCSFDILUGetColoringType(PC, PCSFDILUColoringType *);
PETSC_EXTERN PetscErrorCode PCSFDILUSetSweepType(PC, PCSFDILUSweepType);
PETSC_EXTERN PetscErrorCode PCSFDILUGetSweepType(PC, PCSFDILUSweepType *);
PETSC_EXTERN PetscErrorCode PCSFDILUSetOrderType(PC, PCSFDILUOrderType);
PETSC_EXTERN PetscErrorCode PCSFDILUGetOrderType(PC, PCSFDILUOrderType *);
PETSC_EXTERN PetscErrorCode PCSFDILUSetBlocks(PC, PetscBool3);
PETSC_EXTERN PetscErrorCode PCSFDILUGetBlocks(PC, PetscBool3 *);

/*J
   PCAFSAI - "afsai": adaptive FSAI for SPD matrices, M^{-1} = G^T G with G lower triangular, its pattern
   grown per row along the gradient of the Kaporin number; a preconditioner and a multigrid level smoother
   (-mg_levels_pc_type afsai). Options: -pc_afsai_steps <10>, -pc_afsai_step_size <1>, -pc_afsai_tol <1e-3>,
   -pc_afsai_max_nnz_row, -pc_afsai_filter <0>, -pc_afsai_omega (Richardson weight, automatic by default),
   -pc_afsai_reuse_pattern <true>, -pc_afsai_setup <device> (host: the host reference's set-up), -pc_afsai_gather <0>. On MATSEQAIJCUSPARSE the set-up
   (pattern search and values) and the apply run on the GPU; on MATSEQAIJ everything runs on the host.
J*/
#define PCAFSAI "afsai"

/*J
   MATSOLVERSFILU - "sfilu": the same ILU(k) factor as PCSFILU, for PCILU:
   -pc_type ilu -pc_factor_mat_solver_type sfilu [-pc_factor_levels k], or -sub_pc_factor_mat_solver_type sfilu
   under PCBJACOBI/PCASM. Works on MATSEQAIJ (host) and MATSEQAIJCUSPARSE (GPU: for k > 0 too, where PETSc's
   own cusparse solver factors on the host). Also for PCICC (-pc_type icc -pc_factor_mat_solver_type sfilu):
   the ILU(k) of A with its lower triangle mirroring the upper one, which on a symmetric matrix is ICC(k)'s
   preconditioner (the upper triangle is what PETSc's host ICC reads; its aijcusparse ICC(0) reads the lower);
   the pattern must be structurally symmetric.

   Options (the PC's prefix, read at each symbolic factorization): PCSFILU's GPU engine options as -mat_sfilu_layout,
   -mat_sfilu_levels, -mat_sfilu_warps_per_sm, -mat_sfilu_grid_chunk, -mat_sfilu_grid_planes, -mat_sfilu_grid_factor,
   -mat_sfilu_factor_match, -mat_sfilu_block_size, -mat_sfilu_block_sweeps, -mat_sfilu_block_slabs (see PCSFILU);
   e.g. -sub_mat_sfilu_layout hyb under PCBJACOBI. Shifts, zero pivot and levels of fill are PCFactor's.
J*/
#define MATSOLVERSFILU "sfilu"

/*J
   MATHYBSF - "hybsf": one triangle (lower or upper, unit or non-unit diagonal) of a sparse square
   matrix, stored for synchronization-free triangular solves: MatSolve() computes x = T^{-1} b.
   On the GPU (built from MATSEQAIJCUSPARSE) the analysis and the solves run on the device; built
   from MATSEQAIJ it solves on the host with the same arithmetic (the reference of the GPU path).

   Layouts: csr (the triangle's CSR, rows dispatched in level order) and hyb (the hybrid sync-free
   layout: per warp task a slab of 32 lane-contiguous column/value slots, rows longer than 32 entries
   continuing in the CSR) and grid (7-point or 27-point patterns on a known 3-D grid, MatHYBSFSetGrid(): one warp per line
   of 32 (27-point: 30) grid lines, the x dependency in registers and the y one in a shuffle). Levels: asap (earliest level a row can run at) and alap (latest level that
   delays no row depending on it). auto: the grid layout where a grid is known and the pattern fits it, else hyb
   unless that takes more than 3x the triangle's CSR memory (then csr); levels asap.

   Options (prefix of the source matrix, read by MatConvert()):
+  -mat_hybsf_triangle <lower,upper> - which triangle of the source matrix, diagonal included (default lower)
.  -mat_hybsf_unit_diagonal <bool>   - the diagonal is 1: stored diagonal entries are ignored and may be absent
.  -mat_hybsf_layout <auto,csr,hyb,grid> - storage of the off-diagonal entries on the GPU (grid needs -mat_hybsf_grid)
.  -mat_hybsf_grid <nx,ny,nz>        - the rows are this grid's points, x fastest: the grid layout
-  -mat_hybsf_levels <auto,asap,alap> - dependency levels that order the rows

   Create with MatCreateHYBSF() or MatConvert(A, MATHYBSF, MAT_INITIAL_MATRIX, &T); MatConvert() with
   MAT_REUSE_MATRIX and a matrix of the same pattern refills the values and keeps the analysis.
J*/
#define MATHYBSF "hybsf"

typedef enum {
  MAT_HYBSF_LOWER,
  MAT_HYBSF_UPPER
} MatHYBSFTriangle;
PETSC_EXTERN const char *const MatHYBSFTriangles[];

typedef enum {
  SFPC_LAYOUT_AUTO,
  SFPC_LAYOUT_CSR,
  SFPC_LAYOUT_HYB,
  SFPC_LAYOUT_GRID
} SFPCLayout;
PETSC_EXTERN const char *const SFPCLayouts[];

typedef enum {
  SFPC_LEVELS_AUTO,
  SFPC_LEVELS_ASAP,
  SFPC_LEVELS_ALAP
} SFPCLevels;
PETSC_EXTERN const char *const SFPCLevelsTypes[];

/* What a MATHYBSF matrix chose and holds. */
typedef struct {
  SFPCLayout     layout;    /* csr, hyb or grid: what auto resolved to */
  SFPCLevels     levels;    /* asap or alap */
  PetscInt       nlevels;   /* dependency levels of the triangle; 0 where the grid layout was chosen at creation (no levels computed) */
  PetscInt       ntasks;    /* warp tasks of a sweep (grid layout: warp lines of the walk) */
  PetscInt       nnz;       /* stored off-diagonal entries */
  PetscInt       block_size; /* rows of the point-blocks the GPU sweep goes by, a warp a block (1: row by row) */
  PetscLogDouble bytes;     /* device (or host) memory of the matrix and its analysis */
  PetscLogDouble csr_bytes; /* the same triangle in CSR (row offsets, columns, values) */
  PetscBool      ondevice;
} MatHYBSFInfo;

PETSC_EXTERN PetscErrorCode MatCreateHYBSF(Mat, MatHYBSFTriangle, PetscBool, SFPCLayout, SFPCLevels, Mat *);
PETSC_EXTERN PetscErrorCode MatHYBSFGetInfo(Mat, MatHYBSFInfo *);
PETSC_EXTERN PetscErrorCode MatHYBSFSetGrid(Mat, PetscInt, PetscInt, PetscInt);

PETSC_EXTERN PetscErrorCode PCAFSAIGetFactor(PC, Mat *);
PETSC_EXTERN PetscErrorCode PCAFSAISetSearch(PC, PetscInt, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode PCAFSAIGetSearch(PC, PetscInt *, PetscInt *, PetscReal *);

PETSC_EXTERN PetscErrorCode SFPCInitializePackage(void);
PETSC_EXTERN PetscErrorCode SFPCFinalizePackage(void);
PETSC_EXTERN PetscErrorCode SFPCDeviceView(PetscViewer);

/* The SIP papers' stopping test: the 1-norm of b - A x relative to the first (src/ksp/residual1norm.c). */
PETSC_EXTERN KSPConvergenceTestFn SFPCKSPConvergedResidual1Norm;
PETSC_EXTERN PetscErrorCode       SFPCKSPSetConvergedResidual1Norm(KSP);
PETSC_EXTERN PetscErrorCode       SFPCKSPGetResidual1Norms(KSP, PetscInt *, const PetscReal *[]);
