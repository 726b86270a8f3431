// SPDX-License-Identifier: GPL-2.0-only
/*
 * The map API examples of Documentation/ulp-guide.rst, compiled: the guide
 * shows them from this file, and make check builds it against the
 * installed package with the sample (scripts/install-check.sh).  Nothing
 * calls them; the module only proves they build.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/mrcore.h>

/**
 * struct example_req - a request of the examples' ULP
 * @mr: its MR.
 * @cqe: completion entry of the core's WRs it makes signaled.
 * @done: completed by example_wr_done().
 * @status: that completion's status.
 */
struct example_req {
	struct rdma_mr *mr;
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

static void example_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct example_req *req = container_of(wc->wr_cqe, struct example_req,
					       cqe);

	req->status = wc->status;
	complete(&req->done);
}

/* Signal the core's next WR of @req->mr through @req (done() above). */
static void example_signal(struct example_req *req)
{
	req->cqe.done = example_wr_done;
	req->status = IB_WC_SUCCESS;
	init_completion(&req->done);
	rdma_mr_set_cqe(req->mr, &req->cqe);
}

/* expose: begin */
/* Let the peer WRITE into @sgl: REG_MR, then the SEND advertising it. */
static int example_expose(struct example_req *req, struct ib_pd *pd,
			  struct ib_qp *qp, struct scatterlist *sgl,
			  unsigned int nents, struct ib_send_wr *send_wr,
			  u32 *rkey, u64 *iova)
{
	struct ib_send_wr *first = send_wr;	/* carries rkey and iova */
	int ret;

	req->mr = rdma_create_mr(pd, 16, RDMA_MR_ROLE_RKEY);
	if (IS_ERR(req->mr))
		return PTR_ERR(req->mr);
	ret = rdma_map_sg_rkey(rkey, iova, req->mr, sgl, nents,
			       RDMA_MR_REMOTE_WRITE, &first);
	if (ret)
		goto destroy;
	/* put *rkey and *iova into send_wr's message: REG_MR -> SEND */
	ret = ib_post_send(qp, first, NULL);
	if (ret)
		goto reset;
	return 0;

reset:
	/*
	 * The post took nothing (one that took part of the chain needs the
	 * send queue drained first): the key never ran, kill it anyway.
	 */
	if (rdma_mr_reset(req->mr))
		return ret;			/* the MR is freed */
destroy:
	rdma_destroy_mr(req->mr);
	return ret;
}

/* The peer is done: kill the key, wait until it is dead, free the MR. */
static int example_revoke(struct example_req *req, struct ib_qp *qp)
{
	struct ib_send_wr *first = NULL;
	int ret;

	example_signal(req);			/* the LOCAL_INV completes */
	ret = rdma_invalidate_mr(req->mr, &first);
	if (!ret && first) {			/* NULL: killed synchronously */
		ret = ib_post_send(qp, first, NULL);
		if (!ret)
			wait_for_completion(&req->done);
	}
	rdma_mr_set_cqe(req->mr, NULL);
	if (ret || req->status != IB_WC_SUCCESS) {
		/* the key's state is unknown: a new device MR kills it */
		ret = rdma_mr_reset(req->mr);
		if (ret)
			return ret;		/* the MR is freed */
	} else {
		rdma_unmap_mr(req->mr);		/* releases the DMA mapping */
	}
	rdma_destroy_mr(req->mr);
	return 0;
}

/* expose: end */

/* recv: begin */
/* Receive into @sgl: the REG_MR must have run before the RECV is posted. */
static int example_recv(struct example_req *req, struct ib_pd *pd,
			struct ib_qp *qp, struct scatterlist *sgl,
			struct ib_sge *sge, struct ib_recv_wr *recv_wr)
{
	struct ib_send_wr *first = NULL;
	u32 lkey;
	int ret;

	req->mr = rdma_create_mr(pd, 1, RDMA_MR_ROLE_LKEY);
	if (IS_ERR(req->mr))
		return PTR_ERR(req->mr);
	example_signal(req);			/* the REG_MR completes */
	ret = rdma_map_sg_lkey(&lkey, req->mr, sgl, 1,
			       RDMA_MR_LOCAL_RECV_SINK, &first);
	if (ret)
		goto destroy;
	if (first) {				/* NULL: registered already */
		ret = ib_post_send(qp, first, NULL);
		if (!ret)
			wait_for_completion(&req->done);
	}
	rdma_mr_set_cqe(req->mr, NULL);
	if (ret || req->status != IB_WC_SUCCESS) {
		ret = ret ? ret : -EIO;
		goto reset;
	}
	/* the registration has executed: the receive queue may use the key */
	sge->lkey = lkey;
	ret = ib_post_recv(qp, recv_wr, NULL);
	if (ret)
		goto reset;
	return 0;				/* rdma_unmap_mr() once received */

reset:
	if (rdma_mr_reset(req->mr))
		return ret;			/* the MR is freed */
destroy:
	rdma_destroy_mr(req->mr);
	return ret;
}

/* recv: end */

/* Referenced, so the compiler checks them without calling them. */
static void *const example_functions[] __maybe_unused = {
	(void *)example_expose, (void *)example_revoke, (void *)example_recv,
};

MODULE_DESCRIPTION("rdma-mrcore: the ULP guide's map API examples, compiled");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_MRCORE);
