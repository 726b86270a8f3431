// SPDX-License-Identifier: GPL-2.0-only
/*
 * mrcore_2host_peer.ko: the peer guest of make kunit-2host.  Accepts rdma_cm
 * connections on rxe and siw and serves the initiator's requests over
 * SEND/RECV; the protocol is described in peer_2host.h.
 *
 * Every connection's requests and teardown run on one ordered workqueue,
 * so a request that names another connection (ACCESS) or a buffer never
 * races with their release, and the module needs no lock but the one that
 * guards the connection list against the rdma_cm handler.
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_iser.h>
#include <rdma/mrcore_nfs.h>

#include "mrcore_harness.h"
#include "peer_2host.h"

#define PEER_TIMEOUT_MS		30000
#define PEER_PLACE_MS		2000
#define PEER_SQ_DEPTH		128
#define PEER_RQ_DEPTH		4
#define PEER_RD_ATOM		8
/* An ACCESS moves at most this much (the pool's MRs are sized for it). */
#define PEER_ACCESS_MAX		SZ_1M

static char *rxe_addr = "203.0.113.2";
module_param(rxe_addr, charp, 0444);
MODULE_PARM_DESC(rxe_addr, "address of rxe0 (on eth0) to listen on");
static char *siw_addr = "198.18.0.2";
module_param(siw_addr, charp, 0444);
MODULE_PARM_DESC(siw_addr, "address of siw0 (on vsiw0) to listen on");

/* A device kind the peer listens on; its connections share @pd. */
struct peer_listener {
	const char *name;
	enum rdma_driver_id driver_id;
	const char **addr;
	u16 port;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
};

static struct peer_listener peer_listeners[] = {
	{ "rxe", RDMA_DRIVER_RXE, (const char **)&rxe_addr,
	  MRCORE_PEER_PORT_RXE },
	{ "siw", RDMA_DRIVER_SIW, (const char **)&siw_addr,
	  MRCORE_PEER_PORT_SIW },
};

/**
 * struct peer_rx - a RECV the peer keeps posted
 * @c: its connection.
 * @msg: its buffer.
 * @dma: @msg's DMA address.
 * @byte_len: bytes the request's SEND carried.
 * @cqe: its completion.
 * @work: serves the request it received.
 *
 * A connection keeps %PEER_RQ_DEPTH of them posted: an initiator says HELLO
 * again before the first one is served (client_2host.c), and on iWARP a
 * SEND that finds no RECV breaks the connection.
 */
struct peer_rx {
	struct peer_conn *c;
	struct mrcore_peer_call *msg;
	u64 dma;
	u32 byte_len;
	struct ib_cqe cqe;
	struct work_struct work;
};

/**
 * struct peer_conn - one accepted connection
 * @node: in peer_conns.
 * @id: its number (HELLO).
 * @side: cm_id, device, PD (the listener's), CQ and QP.
 * @rx: the posted RECVs, one buffer each.
 * @resp: the answer's buffer.
 * @resp_dma: @resp's DMA address.
 * @free_work: tears the connection down.
 * @pool: the I/O helper's pool of ACCESS requests on this QP, once used.
 * @nfs_svc: the NFS-style server on this QP, once used.
 * @iser_target: the iSER-style target on this QP, once used.
 * @gone: @free_work is queued; no event queues it again.
 */
struct peer_conn {
	struct list_head node;
	u32 id;
	struct mrcore_e2e_side side;
	struct peer_rx rx[PEER_RQ_DEPTH];
	struct mrcore_peer_msg *resp;
	u64 resp_dma;
	struct work_struct free_work;
	struct rdma_io_pool *pool;
	struct mrcore_nfs_svc *nfs_svc;
	struct mrcore_iser_target *iser_target;
	bool gone;
};

/**
 * struct peer_buf - memory the initiator asked the peer to expose
 * @id: its handle.
 * @owner: the connection that exposed it; the buffer goes with it.
 * @buf: the memory.
 * @flags: MRCORE_PEER_F_* of the EXPOSE.
 * @ops: the ops of its mapping.
 * @mr: the core's MR (rkey or lkey role).
 * @raw: the raw FRWR MR of an F_CONTIG buffer.
 * @dma_mapped: the test itself DMA-mapped @buf (F_CONTIG, F_DMA_LKEY).
 * @mapped: a key of it lives.
 * @key: that key.
 * @addr: its first data byte's address for @key.
 */
struct peer_buf {
	u32 id;
	struct peer_conn *owner;
	struct mrcore_e2e_buf buf;
	unsigned int flags;
	unsigned int ops;
	struct rdma_mr *mr;
	struct ib_mr *raw;
	bool dma_mapped;
	bool mapped;
	u32 key;
	u64 addr;
};

static struct workqueue_struct *peer_wq;
static struct workqueue_struct *peer_destroy_wq;
static LIST_HEAD(peer_conns);
static DEFINE_MUTEX(peer_lock);
static DEFINE_XARRAY_ALLOC1(peer_bufs);
static u32 peer_conn_seq;

static void peer_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int peer_post_recv(struct peer_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = sizeof(*rx->msg),
		.lkey = rx->c->side.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(rx->c->side.qp, &wr, NULL);
}

/* Post @first (whose last WR is signaled into @w) and wait. */
static int peer_post(struct peer_conn *c, struct ib_send_wr *first,
		     struct mrcore_e2e_wait *w)
{
	return mrcore_e2e_post(&c->side, first, w, PEER_TIMEOUT_MS);
}

/* ---- buffers ---- */

