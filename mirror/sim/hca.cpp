// SPDX-License-Identifier: GPL-2.0-only
//
// Simulated HCA: verbs shims and the WR execution engine.
#include "hca.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace sim {

const Profile kRoce = {"roce", false, 32, 32, 512, true, false};
const Profile kIwarp = {"iwarp", true, 6, 1, 256, true, true};
const Profile kNoFastReg = {"nofastreg", false, 16, 16, 0, false, false};

Counters &counters()
{
	static Counters c;
	return c;
}

Hca::Hca(const Profile &profile, const char *name) : profile_(profile)
{
	std::snprintf(dev_.name, sizeof(dev_.name), "%s", name);
	dev_.iwarp = profile.iwarp;
	dev_.attrs.max_qp_wr = 4096;
	dev_.attrs.max_send_sge = profile.max_send_sge;
	dev_.attrs.max_recv_sge = profile.max_send_sge;
	dev_.attrs.max_sge_rd = profile.max_sge_rd;
	dev_.attrs.max_fast_reg_page_list_len =
		profile.max_fast_reg_page_list_len;
	if (profile.mem_mgt_extensions)
		dev_.attrs.device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	dev_.sim = this;
}

Hca::~Hca()
{
	for (auto &entry : mrs_) {
		if (!entry.second->dma_mr) {
			std::fprintf(stderr, "sim: %s: MR %u leaked\n",
				     dev_.name, entry.first);
			counters().mrs_live--;
		}
		delete entry.second;
	}
}

ib_pd *Hca::alloc_pd()
{
	auto pd = std::make_unique<ib_pd>();
	pd->device = &dev_;
	Mr *dma = new Mr{};
	dma->hca = this;
	dma->index = next_index_++;
	dma->dma_mr = true;
	dma->valid = true;
	dma->access = IB_ACCESS_LOCAL_WRITE;
	dma->ibmr.pd = pd.get();
	dma->ibmr.device = &dev_;
	dma->ibmr.lkey = dma->index << 8;
	mrs_[dma->index] = dma;
	pd->local_dma_lkey = dma->ibmr.lkey;
	pds_.push_back(std::move(pd));
	return pds_.back().get();
}

ib_qp *Hca::create_qp(ib_pd *pd)
{
	auto qp = std::make_unique<Qp>();
	qp->qp.device = &dev_;
	qp->qp.pd = pd;
	qp->qp.sim = qp.get();
	qp->hca = this;
	qps_.push_back(std::move(qp));
	return &qps_.back()->qp;
}

Mr *Hca::alloc_mr(ib_pd *pd, u32 max_num_sg)
{
	Mr *mr = new Mr{};

	mr->hca = this;
	mr->index = next_index_++;
	mr->max_num_sg = max_num_sg;
	mr->ibmr.device = &dev_;
	mr->ibmr.pd = pd;
	mr->ibmr.type = IB_MR_TYPE_MEM_REG;
	// The key byte starts at an arbitrary value, as on real devices.
	mr->ibmr.lkey = mr->index << 8 | ((mr->index * 37) & 0xff);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mrs_[mr->index] = mr;
	counters().mrs_live++;
	return mr;
}

void Hca::dereg_mr(Mr *mr)
{
	mrs_.erase(mr->index);
	counters().mrs_live--;
	delete mr;
}

Mr *Hca::find_mr(u32 key)
{
	auto it = mrs_.find(key >> 8);

	return it == mrs_.end() ? nullptr : it->second;
}

void connect(ib_qp *a, ib_qp *b)
{
	Qp *qa = static_cast<Qp *>(a->sim);
	Qp *qb = static_cast<Qp *>(b->sim);

	qa->peer = qb;
	qb->peer = qa;
}

std::vector<Completion> &completions(ib_qp *qp)
{
	return static_cast<Qp *>(qp->sim)->cq;
}

bool qp_in_error(ib_qp *qp)
{
	return static_cast<Qp *>(qp->sim)->error;
}

int post(ib_qp *qp, ib_send_wr *wr)
{
	const ib_send_wr *bad = nullptr;

	return ib_post_send(qp, wr, &bad);
}

// ---- execution -------------------------------------------------------------

