// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_http_request.c - one HTTP request through libcurl
 * (upload/http_request.h): how answers are sorted (confirmed, transient,
 * permanent), URLs in messages without their secrets, percent-encoding,
 * and real requests against a tiny server on 127.0.0.1 run by a thread of
 * this test: the exact bytes it receives, the S3-style error it answers,
 * a refused connection, a server that never answers, and the abort flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "upload/http_request.h"
#include "upload/scrub.h"
#include "upload/uri.h"

/* --- a scripted HTTP server ------------------------------------------------ */

#define REQ_MAX (4u << 20)

static char req_buf[REQ_MAX + 1]; /* one server at a time */

struct server {
	int lfd;
	int port;
	pthread_t thread;
	const char *answer; /* the whole raw answer; NULL: never answer */
	int quit[2];	    /* a pipe: written to end a hang */
	/* what came in: the head (up to the blank line) and the body */
	char *req;
	size_t req_len, head_len, body_len;
	bool got_request;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* content_length - the Content-Length in @head (NUL-terminated), or 0. */
static size_t content_length(const char *head)
{
	const char *line;

	for (line = head; line; line = strstr(line, "\r\n"), line = line ? line + 2 : NULL)
		if (!strncasecmp(line, "Content-Length:", 15))
			return (size_t)strtoull(line + 15, NULL, 10);
	return 0;
}

/* wait_readable - @fd or the quit pipe readable within 10 s. Returns
 * true for @fd. */
static bool wait_readable(struct server *s, int fd)
{
	struct pollfd p[2] = { { fd, POLLIN, 0 }, { s->quit[0], POLLIN, 0 } };

	return poll(p, 2, 10000) > 0 && !(p[1].revents & POLLIN) && p[0].revents;
}

/* read_request - the head and Content-Length bytes of body, or up to
 * EOF when the client gives up early. */
static void read_request(struct server *s, int fd)
{
	char *end = NULL;
	size_t want = SIZE_MAX;
	ssize_t n;

	while (s->req_len < REQ_MAX && s->req_len < want && wait_readable(s, fd)) {
		n = read(fd, s->req + s->req_len, REQ_MAX - s->req_len);
		if (n <= 0)
			break;
		s->req_len += (size_t)n;
		s->req[s->req_len] = '\0';
		if (!end && (end = strstr(s->req, "\r\n\r\n"))) {
			s->head_len = (size_t)(end + 4 - s->req);
			end[2] = '\0'; /* for content_length, put back below */
			want = s->head_len + content_length(s->req);
			end[2] = '\r';
		}
	}
	s->body_len = s->head_len ? s->req_len - s->head_len : 0;
}

static void *serve(void *arg)
{
	struct server *s = arg;
	char drain[4096];
	int fd;

	if (!wait_readable(s, s->lfd))
		return NULL;
	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	read_request(s, fd);
	s->got_request = s->head_len > 0;
	if (s->answer) {
		send(fd, s->answer, strlen(s->answer), MSG_NOSIGNAL);
		shutdown(fd, SHUT_WR);
	}
	/* a hang lasts until the client gives up or the test ends it */
	while (wait_readable(s, fd) && read(fd, drain, sizeof(drain)) > 0)
		;
	close(fd);
	return NULL;
}

static void server_start(struct server *s, const char *answer)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->answer = answer;
	s->req = req_buf;
	s->req[0] = '\0';
	assert_int_equal(pipe(s->quit), 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->lfd, 4), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &alen), 0);
	s->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	assert_int_equal(write(s->quit[1], "q", 1), 1);
	pthread_join(s->thread, NULL);
	close(s->lfd);
	close(s->quit[0]);
	close(s->quit[1]);
}

/* has_header - whether the request head has "@name: @value" (the name
 * in any case; @value NULL: any value). */
