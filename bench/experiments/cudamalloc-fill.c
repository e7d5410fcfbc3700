/*
   Experiment (bench/README.md, sfdilu, "GAMG's Galerkin products on the GPU", the hang): does the second GAMG set-up's
   hang in cusparseSpGEMM_compute() depend on what freshly allocated device memory holds? A first set-up gets pages
   the driver has zeroed, a second one memory the first freed. Preloaded, this library fills every buffer that
   cudaMalloc() or cudaMallocAsync() returns with the byte FILL (default 0; FILL=-1 fills nothing) and synchronizes the
   device after each cudaMalloc(); FILL_LOG=1 prints each allocation. Not part of the library; it builds on its own:
     gcc -O2 -shared -fPIC -o build/libfill.so bench/experiments/cudamalloc-fill.c -ldl
     bench/gpu-run bash bench/experiments/gamg-hang-fill.sh
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

typedef int   cudaError_t; /* the runtime's types as the ABI sees them: no CUDA headers, no link to libcudart */
typedef void *cudaStream_t;

static long allocs, asyncs;

static int FillByte(void)
{
  const char *v = getenv("FILL");
  return v ? atoi(v) : 0;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
  static cudaError_t (*real)(void **, size_t);
  static cudaError_t (*fill)(void *, int, size_t);
  static cudaError_t (*sync)(void);
  cudaError_t e;

  if (!real) {
    real = (cudaError_t (*)(void **, size_t))dlsym(RTLD_NEXT, "cudaMalloc");
    fill = (cudaError_t (*)(void *, int, size_t))dlsym(RTLD_NEXT, "cudaMemset");
    sync = (cudaError_t (*)(void))dlsym(RTLD_NEXT, "cudaDeviceSynchronize");
  }
  e = real(p, n);
  if (!e && n) {
    if (FillByte() >= 0) fill(*p, FillByte(), n);
    sync();
    allocs++;
    if (getenv("FILL_LOG")) fprintf(stderr, "alloc %ld: %zu bytes at %p\n", allocs, n, *p);
  }
  return e;
}

cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
  static cudaError_t (*real)(void **, size_t, cudaStream_t);
  static cudaError_t (*fill)(void *, int, size_t, cudaStream_t);
  cudaError_t e;

  if (!real) {
    real = (cudaError_t (*)(void **, size_t, cudaStream_t))dlsym(RTLD_NEXT, "cudaMallocAsync");
    fill = (cudaError_t (*)(void *, int, size_t, cudaStream_t))dlsym(RTLD_NEXT, "cudaMemsetAsync");
  }
  e = real(p, n, s);
  if (!e && n) {
    if (FillByte() >= 0) fill(*p, FillByte(), n, s);
    asyncs++;
  }
  return e;
}

__attribute__((destructor)) static void Report(void)
{
  if (allocs || asyncs) fprintf(stderr, "fill: %ld cudaMalloc and %ld cudaMallocAsync buffers, byte %d\n", allocs, asyncs, FillByte());
}
