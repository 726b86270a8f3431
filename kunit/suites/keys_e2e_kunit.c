// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites mrcore_keys_siw and mrcore_keys_rxe: security rule 6 on the
 * real drivers.  Memory goes back to its owner only after every key that
 * names it is dead, on every path.  The attacker is a peer on another
 * connection to the same PD (mrcore_e2e_pair_create_shared()): right after
 * the call that gave the memory back returned, and after the owner put new
 * bytes in it, it WRITEs its own bytes through each key that named the
 * memory, then READs through it.  Both must fail and the memory must hold
 * the owner's new bytes.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "io_e2e.h"

#define KEYS_SEED_OWNER		0x20001
#define KEYS_SEED_LOCAL		0x20002
#define KEYS_MAX_KEYS		4

static unsigned int keys_of(const struct rdma_io_ctx *ctx,
			    struct keys_named *k)
{
	unsigned int i;

	for (i = 0; i < ctx->nr_mrs && i < KEYS_MAX_KEYS; i++) {
		k[i].key = ctx->mrs[i]->key;
		k[i].iova = ctx->mrs[i]->iova;
		k[i].remote = ctx->mrs[i]->access & (IB_ACCESS_REMOTE_READ |
						     IB_ACCESS_REMOTE_WRITE);
		/*
		 * The control reaches the memory's first bytes, the first
		 * MR's: a later MR's would need the shape's gaps.
		 */
		k[i].at = 0;
	}
	return i;
}

/*
 * An I/O of @l through pool MRs: frwr forced, but an iWARP READ is left to
 * the pool, whose only candidate for it are the iwarp sinks, so that it
 * takes the path every ULP's iWARP READ takes (core/io.c:
 * mrcore_io_init_mr_list(), mrcore_io_build_mr_only()); forcing would take
 * the planned one.
 */
static int keys_init(struct kunit *test, struct rdma_io_ctx *ctx,
		     struct rdma_io_pool *pool, struct io_local *l,
		     struct io_owner *owner, u32 rkey, bool read)
{
	bool iwarp_read = read && io_on_iwarp(test);
	int ret;

	KUNIT_EXPECT_EQ(test, 0, rdma_io_pool_force_backend(pool, iwarp_read ?
							    NULL : "frwr"));
	ret = rdma_io_ctx_init(ctx, pool, l->sg, l->nents, 0, owner->iova,
			       rkey, read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret > 0)
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(ctx),
				   iwarp_read ? "iwarp" : "frwr");
	return ret;
}

/*
 * @f for I/Os of @shape (at most 8 pages), @max_ctxs at once: the owner's
 * memory holds its pattern, and for a WRITE the local memory its own.
 */
static void keys_setup_shape(struct kunit *test, struct io_fixture *f,
			     enum mrcore_shape shape, u32 max_ctxs, bool read)
{
	io_fixture_create(test, f, &mrcore_shapes[shape], max_ctxs, 8, NULL);
	mrcore_e2e_buf_fill_range(&f->owner->buf, 0, f->l->len,
				  KEYS_SEED_OWNER);
	if (!read)
		mrcore_e2e_buf_fill(&f->l->buf, KEYS_SEED_LOCAL);
}

/* keys_setup_shape() for I/Os of 8 scattered pages. */
static void keys_setup(struct kunit *test, struct io_fixture *f,
		       u32 max_ctxs, bool read)
{
	keys_setup_shape(test, f, SHAPE_8_PAGES, max_ctxs, read);
}

/*
 * While the keys of a pool I/O on siw live (its registrations ran, the
 * rest not yet), the attacker is served what they give it: through an
 * iWARP READ sink (@read) a WRITE, which lands at the start of @l's
 * memory (one MR), and through any key a READ (siw answers a READ through
 * any live key, core/quirks.c).  On rxe a pool key grants the peer
 * nothing: there is nothing to serve, and keys_expect_dead() says that
 * its refusal checks the rights.
 */
static void keys_expect_served_siw(struct kunit *test,
				   struct mrcore_e2e_pair *pair,
				   const struct keys_named *k, unsigned int n,
				   struct io_local *l, bool read)
{
	unsigned int i;

	if (!io_on_iwarp(test))
		return;
	KUNIT_EXPECT_EQ_MSG(test, n, 1u, "one sink or source MR");
	for (i = 0; i < n; i++) {
		if (read)
			keys_expect_served_op(test, pair, &k[i],
					      IB_WR_RDMA_WRITE, &l->buf, 0);
		keys_expect_served_op(test, pair, &k[i], IB_WR_RDMA_READ,
				      &l->buf, 0);
	}
}

/*
 * Run @ctx as io_run() does, but post its chain in two parts: its leading
 * registrations first (the last of them signaled, so that their keys are
 * known to be valid), then the rest.  Between the two the attacker that
 * keys_expect_dead() sends after the destroy makes, on the same kind of
 * connection and with the same op, key and length, the access each key
 * serves while it lives: the positive control without which a refusal
 * could be an attacker that never reached the key.  What a key serves on
 * siw: an iWARP READ sink grants REMOTE_WRITE, and siw answers a READ
 * through any live key (core/quirks.c), a WRITE source's included.  On rxe
 * a pool key grants the peer nothing, so there is nothing to serve: the
 * refusal checks the rights (keys_expect_dead() says so).
 */
