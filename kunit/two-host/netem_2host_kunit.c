// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network faults between the two guests of make kunit-2host, injected from
 * inside them (iproute2's tc and ip, run by the test through the usermode
 * helper here and by the peer on request, MRCORE_PEER_NET):
 *
 *   mrcore_netem_rxe_2host, mrcore_netem_siw_2host
 *	netem_ios I/Os (default 2,048, in 32 cases: KUnit gives a case 300 s)
 *	of 1 byte to 32 KiB at random page
 *	offsets (one page per scatterlist entry), 16 in
 *	flight, WRITE then READ back, with 1% loss, 1% duplication, 5%
 *	reordering and 10 ms +- 10 ms delay on both guests' eth0.  Every I/O
 *	completes with its bytes verified, or fails with a completion error;
 *	after a failure the pool must be whole (the core quarantined and
 *	replaced the failed I/Os' MRs) and the test reconnects.  The case
 *	prints how many I/Os did which, the devices' retries (rxe's
 *	completer retries, the kernel's TCP retransmissions under siw) and
 *	the data mismatches, which must be 0.
 *   mrcore_ackorder_rxe_2host
 *	A WRITE and a READ of 2 to 17 packets posted together, with the
 *	peer's RoCE ACKs held back 20 ms and its READ responses' MIDDLE and
 *	LAST packets 40 ms (a u32 filter on the BTH opcode): the WRITE's ACK
 *	arrives while the READ is half received, older than it.  The READ
 *	completes with every byte verified.  (rxe in Linux 6.12 took such an
 *	ACK for the end of the READ and completed it successfully with its
 *	first packet's bytes only; the test kernel carries the fix,
 *	kunit/kernel-patches/.)
 *   mrcore_linkdown_rxe_2host, mrcore_linkdown_siw_2host
 *	eth0 down for longer than the QP's retry budget (rxe: 6 retries of
 *	about 67 ms; siw: TCP's, cut to tcp_retries2=3 for the case) with 16
 *	I/Os in flight: every context completes with an error status, every
 *	MR returns (recycled on new device MRs: the old keys are dead), no
 *	DMA mapping stays, the pool is whole; a READ sink's key is then tried
 *	by the peer from another connection of the same PD and refused; the
 *	link comes up and a new connection moves data again.
 */

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "client_2host.h"
#include "e2e_suite.h"
#include "io_e2e.h"

static unsigned int netem_ios = 2048;
module_param(netem_ios, uint, 0444);
MODULE_PARM_DESC(netem_ios, "I/Os per device under netem faults (mrcore_netem_*_2host)");

/*
 * KUnit gives a case 300 s: the I/Os run in NETEM_PARTS cases of
 * netem_ios / NETEM_PARTS each, which add their figures up here; the last
 * one prints the device's.  The times of the parts are in
 * Documentation/testing.rst ("Figures" of make kunit-2host).
 */
#define NETEM_PARTS	32

struct netem_totals {
	unsigned int done, ok, failed, mismatched, reconnects, parts;
	u64 retries, errors, recycled;
	unsigned long ms;
};

static struct netem_totals netem_totals[2];	/* rxe, siw */

static const unsigned int netem_parts[NETEM_PARTS] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
};

static void netem_part_desc(const unsigned int *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "part %u of %u", *p,
		 NETEM_PARTS);
}

KUNIT_ARRAY_PARAM(netem_part, netem_parts, netem_part_desc);

#define NETEM_WINDOW	16
#define NETEM_SLOT	SZ_64K
#define NETEM_SLOTS	(MRCORE_PEER_CONTIG_BYTES / NETEM_SLOT)
/* Up to 9 scattered pages: several WRITE WRs on siw (6 SGEs each). */
#define NETEM_MAX_LEN	SZ_32K

static void netem_restore(void *link)
{
	/* Both guests' wires back to normal, whatever the case did. */
	mrcore_2host_sh(MRCORE_2HOST_NET_OFF);
	peer_net(link, MRCORE_PEER_NET_OFF);
}

