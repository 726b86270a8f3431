// SPDX-License-Identifier: GPL-2.0-only
//
// The rkey MR set (core/rkey.c): a request takes MRs of its QP's set, maps
// memory for the peer (a scatterlist, bio_vecs, a page array), advertises
// the keys in a Send chained behind the registrations, and is retired with
// the peer's reply: a SEND_WITH_INV of one key (that MR comes back at
// once), a reply that invalidates nothing (LOCAL_INV, the MRs come back
// with its completion), or no reply at all (the set's work deregisters
// every MR).  On each path every key is dead when the request's done
// callback runs, the attacker of keys_test.cpp (a peer on another
// connection of the same PD) is refused, a stale key does not reach the
// MR's next mapping, the MRs are back in the set and nothing leaks.
#include <algorithm>
#include <map>
#include <set>

#include "fixture.h"

namespace mirror {
namespace {

constexpr u32 kMrs = 4;
constexpr u32 kMrPages = 4;

// Whether @key is valid in @dev's HCA: it would let a peer in.
bool KeyLive(ib_device *dev, u32 key)
{
	const sim::Mr *mr = sim::hca_of(dev).find_mr(key);

	return mr && mr->valid && mr->key_matches(key);
}

// A request as a ULP embeds one, and what its done callback saw.
struct TestReq {
	rdma_rkey_req rk;
	ib_device *dev;
	int calls;
	int status;
	u32 live_at_done;	// keys still valid in the HCA when done ran
	std::vector<Named> *keys;
};

void Done(rdma_rkey_req *rk, int status)
{
	TestReq *r = container_of(rk, TestReq, rk);

	r->calls++;
	r->status = status;
	r->live_at_done = 0;
	for (const Named &k : *r->keys)
		r->live_at_done += KeyLive(r->dev, k.key);
}

// Whether @key, the @nth of a set of @mrs MRs, is the last its device MR
// hands out: @uses counts them per device MR (key >> 8), from the set's
// staggered start for the MRs of its first @mrs maps.
bool Spends(std::map<u32, u32> *uses, u32 key, u32 nth, u32 mrs)
{
	auto [it, fresh] = uses->try_emplace(
		key >> 8, nth < mrs ? nth * MRCORE_KEY_USES / mrs : 0);

	return ++it->second == MRCORE_KEY_USES;
}

class RkeySetTest : public MirrorTest,
		    public ::testing::WithParamInterface<const sim::Profile *> {
protected:
	void SetUp() override
	{
		SetUpNodes(*GetParam());
		if (GetParam()->fmr_max_pages) {
			ASSERT_EQ(rdma_fmr_register(local_.hca->dev(), &sim::kFmrOps,
						    GetParam()->fmr_max_pages), 0);
			fmr_ = true;
		}
		set_ = rdma_rkey_set_create(local_.qp, kMrs, kMrPages);
		ASSERT_FALSE(IS_ERR(set_));
		send_.opcode = IB_WR_SEND;
	}

	void TearDown() override
	{
		if (set_ && !IS_ERR(set_)) {
			EXPECT_EQ(rdma_rkey_set_drain(set_), rdma_rkey_set_size(set_))
				<< "an MR was not given back";
			rdma_rkey_set_destroy(set_);
		}
		if (fmr_)
			rdma_fmr_unregister(local_.hca->dev());
		MirrorTest::TearDown();
	}

	bool SyncInvalidate() const { return fmr_; }
	// FMR keys: a peer's SEND_WITH_INV cannot kill them (IBTA: only
	// fast-registered MRs and memory windows).
	bool RemoteInvalidation() const { return !fmr_; }

	void Init(TestReq *r, std::vector<Named> *keys, rdma_rkey_set *set = nullptr)
	{
		*r = {.dev = local_.hca->dev(), .keys = keys};
		keys->clear();
		rdma_rkey_req_init(&r->rk, set ? set : set_, &send_, Done);
	}

	// Map [@off, @off + @len) of @b as one scatterlist entry per page it
	// touches.
	void MapSg(TestReq *r, Buffer &b, size_t off, u32 len, unsigned int ops)
	{
		Sg &sg = sgs_.emplace_back();
		Named n{.len = len};

		for (size_t at = off; at < off + len;) {
			u32 n_here = u32(std::min<size_t>(PAGE_SIZE - at % PAGE_SIZE,
							  off + len - at));

			sg.add(b.at(at), n_here);
			at += n_here;
		}
		ASSERT_EQ(rdma_rkey_map_sg(&r->rk, sg.get(), sg.n(), ops, &n.key,
					   &n.iova), 0);
		EXPECT_EQ(n.iova, b.addr(off));
		r->keys->push_back(n);
	}

	// Map [@off, @off + @len) of @b as a page array, one MR's worth at a
	// time; returns the segments.
	std::vector<Named> MapPages(TestReq *r, Buffer &b, u32 off, u32 len,
				    unsigned int ops)
	{
		std::vector<page *> pages;
		std::vector<Named> segs;

		for (size_t p = 0; p < b.size() / PAGE_SIZE; p++)
			pages.push_back(virt_to_page(b.at(p * PAGE_SIZE)));
		while (len) {
			Named n{};

			EXPECT_EQ(rdma_rkey_map_pages(&r->rk, pages.data(), off, len,
						      ops, &n.key, &n.iova, &n.len),
				  0);
			if (!n.len)
				break;
			EXPECT_EQ(n.iova, b.addr(off));
			segs.push_back(n);
			r->keys->push_back(n);
			off += n.len;
			len -= n.len;
		}
		return segs;
	}

	// A request of the first page of @mem for @ops, posted if @post.
	void StartOne(TestReq *r, std::vector<Named> *keys, Buffer &mem,
		      unsigned int ops, bool post = true)
	{
		Init(r, keys);
		MapSg(r, mem, 0, PAGE_SIZE, ops);
		if (post)
			PostReq(r);
	}

	// Post the registrations and the Send, and let the devices run them.
	void PostReq(TestReq *r)
	{
		ASSERT_EQ(rdma_rkey_req_post(&r->rk), 0);
		sim::drain();
		ASSERT_FALSE(sim::qp_in_error(local_.qp));
	}

	// The peer's reply: a SEND, or a SEND_WITH_INV of @inv; returns the
	// Receive completion it made on the local QP.
	ib_wc Reply(const u32 *inv)
	{
		auto &rx = sim::received(local_.qp);
		size_t before = rx.size();
		ib_send_wr wr{};
		ib_wc wc{};

		wr.opcode = IB_WR_SEND;
		if (inv) {
			EXPECT_EQ(rdma_send_with_inv(&wr, *inv), 0);
		}
		EXPECT_EQ(sim::post(peer_.qp, &wr), 0);
		sim::drain();
		EXPECT_EQ(rx.size(), before + 1) << "the reply did not arrive";
		wc.status = IB_WC_GENERAL_ERR;
		if (rx.size() > before) {
			wc.status = rx.back().status;
			wc.wc_flags = rx.back().wc_flags;
			wc.ex.invalidate_rkey = rx.back().invalidate_rkey;
			wc.byte_len = rx.back().byte_len;
		}
		return wc;
	}

	// The send CQ's handler: every new completion of the local QP handed
	// to its entry's done(), as ib_core does.
	void PollCq()
	{
		auto &cq = sim::completions(local_.qp);

		for (; polled_ < cq.size(); polled_++) {
			const sim::Completion c = cq[polled_];
			ib_wc wc{};

			if (!c.cqe || !c.cqe->done)
				continue;
			wc.wr_cqe = c.cqe;
			wc.status = c.status;
			wc.opcode = c.opcode;
			c.cqe->done(nullptr, &wc);
		}
	}

	u32 Free() { return rdma_rkey_set_drain(set_); }

	// One command on @set, the @nth: @sg mapped for the peer's WRITE, the
	// Send posted, the reply (a SEND_WITH_INV of the key where the device
	// has it) retires the request; then a worker's turn.  Returns whether
	// the key was the last of its device MR (Spends(), @uses, @mrs).
	bool Command(rdma_rkey_set *set, Sg &sg, std::map<u32, u32> *uses,
		     u32 nth, u32 mrs)
	{
		std::vector<Named> keys;
		Named n{.len = 64};
		TestReq r;
		bool spent;

		Init(&r, &keys, set);
		EXPECT_EQ(rdma_rkey_map_sg(&r.rk, sg.get(), sg.n(),
					   RDMA_MR_REMOTE_WRITE, &n.key, &n.iova),
			  0) << "after " << nth << " commands";
		if (r.rk.nr_mrs != 1)
			return false;
		keys.push_back(n);
		spent = Spends(uses, n.key, nth, mrs);
		PostReq(&r);
		ib_wc wc = Reply(RemoteInvalidation() ? &n.key : nullptr);
		EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
		PollCq();
		EXPECT_EQ(r.calls, 1);
		sim::run_work();
		return spent;
	}

	// The request is done with @status: once, no key of it valid in the
	// HCA when done ran, its MRs back in the set once the set's work ran,
	// and the attacker refused through every key.
	void ExpectRetired(const TestReq &r, int status, Buffer &mem,
			   unsigned int seed)
	{
		if (set_) {
			EXPECT_EQ(Free(), rdma_rkey_set_size(set_))
				<< "an MR was not given back";
		}
		EXPECT_EQ(r.calls, 1);
		EXPECT_EQ(r.status, status);
		EXPECT_EQ(r.live_at_done, 0u) << "memory given back with a live key";
		ExpectAllDead(*r.keys, mem, seed);
	}

	// The positive control of ExpectAllDead(): while the request is in
	// flight the same attacker makes through the live key the access it
	// grants.  A WRITE lands its bytes in @mine at @off; a READ brings
	// @mine's bytes there (new ones of round @seed).
	void ExpectAttackerServed(const Named &k, Buffer &mine, size_t off,
				  bool write, unsigned int seed)
	{
		const u32 n = std::min<u32>(k.len, 64);

		if (write) {
			attacker_src_.fill(seed + 7);
			mine.poison(seed);
		} else {
			attacker_sink_.poison(seed + 7);
			mine.fill(seed);
		}
		EXPECT_EQ(Attack(write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
				 k.iova, k.key,
				 (write ? attacker_src_ : attacker_sink_).at(0), n),
			  Access::kServed)
			<< "control: the attacker's " << (write ? "WRITE" : "READ")
			<< " through the live key " << std::hex << k.key;
		if (write) {
			EXPECT_TRUE(Moved(attacker_src_.span(0, n),
					  mine.span(off, n)));
		} else {
			EXPECT_TRUE(Moved(mine.span(off, n),
					  attacker_sink_.span(0, n)));
		}
	}

	// The peer moves one segment's bytes: READs them into its memory or
	// WRITEs its own; the bytes are checked, and the guards around them.
	// The attacker's control comes first (ExpectAttackerServed()).
	void PeerUses(const Named &k, Buffer &mine, size_t off, bool write,
		      unsigned int seed)
	{
		ExpectAttackerServed(k, mine, off, write, seed);
		peer_mem_.poison(seed);
		if (write) {
			peer_mem_.fill(seed);
			mine.poison(seed);
		} else {
			mine.fill(seed);
		}
		ASSERT_EQ(PeerRdma(write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
				   k.iova, k.key, peer_mem_.at(0), k.len),
			  IB_WC_SUCCESS);
		if (write)
			EXPECT_TRUE(Moved(peer_mem_.span(0, k.len),
					  mine.span(off, k.len)));
		else
			EXPECT_TRUE(Moved(mine.span(off, k.len),
					  peer_mem_.span(0, k.len)));
	}

	// Rule 3 after a retire: a new request takes the same MRs, over
	// other memory; the old keys reach neither.
	void ExpectStaleAfterReuse(const std::vector<Named> &old, unsigned int seed)
	{
		Buffer fresh(kMrs * kMrPages);
		std::vector<Named> keys, tries;
		TestReq r;

		Init(&r, &keys);
		for (u32 i = 0; i < kMrs; i++)
			MapSg(&r, fresh, i * kMrPages * PAGE_SIZE, 64,
			      RDMA_MR_REMOTE_READ | RDMA_MR_REMOTE_WRITE);
		PostReq(&r);
		for (const Named &o : old)
			for (const Named &n : keys) {
				tries.push_back({o.key, n.iova, 64});
				tries.push_back(o);
			}
		ExpectAllDead(tries, fresh, seed);
		// Retired by deregistration, so the next test starts clean.
		rdma_rkey_req_retire(&r.rk, nullptr);
		EXPECT_EQ(Free(), kMrs);
		EXPECT_EQ(r.calls, 1);
	}

	rdma_rkey_set *set_ = nullptr;
	bool fmr_ = false;
	ib_send_wr send_{};
	std::vector<Sg> sgs_;
	size_t polled_ = 0;
	Buffer peer_mem_{kMrPages};
};

// The peer invalidated the one key with its reply: the MR comes back at
// once, inside the retire, with no WR posted.
TEST_P(RkeySetTest, RemoteInvalidationGivesTheMrBackAtOnce)
{
	if (!RemoteInvalidation())
		GTEST_SKIP() << "no remote invalidation of FMR keys";
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	Init(&r, &keys);
	MapSg(&r, mem, 100, 2 * PAGE_SIZE, RDMA_MR_REMOTE_WRITE);
	EXPECT_EQ(Free(), kMrs - 1);
	PostReq(&r);
	PeerUses(keys[0], mem, 100, true, 1);
	ib_wc wc = Reply(&keys[0].key);
	ASSERT_EQ(wc.wc_flags, IB_WC_WITH_INVALIDATE);
	ASSERT_FALSE(KeyLive(local_.hca->dev(), keys[0].key));
	size_t queued = sim::queued(local_.qp);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	EXPECT_EQ(r.calls, 1) << "done did not run within the retire";
	EXPECT_EQ(sim::queued(local_.qp), queued) << "a WR for a dead key";
	ExpectRetired(r, 0, mem, 2);
	ExpectStaleAfterReuse(keys, 3);
}

// A set's MRs get their new device MRs from the pool's work, never from a
// map: mapping may run where a ULP cannot sleep.  An MR that handed out
// its last key (MRCORE_KEY_USES) waits, quarantined, for the work; the
// MRs start at staggered counts (0, 64, 128, 192 for four), so they come
// to their last key one at a time; no key value comes back.
TEST_P(RkeySetTest, KeysRunOutInTheWorkNotInTheMap)
{
	ib_device *dev = local_.hca->dev();
	std::set<u32> seen;
	Buffer mem(kMrPages);
	u32 cycles = 0, recycled = 0;
	u64 recycled0 = 0, now = 0;
	int ret = 0;

	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &recycled0), 0);
	for (;;) {
		std::vector<Named> keys;
		Named n{.len = 64};
		TestReq r;
		Sg sg;

		Init(&r, &keys);
		sg.add(mem.at(cycles % 64 * 64), 64);
		ret = rdma_rkey_map_sg(&r.rk, sg.get(), sg.n(),
				       RDMA_MR_REMOTE_WRITE, &n.key, &n.iova);
		if (ret)
			break;
		ASSERT_TRUE(seen.insert(n.key).second)
			<< "key " << n.key << " came back after " << cycles;
		keys.push_back(n);
		PostReq(&r);
		ib_wc wc = Reply(RemoteInvalidation() ? &n.key : nullptr);
		EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
		PollCq();
		ASSERT_EQ(r.calls, 1);
		ASSERT_EQ(r.status, 0);
		ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
		ASSERT_EQ(now, recycled0) << "a map replaced a device MR";
		cycles++;
		ASSERT_LT(cycles, kMrs * MRCORE_KEY_USES);
	}
	EXPECT_EQ(ret, -EAGAIN) << "every MR waits for the work";
	// 256 + 192 + 128 + 64 keys of the first device MRs.
	EXPECT_EQ(cycles, kMrs * MRCORE_KEY_USES * (kMrs + 1) / (2 * kMrs));
	EXPECT_EQ(Free(), kMrs) << "the work gave the MRs new device MRs";
	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
	recycled = u32(now - recycled0);
	EXPECT_EQ(recycled, kMrs);

	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_READ);
	EXPECT_FALSE(seen.count(keys[0].key)) << "an old key value came back";
	rdma_rkey_req_retire(&r.rk, nullptr);
	EXPECT_EQ(Free(), kMrs);
}

