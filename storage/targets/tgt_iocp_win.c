/*
 * tgt_iocp_win — the default back-end on Windows: a local file opened for
 * overlapped I/O (lfile_open: FILE_FLAG_OVERLAPPED, FILE_FLAG_NO_BUFFERING
 * unless the volume refuses it) and bound to an I/O completion port.
 *
 * One port per engine thread (CreateIoCompletionPort), one OVERLAPPED per
 * queue slot. queue() issues the ReadFile / WriteFile at once (Windows has
 * no separate submit: commit() does nothing); reap() waits with
 * GetQueuedCompletionStatusEx, which hands back every packet already posted
 * in one call. Where the handle accepts FILE_SKIP_COMPLETION_PORT_ON_SUCCESS
 * (SetFileCompletionNotificationModes), an I/O that completes inside its
 * ReadFile / WriteFile posts no packet: it is kept on a list here and handed
 * back by the next reap, as is an I/O that failed to start. Each entry's
 * status is the OVERLAPPED's (Internal, read with GetOverlappedResult). close
 * cancels what is in flight (CancelIoEx) and waits for every packet before
 * freeing the OVERLAPPEDs.
 */
#include "lfile.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "os/winapi.h"

struct iocp_slot {
	OVERLAPPED ov; /* first: a packet's OVERLAPPED is its slot */
	struct tgt_io *io;
};

struct iocp_ctx {
	struct lfile local; /* first: the shared fsync/preallocate */
	HANDLE port;
	int skip;		 /* FILE_SKIP_COMPLETION_PORT_ON_SUCCESS */
	unsigned n;		 /* slots */
	unsigned pending;	 /* I/Os whose packet is still to come */
	struct iocp_slot *slots; /* n */
	unsigned *free;		 /* stack of free slot numbers */
	unsigned n_free;
	struct tgt_io **ready; /* done without a packet, to hand back */
	unsigned n_ready;
	OVERLAPPED_ENTRY *ents; /* n, for GetQueuedCompletionStatusEx */
};

static void iocp_free(struct iocp_ctx *c)
{
	if (c->port)
		CloseHandle(c->port);
	lfile_close(&c->local);
	free(c->slots);
	free(c->free);
	free(c->ready);
	free(c->ents);
	free(c);
}

