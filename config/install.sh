#!/usr/bin/env bash
# 'make install': copies the library, the public header and bin/sfpc-gpu-bind under PREFIX (staged under DESTDIR
# when set) and writes PREFIX/lib/pkgconfig/sfpc.pc, so that a user's build needs only
#   PKG_CONFIG_PATH=PREFIX/lib/pkgconfig:<PETSc>/lib/pkgconfig pkg-config --cflags --libs sfpc
# The pkg-config file requires the PETSc series SFPC was built against and records both
# libraries' run paths, as libsfpc.so itself does.
# Usage: install.sh SFPC_DIR PREFIX   (DESTDIR, PETSC_DIR, PETSC_ARCH from the environment)
set -euo pipefail
sfpc=$1 prefix=$2
[ -n "$prefix" ] && [ "${prefix#/}" != "$prefix" ] || { echo "make install: PREFIX must be an absolute path (got '$prefix')" >&2; exit 1; }
petsc_lib=${PETSC_DIR%/}${PETSC_ARCH:+/$PETSC_ARCH}/lib
version_of() { awk -v p="$1" '$1 == "#define" && $2 ~ "^" p "(MAJOR|MINOR|SUBMINOR|PATCH)$" {v = v (v == "" ? "" : ".") $3} END {print v}' "$2"; }
version=$(version_of SFPC_VERSION_ "$sfpc/include/sfpc.h")
petsc_version=$(version_of PETSC_VERSION_ "$PETSC_DIR/include/petscversion.h")
petsc_major=${petsc_version%%.*} petsc_minor=$(echo "$petsc_version" | cut -d. -f2)
dest=${DESTDIR:-}$prefix
install -d "$dest/lib/pkgconfig" "$dest/include" "$dest/bin"
install -m 755 "$sfpc/lib/libsfpc.so" "$dest/lib/"
install -m 644 "$sfpc/include/sfpc.h" "$dest/include/"
install -m 755 "$sfpc/bin/sfpc-gpu-bind" "$dest/bin/"
cat > "$dest/lib/pkgconfig/sfpc.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include
plugin=\${libdir}/libsfpc.so
petsc_libdir=$petsc_lib

Name: SFPC
Description: Synchronization-free GPU preconditioners for PETSc (-pc_type sfilu, sfdilu, afsai; MATHYBSF)
Version: $version
Requires: PETSc >= $petsc_major.$petsc_minor, PETSc < $petsc_major.$((petsc_minor + 1))
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -Wl,-rpath,\${petsc_libdir} -lsfpc
PC
echo "SFPC $version installed in $dest (pkg-config file: $dest/lib/pkgconfig/sfpc.pc; plugin: -dll_append $prefix/lib/libsfpc.so)"
