// SPDX-License-Identifier: GPL-2.0-only
//
// What an operator sees: the counters that tell a flush from an error, and
// the messages of the paths that lose capacity or refuse something for a
// reason the caller cannot see (sim::kernel_log(), the mirror's printk).
#include <string>

#include "io_fixture.h"
#include "printk.h"

namespace mirror {
namespace {

class OpsTest : public IoTest {
protected:
	void SetUp() override { sim::kernel_log().clear(); }

	// An iWARP WRITE of 256 scattered pages: one source MR, 2 WRs.
	void InitWrite(rdma_io_ctx *ctx, Sg *sg, u32 rkey)
	{
		for (unsigned int i = 0; i < 256; i++)
			sg->add(arena_, 2 * i, 0, PAGE_SIZE);
		ASSERT_EQ(rdma_io_ctx_init(ctx, pool_, sg->get(), sg->n(), 0,
					   remote_.addr(0), rkey,
					   DMA_TO_DEVICE), 2);
		ASSERT_EQ(ctx->nr_mrs, 1u);
	}

	static std::string Counter(const char *name)
	{
		return DeviceFile("local", "counters")[name];
	}
};

// A flushed I/O counts in err_flush, a failed one in err_completion; each
// of them had an MR replaced, which a debug message names with the status.
TEST_F(OpsTest, FlushAndErrorAreCountedApart)
{
	SetUpIo(sim::kIwarp, 2, 256);
	ExposeRemote(256 * PAGE_SIZE);
	rdma_io_ctx bad, flushed;
	Sg sb, sf;

	// The peer refuses the key: a remote access error, and the QP breaks.
	InitWrite(&bad, &sb, rkey() + 1);
	ASSERT_EQ(RunIo(&bad), IB_WC_REM_ACCESS_ERR);
	// Whatever is posted on it now is flushed, WR by WR.
	InitWrite(&flushed, &sf, rkey());
	ASSERT_EQ(RunIo(&flushed, 2), IB_WC_WR_FLUSH_ERR);

	ib_wc err = Wc(IB_WC_REM_ACCESS_ERR), flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&bad, &err);
	EXPECT_EQ(Counter("err_completion"), "1");
	EXPECT_EQ(Counter("err_flush"), "0");
	rdma_io_ctx_destroy(&flushed, &flush);
	EXPECT_EQ(Counter("err_completion"), "1");
	EXPECT_EQ(Counter("err_flush"), "1");
	EXPECT_EQ(Counter("mr_recycled"), "2");
	EXPECT_EQ(Counter("pool_shrunk"), "0");

	EXPECT_EQ(sim::log_count("debug local: rdma_mrcore: QP "), 2u);
	EXPECT_EQ(sim::log_count("WRITE of 1048576 bytes ended with status REM_ACCESS_ERR: 1 MRs get new device MRs"),
		  1u);
	EXPECT_EQ(sim::log_count("WRITE of 1048576 bytes ended with status WR_FLUSH_ERR: 1 MRs get new device MRs"),
		  1u);
	EXPECT_EQ(sim::log_count("warn"), 0u);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 2u);
}

// An I/O without MRs that never ran: an error (no completion), no message.
TEST_F(OpsTest, NoCompletionIsAnErrorNotAFlush)
{
	SetUpIo(sim::kRoce, 1, 256);
	ExposeRemote(PAGE_SIZE);
	rdma_io_ctx ctx;
	Sg sg;

	sg.add(arena_, 0, 0, PAGE_SIZE);
	ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey(), DMA_TO_DEVICE), 1);
	rdma_io_ctx_destroy(&ctx, nullptr);
	EXPECT_EQ(Counter("err_completion"), "1");
	EXPECT_EQ(Counter("err_flush"), "0");
	EXPECT_TRUE(sim::kernel_log().empty());
}

