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
// N2 - N1 should be a multiple of 32 (the pools' size).
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
// Measured: N I/Os of init + wrs + destroy, not posted (what the HCA does
// with a chain is device work), destroy given the successful completion
// the HCA would have produced.
//
// Prints "ROW ios=N wrs=W mrs=M verified=0|1 fixups=F strict=STATUS
// backend=B chain_wrs=CW chain_regs=CR chain_first=CHAIN chain=CHAIN":
// ios, wrs and mrs are totals of the N measured I/Os; the rest describes
// the checked I/Os (chain: the last one's, CW WRs of which CR REG_MRs).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "glue.h"
#include "hca.h"

#include "cases/shapes.h"

namespace {

constexpr u32 kQueueDepth = 32;
constexpr u32 kMaxPages = 256;
constexpr u32 kPort = 1;
// Posted and checked before measuring: every pool MR once, and then some.
constexpr u32 kWarmIos = kQueueDepth + 4;

enum class Impl { kMrcore, kRdmaRw };

const char *impl_name(Impl i)
{
	return i == Impl::kMrcore ? "mrcore" : "rdma_rw";
}

constexpr mrcore_shape_desc kShape64kContig = {"64k_contig", 1, 0, 64u << 10,
					       16};

std::vector<mrcore_shape_desc> shapes()
{
	return {mrcore_shapes[SHAPE_1_PAGE],   mrcore_shapes[SHAPE_8_PAGES],
		mrcore_shapes[SHAPE_32_PAGES], mrcore_shapes[SHAPE_256_PAGES],
		kShape64kContig,	       mrcore_shapes[SHAPE_1M_CONTIG]};
}

struct Row {
	Impl impl;
	const sim::Profile *profile;
	mrcore_shape_desc shape;
	bool read;

