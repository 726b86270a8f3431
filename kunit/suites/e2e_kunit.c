// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end KUnit suites on the kernel's real soft-RDMA drivers:
 * mrcore_e2e_siw (iWARP) and mrcore_e2e_rxe (RoCEv2) run the same cases.
 *
 * One end of a connected RC pair (the "owner", rdma_cm's passive end) maps
 * its memory with rdma_map_sg_rkey(); the other end (the "peer") READs or
 * WRITEs it through its own rdma_map_sg_lkey() mapping (the frwr backend on
 * both devices).  Every buffer holds a pattern of its own and sinks are
 * poisoned; data is checked byte for byte, with the bytes around it, at
 * both ends.  The security rules of DESIGN.md are shown on the real driver:
 * every forbidden access ends with the driver's error, leaves the memory
 * untouched, and leaves the peer's QP in the error state (so each such case
 * connects a pair of its own).  Where a key grants an access while it lives
 * (the iWARP READ-sink exception, the siw READ defect below), the case
 * shows the access served while the key lives and refused once the API has
 * killed the key.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "mrcore_harness.h"

#define E2E_TIMEOUT_MS		30000
#define E2E_QP_ERR_TIMEOUT_MS	5000
/* How long a WRITE's bytes may take to land after the sender's completion
 * (iWARP completes a WRITE once it is sent).
 */
#define E2E_PLACE_TIMEOUT_MS	2000

/**
 * struct e2e_expect - how a device reports a forbidden remote access
 * @read_denied: completion statuses (bit per &enum ib_wc_status) the
 *	peer's denied READ may end with.
 * @write_denied: the same for a denied WRITE.
 * @read_ignores_access: the driver does not check the access rights of the
 *	key a READ request names, only its validity and range.
 *
 * rxe (IB RC) NAKs the request: the requester's WR completes with a remote
 * access error.  siw (iWARP) answers with a TERMINATE and closes the
 * connection: the READ is flushed; a WRITE, which iWARP never acknowledges,
 * completes on the sender either before the TERMINATE arrives (success) or
 * after (local QP operation error), as measured on this pipeline.  In every
 * case the tests also require the peer's QP in the error state, a later WR
 * flushed, and the memory untouched.
 *
 * siw as of 6.12 sends READ responses after siw_check_sgl_tx(pd, wqe, 0):
 * the source STag is checked for validity and range but not for
 * IB_ACCESS_REMOTE_READ, so any valid key of the PD can be READ.  On siw
 * the cases that depend on that check assert the defect (the READ is
 * served while the key lives: the reproducer) and then the mitigation: the
 * READ fails once the API has killed the key (an rkey invalidated and
 * unmapped; an lkey unmapped, which on siw must kill it at once), and the
 * PD's DMA lkey, which nothing kills, is never put on the wire by the core.
 */
struct e2e_expect {
	u32 read_denied;
	u32 write_denied;
	bool read_ignores_access;
};

static const struct e2e_expect e2e_expect_rxe = {
	.read_denied = BIT(IB_WC_REM_ACCESS_ERR),
	.write_denied = BIT(IB_WC_REM_ACCESS_ERR),
};

static const struct e2e_expect e2e_expect_siw = {
	.read_denied = BIT(IB_WC_WR_FLUSH_ERR),
	.write_denied = BIT(IB_WC_SUCCESS) | BIT(IB_WC_LOC_QP_OP_ERR) |
			BIT(IB_WC_WR_FLUSH_ERR),
	.read_ignores_access = true,
};

#define E2E_SIW_READ_DEFECT \
	"siw 6.12 does not check REMOTE_READ on READ requests (siw_qp_tx.c: siw_check_sgl_tx(pd, wqe, 0))"

/* Is @status one of the statuses in @mask? */
static bool e2e_status_in(int status, u32 mask)
{
	return status >= 0 && status < 32 && (mask & BIT(status));
}

/**
 * struct e2e_ctx - per test case state, allocated before anything that can
 *	complete into it and freed after the pair is drained
 * @target: the device kind of the suite.
 * @expect: its error reporting.
 * @reg: completion entry of the owner's registration/invalidation WRs.
 * @io: completion entry of the peer's READ/WRITE.
 * @inv: completion entry of the peer's invalidation of an iWARP READ sink.
 */
struct e2e_ctx {
	const struct mrcore_e2e_target *target;
	const struct e2e_expect *expect;
	struct mrcore_e2e_wait reg;
	struct mrcore_e2e_wait io;
	struct mrcore_e2e_wait inv;
};

/* Memory the owner exposed with rdma_map_sg_rkey(). */
struct e2e_exposed {
	struct rdma_mr *mr;
	u32 rkey;
	u64 iova;
};

static void e2e_pair_release(void *pair)
{
	mrcore_e2e_pair_destroy(pair);
}

static void e2e_mr_release(void *mr)
{
	rdma_destroy_mr(mr);
}

/* A buffer DMA-mapped by the test itself (not by the core). */
struct e2e_dma {
	struct ib_device *device;
	struct mrcore_e2e_buf *buf;
};

static void e2e_dma_release(void *p)
{
	struct e2e_dma *dma = p;

	ib_dma_unmap_sg(dma->device, dma->buf->sg, dma->buf->nents,
			DMA_BIDIRECTIONAL);
}

static void e2e_buf_release(void *buf)
{
	mrcore_e2e_buf_free(buf);
}

static struct mrcore_e2e_pair *e2e_pair(struct kunit *test)
{
	struct e2e_ctx *ctx = test->priv;
	struct mrcore_e2e_pair *pair = NULL;
	int ret;

	ret = mrcore_e2e_pair_create(ctx->target, &pair);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0,
			    "connecting an RC pair over %s (%s -> %s) failed",
			    ctx->target->name, ctx->target->active_addr,
			    ctx->target->passive_addr);
	ret = kunit_add_action_or_reset(test, e2e_pair_release, pair);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, pair->active.device->ops.driver_id,
			ctx->target->driver_id);
	KUNIT_ASSERT_EQ(test, pair->passive.device->ops.driver_id,
			ctx->target->driver_id);
	kunit_info(test, "RC pair: %s %pISp <-> %s %pISp\n",
		   dev_name(&pair->active.device->dev),
		   &pair->active.cm_id->route.addr.src_addr,
		   dev_name(&pair->passive.device->dev),
		   &pair->passive.cm_id->route.addr.src_addr);
	return pair;
}

