// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-QP MR pools for the READ/WRITE helper.
 *
 * A pool holds lkey-role MRs of the device's MR backend, all of one size.
 * MRs come back in one of two ways: with their key known to be dead or
 * local-only (reusable at once; a local-only key is killed lazily by the
 * next registration in the same chain), or with their key's state unknown
 * because the I/O failed.  Those are quarantined until the pool's work has
 * deregistered them, which kills any key they had, and given a new device
 * MR: no MR is reused before its key is dead.
 */
#include "mrcore_internal.h"

/* The most pages one pool MR maps, whatever the device could do. */
#define MRCORE_POOL_MAX_MR_PAGES	512

static u32 mrcore_pool_factor(u32 mr_pages, u32 max_pages)
{
	return mr_pages ? DIV_ROUND_UP(max_pages, mr_pages) : 0;
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
EXPORT_SYMBOL_GPL(rdma_io_mr_factor);

/**
 * rdma_io_send_wrs_per_ctx() - send queue entries one I/O may use
 * @dev: the device.
 * @port_num: the port.
 * @max_pages: the largest I/O, in pages.
 *
 * For sizing a QP's send queue, like rdma_rw_init_qp(): an I/O through MRs
 * posts an invalidation, a registration and an RDMA WR per MR; an I/O that
 * falls back to several READ or WRITE WRs posts one per SGE limit's worth of
 * pages.
 *
 * Context: Process context.
 * Return: the number of send queue entries.
 */
u32 rdma_io_send_wrs_per_ctx(struct ib_device *dev, u32 port_num,
			     u32 max_pages)
{
	u32 sge = max_t(u32, 1, min_t(u32, dev->attrs.max_sge_rd,
				      dev->attrs.max_send_sge));
	u32 by_mr = 3 * rdma_io_mr_factor(dev, port_num, max_pages);

	return max_t(u32, by_mr, DIV_ROUND_UP(max_pages + 1, sge));
}
EXPORT_SYMBOL_GPL(rdma_io_send_wrs_per_ctx);

static void mrcore_pool_recycle_work(struct work_struct *work)
{
	struct rdma_io_pool *pool = container_of(work, struct rdma_io_pool,
						 recycle_work);
	struct rdma_mr *mr;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	while (!list_empty(&pool->quarantine)) {
		mr = list_first_entry(&pool->quarantine, struct rdma_mr,
				      pool_entry);
		list_del_init(&mr->pool_entry);
		spin_unlock_irqrestore(&pool->lock, flags);

		if (mrcore_mr_recycle(mr)) {
			/* No new device MR: the MR is gone, the pool shrinks. */
			spin_lock_irqsave(&pool->lock, flags);
			pool->nr_total--;
			continue;
		}
		mrcore_stat_inc(pool->mdev, MRCORE_STAT_MR_RECYCLED);
		spin_lock_irqsave(&pool->lock, flags);
		list_add_tail(&mr->pool_entry, &pool->free);
		pool->nr_free++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
}

static void mrcore_pool_free_mrs(struct rdma_io_pool *pool)
{
	struct rdma_mr *mr, *tmp;

	list_for_each_entry_safe(mr, tmp, &pool->free, pool_entry) {
		list_del(&mr->pool_entry);
		mr->pool = NULL;
		rdma_destroy_mr(mr);
	}
}

/**
 * rdma_io_pool_create() - the MR pool of a QP
 * @qp: the QP the I/Os will be posted on.
 * @port_num: the port it uses.
 * @max_ctxs: I/Os in flight at once.
 * @max_pages: pages of the largest I/O.
 *
 * Allocates @max_ctxs * rdma_io_mr_factor() MRs.  A device no MR backend
 * serves gets a pool without MRs: its I/Os all use READ/WRITE WRs on the
 * local DMA lkey.
 *
 * Context: Process context; may sleep.
 * Return: the pool, or an ERR_PTR(): -EINVAL for a NULL @qp or zero
 * @max_ctxs or @max_pages; -ENOMEM, or the driver's error from allocating
 * an MR.  On error nothing is left allocated.
 */
struct rdma_io_pool *rdma_io_pool_create(struct ib_qp *qp, u32 port_num,
					 u32 max_ctxs, u32 max_pages)
{
	struct rdma_io_pool *pool;
	u32 i, nr;
	int ret;

	if (!qp || !max_ctxs || !max_pages)
		return ERR_PTR(-EINVAL);

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	pool->qp = qp;
	pool->pd = qp->pd;
	pool->dev = qp->device;
	pool->port_num = port_num;
	pool->mdev = mrcore_device_get(pool->dev);
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->free);
	INIT_LIST_HEAD(&pool->quarantine);
	INIT_WORK(&pool->recycle_work, mrcore_pool_recycle_work);

	pool->mr_pages = mrcore_mr_pages(pool->dev);
	nr = max_ctxs * mrcore_pool_factor(pool->mr_pages, max_pages);
	for (i = 0; i < nr; i++) {
		struct rdma_mr *mr = rdma_create_mr(pool->pd, pool->mr_pages,
						    RDMA_MR_ROLE_LKEY);

		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			goto free_mrs;
		}
		pool->mr_backend = mr->ops;
		mr->pool = pool;
		list_add_tail(&mr->pool_entry, &pool->free);
		pool->nr_total++;
		pool->nr_free++;
	}
	return pool;

free_mrs:
	mrcore_pool_free_mrs(pool);
	mrcore_device_put(pool->mdev);
	kfree(pool);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(rdma_io_pool_create);

/**
 * rdma_io_pool_destroy() - free a pool and its MRs
 * @pool: the pool, or %NULL.
 *
 * Every I/O of the pool must have been destroyed; an MR still held by one
 * is a caller bug that warns once and is left to its context.
 *
 * Context: Process context; may sleep.
 */
void rdma_io_pool_destroy(struct rdma_io_pool *pool)
{
	if (!pool)
		return;
	flush_work(&pool->recycle_work);
	WARN_ON_ONCE(pool->nr_free != pool->nr_total);
	mrcore_pool_free_mrs(pool);
	mrcore_device_put(pool->mdev);
	kfree(pool);
}
EXPORT_SYMBOL_GPL(rdma_io_pool_destroy);

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
	if (!name) {
		pool->forced[0] = '\0';
		return 0;
	}
	if (strscpy(pool->forced, name, sizeof(pool->forced)) < 0) {
		pool->forced[0] = '\0';
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_force_backend);

/**
 * mrcore_pool_forced() - the backend a pool's I/Os must use
 * @pool: the pool.
 * @name: its name, on return true.
 *
 * The pool's own setting wins over the module parameter.  The parameter
 * can be rewritten at any time (sysfs, debugfs): a torn copy names no
 * backend and the I/O fails, which is all a test knob owes.
 *
 * Context: Any context.
 * Return: true if a backend is forced.
 */
bool mrcore_pool_forced(const struct rdma_io_pool *pool,
			char name[MRCORE_BACKEND_NAME_LEN])
{
	memcpy(name, pool->forced[0] ? pool->forced : mrcore_force_backend,
	       MRCORE_BACKEND_NAME_LEN);
	name[MRCORE_BACKEND_NAME_LEN - 1] = '\0';
	return name[0];
}

/**
 * mrcore_pool_take() - take MRs for one I/O, all or none
 * @pool: the pool.
 * @mrs: where the MRs go.
 * @n: how many.
 *
 * Context: Any context.
 * Return: 0, or -EAGAIN if fewer than @n are free (nothing taken).
 */
int mrcore_pool_take(struct rdma_io_pool *pool, struct rdma_mr **mrs, u32 n)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->nr_free < n || mrcore_should_fail(MRCORE_FAULT_POOL_EMPTY)) {
		u32 free = pool->nr_free;

		spin_unlock_irqrestore(&pool->lock, flags);
		mrcore_stat_inc(pool->mdev, MRCORE_STAT_POOL_MISSES);
		trace_mrcore_pool_exhausted(n, free);
		return -EAGAIN;
	}
	for (i = 0; i < n; i++) {
		mrs[i] = list_first_entry(&pool->free, struct rdma_mr,
					  pool_entry);
		list_del_init(&mrs[i]->pool_entry);
	}
	pool->nr_free -= n;
	spin_unlock_irqrestore(&pool->lock, flags);
	mrcore_stat_add(pool->mdev, MRCORE_STAT_POOL_HITS, n);
	return 0;
}