// An I/O without MRs that ran and failed, or was flushed, is counted as
// one with MRs is: the common one-SGE I/O's destroy may not skip that.
TEST_F(OpsTest, FailedOneSgeIoIsCountedToo)
{
	SetUpIo(sim::kRoce, 1, 256);
	ExposeRemote(2 * PAGE_SIZE);
	rdma_io_ctx bad, flushed, good;
	Sg sb, sf, sg;

	sb.add(arena_, 0, 0, PAGE_SIZE);
	sf.add(arena_, 1, 0, PAGE_SIZE);
	sg.add(arena_, 2, 0, PAGE_SIZE);
	long maps = rdma_mrcore_dma_maps_live();
	ASSERT_EQ(rdma_io_ctx_init(&good, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey(), DMA_TO_DEVICE), 1);
	ASSERT_EQ(RunIo(&good), IB_WC_SUCCESS);
	ASSERT_EQ(rdma_io_ctx_init(&bad, pool_, sb.get(), sb.n(), 0,
				   remote_.addr(0), rkey() + 1, DMA_TO_DEVICE),
		  1);
	ASSERT_EQ(RunIo(&bad), IB_WC_REM_ACCESS_ERR);
	ASSERT_EQ(rdma_io_ctx_init(&flushed, pool_, sf.get(), sf.n(), 0,
				   remote_.addr(PAGE_SIZE), rkey(),
				   DMA_TO_DEVICE), 1);
	ASSERT_EQ(RunIo(&flushed), IB_WC_WR_FLUSH_ERR);

	ib_wc ok = Wc(IB_WC_SUCCESS), err = Wc(IB_WC_REM_ACCESS_ERR),
	      flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&good, &ok);
	EXPECT_EQ(Counter("err_completion"), "0");
	EXPECT_EQ(Counter("err_flush"), "0");
	rdma_io_ctx_destroy(&bad, &err);
	EXPECT_EQ(Counter("err_completion"), "1");
	EXPECT_EQ(Counter("err_flush"), "0");
	rdma_io_ctx_destroy(&flushed, &flush);
	EXPECT_EQ(Counter("err_completion"), "1");
	EXPECT_EQ(Counter("err_flush"), "1");
	EXPECT_EQ(Counter("dma_unmaps"), "3");
	EXPECT_EQ(rdma_mrcore_dma_maps_live(), maps);
	// Nothing to say: no MR got a new device MR.
	EXPECT_EQ(sim::log_count("rdma_mrcore: QP "), 0u);
}

// No device MR to replace a failed I/O's: the pool shrinks, and says so
// with the counts, once per MR lost.
TEST_F(OpsTest, PoolShrinkIsCountedAndSaid)
{
	SetUpIo(sim::kIwarp, 2, 256);
	ExposeRemote(256 * PAGE_SIZE);
	rdma_io_ctx ctx;
	Sg sg;

	InitWrite(&ctx, &sg, rkey());
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	rdma_io_ctx_destroy(&ctx, nullptr);
	rdma_mrcore_fault_arm("mr_alloc", 0, 0);
	EXPECT_EQ(rdma_io_pool_size(pool_), 1u);
	EXPECT_EQ(Counter("pool_shrunk"), "1");
	EXPECT_EQ(Counter("err_mr_alloc"), "1");
	ASSERT_EQ(sim::log_count("warn "), 1u);
	EXPECT_EQ(sim::log_count("warn local: rdma_mrcore: QP 0: no device MR to replace a recycled MR's (error -12): the MR pool shrinks from 2 to 1 MRs (1 free)"),
		  1u) << sim::kernel_log().back();
}

// Backends and FMR callbacks that are refused say why; the caller only
// gets -EINVAL or -EEXIST.
TEST_F(OpsTest, RefusedBackendsAreSaid)
{
	SetUpNodes(sim::kRoce);
	rdma_mr_backend_ops half{};
	half.name = "half";
	half.owner = THIS_MODULE;
	half.serves = [](ib_device *) { return true; };
	half.max_pages = [](ib_device *) { return 1u; };
	EXPECT_EQ(rdma_mr_backend_register(&half), -EINVAL);
	EXPECT_EQ(sim::log_count("warn rdma_mrcore: backend \"half\" refused: part of the MR callbacks only"),
		  1u);

	rdma_mr_backend_ops dup = mrcore_frwr_ops;
	EXPECT_EQ(rdma_mr_backend_register(&dup), -EEXIST);
	EXPECT_EQ(sim::log_count("warn rdma_mrcore: backend \"frwr\" refused: a backend of that name is registered"),
		  1u);

	rdma_fmr_ops no_unmap = sim::kFmrOps;
	no_unmap.unmap = nullptr;
	EXPECT_EQ(rdma_fmr_register(local_.hca->dev(), &no_unmap, 16), -EINVAL);
	EXPECT_EQ(sim::log_count("warn local: rdma_mrcore: FMR callbacks refused"),
		  1u);
	EXPECT_EQ(sim::kernel_log().size(), 3u);
}

}
}
