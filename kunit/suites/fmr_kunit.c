// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite mrcore_fmr: the fmr backend on a fake FMR device (fake
 * callbacks that record maps and unmaps and refuse to map a handle whose
 * key was not flushed).
 */
#include <linux/scatterlist.h>

#include "fake_dev.h"

static void map_unmap_lkey(struct kunit *test, struct rdma_mr *mr, u8 *buf,
			   u32 *key)
{
	struct ib_send_wr *chain = NULL;
	struct scatterlist sg;

	sg_init_one(&sg, buf, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_lkey(key, mr, &sg, 1,
						  RDMA_MR_LOCAL_SEND_SRC,
						  &chain));
	/* Synchronous: nothing to post. */
	KUNIT_EXPECT_NULL(test, chain);
	KUNIT_ASSERT_EQ(test, 0, rdma_unmap_mr(mr));
}

/* Local keys die in batches of 32, and a handle is never remapped unflushed. */
static void fmr_batches_local_flushes(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, MRCORE_PROFILE_FMR);
	u8 *buf = fake_arena_alloc(test, 1);
	struct rdma_mr *mrs[40];
	u32 key;
	int i;

	for (i = 0; i < ARRAY_SIZE(mrs); i++) {
		mrs[i] = rdma_create_mr(&fd->pd, 4, RDMA_MR_ROLE_LKEY);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mrs[i]));
		KUNIT_EXPECT_STREQ(test, mrs[i]->ops->name, "fmr");
	}
	for (i = 0; i < ARRAY_SIZE(mrs); i++)
		map_unmap_lkey(test, mrs[i], buf, &key);
	/* 40 released mappings: one flush of 32, 8 still dirty. */
	KUNIT_EXPECT_EQ(test, fd->fmr_unmap_calls, 1u);
	KUNIT_EXPECT_EQ(test, fd->fmr_unmapped, 32u);
	KUNIT_EXPECT_EQ(test, rdma_fmr_flushes(&fd->ibdev), 1u);

	/* Remapping a dirty MR flushes the 8 first, in one call. */
	map_unmap_lkey(test, mrs[39], buf, &key);
	KUNIT_EXPECT_EQ(test, fd->fmr_unmap_calls, 2u);
	KUNIT_EXPECT_EQ(test, fd->fmr_unmapped, 40u);
	KUNIT_EXPECT_EQ(test, fd->fmr_remap_unflushed, 0u);

	for (i = 0; i < ARRAY_SIZE(mrs); i++)
		rdma_destroy_mr(mrs[i]);
	KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
}

/* A remote key dies at once, on its own, not with a batch. */
static void fmr_rkey_dies_at_invalidate(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, MRCORE_PROFILE_FMR);
	u8 *buf = fake_arena_alloc(test, 2);
	struct ib_send_wr *chain = NULL;
	struct scatterlist sg;
	struct rdma_mr *mr;
	u32 rkey, rkey2;
	u64 iova;

	mr = rdma_create_mr(&fd->pd, 4, RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sg_init_one(&sg, buf + 100, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(&rkey, &iova, mr, &sg, 1,
						  RDMA_MR_REMOTE_WRITE, &chain));
	KUNIT_EXPECT_EQ(test, iova, (u64)(uintptr_t)(buf + 100));
	KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), -EBUSY);
	KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr, &chain));
	KUNIT_EXPECT_NULL(test, chain);
	KUNIT_EXPECT_EQ(test, fd->fmr_unmap_calls, 1u);
	KUNIT_EXPECT_EQ(test, fd->fmr_unmapped, 1u);
	KUNIT_ASSERT_EQ(test, 0, rdma_unmap_mr(mr));
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(&rkey2, &iova, mr, &sg, 1,
						  RDMA_MR_REMOTE_WRITE, &chain));
	KUNIT_EXPECT_NE(test, rkey, rkey2);
	KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr, &chain));
	KUNIT_ASSERT_EQ(test, 0, rdma_unmap_mr(mr));
	rdma_destroy_mr(mr);
	KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
}

/* The I/O path: 32 scattered pages go through one FMR, one WR. */
static void fmr_io_one_wr_per_mr(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, MRCORE_PROFILE_FMR);
	u8 *arena = fake_arena_alloc(test, 64);
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	struct scatterlist sgl[32];
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx;
	int i;

	pool = rdma_io_pool_create(&fd->qp, 1, 1, 32);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	sg_init_table(sgl, 32);
	for (i = 0; i < 32; i++)
		sg_set_buf(&sgl[i], arena + 2 * i * PAGE_SIZE, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, 1, rdma_io_ctx_init(&ctx, pool, sgl, 32, 0,
						  0x10000, 0x99,
						  DMA_TO_DEVICE));
	KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), "fmr");
	KUNIT_EXPECT_EQ(test, ctx.first->opcode, IB_WR_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, ctx.first->sg_list[0].length, 32 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, fd->fmr_maps, 1u);
	rdma_io_ctx_destroy(&ctx, &wc);
	rdma_io_pool_destroy(pool);
	KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
}

static struct kunit_case mrcore_fmr_cases[] = {
	KUNIT_CASE(fmr_batches_local_flushes),
	KUNIT_CASE(fmr_rkey_dies_at_invalidate),
	KUNIT_CASE(fmr_io_one_wr_per_mr),
	{}
};

static struct kunit_suite mrcore_fmr_suite = {
	.name = "mrcore_fmr",
	.test_cases = mrcore_fmr_cases,
};

kunit_test_suite(mrcore_fmr_suite);
