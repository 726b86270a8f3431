// SPDX-License-Identifier: GPL-2.0-only
/*
 * The initiator's side of make kunit-2host: connections to the peer guest
 * and its requests (client_2host.h, protocol in peer_2host.h).
 */

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "client_2host.h"

/* Guest 1 (this one) and guest 2, scripts/guest-init.sh's wire. */
const struct mrcore_e2e_target mrcore_2host_rxe = {
	.name = "rxe",
	.driver_id = RDMA_DRIVER_RXE,
	.active_addr = "203.0.113.1",
	.passive_addr = "203.0.113.2",
	.port_base = MRCORE_PEER_PORT_RXE,
	.bind_src = true,
	.remote = true,
	.ack_timeout = MRCORE_PEER_ACK_TIMEOUT,
	.retry_count = MRCORE_PEER_RETRY_COUNT,
};
EXPORT_SYMBOL_NS_GPL(mrcore_2host_rxe, MRCORE_2HOST);

/* Bound to its source: rdma_cm then resolves on vsiw0, siw0's netdev. */
const struct mrcore_e2e_target mrcore_2host_siw = {
	.name = "siw",
	.driver_id = RDMA_DRIVER_SIW,
	.active_addr = "198.18.0.1",
	.passive_addr = "198.18.0.2",
	.port_base = MRCORE_PEER_PORT_SIW,
	.bind_src = true,
	.remote = true,
	.retry_count = MRCORE_PEER_RETRY_COUNT,
};
EXPORT_SYMBOL_NS_GPL(mrcore_2host_siw, MRCORE_2HOST);

void peer_link_close(struct peer_link *l)
{
	struct ib_device *dev;

	if (!l)
		return;
	/* The pair's drain flushes a RECV still posted for an answer. */
	dev = l->side ? l->side->device : NULL;
	if (l->pair)
		mrcore_e2e_pair_destroy(l->pair);
	if (dev && l->req_dma)
		ib_dma_unmap_single(dev, l->req_dma, sizeof(*l->req),
				    DMA_TO_DEVICE);
	if (dev && l->resp_dma)
		ib_dma_unmap_single(dev, l->resp_dma, sizeof(*l->resp),
				    DMA_FROM_DEVICE);
	kfree(l->req);
	kfree(l->resp);
	kfree(l);
}
EXPORT_SYMBOL_NS_GPL(peer_link_close, MRCORE_2HOST);

static int peer_post_recv(struct peer_link *l, struct mrcore_e2e_wait *w)
{
	struct ib_sge sge = {
		.addr = l->resp_dma,
		.length = sizeof(*l->resp),
		.lkey = l->side->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	mrcore_e2e_wait_init(w);
	return ib_post_recv(l->side->qp, &wr, NULL);
}

/* SEND @r (tagged) and wait for the SEND's completion. */
static int peer_send(struct peer_link *l, struct mrcore_peer_req *r)
{
	struct ib_device *dev = l->side->device;
	struct ib_sge sge = {
		.addr = l->req_dma,
		.length = sizeof(*l->req),
		.lkey = l->side->pd->local_dma_lkey,
	};
	struct mrcore_e2e_wait w;
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IB_SEND_SIGNALED,
		.wr_cqe = &w.cqe,
	};

	mrcore_e2e_wait_init(&w);
	r->tag = ++l->tag;
	ib_dma_sync_single_for_cpu(dev, l->req_dma, sizeof(*l->req),
				   DMA_TO_DEVICE);
	mrcore_peer_pack(l->req, r);
	ib_dma_sync_single_for_device(dev, l->req_dma, sizeof(*l->req),
				      DMA_TO_DEVICE);
	return mrcore_e2e_post(l->side, &wr, &w, PEER_CALL_TIMEOUT_MS);
}

/* The answer in the response buffer, if it answers @op of tag @tag. */
static int peer_answer(struct peer_link *l, u16 op, u32 tag,
		       struct mrcore_peer_req *a)
{
	struct ib_device *dev = l->side->device;
	int ret;

	ib_dma_sync_single_for_cpu(dev, l->resp_dma, sizeof(*l->resp),
				   DMA_FROM_DEVICE);
	ret = mrcore_peer_unpack(a, l->resp);
	ib_dma_sync_single_for_device(dev, l->resp_dma, sizeof(*l->resp),
				      DMA_FROM_DEVICE);
	if (ret || a->op != op || a->tag != tag)
		return -EPROTO;
	return -(int)a->status;
}

