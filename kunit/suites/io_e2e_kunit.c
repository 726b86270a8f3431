// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end KUnit suites of the READ/WRITE helper on the kernel's soft
 * RDMA drivers: mrcore_io_siw (iWARP) and mrcore_io_rxe (RoCEv2).
 *
 * The active end of a connected RC pair moves data with rdma_io_ctx_*()
 * from and into its local memory; the passive end (the "owner") exposes a
 * physically contiguous buffer under one rkey.  Every shape of the
 * scenario table runs as a READ and as a WRITE, with the backend the cost
 * model picks and with each backend forced that the device can use.  Every
 * buffer holds a pattern of its own (sinks are poisoned); after the I/O
 * both ends are checked byte for byte, with the bytes around them.  One
 * more case shows on the real driver that an iWARP READ sink's key is dead
 * once its READ completed, and a table which WRs of a WRITE are signaled,
 * a reply SEND chained or not.  Flushes and the soak are in
 * io_stress_kunit.c.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "io_e2e.h"
#include "cases/scenarios.h"
#include "io_params.h"

KUNIT_ARRAY_PARAM(io_rxe, io_params_rxe, io_param_desc);
KUNIT_ARRAY_PARAM(io_siw, io_params_siw, io_param_desc);

/* Seeds of the buffers: every buffer's bytes are its own. */
#define IO_SEED_OWNER		0x10001
#define IO_SEED_LOCAL		0x10002
#define IO_SEED_SINK_SRC	0x10003
#define IO_SEED_ATTACKER	0x10004
#define IO_ATTACK_BYTES		64

/*
 * The row's I/O from @f's local memory: a scatterlist from byte @skip on,
 * or bio_vecs.
 */
static int io_init(struct kunit *test, struct rdma_io_ctx *ctx,
		   const struct io_fixture *f, bool bvec, u32 skip, bool read)
{
	enum dma_data_direction dir = read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	const struct io_owner *owner = f->owner;
	const struct io_local *l = f->l;

	if (bvec) {
		struct bvec_iter iter = { .bi_size = l->len };

		return rdma_io_ctx_init_bvec(ctx, f->pool,
					     io_local_bvecs(test, l), l->nents,
					     iter, owner->iova, owner->rkey,
					     dir);
	}
	return rdma_io_ctx_init(ctx, f->pool, l->sg, l->nents, skip,
				owner->iova, owner->rkey, dir);
}

/*
 * The source of an I/O over all of @f's local memory holds @seed's
 * pattern, the sink (at the start of the owner's memory, or the local
 * memory) its poison.
 */
static void io_fill(struct io_fixture *f, bool read, u32 seed)
{
	if (read) {
		mrcore_e2e_buf_fill_range(&f->owner->buf, 0, f->l->len, seed);
		mrcore_e2e_buf_poison(&f->l->buf);
	} else {
		mrcore_e2e_buf_fill(&f->l->buf, seed);
		mrcore_e2e_buf_fill_range(&f->owner->buf, 0, f->l->len,
					  MRCORE_E2E_POISONED);
	}
}

static void io_moves_data(struct kunit *test)
{
	const struct io_param *p = test->param_value;
	u32 moved = p->read ? IO_SEED_OWNER : IO_SEED_LOCAL;
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	struct io_local *l;
	long maps0;
	int wrs;

	io_fixture_create(test, &f, &mrcore_shapes[p->shape], 1,
			  MRCORE_E2E_IO_PAGES, p->force);
	l = f.l;
	if (p->chained)
		io_local_chain(test, l);

	/* The source holds its pattern, the sink is poisoned. */
	io_fill(&f, p->read, moved);

	maps0 = rdma_mrcore_dma_maps_live();
	wrs = io_init(test, &ctx, &f, p->bvec, 0, p->read);
	KUNIT_ASSERT_GT(test, wrs, 0);
	kunit_info(test, "%s %llu bytes in %u entries: backend %s, %d WRs, %u MRs\n",
		   p->read ? "READ" : "WRITE", l->len, l->nents,
		   rdma_io_ctx_backend(&ctx), wrs, ctx.nr_mrs);
	if (p->force)
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), p->force);
	KUNIT_ASSERT_EQ(test, p->bvec ? io_run_bvec(test, &f.pair->active, &ctx) :
			io_run(test, &f.pair->active, &ctx), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "the I/O left a DMA mapping");

	/*
	 * Both ends, every byte: the sink got the source's bytes and nothing
	 * around them, the source is unchanged.  The owner's poison after
	 * the I/O's last byte catches a WRITE that went on.
	 */
	mrcore_e2e_expect_data(test, &l->buf, 0, l->len, moved,
			       p->read ? "local READ sink" :
					 "local WRITE source");
	mrcore_e2e_expect_data(test, &f.owner->buf, 0, l->len, moved,
			       p->read ? "owner READ source" :
					 "owner WRITE sink");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
}

/*
 * ---- Sizing: rdma_io_max_send_wr() and rdma_io_max_cqe() on the driver ----
 *
 * The WRs an I/O posts are those of the chain rdma_io_ctx_wrs() hands to
 * ib_post_send(); the completions it can produce are those of a flush,
 * one per WR posted, signaled or not.  ib_core drops a completion whose
 * WR has no wr_cqe, and the core's unsignaled WRs have none: the test
 * gives them a counting one before it posts (a WR that completes
 * successfully unsignaled produces nothing, so this changes nothing else).
 */

