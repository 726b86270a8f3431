// SPDX-License-Identifier: GPL-2.0-only
/*
 * nfs_key_attack.ko: an attacker on another connection of the NFS client's
 * PD, against the rkeys the client advertises in its chunk lists while fio
 * runs on the mount (scripts/nfsrdma-guest.sh, security step; one kernel,
 * client and server on one rpcrdma module, stock or converted).
 *
 * The connections, the accesses, the samples and the watched RPC are the
 * attackers' shared part (ulp-ports/lib/key_attack_core.c, also that of
 * nvme_key_attack.ko); this file is what NFS adds:
 *
 *  - keys: a kretprobe on pcl_alloc_write() (svc_rdma_pcl.c, the same
 *    text in both variants; global, called from svc_rdma_recvfrom.c, so
 *    never inlined into its callers).  The server calls it for every RPC
 *    once svc_rdma_xdr_decode_req() parsed its Read list, with the Write
 *    list's parsed chunk list, before it moves any chunk's data; on its
 *    return both lists are in the receive context (&struct
 *    svc_rdma_recv_ctxt, whose layout the converted server keeps) and
 *    rc_recv_buf starts with the RPC's XID.  A Read list segment (the data
 *    of a client WRITE) grants REMOTE_READ, a Write list segment (the
 *    buffer of a client READ's reply data) REMOTE_WRITE.  The symbol is
 *    looked up in the loaded rpcrdma module by name ("module:symbol").
 *  - completions: a kprobe on xprt_complete_rqst() (net/sunrpc/xprt.c,
 *    built into the kernel), which the client's rpcrdma calls once the
 *    reply is in and every key of the RPC is dead: the stock client after
 *    its LOCAL_INVs completed or the server's Send With Invalidate took
 *    its one MR (rpcrdma_complete_rqst() WARNs if an MR is left), the
 *    converted one from its rkey set's done callback, with status 0 only
 *    once the core saw every key invalidated.  Matched by XID, on the
 *    client's RDMA transport only (its backchannel and TCP share the
 *    function).
 *  - the PD: client and server PDs have one owner's name here, so the
 *    client's is found from the first key learnt: the device's MR with
 *    that rkey (ka_pd_of_key()), whose PD is the client's whichever
 *    module allocated the MR.
 *
 * Per sample, alternately a client WRITE and a client READ, as
 * key_attack_core.c says: live (a remote READ of the WRITE's data, a remote
 * WRITE into the READ's buffer, over which the server's data lands
 * later), rights while in flight (after the live READ, a remote WRITE of
 * the bytes it read back, which both variants must refuse, the stock
 * client too registering Read chunks REMOTE_READ only in frwr_map();
 * before the live WRITE, a remote READ of the READ's buffer, refused on
 * rxe, served on siw, which answers READs through any live key:
 * scripts/nfsrdma-guest.sh asserts both), and dead right after
 * xprt_complete_rqst().
 *
 * What keeps an RPC in flight: the export is an ext4 on a null_blk device
 * that completes each I/O 200 ms late, exported sync, so the server
 * replies to a client WRITE (FILE_SYNC: one O_DIRECT write is one RPC)
 * once the device has its data; for a client READ, the server's page
 * cache of the file fio uses is dropped every %KA_POLL_MS while a READ is
 * awaited (and the device has no readahead), so the READ waits for the
 * device too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/svc_rdma.h>
#include <linux/sunrpc/xprt.h>

#include "lib/key_attack_core.h"

static char *rpcrdma = "rpcrdma_mrcore";
module_param(rpcrdma, charp, 0444);
MODULE_PARM_DESC(rpcrdma, "the rpcrdma module loaded (client and server)");

static char *server_file = "/srv/nfs/sec";
module_param(server_file, charp, 0444);
MODULE_PARM_DESC(server_file, "the server's path of the file fio uses");

/* The watch's kinds of RPC. */
enum { NFKA_WRITE = 1, NFKA_READ };

/*
 * Client WRITEs watched for the client's PD before giving up: a WRITE the
 * server did not have to wait for (an unstable one of fio laying its file
 * out) may have given its MR back, under a new key, before the search.
 */
