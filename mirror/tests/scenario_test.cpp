// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of kunit/scenarios.h: the I/O is planned, built, posted on the
// simulated HCA and its data verified byte for byte; then a second I/O of
// the same shape shows the steady state (lazy invalidation of local keys).
#include "fixture.h"

#include "../../kunit/scenarios.h"

namespace mirror {
namespace {

const sim::Profile &ProfileOf(mrcore_profile p)
{
	switch (p) {
	case MRCORE_PROFILE_IWARP:
		return sim::kIwarp;
	case MRCORE_PROFILE_FMR:
		return sim::kFmr;
	default:
		return sim::kRoce;
	}
}

// A helper-side I/O environment: a pool on the local QP, an arena for the
// local SG list, and a remote buffer the peer exposes.
class IoTest : public MirrorTest {
protected:
	void SetUpIo(const sim::Profile &profile, u32 max_ctxs = 1)
	{
		SetUpNodes(profile);
		if (profile.fmr_max_pages) {
			ASSERT_EQ(rdma_fmr_register(local_.hca->dev(), &sim::kFmrOps,
						    profile.fmr_max_pages), 0);
			fmr_ = true;
		}
		pool_ = rdma_io_pool_create(local_.qp, 1, max_ctxs,
					    MRCORE_SHAPE_ARENA_PAGES + 1);
		ASSERT_FALSE(IS_ERR(pool_));
	}

	void TearDown() override
	{
		if (pool_ && !IS_ERR(pool_))
			rdma_io_pool_destroy(pool_);
		if (remote_mr_)
			peer_.hca->dereg_mr(remote_mr_);
		if (fmr_)
			rdma_fmr_unregister(local_.hca->dev());
		MirrorTest::TearDown();
	}

	// The local SG list of a shape, over the arena.
	void BuildShape(const mrcore_shape_desc &d, Sg *sg)
	{
		for (unsigned int i = 0; i < d.nents; i++)
			sg->add(arena_, i * d.stride, i ? 0 : d.offset, d.length);
	}

	u64 ShapeBytes(const mrcore_shape_desc &d) const
	{
		return u64(d.nents) * d.length;
	}

	// The bytes of the arena the SG list covers, in order.
	std::vector<u8> Gather(const mrcore_shape_desc &d)
	{
		std::vector<u8> v;
		for (unsigned int i = 0; i < d.nents; i++) {
			u8 *p = arena_.at(i * d.stride * PAGE_SIZE + (i ? 0 : d.offset));
			v.insert(v.end(), p, p + d.length);
		}
		return v;
	}

	void ExposeRemote(u64 len)
	{
		remote_mr_ = peer_.hca->expose(peer_.pd, remote_.at(0), len,
					       IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_WRITE |
					       IB_ACCESS_LOCAL_WRITE);
	}

	u32 rkey() const { return remote_mr_->ibmr.rkey; }

	// Run one I/O to completion; return its completion status.
	ib_wc_status RunIo(rdma_io_ctx *ctx)
	{
		ib_cqe cqe{};
		auto &cq = sim::completions(local_.qp);
		size_t before = cq.size();

		EXPECT_EQ(rdma_io_ctx_post(ctx, &cqe, nullptr), 0);
		EXPECT_EQ(cq.size(), before + 1) << "exactly one completion";
		if (cq.size() != before + 1)
			return IB_WC_GENERAL_ERR_FOR_TESTS;
		EXPECT_EQ(cq.back().cqe, &cqe);
		return cq.back().status;
	}

	Buffer arena_{MRCORE_SHAPE_ARENA_PAGES + 1};
	Buffer remote_{MRCORE_SHAPE_ARENA_PAGES + 1};
	sim::Mr *remote_mr_ = nullptr;
	rdma_io_pool *pool_ = nullptr;
	bool fmr_ = false;
};

class ScenarioTest : public IoTest,
		     public ::testing::WithParamInterface<mrcore_scenario> {
protected:
	void SetUp() override { SetUpIo(ProfileOf(GetParam().profile)); }
};

TEST_P(ScenarioTest, PlansBuildsAndMovesTheData)
{
	const mrcore_scenario &row = GetParam();
	const mrcore_shape_desc &shape = mrcore_shapes[row.shape];
	const u64 len = ShapeBytes(shape);
	const dma_data_direction dir = row.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;

	if (row.force) {
		ASSERT_EQ(rdma_io_pool_force_backend(pool_, row.force), 0);
	}
	ExposeRemote(len);

	for (int round = 0; round < 2; round++) {
		Sg sg;
		BuildShape(shape, &sg);
		arena_.fill(round + 1);
		remote_.fill(round + 7);
		std::vector<u8> want = row.read ?
			std::vector<u8>(remote_.at(0), remote_.at(0) + len) :
			Gather(shape);

		rdma_io_ctx ctx;
		int wrs = rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
					   remote_.addr(0), rkey(), dir);
		ASSERT_GT(wrs, 0);
		EXPECT_STREQ(rdma_io_ctx_backend(&ctx), row.backend);
		EXPECT_EQ(ctx.nr_mrs, row.mrs);
		EXPECT_EQ(ctx.length, len);
		// The second round of an FRWR I/O kills each MR's last key in
		// the same chain: one LOCAL_INV more per MR.
		bool lazy = round && std::string(row.backend) == "frwr";
		EXPECT_EQ(u32(wrs), row.wrs + (lazy ? row.mrs : 0)) << "round " << round;

		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		std::vector<u8> got = row.read ? Gather(shape) :
			std::vector<u8>(remote_.at(0), remote_.at(0) + len);
		EXPECT_TRUE(got == want) << "data differs, round " << round;
		ib_wc wc{};
		wc.status = IB_WC_SUCCESS;
		rdma_io_ctx_destroy(&ctx, &wc);
		EXPECT_EQ(sim::counters().dma_maps_live, 0);
	}
	EXPECT_EQ(rdma_io_pool_drain(pool_), pool_->nr_total) << "MRs back";
	EXPECT_EQ(sim::counters().fmr_remap_unflushed, 0);
}

std::string ScenarioName(const ::testing::TestParamInfo<mrcore_scenario> &info)
{
	const mrcore_scenario &r = info.param;
	std::string s = std::string(ProfileOf(r.profile).name) + "_" +
			(r.read ? "read_" : "write_") + mrcore_shapes[r.shape].name;
	if (r.force)
		s += std::string("_forced_") + r.force;
	return s;
}

INSTANTIATE_TEST_SUITE_P(Table, ScenarioTest,
			 ::testing::ValuesIn(mrcore_scenarios), ScenarioName);

} // namespace
} // namespace mirror
