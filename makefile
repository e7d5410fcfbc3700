# SFPC entry points. This file needs only GNU make; gmakefile (the library) and gmakefile.test
# (the tests) read PETSc's build variables once PETSc exists.
#
#   make          build lib/libsfpc.so (sets up MPICH and the pinned PETSc on first use)
#   make demo     build and run the demo: 3-D Poisson solved with -pc_type sfilu
#   make check    build and run every test with PETSc's test harness; fails on any failure
#   make bench    build the benchmarks (build/bench/*, bench/README.md; they need a GPU)
#   make gpu-pack pack what a GPU run needs into build/gpu-pack.tar.xz (see bench/gpu-run)
#   make install PREFIX=<dir> [DESTDIR=<staging>]   the library, sfpc.h, bin/sfpc-gpu-bind and a pkg-config file (sfpc.pc)
#   make clean
#
# PETSC_DIR/PETSC_ARCH select your own PETSc; unset, SFPC uses (and builds once) the PETSc
# cached by config/deps.sh. SFPC_WITH_CUDA=0 builds the host code only.

SFPC_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
ifeq ($(PETSC_DIR),)
  PETSC_DIR := $(shell $(SFPC_DIR)/config/petsc-dir)
  PETSC_ARCH :=
  SFPC_MANAGED_PETSC := 1
endif
SFPC_WITH_CUDA ?= 1
export SFPC_DIR PETSC_DIR PETSC_ARCH SFPC_WITH_CUDA
SUBMAKE = $(MAKE) --no-print-directory -C $(SFPC_DIR)

.PHONY: all lib deps petsc4py configure check demo bench gpu-pack install clean
all: lib

deps:
ifeq ($(SFPC_MANAGED_PETSC),1)
	@env -u PETSC_DIR -u PETSC_ARCH $(SFPC_DIR)/config/deps.sh
endif

# petsc4py for the Python example's test (config/petsc4py.sh): built once beside the managed PETSc;
# with your own PETSC_DIR, its petsc4py is used if it has one
petsc4py: deps
ifeq ($(SFPC_MANAGED_PETSC),1)
	@env -u PETSC_DIR -u PETSC_ARCH $(SFPC_DIR)/config/petsc4py.sh > /dev/null
endif

SFPC_GPU_TESTS ?= auto
configure: deps
	@python3 $(SFPC_DIR)/config/configure.py --petsc-dir="$(PETSC_DIR)" --petsc-arch="$(PETSC_ARCH)" --with-cuda=$(SFPC_WITH_CUDA) --gpu-tests=$(SFPC_GPU_TESTS) --out=$(SFPC_DIR)/build

lib: configure
	@$(SUBMAKE) -f gmakefile lib

demo: lib
	@$(SUBMAKE) -f gmakefile demo

check: lib petsc4py
	@$(SUBMAKE) -f gmakefile.test check

bench: lib
	@$(SUBMAKE) -f gmakefile bench

install: lib
	@$(SUBMAKE) -f gmakefile install

# GPU tests are generated whatever this machine has: they are meant for the GPU host.
gpu-pack: deps
	@$(SUBMAKE) -f makefile configure SFPC_GPU_TESTS=1
	@$(SUBMAKE) -f gmakefile lib build/bin/ex1 bench
	@$(SUBMAKE) -f gmakefile.test tests-build
	@$(SFPC_DIR)/bench/gpu-pack

clean:
	rm -rf $(SFPC_DIR)/build $(SFPC_DIR)/lib/libsfpc.so
