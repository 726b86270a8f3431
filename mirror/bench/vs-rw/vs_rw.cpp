// SPDX-License-Identifier: GPL-2.0-only
//
// make bench-vs-rw: rdma-mrcore's READ/WRITE helper against ib_core's RDMA
// R/W API (rw.c and mr_pool.c of the kernel's source, built beside the
// mirror), on the same simulated HCA profiles, SG lists and peer.
//
//   vs_rw_count --list      the rows' names, IMPL@PROFILE/DIR/SHAPE
//   vs_rw_count ROW N       set up ROW, run N measured I/Os, tear down
//
// For counting instructions under callgrind, as mirror_io_count does:
// instructions per I/O are (Ir(N2) - Ir(N1)) / (N2 - N1) over two runs, and
// N2 - N1 should be a multiple of 32 (the pools' size) times 256 (the keys
// an mrcore MR hands out before its device MR is replaced), so that every
// replacement is counted as often as it happens.
//
// Set-up, before anything is measured:
//   - each implementation gets the QP it would get in the kernel: mrcore a
//     pool for kQueueDepth I/Os of up to 256 pages, backend chosen by its
//     cost model (nothing forced); rdma_rw the QP MR pool
//     rdma_rw_init_mrs() makes for max_rdma_ctxs = kQueueDepth *
//     rdma_rw_mr_factor(256 pages).
//   - kWarmIos I/Os are posted on the simulated HCA, drained, their
//     completion checked and their data compared byte for byte (fresh
//     patterns each time), so every pool MR has been through at least one
//     posted I/O and the chain recorded is the steady-state one.  rdma_rw's
//     READ_WITH_INV carries the key before the one its REG_MR registers
//     (glue.h): on these posted I/Os, and only there, the invalidate key is
//     set to the registered one after rdma_rw_ctx_wrs(); one more I/O is
//     then posted as built, and its completion status reported.
// Measured: N I/Os of init + post + destroy, each side posting with its
// own call (rdma_io_ctx_post(), rdma_rw_ctx_post()) on a QP whose device
// takes the WRs and runs none (sim::set_post_sink(): what the HCA does
// with a chain is device work, the same for the same chain), destroy
// given the successful completion the HCA would have produced.
//
// The measured loop keeps the same tally on both sides (I/Os, and WRs from
// init's return value); what an I/O takes from its pool is read outside it,
// from the checked I/Os.
//
// Prints "ROW ios=N wrs=W chain_mrs=M verified=0|1 fixups=F strict=STATUS
// backend=B chain_wrs=CW chain_regs=CR chain_first=CHAIN chain=CHAIN":
// ios and wrs are totals of the N measured I/Os; the rest describes the
// checked I/Os (chain: the last one's, CW WRs of which CR REG_MRs, its I/O
// taking M MRs).
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.h"
#include "glue.h"

namespace {

using bench::kQueueDepth;
constexpr u32 kMaxPages = 256;
constexpr u32 kPort = 1;
// Posted and checked before measuring: every pool MR once, and then some.
constexpr u32 kWarmIos = kQueueDepth + 4;

enum class Impl { kMrcore, kRdmaRw };

const char *impl_name(Impl i)
{
	return i == Impl::kMrcore ? "mrcore" : "rdma_rw";
}

struct Row {
	Impl impl;
	const sim::Profile *profile;
	mrcore_shape_desc shape;
	bool read;

	std::string name() const
	{
		return bench::row_name(impl_name(impl), *profile, read, shape);
	}
	u64 bytes() const { return u64(shape.nents) * shape.length; }
};

const std::vector<Row> &rows()
{
	static const std::vector<Row> all = [] {
		std::vector<Row> v;

		for (const sim::Profile *p : {&sim::kRoce, &sim::kIwarp})
			for (bool read : {true, false})
				for (const mrcore_shape_desc &s : bench::shapes())
					for (Impl i : {Impl::kMrcore, Impl::kRdmaRw})
						v.push_back({i, p, s, read});
		return v;
	}();
	return all;
}

const char *opcode_name(ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
		return "WRITE";
	case IB_WR_RDMA_READ:
		return "READ";
	case IB_WR_RDMA_READ_WITH_INV:
		return "READ_WITH_INV";
	case IB_WR_LOCAL_INV:
		return "LOCAL_INV";
	case IB_WR_REG_MR:
		return "REG_MR";
	default:
		return "OTHER";
	}
}

