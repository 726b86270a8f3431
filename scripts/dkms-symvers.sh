#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# DKMS POST_BUILD (dkms.conf): keep the Module.symvers of the modules just
# built, which DKMS's clean step would delete, in the DKMS tree beside the
# built modules, for out-of-tree ULPs' KBUILD_EXTRA_SYMBOLS.  DKMS runs it
# from the build directory.
#
#   scripts/dkms-symvers.sh <dkms_tree>/<name>/<version>/<kernelrelease>/<arch>
set -eu
dest=${1:?usage: dkms-symvers.sh DESTDIR}
[ -s Module.symvers ] || { echo "dkms-symvers: no Module.symvers in $(pwd)" >&2; exit 1; }
mkdir -p "$dest"
cp Module.symvers "$dest/Module.symvers"
