// SPDX-License-Identifier: GPL-2.0-only
/*
 * `make demo`: move data between two connected QPs on every soft-RDMA device
 * kind of the test kernel (siw = iWARP, rxe = RoCEv2) with rdma-mrcore, and
 * print one table row per transfer.
 *
 * For each transfer the owner exposes its memory with rdma_map_sg_rkey()
 * (REG_MR chained and posted by the core), the peer maps its own buffer with
 * rdma_map_sg_lkey() and posts the core's chain ending in its RDMA READ or
 * WRITE, the owner then invalidates its key with rdma_invalidate_mr(), and
 * the data is compared byte for byte.  Rows are printed with the prefix
 * "mrcore_demo: row:" for scripts/demo.sh.
 */

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "demo_ulp.h"
#include "mrcore_harness.h"

#define DEMO_TIMEOUT_MS	60000

static unsigned int max_kib = 64;
module_param(max_kib, uint, 0444);
MODULE_PARM_DESC(max_kib, "largest transfer in KiB (default 64)");

/**
 * struct demo_row - one transfer
 * @target: device kind.
 * @opcode: %IB_WR_RDMA_READ or %IB_WR_RDMA_WRITE.
 * @len: bytes moved.
 * @dev_name: device of the peer (the end posting the READ/WRITE).
 * @force: for a transfer through the READ/WRITE helper, the backend forced
 *	on its pool, or %NULL for the cost model's choice.
 * @helper: the peer moves the data with rdma_io_ctx_*() (else with its own
 *	rdma_map_sg_lkey() mapping and one RDMA WR).
 * @npages: pages of the peer's memory, one scatterlist entry each.
 * @backend: backend that mapped the peer's memory.
 * @wrs: work requests posted on both ends for the transfer.
 * @mrs: MRs the transfer used on both ends.
 * @usec: time from the owner's registration to the end of its invalidation.
 * @err: 0, or the errno/completion status that stopped the transfer.
 * @verified: every byte arrived.
 */
struct demo_row {
	const struct mrcore_e2e_target *target;
	enum ib_wr_opcode opcode;
	size_t len;
	const char *force;
	bool helper;
	unsigned int npages;
	char dev_name[IB_DEVICE_NAME_MAX];
	const char *backend;
	unsigned int wrs;
	unsigned int mrs;
	s64 usec;
	int err;
	bool verified;
};

static unsigned int demo_chain_len(const struct ib_send_wr *wr)
{
	unsigned int n = 0;

	for (; wr; wr = wr->next)
		n++;
	return n;
}

/* Post @first on @side, wait for @w; count the WRs into *@wrs. */
static int demo_post(struct mrcore_e2e_side *side, struct ib_send_wr *first,
		     struct mrcore_e2e_wait *w, unsigned int *wrs)
{
	int ret;

	*wrs += demo_chain_len(first);
	ret = mrcore_e2e_post(side, first, w, DEMO_TIMEOUT_MS);
	return ret > 0 ? -EIO : ret;
}

/* The owner exposes its memory to the peer: REG_MR, signaled, waited for. */
static int demo_owner_expose(struct mrcore_e2e_pair *pair, struct demo_row *row,
			     struct rdma_mr *omr, struct mrcore_e2e_buf *owner,
			     struct mrcore_e2e_wait *reg, u32 *rkey, u64 *iova)
{
	struct ib_send_wr *first = NULL;
	int ret;

	mrcore_e2e_wait_init(reg);
	rdma_mr_set_cqe(omr, &reg->cqe);
	ret = rdma_map_sg_rkey(rkey, iova, omr, owner->sg, owner->nents,
			       row->opcode == IB_WR_RDMA_READ ?
			       RDMA_MR_REMOTE_READ : RDMA_MR_REMOTE_WRITE,
			       &first);
	if (ret)
		return ret;
	return demo_post(&pair->passive, first, reg, &row->wrs);
}

/* The owner's key dies before it looks at the data. */
static int demo_owner_retire(struct mrcore_e2e_pair *pair, struct demo_row *row,
			     struct rdma_mr *omr, struct mrcore_e2e_wait *reg)
{
	struct ib_send_wr *first = NULL;
	int ret;

