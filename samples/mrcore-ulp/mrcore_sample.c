// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample out-of-tree ULP of rdma-mrcore.  It is built against an
 * installed rdma-mrcore (its headers and Module.symvers), not against this
 * source tree: see Documentation/ulp-guide.rst, "Building against
 * rdma-mrcore".  make check loads it in the test guest.
 *
 * When loaded, for each IPv4 address of addrs= it connects an RC QP to a
 * second one, listening on the same address, with rdma_cm (a loopback
 * connection on the RDMA device that has the address) and moves data
 * between them as a client and a server would:
 *
 *   1. the server exposes its buffer with rdma_map_sg_rkey() (the map API)
 *      and hands the client the key and address (a SEND in a real ULP);
 *   2. the client WRITEs its buffer into the first half of the server's,
 *      then READs the second half back, with the READ/WRITE helper
 *      (rdma_io_ctx_init(), rdma_io_ctx_post(), rdma_io_ctx_destroy());
 *   3. the server kills its key (rdma_invalidate_mr()) and unmaps;
 *   4. both arrivals are compared, byte for byte, with a pattern made
 *      from each byte's offset.
 *
 * Each address then prints "mrcore_sample: <device> (<transport>): WRITE
 * and READ of <n> bytes verified"; any failure fails the load.
 *
 *   insmod mrcore_sample.ko addrs=192.0.2.1,198.51.100.1
 */
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/mrcore.h>

#define SAMPLE_PORT	18600
#define SAMPLE_PAGES	8			/* of one I/O, an SG entry each */
#define SAMPLE_BYTES	(SAMPLE_PAGES * PAGE_SIZE)
#define SAMPLE_SGE	4			/* the QPs' max_send_sge */
#define SAMPLE_TIMEOUT	(10 * HZ)

static char *addrs[4];
static int naddrs;
module_param_array(addrs, charp, &naddrs, 0444);
MODULE_PARM_DESC(addrs, "IPv4 addresses of the RDMA devices to move data on");

/* Pages that are not contiguous, one SG entry each. */
struct sample_buf {
	unsigned int npages;
	struct page *pages[2 * SAMPLE_PAGES];
	struct scatterlist sgl[2 * SAMPLE_PAGES];
};

/* One end of the connection: the client's buffer is one I/O, the server's two. */
struct sample_end {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct sample_buf buf;
};

/* A signaled WR to wait for. */
struct sample_wait {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

struct sample_conn {
	struct rdma_cm_id *listen;
	struct sample_end client, server;
	struct completion client_step, server_up;
	enum rdma_cm_event_type client_event;
	int client_status, server_status;
	struct rdma_io_ctx io;
};

/* Byte @off of pattern @seed: a hash of the offset, so a byte that lands elsewhere shows. */
static u8 sample_pattern(size_t off, u32 seed)
{
	return (u32)((off + seed * SAMPLE_BYTES) * 2654435761u) >> 24;
}

static u8 *sample_byte(struct sample_buf *b, size_t off)
{
	return (u8 *)page_address(b->pages[off / PAGE_SIZE]) + off % PAGE_SIZE;
}

static void sample_fill(struct sample_buf *b, size_t start, u32 seed)
{
	size_t off;

	for (off = 0; off < SAMPLE_BYTES; off++)
		*sample_byte(b, start + off) = seed ? sample_pattern(off, seed) : 0;
}

static int sample_check(struct sample_end *end, size_t start, u32 seed,
			const char *what)
{
	size_t off;

	for (off = 0; off < SAMPLE_BYTES; off++) {
		u8 got = *sample_byte(&end->buf, start + off);

		if (got != sample_pattern(off, seed)) {
			pr_err("mrcore_sample: %s: %s: byte %zu is %#x, not %#x\n",
			       dev_name(&end->id->device->dev), what, off, got,
			       sample_pattern(off, seed));
			return -EIO;
		}
	}
	return 0;
}

static int sample_buf_alloc(struct sample_buf *b, unsigned int npages)
{
	unsigned int i;

	b->npages = npages;
	sg_init_table(b->sgl, npages);
	for (i = 0; i < npages; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL);
		if (!b->pages[i])
			return -ENOMEM;
		sg_set_page(&b->sgl[i], b->pages[i], PAGE_SIZE, 0);
	}
	return 0;
}

