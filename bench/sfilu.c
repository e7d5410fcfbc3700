static char help[] = "Benchmark: SFPC's sfilu against PETSc's ILU(0) on aijcusparse (cuSPARSE csrilu02 + SpSV),\n"
                     "side by side in one run on one GPU, with one SpMV of the same matrix as the yardstick.\n"
                     "Times set-up (analysis + numeric factorization), refactorization (numeric only), one apply\n"
                     "(L and U solves) and a whole KSPSolve to -ksp_rtol (1e-8). Each time is the median of -repeat\n"
                     "runs after -warmup runs; device work is timed with CUDA events, set-ups (which include host\n"
                     "work) with the wall clock around a device synchronization.\n"
                     "Options: problem options of tests/problems.c, -case <name>, -json <file> (append records).\n";

#include <petscksp.h>
#include <petscdevice_cuda.h>
#include <sfpc.h>
#include "../tests/problems.h"
#include "timing.h"

typedef struct {
  const char *name;
  PCType      pctype;
  const char *solver; /* MatSolverType, or NULL */
  double      setup, refactor, apply, solve;
  PetscInt    its;
} Method;

/* An operator y = op(x) with its object, for TimeDeviceOp(). */
typedef struct {
  PetscObject obj;
  Vec         x, y;
} Operands;

static PetscErrorCode ApplyOp(void *ctx)
{
  Operands *o = (Operands *)ctx;
  return PCApply((PC)o->obj, o->x, o->y);
}

static PetscErrorCode SpMVOp(void *ctx)
{
  Operands *o = (Operands *)ctx;
  return MatMult((Mat)o->obj, o->x, o->y);
}
static PetscErrorCode MakeKSP(Mat A, const Method *m, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, 10000));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, m->pctype));
  if (m->solver) PetscCall(PCFactorSetMatSolverType(pc, m->solver));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeMethod(Mat A, Vec b, Vec x, Method *m, int warmup, int repeat)
{
  double *t;
  KSP     ksp;
  PC      pc;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(repeat, &t));
  /* set-up from scratch: a new PC each time */
  for (int r = -warmup; r < repeat; r++) {
    double w0, w1;
    PetscCall(MakeKSP(A, m, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(WallNow(&w0));
    PetscCall(PCSetUp(pc));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
    PetscCall(KSPDestroy(&ksp));
  }
  m->setup = Median(t, repeat);
  /* refactorization: values change, pattern kept (scaling by 2 and back keeps the problem) */
  PetscCall(MakeKSP(A, m, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetUp(pc));
  for (int r = -warmup; r < repeat; r++) {
    double w0, w1;
    PetscCall(MatScale(A, (r % 2) ? 0.5 : 2.0));
    PetscCall(WallNow(&w0));
    PetscCall(PCSetUp(pc));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
  }
  if ((warmup + repeat) % 2) PetscCall(MatScale(A, 0.5));
  PetscCall(PCSetUp(pc));
  m->refactor = Median(t, repeat);
  {
    Operands o = {(PetscObject)pc, b, x};
    PetscCall(TimeDeviceOp(ApplyOp, &o, warmup, repeat, &m->apply));
  }
  /* whole solve, from a zero guess, preconditioner already set up */
  for (int r = -PetscMin(warmup, 1); r < PetscMax(repeat / 4, 3); r++) {
    double w0, w1;
    PetscCall(VecZeroEntries(x));
    PetscCall(WallNow(&w0));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(WallNow(&w1));
    if (r >= 0) t[r] = w1 - w0;
  }
  m->solve = Median(t, PetscMax(repeat / 4, 3));
  PetscCall(KSPGetIterationNumber(ksp, &m->its));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat            A;
  Vec            x, b;
  PetscInt       n, nnz, warmup = 3, repeat = 20;
  char           casename[128], json[PETSC_MAX_PATH_LEN] = "";
  BenchProvenance pv;
  Method         m[2] = {{"petsc-ilu-cusparse", PCILU, MATSOLVERCUSPARSE, 0, 0, 0, 0, 0}, {"sfpc-sfilu", "sfilu", NULL, 0, 0, 0, 0, 0}};
  double         spmv = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SFPCInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-warmup", &warmup, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-json", json, sizeof(json), NULL));
  PetscCall(BenchProblemCreate(&A, &x, &b, casename, sizeof(casename), &n, &nnz));

  {
    Operands o = {(PetscObject)A, x, b};
    PetscCall(TimeDeviceOp(SpMVOp, &o, (int)warmup, (int)repeat, &spmv));
  }
  PetscCall(MatMult(A, x, b));
  for (int k = 0; k < 2; k++) PetscCall(TimeMethod(A, b, x, &m[k], (int)warmup, (int)repeat));

  PetscCall(BenchProvenanceGet(argc, argv, &pv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %s; SpMV %.4f ms\n", casename, n, nnz, pv.gpu, 1e3 * spmv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12s %12s %12s %12s %6s %10s\n", "method", "setup ms", "refactor ms", "apply ms", "solve ms", "its", "apply/SpMV"));
  for (int k = 0; k < 2; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12.3f %12.3f %12.4f %12.2f %6" PetscInt_FMT " %10.2f\n", m[k].name, 1e3 * m[k].setup, 1e3 * m[k].refactor, 1e3 * m[k].apply, 1e3 * m[k].solve, m[k].its, m[k].apply / spmv));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %12.2f %12.2f %12.2f %12.2f   (baseline time / sfpc time)\n", "speedup", m[0].setup / m[1].setup, m[0].refactor / m[1].refactor, m[0].apply / m[1].apply, m[0].solve / m[1].solve));
  if (json[0]) {
    FILE       *f;
    const char *metric[] = {"setup_s", "refactor_s", "apply_s", "kspsolve_s"};
    double      sv[4]    = {m[1].setup, m[1].refactor, m[1].apply, m[1].solve};
    double      bv[4]    = {m[0].setup, m[0].refactor, m[0].apply, m[0].solve};

    PetscCall(PetscFOpen(PETSC_COMM_WORLD, json, "a", &f));
    for (int k = 0; k < 4; k++)
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, f, "{\"benchmark\": \"sfilu\", \"case\": \"%s\", \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt_FMT ", \"metric\": \"%s\", \"sfpc\": %.6e, \"baseline\": %.6e, \"baseline_name\": \"%s\", \"ratio\": %.4f, \"spmv_s\": %.6e, \"its_sfpc\": %" PetscInt_FMT ", \"its_baseline\": %" PetscInt_FMT ", \"gpu\": \"%s\", \"petsc\": \"%d.%d.%d\", \"cuda_runtime\": %d, \"command\": \"%s\", \"date\": \"%s\"}\n", casename, n, nnz, metric[k], sv[k], bv[k], m[0].name, bv[k] / sv[k], spmv, m[1].its, m[0].its, pv.gpu, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, pv.cudart, pv.cmd, pv.date));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, f));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
