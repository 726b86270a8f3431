# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the scripts that boot a test guest share (scripts/demo.sh, kunit.sh,
# bench.sh, kcsan.sh, operating.sh, kunit-2host.sh): the output directory
# and its lock, the kernel notice, the build, the report's self-test, the
# QEMU run and the report.  Sourced, not run; sets TOP, the top directory.
#
# The functions set, for the rest of the script:
#
#   GUEST_NAME  the script's name, the prefix of its messages ("kunit")
#   OUT         its output directory
#   start       when guest_start ran, seconds since the epoch
#   KDIR        the kernel's build directory (guest_kdir, guest_build)
#   KSRC        the kernel's source directory (guest_build)
#   boot, rc    when the guest booted and how scripts/qemu-run.sh ended
#               (guest_qemu)

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GUEST_COUNTS=

# guest_lock FILE WAITING: hold a lock on FILE until the script ends (its
# descriptor stays open across exec); if another process holds it, print
# WAITING and wait for it.
guest_lock() {
	local fd
	exec {fd}>"$1"
	if ! flock -n "$fd"; then
		echo "$2"
		flock "$fd"
	fi
}

# guest_start NAME DIR [counts]: NAME's run into DIR (OUT), one run per
# output directory at a time (and QEMU runs are CPU-bound); starts the
# clock.  "counts": the script's last line counts tests, and so does its
# failure line (guest_fail).
guest_start() {
	GUEST_NAME=$1 OUT=$2 GUEST_COUNTS=${3:-}
	mkdir -p "$OUT"
	guest_lock "$OUT/.lock" "$GUEST_NAME: another run is using $OUT; waiting for it"
	start=$(date +%s)
}

# guest_fail WHY: exit 1 with "NAME: 0 passed, 1 failed, 0 skipped (WHY)"
# where the last line counts tests, else with "NAME: WHY" on stderr.
guest_fail() {
	if [ -n "$GUEST_COUNTS" ]; then
		echo "$GUEST_NAME: 0 passed, 1 failed, 0 skipped ($1)"
	else
		echo "$GUEST_NAME: $1" >&2
	fi
	exit 1
}

# guest_kdir: KDIR, the build directory of the kernel of
# MRCORE_KERNEL_FLAVOUR (scripts/test-kernel.sh); builds nothing.
guest_kdir() {
	KDIR=$("$TOP/scripts/test-kernel.sh" --print-dir)
}

# guest_unbuilt LINE...: if the kernel in KDIR is not built yet, print each
# LINE as "NAME: LINE" (how long the build that comes will take).
guest_unbuilt() {
	local line
	[ ! -f "$KDIR/.mrcore-key" ] || return 0
	for line in "$@"; do
		echo "$GUEST_NAME: $line"
	done
}

# guest_self_test: the checks of scripts/guest-report.py on crafted input,
# the log in OUT/report-self-test.log; shown, and guest_fail, if they fail.
guest_self_test() {
	local log=$OUT/report-self-test.log
	if ! python3 "$TOP/scripts/guest-report.py" --self-test "$TOP" >"$log"; then
		cat "$log"
		guest_fail "guest-report.py --self-test failed"
	fi
}

# guest_build DIR: build what is stale into DIR (scripts/guest-build.sh: the
# kernel, the modules, the initramfs), or guest_fail; then KDIR and KSRC.
guest_build() {
	"$TOP/scripts/guest-build.sh" "$1" || guest_fail "build failed"
	guest_kdir
	KSRC=$("$TOP/scripts/test-kernel.sh" --print-src)
}

# guest_qemu MODE ARG...: boot KDIR's kernel with OUT's initramfs in MODE
# (scripts/guest-init.sh), console and results into OUT, the ARGs passed to
# scripts/qemu-run.sh; sets boot and rc, its exit status, and returns 0.
# shellcheck disable=SC2034 # rc is the caller's
guest_qemu() {
	local mode=$1
	shift
	boot=$(date +%s)
	rc=0
	"$TOP/scripts/qemu-run.sh" --kernel "$KDIR/arch/x86/boot/bzImage" \
		--initrd "$OUT/initramfs.cpio.gz" --mode "$mode" --out "$OUT" \
		"$@" || rc=$?
}

# guest_ran: "NAME: guest ran N s, total M s", since guest_qemu and
# guest_start.
guest_ran() {
	local now
	now=$(date +%s)
	echo "$GUEST_NAME: guest ran $((now - boot)) s, total $((now - start)) s"
}

# guest_report MODE RC...: hand over to the verdict of MODE
# (scripts/guest-report.py) on OUT with the guests' exit statuses; its
# last line is the script's.
guest_report() {
	local mode=$1
	shift
	exec python3 "$TOP/scripts/guest-report.py" "$mode" "$OUT" "$KSRC" "$TOP" "$@"
}

