#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# List the project's kernel C sources (everything that runs in the kernel),
# one per line, relative to the top directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git ls-files --cached --others --exclude-standard -- \
	'include/*.h' 'core/*.[ch]' 'drivers/*.[ch]' 'kunit/*.[ch]' \
	'tests/cases/*.h' \
	'ulp-adapters/*.[ch]' 'samples/*.[ch]' 'compat/*.h' | sort