#define NFKA_PD_TRIES	8

static void nfka_describe(const struct ka_key *k, char *buf, size_t len);

static struct ka_attacker nfka = {
	.end = "client",
	.describe = nfka_describe,
};

/* The server's file, open while the run lasts (nfka_uncache()). */
static struct file *nfka_file;

static void nfka_describe(const struct ka_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "xid=%#x", be32_to_cpu((__force __be32)k->id));
}

/* The first segment of @pcl that covers an access, as an RPC's key. */
static void nfka_arrive(const struct svc_rdma_recv_ctxt *rctxt,
			const struct svc_rdma_pcl *pcl, u8 rpc_kind)
{
	struct svc_rdma_segment *seg;
	struct svc_rdma_chunk *chunk;
	struct ka_key k;

	pcl_for_each_chunk(chunk, pcl) {
		pcl_for_each_segment(seg, chunk) {
			if (seg->rs_length < KA_BYTES)
				continue;
			k.key = seg->rs_handle;
			k.addr = seg->rs_offset;
			k.len = seg->rs_length;
			/* The transport header starts with the XID. */
			k.id = (__force u32)*(__be32 *)rctxt->rc_recv_buf;
			ka_watch_arrive(&nfka.watch, rpc_kind, &k);
			return;
		}
	}
}

/*
 * pcl_alloc_write(rctxt, pcl, p) is also called for the Reply chunk: only
 * the Write list's call goes on to the return handler.
 */
static int nfka_parse_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct svc_rdma_recv_ctxt **rctxt = (void *)ri->data;

	*rctxt = (void *)regs_get_kernel_argument(regs, 0);
	return (void *)regs_get_kernel_argument(regs, 1) !=
	       &(*rctxt)->rc_write_pcl;
}

static int nfka_parse_ret(struct kretprobe_instance *ri,
			  struct pt_regs *regs)
{
	const struct svc_rdma_recv_ctxt *rctxt =
		*(struct svc_rdma_recv_ctxt **)ri->data;

	/* A bool: only the low byte of the return register is defined. */
	if (!(u8)regs_return_value(regs))
		return 0;
	nfka_arrive(rctxt, &rctxt->rc_read_pcl, NFKA_WRITE);
	nfka_arrive(rctxt, &rctxt->rc_write_pcl, NFKA_READ);
	return 0;
}

static int nfka_client_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct rpc_task *task = (void *)regs_get_kernel_argument(regs, 0);
	struct rpc_rqst *rqst = task->tk_rqstp;
	const struct xprt_class *cl = rqst->rq_xprt->xprt_class;

	/* The server's backchannel transport has no class. */
	if (cl && cl->ident == XPRT_TRANSPORT_RDMA)
		ka_watch_done(&nfka.watch, (__force u32)rqst->rq_xid);
	return 0;
}

/* "module:symbol": the one rpcrdma loaded (init sets the name). */
static char nfka_parse_sym[MODULE_NAME_LEN + sizeof(":pcl_alloc_write")];

static struct kretprobe nfka_parse_krp = {
	.kp.symbol_name = nfka_parse_sym,
	.entry_handler = nfka_parse_entry,
	.handler = nfka_parse_ret,
	.data_size = sizeof(struct svc_rdma_recv_ctxt *),
};

static struct kprobe nfka_client_kp = {
	.symbol_name = "xprt_complete_rqst",
	.pre_handler = nfka_client_pre,
};

/*
 * While a client READ is awaited: none of the file in the server's page
 * cache, so that the READ to come waits for the device (a page being read
 * or referenced stays; a miss only makes the RPC wait longer).
 */
static int nfka_uncache(void *data)
{
	struct file *f;

	if (!nfka_file) {
		f = filp_open(server_file, O_RDONLY, 0);
		if (IS_ERR(f)) {
			pr_err("cannot open %s: %ld\n", server_file,
			       PTR_ERR(f));
			return PTR_ERR(f);
		}
		nfka_file = f;
	}
	invalidate_mapping_pages(nfka_file->f_mapping, 0, -1);
	return 0;
}

