/*
   -pc_afsai_gather <k>: aFSAI across MPI ranks with the rows of A within graph distance k of a
   rank's rows gathered onto it (the row gathering of shared/notes/seed-002-chronos.md), so that
   the pattern search of an owned row also sees its neighbours on other ranks. G then has global
   columns (MPIAIJ), G^T is formed explicitly, and the apply is PETSc's parallel MatMult twice.
   Host set-up (also for CUSPARSE matrices: their host copy); the search and values are those of
   afsai_host.c on the gathered matrix, whose rows are sorted by global number, so "j < i" there
   is "j < i" globally and the owned rows are one contiguous block of it.
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G (MPIAIJ, this rank's rows, global columns) with the values ga of the pattern (gathered numbering); created on a new pattern. */
static PetscErrorCode FillG(PC_AFSAI *s, Mat A, const PetscScalar ga[], PetscBool newpattern)
{
  const PetscInt *ext;
  PetscInt        rstart, rend, maxlen = 0, *cols;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(ISGetIndices(s->ext, &ext));
  for (PetscInt l = 0; l < s->n; l++) maxlen = PetscMax(maxlen, s->pat.gi[l + 1] - s->pat.gi[l]);
  PetscCall(PetscMalloc1(maxlen + 1, &cols));
  if (newpattern) {
    PetscInt *dnz, *onz;
    PetscCall(PetscCalloc2(s->n + 1, &dnz, s->n + 1, &onz));
    for (PetscInt l = 0; l < s->n; l++)
      for (PetscInt k = s->pat.gi[l]; k < s->pat.gi[l + 1]; k++) {
        const PetscInt c = ext[s->pat.gj[k]];
        if (c >= rstart && c < rend) dnz[l]++;
        else onz[l]++;
      }
    PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)A), s->n, s->n, PETSC_DETERMINE, PETSC_DETERMINE, 0, dnz, 0, onz, &s->G));
    PetscCall(PetscFree2(dnz, onz));
  }
  for (PetscInt l = 0; l < s->n; l++) {
    const PetscInt row = rstart + l, len = s->pat.gi[l + 1] - s->pat.gi[l];
    for (PetscInt k = 0; k < len; k++) cols[k] = ext[s->pat.gj[s->pat.gi[l] + k]];
    PetscCall(MatSetValues(s->G, 1, &row, len, cols, ga + s->pat.gi[l], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(s->G, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(s->G, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(cols));
  PetscCall(ISRestoreIndices(s->ext, &ext));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The set-up of the gathered mode; times and failures as the other set-ups report them. */
PetscErrorCode AFSAISetUp_Gather(PC_AFSAI *s, Mat A, PetscBool newpattern, PetscInt *nnzA)
{
  AFSAICSR       csr;
  PetscScalar   *ga = NULL;
  PetscLogDouble t0, t1, t2, t3;
  PetscBool      done;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(GatherRows(s, A, newpattern));
  PetscCall(MatGetRowIJ(s->Aext[0], 0, PETSC_FALSE, PETSC_FALSE, &csr.n, &csr.ai, &csr.aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAFSAI cannot read the CSR structure of the gathered rows");
  PetscCall(MatSeqAIJGetArrayRead(s->Aext[0], &csr.aa));
  csr.maxrow = 0;
  for (PetscInt i = 0; i < csr.n; i++) csr.maxrow = PetscMax(csr.maxrow, csr.ai[i + 1] - csr.ai[i]);
  *nnzA = s->n ? csr.ai[s->first + s->n] - csr.ai[s->first] : 0;
  if (newpattern) {
    PetscCall(AFSAIPatternDestroy(&s->pat));
    PetscCall(MatDestroy(&s->G));
    PetscCall(MatDestroy(&s->Gt));
    PetscCall(VecDestroy(&s->w));
    PetscCall(PetscLogEventBegin(SFPC_AFSAIPattern, A, 0, 0, 0));
    PetscCall(AFSAIPattern_Host(&csr, &s->p, s->first, s->first + s->n, &s->pat, &s->fail));
    PetscCall(PetscLogEventEnd(SFPC_AFSAIPattern, A, 0, 0, 0));
  }
  PetscCall(PetscTime(&t1));
  if (newpattern) s->tpattern = t1 - t0;
  PetscCall(PetscLogEventBegin(SFPC_AFSAIValues, A, 0, 0, 0)); /* on every rank, failed or not: under -log_sync events are collective */
  if (!s->fail.cause) {
    PetscCall(PetscMalloc1(s->pat.gi[s->n] + 1, &ga));
    PetscCall(AFSAIValues_Host(&csr, &s->pat, s->first, s->first + s->n, ga, &s->fail));
  }
  PetscCall(PetscLogEventEnd(SFPC_AFSAIValues, A, 0, 0, 0));
  PetscCall(MatSeqAIJRestoreArrayRead(s->Aext[0], &csr.aa));
  PetscCall(MatRestoreRowIJ(s->Aext[0], 0, PETSC_FALSE, PETSC_FALSE, &csr.n, &csr.ai, &csr.aj, &done));
  PetscCall(PetscTime(&t2));
  s->tvalues = t2 - t1;
  { /* G's assembly and transpose are collective: all ranks build it, or (some rank failed) none */
    PetscInt failed = s->fail.cause ? 1 : 0, anyfailed;
    PetscCallMPI(MPIU_Allreduce(&failed, &anyfailed, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
    if (anyfailed) {
      PetscCall(PetscFree(ga));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  {
    PetscCall(FillG(s, A, ga, (PetscBool)!s->G));
    PetscCall(MatTranspose(s->G, s->Gt ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &s->Gt));
    if (!s->w) PetscCall(MatCreateVecs(s->G, NULL, &s->w));
  }
  PetscCall(PetscFree(ga));
  PetscCall(PetscTime(&t3));
  s->ttranspose = t3 - t2;
  PetscFunctionReturn(PETSC_SUCCESS);
}
