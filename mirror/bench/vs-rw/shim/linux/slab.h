/* SPDX-License-Identifier: GPL-2.0-only */
/* Empty: rw_shim.h and mrcore_internal.h, force-included, hold what ib_core's
 * rw.c, mr_pool.c and rw.h use of it. */
