// SPDX-License-Identifier: GPL-2.0-only
//
// A pool whose MRs come on demand (RDMA_IO_POOL_MRS_ON_DEMAND): one MR at
// first on InfiniBand and RoCE, a batch more each time a take finds too few
// free, I/Os without MRs meanwhile; every MR at once on iWARP, whose READs
// need them.
#include "io_fixture.h"

namespace mirror {
namespace {

class PoolOnDemandTest : public IoTest {
protected:
	// The fixture's pool replaced by one whose MRs come on demand.
	void OnDemand(const sim::Profile &profile, u32 max_ctxs, u32 max_pages,
		      u32 mr_pages = 0)
	{
		SetUpIo(profile, 1, max_pages);
		if (mr_pages)
			local_.hca->dev()->attrs.max_fast_reg_page_list_len = mr_pages;
		rdma_io_pool_destroy(pool_);
		pool_ = rdma_io_pool_create_flags(local_.qp, 1, max_ctxs,
						  max_pages,
						  RDMA_IO_POOL_MRS_ON_DEMAND);
		ASSERT_FALSE(IS_ERR(pool_));
		ExposeRemote(MRCORE_SHAPE_ARENA_PAGES * PAGE_SIZE);
	}

	static long Count(const char *name)
	{
		return std::stol(DeviceFile("local", "counters")[name]);
	}

	// The WRITE @ctx over @sg, initialized: run with a source of @seed's
	// pattern, its bytes checked at the peer, then destroyed.
	void WriteAndCheck(rdma_io_ctx *ctx, Sg &sg, unsigned int seed)
	{
		ib_wc ok = Wc(IB_WC_SUCCESS);

		Prepare(false, seed);
		ASSERT_EQ(RunIo(ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(sg, false));
		rdma_io_ctx_destroy(ctx, &ok);
	}
};

// The cost model's own choice: 16 scattered pages on a QP of one SGE per
// WRITE, one MR (REG_MR + WRITE) beats 16 WRs.  The second I/O in flight
// finds the pool's one MR taken, goes as 16 WRs and asks for more; once
// the batch is in, two I/Os in flight both get MRs.
TEST_F(PoolOnDemandTest, FallsBackToSgesUntilItHasGrown)
{
	ASSERT_NO_FATAL_FAILURE(OnDemand(sim::kRoce, 32, 16));
	local_.qp->max_write_sge = 1;
	EXPECT_EQ(rdma_io_pool_size(pool_), 1u);
	EXPECT_EQ(pool_->nr_target, 32u);
	EXPECT_EQ(pool_->recycle_batch, 2u);

	rdma_io_ctx a, b;
	Sg sa, sb;
	ASSERT_EQ(Init(&a, &sa, 16, false), 2);		// REG_MR, WRITE
	EXPECT_EQ(a.nr_mrs, 1u);
	ASSERT_EQ(Init(&b, &sb, 16, false, 64), 16);	// pool dry: 16 WRs
	EXPECT_EQ(b.nr_mrs, 0u);
	EXPECT_EQ(Count("pool_misses"), 1);
	EXPECT_EQ(Count("pool_fallbacks"), 1);
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&a, sa, 1));
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&b, sb, 2));
	EXPECT_EQ(Count("pool_grown"), 0);		// the work has not run

	EXPECT_EQ(rdma_io_pool_drain(pool_), 3u);
	EXPECT_EQ(rdma_io_pool_size(pool_), 3u);
	EXPECT_EQ(Count("pool_grown"), 2);

	rdma_io_ctx c, d;
	Sg sc, sd;
	ASSERT_EQ(Init(&c, &sc, 16, false), 2);
	ASSERT_EQ(Init(&d, &sd, 16, false, 64), 2);
	EXPECT_EQ(c.nr_mrs + d.nr_mrs, 2u);
	EXPECT_EQ(Count("pool_fallbacks"), 1);
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&c, sc, 3));
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&d, sd, 4));
}

