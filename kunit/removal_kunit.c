// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device removal while rdma-mrcore holds resources on the device:
 * mrcore_removal_siw and mrcore_removal_rxe.
 *
 * A pair on siw1 (rxe1) gets a pool with I/Os in flight on one end and a
 * map-API MR whose rkey the other end exposes.  Then the device is removed
 * the way `rdma link delete` removes it (the netlink command ends in
 * ib_unregister_device_and_put() for devices that allow it).  rdma_cm tells
 * the pair's ends; the harness calls this test's teardown, as a ULP's
 * DEVICE_REMOVAL handler would, and releases the QPs.  The removal must
 * finish (no hang), rdma-mrcore's remove() must drop its per-device state
 * (debugfs files at once, the state itself with the last pool or MR) and
 * nothing may leak or splat.
 *
 * The devices do not come back: this module is loaded after every other
 * test module (scripts/guest-init.sh).
 */

#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/mrcore.h>
#include <rdma/mrcore_backend.h>

#include "e2e_suite.h"
#include "mrcore_harness.h"

#define REMOVAL_IOS		8
#define REMOVAL_PAGES		16
#define REMOVAL_TIMEOUT_MS	60000
/* The I/Os whose keys the attacker tries: the first and the last posted. */
#define REMOVAL_ATK_IOS		2
/* A refused access breaks its connection: one per try, WRITE and READ. */
#define REMOVAL_ATK_PAIRS	(2 * REMOVAL_ATK_IOS)
#define REMOVAL_ATK_BYTES	64
#define REMOVAL_SEED_REUSED	0x30001
#define REMOVAL_SEED_ATTACKER	0x30002

/**
 * struct removal_ctx - what the test builds on the pair
 * @test: the test.
 * @pair: the pair.
 * @pool: the active end's pool.
 * @ctx: its I/Os, in flight when the device goes.
 * @wait: their completions.
 * @local: their memory.
 * @exposed: the passive end's memory, exposed under @mr's rkey.
 * @mr: a map-API MR with a remote mapping.
 * @teardown_ran: the removal hook ran.
 * @statuses_ok: every I/O completed, with success or a flush.
 * @unmap_ret: rdma_unmap_mr() in the hook.
 * @work: runs the removal, which blocks until it is done.
 * @removed: completed when the removal returned.
 * @ibdev: the device being removed.
 * @atk: the attacker's connections to the active end's PD, made before the
 *	removal (none can be made during it).
 * @key: the keys of the I/Os the attacker tries.
 * @iova: their addresses.
 * @tries: the attacker's accesses tried after the I/Os were destroyed.
 * @refused: those the devices refused.
 * @reached: the memory of an attacked I/O changed after its destroy.
 */
struct removal_ctx {
	struct kunit *test;
	struct mrcore_e2e_pair *pair;
	struct rdma_io_pool *pool;
	struct rdma_io_ctx ctx[REMOVAL_IOS];
	struct mrcore_e2e_wait wait[REMOVAL_IOS];
	struct mrcore_e2e_buf local[REMOVAL_IOS];
	struct mrcore_e2e_buf exposed;
	struct rdma_mr *mr;
	bool teardown_ran;
	bool statuses_ok;
	int unmap_ret;
	struct work_struct work;
	struct completion removed;
	struct ib_device *ibdev;
	struct mrcore_e2e_pair *atk[REMOVAL_ATK_PAIRS];
	u32 key[REMOVAL_ATK_IOS];
	u64 iova[REMOVAL_ATK_IOS];
	unsigned int tries;
	unsigned int refused;
	bool reached;
};

/* The index in @ctx of the I/O whose keys attack @i tries. */
static unsigned int removal_atk_io(unsigned int i)
{
	return i ? REMOVAL_IOS - 1 : 0;
}

/*
 * One try of the attacker over @atk (the shared PD's connection): @op of
 * 64 bytes through @key at @iova.  True if refused: an error completion,
 * or for an iWARP WRITE (never acknowledged) the connection broken.
 */
static bool removal_try(struct removal_ctx *r, struct mrcore_e2e_pair *atk,
			enum ib_wr_opcode op, u32 key, u64 iova)
{
	struct mrcore_e2e_buf buf = {};
	struct mrcore_e2e_diff diff;
	struct mrcore_e2e_wait w;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	bool refused;
	int st;

