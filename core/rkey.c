// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rkey MR set: the MRs of one QP whose keys a ULP advertises, a
 * request at a time, and the retiring of those keys.
 *
 * A set is a pool (core/pool.c) of rkey-role MRs of one size.  A request
 * (struct rdma_rkey_req, embedded by the ULP) takes MRs from it, maps each
 * as rdma_map_sg_rkey() would and chains the registrations before the
 * ULP's Send.  It is retired in one of four ways, and in each the keys are
 * dead before the memory and the MRs are given back and the request's done
 * callback runs:
 *
 *  - with the reply, a key the peer invalidated (SEND_WITH_INV, checked by
 *    rdma_mr_check_remote_inv()) is dead already;
 *  - the other keys get one chain of LOCAL_INVs whose last WR is signaled:
 *    the MRs come back in its completion;
 *  - a request never posted (or its post refused whole) has no key that
 *    ever lived: its MRs come back at once, without a new device MR;
 *  - without a reply (error, timeout, lost connection), or when the
 *    invalidation failed, the set's work drains the send queue if the
 *    request was posted in part or its LOCAL_INVs were refused, then
 *    deregisters and replaces each MR's device MR
 *    (mrcore_pool_kill_return()), which kills its key whatever state it
 *    was in, and completes the request with -EIO.
 *
 * An MR whose device MR has handed out its %MRCORE_KEY_USES keys is not
 * given back free but quarantined: the pool's work gives it a new device
 * MR, in process context, before it is taken again.  So mapping an MR of
 * a set never allocates, and a ULP may map where it cannot sleep (a
 * block driver's queue_rq).  The MRs of a new set start at staggered key
 * counts, so that they come to their last key one at a time; the pool's
 * work replaces them in batches of up to a sixteenth of the set (at most
 * 8), so the set is never short of more than a batch.
 */
#include "mrcore_priv.h"

/*
 * The request's MRs are back: free the scatterlists the core built, which
 * only bio_vec and page maps have.
 */
static void mrcore_rkey_release(struct rdma_rkey_req *req)
{
	u32 i;

	if (unlikely(req->built)) {
		for (i = 0; i < req->nr_mrs; i++)
			if (req->built & BIT(i))
				kfree(req->sgl[i]);
		req->built = 0;
	}
	req->nr_mrs = 0;
}

static void mrcore_rkey_retire_work(struct work_struct *work)
{
	struct rdma_rkey_set *set = container_of(work, struct rdma_rkey_set,
						 retire_work);
	struct rdma_rkey_req *req;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&set->lock, flags);
	while (!list_empty(&set->retiring)) {
		req = list_first_entry(&set->retiring, struct rdma_rkey_req,
				       entry);
		list_del_init(&req->entry);
		spin_unlock_irqrestore(&set->lock, flags);

		/* No WR the driver took may still name a replaced MR. */
		if (req->drain)
			ib_drain_sq(set->pool->info.qp);
		for (i = 0; i < req->nr_mrs; i++)
			mrcore_pool_kill_return(set->pool, req->mrs[i]);
		mrcore_rkey_release(req);
		req->done(req, -EIO);

		spin_lock_irqsave(&set->lock, flags);
	}
	spin_unlock_irqrestore(&set->lock, flags);
}

/*
 * The state of the request's keys is unknown: the set's work kills them by
 * deregistration, in process context, and completes the request.
 */
static void mrcore_rkey_retire_later(struct rdma_rkey_req *req)
{
	struct rdma_rkey_set *set = req->set;
	unsigned long flags;

	spin_lock_irqsave(&set->lock, flags);
	list_add_tail(&req->entry, &set->retiring);
	spin_unlock_irqrestore(&set->lock, flags);
	queue_work(mrcore_wq, &set->retire_work);
}