static int keys_run_controlled(struct kunit *test,
			       struct mrcore_e2e_pair *pair,
			       struct io_local *l, struct rdma_io_ctx *ctx,
			       const struct keys_named *k, unsigned int n,
			       bool read)
{
	struct mrcore_e2e_side *side = &pair->active;
	struct ib_send_wr *chain, *reg, *rest;
	const struct ib_send_wr *bad = NULL;
	struct mrcore_e2e_wait reg_w, w;
	struct ib_cqe *cqe;
	int flags, st;

	if (!io_on_iwarp(test))
		return io_run(test, side, ctx);
	mrcore_e2e_wait_init(&w);
	chain = rdma_io_ctx_wrs(ctx, &w.cqe, NULL);
	if (chain->opcode != IB_WR_REG_MR || !chain->next) {
		KUNIT_FAIL(test, "a pool I/O on siw registers first: opcode %d",
			   chain->opcode);
		return mrcore_e2e_io_finish(side, ctx, rdma_io_ctx_destroy,
					    ib_post_send(side->qp, chain, &bad),
					    &w, IO_TIMEOUT_MS);
	}
	reg = chain;
	while (reg->next->next && reg->next->opcode == IB_WR_REG_MR)
		reg = reg->next;
	rest = reg->next;
	reg->next = NULL;
	flags = reg->send_flags;
	cqe = reg->wr_cqe;
	reg->send_flags |= IB_SEND_SIGNALED;
	mrcore_e2e_wait_init(&reg_w);
	reg->wr_cqe = &reg_w.cqe;
	st = mrcore_e2e_post(side, chain, &reg_w, IO_TIMEOUT_MS);
	reg->send_flags = flags;
	reg->wr_cqe = cqe;
	reg->next = rest;
	if (st) {
		KUNIT_FAIL(test, "the I/O's registrations: %d", st);
		return mrcore_e2e_io_finish(side, ctx, rdma_io_ctx_destroy,
					    -EIO, &w, IO_TIMEOUT_MS);
	}
	keys_expect_served_siw(test, pair, k, n, l, read);
	return mrcore_e2e_io_finish(side, ctx, rdma_io_ctx_destroy,
				    ib_post_send(side->qp, rest, &bad), &w,
				    IO_TIMEOUT_MS);
}

/*
 * @bad_rkey: the peer's key is wrong, the I/O fails; @post: else destroyed
 * unposted.
 */
static void keys_io_shape_case(struct kunit *test, enum mrcore_shape shape,
			       bool read, bool post, bool bad_rkey,
			       const char *what)
{
	struct keys_named k[KEYS_MAX_KEYS] = {};
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	unsigned int n;
	u32 rkey;
	int st;

	keys_setup_shape(test, &f, shape, 1, read);
	rkey = bad_rkey ? f.owner->rkey ^ 0x80 : f.owner->rkey;
	KUNIT_ASSERT_GT(test, keys_init(test, &ctx, f.pool, f.l, f.owner, rkey,
					read), 0);
	n = keys_of(&ctx, k);
	if (post) {
		st = keys_run_controlled(test, f.pair, f.l, &ctx, k, n, read);
		/*
		 * An iWARP WRITE completes once sent, never acknowledged: the
		 * peer's refusal is the TERMINATE that breaks the connection,
		 * which may come after the completion.
		 */
		if (bad_rkey && !read && io_on_iwarp(test) &&
		    st == IB_WC_SUCCESS)
			KUNIT_EXPECT_TRUE_MSG(test,
					      mrcore_e2e_qp_failed(&f.pair->active,
								   5000),
					      "the WRITE through a bad rkey was not refused");
		else if (bad_rkey)
			KUNIT_EXPECT_NE(test, st, IB_WC_SUCCESS);
		else
			KUNIT_EXPECT_EQ(test, st, IB_WC_SUCCESS);
	} else {
		rdma_io_ctx_destroy(&ctx, NULL);
	}
	keys_expect_dead(test, f.pair, k, n, &f.l->buf, what);
}

/* keys_io_shape_case() for an I/O of 8 scattered pages. */
static void keys_io_case(struct kunit *test, bool read, bool post,
			 bool bad_rkey, const char *what)
{
	keys_io_shape_case(test, SHAPE_8_PAGES, read, post, bad_rkey, what);
}

/*
 * The hole: an iWARP READ whose completion failed never ran its
 * READ_WITH_INV; its sink's STag grants REMOTE_WRITE.
 */
static void keys_iwarp_failed_read(struct kunit *test)
{
	keys_io_case(test, true, true, true,
		     "memory of a failed iWARP READ after its destroy");
}

static void keys_failed_read(struct kunit *test)
{
	keys_io_case(test, true, true, true,
		     "memory of a failed READ after its destroy");
}

static void keys_failed_write(struct kunit *test)
{
	keys_io_case(test, false, true, true,
		     "memory of a failed WRITE after its destroy");
}

static void keys_success_read(struct kunit *test)
{
	keys_io_case(test, true, true, false,
		     "memory of a READ after its destroy");
}

static void keys_success_write(struct kunit *test)
{
	keys_io_case(test, false, true, false,
		     "memory of a WRITE after its destroy");
}

/*
 * A READ of one DMA entry, which on iWARP skips the summary pass
 * (mrcore_io_init_one_mr()): its sink dies with it, after a success and
 * after a failure.
 */
static void keys_success_read_one_entry(struct kunit *test)
{
	keys_io_shape_case(test, SHAPE_1_PAGE, true, true, false,
			   "memory of a one-page READ after its destroy");
}

static void keys_failed_read_one_entry(struct kunit *test)
{
	keys_io_shape_case(test, SHAPE_1_PAGE, true, true, true,
			   "memory of a failed one-page READ after its destroy");
}

static void keys_never_posted(struct kunit *test)
{
	keys_io_case(test, true, false, false,
		     "memory of an unposted READ after its destroy");
}

static void keys_disarm(void *point)
{
	rdma_mrcore_fault_arm(point, 0, 0);
}

/*
 * A READ whose chain the driver took only in part: the fault point post_wr
 * lets it take the registration and refuses the READ, as a send queue with
 * room for one WR does.  The post says so (-EINPROGRESS); the ULP drains the
 * QP, then destroys the I/O without a completion: nothing stays mapped or
 * held, and the key the registration made valid (on iWARP a sink that
 * grants REMOTE_WRITE) is dead.
 */