	if (!atk || !atk->passive.qp)
		return false;
	if (mrcore_e2e_buf_alloc(&buf, REMOVAL_ATK_BYTES, 0))
		return false;
	if (op == IB_WR_RDMA_WRITE)
		mrcore_e2e_buf_fill(&buf, REMOVAL_SEED_ATTACKER);
	else
		mrcore_e2e_buf_poison(&buf);
	if (ib_dma_map_sg(atk->passive.device, buf.sg, buf.nents,
			  DMA_BIDIRECTIONAL) != buf.nents) {
		mrcore_e2e_buf_free(&buf);
		return false;
	}
	r->tries++;
	sge.addr = sg_dma_address(buf.sg);
	sge.length = REMOVAL_ATK_BYTES;
	sge.lkey = atk->passive.pd->local_dma_lkey;
	mrcore_e2e_wait_init(&w);
	mrcore_e2e_rdma_wr(&wr, op, &sge, iova, key, &w);
	st = mrcore_e2e_post(&atk->passive, &wr.wr, &w, REMOVAL_TIMEOUT_MS);
	refused = st != IB_WC_SUCCESS;
	if (!refused && op == IB_WR_RDMA_WRITE &&
	    rdma_protocol_iwarp(atk->passive.device, 1))
		refused = mrcore_e2e_qp_failed(&atk->passive, 5000);
	ib_dma_unmap_sg(atk->passive.device, buf.sg, buf.nents,
			DMA_BIDIRECTIONAL);
	if (op == IB_WR_RDMA_READ &&
	    !mrcore_e2e_buf_verify(&buf, 0, REMOVAL_ATK_BYTES,
				   MRCORE_E2E_POISONED, &diff))
		refused = false;
	mrcore_e2e_buf_free(&buf);
	r->refused += refused;
	return refused;
}

/*
 * Right after the I/Os were destroyed, the owner reuses their memory and
 * the attacker tries the keys of two of them, WRITE then READ.  Then the
 * QPs of its connections on the shared PD go, since the pair's active end
 * releases that PD next.  Only the QPs: destroying an rdma_cm id here, in
 * the pair's DEVICE_REMOVAL handler, deadlocked on siw (iw_cm's ordered
 * work queue waited for this handler, which waited for the queue); the
 * ids go with their own removal events, the pairs in removal_release().
 */
static void removal_attack(struct removal_ctx *r)
{
	struct mrcore_e2e_diff diff;
	unsigned int i, io;

	for (i = 0; i < REMOVAL_ATK_IOS; i++)
		mrcore_e2e_buf_fill(&r->local[removal_atk_io(i)],
				    REMOVAL_SEED_REUSED);
	for (i = 0; i < REMOVAL_ATK_IOS; i++) {
		removal_try(r, r->atk[2 * i], IB_WR_RDMA_WRITE, r->key[i],
			    r->iova[i]);
		removal_try(r, r->atk[2 * i + 1], IB_WR_RDMA_READ, r->key[i],
			    r->iova[i]);
	}
	for (i = 0; i < REMOVAL_ATK_IOS; i++) {
		io = removal_atk_io(i);
		if (!mrcore_e2e_buf_verify(&r->local[io], 0, r->local[io].len,
					   REMOVAL_SEED_REUSED, &diff))
			r->reached = true;
	}
	for (i = 0; i < REMOVAL_ATK_PAIRS; i++) {
		struct mrcore_e2e_side *side = r->atk[i] ? &r->atk[i]->active :
							   NULL;

		if (!side || !side->qp)
			continue;
		ib_drain_qp(side->qp);
		rdma_destroy_qp(side->cm_id);
		side->qp = NULL;
	}
}

