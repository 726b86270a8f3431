// SPDX-License-Identifier: GPL-2.0-only
/*
 * NFS-style and iSER-style exchanges through the ULP adapters, for the
 * KUnit suites and the demo.  See ulp_xchg.h.
 *
 * The wire protocol is minimal: the call (command) is one SEND of a fixed
 * header carrying the chunks (STag and VA), the reply (response) one SEND
 * or SEND_WITH_INV of a fixed header.  Both ends run in the caller's
 * thread, one step after the other, waiting for each completion.  The
 * message buffers use the PD's local DMA key: they are this test's own
 * plumbing, not the subject (the adapters never see a local key).
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "ulp_xchg.h"

#define XCHG_TIMEOUT_MS		60000
#define XCHG_MSG_BYTES		1024

/* The NFS-style call and reply headers. */
enum { XCHG_NFS_WRITE = 1, XCHG_NFS_READ = 2 };

struct xchg_nfs_call {
	u32 proc;
	u32 len;
	u32 reply_len;
	struct mrcore_nfs_chunk read;
	struct mrcore_nfs_chunk write;
	struct mrcore_nfs_chunk reply;
};

struct xchg_nfs_reply {
	s32 status;
	u32 len;
	struct mrcore_nfs_chunk write;
	struct mrcore_nfs_chunk reply;
};

/* The iSER-style command and response headers. */
struct xchg_iser_cmd {
	u32 scsi_read;
	u32 len;
	u32 stag;
	u64 va;
};

struct xchg_iser_rsp {
	s32 status;
	u32 len;
};

static void xchg_wait_cb(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrcore_xchg_wait *w = container_of(wc->wr_cqe,
						  struct mrcore_xchg_wait, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static void xchg_wait_init(struct mrcore_xchg_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->cqe.done = xchg_wait_cb;
	init_completion(&w->done);
	w->wc.status = IB_WC_GENERAL_ERR;
}

/*
 * Wait for @done; on timeout move @side's QP to the error state, which
 * flushes what is posted, so nothing completes into freed memory later.
 */
static int xchg_wait(struct mrcore_e2e_side *side, struct completion *done)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (wait_for_completion_timeout(done,
					msecs_to_jiffies(XCHG_TIMEOUT_MS)))
		return 0;
	pr_err("mrcore_ulp: no completion after %u ms on %s; moving the QP to the error state\n",
	       XCHG_TIMEOUT_MS, dev_name(&side->device->dev));
	ib_modify_qp(side->qp, &attr, IB_QP_STATE);
	wait_for_completion(done);
	return -ETIMEDOUT;
}

/* Wait for a WR's completion; 0 for a success, else a negative errno. */
static int xchg_wait_wc(struct mrcore_e2e_side *side, struct mrcore_xchg_wait *w)
{
	int ret = xchg_wait(side, &w->done);

	if (ret)
		return ret;
	if (w->wc.status != IB_WC_SUCCESS) {
		pr_err("mrcore_ulp: %s: completion %s\n",
		       dev_name(&side->device->dev),
		       ib_wc_status_msg(w->wc.status));
		return -EIO;
	}
	return 0;
}

static int xchg_msg_init(struct mrcore_xchg_msg *m, struct mrcore_e2e_side *side)
{
	m->side = side;
	m->device = side->device;
	m->buf = kzalloc(XCHG_MSG_BYTES, GFP_KERNEL);
	if (!m->buf)
		return -ENOMEM;
	m->dma = ib_dma_map_single(side->device, m->buf, XCHG_MSG_BYTES,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(side->device, m->dma)) {
		kfree(m->buf);
		m->buf = NULL;
		return -ENOMEM;
	}
	m->sge.addr = m->dma;
	m->sge.length = XCHG_MSG_BYTES;
	m->sge.lkey = side->pd->local_dma_lkey;
	return 0;
}

static void xchg_msg_free(struct mrcore_xchg_msg *m)
{
	if (!m->buf)
		return;
	ib_dma_unmap_single(m->device, m->dma, XCHG_MSG_BYTES,
			    DMA_BIDIRECTIONAL);
	kfree(m->buf);
	m->buf = NULL;
}

static int xchg_post_recv(struct mrcore_xchg_msg *m, struct mrcore_xchg_wait *w)
{
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &m->sge,
		.num_sge = 1,
	};

	xchg_wait_init(w);
	ib_dma_sync_single_for_device(m->side->device, m->dma, XCHG_MSG_BYTES,
				      DMA_BIDIRECTIONAL);
	return ib_post_recv(m->side->qp, &wr, NULL);
}

