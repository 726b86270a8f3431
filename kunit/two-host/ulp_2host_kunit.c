// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ULP adapters across two kernels (make kunit-2host):
 * mrcore_ulp_rxe_2host and mrcore_ulp_siw_2host.
 *
 * The NFS-style client (mrcore_nfs.ko) and the iSER-style initiator
 * (mrcore_iser.ko) run in this guest, on a connection to the peer guest,
 * whose server and target halves of the same adapters answer them
 * (MRCORE_PEER_NFS_WRITE, MRCORE_PEER_NFS_READ and MRCORE_PEER_ISER of
 * peer_2host.h): the call is a SEND chained behind the client's
 * registrations, the reply the server's SEND or SEND_WITH_INV behind the
 * WRITEs it chains before it, and the client retires its keys on the reply
 * as a ULP does.
 *
 * Every moved byte is checked where it landed against a pattern that
 * depends on its position (mrcore_e2e_pattern()), with the poison and
 * guard bytes around it: what the server pulled, by the peer; what it
 * pushed, here.  The request must complete with every key dead, each
 * killed once (the server's SEND_WITH_INV, or the client's LOCAL_INV: the
 * device's invalidate_remote and invalidate_local counters), no MR
 * recycled and no DMA mapping left.  Then the attacker: the peer, on its
 * end of the same connection, uses a key the client advertised (a READ of
 * a read chunk's, a WRITE into a write or reply chunk's or a SCSI READ's
 * STag).  It must fail, and the client's memory keep its bytes.  How the devices refuse
 * (as e2e_kunit.c measured): rxe with a remote access error; siw with a
 * TERMINATE from this end, which flushes the peer's READ and moves this
 * end's QP to the error state, while the peer's WRITE (never acknowledged
 * on iWARP) may complete first.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>
#include <rdma/mrcore_iser.h>
#include <rdma/mrcore_nfs.h>

#include "client_2host.h"
#include "e2e_suite.h"

#define ULP_ATTACK_BYTES	4096
#define ULP_ATTACK_SEED		0x7777
#define ULP_QP_ERR_MS		5000
/*
 * The initiator's MRs: siw registers 256 pages at most (-E2BIG beyond),
 * so the 1 MiB commands are page-aligned, the unaligned ones shorter.
 */
#define ULP_ISER_PAGES		(MRCORE_PEER_ISER_MAX_BYTES / PAGE_SIZE)

/**
 * struct ulp_wait - a completion entry that keeps the whole completion
 * @cqe: the entry.
 * @done: completed by the CQ callback.
 * @wc: a copy of the work completion (flags, invalidated key).
 */
struct ulp_wait {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

/**
 * struct ulp_key - a key the client advertised
 * @handle: the rkey or STag.
 * @addr: its address.
 * @len: bytes behind it.
 * @writable: the server was to WRITE through it (else READ).
 */
struct ulp_key {
	u32 handle;
	u64 addr;
	u32 len;
	bool writable;
};

/**
 * struct ulp_2host - the client end of one connection to the peer
 * @link: the connection; its answer buffer receives the replies.
 * @ctl: a second connection, which asks the peer for the attack.
 * @dev: @link's device.
 * @call: the call's buffer (a request and its segments).
 * @call_dma: its DMA address.
 * @call_sge: the SGE of the call's SEND.
 * @resp_sge: the SGE of the reply's RECV.
 * @send_wr: the call's SEND, chained behind the registrations.
 * @sent: its completion.
 * @reply: the reply's RECV completion.
 * @done: the adapter's request or task is done.
 * @status: its status.
 * @clnt: the NFS-style client.
 * @req: its request.
 * @conn: the iSER-style initiator.
 * @task: its task.
 * @keys: the keys the last call advertised, in segment order.
 * @nr_keys: entries of @keys.
 */
struct ulp_2host {
	struct peer_link *link, *ctl;
	struct ib_device *dev;
	struct mrcore_peer_call *call;
	u64 call_dma;
	struct ib_sge call_sge, resp_sge;
	struct ib_send_wr send_wr;
	struct ulp_wait sent, reply;
	struct completion done;
	int status;
	struct mrcore_nfs_clnt *clnt;
	struct mrcore_nfs_req req;
	struct mrcore_iser_conn *conn;
	struct mrcore_iser_task task;
	struct ulp_key keys[MRCORE_PEER_CALL_SEGS];
	unsigned int nr_keys;
};

static void ulp_wait_cb(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_wait *w = container_of(wc->wr_cqe, struct ulp_wait, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static void ulp_wait_init(struct ulp_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->cqe.done = ulp_wait_cb;
	init_completion(&w->done);
	w->wc.status = IB_WC_GENERAL_ERR;
}

/*
 * Wait for @done; on a timeout the QP goes to the error state, which
 * flushes what is posted, so nothing completes into freed memory later.
 */
static int ulp_wait(struct ulp_2host *u, struct completion *done)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (wait_for_completion_timeout(done,
					msecs_to_jiffies(PEER_CALL_TIMEOUT_MS)))
		return 0;
	pr_err("mrcore_2host: no completion after %u ms on %s; moving the QP to the error state\n",
	       PEER_CALL_TIMEOUT_MS, dev_name(&u->dev->dev));
	ib_modify_qp(u->link->side->qp, &attr, IB_QP_STATE);
	wait_for_completion(done);
	return -ETIMEDOUT;
}

static int ulp_wait_wc(struct ulp_2host *u, struct ulp_wait *w)
{
	int ret = ulp_wait(u, &w->done);

	return ret ? ret : w->wc.status == IB_WC_SUCCESS ? 0 : -EIO;
}

static void ulp_nfs_done(struct mrcore_nfs_req *req, int status)
{
	struct ulp_2host *u = container_of(req, struct ulp_2host, req);

	u->status = status;
	complete(&u->done);
}

static void ulp_iser_done(struct mrcore_iser_task *task, int status)
{
	struct ulp_2host *u = container_of(task, struct ulp_2host, task);

	u->status = status;
	complete(&u->done);
}

/* Adapters first (their MRs live on the link's PD), then the buffer. */
static void ulp_release(void *data)
{
	struct ulp_2host *u = data;

	mrcore_nfs_clnt_destroy(u->clnt);
	mrcore_iser_conn_destroy(u->conn);
	ib_dma_unmap_single(u->dev, u->call_dma, sizeof(*u->call),
			    DMA_TO_DEVICE);
	kfree(u->call);
}

/*
 * A connection to the peer with an NFS-style client (@iser false) or an
 * iSER-style initiator on it, and a control connection; all released with
 * the test, the adapter before its connection.
 */
static struct ulp_2host *ulp_open(struct kunit *test, bool iser)
{
	const struct mrcore_e2e_target *t = test->priv;
	struct ulp_2host *u;
	struct ib_qp *qp;

	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	u->ctl = peer_link(test, t);
	u->link = peer_link(test, t);
	u->dev = u->link->side->device;
	qp = u->link->side->qp;
	u->call = kzalloc(sizeof(*u->call), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u->call);
	u->call_dma = ib_dma_map_single(u->dev, u->call, sizeof(*u->call),
					DMA_TO_DEVICE);
	if (ib_dma_mapping_error(u->dev, u->call_dma)) {
		kfree(u->call);
		KUNIT_FAIL_AND_ABORT(test, "mapping the call buffer failed");
	}
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, ulp_release,
							   u));
	if (iser) {
		u->conn = mrcore_iser_conn_create(qp, 1, ULP_ISER_PAGES);
		if (IS_ERR(u->conn)) {
			long err = PTR_ERR(u->conn);

			u->conn = NULL;
			KUNIT_FAIL_AND_ABORT(test, "mrcore_iser_conn_create(): %ld",
					     err);
		}
	} else {
		u->clnt = mrcore_nfs_clnt_create(qp, MRCORE_NFS_MAX_SEGS,
						 MRCORE_PEER_NFS_SEG_PAGES);
		if (IS_ERR(u->clnt)) {
			long err = PTR_ERR(u->clnt);

			u->clnt = NULL;
			KUNIT_FAIL_AND_ABORT(test, "mrcore_nfs_clnt_create(): %ld",
					     err);
		}
	}
	return u;
}

/* A new call: the completions reset, no key yet. */
static void ulp_begin(struct ulp_2host *u)
{
	ulp_wait_init(&u->sent);
	ulp_wait_init(&u->reply);
	init_completion(&u->done);
	u->status = -EINPROGRESS;
	u->nr_keys = 0;
}

/* The chunk's segments into the call and @u->keys. */
static void ulp_add_chunk(struct ulp_2host *u,
			  const struct mrcore_nfs_chunk *c, bool writable)
{
	unsigned int i;

	for (i = 0; i < c->nsegs && u->nr_keys < MRCORE_PEER_CALL_SEGS; i++) {
		struct mrcore_peer_seg *s = &u->call->segs[u->nr_keys];

		s->handle = cpu_to_le32(c->segs[i].handle);
		s->length = cpu_to_le32(c->segs[i].length);
		s->offset = cpu_to_le64(c->segs[i].offset);
		u->keys[u->nr_keys++] = (struct ulp_key){
			.handle = c->segs[i].handle,
			.addr = c->segs[i].offset,
			.len = c->segs[i].length,
			.writable = writable,
		};
	}
}

/*
 * Encode request @r (and the segments of @u->keys, @nsegs of them) as the
 * call, post the RECV for the reply and set up the call's SEND; the
 * adapter posts it.
 */
static int ulp_prepare(struct ulp_2host *u, struct mrcore_peer_req *r,
		       unsigned int nsegs)
{
	struct peer_link *l = u->link;
	struct ib_recv_wr rwr = {
		.wr_cqe = &u->reply.cqe,
		.sg_list = &u->resp_sge,
		.num_sge = 1,
	};

	r->tag = ++l->tag;
	ib_dma_sync_single_for_cpu(u->dev, u->call_dma, sizeof(*u->call),
				   DMA_TO_DEVICE);
	mrcore_peer_pack(&u->call->msg, r);
	ib_dma_sync_single_for_device(u->dev, u->call_dma, sizeof(*u->call),
				      DMA_TO_DEVICE);
	u->call_sge.addr = u->call_dma;
	u->call_sge.length = offsetof(struct mrcore_peer_call, segs[nsegs]);
	u->call_sge.lkey = l->side->pd->local_dma_lkey;
	u->send_wr.opcode = IB_WR_SEND;
	u->send_wr.sg_list = &u->call_sge;
	u->send_wr.num_sge = 1;
	u->send_wr.send_flags = IB_SEND_SIGNALED;
	u->send_wr.wr_cqe = &u->sent.cqe;
	u->send_wr.next = NULL;

	u->resp_sge.addr = l->resp_dma;
	u->resp_sge.length = sizeof(*l->resp);
	u->resp_sge.lkey = l->side->pd->local_dma_lkey;
	return ib_post_recv(l->side->qp, &rwr, NULL);
}

/*
 * After the adapter's post of the call returned @ret: the call's SEND and
 * the reply waited for.  On a failure the QP goes to the error state and
 * the RECV for the reply is flushed before this returns.
 */
static int ulp_sent(struct ulp_2host *u, int ret)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (!ret)
		ret = ulp_wait_wc(u, &u->sent);
	if (!ret)
		ret = ulp_wait_wc(u, &u->reply);
	if (ret) {
		ib_modify_qp(u->link->side->qp, &attr, IB_QP_STATE);
		wait_for_completion(&u->reply.done);
	}
	return ret;
}

