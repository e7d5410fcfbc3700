/*
   MATHYBSF on the GPU: the triangle is taken from the source's device CSR, analysed and solved
   by the engine; nothing of the matrix passes through the host.
*/
#include <sfpc/private/hybsfimpl.h>
#include <sfpc/private/sfpcimpl.h>

#if defined(SFPC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

/*
   Builds (or, with reuse, refills) the device factor from A's device CSR. With the layout left to auto and no grid
   given, a grid read from A's pattern (a 7-point or 27-point stencil in natural order, SFPCGridGuess_Device()) gives
   the grid layout if the triangle fits its stencil: the sweeps walk the grid and no levels are computed. Otherwise,
   still with auto, A's block size gives the engine's point-blocks, which the sweep goes by where that shortens its
   chain of levels (SFPCTriDeviceSetBlocks(); a multi-field Jacobian such as SNES ex19's).
*/
PetscErrorCode MatHYBSFBuild_Device(Mat_HYBSF *h, Mat A, PetscBool reuse)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           n;
  const PetscBool    lower = (PetscBool)(h->tri == MAT_HYBSF_LOWER);
  SFPCTriOptions     o     = h->opt;
  PetscErrorCode     ierr;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &aa));
  /* a refused refill (checked on the device before anything is written) hands A back as it came, its arrays restored */
  if (reuse) ierr = SFPCTriangleSetValues_Device(h->T, ai, aj, aa, lower, h->unit);
  else {
    const PetscBool autolayout = (PetscBool)(o.layout == SFPC_LAYOUT_AUTO);
    PetscInt        bs;

    if (autolayout && o.grid[0] <= 0) PetscCall(SFPCGridGuess_Device(n, ai, aj, 1, SFPC_GRID_GUESS_BOX, o.grid));
    ierr = SFPCTriangleCreate_Device(n, ai, aj, aa, lower, h->unit, &o, &h->T);
    if (!ierr) ierr = MatGetBlockSize(A, &bs);
    if (!ierr && autolayout && !h->T->grid.nx && bs > 1) ierr = SFPCTriDeviceSetBlocks(h->T, bs, PETSC_BOOL3_UNKNOWN, PETSC_BOOL3_UNKNOWN);
  }
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &aa));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} b, or T^{-T} b. Host vectors pass through device copies. */
PetscErrorCode MatHYBSFSolve_Device(Mat_HYBSF *h, Vec b, Vec x, PetscBool transpose)
{
  SFPCStagedArrays a;
  const PetscBool  lower = (PetscBool)(h->tri == MAT_HYBSF_LOWER);

  PetscFunctionBegin;
  PetscCall(SFPCStagedArraysGet(b, x, "MATHYBSF", &h->work[0], &h->work[1], &a));
  PetscCall((transpose ? SFPCTriDeviceSweepTranspose : SFPCTriDeviceSweep)(h->T, lower, a.xa, a.ya));
  PetscCall(SFPCStagedArraysRestore(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A host copy of the engine factor's CSR (diagonal slots hold inverses), for conversion back to AIJ; caller frees with PetscFree3(). */
PetscErrorCode MatHYBSFGetCSR_Device(Mat_HYBSF *h, PetscInt **i, PetscInt **j, PetscScalar **a)
{
  SFPCTriDevice T = h->T;
  cudaStream_t  stream;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(T->n + 1, i, T->nnz, j, T->nnz, a));
  /* on PETSc's stream, which wrote T->a (a refill enqueues and returns); cudaMemcpy() would not wait for a non-blocking one */
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(*i, T->i, sizeof(PetscInt) * (T->n + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(*j, T->j, sizeof(PetscInt) * T->nnz, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(*a, T->a, sizeof(PetscScalar) * T->nnz, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatHYBSFSetGrid_Device(Mat_HYBSF *h, const PetscInt dims[3])
{
  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceSetGrid(h->T, dims));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatHYBSFReset_Device(Mat_HYBSF *h)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceDestroy(&h->T));
  PetscCall(VecDestroy(&h->work[0]));
  PetscCall(VecDestroy(&h->work[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
  #define HYBSF_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC was built without CUDA")
PetscErrorCode MatHYBSFBuild_Device(Mat_HYBSF *h, Mat A, PetscBool reuse)
{
  (void)h, (void)A, (void)reuse;
  HYBSF_NO_CUDA;
}
PetscErrorCode MatHYBSFSolve_Device(Mat_HYBSF *h, Vec b, Vec x, PetscBool transpose)
{
  (void)h, (void)b, (void)x, (void)transpose;
  HYBSF_NO_CUDA;
}
PetscErrorCode MatHYBSFGetCSR_Device(Mat_HYBSF *h, PetscInt **i, PetscInt **j, PetscScalar **a)
{
  (void)h, (void)i, (void)j, (void)a;
  HYBSF_NO_CUDA;
}
PetscErrorCode MatHYBSFSetGrid_Device(Mat_HYBSF *h, const PetscInt dims[3])
{
  (void)h, (void)dims;
  HYBSF_NO_CUDA;
}
PetscErrorCode MatHYBSFReset_Device(Mat_HYBSF *h)
{
  (void)h;
  return PETSC_SUCCESS;
}
#endif
