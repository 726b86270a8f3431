// SPDX-License-Identifier: GPL-2.0-only
/*
 * `make bench`: rdma-mrcore's READ/WRITE helper side by side with ib_core's
 * RDMA R/W API (rdma_rw_ctx_*()) on the kernel's soft RDMA drivers, siw
 * (iWARP) and rxe (RoCEv2), on the same QPs and the same scatterlists.
 *
 * For each device, direction, SG shape, queue depth and QP count ("a row"),
 * the two implementations run in turn, run by run (mrcore, rdma_rw, rdma_rw,
 * mrcore, ...), each run for a fixed time: every QP keeps its queue depth of
 * I/Os in flight, each I/O is initialized, its WR chain posted with one
 * ib_post_send() and destroyed when its completion arrives.  A run's rate is
 * counted from the first completion to the moment it stops issuing, while
 * the queue is full, so neither the ramp-up nor the drain is measured; the
 * row gives the median of its runs.  Then a loop of init + wrs + destroy
 * without posting gives the CPU cost of each implementation alone.
 *
 * Before its rows, each implementation moves one I/O of each shape and
 * direction, and the data is compared byte for byte.
 *
 * One line per row and implementation goes to the kernel log, prefixed
 * "mrcore_bench: row: " and holding a JSON object; scripts/bench.sh turns
 * them into build/bench/results.json.
 */

#include <linux/delay.h>
#include <linux/glob.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/wait.h>
#include <rdma/mrcore.h>
#include <rdma/rw.h>

#include "mrcore_harness.h"

#define BENCH_MAX_QD		64
#define BENCH_MAX_QPS		4
#define BENCH_MAX_ROUNDS	15
#define BENCH_MAX_PAGES		256	/* the largest shape, 1 MiB */
#define BENCH_OWNER_ORDER	8	/* the peer's memory: 1 MiB */
#define BENCH_OWNER_BYTES	(PAGE_SIZE << BENCH_OWNER_ORDER)
#define BENCH_SQ_DEPTH		4096
#define BENCH_RD_ATOM		128
#define BENCH_STALL_MS		30000
#define BENCH_TIMEOUT_MS	30000
#define BENCH_MIN_WINDOW_IOS	2
#define BENCH_OVERRUN_NS	(10ULL * NSEC_PER_SEC)
#define BENCH_LINE		1024
#define BENCH_SETTLE_MS		50
#define BENCH_CPU_BATCH		8
#define BENCH_CPU_BATCHES	4096

static unsigned int row_ms = 600;
module_param(row_ms, uint, 0444);
MODULE_PARM_DESC(row_ms, "duration of one run of one implementation, ms (default 600)");

static unsigned int rounds = 3;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "runs per implementation and row; the row gives their median (default 3)");

static unsigned int cpu_ms = 20;
module_param(cpu_ms, uint, 0444);
MODULE_PARM_DESC(cpu_ms, "duration of one init+destroy loop, ms (default 20)");

static char *filter = "*";
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "glob on device/dir/shape/qdN/qpsN, e.g. \"siw/read/*\" (default *)");

enum bench_impl {
	BENCH_MRCORE,
	BENCH_RDMA_RW,
	BENCH_NR_IMPLS,
};

static const char *const bench_impl_name[BENCH_NR_IMPLS] = {
	[BENCH_MRCORE] = "mrcore",
	[BENCH_RDMA_RW] = "rdma_rw",
};

/**
 * struct bench_shape - the local memory of one I/O
 * @name: as printed.
 * @npages: pages it spans.
 * @contig: one entry over physically contiguous pages, else one entry per
 *	separately allocated page.
 */
struct bench_shape {
	const char *name;
	unsigned int npages;
	bool contig;
};

static const struct bench_shape bench_shapes[] = {
	{ "1_page", 1, false },
	{ "8_pages", 8, false },
	{ "32_pages", 32, false },
	{ "256_pages", 256, false },
	{ "64k_contig", 16, true },
	{ "1m_contig", 256, true },
};

static const unsigned int bench_qds[] = { 1, 16, 64 };
static const unsigned int bench_qps[] = { 1, 4 };

/**
 * struct bench_mem - one slot's local memory
 * @page: the pages of a contiguous shape.
 * @order: their order.
 * @one: the scatterlist of a contiguous shape.
 * @buf: the pages of a scattered shape, one entry each.
 * @sg: the scatterlist to move.
 * @nents: its entries.
 * @len: its bytes.
 */
struct bench_mem {
	struct page *page;
	unsigned int order;
	struct scatterlist one;
	struct mrcore_e2e_buf buf;
	struct scatterlist *sg;
	unsigned int nents;
	size_t len;
};

struct bench_qp;

