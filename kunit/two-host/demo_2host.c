// SPDX-License-Identifier: GPL-2.0-only
/*
 * `make demo`, its two-host part (mrcore_2host_demo.ko): the initiator
 * guest moves data to and from the peer guest over the virtio-net wire, on
 * rxe and on siw, and prints one row per transfer, with the prefix
 * "mrcore_demo_2host: row:" for scripts/demo.sh.
 *
 * The peer (mrcore_2host_peer.ko, protocol in peer_2host.h) owns the remote
 * memory: it EXPOSEs a buffer with rdma_map_sg_rkey(), holding a pattern for
 * a READ or poison for a WRITE.  This kernel moves the data, either through
 * its own rdma_map_sg_lkey() mapping and one RDMA WR ("map"), or with the
 * READ/WRITE helper, rdma_io_ctx_*() ("helper").  Both kernels then check
 * their memory byte for byte against the row's pattern (its own seed, a
 * function of every byte's position), with the bytes around it, and the
 * peer INVALIDATEs its key and FREEs the buffer.
 *
 * It uses the connections of mrcore_2host.ko (client_2host.c), which the
 * guest loads first with no KUnit suite selected (scripts/guest-init.sh,
 * mode demo2host).
 */

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "client_2host.h"

/* An I/O across two TCG guests on shared cores (io_2host_common.c). */
#define DEMO_2HOST_IO_MS	180000
#define DEMO_2HOST_SEED		0x2d3e0000u

static unsigned int kib = 64;
module_param(kib, uint, 0444);
MODULE_PARM_DESC(kib, "bytes of each transfer, in KiB (default 64)");

/**
 * struct demo_2host_row - one transfer across the wire
 * @t: the device kind, seen from this guest (mrcore_2host_rxe or _siw).
 * @helper: moved with rdma_io_ctx_*() (else a rdma_map_sg_lkey() mapping).
 * @read: RDMA READ from the peer (else RDMA WRITE to it).
 * @seed: the pattern of the bytes moved.
 * @dev_name: the device this kernel used.
 * @backend: the backend that mapped this kernel's memory.
 * @wrs: work requests this kernel posted for the data.
 * @usec: from the peer's EXPOSE to its INVALIDATE.
 * @err: 0, or the errno or completion status that stopped the transfer.
 * @verified: every byte arrived, in both kernels' checks.
 */
struct demo_2host_row {
	const struct mrcore_e2e_target *t;
	bool helper;
	bool read;
	u32 seed;
	char dev_name[IB_DEVICE_NAME_MAX];
	const char *backend;
	unsigned int wrs;
	s64 usec;
	int err;
	bool verified;
};

/* One request to the peer; a positive completion status becomes -EIO. */
static int demo_2host_call(struct peer_link *l, struct mrcore_peer_req *r)
{
	int ret = peer_call(l, r);

	return ret > 0 ? -EIO : ret;
}

static unsigned int demo_2host_chain_len(const struct ib_send_wr *wr)
{
	unsigned int n = 0;

	for (; wr; wr = wr->next)
		n++;
	return n;
}

/* Post @first on @l, wait for @w; count the WRs into @row. */
static int demo_2host_post(struct peer_link *l, struct demo_2host_row *row,
			   struct ib_send_wr *first, struct mrcore_e2e_wait *w)
{
	int ret;

	row->wrs += demo_2host_chain_len(first);
	ret = mrcore_e2e_post(l->side, first, w, DEMO_2HOST_IO_MS);
	return ret > 0 ? -EIO : ret;
}

/* The data through this kernel's own lkey mapping and one RDMA WR. */
static int demo_2host_map(struct peer_link *l, struct demo_2host_row *row,
			  struct mrcore_e2e_buf *buf, u64 addr, u32 key)
{
	struct mrcore_e2e_side *side = l->side;
	struct mrcore_e2e_wait *w;
	struct ib_send_wr *first;
	struct ib_rdma_wr rdma_wr;
	struct rdma_mr *mr;
	struct ib_sge sge;
	u32 lkey;
	int ret;

