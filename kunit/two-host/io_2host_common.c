// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helpers of io_e2e.h, built into mrcore_2host.ko as well (an object
 * is linked into one module only).
 */
/*
 * Across two TCG guests sharing the cores with other work, a 4 MiB WRITE
 * on siw was seen to take more than 30 s.
 */
#define IO_TIMEOUT_MS	180000
#include "io_e2e_common.c"