/* The reply's message, if it answers @r: its status and fields in @a. */
static int ulp_answer(struct ulp_2host *u, const struct mrcore_peer_req *r,
		      struct mrcore_peer_req *a)
{
	struct peer_link *l = u->link;
	int ret;

	ib_dma_sync_single_for_cpu(u->dev, l->resp_dma, sizeof(*l->resp),
				   DMA_FROM_DEVICE);
	ret = mrcore_peer_unpack(a, l->resp);
	ib_dma_sync_single_for_device(u->dev, l->resp_dma, sizeof(*l->resp),
				      DMA_FROM_DEVICE);
	if (ret || a->op != r->op || a->tag != r->tag)
		return -EPROTO;
	return -(int)a->status;
}

/*
 * The end of an exchange whose send returned @ret: the adapter's completion,
 * then the peer's answer to @r in @a.
 */
static int ulp_finish(struct ulp_2host *u, const struct mrcore_peer_req *r,
		      struct mrcore_peer_req *a, int ret)
{
	int err = ulp_wait(u, &u->done);

	if (!ret)
		ret = ulp_answer(u, r, a);
	if (!ret)
		ret = err ? err : u->status;
	return ret;
}

/**
 * struct ulp_counters - the counters of this kernel's device around a call
 * @inv_local: keys killed by a LOCAL_INV of the core's.
 * @inv_remote: keys the peer killed with SEND_WITH_INV.
 * @recycled: MRs whose device MR was replaced.
 * @maps: the core's DMA mappings live.
 */
