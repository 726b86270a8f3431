// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites mrcore_rkey_siw and mrcore_rkey_rxe: the rkey MR set
 * (core/rkey.c) on the real drivers.  The pair's active end is the ULP
 * that advertises memory: a request of its set maps a scatterlist,
 * bio_vecs or a page array, and its call (a SEND behind the
 * registrations) goes to the passive end, the peer, which READs or WRITEs
 * every advertised segment with the READ/WRITE helper; the bytes are
 * checked one by one against the position-unique pattern.  The peer's
 * reply (a SEND, or a SEND_WITH_INV of one key) retires the request, or
 * none comes.  On every path the done callback runs once every key is
 * dead, and the attacker of mrcore_keys_* (a peer on another connection
 * to the same PD) is refused through each key.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "io_e2e.h"

#define RK_MAX_KEYS	RDMA_RKEY_REQ_MAX_MRS
#define RK_SEED		0x30001

/**
 * struct rk_test - a connection whose active end advertises memory
 * @pair: the pair; the active end holds the set, the passive end is the
 *	peer.
 * @set: the active end's rkey set.
 * @peer_pool: the peer's READ/WRITE helper pool.
 * @call: the ULP's Send that carries the keys, behind the registrations.
 * @call_sent: its completion.
 * @call_rx: the peer's Receive of it.
 * @reply_rx: the active end's Receive of the reply.
 */
struct rk_test {
	struct mrcore_e2e_pair *pair;
	struct rdma_rkey_set *set;
	struct rdma_io_pool *peer_pool;
	struct ib_send_wr call;
	struct mrcore_e2e_wait call_sent;
	struct keys_recv call_rx;
	struct keys_recv reply_rx;
};

/**
 * struct rk_req - a request as a ULP embeds one
 * @rk: the request.
 * @done: completed by its done callback.
 * @status: the status it got.
 * @calls: how often it ran.
 * @task: the thread it ran in: the test's own only if it ran within the
 *	retire.
 * @keys: the segments advertised: key, address.
 * @off: where each starts in the memory.
 * @len: its bytes.
 * @nr_keys: entries of @keys.
 */
struct rk_req {
	struct rdma_rkey_req rk;
	struct completion done;
	int status;
	int calls;
	struct task_struct *task;
	struct keys_named keys[RK_MAX_KEYS];
	u32 off[RK_MAX_KEYS];
	u32 len[RK_MAX_KEYS];
	unsigned int nr_keys;
};

static void rk_done(struct rdma_rkey_req *rk, int status)
{
	struct rk_req *r = container_of(rk, struct rk_req, rk);

	r->status = status;
	r->calls++;
	r->task = current;
	complete(&r->done);
}

static void rk_set_release(void *set)
{
	rdma_rkey_set_destroy(set);
}

/*
 * A pair and a set of @nr_mrs MRs of @max_pages pages on its active end,
 * made with @flags and @space (rdma_rkey_set_create_flags()), or without
 * (rdma_rkey_set_create()).
 */
static struct rk_test *rk_setup_flags(struct kunit *test, u32 nr_mrs,
				      u32 max_pages, u32 flags,
				      void (*space)(void *arg), void *arg)
{
	struct rk_test *t;
	int ret;

	/* Freed after the pair: a completion may come until its CQ goes. */
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	/*
	 * The peer's queues hold its one I/O; the active end's own WRs (at
	 * most 3 registrations and the call, then 3 invalidations) fit the
	 * harness's allowance for the test's own.
	 */
	t->pair = io_pair(test, 1, max_pages + 1);
	t->set = flags || space ?
		 rdma_rkey_set_create_flags(t->pair->active.qp, nr_mrs,
					    max_pages, flags, space, arg) :
		 rdma_rkey_set_create(t->pair->active.qp, nr_mrs, max_pages);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->set));
	ret = kunit_add_action_or_reset(test, rk_set_release, t->set);
	KUNIT_ASSERT_EQ(test, ret, 0);
	t->peer_pool = io_pool(test, &t->pair->passive, 1, max_pages + 1);
	return t;
}

static struct rk_test *rk_setup(struct kunit *test, u32 nr_mrs, u32 max_pages)
{
	return rk_setup_flags(test, nr_mrs, max_pages, 0, NULL, NULL);
}

static void rk_req_init(struct rk_test *t, struct rk_req *r)
{
	memset(r, 0, sizeof(*r));
	init_completion(&r->done);
	memset(&t->call, 0, sizeof(t->call));
	mrcore_e2e_wait_init(&t->call_sent);
	t->call.opcode = IB_WR_SEND;
	t->call.wr_cqe = &t->call_sent.cqe;
	t->call.send_flags = IB_SEND_SIGNALED;
	rdma_rkey_req_init(&r->rk, t->set, &t->call, rk_done);
}

