// SPDX-License-Identifier: GPL-2.0-only
/*
 * NFS-style adapter, server side: read chunks pulled with RDMA READ, write
 * and reply chunks pushed with RDMA WRITE before the reply, all through the
 * READ/WRITE helper.  See include/rdma/mrcore_nfs.h.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/mrcore_nfs.h>

#include "mrcore_compat.h"

/**
 * struct mrcore_nfs_svc - the server end of one connection
 * @qp: the connection's QP.
 * @pool: the READ/WRITE helper's pool on @qp.
 * @seg_pages: pages one segment spans at most.
 */
struct mrcore_nfs_svc {
	struct ib_qp *qp;
	struct rdma_io_pool *pool;
	u32 seg_pages;
};

/**
 * mrcore_nfs_svc_create() - set up the server end of a connection
 * @qp: the connected QP.
 * @port_num: its port.
 * @max_rpcs: RPCs moving data at once.
 * @seg_pages: pages of the largest segment a client sends (a segment not
 *	aligned on a page spans one page more than its length needs).
 *
 * Size the send queue for %MRCORE_NFS_MAX_SEGS times
 * rdma_io_max_send_wr() of @seg_pages + 1 pages per RPC, plus the
 * replies, and the send CQ for as many rdma_io_max_cqe().  The send CQ of @qp
 * must be polled in process context (%IB_POLL_WORKQUEUE,
 * %IB_POLL_UNBOUND_WORKQUEUE or direct): an RPC's completion handler
 * destroys its I/Os, and the destroy of a failed one sleeps until its keys
 * are dead.
 *
 * Context: Process context; may sleep.
 * Return: the server, or an ERR_PTR(): -EINVAL for a NULL @qp, a zero
 * count or a send CQ polled in softirq, -ENOMEM, or the error of rdma_io_pool_create().
 */
struct mrcore_nfs_svc *mrcore_nfs_svc_create(struct ib_qp *qp, u32 port_num,
					     u32 max_rpcs, u32 seg_pages)
{
	struct mrcore_nfs_svc *svc;
	int ret;

	if (!qp || !max_rpcs || !seg_pages ||
	    max_rpcs > U32_MAX / MRCORE_NFS_MAX_SEGS || seg_pages == U32_MAX ||
	    qp->send_cq->poll_ctx == IB_POLL_SOFTIRQ)
		return ERR_PTR(-EINVAL);
	svc = kzalloc(sizeof(*svc), GFP_KERNEL);
	if (!svc)
		return ERR_PTR(-ENOMEM);
	svc->qp = qp;
	svc->seg_pages = seg_pages;
	svc->pool = rdma_io_pool_create(qp, port_num,
					max_rpcs * MRCORE_NFS_MAX_SEGS,
					seg_pages + 1);
	if (IS_ERR(svc->pool)) {
		ret = PTR_ERR(svc->pool);
		kfree(svc);
		return ERR_PTR(ret);
	}
	return svc;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_svc_create, RDMA_MRCORE);

/**
 * mrcore_nfs_svc_destroy() - free the server end of a connection
 * @svc: the server, or %NULL.
 *
 * Every RPC must have completed or been released.
 *
 * Context: Process context; may sleep.
 */
void mrcore_nfs_svc_destroy(struct mrcore_nfs_svc *svc)
{
	if (!svc)
		return;
	rdma_io_pool_destroy(svc->pool);
	kfree(svc);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_svc_destroy, RDMA_MRCORE);

/* Release the I/Os of the current step; @wc as rdma_io_ctx_destroy(). */
static void rpc_put_io(struct mrcore_nfs_rpc *rpc, const struct ib_wc *wc)
{
	unsigned int i;

	for (i = 0; i < rpc->nr_io; i++) {
		rdma_io_ctx_destroy_bvec(&rpc->io[i], wc);
		kfree(rpc->bv[i]);
	}
	rpc->nr_io = 0;
}

static void rpc_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrcore_nfs_rpc *rpc = container_of(wc->wr_cqe,
						  struct mrcore_nfs_rpc, cqe);

	rpc_put_io(rpc, wc);
	rpc->done(rpc, wc->status == IB_WC_SUCCESS ? 0 : -EIO);
}

/**
 * mrcore_nfs_rpc_init() - start an RPC on the server
 * @rpc: the RPC.
 * @svc: the server end of the connection.
 *
 * Context: Any context.
 */
void mrcore_nfs_rpc_init(struct mrcore_nfs_rpc *rpc, struct mrcore_nfs_svc *svc)
{
	rpc->svc = svc;
	rpc->done = NULL;
	rpc->nr_io = 0;
	rpc->have_inv_handle = false;
	rpc->cqe.done = rpc_done;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_rpc_init, RDMA_MRCORE);

