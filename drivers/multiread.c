// SPDX-License-Identifier: GPL-2.0-only
/*
 * multiread backend: an I/O as several RDMA READ (or WRITE) WRs on the PD's
 * local DMA lkey, each with at most as many SGEs as the QP takes in one
 * READ (max_read_sge) or WRITE (max_write_sge).  No MR, no registration WR, no
 * invalidation: the cheapest way whenever the SG list is short.  The local
 * DMA lkey never leaves the core and grants no remote access.  It never
 * sinks an iWARP READ: there the READ response names the sink's STag on the
 * wire, and that of the PD's DMA MR would name all memory.
 */
#include "mrcore_internal.h"

static bool multiread_serves(struct ib_device *dev)
{
	return true;
}

/*
 * The QP's own limits, which ib_create_qp() derived from the capabilities
 * the ULP asked for and the device's READ limit: a QP may take fewer SGEs
 * than its device.
 */
static u32 multiread_sges_per_wr(const struct rdma_io_ctx *ctx)
{
	const struct ib_qp *qp = ctx->pool->qp;
	u32 n = ctx->dir == DMA_FROM_DEVICE ? qp->max_read_sge :
					      qp->max_write_sge;

	return max(n, 1u);
}

static int multiread_plan(const struct rdma_io_ctx *ctx,
			  struct rdma_io_plan *plan)
{
	u32 sges = ctx->dma_nents;

	/*
	 * iWARP places a READ response through the sink's STag, as a remote
	 * write (RFC 5040): the sink must be an MR with REMOTE_WRITE, and its
	 * STag travels in the READ request.  The PD's local DMA lkey is no
	 * such MR -- a device that follows the rule refuses it, and one that
	 * takes it (siw) puts the STag of an MR over all memory on the wire.
	 * So no iWARP READ here, however short: the iwarp backend's
	 * temporary sink MR, which dies with the READ, serves them all.
	 */
	if (ctx->dir == DMA_FROM_DEVICE && rdma_io_pool_iwarp(ctx->pool))
		return -EOPNOTSUPP;

	plan->wrs = DIV_ROUND_UP(sges, multiread_sges_per_wr(ctx));
	plan->mrs = 0;
	plan->cost = rdma_io_cost(plan->wrs, 0, 0, sges);
	return 0;
}

static int multiread_build(struct rdma_io_ctx *ctx)
{
	u32 lkey = rdma_io_pool_pd(ctx->pool)->local_dma_lkey;
	u32 per_wr = multiread_sges_per_wr(ctx);
	u32 nr_wrs = DIV_ROUND_UP(ctx->dma_nents, per_wr);
	enum ib_wr_opcode op = ctx->dir == DMA_FROM_DEVICE ? IB_WR_RDMA_READ :
							     IB_WR_RDMA_WRITE;
	u64 remote = ctx->remote_addr;
	struct scatterlist *s;
	int i, ret;

	ret = rdma_io_alloc_wrs(ctx, nr_wrs, ctx->dma_nents);
	if (ret)
		return ret;

	for_each_sg(ctx->sg, s, ctx->dma_nents, i) {
		struct ib_rdma_wr *wr = &ctx->wrs[i / per_wr];
		struct ib_sge *sge = &ctx->sges[i];
		u32 skip = i ? 0 : ctx->sg_offset;

		sge->addr = sg_dma_address(s) + skip;
		sge->length = sg_dma_len(s) - skip;
		sge->lkey = lkey;
		if (!wr->wr.num_sge) {
			wr->wr.opcode = op;
			wr->wr.sg_list = sge;
			wr->remote_addr = remote;
			wr->rkey = ctx->rkey;
			if (i)
				wr[-1].wr.next = &wr->wr;
		}
		wr->wr.num_sge++;
		remote += sge->length;
	}

	ctx->first = &ctx->wrs[0].wr;
	ctx->last = &ctx->wrs[nr_wrs - 1].wr;
	ctx->nr_wrs = nr_wrs;
	ctx->nr_ops = nr_wrs;
	return 0;
}

struct rdma_mr_backend_ops mrcore_multiread_ops = {
	.name = "multiread",
	.owner = THIS_MODULE,
	.serves = multiread_serves,
	.io_plan = multiread_plan,
	.io_build = multiread_build,
};
