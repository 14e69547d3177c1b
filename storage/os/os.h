/*
 * os — the few things the engine needs from the operating system that C11
 * and POSIX threads do not give: a monotonic clock, the process's CPU time,
 * random bytes, I/O buffers and wiping a secret. One implementation per
 * operating system (os_linux.c; a port supplies os_<os>.c), nothing else.
 *
 * Threads, mutexes and condition variables are POSIX threads everywhere
 * (mingw-w64 has winpthreads).
 */
#ifndef STORBENCH_OS_H
#define STORBENCH_OS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* errno values of POSIX that Windows' C library (mingw-w64) lacks, here
 * once rather than at each use: not a block device, a name not unique. */
#ifndef ENOTBLK
#define ENOTBLK 15
#endif
#ifndef ENOTUNIQ
#define ENOTUNIQ 76
#endif

/* A monotonic clock in nanoseconds (Linux: CLOCK_MONOTONIC): latencies,
 * windows and progress are measured on it. */
uint64_t os_now_ns(void);

/* Sleeps ns nanoseconds (shorter when a signal interrupts it). */
void os_sleep_ns(uint64_t ns);

/*
 * The wall clock: nanoseconds since 1970-01-01 UTC as the system keeps it
 * (Linux: CLOCK_REALTIME; Windows: GetSystemTimePreciseAsFileTime), the
 * time the hosts of a multi-host job agree on (their clocks kept in step
 * by chrony/NTP or Windows Time, not by storbench). os_wall_raw_ns is the
 * system's (os_<os>.c); os_wall_ns adds the offset os_wall_offset_set gave
 * (0 unless a test fakes a host's clock off with `serve --clock-offset-ms`),
 * so everything that tells or reads a time another host sees goes through
 * os_wall_ns (os_wall.c).
 */
int64_t os_wall_raw_ns(void);
int64_t os_wall_ns(void);
void os_wall_offset_set(int64_t ns);

/* Waits until os_wall_ns() reads at_ns (returns at once when it has
 * passed): sleeps to ~1 ms before it, then spins, so the wake-up is within
 * tens of microseconds where the scheduler gives the thread its CPU; a
 * step of the wall clock during the wait is followed. Returns how late the
 * wake-up was, ns (0 when at_ns had passed before the call: then the
 * caller is late by -(at_ns - now), which the caller can see itself). */
int64_t os_sleep_until_wall_ns(int64_t at_ns);

/* CPU time the whole process has used so far, seconds: in user mode and in
 * the kernel on its behalf (Linux: getrusage RUSAGE_SELF; every thread,
 * the back-ends' workers too). Returns 0 or a negative errno. */
struct os_cpu {
	double user_s, sys_s;
};
int os_cpu_times(struct os_cpu *c);

/* Fills buf with len bytes from the system's random source. Returns 0 or a
 * negative errno (then buf is unchanged). */
int os_random(void *buf, size_t len);

/*
 * Zeroed memory for I/O buffers: *len (a request, rounded up by the call to
 * what it maps) bytes that start on a 2 MiB boundary, backed by huge pages
 * where the system has them, so that a large direct I/O is one physically
 * contiguous request. NULL on failure. Freed with os_io_free(p, *len).
 */
void *os_io_alloc(size_t *len);
void os_io_free(void *p, size_t len);

/* Overwrites len bytes at p with zeros in a way the compiler keeps (a
 * password, a token). */
void os_wipe(void *p, size_t len);

/* The system's own words for the last error this thread's calls through
 * the OS seam turned into an errno, where errno loses them: Windows'
 * message and code ("Incorrect function. (error 1)"). 1 with buf set, or
 * 0 when there is nothing to add (Linux: errno is the system's answer).
 * Reading it clears it. */
int os_error_detail(char *buf, size_t len);

/* A sentence the OS layer left about how this thread's last operation was
 * done where it differs from what was asked, though it succeeded
 * (Windows: a preallocation without SetFileValidData). 1 with buf set, or
 * 0. Reading it clears it. */
int os_take_note(char *buf, size_t len);

/*
 * A stream that writes into memory (POSIX open_memstream; Windows has
 * none, and a temporary file deleted on close stands in). Write to the
 * FILE * os_memstream_open returns; os_memstream_close closes it and
 * leaves the text (malloc'd, NUL-terminated) in *buf and its length in
 * *len. NULL on failure to open; close: 0 or a negative errno (then *buf
 * is NULL).
 */
struct os_memstream {
	FILE *f;
	char **buf;
	size_t *len;
};
FILE *os_memstream_open(struct os_memstream *m, char **buf, size_t *len);
int os_memstream_close(struct os_memstream *m);

/* Names the calling thread (at most 15 characters show), so ps -T, top
 * and taskset can tell the engine's threads from the API's. */
void os_thread_name(const char *name);

/* Lowers the calling thread's CPU priority below the engine's (nice 10 on
 * Linux): the API's threads yield the CPU to a running benchmark. Once
 * lowered, an unprivileged thread cannot raise it again. */
void os_thread_yield_to_engine(void);

#endif
