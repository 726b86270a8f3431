// SPDX-License-Identifier: GPL-2.0-only
/*
 * The READ/WRITE helper across two kernels (make kunit-2host):
 * mrcore_io_rxe_2host and mrcore_io_siw_2host run the I/Os of io_params.h
 * (every shape of the scenario table as a READ and as a WRITE, chosen by
 * the cost model and with the backends forced) from this guest against
 * memory the peer guest exposes under one rkey: a physically contiguous
 * 4 MiB buffer (MRCORE_PEER_F_CONTIG).  The source holds a pattern of its
 * own, the sink is poisoned; after the I/O this kernel checks its memory
 * and the peer checks its own, byte for byte with the bytes around them.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "client_2host.h"
#include "e2e_suite.h"
#include "io_e2e.h"
#include "io_params.h"

KUNIT_ARRAY_PARAM(io_2host_rxe, io_params_rxe, io_param_desc);
KUNIT_ARRAY_PARAM(io_2host_siw, io_params_siw, io_param_desc);

#define IO_2HOST_SEED_PEER	0x20001
#define IO_2HOST_SEED_LOCAL	0x20002

static void io_2host_moves_data(struct kunit *test)
{
	const struct io_param *p = test->param_value;
	const struct mrcore_shape_desc *d = &mrcore_shapes[p->shape];
	u32 moved = p->read ? IO_2HOST_SEED_PEER : IO_2HOST_SEED_LOCAL;
	enum dma_data_direction dir = p->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx;
	struct peer_link *link;
	struct io_local *l;
	struct peer_x x;
	long maps0;
	int wrs;

	link = peer_link(test, test->priv);
	l = io_local_create(test, d);
	if (p->chained)
		io_local_chain(test, l);
	/* The peer's 4 MiB, the I/O's bytes holding its pattern for a READ. */
	peer_expose(test, link, p->read ? l->len : 0, 0, 0,
		    MRCORE_PEER_F_CONTIG,
		    p->read ? IO_2HOST_SEED_PEER : MRCORE_E2E_POISONED, &x);
	pool = io_pool(test, link->side, 1, 1025);
	if (p->force)
		KUNIT_ASSERT_EQ(test, 0,
				rdma_io_pool_force_backend(pool, p->force));
	if (!p->read)
		mrcore_e2e_buf_fill(&l->buf, IO_2HOST_SEED_LOCAL);

	maps0 = rdma_mrcore_dma_maps_live();
	if (p->bvec) {
		struct bvec_iter iter = { .bi_size = l->len };

		wrs = rdma_io_ctx_init_bvec(&ctx, pool, io_local_bvecs(test, l),
					    l->nents, iter, x.addr, x.key, dir);
	} else {
		wrs = rdma_io_ctx_init(&ctx, pool, l->sg, l->nents, 0, x.addr,
				       x.key, dir);
	}
	KUNIT_ASSERT_GT(test, wrs, 0);
	kunit_info(test, "%s %llu bytes in %u entries, %s to %s: backend %s, %d WRs, %u MRs\n",
		   p->read ? "READ" : "WRITE", l->len, l->nents,
		   dev_name(&link->side->device->dev),
		   link->pair->target->passive_addr, rdma_io_ctx_backend(&ctx),
		   wrs, ctx.nr_mrs);
	if (p->force)
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), p->force);
	KUNIT_ASSERT_EQ(test, p->bvec ? io_run_bvec(test, link->side, &ctx) :
			io_run(test, link->side, &ctx), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "the I/O left a DMA mapping");

	/* Both kernels, every byte: the sink got the source's bytes and
	 * nothing around them, the source is unchanged.
	 */
	mrcore_e2e_expect_data(test, &l->buf, 0, l->len, moved,
			       p->read ? "local READ sink" :
					 "local WRITE source");
	peer_verify(test, link, x.id, 0, l->len, moved, !p->read,
		    p->read ? "peer READ source" : "peer WRITE sink");
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

static struct kunit_case io_2host_rxe_cases[] = {
	KUNIT_CASE_PARAM(io_2host_moves_data, io_2host_rxe_gen_params),
	{}
};

static struct kunit_case io_2host_siw_cases[] = {
	KUNIT_CASE_PARAM(io_2host_moves_data, io_2host_siw_gen_params),
	{}
};

static struct kunit_suite io_2host_rxe_suite = {
	.name = "mrcore_io_rxe_2host",
	.init = mrcore_2host_rxe_suite_init,
	.test_cases = io_2host_rxe_cases,
};

static struct kunit_suite io_2host_siw_suite = {
	.name = "mrcore_io_siw_2host",
	.init = mrcore_2host_siw_suite_init,
	.test_cases = io_2host_siw_cases,
};

kunit_test_suites(&io_2host_siw_suite, &io_2host_rxe_suite);
