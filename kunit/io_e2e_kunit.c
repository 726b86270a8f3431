// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end KUnit suites of the READ/WRITE helper on the kernel's soft
 * RDMA drivers: mrcore_io_siw (iWARP) and mrcore_io_rxe (RoCEv2).
 *
 * The active end of a connected RC pair moves data with rdma_io_ctx_*()
 * from and into its local memory; the passive end (the "owner") exposes a
 * physically contiguous buffer under one rkey.  Every shape of the
 * scenario table runs as a READ and as a WRITE, with the backend the cost
 * model picks and with each backend forced that the device can use; the
 * moved bytes are compared with their source, and the bytes around the
 * local memory must stay untouched.  Two more cases show on the real
 * driver that an iWARP READ sink's key is dead once its READ completed,
 * and that I/Os flushed by a QP error give back every MR.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "mrcore_harness.h"
#include "shapes.h"

#define IO_TIMEOUT_MS		30000
#define IO_OWNER_ORDER		10	/* 4 MiB, the largest shape */
#define IO_OWNER_BYTES		(PAGE_SIZE << IO_OWNER_ORDER)

/**
 * struct io_owner - the far side's memory, one rkey over 4 MiB
 * @pair: the pair.
 * @page: the pages, physically contiguous and 4 MiB aligned.
 * @mr: a raw FRWR MR of two 2 MiB pages (the test's tool, not the subject:
 *	the devices' page lists would not cover 4 MiB in 4 KiB pages).
 * @sg: its one entry.
 * @rkey: the key.
 * @iova: the address of the first byte.
 */
struct io_owner {
	struct mrcore_e2e_pair *pair;
	struct page *page;
	struct ib_mr *mr;
	struct scatterlist sg;
	u32 rkey;
	u64 iova;
};

/**
 * struct io_param - one end-to-end I/O
 * @shape: the local memory's shape.
 * @read: READ into it, else WRITE from it.
 * @force: backend forced on the pool, or NULL for the cost model's pick.
 */
struct io_param {
	enum mrcore_shape shape;
	bool read;
	const char *force;
};

static void io_owner_release(void *p)
{
	struct io_owner *o = p;
	struct mrcore_e2e_side *side = &o->pair->passive;

	if (o->mr) {
		struct ib_send_wr inv = {
			.opcode = IB_WR_LOCAL_INV,
			.ex.invalidate_rkey = o->rkey,
		};
		struct mrcore_e2e_wait w;

		/* Kill the key while the QP still works; a QP in error is
		 * past caring, and deregistration kills it anyway.
		 */
		if (mrcore_e2e_qp_state(side) == IB_QPS_RTS) {
			mrcore_e2e_wait_init(&w);
			inv.wr_cqe = &w.cqe;
			inv.send_flags = IB_SEND_SIGNALED;
			mrcore_e2e_post(side, &inv, &w, IO_TIMEOUT_MS);
		}
		ib_dereg_mr(o->mr);
		ib_dma_unmap_sg(side->device, &o->sg, 1, DMA_BIDIRECTIONAL);
	}
	__free_pages(o->page, IO_OWNER_ORDER);
}

static void io_pair_release(void *pair)
{
	mrcore_e2e_pair_destroy(pair);
}

static struct io_owner *io_owner_create(struct kunit *test,
					struct mrcore_e2e_pair *pair)
{
	struct mrcore_e2e_side *side = &pair->passive;
	struct ib_reg_wr reg = {};
	struct mrcore_e2e_wait w;
	struct io_owner *o;
	int ret;

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	o->pair = pair;
	o->page = alloc_pages(GFP_KERNEL, IO_OWNER_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, o->page);
	ret = kunit_add_action_or_reset(test, io_owner_release, o);
	KUNIT_ASSERT_EQ(test, ret, 0);

