// SPDX-License-Identifier: GPL-2.0-only
//
// The simulated HCA: devices, PDs, QPs and MRs, the driver side of the verbs
// (alloc_mr, map_mr_sg, post_send), WR execution and completions, and the
// FMR callbacks of the fmr profile.  The kernel it runs in is shims/.
#include "hca.h"
#include "shims.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <vector>

namespace sim {

Counters &counters()
{
	static Counters c;
	return c;
}

namespace {
// Every QP of every device, oldest first: what drain() lets run.
std::vector<Qp *> &live_qps()
{
	static std::vector<Qp *> v;
	return v;
}
} // namespace

// ---- objects ----------------------------------------------------------------

Hca::Hca(const Profile &profile, const char *name) : profile_(profile)
{
	std::snprintf(dev_.name, sizeof(dev_.name), "%s", name);
	dev_.ops.driver_id = profile.driver_id;
	dev_.iwarp = profile.iwarp;
	dev_.attrs.max_qp_wr = 4096;
	dev_.attrs.max_send_sge = profile.max_send_sge;
	dev_.attrs.max_recv_sge = profile.max_send_sge;
	dev_.attrs.max_sge_rd = profile.max_sge_rd;
	/* rxe's RXE_MAX_MR; siw has 1,024,000 */
	dev_.attrs.max_mr = 524287;
	dev_.attrs.max_fast_reg_page_list_len =
		profile.max_fast_reg_page_list_len;
	if (profile.mem_mgt_extensions)
		dev_.attrs.device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	dev_.sim = this;
	device_added(dev_);
}

Hca::~Hca()
{
	device_removed(dev_);
	for (auto &qp : qps_) {
		auto &all = live_qps();

		all.erase(std::find(all.begin(), all.end(), qp.get()));
		if (qp->peer)
			qp->peer->peer = nullptr;
	}
	for (const auto &[index, mr] : mrs_) {
		if (mr.dma_mr())
			continue;
		std::fprintf(stderr, "sim: %s: MR %u leaked\n", dev_.name,
			     index);
		counters().mrs_live--;
	}
}

// A new MR's index as the drivers draw it, skipping those in use as
// xa_alloc_cyclic() does: rxe (rxe_pool.c) from the one after the last it
// gave, over [1, 2^19]; siw (siw_mem.c) from a random point of
// [0, 2^24 - 1], over [1, 2^24 - 1].
u32 Hca::draw_index()
{
	const bool random = profile_.random_mr_index;
	const u32 max = random ? 0xffffff : 1u << 19;
	u32 index = random ? static_cast<u32>(rng_() & max) : next_index_;

	for (;; index++) {
		if (index < 1 || index > max)
			index = 1;
		if (!mrs_.contains(index))
			break;
	}
	next_index_ = index + 1;
	return index;
}

Mr &Hca::new_mr(ib_pd *pd, MrKind kind)
{
	u32 index = draw_index();
	Mr &mr = mrs_.try_emplace(index).first->second;

	mr.hca = this;
	mr.index = index;
	mr.kind = kind;
	mr.ibmr.device = &dev_;
	mr.ibmr.pd = pd;
	mr.ibmr.sim = &mr;
	return mr;
}

size_t Hca::noio_mrs() const
{
	return std::ranges::count_if(mrs_, [](const auto &m) {
		return m.second.noio;
	});
}

ib_pd *Hca::alloc_pd()
{
	ib_pd &pd = *pds_.emplace_back(std::make_unique<ib_pd>());
	Mr &dma = new_mr(&pd, MrKind::dma);

	pd.device = &dev_;
	dma.valid = true;
	dma.access = IB_ACCESS_LOCAL_WRITE;
	dma.ibmr.lkey = dma.index << 8;
	pd.local_dma_lkey = dma.ibmr.lkey;
	return &pd;
}

ib_qp *Hca::create_qp(ib_pd *pd, u32 max_send_wr)
{
	Qp &qp = *qps_.emplace_back(std::make_unique<Qp>());

	qp.max_send_wr = max_send_wr ? max_send_wr : dev_.attrs.max_qp_wr;
	qp.qp.device = &dev_;
	qp.qp.pd = pd;
	// As ib_create_qp() sets them for a QP asking for the device's maximum.
	qp.qp.max_write_sge = profile_.max_send_sge;
	qp.qp.max_read_sge = std::min(profile_.max_send_sge,
				      profile_.max_sge_rd);
	qp.qp.sim = &qp;
	qp.hca = this;
	live_qps().push_back(&qp);
	return &qp.qp;
}

Mr &Hca::alloc_mr(ib_pd *pd, u32 max_num_sg)
{
	Mr &mr = new_mr(pd, MrKind::registered);

	mr.max_num_sg = max_num_sg;
	mr.noio = noio_scope();
	mr.ibmr.type = IB_MR_TYPE_MEM_REG;
	// The key byte starts at 0 on siw, elsewhere at an arbitrary value
	// (rxe: a random one).
	mr.ibmr.lkey = mr.index << 8 |
		       (profile_.random_mr_index ? 0 : (mr.index * 37) & 0xff);
	mr.ibmr.rkey = mr.ibmr.lkey;
	counters().mrs_live++;
	return mr;
}

ib_mr *Hca::alloc_mr(ib_pd *pd, ib_mr_type type, u32 max_num_sg)
{
	if (!profile_.mem_mgt_extensions || type != IB_MR_TYPE_MEM_REG)
		return static_cast<ib_mr *>(ERR_PTR(-EOPNOTSUPP));
	if (!max_num_sg || max_num_sg > profile_.max_fast_reg_page_list_len)
		return static_cast<ib_mr *>(ERR_PTR(-EINVAL));
	return &alloc_mr(pd, max_num_sg).ibmr;
}

void Hca::dereg_mr(Mr *mr)
{
	mrs_.erase(mr->index);
	counters().mrs_live--;
}

Mr *Hca::expose(ib_pd *pd, void *buf, u64 len, int access)
{
	u64 addr = dma_addr(buf);
	Mr &mr = alloc_mr(pd, ~0u);

	for (u64 page = addr & PAGE_MASK; page < addr + len; page += PAGE_SIZE)
		mr.pages.push_back(page);
	mr.kind = MrKind::exposed;
	mr.iova = addr;
	mr.length = len;
	mr.access = access;
	mr.key_byte = mr.ibmr.rkey & 0xff;
	mr.valid = true;
	return &mr;
}

Mr *Hca::find_mr(u32 key)
{
	auto it = mrs_.find(key >> 8);

	return it == mrs_.end() ? nullptr : &it->second;
}

void connect(ib_qp *a, ib_qp *b)
{
	qp_of(a).peer = &qp_of(b);
	qp_of(b).peer = &qp_of(a);
}

std::vector<Completion> &completions(ib_qp *qp)
{
	return qp_of(qp).cq;
}

std::vector<Arrival> &received(ib_qp *qp)
{
	return qp_of(qp).received;
}

bool qp_in_error(ib_qp *qp)
{
	return qp_of(qp).error;
}

void set_qp_error(ib_qp *qp)
{
	qp_of(qp).error = true;
}

void set_max_send_wr(ib_qp *qp, u32 max_send_wr)
{
	qp_of(qp).max_send_wr = max_send_wr;
}

size_t queued(ib_qp *qp)
{
	return qp_of(qp).sq.size();
}

void set_post_sink(ib_qp *qp, bool on)
{
	qp_of(qp).sink = on;
}

void destroy_qp(ib_qp *qp)
{
	Qp &q = *static_cast<Qp *>(qp->sim);

	q.sq.clear();
	q.error = true;
	if (q.peer) {
		q.peer->error = true;
		q.peer->peer = nullptr;
		q.peer = nullptr;
	}
}

int post(ib_qp *qp, ib_send_wr *wr)
{
	const ib_send_wr *bad = nullptr;

	return ib_post_send(qp, wr, &bad);
}

// ---- the driver side of the verbs -------------------------------------------

// Like ib_sg_to_pages(), quirks included: it stops at a hole, or when the
// page list is full; then the page that filled the list is listed but the
// MR's bytes stop at that page's start, where the next MR is told to begin.
int Mr::map_sg(scatterlist *sgl, int sg_nents, unsigned int *sg_offset_p,
	       unsigned int page_size)
{
	unsigned int sg_offset = sg_offset_p ? *sg_offset_p : 0;
	const bool merges = hca->profile().merges_pages;
	u64 last_end = 0, last_page_off = 0;
	struct scatterlist *sg;
	u32 slots = 0;
	int i;

	if (page_size != PAGE_SIZE || sg_nents <= 0 ||
	    sg_offset > sg_dma_len(sgl))
		return -EINVAL;
	staged.clear();
	staged_iova = sg_dma_address(sgl) + sg_offset;
	staged_length = 0;
	ibmr.iova = staged_iova;
	ibmr.page_size = page_size;
	for_each_sg(sgl, sg, sg_nents, i) {
		u64 addr = sg_dma_address(sg) + sg_offset;
		u64 len = sg_dma_len(sg) - sg_offset;
		u64 end = addr + len;
		u64 page = addr & PAGE_MASK;
		u64 prev = addr;

		if (i && (last_page_off || page != addr)) {
			if (last_end != addr)
				break;		// a hole
			page += PAGE_SIZE;	// continues in the last page
		}
		for (; page < end; page += PAGE_SIZE) {
			bool merged = merges && !staged.empty() &&
				      staged.back() + PAGE_SIZE == page;

			if (!merged && slots == max_num_sg) {
				unsigned int off = prev - sg_dma_address(sg);

				staged_length += prev - addr;
				ibmr.length = staged_length;
				if (sg_offset_p)
					*sg_offset_p = off;
				return i || off ? i : -ENOMEM;
			}
			staged.push_back(page);
			slots += !merged;
			prev = page;
		}
		staged_length += len;
		last_end = end;
		last_page_off = end & ~PAGE_MASK;
		sg_offset = 0;
	}
	if (sg_offset_p)
		*sg_offset_p = 0;
	ibmr.length = staged_length;
	return i;
}

namespace {

bool is_read(ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ || op == IB_WR_RDMA_READ_WITH_INV;
}

bool is_send(ib_wr_opcode op)
{
	return op == IB_WR_SEND || op == IB_WR_SEND_WITH_INV;
}

// What a driver refuses before the WR reaches the queue.
bool post_check(const Qp &qp, const ib_send_wr &wr)
{
	const u32 max_sge = is_read(wr.opcode) ? qp.qp.max_read_sge :
						 qp.qp.max_write_sge;

	if (wr.num_sge < 0 || u32(wr.num_sge) > max_sge)
		return false;
	if (wr.opcode == IB_WR_RDMA_READ_WITH_INV && !qp.hca->profile().iwarp)
		return false;
	if (wr.opcode == IB_WR_REG_MR) {
		const ib_mr *mr = reg_wr(&wr)->mr;

		if (!mr || mr->device != qp.qp.device)
			return false;
	}
	return true;
}

// The device's copy of a posted WR.
SendWqe capture(const ib_send_wr &wr)
{
	SendWqe w = {.wr = wr};

	w.wr.next = nullptr;
	w.wr.sg_list = nullptr;
	if (wr.num_sge > 0)
		w.sges.assign(wr.sg_list, wr.sg_list + wr.num_sge);
	switch (wr.opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
	case IB_WR_RDMA_WRITE:
		w.remote_addr = rdma_wr(&wr)->remote_addr;
		w.rkey = rdma_wr(&wr)->rkey;
		break;
	case IB_WR_REG_MR:
		w.reg_mr = reg_wr(&wr)->mr;
		w.reg_key = reg_wr(&wr)->key;
		w.reg_access = reg_wr(&wr)->access;
		break;
	default:
		break;
	}
	return w;
}

} // namespace

int Qp::post(const ib_send_wr *wr, const ib_send_wr **bad_wr)
{
	if (sink) {
		for (; wr; wr = wr->next)
			sunk++;
		return 0;
	}
	// As drivers do: WR by WR, and the WRs before the one refused stay
	// posted.  A QP in error takes WRs too; they are flushed.
	for (; wr; wr = wr->next) {
		int ret = 0;

		if (!post_check(*this, *wr))
			ret = -EINVAL;
		else if (sq.size() >= max_send_wr)
			ret = -ENOMEM;
		if (ret) {
			if (bad_wr)
				*bad_wr = wr;
			return ret;
		}
		sq.push_back(capture(*wr));
	}
	return 0;
}

// ---- execution -------------------------------------------------------------

namespace {

// The host memory a WR reaches through its keys, in order, and whether all
// of it is still DMA-mapped.
struct Reach {
	std::vector<std::span<u8>> spans;
	bool mapped = true;

