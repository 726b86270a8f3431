// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite mrcore_scenarios: every row of scenarios.h on a fake device of
 * the row's profile.  The fake device posts nothing, so each case checks
 * the plan and the WR chain itself: the backend, the WR and MR counts on a
 * fresh pool and in the steady state, that the RDMA WRs' SGEs cover the
 * I/O's bytes in order with contiguous remote addresses, and that every
 * MR-based RDMA WR uses its MR's key, which a REG_MR before it registered.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "fake_dev.h"
#include "sg_chain.h"
#include "cases/scenarios.h"

static void scenario_desc(const struct mrcore_scenario *row, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s_%s%s%s%s%s%s",
		 mrcore_profiles[row->profile].name,
		 row->read ? "read" : "write",
		 mrcore_shapes[row->shape].name, row->force ? "_forced_" : "",
		 row->force ? row->force : "", row->backend ? "" : "_refused",
		 row->bvec ? "_bvec" : row->skip ? "_skip" : "",
		 row->chained ? "_chained" : "");
}

KUNIT_ARRAY_PARAM(scenario, mrcore_scenarios, scenario_desc);

/* The DMA (= kernel virtual) address of byte @off of a shape's SG list. */
static u64 shape_addr(const struct mrcore_shape_desc *d, u8 *arena, u64 off)
{
	u64 first = mrcore_shape_entry_len(d, 0);
	u64 entry, in;

	if (off < first)
		return (uintptr_t)arena + d->offset + off;
	off -= first;
	entry = 1 + div64_u64(off, d->length);
	in = off - (entry - 1) * d->length;
	return (uintptr_t)arena + entry * d->stride * PAGE_SIZE + in;
}

static void check_chain(struct kunit *test, struct rdma_io_ctx *ctx,
			const struct mrcore_shape_desc *d, u32 skip, u8 *arena,
			u32 local_dma_lkey)
{
	struct ib_send_wr *wr;
	u32 ops = 0;
	u64 done = 0;
	u32 n = 0;

	for (wr = ctx->first; wr; wr = wr->next) {
		struct ib_rdma_wr *rdma;
		u32 key;
		int i;

		n++;
		KUNIT_ASSERT_LE(test, n, ctx->nr_wrs);
		/* RDMA WR i uses MR i, registered by the WRs before it
		 * (FRWR) or synchronously (FMR); without MRs, the DMA lkey.
		 */
		key = ops < ctx->nr_mrs ? ctx->mrs[ops]->key : local_dma_lkey;
		if (wr->opcode == IB_WR_REG_MR) {
			KUNIT_EXPECT_EQ(test, key,
					container_of(wr, struct ib_reg_wr, wr)->key);
			continue;
		}
		if (wr->opcode == IB_WR_LOCAL_INV)
			continue;

		rdma = container_of(wr, struct ib_rdma_wr, wr);
		KUNIT_EXPECT_EQ(test, rdma->remote_addr, 0x10000ull + done);
		KUNIT_EXPECT_EQ(test, rdma->rkey, 0x1234u);
		for (i = 0; i < wr->num_sge; i++) {
			struct ib_sge *sge = &wr->sg_list[i];

			KUNIT_EXPECT_EQ(test, sge->addr,
					shape_addr(d, arena, skip + done));
			KUNIT_EXPECT_EQ(test, sge->lkey, key);
			done += sge->length;
		}
		ops++;
		if (wr == ctx->last)
			break;
	}
	KUNIT_EXPECT_EQ(test, n, ctx->nr_wrs);
	KUNIT_EXPECT_EQ(test, done, ctx->length);
}

static void pool_destroy_action(void *pool)
{
	rdma_io_pool_destroy(pool);
}

/* The row's I/O, from the scatterlist or from bio_vecs over the same memory. */
static int scenario_init(struct rdma_io_ctx *ctx, struct rdma_io_pool *pool,
			 const struct mrcore_scenario *row,
			 struct scatterlist *sgl, const struct bio_vec *bv)
{
	const struct mrcore_shape_desc *d = &mrcore_shapes[row->shape];
	enum dma_data_direction dir = row->read ? DMA_FROM_DEVICE :
						  DMA_TO_DEVICE;
	struct bvec_iter iter = { .bi_size = mrcore_shape_bytes(d) };

	if (row->bvec)
		return rdma_io_ctx_init_bvec(ctx, pool, bv, d->nents, iter,
					     0x10000, 0x1234, dir);
	return rdma_io_ctx_init(ctx, pool, sgl, d->nents, row->skip, 0x10000,
				0x1234, dir);
}

