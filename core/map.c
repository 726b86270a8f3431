// SPDX-License-Identifier: GPL-2.0-only
/*
 * MR life cycle and the two map entry points.
 *
 * Everything a backend may rely on is checked here, once: the caller's
 * arguments, the MR's role and state, the operations, the shape of the
 * DMA-mapped scatterlist.  Backends only register and invalidate.
 */
#include "mrcore_priv.h"

/**
 * rdma_create_mr() - allocate an MR for one role
 * @pd: protection domain of the memory and of the QPs that will use the key.
 * @max_pages: the most pages one mapping of this MR will span.
 * @role: %RDMA_MR_ROLE_LKEY or %RDMA_MR_ROLE_RKEY; the MR refuses the other
 *	entry point for its whole life.
 *
 * The core picks the backend that serves @pd's device.
 *
 * Context: Process context; may sleep.
 * Return: the MR, or an ERR_PTR(): -EINVAL for a NULL @pd, zero @max_pages
 * or an unknown @role; -E2BIG if @max_pages exceeds what the device maps in
 * one MR; -EOPNOTSUPP if no backend serves the device; -ENOMEM, or the
 * driver's error from allocating the device MR.
 */
struct rdma_mr *rdma_create_mr(struct ib_pd *pd, u32 max_pages,
			       enum rdma_mr_role role)
{
	const struct rdma_mr_backend_ops *ops;
	struct rdma_mr *mr;
	int ret;

	if (!pd || !max_pages ||
	    (role != RDMA_MR_ROLE_LKEY && role != RDMA_MR_ROLE_RKEY))
		return ERR_PTR(-EINVAL);

	ops = mrcore_backend_get(pd->device);
	if (!ops)
		return ERR_PTR(-EOPNOTSUPP);
	if (max_pages > ops->max_pages(pd->device)) {
		ret = -E2BIG;
		goto put_backend;
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		ret = -ENOMEM;
		goto put_backend;
	}
	mr->pd = pd;
	mr->ops = ops;
	mr->role = role;
	mr->state = RDMA_MR_FREE;
	mr->max_pages = max_pages;
	mr->mdev = mrcore_device_get(pd->device);

