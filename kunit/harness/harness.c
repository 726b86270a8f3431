// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end harness for rdma-mrcore: real RDMA devices, connected RC QP
 * pairs, post-and-wait.  See mrcore_harness.h.
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <rdma/mrcore.h>

#include "mrcore_harness.h"

#define MRCORE_E2E_CM_TIMEOUT_MS	5000
#define MRCORE_E2E_STEP_TIMEOUT_MS	15000
/* Another guest, both under TCG on shared cores, maybe behind netem. */
#define MRCORE_E2E_REMOTE_TIMEOUT_MS	60000
#define MRCORE_E2E_RQ_DEPTH		16

const struct mrcore_e2e_target mrcore_e2e_siw = {
	.name = "siw",
	.driver_id = RDMA_DRIVER_SIW,
	.active_addr = "192.0.2.1",
	.passive_addr = "192.0.2.2",
	.port_base = 20000,
	.bind_src = false,
};
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_siw, MRCORE_HARNESS);

const struct mrcore_e2e_target mrcore_e2e_rxe = {
	.name = "rxe",
	.driver_id = RDMA_DRIVER_RXE,
	.active_addr = "198.51.100.1",
	.passive_addr = "198.51.100.2",
	.port_base = 20000,
	.bind_src = false,
};
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_rxe, MRCORE_HARNESS);

/* Devices seen by the ib_client, in registration order. */
struct mrcore_e2e_dev {
	struct list_head node;
	struct ib_device *device;
};

static int bind_src = -1;
module_param(bind_src, int, 0644);
MODULE_PARM_DESC(bind_src,
		 "bind the active side to its address: -1 per device kind (default), 0 never, 1 always");

static LIST_HEAD(mrcore_e2e_devs);
static DEFINE_MUTEX(mrcore_e2e_devs_lock);
static atomic_t mrcore_e2e_port_seq = ATOMIC_INIT(0);

static int mrcore_e2e_add_one(struct ib_device *device)
{
	struct mrcore_e2e_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->device = device;
	mutex_lock(&mrcore_e2e_devs_lock);
	list_add_tail(&d->node, &mrcore_e2e_devs);
	mutex_unlock(&mrcore_e2e_devs_lock);
	return 0;
}

static void mrcore_e2e_remove_one(struct ib_device *device, void *client_data)
{
	struct mrcore_e2e_dev *d, *tmp;

	mutex_lock(&mrcore_e2e_devs_lock);
	list_for_each_entry_safe(d, tmp, &mrcore_e2e_devs, node) {
		if (d->device == device) {
			list_del(&d->node);
			kfree(d);
		}
	}
	mutex_unlock(&mrcore_e2e_devs_lock);
}

static struct ib_client mrcore_e2e_client = {
	.name = "mrcore-harness",
	.add = mrcore_e2e_add_one,
	.remove = mrcore_e2e_remove_one,
};

/**
 * mrcore_e2e_device_present() - is a device of this kind registered?
 * @target: the device kind.
 * @name: if not %NULL, receives the name of the first such device.
 * @name_len: size of @name.
 *
 * Context: Process context; may sleep.
 * Return: true if the ib_client saw a device of @target's driver.
 */
bool mrcore_e2e_device_present(const struct mrcore_e2e_target *target,
			       char *name, size_t name_len)
{
	struct mrcore_e2e_dev *d;
	bool found = false;

	mutex_lock(&mrcore_e2e_devs_lock);
	list_for_each_entry(d, &mrcore_e2e_devs, node) {
		if (d->device->ops.driver_id != target->driver_id)
			continue;
		if (name)
			strscpy(name, dev_name(&d->device->dev), name_len);
		found = true;
		break;
	}
	mutex_unlock(&mrcore_e2e_devs_lock);
	return found;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_device_present, MRCORE_HARNESS);

static int mrcore_e2e_addr(const char *ip, u16 port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (!in4_pton(ip, -1, (u8 *)&sin->sin_addr.s_addr, '\0', NULL))
		return -EINVAL;
	return 0;
}

static void mrcore_e2e_qp_event(struct ib_event *event, void *context)
{
	struct mrcore_e2e_side *side = context;

	side->last_qp_event = event->event;
	/* Pairs with atomic_read() in readers of last_qp_event. */
	smp_wmb();
	atomic_inc(&side->qp_events);
}

static u32 mrcore_e2e_send_sge(const struct mrcore_e2e_caps *caps,
			       struct ib_device *dev)
{
	return min_t(u32, dev->attrs.max_send_sge, caps->max_send_sge);
}

/*
 * The send queue and the CQ of one end (struct mrcore_e2e_caps): the
 * user's own WRs, plus what the READ/WRITE helper says its I/Os may post
 * and complete, plus the receive queue on the CQ; within the device's
 * limits.
 */
static void mrcore_e2e_queue_sizes(const struct mrcore_e2e_caps *caps,
				   struct ib_device *dev, u32 port_num,
				   u32 *send_wrs, u32 *cqes)
{
	u32 sge = mrcore_e2e_send_sge(caps, dev);
	u64 wrs = caps->max_send_wr, cq = caps->max_send_wr;

	if (caps->io_ctxs) {
		wrs += (u64)caps->io_ctxs *
		       rdma_io_max_send_wr(dev, port_num, caps->io_pages, sge);
		cq += (u64)caps->io_ctxs *
		      rdma_io_max_cqe(dev, port_num, caps->io_pages, sge);
	}
	cq += MRCORE_E2E_RQ_DEPTH + 2;
	*send_wrs = min_t(u64, max_t(u64, wrs, 1), dev->attrs.max_qp_wr);
	*cqes = min_t(u64, cq, dev->attrs.max_cqe);
}

/* Allocate PD, CQ and QP on the device @id is bound to. */
static int mrcore_e2e_side_setup(struct mrcore_e2e_pair *pair,
				 struct mrcore_e2e_side *side,
				 struct rdma_cm_id *id)
{
	const struct mrcore_e2e_caps *caps = &pair->caps;
	struct ib_qp_init_attr attr = {};
	struct ib_device *dev = id->device;
	u32 send_wrs, cqes;
	int ret;

	if (!dev)
		return -ENODEV;
	if (dev->ops.driver_id != pair->target->driver_id) {
		pr_err("mrcore_harness: %s: rdma_cm bound %s, not a %s device\n",
		       pair->target->name, dev_name(&dev->dev),
		       pair->target->name);
		return -ENODEV;
	}
	side->device = dev;
	if (side == &pair->active && pair->shared_pd) {
		/* The other pair's PD must be on the device rdma_cm chose. */
		if (pair->shared_pd->device != dev)
			return -ENODEV;
		side->pd = pair->shared_pd;
		side->pd_shared = true;
	} else {
		side->pd = ib_alloc_pd(dev, 0);
		if (IS_ERR(side->pd)) {
			ret = PTR_ERR(side->pd);
			side->pd = NULL;
			return ret;
		}
	}
	/*
	 * Polled from a workqueue, not softirq: ib_free_cq() cancels the
	 * work synchronously, while with IB_POLL_SOFTIRQ ib_poll_handler()
	 * re-arms the CQ after irq_poll_complete(), and a test woken by the
	 * last completion could free the CQ in that window (seen as a KASAN
	 * use-after-free under TCG).
	 */
	mrcore_e2e_queue_sizes(caps, dev, id->port_num, &send_wrs, &cqes);
	side->cq = ib_alloc_cq(dev, side, cqes, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(side->cq)) {
		ret = PTR_ERR(side->cq);
		side->cq = NULL;
		goto err_pd;
	}
	attr.event_handler = mrcore_e2e_qp_event;
	attr.qp_context = side;
	attr.send_cq = side->cq;
	attr.recv_cq = side->cq;
	attr.cap.max_send_wr = send_wrs;
	attr.cap.max_recv_wr = MRCORE_E2E_RQ_DEPTH;
	attr.cap.max_send_sge = mrcore_e2e_send_sge(caps, dev);
	attr.cap.max_rdma_ctxs = caps->max_rdma_ctxs;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, side->pd, &attr);
	if (ret)
		goto err_cq;
	side->qp = id->qp;
	side->cm_id = id;
	/* What the driver made of them. */
	side->send_wrs = attr.cap.max_send_wr;
	side->cqes = side->cq->cqe;
	return 0;

err_cq:
	ib_free_cq(side->cq);
	side->cq = NULL;
err_pd:
	if (!side->pd_shared)
		ib_dealloc_pd(side->pd);
	side->pd = NULL;
	side->pd_shared = false;
	return ret;
}

/**
 * struct mrcore_e2e_orphan - a PD whose owner went while others used it
 * @node: in mrcore_e2e_orphans.
 * @pd: the PD; the last connection on it deallocates it.
 *
 * Connections on another pair's PD (mrcore_e2e_pair_create_on_pd()) are
 * destroyed before that pair, but for a device removal: rdma_cm tells a
 * device's ids in the order they were bound, so the owner of the PD
 * releases its end first, and the sharers theirs later.
 */
