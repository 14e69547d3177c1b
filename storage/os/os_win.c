/*
 * os_win — os.h on Windows: QueryPerformanceCounter / Frequency (the
 * monotonic clock), a high-resolution waitable timer (sleep), GetProcessTimes
 * (CPU time), BCryptGenRandom with the system's preferred generator (random
 * bytes, link -lbcrypt), VirtualAlloc (I/O buffers on a 2 MiB boundary, in
 * ordinary pages: large pages need SeLockMemoryPrivilege, which a service
 * account does not hold, so they are not asked for), SecureZeroMemory,
 * SetThreadDescription (looked up at run time: Windows 10 1607+ only) and
 * SetThreadPriority.
 */
#include "os.h"

#include <errno.h>
#include <stdlib.h>
#include <windows.h>

#include <bcrypt.h> /* after windows.h, whose types it uses */

#include "winapi.h"

#define OS_HUGE (2U << 20) /* the alignment os_io_alloc promises, bytes */

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

static uint64_t qpc_freq(void)
{
	static volatile LONG64 freq;
	LARGE_INTEGER f;

	if (freq)
		return (uint64_t)freq;
	/* never fails on Windows XP and later */
	QueryPerformanceFrequency(&f);
	freq = f.QuadPart > 0 ? f.QuadPart : 1;
	return (uint64_t)freq;
}

/* ticks / freq seconds as nanoseconds: whole seconds and the remainder
 * apart, so the product never overflows (10 MHz × 1e9 would after 29
 * minutes). */
uint64_t os_now_ns(void)
{
	uint64_t f = qpc_freq(), c;
	LARGE_INTEGER t;

	QueryPerformanceCounter(&t);
	c = (uint64_t)t.QuadPart;
	return c / f * 1000000000ULL + c % f * 1000000000ULL / f;
}

/*
 * Sleep() counts in milliseconds and rounds to the timer tick (15.6 ms by
 * default); a high-resolution waitable timer (Windows 10 1803+) sleeps to
 * about 0.5 ms. Where it cannot be made, an ordinary one, then Sleep.
 */
void os_sleep_ns(uint64_t ns)
{
	HANDLE t = CreateWaitableTimerExW(NULL, NULL,
					  CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
					  TIMER_ALL_ACCESS);
	LARGE_INTEGER due;

	if (!t)
		t = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
	/* relative times are negative, in 100 ns units, rounded up */
	due.QuadPart = -(LONGLONG)((ns + 99) / 100);
	if (t && SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE)) {
		WaitForSingleObject(t, INFINITE);
	} else {
		uint64_t ms = (ns + 999999) / 1000000;
		Sleep(ms >= INFINITE ? INFINITE - 1 : (DWORD)ms);
	}
	if (t)
		CloseHandle(t);
}

/* FILETIME counts 100 ns from 1601-01-01; 11644473600 s before 1970 */
int64_t os_wall_raw_ns(void)
{
	FILETIME ft;
	uint64_t v;

	GetSystemTimePreciseAsFileTime(&ft);
	v = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
	return ((int64_t)v - 116444736000000000LL) * 100;
}

static double ft_s(const FILETIME *ft)
{
	uint64_t v = (uint64_t)ft->dwHighDateTime << 32 | ft->dwLowDateTime;

	return (double)v / 1e7; /* 100 ns units */
}

int os_cpu_times(struct os_cpu *c)
{
	FILETIME created, exited, kernel, user;

	if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel,
			     &user))
		return win_last_errno();
	c->user_s = ft_s(&user);
	c->sys_s = ft_s(&kernel);
	return 0;
}

int os_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	/* BCryptGenRandom takes a ULONG count: large requests in pieces */
	while (len) {
		ULONG n = len > 0x40000000U ? 0x40000000U : (ULONG)len;
		NTSTATUS st = BCryptGenRandom(NULL, p, n,
					      BCRYPT_USE_SYSTEM_PREFERRED_RNG);
		if (!BCRYPT_SUCCESS(st))
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * VirtualAlloc places a region on a 64 KiB boundary only, and a reservation
 * cannot be trimmed, so: reserve 2 MiB more than needed to find an aligned
 * address, release it, and commit exactly there. Another thread may take
 * the address in between; then try again.
 */
void *os_io_alloc(size_t *len)
{
	size_t n = (*len + OS_HUGE - 1) / OS_HUGE * OS_HUGE;

	if (n == 0)
		n = OS_HUGE;
	for (int tries = 0; tries < 16; tries++) {
		char *raw = VirtualAlloc(NULL, n + OS_HUGE, MEM_RESERVE,
					 PAGE_NOACCESS);
		uintptr_t start;
		void *p;

		if (!raw)
			return NULL;
		start = ((uintptr_t)raw + OS_HUGE - 1) &
			~(uintptr_t)(OS_HUGE - 1);
		VirtualFree(raw, 0, MEM_RELEASE);
		p = VirtualAlloc((void *)start, n, MEM_RESERVE | MEM_COMMIT,
				 PAGE_READWRITE);
		if (p == (void *)start) {
			*len = n;
			return p; /* committed pages read as zeros */
		}
		if (p)
			VirtualFree(p, 0, MEM_RELEASE);
	}
	return NULL;
}

void os_io_free(void *p, size_t len)
{
	(void)len; /* MEM_RELEASE frees the whole region */
	if (p)
		VirtualFree(p, 0, MEM_RELEASE);
}

void os_wipe(void *p, size_t len)
{
	SecureZeroMemory(p, len);
}

typedef HRESULT(WINAPI *set_desc_fn)(HANDLE, PCWSTR);

void os_thread_name(const char *name)
{
	HMODULE k = GetModuleHandleW(L"kernel32.dll");
	set_desc_fn set = NULL;
	wchar_t w[64];

	if (k)
		set = (set_desc_fn)(void (*)(void))GetProcAddress(
			k, "SetThreadDescription");
	if (!set || !MultiByteToWideChar(CP_UTF8, 0, name, -1, w, 64))
		return; /* older Windows, or a name too long: unnamed */
	w[63] = 0;
	set(GetCurrentThread(), w);
}

void os_thread_yield_to_engine(void)
{
	SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL);
}

/* A temporary file, deleted when closed ("D"), kept in memory where the
 * cache allows ("T"), read back whole on close. */
FILE *os_memstream_open(struct os_memstream *m, char **buf, size_t *len)
{
	wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];

	m->buf = buf;
	m->len = len;
	*buf = NULL;
	*len = 0;
	m->f = NULL;
	if (GetTempPathW(MAX_PATH + 1, dir) &&
	    GetTempFileNameW(dir, L"sbm", 0, name))
		m->f = _wfopen(name, L"w+bTD");
	return m->f;
}

int os_memstream_close(struct os_memstream *m)
{
	long n;
	int rc = 0;

	if (fflush(m->f) != 0 || (n = ftell(m->f)) < 0 ||
	    fseek(m->f, 0, SEEK_SET) != 0 ||
	    !(*m->buf = malloc((size_t)n + 1)) ||
	    fread(*m->buf, 1, (size_t)n, m->f) != (size_t)n) {
		free(*m->buf);
		*m->buf = NULL;
		rc = -ENOMEM;
	} else {
		(*m->buf)[n] = '\0';
		*m->len = (size_t)n;
	}
	fclose(m->f);
	return rc;
}