	ret = mrcore_mr_dev_alloc(mr);
	if (ret)
		goto free_mr;
	mrcore_device_chose(mr->mdev, MRCORE_CLASS_MAP, ops, MRCORE_WHY_ONLY);
	return mr;

free_mr:
	mrcore_device_put(mr->mdev);
	kfree(mr);
put_backend:
	mrcore_backend_put(ops);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NS_GPL(rdma_create_mr, RDMA_MRCORE);

static bool mrcore_dma_mapped(const struct rdma_mr *mr)
{
	return mr->state == RDMA_MR_MAPPED || mr->state == RDMA_MR_INVALID;
}

/**
 * rdma_destroy_mr() - free an MR
 * @mr: the MR, or %NULL.
 *
 * The MR should be unmapped.  Destroying a mapped MR is a caller bug that
 * warns once; the device MR is still deregistered first (which kills the
 * key) and the DMA mapping released after it, so nothing is left behind.
 *
 * Context: Process context; may sleep.
 */
void rdma_destroy_mr(struct rdma_mr *mr)
{
	const struct rdma_mr_backend_ops *ops;
	bool mapped;

	if (!mr)
		return;

	ops = mr->ops;
	mapped = mrcore_dma_mapped(mr);
	WARN_ON_ONCE(mapped && !mr->pool);
	mrcore_mr_dev_release(mr);
	if (mapped)
		mrcore_mr_dma_release(mr);
	mrcore_device_put(mr->mdev);
	kfree(mr);
	mrcore_backend_put(ops);
}
EXPORT_SYMBOL_NS_GPL(rdma_destroy_mr, RDMA_MRCORE);

/**
 * rdma_mr_set_cqe() - ask for completions of the WRs the core builds
 * @mr: the MR.
 * @cqe: completion entry for the REG_MR WR of a map and the LOCAL_INV WR of
 *	rdma_invalidate_mr(), or %NULL (the default) to leave them unsignaled.
 *	The LOCAL_INV a map chains to kill a lazily invalidated key is never
 *	signaled; synchronous backends (fmr) post no WR at all.
 *
 * Context: Any context; not while a WR of @mr is being built.
 */
void rdma_mr_set_cqe(struct rdma_mr *mr, struct ib_cqe *cqe)
{
	mr->cqe = cqe;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_set_cqe, RDMA_MRCORE);

static int mrcore_mr_replace(struct rdma_mr *mr);

/*
 * Before a map: a device MR that has handed out its %MRCORE_KEY_USES keys
 * is replaced (the old one's deregistration kills a lazily kept key), so
 * that no key value of @mr comes back.
 */
static int mrcore_mr_keys_left(struct rdma_mr *mr)
{
	int ret;

	if (likely(mr->key_uses < MRCORE_KEY_USES))
		return 0;
	ret = mrcore_mr_replace(mr);
	if (ret)
		return ret;
	mr->state = RDMA_MR_FREE;
	mrcore_stat_inc(mr->mdev, MRCORE_STAT_MR_RECYCLED);
	return 0;
}

/* mrcore_mr_set_whole() of a list that is not whole pages, or is wrong. */
int mrcore_mr_set_whole_any(struct rdma_mr *mr, struct scatterlist *sg,
			    int dma_nents)
{
	struct mrcore_sg_summary sum;
	int ret;

	ret = mrcore_sg_summarize_any(sg, 0, dma_nents, 0, &sum);
	if (ret)
		return ret;
	if (sum.holes)
		return -EINVAL;
	if (sum.npages > mr->max_pages)
		return -E2BIG;
	__mrcore_mr_set_run(mr, sg, 0, dma_nents, sum.last, sum.last_len,
			    sum.length, sum.npages);
	return 0;
}

/**
 * mrcore_mr_map_run() - register the run of DMA-mapped bytes an MR was given
 * @mr: an MR that is not mapped, its run set (mrcore_mr_set_run()).
 * @access: IB access flags.
 * @post_wr: as for rdma_map_sg_lkey().
 *
 * The caller owns the DMA mapping and has checked that the run fits @mr.
 * When the device MR has handed out %MRCORE_KEY_USES keys, a new one
 * replaces it first (the old one's deregistration kills a lazily kept key),
 * so that no key value of @mr comes back.
 *
 * Context: The caller serializes calls on one MR.  Any context, but one
 * mapping in %MRCORE_KEY_USES allocates a device MR: process context, may
 * sleep.
 * Return: 0, or the backend's or the driver's error with @mr not mapped.
 */
int mrcore_mr_map_run(struct rdma_mr *mr, int access,
		      struct ib_send_wr **post_wr)
{
	int ret;

	ret = mrcore_mr_keys_left(mr);
	if (ret)
		return ret;
	return mrcore_mr_register(mr, access, post_wr);
}

/*
 * mrcore_map_sg() of an MR the caller passed in: it may be mapped, and its
 * device MR may have handed out its last key, which a new one replaces
 * before the memory is mapped.
 */
static int mrcore_map_sg_checked(struct rdma_mr *mr, struct scatterlist *sg,
				 unsigned int sg_nents,
				 const struct mrcore_access *access,
				 struct ib_send_wr **post_wr)
{
	int ret;

	if (mrcore_dma_mapped(mr))
		return -EBUSY;
	ret = mrcore_mr_keys_left(mr);
	if (ret)
		return ret;
	return mrcore_map_sg(mr, sg, sg_nents, access, post_wr);
}

/**
 * rdma_map_sg_lkey() - map memory for the local HCA's own use
 * @lkey: the key for local SGEs, on success.
 * @mr: an MR created with %RDMA_MR_ROLE_LKEY, not mapped.
 * @sg: the memory, a CPU scatterlist; the core DMA-maps it.
 * @sg_nents: number of entries in @sg.
 * @local_ops: RDMA_MR_LOCAL_* operations the HCA will perform on it.
 * @post_wr: in: the caller's WR to run after the registration, or a pointer
 *	to %NULL; out: the first WR to post (the registration chain, then the
 *	caller's WR), unchanged if the backend registered synchronously.
 *
 * The mapping never grants the peer anything, with one exception that is
 * the transport's: a READ sink on iWARP must accept the READ response as a
 * remote write.  Such a mapping must be invalidated (rdma_invalidate_mr() or
 * rdma_mr_remote_invalidated()) before rdma_unmap_mr().  The key differs from
 * those of the MR's previous mappings: the key byte rotates, and before it
 * would come round again the device MR is replaced.
 *
 * Context: Any context; the caller serializes calls on one MR.  Every
 * 256th mapping of an MR replaces its device MR: process context, may
 * sleep.
 * Return: 0; -EINVAL for a NULL argument, zero @sg_nents, an empty or unknown
 * @local_ops, or a hole between entries; -EPERM if @mr is an rkey MR; -EBUSY
 * if @mr is mapped; -E2BIG if the memory spans more pages than @mr holds;
 * -EOVERFLOW if it wraps the address space or exceeds U32_MAX bytes;
 * -ENOMEM if DMA mapping failed; the backend's error, or the driver's from
 * allocating a new device MR.  On error nothing is mapped and @mr is
 * unchanged, but for the new device MR of one whose keys were used up
 * (replaced before the memory is looked at).
 */
int rdma_map_sg_lkey(u32 *lkey, struct rdma_mr *mr, struct scatterlist *sg,
		     unsigned int sg_nents, unsigned int local_ops,
		     struct ib_send_wr **post_wr)
{
	struct mrcore_access access;
	int ret;