struct mrcore_e2e_orphan {
	struct list_head node;
	struct ib_pd *pd;
};

static LIST_HEAD(mrcore_e2e_orphans);
static DEFINE_MUTEX(mrcore_e2e_orphans_lock);	/* protects the list */

/* The owner's end goes: its PD too, unless a sharer's QP still uses it. */
static void mrcore_e2e_pd_put_owner(struct ib_pd *pd)
{
	struct mrcore_e2e_orphan *o;

	mutex_lock(&mrcore_e2e_orphans_lock);
	if (!atomic_read(&pd->usecnt)) {
		mutex_unlock(&mrcore_e2e_orphans_lock);
		ib_dealloc_pd(pd);
		return;
	}
	o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (o) {
		o->pd = pd;
		list_add(&o->node, &mrcore_e2e_orphans);
	} else {
		pr_err("mrcore_harness: a PD in use by another connection is left behind\n");
	}
	mutex_unlock(&mrcore_e2e_orphans_lock);
}

/* A sharer's end went: the last one deallocates an orphaned PD. */
static void mrcore_e2e_pd_put_sharer(struct ib_pd *pd)
{
	struct mrcore_e2e_orphan *o;

	mutex_lock(&mrcore_e2e_orphans_lock);
	list_for_each_entry(o, &mrcore_e2e_orphans, node) {
		if (o->pd != pd)
			continue;
		if (!atomic_read(&pd->usecnt)) {
			list_del(&o->node);
			kfree(o);
			ib_dealloc_pd(pd);
		}
		break;
	}
	mutex_unlock(&mrcore_e2e_orphans_lock);
}

/* Release what mrcore_e2e_side_setup() allocated; the cm_id stays. */
static void mrcore_e2e_side_release(struct mrcore_e2e_side *side)
{
	if (side->qp) {
		ib_drain_qp(side->qp);
		rdma_destroy_qp(side->cm_id);
		side->qp = NULL;
	}
	if (side->cq) {
		ib_free_cq(side->cq);
		side->cq = NULL;
	}
	if (side->pd) {
		if (side->pd_shared)
			mrcore_e2e_pd_put_sharer(side->pd);
		else
			mrcore_e2e_pd_put_owner(side->pd);
		side->pd = NULL;
		side->pd_shared = false;
	}
}

static void mrcore_e2e_conn_param(struct mrcore_e2e_pair *pair,
				  struct ib_device *dev,
				  struct rdma_conn_param *param)
{
	memset(param, 0, sizeof(*param));
	param->responder_resources = min_t(int, dev->attrs.max_qp_rd_atom,
					   pair->caps.rd_atom);
	param->initiator_depth = min_t(int, dev->attrs.max_qp_init_rd_atom,
				       pair->caps.rd_atom);
	param->retry_count = pair->target->retry_count ?: 7;
	param->rnr_retry_count = 7;
}

/*
 * The pair's device is going away: rdma_cm waits until every id on it is
 * destroyed.  The user's hook releases what it built on the QPs first (once,
 * for both ends), then this end's QP, CQ and PD go, and the non-zero return
 * makes rdma_cm destroy the id.
 */
static int mrcore_e2e_removal(struct mrcore_e2e_pair *pair,
			      struct mrcore_e2e_side *side,
			      struct rdma_cm_id *id)
{
	if (side->cm_id != id)
		return 0;
	if (atomic_inc_return(&pair->removals) == 1 && pair->on_removal)
		pair->on_removal(pair, pair->removal_data);
	mrcore_e2e_side_release(side);
	side->cm_id = NULL;
	return 1;
}

/* rdma_cm events of the listener and of the accepted id. */
static int mrcore_e2e_passive_handler(struct rdma_cm_id *id,
				      struct rdma_cm_event *event)
{
	struct mrcore_e2e_pair *pair = id->context;
	struct rdma_conn_param param;
	int ret;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (pair->passive.cm_id)
			return -EBUSY;	/* one connection per pair; rejected */
		ret = mrcore_e2e_side_setup(pair, &pair->passive, id);
		if (ret)
			goto fail;
		mrcore_e2e_conn_param(pair, id->device, &param);
		/* rdma_accept() runs with the handler lock held here. */
		ret = rdma_accept(id, &param);
		if (ret) {
			mrcore_e2e_side_release(&pair->passive);
			pair->passive.cm_id = NULL;
			goto fail;
		}
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		pair->passive_status = 0;
		complete(&pair->passive_done);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (event->event == RDMA_CM_EVENT_DISCONNECTED)
			atomic_inc(&pair->disconnected);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (id == pair->listen_id)
			return 0;
		return mrcore_e2e_removal(pair, &pair->passive, id);
	default:
		if (id == pair->listen_id)
			return 0;
		pr_err("mrcore_harness: %s: passive side: rdma_cm event %s, status %d\n",
		       pair->target->name, rdma_event_msg(event->event),
		       event->status);
		ret = event->status ? event->status : -ECONNABORTED;
		goto fail;
	}

fail:
	pair->passive_status = ret;
	complete(&pair->passive_done);
	/* A non-zero return makes rdma_cm destroy this (child) id. */
	return id == pair->listen_id || id == pair->passive.cm_id ? 0 : ret;
}

static int mrcore_e2e_active_handler(struct rdma_cm_id *id,
				     struct rdma_cm_event *event)
{
	struct mrcore_e2e_pair *pair = id->context;

	if (event->event == RDMA_CM_EVENT_DISCONNECTED) {
		atomic_inc(&pair->disconnected);
		return 0;
	}
	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		return mrcore_e2e_removal(pair, &pair->active, id);
	if (event->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
		return 0;
	pair->active_event = event->event;
	pair->active_status = event->status;
	complete(&pair->active_step);
	return 0;
}

/* Wait for the active side's next rdma_cm event and check it is @want. */
static unsigned int mrcore_e2e_step_ms(const struct mrcore_e2e_target *t)
{
	return t->remote ? MRCORE_E2E_REMOTE_TIMEOUT_MS :
			   MRCORE_E2E_STEP_TIMEOUT_MS;
}

static int mrcore_e2e_active_wait(struct mrcore_e2e_pair *pair,
				  enum rdma_cm_event_type want)
{
	unsigned long tmo = msecs_to_jiffies(mrcore_e2e_step_ms(pair->target));
	unsigned long left;

	left = wait_for_completion_timeout(&pair->active_step, tmo);
	if (!left) {
		pr_err("mrcore_harness: %s: no rdma_cm event (waiting for %s)\n",
		       pair->target->name, rdma_event_msg(want));
		return -ETIMEDOUT;
	}
	reinit_completion(&pair->active_step);
	if (pair->active_event != want) {
		pr_err("mrcore_harness: %s: %s -> %s:%u: got rdma_cm event %s (status %d), wanted %s\n",
		       pair->target->name, pair->target->active_addr,
		       pair->target->passive_addr, pair->port,
		       rdma_event_msg(pair->active_event),
		       pair->active_status, rdma_event_msg(want));
		return pair->active_status ? pair->active_status :
					     -ECONNREFUSED;
	}
	return 0;
}

/*
 * The default queues: a few WRs of the user's own, and one I/O of the
 * READ/WRITE helper of up to %MRCORE_E2E_IO_PAGES pages.
 */
const struct mrcore_e2e_caps mrcore_e2e_default_caps = {
	.max_send_wr = MRCORE_E2E_OWN_WRS,
	.max_send_sge = MRCORE_E2E_SGES,
	.max_rdma_ctxs = 0,
	.rd_atom = MRCORE_E2E_RD_ATOM,
	.io_ctxs = 1,
	.io_pages = MRCORE_E2E_IO_PAGES,
};
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_default_caps, MRCORE_HARNESS);

/**
 * mrcore_e2e_pair_create() - connect an RC QP pair over a device
 * @target: device kind and addresses.
 * @pairp: receives the pair on success.
 *
 * As mrcore_e2e_pair_create_caps() with the harness's default queue sizes
 * (mrcore_e2e_default_caps): %MRCORE_E2E_OWN_WRS send WRs of at most
 * %MRCORE_E2E_SGES SGEs and one READ/WRITE helper I/O of
 * %MRCORE_E2E_IO_PAGES pages, no RDMA R/W contexts,
 * %MRCORE_E2E_RD_ATOM READs in flight.
 *
 * Context: Process context; sleeps until connected (seconds at most).
 * Return: as mrcore_e2e_pair_create_caps().
 */
int mrcore_e2e_pair_create(const struct mrcore_e2e_target *target,
			   struct mrcore_e2e_pair **pairp)
{
	return mrcore_e2e_pair_create_caps(target, &mrcore_e2e_default_caps,
					   pairp);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_pair_create, MRCORE_HARNESS);

static int mrcore_e2e_connect(const struct mrcore_e2e_target *target,
			      const struct mrcore_e2e_caps *caps,
			      struct ib_pd *shared_pd,
			      struct mrcore_e2e_pair **pairp);

