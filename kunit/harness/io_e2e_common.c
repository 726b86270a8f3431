// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers of the READ/WRITE helper's end-to-end suites (io_e2e.h).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "e2e_suite.h"
#include "io_e2e.h"
#include "sg_chain.h"

/* A local invalidation on a working QP takes milliseconds. */
#define IO_OWNER_INV_MS		3000

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
		 * past caring, and deregistration kills it anyway.  siw's
		 * QP that answered a READ with a TERMINATE still says RTS
		 * but sends nothing more: the invalidation would wait out
		 * a whole I/O timeout (30 s, twice a run) for nothing.
		 */
		if (mrcore_e2e_qp_state(side) == IB_QPS_RTS) {
			mrcore_e2e_wait_init(&w);
			inv.wr_cqe = &w.cqe;
			inv.send_flags = IB_SEND_SIGNALED;
			mrcore_e2e_post(side, &inv, &w, IO_OWNER_INV_MS);
		}
		ib_dereg_mr(o->mr);
		ib_dma_unmap_sg(side->device, o->buf.sg, 1, DMA_BIDIRECTIONAL);
	}
	mrcore_e2e_buf_free(&o->buf);
}

static void io_pair_release(void *pair)
{
	mrcore_e2e_pair_destroy(pair);
}

struct io_owner *io_owner_create(struct kunit *test,
				 struct mrcore_e2e_pair *pair)
{
	struct mrcore_e2e_side *side = &pair->passive;
	struct ib_reg_wr reg;
	struct mrcore_e2e_wait w;
	struct io_owner *o;
	int ret;

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	o->pair = pair;
	ret = mrcore_e2e_buf_alloc_contig(&o->buf, IO_OWNER_BYTES, 0);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "4 MiB of contiguous owner memory");
	ret = kunit_add_action_or_reset(test, io_owner_release, o);
	KUNIT_ASSERT_EQ(test, ret, 0);

	KUNIT_ASSERT_EQ(test, 1, ib_dma_map_sg(side->device, o->buf.sg, 1,
					       DMA_BIDIRECTIONAL));
	o->mr = ib_alloc_mr(side->pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(o->mr)) {
		ret = PTR_ERR(o->mr);
		o->mr = NULL;
		ib_dma_unmap_sg(side->device, o->buf.sg, 1, DMA_BIDIRECTIONAL);
		KUNIT_FAIL(test, "owner MR: %d", ret);
		return NULL;
	}
	KUNIT_ASSERT_EQ(test, 1, ib_map_mr_sg(o->mr, o->buf.sg, 1, NULL, SZ_2M));
	mrcore_e2e_wait_init(&w);
	mrcore_e2e_reg_wr(&reg, o->mr, &w);
	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_post(side, &reg.wr, &w,
						 IO_TIMEOUT_MS));
	o->rkey = o->mr->rkey;
	o->iova = o->mr->iova;
	return o;
}

static void io_local_release(void *p)
{
	struct io_local *l = p;

	mrcore_e2e_buf_free(&l->buf);
}

struct io_local *io_local_create(struct kunit *test,
				 const struct mrcore_shape_desc *d)
{
	struct io_local *l;
	int ret;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->len = mrcore_shape_bytes(d);
	/*
	 * Contiguous: one entry over physically contiguous pages.  Scattered:
	 * the harness gives every page its own entry; shapes of whole pages
	 * start on a page, the others at their offset.
	 */
	if (d->nents == 1 && d->length >= SZ_1M)
		ret = mrcore_e2e_buf_alloc_contig(&l->buf, l->len, d->offset);
	else
		ret = mrcore_e2e_buf_alloc(&l->buf, l->len, d->offset);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%llu bytes of local memory",
			    l->len);
	ret = kunit_add_action_or_reset(test, io_local_release, l);
	KUNIT_ASSERT_EQ(test, ret, 0);
	l->sg = l->buf.sg;
	l->nents = l->buf.nents;
	return l;
}

/*
 * @l's entries as a chained list (kunit/harness/sg_chain.h), for the I/Os from now
 * on; its memory and its flat list stay as they are.
 */
