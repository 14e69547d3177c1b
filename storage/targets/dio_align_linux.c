/*
 * dio_align_linux — what a file's direct I/O needs, from
 * statx(STATX_DIOALIGN) (Linux 6.1+): lfile_dio_align (lfile.h). Kept apart
 * from lfile_linux.c because the kernel's struct statx, which has the field,
 * clashes with glibc 2.36's <sys/stat.h>, which does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lfile.h"

int lfile_dio_align(const char *path, uint32_t *offset_align,
		    uint32_t *mem_align)
{
	struct statx sx;

	memset(&sx, 0, sizeof(sx));
	*offset_align = *mem_align = 0;
	if (syscall(SYS_statx, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW,
		    STATX_DIOALIGN, &sx) != 0)
		return -errno;
	if (!(sx.stx_mask & STATX_DIOALIGN))
		return -EOPNOTSUPP;
	*offset_align = sx.stx_dio_offset_align;
	*mem_align = sx.stx_dio_mem_align;
	return 0;
}
