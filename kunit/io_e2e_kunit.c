// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end KUnit suites of the READ/WRITE helper on the kernel's soft
 * RDMA drivers: mrcore_io_siw (iWARP) and mrcore_io_rxe (RoCEv2).
 *
 * The active end of a connected RC pair moves data with rdma_io_ctx_*()
 * from and into its local memory; the passive end (the "owner") exposes a
 * physically contiguous buffer under one rkey.  Every shape of the
 * scenario table runs as a READ and as a WRITE, with the backend the cost
 * model picks and with each backend forced that the device can use.  Every
 * buffer holds a pattern of its own (sinks are poisoned); after the I/O
 * both ends are checked byte for byte, with the bytes around them.  One more case shows on the real
 * driver that an iWARP READ sink's key is dead once its READ completed.
 * Flushes and the soak are in io_stress_kunit.c.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "io_e2e.h"
#include "io_params.h"

KUNIT_ARRAY_PARAM(io_rxe, io_params_rxe, io_param_desc);
KUNIT_ARRAY_PARAM(io_siw, io_params_siw, io_param_desc);

/* Seeds of the buffers: every buffer's bytes are its own. */
#define IO_SEED_OWNER		0x10001
#define IO_SEED_LOCAL		0x10002
#define IO_SEED_SINK_SRC	0x10003
#define IO_SEED_ATTACKER	0x10004
#define IO_ATTACK_BYTES		64

static void io_moves_data(struct kunit *test)
{
	const struct io_param *p = test->param_value;
	const struct mrcore_shape_desc *d = &mrcore_shapes[p->shape];
	u32 moved = p->read ? IO_SEED_OWNER : IO_SEED_LOCAL;
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx;
	struct io_owner *owner;
	struct io_local *l;
	long maps0;
	int wrs;

	pair = io_pair(test);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	l = io_local_create(test, d);
	pool = io_pool(test, &pair->active, 1, 1025);
	if (p->force)
		KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, p->force));

	/* The source holds its pattern, the sink is poisoned. */
	if (p->read)
		mrcore_e2e_buf_fill_range(&owner->buf, 0, l->len,
					  IO_SEED_OWNER);
	else
		mrcore_e2e_buf_fill(&l->buf, IO_SEED_LOCAL);

	maps0 = rdma_mrcore_dma_maps_live();
	if (p->bvec) {
		struct bvec_iter iter = { .bi_size = l->len };

		wrs = rdma_io_ctx_init_bvec(&ctx, pool, io_local_bvecs(test, l),
					    l->nents, iter, owner->iova,
					    owner->rkey,
					    p->read ? DMA_FROM_DEVICE :
						      DMA_TO_DEVICE);
	} else {
		wrs = rdma_io_ctx_init(&ctx, pool, l->sg, l->nents, 0,
				       owner->iova, owner->rkey,
				       p->read ? DMA_FROM_DEVICE :
						 DMA_TO_DEVICE);
	}
	KUNIT_ASSERT_GT(test, wrs, 0);
	kunit_info(test, "%s %llu bytes in %u entries: backend %s, %d WRs, %u MRs\n",
		   p->read ? "READ" : "WRITE", l->len, l->nents,
		   rdma_io_ctx_backend(&ctx), wrs, ctx.nr_mrs);
	if (p->force)
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), p->force);
	KUNIT_ASSERT_EQ(test, p->bvec ? io_run_bvec(test, &pair->active, &ctx) :
			io_run(test, &pair->active, &ctx), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "the I/O left a DMA mapping");

	/*
	 * Both ends, every byte: the sink got the source's bytes and nothing
	 * around them, the source is unchanged.  The owner's poison after
	 * the I/O's last byte catches a WRITE that went on.
	 */
	mrcore_e2e_expect_data(test, &l->buf, 0, l->len, moved,
			       p->read ? "local READ sink" :
					 "local WRITE source");
	mrcore_e2e_expect_data(test, &owner->buf, 0, l->len, moved,
			       p->read ? "owner READ source" :
					 "owner WRITE sink");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

