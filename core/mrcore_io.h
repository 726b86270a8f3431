/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the two halves of an I/O share: core/io.c plans and builds it,
 * core/io_post.c links, posts and ends it.
 */
#ifndef _MRCORE_IO_H
#define _MRCORE_IO_H

extern struct ib_cqe mrcore_io_write_cqe;

/*
 * The storage of mrcore_io_alloc(), back to the pool or freed; none for
 * the context's own, or for a custom build that took none (@ctx->wrs
 * %NULL).
 */
static inline void mrcore_io_free(struct rdma_io_ctx *ctx)
{
	if (ctx->wrs == &ctx->inline_wr)
		return;
	if (ctx->mem_pooled)
		mrcore_stash_put(&ctx->pool->io_mem, ctx->wrs);
	else
		kfree(ctx->wrs);
}

/*
 * On a device that sends an unsignaled WR's payload from its pages after
 * the I/O completed (mrcore_dev_unsignaled_zcopy(), siw): signal every RDMA
 * WRITE, its completion going to a no-op entry, so the device copies each
 * payload before the I/O can complete.  rdma_io_max_cqe() already counts a
 * completion per WR.  The WR that ends the I/O gets the caller's entry in
 * rdma_io_ctx_wrs() unless a WR is chained after it.
 */
static inline void mrcore_io_signal_write(struct ib_send_wr *wr)
{
	if (wr->opcode != IB_WR_RDMA_WRITE ||
	    (wr->send_flags & IB_SEND_SIGNALED))
		return;
	wr->send_flags |= IB_SEND_SIGNALED;
	wr->wr_cqe = &mrcore_io_write_cqe;
}

#endif /* _MRCORE_IO_H */