/**
 * struct bench_slot - one I/O in flight
 * @q: its QP.
 * @cqe: completion entry of the I/O's last WR.
 * @entry: on the QP's list of completed slots.
 * @status: the completion's status.
 * @done_ns: when the completion was seen.
 * @mem: the local memory, the same for both implementations.
 * @io: rdma-mrcore's context.
 * @rw: ib_core's context.
 * @wrs: WRs the I/O posted.
 * @mrs: registrations among them.
 * @prepared: a context is initialized and not destroyed yet.
 */
struct bench_slot {
	struct bench_qp *q;
	struct ib_cqe cqe;
	struct list_head entry;
	enum ib_wc_status status;
	u64 done_ns;
	struct bench_mem mem;
	struct rdma_io_ctx io;
	struct rdma_rw_ctx rw;
	u32 wrs;
	u32 mrs;
	bool prepared;
};

/**
 * struct bench_stats - what one run measured on one QP
 * @ios: I/Os completed.
 * @wrs: WRs they posted.
 * @mrs: registrations among them.
 * @posts: ib_post_send() calls.
 * @t_first: time of the first completion.
 * @t_stop: when the QP stopped issuing.
 * @window_ios: completions after @t_first up to @t_stop.
 * @backend: the backend (mrcore) or the kind of chain (rdma_rw) of the
 *	first I/O.
 * @mixed: a later I/O used another one.
 */
struct bench_stats {
	u64 ios;
	u64 wrs;
	u64 mrs;
	u64 posts;
	u64 t_first;
	u64 t_stop;
	u64 window_ios;
	const char *backend;
	bool mixed;
};

/**
 * struct bench_qp - one connected QP pair and what runs on it
 * @pair: the pair; I/Os run on its active end.
 * @port: the active end's port.
 * @owner_page: the peer's memory.
 * @owner_mr: its registration with remote READ and WRITE.
 * @owner_sg: its scatterlist.
 * @rkey: the key the I/Os use.
 * @iova: the address they use.
 * @pool: rdma-mrcore's MR pool of the QP.
 * @slots: %BENCH_MAX_QD slots.
 * @lock: protects @done.
 * @done: completed slots, in completion order.
 * @wq: woken on each completion.
 * @sq_used: WRs posted and not completed.
 * @sq_size: WRs the send queue takes.
 * @impl: the implementation of the current run.
 * @dir: its direction.
 * @qd: its queue depth.
 * @max_ios: stop after this many I/Os (0: by time).
 * @run_ns: how long the run lasts.
 * @t0: start of the run.
 * @t_end: when it should end.
 * @st: its measurements.
 * @err: its error, 0 if none.
 * @task: the thread that runs it.
 * @finished: completed when @task is done.
 */
struct bench_qp {
	struct mrcore_e2e_pair *pair;
	u32 port;
	struct page *owner_page;
	struct ib_mr *owner_mr;
	struct scatterlist owner_sg;
	u32 rkey;
	u64 iova;
	struct rdma_io_pool *pool;
	struct bench_slot *slots;

	spinlock_t lock;	/* protects @done against the CQ callback */
	struct list_head done;
	wait_queue_head_t wq;
	u32 sq_used;
	u32 sq_size;

	enum bench_impl impl;
	enum dma_data_direction dir;
	unsigned int qd;
	u64 max_ios;
	u64 run_ns;
	u64 t0;
	u64 t_end;
	struct bench_stats st;
	int err;
	struct task_struct *task;
	struct completion finished;
};

/**
 * struct bench_dev - the QPs of one device kind
 * @target: the device kind.
 * @qps: %BENCH_MAX_QPS QPs, each of its own pair.
 * @nr_qps: how many are connected.
 */
struct bench_dev {
	const struct mrcore_e2e_target *target;
	struct bench_qp qps[BENCH_MAX_QPS];
	unsigned int nr_qps;
};

/**
 * struct bench_result - one implementation's figures for one row
 * @ops: ops/s of each run, in thousandths.
 * @nr_runs: runs.
 * @ios: I/Os of all runs.
 * @wrs: their WRs.
 * @mrs: their registrations.
 * @posts: their ib_post_send() calls.
 * @cpu_ns: init + wrs + destroy loops, ns per I/O.
 * @nr_cpu: loops.
 * @backend: backend or kind of chain.
 * @mixed: the runs used more than one.
 * @verified: the data check of its shape and direction passed.
 * @err: the first error, 0 if none.
 */
struct bench_result {
	u64 ops[BENCH_MAX_ROUNDS];
	unsigned int nr_runs;
	u64 ios;
	u64 wrs;
	u64 mrs;
	u64 posts;
	u64 cpu_ns[BENCH_MAX_ROUNDS];
	unsigned int nr_cpu;
	const char *backend;
	bool mixed;
	bool verified;
	int err;
};

static unsigned int bench_rows, bench_failed;