struct ulp_counters {
	u64 inv_local, inv_remote, recycled;
	long maps;
};

static void ulp_counters(struct kunit *test, struct ulp_2host *u,
			 struct ulp_counters *c)
{
	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(u->dev,
							    "invalidate_local",
							    &c->inv_local));
	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(u->dev,
							    "invalidate_remote",
							    &c->inv_remote));
	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(u->dev,
							    "mr_recycled",
							    &c->recycled));
	c->maps = rdma_mrcore_dma_maps_live();
}

/*
 * The call is done: the reply was a SEND_WITH_INV of the first key if
 * @remote_inv, else a SEND.  Every key was killed once, by the peer or by this kernel; nothing was
 * recycled; no DMA mapping is left.
 */
static void ulp_expect_retired(struct kunit *test, struct ulp_2host *u,
			       const struct ulp_counters *c0, bool remote_inv)
{
	const struct ib_wc *wc = &u->reply.wc;
	bool inv = wc->wc_flags & IB_WC_WITH_INVALIDATE;
	struct ulp_counters c;

	ulp_counters(test, u, &c);
	KUNIT_EXPECT_EQ_MSG(test, inv, remote_inv,
			    "the reply %s a SEND_WITH_INV",
			    inv ? "was" : "was not");
	if (inv && remote_inv)
		KUNIT_EXPECT_EQ_MSG(test, wc->ex.invalidate_rkey,
				    u->keys[0].handle,
				    "the reply invalidated another key than the first");
	kunit_info(test, "%s: %u keys: %llu invalidated by the peer, %llu by this kernel, %llu MRs recycled, %ld DMA mappings left\n",
		   dev_name(&u->dev->dev), u->nr_keys,
		   c.inv_remote - c0->inv_remote, c.inv_local - c0->inv_local,
		   c.recycled - c0->recycled, c.maps - c0->maps);
	KUNIT_EXPECT_EQ(test, c.inv_remote - c0->inv_remote,
			(u64)(remote_inv ? 1 : 0));
	KUNIT_EXPECT_EQ(test, c.inv_local - c0->inv_local,
			(u64)(u->nr_keys - (remote_inv ? 1 : 0)));
	KUNIT_EXPECT_EQ(test, c.recycled, c0->recycled);
	KUNIT_EXPECT_EQ_MSG(test, c.maps, c0->maps,
			    "a DMA mapping outlived the call");
}

