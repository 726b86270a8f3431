/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `make demo`: the rows of the ULP adapters (demo_ulp.c), called by demo.c
 * for each device kind.
 */
#ifndef _MRCORE_DEMO_ULP_H
#define _MRCORE_DEMO_ULP_H

#include "mrcore_harness.h"

unsigned int demo_ulp_run(const struct mrcore_e2e_target *t,
			  const char *transport);

#endif /* _MRCORE_DEMO_ULP_H */