/* Note a segment the request advertised. */
static void rk_add(struct rk_req *r, u32 key, u64 iova, u32 off, u32 len)
{
	r->keys[r->nr_keys] = (struct keys_named){ .key = key, .iova = iova,
						    .remote = true, .at = off };
	r->off[r->nr_keys] = off;
	r->len[r->nr_keys++] = len;
}

static int rk_post_recv(struct mrcore_e2e_side *side, struct keys_recv *rx)
{
	struct ib_recv_wr wr = { .wr_cqe = &rx->cqe };

	init_completion(&rx->done);
	rx->cqe.done = keys_recv_done;
	return ib_post_recv(side->qp, &wr, NULL);
}

static void rk_wait_recv(struct kunit *test, struct keys_recv *rx)
{
	KUNIT_ASSERT_GT_MSG(test,
			    wait_for_completion_timeout(&rx->done,
							msecs_to_jiffies(IO_TIMEOUT_MS)),
			    0, "no message arrived");
	KUNIT_ASSERT_EQ(test, rx->wc.status, IB_WC_SUCCESS);
}

/* The peer's Receive, then the registrations and the call; it has it. */
static void rk_call(struct kunit *test, struct rk_test *t, struct rk_req *r)
{
	KUNIT_ASSERT_EQ(test, 0, rk_post_recv(&t->pair->passive, &t->call_rx));
	KUNIT_ASSERT_EQ(test, 0, rdma_rkey_req_post(&r->rk));
	KUNIT_ASSERT_EQ(test, IB_WC_SUCCESS,
			mrcore_e2e_wait_done(&t->pair->active, &t->call_sent,
					     IO_TIMEOUT_MS));
	rk_wait_recv(test, &t->call_rx);
}

/* The Receive of the reply, then the call (rk_call()). */
static void rk_post(struct kunit *test, struct rk_test *t, struct rk_req *r)
{
	KUNIT_ASSERT_EQ(test, 0, rk_post_recv(&t->pair->active, &t->reply_rx));
	rk_call(test, t, r);
}

/* Byte k of @buf is byte @at + k of the pattern of @seed. */
static void rk_fill_at(struct mrcore_e2e_buf *buf, u32 seed, u32 at)
{
	size_t k;

	for (k = 0; k < buf->len; k++)
		*mrcore_e2e_buf_byte(buf, k) = mrcore_e2e_pattern(seed, at + k);
}

static void rk_expect_at(struct kunit *test, struct mrcore_e2e_buf *buf,
			 u32 seed, u32 at)
{
	size_t k;

	for (k = 0; k < buf->len; k++) {
		u8 got = *mrcore_e2e_buf_byte(buf, k);

		if (got != mrcore_e2e_pattern(seed, at + k)) {
			KUNIT_FAIL(test, "byte %zu of the copy from %u: 0x%02x, want 0x%02x",
				   k, at, got, mrcore_e2e_pattern(seed, at + k));
			return;
		}
	}
}

/*
 * The positive control of the keys' death (rk_retire()): while the
 * request is in flight, the attacker that will find its keys dead makes
 * through each the access it grants (a WRITE lands its bytes, a READ is
 * served); a READ-only key refuses it a WRITE, which leaves @mem as it
 * was.  (A WRITE-only key's refusal of a READ is not asked for: siw
 * serves a READ through any live key, core/quirks.c.)
 */
static void rk_attacker_served(struct kunit *test, struct rk_test *t,
			       struct rk_req *r, struct mrcore_e2e_buf *mem,
			       bool write)
{
	unsigned int i;

	for (i = 0; i < r->nr_keys; i++) {
		const struct keys_named *k = &r->keys[i];

		keys_expect_served_op(test, t->pair, k,
				      write ? IB_WR_RDMA_WRITE :
					      IB_WR_RDMA_READ,
				      mem, r->off[i]);
		if (write)
			continue;
		mrcore_e2e_buf_fill(mem, RK_SEED);
		io_key_refused(test, t->pair, IB_WR_RDMA_WRITE, k->key,
			       k->iova, mem, r->off[i]);
		mrcore_e2e_expect_data(test, mem, 0, mem->len, RK_SEED,
				       "memory after a WRITE through a READ-only key");
	}
}

/*
 * The peer moves every segment with the helper: READs it into memory of
 * its own (checked against the pattern @mem holds), or WRITEs the
 * pattern's bytes into it (@mem checked whole afterwards, guards too).
 * The attacker's control runs first (rk_attacker_served()).
 */
