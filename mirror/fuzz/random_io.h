// SPDX-License-Identifier: GPL-2.0-only
//
// One random I/O through the helper on the simulated HCA, checked for what
// it claims: shared by the io_chain fuzzer (input bytes drive it) and the
// soak (a PRNG drives it).
//
// Before each I/O the source is filled with position-unique data and the
// sink poisoned (../tests/pattern.h), over the bytes the I/O touches plus a
// guard.  Then either
//  - it moved: the sink holds the source's bytes where the SG list and the
//    offset say and nowhere else, the source is unchanged (the direction),
//    the guards are unchanged, a forced backend is the one that moved it,
//    an iWARP READ sink's key is dead, and on a device that lets the peer
//    READ through any live key (siw) every key of the I/O is; or
//  - it was refused, for a reason the run can name: an armed fault that
//    fired during this I/O (dma_map, map_short, pool_empty, post_send,
//    post_wr on the chain's first WR), a forced backend that cannot serve
//    this device and direction, or the documented limit of a dry pool
//    where no fallback applies (an iWARP READ, whose sink must be an MR,
//    or a forced backend); memory is unchanged, and a failed post's keys
//    are dead when its destroy returns; or
//  - it was posted in part (post_wr fired on a later WR: -EINPROGRESS):
//    the driver holds exactly the WRs before the refused one, which run or
//    are flushed when the QP's send queue is drained (as ib_drain_sq()
//    does: the QP goes to the error state), each flushed one completing,
//    the unposted last WR never; the destroy without a completion then
//    leaves no key the I/O registered on the device and nothing
//    DMA-mapped; the source is unchanged and each sink byte holds either
//    what it held or what the whole I/O would have put there.  The QP is
//    in error afterwards (broken()).
// Anything else is a failure: counted by the soak, which then exits
// non-zero, fatal in the fuzzer.
#ifndef MRCORE_MIRROR_RANDOM_IO_H
#define MRCORE_MIRROR_RANDOM_IO_H

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hca.h"
#include "sg_model.h"
#include "../tests/pattern.h"

namespace mirror {

inline void Check(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "random I/O: %s\n", what);
		std::abort();
	}
}

// Bytes in, numbers out; zeros once the bytes run out.
struct Source {
	virtual ~Source() = default;
	virtual uint32_t u(unsigned int bytes) = 0;
};

struct ByteSource : Source {
	const uint8_t *p;
	size_t n;
	ByteSource(const uint8_t *data, size_t size) : p(data), n(size) {}
	uint32_t u(unsigned int bytes) override
	{
		uint32_t v = 0;
		for (unsigned int i = 0; i < bytes && n; i++, p++, n--)
			v = v << 8 | *p;
		return v;
	}
};

// The injection points of core/fault.c, as the soak and the io_chain
// fuzzer arm them.
inline constexpr std::array<const char *, 6> kFaultPoints = {
	"post_send", "mr_alloc", "map_short", "dma_map", "pool_empty", "post_wr"};

enum class Point : size_t {
	kPostSend, kMrAlloc, kMapShort, kDmaMap, kPoolEmpty, kPostWr
};

// The causes a refusal may have.
enum class Refusal : size_t {
	kDmaMapFault,
	kMapShortFault,
	kPoolEmptyFault,
	kPostSendFault,
	kPostWrFault,		// post_wr on the first WR: nothing taken
	kPartialPost,		// post_wr on a later WR: -EINPROGRESS
	kForcedCannotServe,
	kPoolDryForced,		// a forced backend has no fallback
	kPoolDryIwarpRead,	// an iWARP READ sink must be an MR
	kPoolTooSmall,		// more MRs than the pool owns, no fallback
	kCount,
};

inline constexpr std::array<const char *, size_t(Refusal::kCount)> kRefusalNames = {
	"dma_map fault", "map_short fault", "pool_empty fault",
	"post_send fault", "post_wr fault (none taken)",
	"post_wr fault (partial post, drained)", "forced backend cannot serve",
	"pool dry (forced backend)", "pool dry (iWARP READ sink)",
	"pool too small (-E2BIG, no fallback)"};

