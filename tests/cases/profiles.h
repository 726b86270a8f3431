/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device profiles shared by the case tables, the KUnit fake devices and the
 * userspace mirror's simulated HCA:
 *   roce  (like rxe): 32 SGEs per READ and WRITE, 512 pages per MR
 *   iwarp (siw's limits, iWARP's rules): 1 SGE per READ, 6 per WRITE,
 *	   256 pages per MR; a READ sink must be an MR with REMOTE_WRITE
 *   siw   (siw 6.12): iwarp's limits, and siw's quirks: it takes the PD's
 *	   DMA lkey as a READ sink and does not check the access rights of
 *	   incoming READs (the core's device quirk table knows it as siw)
 *   fmr   (a legacy IB HCA with FMR callbacks): 30 SGEs, 256 pages per MR
 */
#ifndef _MRCORE_PROFILES_H
#define _MRCORE_PROFILES_H

enum mrcore_profile {
	MRCORE_PROFILE_ROCE,
	MRCORE_PROFILE_IWARP,
	MRCORE_PROFILE_FMR,
	MRCORE_PROFILE_SIW,
};

#endif /* _MRCORE_PROFILES_H */
