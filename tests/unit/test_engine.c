/*
 * test_engine.c — the engine against a real file on a real filesystem.
 *
 * Everything happens in a fresh directory under the current directory (ctest
 * runs in the build tree, on a disk, not on tmpfs) through the default
 * back-end (io_uring), and is removed at the end. The engine's measurements
 * are not compared to numbers fixed in advance (they depend on the machine);
 * they are checked for the invariants that hold on every machine: counts
 * agree with each other, the window covers the requested duration, cancel is
 * prompt, and the test file holds no repeated block. The seconds it streams
 * while it runs are test_samples.c's.
 */
#include "engine/engine.h"
#include "os/os.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MIB (1ULL << 20)
#define FILE_SIZE (16 * MIB)

static char dir[PATH_MAX];
static char data_path[PATH_MAX + 32];
static char err[256];

static struct engine_opts opts(const char *path, const atomic_int *cancel)
{
	struct engine_opts o = {
		.ops = tgt_find("io_uring"),
		.path = path,
		.direct = 1,
		.cancel = cancel,
		.error = err,
		.error_len = sizeof(err),
	};
	err[0] = '\0';
	return o;
}

static int cmp_block(const void *a, const void *b)
{
	return memcmp(*(const unsigned char *const *)a,
		      *(const unsigned char *const *)b, 4096);
}

/* Creates the shared data file once; every later test reads or writes it. */
static void test_prepare_creates_file(void)
{
	struct engine_opts o = opts(data_path, NULL);
	const size_t n = FILE_SIZE / 4096;
	unsigned char *buf = NULL, **blocks = NULL;
	struct stat st;
	int direct = -1, fd, nonzero = 0;

	ASSERT_TRUE(o.ops != NULL);
	ASSERT_EQ(engine_prepare_file(&o, FILE_SIZE, WL_DATA_RANDOM, &direct),
		  0);
	ASSERT_TRUE(direct == 0 || direct == 1);
	ASSERT_EQ(stat(data_path, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(st.st_size, FILE_SIZE);

	/* incompressible-looking: not zero, and no 4 KiB block twice */
	buf = malloc(FILE_SIZE);
	blocks = malloc(n * sizeof(*blocks));
	ASSERT_TRUE(buf && blocks);
	fd = open(data_path, O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, buf, FILE_SIZE, 0), FILE_SIZE);
	close(fd);
	for (size_t i = 0; i < FILE_SIZE && !nonzero; i++)
		nonzero = buf[i] != 0;
	for (size_t i = 0; i < n; i++)
		blocks[i] = buf + i * 4096;
	qsort(blocks, n, sizeof(*blocks), cmp_block);
	for (size_t i = 1; i < n; i++)
		if (memcmp(blocks[i - 1], blocks[i], 4096) == 0)
			nonzero = -1;
	free(blocks);
	free(buf);
	ASSERT_EQ(nonzero, 1);
}

static void test_prepare_refuses_existing(void)
{
	char path[PATH_MAX + 32] = "", back[64] = { 0 };
	static const char keep[] = "precious data, not a test file";
	struct engine_opts o = opts(path, NULL);
	struct stat st;
	int direct, fd;

	snprintf(path, sizeof(path), "%s/existing", dir);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, keep, sizeof(keep)), sizeof(keep));
	close(fd);

	ASSERT_EQ(engine_prepare_file(&o, 4 * MIB, WL_DATA_RANDOM, &direct),
		  -EEXIST);
	ASSERT_TRUE(strstr(err, "already exists") != NULL);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_EQ(st.st_size, sizeof(keep));
	fd = open(path, O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(read(fd, back, sizeof(back)), sizeof(keep));
	close(fd);
	ASSERT_STR_EQ(back, keep);
	ASSERT_EQ(unlink(path), 0);

	/* a size that is not whole MiB: refused, nothing created */
	ASSERT_EQ(engine_prepare_file(&o, MIB + 4096, WL_DATA_RANDOM, &direct),
		  -EINVAL);
	ASSERT_TRUE(err[0] != '\0');
	ASSERT_TRUE(access(path, F_OK) != 0 && errno == ENOENT);
}