/* The peer's answer says what it checked of its memory. */
static void ulp_expect_peer_data(struct kunit *test,
				 const struct mrcore_peer_req *a,
				 const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, a->value, 0ULL,
			    "%s (on the peer): %llu wrong bytes; the first at %lld: 0x%02x, want 0x%02x",
			    what, a->value, (s64)a->addr, (a->key >> 8) & 0xff,
			    a->key & 0xff);
}

/*
 * The peer uses @k after the call, from its end of the same connection:
 * refused, and the client's memory (checked by the caller) unchanged.
 */
static void ulp_expect_dead(struct kunit *test, struct ulp_2host *u,
			    const struct ulp_key *k)
{
	bool read = !k->writable, siw = rdma_protocol_iwarp(u->dev, 1);
	bool peer_qp_failed = false;
	int status;

	status = peer_access(test, u->ctl, u->link->conn, read, k->addr,
			     k->handle, min_t(u32, k->len, ULP_ATTACK_BYTES),
			     ULP_ATTACK_SEED, &peer_qp_failed, NULL);
	kunit_info(test, "the peer's %s with the retired key %#x at %#llx: %d (%s), its QP %s\n",
		   read ? "READ" : "WRITE", k->handle, k->addr, status,
		   status >= 0 ? ib_wc_status_msg(status) : "errno",
		   peer_qp_failed ? "in error" : "alive");
	KUNIT_EXPECT_GE(test, status, 0);
	if (!siw) {
		KUNIT_EXPECT_EQ(test, status, IB_WC_REM_ACCESS_ERR);
		KUNIT_EXPECT_TRUE(test, peer_qp_failed);
	} else if (read) {
		/* siw flushes the READ when this end's TERMINATE arrives. */
		KUNIT_EXPECT_NE(test, status, IB_WC_SUCCESS);
		KUNIT_EXPECT_TRUE(test, peer_qp_failed);
	} else {
		KUNIT_EXPECT_TRUE_MSG(test,
				      mrcore_e2e_qp_failed(u->link->side,
							   ULP_QP_ERR_MS),
				      "this end took the WRITE (its QP is in state %d)",
				      mrcore_e2e_qp_state(u->link->side));
	}
}

