// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites mrcore_stress_siw and mrcore_stress_rxe: the READ/WRITE
 * helper reached from many CPUs at once, as a ULP reaches it.
 *
 * Two connected pairs (two QPs, two pools) per device; three kthreads per
 * pool, spread over the CPUs, each issuing batches of READs and WRITEs of
 * random shapes on the pool it shares with the other two; the completions
 * destroy their I/O in the CQ's work item (IB_POLL_WORKQUEUE), so MRs go
 * back to a pool from other CPUs while the threads take them.  Meanwhile a
 * fifth kthread registers and unregisters a backend of the test's own, in a
 * loop, so every pool resolves its backends again and again under the I/O.
 * The run goes in rounds: between two rounds, with the threads parked (the
 * contract of rdma_io_pool_force_backend()), each pool gets a backend forced
 * or the cost model back, and every other round one fault point is armed.
 *
 * Every I/O must complete, its bytes checked at both ends with the
 * position-unique pattern, or be refused with the errno its cause gives: a
 * forced backend that cannot move the direction (-EOPNOTSUPP), or the fault
 * armed in the round (dma_map -ENOMEM, pool_empty -EAGAIN, map_short -EIO
 * at init; post_send -ENOMEM at post), never more of those than the point
 * injected.  Afterwards every MR is back in its pool, no DMA mapping is
 * left, and an attacker on a new connection to each pool's PD finds the
 * last keys the threads saw dead, the memory they named unchanged.
 *
 * stress_ios sets the number of I/Os per device (made a multiple of a
 * round): 1536 in make check's kunit step, more under make kcsan, whose
 * KCSAN kernel runs this with 4 vCPUs.
 */

#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/wait.h>

#include "e2e_suite.h"
#include "io_e2e.h"

#define STRESS_POOLS		2
#define STRESS_THREADS		3	/* per pool */
#define STRESS_NR_THREADS	(STRESS_POOLS * STRESS_THREADS)
#define STRESS_BATCH		4	/* I/Os a thread has in flight */
#define STRESS_PAGES		16
#define STRESS_SLOT		((STRESS_PAGES + 1) * PAGE_SIZE) /* + guard */
#define STRESS_ROUND_IOS	16	/* per thread and round */
#define STRESS_ROUND_MS		300000
#define STRESS_SEED		0x40000
#define STRESS_SEED_REUSED	0x3f001
#define STRESS_ERR_LEN		160

static unsigned int stress_ios = 1536;
module_param(stress_ios, uint, 0444);
MODULE_PARM_DESC(stress_ios, "I/Os per device in the mrcore_stress_* suites (rounded up to a whole round)");

/* The backend the registry thread registers and withdraws, in a loop. */
static bool stress_backend_serves(struct ib_device *dev)
{
	return true;
}

static struct rdma_mr_backend_ops stress_backend = {
	.name = "stress_sges",
	.owner = THIS_MODULE,
	.serves = stress_backend_serves,
	.io_flags = RDMA_IO_SGES,
};

/* What a round's armed fault refuses, and with which errno. */
struct stress_fault {
	const char *name;
	int init_err;	/* rdma_io_ctx_init()'s, or 0 */
	int post_err;	/* rdma_io_ctx_post()'s, or 0 */
};

static const struct stress_fault stress_faults[] = {
	{ "dma_map", -ENOMEM, 0 },
	{ "pool_empty", -EAGAIN, 0 },
	{ "map_short", -EIO, 0 },
	{ "post_send", 0, -ENOMEM },
};

struct stress_run;
struct stress_thread;

/**
 * struct stress_io - one I/O of a thread
 * @cqe: its completion entry; stress_io_done() destroys the I/O.
 * @done: completed by stress_io_done().
 * @ctx: the context.
 * @t: the thread.
 * @status: the completion status.
 * @read: a READ (else a WRITE).
 * @local: first byte in the local memory.
 * @base: first byte in the owner's memory.
 * @len: bytes.
 * @seed: the pattern.
 */
struct stress_io {
	struct ib_cqe cqe;
	struct completion done;
	struct rdma_io_ctx ctx;
	struct stress_thread *t;
	int status;
	bool read;
	u64 local;
	u64 base;
	u64 len;
	u32 seed;
};