/*
 * Every key of the request is dead: release the memory, give the MRs back
 * (one whose device MR handed out its last key to quarantine), complete.
 * Each MR is invalid, killed by the peer or by a LOCAL_INV that completed,
 * so rdma_unmap_mr() could not refuse it and its checks are not repeated.
 */
static void mrcore_rkey_finish(struct rdma_rkey_req *req)
{
	struct rdma_io_pool *pool = req->set->pool;
	u32 i;

	for (i = 0; i < req->nr_mrs; i++) {
		struct rdma_mr *mr = req->mrs[i];

		mrcore_mr_unmap_invalid(mr);
		mrcore_pool_return(pool, mr, mr->key_uses < MRCORE_KEY_USES);
	}
	mrcore_rkey_release(req);
	req->done(req, 0);
}

/*
 * A request whose chain the driver never took: none of its registrations
 * ran, so each MR's key, rotated in the MR but never registered, was never
 * valid, and the MR is as clean as when it was taken.  Given back at once,
 * without the device MR replacement a key of unknown state needs.  Not
 * where the backend maps synchronously (%RDMA_IO_SYNC_MAP): the map itself
 * made those keys valid.
 */
static bool mrcore_rkey_never_posted(struct rdma_rkey_req *req)
{
	u32 i;

	if (req->posted ||
	    (req->set->pool->mr_backend->io_flags & RDMA_IO_SYNC_MAP))
		return false;
	for (i = 0; i < req->nr_mrs; i++)
		req->mrs[i]->state = RDMA_MR_INVALID;
	mrcore_rkey_finish(req);
	return true;
}

static void mrcore_rkey_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_rkey_req *req = container_of(wc->wr_cqe,
						 struct rdma_rkey_req, inv_cqe);

	if (wc->status == IB_WC_SUCCESS)
		mrcore_rkey_finish(req);
	else
		mrcore_rkey_retire_later(req);
}

/**
 * rdma_rkey_set_create_flags() - the rkey MRs of a QP, with options
 * @qp: the QP the requests' registrations, Sends and invalidations are
 *	posted on; its PD is the MRs'.
 * @nr_mrs: MRs of the set: keys advertised at once over all requests.
 * @max_pages: pages one MR maps at most.
 * @flags: %RDMA_RKEY_SET_MRS_ON_DEMAND, or 0 (rdma_rkey_set_create()).
 * @space: called, with @arg, each time MRs the set's work replaced or
 *	added are free: a ULP that a map's -EAGAIN made wait tries again; or
 *	%NULL.  Called from a work item, never after rdma_rkey_set_destroy().
 * @arg: @space's argument.
 *
 * With %RDMA_RKEY_SET_MRS_ON_DEMAND the set starts with
 * %RDMA_RKEY_REQ_MAX_MRS MRs (or @nr_mrs if fewer), so that any one request
 * can always be served, and grows towards @nr_mrs a batch at a time, from
 * its work, as maps find too few free (each counted as ``pool_grown``):
 * one connection's worth of MRs where the ULP has that much in flight, not
 * its worst case from the start.  A map that finds too few returns -EAGAIN
 * as always; the MRs that come back, from requests or from the work, are
 * what the ULP waits for, and @space tells it of the latter.
 *
 * Size the send queue for one registration and one invalidation per MR,
 * besides the ULP's own WRs.  The QP must outlive the set: the set's work
 * posts on it and drains it.
 *
 * Context: Process context; may sleep.
 * Return: the set, or an ERR_PTR(): -EINVAL for a NULL @qp, a zero count
 * or an unknown flag; -ENOMEM; or the error of rdma_create_mr() (e.g.
 * -E2BIG when the device cannot map @max_pages pages in one MR,
 * -EOPNOTSUPP when no backend serves it).  On error nothing is left
 * allocated.
 */