/* Copy a received message out; -EPROTO if it is shorter than @len. */
static int xchg_msg_read(struct mrcore_xchg_msg *m, struct mrcore_xchg_wait *w,
			 void *to, size_t len)
{
	if (w->wc.byte_len < len)
		return -EPROTO;
	ib_dma_sync_single_for_cpu(m->side->device, m->dma, XCHG_MSG_BYTES,
				   DMA_BIDIRECTIONAL);
	memcpy(to, m->buf, len);
	return 0;
}

/* Encode a message into @m and set up @wr as its (signaled) Send. */
static void xchg_msg_send(struct mrcore_xchg_msg *m, struct ib_send_wr *wr,
			  const void *from, size_t len,
			  struct mrcore_xchg_wait *w)
{
	memcpy(m->buf, from, len);
	ib_dma_sync_single_for_device(m->side->device, m->dma, XCHG_MSG_BYTES,
				      DMA_BIDIRECTIONAL);
	m->sge.length = len;
	memset(wr, 0, sizeof(*wr));
	wr->opcode = IB_WR_SEND;
	wr->sg_list = &m->sge;
	wr->num_sge = 1;
	if (w) {
		xchg_wait_init(w);
		wr->wr_cqe = &w->cqe;
		wr->send_flags = IB_SEND_SIGNALED;
	}
}

/**
 * mrcore_xchg_destroy() - tear down an exchange pair
 * @x: the pair, or %NULL.
 *
 * Context: Process context; may sleep.
 */
void mrcore_xchg_destroy(struct mrcore_xchg *x)
{
	if (!x)
		return;
	/* Adapters first: their MRs and pools live on the pair's PDs. */
	mrcore_nfs_clnt_destroy(x->nfs_clnt);
	mrcore_nfs_svc_destroy(x->nfs_svc);
	mrcore_iser_conn_destroy(x->iser_conn);
	mrcore_iser_target_destroy(x->iser_target);
	/* Drains both QPs: posted RECVs complete into @x, still alive. */
	if (x->pair)
		mrcore_e2e_pair_destroy(x->pair);
	xchg_msg_free(&x->call_tx);
	xchg_msg_free(&x->call_rx);
	xchg_msg_free(&x->reply_tx);
	xchg_msg_free(&x->reply_rx);
	kfree(x);
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_destroy, MRCORE_HARNESS);

/*
 * The queues the adapters' kernel-doc asks for, on both ends (each end is
 * sized for the larger of its two roles' needs): the server's or target's
 * helper I/Os in flight (rdma_io_max_send_wr() and rdma_io_max_cqe() of
 * their pages, which the harness adds), and the client's or initiator's
 * registration and invalidation WRs besides the messages.
 */
static const struct mrcore_e2e_caps *xchg_caps(enum mrcore_xchg_kind kind,
					       struct mrcore_e2e_caps *caps)
{
	*caps = mrcore_e2e_default_caps;
	if (kind == MRCORE_XCHG_NFS) {
		/* One RPC: a helper I/O per segment of seg_pages + 1. */
		caps->io_ctxs = MRCORE_NFS_MAX_SEGS;
		caps->io_pages = MRCORE_XCHG_NFS_SEG_PAGES + 1;
		caps->max_send_wr += 2 * MRCORE_NFS_MAX_SEGS;
	} else {
		/* One command; an unaligned buffer spans one page more. */
		caps->io_ctxs = 1;
		caps->io_pages = MRCORE_XCHG_ISER_MAX_PAGES + 1;
		caps->max_send_wr += 2;
	}
	return caps;
}

/**
 * mrcore_xchg_create() - connect a pair and set up one protocol's adapters
 * @target: the device kind.
 * @kind: NFS-style or iSER-style.
 * @xp: the pair, on success.
 *
 * Context: Process context; may sleep.
 * Return: 0, or a negative errno (nothing is left allocated).
 */
int mrcore_xchg_create(const struct mrcore_e2e_target *target,
		       enum mrcore_xchg_kind kind, struct mrcore_xchg **xp)
{
	struct mrcore_e2e_caps caps;
	struct mrcore_e2e_side *a, *p;
	struct mrcore_xchg *x;
	int ret;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->kind = kind;
	ret = mrcore_e2e_pair_create_caps(target, xchg_caps(kind, &caps),
					  &x->pair);
	if (ret) {
		x->pair = NULL;
		goto destroy;
	}
	a = &x->pair->active;
	p = &x->pair->passive;
	ret = xchg_msg_init(&x->call_tx, a);
	if (!ret)
		ret = xchg_msg_init(&x->call_rx, p);
	if (!ret)
		ret = xchg_msg_init(&x->reply_tx, p);
	if (!ret)
		ret = xchg_msg_init(&x->reply_rx, a);
	if (ret)
		goto destroy;

