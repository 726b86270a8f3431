// SPDX-License-Identifier: GPL-2.0-only
//
// The simulated HCA runs posted WRs only when the test lets it (sim::drain(),
// sim::step(), sim::drain_random()): what that lets a test see, and how the
// core behaves with I/Os in flight, half done, flushed, refused by a full
// send queue, or broken by the peer.
#include <random>

#include "io_fixture.h"

namespace mirror {
namespace {

class AsyncTest : public IoTest {
protected:
	// The READ over @sg (from @remote_page on) moved its bytes: the
	// poisoned sink pages hold the remote bytes, the remote buffer and
	// the guards around each sink page are unchanged.
	::testing::AssertionResult ReadLanded(const Sg &sg,
					      unsigned int remote_page = 0)
	{
		return Moved(IoMoves(sg, 0, remote_.at(remote_page * PAGE_SIZE),
				     true));
	}

	// The status of the completion of @cqe, or
	// IB_WC_GENERAL_ERR_FOR_TESTS if none came.
	ib_wc_status StatusOf(ib_qp *qp, const ib_cqe *cqe)
	{
		for (const sim::Completion &c : sim::completions(qp))
			if (c.cqe == cqe)
				return c.status;
		return IB_WC_GENERAL_ERR_FOR_TESTS;
	}

	// Completions of @qp with @status.
	size_t Count(ib_qp *qp, ib_wc_status status)
	{
		size_t n = 0;

		for (const sim::Completion &c : sim::completions(qp))
			n += c.status == status;
		return n;
	}
};

// Posting runs nothing: the registration, the data and the completion all
// wait for the device; then one WR at a time, as the test says.
TEST_F(AsyncTest, NothingRunsBeforeTheDeviceDoes)
{
	SetUpIo(sim::kRoce, 1, 256);
	ExposeRemote(256 * PAGE_SIZE);
	Prepare(true, 3);
	// An MR, so that there is a registration to wait for.
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 256, true), 2);	// frwr: REG_MR, READ
	u32 key = ctx.mrs[0]->key;
	ib_cqe cqe{};
	ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);

	EXPECT_EQ(sim::queued(local_.qp), 2u);
	EXPECT_TRUE(sim::completions(local_.qp).empty());
	EXPECT_FALSE(local_.hca->find_mr(key)->valid) << "REG_MR ran at post";
	EXPECT_TRUE(Untouched(arena_)) << "READ ran at post";

	EXPECT_EQ(sim::step(local_.qp, 1), 1u);		// the REG_MR
	EXPECT_TRUE(local_.hca->find_mr(key)->valid);
	EXPECT_TRUE(Untouched(arena_)) << "READ ran with the REG_MR";
	EXPECT_TRUE(sim::completions(local_.qp).empty());

	EXPECT_EQ(sim::drain(), 1u);			// the READ
	EXPECT_EQ(sim::queued(local_.qp), 0u);
	EXPECT_TRUE(Landed(sg, true));
	ASSERT_EQ(sim::completions(local_.qp).size(), 1u);
	EXPECT_EQ(StatusOf(local_.qp, &cqe), IB_WC_SUCCESS);
	EXPECT_EQ(sim::drain(), 0u);
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&ctx, &ok);
}

// An I/O in flight when its QP breaks is flushed, every WR of it with a
// completion of its own; its data never moves; its destroy kills its key
// (a new device MR) before it returns the memory, and the MR is free.
TEST_F(AsyncTest, InFlightIoIsFlushedWrByWr)
{
	SetUpIo(sim::kIwarp, 1, 8);
	ExposeRemote(8 * PAGE_SIZE);
	Prepare(true, 4);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 8, true), 2);	// REG_MR, READ_WITH_INV
	u32 key = ctx.mrs[0]->key;
	ib_cqe cqe{};
	ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
	sim::set_qp_error(local_.qp);
	EXPECT_EQ(sim::drain(), 2u);

	auto &cq = sim::completions(local_.qp);
	ASSERT_EQ(cq.size(), 2u) << "one completion per WR, signaled or not";
	EXPECT_EQ(cq[0].opcode, IB_WR_REG_MR);
	EXPECT_EQ(cq[0].status, IB_WC_WR_FLUSH_ERR);
	EXPECT_EQ(cq[1].cqe, &cqe);
	EXPECT_EQ(cq[1].status, IB_WC_WR_FLUSH_ERR);
	EXPECT_TRUE(Untouched(arena_)) << "a flushed READ moved data";
	EXPECT_TRUE(Untouched(remote_));

	ib_wc flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&ctx, &flush);
	EXPECT_EQ(local_.hca->find_mr(key), nullptr) << "old device MR lives";
	EXPECT_EQ(pool_->nr_free, 1u) << "the replaced MR is not back";
	EXPECT_EQ(rdma_io_pool_drain(pool_), 1u);
}

