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
#      link (the step can tell an unresolved symbol);
#   5. steps 1-3 again for the kernel the KUnit guest boots
#      (scripts/test-kernel.sh; built first if it is not yet): the installed
#      rdma_mrcore.ko and the sample built against that install go to
#      build/install/<flavour>/ (default flavour "test"), which
#      scripts/kunit.sh puts into the guest's initramfs; the guest loads
#      them and the sample moves data on rxe and siw (scripts/guest-init.sh).
#
#   scripts/install-check.sh [KDIR]   all steps; KDIR: default newest 6.12 headers
#   scripts/install-check.sh --guest  step 5 only, and only if its output is
#                                     stale (scripts/kunit.sh runs this)
#
# Last line: a one-line summary.  Non-zero exit on any failure.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

fail() {
	echo "install-check: $*" >&2
	echo "install-check: FAILED"
	exit 1
}

version=$(cat "$TOP/VERSION")
pkg=/usr/src/rdma-mrcore-$version
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mrcore-install.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# install <KDIR> <dir>: steps 1 and 2 into <dir>/src and <dir>/root
install_pkg() {
	local kdir=$1 dir=$2
	# 1. the shipped source tree
	make -s -C "$TOP" install-dkms DESTDIR="$dir/src" >"$dir/dkms.log" 2>&1 ||
		{ cat "$dir/dkms.log"; fail "make install-dkms failed"; }
	[ -e "$dir/src$pkg/dkms.conf" ] || fail "install-dkms: no $pkg/dkms.conf"

	# 2. build and install from it; the kernel's signing key is not in a
	# header tree, so modules_install is told not to sign
	if ! make -C "$dir/src$pkg" -j"$(nproc)" install KDIR="$kdir" \
		DESTDIR="$dir/root" CONFIG_MODULE_SIG_ALL= >"$dir/install.log" 2>&1; then
		cat "$dir/install.log"
		fail "make install from the shipped tree failed ($kdir)"
	fi
	if grep -E 'warning|error' "$dir/install.log" |
		grep -vE 'Skipping BTF generation|missing .System.map'; then
		fail "make install ($kdir): the lines above"
	fi
}

# build_sample <KDIR> <installed package> <dir> [make args]: step 3
build_sample() {
	local kdir=$1 mrcore=$2 dir=$3
	shift 3
	cp -r "$TOP/samples/mrcore-ulp" "$dir"
	make -C "$dir" KDIR="$kdir" MRCORE_DIR="$mrcore" W=1 "$@" modules \
		>"$dir/build.log" 2>&1
}

# check_sample <dir>: what step 3 asks of a sample that built
check_sample() {
	if grep -E 'warning|error|WARNING' "$1/build.log" |
		grep -v 'Skipping BTF generation'; then
		fail "the sample ULP: the lines above (modpost warnings are errors here)"
	fi
	local ko=$1/mrcore_sample.ko
	modinfo -F import_ns "$ko" | grep -qx RDMA_MRCORE || fail "sample: does not import RDMA_MRCORE"
	modinfo -F depends "$ko" | tr , '\n' | grep -qx rdma_mrcore ||
		fail "sample: does not depend on rdma_mrcore"
}

# 5. the package and the sample for the guest's kernel, into
# build/install/<flavour>/ unless the stamp there says they are current:
# what the package ships, the sample, this script and the kernel's key
guest_pkg() {
	local kdir krel out stamp dir=$scratch/guest
	kdir=$("$TOP/scripts/test-kernel.sh" --print-dir)
	# Not built yet: build it now (a stale one is rebuilt by
	# scripts/kunit.sh, whose --guest call then finds a new key here)
	[ -f "$kdir/.mrcore-key" ] || "$TOP/scripts/test-kernel.sh" | sed -n '/^test-kernel:/p'
	krel=$(cat "$kdir/include/config/kernel.release")
	out=$TOP/build/install/$(basename "$kdir")
	mkdir -p "$TOP/build/install"
	exec 7>"$out.lock"
	flock 7		# one writer at a time (make soak and make kunit)
	stamp=$( cd "$TOP" && {
		scripts/dist-files.sh
		git ls-files --cached --others --exclude-standard -- samples/mrcore-ulp
		echo scripts/install-check.sh; } | sort -u | xargs sha256sum
		cat "$kdir/.mrcore-key" )
	stamp=$(sha256sum <<<"$stamp" | cut -c1-32)
	if [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ] &&
		[ -f "$out/rdma_mrcore.ko" ] && [ -f "$out/mrcore_sample.ko" ]; then
		echo "install-check: guest package for $krel up to date ($out)"
		return
	fi
	mkdir -p "$dir"
	install_pkg "$kdir" "$dir"
	build_sample "$kdir" "$dir/root$pkg" "$dir/sample" ||
		{ cat "$dir/sample/build.log"; fail "the sample ULP does not build against the package installed for $krel"; }
	check_sample "$dir/sample"
	# replaced at once: a guest build reading it sees the old or the new
	local new=$out.new.$$
	rm -rf "$new" "$out.old"
	mkdir -p "$new"
	cp "$dir/root/lib/modules/$krel/updates/rdma_mrcore.ko" \
		"$dir/sample/mrcore_sample.ko" "$dir/root$pkg/$krel/Module.symvers" "$new/"
	echo "$stamp" >"$new/stamp"
	[ ! -d "$out" ] || mv "$out" "$out.old"
	mv "$new" "$out"
	rm -rf "$out.old"
	echo "install-check: guest package: rdma_mrcore.ko as installed for $krel and the sample built against it, in $out"
}

if [ "${1:-}" = --guest ]; then
	guest_pkg
	exit 0
fi

kdir=${1:-$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n1)}
[ -n "$kdir" ] && [ -e "$kdir/Makefile" ] ||
	fail "no kernel header tree (linux-headers-6.12-amd64)"
krel=$(cat "$kdir/include/config/kernel.release")
root=$scratch/root
install_pkg "$kdir" "$scratch"
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
if ! build_sample "$kdir" "$root$pkg" "$scratch/sample"; then
	cat "$scratch/sample/build.log"
	fail "the sample ULP does not build against the installed package"
fi
check_sample "$scratch/sample"

# 4. without the package's symbols it must not link
: >"$scratch/empty.symvers"
if build_sample "$kdir" "$root$pkg" "$scratch/sample-unresolved" \
	MRCORE_SYMVERS="$scratch/empty.symvers"; then
	fail "the sample linked without rdma-mrcore's Module.symvers"
fi
grep -q 'rdma_create_mr.*undefined' "$scratch/sample-unresolved/build.log" ||
	{ tail -n 20 "$scratch/sample-unresolved/build.log"; fail "no unresolved-symbol report"; }

# 5. for the guest
guest_pkg

echo "install-check: $version installed for $krel ($nexp exports in RDMA_MRCORE, headers, Module.symvers); the sample ULP builds against it and fails without its Module.symvers; the guest's package and sample are in build/install/"
