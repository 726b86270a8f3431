// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rig of `make bench`: each slot's local memory, and each QP with its
 * pair, the peer's memory under one rkey, the CQ callback and rdma-mrcore's
 * pool.  Both implementations run on the same rig.
 */

#include <linux/slab.h>

#include "bench.h"

/* ---- memory ----------------------------------------------------------- */

void bench_mem_free(struct bench_mem *m)
{
	if (m->page)
		__free_pages(m->page, m->order);
	else
		mrcore_e2e_buf_free(&m->buf);
	memset(m, 0, sizeof(*m));
}

int bench_mem_alloc(struct bench_mem *m, const struct bench_shape *sh)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->len = (size_t)sh->npages * PAGE_SIZE;
	if (sh->contig) {
		m->order = get_order(m->len);
		m->page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, m->order);
		if (!m->page)
			return -ENOMEM;
		sg_init_one(&m->one, page_address(m->page), m->len);
		m->sg = &m->one;
		m->nents = 1;
		return 0;
	}
	ret = mrcore_e2e_buf_alloc(&m->buf, m->len, 0);
	if (ret)
		return ret;
	m->sg = m->buf.sg;
	m->nents = m->buf.nents;
	return 0;
}

u8 *bench_mem_byte(struct bench_mem *m, size_t i)
{
	if (m->page)
		return (u8 *)page_address(m->page) + i;
	return mrcore_e2e_buf_byte(&m->buf, i);
}

/* ---- one QP: its pair, the peer's memory, the pool -------------------- */

static void bench_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_slot *s = container_of(wc->wr_cqe, struct bench_slot, cqe);
	struct bench_qp *q = s->q;
	unsigned long flags;
	bool wake;

	s->status = wc->status;
	if (wc->status == IB_WC_SUCCESS)
		bench_window_count(q, ktime_get_ns());
	spin_lock_irqsave(&q->lock, flags);
	list_add_tail(&s->entry, &q->done);
	wake = ++q->nr_done >= q->wake_at;
	spin_unlock_irqrestore(&q->lock, flags);
	if (wake)
		wake_up(&q->win->wq);
}

/* Register the peer's MR with remote READ and WRITE: one REG_MR, waited. */
static int bench_owner_register(struct bench_qp *q)
{
	struct mrcore_e2e_side *side = &q->pair->passive;
	struct ib_reg_wr reg;
	struct mrcore_e2e_wait *w;
	int ret;

	/* Not on the stack: a timed-out WR is flushed into it later. */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mrcore_e2e_wait_init(w);
	mrcore_e2e_reg_wr(&reg, q->owner_mr, w);
	ret = mrcore_e2e_post(side, &reg.wr, w, BENCH_TIMEOUT_MS);
	kfree(w);
	if (ret)
		return ret < 0 ? ret : -EIO;
	return 0;
}

/* The peer exposes 1 MiB under one rkey with remote READ and WRITE. */
static int bench_owner_create(struct bench_qp *q)
{
	struct mrcore_e2e_side *side = &q->pair->passive;
	int ret;

	q->owner_page = alloc_pages(GFP_KERNEL, BENCH_OWNER_ORDER);
	if (!q->owner_page)
		return -ENOMEM;
	sg_init_one(&q->owner_sg, page_address(q->owner_page),
		    BENCH_OWNER_BYTES);
	if (ib_dma_map_sg(side->device, &q->owner_sg, 1,
			  DMA_BIDIRECTIONAL) != 1) {
		ret = -ENOMEM;
		goto free_pages;
	}
	q->owner_mr = ib_alloc_mr(side->pd, IB_MR_TYPE_MEM_REG,
				  BENCH_OWNER_BYTES / PAGE_SIZE);
	if (IS_ERR(q->owner_mr)) {
		ret = PTR_ERR(q->owner_mr);
		goto unmap;
	}
	ret = ib_map_mr_sg(q->owner_mr, &q->owner_sg, 1, NULL, PAGE_SIZE);
	if (ret != 1) {
		ret = ret < 0 ? ret : -EINVAL;
		goto dereg;
	}
	ret = bench_owner_register(q);
	if (ret)
		goto dereg;
	q->rkey = q->owner_mr->rkey;
	q->iova = q->owner_mr->iova;
	return 0;

dereg:
	ib_dereg_mr(q->owner_mr);
unmap:
	ib_dma_unmap_sg(side->device, &q->owner_sg, 1, DMA_BIDIRECTIONAL);
free_pages:
	__free_pages(q->owner_page, BENCH_OWNER_ORDER);
	q->owner_mr = NULL;
	q->owner_page = NULL;
	return ret;
}

/* Deregistration kills the owner's key; the pair goes right after. */
static void bench_owner_destroy(struct bench_qp *q)
{
	if (!q->owner_mr)
		return;
	ib_dereg_mr(q->owner_mr);
	ib_dma_unmap_sg(q->pair->passive.device, &q->owner_sg, 1,
			DMA_BIDIRECTIONAL);
	__free_pages(q->owner_page, BENCH_OWNER_ORDER);
	q->owner_mr = NULL;
	q->owner_page = NULL;
}

void bench_qp_destroy(struct bench_qp *q)
{
	if (!q->pair)
		return;
	if (q->pool)
		rdma_io_pool_destroy(q->pool);
	q->pool = NULL;
	bench_owner_destroy(q);
	mrcore_e2e_pair_destroy(q->pair);
	q->pair = NULL;
	kfree(q->slots);
	q->slots = NULL;
}

/* The QP's lock, lists and slots, before it has a pair. */
static int bench_qp_init(struct bench_qp *q)
{
	unsigned int i;

	memset(q, 0, sizeof(*q));
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->done);
	q->slots = kcalloc(BENCH_MAX_QD, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots)
		return -ENOMEM;
	for (i = 0; i < BENCH_MAX_QD; i++) {
		q->slots[i].q = q;
		q->slots[i].cqe.done = bench_done;
	}
	return 0;
}

/*
 * Both implementations get what they need on the same QP: send queue room
 * for %BENCH_MAX_QD I/Os of the longest chain, SGEs up to the device's
 * limit (the READ/WRITE SGE limits of both are the QP's), ib_core's MR pool
 * for %BENCH_MAX_QD R/W contexts and an rdma-mrcore pool for as many I/Os.
 */
int bench_qp_create(struct bench_qp *q, const struct mrcore_e2e_target *t)
{
	static const struct mrcore_e2e_caps caps = {
		.max_send_wr = BENCH_SQ_DEPTH,
		.max_send_sge = 32,
		.max_rdma_ctxs = BENCH_MAX_QD,
		.rd_atom = BENCH_RD_ATOM,
	};
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;
	int ret;

	ret = bench_qp_init(q);
	if (ret)
		return ret;
	ret = mrcore_e2e_pair_create_caps(t, &caps, &q->pair);
	if (ret) {
		q->pair = NULL;
		kfree(q->slots);
		q->slots = NULL;
		return ret;
	}
	q->port = q->pair->active.cm_id->port_num;
	ret = ib_query_qp(q->pair->active.qp, &attr, IB_QP_CAP, &init_attr);
	if (ret)
		goto err;
	q->sq_size = init_attr.cap.max_send_wr;
	ret = bench_owner_create(q);
	if (ret)
		goto err;
	q->pool = rdma_io_pool_create(q->pair->active.qp, q->port,
				      BENCH_MAX_QD, BENCH_MAX_PAGES);
	if (IS_ERR(q->pool)) {
		ret = PTR_ERR(q->pool);
		q->pool = NULL;
		goto err;
	}
	return 0;

err:
	bench_qp_destroy(q);
	return ret;
}