	if (kind == MRCORE_XCHG_NFS) {
		x->nfs_clnt = mrcore_nfs_clnt_create(a->qp, MRCORE_NFS_MAX_SEGS,
						     MRCORE_XCHG_NFS_SEG_PAGES);
		if (IS_ERR(x->nfs_clnt)) {
			ret = PTR_ERR(x->nfs_clnt);
			x->nfs_clnt = NULL;
			goto destroy;
		}
		x->nfs_svc = mrcore_nfs_svc_create(p->qp, p->cm_id->port_num, 1,
						   MRCORE_XCHG_NFS_SEG_PAGES);
		if (IS_ERR(x->nfs_svc)) {
			ret = PTR_ERR(x->nfs_svc);
			x->nfs_svc = NULL;
			goto destroy;
		}
	} else {
		x->iser_conn = mrcore_iser_conn_create(a->qp, 1,
						       MRCORE_XCHG_ISER_MAX_PAGES);
		if (IS_ERR(x->iser_conn)) {
			ret = PTR_ERR(x->iser_conn);
			x->iser_conn = NULL;
			goto destroy;
		}
		/* An unaligned buffer spans one page more. */
		x->iser_target =
			mrcore_iser_target_create(p->qp, p->cm_id->port_num, 1,
						  MRCORE_XCHG_ISER_MAX_PAGES + 1);
		if (IS_ERR(x->iser_target)) {
			ret = PTR_ERR(x->iser_target);
			x->iser_target = NULL;
			goto destroy;
		}
	}
	*xp = x;
	return 0;

destroy:
	mrcore_xchg_destroy(x);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_create, MRCORE_HARNESS);

/* ---- Partial posts (the post_wr fault point) ---- */

/* Before post @n: the fault cuts its chain if the test asked. */
static void xchg_cut_arm(struct mrcore_xchg *x, enum mrcore_xchg_post n)
{
	if (x->cut_post == n)
		rdma_mrcore_fault_arm("post_wr", x->cut_after, 1);
}

static void xchg_srv_keys(struct mrcore_xchg *x, const struct rdma_io_ctx *io)
{
	u32 i;

	for (i = 0; i < io->nr_mrs && x->nr_srv_keys < MRCORE_XCHG_MAX_KEYS; i++)
		x->srv_keys[x->nr_srv_keys++] = (struct mrcore_xchg_key){
			.handle = io->mrs[i]->key, .addr = io->mrs[i]->iova,
		};
}

/*
 * After post @n on @side, which returned @ret: the fault disarmed, and a
 * chain taken in part drained before anything it names is released, as
 * the adapters' kernel-doc asks; @io (@nr of them) are the server's or
 * target's I/Os of the post, whose keys are noted first.
 */
static int xchg_cut_done(struct mrcore_xchg *x, enum mrcore_xchg_post n,
			 struct mrcore_e2e_side *side, int ret,
			 const struct rdma_io_ctx *io, unsigned int nr)
{
	unsigned int i;

	if (x->cut_post == n) {
		x->cut_hits = rdma_mrcore_fault_hits("post_wr");
		rdma_mrcore_fault_arm("post_wr", 0, 0);
		x->cut_ret = ret;
		for (i = 0; i < nr; i++)
			xchg_srv_keys(x, &io[i]);
	}
	if (ret == -EINPROGRESS)
		ib_drain_sq(side->qp);
	return ret;
}

/* The adapters' callbacks: the client's or initiator's request is done. */
static void xchg_active_done(struct mrcore_xchg *x, int status)
{
	x->active_status = status;
	complete(&x->active_done);
}

/* The server's or target's I/O or reply is done. */
static void xchg_passive_done(struct mrcore_xchg *x, int status)
{
	x->passive_status = status;
	complete(&x->passive_done);
}

/*
 * The server's or target's post that returned @ret, its chain cut or
 * released already: wait for the adapter's callback, return its status.
 */
static int xchg_srv_wait(struct mrcore_xchg *x, int ret)
{
	if (!ret)
		ret = xchg_wait(&x->pair->passive, &x->passive_done);
	if (!ret)
		ret = x->passive_status;
	return ret;
}

/* ---- NFS-style ---- */

