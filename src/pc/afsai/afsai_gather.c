/*
   -pc_afsai_gather <k>: aFSAI across MPI ranks with the rows of A within graph distance k of a
   rank's rows gathered onto it (the row gathering of shared/notes/seed-002-chronos.md), so that
   the pattern search of an owned row also sees its neighbours on other ranks. G then has global
   columns (MPIAIJ), G^T is formed explicitly, and the apply is PETSc's parallel MatMult twice.
   The gathered matrix's rows are sorted by global number, so "j < i" there is "j < i" globally
   and the owned rows are one contiguous block of it: the search and values are those of
   afsai_host.c, or of afsai_device.cu when A is MATMPIAIJCUSPARSE (the gathered matrix is then a
   MATSEQAIJCUSPARSE; both search only the owned rows of it and read the others).
   G and G^T are assembled through PETSc's COO interface: G's entries (i, j) with global numbers,
   G^T's the same entries as (j, i) with the same value array, so neither a transpose nor a
   per-entry MatSetValues is needed, G^T's rows owned elsewhere travel in MatSetValuesCOO(), and
   new values (from host or device memory) are pushed by MatSetValuesCOO() alone. On
   MATMPIAIJCUSPARSE G and G^T are MATMPIAIJCUSPARSE and the apply runs on the GPU.
*/
#include "afsai.h"

