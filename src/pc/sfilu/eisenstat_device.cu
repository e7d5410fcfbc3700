/*
   The GPU side of sfilu's Eisenstat form (eisenstat.c): the check that ILU(0) of the pattern keeps A's
   off-diagonal entries, and the engine's pieces of the form (trisolve.cu: the diagonals, the product with
   Q = D + U_A, the single sweeps of the changes of variable, the fused operator) on PETSc vectors, staged through
   device copies where they live on the host.
*/
#include <petscdevice_cuda.h>
#include <sfpc/private/sfdevice.cuh>
#include "sfilu.h"

namespace
{
/*
   An off-diagonal entry of row r that an ILU(0) update reaches (for L entry (r, c), U(c)'s entries (c, j), j != r, in row r),
   the first found in update order, as the key (r << 32) | j; the lowest row's is kept (the host check reports the same entry).
*/
__global__ void DILUFormKernel(int n, const int *__restrict__ ai, const int *__restrict__ aj, const int *__restrict__ ad, unsigned long long *first)
{
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const int kb = ai[r], ke = ai[r + 1];
  for (int k = kb; k < ad[r]; k++) {
    const int c = aj[k];
    for (int m = ad[c] + 1; m < ai[c + 1]; m++) {
      const int j = aj[m];
      int       lo = kb, hi = ke;
      if (j == r) continue;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (aj[mid] < j) lo = mid + 1;
        else hi = mid;
      }
      if (lo < ke && aj[lo] == j) {
        atomicMin(first, ((unsigned long long)r << 32) | (unsigned)j);
        return;
      }
    }
  }
}
} // namespace

PetscErrorCode SFILUDILUForm_Device(SFPCTriDevice T, PetscInt *row, PetscInt *col)
{
  cudaStream_t        stream;
  unsigned long long *d, h = ~0ULL;
  const int           tpb = 256;

  PetscFunctionBegin;
  *row = *col = -1;
  if (!T->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMallocAsync((void **)&d, sizeof(*d), stream));
  PetscCallCUDA(cudaMemcpyAsync(d, &h, sizeof(h), cudaMemcpyHostToDevice, stream));
  DILUFormKernel<<<sfpc::LaunchBlocks(T->n, tpb), tpb, 0, stream>>>((int)T->n, T->i, T->j, T->diag, d);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(d, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if (h != ~0ULL) {
    *row = (PetscInt)(h >> 32);
    *col = (PetscInt)(h & 0xffffffffULL);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* d = D^{-1} (a device vector) */
PetscErrorCode SFILUInverseDiagonal_Device(SFILU *s, Vec d)
{
  PetscScalar *da;
  PetscMemType mt;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWriteAndMemType(d, &da, &mt));
  PetscCheck(PetscMemTypeDevice(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The diagonal of a GPU factor needs a device vector");
  PetscCall(SFPCTriDeviceDiagonals(s->T, NULL, da, NULL));
  PetscCall(VecRestoreArrayWriteAndMemType(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* D^{-1} (the factor's diagonal slots hold 1/D) and K = diag(A) - 2 D; k holds diag(A) on entry. */
PetscErrorCode SFILUEisenstatDiagonals_Device(SFILU *s, Vec dinv, Vec k)
{
  PetscScalar *da, *ka;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWriteAndMemType(dinv, &da, NULL));
  PetscCall(VecGetArrayAndMemType(k, &ka, NULL));
  PetscCall(SFPCTriDeviceDiagonals(s->T, ka, da, ka)); /* in place: each entry read before it is written */
  PetscCall(VecRestoreArrayAndMemType(k, &ka));
  PetscCall(VecRestoreArrayWriteAndMemType(dinv, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = Q x = D x + U_A x */
PetscErrorCode SFILUEisenstatMultUpper_Device(SFILU *s, Vec x, Vec y)
{
  SFPCStagedArrays a;

  PetscFunctionBegin;
  PetscCall(SFPCStagedArraysGet(x, y, "sfilu", &s->xd, &s->yd, &a));
  PetscCall(SFPCTriDeviceMultUpper(s->T, a.xa, a.ya));
  PetscCall(SFPCStagedArraysRestore(y, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = L^{-1} b (unit) or U^{-1} b; b and x distinct. */
PetscErrorCode SFILUSweep_Device(SFILU *s, PetscBool lower, Vec b, Vec x)
{
  SFPCStagedArrays a;

  PetscFunctionBegin;
  PetscCall(SFPCStagedArraysGet(b, x, "sfilu", &s->xd, &s->yd, &a));
  PetscCall(SFPCTriDeviceSweep(s->T, lower, a.xa, a.ya));
  PetscCall(SFPCStagedArraysRestore(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   The KSP's operator, y = t + P^{-1} (x + K t), t = Q^{-1} x. On several ranks the engine's three steps: t's ghost
   values, read from the engine's copy of t (placed in E->t for the exchange), travel while w = x + K t
   is formed (the host's MPI progress overlapping that pass on the GPU), and the couplings between ranks (PETSc's product
   with A_o) are added to w before the L sweep.
*/
PetscErrorCode SFILUEisenstatMult_Device(SFILU *s, Vec x, Vec y)
{
  SFPCEisenstat     *E = &s->eis;
  const PetscScalar *xa, *ka, *da, *ta, *wr;
  PetscScalar       *ya, *wa;
  SFPCStagedArrays   a;

  PetscFunctionBegin;
  PetscCall(VecGetArrayReadAndMemType(E->k, &ka, NULL));
  PetscCall(VecGetArrayReadAndMemType(E->dinv, &da, NULL));
  PetscCall(SFPCStagedArraysGet(x, y, "sfilu", &s->xd, &s->yd, &a));
  xa = a.xa;
  ya = a.ya;
  if (!E->scatter) {
    PetscCall(VecGetArrayWriteAndMemType(E->w, &wa, NULL));
    PetscCall(SFPCTriDeviceEisenstat(s->T, xa, ka, da, wa, ya));
    PetscCall(VecRestoreArrayWriteAndMemType(E->w, &wa));
  } else {
    if (!E->t) PetscCall(VecDuplicate(E->w, &E->t)); /* a CUDA vector of t's layout: the engine's copy of t is placed in it */
    PetscCall(SFPCTriDeviceEisenstatBegin(s->T, xa, ya, &ta));
    PetscCall(VecCUDAPlaceArray(E->t, ta));
    PetscCall(VecScatterBegin(E->scatter, E->t, E->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayWriteAndMemType(E->w, &wa, NULL));
    PetscCall(SFPCTriDeviceEisenstatMid(s->T, xa, ka, wa));
    PetscCall(VecRestoreArrayWriteAndMemType(E->w, &wa));
    PetscCall(VecScatterEnd(E->scatter, E->t, E->ghost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecCUDAResetArray(E->t));
    PetscCall(VecGetLocalVector(E->w, E->wl));
    PetscCall(MatMultAdd(E->Ao, E->ghost, E->wl, E->wl));
    PetscCall(VecRestoreLocalVector(E->w, E->wl));
    PetscCall(VecGetArrayReadAndMemType(E->w, &wr, NULL));
    PetscCall(SFPCTriDeviceEisenstatEnd(s->T, wr, da, ya));
    PetscCall(VecRestoreArrayReadAndMemType(E->w, &wr));
  }
  PetscCall(SFPCStagedArraysRestore(y, &a));
  PetscCall(VecRestoreArrayReadAndMemType(E->dinv, &da));
  PetscCall(VecRestoreArrayReadAndMemType(E->k, &ka));
  PetscFunctionReturn(PETSC_SUCCESS);
}
