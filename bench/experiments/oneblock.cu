/*
   Experiment (bench/README.md, triangular solves, "One thread block, levels separated by barriers"): a lower-triangular
   solve by one thread block of 1024 threads, the unknowns in shared memory (in place over the right-hand side), the
   levels separated by __syncthreads(), each warp taking the hyb-style tasks (32 slots of row, column, value and the
   head's inverse diagonal) of a level. Not part of the library; it builds on its own:
     nvcc -O3 -arch=sm_90 [-DRING=0|1] [-DDEPTH=d] [-DKT=k] [-DMODE=m] -o oneblock bench/experiments/oneblock.cu -lz
     ./oneblock p7 22 | p27 22 | mtx tests/data/bcsstk16.mtx.gz
   RING=0: each warp's slot of level l + DEPTH - 1 loaded into registers before level l's barrier (DEPTH 1-4);
   MODE=1 skips the reads of the unknowns, MODE=2 runs the barriers alone.
   RING=1: the slots of level l + DEPTH - 1 (KT tasks a warp) copied into shared memory by cp.async, waited for
   by cp.async.wait_group, so that no barrier waits on them.
   Prints the median solve time of 20 after 5 warm-ups, the loop's SM cycles, and the error against a host solve.
*/
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <zlib.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

struct CSR { int n; std::vector<int> i, j; std::vector<double> a; };

static CSR Stencil(int m, int pts)
{
  CSR L; L.n = m * m * m; L.i.push_back(0);
  for (int z = 0; z < m; z++) for (int y = 0; y < m; y++) for (int x = 0; x < m; x++) {
    int r = (z * m + y) * m + x;
    for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) {
      int nz = abs(dz) + abs(dy) + abs(dx);
      if (pts == 7 && nz > 1) continue;
      int X = x + dx, Y = y + dy, Z = z + dz;
      if (X < 0 || Y < 0 || Z < 0 || X >= m || Y >= m || Z >= m) continue;
      int c = (Z * m + Y) * m + X;
      if (c > r) continue;
      L.j.push_back(c); L.a.push_back(c == r ? (pts == 7 ? 6.0 : 26.0) : -1.0 + 0.01 * ((r + c) % 7));
    }
    L.i.push_back((int)L.j.size());
  }
  return L;
}

static CSR Mtx(const char *f)
{
  gzFile g = gzopen(f, "r"); char line[512]; int m, n, nz;
  do gzgets(g, line, sizeof line); while (line[0] == '%');
  sscanf(line, "%d %d %d", &m, &n, &nz);
  std::vector<std::vector<std::pair<int, double>>> rows(n);
  for (int k = 0; k < nz; k++) { int r, c; double v; gzgets(g, line, sizeof line); sscanf(line, "%d %d %lf", &r, &c, &v); r--; c--; if (c > r) std::swap(r, c); rows[r].push_back({c, v}); }
  gzclose(g);
  CSR L; L.n = n; L.i.push_back(0);
  for (int r = 0; r < n; r++) { std::sort(rows[r].begin(), rows[r].end()); for (auto &p : rows[r]) { L.j.push_back(p.first); L.a.push_back(p.first == r ? fabs(p.second) + 1 : p.second * 1e-3); } L.i.push_back((int)L.j.size()); }
  return L;
}

static int Cls(int d) { return d <= 1 ? 1 : d <= 2 ? 2 : d <= 4 ? 4 : d <= 8 ? 8 : d <= 16 ? 16 : 32; }

struct Sched { int nlev, ntasks; std::vector<int> lt, row, col; std::vector<double> val; std::vector<unsigned char> vec; };

