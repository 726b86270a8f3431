// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C side of make bench-vs-rw (glue.h).  Both measured I/Os are here,
 * side by side and alike, so the harness around each implementation's
 * calls is the same code.
 */
#include <rdma/mr_pool.h>
#include <rdma/rw.h>

#include "glue.h"

int vsrw_mrcore_io(const struct vsrw_io *io, struct vsrw_tally *t)
{
	struct rdma_io_ctx ctx;
	int wrs = rdma_io_ctx_init(&ctx, io->pool, io->sg, io->sg_cnt, 0,
				   io->remote_addr, io->rkey, io->dir);

	if (wrs < 0)
		return wrs;
	rdma_io_ctx_wrs(&ctx, io->cqe, NULL);
	t->ios++;
	t->wrs += (u32)wrs;
	rdma_io_ctx_destroy(&ctx, io->wc_ok);
	return 0;
}

int vsrw_rw_io(const struct vsrw_io *io, struct vsrw_tally *t)
{
	struct rdma_rw_ctx ctx;
	int wrs = rdma_rw_ctx_init(&ctx, io->qp, io->port_num, io->sg,
				   io->sg_cnt, 0, io->remote_addr, io->rkey,
				   io->dir);

	if (wrs < 0)
		return wrs;
	rdma_rw_ctx_wrs(&ctx, io->qp, io->port_num, io->cqe, NULL);
	t->ios++;
	t->wrs += (u32)wrs;
	rdma_rw_ctx_destroy(&ctx, io->qp, io->port_num, io->sg, io->sg_cnt,
			    io->dir);
	return 0;
}

int vsrw_rw_qp_init(struct ib_qp *qp, u32 port_num, u32 max_ctxs,
		    u32 max_pages)
{
	struct ib_qp_init_attr attr = {
		.port_num = port_num,
		.cap.max_rdma_ctxs = max_ctxs *
			rdma_rw_mr_factor(qp->device, port_num, max_pages),
	};

	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
	qp->mrs_used = 0;
	rdma_rw_init_qp(qp->device, &attr);
	return rdma_rw_init_mrs(qp, &attr);
}

void vsrw_rw_qp_exit(struct ib_qp *qp)
{
	rdma_rw_cleanup_mrs(qp);
}

struct vsrw_rw_ctx {
	struct rdma_rw_ctx ctx;
};

struct vsrw_rw_ctx *vsrw_rw_begin(const struct vsrw_io *io, int *err,
				  int *wrs, u32 *mrs,
				  struct ib_send_wr **first)
{
	struct vsrw_rw_ctx *c = calloc(1, sizeof(*c));
	int used = io->qp->mrs_used;

	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	*wrs = rdma_rw_ctx_init(&c->ctx, io->qp, io->port_num, io->sg,
				io->sg_cnt, 0, io->remote_addr, io->rkey,
				io->dir);
	if (*wrs < 0) {
		*err = *wrs;
		free(c);
		return NULL;
	}
	*mrs = (u32)(io->qp->mrs_used - used);
	*first = rdma_rw_ctx_wrs(&c->ctx, io->qp, io->port_num, io->cqe, NULL);
	return c;
}

void vsrw_rw_end(struct vsrw_rw_ctx *c, const struct vsrw_io *io)
{
	rdma_rw_ctx_destroy(&c->ctx, io->qp, io->port_num, io->sg, io->sg_cnt,
			    io->dir);
	free(c);
}

u32 vsrw_fix_read_inv(struct ib_send_wr *first)
{
	struct ib_send_wr *wr;
	u32 n = 0;

	for (wr = first; wr; wr = wr->next) {
		if (wr->opcode != IB_WR_RDMA_READ_WITH_INV || wr->num_sge < 1 ||
		    wr->ex.invalidate_rkey == wr->sg_list[0].lkey)
			continue;
		wr->ex.invalidate_rkey = wr->sg_list[0].lkey;
		n++;
	}
	return n;
}
