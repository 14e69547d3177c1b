/*
 * test_targets — the back-end registry and each local back-end through the
 * target interface: bytes written through a back-end are the bytes on disk
 * and read back, the null back-end touches no file, and the engine runs on
 * every back-end with figures that obey the measurement rules (bytes = I/Os ×
 * block size, IOPS × mean latency = QD × threads).
 *
 * Files live in a fresh directory under the current one (ctest runs in the
 * build tree, on a disk).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "os/os.h"
#include "targets/target.h"
#include "test.h"

static char dir[PATH_MAX - 64];

static void test_setup(void)
{
	test_scratch(dir, sizeof(dir), "targets_test");
}

static void test_registry(void)
{
	struct tgt_ops broken = *tgt_find("psync");

	ASSERT_TRUE(tgt_find("io_uring") == tgt_find("io_uring"));
	ASSERT_TRUE(tgt_find("psync") == tgt_find("psync"));
	ASSERT_TRUE(tgt_find("null") == tgt_find("null"));
	ASSERT_TRUE(tgt_find("aio") == NULL);
	ASSERT_EQ(tgt_validate(tgt_find("psync")), 0);
	broken.reap = NULL;
	ASSERT_EQ(tgt_validate(&broken), -EINVAL);
	broken = *tgt_find("psync");
	broken.version = TGT_OPS_VERSION + 1;
	ASSERT_EQ(tgt_validate(&broken), -EINVAL);
	/* this machine has io_uring: the default is the io_uring back-end */
	ASSERT_EQ(tgt_usable(tgt_find("io_uring")), 0);
	ASSERT_TRUE(tgt_local_default(NULL, 0) == tgt_find("io_uring"));
}

/* Writes a pattern through ops, checks it on disk with plain read(2), reads
 * it back through ops. */
static void roundtrip(const struct tgt_ops *ops, const char *name)
{
	char path[PATH_MAX];
	struct tgt_open_args a = {
		.path = path, .create = 1, .direct = 1, .depth = 4
	};
	struct tgt t;
	struct tgt_io w[2], r, *done[4];
	unsigned char *buf = NULL, disk[8192];
	int fd, n, got = 0;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	ASSERT_EQ(posix_memalign((void **)&buf, 4096, 3 * 8192), 0);
	for (int i = 0; i < 2 * 8192; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	memset(buf + 2 * 8192, 0, 8192);
	ASSERT_EQ(tgt_open(ops, &a, &t), 0);
	ASSERT_EQ(t.direct, 1); /* ext4 takes O_DIRECT */
	ASSERT_EQ(tgt_open(ops, &a, &(struct tgt){ 0 }), -EEXIST); /* O_EXCL */
	for (int i = 0; i < 2; i++) {
		w[i] = (struct tgt_io){ .buf = buf + i * 8192,
					.offset = i * 8192,
					.len = 8192,
					.write = 1 };
		ASSERT_EQ(tgt_queue(&t, &w[i]), 0);
	}
	ASSERT_EQ(tgt_commit(&t), 0);
	while (got < 2) {
		n = tgt_reap(&t, 1, 1000, done, 4);
		ASSERT_TRUE(n > 0);
		for (int k = 0; k < n; k++)
			ASSERT_EQ(done[k]->res, 8192);
		got += n;
	}
	ASSERT_EQ(tgt_fsync(&t), 0);
	fd = open(path, O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, disk, sizeof(disk), 8192), (ssize_t)sizeof(disk));
	close(fd);
	ASSERT_EQ(memcmp(disk, buf + 8192, sizeof(disk)), 0);

	r = (struct tgt_io){ .buf = buf + 2 * 8192, .offset = 0, .len = 8192 };
	ASSERT_EQ(tgt_queue(&t, &r), 0);
	ASSERT_EQ(tgt_commit(&t), 0);
	ASSERT_EQ(tgt_reap(&t, 1, 1000, done, 4), 1);
	ASSERT_TRUE(done[0] == &r);
	ASSERT_EQ(r.res, 8192);
	ASSERT_EQ(memcmp(buf + 2 * 8192, buf, 8192), 0);
	/* nothing in flight: a reap with a time-out comes back empty */
	ASSERT_EQ(tgt_reap(&t, 1, 50, done, 4), 0);
	tgt_close(&t);
	ASSERT_EQ(tgt_unlink(ops, path, NULL), 0);
	ASSERT_EQ(access(path, F_OK), -1);
	free(buf);
}

