// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: the life cycle of keys (rules 3 and 6 of the design).
//
// The input is a sequence of steps a ULP may take, each drawn from its
// bytes: map an rkey MR over a slot of local memory, invalidate it (a
// LOCAL_INV), have the peer invalidate it (SEND_WITH_INV, then
// rdma_mr_remote_invalidated(), with the right key or a wrong one), unmap,
// reset, destroy; build an I/O over a slot (READ or WRITE, a forced
// backend or none, a good or a wrong rkey), post it whole or only in part
// (a send queue too short), let the device run some WRs or all, break the
// QP (its WRs flush), destroy the I/O with the completion it got (success,
// error, flush) or without one, destroy the QP with work in flight, and
// reconnect.  The target plays a correct ULP: it follows the documented
// contract (no WR of an MR queued when it is unmapped or reset, the send
// queue drained before an I/O is destroyed without its completion).
//
// A peer on another connection to the same PD records every key it ever
// saw and, after every step, tries each one, WRITE and READ.  Invariant:
// no key reaches memory that was given back.  A key whose memory went back
// (unmap, reset, destroy, I/O destroy) is dead: any access through it must
// fail; the memory given back keeps the bytes its owner put there; and no
// key reaches memory that is no longer DMA-mapped (the simulator counts a
// DMA-API error).  Any violation aborts.  At the end nothing may be left.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "random_io.h"

namespace {

using mirror::Check;

constexpr unsigned int kSlots = 6;		// of kSlotPages pages each
constexpr unsigned int kSlotPages = 2;
constexpr unsigned int kMrs = 2;
constexpr unsigned int kIos = 2;
constexpr unsigned int kSteps = 48;
constexpr unsigned int kTryBytes = 16;
constexpr size_t kSlotBytes = kSlotPages * PAGE_SIZE;

struct Tally {
	unsigned long inputs, steps, tries, refused, keys;
} tally;

void Report()
{
	std::fprintf(stderr, "key_life: %lu inputs, %lu steps, %lu keys seen, "
		     "%lu tries by the peer (%lu refused)\n", tally.inputs,
		     tally.steps, tally.keys, tally.tries, tally.refused);
}

// A key the peer saw: its value, the address it was used at, and whether
// the memory it named was given back since.
struct Seen {
	u32 key;
	u64 iova;
	bool dead;
	unsigned int slot;
};

enum class MrState { kIdle, kMapped, kInvalidated };

struct MapMr {
	rdma_mr *mr = nullptr;
	MrState state = MrState::kIdle;
	int slot = -1;
	u32 key = 0;
	std::vector<size_t> seen;	// indices in World::seen_
	ib_cqe cqe{};			// its REG_MR and LOCAL_INV, signaled
	scatterlist sg[kSlotPages]{};
};

enum class IoState { kNone, kBuilt, kPosted, kPartial };

struct Io {
	rdma_io_ctx ctx{};
	IoState state = IoState::kNone;
	int slot = -1;
	std::vector<size_t> seen;
	ib_cqe cqe{};
	scatterlist sg[kSlotPages]{};
};

class World {
public:
	explicit World(const sim::Profile &p)
		: local_(p, "local"), peer_(sim::kRoce, "peer"),
		  arena_(static_cast<u8 *>(std::aligned_alloc(PAGE_SIZE,
							      kSlots * kSlotBytes))),
		  remote_(kSlotBytes * 2)
	{
		lpd_ = local_.alloc_pd();
		ppd_ = peer_.alloc_pd();
		Connect();
		rmr_ = peer_.expose(ppd_, remote_.data(), remote_.size(),
				    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
				    IB_ACCESS_LOCAL_WRITE);
		for (unsigned int s = 0; s < kSlots; s++)
			GiveBack(s);
		for (MapMr &m : mrs_) {
			m.mr = rdma_create_mr(lpd_, kSlotPages, RDMA_MR_ROLE_RKEY);
			Check(!IS_ERR(m.mr), "create MR");
			rdma_mr_set_cqe(m.mr, &m.cqe);
		}
	}