/**
 * struct stress_pool - a pair, its owner memory and its pool
 * @pair: the pair.
 * @owner: the far side's memory.
 * @pool: the pool the threads share.
 * @size: MRs it owned when created.
 * @forced: the backend forced this round, or %NULL.
 */
struct stress_pool {
	struct mrcore_e2e_pair *pair;
	struct io_owner *owner;
	struct rdma_io_pool *pool;
	u32 size;
	const char *forced;
};

/**
 * struct stress_thread - one kthread and what it saw
 * @run: the run.
 * @sp: its pool.
 * @slot: its place among the pool's threads (its slots of owner memory).
 * @task: the kthread.
 * @l: local memory, one per I/O in flight.
 * @io: the I/Os in flight.
 * @ios: I/Os issued.
 * @moved: completed and verified.
 * @bytes: bytes they moved.
 * @refused_forced: refused with -EOPNOTSUPP by a forced backend.
 * @refused_fault: refused by the round's fault.
 * @by_test_backend: moved by the registry thread's backend.
 * @errors: anything else; the first one is in @err.
 * @err: the first error, said by the test thread.
 * @key: the key of the last MR-based I/O.
 * @iova: its address.
 * @key_buf: the memory it named, or %NULL if there was none.
 * @fence: where the siw fence READ lands, DMA-mapped on the device.
 */
struct stress_thread {
	struct stress_run *run;
	struct stress_pool *sp;
	unsigned int slot;
	struct task_struct *task;
	struct io_local *l[STRESS_BATCH];
	struct stress_io io[STRESS_BATCH];
	u64 ios;
	u64 moved;
	u64 bytes;
	u32 refused_forced;
	u32 refused_fault;
	u32 by_test_backend;
	u32 errors;
	char err[STRESS_ERR_LEN];
	u32 key;
	u64 iova;
	struct mrcore_e2e_buf *key_buf;
	struct mrcore_e2e_buf fence;
};

/**
 * struct stress_run - one device's run
 * @iwarp: the device is siw.
 * @sp: the pools.
 * @t: the threads.
 * @wq: the threads wait here for the next round.
 * @round: the round the threads may run; bumped by the test thread.
 * @running: threads still in the round.
 * @round_done: completed by the last thread of a round.
 * @fault: the fault armed this round, or %NULL.
 * @registry: the registry kthread.
 * @reg_cycles: its register/unregister cycles.
 * @reg_err: the first error of rdma_mr_backend_register(), or 0.
 */
struct stress_run {
	bool iwarp;
	struct stress_pool sp[STRESS_POOLS];
	struct stress_thread t[STRESS_NR_THREADS];
	wait_queue_head_t wq;
	int round;
	atomic_t running;
	struct completion round_done;
	const struct stress_fault *fault;
	struct task_struct *registry;
	atomic_t reg_cycles;
	int reg_err;
};

static __printf(2, 3) void stress_error(struct stress_thread *t,
					const char *fmt, ...)
{
	va_list ap;

	if (!t->errors++) {
		va_start(ap, fmt);
		vsnprintf(t->err, sizeof(t->err), fmt, ap);
		va_end(ap);
	}
}

/* Whether forcing @forced refuses an I/O of this direction (-EOPNOTSUPP). */
static bool stress_forced_refuses(bool iwarp, const char *forced, bool read)
{
	if (!forced || !iwarp)
		return false;
	/* An iWARP READ only through sink MRs; the sink backend READs only. */
	return read != !strcmp(forced, "iwarp");
}

/* In the CQ's work item, on any CPU: the I/O ends here, as in a ULP. */
static void stress_io_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct stress_io *io = container_of(wc->wr_cqe, struct stress_io, cqe);

	io->status = wc->status;
	rdma_io_ctx_destroy(&io->ctx, wc);
	complete(&io->done);
}

