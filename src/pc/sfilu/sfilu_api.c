/*
   PCSFILU's own calls for an application that sets it up in code: the factorization (ILU(0) or SIP, with SIP's
   alpha) and the grid of a matrix assembled without a DMDA. Each takes effect at the next set-up, as the options
   -pc_sfilu_factorization, -pc_sfilu_sip_alpha and -pc_sfilu_grid do. The PCFactor calls (shift, zero pivot, levels of
   fill) reach PCSFILU through PETSc's own PCFactorSet...() functions (sfilu.c).
*/
#include "sfilu.h"

/* SIP's alpha in range, for -pc_sfilu_sip_alpha and PCSFILUSetSIP(); who names the value in the error. */
PetscErrorCode SFILUCheckSIPAlpha(PC pc, const char *who, PetscReal alpha)
{
  PetscFunctionBegin;
  PetscCheck(alpha >= 0 && alpha <= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "%s %g is out of range: it must be in [0, 1]", who, (double)alpha);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFILUSetSIP_SFILU(PC pc, PetscBool sip, PetscReal alpha)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (alpha == (PetscReal)PETSC_DETERMINE) alpha = SFILU_DEFAULT_SIP_ALPHA;
  else if (alpha == (PetscReal)PETSC_CURRENT) alpha = s->sip_alpha;
  PetscCall(SFILUCheckSIPAlpha(pc, "PCSFILUSetSIP(): alpha", alpha));
  s->sip       = sip;
  s->sip_alpha = alpha;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFILUGetSIP_SFILU(PC pc, PetscBool *sip, PetscReal *alpha)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (sip) *sip = s->sip;
  if (alpha) *alpha = s->sip_alpha;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFILUSetGrid_SFILU(PC pc, PetscInt nx, PetscInt ny, PetscInt nz)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck((nx > 0 && ny > 0 && nz > 0) || (nx == 0 && ny == 0 && nz == 0), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCSFILUSetGrid(): the grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " needs three positive sizes (or 0, 0, 0 for none)", nx, ny, nz);
  s->sip_grid[0] = nx;
  s->sip_grid[1] = ny;
  s->sip_grid[2] = nz;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSFILUGetGrid_SFILU(PC pc, PetscInt *nx, PetscInt *ny, PetscInt *nz)
{
  SFILU *s = (SFILU *)pc->data;

  PetscFunctionBegin;
  if (nx) *nx = s->sip_grid[0];
  if (ny) *ny = s->sip_grid[1];
  if (nz) *nz = s->sip_grid[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Composes the calls above on a new PCSFILU, or (compose false) removes them from one being destroyed. */
PetscErrorCode SFILUComposeAPI(PC pc, PetscBool compose)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFILUSetSIP_C", compose ? PCSFILUSetSIP_SFILU : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFILUGetSIP_C", compose ? PCSFILUGetSIP_SFILU : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFILUSetGrid_C", compose ? PCSFILUSetGrid_SFILU : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSFILUGetGrid_C", compose ? PCSFILUGetGrid_SFILU : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFILUSetSIP - Chooses between ILU(0) and Stone's strongly implicit procedure (SIP) for a `PCSFILU`, and SIP's alpha

  Logically Collective

  Input Parameters:
+ pc    - the `PCSFILU` preconditioner (for another type of `PC` the call does nothing)
. sip   - `PETSC_TRUE` for SIP (7-point stencils on a 3-D grid), `PETSC_FALSE` for ILU(0)
- alpha - SIP's partial cancellation of the dropped fill, in [0, 1] (0 is ILU(0)); `PETSC_CURRENT` keeps it,
          `PETSC_DETERMINE` restores the default 0.92

  Options Database Keys:
+ -pc_sfilu_factorization <ilu0,sip> - sip
- -pc_sfilu_sip_alpha <0.92>         - alpha

  Level: intermediate

  Note:
  SIP needs the grid: a 3-D DMDA attached to the `PC`, `PCSFILUSetGrid()`, or one read from a 7-point pattern in
  natural order. The choice is taken at the next set-up (`PCSetUp()` after new operators or new values).

.seealso: `PCSFILU`, `PCSFILUGetSIP()`, `PCSFILUSetGrid()`
@*/
PetscErrorCode PCSFILUSetSIP(PC pc, PetscBool sip, PetscReal alpha)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, sip, 2);
  PetscValidLogicalCollectiveReal(pc, alpha, 3);
  PetscTryMethod(pc, "PCSFILUSetSIP_C", (PC, PetscBool, PetscReal), (pc, sip, alpha));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFILUGetSIP - Gets whether a `PCSFILU` uses SIP instead of ILU(0), and SIP's alpha

  Not Collective

  Input Parameter:
. pc - the `PCSFILU` preconditioner

  Output Parameters:
+ sip   - whether SIP is used (`NULL` if not wanted)
- alpha - SIP's alpha (`NULL` if not wanted)

  Level: intermediate

.seealso: `PCSFILU`, `PCSFILUSetSIP()`
@*/
PetscErrorCode PCSFILUGetSIP(PC pc, PetscBool *sip, PetscReal *alpha)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCSFILUGetSIP_C", (PC, PetscBool *, PetscReal *), (pc, sip, alpha));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFILUSetGrid - Gives a `PCSFILU` the 3-D grid whose points the rows of a matrix assembled without a DMDA are

  Logically Collective

  Input Parameters:
+ pc - the `PCSFILU` preconditioner (for another type of `PC` the call does nothing)
. nx - points in x (the fastest)
. ny - points in y
- nz - points in z; 0, 0, 0 for no grid

  Options Database Key:
. -pc_sfilu_grid <nx,ny,nz> - the same

  Level: intermediate

  Notes:
  The grid is SIP's, and the GPU sweeps' grid layout for ILU(0) (`-pc_sfilu_layout grid`, or `auto` on a 7- or 27-point
  stencil). The whole grid, on every rank; with several ranks each rank's rows must be whole z-planes. A DMDA attached
  to the `PC` is used instead: one that does not fit (not 3-D, several fields, periodic) is an error where a grid is
  needed (SIP, `-pc_sfilu_layout grid`), and otherwise means no grid. Taken at the next set-up.

.seealso: `PCSFILU`, `PCSFILUGetGrid()`, `PCSFILUSetSIP()`, `MatHYBSFSetGrid()`
@*/
PetscErrorCode PCSFILUSetGrid(PC pc, PetscInt nx, PetscInt ny, PetscInt nz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, nx, 2);
  PetscValidLogicalCollectiveInt(pc, ny, 3);
  PetscValidLogicalCollectiveInt(pc, nz, 4);
  PetscTryMethod(pc, "PCSFILUSetGrid_C", (PC, PetscInt, PetscInt, PetscInt), (pc, nx, ny, nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCSFILUGetGrid - Gets the grid given to a `PCSFILU` by `PCSFILUSetGrid()` or -pc_sfilu_grid

  Not Collective

  Input Parameter:
. pc - the `PCSFILU` preconditioner

  Output Parameters:
+ nx - points in x (`NULL` if not wanted)
. ny - points in y (`NULL` if not wanted)
- nz - points in z (`NULL` if not wanted); 0, 0, 0 when none was given

  Level: intermediate

.seealso: `PCSFILU`, `PCSFILUSetGrid()`
@*/
PetscErrorCode PCSFILUGetGrid(PC pc, PetscInt *nx, PetscInt *ny, PetscInt *nz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCSFILUGetGrid_C", (PC, PetscInt *, PetscInt *, PetscInt *), (pc, nx, ny, nz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
