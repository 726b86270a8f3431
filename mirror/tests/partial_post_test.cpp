// SPDX-License-Identifier: GPL-2.0-only
//
// A chain the driver took only part of (the fault point post_wr, armed to
// refuse the (k+1)-th WR, as a send queue with room for k does): the post
// says -EINPROGRESS, exactly k WRs are queued, and once the send queue was
// drained (the part run, or flushed by a QP error) the destroy without a
// completion leaves nothing mapped or held and no key the core registered
// for the I/O valid: the attacker on another connection of the same PD is
// refused through each, and the device MRs behind them are gone.  The
// controls: a key whose registration ran and which grants the peer
// something (an iWARP READ sink: WRITE; siw: READ through any live key)
// serves the attacker before the QP breaks; and before each refusal the
// same attacker, op, address and length is served through a reference
// rkey over the same bytes (MirrorTest::ExpectAttackerReaches()), as a
// key that never lived (its registration flushed) or grants the peer
// nothing (roce) cannot show it.  roce_multiread names no key.
#include "io_fixture.h"

namespace mirror {
namespace {

struct PartialCase {
	const char *name;
	const sim::Profile *profile;
	const char *backend;
	bool read;
	unsigned int pages;
	int wrs;			// what rdma_io_ctx_init() returns
};

const PartialCase kPartialCases[] = {
	// REG_MR + READ per MR, two MRs of 512 pages
	{"roce_frwr_read", &sim::kRoce, "frwr", true, 600, 4},
	{"roce_frwr_write", &sim::kRoce, "frwr", false, 600, 4},
	// REG_MR + READ_WITH_INV per sink, two sinks of 256 pages
	{"iwarp_read", &sim::kIwarp, "iwarp", true, 300, 4},
	// siw: REG_MR + READ_WITH_INV; a WRITE's source key is killed after
	// it (REG_MR + WRITE + LOCAL_INV)
	{"siw_read", &sim::kSiw, "iwarp", true, 300, 4},
	{"siw_write", &sim::kSiw, "frwr", false, 300, 6},
	// no MR: READ WRs of 32 SGEs on the DMA lkey
	{"roce_multiread", &sim::kRoce, "multiread", true, 100, 4},
};

void PrintTo(const PartialCase &c, std::ostream *os)
{
	*os << c.name;
}

class PartialPostTest : public IoTest,
			public ::testing::WithParamInterface<PartialCase> {
protected:
	void TearDown() override
	{
		rdma_mrcore_fault_arm("post_wr", 0, 0);
		IoTest::TearDown();
	}

	// One I/O cut after @k WRs; @run: the device runs those before the
	// QP breaks, else they are flushed.
	void CutAfter(unsigned int k, bool run)
	{
		const PartialCase &c = GetParam();
		SCOPED_TRACE(::testing::Message() << "cut after " << k
			     << (run ? ", part run" : ", part flushed"));

		Reconnect();
		ReplacePool(1, c.pages);
		ASSERT_EQ(rdma_io_pool_force_backend(pool_, c.backend), 0);
		Prepare(c.read, 30 + k);
		rdma_io_ctx ctx;
		Sg sg;
		ASSERT_EQ(Init(&ctx, &sg, c.pages, c.read), c.wrs);
		std::vector<std::pair<u32, u64>> keys;
		for (u32 i = 0; i < ctx.nr_mrs; i++)
			keys.emplace_back(ctx.mrs[i]->key, ctx.mrs[i]->iova);

		ASSERT_EQ(rdma_mrcore_fault_arm("post_wr", k, 1), 0);
		ib_cqe cqe{};
		EXPECT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), -EINPROGRESS);
		EXPECT_EQ(rdma_mrcore_fault_hits("post_wr"), 1);
		ASSERT_EQ(rdma_mrcore_fault_arm("post_wr", 0, 0), 0);
		EXPECT_EQ(sim::queued(local_.qp), k) << "the driver's part";

