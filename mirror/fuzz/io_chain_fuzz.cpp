// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: the WR-chain builder behind rdma_io_ctx_init().
//
// The input picks a device profile, then drives one I/O (direction, forced
// backend or none, SG list over a page-aligned arena, offset): it is built,
// posted on the simulated HCA and its bytes compared with the source; or it
// is refused with an errno, holding nothing and changing no memory.  At the
// end nothing may be left allocated, mapped or referenced.
#include "random_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const sim::Profile *profiles[] = {&sim::kRoce, &sim::kIwarp,
						 &sim::kFmr, &sim::kSiw};
	mirror::ByteSource in(data, size);
	const sim::Profile &p = *profiles[in.u(1) % 4];

	mirror::Check(mirror_module_init() == 0, "module init");
	{
		mirror::IoEnv env(p, 2);
		env.RandomIo(in, true);
	}
	mirror_module_exit();
	mirror::CheckNothingLeft();
	return 0;
}
