#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# List what the source package ships (the DKMS tree, make install-dkms), one
# path a line, relative to the top directory: the kbuild files, the kernel
# sources, the compat probes, dkms.conf and its POST_BUILD script, VERSION,
# COPYING and the Makefile.
# Not build/, not the mirror, no other script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
{
	scripts/kernel-sources.sh
	printf '%s\n' Kbuild Makefile dkms.conf VERSION COPYING scripts/dkms-symvers.sh
	git ls-files --cached --others --exclude-standard -- kunit/Kbuild compat
} | sort -u
