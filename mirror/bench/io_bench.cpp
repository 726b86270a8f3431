// SPDX-License-Identifier: GPL-2.0-only
//
// Google Benchmark of the READ/WRITE helper's CPU path, one benchmark per
// row of rig.h: rdma_io_ctx_init() + rdma_io_ctx_wrs() +
// rdma_io_ctx_destroy() per iteration (rig.h says why nothing is posted).
// Counters: wrs_per_io and mrs_per_io, the WRs the chain holds and the pool
// MRs it takes, averaged over the timed I/Os.
#include <benchmark/benchmark.h>

#include <exception>
#include <string>

#include "rig.h"

namespace {

void BM_Io(benchmark::State &state, const bench::Row &row)
{
	bench::Tally t;

	try {
		bench::Rig rig(row);

		for (auto _ : state) {
			int ret = rig.io(&t);

			if (ret) {
				state.SkipWithError(("rdma_io_ctx_init: " +
						     std::to_string(ret)).c_str());
				break;
			}
		}
	} catch (const std::exception &e) {
		state.SkipWithError(e.what());
	}
	if (std::string leaks = bench::leak_report(); !leaks.empty())
		state.SkipWithError(("left behind:" + leaks).c_str());
	state.counters["wrs_per_io"] =
		benchmark::Counter(double(t.wrs), benchmark::Counter::kAvgIterations);
	state.counters["mrs_per_io"] =
		benchmark::Counter(double(t.mrs), benchmark::Counter::kAvgIterations);
}

} // namespace

int main(int argc, char **argv)
{
	for (const bench::Row &row : bench::rows())
		benchmark::RegisterBenchmark(("io/" + row.name()).c_str(), BM_Io, row);
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
