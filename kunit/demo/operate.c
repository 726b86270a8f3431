// SPDX-License-Identifier: GPL-2.0-only
/*
 * The worked cases of Documentation/operating.rst.  The guest's operate
 * mode (scripts/guest-init.sh, run by scripts/operating.sh) loads this
 * module once per case and captures the debugfs counters, the trace and
 * the kernel messages around each load:
 *
 *   scene=ok     a 256 KiB READ on rxe that succeeds
 *   scene=dry    on siw, a pool with the MRs of one I/O, and more I/Os
 *                while the first holds them: a READ is refused (-EAGAIN,
 *                an iWARP READ sink needs an MR), a WRITE falls back to a
 *                plan without MRs
 *   scene=flush  a READ posted on an rxe QP in the error state: flushed
 *   scene=error  a READ on rxe with a key the peer has invalidated: a
 *                remote access error; the fault point mr_alloc is armed,
 *                so the pool cannot replace the failed I/O's MRs and shrinks
 *
 * The module stays loaded (0 from init) unless the case could not be set
 * up; each case prints "mrcore_operate: <scene>: ..." lines.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "mrcore_harness.h"

#define OP_TIMEOUT_MS	30000
#define OP_BYTES	(256 * 1024)
#define OP_PAGES	(OP_BYTES / PAGE_SIZE)

static char *scene = "ok";
module_param(scene, charp, 0444);
MODULE_PARM_DESC(scene, "the case to run: ok, dry, flush, error");

/**
 * struct op_run - one connection with an exposed buffer and a local one
 * @pair: the RC pair; the passive end owns @owner, the active end does I/O.
 * @owner: the passive end's buffer.
 * @local: the active end's buffer.
 * @mr: the owner's MR.
 * @rkey: its key.
 * @iova: its address.
 * @pool: the active end's pool.
 */
struct op_run {
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_buf owner, local;
	struct rdma_mr *mr;
	u32 rkey;
	u64 iova;
	struct rdma_io_pool *pool;
};

/* The owner's map API call and its REG_MR, or its LOCAL_INV. */
static int op_owner_post(struct op_run *r, bool expose)
{
	struct ib_send_wr *first = NULL;
	struct mrcore_e2e_wait w;
	int ret;

	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(r->mr, &w.cqe);
	if (expose)
		ret = rdma_map_sg_rkey(&r->rkey, &r->iova, r->mr, r->owner.sg,
				       r->owner.nents,
				       RDMA_MR_REMOTE_READ | RDMA_MR_REMOTE_WRITE,
				       &first);
	else
		ret = rdma_invalidate_mr(r->mr, &first);
	if (!ret && first)
		ret = mrcore_e2e_post(&r->pair->passive, first, &w,
				      OP_TIMEOUT_MS);
	rdma_mr_set_cqe(r->mr, NULL);
	return ret;
}

static void op_release(struct op_run *r)
{
	if (r->pool && !IS_ERR(r->pool))
		rdma_io_pool_destroy(r->pool);
	if (r->mr && !IS_ERR(r->mr)) {
		if (!rdma_mr_reset(r->mr))
			rdma_destroy_mr(r->mr);
	}
	if (r->pair)
		mrcore_e2e_pair_destroy(r->pair);
	mrcore_e2e_buf_free(&r->owner);
	mrcore_e2e_buf_free(&r->local);
}

/* Connect on @target, expose the owner's buffer, a pool of @ctxs I/Os. */
static int op_setup(struct op_run *r, const struct mrcore_e2e_target *target,
		    u32 ctxs)
{
	struct mrcore_e2e_side *act;
	int ret;

	ret = mrcore_e2e_pair_create(target, &r->pair);
	if (ret)
		return ret;
	act = &r->pair->active;
	ret = mrcore_e2e_buf_alloc(&r->owner, OP_BYTES, 0);
	if (!ret)
		ret = mrcore_e2e_buf_alloc(&r->local, OP_BYTES, 0);
	if (ret)
		return ret;
	r->mr = rdma_create_mr(r->pair->passive.pd, r->owner.nents,
			       RDMA_MR_ROLE_RKEY);
	if (IS_ERR(r->mr))
		return PTR_ERR(r->mr);
	ret = op_owner_post(r, true);
	if (ret)
		return ret;
	r->pool = rdma_io_pool_create(act->qp, act->cm_id->port_num, ctxs,
				      OP_PAGES);
	if (IS_ERR(r->pool))
		return PTR_ERR(r->pool);
	pr_info("mrcore_operate: %s: %s QP %u READs from %s QP %u (rkey 0x%08x)\n",
		scene, dev_name(&act->device->dev), act->qp->qp_num,
		dev_name(&r->pair->passive.device->dev),
		r->pair->passive.qp->qp_num, r->rkey);
	return 0;
}

/* One READ (or WRITE) of the local buffer from (to) the owner's. */
static int op_io(struct op_run *r, struct rdma_io_ctx *ctx,
		 enum dma_data_direction dir, bool post)
{
	struct mrcore_e2e_wait w;
	struct ib_wc wc = {};
	int ret;