static bool has_header(const struct server *s, const char *name, const char *value)
{
	const char *line = strstr(s->req, "\r\n");
	size_t n = strlen(name);

	for (; line && line < s->req + s->head_len; line = strstr(line + 2, "\r\n")) {
		const char *h = line + 2;

		if (strncasecmp(h, name, n) || h[n] != ':')
			continue;
		if (!value)
			return true;
		h += n + 1;
		while (*h == ' ')
			h++;
		if (!strncmp(h, value, strlen(value)) && !strncmp(h + strlen(value), "\r\n", 2))
			return true;
	}
	return false;
}

/* --- helpers ----------------------------------------------------------------- */

static void assert_request_line(const struct server *s, const char *want)
{
	size_t n = strcspn(s->req, "\n") + 1;

	if (strlen(want) != n || strncmp(s->req, want, n))
		fail_msg("request line '%.*s', expected '%s'", (int)n, s->req, want);
}

static struct upload_config config(void)
{
	struct upload_config c = {
		.scheme = UPLOAD_HTTP,
		.tls_verify = true,
		.connect_timeout_ns = 5000000000ull,
		.stall_timeout_ns = 30000000000ull,
		.timeout_ns = 20000000000ull,
	};

	return c;
}

/* body_file - a temporary file of @len pseudo-random bytes (also in
 * *@copy when not NULL), its offset left at the end as sha256_fd leaves
 * it: the request must read from offset 0 all the same. */
static int body_file(size_t len, unsigned char **copy)
{
	char path[] = "/tmp/trapd-http-body-XXXXXX";
	unsigned char *b = malloc(len + 1);
	uint32_t x = 2463534242u;
	size_t i;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_non_null(b);
	unlink(path);
	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (unsigned char)x;
	}
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	if (copy)
		*copy = b;
	else
		free(b);
	return fd;
}

static void url_of(char *url, size_t len, const struct server *s, const char *path)
{
	snprintf(url, len, "http://127.0.0.1:%d%s", s->port, path);
}

/* --- sorting answers ------------------------------------------------------ */

static void test_classify_status(void **state)
{
	static const long ok[] = { 200, 201, 204, 299 };
	static const long transient[] = { 408, 429, 500, 502, 503, 504, 599 };
	static const long permanent[] = { 300, 301, 400, 401, 403, 404, 405, 409, 411, 412, 413 };
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_int_equal(http_classify(ok[i], CURLE_OK), UPLOAD_OK);
	for (i = 0; i < sizeof(transient) / sizeof(transient[0]); i++)
		if (http_classify(transient[i], CURLE_OK) != UPLOAD_TRANSIENT)
			fail_msg("HTTP %ld is not transient", transient[i]);
	for (i = 0; i < sizeof(permanent) / sizeof(permanent[0]); i++)
		if (http_classify(permanent[i], CURLE_OK) != UPLOAD_PERMANENT)
			fail_msg("HTTP %ld is not permanent", permanent[i]);
	/* a status wins over the code that came with it */
	assert_int_equal(http_classify(403, CURLE_COULDNT_CONNECT), UPLOAD_PERMANENT);
	assert_int_equal(http_classify(503, CURLE_PEER_FAILED_VERIFICATION), UPLOAD_TRANSIENT);
}

static void test_classify_curl_codes(void **state)
{
	static const int transient[] = {
		CURLE_COULDNT_CONNECT,	   CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR,
		CURLE_RECV_ERROR,	   CURLE_GOT_NOTHING,	     CURLE_COULDNT_RESOLVE_HOST,
		CURLE_ABORTED_BY_CALLBACK,
	};
	static const int permanent[] = {
		CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_READ_ERROR,
		CURLE_UNSUPPORTED_PROTOCOL,	CURLE_URL_MALFORMAT,
	};
	size_t i;

	for (i = 0; i < sizeof(transient) / sizeof(transient[0]); i++)
		if (http_classify(0, transient[i]) != UPLOAD_TRANSIENT)
			fail_msg("%s is not transient", curl_easy_strerror(transient[i]));
	for (i = 0; i < sizeof(permanent) / sizeof(permanent[0]); i++)
		if (http_classify(0, permanent[i]) != UPLOAD_PERMANENT)
			fail_msg("%s is not permanent", curl_easy_strerror(permanent[i]));
}