static void rk_peer_moves(struct kunit *test, struct rk_test *t,
			  struct rk_req *r, struct mrcore_e2e_buf *mem,
			  bool write)
{
	struct mrcore_e2e_side *peer = &t->pair->passive;
	unsigned int i;

	rk_attacker_served(test, t, r, mem, write);
	if (write)
		mrcore_e2e_buf_poison(mem);
	else
		mrcore_e2e_buf_fill(mem, RK_SEED);
	for (i = 0; i < r->nr_keys; i++) {
		struct mrcore_e2e_buf b = {};
		struct rdma_io_ctx ctx;
		int st;

		KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&b, r->len[i], 0));
		if (write)
			rk_fill_at(&b, RK_SEED, r->off[i]);
		st = rdma_io_ctx_init(&ctx, t->peer_pool, b.sg, b.nents, 0,
				      r->keys[i].iova, r->keys[i].key,
				      write ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
		if (st > 0)
			st = io_run(test, peer, &ctx);
		KUNIT_EXPECT_EQ_MSG(test, st, IB_WC_SUCCESS,
				    "the peer's %s of segment %u",
				    write ? "WRITE" : "READ", i);
		if (!write && !st)
			rk_expect_at(test, &b, RK_SEED, r->off[i]);
		mrcore_e2e_buf_free(&b);
	}
	if (write)
		mrcore_e2e_expect_data(test, mem, 0, mem->len, RK_SEED,
				       "memory the peer wrote through the keys");
}

/*
 * The peer's reply: a SEND, or with @inv a SEND_WITH_INV of key @inv_key;
 * returns the active end's Receive completion of it.
 */
static const struct ib_wc *rk_reply(struct kunit *test, struct rk_test *t,
				    bool inv, u32 inv_key)
{
	struct ib_send_wr send = { .opcode = IB_WR_SEND };
	struct mrcore_e2e_wait w;

	if (inv)
		KUNIT_ASSERT_EQ(test, 0, rdma_send_with_inv(&send, inv_key));
	mrcore_e2e_wait_init(&w);
	send.wr_cqe = &w.cqe;
	send.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, IB_WC_SUCCESS,
			mrcore_e2e_post(&t->pair->passive, &send, &w,
					IO_TIMEOUT_MS));
	rk_wait_recv(test, &t->reply_rx);
	KUNIT_EXPECT_EQ(test, !!(t->reply_rx.wc.wc_flags &
				 IB_WC_WITH_INVALIDATE), (int)inv);
	return &t->reply_rx.wc;
}

/*
 * Retire with @wc (or without a reply) and wait for done: expect @status,
 * every key dead for the attacker, then the MRs back.  Returns the
 * retire's verdict on the reply.  A LOCAL_INV or the
 * set's work completes the request in another thread: done running in
 * the test's own (within the retire) gave the memory back before the
 * keys died.
 */
static int rk_retire(struct kunit *test, struct rk_test *t, struct rk_req *r,
		     const struct ib_wc *wc, int status,
		     struct mrcore_e2e_buf *mem, const char *what)
{
	int verdict = rdma_rkey_req_retire(&r->rk, wc);

	KUNIT_ASSERT_GT_MSG(test,
			    wait_for_completion_timeout(&r->done,
							msecs_to_jiffies(IO_TIMEOUT_MS)),
			    0, "the request was never done");
	KUNIT_EXPECT_EQ(test, r->status, status);
	KUNIT_EXPECT_EQ(test, r->calls, 1);
	KUNIT_EXPECT_PTR_NE_MSG(test, r->task, current,
				"done ran within the retire, before the keys died");
	keys_expect_dead(test, t->pair, r->keys, r->nr_keys, mem, what);
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_drain(t->set),
			rdma_rkey_set_size(t->set));
	return verdict;
}

/* A scatterlist of 8 scattered pages in one MR; the peer WRITEs it. */
static struct rk_req *rk_map_sg(struct kunit *test, struct rk_test *t,
				struct io_local *l)
{
	struct rk_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u32 key;
	u64 iova;

	KUNIT_ASSERT_NOT_NULL(test, r);
	rk_req_init(t, r);
	KUNIT_ASSERT_EQ(test, 0, rdma_rkey_map_sg(&r->rk, l->sg, l->nents,
						  RDMA_MR_REMOTE_WRITE, &key,
						  &iova));
	rk_add(r, key, iova, 0, l->len);
	return r;
}

/* The peer invalidated the one key: done runs within the retire. */
static void rkey_remote_inv(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 2, 8);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_8_PAGES]);
	struct rk_req *r = rk_map_sg(test, t, l);
	const struct ib_wc *wc;

	rk_post(test, t, r);
	rk_peer_moves(test, t, r, &l->buf, true);
	wc = rk_reply(test, t, true, r->keys[0].key);
	KUNIT_EXPECT_EQ(test, rdma_rkey_req_retire(&r->rk, wc), 0);
	KUNIT_EXPECT_EQ_MSG(test, r->calls, 1,
			    "the MR did not come back within the retire");
	KUNIT_EXPECT_PTR_EQ(test, r->task, current);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_drain(t->set), 2u);
	keys_expect_dead(test, t->pair, r->keys, r->nr_keys, &l->buf,
			 "memory of a remotely invalidated request");
}

