/*
   ILU(0) on the GPU by dense point-blocks (SFILUBlocks with dense set, sfilu.h): a warp factors the bs rows of a
   grid point whose couplings to its neighbours are dense bs x bs blocks, the pattern of a DMDA with bs fields or
   of Q1 elasticity. ilu0_block_device.cu factors point-blocks whose rows have at most 32 entries, matched entry
   by entry with the match map of the rows; a 3-D point with 5 fields on the 7-point star has rows of 35 entries,
   an elasticity node rows of 81, and row by row (ilu0_device.cu) their factorization was 0.64x and 0.42x
   cuSPARSE's (bench/README.md). With dense blocks every L entry of the block's rows in point C updates the
   same points, all bs columns of each: the match map of the points' pattern (the quotient, one entry a pair of
   points, at most 32 a point) says which, for all bs x bs entries of the pair at once. Where both kernels
   apply (rows of at most 32 entries) this one was faster too (H100: the 4-field 3-D grid 1.38 against 2.33 ms,
   the driven cavity 2.04 against 3.00), so dense blocks are tried first.

   A block task, point R whose row of points has pd points before R's own (its external L points):
   1. The rows' values in registers by column: lane t holds, for every row f of the block, the columns
      t + 32 q of the row (positions in the point row: point p = i / bs, field b = i % bs), so the U value
      an update reads is the same for all bs rows of a lane's column.
   2. Before any wait, where each staged value is in the factor. Then, in ascending order, the external points
      whose rows are published (polled as a prefix: the last point, the -x neighbour, is usually published
      last) are staged in groups that fit shared memory, each group with every load at once, and applied (3.),
      so that after the last publication only the last point is left: the first kernel waited for all and
      staged all, 31 us a block on elasticity, and was 4x slower (bench/README.md, "Dense point-blocks").
      A point C's stage: the bs x bs diagonal block of C (its inverted pivots and the U entries inside C) and
      the bs x bs block of every point of C's U row that R's row also holds (the map's U ranks).
   3. For each external point C, ascending, and each of its rows c = C bs + b, ascending: the bs multipliers
      l_f = a_fc / u_cc by shuffle from the lane holding column c, then each lane subtracts l_f u_cj from its
      columns j of U(c): the later fields of C and the fields of the matched points.
   4. The block's own diagonal block: for b ascending, row b (all its L entries applied) tests and inverts
      its pivot; the rows f > b take their multiplier and subtract l_f times row b's values, which the lane
      holds in its registers (same column).
   5. Writes the rows back and publishes them.
   Each row takes its L entries in ascending column order and each entry sees the host's operations in the
   host's order (SFILUFactorNumeric_Host()): the factor is bitwise the host's, as the row kernels'.
*/
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include "matchmap.cuh"
#include <sfpc/private/pivot.h>
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