	// Add [addr, addr + len) of @mr; false if the MR does not hold it.
	bool add(const Mr &mr, u64 addr, u64 len);
};

bool Reach::add(const Mr &mr, u64 addr, u64 len)
{
	const size_t from = spans.size();

	if (mr.dma_mr()) {
		spans.emplace_back(host_ptr(addr), len);
		return true;
	}
	if (addr < mr.iova || len > mr.length ||
	    addr - mr.iova > mr.length - len)
		return false;
	u64 pos = (mr.iova & ~PAGE_MASK) + (addr - mr.iova);
	while (len) {
		u64 page = pos >> PAGE_SHIFT;
		u64 in_page = pos & ~PAGE_MASK;
		u64 n = std::min<u64>(len, PAGE_SIZE - in_page);

		if (page >= mr.pages.size())
			return false;
		spans.emplace_back(host_ptr(mr.pages[page] + in_page), n);
		pos += n;
		len -= n;
	}
	// A registered MR's pages came from DMA addresses: the memory must
	// still be mapped when the device reaches it through the MR.
	if (mr.kind != MrKind::registered)
		return true;
	for (std::span<u8> s : std::span(spans).subspan(from)) {
		u64 page = dma_addr(s.data()) & PAGE_MASK;

		if (!page_mapped(page)) {
			std::fprintf(stderr, "sim: DMA-API: key %#x reaches "
				     "unmapped page %#llx\n", mr.ibmr.lkey,
				     static_cast<unsigned long long>(page));
			counters().dma_api_errors++;
			mapped = false;
			break;
		}
	}
	return true;
}

// The lkey checks of the local side.
ib_wc_status check_local(Qp &qp, const ib_sge &sge, int need, bool read_sink,
			 Reach &into)
{
	const Profile &p = qp.hca->profile();
	const Mr *mr = qp.hca->find_mr(sge.lkey);

	if (!mr || mr->ibmr.pd != qp.qp.pd || !mr->valid ||
	    !mr->key_matches(sge.lkey) || (mr->access & need) != need)
		return IB_WC_LOC_PROT_ERR;
	if (read_sink && p.iwarp &&
	    !(mr->dma_mr() ? p.dma_lkey_read_sink :
			     (mr->access & IB_ACCESS_REMOTE_WRITE)))
		return IB_WC_LOC_PROT_ERR;
	if (!into.add(*mr, sge.addr, sge.length))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

// The rkey checks the responder makes.  A device that does not check the
// rights of READs (siw) still wants a valid key of the PD over the bytes:
// the PD's DMA MR (all memory) then passes too.
ib_wc_status check_remote(Qp &qp, u64 addr, u64 len, u32 rkey, int need,
			  Reach &into)
{
	const Qp *peer = qp.peer;
	const Mr *mr = peer ? peer->hca->find_mr(rkey) : nullptr;

	if (!mr)
		return IB_WC_REM_ACCESS_ERR;
	const bool rights = need != IB_ACCESS_REMOTE_READ ||
			    peer->hca->profile().checks_remote_read_access;

	if ((mr->dma_mr() && rights) || mr->ibmr.pd != peer->qp.pd ||
	    !mr->valid || !mr->key_matches(rkey) ||
	    (rights && (mr->access & need) != need) ||
	    !into.add(*mr, addr, len))
		return IB_WC_REM_ACCESS_ERR;
	return IB_WC_SUCCESS;
}

void copy_spans(std::span<const std::span<u8>> dst,
		std::span<const std::span<u8>> src)
{
	size_t di = 0, si = 0;
	u64 doff = 0, soff = 0;

	while (di < dst.size() && si < src.size()) {
		u64 n = std::min(dst[di].size() - doff, src[si].size() - soff);

		std::memmove(dst[di].data() + doff, src[si].data() + soff, n);
		doff += n;
		soff += n;
		if (doff == dst[di].size()) {
			di++;
			doff = 0;
		}
		if (soff == src[si].size()) {
			si++;
			soff = 0;
		}
	}
}

// The device writes (@device_writes) or reads @spans: each page the core
// mapped must be mapped in that direction.
void check_dma_dir(std::span<const std::span<u8>> spans, bool device_writes)
{
	for (std::span<u8> s : spans) {
		u64 first = dma_addr(s.data()) & PAGE_MASK;

		for (u64 page = first; page < dma_addr(s.data()) + s.size();
		     page += PAGE_SIZE) {
			if (page_dma_allows(page, device_writes))
				continue;
			std::fprintf(stderr, "sim: DMA-API: the device %s page "
				     "%#llx, mapped %s\n",
				     device_writes ? "writes" : "reads",
				     static_cast<unsigned long long>(page),
				     device_writes ? "DMA_TO_DEVICE" :
						     "DMA_FROM_DEVICE");
			counters().dma_api_errors++;
			return;
		}
	}
}

ib_wc_status exec_rdma(Qp &qp, const SendWqe &w)
{
	const bool read = is_read(w.wr.opcode);
	Reach local, remote;
	u64 total = 0;
	ib_wc_status st;

	for (const ib_sge &sge : w.sges) {
		st = check_local(qp, sge, read ? IB_ACCESS_LOCAL_WRITE : 0,
				 read, local);
		if (st != IB_WC_SUCCESS)
			return st;
		total += sge.length;
	}
	st = check_remote(qp, w.remote_addr, total, w.rkey,
			  read ? IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE,
			  remote);
	if (st != IB_WC_SUCCESS)
		return st;
	// A sink the core mapped for the device to read only (or a source
	// mapped for it to write only) is what an IOMMU refuses: counted.
	check_dma_dir(local.spans, read);
	// A device that serves READs without checking the key's rights (siw)
	// maps virtually: nothing refuses its read of a sink's pages.
	if (!read || qp.peer->hca->profile().checks_remote_read_access)
		check_dma_dir(remote.spans, !read);
	// Memory given back while a key still reached it: reported above; the
	// bytes are not moved, as they may belong to someone else by now.
	if (local.mapped && remote.mapped) {
		if (read)
			copy_spans(local.spans, remote.spans);
		else
			copy_spans(remote.spans, local.spans);
	}

	if (w.wr.opcode == IB_WR_RDMA_READ_WITH_INV) {
		const u32 key = w.wr.ex.invalidate_rkey;
		Mr *sink = qp.hca->find_mr(key);

		if (!sink || sink->dma_mr() || !sink->valid ||
		    !sink->key_matches(key))
			return IB_WC_LOC_PROT_ERR;
		sink->valid = false;
	}
	return IB_WC_SUCCESS;
}

ib_wc_status exec_reg(Qp &qp, const SendWqe &w)
{
	// The MR is found by its key: it may have been deregistered since
	// the WR was posted.
	Mr *mr = qp.hca->find_mr(w.reg_key);

	// REG_MR on a valid MR fails; so does a key of another MR, a remote
	// write without local write, and a registration with no page list.
	if (!mr || &mr->ibmr != w.reg_mr || mr->dma_mr() || mr->valid ||
	    mr->ibmr.pd != qp.qp.pd || mr->staged.empty())
		return IB_WC_MW_BIND_ERR;
	if ((w.reg_access & IB_ACCESS_REMOTE_WRITE) &&
	    !(w.reg_access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_MW_BIND_ERR;
	mr->pages = mr->staged;
	mr->iova = mr->staged_iova;
	mr->length = mr->staged_length;
	mr->access = w.reg_access;
	mr->key_byte = w.reg_key & 0xff;
	mr->valid = true;
	return IB_WC_SUCCESS;
}

ib_wc_status exec_local_inv(Qp &qp, const SendWqe &w)
{
	const u32 key = w.wr.ex.invalidate_rkey;
	Mr *mr = qp.hca->find_mr(key);

	if (!mr || mr->dma_mr() || !mr->valid || mr->ibmr.pd != qp.qp.pd ||
	    !mr->key_matches(key))
		return IB_WC_LOC_QP_OP_ERR;
	mr->valid = false;
	return IB_WC_SUCCESS;
}

// SEND and SEND_WITH_INV: the payload's lkeys are checked as a WRITE
// source's.  A SEND_WITH_INV kills the key it names at the responder, which
// must be a valid key of a fast-registered MR of the responder QP's PD (not
// the DMA MR, not an FMR handle: IBTA lets a Send invalidate only those and
// memory windows); else the responder refuses the request.  The message
// then completes a Receive of the responder.
ib_wc_status exec_send(Qp &qp, const SendWqe &w)
{
	Arrival a;
	Reach local;

	for (const ib_sge &sge : w.sges) {
		ib_wc_status st = check_local(qp, sge, 0, false, local);

		if (st != IB_WC_SUCCESS)
			return st;
		a.byte_len += sge.length;
	}
	if (w.wr.opcode == IB_WR_SEND_WITH_INV) {
		const u32 key = w.wr.ex.invalidate_rkey;
		Qp &peer = *qp.peer;
		Mr *mr = peer.hca->find_mr(key);

		if (!mr || mr->dma_mr() || mr->fmr || !mr->valid ||
		    mr->ibmr.pd != peer.qp.pd || !mr->key_matches(key))
			return IB_WC_REM_INV_REQ_ERR;
		mr->valid = false;
		a.wc_flags = IB_WC_WITH_INVALIDATE;
		a.invalidate_rkey = key;
	}
	qp.peer->received.push_back(a);
	return IB_WC_SUCCESS;
}

ib_wc_status execute(Qp &qp, const SendWqe &w)
{
	ib_wc_status st;

	switch (w.wr.opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		if (!qp.peer)
			return IB_WC_REM_OP_ERR;
		// A responder in error answers nothing: the requester gives up.
		if (qp.peer->error)
			return IB_WC_RETRY_EXC_ERR;
		st = is_send(w.wr.opcode) ? exec_send(qp, w) : exec_rdma(qp, w);
		// RC: the responder that refused the request breaks the
		// connection too; what it has queued is flushed.
		if (st == IB_WC_REM_ACCESS_ERR || st == IB_WC_REM_INV_REQ_ERR)
			qp.peer->error = true;
		return st;
	case IB_WR_REG_MR:
		return exec_reg(qp, w);
	case IB_WR_LOCAL_INV:
		return exec_local_inv(qp, w);
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

// Take the oldest WR off a send queue: execute it, or flush it if the QP is
// in error; a failure moves the QP to error.  A flushed WR always completes,
// an executed one when it failed or was signaled.
void run_one(Qp &qp)
{
	SendWqe w = std::move(qp.sq.front());
	ib_wc_status st;

	qp.sq.pop_front();
	w.wr.sg_list = w.sges.data();
	st = qp.error ? IB_WC_WR_FLUSH_ERR : execute(qp, w);
	if (st != IB_WC_SUCCESS)
		qp.error = true;
	if (st != IB_WC_SUCCESS || (w.wr.send_flags & IB_SEND_SIGNALED))
		qp.cq.push_back({w.wr.wr_cqe, st, w.wr.opcode});
	counters().wrs_executed++;
}

} // namespace

size_t step(ib_qp *qp, size_t n)
{
	Qp &q = qp_of(qp);
	size_t done = 0;

	for (; done < n && !q.sq.empty(); done++)
		run_one(q);
	return done;
}

size_t drain()
{
	size_t done = 0, before;

	do {
		before = done;
		// By index: a WR never creates or destroys a QP, but stay safe.
		for (size_t i = 0; i < live_qps().size(); i++)
			if (!live_qps()[i]->sq.empty()) {
				run_one(*live_qps()[i]);
				done++;
			}
	} while (done != before);
	return done;
}

size_t drain_random(uint64_t seed)
{
	std::mt19937_64 rng(seed);
	std::vector<Qp *> busy;
	size_t done = 0;

	for (;;) {
		busy.clear();
		for (Qp *qp : live_qps())
			if (!qp->sq.empty())
				busy.push_back(qp);
		if (busy.empty())
			return done;
		run_one(*busy[rng() % busy.size()]);
		done++;
	}
}

// ---- FMR callbacks of the FMR profile -------------------------------------

namespace {

// An FMR handle is the device MR behind it.
Mr &fmr_of(void *fmr)
{
	return *static_cast<Mr *>(fmr);
}

void *sim_fmr_alloc(struct ib_pd *pd, u32 max_pages)
{
	Hca &hca = hca_of(pd->device);

	if (max_pages > hca.profile().fmr_max_pages)
		return ERR_PTR(-EINVAL);
	Mr &mr = hca.alloc_mr(pd, max_pages);

	mr.fmr = true;
	return &mr;
}

int sim_fmr_map(void *fmr, const u64 *pages, u32 npages, u64 iova, u64 length,
		int access, u32 *key)
{
	Mr &mr = fmr_of(fmr);

	// Mapping a handle whose key was not flushed is what FMR forbids.
	if (mr.valid) {
		counters().fmr_remap_unflushed++;
		return -EBUSY;
	}
	if (!npages || npages > mr.max_num_sg ||
	    (iova & PAGE_MASK) != pages[0] ||
	    (iova & ~PAGE_MASK) + length > u64(npages) * PAGE_SIZE)
		return -EINVAL;
	mr.pages.assign(pages, pages + npages);
	mr.iova = iova;
	mr.length = length;
	mr.access = access;
	mr.key_byte++;
	mr.valid = true;
	mr.fmr_maps++;
	*key = mr.index << 8 | mr.key_byte;
	return 0;
}

int sim_fmr_unmap(void **fmrs, unsigned int n)
{
	for (void *fmr : std::span(fmrs, n))
		fmr_of(fmr).valid = false;
	counters().fmr_unmap_calls++;
	return 0;
}

void sim_fmr_free(void *fmr)
{
	Mr &mr = fmr_of(fmr);

	mr.hca->dereg_mr(&mr);
}

} // namespace

const rdma_fmr_ops kFmrOps = {
	.alloc = sim_fmr_alloc,
	.map = sim_fmr_map,
	.unmap = sim_fmr_unmap,
	.free = sim_fmr_free,
};

} // namespace sim