static u64 netem_retries(struct kunit *test, struct ib_device *dev)
{
	u64 v = 0;

	int ret;

	if (rdma_protocol_iwarp(dev, 1))
		ret = mrcore_2host_tcp_retrans(&v);
	else
		ret = mrcore_2host_rxe_counter(dev_name(&dev->dev),
					       "completer_retry_err", &v);
	KUNIT_EXPECT_EQ(test, ret, 0);
	return v;
}

/**
 * struct netem_conn - a connection, the peer's 4 MiB and a pool on it
 * @link: the connection.
 * @x: the peer's memory, NETEM_SLOTS slots of 64 KiB.
 * @pool: NETEM_WINDOW contexts of up to 17 pages.
 */
struct netem_conn {
	struct peer_link *link;
	struct peer_x x;
	struct rdma_io_pool *pool;
};

/*
 * rxe under netem: its connections retry for ever (7).  rxe counts a retry
 * down at every go-back-N, those a NAKed sequence error starts (a lost or
 * reordered packet) included, and resets the count only when a WR
 * completes: with 6 retries, 16 I/Os of up to 32 KiB in flight at 1% loss
 * and 5% reordering ended 256 of 267 I/Os with a retry-exceeded error
 * before any of them moved.  The link-down and power-off cases keep 6:
 * there the retries must run out.
 */
static struct mrcore_e2e_target netem_rxe_patient;

static int netem_open(struct kunit *test, struct netem_conn *c,
		      struct peer_link *control, bool patient)
{
	const struct mrcore_e2e_target *t = control->pair->target;
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_EXPOSE,
		.flags = MRCORE_PEER_F_CONTIG,
		.seed = MRCORE_E2E_POISONED,
	};
	int ret;

	if (patient && t->driver_id == RDMA_DRIVER_RXE) {
		netem_rxe_patient = *t;
		netem_rxe_patient.retry_count = MRCORE_PEER_RETRY_FOREVER;
		t = &netem_rxe_patient;
	}
	ret = peer_link_open(t, NULL, &c->link);
	if (ret)
		return ret;
	ret = peer_call(c->link, &r);
	if (ret)
		goto err;
	c->x.id = r.id;
	c->x.key = r.key;
	c->x.addr = r.addr;
	c->pool = rdma_io_pool_create(c->link->side->qp,
				      c->link->side->cm_id->port_num,
				      NETEM_WINDOW, NETEM_SLOT / PAGE_SIZE + 1);
	if (IS_ERR(c->pool)) {
		ret = PTR_ERR(c->pool);
		c->pool = NULL;
		goto err;
	}
	return 0;
err:
	peer_link_close(c->link);
	c->link = NULL;
	return ret;
}

static void netem_close(struct kunit *test, struct netem_conn *c)
{
	if (!c->link)
		return;
	KUNIT_EXPECT_EQ_MSG(test, rdma_io_pool_drain(c->pool),
			    rdma_io_pool_size(c->pool),
			    "the pool is not whole");
	rdma_io_pool_destroy(c->pool);
	peer_link_close(c->link);
	c->link = NULL;
}

/**
 * struct netem_io - one I/O of a window
 * @buf: its local memory.
 * @ctx: the context.
 * @w: its completion.
 * @seed: the pattern the slot holds after the WRITE.
 * @slot: the slot of the peer's memory it moves.
 * @read: a READ of the slot, or a WRITE.
 * @status: the completion status; negative: not posted.
 */
struct netem_io {
	struct mrcore_e2e_buf buf;
	struct rdma_io_ctx ctx;
	struct mrcore_e2e_wait w;
	u32 seed;
	u32 slot;
	bool read;
	int status;
};

/*
 * Post every I/O of the window that has a buffer, in order on one QP, then
 * reap them all.
 */