/* A cancel already set: -ECANCELED and the half-written file is removed. */
static void test_prepare_cancelled(void)
{
	char path[PATH_MAX + 32] = "";
	atomic_int flag = 1;
	struct engine_opts o = opts(path, &flag);
	int direct;

	snprintf(path, sizeof(path), "%s/cancelled", dir);
	ASSERT_EQ(engine_prepare_file(&o, 8 * MIB, WL_DATA_RANDOM, &direct),
		  -ECANCELED);
	ASSERT_TRUE(access(path, F_OK) != 0 && errno == ENOENT);
}

static struct workload wl(enum wl_pattern pat, unsigned read_pct, uint32_t bs,
			  unsigned qd, unsigned threads, double duration)
{
	struct workload w = {
		.pattern = pat,
		.read_pct = read_pct,
		.block_size = bs,
		.queue_depth = qd,
		.threads = threads,
		.file_size = FILE_SIZE,
		.duration_s = duration,
	};
	snprintf(w.name, sizeof(w.name), "test");
	return w;
}

/* Runs w and checks what holds for any successful run. */
static void run_ok(const struct workload *w)
{
	struct engine_opts o = opts(data_path, NULL);
	struct result r;

	ASSERT_EQ(engine_run(&o, w, &r), 0);
	ASSERT_TRUE(r.ios > 0);
	ASSERT_U64_EQ(r.bytes, r.ios * w->block_size);
	ASSERT_TRUE(r.seconds >= w->duration_s);
	ASSERT_TRUE(r.seconds <=
		    w->duration_s + 2.0); /* a slow last I/O, a noisy host */
	ASSERT_NEAR_REL(r.seconds, (double)r.window_ns / 1e9, 1e-12);
	ASSERT_NEAR_REL(r.mb_s, r.iops * w->block_size / 1e6, 1e-9);
	ASSERT_NEAR_REL(r.iops, (double)r.ios / r.seconds, 1e-9);
	ASSERT_TRUE(r.lat_mean_us > 0);
	ASSERT_STR_EQ(err, "");
}

static void test_run_seq_read(void)
{
	struct workload w = wl(WL_SEQUENTIAL, 100, 1U << 20, 8, 1, 0.3);
	run_ok(&w);
}

static void test_run_rand_write(void)
{
	struct workload w = wl(WL_RANDOM, 0, 4096, 32, 1, 0.3);
	struct stat st;

	run_ok(&w);
	/* writes stay inside the file */
	ASSERT_EQ(stat(data_path, &st), 0);
	ASSERT_EQ(st.st_size, FILE_SIZE);
}

static void test_run_multithread(void)
{
	struct workload w = wl(WL_RANDOM, 100, 4096, 4, 4, 0.3);
	run_ok(&w);
}

static void test_run_invalid(void)
{
	struct workload bad[4];
	struct result r;

	bad[0] = wl(WL_SEQUENTIAL, 100, 1000, 1, 1, 0.3);
	bad[1] = wl(WL_SEQUENTIAL, 100, 4096, 0, 1, 0.3);
	bad[2] = wl(WL_SEQUENTIAL, 100, 4096, 1, 0, 0.3);
	bad[3] = wl(WL_SEQUENTIAL, 100, 4096, 1, 1, 0.0);
	for (int i = 0; i < 4; i++) {
		struct engine_opts o = opts(data_path, NULL);
		memset(&r, 0xA5, sizeof(r));
		ASSERT_EQ(engine_run(&o, &bad[i], &r), -EINVAL);
		ASSERT_TRUE(strlen(err) > 20);
		ASSERT_TRUE(strncmp(err, "invalid workload: ", 18) == 0);
		ASSERT_U64_EQ(r.ios, 0);
		ASSERT_U64_EQ(r.bytes, 0);
	}
	{
		struct engine_opts o = opts(data_path, NULL);
		ASSERT_EQ(engine_run(&o, &bad[0], &r), -EINVAL);
		ASSERT_TRUE(strstr(err, "block size") != NULL);
		o = opts(data_path, NULL);
		ASSERT_EQ(engine_run(&o, &bad[1], &r), -EINVAL);
		ASSERT_TRUE(strstr(err, "queue depth") != NULL);
		o = opts(data_path, NULL);
		ASSERT_EQ(engine_run(&o, &bad[2], &r), -EINVAL);
		ASSERT_TRUE(strstr(err, "threads") != NULL);
	}
}

