// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* control.c - the control socket's protocol: request lines, and the
 * client's end (the daemon's is control_server.c). */
#include "trapd/daemon/control.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define IO_TIMEOUT_MS 1000

/* --- requests ------------------------------------------------------------ */

static bool valid_rule_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= sizeof(((struct control_request *)0)->rule))
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return false;
	return true;
}

/* next_word - the next space-separated word of *p: its start and length;
 * advances *p. Returns false at the end of the line. */
static bool next_word(const char **p, const char **w, size_t *len)
{
	const char *s = *p;

	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	*w = s;
	while (*s && *s != ' ')
		s++;
	*len = (size_t)(s - *w);
	*p = s;
	return true;
}

static int parse_u64(const char *w, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 20)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (w[i] < '0' || w[i] > '9' || __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(w[i] - '0'), &v))
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_arm(const char *p, struct control_request *req, char *err, size_t errlen)
{
	const char *w;
	size_t len;

	if (next_word(&p, &w, &len) && !(len == 1 && w[0] == '-')) {
		if (!valid_rule_name(w, len)) {
			snprintf(err, errlen, "bad rule name '%.*s'", (int)(len > 64 ? 64 : len),
				 w);
			return -EINVAL;
		}
		memcpy(req->rule, w, len);
		req->rule[len] = '\0';
	}
	if (next_word(&p, &w, &len) &&
	    (parse_u64(w, len, &req->duration_ns) || !req->duration_ns)) {
		snprintf(err, errlen, "bad duration '%.*s': expected nanoseconds > 0",
			 (int)(len > 32 ? 32 : len), w);
		return -EINVAL;
	}
	if (next_word(&p, &w, &len)) {
		snprintf(err, errlen, "unexpected '%.*s' after arm [RULE] [DURATION_NS]",
			 (int)(len > 32 ? 32 : len), w);
		return -EINVAL;
	}
	return 0;
}

static int parse_upload(const char *p, struct control_request *req, char *err, size_t errlen)
{
	const char *w;
	size_t len;

	if (!next_word(&p, &w, &len))
		return 0;
	if (len != 6 || memcmp(w, "failed", 6) || next_word(&p, &w, &len)) {
		snprintf(err, errlen, "unexpected '%.*s' after upload: expected failed",
			 (int)(len > 32 ? 32 : len), w);
		return -EINVAL;
	}
	req->failed = true;
	return 0;
}

static int parse_top(const char *p, struct control_request *req, char *err, size_t errlen)
{
	uint64_t n = CONTROL_TOP_DEFAULT_SECONDS;
	const char *w;
	size_t len;

	if (next_word(&p, &w, &len) &&
	    (parse_u64(w, len, &n) || !n || n > CONTROL_TOP_MAX_SECONDS)) {
		snprintf(err, errlen, "bad '%.*s' after top: expected seconds, 1 to %d",
			 (int)(len > 32 ? 32 : len), w, CONTROL_TOP_MAX_SECONDS);
		return -EINVAL;
	}
	if (next_word(&p, &w, &len)) {
		snprintf(err, errlen, "unexpected '%.*s' after top [SECONDS]",
			 (int)(len > 32 ? 32 : len), w);
		return -EINVAL;
	}
	req->seconds = (uint32_t)n;
	return 0;
}

int control_request__parse(const char *line, struct control_request *req, char *err, size_t errlen)
{
	const char *p = line, *w;
	size_t len;

	memset(req, 0, sizeof(*req));
	if (strnlen(line, CONTROL_REQUEST_MAX) >= CONTROL_REQUEST_MAX) {
		snprintf(err, errlen, "request longer than %d bytes", CONTROL_REQUEST_MAX - 1);
		return -EINVAL;
	}
	if (!next_word(&p, &w, &len)) {
		snprintf(err, errlen, "empty request: expected status, arm, upload or top");
		return -EINVAL;
	}
	if (len == 3 && !memcmp(w, "arm", 3)) {
		req->verb = CONTROL_ARM;
		return parse_arm(p, req, err, errlen);
	}
	if (len == 6 && !memcmp(w, "upload", 6)) {
		req->verb = CONTROL_UPLOAD;
		return parse_upload(p, req, err, errlen);
	}
	if (len == 3 && !memcmp(w, "top", 3)) {
		req->verb = CONTROL_TOP;
		return parse_top(p, req, err, errlen);
	}
	if (len != 6 || memcmp(w, "status", 6)) {
		snprintf(err, errlen, "unknown request '%.*s': expected status, arm, upload or top",
			 (int)(len > 32 ? 32 : len), w);
		return -EINVAL;
	}
	req->verb = CONTROL_STATUS;
	if (next_word(&p, &w, &len)) {
		if (len != 4 || memcmp(w, "json", 4) || next_word(&p, &w, &len)) {
			snprintf(err, errlen, "unexpected '%.*s' after status: expected json",
				 (int)(len > 32 ? 32 : len), w);
			return -EINVAL;
		}
		req->json = true;
	}
	return 0;
}

