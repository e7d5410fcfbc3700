/*
   The host vectors that SFPC's GPU paths copy through device vectors (sfilu, sfdilu, MATHYBSF, afsai): a check,
   and the copying (SFPCStageVecs(), SFPCUnstageVecs(); with the arrays, SFPCStagedArraysGet()/Restore()).

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
#include <petsc/private/vecimpl.h> /* v->map */

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

/* Whether v's array is in device memory (for an input read, which may copy it there; for an output, not). */
static PetscErrorCode OnDevice(Vec v, PetscBool input, PetscBool *dev)
{
  PetscMemType m;

  PetscFunctionBegin;
  if (input) {
    const PetscScalar *a;
    PetscCall(VecGetArrayReadAndMemType(v, &a, &m));
    PetscCall(VecRestoreArrayReadAndMemType(v, &a));
  } else {
    PetscScalar *a;
    PetscCall(VecGetArrayWriteAndMemType(v, &a, &m));
    PetscCall(VecRestoreArrayWriteAndMemType(v, &a));
  }
  *dev = (PetscBool)PetscMemTypeDevice(m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A device vector with v's layout in *d, kept from call to call and made again when the layout changes. */
static PetscErrorCode StandIn(Vec v, Vec *d)
{
  PetscFunctionBegin;
  if (*d) {
    PetscBool same;
    PetscCall(PetscLayoutCompare(v->map, (*d)->map, &same));
    if (same) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(VecDestroy(d));
  }
  PetscCall(VecCreate(PetscObjectComm((PetscObject)v), d));
  PetscCall(VecSetLayout(*d, v->map));
  PetscCall(VecSetType(*d, VECCUDA));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The vectors a GPU path computes with for input x and output y (also read when yin): x and y when both are in
   device memory; else, once SFPCCheckHostVec() accepts the host ones, the device stand-ins *xd and *yd (made on
   first need, with the layouts of x and y) holding copies of x (and y). SFPCUnstageVecs() copies the result back.
*/
PetscErrorCode SFPCStageVecs(Vec x, Vec y, PetscBool yin, const char *who, Vec *xd, Vec *yd, Vec *xs, Vec *ys)
{
  PetscBool dx, dy;

  PetscFunctionBegin;
  PetscCall(OnDevice(x, PETSC_TRUE, &dx));
  PetscCall(OnDevice(y, yin, &dy));
  *xs = x;
  *ys = y;
  if (dx && dy) PetscFunctionReturn(PETSC_SUCCESS);
  if (!dx) PetscCall(SFPCCheckHostVec(x, PETSC_FALSE, who));
  if (!dy) PetscCall(SFPCCheckHostVec(y, PETSC_TRUE, who));
  if (!*xd) PetscCall(PetscInfo(x, "%s on the GPU with host vectors: each application copies them through the device; use -vec_type cuda (or MatCreateVecs()) to avoid it\n", who));
  PetscCall(StandIn(x, xd));
  PetscCall(StandIn(y, yd));
  PetscCall(VecCopy(x, *xd));
  if (yin) PetscCall(VecCopy(y, *yd));
  *xs = *xd;
  *ys = *yd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After SFPCStageVecs(): the result into y, if it was computed in a stand-in. */
PetscErrorCode SFPCUnstageVecs(Vec y, Vec ys)
{
  PetscFunctionBegin;
  if (ys != y) PetscCall(VecCopy(ys, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x's array to read and y's to write, on the device: SFPCStageVecs() (y not read), then the arrays. */
PetscErrorCode SFPCStagedArraysGet(Vec x, Vec y, const char *who, Vec *xd, Vec *yd, SFPCStagedArrays *a)
{
  PetscFunctionBegin;
  PetscCall(SFPCStageVecs(x, y, PETSC_FALSE, who, xd, yd, &a->x, &a->y));
  PetscCall(VecGetArrayReadAndMemType(a->x, &a->xa, NULL));
  PetscCall(VecGetArrayWriteAndMemType(a->y, &a->ya, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After SFPCStagedArraysGet(x, y, ...): the arrays given back, and the result into y. */
PetscErrorCode SFPCStagedArraysRestore(Vec y, SFPCStagedArrays *a)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayWriteAndMemType(a->y, &a->ya));
  PetscCall(VecRestoreArrayReadAndMemType(a->x, &a->xa));
  PetscCall(SFPCUnstageVecs(y, a->y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