// A large set's work replaces device MRs in batches: one work item per
// sixteenth of the set (4 MRs of 64 here), not one per MR, while the set
// has that many free; rdma_rkey_set_drain() replaces a batch not yet full.
// A device MR (key >> 8) is quarantined with its MRCORE_KEY_USES-th key,
// counted from its staggered start (MR i of n at MRCORE_KEY_USES * i / n,
// the set's MRs taken in order at first), so the test knows how many wait;
// after each command a worker runs what is queued, and only whole batches
// may have been replaced.
TEST_P(RkeySetTest, LargeSetReplacesDeviceMrsInBatches)
{
	constexpr u32 kBig = 64, kBatch = kBig / 16;
	ib_device *dev = local_.hca->dev();
	std::map<u32, u32> uses;
	Buffer mem(1);
	u32 spent = 0, cycles = 0;
	u64 recycled0 = 0, now = 0;

	rdma_rkey_set *big = rdma_rkey_set_create(local_.qp, kBig, 1);
	ASSERT_FALSE(IS_ERR(big));
	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &recycled0), 0);
	while (spent < 2 * kBatch + 1) {
		Sg sg;

		sg.add(mem.at(cycles % 64 * 64), 64);
		spent += Command(big, sg, &uses, cycles, kBig);
		ASSERT_FALSE(HasFailure());
		ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
		ASSERT_EQ(now - recycled0, spent / kBatch * kBatch)
			<< "after " << cycles << " commands, " << spent
			<< " device MRs spent";
		ASSERT_LT(++cycles, kBig * MRCORE_KEY_USES);
	}
	EXPECT_EQ(rdma_rkey_set_drain(big), kBig);
	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
	EXPECT_EQ(now - recycled0, spent) << "the drain left a batch waiting";
	rdma_rkey_set_destroy(big);
}

