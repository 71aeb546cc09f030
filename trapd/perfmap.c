/* perfmap.c - JIT symbol maps (perfmap.h). */
#include "trapd/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/mapped_file.h"

#define STATUS_MAX (64u << 10) /* bytes of /proc/PID/status read */
#define MAX_OVERLAP 64	       /* earlier symbols a lookup looks back at */

/* --- parsing ------------------------------------------------------------- */

/* hex - a hex number of 1 to 16 digits (an optional 0x first) at *@s, up
 * to a blank; *@s moves past it. Returns 0 or -EINVAL. */
static int hex(const char **s, const char *end, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end && *p != ' '; p++, digits++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		if (digits == 16)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

/* parse_line - "START SIZE NAME" in @line[0..len): the symbol's range
 * into @sym, its name's first byte and length into @name, @name_len. */
static int parse_line(const char *line, size_t len, struct perfmap_sym *sym, const char **name,
		      size_t *name_len)
{
	const char *p = line, *end = line + len;
	uint64_t start, size;

	if (len && end[-1] == '\r')
		end--;
	if (hex(&p, end, &start) || p == end || *p++ != ' ' || hex(&p, end, &size) || p == end ||
	    *p++ != ' ' || p == end)
		return -EINVAL;
	if (!size || start + size < start)
		return -EINVAL;
	sym->start = start;
	sym->end = start + size;
	*name = p;
	*name_len = (size_t)(end - p);
	if (*name_len > PERFMAP_MAX_NAME)
		*name_len = PERFMAP_MAX_NAME;
	return 0;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct perfmap_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct builder {
	struct perfmap *m;
	size_t cap, names_len, names_cap;
};

static int add(struct builder *b, const struct perfmap_sym *sym, const char *name, size_t len)
{
	struct perfmap *m = b->m;
	void *grown;

	if (m->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;

		grown = realloc(m->syms, ncap * sizeof(*m->syms));
		if (!grown)
			return -ENOMEM;
		m->syms = grown;
		b->cap = ncap;
	}
	if (b->names_len + len + 1 > b->names_cap) {
		size_t ncap = b->names_cap ? b->names_cap * 2 : 4096;

		while (ncap < b->names_len + len + 1)
			ncap *= 2;
		grown = realloc(m->names, ncap);
		if (!grown)
			return -ENOMEM;
		m->names = grown;
		b->names_cap = ncap;
	}
	m->syms[m->n] = *sym;
	m->syms[m->n].seq = (uint32_t)m->n;
	m->syms[m->n].name = (uint32_t)b->names_len;
	memcpy(m->names + b->names_len, name, len);
	m->names[b->names_len + len] = '\0';
	b->names_len += len + 1;
	m->n++;
	return 0;
}

/* finish - sort by start and index the highest end so far. */
static int finish(struct perfmap *m)
{
	uint64_t max = 0;
	size_t i;

	if (!m->n)
		return 0;
	qsort(m->syms, m->n, sizeof(*m->syms), sym_cmp);
	m->max_end = malloc(m->n * sizeof(*m->max_end));
	if (!m->max_end)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		if (m->syms[i].end > max)
			max = m->syms[i].end;
		m->max_end[i] = max;
	}
	return 0;
}

int perfmap__parse(const char *text, size_t len, struct perfmap *out)
{
	struct builder b = { .m = out };
	const char *p = text, *end = text + len, *nl, *name;
	struct perfmap_sym sym;
	size_t name_len;
	int err = 0;

	memset(out, 0, sizeof(*out));
	/* only whole lines: a writer may be in the middle of the last one */
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (out->n == PERFMAP_MAX_ENTRIES) {
			out->truncated = true;
			break;
		}
		if (parse_line(p, (size_t)(nl - p), &sym, &name, &name_len) == 0)
			err = add(&b, &sym, name, name_len);
		else if (nl > p)
			out->nbad++;
		if (err)
			break;
		p = nl + 1;
	}
	if (!err)
		err = finish(out);
	if (err)
		perfmap__free(out);
	return err;
}

/* --- reading ------------------------------------------------------------- */

/* namespaced_pid - @pid as the process sees itself: the last number of
 * the NSpid line of its status; @pid itself on kernels without it. */
static int namespaced_pid(const char *proc_root, int pid)
{
	char path[128], *buf, *line, *last;
	ssize_t n;
	long v;
	int fd, ns = pid;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(STATUS_MAX + 1);
	n = buf ? read(fd, buf, STATUS_MAX) : -1;
	close(fd);
	if (n < 0) {
		free(buf);
		return buf ? -errno : -ENOMEM;
	}
	buf[n] = '\0';
	line = strstr(buf, "\nNSpid:");
	if (line) {
		line += 7;
		line[strcspn(line, "\n")] = '\0';
		last = strrchr(line, '\t');
		if (!last)
			last = strrchr(line, ' ');
		v = last ? strtol(last + 1, NULL, 10) : 0;
		if (v > 0 && v <= 0x400000)
			ns = (int)v;
	}
	free(buf);
	return ns;
}

int perfmap__read(const char *proc_root, int pid, struct perfmap *out)
{
	char path[64], *text;
	struct stat st;
	size_t len = 0, cap;
	ssize_t n = 1;
	int fd, ns, err;

	memset(out, 0, sizeof(*out));
	ns = namespaced_pid(proc_root, pid);
	if (ns < 0)
		return ns;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", ns);
	fd = mapped_file_open_in_root(proc_root, pid, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	/* what is there now; a runtime appending meanwhile waits for the next read */
	cap = st.st_size > PERFMAP_MAX_FILE ? PERFMAP_MAX_FILE : (size_t)st.st_size;
	text = malloc(cap + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	while (len < cap && (n = read(fd, text + len, cap - len)) > 0)
		len += (size_t)n;
	err = n < 0 ? -errno : 0;
	close(fd);
	if (!err)
		err = perfmap__parse(text, len, out);
	if (!err && (size_t)st.st_size > cap)
		out->truncated = true;
	free(text);
	return err;
}

const char *perfmap__lookup(const struct perfmap *m, uint64_t addr)
{
	const struct perfmap_sym *best = NULL;
	size_t lo = 0, hi = m->n, mid, n;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* back only while some earlier symbol still reaches addr, and not
	 * far: a hostile map of nested ranges must not make every lookup
	 * walk all of it */
	for (n = 0; lo > 0 && m->max_end[lo - 1] > addr && n < MAX_OVERLAP; lo--, n++) {
		const struct perfmap_sym *s = &m->syms[lo - 1];

		if (addr < s->end && (!best || s->seq > best->seq))
			best = s;
	}
	return best ? m->names + best->name : NULL;
}

void perfmap__free(struct perfmap *m)
{
	free(m->syms);
	free(m->max_end);
	free(m->names);
	memset(m, 0, sizeof(*m));
}