/**
 * struct io_count - completions of the core's own WRs
 * @cqe: put in the wr_cqe of every WR of the chain that has none.
 * @n: completions seen.
 */
struct io_count {
	struct ib_cqe cqe;
	atomic_t n;
};

static void io_count_done(struct ib_cq *cq, struct ib_wc *wc)
{
	atomic_inc(&container_of(wc->wr_cqe, struct io_count, cqe)->n);
}

/**
 * struct io_tally - one I/O as the driver saw it
 * @posted: WRs of the chain posted.
 * @signaled: WRs before the last that the core signaled (every RDMA WRITE
 *	on a device that needs it, rdma_io_ctx_wrs()): each completes even
 *	when the I/O succeeds.
 * @completions: completions that came for them.
 * @status: the status of the last WR's completion, or a negative errno.
 */
struct io_tally {
	u32 posted;
	u32 signaled;
	u32 completions;
	int status;
};

/*
 * A 4 MiB READ on rxe took over 30 s (IO_TIMEOUT_MS) under TCG on a
 * loaded machine; only a failure detector, so a generous one.
 */
#define IO_SIZING_TIMEOUT_MS	120000

/*
 * Give every WR of the chain from @first up to @after (not included) that
 * does not carry @io_cqe, the I/O's own completion entry, @cnt's counting
 * one.  Returns the WRs and, among those, the ones the core signaled.
 */
static struct io_tally io_count_chain(struct ib_send_wr *first,
				      const struct ib_send_wr *after,
				      const struct ib_cqe *io_cqe,
				      struct io_count *cnt)
{
	struct io_tally t = {};
	struct ib_send_wr *wr;

	cnt->cqe.done = io_count_done;
	atomic_set(&cnt->n, 0);
	for (wr = first; wr && wr != after; wr = wr->next) {
		t.posted++;
		if (wr->wr_cqe == io_cqe)
			continue;
		/* The core's own entry for a signaled WR does nothing. */
		if (wr->send_flags & IB_SEND_SIGNALED)
			t.signaled++;
		wr->wr_cqe = &cnt->cqe;
	}
	return t;
}

/*
 * Post a chain of @wrs WRs with one ib_post_send(); a refusal fails the
 * test, and a chain taken in part is drained.  Returns ib_post_send()'s.
 */
static int io_post_chain(struct kunit *test, struct mrcore_e2e_side *side,
			 const struct ib_send_wr *first, u32 wrs)
{
	const struct ib_send_wr *bad = first;
	int ret;

	ret = ib_post_send(side->qp, first, &bad);
	if (!ret)
		return 0;
	/* The queue sized by the helper refused part of the chain. */
	KUNIT_FAIL(test, "ib_post_send() of %u WRs: %d (%s)", wrs, ret,
		   bad == first ? "none taken" : "taken in part");
	if (bad != first)
		ib_drain_qp(side->qp);
	return ret;
}

/*
 * Post @ctx's chain with one ib_post_send(), wait for its last WR and
 * destroy it with that completion.  Completions come in order on one CQ:
 * once the last WR's is in, every earlier WR's that will come has come.
 */
static struct io_tally io_run_counted(struct kunit *test,
				      struct mrcore_e2e_side *side,
				      struct rdma_io_ctx *ctx, bool bvec,
				      struct io_count *cnt)
{
	struct mrcore_e2e_wait w;
	struct ib_send_wr *first;
	struct ib_wc wc = {};
	struct io_tally t;

	mrcore_e2e_wait_init(&w);
	first = rdma_io_ctx_wrs(ctx, &w.cqe, NULL);
	t = io_count_chain(first, NULL, &w.cqe, cnt);
	t.status = io_post_chain(test, side, first, t.posted);
	if (t.status) {
		if (bvec)
			rdma_io_ctx_destroy_bvec(ctx, NULL);
		else
			rdma_io_ctx_destroy(ctx, NULL);
		return t;
	}
	t.status = mrcore_e2e_wait_done(side, &w, IO_SIZING_TIMEOUT_MS);
	t.completions = atomic_read(&cnt->n) + (t.status >= 0);
	wc.status = t.status < 0 ? IB_WC_GENERAL_ERR : t.status;
	if (bvec)
		rdma_io_ctx_destroy_bvec(ctx, t.status < 0 ? NULL : &wc);
	else
		rdma_io_ctx_destroy(ctx, t.status < 0 ? NULL : &wc);
	return t;
}

/* The QP's later WRs are flushed, each with a completion. */
static void io_qp_to_error(struct kunit *test, struct mrcore_e2e_side *side)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	KUNIT_ASSERT_EQ(test, 0, ib_modify_qp(side->qp, &attr, IB_QP_STATE));
}

/**
 * struct io_sizes - what the helpers answer for an I/O's pages on a QP
 * @pages: pages the I/O spans.
 * @sge: the QP's SGEs per send WR.
 * @send_wr: rdma_io_max_send_wr().
 * @cqe: rdma_io_max_cqe().
 */
struct io_sizes {
	u32 pages;
	u32 sge;
	u32 send_wr;
	u32 cqe;
};

static struct io_sizes io_sizes(struct kunit *test,
				struct mrcore_e2e_side *side, u32 pages)
{
	struct io_sizes z = { .pages = pages, .sge = side->qp->max_write_sge };
	u32 port = side->cm_id->port_num;