// A set that runs dry replaces what its quarantine holds at once: with one
// device MR spent (its MR waiting for a batch) and every other MR held by
// requests, a map is refused with -EAGAIN and queues the work; after a
// worker's turn the MR is back with a new device MR and the map is served.
TEST_P(RkeySetTest, DrySetReplacesItsQuarantineAtOnce)
{
	constexpr u32 kBig = 64;
	ib_device *dev = local_.hca->dev();
	std::map<u32, u32> uses;
	Buffer mem(1);
	std::vector<std::vector<Named>> held_keys(kBig / RDMA_RKEY_REQ_MAX_MRS);
	std::vector<TestReq> held(held_keys.size());
	u32 spent = 0, cycles = 0, taken = 0;
	u64 recycled0 = 0, now = 0;
	std::vector<Sg> sgs(kBig);
	Sg one;
	Named n{.len = 64};

	rdma_rkey_set *big = rdma_rkey_set_create(local_.qp, kBig, 1);
	ASSERT_FALSE(IS_ERR(big));
	one.add(mem, 0, 0, 64);
	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &recycled0), 0);
	while (!spent) {
		spent += Command(big, one, &uses, cycles, kBig);
		ASSERT_FALSE(HasFailure());
		ASSERT_LT(++cycles, kBig * MRCORE_KEY_USES);
	}
	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
	EXPECT_EQ(now, recycled0) << "one spent MR is not a batch";

	// Every MR but the spent one held, up to RDMA_RKEY_REQ_MAX_MRS a request.
	for (u32 h = 0; taken < kBig - 1; h++) {
		Init(&held[h], &held_keys[h], big);
		for (u32 i = 0; i < RDMA_RKEY_REQ_MAX_MRS && taken < kBig - 1;
		     i++, taken++) {
			sgs[taken].add(mem.at(taken * 64), 64);
			ASSERT_EQ(rdma_rkey_map_sg(&held[h].rk,
						   sgs[taken].get(), 1,
						   RDMA_MR_REMOTE_WRITE, &n.key,
						   &n.iova),
				  0);
			held_keys[h].push_back(n);
			spent += Spends(&uses, n.key, kBig, kBig);
		}
	}
	ASSERT_EQ(spent, 1u) << "a held MR spent its device MR too";
	std::vector<Named> keys;
	TestReq r;

	Init(&r, &keys, big);
	EXPECT_EQ(rdma_rkey_map_sg(&r.rk, one.get(), 1, RDMA_MR_REMOTE_WRITE,
				   &n.key, &n.iova), -EAGAIN);
	EXPECT_GE(sim::run_work(), 1u) << "the dry map queued no work";
	ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
	EXPECT_EQ(now - recycled0, 1u);
	ASSERT_EQ(rdma_rkey_map_sg(&r.rk, one.get(), 1, RDMA_MR_REMOTE_WRITE,
				   &n.key, &n.iova), 0);
	EXPECT_FALSE(uses.count(n.key >> 8)) << "not a new device MR";

	rdma_rkey_req_retire(&r.rk, nullptr);
	for (TestReq &h : held)
		if (h.rk.nr_mrs)
			rdma_rkey_req_retire(&h.rk, nullptr);
	EXPECT_EQ(rdma_rkey_set_drain(big), kBig);
	rdma_rkey_set_destroy(big);
}

