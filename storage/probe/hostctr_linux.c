/*
 * hostctr_linux — the host's and a block device's counters (hostctr.h)
 * from /proc/stat (the "cpu" line and every "cpuN" line, in USER_HZ
 * ticks), /proc/meminfo (kB) and /sys/block/DISK/stat (the kernel's
 * Documentation/block/stat.rst: sectors of 512 bytes, times in ms), the
 * device's members from /sys/block/DISK/slaves/.
 *
 * Design: the files are opened once (hostctr_open) and read again from
 * offset 0 with pread into one buffer sized then, so a snapshot is a few
 * system calls and no allocation. The parsers take text, so the unit test
 * feeds them strings (hostctr_parse_*, exported for it).
 */
#include "hostctr.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"

#define N_DEV (1 + HOSTCTR_MAX_MEMBERS)

/* One CPU's ticks (or all CPUs' on the "cpu" line). */
struct cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* A device's stat line: the fields hostctr uses. */
struct dev_stat {
	uint64_t reads, read_sectors, read_ms;
	uint64_t writes, write_sectors, write_ms;
	uint64_t in_flight, io_ms;
};

struct mem_info {
	uint64_t total, free, buffers, cached, dirty, writeback; /* kB */
};

struct snap {
	uint64_t t_ns;
	unsigned have;
	unsigned n_cpu; /* per-CPU entries filled */
	struct cpu_ticks all;
	struct cpu_ticks *cpu; /* cap_cpu entries */
	struct mem_info mem;
	struct dev_stat dev[N_DEV];
	unsigned dev_ok; /* bit i: dev[i] read */
};

struct hostctr {
	int fd_stat, fd_mem;
	int fd_dev[N_DEV]; /* [0] the device, then its members */
	char name[N_DEV][32];
	unsigned n_dev;
	unsigned cap_cpu;
	char *buf;
	size_t buf_len;
	struct snap s[HOSTCTR_MARKS];
};

/* Exported for tests/unit/test_hostctr.c only: slot mark as if the files
 * had held these texts (NULL: unreadable) at time t_ns; dev is device
 * "test0"'s stat line. */
void hostctr_mark_text(struct hostctr *h, unsigned mark, uint64_t t_ns,
		       const char *stat, const char *meminfo, const char *dev);

/* Reads up to n numbers after p (spaces between); returns how many. */
static unsigned read_nums(const char *p, uint64_t *v, unsigned n)
{
	unsigned k = 0;
	char *end;

	while (k < n) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		v[k] = strtoull(p, &end, 10);
		if (errno || end == p)
			break;
		p = end;
		k++;
	}
	return k;
}

static int ticks_of(const char *p, struct cpu_ticks *t)
{
	uint64_t v[8] = { 0 };

	/* user nice system idle iowait irq softirq steal: kernels before
	 * 2.6.11 stop earlier, and the rest stays 0 */
	if (read_nums(p, v, 8) < 4)
		return -EINVAL;
	*t =
		(struct cpu_ticks){ v[0], v[1], v[2], v[3],
				    v[4], v[5], v[6], v[7] };
	return 0;
}

