// SPDX-License-Identifier: GPL-2.0-only
/*
 * nvme_key_attack.ko: an attacker on another connection of the NVMe host's
 * PD, against the rkeys the host advertises while fio runs on the
 * namespace (scripts/nvmeof-guest.sh, security step; one kernel, so that
 * both NVMe cores are in sight).
 *
 * The host's PD is found by its owner's module name in the device's
 * resource tracker; the attacker's connection is a harness pair whose
 * active end is a QP on that PD (mrcore_e2e_pair_create_on_pd()), its
 * passive end, on a PD of its own, makes the accesses.  Keys are learnt as
 * the commands carrying them arrive at the target (a kprobe on
 * nvmet_req_init(), which every nvmet transport calls, stock or converted),
 * and the host's end of each command is seen in nvme_complete_rq(), which
 * every host transport calls once the command's data is done with and
 * before the block layer gives the memory back.
 *
 * Per sample, alternately a host WRITE and a host READ:
 *
 *  1. live: while the command is in flight (the target's backing device,
 *     null_blk, completes each I/O 200 ms late), the access the command's
 *     key is for: a remote READ of a host WRITE's data, a remote WRITE into
 *     a host READ's buffer (the target's data lands over it later).  It
 *     must be served: the positive control that the attacker can reach the
 *     host's memory through this connection at all.
 *  2. rights (host WRITEs): a remote WRITE of the bytes step 1 read back
 *     to where they came from.  Served if the key grants REMOTE_WRITE (the
 *     stock host registers every MR with REMOTE_READ | REMOTE_WRITE);
 *     refused if it grants only what the command needs.
 *  3. dead: as soon as the host completed the command, the access of step
 *     1 again with the same key.  It must be refused; a READ must bring no
 *     byte back.
 *
 * An access that cannot be posted or gets no answer is an error, never a
 * refusal.  A sample whose command completed before step 1 ended is not
 * counted as live and is taken again.  One line per sample and a summary
 * line go to the kernel log; scripts/nvmeof-guest.sh judges them.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/spinlock.h>
#include <linux/unaligned.h>
#include <linux/wait.h>
#include <rdma/restrack.h>

#include "mrcore_harness.h"
#include "key_attack.h"

static char *kind = "siw";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "device kind of the host's connection: siw or rxe");

static char *host_module = "nvme_rdma_mrcore";
module_param(host_module, charp, 0444);
MODULE_PARM_DESC(host_module, "the module that owns the host's PD");

static unsigned int samples = 4;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "samples per direction (host WRITE, host READ)");

static unsigned int nsid = 1;
module_param(nsid, uint, 0444);
MODULE_PARM_DESC(nsid, "the namespace fio runs on");

/* Bytes of each access: within every command's data (fio's bs >= 4k). */
#define NKA_BYTES	512
/* Waiting for fio to issue a command of the wanted kind, and for its end. */
#define NKA_WAIT_MS	60000
/* An iWARP WRITE is never acknowledged: a refusal is the TERMINATE. */
#define NKA_TERMINATE_MS 3000
/* Resource ids tried when looking for the host's PD. */
#define NKA_MAX_RES_ID	65536

enum nka_phase { NKA_IDLE, NKA_ARMED, NKA_LIVE, NKA_DONE };

/* The one command being watched; the kprobes move it along. */
static struct {
	spinlock_t lock;	/* protects phase, want, cmd */
	enum nka_phase phase;
	u8 want;
	struct nka_cmd cmd;
	wait_queue_head_t wq;
} nka_watch;

enum nka_verdict { NKA_SERVED, NKA_REFUSED };

static struct {
	unsigned int taken, live_served, live_in_flight, dead_refused;
	unsigned int rights_tries, rights_served, retaken;
} nka_sum;

bool nka_decode(const struct nvme_command *cmd, u16 qid, struct nka_cmd *c)
{
	const struct nvme_keyed_sgl_desc *k = &cmd->common.dptr.ksgl;

	if (!qid || (cmd->common.opcode != nvme_cmd_write &&
		     cmd->common.opcode != nvme_cmd_read))
		return false;
	if (k->type >> 4 != NVME_KEY_SGL_FMT_DATA_DESC)
		return false;
	c->qid = qid;
	c->cid = cmd->common.command_id;
	c->opcode = cmd->common.opcode;
	c->nsid = le32_to_cpu(cmd->common.nsid);
	c->key = get_unaligned_le32(k->key);
	c->addr = le64_to_cpu(k->addr);
	c->len = get_unaligned_le24(k->length);
	return c->len >= NKA_BYTES;
}

