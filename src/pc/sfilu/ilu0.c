/*
   The SFILU factor: checks the matrix, builds the pattern (host or GPU), factors with the
   shift policy, applies, views. Host or device is decided by the matrix type; the policy and
   the failure reporting are the same for both.
*/
#include "sfilu.h"
#include <sfpc/private/pivot.h>

/* Factorizations a nonzero shift may redo before the factor is declared failed. */
#define SFILU_MAX_SHIFTS 64

const char *const SFILUSIPVariants[]   = {"syncfree", "levelsync", "SFILUSIPVariant", "SFILU_SIP_", NULL};
const char *const SFILUFactorMatches[] = {"auto", "map", "search", "broadcast", "SFILUFactorMatch", "SFILU_FACTOR_MATCH_", NULL};

PetscErrorCode SFILUInitialize(SFILU *s)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->shifttype    = MAT_SHIFT_NONE;
  s->shiftamount  = 100.0 * PETSC_MACHINE_EPSILON;
  s->zeropivot    = 100.0 * PETSC_MACHINE_EPSILON;
  PetscCall(SFPCTriOptionsDefault(&s->engine));
  s->sip_alpha = SFILU_DEFAULT_SIP_ALPHA;
  s->grid_factor = PETSC_TRUE;
  s->factor_match = SFILU_FACTOR_MATCH_AUTO;
  s->block_size   = PETSC_DECIDE;
  s->block_sweeps = PETSC_BOOL3_UNKNOWN;
  s->block_slabs  = PETSC_BOOL3_UNKNOWN;
  s->rich_fused = PETSC_BOOL3_UNKNOWN;
  s->rich_norm  = SFPC_RICHARDSON_NORM_PRECONDITIONED;
  s->rich_test  = PETSC_TRUE;
  s->ba_fused   = PETSC_BOOL3_UNKNOWN;
  s->failrow      = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUReset(SFILU *s)
{
  PetscFunctionBegin;
  PetscCall(SFPCTriFactorDestroy(&s->F));
  PetscCall(PetscFree(s->fill.fmap));
  PetscCall(PetscFree(s->fill.a));
  PetscCall(VecDestroy(&s->root));
  PetscCall(VecDestroy(&s->symwork));
  PetscCall(PetscFree(s->mirror.fmap));
  PetscCall(PetscFree(s->mirror.a));
  PetscCall(SFILUReset_Device(s));
  s->fill.nnz = s->fill.nnz_a = 0;
  s->mirror.nnz = s->mirror.nnz_a = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Square, and of a type SFILU factors: seqaij (host), seqaijcusparse (GPU, unless bound to the CPU). */
PetscErrorCode SFILUCheckMatrix(Mat A, PetscBool *ondevice)
{
  PetscInt  m, n;
  PetscBool isseqaij, iscusparse, bound = PETSC_FALSE;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "SFPC's ILU needs a square matrix, this one is %" PetscInt_FMT " x %" PetscInt_FMT, m, n);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseqaij)); /* AIJ's subtypes (aijperm, ...) are read through MatGetRowIJ() as AIJ */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &iscusparse));
  if (iscusparse) PetscCall(MatBoundToCPU(A, &bound));
  *ondevice = (PetscBool)(iscusparse && !bound);
#if !defined(SFPC_HAVE_CUDA)
  PetscCheck(!*ondevice, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "This SFPC was built without CUDA (SFPC_WITH_CUDA=0): it cannot factor a %s matrix on the GPU; use -mat_type aij", MATSEQAIJCUSPARSE);
#endif
  if (isseqaij || iscusparse) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetType(A, &type)); /* MPI matrices arrive here as their diagonal blocks (PCSFILU) or not at all (the solver type is registered for sequential AIJ only) */
  SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "SFPC's ILU supports %s, %s and, through each rank's diagonal block, %s and %s; not %s", MATSEQAIJ, MATSEQAIJCUSPARSE, MATMPIAIJ, MATMPIAIJCUSPARSE, type);
}

