// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the map API on a fake device, one case per row of map_cases.h and
 * transport.
 *
 * The fake device (fake_dev.c) records what the core asked of it.  Each
 * case checks the answer, the WR chain the core built, the page list it
 * handed the device, the direction of the DMA mapping it made (seen
 * through its tracepoints: the device uses virtual DMA) and that every
 * device MR it allocated and every DMA mapping it made was released.
 */
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "fake_dev.h"
#include "cases/map_cases.h"

struct map_param {
	const struct mrcore_map_case *row;
	bool iwarp;
};

/* Rows x {RoCE, iWARP}; rows that need memory no kernel test may touch
 * (an address at the top of the address space) run in the mirror only.
 */
static const void *map_param_gen(const void *prev, char *desc)
{
	static struct map_param params[2 * ARRAY_SIZE(mrcore_map_cases)];
	const struct map_param *p = prev;
	size_t i = p ? p - params + 1 : 0;

	for (; i < ARRAY_SIZE(params); i++) {
		const struct mrcore_map_case *row =
			&mrcore_map_cases[i % ARRAY_SIZE(mrcore_map_cases)];

		if (row->mirror_only)
			continue;
		params[i].row = row;
		params[i].iwarp = i >= ARRAY_SIZE(mrcore_map_cases);
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %s",
			 params[i].iwarp ? "iwarp" : "roce", row->name);
		return &params[i];
	}
	return NULL;
}

/*
 * The row's mapping was made: the device saw the row's pages, the chain is
 * REG_MR of @key, unsignaled, in front of the caller's @caller, with the
 * access the row's operations give (@iwarp: a READ sink's grants
 * REMOTE_WRITE); then the key dies and the MR is unmapped.
 */
static void map_case_mapped(struct kunit *test, const struct map_param *param,
			    struct fake_dev *fd, struct rdma_mr *mr, u8 *arena,
			    struct ib_send_wr *chain, struct ib_send_wr *caller,
			    u32 key, u64 iova)
{
	const struct mrcore_map_case *row = param->row;
	struct fake_mr *fmr = container_of(mr->ibmr, struct fake_mr, ibmr);
	struct ib_reg_wr *reg = container_of(chain, struct ib_reg_wr, wr);
	struct ib_send_wr *inv = NULL;
	u64 first = (uintptr_t)arena + row->e[0].page * PAGE_SIZE +
		    row->e[0].offset;

	KUNIT_EXPECT_EQ(test, fd->map_calls, 1u);
	KUNIT_EXPECT_EQ(test, fd->last_map_nents, (int)row->nents);
	/* The memory was DMA-mapped once, for what the device does to it. */
	KUNIT_EXPECT_EQ(test, fd->dma_maps, 1u);
	KUNIT_EXPECT_EQ_MSG(test, fd->dma_last_dir, mrcore_map_case_dir(row->ops),
			    "DMA direction of the mapping (0 bidirectional, 1 to the device, 2 from it)");
	KUNIT_EXPECT_EQ(test, fmr->npages, row->expect_pages);
	KUNIT_EXPECT_EQ(test, fmr->pages[0], first & PAGE_MASK);
	KUNIT_EXPECT_EQ(test, rdma_mr_length(mr), (u64)row->expect_length);
	KUNIT_ASSERT_EQ(test, chain->opcode, IB_WR_REG_MR);
	KUNIT_EXPECT_PTR_EQ(test, chain->next, caller);
	KUNIT_EXPECT_FALSE(test, chain->send_flags & IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, reg->key, key);
	/* The key rotated away from the one the device handed out. */
	KUNIT_EXPECT_NE(test, key & 0xff, 0x5au);
	if (row->use_rkey_entry) {
		KUNIT_EXPECT_EQ(test, iova, first);
		KUNIT_EXPECT_EQ(test, !!(reg->access & IB_ACCESS_REMOTE_READ),
				!!(row->ops & RDMA_MR_REMOTE_READ));
		KUNIT_EXPECT_EQ(test, !!(reg->access & IB_ACCESS_REMOTE_WRITE),
				!!(row->ops & RDMA_MR_REMOTE_WRITE));
	} else {
		bool sink = row->ops & RDMA_MR_LOCAL_READ_SINK;

		KUNIT_EXPECT_FALSE(test, reg->access & IB_ACCESS_REMOTE_READ);
		KUNIT_EXPECT_EQ(test, !!(reg->access & IB_ACCESS_REMOTE_WRITE),
				sink && param->iwarp);
	}

	if (reg->access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)) {
		KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), -EBUSY);
		KUNIT_ASSERT_EQ(test, rdma_invalidate_mr(mr, &inv), 0);
		KUNIT_ASSERT_NOT_NULL(test, inv);
		KUNIT_EXPECT_EQ(test, inv->opcode, IB_WR_LOCAL_INV);
		KUNIT_EXPECT_EQ(test, inv->ex.invalidate_rkey, key);
	}
	KUNIT_EXPECT_EQ(test, rdma_unmap_mr(mr), 0);
	KUNIT_EXPECT_EQ(test, fd->dma_unmaps, 1u);
	KUNIT_EXPECT_EQ(test, fd->dma_unmap_mismatch, 0u);
}

