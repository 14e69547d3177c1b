/*
 * tgt_psync — a local file driven by plain pread/pwrite, one worker thread
 * per queue slot: the fallback where io_uring cannot be set up (an old
 * kernel, io_uring disabled by sysctl or seccomp) and a second reference for
 * the io_uring back-end.
 *
 * The worker threads, rings and locking are workpool's; what is psync's is
 * the transfer: blocking pread/pwrite on the one shared fd, looping over
 * short transfers as a syscall may return them. The file is opened like io_uring's
 * (tgt_local_open_fd: O_DIRECT unless refused, O_EXCL|O_NOFOLLOW to create).
 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "workpool.h"

/* local first: the shared fsync/preallocate; pool: the queue ops */
struct psync_ctx {
	struct workpool_target wt;
};

/* Every worker shares the fd: its state is the context itself. */
static int psync_worker_init(void *arg, unsigned i, void **wctx)
{
	(void)i;
	*wctx = arg;
	return 0;
}

/* One whole transfer; returns bytes moved or a negative errno. */
static int64_t transfer(void *wctx, struct tgt_io *io)
{
	int fd = ((struct psync_ctx *)wctx)->wt.local.fd;
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
			break; /* end of file or a full disk: a short transfer */
		off += (uint64_t)n;
	}
	return (int64_t)off;
}

static const struct workpool_ops psync_pool = {
	.init = psync_worker_init,
	.io = transfer,
};

static void psync_close(void *ctx)
{
	struct psync_ctx *c = ctx;

	workpool_stop(c->wt.pool);
	if (c->wt.local.fd >= 0)
		close(c->wt.local.fd);
	free(c);
}

static int psync_open(const struct tgt_open_args *args, void **ctx,
		      int *direct)
{
	struct psync_ctx *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
	c->wt.local.fd = tgt_local_open_fd(args, direct);
	if (c->wt.local.fd < 0) {
		rc = c->wt.local.fd;
		free(c);
		return rc;
	}
	if ((rc = workpool_start(&psync_pool, c, args->depth, &c->wt.pool)) < 0) {
		psync_close(c);
		if (args->create)
			unlink(args->path);
		return rc;
	}
	*ctx = c;
	return 0;
}

const struct tgt_ops tgt_psync_ops = {
	.version = TGT_OPS_VERSION,
	.name = "psync",
	.caps = TGT_CAP_ASYNC | TGT_CAP_DIRECT,
	.open = psync_open,
	.queue = workpool_tgt_queue,
	.commit = workpool_tgt_commit,
	.reap = workpool_tgt_reap,
	.fsync = tgt_local_fsync,
	.preallocate = tgt_local_preallocate,
	.close = psync_close,
	.unlink = tgt_local_unlink,
};