static Sched Build(const CSR &L)
{
  int n = L.n; std::vector<int> lev(n);
  Sched S; S.nlev = 0;
  for (int r = 0; r < n; r++) { int l = 0; for (int k = L.i[r]; k < L.i[r + 1] - 1; k++) l = std::max(l, lev[L.j[k]] + 1); lev[r] = l; S.nlev = std::max(S.nlev, l + 1); }
  std::vector<std::vector<int>> byl(S.nlev);
  for (int r = 0; r < n; r++) byl[lev[r]].push_back(r);
  for (int l = 0; l < S.nlev; l++) {
    S.lt.push_back((int)S.vec.size());
    for (int s = 1; s <= 32; s *= 2) {
      std::vector<int> rs; for (int r : byl[l]) if (Cls(L.i[r + 1] - 1 - L.i[r]) == s) rs.push_back(r);
      for (size_t q = 0; q < rs.size(); q += 32 / s) {
        S.vec.push_back((unsigned char)s);
        for (int lane = 0; lane < 32; lane++) {
          size_t p = q + lane / s; int t = lane % s, r = -1, c = -1; double v = 0;
          if (p < rs.size()) { r = rs[p]; int k = L.i[r] + t; if (k < L.i[r + 1] - 1) { c = L.j[k]; v = L.a[k]; } }
          S.row.push_back(r); S.col.push_back(c); S.val.push_back(v);
        }
      }
    }
  }
  S.ntasks = (int)S.vec.size(); S.lt.push_back(S.ntasks);
  return S;
}

__device__ long long printf_clock;
struct Slot { int s, r, c; double v, di; };

template <bool GLOBALX>
__device__ __forceinline__ double Xget(const double *xs, const double *xg, int ns, int c)
{
  if (!GLOBALX) return xs[c];
  return c < ns ? xs[c] : __ldcg(xg + c);
}

__device__ __forceinline__ Slot Load(int w, int wend, int lane, const unsigned char *vec, const int *row, const int *col, const double *val, const double *hdi)
{
  Slot s; s.s = 1; s.r = -1; s.c = -1; s.v = 0; s.di = 0;
  if (w < wend) { long k = 32L * w + lane; s.s = vec[w]; s.r = row[k]; s.c = col[k]; s.v = val[k]; s.di = hdi[k]; }
  return s;
}

#ifndef RING
#define RING 1
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef DEPTH
#define DEPTH 2
#endif
#ifndef KT
#define KT 2
#endif
struct Ring { int r, c, v4; int pad; double v, di; }; /* 32 bytes a slot */

#if !RING