// A QP error catches a chain half done: the REG_MR of an iWARP sink ran,
// its READ and the LOCAL_INV that was to kill the sink did not.  The key
// that grants REMOTE_WRITE is alive until the destroy, which replaces the
// device MR before it releases the memory; the MR is then free again.
TEST_F(AsyncTest, ErrorCatchesAChainHalfDone)
{
	SetUpIo(sim::kIwarp, 2, 8);
	local_.hca->dev()->no_read_inv = true;
	ReplacePool(2, 8);
	ExposeRemote(8 * PAGE_SIZE);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "iwarp"), 0);
	Prepare(true, 5);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 8, true), 3);	// REG_MR, READ, LOCAL_INV
	rdma_mr *mr = ctx.mrs[0];
	u32 key = mr->key;
	ib_cqe cqe{};
	ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
	ASSERT_EQ(sim::step(local_.qp, 1), 1u);
	ASSERT_TRUE(local_.hca->find_mr(key)->valid);
	sim::set_qp_error(local_.qp);
	EXPECT_EQ(sim::drain(), 2u);
	auto &cq = sim::completions(local_.qp);
	ASSERT_EQ(cq.size(), 2u);
	EXPECT_EQ(cq[0].opcode, IB_WR_RDMA_READ);
	EXPECT_EQ(cq[1].opcode, IB_WR_LOCAL_INV);
	EXPECT_EQ(Count(local_.qp, IB_WC_WR_FLUSH_ERR), 2u);
	EXPECT_TRUE(local_.hca->find_mr(key)->valid) << "the sink's key lives";
	EXPECT_TRUE(Untouched(arena_)) << "the flushed READ moved data";

	ib_wc flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&ctx, &flush);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	EXPECT_EQ(local_.hca->find_mr(key), nullptr) << "the key outlived the destroy";
	// Both MRs are free, the half-done one on a new device MR.
	rdma_io_ctx next;
	Sg sn;
	ASSERT_EQ(Init(&next, &sn, 8, true, 1), 3);
	rdma_io_ctx third;
	Sg st;
	ASSERT_EQ(Init(&third, &st, 8, true, 40), 3);
	EXPECT_TRUE(next.mrs[0] == mr || third.mrs[0] == mr);
	EXPECT_NE(next.mrs[0]->key >> 8, key >> 8);
	EXPECT_NE(third.mrs[0]->key >> 8, key >> 8);
	rdma_io_ctx_destroy(&next, nullptr);
	rdma_io_ctx_destroy(&third, nullptr);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 2u);
}

// A send queue with no room refuses the whole I/O: -ENOMEM, nothing queued,
// and the context is destroyed leaving nothing behind.  With room for part
// of the chain, the driver keeps that part; the core says so
// (-EINPROGRESS) and the I/O is destroyed once the queue was drained.
TEST_F(AsyncTest, FullSendQueueRefusesTheIoCleanly)
{
	SetUpIo(sim::kRoce, 3, 256);
	ExposeRemote(256 * PAGE_SIZE);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	sim::set_max_send_wr(local_.qp, 3);
	Prepare(true, 6);
	rdma_io_ctx a, b, c;
	Sg sa, sb, sc;
	ib_cqe ca{}, cb{}, cc{};
	ASSERT_EQ(Init(&a, &sa, 8, true, 0, 0), 2);
	ASSERT_EQ(Init(&b, &sb, 8, true, 20, 8), 2);
	ASSERT_EQ(Init(&c, &sc, 8, true, 40, 16), 2);
	ASSERT_EQ(rdma_io_ctx_post(&a, &ca, nullptr), 0);

	// Room for one WR of two: the REG_MR is posted, the READ is not.
	EXPECT_EQ(rdma_io_ctx_post(&b, &cb, nullptr), -EINPROGRESS);
	EXPECT_EQ(sim::queued(local_.qp), 3u);
	// No room at all: nothing of c is posted.
	EXPECT_EQ(rdma_io_ctx_post(&c, &cc, nullptr), -ENOMEM);
	EXPECT_EQ(sim::queued(local_.qp), 3u);
	rdma_io_ctx_destroy(&c, nullptr);
	EXPECT_EQ(sim::counters().dma_maps_live, 2);

	// b's part must be gone before b is destroyed: drain the queue the
	// way ib_drain_sq() does, by moving the QP to error.  a is flushed
	// along.
	sim::set_qp_error(local_.qp);
	EXPECT_EQ(sim::drain(), 3u);
	EXPECT_EQ(StatusOf(local_.qp, &ca), IB_WC_WR_FLUSH_ERR);
	EXPECT_EQ(Count(local_.qp, IB_WC_WR_FLUSH_ERR), 3u);
	ib_wc flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&a, &flush);
	rdma_io_ctx_destroy(&b, nullptr);
	EXPECT_TRUE(Untouched(arena_)) << "a flushed or refused READ moved data";
	EXPECT_TRUE(Untouched(remote_));
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 3u);
	EXPECT_EQ(sim::counters().dma_api_errors, 0);
}

