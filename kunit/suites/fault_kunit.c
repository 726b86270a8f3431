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

/**
 * struct fault_run - what the rounds of one fault case work on
 * @c: the case.
 * @fd: the fake device.
 * @pool: the pool of an I/O case.
 * @sgl: @c->pages entries over every other page of @arena.
 * @arena: the memory.
 * @maps0: the core's DMA mappings when the round began.
 */
struct fault_run {
	const struct mrcore_fault_case *c;
	struct fake_dev *fd;
	struct rdma_io_pool *pool;
	struct scatterlist *sgl;
	u8 *arena;
	long maps0;
};

/* rdma_map_sg_rkey() of one entry; a mapping made is undone. */
static void fault_map_rkey(struct kunit *test, struct fault_run *r,
			   unsigned int round)
{
	const struct mrcore_fault_case *c = r->c;
	struct ib_send_wr *chain = NULL;
	struct rdma_mr *mr;
	u64 iova;
	u32 key;
	int ret;

	mr = rdma_create_mr(&r->fd->pd, 8, RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sg_init_one(r->sgl, r->arena, c->pages * PAGE_SIZE);
	ret = rdma_map_sg_rkey(&key, &iova, mr, r->sgl, 1, RDMA_MR_REMOTE_READ,
			       &chain);
	KUNIT_EXPECT_EQ(test, ret, round ? 0 : c->expect);
	if (!ret) {
		KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(),
				    r->maps0 + 1,
				    "the mapped MR's DMA mapping is not counted");
		KUNIT_EXPECT_EQ(test, chain->opcode, IB_WR_REG_MR);
		KUNIT_ASSERT_EQ(test, 0, rdma_invalidate_mr(mr, &chain));
		KUNIT_ASSERT_EQ(test, 0, rdma_unmap_mr(mr));
	} else {
		KUNIT_EXPECT_NULL(test, chain);
	}
	rdma_destroy_mr(mr);
}

/* rdma_create_mr(), or rdma_io_pool_create() (@pool): made and destroyed. */
static void fault_create(struct kunit *test, struct fault_run *r,
			 unsigned int round, bool pool)
{
	long expect = r->c->expect;
	void *obj;

	if (pool)
		obj = rdma_io_pool_create(&r->fd->qp, 1, 4, 512);
	else
		obj = rdma_create_mr(&r->fd->pd, 8, RDMA_MR_ROLE_LKEY);
	if (!round) {
		KUNIT_EXPECT_EQ(test, PTR_ERR(obj), expect);
		return;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(obj));
	if (pool)
		rdma_io_pool_destroy(obj);
	else
		rdma_destroy_mr(obj);
}

/*
 * An I/O on @pool: rdma_io_ctx_init() with the point armed (its round 0),
 * or rdma_io_ctx_post() with the point armed after it (the same), then
 * destroyed as never completed.
 */
static void fault_io(struct kunit *test, struct fault_run *r,
		     unsigned int round)
{
	const struct mrcore_fault_case *c = r->c;
	enum dma_data_direction dir = c->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct rdma_io_ctx ctx;
	int ret;

	ret = rdma_io_ctx_init(&ctx, r->pool, r->sgl, c->pages, 0, 0x10000,
			       0x77, dir);
	if (c->op == FAULT_OP_IO_INIT && !round) {
		KUNIT_ASSERT_EQ(test, ret, c->expect);
		if (ret > 0)
			KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx),
					   c->backend);
	} else {
		KUNIT_ASSERT_GT(test, ret, 0);
	}
	if (c->op == FAULT_OP_IO_POST && !round) {
		KUNIT_ASSERT_EQ(test, 0, rdma_mrcore_fault_arm(c->point,
							       c->skip, 1));
		KUNIT_EXPECT_EQ(test, rdma_io_ctx_post(&ctx, NULL, NULL),
				c->expect);
	}
	if (ret > 0) {
		KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(),
				    r->maps0 + 1,
				    "the I/O's DMA mapping is not counted");
		rdma_io_ctx_destroy(&ctx, NULL);
	}
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(r->pool),
			rdma_io_pool_size(r->pool));
}

static void fault_test(struct kunit *test)
{
	const struct mrcore_fault_case *c = test->param_value;
	struct fault_run r = { .c = c };
	unsigned int round;
	int ret;

	r.fd = fake_dev_create(test, c->profile);
	r.arena = fake_arena_alloc(test, 2 * max(c->pages, 1u));
	if (c->pages)
		r.sgl = fault_sg(test, r.arena, c->pages);
	ret = kunit_add_action_or_reset(test, disarm, (void *)c->point);
	KUNIT_ASSERT_EQ(test, 0, ret);
	if (c->op == FAULT_OP_IO_INIT || c->op == FAULT_OP_IO_POST) {
		r.pool = rdma_io_pool_create(&r.fd->qp, 1, 1, 600);
		KUNIT_ASSERT_FALSE(test, IS_ERR(r.pool));
	}

	/* Round 0 with the point armed, round 1 without. */
	for (round = 0; round < 2; round++) {
		r.maps0 = rdma_mrcore_dma_maps_live();
		if (!round && c->op != FAULT_OP_IO_POST)
			KUNIT_ASSERT_EQ(test, 0, rdma_mrcore_fault_arm(c->point,
								       c->skip,
								       1));
		switch (c->op) {
		case FAULT_OP_MAP_RKEY:
			fault_map_rkey(test, &r, round);
			break;
		case FAULT_OP_CREATE_MR:
			fault_create(test, &r, round, false);
			break;
		case FAULT_OP_POOL_CREATE:
			fault_create(test, &r, round, true);
			break;
		case FAULT_OP_IO_INIT:
		case FAULT_OP_IO_POST:
			fault_io(test, &r, round);
			break;
		}
		if (!round)
			KUNIT_EXPECT_EQ(test, rdma_mrcore_fault_hits(c->point), 1);
		rdma_mrcore_fault_arm(c->point, 0, 0);
		KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), r.maps0,
				    "%s: DMA mappings left behind",
				    round ? "the retry" : "the faulted operation");
	}
	if (r.pool)
		rdma_io_pool_destroy(r.pool);
	KUNIT_EXPECT_EQ(test, r.fd->frees, r.fd->allocs);
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
