// SPDX-License-Identifier: GPL-2.0-only
//
// Simulated HCA: verbs shims and the WR execution engine.
#include "hca.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace sim {

const Profile kRoce = {"roce", false, 32, 32, 512, true, false};
const Profile kIwarp = {"iwarp", true, 6, 1, 256, true, false};
const Profile kSiw = {"siw",	true, 6, 1, 256, true, true, 0, true, false,
		      RDMA_DRIVER_SIW};
const Profile kNoFastReg = {"nofastreg", false, 16, 16, 0, false, false};
const Profile kFmr = {"fmr", false, 30, 30, 0, false, false, 256};

Counters &counters()
{
	static Counters c;
	return c;
}

static bool &dma_page_tracking()
{
	static bool on = true;
	return on;
}

void set_dma_page_tracking(bool on)
{
	dma_page_tracking() = on;
}

static bool &alloc_poison()
{
	static bool on = true;
	return on;
}

void set_alloc_poison(bool on)
{
	alloc_poison() = on;
}

namespace {
// Registered devices and the client, as ib_core keeps them: a client sees
// add() for every device there is or comes, and remove() when either goes.
std::vector<ib_device *> &live_devices()
{
	static std::vector<ib_device *> v;
	return v;
}

ib_client *&registered_client()
{
	static ib_client *c;
	return c;
}

// Every QP of every device, oldest first: what drain() lets run.
std::vector<Qp *> &live_qps()
{
	static std::vector<Qp *> v;
	return v;
}
} // namespace

Hca::Hca(const Profile &profile, const char *name) : profile_(profile)
{
	std::snprintf(dev_.name, sizeof(dev_.name), "%s", name);
	dev_.ops.driver_id = profile.driver_id;
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
	live_devices().push_back(&dev_);
	if (registered_client() && registered_client()->add(&dev_))
		std::fprintf(stderr, "sim: %s: client add failed\n", dev_.name);
}