static struct mrcore_e2e_buf *e2e_buf(struct kunit *test, size_t len,
				      unsigned int offset)
{
	struct mrcore_e2e_buf *buf;
	int ret;

	buf = kunit_kzalloc(test, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ret = mrcore_e2e_buf_alloc(buf, len, offset);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, e2e_buf_release, buf);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return buf;
}

static struct rdma_mr *e2e_mr(struct kunit *test, struct ib_pd *pd,
			      u32 max_pages, enum rdma_mr_role role)
{
	struct rdma_mr *mr;
	int ret;

	mr = rdma_create_mr(pd, max_pages, role);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	ret = kunit_add_action_or_reset(test, e2e_mr_release, mr);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return mr;
}

/* Map @buf on @side with an rkey for @remote_ops; wait for the REG_MR. */
static void e2e_expose_mr(struct kunit *test, struct mrcore_e2e_side *side,
			  struct rdma_mr *mr, struct mrcore_e2e_buf *buf,
			  unsigned int remote_ops, struct e2e_exposed *x)
{
	struct e2e_ctx *ctx = test->priv;
	struct ib_send_wr *first = NULL;
	int ret;

	x->mr = mr;
	mrcore_e2e_wait_init(&ctx->reg);
	rdma_mr_set_cqe(mr, &ctx->reg.cqe);
	ret = rdma_map_sg_rkey(&x->rkey, &x->iova, mr, buf->sg, buf->nents,
			       remote_ops, &first);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "rdma_map_sg_rkey(ops %#x)",
			    remote_ops);
	KUNIT_ASSERT_NOT_NULL(test, first);
	KUNIT_ASSERT_EQ(test, rdma_mr_length(mr), (u64)buf->len);
	ret = mrcore_e2e_post(side, first, &ctx->reg, E2E_TIMEOUT_MS);
	KUNIT_ASSERT_EQ_MSG(test, ret, IB_WC_SUCCESS,
			    "registration WR: %d (%s)", ret,
			    ret >= 0 ? ib_wc_status_msg(ret) : "errno");
}

static void e2e_expose(struct kunit *test, struct mrcore_e2e_side *side,
		       struct mrcore_e2e_buf *buf, unsigned int remote_ops,
		       struct e2e_exposed *x)
{
	struct rdma_mr *mr = e2e_mr(test, side->pd, buf->npages,
				    RDMA_MR_ROLE_RKEY);

	e2e_expose_mr(test, side, mr, buf, remote_ops, x);
}

/* rdma_invalidate_mr(), wait for the LOCAL_INV, rdma_unmap_mr(). */
static void e2e_invalidate_mr(struct kunit *test, struct mrcore_e2e_side *side,
			      struct rdma_mr *mr)
{
	struct e2e_ctx *ctx = test->priv;
	struct ib_send_wr *first = NULL;
	int ret;

	mrcore_e2e_wait_init(&ctx->reg);
	rdma_mr_set_cqe(mr, &ctx->reg.cqe);
	ret = rdma_invalidate_mr(mr, &first);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL(test, first);
	ret = mrcore_e2e_post(side, first, &ctx->reg, E2E_TIMEOUT_MS);
	rdma_mr_set_cqe(mr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, ret, IB_WC_SUCCESS,
			    "invalidation WR: %d (%s)", ret,
			    ret >= 0 ? ib_wc_status_msg(ret) : "errno");
	KUNIT_ASSERT_EQ(test, rdma_unmap_mr(mr), 0);
}

static void e2e_invalidate(struct kunit *test, struct mrcore_e2e_side *side,
			   struct e2e_exposed *x)
{
	e2e_invalidate_mr(test, side, x->mr);
}

/*
 * The bytes a peer's WRITE put into @buf: on iWARP the sender's WRITE
 * completes once sent, so give the owner's side a moment to place them.
 */
static bool e2e_expect_written(struct kunit *test, struct mrcore_e2e_buf *buf,
			       size_t len, u32 seed, const char *what)
{
	unsigned long end = jiffies + msecs_to_jiffies(E2E_PLACE_TIMEOUT_MS);
	struct mrcore_e2e_diff d;

	while (!mrcore_e2e_buf_verify(buf, 0, len, seed, &d) &&
	       time_before(jiffies, end))
		msleep(20);
	return mrcore_e2e_expect_data(test, buf, 0, len, seed, what);
}

/*
 * Retire a mapping after a denied access killed the QPs: invalidate (the
 * LOCAL_INV is flushed on the dead QP; the MR's key dies with the MR) and
 * unmap, so the MR is destroyed unmapped.
 */
static void e2e_retire(struct kunit *test, struct mrcore_e2e_side *side,
		       struct rdma_mr *mr)
{
	struct e2e_ctx *ctx = test->priv;
	struct ib_send_wr *first = NULL;
	int ret;

	/*
	 * siw leaves the QP that sent the TERMINATE in a closing state where
	 * posted WRs wait: move it to the error state first, so the LOCAL_INV
	 * is flushed at once on every driver.
	 */
	ib_drain_qp(side->qp);
	mrcore_e2e_wait_init(&ctx->inv);
	rdma_mr_set_cqe(mr, &ctx->inv.cqe);
	ret = rdma_invalidate_mr(mr, &first);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = mrcore_e2e_post(side, first, &ctx->inv, E2E_TIMEOUT_MS);
	rdma_mr_set_cqe(mr, NULL);
	KUNIT_EXPECT_EQ_MSG(test, ret, IB_WC_WR_FLUSH_ERR,
			    "invalidation on the dead QP: %d", ret);
	KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), 0);
}

/*
 * The peer READs (into @buf) or WRITEs (from @buf) @len bytes at
 * @remote_addr/@rkey.  @buf is mapped with rdma_map_sg_lkey() on @mr, the
 * registration chained before the RDMA WR; *@lkey receives the key used.
 * Returns the completion status of the RDMA WR, or a negative errno.
 */