	z.send_wr = rdma_io_max_send_wr(side->device, port, pages, z.sge);
	z.cqe = rdma_io_max_cqe(side->device, port, pages, z.sge);
	/* The harness sized the queues with them (io_pair()). */
	KUNIT_EXPECT_GE(test, side->send_wrs, z.send_wr);
	KUNIT_EXPECT_GE(test, side->cqes, z.cqe);
	return z;
}

static void io_sizing_check(struct kunit *test, const struct io_sizes *z,
			    const struct io_tally *t, bool flushed,
			    int wrs, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, t->posted, (u32)wrs,
			    "%s: init said %d WRs", what, wrs);
	KUNIT_EXPECT_LE_MSG(test, t->posted, z->send_wr,
			    "%s: %u WRs posted, rdma_io_max_send_wr(%u pages, %u SGEs) = %u",
			    what, t->posted, z->pages, z->sge, z->send_wr);
	KUNIT_EXPECT_LE_MSG(test, t->completions, z->cqe,
			    "%s: %u completions, rdma_io_max_cqe(%u pages, %u SGEs) = %u",
			    what, t->completions, z->pages, z->sge, z->cqe);
	if (flushed) {
		KUNIT_EXPECT_EQ(test, t->status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ_MSG(test, t->completions, t->posted,
				    "%s: a flush completes every WR", what);
	} else {
		KUNIT_EXPECT_EQ(test, t->status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ_MSG(test, t->completions, 1 + t->signaled,
				    "%s: a completed I/O completes once, and once per WR the core signaled",
				    what);
	}
}

#define IO_SEED_SIZING		0x10005

/*
 * Every I/O of the device's io_moves_data table: on a fresh pool, in the
 * steady state (the pool's MRs keep their last keys; only after an I/O
 * that took MRs) and flushed (the QP in the error state), the WRs it
 * posts fit rdma_io_max_send_wr() and the completions it produces
 * rdma_io_max_cqe(), for the pages it spans and the QP's SGEs.
 */
static void io_sizing(struct kunit *test)
{
	const struct io_param *p = test->param_value;
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	struct io_count *cnt;
	struct io_tally t;
	struct io_sizes z;
	int round, wrs;
	bool mrs = false;

	/* Freed after the pair: no completion comes after its drain. */
	cnt = kunit_kzalloc(test, sizeof(*cnt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cnt);
	io_fixture_create(test, &f, &mrcore_shapes[p->shape], 1,
			  MRCORE_E2E_IO_PAGES, p->force);
	z = io_sizes(test, &f.pair->active, f.l->buf.npages);

	for (round = 0; round < 3; round++) {
		bool flush = round == 2;
		const char *what = round == 0 ? "fresh pool" :
				   round == 1 ? "steady state" : "flushed";

		/* An I/O that took no MR left the pool as it was. */
		if (round == 1 && !mrs)
			continue;
		io_fill(&f, p->read, IO_SEED_SIZING + round);
		if (flush)
			io_qp_to_error(test, &f.pair->active);
		wrs = io_init(test, &ctx, &f, p->bvec, 0, p->read);
		KUNIT_ASSERT_GT(test, wrs, 0);
		mrs |= ctx.nr_mrs;
		t = io_run_counted(test, &f.pair->active, &ctx, p->bvec, cnt);
		kunit_info(test, "%s, %u pages, %u SGEs: %u WRs posted, %u completions; helpers %u WRs, %u CQEs\n",
			   what, z.pages, z.sge, t.posted, t.completions,
			   z.send_wr, z.cqe);
		io_sizing_check(test, &z, &t, flush, wrs, what);
		if (!flush)
			mrcore_e2e_expect_data(test, p->read ? &f.l->buf :
					       &f.owner->buf, 0, f.l->len,
					       IO_SEED_SIZING + round,
					       "sink of a counted I/O");
	}
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
}

/*
 * ---- Which WRs of a WRITE are signaled, a reply SEND chained or not ----
 *
 * siw sends an unsignaled WR's payload zero-copy from the caller's pages
 * and TCP may send it again after the I/O completed: there the core
 * signals every RDMA WRITE of an I/O, each completion its own; on rxe only
 * the I/O's last WR is, and none when a WR is chained after it (the reply
 * SEND then carries the completion).  The lone WRITE of a one-entry I/O
 * is signaled by rdma_io_ctx_wrs(), the WRITEs of a longer one at init:
 * both paths, each with and without the SEND.  The same cases as the
 * mirror's SiwTest.EveryWriteOfAnIoIsSignaledOnSiwOnly, on the driver.
 */

/**
 * struct io_signal_case - one WRITE of the signaling table
 * @desc: the case, as KUnit prints it.
 * @shape: the local memory.
 * @force: the backend forced, or NULL for the cost model's.
 * @send: a SEND chained after the I/O.
 */
struct io_signal_case {
	const char *desc;
	enum mrcore_shape shape;
	const char *force;
	bool send;
};

static const struct io_signal_case io_signal_cases[] = {
	{ "1_page", SHAPE_1_PAGE, NULL, false },
	{ "1_page_then_send", SHAPE_1_PAGE, NULL, true },
	{ "8_pages", SHAPE_8_PAGES, NULL, false },
	{ "8_pages_then_send", SHAPE_8_PAGES, NULL, true },
	{ "33_pages_multiread", SHAPE_33_PAGES, "multiread", false },
	{ "33_pages_multiread_then_send", SHAPE_33_PAGES, "multiread", true },
};

static void io_signal_desc(const struct io_signal_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(io_signal, io_signal_cases, io_signal_desc);

#define IO_SEED_SIGNAL		0x10007

static void io_write_signals(struct kunit *test)
{
	const struct mrcore_e2e_target *target = test->priv;
	const struct io_signal_case *c = test->param_value;
	bool siw = target->driver_id == RDMA_DRIVER_SIW;
	struct ib_send_wr send = {}, *first, *wr, *after;
	struct ib_recv_wr recv = {};
	u32 n = 0, writes = 0, completions;
	struct mrcore_e2e_wait w;
	struct rdma_io_ctx ctx;
	struct ib_wc wc = {};
	struct io_count *cnt;
	struct keys_recv *r;
	struct io_fixture f;
	struct io_tally t;
	int wrs, status;

	/* Freed after the pair: no completion comes after its drain. */
	cnt = kunit_kzalloc(test, sizeof(*cnt), GFP_KERNEL);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cnt);
	KUNIT_ASSERT_NOT_NULL(test, r);
	io_fixture_create(test, &f, &mrcore_shapes[c->shape], 1,
			  MRCORE_E2E_IO_PAGES, c->force);
	io_fill(&f, false, IO_SEED_SIGNAL);
	if (c->send) {
		init_completion(&r->done);
		r->cqe.done = keys_recv_done;
		recv.wr_cqe = &r->cqe;
		KUNIT_ASSERT_EQ(test, 0, ib_post_recv(f.pair->passive.qp, &recv,
						      NULL));
	}
	wrs = io_init(test, &ctx, &f, false, 0, false);
	KUNIT_ASSERT_GT(test, wrs, 0);

	mrcore_e2e_wait_init(&w);
	send.opcode = IB_WR_SEND;
	send.send_flags = IB_SEND_SIGNALED;
	send.wr_cqe = &w.cqe;
	after = c->send ? &send : NULL;
	first = rdma_io_ctx_wrs(&ctx, &w.cqe, after);
	for (wr = first; wr && wr != after; wr = wr->next, n++) {
		bool last = wr == ctx.last && !after;
		bool sig = wr->send_flags & IB_SEND_SIGNALED;
		bool write = wr->opcode == IB_WR_RDMA_WRITE;

		writes += write;
		KUNIT_EXPECT_EQ_MSG(test, sig, last || (siw && write),
				    "WR %u (opcode %d) of %d", n, wr->opcode,
				    wrs);
		KUNIT_EXPECT_EQ_MSG(test, wr->wr_cqe == &w.cqe, last,
				    "WR %u: the I/O's completion entry", n);
	}
	KUNIT_EXPECT_EQ(test, n, (u32)wrs);
	KUNIT_EXPECT_GT(test, writes, 0);
	t = io_count_chain(first, after, &w.cqe, cnt);
	kunit_info(test, "%s: backend %s, %d WRs, %u signaled by the core%s\n",
		   c->desc, rdma_io_ctx_backend(&ctx), wrs, t.signaled,
		   after ? ", then a SEND" : "");

	if (io_post_chain(test, &f.pair->active, first, t.posted)) {
		rdma_io_ctx_destroy(&ctx, NULL);
		return;
	}
	status = mrcore_e2e_wait_done(&f.pair->active, &w, IO_TIMEOUT_MS);
	KUNIT_EXPECT_EQ(test, status, IB_WC_SUCCESS);
	if (after) {
		unsigned long left;

		left = wait_for_completion_timeout(&r->done,
						   msecs_to_jiffies(IO_TIMEOUT_MS));
		KUNIT_EXPECT_GT_MSG(test, left, 0, "the chained SEND never arrived");
		KUNIT_EXPECT_EQ(test, r->wc.status, IB_WC_SUCCESS);
	}
	/* In order on one CQ: the earlier WRs' completions have come. */
	completions = atomic_read(&cnt->n) + (status == IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, completions, 1 + t.signaled,
			    "one completion for the I/O, one per WR the core signaled");
	wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
	rdma_io_ctx_destroy(&ctx, status < 0 ? NULL : &wc);
	mrcore_e2e_expect_data(test, &f.owner->buf, 0, f.l->len, IO_SEED_SIGNAL,
			       "owner WRITE sink");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
}

/*
 * The shapes of the tables with an entry per page, the worst an I/O of
 * that many pages can be (rdma_io_max_send_wr()'s @max_pages), and 1024
 * such pages: as many as the largest I/O of the tables spans.
 */
static const struct mrcore_shape_desc io_exact_shapes[] = {
	{ "1_page", 1, 0, PAGE_SIZE, 1 },
	{ "8_pages", 8, 0, PAGE_SIZE, 2 },
	{ "32_pages", 32, 0, PAGE_SIZE, 2 },
	{ "33_pages", 33, 0, PAGE_SIZE, 2 },
	{ "256_pages", 256, 0, PAGE_SIZE, 2 },
	{ "257_pages", 257, 0, PAGE_SIZE, 2 },
	{ "1024_pages", 1024, 0, PAGE_SIZE, 2 },
};

static void io_exact_desc(const struct mrcore_shape_desc *d, char *desc)
{
	strscpy(desc, d->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(io_exact, io_exact_shapes, io_exact_desc);

/**
 * struct io_most - the plan that posted the most WRs so far
 * @wrs: the WRs it posted.
 * @backend: its backend, NULL before the first plan.
 * @read: a READ, else a WRITE.
 */
struct io_most {
	u32 wrs;
	const char *backend;
	bool read;
};

/*
 * One I/O of @backend (a READ if @read) over all of @f's local memory, on
 * @f's pool as it is: its WRs and completions against @z, its bytes
 * checked, @most updated.  Returns whether it took MRs (false for a
 * backend the device cannot use).
 */
static bool io_exact_one(struct kunit *test, struct io_fixture *f,
			 struct io_count *cnt, const struct io_sizes *z,
			 const char *backend, bool read, u32 seed,
			 struct io_most *most)
{
	struct rdma_io_ctx ctx;
	struct io_tally t;
	bool mrs;
	int wrs;

	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(f->pool, backend));
	io_fill(f, read, seed);
	wrs = io_init(test, &ctx, f, false, 0, read);
	if (wrs == -EOPNOTSUPP)
		return false;	/* not this device's */
	KUNIT_ASSERT_GT_MSG(test, wrs, 0, "%s %s", backend,
			    read ? "READ" : "WRITE");
	mrs = ctx.nr_mrs;
	t = io_run_counted(test, &f->pair->active, &ctx, false, cnt);
	io_sizing_check(test, z, &t, false, wrs, backend);
	mrcore_e2e_expect_data(test, read ? &f->l->buf : &f->owner->buf, 0,
			       f->l->len, seed, backend);
	if (t.posted > most->wrs)
		*most = (struct io_most){ .wrs = t.posted, .backend = backend,
					 .read = read };
	return mrs;
}

/*
 * The helpers are exact (their kernel-doc): for an I/O of one entry per
 * page, the most WRs any plan the core may build posts -- each backend
 * forced, READ and WRITE, on a fresh pool and in the steady state (for a
 * plan that took MRs: one that took none left the pool as it was) -- is
 * rdma_io_max_send_wr(), and that plan, flushed, produces
 * rdma_io_max_cqe() completions.  Every I/O's bytes are checked.
 */
static void io_sizing_exact(struct kunit *test)
{
	static const char *const backends[] = { "frwr", "iwarp", "multiread",
						"fmr" };
	const struct mrcore_shape_desc *d = test->param_value;
	bool took_mrs[ARRAY_SIZE(backends)][2] = {};
	struct io_most most = {};
	u32 seed = IO_SEED_SIZING;
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	struct io_count *cnt;
	struct io_tally t;
	struct io_sizes z;
	unsigned int b;
	int round, rd, wrs;

	cnt = kunit_kzalloc(test, sizeof(*cnt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cnt);
	io_fixture_create(test, &f, d, 1, d->nents, NULL);
	KUNIT_ASSERT_EQ(test, f.l->nents, d->nents);
	KUNIT_ASSERT_EQ(test, f.l->buf.npages, d->nents);
	z = io_sizes(test, &f.pair->active, d->nents);

	for (round = 0; round < 2; round++) {
		for (b = 0; b < ARRAY_SIZE(backends); b++) {
			for (rd = 0; rd < 2; rd++) {
				/* No MR taken: the pool is as it was. */
				if (round && !took_mrs[b][rd])
					continue;
				took_mrs[b][rd] |= io_exact_one(test, &f, cnt, &z,
								backends[b], rd,
								++seed, &most);
			}
		}
	}
	KUNIT_ASSERT_NOT_NULL(test, most.backend);
	kunit_info(test, "%u pages, %u SGEs: the most WRs, %u, by %s %s; rdma_io_max_send_wr() %u, rdma_io_max_cqe() %u\n",
		   z.pages, z.sge, most.wrs, most.backend,
		   most.read ? "READ" : "WRITE", z.send_wr, z.cqe);
	KUNIT_EXPECT_EQ_MSG(test, most.wrs, z.send_wr,
			    "rdma_io_max_send_wr() is not the most any plan posts");

	/* That plan again, in the same state, flushed. */
	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(f.pool, most.backend));
	io_qp_to_error(test, &f.pair->active);
	wrs = io_init(test, &ctx, &f, false, 0, most.read);
	KUNIT_ASSERT_GT(test, wrs, 0);
	t = io_run_counted(test, &f.pair->active, &ctx, false, cnt);
	io_sizing_check(test, &z, &t, true, wrs, "flushed");
	KUNIT_EXPECT_EQ(test, t.posted, most.wrs);
	KUNIT_EXPECT_EQ_MSG(test, t.completions, z.cqe,
			    "rdma_io_max_cqe() is not the most completions a flush produces");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
}

/*
 * ---- Offsets past the first entry, from the scenario table ----
 *
 * The rows of tests/cases/scenarios.h with a @skip, on the device of their
 * profile: roce on rxe, siw on siw.  The I/O starts @skip bytes into the
 * local list, whole entries skipped, and moves the rest to or from the
 * start of the owner's memory: local byte @skip + k and owner byte k are
 * the same byte.  Both buffers are checked whole: the moved range holds
 * the pattern (shifted by @skip on the local side), every other byte its
 * poison, the guard bytes theirs.
 */
static bool io_skip_row(const struct mrcore_scenario *r, bool siw)
{
	return r->skip && r->backend && !r->bvec &&
	       r->profile == (siw ? MRCORE_PROFILE_SIW : MRCORE_PROFILE_ROCE);
}

static void io_skip_desc(const struct mrcore_scenario *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s_skip_%u%s%s",
		 r->read ? "read" : "write", mrcore_shapes[r->shape].name,
		 r->skip, r->force ? "_forced_" : "", r->force ? r->force : "");
}

static const void *io_skip_gen(const void *prev, char *desc, bool siw)
{
	const struct mrcore_scenario *r = prev;
	const struct mrcore_scenario *end = mrcore_scenarios +
					    ARRAY_SIZE(mrcore_scenarios);

	for (r = r ? r + 1 : mrcore_scenarios; r < end; r++) {
		if (io_skip_row(r, siw)) {
			io_skip_desc(r, desc);
			return r;
		}
	}
	return NULL;
}

static const void *io_skip_rxe_gen_params(const void *prev, char *desc)
{
	return io_skip_gen(prev, desc, false);
}

static const void *io_skip_siw_gen_params(const void *prev, char *desc)
{
	return io_skip_gen(prev, desc, true);
}

/*
 * @buf holds the pattern of @seed at [@start, @start + @len) and poison at
 * every other data byte; its guard bytes are intact.
 */
static bool io_expect_only(struct kunit *test, struct mrcore_e2e_buf *buf,
			   size_t start, size_t len, u32 seed, const char *what)
{
	size_t k, bad = 0, first = 0;
	bool ok;

	/* The range, a page of poison on each side, the guards. */
	ok = mrcore_e2e_expect_data(test, buf, start, len, seed, what);
	for (k = 0; k < buf->len; k++) {
		if (k == start) {
			k += len - 1;
			continue;
		}
		if (*mrcore_e2e_buf_byte(buf, k) != MRCORE_E2E_POISON &&
		    !bad++)
			first = k;
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0,
			    "%s: %zu bytes outside [%zu, %zu) are not poison; the first at %zu",
			    what, bad, start, start + len, first);
	return ok && !bad;
}

#define IO_SEED_SKIP		0x10006

static void io_skip_moves_data(struct kunit *test)
{
	const struct mrcore_scenario *r = test->param_value;
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	struct io_owner *owner;
	struct io_local *l;
	u64 moved;
	long maps0;
	int wrs;

	io_fixture_create(test, &f, &mrcore_shapes[r->shape], 1,
			  MRCORE_E2E_IO_PAGES, r->force);
	owner = f.owner;
	l = f.l;
	KUNIT_ASSERT_LT(test, (u64)r->skip, l->len);
	KUNIT_ASSERT_GE_MSG(test, r->skip, l->sg->length,
			    "the row's offset is inside the first entry");
	moved = l->len - r->skip;

	/* The source's moved bytes hold the pattern, everything else poison. */
	mrcore_e2e_buf_poison(&l->buf);
	mrcore_e2e_buf_fill_range(&owner->buf, 0, IO_OWNER_BYTES,
				  MRCORE_E2E_POISONED);
	if (r->read)
		mrcore_e2e_buf_fill_range(&owner->buf, 0, moved, IO_SEED_SKIP);
	else
		mrcore_e2e_buf_fill_range(&l->buf, r->skip, moved,
					  IO_SEED_SKIP);

	maps0 = rdma_mrcore_dma_maps_live();
	wrs = io_init(test, &ctx, &f, false, r->skip, r->read);
	KUNIT_ASSERT_GT(test, wrs, 0);
	kunit_info(test, "%s of %llu bytes, %u skipped: backend %s, %d WRs, %u MRs\n",
		   r->read ? "READ" : "WRITE", moved, r->skip,
		   rdma_io_ctx_backend(&ctx), wrs, ctx.nr_mrs);
	KUNIT_EXPECT_EQ(test, ctx.length, moved);
	if (r->force)
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), r->force);
	KUNIT_ASSERT_EQ(test, io_run(test, &f.pair->active, &ctx), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "the I/O left a DMA mapping");

	/* Local byte skip + k is owner byte k, at both ends. */
	io_expect_only(test, &l->buf, r->skip, moved, IO_SEED_SKIP,
		       r->read ? "local READ sink" : "local WRITE source");
	io_expect_only(test, &owner->buf, 0, moved, IO_SEED_SKIP,
		       r->read ? "owner READ source" : "owner WRITE sink");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
}

