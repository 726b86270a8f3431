#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the kernel sources must never contain: the insecure registration
# workarounds of security rule 4 (a global rkey, a DMA MR with remote
# access) and scattered kernel-version checks (compat goes through feature
# tests in one header).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t files < <(scripts/kernel-sources.sh)
pattern='IB_PD_UNSAFE_GLOBAL_RKEY|unsafe_global_rkey|ib_get_dma_mr|get_dma_mr|LINUX_VERSION_CODE|KERNEL_VERSION\('
if grep -nE "$pattern" "${files[@]}"; then
	echo "forbidden: the lines above use what the project rules out"
	exit 1
fi
echo "forbidden: ${#files[@]} files clean"
