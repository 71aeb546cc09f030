/* test_rules.c - the rules file: golden files for good input (the
 * normalised print) and bad input (the exact messages), the model each
 * key fills in, the print/parse round trip, the error cap, reading files,
 * the examples, and `trapd check` end to end.
 *
 * Golden files are tests/data/rules/good/NAME.ini with NAME.out, and
 * tests/data/rules/bad/NAME.ini with NAME.err. TRAPD_UPDATE_GOLDEN=1
 * rewrites .out and .err from what the code does: review the diff, the
 * golden files are the specification of the format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/rules.h"
#include "trapd/commands.h"

static const char *srcdir(void)
{
	const char *dir = getenv("TRAPD_SRCDIR");

	return dir ? dir : ".";
}

/* slurp - the whole of @path (NUL bytes and all), NUL-terminated. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *text = malloc(cap + 1), *bigger;
	FILE *f = fopen(path, "rb");

	if (!f)
		fail_msg("cannot read %s (run from the top of the tree or set TRAPD_SRCDIR)", path);
	assert_non_null(text);
	while ((got = fread(text + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			bigger = realloc(text, cap + 1);
			assert_non_null(bigger);
			text = bigger;
		}
	}
	fclose(f);
	text[n] = '\0';
	if (len)
		*len = n;
	return text;
}

/* check_golden - @actual against the file @path, or (re)write it when
 * TRAPD_UPDATE_GOLDEN is set. */
