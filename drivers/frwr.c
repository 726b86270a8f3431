// SPDX-License-Identifier: GPL-2.0-only
/*
 * FRWR backend: fast registration work requests (IB, RoCE, and iWARP STags).
 *
 * A registration is a REG_MR WR on the send queue; a key dies with a
 * LOCAL_INV WR (or the peer's remote invalidation).  The key's low byte is
 * bumped on every map, so a key from an earlier mapping never matches the
 * new one.
 *
 * For I/O, the core registers pool MRs of this backend as a local READ sink
 * or WRITE source, lkey-only, invalidated lazily in the chain of their next
 * registration; iWARP READ sinks need remote access and are the iwarp
 * backend's.  This file only registers and invalidates.
 */
#include "mrcore_internal.h"

static bool frwr_serves(struct ib_device *dev)
{
	return dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS;
}

static u32 frwr_max_pages(struct ib_device *dev)
{
	return dev->attrs.max_fast_reg_page_list_len;
}

static int frwr_mr_init(struct rdma_mr *mr)
{
	struct ib_mr *ibmr;

	ibmr = ib_alloc_mr(mr->pd, IB_MR_TYPE_MEM_REG, mr->max_pages);
	if (IS_ERR(ibmr))
		return PTR_ERR(ibmr);
	mr->ibmr = ibmr;
	/*
	 * What every REG_MR of this MR has in common, set once: the MR came
	 * zeroed (no SGE, no immediate) and only frwr_map() writes the WR.  A
	 * device MR replaced later (init on a scratch MR) keeps these.
	 */
	mr->reg_wr.wr.opcode = IB_WR_REG_MR;
	return 0;
}

static void frwr_mr_release(struct rdma_mr *mr)
{
	u32 lkey = mr->ibmr->lkey;
	int ret = ib_dereg_mr(mr->ibmr);

	/* Nothing to retry: what is left of the device MR is the driver's. */
	if (ret)
		mrcore_warn_ratelimited(mr->pd->device,
					"deregistering device MR 0x%08x failed: %d\n",
					lkey, ret);
	mr->ibmr = NULL;
}

static void frwr_build_inv(struct ib_send_wr *inv, u32 key,
			   struct ib_send_wr *next, struct ib_cqe *cqe)
{
	memset(inv, 0, sizeof(*inv));
	inv->opcode = IB_WR_LOCAL_INV;
	inv->ex.invalidate_rkey = key;
	inv->next = next;
	inv->wr_cqe = cqe;
	if (cqe)
		inv->send_flags = IB_SEND_SIGNALED;
}

/*
 * The device sees exactly the run the core cut, as whole entries: for the
 * call, the last entry ends where the run does and the first starts where
 * it does (the core owns the DMA mapping meanwhile).  Drivers differ in
 * what they do with a partial list or an sg_offset (siw builds its page
 * list from the entries and ignores the offset; ib_sg_to_pages() stops a
 * page short of a full list): with whole entries they all agree.  A device
 * that still maps a different number of bytes gets refused.
 */
static noinline int frwr_map_cut(struct rdma_mr *mr)
{
	struct scatterlist *head = mr->sg, *last = mr->sg_last;
	dma_addr_t head_addr = sg_dma_address(head);
	unsigned int head_len = sg_dma_len(head);
	unsigned int last_len = sg_dma_len(last);
	int n;

	sg_dma_len(last) = mr->sg_last_end;
	sg_dma_address(head) += mr->sg_offset;
	sg_dma_len(head) -= mr->sg_offset;
	n = ib_map_mr_sg(mr->ibmr, mr->sg, mr->dma_nents, NULL, PAGE_SIZE);
	sg_dma_address(head) = head_addr;
	sg_dma_len(head) = head_len;
	sg_dma_len(last) = last_len;
	return n;
}

static int frwr_map(struct rdma_mr *mr, struct ib_send_wr **post_wr)
{
	struct ib_mr *ibmr = mr->ibmr;
	struct ib_send_wr *first = &mr->reg_wr.wr;
	int n;

	/* Most runs are whole entries: nothing to cut (frwr_map_cut()). */
	if (likely(!mr->sg_offset &&
		   mr->sg_last_end == sg_dma_len(mr->sg_last)))
		n = ib_map_mr_sg(ibmr, mr->sg, mr->dma_nents, NULL, PAGE_SIZE);
	else
		n = frwr_map_cut(mr);
	if (n < 0)
		return n;
	if (ibmr->length != mr->length ||
	    mrcore_should_fail(MRCORE_FAULT_MAP_SHORT))
		return -EIO;

	/*
	 * A REG_MR on a still-valid MR fails, so the key of a lazily
	 * invalidated mapping is killed first, in the same chain.  Its WR is
	 * not inv_wr: the caller may chain an invalidation of the new key
	 * behind the registration (an iWARP READ sink without READ_WITH_INV).
	 */
	if (mr->state == RDMA_MR_STALE) {
		frwr_build_inv(&mr->stale_inv_wr, mr->key, first, NULL);
		first = &mr->stale_inv_wr;
	}

	ib_update_fast_reg_key(ibmr, ib_inc_rkey(ibmr->rkey));

	/* What changes from one map to the next (the rest: frwr_mr_init()). */
	mr->reg_wr.wr.next = *post_wr;
	mr->reg_wr.wr.wr_cqe = mr->cqe;
	mr->reg_wr.wr.send_flags = mr->cqe ? IB_SEND_SIGNALED : 0;
	mr->reg_wr.mr = ibmr;
	mr->reg_wr.key = ibmr->rkey;
	mr->reg_wr.access = mr->access;

	mr->key = mr->role == RDMA_MR_ROLE_LKEY ? ibmr->lkey : ibmr->rkey;
	mr->iova = ibmr->iova;
	*post_wr = first;
	return 0;
}

static int frwr_invalidate(struct rdma_mr *mr, struct ib_send_wr **post_wr)
{
	frwr_build_inv(&mr->inv_wr, mr->key, *post_wr, mr->cqe);
	*post_wr = &mr->inv_wr;
	return 0;
}

struct rdma_mr_backend_ops mrcore_frwr_ops = {
	.name = "frwr",
	.owner = THIS_MODULE,
	.serves = frwr_serves,
	.max_pages = frwr_max_pages,
	.mr_init = frwr_mr_init,
	.mr_release = frwr_mr_release,
	.map = frwr_map,
	.invalidate = frwr_invalidate,
};