/**
 * mrcore_e2e_pair_create_caps() - connect an RC QP pair with given queues
 * @target: device kind and addresses.
 * @caps: queue sizes of both ends' QPs (see &struct mrcore_e2e_caps).
 * @pairp: receives the pair on success.
 *
 * Listens on @target->passive_addr, resolves and connects from
 * @target->active_addr with rdma_cm, and allocates a PD and a CQ on each end
 * on the device rdma_cm bound that end to, which must be of @target's driver.
 * Each call uses a new port, so a pair whose QPs were put into the error
 * state by a test is simply replaced by a new one.
 *
 * Context: Process context; sleeps until connected (seconds at most).
 * Return: 0, -ENODEV when no device of @target's kind is registered or
 * rdma_cm bound another one, -ETIMEDOUT, -ENOMEM, or rdma_cm's error.
 */
int mrcore_e2e_pair_create_caps(const struct mrcore_e2e_target *target,
				const struct mrcore_e2e_caps *caps,
				struct mrcore_e2e_pair **pairp)
{
	return mrcore_e2e_connect(target, caps, NULL, pairp);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_pair_create_caps, MRCORE_HARNESS);

/**
 * mrcore_e2e_pair_create_shared() - a second connection on a pair's PD
 * @base: a connected pair.
 * @pairp: receives the new pair on success.
 *
 * The shared-PD topology ULPs use (one PD per device, many connections):
 * a new RC pair of @base's kind and queue sizes whose active end is a QP
 * on the PD of @base's active end, and whose passive end, with a PD of its
 * own, is a peer that can try any key of that PD.  Destroy the new pair
 * before @base, which owns the PD.
 *
 * Context: Process context; sleeps until connected (seconds at most).
 * Return: as mrcore_e2e_pair_create_caps(); -ENODEV also if rdma_cm bound
 * the new active end to another device than @base's.
 */
int mrcore_e2e_pair_create_shared(const struct mrcore_e2e_pair *base,
				  struct mrcore_e2e_pair **pairp)
{
	return mrcore_e2e_pair_create_on_pd(base, base->active.pd, pairp);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_pair_create_shared, MRCORE_HARNESS);

/**
 * mrcore_e2e_pair_create_on_pd() - a connection on a given PD
 * @base: a connected pair, for its kind and queue sizes.
 * @pd: the PD of one of @base's ends.
 * @pairp: receives the new pair on success.
 *
 * As mrcore_e2e_pair_create_shared(), on @pd, which may be @base's passive
 * end's: the new pair's passive end is a peer that can try any key of @pd.
 *
 * Context: Process context; sleeps until connected (seconds at most).
 * Return: as mrcore_e2e_pair_create_shared().
 */
int mrcore_e2e_pair_create_on_pd(const struct mrcore_e2e_pair *base,
				 struct ib_pd *pd,
				 struct mrcore_e2e_pair **pairp)
{
	if (!pd)
		return -EINVAL;
	return mrcore_e2e_connect(base->target, &base->caps, pd, pairp);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_pair_create_on_pd, MRCORE_HARNESS);

static const char *mrcore_e2e_op(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_WRITE ? "WRITE" : "READ";
}

/* Does @ref's range hold mrcore_e2e_pattern(@seed, k) at byte k? */
static bool mrcore_e2e_ref_holds(const struct mrcore_e2e_ref *ref, u32 seed)
{
	size_t k;

	for (k = 0; k < MRCORE_E2E_TRY_BYTES; k++)
		if (READ_ONCE(*mrcore_e2e_buf_byte(ref->buf, ref->at + k)) !=
		    mrcore_e2e_pattern(seed, k))
			return false;
	return true;
}

/*
 * An iWARP WRITE completes when sent and only its refusal is answered (the
 * peer's TERMINATE, which breaks the connection): refused once @side's QP
 * fails, served if it has not within 5 s, or as soon as the attacker's
 * bytes are in @lands when the caller knows where they go (%NULL if not;
 * the range must not hold them before the access).
 */
static int mrcore_e2e_write_outcome(struct mrcore_e2e_side *side,
				    const struct mrcore_e2e_ref *lands)
{
	unsigned long end = jiffies + msecs_to_jiffies(5000);

	for (;;) {
		if (mrcore_e2e_qp_state(side) == IB_QPS_ERR)
			return 1;
		if (lands && mrcore_e2e_ref_holds(lands, MRCORE_E2E_TRY_SEED))
			return 0;
		if (time_after(jiffies, end))
			return 0;
		msleep(20);
	}
}

/*
 * What the attacker's completion status @st says: 0 served, 1 refused by
 * the peer, or a negative errno when it proves neither.  Only a peer's
 * answer is a refusal: a remote access, operation or request error, or a
 * flush of a WR posted on a connection that was up (the peer's TERMINATE
 * on iWARP breaks the connection, which flushes it, and siw completes the
 * WR it answered as a local QP operation error); an iWARP WRITE, never
 * acknowledged, is refused when that TERMINATE arrives
 * (mrcore_e2e_write_outcome(), with @lands).  A post the driver
 * did not take, a timeout, or a local error means the access never reached
 * the key.
 */
static int mrcore_e2e_refusal(struct mrcore_e2e_side *side,
			      enum ib_wr_opcode op, int st,
			      const struct mrcore_e2e_ref *lands)
{
	if (st < 0) {
		pr_err("mrcore_harness: the attacker's %s was not made: %d\n",
		       mrcore_e2e_op(op), st);
		return st;
	}
	switch (st) {
	case IB_WC_SUCCESS:
		if (op == IB_WR_RDMA_WRITE &&
		    rdma_protocol_iwarp(side->device, side->cm_id->port_num))
			return mrcore_e2e_write_outcome(side, lands);
		return 0;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
	case IB_WC_WR_FLUSH_ERR:
		return 1;
	case IB_WC_LOC_QP_OP_ERR:
		/*
		 * siw completes the WR that the peer's TERMINATE answered
		 * ("siw: got TERMINATE" in the log) with this status.
		 */
		if (rdma_protocol_iwarp(side->device, side->cm_id->port_num))
			return 1;
		fallthrough;
	default:
		pr_err("mrcore_harness: the attacker's %s completed with %s: not a refusal by the peer\n",
		       mrcore_e2e_op(op), ib_wc_status_msg(st));
		return -EIO;
	}
}

/*
 * The attacker's access, and the only post of one: @op of
 * %MRCORE_E2E_TRY_BYTES through @key at @iova from @atk's passive end.  A
 * WRITE carries bytes of its own (mrcore_e2e_buf_fill() with
 * %MRCORE_E2E_TRY_SEED), a READ lands in poisoned memory; @got receives
 * what the READ left there, *@moved whether it is no longer all poison.
 * Returns the completion status, or a negative errno if the access was
 * not made.
 */
static int mrcore_e2e_access(struct mrcore_e2e_pair *atk, enum ib_wr_opcode op,
			     u32 key, u64 iova, struct mrcore_e2e_wait *w,
			     u8 *got, bool *moved)
{
	struct mrcore_e2e_buf buf = {};
	struct mrcore_e2e_diff diff;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	size_t i;
	int st;

	*moved = false;
	st = mrcore_e2e_buf_alloc(&buf, MRCORE_E2E_TRY_BYTES, 0);
	if (st)
		return st;
	if (op == IB_WR_RDMA_WRITE)
		mrcore_e2e_buf_fill(&buf, MRCORE_E2E_TRY_SEED);
	else
		mrcore_e2e_buf_poison(&buf);
	if (ib_dma_map_sg(atk->passive.device, buf.sg, buf.nents,
			  DMA_BIDIRECTIONAL) != buf.nents) {
		st = -ENOMEM;
		goto free_buf;
	}
	sge.addr = sg_dma_address(buf.sg);
	sge.length = MRCORE_E2E_TRY_BYTES;
	sge.lkey = atk->passive.pd->local_dma_lkey;
	/* A connection that is already broken cannot try anything. */
	if (mrcore_e2e_qp_state(&atk->passive) != IB_QPS_RTS) {
		pr_err("mrcore_harness: the attacker's QP on %s is in state %d before its %s: it cannot try\n",
		       dev_name(&atk->passive.device->dev),
		       mrcore_e2e_qp_state(&atk->passive), mrcore_e2e_op(op));
		st = -ENOTCONN;
		goto unmap;
	}
	mrcore_e2e_wait_init(w);
	mrcore_e2e_rdma_wr(&wr, op, &sge, iova, key, w);
	st = mrcore_e2e_post(&atk->passive, &wr.wr, w,
			     MRCORE_E2E_STEP_TIMEOUT_MS);
unmap:
	ib_dma_unmap_sg(atk->passive.device, buf.sg, buf.nents,
			DMA_BIDIRECTIONAL);
	if (st >= 0 && op == IB_WR_RDMA_READ) {
		*moved = !mrcore_e2e_buf_verify(&buf, 0, MRCORE_E2E_TRY_BYTES,
						MRCORE_E2E_POISONED, &diff);
		for (i = 0; i < MRCORE_E2E_TRY_BYTES; i++)
			got[i] = *mrcore_e2e_buf_byte(&buf, i);
	}
free_buf:
	mrcore_e2e_buf_free(&buf);
	return st;
}