static void map_case_test(struct kunit *test)
{
	const struct map_param *param = test->param_value;
	const struct mrcore_map_case *row = param->row;
	struct ib_send_wr caller = { .opcode = IB_WR_SEND };
	struct ib_send_wr *chain = &caller;
	struct scatterlist *sgl;
	struct fake_dev *fd;
	struct rdma_mr *mr;
	u8 *arena;
	u64 iova = 0;
	u32 key = 0;
	unsigned int i;
	int ret;

	fd = fake_dev_create(test, param->iwarp ? MRCORE_PROFILE_IWARP :
						  MRCORE_PROFILE_ROCE);
	arena = fake_arena_alloc(test, MRCORE_CASE_ARENA_PAGES);

	sgl = kunit_kcalloc(test, max(row->nents, 1u), sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, max(row->nents, 1u));
	for (i = 0; i < row->nents; i++)
		sg_set_buf(&sgl[i], arena + row->e[i].page * PAGE_SIZE +
			   row->e[i].offset, row->e[i].length);

	mr = rdma_create_mr(&fd->pd, row->max_pages, row->mr_role);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_EQ(test, fd->allocs, 1u);

	if (row->use_rkey_entry)
		ret = rdma_map_sg_rkey(&key, &iova, mr, sgl, row->nents,
				       row->ops, &chain);
	else
		ret = rdma_map_sg_lkey(&key, mr, sgl, row->nents, row->ops,
				       &chain);
	KUNIT_ASSERT_EQ(test, ret, row->expect);

	if (ret) {
		/* Refused before the device was touched; nothing chained. */
		KUNIT_EXPECT_EQ(test, fd->map_calls, 0u);
		KUNIT_EXPECT_PTR_EQ(test, chain, &caller);
		KUNIT_EXPECT_EQ(test, rdma_mr_length(mr), 0ull);
		/* What it DMA-mapped before finding the gap, it released. */
		KUNIT_EXPECT_EQ(test, fd->dma_unmaps, fd->dma_maps);
		KUNIT_EXPECT_EQ(test, fd->dma_unmap_mismatch, 0u);
	} else {
		map_case_mapped(test, param, fd, mr, arena, chain, &caller,
				key, iova);
	}
	rdma_destroy_mr(mr);
	KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
}

static struct kunit_case mrcore_map_test_cases[] = {
	KUNIT_CASE_PARAM(map_case_test, map_param_gen),
	{}
};

static struct kunit_suite mrcore_map_suite = {
	.name = "mrcore_map",
	.test_cases = mrcore_map_test_cases,
};

kunit_test_suite(mrcore_map_suite);