/*
 * A bogus remote invalidation: the reply to one request invalidates the key
 * of another request still in flight on the PD.  The retire says so
 * (-EKEYREJECTED, on which nvme-rdma starts its error recovery) and kills
 * the request's own key all the same, with a LOCAL_INV; the other key is
 * dead too (the device invalidated it), and its request ends without a
 * reply.  Both keys served the attacker before.
 */
static void rkey_bogus_remote_inv(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 2, 8);
	struct io_local *l1 = io_local_create(test,
					      &mrcore_shapes[SHAPE_8_PAGES]);
	struct io_local *l2 = io_local_create(test,
					      &mrcore_shapes[SHAPE_8_PAGES]);
	struct rk_req *other = rk_map_sg(test, t, l2);
	struct rk_req *r;

	rk_post(test, t, other);
	rk_attacker_served(test, t, other, &l2->buf, true);
	r = rk_map_sg(test, t, l1);
	/* The reply's Receive is still posted, for @other. */
	rk_call(test, t, r);
	rk_peer_moves(test, t, r, &l1->buf, true);
	KUNIT_EXPECT_EQ(test, rdma_rkey_req_retire(&r->rk,
						   rk_reply(test, t, true,
							    other->keys[0].key)),
			-EKEYREJECTED);
	/* rk_retire() but for the MRs back: @other still holds its own. */
	KUNIT_ASSERT_GT_MSG(test,
			    wait_for_completion_timeout(&r->done,
							msecs_to_jiffies(IO_TIMEOUT_MS)),
			    0, "the request was never done");
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->calls, 1);
	KUNIT_EXPECT_PTR_NE_MSG(test, r->task, current,
				"done ran within the retire, before the LOCAL_INV");
	keys_expect_dead(test, t->pair, r->keys, r->nr_keys, &l1->buf,
			 "memory of a request whose reply invalidated another key");
	keys_expect_dead(test, t->pair, other->keys, other->nr_keys, &l2->buf,
			 "memory whose key the peer invalidated in another reply");
	rk_retire(test, t, other, NULL, -EIO, &l2->buf,
		  "memory of a request without a reply");
}

/*
 * A page array split into MRs of 8 pages from an offset (as an NFS
 * client's chunk); the peer READs every segment; a reply that invalidates
 * nothing: the LOCAL_INVs' completion gives the MRs back.
 */
static void rkey_local_inv_pages(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 4, 8);
	struct mrcore_e2e_buf *mem;
	struct rk_req *r;
	u32 off = 100, len = 20 * PAGE_SIZE - 300;

	mem = &io_local_create(test, &mrcore_shapes[SHAPE_32_PAGES])->buf;
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	rk_req_init(t, r);
	while (len) {
		u32 key, n;
		u64 iova;

		KUNIT_ASSERT_EQ(test, 0, rdma_rkey_map_pages(&r->rk, mem->pages,
							     off, len,
							     RDMA_MR_REMOTE_READ,
							     &key, &iova, &n));
		rk_add(r, key, iova, off, n);
		off += n;
		len -= n;
	}
	KUNIT_EXPECT_EQ(test, r->nr_keys, 3u);
	KUNIT_EXPECT_EQ(test, r->len[0], 8 * PAGE_SIZE - 100);
	rk_post(test, t, r);
	/* The peer's copies are checked against the pattern from byte 0. */
	rk_peer_moves(test, t, r, mem, false);
	rk_retire(test, t, r, rk_reply(test, t, false, 0), 0, mem,
		  "memory of a locally invalidated request");
}

/*
 * bio_vecs, one per page: MRs of 4 pages; the peer WRITEs them and
 * invalidates the second key, the first gets a LOCAL_INV.
 */
static void rkey_bvec(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 2, 4);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_8_PAGES]);
	struct bio_vec *bv = io_local_bvecs(test, l);
	struct bvec_iter iter = { .bi_size = l->len };
	struct rk_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	rk_req_init(t, r);
	while (iter.bi_size) {
		u32 key, n, at = l->len - iter.bi_size;
		u64 iova;

		KUNIT_ASSERT_EQ(test, 0, rdma_rkey_map_bvec(&r->rk, bv, l->nents,
							    &iter,
							    RDMA_MR_REMOTE_WRITE,
							    &key, &iova, &n));
		rk_add(r, key, iova, at, n);
	}
	KUNIT_EXPECT_EQ(test, r->nr_keys, 2u);
	rk_post(test, t, r);
	rk_peer_moves(test, t, r, &l->buf, true);
	rk_retire(test, t, r, rk_reply(test, t, true, r->keys[1].key), 0,
		  &l->buf, "memory of a bio_vec request");
}

