// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_IB_WR_FLUSH: the RDMA FLUSH and ATOMIC WRITE verbs (6.2+):
 * IB_WR_FLUSH, IB_WR_ATOMIC_WRITE, IB_WC_FLUSH, IB_ACCESS_FLUSH_GLOBAL and
 * IB_ACCESS_FLUSH_PERSISTENT, IB_DEVICE_FLUSH_* capability bits.  An
 * access-flag translator that must stay exhaustive needs to know them.
 */
#include <rdma/ib_verbs.h>

const u64 mrcore_probe[] = {
	IB_WR_FLUSH, IB_WR_ATOMIC_WRITE, IB_WC_FLUSH,
	IB_ACCESS_FLUSH_GLOBAL, IB_ACCESS_FLUSH_PERSISTENT,
	IB_DEVICE_FLUSH_GLOBAL, IB_DEVICE_FLUSH_PERSISTENT,
};
