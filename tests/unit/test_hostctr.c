/*
 * test_hostctr.c — the host's and a device's counters
 * (storage/probe/hostctr.h): the arithmetic from /proc/stat, /proc/meminfo and
 * a block device's stat texts given here (hostctr_mark_text), checked against
 * values worked out by hand; then the real files of this machine, read twice a
 * quarter second apart, give numbers in their ranges. The integration test
 * (presets.test.mjs, "counters") checks a loop device's bytes against the
 * engine's.
 */
#include "probe/hostctr.h"
#include "test.h"

#include <math.h>
#include <string.h>
#include <time.h>

void hostctr_mark_text(struct hostctr *h, unsigned mark, uint64_t t_ns,
		       const char *stat, const char *meminfo, const char *dev);

#define NEAR(a, b) ASSERT_TRUE(fabs((a) - (b)) < 1e-9)

static const char mem0[] = "MemTotal:       8000000 kB\n"
			   "MemFree:        1000000 kB\n"
			   "MemAvailable:   5000000 kB\n"
			   "Buffers:         100000 kB\n"
			   "Cached:         3000000 kB\n"
			   "SwapCached:           0 kB\n"
			   "Dirty:            20000 kB\n"
			   "Writeback:         1000 kB\n";
static const char mem1[] = "MemTotal:       8000000 kB\n"
			   "MemFree:         900000 kB\n"
			   "Buffers:         100000 kB\n"
			   "Cached:         3100000 kB\n"
			   "Dirty:           120000 kB\n"
			   "Writeback:         2000 kB\n";

static void test_arithmetic(void)
{
	struct hostctr *h = NULL;
	struct hostctr_sample c;
	/* two CPUs; over the interval (in ticks): cpu0 user 50 nice 10
	 * system 20 idle 0 iowait 0 irq 5 softirq 5 steal 10 = 100, all
	 * busy; cpu1 user 10 system 10 idle 60 iowait 20 = 100, 20 busy */
	const char *st0 = "cpu  1000 100 500 5000 200 50 50 0 0 0\n"
			  "cpu0 500 50 250 2500 100 25 25 0 0 0\n"
			  "cpu1 500 50 250 2500 100 25 25 0 0 0\n"
			  "intr 12345 0 0\n"
			  "cpu9 1 1 1 1\n"; /* not a cpu line: after them */
	const char *st1 = "cpu  1060 110 530 5060 220 55 55 10 0 0\n"
			  "cpu0 550 60 270 2500 100 30 30 10 0 0\n"
			  "cpu1 510 50 260 2560 120 25 25 0 0 0\n"
			  "intr 22345 0 0\n";
	/* reads 100 → 300 (200), 4000 → 8000 sectors, 50 → 450 ms; writes
	 * 10 → 60 (50), 80 → 1680 sectors, 10 → 110 ms; 3 in flight; busy
	 * 100 → 600 ms of a 1 s interval */
	const char *dv0 = "  100 0 4000 50   10 0 80 10   0 100 60 0 0 0 0\n";
	const char *dv1 = "  300 5 8000 450  60 2 1680 110 3 600 560 0 0 0 0\n";

	ASSERT_EQ(hostctr_open(NULL, &h), 0);
	hostctr_mark_text(h, 0, 1000000000ULL, st0, mem0, dv0);
	hostctr_mark_text(h, 2, 2000000000ULL, st1, mem1, dv1);
	hostctr_diff(h, 0, 2, &c);
	ASSERT_EQ(c.have, HOSTCTR_CPU | HOSTCTR_MEM | HOSTCTR_DEV);
	NEAR(c.interval_s, 1.0);
	/* all CPUs: 200 ticks; user 60 + nice 10, system 30, iowait 20,
	 * irq 5 + softirq 5, steal 10, idle 60 */
	NEAR(c.cpu_user, 35.0);
	NEAR(c.cpu_system, 15.0);
	NEAR(c.cpu_iowait, 10.0);
	NEAR(c.cpu_irq, 5.0);
	NEAR(c.cpu_steal, 5.0);
	NEAR(c.cpu_busy, 60.0);
	NEAR(c.core_busy, 100.0);
	ASSERT_EQ(c.core, 0);
	ASSERT_U64_EQ(c.mem_used,
		      (8000000ULL - 900000 - 100000 - 3100000) * 1024);
	ASSERT_U64_EQ(c.mem_cache, 3100000ULL * 1024);
	ASSERT_U64_EQ(c.mem_dirty, 120000ULL * 1024);
	ASSERT_U64_EQ(c.mem_writeback, 2000ULL * 1024);
	ASSERT_U64_EQ(c.mem_dirty_start, 21000ULL * 1024);
	ASSERT_STR_EQ(c.dev.name, "test0");
	ASSERT_U64_EQ(c.dev.reads, 200);
	ASSERT_U64_EQ(c.dev.writes, 50);
	ASSERT_U64_EQ(c.dev.read_bytes, 4000ULL * 512);
	ASSERT_U64_EQ(c.dev.write_bytes, 1600ULL * 512);
	ASSERT_U64_EQ(c.dev.in_flight, 3);
	NEAR(c.dev.util_pct, 50.0);
	NEAR(c.dev.wait_ms, (400.0 + 100.0) / 250.0);
	/* a slot without the device: no device in the interval */
	hostctr_mark_text(h, 1, 3000000000ULL, st1, mem1, NULL);
	hostctr_diff(h, 2, 1, &c);
	ASSERT_EQ(c.have, HOSTCTR_MEM); /* and no CPU time passed */
	/* unparseable texts: nothing */
	hostctr_mark_text(h, 1, 3000000000ULL, "intr 1\n", "MemTotal: x\n",
			  "1 2 3\n");
	hostctr_diff(h, 0, 1, &c);
	ASSERT_EQ(c.have, 0u);
	hostctr_close(h);
}

static void test_this_machine(void)
{
	struct hostctr *h = NULL;
	struct hostctr_sample c;
	struct timespec q = { 0, 250000000L }, t0, t;
	volatile unsigned long spin = 0;

	ASSERT_EQ(hostctr_open("no-such-disk", &h), 0);
	hostctr_mark(h, 0);
	/* 50 ms of this process's CPU time: 5 ticks at USER_HZ 100 */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (unsigned long i = 0; i < 100000UL; i++)
			spin += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
		 50000000L);
	nanosleep(&q, NULL);
	hostctr_mark(h, 1);
	hostctr_diff(h, 0, 1, &c);
	ASSERT_EQ(c.have, HOSTCTR_CPU | HOSTCTR_MEM); /* no such disk */
	ASSERT_TRUE(c.interval_s >= 0.25 && c.interval_s < 5);
	ASSERT_TRUE(c.cpu_busy > 0 && c.cpu_busy <= 100);
	ASSERT_TRUE(c.core_busy >= c.cpu_busy - 1e-9 && c.core_busy <= 100);
	ASSERT_TRUE(c.core >= 0);
	ASSERT_TRUE(c.mem_used > 0 && c.mem_cache > 0);
	hostctr_close(h);
}

TEST_MAIN(test_arithmetic, test_this_machine)
