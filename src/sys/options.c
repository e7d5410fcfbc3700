/* Option names as the user typed them, for the errors that refuse their values; options shared by several PCs. */
#include <sfpc/private/sfpcimpl.h>

/*
   name (with its dash, as registered: -pc_sfdilu_omega) under the prefix of the options being read, in buf:
   -mg_levels_pc_sfdilu_omega; the name alone if buf cannot hold it.
*/
const char *SFPCOptionGiven(char *buf, size_t len, PetscOptionItems PetscOptionsObject, const char *name)
{
  const char          *prefix = PetscOptionsObject->prefix ? PetscOptionsObject->prefix : "";
  const PetscErrorCode ierr   = PetscSNPrintf(buf, len, "-%s%s", prefix, name + 1); /* name + 1: past its dash */

  return ierr == PETSC_SUCCESS ? buf : name;
}

/*
   The warps per SM of a GPU engine's sweeps (name: -pc_sfilu_warps_per_sm, -pc_sfdilu_warps_per_sm, ...), in [1, 64] or
   PETSC_DECIDE, into *wps where given. Unset, each kind of sweep has its own default (PETSC_DECIDE), which the range
   check would refuse.
*/
PetscErrorCode SFPCOptionsWarpsPerSM(PetscOptionItems PetscOptionsObject, const char *name, const char *man, PetscInt *wps)
{
  char      given[PETSC_MAX_PATH_LEN];
  PetscInt  v = *wps;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt(name, "GPU sweeps: warps kept per SM (more hide latency, fewer poll less; -1, the default: from the width of the levels), from the next set-up", man, v, &v, &set));
  PetscCheck(!set || v == PETSC_DECIDE || (v >= 1 && v <= 64), PetscOptionsObject->comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be in [1, 64], or -1 for the default", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, name), v);
  if (set) *wps = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}
