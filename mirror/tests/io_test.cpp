// SPDX-License-Identifier: GPL-2.0-only
//
// The READ/WRITE helper beyond the scenario table: pool exhaustion and its
// fallback, flushed and failed I/O, the iWARP temporary sink MR, FMR batch
// flushes, offsets, holes, bad input and the force knobs.
#include <map>
#include <sstream>

#include "io_fixture.h"

namespace mirror {
namespace {

class IoBehaviourTest : public IoTest {
protected:
	// Undo SetUpIo() and ExposeRemote() before a test sets up the next
	// profile.
	void EndProfile()
	{
		rdma_io_pool_destroy(pool_);
		pool_ = nullptr;
		peer_.hca->dereg_mr(remote_mr_);
		remote_mr_ = nullptr;
		mirror_module_exit();
		module_loaded_ = false;
	}

	// The READs over @sgs all landed (their sinks may interleave).
	::testing::AssertionResult ReadsLanded(std::initializer_list<const Sg *> sgs)
	{
		std::vector<Move> moves;
		for (const Sg *sg : sgs) {
			std::vector<Move> m = IoMoves(*sg, 0, remote_.at(0), true);
			moves.insert(moves.end(), m.begin(), m.end());
		}
		::testing::AssertionResult r = Moved(moves);
		return r ? Untouched(remote_) : r;
	}

	// The map API once: an rkey mapping of the arena's first page,
	// invalidated locally, unmapped.
	void MapInvalidateUnmap()
	{
		rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
		ASSERT_FALSE(IS_ERR(mr));
		Sg sm;
		sm.add(arena_, 0, 0, PAGE_SIZE);
		ib_send_wr *chain = nullptr;
		u32 key;
		u64 iova;
		ASSERT_EQ(rdma_map_sg_rkey(&key, &iova, mr, sm.get(), 1,
					   RDMA_MR_REMOTE_READ, &chain), 0);
		Post(local_.qp, chain);
		chain = nullptr;
		ASSERT_EQ(rdma_invalidate_mr(mr, &chain), 0);
		Post(local_.qp, chain);
		ASSERT_EQ(rdma_unmap_mr(mr), 0);
		rdma_destroy_mr(mr);
	}
};

TEST_F(IoBehaviourTest, DryPoolFallsBackToMultiread)
{
	// fmr: 1 WR + MR + 256 pages = 288 < 9 WRs + 256 SGEs = 400.
	SetUpIo(sim::kFmr, 1, 256);		// one MR of 256 pages
	ExposeRemote(256 * PAGE_SIZE);
	Prepare(true, 3);
	rdma_io_ctx a, b;
	Sg sa, sb;
	ASSERT_EQ(Init(&a, &sa, 256, true), 1);
	EXPECT_STREQ(rdma_io_ctx_backend(&a), "fmr");
	// The only MR is held by a: b goes without one, in 9 WRs of 30 SGEs.
	ASSERT_EQ(Init(&b, &sb, 256, true, 1), 9);
	EXPECT_STREQ(rdma_io_ctx_backend(&b), "multiread");
	ASSERT_EQ(RunIo(&a), IB_WC_SUCCESS);
	ASSERT_EQ(RunIo(&b), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sa, &sb}));
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&a, &ok);
	rdma_io_ctx_destroy(&b, &ok);
}

TEST_F(IoBehaviourTest, DryPoolOnIwarpReadIsEagainWithNothingHeld)
{
	SetUpIo(sim::kIwarp, 1, 8);		// one MR
	ExposeRemote(8 * PAGE_SIZE);
	Prepare(true, 4);
	rdma_io_ctx a, b;
	Sg sa, sb;
	ASSERT_EQ(Init(&a, &sa, 8, true), 2);
	long maps = sim::counters().dma_maps_live;
	// An iWARP READ of 8 SGEs has no fallback: the sink needs an MR.
	EXPECT_EQ(Init(&b, &sb, 8, true, 1), -EAGAIN);
	EXPECT_EQ(sim::counters().dma_maps_live, maps);
	ASSERT_EQ(RunIo(&a), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sa}));
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&a, &ok);
	// The MR is back: the same I/O now goes through.
	Sg sb2;
	ASSERT_EQ(Init(&b, &sb2, 8, true, 1), 2);
	ASSERT_EQ(RunIo(&b), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sa, &sb2}));
	rdma_io_ctx_destroy(&b, &ok);
}

// Rule 3 for the helper: the temporary sink MR's key dies with its READ.
TEST_F(IoBehaviourTest, IwarpSinkKeyIsDeadOnceTheReadCompletes)
{
	SetUpIo(sim::kIwarp, 1, 8);
	ExposeRemote(8 * PAGE_SIZE);
	Prepare(true, 5);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 8, true), 2);
	ASSERT_STREQ(rdma_io_ctx_backend(&ctx), "iwarp");
	ASSERT_EQ(ctx.first->opcode, IB_WR_REG_MR);
	auto *reg = reinterpret_cast<ib_reg_wr *>(ctx.first);
	EXPECT_TRUE(reg->access & IB_ACCESS_REMOTE_WRITE);
	EXPECT_FALSE(reg->access & IB_ACCESS_REMOTE_READ);
	ASSERT_EQ(ctx.last->opcode, IB_WR_RDMA_READ_WITH_INV);
	u32 sink_key = ctx.mrs[0]->key;
	u64 sink_iova = ctx.mrs[0]->iova;
	EXPECT_EQ(ctx.last->ex.invalidate_rkey, sink_key);

	// While registered the sink takes remote writes (that is why it is
	// temporary): the control, between the REG_MR and the READ, with only
	// the peer's WRITE run.  Once the READ completes the key is dead: the
	// same WRITE (QP, key, address, length) is refused.
	Buffer junk(1);
	ib_cqe cqe{};
	auto &cq = sim::completions(local_.qp);
	ASSERT_EQ(rdma_io_ctx_post(&ctx, &cqe, nullptr), 0);
	ASSERT_EQ(sim::step(local_.qp, 1), 1u);		// the REG_MR
	u8 *sink = reinterpret_cast<u8 *>(static_cast<uintptr_t>(sink_iova));
	ASSERT_TRUE(arena_.holds(sink, 64));
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_WRITE, sink_iova, sink_key, junk.at(0), 64,
			   true), IB_WC_SUCCESS)
		<< "control: the peer's WRITE through the live sink key";
	EXPECT_TRUE(Moved(junk.span(0, 64), std::span<const u8>(sink, 64)));
	sim::drain();
	ASSERT_FALSE(cq.empty());
	EXPECT_EQ(cq.back().cqe, &cqe);
	ASSERT_EQ(cq.back().status, IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sg})) << "the READ overwrote the control's bytes";
	sim::Mr *hw = local_.hca->find_mr(sink_key);
	ASSERT_NE(hw, nullptr);
	EXPECT_FALSE(hw->valid);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, sink_iova, sink_key, junk.at(0), 64),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(ReadsLanded({&sg})) << "the sink was not written";
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&ctx, &ok);
}