struct rdma_rkey_set *rdma_rkey_set_create_flags(struct ib_qp *qp, u32 nr_mrs,
						 u32 max_pages, u32 flags,
						 void (*space)(void *arg),
						 void *arg)
{
	u32 nr_now = flags & RDMA_RKEY_SET_MRS_ON_DEMAND ?
		     min_t(u32, nr_mrs, RDMA_RKEY_REQ_MAX_MRS) : nr_mrs;
	struct rdma_rkey_set *set;
	struct rdma_io_pool *pool;
	struct rdma_mr *mr;
	u32 i = 0, ops;

	/* The index of a set of operations takes their bits as they are. */
	BUILD_BUG_ON(RDMA_MR_REMOTE_ALL !=
		     (RDMA_MR_REMOTE_READ | RDMA_MR_REMOTE_WRITE) ||
		     RDMA_MR_REMOTE_WRITE != 2 * RDMA_MR_REMOTE_READ);
	/* A request's built scatterlists are bits of its @built. */
	BUILD_BUG_ON(RDMA_RKEY_REQ_MAX_MRS >
		     BITS_PER_BYTE * sizeof_field(struct rdma_rkey_req, built));

	if (!qp || !nr_mrs || !max_pages ||
	    (flags & ~RDMA_RKEY_SET_MRS_ON_DEMAND))
		return ERR_PTR(-EINVAL);
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	/* Every map of the set asks for one of these: looked up, not built. */
	for (ops = RDMA_MR_REMOTE_READ; ops <= RDMA_MR_REMOTE_ALL;
	     ops += RDMA_MR_REMOTE_READ)
		mrcore_remote_access(ops,
				     &set->access[MRCORE_RKEY_OPS_INDEX(ops)]);
	pool = mrcore_pool_alloc(qp, nr_mrs, max_pages, RDMA_MR_ROLE_RKEY,
				 nr_now);
	if (IS_ERR(pool)) {
		kfree(set);
		return ERR_CAST(pool);
	}
	/* One MR in MRCORE_KEY_USES / nr_now maps comes to its last key. */
	list_for_each_entry(mr, &pool->clean, pool_entry)
		mr->key_uses = i++ * MRCORE_KEY_USES / nr_now;
	pool->space = space;
	pool->space_arg = arg;
	set->pool = pool;
	spin_lock_init(&set->lock);
	INIT_LIST_HEAD(&set->retiring);
	INIT_WORK(&set->retire_work, mrcore_rkey_retire_work);
	return set;
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_set_create_flags, RDMA_MRCORE);

/**
 * rdma_rkey_set_create() - the rkey MRs of a QP
 * @qp: the QP the requests' registrations, Sends and invalidations are
 *	posted on; its PD is the MRs'.
 * @nr_mrs: MRs of the set: keys advertised at once over all requests.
 * @max_pages: pages one MR maps at most.
 *
 * All @nr_mrs MRs at once; rdma_rkey_set_create_flags() with no flag.
 *
 * Context: Process context; may sleep.
 * Return: as rdma_rkey_set_create_flags().
 */
struct rdma_rkey_set *rdma_rkey_set_create(struct ib_qp *qp, u32 nr_mrs,
					   u32 max_pages)
{
	return rdma_rkey_set_create_flags(qp, nr_mrs, max_pages, 0, NULL, NULL);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_set_create, RDMA_MRCORE);

/**
 * rdma_rkey_set_destroy() - free a set and its MRs
 * @set: the set, or %NULL.
 *
 * Waits for the requests being retired.  Every request must have completed
 * (its done callback ran); an MR a request still holds is a caller bug that
 * warns once and is left to it.  Call before the QP is destroyed and its
 * PD freed.
 *
 * Context: Process context; may sleep.
 */
void rdma_rkey_set_destroy(struct rdma_rkey_set *set)
{
	if (!set)
		return;
	flush_work(&set->retire_work);
	rdma_io_pool_destroy(set->pool);
	kfree(set);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_set_destroy, RDMA_MRCORE);

