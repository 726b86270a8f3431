// SPDX-License-Identifier: GPL-2.0-only
/*
 * A queue of I/Os across two kernels (make kunit-2host):
 * mrcore_queue_rxe_2host and mrcore_queue_siw_2host.
 *
 * QUEUE_QPS connections to the peer, each with the peer's 4 MiB under one
 * rkey (MRCORE_PEER_F_CONTIG) and a pool of QUEUE_DEPTH contexts: QUEUE_QPS
 * * QUEUE_DEPTH I/Os in flight, kept so until queue_ios I/Os (default
 * 2,048 per device, in QUEUE_PARTS cases: KUnit gives a case 300 s) were
 * posted.  Each entry of the queue owns a 64 KiB slot of its connection's
 * remote memory: it WRITEs 1 byte to 32 KiB at a random page offset, one
 * page per scatterlist entry, holding a pattern of its own, and once that
 * completed READs the bytes back into poisoned memory, which must then
 * hold the pattern, byte for byte, and nothing around it; then the next
 * WRITE, of a new length and pattern.  A completion only records itself;
 * the test's thread destroys the context, checks and posts the next I/O,
 * while the rest of the queue is in flight.  On rxe half of the
 * connections force the frwr backend, so MRs are in play on both devices
 * (on siw every READ has its sink MR).  At the end every I/O completed with
 * success, every pool is whole (every MR came back), no MR was recycled
 * and the core holds no DMA mapping more than before.
 */

#include <kunit/test.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "client_2host.h"
#include "e2e_suite.h"

static unsigned int queue_ios = 2048;
module_param(queue_ios, uint, 0444);
MODULE_PARM_DESC(queue_ios, "I/Os per device through the queue of mrcore_queue_*_2host");

#define QUEUE_QPS	4
#define QUEUE_DEPTH	16
#define QUEUE_SLOT	SZ_64K
/* Up to 9 scattered pages: several WRITE WRs on siw (6 SGEs each). */
#define QUEUE_MAX_LEN	SZ_32K
#define QUEUE_PARTS	4

static const unsigned int queue_parts[QUEUE_PARTS] = { 1, 2, 3, 4 };

static void queue_part_desc(const unsigned int *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "part %u of %u", *p,
		 QUEUE_PARTS);
}

KUNIT_ARRAY_PARAM(queue_part, queue_parts, queue_part_desc);

struct queue_run;

/**
 * struct queue_qp - one connection of the queue
 * @link: the connection.
 * @x: the peer's memory, QUEUE_DEPTH slots of it used.
 * @pool: QUEUE_DEPTH contexts of up to 17 pages.
 * @force: the backend forced on @pool, or %NULL.
 */
struct queue_qp {
	struct peer_link *link;
	struct peer_x x;
	struct rdma_io_pool *pool;
	const char *force;
};

/**
 * struct queue_io - one entry of the queue
 * @run: the run.
 * @q: its connection.
 * @slot: its slot of @q's remote memory.
 * @buf: the local memory of its current I/O.
 * @ctx: the I/O.
 * @cqe: its completion entry.
 * @status: the completion's status.
 * @node: on @run's list of completed entries.
 * @seed: the pattern of the slot's last WRITE.
 * @read: the current I/O is the READ back.
 */
struct queue_io {
	struct queue_run *run;
	struct queue_qp *q;
	unsigned int slot;
	struct mrcore_e2e_buf buf;
	struct rdma_io_ctx ctx;
	struct ib_cqe cqe;
	enum ib_wc_status status;
	struct llist_node node;
	u32 seed;
	bool read;
};

/**
 * struct queue_run - the queue of one case
 * @done: entries whose I/O completed, for the test's thread.
 * @wq: woken at each completion.
 * @io: the entries.
 * @qp: the connections.
 */
struct queue_run {
	struct llist_head done;
	wait_queue_head_t wq;
	struct queue_io io[QUEUE_QPS * QUEUE_DEPTH];
	struct queue_qp qp[QUEUE_QPS];
};

static void queue_io_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct queue_io *io = container_of(wc->wr_cqe, struct queue_io, cqe);

	io->status = wc->status;
	llist_add(&io->node, &io->run->done);
	wake_up(&io->run->wq);
}

static void queue_qp_close(void *data)
{
	struct queue_qp *q = data;

	if (q->pool)
		rdma_io_pool_destroy(q->pool);
	peer_link_close(q->link);
}

/* rxe's connections of the queue wait longer for an ACK (peer_2host.h). */
static struct mrcore_e2e_target queue_rxe_loaded;

