// SPDX-License-Identifier: GPL-2.0-only
//
// Test data that tells where every byte came from, for the tests, the soak
// and the fuzzers alike.
//
// A byte's value derives from (buffer identity, page, offset in the page,
// seed): no two words of a page are equal, and two pages, two buffers or
// two seeds share no content but by a 2^-56 chance.  So a transfer from the
// wrong page, entry, offset, buffer or round never compares equal by
// accident, as it did when every page held the same 256-byte cycle.
//
// Two kinds: data, with the top bit of every byte clear, and poison, with
// it set.  A sink poisoned before an I/O therefore differs from any source
// in every byte, and every byte the I/O should have written is checked.
#ifndef MRCORE_MIRROR_PATTERN_H
#define MRCORE_MIRROR_PATTERN_H

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

namespace mirror {

enum class Kind : uint8_t { kData, kPoison };

// What a buffer was last filled with.
struct Pattern {
	uint64_t buffer = 0;	// identity: NewBufferId()
	uint64_t seed = 0;
	Kind kind = Kind::kData;
};

// Every buffer of a process gets its own identity.
inline uint64_t NewBufferId()
{
	static uint64_t next = 1;

	return next++;
}

constexpr uint64_t Mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

namespace pattern_detail {

inline constexpr size_t kPage = 4096;
inline constexpr size_t kWords = kPage / 8;
inline constexpr uint64_t kHigh = 0x8080808080808080ull;

// One word per place in a page, distinct in their low 7 bits of every
// byte (what survives the kind's mask), so no two words of a page match.
inline const std::array<uint64_t, kWords> &Words()
{
	static const std::array<uint64_t, kWords> table = [] {
		std::array<uint64_t, kWords> t{};
		std::array<uint64_t, kWords> low{};

		for (size_t j = 0; j < kWords; j++) {
			t[j] = Mix64(0x5eed0000u + j);
			low[j] = t[j] & ~kHigh;
		}
		std::sort(low.begin(), low.end());
		if (std::adjacent_find(low.begin(), low.end()) != low.end())
			std::abort();
		return t;
	}();
	return table;
}

inline uint64_t PageKey(const Pattern &p, uint64_t page)
{
	return Mix64(Mix64(Mix64(p.buffer) ^ p.seed) ^ (page << 1 | 1));
}

inline uint64_t Word(const Pattern &p, uint64_t key, size_t j)
{
	uint64_t w = Words()[j] ^ key;

	return p.kind == Kind::kData ? w & ~kHigh : w | kHigh;
}

} // namespace pattern_detail

// Write bytes [index, index + dst.size()) of a buffer filled with @p.
// Not instrumented: the soak fills every I/O's bytes, and the checks on
// each store cost more than the store; every byte it writes is inside @dst.
__attribute__((no_sanitize("address", "undefined")))
inline void Fill(std::span<uint8_t> dst, const Pattern &p, size_t index = 0)
{
	using namespace pattern_detail;
	// Raw pointers: unoptimized builds call std::array's operator[].
	const uint64_t *t = Words().data();
	uint64_t page[kWords];

	for (size_t done = 0; done < dst.size();) {
		size_t at = index + done;
		size_t in = at % kPage;
		size_t n = std::min(kPage - in, dst.size() - done);
		uint64_t key = PageKey(p, at / kPage);

		const uint64_t clear = p.kind == Kind::kData ? kHigh : 0;
		const uint64_t set = p.kind == Kind::kData ? 0 : kHigh;
		// Whole words straight into place; a partial word through the
		// page's words.
		bool direct = in % 8 == 0 && n % 8 == 0;
		uint8_t *out = direct ? dst.data() + done - in :
					reinterpret_cast<uint8_t *>(page);

		for (size_t j = in / 8; j < (in + n + 7) / 8; j++) {
			uint64_t w = ((t[j] ^ key) & ~clear) | set;

			std::memcpy(out + 8 * j, &w, 8);
		}
		if (!direct)
			std::memcpy(dst.data() + done,
				    reinterpret_cast<const uint8_t *>(page) + in, n);
		done += n;
	}
}

// Byte @index of a buffer filled with @p.
inline uint8_t ByteAt(const Pattern &p, size_t index)
{
	using namespace pattern_detail;
	uint64_t w = Word(p, PageKey(p, index / kPage), index % kPage / 8);

	return reinterpret_cast<const uint8_t *>(&w)[index % 8];
}

// The first byte of @got that is not byte (index + i) of @p, or got.size().
inline size_t FirstDiff(std::span<const uint8_t> got, const Pattern &p,
			size_t index = 0)
{
	std::array<uint8_t, 512> want;

	for (size_t done = 0; done < got.size(); done += want.size()) {
		size_t n = std::min(want.size(), got.size() - done);

		Fill(std::span(want.data(), n), p, index + done);
		if (std::memcmp(want.data(), got.data() + done, n))
			for (size_t i = 0; i < n; i++)
				if (want[i] != got[done + i])
					return done + i;
	}
	return got.size();
}

// The first index at which two ranges of one size differ, or their size.
inline size_t FirstDiff(std::span<const uint8_t> a, std::span<const uint8_t> b)
{
	if (a.size() != b.size())
		std::abort();
	if (!std::memcmp(a.data(), b.data(), a.size()))
		return a.size();
	return static_cast<size_t>(std::mismatch(a.begin(), a.end(),
						 b.begin()).first - a.begin());
}

} // namespace mirror

#endif // MRCORE_MIRROR_PATTERN_H
