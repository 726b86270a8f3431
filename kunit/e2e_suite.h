/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The init of the end-to-end suites that run on one device kind: the kind
 * must be registered, and the test's priv points at its target.
 */
#ifndef _MRCORE_E2E_SUITE_H
#define _MRCORE_E2E_SUITE_H

#include <kunit/test.h>

#include "mrcore_harness.h"

static inline int mrcore_e2e_suite_init(struct kunit *test,
					const struct mrcore_e2e_target *t)
{
	if (!mrcore_e2e_device_present(t, NULL, 0)) {
		kunit_err(test, "no %s device registered\n", t->name);
		return -ENODEV;
	}
	test->priv = (void *)t;
	return 0;
}

static inline int mrcore_e2e_siw_suite_init(struct kunit *test)
{
	return mrcore_e2e_suite_init(test, &mrcore_e2e_siw);
}

static inline int mrcore_e2e_rxe_suite_init(struct kunit *test)
{
	return mrcore_e2e_suite_init(test, &mrcore_e2e_rxe);
}

#endif /* _MRCORE_E2E_SUITE_H */
