// SPDX-License-Identifier: GPL-2.0-only
//
// siw answers a peer's RDMA READ through any valid key of the PD, whatever
// it grants (siw_qp_tx.c: siw_check_sgl_tx(pd, wqe, 0)).  The siw profile
// of the simulated HCA does the same; these tests show the defect, and that
// the core, which knows it from its quirk table (core/quirks.c), keeps no
// local key alive past its mapping or its I/O there -- while on RoCE lazy
// invalidation still saves the LOCAL_INV.
#include "io_fixture.h"

namespace mirror {
namespace {

class SiwTest : public IoTest,
		public ::testing::WithParamInterface<const sim::Profile *> {
protected:
	void SetUp() override { SetUpIo(*GetParam(), 1, 64); }

	bool Siw() const { return !GetParam()->checks_remote_read_access; }

	// Map one page lkey-only for @ops and run the registration.
	rdma_mr *MapLkey(Buffer &buf, unsigned int ops, u32 *lkey)
	{
		sg_.add(buf, 0, 0, PAGE_SIZE);
		rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_LKEY);
		EXPECT_FALSE(IS_ERR(mr));
		ib_send_wr *chain = nullptr;
		EXPECT_EQ(rdma_map_sg_lkey(lkey, mr, sg_.get(), sg_.n(), ops,
					   &chain), 0);
		Post(local_.qp, chain);
		EXPECT_FALSE(sim::qp_in_error(local_.qp));
		return mr;
	}

	// The peer's memory, poisoned with @seed: a READ's sink.
	u8 *PeerSink(unsigned int seed)
	{
		got_.poison(seed);
		return got_.at(0);
	}