static void queue_qp_open(struct kunit *test, struct queue_qp *q,
			  const char *force)
{
	const struct mrcore_e2e_target *t = test->priv;
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_EXPOSE,
		.flags = MRCORE_PEER_F_CONTIG,
		.seed = MRCORE_E2E_POISONED,
	};
	struct mrcore_e2e_side *side;
	int ret;

	if (t->driver_id == RDMA_DRIVER_RXE) {
		queue_rxe_loaded = *t;
		queue_rxe_loaded.ack_timeout = MRCORE_PEER_ACK_TIMEOUT_QUEUE;
		t = &queue_rxe_loaded;
	}
	ret = peer_link_open(t, NULL, &q->link);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "connecting to the peer over %s",
			    t->name);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   queue_qp_close, q));
	side = q->link->side;
	ret = peer_call(q->link, &r);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "peer request EXPOSE: %d", ret);
	q->x.id = r.id;
	q->x.key = r.key;
	q->x.addr = r.addr;
	q->x.len = r.len;
	KUNIT_ASSERT_GE(test, q->x.len, (u64)QUEUE_DEPTH * QUEUE_SLOT);
	q->pool = rdma_io_pool_create(side->qp, side->cm_id->port_num,
				      QUEUE_DEPTH, QUEUE_SLOT / PAGE_SIZE + 1);
	if (IS_ERR(q->pool)) {
		ret = PTR_ERR(q->pool);
		q->pool = NULL;
		KUNIT_FAIL_AND_ABORT(test, "rdma_io_pool_create(): %d", ret);
	}
	if (force) {
		KUNIT_ASSERT_EQ(test, 0, rdma_io_pool_force_backend(q->pool,
								    force));
		q->force = force;
	}
}

/*
 * Post @io's current I/O: a READ back into its poisoned buffer, or a WRITE
 * of a new buffer.  Returns 0 or the error of the init or the post.
 */
static int queue_post(struct queue_io *io)
{
	u64 addr = io->q->x.addr + io->slot * (u64)QUEUE_SLOT;
	int ret;

	ret = rdma_io_ctx_init(&io->ctx, io->q->pool, io->buf.sg,
			       io->buf.nents, 0, addr, io->q->x.key,
			       io->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret < 0)
		return ret;
	ret = rdma_io_ctx_post(&io->ctx, &io->cqe, NULL);
	if (ret) {
		/* Taken in part: what the driver took must be gone first. */
		if (ret == -EINPROGRESS)
			ib_drain_qp(io->q->link->side->qp);
		rdma_io_ctx_destroy(&io->ctx, NULL);
	}
	return ret;
}

/* A new WRITE for @io: new length, offset and pattern. */
static int queue_new_write(struct queue_io *io, u32 seed)
{
	u32 len = 1 + get_random_u32_below(QUEUE_MAX_LEN);
	u32 off = get_random_u32_below(PAGE_SIZE);
	int ret;

	ret = mrcore_e2e_buf_alloc(&io->buf, len, off);
	if (ret)
		return ret;
	io->seed = seed;
	io->read = false;
	mrcore_e2e_buf_fill(&io->buf, seed);
	return 0;
}

/* Every queue entry's I/O is gone: the QPs in error flushed them. */
static void queue_flush_all(struct kunit *test, struct queue_run *run,
			    unsigned int in_flight)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct llist_node *list;
	struct queue_io *io, *tmp;
	unsigned int i;

	for (i = 0; i < QUEUE_QPS; i++)
		ib_modify_qp(run->qp[i].link->side->qp, &attr, IB_QP_STATE);
	while (in_flight) {
		wait_event(run->wq, !llist_empty(&run->done));
		list = llist_del_all(&run->done);
		llist_for_each_entry_safe(io, tmp, list, node) {
			struct ib_wc wc = { .status = io->status };

			rdma_io_ctx_destroy(&io->ctx, &wc);
			mrcore_e2e_buf_free(&io->buf);
			in_flight--;
		}
	}
}

/*
 * What rxe saw of the wire during a part (this end's device): the retries
 * its completer started, the sequence NAKs it received (a packet the peer
 * missed), its failed sends, its retries run out.
 */
static const char *const queue_rxe_counters[] = {
	"completer_retry_err", "rcvd_seq_err", "send_err", "retry_exceeded_err",
};

#define QUEUE_RXE_COUNTERS	ARRAY_SIZE(queue_rxe_counters)

static void queue_rxe_read(struct kunit *test, struct ib_device *dev, u64 *v)
{
	unsigned int i;

	for (i = 0; i < QUEUE_RXE_COUNTERS; i++)
		KUNIT_EXPECT_EQ(test, 0,
				mrcore_2host_rxe_counter(dev_name(&dev->dev),
							 queue_rxe_counters[i],
							 &v[i]));
}

