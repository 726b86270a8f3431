// SPDX-License-Identifier: GPL-2.0-only
//
// The security rules of DESIGN.md, shown on the simulated HCA by a peer
// that tries what it must not be able to do.
#include "fixture.h"

namespace mirror {
namespace {

class SecurityTest : public MirrorTest,
		     public ::testing::WithParamInterface<const sim::Profile *> {
protected:
	void SetUp() override { SetUpNodes(*GetParam()); }

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

	// The peer's memory, poisoned: what a refused access must leave as is.
	u8 *PeerSink(unsigned int seed)
	{
		peer_mem_.poison(seed);
		return peer_mem_.at(0);
	}

	std::vector<Sg> sgs_;
	Buffer peer_mem_{4};
};

// Rule 1: an lkey mapping never grants remote access.
TEST_P(SecurityTest, Rule1LkeyIsNotAnRkey)
{
	const unsigned int local_only = RDMA_MR_LOCAL_SEND_SRC |
					RDMA_MR_LOCAL_WRITE_SRC |
					RDMA_MR_LOCAL_RECV_SINK;
	Buffer buf(2);
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

	// The key works locally: WRITE the page to the peer and compare.
	rdma_mr *dst = nullptr;
	{
		std::swap(local_, peer_);	// the peer exposes a sink
		Buffer sink(1);
		sink.poison(1);
		u32 rkey;
		u64 iova;
		dst = ExposeRkey(sink, 0, PAGE_SIZE, RDMA_MR_REMOTE_WRITE, &rkey,
				 &iova);
		std::swap(local_, peer_);
		ib_sge sge = {buf.addr(0), static_cast<u32>(PAGE_SIZE), lkey};
		ib_rdma_wr wr{};
		wr.wr.opcode = IB_WR_RDMA_WRITE;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.remote_addr = iova;
		wr.rkey = rkey;
		Post(local_.qp, &wr.wr);
		ASSERT_FALSE(sim::qp_in_error(local_.qp));
		EXPECT_TRUE(Moved(buf.span(0, PAGE_SIZE), sink.bytes()));
		std::swap(local_, peer_);
		Kill(dst);
		std::swap(local_, peer_);
		rdma_destroy_mr(dst);
	}

	// The peer uses it as an rkey: refused for READ, and for WRITE.
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey, PeerSink(1),
			   64), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_));
	Reconnect();
	peer_mem_.fill(2);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, buf.addr(0), lkey, peer_mem_.at(0),
			   64), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(buf));
	EXPECT_EQ(mr->access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE), 0);
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// Rule 1, the transport's exception: an iWARP READ sink takes REMOTE_WRITE,
// never REMOTE_READ, and cannot be released before its key is dead.
TEST_P(SecurityTest, Rule1ReadSinkExceptionIsIwarpOnlyAndMustDie)
{
	Buffer buf(1);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	ib_send_wr *chain = nullptr;
	u32 lkey;
	ASSERT_EQ(rdma_map_sg_lkey(&lkey, mr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_READ_SINK, &chain), 0);
	Post(local_.qp, chain);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey, PeerSink(1),
			   8), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_));
	Reconnect();
	if (!GetParam()->iwarp) {
		EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, buf.addr(0), lkey,
				   peer_mem_.at(0), 8), IB_WC_REM_ACCESS_ERR);
		EXPECT_TRUE(Untouched(buf));
		EXPECT_EQ(rdma_unmap_mr(mr), 0);
	} else {
		EXPECT_EQ(mr->access & IB_ACCESS_REMOTE_READ, 0);
		EXPECT_EQ(rdma_unmap_mr(mr), -EBUSY);
		Kill(mr);
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
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(4), 8),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_)) << "a WRITE-only key took a READ";
	Reconnect();
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

	// An lkey MR was never the peer's to invalidate, whatever the key.
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

// Lazy invalidation of lkeys: the old key dies in the next map's chain.
TEST_P(SecurityTest, Rule3StaleLkeyDiesWithTheNextMap)
{
	Buffer buf(2);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	u32 k1, k2;
	ib_send_wr *chain = nullptr;
	ASSERT_EQ(rdma_map_sg_lkey(&k1, mr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_SEND_SRC, &chain), 0);
	Post(local_.qp, chain);
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	chain = nullptr;
	ASSERT_EQ(rdma_map_sg_lkey(&k2, mr, sg.get(), sg.n(),
				   RDMA_MR_LOCAL_SEND_SRC, &chain), 0);
	ASSERT_EQ(chain->opcode, IB_WR_LOCAL_INV);
	EXPECT_EQ(chain->ex.invalidate_rkey, k1);
	ASSERT_EQ(chain->next->opcode, IB_WR_REG_MR);
	Post(local_.qp, chain);
	ASSERT_FALSE(sim::qp_in_error(local_.qp));
	EXPECT_NE(k1, k2);
	// The old lkey no longer sources a WRITE; fake a peer rkey to target.
	sim::Mr *hw = local_.hca->find_mr(k1);
	ASSERT_NE(hw, nullptr);
	EXPECT_NE(hw->key_byte, k1 & 0xff);
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// Rule 4: the PD's DMA lkey, which covers all memory, is never an rkey.
TEST_P(SecurityTest, Rule4NoGlobalRkey)
{
	Buffer buf(1);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), local_.pd->local_dma_lkey,
			   PeerSink(1), 8), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer_mem_));
	Reconnect();
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

INSTANTIATE_TEST_SUITE_P(Profiles, SecurityTest,
			 ::testing::Values(&sim::kRoce, &sim::kIwarp),
			 [](const auto &info) {
				 return std::string(info.param->name);
			 });

} // namespace
} // namespace mirror