	sg_init_one(&o->sg, page_address(o->page), IO_OWNER_BYTES);
	KUNIT_ASSERT_EQ(test, 1, ib_dma_map_sg(side->device, &o->sg, 1,
					       DMA_BIDIRECTIONAL));
	o->mr = ib_alloc_mr(side->pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(o->mr)) {
		ret = PTR_ERR(o->mr);
		o->mr = NULL;
		ib_dma_unmap_sg(side->device, &o->sg, 1, DMA_BIDIRECTIONAL);
		KUNIT_FAIL(test, "owner MR: %d", ret);
		return NULL;
	}
	KUNIT_ASSERT_EQ(test, 1, ib_map_mr_sg(o->mr, &o->sg, 1, NULL, SZ_2M));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = o->mr;
	reg.key = o->mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		     IB_ACCESS_REMOTE_WRITE;
	mrcore_e2e_wait_init(&w);
	reg.wr.wr_cqe = &w.cqe;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_post(side, &reg.wr, &w,
						 IO_TIMEOUT_MS));
	o->rkey = o->mr->rkey;
	o->iova = o->mr->iova;
	return o;
}

/* Local memory of a shape; returns its scatterlist. */
struct io_local {
	struct page *page;		/* contiguous shapes */
	unsigned int order;
	struct mrcore_e2e_buf buf;	/* scattered shapes */
	struct scatterlist *sg;
	unsigned int nents;
	u64 len;
};

static void io_local_release(void *p)
{
	struct io_local *l = p;

	if (l->page)
		__free_pages(l->page, l->order);
	else
		mrcore_e2e_buf_free(&l->buf);
}

static u8 *io_local_byte(struct io_local *l, u64 i)
{
	if (l->page)
		return page_address(l->page) + i;
	return mrcore_e2e_buf_byte(&l->buf, i);
}

static struct io_local *io_local_create(struct kunit *test,
					const struct mrcore_shape_desc *d)
{
	struct io_local *l;
	int ret;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->len = (u64)d->nents * d->length;
	if (d->nents == 1 && d->length >= SZ_1M) {
		/* Contiguous: one entry over physically contiguous pages. */
		l->order = get_order(d->length);
		l->page = alloc_pages(GFP_KERNEL, l->order);
		KUNIT_ASSERT_NOT_NULL(test, l->page);
		l->sg = kunit_kzalloc(test, sizeof(*l->sg), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, l->sg);
		sg_init_one(l->sg, page_address(l->page), d->length);
		l->nents = 1;
	} else {
		/* Scattered: the harness gives every page its own entry;
		 * shapes of whole pages start on a page, the others at their
		 * offset.
		 */
		ret = mrcore_e2e_buf_alloc(&l->buf, l->len, d->offset);
		KUNIT_ASSERT_EQ(test, ret, 0);
		l->sg = l->buf.sg;
		l->nents = l->buf.nents;
	}
	ret = kunit_add_action_or_reset(test, io_local_release, l);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return l;
}

static void io_fill(u8 *p, u64 len, u32 seed)
{
	u64 i;

	for (i = 0; i < len; i++)
		p[i] = mrcore_e2e_pattern(seed, i);
}

static void io_pool_release(void *pool)
{
	rdma_io_pool_destroy(pool);
}

static struct rdma_io_pool *io_pool(struct kunit *test,
				    struct mrcore_e2e_side *side,
				    u32 max_ctxs, u32 max_pages)
{
	struct rdma_io_pool *pool;
	int ret;

	pool = rdma_io_pool_create(side->qp, side->cm_id->port_num, max_ctxs,
				   max_pages);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	ret = kunit_add_action_or_reset(test, io_pool_release, pool);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return pool;
}

static struct mrcore_e2e_pair *io_pair(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;
	struct mrcore_e2e_pair *pair = NULL;
	int ret;

	ret = mrcore_e2e_pair_create(t, &pair);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "connecting over %s failed", t->name);
	ret = kunit_add_action_or_reset(test, io_pair_release, pair);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return pair;
}

/* Run one I/O to its completion; returns the completion status. */
static int io_run(struct kunit *test, struct mrcore_e2e_side *side,
		  struct rdma_io_ctx *ctx)
{
	struct mrcore_e2e_wait w;
	struct ib_wc wc = {};
	int status, ret;

	mrcore_e2e_wait_init(&w);
	ret = rdma_io_ctx_post(ctx, &w.cqe, NULL);
	if (ret) {
		rdma_io_ctx_destroy(ctx, NULL);
		return ret;
	}
	status = mrcore_e2e_wait_done(side, &w, IO_TIMEOUT_MS);
	wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
	rdma_io_ctx_destroy(ctx, status < 0 ? NULL : &wc);
	return status;
}

