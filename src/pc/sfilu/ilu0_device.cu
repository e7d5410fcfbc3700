/*
   Numeric ILU(0) on the GPU, sync-free, in place in the engine's factor values.

   Rows run in the order of the L schedule (same analysis as the L solve): a vector of lanes per
   row walks its L entries left to right; for each one it waits until the row it names is
   finished, forms the multiplier, and subtracts the multiple of that row's U part from the
   entries of its own row that share a column. Rows of up to SFPC_ILU0_ROW_SLOTS entries per lane
   do this in registers, longer rows and one-lane rows in memory (RowInMemory). In registers, the
   entries of U(c) a row uses come from the match map (SFILUMatchMap, MaskMatch) where it holds the
   row, and the rows of a warp the map holds run in one control flow (WarpInRegisters); other rows
   search U(c) loaded whole (ChunkMatch, RowInRegisters).
   The vector size comes from the row's length class, as the thesis's ILU_adapt chooses it from
   row lengths (shared/seeds/001, chapter 5).
*/
#include <sfpc/private/sfdevice.cuh>
#include <sfpc/private/sfcub.cuh>
#include <cub/device/device_scan.cuh>
#include <petscdevice_cuda.h>
#include "sfilu.h"
#include <sfpc/private/pivot.h>
#include "matchmap.cuh"

namespace
{
/*
   Rows of at most SFPC_ILU0_ROW_SLOTS entries per lane are factored in registers: each lane holds
   its entries of the row (columns and values); per dependency c the lanes load what they need of
   U(c), one round trip to L2 (and the loads of the next dependency, when it is finished already,
   overlap the updates of this one) against four or more for the walk in memory (a search of the
   row per U(c) entry, then the value); the row is written once, when it is finished. 0: every row
   walks in memory.
*/
#ifndef SFPC_ILU0_ROW_SLOTS
  #define SFPC_ILU0_ROW_SLOTS 4
#endif
/*
   Rows without a match map (-pc_sfilu_factor_match search or broadcast, or rows the map cannot hold)
   load U(c) one entry per lane, and each lane finds its columns there by a binary search over the
   vector's lanes, log2(s) dependent shuffles per slot, or U(c) is broadcast entry by entry, |U(c)|
   independent ones. On an H100 (bench/README.md) the search took 27-point 128^3 from 15.2 to 14.0 ms
   and 256^3 from 71.5 to 58.8 (wide levels: bound by instructions), the broadcast the driven cavity
   from 15.6 to 13.5 ms and 7-point 128^3 from 5.17 to 4.94 (narrow levels: bound by the chain's
   latency). Auto searches from this many tasks per level and SM (27-point 128^3: 8.9, 7-point: 5.2,
   cavity 0.5).
*/
#ifndef SFPC_ILU0_SEARCH_TASKS
  #define SFPC_ILU0_SEARCH_TASKS 8
#endif

/* What a row needs to know of one dependency c: its diagonal position, the end of its U part, and its masks in the match map. */
struct Dependency {
  int      c, cd, ce;
  unsigned rowmask, umask, lo, hi;
};

/* Whether a row of nl L entries and len entries, given to a vector of s lanes, is factored in registers (see SFPC_ILU0_ROW_SLOTS). */
__device__ __forceinline__ bool InRegisters(int s, int nl, int len)
{
  return SFPC_ILU0_ROW_SLOTS > 0 && s > 1 && nl <= s && len <= SFPC_ILU0_ROW_SLOTS * s;
}

/* Lanes of the vector whose dependency (lanes t < nl hold c = row's entry t) is published; probes all at once. */
__device__ __forceinline__ unsigned ProbeDependencies(const int *flags, int epoch, const Dependency &d, bool mine, unsigned vmask)
{
  const unsigned seen = __ballot_sync(vmask, mine && sfpc::IsReady(flags, d.c, epoch));
  __syncwarp(vmask); /* after each lane's acquire, the others read the rows it saw finished */
  return seen;
}

/* Lane t's entry of the first s entries of U(c) from m0 (the first is the diagonal, 1/u_cc). */
__device__ __forceinline__ void LoadUChunk(const int *__restrict__ aj, const double *a, int m0, int ce, int t, int &col, double &val)
{
  const int m = m0 + t;
  col         = m < ce ? aj[m] : INT_MAX - 1; /* past the end: above every column, and matches none of the row's (INT_MAX past its end) */
  val         = m < ce ? __ldcg(a + m) : 0.0;
}

/* Row position p (lane t's slot q: p = t + q s) is one the update by a dependency with this row mask changes. */
__device__ __forceinline__ bool Masked(unsigned rowmask, int p)
{
  return p < 32 && (rowmask >> p & 1);
}

/*
   U(c) matched by the masks of SFILUMatchMap: a lane loads 1/u_cc and the U(c) entries its slots
   are updated with, found by rank (the k-th set bit of one mask pairs with the k-th of the other):
   only the values the row uses, and no columns (offsets by SFILUMatchOffset()).
*/
template <int SLOTS>
struct MaskMatch {
  unsigned rowmask;
  double   pivot, u[SLOTS];