void io_local_chain(struct kunit *test, struct io_local *l)
{
	struct scatterlist *ch;

	ch = kunit_kcalloc(test, mrcore_shape_chain_slots(l->nents),
			   sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	mrcore_sg_copy_chained(ch, l->sg, l->nents);
	l->sg = ch;
}

static void io_pool_release(void *pool)
{
	rdma_io_pool_destroy(pool);
}

/* A pool on @side's QP, with rdma_io_pool_create_flags()' @flags. */
struct rdma_io_pool *io_pool_flags(struct kunit *test,
				   struct mrcore_e2e_side *side, u32 max_ctxs,
				   u32 max_pages, u32 flags)
{
	struct rdma_io_pool *pool;
	int ret;

	pool = rdma_io_pool_create_flags(side->qp, side->cm_id->port_num,
					 max_ctxs, max_pages, flags);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	ret = kunit_add_action_or_reset(test, io_pool_release, pool);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return pool;
}

struct rdma_io_pool *io_pool(struct kunit *test, struct mrcore_e2e_side *side,
			     u32 max_ctxs, u32 max_pages)
{
	return io_pool_flags(test, side, max_ctxs, max_pages, 0);
}

/*
 * A connected pair whose queues hold @max_ctxs I/Os of up to @max_pages
 * pages (as rdma_io_max_send_wr() and rdma_io_max_cqe() say), besides the
 * harness's few WRs of the test's own.
 */
struct mrcore_e2e_pair *io_pair(struct kunit *test, u32 max_ctxs,
				u32 max_pages)
{
	const struct mrcore_e2e_target *t = test->priv;
	struct mrcore_e2e_caps caps = mrcore_e2e_default_caps;
	struct mrcore_e2e_pair *pair = NULL;
	int ret;

	caps.io_ctxs = max_ctxs;
	caps.io_pages = max_pages;
	ret = mrcore_e2e_pair_create_caps(t, &caps, &pair);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "connecting over %s failed", t->name);
	ret = kunit_add_action_or_reset(test, io_pair_release, pair);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return pair;
}

/*
 * @f: a pair whose queues hold @max_ctxs I/Os of up to @max_pages pages,
 * the owner's memory on it, local memory of shape @d (none if @d is NULL),
 * and the active end's pool of @max_ctxs such I/Os, with backend @force
 * unless that is NULL.
 */
void io_fixture_create(struct kunit *test, struct io_fixture *f,
		       const struct mrcore_shape_desc *d, u32 max_ctxs,
		       u32 max_pages, const char *force)
{
	f->pair = io_pair(test, max_ctxs, max_pages);
	f->owner = io_owner_create(test, f->pair);
	KUNIT_ASSERT_NOT_NULL(test, f->owner);
	f->l = d ? io_local_create(test, d) : NULL;
	f->pool = io_pool(test, &f->pair->active, max_ctxs, max_pages);
	if (force)
		KUNIT_ASSERT_EQ(test, 0,
				rdma_io_pool_force_backend(f->pool, force));
}

/*
 * Release @pool, @owner and @pair now, in that order, rather than at the
 * end of the test: for a test that goes on over a new pair.
 */
void io_release_now(struct kunit *test, struct mrcore_e2e_pair *pair,
		    struct io_owner *owner, struct rdma_io_pool *pool)
{
	kunit_release_action(test, io_pool_release, pool);
	kunit_release_action(test, io_owner_release, owner);
	kunit_release_action(test, io_pair_release, pair);
}

/* Run one I/O to its completion; returns the completion status. */
int io_run(struct kunit *test, struct mrcore_e2e_side *side,
	   struct rdma_io_ctx *ctx)
{
	return mrcore_e2e_io_run(side, ctx, rdma_io_ctx_destroy, IO_TIMEOUT_MS);
}

/* The same for an I/O of rdma_io_ctx_init_bvec(). */
int io_run_bvec(struct kunit *test, struct mrcore_e2e_side *side,
		struct rdma_io_ctx *ctx)
{
	return mrcore_e2e_io_run(side, ctx, rdma_io_ctx_destroy_bvec,
				 IO_TIMEOUT_MS);
}

/* @l's entries as bio_vecs, one each, freed with the test. */
struct bio_vec *io_local_bvecs(struct kunit *test, const struct io_local *l)
{
	struct scatterlist *s;
	struct bio_vec *bv;
	unsigned int i;

	bv = kunit_kcalloc(test, l->nents, sizeof(*bv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bv);
	for_each_sg(l->sg, s, l->nents, i)
		bvec_set_page(&bv[i], sg_page(s), s->length, s->offset);
	return bv;
}

bool io_on_iwarp(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;

	return t == &mrcore_e2e_siw;
}

/*
 * One try of the attacker over a new connection to the PD of @base's
 * active end (mrcore_e2e_try_key()): @op through @key at @iova, which
 * named byte @at of @mem.  The same connection first reaches those bytes
 * with the same op and length through a reference key, and must be served
 * (mrcore_e2e_try_ref()): a refusal then can only come from @key, never
 * from an attacker that could not post.  Returns true if the access was
 * refused: an error completion, or for an iWARP WRITE (never
 * acknowledged) the TERMINATE that breaks the connection.  The test fails
 * if it was not, or if the control failed.
 */
bool io_key_refused(struct kunit *test, struct mrcore_e2e_pair *base,
		    enum ib_wr_opcode op, u32 key, u64 iova,
		    struct mrcore_e2e_buf *mem, size_t at)
{
	const struct mrcore_e2e_ref ref = { .buf = mem, .at = at };
	int r = mrcore_e2e_try_key(base, base->active.pd, op, key, iova, &ref);