// What a run did.
struct Tally {
	unsigned long issued = 0;
	unsigned long moved = 0;
	unsigned long failures = 0;
	std::array<unsigned long, size_t(Refusal::kCount)> refused{};

	unsigned long Refused() const
	{
		unsigned long n = 0;
		for (unsigned long r : refused)
			n += r;
		return n;
	}
	// The floor: at least half of the I/Os issued move their bytes.
	bool MovedEnough() const { return moved * 2 >= issued; }
	std::string Refusals() const
	{
		std::string s;
		for (size_t i = 0; i < refused.size(); i++)
			s += (i ? ", " : "") + std::to_string(refused[i]) + " " +
			     kRefusalNames[i];
		return s;
	}
};

enum class OnFailure { kAbort, kCount };

struct IoEnvOptions {
	const sim::Profile *profile = &sim::kRoce;
	unsigned int max_ctxs = 1;
	bool read_inv = true;	// iWARP: READ_WITH_INV, else READ + LOCAL_INV
	OnFailure on_failure = OnFailure::kAbort;
};

// A device pair with a pool on the local QP and a remote buffer.
class IoEnv {
public:
	static constexpr unsigned int kArenaPages = 96;
	static constexpr size_t kGuard = PAGE_SIZE;

	explicit IoEnv(const IoEnvOptions &o)
		: o_(o), local_(*o.profile, "local"), peer_(sim::kRoce, "peer"),
		  arena_(static_cast<u8 *>(std::aligned_alloc(PAGE_SIZE, kBytes))),
		  remote_(kRemoteBytes)
	{
		lpd_ = local_.alloc_pd();
		ppd_ = peer_.alloc_pd();
		lqp_ = local_.create_qp(lpd_);
		pqp_ = peer_.create_qp(ppd_);
		sim::connect(lqp_, pqp_);
		local_.dev()->no_read_inv = !o.read_inv;
		if (o.profile->fmr_max_pages)
			Check(!rdma_fmr_register(local_.dev(), &sim::kFmrOps,
						 o.profile->fmr_max_pages), "fmr register");
		pool_ = rdma_io_pool_create(lqp_, 1, o.max_ctxs, 64);
		Check(!IS_ERR(pool_), "pool create");
		rmr_ = peer_.expose(ppd_, remote_.data(), remote_.size(),
				    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
				    IB_ACCESS_LOCAL_WRITE);
	}

	~IoEnv()
	{
		peer_.dereg_mr(rmr_);
		rdma_io_pool_destroy(pool_);
		if (o_.profile->fmr_max_pages)
			rdma_fmr_unregister(local_.dev());
	}

	IoEnv(const IoEnv &) = delete;
	IoEnv &operator=(const IoEnv &) = delete;

