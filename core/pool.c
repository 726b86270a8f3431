// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-QP MR pools for the READ/WRITE helper.
 *
 * A pool holds lkey-role MRs of the device's MR backend, all of one size.
 * MRs come back in one of three ways: with their key known to be dead
 * (clean), with a local-only key still valid (stale: killed lazily by the
 * next registration in the same chain, at the price of a WR), or with their
 * key's state unknown because the I/O failed.  Those get a new device MR at
 * once (mrcore_pool_kill_return()), whose deregistration kills any key they
 * had, before the I/O releases its memory.  MRs that need a new device MR
 * but whose keys named no memory (a chain never registered) are quarantined
 * until the pool's work has replaced it: no MR is reused before its key is
 * dead.  Clean MRs
 * are handed out first, so the WR a stale key costs is paid only when the
 * pool has no clean MR left.
 *
 * A pool also resolves, once, which backends can move its I/O
 * (mrcore_pool_resolve()), and again after the registry changed.
 */
#include "mrcore_priv.h"

/* The most pages one pool MR maps, whatever the device could do. */
#define MRCORE_POOL_MAX_MR_PAGES	512

/*
 * The most MRs the quarantine gathers before the pool's work replaces
 * their device MRs, and the share of the pool it may hold while doing so:
 * one work item, and one switch to a worker, for a batch.
 */
#define MRCORE_RECYCLE_BATCH		8
#define MRCORE_RECYCLE_POOL_SHARE	16

/* MRs of @mr_pages pages for @max_pages: in 64 bits, no sum to wrap. */
static u32 mrcore_pool_factor(u32 mr_pages, u32 max_pages)
{
	return mr_pages ? DIV_ROUND_UP_ULL(max_pages, mr_pages) : 0;
}

static u32 mrcore_mr_pages(struct ib_device *dev)
{
	const struct rdma_mr_backend_ops *ops = mrcore_backend_get(dev);
	u32 pages;

	if (!ops)
		return 0;
	pages = min_t(u32, ops->max_pages(dev), MRCORE_POOL_MAX_MR_PAGES);
	mrcore_backend_put(ops);
	return pages;
}

/**
 * rdma_io_mr_factor() - MRs one I/O of @max_pages pages may need
 * @dev: the device.
 * @port_num: the port.
 * @max_pages: the largest I/O, in pages.
 *
 * Context: Process context (looks up the device's MR backend).
 * Return: the number of MRs, 0 if no MR backend serves @dev.
 */
u32 rdma_io_mr_factor(struct ib_device *dev, u32 port_num, u32 max_pages)
{
	return mrcore_pool_factor(mrcore_mr_pages(dev), max_pages);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_mr_factor, RDMA_MRCORE);

/**
 * rdma_io_max_send_wr() - send queue WRs one I/O may post
 * @dev: the device.
 * @port_num: the port.
 * @max_pages: pages the largest I/O spans; it has at most as many entries.
 * @max_send_sge: the QP's cap.max_send_sge, or 0 for the device's most.
 *
 * For sizing a QP's send queue (@max_ctxs I/Os in flight: @max_ctxs times
 * this, plus the ULP's own WRs), like rdma_rw_max_send_wr() upstream.
 * Exact for the transport and the backends the device has: the most WRs
 * any plan the core may choose for such an I/O posts, whether the cost
 * model chose it, a dry pool fell back to it or it was forced:
 *
 *  - READ or WRITE WRs on the local DMA lkey, as many SGEs each as the QP
 *    takes (never for an iWARP READ);
 *  - through MRs of up to the device's page-list length (at most 512
 *    pages), per MR: REG_MR, the READ or WRITE, and a LOCAL_INV (of the
 *    key the MR kept from an earlier I/O, or on a device whose peer READs
 *    through any key, of its own key after the I/O); one WR per MR when
 *    the backend registers synchronously;
 *  - an iWARP READ: per sink MR, REG_MR and READ_WITH_INV, or REG_MR,
 *    READ and LOCAL_INV where the device cannot invalidate with the READ,
 *    and the LOCAL_INV of a kept key.
 *
 * An I/O whose memory has holes inside a page takes an MR per piece and
 * may post more; a vendor backend's own plans are not counted.
 *
 * Context: Process context (looks up the device's MR backend).
 * Return: the number of WRs, at least 1; or 0 if it exceeds U32_MAX (a
 * @max_pages no send queue could take: refuse it).
 */