static void ulp_buf_release(void *buf)
{
	mrcore_e2e_buf_free(buf);
}

/* @len bytes at @offset of a page, poisoned, freed with the test. */
static struct mrcore_e2e_buf *ulp_buf(struct kunit *test, size_t len,
				      unsigned int offset)
{
	struct mrcore_e2e_buf *buf;

	buf = kunit_kzalloc(test, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(buf, len, offset));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   ulp_buf_release,
							   buf));
	mrcore_e2e_buf_poison(buf);
	return buf;
}

/* ---- NFS-style ---- */

/**
 * struct ulp_nfs_case - one NFS-style RPC across the wire
 * @desc: test description.
 * @read_rpc: a READ RPC (the server pushes a write chunk and a reply
 *	chunk), else a WRITE RPC (it pulls a read chunk).
 * @len: bytes of the data chunk.
 * @offset: of the client's data in its first page.
 * @remote_inv: the server replies with SEND_WITH_INV.
 * @probe_remote: the attacker uses the key the server invalidated, else
 *	the client's last, which it invalidated itself.
 */
struct ulp_nfs_case {
	const char *desc;
	bool read_rpc;
	u32 len;
	u32 offset;
	bool remote_inv;
	bool probe_remote;
};

static const struct ulp_nfs_case ulp_nfs_cases[] = {
	{ "NFS WRITE 1 MiB pulled, SEND_WITH_INV: the invalidated segment is dead",
	  false, SZ_1M, 0, true, true },
	{ "NFS WRITE 1 MiB + 1 at 200 pulled, SEND_WITH_INV: a local one is dead",
	  false, SZ_1M + 1, 200, true, false },
	{ "NFS WRITE 4 KiB pulled, SEND: the segment is dead",
	  false, SZ_4K, 0, false, false },
	{ "NFS READ 1 MiB + reply pushed, SEND_WITH_INV: the invalidated one is dead",
	  true, SZ_1M, 0, true, true },
	{ "NFS READ 300001 at 3000 + reply pushed, SEND_WITH_INV: the reply chunk is dead",
	  true, 300001, 3000, true, false },
	{ "NFS READ 1 MiB + reply pushed, SEND: the reply chunk is dead",
	  true, SZ_1M, 0, false, false },
};

KUNIT_ARRAY_PARAM_DESC(ulp_nfs, ulp_nfs_cases, desc);

#define ULP_NFS_SEED		0x51001		/* the reply body's: + 1 */
#define ULP_NFS_REPLY_BYTES	(8 * 1024 + 17)

/*
 * One RPC: the client registers its chunks and sends the call; the peer
 * serves it; the client retires the keys on the reply.  Returns the first
 * error; @a: the peer's answer.
 */
static int ulp_nfs_rpc(struct ulp_2host *u, const struct ulp_nfs_case *c,
		       struct mrcore_e2e_buf *data,
		       struct mrcore_e2e_buf *rbody, struct mrcore_peer_req *a)
{
	struct mrcore_peer_req r = {
		.op = c->read_rpc ? MRCORE_PEER_NFS_READ : MRCORE_PEER_NFS_WRITE,
		.flags = c->remote_inv ? MRCORE_PEER_F_REMOTE_INV : 0,
		.len = data->len,
		.seed = ULP_NFS_SEED,
	};
	struct mrcore_nfs_chunk chunk;
	int ret;

	ulp_begin(u);
	mrcore_nfs_req_init(&u->req, u->clnt, &u->send_wr, ulp_nfs_done);
	ret = mrcore_nfs_req_register(&u->req, c->read_rpc ?
				      MRCORE_NFS_WRITE_CHUNK :
				      MRCORE_NFS_READ_CHUNK,
				      data->pages, data->offset, data->len,
				      &chunk);
	if (!ret) {
		ulp_add_chunk(u, &chunk, c->read_rpc);
		r.id = u->nr_keys;
	}
	if (!ret && c->read_rpc) {
		ret = mrcore_nfs_req_register(&u->req, MRCORE_NFS_REPLY_CHUNK,
					      rbody->pages, rbody->offset,
					      rbody->len, &chunk);
		if (!ret) {
			ulp_add_chunk(u, &chunk, true);
			r.ops = u->nr_keys - r.id;
			r.start = rbody->len;
		}
	}
	if (!ret) {
		ret = ulp_prepare(u, &r, u->nr_keys);
		if (!ret)
			ret = ulp_sent(u, mrcore_nfs_req_send(&u->req));
	}
	mrcore_nfs_req_reply(&u->req, ret ? NULL : &u->reply.wc);
	return ulp_finish(u, &r, a, ret);
}

