/*
 * probe_linux — a snapshot of the machine, the filesystem and the block device
 * behind a path (see probe.h for the fields and their sources).
 *
 * Design: probe_path() first resolves the path (realpath, stat, statvfs); a
 * failure there is the only error it returns. Everything after that is best
 * effort: each source fills its own fields and leaves the rest at "unknown"
 * ("" or -1), so one missing file in /proc or /sys never hides the others.
 *
 * The mount is the line of /proc/self/mountinfo whose mount point is the
 * longest prefix of the real path, on a component boundary ("/dev" holds
 * "/dev/x", not "/devices"), among the lines carrying the path's st_dev. Of
 * equal candidates the later line wins, since a later mount on the same point
 * hides the earlier one. When no line carries st_dev (files in a btrfs
 * subvolume report an anonymous device) the longest prefix alone decides.
 *
 * The block device is /sys/dev/block/MAJ:MIN for st_dev or, failing that,
 * for the st_rdev of the mount source. A partition's directory holds a
 * `partition` file and sits inside its whole disk's directory, so the disk is
 * the parent. Device-mapper, loop, md and the like are whole devices already;
 * their attributes are read where they exist.
 *
 * Invariant: a string that does not fit its field is left "" rather than cut
 * short; a truncated option list would read as a different configuration.
 */
#include "probe.h"

#include <blkid/blkid.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Not part of probe.h: exported for tests/unit/test_probe.c only. */
void probe_unescape(char *s);
int probe_mountinfo_match(FILE *mountinfo, const char *real_path,
			  unsigned int maj, unsigned int min, struct probe *p);
void probe_sysfs_block(const char *dir, struct probe *p);

/* Copies src into dst[n]. On truncation dst is "" and -ENAMETOOLONG. */
static int set_str(char *dst, size_t n, const char *src)
{
	int len = snprintf(dst, n, "%s", src);

	if (len < 0 || (size_t)len >= n) {
		dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Builds "dir/name" into out[n]. Returns 0 or -ENAMETOOLONG. */
static int join_path(char *out, size_t n, const char *dir, const char *name)
{
	int len = snprintf(out, n, "%s/%s", dir, name);

	return (len < 0 || (size_t)len >= n) ? -ENAMETOOLONG : 0;
}

/* Strips leading and trailing whitespace in place; returns the new start. */
static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return s;
}

/*
 * Reads the first line of a small file (a sysfs attribute) into buf[n],
 * trimmed. Returns 0 or a negative errno; buf is "" on any failure.
 */
static int read_attr(const char *path, char *buf, size_t n)
{
	char line[512];
	FILE *f = NULL;
	int rc;

	buf[0] = '\0';
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		goto out;
	}
	if (!fgets(line, sizeof(line), f)) {
		rc = ferror(f) ? -EIO : -ENODATA;
		goto out;
	}
	rc = set_str(buf, n, trim(line));
out:
	if (f)
		fclose(f);
	return rc;
}

/*
 * Decodes mountinfo's octal escapes in place: \040 space, \011 tab, \012
 * newline, \134 backslash (any \ooo up to \377). Other text is kept as is.
 */
void probe_unescape(char *s)
{
	char *w = s;
	const char *r = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
		    r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)(((r[1] - '0') << 6) |
				      ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Splits off the next space-separated field of *cur; NULL at end of line. */
static char *next_field(char **cur)
{
	char *s = *cur, *start;

	while (*s == ' ')
		s++;
	if (*s == '\0' || *s == '\n')
		return NULL;
	start = s;
	while (*s && *s != ' ' && *s != '\n')
		s++;
	if (*s)
		*s++ = '\0';
	*cur = s;
	return start;
}

/* Parses "MAJ:MIN". Returns 0 or -EINVAL. */
static int parse_devno(const char *s, unsigned int *maj, unsigned int *min)
{
	unsigned long long a, b;
	char *end;

	errno = 0;
	a = strtoull(s, &end, 10);
	if (errno || end == s || *end != ':')
		return -EINVAL;
	s = end + 1;
	b = strtoull(s, &end, 10);
	if (errno || end == s || *end != '\0' || a > UINT_MAX || b > UINT_MAX)
		return -EINVAL;
	*maj = (unsigned int)a;
	*min = (unsigned int)b;
	return 0;
}

/* Length of mount point mp if it holds path, else 0 ("/" gives 1). */
static size_t prefix_len(const char *mp, const char *path)
{
	size_t len = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (len == 0 || strncmp(mp, path, len) != 0)
		return 0;
	return (path[len] == '\0' || path[len] == '/') ? len : 0;
}

/* Is opt (len bytes) one of the comma-separated options in list? */
static int has_option(const char *list, const char *opt, size_t len)
{
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == len && strncmp(p, opt, len) == 0)
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

/*
 * dst = the per-mount options, then each super-block option not already
 * there ("rw" appears in both lists). Returns 0, or -ENOSPC if dst is short.
 */
static int join_options(char *dst, size_t size, const char *mnt,
			const char *super)
{
	size_t n = (size_t)snprintf(dst, size, "%s", mnt);

	if (n >= size)
		return -ENOSPC;
	for (const char *p = super; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l && !has_option(dst, p, l)) {
			if (n + 1 + l >= size)
				return -ENOSPC;
			if (n)
				dst[n++] = ',';
			memcpy(dst + n, p, l);
			n += l;
			dst[n] = '\0';
		}
		p += l + (p[l] == ',');
	}
	return 0;
}

