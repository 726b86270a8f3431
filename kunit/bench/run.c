// SPDX-License-Identifier: GPL-2.0-only
/*
 * One run of `make bench`: every QP of the run in a thread of its own keeps
 * its queue depth of I/Os in flight (prepare, post the chain with one
 * ib_post_send(), release on completion) until the run's time is up.  The
 * rate is counted from the first completion to the moment the QP stops
 * issuing, while its queue is full.
 */

#include <linux/kthread.h>
#include <linux/ktime.h>

#include "bench.h"

/**
 * struct bench_loop - the state of one QP's run, in its thread
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

static void bench_stop(struct bench_qp *q, struct bench_loop *l, u64 now)
{
	l->stopping = true;
	q->st.t_stop = now;
}

/* Fail the QP so that everything in flight completes (flushed). */
static void bench_flush(struct bench_qp *q)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	ib_modify_qp(q->pair->active.qp, &attr, IB_QP_STATE);
}

/* Count a completed slot: an error fails the run, a success is one I/O. */
static void bench_completed(struct bench_qp *q, struct bench_slot *s)
{
	struct bench_stats *st = &q->st;

	if (s->status != IB_WC_SUCCESS) {
		if (!q->err) {
			pr_err("mrcore_bench: %s %s: completion status %s\n",
			       bench_impl_name[q->impl], bench_dir_name(q->dir),
			       ib_wc_status_msg(s->status));
			q->err = -EIO;
		}
		return;
	}
	st->ios++;
	st->wrs += s->wrs;
	st->mrs += s->mrs;
	if (!st->t_first)
		st->t_first = s->done_ns;
	else if (!st->t_stop || s->done_ns <= st->t_stop)
		st->window_ios++;
}

/* Release the slots the CQ callback has completed since the last call. */
static void bench_reap(struct bench_qp *q, struct bench_loop *l)
{
	struct bench_slot *s, *tmp;
	LIST_HEAD(reaped);

	spin_lock_irq(&q->lock);
	list_splice_init(&q->done, &reaped);
	spin_unlock_irq(&q->lock);
	list_for_each_entry_safe(s, tmp, &reaped, entry) {
		list_del_init(&s->entry);
		l->inflight--;
		q->sq_used -= s->wrs;
		bench_release(q, s, s->status == IB_WC_SUCCESS);
		l->idle[l->nr_idle++] = s;
		bench_completed(q, s);
	}
}

/* Prepare an idle slot's I/O; false if it failed and the run stops. */
static bool bench_take(struct bench_qp *q, struct bench_loop *l, u64 now)
{
	const char *backend = NULL;
	int ret;

	l->pending = l->idle[--l->nr_idle];
	ret = bench_prepare(q, l->pending, &l->first, &backend);
	if (ret) {
		pr_err("mrcore_bench: %s %s: init: %d\n",
		       bench_impl_name[q->impl], bench_dir_name(q->dir), ret);
		q->err = ret;
		l->idle[l->nr_idle++] = l->pending;
		l->pending = NULL;
		bench_stop(q, l, now);
		return false;
	}
	bench_account(q, backend);
	return true;
}

/*
 * Post the pending I/O's chain if the send queue has room for it.  Returns
 * false when nothing more is to be posted now: no room, the run's last I/O,
 * or a failed post (the run stops).
 */
static bool bench_post(struct bench_qp *q, struct bench_loop *l, u64 now)
{
	const struct ib_send_wr *bad = NULL;
	int ret;

	if (q->sq_used + l->pending->wrs > q->sq_size) {
		if (!l->inflight) {
			q->err = -ENOSPC;
			bench_stop(q, l, now);
		}
		return false;
	}
	ret = ib_post_send(q->pair->active.qp, l->first, &bad);
	q->st.posts++;
	if (ret) {
		pr_err("mrcore_bench: %s %s: ib_post_send: %d\n",
		       bench_impl_name[q->impl], bench_dir_name(q->dir), ret);
		q->err = ret;
		bench_stop(q, l, now);
		if (bad == l->first)
			return false;	/* nothing posted: released below */
		/*
		 * Part of the chain is on the queue: flush it and wait for
		 * the slot like for the others.
		 */
		bench_flush(q);
		l->flushed = true;
	}
	l->inflight++;
	q->sq_used += l->pending->wrs;
	l->pending = NULL;
	if (ret)
		return false;
	return !(q->max_ios && q->st.ios + l->inflight >= q->max_ios);
}