	mrcore_e2e_wait_init(reg);
	ret = rdma_invalidate_mr(omr, &first);
	if (ret)
		return ret;
	ret = demo_post(&pair->passive, first, reg, &row->wrs);
	if (ret)
		return ret;
	return rdma_unmap_mr(omr);
}

static int demo_transfer(struct mrcore_e2e_pair *pair, struct demo_row *row,
			 struct mrcore_e2e_buf *owner,
			 struct mrcore_e2e_buf *peer,
			 struct mrcore_e2e_wait *reg,
			 struct mrcore_e2e_wait *io)
{
	bool is_read = row->opcode == IB_WR_RDMA_READ;
	struct rdma_mr *omr, *pmr;
	struct ib_send_wr *first;
	struct ib_rdma_wr rdma_wr;
	struct ib_sge sge;
	u32 rkey, lkey;
	u64 iova;
	int ret;

	omr = rdma_create_mr(pair->passive.pd, owner->npages,
			     RDMA_MR_ROLE_RKEY);
	if (IS_ERR(omr))
		return PTR_ERR(omr);
	pmr = rdma_create_mr(pair->active.pd, peer->npages, RDMA_MR_ROLE_LKEY);
	if (IS_ERR(pmr)) {
		ret = PTR_ERR(pmr);
		goto out_omr;
	}
	row->backend = pmr->ops ? pmr->ops->name : "?";
	row->mrs = 2;

	ret = demo_owner_expose(pair, row, omr, owner, reg, &rkey, &iova);
	if (ret)
		goto out_pmr;

	/* The peer moves the data through its own mapping. */
	mrcore_e2e_wait_init(io);
	mrcore_e2e_rdma_wr(&rdma_wr, row->opcode, &sge, iova, rkey, io);
	first = &rdma_wr.wr;
	ret = rdma_map_sg_lkey(&lkey, pmr, peer->sg, peer->nents,
			       is_read ? RDMA_MR_LOCAL_READ_SINK :
					 RDMA_MR_LOCAL_WRITE_SRC, &first);
	if (ret)
		goto out_pmr;
	sge.addr = mrcore_e2e_buf_dma_addr(peer);
	sge.length = row->len;
	sge.lkey = lkey;
	ret = demo_post(&pair->active, first, io, &row->wrs);
	if (ret)
		goto out_pmr;
	/* An iWARP READ sink is remotely writable: its key dies now. */
	if (is_read && rdma_protocol_iwarp(pair->active.device, 1)) {
		mrcore_e2e_wait_init(io);
		rdma_mr_set_cqe(pmr, &io->cqe);
		first = NULL;
		ret = rdma_invalidate_mr(pmr, &first);
		if (ret)
			goto out_pmr;
		ret = demo_post(&pair->active, first, io, &row->wrs);
		if (ret)
			goto out_pmr;
	}
	ret = rdma_unmap_mr(pmr);
	if (ret)
		goto out_pmr;
	ret = demo_owner_retire(pair, row, omr, reg);

out_pmr:
	rdma_destroy_mr(pmr);
out_omr:
	rdma_destroy_mr(omr);
	return ret;
}

/*
 * The same exchange, but the peer moves the data with the READ/WRITE helper
 * from a pool on its QP: the backend is the cost model's (or forced), and
 * the WR and MR counts are the helper's own.
 */
static int demo_helper_transfer(struct mrcore_e2e_pair *pair,
				struct demo_row *row,
				struct mrcore_e2e_buf *owner,
				struct mrcore_e2e_buf *peer,
				struct mrcore_e2e_wait *reg,
				struct mrcore_e2e_wait *io)
{
	bool is_read = row->opcode == IB_WR_RDMA_READ;
	struct ib_wc wc = {};
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx;
	struct rdma_mr *omr;
	int ret, status;
	u32 rkey;
	u64 iova;

	omr = rdma_create_mr(pair->passive.pd, owner->npages,
			     RDMA_MR_ROLE_RKEY);
	if (IS_ERR(omr))
		return PTR_ERR(omr);
	ret = demo_owner_expose(pair, row, omr, owner, reg, &rkey, &iova);
	if (ret)
		goto out_omr;
	row->mrs = 1;

