// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backend registry.
 *
 * Backends are kept newest first, so a vendor backend registered for its
 * devices after this module loaded is preferred over the built-in ones for
 * MRs.  For I/O, each pool resolves once which backends serve it and what
 * strategy each stands for (core/io.c prices them per I/O); every change of
 * the registry, or of the forced backend, bumps a generation that makes
 * pools resolve again at their next I/O.  No I/O walks the list, takes a
 * lock or touches a module reference.
 */
#include "mrcore_priv.h"

static LIST_HEAD(mrcore_backends);
static DEFINE_MUTEX(mrcore_backends_lock);

/* Starts at 1: a pool's generation 0 means "not resolved". */
u32 mrcore_registry_gen = 1;

/**
 * mrcore_registry_changed() - make every pool resolve its backends again
 *
 * Context: Any context.
 */
void mrcore_registry_changed(void)
{
	u32 gen = READ_ONCE(mrcore_registry_gen) + 1;

	WRITE_ONCE(mrcore_registry_gen, gen ? gen : 1);
}

static bool mrcore_backend_has_mr(const struct rdma_mr_backend_ops *ops)
{
	return ops->max_pages && ops->mr_init && ops->mr_release && ops->map &&
	       ops->invalidate;
}

static bool mrcore_backend_has_io(const struct rdma_mr_backend_ops *ops)
{
	return ops->io_plan && ops->io_build;
}

/* Why @ops cannot be registered, or %NULL if it can. */
static const char *mrcore_backend_ops_refused(const struct rdma_mr_backend_ops *ops)
{
	bool any_mr = ops->max_pages || ops->mr_init || ops->mr_release ||
		      ops->map || ops->invalidate || ops->recycle ||
		      ops->io_weights || (ops->io_flags & RDMA_IO_SYNC_MAP);
	bool any_io = ops->io_plan || ops->io_build || ops->io_done;
	unsigned int core_io = ops->io_flags &
			       (RDMA_IO_SGES | RDMA_IO_IWARP_READ);

	if (!ops->name || !ops->serves ||
	    strlen(ops->name) >= MRCORE_BACKEND_NAME_LEN)
		return "no name, a name too long or no serves()";
	if (ops->io_flags & ~(RDMA_IO_SGES | RDMA_IO_IWARP_READ |
			      RDMA_IO_SYNC_MAP))
		return "unknown io_flags";
	if (any_mr && !mrcore_backend_has_mr(ops))
		return "part of the MR callbacks only";
	if (any_io && !mrcore_backend_has_io(ops))
		return "part of the I/O callbacks only";
	/* One strategy per backend: the core's, or its own. */
	if ((any_io && core_io) || (core_io && !is_power_of_2(core_io)))
		return "conflicting I/O strategies";
	if (!any_mr && !any_io && !core_io)
		return "no callbacks";
	return NULL;
}

/**
 * rdma_mr_backend_register() - make a backend available to the core
 * @ops: the backend; must stay valid until rdma_mr_backend_unregister().
 *
 * Context: Process context; takes a mutex.
 * Return: 0; -EINVAL if @ops is NULL, has no name or a name of 16
 * characters or more, offers part of the MR or I/O callbacks only, or none,
 * or declares unknown or conflicting @io_flags; -EEXIST if a backend of the
 * same name is registered.
 */
int rdma_mr_backend_register(struct rdma_mr_backend_ops *ops)
{
	struct rdma_mr_backend_ops *cur;
	const char *why;
	int ret = 0;

	if (!ops)
		return -EINVAL;
	why = mrcore_backend_ops_refused(ops);
	if (why) {
		pr_warn_ratelimited("backend \"%.*s\" refused: %s\n",
				    MRCORE_BACKEND_NAME_LEN,
				    ops->name ? ops->name : "", why);
		return -EINVAL;
	}

	mutex_lock(&mrcore_backends_lock);
	list_for_each_entry(cur, &mrcore_backends, list) {
		if (!strcmp(cur->name, ops->name)) {
			ret = -EEXIST;
			goto unlock;
		}
	}
	list_add_rcu(&ops->list, &mrcore_backends);
	mrcore_registry_changed();
unlock:
	mutex_unlock(&mrcore_backends_lock);
	if (ret)
		pr_warn_ratelimited("backend \"%s\" refused: a backend of that name is registered\n",
				    ops->name);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_backend_register, RDMA_MRCORE);