static const char *bench_dir_name(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE ? "READ" : "WRITE";
}

/* ---- memory ----------------------------------------------------------- */

static void bench_mem_free(struct bench_mem *m)
{
	if (m->page)
		__free_pages(m->page, m->order);
	else
		mrcore_e2e_buf_free(&m->buf);
	memset(m, 0, sizeof(*m));
}

static int bench_mem_alloc(struct bench_mem *m, const struct bench_shape *sh)
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

static u8 *bench_mem_byte(struct bench_mem *m, size_t i)
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

	s->status = wc->status;
	s->done_ns = ktime_get_ns();
	spin_lock_irqsave(&q->lock, flags);
	list_add_tail(&s->entry, &q->done);
	spin_unlock_irqrestore(&q->lock, flags);
	wake_up(&q->wq);
}

/* The peer exposes 1 MiB under one rkey with remote READ and WRITE. */
static int bench_owner_create(struct bench_qp *q)
{
	struct mrcore_e2e_side *side = &q->pair->passive;
	struct ib_reg_wr reg = {};
	struct mrcore_e2e_wait *w;
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
	/* Not on the stack: a timed-out WR is flushed into it later. */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w) {
		ret = -ENOMEM;
		goto dereg;
	}
	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = q->owner_mr;
	reg.key = q->owner_mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		     IB_ACCESS_REMOTE_WRITE;
	mrcore_e2e_wait_init(w);
	reg.wr.wr_cqe = &w->cqe;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	ret = mrcore_e2e_post(side, &reg.wr, w, BENCH_TIMEOUT_MS);
	kfree(w);
	if (ret) {
		ret = ret < 0 ? ret : -EIO;
		goto dereg;
	}
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

static void bench_qp_destroy(struct bench_qp *q)
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

/*
 * Both implementations get what they need on the same QP: send queue room
 * for %BENCH_MAX_QD I/Os of the longest chain, SGEs up to the device's
 * limit (the READ/WRITE SGE limits of both are the QP's), ib_core's MR pool
 * for %BENCH_MAX_QD R/W contexts and an rdma-mrcore pool for as many I/Os.
 */
static int bench_qp_create(struct bench_qp *q,
			   const struct mrcore_e2e_target *t)
{
	static const struct mrcore_e2e_caps caps = {
		.max_send_wr = BENCH_SQ_DEPTH,
		.max_send_sge = 32,
		.max_rdma_ctxs = BENCH_MAX_QD,
		.rd_atom = BENCH_RD_ATOM,
	};
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;
	unsigned int i;
	int ret;

	memset(q, 0, sizeof(*q));
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->done);
	init_waitqueue_head(&q->wq);
	q->slots = kcalloc(BENCH_MAX_QD, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots)
		return -ENOMEM;
	for (i = 0; i < BENCH_MAX_QD; i++) {
		q->slots[i].q = q;
		q->slots[i].cqe.done = bench_done;
	}
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

/* ---- one I/O ---------------------------------------------------------- */

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

/* Initialize the slot's I/O and build its chain; returns the first WR. */
static int bench_prepare(struct bench_qp *q, struct bench_slot *s,
			 struct ib_send_wr **first, const char **backend)
{
	struct ib_qp *qp = q->pair->active.qp;
	const struct ib_send_wr *wr;
	u32 n = 0, regs = 0, sges = 0;
	int ret;

	if (q->impl == BENCH_MRCORE) {
		ret = rdma_io_ctx_init(&s->io, q->pool, s->mem.sg, s->mem.nents,
				       0, q->iova, q->rkey, q->dir);
		if (ret < 0)
			return ret;
		*first = rdma_io_ctx_wrs(&s->io, &s->cqe, NULL);
	} else {
		ret = rdma_rw_ctx_init(&s->rw, qp, q->port, s->mem.sg,
				       s->mem.nents, 0, q->iova, q->rkey,
				       q->dir);
		if (ret < 0)
			return ret;
		*first = rdma_rw_ctx_wrs(&s->rw, qp, q->port, &s->cqe, NULL);
	}
	s->prepared = true;
	/* What goes to the device, counted the same way for both. */
	for (wr = *first; wr; wr = wr->next) {
		n++;
		regs += wr->opcode == IB_WR_REG_MR;
		sges += wr->num_sge;
	}
	s->wrs = n;
	s->mrs = regs;
	*backend = q->impl == BENCH_MRCORE ? rdma_io_ctx_backend(&s->io) :
					     bench_rw_kind(n, sges, regs);
	return 0;
}

/*
 * Release the slot's I/O.  @ok: it completed successfully.  An rdma-mrcore
 * I/O that was built but never posted, or failed, is destroyed without a
 * completion: its MRs' keys are then unknown and the pool replaces them.
 */
static void bench_release(struct bench_qp *q, struct bench_slot *s, bool ok)
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