static void ulp_nfs_exchange(struct kunit *test)
{
	const struct ulp_nfs_case *c = test->param_value;
	struct mrcore_e2e_buf *data, *rbody = NULL;
	struct mrcore_peer_req a = {};
	const struct ulp_key *k;
	struct ulp_counters c0;
	struct ulp_2host *u;
	unsigned int i;
	int ret;

	data = ulp_buf(test, c->len, c->offset);
	if (c->read_rpc)
		rbody = ulp_buf(test, ULP_NFS_REPLY_BYTES, 0);
	else
		mrcore_e2e_buf_fill(data, ULP_NFS_SEED);
	u = ulp_open(test, false);
	ulp_counters(test, u, &c0);

	ret = ulp_nfs_rpc(u, c, data, rbody, &a);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "the RPC over %s failed",
			    dev_name(&u->dev->dev));
	kunit_info(test, "%s to %s: %s RPC of %u bytes in %u segments of the client's\n",
		   dev_name(&u->dev->dev), u->link->pair->target->passive_addr,
		   c->read_rpc ? "READ" : "WRITE", c->len, u->nr_keys);
	/* Segments of at most the MR's pages, and the reply chunk's. */
	KUNIT_EXPECT_EQ(test, u->nr_keys,
			DIV_ROUND_UP(c->offset + c->len,
				     MRCORE_PEER_NFS_SEG_PAGES * PAGE_SIZE) +
			(c->read_rpc ? 1 : 0));
	ulp_expect_retired(test, u, &c0, c->remote_inv);
	if (c->read_rpc) {
		mrcore_e2e_expect_data(test, data, 0, data->len, ULP_NFS_SEED,
				       "the write chunk the server pushed");
		mrcore_e2e_expect_data(test, rbody, 0, rbody->len,
				       ULP_NFS_SEED + 1,
				       "the reply chunk the server pushed");
	} else {
		ulp_expect_peer_data(test, &a, "the read chunk the server pulled");
		mrcore_e2e_expect_data(test, data, 0, data->len, ULP_NFS_SEED,
				       "the read chunk after the RPC");
	}

	/* The attacker: a key the server invalidated, or one the client did. */
	k = &u->keys[u->nr_keys - 1];
	if (c->probe_remote) {
		for (i = 0; i < u->nr_keys; i++)
			if (u->keys[i].handle == u->reply.wc.ex.invalidate_rkey)
				k = &u->keys[i];
		KUNIT_ASSERT_EQ(test, k->handle, u->reply.wc.ex.invalidate_rkey);
	}
	ulp_expect_dead(test, u, k);
	mrcore_e2e_expect_data(test, data, 0, data->len, ULP_NFS_SEED,
			       "the client's data after the attack");
	if (rbody)
		mrcore_e2e_expect_data(test, rbody, 0, rbody->len,
				       ULP_NFS_SEED + 1,
				       "the reply chunk after the attack");
}

/* ---- iSER-style ---- */

/**
 * struct ulp_iser_case - one SCSI command across the wire
 * @desc: test description.
 * @scsi_read: a READ (the target WRITEs data-in), else a WRITE (it READs
 *	data-out).
 * @len: bytes.
 * @offset: of the initiator's buffer in its first page.
 * @remote_inv: the response is a SEND_WITH_INV of the STag.
 */
struct ulp_iser_case {
	const char *desc;
	bool scsi_read;
	u32 len;
	u32 offset;
	bool remote_inv;
};

static const struct ulp_iser_case ulp_iser_cases[] = {
	{ "iSER SCSI READ 4 KiB, SEND_WITH_INV", true, SZ_4K, 0, true },
	{ "iSER SCSI READ 1 MiB, SEND", true, SZ_1M, 0, false },
	{ "iSER SCSI READ 200001 bytes at offset 100, SEND_WITH_INV",
	  true, 200001, 100, true },
	{ "iSER SCSI WRITE 4 KiB, SEND", false, SZ_4K, 0, false },
	{ "iSER SCSI WRITE 1 MiB, SEND_WITH_INV", false, SZ_1M, 0, true },
	{ "iSER SCSI WRITE 200001 bytes at offset 100, SEND",
	  false, 200001, 100, false },
};

