// SPDX-License-Identifier: GPL-2.0-only
//
// The security rules of DESIGN.md, shown on the simulated HCA by a peer
// that tries what it must not be able to do, on every profile whose MRs
// the core serves: roce, iwarp, siw and fmr (nofastreg has no MR backend).
// Each refusal follows a control: the same key served the access it
// grants (or, for a key that grants the peer nothing, its owner's own use
// of it) while it lived.  A refusal through a key that grants the peer
// nothing checks its rights, not its death; it follows the attacker's
// reach too (MirrorTest::ExpectAttackerReaches(): the same QP, op, address
// and length served through a reference rkey over the bytes), so that a
// peer that could not post fails the case instead of passing as refused.
// Where the device serves more than the key grants (siw answers a READ
// through any live key, tests/cases/profiles.h), the case asserts that it
// does, then that the API's way of killing the key ends it, as the KUnit
// e2e suites do on siw (kunit/suites/e2e_kunit.c).
#include <utility>

#include "fixture.h"

namespace mirror {
namespace {

// siw's defect, as kunit/suites/e2e_kunit.c names it.
constexpr const char *kSiwReadDefect =
	"siw 6.12 does not check REMOTE_READ on READ requests "
	"(siw_qp_tx.c: siw_check_sgl_tx(pd, wqe, 0))";

// What the fmr profile lacks for the remote-invalidation cases.
constexpr const char *kNoRemoteInvalidation =
	"fmr: the device cannot invalidate an FMR key for the peer (no "
	"SEND_WITH_INV or READ_WITH_INV of an FMR handle; its key dies only "
	"through the unmap callback), so there is no remote invalidation to "
	"record";

class SecurityTest : public MirrorTest,
		     public ::testing::WithParamInterface<const sim::Profile *> {
protected:
	void SetUp() override
	{
		SetUpNodes(*GetParam());
		// On fmr the MRs are the FMR callbacks the vendor registers,
		// on both nodes: the peer exposes memory too.
		if (Fmr())
			for (Node *n : {&local_, &peer_}) {
				ASSERT_EQ(rdma_fmr_register(n->hca->dev(),
							    &sim::kFmrOps,
							    GetParam()->fmr_max_pages),
					  0);
				fmr_devs_.push_back(n->hca->dev());
			}
	}

	void TearDown() override
	{
		for (ib_device *dev : fmr_devs_)
			rdma_fmr_unregister(dev);
		MirrorTest::TearDown();
	}

	bool Fmr() const { return GetParam()->fmr_max_pages; }
	// siw: the responder serves a READ through any valid key of the PD.
	bool ReadsAnyLiveKey() const
	{
		return !GetParam()->checks_remote_read_access;
	}

	// The peer's node in local_ until the guard goes (for the peer to
	// expose memory with the fixture's helpers).
	struct AsPeer {
		explicit AsPeer(SecurityTest *t) : t_(t)
		{
			std::swap(t_->local_, t_->peer_);
		}
		~AsPeer() { std::swap(t_->local_, t_->peer_); }
		AsPeer(const AsPeer &) = delete;
		AsPeer &operator=(const AsPeer &) = delete;
		SecurityTest *t_;
	};

	// Map @pages pages of @buf for the peer and post the registration.
	rdma_mr *ExposeRkey(Buffer &buf, unsigned int off, unsigned int len,
			    unsigned int ops, u32 *rkey, u64 *iova)
	{
		Sg sg;
		sg.add(buf.at(off), len);
		rdma_mr *mr = rdma_create_mr(local_.pd, 16, RDMA_MR_ROLE_RKEY);
		EXPECT_FALSE(IS_ERR(mr));
		ib_send_wr *chain = nullptr;
		EXPECT_EQ(rdma_map_sg_rkey(rkey, iova, mr, sgs_.emplace_back(sg).get(),
					   sg.n(), ops, &chain), 0);
		Post(local_.qp, chain);
		EXPECT_FALSE(sim::qp_in_error(local_.qp));
		return mr;
	}

	void Kill(rdma_mr *mr)
	{
		ib_send_wr *inv = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &inv), 0);
		Post(local_.qp, inv);
		ASSERT_FALSE(sim::qp_in_error(local_.qp));
		ASSERT_EQ(rdma_unmap_mr(mr), 0);
	}