static void check_golden(const char *path, const char *actual)
{
	char *want;
	FILE *f;

	if (getenv("TRAPD_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		if (!f || fputs(actual, f) < 0 || fclose(f))
			fail_msg("cannot write %s", path);
		return;
	}
	want = slurp(path, NULL);
	if (strcmp(want, actual))
		print_error("%s differs; got:\n%s\n", path, actual);
	assert_string_equal(actual, want);
	free(want);
}

static char *print_rules(const struct rules *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(rules__print(r, f), 0);
	fclose(f);
	return text;
}

static void assert_rules_equal(const struct rules *a, const struct rules *b)
{
	size_t i;

	assert_true(rules_global__equal(&a->global, &b->global));
	assert_int_equal(a->nlabels, b->nlabels);
	for (i = 0; i < a->nlabels; i++) {
		assert_string_equal(a->labels[i].key, b->labels[i].key);
		assert_string_equal(a->labels[i].value, b->labels[i].value);
	}
	assert_int_equal(a->nrules, b->nrules);
	for (i = 0; i < a->nrules; i++)
		assert_true(rule__equal(&a->rules[i], &b->rules[i]));
}

/* parse_text - rules__parse of a string; on failure the messages, joined
 * by newlines, in *msgs (free it). */
static struct rules *parse_text(const char *name, const char *text, size_t len, char **msgs)
{
	struct rules_errors errs;
	struct rules *r = NULL;
	size_t i, used = 0, cap = 1;
	int err = rules__parse(name, text, len, &r, &errs);

	for (i = 0; i < errs.n; i++)
		cap += strlen(errs.msgs[i]) + 1;
	*msgs = calloc(1, cap);
	assert_non_null(*msgs);
	for (i = 0; i < errs.n; i++)
		used += (size_t)snprintf(*msgs + used, cap - used, "%s\n", errs.msgs[i]);
	assert_int_equal(err == 0, r != NULL);
	assert_true(err == 0 || err == -EINVAL);
	assert_int_equal(err != 0, errs.n != 0);
	rules_errors__free(&errs);
	return r;
}

/* for_each_file - @fn on every file matching @pattern under srcdir. */
static int for_each_file(const char *pattern, void (*fn)(const char *path))
{
	char full[1024];
	glob_t g;
	size_t i;

	snprintf(full, sizeof(full), "%s/%s", srcdir(), pattern);
	if (glob(full, 0, NULL, &g))
		fail_msg("no files match %s", full);
	for (i = 0; i < g.gl_pathc; i++)
		fn(g.gl_pathv[i]);
	i = g.gl_pathc;
	globfree(&g);
	return (int)i;
}

/* with_ext - @path with its ".ini" replaced by @ext, into @buf. */
static const char *with_ext(const char *path, const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s%s", (int)(strlen(path) - 4), path, ext);
	return buf;
}

static void good_file(const char *path)
{
	char out[1024], *text, *printed, *again, *msgs, *copy = strdup(path);
	struct rules *r, *back;
	size_t len;

	text = slurp(path, &len);
	r = parse_text(basename(copy), text, len, &msgs);
	if (!r)
		fail_msg("%s does not load:\n%s", path, msgs);
	free(msgs);
	printed = print_rules(r);
	check_golden(with_ext(path, ".out", out, sizeof(out)), printed);
	/* the print is a rules file that loads to the same rules, and prints
	 * the same again */
	back = parse_text("printed", printed, strlen(printed), &msgs);
	if (!back)
		fail_msg("the print of %s does not load:\n%s", path, msgs);
	assert_rules_equal(r, back);
	again = print_rules(back);
	assert_string_equal(printed, again);
	free(again);
	free(msgs);
	rules__free(back);
	rules__free(r);
	free(printed);
	free(text);
	free(copy);
}

static void bad_file(const char *path)
{
	char err[1024], *text, *msgs, *copy = strdup(path);
	struct rules *r;
	size_t len;

	text = slurp(path, &len);
	r = parse_text(basename(copy), text, len, &msgs);
	if (r)
		fail_msg("%s loads, but should not", path);
	check_golden(with_ext(path, ".err", err, sizeof(err)), msgs);
	free(msgs);
	free(text);
	free(copy);
}

static void test_good_files(void **state)
{
	assert_true(for_each_file("tests/data/rules/good/*.ini", good_file) >= 8);
}

static void test_bad_files(void **state)
{
	assert_true(for_each_file("tests/data/rules/bad/*.ini", bad_file) >= 10);
}

static void example_loads(const char *path)
{
	struct rules_errors errs;
	struct rules *r = NULL;
	size_t i;

	if (rules__load(path, &r, &errs)) {
		for (i = 0; i < errs.n; i++)
			print_error("%s\n", errs.msgs[i]);
		fail_msg("%s does not load", path);
	}
	assert_true(r->nrules > 0 || strstr(path, "rules.ini"));
	rules__free(r);
}

static void test_examples_load(void **state)
{
	assert_true(for_each_file("examples/*.ini", example_loads) >= 6);
}

static struct rules *parse_ok(const char *text)
{
	char *msgs;
	struct rules *r = parse_text("t.ini", text, strlen(text), &msgs);

	if (!r)
		fail_msg("does not load:\n%s", msgs);
	free(msgs);
	return r;
}

static void test_defaults(void **state)
{
	struct rules *r = parse_ok("");
	const struct rules_global *g = &r->global;

	assert_string_equal(r->path, "t.ini");
	assert_int_equal(g->poll_interval_ns, 1000000000ull);
	assert_string_equal(g->spool_dir, "/var/lib/trapd/spool");
	assert_int_equal(g->spool_max_bytes, 1ull << 30);
	assert_int_equal(g->spool_max_files, 1000);
	assert_int_equal(g->max_per_hour, 12);
	assert_int_equal(g->max_per_day, 100);
	assert_int_equal(g->max_window_ns, 120000000000ull);
	assert_int_equal(g->history_ns, 60000000000ull);
	assert_false(g->dry_run);
	assert_string_equal(g->control_socket, "/run/trapd/control.sock");
	assert_null(g->control_group);
	assert_int_equal(g->manual_window_ns, 10000000000ull);
	assert_int_equal(g->manual_freq_hz, 99);
	assert_int_equal(g->manual_sample.kind, RULE_SCOPE_SYSTEM);
	assert_int_equal(r->nlabels, 0);
	assert_int_equal(r->nrules, 0);
	rules__free(r);
}

static void test_rule_model(void **state)
{
	struct rules *r =
		parse_ok("[rule a]\nsignal = cpu\ncgroup = x.slice\nabove = 80.5%\n"
			 "[rule b]\nsignal = psi.io.full\nwindow = 2.5s\nbelow = 0.01\n"
			 "clear = 1%\nfor = 0s\nclear_for = 3s\ncooldown = 0\n"
			 "[rule c]\nsignal = cpu.throttled_rate\ncgroup = /c\nabove = 0.125/s\n"
			 "sample = process:nginx\nmax_per_hour = 2\nmax_per_day = 5\n"
			 "[rule d]\nsignal = process.rss\npid = 42\nabove = 1.5KiB\n"
			 "frequency = 2kHz\nduration = 250ms\n"
			 "[rule e]\nsignal = psi.memory.some\nwindow = avg300\nabove = 3\n"
			 "dry_run = false\n"
			 "[global]\ndry_run = on\n");
	const struct rule *a = rules__find(r, "a"), *b = rules__find(r, "b"),
			  *c = rules__find(r, "c"), *d = rules__find(r, "d"),
			  *e = rules__find(r, "e");

	assert_int_equal(r->nrules, 5);
	assert_null(rules__find(r, "z"));
	assert_int_equal(a->line, 1);
	assert_int_equal(a->signal, RULE_SIGNAL_CPU);
	assert_int_equal(a->scope.kind, RULE_SCOPE_CGROUP);
	assert_string_equal(a->scope.cgroup, "x.slice");
	assert_true(a->above);
	assert_int_equal(a->threshold, 8050);
	assert_int_equal(a->clear, 8050);
	assert_int_equal(a->for_ns, 0);
	assert_int_equal(a->window_ns, 10000000000ull);
	assert_int_equal(a->freq_hz, 99);
	assert_int_equal(a->cooldown_ns, 300000000000ull);
	assert_int_equal(a->sample.kind, RULE_SCOPE_CGROUP);
	assert_string_equal(a->sample.cgroup, "x.slice");
	assert_ptr_not_equal(a->sample.cgroup, a->scope.cgroup);
	assert_true(a->dry_run); /* from [global], though it comes last */

	assert_int_equal(b->signal, RULE_SIGNAL_PSI);
	assert_int_equal(b->psi_resource, RULE_PSI_IO);
	assert_true(b->psi_full);
	assert_int_equal(b->psi_window, RULE_PSI_CUSTOM);
	assert_int_equal(b->psi_window_ns, 2500000000ull);
	assert_int_equal(b->scope.kind, RULE_SCOPE_SYSTEM);
	assert_int_equal(b->sample.kind, RULE_SCOPE_SYSTEM);
	assert_false(b->above);
	assert_int_equal(b->threshold, 1);
	assert_int_equal(b->clear, 100);
	assert_int_equal(b->clear_for_ns, 3000000000ull);
	assert_int_equal(b->cooldown_ns, 0);

	assert_int_equal(c->signal, RULE_SIGNAL_THROTTLED_RATE);
	assert_int_equal(c->threshold, 125);
	assert_int_equal(c->sample.kind, RULE_SCOPE_PROCESS);
	assert_string_equal(c->sample.process, "nginx");
	assert_int_equal(c->max_per_hour, 2);
	assert_int_equal(c->max_per_day, 5);

	assert_int_equal(d->scope.kind, RULE_SCOPE_PID);
	assert_int_equal(d->scope.pid, 42);
	assert_int_equal(d->sample.kind, RULE_SCOPE_PID);
	assert_int_equal(d->threshold, 1536);
	assert_int_equal(d->freq_hz, 2000);
	assert_int_equal(d->window_ns, 250000000ull);

	assert_int_equal(e->psi_resource, RULE_PSI_MEMORY);
	assert_false(e->psi_full);
	assert_int_equal(e->psi_window, RULE_PSI_AVG300);
	assert_int_equal(e->threshold, 300);
	assert_false(e->dry_run);
	rules__free(r);
}

static void test_rule_equal(void **state)
{
	static const char *const changes[] = {
		"cgroup = y.slice\n", "above = 80.51%\n",  "clear = 70%\n",
		"for = 1s\n",	      "clear_for = 1s\n",  "duration = 11s\n",
		"frequency = 98\n",   "sample = system\n", "cooldown = 4m\n",
		"max_per_hour = 1\n", "max_per_day = 1\n", "dry_run = true\n",
	};
	const char *base = "[rule a]\nsignal = cpu\ncgroup = x.slice\nabove = 80.5%\n";
	struct rules *r = parse_ok(base), *other;
	char text[256];
	size_t i;

	/* the line does not count: a rule moved down the file is the same */
	snprintf(text, sizeof(text), "\n\n%s", base);
	other = parse_ok(text);
	assert_true(rule__equal(&r->rules[0], &other->rules[0]));
	rules__free(other);
	other = parse_ok("[rule b]\nsignal = cpu\ncgroup = x.slice\nabove = 80.5%\n");
	assert_false(rule__equal(&r->rules[0], &other->rules[0]));
	rules__free(other);
	other = parse_ok("[rule a]\nsignal = cpu.quota\ncgroup = x.slice\nabove = 80.5%\n");
	assert_false(rule__equal(&r->rules[0], &other->rules[0]));
	rules__free(other);
	for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		if (strncmp(changes[i], "cgroup", 6) && strncmp(changes[i], "above", 5))
			snprintf(text, sizeof(text), "%s%s", base, changes[i]);
		else if (!strncmp(changes[i], "cgroup", 6))
			snprintf(text, sizeof(text), "[rule a]\nsignal = cpu\n%sabove = 80.5%%\n",
				 changes[i]);
		else
			snprintf(text, sizeof(text), "[rule a]\nsignal = cpu\ncgroup = x.slice\n%s",
				 changes[i]);
		other = parse_ok(text);
		if (rule__equal(&r->rules[0], &other->rules[0]))
			fail_msg("'%s' changes nothing", changes[i]);
		rules__free(other);
	}
	other = parse_ok("[global]\ndry_run = true\n");
	assert_false(rules_global__equal(&r->global, &other->global));
	rules__free(other);
	rules__free(r);
}

