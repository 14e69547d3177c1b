/*
 * discard_win — no purge on Windows (discard.h): raw devices are not
 * targets there.
 */
#include "discard.h"

#include <errno.h>
#include <stdio.h>

int discard_device(const char *path, uint64_t offset, uint64_t len, char *why,
		   size_t why_len)
{
	(void)offset;
	(void)len;
	snprintf(why, why_len,
		 "%s cannot be discarded: storbench.exe has no purge", path);
	return -EOPNOTSUPP;
}
