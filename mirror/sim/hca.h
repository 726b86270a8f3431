// SPDX-License-Identifier: GPL-2.0-only
//
// Simulated HCA for the userspace mirror.
//
// It implements the verbs the core calls (mrcore_internal.h of the mirror)
// and executes posted WR chains the way hardware does: REG_MR and LOCAL_INV
// change MR state, RDMA READ/WRITE move bytes through page lists after the
// lkey and rkey checks hardware makes (state, key generation, PD, access
// rights, bounds), SGE limits are enforced at post time, the iWARP READ-sink
// rule at execution.  Every allocation it hands out is counted.
#ifndef MRCORE_MIRROR_SIM_HCA_H
#define MRCORE_MIRROR_SIM_HCA_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mrcore_internal.h"

namespace sim {

// What a device can do, as the core sees it through ib_device_attr.
struct Profile {
	const char *name;
	bool iwarp;
	int max_send_sge;
	int max_sge_rd;
	u32 max_fast_reg_page_list_len;
	bool mem_mgt_extensions;
	// siw lets the PD's DMA lkey sink a READ; the iWARP rule is enforced
	// for registered MRs (the sink's STag needs REMOTE_WRITE).
	bool dma_lkey_read_sink;
	// A legacy device with FMR callbacks (rdma_fmr_register()).
	u32 fmr_max_pages = 0;
	// Like siw: physically contiguous pages share one page-list entry,
	// so a page list holds more pages than max_num_sg when they touch.
	bool merges_pages = false;
};

extern const Profile kRoce;	// like rxe: RoCEv2
extern const Profile kIwarp;	// like siw: iWARP
extern const Profile kNoFastReg;	// a device without fast registration
extern const Profile kFmr;		// a legacy IB device with FMR callbacks
extern const rdma_fmr_ops kFmrOps;	// the FMR profile's callbacks

struct Completion {
	ib_cqe *cqe;
	ib_wc_status status;
	ib_wr_opcode opcode;
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
};
Counters &counters();

class Hca;

struct Mr {
	ib_mr ibmr;		// first: the core's ib_mr * is a Mr *
	Hca *hca;
	u32 index;
	u32 max_num_sg;
	bool dma_mr = false;	// the PD's local DMA lkey: all memory, local only
	bool valid = false;
	u8 key_byte = 0;
	int access = 0;
	u64 iova = 0;
	u64 length = 0;
	long fmr_maps = 0;
	std::vector<u64> pages;		// registered page list
	std::vector<u64> staged;	// what ib_map_mr_sg last built
	u64 staged_iova = 0;
	u64 staged_length = 0;
};

struct Qp {
	ib_qp qp;
	Hca *hca;
	Qp *peer = nullptr;
	bool error = false;
	std::vector<Completion> cq;
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
	ib_qp *create_qp(ib_pd *pd);

	// Used by the verbs shims.
	Mr *alloc_mr(ib_pd *pd, u32 max_num_sg);
	void dereg_mr(Mr *mr);
	Mr *find_mr(u32 key);
	// Test facility for the far side of an I/O: a valid MR over
	// [buf, buf + len) of any size, without the core.  dereg_mr() frees it.
	Mr *expose(ib_pd *pd, void *buf, u64 len, int access);
	size_t live_mrs() const { return mrs_.size(); }

private:
	Profile profile_;
	ib_device dev_{};
	std::vector<std::unique_ptr<ib_pd>> pds_;
	std::vector<std::unique_ptr<Qp>> qps_;
	std::map<u32, Mr *> mrs_;
	u32 next_index_ = 1;
};

// Connect two RC QPs (on the same or on two HCAs).
void connect(ib_qp *a, ib_qp *b);
// Completions a QP produced, oldest first.
std::vector<Completion> &completions(ib_qp *qp);
bool qp_in_error(ib_qp *qp);
// Move a QP to the error state: what it has not executed is flushed.
void set_qp_error(ib_qp *qp);

// Post a chain and return what ib_post_send returned.
int post(ib_qp *qp, ib_send_wr *wr);

// Let the devices run until every send queue is empty: queued WRs execute
// in order and their completions arrive.  Returns the WRs executed.
size_t drain();

} // namespace sim

#endif // MRCORE_MIRROR_SIM_HCA_H
