// SPDX-License-Identifier: GPL-2.0-only
/*
 * NFS-style adapter, client side: the chunks of a request registered for
 * the server, chained before the call, and every key dead before the
 * request completes, on the core's rkey MR set (the MRs, their
 * invalidation and the retiring of keys in an unknown state are the
 * core's).  See include/rdma/mrcore_nfs.h.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/mrcore_nfs.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_nfs_clnt - the client end of one connection
 * @set: the rkey MRs of the connection's QP, one per segment.
 */
struct mrcore_nfs_clnt {
	struct rdma_rkey_set *set;
};

/**
 * mrcore_nfs_clnt_create() - set up the client end of a connection
 * @qp: the connected QP; calls and the adapter's WRs are posted on it.
 * @max_mrs: segments registered at once over all requests in flight.
 * @seg_pages: pages one segment (one MR) spans at most (a chunk larger
 *	than that is split into several segments).
 *
 * Size the send queue for one registration WR per segment and one
 * invalidation WR per segment, besides the calls.
 *
 * Context: Process context; may sleep.
 * Return: the client, or an ERR_PTR(): -EINVAL for a NULL @qp or a zero
 * count, -ENOMEM, or the error of rdma_rkey_set_create() (e.g. -E2BIG
 * when the device cannot register @seg_pages pages in one MR).
 */
struct mrcore_nfs_clnt *mrcore_nfs_clnt_create(struct ib_qp *qp, u32 max_mrs,
					       u32 seg_pages)
{
	struct mrcore_nfs_clnt *clnt = kzalloc(sizeof(*clnt), GFP_KERNEL);

	if (!clnt)
		return ERR_PTR(-ENOMEM);
	clnt->set = rdma_rkey_set_create(qp, max_mrs, seg_pages);
	if (IS_ERR(clnt->set)) {
		struct rdma_rkey_set *err = clnt->set;

		kfree(clnt);
		return ERR_CAST(err);
	}
	return clnt;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_clnt_create, RDMA_MRCORE);

/**
 * mrcore_nfs_clnt_destroy() - free the client end of a connection
 * @clnt: the client, or %NULL.
 *
 * Waits for requests being retired; every request must have completed
 * (its done callback ran).  Call before the QP's PD is freed.
 *
 * Context: Process context; may sleep.
 */
void mrcore_nfs_clnt_destroy(struct mrcore_nfs_clnt *clnt)
{
	if (!clnt)
		return;
	rdma_rkey_set_destroy(clnt->set);
	kfree(clnt);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_clnt_destroy, RDMA_MRCORE);

static void req_done(struct rdma_rkey_req *rk, int status)
{
	struct mrcore_nfs_req *req = container_of(rk, struct mrcore_nfs_req,
						  rk);

	req->done(req, status);
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
	req->done = done;
	rdma_rkey_req_init(&req->rk, clnt->set, call_send, req_done);
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
 * rdma_rkey_map_pages().  On an error the segments registered before stay
 * with the request, which must then be ended with
 * mrcore_nfs_req_reply(@req, %NULL).
 */
int mrcore_nfs_req_register(struct mrcore_nfs_req *req,
			    enum mrcore_nfs_chunk_type type,
			    struct page **pages, unsigned int page_base,
			    u32 len, struct mrcore_nfs_chunk *chunk)
{
	unsigned int ops = type == MRCORE_NFS_READ_CHUNK ?
			   RDMA_MR_REMOTE_READ : RDMA_MR_REMOTE_WRITE;
	struct mrcore_nfs_segment *seg;
	int ret;

	if (!req || !pages || !len || !chunk || type > MRCORE_NFS_REPLY_CHUNK)
		return -EINVAL;
	for (chunk->nsegs = 0; len; chunk->nsegs++) {
		if (chunk->nsegs == MRCORE_NFS_MAX_SEGS)
			return -EMSGSIZE;
		seg = &chunk->segs[chunk->nsegs];
		ret = rdma_rkey_map_pages(&req->rk, pages, page_base, len, ops,
					  &seg->handle, &seg->offset,
					  &seg->length);
		if (ret)
			return ret;
		page_base += seg->length;
		len -= seg->length;
	}
	return 0;
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
 * Return: 0; -EINVAL for a NULL @req or one without a call; or the error
 * of ib_post_send(): then end the request with mrcore_nfs_req_reply(@req,
 * %NULL).  -EINPROGRESS: the driver took part of the chain (registrations
 * that may run); mrcore_nfs_req_reply() then drains the QP's send queue
 * before it deregisters the MRs.
 */
int mrcore_nfs_req_send(struct mrcore_nfs_req *req)
{
	return req ? rdma_rkey_req_post(&req->rk) : -EINVAL;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_req_send, RDMA_MRCORE);

/**
 * mrcore_nfs_req_reply() - the reply arrived: kill the request's keys
 * @req: the request.
 * @reply_wc: the Receive completion of the reply, or %NULL if no reply will
 *	come (the call was never sent, or the connection is lost).
 *
 * rdma_rkey_req_retire(): a key the server invalidated with SEND_WITH_INV
 * (%IB_WC_WITH_INVALIDATE) is matched against the request's keys; every
 * other key is invalidated locally, in one chain whose last WR is
 * signaled.  The request's done callback runs once every key is dead: here
 * if none was left, else from the invalidation's completion.  Without a
 * successful reply, or if the invalidation fails, the MRs are
 * deregistered by the core's work, which kills their keys, and done gets
 * -EIO.  If the driver took the call's chain or the invalidations only in
 * part, that work first drains the QP's send queue (ib_drain_sq(), which
 * moves it to the error state).
 *
 * Context: Any context.
 */
void mrcore_nfs_req_reply(struct mrcore_nfs_req *req,
			  const struct ib_wc *reply_wc)
{
	rdma_rkey_req_retire(&req->rk, reply_wc);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_req_reply, RDMA_MRCORE);