	std::string name() const
	{
		return std::string(impl_name(impl)) + "@" + profile->name + "/" +
		       (read ? "read" : "write") + "/" + shape.name;
	}
	u64 bytes() const { return u64(shape.nents) * shape.length; }
};

const std::vector<Row> &rows()
{
	static const std::vector<Row> all = [] {
		std::vector<Row> v;

		for (const sim::Profile *p : {&sim::kRoce, &sim::kIwarp})
			for (bool read : {true, false})
				for (const mrcore_shape_desc &s : shapes())
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

u8 *alloc_pages(size_t bytes)
{
	void *p = std::aligned_alloc(PAGE_SIZE, bytes);

	if (!p)
		throw std::runtime_error("out of memory");
	std::memset(p, 0, bytes);
	return static_cast<u8 *>(p);
}

struct FreeDeleter {
	void operator()(u8 *p) const { std::free(p); }
};
using Memory = std::unique_ptr<u8[], FreeDeleter>;

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
	std::string backend;

private:
	struct Node {
		std::unique_ptr<sim::Hca> hca;
		ib_pd *pd = nullptr;
		ib_qp *qp = nullptr;
	};

	// Post one I/O, drain, check.  fix: set READ_WITH_INV keys.  Returns
	// the first bad status ("SUCCESS" if none); *data_ok if the bytes
	// landed right.
	std::string posted_io(u64 seed, bool fix, bool *data_ok);
	void teardown();

	const Row &row_;
	bool module_loaded_ = false;
	bool rw_qp_ = false;
	Node local_, peer_;
	Memory arena_, remote_;
	size_t arena_bytes_ = 0;
	std::vector<scatterlist> sg_;
	sim::Mr *remote_mr_ = nullptr;
	rdma_io_pool *pool_ = nullptr;
	ib_cqe cqe_{};
	ib_wc wc_ok_{};
	vsrw_io io_{};
};

Rig::Rig(const Row &row) : row_(row)
{
	sim::set_dma_page_tracking(false);
	sim::set_alloc_poison(false);
	const mrcore_shape_desc &s = row.shape;

	try {
		if (row.impl == Impl::kMrcore) {
			if (mirror_module_init())
				throw std::runtime_error("module init failed");
			module_loaded_ = true;
		}
		for (Node *n : {&local_, &peer_}) {
			n->hca = std::make_unique<sim::Hca>(
				*row.profile, n == &local_ ? "local" : "peer");
			n->pd = n->hca->alloc_pd();
			n->qp = n->hca->create_qp(n->pd);
		}
		sim::connect(local_.qp, peer_.qp);

		arena_bytes_ = (u64(s.nents - 1) * s.stride + 1) * PAGE_SIZE +
			       PAGE_ALIGN(s.offset + s.length);
		arena_ = Memory(alloc_pages(arena_bytes_));
		remote_ = Memory(alloc_pages(PAGE_ALIGN(row.bytes())));
		sg_.resize(s.nents);
		sg_init_table(sg_.data(), s.nents);
		for (unsigned int i = 0; i < s.nents; i++)
			sg_set_buf(&sg_[i], arena_.get() + i * s.stride * PAGE_SIZE +
				   (i ? 0 : s.offset), s.length);
		remote_mr_ = peer_.hca->expose(peer_.pd, remote_.get(), row.bytes(),
					       IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_WRITE |
					       IB_ACCESS_LOCAL_WRITE);

		if (row.impl == Impl::kMrcore) {
			pool_ = rdma_io_pool_create(local_.qp, kPort, kQueueDepth,
						    kMaxPages);
			if (IS_ERR(pool_)) {
				pool_ = nullptr;
				throw std::runtime_error("pool creation failed");
			}
		} else {
			if (int ret = vsrw_rw_qp_init(local_.qp, kPort,
						      kQueueDepth, kMaxPages))
				throw std::runtime_error("rdma_rw_init_mrs: " +
							 std::to_string(ret));
			rw_qp_ = true;
		}
		wc_ok_.wr_cqe = &cqe_;
		wc_ok_.status = IB_WC_SUCCESS;
		io_ = {local_.qp, kPort, pool_, sg_.data(), u32(sg_.size()),
		       reinterpret_cast<uintptr_t>(remote_.get()),
		       remote_mr_->ibmr.rkey,
		       row.read ? DMA_FROM_DEVICE : DMA_TO_DEVICE, &cqe_, &wc_ok_};

		verified = true;
		for (u32 i = 0; i < kWarmIos; i++) {
			bool data_ok = false;
			std::string st = posted_io(i + 1, true, &data_ok);

			if (st != "SUCCESS" || !data_ok) {
				std::fprintf(stderr, "%s: checked I/O %u: %s%s\n",
					     row.name().c_str(), i, st.c_str(),
					     data_ok ? "" : ", wrong data");
				verified = false;
				break;
			}
		}
		if (verified && fixups) {
			bool data_ok = false;

			strict = posted_io(kWarmIos + 1, false, &data_ok);
		}
	} catch (...) {
		teardown();
		throw;
	}
}

std::string Rig::posted_io(u64 seed, bool fix, bool *data_ok)
{
	const mrcore_shape_desc &s = row_.shape;
	const size_t len = row_.bytes();
	std::vector<u8> want(len), got(len);
	auto gather = [&](u8 *out) {
		for (unsigned int i = 0; i < s.nents; i++)
			std::memcpy(out + size_t(i) * s.length, sg_[i].buf,
				    s.length);
	};

	fill(arena_.get(), arena_bytes_, 2 * seed);
	fill(remote_.get(), len, 2 * seed + 1);
	if (row_.read)
		std::memcpy(want.data(), remote_.get(), len);
	else
		gather(want.data());

	auto &cq = sim::completions(local_.qp);
	const size_t before = cq.size();
	std::string chain;
	u32 chain_wrs, chain_regs;
	int ret;
	rdma_io_ctx ctx;
	vsrw_rw_ctx *rw = nullptr;

	if (row_.impl == Impl::kMrcore) {
		int wrs = rdma_io_ctx_init(&ctx, pool_, io_.sg, io_.sg_cnt, 0,
					   io_.remote_addr, io_.rkey, io_.dir);
		if (wrs < 0)
			throw std::runtime_error("rdma_io_ctx_init: " +
						 std::to_string(wrs));
		backend = rdma_io_ctx_backend(&ctx);
		ib_send_wr *first = rdma_io_ctx_wrs(&ctx, &cqe_, nullptr);

		chain = describe_chain(first);
		count_chain(first, &chain_wrs, &chain_regs);
		ret = ib_post_send(local_.qp, ctx.first, nullptr);
	} else {
		int err = 0, wrs;
		u32 mrs;
		ib_send_wr *first;

		rw = vsrw_rw_begin(&io_, &err, &wrs, &mrs, &first);
		if (!rw)
			throw std::runtime_error("rdma_rw_ctx_init: " +
						 std::to_string(err));
		backend = mrs ? "mr" : "sge";
		chain = describe_chain(first);
		count_chain(first, &chain_wrs, &chain_regs);
		if (fix)
			fixups += vsrw_fix_read_inv(first);
		ret = ib_post_send(local_.qp, first, nullptr);
	}
	sim::drain();

	std::string st = ret ? "POST_ERR" + std::to_string(ret) : "SUCCESS";
	for (size_t i = before; i < cq.size() && st == "SUCCESS"; i++)
		if (cq[i].status != IB_WC_SUCCESS)
			st = status_name(cq[i].status);
	if (st == "SUCCESS" && (cq.size() != before + 1 || cq.back().cqe != &cqe_))
		st = "NO_COMPLETION";
	ib_wc wc = wc_ok_;
	wc.status = st == "SUCCESS" ? IB_WC_SUCCESS : IB_WC_WR_FLUSH_ERR;

	if (rw)
		vsrw_rw_end(rw, &io_);
	else
		rdma_io_ctx_destroy(&ctx, &wc);

	if (row_.read)
		gather(got.data());
	else
		std::memcpy(got.data(), remote_.get(), len);
	*data_ok = got == want;
	if (chain_first.empty())
		chain_first = chain;
	if (fix) {
		this->chain = chain;
		this->chain_wrs = chain_wrs;
		this->chain_regs = chain_regs;
	}
	return st;
}

void Rig::teardown()
{
	if (pool_)
		rdma_io_pool_destroy(pool_);
	pool_ = nullptr;
	if (rw_qp_)
		vsrw_rw_qp_exit(local_.qp);
	rw_qp_ = false;
	if (remote_mr_)
		peer_.hca->dereg_mr(remote_mr_);
	remote_mr_ = nullptr;
	if (module_loaded_)
		mirror_module_exit();
	module_loaded_ = false;
	local_ = {};
	peer_ = {};
}

// What the set-up and the measured I/Os left behind.
std::string leak_report()
{
	const sim::Counters c = sim::counters();
	std::string r;

	if (c.kmalloc_live)
		r += " kmalloc_live=" + std::to_string(c.kmalloc_live);
	if (c.mrs_live)
		r += " mrs_live=" + std::to_string(c.mrs_live);
	if (c.dma_maps_live)
		r += " dma_maps_live=" + std::to_string(c.dma_maps_live);
	if (c.module_refs)
		r += " module_refs=" + std::to_string(c.module_refs);
	if (c.warnings)
		r += " warnings=" + std::to_string(c.warnings);
	if (c.dma_api_errors)
		r += " dma_api_errors=" + std::to_string(c.dma_api_errors);
	return r;
}

int usage()
{
	std::fprintf(stderr, "usage: vs_rw_count --list | ROW N\n");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 2 && std::string(argv[1]) == "--list") {
		for (const Row &row : rows())
			std::printf("%s\n", row.name().c_str());
		return 0;
	}
	if (argc != 3)
		return usage();

	const Row *row = nullptr;
	for (const Row &r : rows())
		if (r.name() == argv[1])
			row = &r;
	char *end = nullptr;
	unsigned long n = std::strtoul(argv[2], &end, 10);

	if (!row || !*argv[2] || *end) {
		std::fprintf(stderr, "vs_rw_count: unknown row or bad count\n");
		return usage();
	}

	vsrw_tally t{};
	std::string line;
	try {
		Rig rig(*row);

		if (int ret = rig.run(n, &t)) {
			std::fprintf(stderr, "%s: init: %d\n", argv[1], ret);
			return 1;
		}
		line = std::string(argv[1]) + " ios=" + std::to_string(t.ios) +
		       " wrs=" + std::to_string(t.wrs) +
		       " mrs=" + std::to_string(t.mrs) +
		       " verified=" + (rig.verified ? "1" : "0") +
		       " fixups=" + std::to_string(rig.fixups) +
		       " strict=" + rig.strict + " backend=" + rig.backend +
		       " chain_wrs=" + std::to_string(rig.chain_wrs) +
		       " chain_regs=" + std::to_string(rig.chain_regs) +
		       " chain_first=" + rig.chain_first + " chain=" + rig.chain;
	} catch (const std::exception &e) {
		std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
		return 1;
	}
	if (std::string leaks = leak_report(); !leaks.empty()) {
		std::fprintf(stderr, "%s: left behind:%s\n", argv[1], leaks.c_str());
		return 1;
	}
	std::printf("%s\n", line.c_str());
	return 0;
}
