/*
   The pivot test of every SFPC factorization (ILU(0), SIP, DILU's E, on the host and in each GPU kernel), in
   one place so that host and device fail on the same row: a pivot u fails when it is not finite, or when
   |u| <= tol (u <= tol with a positive-definite shift), tol = zeropivot * (row sum of |A|), as PETSc's
   ILU checks against its zero-pivot tolerance. SFPC needs real double scalars (config/configure.py).
   And the nonzero shift that the factorizations retry with after a failed pivot.
*/
#pragma once

#include <math.h>

#if defined(__CUDACC__)
  #define SFPC_PIVOT_FN static __host__ __device__ __forceinline__
#else
  #define SFPC_PIVOT_FN static inline
#endif

SFPC_PIVOT_FN int SFPCPivotFails(double u, double tol, int positive)
{
  return !(u - u == 0) || (positive ? u <= tol : (u < 0 ? -u : u) <= tol);
}

/*
   The shift of the k-th retry (k from 0) of the nonzero shift type: amount (PCFactor's NONZERO takes it absolute) times the largest
   row sum of |A| (1 when A has none), doubled k times (PCSFILU's attempt k >= 1 is retry k - 1, PCSFDILU's k is k).
*/
SFPC_PIVOT_FN double SFPCNonzeroShift(double amount, double rmax, int k)
{
  return amount * (rmax > 0 ? rmax : 1.0) * pow(2.0, (double)k);
}
