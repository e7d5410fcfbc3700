/*
   Dependency analysis of a triangular part, on the GPU, once per nonzero pattern:
   1. ASAP levels, sync-free: a warp per row, rows taken by ticket in dependency order,
      level(r) = 1 + max level of the rows it depends on.
   2. Rows sorted by (level, length class) and packed into warp tasks: a row with d
      dependencies gets a vector of 1 (d <= 1), 2, 4, 8, 16 or 32 (d > 16) lanes, and a task
      packs 32/vector rows of one bucket (same level, so independent).
   The classes are those of Freire's multirow SpTRSV (shared/seeds/001, section 4.1).
*/
#include <sfpc/private/sfpcimpl.h>
#include <sfpc/private/sfdevice.cuh>
#include <petscdevice_cuda.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

namespace
{
/* Length class of a row with d dependencies, and the vector size of each class. */
__host__ __device__ inline int LengthClass(int d)
{
  return d <= 1 ? (d == 0 ? 0 : 1) : d <= 2 ? 2 : d <= 4 ? 3 : d <= 8 ? 4 : d <= 16 ? 5 : 6;
}
__host__ __device__ inline int ClassVector(int c)
{
  return c <= 1 ? 1 : 1 << (c - 1);
}

template <bool LOWER>
__global__ void LevelKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, int *level, unsigned long long *counter, unsigned long long base)
{
  const int lane = threadIdx.x & 31;
  for (long long t; (t = sfpc::TakeTask(counter, base)) < n;) { /* persistent warps: one row per ticket */
    const int r  = LOWER ? (int)t : n - 1 - (int)t;
    const int kb = LOWER ? ai[r] : ad[r] + 1, ke = LOWER ? ad[r] : ai[r + 1];
    int       lv = 0;
    for (int k = kb + lane; k < ke; k += 32) {
      const int c = aj[k];
      int       l;
      while ((l = cuda::atomic_ref<const int, cuda::thread_scope_device>(level[c]).load(cuda::memory_order_relaxed)) == 0) sfpc::Backoff();
      lv = max(lv, l);
    }
    for (int off = 16; off > 0; off >>= 1) lv = max(lv, __shfl_xor_sync(0xffffffffu, lv, off));
    if (lane == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device>(level[r]).store(lv + 1, cuda::memory_order_relaxed); /* the level is the data: no release needed */
      __threadfence(); /* but push the store out before taking the next row */
    }
  }
}

template <bool LOWER>
__global__ void KeyKernel(int n, const int *__restrict__ ai, const int *__restrict__ ad, const int *__restrict__ level, unsigned *key, int *row)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int d = LOWER ? ad[r] - ai[r] : ai[r + 1] - ad[r] - 1;
  key[r]      = (unsigned)(level[r] - 1) * 8u + (unsigned)LengthClass(d);
  row[r]      = r;
}

/* Per bucket (run of equal keys): how many tasks it needs. */
__global__ void BucketTasksKernel(const int *nruns, const unsigned *rkey, const int *rcount, int *rtasks)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= *nruns) return;
  const int perwarp = 32 / ClassVector((int)(rkey[b] & 7u));
  rtasks[b]         = (rcount[b] + perwarp - 1) / perwarp;
}

__global__ void FillTasksKernel(const int *nruns, const unsigned *rkey, const int *rcount, const int *rrow0, const int *rtask0, int *start, unsigned char *vec)
{
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= *nruns) return;
  const int s = ClassVector((int)(rkey[b] & 7u)), perwarp = 32 / s;
  for (int r = 0, w = rtask0[b]; r < rcount[b]; r += perwarp, w++) {
    start[w] = rrow0[b] + r;
    vec[w]   = (unsigned char)s;
  }
}

/* Scalars the host needs to size and describe the schedule. */
__global__ void ScheduleSizesKernel(const int *nruns, const unsigned *rkey, const int *rtask0, const int *rtasks, int *out)
{
  const int last = *nruns - 1;
  out[0]         = rtask0[last] + rtasks[last]; /* tasks */
  out[1]         = (int)(rkey[last] >> 3) + 1;  /* levels */
  out[2]         = *nruns;
}
} // namespace

