// SPDX-License-Identifier: GPL-2.0-only
/*
 * One run of `make bench`: one thread keeps every QP of the run at its queue
 * depth of I/Os in flight (prepare, post the chain with the implementation's
 * own post, release on completion) until the run's time is up.  It sleeps
 * until a QP has a quarter of its depth completed (bench_set_wake()), so
 * each QP keeps three quarters of its depth or more in flight.  The rate is counted over
 * one window for all QPs (struct bench_window), while every queue is in
 * that state: from the first completion of the last QP to have one to the
 * last completion before the first QP stops issuing.
 *
 * One thread, not one per QP: on the bench's single vCPU, threads of their
 * own only add the scheduler's choices between them, and those made a
 * four-QP row's rate swing by 1-3 % from run to run (benchmarks.rst).
 */

#include <linux/ktime.h>
#include <linux/math64.h>

#include "bench.h"

/*
 * Count a successful completion in the run's window (the CQ callback).  The
 * window opens at the first completion of the last QP to have one, so that
 * every QP has its queue filled in it, and closes when a QP stops issuing.
 */
void bench_window_count(struct bench_qp *q, u64 now)
{
	struct bench_window *w = q->win;
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (w->closed)
		goto out;
	if (!q->started) {
		q->started = true;
		if (++w->started == w->nr_qps) {
			w->t_first = now;
			w->t[0] = 0;
		}
	} else if (w->t_first) {
		u64 t = div_u64(now - w->t_first, BENCH_WINDOW_UNIT_NS);

		/* Full, or 17 s long: closed, the rate's sums stay in s64. */
		if (t > S32_MAX) {
			w->closed = true;
			goto out;
		}
		w->t[++w->ios] = t;
		w->closed = w->ios == BENCH_WINDOW_MAX_IOS;
	}
out:
	spin_unlock_irqrestore(&w->lock, flags);
}

/*
 * The run's rate, in thousandths of ops/s: the least-squares slope of the
 * window's completion times t_i against i = 0..n-1.  With x_i = 2i - (n-1)
 * (centered, integer), the time per I/O is 2 * sum(x_i t_i) / sum(x_i^2)
 * and sum(x_i^2) = (n-1) n (n+1) / 3.  In s64: |x_i| < 2^16 and t_i < 2^31
 * (bench_window_count() closes the window at 17 s), over 2^16 terms.
 */
static u64 bench_window_rate(const struct bench_window *w)
{
	u64 n = (u64)w->ios + 1, sxx;
	s64 sxt = 0;
	u32 i;

	if (w->ios < 1)
		return 0;
	for (i = 0; i <= w->ios; i++)
		sxt += (2 * (s64)i - (s64)(n - 1)) * w->t[i];
	if (sxt <= 0)
		return 0;
	sxx = (n - 1) * n * (n + 1) / 3;
	return mul_u64_u64_div_u64(sxx, NSEC_PER_SEC * 1000,
				   2 * BENCH_WINDOW_UNIT_NS * (u64)sxt);
}

/*
 * Stop issuing: another QP stopped, time is up, or the I/Os in flight will
 * take the rest.  One QP's I/Os in flight, times the run's QPs, estimate
 * those of the run: they all keep the same queue depth.
 */
static bool bench_should_stop(struct bench_qp *q, u64 now, u32 inflight)
{
	struct bench_window *w = q->win;
	u64 span, drain;
	unsigned long flags;
	bool closed;
	u32 ios;

	if (q->max_ios)
		return q->st.ios + inflight >= q->max_ios;
	spin_lock_irqsave(&w->lock, flags);
	closed = w->closed;
	ios = w->ios;
	span = (u64)w->t[ios] * BENCH_WINDOW_UNIT_NS;
	spin_unlock_irqrestore(&w->lock, flags);

	if (closed || now >= w->t_end + BENCH_OVERRUN_NS)
		return true;
	/*
	 * A window of at least one turn of every queue and 64 completions
	 * per QP: the rate of the QPs together swings within a turn, the
	 * slow rows' by some 2 % over half a turn, and with 16 completions
	 * per QP, rxe's 1 MiB READs on four QPs swung by 1-3 % from run to
	 * run (0.3 % with 64).
	 */
	if (ios < max_t(u32, BENCH_MIN_WINDOW_IOS, q->qd) * w->nr_qps)
		return false;
	if (now >= w->t_end)
		return true;
	/* Keep at least half of the run for the measured window. */
	if (now - w->t0 < (w->t_end - w->t0) / 2)
		return false;
	drain = div64_u64(span * inflight * w->nr_qps, ios);
	return now + drain >= w->t_end;
}

/* This QP issues no more I/Os, and the run's window is closed. */
static void bench_stop(struct bench_qp *q, struct bench_loop *l)
{
	unsigned long flags;

	l->stopping = true;
	spin_lock_irqsave(&q->win->lock, flags);
	q->win->closed = true;
	spin_unlock_irqrestore(&q->win->lock, flags);
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
}