	// One random I/O, its outcome added to @t.
	void RandomIo(Source &in, bool allow_force, Tally &t)
	{
		static const char *const forced[] = {nullptr, "frwr", "iwarp", "fmr",
						     "multiread"};
		Io io{.read = (in.u(1) & 1) != 0};
		io.force = allow_force ? forced[in.u(1) % 5] : nullptr;
		unsigned int nents = 1 + in.u(1) % 40;
		u64 pos = in.u(1) % 64;
		u64 end = 0;

		rdma_io_pool_force_backend(pool_, io.force);
		for (unsigned int i = 0; i < nents; i++) {
			uint32_t mode = in.u(1);
			uint32_t len = 1 + in.u(2) % (2 * PAGE_SIZE);

			if (mode & 1)
				pos = PAGE_ALIGN(pos);
			if (mode & 2)
				pos += PAGE_SIZE * (mode >> 5);
			if (mode & 4)
				len = PAGE_ALIGN(pos + 1) - pos;
			if (pos + len > kBytes)
				break;
			scatterlist s{};
			s.buf = arena_.get() + pos;
			s.length = len;
			io.sg.push_back(s);
			pos += len;
			end = pos;
		}
		if (io.sg.empty())
			return;
		io.sg.back().end = true;
		io.offset = in.u(1) % io.sg[0].length;
		io.remote_off = in.u(2) % (2 * PAGE_SIZE);
		for (const scatterlist &s : io.sg)
			io.entries.push_back({.addr = reinterpret_cast<uintptr_t>(s.buf),
					      .len = s.length});
		io.length = mirror::model::Model(io.entries, io.offset, 1).length;
		t.issued++;

		// Data in the source, poison in the sink, over what the I/O
		// touches and a guard; what each side holds now.
		seed_++;
		arena_win_ = std::min<size_t>(end + kGuard, kBytes);
		remote_win_ = std::min<size_t>(io.remote_off + io.length + kGuard,
					       remote_.size());
		Fill(std::span(arena_.get(), arena_win_),
		     {.buffer = arena_id_, .seed = seed_,
		      .kind = io.read ? Kind::kPoison : Kind::kData});
		Fill(std::span(remote_.data(), remote_win_),
		     {.buffer = remote_id_, .seed = seed_,
		      .kind = io.read ? Kind::kData : Kind::kPoison});
		// memcpy, not assign(): ASan's memmove is a byte loop.
		want_arena_.resize(kBytes);
		want_remote_.resize(kRemoteBytes);
		std::memcpy(want_arena_.data(), arena_.get(), arena_win_);
		std::memcpy(want_remote_.data(), remote_.data(), remote_win_);

		const std::array<int, kFaultPoints.size()> hits0 = Hits();
		io.free0 = pool_->nr_free;
		io.total0 = pool_->nr_total;
		const u32 mr_pages = rdma_io_pool_get_info(pool_)->mr_pages;
		io.need = mr_pages ? mirror::model::Model(io.entries, io.offset,
							  mr_pages).runs.size() : 0;

		rdma_io_ctx ctx;
		io.wrs = rdma_io_ctx_init(&ctx, pool_, io.sg.data(), io.sg.size(),
					  io.offset,
					  uintptr_t(remote_.data() + io.remote_off),
					  rmr_->ibmr.rkey,
					  io.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
		if (io.wrs <= 0) {
			std::optional<Refusal> why = ExplainInit(io, Fired(hits0));
			if (!MemoryAsBefore())
				return Fail(t, io, "a refused I/O changed memory");
			if (sim::counters().dma_maps_live)
				return Fail(t, io, "a refused I/O left a DMA mapping");
			if (!why)
				return Fail(t, io, "init refused the I/O with no cause "
					    "the run can name");
			t.refused[size_t(*why)]++;
			return;
		}
		io.backend = rdma_io_ctx_backend(&ctx);
		if (io.force && std::strcmp(io.backend, io.force))
			Fail(t, io, std::string("forced, but moved by ") +
				    rdma_io_ctx_backend(&ctx));

		ib_cqe cqe{};
		auto &cq = sim::completions(lqp_);
		size_t n0 = cq.size();
		int rc = rdma_io_ctx_post(&ctx, &cqe, nullptr);
		if (rc == -EINPROGRESS)
			return PartialPost(t, io, ctx, &cqe, Fired(hits0),
					   (in.u(1) & 1) != 0);
		// A failed post the driver took part of must say so.
		const size_t taken = sim::queued(lqp_);
		sim::drain();
		if (rc && taken) {
			broken_ = true;
			rdma_io_ctx_destroy(&ctx, nullptr);
			return Fail(t, io, "post returned " + std::to_string(rc) +
				    " with " + std::to_string(taken) +
				    " WRs taken: a partial post not reported");
		}
		if (rc)
			return PostRefused(t, io, ctx, rc, Fired(hits0), cq.size() != n0);
		// One completion for the I/O, and one per WR the core
		// signaled before its last (every RDMA WRITE on siw).
		size_t own = 1;
		for (const ib_send_wr *wr = ctx.first; wr && wr != ctx.last;
		     wr = wr->next)
			own += (wr->send_flags & IB_SEND_SIGNALED) != 0;
		if (cq.size() != n0 + own || cq.back().cqe != &cqe ||
		    cq.back().status != IB_WC_SUCCESS) {
			// The QP is in error: the rest of this device's
			// I/Os would only flush.
			broken_ = true;
			ib_wc wc{};
			wc.status = cq.size() > n0 ? cq.back().status : IB_WC_WR_FLUSH_ERR;
			rdma_io_ctx_destroy(&ctx, &wc);
			return Fail(t, io, "completion: " +
				    std::to_string(cq.size() - n0) + " entries, status " +
				    std::to_string(wc.status));
		}

		// What both sides must hold now: the sink's bytes replaced by
		// the source's, in SG order from the offset on.
		u64 off = Moved(io, want_arena_, want_remote_);
		bool ok = true;
		if (off != ctx.length)
			ok = false, Fail(t, io, "length " + std::to_string(ctx.length));
		if (std::string bad = Compare(io); !bad.empty())
			ok = false, Fail(t, io, bad);
		// Rule 3: a temporary READ sink's key dies with its READ; on a
		// device that lets the peer READ through any live key (siw),
		// every key of the I/O dies in its chain (core/quirks.c).
		for (u32 i = 0; i < ctx.nr_mrs; i++) {
			const rdma_mr *mr = ctx.mrs[i];
			const sim::Mr *hw = local_.find_mr(mr->key);
			const bool live = hw && hw->valid &&
					  (mr->key & 0xff) == hw->key_byte;

			if (live && mrcore_access_is_remote(mr->access))
				ok = false, Fail(t, io, "a READ sink's key outlived the READ");
			else if (live && !o_.profile->checks_remote_read_access)
				ok = false, Fail(t, io, "a key outlived its I/O on a "
					    "device that lets the peer READ through it");
		}
		ib_wc wc{};
		wc.status = IB_WC_SUCCESS;
		rdma_io_ctx_destroy(&ctx, &wc);
		cq.clear();
		if (sim::counters().dma_maps_live)
			ok = false, Fail(t, io, "a completed I/O left a DMA mapping");
		t.moved += ok;
	}

	rdma_io_pool *pool() { return pool_; }
	// A completion failed: the QP is in error.
	bool broken() const { return broken_; }

private:
	static constexpr size_t kBytes = kArenaPages * PAGE_SIZE;
	static constexpr size_t kRemoteBytes = kBytes + 2 * PAGE_SIZE;

	struct Free {
		void operator()(u8 *p) const { std::free(p); }
	};

	// One I/O as drawn, and the pool before it.
	struct Io {
		bool read = false;
		const char *force = nullptr;
		std::vector<scatterlist> sg;
		std::vector<mirror::model::Entry> entries;
		u32 offset = 0;
		u64 remote_off = 0;
		u64 length = 0;
		u32 free0 = 0, total0 = 0;
		size_t need = 0;	// MRs a registered backend takes
		int wrs = 0;
		const char *backend = "none";
	};

	static std::array<int, kFaultPoints.size()> Hits()
	{
		std::array<int, kFaultPoints.size()> h{};
		for (size_t i = 0; i < h.size(); i++)
			h[i] = rdma_mrcore_fault_hits(kFaultPoints[i]);
		return h;
	}

	// Which points injected a failure since @before.
	static std::array<bool, kFaultPoints.size()>
	Fired(const std::array<int, kFaultPoints.size()> &before)
	{
		std::array<int, kFaultPoints.size()> now = Hits();
		std::array<bool, kFaultPoints.size()> f{};
		for (size_t i = 0; i < f.size(); i++)
			f[i] = now[i] > before[i];
		return f;
	}

	bool Iwarp() const { return o_.profile->iwarp; }

	// Whether a forced backend can move this I/O at all (with MRs enough).
	bool CanServe(const Io &io) const
	{
		const std::string f = io.force;
		const bool iwarp_read = Iwarp() && io.read;

		// No iWARP READ on the PD's DMA lkey, however short: the
		// sink must be an MR with REMOTE_WRITE (drivers/multiread.c).
		if (f == "multiread")
			return !iwarp_read;
		if (f == "frwr")
			return o_.profile->mem_mgt_extensions && io.total0 && !iwarp_read;
		if (f == "iwarp")
			return iwarp_read && o_.profile->mem_mgt_extensions && io.total0;
		if (f == "fmr")
			return o_.profile->fmr_max_pages && io.total0 && !iwarp_read;
		return false;
	}

	// The documented cause of an init refusal, if there is one.
	std::optional<Refusal> ExplainInit(const Io &io,
					   const std::array<bool, kFaultPoints.size()> &fired) const
	{
		const bool iwarp_read = Iwarp() && io.read;

		switch (io.wrs) {
		case -ENOMEM:
			if (fired[size_t(Point::kDmaMap)])
				return Refusal::kDmaMapFault;
			break;
		case -EIO:
			if (fired[size_t(Point::kMapShort)])
				return Refusal::kMapShortFault;
			break;
		case -EAGAIN:
			if (fired[size_t(Point::kPoolEmpty)] &&
			    io.need <= io.total0)
				return Refusal::kPoolEmptyFault;
			// Only while the MRs it needs are out: they come back.
			if (io.need > io.total0)
				break;
			if (io.need > io.free0 && io.force)
				return Refusal::kPoolDryForced;
			if (io.need > io.free0 && iwarp_read)
				return Refusal::kPoolDryIwarpRead;
			break;
		case -E2BIG:
			// No wait can serve it: -EAGAIN would be retried for ever.
			if (io.need > io.total0 && (io.force || iwarp_read))
				return Refusal::kPoolTooSmall;
			break;
		case -EOPNOTSUPP:
			if (io.force && !CanServe(io))
				return Refusal::kForcedCannotServe;
			// An iWARP READ sink needs an MR; recycling failures
			// (mr_alloc) left the pool none.
			if (!io.force && iwarp_read && !io.total0)
				return Refusal::kPoolDryIwarpRead;
			break;
		}
		return std::nullopt;
	}

	// The images after @io moved: the sink's bytes replaced by the
	// source's, in SG order from the offset on.  Returns the bytes moved.
	u64 Moved(const Io &io, std::vector<u8> &arena, std::vector<u8> &remote) const
	{
		u64 off = 0;
		for (size_t i = 0; i < io.sg.size(); i++) {
			u32 skip = i ? 0 : io.offset;
			size_t local = static_cast<u8 *>(io.sg[i].buf) - arena_.get() + skip;
			size_t far = io.remote_off + off;
			size_t n = io.sg[i].length - skip;

			if (io.read)
				std::memcpy(&arena[local], &remote[far], n);
			else
				std::memcpy(&remote[far], &arena[local], n);
			off += n;
		}
		return off;
	}

	// A chain the driver took in part (-EINPROGRESS; post_wr fired on a
	// WR after the first).  The ULP drains the send queue (@run: the
	// part runs first, else all of it is flushed), as ib_drain_sq()
	// does, then destroys the I/O without a completion.
	void PartialPost(Tally &t, const Io &io, rdma_io_ctx &ctx, ib_cqe *cqe,
			 const std::array<bool, kFaultPoints.size()> &fired, bool run)
	{
		auto &cq = sim::completions(lqp_);
		const size_t n0 = cq.size();
		const size_t taken = sim::queued(lqp_);
		std::vector<u32> keys;
		for (u32 i = 0; i < ctx.nr_mrs; i++)
			keys.push_back(ctx.mrs[i]->key);
		// The WRs taken that the core signaled (every RDMA WRITE on
		// siw): each one that runs completes.
		size_t signaled = 0;
		const ib_send_wr *wr = ctx.first;
		for (size_t i = 0; wr && i < taken; wr = wr->next, i++)
			signaled += (wr->send_flags & IB_SEND_SIGNALED) != 0;

		if (run)
			sim::step(lqp_, taken);
		sim::set_qp_error(lqp_);
		sim::drain();
		broken_ = true;
		const size_t left = sim::queued(lqp_);
		size_t flushed = 0;
		bool last_completed = false;
		for (size_t i = n0; i < cq.size(); i++) {
			flushed += cq[i].status == IB_WC_WR_FLUSH_ERR;
			last_completed |= cq[i].cqe == cqe;
		}
		const size_t completions = cq.size() - n0;
		rdma_io_ctx_destroy(&ctx, nullptr);
		bool alive = false;
		for (u32 key : keys)
			alive |= local_.find_mr(key) != nullptr;
		rdma_io_pool_drain(pool_);

		if (!fired[size_t(Point::kPostWr)])
			return Fail(t, io, "a partial post with no post_wr fault armed");
		if (!taken || taken >= size_t(io.wrs))
			return Fail(t, io, "a partial post of " + std::to_string(io.wrs) +
				    " WRs left " + std::to_string(taken) + " queued");
		if (left)
			return Fail(t, io, "WRs still queued after the drain");
		if (last_completed)
			return Fail(t, io, "the unposted last WR completed");
		// Unsignaled WRs that ran complete silently, signaled ones
		// successfully; each one flushed completes, signaled or not.
		if (completions != (run ? signaled : taken) ||
		    flushed != (run ? 0 : completions))
			return Fail(t, io, std::to_string(completions) + " completions (" +
				    std::to_string(flushed) + " flushed) for " +
				    std::to_string(taken) + " WRs taken, " +
				    (run ? "run" : "flushed"));
		if (alive)
			return Fail(t, io, "a key of a partly posted I/O outlived "
				    "its destroy");
		if (sim::counters().dma_maps_live)
			return Fail(t, io, "a partly posted I/O left a DMA mapping");
		if (std::string bad = CompareEither(io); !bad.empty())
			return Fail(t, io, "partial post: " + bad);
		t.refused[size_t(Refusal::kPartialPost)]++;
	}

	// After a partial post: the source as before, each sink byte as
	// before or as the whole I/O would have left it, nothing else changed.
	std::string CompareEither(const Io &io) const
	{
		std::vector<u8> after_arena = want_arena_, after_remote = want_remote_;
		Moved(io, after_arena, after_remote);
		struct Side {
			const char *name;
			const u8 *got, *before, *after;
			size_t n;
		};
		for (const Side &s : {Side{"local", arena_.get(), want_arena_.data(),
					   after_arena.data(), arena_win_},
				      Side{"remote", remote_.data(), want_remote_.data(),
					   after_remote.data(), remote_win_}}) {
			for (size_t i = 0; i < s.n; i++) {
				if (s.got[i] == s.before[i] || s.got[i] == s.after[i])
					continue;
				return std::string(s.name) + " byte " + std::to_string(i) +
				       " is neither as before nor as moved";
			}
		}
		// The source: as before, whatever ran.
		const bool src_ok = io.read ?
			!std::memcmp(remote_.data(), want_remote_.data(), remote_win_) :
			!std::memcmp(arena_.get(), want_arena_.data(), arena_win_);
		return src_ok ? "" : "the source changed";
	}

	// A post refused before reaching the device: nothing ran, and the
	// MRs' keys (their state unknown) are dead when the destroy returns:
	// their device MRs were replaced before the memory went back.
	void PostRefused(Tally &t, const Io &io, rdma_io_ctx &ctx, int rc,
			 const std::array<bool, kFaultPoints.size()> &fired,
			 bool completed)
	{
		std::vector<u32> keys;
		for (u32 i = 0; i < ctx.nr_mrs; i++)
			keys.push_back(ctx.mrs[i]->key);
		rdma_io_ctx_destroy(&ctx, nullptr);
		bool alive = false;
		for (u32 key : keys)
			alive |= local_.find_mr(key) != nullptr;
		rdma_io_pool_drain(pool_);

		if (completed)
			return Fail(t, io, "a refused post completed");
		if (!MemoryAsBefore())
			return Fail(t, io, "a refused post changed memory");
		if (alive)
			return Fail(t, io, "a failed I/O's key outlived its "
				    "destroy");
		if (rc != -ENOMEM)
			return Fail(t, io, "post returned " + std::to_string(rc));
		// post_send refuses the chain; post_wr its first WR.
		if (fired[size_t(Point::kPostSend)])
			t.refused[size_t(Refusal::kPostSendFault)]++;
		else if (fired[size_t(Point::kPostWr)])
			t.refused[size_t(Refusal::kPostWrFault)]++;
		else
			return Fail(t, io, "post returned -ENOMEM with no fault armed");
	}

	bool MemoryAsBefore() const
	{
		return !std::memcmp(arena_.get(), want_arena_.data(), arena_win_) &&
		       !std::memcmp(remote_.data(), want_remote_.data(), remote_win_);
	}

	// Where the bytes differ from what they must be, or "".
	std::string Compare(const Io &io) const
	{
		struct Side {
			const char *name;
			std::span<const u8> got, want;
			bool sink;
		};
		for (const Side &s : {Side{"local", {arena_.get(), arena_win_},
					   {want_arena_.data(), arena_win_}, io.read},
				      Side{"remote", {remote_.data(), remote_win_},
					   {want_remote_.data(), remote_win_}, !io.read}}) {
			size_t i = FirstDiff(s.got, s.want);
			if (i == s.got.size())
				continue;
			return std::string(s.name) + (s.sink ? " sink" : " source") +
			       " differs at byte " + std::to_string(i) + " (page " +
			       std::to_string(i / PAGE_SIZE) + " offset " +
			       std::to_string(i % PAGE_SIZE) + ")" +
			       (s.sink ? "" : ": the source changed");
		}
		return "";
	}

	void Fail(Tally &t, const Io &io, const std::string &what)
	{
		if (t.failures++ < 10 || o_.on_failure == OnFailure::kAbort) {
			std::string sg;
			for (const scatterlist &s : io.sg)
				sg += " " + std::to_string(static_cast<u8 *>(s.buf) -
							   arena_.get()) +
				      "+" + std::to_string(s.length);
			std::fprintf(stderr,
				     "random I/O: FAIL: %s\n  %s%s %s%s%s, %s, init %d, "
				     "offset %u, remote +%llu, %llu bytes, pool %u/%u "
				     "free, %zu MRs needed, SG:%s\n",
				     what.c_str(), o_.profile->name,
				     o_.read_inv ? "" : " without READ_WITH_INV",
				     io.read ? "READ" : "WRITE",
				     io.force ? " forced " : "", io.force ? io.force : "",
				     io.backend, io.wrs, io.offset,
				     static_cast<unsigned long long>(io.remote_off),
				     static_cast<unsigned long long>(io.length),
				     io.free0, io.total0, io.need, sg.c_str());
		}
		if (o_.on_failure == OnFailure::kAbort)
			std::abort();
	}

	IoEnvOptions o_;
	sim::Hca local_, peer_;
	ib_pd *lpd_, *ppd_;
	ib_qp *lqp_ = nullptr, *pqp_ = nullptr;
	rdma_io_pool *pool_ = nullptr;
	sim::Mr *rmr_ = nullptr;
	std::unique_ptr<u8[], Free> arena_;
	std::vector<u8> remote_;
	const u64 arena_id_ = NewBufferId(), remote_id_ = NewBufferId();
	std::vector<u8> want_arena_, want_remote_;
	size_t arena_win_ = 0, remote_win_ = 0;
	u64 seed_ = 0;
	bool broken_ = false;
};

// Nothing allocated, mapped, referenced or warned about; prints what is.
inline bool NothingLeft()
{
	const sim::Counters &c = sim::counters();
	bool ok = !c.kmalloc_live && !c.mrs_live && !c.dma_maps_live &&
		  !c.module_refs && !c.dma_api_errors && !c.warnings &&
		  !c.fmr_remap_unflushed;

	if (!ok)
		std::fprintf(stderr, "random I/O: left behind: %ld allocations, "
			     "%ld MRs, %ld DMA maps, %ld module refs, %ld DMA-API "
			     "errors, %ld warnings, %ld unflushed FMR remaps\n",
			     c.kmalloc_live, c.mrs_live, c.dma_maps_live,
			     c.module_refs, c.dma_api_errors, c.warnings,
			     c.fmr_remap_unflushed);
	return ok;
}

} // namespace mirror

#endif // MRCORE_MIRROR_RANDOM_IO_H