static int e2e_peer_io_mr(struct kunit *test, struct mrcore_e2e_side *side,
			  struct rdma_mr *mr, enum ib_wr_opcode opcode,
			  struct mrcore_e2e_buf *buf, u32 len,
			  u64 remote_addr, u32 rkey, u32 *lkey)
{
	struct e2e_ctx *ctx = test->priv;
	struct ib_send_wr *first;
	struct ib_rdma_wr rdma_wr;
	struct ib_sge sge;
	unsigned int ops;
	int status, ret;

	ops = opcode == IB_WR_RDMA_READ ? RDMA_MR_LOCAL_READ_SINK :
					  RDMA_MR_LOCAL_WRITE_SRC;
	mrcore_e2e_wait_init(&ctx->io);
	mrcore_e2e_rdma_wr(&rdma_wr, opcode, &sge, remote_addr, rkey,
			   &ctx->io);
	first = &rdma_wr.wr;
	ret = rdma_map_sg_lkey(lkey, mr, buf->sg, buf->nents, ops, &first);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "rdma_map_sg_lkey(ops %#x)", ops);
	KUNIT_ASSERT_NOT_NULL(test, first);
	KUNIT_ASSERT_TRUE(test, first != &rdma_wr.wr);
	/*
	 * The API returns no address for an lkey: the FRWR registration
	 * starts at the first DMA address of the list.
	 */
	sge.addr = mrcore_e2e_buf_dma_addr(buf);
	sge.length = len;
	sge.lkey = *lkey;
	status = mrcore_e2e_post(side, first, &ctx->io, E2E_TIMEOUT_MS);
	/*
	 * An iWARP READ sink is remotely writable (REMOTE_WRITE): its key
	 * must die before the memory is released.  Other lkey mappings are
	 * invalidated lazily by the next map.
	 */
	if (opcode == IB_WR_RDMA_READ &&
	    rdma_protocol_iwarp(side->device, 1)) {
		first = NULL;
		mrcore_e2e_wait_init(&ctx->inv);
		rdma_mr_set_cqe(mr, &ctx->inv.cqe);
		ret = rdma_invalidate_mr(mr, &first);
		KUNIT_ASSERT_EQ(test, ret, 0);
		ret = mrcore_e2e_post(side, first, &ctx->inv, E2E_TIMEOUT_MS);
		rdma_mr_set_cqe(mr, NULL);
		/* On a QP a denied access killed, the LOCAL_INV is flushed. */
		KUNIT_EXPECT_TRUE_MSG(test, ret == IB_WC_SUCCESS ||
				      (status != IB_WC_SUCCESS &&
				       ret == IB_WC_WR_FLUSH_ERR),
				      "READ sink invalidation: %d", ret);
	}
	KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), 0);
	return status;
}

static int e2e_peer_io(struct kunit *test, struct mrcore_e2e_side *side,
		       enum ib_wr_opcode opcode, struct mrcore_e2e_buf *buf,
		       u32 len, u64 remote_addr, u32 rkey)
{
	struct rdma_mr *mr = e2e_mr(test, side->pd, buf->npages,
				    RDMA_MR_ROLE_LKEY);
	u32 lkey;

	return e2e_peer_io_mr(test, side, mr, opcode, buf, len, remote_addr,
			      rkey, &lkey);
}

static const char *e2e_status(int status)
{
	return status >= 0 ? ib_wc_status_msg(status) : "negative errno";
}

/*
 * After a forbidden access: the peer's QP is in the error state and a new
 * WR on it is flushed, i.e. the connection needs recovery.
 */
static void e2e_expect_peer_failed(struct kunit *test,
				   struct mrcore_e2e_pair *pair,
				   struct mrcore_e2e_buf *probe,
				   u64 remote_addr, u32 rkey)
{
	int status, events;

	KUNIT_EXPECT_TRUE_MSG(test,
			      mrcore_e2e_qp_failed(&pair->active,
						   E2E_QP_ERR_TIMEOUT_MS),
			      "peer QP still in state %d after the denied access",
			      mrcore_e2e_qp_state(&pair->active));
	status = e2e_peer_io(test, &pair->active, IB_WR_RDMA_READ, probe, 1,
			     remote_addr, rkey);
	KUNIT_EXPECT_EQ_MSG(test, status, IB_WC_WR_FLUSH_ERR,
			    "a WR after the denied access: %d (%s)", status,
			    e2e_status(status));
	events = atomic_read(&pair->passive.qp_events);
	/* Pairs with smp_wmb() in the harness's QP event handler. */
	smp_rmb();
	if (events)
		kunit_info(test, "owner QP: %d async event(s), last %s\n",
			   events,
			   ib_event_msg(pair->passive.last_qp_event));
}

/* ---- data moves: READ and WRITE of exposed memory, byte for byte ---- */

/**
 * struct e2e_shape - a buffer layout
 * @desc: test description.
 * @len: data bytes.
 * @offset: offset of the data in its first page.
 */
struct e2e_shape {
	const char *desc;
	size_t len;
	unsigned int offset;
};

static const struct e2e_shape e2e_shapes[] = {
	{ "one page", PAGE_SIZE, 0 },
	{ "100 B at offset 200", 100, 200 },
	{ "9000 B at offset 1000 (3 pages)", 9000, 1000 },
	{ "32 KiB + 1 at offset 4095 (9 pages)", 32 * 1024 + 1, 4095 },
	{ "64 KiB (16 pages)", 64 * 1024, 0 },
};

KUNIT_ARRAY_PARAM_DESC(e2e_shapes, e2e_shapes, desc);

/* Seeds: every buffer of a case its own pattern. */
#define E2E_SEED_OWNER		0x1001
#define E2E_SEED_PEER		0x2002
#define E2E_SEED_KEY1		0x3003
#define E2E_SEED_KEY2		0x3004

/*
 * The peer READs memory exposed with REMOTE_READ (@read), or WRITEs memory
 * exposed with REMOTE_WRITE; the owner's key dies after the I/O, before
 * the owner's memory is checked.
 */