/* No reply (a timeout): the set's work kills the key, done gets -EIO. */
static void rkey_no_reply(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 2, 8);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_8_PAGES]);
	struct rk_req *r = rk_map_sg(test, t, l);

	rk_post(test, t, r);
	rk_peer_moves(test, t, r, &l->buf, true);
	rk_retire(test, t, r, NULL, -EIO, &l->buf,
		  "memory of a request without a reply");
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_size(t->set), 2u);
}

static void rk_disarm(void *point)
{
	rdma_mrcore_fault_arm(point, 0, 0);
}

/*
 * The driver took the registration, not the call (the fault point post_wr
 * refuses the second WR): -EINPROGRESS; the registration may run.  The
 * retire without a reply drains the send queue, then kills the key.
 */
static void rkey_partial_post(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 2, 8);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_8_PAGES]);
	struct rk_req *r = rk_map_sg(test, t, l);
	int ret;

	ret = kunit_add_action_or_reset(test, rk_disarm, (void *)"post_wr");
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, rdma_mrcore_fault_arm("post_wr", 1, 1), 0);
	ret = rdma_rkey_req_post(&r->rk);
	rdma_mrcore_fault_arm("post_wr", 0, 0);
	KUNIT_EXPECT_EQ(test, ret, -EINPROGRESS);
	rk_retire(test, t, r, NULL, -EIO, &l->buf,
		  "memory of a request posted in part");
	KUNIT_EXPECT_EQ_MSG(test, mrcore_e2e_qp_state(&t->pair->active),
			    IB_QPS_ERR, "the send queue was not drained");
}

/* A page of @l mapped for the peer's READ, its key noted; 0 or the map's errno. */
static int rk_map_page(struct rk_req *r, struct io_local *l)
{
	u32 key;
	u64 iova;
	int ret;

	ret = rdma_rkey_map_sg(&r->rk, l->sg, 1, RDMA_MR_REMOTE_READ, &key,
			       &iova);
	if (!ret)
		rk_add(r, key, iova, 0, PAGE_SIZE);
	return ret;
}

/*
 * A set of RK_MAX_KEYS + 1 MRs: a request holds at most RK_MAX_KEYS
 * (-EMSGSIZE), the next takes the last MR, then the set is empty
 * (-EAGAIN).  Retired unposted, every MR comes back at once.
 */
static void rkey_exhaustion(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, RK_MAX_KEYS + 1, 1);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_1_PAGE]);
	struct rk_req *r = kunit_kcalloc(test, 2, sizeof(*r), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	rk_req_init(t, &r[0]);
	for (i = 0; i < RK_MAX_KEYS; i++)
		KUNIT_ASSERT_EQ(test, 0, rk_map_page(&r[0], l));
	KUNIT_EXPECT_EQ(test, rk_map_page(&r[0], l), -EMSGSIZE);
	rk_req_init(t, &r[1]);
	KUNIT_EXPECT_EQ(test, rk_map_page(&r[1], l), 0);
	KUNIT_EXPECT_EQ(test, rk_map_page(&r[1], l), -EAGAIN);
	for (i = 0; i < 2; i++)
		rdma_rkey_req_retire(&r[i].rk, NULL);
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_drain(t->set), RK_MAX_KEYS + 1);
	/* Never posted: no key lived, each MR back within the retire. */
	KUNIT_EXPECT_EQ(test, r[0].status, 0);
	KUNIT_EXPECT_EQ(test, r[1].status, 0);
}

/*
 * Keys one device MR hands out before the core replaces it (the core's
 * MRCORE_KEY_USES: an 8-bit key byte that must not come round).
 */
#define RK_KEY_USES		256

/* Device MRs of rkey_batched_replacement(): its set's and their successors. */
#define RK_BATCH_MRS		32
#define RK_BATCH_DEV_MRS	(2 * RK_BATCH_MRS)

/* Keys handed out per device MR (a key's upper 24 bits), as the core counts. */
struct rk_uses {
	u32 index[RK_BATCH_DEV_MRS];
	u32 uses[RK_BATCH_DEV_MRS];
	unsigned int nr;
};

/*
 * Whether @key, the @nth of the set, is the last of its device MR: a new
 * set's MR i of n starts at 256 i / n keys (taken in order at first), a
 * new device MR at 0.
 */
