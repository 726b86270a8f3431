// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two implementations a run compares, on one slot: rdma-mrcore's
 * rdma_io_ctx_*() and ib_core's rdma_rw_ctx_*().  Each I/O is prepared
 * (initialized), posted with its implementation's own post
 * (rdma_io_ctx_post(); rdma_rw_ctx_wrs() and ib_post_send(), which is
 * rdma_rw_ctx_post()), its chain counted, released when its completion
 * arrives, and its backend or kind of chain accounted to the run.
 */

#include "bench.h"

const char *const bench_impl_name[BENCH_NR_IMPLS] = {
	[BENCH_MRCORE] = "mrcore",
	[BENCH_RDMA_RW] = "rdma_rw",
};

/*
 * ib_core's choice, named as rw.c names its context types: registrations,
 * READ/WRITE WRs with an SGE list on the local DMA lkey, or one WR of one
 * SGE.
 */
static const char *bench_rw_kind(u32 wrs, u32 sges, u32 mrs)
{
	if (mrs)
		return "mr";
	return wrs > 1 || sges > 1 ? "multi_wr" : "single_wr";
}

/*
 * What goes to the device, counted the same way for both: the slot's WRs
 * and registrations; returns the chain's SGEs.
 */
static u32 bench_count(struct bench_slot *s, const struct ib_send_wr *wr)
{
	u32 n = 0, regs = 0, sges = 0;

	for (; wr; wr = wr->next) {
		n++;
		regs += wr->opcode == IB_WR_REG_MR;
		sges += wr->num_sge;
	}
	s->wrs = n;
	s->mrs = regs;
	return sges;
}

/*
 * Initialize the slot's I/O; s->wrs: the WRs it will post.  rdma_rw's
 * chain is built here (rdma_rw_ctx_post() would build it in the post) and
 * returned in @first; rdma-mrcore's is built by rdma_io_ctx_post(), from
 * bench_post_io(), and @first is %NULL.
 */
int bench_prepare(struct bench_qp *q, struct bench_slot *s,
		  struct ib_send_wr **first, const char **backend)
{
	struct ib_qp *qp = q->pair->active.qp;
	u32 sges;
	int ret;

	if (q->impl == BENCH_MRCORE) {
		ret = rdma_io_ctx_init(&s->io, q->pool, s->mem.sg, s->mem.nents,
				       0, q->iova, q->rkey, q->dir);
		if (ret < 0)
			return ret;
		s->prepared = true;
		s->wrs = ret;
		*first = NULL;
		*backend = rdma_io_ctx_backend(&s->io);
		return 0;
	}
	ret = rdma_rw_ctx_init(&s->rw, qp, q->port, s->mem.sg, s->mem.nents,
			       0, q->iova, q->rkey, q->dir);
	if (ret < 0)
		return ret;
	*first = rdma_rw_ctx_wrs(&s->rw, qp, q->port, &s->cqe, NULL);
	s->prepared = true;
	sges = bench_count(s, *first);
	*backend = bench_rw_kind(s->wrs, sges, s->mrs);
	return 0;
}

/*
 * Post the slot's prepared I/O (@first: bench_prepare()'s), as its
 * implementation's users do.  Returns 0, the post's error if nothing was
 * posted, or -EINPROGRESS if part of the chain was.
 */
int bench_post_io(struct bench_qp *q, struct bench_slot *s,
		  struct ib_send_wr *first)
{
	const struct ib_send_wr *bad = NULL;
	int ret;

	if (q->impl == BENCH_MRCORE) {
		ret = rdma_io_ctx_post(&s->io, &s->cqe, NULL);
		/* The chain rdma_io_ctx_post() built, if any of it went. */
		if (!ret || ret == -EINPROGRESS)
			bench_count(s, s->io.first);
		return ret;
	}
	ret = ib_post_send(q->pair->active.qp, first, &bad);
	return ret && bad != first ? -EINPROGRESS : ret;
}

/*
 * Release the slot's I/O.  @ok: it completed successfully.  An rdma-mrcore
 * I/O that was built but never posted, or failed, is destroyed without a
 * completion: its MRs' keys are then unknown and the pool replaces them.
 */
void bench_release(struct bench_qp *q, struct bench_slot *s, bool ok)
{
	struct ib_wc wc = { .status = IB_WC_SUCCESS };

	if (!s->prepared)
		return;
	if (q->impl == BENCH_MRCORE)
		rdma_io_ctx_destroy(&s->io, ok ? &wc : NULL);
	else
		rdma_rw_ctx_destroy(&s->rw, q->pair->active.qp, q->port,
				    s->mem.sg, s->mem.nents, q->dir);
	s->prepared = false;
}

/* The run's backend is its first I/O's; another one later marks it mixed. */
void bench_account(struct bench_qp *q, const char *backend)
{
	struct bench_stats *st = &q->st;

	if (!st->backend)
		st->backend = backend;
	else if (strcmp(st->backend, backend))
		st->mixed = true;
}
