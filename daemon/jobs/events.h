/*
 * events — the daemon's event bus, behind GET /api/v1/events (server-sent
 * events): job state changes, live progress and every finished second of a
 * running job, each as a named event with a JSON object and a sequence
 * number.
 *
 * Design: a ring of the last EVENTS_RING events under one mutex. Any thread
 * publishes (the queue worker, the HTTP thread); a reader asks for what
 * follows the last sequence number it saw, formatted as SSE text. After each
 * publish the one registered waker is called (outside the lock) — the HTTP
 * server resumes its suspended event streams. A reader that fell more than
 * EVENTS_RING behind gets the events still held and a "gap" comment.
 */
#ifndef STORBENCH_EVENTS_H
#define STORBENCH_EVENTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define EVENTS_RING 1024

/* Appends event name ("job", "progress", "sample") with data (consumed);
 * returns its sequence number (from 1), or 0 if data could not be encoded. */
uint64_t events_publish(const char *name, json_t *data);

/* The sequence number of the last event published (0: none yet). */
uint64_t events_last(void);

/*
 * Formats the events after sequence number after as SSE
 * ("id: N\nevent: NAME\ndata: {...}\n\n") into buf (len bytes), whole
 * events only, as many as fit. Returns the bytes written and sets *last to
 * the last sequence number written (after when none fit or none are new).
 */
size_t events_read(uint64_t after, char *buf, size_t len, uint64_t *last);

/* Sets the function called after every publish (NULL: none). */
void events_set_waker(void (*wake)(void *arg), void *arg);

#endif