static void xchg_nfs_req_done(struct mrcore_nfs_req *req, int status)
{
	xchg_active_done(container_of(req, struct mrcore_xchg, nfs_req),
			 status);
}

static void xchg_nfs_rpc_done(struct mrcore_nfs_rpc *rpc, int status)
{
	xchg_passive_done(container_of(rpc, struct mrcore_xchg, nfs_rpc),
			  status);
}

/* Post both RECVs and start the client's request. */
static int xchg_begin(struct mrcore_xchg *x)
{
	int ret;

	x->nr_keys = 0;
	init_completion(&x->active_done);
	init_completion(&x->passive_done);
	x->active_status = -EINPROGRESS;
	x->passive_status = -EINPROGRESS;
	ret = xchg_post_recv(&x->call_rx, &x->call_recv);
	if (ret)
		return ret;
	return xchg_post_recv(&x->reply_rx, &x->reply_recv);
}

static void xchg_add_keys(struct mrcore_xchg *x,
			  const struct mrcore_nfs_chunk *c, bool writable)
{
	unsigned int i;

	for (i = 0; i < c->nsegs && x->nr_keys < MRCORE_XCHG_MAX_KEYS; i++) {
		struct mrcore_xchg_key *k = &x->keys[x->nr_keys++];

		k->handle = c->segs[i].handle;
		k->addr = c->segs[i].offset;
		k->len = c->segs[i].length;
		k->writable = writable;
		k->remote_inv = false;
	}
}

/*
 * The client registers all of @buf as a chunk of @type into @chunk, its
 * keys noted in @x->keys (writable for the server's WRITEs).
 */
static int xchg_nfs_register(struct mrcore_xchg *x, u32 type,
			     struct mrcore_e2e_buf *buf,
			     struct mrcore_nfs_chunk *chunk, bool writable)
{
	int ret;

	ret = mrcore_nfs_req_register(&x->nfs_req, type, buf->pages,
				      buf->offset, buf->len, chunk);
	if (!ret)
		xchg_add_keys(x, chunk, writable);
	return ret;
}

/* The reply's Receive completion says which key the server invalidated. */
static void xchg_note_remote_inv(struct mrcore_xchg *x)
{
	const struct ib_wc *wc = &x->reply_recv.wc;
	unsigned int i;

	if (!(wc->wc_flags & IB_WC_WITH_INVALIDATE))
		return;
	for (i = 0; i < x->nr_keys; i++)
		if (x->keys[i].handle == wc->ex.invalidate_rkey)
			x->keys[i].remote_inv = true;
}

/*
 * The client's side of the end of an RPC: wait for the reply (unless the
 * call failed), let the adapter kill the keys, wait for its callback.
 */
static int xchg_nfs_finish(struct mrcore_xchg *x, int ret)
{
	struct mrcore_e2e_side *a = &x->pair->active;
	int err;

	if (!ret)
		ret = xchg_wait_wc(a, &x->reply_recv);
	/* A cut invalidation chain: the adapter drains and retires itself. */
	xchg_cut_arm(x, MRCORE_XCHG_POST_INV);
	mrcore_nfs_req_reply(&x->nfs_req, ret ? NULL : &x->reply_recv.wc);
	err = xchg_wait(a, &x->active_done);
	xchg_cut_done(x, MRCORE_XCHG_POST_INV, a, 0, NULL, 0);
	if (!ret)
		ret = err ? err : x->active_status;
	if (!ret)
		xchg_note_remote_inv(x);
	return ret;
}

/* The server's side: wait for the call and decode it. */
static int xchg_nfs_get_call(struct mrcore_xchg *x, struct xchg_nfs_call *call)
{
	struct mrcore_e2e_side *a = &x->pair->active;
	struct mrcore_e2e_side *p = &x->pair->passive;
	int ret;

	ret = xchg_wait_wc(a, &x->call_sent);
	if (!ret)
		ret = xchg_wait_wc(p, &x->call_recv);
	if (!ret)
		ret = xchg_msg_read(&x->call_rx, &x->call_recv, call,
				    sizeof(*call));
	return ret;
}

/*
 * The client starts a request of @proc for @len bytes: both RECVs posted,
 * the adapter's request set up, @call's header filled.  Nothing to finish
 * if it fails.
 */
static int xchg_nfs_start(struct mrcore_xchg *x, struct xchg_nfs_call *call,
			  u32 proc, u64 len)
{
	int ret;

	if (len > U32_MAX)
		return -EINVAL;
	ret = xchg_begin(x);
	if (ret)
		return ret;
	mrcore_nfs_req_init(&x->nfs_req, x->nfs_clnt, &x->send_wr,
			    xchg_nfs_req_done);
	call->proc = proc;
	call->len = len;
	return 0;
}