static int hostctr_parse_stat(const char *text, struct cpu_ticks *all,
			      struct cpu_ticks *cpu, unsigned cap,
			      unsigned *n_cpu)
{
	const char *line = text;
	int have_all = 0;

	*n_cpu = 0;
	while (line && *line) {
		if (strncmp(line, "cpu ", 4) == 0) {
			have_all = ticks_of(line + 4, all) == 0;
		} else if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' &&
			   line[3] <= '9') {
			const char *p = line + 3;
			while (*p >= '0' && *p <= '9')
				p++;
			if (*n_cpu < cap && ticks_of(p, &cpu[*n_cpu]) == 0)
				(*n_cpu)++;
		} else if (have_all) {
			break; /* the cpu lines come first */
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return have_all ? 0 : -EINVAL;
}

static int hostctr_parse_meminfo(const char *text, struct mem_info *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MemTotal:", offsetof(struct mem_info, total) },
		{ "MemFree:", offsetof(struct mem_info, free) },
		{ "Buffers:", offsetof(struct mem_info, buffers) },
		{ "Cached:", offsetof(struct mem_info, cached) },
		{ "Dirty:", offsetof(struct mem_info, dirty) },
		{ "Writeback:", offsetof(struct mem_info, writeback) },
	};
	const char *line = text;
	unsigned found = 0;

	memset(m, 0, sizeof(*m));
	while (line && *line) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t l = strlen(keys[i].key);
			if (strncmp(line, keys[i].key, l) == 0 &&
			    read_nums(line + l,
				      (uint64_t *)((char *)m + keys[i].off),
				      1) == 1)
				found |= 1u << i;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return found == (1u << 6) - 1 ? 0 : -EINVAL;
}

static int hostctr_parse_dev(const char *text, struct dev_stat *d)
{
	uint64_t v[11];

	/* reads, merges, sectors, ms; writes, merges, sectors, ms;
	 * in flight, io_ticks, time in queue (then discards, flushes) */
	if (read_nums(text, v, 11) < 11)
		return -EINVAL;
	*d =
		(struct dev_stat){ v[0], v[2], v[3], v[4],
				   v[6], v[7], v[8], v[9] };
	return 0;
}

/* Reads fd from offset 0 into h->buf; NUL-terminated. */
static int read_fd(struct hostctr *h, int fd)
{
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	n = pread(fd, h->buf, h->buf_len - 1, 0);
	if (n < 0)
		return -errno;
	h->buf[n] = '\0';
	return 0;
}

/* The members of device-mapper or md device dev: /sys/block/DEV/slaves. */
static void open_members(struct hostctr *h, const char *dev)
{
	char path[300];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/block/%s/slaves", dev);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d)) && h->n_dev < N_DEV) {
		int n;
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 32)
			continue;
		/* a member partition's stat is in its class directory */
		n = snprintf(path, sizeof(path), "/sys/class/block/%s/stat",
			     e->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		h->fd_dev[h->n_dev] = open(path, O_RDONLY | O_CLOEXEC);
		if (h->fd_dev[h->n_dev] < 0)
			continue;
		snprintf(h->name[h->n_dev], 32, "%s", e->d_name);
		h->n_dev++;
	}
	closedir(d);
}

int hostctr_open(const char *disk, struct hostctr **out)
{
	struct hostctr *h = calloc(1, sizeof(*h));
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	char path[300];
	int rc = -ENOMEM;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	h->fd_stat = h->fd_mem = -1;
	for (unsigned i = 0; i < N_DEV; i++)
		h->fd_dev[i] = -1;
	h->cap_cpu = cpus > 0 && cpus < 65536 ? (unsigned)cpus * 2 : 1024;
	/* /proc/stat: a line of ~100 bytes per CPU, then the rest */
	h->buf_len = 8192 + (size_t)h->cap_cpu * 160;
	if (!(h->buf = malloc(h->buf_len)))
		goto fail;
	for (unsigned m = 0; m < HOSTCTR_MARKS; m++)
		if (!(h->s[m].cpu =
			      calloc(h->cap_cpu, sizeof(struct cpu_ticks))))
			goto fail;
	h->fd_stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	h->fd_mem = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	if (disk && *disk && strlen(disk) < 32 && !strchr(disk, '/')) {
		snprintf(path, sizeof(path), "/sys/block/%s/stat", disk);
		h->fd_dev[0] = open(path, O_RDONLY | O_CLOEXEC);
		if (h->fd_dev[0] >= 0) {
			snprintf(h->name[0], 32, "%s", disk);
			h->n_dev = 1;
			open_members(h, disk);
		}
	}
	*out = h;
	return 0;
fail:
	hostctr_close(h);
	return rc;
}