/*
 * The reference key: a temporary MR of @atk's active end's PD, with remote
 * rights, over @ref's %MRCORE_E2E_TRY_BYTES bytes (@sg, two entries if
 * they cross a page), registered with a REG_MR on that end's QP.
 */
static struct ib_mr *mrcore_e2e_ref_mr(struct mrcore_e2e_pair *atk,
				       const struct mrcore_e2e_ref *ref,
				       struct scatterlist *sg,
				       unsigned int *nents,
				       struct mrcore_e2e_wait *w)
{
	struct mrcore_e2e_buf *b = ref->buf;
	size_t pos = b->offset + ref->at;
	size_t first = min_t(size_t, MRCORE_E2E_TRY_BYTES,
			     PAGE_SIZE - offset_in_page(pos));
	struct ib_device *dev = atk->active.device;
	struct ib_reg_wr reg;
	struct ib_mr *mr;
	int st;

	if (pos + MRCORE_E2E_TRY_BYTES > (size_t)b->npages * PAGE_SIZE)
		return ERR_PTR(-EINVAL);
	*nents = first < MRCORE_E2E_TRY_BYTES ? 2 : 1;
	sg_init_table(sg, *nents);
	sg_set_page(&sg[0], b->pages[pos / PAGE_SIZE], first,
		    offset_in_page(pos));
	if (*nents == 2)
		sg_set_page(&sg[1], b->pages[pos / PAGE_SIZE + 1],
			    MRCORE_E2E_TRY_BYTES - first, 0);
	if (ib_dma_map_sg(dev, sg, *nents, DMA_BIDIRECTIONAL) != *nents)
		return ERR_PTR(-ENOMEM);
	mr = ib_alloc_mr(atk->active.pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(mr))
		goto unmap;
	if (ib_map_mr_sg(mr, sg, *nents, NULL, PAGE_SIZE) != *nents) {
		st = -EINVAL;
		goto dereg;
	}
	mrcore_e2e_wait_init(w);
	mrcore_e2e_reg_wr(&reg, mr, w);
	st = mrcore_e2e_post(&atk->active, &reg.wr, w,
			     MRCORE_E2E_STEP_TIMEOUT_MS);
	if (!st)
		return mr;
	if (st > 0)
		st = -EIO;
dereg:
	ib_dereg_mr(mr);
	mr = ERR_PTR(st);
unmap:
	ib_dma_unmap_sg(dev, sg, *nents, DMA_BIDIRECTIONAL);
	return mr;
}

/**
 * mrcore_e2e_try_ref() - the attacker reaches a key's bytes another way
 * @atk: the attacker's connection, as for mrcore_e2e_try_key_on().
 * @op: the op the attacker will try the key with.
 * @ref: the bytes the key named.
 * @w: as for mrcore_e2e_try_key_on().
 *
 * The positive control of a key-death check, for any key, live or dead:
 * the same attacker, op and length reach the same bytes through a
 * reference key (a temporary MR with remote rights over them, destroyed
 * afterwards).  A WRITE must land the attacker's bytes, a READ must bring
 * back bytes the harness put there; the bytes are then restored, so the
 * caller's checks of the memory see nothing of the control.  The access
 * goes through the same post as the key's, so a later refusal on @atk can
 * only come from the key: an attacker that never reaches the device fails
 * here.  One more access on @atk, which a served access leaves usable.
 *
 * Context: Process context; sleeps.
 * Return: 0 if the access was served and moved the bytes, else a negative
 * errno (-EIO when it was refused or moved other bytes).
 */
int mrcore_e2e_try_ref(struct mrcore_e2e_pair *atk, enum ib_wr_opcode op,
		       const struct mrcore_e2e_ref *ref,
		       struct mrcore_e2e_wait *w)
{
	u8 saved[MRCORE_E2E_TRY_BYTES], got[MRCORE_E2E_TRY_BYTES];
	unsigned long end;
	struct scatterlist sg[2];
	unsigned int nents;
	struct ib_mr *mr;
	bool moved, ok;
	size_t k;
	int st;

	mr = mrcore_e2e_ref_mr(atk, ref, sg, &nents, w);
	if (IS_ERR(mr)) {
		pr_err("mrcore_harness: control: no reference key over the bytes at %zu: %ld\n",
		       ref->at, PTR_ERR(mr));
		return PTR_ERR(mr);
	}
	for (k = 0; k < MRCORE_E2E_TRY_BYTES; k++)
		saved[k] = *mrcore_e2e_buf_byte(ref->buf, ref->at + k);
	/* Bytes the access must change (WRITE) or bring back (READ). */
	mrcore_e2e_buf_fill_range(ref->buf, ref->at, MRCORE_E2E_TRY_BYTES,
				  op == IB_WR_RDMA_WRITE ?
				  MRCORE_E2E_POISONED : MRCORE_E2E_REF_SEED);
	st = mrcore_e2e_access(atk, op, mr->rkey, mr->iova, w, got, &moved);
	ok = st == IB_WC_SUCCESS;
	if (ok && op == IB_WR_RDMA_READ) {
		for (k = 0; k < MRCORE_E2E_TRY_BYTES; k++)
			ok &= got[k] == mrcore_e2e_pattern(MRCORE_E2E_REF_SEED,
							   k);
	} else if (ok) {
		/* An iWARP WRITE completes when sent: the bytes follow. */
		end = jiffies + msecs_to_jiffies(MRCORE_E2E_CM_TIMEOUT_MS);
		while (!(ok = mrcore_e2e_ref_holds(ref, MRCORE_E2E_TRY_SEED)) &&
		       time_before(jiffies, end))
			usleep_range(100, 200);
	}
	for (k = 0; k < MRCORE_E2E_TRY_BYTES; k++)
		*mrcore_e2e_buf_byte(ref->buf, ref->at + k) = saved[k];
	ib_dereg_mr(mr);
	ib_dma_unmap_sg(atk->active.device, sg, nents, DMA_BIDIRECTIONAL);
	if (ok)
		return 0;
	pr_err("mrcore_harness: control: the attacker's %s through a reference key over the same bytes was %s (%d): it never reached the memory\n",
	       mrcore_e2e_op(op), st < 0 ? "not made" :
	       st ? ib_wc_status_msg(st) : "served with other bytes", st);
	return st < 0 ? st : -EIO;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_try_ref, MRCORE_HARNESS);

/*
 * The key's try itself: @op through @key at @iova from @atk's passive end,
 * and what its outcome says (mrcore_e2e_refusal()).  @lands: where a
 * WRITE's bytes go, or %NULL; only a range that does not hold them yet
 * tells a served iWARP WRITE early.
 */
static int mrcore_e2e_try(struct mrcore_e2e_pair *atk, enum ib_wr_opcode op,
			  u32 key, u64 iova, const struct mrcore_e2e_ref *lands,
			  struct mrcore_e2e_wait *w)
{
	u8 got[MRCORE_E2E_TRY_BYTES];
	bool moved;
	int ret;

	if (lands && (op != IB_WR_RDMA_WRITE ||
		      mrcore_e2e_ref_holds(lands, MRCORE_E2E_TRY_SEED)))
		lands = NULL;
	ret = mrcore_e2e_access(atk, op, key, iova, w, got, &moved);
	ret = mrcore_e2e_refusal(&atk->passive, op, ret, lands);
	if (ret >= 0 && moved)
		ret = 0;
	return ret;
}

/**
 * mrcore_e2e_try_key_on() - the attacker's access over a given connection
 * @atk: a connected pair whose active end is on the PD the key belongs to
 *	(mrcore_e2e_pair_create_on_pd()); its passive end makes the access.
 * @op: %IB_WR_RDMA_WRITE or %IB_WR_RDMA_READ, of %MRCORE_E2E_TRY_BYTES.
 * @key: the key.
 * @iova: the address it named.
 * @ref: the bytes @key named: mrcore_e2e_try_ref() on @atk first, and
 *	the key is tried only if that control passed.  %NULL if the caller
 *	ran the control on @atk before, or if this try is itself a control.
 * @w: the access's completion; it must outlive @atk's QPs (a completion
 *	may come until they are drained).
 *
 * A WRITE carries bytes of its own, a READ lands in poisoned memory.  A
 * refused access leaves @atk's QPs in the error state: one try per pair.
 * For a test that cannot connect at the moment of the attack (a device
 * being removed takes no new connection), which connects @atk before.
 *
 * Context: Process context; sleeps.
 * Return: as mrcore_e2e_try_key().
 */