/* Kill @b's key: invalidate (or, F_UNMAP_ONLY, only unmap) its mapping. */
static int peer_buf_kill(struct peer_conn *c, struct peer_buf *b,
			 bool unmap_only)
{
	struct mrcore_e2e_wait w;
	struct ib_send_wr *first = NULL;
	int ret;

	if (!b->mapped)
		return 0;
	if (b->flags & MRCORE_PEER_F_DMA_LKEY)
		return -EINVAL;		/* nothing kills the PD's DMA lkey */
	mrcore_e2e_wait_init(&w);
	if (b->raw) {
		struct ib_send_wr inv = {
			.opcode = IB_WR_LOCAL_INV,
			.ex.invalidate_rkey = b->key,
			.wr_cqe = &w.cqe,
			.send_flags = IB_SEND_SIGNALED,
		};

		ret = peer_post(c, &inv, &w);
		b->mapped = false;
		return ret == IB_WC_SUCCESS ? 0 : -EIO;
	}
	if (!unmap_only) {
		rdma_mr_set_cqe(b->mr, &w.cqe);
		ret = rdma_invalidate_mr(b->mr, &first);
		if (!ret)
			ret = peer_post(c, first, &w);
		rdma_mr_set_cqe(b->mr, NULL);
		/* On a dead QP the LOCAL_INV is flushed: the key dies with
		 * the MR's next registration or its destruction.
		 */
		if (ret && ret != IB_WC_WR_FLUSH_ERR)
			pr_err("mrcore_2host_peer: invalidation of buffer %u: %d\n",
			       b->id, ret);
	}
	ret = rdma_unmap_mr(b->mr);
	b->mapped = false;
	return ret;
}

/* Map @b (again) with @ops on @c's QP: the new key in b->key. */
static int peer_buf_map(struct peer_conn *c, struct peer_buf *b,
			unsigned int ops)
{
	struct mrcore_e2e_buf *buf = &b->buf;
	struct ib_send_wr *first = NULL;
	struct mrcore_e2e_wait w;
	int ret;

	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(b->mr, &w.cqe);
	if (b->flags & MRCORE_PEER_F_LKEY) {
		ret = rdma_map_sg_lkey(&b->key, b->mr, buf->sg, buf->nents, ops,
				       &first);
		b->addr = ret ? 0 : mrcore_e2e_buf_dma_addr(buf);
	} else {
		ret = rdma_map_sg_rkey(&b->key, &b->addr, b->mr, buf->sg,
				       buf->nents, ops, &first);
	}
	if (!ret && first) {
		b->mapped = true;
		ret = peer_post(c, first, &w);
		if (ret)
			ret = ret < 0 ? ret : -EIO;
	} else if (!ret) {
		b->mapped = true;
	}
	rdma_mr_set_cqe(b->mr, NULL);
	b->ops = ops;
	return ret;
}

