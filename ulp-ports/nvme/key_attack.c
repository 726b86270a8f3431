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
 * refusal.  A sample whose command completed before step 1 or 2 was
 * answered is not counted as live and is taken again.  One line per sample and a summary
 * line go to the kernel log; scripts/nvmeof-guest.sh judges them.
 *
 * The connections, the accesses, the samples and the watched command are
 * the attackers' shared part (ulp-ports/lib/key_attack_core.c); this file
 * is what NVMe adds: where the keys are learnt and their commands end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/unaligned.h>

#include "lib/key_attack_core.h"
#include "key_attack.h"

static char *host_module = "nvme_rdma_mrcore";
module_param(host_module, charp, 0444);
MODULE_PARM_DESC(host_module, "the module that owns the host's PD");

static unsigned int nsid = 1;
module_param(nsid, uint, 0444);
MODULE_PARM_DESC(nsid, "the namespace fio runs on");

static void nka_describe(const struct ka_key *k, char *buf, size_t len);

static struct ka_attacker nka = {
	.end = "host",
	.describe = nka_describe,
};

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
	return c->len >= KA_BYTES;
}

/* A command is named by its queue, its identifier and its key. */
static u64 nka_id(const struct nka_cmd *c)
{
	return (u64)c->key << 32 | (u32)c->qid << 16 | c->cid;
}

static void nka_describe(const struct ka_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "queue=%u cid=%#x", (u16)(k->id >> 16),
		 (u16)k->id);
}

static int nka_target_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ka_key k;
	struct nka_cmd c;

	if (!nka_target_cmd((void *)regs_get_kernel_argument(regs, 0),
			    (void *)regs_get_kernel_argument(regs, 1), &c) ||
	    c.nsid != nsid)
		return 0;
	k.key = c.key;
	k.addr = c.addr;
	k.len = c.len;
	k.id = nka_id(&c);
	ka_watch_arrive(&nka.watch, c.opcode, &k);
	return 0;
}

static int nka_host_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct nka_cmd c;

	if (nka_host_cmd((struct request *)regs_get_kernel_argument(regs, 0),
			 &c))
		ka_watch_done(&nka.watch, nka_id(&c));
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

/*
 * A host WRITE's key is for a remote READ of its data; a remote WRITE of
 * those bytes back tells whether it grants more.  A host READ's key is
 * for a remote WRITE into its buffer (the target's data lands over it
 * later).
 */
static const struct ka_plan nka_plans[2] = {
	{ .want = nvme_cmd_write, .what = "WRITE", .op = IB_WR_RDMA_READ,
	  .rights = true, .rights_op = IB_WR_RDMA_WRITE,
	  .rights_name = "rights_write" },
	{ .want = nvme_cmd_read, .what = "READ", .op = IB_WR_RDMA_WRITE,
	  .rights_name = "rights_write" },
};

static int nka_run(const struct mrcore_e2e_target *target)
{
	int ret;

	ret = ka_attacker_open(&nka, target);
	if (ret)
		return ret;
	/* One kernel: the host's PD is the only one its module allocated. */
	nka.pd = ka_pd_of_owner(nka.base->active.device, host_module);
	if (!nka.pd) {
		pr_err("no PD of %s on %s\n", host_module,
		       dev_name(&nka.base->active.device->dev));
		ret = -ENOENT;
		goto close;
	}
	ret = register_kprobe(&nka_target_kp);
	if (ret)
		goto close;
	ret = register_kprobe(&nka_host_kp);
	if (ret)
		goto target_kp;
	ret = ka_run(&nka, nka_plans, 0x4e4b0000);
	unregister_kprobe(&nka_host_kp);
target_kp:
	unregister_kprobe(&nka_target_kp);
close:
	ka_attacker_close(&nka);
	return ret;
}

static int __init nka_init(void)
{
	const struct ka_tally *t = &nka.tally;
	const struct mrcore_e2e_target *target = ka_target();
	int ret;

	if (!target)
		return -EINVAL;
	ret = nka_run(target);
	pr_info("summary device=%s host_module=%s samples=%u live_served=%u live_in_flight=%u dead_refused=%u rights_tries=%u rights_served=%u retaken=%u error=%d\n",
		ka_kind, host_module, t->taken, t->live_served,
		t->live_in_flight, t->dead_refused, t->write_tries,
		t->write_served, t->retaken, ret);
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