/**
 * mrcore_pool_return() - give an MR back
 * @pool: the pool.
 * @mr: an MR taken from @pool, not mapped.
 * @key_dead: the MR's key is dead or local-only and tracked (the MR is
 *	%RDMA_MR_FREE or %RDMA_MR_STALE); false quarantines it until the
 *	pool's work has replaced its device MR.
 *
 * Context: Any context.
 */
void mrcore_pool_return(struct rdma_io_pool *pool, struct rdma_mr *mr,
			bool key_dead)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	if (key_dead) {
		/*
		 * Least recently used first: a batching backend (fmr) then
		 * finds its dirty MRs flushed before they come round again.
		 */
		list_add_tail(&mr->pool_entry, &pool->free);
		pool->nr_free++;
	} else {
		list_add_tail(&mr->pool_entry, &pool->quarantine);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!key_dead)
		schedule_work(&pool->recycle_work);
}

/**
 * rdma_io_pool_device() - the device of a pool
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: the device.
 */
struct ib_device *rdma_io_pool_device(const struct rdma_io_pool *pool)
{
	return pool->dev;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_device);

/**
 * rdma_io_pool_pd() - the protection domain of a pool
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: the PD.
 */
struct ib_pd *rdma_io_pool_pd(const struct rdma_io_pool *pool)
{
	return pool->pd;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_pd);