/* One contiguous 4 MiB buffer under a raw FRWR MR of two 2 MiB pages. */
static int peer_buf_map_contig(struct peer_conn *c, struct peer_buf *b)
{
	struct ib_device *dev = c->side.device;
	struct ib_reg_wr reg;
	struct mrcore_e2e_wait w;
	int ret;

	if (ib_dma_map_sg(dev, b->buf.sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	b->dma_mapped = true;
	b->raw = ib_alloc_mr(c->side.pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(b->raw)) {
		ret = PTR_ERR(b->raw);
		b->raw = NULL;
		return ret;
	}
	if (ib_map_mr_sg(b->raw, b->buf.sg, 1, NULL, SZ_2M) != 1)
		return -EIO;
	mrcore_e2e_wait_init(&w);
	mrcore_e2e_reg_wr(&reg, b->raw, &w);
	b->mapped = true;
	ret = peer_post(c, &reg.wr, &w);
	b->key = b->raw->rkey;
	b->addr = b->raw->iova;
	return ret ? -EIO : 0;
}

static void peer_buf_free(struct peer_conn *c, struct peer_buf *b)
{
	struct ib_device *dev = c->side.device;

	if (b->mapped && !(b->flags & MRCORE_PEER_F_DMA_LKEY))
		peer_buf_kill(c, b, !!(b->flags & MRCORE_PEER_F_LKEY) &&
			      !rdma_protocol_iwarp(dev, 1));
	if (b->mr)
		rdma_destroy_mr(b->mr);
	if (b->raw)
		ib_dereg_mr(b->raw);
	if (b->dma_mapped)
		ib_dma_unmap_sg(dev, b->buf.sg, b->buf.nents,
				DMA_BIDIRECTIONAL);
	xa_erase(&peer_bufs, b->id);
	mrcore_e2e_buf_free(&b->buf);
	kfree(b);
}

static struct peer_buf *peer_buf_get(u32 id)
{
	return xa_load(&peer_bufs, id);
}

/* ---- requests ---- */

static int peer_expose(struct peer_conn *c, const struct mrcore_peer_req *q,
		       struct mrcore_peer_req *a)
{
	struct peer_buf *b;
	int ret;

	if (q->flags & MRCORE_PEER_F_CONTIG) {
		if (q->len > MRCORE_PEER_CONTIG_BYTES)
			return -EINVAL;
	} else if (!q->len || q->len > SZ_4M || q->start >= PAGE_SIZE) {
		return -EINVAL;
	}
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->owner = c;
	b->flags = q->flags;
	if (q->flags & MRCORE_PEER_F_CONTIG)
		ret = mrcore_e2e_buf_alloc_contig(&b->buf,
						  MRCORE_PEER_CONTIG_BYTES, 0);
	else
		ret = mrcore_e2e_buf_alloc(&b->buf, q->len, q->start);
	if (ret) {
		kfree(b);
		return ret;
	}
	ret = xa_alloc(&peer_bufs, &b->id, b, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		mrcore_e2e_buf_free(&b->buf);
		kfree(b);
		return ret;
	}
	if (q->seed != MRCORE_E2E_POISONED)
		mrcore_e2e_buf_fill_range(&b->buf, 0,
					  min_t(u64, q->len, b->buf.len),
					  q->seed);

	if (q->flags & MRCORE_PEER_F_CONTIG) {
		ret = peer_buf_map_contig(c, b);
	} else if (q->flags & MRCORE_PEER_F_DMA_LKEY) {
		if (ib_dma_map_sg(c->side.device, b->buf.sg, b->buf.nents,
				  DMA_BIDIRECTIONAL) <= 0) {
			ret = -EIO;
		} else {
			b->dma_mapped = true;
			b->mapped = true;
			b->key = c->side.pd->local_dma_lkey;
			b->addr = mrcore_e2e_buf_dma_addr(&b->buf);
			ret = 0;
		}
	} else {
		b->mr = rdma_create_mr(c->side.pd, b->buf.npages,
				       (q->flags & MRCORE_PEER_F_LKEY) ?
				       RDMA_MR_ROLE_LKEY : RDMA_MR_ROLE_RKEY);
		if (IS_ERR(b->mr)) {
			ret = PTR_ERR(b->mr);
			b->mr = NULL;
		} else {
			ret = peer_buf_map(c, b, q->ops);
		}
	}
	if (ret) {
		peer_buf_free(c, b);
		return ret;
	}
	a->id = b->id;
	a->key = b->key;
	a->addr = b->addr;
	a->len = b->buf.len;
	return 0;
}

static int peer_fill(const struct mrcore_peer_req *q)
{
	struct peer_buf *b = peer_buf_get(q->id);

	if (!b)
		return -ENOENT;
	if (q->start > b->buf.len || q->len > b->buf.len - q->start)
		return -EINVAL;
	if (q->flags & MRCORE_PEER_F_POISON_ALL)
		mrcore_e2e_buf_poison(&b->buf);
	mrcore_e2e_buf_fill_range(&b->buf, q->start, q->len, q->seed);
	return 0;
}

static int peer_verify(const struct mrcore_peer_req *q, struct mrcore_peer_req *a)
{
	unsigned long end = jiffies + msecs_to_jiffies(PEER_PLACE_MS);
	struct peer_buf *b = peer_buf_get(q->id);
	struct mrcore_e2e_diff d;

	if (!b)
		return -ENOENT;
	if (q->start > b->buf.len || q->len > b->buf.len - q->start)
		return -EINVAL;
	while (!mrcore_e2e_buf_verify(&b->buf, q->start, q->len, q->seed, &d) &&
	       (q->flags & MRCORE_PEER_F_WAIT) && time_before(jiffies, end))
		msleep(20);
	a->value = d.bad;
	a->addr = (u64)d.pos;
	a->key = (u32)d.got << 8 | d.want;
	return 0;
}

static int peer_invalidate(struct peer_conn *c, const struct mrcore_peer_req *q)
{
	struct peer_buf *b = peer_buf_get(q->id);

	if (!b)
		return -ENOENT;
	if (!b->mapped)
		return -EINVAL;
	return peer_buf_kill(c, b, q->flags & MRCORE_PEER_F_UNMAP_ONLY);
}

static int peer_remap(struct peer_conn *c, const struct mrcore_peer_req *q,
		      struct mrcore_peer_req *a)
{
	struct peer_buf *b = peer_buf_get(q->id);
	int ret;

	if (!b)
		return -ENOENT;
	if (!b->mr)
		return -EOPNOTSUPP;
	ret = peer_buf_kill(c, b, false);
	if (!ret)
		ret = peer_buf_map(c, b, q->ops);
	a->key = b->key;
	a->addr = b->addr;
	a->len = b->buf.len;
	return ret;
}

static int peer_free_req(struct peer_conn *c, const struct mrcore_peer_req *q)
{
	struct peer_buf *b = peer_buf_get(q->id);

	if (!b)
		return -ENOENT;
	peer_buf_free(b->owner, b);
	return 0;
}

static struct peer_conn *peer_conn_find(u32 id)
{
	struct peer_conn *c, *found = NULL;

	mutex_lock(&peer_lock);
	list_for_each_entry(c, &peer_conns, node)
		if (c->id == id && !c->gone)
			found = c;
	mutex_unlock(&peer_lock);
	return found;
}

static int peer_access(const struct mrcore_peer_req *q, struct mrcore_peer_req *a)
{
	bool is_read = q->flags & MRCORE_PEER_F_READ;
	struct mrcore_e2e_buf lb;
	struct rdma_io_ctx ctx;
	struct peer_conn *t;
	int ret, status;

	t = peer_conn_find(q->value);
	if (!t)
		return -ENOENT;
	if (!q->len || q->len > PEER_ACCESS_MAX)
		return -EINVAL;
	if (!t->pool) {
		t->pool = rdma_io_pool_create(t->side.qp, t->side.cm_id->port_num,
					      1, PEER_ACCESS_MAX / PAGE_SIZE + 1);
		if (IS_ERR(t->pool)) {
			ret = PTR_ERR(t->pool);
			t->pool = NULL;
			return ret;
		}
	}
	ret = mrcore_e2e_buf_alloc(&lb, q->len, 0);
	if (ret)
		return ret;
	if (!is_read)
		mrcore_e2e_buf_fill(&lb, q->seed);
	ret = rdma_io_ctx_init(&ctx, t->pool, lb.sg, lb.nents, 0, q->addr,
			       q->key, is_read ? DMA_FROM_DEVICE :
						 DMA_TO_DEVICE);
	if (ret < 0) {
		status = ret;
	} else {
		status = mrcore_e2e_io_run(&t->side, &ctx, rdma_io_ctx_destroy,
					   PEER_TIMEOUT_MS);
	}
	a->value = (u64)(s64)status;
	a->key = status != IB_WC_SUCCESS &&
		 mrcore_e2e_qp_failed(&t->side, 5000);
	if (is_read && status == IB_WC_SUCCESS) {
		struct mrcore_e2e_diff d;

		mrcore_e2e_buf_verify(&lb, 0, lb.len, q->seed, &d);
		a->addr = d.bad;
	}
	mrcore_e2e_buf_free(&lb);
	return 0;
}

static void peer_poweroff_fn(struct work_struct *work)
{
	pr_info("mrcore_2host_peer: powering off, as asked\n");
	mrcore_2host_run("echo o >/proc/sysrq-trigger", UMH_WAIT_EXEC);
}

static DECLARE_DELAYED_WORK(peer_poweroff, peer_poweroff_fn);

static int peer_net(const struct mrcore_peer_req *q)
{
	const char *cmd;

	switch (q->value) {
	case MRCORE_PEER_NET_OFF:
		cmd = MRCORE_2HOST_NET_OFF;
		break;
	case MRCORE_PEER_NET_FAULTS:
		cmd = MRCORE_2HOST_NET_FAULTS;
		break;
	case MRCORE_PEER_NET_ACK_LATE:
		cmd = MRCORE_2HOST_NET_ACK_LATE;
		break;
	case MRCORE_PEER_NET_POWEROFF:
		/* After the answer went out: a power cut mid-transfer. */
		schedule_delayed_work(&peer_poweroff,
				      msecs_to_jiffies(q->len));
		return 0;
	default:
		return -EINVAL;
	}
	return mrcore_2host_run(cmd, UMH_WAIT_PROC) ? -EIO : 0;
}

/* ---- the server halves of the ULP adapters ---- */

/**
 * struct peer_answer - the answer's SEND
 * @wr: its WR.
 * @sge: over the connection's answer buffer.
 * @w: its completion, for a plain answer.
 * @posted: an adapter posted @wr as the reply of its RPC or command.
 */
struct peer_answer {
	struct ib_send_wr wr;
	struct ib_sge sge;
	struct mrcore_e2e_wait w;
	bool posted;
};

/* Encode answer @a (to @q, status @ret) and set up its plain SEND. */
static void peer_answer_prep(struct peer_conn *c, struct peer_answer *ans,
			     const struct mrcore_peer_req *q,
			     struct mrcore_peer_req *a, int ret)
{
	struct ib_device *dev = c->side.device;
	struct mrcore_peer_msg *m = c->resp;

	ib_dma_sync_single_for_cpu(dev, c->resp_dma, sizeof(*m), DMA_TO_DEVICE);
	a->op = q->op;
	a->tag = q->tag;
	a->status = -ret;
	mrcore_peer_pack(m, a);
	ib_dma_sync_single_for_device(dev, c->resp_dma, sizeof(*m),
				      DMA_TO_DEVICE);
	ans->sge.addr = c->resp_dma;
	ans->sge.length = sizeof(*m);
	ans->sge.lkey = c->side.pd->local_dma_lkey;
	mrcore_e2e_wait_init(&ans->w);
	memset(&ans->wr, 0, sizeof(ans->wr));
	ans->wr.opcode = IB_WR_SEND;
	ans->wr.sg_list = &ans->sge;
	ans->wr.num_sge = 1;
	ans->wr.send_flags = IB_SEND_SIGNALED;
	ans->wr.wr_cqe = &ans->w.cqe;
}

/**
 * struct peer_ulp - one RPC or command of the adapters on the peer
 * @rpc: the NFS-style RPC.
 * @cmd: the iSER-style command.
 * @chunk: the call's read or write chunk.
 * @reply: its reply chunk.
 * @used: what a push used of a chunk.
 * @done: the adapter's callback ran.
 * @status: its status.
 */
struct peer_ulp {
	struct mrcore_nfs_rpc rpc;
	struct mrcore_iser_cmd cmd;
	struct mrcore_nfs_chunk chunk, reply, used;
	struct completion done;
	int status;
};

static void peer_nfs_done(struct mrcore_nfs_rpc *rpc, int status)
{
	struct peer_ulp *u = container_of(rpc, struct peer_ulp, rpc);

	u->status = status;
	complete(&u->done);
}

static void peer_iser_done(struct mrcore_iser_cmd *cmd, int status)
{
	struct peer_ulp *u = container_of(cmd, struct peer_ulp, cmd);

	u->status = status;
	complete(&u->done);
}

/*
 * Wait for the adapter's callback; on a timeout the QP goes to the error
 * state, which flushes what is posted, so the callback comes.
 */
static int peer_ulp_wait(struct peer_conn *c, struct peer_ulp *u)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (!wait_for_completion_timeout(&u->done,
					 msecs_to_jiffies(PEER_TIMEOUT_MS))) {
		pr_err("mrcore_2host_peer: connection %u: no completion of the adapter after %u ms\n",
		       c->id, PEER_TIMEOUT_MS);
		ib_modify_qp(c->side.qp, &attr, IB_QP_STATE);
		wait_for_completion(&u->done);
		return -ETIMEDOUT;
	}
	reinit_completion(&u->done);
	return u->status;
}

/*
 * After a post of the adapter's that returned @ret: a chain taken in part
 * is drained (the QP goes to the error state) before the caller releases
 * it; 0 is waited for.
 */
static int peer_ulp_posted(struct peer_conn *c, struct peer_ulp *u, int ret)
{
	if (ret == -EINPROGRESS)
		ib_drain_sq(c->side.qp);
	return ret ? ret : peer_ulp_wait(c, u);
}

/**
 * struct peer_call - a request as received
 * @call: a copy of its bytes.
 * @len: how many of them the SEND carried.
 */
struct peer_call {
	const struct mrcore_peer_call *call;
	u32 len;
};

/* Segments [@from, @from + @n) of call @pc as a chunk. */
static int peer_chunk(const struct peer_call *pc, unsigned int from,
		      unsigned int n, struct mrcore_nfs_chunk *chunk)
{
	unsigned int i;

	if (!n || n > MRCORE_NFS_MAX_SEGS || from + n > MRCORE_PEER_CALL_SEGS ||
	    pc->len < offsetof(struct mrcore_peer_call, segs[from + n]))
		return -EPROTO;
	chunk->nsegs = n;
	for (i = 0; i < n; i++) {
		const struct mrcore_peer_seg *s = &pc->call->segs[from + i];

		chunk->segs[i].handle = le32_to_cpu(s->handle);
		chunk->segs[i].length = le32_to_cpu(s->length);
		chunk->segs[i].offset = le64_to_cpu(s->offset);
	}
	return 0;
}

/* New server memory of @len bytes, with pattern @seed or poisoned. */
static int peer_ulp_buf(struct mrcore_e2e_buf *buf, u64 len, u32 seed)
{
	int ret;

	if (!len || len > MRCORE_PEER_NFS_MAX_BYTES)
		return -EINVAL;
	ret = mrcore_e2e_buf_alloc(buf, len, 0);
	if (ret)
		return ret;
	if (seed == MRCORE_E2E_POISONED)
		mrcore_e2e_buf_poison(buf);
	else
		mrcore_e2e_buf_fill(buf, seed);
	return 0;
}

/* VERIFY's answer for all of @buf against pattern @seed. */
static void peer_ulp_verify(struct mrcore_e2e_buf *buf, u32 seed,
			    struct mrcore_peer_req *a)
{
	struct mrcore_e2e_diff d;

	mrcore_e2e_buf_verify(buf, 0, buf->len, seed, &d);
	a->value = d.bad;
	a->addr = (u64)d.pos;
	a->key = (u32)d.got << 8 | d.want;
}

static int peer_nfs_svc(struct peer_conn *c)
{
	struct mrcore_nfs_svc *svc;

	if (c->nfs_svc)
		return 0;
	svc = mrcore_nfs_svc_create(c->side.qp, c->side.cm_id->port_num, 1,
				    MRCORE_PEER_NFS_SEG_PAGES);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	c->nfs_svc = svc;
	return 0;
}

static struct peer_ulp *peer_ulp_alloc(void)
{
	struct peer_ulp *u = kzalloc(sizeof(*u), GFP_KERNEL);

	if (u)
		init_completion(&u->done);
	return u;
}

/* An NFS-style RPC's start: the service, the RPC's state, its first chunk. */
static int peer_nfs_start(struct peer_conn *c, const struct peer_call *pc,
			  const struct mrcore_peer_req *q, struct peer_ulp **up)
{
	struct peer_ulp *u;
	int ret;

	ret = peer_nfs_svc(c);
	if (ret)
		return ret;
	u = peer_ulp_alloc();
	if (!u)
		return -ENOMEM;
	ret = peer_chunk(pc, 0, q->id, &u->chunk);
	if (ret) {
		kfree(u);
		return ret;
	}
	*up = u;
	return 0;
}

/* The NFS-style reply, @a encoded, after the RPC's pushed WRITEs. */
static int peer_nfs_reply(struct peer_conn *c, struct peer_ulp *u,
			  struct peer_answer *ans,
			  const struct mrcore_peer_req *q,
			  struct mrcore_peer_req *a)
{
	int ret;

	peer_answer_prep(c, ans, q, a, 0);
	ret = mrcore_nfs_svc_reply(&u->rpc, &ans->wr,
				   q->flags & MRCORE_PEER_F_REMOTE_INV,
				   peer_nfs_done);
	if (ret == -EINPROGRESS) {
		ans->posted = true;
		peer_ulp_posted(c, u, ret);
		mrcore_nfs_rpc_release(&u->rpc);
		return ret;
	}
	if (ret)
		return ret;
	ans->posted = true;
	return peer_ulp_wait(c, u);
}

static noinline_for_stack int
peer_nfs_write(struct peer_conn *c, const struct peer_call *pc,
	       const struct mrcore_peer_req *q, struct mrcore_peer_req *a,
	       struct peer_answer *ans)
{
	struct mrcore_e2e_buf sink;
	struct peer_ulp *u;
	int ret;

	ret = peer_nfs_start(c, pc, q, &u);
	if (ret)
		return ret;
	ret = peer_ulp_buf(&sink, q->len, MRCORE_E2E_POISONED);
	if (ret)
		goto free_u;
	mrcore_nfs_rpc_init(&u->rpc, c->nfs_svc);
	ret = mrcore_nfs_svc_pull(&u->rpc, &u->chunk, sink.pages, sink.offset,
				  peer_nfs_done);
	ret = peer_ulp_posted(c, u, ret);
	if (ret == -EINPROGRESS)
		mrcore_nfs_rpc_release(&u->rpc);
	if (!ret) {
		peer_ulp_verify(&sink, q->seed, a);
		ret = peer_nfs_reply(c, u, ans, q, a);
	}
	mrcore_e2e_buf_free(&sink);
free_u:
	kfree(u);
	return ret;
}

static noinline_for_stack int
peer_nfs_read(struct peer_conn *c, const struct peer_call *pc,
	      const struct mrcore_peer_req *q, struct mrcore_peer_req *a,
	      struct peer_answer *ans)
{
	struct mrcore_e2e_buf src, rsrc;
	struct peer_ulp *u;
	int ret;

	ret = peer_nfs_start(c, pc, q, &u);
	if (ret)
		return ret;
	ret = peer_chunk(pc, q->id, q->ops, &u->reply);
	if (!ret)
		ret = peer_ulp_buf(&src, q->len, q->seed);
	if (ret)
		goto free_u;
	ret = peer_ulp_buf(&rsrc, q->start, q->seed + 1);
	if (ret)
		goto free_src;
	mrcore_nfs_rpc_init(&u->rpc, c->nfs_svc);
	ret = mrcore_nfs_svc_push(&u->rpc, &u->chunk, src.pages, src.offset,
				  q->len, &u->used);
	if (!ret)
		ret = mrcore_nfs_svc_push(&u->rpc, &u->reply, rsrc.pages,
					  rsrc.offset, q->start, &u->used);
	if (ret)
		mrcore_nfs_rpc_release(&u->rpc);
	else
		ret = peer_nfs_reply(c, u, ans, q, a);
	mrcore_e2e_buf_free(&rsrc);
free_src:
	mrcore_e2e_buf_free(&src);
free_u:
	kfree(u);
	return ret;
}

static noinline_for_stack int
peer_iser(struct peer_conn *c, const struct mrcore_peer_req *q,
	  struct mrcore_peer_req *a, struct peer_answer *ans)
{
	bool scsi_read = q->flags & MRCORE_PEER_F_READ;
	struct mrcore_e2e_buf buf;
	struct peer_ulp *u;
	int ret;

	if (!c->iser_target) {
		struct mrcore_iser_target *t;

		/* A transfer not aligned on a page spans one page more. */
		t = mrcore_iser_target_create(c->side.qp,
					      c->side.cm_id->port_num, 1,
					      MRCORE_PEER_ISER_MAX_BYTES /
					      PAGE_SIZE + 1);
		if (IS_ERR(t))
			return PTR_ERR(t);
		c->iser_target = t;
	}
	if (q->len > MRCORE_PEER_ISER_MAX_BYTES)
		return -EINVAL;
	u = peer_ulp_alloc();
	if (!u)
		return -ENOMEM;
	ret = peer_ulp_buf(&buf, q->len,
			   scsi_read ? q->seed : MRCORE_E2E_POISONED);
	if (ret)
		goto free_u;
	mrcore_iser_cmd_init(&u->cmd, c->iser_target, q->key, q->addr);
	if (scsi_read) {
		ret = mrcore_iser_cmd_data_in(&u->cmd, buf.sg, buf.nents);
	} else {
		ret = mrcore_iser_cmd_data_out(&u->cmd, buf.sg, buf.nents,
					       peer_iser_done);
		ret = peer_ulp_posted(c, u, ret);
		if (ret == -EINPROGRESS)
			mrcore_iser_cmd_release(&u->cmd);
		if (!ret)
			peer_ulp_verify(&buf, q->seed, a);
	}
	if (ret)
		goto free;
	peer_answer_prep(c, ans, q, a, 0);
	ret = mrcore_iser_cmd_response(&u->cmd, &ans->wr,
				       q->flags & MRCORE_PEER_F_REMOTE_INV,
				       peer_iser_done);
	ans->posted = !ret || ret == -EINPROGRESS;
	ret = peer_ulp_posted(c, u, ret);
	if (ret == -EINPROGRESS)
		mrcore_iser_cmd_release(&u->cmd);
free:
	mrcore_e2e_buf_free(&buf);
free_u:
	kfree(u);
	return ret;
}

static int peer_serve(struct peer_conn *c, const struct peer_call *pc,
		      const struct mrcore_peer_req *q,
		      struct mrcore_peer_req *a, struct peer_answer *ans)
{
	switch (q->op) {
	case MRCORE_PEER_HELLO:
		a->id = c->id;
		return 0;
	case MRCORE_PEER_EXPOSE:
		return peer_expose(c, q, a);
	case MRCORE_PEER_FILL:
		return peer_fill(q);
	case MRCORE_PEER_VERIFY:
		return peer_verify(q, a);
	case MRCORE_PEER_INVALIDATE:
		return peer_invalidate(c, q);
	case MRCORE_PEER_REMAP:
		return peer_remap(c, q, a);
	case MRCORE_PEER_FREE:
		return peer_free_req(c, q);
	case MRCORE_PEER_ACCESS:
		return peer_access(q, a);
	case MRCORE_PEER_NET:
		return peer_net(q);
	case MRCORE_PEER_NFS_WRITE:
		return peer_nfs_write(c, pc, q, a, ans);
	case MRCORE_PEER_NFS_READ:
		return peer_nfs_read(c, pc, q, a, ans);
	case MRCORE_PEER_ISER:
		return peer_iser(c, q, a, ans);
	default:
		return -EOPNOTSUPP;
	}
}

static void peer_req_work(struct work_struct *work)
{
	struct peer_rx *rx = container_of(work, struct peer_rx, work);
	struct peer_conn *c = rx->c;
	struct ib_device *dev = c->side.device;
	struct mrcore_peer_req q = {}, a = {};
	struct mrcore_peer_call *call;
	struct peer_answer ans;
	int ret;

	/*
	 * The call is copied out, the RECV posted again before the answer:
	 * the next request may follow it.
	 */
	call = kmalloc(sizeof(*call), GFP_KERNEL);
	if (!call)
		return;
	ib_dma_sync_single_for_cpu(dev, rx->dma, sizeof(*call),
				   DMA_FROM_DEVICE);
	memcpy(call, rx->msg, sizeof(*call));
	ret = rx->byte_len < sizeof(call->msg) ? -EPROTO :
	      mrcore_peer_unpack(&q, &call->msg);
	ib_dma_sync_single_for_device(dev, rx->dma, sizeof(*call),
				      DMA_FROM_DEVICE);
	if (peer_post_recv(rx))
		goto out;	/* the QP is dead: the connection goes */
	ans.posted = false;
	if (!ret) {
		struct peer_call pc = { call, rx->byte_len };

		ret = peer_serve(c, &pc, &q, &a, &ans);
	}
	if (ans.posted) {
		if (ret)
			pr_err("mrcore_2host_peer: connection %u: reply of request %u (op %u): %d\n",
			       c->id, q.tag, q.op, ret);
		goto out;
	}
	peer_answer_prep(c, &ans, &q, &a, ret);
	peer_post(c, &ans.wr, &ans.w);
out:
	kfree(call);
}

static void peer_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct peer_rx *rx = container_of(wc->wr_cqe, struct peer_rx, cqe);

	/* A flushed RECV: the connection is going away. */
	if (wc->status == IB_WC_SUCCESS) {
		rx->byte_len = wc->byte_len;
		queue_work(peer_wq, &rx->work);
	}
}

