/*
   SFPC: synchronization-free preconditioners for PETSc.

   Load into any PETSc program with -dll_append <prefix>/lib/libsfpc.so (command line,
   PETSC_OPTIONS or .petscrc), or link libsfpc and call SFPCInitializePackage() after
   PetscInitialize(). Then the types below can be selected by name, e.g. -pc_type sfilu.
*/
#pragma once

#include <petscpc.h>

#define SFPC_VERSION_MAJOR 0
#define SFPC_VERSION_MINOR 1
#define SFPC_VERSION_PATCH 0

/*J
   PCSFILU - "sfilu": ILU(0) (no fill, natural ordering) built for synchronization-free
   factorization and triangular solves.

   Options:
+  -pc_sfilu_shift_type <none,nonzero,positive_definite> - what to do with a zero (or, for
                             positive_definite, nonpositive) pivot; see PCFactorSetShiftType()
.  -pc_sfilu_shift_amount <a> - first diagonal shift tried by the nonzero shift, relative to
                             the largest row sum of |A|
-  -pc_sfilu_zeropivot <tol>  - a pivot is zero when |u_ii| <= tol * (sum_j |a_ij|)

   The PCFactorSetShiftType(), PCFactorSetShiftAmount() and PCFactorSetZeroPivot() calls work
   on it as on PCILU.
J*/
#define PCSFILU "sfilu"

/*J
   MATSOLVERSFILU - "sfilu": the same ILU(0) factor as PCSFILU, for PCILU:
   -pc_type ilu -pc_factor_mat_solver_type sfilu, or -sub_pc_factor_mat_solver_type sfilu under
   PCBJACOBI/PCASM. Works on MATSEQAIJ (host) and MATSEQAIJCUSPARSE (GPU).
J*/
#define MATSOLVERSFILU "sfilu"

PETSC_EXTERN PetscErrorCode SFPCInitializePackage(void);
PETSC_EXTERN PetscErrorCode SFPCFinalizePackage(void);
PETSC_EXTERN PetscErrorCode SFPCDeviceView(PetscViewer);
