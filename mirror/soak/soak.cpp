// SPDX-License-Identifier: GPL-2.0-only
//
// Soak: random I/Os across every device profile and backend with random
// injected faults, every byte verified by the simulated HCA, nothing left
// behind at the end.
//
//   mirror_soak [ios] [seed]     (default 1000000 I/Os)
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

const char *const kPoints[] = {"post_send", "mr_alloc", "map_short", "dma_map",
			       "pool_empty"};

} // namespace

int main(int argc, char **argv)
{
	static const sim::Profile *profiles[] = {&sim::kRoce, &sim::kIwarp,
						 &sim::kFmr, &sim::kSiw};
	unsigned long ios = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 1000000;
	uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 1;
	RandomSource in(seed);
	unsigned long moved = 0, refused = 0, faults = 0, done = 0;

	mirror::Check(mirror_module_init() == 0, "module init");
	while (done < ios) {
		const sim::Profile &p = *profiles[in.u(1) % 4];
		mirror::IoEnv env(p, 1 + in.u(1) % 8);

		for (int i = 0; i < 5000 && done < ios; i++, done++) {
			// About one I/O in fifty meets an injected fault.
			if (in.u(1) < 5) {
				const char *pt = kPoints[in.u(1) % 5];

				faults += rdma_mrcore_fault_hits(pt);
				rdma_mrcore_fault_arm(pt, in.u(1) % 3, 1);
			}
			int r = env.RandomIo(in, in.u(1) & 1);
			moved += r;
			refused += !r;
			if (i % 64 == 0)
				rdma_io_pool_drain(env.pool());
		}
		for (const char *pt : kPoints) {
			faults += rdma_mrcore_fault_hits(pt);
			rdma_mrcore_fault_arm(pt, 0, 0);
		}
		rdma_io_pool_drain(env.pool());
	}
	mirror_module_exit();
	mirror::CheckNothingLeft();
	std::printf("soak: %lu I/Os (%lu moved and verified, %lu refused), %lu faults injected, 0 leaks\n",
		    done, moved, refused, faults);
	return 0;
}