/*
 * Reads text into part `what` of snapshot s: HOSTCTR_CPU the CPU lines of
 * /proc/stat, HOSTCTR_MEM /proc/meminfo, HOSTCTR_DEV the stat line of
 * device i (0: the device, then its members). NULL is a file that could
 * not be read: the part stays out of s->have. The one parser of
 * hostctr_mark (the files, through the one buffer) and hostctr_mark_text
 * (the unit test's texts).
 */
static void snap_part(struct hostctr *h, struct snap *s, unsigned what,
		      unsigned i, const char *text)
{
	if (!text)
		return;
	if (what == HOSTCTR_CPU &&
	    hostctr_parse_stat(text, &s->all, s->cpu, h->cap_cpu, &s->n_cpu) ==
		    0)
		s->have |= HOSTCTR_CPU;
	else if (what == HOSTCTR_MEM &&
		 hostctr_parse_meminfo(text, &s->mem) == 0)
		s->have |= HOSTCTR_MEM;
	else if (what == HOSTCTR_DEV &&
		 hostctr_parse_dev(text, &s->dev[i]) == 0) {
		s->dev_ok |= 1u << i;
		if (i == 0)
			s->have |= HOSTCTR_DEV;
	}
}

/* The text of file fd, read again from its start into h->buf, or NULL. */
static const char *file_text(struct hostctr *h, int fd)
{
	return read_fd(h, fd) == 0 ? h->buf : NULL;
}

void hostctr_mark(struct hostctr *h, unsigned mark)
{
	struct snap *s;

	if (!h || mark >= HOSTCTR_MARKS)
		return;
	s = &h->s[mark];
	s->have = s->dev_ok = 0;
	s->t_ns = os_now_ns();
	snap_part(h, s, HOSTCTR_CPU, 0, file_text(h, h->fd_stat));
	snap_part(h, s, HOSTCTR_MEM, 0, file_text(h, h->fd_mem));
	for (unsigned i = 0; i < h->n_dev; i++)
		snap_part(h, s, HOSTCTR_DEV, i, file_text(h, h->fd_dev[i]));
}

void hostctr_mark_text(struct hostctr *h, unsigned mark, uint64_t t_ns,
		       const char *stat, const char *meminfo, const char *dev)
{
	struct snap *s = &h->s[mark];

	s->have = s->dev_ok = 0;
	s->t_ns = t_ns;
	snap_part(h, s, HOSTCTR_CPU, 0, stat);
	snap_part(h, s, HOSTCTR_MEM, 0, meminfo);
	snap_part(h, s, HOSTCTR_DEV, 0, dev);
	if (s->dev_ok & 1) {
		snprintf(h->name[0], sizeof(h->name[0]), "test0");
		h->n_dev = h->n_dev ? h->n_dev : 1;
	}
}

/* b − a, or 0 when the counter went back (a CPU went offline). */
static uint64_t sub(uint64_t b, uint64_t a)
{
	return b >= a ? b - a : 0;
}

static uint64_t busy_of(const struct cpu_ticks *t)
{
	return t->user + t->nice + t->system + t->irq + t->softirq + t->steal;
}

static uint64_t total_of(const struct cpu_ticks *t)
{
	return busy_of(t) + t->idle + t->iowait;
}

static void diff_cpu(const struct snap *a, const struct snap *b,
		     struct hostctr_sample *o)
{
	const struct cpu_ticks *x = &a->all, *y = &b->all;
	double total = (double)sub(total_of(y), total_of(x));