static void e2e_peer_moves(struct kunit *test, bool read)
{
	const struct e2e_shape *shape = test->param_value;
	u32 seed = read ? E2E_SEED_OWNER : E2E_SEED_PEER;
	const char *op = read ? "READ" : "WRITE";
	struct mrcore_e2e_buf *owner, *peer;
	struct mrcore_e2e_pair *pair;
	struct e2e_exposed x;
	int status;

	pair = e2e_pair(test);
	/* Poisoned by their allocation: the sink stays so until the I/O. */
	owner = e2e_buf(test, shape->len, shape->offset);
	peer = e2e_buf(test, shape->len, (shape->offset + 8) % PAGE_SIZE);
	mrcore_e2e_buf_fill(read ? owner : peer, seed);

	e2e_expose(test, &pair->passive, owner,
		   read ? RDMA_MR_REMOTE_READ : RDMA_MR_REMOTE_WRITE, &x);
	status = e2e_peer_io(test, &pair->active,
			     read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE, peer,
			     shape->len, x.iova, x.rkey);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS, "%s: %d (%s)", op,
			    status, e2e_status(status));
	if (read) {
		mrcore_e2e_expect_data(test, peer, 0, shape->len, seed,
				       "READ sink");
		e2e_invalidate(test, &pair->passive, &x);
		mrcore_e2e_expect_data(test, owner, 0, shape->len, seed,
				       "READ source");
		return;
	}
	/* The WRITE completed on the peer; the owner's key dies first. */
	e2e_invalidate(test, &pair->passive, &x);
	e2e_expect_written(test, owner, shape->len, seed, "WRITE sink");
	mrcore_e2e_expect_data(test, peer, 0, shape->len, seed,
			       "WRITE source");
}

static void e2e_read(struct kunit *test)
{
	e2e_peer_moves(test, true);
}

static void e2e_write(struct kunit *test)
{
	e2e_peer_moves(test, false);
}

/*
 * Keys rotate: two mappings of the same MR give different keys, on the
 * owner's rkey MR and on the peer's lkey MR, and the first rkey no longer
 * reaches the memory the MR maps now (rule 3).
 */
static void e2e_key_rotates(struct kunit *test)
{
	struct e2e_ctx *ctx = test->priv;
	struct mrcore_e2e_buf *owner, *sink, *probe;
	struct mrcore_e2e_pair *pair;
	struct rdma_mr *omr, *pmr;
	struct e2e_exposed x1, x2;
	u32 lkey1, lkey2;
	int status;

	pair = e2e_pair(test);
	owner = e2e_buf(test, 3000, 100);
	sink = e2e_buf(test, 3000, 0);
	probe = e2e_buf(test, 64, 0);
	omr = e2e_mr(test, pair->passive.pd, owner->npages, RDMA_MR_ROLE_RKEY);
	pmr = e2e_mr(test, pair->active.pd, sink->npages, RDMA_MR_ROLE_LKEY);

	mrcore_e2e_buf_fill(owner, E2E_SEED_KEY1);
	e2e_expose_mr(test, &pair->passive, omr, owner, RDMA_MR_REMOTE_READ,
		      &x1);
	status = e2e_peer_io_mr(test, &pair->active, pmr, IB_WR_RDMA_READ,
				sink, owner->len, x1.iova, x1.rkey, &lkey1);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS, "READ 1: %d (%s)",
			    status, e2e_status(status));
	mrcore_e2e_expect_data(test, sink, 0, owner->len, E2E_SEED_KEY1,
			       "READ 1 sink");
	e2e_invalidate(test, &pair->passive, &x1);

	/* New data behind the same MR, mapped again. */
	mrcore_e2e_buf_fill(owner, E2E_SEED_KEY2);
	e2e_expose_mr(test, &pair->passive, omr, owner, RDMA_MR_REMOTE_READ,
		      &x2);
	KUNIT_EXPECT_NE(test, x1.rkey, x2.rkey);
	mrcore_e2e_buf_poison(sink);
	status = e2e_peer_io_mr(test, &pair->active, pmr, IB_WR_RDMA_READ,
				sink, owner->len, x2.iova, x2.rkey, &lkey2);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS, "READ 2: %d (%s)",
			    status, e2e_status(status));
	mrcore_e2e_expect_data(test, sink, 0, owner->len, E2E_SEED_KEY2,
			       "READ 2 sink");
	KUNIT_EXPECT_NE(test, lkey1, lkey2);

	/* The stale rkey on the same address reaches nothing. */
	mrcore_e2e_buf_poison(sink);
	status = e2e_peer_io_mr(test, &pair->active, pmr, IB_WR_RDMA_READ,
				sink, owner->len, x1.iova, x1.rkey, &lkey1);
	KUNIT_EXPECT_TRUE_MSG(test,
			      e2e_status_in(status, ctx->expect->read_denied),
			      "READ with the stale rkey %#x: %d (%s)", x1.rkey,
			      status, e2e_status(status));
	mrcore_e2e_expect_data(test, sink, 0, sink->len, MRCORE_E2E_POISONED,
			       "sink of the stale-rkey READ");
	mrcore_e2e_expect_data(test, owner, 0, owner->len, E2E_SEED_KEY2,
			       "owner after the stale-rkey READ");
	e2e_expect_peer_failed(test, pair, probe, x2.iova, x2.rkey);
	e2e_retire(test, &pair->passive, omr);
}

/* ---- forbidden accesses: rules 1, 2 and 3 on the real driver ---- */

enum e2e_denied_kind {
	E2E_DEAD_AFTER_INVALIDATE,	/* rule 3 */
	E2E_LKEY_AS_RKEY,		/* rule 1 */
	E2E_OUTSIDE_RANGE,		/* rule 2: bytes */
	E2E_WRONG_OP,			/* rule 2: operation */
	E2E_PD_DMA_LKEY,		/* rule 4 */
};

/**
 * struct e2e_denied - a forbidden access
 * @desc: test description.
 * @kind: what is wrong with it.
 * @opcode: the peer's operation.
 * @ops: remote ops of the owner's rkey mapping, or local ops of its lkey
 *	mapping for %E2E_LKEY_AS_RKEY.
 * @addr_delta: added to the iova for the denied access.
 * @len_delta: added to the mapped length for the denied access.
 * @iwarp_grants: on iWARP the key grants the access while it is mapped (an
 *	iWARP READ sink must accept the READ response as a remote write):
 *	there the case shows it served, then refused once rdma_invalidate_mr()
 *	and rdma_unmap_mr() killed the key, as the API requires of READ sinks.
 */
