// SPDX-License-Identifier: GPL-2.0-only
//
// Simulated HCA for the userspace mirror.
//
// It implements the verbs the core calls (mrcore_internal.h of the mirror)
// and executes posted WRs the way hardware does, asynchronously:
// ib_post_send() checks a WR (SGE limits, send queue depth) and queues a copy
// of it on the QP's send queue; nothing runs until the test lets the devices
// run (drain(), step(), drain_random()).  Then REG_MR and LOCAL_INV change MR
// state, RDMA READ/WRITE move bytes through page lists after the lkey and
// rkey checks hardware makes (state, key generation, PD, access rights,
// bounds; the iWARP READ-sink rule), a SEND_WITH_INV kills the responder's
// key it names, and completions arrive.  A failed WR
// moves its QP to the error state, a remote access error the responder's QP
// too (RC), and a QP in error flushes every WR it has not executed, one
// completion each, signaled or not.  Every allocation it hands out is
// counted, and a registered MR that reaches memory no longer DMA-mapped is a
// DMA-API error.
#ifndef MRCORE_MIRROR_SIM_HCA_H
#define MRCORE_MIRROR_SIM_HCA_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "mrcore_internal.h"
#include "cases/profiles.h"

namespace sim {

// What a device can do: a row of the profile table KUnit's fake devices
// are made from too (tests/cases/profiles.h, where a profile is added).
using Profile = mrcore_profile_limits;

inline constexpr const Profile &kRoce = mrcore_profiles[MRCORE_PROFILE_ROCE];
inline constexpr const Profile &kIwarp =
	mrcore_profiles[MRCORE_PROFILE_IWARP];
inline constexpr const Profile &kSiw = mrcore_profiles[MRCORE_PROFILE_SIW];
inline constexpr const Profile &kNoFastReg =
	mrcore_profiles[MRCORE_PROFILE_NOFASTREG];
inline constexpr const Profile &kFmr = mrcore_profiles[MRCORE_PROFILE_FMR];
extern const rdma_fmr_ops kFmrOps;	// the FMR profile's callbacks

struct Completion {
	ib_cqe *cqe;
	ib_wc_status status;
	ib_wr_opcode opcode;
};

// A message (SEND, SEND_WITH_INV) that arrived, as the responder's Receive
// completion tells it.  There is no receive queue: every message finds a
// Receive, and its payload is not kept.
struct Arrival {
	ib_wc_status status = IB_WC_SUCCESS;
	int wc_flags = 0;		// IB_WC_WITH_INVALIDATE
	u32 invalidate_rkey = 0;	// the key a SEND_WITH_INV killed
	u32 byte_len = 0;
};

// Counters every test checks at teardown.
struct Counters {
	long kmalloc_live = 0;
	long mrs_live = 0;
	long dma_maps_live = 0;
	long module_refs = 0;
	long warnings = 0;
	long dma_api_errors = 0;
	long fmr_remap_unflushed = 0;
	long fmr_unmap_calls = 0;
	long wrs_executed = 0;	// taken off send queues, flushes included
};
Counters &counters();

class Hca;

// What a device MR is.
enum class MrKind {
	dma,		// the PD's local DMA lkey: all memory, local only
	registered,	// allocated for the core: REG_MR or FMR maps it
	exposed,	// made by expose(): a test's far side, not the core's
};

struct Mr {
	ib_mr ibmr{};		// ibmr.sim points back here
	Hca *hca = nullptr;
	u32 index = 0;
	u32 max_num_sg = 0;
	MrKind kind = MrKind::registered;
	bool valid = false;
	u8 key_byte = 0;
	int access = 0;
	u64 iova = 0;
	u64 length = 0;
	long fmr_maps = 0;
	bool fmr = false;		// an FMR handle: no SEND_WITH_INV kills it
	bool noio = false;		// allocated inside memalloc_noio_save()
	std::vector<u64> pages;		// registered page list
	std::vector<u64> staged;	// what ib_map_mr_sg last built
	u64 staged_iova = 0;
	u64 staged_length = 0;

	bool dma_mr() const { return kind == MrKind::dma; }
	// Whether @key names this MR in its current generation.
	bool key_matches(u32 key) const
	{
		return dma_mr() || (key & 0xff) == key_byte;
	}

	// The device's map_mr_sg: ib_map_mr_sg() of the page list staged
	// for the next REG_MR.
	int map_sg(scatterlist *sgl, int sg_nents, unsigned int *sg_offset_p,
		   unsigned int page_size);
};

// A WR as the device keeps it once posted: a copy, so the poster may reuse
// its own WR at once, as with any driver.
struct SendWqe {
	ib_send_wr wr{};	// next is unused, sg_list points at sges
	std::vector<ib_sge> sges{};
	u64 remote_addr = 0;		// RDMA READ/WRITE
	u32 rkey = 0;
	const ib_mr *reg_mr = nullptr;	// REG_MR: only compared
	u32 reg_key = 0;
	int reg_access = 0;
};

struct Qp {
	ib_qp qp{};			// qp.sim points back here
	Hca *hca = nullptr;
	Qp *peer = nullptr;
	bool error = false;
	bool sink = false;		// post takes WRs, runs none: set_post_sink()
	u64 sunk = 0;			// WRs a sink took
	u32 max_send_wr = 0;		// WRs the send queue holds
	std::deque<SendWqe> sq;		// posted, not executed yet
	std::vector<Completion> cq;
	std::vector<Arrival> received;	// messages the peer sent, oldest first

