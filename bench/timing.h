/* Helpers shared by SFPC's benchmarks: the problem, medians, wall clock after a device sync, CUDA-event timing, provenance,
   GAMG's sparse products on the host. */
#pragma once

#include <petscmat.h>
#include "../tests/problems.h"
#include <petscdevice_cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int CompareDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median of t[0..n) (sorts t). */
static inline double Median(double *t, int n)
{
  qsort(t, n, sizeof(double), CompareDouble);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Wall-clock seconds after all device work has finished. */
static inline PetscErrorCode WallNow(double *t)
{
  PetscLogDouble w;

  PetscFunctionBegin;
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&w));
  *t = w;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Median GPU time of op(ctx) by CUDA events on PETSc's stream, after warmup runs. */
typedef PetscErrorCode (*DeviceOp)(void *);
static inline PetscErrorCode TimeDeviceOp(DeviceOp op, void *ctx, int warmup, int repeat, double *median)
{
  double     *t;
  cudaEvent_t e0, e1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(repeat, &t));
  PetscCallCUDA(cudaEventCreate(&e0));
  PetscCallCUDA(cudaEventCreate(&e1));
  for (int r = -warmup; r < repeat; r++) {
    float ms;
    PetscCallCUDA(cudaEventRecord(e0, PetscDefaultCudaStream));
    PetscCall(op(ctx));
    PetscCallCUDA(cudaEventRecord(e1, PetscDefaultCudaStream));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t[r] = 1e-3 * ms;
  }
  *median = Median(t, repeat);
  PetscCallCUDA(cudaEventDestroy(e0));
  PetscCallCUDA(cudaEventDestroy(e1));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* JSON string body with quotes, backslashes and control characters escaped. */
static inline void JSONEscape(const char *in, char *out, size_t len)
{
  size_t o = 0;

  for (; *in && o + 7 < len; in++) {
    const unsigned char c = (unsigned char)*in;

    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c < 0x20) o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
    else out[o++] = (char)c;
  }
  out[o] = 0;
}

/* What every JSON record repeats so that each line stands alone: the GPU ("none" without one), the command line (JSON-escaped), the date, the CUDA runtime. */
typedef struct {
  char gpu[256], cmd[4096], date[64];
  int  cudart;
} BenchProvenance;

static inline PetscErrorCode BenchProvenanceGet(int argc, char **argv, BenchProvenance *p)
{
  struct cudaDeviceProp prop;
  int                   dev;
  char                  raw[4096] = "";
  time_t                now = time(NULL);

  PetscFunctionBegin;
  PetscCallCUDA(cudaRuntimeGetVersion(&p->cudart));
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) JSONEscape(prop.name, p->gpu, sizeof(p->gpu));
  else { /* a host-only run (-mat_type aij) on a machine without a GPU */
    (void)cudaGetLastError();
    PetscCall(PetscStrncpy(p->gpu, "none", sizeof(p->gpu)));
  }
  for (int a = 0; a < argc; a++) {
    PetscCall(PetscStrlcat(raw, a ? " " : "", sizeof(raw)));
    PetscCall(PetscStrlcat(raw, argv[a], sizeof(raw)));
  }
  JSONEscape(raw, p->cmd, sizeof(p->cmd));
  strftime(p->date, sizeof(p->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The benchmark's matrix, as aijcusparse, from the options of tests/problems.c; its name (-case, or
   the problem's description); rows and stored entries; a random x and b = A x (device vectors).
*/
static inline PetscErrorCode BenchProblemCreate(Mat *A, Vec *x, Vec *b, char casename[], size_t len, PetscInt *n, PetscInt *nnz)
{
  char        desc[256];
  MatInfo     info;
  PetscRandom rnd;

  PetscFunctionBegin;
  *n = *nnz   = 0;
  casename[0] = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", casename, len, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "aijcusparse"));
  PetscCall(TestProblemCreate(PETSC_COMM_WORLD, A, desc, sizeof(desc)));
  if (!casename[0]) PetscCall(PetscStrncpy(casename, desc, len));
  PetscCall(MatGetSize(*A, n, NULL));
  PetscCall(MatGetInfo(*A, MAT_LOCAL, &info));
  *nnz = (PetscInt)info.nz_used;
  PetscCall(MatCreateVecs(*A, x, b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(VecSetRandom(*x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatMult(*A, *x, *b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Where GAMG's sparse matrix products run, for every GAMG the benchmark builds: on the host unless -gamg_gpu_products
   (PETSc 3.26.1 on GPU matrices: its Galerkin PtAP hung in cuSPARSE's SpGEMM on an H100, and on an H200 in a second
   GAMG set-up in one process (bench/README.md, sfdilu, "GAMG's Galerkin products on the GPU"); on 4 H200 ranks the
   prolongator smoothing's MatMatMult() failed in MatProductSymbolic_SeqAIJCUSPARSE_SeqAIJCUSPARSE() (bench/README.md,
   sfdilu and MPI scaling), and on one H200 Q1 elasticity at 10^6 rows ran out of device memory there). Each
   product takes its own option: -matmatmult_/-matptap_backend_cpu for MatMatMult()/MatPtAP() (which GAMG calls),
   -mat_product_algorithm_backend_cpu for products made through MatProductCreate() (none in GAMG's default set-up, where
   PETSc reports it unused; kept for GAMG options that build products that way). With -gamg_gpu_products none is set:
   the products stay where PETSc puts them (on the GPU), as an application gets them.
*/
static inline PetscErrorCode BenchGAMGPlaceProducts(void)
{
  PetscBool gpu = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg_gpu_products", &gpu, NULL));
  if (gpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsSetValue(NULL, "-matmatmult_backend_cpu", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-matptap_backend_cpu", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_product_algorithm_backend_cpu", "1"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
