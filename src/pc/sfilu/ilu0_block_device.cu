/*
   ILU(0) on the GPU by point-blocks (SFILUBlocks, sfilu.h): a warp factors the bs consecutive rows of a
   block together. A matrix with several fields per grid point (a block size set by its DMDA) couples
   each point's rows to one another, so the generic kernel (ilu0_device.cu), a row a task, waits on one
   L2 round trip per row of the point: the 4-field 2-D driven cavity of PETSc's SNES ex19 has 2044 row
   levels, and each costs a flag's publication, its poll and the U loads, 2-3 us (bench/README.md).
   Here the rows of a block depend on each other only inside the warp: a block waits once for the
   blocks it depends on, loads the U values its rows need from them in one round trip, then eliminates
   in shared memory; the chain is the block graph's levels (511 for that cavity), in the order of the
   engine's point-blocks (blocksweep.cu), whose sweeps go by the same blocks.

   A block task, row f of the block on a vector of S lanes (its entries in registers, lane t positions t + q S):
   1. The rows' values, and per L entry the match map's words (SFILUMatchMap): which positions of its
      row the update changes and, by rank, which U(c) entries it reads.
   2. Waits for the rows it depends on outside the block (flags, as the generic kernel), then stages in
      shared memory, for each such L entry, 1/u_cc and the U(c) values it uses: every load at once.
   3. The L entries outside the block (a row's first ones, columns ascending), every row its own in
      step with the others: multiplier by shuffle, updates from the stage read a step ahead.
   4. The L entries inside the block, in rounds: a row applies its next one where the row it names
      finished in an earlier round; a row whose entries are all applied tests and inverts its pivot
      and leaves its values in shared memory for the rows after it. Rows inside a block never wait by
      polling, so a warp holding rows that depend on each other cannot deadlock (DESIGN.md's rule for
      warps is about polling).
   5. Writes the rows back and publishes them (one release a row).
   Each row takes its L entries in ascending column order (those outside the block first, since the
   block's rows are consecutive) and each entry sees the host's operations in the host's order
   (SFILUFactorNumeric_Host()): the factor is bitwise the host's. Rows are summed for the pivot
   tolerance in the host's order too.
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
#define BLOCK_ENTRIES  SFILU_BLOCK_MAX_ENTRIES
#define BLOCK_LENTRIES SFILU_BLOCK_MAX_LENTRIES
#define BLOCK_STAGE    SFILU_BLOCK_MAX_STAGE
#define BLOCK_LSLOTS   (BLOCK_LENTRIES / 32) /* L entries a lane sets up */

/* A warp's shared memory. */
struct BlockShared {
  double buf[BLOCK_ENTRIES + BLOCK_STAGE]; /* [0, entries): the block's values (finished rows, for the rows after them); then the staged values */
  uint4  mask[BLOCK_LENTRIES];             /* the map's words of each L entry */
  int2   lent[BLOCK_LENTRIES];             /* per L entry: where 1/u_cc is in buf, and the block's row c is (-1: outside the block) */
  int    rb[SFILU_BLOCK_MAX_ROWS + 1], lb[SFILU_BLOCK_MAX_ROWS + 1]; /* per row: its first entry and first L entry in the block */
  int    ne[SFILU_BLOCK_MAX_ROWS];   /* per row: its L entries outside the block (they come first: columns ascend) */
  int    done[SFILU_BLOCK_MAX_ROWS];
};

/*
   One L entry outside the block of every row at once: 1/u_cc and the U(c) values the vector's slots use, read from
   the stage a step ahead of their use (the stage is complete before the first step, so the reads wait on nothing).
*/
template <int S>
struct ExternalStep {
  double   piv, u[32 / S];
  unsigned bits; /* slots this entry updates */

