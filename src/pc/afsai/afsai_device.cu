/*
   The adaptive FSAI set-up on the GPU (PCAFSAI on MATSEQAIJCUSPARSE), from PETSc's device CSR:
   the host reference of afsai_host.c, row for row and bit for bit, one warp per row.

   Per row (SearchKernel): the lanes own the positions r = lane, lane + 32, ... of the row's
   pattern P (in the order entries were added), that is the sources of the gradient merge, the
   columns of the dense factor L and the entries of g.
     gradient: (A g~_i)_j for j < i over rows P_0, .., P_{m-1}, i of A, by a merge of those sorted
       rows: a warp min of the lanes' head columns gives the next column j, the lanes whose head is
       j multiply, and every lane sums the products in row order through shuffles (the host's
       order, afsai_host.c), so equal gradients stay equal and ties break alike;
     top s: s rounds of a warp argmax over the candidates (afsai.h's AFSAIBeats(), ties to the
       smaller column, as the host);
     values: each new row of L by a column-oriented forward substitution (the owner of column k
       divides and broadcasts, the others update theirs), psi, and g by columns from the last,
       each entry in the host's operation order (afsai_host.c, AFSAIRowSolve) with no fused
       multiply-add: the same pattern and, in practice, the same bits.
   Per-row scratch (P, the factor, the candidates) lives in global memory, sized from the options
   (m = the row capacity: m^2 doubles for L, (m + 1) x the longest row of A for the candidates);
   rows run in batches that fit half the free device memory, each warp finishes with its row.
   The pattern is packed on the device (a scan of the row lengths) and G, G^T are assembled as
   MATSEQAIJCUSPARSE: G^T's pattern by a stable radix sort of G's entries by column on the
   device, both patterns copied once to the host (PETSc's AIJCUSPARSE keeps a host CSR; given as
   arrays, nothing is sorted there: MatSetPreallocationCOO() built its map on the host and took
   4.8 s at 128^3) into huge-page, page-locked memory (HostArrayAlloc(): first touch was the
   cost), PETSc's device CSRs built from them at once, the values written straight into the
   Mats' device arrays; new values of the same pattern run ValuesKernel and two device copies only.
   The first failing row (the host's, since rows are independent and batches run in order) is an
   atomicMin over (row, cause); its value is kept per batch row.
   A row range r0 .. r1 - 1 of A can be searched alone (the gathered mode, afsai_gather.c: the
   owned rows of the gathered matrix, whose other rows are only read): G then has r1 - r0 rows,
   columns in A's numbering, failures counted from r0 as on the host, and its pattern (host) and
   values (device) go to the caller (AFSAIDeviceGetFactor) instead of AFSAIAssemble_Device().
*/
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <petscdevice_cuda.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sfpc/private/sfcub.cuh>
#include <sfpc/private/sfdevice.cuh>
#include "afsai.h"

/* A host array and how it was obtained (HostArrayAlloc()). */
typedef struct {
  void     *p;
  size_t    len;        /* bytes allocated; 0: by PetscMalloc() */
  PetscBool registered; /* page-locked for CUDA by cudaHostRegister() */
} HostArray;

struct _n_AFSAIDevice {
  PetscInt     r0, n, nnz, mmaxG; /* G's rows are rows r0 .. r0 + n - 1 of A; entries of G, longest row of G less its diagonal */
  PetscInt     maxrowA;       /* longest row of A */
  int         *gi, *gj, *ci;  /* G's CSR and the row of each entry */
  PetscScalar *ga;            /* G's values, CSR order */
  int         *tperm;         /* entry q of G^T (CSR) is entry tperm[q] of G */
  HostArray    hi[2], hj[2], ha[2]; /* host CSR of G and G^T, which their Mats reference (PETSc keeps a host CSR) */
};

