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
 * The keys die before the memory goes back, on this path too: right after
 * the teardown released the I/Os and unmapped the exposed MR, attackers on
 * other connections to the same PDs, connected before the removal (a device
 * being removed takes no new connection), try the old keys.  rdma_cm tells
 * a device's ids of the removal in the order they were bound to it, so the
 * attackers, connected after the pair, are still up when its teardown runs.
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
#define REMOVAL_SEED_REUSED	0x30001

/**
 * struct removal_attack - one try of an old key during the removal
 * @exposed: the exposed MR's rkey on its PD, else the sink key of a READ
 *	of the pool on the active end's PD.
 * @op: the attacker's access.
 */
struct removal_attack {
	bool exposed;
	enum ib_wr_opcode op;
};

static const struct removal_attack removal_attacks[] = {
	{ .exposed = true, .op = IB_WR_RDMA_WRITE },
	{ .exposed = true, .op = IB_WR_RDMA_READ },
	{ .exposed = false, .op = IB_WR_RDMA_WRITE },
};

#define REMOVAL_ATTACKS		ARRAY_SIZE(removal_attacks)

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
 * @rkey: the exposed MR's rkey.
 * @iova: its address.
 * @sink_key: the key of the first READ's sink MR.
 * @sink_iova: its address.
 * @atk: the attackers' connections, one per entry of removal_attacks[].
 * @atk_wait: their accesses' completions.
 * @atk_ret: mrcore_e2e_try_key_on() of each, run by the teardown (its
 *	control ran when it connected, removal_attackers()).
 * @exposed_kept: the exposed memory kept the bytes its owner wrote after
 *	the unmap.
 * @sink_kept: the first READ's memory kept the bytes written after its
 *	destroy.
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
	u32 rkey;
	u64 iova;
	u32 sink_key;
	u64 sink_iova;
	struct mrcore_e2e_pair *atk[REMOVAL_ATTACKS];
	struct mrcore_e2e_wait atk_wait[REMOVAL_ATTACKS];
	int atk_ret[REMOVAL_ATTACKS];
	bool exposed_kept;
	bool sink_kept;
};

/*
 * The owners reuse the memory at once; each attacker tries its old key;
 * the memory keeps the owners' bytes.  The attackers' connections go with
 * their own removal events, after this pair's: the harness deallocates a
 * PD with the last connection on it.  (Destroying an iWARP connection here
 * would deadlock: iw_cm's ordered work queue would wait for this pair's
 * rdma_cm handler, which runs this teardown.)
 */
static void removal_attack_keys(struct removal_ctx *r)
{
	struct mrcore_e2e_diff diff;
	int i;

	mrcore_e2e_buf_fill(&r->exposed, REMOVAL_SEED_REUSED);
	mrcore_e2e_buf_fill(&r->local[0], REMOVAL_SEED_REUSED + 1);
	for (i = 0; i < REMOVAL_ATTACKS; i++) {
		const struct removal_attack *a = &removal_attacks[i];

		r->atk_ret[i] = mrcore_e2e_try_key_on(r->atk[i], a->op,
						      a->exposed ? r->rkey :
								   r->sink_key,
						      a->exposed ? r->iova :
								   r->sink_iova,
						      NULL, &r->atk_wait[i]);
	}
	r->exposed_kept = mrcore_e2e_buf_verify(&r->exposed, 0, r->exposed.len,
						REMOVAL_SEED_REUSED, &diff);
	r->sink_kept = mrcore_e2e_buf_verify(&r->local[0], 0, r->local[0].len,
					     REMOVAL_SEED_REUSED + 1, &diff);
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
	removal_attack_keys(r);
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

	/* The attackers always; the rest only when the removal failed. */
	if (r->pool)
		rdma_io_pool_destroy(r->pool);
	if (r->mr)
		rdma_destroy_mr(r->mr);
	for (i = 0; i < REMOVAL_ATTACKS; i++)
		if (r->atk[i])
			mrcore_e2e_pair_destroy(r->atk[i]);
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

/*
 * The passive end exposes REMOVAL_PAGES pages through the map API, for
 * READs and WRITEs: *@rkey at *@iova.
 */
static void removal_expose(struct kunit *test, struct removal_ctx *r,
			   u32 *rkey, u64 *iova)
{
	struct ib_send_wr *reg = NULL;
	struct mrcore_e2e_wait w;

	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_buf_alloc(&r->exposed,
						      REMOVAL_PAGES * PAGE_SIZE,
						      0));
	r->mr = rdma_create_mr(r->pair->passive.pd, REMOVAL_PAGES,
			       RDMA_MR_ROLE_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->mr));
	mrcore_e2e_wait_init(&w);
	rdma_mr_set_cqe(r->mr, &w.cqe);
	KUNIT_ASSERT_EQ(test, 0, rdma_map_sg_rkey(rkey, iova, r->mr,
						  r->exposed.sg,
						  r->exposed.nents,
						  RDMA_MR_REMOTE_READ |
						  RDMA_MR_REMOTE_WRITE, &reg));
	KUNIT_ASSERT_EQ(test, 0, mrcore_e2e_post(&r->pair->passive, reg, &w,
						 REMOVAL_TIMEOUT_MS));
	rdma_mr_set_cqe(r->mr, NULL);
}

/*
 * The active end READs @rkey at @iova, REMOVAL_IOS I/Os at once through MRs
 * of its pool, and does not wait.
 */
