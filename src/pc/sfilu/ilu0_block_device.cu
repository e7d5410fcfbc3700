/*
   ILU(0) on the GPU by point-blocks (SFILUBlocks, sfilu.h): a warp factors the bs consecutive rows of a
   block together. A matrix with several fields per grid point (a block size set by its DMDA) couples
   each point's rows to one another, so the generic kernel (ilu0_device.cu), a row a task, waits on one
   L2 round trip per row of the point: the 4-field 2-D driven cavity of PETSc's SNES ex19 has 2044 row
   levels, and each costs a flag's publication, its poll and the U loads, 2-3 us (bench/README.md).
   Here the rows of a block depend on each other only inside the warp: a block waits once for the
   blocks it depends on, loads the U values its rows need from them in one round trip, then eliminates
   in shared memory; the chain is the block graph's levels (511 for that cavity).

   A block task:
   1. Pattern and values of its rows into shared memory, and per L entry the match map's masks
      (SFILUMatchMap): which positions of its row the update changes and which U(c) entries it reads.
   2. Waits for the rows it depends on outside the block (flags, as the generic kernel), then stages,
      for each such L entry, 1/u_cc and the U(c) entries it uses at their offsets from U(c)'s diagonal:
      every load of the block at once.
   3. Eliminates in rounds: in each round every row takes its next L entry if the row it names is
      finished (outside the block: always, by now; inside: when that row finished in an earlier
      round), forms the multiplier and updates its positions; a row whose L entries are done gets
      its pivot tested and inverted. Rows inside a block never wait by polling, so a warp holding rows
      that depend on each other cannot deadlock (DESIGN.md's rule for warps is about polling).
   4. Writes the rows back and publishes them (one release a row).
   Each row takes its L entries in ascending column order (those outside the block first, since the
   block's rows are consecutive) and each entry sees the host's operations in the host's order
   (SFILUFactorNumeric_Host()): the factor is bitwise the host's. Rows are summed for the pivot
   tolerance in the host's order too.
*/
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <cub/device/device_scan.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include "matchmap.cuh"
#include <sfpc/private/pivot.h>