	// The device's post_send: ib_post_send() of a chain.
	int post(const ib_send_wr *wr, const ib_send_wr **bad_wr);
};

class Hca {
public:
	explicit Hca(const Profile &profile, const char *name);
	~Hca();
	Hca(const Hca &) = delete;
	Hca &operator=(const Hca &) = delete;

	ib_device *dev() { return &dev_; }
	const Profile &profile() const { return profile_; }
	ib_pd *alloc_pd();
	// A QP whose send queue holds @max_send_wr WRs (0: the device's
	// max_qp_wr, as a ULP asking for the most gets).
	ib_qp *create_qp(ib_pd *pd, u32 max_send_wr = 0);

	// The device's alloc_mr: ib_alloc_mr(), or an ERR_PTR.
	ib_mr *alloc_mr(ib_pd *pd, ib_mr_type type, u32 max_num_sg);
	// A device MR of @max_num_sg pages, not valid yet (FMR's too).
	Mr &alloc_mr(ib_pd *pd, u32 max_num_sg);
	void dereg_mr(Mr *mr);
	// The MR a key names (any generation), or nullptr.
	Mr *find_mr(u32 key);
	// Test facility for the far side of an I/O: a valid MR over
	// [buf, buf + len) of any size, without the core.  dereg_mr() frees it.
	Mr *expose(ib_pd *pd, void *buf, u64 len, int access);
	size_t live_mrs() const { return mrs_.size(); }
	// Of those, the ones allocated inside memalloc_noio_save().
	size_t noio_mrs() const;

private:
	Mr &new_mr(ib_pd *pd, MrKind kind);
	u32 draw_index();

	Profile profile_;
	ib_device dev_{};
	std::vector<std::unique_ptr<ib_pd>> pds_;
	std::vector<std::unique_ptr<Qp>> qps_;
	// By index (a key's upper 24 bits).  A node map: a Mr never moves,
	// as the core holds its ib_mr.
	std::map<u32, Mr> mrs_;
	u32 next_index_ = 1;
	// siw's random starting points, the same in every run.
	std::mt19937 rng_{0x5eed};
};

// The simulated objects behind the kernel's: each kernel object's sim
// field points at what owns it.
inline Hca &hca_of(const ib_device *dev)
{
	return *static_cast<Hca *>(dev->sim);
}

inline Qp &qp_of(const ib_qp *qp)
{
	return *static_cast<Qp *>(qp->sim);
}

inline Mr &mr_of(const ib_mr *mr)
{
	return *static_cast<Mr *>(mr->sim);
}

// Connect two RC QPs (on the same or on two HCAs).
void connect(ib_qp *a, ib_qp *b);
// Completions a QP produced, oldest first.
std::vector<Completion> &completions(ib_qp *qp);
// Messages a QP received, oldest first.
std::vector<Arrival> &received(ib_qp *qp);
bool qp_in_error(ib_qp *qp);
// Move a QP to the error state: what it has not executed is flushed when
// the device next runs (drain(), step()), one completion per WR.
void set_qp_error(ib_qp *qp);
// Resize a QP's send queue; WRs already queued stay.
void set_max_send_wr(ib_qp *qp, u32 max_send_wr);
// WRs posted on a QP and not executed yet.
size_t queued(ib_qp *qp);
// Destroy a QP as ib_destroy_qp() does with WRs still queued: they vanish
// unexecuted and without completions, the connection breaks (the peer's
// QP goes to error).  The QP's memory stays with its HCA.
void destroy_qp(ib_qp *qp);

// Post a chain and return what ib_post_send returned.  Nothing executes.
int post(ib_qp *qp, ib_send_wr *wr);

// Let one QP's device take at most @n WRs off its send queue, in order:
// each executes (or is flushed if the QP is in error) and completes.
// Returns the WRs taken.
size_t step(ib_qp *qp, size_t n);

// Let the devices run until every send queue is empty: the QPs take turns,
// one WR each, in the order they were created.  Returns the WRs taken.
size_t drain();

// Whether DMA mappings record their pages, so that a key reaching memory
// no longer mapped counts as a DMA-API error (on by default).  Benchmarks
// turn it off: it costs the simulator, not the code they measure, in
// proportion to the pages.
void set_dma_page_tracking(bool on);

// Whether kmalloc() fills what it returns with 0xa5, as slub_debug's
// poisoning does, so that a field the code forgets to set reads as
// garbage (on by default).  Benchmarks turn it off: the kernel does not
// pay for it.
void set_alloc_poison(bool on);

// Whether ib_post_send() on @qp takes every WR and runs none: it walks
// the chain, counts it and returns 0, as a driver's post that never fails
// would, at the price of a walk (off by default).  For a benchmark whose
// measured I/Os post but must not execute: the device's work is not the
// code it measures, and is the same for the same chain on both sides.
void set_post_sink(ib_qp *qp, bool on);

// The same with the turns drawn at random from @seed: one WR of a random
// QP that has work, until none has.  Returns the WRs taken.
size_t drain_random(uint64_t seed);

} // namespace sim

#endif // MRCORE_MIRROR_SIM_HCA_H