#define PEER_HELLO_TRIES	30
#define PEER_HELLO_EVERY_MS	2000

/*
 * HELLO, sent again every 2 s until the first answer comes.  siw (6.12,
 * siw_accept()) sends its MPA reply before it hooks the socket's
 * data_ready to the QP: a first message of the active side that lands in
 * between waits in the socket, unread, until more data comes, and the
 * connection then hung for a minute about once in thirty on this machine.
 * The next HELLO is that data.  Every HELLO is answered, each into a RECV
 * of its own, posted before it.
 */
static int peer_hello(struct peer_link *l, struct mrcore_peer_req *a)
{
	struct mrcore_e2e_wait *rw;
	unsigned int sent = 0, i;
	int ret = 0, got;

	rw = kcalloc(PEER_HELLO_TRIES, sizeof(*rw), GFP_KERNEL);
	if (!rw)
		return -ENOMEM;
	while (sent < PEER_HELLO_TRIES) {
		struct mrcore_peer_req r = { .op = MRCORE_PEER_HELLO };

		ret = peer_post_recv(l, &rw[sent]);
		if (ret)
			break;
		sent++;
		ret = peer_send(l, &r);
		if (ret)
			break;
		if (wait_for_completion_timeout(&rw[0].done,
						msecs_to_jiffies(PEER_HELLO_EVERY_MS))) {
			/* Given back: it is waited for again below. */
			complete(&rw[0].done);
			break;
		}
		pr_info("mrcore_2host: %s: no answer to HELLO %u after %u ms; saying it again\n",
			l->pair->target->name, sent, PEER_HELLO_EVERY_MS);
	}
	/* Every posted RECV completes (answered, or flushed on an error). */
	for (i = 0; i < sent; i++) {
		got = mrcore_e2e_wait_done(l->side, &rw[i],
					   PEER_CALL_TIMEOUT_MS);
		if (!ret && got)
			ret = got;
	}
	if (!ret)
		ret = peer_answer(l, MRCORE_PEER_HELLO, l->tag, a);
	kfree(rw);
	return ret;
}

/**
 * peer_link_open() - connect to the peer and say HELLO
 * @t: the device kind (mrcore_2host_rxe or mrcore_2host_siw).
 * @share_pd: a link whose PD this one's QP uses (the attacker on another
 *	connection of the same PD), or %NULL for a PD of its own.
 * @lp: receives the link.
 *
 * Context: Process context; sleeps.
 * Return: 0, or the error of the connection or of HELLO.
 */
int peer_link_open(const struct mrcore_e2e_target *t,
		   const struct peer_link *share_pd, struct peer_link **lp)
{
	struct mrcore_peer_req r = { .op = MRCORE_PEER_HELLO };
	struct peer_link *l;
	struct ib_device *dev;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	if (share_pd)
		ret = mrcore_e2e_pair_create_shared(share_pd->pair, &l->pair);
	else
		ret = mrcore_e2e_pair_create(t, &l->pair);
	if (ret) {
		l->pair = NULL;
		goto err;
	}
	l->side = &l->pair->active;
	dev = l->side->device;
	ret = -ENOMEM;
	l->req = kzalloc(sizeof(*l->req), GFP_KERNEL);
	l->resp = kzalloc(sizeof(*l->resp), GFP_KERNEL);
	if (!l->req || !l->resp)
		goto err;
	l->req_dma = ib_dma_map_single(dev, l->req, sizeof(*l->req),
				       DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, l->req_dma)) {
		l->req_dma = 0;
		goto err;
	}
	l->resp_dma = ib_dma_map_single(dev, l->resp, sizeof(*l->resp),
					DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, l->resp_dma)) {
		l->resp_dma = 0;
		goto err;
	}
	ret = peer_hello(l, &r);
	if (ret)
		goto err;
	l->conn = r.id;
	*lp = l;
	return 0;

err:
	peer_link_close(l);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(peer_link_open, MRCORE_2HOST);

/**
 * peer_call() - one request and its answer
 * @l: the link.
 * @r: the request; receives the answer.
 *
 * Context: Process context; sleeps.
 * Return: 0; the answer's status as a negative errno; a completion status
 * of the SEND or RECV (positive); -ETIMEDOUT; -EPROTO for an answer that
 * does not match the request.
 */
