// SPDX-License-Identifier: GPL-2.0-only
/*
 * One RDMA READ written twice, on the kernel's R/W API (include/rdma/rw.h)
 * and on rdma-mrcore's READ/WRITE helper, for the side-by-side of
 * Documentation/ulp-guide.rst ("Moving from rdma_rw"), which includes the
 * parts between the "guide:" markers.  Built with the sample ULP against
 * the installed package, so the guide's code compiles.  Nothing here runs:
 * the module only keeps the examples.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/mrcore.h>

#define MY_MAX_IOS	32	/* READs in flight on one QP */
#define MY_MAX_PAGES	256	/* pages of the largest READ */
#define MY_MAX_SGE	4	/* the QP's cap.max_send_sge */
#define MY_MAX_SENDS	64	/* the ULP's own Sends in flight */

/**
 * struct my_read - one READ of the examples
 * @qp: the connection's QP.
 * @port: its port.
 * @pool: the helper's MR pool of @qp (rdma-mrcore).
 * @rw: the R/W context (rdma_rw).
 * @io: the I/O context (rdma-mrcore).
 * @sgl: the local memory.
 * @nents: its entries.
 * @cqe: the completion entry of the READ.
 * @status: the completion status.
 * @done: completed when the READ's memory is the ULP's again.
 */
struct my_read {
	struct ib_qp *qp;
	u32 port;
	struct rdma_io_pool *pool;
	struct rdma_rw_ctx rw;
	struct rdma_io_ctx io;
	struct scatterlist *sgl;
	u32 nents;
	struct ib_cqe cqe;
	enum ib_wc_status status;
	struct completion done;
};

/* guide: rw-start */
/* Sizing: rdma_rw sizes the QP inside ib_create_qp() (cap.max_rdma_ctxs). */
static u32 rw_send_queue(struct ib_device *dev, u32 port)
{
	return MY_MAX_SENDS + rdma_rw_max_send_wr(dev, port, MY_MAX_IOS, 0);
}

static void rw_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct my_read *r = container_of(wc->wr_cqe, struct my_read, cqe);

	/* The same whatever the status: the MRs go back to the QP's list. */
	rdma_rw_ctx_destroy(&r->rw, r->qp, r->port, r->sgl, r->nents,
			    DMA_FROM_DEVICE);
	r->status = wc->status;
	complete(&r->done);
}

static int rw_read(struct my_read *r, struct scatterlist *sgl, u32 nents,
		   u64 remote_addr, u32 rkey)
{
	int ret;

	r->sgl = sgl;
	r->nents = nents;
	ret = rdma_rw_ctx_init(&r->rw, r->qp, r->port, sgl, nents, 0,
			       remote_addr, rkey, DMA_FROM_DEVICE);
	if (ret < 0)
		return ret;
	r->cqe.done = rw_read_done;
	init_completion(&r->done);
	ret = rdma_rw_ctx_post(&r->rw, r->qp, r->port, &r->cqe, NULL);
	/* Part of the chain may be posted: nothing tells. */
	if (ret)
		rdma_rw_ctx_destroy(&r->rw, r->qp, r->port, sgl, nents,
				    DMA_FROM_DEVICE);
	return ret;
}

/* guide: rw-end */

/* guide: io-start */
/* Sizing: per I/O, for the QP's SGEs; the pool is the QP's MRs. */
static u32 io_send_queue(struct ib_device *dev, u32 port)
{
	return MY_MAX_SENDS + MY_MAX_IOS *
	       rdma_io_max_send_wr(dev, port, MY_MAX_PAGES, MY_MAX_SGE);
}

static struct rdma_io_pool *io_pool(struct ib_qp *qp, u32 port)
{
	return rdma_io_pool_create(qp, port, MY_MAX_IOS, MY_MAX_PAGES);
}

static void io_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct my_read *r = container_of(wc->wr_cqe, struct my_read, cqe);

	/* The completion decides: keys of a failed READ die here first. */
	rdma_io_ctx_destroy(&r->io, wc);
	r->status = wc->status;
	complete(&r->done);
}

static int io_read(struct my_read *r, struct scatterlist *sgl, u32 nents,
		   u64 remote_addr, u32 rkey)
{
	int ret;

	ret = rdma_io_ctx_init(&r->io, r->pool, sgl, nents, 0, remote_addr,
			       rkey, DMA_FROM_DEVICE);
	if (ret < 0)
		return ret;
	r->cqe.done = io_read_done;
	init_completion(&r->done);
	ret = rdma_io_ctx_post(&r->io, &r->cqe, NULL);
	/* Part of the chain posted: it must be gone before the destroy. */
	if (ret == -EINPROGRESS)
		ib_drain_sq(r->qp);
	if (ret)
		rdma_io_ctx_destroy(&r->io, NULL);
	return ret;
}

/* guide: io-end */

/**
 * struct my_example - one way of doing the READ
 * @send_queue: the send queue a QP needs.
 * @pool: the helper's pool of a QP, or %NULL.
 * @read: start a READ.
 */
struct my_example {
	u32 (*send_queue)(struct ib_device *dev, u32 port);
	struct rdma_io_pool *(*pool)(struct ib_qp *qp, u32 port);
	int (*read)(struct my_read *r, struct scatterlist *sgl, u32 nents,
		    u64 remote_addr, u32 rkey);
};

static const struct my_example my_examples[] __used = {
	{ rw_send_queue, NULL, rw_read },
	{ io_send_queue, io_pool, io_read },
};

static int __init mrcore_from_rw_init(void)
{
	return 0;
}

static void __exit mrcore_from_rw_exit(void)
{
}

module_init(mrcore_from_rw_init);
module_exit(mrcore_from_rw_exit);

MODULE_DESCRIPTION("rdma-mrcore sample: one READ on rdma_rw and on the helper");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_MRCORE);