/* One I/O between bytes @pos.. of @pages and @len bytes of a segment. */
static int rpc_add_io(struct mrcore_nfs_rpc *rpc,
		      const struct mrcore_nfs_segment *seg, u32 len,
		      struct page **pages, u64 pos, enum dma_data_direction dir)
{
	unsigned int off = pos & ~PAGE_MASK, i;
	unsigned int n = DIV_ROUND_UP(off + len, PAGE_SIZE);
	/* Whole pages, the iterator skipping to @pos: as svcrdma holds them. */
	struct bvec_iter iter = { .bi_size = len, .bi_bvec_done = off };
	struct bio_vec *bv;
	int ret;

	if (!len || n > rpc->svc->seg_pages + 1)
		return -EINVAL;
	bv = kcalloc(n, sizeof(*bv), GFP_KERNEL);
	if (!bv)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		bvec_set_page(&bv[i], pages[(pos >> PAGE_SHIFT) + i], PAGE_SIZE,
			      0);
	ret = rdma_io_ctx_init_bvec(&rpc->io[rpc->nr_io], rpc->svc->pool, bv,
				    n, iter, seg->offset, seg->handle, dir);
	if (ret < 0) {
		kfree(bv);
		return ret;
	}
	rpc->bv[rpc->nr_io] = bv;
	rpc->nr_io++;
	/* The reply may invalidate the first handle the RPC used. */
	if (!rpc->have_inv_handle) {
		rpc->inv_handle = seg->handle;
		rpc->have_inv_handle = true;
	}
	return 0;
}

/* Drop the I/Os added since @from; they were never posted. */
static void rpc_drop_io(struct mrcore_nfs_rpc *rpc, unsigned int from)
{
	while (rpc->nr_io > from) {
		rpc->nr_io--;
		rdma_io_ctx_destroy_bvec(&rpc->io[rpc->nr_io], NULL);
		kfree(rpc->bv[rpc->nr_io]);
	}
}

static bool chunk_valid(const struct mrcore_nfs_chunk *chunk)
{
	return chunk->nsegs && chunk->nsegs <= MRCORE_NFS_MAX_SEGS;
}

/**
 * mrcore_nfs_svc_pull() - READ a read chunk from the client into pages
 * @rpc: the RPC, with no step in progress.
 * @read_chunk: the segments the call carried.
 * @pages: the pages to fill (an xdr_buf's page array).
 * @page_base: offset of the first byte to fill from the start of @pages.
 * @done: called with 0 when every byte arrived, or -EIO; from the CQ's
 *	completion context.
 *
 * Segment after segment, the payload fills the pages from @page_base on.
 * Each segment is one I/O of the helper; they are posted in one chain
 * whose last WR carries the completion.
 *
 * Context: Process context; may sleep.
 * Return: 0 when posted; -EINVAL for a NULL argument, an empty or too long
 * chunk, an empty segment or one longer than the server's @seg_pages;
 * -EBUSY if the RPC has I/Os not yet posted or completed; the error of
 * rdma_io_ctx_init() or of ib_post_send().  On an error nothing is held
 * and @done is not called, except -EINPROGRESS: the driver took part of
 * the chain; drain the QP's send queue (ib_drain_sq()), then call
 * mrcore_nfs_rpc_release().
 */
int mrcore_nfs_svc_pull(struct mrcore_nfs_rpc *rpc,
			const struct mrcore_nfs_chunk *read_chunk,
			struct page **pages, unsigned int page_base,
			void (*done)(struct mrcore_nfs_rpc *rpc, int status))
{
	struct ib_send_wr *first = NULL;
	u64 pos = page_base;
	unsigned int i;
	int ret;

	if (!rpc || !rpc->svc || !read_chunk || !pages || !done ||
	    !chunk_valid(read_chunk))
		return -EINVAL;
	if (rpc->nr_io)
		return -EBUSY;
	for (i = 0; i < read_chunk->nsegs; i++) {
		const struct mrcore_nfs_segment *seg = &read_chunk->segs[i];

		ret = rpc_add_io(rpc, seg, seg->length, pages, pos,
				 DMA_FROM_DEVICE);
		if (ret)
			goto drop_io;
		pos += seg->length;
	}
	/* From the last I/O back: only the last one is signaled. */
	for (i = rpc->nr_io; i-- > 0;)
		first = rdma_io_ctx_wrs(&rpc->io[i], first ? NULL : &rpc->cqe,
					first);
	rpc->done = done;
	ret = rdma_post_send_chain(rpc->svc->qp, first);
	/* In part: the I/Os stay until the ULP drained and released them. */
	if (ret && ret != -EINPROGRESS)
		goto drop_io;
	return ret;

drop_io:
	rpc_drop_io(rpc, 0);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_svc_pull, RDMA_MRCORE);

/**
 * mrcore_nfs_svc_push() - prepare the WRITE of pages into a write or reply
 *	chunk
 * @rpc: the RPC.
 * @chunk: the write chunk or reply chunk the call carried.
 * @pages: the pages of the payload.
 * @page_base: offset of the payload's first byte from the start of @pages.
 * @len: bytes to push; the segments are filled in order.
 * @used: the segments actually written (with their lengths), to encode in
 *	the reply, on success.
 *
 * The WRITEs are posted by mrcore_nfs_svc_reply(), in front of the reply.
 * A write chunk and a reply chunk may both be pushed for one RPC.
 *
 * Context: Process context; may sleep.
 * Return: 0; -EINVAL for a NULL argument, zero @len, an empty or too long
 * chunk or a segment longer than the server's @seg_pages; -EMSGSIZE if the
 * chunk holds fewer than @len bytes or the RPC would exceed
 * %MRCORE_NFS_MAX_SEGS I/Os; or the error of rdma_io_ctx_init().  On an
 * error, the I/Os of this call are released and earlier pushes are kept.
 */