static void test_formatting(void **state)
{
	struct rule r = { .signal = RULE_SIGNAL_CPU };
	struct rule_scope s = { .kind = RULE_SCOPE_CGROUP, .cgroup = "system.slice/x" };
	char buf[64];

	assert_string_equal(rule__format_value(&r, 8350, buf, sizeof(buf)), "83.5%");
	assert_string_equal(rule__format_value(&r, 8305, buf, sizeof(buf)), "83.05%");
	assert_string_equal(rule__format_value(&r, -250, buf, sizeof(buf)), "-2.5%");
	assert_string_equal(rule__format_value(&r, INT64_MIN, buf, sizeof(buf)),
			    "-92233720368547758.08%");
	assert_string_equal(rule__signal_name(&r, buf, sizeof(buf)), "cpu");
	r.signal = RULE_SIGNAL_PROC_RSS;
	assert_string_equal(rule__format_value(&r, 512ll << 20, buf, sizeof(buf)), "512MiB");
	assert_string_equal(rule__format_value(&r, 1000, buf, sizeof(buf)), "1000");
	assert_string_equal(rule__format_value(&r, 3ll << 40, buf, sizeof(buf)), "3TiB");
	r.signal = RULE_SIGNAL_PROC_FDS;
	assert_string_equal(rule__format_value(&r, 12, buf, sizeof(buf)), "12");
	r.signal = RULE_SIGNAL_THROTTLED_RATE;
	assert_string_equal(rule__format_value(&r, 2500, buf, sizeof(buf)), "2.5/s");
	assert_string_equal(rule__format_value(&r, 5, buf, sizeof(buf)), "0.005/s");
	assert_string_equal(rule__signal_name(&r, buf, sizeof(buf)), "cpu.throttled_rate");
	r.signal = RULE_SIGNAL_PSI;
	r.psi_resource = RULE_PSI_MEMORY;
	r.psi_full = true;
	assert_string_equal(rule__signal_name(&r, buf, sizeof(buf)), "psi.memory.full");
	assert_int_equal(rule_signal__unit(RULE_SIGNAL_PSI), RULE_UNIT_CENTI_PERCENT);
	assert_int_equal(rule_signal__unit(RULE_SIGNAL_PROC_THREADS), RULE_UNIT_COUNT);
	assert_true(rule_unit__to_double(RULE_UNIT_CENTI_PERCENT, 8350) == 83.5);
	assert_true(rule_unit__to_double(RULE_UNIT_MILLI_PER_SEC, 2500) == 2.5);
	assert_true(rule_unit__to_double(RULE_UNIT_BYTES, 4096) == 4096.0);
	assert_string_equal(rule_scope__format(&s, buf, sizeof(buf)), "cgroup system.slice/x");
	s = (struct rule_scope){ .kind = RULE_SCOPE_PID, .pid = 42 };
	assert_string_equal(rule_scope__format(&s, buf, sizeof(buf)), "pid 42");
	s = (struct rule_scope){ .kind = RULE_SCOPE_PROCESS, .process = "nginx" };
	assert_string_equal(rule_scope__format(&s, buf, sizeof(buf)), "process nginx");
	s = (struct rule_scope){ .kind = RULE_SCOPE_SYSTEM };
	assert_string_equal(rule_scope__format(&s, buf, sizeof(buf)), "system");
}