static void sample_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sample_wait *w = container_of(wc->wr_cqe, struct sample_wait, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static void sample_wait_init(struct sample_wait *w)
{
	w->cqe.done = sample_wr_done;
	init_completion(&w->done);
}

/* Wait for @w's WR; one that does not complete in time is flushed. */
static int sample_wait(struct sample_end *end, struct sample_wait *w)
{
	if (!wait_for_completion_timeout(&w->done, SAMPLE_TIMEOUT)) {
		ib_drain_sq(end->qp);	/* the QP goes to the error state */
		wait_for_completion(&w->done);
	}
	return w->wc.status == IB_WC_SUCCESS ? 0 : -EIO;
}

/* The server: let the client READ and WRITE its buffer through @rkey, @iova. */
static struct rdma_mr *sample_expose(struct sample_end *srv, u32 *rkey,
				     u64 *iova)
{
	struct ib_send_wr *first = NULL;
	struct sample_wait w;
	struct rdma_mr *mr;
	int ret;

	mr = rdma_create_mr(srv->pd, srv->buf.npages, RDMA_MR_ROLE_RKEY);
	if (IS_ERR(mr))
		return mr;
	sample_wait_init(&w);
	rdma_mr_set_cqe(mr, &w.cqe);	/* the REG_MR completes to @w */
	ret = rdma_map_sg_rkey(rkey, iova, mr, srv->buf.sgl, srv->buf.npages,
			       RDMA_MR_REMOTE_READ | RDMA_MR_REMOTE_WRITE,
			       &first);
	if (ret) {
		rdma_destroy_mr(mr);
		return ERR_PTR(ret);
	}
	if (first) {			/* NULL: registered already */
		ret = ib_post_send(srv->qp, first, NULL);
		if (!ret)
			ret = sample_wait(srv, &w);
	}
	rdma_mr_set_cqe(mr, NULL);
	if (ret) {
		/* the key's state is unknown: a new device MR kills it */
		if (!rdma_mr_reset(mr))
			rdma_destroy_mr(mr);
		return ERR_PTR(ret);
	}
	/* A real server now SENDs *rkey and *iova to the client. */
	return mr;
}

/* The server: kill the key, then the buffer is the server's again. */
static int sample_revoke(struct sample_end *srv, struct rdma_mr *mr)
{
	struct ib_send_wr *first = NULL;
	struct sample_wait w;
	int ret;

	sample_wait_init(&w);
	rdma_mr_set_cqe(mr, &w.cqe);	/* the LOCAL_INV completes to @w */
	ret = rdma_invalidate_mr(mr, &first);
	if (!ret && first) {		/* NULL: killed synchronously */
		ret = ib_post_send(srv->qp, first, NULL);
		if (!ret)
			ret = sample_wait(srv, &w);
	}
	rdma_mr_set_cqe(mr, NULL);
	if (ret) {
		ret = rdma_mr_reset(mr);
		if (ret)
			return ret;	/* the MR is freed */
	} else {
		rdma_unmap_mr(mr);
	}
	rdma_destroy_mr(mr);
	return 0;
}

/* The client: one READ or WRITE of its whole buffer, posted and completed. */
static int sample_io(struct sample_conn *conn, enum dma_data_direction dir,
		     struct rdma_io_pool *pool, u64 remote_addr, u32 rkey)
{
	struct sample_end *cl = &conn->client;
	struct sample_wait w;
	int ret;

	ret = rdma_io_ctx_init(&conn->io, pool, cl->buf.sgl, cl->buf.npages, 0,
			       remote_addr, rkey, dir);
	if (ret < 0)
		return ret;
	sample_wait_init(&w);
	ret = rdma_io_ctx_post(&conn->io, &w.cqe, NULL);
	if (ret == -EINPROGRESS)	/* part of the chain posted */
		ib_drain_sq(cl->qp);
	if (ret) {
		rdma_io_ctx_destroy(&conn->io, NULL);
		return ret;
	}
	ret = sample_wait(cl, &w);
	/* The completion decides: keys of a failed I/O die here first. */
	rdma_io_ctx_destroy(&conn->io, &w.wc);
	return ret;
}

/* WRITE into the first half of the server's buffer, READ the second half. */
static int sample_move(struct sample_conn *conn)
{
	struct sample_end *cl = &conn->client, *srv = &conn->server;
	struct rdma_io_pool *pool;
	struct rdma_mr *mr;
	u64 iova;
	u32 rkey;
	int ret;

	pool = rdma_io_pool_create(cl->qp, cl->id->port_num, 1, SAMPLE_PAGES);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	sample_fill(&srv->buf, 0, 0);
	sample_fill(&srv->buf, SAMPLE_BYTES, 2);
	mr = sample_expose(srv, &rkey, &iova);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto out;
	}
	sample_fill(&cl->buf, 0, 1);
	ret = sample_io(conn, DMA_TO_DEVICE, pool, iova, rkey);
	if (!ret) {
		sample_fill(&cl->buf, 0, 0);
		ret = sample_io(conn, DMA_FROM_DEVICE, pool,
				iova + SAMPLE_BYTES, rkey);
	}
	if (!ret)
		ret = sample_check(cl, 0, 2, "READ");
	if (sample_revoke(srv, mr) && !ret)
		ret = -EIO;
	if (!ret)
		ret = sample_check(srv, 0, 1, "WRITE");
out:
	rdma_io_pool_destroy(pool);
	return ret;
}