/* Set up and start I/O @i of a batch; false if it was refused. */
static bool stress_io_start(struct stress_thread *t, unsigned int i, u32 seed)
{
	struct stress_run *run = t->run;
	struct stress_pool *sp = t->sp;
	struct stress_io *io = &t->io[i];
	struct io_local *l = t->l[i];
	const struct stress_fault *f = run->fault;
	u32 first = get_random_u32_below(STRESS_PAGES);
	u32 cnt = 1 + get_random_u32_below(STRESS_PAGES - first);
	u32 off = get_random_u32_below(PAGE_SIZE);
	bool refuse;
	int ret;

	io->t = t;
	io->read = get_random_u32_below(2);
	io->local = (u64)first * PAGE_SIZE + off;
	io->base = (u64)(t->slot * STRESS_BATCH + i) * STRESS_SLOT;
	io->len = (u64)cnt * PAGE_SIZE - off;
	io->seed = seed;
	refuse = stress_forced_refuses(run->iwarp, sp->forced, io->read);
	t->ios++;

	/*
	 * The slot's data pages and all of the local memory poisoned, the
	 * source's range filled.  The slot's guard page is never written:
	 * the neighbouring slot's check reads it.
	 */
	mrcore_e2e_buf_poison(&l->buf);
	mrcore_e2e_buf_fill_range(&sp->owner->buf, io->base,
				  STRESS_PAGES * PAGE_SIZE,
				  MRCORE_E2E_POISONED);
	if (io->read)
		mrcore_e2e_buf_fill_range(&sp->owner->buf, io->base, io->len,
					  seed);
	else
		mrcore_e2e_buf_fill_range(&l->buf, io->local, io->len, seed);

	ret = rdma_io_ctx_init(&io->ctx, sp->pool, l->sg + first, cnt, off,
			       sp->owner->iova + io->base, sp->owner->rkey,
			       io->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret <= 0) {
		if (refuse && ret == -EOPNOTSUPP)
			t->refused_forced++;
		else if (f && ret && ret == f->init_err)
			t->refused_fault++;
		else
			stress_error(t, "%s of %llu bytes (forced %s, fault %s): init %d",
				     io->read ? "READ" : "WRITE", io->len,
				     sp->forced ?: "none",
				     f ? f->name : "none", ret);
		return false;
	}
	if (refuse) {
		stress_error(t, "%s through forced %s was not refused: %d WRs",
			     io->read ? "READ" : "WRITE", sp->forced, ret);
		rdma_io_ctx_destroy(&io->ctx, NULL);
		return false;
	}
	if (!strcmp(rdma_io_ctx_backend(&io->ctx), stress_backend.name))
		t->by_test_backend++;
	if (io->ctx.nr_mrs) {
		t->key = io->ctx.mrs[0]->key;
		t->iova = io->ctx.mrs[0]->iova;
		t->key_buf = &l->buf;
	}

	init_completion(&io->done);
	io->status = -EIO;
	io->cqe.done = stress_io_done;
	ret = rdma_io_ctx_post(&io->ctx, &io->cqe, NULL);
	if (ret) {
		/* Never -EINPROGRESS: post_wr is not armed. */
		if (f && ret == f->post_err)
			t->refused_fault++;
		else
			stress_error(t, "%s of %llu bytes: post %d",
				     io->read ? "READ" : "WRITE", io->len, ret);
		rdma_io_ctx_destroy(&io->ctx, NULL);
		return false;
	}
	return true;
}

/* Wait for a started I/O (destroyed by then); true if it succeeded. */
static bool stress_io_wait(struct stress_thread *t, unsigned int i)
{
	struct stress_io *io = &t->io[i];

	if (!wait_for_completion_timeout(&io->done,
					 msecs_to_jiffies(IO_TIMEOUT_MS))) {
		/* The harness's way: the flush completes it, then it is
		 * destroyed; the I/O counts as an error.
		 */
		struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

		ib_modify_qp(t->sp->pair->active.qp, &attr, IB_QP_STATE);
		wait_for_completion(&io->done);
		stress_error(t, "%s of %llu bytes: no completion",
			     io->read ? "READ" : "WRITE", io->len);
		return false;
	}
	if (io->status != IB_WC_SUCCESS) {
		stress_error(t, "%s of %llu bytes: completion status %d",
			     io->read ? "READ" : "WRITE", io->len, io->status);
		return false;
	}
	return true;
}

/*
 * On iWARP a WRITE's completion says only that the source may be reused:
 * the bytes may still be on their way to the peer's memory.  A READ on the
 * same QP is served after the WRITEs before it were placed, so once its
 * completion is in, the owner's memory holds them.
 */
