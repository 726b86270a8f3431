// SPDX-License-Identifier: GPL-2.0-only
//
// Shared test fixture: the module loaded, two connected nodes on simulated
// HCAs of one profile, page-aligned buffers, and the leak check at teardown.
#ifndef MRCORE_MIRROR_FIXTURE_H
#define MRCORE_MIRROR_FIXTURE_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hca.h"
#include "pattern.h"
#include "work.h"

#include "cases/shapes.h"

namespace mirror {

// Page-aligned memory filled with position-unique bytes (pattern.h): data
// for a source, poison for a sink.  Every byte derives from the buffer's
// identity, the page, the offset and the seed, and the buffer keeps a copy
// of what it was filled with, so a check knows what every byte held before.
class Buffer {
public:
	explicit Buffer(size_t pages)
		: size_(pages * PAGE_SIZE),
		  p_(static_cast<u8 *>(std::aligned_alloc(PAGE_SIZE, size_))),
		  filled_(size_)
	{
		Registry().push_back(this);
		fill(0);
	}
	~Buffer() { std::erase(Registry(), this); }
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;

	u8 *at(size_t off) { return p_.get() + off; }
	const u8 *at(size_t off) const { return p_.get() + off; }
	u64 addr(size_t off) const { return reinterpret_cast<uintptr_t>(p_.get() + off); }
	size_t size() const { return size_; }
	u64 id() const { return id_; }
	std::span<u8> span(size_t off, size_t len) { return {at(off), len}; }
	std::span<const u8> span(size_t off, size_t len) const { return {at(off), len}; }
	std::span<const u8> bytes() const { return span(0, size_); }

	// Source data of round @seed, in the whole buffer.
	void fill(unsigned int seed) { Write({.buffer = id_, .seed = seed}); }
	// A sink: poison of round @seed, unlike any data of any buffer.
	void poison(unsigned int seed)
	{
		Write({.buffer = id_, .seed = seed, .kind = Kind::kPoison});
	}
	// What the buffer was last filled with.
	const Pattern &pattern() const { return pattern_; }
	// The byte at @off as the last fill left it.
	u8 filled(size_t off) const { return filled_[off]; }
	std::span<const u8> filled(size_t off, size_t len) const
	{
		return std::span(filled_).subspan(off, len);
	}
	bool holds(const u8 *p, size_t len = 1) const
	{
		return p >= at(0) && p + len <= at(0) + size_;
	}

	// The live buffer @p points into, if any.
	static const Buffer *Owner(const u8 *p, size_t len = 1)
	{
		for (const Buffer *b : Registry())
			if (b->holds(p, len))
				return b;
		return nullptr;
	}

private:
	struct Free {
		void operator()(u8 *p) const { std::free(p); }
	};

	void Write(const Pattern &p)
	{
		pattern_ = p;
		Fill(filled_, p);
		std::memcpy(p_.get(), filled_.data(), size_);
	}

	static std::vector<Buffer *> &Registry()
	{
		static std::vector<Buffer *> live;
		return live;
	}

