#!/usr/bin/env bash
# Sets up everything SFPC needs on a fresh Debian 12 machine, once:
#   - MPICH, reference BLAS/LAPACK and build tools from Debian (and python3-venv, for config/petsc4py.sh;
#     elfutils, whose eu-stack bench/stacks-if-stuck.sh runs);
#   - PETSc (version and options pinned in config/petsc.env) from PyPI's petsc source
#     distribution, configured with CUDA and installed into a cache outside the checkout
#     (config/petsc-dir prints where). A cached install is reused; nothing is rebuilt.
# The CUDA toolkit (nvcc, cuSPARSE) is expected at /usr/local/cuda.
# NVML is not needed: PETSc 3.26 links it only with --with-cuda-nvml (off by default),
# unlike 3.25 whose CUDA configure required nvml.h and libnvidia-ml.so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/petsc.env"

say() { printf '[sfpc deps] %s\n' "$*"; }

if [ -n "${PETSC_DIR:-}" ]; then
  say "using PETSC_DIR=$PETSC_DIR (not managed by this script)"
  exit 0
fi

debian_packages=(mpich libmpich-dev libblas-dev liblapack-dev make gcc g++ python3 python3-venv curl xz-utils pkgconf elfutils)
missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing from Debian: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" ||
    { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${missing[@]}"; }
fi
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { say "nvcc not found: SFPC needs the CUDA toolkit (13.x) in /usr/local/cuda"; exit 1; }

prefix=$("$here/petsc-dir")
if [ -f "$prefix/.sfpc-complete" ]; then
  say "PETSc $SFPC_PETSC_VERSION cached at $prefix"
  exit 0
fi

cache=$(dirname "$prefix")
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # two concurrent set-ups build once
if [ -f "$prefix/.sfpc-complete" ]; then say "PETSc cached at $prefix"; exit 0; fi

tarball="$cache/petsc-$SFPC_PETSC_VERSION.tar.gz"
if ! echo "$SFPC_PETSC_SHA256  $tarball" | sha256sum -c --status 2>/dev/null; then
  say "downloading PETSc $SFPC_PETSC_VERSION source distribution from PyPI"
  curl -fsSL --retry 3 -o "$tarball.part" "$SFPC_PETSC_URL"
  echo "$SFPC_PETSC_SHA256  $tarball.part" | sha256sum -c --status ||
    { say "checksum mismatch for $SFPC_PETSC_URL"; exit 1; }
  mv "$tarball.part" "$tarball"
fi

build="$cache/build-$(basename "$prefix")"
rm -rf "$build" "$prefix"
mkdir -p "$build"
tar -xzf "$tarball" -C "$build" --strip-components=1
cd "$build"
say "configuring PETSc into $prefix (log: $build/configure.log)"
unset PETSC_ARCH
python3 ./configure --prefix="$prefix" PETSC_ARCH=arch-sfpc "${SFPC_PETSC_OPTIONS[@]}" > configure.stdout 2>&1 ||
  { tail -40 configure.stdout; say "PETSc configure failed; see $build/configure.log"; exit 1; }
say "building PETSc (about 15 minutes on 2 cores; log: $build/make.log)"
make PETSC_DIR="$build" PETSC_ARCH=arch-sfpc MAKE_NP="$(nproc)" all > make.log 2>&1 ||
  { tail -40 make.log; say "PETSc build failed; see $build/make.log"; exit 1; }
make PETSC_DIR="$build" PETSC_ARCH=arch-sfpc install > install.log 2>&1 ||
  { tail -40 install.log; say "PETSc install failed"; exit 1; }
cp "$here/petsc.env" "$prefix/.sfpc-petsc.env"
touch "$prefix/.sfpc-complete"
cd "$cache" && rm -rf "$build"
say "PETSc $SFPC_PETSC_VERSION installed at $prefix"
