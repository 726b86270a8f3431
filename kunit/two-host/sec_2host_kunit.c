// SPDX-License-Identifier: GPL-2.0-only
/*
 * The security rules of DESIGN.md across two kernels (make kunit-2host):
 * mrcore_sec_rxe_2host and mrcore_sec_siw_2host.
 *
 * The owner of the memory is the peer guest: it exposes a buffer with
 * rdma_map_sg_rkey() (or, for rule 1's attack, rdma_map_sg_lkey(), or its
 * PD's DMA lkey for rule 4's) on a control connection, and hands out the
 * key and address.  This kernel attacks them from a second connection (an
 * attacker on another connection of the peer's PD) with the I/O helper:
 * every forbidden access must end with the driver's error, leave the
 * attacking QP in the error state, and leave the peer's memory (checked by
 * the peer, byte for byte, with the guard bytes around it) untouched.  An
 * allowed access on the same connection first shows that the key and
 * address are right.  Where a device serves an access while the key lives
 * (the iWARP READ-sink exception, the siw READ defect of e2e_kunit.c), the
 * case shows it served, kills the key the API's way on the peer, and then
 * requires the access refused.
 *
 * One case runs the other way (siw only): this kernel's iWARP READ sink key
 * is dead once its READ completed, tried by the peer with a WRITE.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "client_2host.h"
#include "e2e_suite.h"
#include "io_e2e.h"

/* How each device reports a forbidden access (as e2e_kunit.c measured). */
struct sec_expect {
	u32 read_denied;
	u32 write_denied;
	bool read_ignores_access;
};

static const struct sec_expect sec_expect_rxe = {
	.read_denied = BIT(IB_WC_REM_ACCESS_ERR),
	.write_denied = BIT(IB_WC_REM_ACCESS_ERR),
};

static const struct sec_expect sec_expect_siw = {
	.read_denied = BIT(IB_WC_WR_FLUSH_ERR),
	.write_denied = BIT(IB_WC_SUCCESS) | BIT(IB_WC_LOC_QP_OP_ERR) |
			BIT(IB_WC_WR_FLUSH_ERR),
	.read_ignores_access = true,
};

#define SEC_SIW_READ_DEFECT \
	"siw 6.12 does not check REMOTE_READ on READ requests (siw_qp_tx.c: siw_check_sgl_tx(pd, wqe, 0))"

struct sec_ctx {
	const struct mrcore_e2e_target *target;
	const struct sec_expect *expect;
};

static bool sec_status_in(int status, u32 mask)
{
	return status >= 0 && status < 32 && (mask & BIT(status));
}

static const char *sec_status(int status)
{
	return status >= 0 ? ib_wc_status_msg(status) : "negative errno";
}

/* @len bytes of this kernel's memory, poisoned, freed with the test. */
static struct mrcore_e2e_buf *sec_buf(struct kunit *test, u32 len)
{
	struct mrcore_shape_desc d = {
		.name = "sec", .nents = 1, .offset = 0, .length = len,
		.stride = 1,
	};

	return &io_local_create(test, &d)->buf;
}

/*
 * This kernel READs into (or WRITEs, holding pattern @seed, from) a new
 * buffer of @len bytes, at @addr/@key of the peer, through the I/O helper
 * on @l's QP.  *@bufp: the buffer.  Returns the completion status.
 */
static int sec_xfer(struct kunit *test, struct peer_link *l,
		    struct rdma_io_pool *pool, bool read, u32 len, u64 addr,
		    u32 key, u32 seed, struct mrcore_e2e_buf **bufp)
{
	struct mrcore_e2e_buf *buf = sec_buf(test, len);
	struct rdma_io_ctx io;
	int ret;

	if (!read)
		mrcore_e2e_buf_fill(buf, seed);
	*bufp = buf;
	ret = rdma_io_ctx_init(&io, pool, buf->sg, buf->nents, 0, addr, key,
			       read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret < 0)
		return ret;
	return io_run(test, l->side, &io);
}

enum sec_kind {
	SEC_DEAD_AFTER_INVALIDATE,	/* rule 3 */
	SEC_DEAD_AFTER_REMAP,		/* rule 3 */
	SEC_LKEY_AS_RKEY,		/* rule 1 */
	SEC_OUTSIDE_RANGE,		/* rule 2: bytes */
	SEC_WRONG_OP,			/* rule 2: operation */
	SEC_PD_DMA_LKEY,		/* rule 4 */
};