TEST_F(IoBehaviourTest, IwarpWithoutReadWithInvChainsALocalInv)
{
	SetUpIo(sim::kIwarp, 1, 8);
	local_.hca->dev()->no_read_inv = true;
	ReplacePool(1, 8);
	ExposeRemote(8 * PAGE_SIZE);
	Prepare(true, 9);
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(Init(&ctx, &sg, 8, true), 3);	// REG_MR, READ, LOCAL_INV
	EXPECT_EQ(ctx.first->next->opcode, IB_WR_RDMA_READ);
	EXPECT_EQ(ctx.last->opcode, IB_WR_LOCAL_INV);
	u32 sink_key = ctx.mrs[0]->key;
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sg}));
	sim::Mr *sink = local_.hca->find_mr(sink_key);
	ASSERT_NE(sink, nullptr);
	EXPECT_FALSE(sink->valid) << "the sink's key outlived the READ";
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&ctx, &ok);
}

// A pool MR whose last I/O left a local-only key (a WRITE source, killed
// lazily by its next registration) becomes an iWARP READ sink on a device
// without READ_WITH_INV: the chain kills the stale key, registers, READs,
// and kills the new key, each with a WR of its own.
TEST_F(IoBehaviourTest, IwarpSinkAfterALazyKeyKillsBothKeys)
{
	SetUpIo(sim::kIwarp, 1, 8);		// one MR
	local_.hca->dev()->no_read_inv = true;
	ReplacePool(1, 8);
	ExposeRemote(8 * PAGE_SIZE);
	ib_wc ok = Wc(IB_WC_SUCCESS);

	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	rdma_io_ctx w;
	Sg sw;
	Prepare(false, 1);
	ASSERT_EQ(Init(&w, &sw, 8, false), 2);		// REG_MR, WRITE
	const u32 stale_key = w.mrs[0]->key;
	ASSERT_EQ(RunIo(&w), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(sw, false));
	rdma_io_ctx_destroy(&w, &ok);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, nullptr), 0);

	rdma_io_ctx r;
	Sg sr;
	Prepare(true, 2);
	ASSERT_EQ(Init(&r, &sr, 8, true), 4);
	ASSERT_STREQ(rdma_io_ctx_backend(&r), "iwarp");
	std::vector<int> ops;
	for (const ib_send_wr *wr = r.first; wr && ops.size() < 8; wr = wr->next)
		ops.push_back(wr->opcode);
	EXPECT_EQ(ops, (std::vector<int>{IB_WR_LOCAL_INV, IB_WR_REG_MR,
					 IB_WR_RDMA_READ, IB_WR_LOCAL_INV}));
	EXPECT_EQ(r.first->ex.invalidate_rkey, stale_key);
	const u32 sink_key = r.mrs[0]->key;
	EXPECT_EQ(r.last->ex.invalidate_rkey, sink_key);
	ASSERT_EQ(RunIo(&r), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sr}));
	sim::Mr *sink = local_.hca->find_mr(sink_key);
	ASSERT_NE(sink, nullptr);
	EXPECT_FALSE(sink->valid) << "the sink's key outlived the READ";
	rdma_io_ctx_destroy(&r, &ok);
}

// Rule 5: a flushed I/O leaks nothing and its MRs are not reused before
// their keys are dead; rule 6: they are dead before its destroy returns.
TEST_F(IoBehaviourTest, FlushedIosReplaceTheirMrsInTheirDestroy)
{
	SetUpIo(sim::kIwarp, 4, 8);		// four MRs
	ExposeRemote(8 * PAGE_SIZE);
	Prepare(true, 6);
	rdma_io_ctx ctx[4];
	Sg sg[4];
	std::vector<u32> keys;
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(Init(&ctx[i], &sg[i], 8, true, 20 * i), 2);
		keys.push_back(ctx[i].mrs[0]->key);
	}
	// Two I/Os run, then the QP breaks: the others are flushed.
	ASSERT_EQ(RunIo(&ctx[0]), IB_WC_SUCCESS);
	ASSERT_EQ(RunIo(&ctx[1]), IB_WC_SUCCESS);
	sim::set_qp_error(local_.qp);
	// Flushed, every WR completes, unsignaled ones included.
	EXPECT_EQ(RunIo(&ctx[2], 2), IB_WC_WR_FLUSH_ERR);
	EXPECT_EQ(RunIo(&ctx[3], 2), IB_WC_WR_FLUSH_ERR);
	// The two that ran moved their bytes; the flushed ones nothing.
	EXPECT_TRUE(ReadsLanded({&sg[0], &sg[1]}));
	EXPECT_TRUE(Untouched(arena_.span(40 * PAGE_SIZE, 40 * PAGE_SIZE)));
	ib_wc ok = Wc(IB_WC_SUCCESS), flush = Wc(IB_WC_WR_FLUSH_ERR);
	rdma_io_ctx_destroy(&ctx[0], &ok);
	rdma_io_ctx_destroy(&ctx[1], &ok);
	rdma_io_ctx_destroy(&ctx[2], &flush);
	rdma_io_ctx_destroy(&ctx[3], nullptr);	// completion never seen
	EXPECT_EQ(pool_->nr_free, 4u) << "flushed MRs not back";
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 4u);
	// The flushed I/Os' MRs got new device MRs: their old keys are gone.
	for (int i = 2; i < 4; i++)
		EXPECT_EQ(local_.hca->find_mr(keys[i]), nullptr);
	EXPECT_EQ(local_.hca->live_mrs(), 4u + 1u);	// + the PD's DMA MR
}

