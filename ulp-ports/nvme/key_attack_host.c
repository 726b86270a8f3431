// SPDX-License-Identifier: GPL-2.0-only
/*
 * nvme_key_attack.ko: the host core's view of a request (key_attack.h).
 */
#include "stock/host/nvme.h"
#include "key_attack.h"

bool nka_host_cmd(struct request *rq, struct nka_cmd *c)
{
	return nka_decode(nvme_req(rq)->cmd, nvme_req_qid(rq), c);
}