/* A file with more errors than are kept: the first RULES_ERRORS_MAX by
 * line (one found only at the end of the file among them), then one
 * line saying there were more. */
static void test_error_cap(void **state)
{
	char *text = NULL, *msgs, *line, *nl, *end;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i, n = 0;

	assert_non_null(f);
	fputs("[rule a]\nsignal = cpu\ncgroup = a\nabove = 1%\nduration = 1h\n", f);
	for (i = 0; i < 150; i++)
		fputs("oops\n", f);
	fclose(f);
	assert_null(parse_text("cap.ini", text, len, &msgs));
	for (line = msgs; (nl = strchr(line, '\n')); line = nl + 1, n++) {
		*nl = '\0';
		if (n == 0)
			assert_string_equal(line, "cap.ini:5: [rule a] duration: 1h is longer than "
						  "max_window 2m of [global]; expected at most 2m");
		else if (n < RULES_ERRORS_MAX)
			assert_int_equal(strtol(line + 8, &end, 10), n + 5);
		else
			assert_string_equal(line,
					    "cap.ini: too many errors; only the first 100 are "
					    "shown");
	}
	assert_int_equal(n, RULES_ERRORS_MAX + 1);
	free(msgs);
	free(text);
}

static void test_load(void **state)
{
	char dir[] = "/tmp/test_rules.XXXXXX", path[64], *big;
	struct rules_errors errs;
	struct rules *r = NULL;
	int fd, i;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/none.ini", dir);
	assert_int_equal(rules__load(path, &r, &errs), -ENOENT);
	assert_null(r);
	assert_int_equal(errs.n, 1);
	assert_non_null(strstr(errs.msgs[0], "none.ini: cannot read: No such file or directory"));
	rules_errors__free(&errs);
	assert_int_equal(rules__load(dir, &r, &errs), -EISDIR);
	rules_errors__free(&errs);

	snprintf(path, sizeof(path), "%s/big.ini", dir);
	big = malloc((1 << 20) + 1);
	assert_non_null(big);
	memset(big, '#', (1 << 20) + 1);
	for (i = 99; i < (1 << 20); i += 100)
		big[i] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, big, (1 << 20) + 1), (1 << 20) + 1);
	assert_int_equal(rules__load(path, &r, &errs), -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_non_null(strstr(errs.msgs[0], "big.ini: larger than 1 MiB"));
	rules_errors__free(&errs);
	/* exactly 1 MiB of comments is a good file */
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	assert_int_equal(rules__load(path, &r, &errs), 0);
	assert_string_equal(r->path, path);
	rules__free(r);
	unlink(path);
	rmdir(dir);
	free(big);
}