static bool rk_spends(struct kunit *test, struct rk_uses *u, u32 key, u32 nth)
{
	unsigned int i;

	for (i = 0; i < u->nr && u->index[i] != key >> 8; i++)
		;
	if (i == u->nr) {
		KUNIT_ASSERT_LT(test, u->nr, RK_BATCH_DEV_MRS);
		u->index[i] = key >> 8;
		u->uses[i] = nth < RK_BATCH_MRS ?
			     nth * RK_KEY_USES / RK_BATCH_MRS : 0;
		u->nr++;
	}
	return ++u->uses[i] == RK_KEY_USES;
}

static u64 rk_counter(struct kunit *test, struct rk_test *t, const char *name)
{
	struct ib_device *dev = t->pair->active.device;
	u64 v = 0;

	KUNIT_EXPECT_EQ(test, rdma_mrcore_device_counter(dev, name, &v), 0);
	return v;
}

static u64 rk_recycled(struct kunit *test, struct rk_test *t)
{
	return rk_counter(test, t, "mr_recycled");
}

/* One command: a page for the peer, the call, a SEND_WITH_INV of its key. */
static u32 rk_command(struct kunit *test, struct rk_test *t, struct rk_req *r,
		      struct io_local *l)
{
	u64 iova;
	u32 key;

	rk_req_init(t, r);
	KUNIT_ASSERT_EQ(test, 0, rdma_rkey_map_sg(&r->rk, l->sg, 1,
						  RDMA_MR_REMOTE_WRITE, &key,
						  &iova));
	rk_post(test, t, r);
	rdma_rkey_req_retire(&r->rk, rk_reply(test, t, true, key));
	KUNIT_ASSERT_EQ(test, r->calls, 1);
	return key;
}

/*
 * Commands (rk_command()) until one hands out the last key of its device
 * MR; @nth counts the set's commands across calls, as rk_spends() needs.
 */
static void rk_spend_one(struct kunit *test, struct rk_test *t,
			 struct rk_req *r, struct io_local *l,
			 struct rk_uses *u, u32 *nth)
{
	u32 key;

	do {
		KUNIT_ASSERT_LT(test, *nth, 2 * RK_KEY_USES * RK_BATCH_MRS);
		key = rk_command(test, t, r, l);
	} while (!rk_spends(test, u, key, (*nth)++));
}

/*
 * Mapped but never posted, or its post refused whole (the fault point
 * post_send): no registration ran, so the key never lived.  Retired
 * without a reply, the MR comes back within the retire with 0 and no
 * device MR is replaced; the attacker is refused through the key.
 */
static void rkey_never_posted(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, 2, 8);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_8_PAGES]);
	u64 recycled0 = rk_recycled(test, t);
	unsigned int refused;
	int ret;

	ret = kunit_add_action_or_reset(test, rk_disarm, (void *)"post_send");
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (refused = 0; refused < 2; refused++) {
		struct rk_req *r = rk_map_sg(test, t, l);

		if (refused) {
			KUNIT_ASSERT_EQ(test, 0,
					rdma_mrcore_fault_arm("post_send", 0, 1));
			ret = rdma_rkey_req_post(&r->rk);
			rdma_mrcore_fault_arm("post_send", 0, 0);
			KUNIT_ASSERT_LT(test, ret, 0);
			KUNIT_ASSERT_NE(test, ret, -EINPROGRESS);
		}
		KUNIT_EXPECT_EQ(test, rdma_rkey_req_retire(&r->rk, NULL), 0);
		KUNIT_EXPECT_EQ_MSG(test, r->calls, 1,
				    "not given back within the retire");
		KUNIT_EXPECT_EQ(test, r->status, 0);
		keys_expect_dead(test, t->pair, r->keys, r->nr_keys, &l->buf,
				 refused ? "memory of a request whose post was refused" :
					   "memory of a request never posted");
		KUNIT_EXPECT_EQ(test, rdma_rkey_set_drain(t->set), 2u);
	}
	KUNIT_EXPECT_EQ_MSG(test, rk_recycled(test, t), recycled0,
			    "a device MR replaced for a key that never lived");
}

/*
 * A set of 32 MRs has its device MRs replaced two at a time (a sixteenth
 * of the set): commands whose replies invalidate their key, until three
 * device MRs handed out their last key.  The first waits in the quarantine
 * (no replacement while the test sleeps), the second completes the batch
 * and the pool's work replaces both, the third waits again until the
 * set's drain runs a batch not yet full.
 */
