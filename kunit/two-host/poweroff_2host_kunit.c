// SPDX-License-Identifier: GPL-2.0-only
/*
 * mrcore_poweroff_2host (mrcore_2host_poweroff.ko): the peer guest powered
 * off mid-transfer.  Loaded last by the initiator guest, after the peer
 * finished its own run (kmemleak scan included) and came back to serve
 * this one case: a power cut can be had only once.
 *
 * On rxe and on siw at once, windows of 16 READs (MR-based: rxe's forced
 * to frwr, siw's READ sinks are MRs anyway) of the peer's memory are kept
 * in flight, every byte of each completed one checked, while the peer
 * powers off (MRCORE_PEER_NET_POWEROFF: sysrq o, no disconnect, no FIN).
 * On this survivor every context must complete (those in flight with an
 * error status, after the QP's retry budget: rxe's, siw's TCP cut to
 * tcp_retries2 3), every MR come back to the pool (the failed I/Os' on new
 * device MRs, so their keys are dead), no DMA mapping stay; the guest's
 * kmemleak scan and the console (no splat) are judged after it.
 *
 * siw cannot see the peer die while TCP has nothing to send again: the
 * READ requests in flight were acknowledged by the peer's TCP before the
 * cut, and the responses never come.  As an iWARP ULP must (a keepalive),
 * this survivor then posts a zero-length RDMA WRITE once an I/O has waited
 * PO_PROBE_MS: TCP retransmits it, gives up after tcp_retries2, and siw
 * flushes the QP.  That WRITE goes on the wire only if no READ waits
 * before it in the send queue: siw holds a READ there while its ORQ (the
 * QP's initiator depth) is full, and every WR behind it, until a READ
 * response frees a slot, which a dead peer never sends.  So siw keeps no
 * more READs in flight than its initiator depth (po_window()).
 */

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "client_2host.h"
#include "e2e_suite.h"

#define PO_WINDOW	16
#define PO_SLOT		SZ_64K
#define PO_MAX_LEN	SZ_32K
#define PO_SEED		0x70000
/* The cut comes this long after the peer's answer. */
#define PO_DELAY_MS	4000
/* Give up if the transfers outlive the peer this long (KUnit: 300 s). */
#define PO_LIMIT_MS	180000
/* siw: an I/O waiting this long has its QP probed (the keepalive). */
#define PO_PROBE_MS	3000

/* One device's transfers against the dying peer. */
struct po_dev {
	const struct mrcore_e2e_target *t;
	struct peer_link *link;
	struct peer_x x;
	struct rdma_io_pool *pool;
	struct mrcore_e2e_buf buf[PO_WINDOW];
	struct rdma_io_ctx ctx[PO_WINDOW];
	struct mrcore_e2e_wait w[PO_WINDOW];
	bool posted[PO_WINDOW];
	unsigned int window;
	unsigned int ok, failed, mismatched, lost_mrs;
	u64 recycled0;
	bool dead;
	struct mrcore_e2e_wait probe;
	bool probed;
	unsigned int probes;
	unsigned long probed_at;
};

/* The keepalive: a zero-length RDMA WRITE past the window's slots. */
static void po_probe(struct kunit *test, struct po_dev *d)
{
	struct ib_rdma_wr wr = {};
	int ret;

	mrcore_e2e_wait_init(&d->probe);
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.wr_cqe = &d->probe.cqe;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = d->x.addr + PO_WINDOW * (u64)PO_SLOT;
	wr.rkey = d->x.key;
	ret = ib_post_send(d->link->side->qp, &wr.wr, NULL);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s: the keepalive WRITE",
			    d->t->name);
	d->probed = !ret;
	d->probes += !ret;
	d->probed_at = jiffies;
}

/* siw: wait up to PO_PROBE_MS for @w, then probe the QP once. */
static void po_stalled(struct kunit *test, struct po_dev *d,
		       struct mrcore_e2e_wait *w)
{
	unsigned long until = jiffies + msecs_to_jiffies(PO_PROBE_MS);

	/* One keepalive at a time: the device owns d->probe until then. */
	if ((d->probed && !completion_done(&d->probe.done)) ||
	    !rdma_protocol_iwarp(d->link->side->device, 1))
		return;
	while (!completion_done(&w->done) && time_before(jiffies, until))
		msleep(20);
	if (!completion_done(&w->done))
		po_probe(test, d);
}

