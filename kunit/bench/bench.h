/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of mrcore_bench.ko share (`make bench`, see main.c):
 *
 *   main.c    module parameters, the rows (shapes, queue depths, QP counts),
 *             the walk over devices and shapes, the data check
 *   rig.c     slot memory, the QPs, the peer's memory, the CQ callback
 *   run.c     one run: one loop keeping every QP's queue depth in flight
 *   sides.c   the two implementations: rdma_io_ctx_*() and rdma_rw_ctx_*()
 *             (prepare, release, account)
 *   cpu.c     the CPU loop: init + wrs + destroy without posting
 *   report.c  one row: its runs, its CPU loops, medians, the JSON line
 */
#ifndef _MRCORE_BENCH_H
#define _MRCORE_BENCH_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/mrcore.h>
#include <rdma/rw.h>

#include "mrcore_harness.h"

#define BENCH_MAX_QD		64
#define BENCH_WAKE_DIV		4	/* wake the loop per qd / 4 completions */
#define BENCH_MAX_QPS		4
#define BENCH_MAX_ROUNDS	15
#define BENCH_MAX_PAGES		256	/* the largest shape, 1 MiB */
#define BENCH_OWNER_ORDER	8	/* the peer's memory: 1 MiB */
#define BENCH_OWNER_BYTES	(PAGE_SIZE << BENCH_OWNER_ORDER)
#define BENCH_SQ_DEPTH		4096
#define BENCH_RD_ATOM		128
#define BENCH_STALL_MS		30000
#define BENCH_TIMEOUT_MS	30000
#define BENCH_MIN_WINDOW_IOS	64	/* per QP of the run */
#define BENCH_WINDOW_MAX_IOS	65535	/* then the window closes */
#define BENCH_WINDOW_UNIT_NS	8	/* of struct bench_window's @t */
#define BENCH_OVERRUN_NS	(10ULL * NSEC_PER_SEC)
#define BENCH_LINE		1024
#define BENCH_SETTLE_MS		50
/* Mappings of an MR before rdma-mrcore replaces its device MR (cpu.c). */
#define BENCH_KEY_USES		256
#define BENCH_CPU_BATCHES	4096
/* Device MRs allocated, then deregistered, per timed batch (cpu.c). */
#define BENCH_MR_CYCLE_BATCH	32
#define BENCH_MR_CYCLE_ROUNDS	9

/* The module parameters (main.c), clamped at load. */
extern unsigned int bench_row_ms;
extern unsigned int bench_rounds;
extern unsigned int bench_cpu_ms;
extern char *bench_filter;
extern bool bench_aa;

/* Rows printed and rows failed, for the last line of the log (main.c). */
extern unsigned int bench_rows, bench_failed;

enum bench_impl {
	BENCH_MRCORE,
	BENCH_RDMA_RW,
	BENCH_NR_IMPLS,
};

extern const char *const bench_impl_name[BENCH_NR_IMPLS];

/*
 * The code a slot runs: its own, or rdma_rw on both slots in an A/A run
 * (aa=1), whose ratios then measure the bench itself, not a difference
 * between implementations.
 */
static inline enum bench_impl bench_code(enum bench_impl slot)
{
	return bench_aa ? BENCH_RDMA_RW : slot;
}

/* A slot's name in the rows: "rdma_rw.aa" for the first slot of an A/A run. */
static inline const char *bench_slot_name(enum bench_impl slot)
{
	return bench_aa && slot == BENCH_MRCORE ? "rdma_rw.aa" :
						  bench_impl_name[slot];
}

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
 * @backend: the backend (mrcore) or the kind of chain (rdma_rw) of the
 *	first I/O.
 * @mixed: a later I/O used another one.
 */
struct bench_stats {
	u64 ios;
	u64 wrs;
	u64 mrs;
	u64 posts;
	const char *backend;
	bool mixed;
};

