/*
 * vs-fio-fio — fio's side of storbench-vs-fio (vs-fio.h): Debian's fio run
 * with the workload's options on the test file storbench made, its JSON
 * (lat_ns with lat_percentiles=1, usr_cpu and sys_cpu) read into the same
 * measures as the engine's, and the huge pages fio's buffers may use.
 */
#include "vs-fio.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

extern char **environ;

/* See vs-fio.h. */
char *capture(char *const argv[])
{
	int pipefd[2], status;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	ssize_t n;

	if (!out || pipe(pipefd) != 0) {
		free(out);
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		free(out);
		return NULL;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			char *bigger = realloc(out, cap * 2);
			if (!bigger)
				break;
			out = bigger;
			cap *= 2;
		}
	}
	close(pipefd[0]);
	out[len] = '\0';
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "fio failed (status %d):\n%s\n", status, out);
		free(out);
		return NULL;
	}
	return out;
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static double pct(json_t *dir, const char *p)
{
	json_t *v = json_object_get(
		json_object_get(json_object_get(dir, "lat_ns"), "percentile"),
		p);

	return v ? json_number_value(v) / 1e3 : NAN;
}

int run_fio(const struct xw *x, struct meas *m, int shmhuge)
{
	char a[16][PATH_MAX + 80];
	char *argv[32];
	int n = 0;
	const char *rw =
		x->read_pct == 100
			? (x->pattern == WL_SEQUENTIAL ? "read" : "randread")
		: x->read_pct == 0
			? (x->pattern == WL_SEQUENTIAL ? "write" : "randwrite")
			: (x->pattern == WL_SEQUENTIAL ? "rw" : "randrw");
	char *out, *json_start;
	json_t *root, *jobs, *job;
	size_t i;
	double ios = 0, lat_sum_us = 0, cpu_s = 0, iops = 0, runtime_s = 0;

#define ARG(...)                                                               \
	(snprintf(a[n], sizeof(a[n]), __VA_ARGS__), argv[n] = a[n], n++)
	argv[n++] = "fio";
	argv[n++] = "--output-format=json";
	argv[n++] = "--name=xcheck";
	ARG("--filename=%s", file);
	ARG("--ioengine=%s", cfg.null_engine ? "null" : "io_uring");
	argv[n++] = "--direct=1";
	ARG("--rw=%s", rw);
	ARG("--rwmixread=%u", x->read_pct);
	ARG("--bs=%u", x->bs);
	ARG("--iodepth=%u", x->qd);
	ARG("--numjobs=%u", x->threads);
	/* sequential threads walk their own region, as storbench's do */
	if (x->pattern == WL_SEQUENTIAL && x->threads > 1) {
		ARG("--size=%llu", (unsigned long long)(cfg.size / x->threads));
		ARG("--offset_increment=%llu",
		    (unsigned long long)(cfg.size / x->threads));
	} else {
		ARG("--size=%llu", (unsigned long long)cfg.size);
	}
	argv[n++] = "--time_based";
	ARG("--runtime=%.0fms", cfg.duration * 1000);
	argv[n++] = "--lat_percentiles=1";
	argv[n++] = "--randrepeat=0";
	argv[n++] = "--norandommap";
	argv[n++] = "--thread";
	/*
	 * Against dedup, storbench changes two words in every 4 KiB of a
	 * write (stamp_blocks), fio by default some in every 512 B: eight
	 * times the work. On a device that work is a confound, not what is
	 * compared: it cost fio 20 % of its SEQ1M Q8T1 write IOPS and 5 ×
	 * storbench's CPU per I/O on the CI machine, so there fio writes
	 * its buffers unchanged (its IOPS then matched storbench's: that
	 * disk does not deduplicate). On the null back-ends the cost is
	 * what is compared, and each tool keeps its own default defence.
	 */
	if (!cfg.null_engine)
		argv[n++] = "--scramble_buffers=0";
	if (shmhuge)
		argv[n++] = "--iomem=shmhuge";
	argv[n] = NULL;
#undef ARG
	if (!(out = capture(argv)))
		return -EIO;
	json_start = strchr(out, '{'); /* fio may print warnings first */
	root = json_start ? json_loads(json_start, JSON_DISABLE_EOF_CHECK, NULL)
			  : NULL;
	free(out);
	jobs = json_object_get(root, "jobs");
	if (!json_is_array(jobs) || json_array_size(jobs) == 0) {
		fprintf(stderr, "fio %s: no jobs in its JSON\n", x->name);
		json_decref(root);
		return -EIO;
	}
	m->p50_us = m->p99_us = NAN;
	json_array_foreach(jobs, i, job)
	{
		double rt = num(job, "job_runtime") / 1e3;
		for (int d = 0; d < 2; d++) {
			json_t *dir =
				json_object_get(job, d ? "write" : "read");
			json_t *lat = json_object_get(dir, "lat_ns");
			double n_io = num(lat, "N");
			ios += n_io;
			iops += num(dir, "iops");
			lat_sum_us += n_io * num(lat, "mean") / 1e3;
			/* percentiles of one direction: only for a pure
			 * workload with one job do they mean the whole test */
			if (n_io > 0 &&
			    (x->read_pct == 100 || x->read_pct == 0) &&
			    x->threads == 1) {
				m->p50_us = pct(dir, "50.000000");
				m->p99_us = pct(dir, "99.000000");
			}
		}
		cpu_s += (num(job, "usr_cpu") + num(job, "sys_cpu")) / 100 * rt;
		if (rt > runtime_s)
			runtime_s = rt;
	}
	json_decref(root);
	if (ios <= 0)
		return -EIO;
	m->iops = iops;
	m->cpu_per_io_ns = cpu_s * 1e9 / ios;
	m->lat_mean_us = lat_sum_us / ios;
	m->little = x->qd * x->threads / iops * 1e6 / m->lat_mean_us;
	return 0;
}

/*
 * storbench's buffers are transparent huge pages, so a 1 MiB direct I/O is
 * one device request; fio's default buffers are 4 KiB pages, which a device
 * with a segment limit (virtio-blk: 254) splits in two. To compare like
 * with like, reserve hugetlb pages (root; restored at exit) and give fio
 * iomem=shmhuge. Returns whether fio gets it.
 */
int reserve_hugepages(void)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r+");
	int old = -1, want = 64; /* 128 MiB: 8 × 1 MiB × 2 jobs, with room */

	if (!f)
		return 0;
	if (fscanf(f, "%d", &old) != 1 || old >= want) {
		fclose(f);
		return old >= want;
	}
	rewind(f);
	if (fprintf(f, "%d\n", want) < 0 || fflush(f) != 0) {
		fclose(f);
		return 0;
	}
	fclose(f);
	cfg.hugepages_old = old;
	return 1;
}

void restore_hugepages(void)
{
	FILE *f;

	if (cfg.hugepages_old < 0 ||
	    !(f = fopen("/proc/sys/vm/nr_hugepages", "w")))
		return;
	fprintf(f, "%d\n", cfg.hugepages_old);
	fclose(f);
	cfg.hugepages_old = -1;
}