int mrcore_e2e_try_key_on(struct mrcore_e2e_pair *atk, enum ib_wr_opcode op,
			  u32 key, u64 iova, const struct mrcore_e2e_ref *ref,
			  struct mrcore_e2e_wait *w)
{
	if (ref) {
		int ret = mrcore_e2e_try_ref(atk, op, ref, w);

		if (ret)
			return ret;
	}
	return mrcore_e2e_try(atk, op, key, iova, ref, w);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_try_key_on, MRCORE_HARNESS);

/*
 * A try from a new connection to @pd: the control through a reference key
 * over @ref first if @control, then the key's try, its WRITE's bytes
 * looked for in @ref.
 */
static int mrcore_e2e_try_new(const struct mrcore_e2e_pair *base,
			      struct ib_pd *pd, enum ib_wr_opcode op, u32 key,
			      u64 iova, const struct mrcore_e2e_ref *ref,
			      bool control)
{
	struct mrcore_e2e_pair *atk = NULL;
	struct mrcore_e2e_wait *w;
	int ret;

	/* Freed after the pair's drain: a completion may come until then. */
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	ret = mrcore_e2e_pair_create_on_pd(base, pd, &atk);
	if (ret)
		goto free;
	if (control && ref)
		ret = mrcore_e2e_try_ref(atk, op, ref, w);
	if (!ret)
		ret = mrcore_e2e_try(atk, op, key, iova, ref, w);
	mrcore_e2e_pair_destroy(atk);
free:
	kfree(w);
	return ret;
}

/**
 * mrcore_e2e_try_key() - a peer of a PD uses a key it was not given
 * @base: a connected pair.
 * @pd: the PD the key belongs to (an end of @base's).
 * @op: %IB_WR_RDMA_WRITE or %IB_WR_RDMA_READ, of %MRCORE_E2E_TRY_BYTES.
 * @key: the key.
 * @iova: the address it named.
 * @ref: the bytes @key named, for the positive control that the same
 *	connection makes first (mrcore_e2e_try_ref()).  A try that is itself
 *	a control (an access through a live key) is
 *	mrcore_e2e_try_live_key().
 *
 * The attacker of the design's rule 6: a new connection whose active end
 * is on @pd (mrcore_e2e_pair_create_on_pd()); its passive end, with a PD
 * of its own, makes the access.  A WRITE carries bytes of its own, a READ
 * lands in poisoned memory.
 *
 * Context: Process context; sleeps.
 * Return: 1 if the peer refused the access (a remote error completion,
 * or the flush that its TERMINATE causes on iWARP; for an iWARP WRITE,
 * which is never acknowledged, that TERMINATE), 0 if it was served (a
 * READ that moved bytes counts as served whatever its status), or a
 * negative errno if it could not be made or its outcome proves neither:
 * the attacker's connection was down, the post failed, no completion came,
 * or a local error, or the control failed.  A test must fail on a
 * negative return.
 */
int mrcore_e2e_try_key(const struct mrcore_e2e_pair *base, struct ib_pd *pd,
		       enum ib_wr_opcode op, u32 key, u64 iova,
		       const struct mrcore_e2e_ref *ref)
{
	return mrcore_e2e_try_new(base, pd, op, key, iova, ref, true);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_try_key, MRCORE_HARNESS);

/**
 * mrcore_e2e_try_live_key() - the attacker's access through a live key
 * @base: a connected pair.
 * @pd: the PD the key belongs to (an end of @base's).
 * @op: %IB_WR_RDMA_WRITE or %IB_WR_RDMA_READ, of %MRCORE_E2E_TRY_BYTES.
 * @key: the key.
 * @iova: the address it named.
 * @lands: the bytes @key named, where a WRITE's bytes land.
 *
 * mrcore_e2e_try_key() of a try that is itself the positive control of a
 * later one: no reference key first.  A served iWARP WRITE, which nothing
 * acknowledges, is known as soon as its bytes are in @lands, instead of
 * after seconds without a TERMINATE; @lands must not hold them before.
 *
 * Context: Process context; sleeps.
 * Return: as mrcore_e2e_try_key().
 */
int mrcore_e2e_try_live_key(const struct mrcore_e2e_pair *base,
			    struct ib_pd *pd, enum ib_wr_opcode op, u32 key,
			    u64 iova, const struct mrcore_e2e_ref *lands)
{
	return mrcore_e2e_try_new(base, pd, op, key, iova, lands, false);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_try_live_key, MRCORE_HARNESS);

static int mrcore_e2e_connect(const struct mrcore_e2e_target *target,
			      const struct mrcore_e2e_caps *caps,
			      struct ib_pd *shared_pd,
			      struct mrcore_e2e_pair **pairp)
{
	struct sockaddr_in src, dst, lsn;
	struct sockaddr *srcp = (struct sockaddr *)&src;
	struct mrcore_e2e_pair *pair;
	struct rdma_conn_param param;
	unsigned long tmo = msecs_to_jiffies(mrcore_e2e_step_ms(target));
	unsigned int cm_ms = target->remote ? MRCORE_E2E_REMOTE_TIMEOUT_MS :
					      MRCORE_E2E_CM_TIMEOUT_MS;
	struct rdma_cm_id *id;
	unsigned long left;
	int ret;

	if (!mrcore_e2e_device_present(target, NULL, 0))
		return -ENODEV;

	pair = kzalloc(sizeof(*pair), GFP_KERNEL);
	if (!pair)
		return -ENOMEM;
	pair->target = target;
	pair->caps = *caps;
	pair->shared_pd = shared_pd;
	pair->port = target->remote ? target->port_base :
		     target->port_base +
		     (atomic_inc_return(&mrcore_e2e_port_seq) % 10000);
	init_completion(&pair->active_step);
	init_completion(&pair->passive_done);
	atomic_set(&pair->active.qp_events, 0);
	atomic_set(&pair->passive.qp_events, 0);
	atomic_set(&pair->disconnected, 0);

	ret = mrcore_e2e_addr(target->passive_addr, pair->port, &lsn);
	if (!ret)
		ret = mrcore_e2e_addr(target->passive_addr, pair->port, &dst);
	if (!ret)
		ret = mrcore_e2e_addr(target->active_addr, 0, &src);
	if (ret)
		goto err;

	/* A remote target's listener is the peer guest's. */
	if (!target->remote) {
		id = rdma_create_id(&init_net, mrcore_e2e_passive_handler, pair,
				    RDMA_PS_TCP, IB_QPT_RC);
		if (IS_ERR(id)) {
			ret = PTR_ERR(id);
			goto err;
		}
		pair->listen_id = id;
		ret = rdma_bind_addr(id, (struct sockaddr *)&lsn);
		if (ret) {
			pr_err("mrcore_harness: %s: rdma_bind_addr(%s:%u): %d\n",
			       target->name, target->passive_addr, pair->port,
			       ret);
			goto err;
		}
		ret = rdma_listen(id, 1);
		if (ret) {
			pr_err("mrcore_harness: %s: rdma_listen(%s:%u): %d\n",
			       target->name, target->passive_addr, pair->port,
			       ret);
			goto err;
		}
	}