static void netem_window(struct kunit *test, struct netem_conn *c,
			 struct netem_io *io, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		u64 addr = c->x.addr + (io[i].slot % NETEM_SLOTS) *
			   (u64)NETEM_SLOT;

		io[i].status = -EIO;
		if (!io[i].buf.len)
			continue;
		ret = rdma_io_ctx_init(&io[i].ctx, c->pool, io[i].buf.sg,
				       io[i].buf.nents, 0, addr, c->x.key,
				       io[i].read ? DMA_FROM_DEVICE :
						    DMA_TO_DEVICE);
		if (ret < 0) {
			io[i].status = ret;
			continue;
		}
		mrcore_e2e_wait_init(&io[i].w);
		ret = rdma_io_ctx_post(&io[i].ctx, &io[i].w.cqe, NULL);
		if (ret) {
			if (ret == -EINPROGRESS)
				ib_drain_qp(c->link->side->qp);
			rdma_io_ctx_destroy(&io[i].ctx, NULL);
			io[i].status = ret;
			continue;
		}
		io[i].status = 1000;	/* posted */
	}
	for (i = 0; i < n; i++) {
		struct ib_wc wc = {};
		int status;

		if (io[i].status != 1000)
			continue;
		status = mrcore_e2e_wait_done(c->link->side, &io[i].w,
					      PEER_CALL_TIMEOUT_MS);
		wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
		rdma_io_ctx_destroy(&io[i].ctx, status < 0 ? NULL : &wc);
		io[i].status = status;
	}
}