		// The drain, as ib_drain_sq(): the QP goes to error and
		// every WR it took completes or is flushed.
		if (run) {
			EXPECT_EQ(sim::step(local_.qp, k), k);
			// Control: every key live now (its REG_MR ran, its
			// invalidation not) serves what the device gives the
			// peer through it.  Nothing is left queued to run.
			for (const auto &[key, iova] : keys) {
				const sim::Mr *hw = local_.hca->find_mr(key);

				if (!hw || !hw->valid || !hw->key_matches(key))
					continue;
				if (hw->access & IB_ACCESS_REMOTE_WRITE)
					ExpectServedThrough(IB_WR_RDMA_WRITE, iova,
							    key, 64,
							    "the key grants REMOTE_WRITE");
				if ((hw->access & IB_ACCESS_REMOTE_READ) ||
				    !c.profile->checks_remote_read_access)
					ExpectServedThrough(IB_WR_RDMA_READ, iova,
							    key, 64,
							    "a live key the device reads through");
			}
		}
		sim::set_qp_error(local_.qp);
		sim::drain();
		EXPECT_EQ(sim::queued(local_.qp), 0u);
		for (const sim::Completion &done : sim::completions(local_.qp))
			EXPECT_NE(done.cqe, &cqe) << "the unposted last WR completed";

		rdma_io_ctx_destroy(&ctx, nullptr);
		EXPECT_EQ(sim::counters().dma_maps_live, 0) << "memory still mapped";
		EXPECT_EQ(rdma_io_pool_drain(pool_), rdma_io_pool_size(pool_));
		Buffer mine(1);
		for (const auto &[key, iova] : keys) {
			EXPECT_EQ(local_.hca->find_mr(key), nullptr)
				<< "key 0x" << std::hex << key << " outlived the destroy";
			mine.fill(77);
			ExpectAttackerReaches(IB_WR_RDMA_WRITE, iova, 64);
			EXPECT_EQ(Attack(IB_WR_RDMA_WRITE, iova, key, mine.at(0),
					 64), Access::kRefused)
				<< "key 0x" << std::hex << key << " still writes";
			ExpectAttackerReaches(IB_WR_RDMA_READ, iova, 64);
			EXPECT_EQ(Attack(IB_WR_RDMA_READ, iova, key, mine.at(0),
					 64), Access::kRefused)
				<< "key 0x" << std::hex << key << " still reads";
		}
		if (c.read)
			EXPECT_TRUE(Untouched(remote_));
		else
			EXPECT_TRUE(Untouched(arena_));
	}
};

TEST_P(PartialPostTest, DrainedThenDestroyedLeavesNoKeyAndNothingHeld)
{
	const PartialCase &c = GetParam();

	SetUpIo(*c.profile, 1, c.pages);
	ExposeRemote(2 * c.pages * PAGE_SIZE);
	for (int k = 1; k < c.wrs; k++)
		for (bool run : {true, false})
			CutAfter(k, run);
}

// Nothing taken is a plain failure of the post, not a partial one.
TEST_P(PartialPostTest, FirstWrRefusedIsNoPartialPost)
{
	const PartialCase &c = GetParam();

	SetUpIo(*c.profile, 1, c.pages);
	ExposeRemote(2 * c.pages * PAGE_SIZE);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, c.backend), 0);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, c.pages, c.read), c.wrs);
	ASSERT_EQ(rdma_mrcore_fault_arm("post_wr", 0, 1), 0);
	ib_cqe cqe{};
	EXPECT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), -ENOMEM);
	EXPECT_EQ(sim::queued(local_.qp), 0u);
	rdma_io_ctx_destroy(&ctx, nullptr);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	EXPECT_EQ(rdma_io_pool_drain(pool_), rdma_io_pool_size(pool_));
}

INSTANTIATE_TEST_SUITE_P(Cases, PartialPostTest,
			 ::testing::ValuesIn(kPartialCases),
			 [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace mirror