	// The local node uses @lkey itself: one RDMA @op of @len bytes, a
	// WRITE from or a READ into [@addr, +@len), to or from the start of
	// @far, which the peer exposes for it (and kills after).  Returns the
	// status.  The control that a key which grants the peer nothing
	// lives; and, once it is dead, what its owner gets from it.
	ib_wc_status LocalRdma(ib_wr_opcode op, u64 addr, u32 lkey, Buffer &far,
			       u32 len)
	{
		u32 rkey = 0;
		u64 iova = 0;
		rdma_mr *mr;
		{
			AsPeer p(this);
			mr = ExposeRkey(far, 0, len,
					op == IB_WR_RDMA_READ ? RDMA_MR_REMOTE_READ :
								RDMA_MR_REMOTE_WRITE,
					&rkey, &iova);
		}
		ib_wc_status st = Rdma(local_.qp, op, addr, lkey, iova, rkey, len);
		if (st != IB_WC_SUCCESS)
			Reconnect();
		{
			AsPeer p(this);
			Kill(mr);
		}
		rdma_destroy_mr(mr);
		return st;
	}

	// The peer's memory, poisoned: what a refused access must leave as is.
	u8 *PeerSink(unsigned int seed)
	{
		peer_mem_.poison(seed);
		return peer_mem_.at(0);
	}

	// siw's defect: the peer's READ of @len bytes at @addr through @key,
	// a key that does not grant it, is served while the key lives, with
	// @mine's bytes at @off (new ones of round @seed).
	void ExpectReadServedByDefect(u64 addr, u32 key, Buffer &mine,
				      size_t off, u32 len, unsigned int seed)
	{
		mine.fill(seed);
		ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, addr, key, PeerSink(seed),
				   len), IB_WC_SUCCESS)
			<< "the peer's READ through the live key " << std::hex
			<< key << " was refused; expected served: " << kSiwReadDefect;
		EXPECT_TRUE(Moved(mine.span(off, len), peer_mem_.span(0, len)));
	}

	std::vector<Sg> sgs_;
	Buffer peer_mem_{4};
	std::vector<ib_device *> fmr_devs_;
};

// Rule 1: an lkey mapping never grants remote access.  On siw the peer's
// READ through it is served while it lives (the defect), and refused once
// rdma_unmap_mr() has returned: there the core kills a local key at unmap.
TEST_P(SecurityTest, Rule1LkeyIsNotAnRkey)
{
	const unsigned int local_only = RDMA_MR_LOCAL_SEND_SRC |
					RDMA_MR_LOCAL_WRITE_SRC |
					RDMA_MR_LOCAL_RECV_SINK;
	Buffer buf(2), sink(1);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 4, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	ib_send_wr *chain = nullptr;
	u32 lkey;
	ASSERT_EQ(rdma_map_sg_lkey(&lkey, mr, sg.get(), sg.n(), local_only,
				   &chain), 0);
	Post(local_.qp, chain);
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	EXPECT_EQ(mr->access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE), 0);

	// Control: the key lives; it sources a WRITE of the page to the peer.
	sink.poison(1);
	ASSERT_EQ(LocalRdma(IB_WR_RDMA_WRITE, buf.addr(0), lkey, sink,
			    PAGE_SIZE), IB_WC_SUCCESS)
		<< "control: a WRITE from the live lkey";
	EXPECT_TRUE(Moved(buf.span(0, PAGE_SIZE), sink.bytes()));

	// The peer uses it as an rkey: refused for WRITE, and for READ.
	ExpectAttackerReaches(IB_WR_RDMA_WRITE, buf.addr(0), 64, peer_.qp);
	peer_mem_.fill(2);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, buf.addr(0), lkey, peer_mem_.at(0),
			   64), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(buf));
	Reconnect();
	bool mapped = true;
	if (ReadsAnyLiveKey()) {
		ExpectReadServedByDefect(buf.addr(0), lkey, buf, 0, 64, 3);
		ASSERT_EQ(rdma_unmap_mr(mr), 0);
		mapped = false;
	}
	ExpectAttackerReaches(IB_WR_RDMA_READ, buf.addr(0), 64, peer_.qp);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey, PeerSink(4),
			   64), IB_WC_REM_ACCESS_ERR)
		<< (mapped ? "an lkey read as an rkey" :
			     "the lkey outlived rdma_unmap_mr() on a device that "
			     "serves a READ through any live key");
	EXPECT_TRUE(Untouched(peer_mem_));
	Reconnect();
	if (mapped) {
		EXPECT_EQ(rdma_unmap_mr(mr), 0);
	}
	rdma_destroy_mr(mr);
}