/* Builds the schedule of the lower (L) or upper (U) part of T's pattern; counts L's rows by vector. */
PetscErrorCode SFPCScheduleBuild(SFPCTriDevice T, PetscBool lower, SFPCSchedule *S)
{
  const int      n = (int)T->n;
  cudaStream_t   stream;
  unsigned      *key, *skey, *rkey;
  int           *row, *level, *rcount, *rtasks, *rrow0, *rtask0, *nruns, *sizes, hsizes[3];
  void          *tmp      = NULL;
  size_t         tmpbytes = 0, need;
  const int      tpb = 256, nb = (n + tpb - 1) / tpb;
  unsigned long long base;
  int            epoch;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMalloc(&level, sizeof(int) * n));
  PetscCallCUDA(cudaMalloc(&key, sizeof(unsigned) * n));
  PetscCallCUDA(cudaMalloc(&skey, sizeof(unsigned) * n));
  PetscCallCUDA(cudaMalloc(&rkey, sizeof(unsigned) * n));
  PetscCallCUDA(cudaMalloc(&row, sizeof(int) * n));
  PetscCallCUDA(cudaMalloc(&rcount, sizeof(int) * n));
  PetscCallCUDA(cudaMalloc(&rtasks, sizeof(int) * n));
  PetscCallCUDA(cudaMalloc(&rrow0, sizeof(int) * n));
  PetscCallCUDA(cudaMalloc(&rtask0, sizeof(int) * n));
  PetscCallCUDA(cudaMalloc(&nruns, sizeof(int)));
  PetscCallCUDA(cudaMalloc(&sizes, 3 * sizeof(int)));
  PetscCallCUDA(cudaMalloc(&S->order, sizeof(int) * n));
  PetscCallCUDA(cudaMemsetAsync(level, 0, sizeof(int) * n, stream));

  /* 1. levels: one warp per row */
  {
    int blocks;
    PetscCall(SFPCTriDeviceBeginSweep(T, n, &blocks, &epoch, &base));
    if (lower) LevelKernel<true><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, T->i, T->j, T->diag, level, T->counter, base);
    else LevelKernel<false><<<blocks, 32 * SFPC_WARPS_PER_BLOCK, 0, stream>>>(n, T->i, T->j, T->diag, level, T->counter, base);
    PetscCallCUDA(cudaGetLastError());
  }

  /* 2. sort rows by (level, class), then one bucket per distinct key */
  if (lower) KeyKernel<true><<<nb, tpb, 0, stream>>>(n, T->i, T->diag, level, key, row);
  else KeyKernel<false><<<nb, tpb, 0, stream>>>(n, T->i, T->diag, level, key, row);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, need, key, skey, row, S->order, n, 0, 32, stream));
  tmpbytes = PetscMax(tmpbytes, need);
  PetscCallCUDA(cub::DeviceRunLengthEncode::Encode(NULL, need, skey, rkey, rcount, nruns, n, stream));
  tmpbytes = PetscMax(tmpbytes, need);
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, need, rcount, rrow0, n, stream));
  tmpbytes = PetscMax(tmpbytes, need);
  PetscCallCUDA(cudaMalloc(&tmp, tmpbytes));
  need = tmpbytes;
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, need, key, skey, row, S->order, n, 0, 32, stream));
  PetscCallCUDA(cudaMemsetAsync(rcount, 0, sizeof(int) * n, stream));
  need = tmpbytes;
  PetscCallCUDA(cub::DeviceRunLengthEncode::Encode(tmp, need, skey, rkey, rcount, nruns, n, stream));
  /* runs beyond nruns are not written; the scans below run over n entries, so zero them first */
  PetscCallCUDA(cudaMemsetAsync(rtasks, 0, sizeof(int) * n, stream));
  BucketTasksKernel<<<nb, tpb, 0, stream>>>(nruns, rkey, rcount, rtasks);
  PetscCallCUDA(cudaGetLastError());
  need = tmpbytes;
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, need, rtasks, rtask0, n, stream));
  need = tmpbytes;
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, need, rcount, rrow0, n, stream));

  /* 3. tasks: sizes come back to the host once, to allocate and to launch sweeps */
  ScheduleSizesKernel<<<1, 1, 0, stream>>>(nruns, rkey, rtask0, rtasks, sizes);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(hsizes, sizes, 3 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  S->ntasks  = hsizes[0];
  S->nlevels = hsizes[1];
  PetscCall(PetscInfo(NULL, "%s schedule: %d levels, %d warp tasks\n", lower ? "L" : "U", S->nlevels, S->ntasks));
  PetscCallCUDA(cudaMalloc(&S->start, sizeof(int) * (S->ntasks + 1)));
  PetscCallCUDA(cudaMalloc(&S->vec, S->ntasks));
  PetscCallCUDA(cudaMemcpyAsync(S->start + S->ntasks, &n, sizeof(int), cudaMemcpyHostToDevice, stream));
  FillTasksKernel<<<nb, tpb, 0, stream>>>(nruns, rkey, rcount, rrow0, rtask0, S->start, S->vec);
  PetscCallCUDA(cudaGetLastError());

  if (lower) { /* how many rows each vector size serves, for PCView */
    const int hn = hsizes[2];
    int      *hkey, *hcount;
    PetscCall(PetscMalloc2(hn, &hkey, hn, &hcount));
    PetscCallCUDA(cudaMemcpyAsync(hkey, rkey, sizeof(int) * hn, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaMemcpyAsync(hcount, rcount, sizeof(int) * hn, cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    for (int v = 0; v < 6; v++) T->rows_by_vec[v] = 0;
    for (int b = 0; b < hn; b++) {
      int s = ClassVector((int)((unsigned)hkey[b] & 7u)), v = 0;
      while ((1 << v) < s) v++;
      T->rows_by_vec[v] += hcount[b];
    }
    PetscCall(PetscFree2(hkey, hcount));
  }

  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(level));
  PetscCallCUDA(cudaFree(key));
  PetscCallCUDA(cudaFree(skey));
  PetscCallCUDA(cudaFree(rkey));
  PetscCallCUDA(cudaFree(row));
  PetscCallCUDA(cudaFree(rcount));
  PetscCallCUDA(cudaFree(rtasks));
  PetscCallCUDA(cudaFree(rrow0));
  PetscCallCUDA(cudaFree(rtask0));
  PetscCallCUDA(cudaFree(nruns));
  PetscCallCUDA(cudaFree(sizes));
  PetscFunctionReturn(PETSC_SUCCESS);
}