// A remote access error breaks the connection at both ends (RC): the
// requester gets IB_WC_REM_ACCESS_ERR, the responder's QP goes to error
// and what it had queued is flushed.
TEST_F(AsyncTest, RemoteAccessErrorPutsBothQpsInError)
{
	SetUpIo(sim::kRoce, 1, 256);
	ExposeRemote(256 * PAGE_SIZE);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	for (unsigned int i = 0; i < 8; i++)
		sg.add(arena_, 2 * i, 0, PAGE_SIZE);
	ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey() + 1, DMA_TO_DEVICE), 2);
	Prepare(false, 7);

	// The peer has a WRITE of its own queued, not yet run.
	Buffer mem(1);
	mem.fill(8);
	ib_sge sge = {mem.addr(0), 64, peer_.pd->local_dma_lkey};
	ib_rdma_wr wr{};
	ib_cqe peer_cqe{};
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &peer_cqe;
	wr.remote_addr = remote_.addr(0);
	wr.rkey = rkey();
	ASSERT_EQ(sim::post(peer_.qp, &wr.wr), 0);

	ib_cqe cqe{};
	ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
	EXPECT_EQ(sim::step(local_.qp, 2), 2u);
	EXPECT_EQ(StatusOf(local_.qp, &cqe), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(sim::qp_in_error(local_.qp));
	EXPECT_TRUE(sim::qp_in_error(peer_.qp)) << "the responder lives on";

	EXPECT_EQ(sim::drain(), 1u);
	EXPECT_EQ(StatusOf(peer_.qp, &peer_cqe), IB_WC_WR_FLUSH_ERR);
	ib_wc err = Wc(IB_WC_REM_ACCESS_ERR);
	rdma_io_ctx_destroy(&ctx, &err);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 1u);
	// Neither WRITE landed, and neither source changed.
	EXPECT_TRUE(Untouched(remote_));
	EXPECT_TRUE(Untouched(arena_));
	EXPECT_TRUE(Untouched(mem));
}