	ret = rdma_io_ctx_init(ctx, r->pool, r->local.sg, r->local.nents, 0,
			       r->iova, r->rkey, dir);
	pr_info("mrcore_operate: %s: rdma_io_ctx_init(%s) = %d\n", scene,
		dir == DMA_FROM_DEVICE ? "READ" : "WRITE", ret);
	if (ret < 0 || !post)
		return ret;
	mrcore_e2e_wait_init(&w);
	ret = rdma_io_ctx_post(ctx, &w.cqe, NULL);
	if (ret) {
		pr_info("mrcore_operate: %s: rdma_io_ctx_post() = %d\n", scene,
			ret);
		if (ret == -EINPROGRESS)
			ib_drain_sq(r->pair->active.qp);
		rdma_io_ctx_destroy(ctx, NULL);
		return ret;
	}
	ret = mrcore_e2e_wait_done(&r->pair->active, &w, OP_TIMEOUT_MS);
	wc.status = w.status;
	wc.wr_cqe = &w.cqe;
	pr_info("mrcore_operate: %s: completion %s\n", scene,
		ret < 0 ? "timed out" : ib_wc_status_msg(w.status));
	rdma_io_ctx_destroy(ctx, ret < 0 ? NULL : &wc);
	return ret;
}

static int op_ok(struct op_run *r, struct rdma_io_ctx *ctx)
{
	int ret = op_setup(r, &mrcore_e2e_rxe, 1);

	return ret ? ret : op_io(r, ctx, DMA_FROM_DEVICE, true);
}

/* More I/Os than the pool is for, on siw: the first is built, not posted. */
static int op_dry(struct op_run *r, struct rdma_io_ctx *ctx)
{
	int ret = op_setup(r, &mrcore_e2e_siw, 1);

	if (!ret)
		ret = op_io(r, &ctx[0], DMA_FROM_DEVICE, false);
	if (ret < 0)
		return ret;
	/* The first holds the pool's MRs: a READ cannot do without one. */
	if (op_io(r, &ctx[1], DMA_FROM_DEVICE, false) >= 0)
		rdma_io_ctx_destroy(&ctx[1], NULL);
	/* A WRITE can: it goes out on the local DMA lkey. */
	if (op_io(r, &ctx[1], DMA_TO_DEVICE, true) < 0)
		pr_info("mrcore_operate: %s: the WRITE failed\n", scene);
	rdma_io_ctx_destroy(&ctx[0], NULL);
	return 0;
}

static int op_flush(struct op_run *r, struct rdma_io_ctx *ctx)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = op_setup(r, &mrcore_e2e_rxe, 1);

	if (!ret)
		ret = rdma_io_pool_force_backend(r->pool, "frwr");
	if (!ret)
		ret = ib_modify_qp(r->pair->active.qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	pr_info("mrcore_operate: %s: QP %u moved to the error state\n", scene,
		r->pair->active.qp->qp_num);
	op_io(r, ctx, DMA_FROM_DEVICE, true);
	return 0;
}

static int op_error(struct op_run *r, struct rdma_io_ctx *ctx)
{
	int ret = op_setup(r, &mrcore_e2e_rxe, 1);

	if (!ret)
		ret = rdma_io_pool_force_backend(r->pool, "frwr");
	if (!ret)
		ret = op_owner_post(r, false);	/* the owner kills its key */
	if (ret)
		return ret;
	rdma_unmap_mr(r->mr);
	pr_info("mrcore_operate: %s: the owner invalidated rkey 0x%08x; READing with it\n",
		scene, r->rkey);
	ret = rdma_mrcore_fault_arm("mr_alloc", 0, 16);
	if (ret)
		return ret;
	op_io(r, ctx, DMA_FROM_DEVICE, true);
	/* Recycling runs in a work item: the pool's destroy waits for it. */
	rdma_io_pool_destroy(r->pool);
	r->pool = NULL;
	rdma_mrcore_fault_arm("mr_alloc", 0, 0);
	return 0;
}

static int __init mrcore_operate_init(void)
{
	struct rdma_io_ctx *ctx;
	struct op_run *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	ctx = kcalloc(2, sizeof(*ctx), GFP_KERNEL);
	if (!r || !ctx) {
		ret = -ENOMEM;
		goto out;
	}
	if (!strcmp(scene, "ok"))
		ret = op_ok(r, ctx);
	else if (!strcmp(scene, "dry"))
		ret = op_dry(r, ctx);
	else if (!strcmp(scene, "flush"))
		ret = op_flush(r, ctx);
	else if (!strcmp(scene, "error"))
		ret = op_error(r, ctx);
	else
		ret = -EINVAL;
	pr_info("mrcore_operate: %s: done (%d)\n", scene, ret);
	op_release(r);
out:
	kfree(ctx);
	kfree(r);
	return ret < 0 ? ret : 0;
}

static void __exit mrcore_operate_exit(void)
{
}

module_init(mrcore_operate_init);
module_exit(mrcore_operate_exit);

MODULE_DESCRIPTION("rdma-mrcore: the worked cases of the operating guide");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