/* Reads the whole of path and sorts its 4 KiB blocks into classes:
 * zero blocks and distinct non-zero contents. */
static void block_classes(const char *path, size_t size, size_t *zero,
			  size_t *distinct)
{
	size_t n = size / 4096;
	unsigned char *buf = malloc(size),
		      **blocks = malloc(n * sizeof(*blocks));
	static const unsigned char zeros[4096];
	size_t k = 0;
	int fd = open(path, O_RDONLY);

	*zero = *distinct = 0;
	if (!buf || !blocks || fd < 0 ||
	    pread(fd, buf, size, 0) != (ssize_t)size)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (memcmp(buf + i * 4096, zeros, 4096) == 0)
			(*zero)++;
		else
			blocks[k++] = buf + i * 4096;
	}
	qsort(blocks, k, sizeof(*blocks), cmp_block);
	for (size_t i = 0; i < k; i++)
		if (i == 0 || memcmp(blocks[i - 1], blocks[i], 4096) != 0)
			(*distinct)++;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(blocks);
}

/* zeros: the fill writes nothing but zero blocks; repeat: every block a
 * write touches carries the same 4 KiB; random (above): no block twice. */
static void test_data_patterns(void)
{
	char path[PATH_MAX + 32] = "";
	struct engine_opts o = opts(path, NULL);
	struct workload w = wl(WL_RANDOM, 0, 8192, 8, 2, 0.2);
	struct result r;
	size_t zero, distinct;
	int direct;

	snprintf(path, sizeof(path), "%s/patterns", dir);
	ASSERT_EQ(engine_prepare_file(&o, 4 * MIB, WL_DATA_ZEROS, &direct), 0);
	block_classes(path, 4 * MIB, &zero, &distinct);
	ASSERT_EQ(zero, 1024);
	ASSERT_EQ(distinct, 0);
	w.file_size = 4 * MIB;
	w.data = WL_DATA_REPEAT;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 100);
	block_classes(path, 4 * MIB, &zero, &distinct);
	ASSERT_TRUE(zero < 1024); /* something was written ... */
	ASSERT_EQ(distinct, 1);	  /* ... and it is one block, repeated */
	w.data = WL_DATA_ZEROS;
	w.duration_s = 1.0; /* time enough to overwrite every block */
	w.pattern = WL_SEQUENTIAL;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	block_classes(path, 4 * MIB, &zero, &distinct);
	ASSERT_EQ(zero, 1024);
	ASSERT_EQ(tgt_unlink(o.ops, path, NULL), 0);
}

/* Size-based: exactly io_bytes, split over the threads, whatever the time. */
static void test_size_based(void)
{
	struct engine_opts o = opts(data_path, NULL);
	struct workload w = wl(WL_RANDOM, 100, 4096, 16, 2, 0);
	struct result r;

	w.io_bytes = 4 * MIB;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_U64_EQ(r.ios, 1024);
	ASSERT_U64_EQ(r.bytes, 4 * MIB);
	ASSERT_TRUE(r.window_ns > 0);
	ASSERT_NEAR_REL(r.iops, 1024 / r.seconds, 1e-9);
	/* the sequential walk of a size-based write covers each region once */
	w = wl(WL_SEQUENTIAL, 0, 1U << 20, 4, 4, 0);
	w.io_bytes = FILE_SIZE;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_U64_EQ(r.ios, FILE_SIZE >> 20);
	/* a ramp makes no sense when the I/O count is fixed */
	w.ramp_s = 1;
	ASSERT_EQ(engine_run(&o, &w, &r), -EINVAL);
	ASSERT_TRUE(strstr(err, "ramp") != NULL);
}

/*
 * A window in slices (engine_opts.seq_pos): each thread's sequential stream
 * starts where the last slice stopped and says where it stops, wrapping at
 * the end of its region (8 MiB each of 2 threads here); without seq_pos
 * every run starts at the region's start.
 */