	size_t size_;
	std::unique_ptr<u8[], Free> p_;
	std::vector<u8> filled_;
	u64 id_ = NewBufferId();
	Pattern pattern_;
};

// A scatterlist over (page, offset, length) pieces of a buffer.
class Sg {
public:
	Sg() = default;
	void add(void *p, unsigned int len)
	{
		scatterlist s{};

		s.buf = p;
		s.length = len;
		if (!v_.empty())
			v_.back().end = false;
		s.end = true;
		v_.push_back(s);
	}
	void add(Buffer &b, size_t page, unsigned int off, unsigned int len)
	{
		add(b.at(page * PAGE_SIZE + off), len);
	}
	scatterlist *get() { return v_.empty() ? nullptr : v_.data(); }
	// The same entries as a chained list in one array, in arrays of
	// MRCORE_SHAPE_CHAIN_ENTS slots (tests/cases/shapes.h): the last slot
	// of each but the final one links to the next slot, the next array,
	// as sg_chain() makes it.  Valid until the next add().
	scatterlist *chained()
	{
		chained_.clear();
		std::vector<size_t> links;

		for (size_t i = 0; i < v_.size(); i++) {
			if (mrcore_shape_chain_link(u32(chained_.size()),
						    u32(v_.size() - i))) {
				links.push_back(chained_.size());
				chained_.push_back({});
			}
			chained_.push_back(v_[i]);
			chained_.back().end = i + 1 == v_.size();
		}
		// The links, now that the array no longer moves.
		for (size_t j : links)
			sg_chain(&chained_[j + 1 - MRCORE_SHAPE_CHAIN_ENTS],
				 MRCORE_SHAPE_CHAIN_ENTS, &chained_[j + 1]);
		return chained_.empty() ? nullptr : chained_.data();
	}
	unsigned int n() const { return static_cast<unsigned int>(v_.size()); }
	std::span<const scatterlist> entries() const { return v_; }
	// Links in the last chained() list.
	size_t links() const { return chained_.size() - v_.size(); }

private:
	std::vector<scatterlist> v_;
	std::vector<scatterlist> chained_;
};

// ---- data checks --------------------------------------------------------------

// One range a transfer must have copied: @dst ends up holding @src's bytes.
struct Move {
	std::span<const u8> src;
	std::span<const u8> dst;
};

// Bytes checked on each side of a destination.
inline constexpr size_t kGuard = 256;

namespace detail {

inline std::string Where(const Buffer &b, const u8 *p)
{
	return "buffer " + std::to_string(b.id()) + " byte " +
	       std::to_string(p - b.at(0)) + " (page " +
	       std::to_string((p - b.at(0)) / PAGE_SIZE) + " offset " +
	       std::to_string((p - b.at(0)) % PAGE_SIZE) + ")";
}

inline std::string Hex(u8 v)
{
	static const char d[] = "0123456789abcdef";
	return std::string("0x") + d[v >> 4] + d[v & 15];
}

} // namespace detail

// The ranges have not changed since their buffers were last filled.
inline ::testing::AssertionResult Untouched(std::span<const u8> range)
{
	const Buffer *b = Buffer::Owner(range.data(), range.size());

	if (!b)
		return ::testing::AssertionFailure()
		       << "range is not in a live Buffer: nothing to compare";
	size_t off = range.data() - b->at(0);
	size_t i = FirstDiff(range, b->filled(off, range.size()));
	if (i == range.size())
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure()
	       << "changed at " << detail::Where(*b, range.data() + i) << ": "
	       << detail::Hex(range[i]) << " instead of " << detail::Hex(b->filled(off + i));
}

inline ::testing::AssertionResult Untouched(const Buffer &b)
{
	return Untouched(b.bytes());
}

// What a transfer must have done, for ranges in Buffers: every source still
// holds its data (the direction is right), every destination was poisoned
// (it held something else, in every byte) and now holds its source's bytes,
// and @guard bytes on each side of a destination, where no other
// destination lies, are unchanged.
inline ::testing::AssertionResult Moved(std::span<const Move> moves,
					size_t guard = kGuard)
{
	for (size_t k = 0; k < moves.size(); k++) {
		const Move &m = moves[k];
		const Buffer *sb = Buffer::Owner(m.src.data(), m.src.size());
		const Buffer *db = Buffer::Owner(m.dst.data(), m.dst.size());
		const std::string what = "move " + std::to_string(k) + " (" +
					 std::to_string(m.dst.size()) + " bytes): ";

		if (m.src.size() != m.dst.size())
			return ::testing::AssertionFailure() << what << "sizes differ";
		if (!sb || !db)
			return ::testing::AssertionFailure()
			       << what << "source or destination outside a live Buffer";
		if (sb->pattern().kind != Kind::kData ||
		    db->pattern().kind != Kind::kPoison)
			return ::testing::AssertionFailure()
			       << what << "the source must hold data and the "
				  "destination poison, or a transfer that did not "
				  "happen could pass";
		::testing::AssertionResult src = Untouched(m.src);
		if (!src)
			return ::testing::AssertionFailure()
			       << what << "source " << src.message();
		size_t i = FirstDiff(m.dst, m.src);
		if (i < m.dst.size()) {
			size_t off = m.dst.data() - db->at(0) + i;
			bool poison = m.dst[i] == db->filled(off);
			return ::testing::AssertionFailure()
			       << what << "destination differs at byte " << i << ", "
			       << detail::Where(*db, m.dst.data() + i) << ": "
			       << detail::Hex(m.dst[i]) << " instead of "
			       << detail::Hex(m.src[i]) << " from "
			       << detail::Where(*sb, m.src.data() + i)
			       << (poison ? "; never written (still poison)" : "");
		}
	}
	// Guards: bytes next to a destination that no destination covers.
	std::vector<std::pair<const u8 *, const u8 *>> dsts;
	for (const Move &m : moves)
		dsts.emplace_back(m.dst.data(), m.dst.data() + m.dst.size());
	std::sort(dsts.begin(), dsts.end());
	auto covered = [&](const u8 *p) {
		auto it = std::upper_bound(dsts.begin(), dsts.end(),
					   std::pair{p, static_cast<const u8 *>(nullptr)},
					   [](const auto &a, const auto &b) {
						   return a.first < b.first;
					   });
		// Ranges may not overlap: the one that starts last at or before p.
		return it != dsts.begin() && p < std::prev(it)->second;
	};
	for (const Move &m : moves) {
		const Buffer *db = Buffer::Owner(m.dst.data(), m.dst.size());
		const u8 *lo = db->at(0), *hi = db->at(0) + db->size();
		const u8 *start = m.dst.data(), *end = start + m.dst.size();

		for (const auto &[from, to] :
		     {std::pair{std::max(lo, start - std::min<size_t>(guard, start - lo)), start},
		      std::pair{end, end + std::min<size_t>(guard, hi - end)}})
			for (const u8 *p = from; p < to; p++)
				if (!covered(p) && *p != db->filled(p - lo))
					return ::testing::AssertionFailure()
					       << "guard byte changed at "
					       << detail::Where(*db, p) << ": "
					       << detail::Hex(*p) << " instead of "
					       << detail::Hex(db->filled(p - lo));
	}
	return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult Moved(std::span<const u8> src,
					std::span<const u8> dst,
					size_t guard = kGuard)
{
	const Move m{src, dst};
	return Moved(std::span(&m, 1), guard);
}

// The moves of an RDMA READ into @sg (or a WRITE from it) with the remote
// bytes from @remote on: the first @sg_offset bytes of the list skipped,
// whole entries included.
inline std::vector<Move> IoMoves(const Sg &sg, u32 sg_offset, const u8 *remote,
				 bool read)
{
	std::vector<Move> v;
	u64 skip = sg_offset;
	u64 off = 0;

	for (const scatterlist &s : sg.entries()) {
		if (skip >= s.length) {
			skip -= s.length;
			continue;
		}
		std::span<const u8> local(static_cast<const u8 *>(s.buf) + skip,
					  s.length - skip);
		std::span<const u8> far(remote + off, local.size());

		v.push_back(read ? Move{far, local} : Move{local, far});
		off += local.size();
		skip = 0;
	}
	return v;
}

struct Node {
	std::unique_ptr<sim::Hca> hca;
	ib_pd *pd;
	ib_qp *qp;
};

// What named the memory of an I/O or a mapping: key and address.
struct Named {
	u32 key;
	u64 iova;
	u32 len;
};

// The module loaded, two nodes of one profile with a connected QP pair,
// and at teardown: nothing allocated, mapped, referenced or warned about.

// What came of one access by the attacker: the peer's HCA served it, the
// local HCA refused it (a remote access, operation or request error: what
// a dead key, or one without the rights, gets), or it never reached the
// local HCA (the post failed, no completion, the attacker's own side
// failed).  A key-death check wants kRefused; kNotTried fails it, since
// an attacker that could not try proves nothing.
enum class Access { kServed, kRefused, kNotTried };

inline Access Outcome(ib_wc_status st)
{
	switch (st) {
	case IB_WC_SUCCESS:
		return Access::kServed;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
	case IB_WC_REM_OP_ERR:
		return Access::kRefused;
	default:
		return Access::kNotTried;
	}
}

inline std::ostream &operator<<(std::ostream &os, Access a)
{
	return os << (a == Access::kServed ? "served" :
		      a == Access::kRefused ? "refused" : "not tried");
}

class MirrorTest : public ::testing::Test {
protected:
	void SetUpNodes(const sim::Profile &profile)
	{
		ASSERT_EQ(mirror_module_init(), 0);
		module_loaded_ = true;
		core_dma_live_ = rdma_mrcore_dma_maps_live();
		for (Node *n : {&local_, &peer_}) {
			n->hca = std::make_unique<sim::Hca>(profile,
							   n == &local_ ? "local" : "peer");
			n->pd = n->hca->alloc_pd();
			n->qp = n->hca->create_qp(n->pd);
		}
		sim::connect(local_.qp, peer_.qp);
	}

	void TearDown() override
	{
		// A test that posts lets the devices run what it posted.
		EXPECT_EQ(sim::drain(), 0u) << "WRs left queued at teardown";
		// Once: a test that tears down by hand is torn down again.
		if (module_loaded_)
			mirror_module_exit();
		module_loaded_ = false;
		sim::forget_work();
		const sim::Counters &c = sim::counters();
		EXPECT_EQ(c.kmalloc_live, 0) << "kernel memory leaked";
		EXPECT_EQ(c.mrs_live, 0) << "device MR leaked";
		EXPECT_EQ(c.dma_maps_live, 0) << "DMA mapping leaked";
		// The core's own count agrees with the DMA API's.
		EXPECT_EQ(rdma_mrcore_dma_maps_live(), core_dma_live_)
			<< "the core's count of its DMA mappings is off";
		EXPECT_EQ(c.module_refs, 0) << "module reference leaked";
		EXPECT_EQ(c.dma_api_errors, 0) << "DMA-API misuse";
		EXPECT_EQ(c.warnings, expected_warnings_) << "unexpected WARN";
		sim::counters() = sim::Counters{};
	}

	// Post a chain on a QP, expect the post to be accepted, and let the
	// devices run it.
	void Post(ib_qp *qp, ib_send_wr *wr)
	{
		ASSERT_EQ(sim::post(qp, wr), 0);
		sim::drain();
	}

	// The peer READs [addr, addr + len) of the local node's memory into
	// its own buffer, or WRITEs its buffer there, and the devices run;
	// returns the completion status.  Its buffer is its PD's DMA lkey,
	// or for a READ on a device that follows the iWARP rule, a sink MR
	// with REMOTE_WRITE.  With @alone only the peer's WR runs (Rdma()):
	// what the local QP still has queued stays queued.
	ib_wc_status PeerRdma(ib_wr_opcode op, u64 remote_addr, u32 rkey,
			      void *peer_mem, u32 len, bool alone = false)
	{
		return PeerRdmaOn(peer_.qp, op, remote_addr, rkey, peer_mem, len,
				  alone);
	}

	ib_wc_status PeerRdmaOn(ib_qp *qp, ib_wr_opcode op, u64 remote_addr,
				u32 rkey, void *peer_mem, u32 len,
				bool alone = false)
	{
		const sim::Profile &p = peer_.hca->profile();
		sim::Mr *sink = nullptr;

		if (op == IB_WR_RDMA_READ && p.iwarp && !p.dma_lkey_read_sink)
			sink = peer_.hca->expose(peer_.pd, peer_mem, len,
						 IB_ACCESS_LOCAL_WRITE |
						 IB_ACCESS_REMOTE_WRITE);
		ib_wc_status st = Rdma(qp, op, reinterpret_cast<uintptr_t>(peer_mem),
				       sink ? sink->ibmr.lkey :
					      peer_.pd->local_dma_lkey,
				       remote_addr, rkey, len, alone);
		if (sink)
			peer_.hca->dereg_mr(sink);
		return st;
	}

	// The shared-PD topology, as ULPs use it (one PD per device, many
	// connections): a second connection whose local end is a QP on
	// local_.pd, the PD of the first connection, and whose far end is a
	// peer QP.  Each call connects a new pair, since a refused access
	// breaks the connection it came over (RC).
	struct SharedPdConnection {
		ib_qp *local;
		ib_qp *peer;
	};

	SharedPdConnection ConnectSharedPd()
	{
		SharedPdConnection c;

		c.local = local_.hca->create_qp(local_.pd);
		c.peer = peer_.hca->create_qp(peer_.pd);
		sim::connect(c.local, c.peer);
		return c;
	}

	// The attacker: a peer on another connection to the same local PD
	// tries @rkey at [@remote_addr, +@len) at once, with @op, from or
	// into @peer_mem; returns what came of it (Outcome()).  Rule 6 of the
	// design: every key that names memory the core gave back must be
	// refused here.
	Access Attack(ib_wr_opcode op, u64 remote_addr, u32 rkey,
		      void *peer_mem, u32 len)
	{
		SharedPdConnection c = ConnectSharedPd();

		EXPECT_EQ(c.local->pd, local_.qp->pd) << "not the shared PD";
		return Outcome(PeerRdmaOn(c.peer, op, remote_addr, rkey,
					  peer_mem, len));
	}

	// The positive control of a key-death check: while @key lives, the
	// attacker (Attack()) is served @op through it at [@addr, +@len) and
	// the bytes move: a WRITE's land under the key, a READ brings those
	// under it.  @why: what grants it.  The bytes under the key are put
	// back after, so that a later Untouched() still holds.  A test that
	// then finds the key refused knows the attacker could post, the same
	// op, key, address and length.
	void ExpectServedThrough(ib_wr_opcode op, u64 addr, u32 key, u32 len,
				 const char *why)
	{
		ExpectServedAt(op, addr, key, len, "the live key", why);
	}

	// The attacker's reach: the control of a refusal through a key that
	// never lived (a registration that never ran) or that grants the
	// peer nothing (an lkey; a READ sink off iWARP; a WRITE source),
	// where no access through the key itself can be shown served.  The
	// same attacker, op, address and length, through a reference rkey
	// the test exposes over the same bytes with both remote rights, is
	// served and moves the bytes (put back after).  A refusal that
	// follows is then the key's: its death, or its lack of rights, and
	// not an attacker that never posted.  On @qp, a peer QP, where the
	// refusal that follows comes over it; else over a new connection of
	// the shared PD, as Attack().
	void ExpectAttackerReaches(ib_wr_opcode op, u64 addr, u32 len,
				   ib_qp *qp = nullptr)
	{
		void *mem = reinterpret_cast<void *>(static_cast<uintptr_t>(addr));
		sim::Mr *ref = local_.hca->expose(local_.pd, mem, len,
						  IB_ACCESS_LOCAL_WRITE |
						  IB_ACCESS_REMOTE_READ |
						  IB_ACCESS_REMOTE_WRITE);

		ExpectServedAt(op, addr, ref->ibmr.rkey, len,
			       "a reference rkey over the same bytes",
			       "the attacker's reach", qp);
		local_.hca->dereg_mr(ref);
	}

	// The owner reuses its memory at once (new bytes of round @seed);
	// the attacker then tries every key that named it, WRITE and READ,
	// each after the control of its reach (ExpectAttackerReaches(): an
	// attacker that cannot post fails here instead of passing as
	// refused).  The control through each key while it lived is the
	// test's (ExpectServedThrough()), where the key grants the peer
	// anything.
	void ExpectAllDead(const std::vector<Named> &keys, Buffer &mem,
			   unsigned int seed)
	{
		long dma_errors = sim::counters().dma_api_errors;

		ASSERT_FALSE(keys.empty()) << "no key to try: the test tests nothing";
		mem.fill(seed);
		for (const Named &k : keys) {
			// The key's bytes, or where it names none of a live
			// Buffer (a bad iova), the memory's.
			const u64 at = Buffer::Owner(reinterpret_cast<const u8 *>(
					       static_cast<uintptr_t>(k.iova)),
						       k.len) ? k.iova : mem.addr(0);

			ExpectAttackerReaches(IB_WR_RDMA_WRITE, at, k.len);
			attacker_src_.fill(seed + 1);
			EXPECT_EQ(Attack(IB_WR_RDMA_WRITE, k.iova, k.key,
					 attacker_src_.at(0), k.len),
				  Access::kRefused)
				<< "the attacker's WRITE through key " << std::hex
				<< k.key << " after the memory was given back";
			EXPECT_TRUE(Untouched(mem))
				<< "memory given back changed under key " << std::hex
				<< k.key;
			ExpectAttackerReaches(IB_WR_RDMA_READ, at, k.len);
			attacker_sink_.poison(seed + 2);
			EXPECT_EQ(Attack(IB_WR_RDMA_READ, k.iova, k.key,
					 attacker_sink_.at(0), k.len),
				  Access::kRefused)
				<< "the attacker's READ through key " << std::hex
				<< k.key << " after the memory was given back";
			EXPECT_TRUE(Untouched(attacker_sink_))
				<< "the attacker got bytes through key " << std::hex
				<< k.key;
		}
		EXPECT_EQ(sim::counters().dma_api_errors, dma_errors)
			<< "a key reached memory that was no longer DMA-mapped";
	}

	// ExpectServedThrough() and ExpectAttackerReaches(): @op served
	// through @key (@what) at [@addr, +@len), on @qp or else Attack()'s
	// connection, the bytes moved, and the bytes under the key put back.
	void ExpectServedAt(ib_wr_opcode op, u64 addr, u32 key, u32 len,
			    const char *what, const char *why,
			    ib_qp *qp = nullptr)
	{
		u8 *mem = reinterpret_cast<u8 *>(static_cast<uintptr_t>(addr));
		const bool write = op == IB_WR_RDMA_WRITE;
		Buffer &theirs = write ? attacker_src_ : attacker_sink_;

		ASSERT_LE(len, theirs.size()) << "longer than the attacker's buffer";
		ASSERT_NE(Buffer::Owner(mem, len), nullptr)
			<< "control: [" << std::hex << addr << ", +" << std::dec
			<< len << ") is not in a live Buffer";
		const std::vector<u8> held(mem, mem + len);
		if (write)
			theirs.fill(91);
		else
			theirs.poison(92);
		EXPECT_EQ(qp ? Outcome(PeerRdmaOn(qp, op, addr, key, theirs.at(0),
						  len)) :
			     Attack(op, addr, key, theirs.at(0), len),
			  Access::kServed)
			<< "control: the attacker's " << (write ? "WRITE" : "READ")
			<< " through " << what << " " << std::hex << key << " ("
			<< why << ")";
		EXPECT_EQ(std::memcmp(mem, theirs.at(0), len), 0)
			<< "control: the " << (write ? "WRITE" : "READ") << " through "
			<< what << " moved other bytes";
		std::memcpy(mem, held.data(), len);
	}

	ib_wc_status PeerRdmaWith(ib_wr_opcode op, u64 remote_addr, u32 rkey,
				  void *peer_mem, u32 len, u32 lkey)
	{
		return Rdma(peer_.qp, op, reinterpret_cast<uintptr_t>(peer_mem),
			    lkey, remote_addr, rkey, len);
	}

	// One signaled RDMA @op of @len bytes posted on @qp, from or into
	// [@addr, @addr + @len) under @lkey, at @remote_addr under @rkey, run
	// to completion; returns its status.
	// With @alone, only @qp's WR runs (sim::step()), not what other QPs
	// have queued.  A WR that cannot be posted, or no completion, is
	// IB_WC_GENERAL_ERR_FOR_TESTS: never a refusal.
	ib_wc_status Rdma(ib_qp *qp, ib_wr_opcode op, u64 addr, u32 lkey,
			  u64 remote_addr, u32 rkey, u32 len, bool alone = false)
	{
		ib_sge sge = {addr, len, lkey};
		ib_rdma_wr wr{};
		ib_cqe cqe{};

		wr.wr.opcode = op;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.wr.wr_cqe = &cqe;
		wr.remote_addr = remote_addr;
		wr.rkey = rkey;
		auto &cq = sim::completions(qp);
		size_t before = cq.size();
		// A post that fails reached no HCA: never a status one reports.
		if (sim::post(qp, &wr.wr))
			return IB_WC_GENERAL_ERR_FOR_TESTS;
		if (alone) {
			if (sim::step(qp, 1) != 1)
				return IB_WC_GENERAL_ERR_FOR_TESTS;
		} else {
			sim::drain();
		}
		if (cq.size() != before + 1 || cq.back().cqe != &cqe)
			return IB_WC_GENERAL_ERR_FOR_TESTS;
		return cq.back().status;
	}

	// Reconnect the pair after an error, as a ULP would with a new QP;
	// whatever the old QPs still had queued runs (or is flushed) first.
	void Reconnect()
	{
		sim::drain();
		local_.qp = local_.hca->create_qp(local_.pd);
		peer_.qp = peer_.hca->create_qp(peer_.pd);
		sim::connect(local_.qp, peer_.qp);
	}

	// "No completion came", as a status: one the simulated HCA never
	// reports, and a value of the enum (the shim's list is the kernel's),
	// so that loading it is no undefined behaviour that UBSan would end
	// the whole test binary on.
	static constexpr ib_wc_status IB_WC_GENERAL_ERR_FOR_TESTS =
		IB_WC_GENERAL_ERR;

	Node local_, peer_;
	long expected_warnings_ = 0;
	long core_dma_live_ = 0;
	bool module_loaded_ = false;
	// The attacker's memory (ExpectAllDead() and its controls): as long
	// as the longest key a test tries (an rkey set's MR of 4 pages).
	static constexpr size_t kAttackerPages = 4;
	Buffer attacker_src_{kAttackerPages};
	Buffer attacker_sink_{kAttackerPages};
};

} // namespace mirror

#endif // MRCORE_MIRROR_FIXTURE_H
