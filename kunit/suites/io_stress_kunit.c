// SPDX-License-Identifier: GPL-2.0-only
/*
 * The READ/WRITE helper under failure and load on the soft drivers:
 *
 *   mrcore_flush_siw, mrcore_flush_rxe   a QP moved to error with 64 I/Os
 *	in flight: every context completes (success or flush), every MR
 *	returns to the pool, the flushed ones on new device MRs (which is
 *	what kills their keys), as the device's counters in debugfs show;
 *	and the same with completed and flushed I/Os mixed: some complete
 *	(their bytes checked) before the QP is moved to error under the
 *	others;
 *   mrcore_soak_siw, mrcore_soak_rxe     random I/Os (shapes, offsets,
 *	directions, backends, batches of up to 8 in flight) with injected
 *	faults, every byte checked.  soak_ios sets the count per device
 *	(make check: the default; make soak: 10000).
 */

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "e2e_suite.h"
#include "io_e2e.h"

#define FLUSH_N		64

static unsigned int soak_ios = 600;
module_param(soak_ios, uint, 0444);
MODULE_PARM_DESC(soak_ios, "Random I/Os verified per device in the mrcore_soak_* suites");

/* One counter of a device, as debugfs shows it. */
static u64 io_counter(struct kunit *test, struct ib_device *dev,
		      const char *name)
{
	u64 v = 0;

	KUNIT_ASSERT_EQ_MSG(test, rdma_mrcore_device_counter(dev, name, &v), 0,
			    "counter %s of %s", name, dev_name(&dev->dev));
	return v;
}

/**
 * struct flush_rig - what the flush cases run on, and the device's counters
 *	before them
 * @f: the pair, the owner's memory and the pool (no local memory).
 * @dev: the active end's device.
 * @recycled0: its MRs recycled.
 * @errors0: its failed completions other than flushes.
 * @flushes0: its flushed completions.
 * @maps0: the core's DMA mappings.
 */
struct flush_rig {
	struct io_fixture f;
	struct ib_device *dev;
	u64 recycled0, errors0, flushes0;
	long maps0;
};

/*
 * @r for @n I/Os of up to @pages pages at once; rxe would move READs
 * without MRs, so frwr is forced there: MRs in play on both devices.
 */
static void flush_rig_create(struct kunit *test, struct flush_rig *r, u32 n,
			     u32 pages)
{
	io_fixture_create(test, &r->f, NULL, n, pages,
			  io_on_iwarp(test) ? NULL : "frwr");
	r->dev = r->f.pair->active.device;
	r->recycled0 = io_counter(test, r->dev, "mr_recycled");
	r->errors0 = io_counter(test, r->dev, "err_completion");
	r->flushes0 = io_counter(test, r->dev, "err_flush");
	r->maps0 = rdma_mrcore_dma_maps_live();
}

/*
 * Once every I/O is destroyed: every MR is back in the pool, the device
 * counted @flushed flushes and @failed other failed completions apart and
 * recycled the @lost_mrs MRs of the I/Os that did not succeed, and no DMA
 * mapping is left.
 */
static void flush_rig_check(struct kunit *test, struct flush_rig *r,
			    unsigned int flushed, unsigned int failed,
			    u32 lost_mrs)
{
	struct rdma_io_pool *pool = r->f.pool;

	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
	KUNIT_EXPECT_EQ(test, io_counter(test, r->dev, "err_flush") - r->flushes0,
			(u64)flushed);
	KUNIT_EXPECT_EQ(test,
			io_counter(test, r->dev, "err_completion") - r->errors0,
			(u64)failed);
	KUNIT_EXPECT_EQ_MSG(test,
			    io_counter(test, r->dev, "mr_recycled") - r->recycled0,
			    (u64)lost_mrs, "MRs of flushed I/Os not recycled");
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), r->maps0,
			    "DMA mappings left after the flush");
}

/*
 * A QP error with 64 I/Os in flight: every one completes, every MR returns,
 * and each MR of an I/O that did not succeed is recycled.
 */