/* The ULP's DEVICE_REMOVAL duty: release what it built on the device. */
static void removal_teardown(struct mrcore_e2e_pair *pair, void *data)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct removal_ctx *r = data;
	struct ib_send_wr *inv = NULL;
	struct mrcore_e2e_wait w;
	int i;

	r->statuses_ok = true;
	ib_modify_qp(pair->active.qp, &attr, IB_QP_STATE);
	for (i = 0; i < REMOVAL_IOS; i++) {
		int status = mrcore_e2e_wait_done(&pair->active, &r->wait[i],
						  REMOVAL_TIMEOUT_MS);
		struct ib_wc wc = { .status = status };

		if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR)
			r->statuses_ok = false;
		rdma_io_ctx_destroy(&r->ctx[i], status < 0 ? NULL : &wc);
	}
	removal_attack(r);
	rdma_io_pool_destroy(r->pool);
	r->pool = NULL;

	/* The exposed key dies before the MR goes (a flushed LOCAL_INV
	 * leaves that to the deregistration, which kills it as well).
	 */
	if (!rdma_invalidate_mr(r->mr, &inv)) {
		mrcore_e2e_wait_init(&w);
		inv->wr_cqe = &w.cqe;
		inv->send_flags |= IB_SEND_SIGNALED;
		mrcore_e2e_post(&pair->passive, inv, &w, REMOVAL_TIMEOUT_MS);
	}
	r->unmap_ret = rdma_unmap_mr(r->mr);
	rdma_destroy_mr(r->mr);
	r->mr = NULL;
	r->teardown_ran = true;
}

static void removal_work(struct work_struct *work)
{
	struct removal_ctx *r = container_of(work, struct removal_ctx, work);

	/* What the netlink DELLINK command does after its checks. */
	ib_unregister_device_and_put(r->ibdev);
	complete(&r->removed);
}

static void removal_release(void *data)
{
	struct removal_ctx *r = data;
	int i;

	/* Left over only when the removal failed part way. */
	for (i = 0; i < REMOVAL_ATK_PAIRS; i++)
		if (r->atk[i])
			mrcore_e2e_pair_destroy(r->atk[i]);
	if (r->pool)
		rdma_io_pool_destroy(r->pool);
	if (r->mr)
		rdma_destroy_mr(r->mr);
	if (r->pair)
		mrcore_e2e_pair_destroy(r->pair);
	for (i = 0; i < REMOVAL_IOS; i++)
		mrcore_e2e_buf_free(&r->local[i]);
	mrcore_e2e_buf_free(&r->exposed);
}

static bool removal_debugfs_has(const char *dev)
{
	struct dentry *root, *devs, *d = NULL;

	root = debugfs_lookup("rdma_mrcore", NULL);
	if (!root)
		return false;
	devs = debugfs_lookup("devices", root);
	if (devs) {
		d = debugfs_lookup(dev, devs);
		dput(devs);
	}
	dput(root);
	dput(d);
	return d;
}

