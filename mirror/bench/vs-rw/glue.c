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
	int ret;

	if (wrs < 0)
		return wrs;
	ret = rdma_io_ctx_post(&ctx, io->cqe, NULL);
	t->ios++;
	t->wrs += (u32)wrs;
	rdma_io_ctx_destroy(&ctx, ret ? NULL : io->wc_ok);
	return ret;
}

int vsrw_rw_io(const struct vsrw_io *io, struct vsrw_tally *t)
{
	struct rdma_rw_ctx ctx;
	int wrs = rdma_rw_ctx_init(&ctx, io->qp, io->port_num, io->sg,
				   io->sg_cnt, 0, io->remote_addr, io->rkey,
				   io->dir);
	int ret;

	if (wrs < 0)
		return wrs;
	ret = rdma_rw_ctx_post(&ctx, io->qp, io->port_num, io->cqe, NULL);
	t->ios++;
	t->wrs += (u32)wrs;
	rdma_rw_ctx_destroy(&ctx, io->qp, io->port_num, io->sg, io->sg_cnt,
			    io->dir);
	return ret;
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

/*
 * One keyed command of nvme-rdma's host, its data path only (what the
 * stock file and the port do differently; the block layer's scatterlist,
 * the capsule and the post are the same on both sides): stock, an MR of
 * the QP's pool, DMA-mapped, registered with an 8-bit key bump for
 * REMOTE_READ | REMOTE_WRITE, the REG_MR chained before the Send; the
 * reply a SEND_WITH_INV of that key, checked; the MR back, unmapped.
 */
int vsrw_stock_key_io(struct ib_qp *qp, struct scatterlist *sg, int nents,
		      struct ib_send_wr *send, struct ib_wc *reply,
		      struct vsrw_tally *t)
{
	struct ib_device *dev = qp->device;
	struct ib_reg_wr reg;
	struct ib_mr *mr;
	int count, nr;

	count = ib_dma_map_sg(dev, sg, nents, DMA_FROM_DEVICE);
	if (count <= 0)
		return -EIO;
	mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	if (!mr) {
		ib_dma_unmap_sg(dev, sg, nents, DMA_FROM_DEVICE);
		return -EAGAIN;
	}
	nr = ib_map_mr_sg(mr, sg, count, NULL, SZ_4K);
	if (nr < count) {
		ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
		ib_dma_unmap_sg(dev, sg, nents, DMA_FROM_DEVICE);
		return nr < 0 ? nr : -EINVAL;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	memset(&reg, 0, sizeof(reg));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.next = send;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		     IB_ACCESS_REMOTE_WRITE;
	t->ios++;
	t->wrs += 2;
	/* The reply. */
	reply->ex.invalidate_rkey = mr->rkey;
	if (!(reply->wc_flags & IB_WC_WITH_INVALIDATE) ||
	    reply->ex.invalidate_rkey != mr->rkey)
		return -EINVAL;
	ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
	ib_dma_unmap_sg(dev, sg, nents, DMA_FROM_DEVICE);
	return 0;
}

struct vsrw_key_req {
	struct rdma_rkey_req rk;
	int done;
};

static void vsrw_key_done(struct rdma_rkey_req *rk, int status)
{
	container_of(rk, struct vsrw_key_req, rk)->done = status ? status : 1;
}

/*
 * The same command through the port: an rkey request of the queue's set,
 * its scatterlist mapped for REMOTE_WRITE (a host read), the registration
 * chained before the Send; the reply, a SEND_WITH_INV of the key, retires
 * it and the done callback runs.
 */
int vsrw_mrcore_key_io(struct rdma_rkey_set *set, struct scatterlist *sg,
		       int nents, struct ib_send_wr *send,
		       struct ib_wc *reply, struct vsrw_tally *t)
{
	/*
	 * The port embeds the request in its blk-mq PDU, which lives as long
	 * as the queue: rdma_rkey_req_init() sets what a command needs, and
	 * nothing zeroes the rest per command (stock builds its REG_MR WR on
	 * the stack, above, and is charged for it).
	 */
	static struct vsrw_key_req req;
	u64 iova;
	u32 rkey;
	int ret;

	req.done = 0;
	rdma_rkey_req_init(&req.rk, set, send, vsrw_key_done);
	ret = rdma_rkey_map_sg(&req.rk, sg, nents, RDMA_MR_REMOTE_WRITE,
			       &rkey, &iova);
	/*
	 * The mirror's work queue runs only when flushed: the new device
	 * MRs the kernel's work would have made by now, counted here.
	 */
	if (ret == -EAGAIN && rdma_rkey_set_drain(set))
		ret = rdma_rkey_map_sg(&req.rk, sg, nents,
				       RDMA_MR_REMOTE_WRITE, &rkey, &iova);
	if (ret)
		return ret;
	t->ios++;
	t->wrs += 2;
	reply->ex.invalidate_rkey = rkey;
	rdma_rkey_req_retire(&req.rk, reply);
	return req.done == 1 ? 0 : -EIO;
}

int vsrw_key_pool_init(struct ib_qp *qp, u32 nr, u32 pages)
{
	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
	qp->mrs_used = 0;
	return ib_mr_pool_init(qp, &qp->rdma_mrs, nr, IB_MR_TYPE_MEM_REG,
			       pages, 0);
}

void vsrw_key_pool_exit(struct ib_qp *qp)
{
	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
}
