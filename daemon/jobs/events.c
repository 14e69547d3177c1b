/*
 * events — see events.h.
 */
#include "events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct event {
	uint64_t seq;
	char name[16];
	char *data; /* compact JSON, malloc'd */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct event ring[EVENTS_RING];
static uint64_t last_seq;
static void (*waker)(void *);
static void *waker_arg;

uint64_t events_publish(const char *name, json_t *data)
{
	char *text = json_dumps(data, JSON_COMPACT | JSON_REAL_PRECISION(9));
	void (*wake)(void *);
	void *arg;
	struct event *e;
	uint64_t seq;

	json_decref(data);
	if (!text)
		return 0;
	pthread_mutex_lock(&mu);
	seq = ++last_seq;
	e = &ring[seq % EVENTS_RING];
	free(e->data);
	e->seq = seq;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->data = text;
	wake = waker;
	arg = waker_arg;
	pthread_mutex_unlock(&mu);
	if (wake)
		wake(arg);
	return seq;
}

uint64_t events_last(void)
{
	uint64_t s;

	pthread_mutex_lock(&mu);
	s = last_seq;
	pthread_mutex_unlock(&mu);
	return s;
}

size_t events_read(uint64_t after, char *buf, size_t len, uint64_t *last)
{
	size_t used = 0;
	uint64_t s;

	*last = after;
	pthread_mutex_lock(&mu);
	s = after + 1;
	if (last_seq > EVENTS_RING && s <= last_seq - EVENTS_RING) {
		/* fell behind: say so, go on from the oldest still held */
		int n = snprintf(
			buf, len, ": gap, %llu events were dropped\n\n",
			(unsigned long long)(last_seq - EVENTS_RING - s + 1));
		if (n > 0 && (size_t)n < len)
			used = (size_t)n;
		s = last_seq - EVENTS_RING + 1;
		*last = s - 1;
	}
	for (; s <= last_seq; s++) {
		const struct event *e = &ring[s % EVENTS_RING];
		int n = snprintf(buf + used, len - used,
				 "id: %llu\nevent: %s\ndata: %s\n\n",
				 (unsigned long long)e->seq, e->name, e->data);
		if ((n < 0 || (size_t)n >= len - used) && used == 0) {
			*last = s; /* larger than any reader's buffer: skipped
				    */
			continue;
		}
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		*last = s;
	}
	pthread_mutex_unlock(&mu);
	return used;
}

void events_set_waker(void (*wake)(void *arg), void *arg)
{
	pthread_mutex_lock(&mu);
	waker = wake;
	waker_arg = arg;
	pthread_mutex_unlock(&mu);
}