class AsyncSeedTest : public AsyncTest,
		      public ::testing::WithParamInterface<uint64_t> {
protected:
	static constexpr unsigned int kIos = 4, kPages = 8;

	// kIos I/Os of kPages pages on each of two connections: the
	// fixture's, and qp2_ with a pool of its own; frwr forced on both.
	void SetUpTwoConnections()
	{
		SetUpIo(sim::kRoce, kIos, kPages);
		ExposeRemote(2 * kIos * kPages * PAGE_SIZE);
		ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
		qp2_ = local_.hca->create_qp(local_.pd);
		ib_qp *peer2 = peer_.hca->create_qp(peer_.pd);
		sim::connect(qp2_, peer2);
		pool2_ = rdma_io_pool_create(qp2_, 1, kIos, kPages);
		ASSERT_FALSE(IS_ERR(pool2_));
		ASSERT_EQ(rdma_io_pool_force_backend(pool2_, "frwr"), 0);
	}

	// I/O @i, a READ over @sg that completed into @cqe or was flushed:
	// a completed one moved its bytes; a flushed one never ran (its sink
	// pages hold their poison) and was on the broken connection.
	// Destroyed with its completion; returns whether it completed.
	bool Settle(unsigned int i, rdma_io_ctx *ctx, const Sg &sg,
		    const ib_cqe *cqe)
	{
		ib_wc wc = Wc(StatusOf(i < kIos ? local_.qp : qp2_, cqe));
		bool ok = wc.status == IB_WC_SUCCESS;

		if (ok) {
			EXPECT_TRUE(ReadLanded(sg, i * kPages)) << "I/O " << i;
		} else {
			for (const scatterlist &s : sg.entries())
				EXPECT_TRUE(Untouched(std::span(
					static_cast<const u8 *>(s.buf), s.length)))
					<< "flushed I/O " << i;
			EXPECT_EQ(wc.status, IB_WC_WR_FLUSH_ERR) << "I/O " << i;
			EXPECT_GE(i, kIos) << "a flush on the healthy QP";
		}
		rdma_io_ctx_destroy(ctx, &wc);
		return ok;
	}

	ib_qp *qp2_ = nullptr;
	rdma_io_pool *pool2_ = nullptr;
};

// Many I/Os on two connections, the devices interleaved at random, one
// connection broken part way: whatever completed moved the right bytes,
// whatever did not was flushed; every MR comes back, the flushed ones only
// after their device MRs were replaced, and none is handed out before.
TEST_P(AsyncSeedTest, CompletedAndFlushedMixed)
{
	const uint64_t seed = GetParam();

	ASSERT_NO_FATAL_FAILURE(SetUpTwoConnections());
	Prepare(true, unsigned(seed));

	rdma_io_ctx ctx[2 * kIos];
	Sg sg[2 * kIos];
	ib_cqe cqe[2 * kIos] = {};
	std::vector<u32> keys;
	for (unsigned int i = 0; i < 2 * kIos; i++) {
		rdma_io_pool *p = i < kIos ? pool_ : pool2_;
		for (unsigned int j = 0; j < kPages; j++)
			sg[i].add(arena_, 2 * (i * kPages + j), 0, PAGE_SIZE);
		ASSERT_EQ(rdma_io_ctx_init(&ctx[i], p, sg[i].get(), kPages,
					   0, remote_.addr(i * kPages * PAGE_SIZE),
					   rkey(), DMA_FROM_DEVICE), 2);
		keys.push_back(ctx[i].mrs[0]->key);
		ASSERT_EQ(rdma_io_ctx_post(&ctx[i], &cqe[i], nullptr), 0);
	}
	// Some random progress, then the second connection breaks.
	std::mt19937_64 rng(seed);
	for (int k = 0; k < 4; k++)
		sim::step(rng() & 1 ? qp2_ : local_.qp, rng() % 3);
	sim::set_qp_error(qp2_);
	sim::drain_random(seed);

	unsigned int ok = 0;
	for (unsigned int i = 0; i < 2 * kIos; i++)
		ok += Settle(i, &ctx[i], sg[i], &cqe[i]);
	unsigned int flushed = 2 * kIos - ok;
	// No I/O wrote between the sink pages, none changed the source.
	for (unsigned int p = 1; p < 4 * kIos * kPages; p += 2)
		EXPECT_TRUE(Untouched(arena_.span(p * PAGE_SIZE, PAGE_SIZE)))
			<< "page " << p;
	EXPECT_TRUE(Untouched(remote_));
	EXPECT_GE(ok, kIos);
	EXPECT_GE(flushed, 1u) << "the seed broke nothing";
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	// The flushed I/Os' MRs got new device MRs in their destroy, which
	// killed their keys before the memory went back.
	EXPECT_EQ(pool2_->nr_free, pool2_->nr_total);
	unsigned int dead = 0;
	for (unsigned int i = kIos; i < 2 * kIos; i++)
		dead += !local_.hca->find_mr(keys[i]);
	EXPECT_EQ(dead, flushed);
	EXPECT_EQ(rdma_io_pool_drain(pool_), kIos);
	EXPECT_EQ(rdma_io_pool_drain(pool2_), kIos);
	rdma_io_pool_destroy(pool2_);
}

INSTANTIATE_TEST_SUITE_P(Seeds, AsyncSeedTest, ::testing::Range<uint64_t>(1, 13));

} // namespace
} // namespace mirror
