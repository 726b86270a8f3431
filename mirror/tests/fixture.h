// SPDX-License-Identifier: GPL-2.0-only
//
// Shared test fixture: the module loaded, two connected nodes on simulated
// HCAs of one profile, page-aligned buffers, and the leak check at teardown.
#ifndef MRCORE_MIRROR_FIXTURE_H
#define MRCORE_MIRROR_FIXTURE_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "hca.h"

namespace mirror {

// Page-aligned memory with a recognisable pattern.
class Buffer {
public:
	explicit Buffer(size_t pages) : size_(pages * PAGE_SIZE)
	{
		p_ = static_cast<u8 *>(std::aligned_alloc(PAGE_SIZE, size_));
		fill(0);
	}
	~Buffer() { std::free(p_); }
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;

	u8 *at(size_t off) { return p_ + off; }
	u64 addr(size_t off) const { return reinterpret_cast<uintptr_t>(p_ + off); }
	size_t size() const { return size_; }
	void fill(unsigned int seed, size_t len = ~size_t(0))
	{
		for (size_t i = 0; i < std::min(len, size_); i++)
			p_[i] = static_cast<u8>(i * 7 + seed * 13 + 1);
	}
	void zero() { std::memset(p_, 0, size_); }

private:
	size_t size_;
	u8 *p_;
};

// A scatterlist over (page, offset, length) pieces of a buffer.
class Sg {
public:
	Sg() = default;
	void add(void *p, unsigned int len)
	{
		scatterlist s{};

		s.buf = p;
		s.length = len;
		if (!v_.empty())
			v_.back().end = false;
		s.end = true;
		v_.push_back(s);
	}
	void add(Buffer &b, size_t page, unsigned int off, unsigned int len)
	{
		add(b.at(page * PAGE_SIZE + off), len);
	}
	scatterlist *get() { return v_.empty() ? nullptr : v_.data(); }
	unsigned int n() const { return static_cast<unsigned int>(v_.size()); }

private:
	std::vector<scatterlist> v_;
};

struct Node {
	std::unique_ptr<sim::Hca> hca;
	ib_pd *pd;
	ib_qp *qp;
};

// The module loaded, two nodes of one profile with a connected QP pair,
// and at teardown: nothing allocated, mapped, referenced or warned about.
class MirrorTest : public ::testing::Test {
protected:
	void SetUpNodes(const sim::Profile &profile)
	{
		ASSERT_EQ(mirror_module_init(), 0);
		module_loaded_ = true;
		for (Node *n : {&local_, &peer_}) {
			n->hca = std::make_unique<sim::Hca>(profile,
							   n == &local_ ? "local" : "peer");
			n->pd = n->hca->alloc_pd();
			n->qp = n->hca->create_qp(n->pd);
		}
		sim::connect(local_.qp, peer_.qp);
	}

	void TearDown() override
	{
		// A test that posts lets the devices run what it posted.
		EXPECT_EQ(sim::drain(), 0u) << "WRs left queued at teardown";
		if (module_loaded_)
			mirror_module_exit();
		const sim::Counters &c = sim::counters();
		EXPECT_EQ(c.kmalloc_live, 0) << "kernel memory leaked";
		EXPECT_EQ(c.mrs_live, 0) << "device MR leaked";
		EXPECT_EQ(c.dma_maps_live, 0) << "DMA mapping leaked";
		EXPECT_EQ(c.module_refs, 0) << "module reference leaked";
		EXPECT_EQ(c.dma_api_errors, 0) << "DMA-API misuse";
		EXPECT_EQ(c.warnings, expected_warnings_) << "unexpected WARN";
		sim::counters() = sim::Counters{};
	}

	// Post a chain on a QP, expect the post to be accepted, and let the
	// devices run it.
	void Post(ib_qp *qp, ib_send_wr *wr)
	{
		ASSERT_EQ(sim::post(qp, wr), 0);
		sim::drain();
	}

	// The peer READs [addr, addr + len) of the local node's memory into
	// its own buffer, or WRITEs its buffer there, and the devices run;
	// returns the completion status.  Its buffer is its PD's DMA lkey,
	// or for a READ on a device that follows the iWARP rule, a sink MR
	// with REMOTE_WRITE.
	ib_wc_status PeerRdma(ib_wr_opcode op, u64 remote_addr, u32 rkey,
			      void *peer_mem, u32 len)
	{
		const sim::Profile &p = peer_.hca->profile();
		sim::Mr *sink = nullptr;

		if (op == IB_WR_RDMA_READ && p.iwarp && !p.dma_lkey_read_sink)
			sink = peer_.hca->expose(peer_.pd, peer_mem, len,
						 IB_ACCESS_LOCAL_WRITE |
						 IB_ACCESS_REMOTE_WRITE);
		ib_wc_status st = PeerRdmaWith(op, remote_addr, rkey, peer_mem,
					       len, sink ? sink->ibmr.lkey :
					       peer_.pd->local_dma_lkey);
		if (sink)
			peer_.hca->dereg_mr(sink);
		return st;
	}

	ib_wc_status PeerRdmaWith(ib_wr_opcode op, u64 remote_addr, u32 rkey,
				  void *peer_mem, u32 len, u32 lkey)
	{
		ib_sge sge = {reinterpret_cast<uintptr_t>(peer_mem), len, lkey};
		ib_rdma_wr wr{};
		ib_cqe cqe{};

		wr.wr.opcode = op;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.wr.wr_cqe = &cqe;
		wr.remote_addr = remote_addr;
		wr.rkey = rkey;
		auto &cq = sim::completions(peer_.qp);
		size_t before = cq.size();
		if (sim::post(peer_.qp, &wr.wr))
			return IB_WC_LOC_QP_OP_ERR;
		sim::drain();
		if (cq.size() != before + 1)
			return IB_WC_GENERAL_ERR_FOR_TESTS;
		return cq.back().status;
	}

	// Reconnect the pair after an error, as a ULP would with a new QP;
	// whatever the old QPs still had queued runs (or is flushed) first.
	void Reconnect()
	{
		sim::drain();
		local_.qp = local_.hca->create_qp(local_.pd);
		peer_.qp = peer_.hca->create_qp(peer_.pd);
		sim::connect(local_.qp, peer_.qp);
	}

	static constexpr ib_wc_status IB_WC_GENERAL_ERR_FOR_TESTS =
		static_cast<ib_wc_status>(99);

	Node local_, peer_;
	long expected_warnings_ = 0;
	bool module_loaded_ = false;
};

} // namespace mirror

#endif // MRCORE_MIRROR_FIXTURE_H