/*
 * The I/Os @d keeps in flight: PO_WINDOW, but on iWARP no more than the
 * READs the QP may have outstanding (the initiator depth it connected
 * with), so that the keepalive never queues behind a READ held for a
 * free ORQ slot.  Each I/O here posts one READ: a window of up to
 * PO_MAX_LEN fits one MR.
 */
static unsigned int po_window(const struct po_dev *d)
{
	const struct ib_device *ibdev = d->link->side->device;

	if (!rdma_protocol_iwarp(ibdev, 1))
		return PO_WINDOW;
	return min3(PO_WINDOW, (unsigned int)d->link->pair->caps.rd_atom,
		    (unsigned int)ibdev->attrs.max_qp_init_rd_atom);
}

static void po_post(struct kunit *test, struct po_dev *d)
{
	unsigned int i;
	int ret;

	for (i = 0; i < d->window; i++) {
		u32 len = 1 + get_random_u32_below(PO_MAX_LEN);

		d->posted[i] = false;
		KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&d->buf[i], len,
							      get_random_u32_below(PAGE_SIZE)));
		ret = rdma_io_ctx_init(&d->ctx[i], d->pool, d->buf[i].sg,
				       d->buf[i].nents, 0,
				       d->x.addr + i * (u64)PO_SLOT, d->x.key,
				       DMA_FROM_DEVICE);
		if (ret < 0) {
			d->failed++;
			continue;
		}
		mrcore_e2e_wait_init(&d->w[i]);
		ret = rdma_io_ctx_post(&d->ctx[i], &d->w[i].cqe, NULL);
		if (ret) {
			if (ret == -EINPROGRESS)
				ib_drain_qp(d->link->side->qp);
			rdma_io_ctx_destroy(&d->ctx[i], NULL);
			d->failed++;
			continue;
		}
		d->posted[i] = true;
	}
}

static void po_reap(struct kunit *test, struct po_dev *d)
{
	struct mrcore_e2e_diff diff;
	unsigned int i;

	for (i = 0; i < d->window; i++) {
		struct ib_wc wc = {};
		int status;

		if (d->posted[i]) {
			po_stalled(test, d, &d->w[i]);
			status = mrcore_e2e_wait_done(d->link->side, &d->w[i],
						      PEER_CALL_TIMEOUT_MS);
			KUNIT_EXPECT_GE_MSG(test, status, 0,
					    "%s: an I/O never completed",
					    d->t->name);
			wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
			if (status != IB_WC_SUCCESS)
				d->lost_mrs += d->ctx[i].nr_mrs;
			rdma_io_ctx_destroy(&d->ctx[i],
					    status < 0 ? NULL : &wc);
			if (status == IB_WC_SUCCESS) {
				d->ok++;
				if (!mrcore_e2e_buf_verify(&d->buf[i], 0,
							   d->buf[i].len,
							   PO_SEED + i, &diff))
					d->mismatched++;
			} else {
				d->failed++;
				d->dead = true;
			}
		}
		mrcore_e2e_buf_free(&d->buf[i]);
	}
}

static void po_pool_release(void *pool)
{
	rdma_io_pool_destroy(pool);
}

static void po_restore(void *unused)
{
	mrcore_2host_sh(MRCORE_2HOST_TCP_RETRIES_DEFAULT);
}

