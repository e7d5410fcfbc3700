/*
   Where a point of the grid sits in the hyperplane order of SFILUPlanes (planes_device.cu): plane
   s = i + wy j + wz k, points of a plane by (k, j). SIP's 7-point factorization uses weights (1, 1)
   (a point waits for its -x, -y, -z neighbours), the 27-point ILU(0) (2, 4) (it also waits for
   (i + 1, j - 1, k) and (i + 1, j + 1, k - 1), which then lie one plane lower).

   The host tabulates, per plane s and z-plane k of it (line (s, k)), where the line's points
   start; a line may be empty (with nx = 1 and wy = 2, odd planes have no points).
*/
#pragma once

struct SFILUPlaneTable {
  int        nx, ny, nz, wy, wz;
  const int *tstart; /* per plane: where its lines start in table */
  const int *table;  /* per line (s, k), k from PlaneKMin(): the position of its first point */
};

/* floor(a / b) and ceil(a / b) for b > 0 and any sign of a */
static __host__ __device__ __forceinline__ int PlaneFloorDiv(int a, int b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
static __host__ __device__ __forceinline__ int PlaneCeilDiv(int a, int b)
{
  return a >= 0 ? (a + b - 1) / b : -(-a / b);
}

/* The z-planes plane s crosses: k in [PlaneKMin(), PlaneKMax()] (possibly empty). */
static __host__ __device__ __forceinline__ int PlaneKMin(const SFILUPlaneTable &P, int s)
{
  return max(0, PlaneCeilDiv(s - (P.nx - 1) - P.wy * (P.ny - 1), P.wz));
}
static __host__ __device__ __forceinline__ int PlaneKMax(const SFILUPlaneTable &P, int s)
{
  return min(P.nz - 1, PlaneFloorDiv(s, P.wz));
}

/* The y-lines of line (s, k): j in [PlaneJMin(), PlaneJMax()] (possibly empty). */
static __host__ __device__ __forceinline__ int PlaneJMin(const SFILUPlaneTable &P, int s, int k)
{
  return max(0, PlaneCeilDiv(s - P.wz * k - (P.nx - 1), P.wy));
}
static __host__ __device__ __forceinline__ int PlaneJMax(const SFILUPlaneTable &P, int s, int k)
{
  return min(P.ny - 1, PlaneFloorDiv(s - P.wz * k, P.wy));
}

/* Position of point (i, j, k), s = i + wy j + wz k, in the order. */
static __device__ __forceinline__ int PlanePosition(const SFILUPlaneTable &P, int s, int k, int j)
{
  return P.table[P.tstart[s] + k - PlaneKMin(P, s)] + j - PlaneJMin(P, s, k);
}

/*
   Fills P (sfilu.h) for the weights wy, wz of the grid dims: the planes, order (all -1, for the caller's
   record kernel to fill with PlanePosition()), and the device table the kernel reads, which the
   caller frees with SFILUPlaneTableFree() when its kernel is queued.
*/
PETSC_INTERN PetscErrorCode SFILUPlanesCreate_Device(const PetscInt[3], int, int, SFILUPlanes *, SFILUPlaneTable *);
PETSC_INTERN PetscErrorCode SFILUPlaneTableFree(SFILUPlaneTable *);