/* rxe: every shape as the cost model picks, and frwr and multiread forced. */
static const struct io_param io_params_rxe[] = {
	{ SHAPE_1_BYTE, true, NULL }, { SHAPE_1_BYTE, false, NULL },
	{ SHAPE_1_PAGE, true, NULL }, { SHAPE_1_PAGE, false, NULL },
	{ SHAPE_UNALIGNED, true, NULL }, { SHAPE_UNALIGNED, false, NULL },
	{ SHAPE_8_PAGES, true, NULL }, { SHAPE_8_PAGES, false, NULL },
	{ SHAPE_32_PAGES, true, NULL }, { SHAPE_32_PAGES, false, NULL },
	{ SHAPE_33_PAGES, true, NULL }, { SHAPE_33_PAGES, false, NULL },
	{ SHAPE_256_PAGES, true, NULL }, { SHAPE_256_PAGES, false, NULL },
	{ SHAPE_257_PAGES, true, NULL }, { SHAPE_257_PAGES, false, NULL },
	{ SHAPE_1M_CONTIG, true, NULL }, { SHAPE_1M_CONTIG, false, NULL },
	{ SHAPE_4M_CONTIG, true, NULL }, { SHAPE_4M_CONTIG, false, NULL },
	{ SHAPE_1_BYTE, true, "frwr" }, { SHAPE_1_BYTE, false, "frwr" },
	{ SHAPE_UNALIGNED, true, "frwr" }, { SHAPE_UNALIGNED, false, "frwr" },
	{ SHAPE_33_PAGES, true, "frwr" }, { SHAPE_33_PAGES, false, "frwr" },
	{ SHAPE_257_PAGES, true, "frwr" }, { SHAPE_257_PAGES, false, "frwr" },
	{ SHAPE_4M_CONTIG, true, "frwr" }, { SHAPE_4M_CONTIG, false, "frwr" },
	{ SHAPE_8_PAGES, true, "multiread" }, { SHAPE_8_PAGES, false, "multiread" },
	{ SHAPE_257_PAGES, true, "multiread" }, { SHAPE_257_PAGES, false, "multiread" },
	{ SHAPE_4M_CONTIG, true, "multiread" }, { SHAPE_4M_CONTIG, false, "multiread" },
};

/*
 * siw: every shape as picked; temporary sink MRs forced on READs the cost
 * model sends through the DMA lkey; frwr and multiread WRITEs forced (33
 * pages: 9 WRs of the harness QP's 4 SGEs fit its send queue; 257 pages
 * would not, 65 WRs).
 */
static const struct io_param io_params_siw[] = {
	{ SHAPE_1_BYTE, true, NULL }, { SHAPE_1_BYTE, false, NULL },
	{ SHAPE_1_PAGE, true, NULL }, { SHAPE_1_PAGE, false, NULL },
	{ SHAPE_UNALIGNED, true, NULL }, { SHAPE_UNALIGNED, false, NULL },
	{ SHAPE_8_PAGES, true, NULL }, { SHAPE_8_PAGES, false, NULL },
	{ SHAPE_32_PAGES, true, NULL }, { SHAPE_32_PAGES, false, NULL },
	{ SHAPE_33_PAGES, true, NULL }, { SHAPE_33_PAGES, false, NULL },
	{ SHAPE_256_PAGES, true, NULL }, { SHAPE_256_PAGES, false, NULL },
	{ SHAPE_257_PAGES, true, NULL }, { SHAPE_257_PAGES, false, NULL },
	{ SHAPE_1M_CONTIG, true, NULL }, { SHAPE_1M_CONTIG, false, NULL },
	{ SHAPE_4M_CONTIG, true, NULL }, { SHAPE_4M_CONTIG, false, NULL },
	{ SHAPE_1_BYTE, true, "iwarp" }, { SHAPE_UNALIGNED, true, "iwarp" },
	{ SHAPE_1M_CONTIG, true, "iwarp" }, { SHAPE_4M_CONTIG, true, "iwarp" },
	{ SHAPE_8_PAGES, false, "frwr" }, { SHAPE_4M_CONTIG, false, "frwr" },
	{ SHAPE_33_PAGES, false, "multiread" },
};