	/* Completion entries must outlive a drain: not on the stack. */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mr = rdma_create_mr(side->pd, buf->npages, RDMA_MR_ROLE_LKEY);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto out_w;
	}
	row->backend = mr->ops ? mr->ops->name : "?";
	mrcore_e2e_wait_init(w);
	mrcore_e2e_rdma_wr(&rdma_wr, row->read ? IB_WR_RDMA_READ :
			   IB_WR_RDMA_WRITE, &sge, addr, key, w);
	first = &rdma_wr.wr;
	ret = rdma_map_sg_lkey(&lkey, mr, buf->sg, buf->nents,
			       row->read ? RDMA_MR_LOCAL_READ_SINK :
					   RDMA_MR_LOCAL_WRITE_SRC, &first);
	if (ret)
		goto out_mr;
	sge.addr = mrcore_e2e_buf_dma_addr(buf);
	sge.length = buf->len;
	sge.lkey = lkey;
	ret = demo_2host_post(l, row, first, w);
	if (ret)
		goto out_mr;
	/* An iWARP READ sink is remotely writable: its key dies now. */
	if (row->read && rdma_protocol_iwarp(side->device, 1)) {
		mrcore_e2e_wait_init(w);
		rdma_mr_set_cqe(mr, &w->cqe);
		first = NULL;
		ret = rdma_invalidate_mr(mr, &first);
		if (!ret)
			ret = demo_2host_post(l, row, first, w);
		if (ret)
			goto out_mr;
	}
	ret = rdma_unmap_mr(mr);
out_mr:
	rdma_destroy_mr(mr);
out_w:
	kfree(w);
	return ret;
}

/* The data through the READ/WRITE helper, from a pool on the QP. */
static int demo_2host_helper(struct peer_link *l, struct demo_2host_row *row,
			     struct mrcore_e2e_buf *buf, u64 addr, u32 key)
{
	struct mrcore_e2e_side *side = l->side;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx;
	int ret;

	pool = rdma_io_pool_create(side->qp, side->cm_id->port_num, 1,
				   buf->npages);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	ret = rdma_io_ctx_init(&ctx, pool, buf->sg, buf->nents, 0, addr, key,
			       row->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret < 0)
		goto out;
	row->backend = rdma_io_ctx_backend(&ctx);
	row->wrs = ret;
	ret = mrcore_e2e_io_run(side, &ctx, rdma_io_ctx_destroy,
				DEMO_2HOST_IO_MS);
	if (ret > 0)
		ret = -EIO;
out:
	rdma_io_pool_destroy(pool);
	return ret;
}

/* Both kernels check their bytes; then the peer's key dies. */
static int demo_2host_check(struct peer_link *l, struct demo_2host_row *row,
			    struct mrcore_e2e_buf *buf, u32 id)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_VERIFY,
		/* An iWARP WRITE completes here before it is placed there. */
		.flags = row->read ? 0 : MRCORE_PEER_F_WAIT,
		.id = id,
		.len = buf->len,
		.seed = row->seed,
	};
	struct mrcore_e2e_diff d;
	bool local;
	int ret;

	local = mrcore_e2e_buf_verify(buf, 0, buf->len, row->seed, &d);
	if (!local)
		pr_err("mrcore_demo_2host: %s %s: %llu wrong bytes here, the first at %lld (%s): 0x%02x, want 0x%02x\n",
		       row->dev_name, row->read ? "READ sink" : "WRITE source",
		       d.bad, d.pos, d.what, d.got, d.want);
	ret = demo_2host_call(l, &r);
	if (ret)
		return ret;
	if (r.value)
		pr_err("mrcore_demo_2host: %s %s: %llu wrong bytes on the peer, the first at %lld: 0x%02x, want 0x%02x\n",
		       row->dev_name, row->read ? "READ source" : "WRITE sink",
		       r.value, (s64)r.addr, (r.key >> 8) & 0xff, r.key & 0xff);
	row->verified = local && !r.value;

	memset(&r, 0, sizeof(r));
	r.op = MRCORE_PEER_INVALIDATE;
	r.id = id;
	return demo_2host_call(l, &r);
}