// A set whose MRs come on demand starts with RDMA_RKEY_REQ_MAX_MRS, so that
// a request of the most MRs always fits.  A map that finds them all taken
// gets -EAGAIN and queues the set's work, which adds a batch and then
// calls the ULP's space callback (a ULP that waits for MRs needs to hear
// of these, which no request gives back); the map then succeeds.  It grows
// a batch at a time, never past its size.
TEST_P(RkeySetTest, OnDemandSetGrowsAndSaysSo)
{
	ib_device *dev = local_.hca->dev();
	constexpr u32 kMax = RDMA_RKEY_REQ_MAX_MRS;
	const struct {
		u32 size, batch;
	} sets[] = { { 32, 2 }, { kMax + 1, 1 } };

	for (const auto &c : sets) {
		SCOPED_TRACE(c.size);
		int spaced = 0;
		u64 grown0 = 0, grown = 0;
		rdma_rkey_set *s = rdma_rkey_set_create_flags(
			local_.qp, c.size, 1, RDMA_RKEY_SET_MRS_ON_DEMAND,
			[](void *arg) { ++*static_cast<int *>(arg); }, &spaced);
		ASSERT_FALSE(IS_ERR(s));
		EXPECT_EQ(rdma_rkey_set_size(s), kMax);
		ASSERT_EQ(rdma_mrcore_device_counter(dev, "pool_grown", &grown0), 0);

		Buffer mem(1);
		std::vector<Sg> sgs(kMax + 4);
		std::vector<Named> held_keys, keys;
		TestReq held, r;
		Named n{.len = 64};

		Init(&held, &held_keys, s);
		for (u32 i = 0; i < kMax; i++) {
			sgs[i].add(mem.at(i * 64), 64);
			ASSERT_EQ(rdma_rkey_map_sg(&held.rk, sgs[i].get(), 1,
						   RDMA_MR_REMOTE_WRITE, &n.key,
						   &n.iova), 0);
			held_keys.push_back(n);
		}
		Init(&r, &keys, s);
		sgs[kMax].add(mem.at(kMax * 64), 64);
		EXPECT_EQ(rdma_rkey_map_sg(&r.rk, sgs[kMax].get(), 1,
					   RDMA_MR_REMOTE_WRITE, &n.key, &n.iova),
			  -EAGAIN);
		EXPECT_EQ(spaced, 0) << "told before any MR was added";
		EXPECT_GE(sim::run_work(), 1u) << "the dry map queued no work";
		EXPECT_EQ(spaced, 1);
		EXPECT_EQ(rdma_rkey_set_size(s), kMax + c.batch);
		ASSERT_EQ(rdma_mrcore_device_counter(dev, "pool_grown", &grown), 0);
		EXPECT_EQ(grown - grown0, c.batch);
		ASSERT_EQ(rdma_rkey_map_sg(&r.rk, sgs[kMax].get(), 1,
					   RDMA_MR_REMOTE_WRITE, &n.key, &n.iova),
			  0);
		keys.push_back(n);

		// Taken to its size: a dry map adds nothing more.
		for (u32 i = 1; i < c.batch; i++) {
			sgs[kMax + i].add(mem.at((kMax + i) * 64), 64);
			ASSERT_EQ(rdma_rkey_map_sg(&r.rk, sgs[kMax + i].get(), 1,
						   RDMA_MR_REMOTE_WRITE, &n.key,
						   &n.iova), 0);
		}
		if (c.size == kMax + c.batch) {
			u32 last = kMax + c.batch;

			sgs[last].add(mem.at(last * 64), 64);
			EXPECT_EQ(rdma_rkey_map_sg(&r.rk, sgs[last].get(), 1,
						   RDMA_MR_REMOTE_WRITE, &n.key,
						   &n.iova), -EAGAIN);
			sim::run_work();
			EXPECT_EQ(rdma_rkey_set_size(s), c.size);
			EXPECT_EQ(spaced, 1) << "told with nothing added";
		}

		rdma_rkey_req_retire(&r.rk, nullptr);
		rdma_rkey_req_retire(&held.rk, nullptr);
		EXPECT_EQ(rdma_rkey_set_drain(s), rdma_rkey_set_size(s));
		EXPECT_EQ(r.calls, 1);
		EXPECT_EQ(held.calls, 1);
		rdma_rkey_set_destroy(s);
	}
	EXPECT_EQ(PTR_ERR(rdma_rkey_set_create_flags(local_.qp, 4, 1, 2,
						     nullptr, nullptr)),
		  -EINVAL);
}

