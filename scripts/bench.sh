#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: rdma-mrcore's READ/WRITE helper against ib_core's RDMA R/W API
# (rdma_rw_ctx_*) and against the device limit (perftest), on siw and rxe,
# in QEMU on the bench kernel (the test kernel without KASAN, kmemleak,
# lockdep and DMA-API debugging; scripts/test-kernel.sh with
# MRCORE_KERNEL_FLAVOUR=bench, cached like the test kernel).
#
#   1. builds what is stale: bench kernel, modules (W=1), initramfs with
#      perftest and the rxe/siw providers;
#   2. boots the guest in bench mode: perftest's ib_read_bw/ib_write_bw -R
#      on each device, then mrcore_bench.ko (kunit/bench/);
#   3. writes build/bench/results.json, prints the table with the ratio
#      mrcore / rdma_rw per row, draws build/bench/throughput.png.
#
# Environment (defaults size the whole run to about 22 minutes: 144 rows in
# icount mode on one vCPU took 1322 s in the guest on 2026-12-04, the bench
# kernel already built):
#   MRCORE_BENCH_ROW_MS      one run of one implementation, ms (600)
#   MRCORE_BENCH_ROUNDS      runs per implementation and row (3)
#   MRCORE_BENCH_CPU_MS      one init+destroy loop, ms (20)
#   MRCORE_BENCH_FILTER      glob on device/dir/shape/qdN/qpsN (all rows),
#                            e.g. "rxe/read/1m_contig/*"
#   MRCORE_BENCH_PERFTEST_SECS  each perftest run, s (5; perftest measures
#                            the middle half, so at least 4)
#   MRCORE_BENCH_OUT         output directory (build/bench)
#   MRCORE_BENCH_AA          1: an A/A run, rdma_rw on both sides (the first
#                            named rdma_rw.aa), whose ratios measure the
#                            bench's own noise (0)
# A quick smoke run: MRCORE_BENCH_ROW_MS=200 MRCORE_BENCH_ROUNDS=1 make bench
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
guest_start bench "${MRCORE_BENCH_OUT:-$TOP/build/bench}"

# The bench flavour of the kernel, and perftest in the initramfs: both
# reach scripts/guest-build.sh, scripts/test-kernel.sh and
# scripts/initramfs.sh through the environment.
export MRCORE_KERNEL_FLAVOUR=bench
export MRCORE_INITRAMFS_PERFTEST=1

guest_kdir
guest_unbuilt "the bench kernel is not built yet: building it now (about" \
	"7 min on 2 idle cores, once; cached in $KDIR)"
guest_build "$OUT"

num() { # name value: a positive integer or die
	case "$2" in
	'' | *[!0-9]*)
		echo "bench: $1 must be a positive integer, not '$2'" >&2
		exit 2
		;;
	esac
}
row_ms=${MRCORE_BENCH_ROW_MS:-600}
rounds=${MRCORE_BENCH_ROUNDS:-3}
cpu_ms=${MRCORE_BENCH_CPU_MS:-20}
pt_secs=${MRCORE_BENCH_PERFTEST_SECS:-5}
num MRCORE_BENCH_ROW_MS "$row_ms"
num MRCORE_BENCH_ROUNDS "$rounds"
num MRCORE_BENCH_CPU_MS "$cpu_ms"
num MRCORE_BENCH_PERFTEST_SECS "$pt_secs"
append="mrcore.perftest_secs=$pt_secs mrcore_bench.row_ms=$row_ms"
append="$append mrcore_bench.rounds=$rounds mrcore_bench.cpu_ms=$cpu_ms"
if [ -n "${MRCORE_BENCH_FILTER:-}" ]; then
	case "$MRCORE_BENCH_FILTER" in
	*[!A-Za-z0-9_/*?.-]*)
		echo "bench: MRCORE_BENCH_FILTER takes [A-Za-z0-9_/*?.-] only" >&2
		exit 2
		;;
	esac
	append="$append mrcore_bench.filter=$MRCORE_BENCH_FILTER"
fi
case ${MRCORE_BENCH_AA:-0} in
0) ;;
1) append="$append mrcore_bench.aa=1" ;;
*)
	echo "bench: MRCORE_BENCH_AA is 0 or 1" >&2
	exit 2
	;;
esac
export MRCORE_BENCH_AA=${MRCORE_BENCH_AA:-0}

# icount (the default): single-threaded TCG whose guest clock advances by
# instructions executed (-icount shift=1,sleep=off), so rates measure the
# guest's work, not the host's load; wallclock: multi-threaded TCG on real
# time, as before.
#
# icount runs one vCPU unless MRCORE_QEMU_SMP says otherwise.  Single-
# threaded TCG runs the vCPUs in turn anyway, and with two of them the
# bench's threads (then one per QP), the CQ work and the soft RDMA
# drivers' workers land on them in an order that changes from run to run:
# on the 72 four-QP rows of 2026-12-03, a row's 3 runs spread by a median
# of 1.019x (at most 1.337x) on 2 vCPUs and by 1.0045x (at most 1.080x)
# on one, with every other figure (WRs, CPU ns, the geometric means)
# unchanged.
mode=${MRCORE_BENCH_MODE:-icount}
case $mode in
icount)
	export MRCORE_QEMU_ACCEL=${MRCORE_QEMU_ACCEL:-tcg}
	export MRCORE_QEMU_EXTRA="${MRCORE_QEMU_EXTRA:-} -icount shift=1,sleep=off"
	export MRCORE_QEMU_SMP=${MRCORE_QEMU_SMP:-1}
	;;
wallclock) ;;
*)
	echo "bench: MRCORE_BENCH_MODE is icount or wallclock" >&2
	exit 2
	;;
esac
export MRCORE_BENCH_MODE=$mode

# The vCPUs qemu-run.sh gives the guest: MRCORE_QEMU_SMP (1 in icount
# mode), else the host's CPUs, at most 4.
smp=${MRCORE_QEMU_SMP:-$(nproc)}
[ "$smp" -le 4 ] || smp=4
export MRCORE_BENCH_VCPUS=$smp
echo "bench: booting the guest (QEMU TCG, $mode mode, $smp vCPUs): perftest, then"
echo "bench: mrcore_bench ($row_ms ms x $rounds runs per implementation and row)"
MRCORE_QEMU_MEM=${MRCORE_QEMU_MEM:-3072} guest_qemu bench \
	--timeout "${MRCORE_QEMU_TIMEOUT:-3600}" --append "$append"
guest_ran
echo
# Debian's python3-matplotlib is in the system interpreter's path; a python3
# found first on PATH (a virtualenv, pyenv) may not see it.
py=python3
if ! python3 -c 'import matplotlib' 2>/dev/null && [ -x /usr/bin/python3 ]; then
	py=/usr/bin/python3
fi
exec "$py" "$TOP/scripts/bench-report.py" "$OUT" "$TOP" "$rc"