struct e2e_denied {
	const char *desc;
	enum e2e_denied_kind kind;
	enum ib_wr_opcode opcode;
	unsigned int ops;
	int addr_delta;
	int len_delta;
	bool iwarp_grants;
};

static const struct e2e_denied e2e_denied_cases[] = {
	{ "rule 3: READ with an rkey after rdma_invalidate_mr",
	  E2E_DEAD_AFTER_INVALIDATE, IB_WR_RDMA_READ, RDMA_MR_REMOTE_READ },
	{ "rule 3: WRITE with an rkey after rdma_invalidate_mr",
	  E2E_DEAD_AFTER_INVALIDATE, IB_WR_RDMA_WRITE, RDMA_MR_REMOTE_WRITE },
	{ "rule 1: READ with a SEND_SRC lkey as rkey",
	  E2E_LKEY_AS_RKEY, IB_WR_RDMA_READ, RDMA_MR_LOCAL_SEND_SRC },
	{ "rule 1: READ with a WRITE_SRC lkey as rkey",
	  E2E_LKEY_AS_RKEY, IB_WR_RDMA_READ, RDMA_MR_LOCAL_WRITE_SRC },
	{ "rule 1: READ with an all-local-ops lkey as rkey",
	  E2E_LKEY_AS_RKEY, IB_WR_RDMA_READ, RDMA_MR_LOCAL_ALL },
	{ "rule 1: WRITE with a RECV_SINK lkey as rkey",
	  E2E_LKEY_AS_RKEY, IB_WR_RDMA_WRITE, RDMA_MR_LOCAL_RECV_SINK },
	{ "rule 1: WRITE with a SEND_SRC|WRITE_SRC lkey as rkey",
	  E2E_LKEY_AS_RKEY, IB_WR_RDMA_WRITE,
	  RDMA_MR_LOCAL_SEND_SRC | RDMA_MR_LOCAL_WRITE_SRC },
	{ "rule 1: WRITE with a READ_SINK lkey as rkey (iWARP: until invalidated)",
	  E2E_LKEY_AS_RKEY, IB_WR_RDMA_WRITE, RDMA_MR_LOCAL_READ_SINK,
	  .iwarp_grants = true },
	{ "rule 2: READ one byte past the end",
	  E2E_OUTSIDE_RANGE, IB_WR_RDMA_READ, RDMA_MR_REMOTE_READ, 0, 1 },
	{ "rule 2: READ of the byte after the end",
	  E2E_OUTSIDE_RANGE, IB_WR_RDMA_READ, RDMA_MR_REMOTE_READ, 100, -99 },
	{ "rule 2: READ from one byte before iova",
	  E2E_OUTSIDE_RANGE, IB_WR_RDMA_READ, RDMA_MR_REMOTE_READ, -1, 0 },
	{ "rule 2: WRITE one byte past the end",
	  E2E_OUTSIDE_RANGE, IB_WR_RDMA_WRITE, RDMA_MR_REMOTE_WRITE, 0, 1 },
	{ "rule 2: WRITE of the byte after the end",
	  E2E_OUTSIDE_RANGE, IB_WR_RDMA_WRITE, RDMA_MR_REMOTE_WRITE, 100, -99 },
	{ "rule 2: WRITE from one byte before iova",
	  E2E_OUTSIDE_RANGE, IB_WR_RDMA_WRITE, RDMA_MR_REMOTE_WRITE, -1, 0 },
	{ "rule 2: WRITE to a READ-only rkey",
	  E2E_WRONG_OP, IB_WR_RDMA_WRITE, RDMA_MR_REMOTE_READ },
	{ "rule 2: READ from a WRITE-only rkey",
	  E2E_WRONG_OP, IB_WR_RDMA_READ, RDMA_MR_REMOTE_WRITE },
	{ "rule 4: READ with the PD's local_dma_lkey as rkey",
	  E2E_PD_DMA_LKEY, IB_WR_RDMA_READ, 0 },
	{ "rule 4: WRITE with the PD's local_dma_lkey as rkey",
	  E2E_PD_DMA_LKEY, IB_WR_RDMA_WRITE, 0 },
};

KUNIT_ARRAY_PARAM_DESC(e2e_denied, e2e_denied_cases, desc);

/* The owner's data: 100 bytes at offset 200 of a page, so no range check
 * can be satisfied by page granularity and a WRITE is a single segment.
 */
#define E2E_DENIED_LEN		100
#define E2E_DENIED_OFFSET	200
#define E2E_DENIED_SEED		0x4004
#define E2E_DENIED_PEER_SEED	0x5005
#define E2E_DENIED_CTL_SEED	0x6006

/*
 * Does this device serve the access while the key lives?  Returns why, or
 * NULL: the access must be refused outright.
 */
static const char *e2e_served_while_live(const struct e2e_denied *c,
					 const struct e2e_ctx *ctx,
					 bool iwarp)
{
	if (c->iwarp_grants && iwarp)
		return "iWARP READ sinks need REMOTE_WRITE (the documented exception)";
	if (c->opcode == IB_WR_RDMA_READ && ctx->expect->read_ignores_access &&
	    (c->kind == E2E_LKEY_AS_RKEY || c->kind == E2E_WRONG_OP ||
	     c->kind == E2E_PD_DMA_LKEY))
		return E2E_SIW_READ_DEFECT;
	return NULL;
}

static void e2e_pool_release(void *pool)
{
	rdma_io_pool_destroy(pool);
}

/* A pool of one I/O of up to @npages pages on @side's QP, for the test. */
static struct rdma_io_pool *e2e_pool(struct kunit *test,
				     struct mrcore_e2e_side *side, u32 npages)
{
	struct rdma_io_pool *pool;

	pool = rdma_io_pool_create(side->qp, side->cm_id->port_num, 1, npages);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   e2e_pool_release,
							   pool));
	return pool;
}

/*
 * The PD's DMA lkey is a key nothing revokes, and siw lets the peer READ
 * through it.  What keeps it from the peer is the core: an iWARP READ puts
 * its sink's key on the wire, and the core never sinks one in the DMA lkey.
 * Shown through the I/O helper on the peer's end: a READ of one SGE (the
 * case where the DMA lkey would save an MR) is built by the iwarp backend
 * and no WR of it names the PD's local_dma_lkey.
 */