/**
 * rdma_rkey_set_size() - MRs a set owns
 * @set: the set.
 *
 * Fewer than it was created with while its MRs come on demand (it grows
 * towards that number), or when no new device MR could replace the one of
 * an MR whose key had to be killed (counted as ``pool_shrunk``).
 *
 * Context: Any context.
 * Return: the number of MRs, free or held by requests.
 */
u32 rdma_rkey_set_size(const struct rdma_rkey_set *set)
{
	return rdma_io_pool_size(set->pool);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_set_size, RDMA_MRCORE);

/**
 * rdma_rkey_set_drain() - wait until the requests being retired are done
 * @set: the set.
 *
 * Runs what the set's work has queued: the retiring of requests without a
 * reply, whose done callbacks have run when this returns.
 *
 * Context: Process context; may sleep.
 * Return: MRs free in the set afterwards.
 */
u32 rdma_rkey_set_drain(struct rdma_rkey_set *set)
{
	flush_work(&set->retire_work);
	return rdma_io_pool_drain(set->pool);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_set_drain, RDMA_MRCORE);

/**
 * rdma_rkey_req_init() - start a request
 * @req: the request, embedded in the ULP's own.
 * @set: the set of the QP the request is posted on.
 * @send_wr: the ULP's Send WR that advertises the keys (its payload may be
 *	written once they are mapped), or %NULL; the registrations are
 *	chained in front of it.  It must stay valid until
 *	rdma_rkey_req_post() returned.
 * @done: called once when every key of the request is dead and its memory
 *	the ULP's again: with 0, or -EIO if the keys were killed by
 *	deregistration.  Runs in the send CQ's completion context, in the
 *	set's work, or within rdma_rkey_req_retire().
 *
 * Context: Any context.
 */
void rdma_rkey_req_init(struct rdma_rkey_req *req, struct rdma_rkey_set *set,
			struct ib_send_wr *send_wr,
			void (*done)(struct rdma_rkey_req *req, int status))
{
	req->set = set;
	req->first = send_wr;
	req->done = done;
	req->nr_mrs = 0;
	req->built = 0;
	req->drain = false;
	req->posted = false;
	req->inv_cqe.done = mrcore_rkey_inv_done;
	/* @entry needs no init: it is only ever added to the set's list. */
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_req_init, RDMA_MRCORE);

/*
 * Take an MR of the set, map @sg into it and make it the request's next.
 * The set's MRs are rkey MRs, free when taken, and never on their last key
 * (quarantined then, see above), so rdma_map_sg_rkey()'s checks of them
 * are not repeated.
 */
static struct rdma_mr *mrcore_rkey_map(struct rdma_rkey_req *req,
				       struct scatterlist *sg,
				       unsigned int sg_nents,
				       unsigned int remote_ops)
{
	struct rdma_rkey_set *set = req->set;
	struct rdma_mr *mr;
	int ret;

	if (!remote_ops || (remote_ops & ~RDMA_MR_REMOTE_ALL))
		return ERR_PTR(-EINVAL);
	if (req->nr_mrs == RDMA_RKEY_REQ_MAX_MRS)
		return ERR_PTR(-EMSGSIZE);
	mr = mrcore_pool_take_one(set->pool);
	if (IS_ERR(mr))
		return mr;
	ret = mrcore_map_sg(mr, sg, sg_nents,
			    &set->access[MRCORE_RKEY_OPS_INDEX(remote_ops)],
			    &req->first);
	if (ret) {
		/* Not mapped: its key is as it was. */
		mrcore_pool_return(set->pool, mr, true);
		return ERR_PTR(ret);
	}
	req->mrs[req->nr_mrs++] = mr;
	return mr;
}

