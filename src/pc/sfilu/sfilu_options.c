/*
   The options of the factor's GPU engine (layout, levels and warps of the sweeps, the grid layout's kernels, the
   generic ILU(0) kernel's matching and point-blocks), one parser for both ways in: PCSFILU reads them as
   -pc_sfilu_<name> in PCSetFromOptions(); the sfilu solver type behind PCILU and PCICC as -mat_sfilu_<name> under
   the factor's prefix (so -sub_mat_sfilu_layout under PCBJACOBI or PCASM), at each symbolic factorization, as
   PETSc's external solvers read theirs.
*/
#include "sfilu.h"

/* pre followed by name, in buf (SFILUSetEngineFromOptions() checks that every name fits) */
static const char *OptionName(char *buf, size_t len, const char *pre, const char *name)
{
  (void)PetscSNPrintf(buf, len, "%s%s", pre, name);
  return buf;
}

PetscErrorCode SFILUSetEngineFromOptions(PetscOptionItems PetscOptionsObject, SFILU *s, const char *pre, const char *man)
{
  char      name[64], given[PETSC_MAX_PATH_LEN], text[320];
  PetscInt  v;
  PetscBool set;
  MPI_Comm  comm = PetscOptionsObject->comm;
  size_t    plen;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(pre, &plen));
  PetscCheck(plen + sizeof("warps_per_sm") <= sizeof(name), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Option names under %s do not fit", pre); /* the longest name below */
  PetscCall(SFPCOptionsWarpsPerSM(PetscOptionsObject, OptionName(name, sizeof(name), pre, "warps_per_sm"), man, &s->engine.warps_per_sm));
  PetscCall(PetscOptionsEnum(OptionName(name, sizeof(name), pre, "layout"), "GPU sweeps: storage of the factor's L and U (auto: grid where the grid is known and the pattern fits its 7-point stencil or 27-point box, else per triangle)", man, SFPCLayouts, (PetscEnum)s->engine.layout, (PetscEnum *)&s->engine.layout, NULL));
  PetscCall(PetscOptionsEnum(OptionName(name, sizeof(name), pre, "levels"), "GPU sweeps: dependency levels ordering the rows (auto: asap)", man, SFPCLevelsTypes, (PetscEnum)s->engine.levels, (PetscEnum *)&s->engine.levels, NULL));
  v = s->engine.grid_chunk;
  PetscCall(PetscOptionsInt(OptionName(name, sizeof(name), pre, "grid_chunk"), "GPU grid layout: x steps per read of the neighbouring warps' results (2 or 4)", man, v, &v, &set));
  PetscCheck(!set || v == 2 || v == 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be 2 or 4", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, name), v);
  s->engine.grid_chunk = v;
  v = s->engine.grid_planes;
  PetscCall(PetscOptionsInt(OptionName(name, sizeof(name), pre, "grid_planes"), "GPU grid layout: z-planes per block of warps, handing the -z line over in shared memory (1, 2, 4 or 8; 0, the default: 8, fewer on grids of fewer z-planes)", man, v, &v, &set));
  PetscCheck(!set || v == 0 || v == 1 || v == 2 || v == 4 || v == 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be 1, 2, 4 or 8, or 0 for the default", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, name), v);
  s->engine.grid_planes = v;
  PetscCall(PetscOptionsBool(OptionName(name, sizeof(name), pre, "grid_factor"), "GPU grid layout: ILU(0) factored by hyperplanes of the grid (7-point: SIP's kernel with alpha 0, 48 more bytes a point; 27-point: planes i + 2j + 4k, 148 more bytes a point; the same factor, faster) instead of the generic sync-free kernel", man, s->grid_factor, &s->grid_factor, NULL));
  PetscCall(PetscOptionsEnum(OptionName(name, sizeof(name), pre, "factor_match"), "GPU generic ILU(0) kernel: how a row finds its entries in a dependency's U row: by masks built once per pattern (map), a binary search over the lanes (search), or the U row broadcast entry by entry (broadcast); auto: map, and for rows the masks cannot hold search from 8 warp tasks per level and SM, else broadcast", man, SFILUFactorMatches, (PetscEnum)s->factor_match, (PetscEnum *)&s->factor_match, NULL));
  v = s->block_size;
  PetscCall(PetscOptionsInt(OptionName(name, sizeof(name), pre, "block_size"), "GPU generic ILU(0) kernel and sweeps: rows a warp factors and solves together, a point-block of consecutive rows whose dependencies on one another are resolved inside the warp (default: the matrix's block size; 1: row by row)", man, v, &v, &set));
  PetscCheck(!set || v == PETSC_DECIDE || v >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %" PetscInt_FMT " is out of range: it must be at least 1", SFPCOptionGiven(given, sizeof(given), PetscOptionsObject, name), v);
  s->block_size = v;
  PetscCall(PetscSNPrintf(text, sizeof(text), "GPU sweeps by the point-blocks of %s, a warp a block (default: a sweep whose block graph has at most 3/4 of its rows' levels)", name));
  PetscCall(PetscOptionsBool3(OptionName(name, sizeof(name), pre, "block_sweeps"), text, man, s->block_sweeps, &s->block_sweeps, NULL));
  PetscCall(PetscOptionsBool3(OptionName(name, sizeof(name), pre, "block_slabs"), "GPU sweeps by point-blocks: a task's columns from a slab indexed by its ticket (8 more bytes an entry), its unknowns polled together, instead of the CSR (default: where a level has at least 4 blocks an SM)", man, s->block_slabs, &s->block_slabs, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
