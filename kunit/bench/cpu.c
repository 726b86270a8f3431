// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU cost of one I/O of each implementation: a loop of init + wrs +
 * destroy without posting, so without the device.
 */

#include <linux/ktime.h>
#include <linux/slab.h>

#include "bench.h"

/*
 * One I/O of @impl on QP @q's first slot: initialized, its chain built,
 * destroyed as after a successful completion @wc.  The timed loop's body,
 * kept here (not through sides.c) so that nothing but the implementation's
 * own calls is in the figure.
 */
static int bench_cpu_io(struct bench_qp *q, enum bench_impl impl,
			struct rdma_io_pool *pool, enum dma_data_direction dir,
			struct ib_cqe *cqe, const struct ib_wc *wc)
{
	struct bench_slot *s = &q->slots[0];
	struct ib_qp *qp = q->pair->active.qp;
	int ret;

	if (impl == BENCH_MRCORE) {
		ret = rdma_io_ctx_init(&s->io, pool, s->mem.sg, s->mem.nents,
				       0, q->iova, q->rkey, dir);
		if (ret < 0)
			return ret;
		rdma_io_ctx_wrs(&s->io, cqe, NULL);
		rdma_io_ctx_destroy(&s->io, wc);
		return 0;
	}
	ret = rdma_rw_ctx_init(&s->rw, qp, q->port, s->mem.sg, s->mem.nents, 0,
			       q->iova, q->rkey, dir);
	if (ret < 0)
		return ret;
	rdma_rw_ctx_wrs(&s->rw, qp, q->port, cqe, NULL);
	rdma_rw_ctx_destroy(&s->rw, qp, q->port, s->mem.sg, s->mem.nents, dir);
	return 0;
}

/*
 * The chain one I/O of @impl builds as the loop's did (its WRs and
 * registrations), counted after the timing: the row's "same chain" test
 * for the CPU figures.  The timed body above stays as it is.
 */
static int bench_cpu_chain(struct bench_qp *q, enum bench_impl impl,
			   struct rdma_io_pool *pool,
			   enum dma_data_direction dir, struct ib_cqe *cqe,
			   const struct ib_wc *wc, struct bench_chain *chain)
{
	struct bench_slot *s = &q->slots[0];
	struct ib_qp *qp = q->pair->active.qp;
	const struct ib_send_wr *wr;
	int ret;

	if (impl == BENCH_MRCORE) {
		ret = rdma_io_ctx_init(&s->io, pool, s->mem.sg, s->mem.nents,
				       0, q->iova, q->rkey, dir);
		if (ret < 0)
			return ret;
		wr = rdma_io_ctx_wrs(&s->io, cqe, NULL);
	} else {
		ret = rdma_rw_ctx_init(&s->rw, qp, q->port, s->mem.sg,
				       s->mem.nents, 0, q->iova, q->rkey, dir);
		if (ret < 0)
			return ret;
		wr = rdma_rw_ctx_wrs(&s->rw, qp, q->port, cqe, NULL);
	}
	chain->wrs = 0;
	chain->mrs = 0;
	for (; wr; wr = wr->next) {
		chain->wrs++;
		chain->mrs += wr->opcode == IB_WR_REG_MR;
	}
	if (impl == BENCH_MRCORE)
		rdma_io_ctx_destroy(&s->io, wc);
	else
		rdma_rw_ctx_destroy(&s->rw, qp, q->port, s->mem.sg,
				    s->mem.nents, dir);
	return 0;
}

/*
 * Batches of @per iterations, and their median: a vCPU the host takes away
 * for a while spoils a batch, not the figure.  A batch is a whole period of
 * the work an implementation does now and then (bench_cpu()), so that each
 * batch holds it as often as the I/Os do.
 */
static int bench_cpu_loop(struct bench_qp *q, enum bench_impl impl,
			  struct rdma_io_pool *pool,
			  enum dma_data_direction dir, u32 per, u64 *batch,
			  u64 *ns, struct bench_chain *chain)
{
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	struct ib_cqe cqe = {};
	unsigned int nr = 0, i;
	u64 t0, tb, t;
	int ret;

	t0 = ktime_get_ns();
	do {
		tb = ktime_get_ns();
		for (i = 0; i < per; i++) {
			ret = bench_cpu_io(q, impl, pool, dir, &cqe, &wc);
			if (ret < 0)
				return ret;
		}
		t = ktime_get_ns();
		batch[nr++] = div_u64(t - tb, per);
	} while (nr < BENCH_CPU_BATCHES &&
		 t - t0 < (u64)bench_cpu_ms * NSEC_PER_MSEC);
	*ns = bench_median(batch, nr);
	return bench_cpu_chain(q, impl, pool, dir, &cqe, &wc, chain);
}

