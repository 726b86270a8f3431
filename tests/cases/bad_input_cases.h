/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bad input to every entry point, and the errno each must return, leaving
 * nothing behind.  Each case is a small function over the public API only,
 * so the same table runs in the mirror (mirror/tests/bad_input_test.cpp, on
 * the simulated HCA) and in the KUnit suite mrcore_bad_input (on a fake
 * RoCE device); both check afterwards that no MR, DMA mapping or pool MR is
 * left.
 *
 * Not in the table: destroying a mapped MR (documented WARN_ON_ONCE, which
 * the KUnit run would count as a splat; the mirror tests it in
 * LifecycleTest.DestroyingAMappedMrWarnsAndLeavesNothing) and destroying an
 * MR twice (a use after free no API can detect).
 */
#ifndef _MRCORE_BAD_INPUT_CASES_H
#define _MRCORE_BAD_INPUT_CASES_H

/**
 * struct mrcore_bad_env - what the cases run on
 * @pd: a protection domain of a RoCE-like device (512-page MRs).
 * @qp: a QP on it.
 * @pool: an MR pool on @qp (1 context of 16 pages).
 * @arena: 16 page-aligned pages.
 * @sg: room for 4 scatterlist entries.
 */
struct mrcore_bad_env {
	struct ib_pd *pd;
	struct ib_qp *qp;
	struct rdma_io_pool *pool;
	u8 *arena;
	struct scatterlist *sg;
};

/* @n entries of one page each, @stride pages apart, the first at @off. */
static inline struct scatterlist *bad_sg(struct mrcore_bad_env *e,
					 unsigned int n, unsigned int stride,
					 unsigned int off, unsigned int len)
{
	unsigned int i;

	sg_init_table(e->sg, n);
	for (i = 0; i < n; i++)
		sg_set_buf(&e->sg[i], e->arena + i * stride * 4096 +
			   (i ? 0 : off), len);
	return e->sg;
}

static inline struct scatterlist *bad_page(struct mrcore_bad_env *e)
{
	return bad_sg(e, 1, 1, 0, 4096);
}

static inline int bad_map(struct mrcore_bad_env *e, enum rdma_mr_role role,
			  bool rkey_entry, unsigned int ops,
			  struct scatterlist *sg, unsigned int n)
{
	struct rdma_mr *mr = rdma_create_mr(e->pd, 8, role);
	struct ib_send_wr *chain = NULL;
	u32 key;
	u64 iova;
	int ret;

	if (IS_ERR(mr))
		return PTR_ERR(mr);
	ret = rkey_entry ?
	      rdma_map_sg_rkey(&key, &iova, mr, sg, n, ops, &chain) :
	      rdma_map_sg_lkey(&key, mr, sg, n, ops, &chain);
	if (!ret) {
		/* A case that maps must not: undo, and report it. */
		if (rdma_unmap_mr(mr)) {
			rdma_invalidate_mr(mr, &chain);
			rdma_unmap_mr(mr);
		}
		ret = 1;
	}
	rdma_destroy_mr(mr);
	return ret;
}

/* Map one page for the peer, run @step on the mapped MR, clean up. */
static inline int bad_on_mapped(struct mrcore_bad_env *e, int step)
{
	struct rdma_mr *mr = rdma_create_mr(e->pd, 8, RDMA_MR_ROLE_RKEY);
	struct ib_send_wr *chain = NULL;
	u32 key;
	u64 iova;
	int ret;

	if (IS_ERR(mr))
		return PTR_ERR(mr);
	ret = rdma_map_sg_rkey(&key, &iova, mr, bad_page(e), 1,
			       RDMA_MR_REMOTE_READ, &chain);
	if (ret)
		goto destroy;
	switch (step) {
	case 0:		/* map again */
		ret = rdma_map_sg_rkey(&key, &iova, mr, e->sg, 1,
				       RDMA_MR_REMOTE_READ, &chain);
		break;
	case 1:		/* unmap while the peer may still use the key */
		ret = rdma_unmap_mr(mr);
		break;
	case 2:		/* invalidate twice */
		rdma_invalidate_mr(mr, &chain);
		ret = rdma_invalidate_mr(mr, &chain);
		break;
	case 3:		/* remote invalidation of another key */
		ret = rdma_mr_remote_invalidated(mr, key + 1);
		break;
	}
	if (rdma_unmap_mr(mr)) {
		rdma_invalidate_mr(mr, &chain);
		rdma_unmap_mr(mr);
	}
destroy:
	rdma_destroy_mr(mr);
	return ret;
}

