/*
   The matrix a PC builds from: A itself, or on an MPI matrix each rank's diagonal block (block Jacobi, as PETSc's
   parallel ILU through PCBJACOBI). One check for sfilu, sfdilu and afsai, so that they accept the same types and
   say so in the same words.
*/
#include <sfpc/private/sfpcimpl.h>

/* Ad: A or its diagonal block (not a new reference); cusparse: Ad is MATSEQAIJCUSPARSE; bound: it is bound to the CPU (its values live on the host). */
PetscErrorCode SFPCLocalAIJ(Mat A, const char *who, Mat *Ad, PetscBool *cusparse, PetscBool *bound)
{
  PetscBool isseq, ismpi;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  PetscCall(MatGetType(A, &type));
  PetscCheck(isseq || ismpi, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "%s supports %s, %s and, through each rank's diagonal block, %s and %s; not %s", who, MATSEQAIJ, MATSEQAIJCUSPARSE, MATMPIAIJ, MATMPIAIJCUSPARSE, type);
  *Ad = A;
  if (ismpi) {
    PetscLayout rows, cols;
    PetscBool   same;
    /* the diagonal block is square only where the rows and columns are split alike (the same answer on every rank) */
    PetscCall(MatGetLayouts(A, &rows, &cols));
    PetscCall(PetscLayoutCompare(rows, cols, &same));
    PetscCheck(same, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP, "%s needs the rows and the columns of a %s split alike over the ranks (each rank's diagonal block square)", who, type);
    PetscCall(MatGetDiagonalBlock(A, Ad));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)*Ad, MATSEQAIJCUSPARSE, cusparse));
  *bound = PETSC_FALSE;
  if (*cusparse) PetscCall(MatBoundToCPU(*Ad, bound));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A failure of the blocks as one answer on every rank (Collective): failure and row (-1: none) are this rank's,
   row counted in its block, which starts at global row rstart; gfailure and grow are the failure in the lowest
   global row of any rank, nfailed how many ranks failed. A view that shows rank 0's block thus still says when
   another rank's failed, and where.
*/
PetscErrorCode SFPCBlockFailure(MPI_Comm comm, PetscInt rstart, PCFailedReason failure, PetscInt row, PCFailedReason *gfailure, PetscInt *grow, PetscInt *nfailed)
{
  const PetscInt64 nr     = PC_SUBPC_ERROR + 1; /* above every reason */
  PetscInt64       key[2] = {PETSC_INT64_MAX, 0};

  PetscFunctionBegin;
  if (failure != PC_NOERROR) {
    key[0] = (PetscInt64)(rstart + PetscMax(row, 0)) * nr + (PetscInt64)failure;
    key[1] = -1;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, key, 1, MPIU_INT64, MPI_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, key + 1, 1, MPIU_INT64, MPI_SUM, comm));
  *nfailed = (PetscInt)-key[1];
  *gfailure = *nfailed ? (PCFailedReason)(key[0] % nr) : PC_NOERROR;
  *grow     = *nfailed ? (PetscInt)(key[0] / nr) : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}
