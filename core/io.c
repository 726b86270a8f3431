// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RDMA READ/WRITE helper: one context per I/O.
 *
 * rdma_io_ctx_init() DMA-maps the caller's scatterlist, asks every backend
 * that serves the device what the I/O would cost, lets the cheapest build one
 * chained WR list, and returns how many WRs it holds.  The cost model
 * replaces fixed rules ("iWARP READs need an MR", "more than N SGEs need an
 * MR"): a backend that cannot do an I/O says so, the others put a price on
 * it, and the price is explained in rdma_io_cost().
 */
#include "mrcore_internal.h"

/*
 * Weights of the cost model, in units of "one page or SGE fetched by the
 * HCA".  A WR is posted, fetched, parsed and (for RDMA) travels the wire as
 * a request of its own: on rxe and siw, as on hardware, it costs an order of
 * magnitude more than one more SGE or page in a WR already under way.  An
 * MR costs a pool operation and, when reused, the invalidation of its last
 * key; that WR is counted in the plan's WRs as well.
 */
#define MRCORE_COST_WR		16
#define MRCORE_COST_MR		16

/**
 * rdma_io_cost() - the cost model
 * @wrs: WRs the I/O posts, registrations and invalidations included.
 * @mrs: MRs it takes from the pool.
 * @pages: pages the HCA fetches from page lists.
 * @sges: SGEs the HCA fetches.
 *
 * Every backend prices its plan with this one function so that plans are
 * comparable; the lowest price wins, fewer WRs break a tie.
 *
 * Context: Any context.
 * Return: the price.
 */
u32 rdma_io_cost(u32 wrs, u32 mrs, u32 pages, u32 sges)
{
	return wrs * MRCORE_COST_WR + mrs * MRCORE_COST_MR + pages + sges;
}
EXPORT_SYMBOL_GPL(rdma_io_cost);

/**
 * rdma_io_count_mrs() - MRs an I/O needs
 * @ctx: a DMA-mapped context.
 * @max_pages: pages per MR.
 *
 * Context: Any context.
 * Return: the number of runs mrcore_sg_next_chunk() cuts the I/O into.
 */
u32 rdma_io_count_mrs(const struct rdma_io_ctx *ctx, u32 max_pages)
{
	struct mrcore_sg_iter it;
	struct mrcore_chunk c;
	u32 n = 0;

	mrcore_sg_iter_init(&it, ctx->sg, ctx->sg_offset, ctx->dma_nents);
	while (mrcore_sg_next_chunk(&it, max_pages, &c))
		n++;
	return n;
}
EXPORT_SYMBOL_GPL(rdma_io_count_mrs);

/* WRs, SGEs and MR pointers of one context, in one allocation. */
static int mrcore_io_alloc(struct rdma_io_ctx *ctx, u32 nr_wrs, u32 nr_sges,
			   u32 nr_mrs)
{
	size_t wrs = array_size(nr_wrs, sizeof(*ctx->wrs));
	size_t sges = array_size(nr_sges, sizeof(*ctx->sges));
	size_t mrs = array_size(nr_mrs, sizeof(*ctx->mrs));
	void *mem;

	if (nr_wrs == 1 && nr_sges == 1 && !nr_mrs) {
		ctx->wrs = &ctx->inline_wr;
		ctx->sges = &ctx->inline_sge;
		return 0;
	}
	mem = kzalloc(size_add(size_add(wrs, sges), mrs), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	ctx->wrs = mem;
	ctx->sges = mem + wrs;
	ctx->mrs = mem + wrs + sges;
	return 0;
}

static void mrcore_io_free(struct rdma_io_ctx *ctx)
{
	if (ctx->wrs != &ctx->inline_wr)
		kfree(ctx->wrs);
	ctx->wrs = NULL;
}

/**
 * rdma_io_alloc_wrs() - storage for a context's WRs and SGEs
 * @ctx: the context.
 * @nr_wrs: RDMA WRs.
 * @nr_sges: SGEs.
 *
 * For backends that build READ/WRITE WRs without MRs.  A one-WR, one-SGE
 * I/O uses storage inside the context and allocates nothing.
 *
 * Context: Process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int rdma_io_alloc_wrs(struct rdma_io_ctx *ctx, u32 nr_wrs, u32 nr_sges)
{
	return mrcore_io_alloc(ctx, nr_wrs, nr_sges, 0);
}
EXPORT_SYMBOL_GPL(rdma_io_alloc_wrs);

static u32 mrcore_io_count_wrs(const struct rdma_io_ctx *ctx)
{
	const struct ib_send_wr *wr;
	u32 n = 0;

	for (wr = ctx->first; wr; wr = wr->next)
		n++;
	return n;
}

/**
 * rdma_io_build_registered() - build an I/O through MRs of the pool
 * @ctx: a DMA-mapped context.
 * @read_with_inv: a READ invalidates its sink MR itself (iWARP).
 *
 * Cuts the I/O into runs one MR maps each, takes that many MRs from the pool
 * (all or none), and chains for each run: the MR's invalidation of its last
 * key if that key is still valid, its registration, and one READ or WRITE
 * WR.  The MRs get the access flags of a local READ sink or WRITE source on
 * the device (core/access.c).  A READ into a remotely accessible sink that
 * cannot invalidate the sink itself is followed by a LOCAL_INV of the sink,
 * so that its key never outlives the I/O.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EAGAIN if the pool has too few free MRs; -ENOMEM; or the MR
 * backend's error.  On error nothing is held.
 */
int rdma_io_build_registered(struct rdma_io_ctx *ctx, bool read_with_inv)
{
	u32 pages = rdma_io_pool_mr_pages(ctx->pool);
	bool read = ctx->dir == DMA_FROM_DEVICE;
	struct ib_send_wr **link = &ctx->first;
	struct mrcore_access access;
	struct mrcore_sg_iter it;
	struct mrcore_chunk c;
	bool inv_after;
	u64 done = 0;
	u32 i, j, n;
	int ret;

	if (!pages)
		return -EOPNOTSUPP;
	ret = mrcore_local_access(ctx->pool->dev, read ?
				  RDMA_MR_LOCAL_READ_SINK :
				  RDMA_MR_LOCAL_WRITE_SRC, &access);
	if (ret)
		return ret;
	inv_after = read && !read_with_inv &&
		    mrcore_access_is_remote(access.ib_access);
	n = rdma_io_count_mrs(ctx, pages);
	ret = mrcore_io_alloc(ctx, n, n, n);
	if (ret)
		return ret;
	ret = mrcore_pool_take(ctx->pool, ctx->mrs, n);
	if (ret)
		goto free_wrs;

	mrcore_sg_iter_init(&it, ctx->sg, ctx->sg_offset, ctx->dma_nents);
	for (i = 0; mrcore_sg_next_chunk(&it, pages, &c); i++) {
		struct rdma_mr *mr = ctx->mrs[i];
		struct ib_rdma_wr *wr = &ctx->wrs[i];
		struct ib_send_wr *head = &wr->wr;

		ret = mrcore_mr_map_chunk(mr, &c, access.ib_access, &head);
		if (ret)
			goto return_mrs;

		ctx->sges[i].addr = mr->iova;
		ctx->sges[i].length = c.length;
		ctx->sges[i].lkey = mr->key;
		if (!read)
			wr->wr.opcode = IB_WR_RDMA_WRITE;
		else if (read_with_inv)
			wr->wr.opcode = IB_WR_RDMA_READ_WITH_INV;
		else
			wr->wr.opcode = IB_WR_RDMA_READ;
		if (read_with_inv) {
			wr->wr.ex.invalidate_rkey = mr->key;
			mrcore_stat_inc(ctx->pool->mdev, MRCORE_STAT_INV_LOCAL);
		}
		wr->wr.sg_list = &ctx->sges[i];
		wr->wr.num_sge = 1;
		wr->remote_addr = ctx->remote_addr + done;
		wr->rkey = ctx->rkey;
		done += c.length;

		*link = head;
		link = &wr->wr.next;
		ctx->last = &wr->wr;
		if (inv_after) {
			struct ib_send_wr *inv = NULL;

			ret = rdma_invalidate_mr(mr, &inv);
			if (ret) {
				i++;
				goto return_mrs;
			}
			*link = inv;
			link = &inv->next;
			ctx->last = inv;
		}
	}
	*link = NULL;

	ctx->nr_mrs = n;
	ctx->nr_ops = n;
	ctx->nr_wrs = mrcore_io_count_wrs(ctx);
	return 0;

return_mrs:
	/*
	 * MRs 0..i-1 hold rotated keys no WR has registered yet: their
	 * device MRs are replaced before reuse.  The others are untouched.
	 */
	for (j = 0; j < n; j++)
		mrcore_pool_return(ctx->pool, ctx->mrs[j], j >= i);
free_wrs:
	mrcore_io_free(ctx);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_io_build_registered);

/* Pool ran dry: several READ/WRITE WRs instead, where the transport allows. */
static int mrcore_io_fallback(struct rdma_io_ctx *ctx, struct rdma_io_plan *plan)
{
	int ret;

	if (ctx->backend == &mrcore_multiread_ops ||
	    mrcore_multiread_ops.io_plan(ctx, plan))
		return -EAGAIN;
	if (!try_module_get(mrcore_multiread_ops.owner))
		return -EAGAIN;
	ret = mrcore_multiread_ops.io_build(ctx);
	if (ret) {
		module_put(mrcore_multiread_ops.owner);
		return ret;
	}
	module_put(ctx->backend->owner);
	ctx->backend = &mrcore_multiread_ops;
	mrcore_stat_inc(ctx->pool->mdev, MRCORE_STAT_POOL_FALLBACKS);
	return 0;
}

/**
 * rdma_io_ctx_init() - plan and build one RDMA READ or WRITE
 * @ctx: the context, owned by the caller until rdma_io_ctx_destroy().
 * @pool: the MR pool of the QP the I/O is posted on.
 * @sg: the local memory, a CPU scatterlist; the core DMA-maps it.
 * @sg_cnt: entries in @sg.
 * @sg_offset: bytes of the first entry to skip.
 * @remote_addr: the peer's address.
 * @rkey: the peer's key.
 * @dir: %DMA_FROM_DEVICE to READ from the peer into @sg, %DMA_TO_DEVICE to
 *	WRITE @sg to the peer.
 *
 * When the pool has too few free MRs for the chosen plan, the I/O falls back
 * to several READ/WRITE WRs if the transport allows it.
 *
 * Context: Process context; may sleep.
 * Return: the number of WRs the I/O posts (> 0); -EINVAL for a NULL
 * argument, zero @sg_cnt, an @sg_offset at or past the end of the first
 * entry, an empty entry
 * or an unknown @dir; -EOVERFLOW for more than U32_MAX bytes or an entry
 * that wraps; -ENOMEM; -EOPNOTSUPP if no backend (or not the forced one)
 * can move the I/O; -EAGAIN if the pool is dry and no fallback applies.
 * On error nothing is mapped or held.
 */
int rdma_io_ctx_init(struct rdma_io_ctx *ctx, struct rdma_io_pool *pool,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	const struct rdma_mr_backend_ops *choice;
	char forced[MRCORE_BACKEND_NAME_LEN];
	struct mrcore_sg_shape shape;
	struct rdma_io_plan plan;
	enum mrcore_why why;
	int ret;

	if (!ctx || !pool || !sg || !sg_cnt ||
	    (dir != DMA_FROM_DEVICE && dir != DMA_TO_DEVICE))
		return -EINVAL;

	memset(ctx, 0, sizeof(*ctx));
	ctx->pool = pool;
	ctx->sg = sg;
	ctx->sg_cnt = sg_cnt;
	ctx->sg_offset = sg_offset;
	ctx->dir = dir;
	ctx->remote_addr = remote_addr;
	ctx->rkey = rkey;

	ctx->dma_nents = mrcore_dma_map_sg(pool->dev, pool->mdev, sg, sg_cnt,
					   dir);
	if (!ctx->dma_nents)
		return -ENOMEM;
	ret = mrcore_sg_shape(sg, sg_offset, ctx->dma_nents, &shape);
	if (ret)
		goto unmap_dma;
	ctx->length = shape.length;
	ctx->npages = shape.npages;

	mrcore_pool_forced(pool, forced);
	choice = mrcore_backend_choose_io(ctx, forced, &plan);
	ctx->backend = choice;
	if (!ctx->backend) {
		mrcore_stat_inc(pool->mdev, MRCORE_STAT_ERR_NO_BACKEND);
		ret = -EOPNOTSUPP;
		goto unmap_dma;
	}

	ret = ctx->backend->io_build(ctx);
	if (ret == -EAGAIN && !forced[0])
		ret = mrcore_io_fallback(ctx, &plan);
	if (ret)
		goto put_backend;
	why = forced[0] ? MRCORE_WHY_FORCED : ctx->backend == choice ?
	      MRCORE_WHY_CHEAPEST : MRCORE_WHY_POOL_DRY;
	mrcore_stat_inc(pool->mdev, MRCORE_STAT_IOS);
	mrcore_device_chose(pool->mdev, dir == DMA_FROM_DEVICE ?
			    MRCORE_CLASS_READ : MRCORE_CLASS_WRITE,
			    ctx->backend, why);
	trace_mrcore_io_init(ctx, mrcore_why_name(why), &plan);
	return ctx->nr_wrs;

put_backend:
	if (ret == -EAGAIN)
		mrcore_stat_inc(pool->mdev, MRCORE_STAT_ERR_POOL_DRY);
	module_put(ctx->backend->owner);
	ctx->backend = NULL;
unmap_dma:
	mrcore_dma_unmap_sg(pool->dev, pool->mdev, sg, sg_cnt, dir);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_io_ctx_init);

/**
 * rdma_io_ctx_wrs() - the WR chain of an I/O, ready to post
 * @ctx: an initialized context.
 * @cqe: completion entry of the I/O's last WR, used when @chain_wr is
 *	%NULL.
 * @chain_wr: a WR to run after the I/O (e.g. the reply SEND), which then
 *	carries the completion instead; or %NULL.
 *
 * Context: Any context.
 * Return: the first WR to post.
 */
struct ib_send_wr *rdma_io_ctx_wrs(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr)
{
	ctx->last->next = chain_wr;
	if (!chain_wr) {
		ctx->last->wr_cqe = cqe;
		ctx->last->send_flags |= IB_SEND_SIGNALED;
	}
	mrcore_stat_add(ctx->pool->mdev, MRCORE_STAT_WRS, ctx->nr_wrs);
	return ctx->first;
}
EXPORT_SYMBOL_GPL(rdma_io_ctx_wrs);

/**
 * rdma_io_ctx_post() - post an I/O with one ib_post_send()
 * @ctx: an initialized context.
 * @cqe: as for rdma_io_ctx_wrs().
 * @chain_wr: as for rdma_io_ctx_wrs().
 *
 * Context: Any context.
 * Return: 0, or the driver's error from ib_post_send().  After an error the
 * I/O is still destroyed with rdma_io_ctx_destroy() (without a completion).
 */
int rdma_io_ctx_post(struct rdma_io_ctx *ctx, struct ib_cqe *cqe,
		     struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first = rdma_io_ctx_wrs(ctx, cqe, chain_wr);
	int ret;

	ret = mrcore_should_fail(MRCORE_FAULT_POST_SEND) ? -ENOMEM :
	      ib_post_send(ctx->pool->qp, first, NULL);
	mrcore_stat_inc(ctx->pool->mdev, ret ? MRCORE_STAT_ERR_POST :
			MRCORE_STAT_POSTS);
	trace_mrcore_io_post(ctx, ret);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_io_ctx_post);

/**
 * rdma_io_ctx_destroy() - release everything an I/O holds
 * @ctx: an initialized context.
 * @wc: the completion of the I/O's last WR, or %NULL if it was never
 *	posted or its completion was not seen.
 *
 * After a successful completion every MR goes back to the pool at once: its
 * key is dead (READ_WITH_INV, LOCAL_INV) or local-only and killed by its
 * next registration.  After a failure or a flush (any other status, or no
 * @wc) the state of the keys is unknown: the MRs are quarantined until the
 * pool's work has replaced their device MRs, which kills the keys, so no MR
 * is reused before it is invalidated.
 *
 * Context: Any context.
 */
void rdma_io_ctx_destroy(struct rdma_io_ctx *ctx, const struct ib_wc *wc)
{
	bool ok = wc && wc->status == IB_WC_SUCCESS;
	u32 i;

	trace_mrcore_io_done(ctx, ok);
	if (!ok)
		mrcore_stat_inc(ctx->pool->mdev, MRCORE_STAT_ERR_COMPLETION);
	if (ctx->backend->io_done)
		ctx->backend->io_done(ctx, ok);
	for (i = 0; i < ctx->nr_mrs; i++) {
		struct rdma_mr *mr = ctx->mrs[i];
		bool key_dead = ok && !WARN_ON_ONCE(rdma_unmap_mr(mr));

		mrcore_pool_return(ctx->pool, mr, key_dead);
	}
	mrcore_dma_unmap_sg(ctx->pool->dev, ctx->pool->mdev, ctx->sg,
			    ctx->sg_cnt, ctx->dir);
	mrcore_io_free(ctx);
	module_put(ctx->backend->owner);
	ctx->backend = NULL;
}
EXPORT_SYMBOL_GPL(rdma_io_ctx_destroy);

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
EXPORT_SYMBOL_GPL(rdma_io_ctx_backend);