/* The gathered matrix: A's rows (and columns) within distance k of this rank's rows; the first owned row's place in it. */
static PetscErrorCode GatherRows(PC_AFSAI *s, Mat A, PetscBool newpattern)
{
  PetscInt rstart, n;

  PetscFunctionBegin;
  if (newpattern) {
    PetscCall(ISDestroy(&s->ext));
    PetscCall(MatDestroySubMatrices(1, &s->Aext));
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    PetscCall(MatGetLocalSize(A, &n, NULL));
    PetscCall(ISCreateStride(PETSC_COMM_SELF, n, rstart, 1, &s->ext));
    PetscCall(MatIncreaseOverlap(A, 1, &s->ext, s->gather));
    PetscCall(ISSort(s->ext));
    PetscCall(ISLocate(s->ext, rstart, &s->first));
    if (n == 0) s->first = 0;
  }
  PetscCall(MatCreateSubMatrices(A, 1, &s->ext, &s->ext, newpattern ? MAT_INITIAL_MATRIX : MAT_REUSE_MATRIX, &s->Aext));
  if (!newpattern) { /* the reuse writes the new values into the host array directly: say so, or a CUSPARSE copy keeps its old device values */
    PetscScalar *a;
    PetscCall(MatSeqAIJGetArrayWrite(s->Aext[0], &a));
    PetscCall(MatSeqAIJRestoreArrayWrite(s->Aext[0], &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G and G^T (MPI, of A's kind: MPIAIJ or MPIAIJCUSPARSE) with COO preallocations of the pattern gi, gj (gathered numbering). */
static PetscErrorCode CreateFactors(PC_AFSAI *s, Mat A, const PetscInt gi[], const PetscInt gj[])
{
  const PetscInt *ext;
  const PetscInt  nnz = gi[s->n];
  PetscInt        rstart, *ci, *cj;
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(ISGetIndices(s->ext, &ext));
  PetscCall(PetscMalloc2(nnz, &ci, nnz, &cj));
  for (PetscInt t = 0; t < 2; t++) { /* t = 0: G, (i, j); t = 1: G^T, (j, i); MatSetPreallocationCOO() may reorder its arrays, so they are refilled */
    Mat *M = t ? &s->Gt : &s->G;
    for (PetscInt l = 0; l < s->n; l++)
      for (PetscInt k = gi[l]; k < gi[l + 1]; k++) {
        ci[k] = t ? ext[gj[k]] : rstart + l;
        cj[k] = t ? rstart + l : ext[gj[k]];
      }
    PetscCall(MatCreate(comm, M));
    PetscCall(MatSetSizes(*M, s->n, s->n, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(*M, s->ondevice ? MATMPIAIJCUSPARSE : MATMPIAIJ));
    PetscCall(MatSetPreallocationCOO(*M, nnz, ci, cj));
  }
  PetscCall(PetscFree2(ci, cj));
  PetscCall(ISRestoreIndices(s->ext, &ext));
  PetscCall(MatCreateVecs(s->G, NULL, &s->w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The set-up of the gathered mode; times and failures as the other set-ups report them. */
PetscErrorCode AFSAISetUp_Gather(PC_AFSAI *s, Mat A, PetscBool newpattern, PetscInt *nnzA)
{
  Mat                Aext;
  AFSAICSR           csr;
  const PetscInt    *gi = NULL, *gj = NULL;
  const PetscScalar *ga = NULL;
  PetscScalar       *hga = NULL;
  PetscLogDouble     t0, t1, t2, t3;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(GatherRows(s, A, newpattern));
  Aext = s->Aext[0];
  PetscCall(MatGetRowIJ(Aext, 0, PETSC_FALSE, PETSC_FALSE, &csr.n, &csr.ai, &csr.aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAFSAI cannot read the CSR structure of the gathered rows");
  *nnzA = s->n ? csr.ai[s->first + s->n] - csr.ai[s->first] : 0;
  if (!s->devsetup) { /* the host reads the values too (a CUSPARSE gathered matrix: its host copy, which MatCreateSubMatrices() wrote) */
    PetscCall(MatSeqAIJGetArrayRead(Aext, &csr.aa));
    csr.maxrow = 0;
    for (PetscInt i = 0; i < csr.n; i++) csr.maxrow = PetscMax(csr.maxrow, csr.ai[i + 1] - csr.ai[i]);
  }
  if (newpattern) {
    PetscCall(AFSAIPatternDestroy(&s->pat));
    PetscCall(MatDestroy(&s->G));
    PetscCall(MatDestroy(&s->Gt));
    PetscCall(AFSAIDeviceDestroy(&s->dev));
    PetscCall(VecDestroy(&s->w));
    PetscCall(PetscLogEventBegin(SFPC_AFSAIPattern, A, 0, 0, 0));
    if (s->devsetup) PetscCall(AFSAIPattern_Device(Aext, &s->p, s->first, s->first + s->n, &s->dev, &s->pat, &s->fail));
    else PetscCall(AFSAIPattern_Host(&csr, &s->p, s->first, s->first + s->n, &s->pat, &s->fail));
    PetscCall(PetscLogEventEnd(SFPC_AFSAIPattern, A, 0, 0, 0));
  }
  PetscCall(PetscTime(&t1));
  if (newpattern) s->tpattern = t1 - t0;
  PetscCall(PetscLogEventBegin(SFPC_AFSAIValues, A, 0, 0, 0)); /* on every rank, failed or not: under -log_sync events are collective */
  if (!s->fail.cause && s->devsetup) {
    PetscCall(AFSAIValues_Device(Aext, s->dev, &s->fail)); /* ends with a device synchronization (the failure check) */
    if (!s->fail.cause) PetscCall(AFSAIDeviceGetFactor(s->dev, &gi, &gj, &ga));
  } else if (!s->fail.cause) {
    PetscCall(PetscMalloc1(s->pat.gi[s->n] + 1, &hga));
    PetscCall(AFSAIValues_Host(&csr, &s->pat, s->first, s->first + s->n, hga, &s->fail));
    gi = s->pat.gi;
    gj = s->pat.gj;
    ga = hga;
  }
  PetscCall(PetscLogEventEnd(SFPC_AFSAIValues, A, 0, 0, 0));
  if (!s->devsetup) PetscCall(MatSeqAIJRestoreArrayRead(Aext, &csr.aa));
  PetscCall(MatRestoreRowIJ(Aext, 0, PETSC_FALSE, PETSC_FALSE, &csr.n, &csr.ai, &csr.aj, &done));
  PetscCall(PetscTime(&t2));
  s->tvalues = t2 - t1;
  { /* G's assembly is collective: all ranks build it, or (some rank failed) none */
    PetscInt failed = s->fail.cause ? 1 : 0, anyfailed;
    PetscCallMPI(MPIU_Allreduce(&failed, &anyfailed, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (anyfailed) {
      PetscCall(PetscFree(hga));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (!s->G) PetscCall(CreateFactors(s, A, gi, gj));
  /* the values in G's CSR order are G's COO values, and G^T's (its entries were given in the same order) */
  PetscCall(MatSetValuesCOO(s->G, ga, INSERT_VALUES));
  PetscCall(MatSetValuesCOO(s->Gt, ga, INSERT_VALUES));
  PetscCall(PetscFree(hga));
  PetscCall(PetscTime(&t3));
  s->ttranspose = t3 - t2;
  PetscFunctionReturn(PETSC_SUCCESS);
}
