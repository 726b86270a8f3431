# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-mrcore top-level targets.  kbuild itself reads ./Kbuild.
#
#   make modules [KDIR=...]   build the modules (W=1)
#   make demo                 boot the test kernel and move data on rxe and siw
#   make bench                mrcore vs ib_core's rdma_rw vs perftest, on the bench kernel
#   make check                every test layer; last line "check: N passed, M failed"
#   make mirror               userspace mirror tests only
#   make bench-mirror         mirror benchmarks: ns and instructions per I/O
#   make bench-vs-rw          mirror: instructions per I/O, mrcore vs ib_core's rdma_rw
#   make mutants              planted bugs the fast layers must catch (not in check)
#   make kunit                KUnit in QEMU only
#   make test-kernel          build (or reuse) the cached test kernel

SHELL := /bin/bash
TOP := $(CURDIR)

# Where the test kernel lives; shared with scripts/test-kernel.sh.
TEST_KDIR := $(shell $(TOP)/scripts/test-kernel.sh --print-dir 2>/dev/null)

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
    KDIR := /lib/modules/$(shell uname -r)/build
  else ifneq ($(wildcard $(TEST_KDIR)/Makefile),)
    KDIR := $(TEST_KDIR)
  endif
endif

.PHONY: all modules clean check mirror kunit test-kernel demo bench \
	checkpatch kernel-doc docs format-check dkms-check fuzz soak bench-mirror \
	bench-vs-rw mutants

all: modules

modules:
	@if [ -z "$(KDIR)" ]; then \
		echo "modules: no kernel tree: /lib/modules/$$(uname -r)/build is missing and the test kernel is not built;"; \
		echo "         pass KDIR=/path/to/kernel/build or run 'make test-kernel' first" >&2; \
		exit 2; \
	fi
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(TOP) clean; fi
	rm -rf build

check:
	@scripts/check.sh

mirror:
	@scripts/mirror.sh

bench-mirror:
	@scripts/bench-mirror.sh

bench-vs-rw:
	@scripts/bench-vs-rw.sh

mutants:
	@scripts/mutants.sh

checkpatch:
	@scripts/checkpatch.sh

kernel-doc:
	@scripts/kernel-doc.sh

test-kernel:
	@scripts/test-kernel.sh

kunit:
	@scripts/kunit.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

docs:
	@scripts/docs.sh

format-check:
	@scripts/format-check.sh

dkms-check:
	@scripts/dkms-check.sh

fuzz:
	@scripts/fuzz.sh --long

soak:
	@scripts/soak.sh --long
