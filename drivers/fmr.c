// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmr backend: FMR-style registration through callbacks a vendor registers
 * for its device (struct rdma_fmr_ops).
 *
 * A map is a synchronous call that loads a page list and returns a key; no
 * WR is posted.  Killing keys is the expensive part on such devices, so it is
 * batched: a released local-only mapping goes on the device's dirty list
 * with its key still valid, and one unmap call kills the keys of the whole
 * list, when it holds MRCORE_FMR_BATCH entries or when one of its MRs is
 * needed again.  A handle is never mapped again before its key was killed,
 * so a key is never reused before its flush.  Mappings that grant remote
 * access are killed at once, on their own.
 */
#include "mrcore_internal.h"

#define MRCORE_FMR_BATCH	32

/**
 * struct fmr_dev - a device whose vendor registered FMR callbacks
 * @dev: the device.
 * @ops: the callbacks.
 * @max_pages: pages one handle maps.
 * @lock: protects @dirty, @nr_dirty and the handles' @key_valid.
 * @dirty: MRs whose local-only keys wait for the next flush.
 * @nr_dirty: entries on @dirty.
 * @nr_mrs: MRs alive on this device.
 * @flushes: unmap calls made for batches, for tests and debugfs.
 * @list: entry on the list of FMR devices.
 */
struct fmr_dev {
	struct ib_device *dev;
	const struct rdma_fmr_ops *ops;
	u32 max_pages;
	spinlock_t lock;	/* protects dirty, nr_dirty, key_valid */
	struct list_head dirty;
	u32 nr_dirty;
	u32 nr_mrs;
	u32 flushes;
	struct list_head list;
};

/**
 * struct fmr_mr - the backend's part of an MR
 * @fdev: the device.
 * @handle: the vendor's handle.
 * @key_valid: the handle holds a key the device still honours.
 * @dirty_entry: entry on @fdev->dirty while the MR waits for a flush.
 * @pages: page list storage, @fdev->max_pages entries.
 */
struct fmr_mr {
	struct fmr_dev *fdev;
	void *handle;
	bool key_valid;
	struct list_head dirty_entry;
	u64 pages[];
};

static LIST_HEAD(fmr_devs);
static DEFINE_SPINLOCK(fmr_devs_lock);

static struct fmr_dev *fmr_dev_find(struct ib_device *dev)
{
	struct fmr_dev *fdev, *found = NULL;

	spin_lock(&fmr_devs_lock);
	list_for_each_entry(fdev, &fmr_devs, list) {
		if (fdev->dev == dev) {
			found = fdev;
			break;
		}
	}
	spin_unlock(&fmr_devs_lock);
	return found;
}

/**
 * rdma_fmr_register() - register a device's FMR callbacks
 * @dev: the device.
 * @ops: its callbacks; must stay valid until rdma_fmr_unregister().
 * @max_pages: pages one handle maps.
 *
 * From then on rdma_create_mr() and the READ/WRITE helper can register
 * memory on @dev through the fmr backend.
 *
 * Context: Process context.
 * Return: 0; -EINVAL for a NULL argument, a missing callback or zero
 * @max_pages; -EEXIST if @dev is registered; -ENOMEM.
 */