static void e2e_dma_lkey_stays_home(struct kunit *test,
				    struct mrcore_e2e_side *side,
				    struct mrcore_e2e_buf *sink)
{
	u32 dma_lkey = side->pd->local_dma_lkey;
	const struct ib_send_wr *wr;
	struct rdma_io_pool *pool;
	char backend[16] = "";
	struct rdma_io_ctx *io;
	u32 named = 0, n;
	int wrs, i;

	KUNIT_ASSERT_EQ(test, sink->nents, 1u);
	io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	pool = e2e_pool(test, side, sink->npages);
	wrs = rdma_io_ctx_init(io, pool, sink->sg, sink->nents, 0, 0x10000,
			       0x77, DMA_FROM_DEVICE);
	KUNIT_ASSERT_GT_MSG(test, wrs, 0, "an iWARP READ of one SGE");
	strscpy(backend, rdma_io_ctx_backend(io), sizeof(backend));
	for (wr = io->first, n = 0; wr && n < io->nr_wrs; wr = wr->next, n++) {
		for (i = 0; i < wr->num_sge; i++)
			named += wr->sg_list[i].lkey == dma_lkey;
		if (wr->opcode == IB_WR_REG_MR)
			named += reg_wr(wr)->key == dma_lkey;
	}
	/* Never posted: the context is destroyed without a completion. */
	rdma_io_ctx_destroy(io, NULL);
	KUNIT_EXPECT_STREQ_MSG(test, backend, "iwarp",
			       "an iWARP READ of one SGE must sink in a temporary MR, not in the DMA lkey");
	KUNIT_EXPECT_EQ_MSG(test, named, 0u,
			    "%u SGE(s) or registrations of the READ (%s, %d WRs) name local_dma_lkey %#x",
			    named, backend, wrs, dma_lkey);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

/**
 * struct e2e_denied_run - one forbidden access as e2e_denied() runs it
 * @c: the case.
 * @pair: the pair: the owner is its passive end, the peer its active end.
 * @owner: the owner's memory.
 * @peer: the peer's memory for the access.
 * @probe: the peer's memory for e2e_expect_peer_failed().
 * @x: the owner's rkey mapping (not for %E2E_LKEY_AS_RKEY or
 *	%E2E_PD_DMA_LKEY).
 * @lmr: the owner's lkey MR (%E2E_LKEY_AS_RKEY).
 * @addr: where the access goes.
 * @len: its bytes.
 * @key: its key.
 * @is_read: a READ, else a WRITE.
 * @mapped: the owner's mapping is still there to retire at the end.
 */
struct e2e_denied_run {
	const struct e2e_denied *c;
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_buf *owner, *peer, *probe;
	struct e2e_exposed x;
	struct rdma_mr *lmr;
	u64 addr;
	u32 len, key;
	bool is_read, mapped;
};

/*
 * The PD's own key for local DMA (a DMA MR on devices without a reserved
 * lkey, as rxe and siw) never reaches the peer.
 */
static void e2e_denied_dma_lkey(struct kunit *test, struct e2e_denied_run *r)
{
	struct mrcore_e2e_side *side = &r->pair->passive;
	struct e2e_dma *dma;
	int ret;

	dma = kunit_kzalloc(test, sizeof(*dma), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dma);
	ret = ib_dma_map_sg(side->device, r->owner->sg, r->owner->nents,
			    DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_GT(test, ret, 0);
	dma->device = side->device;
	dma->buf = r->owner;
	ret = kunit_add_action_or_reset(test, e2e_dma_release, dma);
	KUNIT_ASSERT_EQ(test, ret, 0);
	r->addr = mrcore_e2e_buf_dma_addr(r->owner);
	r->key = side->pd->local_dma_lkey;
}

/* The owner maps its memory for local ops @c->ops: a key that is no rkey. */
static void e2e_denied_lkey(struct kunit *test, struct e2e_denied_run *r)
{
	struct mrcore_e2e_side *side = &r->pair->passive;
	struct e2e_ctx *ctx = test->priv;
	struct ib_send_wr *first = NULL;
	int status;

	r->lmr = e2e_mr(test, side->pd, r->owner->npages, RDMA_MR_ROLE_LKEY);
	mrcore_e2e_wait_init(&ctx->reg);
	rdma_mr_set_cqe(r->lmr, &ctx->reg.cqe);
	status = rdma_map_sg_lkey(&r->key, r->lmr, r->owner->sg,
				  r->owner->nents, r->c->ops, &first);
	KUNIT_ASSERT_EQ(test, status, 0);
	KUNIT_ASSERT_NOT_NULL(test, first);
	status = mrcore_e2e_post(side, first, &ctx->reg, E2E_TIMEOUT_MS);
	rdma_mr_set_cqe(r->lmr, NULL);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS,
			    "lkey registration: %d (%s)", status,
			    e2e_status(status));
	/* Where the lkey's registration starts (virtual DMA). */
	r->addr = mrcore_e2e_buf_dma_addr(r->owner);
}

/*
 * The owner exposes its memory for remote ops @c->ops.  Control: the
 * allowed access works on this pair and moves bytes (for a wrong op, the
 * op the key does grant).  A control WRITE brings bytes of its own; the
 * owner's are put back after it.  Then the key dies, or the access moves
 * out of range, as the case says.
 */
static void e2e_denied_rkey(struct kunit *test, struct e2e_denied_run *r)
{
	const struct e2e_denied *c = r->c;
	enum ib_wr_opcode ctl = c->opcode;
	int status;
	bool ok;

	e2e_expose(test, &r->pair->passive, r->owner, c->ops, &r->x);
	r->key = r->x.rkey;
	r->addr = r->x.iova;
	if (c->kind == E2E_WRONG_OP)
		ctl = r->is_read ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
	if (ctl == IB_WR_RDMA_WRITE)
		mrcore_e2e_buf_fill(r->peer, E2E_DENIED_CTL_SEED);
	status = e2e_peer_io(test, &r->pair->active, ctl, r->peer, r->len,
			     r->addr, r->key);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS,
			    "allowed access: %d (%s)", status,
			    e2e_status(status));
	if (ctl == IB_WR_RDMA_READ)
		ok = mrcore_e2e_expect_data(test, r->peer, 0, r->len,
					    E2E_DENIED_SEED,
					    "control READ sink");
	else
		ok = e2e_expect_written(test, r->owner, r->len,
					E2E_DENIED_CTL_SEED,
					"control WRITE sink");
	KUNIT_ASSERT_TRUE(test, ok);
	if (ctl == IB_WR_RDMA_WRITE)
		mrcore_e2e_buf_fill(r->owner, E2E_DENIED_SEED);
	if (c->kind == E2E_DEAD_AFTER_INVALIDATE)
		e2e_invalidate(test, &r->pair->passive, &r->x);
	r->addr += c->addr_delta;
	r->len += c->len_delta;
}

