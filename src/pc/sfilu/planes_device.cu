/*
   The hyperplane order of a grid (SFILUPlanes, planes.cuh), built once per pattern on the host: per
   plane, per z-plane it crosses, where that line's points start (at most one entry per point, and at most
   nz per plane: a few hundred KiB at 256^3). The factorizations' record kernels put each point in its place.
*/
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include "planes.cuh"

PetscErrorCode SFILUPlanesCreate_Device(const PetscInt dims[3], int wy, int wz, SFILUPlanes *P, SFILUPlaneTable *tab)
{
  SFILUPlaneTable t = {(int)dims[0], (int)dims[1], (int)dims[2], wy, wz, NULL, NULL};
  PetscInt       *tstart, ntab = 0, *table, pos = 0;
  int            *dtstart, *dtable;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCall(SFILUPlanesDestroy_Device(P));
  P->nplanes = (dims[0] - 1) + wy * (dims[1] - 1) + wz * (dims[2] - 1) + 1;
  PetscCall(PetscMalloc1(P->nplanes + 1, &P->start));
  PetscCall(PetscMalloc1(P->nplanes + 1, &tstart));
  for (PetscInt s = 0; s < P->nplanes; s++) {
    tstart[s] = ntab;
    ntab += PetscMax(0, PlaneKMax(t, (int)s) - PlaneKMin(t, (int)s) + 1);
  }
  tstart[P->nplanes] = ntab;
  PetscCall(PetscMalloc1(PetscMax(ntab, 1), &table));
  for (PetscInt s = 0; s < P->nplanes; s++) {
    P->start[s] = pos;
    for (PetscInt k = PlaneKMin(t, (int)s), e = tstart[s]; k <= PlaneKMax(t, (int)s); k++, e++) {
      table[e] = pos;
      pos += PetscMax(0, PlaneJMax(t, (int)s, (int)k) - PlaneJMin(t, (int)s, (int)k) + 1);
    }
    pos = (pos + 31) / 32 * 32;
  }
  P->start[P->nplanes] = pos;
  PetscCheck(pos <= PETSC_INT_MAX / 4, PETSC_COMM_SELF, PETSC_ERR_SUP, "The hyperplane order of %" PetscInt_FMT " points does not fit 32-bit indices", dims[0] * dims[1] * dims[2]);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&P->order, sizeof(int) * PetscMax(pos, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(P->order, 0xff, sizeof(int) * pos, stream)); /* -1: padding */
  PetscCallCUDA(cudaMallocAsync(&dtstart, sizeof(int) * (P->nplanes + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dtable, sizeof(int) * PetscMax(ntab, 1), stream));
  static_assert(sizeof(PetscInt) == sizeof(int), "SFPC's configure refuses 64-bit indices");
  PetscCallCUDA(cudaMemcpyAsync(dtstart, tstart, sizeof(int) * (P->nplanes + 1), cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaMemcpyAsync(dtable, table, sizeof(int) * ntab, cudaMemcpyHostToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* from pageable memory: free it only when the copies are done for certain */
  PetscCall(PetscFree(tstart));
  PetscCall(PetscFree(table));
  t.tstart = dtstart;
  t.table  = dtable;
  *tab     = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUPlaneTableFree(SFILUPlaneTable *tab)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaFreeAsync((void *)tab->tstart, stream));
  PetscCallCUDA(cudaFreeAsync((void *)tab->table, stream));
  tab->tstart = tab->table = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUPlanesDestroy_Device(SFILUPlanes *P)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (P->order) {
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaFreeAsync(P->order, stream));
    if (P->rec) PetscCallCUDA(cudaFreeAsync(P->rec, stream));
    if (P->pub) PetscCallCUDA(cudaFreeAsync(P->pub, stream));
    if (P->info) PetscCallCUDA(cudaFreeAsync(P->info, stream));
  }
  PetscCall(PetscFree(P->start));
  PetscCall(PetscMemzero(P, sizeof(*P)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
