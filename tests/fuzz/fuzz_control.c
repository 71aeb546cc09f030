// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_control.c - control socket requests on arbitrary bytes, two ways:
 *  - the line parser: no crash, no undefined behaviour, and a parsed
 *    request formats to a line that parses back to the same request;
 *  - the daemon's end (control_server.c): the bytes sent over a real
 *    connection in chunks the input chooses, as a hostile client would;
 *    the answer is always one well-formed status line, and the
 *    connection never outlives its deadline. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "trapd/daemon/control.h"
#include "trapd/daemon/control_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_parser(const uint8_t *data, size_t size)
{
	char line[CONTROL_REQUEST_MAX + 8], out[CONTROL_REQUEST_MAX + 64], err[256];
	struct control_request req, back;

	if (size >= sizeof(line))
		return;
	memcpy(line, data, size);
	line[size] = '\0';
	if (control_request__parse(line, &req, err, sizeof(err)))
		return;
	if (control_request__format(&req, out, sizeof(out)))
		abort();
	out[strlen(out) - 1] = '\0';
	if (control_request__parse(out, &back, err, sizeof(err)) ||
	    memcmp(&req, &back, sizeof(req)))
		abort();
}

static void fuzz_answer(void *ctx, struct control_conn *c, const struct control_request *req)
{
	(void)ctx;
	if (req->verb == CONTROL_STATUS && req->json)
		control_conn__reply(c, "ok", "{}\n", 3);
	else
		control_conn__reply(c, "ok", NULL, 0);
}

static struct control_server srv;
static int epfd = -1;
static struct sockaddr_un addr = { .sun_family = AF_UNIX };

static void server_once(void)
{
	char dir[] = "/tmp/trapd-fuzzctl-XXXXXX", err[512];

	if (epfd >= 0)
		return;
	if (!mkdtemp(dir))
		abort();
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/ctl.sock", dir);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (control_server__open(&srv, addr.sun_path, (gid_t)-1, epfd, fuzz_answer, NULL, err,
				 sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
}

static void pump(int64_t now)
{
	struct epoll_event evs[8];
	int i, n = epoll_wait(epfd, evs, 8, 0);

	for (i = 0; i < n; i++)
		control_server__dispatch(&srv, evs[i].data.fd, evs[i].events, now);
	control_server__expire(&srv, now);
}

/* check_server - data[0] is the chunk size, the rest the bytes sent. */
static void check_server(const uint8_t *data, size_t size)
{
	size_t chunk = size ? (size_t)(data[0] % 64) + 1 : 1, off = 1, n = 0;
	char answer[1024];
	int64_t now = 1000000000;
	ssize_t r;
	int fd;

	server_once();
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		abort();
	while (off < size) {
		size_t len = size - off < chunk ? size - off : chunk;

		if (send(fd, data + off, len, MSG_NOSIGNAL) < 0)
			break; /* answered and closed already */
		off += len;
		pump(now += 1000000);
	}
	shutdown(fd, SHUT_WR);
	pump(now += 1000000);
	pump(now + CONTROL_DEADLINE_NS);
	if (control_server__connections(&srv))
		abort(); /* past its deadline */
	while (n + 1 < sizeof(answer) && (r = recv(fd, answer + n, sizeof(answer) - 1 - n, 0)) > 0)
		n += (size_t)r;
	answer[n] = '\0';
	close(fd);
	if (n && strncmp(answer, "ok\n", 3) && strncmp(answer, "usage: ", 7) &&
	    strncmp(answer, "error: ", 7))
		abort();
	if (n && !strchr(answer, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_parser(data, size);
	check_server(data, size);
	return 0;
}
