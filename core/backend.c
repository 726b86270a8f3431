// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backend registry.
 *
 * Backends are kept newest first, so a vendor backend registered for its
 * devices after this module loaded is preferred over the built-in ones for
 * MRs; for I/O every backend that serves the device is priced and the
 * cheapest wins.  Readers walk the list under RCU: planning an I/O takes no
 * lock.
 */
#include "mrcore_internal.h"

static LIST_HEAD(mrcore_backends);
static DEFINE_MUTEX(mrcore_backends_lock);

static bool mrcore_backend_has_mr(const struct rdma_mr_backend_ops *ops)
{
	return ops->max_pages && ops->mr_init && ops->mr_release && ops->map &&
	       ops->invalidate;
}

static bool mrcore_backend_has_io(const struct rdma_mr_backend_ops *ops)
{
	return ops->io_plan && ops->io_build;
}

static bool mrcore_backend_ops_valid(const struct rdma_mr_backend_ops *ops)
{
	bool any_mr = ops->max_pages || ops->mr_init || ops->mr_release ||
		      ops->map || ops->invalidate || ops->recycle;
	bool any_io = ops->io_plan || ops->io_build || ops->io_done;

	if (!ops->name || !ops->serves ||
	    strlen(ops->name) >= MRCORE_BACKEND_NAME_LEN)
		return false;
	if (any_mr && !mrcore_backend_has_mr(ops))
		return false;
	if (any_io && !mrcore_backend_has_io(ops))
		return false;
	return any_mr || any_io;
}

/**
 * rdma_mr_backend_register() - make a backend available to the core
 * @ops: the backend; must stay valid until rdma_mr_backend_unregister().
 *
 * Context: Process context; takes a mutex.
 * Return: 0; -EINVAL if @ops is NULL, has no name or a name of 16
 * characters or more, offers part of the MR or I/O callbacks only, or none;
 * -EEXIST if a backend of the same name is registered.
 */
int rdma_mr_backend_register(struct rdma_mr_backend_ops *ops)
{
	struct rdma_mr_backend_ops *cur;
	int ret = 0;

	if (!ops || !mrcore_backend_ops_valid(ops))
		return -EINVAL;

	mutex_lock(&mrcore_backends_lock);
	list_for_each_entry(cur, &mrcore_backends, list) {
		if (!strcmp(cur->name, ops->name)) {
			ret = -EEXIST;
			goto unlock;
		}
	}
	list_add_rcu(&ops->list, &mrcore_backends);
unlock:
	mutex_unlock(&mrcore_backends_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_mr_backend_register);

/**
 * rdma_mr_backend_unregister() - withdraw a backend
 * @ops: a registered backend.
 *
 * MRs and I/Os hold a reference on the backend's module, so a backend cannot
 * go away under one that uses it; new ones no longer pick it.
 *
 * Context: Process context; may sleep (waits for an RCU grace period).
 */
void rdma_mr_backend_unregister(struct rdma_mr_backend_ops *ops)
{
	mutex_lock(&mrcore_backends_lock);
	list_del_rcu(&ops->list);
	mutex_unlock(&mrcore_backends_lock);
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(rdma_mr_backend_unregister);

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

static bool mrcore_plan_better(const struct rdma_io_plan *a,
			       const struct rdma_io_plan *b)
{
	return a->cost < b->cost || (a->cost == b->cost && a->wrs < b->wrs);
}

/**
 * mrcore_backend_choose_io() - the cheapest backend for an I/O
 * @ctx: the I/O, DMA-mapped and measured.
 * @forced: the only backend that may be chosen, or "" for any.
 * @plan: the chosen backend's plan.
 *
 * Every backend that offers I/O and serves the device prices the I/O with
 * its @io_plan; the lowest cost wins, fewer WRs break a tie.
 *
 * Context: Any context.
 * Return: the backend, with a reference on its module; %NULL if none can
 * move the I/O.
 */
const struct rdma_mr_backend_ops *
mrcore_backend_choose_io(const struct rdma_io_ctx *ctx, const char *forced,
			 struct rdma_io_plan *plan)
{
	struct ib_device *dev = rdma_io_pool_device(ctx->pool);
	const struct rdma_mr_backend_ops *best = NULL;
	struct rdma_mr_backend_ops *ops;
	struct rdma_io_plan p;

	rcu_read_lock();
	list_for_each_entry_rcu(ops, &mrcore_backends, list) {
		if (!mrcore_backend_has_io(ops) || !ops->serves(dev))
			continue;
		if (forced[0] && strcmp(ops->name, forced))
			continue;
		if (ops->io_plan(ctx, &p))
			continue;
		if (best && !mrcore_plan_better(&p, plan))
			continue;
		best = ops;
		*plan = p;
	}
	if (best && !try_module_get(best->owner))
		best = NULL;
	rcu_read_unlock();
	return best;
}
