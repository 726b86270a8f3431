// SPDX-License-Identifier: GPL-2.0-only
//
// MR life cycle, the WR chains the core builds, and the backend registry.
#include "fixture.h"

namespace mirror {
namespace {

class LifecycleTest : public MirrorTest {
protected:
	void SetUp() override { SetUpNodes(sim::kRoce); }
};

TEST_F(LifecycleTest, CreateRefusesBadArguments)
{
	EXPECT_EQ(PTR_ERR(rdma_create_mr(nullptr, 4, RDMA_MR_ROLE_LKEY)), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_create_mr(local_.pd, 0, RDMA_MR_ROLE_LKEY)),
		  -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_create_mr(local_.pd, 4,
					 static_cast<rdma_mr_role>(3))), -EINVAL);
	EXPECT_EQ(PTR_ERR(rdma_create_mr(local_.pd, 513, RDMA_MR_ROLE_RKEY)),
		  -E2BIG);
	rdma_mr *mr = rdma_create_mr(local_.pd, 512, RDMA_MR_ROLE_RKEY);
	ASSERT_FALSE(IS_ERR(mr));
	EXPECT_EQ(rdma_mr_max_pages(mr), 512u);
	EXPECT_EQ(sim::counters().module_refs, 1);
	rdma_destroy_mr(mr);
	rdma_destroy_mr(nullptr);
}

TEST_F(LifecycleTest, DeviceWithoutFastRegistrationHasNoBackend)
{
	sim::Hca plain(sim::kNoFastReg, "plain");
	ib_pd *pd = plain.alloc_pd();
	EXPECT_EQ(PTR_ERR(rdma_create_mr(pd, 4, RDMA_MR_ROLE_LKEY)), -EOPNOTSUPP);
}

TEST_F(LifecycleTest, RegistrationIsChainedBeforeTheCallersWrAndUnsignaled)
{
	Buffer buf(1);
	Sg sg;
	sg.add(buf, 0, 0, 512);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ib_send_wr send{};
	send.opcode = IB_WR_SEND;
	ib_send_wr *chain = &send;
	u32 rkey;
	u64 iova;
	ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), 0);
	ASSERT_EQ(chain->opcode, IB_WR_REG_MR);
	EXPECT_EQ(chain->next, &send);
	EXPECT_EQ(chain->send_flags & IB_SEND_SIGNALED, 0);
	auto *reg = reinterpret_cast<ib_reg_wr *>(chain);
	EXPECT_EQ(reg->key, rkey);
	EXPECT_EQ(reg->access, IB_ACCESS_REMOTE_READ);
	chain->next = nullptr;
	Post(local_.qp, chain);
	EXPECT_TRUE(sim::completions(local_.qp).empty());

	// Asked for, both the invalidation and the next registration signal.
	ib_cqe cqe{};
	rdma_mr_set_cqe(mr, &cqe);
	chain = nullptr;
	ASSERT_EQ(rdma_invalidate_mr(mr, &chain), 0);
	EXPECT_EQ(chain->opcode, IB_WR_LOCAL_INV);
	EXPECT_EQ(chain->ex.invalidate_rkey, rkey);
	Post(local_.qp, chain);
	ASSERT_EQ(sim::completions(local_.qp).size(), 1u);
	EXPECT_EQ(sim::completions(local_.qp)[0].cqe, &cqe);
	EXPECT_EQ(sim::completions(local_.qp)[0].status, IB_WC_SUCCESS);
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	chain = nullptr;
	ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), 0);
	EXPECT_TRUE(chain->send_flags & IB_SEND_SIGNALED);
	EXPECT_EQ(chain->wr_cqe, &cqe);
	Post(local_.qp, chain);
	EXPECT_EQ(sim::completions(local_.qp).size(), 2u);
	chain = nullptr;
	ASSERT_EQ(rdma_invalidate_mr(mr, &chain), 0);
	Post(local_.qp, chain);
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
}