static void flush_64_in_flight(struct kunit *test)
{
	enum { N = 64 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct mrcore_shape_desc d = { "16_pages", 16, 0, PAGE_SIZE, 2 };
	unsigned int i, flushed = 0, ok = 0;
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait *w;
	struct rdma_io_ctx *ctx;
	struct io_owner *owner;
	struct flush_rig r;
	u32 lost_mrs = 0;
	struct io_local **l;

	w = kunit_kcalloc(test, N, sizeof(*w), GFP_KERNEL);
	ctx = kunit_kcalloc(test, N, sizeof(*ctx), GFP_KERNEL);
	l = kunit_kcalloc(test, N, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, w && ctx && l);
	flush_rig_create(test, &r, N, d.nents);
	pair = r.f.pair;
	owner = r.f.owner;

	/* READs on even, WRITEs on odd slots: MR-based on both devices. */
	for (i = 0; i < N; i++) {
		l[i] = io_local_create(test, &d);
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&ctx[i], r.f.pool, l[i]->sg,
						       l[i]->nents, 0,
						       owner->iova + i * SZ_64K,
						       owner->rkey,
						       i & 1 ? DMA_TO_DEVICE :
							       DMA_FROM_DEVICE),
				0);
		KUNIT_ASSERT_GT(test, ctx[i].nr_mrs, 0u);
	}
	for (i = 0; i < N; i++) {
		mrcore_e2e_wait_init(&w[i]);
		KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&ctx[i], &w[i].cqe,
							  NULL));
	}
	/* Not an assertion: 64 I/Os are in flight (a wait's timeout moves
	 * the QP to the error state, should this fail).
	 */
	KUNIT_EXPECT_EQ(test, 0, ib_modify_qp(pair->active.qp, &attr,
					      IB_QP_STATE));
	for (i = 0; i < N; i++) {
		int status = mrcore_e2e_wait_done(&pair->active, &w[i],
						  IO_TIMEOUT_MS);
		struct ib_wc wc = { .status = status };

		KUNIT_EXPECT_GE(test, status, 0);
		flushed += status == IB_WC_WR_FLUSH_ERR;
		ok += status == IB_WC_SUCCESS;
		if (status != IB_WC_SUCCESS)
			lost_mrs += ctx[i].nr_mrs;
		rdma_io_ctx_destroy(&ctx[i], status < 0 ? NULL : &wc);
	}
	kunit_info(test, "%u of %u I/Os flushed, %u completed, %u MRs to recycle\n",
		   flushed, N, ok, lost_mrs);
	KUNIT_EXPECT_EQ(test, flushed + ok, (unsigned int)N);
	/* Completed and flushed alike, every MR is back. */
	flush_rig_check(test, &r, flushed, N - ok - flushed, lost_mrs);
}

/**
 * struct flush_mix - the I/Os of flush_some_completed
 * @w: their completions.
 * @ctx: the contexts.
 * @l: their local memory.
 * @posted: posted, so a completion will come.
 * @status: each one's completion status, -EIO if it was not posted.
 */
struct flush_mix {
	struct mrcore_e2e_wait w[FLUSH_N];
	struct rdma_io_ctx ctx[FLUSH_N];
	struct io_local *l[FLUSH_N];
	bool posted[FLUSH_N];
	int status[FLUSH_N];
};

/* I/Os of flush_some_completed that complete before the QP error. */
#define FLUSH_FIRST	8
/* Their slots in the owner: 15 pages of data, then one poisoned page. */
#define FLUSH_SLOT	SZ_64K
#define FLUSH_PAGES	15

static u32 flush_seed(unsigned int i)
{
	return 0x20000 + i;
}

/* Post I/O @i; one the driver refuses is marked as never completed. */
static void flush_post(struct kunit *test, struct flush_mix *m, unsigned int i)
{
	int ret;

	mrcore_e2e_wait_init(&m->w[i]);
	m->status[i] = -EIO;
	ret = rdma_io_ctx_post(&m->ctx[i], &m->w[i].cqe, NULL);
	m->posted[i] = !ret;
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "posting I/O %u", i);
}

static void flush_wait(struct mrcore_e2e_pair *pair, struct flush_mix *m,
		       unsigned int i)
{
	if (m->posted[i])
		m->status[i] = mrcore_e2e_wait_done(&pair->active, &m->w[i],
						    IO_TIMEOUT_MS);
}

/*
 * The first FLUSH_FIRST I/Os complete on a working QP; the others are
 * posted, and the QP fails under them.  Every posted I/O's completion is
 * waited for.
 */
