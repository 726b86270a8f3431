#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make kunit-2host: the initiator and the target in two kernels.  Two QEMU
# guests boot the same test kernel and initramfs (TCG, one vCPU each), each
# with one virtio-net NIC; QEMU joins the two NICs on a Unix socket
# (-netdev stream), and the guests have no other network.
#
#   peer       (guest 2, 203.0.113.2) loads mrcore_2host_peer.ko, which
#              accepts rdma_cm connections on rxe0 and siw0 and serves the
#              initiator's requests (kunit/two-host/peer_2host.h), until told to stop;
#   initiator  (guest 1, 203.0.113.1) loads mrcore_2host.ko, whose *_2host
#              suites run against the peer, while tcpdump counts the RDMA
#              packets on eth0 and on lo.
#
# Both consoles and results ports go to build/kunit-2host/{initiator,peer}/;
# the verdict (scripts/guest-report.py kunit2host) fails on a failed or
# missing suite, a kernel report in either console, a guest that did not
# finish, a kmemleak report, or RDMA traffic missing from the wire (or seen
# on lo).  Last line: "kunit-2host: N passed, M failed, S skipped".
#
# MRCORE_KUNIT_APPEND adds kernel parameters to the initiator, e.g.
#   MRCORE_KUNIT_APPEND="kunit.filter_glob=mrcore_sec_*" make kunit-2host
# MRCORE_2HOST_TIMEOUT (default 7200 s) bounds each guest: a whole run took
# 3,013 s on this machine kind, and more than 3,600 with other work on the
# cores (mrcore_netem_rxe_2host alone 2,500 s or more).
#
# --smoke (make check): the security suites and the stale-ACK case of the
# test kernel's rxe fix only (kunit.filter_glob=mrcore_[sa][ec]*_2host:
# mrcore_sec_*_2host and mrcore_ackorder_rxe_2host, no other suite), into
# build/kunit-2host-smoke/, on the modules and initramfs of build/kunit/
# (make kunit's, which make check has just built).
#
# --stock-rxe (make kunit-2host-stock-rxe): mrcore_ackorder_rxe_2host alone,
# on rxe as Linux 6.12 ships it (rdma_rxe_stock.ko, scripts/rxe-stock.sh:
# without the test kernel's fix, in both guests), into
# build/kunit-2host-stock-rxe/.  It passes when the defect shows: READs
# completed successfully with wrong bytes, and rxe's WARNING in
# rxe_completer; the case's own failure is the expected outcome there.
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
OUT=${MRCORE_KUNIT_2HOST_OUT:-$TOP/build/kunit-2host}
BUILD=
if [ "${1:-}" = --smoke ]; then
	OUT=${MRCORE_KUNIT_2HOST_OUT:-$TOP/build/kunit-2host-smoke}
	BUILD=$TOP/build/kunit
	# The build below writes make kunit's initramfs: as make kunit does,
	# with the package and the sample ULP (cached, install-check.sh).
	export MRCORE_GUEST_SAMPLE=1
	export MRCORE_KUNIT_APPEND=${MRCORE_KUNIT_APPEND:-kunit.filter_glob=mrcore_[sa][ec]*_2host}
elif [ "${1:-}" = --stock-rxe ]; then
	OUT=${MRCORE_KUNIT_2HOST_OUT:-$TOP/build/kunit-2host-stock-rxe}
	STOCK_RXE=1
	# make kunit's modules, as --smoke; the initramfs gets one more below.
	BUILD=$TOP/build/kunit
	export MRCORE_GUEST_SAMPLE=1
	export MRCORE_KUNIT_APPEND=kunit.filter_glob=mrcore_ackorder_rxe_2host
	PAIR_APPEND=mrcore.rxe=stock
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--smoke | --stock-rxe]" >&2
	exit 2
fi
BUILD=${BUILD:-$OUT}
TMO=${MRCORE_2HOST_TIMEOUT:-7200}
mkdir -p "$OUT" "$BUILD"
guest_start kunit-2host "$OUT" counts
guest_self_test

if [ "$BUILD" != "$OUT" ]; then
	# make kunit's build: not while a make kunit uses it.
	guest_lock "$BUILD/.lock" "kunit-2host: a make kunit is using $BUILD; waiting for it"
fi
echo "kunit-2host: building what is stale (in $BUILD)"
guest_build "$BUILD"

initrd=$BUILD/initramfs.cpio.gz
if [ "${STOCK_RXE:-0}" = 1 ]; then
	stock_ko=$("$TOP/scripts/rxe-stock.sh" "$OUT/rxe-stock" | tail -n1) ||
		guest_fail "rdma_rxe_stock.ko: see $OUT/rxe-stock/build.log"
	mapfile -t mods < <(sed -e 's/\.o$/.ko/' -e "s|^\([^/]\)|$BUILD/src/\1|" \
		"$BUILD/src/modules.order")
	initrd=$OUT/initramfs-stock-rxe.cpio.gz
	"$TOP/scripts/initramfs.sh" "$initrd" "${mods[@]}" "$stock_ko" >/dev/null ||
		guest_fail "initramfs with rdma_rxe_stock.ko"
	echo "kunit-2host: rxe0 of both guests on $stock_ko"
fi

echo "kunit-2host: booting the peer and the initiator (TCG, one vCPU each)"
guest_pair "$OUT" "$initrd" kunit2host "${MRCORE_KUNIT_APPEND:-}" "$TMO"
echo "kunit-2host: guests ran $(($(date +%s) - pair_boot)) s, total $(($(date +%s) - start)) s"

if [ "${STOCK_RXE:-0}" = 1 ]; then
	# The case's lines: "N WRITE+READ pairs: ... M READs succeeded with
	# wrong bytes; ...", one per shape, and the driver's WARNING.
	con=$OUT/initiator/console.log
	grep -h 'WRITE+READ pairs:' "$con" | sed 's/^\[[^]]*\] *//' || true
	wrong=$(grep -ho '[0-9]* READs succeeded with wrong bytes' "$con" |
		awk '{ s += $1 } END { print s + 0 }')
	warn=$(grep -c 'WARNING: .* rxe_completer' "$con" || true)
	shapes=$(grep -c 'WRITE+READ pairs:' "$con" || true)
	echo "kunit-2host: stock rxe: $wrong READs succeeded with wrong bytes in $shapes shapes; rxe_completer WARNINGs: $warn"
	if [ "$shapes" = 3 ] && [ "$wrong" -gt 0 ] && [ "$warn" -gt 0 ]; then
		echo "kunit-2host: stock rxe: the defect the test kernel's fix mends is there"
		exit 0
	fi
	echo "kunit-2host: stock rxe: FAILED: the defect did not show (3 shapes, wrong READs and a WARNING expected)"
	exit 1
fi

exec python3 "$TOP/scripts/guest-report.py" kunit2host "$OUT" "$KSRC" "$TOP" \
	"$rc_init" "$rc_peer"
