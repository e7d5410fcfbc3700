/*
   Matrices for SFPC's tests and benchmarks, chosen by options:
     -problem poisson7|poisson27|anisotropic|convdiff|cavity|jumps|elasticity|fields|random|file
     -n <N>            grid points per direction (N^3 unknowns); elasticity: hexahedra per direction
                       (3 N (N+1)^2 unknowns)
     -aniso <eps>      anisotropic diffusion coefficient in z (anisotropic)
     -jump <k>         jumps: the coefficient of the black cubes of the checkerboard (1 on the white ones)
     -jump_cubes <c>   jumps: cubes of the checkerboard per direction
     -young <E>, -poisson_ratio <nu>
                       elasticity: Young's modulus and Poisson's ratio of the isotropic material
     -peclet <Pe>      cell Peclet number of the upwinded convection (convdiff: uniform flow along
                       (1,1,1); cavity: the largest of a rotating, lid-driven-cavity-like flow)
     -f <file>         Matrix Market file (.mtx, or .mtx.gz gzip-compressed), or a PETSc binary
                       matrix (any other name), e.g. a Jacobian saved by -ksp_view_mat binary:<file>
     -permute <seed>   apply a random symmetric permutation, destroying the structure
     -hub <k>          couple unknown 0 with every k-th unknown, nonsymmetrically (before -permute): a
                       long row and column, so that short rows depend on a row with a long U part
                       while their neighbours do not (rows of both kinds share a warp on the GPU)
     -zslabs           on several ranks, give each rank whole z-planes of the grid (SIP's block per rank
                       then is a grid; the default splits rows evenly)
     -boxes            (poisson7, poisson27, anisotropic, convdiff) on several ranks, give each rank the box of the
                       grid a 3-D DMDA would (PETSc's process grid), its rows numbered x fastest within the box and
                       rank after rank, as a DMDA's matrix is: less surface between ranks than z-slabs
     -box_split a,b,c  (the same problems, one rank) number the grid by a x b x c boxes of even sizes, box after box,
                       x fastest within a box (bench/README.md, sfdilu, "Parts as boxes of the grid")
     -dof <d>          fields: unknowns per grid point (default 4)
     -dim 2|3          fields: an N x N (default) or N x N x N grid
     -random_seed <s>, -random_spd, -random_dominance <d>, -random_scale_decades <k>, -random_block <b>
                       random (N^3 rows, no structure; RandomAssemble() below): the seed of its pattern and values,
                       symmetric positive definite (d > 1) instead of nonsymmetric, the diagonal's dominance over its
                       row (default 1.1; below 1, small and negative pivots), log10 of the spread of a symmetric
                       diagonal scaling D A D (default 0), and point-blocks: N^3 block rows, each entry of the
                       pattern a dense b x b block, block size b (default 1)
   Stencils are scaled by h^2 so entries are O(1) (elasticity's element matrices by 1/h, entries O(E)).
   The matrix type comes from -mat_type. The SPD problems beyond Poisson:
     jumps       -div(k grad u) = f, 7-point, k piecewise constant on a checkerboard of c^3 cubes (1 and
                 the jump alternate; cubes of one colour meet at edges and corners, the hard case for
                 coefficient jumps), face coefficients the harmonic mean of the two points' k, Dirichlet
                 boundary eliminated (a boundary face takes the point's own k): SPD, exactly symmetric.
     elasticity  3-D linear elasticity, trilinear (Q1) hexahedra on the unit cube, N^3 elements, 3 dof
                 per node interlaced (block size 3), the face x = 0 clamped (its nodes eliminated): SPD,
                 exactly symmetric; the rigid body modes are attached as near null space (for GAMG), as
                 PETSc's KSP ex56 does (-permute drops them).
   And one with several fields per point:
     fields      N x N (or N^3) grid, d fields per point interlaced (block size d), every unknown coupled to all
                 fields of its point and of its 4 (6) neighbours (in 2-D the pattern of SNES ex19's Jacobian,
                 d = 4), per field upwinded convection-diffusion along (1, 2, 3) plus nonsymmetric couplings
                 between fields.
*/
#include "problems.h"

/*
   Global row numbers of the points of an N^3 grid: natural (x fastest), or by boxes as a 3-D DMDA splits the grid over
   the ranks (-boxes): rank after rank in the DMDA's rank order (x fastest over its m x n x p process grid), x fastest
   within a box. Per direction the owning box's index of every coordinate and the boxes' starts; per rank the first row.
*/
typedef struct {
  PetscInt  N, m[3];        /* m: boxes per direction (1 1 1: natural numbering) */
  PetscInt *owner[3];       /* owner[d][c]: the box index along d of coordinate c */
  PetscInt *start[3];       /* start[d][b]: the first coordinate of box b along d (b = 0..m[d]) */
  PetscInt *first;          /* first[r]: the first row of rank r's box */
} GridNumbering;