  __device__ __forceinline__ void Load(const double *a, const Dependency &d, int j, int t, int s, int v0, unsigned vmask)
  {
    const int      cd    = __shfl_sync(vmask, d.cd, v0 + j);
    const unsigned umask = __shfl_sync(vmask, d.umask, v0 + j);
    const unsigned lo    = __shfl_sync(vmask, d.lo, v0 + j);
    const unsigned hi    = __shfl_sync(vmask, d.hi, v0 + j);
    rowmask              = __shfl_sync(vmask, d.rowmask, v0 + j);
    pivot                = __ldcg(a + cd);
#pragma unroll
    for (int q = 0; q < SLOTS; q++) {
      const int p = t + q * s;
      u[q]        = 0.0;
      if (Masked(rowmask, p)) {
        const int k = __popc(rowmask & ((1u << p) - 1)); /* the position's rank among those U(c) updates */
        u[q]        = __ldcg(a + cd + SFILUMatchOffset(umask, lo, hi, k));
      }
    }
  }
  __device__ __forceinline__ void Apply(double l, int t, int s, double (&val)[SLOTS]) const
  {
#pragma unroll
    for (int q = 0; q < SLOTS; q++)
      if (Masked(rowmask, t + q * s)) val[q] = sfpc::SubProduct(val[q], l, u[q]);
  }
};

/* U(c) loaded s entries at a time, one per lane, matched by columns: a binary search over the lanes (SEARCH) or a broadcast. */
template <int SLOTS, bool SEARCH>
struct ChunkMatch {
  int    cd, ce, uc;
  double uv;