/*
 * The shape's entries over @arena, each its own @d->stride pages apart,
 * chained for a @chained row; for a bvec row (@bv not NULL) the same
 * memory as one bio_vec per entry in *@bv.
 */
static struct scatterlist *scenario_memory(struct kunit *test,
					   const struct mrcore_shape_desc *d,
					   u8 *arena, bool chained,
					   struct bio_vec **bv)
{
	struct scatterlist *sgl, *ch;
	u32 i;

	sgl = kunit_kcalloc(test, d->nents, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, d->nents);
	for (i = 0; i < d->nents; i++)
		sg_set_buf(&sgl[i], arena + i * d->stride * PAGE_SIZE +
			   (i ? 0 : d->offset), mrcore_shape_entry_len(d, i));
	if (chained) {
		ch = kunit_kcalloc(test, mrcore_shape_chain_slots(d->nents),
				   sizeof(*ch), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ch);
		mrcore_sg_copy_chained(ch, sgl, d->nents);
		return ch;
	}
	if (!bv)
		return sgl;
	*bv = kunit_kcalloc(test, d->nents, sizeof(**bv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *bv);
	for (i = 0; i < d->nents; i++)
		bvec_set_page(&(*bv)[i], sg_page(&sgl[i]), sgl[i].length,
			      sgl[i].offset);
	return sgl;
}

static void scenario_test(struct kunit *test)
{
	const struct mrcore_scenario *row = test->param_value;
	const struct mrcore_shape_desc *d = &mrcore_shapes[row->shape];
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	struct rdma_io_pool *pool;
	struct bio_vec *bv = NULL;
	struct scatterlist *sgl;
	struct rdma_io_ctx ctx;
	struct fake_dev *fd;
	u32 mr_pages, round;
	u8 *arena;
	int wrs, ret;

	fd = fake_dev_create(test, row->profile);
	arena = fake_arena_alloc(test, MRCORE_SHAPE_ARENA_PAGES);

	mr_pages = mrcore_profile_mr_pages(&mrcore_profiles[row->profile]);
	/* Exactly the MRs the row needs: the second round reuses them all. */
	pool = rdma_io_pool_create(&fd->qp, 1, 1,
				   max(1u, row->mrs) * mr_pages);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	ret = kunit_add_action_or_reset(test, pool_destroy_action, pool);
	KUNIT_ASSERT_EQ(test, 0, ret);
	if (row->force)
		KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, row->force));

	sgl = scenario_memory(test, d, arena, row->chained,
			      row->bvec ? &bv : NULL);

	if (!row->backend) {
		wrs = scenario_init(&ctx, pool, row, sgl, bv);
		KUNIT_EXPECT_EQ(test, wrs, -EOPNOTSUPP);
		kunit_release_action(test, pool_destroy_action, pool);
		KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
		return;
	}

	for (round = 0; round < 2; round++) {
		/* siw: the first round's chain killed the key already. */
		bool lazy = round && !strcmp(row->backend, "frwr") &&
			    row->profile != MRCORE_PROFILE_SIW;

		wrs = scenario_init(&ctx, pool, row, sgl, bv);
		KUNIT_ASSERT_GT(test, wrs, 0);
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), row->backend);
		KUNIT_EXPECT_EQ(test, ctx.nr_mrs, row->mrs);
		/* Steady state: each reused FRWR MR kills its last key. */
		KUNIT_EXPECT_EQ(test, (u32)wrs, row->wrs + (lazy ? row->mrs : 0));
		KUNIT_EXPECT_EQ(test, ctx.length,
				mrcore_shape_bytes(d) - row->skip);
		check_chain(test, &ctx, d, row->skip, arena,
			    fd->pd.local_dma_lkey);
		if (row->bvec)
			rdma_io_ctx_destroy_bvec(&ctx, &wc);
		else
			rdma_io_ctx_destroy(&ctx, &wc);
	}
	KUNIT_EXPECT_EQ(test, fd->fmr_remap_unflushed, 0u);
	kunit_release_action(test, pool_destroy_action, pool);
	KUNIT_EXPECT_EQ(test, fd->frees, fd->allocs);
}

static struct kunit_case mrcore_scenario_cases[] = {
	KUNIT_CASE_PARAM(scenario_test, scenario_gen_params),
	{}
};

static struct kunit_suite mrcore_scenarios_suite = {
	.name = "mrcore_scenarios",
	.test_cases = mrcore_scenario_cases,
};

kunit_test_suite(mrcore_scenarios_suite);