namespace
{
const int      WARPS = 4; /* per block of the row kernels */
const unsigned FULL  = 0xffffffffu;

struct CSR {
  const int    *ai, *aj;
  const double *aa;
};

/* a_rc, or 0 outside A's pattern (columns sorted in each row). */
__device__ __forceinline__ double Entry(const CSR &A, int r, int c)
{
  const int p = sfpc::FindSorted(A.aj, A.ai[r], A.ai[r + 1], c);
  return p >= 0 ? A.aa[p] : 0.0;
}

/* One batch row's scratch: strides are per row, p the row's slot in the batch. */
struct Scratch {
  int     mmax, cmax;
  int    *P, *Ps, *pos, *ccol;
  double *L, *y, *g, *cval, *fval;
};

struct Row {
  int     ld;
  int    *P, *Ps, *pos, *ccol;
  double *L, *y, *g, *cval;
};

__device__ __forceinline__ Row RowScratch(const Scratch &S, int p)
{
  Row w;
  w.ld   = S.mmax;
  w.P    = S.P + (size_t)p * (S.mmax + 1);
  w.Ps   = S.Ps + (size_t)p * (S.mmax + 1);
  w.pos  = S.pos + (size_t)p * (S.mmax + 1);
  w.ccol = S.ccol + (size_t)p * S.cmax;
  w.L    = S.L + (size_t)p * S.mmax * S.mmax;
  w.y    = S.y + (size_t)p * S.mmax;
  w.g    = S.g + (size_t)p * S.mmax;
  w.cval = S.cval + (size_t)p * S.cmax;
  return w;
}

/* The first lane k & 31 owning position k. */
__device__ __forceinline__ int FirstOwned(int k, int lane)
{
  return k + ((lane - k) & 31);
}

/* Records row i's failure: its value per batch row, (row, cause) into the batch's minimum. */
__device__ void Fail(unsigned long long *failkey, double *fval, int p, int i, int cause, double value, int lane)
{
  if (lane == 0) {
    fval[p] = value;
    atomicMin(failkey, ((unsigned long long)i << 3) | (unsigned long long)cause);
  }
}

/*
   afsai_host.c's AFSAIRowSolve() by a warp: extends L and y from P[0..m0) to P[0..m), psi, then g.
   Returns the failure cause (0: none), value the failing pivot or psi.
*/
__device__ int RowSolve(const CSR &A, int i, double aii, const Row &w, int m0, int m, double &psi, double &value, int lane)
{
  const int ld = w.ld;
  for (int r = m0; r < m; r++) {
    double   *Lr = w.L + (size_t)r * ld;
    const int pr = w.P[r], own = r & 31;
    for (int c = lane; c <= r; c += 32) Lr[c] = Entry(A, pr, w.P[c]);
    const double app = __shfl_sync(FULL, lane == own ? Lr[r] : 0.0, own);
    double       b   = Entry(A, i, pr);
    for (int k = 0; k < r; k++) { /* t_c -= L[r,k] L[c,k], k ascending, for each column c of row r */
      double lk = 0;
      if (lane == (k & 31)) {
        lk    = __ddiv_rn(Lr[k], w.L[(size_t)k * ld + k]);
        Lr[k] = lk;
      }
      lk = __shfl_sync(FULL, lk, k & 31);
      for (int c = FirstOwned(k + 1, lane); c <= r; c += 32) Lr[c] = AFSAISubMul(Lr[c], lk, c < r ? w.L[(size_t)c * ld + k] : lk);
      b = AFSAISubMul(b, lk, w.y[k]);
    }
    const double d     = __shfl_sync(FULL, lane == own ? Lr[r] : 0.0, own);
    const int    cause = AFSAIPivotCheck(d, app, AFSAI_FAIL_CHOLESKY);
    if (cause) {
      value = d;
      return cause;
    }
    const double lrr = __dsqrt_rn(d);
    if (lane == own) Lr[r] = lrr;
    if (lane == 0) w.y[r] = __ddiv_rn(b, lrr);
    __syncwarp();
  }
  psi = aii;
  for (int r = 0; r < m; r++) psi = AFSAISubMul(psi, w.y[r], w.y[r]);
  const int cause = AFSAIPivotCheck(psi, aii, AFSAI_FAIL_PSI);
  if (cause) {
    value = psi;
    return cause;
  }
  for (int r = lane; r < m; r += 32) w.g[r] = -w.y[r];
  for (int k = m - 1; k >= 0; k--) { /* g_r -= L[k,r] g_k, k descending */
    double gk = 0;
    if (lane == (k & 31)) {
      gk     = __ddiv_rn(w.g[k], w.L[(size_t)k * ld + k]);
      w.g[k] = gk;
    }
    gk = __shfl_sync(FULL, gk, k & 31);
    for (int r = lane; r < k; r += 32) w.g[r] = AFSAISubMul(w.g[r], w.L[(size_t)k * ld + r], gk);
  }
  __syncwarp();
  return 0;
}

__device__ __forceinline__ int WarpMin(int v)
{
  for (int o = 16; o; o >>= 1) v = min(v, __shfl_xor_sync(FULL, v, o));
  return v;
}

/* v plus the t of the lanes with hit, added one by one in lane order (every lane gets the same bits). */
__device__ __forceinline__ double SumHitsInLaneOrder(double v, bool hit, double t)
{
  for (unsigned mask = __ballot_sync(FULL, hit); mask; mask &= mask - 1) v = __dadd_rn(v, __shfl_sync(FULL, t, __ffs(mask) - 1));
  return v;
}

/* Records gradient candidate (j, v) as the nc-th; false (value = v) when v is Inf or NaN. */
__device__ __forceinline__ bool AppendCandidate(const Row &w, int &nc, int j, double v, double &value, int lane)
{
  if (!isfinite(v)) {
    value = v;
    return false;
  }
  if (lane == 0) {
    w.ccol[nc] = j;
    w.cval[nc] = v;
  }
  nc++;
  return true;
}

/*
   The gradient candidates of row i (afsai_host.c's AFSAIGradient()) into (ccol, cval), by a
   merge of the rows P_0 .. P_{m-1}, i of A restricted to columns < i. Returns their number, or -1
   on an Inf/NaN (value: the gradient).
*/
__device__ int Gradient(const CSR &A, int i, const Row &w, int m, double &value, int lane)
{
  int q = 0, nc = 0;
  for (int r = lane; r <= m; r += 32) w.pos[r] = A.ai[r < m ? w.P[r] : i];
  for (;;) {
    int head = INT_MAX;
    for (int r = lane; r <= m; r += 32) {
      const int row = r < m ? w.P[r] : i, p = w.pos[r];
      if (p < A.ai[row + 1] && A.aj[p] < i) head = min(head, A.aj[p]);
    }
    const int j = WarpMin(head);
    if (j == INT_MAX) break;
    double v = 0;
    for (int r0 = 0; r0 <= m; r0 += 32) { /* the products in row order, summed by every lane alike */
      const int r   = r0 + lane;
      bool      hit = false;
      double    t   = 0;
      if (r <= m) {
        const int row = r < m ? w.P[r] : i, p = w.pos[r];
        if (p < A.ai[row + 1] && A.aj[p] == j) {
          hit      = true;
          t        = __dmul_rn(r < m ? w.g[r] : 1.0, A.aa[p]);
          w.pos[r] = p + 1;
        }
      }
      v = SumHitsInLaneOrder(v, hit, t);
    }
    while (q < m && w.Ps[q] < j) q++;
    if (q < m && w.Ps[q] == j) continue; /* in P: zero up to rounding (3.7) */
    if (!AppendCandidate(w, nc, j, v, value, lane)) return -1;
  }
  __syncwarp();
  return nc;
}

/*
   Gradient() for m + 1 <= 32 sources: lane r keeps its source's state in registers (its next column, where its row
   ends, its weight), so a step of the merge costs one load per lane that takes part (the next column of its row)
   instead of re-reading P, pos and A's row offsets from the scratch twice; "j in P" is one ballot over the lanes'
   copies of P. The same columns, the same products summed in the same order (lanes ascending): the same bits.
*/
__device__ int GradientWarp(const CSR &A, int i, const Row &w, int m, double &value, int lane)
{
  int    p = 0, end = 0, col = INT_MAX, mine = -1, nc = 0;
  double gr = 0;
  if (lane <= m) {
    const int row = lane < m ? w.P[lane] : i;
    p   = A.ai[row];
    end = A.ai[row + 1];
    gr  = lane < m ? w.g[lane] : 1.0;
    if (p < end) col = A.aj[p];
    if (col >= i) col = INT_MAX; /* columns sorted: nothing below i is left in this row */
    if (lane < m) mine = w.P[lane];
  }
  for (;;) {
    const int j = WarpMin(col);
    if (j == INT_MAX) break;
    const bool hit = col == j;
    double     t = 0, v = 0;
    if (hit) {
      t   = __dmul_rn(gr, A.aa[p]);
      col = ++p < end ? A.aj[p] : INT_MAX;
      if (col >= i) col = INT_MAX;
    }
    v = SumHitsInLaneOrder(v, hit, t);
    if (__any_sync(FULL, mine == j)) continue; /* in P: zero up to rounding (3.7) */
    if (!AppendCandidate(w, nc, j, v, value, lane)) return -1;
  }
  __syncwarp();
  return nc;
}

/* Appends to P up to t candidates of largest nonzero |gradient| (afsai_host.c's AFSAISelect()); keeps Ps sorted. */
__device__ int Select(const Row &w, int nc, int t, int m, int lane)
{
  const int m0 = m;
  for (int q = 0; q < t; q++) {
    double bv = 0;
    int    bc = INT_MAX, bk = -1;
    for (int c = lane; c < nc; c += 32) {
      const double v = fabs(w.cval[c]);
      if (v > 0 && (bk < 0 || AFSAIBeats(v, w.ccol[c], bv, bc))) bv = v, bc = w.ccol[c], bk = c;
    }
    for (int o = 16; o; o >>= 1) {
      const double ov = __shfl_xor_sync(FULL, bv, o);
      const int    oc = __shfl_xor_sync(FULL, bc, o), ok = __shfl_xor_sync(FULL, bk, o);
      if (ok >= 0 && (bk < 0 || AFSAIBeats(ov, oc, bv, bc))) bv = ov, bc = oc, bk = ok;
    }
    if (bk < 0) break;
    if (lane == 0) {
      w.P[m]     = bc;
      w.cval[bk] = 0; /* taken */
    }
    m++;
    __syncwarp();
  }
  if (lane == 0)
    for (int r = m0; r < m; r++) { /* insertion into the sorted copy */
      int k = r;
      for (; k > 0 && w.Ps[k - 1] > w.P[r]; k--) w.Ps[k] = w.Ps[k - 1];
      w.Ps[k] = w.P[r];
    }
  __syncwarp();
  return m;
}

struct SearchParams {
  int    steps, stepsize, mmax;
  double tol, filter;
};

/*
   The search of rows r0 .. r0 + nrows - 1 (afsai_host.c's AFSAISearchRow() and AFSAIFilterRow()),
   one warp each: row i's sorted pattern, then i, into slot[(i - base) (mmax + 1) ..], its length
   into len[i - base] (base: the first row searched, G's row 0; failures are counted from it too).
   stats: the sum of steps, the largest, and the rows per stopping cause.
*/
__global__ void __launch_bounds__(32 * WARPS) SearchKernel(CSR A, int r0, int nrows, int base, SearchParams prm, Scratch S, int *slot, int *len, unsigned long long *stats, unsigned long long *failkey)
{
  const int lane = threadIdx.x & 31, p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, i = r0 + p;
  if (p >= nrows) return; /* whole warps */
  const Row    w   = RowScratch(S, p);
  const double aii = Entry(A, i, i);
  double       psi, value = 0;
  int          m = 0, steps = 0, stop = AFSAI_STOP_STEPS, cause = AFSAIDiagonalCheck(aii);

  if (cause) {
    Fail(failkey, S.fval, p, i - base, cause, aii, lane);
    return;
  }
  for (int k = 0; k < prm.steps; k++) {
    const int m0 = m;
    if (m >= prm.mmax) {
      stop = AFSAI_STOP_NNZ;
      break;
    }
    const int nc = m < 32 ? GradientWarp(A, i, w, m, value, lane) : Gradient(A, i, w, m, value, lane);
    if (nc < 0) {
      Fail(failkey, S.fval, p, i - base, AFSAI_FAIL_NONFINITE, value, lane);
      return;
    }
    m = Select(w, nc, min(prm.stepsize, prm.mmax - m), m, lane);
    if (m == m0) {
      stop = AFSAI_STOP_CANDIDATE;
      break;
    }
    cause = RowSolve(A, i, aii, w, m0, m, psi, value, lane);
    if (cause) {
      Fail(failkey, S.fval, p, i - base, cause, value, lane);
      return;
    }
    steps = k + 1;
    if (psi <= prm.tol * aii) {
      stop = AFSAI_STOP_TOL;
      break;
    }
  }
  int *out = slot + (size_t)(i - base) * (prm.mmax + 1), kept = m;
  if (prm.filter > 0) { /* keep flags into pos, then each kept entry goes to its rank among the kept */
    for (int r = lane; r < m; r += 32) w.pos[r] = AFSAIKeep(w.g[r], Entry(A, w.P[r], w.P[r]), aii, prm.filter);
    __syncwarp();
    kept = 0;
    for (int r = 0; r < m; r++) kept += w.pos[r];
    for (int r = lane; r < m; r += 32)
      if (w.pos[r]) {
        int rank = 0;
        for (int q = 0; q < m; q++) rank += w.pos[q] && w.P[q] < w.P[r];
        out[rank] = w.P[r];
      }
  } else
    for (int r = lane; r < m; r += 32) out[r] = w.Ps[r];
  if (lane == 0) {
    out[kept] = i;
    len[i - base] = kept + 1;
    atomicAdd(stats, (unsigned long long)steps);
    atomicMax(stats + 1, (unsigned long long)steps);
    atomicAdd(stats + 2 + stop, 1ULL);
  }
}

/* G's values on its pattern (afsai_host.c's AFSAIValues_Host()): row i (G's row i - base) solved from scratch, scaled by 1/sqrt(psi_i). */
__global__ void __launch_bounds__(32 * WARPS) ValuesKernel(CSR A, int r0, int nrows, int base, const int *__restrict__ gi, const int *__restrict__ gj, Scratch S, double *ga, unsigned long long *failkey)
{
  const int lane = threadIdx.x & 31, p = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, i = r0 + p;
  if (p >= nrows) return;
  gi += i - base; /* this row's offsets */
  const Row    w   = RowScratch(S, p);
  const int    m   = gi[1] - gi[0] - 1;
  const double aii = Entry(A, i, i);
  double       psi, value = 0;
  int          cause = AFSAIDiagonalCheck(aii);

  if (cause) {
    Fail(failkey, S.fval, p, i - base, cause, aii, lane);
    return;
  }
  for (int r = lane; r < m; r += 32) w.P[r] = gj[gi[0] + r];
  __syncwarp();
  cause = RowSolve(A, i, aii, w, 0, m, psi, value, lane);
  if (cause) {
    Fail(failkey, S.fval, p, i - base, cause, value, lane);
    return;
  }
  const double scale = __ddiv_rn(1.0, __dsqrt_rn(psi));
  for (int r = lane; r < m; r += 32) ga[gi[0] + r] = __dmul_rn(scale, w.g[r]);
  if (lane == 0) ga[gi[0] + m] = scale;
}

__global__ void MaxRowLength(int n, const int *__restrict__ ai, int *maxrow)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) sfpc::AtomicMaxWarp(maxrow, ai[i + 1] - ai[i]);
}

