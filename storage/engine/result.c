/*
 * result — see result.h.
 */
#include "result.h"

void result_finish(struct result *r)
{
	r->seconds = (double)r->window_ns / 1e9;
	if (r->window_ns == 0) {
		r->mb_s = r->mib_s = r->iops = 0.0;
	} else {
		r->mb_s = (double)r->bytes / r->seconds / 1e6;
		r->mib_s = (double)r->bytes / r->seconds / 1048576.0;
		r->iops = (double)r->ios / r->seconds;
	}
	r->lat_mean_us =
		r->ios ? (double)r->lat_sum_ns / (double)r->ios / 1e3 : 0.0;
}

void result_add(struct result *a, const struct result *b)
{
	a->ios += b->ios;
	a->bytes += b->bytes;
	a->lat_sum_ns += b->lat_sum_ns;
	a->cpu_user_s += b->cpu_user_s;
	a->cpu_sys_s += b->cpu_sys_s;
	a->syncs += b->syncs;
	for (int d = 0; d < 2; d++) {
		a->dir_ios[d] += b->dir_ios[d];
		a->dir_bytes[d] += b->dir_bytes[d];
		a->dir_lat_sum_ns[d] += b->dir_lat_sum_ns[d];
	}
	if (b->window_ns > a->window_ns)
		a->window_ns = b->window_ns;
	/* the earliest opening: a window measured in slices opens with its
	 * first */
	if (b->start_unix_ns &&
	    (!a->start_unix_ns || b->start_unix_ns < a->start_unix_ns))
		a->start_unix_ns = b->start_unix_ns;
}

int result_best(const struct result *r, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (best < 0 || r[i].mb_s > r[best].mb_s)
			best = i;
	return best;
}