/**
 * rdma_rkey_map_sg() - advertise a scatterlist in one MR of the set
 * @req: the request.
 * @sg: the memory, a CPU scatterlist; it must stay valid until the
 *	request's done callback ran.
 * @sg_nents: entries of @sg.
 * @remote_ops: RDMA_MR_REMOTE_* operations the peer may perform.
 * @rkey: the key to advertise, on success.
 * @iova: the address to advertise with it, on success.
 *
 * rdma_map_sg_rkey() on an MR of the request's set: the peer gets exactly
 * @remote_ops on exactly the bytes of @sg, and the registration is chained
 * in front of the request's first WR.
 *
 * Context: Any context (a set's MRs get their new device MRs from the
 * pool's work, not here); the caller serializes calls on one request.
 * Return: 0; -EINVAL for a NULL argument or a request without a set;
 * -EMSGSIZE if the request holds %RDMA_RKEY_REQ_MAX_MRS MRs; -EAGAIN if
 * the set has no free MR (all held by requests, or one waiting for its new
 * device MR); -E2BIG if the set has no MR left at all (each lost to a
 * failed device MR replacement), or the error of rdma_map_sg_rkey()
 * (-E2BIG if @sg spans more pages than one MR maps).  On error the request
 * holds what it held before.
 */
int rdma_rkey_map_sg(struct rdma_rkey_req *req, struct scatterlist *sg,
		     unsigned int sg_nents, unsigned int remote_ops, u32 *rkey,
		     u64 *iova)
{
	struct rdma_mr *mr;

	if (!req || !req->set || !sg || !sg_nents || !rkey || !iova)
		return -EINVAL;
	mr = mrcore_rkey_map(req, sg, sg_nents, remote_ops);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	*rkey = mr->key;
	*iova = mr->iova;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_map_sg, RDMA_MRCORE);

/*
 * Where the bytes come from: bio_vecs, or pages (each a whole page, as
 * one bio_vec of PAGE_SIZE bytes would be).
 */
struct mrcore_rkey_src {
	const struct bio_vec *bvecs;
	struct page **pages;
	u32 nr;
};

/*
 * Walk @iter over @src for what one MR of @max_pages pages maps: up to a
 * hole (where a page list cannot go on: two pieces that neither continue
 * each other nor meet on a page boundary) or the MR's last page, filling
 * @sgl if given.  Returns the number of pieces, @iter advanced past them,
 * or -EINVAL for an iterator that does not fit the source.
 */
static int mrcore_rkey_walk(const struct mrcore_rkey_src *src,
			    struct bvec_iter *iter, u32 max_pages,
			    struct scatterlist *sgl)
{
	u32 pages = 0, last_end = 0;
	struct page *last = NULL;
	int n = 0;

	while (iter->bi_size) {
		u32 off, len, bv_len, done = iter->bi_bvec_done;
		struct page *page;
		bool shared;
		u64 room;

		if (iter->bi_idx >= src->nr)
			return -EINVAL;
		if (src->bvecs) {
			const struct bio_vec *bv = &src->bvecs[iter->bi_idx];

			page = bv->bv_page;
			off = bv->bv_offset;
			bv_len = bv->bv_len;
		} else {
			page = src->pages[iter->bi_idx];
			off = 0;
			bv_len = PAGE_SIZE;
		}
		if (done >= bv_len)
			return -EINVAL;
		len = min(bv_len - done, iter->bi_size);
		off += done;
		page = nth_page(page, off >> PAGE_SHIFT);
		off = offset_in_page(off);
		/* Going on where the last piece ended, inside its page. */
		shared = n && page == last && off == last_end;
		if (n && !shared && (last_end != PAGE_SIZE || off))
			break;
		room = (u64)(max_pages - pages + shared) * PAGE_SIZE - off;
		if (!room)
			break;
		len = min_t(u64, len, room);
		if (sgl)
			sg_set_page(&sgl[n], page, len, off);
		pages += DIV_ROUND_UP(off + len, PAGE_SIZE) - shared;
		last = nth_page(page, (off + len - 1) >> PAGE_SHIFT);
		last_end = offset_in_page(off + len - 1) + 1;
		n++;
		iter->bi_size -= len;
		iter->bi_bvec_done += len;
		if (iter->bi_bvec_done == bv_len) {
			iter->bi_idx++;
			iter->bi_bvec_done = 0;
		}
	}
	return n;
}