/**
 * rdma_io_pool_mr_pages() - pages one MR of a pool maps
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: pages per MR, 0 if the pool holds no MRs.
 */
u32 rdma_io_pool_mr_pages(const struct rdma_io_pool *pool)
{
	return pool->nr_total ? pool->mr_pages : 0;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_mr_pages);

/**
 * rdma_io_pool_mr_backend() - the backend of a pool's MRs
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: the backend, or %NULL if the pool holds no MRs.
 */
const struct rdma_mr_backend_ops *
rdma_io_pool_mr_backend(const struct rdma_io_pool *pool)
{
	return pool->nr_total ? pool->mr_backend : NULL;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_mr_backend);

/**
 * rdma_io_pool_iwarp() - whether a pool's QP runs iWARP
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: true for iWARP.
 */
bool rdma_io_pool_iwarp(const struct rdma_io_pool *pool)
{
	return rdma_protocol_iwarp(pool->dev, pool->port_num);
}
EXPORT_SYMBOL_GPL(rdma_io_pool_iwarp);

/**
 * rdma_io_pool_size() - MRs a pool owns
 * @pool: the pool.
 *
 * Context: Any context.
 * Return: the number of MRs, free, in use or quarantined.
 */
u32 rdma_io_pool_size(const struct rdma_io_pool *pool)
{
	return pool->nr_total;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_size);

/**
 * rdma_io_pool_drain() - wait until quarantined MRs are back in the pool
 * @pool: the pool.
 *
 * Context: Process context; may sleep.
 * Return: MRs free in the pool afterwards.
 */
u32 rdma_io_pool_drain(struct rdma_io_pool *pool)
{
	flush_work(&pool->recycle_work);
	return pool->nr_free;
}
EXPORT_SYMBOL_GPL(rdma_io_pool_drain);
