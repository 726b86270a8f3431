// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: the WR-chain builder behind rdma_io_ctx_init().
//
// The input picks a device profile (and, for iWARP, whether READ_WITH_INV
// is there), maybe a fault to inject (one of random_io.h's kFaultPoints,
// after 0 to 2 passes), then drives one I/O (direction, forced backend or
// none, SG list over a page-aligned arena, offset, remote address): it
// moves its bytes, checked in the right direction against poisoned sinks
// with guards, or it is refused for a cause the input armed or chose,
// holding nothing and changing no memory, or it is posted in part (the
// post_wr fault) and drained, leaving no live key and no mapping
// (random_io.h); anything else aborts.  At the end nothing may be left
// allocated, mapped or referenced.
//
// At exit the target prints its tally and fails if fewer than half of
// the I/Os moved: a builder that refuses everything must not pass.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "random_io.h"

namespace {

mirror::Tally tally;

void Report()
{
	std::fprintf(stderr, "io_chain: %lu I/Os (%lu moved and verified, %lu "
		     "refused: %s)\n", tally.issued, tally.moved, tally.Refused(),
		     tally.Refusals().c_str());
	// Most inputs force a backend, some one that cannot serve; about 70%
	// of the I/Os move all the same.  The floor is the soak's: half.
	if (tally.issued >= 100 && !tally.MovedEnough()) {
		std::fprintf(stderr, "io_chain: FAILED: fewer than half of the "
			     "I/Os moved\n");
		std::fflush(stderr);
		_exit(1);
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const sim::Profile *profiles[] = {&sim::kRoce, &sim::kIwarp,
						 &sim::kFmr, &sim::kSiw};
	static const bool reporting = std::atexit(Report) == 0;
	mirror::ByteSource in(data, size);
	uint32_t pick = in.u(1);
	const sim::Profile &p = *profiles[pick % 4];
	// One input in eight arms a fault (not the zeros of a short input).
	const uint32_t fault = in.u(1);
	const auto &points = mirror::kFaultPoints;

	mirror::Check(reporting, "atexit");
	mirror::Check(mirror_module_init() == 0, "module init");
	{
		mirror::IoEnv env({.profile = &p, .max_ctxs = 2,
				   .read_inv = pick / 4 % 4 != 0});
		if (fault >= 224)
			rdma_mrcore_fault_arm(points[fault % points.size()],
					      fault / points.size() % 3, 1);
		env.RandomIo(in, true, tally);
		for (const char *pt : points)
			rdma_mrcore_fault_arm(pt, 0, 0);
	}
	mirror_module_exit();
	mirror::Check(mirror::NothingLeft(), "leak or misuse at teardown");
	return 0;
}
