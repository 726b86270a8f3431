// SPDX-License-Identifier: GPL-2.0-only
/*
 * An I/O once built (core/io.c): its WR chain, linked to what the caller
 * chains after it; its post; and its end.
 *
 * rdma_io_ctx_wrs() hands the chain to a caller that posts it itself,
 * rdma_io_ctx_post() posts it with one ib_post_send().  rdma_io_ctx_destroy()
 * undoes what the builder did, by the strategy the context is tagged with:
 * every key that named the I/O's memory is dead, or local-only, before the
 * memory is DMA-unmapped and goes back to the caller.
 */
#include "mrcore_priv.h"

static void mrcore_io_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	/* Nothing to do: the I/O's last WR reports the I/O. */
}

/* The completion entry of the WRITEs mrcore_io_signal_write() signals. */
struct ib_cqe mrcore_io_write_cqe = {
	.done = mrcore_io_write_done,
};

/* rdma_io_ctx_wrs() once every WRITE that must be is signaled: link, count. */
static inline struct ib_send_wr *
mrcore_io_link(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
	       struct ib_send_wr *chain_wr)
{
	/* Read first: the stores to the WRs below may alias @ctx. */
	struct rdma_io_pool *pool = ctx->pool;
	struct ib_send_wr *first = ctx->first, *last = ctx->last;
	u32 nr_wrs = ctx->nr_wrs;

	mrcore_pool_stat_add(pool, MRCORE_STAT_WRS, nr_wrs);
	last->next = chain_wr;
	if (!chain_wr) {
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return first;
}

/*
 * A WRITE I/O on a mrcore_dev_unsignaled_zcopy() device, a WR chained after
 * it: every WRITE of an I/O of several WRs was signaled at init, so only the
 * lone WRITE of the one-entry shortcut (mrcore_io_init_one()) is left, and
 * the chained WR takes the I/O's completion.
 */
static noinline struct ib_send_wr *
mrcore_io_link_signaled(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
			struct ib_send_wr *chain_wr)
{
	mrcore_io_signal_write(ctx->last);
	return mrcore_io_link(ctx, cqe, chain_wr);
}

/**
 * rdma_io_ctx_wrs() - the WR chain of an I/O, ready to post
 * @ctx: an initialized context.
 * @cqe: completion entry of the I/O's last WR, used when @chain_wr is
 *	%NULL.
 * @chain_wr: a WR to run after the I/O (e.g. the reply SEND), which then
 *	carries the completion instead; or %NULL.
 *
 * On a device that sends an unsignaled WR's payload from the caller's
 * pages after later WRs completed (siw), every RDMA WRITE of the I/O is
 * signaled too, its completion consumed by the core: the I/O's source may
 * be reused once the I/O completed, even if the transport retransmits.
 *
 * Context: Any context.
 * Return: the first WR to post.
 */
struct ib_send_wr *rdma_io_ctx_wrs(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr)
{
	/*
	 * Only an I/O's WRITEs send a payload.  Those of an I/O of several
	 * WRs were signaled when it was built (mrcore_io_init_mapped()); a
	 * lone one is signaled by the link, unless a WR follows it.
	 */
	if (chain_wr && unlikely(ctx->pool->signal_writes) &&
	    ctx->dir == DMA_TO_DEVICE)
		return mrcore_io_link_signaled(ctx, cqe, chain_wr);
	return mrcore_io_link(ctx, cqe, chain_wr);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_wrs, RDMA_MRCORE);

#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
/*
 * ib_post_send() with a test's injected failures: post_send refuses the
 * whole chain, post_wr one WR of it, after which the driver is handed only
 * the WRs before that one, as a send queue with room for those would take
 * them.  @bad as ib_post_send() sets it.
 */
int mrcore_io_post_faulty(struct ib_qp *qp, struct ib_send_wr *first,
			  const struct ib_send_wr **bad)
{
	struct ib_send_wr *wr, *prev = NULL;
	int ret;

	*bad = first;
	if (mrcore_should_fail(MRCORE_FAULT_POST_SEND))
		return -ENOMEM;
	for (wr = first; wr; prev = wr, wr = wr->next)
		if (mrcore_should_fail(MRCORE_FAULT_POST_WR))
			break;
	if (!wr)
		return ib_post_send(qp, first, bad);
	if (!prev)
		return -ENOMEM;
	prev->next = NULL;
	ret = ib_post_send(qp, first, bad);
	prev->next = wr;
	if (!ret) {
		*bad = wr;
		ret = -ENOMEM;
	}
	return ret;
}
#endif

/**
 * rdma_post_send_chain() - post a chain of WRs, telling a partial post apart
 * @qp: the QP.
 * @first: the first WR of the chain (e.g. the registrations the map API
 *	chained in front of the caller's Send).
 *
 * A driver posts a chain WR by WR and keeps the WRs before one it refuses.
 * Those run or are flushed whatever the caller does next: the memory and
 * keys they name are in use until the QP's send queue has drained.  The
 * test hooks' fault points post_send (the whole chain refused) and post_wr
 * (the chain cut before one WR) act here.
 *
 * Context: As ib_post_send().
 * Return: 0; the driver's error if it took none of the chain; or
 * -EINPROGRESS if it took only part of it: drain the send queue
 * (ib_drain_sq(), which moves the QP to the error state) before anything
 * the chain names is released.
 */
int rdma_post_send_chain(struct ib_qp *qp, struct ib_send_wr *first)
{
	return mrcore_post_chain(qp, first);
}
EXPORT_SYMBOL_NS_GPL(rdma_post_send_chain, RDMA_MRCORE);

/**
 * rdma_io_ctx_post() - post an I/O with one ib_post_send()
 * @ctx: an initialized context.
 * @cqe: as for rdma_io_ctx_wrs().
 * @chain_wr: as for rdma_io_ctx_wrs().
 *
 * A driver posts a chain WR by WR: when it refuses one (a full send queue:
 * size it with rdma_io_max_send_wr()), the WRs before it stay posted.
 * Those run or are flushed whatever the caller does next, and being
 * unsignaled they tell nobody when: the I/O's memory and MRs are in use
 * until the send queue has drained.  The registrations among them may have
 * run, so keys the core registered for the I/O may be valid (on iWARP, a
 * READ sink's key grants REMOTE_WRITE): rdma_io_ctx_destroy() without a
 * completion kills every one of them before it releases the memory.
 *
 * Context: Any context.
 * Return: 0; the driver's error from ib_post_send() if it took none of the
 * chain: destroy the I/O with rdma_io_ctx_destroy() without a completion;
 * or -EINPROGRESS if it took only part of it: drain the QP's send queue
 * first (ib_drain_sq() or ib_drain_qp(), which move the QP to the error
 * state and wait until every WR it took has completed or been flushed),
 * then destroy the I/O without a completion.  Destroying it before the
 * drain lets WRs still queued reach memory the caller got back.
 */
int rdma_io_ctx_post(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
		     struct ib_send_wr *chain_wr)
{
	int ret = mrcore_post_chain(ctx->pool->info.qp,
				    rdma_io_ctx_wrs(ctx, cqe, chain_wr));

