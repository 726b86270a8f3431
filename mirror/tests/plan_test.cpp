// SPDX-License-Identifier: GPL-2.0-only
//
// The I/O path's own arithmetic: the one-pass summary of a scatterlist
// (core/sg.c), the plans priced on it with the device's weights
// (core/io.c), the shortcuts that skip the summary, and the backends a
// pool resolves once (core/pool.c, core/backend.c).
#include <limits>
#include <string>
#include <vector>

#include "io_fixture.h"

namespace mirror {
namespace {

// A DMA-mapped list made by hand: addresses and lengths, no memory.
struct Entry {
	u64 addr;
	u32 len;
};

std::vector<scatterlist> Dma(std::initializer_list<Entry> entries)
{
	std::vector<scatterlist> sg(entries.size());
	size_t i = 0;

	for (const Entry &e : entries) {
		sg[i].dma_address = e.addr;
		sg[i].dma_length = e.len;
		sg[i].end = i + 1 == entries.size();
		i++;
	}
	return sg;
}

// The runs mrcore_sg_next_chunk() cuts: what the summary must count.
u32 CutRuns(std::vector<scatterlist> &sg, u32 offset, u32 mr_pages)
{
	mrcore_sg_iter it;
	mrcore_chunk c;
	u32 n = 0;

	mrcore_sg_iter_init(&it, sg.data(), offset, int(sg.size()));
	while (mrcore_sg_next_chunk(&it, mr_pages, &c))
		n++;
	return n;
}

struct SummaryCase {
	const char *name;
	std::vector<scatterlist> sg;
	u32 offset;
	u32 mr_pages;
	int ret;
	u64 length;
	u32 npages;
	u32 holes;
	u32 runs;
};

constexpr u64 P = PAGE_SIZE;
constexpr u64 kBase = 0x100000000ull;

TEST(SummaryTest, MeasuresInOnePassWhatTheCutAndThePlansNeed)
{
	std::vector<SummaryCase> cases = {
		{"whole pages, scattered", Dma({{kBase, P}, {kBase + 2 * P, P},
						{kBase + 4 * P, P}}),
		 0, 8, 0, 3 * P, 3, 0, 1},
		{"one byte", Dma({{kBase + 5, 1}}), 0, 8, 0, 1, 1, 0, 1},
		{"1-byte entries sharing a page", Dma({{kBase + 10, 1},
						       {kBase + 11, 1},
						       {kBase + 12, 1}}),
		 0, 8, 0, 3, 1, 0, 1},
		{"a gap inside a page is a hole", Dma({{kBase, 100},
						       {kBase + 200, 100}}),
		 0, 8, 0, 200, 2, 1, 2},
		{"offset into the first entry", Dma({{kBase, 2 * P},
						     {kBase + 4 * P, P}}),
		 P + 7, 8, 0, 2 * P - 7, 2, 0, 1},
		{"offset, then a gap after a partial page",
		 Dma({{kBase, u32(P + 100)}, {kBase + 4 * P, P}}),
		 P + 7, 8, 0, 100 - 7 + P, 2, 1, 2},
		{"a page list + 1 pages, contiguous", Dma({{kBase, 9 * P}}),
		 0, 8, 0, 9 * P, 9, 0, 2},
		{"a page list + 1 pages, scattered",
		 Dma({{kBase, P}, {kBase + 2 * P, P}, {kBase + 4 * P, P},
		      {kBase + 6 * P, P}, {kBase + 8 * P, P},
		      {kBase + 10 * P, P}, {kBase + 12 * P, P},
		      {kBase + 14 * P, P}, {kBase + 16 * P, P}}),
		 0, 8, 0, 9 * P, 9, 0, 2},
		{"unaligned, contiguous across pages",
		 Dma({{kBase + 100, u32(P)}, {kBase + 100 + P, u32(P)}}),
		 0, 8, 0, 2 * P, 3, 0, 1},
		{"no MR size asked: no runs", Dma({{kBase, 9 * P}}), 0, 0, 0,
		 9 * P, 9, 0, 0},
		{"an empty entry", Dma({{kBase, P}, {kBase + P, 0}}), 0, 8,
		 -EINVAL, 0, 0, 0, 0},
		{"an offset at the end of the first entry", Dma({{kBase, 100}}),
		 100, 8, -EINVAL, 0, 0, 0, 0},
		{"an entry that wraps", Dma({{~0ull - 10, 100}}), 0, 8,
		 -EOVERFLOW, 0, 0, 0, 0},
		{"more than U32_MAX bytes",
		 Dma({{kBase, 0x80000000u}, {kBase + 0x80000000ull,
					     0x80000000u}}),
		 0, 8, -EOVERFLOW, 0, 0, 0, 0},
	};

	for (SummaryCase &c : cases) {
		SCOPED_TRACE(c.name);
		mrcore_sg_summary sum{};
		int ret = mrcore_sg_summarize(c.sg.data(), c.offset,
					      int(c.sg.size()), c.mr_pages, &sum);
		ASSERT_EQ(ret, c.ret);
		if (ret)
			continue;
		EXPECT_EQ(sum.length, c.length);
		EXPECT_EQ(sum.npages, c.npages);
		EXPECT_EQ(sum.holes, c.holes);
		EXPECT_EQ(sum.runs, c.runs);
		if (c.mr_pages) {
			EXPECT_EQ(sum.runs, CutRuns(c.sg, c.offset, c.mr_pages))
				<< "the arithmetic and the cut disagree";
		}
		EXPECT_EQ(sum.last, &c.sg.back());
	}
}

class PlanTest : public IoTest {
protected:
	// What an initialized I/O costs by the model, from what it built.
	u32 Cost(rdma_io_ctx *ctx)
	{
		const rdma_io_weights &w = rdma_io_pool_get_info(pool_)->weights;
		mrcore_sg_summary sum{};

		EXPECT_EQ(mrcore_sg_summarize(ctx->sg, ctx->sg_offset,
					      ctx->dma_nents, 0, &sum), 0);
		if (!ctx->nr_mrs)
			return rdma_io_cost(&w, ctx->nr_wrs, 0, 0,
					    ctx->dma_nents);
		return rdma_io_cost(&w, ctx->nr_wrs, ctx->nr_mrs, sum.npages, 0);
	}