/*
 * Reads mountinfo lines from the stream and fills fs_type, mount_point,
 * mount_options and device of *p from the mount holding real_path (an
 * absolute path without symlinks) on device maj:min, chosen as the file
 * header describes. Returns 0, or -ENOENT when no mount holds the path
 * (*p untouched then).
 */
int probe_mountinfo_match(FILE *mountinfo, const char *real_path,
			  unsigned int maj, unsigned int min, struct probe *p)
{
	char *line = NULL;
	size_t cap = 0, best_len = 0;
	int best_dev = 0, rc = -ENOENT;

	while (getline(&line, &cap, mountinfo) != -1) {
		/* id parent maj:min root point opts [tags] - type src super */
		char *cur = line, *f[6], *sep, *type, *src, *super;
		unsigned int lmaj, lmin;
		size_t len;
		int i, dev_ok, n;

		for (i = 0; i < 6 && (f[i] = next_field(&cur)); i++)
			;
		if (i < 6)
			continue;
		do
			sep = next_field(&cur);
		while (sep && strcmp(sep, "-") != 0);
		type = sep ? next_field(&cur) : NULL;
		src = type ? next_field(&cur) : NULL;
		super = src ? next_field(&cur) : NULL;
		if (!src || parse_devno(f[2], &lmaj, &lmin) != 0)
			continue;
		probe_unescape(f[4]);
		len = prefix_len(f[4], real_path);
		dev_ok = lmaj == maj && lmin == min;
		if (len == 0 || (best_dev && !dev_ok) ||
		    (dev_ok == best_dev && len < best_len))
			continue;
		best_len = len;
		best_dev = dev_ok;
		rc = 0;
		probe_unescape(type);
		probe_unescape(src);
		probe_unescape(f[5]);
		(void)set_str(p->fs_type, sizeof(p->fs_type), type);
		(void)set_str(p->mount_point, sizeof(p->mount_point), f[4]);
		(void)set_str(p->device, sizeof(p->device),
			      strcmp(src, "none") == 0 ? "" : src);
		if (super)
			probe_unescape(super);
		n = join_options(p->mount_options, sizeof(p->mount_options),
				 f[5], super);
		if (n < 0)
			p->mount_options[0] = '\0';
	}
	free(line);
	return rc;
}

/* The scheduler in use from the queue/scheduler attribute at path: the
 * bracketed one of "none [mq-deadline] kyber", or the only one named
 * ("none" on a queue that offers no choice). */
static void probe_scheduler(const char *path, struct probe *p)
{
	char line[256], *open, *close;

	if (read_attr(path, line, sizeof(line)) != 0)
		return;
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		(void)set_str(p->scheduler, sizeof(p->scheduler), open + 1);
	} else if (line[0] && !strchr(line, ' ')) {
		(void)set_str(p->scheduler, sizeof(p->scheduler), line);
	}
}

/*
 * Fills disk, device_model, firmware_rev, rotational, write_cache and
 * scheduler from dir, the sysfs
 * directory of a block device with symlinks resolved. A partition's directory
 * is replaced by its parent, the whole disk. Missing attributes stay unknown.
 */