static void removal_reads(struct kunit *test, struct removal_ctx *r,
			  u32 rkey, u64 iova)
{
	const struct mrcore_e2e_target *t = test->priv;
	int i, ret;

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
		mrcore_e2e_wait_init(&r->wait[i]);
		KUNIT_ASSERT_EQ(test, 0, rdma_io_ctx_post(&r->ctx[i],
							  &r->wait[i].cqe,
							  NULL));
	}
}

/*
 * The attackers, connected after the pair (so rdma_cm tells them of the
 * removal after it), on the PDs of the keys they will try.  Each makes its
 * control at once, while its connection can still register a key: the
 * same op and length reach the bytes its key names through a reference
 * key (mrcore_e2e_try_ref()), so that the refusal during the removal, on
 * the same connection, can only come from the old key.
 */
static void removal_attackers(struct kunit *test, struct removal_ctx *r)
{
	struct mrcore_e2e_ref ref = { .at = 0 };
	int i, ret;

	KUNIT_ASSERT_GT(test, r->ctx[0].nr_mrs, 0u);
	r->sink_key = r->ctx[0].mrs[0]->key;
	r->sink_iova = r->ctx[0].mrs[0]->iova;
	for (i = 0; i < REMOVAL_ATTACKS; i++) {
		struct mrcore_e2e_side *owner = removal_attacks[i].exposed ?
						&r->pair->passive :
						&r->pair->active;

		ret = mrcore_e2e_pair_create_on_pd(r->pair, owner->pd,
						   &r->atk[i]);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "attacker %d: no connection",
				    i);
		ref.buf = removal_attacks[i].exposed ? &r->exposed :
						       &r->local[0];
		ret = mrcore_e2e_try_ref(r->atk[i], removal_attacks[i].op,
					 &ref, &r->atk_wait[i]);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0,
				    "attacker %d: control: its %s through a reference key was not served",
				    i, removal_attacks[i].op == IB_WR_RDMA_WRITE ?
				       "WRITE" : "READ");
	}
}

/* Every old key was refused and the memory kept its owners' bytes. */
static void removal_expect_attacks(struct kunit *test,
				   const struct removal_ctx *r)
{
	int i;

	for (i = 0; i < REMOVAL_ATTACKS; i++) {
		const struct removal_attack *a = &removal_attacks[i];

		KUNIT_EXPECT_EQ_MSG(test, r->atk_ret[i], 1,
				    "the attacker's %s through the old %s key 0x%x was not refused",
				    a->op == IB_WR_RDMA_WRITE ? "WRITE" : "READ",
				    a->exposed ? "exposed" : "sink",
				    a->exposed ? r->rkey : r->sink_key);
	}
	KUNIT_EXPECT_TRUE_MSG(test, r->exposed_kept,
			      "the exposed memory changed after its unmap");
	KUNIT_EXPECT_TRUE_MSG(test, r->sink_kept,
			      "a READ's memory changed after its destroy");
}

static void removal_while_in_use(struct kunit *test)
{
	const struct mrcore_e2e_target *t = test->priv;
	char name[IB_DEVICE_NAME_MAX];
	struct ib_device *gone;
	struct removal_ctx *r;
	unsigned long left;
	struct mrcore_e2e_caps caps = mrcore_e2e_default_caps;
	int live, ret;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->test = test;
	init_completion(&r->removed);
	INIT_WORK(&r->work, removal_work);
	ret = kunit_add_action_or_reset(test, removal_release, r);
	KUNIT_ASSERT_EQ(test, ret, 0);

	/* Queues for the READs in flight (rdma_io_max_send_wr()). */
	caps.io_ctxs = REMOVAL_IOS;
	caps.io_pages = REMOVAL_PAGES;
	ret = mrcore_e2e_pair_create_caps(t, &caps, &r->pair);
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

	/* The passive end exposes 16 pages; the active end READs them. */
	removal_expose(test, r, &r->rkey, &r->iova);
	removal_reads(test, r, r->rkey, r->iova);

	removal_attackers(test, r);

	live = rdma_mrcore_devices_live();
	/* The work's reference, which the unregistration consumes. */
	KUNIT_ASSERT_PTR_EQ(test, ib_device_get_by_name(name,
							RDMA_DRIVER_UNKNOWN),
			    r->ibdev);
	queue_work(system_unbound_wq, &r->work);
	left = wait_for_completion_timeout(&r->removed,
					   msecs_to_jiffies(REMOVAL_TIMEOUT_MS));
	if (!left) {
		/* The teardown still runs on @r: wait for it, then fail. */
		wait_for_completion(&r->removed);
		KUNIT_FAIL(test, "removing %s took over %d ms", name,
			   REMOVAL_TIMEOUT_MS);
	}

	KUNIT_EXPECT_TRUE(test, r->teardown_ran);
	KUNIT_EXPECT_TRUE(test, r->statuses_ok);
	KUNIT_EXPECT_EQ(test, r->unmap_ret, 0);
	removal_expect_attacks(test, r);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->pair->removals), 2);
	/* Pool and MRs are gone: so is the device's state and its files. */
	KUNIT_EXPECT_EQ(test, rdma_mrcore_devices_live(), live - 1);
	KUNIT_EXPECT_FALSE(test, removal_debugfs_has(name));
	gone = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	KUNIT_EXPECT_NULL(test, gone);
	if (gone)
		ib_device_put(gone);
	kunit_info(test, "%s removed with %d I/Os in flight and an exposed MR\n",
		   name, REMOVAL_IOS);
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