u32 rdma_io_max_send_wr(struct ib_device *dev, u32 port_num, u32 max_pages,
			u32 max_send_sge)
{
	const struct rdma_mr_backend_ops *ops = mrcore_backend_get(dev);
	bool iwarp = rdma_protocol_iwarp(dev, port_num);
	bool kill = mrcore_dev_unchecked_remote_read(dev);
	u32 sge = max_send_sge ? max_send_sge : dev->attrs.max_send_sge;
	u32 wr_sge = max_t(u32, 1, min_t(u32, sge, dev->attrs.max_send_sge));
	u32 rd_sge = max_t(u32, 1, min_t(u32, sge, dev->attrs.max_sge_rd));
	enum mrcore_key_end end;
	u32 runs, io_flags;
	u64 worst;	/* up to 4 WRs a run: more than U32_MAX in all */

	max_pages = max(max_pages, 1u);
	worst = DIV_ROUND_UP_ULL(max_pages, wr_sge);
	if (!iwarp)
		worst = max_t(u64, worst, DIV_ROUND_UP_ULL(max_pages, rd_sge));
	if (!ops)
		return worst;
	runs = mrcore_pool_factor(min_t(u32, ops->max_pages(dev),
					MRCORE_POOL_MAX_MR_PAGES), max_pages);
	io_flags = ops->io_flags;
	mrcore_backend_put(ops);

	/*
	 * Every MR may keep a key from an earlier I/O, except where each
	 * key dies after its I/O, where no plan registers synchronously.
	 */
	if (io_flags & RDMA_IO_SYNC_MAP)
		end = MRCORE_KEY_SYNC;
	else
		end = kill ? MRCORE_KEY_KILLED : MRCORE_KEY_KEPT;
	if (end != MRCORE_KEY_SYNC || !kill)
		worst = max_t(u64, worst,
			      mrcore_mr_io_wrs(end, runs, kill ? 0 : runs));
	if (iwarp) {
		end = rdma_cap_read_inv(dev, port_num) ? MRCORE_KEY_READ_INV :
							 MRCORE_KEY_KILLED;
		worst = max_t(u64, worst,
			      mrcore_mr_io_wrs(end, runs, kill ? 0 : runs));
	}
	return worst > U32_MAX ? 0 : worst;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_max_send_wr, RDMA_MRCORE);

/**
 * rdma_io_max_cqe() - completions one I/O may produce on the send CQ
 * @dev: the device.
 * @port_num: the port.
 * @max_pages: as for rdma_io_max_send_wr().
 * @max_send_sge: as for rdma_io_max_send_wr().
 *
 * A completed I/O produces one completion (its last WR is the only
 * signaled one), but a flushed one produces one per WR it posted, signaled
 * or not: size the send CQ for the flush, @max_ctxs times this plus the
 * ULP's own WRs.
 *
 * Context: Process context.
 * Return: the number of completion queue entries, or 0 if it exceeds
 * U32_MAX (as rdma_io_max_send_wr()).
 */
u32 rdma_io_max_cqe(struct ib_device *dev, u32 port_num, u32 max_pages,
		    u32 max_send_sge)
{
	return rdma_io_max_send_wr(dev, port_num, max_pages, max_send_sge);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_max_cqe, RDMA_MRCORE);

/**
 * rdma_io_send_wrs_per_ctx() - send queue entries one I/O may use
 * @dev: the device.
 * @port_num: the port.
 * @max_pages: the largest I/O, in pages.
 *
 * Deprecated: rdma_io_max_send_wr(), which also takes the QP's SGE limit.
 * This is rdma_io_max_send_wr() for a QP with the device's most SGEs.
 *
 * Context: Process context.
 * Return: the number of send queue entries.
 */
u32 rdma_io_send_wrs_per_ctx(struct ib_device *dev, u32 port_num,
			     u32 max_pages)
{
	return rdma_io_max_send_wr(dev, port_num, max_pages, 0);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_send_wrs_per_ctx, RDMA_MRCORE);

/*
 * No new device MR could replace a recycled MR's: the MR has been freed and
 * the pool owns one fewer for good.  Counted and said (rate-limited): the
 * I/Os that later find the pool dry fall back or fail with -EAGAIN, and
 * nothing else would tell why.
 */
static void mrcore_pool_shrink(struct rdma_io_pool *pool, int err)
{
	unsigned long flags;
	u32 total, free;

	spin_lock_irqsave(&pool->lock, flags);
	total = pool->nr_total - 1;
	WRITE_ONCE(pool->nr_total, total);
	WRITE_ONCE(pool->nr_target, pool->nr_target - 1);
	free = pool->nr_free;
	spin_unlock_irqrestore(&pool->lock, flags);
	mrcore_stat_inc(pool->mdev, MRCORE_STAT_POOL_SHRUNK);
	mrcore_warn_ratelimited(pool->info.dev,
				"QP %u: no device MR to replace a recycled MR's (error %d): the MR pool shrinks from %u to %u MRs (%u free)\n",
				pool->info.qp->qp_num, err, total + 1, total,
				free);
}

/* A pool whose MRs come on demand and may own more than it does. */
static bool mrcore_pool_short(const struct rdma_io_pool *pool)
{
	return READ_ONCE(pool->nr_total) < READ_ONCE(pool->nr_target);
}

/*
 * Allocate @n MRs of @pool's size and role onto its clean list.  Returns 0,
 * or the error of the first that could not be had; those before it stay.
 */