/* ---- connections ---- */

static void peer_conn_release(struct peer_conn *c)
{
	struct ib_device *dev = c->side.device;
	struct peer_buf *b;
	unsigned long i;

	if (c->side.qp)
		ib_drain_qp(c->side.qp);
	/* A RECV that completed before the drain queued its work. */
	for (i = 0; i < PEER_RQ_DEPTH; i++)
		cancel_work_sync(&c->rx[i].work);
	xa_for_each(&peer_bufs, i, b)
		if (b->owner == c)
			peer_buf_free(c, b);
	if (c->pool)
		rdma_io_pool_destroy(c->pool);
	mrcore_nfs_svc_destroy(c->nfs_svc);
	mrcore_iser_target_destroy(c->iser_target);
	if (c->side.qp)
		rdma_destroy_qp(c->side.cm_id);
	if (c->side.cq)
		ib_free_cq(c->side.cq);
	for (i = 0; i < PEER_RQ_DEPTH; i++) {
		if (c->rx[i].dma)
			ib_dma_unmap_single(dev, c->rx[i].dma,
					    sizeof(*c->rx[i].msg),
					    DMA_FROM_DEVICE);
		kfree(c->rx[i].msg);
	}
	if (c->resp_dma)
		ib_dma_unmap_single(dev, c->resp_dma, sizeof(*c->resp),
				    DMA_TO_DEVICE);
	kfree(c->resp);
}

