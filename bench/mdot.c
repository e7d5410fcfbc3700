static char help[] = "Diagnostic: PETSc's VecMDot() against VecDot() taken one vector at a time, on vectors of -vec_type (cuda by\n"
                     "default; standard with -host). Classical Gram-Schmidt in GMRES takes its inner products with VecMDot(), one\n"
                     "call over all the Krylov vectors of the cycle so far, so an error here is an error in every GMRES iteration.\n"
                     "For each count nv of -counts (vectors of length -n, random with a fixed seed), -trials calls: prints the\n"
                     "largest |mdot - dot| / (|x| |y|), how many calls had an entry off by more than 1e-10 of that scale, and which\n"
                     "entries those were (the first 8, over all calls).\n"
                     "Rounding alone gives about 1e-16.\n";

#include <petscvec.h>

int main(int argc, char **argv)
{
  Vec         x, *y;
  PetscRandom rnd;
  const PetscInt defaults[] = {2, 8, 9, 16, 31, 32, 33, 34, 48, 64, 100, 127, 128, 129, 200, 256, 300};
  PetscInt       n = 1000000, trials = 20, counts[64], ncounts = PETSC_STATIC_ARRAY_LENGTH(defaults), nvmax = 0, nbadall = 0;
  PetscBool      host = PETSC_FALSE;
  PetscReal   xn;
  VecType     vtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-trials", &trials, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-host", &host, NULL));
  PetscCall(PetscArraycpy(counts, defaults, ncounts));
  {
    PetscInt  m = PETSC_STATIC_ARRAY_LENGTH(counts);
    PetscBool set;

    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-counts", counts, &m, &set));
    if (set) ncounts = m;
  }
  PetscCheck(n >= 1 && trials >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n and -trials must be positive");
  for (PetscInt c = 0; c < ncounts; c++) {
    PetscCheck(counts[c] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-counts must be positive");
    nvmax = PetscMax(nvmax, counts[c]);
  }
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, n));
  PetscCall(VecSetType(x, host ? VECSTANDARD : VECCUDA));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicateVecs(x, nvmax, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 11));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  for (PetscInt j = 0; j < nvmax; j++) PetscCall(VecSetRandom(y[j], rnd));
  PetscCall(VecNorm(x, NORM_2, &xn));
  PetscCall(VecGetType(x, &vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s vectors of length %" PetscInt_FMT ", %" PetscInt_FMT " calls per count\n", vtype, n, trials));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%6s %14s %12s  %s\n", "nv", "max rel. err.", "bad calls", "bad entries"));
  {
    PetscScalar *dot, *md;
    PetscReal   *scale;
    PetscBool   *wrong;

    PetscCall(PetscMalloc4(nvmax, &dot, nvmax, &md, nvmax, &scale, nvmax, &wrong));
    for (PetscInt j = 0; j < nvmax; j++) {
      PetscReal yn;

      PetscCall(VecDot(x, y[j], &dot[j]));
      PetscCall(VecNorm(y[j], NORM_2, &yn));
      scale[j] = xn * yn;
    }
    for (PetscInt c = 0; c < ncounts; c++) {
      const PetscInt nv   = counts[c];
      PetscReal      emax = 0;
      PetscInt       nbad = 0, listed = 0;
      char           entries[128] = "";
      size_t         len;

      PetscCall(PetscArrayzero(wrong, nv));
      for (PetscInt t = 0; t < trials; t++) {
        PetscReal e = 0;

        PetscCall(VecMDot(x, nv, y, md));
        for (PetscInt j = 0; j < nv; j++) {
          const PetscReal ej = PetscAbsScalar(md[j] - dot[j]) / scale[j];

          if (ej > 1e-10) wrong[j] = PETSC_TRUE;
          e = PetscMax(e, ej);
        }
        if (e > 1e-10) nbad++;
        emax = PetscMax(emax, e);
      }
      nbadall += nbad;
      for (PetscInt j = 0; j < nv && listed < 8; j++) {
        if (!wrong[j]) continue;
        PetscCall(PetscStrlen(entries, &len));
        PetscCall(PetscSNPrintf(entries + len, sizeof(entries) - len, "%s%" PetscInt_FMT, listed ? "," : "", j));
        listed++;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%6" PetscInt_FMT " %14.3e %5" PetscInt_FMT " / %-5" PetscInt_FMT " %s\n", nv, (double)emax, nbad, trials, entries));
    }
    PetscCall(PetscFree4(dot, md, scale, wrong));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "VecMDot agrees with VecDot: %s (%" PetscInt_FMT " of %" PetscInt_FMT " calls wrong)\n", nbadall ? "NO" : "yes", nbadall, ncounts * trials));
  PetscCall(VecDestroyVecs(nvmax, &y));
  PetscCall(VecDestroy(&x));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