// Rule 5: the MR of a failed I/O holds a key in an unknown state (here its
// REG_MR ran: the key is valid).  Rule 6: the destroy replaces its device
// MR, which kills the key, before it releases the memory and returns.
TEST_F(IoBehaviourTest, RemoteAccessErrorReplacesTheMrInItsDestroy)
{
	// iwarp WRITE: one source MR beats 43 WRs of 6 SGEs.
	SetUpIo(sim::kIwarp, 1, 256);		// one MR of 256 pages
	ExposeRemote(256 * PAGE_SIZE);
	Prepare(false, 7);
	rdma_io_ctx ctx;
	Sg sg2;
	for (unsigned int i = 0; i < 256; i++)
		sg2.add(arena_, 2 * i, 0, PAGE_SIZE);
	ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg2.get(), sg2.n(), 0,
				   remote_.addr(0), rkey() + 1, DMA_TO_DEVICE), 2);
	ASSERT_EQ(ctx.nr_mrs, 1u);
	rdma_mr *mr = ctx.mrs[0];
	const u32 old_key = mr->key;
	EXPECT_EQ(RunIo(&ctx), IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(remote_)) << "a refused WRITE moved data";
	EXPECT_TRUE(Untouched(arena_));
	sim::Mr *hw = local_.hca->find_mr(old_key);
	ASSERT_NE(hw, nullptr);
	ASSERT_TRUE(hw->valid) << "the registration ran: its key is live";
	EXPECT_FALSE(hw->noio) << "the pool's own device MR";

	ib_wc err = Wc(IB_WC_REM_ACCESS_ERR);
	rdma_io_ctx_destroy(&ctx, &err);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	// The destroy replaced the device MR, which killed the key.
	EXPECT_EQ(local_.hca->find_mr(old_key), nullptr)
		<< "the failed I/O's key survived its destroy";
	EXPECT_EQ(pool_->nr_free, 1u);
	EXPECT_EQ(pool_->nr_total, 1u);
	EXPECT_EQ(rdma_io_pool_drain(pool_), 1u);
	ASSERT_NE(mr->ibmr, nullptr);
	EXPECT_NE(mr->ibmr->lkey >> 8, old_key >> 8) << "same device MR";
	EXPECT_TRUE(sim::mr_of(mr->ibmr).noio)
		<< "a replacement's allocation may wait for I/O";
	EXPECT_EQ(mr->state, RDMA_MR_FREE);
	u64 recycled = 0;
	EXPECT_EQ(rdma_mrcore_device_counter(local_.hca->dev(), "mr_recycled",
					     &recycled), 0);
	EXPECT_EQ(recycled, 1u);
}

TEST_F(IoBehaviourTest, FmrFlushesInBatchesAndNeverRemapsUnflushed)
{
	SetUpIo(sim::kFmr, 64, 32);		// 64 MRs of 256 pages
	ExposeRemote(32 * PAGE_SIZE);
	ib_wc ok = Wc(IB_WC_SUCCESS);
	for (int i = 0; i < 200; i++) {
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(true, i);
		ASSERT_EQ(Init(&ctx, &sg, 32, true, i % 3), 1);
		ASSERT_STREQ(rdma_io_ctx_backend(&ctx), "fmr");
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		ASSERT_TRUE(ReadsLanded({&sg})) << "I/O " << i;
		rdma_io_ctx_destroy(&ctx, &ok);
	}
	// 200 released mappings, one unmap call per 32 of them.
	EXPECT_EQ(sim::counters().fmr_remap_unflushed, 0);
	EXPECT_EQ(rdma_fmr_flushes(local_.hca->dev()), 200u / 32);
	EXPECT_EQ(sim::counters().fmr_unmap_calls, 200 / 32);
}

TEST_F(IoBehaviourTest, OffsetIntoTheFirstEntry)
{
	for (const sim::Profile *p : {&sim::kRoce, &sim::kIwarp}) {
		SCOPED_TRACE(p->name);
		SetUpIo(*p, 1, 64);
		ExposeRemote(64 * PAGE_SIZE);
		for (const char *force : {"multiread", "frwr"}) {
			ASSERT_EQ(rdma_io_pool_force_backend(pool_, force), 0);
			rdma_io_ctx ctx;
			Sg sg;
			sg.add(arena_, 0, 0, 3 * PAGE_SIZE);
			// Fresh bytes on both sides: the remote buffer must not
			// still hold what the previous backend wrote.
			Prepare(false, force[0] + p->iwarp);
			int wrs = rdma_io_ctx_init(&ctx, pool_, sg.get(), 1, 1234,
						   remote_.addr(0), rkey(),
						   DMA_TO_DEVICE);
			ASSERT_GT(wrs, 0) << force;
			EXPECT_EQ(ctx.length, 3 * PAGE_SIZE - 1234);
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(sg, false, 1234)) << force;
			ib_wc ok = Wc(IB_WC_SUCCESS);
			rdma_io_ctx_destroy(&ctx, &ok);
		}
		EndProfile();
	}
}