	// Back to a pool of clean MRs, so every plan sees the same pool.
	void Release(rdma_io_ctx *ctx)
	{
		rdma_io_ctx_destroy(ctx, nullptr);
		rdma_io_pool_drain(pool_);
	}
};

// Whatever path the choice took (the shortcut of WRs of SGEs unpriced,
// SGEs built first, or the summary and every plan priced), it is the
// cheapest plan any backend can build, fewer WRs breaking a tie.  The
// sizes include each side of where the unpriced shortcut ends (iWARP
// WRITE: 12 entries in 2 WRs cost 44 against an MR's floor of 49, 13 in 3
// WRs tie an MR of 13 pages; RoCE: 112 in 4 WRs 176 against 177).
TEST_F(PlanTest, TheShortcutsChooseWhatPricingEveryPlanWould)
{
	const char *const backends[] = {"multiread", "frwr", "iwarp", "fmr"};
	const unsigned int sizes[] = {1,  5,  6,  7,   12,  13,  17, 31,
				      32, 33, 96, 100, 112, 113, 256};

	for (const sim::Profile *p : {&sim::kRoce, &sim::kIwarp, &sim::kSiw,
				      &sim::kFmr}) {
		SetUpIo(*p, 1, 256);
		ExposeRemote(256 * PAGE_SIZE);
		for (unsigned int pages : sizes) {
			for (bool read : {true, false}) {
				SCOPED_TRACE(std::string(p->name) + " " +
					     std::to_string(pages) +
					     (read ? " READ" : " WRITE"));
				rdma_io_ctx ctx;
				Sg sg;
				ASSERT_GT(Init(&ctx, &sg, pages, read), 0);
				const std::string chose = rdma_io_ctx_backend(&ctx);
				const u32 cost = Cost(&ctx), wrs = ctx.nr_wrs;
				Release(&ctx);

				for (const char *b : backends) {
					rdma_io_ctx f;
					Sg fs;
					ASSERT_EQ(rdma_io_pool_force_backend(pool_, b), 0);
					int ret = Init(&f, &fs, pages, read);
					ASSERT_EQ(rdma_io_pool_force_backend(pool_, nullptr), 0);
					if (ret < 0)
						continue;
					const u32 c = Cost(&f);
					EXPECT_TRUE(c > cost ||
						    (c == cost && f.nr_wrs >= wrs))
						<< b << " costs " << c << " in "
						<< f.nr_wrs << " WRs, the choice ("
						<< chose << ") " << cost << " in "
						<< wrs;
					Release(&f);
				}
			}
		}
		TearDown();
		pool_ = nullptr;
		remote_mr_ = nullptr;
		fmr_ = false;
	}
}

// The weights are per device and shown in debugfs; a backend may adjust
// them for its device.
TEST_F(PlanTest, WeightsPerTransportInDebugfs)
{
	SetUpIo(sim::kRoce, 1, 16);
	auto w = DeviceFile("local", "weights");
	EXPECT_EQ(w["wr"], "16");
	EXPECT_EQ(w["mr"], "144");
	EXPECT_EQ(w["page"], "1");
	EXPECT_EQ(w["sge"], "1");
	EXPECT_EQ(rdma_io_pool_get_info(pool_)->weights.mr, 144u);
}

// A driver whose MR pages cost it more than its transport's says so
// (core/quirks.c: rxe).  On a QP of 5 send SGEs, as svcrdma's, 256
// scattered pages then go as 52 WRs of SGEs, where the transport's
// weights take one MR; both move the data.
TEST_F(PlanTest, RxePricesMrPagesAboveRoce)
{
	struct Want {
		const char *name;
		rdma_driver_id driver;
		u32 page;
		const char *backend;
		u32 mrs;
	};
	const Want wants[] = {
		{"roce", RDMA_DRIVER_UNKNOWN, 1, "frwr", 1},
		{"rxe", RDMA_DRIVER_RXE, 4, "multiread", 0},
	};

	for (const Want &w : wants) {
		SCOPED_TRACE(w.name);
		sim::Profile profile = sim::kRoce;
		profile.max_send_sge = 5;
		profile.max_sge_rd = 5;
		profile.driver_id = w.driver;
		SetUpIo(profile, 1, 256);
		ExposeRemote(512 * PAGE_SIZE);
		EXPECT_EQ(rdma_io_pool_get_info(pool_)->weights.page, w.page);
		for (bool read : {true, false}) {
			rdma_io_ctx ctx;
			Sg sg;
			ib_wc ok{};

			Prepare(read, 7 + read);
			const int wrs = Init(&ctx, &sg, 256, read);
			ASSERT_GT(wrs, 0);
			EXPECT_STREQ(rdma_io_ctx_backend(&ctx), w.backend);
			EXPECT_EQ(ctx.nr_mrs, w.mrs);
			if (!w.mrs) {
				EXPECT_EQ(wrs, 52) << "256 SGEs, 5 a WR";
			}
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(sg, read));
			rdma_io_ctx_destroy(&ctx, &ok);
		}
		TearDown();
		pool_ = nullptr;
		remote_mr_ = nullptr;
	}
}

struct CheapMrs {
	static void Weights(ib_device *dev, rdma_io_weights *w)
	{
		calls++;
		w->mr = 0;
		w->page = 0;
	}
	static inline int calls;
};

// A vendor's MR backend gets I/O through its MRs without writing any I/O
// code, priced with the weights it gives its device.
TEST_F(PlanTest, VendorMrBackendGetsIoThroughItsMrsAndItsWeights)
{
	SetUpNodes(sim::kRoce);
	rdma_mr_backend_ops vendor = mrcore_frwr_ops;
	vendor.name = "vendor";
	vendor.io_weights = CheapMrs::Weights;
	CheapMrs::calls = 0;
	ASSERT_EQ(rdma_mr_backend_register(&vendor), 0);
	pool_ = rdma_io_pool_create(local_.qp, 1, 1, 64);
	ASSERT_FALSE(IS_ERR(pool_));
	EXPECT_GT(CheapMrs::calls, 0);
	ExposeRemote(64 * PAGE_SIZE);

	// 33 pages: 2 WRs of SGEs cost 2 x 16 + 33; REG_MR + READ 2 x 16.
	Prepare(true, 4);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 33, true), 2);
	EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "vendor");
	EXPECT_EQ(ctx.nr_mrs, 1u);
	EXPECT_EQ(ctx.first->opcode, IB_WR_REG_MR);
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(sg, true));
	ib_wc ok{};
	rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(DeviceFile("local", "weights")["mr"], "0");

	rdma_io_pool_destroy(pool_);
	pool_ = nullptr;
	rdma_mr_backend_unregister(&vendor);
}

