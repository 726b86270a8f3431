# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-mrcore top-level targets.  kbuild itself reads ./Kbuild.
#
#   make modules [KDIR=...]   build the modules (W=1); add
#                             CONFIG_RDMA_MRCORE_TEST_HOOKS=y for the test hooks
#   make install              modules_install (INSTALL_MOD_DIR=updates) + install-dev
#   make install-dev          public headers and Module.symvers, for out-of-tree
#                             ULPs: $(DESTDIR)$(PREFIX)/src/rdma-mrcore-<VERSION>/
#   make install-dkms         the DKMS source tree, $(DESTDIR)$(PREFIX)/src/rdma-mrcore-<VERSION>/
#   make demo                 boot the test kernel and move data on rxe and siw
#   make operating            regenerate Documentation/operating/*.txt (the
#                             operating page's captures) from a guest run
#   make bench                mrcore vs ib_core's rdma_rw vs perftest, on the bench kernel
#   make check                every test layer; last line "check: N passed, M failed"
#   make mirror               userspace mirror tests only
#   make bench-mirror         mirror benchmarks: ns and instructions per I/O
#   make bench-vs-rw          mirror: instructions per I/O, mrcore vs ib_core's rdma_rw
#   make mutants              planted bugs the fast layers must catch (not in check)
#   make kunit                KUnit in QEMU only
#   make kcsan                the race suites on the KCSAN kernel, 4 vCPUs (in soak)
#   make kunit-2host          two guests over a virtio-net wire: the *_2host
#                             suites against a peer kernel, with netem faults
#   make kunit-2host-stock-rxe  the stale-ACK case on rxe as Linux 6.12 ships
#                             it (no fix): passes when the defect shows
#   make nvmeof               real NVMe over Fabrics: nvme-rdma and nvmet-rdma,
#                             stock and converted (ulp-ports/nvme/), driven by
#                             Debian's nvme-cli and fio in a guest on rxe and siw
#   make nvmeof-ab            fio IOPS, stock against converted NVMe/RDMA ends,
#                             with an A/A pair, on the bench kernel (icount)
#   make nfsrdma              real NFS over RDMA: rpcrdma (client and server),
#                             stock and converted (ulp-ports/nfs/), the kernel
#                             NFS server and client with Debian's nfs-utils
#   make nfsrdma-ab           fio IOPS on an NFS/RDMA mount, stock against
#                             converted, with an A/A pair, on the bench kernel
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

.PHONY: all modules clean check mirror kunit kunit-2host kunit-2host-stock-rxe \
	test-kernel demo bench \
	checkpatch kernel-doc docs dkms-check fuzz soak bench-mirror \
	bench-vs-rw mutants install install-dev install-dkms kcsan operating \
	nvmeof nvmeof-ab nfsrdma nfsrdma-ab

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

# Installation.  One tree per version, $(DESTDIR)$(PREFIX)/src/rdma-mrcore-<VERSION>:
# the DKMS source tree (install-dkms) and what an out-of-tree ULP builds
# against (install-dev): include/rdma/mrcore*.h, the same headers in both, and
# <kernelrelease>/Module.symvers of the modules built for that kernel (pass
# it in KBUILD_EXTRA_SYMBOLS; Documentation/ulp-guide.rst).
PKG_VERSION := $(shell cat $(TOP)/VERSION)
PREFIX ?= /usr
DESTDIR ?=
PKGDIR = $(DESTDIR)$(PREFIX)/src/rdma-mrcore-$(PKG_VERSION)
KRELEASE = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
HEADERS := $(wildcard $(TOP)/include/rdma/mrcore*.h)

install: install-dev
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates modules_install

install-dev: modules
	@[ -n "$(KRELEASE)" ] || { echo "install-dev: no kernel release in $(KDIR)" >&2; exit 2; }
	install -d $(PKGDIR)/include/rdma $(PKGDIR)/$(KRELEASE)
	@# from the installed DKMS tree itself, the headers are already there
	for h in $(HEADERS); do \
		[ "$$h" -ef "$(PKGDIR)/include/rdma/$${h##*/}" ] || \
			install -m 0644 "$$h" $(PKGDIR)/include/rdma/ || exit 1; \
	done
	install -m 0644 $(TOP)/Module.symvers $(PKGDIR)/$(KRELEASE)/Module.symvers

# What DKMS builds from: the kbuild files, the kernel sources, the compat
# probes, dkms.conf, VERSION, COPYING and this Makefile (for install-dev).
install-dkms:
	install -d $(PKGDIR)
	cd $(TOP) && scripts/dist-files.sh | tar -cf - -T - | tar -C $(PKGDIR) -xf -

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

kunit-2host:
	@scripts/kunit-2host.sh
	@scripts/kunit-2host.sh --stock-rxe

kunit-2host-stock-rxe:
	@scripts/kunit-2host.sh --stock-rxe

demo:
	@scripts/demo.sh

nvmeof:
	@scripts/nvmeof.sh

nvmeof-ab:
	@scripts/nvmeof.sh --ab

nfsrdma:
	@scripts/nfsrdma.sh

nfsrdma-ab:
	@scripts/nfsrdma.sh --ab

operating:
	@scripts/operating.sh

bench:
	@scripts/bench.sh

# The KCSAN flavour (kunit/kcsan-kernel.config, 4 vCPUs); make soak runs it
# too, make check does not.
kcsan:
	@scripts/kcsan.sh

docs:
	@scripts/docs.sh

dkms-check:
	@scripts/dkms-check.sh

fuzz:
	@scripts/fuzz.sh --long

soak:
	@scripts/soak.sh --long
