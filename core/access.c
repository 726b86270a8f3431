// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transport-independent operations to IB access flags.
 *
 * ULPs say what happens to the memory; this file alone decides which access
 * flags that takes on a given device.  Nothing else in the module builds
 * access flags, so the rules below are the whole story.
 */
#include "mrcore_priv.h"

static enum dma_data_direction mrcore_dir(bool device_reads, bool device_writes)
{
	if (device_reads && device_writes)
		return DMA_BIDIRECTIONAL;
	return device_writes ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/**
 * mrcore_local_access() - access flags for an lkey mapping
 * @dev: the device that will use the key.
 * @local_ops: RDMA_MR_LOCAL_* operations the HCA performs on the memory.
 * @out: resulting access flags and DMA direction.
 *
 * Local reads (SEND and WRITE sources) need no access flag at all.  Sinks need
 * LOCAL_WRITE.  iWARP places READ responses through the sink's STag as if
 * the responder wrote them (RFC 5040), so a READ sink on iWARP also needs
 * REMOTE_WRITE: that is the only case where an lkey mapping is remotely
 * usable, and the core makes such a mapping be invalidated before its memory
 * is released.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @local_ops is empty or holds a bit that is not a
 * local operation (remote operations included).
 */
int mrcore_local_access(struct ib_device *dev, unsigned int local_ops,
			struct mrcore_access *out)
{
	bool sink = local_ops & (RDMA_MR_LOCAL_RECV_SINK |
				 RDMA_MR_LOCAL_READ_SINK);
	bool source = local_ops & (RDMA_MR_LOCAL_SEND_SRC |
				   RDMA_MR_LOCAL_WRITE_SRC);

	if (!local_ops || (local_ops & ~RDMA_MR_LOCAL_ALL))
		return -EINVAL;

	out->ib_access = sink ? IB_ACCESS_LOCAL_WRITE : 0;
	if ((local_ops & RDMA_MR_LOCAL_READ_SINK) &&
	    rdma_protocol_iwarp(dev, rdma_start_port(dev)))
		out->ib_access |= IB_ACCESS_REMOTE_WRITE;
	out->dir = mrcore_dir(source, sink);
	return 0;
}

/**
 * mrcore_remote_access() - access flags for an rkey mapping
 * @remote_ops: RDMA_MR_REMOTE_* operations the peer may perform.
 * @out: resulting access flags and DMA direction.
 *
 * Exactly the requested remote operations are granted.  REMOTE_WRITE comes
 * with LOCAL_WRITE because the verbs require it.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @remote_ops is empty or holds a bit that is not a
 * remote operation (local operations included).
 */
int mrcore_remote_access(unsigned int remote_ops, struct mrcore_access *out)
{
	bool peer_reads = remote_ops & RDMA_MR_REMOTE_READ;
	bool peer_writes = remote_ops & RDMA_MR_REMOTE_WRITE;

	if (!remote_ops || (remote_ops & ~RDMA_MR_REMOTE_ALL))
		return -EINVAL;

	out->ib_access = 0;
	if (peer_reads)
		out->ib_access |= IB_ACCESS_REMOTE_READ;
	if (peer_writes)
		out->ib_access |= IB_ACCESS_REMOTE_WRITE |
				  IB_ACCESS_LOCAL_WRITE;
	out->dir = mrcore_dir(peer_reads, peer_writes);
	return 0;
}

/**
 * mrcore_access_is_remote() - whether access flags let the peer in
 * @ib_access: IB access flags.
 *
 * Context: Any context.
 * Return: true if a key with @ib_access can be used by the peer.
 */
bool mrcore_access_is_remote(int ib_access)
{
	return ib_access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
			    IB_ACCESS_REMOTE_ATOMIC);
}