static void netem_faults(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;
	unsigned int part = *(const unsigned int *)test->param_value;
	struct netem_totals *tot = &netem_totals[t == &mrcore_2host_siw];
	unsigned int want = DIV_ROUND_UP(netem_ios, NETEM_PARTS);
	unsigned int done = 0, ok = 0, failed = 0, mismatched = 0, reconnects = 0;
	unsigned int round = 0, i, slot = 0;
	u64 retries0, retries, errors0, recycled0;
	struct netem_conn c = {};
	struct peer_link *control;
	struct ib_device *dev;
	struct netem_io *io;
	long maps0;
	u32 seed = 0x30000;
	unsigned long start;

	control = peer_link(test, t);
	dev = control->side->device;
	io = kunit_kcalloc(test, NETEM_WINDOW, sizeof(*io), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, netem_restore,
							   control));
	KUNIT_ASSERT_EQ(test, 0, mrcore_2host_sh(MRCORE_2HOST_NET_FAULTS));
	KUNIT_ASSERT_EQ(test, 0, peer_net(control, MRCORE_PEER_NET_FAULTS));
	retries0 = netem_retries(test, dev);
	errors0 = 0;
	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(dev, "err_completion",
							    &errors0));
	recycled0 = 0;
	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(dev, "mr_recycled",
							    &recycled0));
	maps0 = rdma_mrcore_dma_maps_live();
	start = jiffies;

	KUNIT_ASSERT_EQ(test, 0, netem_open(test, &c, control, true));
	if (part == 1)
		memset(tot, 0, sizeof(*tot));
	while (done < want) {
		bool round_failed = false;

		/* WRITE a new pattern into each slot of the window ... */
		for (i = 0; i < NETEM_WINDOW; i++) {
			u32 len = 1 + get_random_u32_below(NETEM_MAX_LEN);
			u32 off = get_random_u32_below(PAGE_SIZE);

			KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&io[i].buf,
								      len, off));
			io[i].seed = ++seed;
			io[i].slot = slot + i;
			io[i].read = false;
			mrcore_e2e_buf_fill(&io[i].buf, io[i].seed);
		}
		netem_window(test, &c, io, NETEM_WINDOW);
		for (i = 0; i < NETEM_WINDOW; i++) {
			done++;
			if (io[i].status == IB_WC_SUCCESS) {
				ok++;
				mrcore_e2e_buf_poison(&io[i].buf);
			} else {
				failed++;
				round_failed = true;
				/* No READ back of a slot whose WRITE failed. */
				mrcore_e2e_buf_free(&io[i].buf);
			}
		}
		/* ... and READ it back: every byte as written. */
		for (i = 0; i < NETEM_WINDOW; i++)
			io[i].read = true;
		netem_window(test, &c, io, NETEM_WINDOW);
		for (i = 0; i < NETEM_WINDOW; i++) {
			struct mrcore_e2e_diff d;

			if (!io[i].buf.len)
				continue;
			done++;
			if (io[i].status == IB_WC_SUCCESS) {
				ok++;
				if (!mrcore_e2e_buf_verify(&io[i].buf, 0,
							   io[i].buf.len,
							   io[i].seed, &d)) {
					mismatched++;
					kunit_err(test, "round %u slot %u: %llu wrong bytes, the first at %lld (%s)\n",
						  round, i, d.bad, d.pos, d.what);
				}
			} else {
				failed++;
				round_failed = true;
			}
			mrcore_e2e_buf_free(&io[i].buf);
		}
		slot = (slot + NETEM_WINDOW) % NETEM_SLOTS;
		round++;
		if (round_failed) {
			/* The QP is in error: the failed I/Os' MRs are in
			 * quarantine; the pool must come back whole.
			 */
			netem_close(test, &c);
			reconnects++;
			KUNIT_ASSERT_EQ(test, 0, netem_open(test, &c, control, true));
		}
	}
	netem_close(test, &c);
	retries = netem_retries(test, dev) - retries0;
	{
		u64 errors = 0, recycled = 0;

		rdma_mrcore_device_counter(dev, "err_completion", &errors);
		rdma_mrcore_device_counter(dev, "mr_recycled", &recycled);
		tot->done += done;
		tot->ok += ok;
		tot->failed += failed;
		tot->mismatched += mismatched;
		tot->reconnects += reconnects;
		tot->retries += retries;
		tot->errors += errors - errors0;
		tot->recycled += recycled - recycled0;
		tot->ms += jiffies_to_msecs(jiffies - start);
		tot->parts++;
		kunit_info(test, "netem %s part %u: %u I/Os in %u ms: %u completed and verified, %u failed (%u reconnects), %u data mismatches; %s: %llu\n",
			   dev_name(&dev->dev), part, done,
			   jiffies_to_msecs(jiffies - start), ok, failed,
			   reconnects, mismatched,
			   rdma_protocol_iwarp(dev, 1) ?
			   "TCP segments retransmitted" :
			   "rxe completer retries", retries);
	}
	if (part == NETEM_PARTS)
		kunit_info(test, "netem %s: %u I/Os in %u parts, %lu s: %u completed and verified, %u failed (%u reconnects, %llu completion errors, %llu MRs recycled), %u data mismatches; %s: %llu\n",
			   dev_name(&dev->dev), tot->done, tot->parts,
			   tot->ms / 1000, tot->ok, tot->failed,
			   tot->reconnects, tot->errors, tot->recycled,
			   tot->mismatched,
			   rdma_protocol_iwarp(dev, 1) ?
			   "TCP segments retransmitted" :
			   "rxe completer retries", tot->retries);
	KUNIT_EXPECT_EQ(test, mismatched, 0u);
	/*
	 * The connections retry for ever (rxe) or ride on TCP (siw): loss
	 * and reordering delay I/Os but must not fail them.  A part may lose
	 * one round (its WRITEs and READs) to a broken connection; the run
	 * at most 1% of its I/Os.  (With the test kernel's rxe fix the
	 * 2,048-I/O runs failed none.)
	 */
	KUNIT_EXPECT_LE_MSG(test, failed, 2u * NETEM_WINDOW,
			    "failed I/Os in this part (%u reconnects)",
			    reconnects);
	KUNIT_EXPECT_GE(test, done, want);
	if (part == NETEM_PARTS) {
		KUNIT_EXPECT_GE_MSG(test, tot->done, netem_ios,
				    "I/Os of all %u parts", NETEM_PARTS);
		KUNIT_EXPECT_LE_MSG(test, 100ULL * tot->failed,
				    (unsigned long long)tot->done,
				    "%u of %u I/Os failed: more than 1%%",
				    tot->failed, tot->done);
	}
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the run");
}