static int mrcore_pool_add(struct rdma_io_pool *pool, u32 n)
{
	unsigned long flags;

	while (n--) {
		struct rdma_mr *mr = rdma_create_mr(pool->info.pd, pool->mr_pages,
						    pool->role);

		if (IS_ERR(mr))
			return PTR_ERR(mr);
		mr->pool = pool;
		/* The first MR says which backend serves the pool. */
		if (!pool->mr_backend)
			pool->mr_backend = mr->ops;
		spin_lock_irqsave(&pool->lock, flags);
		list_add_tail(&mr->pool_entry, &pool->clean);
		WRITE_ONCE(pool->nr_total, pool->nr_total + 1);
		pool->nr_free++;
		pool->nr_clean++;
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	return 0;
}

/*
 * A pool whose MRs come on demand, below its target after a take found too
 * few free: a batch more.  If the device gives no more, the pool keeps what
 * it has, for good (said once, rate-limited): its I/Os fall back to plans
 * without MRs, or wait for the MRs they hold, as until now.  Without
 * waiting for I/O in reclaim: an NFS client's writeback, or the reclaim
 * of pages swapped out over NVMe-oF, may be waiting for these MRs.
 * Returns the MRs added.
 */
static u32 mrcore_pool_grow(struct rdma_io_pool *pool)
{
	u32 total = READ_ONCE(pool->nr_total);
	u32 n = min(pool->recycle_batch, READ_ONCE(pool->nr_target) - total);
	unsigned int noio = memalloc_noio_save();
	unsigned long flags;
	int ret;

	ret = mrcore_pool_add(pool, n);
	memalloc_noio_restore(noio);
	n = READ_ONCE(pool->nr_total) - total;
	mrcore_pool_stat_add(pool, MRCORE_STAT_POOL_GROWN, n);
	if (!ret)
		return n;
	spin_lock_irqsave(&pool->lock, flags);
	WRITE_ONCE(pool->nr_target, pool->nr_total);
	spin_unlock_irqrestore(&pool->lock, flags);
	mrcore_warn_ratelimited(pool->info.dev,
				"QP %u: no more MRs on demand (error %d): the MR pool stays at %u MRs\n",
				pool->info.qp->qp_num, ret, pool->nr_total);
	return n;
}

static void mrcore_pool_recycle_work(struct work_struct *work)
{
	struct rdma_io_pool *pool = container_of(work, struct rdma_io_pool,
						 recycle_work);
	struct rdma_mr *mr;
	unsigned long flags;
	u32 back = 0;
	int ret;

	spin_lock_irqsave(&pool->lock, flags);
	while (!list_empty(&pool->quarantine)) {
		mr = list_first_entry(&pool->quarantine, struct rdma_mr,
				      pool_entry);
		list_del_init(&mr->pool_entry);
		pool->nr_quarantined--;
		spin_unlock_irqrestore(&pool->lock, flags);

		ret = mrcore_mr_recycle(mr);
		if (ret) {
			mrcore_pool_shrink(pool, ret);
			spin_lock_irqsave(&pool->lock, flags);
			continue;
		}
		mrcore_stat_inc(pool->mdev, MRCORE_STAT_MR_RECYCLED);
		spin_lock_irqsave(&pool->lock, flags);
		list_add_tail(&mr->pool_entry, &pool->clean);
		pool->nr_free++;
		pool->nr_clean++;
		back++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (mrcore_pool_short(pool))
		back += mrcore_pool_grow(pool);
	if (back && pool->space)
		pool->space(pool->space_arg);
}

/*
 * The storage of I/Os that do not fit their context's own: a free list of
 * blocks, each large enough for any I/O the pool was created for, so that
 * an I/O allocates nothing once its pool has served as many at once before.
 *
 * Blocks are allocated when an I/O finds none free, at most max_ctxs of
 * them, and kept until the pool is destroyed: never all of them when the
 * pool is made.  A ULP sizes max_ctxs for its busiest moment (svcrdma: three
 * contexts per credit), and its pools are per connection; made up front,
 * the blocks of a connection that moves one I/O at a time, or only
 * single-entry ones (which need none), would hold megabytes that no I/O
 * ever touches.  Made when needed, a pool holds the most multi-entry I/Os
 * it has had in flight at once.  Documentation/design.rst gives the sizes.
 */
struct mrcore_stash_block {
	struct mrcore_stash_block *next;
};

static void mrcore_stash_init(struct mrcore_io_stash *st, u32 max,
			      size_t size)
{
	st->max = max;
	st->size = size;
}

/* A new block for mrcore_stash_get(), if fewer than @st->max exist. */
static void *mrcore_stash_grow(struct mrcore_io_stash *st)
{
	unsigned long flags;
	void *block;
	bool grow;

	spin_lock_irqsave(&st->lock, flags);
	grow = st->nr < st->max;
	if (grow)
		st->nr++;
	spin_unlock_irqrestore(&st->lock, flags);
	if (!grow)
		return NULL;
	/* Quietly: the I/O falls back to storage of its own size. */
	block = kmalloc(st->size, GFP_KERNEL | __GFP_NOWARN);
	if (!block) {
		spin_lock_irqsave(&st->lock, flags);
		st->nr--;
		spin_unlock_irqrestore(&st->lock, flags);
	}
	return block;
}

/**
 * mrcore_stash_get() - a block of a pool's stash for one I/O
 * @st: the stash.
 *
 * A block an earlier I/O gave back, or a new one while fewer than
 * @st->max exist.
 *
 * Context: Process context; may sleep.
 * Return: the block, of @st->size bytes, not zeroed; or %NULL if @st->max
 * blocks are held by I/Os, or no new one could be allocated.
 */
void *mrcore_stash_get(struct mrcore_io_stash *st)
{
	struct mrcore_stash_block *b;
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	b = st->free;
	if (likely(b))
		st->free = b->next;
	spin_unlock_irqrestore(&st->lock, flags);
	return b ?: mrcore_stash_grow(st);
}

/**
 * mrcore_stash_put() - give back a block of mrcore_stash_get()
 * @st: the stash it came from.
 * @block: the block.
 *
 * Context: Any context: an I/O that completed may be destroyed in its
 * completion handler.
 */
void mrcore_stash_put(struct mrcore_io_stash *st, void *block)
{
	struct mrcore_stash_block *b = block;
	unsigned long flags;

	spin_lock_irqsave(&st->lock, flags);
	b->next = st->free;
	st->free = b;
	spin_unlock_irqrestore(&st->lock, flags);
}

/* Blocks of @st that an I/O still holds: a caller bug at the pool's end. */
static u32 mrcore_stash_held(const struct mrcore_io_stash *st)
{
	const struct mrcore_stash_block *b;
	u32 free = 0;

	for (b = st->free; b; b = b->next)
		free++;
	return st->nr - free;
}

/* Free the blocks no I/O holds; a held one is left to its I/O. */
static void mrcore_stash_free(struct mrcore_io_stash *st)
{
	struct mrcore_stash_block *b;

	while (st->free) {
		b = st->free;
		st->free = b->next;
		kfree(b);
	}
}

static void mrcore_pool_free_list(struct list_head *list)
{
	struct rdma_mr *mr, *tmp;

	list_for_each_entry_safe(mr, tmp, list, pool_entry) {
		list_del(&mr->pool_entry);
		mr->pool = NULL;
		rdma_destroy_mr(mr);
	}
}

static void mrcore_pool_free(struct rdma_io_pool *pool)
{
	struct mrcore_io_set *set, *tmp;

	list_for_each_entry_safe(set, tmp, &pool->io_sets, entry) {
		mrcore_backend_unpin_io(set);
		kfree(set);
	}
	mrcore_pool_free_list(&pool->clean);
	mrcore_pool_free_list(&pool->stale);
	mrcore_stash_free(&pool->io_mem);
	mrcore_stash_free(&pool->sg_mem);
	mrcore_device_put(pool->mdev);
	mutex_destroy(&pool->resolve_lock);
	kfree(pool);
}

/* Whether a built-in strategy can move an I/O in direction @read at all. */
static bool mrcore_pool_kind_serves(const struct rdma_io_pool *pool,
				    enum mrcore_io_kind kind, bool read)
{
	bool iwarp_read = read && pool->info.iwarp;

	switch (kind) {
	case MRCORE_IO_SGES:
		return !iwarp_read;
	case MRCORE_IO_MRS:
		return !iwarp_read &&
		       !((pool->mr_backend->io_flags & RDMA_IO_SYNC_MAP) &&
			 pool->kill_local_keys);
	case MRCORE_IO_IWARP_READ:
		return iwarp_read;
	default:
		return true;
	}
}

/* A set's single candidate per direction (struct mrcore_io_set, @only). */
static void mrcore_pool_only(const struct rdma_io_pool *pool,
			     struct mrcore_io_set *set, bool custom)
{
	u32 read, i, n;

	for (read = 0; read < 2; read++) {
		set->only[read] = -1;
		set->mr_only[read] = -1;
		if (set->forced >= 0 || custom)
			continue;
		for (i = 0, n = 0; i < set->nr; i++) {
			if (!mrcore_pool_kind_serves(pool, set->cand[i].kind,
						     read))
				continue;
			set->only[read] = i;
			n++;
		}
		if (n != 1)
			set->only[read] = -1;
		if (set->only[read] >= 0 && pool->info.mr_pages &&
		    set->cand[set->only[read]].kind != MRCORE_IO_SGES)
			set->mr_only[read] = set->only[read];
	}
}

/* The shortcuts of a set (struct mrcore_io_set, @one_wr, @sges_max). */
static void mrcore_pool_one_wr(const struct rdma_io_pool *pool,
			       struct mrcore_io_set *set, bool custom)
{
	const struct rdma_io_weights *w = &pool->info.weights;
	const struct rdma_mr_backend_ops *mrs;
	const struct ib_qp *qp = pool->info.qp;
	u32 beat, per_wr;

	set->one_wr[0] = 0;
	set->one_wr[1] = 0;
	set->sges_max[0] = 0;
	set->sges_max[1] = 0;
	set->sges_first[0] = false;
	set->sges_first[1] = false;
	/* A vendor's own plans have no known floor: always price them. */
	if (set->sges < 0 || set->forced >= 0 || custom)
		return;
	set->sges_first[0] = true;
	set->sges_first[1] = !pool->info.iwarp;
	mrs = pool->nr_total ? pool->mr_backend : NULL;
	beat = mrcore_sges_beat_mrs(w, mrs);
	per_wr = max(qp->max_write_sge, 1u);
	set->one_wr[0] = min(beat, per_wr);
	set->sges_max[0] = mrcore_sges_max(w, mrs, per_wr, set->one_wr[0]);
	if (pool->info.iwarp)
		return;
	per_wr = max(qp->max_read_sge, 1u);
	set->one_wr[1] = min(beat, per_wr);
	set->sges_max[1] = mrcore_sges_max(w, mrs, per_wr, set->one_wr[1]);
}

/*
 * What an I/O gets when no set could be resolved: no candidate, so the I/O
 * fails with -EOPNOTSUPP as when no backend serves the device, and the I/O
 * path needs no test for a missing set.
 */
static const struct mrcore_io_set mrcore_io_set_none = {
	.forced = -1,
	.sges = -1,
	.only = { -1, -1 },
	.mr_only = { -1, -1 },
};

/*
 * Each candidate's counter slot, and which of them is forced (@forced, a
 * backend's name or empty) and the first SGE one.  Returns whether one is
 * a vendor's custom I/O.
 */
static bool mrcore_pool_index_cands(struct rdma_io_pool *pool,
				    struct mrcore_io_set *set,
				    const char *forced)
{
	bool custom = false;
	u32 i;

	set->forced = forced[0] ? set->nr : -1;
	set->sges = -1;
	for (i = 0; i < set->nr; i++) {
		struct mrcore_io_cand *c = &set->cand[i];

		c->slot = mrcore_device_slot(pool->mdev, c->ops);
		if (forced[0] && !strcmp(c->ops->name, forced))
			set->forced = i;
		if (c->kind == MRCORE_IO_SGES && set->sges < 0)
			set->sges = i;
		if (c->kind == MRCORE_IO_CUSTOM)
			custom = true;
	}
	return custom;
}

/* What the one-WR SGE shortcut of the I/O path reads, ready in the set. */
static void mrcore_pool_sges_shortcut(struct rdma_io_pool *pool,
				      struct mrcore_io_set *set)
{
	u32 slot = set->cand[set->sges].slot;
	u64 __percpu *uses = &pool->stats->by_backend[slot][0];

	set->sges_ops = set->cand[set->sges].ops;
	/* The shortcut's counter is its flag too: NULL, no shortcut. */
	if (set->one_wr[0])
		set->sges_uses[0] = &uses[MRCORE_CLASS_WRITE];
	if (set->one_wr[1])
		set->sges_uses[1] = &uses[MRCORE_CLASS_READ];
	set->sges_last[0] = &pool->last[MRCORE_CLASS_WRITE];
	set->sges_last[1] = &pool->last[MRCORE_CLASS_READ];
	set->sges_now = mrcore_use_last(slot, MRCORE_WHY_CHEAPEST);
	set->sges_lkey = pool->info.pd->local_dma_lkey;
	set->sges_op[0] = IB_WR_RDMA_WRITE;
	set->sges_op[1] = IB_WR_RDMA_READ;
}

/**
 * mrcore_pool_resolve() - resolve the backends that move a pool's I/O
 * @pool: the pool.
 *
 * Called by the first I/O after the pool was created, the registry changed
 * or a backend was forced.  The new set is published for the I/Os that
 * follow; sets already handed out stay valid until the pool is destroyed.
 *
 * Context: Process context; may sleep.
 * Return: the set; on allocation failure the last one, or, if there is
 * none, an empty set that fails the I/O with -EOPNOTSUPP.  Never %NULL.
 */
const struct mrcore_io_set *mrcore_pool_resolve(struct rdma_io_pool *pool)
{
	char forced[MRCORE_BACKEND_NAME_LEN];
	const struct mrcore_io_set *cur;
	struct mrcore_io_set *set;
	bool custom;
	u32 gen;

	mutex_lock(&pool->resolve_lock);
	gen = READ_ONCE(mrcore_registry_gen);
	if (pool->io && READ_ONCE(pool->io_gen) == gen)
		goto unlock;
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		goto unlock;

	/*
	 * The module parameter can be rewritten at any time (sysfs): a torn
	 * copy names no backend and the I/Os fail, which is all a test knob
	 * owes.
	 */
	memcpy(forced, pool->forced[0] ? pool->forced : mrcore_force_backend,
	       sizeof(forced));
	forced[sizeof(forced) - 1] = '\0';

	mrcore_backend_resolve_io(pool, set);
	custom = mrcore_pool_index_cands(pool, set, forced);
	mrcore_pool_one_wr(pool, set, custom);
	if (set->sges >= 0)
		mrcore_pool_sges_shortcut(pool, set);
	mrcore_pool_only(pool, set, custom);

	list_add_tail(&set->entry, &pool->io_sets);
	/* Publish the set whole: see the acquire in mrcore_pool_io(). */
	smp_store_release(&pool->io, set);
	WRITE_ONCE(pool->io_gen, gen);
unlock:
	/*
	 * Read under the lock: every store to @io is made under it, and
	 * after the unlock another thread resolving for a newer generation
	 * may store a new set while this one reads.
	 */
	cur = pool->io ?: &mrcore_io_set_none;
	mutex_unlock(&pool->resolve_lock);
	return cur;
}

/**
 * mrcore_pool_alloc() - a pool of MRs of one role and size on a QP
 * @qp: the QP; its PD is the MRs'.
 * @nr_mrs: MRs the pool may own.
 * @mr_pages: pages each maps at most.
 * @role: their role: lkey for the READ/WRITE helper, rkey for an rkey set.
 * @nr_now: MRs to create now (at most @nr_mrs; one at least if @nr_mrs
 *	is not 0, as the first tells the pool's backend); the rest as takes
 *	find too few free (mrcore_pool_grow()).
 *
 * The pool's lists, lock and recycle work, and its MRs, all clean.  What
 * the READ/WRITE helper needs besides (port, transport, weights) is
 * rdma_io_pool_create()'s.
 *
 * Context: Process context; may sleep.
 * Return: the pool, or an ERR_PTR(): -ENOMEM, or the error of
 * rdma_create_mr().  On error nothing is left allocated.
 */
struct rdma_io_pool *mrcore_pool_alloc(struct ib_qp *qp, u32 nr_mrs,
				       u32 mr_pages, enum rdma_mr_role role,
				       u32 nr_now)
{
	struct rdma_io_pool *pool;
	int ret;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	pool->info.qp = qp;
	pool->info.pd = qp->pd;
	pool->info.dev = qp->device;
	pool->mdev = mrcore_device_get(qp->device);
	pool->stats = pool->mdev ? pool->mdev->stats : &mrcore_nodev_stats;
	pool->last = pool->mdev ? pool->mdev->last : mrcore_nodev_last;
	spin_lock_init(&pool->lock);
	spin_lock_init(&pool->io_mem.lock);
	spin_lock_init(&pool->sg_mem.lock);
	mutex_init(&pool->resolve_lock);
	INIT_LIST_HEAD(&pool->clean);
	INIT_LIST_HEAD(&pool->stale);
	INIT_LIST_HEAD(&pool->quarantine);
	INIT_LIST_HEAD(&pool->io_sets);
	INIT_WORK(&pool->recycle_work, mrcore_pool_recycle_work);

	pool->mr_pages = mr_pages;
	pool->role = role;
	pool->nr_target = nr_mrs;
	ret = mrcore_pool_add(pool, min(nr_now, nr_mrs));
	if (ret) {
		mrcore_pool_free(pool);
		return ERR_PTR(ret);
	}
	pool->recycle_batch = clamp_t(u32, nr_mrs / MRCORE_RECYCLE_POOL_SHARE,
				      1, MRCORE_RECYCLE_BATCH);
	return pool;
}

/*
 * The blocks of the I/Os of up to @max_pages pages (mrcore_stash_get()):
 * an SGE per page, as an I/O has at most an entry per page; the RDMA WRs
 * of the plan that posts the most of them, which are those of
 * rdma_io_max_send_wr()'s plans but the registrations and invalidations
 * (the MRs hold those); an MR per run.  The scatterlist of a bio_vec I/O
 * has an entry per segment, at most one per page.
 */
static void mrcore_pool_size_mem(struct rdma_io_pool *pool, u32 max_ctxs,
				 u32 max_pages)
{
	const struct ib_qp *qp = pool->info.qp;
	u32 per_wr = max_t(u32, qp->max_write_sge, 1);
	size_t sges_at, mrs_at;

	/* An iWARP READ never goes as SGEs: its sink must be an MR. */
	if (!pool->info.iwarp)
		per_wr = min_t(u32, per_wr, max_t(u32, qp->max_read_sge, 1));
	pool->mem_mrs = mrcore_pool_factor(pool->mr_pages, max_pages);
	pool->mem_wrs = max_t(u32, DIV_ROUND_UP_ULL(max_pages, per_wr),
			      pool->mem_mrs);
	pool->mem_sges = max_pages;
	pool->mem_sg = max_pages;
	sges_at = array_size(pool->mem_wrs, sizeof(struct ib_rdma_wr));
	mrs_at = size_add(sges_at, array_size(pool->mem_sges,
					      sizeof(struct ib_sge)));
	pool->mem_sges_at = sges_at;
	pool->mem_mrs_at = mrs_at;
	mrcore_stash_init(&pool->io_mem, max_ctxs,
			  size_add(mrs_at, array_size(pool->mem_mrs,
						      sizeof(struct rdma_mr *))));
	mrcore_stash_init(&pool->sg_mem, max_ctxs,
			  array_size(max_pages, sizeof(struct scatterlist)));
}

/**
 * rdma_io_pool_create_flags() - the MR pool of a QP, with options
 * @qp: the QP the I/Os will be posted on.
 * @port_num: the port it uses.
 * @max_ctxs: I/Os in flight at once.
 * @max_pages: pages of the largest I/O.
 * @flags: %RDMA_IO_POOL_MRS_ON_DEMAND, or 0 (rdma_io_pool_create()).
 *
 * With %RDMA_IO_POOL_MRS_ON_DEMAND, on a transport that moves every I/O
 * without MRs if it must (InfiniBand, RoCE: not iWARP, whose READs land in
 * MRs), the pool starts with one MR and grows towards the MRs it may own
 * (@max_ctxs * rdma_io_mr_factor()) a batch at a time, from a work item,
 * as I/Os find too few free; until then such an I/O takes a plan without
 * MRs (``pool_fallbacks``).  A ULP with a QP per connection or per queue
 * that rarely registers, as rdma_rw registers nothing there, so allocates
 * no MRs it does not use.  On iWARP the flag changes nothing.  MRs added
 * are counted as ``pool_grown``; rdma_io_pool_drain() waits for a batch
 * under way.
 *
 * Context: Process context; may sleep.
 * Return: as rdma_io_pool_create(); -EINVAL for an unknown flag.
 */
struct rdma_io_pool *rdma_io_pool_create_flags(struct ib_qp *qp, u32 port_num,
					       u32 max_ctxs, u32 max_pages,
					       u32 flags)
{
	struct mrcore_access access;
	struct rdma_io_pool *pool;
	u32 mr_pages, nr;
	bool on_demand;
	int ret;

	if (!qp || !max_ctxs || !max_pages ||
	    (flags & ~RDMA_IO_POOL_MRS_ON_DEMAND))
		return ERR_PTR(-EINVAL);

	mr_pages = mrcore_mr_pages(qp->device);
	if (check_mul_overflow(max_ctxs,
			       mrcore_pool_factor(mr_pages, max_pages), &nr))
		return ERR_PTR(-EOVERFLOW);
	/* A driver that does not say (max_mr 0) is left to fail the alloc. */
	if (qp->device->attrs.max_mr > 0 && nr > (u32)qp->device->attrs.max_mr)
		return ERR_PTR(-E2BIG);
	on_demand = (flags & RDMA_IO_POOL_MRS_ON_DEMAND) &&
		    !rdma_protocol_iwarp(qp->device, port_num);
	/* One MR at least: it tells which backend serves the pool. */
	pool = mrcore_pool_alloc(qp, nr, mr_pages, RDMA_MR_ROLE_LKEY,
				 on_demand ? 1 : nr);
	if (IS_ERR(pool))
		return pool;
	pool->info.port_num = port_num;
	pool->info.iwarp = rdma_protocol_iwarp(qp->device, port_num);
	pool->kill_local_keys = mrcore_dev_unchecked_remote_read(qp->device);
	pool->signal_writes = mrcore_dev_unsignaled_zcopy(qp->device);
	pool->read_inv = rdma_cap_read_inv(qp->device, port_num);
	ret = mrcore_local_access(qp->device, RDMA_MR_LOCAL_READ_SINK, &access);
	pool->sink_access = ret ? 0 : access.ib_access;
	ret = mrcore_local_access(qp->device, RDMA_MR_LOCAL_WRITE_SRC, &access);
	pool->src_access = ret ? 0 : access.ib_access;
	pool->info.mr_pages = pool->nr_total ? pool->mr_pages : 0;
	mrcore_io_weights(qp->device, port_num,
			  pool->nr_total ? pool->mr_backend : NULL,
			  &pool->info.weights);
	mrcore_pool_size_mem(pool, max_ctxs, max_pages);
	return pool;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_create_flags, RDMA_MRCORE);

/**
 * rdma_io_pool_create() - the MR pool of a QP
 * @qp: the QP the I/Os will be posted on.
 * @port_num: the port it uses.
 * @max_ctxs: I/Os in flight at once.
 * @max_pages: pages of the largest I/O.
 *
 * Allocates @max_ctxs * rdma_io_mr_factor() MRs.  A device no MR backend
 * serves gets a pool without MRs: its I/Os all use READ/WRITE WRs on the
 * local DMA lkey.  The WRs, SGEs and MR slots of an I/O of several (and
 * the scatterlist of a bio_vec I/O of several segments) come from blocks
 * the pool allocates as its I/Os first need them, at most @max_ctxs of
 * each kind, and keeps: an I/O of up to @max_pages pages, one of at most
 * @max_ctxs in flight, allocates nothing once the pool has had as many in
 * flight before.  One beyond either allocates its own (``io_allocs``).
 *
 * Context: Process context; may sleep.
 * Return: the pool, or an ERR_PTR(): -EINVAL for a NULL @qp or zero
 * @max_ctxs or @max_pages; -EOVERFLOW if @max_ctxs * rdma_io_mr_factor()
 * exceeds U32_MAX; -E2BIG if it exceeds the MRs the device says it has
 * (attrs.max_mr); -ENOMEM, or the driver's error from allocating an MR.
 * On error nothing is left allocated.
 */
struct rdma_io_pool *rdma_io_pool_create(struct ib_qp *qp, u32 port_num,
					 u32 max_ctxs, u32 max_pages)
{
	return rdma_io_pool_create_flags(qp, port_num, max_ctxs, max_pages, 0);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_create, RDMA_MRCORE);

/* Replace the device MRs of what the quarantine holds now, batch or not. */
static void mrcore_pool_recycle_kick(struct rdma_io_pool *pool)
{
	if (READ_ONCE(pool->nr_quarantined))
		queue_work(mrcore_wq, &pool->recycle_work);
}

/* mrcore_pool_recycle_kick(), then wait until those MRs are back. */
static void mrcore_pool_recycle_flush(struct rdma_io_pool *pool)
{
	mrcore_pool_recycle_kick(pool);
	flush_work(&pool->recycle_work);
}

/**
 * rdma_io_pool_destroy() - free a pool and its MRs
 * @pool: the pool, or %NULL.
 *
 * Every I/O of the pool must have been destroyed; an MR or a storage
 * block still held by one is a caller bug that warns once and is left to
 * its context.
 *
 * Context: Process context; may sleep.
 */
void rdma_io_pool_destroy(struct rdma_io_pool *pool)
{
	if (!pool)
		return;
	mrcore_pool_recycle_flush(pool);
	WARN_ON_ONCE(pool->nr_free != pool->nr_total ||
		     mrcore_stash_held(&pool->io_mem) ||
		     mrcore_stash_held(&pool->sg_mem));
	mrcore_pool_free(pool);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_destroy, RDMA_MRCORE);

/**
 * rdma_io_pool_force_backend() - make every I/O of a pool use one backend
 * @pool: the pool.
 * @name: a registered backend's name, or %NULL for the cost model's choice.
 *
 * For tests and measurements.  An I/O the forced backend cannot move fails
 * with -EOPNOTSUPP.  The module parameter force_backend does the same for
 * every pool without its own setting.
 *
 * Context: Any context, while no I/O of @pool is being initialized.
 * Return: 0, or -EINVAL for a name longer than a backend name can be.
 */
int rdma_io_pool_force_backend(struct rdma_io_pool *pool, const char *name)
{
	int ret = 0;

	if (!name)
		pool->forced[0] = '\0';
	else if (strscpy(pool->forced, name, sizeof(pool->forced)) < 0)
		ret = -EINVAL;
	if (ret)
		pool->forced[0] = '\0';
	/* The next I/O resolves the pool's backends again. */
	WRITE_ONCE(pool->io_gen, 0);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_force_backend, RDMA_MRCORE);

/*
 * A take refused: too few free MRs, or the test hooks' pool_empty.  MRs the
 * quarantine gathers for a batch are replaced now, and a pool whose MRs
 * come on demand gets a batch more (mrcore_pool_grow()).
 */
static noinline void mrcore_pool_dry(struct rdma_io_pool *pool, u32 n,
				     u32 free)
{
	if (mrcore_pool_short(pool))
		queue_work(mrcore_wq, &pool->recycle_work);
	else
		mrcore_pool_recycle_kick(pool);
	mrcore_stat_inc(pool->mdev, MRCORE_STAT_POOL_MISSES);
	trace_mrcore_pool_exhausted(pool, n, free);
}

/* mrcore_pool_take_one() refused, with @err: counted, as an ERR_PTR(). */
struct rdma_mr *mrcore_pool_miss(struct rdma_io_pool *pool, u32 free,
				 int err)
{
	mrcore_pool_dry(pool, 1, free);
	return ERR_PTR(err);
}

/**
 * mrcore_pool_take() - take MRs for one I/O, all or none
 * @pool: the pool.
 * @mrs: where the MRs go.
 * @n: how many.
 *
 * Clean MRs first; stale ones (a lazily kept local key, which their next
 * registration kills with a WR of its own) only when no clean one is left.
 *
 * Context: Any context.
 * Return: 0; -EAGAIN if fewer than @n are free but the pool owns @n (they
 * come back as I/Os end) or may own them (its MRs come on demand); -E2BIG
 * if it may own fewer than @n, which waiting cannot cure.  Nothing is taken
 * on error.
 */
int mrcore_pool_take(struct rdma_io_pool *pool, struct rdma_mr **mrs, u32 n)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->nr_free < n || mrcore_should_fail(MRCORE_FAULT_POOL_EMPTY)) {
		u32 free = pool->nr_free;
		int ret = n > pool->nr_target ? -E2BIG : -EAGAIN;

		spin_unlock_irqrestore(&pool->lock, flags);
		mrcore_pool_dry(pool, n, free);
		return ret;
	}
	for (i = 0; i < n; i++)
		mrs[i] = mrcore_pool_next(pool);
	pool->nr_free -= n;
	spin_unlock_irqrestore(&pool->lock, flags);
	mrcore_pool_stat_add(pool, MRCORE_STAT_POOL_HITS, n);
	return 0;
}