static int nka_target_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct nka_cmd c;
	unsigned long flags;

	if (!nka_target_cmd((void *)regs_get_kernel_argument(regs, 0),
			    (void *)regs_get_kernel_argument(regs, 1), &c) ||
	    c.nsid != nsid)
		return 0;
	spin_lock_irqsave(&nka_watch.lock, flags);
	if (nka_watch.phase == NKA_ARMED && c.opcode == nka_watch.want) {
		nka_watch.cmd = c;
		nka_watch.phase = NKA_LIVE;
		wake_up(&nka_watch.wq);
	}
	spin_unlock_irqrestore(&nka_watch.lock, flags);
	return 0;
}

static int nka_host_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct nka_cmd c;
	unsigned long flags;

	if (!nka_host_cmd((struct request *)regs_get_kernel_argument(regs, 0),
			  &c))
		return 0;
	spin_lock_irqsave(&nka_watch.lock, flags);
	if (nka_watch.phase == NKA_LIVE && c.qid == nka_watch.cmd.qid &&
	    c.cid == nka_watch.cmd.cid && c.key == nka_watch.cmd.key) {
		nka_watch.phase = NKA_DONE;
		wake_up(&nka_watch.wq);
	}
	spin_unlock_irqrestore(&nka_watch.lock, flags);
	return 0;
}

static struct kprobe nka_target_kp = {
	.symbol_name = "nvmet_req_init",
	.pre_handler = nka_target_pre,
};

static struct kprobe nka_host_kp = {
	.symbol_name = "nvme_complete_rq",
	.pre_handler = nka_host_pre,
};

static enum nka_phase nka_phase(void)
{
	return READ_ONCE(nka_watch.phase);
}

static void nka_set_phase(enum nka_phase phase, u8 want)
{
	unsigned long flags;

	spin_lock_irqsave(&nka_watch.lock, flags);
	nka_watch.phase = phase;
	nka_watch.want = want;
	spin_unlock_irqrestore(&nka_watch.lock, flags);
}

/*
 * The host's PD: the one its module allocated on @dev (the name
 * ib_alloc_pd() records is the caller's KBUILD_MODNAME).  Returned with a
 * resource reference, which keeps it from going while attacked.
 */
static struct ib_pd *nka_find_pd(struct ib_device *dev, const char *owner)
{
	struct rdma_restrack_entry *res;
	u32 id;

	for (id = 0; id < NKA_MAX_RES_ID; id++) {
		res = rdma_restrack_get_byid(dev, RDMA_RESTRACK_PD, id);
		if (IS_ERR(res))
			continue;
		if (res->kern_name && !strcmp(res->kern_name, owner))
			return container_of(res, struct ib_pd, res);
		rdma_restrack_put(res);
	}
	return NULL;
}

/**
 * struct nka_conn - one attacker connection, good for one refused access
 * @pair: active end on the host's PD, passive end the attacker.
 * @w: the access's completion; freed after @pair (a flush may come until
 *	its QPs are drained).
 */
struct nka_conn {
	struct mrcore_e2e_pair *pair;
	struct mrcore_e2e_wait *w;
};

static int nka_conn_open(const struct mrcore_e2e_pair *base, struct ib_pd *pd,
			 struct nka_conn *conn)
{
	int ret;

	conn->w = kzalloc(sizeof(*conn->w), GFP_KERNEL);
	if (!conn->w)
		return -ENOMEM;
	ret = mrcore_e2e_pair_create_on_pd(base, pd, &conn->pair);
	if (ret) {
		kfree(conn->w);
		conn->w = NULL;
		conn->pair = NULL;
	}
	return ret;
}

static void nka_conn_close(struct nka_conn *conn)
{
	if (conn->pair)
		mrcore_e2e_pair_destroy(conn->pair);
	kfree(conn->w);
	conn->pair = NULL;
	conn->w = NULL;
}

/*
 * One access of NKA_BYTES at @c's address with its key, from @buf (a
 * WRITE) or into it (a READ, which must find it poisoned).  @in_flight,
 * if given, records whether the host had not yet completed the command
 * once the access was answered.  Return: NKA_SERVED, NKA_REFUSED, or a
 * negative errno if the attacker could not make the access (not a
 * refusal).
 */