#define IO_SEED_BVEC_PART	0x10007

/*
 * A bio_vec iterator over part of its array, as a server's chunk covers
 * part of its pages: from byte 100 of the second bio_vec to 200 bytes
 * before the end of the last but one, on the eight separate pages of
 * SHAPE_8_PAGES, a READ and a WRITE.  The list then has fewer segments
 * than the array has bio_vecs left (its end moves back); local byte
 * @start + k is owner byte k, and nothing else of either moves.
 */
static void io_bvec_part_moves_data(struct kunit *test)
{
	const struct mrcore_shape_desc *d = &mrcore_shapes[SHAPE_8_PAGES];
	struct bvec_iter iter = { .bi_idx = 1, .bi_bvec_done = 100 };
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	struct bio_vec *bv;
	bool read = false;
	size_t start;
	long maps0;
	u32 i;

	do {
		io_fixture_create(test, &f, d, 1, MRCORE_E2E_IO_PAGES, NULL);
		KUNIT_ASSERT_GE(test, f.l->nents, 4u);
		bv = io_local_bvecs(test, f.l);
		iter.bi_size = 0;
		for (i = 1; i + 1 < f.l->nents; i++)
			iter.bi_size += bv[i].bv_len;
		iter.bi_size -= 100 + 200;
		start = bv[0].bv_len + 100;

		mrcore_e2e_buf_poison(&f.l->buf);
		mrcore_e2e_buf_fill_range(&f.owner->buf, 0, IO_OWNER_BYTES,
					  MRCORE_E2E_POISONED);
		if (read)
			mrcore_e2e_buf_fill_range(&f.owner->buf, 0,
						  iter.bi_size,
						  IO_SEED_BVEC_PART);
		else
			mrcore_e2e_buf_fill_range(&f.l->buf, start,
						  iter.bi_size,
						  IO_SEED_BVEC_PART);

		maps0 = rdma_mrcore_dma_maps_live();
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init_bvec(&ctx, f.pool, bv,
							    f.l->nents, iter,
							    f.owner->iova,
							    f.owner->rkey,
							    read ? DMA_FROM_DEVICE :
								   DMA_TO_DEVICE),
				0);
		kunit_info(test, "%s of %u bytes in bio_vecs 1-%u of %u: backend %s, %u MRs\n",
			   read ? "READ" : "WRITE", iter.bi_size,
			   f.l->nents - 2, f.l->nents,
			   rdma_io_ctx_backend(&ctx), ctx.nr_mrs);
		KUNIT_EXPECT_EQ(test, ctx.length, iter.bi_size);
		KUNIT_ASSERT_EQ(test, io_run_bvec(test, &f.pair->active, &ctx),
				IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
				    "the I/O left a DMA mapping");
		io_expect_only(test, &f.l->buf, start, iter.bi_size,
			       IO_SEED_BVEC_PART,
			       read ? "local READ sink" : "local WRITE source");
		io_expect_only(test, &f.owner->buf, 0, iter.bi_size,
			       IO_SEED_BVEC_PART,
			       read ? "owner READ source" : "owner WRITE sink");
		KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
				rdma_io_pool_size(f.pool));
		read = !read;
	} while (read);
}