static inline int bad_io_at(struct mrcore_bad_env *e, struct scatterlist *sg,
			    unsigned int n, unsigned int off, int dir,
			    const char *force, u64 remote_addr)
{
	struct rdma_io_ctx ctx;
	int ret;

	ret = rdma_io_pool_force_backend(e->pool, force);
	if (ret)
		return ret;
	ret = rdma_io_ctx_init(&ctx, e->pool, sg, n, off, remote_addr, 0x1234,
			       (enum dma_data_direction)dir);
	rdma_io_pool_force_backend(e->pool, NULL);
	if (ret > 0) {
		rdma_io_ctx_destroy(&ctx, NULL);
		ret = 1;
	}
	return ret;
}

static inline int bad_io(struct mrcore_bad_env *e, struct scatterlist *sg,
			 unsigned int n, unsigned int off, int dir,
			 const char *force)
{
	return bad_io_at(e, sg, n, off, dir, force, 0x10000);
}

/* A complete I/O backend that serves no device, for the registry cases. */
static bool bad_serves_none(struct ib_device *dev)
{
	return false;
}

static int bad_io_plan(const struct rdma_io_ctx *ctx, struct rdma_io_plan *plan)
{
	return -EOPNOTSUPP;
}

static int bad_io_build(struct rdma_io_ctx *ctx)
{
	return -EOPNOTSUPP;
}

static inline int bad_register(struct mrcore_bad_env *e, int which)
{
	static struct rdma_mr_backend_ops ops;

	memset(&ops, 0, sizeof(ops));
	ops.io_plan = bad_io_plan;
	ops.io_build = bad_io_build;
	switch (which) {
	case 0:
		return rdma_mr_backend_register(NULL);
	case 1:		/* no serves callback */
		ops.name = "bad-incomplete";
		return rdma_mr_backend_register(&ops);
	default:	/* complete, but under a name already taken */
		ops.name = "frwr";
		ops.serves = bad_serves_none;
		return rdma_mr_backend_register(&ops);
	}
}

#define L_SRC	RDMA_MR_LOCAL_SEND_SRC
#define R_RD	RDMA_MR_REMOTE_READ
#define LKEY	RDMA_MR_ROLE_LKEY
#define RKEY	RDMA_MR_ROLE_RKEY

static int bc01(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_create_mr(NULL, 8, LKEY));
}

static int bc02(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_create_mr(e->pd, 0, LKEY));
}

static int bc03(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_create_mr(e->pd, 8, (enum rdma_mr_role)7));
}

static int bc04(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_create_mr(e->pd, 100000, RKEY));
}

static int bc05(struct mrcore_bad_env *e)
{
	struct ib_send_wr *c = NULL;
	u32 k;
	u64 i;

	return rdma_map_sg_rkey(&k, &i, NULL, bad_page(e), 1, R_RD, &c);
}

static int bc06(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, R_RD, NULL, 1);
}

static int bc07(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, R_RD, bad_page(e), 0);
}

static int bc08(struct mrcore_bad_env *e)
{
	return bad_map(e, LKEY, false, R_RD, bad_page(e), 1);
}

static int bc09(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, L_SRC, bad_page(e), 1);
}

static int bc10(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, 0, bad_page(e), 1);
}

static int bc11(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, R_RD | 0x40, bad_page(e), 1);
}

static int bc12(struct mrcore_bad_env *e)
{
	return bad_map(e, LKEY, false, L_SRC | R_RD, bad_page(e), 1);
}

static int bc13(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, false, L_SRC, bad_page(e), 1);
}

static int bc14(struct mrcore_bad_env *e)
{
	return bad_map(e, LKEY, true, R_RD, bad_page(e), 1);
}

static int bc15(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, R_RD, bad_sg(e, 1, 1, 0, 9 * 4096), 1);
}

static int bc16(struct mrcore_bad_env *e)
{
	return bad_map(e, RKEY, true, R_RD, bad_sg(e, 2, 2, 0, 100), 2);
}

static int bc17(struct mrcore_bad_env *e)
{
	return bad_map(e, LKEY, false, L_SRC, bad_sg(e, 2, 1, 0, 0), 2);
}