/* Fill the queue depth; a stopping run gives back what it did not post. */
static void bench_issue(struct bench_qp *q, struct bench_loop *l, u64 now)
{
	while (!l->stopping && (l->pending || l->nr_idle)) {
		if (!l->pending && !bench_take(q, l, now))
			break;
		if (!bench_post(q, l, now))
			break;
	}
	if (l->stopping && l->pending) {
		bench_release(q, l->pending, false);
		l->idle[l->nr_idle++] = l->pending;
		l->pending = NULL;
	}
}

/*
 * Wait for a completion.  None for %BENCH_STALL_MS: flush the QP so that
 * everything in flight completes; none even then: block for good, since the
 * slots can never be freed.
 */
static void bench_wait(struct bench_qp *q, struct bench_loop *l)
{
	if (wait_event_timeout(q->wq, !list_empty(&q->done),
			       msecs_to_jiffies(BENCH_STALL_MS)))
		return;
	if (l->flushed) {
		/* Not even flushed: never free the slots. */
		pr_err("mrcore_bench: %u I/Os neither completed nor flushed; blocking\n",
		       l->inflight);
		wait_event(q->wq, false);
	}
	pr_err("mrcore_bench: %s %s: no completion in %u ms, %u in flight; flushing\n",
	       bench_impl_name[q->impl], bench_dir_name(q->dir),
	       BENCH_STALL_MS, l->inflight);
	q->err = -ETIMEDOUT;
	l->stopping = true;
	if (!q->st.t_stop)
		q->st.t_stop = ktime_get_ns();
	bench_flush(q);
	l->flushed = true;
}

/* The thread of one QP's run. */
static int bench_run_qp(void *data)
{
	struct bench_qp *q = data;
	struct bench_loop l = {};
	unsigned int i;

	for (i = 0; i < q->qd; i++)
		l.idle[l.nr_idle++] = &q->slots[i];
	q->t0 = ktime_get_ns();
	q->t_end = q->t0 + q->run_ns;

	for (;;) {
		u64 now;

		bench_reap(q, &l);
		now = ktime_get_ns();
		if (!l.stopping &&
		    (q->err || bench_should_stop(q, now, l.inflight)))
			bench_stop(q, &l, now);
		bench_issue(q, &l, now);
		if (!l.inflight && (l.stopping || q->err))
			break;
		bench_wait(q, &l);
	}
	complete(&q->finished);
	return 0;
}

/* Add one QP's run to @r; returns its ops/s, in thousandths. */
static u64 bench_add(struct bench_result *r, const struct bench_stats *st)
{
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
		return div64_u64(st->window_ios * NSEC_PER_SEC * 1000,
				 st->t_stop - st->t_first);
	return 0;
}

/*
 * One run: every QP of @qps runs @impl in its own thread at once.  Returns
 * the ops/s of all QPs together, in thousandths, and adds to @r.
 */
int bench_run(struct bench_dev *d, unsigned int nr_qps, enum bench_impl impl,
	      enum dma_data_direction dir, unsigned int qd, u64 run_ns,
	      u64 max_ios, struct bench_result *r, u64 *mops)
{
	unsigned int i;
	int err = 0;

	*mops = 0;
	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];

		q->impl = bench_code(impl);
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

		wait_for_completion(&q->finished);
		if (q->err && !err)
			err = q->err;
		*mops += bench_add(r, &q->st);
	}
	return err;
}