void probe_sysfs_block(const char *dir, struct probe *p)
{
	char disk[PATH_MAX], attr[PATH_MAX], val[16];
	char *slash;

	if (set_str(disk, sizeof(disk), dir) != 0)
		return;
	slash = strrchr(disk, '/');
	if (join_path(attr, sizeof(attr), disk, "partition") == 0 &&
	    access(attr, F_OK) == 0 && slash && slash != disk)
		*slash = '\0';
	slash = strrchr(disk, '/');
	(void)set_str(p->disk, sizeof(p->disk), slash ? slash + 1 : disk);
	if (join_path(attr, sizeof(attr), disk, "device/model") == 0)
		(void)read_attr(attr, p->device_model, sizeof(p->device_model));
	if (join_path(attr, sizeof(attr), disk, "queue/rotational") == 0 &&
	    read_attr(attr, val, sizeof(val)) == 0)
		p->rotational = (val[0] == '0' || val[0] == '1') && !val[1]
					? val[0] - '0'
					: -1;
	if (join_path(attr, sizeof(attr), disk, "queue/write_cache") == 0)
		(void)read_attr(attr, p->write_cache, sizeof(p->write_cache));
	/* NVMe names it firmware_rev, SCSI and SATA (libata) rev */
	if (join_path(attr, sizeof(attr), disk, "device/firmware_rev") != 0 ||
	    read_attr(attr, p->firmware_rev, sizeof(p->firmware_rev)) != 0)
		if (join_path(attr, sizeof(attr), disk, "device/rev") == 0)
			(void)read_attr(attr, p->firmware_rev,
					sizeof(p->firmware_rev));
	if (join_path(attr, sizeof(attr), disk, "queue/scheduler") == 0)
		probe_scheduler(attr, p);
}

/*
 * Fills the block-device fields for device maj:min through /sys/dev/block.
 * Returns 0, or a negative errno when the device has no sysfs entry (*p
 * untouched then).
 */
static int probe_block(unsigned int maj, unsigned int min, struct probe *p)
{
	char link[64];
	char *dir = NULL;
	int rc, n;

	n = snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	if (n < 0 || (size_t)n >= sizeof(link)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	dir = realpath(link, NULL);
	if (!dir) {
		rc = -errno;
		goto out;
	}
	probe_sysfs_block(dir, p);
	rc = 0;
out:
	free(dir);
	return rc;
}

/* Fills cpu_model from the first "model name" of /proc/cpuinfo. */
static int probe_cpu_model(struct probe *p)
{
	char *line = NULL, *colon;
	size_t cap = 0;
	FILE *f = NULL;
	int rc = -ENOENT;

	f = fopen("/proc/cpuinfo", "re");
	if (!f) {
		rc = -errno;
		goto out;
	}
	while (getline(&line, &cap, f) != -1) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (strcmp(trim(line), "model name") != 0)
			continue;
		rc = set_str(p->cpu_model, sizeof(p->cpu_model),
			     trim(colon + 1));
		break;
	}
out:
	free(line);
	if (f)
		fclose(f);
	return rc;
}

/* See probe.h. On error *p holds only unknowns ("" and -1). */
int probe_path(const char *path, struct probe *p)
{
	struct utsname uts;
	struct statvfs vfs;
	struct stat st, dev_st;
	char *real = NULL;
	FILE *mi = NULL;
	long cpus, pages, page_size;
	int rc;

	if (!path || !p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->fs_block_size = p->free_bytes = p->total_bytes = -1;
	p->memory_bytes = -1;
	p->rotational = p->cpus = -1;
	p->smb_signing = p->smb_encryption = p->smb_ca = -1;

	real = realpath(path, NULL);
	if (!real) {
		rc = -errno;
		goto out;
	}
	if (stat(real, &st) != 0 || statvfs(real, &vfs) != 0) {
		rc = -errno;
		goto out;
	}
	p->fs_block_size = (int64_t)vfs.f_bsize;
	p->free_bytes = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
	p->total_bytes = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;

	if (uname(&uts) == 0) {
		(void)set_str(p->hostname, sizeof(p->hostname), uts.nodename);
		(void)set_str(p->kernel, sizeof(p->kernel), uts.release);
	}

	mi = fopen("/proc/self/mountinfo", "re");
	if (mi)
		(void)probe_mountinfo_match(mi, real, major(st.st_dev),
					    minor(st.st_dev), p);
	if (probe_block(major(st.st_dev), minor(st.st_dev), p) != 0 &&
	    strncmp(p->device, "/dev/", 5) == 0 &&
	    stat(p->device, &dev_st) == 0 && S_ISBLK(dev_st.st_mode))
		(void)probe_block(major(dev_st.st_rdev), minor(dev_st.st_rdev),
				  p);

	/* ntfs-3g and other FUSE block filesystems show as "fuseblk": ask
	 * the device what it holds */
	if (strcmp(p->fs_type, "fuseblk") == 0 &&
	    strncmp(p->device, "/dev/", 5) == 0) {
		char *t = blkid_get_tag_value(NULL, "TYPE", p->device);
		if (t && *t) {
			set_str(p->mount_type, sizeof(p->mount_type),
				p->fs_type);
			set_str(p->fs_type, sizeof(p->fs_type), t);
		}
		free(t);
	}
	(void)probe_cpu_model(p);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > 0)
		p->cpus = cpus > INT_MAX ? INT_MAX : (int)cpus;
	pages = sysconf(_SC_PHYS_PAGES);
	page_size = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page_size > 0)
		p->memory_bytes = (int64_t)pages * (int64_t)page_size;
	rc = 0;