/* The pattern of ILU(k) of A on the host (k > 0), and where A's entries go in it. */
static PetscErrorCode SFILUSymbolicFill(SFILU *s, Mat A, PetscBool ondevice)
{
  const PetscInt *ai, *aj;
  PetscInt        n, nrows, *pi, *pj, *fmap;
  PetscBool       done;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  PetscCheck(!s->sip, PETSC_COMM_SELF, PETSC_ERR_SUP, "SIP keeps the 7-point pattern: levels of fill (%" PetscInt_FMT ") apply to ILU only", s->fill_levels);
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
  nrows         = n; /* MatRestoreRowIJ() may clear n */
  s->fill.nnz_a = ai[n];
  ierr          = SFILUFillPattern(n, ai, aj, s->fill_levels, &pi, &pj, &fmap);
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCall(ierr);
  s->fill.nnz = pi[nrows];
  if (ondevice) {
    ierr = SFILUSymbolic_Device(s, A, pi, pj);
    if (!ierr) ierr = SFILUFillCreate_Device(&s->fill, fmap);
    PetscCall(PetscFree(fmap));
  } else {
    ierr         = SFPCTriFactorCreateFromCSR(nrows, pi, pj, &s->F);
    s->fill.fmap = fmap;
  }
  PetscCall(PetscFree(pi));
  PetscCall(PetscFree(pj));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ICC(k), k > 0: the fill's map taken through the mirror's, so that a factorization gathers A's values once; the mirror's map goes. */
static PetscErrorCode SFILUMirrorIntoFill(SFILU *s, PetscBool ondevice)
{
  PetscFunctionBegin;
  if (ondevice) {
    PetscCall(SFILUFillCompose_Device(&s->fill, &s->mirror));
    PetscCall(SFILUFillDestroy_Device(&s->mirror));
  } else {
    for (PetscInt p = 0; p < s->fill.nnz; p++)
      if (s->fill.fmap[p] >= 0) s->fill.fmap[p] = s->mirror.fmap[s->fill.fmap[p]];
    PetscCall(PetscFree(s->mirror.fmap)); /* the mirror never gathered: its values are allocated by a first gather */
  }
  s->mirror.nnz = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies A's pattern (with the fill of ILU(k)) and analyses it, on the host or on the GPU. */
PetscErrorCode SFILUSymbolic(SFILU *s, Mat A, PetscBool ondevice)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_ILUSymbolic, A, 0, 0, 0));
  PetscCall(SFILUReset(s));
  if (s->fill_levels > 0) {
    PetscErrorCode ierr = SFILUSymbolicFill(s, A, ondevice);
    if (ierr) PetscCall(SFILUReset(s));
    PetscCall(ierr);
  } else if (ondevice) PetscCall(SFILUSymbolic_Device(s, A, NULL, NULL));
  else {
    const PetscInt *ai, *aj;
    PetscInt        n;
    PetscBool       done;

    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "SFPC cannot read the CSR structure of this matrix");
    {
      PetscErrorCode ierr = SFPCTriFactorCreateFromCSR(n, ai, aj, &s->F); /* a missing diagonal is an error: the row structure is given back first */
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
      PetscCall(ierr);
    }
    {
      PetscErrorCode ierr = s->sip ? SFILUCheckSIPPattern(&s->F, s->sip_dims, s->engine.grid_guessed) : PETSC_SUCCESS;
      if (!ierr) ierr = SFPCGridLayoutCheck_Host(&s->F, &s->engine); /* a grid layout asked for is checked on CPU runs too */
      if (ierr) PetscCall(SFPCTriFactorDestroy(&s->F));
      PetscCall(ierr);
    }
  }
  if (s->icc) {
    PetscErrorCode ierr = SFILUMirrorCreate(s, A, ondevice);
    if (!ierr && s->fill.nnz) ierr = SFILUMirrorIntoFill(s, ondevice);
    if (ierr) PetscCall(SFILUReset(s));
    PetscCall(ierr);
  }
  /* what the pattern was built for: SFILUNeedsSymbolic() (sfilu.c) compares it with the options at the next set-up */
  s->ondevice          = ondevice;
  s->built_levels      = s->fill_levels;
  s->built_sip         = s->sip;
  s->built_grid_factor = s->grid_factor;
  s->built_layout      = s->engine.layout;
  s->dilu             = PETSC_BOOL3_UNKNOWN; /* the Eisenstat form checks the new pattern at its set-up */
  PetscCall(PetscLogEventEnd(SFPC_ILUSymbolic, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SFILUAttempt(SFILU *s, const PetscScalar *aa, PetscReal shift, SFILUResult *res)
{
  const PetscBool positive = (PetscBool)(s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE);

  PetscFunctionBegin;
  if (s->ondevice) PetscCall(SFILUAttempt_Device(s, aa, shift, positive, res)); /* ILU(0) or SIP */
  else if (s->sip) PetscCall(SFILUFactorSIP_Host(&s->F, aa, s->sip_dims, s->sip_alpha, shift, s->zeropivot, positive, res));
  else PetscCall(SFILUFactorNumeric_Host(&s->F, aa, shift, s->zeropivot, positive, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The diagonal shift for attempt k = 1, 2, ... after an unshifted factorization failed.
   nonzero (and inblocks): shiftamount * max_i rowsum_i, doubled at each attempt (PCFactor's NONZERO
   doubles an absolute amount, and its INBLOCKS shifts the failing pivot alone; README says how the two differ). positive_definite: fractions 1/16 .. 2 of top, the
   shift that makes A + top I weakly diagonally dominant with a positive diagonal (Manteuffel's
   shifted incomplete factorization).
*/
static PetscBool SFILUNextShift(const SFILU *s, PetscInt k, PetscReal rmax, PetscReal top, PetscReal *shift)
{
  if (s->shifttype == MAT_SHIFT_NONZERO || s->shifttype == MAT_SHIFT_INBLOCKS) {
    if (k > SFILU_MAX_SHIFTS) return PETSC_FALSE;
    *shift = SFPCNonzeroShift(s->shiftamount, rmax, (int)(k - 1));
    return PETSC_TRUE;
  }
  if (s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE) {
    if (k > 6) return PETSC_FALSE;
    *shift = top * PetscPowReal(2.0, (PetscReal)(k - 5));
    return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/* *aa = f's gather of the values *aa (on the factor's side), which f keeps (allocated by the first gather). */
static PetscErrorCode SFILUFillGather(SFILUFill *f, PetscBool ondevice, const PetscScalar **aa)
{
  PetscFunctionBegin;
  if (ondevice) {
    PetscCall(SFILUFillValues_Device(f, *aa));
    *aa = f->d_a;
  } else {
    if (!f->a) PetscCall(PetscMalloc1(PetscMax(f->nnz, 1), &f->a));
    for (PetscInt p = 0; p < f->nnz; p++) f->a[p] = f->fmap[p] >= 0 ? (*aa)[f->fmap[p]] : 0;
    *aa = f->a;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Numeric ILU(k) of A (pattern as at the last SFILUSymbolic()), widening the shift while a pivot
   fails. A failure is left in s->failure/failrow/failvalue and reported through PetscInfo() on
   obj, or raised as an error when erroriffailure is set.
*/
PetscErrorCode SFILUNumeric(SFILU *s, Mat A, PetscObject obj, PetscBool erroriffailure)
{
  const PetscScalar *av, *aa;
  PetscReal          rmax = 0, top = 0;
  SFILUResult        res;
  const char        *what = NULL;

  PetscFunctionBegin;
  s->failure = PC_NOERROR;
  s->failrow = -1;
  s->shift   = 0;
  s->nshifts = 0;
  PetscCall(PetscLogEventBegin(SFPC_ILUNumeric, A, 0, 0, 0));
  if (s->ondevice) PetscCall(SFILUGetValues_Device(s, A, &av));
  else PetscCall(MatSeqAIJGetArrayRead(A, &av));
  aa = av;
  if (s->mirror.nnz) PetscCall(SFILUFillGather(&s->mirror, s->ondevice, &aa)); /* ICC: the lower triangle from the upper */
  if (s->fill.nnz) PetscCall(SFILUFillGather(&s->fill, s->ondevice, &aa));     /* ILU(k): A's values into the factor's pattern */
  PetscCall(SFILUAttempt(s, aa, 0, &res));
  if (res.badrow >= 0 && res.nonfinite < 0 && s->shifttype != MAT_SHIFT_NONE) {
    if (s->ondevice) PetscCall(SFILUBounds_Device(s, aa, &rmax, &top));
    else PetscCall(SFILUShiftBounds_Host(&s->F, aa, &rmax, &top));
    if (top <= 0) top = s->shiftamount * (rmax > 0 ? rmax : 1.0); /* already dominant: only rounding can make a pivot fail */
    while (res.badrow >= 0 && SFILUNextShift(s, s->nshifts + 1, rmax, top, &s->shift)) {
      s->nshifts++;
      PetscCall(PetscInfo(obj, "Pivot failed in row %" PetscInt_FMT "; refactoring with diagonal shift %g\n", res.badrow, (double)s->shift));
      PetscCall(SFILUAttempt(s, aa, s->shift, &res));
    }
  }
  if (s->ondevice) PetscCall(SFILURestoreValues_Device(A, &av));
  else PetscCall(MatSeqAIJRestoreArrayRead(A, &av));
  PetscCall(PetscLogEventEnd(SFPC_ILUNumeric, A, 0, 0, 0));

  if (res.nonfinite >= 0) {
    s->failure   = PC_FACTOR_OTHER;
    s->failrow   = res.nonfinite;
    s->failvalue = PETSC_INFINITY;
    what         = "matrix has an Inf or NaN entry";
  } else if (res.badrow >= 0) {
    s->failrow   = res.badrow;
    s->failvalue = res.badpivot;
    if (PetscIsInfOrNanScalar(res.badpivot)) {
      s->failure = PC_FACTOR_OTHER;
      what       = "pivot overflowed to Inf or NaN";
    } else {
      s->failure = PC_FACTOR_NUMERIC_ZEROPIVOT;
      what       = s->shifttype == MAT_SHIFT_POSITIVE_DEFINITE ? "nonpositive pivot" : "zero pivot";
    }
  }
  if (what) {
    char        detail[128] = ""; /* a pivot's value and the tolerance; nothing for an Inf/NaN entry of the matrix, which has no pivot */
    const char *who         = obj->classid == PC_CLASSID ? "PCSFILU" : (s->icc ? "ICC (sfilu solver type)" : "ILU (sfilu solver type)"); /* the PC, or the factor behind PCILU/PCICC */

    if (res.nonfinite < 0) PetscCall(PetscSNPrintf(detail, sizeof(detail), ": |value| %g, tolerance %g times the row sum of |A|", (double)PetscAbsScalar(s->failvalue), (double)s->zeropivot));
    PetscCheck(!erroriffailure, PETSC_COMM_SELF, SFPCFailureClass(s->failure, PETSC_ERR_MAT_LU_ZRPVT), "%s: %s in row %" PetscInt_FMT "%s", who, what, s->rstart + s->failrow, detail);
    PetscCall(PetscInfo(obj, "%s in row %" PetscInt_FMT "%s\n", what, s->rstart + s->failrow, detail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = L^{-1} b (unit) or U^{-1} b, one sweep of the factor; b and x distinct. Logged as a triangular solve, as the apply. */
PetscErrorCode SFILUSweep(SFILU *s, PetscBool lower, Vec b, Vec x)
{
  const PetscScalar *ba;
  PetscScalar       *xa;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SFPC_TriSolve, b, x, 0, 0));
  if (s->ondevice) PetscCall(SFILUSweep_Device(s, lower, b, x));
  else {
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(SFPCTriFactorSweep_Host(&s->F, lower, lower, ba, xa));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(PetscLogFlops((PetscLogDouble)s->F.nnz)); /* about half the factor's entries, two flops each */
  }
  PetscCall(PetscLogEventEnd(SFPC_TriSolve, b, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d = D^{-1}, D = diag(U) (the factor's diagonal slots hold its inverse); d a device vector for a device factor. */
PetscErrorCode SFILUInverseDiagonal(SFILU *s, Vec d)
{
  PetscScalar *da;

  PetscFunctionBegin;
  if (s->ondevice) PetscCall(SFILUInverseDiagonal_Device(s, d));
  else {
    PetscCall(VecGetArrayWrite(d, &da));
    for (PetscInt r = 0; r < s->F.n; r++) da[r] = s->F.a[s->F.diag[r]];
    PetscCall(VecRestoreArrayWrite(d, &da));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (LU)^{-1} x (or its transpose). A failed factor gives Inf, as MatSolve() does, so that a KSP stops. */
PetscErrorCode SFILUApply(SFILU *s, Vec x, Vec y, PetscBool transpose)
{
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  /* every rank logs the event, failed or not: with -log_sync (on in PETSc's CI) the event synchronizes x's communicator */
  PetscCall(PetscLogEventBegin(SFPC_TriSolve, x, y, 0, 0));
  if (s->failure != PC_NOERROR) PetscCall(VecFlag(y, 1));
  else if (s->ondevice) {
    PetscCall(SFILUApply_Device(s, x, y, transpose));
  } else {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    if (transpose) PetscCall(SFPCTriFactorSolveTranspose_Host(&s->F, xa, ya));
    else PetscCall(SFPCTriFactorSolve_Host(&s->F, xa, ya));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(PetscLogEventEnd(SFPC_TriSolve, x, y, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   FNV-1a hash of the factor's values (the bytes of a, in the pattern's CSR order, which the host
   and the device factors share): equal fingerprints are bitwise equal factors, which is how the
   tests compare the GPU factorizations with the host reference. The device factor is copied back
   for it, so only detailed views compute it.
*/
static PetscErrorCode SFILUFingerprint(SFILU *s, unsigned long long *hash)
{
  PetscInt           nnz = s->ondevice ? (s->T ? s->T->nnz : 0) : s->F.nnz;
  PetscScalar       *a   = s->F.a;
  const unsigned char *p;

  PetscFunctionBegin;
  if (s->ondevice) {
    PetscCall(PetscMalloc1(nnz, &a));
    PetscCall(SFILUCopyFactorToHost_Device(s, a));
  }
  p     = (const unsigned char *)a;
  *hash = 0xcbf29ce484222325ULL;
  for (size_t k = 0; k < (size_t)nnz * sizeof(PetscScalar); k++) *hash = (*hash ^ p[k]) * 0x100000001b3ULL;
  if (s->ondevice) PetscCall(PetscFree(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUView(SFILU *s, PetscViewer viewer)
{
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (s->sip && s->ondevice) PetscCall(PetscViewerASCIIPrintf(viewer, "SIP (Stone), alpha %g, on the %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, factorization on the GPU (%s, %" PetscInt_FMT " hyperplanes), sync-free solves\n", (double)s->sip_alpha, s->sip_dims[0], s->sip_dims[1], s->sip_dims[2], SFILUSIPVariants[s->sip_variant], s->planes.nplanes));
  else if (s->sip) PetscCall(PetscViewerASCIIPrintf(viewer, "SIP (Stone), alpha %g, on the %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, factorization and solves on the host\n", (double)s->sip_alpha, s->sip_dims[0], s->sip_dims[1], s->sip_dims[2]));
  else if (s->ondevice && SFILUHyperplaneILU0_Device(s) && s->T->grid.box) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0), natural ordering, factorization on the GPU by hyperplanes i + 2j + 4k of the 27-point grid (%" PetscInt_FMT " hyperplanes), sync-free solves\n", s->planes.nplanes));
  else if (s->ondevice && SFILUHyperplaneILU0_Device(s)) PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(0), natural ordering, factorization on the GPU by hyperplanes of the grid (SIP's kernel with alpha 0, %" PetscInt_FMT " hyperplanes), sync-free solves\n", s->planes.nplanes));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "ILU(%" PetscInt_FMT "), natural ordering, factorization and solves on the %s\n", (s->ondevice ? s->T != NULL : s->F.i != NULL) ? s->built_levels : s->fill_levels, s->ondevice ? "GPU (sync-free)" : "host"));
  if (s->fill.nnz) PetscCall(PetscViewerASCIIPrintf(viewer, "levels of fill %" PetscInt_FMT ": the factor has %" PetscInt_FMT " entries, %.3g times A's %" PetscInt_FMT " (pattern built on the host); A's values in its pattern and their map: %.3g MiB more\n", s->built_levels, s->fill.nnz, (double)s->fill.nnz / (double)PetscMax(s->fill.nnz_a, 1), s->fill.nnz_a, (double)((sizeof(PetscScalar) + sizeof(PetscInt)) * s->fill.nnz) / 1048576.0));
  if (s->icc && s->mirror.nnz) PetscCall(PetscViewerASCIIPrintf(viewer, "as ICC: the ILU of A with its lower triangle taken from the upper (on a symmetric matrix ICC's preconditioner); the mirrored values and their map: %.3g MiB more\n", (double)((sizeof(PetscScalar) + sizeof(PetscInt)) * s->mirror.nnz) / 1048576.0));
  else if (s->icc) PetscCall(PetscViewerASCIIPrintf(viewer, "as ICC: the ILU of A with its lower triangle taken from the upper (on a symmetric matrix ICC's preconditioner), gathered through the fill's map\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "shift type %s, zero pivot tolerance %g (relative to row sums of |A|)\n", MatFactorShiftTypes[s->shifttype], (double)s->zeropivot));
  if (s->ondevice && s->T) PetscCall(SFILUView_Device(s, viewer));
  else if (s->F.i) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "factor: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %.3g MiB\n", s->F.n, s->F.nnz, (double)((s->F.nnz * (sizeof(PetscInt) + sizeof(PetscScalar)) + s->F.n * 2 * sizeof(PetscInt)) / 1048576.0)));
  }
  if (s->nshifts) PetscCall(PetscViewerASCIIPrintf(viewer, "diagonal shift %g applied after %" PetscInt_FMT " refactorization(s)\n", (double)s->shift, s->nshifts));
  if (s->failure != PC_NOERROR) PetscCall(PetscViewerASCIIPrintf(viewer, "factorization FAILED (%s) in row %" PetscInt_FMT "\n", PCFailedReasons[s->failure], s->rstart + s->failrow));
  if (format == PETSC_VIEWER_ASCII_INFO_DETAIL && (s->ondevice ? s->T != NULL : s->F.i != NULL)) {
    unsigned long long hash = 0;
    PetscCall(SFILUFingerprint(s, &hash));
    PetscCall(PetscViewerASCIIPrintf(viewer, "factor values fingerprint (FNV-1a of their bytes): %016llx\n", hash));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