#define LINKDOWN_N	16

static void linkdown_restore(void *unused)
{
	mrcore_2host_sh(MRCORE_2HOST_LINK_UP);
	mrcore_2host_sh(MRCORE_2HOST_TCP_RETRIES_DEFAULT);
}

static void linkdown_in_flight(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;
	struct mrcore_shape_desc d = { "16_pages", 16, 0, PAGE_SIZE, 2 };
	unsigned int i, ok = 0, lost_mrs = 0;
	u64 recycled0 = 0, recycled = 0;
	struct peer_link *atk = NULL, *fresh;
	u32 sink_key = 0, sink_iova_ok = 0;
	u64 sink_iova = 0;
	struct netem_conn c = {};
	struct peer_link *control;
	struct io_local **l;
	struct ib_device *dev;
	struct netem_io *io;
	unsigned long start;
	struct peer_x x;
	long maps0;
	bool failed;
	int status;

	control = peer_link(test, t);
	dev = control->side->device;
	io = kunit_kcalloc(test, LINKDOWN_N, sizeof(*io), GFP_KERNEL);
	l = kunit_kcalloc(test, LINKDOWN_N, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, io && l);
	KUNIT_ASSERT_EQ(test, 0, netem_open(test, &c, control, false));
	/* rxe would move these without MRs: force MRs in play. */
	if (!rdma_protocol_iwarp(dev, 1))
		KUNIT_ASSERT_EQ(test, 0,
				rdma_io_pool_force_backend(c.pool, "frwr"));
	KUNIT_ASSERT_EQ(test, 0, rdma_mrcore_device_counter(dev, "mr_recycled",
							    &recycled0));
	maps0 = rdma_mrcore_dma_maps_live();
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   linkdown_restore,
							   NULL));
	KUNIT_ASSERT_EQ(test, 0, mrcore_2host_sh(MRCORE_2HOST_TCP_RETRIES_SHORT));

	/* The wire goes; then 16 I/Os (READs and WRITEs) are posted. */
	KUNIT_ASSERT_EQ(test, 0, mrcore_2host_sh(MRCORE_2HOST_LINK_DOWN));
	start = jiffies;
	for (i = 0; i < LINKDOWN_N; i++) {
		bool read = !(i & 1);

		l[i] = io_local_create(test, &d);
		if (!read)
			mrcore_e2e_buf_fill(&l[i]->buf, 0x40000 + i);
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&io[i].ctx, c.pool,
						       l[i]->sg, l[i]->nents, 0,
						       c.x.addr + i * SZ_64K,
						       c.x.key,
						       read ? DMA_FROM_DEVICE :
							      DMA_TO_DEVICE),
				0);
		KUNIT_ASSERT_GT(test, io[i].ctx.nr_mrs, 0u);
		if (read && rdma_protocol_iwarp(dev, 1) && !sink_iova_ok) {
			/* A READ sink's key is remotely writable. */
			sink_key = io[i].ctx.mrs[0]->key;
			sink_iova = io[i].ctx.mrs[0]->iova;
			sink_iova_ok = 1;
		}
		mrcore_e2e_wait_init(&io[i].w);
		KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&io[i].ctx,
							  &io[i].w.cqe, NULL));
	}
	for (i = 0; i < LINKDOWN_N; i++) {
		struct ib_wc wc = {};

		status = mrcore_e2e_wait_done(c.link->side, &io[i].w,
					      PEER_CALL_TIMEOUT_MS);
		KUNIT_EXPECT_GE(test, status, 0);
		KUNIT_EXPECT_NE_MSG(test, status, IB_WC_SUCCESS,
				    "I/O %u completed with the link down", i);
		ok += status == IB_WC_SUCCESS;
		if (status != IB_WC_SUCCESS)
			lost_mrs += io[i].ctx.nr_mrs;
		wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
		rdma_io_ctx_destroy(&io[i].ctx, status < 0 ? NULL : &wc);
		if (i == 0)
			kunit_info(test, "first I/O with the link down: %s after %u ms\n",
				   status >= 0 ? ib_wc_status_msg(status) :
						 "timeout",
				   jiffies_to_msecs(jiffies - start));
	}
	KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(c.pool),
			rdma_io_pool_size(c.pool));
	KUNIT_EXPECT_EQ(test, 0, rdma_mrcore_device_counter(dev, "mr_recycled",
							    &recycled));
	kunit_info(test, "link down %u ms: %u of %u I/Os failed, %llu of %u MRs recycled (new keys), %ld DMA mappings left\n",
		   jiffies_to_msecs(jiffies - start), LINKDOWN_N - ok,
		   LINKDOWN_N, recycled - recycled0, lost_mrs,
		   rdma_mrcore_dma_maps_live() - maps0);
	KUNIT_EXPECT_EQ(test, recycled - recycled0, (u64)lost_mrs);
	KUNIT_EXPECT_EQ(test, rdma_mrcore_dma_maps_live(), maps0);

	/* The link comes back (and rxe's GIDs with it). */
	KUNIT_ASSERT_EQ(test, 0, mrcore_2host_sh(MRCORE_2HOST_LINK_UP));
	msleep(2000);
	if (sink_iova_ok) {
		/* The peer, from another connection of this PD, tries the
		 * READ sink's old key: dead.
		 */
		KUNIT_EXPECT_EQ(test, 0, peer_link_open(t, c.link, &atk));
		if (atk) {
			status = peer_access(test, control, atk->conn, false,
					     sink_iova, sink_key, 64, 0x50005,
					     &failed, NULL);
			kunit_info(test, "the peer's WRITE with the sink key %#x of a failed READ: %d, its QP %s\n",
				   sink_key, status,
				   failed ? "in error" : "alive");
			KUNIT_EXPECT_TRUE(test,
					  mrcore_e2e_qp_failed(atk->side, 5000));
			/* Before the connection whose PD it shares. */
			peer_link_close(atk);
		}
	}
	netem_close(test, &c);

	/* A new connection moves data again. */
	fresh = peer_link(test, t);
	peer_expose(test, fresh, 0, 0, 0, MRCORE_PEER_F_CONTIG,
		    MRCORE_E2E_POISONED, &x);
	{
		struct rdma_io_pool *pool = io_pool(test, fresh->side, 1, 17);
		struct io_local *w = io_local_create(test, &d);
		struct rdma_io_ctx ctx;

		mrcore_e2e_buf_fill(&w->buf, 0x60006);
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&ctx, pool, w->sg,
						       w->nents, 0, x.addr,
						       x.key, DMA_TO_DEVICE),
				0);
		KUNIT_ASSERT_EQ(test, io_run(test, fresh->side, &ctx),
				IB_WC_SUCCESS);
		peer_verify(test, fresh, x.id, 0, w->len, 0x60006, true,
			    "WRITE over a new connection after the link came up");
	}
}

