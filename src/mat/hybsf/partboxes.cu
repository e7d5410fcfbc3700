/*
   Parts of a grid for the solves by parts (partsweep.cu): boxes instead of ranges of consecutive rows.

   Why: in natural order a part of consecutive rows of a 3-D grid is a slab one or two planes thick, so every row has
   neighbours in the parts above and below, read through L2 a hop at a time; a box of the same rows keeps most of them
   in its own shared memory. H200, 128^3 grids with JPL colors, apply by parts (bench/README.md, sfdilu, "Parts as boxes
   of the grid"): the matrix renumbered box by box, 4 x 4 x 8 boxes against the 128 z-planes with the same kernel,
   1.20x faster (7-point) and 1.40x (27-point); this library's boxes against its own 128 z-planes, 1.17x and 1.32x (one
   call each). With the greedy coloring's 2 colors the earlier ranges were faster (another call).

   The numbering is SFPCPartsGrid's (trifactor_device.h). The solves find a row's place in the vectors by stepping
   through the box (partsweep.cu, VectorWalk): an index array, or dividing each row into its digits, took 1.13x the time
   of the 7-point apply.
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>

/*
   The split's score, lower is better: the largest box's rows times 1 + W (the sum over split axes of 1 / the box's
   extent), W times its share of rows on a face it shares with another box. W from two measurements on the 7-point
   128^3 grid (H200): 0.23 gives the z-planes' 1.20x over 4 x 4 x 8 boxes, 0.32 the 1.05x of 1 x 4 x 32 boxes over them.
*/
#define SFPC_PARTS_BOX_FACE_WEIGHT 0.28

namespace
{
/* home[q]: the home row of natural row natural[q] (a box's rows come after those of the boxes before it: start[p]). */
__global__ void GridHome(int n, SFPCPartsGrid G, const int *__restrict__ start, const int *__restrict__ natural, int *home)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int i = natural[q], f = i % G.dof, pt = i / G.dof, c[3] = {pt % G.n[0], (pt / G.n[0]) % G.n[1], pt / (G.n[0] * G.n[1])};
  const int p = sfpc::PartsBoxOf(G, c);
  int       first[3], len[3];
  sfpc::PartsBox(G, p, first, len);
  home[q] = start[p] + f + G.dof * ((c[0] - first[0]) + len[0] * ((c[1] - first[1]) + len[1] * (c[2] - first[2])));
}
} // namespace

/* home[q] = the home row of natural row natural[q] (device arrays of n); start: the device copy of SFPCPartsGridStarts(). */
PetscErrorCode SFPCPartsGridHome(const SFPCPartsGrid *G, PetscInt n, const int *start, const int *natural, int *home)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  GridHome<<<sfpc::LaunchBlocks(n, 256), 256, 0, stream>>>((int)n, *G, start, natural, home);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The home rows each box begins with (np + 1, host). */
PetscErrorCode SFPCPartsGridStarts(const SFPCPartsGrid *G, PetscInt **start)
{
  const int np = G->b[0] * G->b[1] * G->b[2];

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(np + 1, start));
  (*start)[0] = 0;
  for (int p = 0; p < np; p++) {
    int first[3], len[3];
    sfpc::PartsBox(*G, p, first, len);
    (*start)[p + 1] = (*start)[p] + (PetscInt)G->dof * len[0] * len[1] * len[2];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The boxes of an nx x ny x nz grid of dof fields a point (its n = dof nx ny nz rows in natural order) that make the
   best parts on this device: at most as many as SFPCPartsSize()'s equal split (one a multiprocessor), the split of the
   smallest score above among those whose largest box fits a block's shared memory with nsteps steps; *maxrows the
   largest box's rows. G->b[0] = 0 where no split fits, or the grid is not n rows.
*/
PetscErrorCode SFPCPartsBoxes(SFPCTriDevice T, PetscInt n, const PetscInt grid[3], PetscInt dof, PetscInt nsteps, SFPCPartsGrid *G, int *maxrows)
{
  double    best = PETSC_MAX_REAL;
  int       most, rows, b[3] = {0, 0, 0};
  PetscBool fits;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(G, sizeof(*G)));
  *maxrows = 0;
  if (dof < 1 || grid[0] < 1 || grid[1] < 1 || grid[2] < 1 || dof * grid[0] * grid[1] * grid[2] != n || n > INT_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SFPCPartsSize(T, n, nsteps, &most, &rows, &fits)); /* as many parts as the equal split's at most (none of a few rows) */
  for (int bx = 1; bx <= PetscMin(most, grid[0]); bx++) /* of equal scores, the first: the fewest cuts across x */
    for (int by = 1; bx * by <= most && by <= grid[1]; by++)
      for (int bz = 1; bx * by * bz <= most && bz <= grid[2]; bz++) {
        const int s[3] = {bx, by, bz};
        double    box  = (double)dof, face = 0; /* the largest box: ceil(n / b) points along each axis */
        for (int d = 0; d < 3; d++) {
          const int len = (int)((grid[d] + s[d] - 1) / s[d]);
          box *= len;
          if (s[d] > 1) face += 1.0 / len;
        }
        if (box * (1 + SFPC_PARTS_BOX_FACE_WEIGHT * face) >= best) continue;
        PetscCall(SFPCPartsFit(T, (PetscInt)box, nsteps, &fits));
        if (!fits) continue;
        best = box * (1 + SFPC_PARTS_BOX_FACE_WEIGHT * face);
        for (int d = 0; d < 3; d++) b[d] = s[d];
        *maxrows = (int)box;
      }
  if (!b[0]) PetscFunctionReturn(PETSC_SUCCESS);
  for (int d = 0; d < 3; d++) G->n[d] = (int)grid[d], G->b[d] = b[d];
  G->dof = (int)dof;
  PetscFunctionReturn(PETSC_SUCCESS);
}
