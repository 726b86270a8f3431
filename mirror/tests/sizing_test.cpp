// SPDX-License-Identifier: GPL-2.0-only
//
// rdma_io_max_send_wr() and rdma_io_max_cqe() are exact: for each device
// profile and I/O size, every plan the core can be made to build (each
// backend forced, both directions, on a fresh pool and in the steady state
// where MRs keep their last keys) posts at most that many WRs, and one of
// them posts exactly that many; a flushed I/O completes once per WR, within
// the CQ helper's answer.  (The scenario table's rows check the bound too:
// scenario_test.cpp.)
#include "io_fixture.h"

namespace mirror {
namespace {

struct SizingCase {
	const char *name;
	const sim::Profile *profile;
	bool no_read_inv;	// an iWARP device without READ_WITH_INV
	u32 max_sge;		// the QP's SGEs (0: the device's)
};

void PrintTo(const SizingCase &c, std::ostream *os)
{
	*os << c.name;
}

const SizingCase kSizingCases[] = {
	{"roce", &sim::kRoce, false, 0},
	{"roce_4_sges", &sim::kRoce, false, 4},
	{"iwarp", &sim::kIwarp, false, 0},
	{"iwarp_no_read_inv", &sim::kIwarp, true, 0},
	{"siw", &sim::kSiw, false, 0},
	{"fmr", &sim::kFmr, false, 0},
	{"nofastreg", &sim::kNoFastReg, false, 0},
};

const char *const kBackends[] = {"frwr", "iwarp", "multiread", "fmr"};

class SizingTest : public IoTest,
		   public ::testing::WithParamInterface<SizingCase> {
protected:
	void SetUp() override
	{
		const SizingCase &c = GetParam();

		SetUpIo(*c.profile, 1, 1);
		if (c.no_read_inv)
			local_.hca->dev()->no_read_inv = true;
		LimitSges();
		ExposeRemote(MRCORE_SHAPE_ARENA_PAGES * PAGE_SIZE);
	}

	// The QP as created with cap.max_send_sge = max_sge.
	void LimitSges()
	{
		u32 n = GetParam().max_sge;

		if (!n)
			return;
		local_.qp->max_read_sge = std::min<u32>(local_.qp->max_read_sge, n);
		local_.qp->max_write_sge = std::min<u32>(local_.qp->max_write_sge, n);
	}

	// The most WRs any plan posts for @pages pages, one entry a page:
	// every backend forced, READ and WRITE, twice over the same MRs.
	u32 MostPosted(u32 pages)
	{
		u32 most = 0;

		ReplacePool(1, pages);
		for (int round = 0; round < 2; round++) {
			for (const char *b : kBackends) {
				for (bool read : {false, true}) {
					EXPECT_EQ(rdma_io_pool_force_backend(pool_, b), 0);
					Sg sg;
					for (u32 i = 0; i < pages; i++)
						sg.add(arena_, i, 0, PAGE_SIZE);
					Prepare(read, round * 8 + pages);
					rdma_io_ctx ctx;
					int ret = rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
								   remote_.addr(0), rkey(),
								   read ? DMA_FROM_DEVICE :
									  DMA_TO_DEVICE);
					if (ret == -EOPNOTSUPP)
						continue;	// not this device's
					EXPECT_GT(ret, 0) << b << (read ? " read" : " write");
					if (ret <= 0)
						continue;
					most = std::max(most, u32(ret));
					EXPECT_EQ(RunIo(&ctx), IB_WC_SUCCESS) << b;
					EXPECT_TRUE(Landed(sg, read)) << b;
					ib_wc ok = Wc(IB_WC_SUCCESS);
					rdma_io_ctx_destroy(&ctx, &ok);
				}
			}
		}
		EXPECT_EQ(rdma_io_pool_force_backend(pool_, nullptr), 0);
		return most;
	}
};

TEST_P(SizingTest, MostWrsAnyPlanPostsIsTheHelpersAnswer)
{
	const SizingCase &c = GetParam();
	ib_device *dev = local_.hca->dev();

	for (u32 pages : {1u, 7u, 33u, 256u, 257u, 600u, 1024u}) {
		SCOPED_TRACE(::testing::Message() << pages << " pages");
		u32 h = rdma_io_max_send_wr(dev, 1, pages, c.max_sge);
		EXPECT_EQ(MostPosted(pages), h);
		EXPECT_GE(rdma_io_max_cqe(dev, 1, pages, c.max_sge), h);
	}
}

// A flushed I/O completes once per WR it posted, signaled or not: the CQ
// helper's answer holds the worst of them.
TEST_P(SizingTest, FlushedIoFitsTheCq)
{
	const SizingCase &c = GetParam();
	ib_device *dev = local_.hca->dev();
	const u32 pages = 600;

	ReplacePool(1, pages);
	for (const char *b : kBackends) {
		for (bool read : {false, true}) {
			ASSERT_EQ(rdma_io_pool_force_backend(pool_, b), 0);
			Sg sg;
			for (u32 i = 0; i < pages; i++)
				sg.add(arena_, i, 0, PAGE_SIZE);
			rdma_io_ctx ctx;
			int ret = rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
						   remote_.addr(0), rkey(),
						   read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
			if (ret <= 0)
				continue;
			size_t before = sim::completions(local_.qp).size();
			ib_cqe cqe{};
			sim::set_qp_error(local_.qp);
			ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
			sim::drain();
			size_t n = sim::completions(local_.qp).size() - before;
			EXPECT_EQ(n, u32(ret)) << b;
			EXPECT_LE(n, rdma_io_max_cqe(dev, 1, pages, c.max_sge)) << b;
			ib_wc flush = Wc(IB_WC_WR_FLUSH_ERR);
			rdma_io_ctx_destroy(&ctx, &flush);
			Reconnect();
			LimitSges();
			ReplacePool(1, pages);
		}
	}
}

// Near U32_MAX pages the answers do not wrap: the MR factor is the pages
// divided by one MR's, rounded up, and no count falls as the I/O grows
// (DIV_ROUND_UP's sum wrapped: 4,294,967,294 pages gave 0 WRs, and a pool
// of 0 MRs).  A pool that large is refused, not made empty.
TEST_P(SizingTest, AnswersDoNotWrapNearU32Max)
{
	const SizingCase &c = GetParam();
	ib_device *dev = local_.hca->dev();
	const u32 sizes[] = {1, 2, 511, 512, 513, 1u << 20, 1u << 28, 1u << 31,
			     U32_MAX - 512, U32_MAX - 511, U32_MAX - 1, U32_MAX};
	u32 per_mr = 0, last_wrs = 0, last_cqe = 0, last_mrs = 0;

	// Pages one MR maps: the largest count one MR covers.
	while (per_mr < 4096 && rdma_io_mr_factor(dev, 1, per_mr + 1) == 1)
		per_mr++;
	for (u32 pages : sizes) {
		SCOPED_TRACE(::testing::Message() << pages << " pages");
		u32 mrs = rdma_io_mr_factor(dev, 1, pages);
		u32 wrs = rdma_io_max_send_wr(dev, 1, pages, c.max_sge);
		u32 cqe = rdma_io_max_cqe(dev, 1, pages, c.max_sge);

		if (per_mr)
			EXPECT_EQ(u64(mrs), (u64(pages) + per_mr - 1) / per_mr);
		else
			EXPECT_EQ(mrs, 0u);
		EXPECT_GE(mrs, last_mrs);
		EXPECT_GE(wrs, last_wrs);
		EXPECT_GE(cqe, last_cqe);
		EXPECT_GT(wrs, 0u);
		last_mrs = mrs;
		last_wrs = wrs;
		last_cqe = cqe;
	}
	rdma_io_pool *big = rdma_io_pool_create(local_.qp, 1, 1, U32_MAX);
	if (per_mr) {
		EXPECT_EQ(IS_ERR(big) ? PTR_ERR(big) : 0, -E2BIG)
			<< "U32_MAX pages take more MRs than the device has";
	} else {
		// No MR backend: a pool without MRs is the right answer.
		ASSERT_FALSE(IS_ERR(big));
		rdma_io_pool_destroy(big);
	}
}

INSTANTIATE_TEST_SUITE_P(Profiles, SizingTest, ::testing::ValuesIn(kSizingCases),
			 [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace mirror