static void stress_fence(struct stress_thread *t)
{
	struct mrcore_e2e_side *side = &t->sp->pair->active;
	struct mrcore_e2e_wait w;
	struct ib_rdma_wr wr;
	struct ib_sge sge = {
		.addr = mrcore_e2e_buf_dma_addr(&t->fence),
		.length = 1,
		.lkey = side->pd->local_dma_lkey,
	};
	int st;

	mrcore_e2e_wait_init(&w);
	/* A guard byte of the owner's memory: no I/O writes there. */
	mrcore_e2e_rdma_wr(&wr, IB_WR_RDMA_READ, &sge,
			   t->sp->owner->iova + STRESS_PAGES * PAGE_SIZE,
			   t->sp->owner->rkey, &w);
	st = mrcore_e2e_post(side, &wr.wr, &w, IO_TIMEOUT_MS);
	if (st != IB_WC_SUCCESS)
		stress_error(t, "the fence READ after the WRITEs: %d", st);
}

/* Check both ends of an I/O that completed. */
static void stress_io_verify(struct stress_thread *t, unsigned int i)
{
	struct stress_io *io = &t->io[i];
	struct mrcore_e2e_buf *owner = &t->sp->owner->buf;
	struct mrcore_e2e_diff d;

	if (!mrcore_e2e_buf_verify(&t->l[i]->buf, io->local, io->len,
				   io->seed, &d) ||
	    !mrcore_e2e_buf_verify(owner, io->base, io->len, io->seed, &d)) {
		stress_error(t,
			     "%s of %llu bytes: %llu wrong, the first at %lld (%s): 0x%02x, want 0x%02x",
			     io->read ? "READ" : "WRITE", io->len, d.bad, d.pos,
			     d.what, d.got, d.want);
		return;
	}
	t->moved++;
	t->bytes += io->len;
}

static void stress_round(struct stress_thread *t, int round)
{
	bool started[STRESS_BATCH];
	u32 left = STRESS_ROUND_IOS, n, i;
	u32 seed = STRESS_SEED + ((round * STRESS_NR_THREADS +
				   (t - t->run->t)) << 8);

	while (left) {
		bool wrote = false;

		n = min(left, 1 + get_random_u32_below(STRESS_BATCH));
		for (i = 0; i < n; i++)
			started[i] = stress_io_start(t, i, seed++);
		for (i = 0; i < n; i++) {
			if (started[i])
				started[i] = stress_io_wait(t, i);
			wrote |= started[i] && !t->io[i].read;
		}
		if (wrote && t->run->iwarp)
			stress_fence(t);
		for (i = 0; i < n; i++)
			if (started[i])
				stress_io_verify(t, i);
		left -= n;
	}
}

/* Whether the test thread has opened the round after @round. */
static bool stress_round_open(struct stress_run *run, int round)
{
	/* Pairs with the release in stress_io_many_cpus(): settings first. */
	return smp_load_acquire(&run->round) > round;
}

static int stress_thread_fn(void *data)
{
	struct stress_thread *t = data;
	struct stress_run *run = t->run;
	int round = 0;

	for (;;) {
		wait_event_idle(run->wq, stress_round_open(run, round) ||
				kthread_should_stop());
		if (kthread_should_stop())
			break;
		round++;
		stress_round(t, round);
		if (atomic_dec_and_test(&run->running))
			complete(&run->round_done);
	}
	return 0;
}

/* The registry changes under the I/O: a backend comes and goes. */
static int stress_registry_fn(void *data)
{
	struct stress_run *run = data;
	int ret;

	while (!kthread_should_stop()) {
		ret = rdma_mr_backend_register(&stress_backend);
		if (ret) {
			run->reg_err = ret;
			break;
		}
		usleep_range(500, 2000);
		rdma_mr_backend_unregister(&stress_backend);
		atomic_inc(&run->reg_cycles);
		usleep_range(500, 2000);
	}
	/* Parked until stopped: kthread_stop() needs the task. */
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ / 10);
	return 0;
}

/* Stops every kthread of the run (also when an assertion ends the test). */
static void stress_stop(void *data)
{
	struct stress_run *run = data;
	unsigned int i;

	if (run->registry)
		kthread_stop(run->registry);
	run->registry = NULL;
	for (i = 0; i < STRESS_NR_THREADS; i++) {
		if (run->t[i].task)
			kthread_stop(run->t[i].task);
		run->t[i].task = NULL;
	}
}

static void stress_fence_release(void *data)
{
	struct stress_thread *t = data;

	ib_dma_unmap_sg(t->sp->pair->active.device, t->fence.sg,
			t->fence.nents, DMA_FROM_DEVICE);
	mrcore_e2e_buf_free(&t->fence);
}