static int nka_access(struct nka_conn *conn, enum ib_wr_opcode op,
		      const struct nka_cmd *c, struct mrcore_e2e_buf *buf,
		      bool *in_flight)
{
	struct mrcore_e2e_side *atk = &conn->pair->passive;
	struct mrcore_e2e_diff diff;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	bool served;
	int st;

	/* A connection that is down already cannot attack. */
	if (mrcore_e2e_qp_state(atk) != IB_QPS_RTS)
		return -ENOTCONN;
	if (ib_dma_map_sg(atk->device, buf->sg, buf->nents,
			  DMA_BIDIRECTIONAL) != buf->nents)
		return -ENOMEM;
	sge.addr = sg_dma_address(buf->sg);
	sge.length = NKA_BYTES;
	sge.lkey = atk->pd->local_dma_lkey;
	mrcore_e2e_wait_init(conn->w);
	mrcore_e2e_rdma_wr(&wr, op, &sge, c->addr, c->key, conn->w);
	st = mrcore_e2e_post(atk, &wr.wr, conn->w, NKA_WAIT_MS);
	if (in_flight)
		*in_flight = nka_phase() == NKA_LIVE;
	ib_dma_unmap_sg(atk->device, buf->sg, buf->nents, DMA_BIDIRECTIONAL);
	if (st < 0) {
		pr_err("nvme_key_attack: %s of key %#x could not be made: %d\n",
		       op == IB_WR_RDMA_READ ? "READ" : "WRITE", c->key, st);
		return st;
	}
	/*
	 * Any other status is the peer's answer to a WR posted on a live
	 * connection: an access error (rxe), or on iWARP the TERMINATE that
	 * breaks the connection and flushes the WR (siw).
	 */
	if (st != IB_WC_SUCCESS)
		pr_info("nvme_key_attack: %s of key %#x: %s\n",
			op == IB_WR_RDMA_READ ? "READ" : "WRITE", c->key,
			ib_wc_status_msg(st));
	served = st == IB_WC_SUCCESS;
	if (op == IB_WR_RDMA_READ &&
	    !mrcore_e2e_buf_verify(buf, 0, NKA_BYTES, MRCORE_E2E_POISONED,
				   &diff))
		served = true;	/* bytes came back, whatever the status */
	if (served && op == IB_WR_RDMA_WRITE &&
	    rdma_protocol_iwarp(atk->device, atk->cm_id->port_num) &&
	    mrcore_e2e_qp_failed(atk, NKA_TERMINATE_MS))
		served = false;
	return served ? NKA_SERVED : NKA_REFUSED;
}

static const char *nka_word(int r)
{
	return r == NKA_SERVED ? "served" : r == NKA_REFUSED ? "refused" :
	       "error";
}

/*
 * One sample (see the file comment).  Return: 0 when counted, 1 when the
 * command completed before the live access ended (take another), or a
 * negative errno.
 */
static int nka_sample(const struct mrcore_e2e_pair *base, struct ib_pd *pd,
		      u8 want, u32 seed)
{
	bool host_write = want == nvme_cmd_write;
	enum ib_wr_opcode op = host_write ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
	struct nka_conn live = {}, rights = {}, dead = {};
	struct mrcore_e2e_buf buf;
	int r_live, r_rights = -ENODATA, r_dead, ret;
	bool in_flight = false;
	struct nka_cmd c;

	ret = mrcore_e2e_buf_alloc(&buf, NKA_BYTES, 0);
	if (ret)
		return ret;
	/* Connected beforehand: the command's window is short. */
	ret = nka_conn_open(base, pd, &live);
	if (!ret)
		ret = nka_conn_open(base, pd, &dead);
	if (!ret && host_write)
		ret = nka_conn_open(base, pd, &rights);
	if (ret)
		goto out;

	nka_set_phase(NKA_ARMED, want);
	if (!wait_event_timeout(nka_watch.wq, nka_phase() != NKA_ARMED,
				msecs_to_jiffies(NKA_WAIT_MS))) {
		pr_err("nvme_key_attack: no host %s on namespace %u in %u ms (is fio running?)\n",
		       host_write ? "WRITE" : "READ", nsid, NKA_WAIT_MS);
		ret = -ETIMEDOUT;
		goto out;
	}
	c = nka_watch.cmd;

	if (host_write)
		mrcore_e2e_buf_poison(&buf);
	else
		mrcore_e2e_buf_fill(&buf, seed);
	r_live = nka_access(&live, op, &c, &buf, &in_flight);
	if (r_live == NKA_SERVED && host_write) {
		/* The bytes just read, written back where they came from. */
		r_rights = nka_access(&rights, IB_WR_RDMA_WRITE, &c, &buf,
				      NULL);
	}

	if (!wait_event_timeout(nka_watch.wq, nka_phase() == NKA_DONE,
				msecs_to_jiffies(NKA_WAIT_MS))) {
		pr_err("nvme_key_attack: the host did not complete cid %#x on queue %u in %u ms\n",
		       c.cid, c.qid, NKA_WAIT_MS);
		ret = -ETIMEDOUT;
		goto out;
	}
	if (host_write)
		mrcore_e2e_buf_poison(&buf);
	else
		mrcore_e2e_buf_fill(&buf, seed ^ 0xdead);
	r_dead = nka_access(&dead, op, &c, &buf, NULL);

	pr_info("nvme_key_attack: sample host=%s key=%#x addr=%#llx len=%u queue=%u cid=%#x access=%s live=%s in_flight=%d rights_write=%s dead=%s\n",
		host_write ? "WRITE" : "READ", c.key, c.addr, c.len, c.qid,
		c.cid, op == IB_WR_RDMA_READ ? "READ" : "WRITE",
		nka_word(r_live), in_flight,
		host_write ? nka_word(r_rights) : "-", nka_word(r_dead));
	if (r_live < 0 || r_dead < 0 || (host_write && r_rights < 0 &&
					 r_live == NKA_SERVED)) {
		ret = r_live < 0 ? r_live : r_dead < 0 ? r_dead : r_rights;
		goto out;
	}
	if (!in_flight) {
		nka_sum.retaken++;
		ret = 1;
		goto out;
	}
	nka_sum.taken++;
	nka_sum.live_served += r_live == NKA_SERVED;
	nka_sum.live_in_flight++;
	nka_sum.dead_refused += r_dead == NKA_REFUSED;
	if (host_write) {
		nka_sum.rights_tries++;
		nka_sum.rights_served += r_rights == NKA_SERVED;
	}
	ret = 0;
out:
	nka_set_phase(NKA_IDLE, 0);
	nka_conn_close(&rights);
	nka_conn_close(&dead);
	nka_conn_close(&live);
	mrcore_e2e_buf_free(&buf);
	return ret;
}