static int bc18(struct mrcore_bad_env *e)
{
	struct scatterlist *sg = bad_sg(e, 2, 2, 0, 4096);

	/* The second entry starts 8 bytes into its page: a hole. */
	sg_set_buf(&sg[1], e->arena + 2 * 4096 + 8, 4088);
	return bad_map(e, RKEY, true, R_RD, sg, 2);
}

static int bc19(struct mrcore_bad_env *e)
{
	return bad_on_mapped(e, 0);
}

static int bc20(struct mrcore_bad_env *e)
{
	return bad_on_mapped(e, 1);
}

static int bc21(struct mrcore_bad_env *e)
{
	return bad_on_mapped(e, 2);
}

static int bc22(struct mrcore_bad_env *e)
{
	return bad_on_mapped(e, 3);
}

static int bc23(struct mrcore_bad_env *e)
{
	return rdma_unmap_mr(NULL);
}

static int bc24(struct mrcore_bad_env *e)
{
	struct ib_send_wr *c = NULL;

	return rdma_invalidate_mr(NULL, &c);
}

static int bc25(struct mrcore_bad_env *e)
{
	return rdma_mr_remote_invalidated(NULL, 0);
}

static int bc26(struct mrcore_bad_env *e)
{
	return rdma_io_ctx_init(NULL, e->pool, bad_page(e), 1, 0, 0, 0, DMA_TO_DEVICE);
}

static int bc27(struct mrcore_bad_env *e)
{
	struct rdma_io_ctx ctx;

	return rdma_io_ctx_init(&ctx, NULL, bad_page(e), 1, 0, 0, 0, DMA_TO_DEVICE);
}

static int bc28(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_page(e), 0, 0, DMA_TO_DEVICE, NULL);
}

static int bc29(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_page(e), 1, 0, DMA_BIDIRECTIONAL, NULL);
}

static int bc30(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_page(e), 1, 4096, DMA_TO_DEVICE, NULL);
}

/* Offsets past the first entry skip entries whole; past the list, none is left. */
static int bc30a(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_sg(e, 3, 2, 0, 4096), 3, 3 * 4096,
		      DMA_FROM_DEVICE, NULL);
}

static int bc30b(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_sg(e, 3, 2, 0, 4096), 3, 3 * 4096 + 1,
		      DMA_TO_DEVICE, NULL);
}

static int bc30c(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_sg(e, 3, 2, 0, 4096), 3, 1u << 31,
		      DMA_FROM_DEVICE, NULL);
}

/* bio_vecs: two pages of the arena, the second @len2 bytes. */
static int bad_bvec(struct mrcore_bad_env *e, unsigned int len2,
		    struct bvec_iter iter)
{
	struct bio_vec bv[2] = {
		{ .bv_page = virt_to_page(e->arena), .bv_len = 4096 },
		{ .bv_page = virt_to_page(e->arena + 2 * 4096), .bv_len = len2 },
	};
	struct rdma_io_ctx ctx;
	int ret;

	ret = rdma_io_ctx_init_bvec(&ctx, e->pool, bv, 2, iter, 0x10000, 1,
				    DMA_FROM_DEVICE);
	if (ret >= 0) {
		rdma_io_ctx_destroy_bvec(&ctx, NULL);
		return 1;
	}
	return ret;
}

static int bc30d(struct mrcore_bad_env *e)
{
	return bad_bvec(e, 4096, (struct bvec_iter){ .bi_size = 0 });
}

static int bc30e(struct mrcore_bad_env *e)
{
	return bad_bvec(e, 4096, (struct bvec_iter){ .bi_size = 3 * 4096 });
}

static int bc30f(struct mrcore_bad_env *e)
{
	return bad_bvec(e, 0, (struct bvec_iter){ .bi_size = 2 * 4096 });
}

static int bc30g(struct mrcore_bad_env *e)
{
	return bad_bvec(e, 4096, (struct bvec_iter){ .bi_size = 1,
						     .bi_bvec_done = 4096 });
}

static int bc31(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_sg(e, 2, 1, 0, 0), 2, 0, DMA_FROM_DEVICE, NULL);
}

/* Full pages around an empty one: the builders check every entry. */
static int bc31_empty_between(struct mrcore_bad_env *e,
			      enum dma_data_direction dir)
{
	struct scatterlist *sg = bad_sg(e, 3, 1, 0, 4096);