static void test_seq_resumed(void)
{
	struct engine_opts o = opts(data_path, NULL);
	struct workload w = wl(WL_SEQUENTIAL, 100, 1U << 20, 2, 2, 0);
	uint64_t pos[2] = { 0, 0 };
	struct result r;

	w.io_bytes = 4 * MIB; /* 2 I/Os of 1 MiB per thread */
	o.seq_pos = pos;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_U64_EQ(pos[0], 2 * MIB);
	ASSERT_U64_EQ(pos[1], 2 * MIB);
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_U64_EQ(pos[0], 4 * MIB);
	ASSERT_U64_EQ(pos[1], 4 * MIB);
	/* one block before the region's end: one I/O there, one at its
	 * start */
	pos[0] = pos[1] = 7 * MIB;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_U64_EQ(pos[0], 1 * MIB);
	ASSERT_U64_EQ(pos[1], 1 * MIB);
	ASSERT_U64_EQ(r.ios, 4);
	/* a time-based slice goes on the same way */
	w.io_bytes = 0;
	w.duration_s = 0.2;
	pos[0] = pos[1] = 0;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	/* a stream that just read its region's last block is at its end */
	ASSERT_TRUE(pos[0] <= 8 * MIB && pos[1] <= 8 * MIB);
	ASSERT_U64_EQ((pos[0] + pos[1]) % (8 * MIB), r.bytes % (8 * MIB));
}

/*
 * Direct I/O below the device's sector: on a loop device with 4 KiB sectors
 * (ext4 on it), a 512-byte direct I/O is refused up front with the
 * alignment named, not with a bare EINVAL from the first I/O. Needs root
 * for losetup and mount; says why it skips otherwise.
 */
static void test_dio_alignment(void)
{
	char img[PATH_MAX + 32], mnt[PATH_MAX + 32], cmd[3 * PATH_MAX];
	char path[PATH_MAX + 64] = "", loopdev[64] = "";
	struct engine_opts o = opts(path, NULL);
	struct workload w = wl(WL_RANDOM, 100, 512, 1, 1, 0.2);
	struct result r;
	FILE *f;
	int direct = 0;

	if (geteuid() != 0) {
		TEST_SKIP("direct-I/O alignment: needs root for losetup and "
			  "mount");
	}
	snprintf(img, sizeof(img), "%s/4kn.img", dir);
	snprintf(mnt, sizeof(mnt), "%s/4kn", dir);
	snprintf(path, sizeof(path), "%s/4kn/sb.tmp", dir);
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 64M '%s' && losetup --find --show -b 4096 '%s'",
		 img, img);
	ASSERT_TRUE((f = popen(cmd, "r")) != NULL);
	if (!fgets(loopdev, sizeof(loopdev), f))
		loopdev[0] = '\0';
	pclose(f);
	loopdev[strcspn(loopdev, "\n")] = '\0';
	if (strncmp(loopdev, "/dev/loop", 9) != 0) {
		unlink(img);
		TEST_SKIP("direct-I/O alignment: no loop device (losetup "
			  "failed)");
	}
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F '%s' && mkdir -p '%s' && mount '%s' '%s'",
		 loopdev, mnt, loopdev, mnt);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_EQ(engine_prepare_file(&o, 4 * MIB, WL_DATA_RANDOM, &direct), 0);
	ASSERT_EQ(direct, 1);
	w.file_size = 4 * MIB;
	ASSERT_EQ(engine_run(&o, &w, &r), -EINVAL);
	ASSERT_TRUE(strstr(err, "not a multiple of 4096 B") != NULL);
	ASSERT_TRUE(strstr(err, "direct I/O") != NULL);
	ASSERT_U64_EQ(r.ios, 0);
	w.block_size = 4096; /* the sector size itself is fine */
	o = opts(path, NULL);
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 0);
	o.direct = 0; /* and buffered I/O takes any multiple of 512 */
	w.block_size = 512;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_EQ(tgt_unlink(o.ops, path, NULL), 0);
	snprintf(cmd, sizeof(cmd),
		 "umount '%s' && losetup -d '%s' && rmdir '%s'", mnt, loopdev,
		 mnt);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_EQ(unlink(img), 0);
}

/* A group: two workloads on two files in one window, each counted apart,
 * per direction, with its own histograms. */