/*
 * Rule 3 on siw: the temporary sink MR's key dies with its READ.  The owner
 * then WRITEs other bytes with the dead key: the sink must keep every byte
 * of the READ.
 */
static void io_iwarp_sink_key_dies(struct kunit *test)
{
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct mrcore_e2e_wait w;
	struct io_owner *owner;
	struct rdma_io_ctx ctx;
	struct ib_rdma_wr wr;
	struct io_local *l;
	struct ib_sge sge;
	u32 sink_key, k;
	u64 sink_iova;
	bool differs = false;

	pair = io_pair(test);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	l = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	pool = io_pool(test, &pair->active, 1, 8);
	mrcore_e2e_buf_fill_range(&owner->buf, 0, l->len, IO_SEED_SINK_SRC);
	/* The attacker's bytes, 1 MiB into the owner's memory. */
	mrcore_e2e_buf_fill_range(&owner->buf, SZ_1M, IO_ATTACK_BYTES,
				  IO_SEED_ATTACKER);
	for (k = 0; k < IO_ATTACK_BYTES; k++)
		differs |= mrcore_e2e_pattern(IO_SEED_ATTACKER, k) !=
			   mrcore_e2e_pattern(IO_SEED_SINK_SRC, k);
	KUNIT_ASSERT_TRUE_MSG(test, differs,
			      "the attacker's WRITE would store the sink's own bytes");

	KUNIT_ASSERT_EQ(test, 2, rdma_io_ctx_init(&ctx, pool, l->sg, l->nents,
						  0, owner->iova, owner->rkey,
						  DMA_FROM_DEVICE));
	KUNIT_ASSERT_STREQ(test, rdma_io_ctx_backend(&ctx), "iwarp");
	KUNIT_ASSERT_EQ(test, ctx.last->opcode, IB_WR_RDMA_READ_WITH_INV);
	sink_key = ctx.mrs[0]->key;
	sink_iova = ctx.mrs[0]->iova;
	KUNIT_ASSERT_EQ(test, io_run(test, &pair->active, &ctx), IB_WC_SUCCESS);
	KUNIT_ASSERT_TRUE(test, mrcore_e2e_expect_data(test, &l->buf, 0,
						       l->len,
						       IO_SEED_SINK_SRC,
						       "iWARP READ sink"));

	/* The owner now WRITEs its other bytes into the sink's first 64. */
	sge.addr = owner->iova + SZ_1M;
	sge.length = IO_ATTACK_BYTES;
	sge.lkey = owner->mr->lkey;
	mrcore_e2e_wait_init(&w);
	mrcore_e2e_rdma_wr(&wr, IB_WR_RDMA_WRITE, &sge, sink_iova, sink_key, &w);
	mrcore_e2e_post(&pair->passive, &wr.wr, &w, IO_TIMEOUT_MS);
	/* iWARP never acknowledges a WRITE: the sender learns of the
	 * refusal from the TERMINATE, which breaks the connection.
	 */
	KUNIT_EXPECT_TRUE(test, mrcore_e2e_qp_failed(&pair->passive, 5000));
	mrcore_e2e_expect_data(test, &l->buf, 0, l->len, IO_SEED_SINK_SRC,
			       "READ sink after a WRITE with its dead key");
}

static struct kunit_case io_rxe_cases[] = {
	KUNIT_CASE_PARAM(io_moves_data, io_rxe_gen_params),
	{}
};

/* The sink-key case is iWARP's: on rxe READ sinks are local-only. */
static struct kunit_case io_siw_cases[] = {
	KUNIT_CASE_PARAM(io_moves_data, io_siw_gen_params),
	KUNIT_CASE(io_iwarp_sink_key_dies),
	{}
};

static struct kunit_suite io_siw_suite = {
	.name = "mrcore_io_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = io_siw_cases,
};

static struct kunit_suite io_rxe_suite = {
	.name = "mrcore_io_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = io_rxe_cases,
};

kunit_test_suites(&io_siw_suite, &io_rxe_suite);

MODULE_DESCRIPTION("rdma-mrcore end-to-end KUnit suites of the READ/WRITE helper on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