// A key in an unknown state (its invalidation never ran) dies with the
// device MR before the memory is released, and the MR maps again.
TEST_F(LifecycleTest, ResetKillsALiveKeyThenReleasesTheMemory)
{
	Buffer buf(1), peer(1);
	Sg sg;
	sg.add(buf, 0, 0, 512);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ASSERT_FALSE(IS_ERR(mr));
	ib_send_wr *chain = nullptr;
	u32 rkey, rkey2;
	u64 iova;
	ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), 0);
	Post(local_.qp, chain);
	peer.poison(1);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, peer.at(0), 512),
		  IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(buf.span(0, 512), peer.span(0, 512)));

	ASSERT_EQ(rdma_mr_reset(mr), 0);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);

	chain = nullptr;
	ASSERT_EQ(rdma_map_sg_rkey(&rkey2, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), 0);
	EXPECT_NE(rkey2, rkey);
	Post(local_.qp, chain);
	buf.fill(2);
	peer.poison(2);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey2, peer.at(0), 512),
		  IB_WC_SUCCESS);
	EXPECT_TRUE(Moved(buf.span(0, 512), peer.span(0, 512)));
	// Last, as the refusal breaks the peer's QP: the old key is dead.
	peer.poison(3);
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_READ, iova, rkey, peer.at(0), 512),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(peer)) << "the dead key still read";
	// Reset works on an unmapped MR too; a failed reallocation frees it.
	chain = nullptr;
	ASSERT_EQ(rdma_invalidate_mr(mr, &chain), 0);
	Post(local_.qp, chain);
	ASSERT_EQ(rdma_unmap_mr(mr), 0);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 1), 0);
	EXPECT_EQ(rdma_mr_reset(mr), -ENOMEM);
	ASSERT_EQ(rdma_mrcore_fault_arm("mr_alloc", 0, 0), 0);
	EXPECT_EQ(rdma_mr_reset(nullptr), -EINVAL);
}

TEST_F(LifecycleTest, StateMachineRefusesOutOfOrderCalls)
{
	Buffer buf(1);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ib_send_wr *chain = nullptr;
	u32 rkey;
	u64 iova;

	EXPECT_EQ(rdma_unmap_mr(mr), -EINVAL);
	EXPECT_EQ(rdma_invalidate_mr(mr, &chain), -EINVAL);
	EXPECT_EQ(rdma_mr_remote_invalidated(mr, 0), -EINVAL);
	EXPECT_EQ(rdma_invalidate_mr(nullptr, &chain), -EINVAL);
	EXPECT_EQ(rdma_unmap_mr(nullptr), -EINVAL);
	EXPECT_EQ(rdma_map_sg_rkey(nullptr, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), -EINVAL);
	EXPECT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, nullptr, 1,
				   RDMA_MR_REMOTE_READ, &chain), -EINVAL);
	EXPECT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, nullptr), -EINVAL);
	EXPECT_EQ(rdma_map_sg_rkey(&rkey, &iova, nullptr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), -EINVAL);
	EXPECT_EQ(sim::counters().dma_maps_live, 0);

	ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), 0);
	Post(local_.qp, chain);
	// Mapped: no second map, no unmap before the key is dead.
	Sg other;
	other.add(buf, 0, 0, 64);
	chain = nullptr;
	EXPECT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, other.get(), 1,
				   RDMA_MR_REMOTE_READ, &chain), -EBUSY);
	EXPECT_EQ(chain, nullptr);
	EXPECT_EQ(rdma_unmap_mr(mr), -EBUSY);
	EXPECT_EQ(sim::counters().dma_maps_live, 1);
	ASSERT_EQ(rdma_invalidate_mr(mr, &chain), 0);
	EXPECT_EQ(rdma_invalidate_mr(mr, &chain), -EINVAL);
	Post(local_.qp, chain);
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	EXPECT_EQ(rdma_unmap_mr(mr), -EINVAL);
	rdma_destroy_mr(mr);
}

TEST_F(LifecycleTest, DestroyingAMappedMrWarnsAndLeavesNothing)
{
	Buffer buf(1);
	Sg sg;
	sg.add(buf, 0, 0, PAGE_SIZE);
	rdma_mr *mr = rdma_create_mr(local_.pd, 1, RDMA_MR_ROLE_RKEY);
	ib_send_wr *chain = nullptr;
	u32 rkey;
	u64 iova;
	ASSERT_EQ(rdma_map_sg_rkey(&rkey, &iova, mr, sg.get(), 1,
				   RDMA_MR_REMOTE_WRITE, &chain), 0);
	Post(local_.qp, chain);
	// Control: while the key lives, the peer's WRITE through it lands.
	Buffer mem(1);
	buf.poison(1);
	mem.fill(2);
	ASSERT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova, rkey, mem.at(0), 8),
		  IB_WC_SUCCESS) << "control: a WRITE through the live rkey";
	EXPECT_TRUE(Moved(mem.span(0, 8), buf.span(0, 8)));
	buf.fill(3);
	mem.fill(4);
	rdma_destroy_mr(mr);
	expected_warnings_ = 1;
	// Deregistration killed the key with the MR: the same WRITE, on the
	// same QP, is refused.
	EXPECT_EQ(PeerRdma(IB_WR_RDMA_WRITE, iova, rkey, mem.at(0), 8),
		  IB_WC_REM_ACCESS_ERR);
	EXPECT_TRUE(Untouched(buf)) << "the dead key still wrote";
}

// ---- registry ---------------------------------------------------------------