// A reply that invalidates nothing: one chain of LOCAL_INVs, the last one
// signaled; the MRs and the memory come back only with its completion.
TEST_P(RkeySetTest, LocalInvalidationGivesTheMrsBackWithItsCompletion)
{
	Buffer mem(3 * kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_READ, false);
	MapSg(&r, mem, kMrPages * PAGE_SIZE + 8, 3 * PAGE_SIZE,
	      RDMA_MR_REMOTE_WRITE);
	PostReq(&r);
	PeerUses(keys[0], mem, 0, false, 11);
	PeerUses(keys[1], mem, kMrPages * PAGE_SIZE + 8, true, 12);
	ib_wc wc = Reply(nullptr);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	if (SyncInvalidate()) {
		EXPECT_EQ(r.calls, 1) << "a synchronous invalidation posts nothing";
	} else {
		EXPECT_EQ(r.calls, 0) << "done ran before the LOCAL_INVs did";
		EXPECT_EQ(Free(), kMrs - 2) << "MRs back before their keys died";
		EXPECT_EQ(sim::queued(local_.qp), 2u);
		sim::drain();
		EXPECT_EQ(sim::completions(local_.qp).size(), 1u)
			<< "one signaled WR for the whole chain";
		PollCq();
	}
	ExpectRetired(r, 0, mem, 13);
	ExpectStaleAfterReuse(keys, 14);
}

// Three keys, the peer invalidates the middle one: the two others get a
// LOCAL_INV each.
TEST_P(RkeySetTest, RemoteAndLocalInvalidationTogether)
{
	if (!RemoteInvalidation())
		GTEST_SKIP() << "no remote invalidation of FMR keys";
	Buffer mem(3 * kMrPages);
	std::vector<Named> keys;
	TestReq r;

	Init(&r, &keys);
	for (u32 i = 0; i < 3; i++)
		MapSg(&r, mem, i * kMrPages * PAGE_SIZE, PAGE_SIZE,
		      RDMA_MR_REMOTE_READ);
	PostReq(&r);
	for (u32 i = 0; i < 3; i++)
		ExpectAttackerServed(keys[i], mem, i * kMrPages * PAGE_SIZE,
				     false, 20);
	ib_wc wc = Reply(&keys[1].key);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	if (!SyncInvalidate()) {
		EXPECT_EQ(sim::queued(local_.qp), 2u);
		EXPECT_EQ(Free(), kMrs - 3);
		sim::drain();
		PollCq();
	}
	ExpectRetired(r, 0, mem, 21);
}

// The peer's SEND_WITH_INV names another MR's key of the PD (a bogus
// remote invalidation): no key of the request counts as dead, each gets
// its LOCAL_INV, and the retire says the reply was bogus.
TEST_P(RkeySetTest, RemoteInvalidationOfAnotherKeyKillsNone)
{
	if (!RemoteInvalidation())
		GTEST_SKIP() << "no remote invalidation of FMR keys";
	Buffer mem(kMrPages), other(1);
	std::vector<Named> keys;
	TestReq r;
	Sg osg;
	u32 okey;
	u64 oiova;

	osg.add(other, 0, 0, 64);
	rdma_mr *omr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ASSERT_FALSE(IS_ERR(omr));
	ib_send_wr *chain = nullptr;
	ASSERT_EQ(rdma_map_sg_rkey(&okey, &oiova, omr, osg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), 0);
	if (chain)
		Post(local_.qp, chain);
	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE);
	ib_wc wc = Reply(&okey);
	ASSERT_EQ(wc.ex.invalidate_rkey, okey);
	EXPECT_TRUE(KeyLive(local_.hca->dev(), keys[0].key));
	ExpectAttackerServed(keys[0], mem, 0, true, 30);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), -EKEYREJECTED)
		<< "a reply that invalidated another key passed as this one's";
	sim::drain();
	PollCq();
	ExpectRetired(r, 0, mem, 31);
	ASSERT_EQ(rdma_mr_remote_invalidated(omr, okey), 0);
	ASSERT_EQ(rdma_unmap_mr(omr), 0);
	rdma_destroy_mr(omr);
}

// No reply comes (a timeout, a lost connection): the set's work kills
// every key by deregistration, then gives the memory back with -EIO.
TEST_P(RkeySetTest, NoReplyKillsTheKeysInTheWork)
{
	Buffer mem(2 * kMrPages);
	std::vector<Named> keys;
	TestReq r;

	Init(&r, &keys);
	MapSg(&r, mem, 0, 2 * PAGE_SIZE, RDMA_MR_REMOTE_READ);
	MapSg(&r, mem, kMrPages * PAGE_SIZE, PAGE_SIZE, RDMA_MR_REMOTE_WRITE);
	PostReq(&r);
	PeerUses(keys[1], mem, kMrPages * PAGE_SIZE, true, 41);
	rdma_rkey_req_retire(&r.rk, nullptr);
	EXPECT_EQ(r.calls, 0) << "the keys die in process context, not here";
	ExpectRetired(r, -EIO, mem, 42);
	EXPECT_EQ(rdma_rkey_set_size(set_), kMrs) << "MRs not replaced";
	ExpectStaleAfterReuse(keys, 43);
}

