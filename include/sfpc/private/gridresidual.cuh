/*
   The residual fused into a grid layout's L sweep (SFPCGridSweepResidual_Device()): r = b - A x0 (or A x0 alone, the
   product of B A x) is computed tile by tile by tasks of the same ticket stream as the sweep's, so that it runs in the
   time the sweep's chain leaves the machine idle instead of before it. A tile is the rows one sweep task reads its
   right-hand sides from: the 32 y-lines of a z-plane of a 7-point sweep's tile column (gridsweep.cu, W tiles a block
   task of W planes), or 5 of the 30 skewed y-lines of a 27-point sweep's tile line (gridbox.cu, BOX_RES_PARTS tiles a task).

   Ticket order: the tiles of the first `lead` sweep tasks, then per sweep task w the task itself followed by the tiles
   of task w + lead. A tile task never waits, and a sweep task's tiles have lower tickets: a warp waiting on a tile
   waits on a warp that has taken it and runs, so residency cannot deadlock. A finished tile publishes
   flag[tile] = epoch (release); the sweep's warp of that tile acquires it before its first load of r.

   Sums are the host's MatMult()'s, entry by entry in CSR order (products rounded, no fused multiply-add), and
   r_i = b_i - sum as MatResidual() forms it, so the fused iteration is bit for bit the host's.
*/
#pragma once

#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/gridslabs.cuh>

struct GridResidual {
  const int *__restrict__ ai, *__restrict__ aj;
  const double *__restrict__ a, *__restrict__ b, *__restrict__ x0;
  double *r;    /* the L sweep's right-hand side: written by tile tasks, read by sweep tasks */
  int    *flag; /* per tile */
  double *part; /* per tile: the sum of |r_i| (norm 1) or r_i^2 (norm 2) over its points */
  int     epoch, norm, lead;
};

/* The lead of a fused residual over ntasks sweep tasks: an eighth of them (bench/README.md: it hardly matters). */
#define SFPC_GRID_RES_LEAD_PART 8
__host__ __device__ static inline int SFPCGridResidualLead(long long ntasks)
{
  return (int)(ntasks / SFPC_GRID_RES_LEAD_PART > 1 ? ntasks / SFPC_GRID_RES_LEAD_PART : 1);
}

/* Tickets of a fused residual's stream: ntasks sweep tasks of W tiles each, lead tasks' tiles ahead. */
__host__ __device__ static inline long long SFPCGridResidualTickets(long long ntasks, int W, int lead)
{
  return (long long)W * lead + (long long)(W + 1) * ntasks;
}

/* What ticket t of that stream is: a sweep task (returned), or -1 for tile p of sweep task *tw (*tw >= ntasks: none). */
__device__ __forceinline__ long long GridResidualTicket(long long t, int W, int lead, long long *tw, int *p)
{
  if (t < (long long)W * lead) {
    *tw = t / W, *p = (int)(t % W);
    return -1;
  }
  const long long u = t - (long long)W * lead, o = u % (W + 1);
  if (o == 0) return u / (W + 1);
  *tw = u / (W + 1) + lead, *p = (int)o - 1;
  return -1;
}

/* A row's sum over its CSR entries e0 .. e1 - 1, columns read (rows whose columns the geometry does not give). */
__device__ __forceinline__ double GridResidualRowByCSR(const GridResidual &R, int e0, int e1)
{
  double s = 0;
  for (int e = e0; e < e1; e++) s = __dadd_rn(s, __dmul_rn(R.a[e], R.x0[R.aj[e]]));
  return s;
}

/* r_i = b_i - s (s alone without b); its share of the tile's norm added to acc. */
__device__ __forceinline__ void GridResidualStore(const GridResidual &R, int row, double s, double &acc)
{
  const double ri = R.b ? __dsub_rn(R.b[row], s) : s;
  R.r[row]        = ri;
  if (R.norm) acc = __dadd_rn(acc, R.norm == 1 ? fabs(ri) : __dmul_rn(ri, ri));
}

/*
   The end of tile `tile`, by the W warps of the block that computed it (acc: each thread's share of the norm, red:
   W doubles of shared memory): the partial sum in a fixed order (the same every run) and the flag, after every
   thread's stores of r are visible device-wide.
*/
template <int W>
__device__ __forceinline__ void GridResidualPublish(const GridResidual &R, int tile, double acc, double *red)
{
  const int lane = threadIdx.x & 31, q = threadIdx.x >> 5;
  if (R.norm) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc = __dadd_rn(acc, __shfl_down_sync(0xffffffffu, acc, o));
    if (lane == 0) red[q] = acc;
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (R.norm) {
      double t = red[0];
      for (int w = 1; w < W; w++) t = __dadd_rn(t, red[w]);
      R.part[tile] = t;
    }
    sfpc::StoreRelease(R.flag + tile, R.epoch);
  }
}

/* Waits, every thread, until tile `tile` of the residual is written (acquire: the thread's loads of r after it see it). */
__device__ __forceinline__ void GridResidualWait(const GridResidual &R, int tile)
{
  const int *f = R.flag + tile;
  while (cuda::atomic_ref<const int, cuda::thread_scope_device>(*f).load(cuda::memory_order_acquire) != R.epoch) sfpc::Backoff();
}

/* The 27-point layout (gridbox.cu): a tile line's lines come in BOX_RES_PARTS parts of BOX_RES_LINES, each a ticket and a flag. */
#define BOX_RES_LINES 5
#define BOX_RES_PARTS ((BOX_LINES + BOX_RES_LINES - 1) / BOX_RES_LINES)
PETSC_INTERN long long      SFPCGridBoxResidualParts(SFPCTriDevice);
PETSC_INTERN PetscErrorCode SFPCGridBoxSweepResidual_Device(SFPCTriDevice, const GridResidual *, PetscScalar *, PetscScalar *, cudaStream_t);