/* ---- one run on one QP ------------------------------------------------ */

/* Stop issuing: time is up, or the I/Os in flight will take the rest. */
static bool bench_should_stop(struct bench_qp *q, u64 now, u32 inflight)
{
	u64 per_io, drain;

	if (q->max_ios)
		return q->st.ios + inflight >= q->max_ios;
	if (now >= q->t_end + BENCH_OVERRUN_NS)
		return true;
	if (q->st.window_ios < BENCH_MIN_WINDOW_IOS)
		return false;
	if (now >= q->t_end)
		return true;
	/* Keep at least half of the run for the measured window. */
	if (now - q->t0 < (q->t_end - q->t0) / 2)
		return false;
	per_io = div64_u64(now - q->st.t_first, q->st.window_ios);
	drain = per_io * inflight;
	return now + drain >= q->t_end;
}

static void bench_account(struct bench_qp *q, const char *backend)
{
	struct bench_stats *st = &q->st;

	if (!st->backend)
		st->backend = backend;
	else if (strcmp(st->backend, backend))
		st->mixed = true;
}

/* Fail the QP so that everything in flight completes (flushed). */
static void bench_flush(struct bench_qp *q)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	ib_modify_qp(q->pair->active.qp, &attr, IB_QP_STATE);
}

static int bench_run_qp(void *data)
{
	struct bench_qp *q = data;
	struct bench_stats *st = &q->st;
	struct bench_slot *pending = NULL;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *first = NULL;
	const char *backend = NULL;
	unsigned int next = 0, nr_idle = 0;
	struct bench_slot *idle[BENCH_MAX_QD];
	bool stopping = false, flushed = false;
	u32 inflight = 0;
	int ret;

	for (next = 0; next < q->qd; next++)
		idle[nr_idle++] = &q->slots[next];
	q->t0 = ktime_get_ns();
	q->t_end = q->t0 + q->run_ns;

	for (;;) {
		struct bench_slot *s, *tmp;
		LIST_HEAD(reaped);
		u64 now;

		spin_lock_irq(&q->lock);
		list_splice_init(&q->done, &reaped);
		spin_unlock_irq(&q->lock);
		list_for_each_entry_safe(s, tmp, &reaped, entry) {
			bool ok = s->status == IB_WC_SUCCESS;

			list_del_init(&s->entry);
			inflight--;
			q->sq_used -= s->wrs;
			bench_release(q, s, ok);
			idle[nr_idle++] = s;
			if (!ok) {
				if (!q->err) {
					pr_err("mrcore_bench: %s %s: completion status %s\n",
					       bench_impl_name[q->impl],
					       bench_dir_name(q->dir),
					       ib_wc_status_msg(s->status));
					q->err = -EIO;
				}
				continue;
			}
			st->ios++;
			st->wrs += s->wrs;
			st->mrs += s->mrs;
			if (!st->t_first)
				st->t_first = s->done_ns;
			else if (!st->t_stop || s->done_ns <= st->t_stop)
				st->window_ios++;
		}

		now = ktime_get_ns();
		if (!stopping && (q->err || bench_should_stop(q, now, inflight))) {
			stopping = true;
			st->t_stop = now;
		}
		while (!stopping && (pending || nr_idle)) {
			if (!pending) {
				pending = idle[--nr_idle];
				ret = bench_prepare(q, pending, &first, &backend);
				if (ret) {
					pr_err("mrcore_bench: %s %s: init: %d\n",
					       bench_impl_name[q->impl],
					       bench_dir_name(q->dir), ret);
					q->err = ret;
					idle[nr_idle++] = pending;
					pending = NULL;
					stopping = true;
					st->t_stop = now;
					break;
				}
				bench_account(q, backend);
			}
			if (q->sq_used + pending->wrs > q->sq_size) {
				if (!inflight) {
					q->err = -ENOSPC;
					stopping = true;
					st->t_stop = now;
				}
				break;
			}
			ret = ib_post_send(q->pair->active.qp, first, &bad);
			st->posts++;
			if (ret) {
				pr_err("mrcore_bench: %s %s: ib_post_send: %d\n",
				       bench_impl_name[q->impl],
				       bench_dir_name(q->dir), ret);
				q->err = ret;
				stopping = true;
				st->t_stop = now;
				if (bad == first)
					break;	/* nothing posted: released below */
				/*
				 * Part of the chain is on the queue: flush it
				 * and wait for the slot like for the others.
				 */
				bench_flush(q);
				flushed = true;
				inflight++;
				q->sq_used += pending->wrs;
				pending = NULL;
				break;
			}
			inflight++;
			q->sq_used += pending->wrs;
			pending = NULL;
			if (q->max_ios && st->ios + inflight >= q->max_ios)
				break;
		}
		if (stopping && pending) {
			bench_release(q, pending, false);
			idle[nr_idle++] = pending;
			pending = NULL;
		}
		if (!inflight && (stopping || q->err))
			break;
		if (!wait_event_timeout(q->wq, !list_empty(&q->done),
					msecs_to_jiffies(BENCH_STALL_MS))) {
			if (flushed) {
				/* Not even flushed: never free the slots. */
				pr_err("mrcore_bench: %u I/Os neither completed nor flushed; blocking\n",
				       inflight);
				wait_event(q->wq, false);
			}
			pr_err("mrcore_bench: %s %s: no completion in %u ms, %u in flight; flushing\n",
			       bench_impl_name[q->impl], bench_dir_name(q->dir),
			       BENCH_STALL_MS, inflight);
			q->err = -ETIMEDOUT;
			stopping = true;
			if (!st->t_stop)
				st->t_stop = ktime_get_ns();
			bench_flush(q);
			flushed = true;
		}
	}
	complete(&q->finished);
	return 0;
}

