/*
   The arithmetic of one point of Stone's SIP factorization, shared by the host reference
   (sip_host.c) and the GPU kernels (sip_device.cu): one copy of the formulas, so that both perform
   the same roundings in the same order and the GPU factor is bitwise the host one.

   On the device every product, sum and quotient goes through a _rn intrinsic, which nvcc never
   contracts into a fused multiply-add (it contracts a*b + c by default); the host compiler emits
   no FMA for PETSc's flags (x86-64 without -mfma), as the ILU(0) factor already relies on.

   Directions d, e = 0, 1, 2 are x, y, z (PETSc's DMDA ordering, x fastest). For point l and its
   lower neighbour m_d = l - stride_d, with u_e(m) = (upper coefficient of m towards e) / (pivot of m):
     b_d   = A_{l,m_d} / (1 + alpha sum_{e != d} u_e(m_d))
     P_e   = sum_{d != e} b_d u_e(m_d)
     pivot = (A_ll + shift) + alpha sum_e P_e - sum_d (b_d / pivot(m_d)) U_{m_d,l}      (d = z, y, x)
   stored as the engine's in-place LU: L_{l,m_d} = b_d / pivot(m_d), U_{l,l+stride_e} = A - alpha P_e.
   alpha = 0 performs exactly ILU(0)'s operations (b_d = A_{l,m_d}, no cancellation terms): on a
   pattern within the 7-point stencil ILU(0) updates only the pivot (the fill a lower neighbour's
   upper entries would make lies off the stencil), subtracting L_{l,m_d} U_{m_d,l} in column order
   as the host ILU(0) does, so the GPU factors ILU(0) on a grid with this kernel too (sfilu_device.c).
*/
#pragma once

#include <sfpc/private/pivot.h> /* SFPCPivotFails(): a SIP pivot fails as an ILU(0) one */

#if defined(__CUDACC__)
  #define SIP_FN static __host__ __device__ __forceinline__
#else
  #define SIP_FN static inline
#endif

SIP_FN double SIPMul(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SIP_FN double SIPAdd(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SIP_FN double SIPSub(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
SIP_FN double SIPDiv(double a, double b)
{
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

/*
   What a point needs of itself and of its finished lower neighbours. lower: bit d set when the
   row has its -d neighbour; nbup[d]: bit e set when that neighbour's row has its +e entry, whose
   stored value (A - alpha P, as finished) is Um[d][e] (Um[d][d] couples it to this point);
   dinv[d]: that neighbour's inverse pivot.
*/
typedef struct {
  unsigned lower, nbup[3];
  double   Al[3];    /* A_{l,m_d} */
  double   Adiag;    /* A_ll + shift */
  double   Au[3];    /* A_{l,l+stride_e} (whatever where absent: not used) */
  double   dinv[3];  /* 1 / pivot(m_d) */
  double   Um[3][3]; /* U_{m_d, m_d+stride_e} as stored */
} SIPPointIn;

/* L[d] (0 where lower lacks d), U[e] (meaningful where the row has +e) and the pivot of the point. */
SIP_FN void SIPPointFactor(const SIPPointIn *in, double alpha, double L[3], double U[3], double *pivot)
{
  double b[3] = {0, 0, 0}, P[3] = {0, 0, 0}, s = in->Adiag;

  for (int d = 0; d < 3; d++) {
    L[d] = 0; /* where the point has no -d neighbour */
    if (in->lower >> d & 1) b[d] = in->Al[d];
  }
  if (alpha != 0) { /* SIP's cancellation terms; ILU(0) (alpha 0) has none: 0 times an overflowed sum would be a NaN ILU(0) never sees */
    double u[3][3] = {{0}};
    for (int d = 0; d < 3; d++) {
      if (!(in->lower >> d & 1)) continue;
      for (int e = 0; e < 3; e++) u[d][e] = (in->nbup[d] >> e & 1) ? SIPMul(in->Um[d][e], in->dinv[d]) : 0.0;
    }
    for (int d = 0; d < 3; d++) {
      double damp = 0;
      if (!(in->lower >> d & 1)) continue;
      for (int e = 0; e < 3; e++)
        if (e != d) damp = SIPAdd(damp, u[d][e]);
      b[d] = SIPDiv(in->Al[d], SIPAdd(1.0, SIPMul(alpha, damp)));
    }
    for (int e = 0; e < 3; e++)
      for (int d = 0; d < 3; d++)
        if (d != e && (in->lower >> d & 1)) P[e] = SIPAdd(P[e], SIPMul(b[d], u[d][e]));
    for (int e = 0; e < 3; e++) s = SIPAdd(s, SIPMul(alpha, P[e]));
  }
  /* in column order (z, y, x), as ILU(0) eliminates; a neighbour without the entry back to this point adds nothing, as in ILU(0) */
  for (int d = 2; d >= 0; d--) {
    if (!(in->lower >> d & 1)) continue;
    L[d] = SIPMul(b[d], in->dinv[d]);
    if (in->nbup[d] >> d & 1) s = SIPSub(s, SIPMul(L[d], in->Um[d][d]));
  }
  for (int e = 0; e < 3; e++) U[e] = alpha != 0 ? SIPSub(in->Au[e], SIPMul(alpha, P[e])) : in->Au[e];
  *pivot = s;
}