namespace {

struct Span {
	u8 *p;
	u64 len;
};

// Where [addr, addr + len) of an MR lives in host memory.
bool translate(const Mr &mr, u64 addr, u64 len, std::vector<Span> *out)
{
	if (mr.dma_mr) {
		out->push_back({reinterpret_cast<u8 *>(addr), len});
		return true;
	}
	if (addr < mr.iova || len > mr.length || addr - mr.iova > mr.length - len)
		return false;
	u64 pos = (mr.iova & ~PAGE_MASK) + (addr - mr.iova);
	while (len) {
		u64 page = pos >> PAGE_SHIFT;
		u64 in_page = pos & ~PAGE_MASK;
		u64 n = std::min<u64>(len, PAGE_SIZE - in_page);

		if (page >= mr.pages.size())
			return false;
		out->push_back({reinterpret_cast<u8 *>(mr.pages[page] + in_page), n});
		pos += n;
		len -= n;
	}
	return true;
}

// The lkey checks of the local side.
ib_wc_status check_local(Qp &qp, const ib_sge &sge, int need, bool read_sink,
			 std::vector<Span> *out)
{
	Mr *mr = qp.hca->find_mr(sge.lkey);

	if (!mr || mr->ibmr.pd != qp.qp.pd || !mr->valid)
		return IB_WC_LOC_PROT_ERR;
	if (!mr->dma_mr && (sge.lkey & 0xff) != mr->key_byte)
		return IB_WC_LOC_PROT_ERR;
	if ((mr->access & need) != need)
		return IB_WC_LOC_PROT_ERR;
	if (read_sink && qp.hca->profile().iwarp) {
		bool ok = mr->dma_mr ? qp.hca->profile().dma_lkey_read_sink :
				       (mr->access & IB_ACCESS_REMOTE_WRITE);
		if (!ok)
			return IB_WC_LOC_PROT_ERR;
	}
	if (!translate(*mr, sge.addr, sge.length, out))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

// The rkey checks the responder makes.
ib_wc_status check_remote(Qp &qp, u64 addr, u64 len, u32 rkey, int need,
			  std::vector<Span> *out)
{
	Qp *peer = qp.peer;
	Mr *mr = peer ? peer->hca->find_mr(rkey) : nullptr;

	if (!mr || mr->dma_mr || mr->ibmr.pd != peer->qp.pd || !mr->valid ||
	    (rkey & 0xff) != mr->key_byte || (mr->access & need) != need ||
	    !translate(*mr, addr, len, out))
		return IB_WC_REM_ACCESS_ERR;
	return IB_WC_SUCCESS;
}

void copy_spans(const std::vector<Span> &dst, const std::vector<Span> &src)
{
	size_t di = 0, si = 0;
	u64 doff = 0, soff = 0;

	while (di < dst.size() && si < src.size()) {
		u64 n = std::min(dst[di].len - doff, src[si].len - soff);

		std::memmove(dst[di].p + doff, src[si].p + soff, n);
		doff += n;
		soff += n;
		if (doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (soff == src[si].len) {
			si++;
			soff = 0;
		}
	}
}

ib_wc_status exec_rdma(Qp &qp, const ib_send_wr &wr)
{
	const ib_rdma_wr &rdma = *reinterpret_cast<const ib_rdma_wr *>(&wr);
	bool read = wr.opcode == IB_WR_RDMA_READ ||
		    wr.opcode == IB_WR_RDMA_READ_WITH_INV;
	std::vector<Span> local, remote;
	u64 total = 0;
	ib_wc_status st;

	for (int i = 0; i < wr.num_sge; i++) {
		st = check_local(qp, wr.sg_list[i],
				 read ? IB_ACCESS_LOCAL_WRITE : 0, read, &local);
		if (st != IB_WC_SUCCESS)
			return st;
		total += wr.sg_list[i].length;
	}
	st = check_remote(qp, rdma.remote_addr, total, rdma.rkey,
			  read ? IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE,
			  &remote);
	if (st != IB_WC_SUCCESS)
		return st;
	if (read)
		copy_spans(local, remote);
	else
		copy_spans(remote, local);

	if (wr.opcode == IB_WR_RDMA_READ_WITH_INV) {
		Mr *sink = qp.hca->find_mr(wr.ex.invalidate_rkey);

		if (!sink || sink->dma_mr || !sink->valid ||
		    (wr.ex.invalidate_rkey & 0xff) != sink->key_byte)
			return IB_WC_LOC_PROT_ERR;
		sink->valid = false;
	}
	return IB_WC_SUCCESS;
}

ib_wc_status exec_reg(Qp &qp, const ib_send_wr &wr)
{
	const ib_reg_wr &reg = *reinterpret_cast<const ib_reg_wr *>(&wr);
	Mr *mr = reinterpret_cast<Mr *>(reg.mr);

	// REG_MR on a valid MR fails; so does a key of another MR, a remote
	// write without local write, and a registration with no page list.
	if (mr->valid || (reg.key >> 8) != mr->index ||
	    mr->ibmr.pd != qp.qp.pd || mr->staged.empty())
		return IB_WC_MW_BIND_ERR;
	if ((reg.access & IB_ACCESS_REMOTE_WRITE) &&
	    !(reg.access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_MW_BIND_ERR;
	mr->pages = mr->staged;
	mr->iova = mr->staged_iova;
	mr->length = mr->staged_length;
	mr->access = reg.access;
	mr->key_byte = reg.key & 0xff;
	mr->valid = true;
	return IB_WC_SUCCESS;
}

ib_wc_status exec_local_inv(Qp &qp, const ib_send_wr &wr)
{
	Mr *mr = qp.hca->find_mr(wr.ex.invalidate_rkey);

	if (!mr || mr->dma_mr || !mr->valid || mr->ibmr.pd != qp.qp.pd ||
	    (wr.ex.invalidate_rkey & 0xff) != mr->key_byte)
		return IB_WC_LOC_QP_OP_ERR;
	mr->valid = false;
	return IB_WC_SUCCESS;
}

ib_wc_status execute(Qp &qp, const ib_send_wr &wr)
{
	switch (wr.opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
	case IB_WR_RDMA_WRITE:
		if (!qp.peer)
			return IB_WC_REM_OP_ERR;
		return exec_rdma(qp, wr);
	case IB_WR_REG_MR:
		return exec_reg(qp, wr);
	case IB_WR_LOCAL_INV:
		return exec_local_inv(qp, wr);
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

// What a driver refuses before the WR reaches the queue.
bool post_check(const Qp &qp, const ib_send_wr &wr)
{
	const Profile &p = qp.hca->profile();
	bool read = wr.opcode == IB_WR_RDMA_READ ||
		    wr.opcode == IB_WR_RDMA_READ_WITH_INV;

	if (wr.num_sge < 0 || wr.num_sge > (read ? p.max_sge_rd : p.max_send_sge))
		return false;
	if (wr.opcode == IB_WR_RDMA_READ_WITH_INV && !p.iwarp)
		return false;
	if (wr.opcode == IB_WR_REG_MR) {
		const ib_reg_wr &reg = *reinterpret_cast<const ib_reg_wr *>(&wr);

		if (!reg.mr || reg.mr->device != qp.qp.device)
			return false;
	}
	return true;
}

std::unordered_map<const scatterlist *, std::pair<int, int>> &dma_maps()
{
	static std::unordered_map<const scatterlist *, std::pair<int, int>> m;
	return m;
}

std::unordered_map<const void *, size_t> &allocations()
{
	static std::unordered_map<const void *, size_t> m;
	return m;
}

} // namespace
} // namespace sim

// ---- the kernel, as the core sees it ----------------------------------------

using namespace sim;

struct module mirror_this_module;

extern "C" bool try_module_get(struct module *m)
{
	m->refcnt++;
	counters().module_refs++;
	return true;
}

extern "C" void module_put(struct module *m)
{
	m->refcnt--;
	counters().module_refs--;
}

extern "C" void *mirror_kzalloc(size_t size)
{
	void *p = std::calloc(1, size ? size : 1);

	if (p) {
		allocations()[p] = size;
		counters().kmalloc_live++;
	}
	return p;
}

extern "C" void kfree(const void *p)
{
	if (!p)
		return;
	if (!allocations().erase(p)) {
		std::fprintf(stderr, "mirror: kfree of unknown pointer %p\n", p);
		std::abort();
	}
	counters().kmalloc_live--;
	std::free(const_cast<void *>(p));
}

extern "C" void mirror_warn(const char *cond, const char *file, int line)
{
	std::fprintf(stderr, "mirror: WARNING: %s at %s:%d\n", cond, file, line);
	counters().warnings++;
}

extern "C" void mutex_lock(struct mutex *m)
{
	if (m->held++) {
		std::fprintf(stderr, "mirror: mutex re-entered\n");
		std::abort();
	}
}

extern "C" void mutex_unlock(struct mutex *m)
{
	m->held--;
}

extern "C" struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				     u32 max_num_sg)
{
	Hca *hca = static_cast<Hca *>(pd->device->sim);

	if (!hca->profile().mem_mgt_extensions || type != IB_MR_TYPE_MEM_REG)
		return static_cast<ib_mr *>(ERR_PTR(-EOPNOTSUPP));
	if (!max_num_sg || max_num_sg > hca->profile().max_fast_reg_page_list_len)
		return static_cast<ib_mr *>(ERR_PTR(-EINVAL));
	return &hca->alloc_mr(pd, max_num_sg)->ibmr;
}

extern "C" int ib_dereg_mr(struct ib_mr *ibmr)
{
	Mr *mr = reinterpret_cast<Mr *>(ibmr);

	mr->hca->dereg_mr(mr);
	return 0;
}

// Like ib_sg_to_pages(): stops at the first entry that does not fit the page
// list, and returns how many entries it mapped.
extern "C" int ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sgl,
			    int sg_nents, unsigned int *sg_offset,
			    unsigned int page_size)
{
	Mr *mr = reinterpret_cast<Mr *>(ibmr);
	unsigned int first_off = sg_offset ? *sg_offset : 0;
	std::vector<u64> pages;
	u64 iova = 0, length = 0, prev_end = 0;
	struct scatterlist *sg;
	int i;

	if (page_size != PAGE_SIZE)
		return -EINVAL;
	for_each_sg(sgl, sg, sg_nents, i) {
		u64 start = sg_dma_address(sg) + (i ? 0 : first_off);
		u64 end = sg_dma_address(sg) + sg_dma_len(sg);
		u64 page = start & PAGE_MASK;

		if (i == 0) {
			iova = start;
		} else if (start != prev_end) {
			if ((prev_end & ~PAGE_MASK) || (start & ~PAGE_MASK))
				break;
		} else if (start & ~PAGE_MASK) {
			page += PAGE_SIZE;	// shares the previous page
		}
		size_t before = pages.size();
		for (; page < end; page += PAGE_SIZE)
			pages.push_back(page);
		if (pages.size() > mr->max_num_sg) {
			pages.resize(before);
			break;
		}
		length += end - start;
		prev_end = end;
	}
	mr->staged = pages;
	mr->staged_iova = iova;
	mr->staged_length = length;
	ibmr->iova = iova;
	ibmr->length = length;
	ibmr->page_size = page_size;
	return i;
}

extern "C" int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sgl,
			     int nents, enum dma_data_direction dir)
{
	struct scatterlist *sg;
	int i;

	if (nents <= 0)
		return 0;
	if (dma_maps().count(sgl)) {
		std::fprintf(stderr, "sim: DMA-API: %p mapped twice\n",
			     static_cast<void *>(sgl));
		counters().dma_api_errors++;
	}
	for_each_sg(sgl, sg, nents, i) {
		sg->dma_address = reinterpret_cast<uintptr_t>(sg->buf);
		sg->dma_length = sg->length;
	}
	dma_maps()[sgl] = {nents, dir};
	counters().dma_maps_live++;
	return nents;
}

extern "C" void ib_dma_unmap_sg(struct ib_device *dev, struct scatterlist *sgl,
				int nents, enum dma_data_direction dir)
{
	auto it = dma_maps().find(sgl);

	// What CONFIG_DMA_API_DEBUG checks: same list, same count, same
	// direction as the map.
	if (it == dma_maps().end() || it->second.first != nents ||
	    it->second.second != dir) {
		std::fprintf(stderr, "sim: DMA-API: bad unmap of %p\n",
			     static_cast<void *>(sgl));
		counters().dma_api_errors++;
		return;
	}
	dma_maps().erase(it);
	counters().dma_maps_live--;
}

extern "C" int ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			    const struct ib_send_wr **bad_wr)
{
	Qp &qp = *static_cast<Qp *>(ibqp->sim);

	for (; wr; wr = wr->next) {
		if (!post_check(qp, *wr)) {
			*bad_wr = wr;
			return -EINVAL;
		}
		ib_wc_status st = qp.error ? IB_WC_WR_FLUSH_ERR : execute(qp, *wr);

		if (st != IB_WC_SUCCESS)
			qp.error = true;
		if (st != IB_WC_SUCCESS || (wr->send_flags & IB_SEND_SIGNALED))
			qp.cq.push_back({wr->wr_cqe, st, wr->opcode});
	}
	return 0;
}
