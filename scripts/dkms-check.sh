#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# First, dkms.conf's PACKAGE_VERSION must be the literal of ./VERSION (the
# one place the version is set): Debian's dh_dkms reads it with a regular
# expression, so it cannot be computed.
#
# Then prove that dkms.conf works with Debian's DKMS: "dkms add", "dkms build -k
# <6.12 version>" and "dkms install" against the installed 6.12 headers,
# all in a scratch tree.  Nothing of the running system is touched: DKMS's
# own --dkmstree/--sourcetree/--installtree/--kernelsourcedir options point
# it at the scratch tree, --no-depmod keeps depmod away from /lib/modules,
# and the module-signing key DKMS generates goes to the scratch tree too
# (mok_signing_key/mok_certificate, which DKMS takes from the environment).
# Then checks that the built and the installed module exist and that modinfo
# reads them (vermagic = the target kernel, version = VERSION, no test-hook
# parameter), that the POST_BUILD script kept Module.symvers in the DKMS
# tree, uninstalls, removes, cleans up.
#
#   scripts/dkms-check.sh [KERNELRELEASE]    default: newest 6.12 headers
#
# Last line: a one-line summary.  Non-zero exit on any failure.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

fail() {
	echo "dkms-check: $*" >&2
	echo "dkms-check: FAILED"
	exit 1
}

command -v dkms >/dev/null || fail "dkms missing (scripts/deps.sh installs it)"
[ "$(id -u)" -eq 0 ] || fail "dkms add needs root (DKMS refuses otherwise)"