static int nka_run(const struct mrcore_e2e_target *target)
{
	struct mrcore_e2e_pair *base;
	unsigned int i, tries = 0;
	struct ib_pd *pd;
	int ret;

	ret = mrcore_e2e_pair_create(target, &base);
	if (ret) {
		pr_err("nvme_key_attack: no %s connection: %d\n", kind, ret);
		return ret;
	}
	pd = nka_find_pd(base->active.device, host_module);
	if (!pd) {
		pr_err("nvme_key_attack: no PD of %s on %s\n", host_module,
		       dev_name(&base->active.device->dev));
		ret = -ENOENT;
		goto destroy;
	}
	ret = register_kprobe(&nka_target_kp);
	if (ret)
		goto put;
	ret = register_kprobe(&nka_host_kp);
	if (ret)
		goto target_kp;
	for (i = 0; i < 2 * samples && !ret; tries++) {
		ret = nka_sample(base, pd, i % 2 ? nvme_cmd_read :
				 nvme_cmd_write, 0x4e4b0000 + tries);
		if (ret == 1)
			ret = tries < 4 * samples ? 0 : -EAGAIN;
		else if (!ret)
			i++;
	}
	unregister_kprobe(&nka_host_kp);
target_kp:
	unregister_kprobe(&nka_target_kp);
put:
	rdma_restrack_put(&pd->res);
destroy:
	mrcore_e2e_pair_destroy(base);
	return ret;
}

static int __init nka_init(void)
{
	const struct mrcore_e2e_target *target;
	int ret;

	if (!strcmp(kind, "siw"))
		target = &mrcore_e2e_siw;
	else if (!strcmp(kind, "rxe"))
		target = &mrcore_e2e_rxe;
	else
		return -EINVAL;
	if (!samples)
		return -EINVAL;
	spin_lock_init(&nka_watch.lock);
	init_waitqueue_head(&nka_watch.wq);
	ret = nka_run(target);
	pr_info("nvme_key_attack: summary device=%s host_module=%s samples=%u live_served=%u live_in_flight=%u dead_refused=%u rights_tries=%u rights_served=%u retaken=%u error=%d\n",
		kind, host_module, nka_sum.taken, nka_sum.live_served,
		nka_sum.live_in_flight, nka_sum.dead_refused,
		nka_sum.rights_tries, nka_sum.rights_served, nka_sum.retaken,
		ret);
	/* The verdict is the summary's; the module stays for rmmod. */
	return 0;
}

static void __exit nka_exit(void)
{
}

module_init(nka_init);
module_exit(nka_exit);
MODULE_DESCRIPTION("An attacker on the NVMe/RDMA host's PD, for make nvmeof");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MRCORE_HARNESS);