static void removal_while_in_use(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;
	char name[IB_DEVICE_NAME_MAX];
	struct ib_send_wr *reg = NULL;
	struct mrcore_e2e_wait w;
	struct ib_device *gone;
	struct removal_ctx *r;
	unsigned long left;
	u64 iova;
	int live, i, ret;
	u32 rkey;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->test = test;
	init_completion(&r->removed);
	INIT_WORK(&r->work, removal_work);
	ret = kunit_add_action_or_reset(test, removal_release, r);
	KUNIT_ASSERT_EQ(test, ret, 0);

	ret = mrcore_e2e_pair_create(t, &r->pair);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "connecting over %s failed", t->name);
	r->pair->on_removal = removal_teardown;
	r->pair->removal_data = r;
	r->ibdev = r->pair->active.device;
	strscpy(name, dev_name(&r->ibdev->dev), sizeof(name));
	KUNIT_ASSERT_TRUE_MSG(test, r->pair->passive.device == r->ibdev,
			      "both ends must be on the removed device");
	if (!(r->ibdev->attrs.kernel_cap_flags & IBK_ALLOW_USER_UNREG))
		kunit_skip(test, "%s cannot be removed with rdma link delete",
			   name);
	KUNIT_ASSERT_TRUE(test, removal_debugfs_has(name));

	/* The passive end exposes 16 pages through the map API. */
	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&r->exposed,
						      REMOVAL_PAGES * PAGE_SIZE,
						      0));
	r->mr = rdma_create_mr(r->pair->passive.pd, REMOVAL_PAGES,
			       RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->mr));
	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(r->mr, &w.cqe);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(&rkey, &iova, r->mr,
						  r->exposed.sg,
						  r->exposed.nents,
						  RDMA_MR_REMOTE_READ |
						  RDMA_MR_REMOTE_WRITE, &reg));
	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_post(&r->pair->passive, reg, &w,
						 REMOVAL_TIMEOUT_MS));
	rdma_mr_set_cqe(r->mr, NULL);

	/*
	 * The attacker's connections to the active end's PD; made after the
	 * pair, so rdma_cm tells the pair of the removal first.
	 */
	for (i = 0; i < REMOVAL_ATK_PAIRS; i++) {
		ret = mrcore_e2e_pair_create_shared(r->pair, &r->atk[i]);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "attacker connection %d", i);
	}

	/* The active end READs it, 8 I/Os at once, and does not wait. */
	r->pool = rdma_io_pool_create(r->pair->active.qp,
				      r->pair->active.cm_id->port_num,
				      REMOVAL_IOS, REMOVAL_PAGES);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->pool));
	ret = rdma_io_pool_force_backend(r->pool, t == &mrcore_e2e_siw ?
					 "iwarp" : "frwr");
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < REMOVAL_IOS; i++) {
		KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&r->local[i],
							      REMOVAL_PAGES *
							      PAGE_SIZE, 0));
		KUNIT_ASSERT_GT(test, rdma_io_ctx_init(&r->ctx[i], r->pool,
						       r->local[i].sg,
						       r->local[i].nents, 0,
						       iova, rkey,
						       DMA_FROM_DEVICE), 0);
		KUNIT_ASSERT_GT(test, r->ctx[i].nr_mrs, 0u);
		if (i == removal_atk_io(0) || i == removal_atk_io(1)) {
			unsigned int a = i == removal_atk_io(0) ? 0 : 1;

			r->key[a] = r->ctx[i].mrs[0]->key;
			r->iova[a] = r->ctx[i].mrs[0]->iova;
		}
		mrcore_e2e_wait_init(&r->wait[i]);
		KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&r->ctx[i],
							  &r->wait[i].cqe,
							  NULL));
	}

	live = rdma_mrcore_devices_live();
	/* The work's reference, which the unregistration consumes. */
	KUNIT_ASSERT_PTR_EQ(test, ib_device_get_by_name(name,
							RDMA_DRIVER_UNKNOWN),
			    r->ibdev);
	queue_work(system_unbound_wq, &r->work);
	left = wait_for_completion_timeout(&r->removed,
					   msecs_to_jiffies(REMOVAL_TIMEOUT_MS));
	KUNIT_ASSERT_GT_MSG(test, left, 0ul, "removing %s hung", name);

	KUNIT_EXPECT_TRUE(test, r->teardown_ran);
	KUNIT_EXPECT_TRUE(test, r->statuses_ok);
	KUNIT_EXPECT_EQ(test, r->unmap_ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, r->tries, 2 * REMOVAL_ATK_IOS,
			    "the attacker's connections were gone before the I/Os");
	KUNIT_EXPECT_EQ_MSG(test, r->refused, r->tries,
			    "a key of a destroyed I/O still worked");
	KUNIT_EXPECT_FALSE_MSG(test, r->reached,
			       "the memory of a destroyed I/O changed");
	KUNIT_EXPECT_EQ(test, atomic_read(&r->pair->removals), 2);
	/* Pool and MRs are gone: so is the device's state and its files. */
	KUNIT_EXPECT_EQ(test, rdma_mrcore_devices_live(), live - 1);
	KUNIT_EXPECT_FALSE(test, removal_debugfs_has(name));
	gone = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	KUNIT_EXPECT_NULL(test, gone);
	if (gone)
		ib_device_put(gone);
	kunit_info(test, "%s removed with %d I/Os in flight and an exposed MR; the attacker's %u tries on the shared PD after the destroys: %u refused\n",
		   name, REMOVAL_IOS, r->tries, r->refused);
}

static struct kunit_case removal_cases[] = {
	KUNIT_CASE_SLOW(removal_while_in_use),
	{}
};

static struct kunit_suite removal_siw_suite = {
	.name = "mrcore_removal_siw",
	.init = mrcore_e2e_siw_suite_init,
	.test_cases = removal_cases,
};

static struct kunit_suite removal_rxe_suite = {
	.name = "mrcore_removal_rxe",
	.init = mrcore_e2e_rxe_suite_init,
	.test_cases = removal_cases,
};

kunit_test_suites(&removal_siw_suite, &removal_rxe_suite);

MODULE_DESCRIPTION("rdma-mrcore KUnit suites: device removal with resources held");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