static void test_uring_roundtrip(void)
{
	roundtrip(tgt_find("io_uring"), "uring");
}

static void test_psync_roundtrip(void)
{
	roundtrip(tgt_find("psync"), "psync");
}

/* engine_run on ops; checks the rules every result obeys. */
static void run_checked(const struct tgt_ops *ops, const char *path,
			enum wl_pattern pat, unsigned read_pct, uint32_t bs,
			unsigned qd, unsigned threads, struct result *r)
{
	char err[256] = "";
	struct engine_sample s[3];
	struct engine_samples smp = { .s = s, .cap = 3 };
	struct engine_opts o = { .ops = ops,
				 .path = path,
				 .direct = 1,
				 .error = err,
				 .error_len = sizeof(err),
				 .samples = &smp };
	uint64_t ios = 0, bytes = 0, lat = 0;
	struct workload w = { .name = "t",
			      .pattern = pat,
			      .read_pct = read_pct,
			      .block_size = bs,
			      .queue_depth = qd,
			      .threads = threads,
			      .file_size = 16 << 20,
			      .duration_s = 0.3 };
	double in_flight;

	/* Little's law holds when the engine keeps the queue full; an engine
	 * thread the scheduler starts late on a busy 2-core machine leaves it
	 * short for part of a 0.3 s window, so a miss is measured again (up
	 * to three times, each printed): an accounting error misses every
	 * time. */
	for (int attempt = 1;; attempt++) {
		memset(s, 0, sizeof(s));
		smp.n = 0;
		ASSERT_EQ(engine_run(&o, &w, r), 0);
		ASSERT_TRUE(r->ios > 0);
		ASSERT_U64_EQ(r->bytes, r->ios * bs);
		in_flight = r->iops * r->lat_mean_us / 1e6;
		if (attempt == 3 ||
		    fabs(in_flight - qd * threads) <= 0.10 * qd * threads)
			break;
		fprintf(stderr,
			"  note: %s QD%u T%u kept %.2f of %u in flight "
			"(a busy machine?); measuring again\n",
			ops->name, qd, threads, in_flight, qd * threads);
	}
	ASSERT_NEAR_REL(in_flight, (double)(qd * threads), 0.10);
	/* per-second counts: the same I/Os as the result, to the byte */
	ASSERT_EQ(smp.n, 1); /* a 0.3 s window is one (short) second */
	ASSERT_NEAR_REL(smp.last_s, r->seconds, 1e-9);
	for (unsigned i = 0; i < smp.n; i++)
		for (int d = 0; d < 2; d++) {
			ios += s[i].ios[d];
			bytes += s[i].bytes[d];
			lat += s[i].lat_sum_ns[d];
		}
	ASSERT_U64_EQ(ios, r->ios);
	ASSERT_U64_EQ(bytes, r->bytes);
	ASSERT_U64_EQ(lat, r->lat_sum_ns);
	if (read_pct == 100)
		ASSERT_U64_EQ(s[0].ios[1], 0);
	if (read_pct == 0)
		ASSERT_U64_EQ(s[0].ios[0], 0);
}

static void test_engine_on_psync(void)
{
	char path[PATH_MAX], err[256] = "";
	struct engine_opts o = { .ops = tgt_find("psync"),
				 .path = path,
				 .direct = 1,
				 .error = err,
				 .error_len = sizeof(err) };
	struct result r;
	int direct = -1;

	snprintf(path, sizeof(path), "%s/engine-psync.dat", dir);
	ASSERT_EQ(engine_prepare_file(&o, 16 << 20, WL_DATA_RANDOM, &direct),
		  0);
	ASSERT_EQ(direct, 1);
	run_checked(tgt_find("psync"), path, WL_RANDOM, 100, 4096, 4, 1, &r);
	run_checked(tgt_find("psync"), path, WL_SEQUENTIAL, 0, 1 << 20, 2, 2,
		    &r);
	run_checked(tgt_find("psync"), path, WL_RANDOM, 70, 8192, 8, 2, &r);
	ASSERT_EQ(tgt_unlink(tgt_find("psync"), path, NULL), 0);
}

static int cmp_block(const void *a, const void *b)
{
	return memcmp(*(void *const *)a, *(void *const *)b, 4096);
}