namespace
{
#define DENSE_STAGE SFILU_DENSE_MAX_STAGE
#ifndef SFILU_DENSE_LOADS
  #define SFILU_DENSE_LOADS 8
#endif
#define DENSE_LOADS SFILU_DENSE_LOADS /* staged values a lane loads at once: registers, hence warps an SM (8: 1.54 ms, 16: 1.79, 32: 3.04 on the 5-field 64^3 grid, H100) */

/* A warp's shared memory. */
struct DenseShared {
  double stage[DENSE_STAGE];                   /* a group's staged values, external point by point */
  uint4  m[32];                                /* the map's words of each external point */
  int    base[33];                             /* each external point's first segment (all groups together; bs values a segment) */
  int    node[32];                             /* each external point */
  int    seg[SFILU_DENSE_MAX_SEGMENTS];         /* where each segment of the staged values starts in the factor */
  double rowsum[SFILU_BLOCK_MAX_ROWS];         /* each row's sum of |a|, for the pivot tolerance */
};

/* Most columns of a point row a lane holds: a block has at most SFPC_BLOCK_MAX_ENTRIES entries, so rows of at most that / BS. */
template <int BS>
__host__ __device__ constexpr int DenseCols()
{
  return (SFPC_BLOCK_MAX_ENTRIES / BS + 31) / 32;
}

/*
   Row c = C bs + b of an external point C applied to the lane's columns, SC the slot of column c (the lane
   src holds it): the multipliers l_f = a_fc / u_cc by shuffle, then a_fj -= l_f u_cj where U(c) has column j
   (kq: the staged block a column reads, 0 C's diagonal block, -1 none). SC is a template argument so that the
   slot is a register, not a selection among the lane's slots.
*/
template <int BS, int COLS, int SC>
__device__ __forceinline__ void DenseExternalRow(double (&val)[BS][COLS], const double *st, int b, int src, int lane, const int (&kq)[COLS], const int (&colb)[COLS])
{
  const double piv = st[b * BS + b]; /* 1/u_cc */
  double       l[BS];
#pragma unroll
  for (int f = 0; f < BS; f++) l[f] = __dmul_rn(__shfl_sync(0xffffffffu, val[f][SC], src), piv); /* a_fc is final */
#pragma unroll
  for (int q = 0; q < COLS; q++)
    if (kq[q] > 0 || (kq[q] == 0 && colb[q] > b)) {
      const double u = st[kq[q] * BS * BS + b * BS + colb[q]];
#pragma unroll
      for (int f = 0; f < BS; f++) val[f][q] = sfpc::SubProduct(val[f][q], l[f], u);
    }
  if (lane == src)
#pragma unroll
    for (int f = 0; f < BS; f++) val[f][SC] = l[f];
}

/* COLS: the slots of a lane, enough for the longest row (a lane's loops run over all of them) */
template <int BS, int COLS>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) DenseILU0Kernel(int nblocks, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *__restrict__ nlstart, const uint4 *__restrict__ nmasks, const double *__restrict__ A, double *a, int *flags, int epoch, unsigned long long *counter, unsigned long long base, double shift, double zeropivot, int positive, int *found)
{
  __shared__ DenseShared shared[SFPC_WARPS_PER_BLOCK];
  DenseShared           &s    = shared[threadIdx.x / 32];
  const int              lane = threadIdx.x & 31;
  const unsigned         full = 0xffffffffu;
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  int                    colp[COLS], colb[COLS]; /* point and field of the lane's columns */

#pragma unroll
  for (int q = 0; q < COLS; q++) {
    colp[q] = (lane + 32 * q) / BS;
    colb[q] = (lane + 32 * q) % BS;
  }
  for (long long w; (w = sfpc::TakeTask(counter, base)) < nblocks;) {
    const int B = order[w], R0 = B * BS, E0 = ai[R0], W = ai[R0 + 1] - E0, pd = (ad[R0] - E0) / BS;

    /* 1. values by column, the diagonal shifted; row sums in the host's order; the external points, their map words and where their staged values are */
    double val[BS][COLS];
#pragma unroll
    for (int f = 0; f < BS; f++)
#pragma unroll
      for (int q = 0; q < COLS; q++) val[f][q] = lane + 32 * q < W ? A[E0 + f * W + lane + 32 * q] : 0.0;
    if (lane < BS) {
      double sum = 0;
      for (int i = 0; i < W; i++) sum += fabs(A[E0 + lane * W + i]);
      if (!isfinite(sum)) atomicMin(found + 1, R0 + lane);
      s.rowsum[lane] = sum;
    }
#pragma unroll
    for (int f = 0; f < BS; f++) {
      const int id = pd * BS + f;
      if (lane == (id & 31)) SFILUSetSlot(val[f], id >> 5, SFILUSlotValue(val[f], id >> 5) + shift);
    }
    int cnt = 0;
    if (lane < pd) {
      const uint4 m = nmasks[nlstart[B] + lane];
      s.m[lane]     = m;
      s.node[lane]  = aj[E0 + lane * BS] / BS;
      cnt           = BS * (1 + __popc(m.x)); /* segments: a row of a staged bs x bs block, bs consecutive values */
    }
    s.base[lane + 1] = cg::inclusive_scan(warp, cnt);
    if (lane == 0) s.base[0] = 0;
    __syncwarp();
    for (int g = lane, p = 0; g < s.base[pd]; g += 32) { /* segment g: row b of block kk of point p's stage, at its first value in the factor */
      while (s.base[p + 1] <= g) p++;
      const int   kk = (g - s.base[p]) / BS, b = (g - s.base[p]) % BS;
      const uint4 m  = s.m[p];
      const int   off = kk ? (int)SFILUMatchOffset(m.y, m.z, m.w, kk - 1) : 0; /* points after C's diagonal in its U row */
      s.seg[g]        = ad[s.node[p] * BS + b] - b + off * BS;
    }
    __syncwarp();

    /*
       2-3. the external points in ascending order, in groups: a group is the points whose rows are published (polled
       as a prefix, the later points' rows being the ones that finish last) and whose staged values fit; each group
       staged at once, then its points applied. The group of the last point is all that follows its publication.
    */
    const int nrows = pd * BS;
    for (int g0 = 0, ready = 0; g0 < pd;) {
      while (ready < (g0 + 1) * BS) {
        const int      k  = ready + lane;
        const unsigned ok = __ballot_sync(full, k >= nrows || sfpc::IsReady(flags, s.node[k / BS] * BS + k % BS, epoch));
        ready += ok == full ? 32 : __ffs(~ok) - 1;
        if (ready < (g0 + 1) * BS) sfpc::Backoff();
      }
      __syncwarp(); /* after each lane's acquire, the others read the rows it saw finished */
      const int pr = PetscMin(ready, nrows) / BS; /* points published */
      int       g1 = g0 + 1;
      while (g1 < pr && BS * (s.base[g1 + 1] - s.base[g0]) <= DENSE_STAGE) g1++;
      for (int j0 = 0, nst = BS * (s.base[g1] - s.base[g0]); j0 < nst; j0 += 32 * DENSE_LOADS) {
        const int *seg = s.seg + s.base[g0];
        double     v[DENSE_LOADS];
#pragma unroll
        for (int i = 0; i < DENSE_LOADS; i++) {
          const int j = j0 + lane + 32 * i;
          v[i]        = j < nst ? __ldcg(a + seg[j / BS] + j % BS) : 0.0;
        }
#pragma unroll
        for (int i = 0; i < DENSE_LOADS; i++)
          if (j0 + lane + 32 * i < nst) s.stage[j0 + lane + 32 * i] = v[i];
      }
      __syncwarp();
      for (int p = g0; p < g1; p++) {
        const uint4   m  = s.m[p];
        const double *st = s.stage + BS * (s.base[p] - s.base[g0]);
        int           kq[COLS]; /* the block of the stage a column reads (0: C's diagonal block), -1: none */
#pragma unroll
        for (int q = 0; q < COLS; q++) {
          const int pp = colp[q];
          kq[q]        = lane + 32 * q >= W ? -1 : pp == p ? 0 : (m.x >> pp & 1) ? 1 + __popc(m.x & ((1u << pp) - 1)) : -1;
        }
#pragma unroll
        for (int b = 0; b < BS; b++) {
          const int ic = p * BS + b, src = ic & 31, sc = ic >> 5;
          if (sc == 0) DenseExternalRow<BS, COLS, 0>(val, st, b, src, lane, kq, colb);
          else if constexpr (COLS > 1) {
            if (sc == 1) DenseExternalRow<BS, COLS, 1>(val, st, b, src, lane, kq, colb);
            else if constexpr (COLS > 2) {
              if (sc == 2) DenseExternalRow<BS, COLS, 2>(val, st, b, src, lane, kq, colb);
              else if constexpr (COLS > 3) DenseExternalRow<BS, COLS, 3>(val, st, b, src, lane, kq, colb);
            }
          }
        }
      }
      __syncwarp(); /* the group's reads of the stage before the next group's stores */
      g0 = g1;
    }

    /* 4. the diagonal block: row b's pivot, then the rows after it */
#pragma unroll
    for (int b = 0; b < BS; b++) {
      const int id = pd * BS + b, src = id & 31, sc = id >> 5;
      if (lane == src) {
        const double u = SFILUSlotValue(val[b], sc);
        if (SFPCPivotFails(u, zeropivot * s.rowsum[b], positive)) atomicMin(found, R0 + b);
        else SFILUSetSlot(val[b], sc, __ddiv_rn(1.0, u));
      }
      const double pinv = __shfl_sync(full, SFILUSlotValue(val[b], sc), src);
#pragma unroll
      for (int f = b + 1; f < BS; f++) {
        const double l = __dmul_rn(__shfl_sync(full, SFILUSlotValue(val[f], sc), src), pinv);
#pragma unroll
        for (int q = 0; q < COLS; q++)
          if (lane + 32 * q > id && lane + 32 * q < W) val[f][q] = sfpc::SubProduct(val[f][q], l, val[b][q]);
        if (lane == src) SFILUSetSlot(val[f], sc, l);
      }
    }

    /* 5. the rows back to the factor, then published */
#pragma unroll
    for (int f = 0; f < BS; f++)
#pragma unroll
      for (int q = 0; q < COLS; q++)
        if (lane + 32 * q < W) a[E0 + f * W + lane + 32 * q] = val[f][q];
    __syncwarp(); /* every lane's writes before the release stores, which carry them to the rows that acquire the flags */
    if (lane < BS) sfpc::StoreRelease(flags + R0 + lane, epoch);
    __syncwarp(); /* shared memory is reused by the next block */
  }
}