static void keys_partial_post_fault(struct kunit *test)
{
	struct keys_named k[KEYS_MAX_KEYS] = {};
	struct rdma_io_ctx ctx, mark_ctx;
	struct rdma_io_pool *mark_pool;
	struct ib_cqe cqe = {};
	struct io_local *mark;
	struct io_fixture f;
	unsigned int n;
	long maps;
	int ret;

	keys_setup(test, &f, 1, true);
	mark_pool = io_pool(test, &f.pair->active, 1, 1);
	mark = io_local_create(test, &mrcore_shapes[SHAPE_1_PAGE]);
	maps = rdma_mrcore_dma_maps_live();
	/* REG_MR, then READ_WITH_INV on siw, READ on rxe */
	KUNIT_ASSERT_EQ(test, keys_init(test, &ctx, f.pool, f.l, f.owner,
					f.owner->rkey, true), 2);
	n = keys_of(&ctx, k);
	ret = kunit_add_action_or_reset(test, keys_disarm, (void *)"post_wr");
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, rdma_mrcore_fault_arm("post_wr", 1, 1), 0);
	ret = rdma_io_ctx_post(&ctx, &cqe, NULL);
	KUNIT_EXPECT_EQ(test, rdma_mrcore_fault_hits("post_wr"), 1);
	rdma_mrcore_fault_arm("post_wr", 0, 0);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINPROGRESS,
			    "a chain the driver took in part");
	/*
	 * The registration the driver took has run once a READ posted
	 * behind it on the same send queue has completed (a send queue
	 * executes in order): its key was valid.  Then drain.
	 */
	KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&mark_ctx, mark_pool, mark->sg,
					       mark->nents, 0, f.owner->iova,
					       f.owner->rkey, DMA_FROM_DEVICE),
			0);
	KUNIT_ASSERT_EQ_MSG(test, io_run(test, &f.pair->active, &mark_ctx),
			    IB_WC_SUCCESS, "the READ behind the registration");
	keys_expect_served_siw(test, f.pair, k, n, f.l, true);
	ib_drain_qp(f.pair->active.qp);
	rdma_io_ctx_destroy(&ctx, NULL);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps,
			    "the I/O's memory is still mapped");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
	keys_expect_dead(test, f.pair, k, n, &f.l->buf,
			 "memory of a partially posted READ after drain and destroy");
}

static void keys_map_post(struct kunit *test, struct mrcore_e2e_pair *pair,
			  struct ib_send_wr *chain, struct mrcore_e2e_wait *w)
{
	KUNIT_ASSERT_EQ(test, IB_WC_SUCCESS,
			mrcore_e2e_post(&pair->active, chain, w,
					IO_TIMEOUT_MS));
}

static void keys_map_case(struct kunit *test, bool reset)
{
	struct ib_send_wr *chain = NULL;
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait w;
	struct keys_named k = {};
	struct io_local *l;
	struct rdma_mr *mr;

	pair = io_pair(test, 0, 0);
	l = io_local_create(test, &mrcore_shapes[SHAPE_1_PAGE]);
	mr = rdma_create_mr(pair->active.pd, 1, RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(mr, &w.cqe);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(&k.key, &k.iova, mr, l->sg, 1,
						  RDMA_MR_REMOTE_READ |
						  RDMA_MR_REMOTE_WRITE,
						  &chain));
	k.remote = true;
	keys_map_post(test, pair, chain, &w);
	/* Served while the key lives, refused once the call returned. */
	keys_expect_served(test, pair, &k, &l->buf);
	if (reset) {
		KUNIT_EXPECT_EQ(test, 0, rdma_mr_reset(mr));
	} else {
		chain = NULL;
		mrcore_e2e_wait_init(&w);
		KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr, &chain));
		keys_map_post(test, pair, chain, &w);
		KUNIT_EXPECT_EQ(test, 0, rdma_unmap_mr(mr));
	}
	keys_expect_dead(test, pair, &k, 1, &l->buf,
			 reset ? "memory of a reset MR" :
				 "memory of an invalidated, unmapped MR");
	rdma_destroy_mr(mr);
}

/* An rkey MR over @l's memory, registered on the pair's active end. */
static struct rdma_mr *keys_rkey_mr(struct kunit *test,
				    struct mrcore_e2e_pair *pair,
				    struct io_local *l, struct keys_named *k)
{
	struct ib_send_wr *chain = NULL;
	struct mrcore_e2e_wait w;
	struct rdma_mr *mr;

	mr = rdma_create_mr(pair->active.pd, 1, RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(mr, &w.cqe);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(&k->key, &k->iova, mr, l->sg,
						  1, RDMA_MR_REMOTE_WRITE,
						  &chain));
	k->remote = true;
	keys_map_post(test, pair, chain, &w);
	rdma_mr_set_cqe(mr, NULL);
	return mr;
}

/*
 * The peer's SEND_WITH_INV names @mr's key, or (@wrong) the key of another
 * MR of the same PD, a bogus remote invalidation.  The receive completion
 * is checked against @mr: 0 for its key; -EKEYREJECTED for the other,
 * whose MR it invalidated instead, while @mr's key stays valid until the
 * local invalidation.  Afterwards neither key lets the attacker in.
 */
