/*
 * tgt_uring — the default back-end: a local file driven through io_uring
 * (liburing), with O_DIRECT unless the filesystem refuses it.
 *
 * One ring per engine thread, sized to the thread's queue depth. queue()
 * fills an SQE whose user data is the tgt_io; commit() is one io_uring_submit;
 * reap() waits with a time-out (so a cancel is seen within timeout_ms even if
 * the device stalls) and then drains every CQE already posted, so one system
 * call can return a whole batch.
 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <unistd.h>

struct uring_ctx {
	struct tgt_local local; /* first: the shared fsync/preallocate */
	struct io_uring ring;
};

static int uring_open(const struct tgt_open_args *args, void **ctx,
		      int *direct)
{
	struct uring_ctx *u = calloc(1, sizeof(*u));
	unsigned entries = args->depth ? args->depth : 1;
	int rc;

	if (!u)
		return -ENOMEM;
	u->local.fd = tgt_local_open_fd(args, direct);
	if (u->local.fd < 0) {
		rc = u->local.fd;
		goto fail;
	}
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
		close(u->local.fd);
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
		io_uring_prep_write(sqe, u->local.fd, io->buf, io->len, io->offset);
	else
		io_uring_prep_read(sqe, u->local.fd, io->buf, io->len, io->offset);
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
	close(u->local.fd);
	free(u);
}

int tgt_uring_probe(void)
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
	.caps = TGT_CAP_ASYNC | TGT_CAP_DIRECT,
	.open = uring_open,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.fsync = tgt_local_fsync,
	.preallocate = tgt_local_preallocate,
	.close = uring_close,
	.unlink = tgt_local_unlink,
};
