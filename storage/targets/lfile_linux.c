/*
 * lfile_linux — lfile.h on Linux: open(2) with O_NOFOLLOW and O_DIRECT
 * asked for with fcntl (so a filesystem that refuses it leaves the file
 * buffered), pread/pwrite, fdatasync, fallocate, and the file-create
 * operations: fallocate, ftruncate (sparse), FICLONE (reflink),
 * copy_file_range (the kernel copies, and may offload or share) and a plain
 * read/write copy 1 MiB at a time — each followed by fsync, each timed
 * alone.
 */
#include "lfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"

#define COPY_CHUNK (1U << 20)

int lfile_open(const struct tgt_open_args *args, struct lfile *f, int *direct)
{
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC;
	int fd, fl, rc;

	*direct = 0;
	f->h = -1;
	if (args->create)
		flags |= O_CREAT | O_EXCL;
	if (args->dsync)
		flags |= O_DSYNC;
	fd = open(args->path, flags, 0600);
	if (fd < 0)
		return -errno;
	if (args->direct) {
		fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && fcntl(fd, F_SETFL, fl | O_DIRECT) == 0) {
			*direct = 1;
		} else if (errno != EINVAL) {
			rc = -errno;
			close(fd);
			if (args->create)
				unlink(args->path);
			return rc;
		}
	}
	f->h = fd;
	return 0;
}

void lfile_close(struct lfile *f)
{
	if (f->h >= 0)
		close((int)f->h);
	f->h = -1;
}

int64_t lfile_transfer(const struct lfile *f, struct tgt_io *io)
{
	int fd = (int)f->h;
	uint64_t off = 0;

	while (off < io->len) {
		ssize_t n = io->write ? pwrite(fd, (char *)io->buf + off,
					       io->len - off,
					       (off_t)(io->offset + off))
				      : pread(fd, (char *)io->buf + off,
					      io->len - off,
					      (off_t)(io->offset + off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break; /* end of file or a full disk: a short transfer
				*/
		off += (uint64_t)n;
	}
	return (int64_t)off;
}

int lfile_tgt_fsync(void *ctx)
{
	const struct lfile *f = ctx;

	return fdatasync((int)f->h) == 0 ? 0 : -errno;
}

int lfile_tgt_preallocate(void *ctx, uint64_t size)
{
	const struct lfile *f = ctx;

	return fallocate((int)f->h, 0, 0, (off_t)size) == 0 ? 0 : -errno;
}

int lfile_unlink(const char *path, const void *session)
{
	(void)session;
	return unlink(path) == 0 ? 0 : -errno;
}

int lfile_dir_kind(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int lfile_dir_writable(const char *dir)
{
	return access(dir, W_OK | X_OK) == 0 ? 0 : -EACCES;
}

int lfile_allocated(const char *path, const void *session, int64_t *bytes)
{
	struct stat st;

	(void)session;
	if (stat(path, &st) != 0)
		return -errno;
	*bytes = (int64_t)st.st_blocks * 512;
	return 0;
}

/* Opens a new file (O_EXCL: never an existing one). */
static int open_new(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	return fd < 0 ? -errno : fd;
}

/* fallocate or ftruncate a new file, then fsync. */
int lfile_create_sized(const char *path, uint64_t size, int sparse)
{
	int fd = open_new(path), rc = 0;

	if (fd < 0)
		return fd;
	if ((sparse ? ftruncate(fd, (off_t)size)
		    : fallocate(fd, 0, 0, (off_t)size)) != 0 ||
	    fsync(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* The copy loop of one method on open files. */
static int copy_data(int in, int out, enum tgt_file_op op, uint64_t size)
{
	uint64_t done = 0;
	char *buf;
	int rc = 0;

	if (op == TGT_FILE_CLONE)
		return ioctl(out, FICLONE, in) == 0 ? 0 : -errno;
	if (op == TGT_FILE_COPY_OFFLOAD) {
		while (done < size) {
			ssize_t n = copy_file_range(in, NULL, out, NULL,
						    size - done, 0);
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			done += (uint64_t)n;
		}
		return 0;
	}
	if (!(buf = malloc(COPY_CHUNK)))
		return -ENOMEM;
	while (done < size && rc == 0) {
		ssize_t n = read(in, buf, COPY_CHUNK), w = 0;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		while (w < n && rc == 0) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));
			if (k < 0)
				rc = -errno;
			else
				w += k;
		}
		done += (uint64_t)n;
	}
	free(buf);
	return rc;
}

/* A copy of src's first size bytes into the new file dst, then fsync. */
int lfile_copy_file(const char *src, const char *dst, enum tgt_file_op op,
		    uint64_t size)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out, rc;

	if (in < 0)
		return -errno;
	if ((out = open_new(dst)) < 0) {
		close(in);
		return out;
	}
	rc = copy_data(in, out, op, size);
	if (rc == 0 && fsync(out) != 0)
		rc = -errno;
	close(in);
	close(out);
	return rc;
}

int lfile_create_vhdx(const char *path, uint64_t size)
{
	(void)path;
	(void)size;
	return -EOPNOTSUPP; /* a Hyper-V disk: Windows' Virtual Disk API */
}