struct result {
	int status;
	char *out;
	char *err;
};

static void redirect(int fd, const char *path)
{
	int to = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (to < 0 || dup2(to, fd) < 0)
		_exit(99);
	close(to);
}

/* check - `trapd check ARGS...` (NULL-terminated) in a child, with its
 * stdout and stderr. */
static struct result check(const char *arg, ...)
{
	char *argv[8] = { "check" }, out[] = "/tmp/test_rules.out", err[] = "/tmp/test_rules.err";
	struct result res = { 0 };
	int n = 1, wstatus;
	va_list ap;
	pid_t pid;

	va_start(ap, arg);
	for (; arg && n < 7; arg = va_arg(ap, const char *))
		argv[n++] = (char *)arg;
	va_end(ap);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		redirect(1, out);
		redirect(2, err);
		wstatus = cmd_check(n, argv);
		fflush(NULL);
		_exit(wstatus);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	res.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128;
	res.out = slurp(out, NULL);
	res.err = slurp(err, NULL);
	unlink(out);
	unlink(err);
	return res;
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

/* write_tmp - @text into a new file; its path in @path. */
static void write_tmp(char *path, size_t len, const char *name, const char *text)
{
	FILE *f;

	snprintf(path, len, "/tmp/test_rules.%d.%s", (int)getpid(), name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_cmd_check(void **state)
{
	char good[512], out[512], bad[128], one[128], want[1024], *golden;
	struct result r;

	snprintf(good, sizeof(good), "%s/tests/data/rules/good/cpu.ini", srcdir());
	snprintf(out, sizeof(out), "%s/tests/data/rules/good/cpu.out", srcdir());
	r = check("-c", good, NULL);
	golden = slurp(out, NULL);
	assert_int_equal(r.status, TRAPD_EXIT_OK);
	assert_string_equal(r.out, golden);
	assert_string_equal(r.err, "");
	result_free(&r);
	r = check("--config", good, NULL);
	assert_int_equal(r.status, TRAPD_EXIT_OK);
	assert_string_equal(r.out, golden);
	result_free(&r);
	free(golden);

	write_tmp(bad, sizeof(bad), "bad.ini", "[rule a]\nsignal = cpu\nabove = 80 %\n");
	r = check("-c", bad, NULL);
	snprintf(want, sizeof(want),
		 "%s:1: [rule a] cgroup: missing; signal cpu reads a cgroup: cgroup = PATH, like "
		 "system.slice/nginx.service\n"
		 "%s:3: [rule a] above: bad value '80 %%': expected a percentage like 80%% or "
		 "12.5%%\n"
		 "%s: 2 errors\n",
		 bad, bad, bad);
	assert_int_equal(r.status, TRAPD_EXIT_USAGE);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, want);
	result_free(&r);
	write_tmp(one, sizeof(one), "one.ini", "[rulez]\n");
	r = check("-c", one, NULL);
	snprintf(want, sizeof(want),
		 "%s:1: [rulez]: unknown section; expected [global], [labels] or [rule NAME]\n"
		 "%s: 1 error\n",
		 one, one);
	assert_int_equal(r.status, TRAPD_EXIT_USAGE);
	assert_string_equal(r.err, want);
	result_free(&r);
	unlink(bad);
	r = check("-c", bad, NULL);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory\n%s: 1 error\n",
		 bad, bad);
	assert_int_equal(r.status, TRAPD_EXIT_USAGE);
	assert_string_equal(r.err, want);
	result_free(&r);
	unlink(one);
}

static void test_cmd_check_usage(void **state)
{
	static const struct {
		const char *args[3];
		int status;
		const char *err;
	} cases[] = {
		{ { NULL }, TRAPD_EXIT_USAGE, "no rules file given" },
		{ { "-c", NULL }, TRAPD_EXIT_USAGE, "option '-c' needs a value" },
		{ { "-x", NULL }, TRAPD_EXIT_USAGE, "unknown option '-x'" },
		{ { "-c", "a.ini", "b.ini" }, TRAPD_EXIT_USAGE, "unexpected argument 'b.ini'" },
		{ { "--help", NULL }, TRAPD_EXIT_OK, "" },
	};
	struct result r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = check(cases[i].args[0], cases[i].args[1], cases[i].args[2], NULL);
		assert_int_equal(r.status, cases[i].status);
		if (!strstr(r.err, cases[i].err))
			fail_msg("case %zu: stderr '%s' lacks '%s'", i, r.err, cases[i].err);
		if (cases[i].status == TRAPD_EXIT_OK)
			assert_int_equal(strncmp(r.out, "Usage: trapd check -c RULES", 27), 0);
		result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_files),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_examples_load),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_rule_model),
		cmocka_unit_test(test_rule_equal),
		cmocka_unit_test(test_formatting),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_cmd_check),
		cmocka_unit_test(test_cmd_check_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
