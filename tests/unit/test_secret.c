// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_secret.c - credentials from a file or the environment
 * (upload/secret.h): whitespace trimmed, a file others can read or
 * change refused, symlinks and directories refused, limits, and never a
 * byte of the secret in a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upload/secret.h"

#define SECRET "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
#define ENV_NAME "TRAPD_TEST_SECRET_VAR"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/trapd-secret-XXXXXX");
	unsetenv(ENV_NAME);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	unsetenv(ENV_NAME);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* put - @len bytes of @text as @dir/@name with @mode (exactly: no umask). */
static const char *put(const char *name, const void *text, size_t len, mode_t mode)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

/* read_ok - the secret of @src, which must read. */
static void read_ok(const struct upload_secret_source *src, const char *want)
{
	char err[512] = "", *s = (char *)1;
	int e = upload_secret__read(src, "secret_access_key", &s, err, sizeof(err));

	if (e)
		fail_msg("upload_secret__read: %d: %s", e, err);
	assert_non_null(s);
	assert_string_equal(s, want);
	upload_secret__free(s);
}

/* read_fails - @src must fail with @want_errno, a message holding every
 * one of the NULL-terminated words, and no part of the secret. */
static void read_fails(const struct upload_secret_source *src, int want_errno, ...)
{
	char err[512] = "", *s = (char *)1;
	const char *word;
	va_list ap;
	int e = upload_secret__read(src, "secret_access_key", &s, err, sizeof(err));

	if (e != want_errno)
		fail_msg("upload_secret__read: %d (%s), expected %d", e, err, want_errno);
	assert_null(s);
	va_start(ap, want_errno);
	while ((word = va_arg(ap, const char *)))
		if (!strstr(err, word))
			fail_msg("message '%s' lacks '%s'", err, word);
	va_end(ap);
	if (strstr(err, SECRET) || strstr(err, "wJalr") || strstr(err, "EXAMPLEKEY"))
		fail_msg("message '%s' shows the secret", err);
}

static void test_file_0600_trimmed(void **state)
{
	struct upload_secret_source src = { 0 };

	src.file = put("key", SECRET "\n", strlen(SECRET) + 1, 0600);
	read_ok(&src, SECRET);
	src.file = put("key", " \t" SECRET " \r\n\n", strlen(SECRET) + 6, 0600);
	read_ok(&src, SECRET);
	src.file = put("key", "inner space\tkept\n", 17, 0400);
	read_ok(&src, "inner space\tkept");
}

static void test_file_0640_allowed(void **state)
{
	struct upload_secret_source src = { 0 };

	src.file = put("key", SECRET, strlen(SECRET), 0640);
	read_ok(&src, SECRET);
	src.file = put("key", SECRET, strlen(SECRET), 0440);
	read_ok(&src, SECRET);
}

static void test_file_others_may_access_refused(void **state)
{
	static const mode_t modes[] = { 0604, 0644, 0666, 0620, 0602, 0601, 0660, 0777 };
	struct upload_secret_source src = { 0 };
	char mode_text[8], path[256];
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		src.file = put("key", SECRET "\n", strlen(SECRET) + 1, modes[i]);
		snprintf(path, sizeof(path), "%s", src.file);
		snprintf(mode_text, sizeof(mode_text), "%04o", (unsigned)modes[i]);
		read_fails(&src, -EPERM, path, mode_text, "secret_access_key", NULL);
	}
}

static void test_symlink_refused(void **state)
{
	struct upload_secret_source src = { 0 };
	char target[256], link[256];

	snprintf(target, sizeof(target), "%s", put("real", SECRET, strlen(SECRET), 0600));
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(target, link), 0);
	src.file = link;
	read_fails(&src, -ELOOP, link, NULL);
}

static void test_directory_refused(void **state)
{
	struct upload_secret_source src = { .file = dir };

	assert_int_equal(chmod(dir, 0700), 0);
	read_fails(&src, -EINVAL, dir, "not a regular file", NULL);
}

static void test_missing_file_named(void **state)
{
	struct upload_secret_source src = { 0 };
	char path[256], err[512] = "", *s = (char *)1;
	int e;

	snprintf(path, sizeof(path), "%s/no-such-key", dir);
	src.file = path;
	e = upload_secret__read(&src, "sas_token", &s, err, sizeof(err));
	/* a file that is named but missing is a setting that is wrong, not
	 * "no secret configured" (-ENOENT) */
	assert_true(e < 0);
	assert_int_not_equal(e, -ENOENT);
	assert_null(s);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "sas_token"));
}

static void test_empty_refused(void **state)
{
	struct upload_secret_source src = { 0 };

	src.file = put("key", "", 0, 0600);
	read_fails(&src, -EINVAL, src.file, "empty", NULL);
	src.file = put("key", " \n\t\r\n", 5, 0600);
	read_fails(&src, -EINVAL, src.file, "empty", NULL);
}

static void test_env(void **state)
{
	struct upload_secret_source src = { .env = ENV_NAME };

	setenv(ENV_NAME, SECRET, 1);
	read_ok(&src, SECRET);
	setenv(ENV_NAME, "  " SECRET "\n", 1);
	read_ok(&src, SECRET);
	setenv(ENV_NAME, "", 1);
	read_fails(&src, -EINVAL, ENV_NAME, "empty", NULL);
	setenv(ENV_NAME, " \t\n", 1);
	read_fails(&src, -EINVAL, ENV_NAME, "empty", NULL);
	unsetenv(ENV_NAME);
	read_fails(&src, -EINVAL, ENV_NAME, "secret_access_key", NULL);
}

static void test_neither_set(void **state)
{
	struct upload_secret_source src = { 0 };
	char err[64] = "", *s = (char *)1;

	assert_int_equal(upload_secret__read(&src, "session_token", &s, err, sizeof(err)), -ENOENT);
	assert_null(s);
	upload_secret__free(NULL);
}

static void test_too_long(void **state)
{
	struct upload_secret_source src = { 0 };
	char *big = malloc(UPLOAD_SECRET_MAX + 2);
	size_t n = strlen(SECRET), i;

	assert_non_null(big);
	for (i = 0; i < UPLOAD_SECRET_MAX + 1; i++)
		big[i] = SECRET[i % n];
	/* exactly UPLOAD_SECRET_MAX bytes: taken */
	src.file = put("key", big, UPLOAD_SECRET_MAX, 0600);
	big[UPLOAD_SECRET_MAX] = '\0';
	read_ok(&src, big);
	/* one more: refused, and the message shows none of it */
	big[UPLOAD_SECRET_MAX] = SECRET[UPLOAD_SECRET_MAX % n];
	src.file = put("key", big, UPLOAD_SECRET_MAX + 1, 0600);
	read_fails(&src, -EFBIG, src.file, "4096", NULL);

	src.file = NULL;
	src.env = ENV_NAME;
	big[UPLOAD_SECRET_MAX] = '\0';
	setenv(ENV_NAME, big, 1);
	read_ok(&src, big);
	big[UPLOAD_SECRET_MAX] = 'x';
	big[UPLOAD_SECRET_MAX + 1] = '\0';
	setenv(ENV_NAME, big, 1);
	read_fails(&src, -EFBIG, ENV_NAME, "4096", NULL);
	free(big);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_file_0600_trimmed),
		T(test_file_0640_allowed),
		T(test_file_others_may_access_refused),
		T(test_symlink_refused),
		T(test_directory_refused),
		T(test_missing_file_named),
		T(test_empty_refused),
		T(test_env),
		T(test_neither_set),
		T(test_too_long),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
