/*
 * target — the registry of this build's back-ends (tgt_backends[], from
 * backends_<os>.c) and the thin wrappers that are the only callers of a
 * back-end's table (see target.h).
 */
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const generic_file_names[TGT_FILE_N] = {
	[TGT_FILE_PREALLOCATE] = "fallocate", [TGT_FILE_SPARSE] = "sparse",
	[TGT_FILE_ZEROS] = "zeros",	      [TGT_FILE_CLONE] = "clone",
	[TGT_FILE_COPY_OFFLOAD] = "copy",     [TGT_FILE_COPY_RW] = "read/write",
	[TGT_FILE_VHDX_FIXED] = "vhdx",
};

int tgt_validate(const struct tgt_ops *ops)
{
	if (!ops || ops->version != TGT_OPS_VERSION || !ops->name ||
	    !ops->title || !ops->probe || !ops->check_dir || !ops->space ||
	    !ops->open || !ops->queue || !ops->commit || !ops->reap ||
	    !ops->fsync || !ops->preallocate || !ops->close || !ops->unlink)
		return -EINVAL;
	if (ops->file_caps && !ops->make_file)
		return -EINVAL;
	return 0;
}

int tgt_usable(const struct tgt_ops *ops)
{
	return ops->usable ? ops->usable() : 0;
}

int tgt_claims(const struct tgt_ops *ops, const char *target)
{
	return ops->claims && ops->claims(target);
}

const char *const tgt_engine_names[] = {
	"io_uring", "iocp", "psync", "null", NULL,
};

const struct tgt_ops *tgt_find(const char *name)
{
	for (size_t i = 0; tgt_backends[i]; i++) {
		const struct tgt_ops *o = tgt_backends[i];
		if ((o->caps & TGT_CAP_BY_NAME) && strcmp(o->name, name) == 0)
			return tgt_validate(o) == 0 ? o : NULL;
	}
	return NULL;
}

const struct tgt_ops *tgt_for_target(const char *target)
{
	for (size_t i = 0; tgt_backends[i]; i++)
		if (tgt_claims(tgt_backends[i], target))
			return tgt_validate(tgt_backends[i]) == 0
				       ? tgt_backends[i]
				       : NULL;
	return NULL;
}

const struct tgt_ops *tgt_local_default(char *why, size_t len)
{
	const struct tgt_ops *skipped = NULL;
	int skipped_rc = 0;

	if (why && len)
		why[0] = '\0';
	for (size_t i = 0; tgt_backends[i]; i++) {
		const struct tgt_ops *o = tgt_backends[i];
		int rc;
		if ((o->caps & (TGT_CAP_BY_NAME | TGT_CAP_FILES)) !=
			    (TGT_CAP_BY_NAME | TGT_CAP_FILES) ||
		    tgt_validate(o) != 0)
			continue;
		if ((rc = tgt_usable(o)) == 0) {
			if (skipped && why && len)
				snprintf(why, len,
					 "%s cannot be set up here (%s): "
					 "measuring with the %s back-end (%s)",
					 skipped->name, strerror(-skipped_rc),
					 o->name, o->title);
			return o;
		}
		if (!skipped) {
			skipped = o;
			skipped_rc = rc;
		}
	}
	return NULL;
}

int tgt_can(const struct tgt_ops *ops, enum tgt_file_op op)
{
	return op < TGT_FILE_N && (ops->file_caps & TGT_FILE_CAP(op)) != 0;
}

const char *tgt_file_op_name(const struct tgt_ops *ops, enum tgt_file_op op)
{
	if (op >= TGT_FILE_N)
		return "?";
	return ops->file_names[op] ? ops->file_names[op]
				   : generic_file_names[op];
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

int tgt_unlink(const struct tgt_ops *ops, const char *path, const void *session)
{
	return ops->unlink(path, session);
}

int tgt_probe(const struct tgt_ops *ops, const char *target,
	      const void *session, struct probe *p)
{
	return ops->probe(target, session, p);
}

int tgt_check_dir(const struct tgt_ops *ops, const char *dir,
		  const void *session, struct tgt_check *c)
{
	c->blame = TGT_BLAME_PATH;
	c->why[0] = '\0';
	return ops->check_dir(dir, session, c);
}

int tgt_space(const struct tgt_ops *ops, const char *path, const void *session,
	      int64_t *free_bytes, int64_t *total_bytes)
{
	return ops->space(path, session, free_bytes, total_bytes);
}

int tgt_volume(const struct tgt_ops *ops, const char *path, char *buf,
	       size_t len)
{
	return ops->volume ? ops->volume(path, buf, len) : -EOPNOTSUPP;
}

int tgt_dio_align(const struct tgt_ops *ops, const char *path,
		  uint32_t *offset_align, uint32_t *mem_align)
{
	*offset_align = *mem_align = 0;
	return ops->dio_align ? ops->dio_align(path, offset_align, mem_align)
			      : -EOPNOTSUPP;
}

int tgt_make_file(const struct tgt_ops *ops, const struct tgt_open_args *dst,
		  enum tgt_file_op op, const char *src, uint64_t size,
		  double *secs)
{
	*secs = 0;
	if (!tgt_can(ops, op))
		return -EOPNOTSUPP;
	return ops->make_file(dst, op, src, size, secs);
}

int tgt_allocated(const struct tgt_ops *ops, const char *path,
		  const void *session, int64_t *bytes)
{
	*bytes = -1;
	return ops->allocated ? ops->allocated(path, session, bytes)
			      : -EOPNOTSUPP;
}
