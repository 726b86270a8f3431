#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Soak of the mirror: random I/Os on every device profile and backend with
# random injected faults, data verified, zero leaks.
#
#   scripts/soak.sh           the short run of make check (100000 I/Os)
#   scripts/soak.sh --long    make soak (1000000 I/Os)
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/build/mirror
cmake -S "$TOP/mirror" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Debug >/dev/null
ninja -C "$B" mirror_soak >/dev/null
ios=100000
[ "${1:-}" = --long ] && ios=1000000
"$B/mirror_soak" "$ios" "${MRCORE_SOAK_SEED:-1}"
