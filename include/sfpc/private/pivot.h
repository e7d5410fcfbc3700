/*
   The pivot test of every SFPC factorization (ILU(0), SIP, DILU's E, on the host and in each GPU kernel), in
   one place so that host and device fail on the same row: a pivot u fails when it is not finite, or when
   |u| <= tol (u <= tol with a positive-definite shift), tol = zeropivot * (row sum of |A|), as PETSc's
   ILU checks against its zero-pivot tolerance. SFPC needs real double scalars (config/configure.py).
*/
#pragma once

#if defined(__CUDACC__)
  #define SFPC_PIVOT_FN static __host__ __device__ __forceinline__
#else
  #define SFPC_PIVOT_FN static inline
#endif

SFPC_PIVOT_FN int SFPCPivotFails(double u, double tol, int positive)
{
  return !(u - u == 0) || (positive ? u <= tol : (u < 0 ? -u : u) <= tol);
}
