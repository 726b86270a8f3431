#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prove the package is usable as shipped, in a scratch root (nothing of the
# system is touched):
#
#   1. make install-dkms: the source tree a package ships;
#   2. from that tree alone, make install (production build, modules_install
#      and install-dev) against the 6.12 headers; the modules carry
#      VERSION, GPL, no test hook, and Module.symvers puts every export of
#      the package in namespace RDMA_MRCORE;
#   3. samples/mrcore-ulp, an out-of-tree ULP, built (W=1) against the
#      *installed* headers and Module.symvers through KBUILD_EXTRA_SYMBOLS:
#      any warning, modpost's included, fails; it must import RDMA_MRCORE
#      and depend on rdma_mrcore;
#   4. the same sample without the package's Module.symvers must fail to
#      link (the step can tell an unresolved symbol).
#
#   scripts/install-check.sh [KDIR]     default: newest 6.12 headers
#
# Last line: a one-line summary.  Non-zero exit on any failure.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

fail() {
	echo "install-check: $*" >&2
	echo "install-check: FAILED"
	exit 1
}

kdir=${1:-$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n1)}
[ -n "$kdir" ] && [ -e "$kdir/Makefile" ] ||
	fail "no kernel header tree (linux-headers-6.12-amd64)"
krel=$(cat "$kdir/include/config/kernel.release")
version=$(cat "$TOP/VERSION")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mrcore-install.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
src=$scratch/src root=$scratch/root
pkg=/usr/src/rdma-mrcore-$version

# 1. the shipped source tree
make -s -C "$TOP" install-dkms DESTDIR="$src" >"$scratch/dkms.log" 2>&1 ||
	{ cat "$scratch/dkms.log"; fail "make install-dkms failed"; }
[ -e "$src$pkg/dkms.conf" ] || fail "install-dkms: no $pkg/dkms.conf"

# 2. build and install from it; the kernel's signing key is not in a
# header tree, so modules_install is told not to sign
if ! make -C "$src$pkg" install KDIR="$kdir" DESTDIR="$root" \
	CONFIG_MODULE_SIG_ALL= >"$scratch/install.log" 2>&1; then
	cat "$scratch/install.log"
	fail "make install from the shipped tree failed"
fi
if grep -E 'warning|error' "$scratch/install.log" |
	grep -vE 'Skipping BTF generation|missing .System.map'; then
	fail "make install: the lines above"
fi
symvers=$root$pkg/$krel/Module.symvers
[ -s "$symvers" ] || fail "install-dev: no $pkg/$krel/Module.symvers"
for h in "$TOP"/include/rdma/mrcore*.h; do
	cmp -s "$h" "$root$pkg/include/rdma/${h##*/}" ||
		fail "install-dev: $pkg/include/rdma/${h##*/} missing or different"
done
nexp=$(grep -c . "$symvers")
if awk '$5 != "RDMA_MRCORE"' "$symvers" | grep .; then
	fail "Module.symvers: the exports above are not in namespace RDMA_MRCORE"
fi
for mod in rdma_mrcore mrcore_nfs mrcore_iser; do
	ko=$(ls "$root/lib/modules/$krel/updates/$mod".ko* 2>/dev/null | head -n1)
	[ -n "$ko" ] || fail "make install: no $mod under /lib/modules/$krel/updates"
	[ "$(modinfo -F version "$ko")" = "$version" ] ||
		fail "$mod: modinfo version '$(modinfo -F version "$ko")', VERSION says $version"
	[ "$(modinfo -F license "$ko")" = GPL ] || fail "$mod: license is not GPL"
	if modinfo -F parm "$ko" | grep -q force_backend; then
		fail "$mod: the production build has the force_backend parameter"
	fi
done

# 3. the sample ULP against the installed package
build_sample() {
	local dir=$scratch/$1
	shift
	cp -r "$TOP/samples/mrcore-ulp" "$dir"
	make -C "$dir" KDIR="$kdir" MRCORE_DIR="$root$pkg" W=1 "$@" modules \
		>"$dir/build.log" 2>&1
}
if ! build_sample sample; then
	cat "$scratch/sample/build.log"
	fail "the sample ULP does not build against the installed package"
fi
if grep -E 'warning|error|WARNING' "$scratch/sample/build.log" |
	grep -v 'Skipping BTF generation'; then
	fail "the sample ULP: the lines above (modpost warnings are errors here)"
fi
ko=$scratch/sample/mrcore_sample.ko
modinfo -F import_ns "$ko" | grep -qx RDMA_MRCORE || fail "sample: does not import RDMA_MRCORE"
modinfo -F depends "$ko" | tr , '\n' | grep -qx rdma_mrcore ||
	fail "sample: does not depend on rdma_mrcore"

# 4. without the package's symbols it must not link
: >"$scratch/empty.symvers"
if build_sample sample-unresolved MRCORE_SYMVERS="$scratch/empty.symvers"; then
	fail "the sample linked without rdma-mrcore's Module.symvers"
fi
grep -q 'rdma_create_mr.*undefined' "$scratch/sample-unresolved/build.log" ||
	{ tail -n 20 "$scratch/sample-unresolved/build.log"; fail "no unresolved-symbol report"; }

echo "install-check: $version installed for $krel ($nexp exports in RDMA_MRCORE, headers, Module.symvers); the sample ULP builds against it and fails without its Module.symvers"