static PetscErrorCode GridNumberingCreate(MPI_Comm comm, PetscInt N, PetscBool boxes, GridNumbering *g)
{
  const PetscInt *l[3] = {NULL, NULL, NULL};
  DM              da = NULL;
  PetscInt        split[3] = {1, 1, 1}, nsplit = 3, *even[3] = {NULL, NULL, NULL};
  PetscBool       bysplit = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof(*g)));
  g->N = N, g->m[0] = g->m[1] = g->m[2] = 1;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-box_split", split, &nsplit, &bysplit));
  if (bysplit && !boxes) { /* one rank's grid numbered by a x b x c boxes of even sizes (the solves by parts' experiments) */
    PetscCheck(nsplit == 3, comm, PETSC_ERR_ARG_WRONG, "-box_split takes 3 box counts");
    for (int d = 0; d < 3; d++) {
      PetscCheck(split[d] >= 1 && split[d] <= N, comm, PETSC_ERR_ARG_OUTOFRANGE, "-box_split: %" PetscInt_FMT " boxes along a side of %" PetscInt_FMT, split[d], N);
      PetscCall(PetscMalloc1(split[d], &even[d]));
      for (PetscInt b = 0; b < split[d]; b++) even[d][b] = N / split[d] + (b < N % split[d]);
      g->m[d] = split[d], l[d] = even[d];
    }
  }
  if (boxes) {
    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, N, N, N, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(DMDAGetInfo(da, NULL, NULL, NULL, NULL, &g->m[0], &g->m[1], &g->m[2], NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMDAGetOwnershipRanges(da, &l[0], &l[1], &l[2]));
  }
  for (int d = 0; d < 3; d++) {
    PetscCall(PetscMalloc2(N, &g->owner[d], g->m[d] + 1, &g->start[d]));
    g->start[d][0] = 0;
    for (PetscInt b = 0; b < g->m[d]; b++) g->start[d][b + 1] = g->start[d][b] + (l[d] ? l[d][b] : N);
    for (PetscInt b = 0; b < g->m[d]; b++)
      for (PetscInt c = g->start[d][b]; c < g->start[d][b + 1]; c++) g->owner[d][c] = b;
  }
  PetscCall(PetscMalloc1(g->m[0] * g->m[1] * g->m[2] + 1, &g->first));
  g->first[0] = 0;
  for (PetscInt bk = 0, r = 0; bk < g->m[2]; bk++)
    for (PetscInt bj = 0; bj < g->m[1]; bj++)
      for (PetscInt bi = 0; bi < g->m[0]; bi++, r++) g->first[r + 1] = g->first[r] + (g->start[0][bi + 1] - g->start[0][bi]) * (g->start[1][bj + 1] - g->start[1][bj]) * (g->start[2][bk + 1] - g->start[2][bk]);
  PetscCall(DMDestroy(&da));
  for (int d = 0; d < 3; d++) PetscCall(PetscFree(even[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GridNumberingDestroy(GridNumbering *g)
{
  PetscFunctionBegin;
  for (int d = 0; d < 3; d++) PetscCall(PetscFree2(g->owner[d], g->start[d]));
  PetscCall(PetscFree(g->first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row of grid point (i, j, k). */
static inline PetscInt GridRow(const GridNumbering *g, PetscInt i, PetscInt j, PetscInt k)
{
  const PetscInt bi = g->owner[0][i], bj = g->owner[1][j], bk = g->owner[2][k];
  const PetscInt nx = g->start[0][bi + 1] - g->start[0][bi], ny = g->start[1][bj + 1] - g->start[1][bj];

  return g->first[bi + g->m[0] * (bj + g->m[1] * bk)] + (i - g->start[0][bi]) + nx * ((j - g->start[1][bj]) + ny * (k - g->start[2][bk]));
}

/* The box holding row: the last whose first row is at most row (by bisection: -box_split asks it of every row). */
static PetscInt GridBox(const GridNumbering *g, PetscInt row)
{
  PetscInt lo = 0, hi = g->m[0] * g->m[1] * g->m[2]; /* first[lo] <= row < first[hi] */

  while (hi - lo > 1) {
    const PetscInt mid = (lo + hi) / 2;
    if (g->first[mid] <= row) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The grid point of a row of box r. */
static inline void GridPoint(const GridNumbering *g, PetscInt r, PetscInt row, PetscInt *i, PetscInt *j, PetscInt *k)
{
  const PetscInt bi = r % g->m[0], bj = (r / g->m[0]) % g->m[1], bk = r / (g->m[0] * g->m[1]);
  const PetscInt nx = g->start[0][bi + 1] - g->start[0][bi], ny = g->start[1][bj + 1] - g->start[1][bj], l = row - g->first[r];

  *i = g->start[0][bi] + l % nx, *j = g->start[1][bj] + (l / nx) % ny, *k = g->start[2][bk] + l / (nx * ny);
}

static PetscErrorCode StencilAssemble(Mat A, const GridNumbering *g, const char *problem, PetscReal aniso, PetscReal pe)
{
  const PetscInt N = g->N;
  PetscInt       rstart, rend;
  PetscBool      p27, cd;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(problem, "poisson27", &p27));
  PetscCall(PetscStrcmp(problem, "convdiff", &cd));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt    i, j, k, cols[27], nc = 0;
    PetscScalar vals[27];

    GridPoint(g, GridBox(g, row), row, &i, &j, &k); /* a rank's rows lie in one box, or in several of -box_split */
    for (PetscInt dk = -1; dk <= 1; dk++)
      for (PetscInt dj = -1; dj <= 1; dj++)
        for (PetscInt di = -1; di <= 1; di++) {
          const PetscInt dist = PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk);
          PetscScalar    v;

          if (i + di < 0 || i + di >= N || j + dj < 0 || j + dj >= N || k + dk < 0 || k + dk >= N) continue;
          if (p27) v = dist == 0 ? 26.0 : -1.0;
          else if (dist > 1) continue;
          else if (dist == 0) v = cd ? 6.0 + 2.0 * pe * 3 : (aniso != 1.0 ? 4.0 + 2.0 * aniso : 6.0);
          else if (dk != 0) v = -aniso;
          else v = -1.0;
          /* first-order upwinding of a flow along (1,1,1): the upstream neighbour takes the convection */
          if (cd && dist == 1 && di + dj + dk < 0) v -= 2.0 * pe;
          cols[nc]   = GridRow(g, i + di, j + dj, k + dk);
          vals[nc++] = v;
        }
    PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cavity-like velocity field at (x, y, z) in the unit cube, scaled by scale: a vortex in x-y and a z component, zero on the walls' normals. */
void TestCavityVelocity(PetscReal scale, PetscReal x, PetscReal y, PetscReal z, PetscReal v[3])
{
  v[0] = scale * PetscSinReal(PETSC_PI * x) * PetscCosReal(PETSC_PI * y);
  v[1] = -scale * PetscCosReal(PETSC_PI * x) * PetscSinReal(PETSC_PI * y);
  v[2] = 0.5 * scale * PetscSinReal(PETSC_PI * z);
}

/*
   The cavity-like convection-diffusion of TestCavityVelocity() on a 3-D DMDA (one dof, star stencil):
   -div grad u + v . grad u on the unit cube, first-order upwind, outside neighbours dropped, every
   entry times scale. With dirichlet, the points on the faces (of sides longer than 2) are rows of
   scale alone; the row of grid point zero (x fastest; -1: none) is stored as zeros (a zero pivot).
*/
PetscErrorCode TestAssembleCavityDMDA(DM da, PetscReal peclet, PetscBool dirichlet, PetscReal scale, PetscInt zero, Mat A)
{
  PetscInt    nx, ny, nz, xs, ys, zs, xm, ym, zm;
  MatStencil  row, col[7];
  PetscScalar val[7];

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, NULL, &nx, &ny, &nz, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscReal h[3] = {1.0 / (nx + 1), 1.0 / (ny + 1), 1.0 / (nz + 1)};
        const PetscInt  at[3] = {i, j, k}, size[3] = {nx, ny, nz};
        PetscReal       v[3];
        PetscInt        m    = 0;
        PetscScalar     diag = 0;
        PetscBool       edge = PETSC_FALSE;

        for (int d = 0; d < 3; d++) edge = (PetscBool)(edge || (size[d] > 2 && (at[d] == 0 || at[d] == size[d] - 1)));
        row.i = i, row.j = j, row.k = k, row.c = 0;
        if (dirichlet && edge) {
          val[0] = scale;
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, val, INSERT_VALUES));
          continue;
        }
        TestCavityVelocity(peclet, (i + 1) * h[0], (j + 1) * h[1], (k + 1) * h[2], v);
        for (int d = 0; d < 3; d++) {
          const PetscReal dl = 1.0 / (h[d] * h[d]) + PetscMax(v[d], 0) / h[d], du = 1.0 / (h[d] * h[d]) - PetscMin(v[d], 0) / h[d];
          diag += dl + du;
          for (int side = -1; side <= 1; side += 2) {
            if (at[d] + side < 0 || at[d] + side >= size[d]) continue;
            col[m] = row;
            if (d == 0) col[m].i += side;
            if (d == 1) col[m].j += side;
            if (d == 2) col[m].k += side;
            val[m++] = scale * (side < 0 ? -dl : -du);
          }
        }
        col[m]   = row;
        val[m++] = scale * diag;
        if (i + nx * (j + ny * k) == zero)
          for (PetscInt q = 0; q < m; q++) val[q] = 0;
        PetscCall(MatSetValuesStencil(A, 1, &row, m, col, val, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 7-point upwinded convection-diffusion (times h^2) of the cavity field with cell Peclet number pe at its fastest, Dirichlet walls. */
static PetscErrorCode CavityAssemble(Mat A, PetscInt N, PetscReal pe)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt at[3] = {row % N, (row / N) % N, row / (N * N)}, stride[3] = {1, N, N * N};
    const PetscReal h = 1.0 / (N + 1);
    PetscReal      v[3];
    PetscInt       cols[7], nc = 0;
    PetscScalar    vals[7], diag = 0;

    TestCavityVelocity(pe, (at[0] + 1) * h, (at[1] + 1) * h, (at[2] + 1) * h, v);
    for (int d = 0; d < 3; d++) {
      const PetscReal dl = 1.0 + PetscMax(v[d], 0), du = 1.0 - PetscMin(v[d], 0); /* upwind: the upstream side carries the flow */
      diag += dl + du;
      if (at[d] > 0) cols[nc] = row - stride[d], vals[nc++] = -dl;
      if (at[d] < N - 1) cols[nc] = row + stride[d], vals[nc++] = -du;
    }
    cols[nc] = row, vals[nc++] = diag;
    PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A value in [-1, 1] that depends on (i, j) only: the fields problem's couplings, not symmetric. */
static PetscReal FieldsWeight(PetscInt i, PetscInt j)
{
  unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)j + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBULL;
  h ^= h >> 29;
  return (PetscReal)(h >> 11) / (PetscReal)(1ULL << 53) * 2.0 - 1.0;
}

/*
   dof fields per point of an N^dim grid (dim 2 or 3), interlaced (block size dof), in 2-D the pattern of SNES
   ex19's Jacobian: each unknown coupled to every field of its point and of its 2 dim neighbours. Per field an
   upwinded convection-diffusion with cell Peclet number pe along (1, 2, 3), plus couplings between fields of 0.3
   times FieldsWeight() (nonsymmetric).
*/
static PetscErrorCode FieldsAssemble(Mat A, PetscInt N, PetscInt dim, PetscInt dof, PetscReal pe)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt  f = row % dof, point = row / dof, at[3] = {point % N, point / N % N, point / (N * N)}, stride[3] = {dof, dof * N, dof * N * N};
    const PetscReal v[3] = {pe, 2 * pe, 3 * pe};
    PetscInt        cols[7 * 32], nc = 0;
    PetscScalar     vals[7 * 32], diag = 2 * dim;

    for (int d = 0; d < dim; d++) diag += v[d];
    for (int d = (int)dim - 1; d >= 0; d--) /* columns ascending: -z, -y, -x, the point, +x, +y, +z */
      if (at[d] > 0)
        for (PetscInt g = 0; g < dof; g++) cols[nc] = row - f + g - stride[d], vals[nc++] = (g == f ? -(1.0 + PetscMax(v[d], 0)) : 0) + 0.3 * FieldsWeight(row, row - f + g - stride[d]);
    for (PetscInt g = 0; g < dof; g++) cols[nc] = row - f + g, vals[nc++] = g == f ? diag : 0.3 * FieldsWeight(row, row - f + g);
    for (int d = 0; d < dim; d++)
      if (at[d] < N - 1)
        for (PetscInt g = 0; g < dof; g++) cols[nc] = row - f + g + stride[d], vals[nc++] = (g == f ? -(1.0 - PetscMin(v[d], 0)) : 0) + 0.3 * FieldsWeight(row, row - f + g + stride[d]);
    PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* k at grid point (i, j, k) of the jumps problem: 1 or jump on a checkerboard of cubes^3 cubes (outside points: clamped). */
static PetscReal JumpCoefficient(const PetscInt at[3], PetscInt N, PetscInt cubes, PetscReal jump)
{
  PetscInt parity = 0;

  for (int d = 0; d < 3; d++) parity += (PetscClipInterval(at[d], 0, N - 1) * cubes) / N;
  return parity % 2 ? jump : 1.0;
}

/* -div(k grad u), 7-point, times h^2; face coefficients 2 k_p k_q / (k_p + k_q) (symmetric to the bit: the mean commutes). */
static PetscErrorCode JumpsAssemble(Mat A, PetscInt N, PetscInt cubes, PetscReal jump)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt  at[3] = {row % N, (row / N) % N, row / (N * N)}, stride[3] = {1, N, N * N};
    const PetscReal kp    = JumpCoefficient(at, N, cubes, jump);
    PetscInt        cols[7], nc = 0;
    PetscScalar     vals[7], diag = 0;

    for (int d = 0; d < 3; d++)
      for (int side = -1; side <= 1; side += 2) {
        PetscInt        nb[3] = {at[0], at[1], at[2]};
        const PetscReal kq    = (nb[d] += side, JumpCoefficient(nb, N, cubes, jump));
        const PetscReal kf    = 2 * kp * kq / (kp + kq);

        diag += kf;
        if (nb[d] >= 0 && nb[d] < N) cols[nc] = row + side * stride[d], vals[nc++] = -kf;
      }
    cols[nc] = row, vals[nc++] = diag;
    PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The 24 x 24 stiffness matrix of a trilinear hexahedron, the unit cube, isotropic (Lame lambda, mu), by 2 x 2 x 2
   Gauss points (exact: the integrand has degree <= 2 per direction). Node a is corner (a & 1, a >> 1 & 1, a >> 2 & 1),
   dof 3 a + i its displacement i; K[3a+i][3b+j] = int lambda d_i N_a d_j N_b + mu d_j N_a d_i N_b + mu delta_ij grad N_a . grad N_b.
   Made exactly symmetric, so that the assembled matrix is too. A cube of side h has h times these entries.
*/
static void HexStiffness(PetscReal lambda, PetscReal mu, PetscReal K[24][24])
{
  const PetscReal g[2] = {0.5 - 0.5 / PetscSqrtReal(3.0), 0.5 + 0.5 / PetscSqrtReal(3.0)};

  for (int a = 0; a < 24; a++)
    for (int b = 0; b < 24; b++) K[a][b] = 0;
  for (int q = 0; q < 8; q++) {
    const PetscReal x[3] = {g[q & 1], g[q >> 1 & 1], g[q >> 2 & 1]};
    PetscReal       dN[8][3];

    for (int a = 0; a < 8; a++) /* N_a = prod_d (corner_d ? x_d : 1 - x_d) */
      for (int d = 0; d < 3; d++) {
        dN[a][d] = 1;
        for (int e = 0; e < 3; e++) {
          const int c = a >> e & 1;
          dN[a][d] *= e == d ? (c ? 1.0 : -1.0) : (c ? x[e] : 1 - x[e]);
        }
      }
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++) {
        const PetscReal dot = dN[a][0] * dN[b][0] + dN[a][1] * dN[b][1] + dN[a][2] * dN[b][2];

        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) K[3 * a + i][3 * b + j] += 0.125 * (lambda * dN[a][i] * dN[b][j] + mu * dN[a][j] * dN[b][i] + (i == j ? mu * dot : 0));
      }
  }
  for (int a = 0; a < 24; a++)
    for (int b = 0; b < a; b++) K[a][b] = K[b][a] = 0.5 * (K[a][b] + K[b][a]);
}

/*
   Elasticity on N^3 unit-cube hexahedra (side h = 1/N, element matrices times 1/h): the unknown nodes are (x, y, z) with
   x = 1..N, y, z = 0..N, numbered x fastest, node n's dofs 3 n, 3 n + 1, 3 n + 2. Assembled by rows (each rank its own
   nodes, no off-rank entries): row (n, i) sums over the up to 8 elements around n, in increasing element order, so
   entry (n i, m j) and (m j, n i) add the same numbers in the same order. Exact preallocation per row.
*/
static PetscErrorCode ElasticityCreate(MPI_Comm comm, PetscInt N, PetscReal E, PetscReal nu, Mat *A)
{
  const PetscInt  NX = N, NY = N + 1, nodes = NX * NY * NY; /* x = 0 is clamped: NX = N unknown planes */
  const PetscReal lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  PetscReal       K[24][24];
  PetscInt        nlocal = PETSC_DECIDE, nglobal = nodes, nstart, *dnz, *onz;
  Vec             coords;
  PetscScalar    *xc;
  MatNullSpace    rbm;

  PetscFunctionBegin;
  HexStiffness(lambda, mu, K);
  PetscCall(PetscSplitOwnership(comm, &nlocal, &nglobal));
  PetscCallMPI(MPI_Scan(&nlocal, &nstart, 1, MPIU_INT, MPI_SUM, comm));
  nstart -= nlocal;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, 3 * nlocal, 3 * nlocal, 3 * nodes, 3 * nodes));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(PetscMalloc2(3 * nlocal, &dnz, 3 * nlocal, &onz));
  for (PetscInt n = nstart; n < nstart + nlocal; n++) { /* 3 x (neighbour nodes, the node included), split by owner */
    const PetscInt at[3] = {n % NX + 1, (n / NX) % NY, n / (NX * NY)};
    PetscInt       d = 0, o = 0;

    for (PetscInt dz = -1; dz <= 1; dz++)
      for (PetscInt dy = -1; dy <= 1; dy++)
        for (PetscInt dx = -1; dx <= 1; dx++) {
          const PetscInt x = at[0] + dx, y = at[1] + dy, z = at[2] + dz, m = (x - 1) + NX * (y + NY * z);

          if (x < 1 || x > N || y < 0 || y > N || z < 0 || z > N) continue;
          if (m >= nstart && m < nstart + nlocal) d += 3;
          else o += 3;
        }
    for (int i = 0; i < 3; i++) dnz[3 * (n - nstart) + i] = d, onz[3 * (n - nstart) + i] = o;
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnz));
  PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnz, 0, onz));
  PetscCall(PetscFree2(dnz, onz));
  PetscCall(MatSetUp(*A));
  for (PetscInt n = nstart; n < nstart + nlocal; n++) {
    const PetscInt at[3] = {n % NX + 1, (n / NX) % NY, n / (NX * NY)};
    PetscInt       rows[3], cols[81], nc = 0, slot[27];
    PetscScalar    vals[3 * 81]; /* 3 x nc, row-major as MatSetValues() reads it */

    for (int s = 0; s < 27; s++) { /* the neighbour nodes in increasing number, so columns come sorted */
      const PetscInt x = at[0] + s % 3 - 1, y = at[1] + (s / 3) % 3 - 1, z = at[2] + s / 9 - 1;

      slot[s] = -1;
      if (x < 1 || x > N || y < 0 || y > N || z < 0 || z > N) continue;
      slot[s] = nc / 3;
      for (int j = 0; j < 3; j++) cols[nc++] = 3 * ((x - 1) + NX * (y + NY * z)) + j;
    }
    for (int i = 0; i < 3; i++) {
      rows[i] = 3 * n + i;
      for (PetscInt c = 0; c < nc; c++) vals[i * nc + c] = 0;
    }
    for (int e = 0; e < 8; e++) { /* elements with their lowest corner at n - (1 - bits of e), increasing element number */
      const PetscInt lo[3] = {at[0] - 1 + (e & 1), at[1] - 1 + (e >> 1 & 1), at[2] - 1 + (e >> 2 & 1)};
      int            a = 0; /* n's corner in the element */

      if (lo[0] < 0 || lo[0] >= N || lo[1] < 0 || lo[1] >= N || lo[2] < 0 || lo[2] >= N) continue;
      for (int d = 0; d < 3; d++) a |= (int)(at[d] - lo[d]) << d;
      for (int b = 0; b < 8; b++) {
        const int s = (int)((lo[0] + (b & 1) - at[0] + 1) + 3 * (lo[1] + (b >> 1 & 1) - at[1] + 1) + 9 * (lo[2] + (b >> 2 & 1) - at[2] + 1));

        if (slot[s] < 0) continue; /* a clamped node */
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) vals[i * nc + 3 * slot[s] + j] += K[3 * a + i][3 * b + j]; /* side h: h K, times 1/h */
      }
    }
    PetscCall(MatSetValues(*A, 3, rows, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));

  /* the six rigid body modes from the nodes' coordinates, GAMG's near null space */
  PetscCall(MatCreateVecs(*A, &coords, NULL));
  PetscCall(VecSetBlockSize(coords, 3));
  PetscCall(VecGetArray(coords, &xc));
  for (PetscInt n = nstart; n < nstart + nlocal; n++) {
    const PetscInt at[3] = {n % NX + 1, (n / NX) % NY, n / (NX * NY)};
    for (int d = 0; d < 3; d++) xc[3 * (n - nstart) + d] = (PetscReal)at[d] / N;
  }
  PetscCall(VecRestoreArray(coords, &xc));
  PetscCall(MatNullSpaceCreateRigidBody(coords, &rbm));
  PetscCall(MatSetNearNullSpace(*A, rbm));
  PetscCall(MatNullSpaceDestroy(&rbm));
  PetscCall(VecDestroy(&coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a Matrix Market coordinate file (real or integer; general or symmetric) on rank 0. */
static PetscErrorCode MatrixMarketLoad(MPI_Comm comm, const char *file, Mat *A)
{
  FILE       *fp;
  char        line[1024], cmd[PETSC_MAX_PATH_LEN + 32];
  PetscBool   gz, symmetric = PETSC_FALSE;
  PetscInt    m = 0, n = 0, nz = 0;
  PetscInt   *nnz;
  PetscInt   *ri, *ci;
  PetscScalar *v;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCheck(size == 1, comm, PETSC_ERR_SUP, "Matrix Market files are read on one rank");
  PetscCall(PetscStrendswith(file, ".gz", &gz));
  if (gz) {
    PetscCall(PetscSNPrintf(cmd, sizeof(cmd), "gzip -dc '%s'", file));
    fp = popen(cmd, "r");
  } else fp = fopen(file, "r");
  PetscCheck(fp, comm, PETSC_ERR_FILE_OPEN, "Cannot open %s", file);
  PetscCheck(fgets(line, sizeof(line), fp), comm, PETSC_ERR_FILE_READ, "%s is empty", file);
  PetscCheck(strstr(line, "coordinate"), comm, PETSC_ERR_FILE_UNEXPECTED, "%s is not a Matrix Market coordinate file", file);
  symmetric = strstr(line, "symmetric") ? PETSC_TRUE : PETSC_FALSE;
  while (fgets(line, sizeof(line), fp) && line[0] == '%');
  PetscCheck(sscanf(line, "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT, &m, &n, &nz) == 3, comm, PETSC_ERR_FILE_UNEXPECTED, "Bad size line in %s", file);
  PetscCall(PetscMalloc3(nz, &ri, nz, &ci, nz, &v));
  PetscCall(PetscCalloc1(m, &nnz));
  for (PetscInt e = 0; e < nz; e++) {
    double x;
    PetscCheck(fscanf(fp, "%" PetscInt_FMT " %" PetscInt_FMT " %lf", &ri[e], &ci[e], &x) == 3, comm, PETSC_ERR_FILE_UNEXPECTED, "Entry %" PetscInt_FMT " of %s is unreadable", e, file);
    ri[e]--;
    ci[e]--;
    v[e] = x;
    nnz[ri[e]]++;
    if (symmetric && ri[e] != ci[e]) nnz[ci[e]]++;
  }
  if (gz) pclose(fp);
  else fclose(fp);
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 0, nnz));
  PetscCall(MatSetUp(*A));
  for (PetscInt e = 0; e < nz; e++) {
    PetscCall(MatSetValue(*A, ri[e], ci[e], v[e], INSERT_VALUES));
    if (symmetric && ri[e] != ci[e]) PetscCall(MatSetValue(*A, ci[e], ri[e], v[e], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(ri, ci, v));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a_{0,r} = 0.5, a_{r,0} = -0.25 for r = k, 2k, ...; a_00 grows by the row's new entries, so the pivots stay away from 0. */
static PetscErrorCode HubCouple(Mat A, PetscInt k)
{
  PetscInt N, rstart, rend, added = 0;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &N, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt r = k; r < N; r += k) {
    if (r >= rstart && r < rend) PetscCall(MatSetValue(A, r, 0, -0.25, ADD_VALUES));
    added++;
  }
  if (rstart == 0 && rend > 0) {
    for (PetscInt r = k; r < N; r += k) PetscCall(MatSetValue(A, 0, r, 0.5, ADD_VALUES));
    PetscCall(MatSetValue(A, 0, 0, 0.5 * added, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RandomSymmetricPermute(Mat *A, PetscInt seed)
{
  PetscRandom rnd;
  PetscInt    n, *perm;
  PetscReal  *key;
  IS          is;
  Mat         B;

  PetscFunctionBegin;
  PetscCall(MatGetSize(*A, &n, NULL));
  PetscCall(PetscMalloc2(n, &perm, n, &key));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt r = 0; r < n; r++) {
    PetscCall(PetscRandomGetValueReal(rnd, &key[r]));
    perm[r] = r;
  }
  PetscCall(PetscSortRealWithPermutation(n, key, perm));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, perm, PETSC_COPY_VALUES, &is));
  PetscCall(ISSetPermutation(is));
  PetscCall(MatPermute(*A, is, is, &B));
  PetscCall(MatDestroy(A));
  *A = B;
  PetscCall(ISDestroy(&is));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFree2(perm, key));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   -problem random: a sparse matrix with no structure, for checking the GPU paths against the host on inputs no stencil
   gives. Each row is drawn from a stream seeded by (seed, row) (splitmix64), so every rank draws the same matrix and a
   rank builds only its own rows. Off-diagonal counts are heavy-tailed: most rows 0-6 entries, 12% 28-40 (across a
   warp's 32), 1% 200-3000 (rows and, mirrored, columns over a thread block); half the columns near the diagonal
   (within 64), half anywhere, values uniform in [-1, 1]. The diagonal is the dominance times the row's absolute sum
   (1 where the row has nothing else), so a dominance below 1 gives small and negative ILU pivots. With spd the
   strictly lower part is drawn and mirrored: symmetric, and positive definite for a dominance above 1. Finally D A D
   with log10 D_i uniform in [-decades/2, decades/2]: the same pivots' structure, badly scaled.
*/
typedef struct {
  PetscInt  n, bs; /* n block rows of bs rows each */
  PetscInt  seed;
  PetscBool spd;
  PetscReal dominance, decades;
} RandomSpec;

static uint64_t SplitMix(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static PetscReal Uniform(uint64_t *s)
{
  return (PetscReal)(SplitMix(s) >> 11) * 0x1.0p-53;
}

static uint64_t RandomStream(const RandomSpec *spec, PetscInt row, uint64_t salt)
{
  uint64_t s = ((uint64_t)spec->seed << 32) ^ (uint64_t)row ^ salt;
  (void)SplitMix(&s);
  return s;
}

static PetscReal RandomScale(const RandomSpec *spec, PetscInt row)
{
  uint64_t s = RandomStream(spec, row, 0x5ca1e5ca1eULL);
  return spec->decades > 0 ? PetscPowReal(10.0, spec->decades * (Uniform(&s) - 0.5)) : 1.0;
}

/* Row r's off-diagonal columns (sorted, distinct) and values; with spec->spd only those left of the diagonal. */
static PetscErrorCode RandomRow(const RandomSpec *spec, PetscInt r, PetscInt *nc, PetscInt cols[], PetscScalar vals[])
{
  uint64_t        s     = RandomStream(spec, r, 0);
  const PetscInt  avail = spec->spd ? r : spec->n - 1;
  const PetscReal u     = Uniform(&s);
  PetscInt        len, k = 0;

  PetscFunctionBegin;
  if (u < 0.01) len = 200 + (PetscInt)(SplitMix(&s) % 2801);
  else if (u < 0.13) len = 28 + (PetscInt)(SplitMix(&s) % 13);
  else len = (PetscInt)(SplitMix(&s) % 7);
  len = PetscMin(len, avail);
  for (PetscInt t = 0; t < len; t++) {
    PetscInt c;
    if (Uniform(&s) < 0.5) {
      const PetscInt off = 1 + (PetscInt)(SplitMix(&s) % 64);
      c                  = spec->spd || Uniform(&s) < 0.5 ? r - off : r + off;
      if (c < 0 || c >= spec->n) continue;
    } else {
      c = (PetscInt)(SplitMix(&s) % (uint64_t)(spec->spd ? r : spec->n));
      if (c == r) continue;
    }
    cols[k++] = c;
  }
  PetscCall(PetscSortRemoveDupsInt(&k, cols));
  for (PetscInt t = 0; t < k; t++) vals[t] = 2.0 * Uniform(&s) - 1.0;
  *nc = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry (p, q) of block (R, C) of a matrix of point-blocks (-random_block), from a stream of its own. */
static PetscScalar RandomBlockValue(const RandomSpec *spec, PetscInt R, PetscInt C, PetscInt p, PetscInt q)
{
  uint64_t  s = RandomStream(spec, R, 0xb10cb10cULL);
  PetscReal v = 0;

  s ^= (uint64_t)C * 0x9e3779b97f4a7c15ULL;
  (void)SplitMix(&s);
  for (PetscInt k = 0; k <= p * spec->bs + q; k++) v = Uniform(&s);
  return 2.0 * v - 1.0;
}

static PetscErrorCode RandomAssemble(MPI_Comm comm, const RandomSpec *spec, Mat *A)
{
  const PetscInt b = spec->bs;
  PetscInt       rstart, rend, ncoo = 0, *ci = NULL, *cj = NULL, *cols, nc = 0;
  PetscScalar   *cv = NULL, *vals;
  PetscReal     *rowsum;

  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, spec->n * b, spec->n * b));
  PetscCall(MatSetBlockSize(*A, b));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  PetscCall(PetscMalloc2(spec->n, &cols, spec->n, &vals));
  PetscCall(PetscCalloc1(rend - rstart, &rowsum));
  for (PetscInt pass = 0; pass < 2; pass++) { /* count this rank's entries, then store them */
    ncoo = 0;
#define RANDOM_ENTRY(i, j, v) \
  do { \
    if (pass) { \
      ci[ncoo] = (i); \
      cj[ncoo] = (j); \
      cv[ncoo] = (v); \
      rowsum[(i) - rstart] += PetscAbsScalar(cv[ncoo]); \
    } \
    ncoo++; \
  } while (0)
    for (PetscInt R = spec->spd ? 0 : rstart / b; R < (spec->spd ? spec->n : rend / b); R++) {
      PetscCall(RandomRow(spec, R, &nc, cols, vals));
      for (PetscInt t = 0; t < nc; t++) {
        for (PetscInt m = 0; m < (spec->spd ? 2 : 1); m++) { /* spd: block (R, C) and its mirror (C, R), transposed */
          const PetscInt RR = m ? cols[t] : R, CC = m ? R : cols[t];
          if (RR * b < rstart || RR * b >= rend) continue;
          for (PetscInt p = 0; p < b; p++)
            for (PetscInt q = 0; q < b; q++) RANDOM_ENTRY(RR * b + p, CC * b + q, b == 1 ? vals[t] : (m ? RandomBlockValue(spec, R, cols[t], q, p) : RandomBlockValue(spec, R, cols[t], p, q)));
        }
      }
    }
    for (PetscInt r = rstart; r < rend; r++) { /* the diagonal blocks' other entries (spd: symmetric) */
      const PetscInt R = r / b, p = r % b;
      for (PetscInt q = 0; q < b; q++)
        if (q != p) RANDOM_ENTRY(r, R * b + q, spec->spd ? RandomBlockValue(spec, R, R, PetscMin(p, q), PetscMax(p, q)) : RandomBlockValue(spec, R, R, p, q));
    }
#undef RANDOM_ENTRY
    for (PetscInt r = rstart; r < rend; r++, ncoo++) {
      if (!pass) continue;
      ci[ncoo] = cj[ncoo] = r;
      cv[ncoo]            = rowsum[r - rstart] > 0 ? spec->dominance * rowsum[r - rstart] : 1.0;
    }
    if (!pass) PetscCall(PetscMalloc3(ncoo, &ci, ncoo, &cj, ncoo, &cv));
  }
  for (PetscInt t = 0; t < ncoo; t++) cv[t] *= RandomScale(spec, ci[t]) * RandomScale(spec, cj[t]);
  PetscCall(MatSetPreallocationCOO(*A, ncoo, ci, cj));
  PetscCall(MatSetValuesCOO(*A, cv, INSERT_VALUES));
  PetscCall(PetscFree3(ci, cj, cv));
  PetscCall(PetscFree(rowsum));
  PetscCall(PetscFree2(cols, vals));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Creates the problem chosen by the options above; desc receives a one-line description. */
PetscErrorCode TestProblemCreate(MPI_Comm comm, Mat *A, char *desc, size_t len)
{
  char      problem[64] = "poisson7", file[PETSC_MAX_PATH_LEN] = "";
  PetscInt  N = 16, seed = -1, cubes = 4, hub = 0, dof = 4, dim = 2;
  PetscReal aniso = 1.0, pe = 0.0, jump = 1e4, E = 1.0, nu = 0.3;
  PetscBool isfile, iselast, isfields, israndom, zslabs = PETSC_FALSE, boxes = PETSC_FALSE;
  RandomSpec rs = {0, 1, 1, PETSC_FALSE, 1.1, 0.0};

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "Test problem", NULL);
  PetscCall(PetscOptionsString("-problem", "poisson7, poisson27, anisotropic, convdiff, cavity, jumps, elasticity, fields, random or file", NULL, problem, problem, sizeof(problem), NULL));
  PetscCall(PetscOptionsInt("-dof", "Fields per grid point (fields)", NULL, dof, &dof, NULL));
  PetscCall(PetscOptionsInt("-dim", "Grid dimension, 2 or 3 (fields)", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-n", "Grid points per direction", NULL, N, &N, NULL));
  PetscCall(PetscOptionsReal("-aniso", "Diffusion coefficient in z (anisotropic)", NULL, aniso, &aniso, NULL));
  PetscCall(PetscOptionsReal("-peclet", "Cell Peclet number (convdiff)", NULL, pe, &pe, NULL));
  PetscCall(PetscOptionsReal("-jump", "Coefficient of the checkerboard's black cubes, 1 on the white ones (jumps)", NULL, jump, &jump, NULL));
  PetscCall(PetscOptionsInt("-jump_cubes", "Cubes of the checkerboard per direction (jumps)", NULL, cubes, &cubes, NULL));
  PetscCall(PetscOptionsReal("-young", "Young's modulus (elasticity)", NULL, E, &E, NULL));
  PetscCall(PetscOptionsReal("-poisson_ratio", "Poisson's ratio (elasticity)", NULL, nu, &nu, NULL));
  PetscCall(PetscOptionsString("-f", "Matrix Market file (file)", NULL, file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsInt("-permute", "Seed of a random symmetric permutation", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-hub", "Couple unknown 0 with every k-th unknown (0: not)", NULL, hub, &hub, NULL));
  PetscCall(PetscOptionsBool("-zslabs", "Each rank owns whole z-planes of the grid", NULL, zslabs, &zslabs, NULL));
  PetscCall(PetscOptionsBool("-boxes", "Each rank owns the box of the grid a 3-D DMDA would give it", NULL, boxes, &boxes, NULL));
  PetscCall(PetscOptionsInt("-random_seed", "Seed of the pattern and values (random)", NULL, rs.seed, &rs.seed, NULL));
  PetscCall(PetscOptionsBool("-random_spd", "Symmetric positive definite (random)", NULL, rs.spd, &rs.spd, NULL));
  PetscCall(PetscOptionsReal("-random_dominance", "Diagonal over the row's absolute sum (random)", NULL, rs.dominance, &rs.dominance, NULL));
  PetscCall(PetscOptionsInt("-random_block", "Rows of a point-block: each entry of the pattern a dense block (random)", NULL, rs.bs, &rs.bs, NULL));
  PetscCall(PetscOptionsReal("-random_scale_decades", "Spread of the diagonal scaling D A D, decades (random)", NULL, rs.decades, &rs.decades, NULL));
  PetscOptionsEnd();
  PetscCheck(!(zslabs && boxes), comm, PETSC_ERR_ARG_INCOMP, "-zslabs and -boxes are two ways to split the grid: choose one");
  PetscCall(PetscStrcmp(problem, "file", &isfile));
  PetscCall(PetscStrcmp(problem, "elasticity", &iselast));
  PetscCall(PetscStrcmp(problem, "fields", &isfields));
  PetscCall(PetscStrcmp(problem, "random", &israndom));
  if (israndom) {
    PetscCheck(N >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 1");
    PetscCheck(rs.seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-random_seed must be nonnegative");
    PetscCheck(rs.dominance > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-random_dominance must be positive");
    PetscCheck(rs.decades >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-random_scale_decades must be nonnegative");
    PetscCheck(rs.bs >= 1 && rs.bs <= 16, comm, PETSC_ERR_ARG_OUTOFRANGE, "-random_block must be in [1, 16]");
    rs.n = N * N * N;
    PetscCall(RandomAssemble(comm, &rs, A));
    PetscCall(PetscSNPrintf(desc, len, "random %s, %" PetscInt_FMT " rows, seed %" PetscInt_FMT ", dominance %g%s", rs.spd ? "SPD" : "nonsymmetric", rs.n * rs.bs, rs.seed, (double)rs.dominance, rs.decades > 0 ? ", D A D" : ""));
    if (rs.bs > 1) {
      size_t l;
      PetscCall(PetscStrlen(desc, &l));
      PetscCall(PetscSNPrintf(desc + l, len - l, ", blocks of %" PetscInt_FMT, rs.bs));
    }
  } else if (isfields) {
    PetscCheck(N > 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2");
    PetscCheck(dof >= 1 && dof <= 32, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dof must be in [1, 32]");
    PetscCheck(dim == 2 || dim == 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3");
    {
      const PetscInt points = dim == 2 ? N * N : N * N * N;

      PetscCall(MatCreate(comm, A));
      PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, points * dof, points * dof));
    }
    PetscCall(MatSetBlockSize(*A, dof));
    PetscCall(MatSetFromOptions(*A));
    PetscCall(MatSeqAIJSetPreallocation(*A, (2 * dim + 1) * dof, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, (2 * dim + 1) * dof, NULL, 2 * dim * dof, NULL)); /* a rank's first point may have its -x, -y and -z neighbours on the rank before */
    PetscCall(MatSetUp(*A));
    PetscCall(FieldsAssemble(*A, N, dim, dof, pe));
    PetscCall(PetscSNPrintf(desc, len, "fields %" PetscInt_FMT "^%" PetscInt_FMT " x %" PetscInt_FMT ", Pe %g", N, dim, dof, (double)pe));
  } else if (iselast) {
    PetscCheck(N >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 1");
    PetscCheck(E > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-young must be positive");
    PetscCheck(nu > -1 && nu < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "-poisson_ratio must be in (-1, 0.5)");
    PetscCall(ElasticityCreate(comm, N, E, nu, A));
    PetscCall(PetscSNPrintf(desc, len, "elasticity %" PetscInt_FMT "^3 Q1, E %g, nu %g", N, (double)E, (double)nu));
  } else if (isfile) {
    const char *base;

    PetscBool mtx, mtxgz;

    PetscCall(PetscStrendswith(file, ".mtx", &mtx));
    PetscCall(PetscStrendswith(file, ".mtx.gz", &mtxgz));
    if (mtx || mtxgz) PetscCall(MatrixMarketLoad(comm, file, A));
    else {
      PetscViewer v;

      PetscCall(PetscViewerBinaryOpen(comm, file, FILE_MODE_READ, &v));
      PetscCall(MatCreate(comm, A));
      PetscCall(MatSetFromOptions(*A));
      PetscCall(MatLoad(*A, v));
      PetscCall(PetscViewerDestroy(&v));
    }
    PetscCall(PetscStrrchr(file, '/', (char **)&base));
    PetscCall(PetscSNPrintf(desc, len, "%s", base));
  } else {
    PetscBool known = PETSC_FALSE, flg, isjumps;

    for (const char *const *p = (const char *const[]){"poisson7", "poisson27", "anisotropic", "convdiff", "cavity", "jumps", NULL}; *p; p++) {
      PetscCall(PetscStrcmp(problem, *p, &flg));
      known = (PetscBool)(known || flg);
    }
    PetscCheck(known, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -problem %s", problem);
    PetscCheck(N > 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2");
    PetscCall(PetscStrcmp(problem, "anisotropic", &flg));
    if (!flg) aniso = 1.0;
    PetscInt      nlocal = PETSC_DECIDE, width;
    GridNumbering g;
    PetscBool     stencil = PETSC_FALSE;

    for (const char *const *p = (const char *const[]){"poisson7", "poisson27", "anisotropic", "convdiff", NULL}; *p; p++) {
      PetscCall(PetscStrcmp(problem, *p, &flg));
      stencil = (PetscBool)(stencil || flg);
    }
    PetscCheck(!boxes || stencil, comm, PETSC_ERR_ARG_INCOMP, "-boxes numbers the grid of -problem poisson7, poisson27, anisotropic or convdiff, not %s", problem);
    PetscCall(GridNumberingCreate(comm, N, boxes, &g));
    if (boxes) {
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(comm, &rank));
      nlocal = g.first[rank + 1] - g.first[rank];
    } else if (zslabs) {
      PetscMPIInt rank, size;
      PetscCallMPI(MPI_Comm_rank(comm, &rank));
      PetscCallMPI(MPI_Comm_size(comm, &size));
      nlocal = (N / size + (rank < N % size)) * N * N;
    }
    PetscCall(PetscStrcmp(problem, "poisson27", &flg));
    width = flg ? 27 : 7; /* exact preallocation: benchmarks build matrices of 10^7 rows per rank */
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetSizes(*A, nlocal, nlocal, N * N * N, N * N * N));
    PetscCall(MatSetFromOptions(*A));
    PetscCall(MatSeqAIJSetPreallocation(*A, width, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, width, NULL, width - 1, NULL));
    PetscCall(MatSetUp(*A));
    PetscCall(PetscStrcmp(problem, "cavity", &flg));
    if (flg) PetscCall(CavityAssemble(*A, N, pe));
    PetscCall(PetscStrcmp(problem, "jumps", &isjumps));
    if (isjumps) {
      PetscCheck(jump > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-jump must be positive");
      PetscCheck(cubes >= 1 && cubes <= N, comm, PETSC_ERR_ARG_OUTOFRANGE, "-jump_cubes must be in [1, -n]");
      PetscCall(JumpsAssemble(*A, N, cubes, jump));
    } else if (!flg) PetscCall(StencilAssemble(*A, &g, problem, aniso, pe));
    PetscCall(GridNumberingDestroy(&g));
    PetscCall(PetscSNPrintf(desc, len, "%s %" PetscInt_FMT "^3%s", problem, N, ""));
    if (isjumps) PetscCall(PetscSNPrintf(desc, len, "%s %" PetscInt_FMT "^3, jump %g on %" PetscInt_FMT "^3 cubes", problem, N, (double)jump, cubes));
    if (aniso != 1.0) PetscCall(PetscSNPrintf(desc, len, "%s %" PetscInt_FMT "^3, eps %g", problem, N, (double)aniso));
    if (pe != 0.0) PetscCall(PetscSNPrintf(desc, len, "%s %" PetscInt_FMT "^3, Pe %g", problem, N, (double)pe));
  }
  PetscCheck(hub >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-hub must be nonnegative");
  if (hub) {
    size_t l;
    PetscCall(HubCouple(*A, hub));
    PetscCall(PetscStrlen(desc, &l));
    PetscCall(PetscSNPrintf(desc + l, len - l, ", hub every %" PetscInt_FMT, hub));
  }
  if (seed >= 0) {
    size_t l;
    PetscCall(RandomSymmetricPermute(A, seed));
    PetscCall(PetscStrlen(desc, &l));
    PetscCall(PetscSNPrintf(desc + l, len - l, ", randomly permuted"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestAsymmetricCopy(Mat A, Mat *B)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, B));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt *cols;
    PetscInt        nc, *drop, nd = 0;
    PetscCall(MatGetRow(A, i, &nc, &cols, NULL));
    PetscCall(PetscMalloc1(nc, &drop));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] > i && (i + cols[k]) % 3 == 0) drop[nd++] = cols[k];
    PetscCall(MatRestoreRow(A, i, &nc, &cols, NULL));
    for (PetscInt k = 0; k < nd; k++) PetscCall(MatSetValue(*B, i, drop[k], 0.0, INSERT_VALUES));
    PetscCall(PetscFree(drop));
  }
  PetscCall(MatAssemblyBegin(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatEliminateZeros(*B, PETSC_TRUE)); /* the zeroed entries leave the pattern; the diagonal stays */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestProblemVariants(Mat *A, char *desc, size_t len)
{
  PetscBool asym = PETSC_FALSE, zero = PETSC_FALSE, nan = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-asymmetric", &asym, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-zero", &zero, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-spoil_nan", &nan, NULL));
  if (asym) {
    Mat B;
    PetscCall(TestAsymmetricCopy(*A, &B));
    PetscCall(MatDestroy(A));
    *A = B;
    PetscCall(PetscStrlcat(desc, ", pattern made nonsymmetric", len));
  }
  if (zero || nan) {
    PetscInt rs;
    PetscCall(MatGetOwnershipRange(*A, &rs, NULL));
    if (!rs) PetscCall(MatSetValue(*A, 0, 0, zero ? 0.0 : (PetscScalar)NAN, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestVecSameBits(Vec x, Vec y, PetscBool *same)
{
  const PetscScalar *a, *b;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayRead(y, &b));
  *same = (PetscBool)!memcmp(a, b, sizeof(PetscScalar) * (size_t)n);
  PetscCall(VecRestoreArrayRead(y, &b));
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, same, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)x)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestEventCount(const char *name, PetscInt *count)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &ev));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
  *count = info.count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A <- 2 A + I (same pattern), then ksp's solve again, counting how often the events named e0, e1 ran in it. */
PetscErrorCode TestResolveNewValues(KSP ksp, Mat A, Vec b, const char *e0, const char *e1, PetscInt *its, KSPConvergedReason *reason, PetscInt *n0, PetscInt *n1)
{
  Vec      x;
  PetscInt a0, a1, b0, b1;

  PetscFunctionBegin;
  PetscCall(TestEventCount(e0, &a0));
  PetscCall(TestEventCount(e1, &a1));
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatShift(A, 1.0));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(TestEventCount(e0, &b0));
  PetscCall(TestEventCount(e1, &b1));
  *n0 = b0 - a0;
  *n1 = b1 - a1;
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestOptionsSetPrefixed(const char *prefix, const char *options)
{
  char      buf[1024], opt[256], *tok[64];
  PetscBool set[64];
  int       ntok = 0;
  char *save = NULL;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(buf, options, sizeof(buf)));
  for (char *t = strtok_r(buf, " ", &save); t && ntok < 64; t = strtok_r(NULL, " ", &save)) tok[ntok++] = t;
  /* first which names the command line set, then the others: PETSc finds -a_1_b by -a_b too, so asking after
     setting -a_b from the same list would wrongly skip -a_1_b (per-level multigrid options) */
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < ntok; k++) {
      const char *value = k + 1 < ntok && tok[k + 1][0] != '-' ? tok[k + 1] : NULL; /* a name without a value is a flag */

      PetscCheck(tok[k][0] == '-', PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The option list \"%s\" has %s where an option name belongs", options, tok[k]);
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s%s", prefix, tok[k] + 1));
      if (pass == 0) PetscCall(PetscOptionsHasName(NULL, NULL, opt, &set[k]));
      else if (!set[k]) PetscCall(PetscOptionsSetValue(NULL, opt, value));
      if (value) k++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestPCViewToStringFormat(PC pc, PetscViewerFormat format, char buf[], size_t len)
{
  FILE       *f;
  PetscViewer v;

  PetscFunctionBegin;
  buf[0] = 0;
  f      = fmemopen(buf, len - 1, "w");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "fmemopen() failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(PetscObjectComm((PetscObject)pc), f, &v));
  PetscCall(PetscViewerPushFormat(v, format));
  PetscCall(PCView(pc, v));
  PetscCall(PetscViewerPopFormat(v));
  PetscCall(PetscViewerDestroy(&v));
  fclose(f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The factor fingerprint (FNV-1a of the factor's values) PCSFILU's detailed view prints, or "none". The view
   goes to an ASCII viewer on a memory FILE: a string viewer would get nothing from PCSFILU. On several ranks
   it is rank 0's block.
*/
PetscErrorCode TestPCFingerprint(PC pc, char print[32])
{
  char buf[16384], *at;

  PetscFunctionBegin;
  PetscCall(TestPCViewToStringFormat(pc, PETSC_VIEWER_ASCII_INFO_DETAIL, buf, sizeof(buf)));
  PetscCall(PetscStrstr(buf, "(FNV-1a of their bytes): ", &at));
  PetscCall(PetscStrncpy(print, at ? at + 25 : "none", 17));
  PetscCall(PetscInfo(pc, "factor fingerprint %s\n", print));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestPCViewToString(PC pc, char buf[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(TestPCViewToStringFormat(pc, PETSC_VIEWER_DEFAULT, buf, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestPCViewHas(PC pc, const char *text, PetscBool *has)
{
  char        buf[8192];
  PetscMPIInt flag;

  PetscFunctionBegin;
  PetscCall(TestPCViewToString(pc, buf, sizeof(buf)));
  flag = strstr(buf, text) ? 1 : 0;
  PetscCallMPI(MPI_Bcast(&flag, 1, MPI_INT, 0, PetscObjectComm((PetscObject)pc)));
  *has = flag ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