static void test_group(void)
{
	char path2[PATH_MAX + 32];
	struct engine_opts o1 = opts(data_path, NULL), o2 = opts(path2, NULL);
	struct workload a = wl(WL_RANDOM, 60, 8192, 1, 3, 0.5);
	struct workload b = wl(WL_SEQUENTIAL, 0, 8192, 1, 1, 0.5);
	struct hist *h[3];
	struct engine_task t[2];
	int direct;

	for (int i = 0; i < 3; i++) {
		h[i] = malloc(sizeof(struct hist));
		ASSERT_TRUE(h[i] != NULL);
	}
	snprintf(path2, sizeof(path2), "%s/log", dir);
	ASSERT_EQ(engine_prepare_file(&o2, 4 * MIB, WL_DATA_RANDOM, &direct),
		  0);
	b.file_size = 4 * MIB;
	b.sync = WL_SYNC_DSYNC;
	o1.hist_dir[0] = h[0];
	o1.hist_dir[1] = h[1];
	o2.hist_dir[1] = h[2];
	t[0] = (struct engine_task){ .o = &o1, .w = &a };
	t[1] = (struct engine_task){ .o = &o2, .w = &b };
	ASSERT_EQ(engine_run_group(t, 2), 0);
	for (int i = 0; i < 2; i++) {
		const struct result *r = &t[i].r;
		ASSERT_TRUE(r->ios > 0);
		ASSERT_U64_EQ(r->dir_ios[0] + r->dir_ios[1], r->ios);
		ASSERT_U64_EQ(r->dir_lat_sum_ns[0] + r->dir_lat_sum_ns[1],
			      r->lat_sum_ns);
		ASSERT_TRUE(r->seconds >= 0.5 && r->seconds < 1.5);
	}
	/* the database mix is about 60 % reads; the log only writes */
	ASSERT_TRUE(t[0].r.dir_ios[0] > t[0].r.dir_ios[1]);
	ASSERT_U64_EQ(t[1].r.dir_ios[0], 0);
	ASSERT_U64_EQ(h[0]->count, t[0].r.dir_ios[0]);
	ASSERT_U64_EQ(h[1]->count, t[0].r.dir_ios[1]);
	ASSERT_U64_EQ(h[2]->count, t[1].r.ios);
	/* one run, one CPU figure */
	ASSERT_TRUE(t[0].r.cpu_user_s == t[1].r.cpu_user_s);
	/* different durations cannot share a window */
	b.duration_s = 1;
	ASSERT_EQ(engine_run_group(t, 2), -EINVAL);
	ASSERT_EQ(tgt_unlink(o2.ops, path2, NULL), 0);
	for (int i = 0; i < 3; i++)
		free(h[i]);
}

struct canceller {
	atomic_int *flag;
	uint64_t set_at_ns;
};

static void *cancel_later(void *arg)
{
	struct canceller *c = arg;
	struct timespec ts = { 0, 100000000 };

	nanosleep(&ts, NULL);
	c->set_at_ns = os_now_ns();
	atomic_store(c->flag, 1);
	return NULL;
}

static void test_cancel(void)
{
	atomic_int flag = 0;
	struct canceller c = { .flag = &flag };
	struct engine_opts o = opts(data_path, &flag);
	struct workload w = wl(WL_RANDOM, 100, 4096, 8, 2, 10.0);
	struct result r;
	pthread_t tid;
	uint64_t t0 = os_now_ns(), t1;
	int rc;

	ASSERT_EQ(pthread_create(&tid, NULL, cancel_later, &c), 0);
	rc = engine_run(&o, &w, &r);
	t1 = os_now_ns();
	pthread_join(tid, NULL);
	ASSERT_EQ(rc, -ECANCELED);
	ASSERT_TRUE(c.set_at_ns > t0 && t1 >= c.set_at_ns);
	ASSERT_TRUE(t1 - c.set_at_ns < 2000000000ULL);
	ASSERT_TRUE(t1 - t0 < 600000000ULL);
	ASSERT_U64_EQ(r.bytes, r.ios * 4096);
	ASSERT_TRUE(r.seconds < 3.0);
}

/* A back-end that counts fdatasync calls and cancels after a few writes. */
static atomic_int fill_cancel, fsyncs, queued;
static struct tgt_ops counting_ops;

