/*
 * os_wall — the wall clock as every host of a multi-host job reads it (see
 * os.h): the system's clock plus a test's offset, and a wait until a time
 * on it.
 */
#include "os.h"

#include <stdatomic.h>

static atomic_llong wall_offset; /* ns; 0 but in tests */

void os_wall_offset_set(int64_t ns)
{
	atomic_store(&wall_offset, (long long)ns);
}

int64_t os_wall_ns(void)
{
	return os_wall_raw_ns() + (int64_t)atomic_load(&wall_offset);
}

int64_t os_sleep_until_wall_ns(int64_t at_ns)
{
	int64_t d = at_ns - os_wall_ns();

	if (d <= 0)
		return 0;
	/* sleep in steps of at most 100 ms, so a step of the clock (NTP)
	 * is seen, until ~1 ms is left; then spin */
	while (d > 1500000) {
		int64_t s = d - 1000000;
		os_sleep_ns((uint64_t)(s > 100000000 ? 100000000 : s));
		d = at_ns - os_wall_ns();
	}
	while ((d = at_ns - os_wall_ns()) > 0)
		;
	return -d;
}