/*
 * rdma-mrcore's loop runs on a pool of its own: its contexts are never
 * posted, so their MRs' keys are never registered, and those MRs must not
 * reach an I/O that is posted.  The pool has the throughput runs' shape
 * (%BENCH_MAX_QD MRs of %BENCH_MAX_PAGES pages, rig.c), as rdma_rw's loop
 * takes MRs from the QP's pool of %BENCH_MAX_QD, the one its throughput
 * runs use; rdma_rw gives them back with the key rdma_rw_ctx_wrs() moved
 * on (ib_core moves keys there, which is why the loop charges the *_wrs()
 * call to both implementations); on these devices its MRs only ever serve
 * iWARP READs with invalidate, which need no invalidation of that key.
 * Until 2026-12-06 rdma-mrcore's loop pool had one MR.
 *
 * rdma-mrcore replaces an MR's device MR once in %BENCH_KEY_USES mappings,
 * so that no key value comes back; with the pool's MRs taken in turn, a
 * batch of that many I/Os per MR of the pool holds each replacement once.
 * Until 2026-12-04 a batch was 8 I/Os, and the median left the batches
 * with a replacement out.  rdma_rw's batches are as long as rdma-mrcore's.
 *
 * @chain: the WRs and registrations of the chain the loop built.
 */
int bench_cpu(struct bench_qp *q, enum bench_impl impl,
	      enum dma_data_direction dir, u64 *ns, struct bench_chain *chain)
{
	struct rdma_io_pool *pool = NULL;
	u32 per = BENCH_KEY_USES * BENCH_MAX_QD;
	u64 *batch;
	int ret;

	impl = bench_code(impl);
	batch = kmalloc_array(BENCH_CPU_BATCHES, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	if (impl == BENCH_MRCORE) {
		pool = rdma_io_pool_create(q->pair->active.qp, q->port,
					   BENCH_MAX_QD, BENCH_MAX_PAGES);
		if (IS_ERR(pool)) {
			kfree(batch);
			return PTR_ERR(pool);
		}
	}
	ret = bench_cpu_loop(q, impl, pool, dir, per, batch, ns, chain);
	if (pool)
		rdma_io_pool_destroy(pool);
	kfree(batch);
	return ret;
}

/*
 * What one replacement of a device MR costs on this device: an
 * ib_alloc_mr() of a pool MR's pages and an ib_dereg_mr(), the two calls
 * mrcore_mr_replace() makes, each timed over batches of
 * %BENCH_MR_CYCLE_BATCH MRs, medians.  rdma-mrcore makes one per
 * %BENCH_KEY_USES mappings of an MR (no key value comes back; rdma_rw lets
 * the key byte wrap), so the CPU loop of an I/O that takes MRs holds
 * (@alloc_ns + @dereg_ns) / %BENCH_KEY_USES per MR of the I/O.
 */
int bench_mr_cycle(struct bench_qp *q, u32 pages, u64 *alloc_ns,
		   u64 *dereg_ns)
{
	struct ib_pd *pd = q->pair->active.pd;
	u64 alloc[BENCH_MR_CYCLE_ROUNDS], dereg[BENCH_MR_CYCLE_ROUNDS];
	struct ib_mr **mrs;
	unsigned int r, i, n;
	int ret = 0;
	u64 t0, t1;

	mrs = kcalloc(BENCH_MR_CYCLE_BATCH, sizeof(*mrs), GFP_KERNEL);
	if (!mrs)
		return -ENOMEM;
	for (r = 0; r < BENCH_MR_CYCLE_ROUNDS; r++) {
		t0 = ktime_get_ns();
		for (n = 0; n < BENCH_MR_CYCLE_BATCH; n++) {
			mrs[n] = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, pages);
			if (IS_ERR(mrs[n])) {
				ret = PTR_ERR(mrs[n]);
				break;
			}
		}
		t1 = ktime_get_ns();
		for (i = 0; i < n; i++)
			ib_dereg_mr(mrs[i]);
		if (ret)
			break;
		alloc[r] = div_u64(t1 - t0, BENCH_MR_CYCLE_BATCH);
		dereg[r] = div_u64(ktime_get_ns() - t1, BENCH_MR_CYCLE_BATCH);
	}
	kfree(mrs);
	if (ret)
		return ret;
	*alloc_ns = bench_median(alloc, BENCH_MR_CYCLE_ROUNDS);
	*dereg_ns = bench_median(dereg, BENCH_MR_CYCLE_ROUNDS);
	return 0;
}