static int counting_queue(void *ctx, struct tgt_io *io)
{
	if (atomic_fetch_add(&queued, 1) + 1 == 8)
		atomic_store(&fill_cancel, 1);
	return tgt_find("psync")->queue(ctx, io);
}

static int counting_fsync(void *ctx)
{
	atomic_fetch_add(&fsyncs, 1);
	return tgt_find("psync")->fsync(ctx);
}

/*
 * A fill that is cancelled is removed without being flushed first: an
 * fdatasync of what a buffered fill left dirty (gigabytes) took a stopping
 * daemon seconds. A fill that completes is flushed once.
 */
static void test_prepare_cancelled_not_flushed(void)
{
	char path[PATH_MAX + 32] = "";
	struct engine_opts o = opts(path, &fill_cancel);
	int direct;

	counting_ops = *tgt_find("psync");
	counting_ops.name = "counting";
	counting_ops.queue = counting_queue;
	counting_ops.fsync = counting_fsync;
	o.ops = &counting_ops;
	o.direct = 0;
	snprintf(path, sizeof(path), "%s/fill-cancelled", dir);
	ASSERT_EQ(engine_prepare_file(&o, 64 * MIB, WL_DATA_RANDOM, &direct),
		  -ECANCELED);
	ASSERT_TRUE(atomic_load(&queued) >= 8);
	ASSERT_EQ(atomic_load(&fsyncs), 0);
	ASSERT_TRUE(access(path, F_OK) != 0 && errno == ENOENT);

	atomic_store(&queued, -1000000); /* no cancel this time */
	atomic_store(&fill_cancel, 0);
	snprintf(path, sizeof(path), "%s/fill-done", dir);
	ASSERT_EQ(engine_prepare_file(&o, 8 * MIB, WL_DATA_RANDOM, &direct), 0);
	ASSERT_EQ(atomic_load(&fsyncs), 1);
	ASSERT_EQ(tgt_unlink(&counting_ops, path, NULL), 0);
}

/* An io_uring back-end that counts what it is given. */
static atomic_int drain_queued;
static struct tgt_ops drain_ops;

static int drain_queue(void *ctx, struct tgt_io *io)
{
	atomic_fetch_add(&drain_queued, 1);
	return tgt_find("io_uring")->queue(ctx, io);
}

/*
 * Every I/O a time-based run issues is counted, the ones still in flight at
 * the deadline too (drained and counted, as fio counts them): the I/Os the
 * back-end was given are the result's I/Os, exactly, and the window ends at
 * the last completion. Before, the I/Os of the drain were dropped (46074
 * counted of 46091 given).
 */
static void test_drain_counted(void)
{
	struct workload w = wl(WL_RANDOM, 70, 4096, 16, 2, 0.3);
	struct engine_opts o = opts(data_path, NULL);
	struct result r;

	drain_ops = *tgt_find("io_uring");
	drain_ops.name = "drain-counting";
	drain_ops.queue = drain_queue;
	o.ops = &drain_ops;
	atomic_store(&drain_queued, 0);
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 100);
	ASSERT_U64_EQ(r.ios, (uint64_t)atomic_load(&drain_queued));
	ASSERT_TRUE(r.seconds >= 0.3);
}

/* Last: removes the data file and the directory. */
static void test_cleanup(void)
{
	const struct tgt_ops *ops = tgt_find("io_uring");

	ASSERT_TRUE(ops != NULL);
	ASSERT_EQ(tgt_unlink(ops, data_path, NULL), 0);
	ASSERT_EQ(tgt_unlink(ops, data_path, NULL), -ENOENT);
	ASSERT_EQ(rmdir(dir), 0);
}

static void setup(void)
{
	test_scratch(dir, sizeof(dir), "engine_test");
	snprintf(data_path, sizeof(data_path), "%s/data", dir);
}

static void test_setup(void)
{
	setup();
	ASSERT_TRUE(dir[0] == '/');
}

TEST_MAIN(test_setup, test_prepare_creates_file, test_prepare_refuses_existing,
	  test_prepare_cancelled, test_run_seq_read, test_run_rand_write,
	  test_run_multithread, test_run_invalid, test_data_patterns,
	  test_size_based, test_seq_resumed, test_dio_alignment, test_group,
	  test_cancel, test_prepare_cancelled_not_flushed, test_drain_counted,
	  test_cleanup)