// An I/O that only an MR can move (a forced backend) is refused with
// -EAGAIN, not -E2BIG, while the pool is below what it may own: the MRs
// come.  It grows a batch per refusal, never past its target.
TEST_F(PoolOnDemandTest, RefusedIoWaitsForTheBatch)
{
	ASSERT_NO_FATAL_FAILURE(OnDemand(sim::kRoce, 3, 2));
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	EXPECT_EQ(pool_->recycle_batch, 1u);

	rdma_io_ctx io[3];
	Sg sg[3];
	ASSERT_EQ(Init(&io[0], &sg[0], 2, false), 2);
	for (u32 i = 1; i < 3; i++) {
		SCOPED_TRACE(i);
		ASSERT_EQ(Init(&io[i], &sg[i], 2, false, 8 * i), -EAGAIN);
		EXPECT_EQ(rdma_io_pool_drain(pool_), 1u);
		EXPECT_EQ(rdma_io_pool_size(pool_), i + 1);
		sg[i] = Sg();
		ASSERT_EQ(Init(&io[i], &sg[i], 2, false, 8 * i), 2);
	}
	rdma_io_ctx more;
	Sg sm;
	ASSERT_EQ(Init(&more, &sm, 2, false, 32), -EAGAIN);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 0u);
	EXPECT_EQ(rdma_io_pool_size(pool_), 3u);	// its target
	EXPECT_EQ(Count("pool_grown"), 2);
	for (u32 i = 0; i < 3; i++)
		ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&io[i], sg[i], i + 1));
}

// An I/O of two MRs on a pool that owns one but may own four waits for
// the batch as well: -EAGAIN, which a ULP retries, not -E2BIG.
TEST_F(PoolOnDemandTest, IoOfMoreMrsThanThePoolHasWaitsToo)
{
	ASSERT_NO_FATAL_FAILURE(OnDemand(sim::kRoce, 2, 8, 4));
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	EXPECT_EQ(pool_->nr_target, 4u);

	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 8, false), -EAGAIN);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 2u);
	sg = Sg();
	ASSERT_EQ(Init(&ctx, &sg, 8, false), 4);	// 2 x (REG_MR, WRITE)
	EXPECT_EQ(ctx.nr_mrs, 2u);
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&ctx, sg, 1));
}

// No MR to be had for the batch: the pool stays as it is, for good, and
// its I/Os keep falling back without asking again.
TEST_F(PoolOnDemandTest, GrowthTheDeviceRefusesKeepsThePool)
{
	ASSERT_NO_FATAL_FAILURE(OnDemand(sim::kRoce, 32, 16));
	local_.qp->max_write_sge = 1;

	rdma_io_ctx a, b;
	Sg sa, sb;
	ASSERT_EQ(Init(&a, &sa, 16, false), 2);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	ASSERT_EQ(Init(&b, &sb, 16, false, 64), 16);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 0u);
	EXPECT_EQ(rdma_mrcore_fault_hits("mr_alloc"), 1);
	rdma_mrcore_fault_arm("mr_alloc", 0, 0);
	EXPECT_EQ(rdma_io_pool_size(pool_), 1u);
	EXPECT_EQ(pool_->nr_target, 1u);
	EXPECT_EQ(Count("pool_grown"), 0);
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&a, sa, 1));
	ASSERT_NO_FATAL_FAILURE(WriteAndCheck(&b, sb, 2));
}

// iWARP READs land in MRs: the flag changes nothing there.
TEST_F(PoolOnDemandTest, IwarpPoolHasEveryMrAtOnce)
{
	ASSERT_NO_FATAL_FAILURE(OnDemand(sim::kIwarp, 4, 8));
	EXPECT_EQ(rdma_io_pool_size(pool_), 4u);
	EXPECT_EQ(pool_->nr_target, 4u);
}

TEST_F(PoolOnDemandTest, UnknownFlagIsRefused)
{
	SetUpIo(sim::kRoce);
	long live = sim::counters().kmalloc_live;

	EXPECT_EQ(PTR_ERR(rdma_io_pool_create_flags(local_.qp, 1, 1, 1, 2)),
		  -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_io_pool_create_flags(nullptr, 1, 1, 1,
						    RDMA_IO_POOL_MRS_ON_DEMAND)),
		  -EINVAL);
	EXPECT_EQ(sim::counters().kmalloc_live, live);
}

} // namespace
} // namespace mirror