// A reply whose Receive failed (flushed): as without a reply.
TEST_P(RkeySetTest, FailedReplyKillsTheKeysInTheWork)
{
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;
	ib_wc wc{};

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE);
	ExpectAttackerServed(keys[0], mem, 0, true, 50);
	wc.status = IB_WC_WR_FLUSH_ERR;
	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	wc.ex.invalidate_rkey = keys[0].key;
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	ExpectRetired(r, -EIO, mem, 51);
}

// The LOCAL_INV fails (the QP broke under it): the keys' state is unknown,
// the work deregisters the MRs.
TEST_P(RkeySetTest, FailedLocalInvalidationKillsTheKeysInTheWork)
{
	if (SyncInvalidate())
		GTEST_SKIP() << "no LOCAL_INV: the backend invalidates synchronously";
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE);
	ExpectAttackerServed(keys[0], mem, 0, true, 60);
	ib_wc wc = Reply(nullptr);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	sim::set_qp_error(local_.qp);
	sim::drain();
	PollCq();
	EXPECT_EQ(r.calls, 0) << "memory given back after a failed invalidation";
	ExpectRetired(r, -EIO, mem, 61);
}

// The LOCAL_INV chain is refused whole (a send queue full): the queue may
// still hold the request's registration, if the completion the retire got
// was not the peer's reply (xprtrdma's RPC that ends without one).  The
// work drains the send queue before it deregisters the MRs, as after a
// partial post.
TEST_P(RkeySetTest, RefusedLocalInvalidationIsDrainedThenRetired)
{
	if (SyncInvalidate())
		GTEST_SKIP() << "no LOCAL_INV: the backend invalidates synchronously";
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE);
	ExpectAttackerServed(keys[0], mem, 0, true, 65);
	ib_wc wc = Reply(nullptr);
	ASSERT_EQ(rdma_mrcore_fault_arm("post_send", 0, 1), 0);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	rdma_mrcore_fault_arm("post_send", 0, 0);
	ExpectRetired(r, -EIO, mem, 66);
	EXPECT_TRUE(sim::qp_in_error(local_.qp)) << "the send queue was not drained";
}

// Mapped and never posted, or its post refused whole: retired without a
// reply.  No registration ran, so no key lived (ExpectAllDead() shows the
// attacker's reach before each refusal): the MRs come back within the
// retire, clean, and no device MR is replaced.  FMR maps synchronously:
// its key lived, and the work kills it by deregistration.
TEST_P(RkeySetTest, NeverPostedIsGivenBackAtOnce)
{
	ib_device *dev = local_.hca->dev();

	for (bool refused : {false, true}) {
		SCOPED_TRACE(refused ? "post refused whole" : "never posted");
		Buffer mem(kMrPages);
		std::vector<Named> keys;
		TestReq r;
		u64 recycled0 = 0, now = 0;

		ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled",
						     &recycled0), 0);
		StartOne(&r, &keys, mem, RDMA_MR_REMOTE_READ, false);
		if (refused) {
			ASSERT_EQ(rdma_mrcore_fault_arm("post_send", 0, 1), 0);
			int ret = rdma_rkey_req_post(&r.rk);
			rdma_mrcore_fault_arm("post_send", 0, 0);
			ASSERT_LT(ret, 0);
			ASSERT_NE(ret, -EINPROGRESS);
		}
		rdma_rkey_req_retire(&r.rk, nullptr);
		if (SyncInvalidate()) {
			ExpectRetired(r, -EIO, mem, 71 + refused);
			continue;
		}
		EXPECT_EQ(r.calls, 1) << "not given back within the retire";
		ExpectRetired(r, 0, mem, 71 + refused);
		ASSERT_EQ(rdma_mrcore_device_counter(dev, "mr_recycled", &now), 0);
		EXPECT_EQ(now, recycled0) << "a device MR replaced for a key that never lived";
	}
}

// The driver took the registration, not the rest (-EINPROGRESS): the
// registration ran, its key is live; the work drains the send queue before
// it replaces the MR.
TEST_P(RkeySetTest, PartialPostIsDrainedThenRetired)
{
	if (SyncInvalidate())
		GTEST_SKIP() << "no registration WR to take in part";
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE, false);
	sim::set_max_send_wr(local_.qp, 1);
	ASSERT_EQ(rdma_rkey_req_post(&r.rk), -EINPROGRESS);
	ASSERT_EQ(sim::step(local_.qp, 1), 1u);
	ASSERT_TRUE(KeyLive(local_.hca->dev(), keys[0].key));
	ExpectAttackerServed(keys[0], mem, 0, true, 80);
	rdma_rkey_req_retire(&r.rk, nullptr);
	ExpectRetired(r, -EIO, mem, 81);
	EXPECT_TRUE(sim::qp_in_error(local_.qp)) << "the send queue was not drained";
}

// Destroying the set runs the retires still queued.
TEST_P(RkeySetTest, DestroyRunsQueuedRetires)
{
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_READ);
	ExpectAttackerServed(keys[0], mem, 0, false, 90);
	rdma_rkey_req_retire(&r.rk, nullptr);
	rdma_rkey_set_destroy(set_);
	set_ = nullptr;
	ExpectRetired(r, -EIO, mem, 91);
}

// A key killed without a reply (a request cancelled in nvme-rdma's error
// recovery, which waits for it) gets a new device MR allocated without
// waiting for I/O, which may be queued on the device being recovered
// (memalloc_noio_save()); the set's first device MRs were not.
TEST_P(RkeySetTest, KilledKeysNewDeviceMrWaitsForNoIo)
{
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE);
	EXPECT_EQ(local_.hca->noio_mrs(), 0u) << "the set's own device MRs";
	rdma_rkey_req_retire(&r.rk, nullptr);
	ExpectRetired(r, -EIO, mem, 102);
	EXPECT_EQ(local_.hca->noio_mrs(), 1u)
		<< "a replacement's allocation may wait for I/O";
}