/*
 * The READs of mrcore_ackorder_rxe_2host: each of two packets or more (the
 * RoCE MTU of the link is 1,024 bytes), so that it has a first packet to
 * arrive on time and a MIDDLE or LAST one to arrive late.
 */
struct ackorder_shape {
	const char *desc;
	u32 len;
	u32 offset;
};

static const struct ackorder_shape ackorder_shapes[] = {
	{ "2,048 bytes: FIRST, LAST", SZ_2K, 0 },
	{ "4,070 bytes at offset 26: FIRST, 2 MIDDLE, LAST", 4070, 26 },
	{ "16 KiB at offset 100 over 5 pages: FIRST, 14 MIDDLE, LAST",
	  SZ_16K, 100 },
};

static void ackorder_desc(const struct ackorder_shape *s, char *desc)
{
	strscpy(desc, s->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ackorder, ackorder_shapes, ackorder_desc);

#define ACKORDER_ROUNDS	8

static const char *netem_status(int status)
{
	return status >= 0 ? ib_wc_status_msg(status) : "not posted or no completion";
}

/* ms from @start to the end of a window whose I/Os all succeeded, or 0. */
static unsigned int ackorder_ms(const struct netem_io *io, unsigned int n,
				unsigned long start)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (io[i].status != IB_WC_SUCCESS)
			return 0;
	return jiffies_to_msecs(jiffies - start);
}