static void io_param_desc(const struct io_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s%s%s",
		 p->read ? "read" : "write", mrcore_shapes[p->shape].name,
		 p->force ? "_forced_" : "", p->force ? p->force : "");
}

KUNIT_ARRAY_PARAM(io_rxe, io_params_rxe, io_param_desc);
KUNIT_ARRAY_PARAM(io_siw, io_params_siw, io_param_desc);

static bool io_on_iwarp(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;

	return t == &mrcore_e2e_siw;
}

static void io_moves_data(struct kunit *test)
{
	const struct io_param *p = test->param_value;
	const struct mrcore_shape_desc *d = &mrcore_shapes[p->shape];
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx;
	struct io_owner *owner;
	struct io_local *l;
	u8 *remote;
	u64 i, bad = 0;
	int wrs;

	pair = io_pair(test);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	l = io_local_create(test, d);
	pool = io_pool(test, &pair->active, 1, 1025);
	if (p->force)
		KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, p->force));

	remote = page_address(owner->page);
	io_fill(remote, min_t(u64, l->len + 1, IO_OWNER_BYTES), 1);
	for (i = 0; i < l->len; i++)
		*io_local_byte(l, i) = mrcore_e2e_pattern(2, i);

	wrs = rdma_io_ctx_init(&ctx, pool, l->sg, l->nents, 0, owner->iova,
			       owner->rkey, p->read ? DMA_FROM_DEVICE :
						      DMA_TO_DEVICE);
	KUNIT_ASSERT_GT(test, wrs, 0);
	kunit_info(test, "%s %llu bytes in %u entries: backend %s, %d WRs, %u MRs\n",
		   p->read ? "READ" : "WRITE", l->len, l->nents,
		   rdma_io_ctx_backend(&ctx), wrs, ctx.nr_mrs);
	if (p->force)
		KUNIT_EXPECT_STREQ(test, rdma_io_ctx_backend(&ctx), p->force);
	KUNIT_ASSERT_EQ(test, io_run(test, &pair->active, &ctx), IB_WC_SUCCESS);

	for (i = 0; i < l->len; i++) {
		u8 want = mrcore_e2e_pattern(p->read ? 1 : 2, i);
		u8 got = p->read ? *io_local_byte(l, i) : remote[i];

		if (got != want && !bad++)
			kunit_err(test, "byte %llu: 0x%02x, want 0x%02x\n", i,
				  got, want);
	}
	KUNIT_EXPECT_EQ(test, bad, 0ull);
	/* Nothing past the I/O on the owner, nothing outside it locally. */
	if (!p->read && l->len < IO_OWNER_BYTES)
		KUNIT_EXPECT_EQ(test, remote[l->len],
				mrcore_e2e_pattern(1, l->len));
	if (!l->page)
		KUNIT_EXPECT_TRUE(test, mrcore_e2e_buf_guard_intact(&l->buf));
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

/* Rule 3 on siw: the temporary sink MR's key dies with its READ. */
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
	u32 sink_key;
	u64 sink_iova;
	int status;

	pair = io_pair(test);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	l = io_local_create(test, &mrcore_shapes[SHAPE_8_PAGES]);
	pool = io_pool(test, &pair->active, 1, 8);
	io_fill(page_address(owner->page), l->len, 3);

	KUNIT_ASSERT_EQ(test, 2, rdma_io_ctx_init(&ctx, pool, l->sg, l->nents,
						  0, owner->iova, owner->rkey,
						  DMA_FROM_DEVICE));
	KUNIT_ASSERT_STREQ(test, rdma_io_ctx_backend(&ctx), "iwarp");
	KUNIT_ASSERT_EQ(test, ctx.last->opcode, IB_WR_RDMA_READ_WITH_INV);
	sink_key = ctx.mrs[0]->key;
	sink_iova = ctx.mrs[0]->iova;
	KUNIT_ASSERT_EQ(test, io_run(test, &pair->active, &ctx), IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, *io_local_byte(l, 0),
			mrcore_e2e_pattern(3, 0));

	/* The owner now WRITEs into the sink with its (dead) key. */
	sge.addr = owner->iova;
	sge.length = 64;
	sge.lkey = owner->mr->lkey;
	mrcore_e2e_wait_init(&w);
	mrcore_e2e_rdma_wr(&wr, IB_WR_RDMA_WRITE, &sge, sink_iova, sink_key, &w);
	mrcore_e2e_post(&pair->passive, &wr.wr, &w, IO_TIMEOUT_MS);
	/* iWARP never acknowledges a WRITE: the sender learns of the
	 * refusal from the TERMINATE, which breaks the connection.
	 */
	KUNIT_EXPECT_TRUE(test, mrcore_e2e_qp_failed(&pair->passive, 5000));
	status = *io_local_byte(l, 0) == mrcore_e2e_pattern(3, 0);
	KUNIT_EXPECT_TRUE_MSG(test, status, "the dead sink key was written");
}

