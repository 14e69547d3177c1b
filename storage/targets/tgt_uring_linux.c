/*
 * tgt_uring_linux — the default back-end on Linux: a local file driven
 * through io_uring (liburing), with O_DIRECT unless the filesystem refuses
 * it (the file itself: lfile.h).
 *
 * One ring per engine thread, sized to the thread's queue depth. queue()
 * fills an SQE whose user data is the tgt_io; commit() is one io_uring_submit;
 * reap() waits with a time-out (so a cancel is seen within timeout_ms even if
 * the device stalls) and then drains every CQE already posted, so one system
 * call can return a whole batch.
 */
#include "lfile.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <unistd.h>

struct uring_ctx {
	struct lfile local; /* first: the shared fsync/preallocate */
	struct io_uring ring;
};

static int uring_open(const struct tgt_open_args *args, void **ctx, int *direct)
{
	struct uring_ctx *u = calloc(1, sizeof(*u));
	unsigned entries = args->depth ? args->depth : 1;
	int rc;

	if (!u)
		return -ENOMEM;
	if ((rc = lfile_open(args, &u->local, direct)) < 0)
		goto fail;
	/*
	 * One thread submits and reaps, so completions can wait until it asks
	 * for them (DEFER_TASKRUN, Linux 6.1+): no interrupting task work
	 * between its submissions, a batch run when it waits. Older kernels:
	 * COOP_TASKRUN (5.19+, no IPIs), then no flags at all.
	 */
	rc = io_uring_queue_init(entries, &u->ring,
				 IORING_SETUP_SINGLE_ISSUER |
					 IORING_SETUP_DEFER_TASKRUN);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(entries, &u->ring,
					 IORING_SETUP_SINGLE_ISSUER |
						 IORING_SETUP_COOP_TASKRUN);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(entries, &u->ring, 0);
	if (rc < 0) {
		lfile_close(&u->local);
		if (args->create)
			unlink(args->path);
		goto fail;
	}
	*ctx = u;
	return 0;
fail:
	free(u);
	return rc;
}

static int uring_queue(void *ctx, struct tgt_io *io)
{
	struct uring_ctx *u = ctx;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		return -EBUSY;
	if (io->write)
		io_uring_prep_write(sqe, (int)u->local.h, io->buf, io->len,
				    io->offset);
	else
		io_uring_prep_read(sqe, (int)u->local.h, io->buf, io->len,
				   io->offset);
	io_uring_sqe_set_data(sqe, io);
	return 0;
}

static int uring_commit(void *ctx)
{
	struct uring_ctx *u = ctx;
	int rc = io_uring_submit(&u->ring);

	return rc < 0 ? rc : 0;
}

static int uring_reap(void *ctx, unsigned min, unsigned timeout_ms,
		      struct tgt_io **done, unsigned max)
{
	struct uring_ctx *u = ctx;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long long)(timeout_ms % 1000) * 1000000LL,
	};
	unsigned n = 0, head;
	int rc;

	/* enter the kernel only when fewer than min are already posted */
	if (min && io_uring_cq_ready(&u->ring) < min) {
		rc = io_uring_wait_cqes(&u->ring, &cqe, min, &ts, NULL);
		if (rc == -ETIME || rc == -EINTR)
			return 0;
		if (rc < 0)
			return rc;
	}
	io_uring_for_each_cqe(&u->ring, head, cqe)
	{
		struct tgt_io *io;
		if (n == max)
			break;
		io = io_uring_cqe_get_data(cqe);
		io->res = cqe->res;
		done[n++] = io;
	}
	io_uring_cq_advance(&u->ring, n);
	return (int)n;
}

static void uring_close(void *ctx)
{
	struct uring_ctx *u = ctx;

	io_uring_queue_exit(&u->ring);
	lfile_close(&u->local);
	free(u);
}

/* Can this kernel set up an io_uring? (-ENOSYS: too old; -EPERM: disabled
 * by sysctl or seccomp) */
static int uring_usable(void)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(1, &ring, 0);

	if (rc == 0)
		io_uring_queue_exit(&ring);
	return rc;
}

const struct tgt_ops tgt_uring_ops = {
	.version = TGT_OPS_VERSION,
	.name = "io_uring",
	.title = "io_uring, one ring per engine thread",
	.caps = TGT_CAP_ASYNC | TGT_CAP_DIRECT | TGT_CAP_FILES |
		TGT_CAP_BY_NAME,
	.file_caps = LFILE_FILE_CAPS,
	.file_names = LFILE_FILE_NAMES,
	.usable = uring_usable,
	.probe = lfile_probe,
	.check_dir = lfile_check_dir,
	.space = lfile_space,
	.open = uring_open,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.fsync = lfile_tgt_fsync,
	.preallocate = lfile_tgt_preallocate,
	.close = uring_close,
	.unlink = lfile_unlink,
	.dio_align = lfile_dio_align,
	.make_file = lfile_make,
	.allocated = lfile_allocated,
};