/* The client posts its registrations and @call. */
static int xchg_nfs_send(struct mrcore_xchg *x,
			 const struct xchg_nfs_call *call)
{
	int ret;

	xchg_msg_send(&x->call_tx, &x->send_wr, call, sizeof(*call),
		      &x->call_sent);
	xchg_cut_arm(x, MRCORE_XCHG_POST_CALL);
	ret = mrcore_nfs_req_send(&x->nfs_req);
	return xchg_cut_done(x, MRCORE_XCHG_POST_CALL, &x->pair->active, ret,
			     NULL, 0);
}

/* The client's WRITE call: all of @data its read chunk; @call sent. */
static int xchg_nfs_write_call(struct mrcore_xchg *x,
			       struct mrcore_e2e_buf *data,
			       struct xchg_nfs_call *call)
{
	int ret;

	ret = xchg_nfs_register(x, MRCORE_NFS_READ_CHUNK, data, &call->read,
				false);
	return ret ? ret : xchg_nfs_send(x, call);
}

/* The server sends its reply and waits for the adapter's callback. */
static int xchg_nfs_reply(struct mrcore_xchg *x,
			  const struct xchg_nfs_reply *reply, bool remote_inv)
{
	struct mrcore_e2e_side *p = &x->pair->passive;
	int ret;

	xchg_msg_send(&x->reply_tx, &x->reply_wr, reply, sizeof(*reply), NULL);
	reinit_completion(&x->passive_done);
	xchg_cut_arm(x, MRCORE_XCHG_POST_REPLY);
	ret = mrcore_nfs_svc_reply(&x->nfs_rpc, &x->reply_wr, remote_inv,
				   xchg_nfs_rpc_done);
	xchg_cut_done(x, MRCORE_XCHG_POST_REPLY, p, ret, x->nfs_rpc.io,
		      x->nfs_rpc.nr_io);
	if (ret == -EINPROGRESS)
		mrcore_nfs_rpc_release(&x->nfs_rpc);
	if (ret)
		return ret;
	return xchg_srv_wait(x, 0);
}

/**
 * mrcore_xchg_nfs_write() - a WRITE RPC whose data the server pulls
 * @x: an NFS-style pair.
 * @data: the client's data (a read chunk of all its bytes).
 * @sink: where the server pulls it, as long as @data.
 * @remote_inv: the server replies with SEND_WITH_INV.
 *
 * The client registers @data and sends the call; the server READs the
 * read chunk into @sink and replies; the client's request completes once
 * every key is dead.  The keys are left in @x->keys.
 *
 * Context: Process context; sleeps.
 * Return: 0, or a negative errno of the first step that failed.
 */
int mrcore_xchg_nfs_write(struct mrcore_xchg *x, struct mrcore_e2e_buf *data,
			  struct mrcore_e2e_buf *sink, bool remote_inv)
{
	struct mrcore_e2e_side *p = &x->pair->passive;
	struct xchg_nfs_reply reply = {};
	struct xchg_nfs_call call = {};
	int ret;

	if (data->len != sink->len)
		return -EINVAL;
	ret = xchg_nfs_start(x, &call, XCHG_NFS_WRITE, data->len);
	if (ret)
		return ret;
	ret = xchg_nfs_write_call(x, data, &call);
	if (ret)
		return xchg_nfs_finish(x, ret);

	/* Server: decode the call, pull the read chunk, reply. */
	ret = xchg_nfs_get_call(x, &call);
	if (ret)
		return xchg_nfs_finish(x, ret);
	mrcore_nfs_rpc_init(&x->nfs_rpc, x->nfs_svc);
	xchg_cut_arm(x, MRCORE_XCHG_POST_DATA);
	ret = mrcore_nfs_svc_pull(&x->nfs_rpc, &call.read, sink->pages,
				  sink->offset, xchg_nfs_rpc_done);
	xchg_cut_done(x, MRCORE_XCHG_POST_DATA, p, ret, x->nfs_rpc.io,
		      x->nfs_rpc.nr_io);
	if (ret == -EINPROGRESS)
		mrcore_nfs_rpc_release(&x->nfs_rpc);
	ret = xchg_srv_wait(x, ret);
	reply.status = ret;
	reply.len = ret ? 0 : call.len;
	if (!ret)
		ret = xchg_nfs_reply(x, &reply, remote_inv);
	return xchg_nfs_finish(x, ret);
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_nfs_write, MRCORE_HARNESS);