static void flush_mix_run(struct kunit *test, struct mrcore_e2e_pair *pair,
			  struct flush_mix *m)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned int i;

	for (i = 0; i < FLUSH_FIRST; i++)
		flush_post(test, m, i);
	for (i = 0; i < FLUSH_FIRST; i++) {
		flush_wait(pair, m, i);
		KUNIT_EXPECT_EQ_MSG(test, m->status[i], IB_WC_SUCCESS,
				    "I/O %u before the QP error", i);
	}
	for (i = FLUSH_FIRST; i < FLUSH_N; i++)
		flush_post(test, m, i);
	KUNIT_EXPECT_EQ(test, 0, ib_modify_qp(pair->active.qp, &attr,
					      IB_QP_STATE));
	for (i = FLUSH_FIRST; i < FLUSH_N; i++) {
		flush_wait(pair, m, i);
		KUNIT_EXPECT_TRUE_MSG(test, m->status[i] == IB_WC_SUCCESS ||
				      m->status[i] == IB_WC_WR_FLUSH_ERR,
				      "I/O %u: status %d", i, m->status[i]);
	}
}

/**
 * struct flush_ends - how the I/Os of flush_some_completed ended
 * @ok: completed.
 * @flushed: flushed.
 * @lost_mrs: MRs of the I/Os that did not complete, to be recycled.
 */
struct flush_ends {
	unsigned int ok, flushed;
	u32 lost_mrs;
};

/*
 * Completed and flushed contexts go back to the pool together: a completed
 * I/O moved its bytes, no source changed, every context is destroyed with
 * its completion; how they ended is counted in @e.
 */
static void flush_mix_destroy(struct kunit *test, struct flush_mix *m,
			      struct io_owner *owner, struct flush_ends *e)
{
	unsigned int i;

	for (i = 0; i < FLUSH_N; i++) {
		struct ib_wc wc = { .status = m->status[i] };
		bool read = !(i & 1);

		if (m->status[i] == IB_WC_SUCCESS) {
			e->ok++;
			mrcore_e2e_expect_data(test, read ? &m->l[i]->buf :
							    &owner->buf,
					       read ? 0 : i * FLUSH_SLOT,
					       m->l[i]->len, flush_seed(i),
					       read ? "completed READ's sink" :
						      "completed WRITE's sink");
		} else {
			e->flushed += m->status[i] == IB_WC_WR_FLUSH_ERR;
			e->lost_mrs += m->ctx[i].nr_mrs;
		}
		/* The source never changes, whatever became of the I/O. */
		mrcore_e2e_expect_data(test, read ? &owner->buf :
						    &m->l[i]->buf,
				       read ? i * FLUSH_SLOT : 0,
				       m->l[i]->len, flush_seed(i),
				       read ? "READ source" : "WRITE source");
		rdma_io_ctx_destroy(&m->ctx[i], m->status[i] < 0 ? NULL : &wc);
	}
}

/*
 * Completed and flushed I/Os mixed: the first FLUSH_FIRST of 64 I/Os are
 * posted and complete; then the other 56 are posted and the QP is moved to
 * the error state under them at once (they need at least 7 round trips of
 * READs at 4 in flight, so some are still queued).  Every completed I/O
 * moved its bytes; no source changed, whether its I/O completed or not;
 * every MR is back in the pool, each MR of an I/O that did not complete on
 * a new device MR; no DMA mapping is left.  Once an I/O is initialized,
 * nothing asserts until every one is destroyed: an early return would free
 * memory a completion still points at.
 */
