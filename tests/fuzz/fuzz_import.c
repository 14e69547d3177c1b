/*
 * fuzz_import — the libFuzzer target of one importer (daemon/import_*.c):
 * any bytes must parse or be refused, never crash, leak or overrun.
 * tests/fuzz/run builds it once per importer with clang,
 * -DIMPORT_FN=import_cdm (import_fio, import_diskspd, import_diskspd_text).
 */
#include <stddef.h>
#include <stdint.h>

#include "import.h"

#ifndef IMPORT_FN
#error "build with -DIMPORT_FN=import_cdm (or import_fio, import_diskspd)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct import_run r;
	char err[256];
	int line;

	IMPORT_FN((const char *)data, size, &r, err, sizeof(err), &line);
	return 0;
}