static void keys_remote_inv_case(struct kunit *test, bool wrong)
{
	struct keys_named k[2] = {};
	struct mrcore_e2e_pair *pair;
	struct ib_send_wr send = {}, *chain = NULL;
	struct ib_recv_wr recv = {};
	struct mrcore_e2e_wait w;
	struct io_local *l[2];
	struct rdma_mr *mr[2];
	struct keys_recv r;
	unsigned long left;
	unsigned int i;

	pair = io_pair(test, 0, 0);
	for (i = 0; i < 2; i++) {
		l[i] = io_local_create(test, &mrcore_shapes[SHAPE_1_PAGE]);
		mr[i] = keys_rkey_mr(test, pair, l[i], &k[i]);
		/* The control: what the key grants, served while it lives. */
		keys_expect_served_op(test, pair, &k[i], IB_WR_RDMA_WRITE,
				      &l[i]->buf, 0);
	}
	init_completion(&r.done);
	r.cqe.done = keys_recv_done;
	recv.wr_cqe = &r.cqe;
	KUNIT_ASSERT_EQ(test, 0, ib_post_recv(pair->active.qp, &recv, NULL));
	send.opcode = IB_WR_SEND;
	send.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, 0, rdma_send_with_inv(&send, k[wrong].key));
	mrcore_e2e_wait_init(&w);
	send.wr_cqe = &w.cqe;
	KUNIT_ASSERT_EQ(test, IB_WC_SUCCESS,
			mrcore_e2e_post(&pair->passive, &send, &w,
					IO_TIMEOUT_MS));
	left = wait_for_completion_timeout(&r.done,
					   msecs_to_jiffies(IO_TIMEOUT_MS));
	KUNIT_ASSERT_GT_MSG(test, left, 0, "the SEND_WITH_INV never arrived");
	KUNIT_ASSERT_EQ(test, r.wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, r.wc.wc_flags & IB_WC_WITH_INVALIDATE);

	if (wrong) {
		KUNIT_EXPECT_EQ(test, rdma_mr_check_remote_inv(mr[0], &r.wc),
				-EKEYREJECTED);
		KUNIT_EXPECT_EQ_MSG(test, rdma_unmap_mr(mr[0]), -EBUSY,
				    "a bogus invalidation counted as the MR's");
		mrcore_e2e_wait_init(&w);
		rdma_mr_set_cqe(mr[0], &w.cqe);
		KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr[0], &chain));
		keys_map_post(test, pair, chain, &w);
		rdma_mr_set_cqe(mr[0], NULL);
	}
	KUNIT_EXPECT_EQ(test, rdma_mr_check_remote_inv(mr[wrong], &r.wc), 0);
	/* The other MR still has its key: kill it here. */
	if (!wrong) {
		chain = NULL;
		mrcore_e2e_wait_init(&w);
		rdma_mr_set_cqe(mr[1], &w.cqe);
		KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr[1], &chain));
		keys_map_post(test, pair, chain, &w);
		rdma_mr_set_cqe(mr[1], NULL);
	}
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr[i]), 0);
		keys_expect_dead(test, pair, &k[i], 1, &l[i]->buf,
				 "memory of a remotely invalidated MR");
		rdma_destroy_mr(mr[i]);
	}
}

static void keys_remote_inv(struct kunit *test)
{
	keys_remote_inv_case(test, false);
}

static void keys_remote_inv_wrong_key(struct kunit *test)
{
	keys_remote_inv_case(test, true);
}

static void keys_map_unmap(struct kunit *test)
{
	keys_map_case(test, false);
}

static void keys_map_reset(struct kunit *test)
{
	keys_map_case(test, true);
}

static void keys_pool_destroy(struct kunit *test)
{
	struct keys_named k[KEYS_MAX_KEYS] = {};
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct io_owner *owner;
	struct rdma_io_ctx ctx;
	struct io_local *l;
	unsigned int n;

	pair = io_pair(test, 1, 8);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	l = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	pool = rdma_io_pool_create(pair->active.qp, pair->active.cm_id->port_num,
				   1, 8);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	mrcore_e2e_buf_fill(&l->buf, KEYS_SEED_LOCAL);
	if (keys_init(test, &ctx, pool, l, owner, owner->rkey, false) <= 0) {
		rdma_io_pool_destroy(pool);
		KUNIT_FAIL(test, "I/O init");
		return;
	}
	n = keys_of(&ctx, k);
	KUNIT_EXPECT_EQ(test, keys_run_controlled(test, pair, l, &ctx, k, n,
						  false), IB_WC_SUCCESS);
	rdma_io_pool_destroy(pool);
	keys_expect_dead(test, pair, k, n, &l->buf,
			 "memory of a WRITE after its pool's destroy");
}

static void keys_pair_release(void *pair)
{
	mrcore_e2e_pair_destroy(pair);
}

/* A pair whose send queues hold one WR: a chain of two is taken in part. */
static struct mrcore_e2e_pair *keys_pair_sq1(struct kunit *test)
{
	static const struct mrcore_e2e_caps caps = {
		.max_send_wr = 1,
		.max_send_sge = 4,
		.rd_atom = 4,	/* as the harness's default pairs */
	};
	const struct mrcore_e2e_target *t = test->priv;
	struct mrcore_e2e_pair *pair = NULL;
	int ret;

	ret = mrcore_e2e_pair_create_caps(t, &caps, &pair);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "connecting over %s failed", t->name);
	ret = kunit_add_action_or_reset(test, keys_pair_release, pair);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return pair;
}

/*
 * A flushed completion: I/O @a READs through a wrong rkey and breaks the
 * connection; I/O @b, posted right behind it, is flushed, its registration
 * run or not.  Both are destroyed with their completions.
 */
static void keys_flushed(struct kunit *test)
{
	struct keys_named k[2 * KEYS_MAX_KEYS] = {};
	struct mrcore_e2e_wait *w;
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx a, b;
	struct io_owner *owner;
	struct io_local *la, *lb;
	struct ib_wc wca = {}, wcb = {};
	unsigned int n;
	int sa, sb;

	/* Freed after the pair: a completion may come until its CQ goes. */
	w = kunit_kcalloc(test, 2, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	pair = io_pair(test, 2, 8);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	la = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	lb = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	pool = io_pool(test, &pair->active, 2, 8);
	mrcore_e2e_buf_fill_range(&owner->buf, 0, lb->len, KEYS_SEED_OWNER);
	KUNIT_ASSERT_GT(test, keys_init(test, &a, pool, la, owner,
					owner->rkey ^ 0x80, true), 0);
	if (keys_init(test, &b, pool, lb, owner, owner->rkey, true) <= 0) {
		rdma_io_ctx_destroy(&a, NULL);
		KUNIT_FAIL(test, "I/O init");
		return;
	}
	n = keys_of(&a, k);
	n += keys_of(&b, k + n);
	mrcore_e2e_wait_init(&w[0]);
	mrcore_e2e_wait_init(&w[1]);
	KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&a, &w[0].cqe, NULL));
	KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&b, &w[1].cqe, NULL));
	sa = mrcore_e2e_wait_done(&pair->active, &w[0], IO_TIMEOUT_MS);
	sb = mrcore_e2e_wait_done(&pair->active, &w[1], IO_TIMEOUT_MS);
	KUNIT_EXPECT_NE(test, sa, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, sb, IB_WC_WR_FLUSH_ERR,
			    "the I/O behind the failed one was not flushed");
	wca.status = sa < 0 ? IB_WC_GENERAL_ERR : sa;
	wcb.status = sb < 0 ? IB_WC_GENERAL_ERR : sb;
	rdma_io_ctx_destroy(&a, &wca);
	rdma_io_ctx_destroy(&b, &wcb);
	kunit_info(test, "failed I/O: status %d; the one behind it: status %d\n",
		   sa, sb);
	keys_expect_dead(test, pair, k, n, &lb->buf,
			 "memory of a flushed READ after its destroy");
}

