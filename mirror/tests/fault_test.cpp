// SPDX-License-Identifier: GPL-2.0-only
//
// Every row of tests/cases/fault_cases.h: the caller gets the documented error,
// nothing is left behind, and the same operation then works, data verified.
#include "io_fixture.h"

#include "cases/fault_cases.h"

namespace mirror {
namespace {

class FaultTest : public IoTest,
		  public ::testing::WithParamInterface<mrcore_fault_case> {
protected:
	void SetUp() override
	{
		SetUpIo(ProfileOf(GetParam().profile), 1, 600);
		ExposeRemote(600 * PAGE_SIZE);
	}

	void TearDown() override
	{
		rdma_mrcore_fault_arm(GetParam().point, 0, 0);
		IoTest::TearDown();
	}

	void Arm()
	{
		ASSERT_EQ(rdma_mrcore_fault_arm(GetParam().point, GetParam().skip,
						1), 0);
	}

	int MapRkey(rdma_mr *mr, Sg *sg, u32 *rkey, u64 *iova)
	{
		ib_send_wr *chain = nullptr;
		int ret = rdma_map_sg_rkey(rkey, iova, mr, sg->get(), sg->n(),
					   RDMA_MR_REMOTE_READ, &chain);
		if (!ret && chain)
			Post(local_.qp, chain);
		return ret;
	}

	int InitIo(rdma_io_ctx *ctx, Sg *sg)
	{
		const mrcore_fault_case &c = GetParam();

		for (unsigned int i = 0; i < c.pages; i++)
			sg->add(arena_, (2 * i) % MRCORE_SHAPE_ARENA_PAGES +
					(2 * i >= MRCORE_SHAPE_ARENA_PAGES), 0,
				PAGE_SIZE);
		return rdma_io_ctx_init(ctx, pool_, sg->get(), sg->n(), 0,
					remote_.addr(0), rkey(),
					c.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	}

	// One complete I/O, data verified.
	void IoWorks()
	{
		const mrcore_fault_case &c = GetParam();
		rdma_io_ctx ctx;
		Sg sg;

		Prepare(c.read, 12);
		ASSERT_GT(InitIo(&ctx, &sg), 0);
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(sg, c.read));
		ib_wc ok{};
		rdma_io_ctx_destroy(&ctx, &ok);
	}
};

TEST_P(FaultTest, ErrorThenNothingLeftThenItWorks)
{
	const mrcore_fault_case &c = GetParam();
	long maps = sim::counters().dma_maps_live;
	long mrs = sim::counters().mrs_live;

	switch (c.op) {
	case FAULT_OP_MAP_RKEY: {
		rdma_mr *mr = rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_RKEY);
		ASSERT_FALSE(IS_ERR(mr));
		Sg sg;
		sg.add(arena_, 0, 0, c.pages * PAGE_SIZE);
		u32 key;
		u64 iova;
		Arm();
		EXPECT_EQ(MapRkey(mr, &sg, &key, &iova), c.expect);
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(rdma_mr_length(mr), 0u);
		ASSERT_EQ(MapRkey(mr, &sg, &key, &iova), 0);
		Buffer got(c.pages);
		got.poison(1);
		ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, key, got.at(0),
				   got.size()), IB_WC_SUCCESS);
		EXPECT_TRUE(Moved(arena_.span(0, got.size()), got.bytes()));
		ib_send_wr *inv = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &inv), 0);
		Post(local_.qp, inv);
		ASSERT_EQ(rdma_unmap_mr(mr), 0);
		rdma_destroy_mr(mr);
		break;
	}
	case FAULT_OP_CREATE_MR: {
		Arm();
		EXPECT_EQ(PTR_ERR(rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_LKEY)),
			  c.expect);
		EXPECT_EQ(sim::counters().mrs_live, mrs);
		rdma_mr *mr = rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_LKEY);
		ASSERT_FALSE(IS_ERR(mr));
		rdma_destroy_mr(mr);
		break;
	}
	case FAULT_OP_POOL_CREATE: {
		Arm();
		EXPECT_EQ(PTR_ERR(rdma_io_pool_create(local_.qp, 1, 4, 512)),
			  c.expect);
		EXPECT_EQ(sim::counters().mrs_live, mrs);
		rdma_io_pool *p = rdma_io_pool_create(local_.qp, 1, 4, 512);
		ASSERT_FALSE(IS_ERR(p));
		rdma_io_pool_destroy(p);
		break;
	}
	case FAULT_OP_IO_INIT: {
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(c.read, 11);
		Arm();
		int ret = InitIo(&ctx, &sg);
		ASSERT_EQ(ret, c.expect);
		if (ret > 0) {
			// The fallback the fault led to moves the data too.
			EXPECT_STREQ(rdma_io_ctx_backend(&ctx), c.backend);
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(sg, c.read));
			ib_wc ok{};
			rdma_io_ctx_destroy(&ctx, &ok);
		} else {
			EXPECT_TRUE(Untouched(arena_));
			EXPECT_TRUE(Untouched(remote_));
		}
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(rdma_io_pool_drain(pool_), pool_->nr_total);
		IoWorks();
		break;
	}
	case FAULT_OP_IO_POST: {
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(c.read, 11);
		ASSERT_GT(InitIo(&ctx, &sg), 0);
		Arm();
		ib_cqe cqe{};
		EXPECT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), c.expect);
		sim::drain();
		EXPECT_TRUE(sim::completions(local_.qp).empty());
		EXPECT_TRUE(Untouched(arena_)) << "a refused post moved data";
		EXPECT_TRUE(Untouched(remote_)) << "a refused post moved data";
		rdma_io_ctx_destroy(&ctx, nullptr);
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(rdma_io_pool_drain(pool_), pool_->nr_total);
		IoWorks();
		break;
	}
	}
	EXPECT_EQ(rdma_mrcore_fault_hits(c.point), 1);
}