# guest_pair DIR INITRD MODE APPEND TIMEOUT: make kunit-2host's topology
# (scripts/kunit-2host.sh): the peer guest (mode peer) and the initiator
# (MODE, APPEND on its kernel command line), KDIR's kernel and INITRD, TCG
# with one vCPU each, one virtio-net NIC each joined on the Unix socket
# DIR/wire.sock and no other network; consoles and results into
# DIR/{peer,initiator}/, each guest bounded by TIMEOUT s.  The pair takes
# the machine's guest lock once (scripts/qemu-run.sh), and drops it after.
# Sets rc_init and rc_peer, the guests' qemu-run.sh statuses, and
# pair_boot, when the pair had the lock and booted; returns 0.  PAIR_APPEND,
# if set, goes on both guests' command lines (mrcore.rxe=stock).
# shellcheck disable=SC2034 # rc_init, rc_peer and pair_boot are the caller's
guest_pair() {
	local dir=$1 initrd=$2 mode=$3 append=$4 tmo=$5
	local sock=$1/wire.sock fd peer_pid
	mkdir -p "$dir/peer" "$dir/initiator"
	exec {fd}>"${MRCORE_QEMU_LOCK:-${TMPDIR:-/tmp}/rdma-mrcore-qemu.lock}"
	if ! flock -n "$fd"; then
		echo "$GUEST_NAME: another guest is running on this machine; waiting"
		flock "$fd"
	fi
	pair_boot=$(date +%s)
	rm -f "$sock"
	# The peer listens on the socket; the initiator connects to it.
	_guest_pair_one "$dir" "$initrd" peer 2 1 server=on peer "" "$tmo" &
	peer_pid=$!
	for _ in $(seq 1 100); do
		[ -S "$sock" ] && break
		sleep 0.2
	done
	rc_init=0 rc_peer=0
	if [ -S "$sock" ]; then
		_guest_pair_one "$dir" "$initrd" initiator 1 2 server=off \
			"$mode" "$append" "$tmo" || rc_init=$?
	else
		echo "$GUEST_NAME: the peer's QEMU did not open $sock" >&2
		rc_init=1
	fi
	# The initiator told the peer to stop; give it time to unload and scan.
	for _ in $(seq 1 120); do
		kill -0 "$peer_pid" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$peer_pid" 2>/dev/null; then
		echo "$GUEST_NAME: the peer is still up 120 s after the initiator; stopping it" >&2
		kill "$(cat "$dir/peer/qemu.pid")" 2>/dev/null || true
	fi
	wait "$peer_pid" || rc_peer=$?
	rm -f "$sock"
	exec {fd}>&-
}

# One guest of guest_pair: DIR INITRD name self peer netdev-mode mode
# append timeout.
_guest_pair_one() {
	local net="-netdev stream,id=wire,$6,addr.type=unix,addr.path=$1/wire.sock"
	net="$net -device virtio-net-pci,netdev=wire,mac=52:54:00:00:00:0$4"
	rm -f "$1/$3/qemu.pid"
	MRCORE_QEMU_LOCKED=1 MRCORE_QEMU_SMP=1 MRCORE_QEMU_TIMEOUT=$9 \
		MRCORE_QEMU_EXTRA="${MRCORE_QEMU_EXTRA:-} -pidfile $1/$3/qemu.pid" \
		"$TOP/scripts/qemu-run.sh" --kernel "$KDIR/arch/x86/boot/bzImage" \
		--initrd "$2" --mode "$7" --out "$1/$3" --net "$net" \
		--append "mrcore.self=$4 mrcore.peer=$5 mrcore.peer_wait=$9 ${PAIR_APPEND:-} $8"
}

# ulp_guest DIR ROLE TOPOLOGY SCRIPT [QEMU ARGS...]: one guest of a real
# ULP's run (make nvmeof, make nfsrdma): the host's root read-only under a
# tmpfs overlay (scripts/guest-init.sh, mode rootfs), SCRIPT as PID 1, its
# console in DIR, its share DIR/share: config.sh in (ROLE, TOPOLOGY and
# what the caller's ulp_config prints), results out.  Uses KDIR, BUILD
# (the initramfs) and MRCORE_QEMU_TIMEOUT (default 3600 s).
ulp_guest() {
	local dir=$1 role=$2 topo=$3 script=$4
	shift 4
	rm -rf "$dir"
	mkdir -p "$dir/share"
	{
		echo "ROLE=$role"
		echo "TOPOLOGY=$topo"
		ulp_config
	} >"$dir/share/config.sh"
	"$TOP/scripts/qemu-run.sh" --kernel "$KDIR/arch/x86/boot/bzImage" \
		--initrd "$BUILD/initramfs.cpio.gz" --mode rootfs --out "$dir" \
		--timeout "${MRCORE_QEMU_TIMEOUT:-3600}" --share hostroot=/:ro \
		--share out="$dir/share" --append "mrcore.script=$script" "$@"
}