/*
 * A partial post: the send queue holds one WR, the chain's registration
 * is taken and its READ or WRITE refused (-EINPROGRESS).  The registration
 * runs (signaled here, so the test knows its key is live), the ULP drains
 * the send queue and destroys the I/O without a completion.
 */
static void keys_partial_post(struct kunit *test, bool read)
{
	struct keys_named k[KEYS_MAX_KEYS] = {};
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait *w;
	struct rdma_io_pool *pool;
	struct io_owner *owner;
	struct rdma_io_ctx ctx;
	struct io_local *l;
	unsigned int n;
	int ret, st;

	w = kunit_kcalloc(test, 2, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	pair = keys_pair_sq1(test);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	l = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	pool = io_pool(test, &pair->active, 1, 8);
	mrcore_e2e_buf_fill_range(&owner->buf, 0, l->len, KEYS_SEED_OWNER);
	if (!read)
		mrcore_e2e_buf_fill(&l->buf, KEYS_SEED_LOCAL);
	ret = keys_init(test, &ctx, pool, l, owner, owner->rkey, read);
	KUNIT_ASSERT_GE(test, ret, 2);
	n = keys_of(&ctx, k);
	KUNIT_ASSERT_EQ(test, ctx.first->opcode, IB_WR_REG_MR);
	mrcore_e2e_wait_init(&w[0]);
	mrcore_e2e_wait_init(&w[1]);
	ctx.first->wr_cqe = &w[0].cqe;
	ctx.first->send_flags |= IB_SEND_SIGNALED;
	ret = rdma_io_ctx_post(&ctx, &w[1].cqe, NULL);
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINPROGRESS,
			    "a send queue of one took a chain of %u",
			    ctx.nr_wrs);
	st = mrcore_e2e_wait_done(&pair->active, &w[0], IO_TIMEOUT_MS);
	KUNIT_EXPECT_EQ_MSG(test, st, IB_WC_SUCCESS,
			    "the registration taken did not run");
	if (!st)
		keys_expect_served_siw(test, pair, k, n, l, read);
	if (!ret)
		mrcore_e2e_wait_done(&pair->active, &w[1], IO_TIMEOUT_MS);
	ib_drain_sq(pair->active.qp);
	rdma_io_ctx_destroy(&ctx, NULL);
	keys_expect_dead(test, pair, k, n, &l->buf,
			 read ? "memory of a partly posted READ after its destroy" :
				"memory of a partly posted WRITE after its destroy");
}

static void keys_partial_post_read(struct kunit *test)
{
	keys_partial_post(test, true);
}

static void keys_partial_post_write(struct kunit *test)
{
	keys_partial_post(test, false);
}

/*
 * The QP is destroyed with an I/O in flight: no completion comes (or a
 * flush, which the test does not wait for); the ULP destroys the I/O
 * without one.
 */
static void keys_qp_destroy(struct kunit *test)
{
	struct keys_named k[KEYS_MAX_KEYS] = {};
	struct mrcore_e2e_wait *w;
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	unsigned int n;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	keys_setup(test, &f, 1, true);
	KUNIT_ASSERT_GT(test, keys_init(test, &ctx, f.pool, f.l, f.owner,
					f.owner->rkey, true), 0);
	n = keys_of(&ctx, k);
	mrcore_e2e_wait_init(w);
	KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&ctx, &w->cqe, NULL));
	rdma_destroy_qp(f.pair->active.cm_id);
	f.pair->active.qp = NULL;
	rdma_io_ctx_destroy(&ctx, NULL);
	keys_expect_dead(test, f.pair, k, n, &f.l->buf,
			 "memory of a READ after its QP's destroy");
}

/* Rule 3 of the design: a key value does not come back within 65,536 uses. */
#define KEYS_NO_RECUR		65536
#define KEYS_RECUR_IOS		3000
#define KEYS_RECUR_POOL		4

/*
 * 3,000 WRITEs of one byte through a pool of 4 MRs, each I/O one MR, the
 * pool's 4 in flight at once (on rxe in the test guest 8 pages one at a
 * time took 228 s, a page 4 at a time 87 s, a byte 20 s): every MR hands
 * out about 750 keys, so each has its device MR replaced twice.  Reports
 * the smallest distance, in I/Os, between two hand-outs of one key value:
 * there must be none within the 3,000 (keys_no_recurrence_65536() takes
 * one MR to 65,536 maps).
 */
