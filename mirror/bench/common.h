// SPDX-License-Identifier: GPL-2.0-only
//
// What the mirror's two benchmark rigs share: rig.cpp (make bench-mirror,
// rdma-mrcore's backends) and vs-rw/vs_rw.cpp (make bench-vs-rw, rdma-mrcore
// against ib_core's rdma_rw).  The SG shapes of their rows, the module load,
// a connected pair of simulated HCAs, the I/O's memory at both ends, the
// pool, the leak report, and the command line of the programs callgrind
// counts.
//
// None of it runs in a measured loop.  A row's instructions per I/O are the
// difference between two runs of N1 and N2 I/Os, in which this code does
// the same work; it keeps the order in which the rigs allocated before, so
// that the measured I/Os meet the same heap.
#ifndef MRCORE_MIRROR_BENCH_COMMON_H
#define MRCORE_MIRROR_BENCH_COMMON_H

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "hca.h"

#include "cases/shapes.h"

namespace bench {

// I/Os in flight the pools are sized for, as a ULP sizes them.
inline constexpr u32 kQueueDepth = 32;

// The rows' SG shapes: those of tests/cases/shapes.h the rows use, and
// 64 KiB contiguous, which the scenario table has no use for.
std::vector<mrcore_shape_desc> shapes();

// "PREFIX@PROFILE/DIR/SHAPE": how the programs name a row.
std::string row_name(const char *prefix, const sim::Profile &profile,
		     bool read, const mrcore_shape_desc &shape);

// rdma_mrcore's module init for the life of the object.
class ModuleLoad {
public:
	ModuleLoad();	// throws std::runtime_error if init fails
	~ModuleLoad();
	ModuleLoad(const ModuleLoad &) = delete;
	ModuleLoad &operator=(const ModuleLoad &) = delete;
};

// One end: a simulated HCA with a PD and an RC QP, which the HCA owns.
struct Node {
	std::unique_ptr<sim::Hca> hca;
	ib_pd *pd = nullptr;
	ib_qp *qp = nullptr;
};

// Two HCAs of one profile, "local" (where the I/Os run) and "peer",
// their QPs connected.
struct Pair {
	explicit Pair(const sim::Profile &profile);
	~Pair();
	Pair(const Pair &) = delete;
	Pair &operator=(const Pair &) = delete;

	Node local, peer;
};

struct FreeDeleter {
	void operator()(u8 *p) const { std::free(p); }
};
// Page-aligned memory from std::aligned_alloc().
using Memory = std::unique_ptr<u8[], FreeDeleter>;

// The I/O's memory at both ends: local memory of the shape (one SG entry
// each, shape.stride pages apart) and as much remote memory as the I/O
// moves, which the peer exposes under one rkey with remote READ and WRITE.
class Buffers {
public:
	Buffers(Node &peer, const mrcore_shape_desc &shape);
	~Buffers();	// the peer's MR deregistered
	Buffers(const Buffers &) = delete;
	Buffers &operator=(const Buffers &) = delete;

	// Bytes one I/O moves.
	u64 bytes() const { return u64(shape_.nents) * shape_.length; }
	u64 remote_addr() const
	{
		return reinterpret_cast<uintptr_t>(remote.get());
	}
	u32 rkey() const { return remote_mr_->ibmr.rkey; }

	// What an I/O of the direction must move, taken from its source, and
	// what is at its destination: bytes() each, into out.
	void copy_source(bool read, std::span<u8> out) const;
	void copy_sink(bool read, std::span<u8> out) const;

	Memory arena;		// the local memory
	size_t arena_bytes = 0;
	Memory remote;		// the peer's memory
	std::vector<scatterlist> sg;	// over arena, the shape's entries

private:
	void copy(bool from_remote, std::span<u8> out) const;

	const mrcore_shape_desc shape_;
	sim::Hca *peer_hca_;
	sim::Mr *remote_mr_ = nullptr;
};

struct PoolDeleter {
	void operator()(rdma_io_pool *pool) const
	{
		rdma_io_pool_destroy(pool);
	}
};
using Pool = std::unique_ptr<rdma_io_pool, PoolDeleter>;

// rdma_io_pool_create(); throws std::runtime_error if it fails.
Pool make_pool(ib_qp *qp, u32 port, u32 max_ios, u32 max_pages);

// After a rig is gone: "" if nothing leaked, was left mapped or referenced,
// and nothing warned; else what did.  Resets the simulator's counters.
std::string leak_report();

int count_usage(const char *prog);

// Throws std::runtime_error(what + ret).  Out of line, so that a measured
// loop that may throw keeps its error code in no register of its own.
[[noreturn]] void throw_error(const char *what, int ret);

// main() of a program callgrind counts:
//
//   PROG --list     the rows' names
//   PROG ROW N      set up ROW, run N I/Os, tear down, print a line
//
// rows() lists the rows; find(ROW) returns the row of that name or
// nullptr; run(ROW, row, N) sets up, runs the N I/Os and tears down, and
// returns what prints the program's line (called only if nothing was left
// behind, leak_report()), or throws.  Exit status 0, 1 (a failure) or 2
// (usage).
//
// Each program finds its row and formats its line as it did before this was
// shared: both run in the two callgrind runs, on argv strings that lie at
// other addresses (N is longer) and on numbers with other digits, so their
// cost does not quite cancel out, and a change to them moves the figures
// compared across commits by an instruction or two per I/O.
template <class Row, class Find, class Run>
int count_main(int argc, char **argv, const char *prog,
	       const std::vector<Row> &(*rows)(), Find find, Run run)
{
	if (argc == 2 && std::string(argv[1]) == "--list") {
		for (const Row &row : rows())
			std::printf("%s\n", row.name().c_str());
		return 0;
	}
	if (argc != 3)
		return count_usage(prog);

	const Row *row = find(argv[1]);
	char *end = nullptr;
	unsigned long n = std::strtoul(argv[2], &end, 10);

	if (!row || !*argv[2] || *end) {
		std::fprintf(stderr, "%s: unknown row or bad count\n", prog);
		return count_usage(prog);
	}

	std::optional<std::invoke_result_t<Run &, const char *, const Row &,
					   unsigned long>> print;
	try {
		print.emplace(run(argv[1], *row, n));
	} catch (const std::exception &e) {
		std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
		return 1;
	}
	if (std::string leaks = leak_report(); !leaks.empty()) {
		std::fprintf(stderr, "%s: left behind:%s\n", argv[1],
			     leaks.c_str());
		return 1;
	}
	(*print)();
	return 0;
}

} // namespace bench

#endif // MRCORE_MIRROR_BENCH_COMMON_H
