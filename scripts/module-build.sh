#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the modules out of tree against one kernel, in a copy of the sources
# under build/kbuild-<name> so builds for several kernels never share
# objects.  Any compiler or sparse warning fails.
#
#   scripts/module-build.sh <name> <KDIR> [sparse]
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=$1 kdir=$2 mode=${3:-build}
[ -e "$kdir/Makefile" ] || { echo "module-build: $kdir is not a kernel build tree"; exit 1; }

dst=$TOP/build/kbuild-$name
mkdir -p "$dst"
( cd "$TOP" && scripts/kernel-sources.sh; echo Kbuild; ls kunit/Kbuild 2>/dev/null
  git ls-files --cached --others --exclude-standard -- compat ) |
	tar -C "$TOP" -cf - -T - | tar -C "$dst" -xpf -

args=(-C "$kdir" M="$dst" W=1)
if [ "$mode" = sparse ]; then
	command -v sparse >/dev/null || { echo "module-build: sparse missing"; exit 1; }
	args+=(C=2)
fi
log=$dst/build.log
if ! make "${args[@]}" modules >"$log" 2>&1; then
	cat "$log"
	echo "module-build: $name: build failed"
	exit 1
fi
# Kbuild's own note about BTF on headers-only trees is not a warning.
if grep -E 'warning|error' "$log" | grep -v 'Skipping BTF generation'; then
	echo "module-build: $name ($mode): warnings"
	exit 1
fi
if [ "$mode" = sparse ] && ! grep -q '^  CHECK' "$log"; then
	echo "module-build: $name: sparse did not run"
	exit 1
fi
echo "module-build: $name ($mode): $(ls "$dst"/*.ko "$dst"/*/*.ko 2>/dev/null | wc -l) modules, no warnings"