static void keys_recurrence(struct kunit *test)
{
	unsigned int i, j, b, distinct = 0, indices = 0;
	struct rdma_io_ctx *ctx;
	struct mrcore_e2e_wait *w;
	struct io_fixture f;
	u64 min = 0;
	u32 *keys;

	keys = kunit_kcalloc(test, KEYS_RECUR_IOS, sizeof(*keys), GFP_KERNEL);
	ctx = kunit_kcalloc(test, KEYS_RECUR_POOL, sizeof(*ctx), GFP_KERNEL);
	/* Freed after the pair: a completion may come until its drain. */
	w = kunit_kcalloc(test, KEYS_RECUR_POOL, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, w);
	io_fixture_create(test, &f, &mrcore_shapes[SHAPE_1_BYTE],
			  KEYS_RECUR_POOL, 8, "frwr");
	KUNIT_ASSERT_EQ(test, rdma_io_pool_size(f.pool), KEYS_RECUR_POOL);
	mrcore_e2e_buf_fill(&f.l->buf, KEYS_SEED_LOCAL);
	for (i = 0; i < KEYS_RECUR_IOS; i += KEYS_RECUR_POOL) {
		unsigned int n = min_t(unsigned int, KEYS_RECUR_POOL,
				       KEYS_RECUR_IOS - i);
		int st[KEYS_RECUR_POOL];

		for (b = 0; b < n; b++) {
			KUNIT_ASSERT_GT(test,
					rdma_io_ctx_init(&ctx[b], f.pool,
							 f.l->sg, f.l->nents, 0,
							 f.owner->iova,
							 f.owner->rkey,
							 DMA_TO_DEVICE), 0);
			KUNIT_ASSERT_EQ(test, ctx[b].nr_mrs, 1u);
			keys[i + b] = ctx[b].mrs[0]->key;
			mrcore_e2e_wait_init(&w[b]);
			st[b] = rdma_io_ctx_post(&ctx[b], &w[b].cqe, NULL);
		}
		for (b = 0; b < n; b++)
			st[b] = mrcore_e2e_io_finish(&f.pair->active, &ctx[b],
						     rdma_io_ctx_destroy, st[b],
						     &w[b], IO_TIMEOUT_MS);
		for (b = 0; b < n; b++)
			KUNIT_ASSERT_EQ_MSG(test, st[b], IB_WC_SUCCESS, "I/O %u",
					    i + b);
	}
	mrcore_e2e_expect_data(test, &f.owner->buf, 0, f.l->len,
			       KEYS_SEED_LOCAL, "the last WRITEs' sink");
	/* The nearest earlier use of each key value; quadratic, but small. */
	for (i = 0; i < KEYS_RECUR_IOS; i++) {
		bool seen = false, index_seen = false;

		for (j = i; j-- > 0;) {
			if (!index_seen && keys[j] >> 8 == keys[i] >> 8)
				index_seen = true;
			if (keys[j] == keys[i]) {
				if (!min || i - j < min)
					min = i - j;
				seen = true;
				break;
			}
		}
		distinct += !seen;
		indices += !index_seen;
	}
	kunit_info(test, "pool of %u, %u I/Os: %u distinct keys on %u device MR indices, minimum recurrence distance %llu%s\n",
		   KEYS_RECUR_POOL, KEYS_RECUR_IOS, distinct, indices, min,
		   min ? "" : " (none came back)");
	/* Each MR's device MR was replaced: more indices than MRs. */
	KUNIT_EXPECT_GT(test, indices, KEYS_RECUR_POOL);
	KUNIT_EXPECT_EQ_MSG(test, min, 0,
			    "a key value came back after %llu I/Os", min);
}

/* A key value a mapping handed out, and which mapping it was. */
struct keys_use {
	u32 key;
	u32 at;
};

static int keys_use_cmp(const void *a, const void *b)
{
	const struct keys_use *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Sort @n key uses by value and count the values that came back: returns
 * how many did, *@min the nearest two uses of one value, *@indices the
 * device MR indices (a key but its variable byte) seen.
 */
static u32 keys_recurrences(struct keys_use *use, u32 n, u32 *min,
			    u32 *indices)
{
	u32 i, again = 0;

	*min = 0;
	*indices = 0;
	sort(use, n, sizeof(*use), keys_use_cmp, NULL);
	for (i = 0; i < n; i++) {
		*indices += !i || use[i].key >> 8 != use[i - 1].key >> 8;
		if (!i || use[i].key != use[i - 1].key)
			continue;
		again++;
		if (!*min || use[i].at - use[i - 1].at < *min)
			*min = use[i].at - use[i - 1].at;
	}
	return again;
}

static void keys_kvfree(void *p)
{
	kvfree(p);
}

static void keys_mr_release(void *mr)
{
	rdma_unmap_mr(mr);	/* -EINVAL when not mapped */
	rdma_destroy_mr(mr);
}

/*
 * "No key value of an MR comes back within 65,536 of its mappings", on
 * the driver's own device MRs: one lkey MR mapped and unmapped
 * KEYS_NO_RECUR times.  A key's value is fixed when the map builds its
 * registration (the key byte the core turns, and the device MR the driver
 * gave when the core last replaced it), so the registrations are not
 * posted: the test then takes seconds, not the hours of 65,536 I/Os under
 * TCG (keys_recurrence moves data through 3,000).  Sorted by value, two
 * equal neighbours would be a recurrence, their distance its distance.
 * On rxe the device MR is replaced every 256 maps and rxe hands out its
 * indices cyclically over 2^19.  On siw it is replaced at every unmap
 * (core/quirks.c), and siw (6.12, siw_mr_add_mem()) draws each new MR's
 * index at random from 2^24 with the key byte at 0: by the birthday bound
 * about 128 of 65,536 keys would come back.  The device remembers the
 * indices the core gave back and refuses a new device MR with one of the
 * last 65,536 (core/mrindex.c): on both, no value may come back, and on
 * siw the refusals (counter mr_index_refused) show the memory at work.
 */
static void keys_no_recurrence_65536(struct kunit *test)
{
	struct mrcore_e2e_pair *pair = io_pair(test, 0, 0);
	struct io_local *l = io_local_create(test,
					     &mrcore_shapes[SHAPE_1_PAGE]);
	u32 i, again, indices, min;
	u64 refused0 = 0, refused = 0;
	struct keys_use *use;
	struct rdma_mr *mr;
	int ret;

	use = kvcalloc(KEYS_NO_RECUR, sizeof(*use), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, use);
	ret = kunit_add_action_or_reset(test, keys_kvfree, use);
	KUNIT_ASSERT_EQ(test, ret, 0);
	mr = rdma_create_mr(pair->active.pd, 1, RDMA_MR_ROLE_LKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	ret = kunit_add_action_or_reset(test, keys_mr_release, mr);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = rdma_mrcore_device_counter(pair->active.device,
					 "mr_index_refused", &refused0);
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < KEYS_NO_RECUR; i++) {
		struct ib_send_wr *chain = NULL;

		ret = rdma_map_sg_lkey(&use[i].key, mr, l->sg, l->nents,
				       RDMA_MR_LOCAL_SEND_SRC, &chain);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "map %u", i);
		use[i].at = i;
		ret = rdma_unmap_mr(mr);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "unmap %u", i);
		if (!(i % 1024))
			cond_resched();
	}
	again = keys_recurrences(use, KEYS_NO_RECUR, &min, &indices);
	ret = rdma_mrcore_device_counter(pair->active.device,
					 "mr_index_refused", &refused);
	KUNIT_ASSERT_EQ(test, ret, 0);
	refused -= refused0;
	kunit_info(test, "%u maps of one MR: %u key values came back (nearest %u maps apart), %u device MR indices, %llu new device MRs refused for a recent index\n",
		   KEYS_NO_RECUR, again, min, indices, refused);
	KUNIT_EXPECT_EQ_MSG(test, again, 0,
			    "a key value came back after %u maps", min);
	if (pair->active.device->ops.driver_id == RDMA_DRIVER_SIW) {
		/* A new device MR per map, a random index each time. */
		KUNIT_EXPECT_GE(test, indices, KEYS_NO_RECUR - (u32)refused);
		/* 1 in 256 draws lands on a remembered index, once it fills. */
		KUNIT_EXPECT_GT(test, refused, 0);
		return;
	}
	/* At least a device MR per 256 maps: the key byte's values. */
	KUNIT_EXPECT_GE(test, indices, KEYS_NO_RECUR / 256);
	KUNIT_EXPECT_EQ(test, refused, 0);
}