  __device__ __forceinline__ void Load(const int *__restrict__ aj, const double *a, const Dependency &d, int j, int t, int, int v0, unsigned vmask)
  {
    cd = __shfl_sync(vmask, d.cd, v0 + j);
    ce = __shfl_sync(vmask, d.ce, v0 + j);
    LoadUChunk(aj, a, cd, ce, t, uc, uv);
  }
  __device__ __forceinline__ double Pivot(int v0, unsigned vmask) const { return __shfl_sync(vmask, uv, v0); }
  __device__ __forceinline__ void   Apply(const int *__restrict__ aj, const double *a, double l, int t, int s, int v0, unsigned vmask, int len, const int (&col)[SLOTS], double (&val)[SLOTS])
  {
    for (int m0 = cd;;) {
      const int key = m0 == cd && t == 0 ? -1 : uc; /* the diagonal matches nothing; still sorted */
      if (SEARCH) {
#pragma unroll
        for (int q = 0; q < SLOTS; q++) {
          if (q * s >= len) break; /* the vector's slots past the row */
          int p = 0;               /* lower bound of col[q] among the s sorted keys */
          for (int step = s >> 1; step > 0; step >>= 1)
            if (__shfl_sync(vmask, key, v0 + p + step - 1) < col[q]) p += step;
          const int    kp = __shfl_sync(vmask, key, v0 + p);
          const double u  = __shfl_sync(vmask, uv, v0 + p);
          if (kp == col[q]) val[q] = sfpc::SubProduct(val[q], l, u);
        }
      } else {
        for (int e = 0; e < min(s, ce - m0); e++) {
          const int    ucol = __shfl_sync(vmask, key, v0 + e);
          const double u    = __shfl_sync(vmask, uv, v0 + e);
#pragma unroll
          for (int q = 0; q < SLOTS; q++) {
            if (q * s >= len) break;
            if (col[q] == ucol) val[q] = sfpc::SubProduct(val[q], l, u);
          }
        }
      }
      m0 += s;
      if (m0 >= ce) break;
      LoadUChunk(aj, a, m0, ce, t, uc, uv); /* rows of U(c) longer than the vector */
    }
  }
};

/*
   One row of ILU(0) in registers (see SFPC_ILU0_ROW_SLOTS): col[q], val[q] are the row's entries
   rb + t + q s (col INT_MAX past the end); lane t < nl holds dependency t (the row's entry t) in dep.
   Dependencies are taken in the host's order (k ascending) and each entry sees the host's
   operations in the host's order, so the factor is bitwise the host's.
*/
template <int SLOTS, bool SEARCH>
__device__ __forceinline__ void RowInRegisters(const int *__restrict__ aj, double *a, const int *flags, int epoch, int s, int t, unsigned vmask, int nl, int len, const Dependency &dep, const int (&col)[SLOTS], double (&val)[SLOTS])
{
  const int  v0   = (threadIdx.x & 31) & ~(s - 1);
  const bool mine = t < nl; /* nl <= s */
  unsigned   seen = ProbeDependencies(flags, epoch, dep, mine, vmask);
  ChunkMatch<SLOTS, SEARCH> cur, next;
  for (int j = 0; j < nl; j++) {
    if (j == 0 || !(seen >> (v0 + j) & 1)) { /* not loaded ahead: wait for it, then see which of the rest have finished meanwhile */
      if (!(seen >> (v0 + j) & 1)) {
        sfpc::WaitReady(flags, __shfl_sync(vmask, dep.c, v0 + j), epoch);
        seen |= ProbeDependencies(flags, epoch, dep, mine && t > j, vmask);
      }
      cur.Load(aj, a, dep, j, t, s, v0, vmask);
    }
    const bool ahead = j + 1 < nl && (seen >> (v0 + j + 1) & 1);
    if (ahead) next.Load(aj, a, dep, j + 1, t, s, v0, vmask); /* the next dependency is final: its loads overlap this one's updates */
    const double l = __dmul_rn(__shfl_sync(vmask, val[0], v0 + j), cur.Pivot(v0, vmask)); /* a_rk / u_cc */
    cur.Apply(aj, a, l, t, s, v0, vmask, len, col, val);
    if (t == j) val[0] = l; /* the entry's column is below c: no update above touched it */
    if (ahead) cur = next;
  }
}

/*
   The rows of a warp that the map holds, in registers, all at once: every lane runs the same
   control flow, so the vectors wait for their dependencies and load their values together. Each
   vector on its own path (as RowInRegisters goes) leaves the warp's paths divergent, and divergent
   paths issue one after another, so the vectors' round trips to L2 add up instead of overlapping:
   with 8 rows a warp (7-point), this took the refactorization from 2.60 to 2.02 ms at 128^3
   (bench/README.md). A vector waits for dependency j until the slowest row of its warp has it,
   which costs little where a warp's rows share a level. active: the lane's vector has such a row;
   nl: its L entries. Lanes of other vectors follow along and load nothing.
*/
template <int SLOTS>
__device__ __forceinline__ void WarpInRegisters(const double *a, const int *flags, int epoch, int s, int t, bool active, int nl, const Dependency &dep, double (&val)[SLOTS])
{
  const unsigned   all = 0xffffffffu;
  const int        lane = threadIdx.x & 31, v0 = lane & ~(s - 1);
  const int        nmax = __reduce_max_sync(all, active ? nl : 0);
  const bool       mine = active && t < nl;
  Dependency       d    = dep;
  d.rowmask             = active ? dep.rowmask : 0; /* the other rows' masks may say "not held": no loads by them */
  unsigned         seen = ProbeDependencies(flags, epoch, d, mine, all);
  bool             loaded = false; /* cur holds dependency j, loaded after it was seen */
  MaskMatch<SLOTS> cur, next;
  for (int j = 0; j < nmax; j++) {
    const bool need = active && j < nl;
    while (!__all_sync(all, !need || (seen >> (v0 + j) & 1))) {
      sfpc::Backoff();
      seen |= ProbeDependencies(flags, epoch, d, mine && !(seen >> lane & 1), all); /* the later ones too, to load them ahead */
    }
    if (__any_sync(all, need && !loaded)) {
      MaskMatch<SLOTS> now;
      now.Load(a, d, j, t, s, v0, all);
      if (!loaded) cur = now;
    }
    if (j + 1 < nmax) next.Load(a, d, j + 1, t, s, v0, all); /* kept where it was seen already: in flight during this one's updates */
    loaded         = j + 1 < nl && (seen >> (v0 + j + 1) & 1);
    const double l = __dmul_rn(__shfl_sync(all, val[0], v0 + j), cur.pivot); /* a_rk / u_cc */
    if (need) {
      cur.Apply(l, t, s, val);
      if (t == j) val[0] = l;
    }
    cur = next;
  }
}

/* The in-memory walk of a row already copied into a: rows longer than the registers hold, and one-lane rows (a merge). */
__device__ __forceinline__ void RowInMemory(const int *__restrict__ aj, const int *__restrict__ ai, const int *__restrict__ ad, double *a, const int *flags, int epoch, int s, int t, unsigned vmask, int rb, int rd, int re)
{
  /*
     The dependencies in chunks of s, one per lane: what does not wait (the row c, where its
     U part starts and ends) and whether c is finished already are read by all lanes at once,
     so that the serial walk below waits only on rows not finished yet and its first loads
     are the values.
  */
  const int v0 = (threadIdx.x & 31) & ~(s - 1);
  for (int k0 = rb; k0 < rd; k0 += s) {
    const int  kc = k0 + t, nk = min(s, rd - k0);
    Dependency dep{0, 0, 0};
    if (kc < rd) {
      dep.c  = aj[kc];
      dep.cd = ad[dep.c];
      dep.ce = ai[dep.c + 1];
    }
    const unsigned seen = ProbeDependencies(flags, epoch, dep, kc < rd, vmask);
    for (int j = 0; j < nk; j++) {
      const int k = k0 + j, cj = __shfl_sync(vmask, dep.c, v0 + j), dj = __shfl_sync(vmask, dep.cd, v0 + j), me = __shfl_sync(vmask, dep.ce, v0 + j);
      if (!(seen >> (v0 + j) & 1)) sfpc::WaitReady(flags, cj, epoch);
      const double l = __dmul_rn(a[k], __ldcg(a + dj)); /* row cj is final: its diagonal slot holds 1/u */
      if (s == 1) { /* one lane: merge U(cj) with the rest of row r */
        int q = k + 1;
        for (int m = dj + 1; m < me && q < re; m++) {
          const int col = aj[m];
          while (q < re && aj[q] < col) q++;
          if (q < re && aj[q] == col) a[q] = sfpc::SubProduct(a[q], l, __ldcg(a + m));
        }
      } else {
        for (int m = dj + 1 + t; m < me; m += s) {
          const int q = sfpc::FindSorted(aj, k + 1, re, aj[m]);
          if (q >= 0) a[q] = sfpc::SubProduct(a[q], l, __ldcg(a + m));
        }
      }
      __syncwarp(vmask); /* every lane has read a[k] and finished its updates */
      if (t == 0) a[k] = l;
    }
  }
}

/*
   found[0]: lowest row whose pivot failed (|u| <= zeropivot * rowsum, or Re u <= that when
   positive, or u not finite); found[1]: lowest row with an Inf/NaN entry. Both start at n.
   Failed pivots stay in their slot for the report; good ones are replaced by 1/u. lstart and
   masks: the match map (SFILUMatchMap), or NULL.
*/
template <bool SEARCH>
__global__ void __launch_bounds__(32 * SFPC_WARPS_PER_BLOCK) ILU0Kernel(const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *__restrict__ lstart, const uint4 *__restrict__ masks, const double *__restrict__ A, double *a, SFPCSchedule S, int *flags, int epoch, unsigned long long *counter, unsigned long long base, double shift, double zeropivot, int positive, int *found)
{
  constexpr int    SLOTS = SFPC_ILU0_ROW_SLOTS > 0 ? SFPC_ILU0_ROW_SLOTS : 1;
  const int        lane  = threadIdx.x & 31;
  for (long long w; (w = sfpc::TakeTask(counter, base)) < S.ntasks;) { /* persistent warps */
    const int      s = S.vec[w], t = lane & (s - 1);
    const int      p      = S.start[w] + lane / s;
    const bool     active = p < S.start[w + 1]; /* whole vectors are active or not */
    const unsigned vmask  = sfpc::VectorMask(lane, s);
    int            r = 0, rb = 0, re = 0, rd = 0;
    double         rowsum = 0;
    int            col[SLOTS];
    double         val[SLOTS];
    bool           inreg = false;
    Dependency     dep{0, 0, 0, 0, 0, 0, 0};

    if (active) {
      r     = S.order[p];
      rb    = ai[r];
      re    = ai[r + 1];
      rd    = ad[r];
      inreg = InRegisters(s, rd - rb, re - rb);
      if (inreg) {
#pragma unroll
        for (int q = 0; q < SLOTS; q++) {
          const int k = rb + t + q * s;
          col[q]      = k < re ? aj[k] : INT_MAX;
          val[q]      = k < re ? A[k] : 0.0;
          rowsum += fabs(val[q]);
          if (k == rd) val[q] += shift;
        }
        if (t < rd - rb) { /* lane t's dependency: the row's entry t, in its first slot */
          dep.c  = col[0];
          dep.cd = ad[dep.c];
          if (masks) {
            const uint4 m = masks[lstart[r] + t];
            dep.rowmask   = m.x;
            dep.umask     = m.y;
            dep.lo        = m.z;
            dep.hi        = m.w;
          }
        }
      } else {
        for (int k = rb + t; k < re; k += s) {
          const double v = A[k];
          rowsum += fabs(v);
          a[k] = k == rd ? v + shift : v;
        }
      }
    }
    rowsum = sfpc::VectorSum(rowsum, s); /* all lanes: the last whole-warp step before the next ticket */
    /* the rows the map holds whole go through it together, then the others each on its own (a warp's rows never depend on each other) */
    const unsigned unmapped = __ballot_sync(0xffffffffu, active && (!inreg || (dep.rowmask & 1)));
    const bool     bymap    = masks && active && !(unmapped & vmask);
    if (__any_sync(0xffffffffu, bymap)) WarpInRegisters<SLOTS>(a, flags, epoch, s, t, bymap, rd - rb, dep, val);
    if (active) {
      const int nl = rd - rb, len = re - rb;
      __syncwarp(vmask);
      if (bymap) { /* done above */
      } else if (inreg) {
        if (t < nl) dep.ce = ai[dep.c + 1]; /* the end of U(c), for the search; loaded for every row it made the permuted 7-point refactorization 4% slower */
        RowInRegisters<SLOTS, SEARCH>(aj, a, flags, epoch, s, t, vmask, nl, len, dep, col, val);
      }
      else RowInMemory(aj, ai, ad, a, flags, epoch, s, t, vmask, rb, rd, re);
      const int    dl  = nl & (s - 1), dq = nl / s; /* the diagonal's lane and slot in registers */
      const double tol = zeropivot * rowsum;
      if (inreg ? t == dl : t == 0) {
        const double u = inreg ? SFILUSlotValue(val, dq) : a[rd];
        if (!isfinite(rowsum)) atomicMin(found + 1, r);
        const bool bad = SFPCPivotFails(u, tol, positive);
        if (bad) atomicMin(found, r);
        else if (inreg) SFILUSetSlot(val, dq, __ddiv_rn(1.0, u));
        else a[rd] = __ddiv_rn(1.0, u);
      }
      if (inreg) {
#pragma unroll
        for (int q = 0; q < SLOTS; q++)
          if (rb + t + q * s < re) a[rb + t + q * s] = val[q];
      }
      /* the barrier orders every lane's writes of the row before lane 0's release store, which carries
         them to the rows that acquire the flag; a __threadfence() of each lane on top (sequentially
         consistent) made the factorization 4-11% slower on an H100 (bench/README.md) */
      __syncwarp(vmask);
      if (t == 0) sfpc::StoreRelease(flags + r, epoch);
    }
  }
}

/*
   The match map's masks (SFILUMatchMap), a warp per row and a lane per L entry: lane k merges
   U(c) with the rest of the row, as the host's factorization walks them, and notes the U(c) offset
   of each of the first 16 matches that fits in 4 bits.
*/
__global__ void MatchMapKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, const int *__restrict__ lstart, uint4 *masks)
{
  const int lane = threadIdx.x & 31;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < n; r += gridDim.x * blockDim.x / 32) {
    const int rb = ai[r], rd = ad[r], re = ai[r + 1];
    for (int k = rb + lane; k < rd; k += 32) {
      const int c = aj[k], cd = ad[c], ce = ai[c + 1];
      uint4     m = make_uint4(1, 0, 0, 0); /* cannot be held */
      if (re - rb <= 32 && ce - cd <= 32) {
        m = make_uint4(0, 0, 0, 0);
        for (int e = cd + 1, q = k + 1, rank = 0; e < ce && q < re; e++) {
          const int col = aj[e];
          while (q < re && aj[q] < col) q++;
          if (q < re && aj[q] == col) {
            m.x |= 1u << (q - rb);
            m.y |= 1u << (e - cd);
            if (rank < 8 && e - cd < 16) m.z |= (unsigned)(e - cd) << 4 * rank;
            else if (rank < 16 && e - cd < 16) m.w |= (unsigned)(e - cd) << 4 * (rank - 8);
            rank++;
          }
        }
      }
      masks[lstart[r] + k - rb] = m;
    }
  }
}

