#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The ULP adapters speak their protocol's vocabulary only: no IB access
# flags, no local keys and no transport tests.  Those belong to the core
# (include/rdma/mrcore.h hides them); an adapter that needs one is a gap in
# the core's API, not something to work around.  Their public headers
# (include/rdma/mrcore_nfs.h, mrcore_iser.h) are held to the same rule.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
	'ulp-adapters/*' 'include/rdma/mrcore_nfs.h' 'include/rdma/mrcore_iser.h')
if [ "${#files[@]}" -lt 3 ]; then
	echo "ulp-grep: no adapter sources found"
	exit 1
fi
pattern='IB_ACCESS_|local_dma_lkey|rdma_protocol_iwarp'
if grep -nE "$pattern" "${files[@]}"; then
	echo "ulp-grep: the lines above use access flags, local keys or transport tests"
	exit 1
fi
echo "ulp-grep: ${#files[@]} files clean"
