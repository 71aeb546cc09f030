// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cli_json.c - errors as JSON under --json (trapd/cli/cli_json.h): which
 * arguments ask for JSON, the error object a failure prints on stdout,
 * and a success that prints none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/cli/cli_json.h"
#include "trapd/util/log.h"

static void test_wants_json(void **state)
{
	char *plain[] = { "status", "-S", "x.sock" };
	char *json[] = { "status", "-S", "x.sock", "--json" };
	char *prefix[] = { "status", "--js" };
	char *dashes[] = { "status", "--" };
	char *after_dashes[] = { "status", "--", "--json" };
	char *other[] = { "status", "--jsonx", "-j" };

	assert_false(cli_wants_json(3, plain));
	assert_true(cli_wants_json(4, json));
	assert_true(cli_wants_json(2, prefix));
	assert_false(cli_wants_json(2, dashes));
	assert_false(cli_wants_json(3, after_dashes));
	assert_false(cli_wants_json(3, other));
}

/* run_captured - cli_json_errors_end(@status) after logging @msg (NULL:
 * nothing) with stdout and stderr in files; their text into @out, @err. */
static int run_captured(const char *msg, int status, char *out, size_t olen, char *err, size_t elen)
{
	FILE *o = tmpfile(), *e = tmpfile();
	int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO), r;
	size_t n;

	assert_non_null(o);
	assert_non_null(e);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(o), STDOUT_FILENO);
	dup2(fileno(e), STDERR_FILENO);
	cli_json_errors_begin();
	if (msg)
		log_error("%s", msg);
	r = cli_json_errors_end(status);
	fflush(stdout);
	fflush(stderr);
	dup2(so, STDOUT_FILENO);
	dup2(se, STDERR_FILENO);
	close(so);
	close(se);
	rewind(o);
	n = fread(out, 1, olen - 1, o);
	out[n] = '\0';
	rewind(e);
	n = fread(err, 1, elen - 1, e);
	err[n] = '\0';
	fclose(o);
	fclose(e);
	return r;
}

static void test_failure_prints_the_first_error(void **state)
{
	char out[512], err[512];

	assert_int_equal(run_captured("no \"daemon\" at C:\\x", 1, out, sizeof(out), err,
				      sizeof(err)),
			 1);
	assert_non_null(strstr(out, "\"error\": {"));
	/* quotes and backslashes JSON-escaped (safe_text leaves both as they are) */
	assert_non_null(strstr(out, "\"message\": \"no \\\"daemon\\\" at C:\\\\x\""));
	assert_non_null(strstr(out, "\"exit_status\": 1"));
	assert_string_equal(err, "");
}

static void test_failure_without_a_message(void **state)
{
	char out[512], err[512];

	assert_int_equal(run_captured(NULL, 2, out, sizeof(out), err, sizeof(err)), 2);
	assert_non_null(strstr(out, "\"message\": \"failed with exit status 2\""));
	assert_non_null(strstr(out, "\"exit_status\": 2"));
}

/* An error that did not fail the command is not lost: it goes to stderr. */
static void test_success_prints_no_object(void **state)
{
	char out[512], err[512];

	assert_int_equal(run_captured("odd but fine", 0, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "error: odd but fine"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wants_json),
		cmocka_unit_test(test_failure_prints_the_first_error),
		cmocka_unit_test(test_failure_without_a_message),
		cmocka_unit_test(test_success_prints_no_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
