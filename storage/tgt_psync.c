/*
 * tgt_psync — a local file driven by plain pread/pwrite, one worker thread
 * per queue slot: the fallback where io_uring cannot be set up (an old
 * kernel, io_uring disabled by sysctl or seccomp) and a second reference for
 * the io_uring back-end.
 *
 * queue() puts an I/O on a pending list and commit() wakes the workers; each
 * worker takes one I/O, does it with blocking pread/pwrite (looping over short
 * transfers as a syscall may return them), and puts it on the done list;
 * reap() waits on the done list with a time-out. One mutex and two condition
 * variables guard both lists. The file is opened like io_uring's
 * (tgt_local_open_fd: O_DIRECT unless refused, O_EXCL|O_NOFOLLOW to create).
 */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct psync_ctx {
	struct tgt_local local; /* first: the shared fsync/preallocate */
	unsigned depth;
	pthread_t *workers;
	unsigned started;
	pthread_mutex_t mu;
	pthread_cond_t work;   /* pending non-empty or stopping */
	pthread_cond_t done_cv; /* done non-empty */
	struct tgt_io **pending, **done; /* rings of depth entries */
	unsigned p_head, p_n, d_head, d_n;
	int stopping;
};

/* One whole transfer; returns bytes moved or a negative errno. */
static int64_t transfer(int fd, struct tgt_io *io)
{
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

static void *worker(void *arg)
{
	struct psync_ctx *c = arg;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		struct tgt_io *io;
		while (!c->p_n && !c->stopping)
			pthread_cond_wait(&c->work, &c->mu);
		if (c->stopping)
			break;
		io = c->pending[c->p_head];
		c->p_head = (c->p_head + 1) % c->depth;
		c->p_n--;
		pthread_mutex_unlock(&c->mu);
		io->res = transfer(c->local.fd, io);
		pthread_mutex_lock(&c->mu);
		c->done[(c->d_head + c->d_n++) % c->depth] = io;
		pthread_cond_signal(&c->done_cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static void psync_close(void *ctx)
{
	struct psync_ctx *c = ctx;

	pthread_mutex_lock(&c->mu);
	c->stopping = 1;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->mu);
	for (unsigned i = 0; i < c->started; i++)
		pthread_join(c->workers[i], NULL);
	if (c->local.fd >= 0)
		close(c->local.fd);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->done_cv);
	free(c->workers);
	free(c->pending);
	free(c->done);
	free(c);
}

static int psync_open(const struct tgt_open_args *args, void **ctx,
		      int *direct)
{
	struct psync_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->depth = args->depth ? args->depth : 1;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done_cv, NULL);
	c->workers = calloc(c->depth, sizeof(*c->workers));
	c->pending = calloc(c->depth, sizeof(*c->pending));
	c->done = calloc(c->depth, sizeof(*c->done));
	c->local.fd = -1;
	if (!c->workers || !c->pending || !c->done) {
		psync_close(c);
		return -ENOMEM;
	}
	c->local.fd = tgt_local_open_fd(args, direct);
	if (c->local.fd < 0) {
		int rc = c->local.fd;
		psync_close(c);
		return rc;
	}
	for (; c->started < c->depth; c->started++)
		if (pthread_create(&c->workers[c->started], NULL, worker, c))
			break;
	if (c->started < c->depth) {
		psync_close(c);
		if (args->create)
			unlink(args->path);
		return -EAGAIN;
	}
	*ctx = c;
	return 0;
}

static int psync_queue(void *ctx, struct tgt_io *io)
{
	struct psync_ctx *c = ctx;
	int rc = 0;

	pthread_mutex_lock(&c->mu);
	if (c->p_n == c->depth)
		rc = -EBUSY;
	else
		c->pending[(c->p_head + c->p_n++) % c->depth] = io;
	pthread_mutex_unlock(&c->mu);
	return rc;
}

static int psync_commit(void *ctx)
{
	struct psync_ctx *c = ctx;

	pthread_mutex_lock(&c->mu);
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

static int psync_reap(void *ctx, unsigned min, unsigned timeout_ms,
		      struct tgt_io **done, unsigned max)
{
	struct psync_ctx *c = ctx;
	struct timespec until;
	unsigned k = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->mu);
	while (c->d_n < min &&
	       pthread_cond_timedwait(&c->done_cv, &c->mu, &until) == 0)
		;
	while (k < max && c->d_n) {
		done[k++] = c->done[c->d_head];
		c->d_head = (c->d_head + 1) % c->depth;
		c->d_n--;
	}
	pthread_mutex_unlock(&c->mu);
	return (int)k;
}

const struct tgt_ops tgt_psync_ops = {
	.version = TGT_OPS_VERSION,
	.name = "psync",
	.caps = TGT_CAP_ASYNC | TGT_CAP_DIRECT,
	.open = psync_open,
	.queue = psync_queue,
	.commit = psync_commit,
	.reap = psync_reap,
	.fsync = tgt_local_fsync,
	.preallocate = tgt_local_preallocate,
	.close = psync_close,
	.unlink = tgt_local_unlink,
};