int peer_call(struct peer_link *l, struct mrcore_peer_req *r)
{
	struct mrcore_e2e_wait rw;
	int ret, sent, got;

	ret = peer_post_recv(l, &rw);
	if (ret)
		return ret;
	sent = peer_send(l, r);
	/* Waited for even when the SEND failed: the QP then flushes it. */
	got = mrcore_e2e_wait_done(l->side, &rw, PEER_CALL_TIMEOUT_MS);
	if (sent)
		return sent;
	if (got)
		return got;
	return peer_answer(l, r->op, l->tag, r);
}
EXPORT_SYMBOL_NS_GPL(peer_call, MRCORE_2HOST);

static void peer_link_release(void *l)
{
	peer_link_close(l);
}

static struct peer_link *peer_link_kunit(struct kunit *test,
					 const struct mrcore_e2e_target *t,
					 struct peer_link *base)
{
	struct peer_link *l = NULL;
	int ret;

	ret = peer_link_open(t, base, &l);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0,
			    "connecting to the peer over %s (%s -> %s:%u)",
			    t->name, t->active_addr, t->passive_addr,
			    t->port_base);
	ret = kunit_add_action_or_reset(test, peer_link_release, l);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, l->side->device->ops.driver_id, t->driver_id);
	return l;
}

/* A connection to the peer over @t, closed with the test. */
struct peer_link *peer_link(struct kunit *test,
			    const struct mrcore_e2e_target *t)
{
	return peer_link_kunit(test, t, NULL);
}
EXPORT_SYMBOL_NS_GPL(peer_link, MRCORE_2HOST);

/* Another connection on @base's PD (close it first: the test does). */
struct peer_link *peer_link_shared(struct kunit *test, struct peer_link *base)
{
	return peer_link_kunit(test, base->pair->target, base);
}

static void peer_call_ok(struct kunit *test, struct peer_link *l,
			 struct mrcore_peer_req *r, const char *what)
{
	int ret = peer_call(l, r);

	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "peer request %s (op %u): %d",
			    what, r->op, ret);
}

void peer_expose(struct kunit *test, struct peer_link *l, u64 len,
		 unsigned int offset, unsigned int ops, unsigned int flags,
		 u32 seed, struct peer_x *x)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_EXPOSE,
		.flags = flags,
		.len = len,
		.start = offset,
		.ops = ops,
		.seed = seed,
	};

	peer_call_ok(test, l, &r, "EXPOSE");
	x->id = r.id;
	x->key = r.key;
	x->addr = r.addr;
	x->len = r.len;
}
EXPORT_SYMBOL_NS_GPL(peer_expose, MRCORE_2HOST);

void peer_fill(struct kunit *test, struct peer_link *l, u32 id, u64 start,
	       u64 len, u32 seed, unsigned int flags)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_FILL,
		.flags = flags,
		.id = id,
		.start = start,
		.len = len,
		.seed = seed,
	};

	peer_call_ok(test, l, &r, "FILL");
}
EXPORT_SYMBOL_NS_GPL(peer_fill, MRCORE_2HOST);

/*
 * The peer checks a range of its buffer (and the poison and guard bytes
 * around it); with @wait it gives an iWARP WRITE time to land.
 */
bool peer_verify(struct kunit *test, struct peer_link *l, u32 id, u64 start,
		 u64 len, u32 seed, bool wait, const char *what)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_VERIFY,
		.flags = wait ? MRCORE_PEER_F_WAIT : 0,
		.id = id,
		.start = start,
		.len = len,
		.seed = seed,
	};

	peer_call_ok(test, l, &r, "VERIFY");
	KUNIT_EXPECT_EQ_MSG(test, r.value, 0ULL,
			    "%s (on the peer): bytes [%llu, %llu) (%s): %llu wrong; the first at %lld: 0x%02x, want 0x%02x",
			    what, start, start + len,
			    seed == MRCORE_E2E_POISONED ? "poison" : "pattern",
			    r.value, (s64)r.addr, (r.key >> 8) & 0xff,
			    r.key & 0xff);
	return !r.value;
}