static int iocp_open(const struct tgt_open_args *args, void **ctx, int *direct)
{
	struct iocp_ctx *c = calloc(1, sizeof(*c));
	unsigned n = args->depth ? args->depth : 1;
	int rc;

	if (!c)
		return -ENOMEM;
	c->local.h = -1;
	c->n = n;
	c->slots = calloc(n, sizeof(*c->slots));
	c->free = calloc(n, sizeof(*c->free));
	c->ready = calloc(n, sizeof(*c->ready));
	c->ents = calloc(n, sizeof(*c->ents));
	if (!c->slots || !c->free || !c->ready || !c->ents) {
		iocp_free(c);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
		c->free[i] = n - 1 - i;
	c->n_free = n;
	if ((rc = lfile_open(args, &c->local, direct)) < 0) {
		iocp_free(c);
		return rc;
	}
	/* one thread reaps the port: concurrency 1 */
	c->port = CreateIoCompletionPort((HANDLE)c->local.h, NULL, 0, 1);
	if (!c->port) {
		rc = win_last_errno();
		iocp_free(c);
		if (args->create)
			lfile_unlink(args->path, NULL);
		return rc;
	}
	/* a refusal only costs a packet per synchronous completion */
	c->skip = SetFileCompletionNotificationModes(
			  (HANDLE)c->local.h,
			  FILE_SKIP_COMPLETION_PORT_ON_SUCCESS |
				  FILE_SKIP_SET_EVENT_ON_HANDLE) != 0;
	*ctx = c;
	return 0;
}

/* The result of the finished I/O of slot s (bytes or a negative errno) and
 * its slot freed. */
static struct tgt_io *finish(struct iocp_ctx *c, struct iocp_slot *s)
{
	struct tgt_io *io = s->io;
	DWORD n = 0, err = 0;

	if (!GetOverlappedResult((HANDLE)c->local.h, &s->ov, &n, FALSE))
		err = GetLastError();
	if (err == 0 || err == ERROR_HANDLE_EOF)
		io->res = n; /* past the end of file: short, as pread */
	else
		io->res = win_errno(err);
	s->io = NULL;
	c->free[c->n_free++] = (unsigned)(s - c->slots);
	return io;
}

static int iocp_queue(void *ctx, struct tgt_io *io)
{
	struct iocp_ctx *c = ctx;
	struct iocp_slot *s;
	BOOL ok;
	DWORD err;

	if (c->n_free == 0)
		return -EBUSY;
	s = &c->slots[c->free[--c->n_free]];
	memset(&s->ov, 0, sizeof(s->ov));
	s->ov.Offset = (DWORD)io->offset;
	s->ov.OffsetHigh = (DWORD)(io->offset >> 32);
	s->io = io;
	ok = io->write ? WriteFile((HANDLE)c->local.h, io->buf, io->len, NULL,
				   &s->ov)
		       : ReadFile((HANDLE)c->local.h, io->buf, io->len, NULL,
				  &s->ov);
	err = ok ? 0 : GetLastError();
	if (err == ERROR_IO_PENDING || (ok && !c->skip)) {
		c->pending++; /* its packet will come */
		return 0;
	}
	/*
	 * Done already and no packet will come: completed with
	 * FILE_SKIP_COMPLETION_PORT_ON_SUCCESS, or failed to start (a read
	 * at or past the end of file fails here with ERROR_HANDLE_EOF).
	 */
	if (ok) {
		c->ready[c->n_ready++] = finish(c, s);
	} else {
		io->res = err == ERROR_HANDLE_EOF ? 0 : win_errno(err);
		s->io = NULL;
		c->free[c->n_free++] = (unsigned)(s - c->slots);
		c->ready[c->n_ready++] = io;
	}
	return 0;
}

static int iocp_commit(void *ctx)
{
	(void)ctx; /* ReadFile / WriteFile submitted each one */
	return 0;
}

/* Takes up to max packets, waiting up to ms for the first; stores their
 * I/Os in done[]. How many, or a negative errno. */
static int take_packets(struct iocp_ctx *c, DWORD ms, struct tgt_io **done,
			unsigned max)
{
	ULONG got = 0;

	if (max > c->n)
		max = c->n;
	if (!GetQueuedCompletionStatusEx(c->port, c->ents, max, &got, ms,
					 FALSE)) {
		DWORD err = GetLastError();
		return err == WAIT_TIMEOUT ? 0 : win_errno(err);
	}
	for (ULONG i = 0; i < got; i++) {
		struct iocp_slot *s =
			(struct iocp_slot *)(void *)c->ents[i].lpOverlapped;
		c->pending--;
		done[i] = finish(c, s);
	}
	return (int)got;
}

static int iocp_reap(void *ctx, unsigned min, unsigned timeout_ms,
		     struct tgt_io **done, unsigned max)
{
	struct iocp_ctx *c = ctx;
	uint64_t deadline = os_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	unsigned n = 0;
	int rc;

	while (n < max && c->n_ready)
		done[n++] = c->ready[--c->n_ready];
	if (min == 0 && n == 0 && c->pending && max)
		return take_packets(c, 0, done, max); /* what is posted */
	/* the port only when fewer than min are in hand */
	while (n < min && n < max && c->pending) {
		uint64_t now = os_now_ns();
		DWORD ms =
			now >= deadline
				? 0
				: (DWORD)((deadline - now + 999999) / 1000000);
		rc = take_packets(c, ms, done + n, max - n);
		if (rc < 0)
			return n ? (int)n : rc;
		n += (unsigned)rc;
		if (rc == 0 && ms == 0)
			break; /* timed out */
	}
	return (int)n;
}

static void iocp_close(void *ctx)
{
	struct iocp_ctx *c = ctx;
	struct tgt_io *sink[64];

	if (c->pending)
		CancelIoEx((HANDLE)c->local.h, NULL);
	/* every OVERLAPPED must be done with before it is freed */
	while (c->pending) {
		unsigned max = c->pending < 64 ? c->pending : 64;
		if (take_packets(c, INFINITE, sink, max) < 0)
			break;
	}
	iocp_free(c);
}

const struct tgt_ops tgt_iocp_ops = {
	.version = TGT_OPS_VERSION,
	.name = "iocp",
	.title = "overlapped I/O on an I/O completion port, one port per "
		 "engine thread",
	.caps = TGT_CAP_ASYNC | TGT_CAP_DIRECT | TGT_CAP_FILES |
		TGT_CAP_BY_NAME,
	.file_caps = LFILE_FILE_CAPS,
	.file_names = LFILE_FILE_NAMES,
	.probe = lfile_probe,
	.check_dir = lfile_check_dir,
	.space = lfile_space,
	.open = iocp_open,
	.queue = iocp_queue,
	.commit = iocp_commit,
	.reap = iocp_reap,
	.fsync = lfile_tgt_fsync,
	.preallocate = lfile_tgt_preallocate,
	.close = iocp_close,
	.unlink = lfile_unlink,
	.dio_align = lfile_dio_align,
	.make_file = lfile_make,
	.allocated = lfile_allocated,
};
