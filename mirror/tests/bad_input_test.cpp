// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of tests/cases/bad_input_cases.h on the simulated HCA: the documented
// errno, memory unchanged, and (checked at teardown) nothing left behind.
#include "fixture.h"

#include "cases/bad_input_cases.h"

namespace mirror {
namespace {

class BadInputTest : public MirrorTest,
		     public ::testing::WithParamInterface<mrcore_bad_case> {
protected:
	void SetUp() override
	{
		SetUpNodes(sim::kRoce);
		env_.pd = local_.pd;
		env_.qp = local_.qp;
		env_.pool = rdma_io_pool_create(local_.qp, 1, 1, 16);
		ASSERT_FALSE(IS_ERR(env_.pool));
		env_.arena = arena_.at(0);
		env_.sg = sg_;
	}

	void TearDown() override
	{
		EXPECT_EQ(rdma_io_pool_drain(env_.pool), rdma_io_pool_size(env_.pool));
		rdma_io_pool_destroy(env_.pool);
		MirrorTest::TearDown();
	}

	Buffer arena_{16};
	scatterlist sg_[4];
	mrcore_bad_env env_{};
};

TEST_P(BadInputTest, DocumentedErrnoAndNothingLeft)
{
	long maps = sim::counters().dma_maps_live;
	long mrs = sim::counters().mrs_live;

	EXPECT_EQ(GetParam().run(&env_), GetParam().expect);
	EXPECT_EQ(sim::counters().dma_maps_live, maps);
	EXPECT_EQ(sim::counters().mrs_live, mrs);
	// Refused input moves nothing: the memory holds what it was filled with.
	EXPECT_TRUE(Untouched(arena_));
	EXPECT_TRUE(sim::completions(local_.qp).empty());
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputTest, ::testing::ValuesIn(mrcore_bad_cases),
			 [](const auto &info) {
				 std::string s = info.param.name;
				 for (char &c : s)
					 if (!isalnum(static_cast<unsigned char>(c)))
						 c = '_';
				 return s;
			 });

} // namespace
} // namespace mirror