/**
 * mrcore_xchg_nfs_read() - a READ RPC whose data and reply the server
 *	pushes
 * @x: an NFS-style pair.
 * @src: the server's data.
 * @data: the client's pages for it (a write chunk), as long as @src.
 * @reply_src: the server's reply body.
 * @reply_dst: the client's pages for it (a reply chunk), as long.
 * @remote_inv: the server replies with SEND_WITH_INV.
 *
 * Context: Process context; sleeps.
 * Return: 0, or a negative errno of the first step that failed.
 */
int mrcore_xchg_nfs_read(struct mrcore_xchg *x, struct mrcore_e2e_buf *src,
			 struct mrcore_e2e_buf *data,
			 struct mrcore_e2e_buf *reply_src,
			 struct mrcore_e2e_buf *reply_dst, bool remote_inv)
{
	struct xchg_nfs_reply reply = {};
	struct xchg_nfs_call call = {};
	int ret;

	if (src->len != data->len || reply_src->len != reply_dst->len ||
	    reply_dst->len > U32_MAX)
		return -EINVAL;
	ret = xchg_nfs_start(x, &call, XCHG_NFS_READ, data->len);
	if (ret)
		return ret;
	call.reply_len = reply_dst->len;
	ret = xchg_nfs_register(x, MRCORE_NFS_WRITE_CHUNK, data, &call.write,
				true);
	if (!ret)
		ret = xchg_nfs_register(x, MRCORE_NFS_REPLY_CHUNK, reply_dst,
					&call.reply, true);
	if (!ret)
		ret = xchg_nfs_send(x, &call);
	if (ret)
		return xchg_nfs_finish(x, ret);

	/* Server: push the data and the reply body, then the reply. */
	ret = xchg_nfs_get_call(x, &call);
	if (ret)
		return xchg_nfs_finish(x, ret);
	mrcore_nfs_rpc_init(&x->nfs_rpc, x->nfs_svc);
	ret = mrcore_nfs_svc_push(&x->nfs_rpc, &call.write, src->pages,
				  src->offset, call.len, &reply.write);
	if (!ret)
		ret = mrcore_nfs_svc_push(&x->nfs_rpc, &call.reply,
					  reply_src->pages, reply_src->offset,
					  call.reply_len, &reply.reply);
	if (ret) {
		mrcore_nfs_rpc_release(&x->nfs_rpc);
		return xchg_nfs_finish(x, ret);
	}
	reply.len = call.len;
	ret = xchg_nfs_reply(x, &reply, remote_inv);
	return xchg_nfs_finish(x, ret);
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_nfs_read, MRCORE_HARNESS);

/**
 * mrcore_xchg_nfs_abandon() - a WRITE RPC the client gives up on
 * @x: an NFS-style pair.
 * @data: the client's data (a read chunk of all its bytes).
 *
 * The client registers @data and sends the call; once the server has
 * received it (the keys are live), the client ends the request without a
 * reply, as on a lost connection: the adapter must kill the keys by
 * deregistration and complete the request with -EIO.  The connection stays
 * up; the keys are left in @x->keys.
 *
 * Context: Process context; sleeps.
 * Return: the request's completion status (-EIO expected), or a negative
 * errno of a step before.
 */
int mrcore_xchg_nfs_abandon(struct mrcore_xchg *x, struct mrcore_e2e_buf *data)
{
	struct xchg_nfs_call call = {};
	int ret, err;

	ret = xchg_nfs_start(x, &call, XCHG_NFS_WRITE, data->len);
	if (ret)
		return ret;
	ret = xchg_nfs_write_call(x, data, &call);
	if (!ret)
		ret = xchg_nfs_get_call(x, &call);
	/* No reply will come. */
	mrcore_nfs_req_reply(&x->nfs_req, NULL);
	err = xchg_wait(&x->pair->active, &x->active_done);
	if (ret)
		return ret;
	return err ? err : x->active_status;
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_nfs_abandon, MRCORE_HARNESS);

/* ---- iSER-style ---- */

static void xchg_iser_task_done(struct mrcore_iser_task *task, int status)
{
	xchg_active_done(container_of(task, struct mrcore_xchg, iser_task),
			 status);
}

static void xchg_iser_cmd_done(struct mrcore_iser_cmd *cmd, int status)
{
	xchg_passive_done(container_of(cmd, struct mrcore_xchg, iser_cmd),
			  status);
}