int rdma_fmr_register(struct ib_device *dev, const struct rdma_fmr_ops *ops,
		      u32 max_pages)
{
	struct fmr_dev *fdev;

	if (!dev)
		return -EINVAL;
	if (!ops || !ops->alloc || !ops->map || !ops->unmap || !ops->free ||
	    !max_pages) {
		mrcore_warn_ratelimited(dev,
					"FMR callbacks refused: a callback missing or zero pages\n");
		return -EINVAL;
	}
	if (fmr_dev_find(dev)) {
		mrcore_warn_ratelimited(dev,
					"FMR callbacks refused: the device has them already\n");
		return -EEXIST;
	}

	fdev = kzalloc(sizeof(*fdev), GFP_KERNEL);
	if (!fdev)
		return -ENOMEM;
	fdev->dev = dev;
	fdev->ops = ops;
	fdev->max_pages = max_pages;
	spin_lock_init(&fdev->lock);
	INIT_LIST_HEAD(&fdev->dirty);

	spin_lock(&fmr_devs_lock);
	list_add(&fdev->list, &fmr_devs);
	spin_unlock(&fmr_devs_lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_fmr_register, RDMA_MRCORE);

/**
 * rdma_fmr_unregister() - withdraw a device's FMR callbacks
 * @dev: a registered device whose MRs have all been destroyed.
 *
 * Context: Process context.
 */
void rdma_fmr_unregister(struct ib_device *dev)
{
	struct fmr_dev *fdev = fmr_dev_find(dev);

	if (!fdev)
		return;
	WARN_ON_ONCE(fdev->nr_mrs);
	spin_lock(&fmr_devs_lock);
	list_del(&fdev->list);
	spin_unlock(&fmr_devs_lock);
	kfree(fdev);
}
EXPORT_SYMBOL_NS_GPL(rdma_fmr_unregister, RDMA_MRCORE);

/**
 * rdma_fmr_flushes() - batch flushes made on a device
 * @dev: a registered device.
 *
 * Context: Any context.
 * Return: how many unmap calls killed batches of keys, 0 if @dev has no FMR
 * callbacks.
 */
u32 rdma_fmr_flushes(struct ib_device *dev)
{
	struct fmr_dev *fdev = fmr_dev_find(dev);

	return fdev ? fdev->flushes : 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_fmr_flushes, RDMA_MRCORE);

/* Kill the keys of every dirty MR of @fdev in one unmap call. */
static void fmr_flush_locked(struct fmr_dev *fdev)
{
	void *handles[MRCORE_FMR_BATCH];
	struct fmr_mr *fm, *tmp;
	unsigned int n = 0;
	int ret;

	lockdep_assert_held(&fdev->lock);
	if (!fdev->nr_dirty)
		return;
	list_for_each_entry(fm, &fdev->dirty, dirty_entry)
		handles[n++] = fm->handle;
	/*
	 * A failed unmap leaves the keys' state unknown: the handles keep
	 * key_valid, so every later map of them fails with -EIO, and their
	 * MRs are replaced (which frees the handles and kills the keys)
	 * rather than reused.  They leave the dirty list either way, which
	 * therefore never holds more than a batch.
	 */
	ret = fdev->ops->unmap(handles, n);
	if (WARN_ON_ONCE(ret))
		mrcore_warn_ratelimited(fdev->dev,
					"FMR unmap of %u handles failed: %d; their MRs will be replaced\n",
					n, ret);
	list_for_each_entry_safe(fm, tmp, &fdev->dirty, dirty_entry) {
		list_del_init(&fm->dirty_entry);
		if (!ret)
			fm->key_valid = false;
	}
	fdev->nr_dirty = 0;
	if (!ret)
		fdev->flushes++;
}

static bool fmr_serves(struct ib_device *dev)
{
	return fmr_dev_find(dev);
}

static u32 fmr_max_pages(struct ib_device *dev)
{
	struct fmr_dev *fdev = fmr_dev_find(dev);

	return fdev ? fdev->max_pages : 0;
}

static int fmr_mr_init(struct rdma_mr *mr)
{
	struct fmr_dev *fdev = fmr_dev_find(mr->pd->device);
	struct fmr_mr *fm;
	void *handle;

	if (!fdev)
		return -ENODEV;
	fm = kzalloc(struct_size(fm, pages, fdev->max_pages), GFP_KERNEL);
	if (!fm)
		return -ENOMEM;
	handle = fdev->ops->alloc(mr->pd, mr->max_pages);
	if (IS_ERR(handle)) {
		kfree(fm);
		return PTR_ERR(handle);
	}
	fm->fdev = fdev;
	fm->handle = handle;
	INIT_LIST_HEAD(&fm->dirty_entry);
	mr->backend_priv = fm;

	spin_lock(&fdev->lock);
	fdev->nr_mrs++;
	spin_unlock(&fdev->lock);
	return 0;
}

static void fmr_mr_release(struct rdma_mr *mr)
{
	struct fmr_mr *fm = mr->backend_priv;
	struct fmr_dev *fdev = fm->fdev;

	spin_lock(&fdev->lock);
	if (!list_empty(&fm->dirty_entry)) {
		list_del(&fm->dirty_entry);
		fdev->nr_dirty--;
	}
	fdev->nr_mrs--;
	spin_unlock(&fdev->lock);
	/* Freeing the handle kills whatever key it still had. */
	fdev->ops->free(fm->handle);
	kfree(fm);
	mr->backend_priv = NULL;
}

static int fmr_map(struct rdma_mr *mr, struct ib_send_wr **post_wr)
{
	struct fmr_mr *fm = mr->backend_priv;
	struct fmr_dev *fdev = fm->fdev;
	u64 iova = sg_dma_address(mr->sg) + mr->sg_offset;
	int npages, ret;
	u32 key;

	npages = rdma_mr_sg_pages(mr, fm->pages, fdev->max_pages);
	if (npages < 0)
		return npages;

	spin_lock(&fdev->lock);
	if (fm->key_valid)
		fmr_flush_locked(fdev);
	ret = fm->key_valid ? -EIO : 0;
	spin_unlock(&fdev->lock);
	if (ret)
		return ret;

	ret = fdev->ops->map(fm->handle, fm->pages, npages, iova, mr->length,
			     mr->access, &key);
	if (ret)
		return ret;
	fm->key_valid = true;
	mr->key = key;
	mr->iova = iova;
	return 0;
}

static int fmr_invalidate(struct rdma_mr *mr, struct ib_send_wr **post_wr)
{
	struct fmr_mr *fm = mr->backend_priv;
	struct fmr_dev *fdev = fm->fdev;
	int ret;

	ret = fdev->ops->unmap(&fm->handle, 1);
	if (ret)
		return ret;
	fm->key_valid = false;
	return 0;
}

static void fmr_recycle(struct rdma_mr *mr)
{
	struct fmr_mr *fm = mr->backend_priv;
	struct fmr_dev *fdev = fm->fdev;

	spin_lock(&fdev->lock);
	list_add_tail(&fm->dirty_entry, &fdev->dirty);
	if (++fdev->nr_dirty >= MRCORE_FMR_BATCH)
		fmr_flush_locked(fdev);
	spin_unlock(&fdev->lock);
}

/*
 * A mapping here is a synchronous call that loads a page list: no WR, no
 * registration the device processes on its send queue.  The transport's MR
 * weight was measured on rxe's REG_MR (core/io.c); with no FMR device at
 * hand to measure, an FMR is priced like one WR.
 */
static void fmr_io_weights(struct ib_device *dev, struct rdma_io_weights *w)
{
	w->mr = w->wr;
}

struct rdma_mr_backend_ops mrcore_fmr_ops = {
	.name = "fmr",
	.owner = THIS_MODULE,
	.serves = fmr_serves,
	.max_pages = fmr_max_pages,
	.mr_init = fmr_mr_init,
	.mr_release = fmr_mr_release,
	.map = fmr_map,
	.invalidate = fmr_invalidate,
	.recycle = fmr_recycle,
	.io_flags = RDMA_IO_SYNC_MAP,
	.io_weights = fmr_io_weights,
};