/* --- URLs in messages, percent-encoding ---------------------------------- */

static void test_url_for_message(void **state)
{
	static const struct {
		const char *url, *want;
	} cases[] = {
		{ "https://acct.blob.core.windows.net/c/a/b.json?sv=2024-01-01&sig=S3CR3T%3D",
		  "https://acct.blob.core.windows.net/c/a/b.json" },
		{ "https://user:pa55@host:8443/p/q?x=1#frag", "https://host:8443/p/q" },
		{ "https://user@host/p", "https://host/p" },
		{ "http://host/p#only-fragment", "http://host/p" },
		{ "http://host?sig=S3CR3T", "http://host" },
		{ "http://host#f", "http://host" },
		{ "http://host:80", "http://host:80" },
		{ "https://host/a@b/c", "https://host/a@b/c" }, /* '@' in the path is no user */
		{ "https://host/p?", "https://host/p" },
		{ "https://host/p?next=https://u:pw@evil/", "https://host/p" },
		{ "?sig=S3CR3T://u@h/x", "" },
	};
	char buf[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		http_url_for_message(cases[i].url, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("'%s' -> '%s', expected '%s'", cases[i].url, buf, cases[i].want);
	}
	/* a short buffer: cut, terminated, still nothing of the query */
	memset(buf, '#', sizeof(buf));
	assert_ptr_equal(http_url_for_message("https://host/abcdef?sig=S3CR3T", buf, 14), buf);
	assert_string_equal(buf, "https://host/");
	assert_int_equal(buf[14], '#');
}

static void test_answer_detail(void **state)
{
	char out[64];

	assert_string_equal(http_answer_detail("<Error><Code>AccessDenied</Code><Message>nope"
					       "</Message></Error>",
					       out, sizeof(out)),
			    ": AccessDenied: nope");
	assert_string_equal(http_answer_detail("<Error><Code>SlowDown\r\nmore</Code>", out,
					       sizeof(out)),
			    ": SlowDown");
	assert_string_equal(http_answer_detail("<Message>only this", out, sizeof(out)),
			    ": only this");
	assert_string_equal(http_answer_detail("plain text, no XML", out, sizeof(out)), "");
	assert_string_equal(http_answer_detail("", out, sizeof(out)), "");
	/* cut to @len, terminated */
	memset(out, '#', sizeof(out));
	assert_string_equal(http_answer_detail("<Code>AuthenticationFailed</Code><Message>x", out,
					       10),
			    ": Auth...");
	assert_int_equal(out[10], '#');
}

/* test_answer_detail_made_safe - what a hostile server puts in <Code> and
 * <Message> reaches no terminal raw: escapes, C1 and bad UTF-8 as \xHH. */
static void test_answer_detail_made_safe(void **state)
{
	char out[256];

	assert_string_equal(
		http_answer_detail("<Code>\x1b]0;pwned\x07"
				   "Denied</Code><Message>"
				   "\x1b[2J\xff\xfe \xc2\x9b"
				   "31m caf\xc3\xa9</Message>",
				   out, sizeof(out)),
		": \\x1b]0;pwned\\x07Denied: \\x1b[2J\\xff\\xfe \\xc2\\x9b31m caf\xc3\xa9");
	assert_null(strchr(out, 0x1b));
}

static void expect_encoded(const char *in, bool keep_slash, const char *want)
{
	char out[256];

	assert_int_equal(uri_encode(in, keep_slash, out, sizeof(out)), 0);
	if (strcmp(out, want))
		fail_msg("'%s' -> '%s', expected '%s'", in, out, want);
}

static void test_uri_encode(void **state)
{
	char out[8];

	expect_encoded("AZaz09-_.~", false, "AZaz09-_.~");
	expect_encoded("a/b/c", true, "a/b/c");
	expect_encoded("a/b/c", false, "a%2Fb%2Fc");
	expect_encoded("a b", true, "a%20b");
	expect_encoded("+*=&?#%:@!$'(),;", false,
		       "%2B%2A%3D%26%3F%23%25%3A%40%21%24%27%28%29%2C%3B");
	expect_encoded("Z\xc3\xbcrich/\xe2\x82\xac", true, "Z%C3%BCrich/%E2%82%AC");
	expect_encoded("\x01\x7f\xff", false, "%01%7F%FF");
	expect_encoded("", false, "");

	/* room for the text and its NUL, or -ENOSPC */
	assert_int_equal(uri_encode("abc", false, out, 3), -ENOSPC);
	assert_int_equal(uri_encode("abc", false, out, 4), 0);
	assert_string_equal(out, "abc");
	assert_int_equal(uri_encode("\xc3\xa9", false, out, 6), -ENOSPC);
	assert_int_equal(uri_encode("\xc3\xa9", false, out, 7), 0);
	assert_string_equal(out, "%C3%A9");
	assert_int_equal(uri_encode(" ", false, out, 3), -ENOSPC);
	assert_int_equal(uri_encode("", false, out, 0), -ENOSPC);
	assert_int_equal(uri_encode("", false, out, 1), 0);
}

static void test_request_headers(void **state)
{
	struct upload_meta meta[2] = { { "trapd_rules", "cpu,psi" }, { "label_team", "perf" } };
	struct http_request rq;
	size_t i;

	http_request__init(&rq, "PUT", "http://h/k");
	assert_int_equal(rq.body_fd, -1);
	assert_int_equal(rq.nheaders, 0);
	assert_int_equal(http_request__header(&rq, "A", "b"), 0);
	assert_string_equal(rq.headers[0], "A: b");
	assert_int_equal(http_request__line(&rq, "x-amz-date: 20130524T000000Z"), 0);
	assert_string_equal(rq.headers[1], "x-amz-date: 20130524T000000Z");
	assert_int_equal(http_request__meta(&rq, meta, 2, UPLOAD_META_S3), 0);
	assert_string_equal(rq.headers[2], "x-amz-meta-trapd-rules: cpu,psi");
	assert_string_equal(rq.headers[3], "x-amz-meta-label-team: perf");
	for (i = 4; i < HTTP_REQUEST_HEADERS_MAX; i++)
		assert_int_equal(http_request__header(&rq, "N", "v"), 0);
	assert_int_equal(http_request__header(&rq, "N", "v"), -E2BIG);
	assert_int_equal(rq.nheaders, HTTP_REQUEST_HEADERS_MAX);
	http_request__release(&rq);
	assert_int_equal(rq.nheaders, 0);
}

/* --- real requests ------------------------------------------------------- */

#define S3_ERROR_BODY                                                                              \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                             \
	"<Error><Code>AccessDenied</Code><Message>nope</Message>"                                  \
	"<RequestId>4442587FB7D0A2F9</RequestId></Error>\n"

static void test_put_403_s3_error(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_response resp;
	struct http_request rq;
	struct server s;
	unsigned char *sent;
	char url[256], answer[512];
	size_t len = 300000;
	int fd = body_file(len, &sent);

	snprintf(answer, sizeof(answer),
		 "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 strlen(S3_ERROR_BODY), S3_ERROR_BODY);
	server_start(&s, answer);
	url_of(url, sizeof(url), &s, "/bucket/web/2026/k.pb.zst?X-Amz-Signature=S3CR3TSIG");
	http_request__init(&rq, "PUT", url);
	assert_int_equal(http_request__header(&rq, "Content-Type", "application/zstd"), 0);
	assert_int_equal(http_request__header(&rq, "x-amz-meta-trapd-rules", "cpu,psi"), 0);
	rq.body_fd = fd;
	rq.body_size = len;
	assert_int_equal(http_request__send(&rq, &cfg, &res, &resp), -EIO);
	http_request__release(&rq);
	server_stop(&s);

	/* what the server saw: the exact request */
	assert_true(s.got_request);
	assert_request_line(&s,
			    "PUT /bucket/web/2026/k.pb.zst?X-Amz-Signature=S3CR3TSIG HTTP/1.1\r\n");
	assert_true(has_header(&s, "Content-Type", "application/zstd"));
	assert_true(has_header(&s, "x-amz-meta-trapd-rules", "cpu,psi"));
	assert_true(has_header(&s, "Content-Length", "300000"));
	assert_false(has_header(&s, "Expect", NULL));
	assert_false(has_header(&s, "Transfer-Encoding", NULL));
	assert_int_equal(s.body_len, len);
	assert_memory_equal(s.req + s.head_len, sent, len);

	/* what the caller is told */
	assert_int_equal(res.outcome, UPLOAD_PERMANENT);
	assert_int_equal(res.http_status, 403);
	assert_int_equal(resp.status, 403);
	assert_non_null(strstr(resp.body, "<Code>AccessDenied</Code>"));
	if (!strstr(res.msg, "AccessDenied") || !strstr(res.msg, "nope") ||
	    !strstr(res.msg, "403") || !strstr(res.msg, "PUT") ||
	    !strstr(res.msg, "/bucket/web/2026/k.pb.zst"))
		fail_msg("message '%s' lacks the request or the answer", res.msg);
	if (strchr(res.msg, '?') || strstr(res.msg, "S3CR3TSIG") || strstr(res.msg, "Signature"))
		fail_msg("message '%s' shows the query", res.msg);
	close(fd);
	free(sent);
}

/* test_put_403_hostile_answer - a server that answers with terminal
 * escapes and bytes that are not UTF-8, in its error body and its reason
 * phrase: the message for the log, the status and the .failed marker has
 * none of them raw. */
static void test_put_403_hostile_answer(void **state)
{
	static const char body[] = "<Error><Code>\x1b]2;owned\x07"
				   "Denied\x1b[8m</Code>"
				   "<Message>\xc2\x9b"
				   "1;31m \xff\xfe\xe2\x80\xae</Message></Error>";
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	char url[256], answer[512];
	size_t i;

	snprintf(answer, sizeof(answer),
		 "HTTP/1.1 403 \x1b[31mNo\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 strlen(body), body);
	server_start(&s, answer);
	url_of(url, sizeof(url), &s, "/b/k");
	http_request__init(&rq, "PUT", url);
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), -EIO);
	http_request__release(&rq);
	server_stop(&s);
	assert_int_equal(res.http_status, 403);
	for (i = 0; res.msg[i]; i++)
		if ((unsigned char)res.msg[i] < 0x20 || (unsigned char)res.msg[i] >= 0x7f)
			fail_msg("raw byte 0x%02x in '%s'", (unsigned char)res.msg[i], res.msg);
	if (!strstr(res.msg, "\\x1b]2;owned\\x07Denied") || !strstr(res.msg, "\\xc2\\x9b1;31m") ||
	    !strstr(res.msg, "\\xff\\xfe\\xe2\\x80\\xae"))
		fail_msg("message '%s' does not show the answer escaped", res.msg);
}

static void test_put_200_empty_body(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	char url[256];
	int fd = body_file(0, NULL);

	server_start(&s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
	url_of(url, sizeof(url), &s, "/up/x.json");
	http_request__init(&rq, "PUT", url);
	rq.body_fd = fd;
	rq.body_size = 0;
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), 0);
	server_stop(&s);
	assert_int_equal(res.outcome, UPLOAD_OK);
	assert_int_equal(res.http_status, 200);
	assert_string_equal(res.msg, "");
	assert_request_line(&s, "PUT /up/x.json HTTP/1.1\r\n");
	assert_true(has_header(&s, "Content-Length", "0"));
	assert_int_equal(s.body_len, 0);
	close(fd);
}