/* A PD, a CQ and an RC QP on @id's device, sized for one I/O at a time. */
static int sample_end_setup(struct sample_end *end, struct rdma_cm_id *id)
{
	struct ib_device *dev = id->device;
	u32 wrs = rdma_io_max_send_wr(dev, id->port_num, SAMPLE_PAGES,
				      SAMPLE_SGE) + 2;	/* + REG_MR, LOCAL_INV */
	struct ib_qp_init_attr attr = {
		.cap.max_send_wr = wrs,
		.cap.max_recv_wr = 1,
		.cap.max_send_sge = SAMPLE_SGE,
		.cap.max_recv_sge = 1,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	int ret;

	end->id = id;
	end->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(end->pd)) {
		ret = PTR_ERR(end->pd);
		end->pd = NULL;
		return ret;
	}
	/* + the drain WRs of ib_drain_qp() */
	end->cq = ib_alloc_cq_any(dev, NULL, wrs + 2, IB_POLL_WORKQUEUE);
	if (IS_ERR(end->cq)) {
		ret = PTR_ERR(end->cq);
		end->cq = NULL;
		return ret;
	}
	attr.send_cq = end->cq;
	attr.recv_cq = end->cq;
	ret = rdma_create_qp(id, end->pd, &attr);
	if (!ret)
		end->qp = id->qp;
	return ret;
}

static void sample_end_release(struct sample_end *end)
{
	unsigned int i;

	if (end->qp) {
		ib_drain_qp(end->qp);
		rdma_destroy_qp(end->id);
	}
	if (end->cq)
		ib_free_cq(end->cq);
	if (end->pd)
		ib_dealloc_pd(end->pd);
	if (end->id)
		rdma_destroy_id(end->id);
	for (i = 0; i < end->buf.npages; i++)
		if (end->buf.pages[i])
			__free_page(end->buf.pages[i]);
}

static void sample_conn_param(struct ib_device *dev,
			      struct rdma_conn_param *param)
{
	*param = (struct rdma_conn_param) {
		.responder_resources = min_t(int, dev->attrs.max_qp_rd_atom, 4),
		.initiator_depth = min_t(int, dev->attrs.max_qp_init_rd_atom, 4),
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
}

/* rdma_cm events of the listener and of the server's id. */
static int sample_server_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *event)
{
	struct sample_conn *conn = id->context;
	struct rdma_conn_param param;
	int ret;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (conn->server.id)
			return -EBUSY;	/* one client: rdma_cm rejects */
		ret = sample_end_setup(&conn->server, id);
		if (!ret) {
			sample_conn_param(id->device, &param);
			ret = rdma_accept(id, &param);
		}
		if (ret) {
			rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
			conn->server_status = ret;
			complete(&conn->server_up);
		}
		return 0;	/* the id is ours: sample_end_release() */
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&conn->server_up);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		if (id != conn->listen && !completion_done(&conn->server_up)) {
			conn->server_status = event->status ?: -ECONNABORTED;
			complete(&conn->server_up);
		}
		return 0;
	}
}