if [ $# -ge 1 ]; then
	kver=$1
	kdir=/usr/src/linux-headers-$kver
else
	kdir=$(ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | sort -V | tail -n1)
	[ -n "$kdir" ] || fail "no /usr/src/linux-headers-6.12.*-amd64 (linux-headers-6.12-amd64)"
	kver=${kdir#/usr/src/linux-headers-}
fi
[ -e "$kdir/Makefile" ] && [ -e "$kdir/.config" ] ||
	fail "$kdir is not a kernel header tree for $kver"

# Settings in DKMS's system configuration that would act on the running
# system or on system paths despite the options below.
conf=(/etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf
      /etc/dkms/rdma-mrcore*.conf)
for f in "${conf[@]}"; do
	[ -e "$f" ] || continue
	if grep -nE '^[[:space:]]*(modprobe_on_install|sign_file|mok_signing_key|mok_certificate)=' "$f"; then
		fail "$f sets the line(s) above; the check cannot stay off the system"
	fi
	case $f in
	/etc/dkms/rdma-mrcore*) fail "$f overrides this package's dkms.conf" ;;
	esac
done

version=$(cat "$TOP/VERSION")
[ -n "$version" ] || fail "VERSION is empty"
# What dh_dkms matches: a PACKAGE_VERSION="..." line with a literal value.
conf_version=$(sed -n 's/^PACKAGE_VERSION="\([^"$`]*\)"$/\1/p' "$TOP/dkms.conf")
[ -n "$conf_version" ] ||
	fail "dkms.conf: no literal PACKAGE_VERSION=\"...\" line (dh_dkms cannot read it)"
[ "$conf_version" = "$version" ] ||
	fail "dkms.conf: PACKAGE_VERSION=\"$conf_version\", VERSION says $version: make them equal"
name=rdma-mrcore
arch=$(uname -m)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mrcore-dkms.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
stage=$scratch/stage src=$scratch/source tree=$scratch/dkms inst=$scratch/install
mkdir -p "$stage" "$src" "$tree" "$inst/$kver"
log=$scratch/dkms.log

# What a source package ships for DKMS (make install-dkms,
# scripts/dist-files.sh).
make -s -C "$TOP" install-dkms DESTDIR="$stage" >"$scratch/install-dkms.log" 2>&1 ||
	{ cat "$scratch/install-dkms.log"; fail "make install-dkms failed"; }
stage=$stage/usr/src/$name-$version

# Snapshot of what DKMS would touch by default, to prove it did not.
snapshot() {
	ls -la /var/lib/dkms 2>/dev/null || true
	find "/lib/modules/$kver" -newer "$TOP/VERSION" -name 'rdma_mrcore*' 2>/dev/null || true
	ls -la "/lib/modules/$kver" 2>/dev/null || true
	ls -la /usr/src 2>/dev/null | grep -v "$(basename "$scratch")" || true
}
before=$(snapshot)

export mok_signing_key=$scratch/mok.key mok_certificate=$scratch/mok.pub
opts=(--dkmstree "$tree" --sourcetree "$src" --installtree "$inst"
      --kernelsourcedir "$kdir")

run() {
	echo "+ dkms $*" >>"$log"
	if ! dkms "$@" >>"$log" 2>&1; then
		cat "$log" >&2
		for l in "$tree/$name/$version/build/make.log" \
			 "$tree/$name/$version/$kver/$arch/log/make.log"; do
			[ -e "$l" ] && { echo "--- $l" >&2; tail -n 40 "$l" >&2; }
		done
		fail "dkms $1 failed"
	fi
}

run add "${opts[@]}" "$stage"
[ -d "$src/$name-$version" ] || fail "dkms add did not copy the source to the scratch source tree"
run build "${opts[@]}" -m "$name" -v "$version" -k "$kver"
run install "${opts[@]}" --no-depmod -m "$name" -v "$version" -k "$kver"

# Every module dkms.conf names (the core and the ULP adapters).
mapfile -t mods < <(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' "$TOP/dkms.conf")
[ "${#mods[@]}" -gt 0 ] || fail "dkms.conf names no module"
installed_all=()
for mod in "${mods[@]}"; do
	built=$(ls "$tree/$name/$version/$kver/$arch/module/$mod".ko* 2>/dev/null | head -n1)
	[ -n "$built" ] || fail "no built $mod under $tree/$name/$version/$kver/$arch/module"
	installed=$(ls "$inst/$kver/updates/dkms/$mod".ko* 2>/dev/null | head -n1)
	[ -n "$installed" ] || fail "no installed $mod under $inst/$kver/updates/dkms"
	installed_all+=("$installed")
	for m in "$built" "$installed"; do
		vm=$(modinfo -F vermagic "$m") || fail "modinfo cannot read $m"
		[ "${vm%% *}" = "$kver" ] || fail "$m: vermagic '$vm', expected $kver"
		modinfo -F license "$m" | grep -qx GPL || fail "$m: license is not GPL"
		[ "$(modinfo -F version "$m")" = "$version" ] ||
			fail "$m: modinfo version is not $version"
		if modinfo -F parm "$m" | grep -q force_backend; then
			fail "$m: a test hook (force_backend) in the DKMS build"
		fi
	done
done
symvers=$tree/$name/$version/$kver/$arch/Module.symvers
grep -q "	rdma_create_mr	.*	RDMA_MRCORE$" "$symvers" 2>/dev/null ||
	fail "no Module.symvers with rdma_create_mr in RDMA_MRCORE at $symvers (POST_BUILD)"
grep -q "Signing module" "$log" && [ -e "$mok_signing_key" ] ||
	fail "DKMS did not sign with the scratch key (see $log)"
status=$(dkms status "${opts[@]}" -m "$name" -v "$version" -k "$kver" 2>&1)
echo "$status" | grep -q ': installed' || fail "dkms status: $status"

run uninstall "${opts[@]}" --no-depmod -m "$name" -v "$version" -k "$kver"
for m in "${installed_all[@]}"; do
	[ ! -e "$m" ] || fail "dkms uninstall left $m"
done
run remove "${opts[@]}" --no-depmod -m "$name" -v "$version" --all
[ ! -e "$tree/$name/$version" ] || fail "dkms remove left $tree/$name/$version"

after=$(snapshot)
if [ "$before" != "$after" ]; then
	diff <(echo "$before") <(echo "$after") >&2 || true
	fail "system paths changed during the check (above)"
fi
echo "dkms-check: $name $version (= dkms.conf) added, built, installed ($(for m in "${installed_all[@]}"; do basename "$m"; done | paste -sd' '), signed with a scratch key, Module.symvers kept) and removed for $kver in a scratch tree"
