/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The map's work on an MR known to take it, and the end of a key the peer
 * invalidated: the path of every key an rkey MR set hands out (core/rkey.c)
 * and of the map API once it checked the caller's MR (core/map.c).  Inline
 * in both, as ib_core's own ULPs have this work inline in their code.
 */
#ifndef _MRCORE_MAP_H
#define _MRCORE_MAP_H

int mrcore_mr_set_whole_any(struct rdma_mr *mr, struct scatterlist *sg,
			    int dma_nents);
#ifdef CONFIG_RDMA_MRCORE_TEST_HOOKS
int mrcore_io_post_faulty(struct ib_qp *qp, struct ib_send_wr *first,
			  const struct ib_send_wr **bad);
#else
static inline int mrcore_io_post_faulty(struct ib_qp *qp,
					struct ib_send_wr *first,
					const struct ib_send_wr **bad)
{
	return ib_post_send(qp, first, bad);
}
#endif

/* The backend registers the run set in @mr, whose device MR has keys left. */
static inline int mrcore_mr_register(struct rdma_mr *mr, int access,
				     struct ib_send_wr **post_wr)
{
	int ret;

	mr->access = access;
	ret = mr->ops->map(mr, post_wr);
	if (ret) {
		mrcore_stat_inc(mr->mdev, MRCORE_STAT_ERR_MAP);
		return ret;
	}
	mr->state = RDMA_MR_MAPPED;
	mr->key_uses++;
	mr->dev_keyed = true;
	trace_mrcore_map(mr);
	return 0;
}

/*
 * The one pass over a DMA-mapped list that one MR is to map whole: refuse
 * an empty entry or a hole (-EINVAL), more pages than @mr maps (-E2BIG), a
 * wrap or more than U32_MAX bytes (-EOVERFLOW); or make the list @mr's run.
 * The MR holds pages, not entries: contiguous sub-page entries share
 * theirs, so only the page count can refuse a list for its size.
 */
static inline int mrcore_mr_set_whole(struct rdma_mr *mr, struct scatterlist *sg,
				      int dma_nents)
{
	struct scatterlist *last;
	u64 length = mrcore_sg_whole_pages(sg, 0, dma_nents, &last);
	u32 npages = length >> PAGE_SHIFT;

	if (unlikely(!length))
		return mrcore_mr_set_whole_any(mr, sg, dma_nents);
	if (npages > mr->max_pages)
		return -E2BIG;
	__mrcore_mr_set_run(mr, sg, 0, dma_nents, last, sg_dma_len(last),
			    length, npages);
	return 0;
}

/**
 * mrcore_map_sg() - DMA-map a scatterlist and register it whole in an MR
 * @mr: an MR that is not mapped, of the role @access was computed for,
 *	whose device MR has keys left (@mr->key_uses below
 *	%MRCORE_KEY_USES).
 * @sg: the memory, a CPU scatterlist.
 * @sg_nents: its entries.
 * @access: the access flags and DMA direction (mrcore_local_access(),
 *	mrcore_remote_access()).
 * @post_wr: as for rdma_map_sg_lkey().
 *
 * The map's work once the MR is known to take it: rdma_map_sg_lkey() and
 * rdma_map_sg_rkey() check the caller's MR first; the rkey MR set's MRs
 * are all that by construction (free when taken, rkey MRs, and quarantined
 * by their pool on their last key until a new device MR replaced it).
 *
 * Context: Any context; the caller serializes calls on one MR.
 * Return: 0, or the errors of rdma_map_sg_lkey() other than -EINVAL for a
 * NULL argument, -EPERM and -EBUSY; on error nothing is mapped.
 */
static inline int mrcore_map_sg(struct rdma_mr *mr, struct scatterlist *sg,
				unsigned int sg_nents,
				const struct mrcore_access *access,
				struct ib_send_wr **post_wr)
{
	struct ib_device *dev = mr->pd->device;
	int dma_nents;
	int ret;

