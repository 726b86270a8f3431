// SPDX-License-Identifier: GPL-2.0-only
/*
 * NFS-style adapter, client side: the chunks of a request registered for
 * the server, chained before the call, and every key dead before the
 * request completes.  See include/rdma/mrcore_nfs.h.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/mrcore_nfs.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_nfs_clnt - the client end of one connection
 * @qp: the connection's QP.
 * @seg_pages: pages one segment (one MR) spans at most.
 * @wq: retires MRs whose keys are in an unknown state.
 * @lock: protects @free, @nr_free and @nr_mrs.
 * @free: the MRs not in use by a request.
 * @nr_free: entries in @free.
 * @nr_mrs: MRs the client owns (free or in use).
 */
struct mrcore_nfs_clnt {
	struct ib_qp *qp;
	u32 seg_pages;
	struct workqueue_struct *wq;
	spinlock_t lock;	/* the free MRs and the count */
	struct rdma_mr **free;
	u32 nr_free;
	u32 nr_mrs;
};

static struct rdma_mr *clnt_get_mr(struct mrcore_nfs_clnt *clnt)
{
	struct rdma_mr *mr = NULL;
	unsigned long flags;

	spin_lock_irqsave(&clnt->lock, flags);
	if (clnt->nr_free)
		mr = clnt->free[--clnt->nr_free];
	spin_unlock_irqrestore(&clnt->lock, flags);
	return mr;
}

static void clnt_put_mr(struct mrcore_nfs_clnt *clnt, struct rdma_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&clnt->lock, flags);
	clnt->free[clnt->nr_free++] = mr;
	spin_unlock_irqrestore(&clnt->lock, flags);
}

/**
 * mrcore_nfs_clnt_create() - set up the client end of a connection
 * @qp: the connected QP; calls and the adapter's WRs are posted on it.
 * @max_mrs: segments registered at once over all requests in flight.
 * @seg_pages: pages one segment spans at most (a chunk larger than that is
 *	split into several segments).
 *
 * Size the send queue for one registration WR per segment and one
 * invalidation WR per segment, besides the calls.
 *
 * Context: Process context; may sleep.
 * Return: the client, or an ERR_PTR(): -EINVAL for a NULL @qp or a zero
 * count, -ENOMEM, or the error of rdma_create_mr() (e.g. -E2BIG when the
 * device cannot register @seg_pages pages in one MR).
 */
struct mrcore_nfs_clnt *mrcore_nfs_clnt_create(struct ib_qp *qp, u32 max_mrs,
					       u32 seg_pages)
{
	struct mrcore_nfs_clnt *clnt;
	struct rdma_mr *mr;
	int ret;

	if (!qp || !max_mrs || !seg_pages)
		return ERR_PTR(-EINVAL);
	clnt = kzalloc(sizeof(*clnt), GFP_KERNEL);
	if (!clnt)
		return ERR_PTR(-ENOMEM);
	clnt->qp = qp;
	clnt->seg_pages = seg_pages;
	spin_lock_init(&clnt->lock);
	clnt->free = kcalloc(max_mrs, sizeof(*clnt->free), GFP_KERNEL);
	if (!clnt->free) {
		ret = -ENOMEM;
		goto free_clnt;
	}
	clnt->wq = alloc_workqueue("mrcore_nfs_clnt", WQ_MEM_RECLAIM, 0);
	if (!clnt->wq) {
		ret = -ENOMEM;
		goto free_array;
	}
	while (clnt->nr_mrs < max_mrs) {
		mr = rdma_create_mr(qp->pd, seg_pages, RDMA_MR_ROLE_RKEY);
		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			goto destroy_mrs;
		}
		clnt->free[clnt->nr_free++] = mr;
		clnt->nr_mrs++;
	}
	return clnt;

destroy_mrs:
	while (clnt->nr_free)
		rdma_destroy_mr(clnt->free[--clnt->nr_free]);
	destroy_workqueue(clnt->wq);
free_array:
	kfree(clnt->free);
free_clnt:
	kfree(clnt);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_clnt_create, RDMA_MRCORE);

/**
 * mrcore_nfs_clnt_destroy() - free the client end of a connection
 * @clnt: the client, or %NULL.
 *
 * Every request must have completed (its done callback ran).  Call before
 * the QP's PD is freed.
 *
 * Context: Process context; may sleep.
 */
void mrcore_nfs_clnt_destroy(struct mrcore_nfs_clnt *clnt)
{
	if (!clnt)
		return;
	/* Requests being retired give their MRs back first. */
	destroy_workqueue(clnt->wq);
	WARN_ON_ONCE(clnt->nr_free != clnt->nr_mrs);
	while (clnt->nr_free)
		rdma_destroy_mr(clnt->free[--clnt->nr_free]);
	kfree(clnt->free);
	kfree(clnt);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_clnt_destroy, RDMA_MRCORE);

/*
 * The state of @mr's key is unknown (its registration or invalidation may
 * or may not have run): rdma_mr_reset() deregisters the device MR, which
 * kills the key whatever happened, before it releases the memory, and a
 * fresh device MR takes its place.
 */
