/*
 * target — the interface between the engine (and everything above it) and a
 * storage back-end. It is the only way to storage: reading and writing a
 * test file, making files for the file-create preset, the direct-I/O
 * alignment of a file, the probe of a target and removing what was made all
 * go through a back-end's table.
 *
 * A back-end is one file exporting one `const struct tgt_ops` (in the shape
 * of fio's ioengine_ops and SQLite's VFS): a name, a version, capability
 * flags and the operations. Callers reach the operations only through the
 * tgt_* wrappers below, which is where a table is validated and where a
 * missing optional operation answers -EOPNOTSUPP. Private state hangs off the
 * opaque ctx an open returns; one ctx belongs to one engine thread.
 *
 * The registry (target.c) lists the back-ends of this build
 * (tgt_backends[], from backends_<os>.c): which ones a job may name
 * ("engine": TGT_CAP_BY_NAME), which one claims a target by its form (an
 * smb:// URL), and the default for a local directory.
 *
 * The I/O model is asynchronous: queue() stages I/Os, commit() submits what
 * was staged, reap() waits for completions. A back-end whose calls block may
 * do the I/O inside queue() and hand it back from reap(); the engine does not
 * care.
 *
 * A back-end's own arguments (the SMB session: user, password, protocol
 * knobs) travel as the opaque `session` of tgt_open_args and of the
 * operations that take one; a local back-end ignores it. Nothing about a
 * back-end is process-wide.
 *
 * Errors: every operation returns 0 (or a count) on success and a negative
 * errno on failure; the result of a single I/O is in tgt_io.res (bytes done or
 * a negative errno).
 */
#ifndef STORBENCH_TARGET_H
#define STORBENCH_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "probe/probe.h"

#define TGT_OPS_VERSION 2

enum {
	TGT_CAP_ASYNC = 1 << 0,	  /* queue() returns before the I/O is done */
	TGT_CAP_DIRECT = 1 << 1,  /* can bypass the page cache (O_DIRECT) */
	TGT_CAP_FILES = 1 << 2,	  /* makes and removes real files (null
				     does not: it measures the engine) */
	TGT_CAP_REMOTE = 1 << 3,  /* the files are on a server: a lost
				     connection fails the I/O, and a file
				     left behind is reachable only with a
				     session (removed by a later job) */
	TGT_CAP_BY_NAME = 1 << 4, /* a job may choose it ("engine") for a
				     local directory */
};

/* How a file of a given size comes to exist (the file-create preset). */
enum tgt_file_op {
	TGT_FILE_PREALLOCATE,  /* the filesystem reserves the blocks, writes
				  nothing (fallocate) */
	TGT_FILE_SPARSE,       /* the size is set, nothing is allocated */
	TGT_FILE_ZEROS,	       /* zeros written and flushed by the back-end
				  itself; without it the engine writes them
				  through queue/reap (engine_prepare_file) */
	TGT_FILE_CLONE,	       /* a copy sharing the source's extents */
	TGT_FILE_COPY_OFFLOAD, /* a copy made by the kernel or the server */
	TGT_FILE_COPY_RW,      /* a copy read and written through this host */
	TGT_FILE_VHDX_FIXED,   /* a fixed VHDX, fully allocated by the Virtual
				  Disk API (Windows) */
	TGT_FILE_N
};
#define TGT_FILE_CAP(op) (1U << (op))

/* Why a directory cannot take a job's files (check_dir): a sentence, and
 * what is at fault — the path, the logon (the session's user and password)
 * or the session's other knobs (protocol range, signing, encryption). */
enum { TGT_BLAME_PATH, TGT_BLAME_LOGON, TGT_BLAME_SESSION };
struct tgt_check {
	int blame;
	char why[400]; /* "/mnt/x is not writable", naming the path */
};

/* One I/O. Owned by the engine; the back-end only fills in res. */
struct tgt_io {
	void *buf;	      /* aligned to 4096 bytes */
	uint64_t offset;      /* bytes */
	uint32_t len;	      /* bytes */
	uint8_t write;	      /* 1 = write, 0 = read */
	int64_t res;	      /* bytes transferred, or a negative errno */
	uint64_t t_submit_ns; /* os_now_ns() when its slot was freed: the
				 start of its latency, which runs from the
				 moment its queue slot is free (the reap
				 that returned its predecessor, or the
				 start) to the reap that returns it, on the
				 monotonic clock (CLOCK_MONOTONIC on
				 Linux): fio's lat, slat + clat */
};

struct tgt_open_args {
	const char *path; /* the test file */
	int create;	  /* 1: create it, O_CREAT|O_EXCL|O_NOFOLLOW; never
			     open a file that exists for writing otherwise */
	int direct;	  /* 1: ask for direct I/O */
	int dsync;	  /* 1: O_DSYNC, each write durable when it completes */
	unsigned depth;	  /* most I/Os that will be in flight at once */
	const void *session; /* the back-end's own arguments, or NULL
				(smb: const struct smb_session *); only
				borrowed: a back-end copies what it keeps */
};

struct tgt_ops {
	unsigned version;   /* TGT_OPS_VERSION */
	const char *name;   /* "io_uring": the job's "engine" and the run's */
	const char *title;  /* "pread/pwrite worker threads", for sentences */
	unsigned caps;	    /* TGT_CAP_* */
	unsigned file_caps; /* TGT_FILE_CAP(op) of every op make_file does */
	/* what this back-end calls a file op where it differs from the
	 * generic name (tgt_file_op_name): "copy_file_range", "server_copy" */
	const char *file_names[TGT_FILE_N];
	/* most queue slots (queue_depth × threads) of one test, 0: no limit,
	 * and what each slot costs, in words ("thread", "process and SMB
	 * connection") */
	unsigned max_slots;
	const char *slot_what;