	Sg sg_;
	Buffer got_{1};
};

// The defect, as siw 6.12 has it: a peer READ succeeds through an lkey-only
// key, through an rkey that grants only WRITE, and through the PD's DMA
// lkey.  A device that checks access rights refuses each one: a check of
// rights, after the peer's reach on its QP (ExpectAttackerReaches()), so
// that a peer that could not post fails it.
TEST_P(SiwTest, PeerReadsThroughAnyLiveKeyOnSiwOnly)
{
	const ib_wc_status want = Siw() ? IB_WC_SUCCESS : IB_WC_REM_ACCESS_ERR;
	Buffer buf(1), wbuf(1);
	buf.fill(3);
	wbuf.fill(4);

	u32 lkey;
	rdma_mr *mr = MapLkey(buf, RDMA_MR_LOCAL_SEND_SRC, &lkey);
	ExpectAttackerReaches(IB_WR_RDMA_READ, buf.addr(0), 64, peer_.qp);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey, PeerSink(1),
			   64), want);
	EXPECT_TRUE(Siw() ? Moved(buf.span(0, 64), got_.span(0, 64)) :
			    Untouched(got_));
	Reconnect();

	Sg wsg;
	wsg.add(wbuf, 0, 0, PAGE_SIZE);
	rdma_mr *wmr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ASSERT_FALSE(IS_ERR(wmr));
	ib_send_wr *chain = nullptr;
	u32 rkey;
	u64 iova;
	ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, wmr, wsg.get(), 1,
				   RDMA_MR_REMOTE_WRITE, &chain), 0);
	Post(local_.qp, chain);
	// The reach on other bytes: wbuf is mapped for the device to write
	// only (REMOTE_WRITE), a READ of it through another key is a DMA-API
	// misuse.
	Buffer other(1);
	ExpectAttackerReaches(IB_WR_RDMA_READ, other.addr(0), 64, peer_.qp);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, PeerSink(2), 64), want);
	EXPECT_TRUE(Siw() ? Moved(wbuf.span(0, 64), got_.span(0, 64)) :
			    Untouched(got_));
	Reconnect();

	ExpectAttackerReaches(IB_WR_RDMA_READ, buf.addr(8), 64, peer_.qp);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(8), local_.pd->local_dma_lkey,
			   PeerSink(3), 64), want);
	EXPECT_TRUE(Siw() ? Moved(buf.span(8, 64), got_.span(0, 64)) :
			    Untouched(got_));
	Reconnect();

	chain = nullptr;
	ASSERT_EQ(rdma_invalidate_mr(wmr, &chain), 0);
	Post(local_.qp, chain);
	ASSERT_EQ(rdma_unmap_mr(wmr), 0);
	rdma_destroy_mr(wmr);
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// rdma_unmap_mr() of a local-only mapping: on siw the key is dead when the
// call returns; on RoCE it stays valid (lazy) until the next map kills it.
TEST_P(SiwTest, UnmapKillsTheLocalKeyOnSiwAndLeavesItLazyElsewhere)
{
	Buffer buf(1);
	buf.fill(5);
	u32 lkey;
	rdma_mr *mr = MapLkey(buf, RDMA_MR_LOCAL_WRITE_SRC, &lkey);
	if (Siw()) {
		// Control: while it lives, the peer's READ through the lkey
		// is served there (the defect).
		ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey,
				   PeerSink(0), 64), IB_WC_SUCCESS)
			<< "control: siw reads through the live lkey";
		EXPECT_TRUE(Moved(buf.span(0, 64), got_.span(0, 64)));
	}
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);

	sim::Mr *hw = local_.hca->find_mr(lkey);
	if (Siw()) {
		EXPECT_EQ(mr->state, RDMA_MR_FREE);
		EXPECT_TRUE(!hw || !hw->valid) << "the old lkey outlived unmap";
		EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, buf.addr(0), lkey, PeerSink(1),
				   64), IB_WC_REM_ACCESS_ERR);
		EXPECT_TRUE(Untouched(got_)) << "the dead lkey still read";
		Reconnect();
	} else {
		EXPECT_EQ(mr->state, RDMA_MR_STALE);
		ASSERT_NE(hw, nullptr);
		EXPECT_TRUE(hw->valid) << "RoCE lost lazy invalidation";
	}

	// The next map works; on RoCE it kills the stale key in its chain.
	ib_send_wr *chain = nullptr;
	u32 lkey2;
	ASSERT_EQ(rdma_map_sg_lkey(&lkey2, mr, sg_.get(), sg_.n(),
				   RDMA_MR_LOCAL_WRITE_SRC, &chain), 0);
	EXPECT_NE(lkey2, lkey);
	EXPECT_EQ(chain->opcode, Siw() ? IB_WR_REG_MR : IB_WR_LOCAL_INV);
	Post(local_.qp, chain);
	EXPECT_FALSE(sim::qp_in_error(local_.qp));
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// No device MR to spare: unmap fails on siw with nothing changed, and works
// once allocation does.
TEST_P(SiwTest, UnmapOnSiwFailsCleanlyWhenNoDeviceMrCanBeHad)
{
	if (!Siw())
		GTEST_SKIP() << "unmap allocates nothing here";
	Buffer buf(1);
	u32 lkey;
	rdma_mr *mr = MapLkey(buf, RDMA_MR_LOCAL_SEND_SRC, &lkey);
	long mrs = sim::counters().mrs_live;
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	EXPECT_EQ(rdma_unmap_mr(mr), -ENOMEM);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 0), 0);
	EXPECT_EQ(mr->state, RDMA_MR_MAPPED);
	EXPECT_EQ(sim::counters().dma_maps_live, 1);
	EXPECT_EQ(sim::counters().mrs_live, mrs);
	ASSERT_NE(local_.hca->find_mr(lkey), nullptr);
	EXPECT_TRUE(local_.hca->find_mr(lkey)->valid);
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	EXPECT_EQ(local_.hca->find_mr(lkey), nullptr);
	rdma_destroy_mr(mr);
}