	KUNIT_EXPECT_EQ_MSG(test, r, 1,
			    "the attacker's %s through key 0x%x at 0x%llx was %s (%d)",
			    op == IB_WR_RDMA_WRITE ? "WRITE" : "READ", key,
			    iova, r ? "not made, or its control failed" :
				      "not refused", r);
	return r == 1;
}

/*
 * The owner reuses the memory at once (new bytes); the attacker tries
 * every key that named it, WRITE and READ; the memory keeps the new bytes.
 * Each try is preceded on its connection by the control of
 * io_key_refused(): the same op and length reach the key's bytes through
 * a reference key, the only control a key that is dead already, or never
 * granted the peer anything, can have.
 */
void keys_expect_dead(struct kunit *test, struct mrcore_e2e_pair *base,
		      const struct keys_named *k, unsigned int n,
		      struct mrcore_e2e_buf *mem, const char *what)
{
	unsigned int i, local = 0;

	KUNIT_ASSERT_GT_MSG(test, n, 0, "no key to try: the test tests nothing");
	for (i = 0; i < n; i++)
		local += !k[i].remote;
	/*
	 * A key without remote rights is refused whether it lives or not:
	 * for it the attacker checks the rights the core gave, which a bug
	 * could widen; its death is checked where the peer could use it
	 * (the map API's keys, iWARP READ sinks, siw's kills).
	 */
	if (local)
		kunit_info(test, "%s: %u of %u keys never granted the peer anything: their refusal checks the rights, not the death\n",
			   what, local, n);
	mrcore_e2e_buf_fill(mem, KEYS_SEED_REUSED);
	for (i = 0; i < n; i++) {
		io_key_refused(test, base, IB_WR_RDMA_WRITE, k[i].key,
			       k[i].iova, mem, k[i].at);
		mrcore_e2e_expect_data(test, mem, 0, mem->len,
				       KEYS_SEED_REUSED, what);
		io_key_refused(test, base, IB_WR_RDMA_READ, k[i].key,
			       k[i].iova, mem, k[i].at);
	}
}

/*
 * The positive control of keys_expect_dead(), one access: the same
 * attacker (a new connection to the PD of @base's active end), op and
 * length, through @k while it lives.  A WRITE lands the attacker's bytes
 * at @at in @mem (poisoned first, the rest stays so); a READ is served.
 * Without it a refusal could be an attacker that never reached the key.
 */
void keys_expect_served_op(struct kunit *test, struct mrcore_e2e_pair *base,
			   const struct keys_named *k, enum ib_wr_opcode op,
			   struct mrcore_e2e_buf *mem, size_t at)
{
	const struct mrcore_e2e_ref lands = { .buf = mem, .at = at };
	bool write = op == IB_WR_RDMA_WRITE;
	int r;

	if (write)
		mrcore_e2e_buf_poison(mem);
	r = mrcore_e2e_try_live_key(base, base->active.pd, op, k->key,
				    k->iova, &lands);
	KUNIT_EXPECT_EQ_MSG(test, r, 0,
			    "control: the attacker's %s through the live key 0x%x was %s (%d)",
			    write ? "WRITE" : "READ", k->key,
			    r < 0 ? "not made" : "refused", r);
	if (write)
		mrcore_e2e_expect_data(test, mem, at, MRCORE_E2E_TRY_BYTES,
				       MRCORE_E2E_TRY_SEED,
				       "memory after the attacker's WRITE through a live key");
}

/* keys_expect_served_op() of both, for a key with all the rights. */
void keys_expect_served(struct kunit *test, struct mrcore_e2e_pair *base,
			const struct keys_named *k, struct mrcore_e2e_buf *mem)
{
	keys_expect_served_op(test, base, k, IB_WR_RDMA_WRITE, mem, 0);
	keys_expect_served_op(test, base, k, IB_WR_RDMA_READ, mem, 0);
}

void keys_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct keys_recv *r = container_of(wc->wr_cqe, struct keys_recv, cqe);

	r->wc = *wc;
	complete(&r->done);
}