/*
 * Rule 3 on siw: the temporary sink MR's key dies with its READ.  The owner
 * then WRITEs other bytes with the dead key: the sink must keep every byte
 * of the READ.
 */
static void io_iwarp_sink_key_dies(struct kunit *test)
{
	struct mrcore_e2e_wait w;
	struct io_owner *owner;
	struct rdma_io_ctx ctx;
	struct io_fixture f;
	struct ib_rdma_wr wr;
	struct io_local *l;
	struct ib_sge sge;
	u32 sink_key, k;
	u64 sink_iova;
	bool differs = false;

	io_fixture_create(test, &f, &mrcore_shapes[SHAPE_8_PAGES], 1, 8, NULL);
	owner = f.owner;
	l = f.l;
	mrcore_e2e_buf_fill_range(&owner->buf, 0, l->len, IO_SEED_SINK_SRC);
	/* The attacker's bytes, 1 MiB into the owner's memory. */
	mrcore_e2e_buf_fill_range(&owner->buf, SZ_1M, IO_ATTACK_BYTES,
				  IO_SEED_ATTACKER);
	for (k = 0; k < IO_ATTACK_BYTES; k++)
		differs |= mrcore_e2e_pattern(IO_SEED_ATTACKER, k) !=
			   mrcore_e2e_pattern(IO_SEED_SINK_SRC, k);
	KUNIT_ASSERT_TRUE_MSG(test, differs,
			      "the attacker's WRITE would store the sink's own bytes");

	KUNIT_ASSERT_EQ(test, 2, io_init(test, &ctx, &f, false, 0, true));
	KUNIT_ASSERT_STREQ(test, rdma_io_ctx_backend(&ctx), "iwarp");
	KUNIT_ASSERT_EQ(test, ctx.last->opcode, IB_WR_RDMA_READ_WITH_INV);
	sink_key = ctx.mrs[0]->key;
	sink_iova = ctx.mrs[0]->iova;
	KUNIT_ASSERT_EQ(test, io_run(test, &f.pair->active, &ctx), IB_WC_SUCCESS);
	KUNIT_ASSERT_TRUE(test, mrcore_e2e_expect_data(test, &l->buf, 0,
						       l->len,
						       IO_SEED_SINK_SRC,
						       "iWARP READ sink"));

	/* The owner now WRITEs its other bytes into the sink's first 64. */
	sge.addr = owner->iova + SZ_1M;
	sge.length = IO_ATTACK_BYTES;
	sge.lkey = owner->mr->lkey;
	mrcore_e2e_wait_init(&w);
	mrcore_e2e_rdma_wr(&wr, IB_WR_RDMA_WRITE, &sge, sink_iova, sink_key, &w);
	mrcore_e2e_post(&f.pair->passive, &wr.wr, &w, IO_TIMEOUT_MS);
	/* iWARP never acknowledges a WRITE: the sender learns of the
	 * refusal from the TERMINATE, which breaks the connection.
	 */
	KUNIT_EXPECT_TRUE(test, mrcore_e2e_qp_failed(&f.pair->passive, 5000));
	mrcore_e2e_expect_data(test, &l->buf, 0, l->len, IO_SEED_SINK_SRC,
			       "READ sink after a WRITE with its dead key");
}

