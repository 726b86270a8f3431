/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the end-to-end suites share on top of the harness: the init of the
 * suites that run on one device kind (the kind must be registered, and the
 * test's priv points at its target), and the data check.
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

/**
 * mrcore_e2e_expect_data() - expect a range of a buffer to hold its bytes
 * @test: the test.
 * @buf: the buffer.
 * @start: first data byte of the range.
 * @len: bytes in the range.
 * @seed: the pattern it holds, or %MRCORE_E2E_POISONED if no I/O may have
 *	written it.
 * @what: which buffer and when, for the failure message.
 *
 * mrcore_e2e_buf_verify() under KUnit: the range byte for byte, the poison
 * on both sides of it and the guard bytes around the data.
 *
 * Context: A KUnit test.
 * Return: true if all is right; else the test has failed with a message
 * naming the first wrong byte.
 */
static inline bool mrcore_e2e_expect_data(struct kunit *test,
					  struct mrcore_e2e_buf *buf,
					  size_t start, size_t len, u32 seed,
					  const char *what)
{
	struct mrcore_e2e_diff d;
	bool ok = mrcore_e2e_buf_verify(buf, start, len, seed, &d);

	KUNIT_EXPECT_TRUE_MSG(test, ok,
			      "%s: bytes [%zu, %zu) of %zu (%s): %llu wrong; the first at %lld (%s): 0x%02x, want 0x%02x",
			      what, start, start + len, buf->len,
			      seed == MRCORE_E2E_POISONED ? "poison" :
							    "pattern",
			      d.bad, d.pos, d.what, d.got, d.want);
	return ok;
}

#endif /* _MRCORE_E2E_SUITE_H */
