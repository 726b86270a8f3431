#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make nvmeof: real NVMe over Fabrics on rdma-mrcore.  Builds the test
# kernel (cached), rdma_mrcore.ko, and the NVMe ports (scripts/ulp-ports.sh:
# nvme-rdma and nvmet-rdma from linux-source-6.12, stock and converted);
# boots guests whose root is the host's own Debian (nvme-cli, fio, kmod,
# iproute2 unmodified; scripts/guest-init.sh, mode rootfs) and runs
# scripts/nvmeof-guest.sh in them: on siw and rxe, for each pairing of host
# and target transport, nvmet configured through configfs on a brd RAM
# disk, nvme connect -t rdma, fio with crc32c verification, nvme
# disconnect, every module unloaded, a kmemleak scan; in one guest, then
# in two joined by a virtio-net wire (host in one, target in the other).
# scripts/nvmeof-report.py writes build/nvmeof/results.json and judges the
# run (last line "nvmeof: N passed, M failed").
#
# --smoke (make check): siw only, both ends converted, one kernel, 64 MiB,
# the attacker on the converted host's PD (2 samples per direction), the
# resp_post fault (a stock host), on make kunit's build.
#
# Environment:
#   MRCORE_NVMEOF_OUT       output directory (default build/nvmeof)
#   MRCORE_NVMEOF_DEVICES   device kinds (default "siw rxe")
#   MRCORE_NVMEOF_PAIRINGS  host/target pairings (default
#                           "mrcore/stock stock/mrcore mrcore/mrcore")
#   MRCORE_NVMEOF_TOPOLOGIES  "one" (host and target in one guest), "two"
#                           (two guests on a virtio-net wire); default both
#   MRCORE_NVMEOF_MIB       MiB written and verified per device and
#                           pairing, over the six fio shapes (default 256;
#                           a multiple of 64)
#   MRCORE_NVMEOF_FAULTS    1 (default): per device, after the pairings, on
#                           the converted ends: the target module removed
#                           under a connected host and the converted
#                           target's response posts failed by the core's
#                           post_wr fault (one kernel), the link down 20 s
#                           while fio verifies (two kernels); resp_post:
#                           that fault alone (--smoke's); 0: none
#   MRCORE_NVMEOF_FAULT_PAIRINGS  host/target pairings the link_down fault
#                           runs on, in turn (default mrcore/mrcore; add
#                           stock/stock to compare)
#   MRCORE_NVMEOF_LINK_FAULT  how the link goes down: "down" (the host's
#                           eth0 down), "cut" (the wire cut, both links
#                           up), "auto" (default: down on siw, cut on rxe,
#                           whose own port going down and up leaves even a
#                           stock host unable to reconnect)
#   MRCORE_NVMEOF_SECURITY  hosts attacked, one kernel, per device (default
#                           "stock mrcore"; "" for none): an attacker on
#                           another connection of the host's PD tries the
#                           keys of commands in flight and just completed
#                           (ulp-ports/nvme/key_attack.c)
#   MRCORE_NVMEOF_SEC_SAMPLES  samples per direction of each attack (4)
#   MRCORE_NVMEOF_CONNECT   more options of every nvme connect (a planted
#                           bug's run: "--ctrl-loss-tmo=10", so that a host
#                           whose I/O keeps failing gives up)
#   MRCORE_NVMEOF_BUILD     a build of scripts/guest-build.sh to use, its
#                           lock held by the caller (make demo's)
#   MRCORE_NVMEOF_AB_ROUNDS  --ab: rounds, each variant once per round (3)
#   MRCORE_NVMEOF_AB_SECS   --ab: seconds of guest time per fio run (3)
#   MRCORE_NVMEOF_AB_JOBS   --ab: the fio shapes, rw:bs:iodepth (the
#                           issue's eight: random read and write, 4k at 1
#                           and 16, 128k at 16, 1m at 4)
#   MRCORE_NVMEOF_AB_VARIANTS  --ab: name:host:target of each variant
#                           (default "aa:stock:stock aa2:stock:stock
#                           host:mrcore:stock target:stock:mrcore")
#   MRCORE_NVMEOF_AB_PROFILE  --ab: 1 samples each fio run with perf
#                           (cpu-clock, the guest's clock: its instructions
#                           in icount mode) into ab-*.perf.txt; the figures
#                           of such a run are not the A/B's
#   MRCORE_QEMU_TIMEOUT     bound on the guest (default 3600 s)
set -euo pipefail

# shellcheck source=scripts/lib/guest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/guest.sh"
if [ "${1:-}" = --smoke ]; then
	# make check's: one device, converted both ends, one kernel, 64 MiB,
	# the resp_post fault, on make kunit's build (its modules and
	# initramfs, cached).
	OUT=${MRCORE_NVMEOF_OUT:-$TOP/build/nvmeof-smoke}
	BUILD=$TOP/build/kunit
	export MRCORE_GUEST_SAMPLE=1
	: "${MRCORE_NVMEOF_DEVICES:=siw}" "${MRCORE_NVMEOF_PAIRINGS:=mrcore/mrcore}"
	: "${MRCORE_NVMEOF_TOPOLOGIES:=one}" "${MRCORE_NVMEOF_MIB:=64}"
	: "${MRCORE_NVMEOF_FAULTS:=resp_post}" "${MRCORE_NVMEOF_SECURITY=mrcore}"
	: "${MRCORE_NVMEOF_SEC_SAMPLES:=1}"