static void stress_fence_create(struct kunit *test, struct stress_thread *t)
{
	struct ib_device *dev = t->sp->pair->active.device;
	int ret, nents;

	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&t->fence, 64, 0));
	nents = t->fence.nents;
	ret = ib_dma_map_sg(dev, t->fence.sg, nents, DMA_FROM_DEVICE);
	if (ret != nents)
		mrcore_e2e_buf_free(&t->fence);
	KUNIT_ASSERT_EQ_MSG(test, ret, nents,
			    "DMA mapping of the fence READ's sink");
	ret = kunit_add_action_or_reset(test, stress_fence_release, t);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

static void stress_disarm(void *data)
{
	const struct stress_fault *f = data;

	rdma_mrcore_fault_arm(f->name, 0, 0);
}

static struct task_struct *stress_kthread(struct kunit *test,
					  int (*fn)(void *), void *data,
					  unsigned int n)
{
	struct task_struct *task;
	unsigned int cpu = n % num_online_cpus();

	task = kthread_create(fn, data, "mrcore_stress/%u", n);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(task), "kthread %u: %d", n,
			       PTR_ERR_OR_ZERO(task));
	/* Spread over the CPUs: the pools are reached from all of them. */
	if (cpu_online(cpu))
		kthread_bind(task, cpu);
	wake_up_process(task);
	return task;
}

/* A backend to force on a pool for a round, or NULL for the cost model. */
static const char *stress_pick_backend(bool iwarp)
{
	static const char *const rxe[] = { NULL, NULL, "frwr", "multiread" };
	static const char *const siw[] = { NULL, NULL, NULL, "frwr",
					   "multiread", "iwarp" };

	if (iwarp)
		return siw[get_random_u32_below(ARRAY_SIZE(siw))];
	return rxe[get_random_u32_below(ARRAY_SIZE(rxe))];
}

/*
 * Wait for the threads to finish a round, reading the device's counters
 * every few milliseconds meanwhile, as a monitor reading debugfs does: the
 * per-CPU counters are summed while other CPUs add to them.  Counts only
 * grow, so a sum smaller than an earlier one was read torn.
 */
static bool stress_watch_round(struct kunit *test, struct stress_run *run,
			       struct ib_device *dev, u64 *seen)
{
	unsigned long end = jiffies + msecs_to_jiffies(STRESS_ROUND_MS);
	u64 v;

	do {
		KUNIT_EXPECT_EQ(test, 0,
				rdma_mrcore_device_counter(dev, "pool_hits",
							   &v));
		KUNIT_EXPECT_GE_MSG(test, v, *seen,
				    "the pool_hits counter went back");
		*seen = max(v, *seen);
		/*
		 * Summed too, for the race detector; the figure itself may
		 * be off by the maps and unmaps on the CPUs read already.
		 */
		rdma_mrcore_dma_maps_live();
		if (wait_for_completion_timeout(&run->round_done,
						msecs_to_jiffies(5)))
			return true;
	} while (time_before(jiffies, end));
	return false;
}

/* The attacker tries the last key each thread saw: WRITE, then READ. */
static u32 stress_keys_dead(struct kunit *test, struct stress_run *run)
{
	u32 tried = 0;
	unsigned int i;

	for (i = 0; i < STRESS_NR_THREADS; i++) {
		struct stress_thread *t = &run->t[i];

		if (!t->key_buf)
			continue;
		mrcore_e2e_buf_fill(t->key_buf, STRESS_SEED_REUSED);
		io_key_refused(test, t->sp->pair, IB_WR_RDMA_WRITE, t->key,
			       t->iova, t->key_buf, 0);
		mrcore_e2e_expect_data(test, t->key_buf, 0, t->key_buf->len,
				       STRESS_SEED_REUSED,
				       "memory of a stress I/O after the run");
		io_key_refused(test, t->sp->pair, IB_WR_RDMA_READ, t->key,
			       t->iova, t->key_buf, 0);
		tried++;
	}
	return tried;
}

