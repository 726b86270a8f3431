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

/*
 * A QP error with 64 I/Os in flight: every one completes, every MR returns,
 * and each MR of an I/O that did not succeed is recycled.
 */
static void flush_64_in_flight(struct kunit *test)
{
	enum { N = 64 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct mrcore_shape_desc d = { "16_pages", 16, 0, PAGE_SIZE, 2 };
	u64 recycled0, errors0, flushes0, recycled, errors, flushes;
	unsigned int i, flushed = 0, ok = 0;
	long maps0;
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait *w;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx *ctx;
	struct io_owner *owner;
	u32 lost_mrs = 0;
	struct io_local **l;
	struct ib_device *dev;

	pair = io_pair(test, N, d.nents);
	dev = pair->active.device;
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	pool = io_pool(test, &pair->active, N, d.nents);
	/* rxe would move these READs without MRs: force MRs in play. */
	if (!io_on_iwarp(test))
		KUNIT_ASSERT_EQ(test, 0,
				rdma_io_pool_force_backend(pool, "frwr"));
	w = kunit_kcalloc(test, N, sizeof(*w), GFP_KERNEL);
	ctx = kunit_kcalloc(test, N, sizeof(*ctx), GFP_KERNEL);
	l = kunit_kcalloc(test, N, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, w && ctx && l);
	recycled0 = io_counter(test, dev, "mr_recycled");
	errors0 = io_counter(test, dev, "err_completion");
	flushes0 = io_counter(test, dev, "err_flush");
	maps0 = rdma_mrcore_dma_maps_live();

	/* READs on even, WRITEs on odd slots: MR-based on both devices. */
	for (i = 0; i < N; i++) {
		l[i] = io_local_create(test, &d);
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&ctx[i], pool, l[i]->sg,
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
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
	recycled = io_counter(test, dev, "mr_recycled") - recycled0;
	errors = io_counter(test, dev, "err_completion") - errors0;
	flushes = io_counter(test, dev, "err_flush") - flushes0;
	/* Flushes and other failures are counted apart. */
	KUNIT_EXPECT_EQ(test, flushes, (u64)flushed);
	KUNIT_EXPECT_EQ(test, errors, (u64)(N - ok - flushed));
	KUNIT_EXPECT_EQ(test, recycled, (u64)lost_mrs);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the flush");
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
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct mrcore_shape_desc d = { "15_pages", FLUSH_PAGES, 0, PAGE_SIZE,
				       2 };
	u64 recycled0, errors0, flushes0, recycled, errors, flushes;
	unsigned int i, flushed = 0, ok = 0;
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct io_owner *owner;
	struct ib_device *dev;
	struct flush_mix *m;
	u32 lost_mrs = 0;
	long maps0;
	int ret;

	pair = io_pair(test, FLUSH_N, d.nents);
	dev = pair->active.device;
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	pool = io_pool(test, &pair->active, FLUSH_N, d.nents);
	if (!io_on_iwarp(test))
		KUNIT_ASSERT_EQ(test, 0,
				rdma_io_pool_force_backend(pool, "frwr"));
	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	recycled0 = io_counter(test, dev, "mr_recycled");
	errors0 = io_counter(test, dev, "err_completion");
	flushes0 = io_counter(test, dev, "err_flush");
	maps0 = rdma_mrcore_dma_maps_live();

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
		ret = rdma_io_ctx_init(&m->ctx[i], pool, m->l[i]->sg,
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

	/* The first ones complete on a working QP. */
	for (i = 0; i < FLUSH_FIRST; i++)
		flush_post(test, m, i);
	for (i = 0; i < FLUSH_FIRST; i++) {
		flush_wait(pair, m, i);
		KUNIT_EXPECT_EQ_MSG(test, m->status[i], IB_WC_SUCCESS,
				    "I/O %u before the QP error", i);
	}
	/* The others are posted, and the QP fails under them. */
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

	/* Completed and flushed contexts go back to the pool together. */
	for (i = 0; i < FLUSH_N; i++) {
		struct ib_wc wc = { .status = m->status[i] };
		bool read = !(i & 1);

		if (m->status[i] == IB_WC_SUCCESS) {
			ok++;
			mrcore_e2e_expect_data(test, read ? &m->l[i]->buf :
							    &owner->buf,
					       read ? 0 : i * FLUSH_SLOT,
					       m->l[i]->len, flush_seed(i),
					       read ? "completed READ's sink" :
						      "completed WRITE's sink");
		} else {
			flushed += m->status[i] == IB_WC_WR_FLUSH_ERR;
			lost_mrs += m->ctx[i].nr_mrs;
		}
		/* The source never changes, whatever became of the I/O. */
		mrcore_e2e_expect_data(test, read ? &owner->buf :
						    &m->l[i]->buf,
				       read ? i * FLUSH_SLOT : 0,
				       m->l[i]->len, flush_seed(i),
				       read ? "READ source" : "WRITE source");
		rdma_io_ctx_destroy(&m->ctx[i], m->status[i] < 0 ? NULL : &wc);
	}
	kunit_info(test, "%u of %u I/Os completed (%u before the QP error), %u flushed, %u MRs to recycle\n",
		   ok, FLUSH_N, FLUSH_FIRST, flushed, lost_mrs);
	/* Both kinds must be there, or the case shows nothing. */
	KUNIT_EXPECT_GE(test, ok, (unsigned int)FLUSH_FIRST);
	KUNIT_EXPECT_GE_MSG(test, flushed, 1u,
			    "every I/O completed before the QP error");
	KUNIT_EXPECT_EQ(test, ok + flushed, (unsigned int)FLUSH_N);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
	recycled = io_counter(test, dev, "mr_recycled") - recycled0;
	errors = io_counter(test, dev, "err_completion") - errors0;
	flushes = io_counter(test, dev, "err_flush") - flushes0;
	KUNIT_EXPECT_EQ(test, flushes, (u64)flushed);
	KUNIT_EXPECT_EQ(test, errors, (u64)(FLUSH_N - ok - flushed));
	KUNIT_EXPECT_GT(test, lost_mrs, 0u);
	KUNIT_EXPECT_EQ_MSG(test, recycled, (u64)lost_mrs,
			    "MRs of flushed I/Os not recycled");
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the flush");
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
 */
struct soak_batch {
	struct mrcore_e2e_wait w[SOAK_BATCH];
	struct rdma_io_ctx ctx[SOAK_BATCH];
	bool posted[SOAK_BATCH];
	u32 first[SOAK_BATCH];
	u32 cnt[SOAK_BATCH];
	u32 off[SOAK_BATCH];
};

/**
 * struct soak_stats - what a soak run did
 * @ios: I/Os completed and verified.
 * @bytes: bytes they moved.
 * @faults: faults injected (as the core counted its hits).
 * @refused: I/Os refused at init or post by an injected fault.
 * @partial: I/Os among them posted in part (post_wr, -EINPROGRESS).
 * @flushed: I/Os flushed by the drain after a partial post.
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

/*
 * One batch; returns true if an I/O was posted in part, after which the
 * QP was drained into the error state: the soak goes on over a new pair.
 */
static bool soak_batch(struct kunit *test, struct mrcore_e2e_pair *pair,
		       struct rdma_io_pool *pool, struct io_owner *owner,
		       struct io_local **l, struct soak_batch *sb,
		       struct soak_stats *st, u32 seed)
{
	bool drained = false;
	struct mrcore_e2e_wait *w = sb->w;
	struct rdma_io_ctx *ctx = sb->ctx;
	bool *posted = sb->posted;
	u32 *first = sb->first, *cnt = sb->cnt, *off = sb->off;
	bool read = get_random_u32_below(2);
	u32 n = 1 + get_random_u32_below(SOAK_BATCH);
	struct mrcore_e2e_buf *remote = &owner->buf;
	const char *force;
	u32 i;

	memset(posted, 0, sizeof(sb->posted));
	force = soak_backend(test, read);
	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, force));
	for (i = 0; i < n; i++) {
		struct io_local *li = l[i];
		u64 len, base = (u64)i * SOAK_SLOT;
		int ret;

		first[i] = get_random_u32_below(SOAK_PAGES);
		cnt[i] = 1 + get_random_u32_below(SOAK_PAGES - first[i]);
		off[i] = get_random_u32_below(PAGE_SIZE);
		len = (u64)cnt[i] * PAGE_SIZE - off[i];
		/*
		 * Source: its range holds the I/O's pattern; sink: poisoned.
		 * Everything else of the slot and of the local memory is
		 * poison too, so bytes written next to the range show.
		 */
		mrcore_e2e_buf_poison(&li->buf);
		mrcore_e2e_buf_fill_range(remote, base, SOAK_SLOT,
					  MRCORE_E2E_POISONED);
		if (read)
			mrcore_e2e_buf_fill_range(remote, base, len, seed + i);
		else
			mrcore_e2e_buf_fill_range(&li->buf,
						  first[i] * PAGE_SIZE + off[i],
						  len, seed + i);

		ret = rdma_io_ctx_init(&ctx[i], pool, li->sg + first[i], cnt[i],
				       off[i], owner->iova + base, owner->rkey,
				       read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
		if (ret == -ENOMEM || ret == -EAGAIN || ret == -EIO) {
			/* Only an injected fault refuses these small I/Os:
			 * DMA mapping (-ENOMEM), an empty pool with the
			 * backend forced (-EAGAIN), a short page list (-EIO).
			 */
			st->refused++;
			continue;
		}
		if (ret <= 0) {
			/* No assertion while I/Os are in flight: see below. */
			KUNIT_FAIL(test, "%s %llu bytes (%s): %d",
				   read ? "READ" : "WRITE", len,
				   force ? force : "cost model", ret);
			break;
		}
		mrcore_e2e_wait_init(&w[i]);
		ret = rdma_io_ctx_post(&ctx[i], &w[i].cqe, NULL);
		if (ret == -EINPROGRESS) {
			/*
			 * post_wr cut the chain: drain first (the QP goes to
			 * the error state; the I/Os posted before complete
			 * or are flushed), then destroy without a completion.
			 * Nothing more is posted on this QP.
			 */
			ib_drain_qp(pair->active.qp);
			rdma_io_ctx_destroy(&ctx[i], NULL);
			st->refused++;
			st->partial++;
			drained = true;
			break;
		}
		if (ret) {
			KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
			rdma_io_ctx_destroy(&ctx[i], NULL);
			st->refused++;
			continue;
		}
		posted[i] = true;
	}
	/*
	 * Every posted I/O is waited for and destroyed before the test may
	 * stop (it stops after the batch on a failure): an assertion here
	 * would free the completions and the pool under I/Os in flight.
	 */
	for (i = 0; i < n; i++) {
		u64 len, base = (u64)i * SOAK_SLOT;
		u64 local = first[i] * PAGE_SIZE + off[i];
		struct ib_wc wc = {};
		int status;

		if (!posted[i])
			continue;
		status = mrcore_e2e_wait_done(&pair->active, &w[i],
					      IO_TIMEOUT_MS);
		wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
		rdma_io_ctx_destroy(&ctx[i], status < 0 ? NULL : &wc);
		len = (u64)cnt[i] * PAGE_SIZE - off[i];
		/* The drain after a partial post may flush it. */
		if (drained && status == IB_WC_WR_FLUSH_ERR) {
			st->flushed++;
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, status, IB_WC_SUCCESS,
				    "%s of %llu bytes via %s",
				    read ? "READ" : "WRITE", len,
				    force ? force : "cost model");
		if (status != IB_WC_SUCCESS)
			continue;
		/* Both ends: the sink's range, the source unchanged. */
		if (!mrcore_e2e_expect_data(test, &l[i]->buf, local, len,
					    seed + i, "local memory") ||
		    !mrcore_e2e_expect_data(test, remote, base, len, seed + i,
					    "owner memory")) {
			kunit_err(test, "%s of %llu bytes via %s\n",
				  read ? "READ" : "WRITE", len,
				  force ? force : "cost model");
			continue;
		}
		st->ios++;
		st->bytes += len;
	}
	return drained;
}

static void soak_random_io(struct kunit *test)
{
	struct mrcore_shape_desc d = { "soak", SOAK_PAGES, 0, PAGE_SIZE, 1 };
	struct io_local *l[SOAK_BATCH];
	struct mrcore_e2e_pair *pair;
	struct soak_stats st = {};
	struct soak_batch *sb;
	struct rdma_io_pool *pool;
	struct io_owner *owner;
	u32 batch, i, skip, armed = 0;
	const char *last = NULL;

	pair = io_pair(test, SOAK_BATCH, SOAK_PAGES);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	pool = io_pool(test, &pair->active, SOAK_BATCH, SOAK_PAGES);
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
		if (soak_batch(test, pair, pool, owner, l, sb, &st,
			       batch * 64)) {
			/* The QP is in error: go on over a new pair. */
			io_release_now(test, pair, owner, pool);
			pair = io_pair(test, SOAK_BATCH, SOAK_PAGES);
			owner = io_owner_create(test, pair);
			KUNIT_ASSERT_NOT_NULL(test, owner);
			pool = io_pool(test, &pair->active, SOAK_BATCH,
				       SOAK_PAGES);
		}
		if (test->status == KUNIT_FAILURE)
			break;
	}
	if (last) {
		st.faults += rdma_mrcore_fault_hits(last);
		rdma_mrcore_fault_arm(last, 0, 0);
	}
	kunit_info(test, "%llu I/Os verified (%llu bytes), %u refused by %u faults injected of %u armed, in %u batches; %u posted in part (drained, %u flushed with them)\n",
		   st.ios, st.bytes, st.refused, st.faults, armed, batch,
		   st.partial, st.flushed);
	KUNIT_EXPECT_GE(test, st.ios, (u64)soak_ios);
	KUNIT_EXPECT_GT(test, st.faults, 0u);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
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