/*
 * keys_no_recurrence_65536's claim, measured through I/Os that run:
 * KEYS_NO_RECUR registering I/Os on the device, each a WRITE of one byte
 * through a pool of one MR forced onto frwr, so that every I/O registers
 * (on siw as on rxe), every key recorded.  KUnit gives a case 300 s and
 * an I/O takes milliseconds under TCG: the I/Os run in KEYS_IO_PARTS
 * cases, each with a pool of its own (one device MR more per part, as a
 * ULP's pools come and go), whose keys add up here per device; the last
 * part sorts them and reports.  A part that finds an earlier one did not
 * run whole fails.
 */
#define KEYS_IO_PARTS	16

struct keys_io_tally {
	struct keys_use *use;	/* KEYS_NO_RECUR of them, from part 1 */
	u32 n;
	u32 parts;		/* parts that ran whole */
	unsigned long ms;
};

static struct keys_io_tally keys_io_tally[2];	/* siw, rxe */

static const unsigned int keys_io_parts[KEYS_IO_PARTS] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

static void keys_io_part_desc(const unsigned int *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "part %u of %u", *p,
		 KEYS_IO_PARTS);
}

KUNIT_ARRAY_PARAM(keys_io_part, keys_io_parts, keys_io_part_desc);

/* The last part: sort the keys by value, count the values that came back. */
static void keys_io_report(struct kunit *test, struct keys_io_tally *t)
{
	u32 again, indices, min;

	again = keys_recurrences(t->use, t->n, &min, &indices);
	kunit_info(test, "%u registering I/Os (pools of one MR, %u parts, %lu s): %u key values came back (nearest %u I/Os apart), %u device MR indices\n",
		   t->n, t->parts, t->ms / 1000, again, min, indices);
	KUNIT_EXPECT_EQ(test, t->n, KEYS_NO_RECUR);
	KUNIT_EXPECT_EQ_MSG(test, again, 0,
			    "a key value came back after %u I/Os", min);
	/* A new device MR at least every 256 keys, one per pool besides. */
	KUNIT_EXPECT_GE(test, indices, KEYS_NO_RECUR / 256);
}

static void keys_io_no_recurrence(struct kunit *test)
{
	const unsigned int *part = test->param_value;
	struct keys_io_tally *t = &keys_io_tally[io_on_iwarp(test) ? 0 : 1];
	u32 i, per = KEYS_NO_RECUR / KEYS_IO_PARTS;
	unsigned long start = jiffies;
	struct io_fixture f;

	if (*part == 1) {
		kvfree(t->use);
		memset(t, 0, sizeof(*t));
		t->use = kvcalloc(KEYS_NO_RECUR, sizeof(*t->use), GFP_KERNEL);
	}
	KUNIT_ASSERT_NOT_NULL(test, t->use);
	KUNIT_ASSERT_EQ_MSG(test, t->parts, *part - 1,
			    "an earlier part did not run whole");
	io_fixture_create(test, &f, &mrcore_shapes[SHAPE_1_BYTE], 1, 8,
			  "frwr");
	KUNIT_ASSERT_EQ(test, rdma_io_pool_size(f.pool), 1u);
	mrcore_e2e_buf_fill(&f.l->buf, KEYS_SEED_LOCAL);
	for (i = 0; i < per; i++) {
		struct rdma_io_ctx ctx;
		int st;

		KUNIT_ASSERT_GT(test,
				rdma_io_ctx_init(&ctx, f.pool, f.l->sg,
						 f.l->nents, 0, f.owner->iova,
						 f.owner->rkey, DMA_TO_DEVICE),
				0);
		KUNIT_ASSERT_EQ(test, ctx.nr_mrs, 1u);
		t->use[t->n].key = ctx.mrs[0]->key;
		t->use[t->n].at = t->n;
		t->n++;
		st = io_run(test, &f.pair->active, &ctx);
		KUNIT_ASSERT_EQ_MSG(test, st, IB_WC_SUCCESS, "I/O %u",
				    t->n - 1);
	}
	mrcore_e2e_expect_data(test, &f.owner->buf, 0, f.l->len,
			       KEYS_SEED_LOCAL, "the last WRITE's sink");
	t->ms += jiffies_to_msecs(jiffies - start);
	t->parts++;
	if (*part == KEYS_IO_PARTS)
		keys_io_report(test, t);
}

