// SPDX-License-Identifier: GPL-2.0-only
//
// Runs N I/Os of one row of rig.h, for counting instructions under
// callgrind:
//
//   mirror_io_count --list              the rows' names
//   mirror_io_count ROW N               set up ROW, run N I/Os, tear down
//
// Instructions per I/O are (Ir(N2) - Ir(N1)) / (N2 - N1) over two runs:
// set-up, warm-up and teardown are the same in both and cancel out, and an
// instruction count does not depend on what else the machine is doing.
// N2 - N1 should be a multiple of the pool's 32 MRs so that periodic work
// (the fmr backend's batched unmap) is counted as often as it happens.
// Prints "ROW ios=N wrs=W mrs=M" (totals of the N I/Os) on success.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "rig.h"

namespace {

int usage()
{
	std::fprintf(stderr, "usage: mirror_io_count --list | ROW N\n");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 2 && std::string(argv[1]) == "--list") {
		for (const bench::Row &row : bench::rows())
			std::printf("%s\n", row.name().c_str());
		return 0;
	}
	if (argc != 3)
		return usage();

	const bench::Row *row = bench::find_row(argv[1]);
	char *end = nullptr;
	unsigned long n = std::strtoul(argv[2], &end, 10);

	if (!row || !*argv[2] || *end) {
		std::fprintf(stderr, "mirror_io_count: unknown row or bad count\n");
		return usage();
	}

	bench::Tally t;
	try {
		bench::Rig rig(*row);

		for (unsigned long i = 0; i < n; i++) {
			if (int ret = rig.io(&t)) {
				std::fprintf(stderr, "%s: rdma_io_ctx_init: %d\n",
					     argv[1], ret);
				return 1;
			}
		}
	} catch (const std::exception &e) {
		std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
		return 1;
	}
	if (std::string leaks = bench::leak_report(); !leaks.empty()) {
		std::fprintf(stderr, "%s: left behind:%s\n", argv[1], leaks.c_str());
		return 1;
	}
	std::printf("%s ios=%llu wrs=%llu mrs=%llu\n", argv[1],
		    static_cast<unsigned long long>(t.ios),
		    static_cast<unsigned long long>(t.wrs),
		    static_cast<unsigned long long>(t.mrs));
	return 0;
}