static void rkey_batched_replacement(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, RK_BATCH_MRS, 1);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_1_PAGE]);
	struct rk_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rk_uses *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	u64 recycled0 = rk_recycled(test, t), now;
	unsigned int spent, waited;
	u32 nth = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, u);
	for (spent = 1; spent <= 3; spent++) {
		rk_spend_one(test, t, r, l, u, &nth);
		if (spent == 2) {
			for (waited = 0; waited < IO_TIMEOUT_MS &&
			     rk_recycled(test, t) - recycled0 < 2; waited += 20)
				msleep(20);
			KUNIT_EXPECT_EQ_MSG(test, rk_recycled(test, t) - recycled0,
					    2ULL, "a full batch was not replaced");
			continue;
		}
		msleep(50);
		now = rk_recycled(test, t) - recycled0;
		KUNIT_EXPECT_EQ_MSG(test, now, spent == 1 ? 0ULL : 2ULL,
				    "a device MR replaced before its batch");
	}
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_drain(t->set), RK_BATCH_MRS);
	KUNIT_EXPECT_EQ(test, rk_recycled(test, t) - recycled0, 3ULL);
}

/* rkey_destroy_in_reclaim_work()'s work: the set destroyed in a worker. */
struct rk_reclaim {
	struct work_struct work;
	struct rdma_rkey_set *set;
};

static void rk_reclaim_destroy(struct work_struct *work)
{
	rdma_rkey_set_destroy(container_of(work, struct rk_reclaim,
					   work)->set);
}

/*
 * A ULP tears its queues down from its error recovery, which runs on a
 * WQ_MEM_RECLAIM workqueue (nvme-rdma's reset work does): the set is
 * destroyed there with a device MR waiting in its quarantine, so the
 * destroy flushes the pool's recycle work.  Flushing work of a queue
 * without WQ_MEM_RECLAIM from such a worker is what the workqueue code
 * warns of (check_flush_dependency()), a report that fails the run.
 * The MR waits first (half a batch: not replaced while the test sleeps),
 * then the destroy replaces it before the set goes.
 */
static void rkey_destroy_in_reclaim_work(struct kunit *test)
{
	struct rk_test *t = rk_setup(test, RK_BATCH_MRS, 1);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_1_PAGE]);
	struct rk_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rk_uses *u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	struct rk_reclaim *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	u64 recycled0 = rk_recycled(test, t);
	struct workqueue_struct *wq;
	u32 nth = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	rk_spend_one(test, t, r, l, u, &nth);
	msleep(50);
	KUNIT_ASSERT_EQ_MSG(test, rk_recycled(test, t), recycled0,
			    "the spent MR did not wait in the quarantine");

	wq = alloc_workqueue("mrcore_kunit_reclaim", WQ_MEM_RECLAIM, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	kunit_remove_action(test, rk_set_release, t->set);
	rc->set = t->set;
	t->set = NULL;
	INIT_WORK(&rc->work, rk_reclaim_destroy);
	queue_work(wq, &rc->work);
	destroy_workqueue(wq);
	KUNIT_EXPECT_EQ_MSG(test, rk_recycled(test, t) - recycled0, 1ULL,
			    "the destroy did not replace the waiting MR");
}

/* What rkey_on_demand()'s set tells its ULP: MRs were added (or replaced). */
struct rk_space {
	struct completion added;
	atomic_t calls;
};

static void rk_space(void *arg)
{
	struct rk_space *sp = arg;

	atomic_inc(&sp->calls);
	complete(&sp->added);
}

static unsigned long rk_wait_space(struct rk_space *sp)
{
	return wait_for_completion_timeout(&sp->added,
					   msecs_to_jiffies(IO_TIMEOUT_MS));
}

/* Whether @key names one of the device MRs @r's keys named. */
static bool rk_same_mr(const struct rk_req *r, u32 key)
{
	unsigned int i;

	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i].key >> 8 == key >> 8)
			return true;
	return false;
}

#define RK_OD_HOLDERS	(RK_BATCH_MRS / RK_MAX_KEYS)
#define RK_OD_BATCH	(RK_BATCH_MRS / 16)

/*
 * A set of 32 one-page MRs made with RDMA_RKEY_SET_MRS_ON_DEMAND starts
 * with RK_MAX_KEYS of them.  Requests that hold every MR it has make the
 * next map -EAGAIN; the set's work adds a batch (a sixteenth of the set),
 * counts it as pool_grown and calls the space callback, after which the
 * same map succeeds.  Grown to 32, a map that finds none free gets
 * -EAGAIN again, and nothing is added or told.  Then a command through one
 * of the MRs added last: the peer WRITEs the page through its key (the
 * attacker served first), the reply invalidates it, and the attacker is
 * refused through it.
 */