/*
 * mrcore_pool_return() of an MR that does not go back clean: quarantined
 * for a new device MR, or stale (its local-only key not yet killed).
 */
void mrcore_pool_return_slow(struct rdma_io_pool *pool, struct rdma_mr *mr,
			     bool key_dead)
{
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&pool->lock, flags);
	if (!key_dead) {
		/*
		 * Replaced in batches, unless the pool runs short: a new
		 * device MR costs the pool's work the same alone or not.
		 */
		list_add_tail(&mr->pool_entry, &pool->quarantine);
		kick = ++pool->nr_quarantined >= pool->recycle_batch ||
		       pool->nr_free < pool->recycle_batch;
	} else {
		/*
		 * Least recently used first: a batching backend (fmr) then
		 * finds its dirty MRs flushed before they come round again.
		 */
		list_add_tail(&mr->pool_entry, &pool->stale);
		pool->nr_free++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (kick)
		queue_work(mrcore_wq, &pool->recycle_work);
}

/**
 * mrcore_pool_kill_return() - kill an MR's key now, then give the MR back
 * @pool: the pool.
 * @mr: an MR taken from @pool whose key's state is unknown (its I/O
 *	failed, was flushed or never completed); no WR of it may still be
 *	queued.
 *
 * The device MR is deregistered, which kills any key it had, and a fresh
 * one takes its place before this returns: the caller may then release the
 * memory the key named.  If no new device MR can be had, the MR is freed
 * and the pool shrinks by one (counted as ``pool_shrunk`` and said in a
 * rate-limited warning).
 *
 * Context: Process context; may sleep.
 */
