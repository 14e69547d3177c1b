/*
 * tgt_null — a back-end that does no I/O: every queued I/O completes at once
 * with its full length. It touches no file (open, fsync, unlink are no-ops;
 * the target directory is probed like a local one), so a run on it measures the
 * engine's own cost per I/O — the ceiling the engine puts on any device
 * (compare fio's null ioengine).
 */
#include "lfile.h"

#include <errno.h>
#include <stdlib.h>

struct null_ctx {
	struct tgt_io **ring; /* queued, not yet reaped */
	unsigned cap, head, n;
};

static int null_open(const struct tgt_open_args *args, void **ctx, int *direct)
{
	struct null_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->cap = args->depth ? args->depth : 1;
	c->ring = calloc(c->cap, sizeof(*c->ring));
	if (!c->ring) {
		free(c);
		return -ENOMEM;
	}
	*direct = args->direct;
	*ctx = c;
	return 0;
}

static int null_queue(void *ctx, struct tgt_io *io)
{
	struct null_ctx *c = ctx;

	if (c->n == c->cap)
		return -EBUSY;
	io->res = io->len;
	c->ring[(c->head + c->n++) % c->cap] = io;
	return 0;
}

static int null_commit(void *ctx)
{
	(void)ctx;
	return 0;
}

static int null_reap(void *ctx, unsigned min, unsigned timeout_ms,
		     struct tgt_io **done, unsigned max)
{
	struct null_ctx *c = ctx;
	unsigned k = 0;

	(void)min;
	(void)timeout_ms;
	while (k < max && c->n) {
		done[k++] = c->ring[c->head];
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
	return (int)k;
}

static int null_nop(void *ctx)
{
	(void)ctx;
	return 0;
}

static int null_preallocate(void *ctx, uint64_t size)
{
	(void)ctx;
	(void)size;
	return 0;
}

static void null_close(void *ctx)
{
	struct null_ctx *c = ctx;

	free(c->ring);
	free(c);
}

static int null_unlink(const char *path, const void *session)
{
	(void)path;
	(void)session;
	return 0;
}

const struct tgt_ops tgt_null_ops = {
	.version = TGT_OPS_VERSION,
	.name = "null",
	.title = "no I/O: the engine's own cost",
	.caps = TGT_CAP_ASYNC | TGT_CAP_BY_NAME,
	.probe = lfile_probe,
	.check_dir = lfile_check_dir,
	.space = lfile_space,
	.open = null_open,
	.queue = null_queue,
	.commit = null_commit,
	.reap = null_reap,
	.fsync = null_nop,
	.preallocate = null_preallocate,
	.close = null_close,
	.unlink = null_unlink,
};