namespace
{
#define BLOCK_ROWS     SFILU_BLOCK_MAX_ROWS
#define BLOCK_ENTRIES  SFILU_BLOCK_MAX_ENTRIES
#define BLOCK_LENTRIES SFILU_BLOCK_MAX_LENTRIES
#define BLOCK_SLOTS    (BLOCK_ENTRIES / 32)   /* entries a lane updates */
#define BLOCK_LSLOTS   (BLOCK_LENTRIES / 32)  /* L entries a lane stages */
#define BLOCK_BATCH    16                     /* staged loads a lane has in flight per L entry; more go in further rounds */

/* A warp's shared memory: the block's values and the staged U values in one array (buf), so that an L entry names its source by one index. */
struct BlockShared {
  double buf[BLOCK_ENTRIES + SFILU_BLOCK_MAX_STAGE]; /* [0, entries): the block's values; then the staged U rows */
  uint4  mask[BLOCK_LENTRIES];                       /* the map's words of each L entry */
  int4   lent[BLOCK_LENTRIES];                       /* per L entry: its position in the block, where 1/u_cc is in buf (U(c) follows), the block row c is (-1: outside), U(c)'s diagonal in the factor */
  int    col[BLOCK_ENTRIES];
  int    rb[BLOCK_ROWS + 1], lb[BLOCK_ROWS + 1], rd[BLOCK_ROWS]; /* per row: first entry, first L entry, diagonal (block positions) */
  int    done[BLOCK_ROWS];
};

/* Position, row and L range of lane's slot-q entry e = lane + 32 q of the block. */
struct EntrySlot {
  int f, p, k, end; /* its row, position in the row, the row's next L entry and the end of its L entries */
};

/* The row f of the block with rb[f] <= e < rb[f + 1] (bs <= 32: a scan of shared memory). */
__device__ __forceinline__ int RowOf(const int *start, int bs, int e)
{
  int f = 0;
  while (f + 1 < bs && start[f + 1] <= e) f++;
  return f;
}

/* Whether L entry k can be applied in this round: the row it names is outside the block (waited for already) or finished. */
__device__ __forceinline__ bool Applicable(const BlockShared &s, int k)
{
  const int g = s.lent[k].z;
  return g < 0 || s.done[g];
}

/*
   The multiplier of L entry k (its value, final once the entries before it are applied, times 1/u_cc)
   and, for a row position p its update changes, the U(c) value: the same shared-memory reads for
   every lane, so that each computes what the row's owner lane stores.
*/
__device__ __forceinline__ double Multiplier(const BlockShared &s, int k)
{
  const int4 le = s.lent[k];
  return __dmul_rn(s.buf[le.x], s.buf[le.y]);
}

__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) BlockILU0Kernel(int bs, int nblocks, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *__restrict__ lstart, const uint4 *__restrict__ masks, const double *__restrict__ A, double *a, int *flags, int epoch, unsigned long long *counter, unsigned long long base, double shift, double zeropivot, int positive, int *found)
{
  __shared__ BlockShared shared[SFPC_WARPS_PER_BLOCK];
  BlockShared          &s    = shared[threadIdx.x / 32];
  const int             lane = threadIdx.x & 31;
  const unsigned        full = 0xffffffffu;

  for (long long w; (w = sfpc::TakeTask(counter, base)) < nblocks;) {
    const int B = order[w], R0 = B * bs;
    const int E0 = ai[R0], L0 = lstart[R0];

    /* 1. the block's rows, values and map words */
    if (lane <= bs) {
      s.rb[lane] = ai[R0 + lane] - E0;
      s.lb[lane] = lstart[R0 + lane] - L0;
    }
    if (lane < bs) {
      s.rd[lane]   = ad[R0 + lane] - E0;
      s.done[lane] = 0;
    }
    __syncwarp();
    const int nb = s.rb[bs], nl = s.lb[bs];
    for (int e = lane; e < nb; e += 32) {
      s.col[e] = aj[E0 + e];
      s.buf[e] = A[E0 + e];
    }
    for (int k = lane; k < nl; k += 32) s.mask[k] = masks[L0 + k];
    __syncwarp();

    /* each row's sum of |a| in the host's order (the pivot tolerance), then the shift; rows with an Inf/NaN entry are reported */
    double rowsum = 0;
    if (lane < bs) {
      for (int e = s.rb[lane]; e < s.rb[lane + 1]; e++) rowsum += fabs(s.buf[e]);
      if (!isfinite(rowsum)) atomicMin(found + 1, R0 + lane);
    }

    /* per L entry: its position, and whether it names a row of the block; the rows outside are polled */
    int      cdep[BLOCK_LSLOTS], cnt[BLOCK_LSLOTS];
    unsigned pending = 0;
#pragma unroll
    for (int h = 0; h < BLOCK_LSLOTS; h++) {
      const int k = lane + 32 * h;
      cdep[h]     = -1;
      cnt[h]      = 0;
      if (k < nl) {
        const int f = RowOf(s.lb, bs, k), pos = s.rb[f] + k - s.lb[f], c = s.col[pos];
        int4      le = make_int4(pos, 0, c >= R0 ? c - R0 : -1, 0);
        if (c < R0) {
          cdep[h] = c;
          le.w    = ad[c];
          cnt[h]  = 32 - __clz(s.mask[k].y | 1u); /* 1/u_cc, then U(c) up to its last entry used */
          if (!sfpc::IsReady(flags, c, epoch)) pending |= 1u << h;
        }
        s.lent[k] = le;
      }
    }
    __syncwarp();
    if (lane < bs) s.buf[s.rd[lane]] += shift; /* after the sums (the host's order) */

    /* staging slots: an exclusive scan of cnt over the L entries in order */
    {
      int carry = 0;
#pragma unroll
      for (int h = 0; h < BLOCK_LSLOTS; h++) {
        int v = cnt[h];
        for (int d = 1; d < 32; d <<= 1) {
          const int u = __shfl_up_sync(full, v, d);
          if (lane >= d) v += u;
        }
        const int k = lane + 32 * h;
        if (k < nl && s.lent[k].z < 0) s.lent[k].y = BLOCK_ENTRIES + carry + v - cnt[h];
        carry += __shfl_sync(full, v, 31);
      }
      /* inside the block: 1/u_gg and U(g) are row g's own entries */
#pragma unroll
      for (int h = 0; h < BLOCK_LSLOTS; h++) {
        const int k = lane + 32 * h;
        if (k < nl && s.lent[k].z >= 0) s.lent[k].y = s.rd[s.lent[k].z];
      }
    }

    /* 2. wait for the rows outside the block, then stage what their U rows give this one */
    while (__any_sync(full, pending)) {
      sfpc::Backoff();
#pragma unroll
      for (int h = 0; h < BLOCK_LSLOTS; h++)
        if ((pending >> h & 1) && sfpc::IsReady(flags, cdep[h], epoch)) pending &= ~(1u << h);
    }
    __syncwarp(); /* after each lane's acquire, the others read the rows it saw finished */
#pragma unroll
    for (int h = 0; h < BLOCK_LSLOTS; h++) {
      const int k = lane + 32 * h;
      if (cdep[h] < 0) continue;
      const int4 le   = s.lent[k];
      unsigned   left = s.mask[k].y | 1u; /* offset 0: 1/u_cc */
      while (left) {
        double v[BLOCK_BATCH];
        int    o[BLOCK_BATCH];
#pragma unroll
        for (int u = 0; u < BLOCK_BATCH; u++) {
          o[u] = left ? __ffs(left) - 1 : -1;
          left &= left - 1;
          v[u] = o[u] >= 0 ? __ldcg(a + le.w + o[u]) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < BLOCK_BATCH; u++)
          if (o[u] >= 0) s.buf[le.y + o[u]] = v[u];
      }
    }
    __syncwarp();

    /* 3. rounds of elimination: lanes update the entries lane + 32 q; lane f < bs owns row f's multipliers and pivot */
    EntrySlot es[BLOCK_SLOTS];
#pragma unroll
    for (int q = 0; q < BLOCK_SLOTS; q++) {
      const int e = lane + 32 * q;
      es[q]       = {0, 0, 0, 0};
      if (e < nb) {
        const int f = RowOf(s.rb, bs, e);
        es[q]       = {f, e - s.rb[f], s.lb[f], s.lb[f + 1]};
      }
    }
    int  kr = lane < bs ? s.lb[lane] : 0, er = lane < bs ? s.lb[lane + 1] : 0;
    bool rowdone = lane >= bs;
    while (!__all_sync(full, rowdone)) {
      const bool apply = !rowdone && kr < er && Applicable(s, kr); /* read before any lane changes done[] below */
#pragma unroll
      for (int q = 0; q < BLOCK_SLOTS; q++) {
        const int e = lane + 32 * q;
        if (e >= nb || es[q].k >= es[q].end || !Applicable(s, es[q].k)) continue;
        const int   k  = es[q].k;
        const uint4 m  = s.mask[k];
        const int   p  = es[q].p;
        es[q].k++;
        if (p < 32 && (m.x >> p & 1)) {
          const int      rank = __popc(m.x & ((1u << p) - 1));
          const unsigned off  = SFILUMatchOffset(m.y, m.z, m.w, rank);
          s.buf[e]            = SFILUUpdate(s.buf[e], Multiplier(s, k), s.buf[s.lent[k].y + off]);
        }
      }
      __syncwarp();
      if (apply) {
        s.buf[s.lent[kr].x] = Multiplier(s, kr); /* its column is below c: no update of this round touched it */
        kr++;
      }
      if (!rowdone && kr == er) { /* every L entry applied: the pivot */
        const int    d = s.rd[lane];
        const double u = s.buf[d];
        if (SFPCPivotFails(u, zeropivot * rowsum, positive)) atomicMin(found, R0 + lane);
        else s.buf[d] = __ddiv_rn(1.0, u);
        s.done[lane] = 1;
        rowdone      = true;
      }
      __syncwarp();
    }

    /* 4. the rows back to the factor, then published */
    for (int e = lane; e < nb; e += 32) a[E0 + e] = s.buf[e];
    __syncwarp(); /* every lane's writes before the release stores, which carry them to the rows that acquire the flags */
    if (lane < bs) sfpc::StoreRelease(flags + R0 + lane, epoch);
    __syncwarp(); /* shared memory is reused by the next block */
  }
}