static void test_post_body(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	unsigned char *sent;
	char url[256];
	int fd = body_file(5000, &sent);

	server_start(&s, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
	url_of(url, sizeof(url), &s, "/ingest/");
	http_request__init(&rq, "POST", url);
	assert_int_equal(http_request__header(&rq, "Content-Type", "application/json"), 0);
	rq.body_fd = fd;
	rq.body_size = 5000;
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), 0);
	http_request__release(&rq);
	server_stop(&s);
	assert_int_equal(res.http_status, 201);
	assert_request_line(&s, "POST /ingest/ HTTP/1.1\r\n");
	assert_true(has_header(&s, "Content-Length", "5000"));
	assert_true(has_header(&s, "Content-Type", "application/json"));
	assert_false(has_header(&s, "Expect", NULL));
	assert_int_equal(s.body_len, 5000);
	assert_memory_equal(s.req + s.head_len, sent, 5000);
	close(fd);
	free(sent);
}

static void expect_status(const char *answer, long status, enum upload_outcome outcome)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	char url[256];

	server_start(&s, answer);
	url_of(url, sizeof(url), &s, "/k?sig=S3CR3T");
	http_request__init(&rq, "PUT", url);
	rq.body_fd = body_file(10, NULL);
	rq.body_size = 10;
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), -EIO);
	server_stop(&s);
	close(rq.body_fd);
	assert_int_equal(res.http_status, status);
	assert_int_equal(res.outcome, outcome);
	assert_null(strstr(res.msg, "S3CR3T"));
}

