/*
   The host vectors that SFPC's GPU paths copy through device vectors (sfilu, sfdilu, MATHYBSF, afsai): a check.

   PETSc keeps a host vector (VECSEQ, VECMPI) coherent on the host only: its VecGetArray*() give the host array
   whatever its offload mask says. Yet PETSc's CUDA code accepts one where it expects a VECCUDA (only a debug
   PETSc checks the type) and gives it a device copy: an aijcusparse MatMult() writes its product there (mask
   GPU, the host array keeps its old values) and reads its input from there once copied (mask BOTH, later host
   changes unseen), and VecCopy() from a VECCUDA into a host vector with such a copy writes that copy only.
   A KSP with an aijcusparse matrix and host work vectors (what a DM attached with KSPSetDM() makes when
   KSPSetUp() runs before KSPSolve() has given the KSP its vectors) thus computes with stale values whatever its
   preconditioner, PETSc's own included (tests/ex12.c). Such a vector's host values cannot be trusted as input,
   nor can it receive a result: refuse it rather than return a wrong result.
*/
#include <sfpc/private/sfpcimpl.h>
#include <petscdevicetypes.h>

PetscErrorCode SFPCCheckHostVec(Vec v, PetscBool output, const char *who)
{
  PetscOffloadMask mask;
  PetscBool        cuda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  if (cuda) PetscFunctionReturn(PETSC_SUCCESS); /* a device vector (bound to the CPU, say): its offload mask is kept */
  PetscCall(VecGetOffloadMask(v, &mask));
  PetscCheck(mask == PETSC_OFFLOAD_UNALLOCATED || mask == PETSC_OFFLOAD_CPU || (!output && mask == PETSC_OFFLOAD_BOTH), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "%s on the GPU got a host vector (type %s) as %s that PETSc's CUDA code has used as a device vector (offload mask %s): its %s. "
             "A GPU matrix needs device vectors, e.g. -dm_vec_type cuda when a DM attached to the KSP makes them (KSPSetDM(), then KSPSetUp() before KSPSolve())",
             who, ((PetscObject)v)->type_name, output ? "output" : "input", PetscOffloadMaskToString(mask), output ? "host values would not receive the result" : "host values are stale");
  PetscFunctionReturn(PETSC_SUCCESS);
}
