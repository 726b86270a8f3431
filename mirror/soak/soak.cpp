// SPDX-License-Identifier: GPL-2.0-only
//
// Soak: random I/Os across every device profile and backend with random
// injected faults.  Every I/O either moved its bytes, checked byte for byte
// in the right direction with poisoned sinks and guards (random_io.h), or
// was refused for a cause the run names: an armed fault that fired, a
// forced backend that cannot serve, a dry pool where no fallback applies.
// Anything else fails the run, and so does a run in which fewer than half
// of the I/Os moved, or anything left behind at the end.
//
//   mirror_soak [ios] [seed]     (default 1000000 I/Os)
//
// The last line is always
//   soak: N I/Os (M moved and verified, R refused), F faults injected, 0 leaks
// (scripts/check.sh shows it); the causes of the refusals and any failure
// come on the lines before it.
#include <cstdio>
#include <random>

#include "random_io.h"

namespace {

struct RandomSource : mirror::Source {
	std::mt19937_64 rng;
	explicit RandomSource(uint64_t seed) : rng(seed) {}
	uint32_t u(unsigned int bytes) override
	{
		return uint32_t(rng()) & (bytes >= 4 ? ~0u : (1u << (8 * bytes)) - 1);
	}
};

// Past this many failures the rest of the run says nothing new.
constexpr unsigned long kMaxFailures = 20;

} // namespace

int main(int argc, char **argv)
{
	static const sim::Profile *profiles[] = {&sim::kRoce, &sim::kIwarp,
						 &sim::kFmr, &sim::kSiw};
	const auto &points = mirror::kFaultPoints;
	unsigned long ios = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 1000000;
	uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
	RandomSource in(seed);
	mirror::Tally t;
	unsigned long faults = 0;

	mirror::Check(mirror_module_init() == 0, "module init");
	while (t.issued < ios && t.failures < kMaxFailures) {
		const sim::Profile &p = *profiles[in.u(1) % 4];
		mirror::IoEnv env({.profile = &p,
				   .max_ctxs = 1 + in.u(1) % 8,
				   // iWARP (iwarp, siw) without READ_WITH_INV:
				   // READ + LOCAL_INV
				   .read_inv = in.u(1) % 4 != 0,
				   .on_failure = mirror::OnFailure::kCount});

		for (int i = 0; i < 5000 && t.issued < ios && !env.broken() &&
				t.failures < kMaxFailures; i++) {
			// About one I/O in fifty meets an injected fault.
			if (in.u(1) < 5) {
				const char *pt = points[in.u(1) % points.size()];

				faults += rdma_mrcore_fault_hits(pt);
				rdma_mrcore_fault_arm(pt, in.u(1) % 3, 1);
			}
			env.RandomIo(in, in.u(1) & 1, t);
			if (i % 64 == 0)
				rdma_io_pool_drain(env.pool());
		}
		for (const char *pt : points) {
			faults += rdma_mrcore_fault_hits(pt);
			rdma_mrcore_fault_arm(pt, 0, 0);
		}
		rdma_io_pool_drain(env.pool());
	}
	mirror_module_exit();
	bool ok = mirror::NothingLeft();

	std::printf("soak: refused: %s\n", t.Refusals().c_str());
	if (!ok)
		std::printf("soak: FAILED: resources left behind (see above)\n");
	if (t.failures) {
		std::printf("soak: FAILED: %lu I/Os did not do what they claim (the "
			    "first ones above)%s\n", t.failures,
			    t.failures >= kMaxFailures ? ", run stopped" : "");
		ok = false;
	}
	if (!t.MovedEnough()) {
		std::printf("soak: FAILED: %lu of %lu I/Os moved; at least half must\n",
			    t.moved, t.issued);
		ok = false;
	}
	std::printf("soak: %lu I/Os (%lu moved and verified, %lu refused), %lu faults injected, %s\n",
		    t.issued, t.moved, t.Refused(), faults,
		    mirror::NothingLeft() ? "0 leaks" : "LEAKS");
	return ok ? 0 : 1;
}
