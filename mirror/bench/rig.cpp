// SPDX-License-Identifier: GPL-2.0-only
//
// The benchmark rows and the rig that runs one of them.
#include "rig.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <rdma/mrcore_backend.h>

namespace bench {
namespace {

// Each backend on the device profile that uses it.  iwarp only READs (its
// point is the READ sink); an iWARP device WRITEs through frwr, so that row
// is here too.
struct Lane {
	const char *backend;
	const sim::Profile *profile;
	bool read, write;
};

constexpr Lane kLanes[] = {
	{"frwr", &sim::kRoce, true, true},
	{"iwarp", &sim::kIwarp, true, false},
	{"frwr", &sim::kIwarp, false, true},
	{"fmr", &sim::kFmr, true, true},
	{"multiread", &sim::kRoce, true, true},
};

// Pages the largest I/O of the rows spans: the pool's max_pages.
u32 max_pages_of_rows()
{
	u32 most = 1;

	for (const mrcore_shape_desc &s : shapes()) {
		u32 pages = 0;

		for (unsigned int i = 0; i < s.nents; i++)
			pages += DIV_ROUND_UP((i ? 0 : s.offset) + s.length,
					      PAGE_SIZE);
		most = std::max(most, pages);
	}
	return most;
}

} // namespace

std::string Row::name() const
{
	return row_name(backend, *profile, read, shape);
}

const std::vector<Row> &rows()
{
	static const std::vector<Row> all = [] {
		std::vector<Row> v;

		for (const Lane &l : kLanes)
			for (bool read : {true, false}) {
				if (read ? !l.read : !l.write)
					continue;
				for (const mrcore_shape_desc &s : shapes())
					v.push_back({l.backend, l.profile, s, read});
			}
		return v;
	}();
	return all;
}

const Row *find_row(const std::string &name)
{
	for (const Row &r : rows())
		if (r.name() == name)
			return &r;
	return nullptr;
}

Rig::Rig(const Row &row)
	: row_(row), dir_(row.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE)
{
	sim::set_dma_page_tracking(false);
	sim::set_alloc_poison(false);

	try {
		module_.emplace();
		pair_.emplace(*row.profile);
		if (row.profile->fmr_max_pages) {
			if (rdma_fmr_register(pair_->local.hca->dev(),
					      &sim::kFmrOps,
					      row.profile->fmr_max_pages))
				throw std::runtime_error("FMR registration failed");
			fmr_registered_ = true;
		}
		bufs_.emplace(pair_->peer, row.shape);
		remote_addr_ = bufs_->remote_addr();
		rkey_ = bufs_->rkey();

		pool_ = make_pool(pair_->local.qp, 1, kQueueDepth,
				  max_pages_of_rows());
		if (rdma_io_pool_force_backend(pool_.get(), row.backend))
			throw std::runtime_error("cannot force the backend");
		wc_ok_.wr_cqe = &cqe_;
		wc_ok_.status = IB_WC_SUCCESS;

		check_one_io();
		Tally warm;
		for (u32 i = 0; i < rdma_io_pool_size(pool_.get()); i++)
			if (io(&warm))
				throw std::runtime_error("warm-up I/O failed");
	} catch (...) {
		teardown();
		throw;
	}
}

Rig::~Rig()
{
	teardown();
}

void Rig::teardown()
{
	pool_.reset();
	bufs_.reset();
	if (fmr_registered_)
		rdma_fmr_unregister(pair_->local.hca->dev());
	fmr_registered_ = false;
	module_.reset();
	pair_.reset();
}

// One I/O of the row posted on the simulated HCA, its data checked.
void Rig::check_one_io()
{
	const size_t len = row_.bytes();
	std::vector<u8> want(len), got(len);

	for (size_t i = 0; i < bufs_->arena_bytes; i++)
		bufs_->arena[i] = u8(i * 7 + 1);
	for (size_t i = 0; i < len; i++)
		bufs_->remote[i] = u8(i * 13 + 5);
	bufs_->copy_source(row_.read, want);

	rdma_io_ctx ctx;
	int wrs = rdma_io_ctx_init(&ctx, pool_.get(), bufs_->sg.data(),
				   u32(bufs_->sg.size()), 0, remote_addr_,
				   rkey_, dir_);
	if (wrs < 0)
		throw std::runtime_error("rdma_io_ctx_init: " + std::to_string(wrs));
	if (std::string chosen = rdma_io_ctx_backend(&ctx); chosen != row_.backend) {
		rdma_io_ctx_destroy(&ctx, nullptr);
		throw std::runtime_error("backend " + chosen + " moved the I/O");
	}
	auto &cq = sim::completions(pair_->local.qp);
	size_t before = cq.size();
	int ret = rdma_io_ctx_post(&ctx, &cqe_, nullptr);
	sim::drain();
	bool ok = !ret && cq.size() == before + 1 && cq.back().cqe == &cqe_ &&
		  cq.back().status == IB_WC_SUCCESS;
	ib_wc wc = wc_ok_;

	rdma_io_ctx_destroy(&ctx, ok ? &wc : nullptr);
	if (!ok)
		throw std::runtime_error("the checked I/O did not complete");
	bufs_->copy_sink(row_.read, got);
	if (got != want)
		throw std::runtime_error("the checked I/O moved the wrong data");
}

} // namespace bench
