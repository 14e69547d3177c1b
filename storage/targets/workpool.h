/*
 * workpool — the machinery of a back-end whose I/O calls block: one worker
 * thread per queue slot, a pending and a done ring under one mutex.
 * queue() puts an I/O on the pending ring, commit() wakes the workers, a
 * worker does one I/O with the back-end's blocking call and moves it to the
 * done ring, reap() waits on the done ring with a time-out. Serves psync
 * (pread/pwrite on one fd) and smb (each worker with its own libsmbclient
 * context and file handle).
 */
#ifndef STORBENCH_WORKPOOL_H
#define STORBENCH_WORKPOOL_H

#include "lfile.h"

struct workpool_ops {
	/*
	 * Runs in worker i's own thread before it takes any I/O; *wctx
	 * receives its state. Returns 0 or a negative errno (then the pool
	 * does not start and open fails with it).
	 */
	int (*init)(void *arg, unsigned i, void **wctx);
	/* One whole transfer: bytes moved (short on end of file or a full
	 * disk) or a negative errno. */
	int64_t (*io)(void *wctx, struct tgt_io *io);
	/* Runs in the worker's thread when the pool stops. */
	void (*fini)(void *wctx);
};

struct workpool;

/* Starts depth workers; waits until each has run init. */
int workpool_start(const struct workpool_ops *ops, void *arg, unsigned depth,
		   struct workpool **out);
void workpool_stop(struct workpool *p);
int workpool_queue(struct workpool *p, struct tgt_io *io);
int workpool_commit(struct workpool *p);
int workpool_reap(struct workpool *p, unsigned min, unsigned timeout_ms,
		  struct tgt_io **done, unsigned max);

/*
 * A back-end whose context starts with this (the first-member rule, as
 * struct lfile) uses the three functions below as its queue, commit and
 * reap operations. local is the shared file of a local-file back-end
 * (psync) and h -1 for one whose workers hold their own handles (smb).
 */
struct workpool_target {
	struct lfile local;
	struct workpool *pool;
};

int workpool_tgt_queue(void *ctx, struct tgt_io *io);
int workpool_tgt_commit(void *ctx);
int workpool_tgt_reap(void *ctx, unsigned min, unsigned timeout_ms,
		      struct tgt_io **done, unsigned max);

#endif