static int sample_client_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *event)
{
	struct sample_conn *conn = id->context;

	if (event->event == RDMA_CM_EVENT_DISCONNECTED ||
	    event->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
		return 0;
	conn->client_event = event->event;
	conn->client_status = event->status;
	complete(&conn->client_step);
	return 0;
}

/* Wait for the client's next rdma_cm event, which must be @want. */
static int sample_client_wait(struct sample_conn *conn,
			      enum rdma_cm_event_type want)
{
	if (!wait_for_completion_timeout(&conn->client_step, SAMPLE_TIMEOUT))
		return -ETIMEDOUT;
	reinit_completion(&conn->client_step);
	if (conn->client_event == want)
		return 0;
	pr_err("mrcore_sample: rdma_cm event %s (status %d), wanted %s\n",
	       rdma_event_msg(conn->client_event), conn->client_status,
	       rdma_event_msg(want));
	return conn->client_status ?: -ECONNREFUSED;
}

/* Listen on @addr and connect to it: both ends on @addr's RDMA device. */
static int sample_connect(struct sample_conn *conn, const char *addr)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(SAMPLE_PORT),
	};
	struct rdma_conn_param param;
	struct rdma_cm_id *id;
	int ret;

	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	id = rdma_create_id(&init_net, sample_server_handler, conn, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	conn->listen = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 1);
	if (ret)
		return ret;

	id = rdma_create_id(&init_net, sample_client_handler, conn, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	conn->client.id = id;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 5000);
	if (!ret)
		ret = sample_client_wait(conn, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (!ret)
		ret = rdma_resolve_route(id, 5000);
	if (!ret)
		ret = sample_client_wait(conn, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!ret)
		ret = sample_end_setup(&conn->client, id);
	if (ret)
		return ret;
	sample_conn_param(id->device, &param);
	ret = rdma_connect(id, &param);
	if (!ret)
		ret = sample_client_wait(conn, RDMA_CM_EVENT_ESTABLISHED);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&conn->server_up, SAMPLE_TIMEOUT))
		return -ETIMEDOUT;
	return conn->server_status;
}

static void sample_disconnect(struct sample_conn *conn)
{
	if (conn->listen)
		rdma_destroy_id(conn->listen);	/* no new server id after this */
	if (conn->client.qp)
		rdma_disconnect(conn->client.id);
	sample_end_release(&conn->client);
	sample_end_release(&conn->server);
}

static int sample_run(const char *addr)
{
	struct sample_conn *conn;
	struct ib_device *dev;
	int ret;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	init_completion(&conn->client_step);
	init_completion(&conn->server_up);
	ret = sample_buf_alloc(&conn->client.buf, SAMPLE_PAGES);
	if (!ret)
		ret = sample_buf_alloc(&conn->server.buf, 2 * SAMPLE_PAGES);
	if (!ret)
		ret = sample_connect(conn, addr);
	if (!ret)
		ret = sample_move(conn);
	if (!ret) {
		dev = conn->client.id->device;
		pr_info("mrcore_sample: %s (%s): WRITE and READ of %lu bytes verified\n",
			dev_name(&dev->dev),
			rdma_protocol_iwarp(dev, conn->client.id->port_num) ?
			"iWARP" : "RoCE", SAMPLE_BYTES);
	} else {
		pr_err("mrcore_sample: %s: error %d\n", addr, ret);
	}
	sample_disconnect(conn);
	kfree(conn);
	return ret;
}

static int __init mrcore_sample_init(void)
{
	int i, ret;

	for (i = 0; i < naddrs; i++) {
		ret = sample_run(addrs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void __exit mrcore_sample_exit(void)
{
}

module_init(mrcore_sample_init);
module_exit(mrcore_sample_exit);

MODULE_DESCRIPTION("rdma-mrcore sample out-of-tree ULP: one WRITE and one READ per device");
MODULE_LICENSE("GPL");
/*
 * The exports are in namespace RDMA_MRCORE.  Kernels up to 6.12 take it as
 * a bare token, as here; from 6.13 on write MODULE_IMPORT_NS("RDMA_MRCORE").
 */
MODULE_IMPORT_NS(RDMA_MRCORE);
