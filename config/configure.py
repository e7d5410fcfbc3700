#!/usr/bin/env python3
"""Checks the PETSc SFPC is built against and writes SFPC's configuration header.

Usage: configure.py --petsc-dir DIR [--petsc-arch ARCH] [--with-cuda=0|1] [--out build]

Refuses, with a message saying what to change, a PETSc that is not a shared library, not real
double, uses 64-bit indices, is not 3.26.x, or lacks CUDA when SFPC's GPU code is built.
Writes <out>/include/sfpcconf.h for the test harness (its 'requires:' lines read it; the library
does not include it): SFPC_HAVE_GPU tells whether a GPU is visible now, so that GPU tests run
where one is and are reported as skipped where none is. It is rewritten only when it changes.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    sys.stderr.write('\nSFPC configure: ' + msg + '\n\n')
    sys.exit(1)


def read_defines(path):
    defines = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'#define\s+(\w+)\s*(.*)', line)
            if m:
                defines[m.group(1)] = m.group(2).strip()
    return defines


def gpu_visible():
    smi = shutil.which('nvidia-smi')
    if not smi:
        return False
    try:
        out = subprocess.run([smi, '-L'], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and 'GPU' in out.stdout


def write_runenv(out):
    """Where no NVIDIA driver is installed, PETSc (linked with -lcuda) cannot even load: point the
    loader at the toolkit's stub libcuda so that host-only runs work there. GPU calls then fail
    cleanly with 'stub library' errors. Nothing is changed where a driver is present."""
    text = ''
    try:
        have_driver = 'libcuda.so.1' in subprocess.run(['/sbin/ldconfig', '-p'], capture_output=True, text=True).stdout
    except OSError:
        have_driver = False
    stub = '/usr/local/cuda/lib64/stubs/libcuda.so'
    if not have_driver and os.path.isfile(stub):
        stubdir = os.path.abspath(os.path.join(out, 'cuda-stub'))
        os.makedirs(stubdir, exist_ok=True)
        link = os.path.join(stubdir, 'libcuda.so.1')
        if not os.path.islink(link):
            os.symlink(stub, link)
        text = '# no NVIDIA driver here: run against the CUDA stub library (config/configure.py)\nexport LD_LIBRARY_PATH := %s$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH))\n' % stubdir
    path = os.path.join(out, 'runenv.mk')
    if not os.path.isfile(path) or open(path).read() != text:
        with open(path, 'w') as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--petsc-dir', default=os.environ.get('PETSC_DIR', ''))
    ap.add_argument('--petsc-arch', default=os.environ.get('PETSC_ARCH', ''))
    ap.add_argument('--with-cuda', type=int, default=1)
    ap.add_argument('--out', default='build')
    ap.add_argument('--gpu-tests', default='auto', choices=['auto', '0', '1'],
                    help='generate the GPU tests: auto (if a GPU is visible), 1 (always: packing for a GPU host), 0')
    args = ap.parse_args()

    if not args.petsc_dir:
        fail('PETSC_DIR is not set (config/deps.sh builds the PETSc SFPC expects; config/petsc-dir prints where).')
    conf = os.path.join(args.petsc_dir, args.petsc_arch, 'include', 'petscconf.h')
    if not os.path.isfile(conf):
        fail('no PETSc at PETSC_DIR=%s PETSC_ARCH=%s (%s is missing). Run config/deps.sh, or point PETSC_DIR/PETSC_ARCH at a built PETSc.' % (args.petsc_dir, args.petsc_arch, conf))
    d = read_defines(conf)
    v = read_defines(os.path.join(args.petsc_dir, 'include', 'petscversion.h'))
    version = (int(v.get('PETSC_VERSION_MAJOR', 0)), int(v.get('PETSC_VERSION_MINOR', 0)), int(v.get('PETSC_VERSION_SUBMINOR', 0)))

    problems = []
    if version[:2] != (3, 26):
        problems.append('PETSc %d.%d.%d found; SFPC needs PETSc 3.26.x' % version)
    if d.get('PETSC_USE_SHARED_LIBRARIES') != '1':
        problems.append('PETSc is not a shared library: configure it with --with-shared-libraries=1 (needed for -dll_append)')
    if 'PETSC_USE_COMPLEX' in d or d.get('PETSC_USE_REAL_DOUBLE') != '1':
        problems.append('PETSc scalars are not real double: configure it with --with-scalar-type=real --with-precision=double')
    if 'PETSC_USE_64BIT_INDICES' in d:
        problems.append('PETSc uses 64-bit indices: configure it with --with-64-bit-indices=0')
    if args.with_cuda and 'PETSC_HAVE_CUDA' not in d:
        problems.append('PETSc was built without CUDA: configure it with --with-cuda, or build SFPC without its GPU code (make SFPC_WITH_CUDA=0)')
    if problems:
        fail('the PETSc at %s cannot be used:\n  - ' % os.path.join(args.petsc_dir, args.petsc_arch) + '\n  - '.join(problems))

    lines = ['/* Written by config/configure.py; do not edit. */', '#pragma once', '',
             '#define SFPC_PETSC_VERSION "%d.%d.%d"' % version]
    if args.with_cuda:
        lines.append('#define SFPC_HAVE_CUDA 1')
    if args.with_cuda and (args.gpu_tests == '1' or (args.gpu_tests == 'auto' and gpu_visible())):
        lines.append('#define SFPC_HAVE_GPU 1')
    text = '\n'.join(lines) + '\n'
    header = os.path.join(args.out, 'include', 'sfpcconf.h')
    os.makedirs(os.path.dirname(header), exist_ok=True)
    old = open(header).read() if os.path.isfile(header) else None
    if old != text:
        with open(header, 'w') as f:
            f.write(text)
    write_runenv(args.out)
    print('SFPC configured: PETSc %d.%d.%d at %s, CUDA %s, GPU %s' % (version + (os.path.join(args.petsc_dir, args.petsc_arch), 'yes' if args.with_cuda else 'no', 'visible' if 'SFPC_HAVE_GPU' in text else 'not visible')))


if __name__ == '__main__':
    main()