/* Off the request queue: see peer_free_work(). */
static void peer_destroy_work(struct work_struct *work)
{
	struct peer_conn *c = container_of(work, struct peer_conn, free_work);

	rdma_destroy_id(c->side.cm_id);
	kfree(c);
}

static void peer_free_work(struct work_struct *work)
{
	struct peer_conn *c = container_of(work, struct peer_conn, free_work);

	mutex_lock(&peer_lock);
	list_del(&c->node);
	mutex_unlock(&peer_lock);
	peer_conn_release(c);
	/*
	 * rdma_destroy_id() waits until rdma_cm and the iWARP CM are done
	 * with the id; on siw that took a minute after a TERMINATE (its CM
	 * work runs one item at a time on the one vCPU).  The requests of
	 * the other connections must not wait behind it.
	 */
	INIT_WORK(&c->free_work, peer_destroy_work);
	queue_work(peer_destroy_wq, &c->free_work);
}

static void peer_conn_gone(struct peer_conn *c)
{
	mutex_lock(&peer_lock);
	if (!c->gone) {
		c->gone = true;
		queue_work(peer_wq, &c->free_work);
	}
	mutex_unlock(&peer_lock);
}

static int peer_accept(struct peer_listener *l, struct rdma_cm_id *id,
		       struct rdma_cm_event *ev)
{
	struct ib_device *dev = id->device;
	struct ib_qp_init_attr attr = {};
	struct rdma_conn_param param = {};
	struct peer_conn *c;
	int ret = -ENOMEM, i;