/*
   Whether block B's couplings are dense (a thread each): every row of the block has the first row's length W,
   a multiple of bs, its diagonal at the same point, and columns bs consecutive ones per point starting at a
   multiple of bs; *bad set where a block is not.
*/
__global__ void DenseCheckKernel(int nblocks, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int *bad)
{
  const int B = blockIdx.x * blockDim.x + threadIdx.x;
  if (B >= nblocks) return;
  const int R0 = B * bs, E0 = ai[R0], W = ai[R0 + 1] - E0, D = ad[R0] - E0;
  bool      ok = W % bs == 0 && D % bs == 0;
  for (int f = 0; ok && f < bs; f++) {
    const int r = R0 + f, e = ai[r];
    ok = ai[r + 1] - e == W && ad[r] - e == D + f;
    for (int i = 0; ok && i < W; i++) {
      const int cb = aj[E0 + i / bs * bs];
      ok           = cb % bs == 0 && aj[e + i] == cb + i % bs;
    }
  }
  if (!ok) atomicOr(bad, 1);
}

/* What a dense block needs (a thread each): out[0] the largest block's entries, out[1] its staged values, out[2] one external point's; out[3] set where the map does not hold a point row. */
__global__ void DenseNeedsKernel(int nblocks, int bs, const int *__restrict__ qi, const int *__restrict__ nlstart, const uint4 *__restrict__ nmasks, int *out)
{
  const int B = blockIdx.x * blockDim.x + threadIdx.x;
  if (B >= nblocks) return;
  int stage = 0, one = 0, unheld = qi[B + 1] - qi[B] > 32;
  for (int k = nlstart[B]; k < nlstart[B + 1]; k++) {
    const uint4 m = nmasks[k];
    const int   c = bs * bs * (1 + __popc(m.x));
    if (m.x & 1) unheld = 1;
    stage += c;
    one = max(one, c);
  }
  atomicMax(out, (qi[B + 1] - qi[B]) * bs * bs);
  atomicMax(out + 1, stage);
  atomicMax(out + 2, one);
  if (unheld) atomicOr(out + 3, 1);
}