// Rule 1, the transport's exception: an iWARP READ sink takes REMOTE_WRITE,
// never REMOTE_READ, and cannot be released before its key is dead.
// Elsewhere a READ sink's key grants the peer nothing.
TEST_P(SecurityTest, Rule1ReadSinkExceptionIsIwarpOnlyAndMustDie)
{
	const bool iwarp = GetParam()->iwarp;
	Buffer buf(1), far(1);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	ib_send_wr *chain = nullptr;
	u32 lkey;
	ASSERT_EQ(rdma_map_sg_lkey(&lkey, mr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_READ_SINK, &chain), 0);
	Post(local_.qp, chain);
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	EXPECT_EQ(mr->access & IB_ACCESS_REMOTE_READ, 0);
	EXPECT_EQ(!!(mr->access & IB_ACCESS_REMOTE_WRITE), iwarp);

	// Control: the key lives; a READ of the peer's page lands in it.
	buf.poison(1);
	far.fill(2);
	ASSERT_EQ(LocalRdma(IB_WR_RDMA_READ, buf.addr(0), lkey, far, PAGE_SIZE),
		  IB_WC_SUCCESS) << "control: a READ into the live sink";
	EXPECT_TRUE(Moved(far.bytes(), buf.bytes()));
	buf.fill(3);

	if (iwarp) {
		// The exception: the peer WRITEs through the live sink key.
		buf.poison(4);
		peer_mem_.fill(4);
		ASSERT_EQ(PeerRdma(IB_WR_RDMA_WRITE, buf.addr(0), lkey,
				   peer_mem_.at(0), 8), IB_WC_SUCCESS)
			<< "control: an iWARP READ sink's key grants the peer "
			   "WRITE while it lives";
		EXPECT_TRUE(Moved(peer_mem_.span(0, 8), buf.span(0, 8)));
	}
	if (ReadsAnyLiveKey()) {
		ExpectReadServedByDefect(buf.addr(0), lkey, buf, 0, 8, 5);
	} else {
		buf.fill(5);
		// The reach on other bytes: the sink's are mapped for the
		// device to write only, a READ of them is a DMA-API misuse.
		Buffer other(1);
		ExpectAttackerReaches(IB_WR_RDMA_READ, other.addr(0), 8, peer_.qp);
		EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey,
				   PeerSink(5), 8), IB_WC_REM_ACCESS_ERR)
			<< "a READ sink's key read by the peer";
		EXPECT_TRUE(Untouched(peer_mem_));
		Reconnect();
	}
	if (iwarp) {
		// It grants REMOTE_WRITE: released only once it is dead.
		EXPECT_EQ(rdma_unmap_mr(mr), -EBUSY);
		Kill(mr);
	}
	ExpectAttackerReaches(IB_WR_RDMA_WRITE, buf.addr(0), 8, peer_.qp);
	peer_mem_.fill(6);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, buf.addr(0), lkey, peer_mem_.at(0),
			   8), IB_WC_REM_ACCESS_ERR)
		<< (iwarp ? "the READ sink's key outlived its invalidation" :
			    "a READ sink's key took the peer's WRITE");
	EXPECT_TRUE(Untouched(buf));
	Reconnect();
	if (iwarp) {
		EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey,
				   PeerSink(7), 8), IB_WC_REM_ACCESS_ERR)
			<< "the READ sink's key read after its invalidation";
		EXPECT_TRUE(Untouched(peer_mem_));
		Reconnect();
	} else {
		EXPECT_EQ(rdma_unmap_mr(mr), 0);
	}
	rdma_destroy_mr(mr);
}