// An offset past the first entry skips entries whole (as rdma_rw does), on
// every backend and direction: a target resuming a transfer passes the
// bytes already done.
TEST_F(IoBehaviourTest, OffsetPastTheFirstEntrySkipsEntries)
{
	struct Case {
		const char *name;
		u32 offset;
	};
	const Case cases[] = {
		{"inside the second entry", PAGE_SIZE + 100},
		{"at the start of the third entry", 2 * PAGE_SIZE},
		{"the last byte of the list", 4 * PAGE_SIZE - 1},
	};

	for (const sim::Profile *p : {&sim::kRoce, &sim::kIwarp}) {
		SCOPED_TRACE(p->name);
		SetUpIo(*p, 1, 64);
		ExposeRemote(64 * PAGE_SIZE);
		unsigned int seed = 0;

		for (const char *force : {"", "multiread", "frwr", "iwarp"})
			for (bool read : {true, false})
				for (const Case &c : cases) {
					SCOPED_TRACE(std::string(force) + " " +
						     (read ? "READ " : "WRITE ") +
						     c.name);
					ASSERT_EQ(rdma_io_pool_force_backend(pool_,
									     force),
						  0);
					rdma_io_ctx ctx;
					Sg sg;
					// Four scattered pages.
					for (size_t i = 0; i < 4; i++)
						sg.add(arena_, 2 * i, 0, PAGE_SIZE);
					Prepare(read, ++seed);
					int wrs = rdma_io_ctx_init(&ctx, pool_,
								   sg.get(), 4,
								   c.offset,
								   remote_.addr(0),
								   rkey(),
								   read ? DMA_FROM_DEVICE :
									  DMA_TO_DEVICE);
					// Only the iwarp backend sinks an
					// iWARP READ, and only that.
					bool iw_read = p->iwarp && read;
					bool refused = *force &&
						(std::string(force) == "iwarp") !=
						iw_read;
					if (refused) {
						EXPECT_EQ(wrs, -EOPNOTSUPP);
						continue;
					}
					ASSERT_GT(wrs, 0);
					EXPECT_EQ(ctx.length, 4 * PAGE_SIZE - c.offset);
					ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
					EXPECT_TRUE(Landed(sg, read, c.offset));
					ib_wc ok = Wc(IB_WC_SUCCESS);
					rdma_io_ctx_destroy(&ctx, &ok);
				}
		EndProfile();
	}
}

TEST_F(IoBehaviourTest, HolesStartNewMrs)
{
	SetUpIo(sim::kRoce, 3, 64);
	ExposeRemote(64 * PAGE_SIZE);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	// page 0 from 100, page 1 (contiguous), page 5's first 500 bytes
	// (page-aligned where they meet: no hole) | page 9 from 300: a hole,
	// as page 5's run ends inside its page.  Two MRs.
	Sg sg;
	sg.add(arena_, 0, 100, PAGE_SIZE - 100);
	sg.add(arena_, 1, 0, PAGE_SIZE);
	sg.add(arena_, 5, 0, 500);
	sg.add(arena_, 9, 300, 200);
	Prepare(true, 2);
	rdma_io_ctx ctx;
	ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
				   remote_.addr(0), rkey(), DMA_FROM_DEVICE), 4);
	EXPECT_EQ(ctx.nr_mrs, 2u);
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(sg, true));
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&ctx, &ok);
}

// An I/O of several WRs, SGEs or MRs takes them from a block of its pool:
// made when the pool first needs one, at most max_ctxs of them, and kept,
// so that later I/Os allocate nothing.  One I/O more in flight than
// max_ctxs, or one larger than the pool's max_pages, allocates its own
// rather than failing, and the device counts it (io_allocs).
TEST_F(IoBehaviourTest, IosTakeTheirStorageFromThePool)
{
	SetUpIo(sim::kRoce, 2, 8);
	ExposeRemote(16 * PAGE_SIZE);
	ib_wc ok = Wc(IB_WC_SUCCESS);
	const auto live = [] { return sim::counters().kmalloc_live; };
	const auto io_allocs = [] {
		return DeviceFile("local", "counters")["io_allocs"];
	};

	// A one-entry I/O first: the pool resolves its backends (allocated).
	{
		rdma_io_ctx ctx;
		Sg sg;
		ASSERT_EQ(Init(&ctx, &sg, 1, true), 1);
		rdma_io_ctx_destroy(&ctx, nullptr);
	}
	const long base = live();
	for (unsigned int round = 0; round < 3; round++) {
		SCOPED_TRACE(round);
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(true, round + 1);
		ASSERT_EQ(Init(&ctx, &sg, 8, true), 1);	// READ[8]
		EXPECT_TRUE(ctx.mem_pooled);
		EXPECT_EQ(live(), base + 1) << "not the one block, kept";
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(ReadsLanded({&sg}));
		rdma_io_ctx_destroy(&ctx, &ok);
		EXPECT_EQ(live(), base + 1);
	}
	EXPECT_EQ(io_allocs(), "0");

	// Three in flight: a second block, then the third's own storage.
	rdma_io_ctx c[3];
	Sg s[3];
	Prepare(true, 4);
	for (unsigned int i = 0; i < 3; i++)
		ASSERT_EQ(Init(&c[i], &s[i], 8, true, 16 * (i + 1)), 1);
	EXPECT_TRUE(c[0].mem_pooled && c[1].mem_pooled);
	EXPECT_FALSE(c[2].mem_pooled);
	EXPECT_EQ(live(), base + 3);
	EXPECT_EQ(io_allocs(), "1");
	for (rdma_io_ctx &ctx : c)
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&s[0], &s[1], &s[2]}));
	for (rdma_io_ctx &ctx : c)
		rdma_io_ctx_destroy(&ctx, &ok);
	EXPECT_EQ(live(), base + 2) << "the pool keeps max_ctxs blocks";

	// Twelve pages on a pool made for eight: its own storage, counted.
	rdma_io_ctx big;
	Sg sb;
	Prepare(true, 5);
	ASSERT_EQ(Init(&big, &sb, 12, true, 64), 1);	// READ[12]
	EXPECT_FALSE(big.mem_pooled);
	EXPECT_EQ(io_allocs(), "2");
	ASSERT_EQ(RunIo(&big), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sb}));
	rdma_io_ctx_destroy(&big, &ok);
	EXPECT_EQ(live(), base + 2);
}

