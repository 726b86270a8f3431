/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device profiles shared by the case tables, the KUnit fake devices and the
 * userspace mirror's simulated HCA:
 *   roce  (like rxe): 32 SGEs per READ and WRITE, 512 pages per MR
 *   iwarp (like siw): 1 SGE per READ, 6 per WRITE, 256 pages per MR
 *   fmr   (a legacy IB HCA with FMR callbacks): 30 SGEs, 256 pages per MR
 */
#ifndef _MRCORE_PROFILES_H
#define _MRCORE_PROFILES_H

enum mrcore_profile {
	MRCORE_PROFILE_ROCE,
	MRCORE_PROFILE_IWARP,
	MRCORE_PROFILE_FMR,
};

#endif /* _MRCORE_PROFILES_H */