struct CountingPlan {
	static bool Serves(ib_device *dev) { return true; }
	static int Plan(const rdma_io_ctx *ctx, rdma_io_plan *plan)
	{
		calls++;
		return -EOPNOTSUPP;
	}
	static int Build(rdma_io_ctx *ctx) { return -EOPNOTSUPP; }
	static inline int calls;
};

// A pool resolves its backends once: I/Os touch no module reference, and
// a backend registered later is seen from the next I/O on, and no longer
// once unregistered.
TEST_F(PlanTest, BackendsResolvedPerPoolAndAgainWhenTheRegistryChanges)
{
	SetUpIo(sim::kRoce, 1, 64);
	ExposeRemote(64 * PAGE_SIZE);
	ib_wc ok{};
	rdma_io_ctx ctx;
	Sg sg;

	ASSERT_EQ(Init(&ctx, &sg, 40, false), 2);
	rdma_io_ctx_destroy(&ctx, &ok);
	const long refs = sim::counters().module_refs;
	for (int i = 0; i < 50; i++) {
		Sg s;
		ASSERT_EQ(Init(&ctx, &s, 40, false), 2);
		rdma_io_ctx_destroy(&ctx, &ok);
	}
	EXPECT_EQ(sim::counters().module_refs, refs)
		<< "an I/O took a module reference";

	rdma_mr_backend_ops custom{};
	custom.name = "counting";
	custom.owner = THIS_MODULE;
	custom.serves = CountingPlan::Serves;
	custom.io_plan = CountingPlan::Plan;
	custom.io_build = CountingPlan::Build;
	CountingPlan::calls = 0;
	ASSERT_EQ(rdma_mr_backend_register(&custom), 0);
	Sg s2;
	ASSERT_EQ(Init(&ctx, &s2, 40, false), 2);
	rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(CountingPlan::calls, 1) << "the new backend was not asked";
	rdma_mr_backend_unregister(&custom);
	Sg s3;
	ASSERT_EQ(Init(&ctx, &s3, 40, false), 2);
	rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(CountingPlan::calls, 1) << "an unregistered backend was asked";
}

