/*
   Device helpers of the GPU ILU(0) kernels that read the match map (SFILUMatchMap, sfilu.h): the
   generic kernel (ilu0_device.cu) and the point-block one (ilu0_block_device.cu), which hold a row's
   entries in registers, SLOTS a lane. Their updates a - l*u are sfpc::SubProduct() (sfdevice.cuh): rounded
   twice as the host computes them, so the device factor is bitwise the host's.
*/
#pragma once

#include "sfilu.h"

/* The launch of the kernel for dense point-blocks (ilu0_dense_device.cu), inside SFILUFactorBlocks_Device() (ilu0_block_device.cu). */
void SFILUDenseBlocksLaunch_Device(SFPCTriDevice, const SFILUBlocks *, const double *, int, cudaStream_t, int, unsigned long long, double, double, int);

/*
   Offset in U(c), from its diagonal, of the entry that updates the row position of rank k among
   those an L entry's update changes: from the map's nibbles where they hold it, else the k-th set
   bit of the U mask (__fns, about 56 instructions on sm_90, which the nibbles save per slot and
   dependency: the refactorization became 1-14% faster, bench/README.md).
*/
__device__ __forceinline__ unsigned SFILUMatchOffset(unsigned umask, unsigned lo, unsigned hi, int k)
{
  const unsigned off = k < 8 ? lo >> 4 * k & 15 : k < 16 ? hi >> 4 * (k - 8) & 15 : 0;
  return off ? off : __fns(umask, 0, k + 1);
}

/* val[q] for a slot q known only at run time, without moving val out of registers. */
template <int SLOTS>
__device__ __forceinline__ double SFILUSlotValue(const double (&val)[SLOTS], int q)
{
  double v = 0;
#pragma unroll
  for (int i = 0; i < SLOTS; i++)
    if (i == q) v = val[i];
  return v;
}

template <int SLOTS>
__device__ __forceinline__ void SFILUSetSlot(double (&val)[SLOTS], int q, double v)
{
#pragma unroll
  for (int i = 0; i < SLOTS; i++)
    if (i == q) val[i] = v;
}
