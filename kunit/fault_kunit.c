// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite mrcore_faults: every row of fault_cases.h on a fake device.
 * The armed point fails once; the caller gets the documented error, no
 * device MR, DMA mapping or pool MR is left behind, and the same operation
 * then succeeds.  The fake device posts nothing: an I/O that "works" is one
 * that initializes, and is destroyed as never completed.
 *
 * Fake devices use virtual DMA, which the DMA-API debugging never sees, and
 * keep no per-device counters: DMA mappings are counted by the core itself
 * (rdma_mrcore_dma_maps_live(), every mapping it makes and releases).  Each
 * round must end with the count it started with, and a mapping the round
 * holds must show in it.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "fake_dev.h"
#include "cases/fault_cases.h"

static void fault_case_desc(const struct mrcore_fault_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fault, mrcore_fault_cases, fault_case_desc);

static void disarm(void *point)
{
	rdma_mrcore_fault_arm(point, 0, 0);
}

static struct scatterlist *fault_sg(struct kunit *test, u8 *arena,
				    unsigned int pages)
{
	struct scatterlist *sgl;
	unsigned int i;

	sgl = kunit_kcalloc(test, pages, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, pages);
	for (i = 0; i < pages; i++)
		sg_set_buf(&sgl[i], arena + 2 * i * PAGE_SIZE, PAGE_SIZE);
	return sgl;
}

static void fault_test(struct kunit *test)
{
	const struct mrcore_fault_case *c = test->param_value;
	struct fake_dev *fd = fake_dev_create(test, c->profile);
	enum dma_data_direction dir = c->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct ib_send_wr *chain = NULL;
	struct rdma_io_pool *pool = NULL;
	struct scatterlist *sgl = NULL;
	struct rdma_io_ctx ctx;
	struct rdma_mr *mr;
	unsigned int round;
	long maps0;
	u8 *arena;
	u32 key;
	u64 iova;
	int ret;

	arena = fake_arena_alloc(test, 2 * max(c->pages, 1u));
	if (c->pages)
		sgl = fault_sg(test, arena, c->pages);
	ret = kunit_add_action_or_reset(test, disarm, (void *)c->point);
	KUNIT_ASSERT_EQ(test, 0, ret);
	if (c->op == FAULT_OP_IO_INIT || c->op == FAULT_OP_IO_POST) {
		pool = rdma_io_pool_create(&fd->qp, 1, 1, 600);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	}

	/* Round 0 with the point armed, round 1 without. */
	for (round = 0; round < 2; round++) {
		maps0 = rdma_mrcore_dma_maps_live();
		if (!round && c->op != FAULT_OP_IO_POST)
			KUNIT_ASSERT_EQ(test, 0, rdma_mrcore_fault_arm(c->point,
								       c->skip,
								       1));
		switch (c->op) {
		case FAULT_OP_MAP_RKEY:
			mr = rdma_create_mr(&fd->pd, 8, RDMA_MR_ROLE_RKEY);
			KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
			sg_init_one(sgl, arena, c->pages * PAGE_SIZE);
			chain = NULL;
			ret = rdma_map_sg_rkey(&key, &iova, mr, sgl, 1,
					       RDMA_MR_REMOTE_READ, &chain);
			KUNIT_EXPECT_EQ(test, ret, round ? 0 : c->expect);
			if (!ret) {
				KUNIT_EXPECT_EQ_MSG(test,
						    rdma_mrcore_dma_maps_live(),
						    maps0 + 1,
						    "the mapped MR's DMA mapping is not counted");
				KUNIT_EXPECT_EQ(test, chain->opcode, IB_WR_REG_MR);
				KUNIT_ASSERT_EQ(test, 0,
						rdma_invalidate_mr(mr, &chain));
				KUNIT_ASSERT_EQ(test, 0, rdma_unmap_mr(mr));
			} else {
				KUNIT_EXPECT_NULL(test, chain);
			}
			rdma_destroy_mr(mr);
			break;
		case FAULT_OP_CREATE_MR:
			mr = rdma_create_mr(&fd->pd, 8, RDMA_MR_ROLE_LKEY);
			if (round) {
				KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
				rdma_destroy_mr(mr);
			} else {
				KUNIT_EXPECT_EQ(test, PTR_ERR(mr), (long)c->expect);
			}
			break;
		case FAULT_OP_POOL_CREATE:
			pool = rdma_io_pool_create(&fd->qp, 1, 4, 512);
			if (round) {
				KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
				rdma_io_pool_destroy(pool);
			} else {
				KUNIT_EXPECT_EQ(test, PTR_ERR(pool),
						(long)c->expect);
			}
			pool = NULL;
			break;
		case FAULT_OP_IO_INIT:
		case FAULT_OP_IO_POST:
			ret = rdma_io_ctx_init(&ctx, pool, sgl, c->pages, 0,
					       0x10000, 0x77, dir);
			if (c->op == FAULT_OP_IO_INIT && !round) {
				KUNIT_ASSERT_EQ(test, ret, c->expect);
				if (ret > 0)
					KUNIT_EXPECT_STREQ(test,
							   rdma_io_ctx_backend(&ctx),
							   c->backend);
			} else {
				KUNIT_ASSERT_GT(test, ret, 0);
			}
			if (c->op == FAULT_OP_IO_POST && !round) {
				KUNIT_ASSERT_EQ(test, 0,
						rdma_mrcore_fault_arm(c->point,
								      c->skip,
								      1));
				KUNIT_EXPECT_EQ(test,
						rdma_io_ctx_post(&ctx, NULL, NULL),
						c->expect);
			}
			if (ret > 0) {
				KUNIT_EXPECT_EQ_MSG(test,
						    rdma_mrcore_dma_maps_live(),
						    maps0 + 1,
						    "the I/O's DMA mapping is not counted");
				rdma_io_ctx_destroy(&ctx, NULL);
			}
			KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool),
					rdma_io_pool_size(pool));
			break;
		}
		if (!round)
			KUNIT_EXPECT_EQ(test, rdma_mrcore_fault_hits(c->point), 1);
		rdma_mrcore_fault_arm(c->point, 0, 0);
		KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
				    "%s: DMA mappings left behind",
				    round ? "the retry" : "the faulted operation");
	}
	if (pool)
		rdma_io_pool_destroy(pool);
	KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
}

static struct kunit_case mrcore_fault_test_cases[] = {
	KUNIT_CASE_PARAM(fault_test, fault_gen_params),
	{}
};

static struct kunit_suite mrcore_faults_suite = {
	.name = "mrcore_faults",
	.test_cases = mrcore_fault_test_cases,
};

kunit_test_suite(mrcore_faults_suite);
