/*
   Stone's strongly implicit procedure (SIP) for 7-point stencils on a structured 3-D grid, on the
   host: the reference a GPU SIP is to be checked against, and the path for host matrices.

   SIP is ILU(0) with values changed: each lower coefficient is damped and alpha times the fill
   ILU(0) drops is partially cancelled on the diagonal and the upper coefficients (Stone 1968; the
   3-D formulas of Ferziger and Peric's SIPSOL, shared/notes/seed-003-004-sip.md section 1.3, with
   their N/E/T and S/W/B written as the +x/+y/+z and -x/-y/-z neighbours of PETSc's x-fastest
   ordering). With u_e(m) = (upper coefficient of point m towards e) / (its pivot), for each
   point l and lower neighbour m_d = l - stride_d:
     b_d  = A_{l,m_d} / (1 + alpha sum_{e != d} u_e(m_d))
     P_e  = alpha sum_{d != e} b_d u_e(m_d)
     pivot = A_ll + sum_e P_e - sum_d b_d u_d(m_d)
   and the factor is stored as the engine's in-place LU (trifactor.h): L entries b_d / pivot(m_d),
   U entries A_{l,l+stride_e} - P_e, diagonal slots 1/pivot. alpha = 0 is ILU(0) operation for
   operation, so then the factor is bitwise SFILUFactorNumeric_Host()'s.
*/
#include "sfilu.h"

/* Position of column c in row r of F, or -1. */
static PetscInt Find(const SFPCTriFactor *F, PetscInt r, PetscInt c)
{
  for (PetscInt k = F->i[r]; k < F->i[r + 1]; k++)
    if (F->j[k] == c) return k;
  return -1;
}

/* Every off-diagonal entry of the pattern must couple a point to one of its 6 grid neighbours. */
PetscErrorCode SFILUCheckSIPPattern(const SFPCTriFactor *F, const PetscInt dims[3])
{
  const PetscInt nx = dims[0], ny = dims[1], nz = dims[2];

  PetscFunctionBegin;
  PetscCheck(nx >= 1 && ny >= 1 && nz >= 1 && nx * ny * nz == F->n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "SIP: the grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " does not have the matrix's %" PetscInt_FMT " rows", nx, ny, nz, F->n);
  for (PetscInt r = 0; r < F->n; r++) {
    const PetscInt i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
    for (PetscInt q = F->i[r]; q < F->i[r + 1]; q++) {
      const PetscInt c = F->j[q], ci = c % nx, cj = (c / nx) % ny, ck = c / (nx * ny);
      const PetscInt d = PetscAbsInt(ci - i) + PetscAbsInt(cj - j) + PetscAbsInt(ck - k);
      PetscCheck(d <= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "SIP needs a 7-point stencil on the %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid (one field, star stencil of width 1, not periodic): row %" PetscInt_FMT " has column %" PetscInt_FMT, nx, ny, nz, r, c);
    }
  }
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
    PetscInt    lo[3], up[3];
    PetscScalar b[3] = {0, 0, 0}, u[3][3], piv[3], P[3] = {0, 0, 0}, s;
    PetscReal   rowsum = 0;

    for (PetscInt q = F->i[r]; q < F->i[r + 1]; q++) rowsum += PetscAbsScalar(aa[q]);
    if (PetscIsInfOrNanReal(rowsum)) {
      res->nonfinite = r;
      break;
    }
    for (PetscInt d = 0; d < 3; d++) {
      lo[d] = Find(F, r, r - stride[d]);
      up[d] = Find(F, r, r + stride[d]);
    }
    /* the finished lower neighbours: their inverse pivots and u_e = (upper coefficient) / pivot */
    for (PetscInt d = 0; d < 3; d++) {
      if (lo[d] < 0) continue;
      const PetscInt m = r - stride[d];
      piv[d]           = a[F->diag[m]];
      for (PetscInt e = 0; e < 3; e++) {
        const PetscInt q = Find(F, m, m + stride[e]);
        u[d][e]          = q >= 0 ? a[q] * piv[d] : 0;
      }
    }
    for (PetscInt d = 0; d < 3; d++) {
      if (lo[d] < 0) continue;
      PetscScalar damp = 0;
      for (PetscInt e = 0; e < 3; e++)
        if (e != d) damp += u[d][e];
      b[d] = aa[lo[d]] / (1 + alpha * damp);
    }
    for (PetscInt e = 0; e < 3; e++)
      for (PetscInt d = 0; d < 3; d++)
        if (d != e && lo[d] >= 0) P[e] += b[d] * u[d][e];
    s = aa[F->diag[r]] + shift;
    for (PetscInt e = 0; e < 3; e++) s += alpha * P[e];
    /* as ILU(0) does, in column order (z, y, x): the pivot loses L_rm * U_mr with L_rm = b / pivot(m) */
    for (PetscInt d = 2; d >= 0; d--) {
      if (lo[d] < 0) continue;
      a[lo[d]] = b[d] * piv[d];
      s -= a[lo[d]] * a[Find(F, r - stride[d], r)];
    }
    for (PetscInt e = 0; e < 3; e++)
      if (up[e] >= 0) a[up[e]] = aa[up[e]] - alpha * P[e];
    {
      const PetscReal tol = zeropivot * rowsum;
      if (PetscIsInfOrNanScalar(s) || (positive ? PetscRealPart(s) <= tol : PetscAbsScalar(s) <= tol)) {
        res->badrow   = r;
        res->badpivot = s;
        a[F->diag[r]] = s;
        break;
      }
      a[F->diag[r]] = 1.0 / s;
    }
  }
  PetscCall(PetscLogFlops(30.0 * F->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}
