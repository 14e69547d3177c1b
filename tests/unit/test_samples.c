/*
 * test_samples.c — the seconds of a window as the engine streams them while
 * it runs (engine_opts.samples, sample_done): each whole second reported on
 * the calling thread, in order, with the counts the run ends with, and the
 * ragged or folded last second never streamed, whatever the timing. On the
 * null back-end, so the seconds are the engine's own, with no device under
 * them; the engine on a real file is test_engine.c.
 */
#include "engine/engine.h"
#include "os/os.h"
#include "probe/hostctr.h"
#include "test.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static char err[256];

/* RND 70/30 4 KiB at QD 8 × 2 threads for duration s on the null back-end. */
static struct workload null_wl(double duration)
{
	struct workload w = {
		.pattern = WL_RANDOM,
		.read_pct = 70,
		.block_size = 4096,
		.queue_depth = 8,
		.threads = 2,
		.file_size = 16ULL << 20,
		.duration_s = duration,
	};
	snprintf(w.name, sizeof(w.name), "test");
	return w;
}

/* What stream_seen records of the seconds reported during a run. */
struct streamed {
	struct engine_sample s[8];
	unsigned n; /* seconds reported, in order */
	int out_of_order;
	int other_thread;  /* reported on a thread other than the caller's */
	uint64_t at_ns[8]; /* when each was reported */
	pthread_t caller;
};

static void stream_seen(void *arg, unsigned second,
			const struct engine_sample *s)
{
	struct streamed *st = arg;

	if (second != st->n || st->n >= 8) {
		st->out_of_order = 1;
		return;
	}
	if (!pthread_equal(pthread_self(), st->caller))
		st->other_thread = 1;
	st->s[second] = *s;
	st->at_ns[second] = os_now_ns();
	st->n++;
}

/* Options for a run on the null back-end whose seconds go to smp and are
 * streamed into st. */
static struct engine_opts stream_opts(struct engine_samples *smp,
				      struct streamed *st)
{
	return (struct engine_opts){ .ops = tgt_find("null"),
				     .path = "/nonexistent",
				     .error = err,
				     .error_len = sizeof(err),
				     .samples = smp,
				     .sample_done = stream_seen,
				     .sample_arg = st };
}

/*
 * Each second of the window is reported while the run goes on (so the
 * daemon can store it before a kill), on the calling thread, in order, with
 * the same counts the run ends with; the ragged last second is not (it
 * comes with the end). 2.5 s on the null back-end: seconds 0 and 1
 * reported, the first well before the end.
 */
static void test_samples_streamed(void)
{
	struct engine_sample s[4];
	struct hostctr_sample c[4];
	struct hostctr *h = NULL;
	struct engine_samples smp = { .s = s, .cap = 4, .ctr = c };
	struct streamed st = { .caller = pthread_self() };
	struct engine_opts o = stream_opts(&smp, &st);
	struct workload w = null_wl(2.5);
	struct result r;
	uint64_t t_end;

	ASSERT_EQ(hostctr_open(NULL, &h), 0);
	o.counters = h;
	memset(c, 0xff, sizeof(c));
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	t_end = os_now_ns();
	ASSERT_TRUE(!st.out_of_order && !st.other_thread);
	ASSERT_EQ(smp.n, 3);
	ASSERT_EQ(st.n, 2);
	/* the counters were marked at the engine's second boundaries: each
	 * whole second's interval is a second (to a few ms), the ragged last
	 * one runs to the close; nothing after n; the CPU busy (the null
	 * back-end spins two threads) */
	for (unsigned i = 0; i < smp.n; i++) {
		double want = i + 1 == smp.n ? smp.last_s : 1.0;
		if (!(c[i].have & HOSTCTR_CPU))
			continue; /* a system without /proc/stat */
		ASSERT_TRUE(fabs(c[i].interval_s - want) < 0.03);
		ASSERT_TRUE(c[i].cpu_busy > 0 && c[i].core_busy <= 100);
	}
	ASSERT_EQ(c[3].have, 0u);
	hostctr_close(h);
	/* reported about 1.3 s in, the run ends at 2.5 s: not at the end */
	ASSERT_TRUE(t_end - st.at_ns[0] > 500000000ULL);
	for (unsigned i = 0; i < st.n; i++)
		for (int d = 0; d < 2; d++) {
			ASSERT_TRUE(s[i].ios[d] > 0);
			ASSERT_U64_EQ(st.s[i].ios[d], s[i].ios[d]);
			ASSERT_U64_EQ(st.s[i].bytes[d], s[i].bytes[d]);
			ASSERT_U64_EQ(st.s[i].lat_sum_ns[d],
				      s[i].lat_sum_ns[d]);
		}
}

/*
 * A window of a whole number of seconds ends a sliver past its last second,
 * and the sliver is folded into that second: the second must not have been
 * reported (its counts and length change at the end), whatever the timing.
 * 2 s on the null back-end: second 0 reported, second 1 (1.0 … 1.25 s,
 * folded) only in the samples; what was reported is what the run ends with.
 */
static void test_samples_folded_not_streamed(void)
{
	struct engine_sample s[3];
	struct engine_samples smp = { .s = s, .cap = 3 };
	struct streamed st = { .caller = pthread_self() };
	struct engine_opts o = stream_opts(&smp, &st);
	struct workload w = null_wl(2.0);
	struct result r;

	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(!st.out_of_order && !st.other_thread);
	ASSERT_EQ(smp.n, 2);
	ASSERT_TRUE(smp.last_s >= 1.0 && smp.last_s < 1.25);
	ASSERT_EQ(st.n, 1);
	for (int d = 0; d < 2; d++) {
		ASSERT_U64_EQ(st.s[0].ios[d], s[0].ios[d]);
		ASSERT_U64_EQ(st.s[0].lat_sum_ns[d], s[0].lat_sum_ns[d]);
	}
}

TEST_MAIN(test_samples_streamed, test_samples_folded_not_streamed)