	mrcore_pool_stat_add(ctx->pool, ret ? MRCORE_STAT_ERR_POST :
			     MRCORE_STAT_POSTS, 1);
	trace_mrcore_io_post(ctx, ret);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_post, RDMA_MRCORE);

/*
 * Unmap a pool MR whose I/O completed (@killed: its READ_WITH_INV killed
 * the key): rdma_unmap_mr() for the I/O path, without the checks of
 * arguments it cannot get wrong, and with the kill of a READ_WITH_INV,
 * which is a WR of the core, counted as ``invalidate_local`` when it was
 * built, so not counted again here as a kill by the peer.  Inline, for the
 * sink of every iWARP READ; any state but a key killed in the chain
 * (READ_WITH_INV, LOCAL_INV) is rdma_unmap_mr()'s.  Returns 0, -EINVAL if
 * @killed and @mr was not mapped, or rdma_unmap_mr()'s error.
 */
static inline int mrcore_io_end_mr(struct rdma_mr *mr, bool killed)
{
	if (killed) {
		if (unlikely(mr->state != RDMA_MR_MAPPED))
			return -EINVAL;
	} else if (mr->state != RDMA_MR_INVALID || mr->dma_owned) {
		return rdma_unmap_mr(mr);
	}
	trace_mrcore_unmap(mr);
	mr->sg = NULL;
	mr->state = RDMA_MR_FREE;
	return 0;
}

/*
 * After a successful completion every MR goes back at once: its key is dead
 * (READ_WITH_INV, LOCAL_INV) or local-only and killed by its next
 * registration.  Otherwise the keys' state is unknown (an iWARP READ sink
 * whose READ_WITH_INV never ran still grants REMOTE_WRITE): each device MR
 * is replaced now, before the caller DMA-unmaps the memory the keys named.
 */
static __always_inline void mrcore_io_return_mrs(struct rdma_io_ctx *ctx,
						 bool ok)
{
	struct rdma_io_pool *pool = ctx->pool;
	/* The completed READ_WITH_INVs killed the sinks' keys. */
	bool killed = ok && ctx->kind == MRCORE_IO_IWARP_READ && pool->read_inv;
	u32 i;

	for (i = 0; i < ctx->nr_mrs; i++) {
		struct rdma_mr *mr = ctx->mrs[i];

		if (ok && !WARN_ON_ONCE(mrcore_io_end_mr(mr, killed)))
			mrcore_pool_return(pool, mr, true);
		else
			mrcore_pool_kill_return(pool, mr);
	}
}

/*
 * Counted apart: a flush says only that the QP went to the error state,
 * under this I/O or before it; any other status (or none seen) is an error
 * of its own.  When MRs get new device MRs for it, a debug message says so.
 */
static noinline void mrcore_io_failed(const struct rdma_io_ctx *ctx,
				      const struct ib_wc *wc)
{
	const struct rdma_io_pool *pool = ctx->pool;
	bool flushed = wc && wc->status == IB_WC_WR_FLUSH_ERR;

	mrcore_stat_inc(pool->mdev, flushed ? MRCORE_STAT_ERR_FLUSH :
			MRCORE_STAT_ERR_COMPLETION);
	if (ctx->nr_mrs)
		mrcore_dbg_ratelimited(pool->info.dev,
				       "QP %u: %s of %llu bytes ended with %s: %u MRs get new device MRs\n",
				       pool->info.qp->qp_num,
				       ctx->dir == DMA_FROM_DEVICE ? "READ" :
								     "WRITE",
				       (unsigned long long)ctx->length,
				       wc ? ib_wc_status_msg(wc->status) :
					    "no completion",
				       ctx->nr_mrs);
}

/*
 * What a failed I/O, or one with MRs, gives back before its mapping: an
 * I/O without MRs has none to return (@ctx->nr_mrs is 0).  One body for
 * the two verdicts, each with its own copy (below).
 */
static __always_inline void mrcore_io_release(struct rdma_io_ctx *ctx,
					      const struct ib_wc *wc, bool ok)
{
	if (!ok)
		mrcore_io_failed(ctx, wc);
	if (unlikely(ctx->kind == MRCORE_IO_CUSTOM) && ctx->backend->io_done)
		ctx->backend->io_done(ctx, ok);
	mrcore_io_return_mrs(ctx, ok);
}

/* The mapping of an I/O whose keys are dead or local-only, and its WRs. */
static inline void mrcore_io_unmap(struct rdma_io_ctx *ctx)
{
	mrcore_dma_unmap(ctx->pool->info.dev, ctx->map_sg, ctx->sg_cnt,
			 ctx->dir);
	mrcore_pool_stat_add(ctx->pool, MRCORE_STAT_DMA_UNMAPS, 1);
	mrcore_io_free(ctx);
}

/*
 * rdma_io_ctx_destroy() of an I/O that failed, has MRs or is traced: the
 * verdict on its keys, then what it holds given back before its mapping.
 */
static noinline void mrcore_io_destroy_slow(struct rdma_io_ctx *ctx,
					    const struct ib_wc *wc)
{
	trace_mrcore_io_done(ctx, wc);
	if (!wc || wc->status != IB_WC_SUCCESS)
		mrcore_io_release(ctx, wc, false);
	else if (ctx->kind != MRCORE_IO_SGES)
		mrcore_io_release(ctx, NULL, true);
	mrcore_io_unmap(ctx);
}

/**
 * rdma_io_ctx_destroy() - release everything an I/O holds
 * @ctx: an initialized context.
 * @wc: the completion of the I/O's last WR, or %NULL if it was never
 *	posted or its completion was not seen.
 *
 * Every key that named the I/O's memory is dead before the memory is
 * DMA-unmapped and this returns it to the caller.  After a successful
 * completion every MR goes back to the pool at once: its key is dead
 * (READ_WITH_INV, LOCAL_INV) or local-only and killed by its next
 * registration.  After a failure or a flush (any other status, or no @wc)
 * the state of the keys is unknown: an iWARP READ sink whose READ_WITH_INV
 * never ran still lets a peer of the same PD write into the memory.  So
 * each MR's device MR is deregistered, which kills its key, and replaced
 * before the memory is released; that may sleep.  No WR of the I/O may
 * still be queued: the completion of its last WR says so, and without one
 * the send queue must have been drained (rdma_io_ctx_post()).  So with a
 * %NULL @wc, after a chain that was never posted or was posted in part
 * (-EINPROGRESS), no key the core registered for the I/O is valid when
 * this returns, whichever of its registrations ran.
 *
 * Context: After a successful completion, any context.  Otherwise, and
 * with a %NULL @wc, process context (may sleep) when the I/O holds MRs: a
 * completion handler that may see errors runs on a CQ polled in process
 * context (%IB_POLL_WORKQUEUE, %IB_POLL_UNBOUND_WORKQUEUE), or hands the
 * destroy to a work item and uses the memory only after it returned.
 */
void rdma_io_ctx_destroy(struct rdma_io_ctx *ctx, const struct ib_wc *wc)
{
	/* An I/O without MRs that completed gives back its mapping alone. */
	if (unlikely(!wc || wc->status != IB_WC_SUCCESS ||
		     ctx->kind != MRCORE_IO_SGES ||
		     trace_mrcore_io_done_enabled())) {
		mrcore_io_destroy_slow(ctx, wc);
		return;
	}
	mrcore_io_unmap(ctx);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_destroy, RDMA_MRCORE);

/**
 * rdma_io_ctx_backend() - which backend moves an I/O
 * @ctx: an initialized context.
 *
 * Context: Any context.
 * Return: the backend's name.
 */
const char *rdma_io_ctx_backend(const struct rdma_io_ctx *ctx)
{
	return ctx->backend->name;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_backend, RDMA_MRCORE);

