/*
 * target — the registry of built-in back-ends and the thin wrappers that are
 * the only callers of a back-end's table (see target.h).
 */
#include "target.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static const struct tgt_ops *const builtin[] = {
	&tgt_uring_ops,
	&tgt_psync_ops,
	&tgt_null_ops,
};

const struct tgt_ops *tgt_local_default(void)
{
	return tgt_uring_probe() == 0 ? &tgt_uring_ops : &tgt_psync_ops;
}

int tgt_local_unlink(const char *path)
{
	return unlink(path) == 0 ? 0 : -errno;
}

int tgt_local_fsync(void *ctx)
{
	const struct tgt_local *l = ctx;

	return fdatasync(l->fd) == 0 ? 0 : -errno;
}

int tgt_local_preallocate(void *ctx, uint64_t size)
{
	const struct tgt_local *l = ctx;

	return fallocate(l->fd, 0, 0, (off_t)size) == 0 ? 0 : -errno;
}

int tgt_validate(const struct tgt_ops *ops)
{
	if (!ops || ops->version != TGT_OPS_VERSION || !ops->name ||
	    !ops->open || !ops->queue || !ops->commit || !ops->reap ||
	    !ops->fsync || !ops->preallocate || !ops->close || !ops->unlink)
		return -EINVAL;
	return 0;
}

const struct tgt_ops *tgt_find(const char *name)
{
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (strcmp(builtin[i]->name, name) == 0)
			return tgt_validate(builtin[i]) == 0 ? builtin[i]
							      : NULL;
	return NULL;
}

int tgt_open(const struct tgt_ops *ops, const struct tgt_open_args *args,
	     struct tgt *t)
{
	int rc;

	t->ops = NULL;
	t->ctx = NULL;
	t->direct = 0;
	if (tgt_validate(ops) != 0)
		return -EINVAL;
	rc = ops->open(args, &t->ctx, &t->direct);
	if (rc == 0)
		t->ops = ops;
	return rc;
}

int tgt_queue(struct tgt *t, struct tgt_io *io)
{
	return t->ops->queue(t->ctx, io);
}

int tgt_commit(struct tgt *t)
{
	return t->ops->commit(t->ctx);
}

int tgt_reap(struct tgt *t, unsigned min, unsigned timeout_ms,
	     struct tgt_io **done, unsigned max)
{
	return t->ops->reap(t->ctx, min, timeout_ms, done, max);
}

int tgt_fsync(struct tgt *t)
{
	return t->ops->fsync(t->ctx);
}

int tgt_preallocate(struct tgt *t, uint64_t size)
{
	return t->ops->preallocate(t->ctx, size);
}

void tgt_close(struct tgt *t)
{
	if (t->ops)
		t->ops->close(t->ctx);
	t->ops = NULL;
	t->ctx = NULL;
}

int tgt_unlink(const struct tgt_ops *ops, const char *path)
{
	return ops->unlink(path);
}

int tgt_local_open_fd(const struct tgt_open_args *args, int *direct)
{
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC;
	int fd, fl, rc;

	*direct = 0;
	if (args->create)
		flags |= O_CREAT | O_EXCL;
	if (args->dsync)
		flags |= O_DSYNC;
	fd = open(args->path, flags, 0600);
	if (fd < 0)
		return -errno;
	if (args->direct) {
		fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && fcntl(fd, F_SETFL, fl | O_DIRECT) == 0) {
			*direct = 1;
		} else if (errno != EINVAL) {
			rc = -errno;
			close(fd);
			if (args->create)
				unlink(args->path);
			return rc;
		}
	}
	return fd;
}
