// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backend registry.
 *
 * Backends are kept newest first, so a vendor backend registered for its
 * devices after this module loaded is preferred over the built-in ones.
 */
#include "mrcore_internal.h"

static LIST_HEAD(mrcore_backends);
static DEFINE_MUTEX(mrcore_backends_lock);

static bool mrcore_backend_ops_complete(const struct rdma_mr_backend_ops *ops)
{
	return ops->name && ops->serves && ops->max_pages && ops->mr_init &&
	       ops->mr_release && ops->map && ops->invalidate;
}

/**
 * rdma_mr_backend_register() - make a backend available to the core
 * @ops: the backend; must stay valid until rdma_mr_backend_unregister().
 *
 * Context: Process context; takes a mutex.
 * Return: 0; -EINVAL if @ops is NULL or lacks a callback or a name;
 * -EEXIST if a backend of the same name is registered.
 */
int rdma_mr_backend_register(struct rdma_mr_backend_ops *ops)
{
	struct rdma_mr_backend_ops *cur;
	int ret = 0;

	if (!ops || !mrcore_backend_ops_complete(ops))
		return -EINVAL;

	mutex_lock(&mrcore_backends_lock);
	list_for_each_entry(cur, &mrcore_backends, list) {
		if (!strcmp(cur->name, ops->name)) {
			ret = -EEXIST;
			goto unlock;
		}
	}
	list_add(&ops->list, &mrcore_backends);
unlock:
	mutex_unlock(&mrcore_backends_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_mr_backend_register);

/**
 * rdma_mr_backend_unregister() - withdraw a backend
 * @ops: a registered backend.
 *
 * MRs hold a reference on the backend's module, so a backend cannot go away
 * under an MR that uses it; new MRs no longer pick it.
 *
 * Context: Process context; takes a mutex.
 */
void rdma_mr_backend_unregister(struct rdma_mr_backend_ops *ops)
{
	mutex_lock(&mrcore_backends_lock);
	list_del_init(&ops->list);
	mutex_unlock(&mrcore_backends_lock);
}
EXPORT_SYMBOL_GPL(rdma_mr_backend_unregister);

/**
 * mrcore_backend_get() - pick the backend for a device
 * @dev: the device.
 *
 * Context: Process context; takes a mutex.
 * Return: the newest registered backend that serves @dev, with a reference
 * on its module; %NULL if there is none.
 */
const struct rdma_mr_backend_ops *mrcore_backend_get(struct ib_device *dev)
{
	const struct rdma_mr_backend_ops *found = NULL;
	struct rdma_mr_backend_ops *ops;

	mutex_lock(&mrcore_backends_lock);
	list_for_each_entry(ops, &mrcore_backends, list) {
		if (ops->serves(dev) && try_module_get(ops->owner)) {
			found = ops;
			break;
		}
	}
	mutex_unlock(&mrcore_backends_lock);
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
