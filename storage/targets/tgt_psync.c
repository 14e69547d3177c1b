/*
 * tgt_psync — a local file driven by plain blocking transfers, one worker
 * thread per queue slot: the fallback where io_uring cannot be set up (an
 * old kernel, io_uring disabled by sysctl or seccomp) and a second reference
 * for the io_uring back-end.
 *
 * The worker threads, rings and locking are workpool's; what is psync's is
 * the transfer: lfile_transfer (pread/pwrite on Linux) on the one shared
 * file, looping over short transfers. The file is opened like io_uring's
 * (lfile_open: direct I/O unless refused, O_EXCL|O_NOFOLLOW to create).
 */
#include "lfile.h"

#include <errno.h>
#include <stdlib.h>

#include "workpool.h"

/* wt.local first: the shared fsync/preallocate; wt.pool: the queue ops */
struct psync_ctx {
	struct workpool_target wt;
};

/* Every worker shares the file: its state is the context itself. */
static int psync_worker_init(void *arg, unsigned i, void **wctx)
{
	(void)i;
	*wctx = arg;
	return 0;
}

static int64_t transfer(void *wctx, struct tgt_io *io)
{
	return lfile_transfer(&((struct psync_ctx *)wctx)->wt.local, io);
}

static const struct workpool_ops psync_pool = {
	.init = psync_worker_init,
	.io = transfer,
};

static void psync_close(void *ctx)
{
	struct psync_ctx *c = ctx;

	workpool_stop(c->wt.pool);
	lfile_close(&c->wt.local);
	free(c);
}

static int psync_open(const struct tgt_open_args *args, void **ctx, int *direct)
{
	struct psync_ctx *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
	if ((rc = lfile_open(args, &c->wt.local, direct)) < 0) {
		free(c);
		return rc;
	}
	if ((rc = workpool_start(&psync_pool, c, args->depth, &c->wt.pool)) <
	    0) {
		psync_close(c);
		if (args->create)
			lfile_unlink(args->path, NULL);
		return rc;
	}
	*ctx = c;
	return 0;
}

const struct tgt_ops tgt_psync_ops = {
	.version = TGT_OPS_VERSION,
	.name = "psync",
	.title = "blocking-I/O worker threads",
	.caps = TGT_CAP_ASYNC | TGT_CAP_DIRECT | TGT_CAP_FILES |
		TGT_CAP_BY_NAME,
	.file_caps = LFILE_FILE_CAPS,
	.file_names = LFILE_FILE_NAMES,
	.max_slots = 4096,
	.slot_what = "thread",
	.probe = lfile_probe,
	.check_dir = lfile_check_dir,
	.space = lfile_space,
	.open = psync_open,
	.queue = workpool_tgt_queue,
	.commit = workpool_tgt_commit,
	.reap = workpool_tgt_reap,
	.fsync = lfile_tgt_fsync,
	.preallocate = lfile_tgt_preallocate,
	.close = psync_close,
	.unlink = lfile_unlink,
	.dio_align = lfile_dio_align,
	.make_file = lfile_make,
	.allocated = lfile_allocated,
};
