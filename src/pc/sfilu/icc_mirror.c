/*
   ICC through the sfilu solver type (-pc_type icc -pc_factor_mat_solver_type sfilu). On a symmetric matrix
   ILU(k) with a symmetric pattern is ICC(k): its U is D L^T, so (LU)^{-1} is ICC's preconditioner (to
   rounding). PETSc's ICC reads only one triangle of A (its host factor the upper one), so the factor here
   is the ILU of the symmetric matrix whose lower triangle mirrors A's upper one: A's values gathered
   through a map (SFILUFill, as for ILU(k)'s fill) before each numeric factorization, on the host or on
   the GPU. The pattern must be structurally symmetric (the mirror of every upper entry must have a place).
*/
#include "sfilu.h"
#include <petscbt.h>

/* map[k] = k for A's entries on or above the diagonal, the position of A(j, i) for an entry A(i, j) below it. */
static PetscErrorCode MirrorMap(PetscInt n, const PetscInt ai[], const PetscInt aj[], PetscInt *map)
{
  PetscInt nlower = 0, nupper = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscInt j = aj[k];

      PetscCheck(k == ai[i] || aj[k - 1] < j, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "ICC through sfilu needs sorted rows without repeated columns; row %" PetscInt_FMT " is not", i);
      if (j >= i) {
        map[k] = k;
        nupper += (PetscInt)(j > i);
        continue;
      }
      PetscCall(PetscFindInt(i, ai[j + 1] - ai[j], aj + ai[j], &map[k])); /* row j's position of column i, or negative */
      if (map[k] >= 0) map[k] += ai[j];
      PetscCheck(map[k] >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "ICC through sfilu needs a structurally symmetric matrix: A(%" PetscInt_FMT ", %" PetscInt_FMT ") is stored, A(%" PetscInt_FMT ", %" PetscInt_FMT ") is not", i, j, j, i);
      nlower++;
    }
  }
  if (nupper != nlower) { /* every lower entry has its mirror above, so some upper entry has none below: name the first */
    PetscBT mirrored;

    PetscCall(PetscBTCreate(ai[n], &mirrored));
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt k = ai[i]; k < ai[i + 1] && aj[k] < i; k++) PetscCall(PetscBTSet(mirrored, map[k]));
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
        if (aj[k] <= i || PetscBTLookup(mirrored, k)) continue;
        PetscCall(PetscBTDestroy(&mirrored));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "ICC through sfilu needs a structurally symmetric matrix: A(%" PetscInt_FMT ", %" PetscInt_FMT ") is stored, A(%" PetscInt_FMT ", %" PetscInt_FMT ") is not", i, aj[k], aj[k], i);
      }
    }
    PetscCall(PetscBTDestroy(&mirrored));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* s->mirror for A's pattern, on the side of the factor (host or device). */
PetscErrorCode SFILUMirrorCreate(SFILU *s, Mat A, PetscBool ondevice)
{
  const PetscInt *ai, *aj;
  PetscInt        n, *map = NULL;
  PetscBool       done;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
  s->mirror.nnz = s->mirror.nnz_a = ai[n];
  if (ondevice) { /* from the device CSR; a pattern that fails there is mapped here, for the error's entry */
    PetscBool ok;

    ierr = SFILUMirrorCreate_Device(&s->mirror, A, &ok);
    if (ierr || ok) {
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
      PetscCall(ierr);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  ierr                            = PetscMalloc1(PetscMax(ai[n], 1), &map);
  if (!ierr) ierr = MirrorMap(n, ai, aj, map);
  {
    PetscErrorCode rerr = MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done);
    if (!ierr) ierr = rerr;
  }
  if (!ierr && ondevice) ierr = SFILUFillCreate_Device(&s->mirror, map);
  if (!ierr && !ondevice) {
    s->mirror.fmap = map;
    map            = NULL;
  }
  PetscCall(PetscFree(map));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