int mrcore_nfs_svc_push(struct mrcore_nfs_rpc *rpc,
			const struct mrcore_nfs_chunk *chunk,
			struct page **pages, unsigned int page_base, u32 len,
			struct mrcore_nfs_chunk *used)
{
	unsigned int i, from;
	u64 pos = page_base, room = 0;
	int ret;

	if (!rpc || !rpc->svc || !chunk || !pages || !len || !used ||
	    !chunk_valid(chunk))
		return -EINVAL;
	for (i = 0; i < chunk->nsegs; i++)
		room += chunk->segs[i].length;
	if (room < len)
		return -EMSGSIZE;

	from = rpc->nr_io;
	used->nsegs = 0;
	for (i = 0; len; i++) {
		struct mrcore_nfs_segment *seg = &used->segs[used->nsegs];
		u32 n = min(len, chunk->segs[i].length);

		if (!n)
			continue;
		if (rpc->nr_io == MRCORE_NFS_MAX_SEGS) {
			ret = -EMSGSIZE;
			goto drop_io;
		}
		*seg = chunk->segs[i];
		seg->length = n;
		ret = rpc_add_io(rpc, seg, n, pages, pos, DMA_TO_DEVICE);
		if (ret)
			goto drop_io;
		used->nsegs++;
		pos += n;
		len -= n;
	}
	return 0;

drop_io:
	rpc_drop_io(rpc, from);
	used->nsegs = 0;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_svc_push, RDMA_MRCORE);

/**
 * mrcore_nfs_svc_reply() - post the pushed chunks and the reply
 * @rpc: the RPC.
 * @reply_send: the reply's Send WR, its payload encoded; the adapter sets
 *	its opcode, completion entry and flags, and chains the WRITEs of
 *	mrcore_nfs_svc_push() in front of it.
 * @remote_inv: the client accepts remote invalidation: the reply is a
 *	SEND_WITH_INV of the first handle the RPC moved data with (if any),
 *	which spares the client one local invalidation.
 * @done: called with 0 when the reply was sent (so every WRITE landed), or
 *	-EIO; from the CQ's completion context.
 *
 * Context: Any context.
 * Return: 0 when posted; -EINVAL for a NULL argument; or the error of
 * ib_post_send(), after which the pushed I/Os are released and @done is
 * not called; or -EINPROGRESS if the driver took part of the chain: @done
 * is not called, and once the QP's send queue was drained (ib_drain_sq())
 * mrcore_nfs_rpc_release() releases the I/Os.
 */
int mrcore_nfs_svc_reply(struct mrcore_nfs_rpc *rpc,
			 struct ib_send_wr *reply_send, bool remote_inv,
			 void (*done)(struct mrcore_nfs_rpc *rpc, int status))
{
	struct ib_send_wr *first = reply_send;
	unsigned int i;
	int ret;

	if (!rpc || !rpc->svc || !reply_send || !done)
		return -EINVAL;
	reply_send->next = NULL;
	reply_send->opcode = IB_WR_SEND;
	if (remote_inv && rpc->have_inv_handle)
		rdma_send_with_inv(reply_send, rpc->inv_handle);
	reply_send->wr_cqe = &rpc->cqe;
	reply_send->send_flags |= IB_SEND_SIGNALED;
	for (i = rpc->nr_io; i-- > 0;)
		first = rdma_io_ctx_wrs(&rpc->io[i], NULL, first);
	rpc->done = done;
	ret = rdma_post_send_chain(rpc->svc->qp, first);
	/* In part: the I/Os stay until the ULP drained and released them. */
	if (ret && ret != -EINPROGRESS)
		rpc_drop_io(rpc, 0);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_svc_reply, RDMA_MRCORE);

/**
 * mrcore_nfs_rpc_release() - drop pushed I/Os that will not be posted
 * @rpc: the RPC, with no step posted and not completed, or one whose post
 *	returned -EINPROGRESS, once the QP's send queue was drained.
 *
 * For an RPC abandoned after mrcore_nfs_svc_push() (its reply cannot be
 * sent), or posted in part.  No key of its I/Os stays valid and their MRs
 * go through the helper's quarantine.
 *
 * Context: Any context.
 */
void mrcore_nfs_rpc_release(struct mrcore_nfs_rpc *rpc)
{
	if (rpc)
		rpc_drop_io(rpc, 0);
}
EXPORT_SYMBOL_NS_GPL(mrcore_nfs_rpc_release, RDMA_MRCORE);

MODULE_DESCRIPTION("rdma-mrcore NFS-style adapter: RPC-over-RDMA chunks on the map API and the READ/WRITE helper");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
