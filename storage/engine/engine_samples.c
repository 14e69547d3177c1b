/*
 * engine_samples — the per-second counts of a run (struct engine_samples,
 * engine.h): each thread counts into its own array, one entry per second of
 * the measured window; here they are summed, streamed and ended.
 *
 * Design: a thread seals a second (smp_sealed, release) once it has counted
 * past it; the calling thread streams a second (o->sample_done) once every
 * thread of the workload has sealed it, reading only sealed entries
 * (acquire), so nothing is read while it is written. After the join the
 * threads' arrays are merged whole, and the end of the window decides how
 * many seconds there are and how long the last is: a ragged end under a
 * quarter second (ENGINE_FOLD_NS) is folded into the second before it. A
 * thread seals a second only once its window has run a quarter second past
 * the second's end, so no streamed second is ever folded into: what was
 * streamed is what the run ends with.
 *
 * The counters (engine_opts.counters, hostctr.h) are marked here too, by the
 * calling thread: the window's opening is boundary 0, each second's end the
 * next, the close its own mark; a second's counters are the difference of
 * the marks around it, in HOSTCTR_MARKS slots used in turn (boundary k in
 * slot k % 3, the close in the slot after the last boundary's), so the
 * last second — ragged, or folded into the one before — can still be taken
 * from its opening mark to the close. Calls nothing else of the engine.
 */
#include <limits.h>
#include <string.h>

#include "engine_int.h"

/* b's counts added to a's: one second's, a thread's or a folded end's. */
static void sample_add(struct engine_sample *a, const struct engine_sample *b)
{
	for (int d = 0; d < 2; d++) {
		a->ios[d] += b->ios[d];
		a->bytes[d] += b->bytes[d];
		a->lat_sum_ns[d] += b->lat_sum_ns[d];
	}
}

void engine_samples_begin(struct engine_samples *out)
{
	if (out->cap)
		memset(out->s, 0, out->cap * sizeof(*out->s));
	out->n = 0;
	out->last_s = 0;
}

void engine_samples_merge(struct engine_samples *out,
			  const struct engine_thread *e)
{
	for (unsigned i = 0; i < e->smp_cap; i++)
		sample_add(&out->s[i], &e->smp[i]);
}

/*
 * n = the seconds the window spans (capped), and the last one's length. A
 * ragged end shorter than a quarter second is folded into the second before
 * it (one entry of 1.0 … 1.25 s), so a few I/Os in a sliver of time do not
 * show as an absurd rate.
 */
void engine_samples_end(struct engine_samples *out, uint64_t window_ns)
{
	uint64_t full = window_ns / 1000000000ULL;
	uint64_t rest = window_ns % 1000000000ULL;

	if (!out->cap)
		return;
	out->n = (unsigned)(full + (rest ? 1 : 0));
	if (out->n == 0)
		out->n = 1;
	out->last_s = rest ? (double)rest / 1e9 : 1.0;
	if (out->n > out->cap) {
		out->n = out->cap;
		out->last_s = (double)window_ns / 1e9 - (out->cap - 1);
	}
	if (out->n > 1 && out->last_s < (double)ENGINE_FOLD_NS / 1e9) {
		sample_add(&out->s[out->n - 2], &out->s[out->n - 1]);
		out->n--;
		out->last_s += 1.0;
	}
}

/*
 * Reports the seconds of one workload (its threads th[0..n)) that every one
 * of its threads has sealed since the last call (*done: how many are
 * reported).
 * Seconds of a thread that stopped counting are all final; when every
 * thread has stopped, nothing more is reported here: the end of the run
 * (folded) comes in the samples.
 */
