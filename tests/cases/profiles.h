/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device profiles: the one table of what each test device can do.  KUnit's
 * fake devices (kunit/harness/fake_dev.c) and the userspace mirror's simulated HCA
 * (mirror/sim/, as sim::kRoce, sim::kIwarp, ...) are both built from it,
 * and the case tables name profiles by enum mrcore_profile.  A new profile
 * is an enum value and a row of mrcore_profiles below.
 *
 *   roce      (like rxe): 32 SGEs per READ and WRITE, 512 pages per MR
 *   iwarp     (siw's limits, iWARP's rules): 1 SGE per READ, 6 per WRITE,
 *	       256 pages per MR; a READ sink must be an MR with REMOTE_WRITE
 *   fmr       (a legacy IB HCA with FMR callbacks): 30 SGEs, 256 pages per
 *	       MR through the callbacks, no fast registration
 *   siw       (siw 6.12): iwarp's limits, and siw's quirks: it takes the
 *	       PD's DMA lkey as a READ sink and does not check the access
 *	       rights of incoming READs (the core's device quirk table knows
 *	       it as siw by its driver id)
 *   nofastreg 16 SGEs, neither fast registration nor FMR: no MR backend
 *	       serves it
 */
#ifndef _MRCORE_PROFILES_H
#define _MRCORE_PROFILES_H

#include <rdma/ib_verbs.h>

enum mrcore_profile {
	MRCORE_PROFILE_ROCE,
	MRCORE_PROFILE_IWARP,
	MRCORE_PROFILE_FMR,
	MRCORE_PROFILE_SIW,
	MRCORE_PROFILE_NOFASTREG,
	MRCORE_PROFILE_COUNT
};

/**
 * struct mrcore_profile_limits - what a test device can do
 * @name: the profile's name in test names.
 * @iwarp: iWARP transport, else RoCE or IB.
 * @max_send_sge: device attribute; a QP's max_write_sge.
 * @max_sge_rd: device attribute; a QP's max_read_sge is the smaller of it
 *	and @max_send_sge.
 * @max_fast_reg_page_list_len: device attribute: pages per fast-registration
 *	MR; 0 without fast registration.
 * @mem_mgt_extensions: IB_DEVICE_MEM_MGT_EXTENSIONS (fast registration).
 * @fmr_max_pages: pages per MR of the FMR callbacks the vendor registers
 *	(rdma_fmr_register()); 0: none.
 * @driver_id: the device's ib_device_ops.driver_id.
 * @dma_lkey_read_sink: simulated HCA: an iWARP READ may land through the
 *	PD's DMA lkey (siw); by RFC 5040 the sink must be an MR with
 *	REMOTE_WRITE, else the READ fails with a local protection error.
 * @merges_pages: simulated HCA: physically contiguous pages share one
 *	page-list entry, so an MR holds more pages than max_num_sg when
 *	they touch (siw).
 * @checks_remote_read_access: simulated HCA: the responder checks the
 *	rights of the key a peer READs through.  siw 6.12 does not
 *	(siw_qp_tx.c: siw_check_sgl_tx(pd, wqe, 0)): any valid key of the PD
 *	reads, the PD's DMA lkey included; validity, PD and bounds are still
 *	checked.
 * @random_mr_index: simulated HCA: a new MR's index is the first free one
 *	from a random start among 2^24, its key byte 0 (siw 6.12, siw_mem.c);
 *	else the next free one after the last given, cyclically over 2^19,
 *	as rxe's pool allocates.
 */
struct mrcore_profile_limits {
	const char *name;
	bool iwarp;
	int max_send_sge;
	int max_sge_rd;
	u32 max_fast_reg_page_list_len;
	bool mem_mgt_extensions;
	u32 fmr_max_pages;
	enum rdma_driver_id driver_id;
	bool dma_lkey_read_sink;
	bool merges_pages;
	bool checks_remote_read_access;
	bool random_mr_index;
};

#ifdef __cplusplus
extern "C" {
#endif
extern const struct mrcore_profile_limits mrcore_profiles[MRCORE_PROFILE_COUNT];
#ifdef __cplusplus
}
#endif

/**
 * mrcore_profile_mr_pages() - pages one MR of a profile can map
 * @p: the profile.
 *
 * Return: the FMR callbacks' limit if the profile has them, else the fast
 * registration page list's (0 for a device with neither).
 */
static inline u32
mrcore_profile_mr_pages(const struct mrcore_profile_limits *p)
{
	return p->fmr_max_pages ? p->fmr_max_pages :
				  p->max_fast_reg_page_list_len;
}

/*
 * The table itself, in the one file of each layer that defines
 * MRCORE_PROFILES_DEFINE first (kunit/harness/fake_dev.c, mirror/sim/profiles.c).
 */
#ifdef MRCORE_PROFILES_DEFINE
const struct mrcore_profile_limits mrcore_profiles[MRCORE_PROFILE_COUNT] = {
	[MRCORE_PROFILE_ROCE] = {
		.name = "roce",
		.max_send_sge = 32,
		.max_sge_rd = 32,
		.max_fast_reg_page_list_len = 512,
		.mem_mgt_extensions = true,
		.checks_remote_read_access = true,
	},
	[MRCORE_PROFILE_IWARP] = {
		.name = "iwarp",
		.iwarp = true,
		.max_send_sge = 6,
		.max_sge_rd = 1,
		.max_fast_reg_page_list_len = 256,
		.mem_mgt_extensions = true,
		.checks_remote_read_access = true,
	},
	[MRCORE_PROFILE_FMR] = {
		.name = "fmr",
		.max_send_sge = 30,
		.max_sge_rd = 30,
		.fmr_max_pages = 256,
		.checks_remote_read_access = true,
	},
	[MRCORE_PROFILE_SIW] = {
		.name = "siw",
		.iwarp = true,
		.max_send_sge = 6,
		.max_sge_rd = 1,
		.max_fast_reg_page_list_len = 256,
		.mem_mgt_extensions = true,
		.driver_id = RDMA_DRIVER_SIW,
		.dma_lkey_read_sink = true,
		.merges_pages = true,
		.random_mr_index = true,
	},
	[MRCORE_PROFILE_NOFASTREG] = {
		.name = "nofastreg",
		.max_send_sge = 16,
		.max_sge_rd = 16,
		.checks_remote_read_access = true,
	},
};
#endif

#endif /* _MRCORE_PROFILES_H */