/* One MR's worth of @src from @iter; @iter and *@len move on success. */
static int mrcore_rkey_map_src(struct rdma_rkey_req *req,
			       const struct mrcore_rkey_src *src,
			       struct bvec_iter *iter, unsigned int remote_ops,
			       u32 *rkey, u64 *iova, u32 *len)
{
	u32 max_pages = req->set->pool->mr_pages;
	struct bvec_iter it = *iter;
	struct scatterlist *sgl;
	int n, ret;

	n = mrcore_rkey_walk(src, &it, max_pages, NULL);
	if (n <= 0)
		return -EINVAL;
	sgl = kmalloc_array(n, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, n);
	it = *iter;
	mrcore_rkey_walk(src, &it, max_pages, sgl);
	ret = rdma_rkey_map_sg(req, sgl, n, remote_ops, rkey, iova);
	if (ret) {
		kfree(sgl);
		return ret;
	}
	/* The core built @sgl: freed when the MR is given back. */
	req->sgl[req->nr_mrs - 1] = sgl;
	req->built |= BIT(req->nr_mrs - 1);
	*len = iter->bi_size - it.bi_size;
	*iter = it;
	return 0;
}

/**
 * rdma_rkey_map_bvec() - advertise bio_vecs, one MR's worth
 * @req: the request.
 * @bvecs: the memory; only read during the call.
 * @nr_bvec: entries of @bvecs.
 * @iter: the bytes of @bvecs still to advertise: from @iter->bi_idx and
 *	@iter->bi_bvec_done on, @iter->bi_size of them.  Advanced past the
 *	bytes mapped, on success.
 * @remote_ops: RDMA_MR_REMOTE_* operations the peer may perform.
 * @rkey: the key to advertise, on success.
 * @iova: the address to advertise with it, on success.
 * @len: the bytes it covers, on success: as many as one MR of the set
 *	maps from @iter on, up to a hole.
 *
 * Map in a loop while @iter->bi_size is not 0, one segment (key, address,
 * length) each time.  A segment ends where the MR's pages end, or at a
 * hole: two neighbouring bio_vecs that neither continue each other nor
 * meet on a page boundary (a page list cannot describe them), where the
 * next segment starts.  The core describes the bytes with a scatterlist
 * of its own, one entry per bio_vec, which it frees when the request is
 * retired; the pages must stay the ULP's until the done callback ran.
 *
 * Context: Process context (allocates); the caller serializes calls on one
 * request.
 * Return: 0; -EINVAL for a NULL argument, a request without a set, a zero
 * @iter->bi_size, or an @iter that does not fit @bvecs (past their end, at
 * or past the end of its bio_vec, over an empty one); -ENOMEM; or the
 * errors of rdma_rkey_map_sg().  On error @iter and the request are
 * unchanged.
 */
int rdma_rkey_map_bvec(struct rdma_rkey_req *req, const struct bio_vec *bvecs,
		       u32 nr_bvec, struct bvec_iter *iter,
		       unsigned int remote_ops, u32 *rkey, u64 *iova, u32 *len)
{
	const struct mrcore_rkey_src src = { .bvecs = bvecs, .nr = nr_bvec };

	if (!req || !req->set || !bvecs || !iter || !rkey || !iova || !len)
		return -EINVAL;
	return mrcore_rkey_map_src(req, &src, iter, remote_ops, rkey, iova,
				   len);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_map_bvec, RDMA_MRCORE);

