/*
 * hostctr_win — the host's and a device's counters on Windows (hostctr.h):
 * none yet. Every sample has no group (have 0), so a run on Windows stores
 * no counters and says nothing about them. The fields are meant to be
 * filled later from PDH (\Processor(*)\% User Time, % Privileged Time,
 * % Interrupt Time, % DPC Time; \Memory\Cache Bytes, Modified Page List
 * Bytes) and IOCTL_DISK_PERFORMANCE (reads, writes, bytes, queue depth,
 * idle time) on the volume's disk.
 */
#include "hostctr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hostctr {
	int unused;
};

int hostctr_open(const char *disk, struct hostctr **out)
{
	(void)disk;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void hostctr_mark(struct hostctr *h, unsigned mark)
{
	(void)h;
	(void)mark;
}

void hostctr_diff(const struct hostctr *h, unsigned from, unsigned to,
		  struct hostctr_sample *out)
{
	(void)h;
	(void)from;
	(void)to;
	memset(out, 0, sizeof(*out));
	out->core = -1;
}

void hostctr_close(struct hostctr *h)
{
	free(h);
}