out:
	if (mi)
		fclose(mi);
	free(real);
	return rc;
}

/* See probe.h. *free_bytes is untouched on error. */
int probe_space(const char *path, int64_t *free_bytes, int64_t *total_bytes)
{
	struct statvfs vfs;

	if (!path || !free_bytes || !total_bytes)
		return -EINVAL;
	if (statvfs(path, &vfs) != 0)
		return -errno;
	*free_bytes = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
	*total_bytes = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;
	return 0;
}

/* OpenZFS's statfs magic (not in <linux/magic.h>: ZFS is out of tree) */
#define PROBE_ZFS_MAGIC 0x2fc12fc1

/*
 * See probe.h. btrfs copies every file on write unless it carries the
 * NOCOW attribute (FS_NOCOW_FL: chattr +C, inherited from its directory
 * when the file is made; a nodatacow mount gives it to every new file);
 * ZFS always does. Other copy-on-write designs (bcachefs, XFS's shared
 * extents after a reflink) are NONE: not asked.
 */
enum probe_cow probe_file_cow(const char *path, const char **fs)
{
	enum probe_cow c = PROBE_COW_NONE;
	const char *name = NULL;
	struct statfs sf;
	int fd, flags = 0;

	if (fs)
		*fs = NULL;
	fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
		  : -1;
	if (fd < 0)
		return PROBE_COW_NONE;
	if (fstatfs(fd, &sf) != 0)
		sf.f_type = 0;
	if ((unsigned long)sf.f_type == (unsigned long)BTRFS_SUPER_MAGIC &&
	    ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		c = flags & FS_NOCOW_FL ? PROBE_COW_OFF : PROBE_COW_ON;
		name = "btrfs";
	} else if ((unsigned long)sf.f_type == (unsigned long)PROBE_ZFS_MAGIC) {
		c = PROBE_COW_ON;
		name = "zfs";
	}
	close(fd);
	if (fs)
		*fs = name;
	return c;
}

int probe_local(const char *target, struct probe *p)
{
	struct stat st;
	int rc;

	if (!target || stat(target, &st) != 0 || !S_ISBLK(st.st_mode)) {
		/* a directory: what the job's files will inherit (the run
		 * says what its test file did, jobcow.c) */
		if ((rc = probe_path(target, p)) == 0)
			probe_set_cow(p, probe_file_cow(target, NULL));
		return rc;
	}
	/* a raw device: this machine, and the device itself in place of a
	 * filesystem (not the /dev it sits in) */
	if ((rc = probe_path("/", p)) < 0)
		return rc;
	snprintf(p->fs_type, sizeof(p->fs_type), "raw");
	(void)set_str(p->mount_point, sizeof(p->mount_point), target);
	(void)set_str(p->device, sizeof(p->device), target);
	p->mount_options[0] = p->disk[0] = '\0';
	p->device_model[0] = p->write_cache[0] = '\0';
	p->firmware_rev[0] = p->scheduler[0] = '\0';
	p->rotational = -1;
	p->mount_type[0] = '\0';
	p->free_bytes = 0;
	p->total_bytes = 0;
	/* the device itself: its disk (a partition's), model, cache */
	(void)probe_block(major(st.st_rdev), minor(st.st_rdev), p);
	return 0;
}