/* The peer's memory before the access: a sink poisoned, a source filled. */
static void e2e_denied_peer_ready(struct e2e_denied_run *r)
{
	mrcore_e2e_buf_poison(r->peer);
	if (!r->is_read)
		mrcore_e2e_buf_fill(r->peer, E2E_DENIED_PEER_SEED);
}

/*
 * The access is served while the key lives (why: @live).  Shown, with the
 * bytes it moved; then the key is killed the API's way.  Returns false if
 * nothing kills it (the PD's DMA lkey): the case ends here.
 */
static bool e2e_denied_live(struct kunit *test, struct e2e_denied_run *r,
			    const char *live, bool iwarp)
{
	const struct e2e_denied *c = r->c;
	struct mrcore_e2e_side *owner_side = &r->pair->passive;
	int status;
	bool ok;

	e2e_denied_peer_ready(r);
	status = e2e_peer_io(test, &r->pair->active, c->opcode, r->peer,
			     r->len, r->addr, r->key);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS,
			    "%s with key %#x while it lives, expected to be served (%s): %d (%s)",
			    r->is_read ? "READ" : "WRITE", r->key, live,
			    status, e2e_status(status));
	if (r->is_read) {
		ok = mrcore_e2e_expect_data(test, r->peer, 0, r->len,
					    E2E_DENIED_SEED,
					    "sink of the READ the live key served");
		KUNIT_ASSERT_TRUE(test, ok);
	}
	kunit_info(test, "%s with key %#x while it lives: served (%s)\n",
		   r->is_read ? "READ" : "WRITE", r->key, live);
	switch (c->kind) {
	case E2E_PD_DMA_LKEY:
		/* Nothing kills it: the core keeps it off the wire. */
		e2e_dma_lkey_stays_home(test, &r->pair->active, r->peer);
		return false;
	case E2E_LKEY_AS_RKEY:
		/*
		 * A READ sink's key on iWARP is remote: it is invalidated
		 * before the unmap.  Any other lkey is local: rdma_unmap_mr()
		 * ends it, and on a device that lets the peer READ through
		 * it, must kill it.
		 */
		if (iwarp && (c->ops & RDMA_MR_LOCAL_READ_SINK))
			e2e_invalidate_mr(test, owner_side, r->lmr);
		else
			KUNIT_ASSERT_EQ(test, rdma_unmap_mr(r->lmr), 0);
		break;
	default:
		e2e_invalidate(test, owner_side, &r->x);
		break;
	}
	r->mapped = false;
	if (!r->is_read) {
		ok = e2e_expect_written(test, r->owner, r->len,
					E2E_DENIED_PEER_SEED,
					"owner after the WRITE the live key served");
		KUNIT_ASSERT_TRUE(test, ok);
		mrcore_e2e_buf_fill(r->owner, E2E_DENIED_SEED);
	}
	return true;
}

static void e2e_denied(struct kunit *test)
{
	const struct e2e_denied *c = test->param_value;
	struct e2e_ctx *ctx = test->priv;
	struct e2e_denied_run r = {
		.c = c,
		.len = E2E_DENIED_LEN,
		.is_read = c->opcode == IB_WR_RDMA_READ,
		.mapped = c->kind != E2E_DEAD_AFTER_INVALIDATE,
	};
	const char *live;
	bool iwarp, denied;
	int status;

	r.pair = e2e_pair(test);
	iwarp = rdma_protocol_iwarp(r.pair->passive.device, 1);
	live = e2e_served_while_live(c, ctx, iwarp);

	/* Poisoned by their allocation; the owner gets its own bytes. */
	r.owner = e2e_buf(test, E2E_DENIED_LEN, E2E_DENIED_OFFSET);
	r.peer = e2e_buf(test, E2E_DENIED_LEN + 1, 0);
	r.probe = e2e_buf(test, 64, 0);
	mrcore_e2e_buf_fill(r.owner, E2E_DENIED_SEED);

	if (c->kind == E2E_PD_DMA_LKEY)
		e2e_denied_dma_lkey(test, &r);
	else if (c->kind == E2E_LKEY_AS_RKEY)
		e2e_denied_lkey(test, &r);
	else
		e2e_denied_rkey(test, &r);
	if (live && !e2e_denied_live(test, &r, live, iwarp))
		return;

	/* The forbidden access. */
	e2e_denied_peer_ready(&r);
	status = e2e_peer_io(test, &r.pair->active, c->opcode, r.peer, r.len,
			     r.addr, r.key);
	denied = e2e_status_in(status, r.is_read ? ctx->expect->read_denied :
						   ctx->expect->write_denied);
	KUNIT_EXPECT_TRUE_MSG(test, denied,
			      "%s of %u bytes at %#llx key %#x%s: %d (%s)",
			      r.is_read ? "READ" : "WRITE", r.len, r.addr, r.key,
			      live ? ", after the API killed the key," : "",
			      status, e2e_status(status));
	if (!denied && live && c->kind == E2E_LKEY_AS_RKEY)
		kunit_err(test, "the lkey outlived rdma_unmap_mr(): where the device does not check REMOTE_READ (%s), the core must kill a local key when it is unmapped\n",
			  live);
	/* A refused access kills the connection; a served one did not. */
	if (denied)
		e2e_expect_peer_failed(test, r.pair, r.probe, r.x.iova,
				       r.x.rkey);

	/* Nothing moved: not into the peer, not into the owner's memory. */
	if (r.is_read)
		mrcore_e2e_expect_data(test, r.peer, 0, r.peer->len,
				       MRCORE_E2E_POISONED,
				       "sink of the denied READ");
	mrcore_e2e_expect_data(test, r.owner, 0, r.owner->len, E2E_DENIED_SEED,
			       "owner after the denied access");

	if (r.mapped && r.lmr)
		e2e_retire(test, &r.pair->passive, r.lmr);
	else if (r.mapped && r.x.mr)
		e2e_retire(test, &r.pair->passive, r.x.mr);
}