/* A QP error with I/Os in flight: every one completes, every MR returns. */
static void io_flush_returns_every_mr(struct kunit *test)
{
	enum { N = 16 };
	struct mrcore_e2e_wait *w;
	struct mrcore_e2e_pair *pair;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct rdma_io_pool *pool;
	struct rdma_io_ctx *ctx;
	struct io_owner *owner;
	struct io_local **l;
	unsigned int i, flushed = 0;

	pair = io_pair(test);
	owner = io_owner_create(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	pool = io_pool(test, &pair->active, N, 64);
	/* rxe would move these READs without MRs: force MRs in play. */
	if (!io_on_iwarp(test))
		KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(pool, "frwr"));
	w = kunit_kcalloc(test, N, sizeof(*w), GFP_KERNEL);
	ctx = kunit_kcalloc(test, N, sizeof(*ctx), GFP_KERNEL);
	l = kunit_kcalloc(test, N, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, w && ctx && l);

	/* 64 scattered pages each: MR-based on both devices. */
	for (i = 0; i < N; i++) {
		struct mrcore_shape_desc d = { "64_pages", 64, 0, PAGE_SIZE, 2 };

		l[i] = io_local_create(test, &d);
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&ctx[i], pool, l[i]->sg,
						       l[i]->nents, 0,
						       owner->iova, owner->rkey,
						       i & 1 ? DMA_TO_DEVICE :
							       DMA_FROM_DEVICE),
				0);
		KUNIT_EXPECT_GT(test, ctx[i].nr_mrs, 0u);
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
		rdma_io_ctx_destroy(&ctx[i], status < 0 ? NULL : &wc);
	}
	kunit_info(test, "%u of %u I/Os flushed\n", flushed, N);
	/* Completed and flushed alike, every MR is back, the flushed ones
	 * with new device MRs.
	 */
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
}

static struct kunit_case io_rxe_cases[] = {
	KUNIT_CASE_PARAM(io_moves_data, io_rxe_gen_params),
	KUNIT_CASE(io_flush_returns_every_mr),
	{}
};

/* The sink-key case is iWARP's: on rxe READ sinks are local-only. */
static struct kunit_case io_siw_cases[] = {
	KUNIT_CASE_PARAM(io_moves_data, io_siw_gen_params),
	KUNIT_CASE(io_iwarp_sink_key_dies),
	KUNIT_CASE(io_flush_returns_every_mr),
	{}
};

static int io_init(struct kunit *test, const struct mrcore_e2e_target *t)
{
	if (!mrcore_e2e_device_present(t, NULL, 0)) {
		kunit_err(test, "no %s device registered\n", t->name);
		return -ENODEV;
	}
	test->priv = (void *)t;
	return 0;
}

static int io_siw_init(struct kunit *test)
{
	return io_init(test, &mrcore_e2e_siw);
}

static int io_rxe_init(struct kunit *test)
{
	return io_init(test, &mrcore_e2e_rxe);
}

static struct kunit_suite io_siw_suite = {
	.name = "mrcore_io_siw",
	.init = io_siw_init,
	.test_cases = io_siw_cases,
};

static struct kunit_suite io_rxe_suite = {
	.name = "mrcore_io_rxe",
	.init = io_rxe_init,
	.test_cases = io_rxe_cases,
};

kunit_test_suites(&io_siw_suite, &io_rxe_suite);

MODULE_DESCRIPTION("rdma-mrcore end-to-end KUnit suites of the READ/WRITE helper on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MRCORE_HARNESS);