/* After thousands of 4 KiB random writes from 8 slot buffers, no two blocks
 * of the file hold the same bytes: every write was unique (no dedup). */
static void test_writes_are_unique(void)
{
	char path[PATH_MAX], err[256] = "";
	struct engine_opts o = { .ops = tgt_find("io_uring"),
				 .path = path,
				 .direct = 1,
				 .error = err,
				 .error_len = sizeof(err) };
	const size_t size = 16 << 20, n = size / 4096;
	unsigned char *data = malloc(size),
		      **blocks = malloc(n * sizeof(*blocks));
	struct result r;
	int direct, fd, dups = 0;

	ASSERT_TRUE(data && blocks);
	snprintf(path, sizeof(path), "%s/unique.dat", dir);
	ASSERT_EQ(engine_prepare_file(&o, size, WL_DATA_RANDOM, &direct), 0);
	run_checked(tgt_find("io_uring"), path, WL_RANDOM, 0, 4096, 8, 1, &r);
	ASSERT_TRUE(r.ios > n / 4); /* enough overwrites to matter */
	fd = open(path, O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, data, size, 0), (ssize_t)size);
	close(fd);
	for (size_t i = 0; i < n; i++)
		blocks[i] = data + i * 4096;
	qsort(blocks, n, sizeof(*blocks), cmp_block);
	for (size_t i = 1; i < n; i++)
		dups += memcmp(blocks[i - 1], blocks[i], 4096) == 0;
	free(blocks);
	free(data);
	ASSERT_EQ(dups, 0);
	ASSERT_EQ(tgt_unlink(tgt_find("io_uring"), path, NULL), 0);
}

static void test_null_touches_nothing(void)
{
	char path[PATH_MAX], err[256] = "";
	struct engine_opts o = { .ops = tgt_find("null"),
				 .path = path,
				 .direct = 1,
				 .error = err,
				 .error_len = sizeof(err) };
	struct result r;
	int direct = -1;

	snprintf(path, sizeof(path), "%s/null.dat", dir);
	ASSERT_EQ(engine_prepare_file(&o, 16 << 20, WL_DATA_RANDOM, &direct),
		  0);
	ASSERT_EQ(access(path, F_OK), -1); /* no file was made */
	run_checked(tgt_find("null"), path, WL_RANDOM, 100, 4096, 32, 1, &r);
	/* no device: the engine alone does far more than any disk here */
	ASSERT_TRUE(r.iops > 100000);
	/* and it never waits: one thread keeps one core busy for the window */
	ASSERT_TRUE(r.cpu_user_s + r.cpu_sys_s >= 0.5 * r.seconds);
	ASSERT_TRUE(r.cpu_user_s + r.cpu_sys_s <= 2.0 * r.seconds + 0.05);
	run_checked(tgt_find("null"), path, WL_RANDOM, 50, 4096, 16, 4, &r);
	ASSERT_EQ(access(path, F_OK), -1);
}

/* A ramp runs I/O that no figure counts: the window is the duration alone,
 * the run takes ramp + duration, and the samples still add up. */
static void test_ramp_is_excluded(void)
{
	char err[256] = "";
	struct engine_sample s[3];
	struct engine_samples smp = { .s = s, .cap = 3 };
	struct engine_opts o = { .ops = tgt_find("null"),
				 .path = "/nonexistent",
				 .error = err,
				 .error_len = sizeof(err),
				 .samples = &smp };
	struct workload w = { .name = "t",
			      .pattern = WL_RANDOM,
			      .read_pct = 100,
			      .block_size = 4096,
			      .queue_depth = 8,
			      .threads = 2,
			      .file_size = 16 << 20,
			      .duration_s = 0.3,
			      .ramp_s = 0.4 };
	struct result r;
	uint64_t t0 = os_now_ns(), ios = 0;

	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(os_now_ns() - t0 >= 700000000ULL);
	ASSERT_TRUE(r.seconds >= 0.3 && r.seconds < 0.4);
	ASSERT_TRUE(r.ios > 0);
	for (unsigned i = 0; i < smp.n; i++)
		ios += s[i].ios[0] + s[i].ios[1];
	ASSERT_U64_EQ(ios, r.ios);
	/* the window's IOPS, not diluted or inflated by the ramp */
	ASSERT_NEAR_REL(r.iops, (double)r.ios / r.seconds, 1e-9);
	w.ramp_s = -1;
	ASSERT_EQ(engine_run(&o, &w, &r), -EINVAL);
	ASSERT_TRUE(strstr(err, "ramp") != NULL);
}