/* A READ long enough for its response to be under way at the close. */
#define E2E_DRAIN_READ_BYTES	SZ_1M
#define E2E_SEED_DRAIN		0x1003

/**
 * struct e2e_drain_case - when the disconnect comes after the READ's post
 * @delay_us: microseconds between the post and rdma_disconnect().
 * @desc: the case's description.
 */
struct e2e_drain_case {
	unsigned int delay_us;
	const char *desc;
};

/*
 * The READ's request must be out (siw flushed the SQ when a WQE was still
 * in progress) and its response not all in: where that window falls
 * depends on the machine, so the disconnect comes at several delays.
 */
static const struct e2e_drain_case e2e_drain_cases[] = {
	{ .delay_us = 0, .desc = "disconnect right after the post" },
	{ .delay_us = 200, .desc = "disconnect 0.2 ms after the post" },
	{ .delay_us = 1000, .desc = "disconnect 1 ms after the post" },
	{ .delay_us = 3000, .desc = "disconnect 3 ms after the post" },
	{ .delay_us = 10000, .desc = "disconnect 10 ms after the post" },
};

KUNIT_ARRAY_PARAM_DESC(e2e_drain, e2e_drain_cases, desc);

/*
 * A graceful disconnect and then ib_drain_qp(), as a ULP tears a connection
 * down, while a READ's response has not all come in: when the drain
 * returns, the READ has completed, flushed or with its data, so its memory
 * and MRs can go.  siw moved a CLOSING QP to ERROR without flushing the
 * ORQ, where such a READ waits, and completed the drain's own WR at once;
 * the READ's completion came later or never (the test kernel's fix 0002,
 * found by make nfsrdma's server_restart).  The peer READs through the I/O
 * helper, as a ULP does.
 */
static void e2e_drain_after_close(struct kunit *test)
{
	const struct e2e_drain_case *c = test->param_value;
	struct e2e_ctx *ctx = test->priv;
	struct mrcore_e2e_buf *owner, *peer;
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_side *side;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx *io;
	struct e2e_exposed x;
	struct ib_wc wc = {};
	bool done;
	int ret;

	pair = e2e_pair(test);
	side = &pair->active;
	owner = e2e_buf(test, E2E_DRAIN_READ_BYTES, 0);
	peer = e2e_buf(test, E2E_DRAIN_READ_BYTES, 0);
	mrcore_e2e_buf_fill(owner, E2E_SEED_DRAIN);
	e2e_expose(test, &pair->passive, owner, RDMA_MR_REMOTE_READ, &x);

	io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	pool = e2e_pool(test, side, peer->npages);
	ret = rdma_io_ctx_init(io, pool, peer->sg, peer->nents, 0, x.iova,
			       x.rkey, DMA_FROM_DEVICE);
	KUNIT_ASSERT_GT_MSG(test, ret, 0, "a READ of %u bytes",
			    E2E_DRAIN_READ_BYTES);
	mrcore_e2e_wait_init(&ctx->io);
	ret = rdma_io_ctx_post(io, &ctx->io.cqe, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);

	if (c->delay_us)
		usleep_range(c->delay_us, c->delay_us + 50);
	rdma_disconnect(side->cm_id);
	ib_drain_qp(side->qp);
	done = completion_done(&ctx->io.done);
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "ib_drain_qp() returned before the READ (%u bytes, posted before the disconnect) completed",
			      E2E_DRAIN_READ_BYTES);
	if (!done)
		kunit_err(test, "the READ is still the device's after the drain: waiting for a late completion\n");
	/* Late, or never: the device owns the WR until it completes. */
	wc.status = mrcore_e2e_wait_done(side, &ctx->io, E2E_QP_ERR_TIMEOUT_MS);
	kunit_info(test, "the READ %s: %s\n",
		   done ? "completed before the drain returned" : "completed after the drain",
		   ib_wc_status_msg(wc.status));
	if (wc.status == IB_WC_SUCCESS)
		mrcore_e2e_expect_data(test, peer, 0, E2E_DRAIN_READ_BYTES,
				       E2E_SEED_DRAIN, "READ sink");
	else
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(io, &wc);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
	e2e_retire(test, &pair->passive, x.mr);
}

static struct kunit_case e2e_cases[] = {
	KUNIT_CASE_PARAM(e2e_read, e2e_shapes_gen_params),
	KUNIT_CASE_PARAM(e2e_write, e2e_shapes_gen_params),
	KUNIT_CASE(e2e_key_rotates),
	KUNIT_CASE_PARAM(e2e_denied, e2e_denied_gen_params),
	KUNIT_CASE_PARAM(e2e_drain_after_close, e2e_drain_gen_params),
	{}
};

static int e2e_init(struct kunit *test, const struct mrcore_e2e_target *t,
		    const struct e2e_expect *expect)
{
	struct e2e_ctx *ctx;

	if (!mrcore_e2e_device_present(t, NULL, 0)) {
		kunit_err(test, "no %s device registered (scripts/guest-init.sh creates one with 'rdma link add')\n",
			  t->name);
		return -ENODEV;
	}
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->target = t;
	ctx->expect = expect;
	test->priv = ctx;
	return 0;
}

static int e2e_siw_init(struct kunit *test)
{
	return e2e_init(test, &mrcore_e2e_siw, &e2e_expect_siw);
}

static int e2e_rxe_init(struct kunit *test)
{
	return e2e_init(test, &mrcore_e2e_rxe, &e2e_expect_rxe);
}

static struct kunit_suite e2e_siw_suite = {
	.name = "mrcore_e2e_siw",
	.init = e2e_siw_init,
	.test_cases = e2e_cases,
};

static struct kunit_suite e2e_rxe_suite = {
	.name = "mrcore_e2e_rxe",
	.init = e2e_rxe_init,
	.test_cases = e2e_cases,
};

kunit_test_suites(&e2e_siw_suite, &e2e_rxe_suite);

MODULE_DESCRIPTION("rdma-mrcore end-to-end KUnit suites on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
