static char help[] = "PCSFDILU's grid coloring (-pc_sfdilu_coloring grid) on matrices of a DMDA attached to the KSP: one to three\n"
                     "dimensions, several fields, star and box stencils, stencil width 2, periodic boundaries, several ranks (each\n"
                     "rank's box). The colors must be the residues of the points' global coordinates (field f of point (i, j, k):\n"
                     "f + dof (i mod m + m (j mod m + m (k mod m)))), proper for the matrix, and GMRES with the grid-colored DILU\n"
                     "must converge; the same on an aijcusparse matrix with -dm_mat_type aijcusparse -dm_vec_type cuda.\n"
                     "Options: -dim, -n (points per axis), -dof, -box (box stencil), -width (stencil width; the modulus is at least width + 1), -periodic,\n"
                     "-mismatch (a DMDA of another size attached to the PC: an error), -auto (the default coloring, which takes the\n"
                     "grid's above 2^14 rows). The PC's options carry the prefix dilu_.\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <sfpc.h>
#include <string.h>
#include "problems.h"

/*
   A convection-diffusion-like operator on the DMDA's stencil: every stencil neighbour of a point (each field to
   the same field) gets -1 - 0.1 (direction index), every field of the point couples to the next by -0.2, and the
   diagonal dominates the row by 1.
*/
static PetscErrorCode Assemble(DM da, Mat A)
{
  PetscInt        dim, dof, sw, xs[3], xm[3], M[3];
  DMDAStencilType st;
  DMBoundaryType  bd[3];

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M[0], &M[1], &M[2], NULL, NULL, NULL, &dof, &sw, &bd[0], &bd[1], &bd[2], &st));
  PetscCall(DMDAGetCorners(da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  for (PetscInt k = xs[2]; k < xs[2] + xm[2]; k++)
    for (PetscInt j = xs[1]; j < xs[1] + xm[1]; j++)
      for (PetscInt i = xs[0]; i < xs[0] + xm[0]; i++)
        for (PetscInt f = 0; f < dof; f++) {
          MatStencil  row = {.k = k, .j = j, .i = i, .c = f}, col;
          PetscScalar v, diag = 1;
          PetscInt    p[3] = {i, j, k};
          for (PetscInt dk = (dim > 2 ? -sw : 0); dk <= (dim > 2 ? sw : 0); dk++)
            for (PetscInt dj = (dim > 1 ? -sw : 0); dj <= (dim > 1 ? sw : 0); dj++)
              for (PetscInt di = -sw; di <= sw; di++) {
                const PetscInt d[3] = {di, dj, dk}, nz = (di != 0) + (dj != 0) + (dk != 0);
                PetscBool      inside = PETSC_TRUE;
                if (!nz || (st == DMDA_STENCIL_STAR && nz > 1)) continue;
                for (PetscInt a = 0; a < dim; a++) {
                  const PetscInt q = p[a] + d[a];
                  if ((q < 0 || q >= M[a]) && bd[a] != DM_BOUNDARY_PERIODIC) inside = PETSC_FALSE;
                }
                if (!inside) continue;
                col.i = i + di, col.j = j + dj, col.k = k + dk, col.c = f;
                v = -1.0 - 0.1 * (PetscReal)(di + 3 * dj + 9 * dk + 13);
                diag += PetscAbsScalar(v);
                PetscCall(MatSetValuesStencil(A, 1, &row, 1, &col, &v, INSERT_VALUES));
              }
          if (dof > 1) {
            col   = row;
            col.c = (f + 1) % dof;
            v     = -0.2;
            diag += 0.2;
            PetscCall(MatSetValuesStencil(A, 1, &row, 1, &col, &v, INSERT_VALUES));
          }
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, &diag, INSERT_VALUES));
        }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   This rank's colors against the residues of the global coordinates: the same partition of the rows (the PC numbers
   the colors it uses 0, 1, ... in the order of the formula's), and proper for the rank's diagonal block.