/*
 * A pool whose MRs come on demand (RDMA_IO_POOL_MRS_ON_DEMAND), with the
 * FRWR backend forced so that every I/O needs an MR.  On rxe it starts
 * with one: a second I/O in flight is refused with -EAGAIN, not -E2BIG,
 * and gets an MR once rdma_io_pool_drain() has let the batch in.  On siw,
 * whose READs need MRs, the flag changes nothing: every MR is there at
 * once.  Both I/Os WRITE their own bytes, checked at the owner.
 */
static void io_pool_on_demand(struct kunit *test)
{
	const struct mrcore_shape_desc *d = &mrcore_shapes[SHAPE_8_PAGES];
	bool iwarp = io_on_iwarp(test);
	struct rdma_io_ctx a, b;
	struct rdma_io_pool *pool;
	struct mrcore_e2e_side *side;
	struct io_local *l2;
	struct io_fixture f;
	u32 all;

	io_fixture_create(test, &f, d, 2, 8, NULL);
	side = &f.pair->active;
	l2 = io_local_create(test, d);
	KUNIT_ASSERT_NOT_NULL(test, l2);
	pool = io_pool_flags(test, side, 32, 8, RDMA_IO_POOL_MRS_ON_DEMAND);
	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, "frwr"));
	all = 32 * rdma_io_mr_factor(side->qp->device, side->cm_id->port_num, 8);
	KUNIT_ASSERT_EQ(test, rdma_io_pool_size(pool), iwarp ? all : 1);

	KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&a, pool, f.l->sg, f.l->nents, 0,
					       f.owner->iova, f.owner->rkey,
					       DMA_TO_DEVICE), 0);
	if (!iwarp) {
		KUNIT_ASSERT_EQ(test, -EAGAIN,
				rdma_io_ctx_init(&b, pool, l2->sg, l2->nents, 0,
						 f.owner->iova, f.owner->rkey,
						 DMA_TO_DEVICE));
		rdma_io_pool_drain(pool);
		KUNIT_EXPECT_EQ(test, rdma_io_pool_size(pool), 3);
	}
	KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&b, pool, l2->sg, l2->nents, 0,
					       f.owner->iova, f.owner->rkey,
					       DMA_TO_DEVICE), 0);
	KUNIT_EXPECT_EQ(test, a.nr_mrs + b.nr_mrs, 2);

	io_fill(&f, false, IO_SEED_LOCAL);
	KUNIT_ASSERT_EQ(test, io_run(test, side, &a), IB_WC_SUCCESS);
	mrcore_e2e_expect_data(test, &f.owner->buf, 0, f.l->len, IO_SEED_LOCAL,
			       "owner WRITE sink of the first I/O");
	mrcore_e2e_buf_fill(&l2->buf, IO_SEED_SINK_SRC);
	mrcore_e2e_buf_fill_range(&f.owner->buf, 0, l2->len,
				  MRCORE_E2E_POISONED);
	KUNIT_ASSERT_EQ(test, io_run(test, side, &b), IB_WC_SUCCESS);
	mrcore_e2e_expect_data(test, &f.owner->buf, 0, l2->len,
			       IO_SEED_SINK_SRC,
			       "owner WRITE sink of the I/O that waited");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