void peer_invalidate(struct kunit *test, struct peer_link *l, u32 id,
		     unsigned int flags)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_INVALIDATE,
		.flags = flags,
		.id = id,
	};

	peer_call_ok(test, l, &r, "INVALIDATE");
}

void peer_remap(struct kunit *test, struct peer_link *l, u32 id,
		unsigned int ops, struct peer_x *x)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_REMAP,
		.id = id,
		.ops = ops,
	};

	peer_call_ok(test, l, &r, "REMAP");
	x->key = r.key;
	x->addr = r.addr;
	x->len = r.len;
}

/*
 * The peer READs into (or WRITEs from) its own memory @len bytes at
 * @addr/@key of this kernel, on its end of connection @conn.  Returns the
 * completion status (negative errno if none); *@qp_failed: the peer's QP
 * is in the error state after; *@bad: wrong bytes of a READ's sink.
 */
int peer_access(struct kunit *test, struct peer_link *l, u32 conn, bool read,
		u64 addr, u32 key, u64 len, u32 seed, bool *qp_failed,
		u64 *bad)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_ACCESS,
		.flags = read ? MRCORE_PEER_F_READ : 0,
		.value = conn,
		.addr = addr,
		.key = key,
		.len = len,
		.seed = seed,
	};

	peer_call_ok(test, l, &r, "ACCESS");
	if (qp_failed)
		*qp_failed = r.key;
	if (bad)
		*bad = r.addr;
	return (int)(s64)r.value;
}

/* Ask the peer for a fault on its side of the wire (or to power off). */
int peer_net(struct peer_link *l, enum mrcore_peer_net what)
{
	struct mrcore_peer_req r = {
		.op = MRCORE_PEER_NET,
		.value = what,
	};

	return peer_call(l, &r);
}
EXPORT_SYMBOL_NS_GPL(peer_net, MRCORE_2HOST);

/**
 * mrcore_2host_sh() - run a shell command of this guest
 * @cmd: the command, for busybox sh -c.
 *
 * How the *_2host suites change this guest's wire (tc, ip) from inside.
 *
 * Context: Process context; sleeps until the command ends.
 * Return: 0, the command's wait status, or a negative errno.
 */
int mrcore_2host_sh(const char *cmd)
{
	int ret = mrcore_2host_run(cmd, UMH_WAIT_PROC);

	if (ret)
		pr_err("mrcore_2host: '%s': %d\n", cmd, ret);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mrcore_2host_sh, MRCORE_2HOST);

static int mrcore_2host_read(const char *path, char *buf, size_t size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, size - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return 0;
}

/* A hardware counter of an rxe device (its retries, among others). */
int mrcore_2host_rxe_counter(const char *dev, const char *name, u64 *v)
{
	char path[128], buf[32];
	int ret;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	ret = mrcore_2host_read(path, buf, sizeof(buf));
	return ret ? ret : kstrtoull(strim(buf), 10, v);
}

/* The kernel's TCP retransmissions (siw's), from /proc/net/snmp. */
int mrcore_2host_tcp_retrans(u64 *v)
{
	char *buf, *hdr, *val, *h, *x;
	int ret = -ENOENT;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	/* procfs files cannot be kernel_read(): a copy in tmpfs can. */
	ret = mrcore_2host_sh("cat /proc/net/snmp >/tmp/mrcore-snmp");
	if (!ret)
		ret = mrcore_2host_read("/tmp/mrcore-snmp", buf, PAGE_SIZE);
	if (ret)
		goto out;
	ret = -ENOENT;
	/* "Tcp: names...\nTcp: values...\n" */
	hdr = strstr(buf, "\nTcp: ");
	val = hdr ? strstr(hdr + 1, "\nTcp: ") : NULL;
	if (!val)
		goto out;
	*strchrnul(val + 1, '\n') = '\0';
	*val++ = '\0';
	hdr++;
	while ((h = strsep(&hdr, " ")) && (x = strsep(&val, " "))) {
		if (!strcmp(h, "RetransSegs")) {
			ret = kstrtoull(x, 10, v);
			break;
		}
	}
out:
	kfree(buf);
	return ret;
}

MODULE_DESCRIPTION("rdma-mrcore make kunit-2host: the *_2host suites, against the peer guest");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_MRCORE_VERSION);
MODULE_IMPORT_NS(RDMA_MRCORE);
MODULE_IMPORT_NS(MRCORE_HARNESS);
