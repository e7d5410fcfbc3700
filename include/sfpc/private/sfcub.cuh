/*
   cub's two-phase device algorithms (first asked for their temporary storage with a NULL pointer,
   then run with it) on PETSc's stream, in one place. The storage is stream-ordered
   (cudaMallocAsync/cudaFreeAsync on the stream the calls run on): the pool reuses it and nothing
   synchronizes.

   A call is a callable op(void *tmp, size_t &bytes) returning cub's cudaError_t, e.g.
     [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, stream); }
   so its arguments are written once for both phases.
*/
#pragma once

#include <petscdevice_cuda.h>

namespace sfpc
{
/* Temporary storage shared by several cub calls: sized for the largest of them, each run gets all of it. */
struct CubScratch {
  void  *ptr   = NULL;
  size_t bytes = 0;
};

/* Grows s to what op needs (the query: nothing runs on the device). */
template <class Op>
inline PetscErrorCode CubReserve(CubScratch &s, Op op)
{
  size_t need = 0;

  PetscFunctionBegin;
  PetscCallCUDA(op(NULL, need));
  s.bytes = PetscMax(s.bytes, need);
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode CubAllocate(CubScratch &s, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMallocAsync(&s.ptr, s.bytes, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs op in s (allocated, and reserved for op). */
template <class Op>
inline PetscErrorCode CubRun(CubScratch &s, Op op)
{
  size_t bytes = s.bytes;

  PetscFunctionBegin;
  PetscCallCUDA(op(s.ptr, bytes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode CubRelease(CubScratch &s, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFreeAsync(s.ptr, stream));
  s.ptr   = NULL;
  s.bytes = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One cub call with storage of its own: query, allocate on stream, run, free on stream. */
template <class Op>
inline PetscErrorCode CubCall(cudaStream_t stream, Op op)
{
  CubScratch s;

  PetscFunctionBegin;
  PetscCall(CubReserve(s, op));
  PetscCall(CubAllocate(s, stream));
  PetscCall(CubRun(s, op));
  PetscCall(CubRelease(s, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace sfpc
