/*
 * web_assets — the dashboard's files, embedded at build time by
 * cmake/embed_web.cmake from web/. The table ends with a NULL path.
 */
#ifndef STORBENCH_WEB_ASSETS_H
#define STORBENCH_WEB_ASSETS_H

#include <stddef.h>

struct web_asset {
	const char *path;         /* relative to web/, e.g. "vendor/chart.js" */
	const char *content_type;
	const unsigned char *data;
	size_t size;
};

extern const struct web_asset web_assets[];

#endif
