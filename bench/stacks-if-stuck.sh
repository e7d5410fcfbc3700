#!/usr/bin/env bash
# Runs a command and passes its output through. If the command is still running after printing nothing
# for QUIET seconds (default 60), prints the native stack of every thread of it and of its descendants
# (eu-stack, from Debian's elfutils: config/deps.sh installs it, 'make gpu-pack' packs it), ends them
# and exits 124; otherwise exits with the command's status.
#   bench/gpu-run bash bench/stacks-if-stuck.sh [-q QUIET] CMD [ARGS...]
# For runs that never end on the GPU host: ranks that never leave MPI_Finalize (bench/README.md, MPI
# scaling, was found this way), or a host thread waiting on a kernel that never completes (the stack
# names the PETSc call that waits).
set -u
quiet=60
if [ "${1:-}" = -q ]; then quiet=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [-q QUIET] CMD [ARGS...]" >&2; exit 2; }
log=$(mktemp); trap 'rm -f "$log"' EXIT
"$@" > "$log" 2>&1 &
pid=$!
tail -n +1 -f --pid=$pid "$log" &
size=-1 still=0
while kill -0 $pid 2>/dev/null; do
  sleep 1
  now=$(stat -c %s "$log")
  if [ "$now" != "$size" ]; then size=$now still=0; else still=$((still + 1)); fi
  [ $still -lt "$quiet" ] && continue
  tree=$pid new=$pid
  while [ -n "$new" ]; do # descendants, generation by generation
    new=$(ps -e -o pid=,ppid= | awk -v p=" $new " 'index(p, " " $2 " ") {print $1}' | tr '\n' ' ')
    tree="$tree $new"
  done
  tree=$(echo $tree)
  echo "stacks-if-stuck: no output for $quiet s; stacks of $tree"
  stacker=$(command -v eu-stack) || echo "stacks-if-stuck: eu-stack not found (Debian package elfutils)"
  for p in $tree; do
    [ -r /proc/$p/cmdline ] || continue
    echo "== pid $p: $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-120)"
    [ -n "$stacker" ] && "$stacker" -p "$p" 2>&1 | grep -v '^$'
  done
  kill -9 $tree 2>/dev/null
  wait 2>/dev/null
  exit 124
done
wait $pid; rc=$?
wait # the output's last lines
exit $rc