/**
 * struct sec_case - a forbidden access from this kernel to the peer's memory
 * @desc: test description.
 * @kind: what is wrong with it.
 * @read: a READ, else a WRITE.
 * @ops: remote ops of the peer's rkey mapping, or local ops of its lkey
 *	mapping for %SEC_LKEY_AS_RKEY.
 * @addr_delta: added to the address for the denied access.
 * @len_delta: added to the mapped length for the denied access.
 * @iwarp_grants: on iWARP the key grants the access while it is mapped
 *	(a READ sink's key takes the READ response as a remote write).
 */
struct sec_case {
	const char *desc;
	enum sec_kind kind;
	bool read;
	unsigned int ops;
	int addr_delta;
	int len_delta;
	bool iwarp_grants;
};

#define RD true
#define WR false
static const struct sec_case sec_cases[] = {
	{ "rule 3: READ with an rkey the peer invalidated",
	  SEC_DEAD_AFTER_INVALIDATE, RD, RDMA_MR_REMOTE_READ },
	{ "rule 3: WRITE with an rkey the peer invalidated",
	  SEC_DEAD_AFTER_INVALIDATE, WR, RDMA_MR_REMOTE_WRITE },
	{ "rule 3: READ with the rkey of a remapped MR",
	  SEC_DEAD_AFTER_REMAP, RD, RDMA_MR_REMOTE_READ },
	{ "rule 3: WRITE with the rkey of a remapped MR",
	  SEC_DEAD_AFTER_REMAP, WR, RDMA_MR_REMOTE_WRITE },
	{ "rule 1: READ with an all-local-ops lkey as rkey",
	  SEC_LKEY_AS_RKEY, RD, RDMA_MR_LOCAL_ALL },
	{ "rule 1: WRITE with a SEND_SRC|WRITE_SRC lkey as rkey",
	  SEC_LKEY_AS_RKEY, WR,
	  RDMA_MR_LOCAL_SEND_SRC | RDMA_MR_LOCAL_WRITE_SRC },
	{ "rule 1: WRITE with a RECV_SINK lkey as rkey",
	  SEC_LKEY_AS_RKEY, WR, RDMA_MR_LOCAL_RECV_SINK },
	{ "rule 1: WRITE with a READ_SINK lkey as rkey (iWARP: until invalidated)",
	  SEC_LKEY_AS_RKEY, WR, RDMA_MR_LOCAL_READ_SINK, .iwarp_grants = true },
	{ "rule 2: READ one byte past the end",
	  SEC_OUTSIDE_RANGE, RD, RDMA_MR_REMOTE_READ, 0, 1 },
	{ "rule 2: READ from one byte before the address",
	  SEC_OUTSIDE_RANGE, RD, RDMA_MR_REMOTE_READ, -1, 0 },
	{ "rule 2: WRITE one byte past the end",
	  SEC_OUTSIDE_RANGE, WR, RDMA_MR_REMOTE_WRITE, 0, 1 },
	{ "rule 2: WRITE of the byte after the end",
	  SEC_OUTSIDE_RANGE, WR, RDMA_MR_REMOTE_WRITE, 100, -99 },
	{ "rule 2: WRITE from one byte before the address",
	  SEC_OUTSIDE_RANGE, WR, RDMA_MR_REMOTE_WRITE, -1, 0 },
	{ "rule 2: WRITE to a READ-only rkey",
	  SEC_WRONG_OP, WR, RDMA_MR_REMOTE_READ },
	{ "rule 2: READ from a WRITE-only rkey",
	  SEC_WRONG_OP, RD, RDMA_MR_REMOTE_WRITE },
	{ "rule 4: WRITE with the peer PD's local_dma_lkey as rkey",
	  SEC_PD_DMA_LKEY, WR, 0 },
	{ "rule 4: READ with the peer PD's local_dma_lkey as rkey",
	  SEC_PD_DMA_LKEY, RD, 0 },
};

#undef RD
#undef WR

KUNIT_ARRAY_PARAM_DESC(sec, sec_cases, desc);

/* 100 bytes at offset 200 of a page: no page granularity satisfies a
 * range check, and a WRITE is one segment.
 */
#define SEC_LEN		100
#define SEC_OFFSET	200
#define SEC_SEED	0x7007
#define SEC_ATTACK_SEED	0x8008
#define SEC_CTL_SEED	0x9009

static const char *sec_served_while_live(const struct sec_case *c,
					 const struct sec_ctx *ctx, bool iwarp)
{
	if (c->iwarp_grants && iwarp)
		return "iWARP READ sinks need REMOTE_WRITE (the documented exception)";
	if (c->read && ctx->expect->read_ignores_access &&
	    (c->kind == SEC_LKEY_AS_RKEY || c->kind == SEC_WRONG_OP ||
	     c->kind == SEC_PD_DMA_LKEY))
		return SEC_SIW_READ_DEFECT;
	return NULL;
}