	if (!lkey || !mr || !sg || !sg_nents || !post_wr)
		return -EINVAL;
	if (mr->role != RDMA_MR_ROLE_LKEY)
		return -EPERM;
	ret = mrcore_local_access(mr->pd->device, local_ops, &access);
	if (ret)
		return ret;

	ret = mrcore_map_sg_checked(mr, sg, sg_nents, &access, post_wr);
	if (ret)
		return ret;
	*lkey = mr->key;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_map_sg_lkey, RDMA_MRCORE);

/**
 * rdma_map_sg_rkey() - expose memory to the peer
 * @rkey: the key to advertise, on success.
 * @iova: the address to advertise with it, on success.
 * @mr: an MR created with %RDMA_MR_ROLE_RKEY, not mapped.
 * @sg: the memory, a CPU scatterlist; the core DMA-maps it.
 * @sg_nents: number of entries in @sg.
 * @remote_ops: RDMA_MR_REMOTE_* operations the peer may perform.
 * @post_wr: in: the caller's WR to run after the registration, or a pointer
 *	to %NULL; out: the first WR to post.
 *
 * The key grants exactly @remote_ops, on exactly the mapped bytes:
 * [@iova, @iova + total length of @sg).  It must be invalidated, by
 * rdma_invalidate_mr() or by the peer (rdma_mr_remote_invalidated()), before
 * rdma_unmap_mr() releases the memory.
 *
 * Context: As rdma_map_sg_lkey().
 * Return: 0, or the errors of rdma_map_sg_lkey() with -EPERM meaning @mr is
 * an lkey MR and -EINVAL also covering an empty or unknown @remote_ops.
 */
int rdma_map_sg_rkey(u32 *rkey, u64 *iova, struct rdma_mr *mr,
		     struct scatterlist *sg, unsigned int sg_nents,
		     unsigned int remote_ops, struct ib_send_wr **post_wr)
{
	struct mrcore_access access;
	int ret;

	if (!rkey || !iova || !mr || !sg || !sg_nents || !post_wr)
		return -EINVAL;
	if (mr->role != RDMA_MR_ROLE_RKEY)
		return -EPERM;
	ret = mrcore_remote_access(remote_ops, &access);
	if (ret)
		return ret;

	ret = mrcore_map_sg_checked(mr, sg, sg_nents, &access, post_wr);
	if (ret)
		return ret;
	*rkey = mr->key;
	*iova = mr->iova;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_map_sg_rkey, RDMA_MRCORE);

/**
 * rdma_invalidate_mr() - kill the key of a mapped MR
 * @mr: a mapped MR.
 * @post_wr: in: the caller's WR to run after the invalidation, or a pointer
 *	to %NULL; out: the first WR to post.
 *
 * The key is dead once the invalidation WR has executed: call
 * rdma_unmap_mr() only after its completion (or a later one on the same send
 * queue) was seen.
 *
 * Context: Any context; the caller serializes calls on one MR.
 * Return: 0; -EINVAL for a NULL argument or an MR that is not mapped, or an
 * MR whose key is already invalid; or the backend's error.
 */
int rdma_invalidate_mr(struct rdma_mr *mr, struct ib_send_wr **post_wr)
{
	int ret;

	if (!mr || !post_wr || mr->state != RDMA_MR_MAPPED)
		return -EINVAL;
	ret = mr->ops->invalidate(mr, post_wr);
	if (ret)
		return ret;
	mr->state = RDMA_MR_INVALID;
	mrcore_stat_inc(mr->mdev, MRCORE_STAT_INV_LOCAL);
	trace_mrcore_invalidate_local(mr);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_invalidate_mr, RDMA_MRCORE);

/**
 * rdma_mr_remote_invalidated() - record that the HCA already killed the key
 * @mr: a mapped MR.
 * @rkey: the key the HCA reported invalidated: the peer's SEND_WITH_INV
 *	(%IB_WC_WITH_INVALIDATE) or a READ_WITH_INV into an iWARP sink.
 *
 * Context: Any context; the caller serializes calls on one MR.
 * Return: 0 if @rkey is the key of @mr's current mapping, which is now
 * invalid; -EINVAL otherwise (no MR, not mapped, or another key: the caller
 * must then invalidate locally).
 */
int rdma_mr_remote_invalidated(struct rdma_mr *mr, u32 rkey)
{
	if (!mr || mr->state != RDMA_MR_MAPPED || rkey != mr->key)
		return -EINVAL;
	mrcore_mr_killed_remotely(mr);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_remote_invalidated, RDMA_MRCORE);

/**
 * rdma_mr_check_remote_inv() - check a receive completion against an rkey MR
 * @mr: an MR created with %RDMA_MR_ROLE_RKEY and mapped, whose key the peer
 *	was told it may invalidate.
 * @wc: the receive completion of the peer's message (its SEND_WITH_INV,
 *	or a plain SEND).
 *
 * If the peer invalidated exactly @mr's key, the HCA killed it: @mr is
 * recorded as invalidated and may be unmapped.  Any other answer leaves
 * the key valid: invalidate it locally (rdma_invalidate_mr()).  A
 * completion naming another key is a bogus remote invalidation: the peer
 * killed some other key of the PD, which the ULP may treat as a protocol
 * error.
 *
 * Context: Any context; the caller serializes calls on one MR.
 * Return: 0 if @wc invalidated @mr's key; -EINVAL for a NULL argument or
 * an MR that is not mapped or whose key is already invalid; -EPERM for an
 * lkey MR, whose key was never the peer's to invalidate; -EIO for a failed
 * completion; -ENODATA if @wc invalidated nothing (no
 * %IB_WC_WITH_INVALIDATE); -EKEYREJECTED if it invalidated another key.
 */
int rdma_mr_check_remote_inv(struct rdma_mr *mr, const struct ib_wc *wc)
{
	if (!mr || !wc)
		return -EINVAL;
	if (mr->role != RDMA_MR_ROLE_RKEY)
		return -EPERM;
	if (mr->state != RDMA_MR_MAPPED)
		return -EINVAL;
	if (wc->status != IB_WC_SUCCESS)
		return -EIO;
	if (!(wc->wc_flags & IB_WC_WITH_INVALIDATE))
		return -ENODATA;
	return mrcore_mr_remote_inv(mr, wc) ? 0 : -EKEYREJECTED;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_check_remote_inv, RDMA_MRCORE);

/**
 * rdma_send_with_inv() - make a Send invalidate the peer's key
 * @wr: a Send WR (%IB_WR_SEND or already %IB_WR_SEND_WITH_INV).
 * @rkey: a key the peer advertised and lets this side invalidate (its
 *	rdma_map_sg_rkey() key, checked there with rdma_mr_check_remote_inv()).
 *
 * The peer's HCA kills @rkey when the Send arrives, before the peer sees
 * the message.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for a NULL @wr or a WR that is not a Send (nothing is
 * changed).
 */
int rdma_send_with_inv(struct ib_send_wr *wr, u32 rkey)
{
	if (!wr || (wr->opcode != IB_WR_SEND &&
		    wr->opcode != IB_WR_SEND_WITH_INV))
		return -EINVAL;
	wr->opcode = IB_WR_SEND_WITH_INV;
	wr->ex.invalidate_rkey = rkey;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_send_with_inv, RDMA_MRCORE);

/*
 * mrcore_mr_dev_alloc() for a device MR that replaces one: on the way back
 * of an I/O, where a block ULP's recovery may be waiting for it (nvme-rdma
 * cancels its requests through here), so its allocations must not wait
 * for I/O, which could be queued on this very device (swap over NVMe-oF).
 */
static int mrcore_mr_dev_renew(struct rdma_mr *mr)
{
	unsigned int noio = memalloc_noio_save();
	int ret = mrcore_mr_dev_alloc(mr);

	memalloc_noio_restore(noio);
	return ret;
}

/*
 * Kill @mr's key by giving it a fresh device MR: the old one is released
 * (deregistration kills any key it had) only once the new one exists, so
 * on error nothing has changed.  The new one is made on a blank MR of the
 * same kind; backends keep what mr_init allocates in @ibmr and
 * @backend_priv (struct rdma_mr_backend_ops), which move over.
 */
static int mrcore_mr_replace(struct rdma_mr *mr)
{
	struct rdma_mr fresh = {
		.pd = mr->pd,
		.ops = mr->ops,
		.role = mr->role,
		.state = RDMA_MR_FREE,
		.max_pages = mr->max_pages,
		.mdev = mr->mdev,
	};
	int ret;

	ret = mrcore_mr_dev_renew(&fresh);
	if (ret)
		return ret;
	mrcore_mr_dev_release(mr);
	mr->ibmr = fresh.ibmr;
	mr->backend_priv = fresh.backend_priv;
	mr->key_uses = 0;
	mr->dev_keyed = false;
	return 0;
}

/**
 * mrcore_mr_dev_alloc() - give an MR a new device MR
 * @mr: an MR without one (never had one, or its last was released).
 *
 * The backend's mr_init allocates it.  On a driver that draws MR indices at
 * random, a device MR whose index the core gave back within the last
 * %MRCORE_KEY_WINDOW deregistrations is released unused and another one
 * allocated (core/mrindex.c): on siw one in 256 allocations.
 *
 * Context: Process context; may sleep.
 * Return: 0; the backend's or the driver's error; -ENOSPC if the driver
 * offered only recent indices %MRCORE_MRINDEX_TRIES times in a row.
 */
int mrcore_mr_dev_alloc(struct rdma_mr *mr)
{
	unsigned int tries;
	int ret;

	for (tries = 0; tries < MRCORE_MRINDEX_TRIES; tries++) {
		ret = mrcore_should_fail(MRCORE_FAULT_MR_ALLOC) ? -ENOMEM :
		      mr->ops->mr_init(mr);
		if (ret) {
			mrcore_stat_inc(mr->mdev, MRCORE_STAT_ERR_MR_ALLOC);
			return ret;
		}
		mr->dev_keyed = false;
		if (!mrcore_mrindex_recent(mr))
			return 0;
		mr->ops->mr_release(mr);
		mrcore_stat_inc(mr->mdev, MRCORE_STAT_MR_INDEX_REFUSED);
	}
	return -ENOSPC;
}

/**
 * mrcore_mr_dev_release() - deregister an MR's device MR
 * @mr: an MR with a device MR.
 *
 * Deregistration kills any key the device MR has.  If it handed out a key
 * and the driver draws indices at random, its index is remembered first.
 *
 * Context: Process context; may sleep.
 */
void mrcore_mr_dev_release(struct rdma_mr *mr)
{
	if (mr->dev_keyed)
		mrcore_mrindex_released(mr);
	mr->ops->mr_release(mr);
}

/**
 * rdma_unmap_mr() - release the memory of an MR's mapping
 * @mr: a mapped MR.
 *
 * Releases the DMA mapping; the MR can be mapped again.  A mapping the peer
 * could use must have been invalidated first.  A local-only key is left for
 * the next map to kill before it registers a new one (lazy invalidation):
 * nobody but this host can use it, and the core never hands it out again.
 * Except on a device where the peer can READ through any live key (siw, see
 * core/quirks.c): there the key dies before the memory is released, with
 * the device MR, which a fresh one replaces.
 *
 * Context: Any context; the caller serializes calls on one MR.  On a device
 * where the peer can READ through any live key, unmapping a local-only
 * mapping allocates a device MR: process context, may sleep.
 * Return: 0; -EINVAL for a NULL or unmapped MR; -EBUSY if the key still
 * grants remote access (the mapping is left in place); on a device where
 * the peer can READ through any live key, -ENOMEM or the driver's error
 * from allocating the new device MR (the mapping is left in place).
 */
int rdma_unmap_mr(struct rdma_mr *mr)
{
	int ret;

	if (!mr)
		return -EINVAL;

	trace_mrcore_unmap(mr);
	switch (mr->state) {
	case RDMA_MR_MAPPED:
		if (mrcore_access_is_remote(mr->access))
			return -EBUSY;
		/*
		 * Where the peer can READ through any live key (siw), lazy
		 * invalidation would leave the memory readable after it went
		 * back to its owner.  The map API holds no QP to post a
		 * LOCAL_INV on and cannot wait for one, and refusing (-EBUSY,
		 * as for keys that grant remote access) would fail on siw a
		 * ULP that works on every other device: so the key dies with
		 * the device MR, as in rdma_mr_reset(), before the memory is
		 * released.  Elsewhere the key is left for the next map.
		 */
		if (mrcore_dev_unchecked_remote_read(mr->pd->device)) {
			ret = mrcore_mr_replace(mr);
			if (ret)
				return ret;
			mrcore_mr_dma_release(mr);
			mr->state = RDMA_MR_FREE;
			return 0;
		}
		mrcore_mr_dma_release(mr);
		mr->state = RDMA_MR_STALE;
		if (mr->ops->recycle)
			mr->ops->recycle(mr);
		return 0;
	case RDMA_MR_INVALID:
		mrcore_mr_dma_release(mr);
		mr->state = RDMA_MR_FREE;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_NS_GPL(rdma_unmap_mr, RDMA_MRCORE);

/**
 * rdma_mr_reset() - kill an MR's key whatever its state, and free it
 * @mr: an MR not in a pool; mapped or not, its key valid or not.
 *
 * For error paths where the state of a key is unknown: the peer never
 * answered, a registration or invalidation WR was flushed, the QP is gone.
 * The device MR is deregistered, which kills any key it had, before the
 * core's DMA mapping of the memory is released; a fresh device MR takes its
 * place.  No WR that uses @mr may still be queued on a send queue.
 *
 * Context: Process context; may sleep.
 * Return: 0 with @mr unmapped and reusable (state free); -EINVAL for a
 * NULL @mr or one that belongs to a pool; or the driver's error from
 * allocating the new device MR, in which case @mr has been freed (as by
 * rdma_destroy_mr()) and must not be used again.
 */
int rdma_mr_reset(struct rdma_mr *mr)
{
	if (!mr || mr->pool)
		return -EINVAL;
	return mrcore_mr_recycle(mr);
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_reset, RDMA_MRCORE);

/**
 * mrcore_mr_recycle() - kill an MR's key by replacing its device MR
 * @mr: an MR whose key's state is unknown (its I/O failed or was flushed).
 *
 * Deregistering kills any key the MR had, whether or not its registration
 * or invalidation WRs ever ran; a fresh device MR takes its place.  Only
 * then is a mapping the core made (map API) DMA-unmapped; an I/O context's
 * mapping belongs to the context.
 *
 * Context: Process context; may sleep.
 * Return: 0 with @mr free and reusable; or the backend's error from
 * allocating the new device MR, in which case @mr has been freed.
 */
int mrcore_mr_recycle(struct rdma_mr *mr)
{
	const struct rdma_mr_backend_ops *ops = mr->ops;
	bool mapped = mrcore_dma_mapped(mr);
	int ret;

	mrcore_mr_dev_release(mr);
	if (mapped)
		mrcore_mr_dma_release(mr);
	mr->sg = NULL;
	mr->dma_owned = false;
	mr->state = RDMA_MR_FREE;
	mr->key_uses = 0;
	ret = mrcore_mr_dev_renew(mr);
	if (ret) {
		mrcore_device_put(mr->mdev);
		kfree(mr);
		mrcore_backend_put(ops);
	}
	return ret;
}

/**
 * rdma_mr_max_pages() - the most pages one mapping of an MR spans
 * @mr: the MR.
 *
 * Context: Any context.
 * Return: the @max_pages the MR was created with.
 */
u32 rdma_mr_max_pages(const struct rdma_mr *mr)
{
	return mr->max_pages;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_max_pages, RDMA_MRCORE);

/**
 * rdma_mr_length() - bytes covered by an MR's current mapping
 * @mr: the MR.
 *
 * Context: Any context.
 * Return: the mapped length, or 0 if @mr is not mapped.
 */
u64 rdma_mr_length(const struct rdma_mr *mr)
{
	return mrcore_dma_mapped(mr) ? mr->length : 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_mr_length, RDMA_MRCORE);