*/
static PetscErrorCode CheckColors(DM da, Mat A, PC pc, PetscInt m, const char *what)
{
  PetscInt        dim, dof, pdof, xs[3], xm[3], ncolors, nexp = 1, n = 0, rstart;
  const PetscInt *color;
  PetscInt       *map;
  PetscBool       same = PETSC_TRUE, proper = PETSC_TRUE, points;
  Mat             Ad;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, NULL, NULL, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  { /* by point-blocks (-pc_sfdilu_blocks): a point's fields share its residue's color, and their couplings are E's */
    char view[4096];
    PetscCall(TestPCViewToString(pc, view, sizeof(view)));
    points = (PetscBool)(strstr(view, "by point-blocks of") != NULL);
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &points, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)da))); /* the view is rank 0's */
  }
  pdof = points ? 1 : dof;
  PetscCall(DMDAGetCorners(da, &xs[0], &xs[1], &xs[2], &xm[0], &xm[1], &xm[2]));
  PetscCall(PCSFDILUGetColoring(pc, &ncolors, &color));
  for (PetscInt d = 0; d < dim; d++) nexp *= m;
  nexp *= pdof;
  PetscCall(PetscMalloc1(nexp, &map));
  for (PetscInt c = 0; c < nexp; c++) map[c] = -1;
  for (PetscInt k = xs[2]; k < xs[2] + xm[2]; k++)
    for (PetscInt j = xs[1]; j < xs[1] + xm[1]; j++)
      for (PetscInt i = xs[0]; i < xs[0] + xm[0]; i++)
        for (PetscInt f = 0; f < dof; f++, n++) {
          const PetscInt e = (points ? 0 : f) + pdof * (i % m + m * (j % m + m * (k % m)));
          if (map[e] < 0) map[e] = color[n];
          same = (PetscBool)(same && map[e] == color[n]);
        }
  for (PetscInt a = 0; a < nexp; a++) /* one color per residue class, and no two classes share one */
    for (PetscInt b = a + 1; b < nexp; b++) same = (PetscBool)(same && (map[a] < 0 || map[a] != map[b]));
  PetscCall(PetscFree(map));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetDiagonalBlock(A, &Ad));
  for (PetscInt r = 0; r < n; r++) {
    const PetscInt *cols;
    PetscInt        nc;
    PetscCall(MatGetRow(Ad, r, &nc, &cols, NULL));
    for (PetscInt q = 0; q < nc; q++) proper = (PetscBool)(proper && ((points ? cols[q] / dof == r / dof : cols[q] == r) || color[cols[q]] != color[r]));
    PetscCall(MatRestoreRow(Ad, r, &nc, &cols, NULL));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)da)));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &proper, 1, MPI_C_BOOL, MPI_LAND, PetscObjectComm((PetscObject)da)));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ncolors, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)da)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s coloring%s, modulus %" PetscInt_FMT ": %" PetscInt_FMT " colors; the residues of the global coordinates: %s; proper: %s\n", what, points ? " of the points" : "", m, ncolors, same ? "yes" : "NO", proper ? "yes" : "NO"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM                 da;
  Mat                A;
  Vec                b, x;
  KSP                ksp;
  PC                 pc;
  PetscInt           dim = 3, n = 9, dof = 1, width = 1, its, m = 3;
  PetscBool          box = PETSC_FALSE, periodic = PETSC_FALSE, mismatch = PETSC_FALSE, autocolor = PETSC_FALSE;
  KSPConvergedReason reason;
  DMBoundaryType     bd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-width", &width, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-box", &box, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-periodic", &periodic, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mismatch", &mismatch, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-auto", &autocolor, NULL));
  PetscCall(PetscOptionsGetInt(NULL, "dilu_", "-pc_sfdilu_grid_modulus", &m, NULL));
  m  = PetscMax(m, width + 1); /* what the PC takes for a DMDA */
  bd = periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE;
  if (dim == 1) PetscCall(DMDACreate1d(PETSC_COMM_WORLD, bd, n, dof, width, NULL, &da));
  else if (dim == 2) PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bd, bd, box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, dof, width, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bd, bd, bd, box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, width, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, A));
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecSet(b, 1.0));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "dilu_"));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSFDILU));
  if (mismatch) {
    DM other;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bd, bd, bd, DMDA_STENCIL_STAR, n + 1, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, dof, width, NULL, NULL, NULL, &other));
    PetscCall(DMSetUp(other));
    PetscCall(PCSetDM(pc, other));
    PetscCall(DMDestroy(&other));
  } else PetscCall(PCSetDM(pc, da));
  if (!autocolor) PetscCall(PetscOptionsSetValue(NULL, "-dilu_pc_sfdilu_coloring", "grid"));
  PetscCall(KSPSetDMActive(ksp, KSP_DMACTIVE_ALL, PETSC_FALSE));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 200));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(CheckColors(da, A, pc, m, autocolor ? "auto" : "grid"));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "GMRES with the %s-colored DILU: %s in %" PetscInt_FMT " iterations\n", autocolor ? "auto" : "grid", KSPConvergedReasons[reason], its));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    depends: problems.c

  test:
    suffix: star3d
    args: -dim 3 -n 9
  test:
    suffix: box3d
    args: -dim 3 -n 8 -box
  test:
    suffix: modulus2
    args: -dim 3 -n 9 -dilu_pc_sfdilu_grid_modulus 2
  test: # several fields: a row's color its point's residue and its field (-pc_sfdilu_blocks auto keeps rows with a grid)
    suffix: fields2d
    args: -dim 2 -n 12 -dof 3 -box
  test: # and by point-blocks (true): a point's color its residue
    suffix: fields2d_points
    args: -dim 2 -n 12 -dof 3 -box -dilu_pc_sfdilu_blocks true
  test:
    suffix: width2
    args: -dim 2 -n 12 -width 2
  test:
    suffix: line
    args: -dim 1 -n 40 -dof 2
  test: # lengths that are multiples of the modulus wrap around properly, 10 with modulus 3 does not
    suffix: periodic_even
    args: -dim 3 -n 8 -periodic -dilu_pc_sfdilu_grid_modulus 2
  test:
    suffix: periodic_bad
    args: -dim 3 -n 10 -periodic
    filter: Error: grep -E "not a proper" | sed -e "s/^\[0\]PETSC ERROR: //"
  test:
    suffix: mismatch
    args: -mismatch
    filter: Error: grep -E "DMDA does not split" | sed -e "s/^\[0\]PETSC ERROR: //"
  test: # the default coloring takes the grid's above 2^14 rows
    suffix: auto
    args: -dim 3 -n 26 -auto
  test: # and with 2 fields a point (block size 2): rows colored by the grid (-pc_sfdilu_blocks auto), or points (true)
    suffix: auto_fields
    args: -dim 2 -n 100 -dof 2 -auto
  test:
    suffix: auto_fields_points
    args: -dim 2 -n 100 -dof 2 -auto -dilu_pc_sfdilu_blocks true
  test: # a periodic length the modulus does not divide: auto falls back to greedy on the host (JPL on the GPU)
    suffix: auto_fallback
    args: -dim 3 -n 28 -periodic -auto
  test: # each rank's box colored by its global coordinates
    suffix: mpi
    nsize: {{2 3}separate output}
    args: -dim 3 -n 9 -dof 2
  test: # and by point-blocks, each rank's points colored by their global coordinates
    suffix: mpi_points
    nsize: 2
    args: -dim 3 -n 9 -dof 2 -dilu_pc_sfdilu_blocks true
  test: # the global DILU (-pc_sfdilu_parallel) with the grid's colors: the same colors and iterations on any number of ranks
    suffix: global
    nsize: {{1 2 3}shared output}
    args: -dim 3 -n 9 -dof 2 -dilu_pc_sfdilu_parallel
  test: # a coupling within one color across ranks (the periodic wrap) is found there too
    suffix: global_periodic_bad
    nsize: 2
    args: -dim 3 -n 10 -periodic -dilu_pc_sfdilu_parallel
    filter: Error: grep -E "not a proper" | sed -e "s/^\[0\]PETSC ERROR: //"

  testset:
    requires: gpu
    args: -dm_mat_type aijcusparse -dm_vec_type cuda -use_gpu_aware_mpi 0
    test:
      suffix: gpu_star3d
      args: -dim 3 -n 9
      output_file: output/ex14_star3d.out
    test:
      suffix: gpu_box3d
      args: -dim 3 -n 8 -box
      output_file: output/ex14_box3d.out
    test:
      suffix: gpu_fields2d
      args: -dim 2 -n 12 -dof 3 -box
      output_file: output/ex14_fields2d.out
    test:
      suffix: gpu_fields2d_points
      args: -dim 2 -n 12 -dof 3 -box -dilu_pc_sfdilu_blocks true
      output_file: output/ex14_fields2d_points.out
    test:
      suffix: gpu_periodic_bad
      args: -dim 3 -n 10 -periodic
      output_file: output/ex14_periodic_bad.out
      filter: Error: grep -E "not a proper" | sed -e "s/^\[0\]PETSC ERROR: //"
    test:
      suffix: gpu_mpi
      nsize: 2
      args: -dim 3 -n 9 -dof 2
      output_file: output/ex14_mpi_nsize-2.out
    test:
      suffix: gpu_mpi_points
      nsize: 2
      args: -dim 3 -n 9 -dof 2 -dilu_pc_sfdilu_blocks true
      output_file: output/ex14_mpi_points.out
    test:
      suffix: gpu_auto
      args: -dim 3 -n 26 -auto
      output_file: output/ex14_auto.out
    test:
      suffix: gpu_global
      nsize: {{1 2}shared output}
      args: -dim 3 -n 9 -dof 2 -dilu_pc_sfdilu_parallel
      output_file: output/ex14_global.out
    test:
      suffix: gpu_auto_fields
      args: -dim 2 -n 100 -dof 2 -auto
      output_file: output/ex14_auto_fields.out
    test:
      suffix: gpu_auto_fields_points
      args: -dim 2 -n 100 -dof 2 -auto -dilu_pc_sfdilu_blocks true
      output_file: output/ex14_auto_fields_points.out
    test: # a periodic length the modulus does not divide: auto falls back to JPL on the GPU (greedy on the host)
      suffix: gpu_auto_fallback
      args: -dim 3 -n 28 -periodic -auto

TEST*/
