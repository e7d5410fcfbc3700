/*
   Stone's strongly implicit procedure (SIP) for 7-point stencils on a structured 3-D grid, on the
   host: the reference the GPU SIP (sip_device.cu) is checked against, and the path for host matrices.

   SIP is ILU(0) with values changed: each lower coefficient is damped and alpha times the fill
   ILU(0) drops is partially cancelled on the diagonal and the upper coefficients (Stone 1968; the
   3-D formulas of Ferziger and Peric's SIPSOL, shared/notes/seed-003-004-sip.md section 1.3, with
   their N/E/T and S/W/B written as the +x/+y/+z and -x/-y/-z neighbours of PETSc's x-fastest
   ordering). The formulas, shared with the GPU, are in sippoint.h; the factor is stored as the
   engine's in-place LU (trifactor.h): L entries b_d / pivot(m_d), U entries A_{l,l+stride_e} - P_e,
   diagonal slots 1/pivot. alpha = 0 is ILU(0) operation for operation, so then the factor is
   bitwise SFILUFactorNumeric_Host()'s.
*/
#include "sfilu.h"
#include "sippoint.h"

/* Position of column c in row r of F, or -1. */
static PetscInt Find(const SFPCTriFactor *F, PetscInt r, PetscInt c)
{
  for (PetscInt k = F->i[r]; k < F->i[r + 1]; k++)
    if (F->j[k] == c) return k;
  return -1;
}

/* The error for a matrix that is not a 7-point stencil on the grid: column c of row r (host and device checks); guessed: dims were read off a few rows of the pattern. */
PetscErrorCode SFILUSIPPatternError(const PetscInt dims[3], PetscBool guessed, PetscInt r, PetscInt c)
{
  PetscCheck(!guessed, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "SIP needs a 7-point stencil in natural order on a 3-D grid (x fastest): none was given and this pattern is not one (a few of its rows read as a %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, but row %" PetscInt_FMT " has column %" PetscInt_FMT "); attach the 3-D DMDA to the PC (KSPSetDM()/PCSetDM()) or give -pc_sfilu_sip_grid nx,ny,nz", dims[0], dims[1], dims[2], r, c);
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "SIP needs a 7-point stencil on the %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid (one field, star stencil of width 1, not periodic): row %" PetscInt_FMT " has column %" PetscInt_FMT, dims[0], dims[1], dims[2], r, c);
}

PetscErrorCode SFILUCheckSIPGrid(PetscInt n, const PetscInt dims[3])
{
  PetscFunctionBegin;
  PetscCall(SFPCGridCheckSize(n, dims, "SIP"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every off-diagonal entry of the pattern must couple a point to one of its 6 grid neighbours. */
PetscErrorCode SFILUCheckSIPPattern(const SFPCTriFactor *F, const PetscInt dims[3], PetscBool guessed)
{
  PetscInt r, c;

  PetscFunctionBegin;
  PetscCall(SFILUCheckSIPGrid(F->n, dims));
  PetscCall(SFPCGridFindOutside_Host(F, dims, PETSC_FALSE, &r, &c));
  if (r >= 0) PetscCall(SFILUSIPPatternError(dims, guessed, r, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   SIP factorization of A + shift*I into F->a (F holds A's pattern, checked by SFILUCheckSIPPattern()).
   Pivots fail and Inf/NaN entries stop it as in SFILUFactorNumeric_Host().
*/
PetscErrorCode SFILUFactorSIP_Host(SFPCTriFactor *F, const PetscScalar aa[], const PetscInt dims[3], PetscReal alpha, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  const PetscInt stride[3] = {1, dims[0], dims[0] * dims[1]};
  PetscScalar   *a         = F->a;

  PetscFunctionBegin;
  res->badrow = res->nonfinite = -1;
  res->badpivot                = 0;
  for (PetscInt r = 0; r < F->n; r++) {
    const PetscInt at[3] = {r % dims[0], (r / dims[0]) % dims[1], r / stride[2]};
    PetscInt       lo[3] = {-1, -1, -1}, up[3] = {-1, -1, -1};
    SIPPointIn     in    = {0};
    double         L[3], U[3], s;
    PetscReal      rowsum = 0;

    for (PetscInt q = F->i[r]; q < F->i[r + 1]; q++) rowsum += PetscAbsScalar(aa[q]);
    if (PetscIsInfOrNanReal(rowsum)) {
      res->nonfinite = r;
      break;
    }
    /* the grid coordinates tell the directions apart where strides coincide (a side of length 1) */
    for (PetscInt d = 0; d < 3; d++) {
      if (at[d] > 0) lo[d] = Find(F, r, r - stride[d]);
      if (at[d] < dims[d] - 1) up[d] = Find(F, r, r + stride[d]);
    }
    in.Adiag = aa[F->diag[r]] + shift;
    for (PetscInt d = 0; d < 3; d++) {
      if (up[d] >= 0) in.Au[d] = aa[up[d]];
      if (lo[d] < 0) continue;
      const PetscInt m = r - stride[d];
      in.lower |= 1u << d;
      in.Al[d]   = aa[lo[d]];
      in.dinv[d] = a[F->diag[m]]; /* m is finished */
      for (PetscInt e = 0; e < 3; e++) {
        const PetscInt q = (e == d || at[e] < dims[e] - 1) ? Find(F, m, m + stride[e]) : -1; /* m's coordinates are this point's, one less along d */
        if (q < 0) continue;
        in.nbup[d] |= 1u << e;
        in.Um[d][e] = a[q];
      }
    }
    SIPPointFactor(&in, alpha, L, U, &s);
    for (PetscInt d = 0; d < 3; d++) {
      if (lo[d] >= 0) a[lo[d]] = L[d];
      if (up[d] >= 0) a[up[d]] = U[d];
    }
    if (SFPCPivotFails(s, zeropivot * rowsum, positive)) {
      res->badrow   = r;
      res->badpivot = s;
      a[F->diag[r]] = s;
      break;
    }
    a[F->diag[r]] = 1.0 / s;
  }
  PetscCall(PetscLogFlops(30.0 * F->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}