// The MRs of an I/O of several runs, with their WRs and SGEs: in a block
// too, which a failed build gives back.
TEST_F(IoBehaviourTest, MrChainTakesItsStorageFromThePool)
{
	SetUpIo(sim::kRoce, 1, 8);
	local_.hca->dev()->attrs.max_fast_reg_page_list_len = 4;
	ReplacePool(1, 8);			// two MRs of 4 pages
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "frwr"), 0);
	ExposeRemote(8 * PAGE_SIZE);
	ib_wc ok = Wc(IB_WC_SUCCESS);
	long base = 0;

	for (unsigned int round = 0; round < 3; round++) {
		SCOPED_TRACE(round);
		rdma_io_ctx ctx;
		Sg sg;
		Prepare(false, round + 1);
		ASSERT_GT(Init(&ctx, &sg, 8, false), 0);
		EXPECT_EQ(ctx.nr_mrs, 2u);
		EXPECT_TRUE(ctx.mem_pooled);
		// The first I/O resolved the pool's backends and made the block.
		if (!round)
			base = sim::counters().kmalloc_live;
		EXPECT_EQ(sim::counters().kmalloc_live, base);
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(sg, false));
		rdma_io_ctx_destroy(&ctx, &ok);
		EXPECT_EQ(sim::counters().kmalloc_live, base);
	}
	// No MR free: the take fails after the block was taken, and the
	// block goes back with the MRs left alone.
	rdma_io_ctx ctx;
	Sg sg;
	ASSERT_EQ(rdma_mrcore_fault_arm("pool_empty", 0, 1), 0);
	EXPECT_EQ(Init(&ctx, &sg, 8, false), -EAGAIN);
	ASSERT_EQ(rdma_mrcore_fault_arm("pool_empty", 0, 0), 0);
	EXPECT_EQ(sim::counters().kmalloc_live, base);
	EXPECT_EQ(pool_->io_mem.nr, 1u);
	EXPECT_NE(pool_->io_mem.free, nullptr) << "the block is still held";
	EXPECT_EQ(DeviceFile("local", "counters")["io_allocs"], "0");
}

TEST_F(IoBehaviourTest, BadInputIsRefusedWithNothingHeld)
{
	SetUpIo(sim::kIwarp, 1, 16);
	ExposeRemote(16 * PAGE_SIZE);
	Prepare(true, 8);
	rdma_io_ctx ctx;
	Sg sg;
	for (unsigned int i = 0; i < 8; i++)
		sg.add(arena_, 2 * i, 0, PAGE_SIZE);
	u64 ra = remote_.addr(0);
	EXPECT_EQ(rdma_io_ctx_init(nullptr, pool_, sg.get(), 8, 0, ra, rkey(),
				   DMA_FROM_DEVICE), -EINVAL);
	EXPECT_EQ(rdma_io_ctx_init(&ctx, nullptr, sg.get(), 8, 0, ra, rkey(),
				   DMA_FROM_DEVICE), -EINVAL);
	EXPECT_EQ(rdma_io_ctx_init(&ctx, pool_, nullptr, 8, 0, ra, rkey(),
				   DMA_FROM_DEVICE), -EINVAL);
	EXPECT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), 0, 0, ra, rkey(),
				   DMA_FROM_DEVICE), -EINVAL);
	EXPECT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), 8, 0, ra, rkey(),
				   DMA_BIDIRECTIONAL), -EINVAL);
	// Offsets at and past the end of the list (past the first entry
	// they skip entries whole).
	for (u64 off : {8 * PAGE_SIZE, 8 * PAGE_SIZE + 1, 1UL << 31})
		EXPECT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), 8, u32(off), ra,
					   rkey(), DMA_FROM_DEVICE), -EINVAL);
	// Forced backends that cannot move the I/O, and names that are none.
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "multiread"), 0);
	EXPECT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), 8, 0, ra, rkey(),
				   DMA_FROM_DEVICE), -EOPNOTSUPP);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "fmr"), 0);
	EXPECT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), 8, 0, ra, rkey(),
				   DMA_TO_DEVICE), -EOPNOTSUPP);
	EXPECT_EQ(rdma_io_pool_force_backend(pool_, "a-name-far-too-long"),
		  -EINVAL);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);
	EXPECT_EQ(pool_->nr_free, pool_->nr_total);
	EXPECT_TRUE(Untouched(arena_));
	EXPECT_TRUE(Untouched(remote_));
	EXPECT_EQ(PTR_ERR(rdma_io_pool_create(nullptr, 1, 1, 1)), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_io_pool_create(local_.qp, 1, 0, 1)), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_io_pool_create(local_.qp, 1, 1, 0)), -EINVAL);
}

TEST_F(IoBehaviourTest, DebugfsKnobForcesEveryPool)
{
	SetUpIo(sim::kRoce, 1, 16);
	ExposeRemote(16 * PAGE_SIZE);
	const file_operations *fops = mirror_debugfs_fops("rdma_mrcore/force_backend");
	ASSERT_NE(fops, nullptr);
	const char frwr[] = "frwr\n";
	loff_t pos = 0;
	ASSERT_EQ(fops->write(nullptr, frwr, sizeof(frwr) - 1, &pos),
		  ssize_t(sizeof(frwr) - 1));
	char back[32] = {};
	pos = 0;
	ASSERT_EQ(fops->read(nullptr, back, sizeof(back), &pos), 5);
	EXPECT_STREQ(back, "frwr\n");

	rdma_io_ctx ctx;
	Sg sg;
	Prepare(false, 1);
	ASSERT_EQ(Init(&ctx, &sg, 1, false), 2);
	EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "frwr");
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(sg, false));
	ib_wc ok = Wc(IB_WC_SUCCESS);
	rdma_io_ctx_destroy(&ctx, &ok);

	// A pool's own setting wins over the knob; clearing both restores
	// the cost model.
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, "multiread"), 0);
	Sg sg2;
	Prepare(false, 2);
	ASSERT_EQ(Init(&ctx, &sg2, 1, false), 1);
	EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "multiread");
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(sg2, false));
	rdma_io_ctx_destroy(&ctx, &ok);
	const char empty[] = "\n";
	pos = 0;
	fops->write(nullptr, empty, 1, &pos);
	ASSERT_EQ(rdma_io_pool_force_backend(pool_, nullptr), 0);
	Sg sg3;
	Prepare(false, 3);
	ASSERT_EQ(Init(&ctx, &sg3, 1, false), 1);
	EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "multiread");
	ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
	EXPECT_TRUE(Landed(sg3, false));
	rdma_io_ctx_destroy(&ctx, &ok);
}