// No new device MR for a killed key: the MR is freed, the set shrinks by
// one, the request still completes with its keys dead.
TEST_P(RkeySetTest, ResetWithoutANewDeviceMrShrinksTheSet)
{
	Buffer mem(kMrPages);
	std::vector<Named> keys;
	TestReq r;

	StartOne(&r, &keys, mem, RDMA_MR_REMOTE_WRITE);
	ExpectAttackerServed(keys[0], mem, 0, true, 100);
	rdma_rkey_req_retire(&r.rk, nullptr);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	EXPECT_EQ(Free(), kMrs - 1);
	rdma_mrcore_fault_arm("mr_alloc", 0, 0);
	EXPECT_EQ(rdma_rkey_set_size(set_), kMrs - 1);
	ExpectRetired(r, -EIO, mem, 101);
}

// Exhaustion: the set's MRs, then nothing (-EAGAIN); a request holds at
// most RDMA_RKEY_REQ_MAX_MRS (-EMSGSIZE).  A refused map leaves the
// request and the set as they were.
TEST_P(RkeySetTest, ExhaustionAndTheRequestLimit)
{
	Buffer mem(RDMA_RKEY_REQ_MAX_MRS + 1);
	std::vector<Named> ka, kb;
	TestReq a, b;
	Sg one;
	u32 key;
	u64 iova;

	one.add(mem, 0, 0, 64);
	Init(&a, &ka);
	for (u32 i = 0; i < kMrs; i++)
		MapSg(&a, mem, i * PAGE_SIZE, 64, RDMA_MR_REMOTE_READ);
	EXPECT_EQ(rdma_rkey_map_sg(&a.rk, one.get(), 1, RDMA_MR_REMOTE_READ,
				   &key, &iova), -EAGAIN);
	Init(&b, &kb);
	EXPECT_EQ(rdma_rkey_map_sg(&b.rk, one.get(), 1, RDMA_MR_REMOTE_READ,
				   &key, &iova), -EAGAIN);
	EXPECT_EQ(a.rk.nr_mrs, kMrs);
	EXPECT_EQ(b.rk.nr_mrs, 0u);
	PostReq(&a);
	ib_wc wc = Reply(nullptr);
	EXPECT_EQ(rdma_rkey_req_retire(&a.rk, &wc), 0);
	sim::drain();
	PollCq();
	EXPECT_EQ(a.calls, 1);
	EXPECT_EQ(Free(), kMrs);

	// The pool fault point refuses too.
	ASSERT_EQ(rdma_mrcore_fault_arm("pool_empty", 0, 1), 0);
	EXPECT_EQ(rdma_rkey_map_sg(&b.rk, one.get(), 1, RDMA_MR_REMOTE_READ,
				   &key, &iova), -EAGAIN);
	rdma_mrcore_fault_arm("pool_empty", 0, 0);

	// A set larger than one request may hold.
	rdma_rkey_set *big = rdma_rkey_set_create(local_.qp,
						  RDMA_RKEY_REQ_MAX_MRS + 1, 1);
	ASSERT_FALSE(IS_ERR(big));
	std::vector<Named> kc;
	TestReq c;
	Init(&c, &kc, big);
	for (u32 i = 0; i < RDMA_RKEY_REQ_MAX_MRS; i++)
		MapSg(&c, mem, i * PAGE_SIZE, 64, RDMA_MR_REMOTE_READ);
	EXPECT_EQ(rdma_rkey_map_sg(&c.rk, one.get(), 1, RDMA_MR_REMOTE_READ,
				   &key, &iova), -EMSGSIZE);
	rdma_rkey_req_retire(&c.rk, nullptr);
	EXPECT_EQ(rdma_rkey_set_drain(big), RDMA_RKEY_REQ_MAX_MRS + 1);
	// Never posted: no key lived but FMR's, killed by deregistration.
	EXPECT_EQ(c.status, SyncInvalidate() ? -EIO : 0);
	rdma_rkey_set_destroy(big);
}

// A page array: split into MRs of kMrPages pages from an offset inside
// the first page; the peer READs each segment, byte for byte.
TEST_P(RkeySetTest, PagesAreSplitIntoOneMrEach)
{
	Buffer mem(3 * kMrPages);
	const u32 off = PAGE_SIZE + 100, len = 2 * kMrPages * PAGE_SIZE + 50;
	std::vector<Named> keys;
	TestReq r;

	Init(&r, &keys);
	std::vector<Named> segs = MapPages(&r, mem, off, len,
					   RDMA_MR_REMOTE_READ);
	ASSERT_EQ(segs.size(), 3u);
	EXPECT_EQ(segs[0].len, kMrPages * PAGE_SIZE - 100);
	EXPECT_EQ(segs[1].len, kMrPages * PAGE_SIZE);
	EXPECT_EQ(segs[2].len, 150u);
	PostReq(&r);
	u32 at = off;
	for (const Named &s : segs) {
		PeerUses(s, mem, at, false, 111);
		at += s.len;
	}
	// READ only: a WRITE through it is refused.
	attacker_src_.fill(112);
	EXPECT_EQ(Attack(IB_WR_RDMA_WRITE, segs[1].iova, segs[1].key,
			 attacker_src_.at(0), 64), Access::kRefused);
	rdma_rkey_req_retire(&r.rk, nullptr);
	ExpectRetired(r, -EIO, mem, 113);
}