// Rule 2: only the requested op, only on [iova, iova + length).
TEST_P(SecurityTest, Rule2OnlyTheRequestedOp)
{
	Buffer buf(2);
	u32 rkey;
	u64 iova;
	rdma_mr *mr = ExposeRkey(buf, 0, 2 * PAGE_SIZE, RDMA_MR_REMOTE_READ,
				 &rkey, &iova);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(1),
			   2 * PAGE_SIZE), IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(buf.bytes(), peer_mem_.span(0, 2 * PAGE_SIZE)));
	peer_mem_.fill(2);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova, rkey, peer_mem_.at(0), 8),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(buf)) << "a READ-only key took a WRITE";
	// The refusal broke the connection, on both ends (RC).
	EXPECT_TRUE(sim::qp_in_error(local_.qp));
	Reconnect();
	Kill(mr);
	rdma_destroy_mr(mr);

	buf.poison(3);
	mr = ExposeRkey(buf, 0, PAGE_SIZE, RDMA_MR_REMOTE_WRITE, &rkey, &iova);
	peer_mem_.fill(3);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova, rkey, peer_mem_.at(0),
			   PAGE_SIZE), IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(peer_mem_.span(0, PAGE_SIZE), buf.span(0, PAGE_SIZE)));
	if (ReadsAnyLiveKey()) {
		// siw: served while the key lives; refused once it is killed.
		ExpectReadServedByDefect(iova, rkey, buf, 0, 8, 4);
		Kill(mr);
	}
	const char *what = ReadsAnyLiveKey() ?
		"the WRITE-only key read after rdma_invalidate_mr() and "
		"rdma_unmap_mr()" : "a WRITE-only key took a READ";
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(5), 8),
		  IB_WC_REM_ACCESS_ERR) << what;
	EXPECT_TRUE(Untouched(peer_mem_)) << what;
	Reconnect();
	if (!ReadsAnyLiveKey())
		Kill(mr);
	rdma_destroy_mr(mr);
}

TEST_P(SecurityTest, Rule2OnlyTheMappedBytes)
{
	Buffer buf(3);
	const unsigned int off = 1000, len = PAGE_SIZE + 10;
	u32 rkey;
	u64 iova;
	rdma_mr *mr = ExposeRkey(buf, off, len, RDMA_MR_REMOTE_READ |
				 RDMA_MR_REMOTE_WRITE, &rkey, &iova);
	ASSERT_EQ(iova, buf.addr(off));
	// Every mapped byte, the first and the last alone.
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(1), len),
		  IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(buf.span(off, len), peer_mem_.span(0, len)));
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova + len - 1, rkey,
			   PeerSink(2), 1), IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(buf.span(off + len - 1, 1), peer_mem_.span(0, 1)));
	// And a WRITE of the last byte lands.
	buf.poison(6);
	peer_mem_.fill(6);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova + len - 1, rkey,
			   peer_mem_.at(0), 1), IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(peer_mem_.span(0, 1), buf.span(off + len - 1, 1)));
	buf.fill(7);
	// One byte before, one byte past, and a span that crosses the end,
	// although those bytes sit in pages the MR's page list holds.
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova - 1, rkey, PeerSink(3), 1),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_));
	Reconnect();
	peer_mem_.fill(4);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova + len, rkey, peer_mem_.at(0),
			   1), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(buf)) << "a WRITE past the end landed";
	Reconnect();
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova + 8, rkey, PeerSink(5),
			   len), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_));
	Reconnect();
	Kill(mr);
	rdma_destroy_mr(mr);
}

// Rule 3: once invalidated the key is dead, and a remap gets a new key.
TEST_P(SecurityTest, Rule3InvalidatedKeyIsDead)
{
	Buffer buf(1);
	u32 rkey;
	u64 iova;
	rdma_mr *mr = ExposeRkey(buf, 0, PAGE_SIZE, RDMA_MR_REMOTE_READ, &rkey,
				 &iova);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(1), 64),
		  IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(buf.span(0, 64), peer_mem_.span(0, 64)));
	Kill(mr);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(2), 64),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_)) << "the dead key still read";
	rdma_destroy_mr(mr);
}