TEST_F(IoBehaviourTest, QpSizingHelpers)
{
	SetUpIo(sim::kIwarp, 1, 8);
	ib_device *dev = local_.hca->dev();
	EXPECT_EQ(rdma_io_mr_factor(dev, 1, 256), 1u);
	EXPECT_EQ(rdma_io_mr_factor(dev, 1, 257), 2u);
	EXPECT_EQ(rdma_io_mr_factor(dev, 1, 1024), 4u);
	// iWARP READs never go without a sink MR: 4 sinks of 256 pages,
	// REG_MR + READ_WITH_INV + a kept key's LOCAL_INV each, 12; WRITEs
	// of 6 SGEs, 171: the larger.  The deprecated name says the same.
	EXPECT_EQ(rdma_io_max_send_wr(dev, 1, 1024, 0), 171u);
	EXPECT_EQ(rdma_io_send_wrs_per_ctx(dev, 1, 1024), 171u);
	// A QP of 2 SGEs: 512 WRITE WRs.
	EXPECT_EQ(rdma_io_max_send_wr(dev, 1, 1024, 2), 512u);
	EXPECT_EQ(rdma_io_max_cqe(dev, 1, 1024, 2), 512u);
}

namespace mirror {
namespace {

// A QP created with fewer SGEs than its device takes: WRs follow the QP.
TEST_F(IoTest, MultireadFollowsTheQpsSgeLimits)
{
	SetUpIo(sim::kRoce, 1, 16);
	ExposeRemote(16 * PAGE_SIZE);
	local_.qp->max_write_sge = 4;
	local_.qp->max_read_sge = 3;
	for (bool read : {false, true}) {
		rdma_io_ctx ctx;
		Sg sg;
		for (unsigned int i = 0; i < 8; i++)
			sg.add(arena_, 2 * i, 0, PAGE_SIZE);
		Prepare(read, read ? 5 : 6);
		ASSERT_EQ(rdma_io_ctx_init(&ctx, pool_, sg.get(), sg.n(), 0,
					   remote_.addr(0), rkey(),
					   read ? DMA_FROM_DEVICE : DMA_TO_DEVICE),
			  read ? 3 : 2);
		EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "multiread");
		ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
		EXPECT_TRUE(Landed(sg, read)) << (read ? "READ" : "WRITE");
		ib_wc ok{};
		rdma_io_ctx_destroy(&ctx, &ok);
	}
}



TEST_F(IoBehaviourTest, DeviceCountersAndBackends)
{
	// fmr, where one MR of 256 pages beats 9 WRs of SGEs.
	SetUpIo(sim::kFmr, 1, 256);		// one MR of 256 pages
	ExposeRemote(256 * PAGE_SIZE);
	rdma_io_ctx a, b, c;
	Sg sa, sb, sc;
	ib_wc ok = Wc(IB_WC_SUCCESS);

	Prepare(true, 1);
	ASSERT_EQ(Init(&a, &sa, 256, true), 1);		// fmr: the READ
	ASSERT_EQ(Init(&b, &sb, 256, true, 1), 9);	// pool dry: multiread
	ASSERT_EQ(RunIo(&a), IB_WC_SUCCESS);
	ASSERT_EQ(RunIo(&b), IB_WC_SUCCESS);
	EXPECT_TRUE(ReadsLanded({&sa, &sb}));
	rdma_io_ctx_destroy(&a, &ok);
	rdma_io_ctx_destroy(&b, &ok);
	ASSERT_EQ(Init(&c, &sc, 1, false), 1);		// one WRITE WR
	rdma_io_ctx_destroy(&c, nullptr);		// never posted
	// Refused after its list was mapped: an offset at the end of it.
	rdma_io_ctx d;
	Sg sd;
	sd.add(arena_, 0, 0, PAGE_SIZE);
	ASSERT_EQ(rdma_io_ctx_init(&d, pool_, sd.get(), 1, PAGE_SIZE,
				   remote_.addr(0), rkey(), DMA_TO_DEVICE),
		  -EINVAL);

	// The map API: one rkey mapping, invalidated locally, unmapped.
	ASSERT_NO_FATAL_FAILURE(MapInvalidateUnmap());

	auto n = DeviceFile("local", "counters");
	EXPECT_EQ(n["ios"], "3");
	EXPECT_EQ(n["wrs_posted"], "10");
	EXPECT_EQ(n["posts"], "2");
	EXPECT_EQ(n["pool_hits"], "1");
	EXPECT_EQ(n["pool_misses"], "1");
	EXPECT_EQ(n["pool_fallbacks"], "1");
	// b's 9 WRs and 256 SGEs: in the pool's block, not allocated.
	EXPECT_EQ(n["io_allocs"], "0");
	EXPECT_EQ(n["err_pool_dry"], "0");
	EXPECT_EQ(n["err_completion"], "1");
	EXPECT_EQ(n["err_post"], "0");
	EXPECT_EQ(n["maps"], "1");
	EXPECT_EQ(n["unmaps"], "1");
	// Three I/Os, the refused init and the map API's mapping: a built
	// I/O's mapping is counted by its backend's use, the others alone.
	EXPECT_EQ(n["dma_maps"], "5");
	EXPECT_EQ(n["dma_unmaps"], "5");
	EXPECT_EQ(n["invalidate_local"], "1");
	EXPECT_EQ(n["invalidate_remote"], "0");
	EXPECT_EQ(n["read_fmr"], "1");
	EXPECT_EQ(n["read_multiread"], "1");
	EXPECT_EQ(n["write_multiread"], "1");
	EXPECT_EQ(n["map_fmr"], "2");			// the pool's MR, then ours

	auto why = DeviceFile("local", "backends");
	EXPECT_EQ(why["map"], "fmr only");
	EXPECT_EQ(why["read"], "multiread pool dry");
	EXPECT_EQ(why["write"], "multiread cheapest");
	// The peer did nothing through the core.
	EXPECT_EQ(DeviceFile("peer", "counters")["ios"], "0");

	// The same counters for in-kernel readers.
	u64 v = 0;
	EXPECT_EQ(rdma_mrcore_device_counter(local_.hca->dev(), "pool_misses",
					     &v), 0);
	EXPECT_EQ(v, 1u);
	EXPECT_EQ(rdma_mrcore_device_counter(local_.hca->dev(), "no_such",
					     &v), -ENOENT);
}

TEST_F(IoBehaviourTest, DeviceStateOutlivesRemovalUntilLastPool)
{
	SetUpIo(sim::kRoce, 1, 16);
	int live = rdma_mrcore_devices_live();

	// The device goes (its client remove()) while the pool still holds
	// its state: the files go at once, the state with the pool.
	EXPECT_NE(local_.hca->dev()->client_data, nullptr);
	mrcore_devices_exit();
	EXPECT_EQ(mirror_debugfs_fops("rdma_mrcore/devices/local/counters"),
		  nullptr);
	EXPECT_EQ(rdma_mrcore_devices_live(), 1);	// the pool's reference
	rdma_io_pool_destroy(pool_);
	pool_ = nullptr;
	EXPECT_EQ(rdma_mrcore_devices_live(), 0);
	EXPECT_EQ(live, 2);
	// Back, for the module's exit in teardown.
	ASSERT_EQ(mrcore_devices_init(nullptr), 0);
}

} // namespace
} // namespace mirror

