/*
 * os_linux — os.h on Linux: CLOCK_MONOTONIC, getrusage, getrandom, mmap
 * with transparent huge pages, explicit_bzero.
 */
#include "os.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define OS_HUGE (2U << 20) /* a transparent huge page, bytes */

uint64_t os_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void os_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL),
			       (long)(ns % 1000000000ULL) };

	nanosleep(&ts, NULL);
}

int64_t os_wall_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + (int64_t)ts.tv_nsec;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int os_cpu_times(struct os_cpu *c)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -errno;
	c->user_s = tv_s(&ru.ru_utime);
	c->sys_s = tv_s(&ru.ru_stime);
	return 0;
}

int os_random(void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Only aligned 2 MiB ranges can be backed by a transparent huge page, and
 * kernels before 6.7 (Debian 12 ships 6.1) do not align large anonymous
 * mappings themselves, nor do sanitizers that wrap mmap: one huge page more
 * is mapped and the ends trimmed. With 4 KiB pages a 1 MiB direct I/O is 256
 * scattered pages, more than many devices take in one request (virtio-blk:
 * 254 segments), so the block layer would split it.
 */
void *os_io_alloc(size_t *len)
{
	size_t n = (*len + OS_HUGE - 1) / OS_HUGE * OS_HUGE;
	char *raw;
	uintptr_t start;
	size_t head;

	if (n == 0)
		n = OS_HUGE;
	raw = mmap(NULL, n + OS_HUGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	start = ((uintptr_t)raw + OS_HUGE - 1) & ~(uintptr_t)(OS_HUGE - 1);
	head = start - (uintptr_t)raw;
	if (head)
		munmap(raw, head);
	if (OS_HUGE - head)
		munmap((char *)start + n, OS_HUGE - head);
	(void)madvise((void *)start, n, MADV_HUGEPAGE); /* a hint only */
	*len = n;
	return (void *)start;
}

void os_io_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

void os_wipe(void *p, size_t len)
{
	explicit_bzero(p, len);
}

void os_thread_name(const char *name)
{
	pthread_setname_np(pthread_self(), name);
}

void os_thread_yield_to_engine(void)
{
	/* nice is per thread on Linux; raising it needs no privilege */
	setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
}

FILE *os_memstream_open(struct os_memstream *m, char **buf, size_t *len)
{
	m->buf = buf;
	m->len = len;
	*buf = NULL;
	*len = 0;
	return m->f = open_memstream(buf, len);
}

int os_memstream_close(struct os_memstream *m)
{
	if (fclose(m->f) == 0)
		return 0;
	free(*m->buf);
	*m->buf = NULL;
	return -ENOMEM;
}

int os_take_note(char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return 0; /* the Linux operations do what they are asked or fail */
}

int os_error_detail(char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return 0; /* errno is the kernel's own answer */
}
