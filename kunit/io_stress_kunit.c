// SPDX-License-Identifier: GPL-2.0-only
/*
 * The READ/WRITE helper under failure and load on the soft drivers:
 *
 *   mrcore_flush_siw, mrcore_flush_rxe   a QP moved to error with 64 I/Os
 *	in flight: every context completes (success or flush), every MR
 *	returns to the pool, the flushed ones on new device MRs (which is
 *	what kills their keys), as the device's counters in debugfs show;
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
	u64 recycled0, errors0, recycled, errors;
	unsigned int i, flushed = 0, ok = 0;
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait *w;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx *ctx;
	struct io_owner *owner;
	u32 lost_mrs = 0;
	struct io_local **l;
	struct ib_device *dev;

	pair = io_pair(test);
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
	KUNIT_ASSERT_EQ(test, 0, ib_modify_qp(pair->active.qp, &attr,
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
	KUNIT_EXPECT_EQ(test, errors, (u64)(N - ok));
	KUNIT_EXPECT_EQ(test, recycled, (u64)lost_mrs);
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
 */
struct soak_stats {
	u64 ios;
	u64 bytes;
	u32 faults;
	u32 refused;
};

static const char *const soak_faults[] = { "post_send", "dma_map",
					   "pool_empty", "map_short" };

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

static void soak_batch(struct kunit *test, struct mrcore_e2e_pair *pair,
		       struct rdma_io_pool *pool, struct io_owner *owner,
		       struct io_local **l, struct soak_batch *sb,
		       struct soak_stats *st, u32 seed)
{
	struct mrcore_e2e_wait *w = sb->w;
	struct rdma_io_ctx *ctx = sb->ctx;
	bool *posted = sb->posted;
	u32 *first = sb->first, *cnt = sb->cnt, *off = sb->off;
	bool read = get_random_u32_below(2);
	u32 n = 1 + get_random_u32_below(SOAK_BATCH);
	u8 *remote = page_address(owner->page);
	const char *force;
	u32 i;
	u64 b;

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
		io_fill(remote + base, len + 1, seed + 2 * i);
		for (b = 0; b < len; b++)
			*io_local_byte(li, first[i] * PAGE_SIZE + off[i] + b) =
				mrcore_e2e_pattern(seed + 2 * i + 1, b);

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
		KUNIT_ASSERT_GT_MSG(test, ret, 0, "%s %llu bytes (%s)",
				    read ? "READ" : "WRITE", len,
				    force ? force : "cost model");
		mrcore_e2e_wait_init(&w[i]);
		ret = rdma_io_ctx_post(&ctx[i], &w[i].cqe, NULL);
		if (ret) {
			KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
			rdma_io_ctx_destroy(&ctx[i], NULL);
			st->refused++;
			continue;
		}
		posted[i] = true;
	}
	for (i = 0; i < n; i++) {
		struct ib_wc wc = {};
		u64 len, bad = 0;
		int status;

		if (!posted[i])
			continue;
		status = mrcore_e2e_wait_done(&pair->active, &w[i],
					      IO_TIMEOUT_MS);
		wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
		rdma_io_ctx_destroy(&ctx[i], status < 0 ? NULL : &wc);
		KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS,
				    "%s via %s", read ? "READ" : "WRITE",
				    force ? force : "cost model");
		len = (u64)cnt[i] * PAGE_SIZE - off[i];
		for (b = 0; b < len; b++) {
			u8 got = read ? *io_local_byte(l[i], first[i] *
						       PAGE_SIZE + off[i] + b) :
					remote[(u64)i * SOAK_SLOT + b];
			u8 want = mrcore_e2e_pattern(seed + 2 * i + !read, b);

			bad += got != want;
		}
		KUNIT_ASSERT_EQ_MSG(test, bad, 0ull, "%llu bad bytes of %llu",
				    bad, len);
		/* A WRITE stops at its last byte. */
		if (!read)
			KUNIT_ASSERT_EQ(test, remote[(u64)i * SOAK_SLOT + len],
					mrcore_e2e_pattern(seed + 2 * i, len));
		st->ios++;
		st->bytes += len;
	}
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

	pair = io_pair(test);
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
		soak_batch(test, pair, pool, owner, l, sb, &st, batch * 64);
		if (test->status == KUNIT_FAILURE)
			break;
	}
	if (last) {
		st.faults += rdma_mrcore_fault_hits(last);
		rdma_mrcore_fault_arm(last, 0, 0);
	}
	kunit_info(test, "%llu I/Os verified (%llu bytes), %u refused by %u faults injected of %u armed, in %u batches\n",
		   st.ios, st.bytes, st.refused, st.faults, armed, batch);
	KUNIT_EXPECT_GE(test, st.ios, (u64)soak_ios);
	KUNIT_EXPECT_GT(test, st.faults, 0u);
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

static struct kunit_case flush_cases[] = {
	KUNIT_CASE_SLOW(flush_64_in_flight),
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
