// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of tests/cases/scenarios.h: the I/O is planned, built, posted on the
// simulated HCA and its data verified byte for byte (position-unique data,
// a poisoned sink, guards on both sides, the source unchanged); then a
// second I/O of the same shape shows the steady state (lazy invalidation of
// local keys).
#include "io_fixture.h"

namespace mirror {
namespace {

class ScenarioTest : public IoTest,
		     public ::testing::WithParamInterface<mrcore_scenario> {
protected:
	// Exactly the MRs the row needs, so that the second round reuses
	// every one of them.
	void SetUp() override
	{
		const sim::Profile &p = ProfileOf(GetParam().profile);
		u32 mr_pages = mrcore_profile_mr_pages(&p);

		SetUpIo(p, 1, std::max(1u, GetParam().mrs) * mr_pages);
	}
};

TEST_P(ScenarioTest, PlansBuildsAndMovesTheData)
{
	const mrcore_scenario &row = GetParam();
	const mrcore_shape_desc &shape = mrcore_shapes[row.shape];
	const u64 len = ShapeBytes(shape);

	if (row.force) {
		ASSERT_EQ(rdma_io_pool_force_backend(pool_, row.force), 0);
	}
	ExposeRemote(len);
	if (!row.backend) {
		Sg sg;
		BuildShape(shape, &sg);
		Prepare(row.read, 1);
		rdma_io_ctx ctx;
		std::vector<bio_vec> bv;
		EXPECT_EQ(InitIo(&ctx, sg, row.read, row.bvec, &bv, row.skip,
				 row.chained),
			  -EOPNOTSUPP);
		EXPECT_TRUE(Untouched(arena_));
		EXPECT_TRUE(Untouched(remote_));
		EXPECT_EQ(sim::counters().dma_maps_live, 0);
		EXPECT_EQ(pool_->nr_free, pool_->nr_total);
		EXPECT_EQ(sim::queued(local_.qp), 0u);
		return;
	}

	for (int round = 0; round < 2; round++) {
		Sg sg;
		BuildShape(shape, &sg);
		Prepare(row.read, round + 1);

		rdma_io_ctx ctx;
		std::vector<bio_vec> bv;
		int wrs = InitIo(&ctx, sg, row.read, row.bvec, &bv, row.skip,
				 row.chained);
		ASSERT_GT(wrs, 0);
		if (row.chained) {
			ASSERT_GT(sg.links(), 0u) << "the list has no link";
		}
		EXPECT_STREQ(rdma_io_ctx_backend(&ctx), row.backend);
		EXPECT_EQ(ctx.nr_mrs, row.mrs);
		EXPECT_EQ(ctx.length, len - row.skip);
		// The second round of an FRWR I/O kills each MR's last key in
		// the same chain: one LOCAL_INV more per MR.  Not on siw, where
		// the first round's chain killed it already.
		bool lazy = round && std::string(row.backend) == "frwr" &&
			    row.profile != MRCORE_PROFILE_SIW;
		EXPECT_EQ(u32(wrs), row.wrs + (lazy ? row.mrs : 0)) << "round " << round;
		// The send queue sized for the row's pages holds the I/O.
		EXPECT_LE(u32(wrs), rdma_io_max_send_wr(local_.hca->dev(), 1,
							ShapePages(shape), 0))
			<< "round " << round;

		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(sg, row.read, row.skip)) << "round " << round;
		ib_wc wc{};
		wc.status = IB_WC_SUCCESS;
		Destroy(&ctx, &wc, row.bvec);
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
	if (!r.backend)
		s += "_refused";
	if (r.bvec)
		s += "_bvec";
	if (r.skip)
		s += "_skip";
	if (r.chained)
		s += "_chained";
	return s;
}

INSTANTIATE_TEST_SUITE_P(Table, ScenarioTest,
			 ::testing::ValuesIn(mrcore_scenarios), ScenarioName);

} // namespace
} // namespace mirror