// A vendor's I/O backend of its own (io_plan, io_build, io_done): one WR
// of the list's SGEs, which it builds in storage from rdma_io_alloc_wrs().
struct VendorWr {
	static bool Serves(ib_device *dev) { return true; }
	static int Plan(const rdma_io_ctx *ctx, rdma_io_plan *plan)
	{
		const rdma_io_pool_info *info = rdma_io_pool_get_info(ctx->pool);

		if (u32(ctx->dma_nents) > info->qp->max_write_sge ||
		    ctx->dir != DMA_TO_DEVICE)
			return -EOPNOTSUPP;
		*plan = {.wrs = 1, .mrs = 0, .cost = 0};
		return 0;
	}
	static int Build(rdma_io_ctx *ctx)
	{
		const rdma_io_pool_info *info = rdma_io_pool_get_info(ctx->pool);
		scatterlist *s = ctx->sg;
		int ret = rdma_io_alloc_wrs(ctx, 1, ctx->dma_nents);

		if (ret)
			return ret;
		for (int i = 0; i < ctx->dma_nents; i++, s = sg_next(s))
			ctx->sges[i] = {.addr = sg_dma_address(s),
					.length = sg_dma_len(s),
					.lkey = info->pd->local_dma_lkey};
		ctx->wrs[0].wr.sg_list = ctx->sges;
		ctx->wrs[0].wr.num_sge = ctx->dma_nents;
		ctx->wrs[0].wr.opcode = IB_WR_RDMA_WRITE;
		ctx->wrs[0].remote_addr = ctx->remote_addr;
		ctx->wrs[0].rkey = ctx->rkey;
		ctx->first = ctx->last = &ctx->wrs[0].wr;
		ctx->nr_wrs = ctx->nr_ops = 1;
		builds++;
		return 0;
	}
	static void Done(rdma_io_ctx *ctx, bool ok) { done[ok]++; }
	static inline int builds;
	static inline int done[2];
};