// An iWARP READ goes from its summary straight to its sink MRs' builder,
// nothing chosen or priced, and one entry is its own summary (core/io.c:
// mrcore_io_init_mr_list()).  A forced backend takes the planned path, so
// each list runs both ways on the same pool: the same chain, summary,
// data, errors and counters.
TEST_F(IoBehaviourTest, IwarpSinkOnlyReadIsBuiltAsPlanned)
{
	SetUpIo(sim::kIwarp, 2, 8);		// two MRs of 256 pages
	ExposeRemote(260 * PAGE_SIZE);
	const ib_wc ok = Wc(IB_WC_SUCCESS);
	struct Piece {
		u32 page, offset, length;	// in the arena
	};
	struct List {
		const char *what;
		std::vector<Piece> pieces;
		u32 sg_offset;
		u64 remote;		// peer address, U64_MAX: its range wraps
		int ret;
	};
	const auto pages = [](u32 first, u32 n) {
		std::vector<Piece> v;

		for (u32 i = 0; i < n; i++)
			v.push_back({first + i, 0, PAGE_SIZE});
		return v;
	};
	const List lists[] = {
		{"1 byte", {{0, 0, 1}}, 0, 0, 2},
		{"1 byte, last of its page", {{0, PAGE_SIZE - 1, 1}}, 0, 0, 2},
		{"2 bytes across a page", {{0, PAGE_SIZE - 1, 2}}, 0, 0, 2},
		{"3 pages at 100, four pages", {{0, 100, 3 * PAGE_SIZE}}, 0, 0,
		 2},
		{"a full MR", {{0, 0, 256 * PAGE_SIZE}}, 0, 0, 2},
		{"257 pages in one entry: two runs",
		 {{0, 1, 256 * PAGE_SIZE}}, 0, 0, 4},
		{"sg_offset past a page", {{0, 0, 2 * PAGE_SIZE}}, 5000, 0, 2},
		{"sg_offset at the end", {{0, 0, PAGE_SIZE}}, PAGE_SIZE, 0,
		 -EINVAL},
		{"the peer's range wraps", {{0, 0, PAGE_SIZE}}, 0, U64_MAX,
		 -EOVERFLOW},
		{"8 pages", pages(0, 8), 0, 0, 2},
		{"8 pages, every other one", {{0, 0, PAGE_SIZE},
		 {2, 0, PAGE_SIZE}, {4, 0, PAGE_SIZE}, {6, 0, PAGE_SIZE},
		 {8, 0, PAGE_SIZE}, {10, 0, PAGE_SIZE}, {12, 0, PAGE_SIZE},
		 {14, 0, PAGE_SIZE}}, 0, 0, 2},
		{"256 pages: a full page list", pages(0, 256), 0, 0, 2},
		{"257 pages: a page list and one", pages(0, 257), 0, 0, 4},
		{"entries joined inside pages", {{0, 100, 1000},
		 {0, 1100, PAGE_SIZE}, {1, 1100, 10}}, 0, 0, 2},
		{"a hole: an entry ends inside a page", {{0, 0, 100},
		 {2, 0, PAGE_SIZE}}, 0, 0, 4},
		{"a hole: an entry starts inside a page", {{0, 0, PAGE_SIZE},
		 {2, 10, 20}}, 0, 0, 4},
		{"1-byte entries, a page apart", {{0, 0, 1}, {1, 0, 1}}, 0, 0,
		 4},
		{"1-byte entries, joined", {{0, 7, 1}, {0, 8, 1}, {0, 9, 1}},
		 0, 0, 2},
		{"sg_offset skips an entry", pages(0, 3), PAGE_SIZE + 10, 0, 2},
		{"sg_offset skips all but the last byte", pages(0, 3),
		 3 * PAGE_SIZE - 1, 0, 2},
		{"sg_offset past the list", pages(0, 3), 3 * PAGE_SIZE, 0,
		 -EINVAL},
		{"an empty entry", {{0, 0, PAGE_SIZE}, {1, 0, 0},
		 {2, 0, PAGE_SIZE}}, 0, 0, -EINVAL},
		{"three runs, two MRs: never servable", {{0, 0, 100},
		 {2, 0, 100}, {4, 0, 100}}, 0, 0, -E2BIG},
		{"the peer's range of 8 pages wraps", pages(0, 8), 0, U64_MAX,
		 -EOVERFLOW},
	};
	unsigned int seed = 40;
	u32 built_ios = 0, sinks = 0;

	for (const List &l : lists) {
		struct Built {
			int ret;
			std::vector<ib_wr_opcode> chain;
			u64 length;
			u32 npages, nr_runs, nr_mrs;
		} built[2];
		u64 length = 0;

		for (const Piece &p : l.pieces)
			length += p.length;
		for (int forced = 0; forced < 2; forced++) {
			SCOPED_TRACE(::testing::Message()
				     << l.what << (forced ? ", forced" : ""));
			ASSERT_EQ(rdma_io_pool_force_backend(pool_, forced ?
							     "iwarp" : nullptr), 0);
			Prepare(true, seed++);
			Sg sg;
			for (const Piece &p : l.pieces)
				sg.add(arena_, p.page, p.offset, p.length);
			long maps = sim::counters().dma_maps_live;
			u32 free = rdma_io_pool_drain(pool_);
			u64 remote = l.remote == U64_MAX ? U64_MAX - 100 :
							   remote_.addr(0);
			rdma_io_ctx ctx;
			Built &b = built[forced];

			b.ret = rdma_io_ctx_init(&ctx, pool_, sg.get(),
						 u32(l.pieces.size()),
						 l.sg_offset, remote, rkey(),
						 DMA_FROM_DEVICE);
			ASSERT_EQ(b.ret, l.ret);
			if (b.ret < 0) {
				EXPECT_EQ(sim::counters().dma_maps_live, maps);
				EXPECT_EQ(rdma_io_pool_drain(pool_), free);
				continue;
			}
			built_ios++;
			sinks += ctx.nr_mrs;
			const ib_send_wr *w = ctx.first;
			for (u32 n = 0; n < ctx.nr_wrs; n++, w = w->next)
				b.chain.push_back(w->opcode);
			EXPECT_EQ(w, nullptr);
			b.length = ctx.length;
			b.npages = ctx.npages;
			b.nr_runs = ctx.nr_runs;
			b.nr_mrs = ctx.nr_mrs;
			EXPECT_EQ(ctx.length, length - l.sg_offset);
			EXPECT_STREQ(rdma_io_ctx_backend(&ctx), "iwarp");
			ASSERT_EQ(RunIo(&ctx), IB_WC_SUCCESS);
			EXPECT_TRUE(Landed(sg, true, l.sg_offset));
			rdma_io_ctx_destroy(&ctx, &ok);
			EXPECT_EQ(sim::counters().dma_maps_live, maps);
			EXPECT_EQ(rdma_io_pool_drain(pool_), free);
		}
		EXPECT_EQ(built[0].chain, built[1].chain);
		EXPECT_EQ(built[0].length, built[1].length);
		EXPECT_EQ(built[0].npages, built[1].npages);
		EXPECT_EQ(built[0].nr_runs, built[1].nr_runs);
		EXPECT_EQ(built[0].nr_mrs, built[1].nr_mrs);
	}

	// A dry pool: -EAGAIN, counted, nothing held, on both paths.
	for (int forced = 0; forced < 2; forced++) {
		SCOPED_TRACE(forced ? "dry pool, forced" : "dry pool");
		ASSERT_EQ(rdma_io_pool_force_backend(pool_, forced ? "iwarp" :
							     nullptr), 0);
		rdma_io_ctx a, b, c;
		Sg sa, sb, sc;
		sa.add(arena_, 0, 0, PAGE_SIZE);
		sb.add(arena_, 2, 0, PAGE_SIZE);
		sc.add(arena_, 4, 0, PAGE_SIZE);
		ASSERT_EQ(rdma_io_ctx_init(&a, pool_, sa.get(), 1, 0,
					   remote_.addr(0), rkey(),
					   DMA_FROM_DEVICE), 2);
		ASSERT_EQ(rdma_io_ctx_init(&b, pool_, sb.get(), 1, 0,
					   remote_.addr(0), rkey(),
					   DMA_FROM_DEVICE), 2);
		long maps = sim::counters().dma_maps_live;
		std::string dry = DeviceFile("local", "counters")["err_pool_dry"];
		EXPECT_EQ(rdma_io_ctx_init(&c, pool_, sc.get(), 1, 0,
					   remote_.addr(0), rkey(),
					   DMA_FROM_DEVICE), -EAGAIN);
		EXPECT_EQ(sim::counters().dma_maps_live, maps);
		EXPECT_EQ(std::stoul(DeviceFile("local", "counters")["err_pool_dry"]),
			  std::stoul(dry) + 1);
		rdma_io_ctx_destroy(&a, nullptr);
		rdma_io_ctx_destroy(&b, nullptr);
	}

	// Every built I/O was counted as the cost model's choice or forced:
	// those of the lists and the dry pool's two on each path.
	auto n = DeviceFile("local", "counters");
	EXPECT_EQ(n["read_iwarp"], std::to_string(built_ios + 4));
	// Each sink's key is killed by its READ_WITH_INV, a WR of the core's,
	// counted once when built; the peer killed none.
	EXPECT_EQ(n["invalidate_local"], std::to_string(sinks + 4));
	EXPECT_EQ(n["invalidate_remote"], "0");
	auto why = DeviceFile("local", "backends");
	EXPECT_EQ(why["read"], "iwarp forced");
}

} // namespace
} // namespace mirror