	dma_nents = mrcore_dma_map(dev, sg, sg_nents, access->dir);
	if (!dma_nents) {
		mrcore_stat_inc(mr->mdev, MRCORE_STAT_ERR_DMA_MAP);
		return -ENOMEM;
	}
	ret = mrcore_mr_set_whole(mr, sg, dma_nents);
	if (!ret)
		ret = mrcore_mr_register(mr, access->ib_access, post_wr);
	if (ret) {
		mrcore_dma_unmap(dev, sg, sg_nents, access->dir);
		mrcore_stat_inc(mr->mdev, MRCORE_STAT_DMA_MAPS);
		mrcore_stat_inc(mr->mdev, MRCORE_STAT_DMA_UNMAPS);
		return ret;
	}
	mr->sg_nents = sg_nents;
	mr->dir = access->dir;
	mr->dma_owned = true;
	/* Its DMA mapping too: ``dma_maps`` adds ``maps`` when read. */
	mrcore_stat_inc(mr->mdev, MRCORE_STAT_MAPS);
	return 0;
}

/* The HCA killed @mr's key at the peer's word: the MR may be unmapped. */
static inline void mrcore_mr_killed_remotely(struct rdma_mr *mr)
{
	mr->state = RDMA_MR_INVALID;
	mrcore_stat_inc(mr->mdev, MRCORE_STAT_INV_REMOTE);
	trace_mrcore_invalidate_remote(mr);
}

/**
 * mrcore_mr_remote_inv() - whether a reply invalidated an MR's key
 * @mr: a mapped rkey MR.
 * @wc: a successful receive completion.
 *
 * The rule of rdma_mr_check_remote_inv(), written once: the key is dead
 * only if @wc says it invalidated exactly @mr's key.  For a caller whose
 * MR and completion are known to be such (the rkey MR set's).
 *
 * Context: Any context; the caller serializes calls on one MR.
 * Return: true if @wc invalidated @mr's key, now recorded as invalid.
 */
static inline bool mrcore_mr_remote_inv(struct rdma_mr *mr,
					const struct ib_wc *wc)
{
	if (!(wc->wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc->ex.invalidate_rkey != mr->key)
		return false;
	mrcore_mr_killed_remotely(mr);
	return true;
}

/* The map API DMA-maps for the caller; an I/O context maps for its MRs. */
static inline void mrcore_mr_dma_release(struct rdma_mr *mr)
{
	if (mr->dma_owned) {
		mrcore_dma_unmap(mr->pd->device, mr->sg, mr->sg_nents,
				 mr->dir);
		/* ``dma_unmaps`` adds ``unmaps`` when read. */
		mrcore_stat_inc(mr->mdev, MRCORE_STAT_UNMAPS);
	}
	mr->dma_owned = false;
	mr->sg = NULL;
}

/**
 * mrcore_mr_unmap_invalid() - rdma_unmap_mr() of an MR whose key is dead
 * @mr: an MR the map API or an rkey set mapped, its key invalidated
 *	(%RDMA_MR_INVALID).
 *
 * For a caller that knows the key is dead, as the rkey set does once its
 * request's keys were invalidated: nothing can refuse the unmap.  Inline:
 * it is on every key's path.
 *
 * Context: Any context; the caller serializes calls on one MR.
 */
static inline void mrcore_mr_unmap_invalid(struct rdma_mr *mr)
{
	trace_mrcore_unmap(mr);
	mrcore_mr_dma_release(mr);
	mr->state = RDMA_MR_FREE;
}

/*
 * rdma_post_send_chain()'s work, inline in rdma_io_ctx_post() and
 * rdma_rkey_req_post(), on every I/O's and every keyed request's path.
 */
static __always_inline int mrcore_post_chain(struct ib_qp *qp,
					     struct ib_send_wr *first)
{
	const struct ib_send_wr *bad = first;
	int ret;

	if (unlikely(mrcore_fault_armed()))
		ret = mrcore_io_post_faulty(qp, first, &bad);
	else
		ret = ib_post_send(qp, first, &bad);
	return ret && bad != first ? -EINPROGRESS : ret;
}

#endif /* _MRCORE_MAP_H */
