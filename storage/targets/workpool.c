/*
 * workpool — see workpool.h.
 */
#include "workpool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct workpool {
	const struct workpool_ops *ops;
	void *arg;
	unsigned depth;
	pthread_t *workers;
	unsigned started;
	pthread_mutex_t mu;
	pthread_cond_t work;	/* pending non-empty, or stopping */
	pthread_cond_t done_cv; /* done non-empty, or a worker's init ended */
	struct tgt_io **pending, **done; /* rings of depth entries */
	unsigned p_head, p_n, d_head, d_n;
	unsigned inited; /* workers whose init has returned */
	int init_rc;	 /* the first init failure */
	int stopping;
};

struct worker_arg {
	struct workpool *p;
	unsigned index;
};

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct workpool *p = wa->p;
	void *wctx = NULL;
	int rc = p->ops->init(p->arg, wa->index, &wctx);

	free(wa);
	pthread_mutex_lock(&p->mu);
	p->inited++;
	if (rc < 0 && p->init_rc == 0)
		p->init_rc = rc;
	pthread_cond_broadcast(&p->done_cv);
	while (rc == 0) {
		struct tgt_io *io;
		while (!p->p_n && !p->stopping)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stopping)
			break;
		io = p->pending[p->p_head];
		p->p_head = (p->p_head + 1) % p->depth;
		p->p_n--;
		pthread_mutex_unlock(&p->mu);
		io->res = p->ops->io(wctx, io);
		pthread_mutex_lock(&p->mu);
		p->done[(p->d_head + p->d_n++) % p->depth] = io;
		pthread_cond_signal(&p->done_cv);
	}
	pthread_mutex_unlock(&p->mu);
	if (rc == 0 && p->ops->fini)
		p->ops->fini(wctx);
	return NULL;
}

void workpool_stop(struct workpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->started; i++)
		pthread_join(p->workers[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done_cv);
	free(p->workers);
	free(p->pending);
	free(p->done);
	free(p);
}

int workpool_start(const struct workpool_ops *ops, void *arg, unsigned depth,
		   struct workpool **out)
{
	struct workpool *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->ops = ops;
	p->arg = arg;
	p->depth = depth ? depth : 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	p->workers = calloc(p->depth, sizeof(*p->workers));
	p->pending = calloc(p->depth, sizeof(*p->pending));
	p->done = calloc(p->depth, sizeof(*p->done));
	if (!p->workers || !p->pending || !p->done) {
		workpool_stop(p);
		return -ENOMEM;
	}
	for (; p->started < p->depth; p->started++) {
		struct worker_arg *wa = malloc(sizeof(*wa));
		if (!wa)
			break;
		*wa = (struct worker_arg){ p, p->started };
		if (pthread_create(&p->workers[p->started], NULL, worker, wa)) {
			free(wa);
			break;
		}
	}
	pthread_mutex_lock(&p->mu);
	while (p->inited < p->started)
		pthread_cond_wait(&p->done_cv, &p->mu);
	rc = p->started < p->depth ? -EAGAIN : p->init_rc;
	pthread_mutex_unlock(&p->mu);
	if (rc < 0) {
		workpool_stop(p);
		return rc;
	}
	*out = p;
	return 0;
}

int workpool_queue(struct workpool *p, struct tgt_io *io)
{
	int rc = 0;

	pthread_mutex_lock(&p->mu);
	if (p->p_n == p->depth)
		rc = -EBUSY;
	else
		p->pending[(p->p_head + p->p_n++) % p->depth] = io;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int workpool_commit(struct workpool *p)
{
	pthread_mutex_lock(&p->mu);
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

int workpool_reap(struct workpool *p, unsigned min, unsigned timeout_ms,
		  struct tgt_io **done, unsigned max)
{
	struct timespec until;
	unsigned k = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->mu);
	while (p->d_n < min &&
	       pthread_cond_timedwait(&p->done_cv, &p->mu, &until) == 0)
		;
	while (k < max && p->d_n) {
		done[k++] = p->done[p->d_head];
		p->d_head = (p->d_head + 1) % p->depth;
		p->d_n--;
	}
	pthread_mutex_unlock(&p->mu);
	return (int)k;
}

int workpool_tgt_queue(void *ctx, struct tgt_io *io)
{
	return workpool_queue(((struct workpool_target *)ctx)->pool, io);
}

int workpool_tgt_commit(void *ctx)
{
	return workpool_commit(((struct workpool_target *)ctx)->pool);
}

int workpool_tgt_reap(void *ctx, unsigned min, unsigned timeout_ms,
		      struct tgt_io **done, unsigned max)
{
	return workpool_reap(((struct workpool_target *)ctx)->pool, min,
			     timeout_ms, done, max);
}
