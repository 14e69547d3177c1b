/*
 * discard — the SNIA PTS purge where the system allows it: the device told
 * that a range of a raw block device holds nothing (Linux: BLKDISCARD,
 * TRIM/UNMAP), so an SSD's next writes start as on a fresh drive (FOB).
 * One implementation per system (discard_linux.c, discard_win.c).
 */
#ifndef STORBENCH_DISCARD_H
#define STORBENCH_DISCARD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Discards bytes [offset, offset + len) of raw block device path (opened
 * for writing beside the job's hold). 0; -EOPNOTSUPP when the device or
 * the system cannot, or another negative errno, with a sentence in why.
 */
int discard_device(const char *path, uint64_t offset, uint64_t len, char *why,
		   size_t why_len);

#endif