/**
 * rdma_mr_backend_unregister() - withdraw a backend
 * @ops: a registered backend.
 *
 * MRs, and the pools that resolved the backend for their I/O, hold a
 * reference on its module until they are destroyed, so a backend cannot go
 * away under one that uses it; new ones no longer pick it, and every pool
 * resolves its backends again at its next I/O.
 *
 * Context: Process context; may sleep (waits for an RCU grace period).
 */
void rdma_mr_backend_unregister(struct rdma_mr_backend_ops *ops)
{
	mutex_lock(&mrcore_backends_lock);
	list_del_rcu(&ops->list);
	mrcore_registry_changed();
	mutex_unlock(&mrcore_backends_lock);
	synchronize_rcu();
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_backend_unregister, RDMA_MRCORE);

/**
 * mrcore_backend_get() - pick the MR backend for a device
 * @dev: the device.
 *
 * Context: Any context.
 * Return: the newest registered backend that offers MRs and serves @dev,
 * with a reference on its module; %NULL if there is none.
 */
const struct rdma_mr_backend_ops *mrcore_backend_get(struct ib_device *dev)
{
	const struct rdma_mr_backend_ops *found = NULL;
	struct rdma_mr_backend_ops *ops;

	rcu_read_lock();
	list_for_each_entry_rcu(ops, &mrcore_backends, list) {
		if (mrcore_backend_has_mr(ops) && ops->serves(dev) &&
		    try_module_get(ops->owner)) {
			found = ops;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * mrcore_backend_put() - drop what mrcore_backend_get() took
 * @ops: the backend.
 *
 * Context: Any context.
 */
void mrcore_backend_put(const struct rdma_mr_backend_ops *ops)
{
	module_put(ops->owner);
}

/* What a backend stands for on @pool, if it serves it at all. */
static int mrcore_io_kind_of(const struct rdma_io_pool *pool,
			     const struct rdma_mr_backend_ops *ops)
{
	const struct rdma_mr_backend_ops *mrs = pool->nr_total ?
						pool->mr_backend : NULL;

	if (!ops->serves(pool->info.dev))
		return -1;
	if (mrcore_backend_has_io(ops))
		return MRCORE_IO_CUSTOM;
	if (ops->io_flags & RDMA_IO_SGES)
		return MRCORE_IO_SGES;
	/*
	 * An iWARP READ sink is a pool MR whose key dies with the READ, by a
	 * WR: an MR backend that registers synchronously cannot give that.
	 */
	if (ops->io_flags & RDMA_IO_IWARP_READ)
		return mrs && !(mrs->io_flags & RDMA_IO_SYNC_MAP) ?
		       MRCORE_IO_IWARP_READ : -1;
	return ops == mrs ? MRCORE_IO_MRS : -1;
}

/**
 * mrcore_backend_resolve_io() - the backends that can move a pool's I/O
 * @pool: the pool; its MRs, device and forced name are set.
 * @set: filled with the candidates, newest registered first.
 *
 * Pins the module of each candidate that is not the core itself; the pins
 * are dropped by mrcore_backend_unpin_io() when the pool goes.  A backend
 * whose module is going away is left out.  Candidates beyond
 * %MRCORE_IO_CANDS are left out too.
 *
 * Context: Process context.
 * Return: the number of candidates.
 */
int mrcore_backend_resolve_io(struct rdma_io_pool *pool,
			      struct mrcore_io_set *set)
{
	struct rdma_mr_backend_ops *ops;
	int kind;

	set->nr = 0;
	rcu_read_lock();
	list_for_each_entry_rcu(ops, &mrcore_backends, list) {
		struct mrcore_io_cand *c = &set->cand[set->nr];

		if (set->nr == MRCORE_IO_CANDS)
			break;
		kind = mrcore_io_kind_of(pool, ops);
		if (kind < 0)
			continue;
		c->pinned = ops->owner != THIS_MODULE ? ops->owner : NULL;
		if (c->pinned && !try_module_get(c->pinned))
			continue;
		c->ops = ops;
		c->kind = kind;
		set->nr++;
	}
	rcu_read_unlock();
	return set->nr;
}

/**
 * mrcore_backend_unpin_io() - drop what mrcore_backend_resolve_io() pinned
 * @set: the set.
 *
 * Context: Any context.
 */
void mrcore_backend_unpin_io(const struct mrcore_io_set *set)
{
	u32 i;

	/* Not through the ops: an unregistered backend's may be gone. */
	for (i = 0; i < set->nr; i++)
		if (set->cand[i].pinned)
			module_put(set->cand[i].pinned);
}
