/*
   The GPU side of the SFILU factor, for MATSEQAIJCUSPARSE: the factor, its analysis and its
   solves stay on the GPU. The matrix is read through PETSc's device CSR; nothing of it is
   copied to the host.
*/
#include "sfilu.h"

#if defined(SFPC_HAVE_CUDA)
  #include <petscdevice_cuda.h>

/* SFPCGridGuess() on the device CSR of A */
PetscErrorCode SFILUGridGuess_Device(Mat A, PetscBool box, PetscInt dims[3])
{
  const PetscInt *ai, *aj;
  PetscInt        n;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(SFPCGridGuess_Device(n, ai, aj, 1, box ? SFPC_GRID_GUESS_BOX : 0, dims));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The analysis of A's pattern, from its device CSR; or of the ILU(k) pattern (pi, pj) built on the host (SFILUFillPattern()), copied up. */
PetscErrorCode SFILUSymbolic_Device(SFILU *s, Mat A, const PetscInt pi[], const PetscInt pj[])
{
  const PetscInt *ai, *aj;
  PetscInt        n;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(SFILUMatchMapDestroy_Device(&s->map)); /* the map and the blocks belong to the pattern and schedule being replaced */
  PetscCall(SFILUBlocksDestroy_Device(&s->blocks));
  if (pi) {
    PetscInt      *di, *dj;
    cudaStream_t   stream;
    PetscErrorCode ierr;

    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCallCUDA(cudaMallocAsync((void **)&di, sizeof(PetscInt) * (n + 1), stream));
    PetscCallCUDA(cudaMallocAsync((void **)&dj, sizeof(PetscInt) * PetscMax(pi[n], 1), stream));
    PetscCallCUDA(cudaMemcpyAsync(di, pi, sizeof(PetscInt) * (n + 1), cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaMemcpyAsync(dj, pj, sizeof(PetscInt) * pi[n], cudaMemcpyHostToDevice, stream));
    ierr = SFPCTriDeviceCreate(n, pi[n], di, dj, PETSC_TRUE, &s->engine, &s->T); /* built here from a checked pattern; it keeps copies, so di and dj go on an error too */
    PetscCallCUDA(cudaFreeAsync(di, stream));
    PetscCallCUDA(cudaFreeAsync(dj, stream));
    PetscCall(ierr);
    PetscCall(PetscLogCpuToGpu(sizeof(PetscInt) * (n + 1 + pi[n])));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(SFPCTriDeviceCreate(n, -1, ai, aj, PETSC_FALSE, &s->engine, &s->T));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  if (s->sip && n > 0) { /* the grid check runs once per pattern, on the device copy of it (a rank without rows has nothing to check or order) */
    PetscErrorCode ierr = SFILUCheckSIPPattern_Device(s->T, s->sip_dims, s->engine.grid_guessed);
    if (!ierr) ierr = SFILUSIPPlanesCreate_Device(s->T, s->sip_dims, &s->planes);
    if (ierr) PetscCall(SFILUReset_Device(s));
    PetscCall(ierr);
  } else if (s->grid_factor && s->T->grid.nx > 0 && n > 0) { /* the grid layout's check stands for the kernels' (the same stencil test) */
    if (s->T->grid.box) PetscCall(SFILUBoxPlanesCreate_Device(s->T, &s->planes));
    else {
      const PetscInt dims[3] = {s->T->grid.nx, s->T->grid.ny, s->T->grid.nz};
      PetscCall(SFILUSIPPlanesCreate_Device(s->T, dims, &s->planes));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   ILU(0) on the grid layout is factored by SIP's hyperplane kernel with alpha 0 (sippoint.h: then
   exactly ILU(0)'s operations, so the factor is the host's bit for bit): the generic sync-free
   ILU(0) kernel pays a flag and a pattern merge per dependency, the hyperplane one reads per-point
   records and polls published values: on an H100 the refactorization at 128^3 took 1.17 ms instead
   of 6.01 (bench/README.md, sfilu). A 27-point grid has its own hyperplane kernel (ilu0_box_device.cu,
   planes with weights 2, 4).
*/
PetscBool SFILUHyperplaneILU0_Device(SFILU *s)
{
  return (PetscBool)(!s->sip && s->planes.start != NULL);
}

/* A's device values, for the numeric factorization; also applies the current warps-per-SM setting and block size (the engine's point-blocks: its sweeps and the factorization's order). */
PetscErrorCode SFILUGetValues_Device(SFILU *s, Mat A, const PetscScalar **aa)
{
  PetscInt bs = s->block_size;

  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceSetWarpsPerSM(s->T, s->engine.warps_per_sm));
  if (bs == PETSC_DECIDE) PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(SFPCTriDeviceSetBlocks(s->T, bs, s->block_sweeps, s->block_slabs));
  /* s->blocks borrows the engine's block order: after the engine rebuilt its blocks (another block size or block sweep
     options) the next factorization sets them up again */
  if (bs != s->block_rows || (s->blocks.tried && s->blocks.epoch != s->T->blocks_epoch)) {
    PetscCall(SFILUBlocksDestroy_Device(&s->blocks));
    s->block_rows = bs;
  }
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUAttempt_Device(SFILU *s, const PetscScalar *aa, PetscReal shift, PetscBool positive, SFILUResult *res)
{
  PetscFunctionBegin;
  if (!s->sip && !SFILUHyperplaneILU0_Device(s)) {
    const PetscBool usemap = SFILUFactorMatchUsesMap(s->factor_match);

    /* blocks first: dense blocks have their own map, of the points' pattern; the rows' map (a factor's worth of words) only where used */
    if (s->block_rows > 1 && (!s->blocks.tried || s->blocks.tried_map != usemap)) PetscCall(SFILUBlocksCreate_Device(s->T, usemap ? &s->map : NULL, s->block_rows, &s->blocks));
    if (usemap && !s->blocks.dense && !s->map.lstart) PetscCall(SFILUMatchMapCreate_Device(s->T, &s->map));
    if (s->blocks.bs > 1) PetscCall(SFILUFactorBlocks_Device(s->T, s->blocks.dense ? NULL : &s->map, &s->blocks, aa, shift, s->zeropivot, positive, res));
    else PetscCall(SFILUFactorNumeric_Device(s->T, &s->map, aa, shift, s->zeropivot, positive, s->factor_match, res));
    PetscCall(SFPCTriDeviceValuesChanged(s->T));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (s->sip) PetscCall(SFILUFactorSIP_Device(s->T, &s->planes, aa, s->sip_alpha, s->sip_variant, shift, s->zeropivot, positive, res));
  else if (s->T->grid.box) PetscCall(SFILUFactorBox_Device(s->T, &s->planes, aa, shift, s->zeropivot, positive, res));
  else PetscCall(SFILUFactorSIP_Device(s->T, &s->planes, aa, 0.0, SFILU_SIP_SYNCFREE, shift, s->zeropivot, positive, res));
  PetscCall(SFPCTriDeviceValuesChangedGridFilled(s->T)); /* the hyperplane kernels store the grid sweeps' slabs themselves */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUBounds_Device(SFILU *s, const PetscScalar *aa, PetscReal *rmax, PetscReal *top)
{
  PetscFunctionBegin;
  PetscCall(SFILUShiftBounds_Device(s->T, aa, rmax, top));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Device memory of a match map of n rows. */
static double MatchMapMiB(const SFILUMatchMap *M, PetscInt n)
{
  return ((double)SFILU_MATCH_WORDS * sizeof(unsigned) * M->nl + sizeof(int) * (n + 1.0)) / 1048576.0;
}

PetscErrorCode SFILUView_Device(SFILU *s, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceView(s->T, viewer));
  if (s->map.lstart) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0) match map: %.3g MiB on the device\n", MatchMapMiB(&s->map, s->T->n)));
  if (s->blocks.dense) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0) factored by blocks of %" PetscInt_FMT " rows as dense blocks (their U values matched by points, map: %.3g MiB), a warp each: %" PetscInt_FMT " blocks, %" PetscInt_FMT " levels of the block graph (largest block: %" PetscInt_FMT " entries, %" PetscInt_FMT " U values staged)\n", s->blocks.bs, MatchMapMiB(&s->blocks.nodes, s->blocks.nb), s->blocks.nb, s->blocks.nlevels, s->blocks.max_entries, s->blocks.max_stage));
  else if (s->blocks.bs > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0) factored by blocks of %" PetscInt_FMT " rows, a warp each: %" PetscInt_FMT " blocks, %" PetscInt_FMT " levels of the block graph (largest block: %" PetscInt_FMT " entries, %" PetscInt_FMT " L entries, %" PetscInt_FMT " U values staged)\n", s->blocks.bs, s->blocks.nb, s->blocks.nlevels, s->blocks.max_entries, s->blocks.max_lentries, s->blocks.max_stage));
  else if (s->blocks.why && s->blocks.dense_why) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0) factored row by row, not by blocks of %" PetscInt_FMT " rows: %s; nor by dense blocks: %s\n", s->block_rows, s->blocks.why, s->blocks.dense_why));
  else if (s->blocks.why) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0) factored row by row, not by blocks of %" PetscInt_FMT " rows: %s\n", s->block_rows, s->blocks.why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILURestoreValues_Device(Mat A, const PetscScalar **aa)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, aa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-1} x, or (LU)^{-T} x. Host vectors (a device matrix used with -vec_type standard) pass through device copies. */
PetscErrorCode SFILUApply_Device(SFILU *s, Vec x, Vec y, PetscBool transpose)
{
  SFPCStagedArrays a;

  PetscFunctionBegin;
  PetscCall(SFPCStagedArraysGet(x, y, "sfilu", &s->xd, &s->yd, &a));
  PetscCall((transpose ? SFPCTriDeviceSolveTranspose : SFPCTriDeviceSolve)(s->T, a.xa, a.ya));
  PetscCall(SFPCStagedArraysRestore(y, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether SFILUResidualApply_Device() fuses the residual into the L sweep (the grid layout's). */
PetscBool SFILUHasFusedResidual_Device(SFILU *s)
{
  return (PetscBool)(s->ondevice && SFPCTriDeviceHasFusedResidual(s->T));
}

/* Whether the fused residual (product: A x alone) is faster than MatResidual() (MatMult()) and the apply on s's grid (the default of -pc_sfilu_richardson_fused and -pc_sfilu_ba_fused). */
PetscBool SFILUFusedResidualPays_Device(SFILU *s, PetscBool product)
{
  return (PetscBool)(SFILUHasFusedResidual_Device(s) && SFPCTriDeviceFusedResidualPays(s->T, product));
}

/*
   y = (LU)^{-1} r with r = b - A x formed inside the L sweep (fuse: A is the matrix factored, its pattern unchanged,
   SFPCSetUpStampHolds(); on the device), and ||r|| (type NORM_1 or NORM_2) when rnorm is given; without b (NULL),
   r = A x. Otherwise (another operator, host vectors) MatResidual() (MatMult()) and the apply.
*/
PetscErrorCode SFILUResidualApply_Device(SFILU *s, Mat A, PetscBool fuse, Vec b, Vec x, Vec r, Vec y, NormType type, PetscReal *rnorm)
{
  const PetscScalar *ba, *xa, *aa;
  PetscScalar       *ra, *ya;
  const PetscInt    *ai, *aj;
  PetscMemType       mb, mx, mr, my;
  PetscBool          fused;

  PetscFunctionBegin;
  if (b) PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
  else ba = NULL, mb = PETSC_MEMTYPE_DEVICE;
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  PetscCall(VecGetArrayWriteAndMemType(r, &ra, &mr));
  PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
  fused = (PetscBool)(fuse && PetscMemTypeDevice(mb) && PetscMemTypeDevice(mx) && PetscMemTypeDevice(mr) && PetscMemTypeDevice(my));
  if (fused) {
    PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &aa));
    PetscCall(SFPCTriDeviceSolveResidual(s->T, (const int *)ai, (const int *)aj, aa, ba, xa, ra, type, ya, rnorm));
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &aa));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  }
  PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
  PetscCall(VecRestoreArrayWriteAndMemType(r, &ra));
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (b) PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
  if (!fused) {
    if (b) PetscCall(MatResidual(A, b, x, r));
    else PetscCall(MatMult(A, x, r));
    if (rnorm) PetscCall(VecNorm(r, type, rnorm));
    PetscCall(SFILUApply_Device(s, r, y, PETSC_FALSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factor's values, into a host array of T->nnz entries (for views only). */
PetscErrorCode SFILUCopyFactorToHost_Device(SFILU *s, PetscScalar *a)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(a, s->T->a, sizeof(PetscScalar) * s->T->nnz, cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUReset_Device(SFILU *s)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriDeviceDestroy(&s->T));
  PetscCall(SFILUPlanesDestroy_Device(&s->planes));
  PetscCall(SFILUMatchMapDestroy_Device(&s->map));
  PetscCall(SFILUBlocksDestroy_Device(&s->blocks));
  PetscCall(SFILUFillDestroy_Device(&s->fill));
  PetscCall(SFILUFillDestroy_Device(&s->mirror));
  PetscCall(VecDestroy(&s->xd));
  PetscCall(VecDestroy(&s->yd));
  PetscCall(VecDestroy(&s->delta));
  s->ondevice = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
/* Built without CUDA (SFPC_WITH_CUDA=0): SFILUCheckMatrix() never selects the device, so these only reset or refuse. */
PetscErrorCode SFILUReset_Device(SFILU *s)
{
  s->ondevice = PETSC_FALSE;
  return PETSC_SUCCESS;
}
  #define SFILU_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC was built without CUDA")
PetscErrorCode SFILUSymbolic_Device(SFILU *s, Mat A, const PetscInt pi[], const PetscInt pj[])
{
  (void)s, (void)A, (void)pi, (void)pj;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUFillCreate_Device(SFILUFill *f, const PetscInt fmap[])
{
  (void)f, (void)fmap;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUFillValues_Device(SFILUFill *f, const PetscScalar *aa)
{
  (void)f, (void)aa;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUFillDestroy_Device(SFILUFill *f)
{
  (void)f;
  return PETSC_SUCCESS;
}
PetscErrorCode SFILUFillCompose_Device(SFILUFill *outer, const SFILUFill *inner)
{
  (void)outer, (void)inner;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUMirrorCreate_Device(SFILUFill *f, Mat A, PetscBool *ok)
{
  (void)f, (void)A, (void)ok;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUGetValues_Device(SFILU *s, Mat A, const PetscScalar **aa)
{
  (void)s, (void)A, (void)aa;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUGridGuess_Device(Mat A, PetscBool box, PetscInt dims[3])
{
  (void)A, (void)box, (void)dims;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILURestoreValues_Device(Mat A, const PetscScalar **aa)
{
  (void)A, (void)aa;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUAttempt_Device(SFILU *s, const PetscScalar *aa, PetscReal shift, PetscBool positive, SFILUResult *res)
{
  (void)s, (void)aa, (void)shift, (void)positive, (void)res;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUBounds_Device(SFILU *s, const PetscScalar *aa, PetscReal *rmax, PetscReal *top)
{
  (void)s, (void)aa, (void)rmax, (void)top;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUView_Device(SFILU *s, PetscViewer viewer)
{
  (void)s, (void)viewer;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUApply_Device(SFILU *s, Vec x, Vec y, PetscBool transpose)
{
  (void)s, (void)x, (void)y, (void)transpose;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUCopyFactorToHost_Device(SFILU *s, PetscScalar *a)
{
  (void)s, (void)a;
  SFILU_NO_CUDA;
}
PetscBool SFILUHyperplaneILU0_Device(SFILU *s)
{
  (void)s;
  return PETSC_FALSE;
}
PetscErrorCode SFILUDILUForm_Device(SFPCTriDevice T, PetscInt *row, PetscInt *col)
{
  (void)T, (void)row, (void)col;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUEisenstatDiagonals_Device(SFILU *s, Vec dinv, Vec k)
{
  (void)s, (void)dinv, (void)k;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUEisenstatMultUpper_Device(SFILU *s, Vec x, Vec y)
{
  (void)s, (void)x, (void)y;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUSweep_Device(SFILU *s, PetscBool lower, Vec b, Vec x)
{
  (void)s, (void)lower, (void)b, (void)x;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUInverseDiagonal_Device(SFILU *s, Vec d)
{
  (void)s, (void)d;
  SFILU_NO_CUDA;
}
PetscErrorCode SFILUEisenstatMult_Device(SFILU *s, Vec x, Vec y)
{
  (void)s, (void)x, (void)y;
  SFILU_NO_CUDA;
}
PetscBool SFILUHasFusedResidual_Device(SFILU *s)
{
  (void)s;
  return PETSC_FALSE;
}
PetscBool SFILUFusedResidualPays_Device(SFILU *s, PetscBool product)
{
  (void)s, (void)product;
  return PETSC_FALSE;
}
PetscErrorCode SFILUResidualApply_Device(SFILU *s, Mat A, PetscBool fuse, Vec b, Vec x, Vec r, Vec y, NormType type, PetscReal *rnorm)
{
  (void)s, (void)A, (void)fuse, (void)b, (void)x, (void)r, (void)y, (void)type, (void)rnorm;
  SFILU_NO_CUDA;
}
#endif