TEST_P(SecurityTest, Rule3KeysRotateAndStaleKeysNeverReachNewData)
{
	Buffer buf(2);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ASSERT_FALSE(IS_ERR(mr));
	u32 prev = 0;
	// More maps than the key byte has values: every new key differs from
	// the previous one, the previous one is dead, the new one works.
	for (int i = 0; i < 300; i++) {
		ib_send_wr *chain = nullptr;
		u32 rkey;
		u64 iova;
		ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), sg.n(),
					   RDMA_MR_REMOTE_READ, &chain), 0);
		Post(local_.qp, chain);
		ASSERT_FALSE(sim::qp_in_error(local_.qp));
		buf.fill(i);
		if (i) {
			ASSERT_NE(rkey, prev);
			// The same device MR, but for the one in 256 maps that
			// replaces it before the key byte comes round.
			ASSERT_EQ(rkey >> 8 == prev >> 8, i % 256 != 0) << "map " << i;
			ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, prev,
					   PeerSink(i), 8),
				  IB_WC_REM_ACCESS_ERR);
			ASSERT_TRUE(Untouched(peer_mem_)) << "stale key read";
			Reconnect();
		}
		ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(i),
				   8), IB_WC_SUCCESS);
		ASSERT_TRUE(Moved(buf.span(0, 8), peer_mem_.span(0, 8)));
		prev = rkey;
		Kill(mr);
	}
	rdma_destroy_mr(mr);
}