	sg[1].length = 0;
	return bad_io(e, sg, 3, 0, dir, NULL);
}

static int bc31a(struct mrcore_bad_env *e)
{
	return bc31_empty_between(e, DMA_TO_DEVICE);
}

static int bc31b(struct mrcore_bad_env *e)
{
	return bc31_empty_between(e, DMA_FROM_DEVICE);
}

static int bc32(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_page(e), 1, 0, DMA_TO_DEVICE, "no-such");
}

static int bc33(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_page(e), 1, 0, DMA_TO_DEVICE, "iwarp");
}

static int bc34(struct mrcore_bad_env *e)
{
	return rdma_io_pool_force_backend(e->pool, "a-backend-name-too-long");
}

static int bc35(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_io_pool_create(NULL, 1, 1, 1));
}

static int bc36(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_io_pool_create(e->qp, 1, 0, 16));
}

static int bc37(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_io_pool_create(e->qp, 1, 1, 0));
}

static int bc38(struct mrcore_bad_env *e)
{
	return bad_register(e, 0);
}

static int bc39(struct mrcore_bad_env *e)
{
	return bad_register(e, 1);
}

static int bc40(struct mrcore_bad_env *e)
{
	return bad_register(e, 2);
}

/*
 * 4 pages (16 KiB) at 100 bytes below the top of the peer's address space:
 * the WRs after the first would name its low addresses.  As a one-WR
 * WRITE of SGEs, as a READ measured and planned, and through a pool MR.
 */
static int bc41(struct mrcore_bad_env *e)
{
	return bad_io_at(e, bad_sg(e, 4, 2, 0, 4096), 4, 0, DMA_TO_DEVICE,
			 NULL, U64_MAX - 100);
}

static int bc42(struct mrcore_bad_env *e)
{
	return bad_io_at(e, bad_sg(e, 4, 2, 0, 4096), 4, 0, DMA_FROM_DEVICE,
			 NULL, U64_MAX - 100);
}

static int bc43(struct mrcore_bad_env *e)
{
	return bad_io_at(e, bad_sg(e, 4, 1, 0, 4096), 4, 0, DMA_FROM_DEVICE,
			 "frwr", U64_MAX - 100);
}

/* Ending exactly at 2^64 wraps too: the end is not an address. */
static int bc44(struct mrcore_bad_env *e)
{
	return bad_io_at(e, bad_sg(e, 1, 1, 0, 4096), 1, 0, DMA_TO_DEVICE,
			 NULL, U64_MAX - 4095);
}

/* An I/O in more pieces than the pool owns MRs: no wait will serve it. */
static int bc45(struct mrcore_bad_env *e)
{
	return bad_io(e, bad_sg(e, 2, 2, 0, 100), 2, 0, DMA_FROM_DEVICE,
		      "frwr");
}

/* rdma_io_mr_factor() * contexts past U32_MAX: no count to allocate. */
static int bc46(struct mrcore_bad_env *e)
{
	return PTR_ERR(rdma_io_pool_create(e->qp, 1, U32_MAX, U32_MAX));
}

/* One MR more than the device says it has. */
static int bc47(struct mrcore_bad_env *e)
{
	int max_mr = e->qp->device->attrs.max_mr;
	struct rdma_io_pool *pool;

	if (max_mr <= 0)
		return 1;	/* the environment cannot show it */
	pool = rdma_io_pool_create(e->qp, 1, (u32)max_mr + 1, 1);
	if (!IS_ERR(pool)) {
		rdma_io_pool_destroy(pool);
		return 1;
	}
	return PTR_ERR(pool);
}

#undef L_SRC
#undef R_RD
#undef LKEY
#undef RKEY

/**
 * struct mrcore_bad_case - one bad call
 * @name: what is wrong.
 * @run: makes the call (and any setup), returns what the API returned
 *	(1 when a call that must fail succeeded).
 * @expect: the documented errno.
 */
struct mrcore_bad_case {
	const char *name;
	int (*run)(struct mrcore_bad_env *e);
	int expect;
};