const char *status_name(ib_wc_status st)
{
	static const char *const names[] = {
		"SUCCESS",	 "LOC_LEN_ERR",	 "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
		"LOC_PROT_ERR",	 "WR_FLUSH_ERR", "MW_BIND_ERR",	  "BAD_RESP_ERR",
		"LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
		"REM_OP_ERR",
	};
	unsigned int i = st;

	return i < sizeof(names) / sizeof(names[0]) ? names[i] : "UNKNOWN";
}

// WRs of a chain, and REG_MRs among them.
void count_chain(const ib_send_wr *first, u32 *wrs, u32 *regs)
{
	*wrs = *regs = 0;
	for (const ib_send_wr *wr = first; wr; wr = wr->next) {
		++*wrs;
		*regs += wr->opcode == IB_WR_REG_MR;
	}
}

// "LOCAL_INV+REG_MR+READ", "READ[8]" (8 SGEs), "8xREAD[32]",
// "5xWRITE[6]+WRITE[2]", "2x(REG_MR+READ_WITH_INV)": the WRs in posting
// order, an RDMA WR's SGE count when it is not 1, runs of one WR and a
// chain that repeats a group written once with their count.
std::string describe_chain(const ib_send_wr *first)
{
	std::vector<std::string> ops;

	for (const ib_send_wr *wr = first; wr; wr = wr->next) {
		std::string op = opcode_name(wr->opcode);
		bool rdma = wr->opcode == IB_WR_RDMA_WRITE ||
			    wr->opcode == IB_WR_RDMA_READ ||
			    wr->opcode == IB_WR_RDMA_READ_WITH_INV;

		if (rdma && wr->num_sge != 1)
			op += "[" + std::to_string(wr->num_sge) + "]";
		ops.push_back(op);
	}
	if (ops.empty())
		return "none";
	size_t n = ops.size(), period = n;
	for (size_t p = 1; p < n; p++) {
		if (n % p)
			continue;
		bool repeats = true;
		for (size_t i = p; i < n && repeats; i++)
			repeats = ops[i] == ops[i - p];
		if (repeats) {
			period = p;
			break;
		}
	}
	std::string group;
	for (size_t i = 0, run; i < period; i += run) {
		for (run = 1; i + run < period && ops[i + run] == ops[i]; run++)
			;
		group += (i ? "+" : "") +
			 (run > 1 ? std::to_string(run) + "x" : "") + ops[i];
	}
	if (period == n)
		return group;
	if (period == 1)
		return std::to_string(n) + "x" + group;
	return std::to_string(n / period) + "x(" + group + ")";
}

// A cheap pattern, different for every seed: 8 bytes at a time.
void fill(u8 *p, size_t len, u64 seed)
{
	u64 v = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i = 0;

	for (; i + 8 <= len; i += 8, v += 0x9e3779b97f4a7c15ull)
		std::memcpy(p + i, &v, 8);
	for (; i < len; i++)
		p[i] = u8(v >> (8 * (i & 7)));
}

class Rig {
public:
	explicit Rig(const Row &row);
	~Rig() { teardown(); }
	Rig(const Rig &) = delete;
	Rig &operator=(const Rig &) = delete;

	// The measured loop.
	int run(unsigned long n, vsrw_tally *t)
	{
		int (*io)(const vsrw_io *, vsrw_tally *) =
			row_.impl == Impl::kMrcore ? vsrw_mrcore_io : vsrw_rw_io;

		for (unsigned long i = 0; i < n; i++)
			if (int ret = io(&io_, t))
				return ret;
		return 0;
	}

