// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite mrcore_trace: the tracepoints fire with what happened.  Probes
 * are attached to mrcore_io_init, mrcore_map, mrcore_io_done and
 * mrcore_pool_exhausted while I/Os run on a fake device, and record what
 * the events carry: the device's name and the QP number (read through
 * rdma_io_pool_get_info(), as the events read the pool's), the backend,
 * the completion status.
 */
#include <linux/scatterlist.h>
#include <linux/tracepoint.h>

#include "fake_dev.h"
#include "mrcore_trace.h"

struct trace_seen {
	unsigned int io_inits;
	char dev[IB_DEVICE_NAME_MAX];
	u32 qpn;
	char backend[16];
	char why[16];
	u32 wrs;
	u32 cost;
	unsigned int maps;
	u32 last_map_key;
	unsigned int dones;
	char done_dev[IB_DEVICE_NAME_MAX];
	u32 done_qpn;
	int done_status;
	unsigned int exhausted;
	char dry_dev[IB_DEVICE_NAME_MAX];
	u32 dry_qpn;
	u32 dry_wanted;
	u32 dry_free;
};

/* The device and QP an event of @pool names. */
static void trace_where(const struct rdma_io_pool *pool, char *dev, u32 *qpn)
{
	const struct rdma_io_pool_info *info = rdma_io_pool_get_info(pool);

	strscpy(dev, info->dev->name, IB_DEVICE_NAME_MAX);
	*qpn = info->qp->qp_num;
}

static void probe_io_init(void *data, const struct rdma_io_ctx *ctx,
			  const char *why, u32 cost)
{
	struct trace_seen *seen = data;

	seen->io_inits++;
	trace_where(ctx->pool, seen->dev, &seen->qpn);
	strscpy(seen->backend, ctx->backend->name, sizeof(seen->backend));
	strscpy(seen->why, why, sizeof(seen->why));
	seen->wrs = ctx->nr_wrs;
	seen->cost = cost;
}

static void probe_map(void *data, const struct rdma_mr *mr)
{
	struct trace_seen *seen = data;

	seen->maps++;
	seen->last_map_key = mr->key;
}

static void probe_io_done(void *data, const struct rdma_io_ctx *ctx,
			  const struct ib_wc *wc)
{
	struct trace_seen *seen = data;

	seen->dones++;
	trace_where(ctx->pool, seen->done_dev, &seen->done_qpn);
	seen->done_status = wc ? wc->status : MRCORE_WC_NONE;
}

static void probe_pool_exhausted(void *data, const struct rdma_io_pool *pool,
				 u32 wanted, u32 free)
{
	struct trace_seen *seen = data;

	seen->exhausted++;
	trace_where(pool, seen->dry_dev, &seen->dry_qpn);
	seen->dry_wanted = wanted;
	seen->dry_free = free;
}

static void trace_detach(void *data)
{
	unregister_trace_mrcore_io_init(probe_io_init, data);
	unregister_trace_mrcore_map(probe_map, data);
	unregister_trace_mrcore_io_done(probe_io_done, data);
	unregister_trace_mrcore_pool_exhausted(probe_pool_exhausted, data);
	tracepoint_synchronize_unregister();
}

/* The probes attached, each event noted in what it returns. */
static struct trace_seen *trace_attach(struct kunit *test)
{
	struct trace_seen *seen;
	int ret;

	seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	ret = register_trace_mrcore_io_init(probe_io_init, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = register_trace_mrcore_map(probe_map, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = register_trace_mrcore_io_done(probe_io_done, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = register_trace_mrcore_pool_exhausted(probe_pool_exhausted, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = kunit_add_action_or_reset(test, trace_detach, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	return seen;
}

/*
 * Forced onto an MR, and seen as forced; the pool's one MR taken, the next
 * I/O finds the pool dry; then the first is flushed.
 */
static void trace_forced_and_dry(struct kunit *test, struct trace_seen *seen,
				 struct rdma_io_pool *pool,
				 struct scatterlist *sgl)
{
	struct ib_wc flush = { .status = IB_WC_WR_FLUSH_ERR };
	struct rdma_io_ctx ctx, dry;

	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, "frwr"));
	KUNIT_ASSERT_EQ(test, 2, rdma_io_ctx_init(&ctx, pool, sgl, 256, 0,
						  0x10000, 1, DMA_TO_DEVICE));
	KUNIT_EXPECT_STREQ(test, seen->backend, "frwr");
	KUNIT_EXPECT_STREQ(test, seen->why, "forced");
	KUNIT_EXPECT_EQ(test, seen->wrs, 2u);
	/* REG_MR + WRITE on a clean MR, 1 MR at 144, 256 pages at 1 */
	KUNIT_EXPECT_EQ(test, seen->cost, 2 * 16u + 144 + 256);
	KUNIT_EXPECT_EQ(test, seen->maps, 1u);
	KUNIT_EXPECT_EQ(test, seen->last_map_key, ctx.mrs[0]->key);

	KUNIT_EXPECT_EQ(test, seen->exhausted, 0u);
	KUNIT_EXPECT_EQ(test, -EAGAIN,
			rdma_io_ctx_init(&dry, pool, sgl, 256, 0, 0x10000, 1,
					 DMA_TO_DEVICE));
	KUNIT_EXPECT_EQ(test, seen->exhausted, 1u);
	KUNIT_EXPECT_STREQ(test, seen->dry_dev, "mrc_trace0");
	KUNIT_EXPECT_EQ(test, seen->dry_qpn, 0x2au);
	KUNIT_EXPECT_EQ(test, seen->dry_wanted, 1u);
	KUNIT_EXPECT_EQ(test, seen->dry_free, 0u);

	rdma_io_ctx_destroy(&ctx, &flush);
	KUNIT_EXPECT_EQ(test, seen->dones, 2u);
	KUNIT_EXPECT_EQ(test, seen->done_status, (int)IB_WC_WR_FLUSH_ERR);
	rdma_io_pool_drain(pool);
}

static void trace_io_events(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, MRCORE_PROFILE_ROCE);
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	u8 *arena = fake_arena_alloc(test, 512);
	struct rdma_io_pool *pool;
	struct scatterlist *sgl;
	struct trace_seen *seen;
	struct rdma_io_ctx ctx;
	int i;

	seen = trace_attach(test);
	sgl = kunit_kcalloc(test, 256, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, 256);
	for (i = 0; i < 256; i++)
		sg_set_buf(&sgl[i], arena + 2 * i * PAGE_SIZE, PAGE_SIZE);
	/* A name and a QP number of their own, to be found in the events. */
	strscpy(fd->ibdev.name, "mrc_trace0", sizeof(fd->ibdev.name));
	fd->qp.qp_num = 0x2a;
	pool = rdma_io_pool_create(&fd->qp, 1, 1, 256);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));

	/* 256 scattered pages on RoCE: 8 WRs of 32 SGEs, chosen by cost. */
	KUNIT_ASSERT_EQ(test, 8, rdma_io_ctx_init(&ctx, pool, sgl, 256, 0,
						  0x10000, 1, DMA_TO_DEVICE));
	KUNIT_EXPECT_EQ(test, seen->io_inits, 1u);
	KUNIT_EXPECT_STREQ(test, seen->dev, "mrc_trace0");
	KUNIT_EXPECT_EQ(test, seen->qpn, 0x2au);
	KUNIT_EXPECT_STREQ(test, seen->backend, "multiread");
	KUNIT_EXPECT_STREQ(test, seen->why, "cheapest");
	KUNIT_EXPECT_EQ(test, seen->wrs, 8u);
	/* 8 WRs at 16 each and 256 SGEs at 1 (IB weights, core/io.c) */
	KUNIT_EXPECT_EQ(test, seen->cost, 8 * 16u + 256);
	KUNIT_EXPECT_EQ(test, seen->maps, 0u);
	rdma_io_ctx_destroy(&ctx, &wc);
	KUNIT_EXPECT_EQ(test, seen->dones, 1u);
	KUNIT_EXPECT_STREQ(test, seen->done_dev, "mrc_trace0");
	KUNIT_EXPECT_EQ(test, seen->done_qpn, 0x2au);
	KUNIT_EXPECT_EQ(test, seen->done_status, (int)IB_WC_SUCCESS);

	trace_forced_and_dry(test, seen, pool, sgl);

	/* Never posted: no completion, and the event says so. */
	KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, NULL));
	KUNIT_ASSERT_EQ(test, 8, rdma_io_ctx_init(&ctx, pool, sgl, 256, 0,
						  0x10000, 1, DMA_TO_DEVICE));
	rdma_io_ctx_destroy(&ctx, NULL);
	KUNIT_EXPECT_EQ(test, seen->dones, 3u);
	KUNIT_EXPECT_EQ(test, seen->done_status, MRCORE_WC_NONE);
	rdma_io_pool_drain(pool);
	rdma_io_pool_destroy(pool);
}

static struct kunit_case mrcore_trace_cases[] = {
	KUNIT_CASE(trace_io_events),
	{}
};

static struct kunit_suite mrcore_trace_suite = {
	.name = "mrcore_trace",
	.test_cases = mrcore_trace_cases,
};

kunit_test_suite(mrcore_trace_suite);