	pool = rdma_io_pool_create(pair->active.qp, pair->active.cm_id->port_num,
				   1, peer->npages);
	if (IS_ERR(pool)) {
		ret = PTR_ERR(pool);
		goto out_omr;
	}
	ret = rdma_io_pool_force_backend(pool, row->force);
	if (ret)
		goto out_pool;
	ret = rdma_io_ctx_init(&ctx, pool, peer->sg, peer->nents, 0, iova, rkey,
			       is_read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret < 0)
		goto out_pool;
	row->backend = rdma_io_ctx_backend(&ctx);
	row->wrs += ret;
	row->mrs += ctx.nr_mrs;
	mrcore_e2e_wait_init(io);
	ret = rdma_io_ctx_post(&ctx, &io->cqe, NULL);
	if (ret) {
		rdma_io_ctx_destroy(&ctx, NULL);
		goto out_pool;
	}
	status = mrcore_e2e_wait_done(&pair->active, io, DEMO_TIMEOUT_MS);
	wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
	rdma_io_ctx_destroy(&ctx, status < 0 ? NULL : &wc);
	ret = status > 0 ? -EIO : status;
	if (ret)
		goto out_pool;
	ret = demo_owner_retire(pair, row, omr, reg);
out_pool:
	rdma_io_pool_destroy(pool);
out_omr:
	rdma_destroy_mr(omr);
	return ret;
}

static void demo_run(struct demo_row *row)
{
	struct mrcore_e2e_buf owner, peer;
	struct mrcore_e2e_wait *waits;
	struct mrcore_e2e_pair *pair;
	bool is_read = row->opcode == IB_WR_RDMA_READ;
	ktime_t start;
	int ret;

	row->backend = "-";
	/* Completion entries must outlive the pair's drain: not on stack. */
	waits = kcalloc(2, sizeof(*waits), GFP_KERNEL);
	if (!waits) {
		row->err = -ENOMEM;
		return;
	}
	ret = mrcore_e2e_pair_create(row->target, &pair);
	if (ret) {
		row->err = ret;
		goto out_waits;
	}
	strscpy(row->dev_name, dev_name(&pair->active.device->dev),
		sizeof(row->dev_name));
	ret = mrcore_e2e_buf_alloc(&owner, row->len, 0);
	if (ret)
		goto out_pair;
	ret = mrcore_e2e_buf_alloc(&peer, row->len, 0);
	if (ret)
		goto out_owner;
	row->npages = peer.npages;
	if (is_read) {
		mrcore_e2e_buf_fill(&owner, row->len);
		mrcore_e2e_buf_memset(&peer, 0);
	} else {
		mrcore_e2e_buf_memset(&owner, 0);
		mrcore_e2e_buf_fill(&peer, row->len);
	}

	start = ktime_get();
	if (row->helper)
		ret = demo_helper_transfer(pair, row, &owner, &peer, &waits[0],
					   &waits[1]);
	else
		ret = demo_transfer(pair, row, &owner, &peer, &waits[0],
				    &waits[1]);
	row->usec = ktime_us_delta(ktime_get(), start);
	if (!ret)
		row->verified = mrcore_e2e_buf_check(is_read ? &peer : &owner,
						     row->len) < 0;

	mrcore_e2e_buf_free(&peer);
out_owner:
	mrcore_e2e_buf_free(&owner);
out_pair:
	row->err = ret;
	mrcore_e2e_pair_destroy(pair);
out_waits:
	kfree(waits);
}

static const char *demo_transport(const struct mrcore_e2e_target *t)
{
	return t->driver_id == RDMA_DRIVER_SIW ? "iWARP" : "RoCEv2";
}

