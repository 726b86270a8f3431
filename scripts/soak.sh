#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Soak: random I/Os with random injected faults, data verified, zero leaks.
#
#   scripts/soak.sh           the short run of make check: 100000 I/Os in
#                             the mirror (every device profile and backend);
#                             the QEMU part runs inside make kunit
#                             (mrcore_soak_*, the module's default count)
#   scripts/soak.sh --long    make soak: 1000000 I/Os in the mirror, then
#                             10000 per device on siw and rxe in QEMU
#                             (MRCORE_SOAK_QEMU_IOS overrides the count) and
#                             50 load/unload rounds of every module, then
#                             make kcsan (scripts/kcsan.sh: the flush, soak,
#                             stress and removal suites on the KCSAN kernel
#                             with 4 vCPUs; any KCSAN report fails);
#                             MRCORE_SOAK_KCSAN=0 leaves that out
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/build/mirror
cmake -S "$TOP/mirror" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Debug >/dev/null
ninja -C "$B" mirror_soak >/dev/null
ios=100000
[ "${1:-}" = --long ] && ios=1000000
"$B/mirror_soak" "$ios" "${MRCORE_SOAK_SEED:-1}"
[ "${1:-}" = --long ] || exit 0

qemu_ios=${MRCORE_SOAK_QEMU_IOS:-10000}
echo "soak: $qemu_ios random I/Os per device on siw and rxe in QEMU"
MRCORE_KUNIT_OUT=$TOP/build/kunit-soak \
MRCORE_KUNIT_APPEND="kunit.filter_glob=mrcore_soak_* mrcore_io_e2e.soak_ios=$qemu_ios mrcore.load_rounds=50" \
	"$TOP/scripts/kunit.sh"
grep -h 'I/Os verified' "$TOP/build/kunit-soak/console.log" |
	sed 's/^.*\] */soak: qemu: /'

[ "${MRCORE_SOAK_KCSAN:-1}" = 0 ] && exit 0
echo "soak: make kcsan (the KCSAN kernel, 4 vCPUs)"
"$TOP/scripts/kcsan.sh"