// The I/O a vendor's backend builds is moved as built, and the backend
// hears how each ended, once: io_done(ok) after a successful completion,
// io_done(!ok) for one destroyed without any.
TEST_F(PlanTest, VendorBuilderMovesTheIoAndHearsHowItEnded)
{
	SetUpIo(sim::kRoce, 1, 64);
	ExposeRemote(64 * PAGE_SIZE);
	rdma_mr_backend_ops vendor{
		.name = "vendor_wr",
		.owner = THIS_MODULE,
		.serves = VendorWr::Serves,
		.io_plan = VendorWr::Plan,
		.io_build = VendorWr::Build,
		.io_done = VendorWr::Done,
	};
	VendorWr::builds = 0;
	VendorWr::done[0] = VendorWr::done[1] = 0;
	ASSERT_EQ(rdma_mr_backend_register(&vendor), 0);
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx ctx;

	Sg a;
	Prepare(false, 70);
	ASSERT_EQ(Init(&ctx, &a, 8, false), 1);
	EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "vendor_wr");
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(a, false));
	rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(VendorWr::done[true], 1);
	EXPECT_EQ(VendorWr::done[false], 0);

	Sg b;
	ASSERT_EQ(Init(&ctx, &b, 8, false), 1);
	rdma_io_ctx_destroy(&ctx, nullptr);
	EXPECT_EQ(VendorWr::done[true], 1);
	EXPECT_EQ(VendorWr::done[false], 1);

	// A READ it refuses goes to the core's own strategies, unheard.
	Sg c;
	Prepare(true, 71);
	ASSERT_GT(Init(&ctx, &c, 8, true), 0);
	EXPECT_STRNE(rdma_io_ctx_backend(&ctx), "vendor_wr");
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(c, true));
	rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(VendorWr::builds, 2);
	EXPECT_EQ(VendorWr::done[true] + VendorWr::done[false], 2);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);

	rdma_io_pool_destroy(pool_);
	pool_ = nullptr;
	rdma_mr_backend_unregister(&vendor);
}

// Forcing resolves to a candidate of the pool, or to none: an unknown name
// refuses every I/O, and clearing it restores the cost model.
TEST_F(PlanTest, ForcedNamesResolveOncePerPool)
{
	SetUpIo(sim::kIwarp, 1, 16);
	ExposeRemote(16 * PAGE_SIZE);
	rdma_io_ctx ctx;
	ib_wc ok{};
	Sg a, b, c;

	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "nosuch"), 0);
	EXPECT_EQ(Init(&ctx, &a, 2, false), -EOPNOTSUPP);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "multiread"), 0);
	EXPECT_EQ(Init(&ctx, &b, 1, true), -EOPNOTSUPP)
		<< "multiread put the DMA lkey in an iWARP READ";
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, nullptr), 0);
	ASSERT_EQ(Init(&ctx, &c, 1, true), 2);
	EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "iwarp");
	rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
}

} // namespace
} // namespace mirror