int control_request__format(const struct control_request *req, char *buf, size_t len)
{
	int n;

	if (req->verb == CONTROL_STATUS)
		n = snprintf(buf, len, "status%s\n", req->json ? " json" : "");
	else if (req->verb == CONTROL_UPLOAD)
		n = snprintf(buf, len, "upload%s\n", req->failed ? " failed" : "");
	else if (req->verb == CONTROL_TOP)
		n = snprintf(buf, len, "top %u\n",
			     req->seconds ? req->seconds : CONTROL_TOP_DEFAULT_SECONDS);
	else if (req->duration_ns)
		n = snprintf(buf, len, "arm %s %" PRIu64 "\n", req->rule[0] ? req->rule : "-",
			     req->duration_ns);
	else
		n = snprintf(buf, len, "arm%s%s\n", req->rule[0] ? " " : "", req->rule);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* --- client -------------------------------------------------------------- */

static int make_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, strlen(path) + 1);
	return 0;
}

/* set_timeouts - before connect too: a daemon whose backlog is full (it
 * is pausing its accepts) makes connect wait, and the send timeout bounds
 * that wait. */
static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_MS / 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static int connect_daemon(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	int fd, e;

	e = make_addr(path, &sa);
	if (e) {
		snprintf(err, errlen, "control socket path too long: %s", path);
		return e;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	set_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	e = -errno;
	close(fd);
	if (e == -ENOENT || e == -ECONNREFUSED)
		snprintf(err, errlen,
			 "no trapd daemon is listening on %s (is it running? "
			 "start it with 'trapd daemon -c RULES')",
			 path);
	else if (e == -EAGAIN)
		snprintf(err, errlen,
			 "the trapd daemon on %s is not taking connections now (too many "
			 "clients, or it is out of file descriptors); try again",
			 path);
	else if (e == -EACCES || e == -EPERM)
		snprintf(err, errlen,
			 "%s: permission denied: only root or the control_group "
			 "may use the control socket",
			 path);
	else
		snprintf(err, errlen, "connecting to %s: %s", path, strerror(-e));
	return e;
}

/* read_answer - the status line into @status, the rest to @out. */
static int read_answer(int fd, char *status, size_t slen, FILE *out)
{
	char buf[4096];
	size_t n = 0;
	bool in_body = false;

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		ssize_t i;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (r == 0)
			break;
		for (i = 0; i < r && !in_body; i++) {
			if (buf[i] == '\n')
				in_body = true;
			else if (n + 1 < slen)
				status[n++] = buf[i];
		}
		if (in_body && i < r)
			fwrite(buf + i, 1, (size_t)(r - i), out);
	}
	status[n] = '\0';
	return in_body || n ? 0 : -EPROTO;
}

int control__call(const char *path, const struct control_request *req, FILE *out, char *err,
		  size_t errlen)
{
	char line[CONTROL_REQUEST_MAX + 64], status[1024];
	int fd, e;

	e = control_request__format(req, line, sizeof(line));
	if (e) {
		snprintf(err, errlen, "request too long");
		return e;
	}
	fd = connect_daemon(path, err, errlen);
	if (fd < 0)
		return fd;
	/* A daemon that refuses us answers and closes without reading: the
	 * answer is what counts, whatever the write gave. */
	write_all(fd, line, strlen(line));
	e = read_answer(fd, status, sizeof(status), out);
	close(fd);
	if (e) {
		snprintf(err, errlen, "talking to the daemon on %s: %s", path,
			 e == -EPROTO ? "it closed the connection without an answer"
				      : strerror(-e));
		return e;
	}
	if (!strcmp(status, "ok"))
		return 0;
	if (!strncmp(status, "usage: ", 7)) {
		snprintf(err, errlen, "%s", status + 7);
		return -EINVAL;
	}
	snprintf(err, errlen, "%s", !strncmp(status, "error: ", 7) ? status + 7 : status);
	return -EIO;
}
