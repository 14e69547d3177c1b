/*
 * target — the interface between the engine and a storage back-end.
 *
 * A back-end is one file exporting one `const struct tgt_ops` (in the shape of
 * fio's ioengine_ops and SQLite's VFS): a name, a version, capability flags and
 * the operations. The engine calls the operations only through the tgt_*
 * wrappers below, which is where a table is validated and where a test can
 * interpose. Private state hangs off the opaque ctx an open returns; one ctx
 * belongs to one engine thread and is never shared.
 *
 * The I/O model is asynchronous: queue() stages I/Os, commit() submits what
 * was staged, reap() waits for completions. A back-end whose calls block may
 * do the I/O inside queue() and hand it back from reap(); the engine does not
 * care.
 *
 * Errors: every operation returns 0 (or a count) on success and a negative
 * errno on failure; the result of a single I/O is in tgt_io.res (bytes done or
 * a negative errno).
 */
#ifndef STORBENCH_TARGET_H
#define STORBENCH_TARGET_H

#include <stddef.h>
#include <stdint.h>

#define TGT_OPS_VERSION 1

enum {
	TGT_CAP_ASYNC = 1 << 0,  /* queue() returns before the I/O is done */
	TGT_CAP_DIRECT = 1 << 1, /* can bypass the page cache (O_DIRECT) */
};

/* One I/O. Owned by the engine; the back-end only fills in res. */
struct tgt_io {
	void *buf;             /* aligned to 4096 bytes */
	uint64_t offset;       /* bytes */
	uint32_t len;          /* bytes */
	uint8_t write;         /* 1 = write, 0 = read */
	int64_t res;           /* bytes transferred, or a negative errno */
	uint64_t t_submit_ns;  /* CLOCK_MONOTONIC when committed */
};

struct tgt_open_args {
	const char *path;  /* the test file */
	int create;        /* 1: create it, O_CREAT|O_EXCL|O_NOFOLLOW; never
			      open a file that exists for writing otherwise */
	int direct;        /* 1: ask for direct I/O */
	int dsync;         /* 1: O_DSYNC, each write durable when it completes */
	unsigned depth;    /* most I/Os that will be in flight at once */
};

struct tgt_ops {
	unsigned version; /* TGT_OPS_VERSION */
	const char *name; /* "io_uring" */
	unsigned caps;    /* TGT_CAP_* */

	/* Opens path; *ctx receives the back-end's state, *direct whether
	 * direct I/O is in effect (a back-end may fall back to buffered I/O
	 * when the filesystem refuses direct I/O; it must say so here). */
	int (*open)(const struct tgt_open_args *args, void **ctx, int *direct);
	int (*queue)(void *ctx, struct tgt_io *io);
	int (*commit)(void *ctx);
	/* Waits up to timeout_ms for at least min completions; stores up to
	 * max completed I/Os in done[]. Returns how many (0 on time-out). */
	int (*reap)(void *ctx, unsigned min, unsigned timeout_ms,
		    struct tgt_io **done, unsigned max);
	/* Makes the data written so far durable (fdatasync semantics). */
	int (*fsync)(void *ctx);
	int (*preallocate)(void *ctx, uint64_t size);
	void (*close)(void *ctx);
	/* Removes a file this back-end created. */
	int (*unlink)(const char *path);
};

/* An open target: the table and its state. */
struct tgt {
	const struct tgt_ops *ops;
	void *ctx;
	int direct;
};

/* The built-in back-end called name, or NULL. Tables are validated once. */
const struct tgt_ops *tgt_find(const char *name);

/* Checks a table: version, name and every operation present. 0 or -EINVAL. */
int tgt_validate(const struct tgt_ops *ops);

int tgt_open(const struct tgt_ops *ops, const struct tgt_open_args *args,
	     struct tgt *t);
int tgt_queue(struct tgt *t, struct tgt_io *io);
int tgt_commit(struct tgt *t);
int tgt_reap(struct tgt *t, unsigned min, unsigned timeout_ms,
	     struct tgt_io **done, unsigned max);
int tgt_fsync(struct tgt *t);
int tgt_preallocate(struct tgt *t, uint64_t size);
/* Closes t if open; safe to call twice. */
void tgt_close(struct tgt *t);
int tgt_unlink(const struct tgt_ops *ops, const char *path);

extern const struct tgt_ops tgt_uring_ops; /* "io_uring": the default */
extern const struct tgt_ops tgt_psync_ops; /* "psync": pread/pwrite workers */
extern const struct tgt_ops tgt_null_ops;  /* "null": no I/O at all */
/* "smb": a file on an SMB share by URL (smb://server[:port]/share/path),
 * through libsmbclient; not chosen by name (tgt_find), but by the target */
extern const struct tgt_ops tgt_smb_ops;

/* Its session and child processes: smb.h. */

/* 0 when this kernel lets us set up an io_uring, else the negative errno
 * (-ENOSYS: too old; -EPERM: disabled by sysctl or seccomp). */
int tgt_uring_probe(void);

/* The default local back-end: io_uring when tgt_uring_probe() says it works,
 * psync otherwise. */
const struct tgt_ops *tgt_local_default(void);



/*
 * For local-file back-ends: opens args->path read-write with O_NOFOLLOW and
 * O_CLOEXEC (plus O_CREAT|O_EXCL when args->create, mode 0600, and O_DSYNC
 * when args->dsync), then asks for
 * O_DIRECT with fcntl when args->direct. A filesystem that refuses O_DIRECT
 * (tmpfs, FUSE) leaves the file buffered and *direct = 0. Returns the fd or a
 * negative errno; on failure nothing is left open and a file this call
 * created is removed.
 */
int tgt_local_open_fd(const struct tgt_open_args *args, int *direct);

/*
 * What direct I/O on the file at path needs (statx STATX_DIOALIGN, Linux
 * 6.1+): *offset_align divides every offset and length, *mem_align every
 * buffer address; 0 when the file does not support direct I/O. Returns 0,
 * -EOPNOTSUPP when the kernel or filesystem does not say, or -errno.
 */
int tgt_dio_align(const char *path, uint32_t *offset_align,
		  uint32_t *mem_align);

/* unlink(2) as a back-end's unlink: 0 or a negative errno. */
int tgt_local_unlink(const char *path);

/*
 * A local-file back-end's ctx starts with this (SQLite's "first member"
 * rule), so the shared operations below serve as its fsync and preallocate.
 */
struct tgt_local {
	int fd;
};

int tgt_local_fsync(void *ctx);                     /* fdatasync(2) */
int tgt_local_preallocate(void *ctx, uint64_t size); /* fallocate(2) */

#endif