static void queue_in_flight(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;
	unsigned int part = *(const unsigned int *)test->param_value;
	/* Each WRITE is read back: pairs of I/Os. */
	unsigned int want = round_up(DIV_ROUND_UP(queue_ios, QUEUE_PARTS), 2);
	unsigned int posted = 0, completed = 0, failed = 0, mismatched = 0;
	unsigned int writes = 0, reads = 0, in_flight = 0, max_in_flight = 0;
	unsigned int wposted = 0;
	u64 recycled0 = 0, recycled = 0, mrs = 0;
	u64 rxe0[QUEUE_RXE_COUNTERS] = {}, rxe[QUEUE_RXE_COUNTERS] = {};
	u32 seed = 0x90000 + part * 0x10000;
	struct queue_io *io, *tmp;
	struct llist_node *list;
	struct queue_run *run;
	struct ib_device *dev;
	unsigned long start;
	unsigned int i;
	long maps0;
	bool iwarp;
	int ret;

	run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run);
	init_llist_head(&run->done);
	init_waitqueue_head(&run->wq);
	for (i = 0; i < QUEUE_QPS; i++) {
		const char *force = NULL;

		/* rxe would move most of these without MRs. */
		if (t->driver_id == RDMA_DRIVER_RXE && (i & 1))
			force = "frwr";
		queue_qp_open(test, &run->qp[i], force);
	}
	dev = run->qp[0].link->side->device;
	iwarp = rdma_protocol_iwarp(dev, 1);
	KUNIT_ASSERT_EQ(test, 0, rdma_mrcore_device_counter(dev, "mr_recycled",
							    &recycled0));
	maps0 = rdma_mrcore_dma_maps_live();
	if (!iwarp)
		queue_rxe_read(test, dev, rxe0);
	start = jiffies;

	/* The queue fills: every entry WRITEs its slot. */
	for (i = 0; i < ARRAY_SIZE(run->io) && wposted < want / 2; i++) {
		io = &run->io[i];
		io->run = run;
		io->q = &run->qp[i % QUEUE_QPS];
		io->slot = i / QUEUE_QPS;
		io->cqe.done = queue_io_done;
		KUNIT_ASSERT_EQ(test, 0, queue_new_write(io, ++seed));
		ret = queue_post(io);
		if (ret) {
			mrcore_e2e_buf_free(&io->buf);
			queue_flush_all(test, run, in_flight);
			KUNIT_FAIL_AND_ABORT(test, "posting I/O %u: %d", posted,
					     ret);
		}
		mrs += io->ctx.nr_mrs;
		posted++;
		wposted++;
		in_flight++;
	}
	max_in_flight = in_flight;

	/* Each completion makes room for the entry's next I/O. */
	while (in_flight) {
		if (!wait_event_timeout(run->wq, !llist_empty(&run->done),
					msecs_to_jiffies(PEER_CALL_TIMEOUT_MS))) {
			kunit_err(test, "%u I/Os in flight, none completed in %u ms\n",
				  in_flight, PEER_CALL_TIMEOUT_MS);
			queue_flush_all(test, run, in_flight);
			KUNIT_FAIL_AND_ABORT(test, "the queue stalled after %u of %u I/Os",
					     completed, want);
		}
		list = llist_del_all(&run->done);
		llist_for_each_entry_safe(io, tmp, list, node) {
			struct ib_wc wc = { .status = io->status };
			struct mrcore_e2e_diff d;

			rdma_io_ctx_destroy(&io->ctx, &wc);
			in_flight--;
			completed++;
			if (io->status != IB_WC_SUCCESS) {
				failed++;
				kunit_err(test, "%s of %zu bytes on QP %u slot %u: %s\n",
					  io->read ? "READ" : "WRITE",
					  io->buf.len,
					  (unsigned int)(io->q - run->qp),
					  io->slot, ib_wc_status_msg(io->status));
				mrcore_e2e_buf_free(&io->buf);
				continue;
			}
			if (io->read) {
				reads++;
				if (!mrcore_e2e_buf_verify(&io->buf, 0,
							   io->buf.len,
							   io->seed, &d)) {
					mismatched++;
					kunit_err(test, "QP %u slot %u: %llu wrong bytes of %zu, the first at %lld (%s): 0x%02x, want 0x%02x\n",
						  (unsigned int)(io->q - run->qp),
						  io->slot, d.bad, io->buf.len,
						  d.pos, d.what, d.got, d.want);
				}
				mrcore_e2e_buf_free(&io->buf);
				if (wposted == want / 2)
					continue;
				ret = queue_new_write(io, ++seed);
				wposted += !ret;
			} else {
				writes++;
				/* The same bytes come back into poison. */
				mrcore_e2e_buf_poison(&io->buf);
				io->read = true;
				ret = 0;
			}
			if (!ret)
				ret = queue_post(io);
			if (ret) {
				kunit_err(test, "posting I/O %u: %d\n", posted,
					  ret);
				failed++;
				mrcore_e2e_buf_free(&io->buf);
				continue;
			}
			mrs += io->ctx.nr_mrs;
			posted++;
			in_flight++;
		}
	}

	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(dev, "mr_recycled",
							    &recycled));
	kunit_info(test, "queue %s part %u: %u I/Os (%u WRITEs, %u READs back) on %u QPs, %u in flight, in %u ms: %u completed, %u failed, %u data mismatches; %llu MRs used, %llu recycled, %ld DMA mappings left\n",
		   dev_name(&dev->dev), part, posted, writes, reads, QUEUE_QPS,
		   max_in_flight, jiffies_to_msecs(jiffies - start), completed,
		   failed, mismatched, mrs, recycled - recycled0,
		   rdma_mrcore_dma_maps_live() - maps0);
	if (!iwarp) {
		queue_rxe_read(test, dev, rxe);
		kunit_info(test, "queue %s part %u: %s %llu, %s %llu, %s %llu, %s %llu\n",
			   dev_name(&dev->dev), part,
			   queue_rxe_counters[0], rxe[0] - rxe0[0],
			   queue_rxe_counters[1], rxe[1] - rxe0[1],
			   queue_rxe_counters[2], rxe[2] - rxe0[2],
			   queue_rxe_counters[3], rxe[3] - rxe0[3]);
	}
	/*
	 * A QP whose I/Os were flushed without an error of their own was
	 * moved to the error state from outside: rdma_cm does so when a
	 * DREQ or a REJ comes in, rxe on an asynchronous error.
	 */
	for (i = 0; failed && i < QUEUE_QPS; i++) {
		struct mrcore_e2e_side *side = run->qp[i].link->side;
		int events = atomic_read(&side->qp_events);

		kunit_info(test, "queue %s part %u: QP %u (qp#%u, the peer's connection %u): %d rdma_cm disconnects, the last other rdma_cm event %s, %d QP events%s%s\n",
			   dev_name(&dev->dev), part, i, side->qp->qp_num,
			   run->qp[i].link->conn,
			   atomic_read(&run->qp[i].link->pair->disconnected),
			   rdma_event_msg(run->qp[i].link->pair->active_event),
			   events, events ? ", the last " : "",
			   events ? ib_event_msg(side->last_qp_event) : "");
	}
	KUNIT_EXPECT_EQ(test, posted, want);
	KUNIT_EXPECT_EQ(test, completed, posted);
	KUNIT_EXPECT_EQ(test, failed, 0u);
	KUNIT_EXPECT_EQ(test, mismatched, 0u);
	KUNIT_EXPECT_EQ(test, reads + writes, completed);
	KUNIT_EXPECT_EQ_MSG(test, reads, writes, "a WRITE was not read back");
	KUNIT_EXPECT_EQ(test, max_in_flight, min_t(unsigned int, want / 2,
						   ARRAY_SIZE(run->io)));
	/* MRs in play: on siw every READ's sink, on rxe the frwr pools. */
	KUNIT_EXPECT_GT(test, mrs, 0ULL);
	if (iwarp)
		KUNIT_EXPECT_GE(test, mrs, (u64)reads);
	KUNIT_EXPECT_EQ_MSG(test, recycled, recycled0,
			    "MRs were recycled (a failed I/O's)");
	for (i = 0; i < QUEUE_QPS; i++)
		KUNIT_EXPECT_EQ_MSG(test, rdma_io_pool_drain(run->qp[i].pool),
				    rdma_io_pool_size(run->qp[i].pool),
				    "the pool of QP %u (%s) is not whole", i,
				    run->qp[i].force ?: "chosen");
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the queue");
}

static struct kunit_case queue_cases[] = {
	KUNIT_CASE_PARAM_ATTR(queue_in_flight, queue_part_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite queue_rxe_suite = {
	.name = "mrcore_queue_rxe_2host",
	.init = mrcore_2host_rxe_suite_init,
	.test_cases = queue_cases,
};

static struct kunit_suite queue_siw_suite = {
	.name = "mrcore_queue_siw_2host",
	.init = mrcore_2host_siw_suite_init,
	.test_cases = queue_cases,
};

kunit_test_suites(&queue_siw_suite, &queue_rxe_suite);