  __device__ __forceinline__ void Load(const BlockShared &s, bool active, int k, int t)
  {
    const unsigned m = active ? s.mask[k].x : 0u;
    const int      x = active ? s.lent[k].x : 0;
    piv              = s.buf[x];
    bits             = 0;
#pragma unroll
    for (int q = 0; q < 32 / S; q++) {
      const int p = t + q * S;
      u[q]        = 0;
      if (m >> p & 1) {
        bits |= 1u << q;
        u[q] = s.buf[x + 1 + __popc(m & ((1u << p) - 1))]; /* staged by rank */
      }
    }
  }
};

/*
   A block of bs <= 32 / S rows: row f to the vector of lanes [f S, f S + S), lane t holding its positions
   t + q S in registers (SLOTS = 32 / S: a row the map holds has at most 32 entries).
*/
template <int S>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) BlockILU0Kernel(int bs, int nblocks, const int *__restrict__ order, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *__restrict__ lstart, const uint4 *__restrict__ masks, const double *__restrict__ A, double *a, int *flags, int epoch, unsigned long long *counter, unsigned long long base, double shift, double zeropivot, int positive, int *found)
{
  constexpr int         SLOTS = 32 / S;
  __shared__ BlockShared shared[SFPC_WARPS_PER_BLOCK];
  BlockShared          &s    = shared[threadIdx.x / 32];
  const int             lane = threadIdx.x & 31, f = lane / S, t = lane & (S - 1), v0 = lane & ~(S - 1);
  const unsigned        full = 0xffffffffu;

  for (long long w; (w = sfpc::TakeTask(counter, base)) < nblocks;) {
    const int B = order[w], R0 = B * bs;
    const int E0 = ai[R0], L0 = lstart[R0];

    /* 1. the block's values into shared memory (for the row sums), then each row into its vector's registers; the map's words */
    if (lane <= bs) {
      s.rb[lane] = ai[R0 + lane] - E0;
      s.lb[lane] = lstart[R0 + lane] - L0;
    }
    if (lane < bs) s.done[lane] = 0;
    __syncwarp();
    if (lane < bs) s.ne[lane] = s.lb[lane + 1] - s.lb[lane];
    const int nb = s.rb[bs], nl = s.lb[bs];
    for (int e = lane; e < nb; e += 32) s.buf[e] = A[E0 + e];
    for (int k = lane; k < nl; k += 32) s.mask[k] = masks[L0 + k];
    const bool mine = f < bs; /* this lane's vector has a row */
    const int  rbf = mine ? s.rb[f] : 0, len = mine ? s.rb[f + 1] - rbf : 0, lbf = mine ? s.lb[f] : 0, nlf = mine ? s.lb[f + 1] - lbf : 0;
    __syncwarp();
    double val[SLOTS], rowsum = 0;
#pragma unroll
    for (int q = 0; q < SLOTS; q++) val[q] = t + q * S < len ? s.buf[rbf + t + q * S] : 0.0;
    if (mine && t == 0) { /* the sum of |a| in the host's order (the pivot tolerance); a row with an Inf/NaN entry is reported */
      for (int e = rbf; e < rbf + len; e++) rowsum += fabs(s.buf[e]);
      if (!isfinite(rowsum)) atomicMin(found + 1, R0 + f);
    }
    rowsum = __shfl_sync(full, rowsum, v0);
    if (mine && t == (nlf & (S - 1))) SFILUSetSlot(val, nlf / S, SFILUSlotValue(val, nlf / S) + shift); /* the diagonal follows the L entries */

    /* per L entry: outside the block, its staging slots (1/u_cc, then the U(c) values it uses by rank), each holding its value's
       address until the value replaces it; inside, row g's diagonal (its U part follows it) */
    int      cdep[BLOCK_LSLOTS], cnt[BLOCK_LSLOTS], nstage = 0;
    unsigned pending = 0;
#pragma unroll
    for (int h = 0; h < BLOCK_LSLOTS; h++) {
      const int k = lane + 32 * h;
      cdep[h] = -1;
      cnt[h]  = 0;
      if (k < nl) {
        int g = 0;
        while (g + 1 < bs && s.lb[g + 1] <= k) g++; /* the row of L entry k */
        const int c = aj[E0 + s.rb[g] + k - s.lb[g]];
        if (c < R0) {
          cdep[h] = c;
          cnt[h]  = 1 + __popc(s.mask[k].x);
          if (!sfpc::IsReady(flags, c, epoch)) pending |= 1u << h;
        } else {
          s.lent[k] = make_int2(s.rb[c - R0] + s.lb[c - R0 + 1] - s.lb[c - R0], c - R0);
          atomicMin(&s.ne[g], k - s.lb[g]);
        }
      }
    }
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
#pragma unroll
    for (int h = 0; h < BLOCK_LSLOTS; h++) {
      const int v = cg::inclusive_scan(warp, cnt[h]);
      const int k = lane + 32 * h, slot = BLOCK_ENTRIES + nstage + v - cnt[h];
      nstage += warp.shfl(v, 31);
      if (cdep[h] >= 0) {
        const uint4 m  = s.mask[k];
        const int   cd = ad[cdep[h]];
        s.lent[k]      = make_int2(slot, -1);
        for (int r = 0; r < cnt[h]; r++) *(int *)&s.buf[slot + r] = r ? cd + (int)SFILUMatchOffset(m.y, m.z, m.w, r - 1) : cd;
      }
    }

    /* 2. wait for the rows outside the block, then stage what this block uses of them: every load at once */
    while (__any_sync(full, pending)) {
      sfpc::Backoff();
#pragma unroll
      for (int h = 0; h < BLOCK_LSLOTS; h++)
        if ((pending >> h & 1) && sfpc::IsReady(flags, cdep[h], epoch)) pending &= ~(1u << h);
    }
    __syncwarp(); /* after each lane's acquire, the others read the rows it saw finished; and the addresses are in place */
    {
      double v[BLOCK_STAGE / 32];
#pragma unroll
      for (int i = 0; i < BLOCK_STAGE / 32; i++) {
        const int j = lane + 32 * i;
        v[i]        = j < nstage ? __ldcg(a + *(const int *)&s.buf[BLOCK_ENTRIES + j]) : 0.0;
      }
#pragma unroll
      for (int i = 0; i < BLOCK_STAGE / 32; i++) {
        const int j = lane + 32 * i;
        if (j < nstage) s.buf[BLOCK_ENTRIES + j] = v[i];
      }
    }
    __syncwarp();

    /* 3. the L entries outside the block: every row its own, all rows in step, the next step's values read ahead */
    const int nef = mine ? s.ne[f] : 0, nemax = __reduce_max_sync(full, nef);
    int       j   = 0;
    {
      ExternalStep<S> cur, next;
      cur.Load(s, 0 < nef, lbf, t);
      for (; j < nemax; j++) {
        if (j + 1 < nemax) next.Load(s, j + 1 < nef, lbf + j + 1, t);
        const double l = __dmul_rn(__shfl_sync(full, SFILUSlotValue(val, j / S), v0 + (j & (S - 1))), cur.piv); /* a_rk / u_cc: entry j is final */
#pragma unroll
        for (int q = 0; q < SLOTS; q++)
          if (cur.bits >> q & 1) val[q] = sfpc::SubProduct(val[q], l, cur.u[q]);
        if (j < nef && t == (j & (S - 1))) SFILUSetSlot(val, j / S, l); /* its column is below c: no update above touched it */
        cur = next;
      }
    }
    j = nef;
    __syncwarp(); /* every lane's reads of shared memory above before the rows finishing below write theirs */

    /*
       4. rounds over the L entries inside the block: each vector applies its row's next one where that row finished in
       an earlier round, all vectors in one control flow; a row whose L entries are all applied tests and inverts its
       pivot and leaves its values in shared memory for the rows after it.
    */
    bool rowdone = !mine;
    while (!__all_sync(full, rowdone)) {
      const bool   has = !rowdone && j < nlf;
      const int    k   = lbf + j;
      const int2   le  = has ? s.lent[k] : make_int2(0, 0);
      const bool   act = has && s.done[le.y];
      const uint4  m   = act ? s.mask[k] : make_uint4(0, 0, 0, 0);
      const double piv = act ? s.buf[le.x] : 0.0; /* only a finished row's: a row finishing in this round writes its values below */
      const double l   = __dmul_rn(__shfl_sync(full, SFILUSlotValue(val, j / S), v0 + (j & (S - 1))), piv); /* a_rk / u_cc: entry j is final */
      if (act) {
#pragma unroll
        for (int q = 0; q < SLOTS; q++) {
          const int p = t + q * S;
          if (m.x >> p & 1) {
            const int rank = __popc(m.x & ((1u << p) - 1));
            val[q]         = sfpc::SubProduct(val[q], l, s.buf[le.x + (int)SFILUMatchOffset(m.y, m.z, m.w, rank)]);
          }
        }
        if (t == (j & (S - 1))) SFILUSetSlot(val, j / S, l); /* its column is below c: no update above touched it */
        j++;
      }
      const bool fin = !rowdone && j == nlf;
      if (fin) {
        if (t == (nlf & (S - 1))) {
          const double u = SFILUSlotValue(val, nlf / S);
          if (SFPCPivotFails(u, zeropivot * rowsum, positive)) atomicMin(found, R0 + f);
          else SFILUSetSlot(val, nlf / S, __ddiv_rn(1.0, u));
        }
#pragma unroll
        for (int q = 0; q < SLOTS; q++)
          if (t + q * S < len) s.buf[rbf + t + q * S] = val[q];
      }
      if (__any_sync(full, fin)) {
        __syncwarp();
        if (fin && t == 0) s.done[f] = 1;
        rowdone = rowdone || fin;
        __syncwarp();
      }
    }

    /* 5. the rows back to the factor, then published */
#pragma unroll
    for (int q = 0; q < SLOTS; q++)
      if (t + q * S < len) a[E0 + rbf + t + q * S] = val[q];
    __syncwarp(); /* every lane's writes before the release stores, which carry them to the rows that acquire the flags */
    if (mine && t == 0) sfpc::StoreRelease(flags + R0 + f, epoch);
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
  for (int r = R0, k = L0; r < R0 + bs; r++) {
    if (ai[r + 1] - ai[r] > 32) unheld = 1; /* a row with no L entries can be longer than the map holds */
    for (int e = ai[r]; k < lstart[r + 1]; e++, k++) {
      const uint4 m = masks[k];
      if (m.x & 1) unheld = 1;
      else if (aj[e] < R0) stage += 1 + __popc(m.x);
    }
  }
  atomicMax(out, ai[R0 + bs] - ai[R0]);
  atomicMax(out + 1, L1 - L0);
  atomicMax(out + 2, stage);
  if (unheld) atomicOr(out + 3, 1);
}

} // namespace