/*
   What a block needs of the kernel's shared memory, per block (a thread each): out[0..2] the largest
   entries, L entries and staged values; out[3] set when an L entry is not held by the map (a row or a
   U row past 32 entries).
*/
__global__ void BlockNeedsKernel(int nblocks, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ lstart, const uint4 *__restrict__ masks, int *out)
{
  const int B = blockIdx.x * blockDim.x + threadIdx.x;
  if (B >= nblocks) return;
  const int R0 = B * bs, L0 = lstart[R0], L1 = lstart[R0 + bs];
  int       stage = 0, unheld = 0;
  for (int r = R0, k = L0; r < R0 + bs; r++)
    for (int e = ai[r]; k < lstart[r + 1]; e++, k++) {
      const uint4 m = masks[k];
      if (m.x & 1) unheld = 1;
      else if (aj[e] < R0) stage += 32 - __clz(m.y | 1u);
    }
  atomicMax(out, ai[R0 + bs] - ai[R0]);
  atomicMax(out + 1, L1 - L0);
  atomicMax(out + 2, stage);
  if (unheld) atomicOr(out + 3, 1);
}

/*
   The quotient pattern: row B lists, ascending, the distinct blocks its rows have entries in before
   the block, then B (the diagonal). A warp per block; distinct blocks are found by comparing the
   block's entries pairwise (at most SFILU_BLOCK_MAX_ENTRIES: once per pattern). COUNT: qcount[B] =
   its entries; else the row into qj at qi[B], and qd[B] its diagonal.
*/
template <bool COUNT>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) QuotientKernel(int nblocks, int bs, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ qi, int *qcount, int *qj, int *qd)
{
  __shared__ int sq[SFPC_WARPS_PER_BLOCK][BLOCK_ENTRIES], sfirst[SFPC_WARPS_PER_BLOCK][BLOCK_ENTRIES];
  int           *q = sq[threadIdx.x / 32], *first = sfirst[threadIdx.x / 32];
  const int      lane = threadIdx.x & 31;
  for (int B = (blockIdx.x * blockDim.x + threadIdx.x) / 32; B < nblocks; B += gridDim.x * blockDim.x / 32) {
    const int R0 = B * bs, E0 = ai[R0], nb = ai[R0 + bs] - E0;
    for (int e = lane; e < nb; e += 32) {
      const int c = aj[E0 + e];
      q[e]        = c < R0 ? c / bs : -1;
    }
    __syncwarp();
    int d = 0;
    for (int e = lane; e < nb; e += 32) {
      bool f = q[e] >= 0;
      for (int x = 0; f && x < e; x++) f = q[x] != q[e];
      first[e] = f;
      d += f;
    }
    d = __reduce_add_sync(0xffffffffu, d);
    __syncwarp();
    if (COUNT) {
      if (lane == 0) qcount[B] = d + 1;
    } else {
      for (int e = lane; e < nb; e += 32)
        if (first[e]) {
          int rank = 0;
          for (int x = 0; x < nb; x++) rank += first[x] && q[x] < q[e];
          qj[qi[B] + rank] = q[e];
        }
      if (lane == 0) {
        qj[qi[B] + d] = B;
        qd[B]         = qi[B] + d;
      }
    }
    __syncwarp();
  }
}
} // namespace