/* The pattern packed: gj from the slots, the row of each entry, and the longest row. */
__global__ void PackPattern(int n, int stride, const int *__restrict__ slot, const int *__restrict__ gi, int *gj, int *ci, int *maxlen)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int len = gi[i + 1] - gi[i];
  for (int k = 0; k < len; k++) {
    gj[gi[i] + k] = slot[(size_t)i * stride + k];
    ci[gi[i] + k] = i;
  }
  sfpc::AtomicMaxWarp(maxlen, len);
}

__global__ void ColumnCounts(int nnz, const int *__restrict__ gj, int *count)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(count + gj[k], 1);
}

__global__ void TransposeColumns(int nnz, const int *__restrict__ tperm, const int *__restrict__ ci, int *tj)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < nnz) tj[q] = ci[tperm[q]];
}

__global__ void TransposeValues(int nnz, const int *__restrict__ tperm, const double *__restrict__ ga, double *ta)
{
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < nnz) ta[q] = ga[tperm[q]];
}

__global__ void Iota(int n, int *v)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) v[k] = k;
}
} // namespace

/* Scratch for batches of rows of capacity mmax (cmax candidates each), sized from free device memory. */
static PetscErrorCode ScratchCreate(PetscInt n, PetscInt mmax, PetscInt cmax, cudaStream_t stream, Scratch *S, PetscInt *batch)
{
  size_t       freeb, totalb;
  const size_t perrow = sizeof(int) * (3 * (mmax + 1) + cmax) + sizeof(double) * (mmax * mmax + 2 * mmax + cmax + 1);

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  /* half the free memory: the rest stays for G, G^T and whatever else the application holds */
  *batch = (PetscInt)PetscMin((size_t)n, freeb / 2 / perrow);
  PetscCheck(*batch >= 1 || n == 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "PCAFSAI: %zu bytes of scratch per row do not fit in the free device memory (%zu bytes); lower -pc_afsai_steps x -pc_afsai_step_size", perrow, freeb);
  *batch = PetscMax(*batch, 1);
  S->mmax = (int)mmax;
  S->cmax = (int)cmax;
  PetscCallCUDA(cudaMallocAsync(&S->P, sizeof(int) * *batch * (mmax + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->Ps, sizeof(int) * *batch * (mmax + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->pos, sizeof(int) * *batch * (mmax + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->ccol, sizeof(int) * *batch * PetscMax(cmax, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->L, sizeof(double) * *batch * PetscMax(mmax * mmax, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->y, sizeof(double) * *batch * PetscMax(mmax, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->g, sizeof(double) * *batch * PetscMax(mmax, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->cval, sizeof(double) * *batch * PetscMax(cmax, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&S->fval, sizeof(double) * *batch, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ScratchDestroy(Scratch *S, cudaStream_t stream)
{
  void *arrays[] = {S->P, S->Ps, S->pos, S->ccol, S->L, S->y, S->g, S->cval, S->fval};

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++) PetscCallCUDA(cudaFreeAsync(arrays[k], stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a batch of rows starting at b0 (counted from the first row searched): whether a row of it failed (then fail is set, the batch's first failing row). */
static PetscErrorCode BatchFailure(unsigned long long *dkey, const Scratch *S, PetscInt b0, cudaStream_t stream, AFSAIFail *fail)
{
  unsigned long long key;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(&key, dkey, sizeof(key), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if (key != ~0ULL) {
    fail->row   = (PetscInt)(key >> 3);
    fail->cause = (AFSAIFailure)(key & 7);
    PetscCallCUDA(cudaMemcpyAsync(&fail->value, S->fval + (fail->row - b0), sizeof(double), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GetCSR(Mat A, CSR *csr, cudaStream_t *stream)
{
  const PetscInt *ai, *aj;

  PetscFunctionBegin;
  PetscCheck(sizeof(PetscInt) == sizeof(int), PETSC_COMM_SELF, PETSC_ERR_SUP, "The GPU PCAFSAI set-up needs 32-bit PetscInt");
  PetscCall(PetscGetCurrentCUDAStream(stream));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &csr->aa));
  csr->ai = ai;
  csr->aj = aj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RestoreCSR(Mat A, CSR *csr)
{
  const PetscInt *ai = csr->ai, *aj = csr->aj;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &csr->aa));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AFSAIPattern_Device(Mat A, const AFSAIParams *prm, PetscInt r0, PetscInt r1, AFSAIDevice *dev, AFSAIPattern *pat, AFSAIFail *fail)
{
  AFSAIDevice         D;
  CSR                 csr;
  cudaStream_t        stream;
  PetscInt            n = r1 - r0, nA, batch = 0;
  PetscInt64          cap;
  SearchParams        sp;
  Scratch             S;
  int                *slot, *len, *dmax, hmax[2] = {0, 0}, nnz = 0;
  unsigned long long *dstats, *dkey, stats[2 + AFSAI_NSTOP];

  PetscFunctionBegin;
  PetscCall(AFSAIDeviceDestroy(dev));
  PetscCall(PetscMemzero(pat, sizeof(*pat)));
  fail->cause = AFSAI_FAIL_NONE;
  fail->row   = -1;
  fail->value = 0;
  PetscCall(AFSAIRowCapacityCheck(prm, n, &cap));
  PetscCall(PetscNew(&D));
  *dev = D;
  PetscCall(MatGetLocalSize(A, &nA, NULL));
  PetscCheck(r0 >= 0 && r0 <= r1 && r1 <= nA, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCAFSAI: rows %" PetscInt_FMT " .. %" PetscInt_FMT " are not rows of a matrix of %" PetscInt_FMT, r0, r1, nA);
  D->r0 = r0;
  D->n  = n;
  PetscCall(GetCSR(A, &csr, &stream));
  PetscCallCUDA(cudaMallocAsync(&dmax, 2 * sizeof(int), stream));
  PetscCallCUDA(cudaMemsetAsync(dmax, 0, 2 * sizeof(int), stream));
  MaxRowLength<<<sfpc::LaunchBlocks(nA, 256), 256, 0, stream>>>((int)nA, csr.ai, dmax); /* over all of A: the merge reads any row */
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hmax, dmax, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  D->maxrowA = hmax[0];
  /* a row's candidates are its pattern's rows merged: (cap + 1) * maxrowA entries of scratch, indexed in int */
  PetscCheck((cap + 1) * (PetscInt64)D->maxrowA <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCAFSAI: %" PetscInt64_FMT " entries per row of G times a longest row of A of %" PetscInt_FMT " entries exceed 32-bit scratch indices; lower -pc_afsai_max_nnz_row", cap + 1, D->maxrowA);
  sp.steps    = (int)prm->steps;
  sp.stepsize = (int)prm->stepsize;
  sp.mmax     = (int)cap;
  sp.tol      = prm->tol;
  sp.filter   = prm->filter;
  PetscCall(ScratchCreate(n, cap, (cap + 1) * D->maxrowA, stream, &S, &batch));
  PetscCallCUDA(cudaMallocAsync(&slot, sizeof(int) * PetscMax(n * (cap + 1), 1), stream));
  PetscCallCUDA(cudaMallocAsync(&len, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&dstats, sizeof(stats), stream));
  PetscCallCUDA(cudaMallocAsync(&dkey, sizeof(*dkey), stream));
  PetscCallCUDA(cudaMemsetAsync(dstats, 0, sizeof(stats), stream));
  PetscCallCUDA(cudaMemsetAsync(dkey, 0xff, sizeof(*dkey), stream));
  PetscCallCUDA(cudaMemsetAsync(len + n, 0, sizeof(int), stream));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt b0 = 0; b0 < n && !fail->cause; b0 += batch) {
    const PetscInt nr = PetscMin(batch, n - b0);
    SearchKernel<<<sfpc::LaunchBlocks(32LL * nr, 32 * WARPS), 32 * WARPS, 0, stream>>>(csr, (int)(r0 + b0), (int)nr, (int)r0, sp, S, slot, len, dstats, dkey);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(BatchFailure(dkey, &S, b0, stream, fail));
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (!fail->cause) {
    PetscCallCUDA(cudaMemcpyAsync(stats, dstats, sizeof(stats), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaMalloc(&D->gi, sizeof(int) * (n + 1)));
    PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, len, D->gi, (int)n + 1, stream); }));
    PetscCallCUDA(cudaMemcpyAsync(&nnz, D->gi + n, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    D->nnz = nnz;
    PetscCallCUDA(cudaMalloc(&D->gj, sizeof(int) * PetscMax(nnz, 1)));
    PetscCallCUDA(cudaMalloc(&D->ci, sizeof(int) * PetscMax(nnz, 1)));
    PetscCallCUDA(cudaMalloc(&D->ga, sizeof(double) * PetscMax(nnz, 1)));
    PackPattern<<<sfpc::LaunchBlocks(n, 256), 256, 0, stream>>>((int)n, (int)cap + 1, slot, D->gi, D->gj, D->ci, dmax + 1);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(hmax + 1, dmax + 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    D->mmaxG      = PetscMax(hmax[1] - 1, 0);
    pat->stepsum  = (PetscInt)stats[0];
    pat->stepsmax = (PetscInt)stats[1];
    for (PetscInt k = 0; k < AFSAI_NSTOP; k++) pat->nstop[k] = (PetscInt)stats[2 + k];
  }
  PetscCall(ScratchDestroy(&S, stream));
  PetscCallCUDA(cudaFreeAsync(slot, stream));
  PetscCallCUDA(cudaFreeAsync(len, stream));
  PetscCallCUDA(cudaFreeAsync(dstats, stream));
  PetscCallCUDA(cudaFreeAsync(dkey, stream));
  PetscCallCUDA(cudaFreeAsync(dmax, stream));
  PetscCall(RestoreCSR(A, &csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AFSAIValues_Device(Mat A, AFSAIDevice D, AFSAIFail *fail)
{
  CSR                 csr;
  cudaStream_t        stream;
  PetscInt            batch = 0;
  Scratch             S;
  unsigned long long *dkey;

  PetscFunctionBegin;
  fail->cause = AFSAI_FAIL_NONE;
  fail->row   = -1;
  fail->value = 0;
  PetscCall(GetCSR(A, &csr, &stream));
  PetscCall(ScratchCreate(D->n, D->mmaxG, 0, stream, &S, &batch));
  PetscCallCUDA(cudaMallocAsync(&dkey, sizeof(*dkey), stream));
  PetscCallCUDA(cudaMemsetAsync(dkey, 0xff, sizeof(*dkey), stream));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt b0 = 0; b0 < D->n && !fail->cause; b0 += batch) {
    const PetscInt nr = PetscMin(batch, D->n - b0);
    ValuesKernel<<<sfpc::LaunchBlocks(32LL * nr, 32 * WARPS), 32 * WARPS, 0, stream>>>(csr, (int)(D->r0 + b0), (int)nr, (int)D->r0, D->gi, D->gj, S, D->ga, dkey);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(BatchFailure(dkey, &S, b0, stream, fail));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(ScratchDestroy(&S, stream));
  PetscCallCUDA(cudaFreeAsync(dkey, stream));
  PetscCall(RestoreCSR(A, &csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Host memory for the CSRs of G and G^T, which their Mats reference (PETSc's AIJCUSPARSE keeps a host CSR and builds
   its device CSR from it). At 128^3 on an H100 (bench/README.md) what these ~600 MB cost is the first touch of their
   pages, more than the PCIe copies: so a large array is 2 MB-aligned and advised as transparent huge pages (one page
   fault per 2 MB instead of 512; a no-op where they are disabled), and
   - a pattern array (written by our copy down, read by PETSc's copy up) is page-locked with cudaHostRegister(), so
     that both copies run at the link's speed without the driver's bounce buffer (if locking fails, it stays pageable:
     slower, same result);
   - a value array is never written here: PETSc's upload reads it once (and the device values overwrite what it
     brought before anything reads them: the Mats are marked device-current, and PETSc copies values down on demand),
     and untouched huge-page memory reads as the kernel's shared huge zero page.
   Small arrays come from PetscMalloc(): there the rounding to 2 MB would cost more than it saves.
*/
static PetscErrorCode HostArrayAlloc(size_t bytes, PetscBool lock, HostArray *h)
{
  const size_t huge = (size_t)2 << 20;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(h, sizeof(*h)));
  if (bytes < huge) {
    PetscCall(PetscMalloc(PetscMax(bytes, 1), &h->p));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  h->len = (bytes + huge - 1) / huge * huge;
  PetscCheck(!posix_memalign(&h->p, huge, h->len), PETSC_COMM_SELF, PETSC_ERR_MEM, "PCAFSAI: cannot allocate %zu bytes of host memory for G and G^T", h->len);
#if defined(MADV_HUGEPAGE)
  (void)madvise(h->p, h->len, MADV_HUGEPAGE); /* advice only */
#endif
  if (lock) {
    const cudaError_t err = cudaHostRegister(h->p, h->len, cudaHostRegisterDefault);
    if (err == cudaSuccess) h->registered = PETSC_TRUE;
    else {
      (void)cudaGetLastError(); /* not sticky: clear it */
      PetscCall(PetscInfo(NULL, "PCAFSAI: host memory not page-locked (%s); G and G^T are copied through pageable memory\n", cudaGetErrorString(err)));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HostArrayFree(HostArray *h)
{
  PetscFunctionBegin;
  if (h->registered) PetscCallCUDA(cudaHostUnregister(h->p));
  if (h->len) free(h->p);
  else PetscCall(PetscFree(h->p));
  PetscCall(PetscMemzero(h, sizeof(*h)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G's pattern copied to the host once (hi[0], hj[0]), for its Mat or the caller; the copy is queued on stream (the caller synchronizes). */
static PetscErrorCode HostPattern(AFSAIDevice D, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (D->hi[0].p) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(HostArrayAlloc(sizeof(PetscInt) * (D->n + 1), PETSC_TRUE, &D->hi[0]));
  PetscCall(HostArrayAlloc(sizeof(PetscInt) * D->nnz, PETSC_TRUE, &D->hj[0]));
  PetscCallCUDA(cudaMemcpyAsync(D->hi[0].p, D->gi, sizeof(int) * (D->n + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(D->hj[0].p, D->gj, sizeof(int) * D->nnz, cudaMemcpyDeviceToHost, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   G and G^T as MATSEQAIJCUSPARSE on a new pattern: G^T's pattern on the device (tperm kept for the values), both
   patterns to the host once, the two Mats referencing the host arrays, and their device CSRs, which PETSc builds
   from the host arrays (its AIJCUSPARSE offers no way to adopt device arrays); their values are written afterwards.
*/
static PetscErrorCode CreateFactors(AFSAIDevice D, cudaStream_t stream, Mat *G, Mat *Gt)
{
  const PetscInt  n = D->n, nnz = D->nnz;
  int            *count, *ti, *tj, *keys, *idx, bits = 1;
  const PetscInt *di, *dj;
  PetscBool       userinode;

  PetscFunctionBegin;
  PetscCheck(D->r0 == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCAFSAI: square G and G^T are assembled from a search of all rows only");
  PetscCall(PetscLogEventBegin(SFPC_AFSAIGtPattern, 0, 0, 0, 0));
  PetscCallCUDA(cudaMalloc(&D->tperm, sizeof(int) * PetscMax(nnz, 1)));
  PetscCallCUDA(cudaMallocAsync(&count, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&ti, sizeof(int) * (n + 1), stream));
  PetscCallCUDA(cudaMallocAsync(&tj, sizeof(int) * PetscMax(nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&keys, sizeof(int) * PetscMax(nnz, 1), stream));
  PetscCallCUDA(cudaMallocAsync(&idx, sizeof(int) * PetscMax(nnz, 1), stream));
  PetscCallCUDA(cudaMemsetAsync(count, 0, sizeof(int) * (n + 1), stream));
  ColumnCounts<<<sfpc::LaunchBlocks(nnz, 256), 256, 0, stream>>>((int)nnz, D->gj, count);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, count, ti, (int)n + 1, stream); }));
  /* a radix sort is stable: the entries of a column keep G's row order, so G^T's rows come out sorted */
  Iota<<<sfpc::LaunchBlocks(nnz, 256), 256, 0, stream>>>((int)nnz, idx);
  PetscCallCUDA(cudaGetLastError());
  while ((1 << bits) < n) bits++;
  PetscCall(sfpc::CubCall(stream, [&](void *tmp, size_t &bytes) { return cub::DeviceRadixSort::SortPairs(tmp, bytes, D->gj, keys, idx, D->tperm, (int)nnz, 0, bits, stream); }));
  TransposeColumns<<<sfpc::LaunchBlocks(nnz, 256), 256, 0, stream>>>((int)nnz, D->tperm, D->ci, tj);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the event's time is the device's */
  PetscCall(PetscLogEventEnd(SFPC_AFSAIGtPattern, 0, 0, 0, 0));

  PetscCall(PetscLogEventBegin(SFPC_AFSAIHostCSR, 0, 0, 0, 0));
  PetscCall(HostPattern(D, stream));
  PetscCall(HostArrayAlloc(sizeof(PetscInt) * (n + 1), PETSC_TRUE, &D->hi[1]));
  PetscCall(HostArrayAlloc(sizeof(PetscInt) * nnz, PETSC_TRUE, &D->hj[1]));
  PetscCallCUDA(cudaMemcpyAsync(D->hi[1].p, ti, sizeof(int) * (n + 1), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(D->hj[1].p, tj, sizeof(int) * nnz, cudaMemcpyDeviceToHost, stream));
  for (int t = 0; t < 2; t++) PetscCall(HostArrayAlloc(sizeof(PetscScalar) * nnz, PETSC_FALSE, &D->ha[t])); /* never written: see HostArrayAlloc() */
  PetscCallCUDA(cudaFreeAsync(idx, stream));
  PetscCallCUDA(cudaFreeAsync(keys, stream));
  PetscCallCUDA(cudaFreeAsync(tj, stream));
  PetscCallCUDA(cudaFreeAsync(ti, stream));
  PetscCallCUDA(cudaFreeAsync(count, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogEventEnd(SFPC_AFSAIHostCSR, 0, 0, 0, 0));

  PetscCall(MatDestroy(G));
  PetscCall(MatDestroy(Gt));
  PetscCall(PetscLogEventBegin(SFPC_AFSAIMats, 0, 0, 0, 0));
  /*
     MatCreateSeqAIJWithArrays() assembles at once, so its search for inodes (rows with the same pattern as the next),
     a pass over all rows that took about half of creating these Mats, cannot be switched off by MatSetOption(); it
     reads -mat_no_inode at creation. No two rows of G (or of G^T) share a pattern, since each holds its own diagonal
     at its end (start), and their products run in cuSPARSE: the search can only cost, so it is skipped for these two
     Mats (unless the user set the option either way).
  */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_no_inode", &userinode));
  if (!userinode) PetscCall(PetscOptionsSetValue(NULL, "-mat_no_inode", "true"));
  { /* the option is cleared again whether or not the creation succeeds: it must not outlive these two Mats */
    PetscErrorCode ierr = MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, (PetscInt *)D->hi[0].p, (PetscInt *)D->hj[0].p, (PetscScalar *)D->ha[0].p, G);

    if (!ierr) ierr = MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, (PetscInt *)D->hi[1].p, (PetscInt *)D->hj[1].p, (PetscScalar *)D->ha[1].p, Gt);
    if (!userinode) PetscCall(PetscOptionsClearValue(NULL, "-mat_no_inode"));
    PetscCall(ierr);
  }
  PetscCall(MatConvert(*G, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, G));
  PetscCall(MatConvert(*Gt, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, Gt));
  PetscCall(PetscLogEventEnd(SFPC_AFSAIMats, 0, 0, 0, 0));

  PetscCall(PetscLogEventBegin(SFPC_AFSAIDeviceCSR, 0, 0, 0, 0));
  /* the device CSRs from the host arrays (PETSc's upload); the values are then written with GetArrayWrite */
  PetscCall(MatSeqAIJCUSPARSEGetIJ(*G, PETSC_FALSE, &di, &dj));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(*G, PETSC_FALSE, &di, &dj));
  PetscCall(MatSeqAIJCUSPARSEGetIJ(*Gt, PETSC_FALSE, &di, &dj));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(*Gt, PETSC_FALSE, &di, &dj));
  PetscCall(PetscLogEventEnd(SFPC_AFSAIDeviceCSR, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G and G^T: created on a new pattern, their device values written from ga always (marked current there: nothing is copied up). */
PetscErrorCode AFSAIAssemble_Device(AFSAIDevice D, PetscBool newpattern, Mat *G, Mat *Gt)
{
  cudaStream_t stream;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  if (newpattern) PetscCall(CreateFactors(D, stream, G, Gt));
  PetscCall(PetscLogEventBegin(SFPC_AFSAIFill, 0, 0, 0, 0));
  PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(*G, &a));
  PetscCallCUDA(cudaMemcpyAsync(a, D->ga, sizeof(PetscScalar) * D->nnz, cudaMemcpyDeviceToDevice, stream));
  PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(*G, &a));
  PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(*Gt, &a));
  TransposeValues<<<sfpc::LaunchBlocks(D->nnz, 256), 256, 0, stream>>>((int)D->nnz, D->tperm, D->ga, a);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(*Gt, &a));
  PetscCallCUDA(cudaStreamSynchronize(stream)); /* the phase's time is the device's */
  PetscCall(PetscLogEventEnd(SFPC_AFSAIFill, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* G's pattern on the host (rows r0 .. r1 - 1 of the search, columns in A's numbering) and its values on the device; owned by D. */
PetscErrorCode AFSAIDeviceGetFactor(AFSAIDevice D, const PetscInt **gi, const PetscInt **gj, const PetscScalar **ga)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(HostPattern(D, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  *gi = (const PetscInt *)D->hi[0].p;
  *gj = (const PetscInt *)D->hj[0].p;
  *ga = D->ga;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AFSAIDeviceNnz(AFSAIDevice D, PetscInt *nnz)
{
  PetscFunctionBegin;
  *nnz = D ? D->nnz : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AFSAIDeviceDestroy(AFSAIDevice *dev)
{
  AFSAIDevice D = *dev;

  PetscFunctionBegin;
  if (!D) PetscFunctionReturn(PETSC_SUCCESS);
  {
    void *arrays[] = {D->gi, D->gj, D->ci, D->ga, D->tperm};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
      if (arrays[k]) PetscCallCUDA(cudaFree(arrays[k]));
  }
  for (int t = 0; t < 2; t++) { /* after the Mats referencing them (AFSAIDestroyFactor() destroys those first) */
    PetscCall(HostArrayFree(&D->hi[t]));
    PetscCall(HostArrayFree(&D->hj[t]));
    PetscCall(HostArrayFree(&D->ha[t]));
  }
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