	bool verified = false;
	u32 fixups = 0;		// READ_WITH_INV keys set by the harness
	std::string strict = "SUCCESS";	// status of a chain posted as built
	std::string chain_first, chain;	// first and steady-state chains
	u32 chain_wrs = 0, chain_regs = 0;	// WRs and REG_MRs of chain
	u32 chain_mrs = 0;			// MRs chain's I/O took
	std::string backend;

private:
	// What posted_io() found: the first bad status ("SUCCESS" if none),
	// and whether the bytes landed right.
	struct Checked {
		std::string status;
		bool data_ok;
	};
	// One I/O's chain, as posted by post_mrcore() or post_rw().
	struct Posted {
		int ret = 0;			// of ib_post_send()
		rdma_io_ctx ctx{};		// mrcore's
		vsrw_rw_ctx *rw = nullptr;	// rdma_rw's
		std::string chain;
		u32 wrs = 0, regs = 0;		// WRs and REG_MRs of chain
		u32 mrs = 0;			// MRs taken from the pool
	};

	// Post one I/O, drain, check.  fix: set READ_WITH_INV keys.
	Checked posted_io(u64 seed, bool fix);
	void post_mrcore(Posted &p);
	void post_rw(Posted &p, bool fix);
	std::string status_since(size_t before, int ret);
	void teardown();

	// Set up in this order, torn down by teardown(): the module (mrcore
	// only) before the HCAs, ib_core's MRs of the QP (rdma_rw only) after
	// the memory.
	const Row &row_;
	std::optional<bench::ModuleLoad> module_;
	std::optional<bench::Pair> pair_;
	std::optional<bench::Buffers> bufs_;
	bench::Pool pool_;
	bool rw_qp_ = false;
	ib_cqe cqe_{};
	ib_wc wc_ok_{};
	vsrw_io io_{};
};

Rig::Rig(const Row &row) : row_(row)
{
	sim::set_dma_page_tracking(false);
	sim::set_alloc_poison(false);

	try {
		if (row.impl == Impl::kMrcore)
			module_.emplace();
		pair_.emplace(*row.profile);
		bufs_.emplace(pair_->peer, row.shape);

		if (row.impl == Impl::kMrcore) {
			pool_ = bench::make_pool(pair_->local.qp, kPort,
						 kQueueDepth, kMaxPages);
		} else {
			if (int ret = vsrw_rw_qp_init(pair_->local.qp, kPort,
						      kQueueDepth, kMaxPages))
				throw std::runtime_error("rdma_rw_init_mrs: " +
							 std::to_string(ret));
			rw_qp_ = true;
		}
		wc_ok_.wr_cqe = &cqe_;
		wc_ok_.status = IB_WC_SUCCESS;
		io_ = {pair_->local.qp, kPort, pool_.get(), bufs_->sg.data(),
		       u32(bufs_->sg.size()), bufs_->remote_addr(),
		       bufs_->rkey(),
		       row.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE, &cqe_, &wc_ok_};

		verified = true;
		for (u32 i = 0; i < kWarmIos; i++) {
			auto [st, data_ok] = posted_io(i + 1, true);

			if (st != "SUCCESS" || !data_ok) {
				std::fprintf(stderr, "%s: checked I/O %u: %s%s\n",
					     row.name().c_str(), i, st.c_str(),
					     data_ok ? "" : ", wrong data");
				verified = false;
				break;
			}
		}
		if (verified && fixups)
			strict = posted_io(kWarmIos + 1, false).status;
		sim::set_post_sink(pair_->local.qp, true);
	} catch (...) {
		teardown();
		throw;
	}
}

Rig::Checked Rig::posted_io(u64 seed, bool fix)
{
	const size_t len = row_.bytes();
	std::vector<u8> want(len), got(len);

	fill(bufs_->arena.get(), bufs_->arena_bytes, 2 * seed);
	fill(bufs_->remote.get(), len, 2 * seed + 1);
	bufs_->copy_source(row_.read, want);

	const size_t before = sim::completions(pair_->local.qp).size();
	Posted p;

	if (row_.impl == Impl::kMrcore)
		post_mrcore(p);
	else
		post_rw(p, fix);
	sim::drain();

	std::string st = status_since(before, p.ret);
	ib_wc wc = wc_ok_;
	wc.status = st == "SUCCESS" ? IB_WC_SUCCESS : IB_WC_WR_FLUSH_ERR;

	if (p.rw)
		vsrw_rw_end(p.rw, &io_);
	else
		rdma_io_ctx_destroy(&p.ctx, &wc);

	bufs_->copy_sink(row_.read, got);
	if (chain_first.empty())
		chain_first = p.chain;
	if (fix) {
		chain = p.chain;
		chain_wrs = p.wrs;
		chain_regs = p.regs;
		chain_mrs = p.mrs;
	}
	return {std::move(st), got == want};
}