	~World()
	{
		// Everything back, as a ULP tearing down would.
		sim::set_qp_error(lqp_);
		sim::drain();
		for (unsigned int i = 0; i < kIos; i++)
			if (ios_[i].state != IoState::kNone)
				DestroyIo(i, false);
		for (unsigned int i = 0; i < kMrs; i++) {
			if (mrs_[i].state != MrState::kIdle)
				Check(!rdma_mr_reset(mrs_[i].mr), "reset at teardown");
			rdma_destroy_mr(mrs_[i].mr);
		}
		rdma_io_pool_destroy(pool_);
		peer_.dereg_mr(rmr_);
		std::free(arena_);
	}

	World(const World &) = delete;
	World &operator=(const World &) = delete;

	void Step(mirror::Source &in)
	{
		unsigned int op = in.u(1) % 14, i = in.u(1);

		switch (op) {
		case 0: Map(i % kMrs, in.u(1)); break;
		case 1: Invalidate(i % kMrs); break;
		case 2: RemoteInvalidate(i % kMrs, in.u(1) & 1); break;
		case 3: Unmap(i % kMrs); break;
		case 4: Reset(i % kMrs); break;
		case 5: DestroyMr(i % kMrs); break;
		case 6: InitIo(i % kIos, in.u(1)); break;
		case 7: PostIo(i % kIos, in.u(1)); break;
		case 8: sim::step(lqp_, 1 + in.u(1) % 4); break;
		case 9: sim::drain(); break;
		case 10: sim::set_qp_error(lqp_); break;
		case 11: DestroyIo(i % kIos, in.u(1) & 1); break;
		case 12: DestroyQp(); break;
		default: Reconnect(); break;
		}
		tally.steps++;
		PeerTriesEveryKey();
	}

private:
	void Connect()
	{
		lqp_ = local_.create_qp(lpd_);
		pqp_ = peer_.create_qp(ppd_);
		sim::connect(lqp_, pqp_);
		pool_ = rdma_io_pool_create(lqp_, 1, kIos, kSlotPages);
		Check(!IS_ERR(pool_), "pool create");
	}

	u8 *Slot(unsigned int s) { return arena_ + s * kSlotBytes; }

	// The owner has its memory back and puts its own bytes in it.
	void GiveBack(unsigned int s)
	{
		lent_[s] = false;
		gen_[s] = ++gens_;
		for (size_t b = 0; b < kSlotBytes; b++)
			Slot(s)[b] = Owner(s, b);
	}

	u8 Owner(unsigned int s, size_t b) const
	{
		return static_cast<u8>(mirror::Mix64(gen_[s] << 32 | b) & 0x7f);
	}

	int FreeSlot(unsigned int pick)
	{
		for (unsigned int k = 0; k < kSlots; k++) {
			unsigned int s = (pick + k) % kSlots;

			if (!lent_[s])
				return static_cast<int>(s);
		}
		return -1;
	}

	// The SG list over a slot: one or two entries, the first at an offset.
	unsigned int BuildSg(scatterlist *sg, unsigned int s, unsigned int pick)
	{
		unsigned int n = 1 + pick % kSlotPages;
		unsigned int off = pick & 0x80 ? (pick >> 2) % 8 * 64 : 0;

		for (unsigned int k = 0; k < n; k++) {
			sg[k] = scatterlist{};
			sg[k].buf = Slot(s) + k * PAGE_SIZE + (k ? 0 : off);
			sg[k].length = static_cast<unsigned int>(PAGE_SIZE -
								 (k ? 0 : off));
		}
		sg[n - 1].end = true;
		return n;
	}

	size_t Record(u32 key, u64 iova, unsigned int slot)
	{
		seen_.push_back({key, iova, false, slot});
		tally.keys++;
		return seen_.size() - 1;
	}

	void Kill(std::vector<size_t> &keys)
	{
		for (size_t k : keys)
			seen_[k].dead = true;
		keys.clear();
	}

	// The completion of @cqe on the local QP, if one came.
	const sim::Completion *CompletionOf(const ib_cqe *cqe)
	{
		auto &cq = sim::completions(lqp_);

		for (auto it = cq.rbegin(); it != cq.rend(); ++it)
			if (it->cqe == cqe)
				return &*it;
		return nullptr;
	}

	// ---- the map API ------------------------------------------------

