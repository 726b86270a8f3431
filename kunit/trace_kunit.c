// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite mrcore_trace: the tracepoints fire with what happened.  Probes
 * are attached to mrcore_io_init, mrcore_map and mrcore_io_done while I/Os
 * run on a fake device, and record their arguments.
 */
#include <linux/scatterlist.h>
#include <linux/tracepoint.h>

#include "fake_dev.h"
#include "mrcore_trace.h"

struct trace_seen {
	unsigned int io_inits;
	char backend[16];
	char why[16];
	u32 wrs;
	u32 cost;
	unsigned int maps;
	u32 last_map_key;
	unsigned int dones;
	bool done_ok;
};

static void probe_io_init(void *data, const struct rdma_io_ctx *ctx,
			  const char *why, u32 cost)
{
	struct trace_seen *seen = data;

	seen->io_inits++;
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

static void probe_io_done(void *data, const struct rdma_io_ctx *ctx, bool ok)
{
	struct trace_seen *seen = data;

	seen->dones++;
	seen->done_ok = ok;
}

static void trace_detach(void *data)
{
	unregister_trace_mrcore_io_init(probe_io_init, data);
	unregister_trace_mrcore_map(probe_map, data);
	unregister_trace_mrcore_io_done(probe_io_done, data);
	tracepoint_synchronize_unregister();
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
	int i, ret;

	seen = kunit_kzalloc(test, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	ret = register_trace_mrcore_io_init(probe_io_init, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = register_trace_mrcore_map(probe_map, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = register_trace_mrcore_io_done(probe_io_done, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);
	ret = kunit_add_action_or_reset(test, trace_detach, seen);
	KUNIT_ASSERT_EQ(test, 0, ret);

	sgl = kunit_kcalloc(test, 256, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, 256);
	for (i = 0; i < 256; i++)
		sg_set_buf(&sgl[i], arena + 2 * i * PAGE_SIZE, PAGE_SIZE);
	pool = rdma_io_pool_create(&fd->qp, 1, 1, 256);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));

	/* 256 scattered pages on RoCE: 8 WRs of 32 SGEs, chosen by cost. */
	KUNIT_ASSERT_EQ(test, 8, rdma_io_ctx_init(&ctx, pool, sgl, 256, 0,
						  0x10000, 1, DMA_TO_DEVICE));
	KUNIT_EXPECT_EQ(test, seen->io_inits, 1u);
	KUNIT_EXPECT_STREQ(test, seen->backend, "multiread");
	KUNIT_EXPECT_STREQ(test, seen->why, "cheapest");
	KUNIT_EXPECT_EQ(test, seen->wrs, 8u);
	/* 8 WRs at 16 each and 256 SGEs at 1 (IB weights, core/io.c) */
	KUNIT_EXPECT_EQ(test, seen->cost, 8 * 16u + 256);
	KUNIT_EXPECT_EQ(test, seen->maps, 0u);
	rdma_io_ctx_destroy(&ctx, &wc);
	KUNIT_EXPECT_EQ(test, seen->dones, 1u);
	KUNIT_EXPECT_TRUE(test, seen->done_ok);

	/* Forced onto an MR, and seen as forced; a flushed I/O as failed. */
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
	rdma_io_ctx_destroy(&ctx, NULL);
	KUNIT_EXPECT_EQ(test, seen->dones, 2u);
	KUNIT_EXPECT_FALSE(test, seen->done_ok);
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