/* Run one row and print it; return 1 if it failed. */
static unsigned int demo_one(struct demo_row *row)
{
	const char *op = row->opcode == IB_WR_RDMA_READ ? "READ" : "WRITE";

	demo_run(row);
	pr_info("mrcore_demo: row: %s|%s|%s %s%s|%s%s|%zu|%u|%u|%lld|%s\n",
		row->dev_name[0] ? row->dev_name : row->target->name,
		demo_transport(row->target), row->helper ? "helper" : "RDMA",
		op, row->helper && row->npages > 1 ? " (scattered)" : "",
		row->backend, row->force ? " (forced)" : "", row->len, row->wrs,
		row->mrs, row->usec,
		row->err ? "error" : row->verified ? "yes" : "NO");
	if (row->err)
		pr_err("mrcore_demo: %s %s: error %d\n", row->target->name, op,
		       row->err);
	return row->err || !row->verified;
}

/**
 * struct demo_helper_row - a transfer through the READ/WRITE helper
 * @iwarp: runs on siw (else on rxe).
 * @opcode: READ or WRITE.
 * @len: bytes, in separate pages.
 * @force: backend forced, or %NULL for the cost model's choice.
 */
struct demo_helper_row {
	bool iwarp;
	enum ib_wr_opcode opcode;
	size_t len;
	const char *force;
};

static const struct demo_helper_row demo_helper_rows[] = {
	/* siw: temporary sink MRs, short READs too; WRITE sources */
	{ true, IB_WR_RDMA_READ, 4096, NULL },
	{ true, IB_WR_RDMA_READ, 256 * 1024, NULL },
	{ true, IB_WR_RDMA_WRITE, 256 * 1024, NULL },
	{ true, IB_WR_RDMA_WRITE, 16 * 1024, NULL },
	/* rxe: READs without MRs; registered page lists; each forced */
	{ false, IB_WR_RDMA_READ, 16 * 1024, NULL },
	{ false, IB_WR_RDMA_READ, 1024 * 1024, NULL },
	{ false, IB_WR_RDMA_WRITE, 128 * 1024, NULL },
	{ false, IB_WR_RDMA_WRITE, 16 * 1024, "frwr" },
	{ false, IB_WR_RDMA_WRITE, 64 * 1024, "multiread" },
};

static int __init mrcore_demo_init(void)
{
	static const struct mrcore_e2e_target *targets[] = {
		&mrcore_e2e_siw, &mrcore_e2e_rxe,
	};
	static const enum ib_wr_opcode ops[] = {
		IB_WR_RDMA_READ, IB_WR_RDMA_WRITE,
	};
	size_t sizes[] = { 4096, (size_t)max_kib * 1024 };
	unsigned int t, o, s, failed = 0;
	struct demo_row row;

	pr_info("mrcore_demo: header: device|transport|operation|backend|bytes|WRs|MRs|usec|verified\n");
	for (t = 0; t < ARRAY_SIZE(targets); t++) {
		if (!mrcore_e2e_device_present(targets[t], NULL, 0)) {
			pr_err("mrcore_demo: no %s device\n", targets[t]->name);
			failed++;
			continue;
		}
		for (o = 0; o < ARRAY_SIZE(ops); o++) {
			for (s = 0; s < ARRAY_SIZE(sizes); s++) {
				memset(&row, 0, sizeof(row));
				row.target = targets[t];
				row.opcode = ops[o];
				row.len = sizes[s];
				failed += demo_one(&row);
			}
		}
		/* Every backend of the helper on the device that uses it. */
		for (s = 0; s < ARRAY_SIZE(demo_helper_rows); s++) {
			const struct demo_helper_row *h = &demo_helper_rows[s];

			bool on_siw = targets[t] == &mrcore_e2e_siw;

			if (h->iwarp != on_siw)
				continue;
			memset(&row, 0, sizeof(row));
			row.target = targets[t];
			row.opcode = h->opcode;
			row.len = h->len;
			row.force = h->force;
			row.helper = true;
			failed += demo_one(&row);
		}
		/* NFS-style and iSER-style exchanges through the adapters. */
		failed += demo_ulp_run(targets[t], demo_transport(targets[t]));
	}
	pr_info("mrcore_demo: done: %u failed\n", failed);
	return 0;
}

static void __exit mrcore_demo_exit(void)
{
}

module_init(mrcore_demo_init);
module_exit(mrcore_demo_exit);

MODULE_DESCRIPTION("rdma-mrcore demo: READ and WRITE on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