Hca::~Hca()
{
	auto &devs = live_devices();

	devs.erase(std::find(devs.begin(), devs.end(), &dev_));
	if (registered_client() && dev_.client_data)
		registered_client()->remove(&dev_, dev_.client_data);
	for (auto &qp : qps_) {
		auto &all = live_qps();

		all.erase(std::find(all.begin(), all.end(), qp.get()));
		if (qp->peer)
			qp->peer->peer = nullptr;
	}
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

ib_qp *Hca::create_qp(ib_pd *pd, u32 max_send_wr)
{
	auto qp = std::make_unique<Qp>();
	qp->max_send_wr = max_send_wr ? max_send_wr : dev_.attrs.max_qp_wr;
	qp->qp.device = &dev_;
	qp->qp.pd = pd;
	// As ib_create_qp() sets them for a QP asking for the device's maximum.
	qp->qp.max_write_sge = profile_.max_send_sge;
	qp->qp.max_read_sge = std::min(profile_.max_send_sge,
				       profile_.max_sge_rd);
	qp->qp.sim = qp.get();
	qp->hca = this;
	live_qps().push_back(qp.get());
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

Mr *Hca::expose(ib_pd *pd, void *buf, u64 len, int access)
{
	u64 addr = reinterpret_cast<uintptr_t>(buf);
	Mr *mr = alloc_mr(pd, ~0u);

	for (u64 page = addr & PAGE_MASK; page < addr + len; page += PAGE_SIZE)
		mr->pages.push_back(page);
	mr->iova = addr;
	mr->length = len;
	mr->access = access;
	mr->key_byte = mr->ibmr.rkey & 0xff;
	mr->valid = true;
	mr->exposed = true;
	return mr;
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

void set_qp_error(ib_qp *qp)
{
	static_cast<Qp *>(qp->sim)->error = true;
}

void set_max_send_wr(ib_qp *qp, u32 max_send_wr)
{
	static_cast<Qp *>(qp->sim)->max_send_wr = max_send_wr;
}

size_t queued(ib_qp *qp)
{
	return static_cast<Qp *>(qp->sim)->sq.size();
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

namespace {
void run_one(Qp &qp);
} // namespace

size_t step(ib_qp *qp, size_t n)
{
	Qp &q = *static_cast<Qp *>(qp->sim);
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

// ---- execution -------------------------------------------------------------

namespace {

struct Span {
	u8 *p;
	u64 len;
};

// What ib_dma_map_sg() mapped: each list, and how many live mappings hold
// each page, so that a registered MR reaching memory already unmapped is
// seen (what an IOMMU would fault on).
struct DmaMap {
	int nents;
	int dir;
	std::vector<u64> pages;
};

std::unordered_map<const scatterlist *, DmaMap> &dma_maps()
{
	static std::unordered_map<const scatterlist *, DmaMap> m;
	return m;
}


std::unordered_map<u64, int> &mapped_pages()
{
	static std::unordered_map<u64, int> m;
	return m;
}

std::unordered_map<const void *, size_t> &allocations()
{
	static std::unordered_map<const void *, size_t> m;
	return m;
}

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

// A registered MR's pages came from DMA addresses: the memory must still be
// mapped when the device reaches it through the MR.
bool still_mapped(const Mr &mr, const std::vector<Span> &spans, size_t from)
{
	if (mr.dma_mr || mr.exposed || !dma_page_tracking())
		return true;
	for (size_t i = from; i < spans.size(); i++) {
		u64 page = reinterpret_cast<uintptr_t>(spans[i].p) & PAGE_MASK;

		if (!mapped_pages().count(page)) {
			std::fprintf(stderr, "sim: DMA-API: key %#x reaches unmapped page %#llx\n",
				     mr.ibmr.lkey, static_cast<unsigned long long>(page));
			counters().dma_api_errors++;
			return false;
		}
	}
	return true;
}

// The lkey checks of the local side.
ib_wc_status check_local(Qp &qp, const ib_sge &sge, int need, bool read_sink,
			 std::vector<Span> *out, bool *mapped)
{
	Mr *mr = qp.hca->find_mr(sge.lkey);
	size_t from = out->size();

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
	*mapped &= still_mapped(*mr, *out, from);
	return IB_WC_SUCCESS;
}

// The rkey checks the responder makes.  A device that does not check the
// rights of READs (siw) still wants a valid key of the PD over the bytes:
// the PD's DMA MR (all memory) then passes too.
ib_wc_status check_remote(Qp &qp, u64 addr, u64 len, u32 rkey, int need,
			  std::vector<Span> *out, bool *mapped)
{
	Qp *peer = qp.peer;
	Mr *mr = peer ? peer->hca->find_mr(rkey) : nullptr;
	bool rights = need != IB_ACCESS_REMOTE_READ ||
		      peer->hca->profile().checks_remote_read_access;

	if (!mr || (mr->dma_mr && rights) || mr->ibmr.pd != peer->qp.pd ||
	    !mr->valid || (!mr->dma_mr && (rkey & 0xff) != mr->key_byte) ||
	    (rights && (mr->access & need) != need) ||
	    !translate(*mr, addr, len, out)) {
		if (getenv("SIM_DEBUG"))
			fprintf(stderr, "sim: remote check failed: mr %p rkey %x valid %d keybyte %x access %x need %x addr %llx len %llu iova %llx length %llu\n", (void*)mr, rkey, mr ? mr->valid : -1, mr ? mr->key_byte : 0, mr ? mr->access : 0, need, (unsigned long long)addr, (unsigned long long)len, mr ? (unsigned long long)mr->iova : 0ull, mr ? (unsigned long long)mr->length : 0ull);
		return IB_WC_REM_ACCESS_ERR;
	}
	*mapped &= still_mapped(*mr, *out, 0);
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

ib_wc_status exec_rdma(Qp &qp, const SendWqe &w)
{
	const ib_send_wr &wr = w.wr;
	bool read = wr.opcode == IB_WR_RDMA_READ ||
		    wr.opcode == IB_WR_RDMA_READ_WITH_INV;
	std::vector<Span> local, remote;
	bool mapped = true;
	u64 total = 0;
	ib_wc_status st;

	for (const ib_sge &sge : w.sges) {
		st = check_local(qp, sge, read ? IB_ACCESS_LOCAL_WRITE : 0, read,
				 &local, &mapped);
		if (st != IB_WC_SUCCESS)
			return st;
		total += sge.length;
	}
	st = check_remote(qp, w.remote_addr, total, w.rkey,
			  read ? IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE,
			  &remote, &mapped);
	if (st != IB_WC_SUCCESS)
		return st;
	// Memory given back while a key still reached it: reported above; the
	// bytes are not moved, as they may belong to someone else by now.
	if (mapped) {
		if (read)
			copy_spans(local, remote);
		else
			copy_spans(remote, local);
	}

	if (wr.opcode == IB_WR_RDMA_READ_WITH_INV) {
		Mr *sink = qp.hca->find_mr(wr.ex.invalidate_rkey);

		if (!sink || sink->dma_mr || !sink->valid ||
		    (wr.ex.invalidate_rkey & 0xff) != sink->key_byte)
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
	if (!mr || &mr->ibmr != w.reg_mr || mr->dma_mr || mr->valid ||
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
	Mr *mr = qp.hca->find_mr(w.wr.ex.invalidate_rkey);

	if (!mr || mr->dma_mr || !mr->valid || mr->ibmr.pd != qp.qp.pd ||
	    (w.wr.ex.invalidate_rkey & 0xff) != mr->key_byte)
		return IB_WC_LOC_QP_OP_ERR;
	mr->valid = false;
	return IB_WC_SUCCESS;
}

ib_wc_status execute(Qp &qp, const SendWqe &w)
{
	ib_wc_status st;

	switch (w.wr.opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
	case IB_WR_RDMA_WRITE:
		if (!qp.peer)
			return IB_WC_REM_OP_ERR;
		// A responder in error answers nothing: the requester gives up.
		if (qp.peer->error)
			return IB_WC_RETRY_EXC_ERR;
		st = exec_rdma(qp, w);
		// RC: the responder that refused the access breaks the
		// connection too; what it has queued is flushed.
		if (st == IB_WC_REM_ACCESS_ERR)
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

// What a driver refuses before the WR reaches the queue.
bool post_check(const Qp &qp, const ib_send_wr &wr)
{
	const Profile &p = qp.hca->profile();
	bool read = wr.opcode == IB_WR_RDMA_READ ||
		    wr.opcode == IB_WR_RDMA_READ_WITH_INV;

	if (wr.num_sge < 0 ||
	    u32(wr.num_sge) > (read ? qp.qp.max_read_sge : qp.qp.max_write_sge))
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

// The device's copy of a posted WR.
SendWqe capture(const ib_send_wr &wr)
{
	SendWqe w;

	w.wr = wr;
	w.wr.next = nullptr;
	if (wr.num_sge > 0)
		w.sges.assign(wr.sg_list, wr.sg_list + wr.num_sge);
	w.wr.sg_list = nullptr;
	switch (wr.opcode) {
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
	case IB_WR_RDMA_WRITE: {
		const ib_rdma_wr &rdma = *reinterpret_cast<const ib_rdma_wr *>(&wr);

		w.remote_addr = rdma.remote_addr;
		w.rkey = rdma.rkey;
		break;
	}
	case IB_WR_REG_MR: {
		const ib_reg_wr &reg = *reinterpret_cast<const ib_reg_wr *>(&wr);

		w.reg_mr = reg.mr;
		w.reg_key = reg.key;
		w.reg_access = reg.access;
		break;
	}
	default:
		break;
	}
	return w;
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

extern "C" void *mirror_kmalloc(size_t size)
{
	void *p = std::malloc(size ? size : 1);

	if (p) {
		if (sim::alloc_poison())
			std::memset(p, 0xa5, size);
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

extern "C" int ib_register_client(struct ib_client *client)
{
	sim::registered_client() = client;
	for (ib_device *dev : sim::live_devices())
		if (client->add(dev))
			std::fprintf(stderr, "sim: %s: client add failed\n",
				     dev->name);
	return 0;
}

extern "C" void ib_unregister_client(struct ib_client *client)
{
	for (ib_device *dev : sim::live_devices())
		if (dev->client_data)
			client->remove(dev, dev->client_data);
	sim::registered_client() = nullptr;
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

// Like ib_sg_to_pages(), quirks included: it stops at a hole, or when the
// page list is full; then the page that filled the list is listed but the
// MR's bytes stop at that page's start, where the next MR is told to begin.
extern "C" int ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sgl,
			    int sg_nents, unsigned int *sg_offset_p,
			    unsigned int page_size)
{
	Mr *mr = reinterpret_cast<Mr *>(ibmr);
	unsigned int sg_offset = sg_offset_p ? *sg_offset_p : 0;
	u64 last_end = 0, last_page_off = 0;
	struct scatterlist *sg;
	int i;

	if (page_size != PAGE_SIZE || sg_nents <= 0 ||
	    sg_offset > sg_dma_len(sgl))
		return -EINVAL;
	u32 slots = 0;

	mr->staged.clear();
	mr->staged_iova = sg_dma_address(sgl) + sg_offset;
	mr->staged_length = 0;
	ibmr->iova = mr->staged_iova;
	ibmr->page_size = page_size;
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
			bool merged = mr->hca->profile().merges_pages &&
				      !mr->staged.empty() &&
				      mr->staged.back() + PAGE_SIZE == page;

			if (!merged && slots == mr->max_num_sg) {
				unsigned int off = prev - sg_dma_address(sg);

				mr->staged_length += prev - addr;
				ibmr->length = mr->staged_length;
				if (sg_offset_p)
					*sg_offset_p = off;
				return i || off ? i : -ENOMEM;
			}
			mr->staged.push_back(page);
			slots += !merged;
			prev = page;
		}
		mr->staged_length += len;
		last_end = end;
		last_page_off = end & ~PAGE_MASK;
		sg_offset = 0;
	}
	if (sg_offset_p)
		*sg_offset_p = 0;
	ibmr->length = mr->staged_length;
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
	DmaMap map = {nents, dir, {}};

	for_each_sg(sgl, sg, nents, i) {
		u64 addr = reinterpret_cast<uintptr_t>(sg->buf);

		sg->dma_address = addr;
		sg->dma_length = sg->length;
		for (u64 p = addr & PAGE_MASK;
		     dma_page_tracking() && p < addr + sg->length; p += PAGE_SIZE)
			map.pages.push_back(p);
	}
	for (u64 p : map.pages)
		mapped_pages()[p]++;
	dma_maps()[sgl] = std::move(map);
	counters().dma_maps_live++;
	return nents;
}

extern "C" void ib_dma_unmap_sg(struct ib_device *dev, struct scatterlist *sgl,
				int nents, enum dma_data_direction dir)
{
	auto it = dma_maps().find(sgl);

	// What CONFIG_DMA_API_DEBUG checks: same list, same count, same
	// direction as the map.
	if (it == dma_maps().end() || it->second.nents != nents ||
	    it->second.dir != dir) {
		std::fprintf(stderr, "sim: DMA-API: bad unmap of %p\n",
			     static_cast<void *>(sgl));
		counters().dma_api_errors++;
		return;
	}
	for (u64 p : it->second.pages)
		if (!--mapped_pages()[p])
			mapped_pages().erase(p);
	dma_maps().erase(it);
	counters().dma_maps_live--;
}

extern "C" int ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			    const struct ib_send_wr **bad_wr)
{
	Qp &qp = *static_cast<Qp *>(ibqp->sim);

	// As drivers do: WR by WR, and the WRs before the one refused stay
	// posted.  A QP in error takes WRs too; they are flushed.
	for (; wr; wr = wr->next) {
		int ret = 0;

		if (!post_check(qp, *wr))
			ret = -EINVAL;
		else if (qp.sq.size() >= qp.max_send_wr)
			ret = -ENOMEM;
		if (ret) {
			if (bad_wr)
				*bad_wr = wr;
			return ret;
		}
		qp.sq.push_back(capture(*wr));
	}
	return 0;
}

extern "C" ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		std::memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	std::memcpy(dst, src, len + 1);
	return static_cast<ssize_t>(len);
}

// Module parameters are set by the tests directly, never through these.
extern "C" int param_set_copystring(const char *val,
				    const struct kernel_param *kp)
{
	return 0;
}

extern "C" int param_get_string(char *buffer, const struct kernel_param *kp)
{
	return 0;
}

extern "C" char *strim(char *s)
{
	size_t n = std::strlen(s);

	while (n && std::isspace(static_cast<unsigned char>(s[n - 1])))
		s[--n] = '\0';
	while (*s && std::isspace(static_cast<unsigned char>(*s)))
		s++;
	return s;
}

extern "C" bool schedule_work(struct work_struct *work)
{
	bool was = work->pending;

	work->pending = true;
	return !was;
}

extern "C" bool flush_work(struct work_struct *work)
{
	if (!work->pending)
		return false;
	work->pending = false;
	work->func(work);
	return true;
}

// debugfs: files by path ("rdma_mrcore/devices/local/counters"); a dentry
// is its path, interned.
namespace {
std::map<std::string, std::pair<const file_operations *, void *>> &
debugfs_files()
{
	static std::map<std::string, std::pair<const file_operations *, void *>> m;
	return m;
}

std::string debugfs_path(struct dentry *parent, const char *name)
{
	if (!parent)
		return name;
	return *reinterpret_cast<const std::string *>(parent) + "/" + name;
}
} // namespace

extern "C" struct dentry *debugfs_create_dir(const char *name,
					     struct dentry *parent)
{
	static std::set<std::string> dirs;
	const std::string &path = *dirs.insert(debugfs_path(parent, name)).first;

	return reinterpret_cast<struct dentry *>(const_cast<std::string *>(&path));
}

extern "C" struct dentry *debugfs_create_file(const char *name,
					      unsigned short mode,
					      struct dentry *parent, void *data,
					      const struct file_operations *fops)
{
	debugfs_files()[debugfs_path(parent, name)] = {fops, data};
	return nullptr;
}

extern "C" void debugfs_remove_recursive(struct dentry *d)
{
	if (!d)
		return;
	const std::string prefix = debugfs_path(d, "");
	auto &m = debugfs_files();

	for (auto it = m.lower_bound(prefix);
	     it != m.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
		it = m.erase(it);
}

extern "C" const struct file_operations *mirror_debugfs_fops(const char *name)
{
	auto it = debugfs_files().find(name);

	return it == debugfs_files().end() ? nullptr : it->second.first;
}

extern "C" void *mirror_debugfs_data(const char *name)
{
	auto it = debugfs_files().find(name);

	return it == debugfs_files().end() ? nullptr : it->second.second;
}

extern "C" loff_t default_llseek(struct file *f, loff_t off, int whence)
{
	return off;
}

extern "C" unsigned long copy_from_user(void *to, const void *from,
					unsigned long n)
{
	std::memcpy(to, from, n);
	return 0;
}

extern "C" ssize_t simple_read_from_buffer(void *to, size_t count,
					   loff_t *ppos, const void *from,
					   size_t available)
{
	if (*ppos < 0)
		return -EINVAL;
	if (static_cast<size_t>(*ppos) >= available || !count)
		return 0;
	size_t n = std::min(count, available - static_cast<size_t>(*ppos));

	std::memcpy(to, static_cast<const char *>(from) + *ppos, n);
	*ppos += n;
	return static_cast<ssize_t>(n);
}

// ---- FMR callbacks of the FMR profile ----------------------------------------

namespace {

void *sim_fmr_alloc(struct ib_pd *pd, u32 max_pages)
{
	Hca *hca = static_cast<Hca *>(pd->device->sim);

	if (max_pages > hca->profile().fmr_max_pages)
		return ERR_PTR(-EINVAL);
	return hca->alloc_mr(pd, max_pages);
}

int sim_fmr_map(void *fmr, const u64 *pages, u32 npages, u64 iova, u64 length,
		int access, u32 *key)
{
	Mr *mr = static_cast<Mr *>(fmr);

	// Mapping a handle whose key was not flushed is what FMR forbids.
	if (mr->valid) {
		counters().fmr_remap_unflushed++;
		return -EBUSY;
	}
	if (!npages || npages > mr->max_num_sg ||
	    (iova & PAGE_MASK) != pages[0] ||
	    (iova & ~PAGE_MASK) + length > u64(npages) * PAGE_SIZE)
		return -EINVAL;
	mr->pages.assign(pages, pages + npages);
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->key_byte++;
	mr->valid = true;
	mr->fmr_maps++;
	*key = mr->index << 8 | mr->key_byte;
	return 0;
}

int sim_fmr_unmap(void **fmrs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		static_cast<Mr *>(fmrs[i])->valid = false;
	counters().fmr_unmap_calls++;
	return 0;
}

void sim_fmr_free(void *fmr)
{
	Mr *mr = static_cast<Mr *>(fmr);

	mr->hca->dereg_mr(mr);
}

} // namespace

namespace sim {
const rdma_fmr_ops kFmrOps = {sim_fmr_alloc, sim_fmr_map, sim_fmr_unmap,
			      sim_fmr_free};
} // namespace sim