	if (total <= 0)
		return;
	o->cpu_user = 100.0 *
		      (double)(sub(y->user, x->user) + sub(y->nice, x->nice)) /
		      total;
	o->cpu_system = 100.0 * (double)sub(y->system, x->system) / total;
	o->cpu_iowait = 100.0 * (double)sub(y->iowait, x->iowait) / total;
	o->cpu_irq =
		100.0 *
		(double)(sub(y->irq, x->irq) + sub(y->softirq, x->softirq)) /
		total;
	o->cpu_steal = 100.0 * (double)sub(y->steal, x->steal) / total;
	o->cpu_busy = 100.0 * (double)sub(busy_of(y), busy_of(x)) / total;
	o->core = -1;
	for (unsigned i = 0; i < a->n_cpu && i < b->n_cpu; i++) {
		double t =
			(double)sub(total_of(&b->cpu[i]), total_of(&a->cpu[i]));
		double pct;
		if (t <= 0)
			continue;
		pct = 100.0 *
		      (double)sub(busy_of(&b->cpu[i]), busy_of(&a->cpu[i])) / t;
		if (o->core < 0 || pct > o->core_busy) {
			o->core_busy = pct > 100 ? 100 : pct;
			o->core = (int)i;
		}
	}
	o->have |= HOSTCTR_CPU;
}

static void diff_dev(const char *name, const struct dev_stat *a,
		     const struct dev_stat *b, double interval_s,
		     struct hostctr_dev *o)
{
	uint64_t ios;

	snprintf(o->name, sizeof(o->name), "%s", name);
	o->reads = sub(b->reads, a->reads);
	o->writes = sub(b->writes, a->writes);
	o->read_bytes = sub(b->read_sectors, a->read_sectors) * 512;
	o->write_bytes = sub(b->write_sectors, a->write_sectors) * 512;
	o->in_flight = b->in_flight;
	o->util_pct = interval_s > 0 ? (double)sub(b->io_ms, a->io_ms) /
					       (interval_s * 1e3) * 100
				     : 0;
	if (o->util_pct > 100)
		o->util_pct = 100;
	ios = o->reads + o->writes;
	o->wait_ms = ios ? (double)(sub(b->read_ms, a->read_ms) +
				    sub(b->write_ms, a->write_ms)) /
				     (double)ios
			 : 0;
}

void hostctr_diff(const struct hostctr *h, unsigned from, unsigned to,
		  struct hostctr_sample *out)
{
	const struct snap *a, *b;
	unsigned both;

	memset(out, 0, sizeof(*out));
	out->core = -1;
	if (!h || from >= HOSTCTR_MARKS || to >= HOSTCTR_MARKS)
		return;
	a = &h->s[from];
	b = &h->s[to];
	both = a->have & b->have;
	out->interval_s =
		b->t_ns > a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9 : 0;
	if (both & HOSTCTR_CPU)
		diff_cpu(a, b, out);
	if (both & HOSTCTR_MEM) {
		const struct mem_info *m = &b->mem;
		uint64_t unused = m->free + m->buffers + m->cached;
		out->mem_used =
			(m->total > unused ? m->total - unused : 0) * 1024;
		out->mem_cache = m->cached * 1024;
		out->mem_dirty = m->dirty * 1024;
		out->mem_writeback = m->writeback * 1024;
		out->mem_dirty_start = (a->mem.dirty + a->mem.writeback) * 1024;
		out->have |= HOSTCTR_MEM;
	}
	if (!(both & HOSTCTR_DEV))
		return;
	diff_dev(h->name[0], &a->dev[0], &b->dev[0], out->interval_s,
		 &out->dev);
	out->have |= HOSTCTR_DEV;
	for (unsigned i = 1; i < h->n_dev; i++)
		if (a->dev_ok & b->dev_ok & (1u << i))
			diff_dev(h->name[i], &a->dev[i], &b->dev[i],
				 out->interval_s,
				 &out->members[out->n_members++]);
}

void hostctr_close(struct hostctr *h)
{
	if (!h)
		return;
	if (h->fd_stat >= 0)
		close(h->fd_stat);
	if (h->fd_mem >= 0)
		close(h->fd_mem);
	for (unsigned i = 0; i < N_DEV; i++)
		if (h->fd_dev[i] >= 0)
			close(h->fd_dev[i]);
	for (unsigned m = 0; m < HOSTCTR_MARKS; m++)
		free(h->s[m].cpu);
	free(h->buf);
	free(h);
}