/**
 * struct stress_tally - the figures of a run
 * @ios: I/Os issued.
 * @moved: I/Os that moved their bytes, verified.
 * @bytes: their bytes.
 * @refused_forced: I/Os a forced backend refused.
 * @refused_fault: I/Os an injected failure refused.
 * @injected: injected failures.
 * @armed: rounds with a fault point armed.
 * @by_test_backend: I/Os through the backend the registry thread registers.
 * @errors: I/Os that went wrong.
 * @changed: rounds in which the registry changed.
 * @hits_seen: the most fault hits stress_watch_round() saw at once.
 */
struct stress_tally {
	u64 ios, moved, bytes;
	u32 refused_forced, refused_fault, injected, armed;
	u32 by_test_backend, errors, changed;
	u64 hits_seen;
};

/* The pools, each on its own pair, and the threads with their memory. */
static void stress_setup(struct kunit *test, struct stress_run *run)
{
	struct mrcore_shape_desc d = { "stress", STRESS_PAGES, 0, PAGE_SIZE,
				       1 };
	unsigned int i, j;

	run->iwarp = io_on_iwarp(test);
	init_waitqueue_head(&run->wq);
	init_completion(&run->round_done);
	atomic_set(&run->reg_cycles, 0);

	for (i = 0; i < STRESS_POOLS; i++) {
		struct stress_pool *sp = &run->sp[i];

		/* Twice what the threads hold: only a fault makes it dry. */
		sp->pair = io_pair(test, 2 * STRESS_THREADS * STRESS_BATCH,
				   STRESS_PAGES);
		sp->owner = io_owner_create(test, sp->pair);
		KUNIT_ASSERT_NOT_NULL(test, sp->owner);
		sp->pool = io_pool(test, &sp->pair->active,
				   2 * STRESS_THREADS * STRESS_BATCH,
				   STRESS_PAGES);
		sp->size = rdma_io_pool_size(sp->pool);
		KUNIT_ASSERT_GT(test, sp->size, 0u);
	}
	for (i = 0; i < STRESS_NR_THREADS; i++) {
		struct stress_thread *t = &run->t[i];

		t->run = run;
		t->sp = &run->sp[i / STRESS_THREADS];
		t->slot = i % STRESS_THREADS;
		for (j = 0; j < STRESS_BATCH; j++)
			t->l[j] = io_local_create(test, &d);
		stress_fence_create(test, t);
	}
}

/*
 * Round @r: each pool's backend forced, a fault point armed every other
 * round, the threads woken and watched until they are done.  Returns false
 * if the round did not end in time.
 */
static bool stress_run_round(struct kunit *test, struct stress_run *run, int r,
			     struct ib_device *dev, struct stress_tally *n)
{
	const struct stress_fault *f = NULL;
	int c0 = atomic_read(&run->reg_cycles);
	unsigned int i;
	int ret;

	/* The threads are parked: forcing is allowed now. */
	for (i = 0; i < STRESS_POOLS; i++) {
		run->sp[i].forced = stress_pick_backend(run->iwarp);
		KUNIT_ASSERT_EQ(test, 0,
				rdma_io_pool_force_backend(run->sp[i].pool,
							   run->sp[i].forced));
	}
	if (r % 2 == 0) {
		f = &stress_faults[get_random_u32_below(ARRAY_SIZE(stress_faults))];
		ret = kunit_add_action_or_reset(test, stress_disarm, (void *)f);
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_ASSERT_EQ(test, 0,
				rdma_mrcore_fault_arm(f->name,
						      get_random_u32_below(8),
						      1 + get_random_u32_below(2)));
		n->armed++;
	}
	run->fault = f;
	reinit_completion(&run->round_done);
	atomic_set(&run->running, STRESS_NR_THREADS);
	/* The settings above before the round: see the acquire. */
	smp_store_release(&run->round, r);
	wake_up_all(&run->wq);
	if (!stress_watch_round(test, run, dev, &n->hits_seen)) {
		KUNIT_FAIL(test, "round %d did not end in %u ms", r,
			   STRESS_ROUND_MS);
		return false;
	}
	if (f) {
		u32 hits = rdma_mrcore_fault_hits(f->name);
		u32 round_refused = 0;

		kunit_release_action(test, stress_disarm, (void *)f);
		for (i = 0; i < STRESS_NR_THREADS; i++)
			round_refused += run->t[i].refused_fault;
		round_refused -= n->refused_fault;
		n->refused_fault += round_refused;
		n->injected += hits;
		/* One injected failure refuses one I/O at most. */
		KUNIT_EXPECT_LE_MSG(test, round_refused, hits,
				    "round %d: %u I/Os refused by %u %s faults",
				    r, round_refused, hits, f->name);
	}
	n->changed += atomic_read(&run->reg_cycles) != c0;
	return true;
}