INSTANTIATE_TEST_SUITE_P(Table, FaultTest, ::testing::ValuesIn(mrcore_fault_cases),
			 [](const auto &info) {
				 std::string s = info.param.name;
				 for (char &ch : s)
					 if (!isalnum(static_cast<unsigned char>(ch)))
						 ch = '_';
				 return s;
			 });

// Replacing the device MR of an I/O that never completed can fail too: the
// pool shrinks, nothing leaks.
TEST_F(IoTest, FailedRecycleShrinksThePool)
{
	// iwarp WRITE: one source MR beats 43 WRs of 6 SGEs.
	SetUpIo(sim::kIwarp, 2, 256);
	ExposeRemote(256 * PAGE_SIZE);
	ASSERT_EQ(pool_->nr_total, 2u);
	rdma_io_ctx ctx;
	Sg sg;
	for (unsigned int i = 0; i < 256; i++)
		sg.add(arena_, 2 * i, 0, PAGE_SIZE);
	ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey(), DMA_TO_DEVICE), 2);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	rdma_io_ctx_destroy(&ctx, nullptr);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 1u);
	EXPECT_EQ(pool_->nr_total, 1u);
	EXPECT_EQ(rdma_mrcore_fault_hits("mr_alloc"), 1);
	rdma_mrcore_fault_arm("mr_alloc", 0, 0);
}

TEST_F(IoTest, FaultKnobsThroughDebugfs)
{
	SetUpIo(sim::kRoce);
	const file_operations *fops = mirror_debugfs_fops("rdma_mrcore/fault/dma_map");
	ASSERT_NE(fops, nullptr);
	inode ino{mirror_debugfs_data("rdma_mrcore/fault/dma_map")};
	file f{&ino};
	loff_t pos = 0;
	const char arm[] = "1 2";
	ASSERT_EQ(fops->write(&f, arm, sizeof(arm) - 1, &pos), 3);
	char buf[32] = {};
	pos = 0;
	ASSERT_GT(fops->read(&f, buf, sizeof(buf), &pos), 0);
	EXPECT_STREQ(buf, "1 2 0\n");
	EXPECT_EQ(fops->write(&f, "x", 1, &pos), -EINVAL);
	ASSERT_EQ(rdma_mrcore_fault_arm("dma_map", 0, 0), 0);
	EXPECT_EQ(rdma_mrcore_fault_arm("no_such_point", 0, 1), -EINVAL);
}

} // namespace
} // namespace mirror