// mrcore's I/O: rdma_io_ctx_init(), its chain posted as built.
void Rig::post_mrcore(Posted &p)
{
	int wrs = rdma_io_ctx_init(&p.ctx, pool_.get(), io_.sg, io_.sg_cnt, 0,
				   io_.remote_addr, io_.rkey, io_.dir);
	if (wrs < 0)
		throw std::runtime_error("rdma_io_ctx_init: " +
					 std::to_string(wrs));
	backend = rdma_io_ctx_backend(&p.ctx);
	ib_send_wr *first = rdma_io_ctx_wrs(&p.ctx, &cqe_, nullptr);

	p.chain = describe_chain(first);
	count_chain(first, &p.wrs, &p.regs);
	p.mrs = p.ctx.nr_mrs;
	p.ret = ib_post_send(pair_->local.qp, p.ctx.first, nullptr);
}

// rdma_rw's I/O: rdma_rw_ctx_init(); fix: the harness sets the keys of
// its READ_WITH_INV WRs before posting.
void Rig::post_rw(Posted &p, bool fix)
{
	int err = 0, wrs;
	u32 mrs;
	ib_send_wr *first;

	p.rw = vsrw_rw_begin(&io_, &err, &wrs, &mrs, &first);
	if (!p.rw)
		throw std::runtime_error("rdma_rw_ctx_init: " +
					 std::to_string(err));
	backend = mrs ? "mr" : "sge";
	p.mrs = mrs;
	p.chain = describe_chain(first);
	count_chain(first, &p.wrs, &p.regs);
	if (fix)
		fixups += vsrw_fix_read_inv(first);
	p.ret = ib_post_send(pair_->local.qp, first, nullptr);
}

// The first bad status of the completions since before (or of the post,
// ret), "NO_COMPLETION" if the I/O's own completion is not the last
// one, else "SUCCESS".
std::string Rig::status_since(size_t before, int ret)
{
	const auto &cq = sim::completions(pair_->local.qp);

	if (ret)
		return "POST_ERR" + std::to_string(ret);
	for (size_t i = before; i < cq.size(); i++)
		if (cq[i].status != IB_WC_SUCCESS)
			return status_name(cq[i].status);
	if (cq.size() != before + 1 || cq.back().cqe != &cqe_)
		return "NO_COMPLETION";
	return "SUCCESS";
}

void Rig::teardown()
{
	// The pool's and the QP's teardown may post and wait: a device again.
	if (pair_)
		sim::set_post_sink(pair_->local.qp, false);
	pool_.reset();
	if (rw_qp_)
		vsrw_rw_qp_exit(pair_->local.qp);
	rw_qp_ = false;
	bufs_.reset();
	module_.reset();
	pair_.reset();
}

// The row of that name.  Every row is compared, not only those up to the
// match (common.h, count_main()).
const Row *find_row(const char *name)
{
	const Row *row = nullptr;

	for (const Row &r : rows())
		if (r.name() == name)
			row = &r;
	return row;
}

} // namespace

int main(int argc, char **argv)
{
	return bench::count_main(
		argc, argv, "vs_rw_count", rows, find_row,
		[](const char *name, const Row &row, unsigned long n) {
			vsrw_tally t{};
			Rig rig(row);

			if (int ret = rig.run(n, &t))
				bench::throw_error("init: ", ret);
			std::string line =
				std::string(name) + " ios=" + std::to_string(t.ios) +
				" wrs=" + std::to_string(t.wrs) +
				" chain_mrs=" + std::to_string(rig.chain_mrs) +
				" verified=" + (rig.verified ? "1" : "0") +
				" fixups=" + std::to_string(rig.fixups) +
				" strict=" + rig.strict + " backend=" + rig.backend +
				" chain_wrs=" + std::to_string(rig.chain_wrs) +
				" chain_regs=" + std::to_string(rig.chain_regs) +
				" chain_first=" + rig.chain_first +
				" chain=" + rig.chain;
			return [line = std::move(line)] {
				std::printf("%s\n", line.c_str());
			};
		});
}