struct FakeBackend {
	static bool Serves(ib_device *dev) { return true; }
	static u32 MaxPages(ib_device *dev) { return 8; }
	static int Init(rdma_mr *mr) { inits++; return init_result; }
	static void Release(rdma_mr *mr) { releases++; }
	static int Map(rdma_mr *mr, ib_send_wr **post_wr)
	{
		mr->key = 0x4242;
		mr->iova = sg_dma_address(mr->sg);
		return 0;
	}
	static int Invalidate(rdma_mr *mr, ib_send_wr **post_wr) { return 0; }
	static inline int inits, releases, init_result;
};

rdma_mr_backend_ops MakeFake(const char *name)
{
	rdma_mr_backend_ops ops{};
	ops.name = name;
	ops.owner = THIS_MODULE;
	ops.serves = FakeBackend::Serves;
	ops.max_pages = FakeBackend::MaxPages;
	ops.mr_init = FakeBackend::Init;
	ops.mr_release = FakeBackend::Release;
	ops.map = FakeBackend::Map;
	ops.invalidate = FakeBackend::Invalidate;
	return ops;
}

TEST_F(LifecycleTest, RegistryRefusesIncompleteAndDuplicateBackends)
{
	rdma_mr_backend_ops ops = MakeFake("vendor");
	ops.invalidate = nullptr;
	EXPECT_EQ(rdma_mr_backend_register(&ops), -EINVAL);
	EXPECT_EQ(rdma_mr_backend_register(nullptr), -EINVAL);
	rdma_mr_backend_ops dup = MakeFake("frwr");
	EXPECT_EQ(rdma_mr_backend_register(&dup), -EEXIST);

	// What a backend declares of its I/O: known bits, one strategy the
	// core builds, never beside callbacks of its own.
	rdma_mr_backend_ops io = MakeFake("vendor-io");
	io.io_flags = 0x80;
	EXPECT_EQ(rdma_mr_backend_register(&io), -EINVAL);
	io.io_flags = RDMA_IO_SGES | RDMA_IO_IWARP_READ;
	EXPECT_EQ(rdma_mr_backend_register(&io), -EINVAL);
	rdma_mr_backend_ops own{};
	own.name = "vendor-own";
	own.owner = THIS_MODULE;
	own.serves = FakeBackend::Serves;
	own.io_flags = RDMA_IO_SGES;
	own.io_plan = [](const rdma_io_ctx *, rdma_io_plan *) { return -EOPNOTSUPP; };
	own.io_build = [](rdma_io_ctx *) { return -EOPNOTSUPP; };
	EXPECT_EQ(rdma_mr_backend_register(&own), -EINVAL);
	// io_weights belongs to an MR backend.
	rdma_mr_backend_ops weights{};
	weights.name = "vendor-w";
	weights.owner = THIS_MODULE;
	weights.serves = FakeBackend::Serves;
	weights.io_flags = RDMA_IO_SGES;
	weights.io_weights = [](ib_device *, rdma_io_weights *) {};
	EXPECT_EQ(rdma_mr_backend_register(&weights), -EINVAL);
}

TEST_F(LifecycleTest, NewestBackendServesAndSynchronousMapsChainNothing)
{
	rdma_mr_backend_ops ops = MakeFake("vendor");
	FakeBackend::inits = FakeBackend::releases = 0;
	FakeBackend::init_result = 0;
	ASSERT_EQ(rdma_mr_backend_register(&ops), 0);

	Buffer buf(1);
	Sg sg;
	sg.add(buf, 0, 8, 100);
	rdma_mr *mr = rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	EXPECT_EQ(mr->ops, &ops);
	EXPECT_EQ(FakeBackend::inits, 1);
	ib_send_wr mine{};
	ib_send_wr *chain = &mine;
	u32 lkey;
	ASSERT_EQ(rdma_map_sg_lkey(&lkey, mr, sg.get(), 1, RDMA_MR_LOCAL_SEND_SRC,
				   &chain), 0);
	EXPECT_EQ(lkey, 0x4242u);
	EXPECT_EQ(chain, &mine);
	EXPECT_EQ(rdma_unmap_mr(mr), 0);
	rdma_destroy_mr(mr);
	EXPECT_EQ(FakeBackend::releases, 1);

	// A failing mr_init leaves nothing behind.
	FakeBackend::init_result = -ENOSPC;
	EXPECT_EQ(PTR_ERR(rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_LKEY)),
		  -ENOSPC);
	EXPECT_EQ(sim::counters().module_refs, 0);

	rdma_mr_backend_unregister(&ops);
	mr = rdma_create_mr(local_.pd, 8, RDMA_MR_ROLE_LKEY);
	ASSERT_FALSE(IS_ERR(mr));
	EXPECT_EQ(mr->ops, &mrcore_frwr_ops);
	rdma_destroy_mr(mr);
}

} // namespace
} // namespace mirror
