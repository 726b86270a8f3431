// SPDX-License-Identifier: GPL-2.0-only
/*
 * nvme_key_attack.ko: the target core's view of a request (key_attack.h).
 */
#include "stock/target/nvmet.h"
#include "key_attack.h"

bool nka_target_cmd(void *nvmet_req, void *nvmet_cq, struct nka_cmd *c)
{
	struct nvmet_req *req = nvmet_req;
	struct nvmet_cq *cq = nvmet_cq;

	return nka_decode(req->cmd, cq->qid, c);
}