/*
 * A WRITE and a READ posted together on one QP, with the peer's ACKs 20 ms
 * late and its READ responses' MIDDLE and LAST packets 40 ms late
 * (MRCORE_PEER_NET_ACK_LATE).  The initiator then sees: the READ's first
 * packet, which acks the WRITE before it (an implied ACK); the WRITE's own
 * ACK, now older than the READ being received; the rest of the READ.
 * netem's reordering and duplication make that order now and then
 * (mrcore_netem_rxe_2host); here it is made every time.  A stale ACK acks
 * nothing: the READ must complete with every byte (or fail), never succeed
 * with a part of them.
 */
static void ackorder_stale_ack(struct kunit *test)
{
	const struct ackorder_shape *shape = test->param_value;
	const struct mrcore_e2e_target *t = test->priv;
	unsigned int r, ok = 0, failed = 0, mismatched = 0, reconnects = 0;
	unsigned int ms, ack_ms = U32_MAX, read_ms = U32_MAX;
	struct netem_conn c = {};
	struct peer_link *control;
	struct netem_io *io;
	unsigned long start;
	u32 seed = 0x70000;
	long maps0;

	control = peer_link(test, t);
	io = kunit_kcalloc(test, 2, sizeof(*io), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, netem_restore,
							   control));
	KUNIT_ASSERT_EQ(test, 0, netem_open(test, &c, control, false));
	maps0 = rdma_mrcore_dma_maps_live();
	KUNIT_ASSERT_EQ(test, 0, peer_net(control, MRCORE_PEER_NET_ACK_LATE));

	for (r = 0; r < ACKORDER_ROUNDS; r++) {
		struct mrcore_e2e_diff d;
		bool pair_ok, bad = false;

		/* The data the READ will fetch, in slot 2r + 1. */
		KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&io[0].buf,
							      shape->len,
							      shape->offset));
		io[0].seed = ++seed;
		io[0].slot = 2 * r + 1;
		io[0].read = false;
		mrcore_e2e_buf_fill(&io[0].buf, io[0].seed);
		start = jiffies;
		netem_window(test, &c, io, 1);
		KUNIT_ASSERT_EQ_MSG(test, io[0].status, IB_WC_SUCCESS,
				    "round %u: the WRITE of the READ's data", r);
		/* Its ACK was the only thing it waited for. */
		ms = ackorder_ms(io, 1, start);
		ack_ms = min(ack_ms, ms);
		mrcore_e2e_buf_poison(&io[0].buf);
		io[1] = io[0];
		io[1].read = true;

		/* A WRITE of 4 KiB into slot 2r, then that READ. */
		memset(&io[0], 0, sizeof(io[0]));
		KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&io[0].buf,
							      PAGE_SIZE, 0));
		io[0].seed = ++seed;
		io[0].slot = 2 * r;
		mrcore_e2e_buf_fill(&io[0].buf, io[0].seed);
		start = jiffies;
		netem_window(test, &c, io, 2);
		ms = ackorder_ms(io, 2, start);
		if (ms)
			read_ms = min(read_ms, ms);
		if (io[0].status == IB_WC_SUCCESS)
			ok++;
		else
			failed++;
		if (io[1].status == IB_WC_SUCCESS) {
			ok++;
			if (!mrcore_e2e_buf_verify(&io[1].buf, 0,
						   io[1].buf.len, io[1].seed,
						   &d)) {
				mismatched++;
				bad = true;
				kunit_err(test, "round %u: the READ succeeded with %llu wrong bytes of %u, the first at %lld (%s)\n",
					  r, d.bad, shape->len, d.pos, d.what);
			}
		} else {
			failed++;
		}
		pair_ok = io[0].status == IB_WC_SUCCESS &&
			  io[1].status == IB_WC_SUCCESS;
		if (!pair_ok)
			kunit_err(test, "round %u: the WRITE: %s (%d), the READ: %s (%d)\n",
				  r, netem_status(io[0].status), io[0].status,
				  netem_status(io[1].status), io[1].status);
		mrcore_e2e_buf_free(&io[0].buf);
		mrcore_e2e_buf_free(&io[1].buf);
		if (bad || !pair_ok) {
			/* The QP may be in error: a new connection goes on. */
			netem_close(test, &c);
			reconnects++;
			KUNIT_ASSERT_EQ(test, 0,
					netem_open(test, &c, control, false));
		}
	}
	netem_close(test, &c);
	kunit_info(test, "%u WRITE+READ pairs: %u I/Os succeeded, %u failed (%u reconnects), %u READs succeeded with wrong bytes; a WRITE alone %u ms (its ACK 20 ms late), a pair %u ms (MIDDLE/LAST 40 ms late)\n",
		   ACKORDER_ROUNDS, ok, failed, reconnects, mismatched, ack_ms,
		   read_ms);
	KUNIT_EXPECT_EQ(test, mismatched, 0u);
	KUNIT_EXPECT_EQ(test, failed, 0u);
	/* The packets took the late bands: else nothing was tested. */
	KUNIT_EXPECT_GE(test, ack_ms, 20u);
	KUNIT_EXPECT_GE(test, read_ms, 40u);
	KUNIT_EXPECT_NE(test, read_ms, U32_MAX);
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the run");
}