void mrcore_pool_kill_return(struct rdma_io_pool *pool, struct rdma_mr *mr)
{
	int ret;

	might_sleep();
	ret = mrcore_mr_recycle(mr);
	if (ret) {
		mrcore_pool_shrink(pool, ret);
		return;
	}
	mrcore_stat_inc(pool->mdev, MRCORE_STAT_MR_RECYCLED);
	mrcore_pool_return(pool, mr, true);
}

/**
 * rdma_io_pool_get_info() - what a backend may know of a pool
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: the pool's device, PD, QP, port, pages per MR (0 without MRs),
 * transport and cost weights; valid as long as the pool.
 */
const struct rdma_io_pool_info *
rdma_io_pool_get_info(const struct rdma_io_pool *pool)
{
	return &pool->info;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_get_info, RDMA_MRCORE);

/**
 * rdma_io_pool_size() - MRs a pool owns
 * @pool: the pool.
 *
 * Fewer than max_ctxs * rdma_io_mr_factor() while a pool whose MRs come on
 * demand has not needed them all, or after MRs were lost for good
 * (``pool_shrunk``).
 *
 * Context: Any context.
 * Return: the number of MRs, free, in use or quarantined.
 */
u32 rdma_io_pool_size(const struct rdma_io_pool *pool)
{
	return READ_ONCE(pool->nr_total);
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_size, RDMA_MRCORE);

/**
 * rdma_io_pool_drain() - wait until quarantined MRs are back in the pool
 * @pool: the pool.
 *
 * And, in a pool whose MRs come on demand, until the batch a take that
 * found too few asked for is in.
 *
 * Context: Process context; may sleep.
 * Return: MRs free in the pool afterwards.
 */
u32 rdma_io_pool_drain(struct rdma_io_pool *pool)
{
	mrcore_pool_recycle_flush(pool);
	return pool->nr_free;
}
EXPORT_SYMBOL_NS_GPL(rdma_io_pool_drain, RDMA_MRCORE);
