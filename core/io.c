// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RDMA READ/WRITE helper: one context per I/O.
 *
 * rdma_io_ctx_init() DMA-maps the caller's scatterlist and moves it by one
 * of four strategies (enum mrcore_io_kind), each with one builder here:
 *
 *   sges        READ/WRITE WRs on the PD's local DMA lkey, no MR (multiread);
 *   mrs         one pool MR per run of pages, registered in the chain before
 *               its READ or WRITE (frwr, fmr, a vendor's MR backend);
 *   iwarp read  the same with remote-write sinks that die with the READ
 *               (iwarp);
 *   custom      a vendor backend's own io_plan and io_build.
 *
 * The pool resolved once which backends stand for which strategy
 * (core/pool.c).  A small predicate decides first: an I/O whose SGEs fit one
 * WR and cost less than any plan with an MR could is built at once, and its
 * builder is the one pass over the list, validation included.  Otherwise one
 * pass measures the list (bytes, pages, MR runs, holes) and every candidate
 * is priced by arithmetic on that summary with the device's weights (the
 * cost model, core/cost.c); the cheapest is built from the summary.  The
 * context is tagged with its strategy, by which rdma_io_ctx_destroy()
 * undoes it (core/io_post.c, with the chain's post).
 */
#include "mrcore_priv.h"

/*
 * WRs, SGEs and MR pointers of an I/O larger than any block of its pool
 * (more than max_pages pages), or of one that found every block held (more
 * than max_ctxs in flight): allocated for the I/O rather than failing it,
 * and counted (io_allocs).
 */
static int mrcore_io_alloc_own(struct rdma_io_ctx *ctx, u32 nr_wrs,
			       u32 nr_sges, u32 nr_mrs)
{
	size_t wrs = array_size(nr_wrs, sizeof(*ctx->wrs));
	size_t sges = array_size(nr_sges, sizeof(*ctx->sges));
	size_t mrs = array_size(nr_mrs, sizeof(*ctx->mrs));
	void *mem;

	mem = kmalloc(size_add(size_add(wrs, sges), mrs), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mrcore_pool_stat_add(ctx->pool, MRCORE_STAT_IO_ALLOCS, 1);
	ctx->mem_pooled = false;
	ctx->wrs = mem;
	ctx->sges = mem + wrs;
	ctx->mrs = nr_mrs ? mem + wrs + sges : NULL;
	return 0;
}

/*
 * WRs, SGEs and MR pointers of one context, in a block of its pool's
 * (mrcore_stash_get()), which every I/O of up to the pool's max_pages
 * pages fits: after the pool's first I/Os, an I/O allocates nothing.
 */
static noinline int mrcore_io_alloc_mem(struct rdma_io_ctx *ctx, u32 nr_wrs,
					u32 nr_sges, u32 nr_mrs)
{
	struct rdma_io_pool *pool = ctx->pool;
	void *mem = NULL;

	if (likely(nr_wrs <= pool->mem_wrs && nr_sges <= pool->mem_sges &&
		   nr_mrs <= pool->mem_mrs))
		mem = mrcore_stash_get(&pool->io_mem);
	if (unlikely(!mem))
		return mrcore_io_alloc_own(ctx, nr_wrs, nr_sges, nr_mrs);
	ctx->mem_pooled = true;
	ctx->wrs = mem;
	ctx->sges = mem + pool->mem_sges_at;
	ctx->mrs = nr_mrs ? mem + pool->mem_mrs_at : NULL;
	return 0;
}

/*
 * A one-WR, one-SGE I/O, with or without an MR, uses the context's own.
 * The core's builders write every WR and SGE whole, so the storage is not
 * zeroed: at 256 SGEs that memset would cost more than the building.
 */
static inline int mrcore_io_alloc(struct rdma_io_ctx *ctx, u32 nr_wrs,
				  u32 nr_sges, u32 nr_mrs)
{
	if (likely(nr_wrs == 1 && nr_sges == 1 && nr_mrs <= 1)) {
		ctx->wrs = &ctx->inline_wr;
		ctx->sges = &ctx->inline_sge;
		ctx->mrs = nr_mrs ? &ctx->inline_mr : NULL;
		return 0;
	}
	return mrcore_io_alloc_mem(ctx, nr_wrs, nr_sges, nr_mrs);
}

/**
 * rdma_io_alloc_wrs() - storage for a context's WRs and SGEs
 * @ctx: the context.
 * @nr_wrs: RDMA WRs.
 * @nr_sges: SGEs.
 *
 * For backends that build their own READ/WRITE WRs (@io_build).  A one-WR,
 * one-SGE I/O uses storage inside the context; a larger one a block of the
 * pool's, as the core's own strategies do.
 *
 * Context: Process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int rdma_io_alloc_wrs(struct rdma_io_ctx *ctx, u32 nr_wrs, u32 nr_sges)
{
	int ret = mrcore_io_alloc(ctx, nr_wrs, nr_sges, 0);

	if (ret)
		return ret;
	/* A backend's builder may leave fields it does not use unset. */
	memset(ctx->wrs, 0, array_size(nr_wrs, sizeof(*ctx->wrs)));
	memset(ctx->sges, 0, array_size(nr_sges, sizeof(*ctx->sges)));
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_alloc_wrs, RDMA_MRCORE);

static bool mrcore_io_iwarp_read(const struct rdma_io_ctx *ctx)
{
	return ctx->dir == DMA_FROM_DEVICE && ctx->pool->info.iwarp;
}

/* SGEs one READ or WRITE WR takes on the QP (ib_create_qp() derived them). */
static u32 mrcore_io_sges_per_wr(const struct rdma_io_ctx *ctx)
{
	const struct ib_qp *qp = ctx->pool->info.qp;
	u32 n = ctx->dir == DMA_FROM_DEVICE ? qp->max_read_sge :
					      qp->max_write_sge;

	return max(n, 1u);
}

/*
 * The I/O's length, once known: at most U32_MAX bytes, and the peer's range
 * [remote_addr, remote_addr + length) must not wrap the address space, or
 * the WRs after the wrap would name the peer's low addresses.
 */
static inline int mrcore_io_check_length(const struct rdma_io_ctx *ctx)
{
	u64 end;

	if (unlikely(ctx->length > U32_MAX ||
		     check_add_overflow(ctx->remote_addr, ctx->length, &end)))
		return -EOVERFLOW;
	return 0;
}

/*
 * The checks of mrcore_sg_summarize() on an I/O's list, for a builder whose
 * folded checks failed, which may only mean high addresses: the error of
 * the first entry that fails, or 0.  Out of line, so that the summary's
 * storage is not on the builder's stack.
 */
static noinline int mrcore_io_check_entries(const struct rdma_io_ctx *ctx)
{
	struct mrcore_sg_summary sum;

	return mrcore_sg_summarize(ctx->sg, ctx->sg_offset, ctx->dma_nents, 0,
				   &sum);
}

/*
 * Every READ or WRITE WR the core builds, whatever the strategy: @n SGEs
 * from @sge, to the peer's @remote under @rkey.  The link to the next WR is
 * the caller's: it knows what follows.
 */
static inline void mrcore_io_rdma_wr(struct ib_rdma_wr *wr,
				     struct ib_sge *sge, u32 n,
				     enum ib_wr_opcode op, u64 remote,
				     u32 rkey)
{
	wr->wr.wr_cqe = NULL;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = n;
	wr->wr.opcode = op;
	wr->wr.send_flags = 0;
	wr->wr.ex.imm_data = 0;
	wr->remote_addr = remote;
	wr->rkey = rkey;
}

/*
 * The SGE I/O once its @nr_wrs WRs are built, the last @last, the peer's
 * address at @remote: its entries checked (only if @acc says one may be
 * wrong), the offset @skip applied to its first SGE and WR, its length.
 */
static inline int mrcore_io_sges_done(struct rdma_io_ctx *ctx,
				      struct ib_rdma_wr *last, u32 nr_wrs,
				      u32 skip, u64 remote, u64 acc)
{
	int ret;

	/*
	 * No entry is empty, and none wraps or ends in the last page, while
	 * every start stays below the top U32_MAX bytes and a page.
	 */
	if (unlikely(acc > U64_MAX - PAGE_SIZE - U32_MAX)) {
		ret = mrcore_io_check_entries(ctx);
		if (ret)
			return ret;
	}
	ctx->wrs[0].remote_addr += skip;
	ctx->sges[0].addr += skip;
	ctx->sges[0].length -= skip;
	ctx->length = remote - ctx->remote_addr;
	ret = mrcore_io_check_length(ctx);
	if (unlikely(ret))
		return ret;

	ctx->first = &ctx->wrs[0].wr;
	ctx->last = &last->wr;
	ctx->nr_wrs = nr_wrs;
	ctx->nr_ops = nr_wrs;
	return 0;
}

/*
 * sges: the I/O as READ or WRITE WRs on the PD's local DMA lkey, at most
 * @per_wr SGEs each.  An iWARP READ never comes here: its sink must be a
 * registered MR (the responder places the data through the sink's STag),
 * and the PD's DMA lkey would name all of memory on the wire.  When the
 * choice needed no summary this is the one pass over the list, so it checks
 * what mrcore_sg_summarize() checks, with the same errors.
 *
 * The loop copies whole entries and folds their checks into one word, as
 * mrcore_sg_summarize() does: each start, and each length less one (all
 * ones for an empty entry).  The offset, which mrcore_io_init_planned()
 * keeps inside the first entry, is applied after it, to the first SGE and
 * WR; the peer's addresses run from @ctx->remote_addr less that offset, so
 * that every later WR's is right.
 */
static inline int mrcore_io_build_sges(struct rdma_io_ctx *ctx, u32 per_wr,
				       bool read)
{
	u32 lkey = ctx->pool->info.pd->local_dma_lkey;
	u32 left = ctx->dma_nents;
	u32 nr_wrs = per_wr == left ? 1 : DIV_ROUND_UP(left, per_wr);
	enum ib_wr_opcode op = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
	u32 skip = ctx->sg_offset;
	u64 remote = ctx->remote_addr - skip;
	struct scatterlist *s = ctx->sg;
	struct ib_rdma_wr *wr;
	struct ib_sge *sge;
	u64 acc = 0;
	u32 w, j;
	int ret;

	ret = mrcore_io_alloc(ctx, nr_wrs, left, 0);
	if (ret)
		return ret;
	ctx->kind = MRCORE_IO_SGES;
	ctx->nr_mrs = 0;

	/* mrcore_io_init_planned() left @skip inside the first entry. */
	sge = ctx->sges;
	wr = ctx->wrs;
	for (w = 0; w < nr_wrs; w++, wr++) {
		u32 n = min(left, per_wr);

		mrcore_io_rdma_wr(wr, sge, n, op, remote, ctx->rkey);
		wr->wr.next = w + 1 < nr_wrs ? &wr[1].wr : NULL;
		/* No step past the last entry: it may end the array. */
		for (j = 0;;) {
			u64 addr = sg_dma_address(s);
			u32 len = sg_dma_len(s);

			acc |= addr | ((u64)len - 1);
			sge->addr = addr;
			sge->length = len;
			sge->lkey = lkey;
			sge++;
			remote += len;
			if (++j == n)
				break;
			s = mrcore_sg_step(s);
		}
		left -= n;
		if (left)
			s = mrcore_sg_step(s);
	}
	ret = mrcore_io_sges_done(ctx, &wr[-1], nr_wrs, skip, remote, acc);
	if (unlikely(ret))
		mrcore_io_free(ctx);
	return ret;
}

/*
 * The one-entry I/O's tracepoint, out of line, so that its cost is loaded
 * only while the tracepoint is on: the compiler schedules the arguments
 * of an inline one before its static branch.  It returns the I/O's one WR,
 * so that the caller tail-calls it and keeps nothing across it.
 */
static noinline int mrcore_io_trace_one(const struct rdma_io_ctx *ctx)
{
	trace_mrcore_io_init(ctx, mrcore_why_name(MRCORE_WHY_CHEAPEST),
			     mrcore_cost(&ctx->pool->info.weights, 1, 0, 0, 1));
	return 1;
}

/*
 * sges, one entry, nothing to price (set->sges_uses): the I/O most ULPs post
 * most often, built from the arguments straight into the context's own
 * storage, and counted as mrcore_io_chosen() would.  The checks are
 * mrcore_io_build_sges()'s.
 */
static inline int mrcore_io_init_one(struct rdma_io_ctx *ctx,
				     const struct mrcore_io_set *set,
				     u64 __percpu *uses, u32 read)
{
	struct ib_rdma_wr *wr = &ctx->inline_wr;
	u64 addr;
	u32 len;
	int ret;

	ret = mrcore_sg_entry(ctx->sg, ctx->sg_offset, &addr, &len);
	if (unlikely(ret))
		return ret;
	ctx->inline_sge.addr = addr;
	ctx->inline_sge.length = len;
	ctx->inline_sge.lkey = set->sges_lkey;
	mrcore_io_rdma_wr(wr, &ctx->inline_sge, 1, set->sges_op[read],
			  ctx->remote_addr, ctx->rkey);
	/* One entry is under 4 GiB: only the peer's range can wrap. */
	if (unlikely(wr->remote_addr + len < len))
		return -EOVERFLOW;
	ctx->length = len;
	wr->wr.next = NULL;
	ctx->wrs = wr;
	ctx->sges = &ctx->inline_sge;
	ctx->first = &wr->wr;
	ctx->last = &wr->wr;
	ctx->nr_wrs = 1;
	ctx->nr_ops = 1;
	ctx->kind = MRCORE_IO_SGES;
	ctx->nr_mrs = 0;
	ctx->backend = set->sges_ops;
	mrcore_dma_count_live();
	mrcore_count_use_at(uses, set->sges_last[read], set->sges_now);
	if (trace_mrcore_io_init_enabled())
		return mrcore_io_trace_one(ctx);
	return 1;
}

/**
 * struct mrcore_io_mr_chain - an MR I/O's chain, while it is built
 * @link: where the next WR is linked.
 * @wrs: WRs chained so far.
 * @mapped: MRs mapped so far, whose keys rotated.
 * @access: the access rights of every MR.
 * @op: the opcode of every READ or WRITE.
 * @rwi: READ_WITH_INV kills each sink's key.
 * @inv_after: a LOCAL_INV after each READ or WRITE kills its MR's key.
 */
struct mrcore_io_mr_chain {
	struct ib_send_wr **link;
	u32 wrs;
	u32 mapped;
	int access;
	enum ib_wr_opcode op;
	bool rwi;
	bool inv_after;
};

/*
 * Every run of every MR I/O: @mr, its run set (mrcore_mr_set_run()),
 * mapped (behind the LOCAL_INV of a lazily kept key, on a stale MR), and
 * @wr reading or writing the run through its key at the peer's @remote;
 * a READ_WITH_INV kills the key.  *@head is the run's first WR and *@nr_wrs
 * the WRs from it to @wr; the link after @wr is the caller's.
 */
static __always_inline int mrcore_io_mr_wr(struct rdma_io_ctx *ctx,
					   const struct mrcore_io_mr_chain *ch,
					   struct rdma_mr *mr,
					   struct ib_rdma_wr *wr,
					   struct ib_sge *sge, u64 remote,
					   struct ib_send_wr **head,
					   u32 *nr_wrs)
{
	struct ib_send_wr *w;
	int ret;

	*head = &wr->wr;
	ret = mrcore_mr_map_run(mr, ch->access, head);
	if (ret)
		return ret;
	*nr_wrs = 1;
	for (w = *head; w != &wr->wr; w = w->next)
		(*nr_wrs)++;

	sge->addr = mr->iova;
	sge->length = mr->length;
	sge->lkey = mr->key;
	mrcore_io_rdma_wr(wr, sge, 1, ch->op, remote, ctx->rkey);
	if (ch->rwi) {
		wr->wr.ex.invalidate_rkey = mr->key;
		mrcore_stat_inc(ctx->pool->mdev, MRCORE_STAT_INV_LOCAL);
	}
	return 0;
}

/*
 * Run @i of an MR I/O of several WRs, @done bytes into it: its WRs chained
 * behind the last run's, and the LOCAL_INV after its READ or WRITE where
 * one kills the key.
 */
static inline int mrcore_io_mr_run(struct rdma_io_ctx *ctx,
				   struct mrcore_io_mr_chain *ch,
				   u32 i, u64 done)
{
	struct ib_rdma_wr *wr = &ctx->wrs[i];
	struct ib_send_wr *head;
	u32 n;
	int ret;

	ret = mrcore_io_mr_wr(ctx, ch, ctx->mrs[i], wr, &ctx->sges[i],
			      ctx->remote_addr + done, &head, &n);
	if (ret)
		return ret;
	ch->mapped++;
	ch->wrs += n;
	*ch->link = head;
	ch->link = &wr->wr.next;
	ctx->last = &wr->wr;
	if (ch->inv_after) {
		struct ib_send_wr *inv = NULL;

		ret = rdma_invalidate_mr(ctx->mrs[i], &inv);
		/* A synchronous kill would beat the RDMA WR to it. */
		if (!ret && !inv)
			ret = -EOPNOTSUPP;
		if (ret)
			return ret;
		*ch->link = inv;
		ch->link = &inv->next;
		ctx->last = inv;
		ch->wrs++;
	}
	return 0;
}

/* An I/O of one run: the whole list, as measured, is @mr's run. */
static __always_inline void mrcore_io_set_whole_run(struct rdma_io_ctx *ctx,
						    struct rdma_mr *mr)
{
	__mrcore_mr_set_run(mr, ctx->sg, ctx->sg_offset, ctx->dma_nents,
			    ctx->sg_last, ctx->sg_last_len, ctx->length,
			    ctx->npages);
}

/*
 * mrcore_io_build_mrs() of an I/O of one run whose chain ends with its READ
 * or WRITE (no LOCAL_INV after it): the run goes from the context to the
 * MR as measured, and the WR and SGE into the context's own storage.  It is
 * the one-page or one-entry I/O of every MR plan, the commonest I/O that
 * registers, so it is kept apart from the general chain's bookkeeping,
 * which it has no use for (what that saves: Documentation/benchmarks.rst,
 * "Where the special cases pay").
 */
static __always_inline int
mrcore_io_build_one_run(struct rdma_io_ctx *ctx,
			const struct mrcore_io_mr_chain *ch)
{
	struct rdma_io_pool *pool = ctx->pool;
	struct ib_rdma_wr *wr = &ctx->inline_wr;
	struct ib_send_wr *head;
	struct rdma_mr *mr;
	u32 nr_wrs;
	int ret;

	mr = mrcore_pool_take_one(pool);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	ctx->inline_mr = mr;
	mrcore_io_set_whole_run(ctx, mr);
	ret = mrcore_io_mr_wr(ctx, ch, mr, wr, &ctx->inline_sge,
			      ctx->remote_addr, &head, &nr_wrs);
	if (unlikely(ret)) {
		/* Not mapped: its key is as it was. */
		mrcore_pool_return(pool, mr, true);
		return ret;
	}
	wr->wr.next = NULL;
	ctx->wrs = wr;
	ctx->sges = &ctx->inline_sge;
	ctx->mrs = &ctx->inline_mr;
	ctx->first = head;
	ctx->last = &wr->wr;
	ctx->nr_wrs = nr_wrs;
	ctx->nr_mrs = 1;
	ctx->nr_ops = 1;
	return 0;
}

/* What every run of an MR I/O has in common (struct mrcore_io_mr_chain). */
static __always_inline void mrcore_io_mr_chain_init(struct rdma_io_ctx *ctx,
						    bool iwarp_read,
						    struct mrcore_io_mr_chain *ch)
{
	const struct rdma_io_pool *pool = ctx->pool;
	bool read = ctx->dir == DMA_FROM_DEVICE;
	bool rwi = iwarp_read && pool->read_inv;

	*ch = (struct mrcore_io_mr_chain){
		.link = &ctx->first,
		.access = read ? pool->sink_access : pool->src_access,
		.op = !read ? IB_WR_RDMA_WRITE :
		      rwi ? IB_WR_RDMA_READ_WITH_INV : IB_WR_RDMA_READ,
		.rwi = rwi,
		.inv_after = !rwi && (iwarp_read || pool->kill_local_keys),
	};
}

/*
 * Cut the I/O into its @ctx->nr_runs runs as it walks the list, each into
 * the next of the MRs taken, and chain them.
 */
static int mrcore_io_chain_runs(struct rdma_io_ctx *ctx,
				struct mrcore_io_mr_chain *ch)
{
	struct mrcore_sg_iter it;
	struct mrcore_chunk c;
	u32 n = ctx->nr_runs;
	u64 done = 0;
	u32 i;
	int ret;

	mrcore_sg_iter_init(&it, ctx->sg, ctx->sg_offset, ctx->dma_nents);
	for (i = 0; i < n && mrcore_sg_next_chunk(&it, ctx->pool->mr_pages,
						  &c); i++) {
		mrcore_mr_set_run(ctx->mrs[i], &c);
		ret = mrcore_io_mr_run(ctx, ch, i, done);
		if (ret)
			return ret;
		done += c.length;
	}
	/* The summary and the cut disagree: a core bug. */
	if (WARN_ON_ONCE(i != n || done != ctx->length))
		return -EIO;
	return 0;
}

/*
 * mrs, iwarp read of several runs, or of one with a LOCAL_INV after it: cut
 * the I/O into the runs the summary counted, take that many pool MRs (all
 * or none), and chain each run (mrcore_io_mr_run()).
 */
static noinline int mrcore_io_build_chain(struct rdma_io_ctx *ctx,
					  struct mrcore_io_mr_chain *ch)
{
	struct rdma_io_pool *pool = ctx->pool;
	u32 n = ctx->nr_runs;
	u32 i;
	int ret;

	ret = mrcore_io_alloc(ctx, n, n, n);
	if (ret)
		return ret;
	ret = mrcore_pool_take(pool, ctx->mrs, n);
	if (ret)
		goto free_wrs;

	if (n == 1) {
		/*
		 * One run is the whole list, as measured: nothing to cut, and
		 * the run goes from the context to the MR without a chunk.
		 */
		mrcore_io_set_whole_run(ctx, ctx->mrs[0]);
		ret = mrcore_io_mr_run(ctx, ch, 0, 0);
	} else {
		ret = mrcore_io_chain_runs(ctx, ch);
	}
	if (ret)
		goto return_mrs;
	*ch->link = NULL;

	ctx->nr_mrs = n;
	ctx->nr_ops = n;
	ctx->nr_wrs = ch->wrs;
	return 0;

return_mrs:
	/*
	 * The MRs mapped hold rotated keys no WR has registered yet: their
	 * device MRs are replaced before reuse.  The others are untouched.
	 */
	for (i = 0; i < n; i++)
		mrcore_pool_return(pool, ctx->mrs[i], i >= ch->mapped);
free_wrs:
	mrcore_io_free(ctx);
	return ret;
}

/*
 * mrs, iwarp read: the I/O through pool MRs, a run each.  A READ into a
 * remote-write sink that the READ cannot invalidate itself, and every I/O
 * on a device that does not check access rights on incoming READs, is
 * followed by a LOCAL_INV of the MR, so that its key never outlives the
 * I/O.
 */
static __always_inline int mrcore_io_build_mrs(struct rdma_io_ctx *ctx,
					       bool iwarp_read)
{
	struct mrcore_io_mr_chain ch;

	ctx->kind = iwarp_read ? MRCORE_IO_IWARP_READ : MRCORE_IO_MRS;
	mrcore_io_mr_chain_init(ctx, iwarp_read, &ch);
	if (likely(ctx->nr_runs == 1 && !ch.inv_after))
		return mrcore_io_build_one_run(ctx, &ch);
	return mrcore_io_build_chain(ctx, &ch);
}

/**
 * struct mrcore_io_choice - what the planning decided
 * @cand: the candidate to build.
 * @plan: its plan.
 * @fallback: the cheapest candidate that takes no MR, for a dry pool; -1.
 * @why: why @cand.
 */
struct mrcore_io_choice {
	int cand;
	struct rdma_io_plan plan;
	int fallback;
	enum mrcore_why why;
};

/* The plan of candidate @c on the summary; -EOPNOTSUPP if it cannot. */
static int mrcore_io_price(const struct rdma_io_ctx *ctx,
			   const struct mrcore_io_cand *c,
			   struct rdma_io_plan *plan)
{
	const struct rdma_io_pool *pool = ctx->pool;
	const struct rdma_io_weights *w = &pool->info.weights;
	bool iwarp_read = mrcore_io_iwarp_read(ctx);
	u32 runs = ctx->nr_runs, stale, clean;

	switch (c->kind) {
	case MRCORE_IO_SGES:
		if (iwarp_read)
			return -EOPNOTSUPP;
		plan->wrs = DIV_ROUND_UP(ctx->dma_nents,
					 mrcore_io_sges_per_wr(ctx));
		plan->mrs = 0;
		plan->cost = mrcore_cost(w, plan->wrs, 0, 0, ctx->dma_nents);
		return 0;
	case MRCORE_IO_MRS:
		if (iwarp_read)
			return -EOPNOTSUPP;
		if (pool->mr_backend->io_flags & RDMA_IO_SYNC_MAP) {
			/*
			 * No WR registers, none invalidates: so none can kill
			 * a key after its I/O where that is needed.
			 */
			if (pool->kill_local_keys)
				return -EOPNOTSUPP;
			plan->wrs = mrcore_mr_io_wrs(MRCORE_KEY_SYNC, runs, 0);
			break;
		}
		clean = READ_ONCE(pool->nr_clean);
		stale = runs > clean ? runs - clean : 0;
		plan->wrs = mrcore_mr_io_wrs(pool->kill_local_keys ?
					     MRCORE_KEY_KILLED : MRCORE_KEY_KEPT,
					     runs, stale);
		break;
	case MRCORE_IO_IWARP_READ:
		if (!iwarp_read)
			return -EOPNOTSUPP;
		clean = READ_ONCE(pool->nr_clean);
		stale = runs > clean ? runs - clean : 0;
		plan->wrs = mrcore_mr_io_wrs(pool->read_inv ?
					     MRCORE_KEY_READ_INV :
					     MRCORE_KEY_KILLED, runs, stale);
		break;
	default:
		return c->ops->io_plan(ctx, plan);
	}
	plan->mrs = runs;
	plan->cost = mrcore_cost(w, plan->wrs, runs, ctx->npages, 0);
	return 0;
}

/*
 * Whether @a is cheaper than @b, fewer WRs breaking a tie; with @b a floor
 * (mrcore_io_mr_floor()), whether @a beats every plan that costs as much.
 */
static bool mrcore_plan_better(const struct rdma_io_plan *a,
			       const struct rdma_io_plan *b)
{
	return a->cost < b->cost || (a->cost == b->cost && a->wrs < b->wrs);
}

/* One DMA entry is its own summary: nothing to walk. */
static inline int mrcore_io_measure_one(struct rdma_io_ctx *ctx)
{
	u32 mr_pages = ctx->pool->info.mr_pages;
	u64 addr;
	u32 len;
	int ret;

	ret = mrcore_sg_entry(ctx->sg, ctx->sg_offset, &addr, &len);
	if (unlikely(ret))
		return ret;
	ctx->length = len;
	ctx->npages = (PAGE_ALIGN(addr + len) - (addr & PAGE_MASK)) >>
		      PAGE_SHIFT;
	/* 0 without MRs to count, as mrcore_sg_summarize() does. */
	ctx->nr_runs = mr_pages ? DIV_ROUND_UP(ctx->npages, mr_pages) : 0;
	ctx->sg_last = ctx->sg;
	ctx->sg_last_len = sg_dma_len(ctx->sg);
	return 0;
}

/* Measure the list once: what every plan but the shortcut needs. */
static __always_inline int mrcore_io_measure(struct rdma_io_ctx *ctx)
{
	struct mrcore_sg_summary sum;
	int ret;

	if (ctx->dma_nents == 1) {
		ret = mrcore_io_measure_one(ctx);
		if (ret)
			return ret;
		return mrcore_io_check_length(ctx);
	}
	ret = mrcore_sg_summarize(ctx->sg, ctx->sg_offset, ctx->dma_nents,
				  ctx->pool->info.mr_pages, &sum);
	if (ret)
		return ret;
	ctx->length = sum.length;
	ret = mrcore_io_check_length(ctx);
	if (ret)
		return ret;
	ctx->npages = sum.npages;
	ctx->nr_runs = sum.runs;
	ctx->sg_last = sum.last;
	ctx->sg_last_len = sum.last_len;
	return 0;
}

static int mrcore_io_choose(struct rdma_io_ctx *ctx,
			    const struct mrcore_io_set *set,
			    struct mrcore_io_choice *ch)
{
	int only = set->only[ctx->dir == DMA_FROM_DEVICE];
	struct rdma_io_plan p, fallback = {};
	u32 i;
	int ret;

	ch->cand = -1;
	ch->fallback = -1;
	/* A forced backend that does not serve the pool: nothing to measure. */
	if (only < 0 && set->forced == set->nr)
		return -EOPNOTSUPP;
	ret = mrcore_io_measure(ctx);
	if (ret)
		return ret;
	if (only >= 0) {
		/* Nothing to compare, and no plan without MRs to fall to. */
		if (mrcore_io_price(ctx, &set->cand[only], &ch->plan))
			return -EOPNOTSUPP;
		ch->cand = only;
		ch->why = MRCORE_WHY_CHEAPEST;
		return 0;
	}
	if (set->forced >= 0) {
		if (mrcore_io_price(ctx, &set->cand[set->forced], &ch->plan))
			return -EOPNOTSUPP;
		ch->cand = set->forced;
		ch->why = MRCORE_WHY_FORCED;
		return 0;
	}

	for (i = 0; i < set->nr; i++) {
		if (mrcore_io_price(ctx, &set->cand[i], &p))
			continue;
		if (!p.mrs &&
		    (ch->fallback < 0 || mrcore_plan_better(&p, &fallback))) {
			ch->fallback = i;
			fallback = p;
		}
		if (ch->cand >= 0 && !mrcore_plan_better(&p, &ch->plan))
			continue;
		ch->cand = i;
		ch->plan = p;
	}
	if (ch->cand < 0)
		return -EOPNOTSUPP;
	/* A plan without MRs cannot run dry: no fallback from it. */
	if (!ch->plan.mrs)
		ch->fallback = -1;
	ch->why = MRCORE_WHY_CHEAPEST;
	return 0;
}

static int mrcore_io_build(struct rdma_io_ctx *ctx,
			   const struct mrcore_io_cand *c)
{
	int ret;

	/* Custom builders and io_done see their backend. */
	ctx->backend = c->ops;
	switch (c->kind) {
	case MRCORE_IO_SGES:
		return mrcore_io_build_sges(ctx, mrcore_io_sges_per_wr(ctx),
					    ctx->dir == DMA_FROM_DEVICE);
	case MRCORE_IO_MRS:
	case MRCORE_IO_IWARP_READ:
		return mrcore_io_build_mrs(ctx,
					   c->kind == MRCORE_IO_IWARP_READ);
	default:
		ctx->kind = MRCORE_IO_CUSTOM;
		ctx->wrs = NULL;
		ctx->mem_pooled = false;
		ret = c->ops->io_build(ctx);
		/* What rdma_io_alloc_wrs() gave a failed build goes back. */
		if (ret && ctx->wrs)
			mrcore_io_free(ctx);
		return ret;
	}
}

/*
 * The cheapest any plan with an MR could be, if the I/O spans @npages pages
 * in as few runs as they fit: a lower bound of their prices.  False if no
 * candidate uses MRs.
 */
static bool mrcore_io_mr_floor(struct rdma_io_ctx *ctx,
			       const struct mrcore_io_set *set, u32 npages,
			       struct rdma_io_plan *floor)
{
	u32 mr_pages = ctx->pool->info.mr_pages;
	struct rdma_io_plan p;
	bool any = false;
	u32 i;

	ctx->npages = npages;
	ctx->nr_runs = mr_pages ? DIV_ROUND_UP(npages, mr_pages) : 0;
	for (i = 0; i < set->nr; i++) {
		const struct mrcore_io_cand *c = &set->cand[i];

		if ((c->kind != MRCORE_IO_MRS &&
		     c->kind != MRCORE_IO_IWARP_READ) ||
		    mrcore_io_price(ctx, c, &p))
			continue;
		if (!any || mrcore_plan_better(&p, floor))
			*floor = p;
		any = true;
	}
	return any;
}

/*
 * Several WRs of SGEs, built in the one pass that also validates the list
 * and counts its bytes, when no plan with an MR can beat them: those span
 * at least a page per PAGE_SIZE bytes, which bounds their prices from
 * below.  A first guess (a page per entry) keeps this from building SGEs
 * that an MR plan will clearly beat.  Returns 1 if the I/O was built.
 */
static int mrcore_io_sges_first(struct rdma_io_ctx *ctx,
				const struct mrcore_io_set *set,
				struct mrcore_io_choice *ch)
{
	u32 per_wr = mrcore_io_sges_per_wr(ctx);
	struct rdma_io_plan floor;
	int ret;

	ch->plan.wrs = DIV_ROUND_UP(ctx->dma_nents, per_wr);
	ch->plan.mrs = 0;
	ch->plan.cost = mrcore_cost(&ctx->pool->info.weights, ch->plan.wrs,
				    0, 0, ctx->dma_nents);
	if (mrcore_io_mr_floor(ctx, set, ctx->dma_nents, &floor) &&
	    !mrcore_plan_better(&ch->plan, &floor))
		return 0;
	ret = mrcore_io_build_sges(ctx, per_wr, ctx->dir == DMA_FROM_DEVICE);
	if (ret)
		return ret;
	if (mrcore_io_mr_floor(ctx, set, DIV_ROUND_UP(ctx->length, PAGE_SIZE),
			       &floor) &&
	    !mrcore_plan_better(&ch->plan, &floor)) {
		mrcore_io_free(ctx);
		return 0;
	}
	ctx->npages = 0;
	ctx->nr_runs = 0;
	ch->cand = set->sges;
	ch->why = MRCORE_WHY_CHEAPEST;
	return 1;
}

/* Price every candidate on the summary, build the cheapest. */
static noinline int mrcore_io_plan_build(struct rdma_io_ctx *ctx,
					 const struct mrcore_io_set *set,
					 struct mrcore_io_choice *ch)
{
	struct mrcore_device *mdev = ctx->pool->mdev;
	int ret;

	ctx->npages = 0;
	ctx->nr_runs = 0;
	ctx->nr_mrs = 0;
	ctx->mrs = NULL;
	if (set->sges_first[ctx->dir == DMA_FROM_DEVICE]) {
		ret = mrcore_io_sges_first(ctx, set, ch);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	ret = mrcore_io_choose(ctx, set, ch);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			mrcore_stat_inc(mdev, MRCORE_STAT_ERR_NO_BACKEND);
		return ret;
	}
	ret = mrcore_io_build(ctx, &set->cand[ch->cand]);
	/* Too few MRs free, or too few in the pool: a plan without any. */
	if ((ret == -EAGAIN || ret == -E2BIG) && ch->fallback >= 0) {
		ch->cand = ch->fallback;
		ch->why = MRCORE_WHY_POOL_DRY;
		ret = mrcore_io_build(ctx, &set->cand[ch->cand]);
		if (!ret)
			mrcore_stat_inc(mdev, MRCORE_STAT_POOL_FALLBACKS);
	}
	if (ret == -EAGAIN)
		mrcore_stat_inc(mdev, MRCORE_STAT_ERR_POOL_DRY);
	return ret;
}

/*
 * An offset at or past the end of the first DMA entry skips entries whole,
 * as rdma_rw does: a ULP resuming an I/O passes the bytes already done.
 */
static noinline int mrcore_io_skip_entries(struct rdma_io_ctx *ctx)
{
	struct scatterlist *s = ctx->sg;
	u32 offset = ctx->sg_offset;
	int left = ctx->dma_nents;

	while (offset >= sg_dma_len(s)) {
		/* An empty entry is a caller bug, skipped or not. */
		if (!sg_dma_len(s) || !--left)
			return -EINVAL;
		offset -= sg_dma_len(s);
		s = sg_next(s);
	}
	ctx->sg = s;
	ctx->sg_offset = offset;
	ctx->dma_nents = left;
	return 0;
}

/* mrcore_io_skip_entries() where the offset leaves the first entry. */
static inline int mrcore_io_skip(struct rdma_io_ctx *ctx)
{
	if (likely(ctx->sg_offset < sg_dma_len(ctx->sg)))
		return 0;
	return mrcore_io_skip_entries(ctx);
}

/* A built I/O: its backend, the device's counters, the tracepoint. */
static inline void mrcore_io_chosen(struct rdma_io_ctx *ctx,
				    const struct mrcore_io_cand *c,
				    bool read, enum mrcore_why why,
				    u32 cost)
{
	ctx->backend = c->ops;
	mrcore_count_use(ctx->pool->stats, ctx->pool->last,
			 read ? MRCORE_CLASS_READ : MRCORE_CLASS_WRITE,
			 c->slot, why);
	trace_mrcore_io_init(ctx, mrcore_why_name(why), cost);
}

/* Everything but one entry in one WR: the plans, priced and built. */
static noinline int mrcore_io_init_planned(struct rdma_io_ctx *ctx,
					   const struct mrcore_io_set *set)
{
	bool read = ctx->dir == DMA_FROM_DEVICE;
	struct mrcore_io_choice ch;
	int ret;

	ret = mrcore_io_skip(ctx);
	if (ret)
		return ret;

	/*
	 * The SGEs fit one WR, or a few, and no plan with an MR could cost
	 * less, whatever the pages: nothing to measure or price.
	 */
	if (ctx->dma_nents <= set->sges_max[read]) {
		ret = mrcore_io_build_sges(ctx,
					   ctx->dma_nents <= set->one_wr[read] ?
					   ctx->dma_nents :
					   mrcore_io_sges_per_wr(ctx), read);
		if (unlikely(ret))
			return ret;
		ch.cand = set->sges;
		ch.why = MRCORE_WHY_CHEAPEST;
		ch.plan.cost = mrcore_cost(&ctx->pool->info.weights,
					   ctx->nr_wrs, 0, 0, ctx->dma_nents);
	} else {
		ret = mrcore_io_plan_build(ctx, set, &ch);
		if (unlikely(ret))
			return ret;
	}

	mrcore_io_chosen(ctx, &set->cand[ch.cand], read, ch.why, ch.plan.cost);
	return 0;
}

/* mrcore_io_build_mr_only()'s tracepoint, out of line as mrcore_io_trace_one(). */
static noinline void mrcore_io_trace_mr_only(const struct rdma_io_ctx *ctx)
{
	trace_mrcore_io_init(ctx, mrcore_why_name(MRCORE_WHY_CHEAPEST),
			     mrcore_cost(&ctx->pool->info.weights,
					 ctx->nr_wrs, ctx->nr_mrs,
					 ctx->npages, 0));
}

/*
 * The build of a set's single MR candidate (set->mr_only) on a measured
 * I/O: mrcore_io_build()'s work for an MR kind done here, since the set
 * already knows the kind and mrcore_io_build()'s switch on it would only
 * be paid again by every one-entry I/O (Documentation/benchmarks.rst,
 * "Where the special cases pay"), and the planned path's counters.
 */
static __always_inline int mrcore_io_build_mr_only(struct rdma_io_ctx *ctx,
						   const struct mrcore_io_set *set,
						   u32 read)
{
	const struct mrcore_io_cand *c = &set->cand[set->mr_only[read]];
	struct rdma_io_pool *pool = ctx->pool;
	int ret;

	ctx->backend = c->ops;
	ret = mrcore_io_build_mrs(ctx, c->kind == MRCORE_IO_IWARP_READ);
	if (unlikely(ret)) {
		if (ret == -EAGAIN)
			mrcore_stat_inc(pool->mdev, MRCORE_STAT_ERR_POOL_DRY);
		return ret;
	}
	mrcore_count_use(pool->stats, pool->last,
			 read ? MRCORE_CLASS_READ : MRCORE_CLASS_WRITE,
			 c->slot, MRCORE_WHY_CHEAPEST);
	if (trace_mrcore_io_init_enabled())
		mrcore_io_trace_mr_only(ctx);
	return 0;
}

/*
 * A single candidate, which moves the I/O through pool MRs (set->mr_only):
 * the sink of an iWARP READ.  Nothing to choose and nothing to price: the
 * list is measured and built.  The checks, errors and counters are those of
 * the planned path (mrcore_io_measure(), mrcore_io_plan_build()); the
 * tracepoint's cost is that of the chain as built.
 */
static noinline int mrcore_io_init_mr_list(struct rdma_io_ctx *ctx,
					   const struct mrcore_io_set *set,
					   u32 read)
{
	int ret;

	ret = mrcore_io_skip(ctx);
	if (ret)
		return ret;
	ret = mrcore_io_measure(ctx);
	if (unlikely(ret))
		return ret;
	return mrcore_io_build_mr_only(ctx, set, read);
}

static noinline void mrcore_io_signal_writes(struct rdma_io_ctx *ctx)
{
	struct ib_send_wr *wr = ctx->first;
	u32 n;

	for (n = 0; wr && n < ctx->nr_wrs; wr = wr->next, n++)
		mrcore_io_signal_write(wr);
}

/* An init that failed after mapping: nothing built, the mapping undone. */
static noinline int mrcore_io_init_undo(struct rdma_io_ctx *ctx, int ret)
{
	ctx->backend = NULL;
	mrcore_io_dma_unbuilt(ctx->pool, ctx->map_sg, ctx->sg_cnt, ctx->dir);
	return ret;
}

/*
 * rdma_io_ctx_init() past its checks, its arguments in @ctx: the mapping,
 * the pool's set, then the one-entry shortcut, the single MR candidate, or
 * the plans.
 */
static noinline int mrcore_io_init_mapped(struct rdma_io_ctx *ctx)
{
	const struct mrcore_io_set *set;
	u64 __percpu *uses;
	u32 read;
	int ret;

	/*
	 * Mapped first: every strategy needs the DMA entries.  A pool no
	 * backend serves maps and unmaps for nothing.
	 */
	ctx->dma_nents = __mrcore_dma_map(ctx->pool->info.dev, ctx->map_sg,
					  ctx->sg_cnt, ctx->dir);
	set = mrcore_pool_io(ctx->pool);
	/* 0 for a WRITE, 1 for a READ: @dir is one of the two. */
	BUILD_BUG_ON(DMA_FROM_DEVICE - DMA_TO_DEVICE != 1);
	read = ctx->dir - DMA_TO_DEVICE;
	/*
	 * The common case, decided before anything is measured and before
	 * the mapping's failure is tested: one entry, and the pool lets SGEs
	 * go without pricing (its shortcut counter is set).
	 */
	uses = set->sges_uses[read];
	if (likely(ctx->dma_nents == 1 && uses)) {
		ret = mrcore_io_init_one(ctx, set, uses, read);
		if (unlikely(ret < 0)) {
			mrcore_dma_count_live();
			return mrcore_io_init_undo(ctx, ret);
		}
		return ret;
	}
	if (unlikely(ctx->dma_nents <= 0)) {
		ctx->dma_nents = 0;
		mrcore_pool_stat_add(ctx->pool, MRCORE_STAT_ERR_DMA_MAP, 1);
		return -ENOMEM;
	}
	mrcore_dma_count_live();
	if (set->mr_only[read] >= 0)
		ret = mrcore_io_init_mr_list(ctx, set, read);
	else
		ret = mrcore_io_init_planned(ctx, set);
	if (unlikely(ret))
		return mrcore_io_init_undo(ctx, ret);
	/*
	 * Signaled here rather than by rdma_io_ctx_wrs(), which then tests
	 * the device only for a WR chained after the I/O: a one-WR I/O does
	 * not come here, and its WR is the I/O's own completion.
	 */
	if (unlikely(ctx->pool->signal_writes) && ctx->dir == DMA_TO_DEVICE)
		mrcore_io_signal_writes(ctx);
	return ctx->nr_wrs;
}

/**
 * rdma_io_ctx_init() - plan and build one RDMA READ or WRITE
 * @ctx: the context, owned by the caller until rdma_io_ctx_destroy().
 * @pool: the MR pool of the QP the I/O is posted on.
 * @sg: the local memory, a CPU scatterlist; the core DMA-maps it.
 * @sg_cnt: entries in @sg.
 * @sg_offset: bytes of @sg to skip; past the first entry it skips entries
 *	whole.
 * @remote_addr: the peer's address.
 * @rkey: the peer's key.
 * @dir: %DMA_FROM_DEVICE to READ from the peer into @sg, %DMA_TO_DEVICE to
 *	WRITE @sg to the peer.
 *
 * When the pool has too few free MRs for the chosen plan, the I/O falls back
 * to the cheapest plan without MRs, if the transport allows one.
 *
 * Context: Process context; may sleep.
 * Return: the number of WRs the I/O posts (> 0); -EINVAL for a NULL
 * argument, zero @sg_cnt, an @sg_offset at or past the end of the list,
 * an empty entry or an unknown @dir; -EOVERFLOW for more than U32_MAX
 * bytes, an entry that wraps, or a @remote_addr whose range of the I/O's
 * length wraps the 64-bit address space; -ENOMEM; -EOPNOTSUPP if no backend
 * (or not the forced one) can move the I/O; -EAGAIN if the pool is dry and
 * no fallback applies (MRs held by other I/Os come back: try again
 * later); -E2BIG if the I/O needs more MRs than the pool owns (more pages,
 * or more pieces between holes, than it was sized for) and no fallback
 * applies: no retry can serve it.  On error nothing is mapped or held.
 */
int rdma_io_ctx_init(struct rdma_io_ctx *ctx, struct rdma_io_pool *pool,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	/* DMA_TO_DEVICE and DMA_FROM_DEVICE are 1 and 2. */
	if (unlikely((unsigned int)dir - DMA_TO_DEVICE > 1 ||
		     !ctx || !pool || !sg || !sg_cnt))
		return -EINVAL;

	/*
	 * The arguments go into the context, from which every strategy
	 * builds and rdma_io_ctx_destroy() undoes.
	 */
	ctx->pool = pool;
	ctx->map_sg = sg;
	ctx->sg = sg;
	ctx->sg_cnt = sg_cnt;
	ctx->sg_offset = sg_offset;
	ctx->dir = dir;
	ctx->remote_addr = remote_addr;
	ctx->rkey = rkey;
	return mrcore_io_init_mapped(ctx);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_ctx_init, RDMA_MRCORE);