	if (!dev || dev != l->pd->device)
		return -ENODEV;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	INIT_WORK(&c->free_work, peer_free_work);
	for (i = 0; i < PEER_RQ_DEPTH; i++) {
		c->rx[i].c = c;
		c->rx[i].cqe.done = peer_recv_done;
		INIT_WORK(&c->rx[i].work, peer_req_work);
	}
	c->side.cm_id = id;
	c->side.device = dev;
	c->side.pd = l->pd;
	c->side.pd_shared = true;
	atomic_set(&c->side.qp_events, 0);
	c->resp = kzalloc(sizeof(*c->resp), GFP_KERNEL);
	if (!c->resp)
		goto err;
	for (i = 0; i < PEER_RQ_DEPTH; i++) {
		struct peer_rx *rx = &c->rx[i];

		rx->msg = kzalloc(sizeof(*rx->msg), GFP_KERNEL);
		if (!rx->msg)
			goto err;
		rx->dma = ib_dma_map_single(dev, rx->msg, sizeof(*rx->msg),
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, rx->dma)) {
			rx->dma = 0;
			goto err;
		}
	}
	c->resp_dma = ib_dma_map_single(dev, c->resp, sizeof(*c->resp),
					DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, c->resp_dma)) {
		c->resp_dma = 0;
		goto err;
	}
	c->side.cq = ib_alloc_cq(dev, c, min_t(u32, PEER_SQ_DEPTH +
					       PEER_RQ_DEPTH + 2,
					       dev->attrs.max_cqe),
				 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->side.cq)) {
		ret = PTR_ERR(c->side.cq);
		c->side.cq = NULL;
		goto err;
	}
	attr.send_cq = c->side.cq;
	attr.recv_cq = c->side.cq;
	attr.cap.max_send_wr = min_t(u32, PEER_SQ_DEPTH, dev->attrs.max_qp_wr);
	attr.cap.max_recv_wr = PEER_RQ_DEPTH;
	attr.cap.max_send_sge = min_t(u32, dev->attrs.max_send_sge, 4);
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, l->pd, &attr);
	if (ret)
		goto err;
	c->side.qp = id->qp;
	for (i = 0; i < PEER_RQ_DEPTH; i++) {
		ret = peer_post_recv(&c->rx[i]);
		if (ret)
			goto err;
	}
	param.responder_resources = min_t(int, dev->attrs.max_qp_rd_atom,
					  PEER_RD_ATOM);
	param.initiator_depth = min_t(int, dev->attrs.max_qp_init_rd_atom,
				      PEER_RD_ATOM);
	param.retry_count = MRCORE_PEER_RETRY_COUNT;
	param.rnr_retry_count = 7;
	mutex_lock(&peer_lock);
	c->id = ++peer_conn_seq;
	list_add_tail(&c->node, &peer_conns);
	mutex_unlock(&peer_lock);
	id->context = c;
	/* rdma_cm applies it when the QP moves to RTS, in rdma_accept(). */
	ret = l->driver_id == RDMA_DRIVER_RXE ?
	      rdma_set_ack_timeout(id, MRCORE_PEER_ACK_TIMEOUT) : 0;
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret) {
		mutex_lock(&peer_lock);
		list_del(&c->node);
		mutex_unlock(&peer_lock);
		id->context = l;
		goto err;
	}
	return 0;