static void flush_some_completed(struct kunit *test)
{
	struct mrcore_shape_desc d = { "15_pages", FLUSH_PAGES, 0, PAGE_SIZE,
				       2 };
	struct flush_ends e = {};
	struct io_owner *owner;
	struct flush_mix *m;
	struct flush_rig r;
	unsigned int i;
	int ret;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	flush_rig_create(test, &r, FLUSH_N, d.nents);
	owner = r.f.owner;

	/* READs on even slots, WRITEs on odd: each source its own bytes. */
	for (i = 0; i < FLUSH_N; i++) {
		m->l[i] = io_local_create(test, &d);
		if (!(i & 1))
			mrcore_e2e_buf_fill_range(&owner->buf, i * FLUSH_SLOT,
						  m->l[i]->len, flush_seed(i));
		else
			mrcore_e2e_buf_fill(&m->l[i]->buf, flush_seed(i));
	}
	for (i = 0; i < FLUSH_N; i++) {
		ret = rdma_io_ctx_init(&m->ctx[i], r.f.pool, m->l[i]->sg,
				       m->l[i]->nents, 0,
				       owner->iova + i * FLUSH_SLOT,
				       owner->rkey,
				       i & 1 ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
		if (ret > 0 && m->ctx[i].nr_mrs)
			continue;
		KUNIT_FAIL(test, "I/O %u: rdma_io_ctx_init() %d, %u MRs", i,
			   ret, ret > 0 ? m->ctx[i].nr_mrs : 0);
		i += ret > 0;
		while (i--)
			rdma_io_ctx_destroy(&m->ctx[i], NULL);
		return;
	}

	flush_mix_run(test, r.f.pair, m);
	flush_mix_destroy(test, m, owner, &e);
	kunit_info(test, "%u of %u I/Os completed (%u before the QP error), %u flushed, %u MRs to recycle\n",
		   e.ok, FLUSH_N, FLUSH_FIRST, e.flushed, e.lost_mrs);
	/* Both kinds must be there, or the case shows nothing. */
	KUNIT_EXPECT_GE(test, e.ok, (unsigned int)FLUSH_FIRST);
	KUNIT_EXPECT_GE_MSG(test, e.flushed, 1u,
			    "every I/O completed before the QP error");
	KUNIT_EXPECT_EQ(test, e.ok + e.flushed, (unsigned int)FLUSH_N);
	KUNIT_EXPECT_GT(test, e.lost_mrs, 0u);
	flush_rig_check(test, &r, e.flushed, FLUSH_N - e.ok - e.flushed,
			e.lost_mrs);
}

/* A batch of the soak: up to 8 I/Os posted together, one backend. */
#define SOAK_BATCH	8
#define SOAK_PAGES	16
#define SOAK_SLOT	((SOAK_PAGES + 1) * PAGE_SIZE)	/* + a guard page */

/**
 * struct soak_batch - the I/Os of one batch
 * @w: their completions.
 * @ctx: the contexts.
 * @posted: posted, so a completion will come.
 * @first: first entry of the local memory each uses.
 * @cnt: entries.
 * @off: bytes of the first entry skipped.
 * @read: the batch READs, else it WRITEs.
 * @force: the backend forced on it, or NULL.
 * @seed: I/O i's bytes are the pattern of @seed + i.
 * @drained: an I/O was posted in part and the QP drained.
 */
struct soak_batch {
	struct mrcore_e2e_wait w[SOAK_BATCH];
	struct rdma_io_ctx ctx[SOAK_BATCH];
	bool posted[SOAK_BATCH];
	u32 first[SOAK_BATCH];
	u32 cnt[SOAK_BATCH];
	u32 off[SOAK_BATCH];
	bool read;
	const char *force;
	u32 seed;
	bool drained;
};

/**
 * struct soak_stats - what a soak run did
 * @ios: I/Os completed and verified.
 * @bytes: bytes they moved.
 * @faults: faults injected (as the core counted its hits).
 * @refused: I/Os refused at init or post by an injected fault.
 * @partial: I/Os among them posted in part (post_wr, -EINPROGRESS).
 * @flushed: I/Os the drain after a partial post ended in error.
 */
struct soak_stats {
	u64 ios;
	u64 bytes;
	u32 faults;
	u32 refused;
	u32 partial;
	u32 flushed;
};

static const char *const soak_faults[] = { "post_send", "dma_map",
					   "pool_empty", "map_short",
					   "post_wr" };

/* A backend to force on this batch, or NULL; all can move the direction. */
static const char *soak_backend(struct kunit *test, bool read)
{
	static const char *const rxe[] = { NULL, "frwr", "multiread" };
	static const char *const siw_read[] = { NULL, "iwarp" };
	static const char *const siw_write[] = { NULL, "frwr", "multiread" };

	if (!io_on_iwarp(test))
		return rxe[get_random_u32_below(ARRAY_SIZE(rxe))];
	if (read)
		return siw_read[get_random_u32_below(ARRAY_SIZE(siw_read))];
	return siw_write[get_random_u32_below(ARRAY_SIZE(siw_write))];
}

/* I/O @i's bytes: the slot of the owner's memory it uses. */
static u64 soak_base(u32 i)
{
	return (u64)i * SOAK_SLOT;
}

static u64 soak_len(const struct soak_batch *sb, u32 i)
{
	return (u64)sb->cnt[i] * PAGE_SIZE - sb->off[i];
}

/*
 * I/O @i of the batch, over @li: its range picked and filled, the I/O
 * initialized and posted.  Returns false if the batch must stop: an I/O
 * that could not be initialized, or one posted in part (@sb->drained).
 */
static bool soak_start(struct kunit *test, struct io_fixture *f,
		       struct io_local *li, struct soak_batch *sb,
		       struct soak_stats *st, u32 i)
{
	struct mrcore_e2e_buf *remote = &f->owner->buf;
	const char *force = sb->force;
	u64 len, base = soak_base(i);
	bool read = sb->read;
	int ret;

	sb->first[i] = get_random_u32_below(SOAK_PAGES);
	sb->cnt[i] = 1 + get_random_u32_below(SOAK_PAGES - sb->first[i]);
	sb->off[i] = get_random_u32_below(PAGE_SIZE);
	len = soak_len(sb, i);
	/*
	 * Source: its range holds the I/O's pattern; sink: poisoned.
	 * Everything else of the slot and of the local memory is poison
	 * too, so bytes written next to the range show.
	 */
	mrcore_e2e_buf_poison(&li->buf);
	mrcore_e2e_buf_fill_range(remote, base, SOAK_SLOT, MRCORE_E2E_POISONED);
	if (read)
		mrcore_e2e_buf_fill_range(remote, base, len, sb->seed + i);
	else
		mrcore_e2e_buf_fill_range(&li->buf,
					  sb->first[i] * PAGE_SIZE + sb->off[i],
					  len, sb->seed + i);

	ret = rdma_io_ctx_init(&sb->ctx[i], f->pool, li->sg + sb->first[i],
			       sb->cnt[i], sb->off[i], f->owner->iova + base,
			       f->owner->rkey,
			       read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret == -ENOMEM || ret == -EAGAIN || ret == -EIO) {
		/* Only an injected fault refuses these small I/Os: DMA
		 * mapping (-ENOMEM), an empty pool with the backend forced
		 * (-EAGAIN), a short page list (-EIO).
		 */
		st->refused++;
		return true;
	}
	if (ret <= 0) {
		/* No assertion while I/Os are in flight: see soak_batch(). */
		KUNIT_FAIL(test, "%s %llu bytes (%s): %d",
			   read ? "READ" : "WRITE", len,
			   force ? force : "cost model", ret);
		return false;
	}
	mrcore_e2e_wait_init(&sb->w[i]);
	ret = rdma_io_ctx_post(&sb->ctx[i], &sb->w[i].cqe, NULL);
	if (ret == -EINPROGRESS) {
		/*
		 * post_wr cut the chain: drain first (the QP goes to the error
		 * state; the I/Os posted before complete or are flushed),
		 * then destroy without a completion.  Nothing more is posted
		 * on this QP.
		 */
		ib_drain_qp(f->pair->active.qp);
		rdma_io_ctx_destroy(&sb->ctx[i], NULL);
		st->refused++;
		st->partial++;
		sb->drained = true;
		return false;
	}
	if (ret) {
		KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
		rdma_io_ctx_destroy(&sb->ctx[i], NULL);
		st->refused++;
		return true;
	}
	sb->posted[i] = true;
	return true;
}

/* Posted I/O @i of the batch: waited for, destroyed, both ends checked. */
static void soak_finish(struct kunit *test, struct io_fixture *f,
			struct io_local *li, struct soak_batch *sb,
			struct soak_stats *st, u32 i)
{
	const char *force = sb->force ? sb->force : "cost model";
	u64 local = sb->first[i] * PAGE_SIZE + sb->off[i];
	u64 len = soak_len(sb, i), base = soak_base(i);
	const char *op = sb->read ? "READ" : "WRITE";
	struct ib_wc wc = {};
	int status;

	status = mrcore_e2e_wait_done(&f->pair->active, &sb->w[i],
				      IO_TIMEOUT_MS);
	wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
	rdma_io_ctx_destroy(&sb->ctx[i], status < 0 ? NULL : &wc);
	/*
	 * The drain after a partial post moves the QP to the error state:
	 * the I/Os still queued are flushed, and the one siw is sending
	 * when it happens completes with IB_WC_LOC_QP_OP_ERR (the failure
	 * path of siw_qp_sq_process()).  Any error completion is theirs to
	 * report (a timeout is not); the pool must still come back whole
	 * (below, after the batches).
	 */
	if (sb->drained && status > IB_WC_SUCCESS) {
		st->flushed++;
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, status, IB_WC_SUCCESS, "%s of %llu bytes via %s",
			    op, len, force);
	if (status != IB_WC_SUCCESS)
		return;
	/* Both ends: the sink's range, the source unchanged. */
	if (!mrcore_e2e_expect_data(test, &li->buf, local, len, sb->seed + i,
				    "local memory") ||
	    !mrcore_e2e_expect_data(test, &f->owner->buf, base, len,
				    sb->seed + i, "owner memory")) {
		kunit_err(test, "%s of %llu bytes via %s\n", op, len, force);
		return;
	}
	st->ios++;
	st->bytes += len;
}

/*
 * One batch; returns true if an I/O was posted in part, after which the
 * QP was drained into the error state: the soak goes on over a new pair.
 */
static bool soak_batch(struct kunit *test, struct io_fixture *f,
		       struct io_local **l, struct soak_batch *sb,
		       struct soak_stats *st, u32 seed)
{
	u32 n, i;

	memset(sb->posted, 0, sizeof(sb->posted));
	sb->read = get_random_u32_below(2);
	n = 1 + get_random_u32_below(SOAK_BATCH);
	sb->seed = seed;
	sb->drained = false;
	sb->force = soak_backend(test, sb->read);
	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(f->pool, sb->force));
	for (i = 0; i < n; i++)
		if (!soak_start(test, f, l[i], sb, st, i))
			break;
	/*
	 * Every posted I/O is waited for and destroyed before the test may
	 * stop (it stops after the batch on a failure): an assertion here
	 * would free the completions and the pool under I/Os in flight.
	 */
	for (i = 0; i < n; i++)
		if (sb->posted[i])
			soak_finish(test, f, l[i], sb, st, i);
	return sb->drained;
}

