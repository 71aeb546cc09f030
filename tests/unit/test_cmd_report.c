// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cmd_report.c - `trapd report` end to end in a child process: exit
 * statuses, messages, the table and every output, against a capture file
 * written by profile_file__write. */
#include "golden.h"
#include "profile_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trapd/cli/commands.h"
#include "trapd/profile/profile_file.h"

static char dir[] = "/tmp/test_cmd_report.XXXXXX";
static char capture[64];

struct result {
	int status;
	char *out;
	char *err;
};

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return strdup("");
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	return text;
}

static void redirect(int fd, const char *path)
{
	int to = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (to < 0 || dup2(to, fd) < 0)
		_exit(99);
	close(to);
}

/* run - `trapd report ARGS...` (NULL-terminated) in a child with stdout
 * and stderr captured. */
static struct result run(const char *arg, ...)
{
	char *argv[16], out[96], err[96];
	struct result r = { 0 };
	int n = 0, wstatus;
	va_list ap;
	pid_t pid;

	argv[n++] = "report";
	va_start(ap, arg);
	for (; arg && n < 15; arg = va_arg(ap, const char *))
		argv[n++] = (char *)arg;
	va_end(ap);
	argv[n] = NULL;
	snprintf(out, sizeof(out), "%s/stdout", dir);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		redirect(STDOUT_FILENO, out);
		redirect(STDERR_FILENO, err);
		fflush(NULL);
		wstatus = cmd_report(n, argv);
		fflush(NULL);
		_exit(wstatus);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	r.status = WEXITSTATUS(wstatus);
	r.out = slurp(out);
	r.err = slurp(err);
	return r;
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

static void expect(const char *want_err, int status, struct result r)
{
	if (r.status != status || !strstr(r.err, want_err))
		print_error("status %d, stderr: %s\n", r.status, r.err);
	assert_int_equal(r.status, status);
	assert_non_null(strstr(r.err, want_err));
	result_free(&r);
}

static int setup(void **state)
{
	struct profile *p;
	char err[256];

	if (!mkdtemp(dir))
		return -1;
	snprintf(capture, sizeof(capture), "%s/std.pb.zst", dir);
	p = fx_standard();
	if (profile_file__write(capture, p, err, sizeof(err))) {
		print_error("%s\n", err);
		profile__free(p);
		return -1;
	}
	profile__free(p);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_help_goes_to_stdout(void **state)
{
	struct result r = run("--help", NULL);

	assert_int_equal(r.status, TRAPD_EXIT_OK);
	assert_true(!strncmp(r.out, "Usage: trapd report FILE", 24));
	assert_non_null(strstr(r.out, "\nExamples:\n"));
	assert_string_equal(r.err, "");
	result_free(&r);
}

static void test_bad_usage_exits_2_saying_what_to_do(void **state)
{
	expect("no capture file given", TRAPD_EXIT_USAGE, run(NULL));
	expect("unknown option '--bogus'; see 'trapd report --help'", TRAPD_EXIT_USAGE,
	       run(capture, "--bogus", NULL));
	expect("unknown option '-x'", TRAPD_EXIT_USAGE, run("-x", capture, NULL));
	/* a slip of the fingers: the option meant */
	expect("unknown option '--tpo=3'; did you mean '--top'? See 'trapd report --help'",
	       TRAPD_EXIT_USAGE, run(capture, "--tpo=3", NULL));
	expect("option '--top' needs a value", TRAPD_EXIT_USAGE, run(capture, "--top", NULL));
	expect("bad --top 'ten': expected a number of rows", TRAPD_EXIT_USAGE,
	       run(capture, "--top", "ten", NULL));
	expect("bad --top '-1'", TRAPD_EXIT_USAGE, run(capture, "--top=-1", NULL));
	expect("bad --top '5x'", TRAPD_EXIT_USAGE, run(capture, "--top", "5x", NULL));
	expect("unexpected argument 'more.pb.zst'", TRAPD_EXIT_USAGE,
	       run(capture, "more.pb.zst", NULL));
	expect("cannot both write to stdout", TRAPD_EXIT_USAGE,
	       run(capture, "--folded", "-", "--svg", "-", NULL));
	expect("--pprof needs a file name", TRAPD_EXIT_USAGE, run(capture, "--pprof", "-", NULL));
}

/* A device named as an output is written in place, never replaced by a
 * rename (as root that would turn /dev/null into a regular file). */
static void test_devices_are_written_in_place(void **state)
{
	struct result r = run(capture, "--pprof", "/dev/null", "--svg", "/dev/null", NULL);
	struct stat st;

	assert_int_equal(r.status, TRAPD_EXIT_OK);
	result_free(&r);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void test_bad_input_exits_2_naming_the_file(void **state)
{
	char bad[96], path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/none.pb.zst", dir);
	expect("none.pb.zst: No such file or directory", TRAPD_EXIT_USAGE, run(path, NULL));
	snprintf(bad, sizeof(bad), "%s/bad.pb.zst", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("this is not a profile\n", f);
	fclose(f);
	expect("bad.pb.zst: ", TRAPD_EXIT_USAGE, run(bad, NULL));
	expect("reads trapd captures", TRAPD_EXIT_USAGE, run(bad, NULL));
}

/* The table printed from the capture file is the one the report module
 * prints from the profile in memory: the pprof round trip keeps counts,
 * labels, duration, period and comments. */
static void test_table_and_every_output(void **state)
{
	char folded[96], svg[96], pprof[96], err[256], *text;
	struct profile *back = NULL;
	struct result r;

	snprintf(folded, sizeof(folded), "%s/out.folded", dir);
	snprintf(svg, sizeof(svg), "%s/out.svg", dir);
	snprintf(pprof, sizeof(pprof), "%s/out.pb.gz", dir);
	r = run(capture, "--top", "3", "--folded", folded, "--svg", svg, "--pprof", pprof,
		"--title", "a <b>", NULL);
	assert_int_equal(r.status, TRAPD_EXIT_OK);
	golden_check("report_top3.txt", r.out);
	result_free(&r);
	text = slurp(folded);
	golden_check("standard.folded", text);
	free(text);
	text = slurp(svg);
	assert_non_null(strstr(text, ">a &lt;b&gt;</text>"));
	assert_non_null(strstr(text, ">135 samples over 10.00s at 99 Hz, 4 processes</text>"));
	assert_non_null(strstr(text, "<title>burn_60 (70 samples, 51.85%)</title>"));
	free(text);
	assert_int_equal(profile_file__read(pprof, &back, err, sizeof(err)), 0);
	assert_int_equal(profile__total(back), 135);
	profile__free(back);
}

static void test_dash_writes_a_view_instead_of_the_table(void **state)
{
	struct result r = run(capture, "--folded", "-", NULL);

	assert_int_equal(r.status, TRAPD_EXIT_OK);
	golden_check("standard.folded", r.out);
	result_free(&r);
	r = run("--svg", "-", capture, NULL);
	assert_int_equal(r.status, TRAPD_EXIT_OK);
	assert_true(!strncmp(r.out, "<?xml", 5));
	assert_non_null(strstr(r.out, ">trapd: std.pb.zst</text>"));
	assert_null(strstr(r.out, "Total:"));
	result_free(&r);
}

static void test_write_failures_exit_1(void **state)
{
	char nowhere[96];
	struct stat st;

	snprintf(nowhere, sizeof(nowhere), "%s/no/such/dir.folded", dir);
	expect("cannot write folded stacks: ", TRAPD_EXIT_FAILURE,
	       run(capture, "--folded", nowhere, NULL));
	/* A device is written in place, never replaced by a rename. */
	if (access("/dev/full", W_OK) == 0) {
		expect("/dev/full: writing: No space left on device (disk full)",
		       TRAPD_EXIT_FAILURE, run(capture, "--svg", "/dev/full", NULL));
		assert_int_equal(stat("/dev/full", &st), 0);
		assert_true(S_ISCHR(st.st_mode));
	}
	expect("cannot write pprof", TRAPD_EXIT_FAILURE, run(capture, "--pprof", nowhere, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_goes_to_stdout),
		cmocka_unit_test(test_bad_usage_exits_2_saying_what_to_do),
		cmocka_unit_test(test_devices_are_written_in_place),
		cmocka_unit_test(test_bad_input_exits_2_naming_the_file),
		cmocka_unit_test(test_table_and_every_output),
		cmocka_unit_test(test_dash_writes_a_view_instead_of_the_table),
		cmocka_unit_test(test_write_failures_exit_1),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
