/*
 * units — sizes as people write them ("64MiB", "1GiB", "4k", "1000000000").
 *
 * Binary units: B, KiB, MiB, GiB, TiB, and the bare K, M, G, T (as fio and
 * CrystalDiskMark use them). Decimal units: KB, MB, GB, TB. Case-insensitive
 * except that a bare "b" is bytes. An optional space between number and unit.
 * Only whole numbers of the unit are accepted ("1.5GiB" is an error).
 */
#ifndef STORBENCH_UNITS_H
#define STORBENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses s into *bytes. Returns 0, -EINVAL when s is not a size (empty,
 * no digits, unknown unit, trailing text, a fraction, a sign), or -ERANGE when
 * the value does not fit in 63 bits.
 */
int units_parse_size(const char *s, uint64_t *bytes);

/*
 * Writes bytes as the largest binary unit that divides it exactly
 * ("64MiB", "1GiB", "4100B") into buf of len bytes. Returns 0 or -ENOSPC.
 */
int units_format_size(uint64_t bytes, char *buf, size_t len);

#endif