PetscErrorCode SFILUBlocksDestroy_Device(SFILUBlocks *K)
{
  PetscFunctionBegin;
  if (K->order) PetscCallCUDA(cudaFree(K->order));
  PetscCall(PetscMemzero(K, sizeof(*K)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sets up K for blocks of bs rows of T's pattern (M: its match map), or notes in K->why why the rows go one by one. */
PetscErrorCode SFILUBlocksCreate_Device(SFPCTriDevice T, const SFILUMatchMap *M, PetscInt bs, SFILUBlocks *K)
{
  cudaStream_t stream;
  const int    n = (int)T->n, tpb = 256;
  int          nb, *need, hneed[4] = {0, 0, 0, 0}, *qi, *qd, *qj, qnnz;

  PetscFunctionBegin;
  PetscCall(SFILUBlocksDestroy_Device(K));
  K->tried = PETSC_TRUE;
  if (bs < 2) PetscFunctionReturn(PETSC_SUCCESS);
  if (bs > SFILU_BLOCK_MAX_ROWS) {
    K->why = "the block size is above " PetscStringize(SFILU_BLOCK_MAX_ROWS);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (n % bs) {
    K->why = "the rows are not a multiple of the block size";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!M->lstart) {
    K->why = "no match map (-pc_sfilu_factor_match search or broadcast)";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  nb = n / (int)bs;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&need, sizeof(hneed), stream));
  PetscCallCUDA(cudaMemsetAsync(need, 0, sizeof(hneed), stream));
  if (nb) BlockNeedsKernel<<<(nb + tpb - 1) / tpb, tpb, 0, stream>>>(nb, (int)bs, T->i, T->j, M->lstart, (const uint4 *)M->masks, need);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hneed, need, sizeof(hneed), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* once per pattern */
  PetscCallCUDA(cudaFreeAsync(need, stream));
  K->max_entries  = hneed[0];
  K->max_lentries = hneed[1];
  K->max_stage    = hneed[2];
  if (hneed[3]) K->why = "a row or a U row of more than 32 entries (the match map does not hold it)";
  else if (hneed[0] > SFILU_BLOCK_MAX_ENTRIES) K->why = "a block with more than " PetscStringize(SFILU_BLOCK_MAX_ENTRIES) " entries";
  else if (hneed[1] > SFILU_BLOCK_MAX_LENTRIES) K->why = "a block with more than " PetscStringize(SFILU_BLOCK_MAX_LENTRIES) " L entries";
  else if (hneed[2] > SFILU_BLOCK_MAX_STAGE) K->why = "a block that needs more than " PetscStringize(SFILU_BLOCK_MAX_STAGE) " U values staged";
  if (K->why) PetscFunctionReturn(PETSC_SUCCESS);

  /* the quotient pattern, then its levels and dispatch order by the engine's analysis */
  PetscCallCUDA(cudaMallocAsync(&qi, sizeof(int) * (nb + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&qd, sizeof(int) * PetscMax(nb, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(qi, 0, sizeof(int) * (nb + 1), stream));
  {
    const int grid = PetscMin(nb / SFPC_WARPS_PER_BLOCK + 1, 64 * T->sms);
    if (nb) QuotientKernel<true><<<grid, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(nb, (int)bs, T->i, T->j, NULL, qi, NULL, NULL);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, qi, qi, nb + 1, stream); }));
    PetscCallCUDA(cudaMemcpyAsync(&qnnz, qi + nb, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCallCUDA(cudaMallocAsync(&qj, sizeof(int) * PetscMax(qnnz, 1), stream));
    if (nb) QuotientKernel<false><<<grid, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(nb, (int)bs, T->i, T->j, qi, NULL, qj, qd);
    PetscCallCUDA(cudaGetLastError());
  }
  {
    struct _n_SFPCTriDevice Q = *T; /* T's device, counter and tickets; the quotient's pattern */
    SFPCSchedule            S;

    PetscCall(PetscMemzero(&S, sizeof(S)));
    Q.n                = nb;
    Q.nnz              = qnnz;
    Q.i                = qi;
    Q.j                = qj;
    Q.diag             = qd;
    Q.opt.lower        = PETSC_TRUE;
    Q.opt.upper        = PETSC_FALSE;
    Q.opt.window_major = 0;
    PetscCall(SFPCScheduleBuild(&Q, PETSC_TRUE, SFPC_LEVELS_ASAP, &S));
    T->ticketbase = Q.ticketbase;
    K->order      = S.order;
    K->nlevels    = S.nlevels;
    PetscCallCUDA(cudaFreeAsync(S.start, stream));
    PetscCallCUDA(cudaFreeAsync(S.vec, stream));
  }
  PetscCallCUDA(cudaFreeAsync(qi, stream));
  PetscCallCUDA(cudaFreeAsync(qd, stream));
  PetscCallCUDA(cudaFreeAsync(qj, stream));
  K->bs = bs;
  K->nb = nb;
  PetscCall(PetscInfo(NULL, "ILU(0) by blocks of %" PetscInt_FMT " rows: %d blocks, %" PetscInt_FMT " levels (L: %d)\n", bs, nb, K->nlevels, T->lower.nlevels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0) of A + shift I by the blocks of K (SFILUBlocksCreate_Device() found they fit); A's values on the device, in the factor's pattern. */
PetscErrorCode SFILUFactorBlocks_Device(SFPCTriDevice T, const SFILUMatchMap *M, const SFILUBlocks *K, const PetscScalar *A, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  cudaStream_t       stream;
  int                blocks, epoch;
  unsigned long long base;

  PetscFunctionBegin;
  PetscCheck(K->bs > 1 && K->order, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ILU(0) by blocks without a block schedule");
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SFPCTriDeviceTakeTickets(T, K->nb, T->lower.factor_resident, &blocks, &base));
  PetscCall(SFPCTriDeviceNextEpoch(T, &epoch));
  PetscCall(PetscLogGpuTimeBegin());
  BlockILU0Kernel<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>((int)K->bs, (int)K->nb, K->order, T->i, T->j, T->diag, M->lstart, (const uint4 *)M->masks, A, T->a, T->flags, epoch, T->counter, base, (double)shift, (double)zeropivot, (int)positive, T->report);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