/*
 * One run: every QP of @qps runs @impl in its own thread at once.  Returns
 * the ops/s of all QPs together, in thousandths, and adds to @r.
 */
static int bench_run(struct bench_dev *d, unsigned int nr_qps,
		     enum bench_impl impl, enum dma_data_direction dir,
		     unsigned int qd, u64 run_ns, u64 max_ios,
		     struct bench_result *r, u64 *mops)
{
	unsigned int i;
	int err = 0;

	*mops = 0;
	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];

		q->impl = impl;
		q->dir = dir;
		q->qd = qd;
		q->max_ios = max_ios;
		q->run_ns = run_ns;
		q->err = 0;
		memset(&q->st, 0, sizeof(q->st));
		init_completion(&q->finished);
		q->task = kthread_run(bench_run_qp, q, "mrcore_bench/%u", i);
		if (IS_ERR(q->task)) {
			err = PTR_ERR(q->task);
			/* Those started run to their end. */
			nr_qps = i;
			break;
		}
	}
	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];
		struct bench_stats *st = &q->st;

		wait_for_completion(&q->finished);
		if (q->err && !err)
			err = q->err;
		r->ios += st->ios;
		r->wrs += st->wrs;
		r->mrs += st->mrs;
		r->posts += st->posts;
		if (st->backend && !r->backend)
			r->backend = st->backend;
		else if (st->backend && strcmp(st->backend, r->backend))
			r->mixed = true;
		r->mixed |= st->mixed;
		if (st->window_ios && st->t_stop > st->t_first)
			*mops += div64_u64(st->window_ios * NSEC_PER_SEC * 1000,
					   st->t_stop - st->t_first);
	}
	return err;
}

/* ---- data check ------------------------------------------------------- */

static u8 bench_pattern(u32 seed, size_t i)
{
	return mrcore_e2e_pattern(seed, i);
}

/*
 * One I/O of @impl from QP 0's first slot, with distinct data at both ends;
 * then every byte that arrived is compared with its source.
 */
static int bench_verify(struct bench_dev *d, enum bench_impl impl,
			enum dma_data_direction dir, u32 seed)
{
	struct bench_qp *q = &d->qps[0];
	struct bench_mem *m = &q->slots[0].mem;
	u8 *owner = page_address(q->owner_page);
	struct bench_result r = {};
	bool read = dir == DMA_FROM_DEVICE;
	size_t i, bad = 0;
	u64 mops;
	int ret;

	for (i = 0; i < m->len; i++) {
		owner[i] = read ? bench_pattern(seed, i) : 0;
		*bench_mem_byte(m, i) = read ? 0 : bench_pattern(seed, i);
	}
	ret = bench_run(d, 1, impl, dir, 1, (u64)row_ms * NSEC_PER_MSEC, 1, &r,
			&mops);
	if (ret)
		return ret;
	if (r.ios != 1)
		return -EIO;
	for (i = 0; i < m->len; i++) {
		u8 got = read ? *bench_mem_byte(m, i) : owner[i];

		if (got != bench_pattern(seed, i) && !bad++)
			pr_err("mrcore_bench: %s %s %s: byte %zu is 0x%02x, want 0x%02x\n",
			       d->target->name, bench_impl_name[impl],
			       bench_dir_name(dir), i, got,
			       bench_pattern(seed, i));
	}
	return bad ? -EILSEQ : 0;
}