/* Release the slots the CQ callback has completed since the last call. */
static void bench_reap(struct bench_qp *q, struct bench_loop *l)
{
	struct bench_slot *s, *tmp;
	LIST_HEAD(reaped);

	spin_lock_irq(&q->lock);
	list_splice_init(&q->done, &reaped);
	q->nr_done = 0;
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
static bool bench_take(struct bench_qp *q, struct bench_loop *l)
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
		bench_stop(q, l);
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
static bool bench_post(struct bench_qp *q, struct bench_loop *l)
{
	int ret;

	if (q->sq_used + l->pending->wrs > q->sq_size) {
		if (!l->inflight) {
			q->err = -ENOSPC;
			bench_stop(q, l);
		}
		return false;
	}
	ret = bench_post_io(q, l->pending, l->first);
	q->st.posts++;
	if (ret) {
		pr_err("mrcore_bench: %s %s: post: %d\n",
		       bench_impl_name[q->impl], bench_dir_name(q->dir), ret);
		q->err = ret;
		bench_stop(q, l);
		if (ret != -EINPROGRESS)
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
static void bench_issue(struct bench_qp *q, struct bench_loop *l)
{
	while (!l->stopping && (l->pending || l->nr_idle)) {
		if (!l->pending && !bench_take(q, l))
			break;
		if (!bench_post(q, l))
			break;
	}
	if (l->stopping && l->pending) {
		bench_release(q, l->pending, false);
		l->idle[l->nr_idle++] = l->pending;
		l->pending = NULL;
	}
}

/* Has a QP of the run as many completions as the loop waits for? */
static bool bench_any_done(struct bench_dev *d, unsigned int nr_qps)
{
	unsigned int i;

	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];

		if (READ_ONCE(q->nr_done) >= READ_ONCE(q->wake_at))
			return true;
	}
	return false;
}

/*
 * How many completions of a QP wake the loop: a quarter of its queue
 * depth, or all it has in flight if fewer (a draining queue).  Woken by
 * every completion, the loop swung between two regimes on siw's one-page
 * rows at depth 16 and 64: asleep before the next completion came, or not,
 * from run to run.  A wake-up each cost some 17 us of guest time there, so
 * 0.14 more of them per I/O took 5 % of the rate, and the regime, not the
 * implementation, decided a row's ratio (benchmarks.rst).  Woken by a
 * quarter of the queue, the loop sleeps once per that many I/Os whatever
 * the implementation costs, and each QP keeps at least three quarters of
 * its depth in flight.
 */
static void bench_set_wake(struct bench_dev *d, unsigned int nr_qps)
{
	unsigned int i;

	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];
		u32 at = max(q->qd / BENCH_WAKE_DIV, 1u);

		at = min(at, max(q->loop.inflight, 1u));
		spin_lock_irq(&q->lock);
		q->wake_at = at;
		spin_unlock_irq(&q->lock);
	}
}

/*
 * Wait for a completion on any QP.  None for %BENCH_STALL_MS: flush the QPs
 * with I/Os in flight so that those complete; none even then: block for
 * good, since the slots can never be freed.
 */
static void bench_wait(struct bench_dev *d, unsigned int nr_qps)
{
	unsigned int i;

	bench_set_wake(d, nr_qps);
	if (wait_event_timeout(d->win.wq, bench_any_done(d, nr_qps),
			       msecs_to_jiffies(BENCH_STALL_MS)))
		return;
	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];
		struct bench_loop *l = &q->loop;

		if (!l->inflight)
			continue;
		if (l->flushed) {
			/* Not even flushed: never free the slots. */
			pr_err("mrcore_bench: %u I/Os neither completed nor flushed; blocking\n",
			       l->inflight);
			wait_event(d->win.wq, false);
		}
		pr_err("mrcore_bench: %s %s: no completion in %u ms, %u in flight; flushing\n",
		       bench_impl_name[q->impl], bench_dir_name(q->dir),
		       BENCH_STALL_MS, l->inflight);
		q->err = -ETIMEDOUT;
		bench_stop(q, l);
		bench_flush(q);
		l->flushed = true;
	}
}

/*
 * One turn of the run's loop on one QP: release what completed, stop if it
 * is time, fill the queue.  Returns false once the QP is done: it stopped
 * and has nothing in flight.
 */
static bool bench_turn(struct bench_qp *q)
{
	struct bench_loop *l = &q->loop;

	bench_reap(q, l);
	if (!l->stopping &&
	    (q->err || bench_should_stop(q, ktime_get_ns(), l->inflight)))
		bench_stop(q, l);
	bench_issue(q, l);
	return l->inflight || !(l->stopping || q->err);
}

/* Add one QP's run to @r. */
static void bench_add(struct bench_result *r, const struct bench_stats *st)
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
}

/*
 * One run: the first @nr_qps QPs of @d run @impl at once, in this thread.
 * Returns the ops/s of all QPs together over the run's window, in
 * thousandths (0 if it counted no I/O), and adds to @r.
 */
int bench_run(struct bench_dev *d, unsigned int nr_qps, enum bench_impl impl,
	      enum dma_data_direction dir, unsigned int qd, u64 run_ns,
	      u64 max_ios, struct bench_result *r, u64 *mops)
{
	struct bench_window *w = &d->win;
	unsigned int i, j;
	bool busy;
	int err = 0;

	*mops = 0;
	memset(w, 0, sizeof(*w));
	spin_lock_init(&w->lock);
	init_waitqueue_head(&w->wq);
	w->nr_qps = nr_qps;
	w->t = d->win_t;
	w->t0 = ktime_get_ns();
	w->t_end = w->t0 + run_ns;
	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];

		q->impl = bench_code(impl);
		q->dir = dir;
		q->qd = qd;
		q->max_ios = max_ios;
		q->err = 0;
		q->win = w;
		q->started = false;
		memset(&q->st, 0, sizeof(q->st));
		memset(&q->loop, 0, sizeof(q->loop));
		for (j = 0; j < qd; j++)
			q->loop.idle[q->loop.nr_idle++] = &q->slots[j];
	}
	for (;;) {
		busy = false;
		for (i = 0; i < nr_qps; i++)
			busy |= bench_turn(&d->qps[i]);
		if (!busy)
			break;
		r->waits++;
		bench_wait(d, nr_qps);
	}
	for (i = 0; i < nr_qps; i++) {
		struct bench_qp *q = &d->qps[i];

		if (q->err && !err)
			err = q->err;
		bench_add(r, &q->st);
	}
	*mops = bench_window_rate(w);
	return err;
}
