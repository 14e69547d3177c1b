/*
 * import_native — storbench's own run document imported (import.h).
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>

int import_native(struct archive *a, const char *buf, size_t len,
		  const char *filename, const char *labels,
		  struct import_done *done, size_t *n, char *err,
		  size_t err_len)
{
	(void)a, (void)buf, (void)len, (void)filename, (void)labels;
	(void)done;
	*n = 0;
	snprintf(err, err_len, "storbench run documents: not yet");
	return -EOPNOTSUPP;
}