/* Kill the peer's key of @x the API's way for its kind of mapping. */
static void sec_kill(struct kunit *test, struct peer_link *ctl,
		     const struct sec_case *c, bool iwarp, struct peer_x *x)
{
	unsigned int flags = 0;

	/*
	 * A local key is ended by rdma_unmap_mr() (which must kill it where
	 * the peer could READ through it); an iWARP READ sink's is remote
	 * and is invalidated first, as is every rkey.
	 */
	if (c->kind == SEC_LKEY_AS_RKEY &&
	    !(iwarp && (c->ops & RDMA_MR_LOCAL_READ_SINK)))
		flags = MRCORE_PEER_F_UNMAP_ONLY;
	peer_invalidate(test, ctl, x->id, flags);
}

static void sec_denied(struct kunit *test)
{
	const struct sec_case *c = test->param_value;
	struct sec_ctx *ctx = test->priv;
	struct peer_link *ctl, *atk;
	struct mrcore_e2e_buf *b;
	struct rdma_io_pool *pool;
	unsigned int flags = 0;
	bool iwarp, denied, ok;
	const char *live;
	struct peer_x x;
	u32 key, len;
	u64 addr;
	int status;

	ctl = peer_link(test, ctx->target);
	atk = peer_link(test, ctx->target);
	iwarp = rdma_protocol_iwarp(atk->side->device, 1);
	live = sec_served_while_live(c, ctx, iwarp);
	pool = io_pool(test, atk->side, 1, 2);

	if (c->kind == SEC_PD_DMA_LKEY)
		flags = MRCORE_PEER_F_DMA_LKEY;
	else if (c->kind == SEC_LKEY_AS_RKEY)
		flags = MRCORE_PEER_F_LKEY;
	peer_expose(test, ctl, SEC_LEN, SEC_OFFSET, c->ops, flags, SEC_SEED,
		    &x);
	key = x.key;
	addr = x.addr;
	len = SEC_LEN;
	kunit_info(test, "%s: the peer (connection %u) exposed %u bytes: %s %#x at %#llx; attacker on its connection %u\n",
		   ctx->target->name, ctl->conn, len,
		   flags & MRCORE_PEER_F_DMA_LKEY ? "PD DMA lkey" :
		   flags & MRCORE_PEER_F_LKEY ? "lkey" : "rkey", key, addr,
		   atk->conn);

	if (c->kind != SEC_LKEY_AS_RKEY && c->kind != SEC_PD_DMA_LKEY) {
		/*
		 * Control: the allowed access works from the attacker's
		 * connection and moves the bytes (for a wrong op, the op the
		 * key does grant); a control WRITE's bytes are then replaced
		 * by the peer's own again.
		 */
		bool ctl_read = c->kind == SEC_WRONG_OP ? !c->read : c->read;
		int round;

		for (round = 0; round < 2; round++) {
			status = sec_xfer(test, atk, pool, ctl_read, len,
					  x.addr, x.key, SEC_CTL_SEED, &b);
			KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS,
					    "allowed access with key %#x: %d (%s)",
					    x.key, status, sec_status(status));
			if (ctl_read) {
				ok = mrcore_e2e_expect_data(test, b, 0, len,
							    SEC_SEED,
							    "control READ sink");
			} else {
				ok = peer_verify(test, ctl, x.id, 0, len,
						 SEC_CTL_SEED, true,
						 "control WRITE sink");
				peer_fill(test, ctl, x.id, 0, len, SEC_SEED, 0);
			}
			KUNIT_ASSERT_TRUE(test, ok);
			if (c->kind != SEC_DEAD_AFTER_REMAP || round)
				break;
			/* Mapped again: a new key, which works, and the old one. */
			peer_remap(test, ctl, x.id, c->ops, &x);
			KUNIT_EXPECT_NE_MSG(test, x.key, key,
					    "the remapped MR got its old key back");
		}
		if (c->kind == SEC_DEAD_AFTER_INVALIDATE)
			peer_invalidate(test, ctl, x.id, 0);
		addr += c->addr_delta;
		len += c->len_delta;
	}

	if (live) {
		/*
		 * The device serves this access while the key lives (why:
		 * @live): shown with the bytes it moved; then the peer kills
		 * the key the API's way and the same access must be refused.
		 */
		status = sec_xfer(test, atk, pool, c->read, len, addr, key,
				  SEC_ATTACK_SEED, &b);
		KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS,
				    "%s with key %#x while it lives, expected to be served (%s): %d (%s)",
				    c->read ? "READ" : "WRITE", key, live,
				    status, sec_status(status));
		if (c->read) {
			ok = mrcore_e2e_expect_data(test, b, 0, len, SEC_SEED,
						    "sink of the READ the live key served");
			KUNIT_ASSERT_TRUE(test, ok);
		}
		kunit_info(test, "%s with key %#x while it lives: served (%s)\n",
			   c->read ? "READ" : "WRITE", key, live);
		if (c->kind == SEC_PD_DMA_LKEY) {
			/*
			 * Nothing kills a PD's DMA lkey: what keeps it from
			 * the peer is the core, which never puts it on the
			 * wire (mrcore_e2e_siw's rule 4 cases show that).
			 */
			return;
		}
		sec_kill(test, ctl, c, iwarp, &x);
		if (!c->read) {
			ok = peer_verify(test, ctl, x.id, 0, len,
					 SEC_ATTACK_SEED, true,
					 "peer memory after the WRITE the live key served");
			KUNIT_ASSERT_TRUE(test, ok);
			peer_fill(test, ctl, x.id, 0, len, SEC_SEED, 0);
		}
	}

	/* The forbidden access. */
	status = sec_xfer(test, atk, pool, c->read, len, addr, key,
			  SEC_ATTACK_SEED, &b);
	denied = sec_status_in(status, c->read ? ctx->expect->read_denied :
						 ctx->expect->write_denied);
	KUNIT_EXPECT_TRUE_MSG(test, denied,
			      "%s of %u bytes at %#llx key %#x%s: %d (%s)",
			      c->read ? "READ" : "WRITE", len, addr, key,
			      live ? ", after the peer killed the key," : "",
			      status, sec_status(status));
	if (denied) {
		struct mrcore_e2e_buf *probe;

		/* The attacker's connection is dead: a later I/O flushes. */
		KUNIT_EXPECT_TRUE_MSG(test,
				      mrcore_e2e_qp_failed(atk->side, 5000),
				      "attacker QP still in state %d after the denied access",
				      mrcore_e2e_qp_state(atk->side));
		status = sec_xfer(test, atk, pool, true, 1, x.addr, x.key, 0,
				  &probe);
		KUNIT_EXPECT_EQ_MSG(test, status, IB_WC_WR_FLUSH_ERR,
				    "an I/O after the denied access: %d (%s)",
				    status, sec_status(status));
	}
	/* Nothing moved: not into this kernel, not into the peer's memory. */
	if (c->read)
		mrcore_e2e_expect_data(test, b, 0, b->len, MRCORE_E2E_POISONED,
				       "sink of the denied READ");
	peer_verify(test, ctl, x.id, 0, SEC_LEN, SEC_SEED, false,
		    "peer memory after the denied access");
}