/* The threads' figures into @n; a thread's errors fail the test. */
static void stress_sum(struct kunit *test, struct stress_run *run,
		       struct stress_tally *n)
{
	unsigned int i;

	for (i = 0; i < STRESS_NR_THREADS; i++) {
		struct stress_thread *t = &run->t[i];

		n->ios += t->ios;
		n->moved += t->moved;
		n->bytes += t->bytes;
		n->refused_forced += t->refused_forced;
		n->by_test_backend += t->by_test_backend;
		n->errors += t->errors;
		KUNIT_EXPECT_EQ_MSG(test, t->errors, 0u,
				    "thread %u: %u errors, the first: %s", i,
				    t->errors, t->err);
	}
}

static void stress_io_many_cpus(struct kunit *test)
{
	u32 per_round = STRESS_NR_THREADS * STRESS_ROUND_IOS;
	u32 rounds = DIV_ROUND_UP(max(stress_ios, 1u), per_round);
	struct stress_tally n = {};
	struct stress_run *run;
	struct ib_device *dev;
	u32 keys, cycles;
	unsigned int i;
	long maps0;
	int r, ret;

	run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run);
	stress_setup(test, run);
	dev = run->sp[0].pair->active.device;
	maps0 = rdma_mrcore_dma_maps_live();

	ret = kunit_add_action_or_reset(test, stress_stop, run);
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < STRESS_NR_THREADS; i++)
		run->t[i].task = stress_kthread(test, stress_thread_fn,
						&run->t[i], i);
	run->registry = stress_kthread(test, stress_registry_fn, run,
				       STRESS_NR_THREADS);
	for (r = 1; r <= rounds; r++)
		if (!stress_run_round(test, run, r, dev, &n))
			break;
	stress_stop(run);
	cycles = atomic_read(&run->reg_cycles);
	stress_sum(test, run, &n);

	kunit_info(test, "%llu I/Os on %u threads over %u pools in %u rounds: %llu moved and verified (%llu bytes, %u by %s), %u refused by a forced backend, %u by %u faults injected of %u armed; %u registry cycles, changing in %u rounds\n",
		   n.ios, STRESS_NR_THREADS, STRESS_POOLS, r - 1, n.moved,
		   n.bytes, n.by_test_backend, stress_backend.name,
		   n.refused_forced, n.refused_fault, n.injected, n.armed,
		   cycles, n.changed);
	KUNIT_EXPECT_EQ(test, run->reg_err, 0);
	KUNIT_EXPECT_EQ(test, n.ios, (u64)rounds * per_round);
	/* Every I/O is accounted for: moved, or refused for its cause. */
	KUNIT_EXPECT_EQ(test, n.moved + n.refused_forced + n.refused_fault +
			n.errors, n.ios);
	KUNIT_EXPECT_GT(test, n.moved, 0ull);
	KUNIT_EXPECT_GT_MSG(test, cycles, 0u, "the registry never changed");
	KUNIT_EXPECT_GT_MSG(test, n.by_test_backend, 0u,
			    "no I/O went through the backend registered under it");

	for (i = 0; i < STRESS_POOLS; i++) {
		struct rdma_io_pool *pool = run->sp[i].pool;

		KUNIT_EXPECT_EQ_MSG(test, rdma_io_pool_drain(pool),
				    run->sp[i].size, "pool %u: MRs not back", i);
		KUNIT_EXPECT_EQ(test, rdma_io_pool_size(pool), run->sp[i].size);
	}
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the run");
	keys = stress_keys_dead(test, run);
	KUNIT_EXPECT_GT_MSG(test, keys, 0u, "no MR-based I/O: no key to try");
}

static struct kunit_case stress_cases[] = {
	KUNIT_CASE_SLOW(stress_io_many_cpus),
	{}
};

static struct kunit_suite stress_siw_suite = {
	.name = "mrcore_stress_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = stress_cases,
};

static struct kunit_suite stress_rxe_suite = {
	.name = "mrcore_stress_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = stress_cases,
};

kunit_test_suites(&stress_siw_suite, &stress_rxe_suite);