/**
 * struct bench_window - the measured window of one run, shared by its QPs
 * @t0: start of the run.
 * @t_end: when it should end.  Both set before the run starts.
 * @lock: protects the fields below against the CQ callbacks and the
 *	threads of the run.
 * @nr_qps: QPs in the run.
 * @started: those that have had their first completion.
 * @t_first: when the last of them had it: the window opens there, every QP
 *	with its queue filled.
 * @ios: completions counted after @t_first, on all QPs.
 * @t: when each came, in units of %BENCH_WINDOW_UNIT_NS after @t_first
 *	(@t[0] is @t_first itself): @ios + 1 entries.
 * @closed: a QP stopped issuing, or @t is full; nothing more is counted
 *	and the QPs stop.
 * @wq: woken on each completion of the run, on any QP.
 *
 * One window for all QPs, not a rate per QP added up: on one vCPU the QPs
 * share the CPU, and a QP whose own window began before the others' or
 * ended after them would count a stretch where it ran alone.  The rate is
 * the slope of the least-squares line through the completions (n against
 * time), not the count over the span between the first and the last: the
 * completions of several QPs come in bursts, and where the window's ends
 * fall in a burst moved the count by one in some 64 (bench_window_rate()).
 */
struct bench_window {
	u64 t0;
	u64 t_end;
	spinlock_t lock;	/* the CQ callbacks against the threads */
	unsigned int nr_qps;
	unsigned int started;
	u64 t_first;
	u32 ios;
	u32 *t;
	bool closed;
	wait_queue_head_t wq;
};

/**
 * struct bench_loop - the state of one QP's run, in the run's loop
 * @idle: slots with no I/O in flight.
 * @nr_idle: how many.
 * @pending: a slot prepared and not posted yet (the send queue was full).
 * @first: its chain.
 * @inflight: I/Os posted and not completed.
 * @stopping: the QP issues no more I/Os.
 * @flushed: the QP was moved to the error state.
 */
struct bench_loop {
	struct bench_slot *idle[BENCH_MAX_QD];
	unsigned int nr_idle;
	struct bench_slot *pending;
	struct ib_send_wr *first;
	u32 inflight;
	bool stopping;
	bool flushed;
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
 * @lock: protects @done, @nr_done and @wake_at.
 * @done: completed slots, in completion order.
 * @nr_done: how many.
 * @wake_at: the CQ callback wakes the run's loop once @nr_done reaches it.
 * @sq_used: WRs posted and not completed.
 * @sq_size: WRs the send queue takes.
 * @impl: the implementation of the current run.
 * @dir: its direction.
 * @qd: its queue depth.
 * @max_ios: stop after this many I/Os (0: by time).
 * @win: the run's window, shared with the run's other QPs.
 * @started: the run's first completion on this QP has been seen.
 * @loop: the run's state of the QP.
 * @st: its measurements.
 * @err: its error, 0 if none.
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

	spinlock_t lock;	/* @done, @nr_done, @wake_at against the CQ callback */
	struct list_head done;
	u32 nr_done;
	u32 wake_at;
	u32 sq_used;
	u32 sq_size;

	enum bench_impl impl;
	enum dma_data_direction dir;
	unsigned int qd;
	u64 max_ios;
	struct bench_window *win;
	bool started;
	struct bench_loop loop;
	struct bench_stats st;
	int err;
};

/**
 * struct bench_dev - the QPs of one device kind
 * @target: the device kind.
 * @qps: %BENCH_MAX_QPS QPs, each of its own pair.
 * @nr_qps: how many are connected.
 * @win: the window of the run in progress.
 * @win_t: its completion times, %BENCH_WINDOW_MAX_IOS + 1 entries.
 * @recycle_checked: per direction (READ, WRITE), the data after device MR
 *	replacements was checked (bench_verify_recycled()).
 */
struct bench_dev {
	const struct mrcore_e2e_target *target;
	struct bench_qp qps[BENCH_MAX_QPS];
	unsigned int nr_qps;
	struct bench_window win;
	u32 *win_t;
	bool recycle_checked[2];
};