static void demo_2host_run(struct peer_link *l, struct demo_2host_row *row)
{
	size_t len = (size_t)kib * 1024;
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_EXPOSE,
		.len = len,
		.ops = row->read ? RDMA_MR_REMOTE_READ : RDMA_MR_REMOTE_WRITE,
		.seed = row->read ? row->seed : MRCORE_E2E_POISONED,
	};
	struct mrcore_e2e_buf buf;
	ktime_t start;
	int ret, ret2;
	u32 id;

	row->backend = "-";
	strscpy(row->dev_name, dev_name(&l->side->device->dev),
		sizeof(row->dev_name));
	ret = mrcore_e2e_buf_alloc(&buf, len, 0);
	if (ret)
		goto out;
	if (row->read)
		mrcore_e2e_buf_poison(&buf);
	else
		mrcore_e2e_buf_fill(&buf, row->seed);

	start = ktime_get();
	ret = demo_2host_call(l, &r);
	if (ret)
		goto out_buf;
	id = r.id;
	if (r.len != len)
		ret = -EPROTO;
	if (!ret)
		ret = row->helper ?
		      demo_2host_helper(l, row, &buf, r.addr, r.key) :
		      demo_2host_map(l, row, &buf, r.addr, r.key);
	if (!ret)
		ret = demo_2host_check(l, row, &buf, id);
	row->usec = ktime_us_delta(ktime_get(), start);
	memset(&r, 0, sizeof(r));
	r.op = MRCORE_PEER_FREE;
	r.id = id;
	ret2 = demo_2host_call(l, &r);
	if (!ret)
		ret = ret2;
out_buf:
	mrcore_e2e_buf_free(&buf);
out:
	row->err = ret;
}

static const char *demo_2host_transport(const struct mrcore_e2e_target *t)
{
	return t->driver_id == RDMA_DRIVER_SIW ? "iWARP" : "RoCEv2";
}

/* Run one row and print it; return 1 if it failed. */
static unsigned int demo_2host_one(struct peer_link *l,
				   struct demo_2host_row *row)
{
	const char *op = row->read ? "READ" : "WRITE";

	demo_2host_run(l, row);
	pr_info("mrcore_demo_2host: row: %s|%s|%s|%s|%s %s|%s|%zu|%u|%lld|%s\n",
		row->t->active_addr, row->dev_name, demo_2host_transport(row->t),
		row->t->passive_addr, row->helper ? "helper" : "map", op,
		row->backend, (size_t)kib * 1024, row->wrs, row->usec,
		row->err ? "error" : row->verified ? "yes" : "NO");
	if (row->err)
		pr_err("mrcore_demo_2host: %s %s %s to %s: error %d\n",
		       row->dev_name, row->helper ? "helper" : "map", op,
		       row->t->passive_addr, row->err);
	return row->err || !row->verified;
}

static int __init mrcore_demo_2host_init(void)
{
	static const struct mrcore_e2e_target *targets[] = {
		&mrcore_2host_rxe, &mrcore_2host_siw,
	};
	unsigned int t, i, failed = 0, n = 0;
	struct demo_2host_row row;
	struct peer_link *l;
	int ret;

	pr_info("mrcore_demo_2host: header: host|device|transport|peer|operation|backend|bytes|WRs|usec|verified\n");
	for (t = 0; t < ARRAY_SIZE(targets); t++) {
		ret = peer_link_open(targets[t], NULL, &l);
		if (ret) {
			pr_err("mrcore_demo_2host: %s: connecting %s to %s: error %d\n",
			       targets[t]->name, targets[t]->active_addr,
			       targets[t]->passive_addr, ret);
			failed++;
			continue;
		}
		/* map READ, map WRITE, helper READ, helper WRITE */
		for (i = 0; i < 4; i++) {
			memset(&row, 0, sizeof(row));
			row.t = targets[t];
			row.helper = i >= 2;
			row.read = !(i & 1);
			row.seed = DEMO_2HOST_SEED + n++;
			failed += demo_2host_one(l, &row);
		}
		peer_link_close(l);
	}
	pr_info("mrcore_demo_2host: done: %u failed\n", failed);
	return 0;
}

static void __exit mrcore_demo_2host_exit(void)
{
}

module_init(mrcore_demo_2host_init);
module_exit(mrcore_demo_2host_exit);

MODULE_DESCRIPTION("rdma-mrcore demo: READ and WRITE to another guest over the wire");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
MODULE_IMPORT_NS(MRCORE_2HOST);