static void clnt_retire_mr(struct mrcore_nfs_clnt *clnt, struct rdma_mr *mr)
{
	unsigned long flags;

	if (!rdma_mr_reset(mr)) {
		clnt_put_mr(clnt, mr);
		return;
	}
	/* No new device MR: the MR is gone, the client has one fewer. */
	spin_lock_irqsave(&clnt->lock, flags);
	clnt->nr_mrs--;
	spin_unlock_irqrestore(&clnt->lock, flags);
}

static void req_retire_work(struct work_struct *work)
{
	struct mrcore_nfs_req *req = container_of(work, struct mrcore_nfs_req,
						  work);
	unsigned int i;

	/* No WR the driver took may still name an MR deregistered here. */
	if (req->drain)
		ib_drain_sq(req->clnt->qp);
	for (i = 0; i < req->nr_mrs; i++) {
		clnt_retire_mr(req->clnt, req->mrs[i]);
		sg_free_table(&req->sgt[i]);
	}
	req->nr_mrs = 0;
	req->done(req, req->status);
}

/* Every key is dead: release the mappings and complete the request. */
static void req_finish(struct mrcore_nfs_req *req)
{
	unsigned int i;

	for (i = 0; i < req->nr_mrs; i++) {
		if (WARN_ON_ONCE(rdma_unmap_mr(req->mrs[i]))) {
			/* Cannot happen for an invalidated key; be safe. */
			req->status = -EIO;
			queue_work(req->clnt->wq, &req->work);
			return;
		}
	}
	for (i = 0; i < req->nr_mrs; i++) {
		clnt_put_mr(req->clnt, req->mrs[i]);
		sg_free_table(&req->sgt[i]);
	}
	req->nr_mrs = 0;
	req->done(req, 0);
}

static void req_retire(struct mrcore_nfs_req *req)
{
	req->status = -EIO;
	queue_work(req->clnt->wq, &req->work);
}

static void req_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrcore_nfs_req *req = container_of(wc->wr_cqe,
						  struct mrcore_nfs_req,
						  inv_cqe);

	if (wc->status == IB_WC_SUCCESS)
		req_finish(req);
	else
		req_retire(req);
}

/**
 * mrcore_nfs_req_init() - start a request
 * @req: the request.
 * @clnt: the client end of the connection.
 * @call_send: the Send WR that will carry the call; the registrations of
 *	the request's chunks are chained in front of it.  Its payload may be
 *	written after the chunks are registered; it must stay valid until
 *	mrcore_nfs_req_send() returned.
 * @done: called once when every key of the request is dead and its pages
 *	are the ULP's again: with 0, or -EIO if a key had to be killed by
 *	deregistering its MR.  Runs in the CQ's completion context or in a
 *	work item, or within mrcore_nfs_req_reply().
 *
 * Context: Any context.
 */
void mrcore_nfs_req_init(struct mrcore_nfs_req *req,
			 struct mrcore_nfs_clnt *clnt,
			 struct ib_send_wr *call_send,
			 void (*done)(struct mrcore_nfs_req *req, int status))
{
	req->clnt = clnt;
	req->first = call_send;
	req->done = done;
	req->nr_mrs = 0;
	req->status = 0;
	req->drain = false;
	req->inv_cqe.done = req_inv_done;
	INIT_WORK(&req->work, req_retire_work);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_req_init, RDMA_MRCORE);

/**
 * mrcore_nfs_req_register() - register a chunk of the request's pages
 * @req: the request.
 * @type: read chunk (the server READs it), write or reply chunk (the
 *	server WRITEs into it).
 * @pages: the pages of the payload (an xdr_buf's page array).
 * @page_base: offset of the payload's first byte from the start of @pages.
 * @len: bytes of the chunk.
 * @chunk: the chunk's segments to put in the call header, on success.
 *
 * The chunk is split into segments of at most the client's @seg_pages
 * pages, one MR each; the server gets exactly @type's access to exactly
 * these bytes.  The registration WRs are chained before the call's Send.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL argument, zero @len or an unknown @type;
 * -EMSGSIZE if the request would exceed %MRCORE_NFS_MAX_SEGS segments;
 * -EAGAIN if the client has no free MR; -ENOMEM; or the error of
 * rdma_map_sg_rkey().  On an error the segments registered before stay
 * with the request, which must then be ended with
 * mrcore_nfs_req_reply(@req, %NULL).
 */