/*
 * A client WRITE's key is for a remote READ of its data; a remote WRITE of
 * those bytes back tells whether it grants more.  A client READ's key is
 * for a remote WRITE into its buffer; a remote READ of it, whether it
 * grants more.
 */
static const struct ka_plan nfka_plans[2] = {
	{ .want = NFKA_WRITE, .what = "WRITE", .op = IB_WR_RDMA_READ,
	  .rights = true, .rights_op = IB_WR_RDMA_WRITE,
	  .rights_name = "rights_write" },
	{ .want = NFKA_READ, .what = "READ", .op = IB_WR_RDMA_WRITE,
	  .rights = true, .rights_op = IB_WR_RDMA_READ,
	  .rights_name = "rights_read", .armed = nfka_uncache },
};

/*
 * The client's PD, from the key of a client WRITE in flight: the key's MR
 * keeps that rkey until it is registered again, so a few RPCs are tried.
 */
static int nfka_find_pd(void)
{
	struct ib_pd *own = nfka.base->active.pd, *pd = NULL;
	struct ka_key k = {};
	int i, ret = 0;

	for (i = 0; i < NFKA_PD_TRIES && !pd && !ret; i++) {
		ret = ka_learn(&nfka, &nfka_plans[0], &k);
		if (!ret)
			pd = ka_pd_of_key(own, k.key);
		ka_watch_set(&nfka.watch, KA_IDLE, 0);
		if (IS_ERR(pd))
			ret = PTR_ERR(pd);
	}
	if (ret)
		return ret;
	if (!pd) {
		pr_err("no MR on %s has the key of the client's WRITEs\n",
		       dev_name(&own->device->dev));
		return -ENOENT;
	}
	nfka.pd = pd;
	/* Whoever allocated the MR, its PD is the client's (rpcrdma's). */
	pr_info("the client's PD: id %u of %s on %s, from key %#x\n",
		pd->res.id, pd->res.kern_name ?: "?",
		dev_name(&pd->device->dev), k.key);
	if (!pd->res.kern_name || strcmp(pd->res.kern_name, rpcrdma)) {
		pr_err("that PD is not %s's\n", rpcrdma);
		return -ENOENT;
	}
	return 0;
}

static int nfka_run(const struct mrcore_e2e_target *target)
{
	int ret;

	ret = ka_attacker_open(&nfka, target);
	if (ret)
		return ret;
	snprintf(nfka_parse_sym, sizeof(nfka_parse_sym), "%s:pcl_alloc_write",
		 rpcrdma);
	ret = register_kretprobe(&nfka_parse_krp);
	if (ret) {
		pr_err("no kretprobe on %s: %d\n", nfka_parse_sym, ret);
		goto close;
	}
	ret = register_kprobe(&nfka_client_kp);
	if (ret)
		goto parse_krp;
	ret = nfka_find_pd();
	if (!ret)
		ret = ka_run(&nfka, nfka_plans, 0x4e464b00);
	unregister_kprobe(&nfka_client_kp);
parse_krp:
	unregister_kretprobe(&nfka_parse_krp);
close:
	if (nfka_file)
		filp_close(nfka_file, NULL);
	nfka_file = NULL;
	ka_attacker_close(&nfka);
	return ret;
}

static int __init nfka_init(void)
{
	const struct ka_tally *t = &nfka.tally;
	const struct mrcore_e2e_target *target = ka_target();
	int ret;

	if (!target)
		return -EINVAL;
	ret = nfka_run(target);
	pr_info("summary device=%s client_module=%s samples=%u live_served=%u live_in_flight=%u dead_refused=%u rights_write_tries=%u rights_write_served=%u rights_read_tries=%u rights_read_served=%u retaken=%u error=%d\n",
		ka_kind, rpcrdma, t->taken, t->live_served, t->live_in_flight,
		t->dead_refused, t->write_tries, t->write_served,
		t->read_tries, t->read_served, t->retaken, ret);
	/* The verdict is the summary's; the module stays for rmmod. */
	return 0;
}

static void __exit nfka_exit(void)
{
}

module_init(nfka_init);
module_exit(nfka_exit);
MODULE_DESCRIPTION("An attacker on the NFS/RDMA client's PD, for make nfsrdma");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MRCORE_HARNESS);