/* ---- medians ---------------------------------------------------------- */

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 bench_median(u64 *v, unsigned int n)
{
	if (!n)
		return 0;
	sort(v, n, sizeof(*v), bench_cmp_u64, NULL);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- CPU cost of init + wrs + destroy ---------------------------------- */

/*
 * rdma-mrcore's loop runs on a pool of its own: its contexts are never
 * posted, so their MRs' keys are never registered, and those MRs must not
 * reach an I/O that is posted.  rdma_rw's loop takes MRs from the QP's pool
 * and gives them back with the key rdma_rw_ctx_wrs() moved on (ib_core
 * moves keys there, which is why the loop charges the *_wrs() call to both
 * implementations); on these devices its MRs only ever serve iWARP READs
 * with invalidate, which need no invalidation of that key, so it runs on
 * the QP's own.
 */
static int bench_cpu(struct bench_qp *q, enum bench_impl impl,
		     enum dma_data_direction dir, u64 *ns)
{
	struct bench_slot *s = &q->slots[0];
	struct ib_qp *qp = q->pair->active.qp;
	struct ib_wc wc = { .status = IB_WC_SUCCESS };
	struct rdma_io_pool *pool = NULL;
	struct ib_cqe cqe = {};
	unsigned int nr = 0, i;
	u64 t0, tb, t, *batch;
	int ret = 0;

	batch = kmalloc_array(BENCH_CPU_BATCHES, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	if (impl == BENCH_MRCORE) {
		pool = rdma_io_pool_create(qp, q->port, 1, BENCH_MAX_PAGES);
		if (IS_ERR(pool)) {
			kfree(batch);
			return PTR_ERR(pool);
		}
	}
	/*
	 * Batches of a few iterations, and their median: a vCPU the host
	 * takes away for a while spoils a batch, not the figure.
	 */
	t0 = ktime_get_ns();
	do {
		tb = ktime_get_ns();
		for (i = 0; i < BENCH_CPU_BATCH; i++) {
			if (impl == BENCH_MRCORE) {
				ret = rdma_io_ctx_init(&s->io, pool, s->mem.sg,
						       s->mem.nents, 0,
						       q->iova, q->rkey, dir);
				if (ret < 0)
					goto out;
				rdma_io_ctx_wrs(&s->io, &cqe, NULL);
				rdma_io_ctx_destroy(&s->io, &wc);
			} else {
				ret = rdma_rw_ctx_init(&s->rw, qp, q->port,
						       s->mem.sg, s->mem.nents,
						       0, q->iova, q->rkey,
						       dir);
				if (ret < 0)
					goto out;
				rdma_rw_ctx_wrs(&s->rw, qp, q->port, &cqe, NULL);
				rdma_rw_ctx_destroy(&s->rw, qp, q->port,
						    s->mem.sg, s->mem.nents,
						    dir);
			}
		}
		t = ktime_get_ns();
		batch[nr++] = div_u64(t - tb, BENCH_CPU_BATCH);
	} while (nr < BENCH_CPU_BATCHES &&
		 t - t0 < (u64)cpu_ms * NSEC_PER_MSEC);
	ret = 0;
	*ns = bench_median(batch, nr);
out:
	if (pool)
		rdma_io_pool_destroy(pool);
	kfree(batch);
	return ret;
}

/* ---- rows ------------------------------------------------------------- */

/* @num / @den with three decimals, as "X.YYY". */
static int bench_fixed3(char *buf, size_t len, u64 num, u64 den)
{
	u64 m = den ? div64_u64(num * 1000, den) : 0;
	u32 rem;
	u64 q = div_u64_rem(m, 1000, &rem);

	return scnprintf(buf, len, "%llu.%03u", q, rem);
}

static void bench_print(struct bench_dev *d, enum dma_data_direction dir,
			const struct bench_shape *sh, unsigned int qd,
			unsigned int qps, enum bench_impl impl,
			struct bench_result *r)
{
	u64 mops = bench_median(r->ops, r->nr_runs);
	u64 bytes = (u64)sh->npages * PAGE_SIZE;
	char wrs[24], mrs[24], posts[24], ops[24], mbs[24], list[200];
	char *line;
	unsigned int i;
	int n = 0;

	line = kmalloc(BENCH_LINE, GFP_KERNEL);
	if (!line)
		return;
	bench_fixed3(wrs, sizeof(wrs), r->wrs, r->ios);
	bench_fixed3(mrs, sizeof(mrs), r->mrs, r->ios);
	bench_fixed3(posts, sizeof(posts), r->posts, r->ios);
	bench_fixed3(ops, sizeof(ops), mops, 1000);
	/* MB/s = ops/s * bytes / 10^6; mops is in thousandths of ops/s. */
	bench_fixed3(mbs, sizeof(mbs), mops * bytes, 1000ULL * 1000000);
	list[0] = '\0';
	for (i = 0; i < r->nr_runs; i++) {
		u32 rem;
		u64 q = div_u64_rem(r->ops[i], 1000, &rem);

		n += scnprintf(list + n, sizeof(list) - n, "%s%llu.%u",
			       i ? "," : "", q, rem / 100);
	}
	scnprintf(line, BENCH_LINE,
		  "{\"device\": \"%s\", \"ibdev\": \"%s\", \"transport\": \"%s\", \"dir\": \"%s\", \"shape\": \"%s\", \"bytes\": %llu, \"qd\": %u, \"qps\": %u, \"impl\": \"%s\", \"backend\": \"%s%s\", \"wrs_per_io\": %s, \"mrs_per_io\": %s, \"posts_per_io\": %s, \"ops_per_s\": %s, \"mb_per_s\": %s, \"cpu_ns_per_io\": %llu, \"runs_ops_per_s\": [%s], \"ios\": %llu, \"verified\": %s, \"error\": %d}",
		  d->target->name,
		  dev_name(&d->qps[0].pair->active.device->dev),
		  d->target->driver_id == RDMA_DRIVER_SIW ? "iWARP" : "RoCEv2",
		  bench_dir_name(dir), sh->name, bytes, qd, qps,
		  bench_impl_name[impl], r->backend ? r->backend : "-",
		  r->mixed ? "+" : "", wrs, mrs, posts, ops, mbs,
		  bench_median(r->cpu_ns, r->nr_cpu), list, r->ios,
		  r->verified ? "true" : "false", r->err);
	pr_info("mrcore_bench: row: %s\n", line);
	kfree(line);
}

static bool bench_selected(struct bench_dev *d, enum dma_data_direction dir,
			   const struct bench_shape *sh, unsigned int qd,
			   unsigned int qps)
{
	char name[96];

	snprintf(name, sizeof(name), "%s/%s/%s/qd%u/qps%u", d->target->name,
		 dir == DMA_FROM_DEVICE ? "read" : "write", sh->name, qd, qps);
	return glob_match(filter, name);
}

static void bench_row(struct bench_dev *d, enum dma_data_direction dir,
		      const struct bench_shape *sh, unsigned int qd,
		      unsigned int qps, const bool verified[BENCH_NR_IMPLS])
{
	struct bench_result *res;
	unsigned int round, k;
	int ret;

	res = kcalloc(BENCH_NR_IMPLS, sizeof(*res), GFP_KERNEL);
	if (!res) {
		bench_failed++;
		return;
	}
	for (k = 0; k < BENCH_NR_IMPLS; k++)
		res[k].verified = verified[k];
	/*
	 * One short run of each first, not counted: siw's TCP connection
	 * has been idle (slow start) and the pools and caches cold, which
	 * would weigh on whichever implementation came first.
	 */
	for (k = 0; k < BENCH_NR_IMPLS; k++) {
		struct bench_result warm = {};
		u64 mops;

		ret = bench_run(d, qps, k, dir, qd,
				(u64)row_ms * NSEC_PER_MSEC / 4, 0, &warm,
				&mops);
		if (ret)
			res[k].err = ret;
	}
	/* mrcore, rdma_rw, rdma_rw, mrcore, ...: drift hits both alike. */
	for (round = 0; round < rounds; round++) {
		for (k = 0; k < BENCH_NR_IMPLS; k++) {
			enum bench_impl impl = (round & 1) ?
					       BENCH_NR_IMPLS - 1 - k : k;
			struct bench_result *r = &res[impl];
			u64 mops;

			if (r->err)
				continue;
			ret = bench_run(d, qps, impl, dir, qd,
					(u64)row_ms * NSEC_PER_MSEC, 0, r, &mops);
			if (ret) {
				r->err = ret;
				continue;
			}
			r->ops[r->nr_runs++] = mops;
		}
	}
	/*
	 * The peer may still be absorbing the last WRITEs (siw acknowledges
	 * nothing): let it settle, so the first loop does not share the CPUs.
	 */
	msleep(BENCH_SETTLE_MS);
	for (round = 0; round < rounds; round++) {
		for (k = 0; k < BENCH_NR_IMPLS; k++) {
			enum bench_impl impl = (round & 1) ?
					       BENCH_NR_IMPLS - 1 - k : k;
			struct bench_result *r = &res[impl];
			u64 ns;

			if (r->err)
				continue;
			ret = bench_cpu(&d->qps[0], impl, dir, &ns);
			if (ret)
				r->err = ret;
			else
				r->cpu_ns[r->nr_cpu++] = ns;
		}
	}
	for (k = 0; k < BENCH_NR_IMPLS; k++) {
		bench_print(d, dir, sh, qd, qps, k, &res[k]);
		bench_rows++;
		if (res[k].err || !res[k].verified)
			bench_failed++;
	}
	kfree(res);
}

static void bench_free_mem(struct bench_dev *d)
{
	unsigned int i, j;

	for (i = 0; i < d->nr_qps; i++)
		for (j = 0; j < BENCH_MAX_QD; j++)
			bench_mem_free(&d->qps[i].slots[j].mem);
}

/* Every row of one shape on one device. */
static int bench_shape(struct bench_dev *d, const struct bench_shape *sh)
{
	static const enum dma_data_direction dirs[] = {
		DMA_FROM_DEVICE, DMA_TO_DEVICE,
	};
	unsigned int i, j, di, qi, pi;
	bool any = false;
	int ret;

	for (di = 0; di < ARRAY_SIZE(dirs); di++)
		for (qi = 0; qi < ARRAY_SIZE(bench_qds); qi++)
			for (pi = 0; pi < ARRAY_SIZE(bench_qps); pi++)
				any |= bench_selected(d, dirs[di], sh,
						      bench_qds[qi],
						      bench_qps[pi]);
	if (!any)
		return 0;

	for (i = 0; i < d->nr_qps; i++) {
		for (j = 0; j < BENCH_MAX_QD; j++) {
			ret = bench_mem_alloc(&d->qps[i].slots[j].mem, sh);
			if (ret) {
				pr_err("mrcore_bench: %s %s: no memory for the slots: %d\n",
				       d->target->name, sh->name, ret);
				bench_free_mem(d);
				bench_failed++;
				return ret;
			}
		}
	}

	for (di = 0; di < ARRAY_SIZE(dirs); di++) {
		bool verified[BENCH_NR_IMPLS];
		unsigned int k;

		for (k = 0; k < BENCH_NR_IMPLS; k++) {
			ret = bench_verify(d, k, dirs[di], 7 + di + 2 * k);
			verified[k] = !ret;
			if (ret)
				pr_err("mrcore_bench: %s %s %s %s: data check failed: %d\n",
				       d->target->name, bench_impl_name[k],
				       bench_dir_name(dirs[di]), sh->name, ret);
		}
		for (pi = 0; pi < ARRAY_SIZE(bench_qps); pi++) {
			for (qi = 0; qi < ARRAY_SIZE(bench_qds); qi++) {
				if (bench_qps[pi] > d->nr_qps ||
				    !bench_selected(d, dirs[di], sh,
						    bench_qds[qi],
						    bench_qps[pi]))
					continue;
				bench_row(d, dirs[di], sh, bench_qds[qi],
					  bench_qps[pi], verified);
			}
		}
	}
	bench_free_mem(d);
	return 0;
}

static void bench_device(const struct mrcore_e2e_target *t)
{
	struct bench_dev *d;
	unsigned int i;
	int ret;

	if (!mrcore_e2e_device_present(t, NULL, 0)) {
		pr_err("mrcore_bench: no %s device\n", t->name);
		bench_failed++;
		return;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		bench_failed++;
		return;
	}
	d->target = t;
	for (i = 0; i < BENCH_MAX_QPS; i++) {
		ret = bench_qp_create(&d->qps[i], t);
		if (ret) {
			pr_err("mrcore_bench: %s: QP pair %u: %d\n", t->name, i,
			       ret);
			bench_failed++;
			break;
		}
		d->nr_qps++;
	}
	if (d->nr_qps) {
		struct bench_qp *q = &d->qps[0];

		pr_info("mrcore_bench: device %s (%s): %u QPs, send queue %u, max_send_sge %u, max_sge_rd %u, rdma-mrcore pool %u MRs\n",
			t->name, dev_name(&q->pair->active.device->dev),
			d->nr_qps, q->sq_size,
			q->pair->active.device->attrs.max_send_sge,
			q->pair->active.device->attrs.max_sge_rd,
			rdma_io_pool_size(q->pool));
		for (i = 0; i < ARRAY_SIZE(bench_shapes); i++)
			if (bench_shape(d, &bench_shapes[i]))
				break;
	}
	for (i = 0; i < d->nr_qps; i++)
		bench_qp_destroy(&d->qps[i]);
	kfree(d);
}

static int __init mrcore_bench_init(void)
{
	static const struct mrcore_e2e_target *targets[] = {
		&mrcore_e2e_siw, &mrcore_e2e_rxe,
	};
	unsigned int i;

	rounds = clamp(rounds, 1u, (unsigned int)BENCH_MAX_ROUNDS);
	row_ms = max(row_ms, 1u);
	cpu_ms = max(cpu_ms, 1u);
	pr_info("mrcore_bench: start: row_ms %u, rounds %u, cpu_ms %u, filter %s\n",
		row_ms, rounds, cpu_ms, filter);
	for (i = 0; i < ARRAY_SIZE(targets); i++)
		bench_device(targets[i]);
	pr_info("mrcore_bench: done: %u rows, %u failed\n", bench_rows,
		bench_failed);
	return 0;
}

static void __exit mrcore_bench_exit(void)
{
}

module_init(mrcore_bench_init);
module_exit(mrcore_bench_exit);

MODULE_DESCRIPTION("rdma-mrcore benchmark: the READ/WRITE helper against ib_core's RDMA R/W API on siw and rxe");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