// bio_vecs, advertised one MR at a time: a multi-page one, pieces that
// meet on a page boundary or continue each other inside a page share an
// MR; an MR ends at its last page or at a hole.  The peer WRITEs each
// segment, byte for byte.
TEST_P(RkeySetTest, BvecsAreSplitIntoOneMrEach)
{
	Buffer mem(4 * kMrPages);
	auto bvec = [&](size_t page, u32 off, u32 len) {
		return bio_vec{.bv_page = virt_to_page(mem.at(page * PAGE_SIZE)),
			       .bv_len = len, .bv_offset = off};
	};
	const bio_vec bv[] = {
		bvec(0, 8, 2 * PAGE_SIZE - 8),	// pages 0-1
		bvec(2, 0, 5 * PAGE_SIZE),	// pages 2-6, meets on a boundary
		bvec(8, 100, 300),		// a hole: starts inside a page
		bvec(8, 400, 100),		// goes on inside the same page
		bvec(10, 0, 200),		// a hole: the last one ends inside
	};
	bvec_iter iter = {.bi_size = 7 * PAGE_SIZE - 8 + 600};
	const struct {
		size_t off;
		u32 len;
	} want[] = {
		{8, 4 * PAGE_SIZE - 8},		// MR full: 4 pages
		{4 * PAGE_SIZE, 3 * PAGE_SIZE},	// up to the hole
		{8 * PAGE_SIZE + 100, 400},
		{10 * PAGE_SIZE, 200},
	};
	std::vector<Named> keys;
	TestReq r;

	Init(&r, &keys);
	while (iter.bi_size) {
		Named n{};
		u32 left = iter.bi_size;

		ASSERT_EQ(rdma_rkey_map_bvec(&r.rk, bv, std::size(bv), &iter,
					     RDMA_MR_REMOTE_WRITE, &n.key, &n.iova,
					     &n.len), 0);
		EXPECT_EQ(left - iter.bi_size, n.len);
		keys.push_back(n);
	}
	ASSERT_EQ(keys.size(), std::size(want));
	for (size_t i = 0; i < keys.size(); i++) {
		EXPECT_EQ(keys[i].iova, mem.addr(want[i].off)) << "segment " << i;
		EXPECT_EQ(keys[i].len, want[i].len) << "segment " << i;
	}
	PostReq(&r);
	for (size_t i = 0; i < keys.size(); i++)
		PeerUses(keys[i], mem, want[i].off, true, 121 + i);
	ib_wc wc = Reply(RemoteInvalidation() ? &keys[2].key : nullptr);
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	sim::drain();
	PollCq();
	ExpectRetired(r, 0, mem, 131);
}

// What the set refuses, with the request and the set unchanged.
TEST_P(RkeySetTest, BadInput)
{
	Buffer mem(2 * kMrPages);
	std::vector<Named> keys;
	TestReq r;
	Sg big, one;
	u32 key;
	u64 iova;
	u32 len;

	EXPECT_EQ(PTR_ERR(rdma_rkey_set_create(nullptr, 1, 1)), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_rkey_set_create(local_.qp, 0, 1)), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_rkey_set_create(local_.qp, 1, 0)), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_rkey_set_create(local_.qp, 1, 1u << 20)), -E2BIG);
	Init(&r, &keys);
	one.add(mem, 0, 0, 64);
	for (u32 i = 0; i <= kMrPages; i++)
		big.add(mem, i, 0, PAGE_SIZE);
	EXPECT_EQ(rdma_rkey_map_sg(&r.rk, big.get(), big.n(), RDMA_MR_REMOTE_READ,
				   &key, &iova), -E2BIG);
	EXPECT_EQ(rdma_rkey_map_sg(&r.rk, one.get(), 1, RDMA_MR_LOCAL_SEND_SRC,
				   &key, &iova), -EINVAL);
	EXPECT_EQ(rdma_rkey_map_sg(&r.rk, one.get(), 0, RDMA_MR_REMOTE_READ,
				   &key, &iova), -EINVAL);
	EXPECT_EQ(rdma_rkey_map_sg(nullptr, one.get(), 1, RDMA_MR_REMOTE_READ,
				   &key, &iova), -EINVAL);
	EXPECT_EQ(rdma_rkey_map_sg(&r.rk, one.get(), 1, RDMA_MR_REMOTE_READ,
				   nullptr, &iova), -EINVAL);

	const bio_vec bv = {.bv_page = virt_to_page(mem.at(0)), .bv_len = 64};
	bvec_iter past = {.bi_size = 64, .bi_idx = 1};
	bvec_iter inside = {.bi_size = 64, .bi_bvec_done = 64};
	bvec_iter none = {};
	EXPECT_EQ(rdma_rkey_map_bvec(&r.rk, &bv, 1, &past, RDMA_MR_REMOTE_READ,
				     &key, &iova, &len), -EINVAL);
	EXPECT_EQ(past.bi_idx, 1u);
	EXPECT_EQ(rdma_rkey_map_bvec(&r.rk, &bv, 1, &inside,
				     RDMA_MR_REMOTE_READ, &key, &iova, &len),
		  -EINVAL);
	EXPECT_EQ(rdma_rkey_map_bvec(&r.rk, &bv, 1, &none, RDMA_MR_REMOTE_READ,
				     &key, &iova, &len), -EINVAL);
	page *pg = virt_to_page(mem.at(0));
	EXPECT_EQ(rdma_rkey_map_pages(&r.rk, &pg, 0, 0, RDMA_MR_REMOTE_READ,
				      &key, &iova, &len), -EINVAL);
	EXPECT_EQ(rdma_rkey_map_pages(&r.rk, nullptr, 0, 64,
				      RDMA_MR_REMOTE_READ, &key, &iova, &len),
		  -EINVAL);
	EXPECT_EQ(r.rk.nr_mrs, 0u);
	EXPECT_EQ(Free(), kMrs);
	EXPECT_EQ(rdma_rkey_req_post(nullptr), -EINVAL);
	rdma_rkey_req_init(&r.rk, set_, nullptr, Done);
	EXPECT_EQ(rdma_rkey_req_post(&r.rk), -EINVAL) << "nothing to post";
	// Nothing mapped: a reply completes the request at once.
	ib_wc wc{};
	EXPECT_EQ(rdma_rkey_req_retire(&r.rk, &wc), 0);
	EXPECT_EQ(r.calls, 1);
	EXPECT_EQ(r.status, 0);
}

const sim::Profile *const kProfiles[] = {&sim::kRoce, &sim::kIwarp, &sim::kSiw,
					 &sim::kFmr};

std::string ProfileName(const ::testing::TestParamInfo<const sim::Profile *> &i)
{
	return i.param->name;
}

INSTANTIATE_TEST_SUITE_P(Profiles, RkeySetTest, ::testing::ValuesIn(kProfiles),
			 ProfileName);

} // namespace
} // namespace mirror