TEST_P(SecurityTest, Rule3RemoteInvalidationMatchesTheKey)
{
	if (Fmr())
		GTEST_SKIP() << kNoRemoteInvalidation;
	Buffer buf(1);
	u32 rkey;
	u64 iova;
	rdma_mr *mr = ExposeRkey(buf, 0, 128, RDMA_MR_REMOTE_WRITE, &rkey, &iova);
	EXPECT_EQ(rdma_mr_remote_invalidated(mr, rkey + 1), -EINVAL);
	EXPECT_EQ(rdma_unmap_mr(mr), -EBUSY);
	EXPECT_EQ(rdma_mr_remote_invalidated(mr, rkey), 0);
	EXPECT_EQ(rdma_mr_remote_invalidated(mr, rkey), -EINVAL);
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// The receive completion of the peer's message, checked against the MR
// whose key it may have invalidated: each wrong answer has its own errno
// and leaves the key valid; only the right key records the MR invalid.
TEST_P(SecurityTest, Rule3RemoteInvalidationCheckedAgainstTheMr)
{
	if (Fmr())
		GTEST_SKIP() << kNoRemoteInvalidation;
	Buffer buf(1);
	u32 rkey;
	u64 iova;
	rdma_mr *mr = ExposeRkey(buf, 0, 128, RDMA_MR_REMOTE_WRITE, &rkey, &iova);
	ib_wc wc{};

	wc.status = IB_WC_SUCCESS;
	EXPECT_EQ(rdma_mr_check_remote_inv(mr, &wc), -ENODATA) << "no invalidation";
	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	wc.ex.invalidate_rkey = rkey ^ 0x80;
	EXPECT_EQ(rdma_mr_check_remote_inv(mr, &wc), -EKEYREJECTED) << "wrong key";
	wc.ex.invalidate_rkey = rkey;
	wc.status = IB_WC_WR_FLUSH_ERR;
	EXPECT_EQ(rdma_mr_check_remote_inv(mr, &wc), -EIO) << "failed completion";
	EXPECT_EQ(rdma_mr_check_remote_inv(nullptr, &wc), -EINVAL);
	EXPECT_EQ(rdma_mr_check_remote_inv(mr, nullptr), -EINVAL);
	EXPECT_EQ(rdma_unmap_mr(mr), -EBUSY) << "a wrong answer killed the key";
	wc.status = IB_WC_SUCCESS;
	EXPECT_EQ(rdma_mr_check_remote_inv(mr, &wc), 0);
	EXPECT_EQ(rdma_mr_check_remote_inv(mr, &wc), -EINVAL) << "twice";
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// An lkey MR was never the peer's to invalidate, whatever the key.
TEST_P(SecurityTest, Rule3RemoteInvalidationNeverOfAnLkey)
{
	Buffer buf(1);
	ib_wc wc{};
	wc.status = IB_WC_SUCCESS;
	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	Sg sg;
	sg.add(buf, 0, 0, 128);
	rdma_mr *lmr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(lmr));
	u32 lkey;
	ib_send_wr *chain = nullptr;
	ASSERT_EQ(rdma_map_sg_lkey(&lkey, lmr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_SEND_SRC, &chain), 0);
	if (chain)
		Post(local_.qp, chain);
	wc.ex.invalidate_rkey = lkey;
	EXPECT_EQ(rdma_mr_check_remote_inv(lmr, &wc), -EPERM);
	EXPECT_EQ(rdma_unmap_mr(lmr), 0);
	rdma_destroy_mr(lmr);
}

// The Send that invalidates the peer's key: only a Send becomes one.
TEST(SendWithInv, BuildsOnlyFromASend)
{
	ib_send_wr wr{};

	wr.opcode = IB_WR_SEND;
	EXPECT_EQ(rdma_send_with_inv(&wr, 0x1234), 0);
	EXPECT_EQ(wr.opcode, IB_WR_SEND_WITH_INV);
	EXPECT_EQ(wr.ex.invalidate_rkey, 0x1234u);
	EXPECT_EQ(rdma_send_with_inv(&wr, 0x5678), 0);
	EXPECT_EQ(wr.ex.invalidate_rkey, 0x5678u);
	wr.opcode = IB_WR_RDMA_WRITE;
	wr.ex.invalidate_rkey = 0;
	EXPECT_EQ(rdma_send_with_inv(&wr, 0x1234), -EINVAL);
	EXPECT_EQ(wr.opcode, IB_WR_RDMA_WRITE);
	EXPECT_EQ(wr.ex.invalidate_rkey, 0u);
	EXPECT_EQ(rdma_send_with_inv(nullptr, 1), -EINVAL);
}

// Lazy invalidation of lkeys: the old key dies with the next map, in its
// chain (a LOCAL_INV in front of the REG_MR) or, on fmr, in the batch
// flush the next map of the handle makes first.  On siw, which serves a
// READ through any live key, it dies earlier: at rdma_unmap_mr().
TEST_P(SecurityTest, Rule3StaleLkeyDiesWithTheNextMap)
{
	Buffer buf(2), far(1);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	u32 k1, k2;
	ib_send_wr *chain = nullptr;
	ASSERT_EQ(rdma_map_sg_lkey(&k1, mr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_WRITE_SRC, &chain), 0);
	Post(local_.qp, chain);
	// Control: the key lives; it sources a WRITE.
	far.poison(1);
	ASSERT_EQ(LocalRdma(IB_WR_RDMA_WRITE, buf.addr(0), k1, far, 64),
		  IB_WC_SUCCESS) << "control: a WRITE from the live lkey";
	EXPECT_TRUE(Moved(buf.span(0, 64), far.span(0, 64)));
	if (ReadsAnyLiveKey())
		ExpectReadServedByDefect(buf.addr(0), k1, buf, 0, 64, 2);
	const u32 flushes = rdma_fmr_flushes(local_.hca->dev());
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	if (ReadsAnyLiveKey()) {
		EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), k1, PeerSink(3),
				   64), IB_WC_REM_ACCESS_ERR)
			<< "the lkey outlived rdma_unmap_mr() on a device that "
			   "serves a READ through any live key";
		EXPECT_TRUE(Untouched(peer_mem_));
		Reconnect();
	}
	chain = nullptr;
	ASSERT_EQ(rdma_map_sg_lkey(&k2, mr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_WRITE_SRC, &chain), 0);
	if (Fmr()) {
		EXPECT_EQ(chain, nullptr) << "the FMR callbacks map at once";
		EXPECT_EQ(rdma_fmr_flushes(local_.hca->dev()), flushes + 1)
			<< "the handle was mapped again without a flush";
	} else if (ReadsAnyLiveKey()) {
		ASSERT_NE(chain, nullptr);
		EXPECT_EQ(chain->opcode, IB_WR_REG_MR)
			<< "a LOCAL_INV of a key that died at unmap";
	} else {
		ASSERT_NE(chain, nullptr);
		ASSERT_EQ(chain->opcode, IB_WR_LOCAL_INV);
		EXPECT_EQ(chain->ex.invalidate_rkey, k1);
		ASSERT_EQ(chain->next->opcode, IB_WR_REG_MR);
	}
	Post(local_.qp, chain);
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	EXPECT_NE(k1, k2);
	// The old lkey no longer sources a WRITE; the new one does.
	far.poison(4);
	EXPECT_EQ(LocalRdma(IB_WR_RDMA_WRITE, buf.addr(0), k1, far, 64),
		  IB_WC_LOC_PROT_ERR) << "the stale lkey outlived the next map";
	EXPECT_TRUE(Untouched(far));
	buf.fill(5);
	far.poison(5);
	EXPECT_EQ(LocalRdma(IB_WR_RDMA_WRITE, buf.addr(0), k2, far, 64),
		  IB_WC_SUCCESS) << "control: a WRITE from the new lkey";
	EXPECT_TRUE(Moved(buf.span(0, 64), far.span(0, 64)));
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// Rule 4: the PD's DMA lkey, which covers all memory, is never an rkey.
// Control: the same READ through an rkey of those bytes is served.  siw
// serves it through the DMA lkey too (the defect), and nothing kills that
// key: there the core keeps it off the wire (an iWARP READ sinks in a
// temporary MR, never in the DMA lkey).
TEST_P(SecurityTest, Rule4NoGlobalRkey)
{
	Buffer buf(1);
	u32 rkey;
	u64 iova;
	rdma_mr *mr = ExposeRkey(buf, 0, PAGE_SIZE, RDMA_MR_REMOTE_READ, &rkey,
				 &iova);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(1), 8),
		  IB_WC_SUCCESS) << "control: the READ through an rkey";
	EXPECT_TRUE(Moved(buf.span(0, 8), peer_mem_.span(0, 8)));
	Kill(mr);
	rdma_destroy_mr(mr);
	if (ReadsAnyLiveKey()) {
		ExpectReadServedByDefect(buf.addr(0), local_.pd->local_dma_lkey,
					 buf, 0, 8, 2);
	} else {
		EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0),
				   local_.pd->local_dma_lkey, PeerSink(2), 8),
			  IB_WC_REM_ACCESS_ERR);
		EXPECT_TRUE(Untouched(peer_mem_));
		Reconnect();
	}
	if (GetParam()->iwarp) {
		// A READ of one SGE, where the DMA lkey would save an MR.
		rdma_io_pool *pool = rdma_io_pool_create(local_.qp, 1, 1, 1);
		ASSERT_FALSE(IS_ERR(pool));
		Sg one;
		one.add(buf, 0, 0, 64);
		rdma_io_ctx ctx;
		ASSERT_GT(rdma_io_ctx_init(&ctx, pool, one.get(), one.n(), 0,
					   0x10000, 0x77, DMA_FROM_DEVICE), 0);
		EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "iwarp");
		u32 named = 0, n = 0;
		for (const ib_send_wr *wr = ctx.first; wr && n < ctx.nr_wrs;
		     wr = wr->next, n++) {
			for (int i = 0; i < wr->num_sge; i++)
				named += wr->sg_list[i].lkey ==
					 local_.pd->local_dma_lkey;
			if (wr->opcode == IB_WR_REG_MR)
				named += reg_wr(wr)->key ==
					 local_.pd->local_dma_lkey;
		}
		rdma_io_ctx_destroy(&ctx, nullptr);
		EXPECT_EQ(named, 0u) << "an iWARP READ's WRs name the PD's DMA lkey";
		EXPECT_EQ(rdma_io_pool_drain(pool), rdma_io_pool_size(pool));
		rdma_io_pool_destroy(pool);
	}
	// Nor does any op combination give an lkey MR remote READ rights.
	for (unsigned int ops = 1; ops <= RDMA_MR_LOCAL_ALL; ops++) {
		mrcore_access acc;
		ASSERT_EQ(mrcore_local_access(local_.hca->dev(), ops, &acc), 0);
		EXPECT_FALSE(acc.ib_access & (IB_ACCESS_REMOTE_READ |
					      IB_ACCESS_REMOTE_ATOMIC));
		bool wants_sink = ops & RDMA_MR_LOCAL_READ_SINK;
		EXPECT_EQ(!!(acc.ib_access & IB_ACCESS_REMOTE_WRITE),
			  wants_sink && GetParam()->iwarp) << "ops " << ops;
	}
}

const sim::Profile *const kProfiles[] = {&sim::kRoce, &sim::kIwarp, &sim::kSiw,
					 &sim::kFmr};

INSTANTIATE_TEST_SUITE_P(Profiles, SecurityTest,
			 ::testing::ValuesIn(kProfiles),
			 [](const auto &info) {
				 return std::string(info.param->name);
			 });

} // namespace
} // namespace mirror
