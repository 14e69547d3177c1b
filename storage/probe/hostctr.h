/*
 * hostctr — the host's and the device's own counters over an interval:
 * what the CPUs, the memory and the block device under a target were doing
 * while the engine measured, so a run can say whether the device, the CPU
 * or a cache was the limit.
 *
 * Design: a struct hostctr is opened once per test file (it keeps its
 * files open and its buffers, so a snapshot allocates nothing and costs a
 * few small reads); hostctr_mark takes a snapshot into one of
 * HOSTCTR_MARKS slots, stamped with the monotonic clock; hostctr_diff
 * turns two slots into a struct hostctr_sample. The engine's calling
 * thread (never an I/O thread) marks the window's opening, each second's
 * end and the window's close (engine_opts.counters, engine.h).
 *
 * The fields are the operating system's common ground, not one system's
 * files: Linux fills them from /proc/stat, /proc/meminfo and
 * /sys/block/DISK/stat (hostctr_linux.c); Windows has none yet
 * (hostctr_win.c: every group absent) and can fill the same fields from
 * PDH (\Processor(*)\% … Time, \Memory\…) and IOCTL_DISK_PERFORMANCE.
 *
 * Not thread-safe: one thread uses a struct hostctr at a time.
 */
#ifndef STORBENCH_HOSTCTR_H
#define STORBENCH_HOSTCTR_H

#include <stdint.h>

#define HOSTCTR_MARKS 3	      /* snapshot slots */
#define HOSTCTR_MAX_MEMBERS 8 /* members of a device-mapper or md device */

/* hostctr_sample.have: which groups the interval has */
#define HOSTCTR_CPU 1u
#define HOSTCTR_MEM 2u
#define HOSTCTR_DEV 4u

/* A block device over an interval. Counts are of I/Os the device
 * completed in the interval; in_flight is at the interval's end. */
struct hostctr_dev {
	char name[32];	 /* its name in /sys/block: "sda", "dm-0", "loop3" */
	uint64_t reads;	 /* read I/Os completed */
	uint64_t writes; /* write I/Os completed */
	uint64_t read_bytes, write_bytes;
	uint64_t in_flight; /* I/Os issued to the device, not completed */
	double util_pct;    /* time with I/O in flight ÷ interval, 0 … 100 */
	double wait_ms;	    /* mean time of a completed I/O, queue and
			       service (iostat's await); 0 with no I/O */
};

/* What the host and the device did over one interval. */
struct hostctr_sample {
	unsigned have;	   /* HOSTCTR_CPU | HOSTCTR_MEM | HOSTCTR_DEV */
	double interval_s; /* between the two snapshots, by the monotonic
			      clock */
	/* CPU: % of all CPUs' time, 0 … 100 */
	double cpu_user;   /* user mode, nice included */
	double cpu_system; /* kernel mode */
	double cpu_iowait; /* idle with I/O outstanding */
	double cpu_irq;	   /* hardware and soft interrupts */
	double cpu_steal;  /* taken by the hypervisor */
	double cpu_busy;   /* everything but idle and iowait */
	double core_busy;  /* the busiest core's busy %, 0 … 100 */
	int core;	   /* its number */
	/* memory at the interval's end, bytes */
	uint64_t mem_used; /* total − free − page cache − buffers */
	uint64_t mem_cache;
	uint64_t mem_dirty;	  /* page cache not yet written back */
	uint64_t mem_writeback;	  /* being written back now */
	uint64_t mem_dirty_start; /* dirty + writeback at the interval's
				     start */
	/* the device under the target (HOSTCTR_DEV), and its members */
	struct hostctr_dev dev;
	struct hostctr_dev members[HOSTCTR_MAX_MEMBERS];
	unsigned n_members;
};

struct hostctr;

/*
 * Opens the counters of this host and of block device disk (its name in
 * /sys/block, a whole disk, a device-mapper, md or loop device), or of no
 * device when disk is NULL or "". A device that cannot be read leaves
 * HOSTCTR_DEV out of every sample rather than failing. *out is the
 * caller's, freed with hostctr_close. Returns 0 or -ENOMEM.
 */
int hostctr_open(const char *disk, struct hostctr **out);

/*
 * Snapshots the counters into slot mark (< HOSTCTR_MARKS), replacing what
 * it held. Reads a few small files into buffers opened with h: allocates
 * nothing. A group that cannot be read is absent from the slot.
 */
void hostctr_mark(struct hostctr *h, unsigned mark);

/*
 * *out = what happened between slots from and to (to taken later); a group
 * is in out->have when both slots have it. Rates are left to the caller:
 * counts are over out->interval_s.
 */
void hostctr_diff(const struct hostctr *h, unsigned from, unsigned to,
		  struct hostctr_sample *out);

/* Closes h (NULL is fine). */
void hostctr_close(struct hostctr *h);

#endif
