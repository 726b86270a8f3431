#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make kunit: KUnit in QEMU on the test kernel, with rxe and siw devices.
#
#   1. builds what is stale: test kernel, modules (W=1), the package as
#      installed with the sample ULP built against it
#      (scripts/install-check.sh --guest), initramfs;
#   2. boots the guest in kunit mode (TCG, -nic none, timeout);
#   3. parses the suites' KTAP with the kernel's kunit.py into
#      build/kunit/results.json, keeps the console in build/kunit/console.log;
#   4. fails on a failed or crashed test, a skip kunit/skips.allow does not
#      list, a missing suite, a timeout, a sample ULP run that did not
#      verify its data on both rxe and siw or did not unload, or any
#      BUG/KASAN/WARNING/lockdep/DMA-API/kmemleak/RCU-stall report in the
#      console.
#
# The report's own checks run first on crafted input
# (scripts/guest-report.py --self-test).
#
# --quick (make check): without the cases marked KUNIT_CASE_SLOW
# (kunit.filter=speed>slow: the stress, soak, flush and removal suites, the
# 65,536-key and 3,000-I/O key cases), which make kunit runs.
#
# Last line: "kunit: N passed, M failed, S skipped".
#
# MRCORE_KUNIT_APPEND adds kernel parameters, e.g.
#   MRCORE_KUNIT_APPEND="kunit.filter_glob=mrcore_e2e_rxe.*" make kunit
#   MRCORE_KUNIT_APPEND="mrcore_harness.bind_src=0" make kunit
# (module parameters on the command line are passed to insmod by the guest).
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
if [ "${1:-}" = --quick ]; then
	export MRCORE_KUNIT_APPEND="${MRCORE_KUNIT_APPEND:+$MRCORE_KUNIT_APPEND }kunit.filter=speed>slow"
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--quick]" >&2
	exit 2
fi
guest_start kunit "${MRCORE_KUNIT_OUT:-$TOP/build/kunit}" counts
guest_self_test

echo "kunit: building what is stale (the test kernel, the first time: about 11 min on an idle 2-core machine, up to about 45 under load)"
MRCORE_GUEST_SAMPLE=1 guest_build "$OUT"

echo "kunit: booting the guest (TCG; the e2e suites take a few minutes)"
# The guest ran 894 s on a slow 2-core machine and past qemu-run's 1200 s
# default with other guests' builds beside it: a timeout that only a hung
# guest reaches.
guest_qemu kunit --timeout "${MRCORE_QEMU_TIMEOUT:-2400}" \
	--append "${MRCORE_KUNIT_APPEND:-}"
guest_ran

guest_report kunit "$rc"