/*
 * The initiator registers @ini for a SCSI READ or WRITE into @cmd (its
 * STag noted in @x->keys) and sends the command; the target receives it.
 * Returns -errno with nothing registered if the registration failed
 * (*@reg false), else the first error of the send.
 */
static int xchg_iser_send(struct mrcore_xchg *x, bool scsi_read,
			  struct mrcore_e2e_buf *ini,
			  struct xchg_iser_cmd *cmd, bool *reg)
{
	struct mrcore_e2e_side *a = &x->pair->active;
	int ret;

	*reg = false;
	if (ini->len > U32_MAX)
		return -EINVAL;
	ret = xchg_begin(x);
	if (ret)
		return ret;
	cmd->scsi_read = scsi_read;
	cmd->len = ini->len;
	ret = mrcore_iser_task_reg(&x->iser_task, x->iser_conn,
				   scsi_read ? MRCORE_ISER_DATA_IN :
					       MRCORE_ISER_DATA_OUT,
				   ini->sg, ini->nents, &x->send_wr, &cmd->stag,
				   &cmd->va, xchg_iser_task_done);
	if (ret)
		return ret;
	*reg = true;
	x->keys[0] = (struct mrcore_xchg_key){
		.handle = cmd->stag, .addr = cmd->va, .len = cmd->len,
		.writable = scsi_read,
	};
	x->nr_keys = 1;
	xchg_msg_send(&x->call_tx, &x->send_wr, cmd, sizeof(*cmd),
		      &x->call_sent);
	xchg_cut_arm(x, MRCORE_XCHG_POST_CALL);
	ret = mrcore_iser_task_send(&x->iser_task);
	xchg_cut_done(x, MRCORE_XCHG_POST_CALL, a, ret, NULL, 0);
	if (!ret)
		ret = xchg_wait_wc(a, &x->call_sent);
	if (!ret)
		ret = xchg_wait_wc(&x->pair->passive, &x->call_recv);
	return ret;
}

/* The initiator's end of a task: response, STag dead, callback. */
static int xchg_iser_finish(struct mrcore_xchg *x, int ret)
{
	struct mrcore_e2e_side *a = &x->pair->active;
	int err;

	if (!ret)
		ret = xchg_wait_wc(a, &x->reply_recv);
	mrcore_iser_task_response(&x->iser_task, ret ? NULL : &x->reply_recv.wc);
	err = xchg_wait(a, &x->active_done);
	if (!ret)
		ret = err ? err : x->active_status;
	if (!ret)
		xchg_note_remote_inv(x);
	return ret;
}

/**
 * mrcore_xchg_iser() - a SCSI READ or WRITE through the iSER adapters
 * @x: an iSER-style pair.
 * @scsi_read: a READ (data-in: the target WRITEs @tgt into @ini), else a
 *	WRITE (data-out: the target READs @ini into @tgt).
 * @ini: the initiator's buffer.
 * @tgt: the target's buffer, as long.
 * @remote_inv: the target's response is a SEND_WITH_INV of the STag.
 *
 * Context: Process context; sleeps.
 * Return: 0, or a negative errno of the first step that failed.
 */
int mrcore_xchg_iser(struct mrcore_xchg *x, bool scsi_read,
		     struct mrcore_e2e_buf *ini, struct mrcore_e2e_buf *tgt,
		     bool remote_inv)
{
	struct mrcore_e2e_side *p = &x->pair->passive;
	struct xchg_iser_rsp rsp = {};
	struct xchg_iser_cmd cmd = {};
	bool reg;
	int ret;

	if (ini->len != tgt->len)
		return -EINVAL;
	ret = xchg_iser_send(x, scsi_read, ini, &cmd, &reg);
	if (!reg)
		return ret;
	if (!ret)
		ret = xchg_msg_read(&x->call_rx, &x->call_recv, &cmd,
				    sizeof(cmd));
	if (ret)
		return xchg_iser_finish(x, ret);

	/* Target: data-out now, or data-in with the response. */
	mrcore_iser_cmd_init(&x->iser_cmd, x->iser_target, cmd.stag, cmd.va);
	if (!cmd.scsi_read) {
		xchg_cut_arm(x, MRCORE_XCHG_POST_DATA);
		ret = mrcore_iser_cmd_data_out(&x->iser_cmd, tgt->sg,
					       tgt->nents, xchg_iser_cmd_done);
		xchg_cut_done(x, MRCORE_XCHG_POST_DATA, p, ret,
			      &x->iser_cmd.io, 1);
		if (ret == -EINPROGRESS)
			mrcore_iser_cmd_release(&x->iser_cmd);
		ret = xchg_srv_wait(x, ret);
		reinit_completion(&x->passive_done);
	} else {
		ret = mrcore_iser_cmd_data_in(&x->iser_cmd, tgt->sg,
					      tgt->nents);
	}
	if (ret)
		return xchg_iser_finish(x, ret);
	rsp.len = cmd.len;
	xchg_msg_send(&x->reply_tx, &x->reply_wr, &rsp, sizeof(rsp), NULL);
	xchg_cut_arm(x, MRCORE_XCHG_POST_REPLY);
	ret = mrcore_iser_cmd_response(&x->iser_cmd, &x->reply_wr, remote_inv,
				       xchg_iser_cmd_done);
	xchg_cut_done(x, MRCORE_XCHG_POST_REPLY, p, ret, &x->iser_cmd.io,
		      x->iser_cmd.io_live);
	if (ret == -EINPROGRESS)
		mrcore_iser_cmd_release(&x->iser_cmd);
	return xchg_iser_finish(x, xchg_srv_wait(x, ret));
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_iser, MRCORE_HARNESS);

