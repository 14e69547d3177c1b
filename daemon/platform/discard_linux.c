/*
 * discard_linux — BLKDISCARD on a raw block device (discard.h).
 */
#include "discard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int discard_device(const char *path, uint64_t offset, uint64_t len, char *why,
		   size_t why_len)
{
	uint64_t range[2] = { offset, len };
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "opening %s to discard failed: %s", path,
			 strerror(-rc));
		return rc;
	}
	if (ioctl(fd, BLKDISCARD, range) < 0) {
		rc = errno == EINVAL || errno == ENOTTY ? -EOPNOTSUPP : -errno;
		snprintf(why, why_len, "%s does not take a discard: %s", path,
			 strerror(errno));
	}
	close(fd);
	return rc;
}