elif [ "${1:-}" = --ab ]; then
	# make nvmeof-ab: fio's IOPS and MB/s, stock against converted, on
	# the bench kernel (no KASAN, kmemleak, lockdep, DMA-API debugging)
	# in make bench's icount mode: one vCPU whose clock advances by the
	# instructions it runs, so rates measure the guest's work, not the
	# host's load.
	OUT=${MRCORE_NVMEOF_OUT:-$TOP/build/nvmeof-ab}
	export MRCORE_KERNEL_FLAVOUR=bench
	export MRCORE_QEMU_ACCEL=tcg MRCORE_QEMU_SMP=1
	export MRCORE_QEMU_EXTRA="${MRCORE_QEMU_EXTRA:-} -icount shift=1,sleep=off"
	AB=1
	MRCORE_NVMEOF_TOPOLOGIES=one MRCORE_NVMEOF_MIB=64 MRCORE_NVMEOF_FAULTS=0
	MRCORE_NVMEOF_SECURITY=
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--smoke | --ab]" >&2
	exit 2
fi
OUT=${OUT:-${MRCORE_NVMEOF_OUT:-$TOP/build/nvmeof}}
# make demo passes its own build, whose lock it holds.
BUILD=${BUILD:-${MRCORE_NVMEOF_BUILD:-$OUT}}
mkdir -p "$OUT" "$BUILD"
OUT=$(cd "$OUT" && pwd) BUILD=$(cd "$BUILD" && pwd)
guest_start nvmeof "$OUT" counts

devices=${MRCORE_NVMEOF_DEVICES:-siw rxe}
pairings=${MRCORE_NVMEOF_PAIRINGS-mrcore/stock stock/mrcore mrcore/mrcore}
topologies=${MRCORE_NVMEOF_TOPOLOGIES:-one two}
mib=${MRCORE_NVMEOF_MIB:-256}
faults=${MRCORE_NVMEOF_FAULTS:-1}
security=${MRCORE_NVMEOF_SECURITY-stock mrcore}
[ $((mib % 64)) -eq 0 ] && [ "$mib" -gt 0 ] ||
	guest_fail "MRCORE_NVMEOF_MIB=$mib is not a positive multiple of 64"
# The six shapes, bs:iodepth:MiB, their regions back to back on the
# namespace; the sizes are 1, 1, 4, 4, 24 and 30 64ths of the total (4 KiB
# I/O moves 0.2-1.8 MB/s in this guest, 1 MiB I/O 2-18).
u=$((mib / 64))
jobs="4k:1:$u 4k:16:$u 128k:1:$((4 * u)) 128k:16:$((4 * u)) 1m:1:$((24 * u)) 1m:16:$((30 * u))"

ulp_prepare nvmeof MRCORE_NVMEOF_BUILD nvme

# What the guests read (/mrcore-out/config.sh), besides ROLE and TOPOLOGY.
ulp_config() {
	cat <<CFG
MODROOT='$modroot'
MRCORE_KO='$BUILD/src/rdma_mrcore.ko'
HARNESS_KO='$BUILD/src/kunit/mrcore_harness.ko'
PORTS='$OUT/ports'
DEVICES='$devices'
PAIRINGS='$pairings'
JOBS='$jobs'
NS_MIB=$mib
FAULTS=$faults
SECURITY='$security'
SEC_SAMPLES=${MRCORE_NVMEOF_SEC_SAMPLES:-4}
FAULT_PAIRINGS='${MRCORE_NVMEOF_FAULT_PAIRINGS:-mrcore/mrcore}'
LINK_FAULT=${MRCORE_NVMEOF_LINK_FAULT:-auto}
AB=${AB:-0}
AB_ROUNDS=${MRCORE_NVMEOF_AB_ROUNDS:-3}
AB_SECS=${MRCORE_NVMEOF_AB_SECS:-3}
AB_JOBS='${MRCORE_NVMEOF_AB_JOBS:-randread:4k:1 randwrite:4k:1 randread:4k:16 randwrite:4k:16 randread:128k:16 randwrite:128k:16 randread:1m:4 randwrite:1m:4}'
AB_VARIANTS='${MRCORE_NVMEOF_AB_VARIANTS:-aa:stock:stock aa2:stock:stock host:mrcore:stock target:stock:mrcore}'
AB_PROFILE=${MRCORE_NVMEOF_AB_PROFILE:-0}
CONNECT_DEFAULT='${MRCORE_NVMEOF_CONNECT:-}'
CFG
}
rcs=()
echo "nvmeof: guests on the host's root (read-only, under a tmpfs overlay), QEMU TCG;"
if [ "${AB:-0}" = 1 ]; then
	echo "nvmeof: A/B on $devices, icount mode, one vCPU: stock, stock again (A/A),"
	echo "nvmeof: converted host, converted target; ${MRCORE_NVMEOF_AB_ROUNDS:-3} rounds"
else
	echo "nvmeof: devices $devices; pairings (host/target) $pairings;"
	echo "nvmeof: $mib MiB written and verified per device and pairing"
fi
ulp_topologies "$TOP/scripts/nvmeof-guest.sh" host target $topologies
echo "nvmeof: total $(($(date +%s) - start)) s"
ulp_report "$OUT" "${rcs[@]}"