static struct kunit_case netem_cases[] = {
	KUNIT_CASE_PARAM_ATTR(netem_faults, netem_part_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_case ackorder_cases[] = {
	KUNIT_CASE_PARAM_ATTR(ackorder_stale_ack, ackorder_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_case linkdown_cases[] = {
	KUNIT_CASE_SLOW(linkdown_in_flight),
	{}
};

static struct kunit_suite netem_rxe_suite = {
	.name = "mrcore_netem_rxe_2host",
	.init = mrcore_2host_rxe_suite_init,
	.test_cases = netem_cases,
};

static struct kunit_suite netem_siw_suite = {
	.name = "mrcore_netem_siw_2host",
	.init = mrcore_2host_siw_suite_init,
	.test_cases = netem_cases,
};

static struct kunit_suite linkdown_rxe_suite = {
	.name = "mrcore_linkdown_rxe_2host",
	.init = mrcore_2host_rxe_suite_init,
	.test_cases = linkdown_cases,
};

static struct kunit_suite linkdown_siw_suite = {
	.name = "mrcore_linkdown_siw_2host",
	.init = mrcore_2host_siw_suite_init,
	.test_cases = linkdown_cases,
};

/* RoCE only: siw's TCP hands its packets over in order. */
static struct kunit_suite ackorder_rxe_suite = {
	.name = "mrcore_ackorder_rxe_2host",
	.init = mrcore_2host_rxe_suite_init,
	.test_cases = ackorder_cases,
};

kunit_test_suites(&netem_siw_suite, &netem_rxe_suite, &linkdown_siw_suite,
		  &linkdown_rxe_suite, &ackorder_rxe_suite);
