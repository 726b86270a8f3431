/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nvme_key_attack.ko: the commands the attacker watches, as the NVMe host
 * and target cores see them.  Each side's accessor lives in a file of its
 * own, built against that side's private header (drivers/nvme/host/nvme.h,
 * drivers/nvme/target/nvmet.h of linux-source-6.12), so the layouts used
 * are the kernel's.
 */
#ifndef _NVME_KEY_ATTACK_H
#define _NVME_KEY_ATTACK_H

#include <linux/types.h>

struct nvme_command;
struct request;

/**
 * struct nka_cmd - an I/O command that advertised a key
 * @qid: its queue (0 is the admin queue).
 * @cid: its command identifier, as on the wire.
 * @opcode: nvme_cmd_write or nvme_cmd_read.
 * @nsid: its namespace.
 * @key: the keyed SGL data block's key.
 * @addr: the address it names.
 * @len: its length in bytes.
 */
struct nka_cmd {
	u16 qid;
	u16 cid;
	u8 opcode;
	u32 nsid;
	u32 key;
	u64 addr;
	u32 len;
};

bool nka_decode(const struct nvme_command *cmd, u16 qid, struct nka_cmd *c);
/* nvme_complete_rq()'s request, on the host. */
bool nka_host_cmd(struct request *rq, struct nka_cmd *c);
/* nvmet_req_init()'s request and completion queue, on the target. */
bool nka_target_cmd(void *nvmet_req, void *nvmet_cq, struct nka_cmd *c);

#endif /* _NVME_KEY_ATTACK_H */