/* lstart[r] = L entries of row r (before the diagonal); lstart[n] = 0, for the scan. */
__global__ void LowerCountKernel(int n, const int *__restrict__ ai, const int *__restrict__ ad, int *lstart)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r <= n) lstart[r] = r < n ? ad[r] - ai[r] : 0;
}

/* Largest row sum of |A| (into bound[0]) and largest sum_{j != r} |a_rj| - Re a_rr, clipped at 0 (bound[1]); bit patterns of nonnegative doubles order like integers. */
__global__ void ShiftBoundsKernel(int n, const int *__restrict__ ai, const int *__restrict__ ad, const double *__restrict__ A, unsigned long long *bound)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  double sum = 0;
  for (int k = ai[r]; k < ai[r + 1]; k++) sum += fabs(A[k]);
  const double top = fmax(sum - fabs(A[ad[r]]) - A[ad[r]], 0.0);
  sfpc::AtomicMaxWarp(bound, (unsigned long long)__double_as_longlong(sum));
  sfpc::AtomicMaxWarp(bound + 1, (unsigned long long)__double_as_longlong(top));
}
} // namespace

/*
   The failure report of a factorization kernel (ILU(0) or SIP): T->report holds {lowest failed
   pivot row, lowest row with an Inf/NaN entry}, both n when none; a failed pivot is left in its
   diagonal slot.
*/
PetscErrorCode SFILUReportBegin_Device(SFPCTriDevice T, SFILUResult *res)
{
  cudaStream_t stream;
  const int    none[2] = {(int)T->n, (int)T->n};

  PetscFunctionBegin;
  res->badrow = res->nonfinite = -1;
  res->badpivot                = 0;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  /* from pageable memory: staged before the call returns (CUDA's API synchronization rules), so none may go out of scope */
  PetscCallCUDA(cudaMemcpyAsync(T->report, none, sizeof(none), cudaMemcpyHostToDevice, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUReportEnd_Device(SFPCTriDevice T, SFILUResult *res)
{
  cudaStream_t stream;
  int          found[2];

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(found, T->report, sizeof(found), cudaMemcpyDeviceToHost, stream)); /* the one wait of a factorization: PETSc needs the outcome */
  PetscCallCUDA(cudaStreamSynchronize(stream));
  /* the host reference stops at the first row that fails either way: report only that one, as it does
     (rows after a failure are computed from garbage on the device, but every row below it is exact) */
  if (found[1] <= found[0]) found[0] = (int)T->n; /* a row with an Inf/NaN entry fails before its pivot is looked at */
  else found[1] = (int)T->n;
  if (found[1] < T->n) res->nonfinite = found[1];
  if (found[0] < T->n) {
    int d;
    res->badrow = found[0];
    PetscCallCUDA(cudaMemcpyAsync(&d, T->diag + found[0], sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCallCUDA(cudaMemcpyAsync(&res->badpivot, T->a + d, sizeof(PetscScalar), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUMatchMapCreate_Device(SFPCTriDevice T, SFILUMatchMap *M)
{
  PetscFunctionBegin;
  PetscCall(SFILUMatchMapCreatePattern_Device((int)T->n, T->i, T->j, T->diag, T->sms, M));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The match map of the device CSR pattern (ai, aj, ad) of n rows, diagonals included: the factor's, or the quotient of dense point-blocks (ilu0_dense_device.cu). */
PetscErrorCode SFILUMatchMapCreatePattern_Device(int n, const int *ai, const int *aj, const int *ad, int sms, SFILUMatchMap *M)
{
  cudaStream_t stream;
  const int    tpb = 256;
  int          nl;

  PetscFunctionBegin;
  PetscCall(SFILUMatchMapDestroy_Device(M));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMalloc(&M->lstart, sizeof(int) * (n + 1)));
  LowerCountKernel<<<sfpc::LaunchBlocks(n + 1LL, tpb), tpb, 0, stream>>>(n, ai, ad, M->lstart); /* n + 1 threads: lstart[n] too */
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, M->lstart, M->lstart, n + 1, stream); }));
  PetscCallCUDA(cudaMemcpyAsync(&nl, M->lstart + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the masks' size: once per pattern */
  M->nl = nl;
  static_assert(sizeof(uint4) == SFILU_MATCH_WORDS * sizeof(unsigned), "the kernels read an L entry's map words as one uint4");
  PetscCallCUDA(cudaMalloc(&M->masks, SFILU_MATCH_WORDS * sizeof(unsigned) * PetscMax(nl, 1)));
  if (n) MatchMapKernel<<<PetscMin(n / (tpb / 32) + 1, 64 * sms), tpb, 0, stream>>>(n, ai, aj, ad, M->lstart, (uint4 *)M->masks);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUMatchMapDestroy_Device(SFILUMatchMap *M)
{
  PetscFunctionBegin;
  if (!M->lstart) PetscFunctionReturn(PETSC_SUCCESS); /* nothing to free; and no CUDA call on a host-only run */
  PetscCallCUDA(cudaFree(M->lstart));
  PetscCallCUDA(cudaFree(M->masks));
  M->lstart = NULL;
  M->masks  = NULL;
  M->nl     = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ILU(0) of A + shift I, A's values given on the device in the factor's pattern; M: the match map, used unless match is search or broadcast. */
PetscErrorCode SFILUFactorNumeric_Device(SFPCTriDevice T, const SFILUMatchMap *M, const PetscScalar *A, PetscReal shift, PetscReal zeropivot, PetscBool positive, SFILUFactorMatch match, SFILUResult *res)
{
  cudaStream_t       stream;
  int                blocks, epoch;
  unsigned long long base;
  const bool         usemap = SFILUFactorMatchUsesMap(match) && M->lstart;
  bool               search = match == SFILU_FACTOR_MATCH_SEARCH;

  PetscFunctionBegin;
  PetscCall(SFILUReportBegin_Device(T, res));
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(SFPCTriDeviceTakeTickets(T, T->lower.ntasks, T->lower.factor_resident, &blocks, &base));
  PetscCall(SFPCTriDeviceNextEpoch(T, &epoch));
  PetscCall(PetscLogGpuTimeBegin());
  if (SFILUFactorMatchUsesMap(match)) search = (long long)T->lower.ntasks >= (long long)SFPC_ILU0_SEARCH_TASKS * T->lower.nlevels * T->sms; /* for the rows the map cannot hold */
  (search ? ILU0Kernel<true> : ILU0Kernel<false>)<<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(T->i, T->j, T->diag, usemap ? M->lstart : NULL, usemap ? (const uint4 *)M->masks : NULL, A, T->a, T->lower, T->flags, epoch, T->counter, base, (double)shift, (double)zeropivot, (int)positive, T->report);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SFILUReportEnd_Device(T, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SFILUShiftBounds_Device(SFPCTriDevice T, const PetscScalar *A, PetscReal *rmax, PetscReal *top)
{
  cudaStream_t        stream;
  unsigned long long  hb[2] = {0, 0}, *db;
  const int           tpb   = 256;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMalloc(&db, sizeof(hb)));
  PetscCallCUDA(cudaMemcpyAsync(db, hb, sizeof(hb), cudaMemcpyHostToDevice, stream));
  if (T->n) ShiftBoundsKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->i, T->diag, A, db);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hb, db, sizeof(hb), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCallCUDA(cudaFree(db));
  memcpy(rmax, &hb[0], sizeof(double));
  memcpy(top, &hb[1], sizeof(double));
  PetscFunctionReturn(PETSC_SUCCESS);
}