static void sec_mr_release(void *mr)
{
	rdma_destroy_mr(mr);
}

/*
 * Rule 3, the other way (siw): this kernel's iWARP READ sink key dies with
 * its READ.  The peer first WRITEs through a live rkey of this kernel on
 * the same connection and PD (the attack path works), then tries the sink's
 * key: the sink must keep every byte of the READ.
 */
static void sec_iwarp_sink_key_dies(struct kunit *test)
{
	struct sec_ctx *ctx = test->priv;
	struct mrcore_e2e_buf *target;
	struct ib_send_wr *first = NULL;
	struct peer_link *ctl, *atk;
	struct rdma_io_pool *pool;
	struct mrcore_e2e_wait w;
	struct mrcore_e2e_diff d;
	struct rdma_io_ctx io;
	struct rdma_mr *mr;
	struct io_local *l;
	unsigned long end;
	bool failed;
	u32 sink_key, rkey;
	u64 sink_iova, iova;
	struct peer_x x;
	int status;

	ctl = peer_link(test, ctx->target);
	/* On this kernel's side, the attacker's QP shares ctl's PD. */
	atk = peer_link_shared(test, ctl);
	l = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	pool = io_pool(test, ctl->side, 1, 8);
	peer_expose(test, ctl, l->len, 0, RDMA_MR_REMOTE_READ, 0, SEC_SEED,
		    &x);

	/* Control: a live rkey of this kernel, WRITTEN by the peer. */
	target = sec_buf(test, 64);
	mr = rdma_create_mr(ctl->side->pd, 1, RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   sec_mr_release,
							   mr));
	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(mr, &w.cqe);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(&rkey, &iova, mr, target->sg,
						  target->nents,
						  RDMA_MR_REMOTE_WRITE,
						  &first));
	KUNIT_ASSERT_EQ(test, IB_WC_SUCCESS,
			mrcore_e2e_post(ctl->side, first, &w,
					PEER_CALL_TIMEOUT_MS));
	status = peer_access(test, ctl, atk->conn, false, iova, rkey, 64,
			     SEC_CTL_SEED, &failed, NULL);
	KUNIT_EXPECT_EQ_MSG(test, status, IB_WC_SUCCESS,
			    "the peer's WRITE through a live rkey: %d", status);
	end = jiffies + msecs_to_jiffies(2000);
	while (!mrcore_e2e_buf_verify(target, 0, 64, SEC_CTL_SEED, &d) &&
	       time_before(jiffies, end))
		msleep(20);
	KUNIT_ASSERT_TRUE(test, mrcore_e2e_expect_data(test, target, 0, 64,
						       SEC_CTL_SEED,
						       "WRITE through a live rkey"));
	first = NULL;
	mrcore_e2e_wait_init(&w);
	KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr, &first));
	KUNIT_ASSERT_EQ(test, IB_WC_SUCCESS,
			mrcore_e2e_post(ctl->side, first, &w,
					PEER_CALL_TIMEOUT_MS));
	rdma_mr_set_cqe(mr, NULL);
	KUNIT_ASSERT_EQ(test, 0, rdma_unmap_mr(mr));

	/* The READ: a temporary sink MR, its key killed by READ_WITH_INV. */
	KUNIT_ASSERT_EQ(test, 2, rdma_io_ctx_init(&io, pool, l->sg, l->nents,
						  0, x.addr, x.key,
						  DMA_FROM_DEVICE));
	KUNIT_ASSERT_STREQ(test, rdma_io_ctx_backend(&io), "iwarp");
	KUNIT_ASSERT_EQ(test, io.last->opcode, IB_WR_RDMA_READ_WITH_INV);
	sink_key = io.mrs[0]->key;
	sink_iova = io.mrs[0]->iova;
	KUNIT_ASSERT_EQ(test, io_run(test, ctl->side, &io), IB_WC_SUCCESS);
	KUNIT_ASSERT_TRUE(test, mrcore_e2e_expect_data(test, &l->buf, 0, l->len,
						       SEC_SEED,
						       "iWARP READ sink"));

	/* The peer WRITEs other bytes with the dead sink key. */
	status = peer_access(test, ctl, atk->conn, false, sink_iova, sink_key,
			     64, SEC_ATTACK_SEED, &failed, NULL);
	kunit_info(test, "the peer's WRITE with the dead sink key %#x: %d (%s), its QP %s\n",
		   sink_key, status, sec_status(status),
		   failed ? "in error" : "alive");
	/* iWARP never acknowledges a WRITE: the refusal is a TERMINATE. */
	KUNIT_EXPECT_TRUE(test, mrcore_e2e_qp_failed(atk->side, 5000));
	mrcore_e2e_expect_data(test, &l->buf, 0, l->len, SEC_SEED,
			       "READ sink after a WRITE with its dead key");
}