/**
 * rdma_rkey_map_pages() - advertise bytes of a page array, one MR's worth
 * @req: the request.
 * @pages: the pages (an xdr_buf's page array); only read during the call.
 * @offset: where the bytes start, counted from the first byte of the first
 *	page.
 * @len: bytes still to advertise.
 * @remote_ops: RDMA_MR_REMOTE_* operations the peer may perform.
 * @rkey: the key to advertise, on success.
 * @iova: the address to advertise with it, on success.
 * @mapped: the bytes it covers, on success: @len, or as many as one MR of
 *	the set maps from @offset on (up to the end of its last page).
 *
 * rdma_rkey_map_bvec() for memory held as an array of whole pages: map in
 * a loop, @offset and @len moving by the bytes mapped each time.  @pages
 * must hold every page up to @offset + @len.
 *
 * Context: As rdma_rkey_map_bvec().
 * Return: as rdma_rkey_map_bvec(); -EINVAL also for a NULL @pages or a
 * zero @len.
 */
int rdma_rkey_map_pages(struct rdma_rkey_req *req, struct page **pages,
			u32 offset, u32 len, unsigned int remote_ops, u32 *rkey,
			u64 *iova, u32 *mapped)
{
	const struct mrcore_rkey_src src = { .pages = pages, .nr = U32_MAX };
	struct bvec_iter iter = {
		.bi_size = len,
		.bi_idx = offset >> PAGE_SHIFT,
		.bi_bvec_done = offset_in_page(offset),
	};

	if (!req || !req->set || !pages || !rkey || !iova || !mapped)
		return -EINVAL;
	return mrcore_rkey_map_src(req, &src, &iter, remote_ops, rkey, iova,
				   mapped);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_map_pages, RDMA_MRCORE);

/**
 * rdma_rkey_req_post() - post the registrations and the ULP's Send
 * @req: the request, its memory mapped and the Send's payload written.
 *
 * One ib_post_send() of the chain.  Post the Receive for the reply first.
 *
 * Context: Any context.
 * Return: 0; -EINVAL for a NULL @req, one without a set, or with nothing
 * to post; the driver's error if it took none of the chain; or
 * -EINPROGRESS if it took only part of it (registrations that may run).
 * After an error end the request with rdma_rkey_req_retire(@req, %NULL),
 * which drains the send queue first when the post was partial.
 */
int rdma_rkey_req_post(struct rdma_rkey_req *req)
{
	int ret;

	if (!req || !req->set || !req->first)
		return -EINVAL;
	/*
	 * Set before the post: once the Send is taken, the reply may be
	 * retiring the request on another CPU.  A post that failed, whole
	 * or in part, did not take the Send, the chain's last WR.
	 */
	req->posted = true;
	req->drain = false;
	ret = mrcore_post_chain(req->set->pool->info.qp, req->first);
	if (unlikely(ret)) {
		req->drain = ret == -EINPROGRESS;
		req->posted = req->drain;
	}
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_req_post, RDMA_MRCORE);

/*
 * Retire with a successful reply that left keys alive: the LOCAL_INVs of
 * those keys are built from the last MR back, so that the signaled WR,
 * the first one built, runs last; a backend that invalidates
 * synchronously posts nothing, and the next WR built is signaled instead.
 * The request is finished here if none was posted, else by the
 * completion; the set's work retires it if the invalidation failed.
 * Out of line: the common reply, which killed the request's one key,
 * builds no WR and needs none of this.  Returns rdma_rkey_req_retire()'s
 * verdict on the reply, decided before the request can finish.
 */