	void Map(unsigned int i, unsigned int pick)
	{
		MapMr &m = mrs_[i];
		ib_send_wr *chain = nullptr;
		int s = FreeSlot(pick);
		u64 iova;
		u32 key;

		if (m.state != MrState::kIdle || s < 0)
			return;
		unsigned int n = BuildSg(m.sg, s, pick);
		int ret = rdma_map_sg_rkey(&key, &iova, m.mr, m.sg, n,
					   RDMA_MR_REMOTE_READ | RDMA_MR_REMOTE_WRITE,
					   &chain);
		if (ret) {
			Check(ret < 0, "map: positive return");
			return;
		}
		m.state = MrState::kMapped;
		m.slot = s;
		m.key = key;
		lent_[s] = true;
		m.seen.push_back(Record(key, iova, s));
		if (chain)
			Check(!sim::post(lqp_, chain), "post REG_MR");
	}

	void Invalidate(unsigned int i)
	{
		MapMr &m = mrs_[i];
		ib_send_wr *chain = nullptr;

		if (m.state != MrState::kMapped)
			return;
		Check(!rdma_invalidate_mr(m.mr, &chain), "invalidate");
		m.state = MrState::kInvalidated;
		if (chain)
			Check(!sim::post(lqp_, chain), "post LOCAL_INV");
	}

	// The peer's SEND_WITH_INV: the key dies in the HCA, then the ULP
	// tells the core.  The core must refuse a key that is not the MR's.
	void RemoteInvalidate(unsigned int i, bool wrong)
	{
		MapMr &m = mrs_[i];
		ib_send_wr inv{};
		ib_cqe cqe{};

		if (m.state != MrState::kMapped)
			return;
		if (wrong) {
			Check(rdma_mr_remote_invalidated(m.mr, m.key ^ 0x1) < 0,
			      "a wrong key taken as remotely invalidated");
			return;
		}
		// What the peer's SEND_WITH_INV does in the HCA, after the
		// registration ran.
		sim::drain();
		inv.opcode = IB_WR_LOCAL_INV;
		inv.ex.invalidate_rkey = m.key;
		inv.send_flags = IB_SEND_SIGNALED;
		inv.wr_cqe = &cqe;
		Check(!sim::post(lqp_, &inv), "post the peer's invalidation");
		sim::drain();
		const sim::Completion *c = CompletionOf(&cqe);
		if (!c || c->status != IB_WC_SUCCESS)
			return;		// the QP broke: no SEND came
		Check(!rdma_mr_remote_invalidated(m.mr, m.key),
		      "remote invalidation refused");
		m.state = MrState::kInvalidated;
	}

	// The ULP waits for the MR's WRs; unmap works once the key is known
	// dead, is refused (-EBUSY) while it grants remote access, and a
	// flushed invalidation leaves only rdma_mr_reset().
	void Unmap(unsigned int i)
	{
		MapMr &m = mrs_[i];

		if (m.state == MrState::kIdle)
			return;
		sim::drain();
		const sim::Completion *c = CompletionOf(&m.cqe);
		bool inv_ok = m.state == MrState::kInvalidated && c &&
			      c->status == IB_WC_SUCCESS;
		int ret;

		if (m.state == MrState::kInvalidated && !inv_ok) {
			Reset(i);
			return;
		}
		ret = rdma_unmap_mr(m.mr);
		if (m.state == MrState::kMapped) {
			Check(ret == -EBUSY, "unmap of a live rkey not refused");
			return;
		}
		Check(!ret, "unmap");
		Released(m);
	}

	void Reset(unsigned int i)
	{
		MapMr &m = mrs_[i];

		if (m.state == MrState::kIdle)
			return;
		sim::drain();
		Check(!rdma_mr_reset(m.mr), "reset");
		Released(m);
	}

	// Destroying a mapped MR is a caller bug that warns; its key must
	// die all the same.
	void DestroyMr(unsigned int i)
	{
		MapMr &m = mrs_[i];

		sim::drain();
		if (m.state != MrState::kIdle)
			warnings_++;
		rdma_destroy_mr(m.mr);
		if (m.state != MrState::kIdle)
			Released(m);
		m.mr = rdma_create_mr(lpd_, kSlotPages, RDMA_MR_ROLE_RKEY);
		Check(!IS_ERR(m.mr), "create MR");
		rdma_mr_set_cqe(m.mr, &m.cqe);
	}