# ulp_topologies SCRIPT FIRST SECOND TOPOLOGY...: SCRIPT's guests in each
# TOPOLOGY, into OUT/one and OUT/two/{FIRST,SECOND}: "one", both ends in
# one guest (role one); "two", the FIRST role's guest (the initiator: NVMe
# host, NFS client) and the SECOND's joined by a virtio-net wire, one vCPU
# each; the second serves the first's commands (ctl) and powers off when
# told.  Appends "one=RC", "two/FIRST=RC", "two/SECOND=RC" to the caller's
# rcs array.
ulp_topologies() {
	local script=$1 first=$2 second=$3 topo lk sock rc rc1 rc2 pid2 tboot
	shift 3
	for topo in "$@"; do
		tboot=$(date +%s)
		case $topo in
		one)
			echo "$GUEST_NAME: one kernel: $first and $second in one guest"
			rc=0
			ulp_guest "$OUT/one" one one "$script" || rc=$?
			rcs+=("one=$rc")
			;;
		two)
			echo "$GUEST_NAME: two kernels: the $first guest and the $second guest joined"
			echo "$GUEST_NAME: by a virtio-net wire (one vCPU each)"
			exec {lk}>"${MRCORE_QEMU_LOCK:-${TMPDIR:-/tmp}/rdma-mrcore-qemu.lock}"
			flock "$lk"
			sock=$OUT/wire.sock
			rm -f "$sock"
			rc1=0 rc2=0
			MRCORE_QEMU_LOCKED=1 MRCORE_QEMU_SMP=1 ulp_guest \
				"$OUT/two/$second" "$second" two "$script" \
				--net "$(_ulp_wire "$sock" 2 server=on)" &
			pid2=$!
			for _ in $(seq 1 100); do
				[ -S "$sock" ] && break
				sleep 0.2
			done
			MRCORE_QEMU_LOCKED=1 MRCORE_QEMU_SMP=1 ulp_guest \
				"$OUT/two/$first" "$first" two "$script" \
				--net "$(_ulp_wire "$sock" 1 server=off)" || rc1=$?
			# The first told the second to finish: it scans and
			# powers off.
			for _ in $(seq 1 180); do
				kill -0 "$pid2" 2>/dev/null || break
				sleep 1
			done
			kill -0 "$pid2" 2>/dev/null && pkill -f "$OUT/two/$second" || true
			wait "$pid2" || rc2=$?
			exec {lk}>&-
			rm -f "$sock"
			rcs+=("two/$first=$rc1" "two/$second=$rc2")
			;;
		*) guest_fail "unknown topology $topo" ;;
		esac
		echo "$GUEST_NAME: $topo: guests ran $(($(date +%s) - tboot)) s"
	done
}

# _ulp_wire SOCKET MAC-SUFFIX server=on|off: QEMU's NIC on the wire.
_ulp_wire() {
	echo "-netdev stream,id=wire,$3,addr.type=unix,addr.path=$1" \
		"-device virtio-net-pci,netdev=wire,mac=52:54:00:00:00:0$2"
}

# ulp_report ARGS...: the verdict, scripts/nvmeof-report.py ARGS, run by
# the system python3 when the first on PATH cannot import Debian's
# python3-matplotlib (the A/B plot).
ulp_report() {
	local py=python3
	if ! python3 -c 'import matplotlib' 2>/dev/null && [ -x /usr/bin/python3 ]; then
		py=/usr/bin/python3
	fi
	exec "$py" "$TOP/scripts/nvmeof-report.py" "$@"
}

# ulp_prepare NAME LOCK_ENV PORT: what a real ULP's guests need (make
# nvmeof, make nfsrdma): the kernel, the modules and the initramfs built
# into BUILD (make kunit's build locked unless the caller, named by the
# variable LOCK_ENV, holds it), the test kernel's modules as
# modules_install lays them out in OUT/modroot (for the guest's modprobe;
# redone when the kernel changes) and ulp-ports/PORT built into OUT/ports.
# Sets KDIR, KSRC and modroot.
ulp_prepare() {
	guest_kdir
	guest_unbuilt "the test kernel is not built yet: building it now (once, cached in $KDIR)"
	if [ "$BUILD" != "$OUT" ] && [ -z "${!2:-}" ]; then
		# make kunit's build: not while a make kunit uses it.
		guest_lock "$BUILD/.lock" "$1: a make kunit is using $BUILD; waiting for it"
	fi
	guest_build "$BUILD"
	modroot=$OUT/modroot
	if [ "$(cat "$modroot/.key" 2>/dev/null)" != "$(cat "$KDIR/.mrcore-key")" ]; then
		rm -rf "$modroot"
		make -s -C "$KDIR" INSTALL_MOD_PATH="$modroot" modules_install \
			>"$OUT/modules_install.log" 2>&1 ||
			guest_fail "modules_install failed ($OUT/modules_install.log)"
		cp "$KDIR/.mrcore-key" "$modroot/.key"
	fi
	"$TOP/scripts/ulp-ports.sh" "$OUT/ports" "$BUILD/src/Module.symvers" "$3" ||
		guest_fail "the $3 port did not build"
}
