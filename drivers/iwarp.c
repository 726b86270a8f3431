// SPDX-License-Identifier: GPL-2.0-only
/*
 * iwarp backend: RDMA READs into temporary local MRs.
 *
 * An iWARP READ response is placed through the sink's STag like a remote
 * write, so the sink must be registered with REMOTE_WRITE.  Such a key must
 * not outlive its I/O: the READ is a READ_WITH_INV that kills the sink's
 * STag as it completes, or, on a device without it, a READ followed by a
 * LOCAL_INV in the same chain.  The core builds that from the pool's MRs
 * (RDMA_IO_IWARP_READ); this backend declares it, for iWARP devices.  Every
 * iWARP READ goes this way, one SGE included: no other backend may name the
 * PD's local DMA lkey as an iWARP READ sink.
 */
#include "mrcore_internal.h"

static bool iwarp_serves(struct ib_device *dev)
{
	return rdma_protocol_iwarp(dev, rdma_start_port(dev));
}

struct rdma_mr_backend_ops mrcore_iwarp_ops = {
	.name = "iwarp",
	.owner = THIS_MODULE,
	.serves = iwarp_serves,
	.io_flags = RDMA_IO_IWARP_READ,
};