static void soak_random_io(struct kunit *test)
{
	struct mrcore_shape_desc d = { "soak", SOAK_PAGES, 0, PAGE_SIZE, 1 };
	struct io_local *l[SOAK_BATCH];
	struct soak_stats st = {};
	struct soak_batch *sb;
	struct io_fixture f;
	u32 batch, i, skip, armed = 0;
	const char *last = NULL;

	io_fixture_create(test, &f, NULL, SOAK_BATCH, SOAK_PAGES, NULL);
	sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sb);
	for (i = 0; i < SOAK_BATCH; i++)
		l[i] = io_local_create(test, &d);

	/* soak_ios I/Os verified; those a fault refused come on top. */
	for (batch = 0; st.ios < soak_ios; batch++) {
		/* Every 16th batch, one fault somewhere in it. */
		if (batch % 16 == 15) {
			u32 pick = get_random_u32_below(ARRAY_SIZE(soak_faults));

			if (last) {
				st.faults += rdma_mrcore_fault_hits(last);
				rdma_mrcore_fault_arm(last, 0, 0);
			}
			last = soak_faults[pick];
			skip = get_random_u32_below(4);
			KUNIT_ASSERT_EQ(test, 0,
					rdma_mrcore_fault_arm(last, skip, 1));
			armed++;
		}
		if (soak_batch(test, &f, l, sb, &st, batch * 64)) {
			/* The QP is in error: go on over a new pair. */
			io_release_now(test, f.pair, f.owner, f.pool);
			io_fixture_create(test, &f, NULL, SOAK_BATCH,
					  SOAK_PAGES, NULL);
		}
		if (test->status == KUNIT_FAILURE)
			break;
	}
	if (last) {
		st.faults += rdma_mrcore_fault_hits(last);
		rdma_mrcore_fault_arm(last, 0, 0);
	}
	kunit_info(test, "%llu I/Os verified (%llu bytes), %u refused by %u faults injected of %u armed, in %u batches; %u posted in part (drained, %u ended in error with them)\n",
		   st.ios, st.bytes, st.refused, st.faults, armed, batch,
		   st.partial, st.flushed);
	KUNIT_EXPECT_GE(test, st.ios, (u64)soak_ios);
	KUNIT_EXPECT_GT(test, st.faults, 0u);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(f.pool),
			rdma_io_pool_size(f.pool));
}

static struct kunit_case flush_cases[] = {
	KUNIT_CASE_SLOW(flush_64_in_flight),
	KUNIT_CASE_SLOW(flush_some_completed),
	{}
};

static struct kunit_case soak_cases[] = {
	KUNIT_CASE_SLOW(soak_random_io),
	{}
};

static struct kunit_suite flush_siw_suite = {
	.name = "mrcore_flush_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = flush_cases,
};

static struct kunit_suite flush_rxe_suite = {
	.name = "mrcore_flush_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = flush_cases,
};

static struct kunit_suite soak_siw_suite = {
	.name = "mrcore_soak_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = soak_cases,
};

static struct kunit_suite soak_rxe_suite = {
	.name = "mrcore_soak_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = soak_cases,
};

kunit_test_suites(&flush_siw_suite, &flush_rxe_suite, &soak_siw_suite,
		  &soak_rxe_suite);