PetscErrorCode SFILUBlocksDestroy_Device(SFILUBlocks *K)
{
  PetscFunctionBegin;
  PetscCall(SFILUMatchMapDestroy_Device(&K->nodes));
  PetscCall(PetscMemzero(K, sizeof(*K))); /* the order is the engine's */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Sets up K for blocks of bs rows of T's pattern (M: its match map), or notes in K->why why the rows go one by one.
   The blocks' dispatch order is the engine's (SFPCTriDeviceSetBlocks(), called before with bs): the levels of the
   quotient pattern's lower part, which order the factorization as they order the L sweep.
*/
PetscErrorCode SFILUBlocksCreate_Device(SFPCTriDevice T, SFILUMatchMap *M, PetscInt bs, SFILUBlocks *K)
{
  cudaStream_t stream;
  const int    tpb = 256;
  int          nb, *need, hneed[4] = {0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(SFILUBlocksDestroy_Device(K));
  K->tried     = PETSC_TRUE;
  K->tried_map = (PetscBool)(M != NULL);
  K->epoch     = T->blocks_epoch;
  if (bs < 2) PetscFunctionReturn(PETSC_SUCCESS);
  if (T->blocks.bs != bs) {
    K->why = T->blocks.why ? T->blocks.why : "the engine has no point-blocks of this size";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!M) {
    K->why = "no match map (-pc_sfilu_factor_match search or broadcast)";
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  nb = (int)T->blocks.nb;
  PetscCall(SFILUDenseBlocksCreate_Device(T, bs, K)); /* dense blocks where they are (faster: bench/README.md), else blocks of short rows */
  if (K->dense) PetscFunctionReturn(PETSC_SUCCESS);
  if (!M->lstart) PetscCall(SFILUMatchMapCreate_Device(T, M));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync(&need, sizeof(hneed), stream));
  PetscCallCUDA(cudaMemsetAsync(need, 0, sizeof(hneed), stream));
  if (nb) BlockNeedsKernel<<<sfpc::LaunchBlocks(nb, tpb), tpb, 0, stream>>>(nb, (int)bs, T->i, T->j, M->lstart, (const uint4 *)M->masks, need);
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
  PetscCall(SFILUBlocksSetSchedule_Device(T, K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* K's blocks fit its kernel (dense or not): they take the engine's point-blocks and their dispatch order. */
PetscErrorCode SFILUBlocksSetSchedule_Device(SFPCTriDevice T, SFILUBlocks *K)
{
  PetscFunctionBegin;
  K->why     = NULL;
  K->order   = T->blocks.lower.order;
  K->nlevels = T->blocks.lower.nlevels;
  K->bs      = T->blocks.bs;
  K->nb      = T->blocks.nb;
  PetscCall(PetscInfo(NULL, "ILU(0) by %sblocks of %" PetscInt_FMT " rows: %" PetscInt_FMT " blocks, %" PetscInt_FMT " levels (L: %d)\n", K->dense ? "dense " : "", K->bs, K->nb, K->nlevels, T->lower.nlevels));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0) of A + shift I by the blocks of K (SFILUBlocksCreate_Device() found they fit; M, the rows' match map, unless they are dense); A's values on the device, in the factor's pattern. */
PetscErrorCode SFILUFactorBlocks_Device(SFPCTriDevice T, const SFILUMatchMap *M, const SFILUBlocks *K, const PetscScalar *A, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUResult *res)
{
  cudaStream_t       stream;
  int                blocks, epoch;
  unsigned long long base;

  PetscFunctionBegin;
  PetscCheck(K->bs > 1 && K->order && (K->dense || M), PETSC_COMM_SELF, PETSC_ERR_PLIB, "ILU(0) by blocks without a block schedule");
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SFPCTriDeviceTakeTickets(T, K->nb, T->lower.factor_resident, &blocks, &base));
  PetscCall(SFPCTriDeviceNextEpoch(T, &epoch));
  PetscCall(PetscLogGpuTimeBegin());
  if (K->dense) SFILUDenseBlocksLaunch_Device(T, K, A, blocks, stream, epoch, base, (double)shift, (double)zeropivot, (int)positive);
  else (SFPC_BLOCK_LANES(K->bs) == 16 ? BlockILU0Kernel<16> : SFPC_BLOCK_LANES(K->bs) == 8 ? BlockILU0Kernel<8> : BlockILU0Kernel<4>)<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>((int)K->bs, (int)K->nb, K->order, T->i, T->j, T->diag, M->lstart, (const uint4 *)M->masks, A, T->a, T->flags, epoch, T->counter, base, (double)shift, (double)zeropivot, (int)positive, T->report);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
