/*
 * lfile — what every back-end on local files shares (io_uring, psync, and
 * the null back-end's probe): opening a test file, flushing, preallocating,
 * removing it, its direct-I/O alignment, one blocking transfer, the
 * file-create operations and the probe of a local target. One
 * implementation per operating system (lfile_linux.c with
 * dio_align_linux.c; lfile_win.c with lfile_make_win.c and
 * dio_align_win.c) and what is the same on both (lfile.c); the back-ends
 * call it and it calls none of them.
 *
 * A local back-end's ctx starts with a struct lfile (SQLite's "first
 * member" rule), so lfile_tgt_fsync and lfile_tgt_preallocate serve as its
 * fsync and preallocate operations.
 */
#ifndef STORBENCH_LFILE_H
#define STORBENCH_LFILE_H

#include <stdint.h>

#include "target.h"

/* An open local file: a descriptor (Linux) or a HANDLE (Windows), or -1
 * when none. */
struct lfile {
	intptr_t h;
};

/*
 * Opens args->path read-write without following a symlink (plus
 * O_CREAT|O_EXCL when args->create, mode 0600, and O_DSYNC when
 * args->dsync), then asks for direct I/O when args->direct. A filesystem
 * that refuses direct I/O (tmpfs, FUSE) leaves the file buffered and
 * *direct = 0. Returns 0 with f->h set, or a negative errno; on failure
 * nothing is left open and a file this call created is removed.
 */
int lfile_open(const struct tgt_open_args *args, struct lfile *f, int *direct);
void lfile_close(struct lfile *f);

/* One whole transfer of io at io->offset, looping over short transfers and
 * EINTR: bytes moved (short at end of file or on a full disk) or a negative
 * errno. */
int64_t lfile_transfer(const struct lfile *f, struct tgt_io *io);

/* tgt_ops.fsync (fdatasync) and .preallocate (fallocate) for a ctx that
 * starts with a struct lfile. */
int lfile_tgt_fsync(void *ctx);
int lfile_tgt_preallocate(void *ctx, uint64_t size);

/* tgt_ops.unlink, .probe, .check_dir, .space, .dio_align, .make_file and
 * .allocated for local files (the session is ignored). probe: probe_local
 * (probe.h); space: probe_space. */
int lfile_unlink(const char *path, const void *session);
int lfile_probe(const char *target, const void *session, struct probe *p);
int lfile_check_dir(const char *dir, const void *session, struct tgt_check *c);
int lfile_space(const char *path, const void *session, int64_t *free_bytes,
		int64_t *total_bytes);
int lfile_dio_align(const char *path, uint32_t *offset_align,
		    uint32_t *mem_align);
int lfile_make(const struct tgt_open_args *dst, enum tgt_file_op op,
	       const char *src, uint64_t size, double *secs);
int lfile_allocated(const char *path, const void *session, int64_t *bytes);

/* What lfile_make (lfile.c: the op chosen and timed) asks of this
 * system's file (lfile_<os>.c): a new file (O_EXCL) of size bytes,
 * allocated or sparse; a copy of src into the new file dst by op
 * (TGT_FILE_CLONE, _COPY_OFFLOAD, _COPY_RW); a fixed VHDX (Windows;
 * -EOPNOTSUPP elsewhere). Each flushes what it made; 0 or a negative
 * errno. */
int lfile_create_sized(const char *path, uint64_t size, int sparse);
int lfile_copy_file(const char *src, const char *dst, enum tgt_file_op op,
		    uint64_t size);
int lfile_create_vhdx(const char *path, uint64_t size);

/* What lfile_check_dir (lfile.c: its sentences) asks of this system: is
 * dir a directory (0, -ENOTDIR, or the negative errno of reaching it), and
 * does it take a new file (0 or a negative errno: Linux access(2), Windows
 * a file made and dropped)? */
int lfile_dir_kind(const char *dir);
int lfile_dir_writable(const char *dir);

/* The file ops lfile_make does on this system, and their own names. */
#ifdef _WIN32
#define LFILE_FILE_CAPS                                                        \
	(TGT_FILE_CAP(TGT_FILE_PREALLOCATE) | TGT_FILE_CAP(TGT_FILE_SPARSE) |  \
	 TGT_FILE_CAP(TGT_FILE_CLONE) | TGT_FILE_CAP(TGT_FILE_COPY_OFFLOAD) |  \
	 TGT_FILE_CAP(TGT_FILE_COPY_RW) | TGT_FILE_CAP(TGT_FILE_VHDX_FIXED))
#define LFILE_FILE_NAMES                                                       \
	{                                                                      \
		[TGT_FILE_PREALLOCATE] = "preallocate",                        \
		[TGT_FILE_COPY_OFFLOAD] = "odx"                                \
	}
#else
#define LFILE_FILE_CAPS                                                        \
	(TGT_FILE_CAP(TGT_FILE_PREALLOCATE) | TGT_FILE_CAP(TGT_FILE_SPARSE) |  \
	 TGT_FILE_CAP(TGT_FILE_CLONE) | TGT_FILE_CAP(TGT_FILE_COPY_OFFLOAD) |  \
	 TGT_FILE_CAP(TGT_FILE_COPY_RW))
#define LFILE_FILE_NAMES                                                       \
	{                                                                      \
		[TGT_FILE_COPY_OFFLOAD] = "copy_file_range"                    \
	}
#endif

#endif