static void poweroff_mid_transfer(struct kunit *test)
{
	const struct mrcore_e2e_target *targets[] = {
		&mrcore_2host_rxe, &mrcore_2host_siw,
	};
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_NET,
		.value = MRCORE_PEER_NET_POWEROFF,
		.len = PO_DELAY_MS,
	};
	struct po_dev *dev;
	unsigned long start;
	long maps0;
	unsigned int k, i, rounds = 0;

	dev = kunit_kcalloc(test, ARRAY_SIZE(targets), sizeof(*dev),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, po_restore,
							   NULL));
	KUNIT_ASSERT_EQ(test, 0, mrcore_2host_sh(MRCORE_2HOST_TCP_RETRIES_SHORT));
	for (k = 0; k < ARRAY_SIZE(targets); k++) {
		struct po_dev *d = &dev[k];
		struct ib_device *ibdev;

		d->t = targets[k];
		d->link = peer_link(test, d->t);
		ibdev = d->link->side->device;
		peer_expose(test, d->link, 0, 0, 0, MRCORE_PEER_F_CONTIG,
			    MRCORE_E2E_POISONED, &d->x);
		for (i = 0; i < PO_WINDOW; i++)
			peer_fill(test, d->link, d->x.id, i * (u64)PO_SLOT,
				  PO_MAX_LEN, PO_SEED + i, 0);
		d->pool = rdma_io_pool_create(d->link->side->qp,
					      d->link->side->cm_id->port_num,
					      PO_WINDOW,
					      PO_MAX_LEN / PAGE_SIZE + 2);
		KUNIT_ASSERT_FALSE(test, IS_ERR(d->pool));
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, po_pool_release,
							  d->pool));
		if (!rdma_protocol_iwarp(ibdev, 1))
			KUNIT_ASSERT_EQ(test, 0,
					rdma_io_pool_force_backend(d->pool,
								   "frwr"));
		d->window = po_window(d);
		KUNIT_ASSERT_GT(test, d->window, 0u);
		kunit_info(test, "%s: %u READs in flight\n",
			   dev_name(&ibdev->dev), d->window);
		KUNIT_ASSERT_EQ(test, 0,
				rdma_mrcore_device_counter(ibdev, "mr_recycled",
							   &d->recycled0));
	}
	maps0 = rdma_mrcore_dma_maps_live();

	/* The peer answers, then dies PO_DELAY_MS later. */
	KUNIT_ASSERT_EQ(test, 0, peer_call(dev[0].link, &r));
	start = jiffies;
	kunit_info(test, "the peer powers off in %u ms\n", PO_DELAY_MS);
	while (!dev[0].dead || !dev[1].dead) {
		KUNIT_ASSERT_LT_MSG(test, jiffies_to_msecs(jiffies - start),
				    PO_LIMIT_MS,
				    "the transfers outlived the peer");
		for (k = 0; k < ARRAY_SIZE(targets); k++)
			po_post(test, &dev[k]);
		for (k = 0; k < ARRAY_SIZE(targets); k++)
			po_reap(test, &dev[k]);
		rounds++;
	}

	for (k = 0; k < ARRAY_SIZE(targets); k++) {
		struct po_dev *d = &dev[k];
		struct ib_device *ibdev = d->link->side->device;
		u64 recycled = 0;

		if (d->probed) {
			int status = mrcore_e2e_wait_done(d->link->side,
							  &d->probe,
							  PEER_CALL_TIMEOUT_MS);

			kunit_info(test, "%s: %u keepalive WRITEs, the last posted %u ms after the request: %s\n",
				   dev_name(&ibdev->dev), d->probes,
				   jiffies_to_msecs(d->probed_at - start),
				   status < 0 ? "no completion" :
						ib_wc_status_msg(status));
		}
		KUNIT_EXPECT_EQ(test, rdma_io_pool_drain(d->pool),
				rdma_io_pool_size(d->pool));
		KUNIT_EXPECT_EQ(test, 0,
				rdma_mrcore_device_counter(ibdev, "mr_recycled",
							   &recycled));
		kunit_info(test, "%s: %u READs completed and verified (%u mismatches), %u failed with the peer gone, %llu of %u MRs recycled\n",
			   dev_name(&ibdev->dev), d->ok, d->mismatched,
			   d->failed, recycled - d->recycled0, d->lost_mrs);
		KUNIT_EXPECT_EQ(test, d->mismatched, 0u);
		KUNIT_EXPECT_GT(test, d->ok, 0u);
		KUNIT_EXPECT_GT(test, d->failed, 0u);
		KUNIT_EXPECT_EQ(test, recycled - d->recycled0, (u64)d->lost_mrs);
	}
	kunit_info(test, "%u rounds; the last I/O failed %u ms after the request\n",
		   rounds, jiffies_to_msecs(jiffies - start));
	KUNIT_EXPECT_EQ_MSG(test, rdma_mrcore_dma_maps_live(), maps0,
			    "DMA mappings left after the peer died");
}

static struct kunit_case poweroff_cases[] = {
	KUNIT_CASE_SLOW(poweroff_mid_transfer),
	{}
};

static struct kunit_suite poweroff_suite = {
	.name = "mrcore_poweroff_2host",
	.test_cases = poweroff_cases,
};

kunit_test_suites(&poweroff_suite);

MODULE_DESCRIPTION("rdma-mrcore make kunit-2host: the peer powered off mid-transfer");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
MODULE_IMPORT_NS(MRCORE_2HOST);
