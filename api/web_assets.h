/*
 * web_assets — the dashboard's files, embedded at build time by
 * cmake/embed_web.cmake from web/. The table ends with a NULL path.
 * api_openapi_fragments are the JSON files of api/openapi/ by name, embedded
 * the same way (not in the table: openapi.c merges them with the generated
 * schemas into the document served at /api/v1/openapi.json).
 */
#ifndef STORBENCH_WEB_ASSETS_H
#define STORBENCH_WEB_ASSETS_H

#include <stddef.h>

struct web_asset {
	const char *path; /* relative to web/, e.g. "vendor/chart.js" */
	const char *content_type;
	const unsigned char *data;
	size_t size;
};

extern const struct web_asset web_assets[];
/* the JSON files of api/openapi/ by name, a NULL path last (openapi.c
 * merges them) */
extern const struct web_asset api_openapi_fragments[];

#endif
