/* SPDX-License-Identifier: GPL-2.0-only */
/* The public headers include <linux/bvec.h>; in the mirror it is this. */
#include "mrcore_internal.h"
