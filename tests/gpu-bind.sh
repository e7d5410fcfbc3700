#!/usr/bin/env bash
# bin/sfpc-gpu-bind on this machine's launcher (no GPU needed): which GPU each local rank is given, from a
# GPU count and from a CUDA_VISIBLE_DEVICES list, the command unchanged outside a launcher, and the error
# without GPUs. Compared with tests/output/gpu-bind.out.
# Usage: gpu-bind.sh TESTDIR SFPC_DIR   (MPIEXEC and PETSCDIFF from the environment)
set -u
. "$(dirname "$0")/report-output.sh"
testdir=$1 sfpc=$2
bind=$sfpc/bin/sfpc-gpu-bind
show='echo "local rank $MPI_LOCALRANKID: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"'
mkdir -p "$testdir/gpu-bind"
{
  echo "# 3 ranks, 2 GPUs on the node"
  $MPIEXEC -n 3 env -u CUDA_VISIBLE_DEVICES SFPC_GPUS_PER_NODE=2 "$bind" sh -c "$show" | sort
  echo "# 3 ranks, CUDA_VISIBLE_DEVICES=5,7"
  $MPIEXEC -n 3 env CUDA_VISIBLE_DEVICES=5,7 "$bind" sh -c "$show" | sort
  echo "# outside a launcher"
  env -u MPI_LOCALRANKID -u OMPI_COMM_WORLD_LOCAL_RANK -u MV2_COMM_WORLD_LOCAL_RANK -u SLURM_LOCALID -u CUDA_VISIBLE_DEVICES "$bind" sh -c 'echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}"'
  echo "# no GPU"
  $MPIEXEC -n 1 env -u CUDA_VISIBLE_DEVICES SFPC_GPUS_PER_NODE=0 "$bind" true 2>&1; echo "exit $?"
} > "$testdir/gpu-bind/gpu-bind.out"
report_output gpu-bind "$sfpc/tests/output/gpu-bind.out" "$testdir/gpu-bind/gpu-bind.out" "$testdir"
