// SPDX-License-Identifier: GPL-2.0-only
//
// What the mirror's benchmarks measure: the rows (backend x device profile x
// SG shape x direction) and the rig one row runs on.
//
// One I/O of a row is the CPU path a ULP pays per RDMA READ or WRITE:
// rdma_io_ctx_init() (DMA map, plan: every backend prices the I/O, build:
// pool MRs, registrations, WR chain), rdma_io_ctx_wrs() (the completion
// linked on the last WR) and rdma_io_ctx_destroy() (MRs back to the pool,
// DMA unmap).  The chain is not posted: what the simulated HCA would do with
// it is device work, not the core's.
//
// Recycling the pool needs no completion from the HCA: rdma_io_ctx_destroy()
// given a successful work completion puts every MR back on the free list at
// once (its key is dead or local-only and killed lazily by its next
// registration), exactly as after a real completion.  So the loop passes the
// successful completion the HCA would have produced, and the pool, sized for
// kQueueDepth I/Os in flight as a ULP sizes it, cycles through its MRs the
// way it does in steady state (FRWR: LOCAL_INV of the last key chained
// before each REG_MR; fmr: one batched unmap per 32 recycled MRs).
//
// Before any measurement the rig runs one I/O of the row through the
// simulated HCA and checks its data byte for byte, so the path measured is
// one that moves the right bytes, then one unposted I/O per pool MR so every
// MR is in its steady state.
#ifndef MRCORE_MIRROR_BENCH_RIG_H
#define MRCORE_MIRROR_BENCH_RIG_H

#include <optional>
#include <string>
#include <vector>

#include "common.h"

namespace bench {

struct Row {
	const char *backend;	// forced with rdma_io_pool_force_backend()
	const sim::Profile *profile;
	mrcore_shape_desc shape;
	bool read;

	std::string name() const;
	u64 bytes() const { return u64(shape.nents) * shape.length; }
};

// Every row, in the order the reports list them.
const std::vector<Row> &rows();
const Row *find_row(const std::string &name);

// WRs and MRs of the I/Os run so far.
struct Tally {
	u64 ios = 0;
	u64 wrs = 0;
	u64 mrs = 0;
};

class Rig {
public:
	// Throws std::runtime_error if the row cannot be set up or its
	// checked I/O does not move the right data.
	explicit Rig(const Row &row);
	~Rig();
	Rig(const Rig &) = delete;
	Rig &operator=(const Rig &) = delete;

	// One I/O: init, chain, destroy.  Returns 0 or the negative errno of
	// rdma_io_ctx_init().  Inline: it is the timed loop's body.
	int io(Tally *t)
	{
		rdma_io_ctx ctx;
		int wrs = rdma_io_ctx_init(&ctx, pool_.get(), bufs_->sg.data(),
					   u32(bufs_->sg.size()), 0,
					   remote_addr_, rkey_, dir_);

		if (wrs < 0)
			return wrs;
		rdma_io_ctx_wrs(&ctx, &cqe_, nullptr);
		t->ios++;
		t->wrs += u32(wrs);
		t->mrs += ctx.nr_mrs;
		rdma_io_ctx_destroy(&ctx, &wc_ok_);
		return 0;
	}

private:
	void check_one_io();
	void teardown();

	// Set up in this order, torn down by teardown(): the module before
	// the HCAs, the FMR callbacks between the HCAs and the memory.
	const Row &row_;
	const dma_data_direction dir_;
	std::optional<ModuleLoad> module_;
	std::optional<Pair> pair_;
	bool fmr_registered_ = false;
	std::optional<Buffers> bufs_;
	Pool pool_;
	u64 remote_addr_ = 0;
	u32 rkey_ = 0;
	ib_cqe cqe_{};
	ib_wc wc_ok_{};
};

} // namespace bench

#endif // MRCORE_MIRROR_BENCH_RIG_H
