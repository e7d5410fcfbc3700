#!/usr/bin/env bash
# petsc4py for the PETSc SFPC is built against, for the Python example and its test.
#   config/petsc4py.sh          set it up once if missing (managed PETSc only), then print its python
#   config/petsc4py.sh --find   print its python if it exists; exit 1 otherwise (sets up nothing)
# Managed PETSc (config/deps.sh): a virtual environment beside the PETSc cache entry with numpy and
# Cython from PyPI and petsc4py of PETSc's version built from PyPI's source distribution (about
# 5 minutes on 2 cores, once). A PETSc of your own (PETSC_DIR): its own petsc4py, built by PETSc's
# --with-petsc4py into $PETSC_DIR/$PETSC_ARCH/lib, or one python3 can already import; nothing is set up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/petsc.env"
find_only=0; [ "${1:-}" = --find ] && find_only=1

prefix=$(env -u PETSC_DIR "$here/petsc-dir") # the managed PETSc, which make also passes as PETSC_DIR
if [ -n "${PETSC_DIR:-}" ] && [ "${PETSC_DIR%/}" != "$prefix" ]; then
  lib=$PETSC_DIR/${PETSC_ARCH:+$PETSC_ARCH/}lib # where PETSc's --with-petsc4py puts it
  if PYTHONPATH="$lib${PYTHONPATH:+:$PYTHONPATH}" python3 -c 'import petsc4py' 2>/dev/null; then
    echo "env PYTHONPATH=$lib${PYTHONPATH:+:$PYTHONPATH} python3"
    exit 0
  fi
  exit 1
fi

# the build's Python packages, pinned (versions tested together); the environment's name carries them
pins=(numpy==2.4.6 cython==3.3.1 setuptools==65.5.0 wheel==0.48.0)
venv=$prefix-petsc4py-$(printf '%s\n' "$SFPC_PETSC_VERSION" "${pins[@]}" | sha256sum | cut -c1-8)
if [ -f "$venv/.sfpc-complete" ]; then echo "$venv/bin/python"; exit 0; fi
[ $find_only = 1 ] && exit 1
[ -f "$prefix/.sfpc-complete" ] || { echo "config/petsc4py.sh: PETSc is not set up yet (config/deps.sh)" >&2; exit 1; }

say() { printf '[sfpc petsc4py] %s\n' "$*" >&2; }
exec 9>"$(dirname "$prefix")/.lock-petsc4py"
flock 9 # two concurrent set-ups build once
if [ -f "$venv/.sfpc-complete" ]; then echo "$venv/bin/python"; exit 0; fi
rm -rf "$venv"
say "building petsc4py $SFPC_PETSC_VERSION against $prefix into $venv (about 5 minutes, once; log: $venv.log)"
{
  python3 -m venv "$venv" &&
    "$venv/bin/pip" install --no-cache-dir "${pins[@]}" &&
    PETSC_DIR=$prefix PETSC_ARCH='' "$venv/bin/pip" install --no-cache-dir --no-build-isolation --no-binary petsc4py "petsc4py==$SFPC_PETSC_VERSION" &&
    "$venv/bin/python" -c 'import petsc4py; petsc4py.init([]); from petsc4py import PETSc'
} > "$venv.log" 2>&1 || { tail -30 "$venv.log" >&2; say "petsc4py set-up failed (log: $venv.log)"; rm -rf "$venv"; exit 1; }
touch "$venv/.sfpc-complete"
echo "$venv/bin/python"