/* The WRs and registrations of one chain: what the CPU loop built. */
struct bench_chain {
	u32 wrs;
	u32 mrs;
};

/**
 * struct bench_result - one implementation's figures for one row
 * @ops: ops/s of each run, in thousandths.
 * @nr_runs: runs.
 * @ios: I/Os of all runs.
 * @wrs: their WRs.
 * @mrs: their registrations.
 * @posts: their ib_post_send() calls.
 * @waits: times their loops waited for completions.
 * @cpu_ns: init + wrs + destroy loops, ns per I/O.
 * @nr_cpu: loops.
 * @cpu_chain: the chain the CPU loop built.
 * @backend: backend or kind of chain.
 * @mixed: the runs used more than one.
 * @verified: the data check of its shape and direction passed.
 * @checked: measured runs whose data, on every slot, was compared.
 * @recycled: device MRs the core replaced during the measured runs.
 * @err: the first error, 0 if none.
 */
struct bench_result {
	u64 ops[BENCH_MAX_ROUNDS];
	unsigned int nr_runs;
	u64 ios;
	u64 wrs;
	u64 mrs;
	u64 posts;
	u64 waits;
	u64 cpu_ns[BENCH_MAX_ROUNDS];
	unsigned int nr_cpu;
	struct bench_chain cpu_chain;
	const char *backend;
	bool mixed;
	bool verified;
	unsigned int checked;
	u64 recycled;
	int err;
};

static inline const char *bench_dir_name(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE ? "READ" : "WRITE";
}

/* rig.c */
int bench_mem_alloc(struct bench_mem *m, const struct bench_shape *sh);
void bench_mem_free(struct bench_mem *m);
u8 *bench_mem_byte(struct bench_mem *m, size_t i);
int bench_qp_create(struct bench_qp *q, const struct mrcore_e2e_target *t);
void bench_qp_destroy(struct bench_qp *q);

/* run.c */
void bench_window_count(struct bench_qp *q, u64 now);
int bench_run(struct bench_dev *d, unsigned int nr_qps, enum bench_impl impl,
	      enum dma_data_direction dir, unsigned int qd, u64 run_ns,
	      u64 max_ios, struct bench_result *r, u64 *mops);

/* sides.c */
int bench_prepare(struct bench_qp *q, struct bench_slot *s,
		  struct ib_send_wr **first, const char **backend);
int bench_post_io(struct bench_qp *q, struct bench_slot *s,
		  struct ib_send_wr *first);
void bench_release(struct bench_qp *q, struct bench_slot *s, bool ok);
void bench_account(struct bench_qp *q, const char *backend);

/* cpu.c */
int bench_cpu(struct bench_qp *q, enum bench_impl impl,
	      enum dma_data_direction dir, u64 *ns, struct bench_chain *chain);
int bench_mr_cycle(struct bench_qp *q, u32 pages, u64 *alloc_ns,
		   u64 *dereg_ns);

/* main.c */
struct bench_data;
struct bench_data *bench_data_set(struct bench_dev *d,
				  enum dma_data_direction dir, unsigned int qd,
				  unsigned int qps, u32 seed);
int bench_data_check(struct bench_dev *d, enum dma_data_direction dir,
		     unsigned int qd, unsigned int qps, struct bench_data *data);
void bench_data_free(struct bench_data *data);

/* report.c */
u64 bench_median(u64 *v, unsigned int n);
bool bench_selected(struct bench_dev *d, enum dma_data_direction dir,
		    const struct bench_shape *sh, unsigned int qd,
		    unsigned int qps);
void bench_row(struct bench_dev *d, enum dma_data_direction dir,
	       const struct bench_shape *sh, unsigned int qd,
	       unsigned int qps, const bool verified[BENCH_NR_IMPLS]);

#endif /* _MRCORE_BENCH_H */
