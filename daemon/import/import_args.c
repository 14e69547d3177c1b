/*
 * import_args — see import.h: an import's extra labels and file name
 * checked, the labels added to a run's, and a file's SHA-256 (the API,
 * the command line and both kinds of import share them).
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nettle/sha2.h>

#include "platform/utf8.h"

/*
 * The next label of the comma list at *p into out (size IMPORT_LABEL_MAX +
 * 1); *p moves past it and its comma (NULL after the last). Returns its
 * length, or -1 when it is longer than IMPORT_LABEL_MAX bytes (out is then
 * ""). Every piece counts, empty ones too ("a,,b" has three).
 */
#define IMPORT_LABEL_MAX 64
#define IMPORT_MAX_LABELS 24
static int next_label(const char **p, char out[IMPORT_LABEL_MAX + 1])
{
	const char *comma = strchr(*p, ',');
	size_t n = comma ? (size_t)(comma - *p) : strlen(*p);
	int rc = n > IMPORT_LABEL_MAX ? -1 : (int)n;

	if (rc < 0)
		n = 0;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = comma ? comma + 1 : NULL;
	return rc;
}

int import_check_args(const char *labels, const char *filename, char *err,
		      size_t len)
{
	if (filename) {
		size_t n = strlen(filename);
		if (n > 255 || strpbrk(filename, "/\"\\")) {
			snprintf(err, len,
				 "filename: at most 255 bytes, without '/', "
				 "'\\' or '\"'");
			return -EINVAL;
		}
		if (utf8_has_control(filename) || !utf8_valid(filename)) {
			snprintf(err, len,
				 "filename: UTF-8 text without control "
				 "characters");
			return -EINVAL;
		}
	}
	if (labels) {
		char seen[IMPORT_MAX_LABELS][IMPORT_LABEL_MAX + 1];
		const char *p = labels;
		int k = 0, n;
		while (p) {
			if (k == IMPORT_MAX_LABELS) {
				snprintf(err, len,
					 "labels: at most %d (the file's own "
					 "labels come on top)",
					 IMPORT_MAX_LABELS);
				return -EINVAL;
			}
			n = next_label(&p, seen[k]);
			if (n <= 0 || seen[k][0] == ' ' ||
			    seen[k][n - 1] == ' ') {
				snprintf(err, len,
					 "labels: each 1 to 64 bytes, no "
					 "leading "
					 "or trailing space");
				return -EINVAL;
			}
			if (utf8_has_control(seen[k]) || !utf8_valid(seen[k])) {
				snprintf(err, len,
					 "labels: UTF-8 text without control "
					 "characters");
				return -EINVAL;
			}
			for (int j = 0; j < k; j++)
				if (strcmp(seen[j], seen[k]) == 0) {
					snprintf(err, len,
						 "labels: \"%.64s\" twice",
						 seen[k]);
					return -EINVAL;
				}
			k++;
		}
	}
	return 0;
}

int import_labels_add(json_t *l, const char *extra)
{
	/* the caller's labels (checked: import_check_args), each once */
	for (const char *p = extra; p;) {
		char tok[IMPORT_LABEL_MAX + 1];
		size_t i, n = json_array_size(l);
		if (next_label(&p, tok) <= 0)
			continue;
		for (i = 0;
		     i < n &&
		     strcmp(json_string_value(json_array_get(l, i)), tok) != 0;
		     i++)
			;
		if (i == n && json_array_append_new(l, json_string(tok)) < 0)
			return -ENOMEM;
	}
	return 0;
}

void import_sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&c);
	sha256_update(&c, len, data);
	sha256_digest(&c, sizeof(d), d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}