static noinline int mrcore_rkey_inv_local(struct rdma_rkey_req *req,
					  const struct ib_wc *reply_wc)
{
	int bogus = reply_wc->wc_flags & IB_WC_WITH_INVALIDATE ?
		    -EKEYREJECTED : 0;
	struct ib_send_wr *first = NULL;
	u32 i;
	int ret;

	for (i = req->nr_mrs; i-- > 0;) {
		struct rdma_mr *mr = req->mrs[i];

		if (mrcore_mr_remote_inv(mr, reply_wc)) {
			bogus = 0;
			continue;
		}
		mr->cqe = first ? NULL : &req->inv_cqe;
		ret = rdma_invalidate_mr(mr, &first);
		mr->cqe = NULL;
		if (ret)
			goto later;
	}
	if (!first) {
		mrcore_rkey_finish(req);
		return bogus;
	}
	ret = mrcore_post_chain(req->set->pool->info.qp, first);
	if (!ret)
		return bogus;
	/*
	 * Refused, whole or in part: the send queue may hold WRs not run
	 * yet, the request's registrations among them if the completion
	 * was not the peer's reply.  Drained before any MR goes.
	 */
	req->drain = true;
later:
	mrcore_rkey_retire_later(req);
	return bogus;
}

/**
 * rdma_rkey_req_retire() - kill a request's keys and complete it
 * @req: the request.
 * @reply_wc: the Receive completion of the peer's reply; or %NULL if no
 *	reply will come: the request was never posted, the post failed, the
 *	reply timed out or the connection is lost.
 *
 * With a successful reply, a key the peer invalidated with SEND_WITH_INV
 * (%IB_WC_WITH_INVALIDATE naming it, rdma_mr_check_remote_inv()) is dead;
 * every other key is invalidated locally, in one chain whose last WR is
 * signaled, and the MRs come back with its completion.  The done callback
 * runs once every key is dead: here if none was left (or the backend
 * invalidates synchronously), else from that completion.
 *
 * Without a reply, or if the invalidation could not be posted or failed,
 * the set's work drains the send queue if the request's post was partial
 * or the invalidation's post was refused, then deregisters every MR of
 * the request, which kills its key whatever happened, gives it a new
 * device MR, releases the memory, and calls done with -EIO.  No WR of the
 * request may still be queued then (the reply's arrival, or the
 * completion of the ULP's Send, says the registrations ran; otherwise
 * drain or destroy the QP first), except after a partial post or a
 * refused invalidation, which the work drains itself.  A request whose
 * chain the driver never took (never posted, or its post refused whole)
 * has no key that ever lived: without a reply its MRs come back at once
 * and done runs here with 0, unless its backend maps synchronously
 * (FMR), whose map made the keys valid.
 *
 * The request is the core's until its done callback ran.
 *
 * A ULP that ends a request itself while its connection lives (an RPC
 * that timed out) may pass a successful completion without
 * %IB_WC_WITH_INVALIDATE although no reply came: every key is then
 * invalidated locally, by WRs posted behind the request's registrations
 * on the same send queue, which run after them, or deregistered if that
 * fails.
 *
 * A reply that says it invalidated a key none of the request's (a peer's
 * protocol error: the key of another request on the PD, or none at all)
 * kills nothing of this request: each of its keys is invalidated locally
 * as above, and the verdict is the caller's to act on (nvme-rdma starts
 * its error recovery).
 *
 * Context: Any context.
 * Return: 0; or -EKEYREJECTED for a successful reply whose
 * %IB_WC_WITH_INVALIDATE names none of the request's keys.  The request is
 * retired either way.
 */
int rdma_rkey_req_retire(struct rdma_rkey_req *req,
			 const struct ib_wc *reply_wc)
{
	if (!reply_wc || reply_wc->status != IB_WC_SUCCESS) {
		if (!mrcore_rkey_never_posted(req))
			mrcore_rkey_retire_later(req);
		return 0;
	}
	/*
	 * Every MR of the request is a mapped rkey MR: only the reply's
	 * invalidation is checked.  A reply invalidates one key, so the
	 * request whose keys all died with it holds one MR.
	 */
	if (likely(req->nr_mrs == 1 &&
		   mrcore_mr_remote_inv(req->mrs[0], reply_wc))) {
		mrcore_rkey_finish(req);
		return 0;
	}
	return mrcore_rkey_inv_local(req, reply_wc);
}
EXPORT_SYMBOL_NS_GPL(rdma_rkey_req_retire, RDMA_MRCORE);