static void test_5xx_408_429_transient(void **state)
{
	expect_status("HTTP/1.1 503 Slow Down\r\nContent-Length: 0\r\n\r\n", 503, UPLOAD_TRANSIENT);
	expect_status("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", 500,
		      UPLOAD_TRANSIENT);
	expect_status("HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n", 408,
		      UPLOAD_TRANSIENT);
	expect_status("HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n", 429,
		      UPLOAD_TRANSIENT);
	expect_status("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 404, UPLOAD_PERMANENT);
}

static void test_long_answer_kept_in_part(void **state)
{
	static char answer[16384];
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_response resp;
	struct http_request rq;
	struct server s;
	char url[256];
	int n = snprintf(answer, sizeof(answer),
			 "HTTP/1.1 400 Bad Request\r\nContent-Length: 10000\r\n\r\n");

	memset(answer + n, 'x', 10000);
	answer[n + 10000] = '\0';
	server_start(&s, answer);
	url_of(url, sizeof(url), &s, "/k");
	http_request__init(&rq, "GET", url);
	assert_int_equal(http_request__send(&rq, &cfg, &res, &resp), -EIO);
	server_stop(&s);
	assert_request_line(&s, "GET /k HTTP/1.1\r\n");
	assert_int_equal(res.outcome, UPLOAD_PERMANENT);
	assert_int_equal(resp.body_len, HTTP_RESPONSE_KEEP);
	assert_int_equal(strlen(resp.body), HTTP_RESPONSE_KEEP);
}

/* A port nothing listens on: bound, never listened, closed. */
static int closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void test_connection_refused_transient(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	char url[256];
	double t0 = now_s();

	snprintf(url, sizeof(url), "http://user:pw@127.0.0.1:%d/k?sig=S3CR3T", closed_port());
	http_request__init(&rq, "PUT", url);
	rq.body_fd = body_file(10, NULL);
	rq.body_size = 10;
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), -EIO);
	close(rq.body_fd);
	assert_true(now_s() - t0 < 3);
	assert_int_equal(res.outcome, UPLOAD_TRANSIENT);
	assert_int_equal(res.http_status, 0);
	assert_non_null(strstr(res.msg, "127.0.0.1"));
	if (strstr(res.msg, "S3CR3T") || strstr(res.msg, "pw") || strchr(res.msg, '?'))
		fail_msg("message '%s' shows a secret", res.msg);
}