static int sec_init(struct kunit *test, const struct mrcore_e2e_target *t,
		    const struct sec_expect *expect)
{
	struct sec_ctx *ctx;
	int ret = mrcore_e2e_suite_init(test, t);

	if (ret)
		return ret;
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->target = t;
	ctx->expect = expect;
	test->priv = ctx;
	return 0;
}

static int sec_rxe_init(struct kunit *test)
{
	return sec_init(test, &mrcore_2host_rxe, &sec_expect_rxe);
}

static int sec_siw_init(struct kunit *test)
{
	return sec_init(test, &mrcore_2host_siw, &sec_expect_siw);
}

static struct kunit_case sec_rxe_cases[] = {
	KUNIT_CASE_PARAM(sec_denied, sec_gen_params),
	{}
};

/* The sink-key case is iWARP's: on rxe READ sinks are local-only. */
static struct kunit_case sec_siw_cases[] = {
	KUNIT_CASE_PARAM(sec_denied, sec_gen_params),
	KUNIT_CASE(sec_iwarp_sink_key_dies),
	{}
};

static struct kunit_suite sec_rxe_suite = {
	.name = "mrcore_sec_rxe_2host",
	.init = sec_rxe_init,
	.test_cases = sec_rxe_cases,
};

static struct kunit_suite sec_siw_suite = {
	.name = "mrcore_sec_siw_2host",
	.init = sec_siw_init,
	.test_cases = sec_siw_cases,
};

kunit_test_suites(&sec_siw_suite, &sec_rxe_suite);
