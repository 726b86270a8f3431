#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the modules out of tree against one kernel, twice: with the test
# hooks (CONFIG_RDMA_MRCORE_TEST_HOOKS=y, as the test guest builds them) and
# without (the production build, as DKMS builds it).  Each build has a copy
# of the sources of its own under build/kbuild-<name>[-prod], so builds for
# several kernels or variants never share objects.  Any compiler or sparse
# warning fails, in either build.
#
#   scripts/module-build.sh <name> <KDIR> [sparse]
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=$1 kdir=$2 mode=${3:-build}
[ -e "$kdir/Makefile" ] || { echo "module-build: $kdir is not a kernel build tree"; exit 1; }
if [ "$mode" = sparse ]; then
	command -v sparse >/dev/null || { echo "module-build: sparse missing"; exit 1; }
fi

# build <dir> <label> [make args...]
build() {
	local dst=$1 label=$2
	shift 2
	local list
	list=$( cd "$TOP" && { scripts/kernel-sources.sh; echo Kbuild; echo VERSION
		ls kunit/Kbuild 2>/dev/null
		git ls-files --cached --others --exclude-standard -- compat; } |
		sort -u )
	# Another set of files than last time (one removed, renamed or
	# added): start from an empty tree, so no object of a file that is
	# gone (a .o, a .ko, a generated header) can be linked or counted.
	# The same set: the copy is refreshed and kbuild rebuilds what changed.
	if [ -d "$dst" ] && [ "$list" != "$(cat "$dst/.mrcore-sources" 2>/dev/null)" ]; then
		echo "module-build: $name $label: the set of sources changed, building from scratch"
		rm -rf "$dst"
	fi
	mkdir -p "$dst"
	printf '%s\n' "$list" | tar -C "$TOP" -cf - -T - | tar -C "$dst" -xpf -
	printf '%s\n' "$list" >"$dst/.mrcore-sources"

	local args=(-C "$kdir" M="$dst" W=1 "$@")
	[ "$mode" = sparse ] && args+=(C=2)
	local log=$dst/build.log
	if ! make "${args[@]}" modules >"$log" 2>&1; then
		cat "$log"
		echo "module-build: $name $label: build failed"
		exit 1
	fi
	# Kbuild's own note about BTF on headers-only trees is not a warning.
	if grep -E 'warning|error' "$log" | grep -v 'Skipping BTF generation'; then
		echo "module-build: $name $label ($mode): warnings"
		exit 1
	fi
	if [ "$mode" = sparse ] && ! grep -q '^  CHECK' "$log"; then
		echo "module-build: $name $label: sparse did not run"
		exit 1
	fi
	nmods=$(grep -c . "$dst/modules.order")
}

build "$TOP/build/kbuild-$name" test-hooks CONFIG_RDMA_MRCORE_TEST_HOOKS=y
hooks=$nmods
prod=$TOP/build/kbuild-$name-prod
build "$prod" production
# The production module has neither test hook: no symbol of fault
# injection or of the force_backend knob (the pool's own
# rdma_io_pool_force_backend() is API, the kernel's default_llseek is not
# ours).
if nm "$prod/rdma_mrcore.ko" | awk '{ print $NF }' |
	grep -E 'fault|force_backend' |
	grep -vE '^(default_llseek|(__[a-z]+_)?rdma_io_pool_force_backend(\.[a-z0-9.]+)?)$'; then
	echo "module-build: $name production: test-hook symbols above"
	exit 1
fi
if modinfo -F parm "$prod/rdma_mrcore.ko" | grep -q force_backend; then
	echo "module-build: $name production: has the force_backend parameter"
	exit 1
fi
echo "module-build: $name ($mode): $hooks modules with test hooks, $nmods without, no warnings"