	id = rdma_create_id(&init_net, mrcore_e2e_active_handler, pair,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err;
	}
	pair->active.cm_id = id;
	if (bind_src == 0 || (bind_src < 0 && !target->bind_src))
		srcp = NULL;
	ret = rdma_resolve_addr(id, srcp, (struct sockaddr *)&dst, cm_ms);
	if (!ret)
		ret = mrcore_e2e_active_wait(pair, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (!ret)
		ret = rdma_resolve_route(id, cm_ms);
	if (!ret)
		ret = mrcore_e2e_active_wait(pair,
					     RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (ret)
		goto err;
	ret = mrcore_e2e_side_setup(pair, &pair->active, id);
	if (ret)
		goto err;
	mrcore_e2e_conn_param(pair, id->device, &param);
	/* Read when the QP moves to RTS, after the peer's reply. */
	if (target->ack_timeout)
		ret = rdma_set_ack_timeout(id, target->ack_timeout);
	if (ret)
		goto err;
	ret = rdma_connect(id, &param);
	if (!ret)
		ret = mrcore_e2e_active_wait(pair, RDMA_CM_EVENT_ESTABLISHED);
	if (ret)
		goto err;
	if (target->remote) {
		*pairp = pair;
		return 0;
	}
	left = wait_for_completion_timeout(&pair->passive_done, tmo);
	ret = left ? pair->passive_status : -ETIMEDOUT;
	if (ret) {
		pr_err("mrcore_harness: %s: passive side not established: %d\n",
		       target->name, ret);
		goto err;
	}
	/* Connected: no more connection requests for this pair. */
	rdma_destroy_id(pair->listen_id);
	pair->listen_id = NULL;
	*pairp = pair;
	return 0;

err:
	mrcore_e2e_pair_destroy(pair);
	return ret;
}

/**
 * mrcore_e2e_pair_destroy() - disconnect a pair and free everything
 * @pair: a pair from mrcore_e2e_pair_create(), or a partly built one.
 *
 * The QPs are drained (every posted WR completes, flushed if need be), so
 * no completion can reach a caller's &struct mrcore_e2e_wait afterwards.
 * MRs on the pair's PDs must have been destroyed before.
 *
 * Context: Process context; may sleep.
 */
void mrcore_e2e_pair_destroy(struct mrcore_e2e_pair *pair)
{
	struct mrcore_e2e_side *sides[] = { &pair->active, &pair->passive };
	int i;

	if (pair->listen_id) {
		rdma_destroy_id(pair->listen_id);
		pair->listen_id = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(sides); i++)
		if (sides[i]->qp)
			rdma_disconnect(sides[i]->cm_id);
	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		mrcore_e2e_side_release(sides[i]);
		if (sides[i]->cm_id) {
			rdma_destroy_id(sides[i]->cm_id);
			sides[i]->cm_id = NULL;
		}
	}
	kfree(pair);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_pair_destroy, MRCORE_HARNESS);

static void mrcore_e2e_wait_done_cb(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrcore_e2e_wait *w =
		container_of(wc->wr_cqe, struct mrcore_e2e_wait, cqe);

	w->status = wc->status;
	w->opcode = wc->opcode;
	w->byte_len = wc->byte_len;
	w->vendor_err = wc->vendor_err;
	complete(&w->done);
}

/**
 * mrcore_e2e_wait_init() - prepare a completion entry
 * @w: the entry; use &@w->cqe as the wr_cqe of one signaled WR.
 *
 * Context: Any context.
 */
void mrcore_e2e_wait_init(struct mrcore_e2e_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->cqe.done = mrcore_e2e_wait_done_cb;
	init_completion(&w->done);
	w->status = IB_WC_GENERAL_ERR;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_wait_init, MRCORE_HARNESS);

/**
 * mrcore_e2e_wait_done() - wait for the completion of a posted WR
 * @side: the end the WR was posted on.
 * @w: its completion entry.
 * @timeout_ms: how long to wait.
 *
 * On timeout the end's QP is moved to the error state, which flushes the
 * WR, so @w is no longer referenced by the device when this returns.
 *
 * Context: Process context; sleeps.
 * Return: the work completion status (%IB_WC_SUCCESS is 0), or -ETIMEDOUT.
 */
int mrcore_e2e_wait_done(struct mrcore_e2e_side *side,
			 struct mrcore_e2e_wait *w, unsigned int timeout_ms)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (wait_for_completion_timeout(&w->done, msecs_to_jiffies(timeout_ms)))
		return w->status;
	pr_err("mrcore_harness: no completion after %u ms on %s (QP state %d); moving the QP to the error state\n",
	       timeout_ms, dev_name(&side->device->dev),
	       mrcore_e2e_qp_state(side));
	/* Both soft drivers flush the send queue on this transition. */
	ib_modify_qp(side->qp, &attr, IB_QP_STATE);
	if (!wait_for_completion_timeout(&w->done, 10 * HZ)) {
		/*
		 * The device still owns the WR and @w: returning would let
		 * it complete into freed memory.  Block; the QEMU timeout
		 * of scripts/kunit.sh ends the run.
		 */
		pr_err("mrcore_harness: %s did not flush the WR either; blocking\n",
		       dev_name(&side->device->dev));
		wait_for_completion(&w->done);
	}
	return -ETIMEDOUT;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_wait_done, MRCORE_HARNESS);

/**
 * mrcore_e2e_post() - post a chain of send WRs and wait for one completion
 * @side: the end to post on.
 * @first: the first WR of the chain.
 * @w: completion entry of the chain's signaled WR (normally its last one).
 * @timeout_ms: how long to wait.
 *
 * Context: Process context; sleeps.
 * Return: the work completion status of @w's WR (%IB_WC_SUCCESS is 0), the
 * negative errno of ib_post_send(), or -ETIMEDOUT.
 */
int mrcore_e2e_post(struct mrcore_e2e_side *side, struct ib_send_wr *first,
		    struct mrcore_e2e_wait *w, unsigned int timeout_ms)
{
	const struct ib_send_wr *bad_wr = NULL;
	int ret;

	ret = ib_post_send(side->qp, first, &bad_wr);
	if (ret) {
		pr_err("mrcore_harness: ib_post_send on %s: %d (bad WR opcode %d)\n",
		       dev_name(&side->device->dev), ret,
		       bad_wr ? bad_wr->opcode : -1);
		/*
		 * WRs before bad_wr were posted: flush them so none of them
		 * completes later into freed memory.
		 */
		if (bad_wr != first)
			ib_drain_qp(side->qp);
		return ret;
	}
	return mrcore_e2e_wait_done(side, w, timeout_ms);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_post, MRCORE_HARNESS);

/**
 * mrcore_e2e_io_finish() - wait for a posted I/O of the helper, destroy it
 * @side: the end whose QP the I/O's pool serves.
 * @ctx: the I/O.
 * @destroy: rdma_io_ctx_destroy() (or _destroy_bvec()).
 * @posted: what rdma_io_ctx_post() returned for it, with @w's cqe.
 * @w: its completion entry.
 * @timeout_ms: how long to wait for the completion.
 *
 * Destroys @ctx with the work completion, the way a ULP does; a post that
 * failed (a chain the driver took in part is flushed first), or a
 * completion that never came (the QP is then moved to the error state and
 * the I/O flushed, mrcore_e2e_wait_done()), destroys it without one.  For
 * a test with several I/Os in flight at once.
 *
 * Context: Process context; sleeps.
 * Return: the completion status (%IB_WC_SUCCESS is 0), @posted if it is
 * an error, or -ETIMEDOUT.
 */
int mrcore_e2e_io_finish(struct mrcore_e2e_side *side, struct rdma_io_ctx *ctx,
			 void (*destroy)(struct rdma_io_ctx *ctx,
					 const struct ib_wc *wc),
			 int posted, struct mrcore_e2e_wait *w,
			 unsigned int timeout_ms)
{
	struct ib_wc wc = {};
	int status;

	if (posted) {
		/* What the driver took must be gone before the destroy. */
		if (posted == -EINPROGRESS)
			ib_drain_qp(side->qp);
		destroy(ctx, NULL);
		return posted;
	}
	status = mrcore_e2e_wait_done(side, w, timeout_ms);
	wc.status = status < 0 ? IB_WC_GENERAL_ERR : status;
	destroy(ctx, status < 0 ? NULL : &wc);
	return status;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_io_finish, MRCORE_HARNESS);

/**
 * mrcore_e2e_io_run() - post one I/O of the helper and wait for it
 * @side: the end whose QP the I/O's pool serves.
 * @ctx: an I/O built by rdma_io_ctx_init() (or _init_bvec()).
 * @destroy: rdma_io_ctx_destroy() (or _destroy_bvec()).
 * @timeout_ms: how long to wait for the completion.
 *
 * Posts @ctx with rdma_io_ctx_post() and finishes it with
 * mrcore_e2e_io_finish().
 *
 * Context: Process context; sleeps.
 * Return: the completion status (%IB_WC_SUCCESS is 0), the negative errno
 * of rdma_io_ctx_post(), or -ETIMEDOUT.
 */
int mrcore_e2e_io_run(struct mrcore_e2e_side *side, struct rdma_io_ctx *ctx,
		      void (*destroy)(struct rdma_io_ctx *ctx,
				      const struct ib_wc *wc),
		      unsigned int timeout_ms)
{
	struct mrcore_e2e_wait w;

	mrcore_e2e_wait_init(&w);
	return mrcore_e2e_io_finish(side, ctx, destroy,
				    rdma_io_ctx_post(ctx, &w.cqe, NULL), &w,
				    timeout_ms);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_io_run, MRCORE_HARNESS);

/**
 * mrcore_e2e_rdma_wr() - build a signaled RDMA READ or WRITE
 * @wr: the WR to fill.
 * @opcode: %IB_WR_RDMA_READ or %IB_WR_RDMA_WRITE.
 * @sge: the local SGE (sink of a READ, source of a WRITE).
 * @remote_addr: the peer's address (the iova it advertised, plus offset).
 * @rkey: the peer's key.
 * @w: completion entry; must have been set up by mrcore_e2e_wait_init().
 *
 * Context: Any context.
 */
void mrcore_e2e_rdma_wr(struct ib_rdma_wr *wr, enum ib_wr_opcode opcode,
			struct ib_sge *sge, u64 remote_addr, u32 rkey,
			struct mrcore_e2e_wait *w)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = opcode;
	wr->wr.wr_cqe = &w->cqe;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	wr->wr.sg_list = sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = remote_addr;
	wr->rkey = rkey;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_rdma_wr, MRCORE_HARNESS);

/**
 * mrcore_e2e_reg_wr() - build a signaled REG_MR that exposes a raw MR
 * @reg: the WR to fill.
 * @mr: an ib_core MR, already mapped with ib_map_mr_sg().
 * @w: completion entry; must have been set up by mrcore_e2e_wait_init().
 *
 * The test's own memory, registered without the core, under @mr's rkey
 * with local write, remote read and remote write.
 *
 * Context: Any context.
 */