/**
 * mrcore_xchg_iser_abandon() - a SCSI command the initiator gives up on
 * @x: an iSER-style pair.
 * @scsi_read: a READ (the STag is writable), else a WRITE.
 * @ini: the initiator's buffer.
 *
 * The initiator registers @ini and sends the command; once the target has
 * received it (the STag is live), the initiator ends the task without a
 * response, as on a lost connection: the adapter must kill the STag by
 * deregistration and complete the task with -EIO.  The connection stays
 * up; the STag is left in @x->keys.
 *
 * Context: Process context; sleeps.
 * Return: the task's completion status (-EIO expected), or a negative
 * errno of a step before.
 */
int mrcore_xchg_iser_abandon(struct mrcore_xchg *x, bool scsi_read,
			     struct mrcore_e2e_buf *ini)
{
	struct xchg_iser_cmd cmd = {};
	bool reg;
	int ret, err;

	ret = xchg_iser_send(x, scsi_read, ini, &cmd, &reg);
	if (!reg)
		return ret;
	/* No response will come. */
	mrcore_iser_task_response(&x->iser_task, NULL);
	err = xchg_wait(&x->pair->active, &x->active_done);
	if (ret)
		return ret;
	return err ? err : x->active_status;
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_iser_abandon, MRCORE_HARNESS);

/**
 * mrcore_xchg_probe() - the server/target uses an old key of the client's
 * @x: the pair, after an exchange.
 * @key: one of @x->keys.
 * @local: the passive end's memory for the access (source of a WRITE,
 *	sink of a READ); the access covers all of it.
 *
 * A WRITE if the key was writable, else a READ, through the READ/WRITE
 * helper on the passive end's QP.  A dead key fails the access and breaks
 * the connection.
 *
 * Context: Process context; sleeps.
 * Return: the completion status of the access (%IB_WC_SUCCESS is 0), or a
 * negative errno if it could not be posted or timed out.
 */
int mrcore_xchg_probe(struct mrcore_xchg *x, const struct mrcore_xchg_key *key,
		      struct mrcore_e2e_buf *local)
{
	struct mrcore_e2e_side *p = &x->pair->passive;
	struct rdma_io_pool *pool;
	struct mrcore_xchg_wait w;
	struct rdma_io_ctx ctx;
	int ret;

	pool = rdma_io_pool_create(p->qp, p->cm_id->port_num, 1,
				   local->npages);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	ret = rdma_io_ctx_init(&ctx, pool, local->sg, local->nents, 0,
			       key->addr, key->handle,
			       key->writable ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	if (ret < 0)
		goto destroy_pool;
	xchg_wait_init(&w);
	ret = rdma_io_ctx_post(&ctx, &w.cqe, NULL);
	if (ret) {
		/* Taken in part: what the driver took must be gone first. */
		if (ret == -EINPROGRESS)
			ib_drain_qp(p->qp);
		rdma_io_ctx_destroy(&ctx, NULL);
		goto destroy_pool;
	}
	ret = xchg_wait(p, &w.done);
	rdma_io_ctx_destroy(&ctx, ret ? NULL : &w.wc);
	if (!ret)
		ret = w.wc.status;
destroy_pool:
	rdma_io_pool_destroy(pool);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_xchg_probe, MRCORE_HARNESS);

MODULE_DESCRIPTION("rdma-mrcore NFS-style and iSER-style exchanges through the ULP adapters, for tests and the demo");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
