#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the test kernel with an initramfs in QEMU:
#
#   scripts/qemu-run.sh --kernel BZIMAGE --initrd CPIO.GZ --mode kunit|demo \
#                       --out DIR [--timeout SECONDS] [--append "ARGS"] \
#                       [--net "QEMU OPTIONS"] [--share TAG=DIR[:ro]]...
#
# TCG (no KVM: it hung at the firmware on this machine kind), -nic none (no
# guest packet can leave the VM) unless --net gives the guest's network
# devices instead (split on blanks; make kunit-2host joins two guests by a
# virtio-net NIC each on a Unix socket, scripts/kunit-2host.sh), serial
# console to DIR/console.log, the guest's results port (second serial) to
# DIR/results.log.  Each --share exports a host directory to the guest
# over virtio-9p under mount tag TAG, read-only with ":ro" (make nvmeof
# shares the host's root this way; scripts/guest-init.sh, mode rootfs).
# Exit status: 0 when the guest powered off, 124 on
# timeout, QEMU's status otherwise.  A guest of several vCPUs whose kernel
# died of an int3 before /init is booted once more (boot_int3_oops, below).
#
# Environment: MRCORE_QEMU_TIMEOUT (default 1200 s), MRCORE_QEMU_MEM
# (default 2048 MiB), MRCORE_QEMU_CPU (default qemu64,+rdrand, see below),
# MRCORE_QEMU_SMP (default: the host's CPU count, at most 4),
# MRCORE_QEMU_ACCEL (default tcg,thread=multi), MRCORE_QEMU_EXTRA
# (more QEMU options, split on blanks; e.g. "-icount shift=1,sleep=off"),
# MRCORE_QEMU_LOCK (the lock file below), MRCORE_QEMU_LOCKED=1 (the caller
# holds it already, e.g. to run two guests together).
set -euo pipefail

kernel= initrd= mode= out= append=
net="-nic none"
shares=()
timeout=${MRCORE_QEMU_TIMEOUT:-1200}
mem=${MRCORE_QEMU_MEM:-2048}
smp=${MRCORE_QEMU_SMP:-$(nproc)}
[ "$smp" -le 4 ] || smp=4
accel=${MRCORE_QEMU_ACCEL:-tcg,thread=multi}
# QEMU's default CPU model has no RDRAND, and the guest has no other source
# of entropy it trusts: its random number generator stayed unseeded for the
# whole run ("crng init done" never printed), and every get_random_bytes()
# took the unseeded path.  Both drivers draw a device MR's key from it, so
# an ib_alloc_mr() of one page cost 25 us of guest time, not 7 (bench kernel,
# icount, 2026-12-04), where a real host seeds at boot.  With RDRAND (TCG
# emulates it) the kernel seeds from it at boot, as on such a host.
cpu=${MRCORE_QEMU_CPU:-qemu64,+rdrand}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--net) net=$2; shift 2 ;;
	--share)
		tag=${2%%=*} dir=${2#*=} ro=
		case "$dir" in
		*:ro) dir=${dir%:ro} ro=,readonly=on ;;
		esac
		shares+=(-virtfs "local,path=$dir,mount_tag=$tag,security_model=none,multidevs=remap$ro")
		shift 2
		;;
	*) echo "qemu-run: unknown argument $1" >&2; exit 2 ;;
	esac
done
for v in kernel initrd mode out; do
	if [ -z "${!v}" ]; then
		echo "qemu-run: --$v is required" >&2
		exit 2
	fi
done

# One guest at a time on this machine: TCG guests are CPU-bound, and two
# unrelated runs sharing 2 cores slow each other into their timeouts.  The
# wait does not count against --timeout.
if [ -z "${MRCORE_QEMU_LOCKED:-}" ]; then
	exec 7>"${MRCORE_QEMU_LOCK:-${TMPDIR:-/tmp}/rdma-mrcore-qemu.lock}"
	if ! flock -n 7; then
		echo "qemu-run: another guest is running on this machine; waiting"
		flock 7
	fi
fi

mkdir -p "$out"
rm -f "$out/console.log" "$out/results.log"

# acpi=noirq: PCI interrupts routed by the PIIX router's table, not by
# ACPI's link objects.  With ACPI, enabling each virtio PCI device took 30 s
# of guest time in the test kernel under TCG (initcall_debug: "probe of
# 0000:00:02.0 returned 0 after 30756004 usecs", the wait before "LNKB:
# Enabled at IRQ 10"), a minute of every boot with two 9p shares; without,
# 60 ms for both, on the same IRQs.
cmdline="console=ttyS0 loglevel=7 panic=-1 acpi=noirq mrcore.mode=$mode $append"

run_qemu() {
	timeout --foreground -k 10 "$timeout" \
		qemu-system-x86_64 \
		-accel "$accel" -cpu "$cpu" -smp "$smp" -m "$mem" ${MRCORE_QEMU_EXTRA:-} \
		-nodefaults -display none -no-reboot $net "${shares[@]}" \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
		-serial "file:$out/console.log" -serial "file:$out/results.log" \
		</dev/null
}

# boot_int3_oops: the guest's kernel died of an int3 trap before it ran
# /init, i.e. before any test, module or script of ours ran.  That is the
# signature of a QEMU bug, not of the kernel: multi-threaded TCG before
# QEMU 8.1 could execute a stale translation of code that another vCPU was
# patching (the kernel patches static branches with an int3 first, e.g.
# sched_clock's at "sched_clock: Marking stable"), fixed upstream by
# "accel/tcg: Always lock pages before translation"; Debian 12 has 7.2.
# Seen once in these guests, at 9.5 s of a 2-vCPU boot.  One vCPU cannot
# race itself, so only a guest of several is booted again, once.
boot_int3_oops() {
	[ "$smp" -gt 1 ] || return 1
	awk '/ Run \/init as init process/ { exit 1 }
	     /Oops: int3: / { found = 1; exit 0 }
	     END { exit !found }' "$out/console.log"
}

set +e
run_qemu
rc=$?
if [ "$rc" -ne 124 ] && boot_int3_oops; then
	mv "$out/console.log" "$out/console.boot-oops.log"
	echo "qemu-run: the guest's kernel oopsed on int3 while booting, before /init" \
	     "(a multi-threaded TCG race of QEMU < 8.1, see $out/console.boot-oops.log);" \
	     "booting it once more" >&2
	rm -f "$out/results.log"
	run_qemu
	rc=$?
fi
set -e
if [ "$rc" -eq 124 ]; then
	echo "qemu-run: TIMEOUT after $timeout s (see $out/console.log)" >&2
fi
exit "$rc"
