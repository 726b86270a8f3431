// SPDX-License-Identifier: GPL-2.0-only
/*
 * multiread backend: an I/O as several RDMA READ (or WRITE) WRs on the PD's
 * local DMA lkey, each with at most as many SGEs as the QP takes in one
 * READ (max_read_sge) or WRITE (max_write_sge).  No MR, no registration WR,
 * no invalidation: the cheapest way whenever the SG list is short.  The core
 * prices and builds it (RDMA_IO_SGES); this backend declares it.  The local
 * DMA lkey never leaves the host and grants no remote access, which is why
 * an iWARP READ never goes this way: the READ request would carry it as the
 * sink's STag.
 */
#include "mrcore_internal.h"

static bool multiread_serves(struct ib_device *dev)
{
	return true;
}

struct rdma_mr_backend_ops mrcore_multiread_ops = {
	.name = "multiread",
	.owner = THIS_MODULE,
	.serves = multiread_serves,
	.io_flags = RDMA_IO_SGES,
};