/* What the parts of keys_io_no_recurrence() left. */
static void keys_suite_exit(struct kunit_suite *suite)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys_io_tally); i++) {
		kvfree(keys_io_tally[i].use);
		memset(&keys_io_tally[i], 0, sizeof(keys_io_tally[i]));
	}
}

/*
 * A peer kept the key of map 0 of one MR; at map 256 the MR exposes new
 * bytes at the same place.  The old key must not READ them.
 */
static void keys_stale_read_at_256(struct kunit *test)
{
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait w;
	struct io_local *l;
	struct rdma_mr *mr;
	u32 key0 = 0, key;
	unsigned int i;
	u64 iova;

	pair = io_pair(test, 0, 0);
	l = io_local_create(test, &mrcore_shapes[SHAPE_1_PAGE]);
	mr = rdma_create_mr(pair->active.pd, 1, RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	rdma_mr_set_cqe(mr, &w.cqe);
	for (i = 0; i <= 256; i++) {
		struct ib_send_wr *chain = NULL;

		mrcore_e2e_wait_init(&w);
		if (rdma_map_sg_rkey(&key, &iova, mr, l->sg, 1,
				     RDMA_MR_REMOTE_READ, &chain)) {
			KUNIT_FAIL(test, "map %u", i);
			break;
		}
		if (mrcore_e2e_post(&pair->active, chain, &w, IO_TIMEOUT_MS)) {
			KUNIT_FAIL(test, "registration %u", i);
			rdma_mr_reset(mr);
			break;
		}
		if (!i)
			key0 = key;
		if (i == 256) {
			struct keys_named k = { .key = key0, .iova = iova,
						 .remote = true };

			kunit_info(test, "key of map 0: 0x%x, of map 256: 0x%x\n",
				   key0, key);
			mrcore_e2e_buf_fill(&l->buf, KEYS_SEED_REUSED);
			io_key_refused(test, pair, IB_WR_RDMA_READ, k.key,
				       k.iova, &l->buf, 0);
		}
		chain = NULL;
		mrcore_e2e_wait_init(&w);
		if (rdma_invalidate_mr(mr, &chain) ||
		    mrcore_e2e_post(&pair->active, chain, &w, IO_TIMEOUT_MS)) {
			KUNIT_FAIL(test, "invalidation %u", i);
			rdma_mr_reset(mr);
			break;
		}
		KUNIT_EXPECT_EQ(test, 0, rdma_unmap_mr(mr));
	}
	rdma_destroy_mr(mr);
}

static struct kunit_case keys_siw_cases[] = {
	KUNIT_CASE(keys_iwarp_failed_read),
	KUNIT_CASE(keys_failed_write),
	KUNIT_CASE(keys_success_read),
	KUNIT_CASE(keys_success_write),
	KUNIT_CASE(keys_success_read_one_entry),
	KUNIT_CASE(keys_failed_read_one_entry),
	KUNIT_CASE(keys_never_posted),
	KUNIT_CASE(keys_partial_post_fault),
	KUNIT_CASE(keys_remote_inv),
	KUNIT_CASE(keys_remote_inv_wrong_key),
	KUNIT_CASE(keys_map_unmap),
	KUNIT_CASE(keys_map_reset),
	KUNIT_CASE(keys_pool_destroy),
	KUNIT_CASE(keys_flushed),
	KUNIT_CASE(keys_partial_post_read),
	KUNIT_CASE(keys_partial_post_write),
	KUNIT_CASE(keys_qp_destroy),
	KUNIT_CASE_SLOW(keys_recurrence),
	KUNIT_CASE_SLOW(keys_no_recurrence_65536),
	KUNIT_CASE_SLOW(keys_stale_read_at_256),
	KUNIT_CASE_PARAM_ATTR(keys_io_no_recurrence, keys_io_part_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	{}
};

static struct kunit_case keys_rxe_cases[] = {
	KUNIT_CASE(keys_failed_read),
	KUNIT_CASE(keys_failed_write),
	KUNIT_CASE(keys_success_read),
	KUNIT_CASE(keys_success_write),
	KUNIT_CASE(keys_success_read_one_entry),
	KUNIT_CASE(keys_failed_read_one_entry),
	KUNIT_CASE(keys_never_posted),
	KUNIT_CASE(keys_partial_post_fault),
	KUNIT_CASE(keys_remote_inv),
	KUNIT_CASE(keys_remote_inv_wrong_key),
	KUNIT_CASE(keys_map_unmap),
	KUNIT_CASE(keys_map_reset),
	KUNIT_CASE(keys_pool_destroy),
	KUNIT_CASE(keys_flushed),
	KUNIT_CASE(keys_partial_post_read),
	KUNIT_CASE(keys_partial_post_write),
	KUNIT_CASE(keys_qp_destroy),
	KUNIT_CASE_SLOW(keys_recurrence),
	KUNIT_CASE_SLOW(keys_no_recurrence_65536),
	KUNIT_CASE_SLOW(keys_stale_read_at_256),
	KUNIT_CASE_PARAM_ATTR(keys_io_no_recurrence, keys_io_part_gen_params,
			      { .speed = KUNIT_SPEED_VERY_SLOW }),
	{}
};

static struct kunit_suite keys_siw_suite = {
	.name = "mrcore_keys_siw",
	.init = mrcore_e2e_siw_suite_init,
	.suite_exit = keys_suite_exit,
	.test_cases = keys_siw_cases,
};

static struct kunit_suite keys_rxe_suite = {
	.name = "mrcore_keys_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.suite_exit = keys_suite_exit,
	.test_cases = keys_rxe_cases,
};

kunit_test_suites(&keys_siw_suite, &keys_rxe_suite);