// The I/O helper: an FRWR WRITE source's key dies in the I/O's own chain on
// siw, so it is dead once rdma_io_ctx_destroy() returns; on RoCE it is left
// for the MR's next registration.
TEST_P(SiwTest, WriteSourceKeyIsDeadWhenTheIoIsDestroyedOnSiw)
{
	ExposeRemote(8 * PAGE_SIZE);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	ib_wc ok = Wc(IB_WC_SUCCESS);
	for (int round = 0; round < 2; round++) {
		Sg sg;
		for (unsigned int i = 0; i < 8; i++)
			sg.add(arena_, 2 * i, 0, PAGE_SIZE);
		Prepare(false, round + 1);
		rdma_io_ctx ctx;
		// siw: REG_MR, WRITE, LOCAL_INV every time; RoCE: REG_MR,
		// WRITE, then LOCAL_INV of the last key in front from round 2.
		ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
					   remote_.addr(0), rkey(), DMA_TO_DEVICE),
			  Siw() ? 3 : 2 + round);
		EXPECT_EQ(ctx.last->opcode, Siw() ? IB_WR_LOCAL_INV :
						    IB_WR_RDMA_WRITE);
		u32 key = ctx.mrs[0]->key;
		u64 iova = ctx.mrs[0]->iova;
		if (Siw()) {
			// Control: between the REG_MR and the WRITE, with only
			// the peer's WR run, its READ through the live source
			// key is served (the defect); the same READ after the
			// destroy is refused.
			ib_cqe cqe{};
			auto &cq = sim::completions(local_.qp);
			ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
			ASSERT_EQ(sim::step(local_.qp, 1), 1u);	// the REG_MR
			ASSERT_TRUE(arena_.holds(reinterpret_cast<const u8 *>(
				static_cast<uintptr_t>(iova)), 64));
			ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, key,
					   PeerSink(round + 11), 64, true),
				  IB_WC_SUCCESS)
				<< "control: siw reads through the live key";
			EXPECT_TRUE(Moved(std::span<const u8>(reinterpret_cast<
					const u8 *>(static_cast<uintptr_t>(iova)), 64),
					  got_.span(0, 64)));
			sim::drain();
			ASSERT_FALSE(cq.empty());
			EXPECT_EQ(cq.back().cqe, &cqe);
			ASSERT_EQ(cq.back().status, IB_WC_SUCCESS);
		} else {
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		}
		EXPECT_TRUE(Landed(sg, false)) << "round " << round;
		rdma_io_ctx_destroy(&ctx, &ok);

		sim::Mr *hw = local_.hca->find_mr(key);
		ASSERT_NE(hw, nullptr);
		if (Siw()) {
			EXPECT_FALSE(hw->valid) << "round " << round;
			EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, key,
					   PeerSink(round + 1), 64),
				  IB_WC_REM_ACCESS_ERR);
			EXPECT_TRUE(Untouched(got_)) << "the dead key still read";
			// The pool lives on its QP: a new connection for it.
			rdma_io_pool_destroy(pool_);
			Reconnect();
			pool_ = rdma_io_pool_create(local_.qp, 1, 1, 64);
			ASSERT_FALSE(IS_ERR(pool_));
			ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
		} else {
			EXPECT_TRUE(hw->valid) << "RoCE lost lazy invalidation";
		}
	}
}

