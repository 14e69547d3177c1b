/*
 * lfile — the parts of lfile.h that are the same on every system: the
 * probe and free space of a local target (probe.h), the check of a
 * directory with its sentences, and lfile_make, which picks the system's
 * way to make a file by op and times it alone.
 */
#include "lfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "os/os.h"

int lfile_probe(const char *target, const void *session, struct probe *p)
{
	(void)session;
	return probe_local(target, p);
}

int lfile_space(const char *path, const void *session, int64_t *free_bytes,
		int64_t *total_bytes)
{
	(void)session;
	return probe_space(path, free_bytes, total_bytes);
}

int lfile_check_dir(const char *dir, const void *session, struct tgt_check *c)
{
	int64_t free_bytes, total_bytes;
	char detail[200];
	int rc, has_detail;

	(void)session;
	c->blame = TGT_BLAME_PATH;
	if ((rc = lfile_dir_kind(dir)) == -ENOTDIR) {
		snprintf(c->why, sizeof(c->why),
			 "%s is not a directory (storbench creates its own "
			 "test file inside a directory and never writes to an "
			 "existing file)",
			 dir);
		return rc;
	}
	if (rc < 0) {
		has_detail = os_error_detail(detail, sizeof(detail));
		snprintf(c->why, sizeof(c->why), "%s: %s%s%s%s", dir,
			 strerror(-rc), has_detail ? " (" : "",
			 has_detail ? detail : "", has_detail ? ")" : "");
		return rc;
	}
	if (probe_space(dir, &free_bytes, &total_bytes) == 0 &&
	    total_bytes == 0) {
		snprintf(c->why, sizeof(c->why),
			 "%s is on a filesystem without storage (proc, sysfs "
			 "…)",
			 dir);
		return -EINVAL;
	}
	if ((rc = lfile_dir_writable(dir)) < 0) {
		has_detail = os_error_detail(detail, sizeof(detail));
		snprintf(c->why, sizeof(c->why), "%s is not writable%s%s", dir,
			 has_detail ? ": " : "", has_detail ? detail : "");
		return rc;
	}
	return 0;
}

int lfile_make(const struct tgt_open_args *dst, enum tgt_file_op op,
	       const char *src, uint64_t size, double *secs)
{
	uint64_t t0 = os_now_ns();
	int rc;

	switch (op) {
	case TGT_FILE_PREALLOCATE:
	case TGT_FILE_SPARSE:
		rc = lfile_create_sized(dst->path, size, op == TGT_FILE_SPARSE);
		break;
	case TGT_FILE_CLONE:
	case TGT_FILE_COPY_OFFLOAD:
	case TGT_FILE_COPY_RW:
		rc = src ? lfile_copy_file(src, dst->path, op, size) : -EINVAL;
		break;
	case TGT_FILE_VHDX_FIXED:
		rc = lfile_create_vhdx(dst->path, size);
		break;
	default:
		rc = -EOPNOTSUPP;
	}
	*secs = (double)(os_now_ns() - t0) / 1e9;
	return rc;
}