int mrcore_nfs_req_register(struct mrcore_nfs_req *req,
			    enum mrcore_nfs_chunk_type type,
			    struct page **pages, unsigned int page_base,
			    u32 len, struct mrcore_nfs_chunk *chunk)
{
	struct rdma_mr *mr;
	unsigned int ops;
	u64 seg_bytes;
	int ret;

	if (!req || !req->clnt || !pages || !len || !chunk)
		return -EINVAL;
	switch (type) {
	case MRCORE_NFS_READ_CHUNK:
		ops = RDMA_MR_REMOTE_READ;
		break;
	case MRCORE_NFS_WRITE_CHUNK:
	case MRCORE_NFS_REPLY_CHUNK:
		ops = RDMA_MR_REMOTE_WRITE;
		break;
	default:
		return -EINVAL;
	}

	seg_bytes = (u64)req->clnt->seg_pages << PAGE_SHIFT;
	pages += page_base >> PAGE_SHIFT;
	page_base &= ~PAGE_MASK;
	chunk->nsegs = 0;
	while (len) {
		struct mrcore_nfs_segment *seg = &chunk->segs[chunk->nsegs];
		struct sg_table *sgt = &req->sgt[req->nr_mrs];
		u32 seg_len = min_t(u64, len, seg_bytes - page_base);
		unsigned int npages = DIV_ROUND_UP(page_base + seg_len,
						   PAGE_SIZE);

		if (req->nr_mrs == MRCORE_NFS_MAX_SEGS)
			return -EMSGSIZE;
		mr = clnt_get_mr(req->clnt);
		if (!mr)
			return -EAGAIN;
		ret = sg_alloc_table_from_pages(sgt, pages, npages, page_base,
						seg_len, GFP_KERNEL);
		if (ret)
			goto put_mr;
		ret = rdma_map_sg_rkey(&seg->handle, &seg->offset, mr, sgt->sgl,
				       sgt->orig_nents, ops, &req->first);
		if (ret)
			goto free_sgt;
		seg->length = seg_len;
		req->mrs[req->nr_mrs++] = mr;
		chunk->nsegs++;

		len -= seg_len;
		pages += (page_base + seg_len) >> PAGE_SHIFT;
		page_base = (page_base + seg_len) & ~PAGE_MASK;
	}
	return 0;

free_sgt:
	sg_free_table(&req->sgt[req->nr_mrs]);
put_mr:
	clnt_put_mr(req->clnt, mr);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_req_register, RDMA_MRCORE);

/**
 * mrcore_nfs_req_send() - post the registrations and the call
 * @req: the request, its chunks registered and the call encoded.
 *
 * One ib_post_send() of the registrations followed by the call's Send.
 * Post the Receive for the reply before.
 *
 * Context: Any context.
 * Return: 0, or the error of ib_post_send(); then end the request with
 * mrcore_nfs_req_reply(@req, %NULL).  -EINPROGRESS: the driver took part
 * of the chain (registrations that may run): drain the QP's send queue
 * (ib_drain_sq()) first.
 */
int mrcore_nfs_req_send(struct mrcore_nfs_req *req)
{
	if (!req || !req->clnt || !req->first)
		return -EINVAL;
	return rdma_post_send_chain(req->clnt->qp, req->first);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_req_send, RDMA_MRCORE);

/**
 * mrcore_nfs_req_reply() - the reply arrived: kill the request's keys
 * @req: the request.
 * @reply_wc: the Receive completion of the reply, or %NULL if no reply will
 *	come (the call was never sent, or the connection is lost).
 *
 * A key the server invalidated with SEND_WITH_INV (%IB_WC_WITH_INVALIDATE)
 * is matched against the request's keys; every other key is invalidated
 * locally, in one chain whose last WR is signaled.  The request's done
 * callback runs once every key is dead: here if none was left, else from
 * the invalidation's completion.  Without a successful reply, or if the
 * invalidation fails, the MRs are deregistered by a work item, which kills
 * their keys, and done gets -EIO.  If the driver took the invalidations
 * only in part, that work item first drains the QP's send queue
 * (ib_drain_sq(), which moves it to the error state).
 *
 * Context: Any context.
 */
void mrcore_nfs_req_reply(struct mrcore_nfs_req *req,
			  const struct ib_wc *reply_wc)
{
	struct ib_send_wr *first = NULL, *prev;
	bool signaled = false;
	unsigned int i;
	int remote = -1;
	int ret;

	if (!reply_wc || reply_wc->status != IB_WC_SUCCESS) {
		req_retire(req);
		return;
	}
	for (i = 0; i < req->nr_mrs; i++) {
		if (!rdma_mr_check_remote_inv(req->mrs[i], reply_wc)) {
			remote = i;
			break;
		}
	}
	/* Built from the last MR back, so the signaled WR runs last. */
	for (i = req->nr_mrs; i-- > 0;) {
		if (i == remote)
			continue;
		prev = first;
		rdma_mr_set_cqe(req->mrs[i], signaled ? NULL : &req->inv_cqe);
		ret = rdma_invalidate_mr(req->mrs[i], &first);
		rdma_mr_set_cqe(req->mrs[i], NULL);
		if (ret) {
			req_retire(req);
			return;
		}
		/* A backend that invalidates synchronously posts nothing. */
		if (first != prev)
			signaled = true;
	}
	if (!first) {
		req_finish(req);
		return;
	}
	ret = rdma_post_send_chain(req->clnt->qp, first);
	if (ret) {
		/* Part posted: the last, signaled one was not. */
		req->drain = ret == -EINPROGRESS;
		req_retire(req);
	}
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_req_reply, RDMA_MRCORE);