// siw sends an unsignaled WR's payload zero-copy, and TCP may send it again
// after the I/O completed and the ULP reused the pages: the core signals
// every RDMA WRITE of an I/O there (core/quirks.c, core/io.c), its
// completion its own; elsewhere only the last WR is signaled.
// With a WR chained after the I/O (the reply SEND), a lone WRITE is
// signaled on siw too; without one, the I/O's completion signals it.  The
// WRs of SGEs are forced for a list an MR would move, and left to the
// pool where its shortcuts build them (one entry, and a few WRs).
TEST_P(SiwTest, EveryWriteOfAnIoIsSignaledOnSiwOnly)
{
	struct Case {
		const char *name;
		unsigned int entries;
		bool chained_send;
		const char *force;
	};
	const Case cases[] = {
		{"33 entries, 6 WRs", 33, false, "multiread"},
		{"33 entries, 6 WRs, then a SEND", 33, true, "multiread"},
		{"one entry", 1, false, "multiread"},
		{"one entry, then a SEND", 1, true, "multiread"},
		{"one entry, unforced", 1, false, nullptr},
		{"one entry, unforced, then a SEND", 1, true, nullptr},
		{"8 entries, unforced", 8, false, nullptr},
		{"8 entries, unforced, then a SEND", 8, true, nullptr},
	};

	ExposeRemote(66 * PAGE_SIZE);
	for (const Case &c : cases) {
		SCOPED_TRACE(c.name);
		ASSERT_EQ(rdma_io_pool_force_backend(pool_, c.force), 0);
		Sg sg;
		for (unsigned int i = 0; i < c.entries; i++)
			sg.add(arena_, 2 * i, 0, PAGE_SIZE);
		Prepare(false, 7);
		rdma_io_ctx ctx;
		ASSERT_GT(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
					   remote_.addr(0), rkey(),
					   DMA_TO_DEVICE), 0);
		ib_cqe cqe{};
		ib_send_wr send{};
		send.opcode = IB_WR_SEND;
		send.wr_cqe = &cqe;
		send.send_flags = IB_SEND_SIGNALED;
		ib_send_wr *after = c.chained_send ? &send : nullptr;
		unsigned int n = 0, signaled = 0;
		for (const ib_send_wr *wr = rdma_io_ctx_wrs(&ctx, &cqe, after);
		     wr && wr != after; wr = wr->next, n++) {
			bool sig = wr->send_flags & IB_SEND_SIGNALED;
			bool last = wr == ctx.last && !after;

			ASSERT_EQ(wr->opcode, IB_WR_RDMA_WRITE);
			EXPECT_EQ(sig, Siw() || last) << "WR " << n;
			EXPECT_EQ(wr->wr_cqe == &cqe, last) << "WR " << n;
			signaled += sig;
		}
		EXPECT_EQ(n, ctx.nr_wrs);
		EXPECT_EQ(signaled, Siw() ? n : !after);
		if (!after) {
			// One completion per signaled WR, the I/O's own last.
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(sg, false));
		}
		ib_wc ok = Wc(IB_WC_SUCCESS);
		rdma_io_ctx_destroy(&ctx, &ok);
	}
}

// A failed I/O's keys are in an unknown state: they die with the device MRs
// the pool's work replaces, which rdma_io_pool_drain() waits for.
TEST_P(SiwTest, FailedIosKeyIsDeadOnceThePoolDrained)
{
	ExposeRemote(8 * PAGE_SIZE);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	Sg sg;
	for (unsigned int i = 0; i < 8; i++)
		sg.add(arena_, 2 * i, 0, PAGE_SIZE);
	Prepare(false, 9);
	rdma_io_ctx ctx;
	ASSERT_GT(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey(), DMA_TO_DEVICE), 0);
	u32 key = ctx.mrs[0]->key;
	ib_cqe cqe{};
	ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
	ASSERT_EQ(sim::step(local_.qp, 1), 1u);		// the REG_MR ran
	ASSERT_TRUE(local_.hca->find_mr(key)->valid);
	sim::set_qp_error(local_.qp);
	sim::drain();
	ASSERT_EQ(sim::completions(local_.qp).back().status, IB_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(Untouched(remote_)) << "the flushed WRITE landed";
	EXPECT_TRUE(Untouched(arena_));
	ib_wc flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&ctx, &flush);
	EXPECT_EQ(rdma_io_pool_drain(pool_), pool_->nr_total);
	EXPECT_EQ(local_.hca->find_mr(key), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Profiles, SiwTest,
			 ::testing::Values(&sim::kSiw, &sim::kRoce, &sim::kIwarp),
			 [](const auto &info) {
				 return std::string(info.param->name);
			 });

} // namespace
} // namespace mirror