void engine_samples_stream(const struct engine_opts *o,
			   const struct engine_thread *th, unsigned n,
			   unsigned *done)
{
	unsigned upto = UINT_MAX;

	if (!o->sample_done || !o->samples || n == 0)
		return;
	for (unsigned k = 0; k < n; k++) {
		unsigned s = atomic_load_explicit(&th[k].smp_sealed,
						  memory_order_acquire);
		if (s < upto)
			upto = s;
	}
	if (upto == UINT_MAX)
		return;
	for (; *done < upto; (*done)++) {
		struct engine_sample sum;
		memset(&sum, 0, sizeof(sum));
		for (unsigned k = 0; k < n; k++) {
			if (!th[k].smp || *done >= th[k].smp_cap)
				continue;
			for (int d = 0; d < 2; d++) {
				sum.ios[d] += th[k].smp[*done].ios[d];
				sum.bytes[d] += th[k].smp[*done].bytes[d];
				sum.lat_sum_ns[d] +=
					th[k].smp[*done].lat_sum_ns[d];
			}
		}
		o->sample_done(o->sample_arg, *done, &sum);
	}
}

void engine_marks_begin(const struct engine_opts *o, struct engine_marks *m)
{
	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < HOSTCTR_MARKS; i++)
		m->held[i] = -1;
	if (o->counters && o->samples && o->samples->ctr)
		memset(o->samples->ctr, 0,
		       o->samples->cap * sizeof(*o->samples->ctr));
}

void engine_marks_tick(const struct engine_opts *o, struct engine_marks *m,
		       uint64_t open_ns, uint64_t now)
{
	const struct engine_samples *smp = o->samples;
	uint64_t k;
	unsigned slot;

	if (!o->counters || !smp || !smp->ctr || now < open_ns)
		return;
	k = (now - open_ns) / 1000000000ULL; /* 0: the window's opening */
	/* boundary k is marked already; past cap, later seconds fold into
	 * the last, whose opening mark is kept for the end */
	if (k < m->next || k >= smp->cap)
		return;
	slot = (unsigned)(k % HOSTCTR_MARKS);
	hostctr_mark(o->counters, slot);
	m->held[slot] = (long)k;
	if (k > 0 && m->held[(k - 1) % HOSTCTR_MARKS] == (long)k - 1)
		hostctr_diff(o->counters, (unsigned)((k - 1) % HOSTCTR_MARKS),
			     slot, &smp->ctr[k - 1]);
	m->next = (unsigned)k + 1;
}

void engine_marks_close(const struct engine_opts *o, struct engine_marks *m)
{
	if (!o->counters || !o->samples || !o->samples->ctr || m->next == 0 ||
	    m->end_slot)
		return;
	/* a slot holding neither of the last two boundaries */
	m->end_slot = (m->next % HOSTCTR_MARKS) + 1;
	hostctr_mark(o->counters, m->end_slot - 1);
	m->held[m->end_slot - 1] = -1;
}

void engine_marks_end(const struct engine_opts *o, struct engine_marks *m)
{
	struct engine_samples *smp = o->samples;
	unsigned last, from;

	if (!o->counters || !smp || !smp->ctr || !m->end_slot || smp->n == 0)
		return;
	/* the last second, ragged or folded, runs from its opening mark to
	 * the window's close; seconds after it were never measured */
	last = smp->n - 1;
	for (unsigned i = last; i < smp->cap; i++)
		memset(&smp->ctr[i], 0, sizeof(smp->ctr[i]));
	from = last % HOSTCTR_MARKS;
	if (m->held[from] == (long)last)
		hostctr_diff(o->counters, from, m->end_slot - 1,
			     &smp->ctr[last]);
}

double engine_second_len(const struct engine_samples *s, unsigned i)
{
	if (s->len_s)
		return s->len_s[i];
	return i + 1 == s->n ? s->last_s : 1.0;
}

void engine_samples_append(struct engine_samples *to,
			   const struct engine_samples *from)
{
	for (unsigned i = 0; i < from->n && to->cap; i++) {
		double len = engine_second_len(from, i);

		if (to->n < to->cap) {
			to->s[to->n] = from->s[i];
			to->len_s[to->n] = len;
			if (to->ctr)
				to->ctr[to->n] =
					from->ctr
						? from->ctr[i]
						: (struct hostctr_sample){ 0 };
			to->n++;
			continue;
		}
		sample_add(&to->s[to->cap - 1], &from->s[i]);
		to->len_s[to->cap - 1] += len;
	}
	if (to->n)
		to->last_s = to->len_s[to->n - 1];
}
