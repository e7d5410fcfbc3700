/* Option names as the user typed them, for the errors that refuse their values. */
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