err:
	peer_conn_release(c);
	kfree(c);
	return ret;
}

static struct peer_listener *peer_listener_of(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(peer_listeners); i++)
		if (peer_listeners[i].id == id)
			return &peer_listeners[i];
	return NULL;
}

static int peer_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct peer_conn *c;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* A new id: its context is still the listener's. */
		int ret = peer_accept(id->context, id, ev);

		if (ret)
			pr_err("mrcore_2host_peer: refusing a connection: %d\n",
			       ret);
		/* Non-zero: rdma_cm rejects and destroys the new id. */
		return ret;
	}
	if (peer_listener_of(id))
		return 0;
	c = id->context;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pr_err("mrcore_2host_peer: device removal under connection %u\n",
		       c->id);
		fallthrough;
	default:
		/*
		 * Disconnected, or the connection never came up or broke:
		 * those are named (an initiator's QP in error with nothing
		 * of its own to say may have been disconnected from here).
		 */
		if (ev->event != RDMA_CM_EVENT_DISCONNECTED)
			pr_info("mrcore_2host_peer: connection %u: %s (status %d)\n",
				c->id, rdma_event_msg(ev->event), ev->status);
		peer_conn_gone(c);
		return 0;
	}
}

static int peer_listen(struct peer_listener *l)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int ret;

	sin.sin_port = htons(l->port);
	if (!in4_pton(*l->addr, -1, (u8 *)&sin.sin_addr.s_addr, '\0', NULL))
		return -EINVAL;
	l->id = rdma_create_id(&init_net, peer_cm_handler, l, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(l->id)) {
		ret = PTR_ERR(l->id);
		l->id = NULL;
		return ret;
	}
	ret = rdma_bind_addr(l->id, (struct sockaddr *)&sin);
	if (ret)
		return ret;
	if (!l->id->device || l->id->device->ops.driver_id != l->driver_id) {
		pr_err("mrcore_2host_peer: %s bound to %s, not a %s device\n",
		       *l->addr, l->id->device ? dev_name(&l->id->device->dev) :
						"no device", l->name);
		return -ENODEV;
	}
	l->pd = ib_alloc_pd(l->id->device, 0);
	if (IS_ERR(l->pd)) {
		ret = PTR_ERR(l->pd);
		l->pd = NULL;
		return ret;
	}
	ret = rdma_listen(l->id, 16);
	if (ret)
		return ret;
	pr_info("mrcore_2host_peer: listening on %s %s:%u\n",
		dev_name(&l->id->device->dev), *l->addr, l->port);
	return 0;
}

