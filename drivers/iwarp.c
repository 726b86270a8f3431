// SPDX-License-Identifier: GPL-2.0-only
/*
 * iwarp backend: RDMA READs into temporary local MRs.
 *
 * An iWARP READ response is placed through the sink's STag like a remote
 * write, so the sink must be registered with REMOTE_WRITE.  Such a key must
 * not outlive its I/O: the READ is a READ_WITH_INV that kills the sink's
 * STag as it completes, or, on a device without it, a READ followed by a
 * LOCAL_INV in the same chain.  WRITEs need no such MR and are left to the
 * other backends.
 */
#include "mrcore_internal.h"

static bool iwarp_serves(struct ib_device *dev)
{
	return rdma_protocol_iwarp(dev, rdma_start_port(dev));
}

static bool iwarp_read_inv(const struct rdma_io_ctx *ctx)
{
	return rdma_cap_read_inv(rdma_io_pool_device(ctx->pool),
				 ctx->pool->port_num);
}

static int iwarp_plan(const struct rdma_io_ctx *ctx, struct rdma_io_plan *plan)
{
	u32 pages = rdma_io_pool_mr_pages(ctx->pool);

	if (ctx->dir != DMA_FROM_DEVICE || !pages ||
	    rdma_io_pool_mr_backend(ctx->pool) != &mrcore_frwr_ops)
		return -EOPNOTSUPP;

	plan->mrs = rdma_io_count_mrs(ctx, pages);
	/* REG_MR + READ_WITH_INV, or REG_MR + READ + LOCAL_INV */
	plan->wrs = plan->mrs * (iwarp_read_inv(ctx) ? 2 : 3);
	plan->cost = rdma_io_cost(plan->wrs, plan->mrs, ctx->npages, 0);
	return 0;
}

static int iwarp_build(struct rdma_io_ctx *ctx)
{
	return rdma_io_build_registered(ctx, iwarp_read_inv(ctx));
}

static void iwarp_done(struct rdma_io_ctx *ctx, bool ok)
{
	u32 i;

	if (!ok || !iwarp_read_inv(ctx))
		return;
	/* The completed READ_WITH_INVs killed the sinks' keys. */
	for (i = 0; i < ctx->nr_mrs; i++)
		WARN_ON_ONCE(rdma_mr_remote_invalidated(ctx->mrs[i],
							ctx->mrs[i]->key));
}

struct rdma_mr_backend_ops mrcore_iwarp_ops = {
	.name = "iwarp",
	.owner = THIS_MODULE,
	.serves = iwarp_serves,
	.io_plan = iwarp_plan,
	.io_build = iwarp_build,
	.io_done = iwarp_done,
};
