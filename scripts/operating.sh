#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make operating: regenerate the captured output of Documentation/operating.rst
# (Documentation/operating/*.txt) from one run of the test guest.
#
#   1. builds what is stale, as make kunit does (the test kernel, the test
#      build of the modules with kunit/demo/operate.c, the package as installed
#      with scripts/install-check.sh --guest, the initramfs);
#   2. boots the guest in operate mode (scripts/guest-init.sh): the
#      installed rdma_mrcore.ko's debugfs files and tracepoints, then each
#      case of mrcore_operate.ko (ok, dry, flush, error) with its trace,
#      kernel messages and counters, then rxe1 removed;
#   3. writes the captures, the counters as before -> after, and modinfo of
#      the installed modules (on the host) into Documentation/operating/.
#
# Fails on a kernel report, a case that could not run, or a missing capture.
# Not in make check (it rewrites the page's files); make check's docs step
# checks that the names the page quotes exist in the code.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
guest_start operating "${MRCORE_OPERATING_OUT:-$TOP/build/operating}"

MRCORE_GUEST_SAMPLE=1 guest_build "$OUT"

echo "operating: booting the guest (QEMU TCG) in operate mode"
guest_qemu operate --timeout "${MRCORE_QEMU_TIMEOUT:-900}"

guest_report operate "$rc"