KUNIT_ARRAY_PARAM_DESC(ulp_iser, ulp_iser_cases, desc);

#define ULP_ISER_SEED	0x52001

static int ulp_iser_cmd(struct ulp_2host *u, const struct ulp_iser_case *c,
			struct mrcore_e2e_buf *buf, struct mrcore_peer_req *a)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_ISER,
		.flags = (c->scsi_read ? MRCORE_PEER_F_READ : 0) |
			 (c->remote_inv ? MRCORE_PEER_F_REMOTE_INV : 0),
		.len = buf->len,
		.seed = ULP_ISER_SEED,
	};
	u64 va;
	u32 stag;
	int ret;

	ulp_begin(u);
	ret = mrcore_iser_task_reg(&u->task, u->conn, c->scsi_read ?
				   MRCORE_ISER_DATA_IN : MRCORE_ISER_DATA_OUT,
				   buf->sg, buf->nents, &u->send_wr, &stag,
				   &va, ulp_iser_done);
	if (ret)
		return ret;	/* nothing registered */
	u->keys[0] = (struct ulp_key){
		.handle = stag, .addr = va, .len = buf->len,
		.writable = c->scsi_read,
	};
	u->nr_keys = 1;
	r.key = stag;
	r.addr = va;
	ret = ulp_prepare(u, &r, 0);
	if (!ret)
		ret = ulp_sent(u, mrcore_iser_task_send(&u->task));
	mrcore_iser_task_response(&u->task, ret ? NULL : &u->reply.wc);
	return ulp_finish(u, &r, a, ret);
}

static void ulp_iser_exchange(struct kunit *test)
{
	const struct ulp_iser_case *c = test->param_value;
	struct mrcore_peer_req a = {};
	struct mrcore_e2e_buf *buf;
	struct ulp_counters c0;
	struct ulp_2host *u;
	int ret;

	buf = ulp_buf(test, c->len, c->offset);
	if (!c->scsi_read)
		mrcore_e2e_buf_fill(buf, ULP_ISER_SEED);
	u = ulp_open(test, true);
	ulp_counters(test, u, &c0);

	ret = ulp_iser_cmd(u, c, buf, &a);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "the command over %s failed",
			    dev_name(&u->dev->dev));
	kunit_info(test, "%s to %s: SCSI %s of %u bytes under STag %#x\n",
		   dev_name(&u->dev->dev), u->link->pair->target->passive_addr,
		   c->scsi_read ? "READ" : "WRITE", c->len, u->keys[0].handle);
	ulp_expect_retired(test, u, &c0, c->remote_inv);
	if (c->scsi_read)
		mrcore_e2e_expect_data(test, buf, 0, buf->len, ULP_ISER_SEED,
				       "the data-in the target pushed");
	else
		ulp_expect_peer_data(test, &a, "the data-out the target pulled");

	ulp_expect_dead(test, u, &u->keys[0]);
	mrcore_e2e_expect_data(test, buf, 0, buf->len, ULP_ISER_SEED,
			       "the initiator's buffer after the attack");
}

/* One array per suite: KUnit keeps per-case state in them. */
static struct kunit_case ulp_rxe_cases[] = {
	KUNIT_CASE_PARAM(ulp_nfs_exchange, ulp_nfs_gen_params),
	KUNIT_CASE_PARAM(ulp_iser_exchange, ulp_iser_gen_params),
	{}
};

static struct kunit_case ulp_siw_cases[] = {
	KUNIT_CASE_PARAM(ulp_nfs_exchange, ulp_nfs_gen_params),
	KUNIT_CASE_PARAM(ulp_iser_exchange, ulp_iser_gen_params),
	{}
};

static struct kunit_suite ulp_rxe_suite = {
	.name = "mrcore_ulp_rxe_2host",
	.init = mrcore_2host_rxe_suite_init,
	.test_cases = ulp_rxe_cases,
};

static struct kunit_suite ulp_siw_suite = {
	.name = "mrcore_ulp_siw_2host",
	.init = mrcore_2host_siw_suite_init,
	.test_cases = ulp_siw_cases,
};

kunit_test_suites(&ulp_siw_suite, &ulp_rxe_suite);