void mrcore_e2e_reg_wr(struct ib_reg_wr *reg, struct ib_mr *mr,
		       struct mrcore_e2e_wait *w)
{
	memset(reg, 0, sizeof(*reg));
	reg->wr.opcode = IB_WR_REG_MR;
	reg->wr.wr_cqe = &w->cqe;
	reg->wr.send_flags = IB_SEND_SIGNALED;
	reg->mr = mr;
	reg->key = mr->rkey;
	reg->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		      IB_ACCESS_REMOTE_WRITE;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_reg_wr, MRCORE_HARNESS);

/**
 * mrcore_e2e_qp_state() - current state of an end's QP
 * @side: the end.
 *
 * Context: Process context.
 * Return: the state ib_query_qp() reports, or %IB_QPS_ERR if it fails.
 */
enum ib_qp_state mrcore_e2e_qp_state(struct mrcore_e2e_side *side)
{
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;

	if (ib_query_qp(side->qp, &attr, IB_QP_STATE, &init_attr))
		return IB_QPS_ERR;
	return attr.qp_state;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_qp_state, MRCORE_HARNESS);

/**
 * mrcore_e2e_qp_failed() - wait for an end's QP to reach the error state
 * @side: the end.
 * @timeout_ms: how long to poll.
 *
 * The drivers move a QP to the error state asynchronously after a fatal
 * completion (rxe) or a received TERMINATE (siw).
 *
 * Context: Process context; sleeps.
 * Return: true once the QP is in %IB_QPS_ERR, false if it is still usable
 * after @timeout_ms.
 */