static void rkey_on_demand(struct kunit *test)
{
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_1_PAGE]);
	struct rk_space *sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);
	struct rk_req *r = kunit_kcalloc(test, RK_OD_HOLDERS + 1, sizeof(*r),
					 GFP_KERNEL);
	struct rk_req *dry = &r[RK_OD_HOLDERS], *last = dry - 1, *cmd;
	unsigned int i, growths = 0;
	struct rk_test *t;
	u64 grown0;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, sp);
	KUNIT_ASSERT_NOT_NULL(test, r);
	init_completion(&sp->added);
	t = rk_setup_flags(test, RK_BATCH_MRS, 1, RDMA_RKEY_SET_MRS_ON_DEMAND,
			   rk_space, sp);
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_size(t->set), RK_MAX_KEYS);
	grown0 = rk_counter(test, t, "pool_grown");

	for (i = 0; i < RK_OD_HOLDERS; i++) {
		rk_req_init(t, &r[i]);
		while (r[i].nr_keys < RK_MAX_KEYS) {
			ret = rk_map_page(&r[i], l);
			if (!ret)
				continue;
			KUNIT_ASSERT_EQ(test, ret, -EAGAIN);
			KUNIT_ASSERT_GT_MSG(test, rk_wait_space(sp), 0,
					    "the set did not grow after a dry map");
			growths++;
			KUNIT_ASSERT_EQ(test, rdma_rkey_set_size(t->set),
					RK_MAX_KEYS + growths * RK_OD_BATCH);
		}
	}
	KUNIT_EXPECT_EQ(test, growths, (RK_BATCH_MRS - RK_MAX_KEYS) / RK_OD_BATCH);
	KUNIT_EXPECT_EQ(test, rk_counter(test, t, "pool_grown") - grown0,
			(u64)(RK_BATCH_MRS - RK_MAX_KEYS));

	/* At its size: a dry map waits for MRs to come back, none is added. */
	rk_req_init(t, dry);
	KUNIT_EXPECT_EQ(test, rk_map_page(dry, l), -EAGAIN);
	msleep(100);
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_size(t->set), RK_BATCH_MRS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&sp->calls), (int)growths,
			    "told of space with nothing added");
	rdma_rkey_req_retire(&dry->rk, NULL);

	/* The last holder's MRs, all added on demand, serve a command. */
	rdma_rkey_req_retire(&last->rk, NULL);
	cmd = rk_map_sg(test, t, l);
	KUNIT_EXPECT_TRUE_MSG(test, rk_same_mr(last, cmd->keys[0].key),
			      "key 0x%x is not of an MR added on demand",
			      cmd->keys[0].key);
	rk_post(test, t, cmd);
	rk_peer_moves(test, t, cmd, &l->buf, true);
	KUNIT_EXPECT_EQ(test, rdma_rkey_req_retire(&cmd->rk,
						   rk_reply(test, t, true,
							    cmd->keys[0].key)), 0);
	KUNIT_EXPECT_EQ(test, cmd->calls, 1);
	KUNIT_EXPECT_EQ(test, cmd->status, 0);
	keys_expect_dead(test, t->pair, cmd->keys, cmd->nr_keys, &l->buf,
			 "memory of a command through an MR added on demand");

	for (i = 0; i + 1 < RK_OD_HOLDERS; i++)
		rdma_rkey_req_retire(&r[i].rk, NULL);
	KUNIT_EXPECT_EQ(test, rdma_rkey_set_drain(t->set), RK_BATCH_MRS);
}

static struct kunit_case rkey_siw_cases[] = {
	KUNIT_CASE(rkey_remote_inv),
	KUNIT_CASE(rkey_bogus_remote_inv),
	KUNIT_CASE(rkey_local_inv_pages),
	KUNIT_CASE(rkey_bvec),
	KUNIT_CASE(rkey_no_reply),
	KUNIT_CASE(rkey_partial_post),
	KUNIT_CASE(rkey_exhaustion),
	KUNIT_CASE(rkey_never_posted),
	KUNIT_CASE(rkey_batched_replacement),
	KUNIT_CASE(rkey_destroy_in_reclaim_work),
	KUNIT_CASE(rkey_on_demand),
	{}
};

static struct kunit_case rkey_rxe_cases[] = {
	KUNIT_CASE(rkey_remote_inv),
	KUNIT_CASE(rkey_bogus_remote_inv),
	KUNIT_CASE(rkey_local_inv_pages),
	KUNIT_CASE(rkey_bvec),
	KUNIT_CASE(rkey_no_reply),
	KUNIT_CASE(rkey_partial_post),
	KUNIT_CASE(rkey_exhaustion),
	KUNIT_CASE(rkey_never_posted),
	KUNIT_CASE(rkey_batched_replacement),
	KUNIT_CASE(rkey_destroy_in_reclaim_work),
	KUNIT_CASE(rkey_on_demand),
	{}
};

static struct kunit_suite rkey_siw_suite = {
	.name = "mrcore_rkey_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = rkey_siw_cases,
};

static struct kunit_suite rkey_rxe_suite = {
	.name = "mrcore_rkey_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = rkey_rxe_cases,
};

kunit_test_suites(&rkey_siw_suite, &rkey_rxe_suite);
