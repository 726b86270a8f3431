// SPDX-License-Identifier: GPL-2.0-only
//
// A model of the SG planner (core/sg.c) written from the rules its comments
// state, walking the bytes page by page rather than following its code:
//
//  - a run of bytes one MR maps ends at a hole (two neighbouring entries
//    that neither continue each other nor meet on page boundaries), at the
//    end of the list, or when its page list is full, inside an entry if
//    need be, where the next run starts;
//  - an entry that continues the previous one exactly shares the page that
//    one ended in; any other entry starts a page of its own.
//
// The planner fuzzer compares the core with it run by run, page by page;
// the soak and the I/O fuzzer use it to know how many MRs an I/O needs.
#ifndef MRCORE_MIRROR_SG_MODEL_H
#define MRCORE_MIRROR_SG_MODEL_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mirror::model {

inline constexpr uint64_t kPage = 4096;

struct Entry {
	uint64_t addr;
	uint64_t len;
};

// One run: what one MR maps.
struct Run {
	size_t first = 0;		// the entry it starts in
	uint64_t offset = 0;		// bytes of that entry before it
	size_t nents = 0;		// entries it touches
	uint64_t length = 0;
	uint64_t last_end = 0;		// its end in its last entry, from that entry's start
	std::vector<uint64_t> pages;	// its page list, in order
};

struct Plan {
	std::vector<Run> runs;
	uint64_t length = 0;
	uint64_t npages = 0;	// of the whole list, as one MR without a limit
	uint32_t holes = 0;
};

// The plan of @sg, @offset bytes of its first entry skipped, for MRs of
// @max_pages pages (at least 1).
inline Plan Model(std::span<const Entry> sg, uint64_t offset, uint64_t max_pages)
{
	Plan plan;
	std::optional<Run> cur;
	uint64_t prev_end = 0;	// end of the previous entry
	uint64_t run_end = 0;	// end of the current run's bytes
	auto close = [&] {
		if (cur)
			plan.runs.push_back(std::move(*cur));
		cur.reset();
	};

	for (size_t i = 0; i < sg.size(); i++) {
		const uint64_t s = sg[i].addr + (i ? 0 : offset);
		const uint64_t e = sg[i].addr + sg[i].len;
		const bool continues = i && s == prev_end;

		if (i && !continues && (prev_end % kPage || s % kPage)) {
			plan.holes++;
			close();
		}
		plan.length += e - s;
		for (uint64_t pos = s; pos < e;) {
			const uint64_t page = pos / kPage * kPage;
			const uint64_t next = std::min(e, page + kPage);
			const bool shared = pos == s && continues && s % kPage;

			plan.npages += !shared;
			if (!(cur && run_end == pos && shared)) {
				if (cur && cur->pages.size() == max_pages)
					close();
				if (!cur)
					cur = Run{.first = i, .offset = pos - sg[i].addr};
				cur->pages.push_back(page);
			}
			cur->nents = i - cur->first + 1;
			cur->length += next - pos;
			cur->last_end = next - sg[i].addr;
			run_end = next;
			pos = next;
		}
		prev_end = e;
	}
	close();
	return plan;
}

} // namespace mirror::model

#endif // MRCORE_MIRROR_SG_MODEL_H