	void Released(MapMr &m)
	{
		Kill(m.seen);
		GiveBack(m.slot);
		m.slot = -1;
		m.state = MrState::kIdle;
	}

	// ---- the READ/WRITE helper ------------------------------------

	void InitIo(unsigned int i, unsigned int pick)
	{
		static const char *const forced[] = {nullptr, "frwr", "iwarp",
						     "multiread"};
		Io &io = ios_[i];
		int s = FreeSlot(pick);

		if (io.state != IoState::kNone || s < 0)
			return;
		bool read = pick & 1;
		bool bad = (pick & 6) == 6;
		unsigned int n = BuildSg(io.sg, s, pick >> 3);

		rdma_io_pool_force_backend(pool_, forced[(pick >> 4) % 4]);
		int ret = rdma_io_ctx_init(&io.ctx, pool_, io.sg, n, 0,
					   reinterpret_cast<uintptr_t>(remote_.data()),
					   rmr_->ibmr.rkey ^ (bad ? 0x80 : 0),
					   read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
		if (ret <= 0) {
			Check(ret < 0, "I/O init returned 0");
			return;
		}
		io.state = IoState::kBuilt;
		io.slot = s;
		lent_[s] = true;
		for (u32 k = 0; k < io.ctx.nr_mrs; k++)
			io.seen.push_back(Record(io.ctx.mrs[k]->key,
						 io.ctx.mrs[k]->iova, s));
	}

	// Post whole, or with room for only part of the chain.
	void PostIo(unsigned int i, unsigned int pick)
	{
		Io &io = ios_[i];

		if (io.state != IoState::kBuilt)
			return;
		io.cqe = ib_cqe{};
		bool partial = pick & 1 && io.ctx.nr_wrs > 1;
		if (partial)
			sim::set_max_send_wr(lqp_, static_cast<u32>(
				sim::queued(lqp_) + pick / 2 % io.ctx.nr_wrs));
		int ret = rdma_io_ctx_post(&io.ctx, &io.cqe, nullptr);
		sim::set_max_send_wr(lqp_, 1024);
		if (!ret)
			io.state = IoState::kPosted;
		else if (ret == -EINPROGRESS)
			io.state = IoState::kPartial;
		else
			Check(ret < 0 && partial, "post refused");
	}

	// As the contract asks: with the completion of its last WR, or after
	// the send queue was drained (the QP to error) without one.
	void DestroyIo(unsigned int i, bool without_wc)
	{
		Io &io = ios_[i];
		ib_wc wc{};

		if (io.state == IoState::kNone)
			return;
		if (io.state == IoState::kPartial) {
			sim::set_qp_error(lqp_);
			sim::drain();
			rdma_io_ctx_destroy(&io.ctx, nullptr);
		} else if (io.state == IoState::kPosted) {
			sim::drain();
			const sim::Completion *c = CompletionOf(&io.cqe);
			Check(c || broken_, "no completion of a posted I/O");
			wc.status = c ? c->status : IB_WC_WR_FLUSH_ERR;
			rdma_io_ctx_destroy(&io.ctx, without_wc ? nullptr : &wc);
		} else {
			rdma_io_ctx_destroy(&io.ctx, nullptr);
		}
		Kill(io.seen);
		GiveBack(io.slot);
		io.slot = -1;
		io.state = IoState::kNone;
	}

	// ---- the connection ---------------------------------------------

	// The QP goes with work in flight: no completion comes for it.  The
	// ULP then destroys its I/Os without one, resets its MRs whose WRs
	// were lost, and connects again.
	void DestroyQp()
	{
		sim::destroy_qp(lqp_);
		broken_ = true;
		for (unsigned int i = 0; i < kIos; i++)
			if (ios_[i].state != IoState::kNone)
				DestroyIo(i, true);
		for (unsigned int i = 0; i < kMrs; i++)
			Reset(i);
		Reconnect();
	}

	void Reconnect()
	{
		for (const Io &io : ios_)
			if (io.state != IoState::kNone)
				return;
		sim::set_qp_error(lqp_);
		sim::drain();
		// MRs whose WRs were flushed with the old QP: their keys'
		// state is unknown, as after any flush.
		for (unsigned int i = 0; i < kMrs; i++)
			Reset(i);
		rdma_io_pool_destroy(pool_);
		Connect();
		broken_ = false;
	}

	// ---- the peer -------------------------------------------------------

	// One access of the peer on a connection of its own to the local PD;
	// a refused access breaks it, and the next try gets a new one.
	ib_wc_status Try(ib_wr_opcode op, const Seen &k)
	{
		if (!atk_local_ || sim::qp_in_error(atk_peer_) ||
		    sim::qp_in_error(atk_local_)) {
			atk_local_ = local_.create_qp(lpd_);
			atk_peer_ = peer_.create_qp(ppd_);
			sim::connect(atk_local_, atk_peer_);
		}
		ib_sge sge = {reinterpret_cast<uintptr_t>(buf_.data()), kTryBytes,
			      ppd_->local_dma_lkey};
		ib_rdma_wr wr{};
		ib_cqe cqe{};

		wr.wr.opcode = op;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.wr.wr_cqe = &cqe;
		wr.remote_addr = k.iova;
		wr.rkey = k.key;
		auto &cq = sim::completions(atk_peer_);
		size_t before = cq.size();
		Check(!sim::post(atk_peer_, &wr.wr), "the peer's post");
		sim::step(atk_peer_, 1);
		// The responder's side of an access is not queued: nothing
		// on the local attacker QP to run.
		Check(cq.size() == before + 1, "the peer's access did not complete");
		return cq.back().status;
	}

	void PeerTriesEveryKey()
	{
		long dma_errors = sim::counters().dma_api_errors;

		for (const Seen &k : seen_) {
			for (ib_wr_opcode op : {IB_WR_RDMA_WRITE, IB_WR_RDMA_READ}) {
				for (size_t b = 0; b < kTryBytes; b++)
					buf_[b] = static_cast<u8>(0x80 | b);
				ib_wc_status st = Try(op, k);

				tally.tries++;
				tally.refused += st != IB_WC_SUCCESS;
				if (k.dead && st == IB_WC_SUCCESS) {
					std::fprintf(stderr, "key_life: the peer's %s "
						     "through dead key 0x%x at 0x%llx "
						     "succeeded\n",
						     op == IB_WR_RDMA_WRITE ?
						     "WRITE" : "READ", k.key,
						     static_cast<unsigned long long>(k.iova));
					std::abort();
				}
			}
		}
		for (unsigned int s = 0; s < kSlots; s++) {
			if (lent_[s])
				continue;
			for (size_t b = 0; b < kSlotBytes; b++)
				Check(Slot(s)[b] == Owner(s, b),
				      "memory given back changed");
		}
		Check(sim::counters().dma_api_errors == dma_errors,
		      "a key reached memory no longer DMA-mapped");
	}

public:
	long warnings_ = 0;

private:
	sim::Hca local_, peer_;
	ib_pd *lpd_, *ppd_;
	ib_qp *lqp_ = nullptr, *pqp_ = nullptr;
	ib_qp *atk_local_ = nullptr, *atk_peer_ = nullptr;
	rdma_io_pool *pool_ = nullptr;
	sim::Mr *rmr_;
	u8 *arena_;
	std::vector<u8> remote_;
	std::array<u8, kTryBytes> buf_{};
	std::array<bool, kSlots> lent_{};
	std::array<u64, kSlots> gen_{};
	u64 gens_ = 0;
	std::array<MapMr, kMrs> mrs_;
	std::array<Io, kIos> ios_;
	std::vector<Seen> seen_;
	bool broken_ = false;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const sim::Profile *profiles[] = {&sim::kRoce, &sim::kIwarp,
						 &sim::kSiw};
	static const bool reporting = std::atexit(Report) == 0;
	mirror::ByteSource in(data, size);
	const sim::Profile &p = *profiles[in.u(1) % 3];
	long warnings;

	Check(reporting, "atexit");
	Check(mirror_module_init() == 0, "module init");
	tally.inputs++;
	{
		World w(p);

		for (unsigned int n = 0; n < kSteps && in.n; n++)
			w.Step(in);
		warnings = w.warnings_;
	}
	mirror_module_exit();
	Check(sim::counters().warnings == warnings, "unexpected WARN");
	sim::counters().warnings = 0;
	Check(mirror::NothingLeft(), "leak or misuse at teardown");
	return 0;
}
