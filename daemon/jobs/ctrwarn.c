/*
 * ctrwarn — see ctrwarn.h. Every limit is in ctrwarn_limits, here and
 * nowhere else.
 */
#include "ctrwarn.h"

#include <stdio.h>

static const struct {
	double ratio;	    /* rates this many times apart: RATES */
	double min_bytes;   /* … when the larger side moved this many
			       bytes (a tiny test is not judged) */
	double min_ios;	    /* … and completed this many I/Os */
	double min_s;	    /* … over at least this many seconds of device
			       counters (in a moment, the device's own
			       background — write-back, a journal commit —
			       can outweigh the test) */
	double core_pct;    /* a core this busy in a second: saturated */
	double core_share;  /* … in more than this share of the seconds */
	double core_s;	    /* a second counts when its counters span at
			       least this long (a window's short end, a
			       round of 0.1 s: a few USER_HZ ticks, where
			       any running thread reads as 100 %) */
	unsigned core_n;    /* … and an iteration is judged with at least
			       this many such seconds */
	double dirty_bytes; /* dirty + write-back rising this much: DIRTY */
} ctrwarn_limits = {
	.ratio = 2.0,
	.min_bytes = 8e6,
	.min_ios = 256,
	.min_s = 0.95,
	.core_pct = 95.0,
	.core_share = 0.5,
	.core_s = 0.95,
	.core_n = 2,
	.dirty_bytes = 32e6,
};

/* The engine's and the device's counts in direction d (0 reads, 1
 * writes) over the seconds that have device counters. */
struct both {
	double e_bytes, e_ios, d_bytes, d_ios, s;
};

static struct both sum_dir(const struct engine_samples *smp, int d)
{
	struct both b = { 0 };

	for (unsigned i = 0; i < smp->n; i++) {
		const struct hostctr_sample *c = &smp->ctr[i];
		if (!(c->have & HOSTCTR_DEV))
			continue;
		b.e_bytes += (double)smp->s[i].bytes[d];
		b.e_ios += (double)smp->s[i].ios[d];
		b.d_bytes +=
			(double)(d ? c->dev.write_bytes : c->dev.read_bytes);
		b.d_ios += (double)(d ? c->dev.writes : c->dev.reads);
		b.s += engine_second_len(smp, i);
	}
	return b;
}

static int check_rates(struct archive *a, int64_t run_id,
		       const struct workload *w,
		       const struct engine_samples *smp)
{
	const char *dev = NULL;
	char text[600];

	for (unsigned i = 0; i < smp->n && !dev; i++)
		if (smp->ctr[i].have & HOSTCTR_DEV)
			dev = smp->ctr[i].dev.name;
	for (int d = 0; dev && d < 2; d++) {
		struct both b = sum_dir(smp, d);
		const char *verb = d ? "wrote" : "read";
		double big = b.e_bytes > b.d_bytes ? b.e_bytes : b.d_bytes;
		double ios = b.e_bytes > b.d_bytes ? b.e_ios : b.d_ios;
		int engine_ahead = b.e_bytes > b.d_bytes;
		double small = engine_ahead ? b.d_bytes : b.e_bytes;
		if ((d == 0 && w->read_pct == 0) ||
		    (d == 1 && w->read_pct == 100))
			continue;
		if (b.s < ctrwarn_limits.min_s ||
		    big < ctrwarn_limits.min_bytes ||
		    ios < ctrwarn_limits.min_ios ||
		    big < ctrwarn_limits.ratio * small)
			continue;
		snprintf(text, sizeof(text),
			 "%s %s: the engine %s %.1f MB/s (%.0f IOPS), the "
			 "device %s %s %.1f MB/s (%.0f IOPS): %s",
			 w->name, wl_rw(w), verb, b.e_bytes / 1e6 / b.s,
			 b.e_ios / b.s, dev, verb, b.d_bytes / 1e6 / b.s,
			 b.d_ios / b.s,
			 engine_ahead
				 ? "the engine was served by a cache (the page "
				   "cache, a controller's) or a layer in "
				   "between absorbed the I/O; the device's "
				   "speed was not measured"
				 : "the device did more than the engine asked: "
				   "amplification by read-ahead, "
				   "read-modify-write, journalling or a layer "
				   "in between");
		archive_run_warn(a, run_id, text);
		return 1;
	}
	return 0;
}

static int check_core(struct archive *a, int64_t run_id,
		      const struct workload *w,
		      const struct engine_samples *smp)
{
	unsigned seconds = 0, hot = 0;
	double top = 0;
	int core = -1;
	char text[400];

	for (unsigned i = 0; i < smp->n; i++) {
		const struct hostctr_sample *c = &smp->ctr[i];
		if (!(c->have & HOSTCTR_CPU) ||
		    c->interval_s < ctrwarn_limits.core_s)
			continue;
		seconds++;
		if (c->core_busy >= ctrwarn_limits.core_pct)
			hot++;
		if (c->core_busy > top) {
			top = c->core_busy;
			core = c->core;
		}
	}
	if (seconds < ctrwarn_limits.core_n ||
	    hot <= ctrwarn_limits.core_share * seconds)
		return 0;
	snprintf(text, sizeof(text),
		 "%s %s: a CPU core was at least %.0f %% busy in %u of %u "
		 "seconds (core %d at %.1f %%): the CPU, not the device, may "
		 "be the limit",
		 w->name, wl_rw(w), ctrwarn_limits.core_pct, hot, seconds, core,
		 top);
	archive_run_warn(a, run_id, text);
	return 1;
}

static int check_dirty(struct archive *a, int64_t run_id,
		       const struct workload *w, int direct,
		       const struct engine_samples *smp)
{
	const struct hostctr_sample *first = NULL, *last = NULL;
	double written = 0, rise;
	char text[400];

	if (direct || w->read_pct == 100)
		return 0;
	for (unsigned i = 0; i < smp->n; i++) {
		written += (double)smp->s[i].bytes[1];
		if (!(smp->ctr[i].have & HOSTCTR_MEM))
			continue;
		if (!first)
			first = &smp->ctr[i];
		last = &smp->ctr[i];
	}
	if (!first)
		return 0;
	rise = (double)(last->mem_dirty + last->mem_writeback) -
	       (double)first->mem_dirty_start;
	if (rise < ctrwarn_limits.dirty_bytes)
		return 0;
	snprintf(text, sizeof(text),
		 "%s %s: buffered writes grew dirty and write-back memory by "
		 "%.0f MB over the test (the engine wrote %.0f MB): the run "
		 "measured write-back into memory, not the device",
		 w->name, wl_rw(w), rise / 1e6, written / 1e6);
	archive_run_warn(a, run_id, text);
	return 1;
}

unsigned ctrwarn_check(struct archive *a, int64_t run_id,
		       const struct workload *w, int direct,
		       const struct engine_samples *smp, unsigned given)
{
	unsigned now = 0;

	if (!smp || !smp->ctr || smp->n == 0)
		return 0;
	if (!(given & CTRWARN_RATES) && check_rates(a, run_id, w, smp))
		now |= CTRWARN_RATES;
	if (!(given & CTRWARN_CORE) && check_core(a, run_id, w, smp))
		now |= CTRWARN_CORE;
	if (!(given & CTRWARN_DIRTY) && check_dirty(a, run_id, w, direct, smp))
		now |= CTRWARN_DIRTY;
	return now;
}
