#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install everything the build, the tests and the demo need, from Debian's
# archive only.  Idempotent: packages already present are not fetched again.
set -euo pipefail

pkgs=(
	# out-of-tree module builds against Debian's 6.1 and 6.12 headers
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	linux-headers-amd64 linux-headers-6.12-amd64
	# the test kernel's source, checkpatch.pl, kernel-doc, kunit.py
	linux-source-6.12 xz-utils python3
	# static checkers
	sparse codespell
	# userspace mirror
	g++ cmake ninja-build googletest libgtest-dev libgmock-dev
	libbenchmark-dev clang libclang-rt-14-dev valgrind
	# QEMU and the guest's userland
	qemu-system-x86 busybox-static iproute2 rdma-core ibverbs-providers
	libibverbs1 librdmacm1 perftest
	# make nvmeof: the guest runs Debian's own nvme-cli and fio, unmodified,
	# from the host's root shared read-only (scripts/lib/rootfs-guest.sh)
	nvme-cli fio util-linux bash
	# make nfsrdma: the kernel NFS server's and client's userland, likewise
	nfs-kernel-server nfs-common rpcbind
	# make kunit-2host: the capture of the wire between the guests
	tcpdump
	# make nvmeof-ab and nfsrdma-ab with AB_PROFILE=1: perf in the guest
	linux-perf
	# packaging
	dkms openssl
	# documentation (make docs)
	python3-sphinx python3-alabaster
	# make bench: build/bench/throughput.png
	python3-matplotlib
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
