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
// N2 - N1 should be a multiple of 256 turns of the pool's 32 MRs so that
// periodic work (the fmr backend's batched unmap, the replacement of an
// MR's device MR once in 256 keys) is counted as often as it happens.
// Prints "ROW ios=N wrs=W mrs=M" (totals of the N I/Os) on success.
#include <cstdio>

#include "rig.h"

int main(int argc, char **argv)
{
	return bench::count_main(
		argc, argv, "mirror_io_count", bench::rows, bench::find_row,
		[](const char *name, const bench::Row &row, unsigned long n) {
			bench::Tally t;
			{
				bench::Rig rig(row);

				for (unsigned long i = 0; i < n; i++)
					if (int ret = rig.io(&t))
						bench::throw_error(
							"rdma_io_ctx_init: ", ret);
			}
			return [name, t] {
				std::printf("%s ios=%llu wrs=%llu mrs=%llu\n", name,
					    static_cast<unsigned long long>(t.ios),
					    static_cast<unsigned long long>(t.wrs),
					    static_cast<unsigned long long>(t.mrs));
			};
		});
}