/* The open flags of the fd this process has on path, from /proc; -1 if none. */
static long fd_flags(const char *path)
{
	char link[300], target[PATH_MAX], info[4096];
	long flags = -1;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL) {
		ssize_t n;
		FILE *f;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, path) != 0)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fdinfo/%s",
			 de->d_name);
		if ((f = fopen(link, "r")) == NULL)
			continue;
		while (fgets(info, sizeof(info), f))
			if (strncmp(info, "flags:", 6) == 0)
				flags = strtol(info + 6, NULL, 8);
		fclose(f);
	}
	if (d)
		closedir(d);
	return flags;
}

/* Sync modes: O_DSYNC is on the fd; fdatasync runs at least every N writes
 * (one call covers every write completed before it). */
static void test_sync_modes(void)
{
	char path[PATH_MAX], err[256] = "";
	struct tgt_open_args a = {
		.path = path, .direct = 1, .dsync = 1, .depth = 1
	};
	struct engine_opts o = { .ops = tgt_find("null"),
				 .path = "/nonexistent",
				 .error = err,
				 .error_len = sizeof(err) };
	struct workload w = { .name = "t",
			      .pattern = WL_RANDOM,
			      .read_pct = 0,
			      .block_size = 4096,
			      .queue_depth = 8,
			      .threads = 1,
			      .file_size = 16 << 20,
			      .duration_s = 0.3,
			      .sync = WL_SYNC_FDATASYNC,
			      .sync_every = 4 };
	struct result r;
	struct tgt t;
	long flags;
	int direct;

	snprintf(path, sizeof(path), "%s/dsync.dat", dir);
	o.path = path;
	o.ops = tgt_find("io_uring");
	ASSERT_EQ(engine_prepare_file(&o, 16 << 20, WL_DATA_RANDOM, &direct),
		  0);
	ASSERT_EQ(tgt_open(tgt_find("io_uring"), &a, &t), 0);
	flags = fd_flags(path);
	ASSERT_TRUE(flags >= 0 && (flags & O_DSYNC) == O_DSYNC);
	tgt_close(&t);
	a.dsync = 0;
	ASSERT_EQ(tgt_open(tgt_find("io_uring"), &a, &t), 0);
	flags = fd_flags(path);
	ASSERT_TRUE(flags >= 0 && (flags & O_DSYNC) == 0);
	tgt_close(&t);
	/* an O_DSYNC write run on the real file works and counts no fdatasync
	 */
	w.sync = WL_SYNC_DSYNC;
	w.queue_depth = 2;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 0);
	ASSERT_U64_EQ(r.bytes, r.ios * 4096);
	ASSERT_U64_EQ(r.syncs, 0);
	/* real fdatasync calls on the real file */
	w.sync = WL_SYNC_FDATASYNC;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.syncs > 0 && r.syncs <= r.ios / 4 + 1);
	w.queue_depth = 8;
	ASSERT_EQ(tgt_unlink(tgt_find("io_uring"), path, NULL), 0);

	w.sync = WL_SYNC_FDATASYNC;
	o.ops = tgt_find("null");
	o.path = "/nonexistent";
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.syncs > 0);
	ASSERT_TRUE(r.syncs <= r.ios / 4 + 1);
	ASSERT_TRUE(r.syncs >= r.ios / (4 + 8));
	w.sync_every = 0;
	ASSERT_EQ(engine_run(&o, &w, &r), -EINVAL);
	w.sync = WL_SYNC_NONE;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_U64_EQ(r.syncs, 0);
}

/* Every test removed its files: what is left is removed first (a failed
 * test leaves nothing behind), then counted. */
static void test_cleanup(void)
{
	char path[sizeof(dir) + 260];
	struct dirent *de;
	DIR *d = opendir(dir);
	int left = 0;

	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) == 0)
			left++;
	}
	if (d)
		closedir(d);
	ASSERT_EQ(rmdir(dir), 0);
	ASSERT_EQ(left, 0);
}

TEST_MAIN(test_setup, test_registry, test_uring_roundtrip, test_psync_roundtrip,
	  test_engine_on_psync, test_writes_are_unique,
	  test_null_touches_nothing, test_ramp_is_excluded, test_sync_modes,
	  test_cleanup)