static const struct mrcore_bad_case mrcore_bad_cases[] = {
	{ "create_mr: NULL pd", bc01, -EINVAL },
	{ "create_mr: zero pages", bc02, -EINVAL },
	{ "create_mr: unknown role", bc03, -EINVAL },
	{ "create_mr: more pages than the device maps", bc04, -E2BIG },
	{ "map_sg_rkey: NULL mr", bc05, -EINVAL },
	{ "map_sg_rkey: NULL scatterlist", bc06, -EINVAL },
	{ "map_sg_rkey: zero entries", bc07, -EINVAL },
	{ "map_sg_lkey: remote ops", bc08, -EINVAL },
	{ "map_sg_rkey: local ops", bc09, -EINVAL },
	{ "map_sg_rkey: no ops", bc10, -EINVAL },
	{ "map_sg_rkey: unknown op bit", bc11, -EINVAL },
	{ "map_sg_lkey: local and remote ops mixed", bc12, -EINVAL },
	{ "map_sg_lkey: on an rkey MR", bc13, -EPERM },
	{ "map_sg_rkey: on an lkey MR", bc14, -EPERM },
	{ "map_sg_rkey: more pages than the MR holds", bc15, -E2BIG },
	{ "map_sg_rkey: first entry ends inside a page", bc16, -EINVAL },
	{ "map_sg_lkey: empty entries", bc17, -EINVAL },
	{ "map_sg_rkey: middle of the list starts inside a page", bc18, -EINVAL },
	{ "map_sg_rkey: MR already mapped", bc19, -EBUSY },
	{ "unmap: remote key not yet invalidated", bc20, -EBUSY },
	{ "invalidate: twice", bc21, -EINVAL },
	{ "remote_invalidated: another key", bc22, -EINVAL },
	{ "unmap: NULL", bc23, -EINVAL },
	{ "invalidate: NULL", bc24, -EINVAL },
	{ "remote_invalidated: NULL", bc25, -EINVAL },
	{ "io_ctx_init: NULL ctx", bc26, -EINVAL },
	{ "io_ctx_init: NULL pool", bc27, -EINVAL },
	{ "io_ctx_init: zero entries", bc28, -EINVAL },
	{ "io_ctx_init: bidirectional", bc29, -EINVAL },
	{ "io_ctx_init: offset at the end of the first entry", bc30, -EINVAL },
	{ "io_ctx_init: offset at the end of the list", bc30a, -EINVAL },
	{ "io_ctx_init: offset past the end of the list", bc30b, -EINVAL },
	{ "io_ctx_init: offset far past the end of the list", bc30c, -EINVAL },
	{ "io_ctx_init_bvec: no bytes", bc30d, -EINVAL },
	{ "io_ctx_init_bvec: iterator past the array", bc30e, -EINVAL },
	{ "io_ctx_init_bvec: over an empty bio_vec", bc30f, -EINVAL },
	{ "io_ctx_init_bvec: at the end of its bio_vec", bc30g, -EINVAL },
	{ "io_ctx_init: empty entries", bc31, -EINVAL },
	{ "io_ctx_init: an empty entry between full pages, WRITE", bc31a,
	  -EINVAL },
	{ "io_ctx_init: an empty entry between full pages, READ", bc31b,
	  -EINVAL },
	{ "io_ctx_init: forced backend that does not exist", bc32, -EOPNOTSUPP },
	{ "io_ctx_init: forced backend of another transport", bc33, -EOPNOTSUPP },
	{ "pool_force_backend: name too long", bc34, -EINVAL },
	{ "pool_create: NULL qp", bc35, -EINVAL },
	{ "pool_create: zero contexts", bc36, -EINVAL },
	{ "pool_create: zero pages", bc37, -EINVAL },
	{ "backend_register: NULL", bc38, -EINVAL },
	{ "backend_register: no serves callback", bc39, -EINVAL },
	{ "backend_register: name already registered", bc40, -EEXIST },
	{ "io_ctx_init: remote range wraps, WRITE", bc41, -EOVERFLOW },
	{ "io_ctx_init: remote range wraps, READ", bc42, -EOVERFLOW },
	{ "io_ctx_init: remote range wraps, pool MR", bc43, -EOVERFLOW },
	{ "io_ctx_init: remote range ends at 2^64", bc44, -EOVERFLOW },
	{ "io_ctx_init: more pieces than the pool has MRs", bc45, -E2BIG },
	{ "pool_create: contexts * MRs per I/O past U32_MAX", bc46,
	  -EOVERFLOW },
	{ "pool_create: more MRs than the device has", bc47, -E2BIG },
};

#endif /* _MRCORE_BAD_INPUT_CASES_H */