/* The kernel for blocks of BS rows with the fewest slots a lane that hold the longest row (2-D stencils: one; 2 fields on a 5-point star with four would run 4x the updates) */
template <int BS, int COLS = 1>
void LaunchDense(int blocks, cudaStream_t stream, const SFILUBlocks *K, SFPCTriDevice T, const double *A, int epoch, unsigned long long base, double shift, double zeropivot, int positive)
{
  if constexpr (COLS < DenseCols<BS>()) {
    if (32 * COLS < K->max_entries / BS) {
      LaunchDense<BS, COLS + 1>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive);
      return;
    }
  }
  DenseILU0Kernel<BS, COLS><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>((int)K->nb, K->order, T->i, T->j, T->diag, K->nodes.lstart, (const uint4 *)K->nodes.masks, A, T->a, T->flags, epoch, T->counter, base, shift, zeropivot, positive, T->report);
}
} // namespace

/*
   Sets up K for dense blocks of bs rows, the first choice for point-blocks (SFILUBlocksCreate_Device()): checks
   the couplings are dense, builds the points' pattern and its match map, and the blocks' needs; where one does
   not fit, K->dense_why says so (and the blocks are tried as blocks of short rows).
*/
PetscErrorCode SFILUDenseBlocksCreate_Device(SFPCTriDevice T, PetscInt bs, SFILUBlocks *K)
{
  cudaStream_t stream;
  const int    tpb = 256, nb = (int)T->blocks.nb;
  int         *flag, hflag[4] = {0, 0, 0, 0};
  const SFPCPattern *P = &T->blocks.quotient; /* the engine's points' pattern */

  PetscFunctionBegin;
  PetscCheck(T->blocks.bs == bs && bs > 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "dense blocks without the engine's point-blocks");
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&flag, sizeof(hflag), stream));
  PetscCallCUDA(cudaMemsetAsync(flag, 0, sizeof(hflag), stream));
  DenseCheckKernel<<<nb / tpb + 1, tpb, 0, stream>>>(nb, (int)bs, T->i, T->j, T->diag, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hflag, flag, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* once per pattern */
  if (hflag[0]) {
    K->dense_why = "the couplings of a block are not dense blocks of its size";
    PetscCallCUDA(cudaFreeAsync(flag, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(P->j, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the engine's blocks have no quotient pattern");
  PetscCall(SFILUMatchMapCreatePattern_Device(nb, P->i, P->j, P->diag, T->sms, &K->nodes));
  PetscCallCUDA(cudaMemsetAsync(flag, 0, sizeof(hflag), stream));
  DenseNeedsKernel<<<nb / tpb + 1, tpb, 0, stream>>>(nb, (int)bs, P->i, K->nodes.lstart, (const uint4 *)K->nodes.masks, flag);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hflag, flag, sizeof(hflag), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFreeAsync(flag, stream));
  if (hflag[3]) K->dense_why = "a point coupled to more than 32 points (the points' match map does not hold it)";
  else if (hflag[0] > SFPC_BLOCK_MAX_ENTRIES) K->dense_why = "a block with more than " PetscStringize(SFPC_BLOCK_MAX_ENTRIES) " entries";
  else if (hflag[2] > SFILU_DENSE_MAX_STAGE) K->dense_why = "a point whose U blocks need more than " PetscStringize(SFILU_DENSE_MAX_STAGE) " values staged";
  else if (hflag[1] > SFILU_DENSE_MAX_SEGMENTS * bs) K->dense_why = "a block that stages more than " PetscStringize(SFILU_DENSE_MAX_SEGMENTS) " rows of U blocks";
  if (K->dense_why) {
    PetscCall(SFILUMatchMapDestroy_Device(&K->nodes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  K->dense       = PETSC_TRUE;
  K->max_entries = hflag[0];
  K->max_stage   = hflag[1];
  PetscCall(SFILUBlocksSetSchedule_Device(T, K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Launches the kernel for K's dense blocks (SFILUFactorBlocks_Device(): the tickets, epoch and failure report around it). */
void SFILUDenseBlocksLaunch_Device(SFPCTriDevice T, const SFILUBlocks *K, const double *A, int blocks, cudaStream_t stream, int epoch, unsigned long long base, double shift, double zeropivot, int positive)
{
  switch (K->bs) {
  case 2: LaunchDense<2>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  case 3: LaunchDense<3>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  case 4: LaunchDense<4>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  case 5: LaunchDense<5>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  case 6: LaunchDense<6>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  case 7: LaunchDense<7>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  default: LaunchDense<8>(blocks, stream, K, T, A, epoch, base, shift, zeropivot, positive); break;
  }
}