static void test_no_answer_times_out(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	char url[256];
	double t0, took;

	cfg.timeout_ns = 1000000000ull;
	server_start(&s, NULL);
	url_of(url, sizeof(url), &s, "/k");
	http_request__init(&rq, "PUT", url);
	rq.body_fd = body_file(100, NULL);
	rq.body_size = 100;
	t0 = now_s();
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), -EIO);
	took = now_s() - t0;
	server_stop(&s);
	close(rq.body_fd);
	assert_true(s.got_request);
	if (took < 0.9 || took > 3)
		fail_msg("a 1 s timeout took %.2f s", took);
	assert_int_equal(res.outcome, UPLOAD_TRANSIENT);
	assert_int_equal(res.http_status, 0);
	assert_non_null(strstr(res.msg, "PUT"));
}

struct aborter {
	int *flag;
	double after_s;
};

static void *abort_later(void *arg)
{
	struct aborter *a = arg;

	usleep((useconds_t)(a->after_s * 1e6));
	__atomic_store_n(a->flag, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void test_abort_flag_stops_a_hang(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	int flag = 0;
	struct aborter a = { &flag, 0.3 };
	pthread_t t;
	char url[256];
	double t0, took;

	cfg.abort = &flag;
	server_start(&s, NULL);
	url_of(url, sizeof(url), &s, "/k");
	http_request__init(&rq, "PUT", url);
	rq.body_fd = body_file(100, NULL);
	rq.body_size = 100;
	t0 = now_s();
	assert_int_equal(pthread_create(&t, NULL, abort_later, &a), 0);
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), -EIO);
	took = now_s() - t0;
	pthread_join(t, NULL);
	server_stop(&s);
	close(rq.body_fd);
	if (took > 2.5)
		fail_msg("the abort flag took %.2f s to stop the request", took);
	assert_int_equal(res.outcome, UPLOAD_TRANSIENT);
	assert_int_equal(res.http_status, 0);
	assert_non_null(strstr(res.msg, "stopped"));
}

