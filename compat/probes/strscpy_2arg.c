// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRCORE_HAVE_STRSCPY_2ARG: strscpy(dst, src) with the size taken from the
 * array (6.8+); 6.1 needs strscpy(dst, src, sizeof(dst)).
 */
#include <linux/string.h>

ssize_t mrcore_probe(const char *src);
ssize_t mrcore_probe(const char *src)
{
	char buf[16];

	return strscpy(buf, src);
}