static struct kunit_case io_rxe_cases[] = {
	KUNIT_CASE_PARAM(io_moves_data, io_rxe_gen_params),
	KUNIT_CASE_PARAM(io_skip_moves_data, io_skip_rxe_gen_params),
	KUNIT_CASE(io_bvec_part_moves_data),
	KUNIT_CASE_PARAM(io_write_signals, io_signal_gen_params),
	KUNIT_CASE(io_pool_on_demand),
	{}
};

/* The sink-key case is iWARP's: on rxe READ sinks are local-only. */
static struct kunit_case io_siw_cases[] = {
	KUNIT_CASE_PARAM(io_moves_data, io_siw_gen_params),
	KUNIT_CASE_PARAM(io_skip_moves_data, io_skip_siw_gen_params),
	KUNIT_CASE(io_bvec_part_moves_data),
	KUNIT_CASE_PARAM(io_write_signals, io_signal_gen_params),
	KUNIT_CASE(io_iwarp_sink_key_dies),
	KUNIT_CASE(io_pool_on_demand),
	{}
};

static struct kunit_case sizing_rxe_cases[] = {
	KUNIT_CASE_PARAM(io_sizing, io_rxe_gen_params),
	KUNIT_CASE_PARAM(io_sizing_exact, io_exact_gen_params),
	{}
};

static struct kunit_case sizing_siw_cases[] = {
	KUNIT_CASE_PARAM(io_sizing, io_siw_gen_params),
	KUNIT_CASE_PARAM(io_sizing_exact, io_exact_gen_params),
	{}
};

static struct kunit_suite io_siw_suite = {
	.name = "mrcore_io_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = io_siw_cases,
};

static struct kunit_suite io_rxe_suite = {
	.name = "mrcore_io_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = io_rxe_cases,
};

/* The sizing helpers against what the I/Os above post and complete. */
static struct kunit_suite sizing_siw_suite = {
	.name = "mrcore_sizing_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = sizing_siw_cases,
};

static struct kunit_suite sizing_rxe_suite = {
	.name = "mrcore_sizing_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = sizing_rxe_cases,
};

kunit_test_suites(&io_siw_suite, &io_rxe_suite, &sizing_siw_suite,
		  &sizing_rxe_suite);

MODULE_DESCRIPTION("rdma-mrcore end-to-end KUnit suites of the READ/WRITE helper on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