bool mrcore_e2e_qp_failed(struct mrcore_e2e_side *side,
			  unsigned int timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	for (;;) {
		if (mrcore_e2e_qp_state(side) == IB_QPS_ERR)
			return true;
		if (time_after(jiffies, end))
			return false;
		msleep(20);
	}
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_qp_failed, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_alloc() - allocate test memory
 * @buf: the buffer to set up.
 * @len: number of data bytes, at least 1.
 * @offset: where the data starts in the first page, below PAGE_SIZE.
 *
 * Every page comes from its own alloc_page(), so the scatterlist has one
 * entry per page.  The data is poisoned (%MRCORE_E2E_POISON), the bytes
 * outside it are set to %MRCORE_E2E_GUARD.
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL or -ENOMEM.
 */
int mrcore_e2e_buf_alloc(struct mrcore_e2e_buf *buf, size_t len,
			 unsigned int offset)
{
	size_t left = len;
	unsigned int i;

	memset(buf, 0, sizeof(*buf));
	if (!len || offset >= PAGE_SIZE)
		return -EINVAL;
	buf->len = len;
	buf->offset = offset;
	buf->npages = DIV_ROUND_UP(offset + len, PAGE_SIZE);
	buf->nents = buf->npages;
	buf->pages = kcalloc(buf->npages, sizeof(*buf->pages), GFP_KERNEL);
	buf->sg = kcalloc(buf->nents, sizeof(*buf->sg), GFP_KERNEL);
	if (!buf->pages || !buf->sg)
		goto err;
	sg_init_table(buf->sg, buf->nents);
	for (i = 0; i < buf->npages; i++) {
		unsigned int off = i ? 0 : offset;
		unsigned int n = min_t(size_t, left, PAGE_SIZE - off);

		buf->pages[i] = alloc_page(GFP_KERNEL);
		if (!buf->pages[i])
			goto err;
		memset(page_address(buf->pages[i]), MRCORE_E2E_GUARD,
		       PAGE_SIZE);
		sg_set_page(&buf->sg[i], buf->pages[i], n, off);
		left -= n;
	}
	mrcore_e2e_buf_poison(buf);
	return 0;

err:
	mrcore_e2e_buf_free(buf);
	return -ENOMEM;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_alloc, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_alloc_contig() - allocate physically contiguous test memory
 * @buf: the buffer to set up.
 * @len: number of data bytes, at least 1.
 * @offset: where the data starts in the first page, below PAGE_SIZE.
 *
 * As mrcore_e2e_buf_alloc(), but the pages are one allocation (aligned to
 * its size) and the scatterlist has one entry over all the data.
 *
 * Context: Process context; may sleep.
 * Return: 0, -EINVAL, or -ENOMEM (also when no block of that order is free).
 */
int mrcore_e2e_buf_alloc_contig(struct mrcore_e2e_buf *buf, size_t len,
				unsigned int offset)
{
	struct page *page;
	unsigned int i;

	memset(buf, 0, sizeof(*buf));
	if (!len || offset >= PAGE_SIZE)
		return -EINVAL;
	buf->len = len;
	buf->offset = offset;
	buf->npages = DIV_ROUND_UP(offset + len, PAGE_SIZE);
	buf->nents = 1;
	buf->order = get_order((size_t)buf->npages * PAGE_SIZE);
	buf->pages = kcalloc(buf->npages, sizeof(*buf->pages), GFP_KERNEL);
	buf->sg = kcalloc(1, sizeof(*buf->sg), GFP_KERNEL);
	page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, buf->order);
	if (!buf->pages || !buf->sg || !page) {
		if (page)
			__free_pages(page, buf->order);
		mrcore_e2e_buf_free(buf);
		return -ENOMEM;
	}
	buf->contig = true;
	for (i = 0; i < buf->npages; i++) {
		buf->pages[i] = nth_page(page, i);
		memset(page_address(buf->pages[i]), MRCORE_E2E_GUARD,
		       PAGE_SIZE);
	}
	sg_init_table(buf->sg, 1);
	sg_set_page(buf->sg, page, len, offset);
	mrcore_e2e_buf_poison(buf);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_alloc_contig, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_free() - free test memory
 * @buf: a buffer from mrcore_e2e_buf_alloc() or
 *	mrcore_e2e_buf_alloc_contig(), or a zeroed one.
 *
 * Context: Process context.
 */
void mrcore_e2e_buf_free(struct mrcore_e2e_buf *buf)
{
	unsigned int i;

	if (buf->pages && buf->contig)
		__free_pages(buf->pages[0], buf->order);
	else if (buf->pages)
		for (i = 0; i < buf->npages; i++)
			if (buf->pages[i])
				__free_page(buf->pages[i]);
	kfree(buf->pages);
	kfree(buf->sg);
	memset(buf, 0, sizeof(*buf));
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_free, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_byte() - address of a data byte
 * @buf: the buffer.
 * @i: index of the byte in the data, below @buf->len.
 *
 * Context: Any context.
 * Return: its kernel virtual address.
 */
u8 *mrcore_e2e_buf_byte(struct mrcore_e2e_buf *buf, size_t i)
{
	size_t pos = buf->offset + i;

	return (u8 *)page_address(buf->pages[pos / PAGE_SIZE]) +
	       pos % PAGE_SIZE;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_byte, MRCORE_HARNESS);

/*
 * Data byte @i and the bytes after it in the same page, at most @max: their
 * number in *@n.  Walks over the data go a page at a time.
 */
static u8 *mrcore_e2e_buf_run(struct mrcore_e2e_buf *buf, size_t i,
			      size_t max, size_t *n)
{
	*n = min_t(size_t, max,
		   PAGE_SIZE - offset_in_page(buf->offset + i));
	return mrcore_e2e_buf_byte(buf, i);
}

/* splitmix64's finalizer: a bijection of u64 that spreads every input bit. */
static u64 mrcore_e2e_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The key of pattern @seed; bytes 8w..8w+7 are mix(key ^ w). */
static u64 mrcore_e2e_key(u32 seed)
{
	return mrcore_e2e_mix(seed + 0x9e3779b97f4a7c15ULL);
}

/*
 * Byte @b of the pattern of @key, for walks in byte order: *@word holds the
 * group of byte @b - 1 and is moved on at each group's first byte.
 */
static u8 mrcore_e2e_pattern_next(u64 key, size_t b, u64 *word)
{
	if (!(b % 8))
		*word = mrcore_e2e_mix(key ^ (b / 8));
	return *word >> (8 * (b % 8));
}

/**
 * mrcore_e2e_pattern() - the test pattern
 * @seed: selects the pattern; give every buffer of a test its own.
 * @i: byte index, from the first byte of the range that holds the pattern.
 *
 * Each aligned group of 8 bytes is a 64-bit hash of the seed and the group's
 * index, so a byte's value depends on both and on its place in the group:
 * there is no period (not 256, not PAGE_SIZE), a page placed one page off,
 * two pages swapped, a shift by any number of bytes or the bytes of another
 * buffer (another seed) are seen.
 *
 * Context: Any context.
 * Return: byte @i of pattern @seed.
 */
u8 mrcore_e2e_pattern(u32 seed, size_t i)
{
	return mrcore_e2e_mix(mrcore_e2e_key(seed) ^ (i / 8)) >> (8 * (i % 8));
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_pattern, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_fill_range() - write the test pattern into part of the data
 * @buf: the buffer.
 * @start: first data byte of the range.
 * @len: bytes; byte @start + k gets mrcore_e2e_pattern(@seed, k).
 * @seed: selects the pattern; %MRCORE_E2E_POISONED poisons the range.
 *
 * Context: Any context.
 */
void mrcore_e2e_buf_fill_range(struct mrcore_e2e_buf *buf, size_t start,
			       size_t len, u32 seed)
{
	u64 key = mrcore_e2e_key(seed), word = 0;
	size_t k, n;

	if (start > buf->len || len > buf->len - start)
		return;
	/* A page's bytes at a time: the pattern is the same, the lookups fewer. */
	for (k = 0; k < len; k += n) {
		u8 *p = mrcore_e2e_buf_run(buf, start + k, len - k, &n);
		size_t j;

		if (seed == MRCORE_E2E_POISONED) {
			memset(p, MRCORE_E2E_POISON, n);
			continue;
		}
		for (j = 0; j < n; j++)
			p[j] = mrcore_e2e_pattern_next(key, k + j, &word);
	}
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_fill_range, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_fill() - write the test pattern into the data
 * @buf: the buffer.
 * @seed: selects the pattern.
 *
 * Context: Any context.
 */
void mrcore_e2e_buf_fill(struct mrcore_e2e_buf *buf, u32 seed)
{
	mrcore_e2e_buf_fill_range(buf, 0, buf->len, seed);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_fill, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_poison() - mark every data byte as not written by an I/O
 * @buf: the buffer.
 *
 * Sets the data to %MRCORE_E2E_POISON, a value no pattern range is checked
 * against; sinks are poisoned before each I/O, so one that writes nothing,
 * too little or too much is seen.
 *
 * Context: Any context.
 */
void mrcore_e2e_buf_poison(struct mrcore_e2e_buf *buf)
{
	mrcore_e2e_buf_memset(buf, MRCORE_E2E_POISON);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_poison, MRCORE_HARNESS);

static void mrcore_e2e_diff_note(struct mrcore_e2e_diff *diff, s64 pos,
				 u8 got, u8 want, const char *what)
{
	if (got == want)
		return;
	if (!diff->bad++) {
		diff->pos = pos;
		diff->got = got;
		diff->want = want;
		diff->what = what;
	}
}

/**
 * mrcore_e2e_buf_verify() - check a range of the data and what surrounds it
 * @buf: the buffer.
 * @start: first data byte of the range.
 * @len: bytes in the range (0 for none).
 * @seed: the range holds mrcore_e2e_pattern(@seed, k) at byte @start + k;
 *	or %MRCORE_E2E_POISONED: it holds %MRCORE_E2E_POISON.
 * @diff: receives the number of wrong bytes and the first one.
 *
 * The one data check of the end-to-end suites.  Checked, in address order:
 * the guard bytes of the first page before the data and of the last page
 * after it (%MRCORE_E2E_GUARD), up to %MRCORE_E2E_VERIFY_SPAN data bytes on
 * each side of the range (%MRCORE_E2E_POISON: the test poisons the data
 * and fills only the range), and every byte of the range.  A sink is
 * checked after its I/O, a source to show that it did not change.
 *
 * Context: Any context.
 * Return: true if every checked byte is right.
 */
bool mrcore_e2e_buf_verify(struct mrcore_e2e_buf *buf, size_t start,
			   size_t len, u32 seed, struct mrcore_e2e_diff *diff)
{
	size_t end = buf->offset + buf->len;
	const u8 *first = page_address(buf->pages[0]);
	const u8 *last = page_address(buf->pages[buf->npages - 1]);
	size_t k, n, lo, hi;
	u64 key, word = 0;

	memset(diff, 0, sizeof(*diff));
	if (start > buf->len || len > buf->len - start) {
		diff->bad = 1;
		diff->pos = start;
		diff->what = "range outside the data";
		return false;
	}
	for (k = 0; k < buf->offset; k++)
		mrcore_e2e_diff_note(diff, (s64)k - buf->offset, first[k],
				     MRCORE_E2E_GUARD, "guard");
	lo = start - min_t(size_t, start, MRCORE_E2E_VERIFY_SPAN);
	for (k = lo; k < start; k++)
		mrcore_e2e_diff_note(diff, k, *mrcore_e2e_buf_byte(buf, k),
				     MRCORE_E2E_POISON, "poison");
	key = mrcore_e2e_key(seed);
	for (k = 0; k < len; k += n) {
		const u8 *p = mrcore_e2e_buf_run(buf, start + k, len - k, &n);
		size_t j;

		for (j = 0; j < n; j++) {
			u8 want = MRCORE_E2E_POISON;

			if (seed != MRCORE_E2E_POISONED)
				want = mrcore_e2e_pattern_next(key, k + j,
							       &word);
			mrcore_e2e_diff_note(diff, start + k + j, p[j], want,
					     "data");
		}
	}
	hi = min_t(size_t, buf->len, start + len + MRCORE_E2E_VERIFY_SPAN);
	for (k = start + len; k < hi; k++)
		mrcore_e2e_diff_note(diff, k, *mrcore_e2e_buf_byte(buf, k),
				     MRCORE_E2E_POISON, "poison");
	for (k = offset_in_page(end); end % PAGE_SIZE && k < PAGE_SIZE; k++)
		mrcore_e2e_diff_note(diff, buf->len + k - offset_in_page(end),
				     last[k], MRCORE_E2E_GUARD, "guard");
	return !diff->bad;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_verify, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_memset() - set every data byte
 * @buf: the buffer.
 * @c: the value.
 *
 * Context: Any context.
 */
void mrcore_e2e_buf_memset(struct mrcore_e2e_buf *buf, u8 c)
{
	size_t done, n;

	for (done = 0; done < buf->len; done += n) {
		u8 *p = mrcore_e2e_buf_run(buf, done, buf->len - done, &n);

		memset(p, c, n);
	}
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_memset, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_check() - compare the data with the test pattern
 * @buf: the buffer.
 * @seed: the pattern expected.
 *
 * Data only; the suites use mrcore_e2e_buf_verify(), which also checks the
 * guard bytes.
 *
 * Context: Any context.
 * Return: -1 if every byte matches, else the index of the first mismatch.
 */
long mrcore_e2e_buf_check(struct mrcore_e2e_buf *buf, u32 seed)
{
	size_t i;

	for (i = 0; i < buf->len; i++)
		if (*mrcore_e2e_buf_byte(buf, i) != mrcore_e2e_pattern(seed, i))
			return i;
	return -1;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_check, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_check_byte() - check that every data byte has one value
 * @buf: the buffer.
 * @c: the value expected.
 *
 * Context: Any context.
 * Return: -1 if every byte is @c, else the index of the first other one.
 */
long mrcore_e2e_buf_check_byte(struct mrcore_e2e_buf *buf, u8 c)
{
	size_t i;

	for (i = 0; i < buf->len; i++)
		if (*mrcore_e2e_buf_byte(buf, i) != c)
			return i;
	return -1;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_check_byte, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_guard_intact() - are the bytes around the data untouched?
 * @buf: the buffer.
 *
 * Checks the bytes of the first page before the data and of the last page
 * after it, which a WRITE outside the mapped range would change.
 *
 * Context: Any context.
 * Return: true if they all still hold %MRCORE_E2E_GUARD.
 */
bool mrcore_e2e_buf_guard_intact(struct mrcore_e2e_buf *buf)
{
	size_t end = buf->offset + buf->len;
	const u8 *first = page_address(buf->pages[0]);
	const u8 *last = page_address(buf->pages[buf->npages - 1]);
	size_t i;

	for (i = 0; i < buf->offset; i++)
		if (first[i] != MRCORE_E2E_GUARD)
			return false;
	for (i = offset_in_page(end); end % PAGE_SIZE && i < PAGE_SIZE; i++)
		if (last[i] != MRCORE_E2E_GUARD)
			return false;
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_guard_intact, MRCORE_HARNESS);

/**
 * mrcore_e2e_buf_dma_addr() - DMA address of the first data byte
 * @buf: a buffer whose scatterlist is DMA-mapped.
 *
 * On rxe and siw (virtual DMA) this is the kernel virtual address; FRWR
 * registrations of @buf->sg start their IOVA there.
 *
 * Context: Any context.
 * Return: sg_dma_address() of the first entry.
 */
u64 mrcore_e2e_buf_dma_addr(struct mrcore_e2e_buf *buf)
{
	return sg_dma_address(&buf->sg[0]);
}
EXPORT_SYMBOL_NS_GPL(mrcore_e2e_buf_dma_addr, MRCORE_HARNESS);

static int __init mrcore_harness_init(void)
{
	return ib_register_client(&mrcore_e2e_client);
}

static void __exit mrcore_harness_exit(void)
{
	ib_unregister_client(&mrcore_e2e_client);
}

module_init(mrcore_harness_init);
module_exit(mrcore_harness_exit);

MODULE_DESCRIPTION("rdma-mrcore e2e harness: connected QP pairs on rxe and siw");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