template <bool GLOBALX>
__global__ void __launch_bounds__(1024, 1) OneBlock(int n, int ns, int nlev, const int *glt, const unsigned char *vec, const int *row, const int *col, const double *val, const double *hdi, const int *ai, const int *aj, const double *a, const double *b, double *x, double *xg)
{
  extern __shared__ double xs[];
  int *lt = (int *)(xs + ns);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  for (int l = threadIdx.x; l <= nlev; l += blockDim.x) lt[l] = glt[l];
  for (int r = threadIdx.x; r < n; r += blockDim.x) { if (!GLOBALX || r < ns) xs[r] = b[r]; else xg[r] = b[r]; }
  __syncthreads();
  Slot ring[DEPTH];
#pragma unroll
  for (int d = 0; d < DEPTH; d++) ring[d] = d < nlev ? Load(lt[d] + warp, lt[d + 1], lane, vec, row, col, val, hdi) : Load(0, 0, lane, vec, row, col, val, hdi);
  long long t0 = clock64();
  if (MODE == 2) { for (int l = 0; l < nlev; l++) __syncthreads(); }
  else
  for (int l = 0; l < nlev; l++) {
    const int wend = lt[l + 1];
    Slot s = ring[0];
#pragma unroll
    for (int d = 0; d + 1 < DEPTH; d++) ring[d] = ring[d + 1];
    ring[DEPTH - 1] = l + DEPTH < nlev ? Load(lt[l + DEPTH] + warp, lt[l + DEPTH + 1], lane, vec, row, col, val, hdi) : Load(0, 0, lane, vec, row, col, val, hdi);
    for (int w = lt[l] + warp; w < wend; w += 32) {
      if (w != lt[l] + warp) s = Load(w, wend, lane, vec, row, col, val, hdi);
      double sum = s.c >= 0 ? s.v * (MODE == 1 ? 1.0 : Xget<GLOBALX>(xs, xg, ns, s.c)) : 0;
      if (s.s == 32) {
        const int r = __shfl_sync(0xffffffffu, s.r, 0);
        for (int k = ai[r] + 32 + lane; k < ai[r + 1] - 1; k += 32) sum += a[k] * Xget<GLOBALX>(xs, xg, ns, aj[k]);
      }
      for (int o = s.s / 2; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o, s.s);
      if (s.r >= 0 && (lane & (s.s - 1)) == 0) {
        const double v = (Xget<GLOBALX>(xs, xg, ns, s.r) - sum) * s.di;
        if (!GLOBALX || s.r < ns) xs[s.r] = v; else xg[s.r] = v;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) printf_clock = clock64() - t0;
  for (int r = threadIdx.x; r < n; r += blockDim.x) x[r] = Xget<GLOBALX>(xs, xg, ns, r);
}
#else
__device__ __forceinline__ void Cpa(void *s, const void *g, int bytes)
{
  const unsigned a = (unsigned)__cvta_generic_to_shared(s);
  if (bytes == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(g) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(g) : "memory");
}

template <bool GLOBALX>
__global__ void __launch_bounds__(1024, 1) OneBlock(int n, int ns, int nlev, const int *glt, const unsigned char *vec, const int *row, const int *col, const double *val, const double *hdi, const int *ai, const int *aj, const double *a, const double *b, double *x, double *xg)
{
  extern __shared__ double xs[];
  Ring *ring = (Ring *)(xs + ns);                 /* [DEPTH][KT][1024] */
  int  *lt   = (int *)(ring + DEPTH * KT * 1024);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  for (int l = threadIdx.x; l <= nlev; l += blockDim.x) lt[l] = glt[l];
  for (int r = threadIdx.x; r < n; r += blockDim.x) { if (!GLOBALX || r < ns) xs[r] = b[r]; else xg[r] = b[r]; }
  __syncthreads();
  auto issue = [&](int l) {
    if (l < nlev) {
      for (int k = 0; k < KT; k++) {
        const int w = lt[l] + warp + 32 * k;
        if (w < lt[l + 1]) {
          Ring *q = ring + ((l % DEPTH) * KT + k) * 1024 + threadIdx.x;
          const long e = 32L * w + lane;
          Cpa(&q->r, row + e, 4); Cpa(&q->c, col + e, 4); Cpa(&q->v, val + e, 8); Cpa(&q->di, hdi + e, 8);
          Cpa(&q->v4, vec + (w & ~3), 4);
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  long long t0 = clock64();
  for (int d = 0; d + 1 < DEPTH; d++) issue(d);
  for (int l = 0; l < nlev; l++) {
    issue(l + DEPTH - 1);
    asm volatile("cp.async.wait_group %0;" ::"n"(DEPTH - 1) : "memory");
    const int wend = lt[l + 1];
    for (int w = lt[l] + warp, k = 0; w < wend; w += 32, k++) {
      int s, r, c; double v, di;
      if (k < KT) {
        const Ring *q = ring + ((l % DEPTH) * KT + k) * 1024 + threadIdx.x;
        s = (q->v4 >> (8 * (w & 3))) & 0xff; r = q->r; c = q->c; v = q->v; di = q->di;
      } else {
        const long e = 32L * w + lane;
        s = vec[w]; r = row[e]; c = col[e]; v = val[e]; di = hdi[e];
      }
      double sum = c >= 0 ? v * (MODE == 1 ? 1.0 : Xget<GLOBALX>(xs, xg, ns, c)) : 0;
      if (s == 32) {
        const int rr = __shfl_sync(0xffffffffu, r, 0);
        for (int kk = ai[rr] + 32 + lane; kk < ai[rr + 1] - 1; kk += 32) sum += a[kk] * Xget<GLOBALX>(xs, xg, ns, aj[kk]);
      }
      for (int o = s / 2; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o, s);
      if (r >= 0 && (lane & (s - 1)) == 0) {
        const double xv = (Xget<GLOBALX>(xs, xg, ns, r) - sum) * di;
        if (!GLOBALX || r < ns) xs[r] = xv; else xg[r] = xv;
      }
    }
    __syncthreads();
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  if (threadIdx.x == 0) printf_clock = clock64() - t0;
  for (int r = threadIdx.x; r < n; r += blockDim.x) x[r] = Xget<GLOBALX>(xs, xg, ns, r);
}

#endif

int main(int argc, char **argv)
{
  const char *what = argv[1];
  CSR L = !strcmp(what, "p7") ? Stencil(atoi(argv[2]), 7) : !strcmp(what, "p27") ? Stencil(atoi(argv[2]), 27) : Mtx(argv[2]);
  const int n = L.n, nnz = (int)L.j.size();
  Sched S = Build(L);
  std::vector<double> b(n), dinv(n), xh(n), xd(n);
  for (int r = 0; r < n; r++) { b[r] = 1.0 + (r % 13) * 0.1; dinv[r] = 1.0 / L.a[L.i[r + 1] - 1]; }
  for (int r = 0; r < n; r++) { double s = b[r]; for (int k = L.i[r]; k < L.i[r + 1] - 1; k++) s -= L.a[k] * xh[L.j[k]]; xh[r] = s * dinv[r]; }
  std::vector<double> hdi(S.row.size(), 0.0);
  for (size_t k = 0; k < S.row.size(); k++) if (S.row[k] >= 0) hdi[k] = dinv[S.row[k]];
  double *dhdi; CK(cudaMalloc(&dhdi, 8 * hdi.size())); CK(cudaMemcpy(dhdi, hdi.data(), 8 * hdi.size(), cudaMemcpyHostToDevice));
  int *dlt, *drow, *dcol, *dai, *daj; unsigned char *dvec; double *dval, *da, *ddinv, *db, *dx, *dxg;
  auto up = [](void *d, const void *h, size_t bytes) { CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); };
  CK(cudaMalloc(&dlt, 4 * S.lt.size())); up(dlt, S.lt.data(), 4 * S.lt.size());
  CK(cudaMalloc(&drow, 4 * S.row.size())); up(drow, S.row.data(), 4 * S.row.size());
  CK(cudaMalloc(&dcol, 4 * S.col.size())); up(dcol, S.col.data(), 4 * S.col.size());
  CK(cudaMalloc(&dval, 8 * S.val.size())); up(dval, S.val.data(), 8 * S.val.size());
  CK(cudaMalloc(&dvec, S.vec.size())); up(dvec, S.vec.data(), S.vec.size());
  CK(cudaMalloc(&dai, 4 * (n + 1))); up(dai, L.i.data(), 4 * (n + 1));
  CK(cudaMalloc(&daj, 4 * nnz)); up(daj, L.j.data(), 4 * nnz);
  CK(cudaMalloc(&da, 8 * nnz)); up(da, L.a.data(), 8 * nnz);
  CK(cudaMalloc(&ddinv, 8 * n)); up(ddinv, dinv.data(), 8 * n);
  CK(cudaMalloc(&db, 8 * n)); up(db, b.data(), 8 * n);
  CK(cudaMalloc(&dx, 8 * n)); CK(cudaMalloc(&dxg, 8 * n));
  int maxsm; CK(cudaDeviceGetAttribute(&maxsm, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const size_t fixed = 4 * (S.nlev + 1) + (RING ? sizeof(Ring) * DEPTH * KT * 1024 : 0); const int nsfit = (int)((maxsm - fixed) / 8) - 16;
  const bool globalx = n > nsfit; const int ns = globalx ? nsfit : n;
  const size_t smem = 8 * (size_t)ns + fixed;
  auto k = globalx ? OneBlock<true> : OneBlock<false>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> t;
  for (int it = 0; it < 25; it++) {
    cudaEventRecord(e0);
    k<<<1, 1024, smem>>>(n, ns, S.nlev, dlt, dvec, drow, dcol, dval, dhdi, dai, daj, da, db, dx, dxg);
    cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (it >= 5) t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  long long clk; CK(cudaMemcpyFromSymbol(&clk, printf_clock, sizeof clk));
  int khz; cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  printf("loop cycles %lld (%.1f us at %d MHz), %.0f cycles/level; ", clk, clk / (khz * 1e-3), khz / 1000, (double)clk / S.nlev);
  CK(cudaMemcpy(xd.data(), dx, 8 * n, cudaMemcpyDeviceToHost));
  double err = 0, nx = 0;
  for (int r = 0; r < n; r++) { err = std::max(err, fabs(xd[r] - xh[r])); nx = std::max(nx, fabs(xh[r])); }
  printf("%-8s %-4s n %8d nnz %9d levels %5d tasks %7d smem-rows %6d  one-block L solve %.4f ms (min %.4f)  %.3f us/level  relerr %.1e\n", what, argc > 2 ? argv[2] : "", n, nnz, S.nlev, S.ntasks, ns, t[t.size() / 2], t[0], 1e3 * t[t.size() / 2] / S.nlev, err / nx);
  return 0;
}
