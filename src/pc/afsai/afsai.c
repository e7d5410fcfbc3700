/*
   PCAFSAI: adaptive FSAI, M^{-1} = G^T G, as a preconditioner and as a multigrid level smoother.
   The set-up (pattern search and values) runs on the host (afsai_host.c) for host matrices, and
   on the device (afsai_device.cu, the same rules bit for bit) for MATSEQAIJCUSPARSE unless
   -pc_afsai_setup host asks for the host one; G and an explicit G^T are Mats of the input's kind,
   so on aijcusparse the apply, y = G^T (G x), is two cuSPARSE SpMVs. On MPI matrices each rank
   works on its diagonal block, block-Jacobi style, or with -pc_afsai_gather k on its rows of the
   gathered matrix (afsai_gather.c; on the device too for MATMPIAIJCUSPARSE).
*/
#include "afsai.h"

const char *const AFSAISetupTypes[] = {"host", "device", "AFSAISetupType", "AFSAI_SETUP_", NULL};

/* Power iterations of the automatic Richardson weight, and the factor its estimate is raised by. */
#define AFSAI_POWER_ITS    15
#define AFSAI_OMEGA_SAFETY 1.1

/* The host CSR of a sequential AIJ matrix (a CUSPARSE one's host copy, brought up to date). */
static PetscErrorCode AFSAICSRGet(Mat A, AFSAICSR *csr)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &csr->n, &csr->ai, &csr->aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAFSAI cannot read the CSR structure of this matrix");
  PetscCall(MatSeqAIJGetArrayRead(A, &csr->aa));
  csr->maxrow = 0;
  for (PetscInt i = 0; i < csr->n; i++) csr->maxrow = PetscMax(csr->maxrow, csr->ai[i + 1] - csr->ai[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AFSAICSRRestore(Mat A, AFSAICSR *csr)
{
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayRead(A, &csr->aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &csr->n, &csr->ai, &csr->aj, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AFSAIDestroyFactor(PC_AFSAI *s)
{
  PetscFunctionBegin;
  PetscCall(AFSAIPatternDestroy(&s->pat));
  PetscCall(PetscFree(s->tmap));
  PetscCall(MatDestroy(&s->G));
  PetscCall(MatDestroy(&s->Gt));
  PetscCall(AFSAIDeviceDestroy(&s->dev)); /* after G and G^T: on the device path they reference its host arrays */
  PetscCall(VecDestroy(&s->w));
  PetscCall(ISDestroy(&s->ext));
  PetscCall(MatDestroySubMatrices(1, &s->Aext));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   G with the searched pattern (values zero) and G^T from MatTranspose(); tmap sends G's values to
   G^T's, so a refill of the values needs no new transpose. On the GPU both become CUSPARSE.
*/
static PetscErrorCode AFSAICreateFactor(PC_AFSAI *s)
{
  const PetscInt *gi = s->pat.gi, *gj = s->pat.gj, *ti, *tj;
  PetscInt       *len, *fill, nt, maxlen = 0;
  PetscScalar    *zero;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(s->n + 1, &len, s->n + 1, &fill));
  for (PetscInt i = 0; i < s->n; i++) {
    len[i] = gi[i + 1] - gi[i];
    maxlen = PetscMax(maxlen, len[i]);
  }
  PetscCall(PetscCalloc1(maxlen + 1, &zero));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, s->n, s->n, 0, len, &s->G));
  for (PetscInt i = 0; i < s->n; i++) PetscCall(MatSetValues(s->G, 1, &i, len[i], gj + gi[i], zero, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(s->G, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(s->G, MAT_FINAL_ASSEMBLY));
  PetscCall(MatTranspose(s->G, MAT_INITIAL_MATRIX, &s->Gt));
  /* row j of G^T lists the rows i of G with g_ij in increasing i: G's rows in order fill it */
  PetscCall(MatGetRowIJ(s->Gt, 0, PETSC_FALSE, PETSC_FALSE, &nt, &ti, &tj, &done));
  PetscCall(PetscMalloc1(gi[s->n] + 1, &s->tmap));
  PetscCall(PetscArrayzero(fill, s->n + 1));
  for (PetscInt i = 0; i < s->n; i++)
    for (PetscInt k = gi[i]; k < gi[i + 1]; k++) s->tmap[k] = ti[gj[k]] + fill[gj[k]]++;
  PetscCall(MatRestoreRowIJ(s->Gt, 0, PETSC_FALSE, PETSC_FALSE, &nt, &ti, &tj, &done));
  PetscCall(PetscFree(zero));
  PetscCall(PetscFree2(len, fill));
  if (s->ondevice) {
    PetscCall(MatConvert(s->G, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &s->G));
    PetscCall(MatConvert(s->Gt, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, &s->Gt));
  }
  PetscCall(MatCreateVecs(s->G, &s->w, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AFSAISetUpPattern(PC_AFSAI *s, Mat Ad, const AFSAICSR *csr)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(AFSAIDestroyFactor(s));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(SFPC_AFSAIPattern, Ad, 0, 0, 0));
  PetscCall(AFSAIPattern_Host(csr, &s->p, 0, csr->n, &s->pat, &s->fail));
  PetscCall(PetscLogEventEnd(SFPC_AFSAIPattern, Ad, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  s->tpattern = t1 - t0;
  if (!s->fail.cause) PetscCall(AFSAICreateFactor(s));
  PetscCall(PetscTime(&t0));
  s->ttranspose = t0 - t1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The device set-up: a new pattern (unless kept), the values, then G and G^T assembled on the
   device (created on a new pattern, values refilled otherwise). Each phase ends with a device
   synchronization (the failure check or the assembly), so its wall time is its device time.
*/
static PetscErrorCode AFSAISetUp_Device(PC_AFSAI *s, Mat Ad, PetscBool newpattern)
{
  PetscLogDouble t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  if (newpattern) {
    PetscCall(AFSAIDestroyFactor(s));
    PetscCall(PetscLogEventBegin(SFPC_AFSAIPattern, Ad, 0, 0, 0));
    PetscCall(AFSAIPattern_Device(Ad, &s->p, 0, s->n, &s->dev, &s->pat, &s->fail));
    PetscCall(PetscLogEventEnd(SFPC_AFSAIPattern, Ad, 0, 0, 0));
  }
  PetscCall(PetscTime(&t1));
  if (newpattern) s->tpattern = t1 - t0;
  if (s->fail.cause) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SFPC_AFSAIValues, Ad, 0, 0, 0));
  PetscCall(AFSAIValues_Device(Ad, s->dev, &s->fail));
  PetscCall(PetscLogEventEnd(SFPC_AFSAIValues, Ad, 0, 0, 0));
  PetscCall(PetscTime(&t2));
  s->tvalues = t2 - t1;
  if (s->fail.cause) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AFSAIAssemble_Device(s->dev, newpattern, &s->G, &s->Gt));
  if (newpattern) PetscCall(MatCreateVecs(s->G, &s->w, NULL));
  PetscCall(PetscTime(&t0));
  s->ttranspose = t0 - t2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G's values on its pattern, then G^T's through tmap. */
static PetscErrorCode AFSAISetUpValues(PC_AFSAI *s, Mat Ad, const AFSAICSR *csr)
{
  PetscScalar   *ga, *ta;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(SFPC_AFSAIValues, Ad, 0, 0, 0));
  PetscCall(MatSeqAIJGetArrayWrite(s->G, &ga));
  PetscCall(AFSAIValues_Host(csr, &s->pat, 0, csr->n, ga, &s->fail));
  PetscCall(PetscLogEventEnd(SFPC_AFSAIValues, Ad, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  PetscCall(MatSeqAIJGetArrayWrite(s->Gt, &ta));
  for (PetscInt k = 0; k < s->pat.gi[s->n]; k++) ta[s->tmap[k]] = ga[k];
  PetscCall(MatSeqAIJRestoreArrayWrite(s->Gt, &ta));
  PetscCall(MatSeqAIJRestoreArrayWrite(s->G, &ga));
  PetscCall(PetscTime(&t2));
  s->tvalues = t1 - t0;
  s->ttranspose += t2 - t1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   What the view reports, over the PC's ranks: sizes and search statistics summed, times at their
   largest, and the first failing (global) row with its cause, so that every rank agrees on failure.
*/
static PetscErrorCode AFSAIReduce(PC pc, PetscInt nnzA)
{
  PC_AFSAI  *s    = (PC_AFSAI *)pc->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);
  PetscReal  sum[4 + AFSAI_NSTOP], max[4];
  PetscInt64 key = PETSC_INT64_MAX;
  PetscInt   rstart;
  PetscMPIInt size;
  PetscInt    nnzG = s->pat.gi ? s->pat.gi[s->n] : 0;

  PetscFunctionBegin;
  if (s->devsetup) PetscCall(AFSAIDeviceNnz(s->dev, &nnzG));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
  sum[0] = s->n;
  sum[1] = nnzG;
  sum[2] = nnzA;
  sum[3] = s->pat.stepsum;
  for (PetscInt k = 0; k < AFSAI_NSTOP; k++) sum[4 + k] = s->pat.nstop[k];
  max[0] = s->pat.stepsmax;
  max[1] = s->tpattern;
  max[2] = s->tvalues;
  max[3] = s->ttranspose;
  if (s->fail.cause) key = (PetscInt64)(rstart + s->fail.row) * AFSAI_NFAIL + s->fail.cause;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sum, 4 + AFSAI_NSTOP, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, max, 4, MPIU_REAL, MPIU_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &key, 1, MPIU_INT64, MPI_MIN, comm));
  s->nranks  = size;
  s->nrows   = sum[0];
  s->nnzG    = sum[1];
  s->nnzA    = sum[2];
  s->stepsum = sum[3];
  for (PetscInt k = 0; k < AFSAI_NSTOP; k++) s->nstop[k] = sum[4 + k];
  s->stepsmax   = (PetscInt)max[0];
  s->tpattern   = max[1];
  s->tvalues    = max[2];
  s->ttranspose = max[3];
  s->failcause  = key == PETSC_INT64_MAX ? AFSAI_FAIL_NONE : (AFSAIFailure)(key % AFSAI_NFAIL);
  s->failrow    = key == PETSC_INT64_MAX ? -1 : (PetscInt)(key / AFSAI_NFAIL);
  s->failure    = s->failcause == AFSAI_FAIL_NONE ? PC_NOERROR : (s->failcause == AFSAI_FAIL_NONFINITE ? PC_FACTOR_OTHER : PC_FACTOR_NUMERIC_ZEROPIVOT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a pattern searched with options a is the one options b would search for. */
static PetscBool AFSAISameSearch(const AFSAIParams *a, const AFSAIParams *b)
{
  return (PetscBool)(a->steps == b->steps && a->stepsize == b->stepsize && a->maxnnzrow == b->maxnnzrow && a->tol == b->tol && a->filter == b->filter);
}

/* Whether this set-up gathers rows across ranks (-pc_afsai_gather k > 0 on an MPI matrix). */
static PetscErrorCode AFSAIGathered(PC_AFSAI *s, Mat A, PetscBool *gathered)
{
  PetscFunctionBegin;
  *gathered = PETSC_FALSE;
  if (s->gather > 0) PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, gathered));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_AFSAI(PC pc)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;
  Mat       Ad;
  PetscInt  m, n, nnzA;
  PetscBool ondevice, bound, devsetup, newpattern, gathered, samepattern = PETSC_FALSE;
  AFSAICSR  csr;

  PetscFunctionBegin;
  PetscCall(MatGetSize(pc->pmat, &m, &n));
  PetscCheck(m == n, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "PCAFSAI needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(SFPCLocalAIJ(pc->pmat, "PCAFSAI", &Ad, &ondevice, &bound));
  ondevice = (PetscBool)(ondevice && !bound); /* G is CUSPARSE where A is, and on the host where A is bound to the CPU (-pc_gamg_cpu_pin_coarse_grids), as sfilu and sfdilu run there */
  PetscCall(MatGetLocalSize(Ad, &m, NULL));
  devsetup = (PetscBool)(ondevice && s->setup == AFSAI_SETUP_DEVICE);
  PetscCall(AFSAIGathered(s, pc->pmat, &gathered));
  /*
     new values of the same pattern keep G's pattern (unless asked not to) and recompute its values. Each rank's G
     depends on its diagonal block alone, whose pattern is what counts: PETSc's pc->flag follows the whole matrix's, and
     an entry new in the off-diagonal part would search again where PCBJACOBI's block (the same G) would not.
  */
  if (gathered) samepattern = (PetscBool)(pc->flag == SAME_NONZERO_PATTERN);
  else PetscCall(SFPCMatStampSame(Ad, &s->blockstamp, &samepattern));
  newpattern = (PetscBool)(!pc->setupcalled || !samepattern || !s->reusepattern || s->failure != PC_NOERROR || !s->G || s->n != m || s->ondevice != ondevice || s->devsetup != devsetup || (s->ext != NULL) != gathered || !AFSAISameSearch(&s->pbuilt, &s->p) || s->gbuilt != s->gather);
  if (newpattern) {
    s->pbuilt = s->p;
    s->gbuilt = s->gather;
    PetscCall(SFPCMatStampTake(Ad, &s->blockstamp));
    /* made from the vectors of the last factor's applies, whose kind may have changed with A's (host or GPU) */
    PetscCall(VecDestroy(&s->xl));
    PetscCall(VecDestroy(&s->yl));
    PetscCall(VecDestroy(&s->xs));
    PetscCall(VecDestroy(&s->ys));
    PetscCall(VecDestroy(&s->r));
  }
  PetscCall(PetscObjectReference((PetscObject)Ad));
  PetscCall(MatDestroy(&s->A));
  s->A         = Ad;
  s->n         = m;
  s->ondevice  = ondevice;
  s->devsetup  = devsetup;
  s->omegaauto = 0;
  s->tomega    = 0;
  if (!newpattern) s->tpattern = s->ttranspose = 0;
  if (gathered) { /* the whole MPI matrix; on the device for MATMPIAIJCUSPARSE */
    PetscCall(AFSAISetUp_Gather(s, pc->pmat, newpattern, &nnzA));
  } else if (devsetup) { /* nothing of A's CSR comes to the host */
    MatInfo info;
    PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
    nnzA = (PetscInt)info.nz_used;
    PetscCall(AFSAISetUp_Device(s, Ad, newpattern));
  } else {
    PetscCall(AFSAICSRGet(Ad, &csr));
    nnzA = csr.ai[csr.n];
    if (newpattern) PetscCall(AFSAISetUpPattern(s, Ad, &csr));
    if (!s->fail.cause) PetscCall(AFSAISetUpValues(s, Ad, &csr));
    PetscCall(AFSAICSRRestore(Ad, &csr));
  }
  PetscCall(AFSAIReduce(pc, nnzA));
  if (s->fail.cause) PetscCall(PetscInfo(pc, "AFSAI failed in local row %" PetscInt_FMT ": %s (%g); the matrix is not SPD\n", s->fail.row, AFSAIFailures[s->fail.cause], (double)PetscRealPart(s->fail.value)));
  pc->failedreason = s->failure;
  if (s->failure != PC_NOERROR) PetscCheck(!pc->erroriffailure, PetscObjectComm((PetscObject)pc), SFPCFailureClass(s->failure, PETSC_ERR_MAT_CH_ZRPVT), "PCAFSAI failed in row %" PetscInt_FMT ": %s; the matrix is not SPD", s->failrow, AFSAIFailures[s->failcause]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Which factors an application multiplies by: M^{-1} = G^T G, or G alone (the left half of the split preconditioner G A G^T), or G^T alone (the right half). */
typedef enum {
  AFSAI_BOTH,
  AFSAI_LEFT,
  AFSAI_RIGHT
} AFSAIPart;

/* y = G^T (G x), or G x, or G^T x (part), x and y of G's kind */
static PetscErrorCode AFSAIApply(PC_AFSAI *s, AFSAIPart part, Vec x, Vec y)
{
  PetscFunctionBegin;
  if (s->ext) { /* gathered: G and G^T are MPI matrices */
    if (part == AFSAI_BOTH) {
      PetscCall(MatMult(s->G, x, s->w));
      PetscCall(MatMult(s->Gt, s->w, y));
    } else PetscCall(MatMult(part == AFSAI_LEFT ? s->G : s->Gt, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!s->xl) {
    PetscCall(VecCreateLocalVector(x, &s->xl));
    PetscCall(VecCreateLocalVector(y, &s->yl));
  }
  PetscCall(VecGetLocalVectorRead(x, s->xl));
  PetscCall(VecGetLocalVector(y, s->yl));
  if (part == AFSAI_BOTH) {
    PetscCall(MatMult(s->G, s->xl, s->w));
    PetscCall(MatMult(s->Gt, s->w, s->yl));
  } else PetscCall(MatMult(part == AFSAI_LEFT ? s->G : s->Gt, s->xl, s->yl));
  PetscCall(VecRestoreLocalVector(y, s->yl));
  PetscCall(VecRestoreLocalVectorRead(x, s->xl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Host vectors with a GPU G go through device copies: PETSc's aijcusparse MatMult() takes a host vector but
   writes its product into a device copy that the host vector's values never show (src/sys/stage.c).
*/
static PetscErrorCode AFSAIApplyPart(PC pc, AFSAIPart part, Vec x, Vec y)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;
  Vec       xs, ys;

  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, x, y)); /* before x's and y's arrays are lent to the local vectors */
  if (s->failure != PC_NOERROR) { /* as a failed factor's MatSolve(): the KSP sees Inf and stops */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!s->ondevice) {
    PetscCall(AFSAIApply(s, part, x, y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SFPCStageVecs(x, y, PETSC_FALSE, "PCAFSAI", &s->xs, &s->ys, &xs, &ys));
  PetscCall(AFSAIApply(s, part, xs, ys));
  PetscCall(SFPCUnstageVecs(y, ys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_AFSAI(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(AFSAIApplyPart(pc, AFSAI_BOTH, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_AFSAI(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(AFSAIApplyPart(pc, AFSAI_LEFT, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_AFSAI(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(AFSAIApplyPart(pc, AFSAI_RIGHT, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   omega = 1 / (AFSAI_OMEGA_SAFETY lambda), lambda the Rayleigh quotient of M^{-1} A in the A inner
   product, (A x, M^{-1} A x) / (x, A x), after AFSAI_POWER_ITS power iterations. M^{-1} A is
   self-adjoint in that inner product, so lambda <= rho(M^{-1} A) and approaches it from below;
   diag(G A G^T) = I makes rho >= 1. The factor 1.1 (as on PETSc Chebyshev's upper estimate) covers
   an estimate short by up to 10% with omega rho <= 1, and keeps omega rho < 2 (convergence) for an
   estimate short by up to 45%. The start vector is a hash of the global index: deterministic, the
   same on any number of ranks, and rough (a constant start is close to the smooth eigenvectors
   of PDE matrices, at the wrong end of the spectrum).
*/
static PetscErrorCode AFSAIEstimateOmega(PC pc)
{
  PC_AFSAI      *s = (PC_AFSAI *)pc->data;
  Vec            x, ax, z;
  PetscScalar   *xa, num, den;
  PetscInt       rstart, rend;
  PetscReal      lambda = 1;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatCreateVecs(pc->mat, &x, &ax));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecGetOwnershipRange(x, &rstart, &rend));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt i = rstart; i < rend; i++) xa[i - rstart] = 0.5 + (PetscReal)(((unsigned long long)(i + 1) * 2654435761ULL) % 1024) / 1024.0;
  PetscCall(VecRestoreArrayWrite(x, &xa));
  for (PetscInt k = 0; k < AFSAI_POWER_ITS; k++) {
    PetscCall(VecNormalize(x, NULL));
    PetscCall(MatMult(pc->mat, x, ax));
    PetscCall(PCApply_AFSAI(pc, ax, z));
    PetscCall(VecDot(z, ax, &num));
    PetscCall(VecDot(x, ax, &den));
    lambda = PetscRealPart(num) / PetscRealPart(den);
    PetscCall(VecCopy(z, x));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ax));
  PetscCall(VecDestroy(&z));
  PetscCheck(lambda > 0 && !PetscIsInfOrNanReal(lambda), PetscObjectComm((PetscObject)pc), PETSC_ERR_NOT_CONVERGED, "PCAFSAI: the estimate of rho(G^T G A) is %g; is the operator SPD?", (double)lambda);
  s->omegaauto = 1.0 / (AFSAI_OMEGA_SAFETY * lambda);
  PetscCall(PetscObjectGetId((PetscObject)pc->mat, &s->omegamat));
  PetscCall(PetscObjectStateGet((PetscObject)pc->mat, &s->omegastate));
  PetscCall(PetscTime(&t1));
  s->tomega = t1 - t0;
  PetscCall(PetscInfo(pc, "rho(G^T G A) estimated as %g after %d power iterations: omega %g\n", (double)lambda, AFSAI_POWER_ITS, (double)s->omegaauto));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Up to its steps of x += omega G^T G (b - A x); each step tested against the KSP's tolerances with -pc_afsai_richardson_test (SFPCRichardsonTests()). */
static PetscErrorCode PCApplyRichardson_AFSAI(PC pc, Vec b, Vec x, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;
  PetscReal omega;

  PetscFunctionBegin;
  PetscCall(SFPCCheckApplySizes(pc, b, x));
  PetscCall(SFPCCheckApplySizes(pc, w, x));
  if (s->omega == PETSC_DETERMINE && s->failure == PC_NOERROR) {
    PetscObjectId    id;
    PetscObjectState state;

    /* PETSc sets the PC up again for a new pmat only: the estimate follows the operator itself */
    PetscCall(PetscObjectGetId((PetscObject)pc->mat, &id));
    PetscCall(PetscObjectStateGet((PetscObject)pc->mat, &state));
    if (s->omegaauto == 0 || id != s->omegamat || state != s->omegastate) PetscCall(AFSAIEstimateOmega(pc));
  }
  omega = s->omega == PETSC_DETERMINE ? s->omegaauto : s->omega;
  if (!s->r) PetscCall(VecDuplicate(b, &s->r));
  PetscCall(SFPCRichardsonSweeps(pc, PCApply_AFSAI, omega, b, x, w, s->r, its, guesszero, SFPCRichardsonTests(s->richtest, rtol, abstol), s->richnorm, rtol, abstol, dtol, outits, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pattern search's settings in range, for the options and PCAFSAISetSearch(); who[] names the three values in an error. */
static PetscErrorCode AFSAICheckSearch(MPI_Comm comm, const char *const who[3], PetscInt steps, PetscInt stepsize, PetscReal tol)
{
  PetscFunctionBegin;
  PetscCheck(steps >= 0 && steps <= AFSAI_MAX_STEPS, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be in [0, %d]", who[0], steps, AFSAI_MAX_STEPS);
  PetscCheck(stepsize >= 1 && stepsize <= AFSAI_MAX_STEP_SIZE, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be in [1, %d]", who[1], stepsize, AFSAI_MAX_STEP_SIZE);
  PetscCheck(tol >= 0 && tol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be in [0, 1)", who[2], (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An integer option in [lo, hi], or (determine) -1 for the value derived from the others; the message names the option and the range. */
static PetscErrorCode AFSAIOptionsInt(PetscOptionItems PetscOptionsObject, PC pc, const char *name, const char *text, PetscInt lo, PetscInt hi, PetscBool determine, PetscInt *value)
{
  PetscInt  v;
  PetscBool set;
  char      given[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt(name, text, "PCAFSAI", *value, &v, &set));
  PetscCheck(!set || (v >= lo && v <= hi) || (determine && v == PETSC_DETERMINE), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be in [%" PetscInt_FMT ", %" PetscInt_FMT "]%s", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, name), v, lo, hi, determine ? " or -1" : "");
  if (set) *value = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_AFSAI(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_AFSAI *s    = (PC_AFSAI *)pc->data;
  MPI_Comm  comm = PetscObjectComm((PetscObject)pc);
  PetscReal r;
  PetscBool set;
  char      given[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "AFSAI options");
  {
    const char *names[3] = {"-pc_afsai_steps", "-pc_afsai_step_size", "-pc_afsai_tol"};
    char        given3[3][PETSC_MAX_PATH_LEN];
    const char *who[3];
    PetscInt    steps = s->p.steps, stepsize = s->p.stepsize;
    PetscReal   tol   = s->p.tol;
    PetscCall(PetscOptionsInt(names[0], "Pattern search steps per row (k_max)", "PCAFSAISetSearch", steps, &steps, NULL));
    PetscCall(PetscOptionsInt(names[1], "Entries added to a row per step (s)", "PCAFSAISetSearch", stepsize, &stepsize, NULL));
    PetscCall(PetscOptionsReal(names[2], "A row's search stops when psi_k / psi_0 <= tol", "PCAFSAISetSearch", tol, &tol, NULL));
    for (int k = 0; k < 3; k++) who[k] = SFPCOptionGiven(given3[k], sizeof(given3[k]), PetscOptionsObject, names[k]);
    PetscCall(AFSAICheckSearch(comm, who, steps, stepsize, tol));
    s->p.steps    = steps;
    s->p.stepsize = stepsize;
    s->p.tol      = tol;
  }
  PetscCall(AFSAIOptionsInt(PetscOptionsObject, pc, "-pc_afsai_max_nnz_row", "Most entries of a row of G, the diagonal included (-1: steps * step_size + 1)", 1, 1025, PETSC_TRUE, &s->p.maxnnzrow));
  PetscCall(PetscOptionsReal("-pc_afsai_filter", "After the search drop g_ij with |g_ij| sqrt(a_jj / a_ii) < filter (unit-diagonal row)", "PCAFSAI", s->p.filter, &r, &set));
  PetscCheck(!set || (r >= 0 && r < 1), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be in [0, 1)", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_afsai_filter"), (double)r);
  if (set) s->p.filter = r;
  PetscCall(PetscOptionsReal("-pc_afsai_omega", "Richardson weight (-1: 1 / (1.1 x estimate of rho(G^T G A)))", "PCAFSAI", s->omega, &r, &set));
  PetscCheck(!set || r == PETSC_DETERMINE || (r > 0 && r < 2), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be in (0, 2), or -1 for the automatic weight", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, "-pc_afsai_omega"), (double)r);
  if (set) s->omega = r;
  PetscCall(PetscOptionsBool("-pc_afsai_richardson_test", "KSPRICHARDSON through PCApplyRichardson(): test the KSP's tolerances at each step (a solve by Richardson iterations) instead of running its steps (a smoother, as PCSOR's does)", "PCAFSAI", s->richtest, &s->richtest, NULL));
  PetscCall(SFPCRichardsonNormOption(PetscOptionsObject, "-pc_afsai_richardson_norm", "PCAFSAI", &s->richnorm));
  PetscCall(PetscOptionsEnum("-pc_afsai_setup", "Where the set-up of an aijcusparse matrix runs (host matrices: always the host)", "PCAFSAI", AFSAISetupTypes, (PetscEnum)s->setup, (PetscEnum *)&s->setup, NULL));
  PetscCall(AFSAIOptionsInt(PetscOptionsObject, pc, "-pc_afsai_gather", "MPI: gather the rows within this graph distance of a rank's rows for its pattern search (0: each rank's diagonal block)", 0, 16, PETSC_FALSE, &s->gather));
  PetscCall(PetscOptionsBool("-pc_afsai_reuse_pattern", "On new values of the same nonzero pattern keep G's pattern and recompute its values only", "PCAFSAI", s->reusepattern, &s->reusepattern, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_AFSAI(PC pc, PetscViewer viewer)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;
  PetscBool  isascii;
  PetscInt64 mmax;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AFSAIRowCapacity(&s->p, &mmax));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  adaptive FSAI, M^-1 = G^T G; set-up on the %s, apply on the %s\n", s->devsetup ? "GPU" : "host", s->ondevice ? (s->ext ? "GPU (G and G^T are mpiaijcusparse)" : "GPU (G and G^T are seqaijcusparse)") : "host"));
  if (s->nranks > 1 && s->ext) PetscCall(PetscViewerASCIIPrintf(viewer, "  %d ranks, each searching its rows with A's rows within distance %" PetscInt_FMT " gathered; G and G^T are MPI matrices\n", (int)s->nranks, s->gather));
  else if (s->nranks > 1) PetscCall(PetscViewerASCIIPrintf(viewer, "  each of %d ranks on its diagonal block (block Jacobi)\n", (int)s->nranks));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  search: %" PetscInt_FMT " steps of %" PetscInt_FMT ", tol %g, at most %" PetscInt64_FMT " entries per row, filter %g; pattern kept on same-pattern updates: %s\n", s->p.steps, s->p.stepsize, (double)s->p.tol, mmax + 1, (double)s->p.filter, s->reusepattern ? "yes" : "no"));
  if (!pc->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  if (s->failure != PC_NOERROR) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  set-up FAILED (%s) in row %" PetscInt_FMT ": %s; the matrix is not SPD\n", PCFailedReasons[s->failure], s->failrow, AFSAIFailures[s->failcause]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  rows %.0f, nnz(G) %.0f, nnz(A) %.0f: fill nnz(G)/nnz(A) %.3f\n", (double)s->nrows, (double)s->nnzG, (double)s->nnzA, (double)(s->nnzA > 0 ? s->nnzG / s->nnzA : 0)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  steps per row: mean %.2f, max %" PetscInt_FMT "; rows stopped by tol %.0f, by steps %.0f, by max nnz %.0f, without candidates %.0f\n", (double)(s->nrows > 0 ? s->stepsum / s->nrows : 0), s->stepsmax, (double)s->nstop[AFSAI_STOP_TOL],
                                   (double)s->nstop[AFSAI_STOP_STEPS], (double)s->nstop[AFSAI_STOP_NNZ], (double)s->nstop[AFSAI_STOP_CANDIDATE]));
  if (s->omega != PETSC_DETERMINE) PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson omega %g (set)\n", (double)s->omega));
  else if (s->omegaauto > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson omega %.4f = 1 / (%g x power-iteration estimate of rho(G^T G A))\n", (double)s->omegaauto, AFSAI_OMEGA_SAFETY));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson omega: automatic, estimated at the first Richardson sweep\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  set-up time (s): pattern %.3g, values %.3g, %s %.3g, omega estimate %.3g\n", s->tpattern, s->tvalues, s->devsetup ? "G and G^T assembly" : "transpose", s->ttranspose, s->tomega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAFSAIGetFactor_AFSAI(PC pc, Mat *G)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;

  PetscFunctionBegin;
  PetscCheck(s->G, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCAFSAI has no factor: call PCSetUp() first (a failed set-up has none)");
  *G = s->G;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAFSAIGetFactor - Returns the lower-triangular factor G of a `PCAFSAI` (M^{-1} = G^T G), for inspection.

  Not Collective

  Input Parameter:
. pc - the preconditioner, set up

  Output Parameter:
. G - the factor: a sequential matrix, of the diagonal block of an MPI matrix (its rows and columns
      are the rank's rows), or with -pc_afsai_gather k > 0 an MPI matrix; `MATSEQAIJCUSPARSE` (`MATMPIAIJCUSPARSE`)
      when the PC's matrix is a CUSPARSE one. Owned by the PC: do not destroy or change it.

  Level: developer

  Note:
  diag(G A G^T) = I, where A is the (diagonal block of the) matrix the PC was set up with.

.seealso: `PCAFSAI`
@*/
PetscErrorCode PCAFSAIGetFactor(PC pc, Mat *G)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(G, 2);
  PetscUseMethod(pc, "PCAFSAIGetFactor_C", (PC, Mat *), (pc, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAFSAISetSearch_AFSAI(PC pc, PetscInt steps, PetscInt stepsize, PetscReal tol)
{
  PC_AFSAI         *s      = (PC_AFSAI *)pc->data;
  MPI_Comm          comm   = PetscObjectComm((PetscObject)pc);
  const char *const who[3] = {"PCAFSAISetSearch(): steps", "PCAFSAISetSearch(): stepsize", "PCAFSAISetSearch(): tol"};

  PetscFunctionBegin;
  if (steps == PETSC_DETERMINE) steps = AFSAI_DEFAULT_STEPS;
  else if (steps == PETSC_CURRENT) steps = s->p.steps;
  if (stepsize == PETSC_DETERMINE) stepsize = AFSAI_DEFAULT_STEP_SIZE;
  else if (stepsize == PETSC_CURRENT) stepsize = s->p.stepsize;
  if (tol == (PetscReal)PETSC_DETERMINE) tol = AFSAI_DEFAULT_TOL;
  else if (tol == (PetscReal)PETSC_CURRENT) tol = s->p.tol;
  PetscCall(AFSAICheckSearch(comm, who, steps, stepsize, tol));
  s->p.steps    = steps;
  s->p.stepsize = stepsize;
  s->p.tol      = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCAFSAIGetSearch_AFSAI(PC pc, PetscInt *steps, PetscInt *stepsize, PetscReal *tol)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;

  PetscFunctionBegin;
  if (steps) *steps = s->p.steps;
  if (stepsize) *stepsize = s->p.stepsize;
  if (tol) *tol = s->p.tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAFSAISetSearch - Sets the adaptive pattern search of a `PCAFSAI`: steps per row, entries added per step, and the
  tolerance that ends a row's search

  Logically Collective

  Input Parameters:
+ pc       - the `PCAFSAI` preconditioner (for another type of `PC` the call does nothing)
. steps    - search steps per row (k_max), in [0, 1024]; 0 gives the Jacobi-like G = diag(A)^{-1/2}
. stepsize - entries added to a row per step (s), in [1, 1024]
- tol      - a row's search stops when psi_k / psi_0 <= tol, in [0, 1)

  Options Database Keys:
+ -pc_afsai_steps <10>     - steps
. -pc_afsai_step_size <1>  - stepsize
- -pc_afsai_tol <1e-3>     - tol

  Level: intermediate

  Notes:
  `PETSC_CURRENT` keeps a value as it is, `PETSC_DETERMINE` restores its default (10 steps of 1 entry, tol 1e-3), as in
  `KSPSetTolerances()`. A change is taken at the next set-up (`PCSetUp()` after new operators or new values), which then
  searches the pattern again also where -pc_afsai_reuse_pattern would keep it. The row limit and the filter stay
  options (-pc_afsai_max_nnz_row, -pc_afsai_filter).

.seealso: `PCAFSAI`, `PCAFSAIGetSearch()`, `PCAFSAIGetFactor()`
@*/
PetscErrorCode PCAFSAISetSearch(PC pc, PetscInt steps, PetscInt stepsize, PetscReal tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, steps, 2);
  PetscValidLogicalCollectiveInt(pc, stepsize, 3);
  PetscValidLogicalCollectiveReal(pc, tol, 4);
  PetscTryMethod(pc, "PCAFSAISetSearch_C", (PC, PetscInt, PetscInt, PetscReal), (pc, steps, stepsize, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCAFSAIGetSearch - Gets the adaptive pattern search settings of a `PCAFSAI`

  Not Collective

  Input Parameter:
. pc - the `PCAFSAI` preconditioner

  Output Parameters:
+ steps    - search steps per row (`NULL` if not wanted)
. stepsize - entries added to a row per step (`NULL` if not wanted)
- tol      - the tolerance that ends a row's search (`NULL` if not wanted)

  Level: intermediate

.seealso: `PCAFSAI`, `PCAFSAISetSearch()`
@*/
PetscErrorCode PCAFSAIGetSearch(PC pc, PetscInt *steps, PetscInt *stepsize, PetscReal *tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCAFSAIGetSearch_C", (PC, PetscInt *, PetscInt *, PetscReal *), (pc, steps, stepsize, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_AFSAI(PC pc)
{
  PC_AFSAI *s = (PC_AFSAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(AFSAIDestroyFactor(s));
  PetscCall(MatDestroy(&s->A));
  PetscCall(VecDestroy(&s->xl));
  PetscCall(VecDestroy(&s->yl));
  PetscCall(VecDestroy(&s->xs));
  PetscCall(VecDestroy(&s->ys));
  PetscCall(VecDestroy(&s->r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_AFSAI(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_AFSAI(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAFSAIGetFactor_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAFSAISetSearch_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAFSAIGetSearch_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCAFSAI - adaptive factorized sparse approximate inverse for SPD matrices: M^{-1} = G^T G, G lower triangular with
   diag(G A G^T) = I, each row's pattern grown from the diagonal along the gradient of the Kaporin number (Janna and
   Ferronato 2011; Isotton's thesis, ch. 3). A preconditioner for CG and a multigrid level smoother (`-mg_levels_pc_type afsai`).

   Options Database Keys:
+  -pc_afsai_steps <10> - pattern search steps per row (k_max)
.  -pc_afsai_step_size <1> - entries added to a row per step (s)
.  -pc_afsai_tol <1e-3> - a row stops when psi_k / psi_0 <= tol, psi the row's factor in the Kaporin number
.  -pc_afsai_max_nnz_row <steps * step_size + 1> - most entries of a row of G, the diagonal included, in [1, 1025] (-1: the default)
.  -pc_afsai_filter <0> - after the search, drop g_ij with |g_ij| sqrt(a_jj / a_ii) < filter (unit-diagonal row); values recomputed
.  -pc_afsai_setup <device> - where a `MATSEQAIJCUSPARSE` (or `MATMPIAIJCUSPARSE`) is set up: device (default) or host (from its host copy, for comparison)
.  -pc_afsai_omega <auto> - Richardson weight (`-mg_levels_ksp_type richardson`) in (0, 2), or -1 (the default) for the automatic 1 / (1.1 x a power-iteration estimate of rho(G^T G A))
.  -pc_afsai_richardson_test <false> - `PCApplyRichardson()` (`KSPRICHARDSON` without a monitor) tests the `KSP`'s tolerances at each step (a
   solve by Richardson iterations); by default it runs its steps and computes no norm, as `PCSOR`'s does and as a `PCMG` smoother's `KSP` asks
.  -pc_afsai_richardson_norm <preconditioned,unpreconditioned,1> - the norm that test measures: of G^T G (b - A x), of b - A x, or its 1-norm
.  -pc_afsai_reuse_pattern <true> - on `SAME_NONZERO_PATTERN` keep G's pattern and recompute its values only
-  -pc_afsai_gather <0> - MPI, k in [0, 16]: 0, each rank's diagonal block; k > 0, A's rows within graph distance k of a rank's rows are gathered
   for its search, and G, G^T are MPI matrices (`MATMPIAIJCUSPARSE`, set up on the GPU, for a `MATMPIAIJCUSPARSE` A)

   Notes:
   For `MATSEQAIJCUSPARSE` the set-up runs on the GPU from the matrix's device CSR, one warp per row, with the host's
   rules and operation order (the same pattern, values to rounding); G and an explicit G^T are `MATSEQAIJCUSPARSE` and
   the apply, y = G^T (G x), runs on the GPU. Host matrices are set up on the host. On `MATMPIAIJ`/`MATMPIAIJCUSPARSE` each rank works on
   its diagonal block, or with -pc_afsai_gather on its rows of the gathered matrix (on the GPU for `MATMPIAIJCUSPARSE`:
   the gathered rows are uploaded, the search and values run there, G and G^T are `MATMPIAIJCUSPARSE`). A matrix that is not SPD (a non-positive diagonal entry, Cholesky pivot or psi, or Inf/NaN) sets
   `PC_FACTOR_NUMERIC_ZEROPIVOT` (Inf/NaN: `PC_FACTOR_OTHER`), so the KSP stops with `KSP_DIVERGED_PC_FAILED`.

   With `-ksp_pc_side symmetric` (KSPs that take it, e.g. `KSPGMRES`) the KSP works on G A G^T: `PCApplySymmetricLeft()`
   multiplies by G and `PCApplySymmetricRight()` by G^T.

   Level: intermediate

.seealso: `PCAFSAISetSearch()`, `PCAFSAIGetSearch()`, `PCAFSAIGetFactor()`, `PCSFDILU`, `PCGAMG`
M*/
PetscErrorCode PCCreate_AFSAI(PC pc)
{
  PC_AFSAI *s;

  PetscFunctionBegin;
  PetscCall(PetscNew(&s));
  /*
     Defaults: 10 steps of 1 entry, tol 1e-3 are the settings of the reference hypre runs (hypre's user guide suggests
     5-30 steps of 1-6 entries with steps x size <= 30, and kap_tolerance 1e-3). One entry per step picks each entry with
     the gradient of the pattern it extends, the most selective search per entry kept. The thesis's test psi_k <= tol psi_0
     (not hypre's, which stops on a stagnating step) rarely binds at 1e-3 (psi_k / psi_0 >= 1 / (a_ii (A^{-1})_ii)): it
     ends the rows that an exactly representable inverse factor makes nearly exact, the steps bound the rest. No filter:
     the thesis drops nothing after the search.
  */
  s->p.steps     = AFSAI_DEFAULT_STEPS;
  s->p.stepsize  = AFSAI_DEFAULT_STEP_SIZE;
  s->p.maxnnzrow = PETSC_DETERMINE;
  s->p.tol       = AFSAI_DEFAULT_TOL;
  s->p.filter    = 0;
  s->omega       = PETSC_DETERMINE;
  s->reusepattern = PETSC_TRUE;
  s->setup        = AFSAI_SETUP_DEVICE;
  s->failrow     = -1;
  pc->data       = s;

  pc->ops->setup           = PCSetUp_AFSAI;
  pc->ops->apply           = PCApply_AFSAI;
  pc->ops->applytranspose  = PCApply_AFSAI; /* G^T G is symmetric */
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_AFSAI;  /* -ksp_pc_side symmetric: G A G^T */
  pc->ops->applysymmetricright = PCApplySymmetricRight_AFSAI;
  pc->ops->applyrichardson = PCApplyRichardson_AFSAI;
  pc->ops->setfromoptions  = PCSetFromOptions_AFSAI;
  pc->ops->view            = PCView_AFSAI;
  pc->ops->reset           = PCReset_AFSAI;
  pc->ops->destroy         = PCDestroy_AFSAI;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAFSAIGetFactor_C", PCAFSAIGetFactor_AFSAI));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAFSAISetSearch_C", PCAFSAISetSearch_AFSAI));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCAFSAIGetSearch_C", PCAFSAIGetSearch_AFSAI));
  PetscFunctionReturn(PETSC_SUCCESS);
}