static void peer_stop(void)
{
	struct peer_conn *c;
	int i;

	/* No new connections, then every connection goes. */
	for (i = 0; i < ARRAY_SIZE(peer_listeners); i++) {
		if (peer_listeners[i].id)
			rdma_destroy_id(peer_listeners[i].id);
		peer_listeners[i].id = NULL;
	}
	mutex_lock(&peer_lock);
	list_for_each_entry(c, &peer_conns, node) {
		if (!c->gone) {
			c->gone = true;
			rdma_disconnect(c->side.cm_id);
			queue_work(peer_wq, &c->free_work);
		}
	}
	mutex_unlock(&peer_lock);
	flush_workqueue(peer_wq);
	flush_workqueue(peer_destroy_wq);
	for (i = 0; i < ARRAY_SIZE(peer_listeners); i++) {
		if (peer_listeners[i].pd)
			ib_dealloc_pd(peer_listeners[i].pd);
		peer_listeners[i].pd = NULL;
	}
}

static int __init peer_init(void)
{
	int i, ret;

	peer_wq = alloc_ordered_workqueue("mrcore_2host_peer", 0);
	if (!peer_wq)
		return -ENOMEM;
	peer_destroy_wq = alloc_workqueue("mrcore_2host_peer_destroy",
					  WQ_UNBOUND, 0);
	if (!peer_destroy_wq) {
		destroy_workqueue(peer_wq);
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(peer_listeners); i++) {
		ret = peer_listen(&peer_listeners[i]);
		if (ret) {
			pr_err("mrcore_2host_peer: listening on %s %s:%u: %d\n",
			       peer_listeners[i].name, *peer_listeners[i].addr,
			       peer_listeners[i].port, ret);
			peer_stop();
			destroy_workqueue(peer_wq);
			destroy_workqueue(peer_destroy_wq);
			return ret;
		}
	}
	return 0;
}

static void __exit peer_exit(void)
{
	cancel_delayed_work_sync(&peer_poweroff);
	peer_stop();
	destroy_workqueue(peer_wq);
	destroy_workqueue(peer_destroy_wq);
}

module_init(peer_init);
module_exit(peer_exit);

MODULE_DESCRIPTION("rdma-mrcore make kunit-2host: the peer guest's server");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