/* The file shrinks under the request: the capture, not the network, is
 * at fault, and trying again will not help. */
static void test_body_shorter_than_said_permanent(void **state)
{
	struct upload_config cfg = config();
	struct upload_result res;
	struct http_request rq;
	struct server s;
	char url[256];

	server_start(&s, NULL);
	url_of(url, sizeof(url), &s, "/k");
	http_request__init(&rq, "PUT", url);
	rq.body_fd = body_file(100, NULL);
	rq.body_size = 200;
	assert_int_equal(http_request__send(&rq, &cfg, &res, NULL), -EIO);
	server_stop(&s);
	close(rq.body_fd);
	assert_int_equal(res.outcome, UPLOAD_PERMANENT);
	assert_int_equal(res.http_status, 0);
	assert_non_null(strstr(res.msg, "reading the file to send"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_status),
		cmocka_unit_test(test_classify_curl_codes),
		cmocka_unit_test(test_url_for_message),
		cmocka_unit_test(test_answer_detail),
		cmocka_unit_test(test_answer_detail_made_safe),
		cmocka_unit_test(test_uri_encode),
		cmocka_unit_test(test_request_headers),
		cmocka_unit_test(test_put_403_s3_error),
		cmocka_unit_test(test_put_403_hostile_answer),
		cmocka_unit_test(test_put_200_empty_body),
		cmocka_unit_test(test_post_body),
		cmocka_unit_test(test_5xx_408_429_transient),
		cmocka_unit_test(test_long_answer_kept_in_part),
		cmocka_unit_test(test_connection_refused_transient),
		cmocka_unit_test(test_no_answer_times_out),
		cmocka_unit_test(test_abort_flag_stops_a_hang),
		cmocka_unit_test(test_body_shorter_than_said_permanent),
	};
	int failed;

	signal(SIGPIPE, SIG_IGN);
	/* the daemon's heap for libcurl (wiped on free): every real request
	 * below runs on it */
	if (scrub__curl_init())
		return 1;
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return failed;
}