	/* --- optional (NULL: see the wrapper) --- */
	/* Can this machine run the back-end? 0, or a negative errno with why
	 * in words (io_uring disabled by seccomp: -EPERM). */
	int (*usable)(void);
	/* Is target (a job's target text) one this back-end serves by its
	 * form (smb://…)? Back-ends without it serve local paths. */
	int (*claims)(const char *target);
	/* The volume path is on, as a prefix every path on it starts with
	 * ("smb://server/share/"): 0 or a negative errno. */
	int (*volume)(const char *path, char *buf, size_t len);

	/* --- required --- */
	/* What the target is (probe.h), connecting with session if it must. */
	int (*probe)(const char *target, const void *session, struct probe *p);
	/* Can files be made in directory dir (it exists, is a directory on a
	 * filesystem with storage, takes a new file; a share is reachable and
	 * logs the session on)? 0, or a negative errno with c filled. */
	int (*check_dir)(const char *dir, const void *session,
			 struct tgt_check *c);
	/* The filesystem (or share) holding path: bytes free to this user
	 * and its size. 0 or a negative errno (then both are unchanged). */
	int (*space)(const char *path, const void *session, int64_t *free_bytes,
		     int64_t *total_bytes);
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
	int (*unlink)(const char *path, const void *session);

	/* --- optional (NULL: -EOPNOTSUPP) --- */
	/* What direct I/O on the file at path needs: *offset_align divides
	 * every offset and length, *mem_align every buffer address; 0 when
	 * the file does not support direct I/O. */
	int (*dio_align)(const char *path, uint32_t *offset_align,
			 uint32_t *mem_align);
	/* Makes the new file dst->path (O_EXCL: never an existing one) of
	 * size bytes by op — a copy of src for the copy ops — and flushes
	 * it; *secs: how long the operation alone took (no spawn, no
	 * connection). An op outside file_caps is -EOPNOTSUPP. */
	int (*make_file)(const struct tgt_open_args *dst, enum tgt_file_op op,
			 const char *src, uint64_t size, double *secs);
	/* The bytes the filesystem allocated for path (st_blocks × 512). */
	int (*allocated)(const char *path, const void *session, int64_t *bytes);
};

/* An open target: the table and its state. */
struct tgt {
	const struct tgt_ops *ops;
	void *ctx;
	int direct;
};

/* The back-ends of this build, NULL-terminated (backends_<os>.c), in the
 * order the default is chosen: the first usable local one with
 * TGT_CAP_BY_NAME and TGT_CAP_FILES. */
extern const struct tgt_ops *const tgt_backends[];

/* The name of every back-end a job may name (TGT_CAP_BY_NAME) on any
 * system storbench is built for, NULL-terminated, in one order: io_uring
 * (Linux), iocp (Windows), psync, null. The job's "engine" choices, so that
 * the API's document is the same on every system; a name with no back-end
 * in this build is refused by tgt_find's caller, saying where it runs. */
extern const char *const tgt_engine_names[];

/* The back-end a job may name ("engine", TGT_CAP_BY_NAME) called name, or
 * NULL. Tables are validated before they are handed out. */
const struct tgt_ops *tgt_find(const char *name);

/* The back-end that claims target by its form (smb://…), or NULL for a
 * local path. */
const struct tgt_ops *tgt_for_target(const char *target);

/*
 * The default back-end for a local directory: the first usable one (see
 * tgt_backends). When one before it could not be used, why (if not NULL)
 * receives a sentence saying which and why ("io_uring cannot be set up here
 * (Operation not permitted): measuring with the psync back-end (pread/pwrite
 * worker threads)"), else "".
 */
const struct tgt_ops *tgt_local_default(char *why, size_t len);

/* Checks a table: version, name, title and every required operation.
 * 0 or -EINVAL. */
int tgt_validate(const struct tgt_ops *ops);

/* 0 when ops can run here, else the negative errno its usable() gave. */
int tgt_usable(const struct tgt_ops *ops);

/* Does ops claim target (see claims)? */
int tgt_claims(const struct tgt_ops *ops, const char *target);

/* Does ops do file op? (its file_caps) */
int tgt_can(const struct tgt_ops *ops, enum tgt_file_op op);

/* What ops calls file op: its own name, or the generic one ("fallocate",
 * "sparse", "zeros", "clone", "copy", "read/write", "vhdx"). */
const char *tgt_file_op_name(const struct tgt_ops *ops, enum tgt_file_op op);

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
int tgt_unlink(const struct tgt_ops *ops, const char *path,
	       const void *session);
int tgt_probe(const struct tgt_ops *ops, const char *target,
	      const void *session, struct probe *p);
int tgt_check_dir(const struct tgt_ops *ops, const char *dir,
		  const void *session, struct tgt_check *c);
int tgt_space(const struct tgt_ops *ops, const char *path, const void *session,
	      int64_t *free_bytes, int64_t *total_bytes);
int tgt_volume(const struct tgt_ops *ops, const char *path, char *buf,
	       size_t len);
int tgt_dio_align(const struct tgt_ops *ops, const char *path,
		  uint32_t *offset_align, uint32_t *mem_align);
int tgt_make_file(const struct tgt_ops *ops, const struct tgt_open_args *dst,
		  enum tgt_file_op op, const char *src, uint64_t size,
		  double *secs);
int tgt_allocated(const struct tgt_ops *ops, const char *path,
		  const void *session, int64_t *bytes);

#endif
