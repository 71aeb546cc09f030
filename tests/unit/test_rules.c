// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_rules.c - the rules file: golden files for good input (the
 * normalised print) and bad input (the exact messages), the model each
 * key fills in ([upload] and its url's parts included), the latency
 * signals and their keys, the system call table, the print/parse round
 * trip, the error cap, reading files, the examples, and `trapd
 * check` end to end.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/rules.h"
#include "rules/rules_keys.h" /* rules_value__quote */
#include "rules/syscall_table.h"
#include "trapd/cli/commands.h"

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
	assert_true(rules_upload__equal(&a->upload, &b->upload));
	assert_int_equal(a->upload.scheme, b->upload.scheme);
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

	/* examples/ci-*.ini are for trapd ci -c */
	if (rules__load_for(path, strstr(path, "/ci-") ? RULES_FOR_CI : RULES_FOR_DAEMON, &r,
			    &errs)) {
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
	char *msgs, copy[4096];
	struct rules *r = parse_text("t.ini", text, strlen(text), &msgs);

	snprintf(copy, sizeof(copy), "%s", msgs);
	free(msgs); /* before failing: a leak would fail the next test under valgrind */
	if (!r)
		fail_msg("does not load:\n%s", copy);
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
	assert_int_equal(g->manual_unwind, RULE_UNWIND_AUTO);
	assert_int_equal(g->manual_stack_copy_bytes, RULE_STACK_COPY_DEFAULT);
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
		"cgroup = y.slice\n", "above = 80.51%\n",    "clear = 70%\n",
		"for = 1s\n",	      "clear_for = 1s\n",    "duration = 11s\n",
		"frequency = 98\n",   "sample = system\n",   "cooldown = 4m\n",
		"max_per_hour = 1\n", "max_per_day = 1\n",   "dry_run = true\n",
		"unwind = fp\n",      "stack_copy = 8KiB\n",
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
	other = parse_ok("[global]\nmanual_unwind = dwarf\n");
	assert_false(rules_global__equal(&r->global, &other->global));
	rules__free(other);
	other = parse_ok("[global]\nmanual_stack_copy = 4KiB\n");
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
	r.signal = RULE_SIGNAL_LATENCY;
	r.lat_stat = RULE_LAT_P99;
	assert_string_equal(rule__format_value(&r, 0, buf, sizeof(buf)), "0");
	assert_string_equal(rule__format_value(&r, 5000000, buf, sizeof(buf)), "5ms");
	assert_string_equal(rule__format_value(&r, 1234000, buf, sizeof(buf)), "1.234ms");
	assert_string_equal(rule__format_value(&r, 2080768, buf, sizeof(buf)), "2.08ms");
	/* rounding up reaches the next unit */
	assert_string_equal(rule__format_value(&r, 999960, buf, sizeof(buf)), "1ms");
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

/* --- [upload] ---------------------------------------------------------------- */

#define S3_KEYS "access_key_id_env = AWS_ACCESS_KEY_ID\nsecret_access_key_env = AWS_SECRET\n"

static void test_upload_absent(void **state)
{
	struct rules *r = parse_ok("[global]\ndry_run = true\n");
	char *printed = print_rules(r);

	assert_int_equal(r->upload.line, 0);
	assert_int_equal(r->upload.scheme, RULES_UPLOAD_NONE);
	assert_null(r->upload.url);
	assert_null(strstr(printed, "[upload]"));
	free(printed);
	rules__free(r);
}

static void test_upload_file(void **state)
{
	struct rules *r = parse_ok("[global]\n\n[upload]\nurl = file:///srv/trapd/outbox\n");
	const struct rules_upload *u = &r->upload;

	assert_int_equal(u->line, 3);
	assert_int_equal(u->scheme, RULES_UPLOAD_FILE);
	assert_string_equal(u->url, "file:///srv/trapd/outbox");
	assert_string_equal(u->dir, "/srv/trapd/outbox");
	assert_null(u->base);
	assert_null(u->bucket);
	/* the defaults */
	assert_int_equal(u->retry_min_ns, 1000000000ull);
	assert_int_equal(u->retry_max_ns, 300000000000ull);
	assert_int_equal(u->connect_timeout_ns, 10000000000ull);
	assert_int_equal(u->stall_timeout_ns, 30000000000ull);
	assert_int_equal(u->timeout_ns, 600000000000ull);
	assert_true(u->tls_verify);
	rules__free(r);
}

static void test_upload_http(void **state)
{
	static const struct {
		const char *url, *base;
	} cases[] = {
		{ "https://h.example.com", "https://h.example.com/" },
		{ "https://h.example.com/", "https://h.example.com/" },
		{ "http://127.0.0.1:8080/in", "http://127.0.0.1:8080/in/" },
		{ "https://h/a/b/", "https://h/a/b/" },
	};
	char text[256];
	struct rules *r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[upload]\nurl = %s\n", cases[i].url);
		r = parse_ok(text);
		assert_int_equal(r->upload.scheme, RULES_UPLOAD_HTTP);
		assert_string_equal(r->upload.base, cases[i].base);
		assert_false(r->upload.post);
		assert_null(r->upload.method);
		rules__free(r);
	}
	r = parse_ok("[upload]\nurl = https://h/in\nmethod = put\nauth_header_file = /etc/a\n");
	assert_false(r->upload.post);
	assert_string_equal(r->upload.auth_header_file, "/etc/a");
	rules__free(r);
	r = parse_ok("[upload]\nurl = https://h/in\nmethod = post\nauth_header_env = TOKEN\n"
		     "tls_verify = no\nca_file = /etc/ca.pem\ntimeout = 90s\n");
	assert_true(r->upload.post);
	assert_string_equal(r->upload.auth_header_env, "TOKEN");
	assert_false(r->upload.tls_verify);
	assert_string_equal(r->upload.ca_file, "/etc/ca.pem");
	assert_int_equal(r->upload.timeout_ns, 90000000000ull);
	rules__free(r);
}

static void test_upload_s3(void **state)
{
	static const struct {
		const char *url, *bucket, *prefix;
	} cases[] = {
		{ "s3://abc", "abc", "" },
		{ "s3://abc/", "abc", "" },
		{ "s3://my.bucket-1/fleet/eu", "my.bucket-1", "fleet/eu/" },
		{ "s3://my-bucket/fleet/eu/", "my-bucket", "fleet/eu/" },
		{ "s3://b12/a-b_c.d~e(f)!*'/", "b12", "a-b_c.d~e(f)!*'/" },
	};
	char text[512];
	struct rules *r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[upload]\nurl = %s\n" S3_KEYS, cases[i].url);
		r = parse_ok(text);
		assert_int_equal(r->upload.scheme, RULES_UPLOAD_S3);
		assert_string_equal(r->upload.bucket, cases[i].bucket);
		assert_string_equal(r->upload.prefix, cases[i].prefix);
		assert_string_equal(r->upload.region, "us-east-1");
		assert_true(r->upload.path_style);
		assert_null(r->upload.endpoint);
		rules__free(r);
	}
	r = parse_ok("[upload]\nurl = s3://abc/p\nendpoint = http://127.0.0.1:9000\n"
		     "region = eu-central-1\npath_style = false\n"
		     "access_key_id_file = /etc/trapd/id\nsecret_access_key_file = /etc/trapd/key\n"
		     "session_token_env = AWS_SESSION_TOKEN\nallow_insecure_credentials = yes\n");
	assert_string_equal(r->upload.endpoint, "http://127.0.0.1:9000");
	assert_string_equal(r->upload.region, "eu-central-1");
	assert_false(r->upload.path_style);
	assert_string_equal(r->upload.access_key_id_file, "/etc/trapd/id");
	assert_null(r->upload.access_key_id_env);
	assert_string_equal(r->upload.secret_access_key_file, "/etc/trapd/key");
	assert_string_equal(r->upload.session_token_env, "AWS_SESSION_TOKEN");
	rules__free(r);
}

static void test_upload_azblob(void **state)
{
	static const struct {
		const char *url, *account, *container, *prefix;
	} cases[] = {
		{ "azblob://acct/cont", "acct", "cont", "" },
		{ "azblob://acct1234/c-o-n/", "acct1234", "c-o-n", "" },
		{ "azblob://abc/xyz/prod/eu", "abc", "xyz", "prod/eu/" },
		{ "azblob://abc/xyz/-x_y", "abc", "xyz", "-x_y/" },
	};
	char text[512];
	struct rules *r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[upload]\nurl = %s\nsas_token_env = SAS\n",
			 cases[i].url);
		r = parse_ok(text);
		assert_int_equal(r->upload.scheme, RULES_UPLOAD_AZBLOB);
		assert_string_equal(r->upload.account, cases[i].account);
		assert_string_equal(r->upload.container, cases[i].container);
		assert_string_equal(r->upload.prefix, cases[i].prefix);
		assert_string_equal(r->upload.sas_token_env, "SAS");
		assert_null(r->upload.region);
		rules__free(r);
	}
	r = parse_ok("[upload]\nurl = azblob://abc/xyz\nsas_token_file = /etc/sas\n"
		     "endpoint = https://abc.blob.core.example.net/base\n");
	assert_string_equal(r->upload.sas_token_file, "/etc/sas");
	assert_string_equal(r->upload.endpoint, "https://abc.blob.core.example.net/base");
	rules__free(r);
}

/* The container's rules are the container's: a prefix after it may hold
 * "--" (take_prefix allows it, and so does Azure in a blob name). */
static void test_upload_azblob_prefix_with_double_dash(void **state)
{
	struct rules *r = parse_ok("[upload]\nurl = azblob://abc/xyz/a--b/\nsas_token_env = S\n");

	assert_string_equal(r->upload.container, "xyz");
	assert_string_equal(r->upload.prefix, "a--b/");
	rules__free(r);
}

/* url_error - [upload] with @url loads with exactly one error: the url's,
 * ending in @what. */
static void url_error(const char *url, const char *what)
{
	char text[512], want[1024], got[2048], q[96], *msgs;
	struct rules *r;
	bool taken;

	snprintf(text, sizeof(text), "[upload]\nurl = %s\n", url);
	r = parse_text("t.ini", text, strlen(text), &msgs);
	snprintf(got, sizeof(got), "%s", msgs);
	free(msgs);
	taken = r != NULL;
	rules__free(r);
	if (taken)
		fail_msg("url '%s' is taken", url);
	snprintf(want, sizeof(want), "t.ini:2: [upload] url: bad value '%s': %s\n",
		 rules_value__quote(url, q, sizeof(q)), what);
	if (strcmp(got, want))
		fail_msg("url '%s':\n%s\nexpected:\n%s", url, got, want);
}

#define NO_SCHEME                                                                                  \
	"expected file:///DIR, http(s)://HOST/PATH, s3://BUCKET[/PREFIX] or "                      \
	"azblob://ACCOUNT/CONTAINER[/PREFIX]"
#define BAD_BUCKET                                                                                 \
	"s3://BUCKET: a bucket name is 3 to 63 lower-case letters, digits, '.' and "               \
	"'-'"
#define BAD_ACCOUNT                                                                                \
	"azblob://ACCOUNT/CONTAINER: an account name is 3 to 24 lower-case letters and "           \
	"digits"
#define BAD_CONTAINER                                                                              \
	"azblob://ACCOUNT/CONTAINER: a container name is 3 to 63 lower-case letters, "             \
	"digits and single '-'"
#define BAD_PREFIX "the prefix may hold letters, digits and -_.~/!*'() without empty parts"
#define BAD_HTTP "http(s)://HOST[:PORT]/PATH without user, query or fragment"

static void test_upload_url_errors(void **state)
{
	url_error("ftp://files.example.com/x", NO_SCHEME);
	url_error("S3://abc", NO_SCHEME);
	url_error("/srv/profiles", NO_SCHEME);
	url_error("file:relative", NO_SCHEME);

	url_error("file://srv/profiles", "expected file:///ABSOLUTE/DIR");
	url_error("file:///srv/../etc", "expected file:///ABSOLUTE/DIR");
	url_error("file:///srv/./x", "expected file:///ABSOLUTE/DIR");

	url_error("http://", BAD_HTTP);
	url_error("https:///path", BAD_HTTP);
	url_error("https://user:pw@h.example.com/in", BAD_HTTP);
	url_error("https://h.example.com/in?sig=x", BAD_HTTP);
	url_error("https://h.example.com/in#top", BAD_HTTP);

	url_error("s3://", BAD_BUCKET);
	url_error("s3://ab", BAD_BUCKET);
	url_error("s3://Bucket", BAD_BUCKET);
	url_error("s3://my_bucket", BAD_BUCKET);
	url_error("s3://-abc", BAD_BUCKET);
	url_error(".abc", NO_SCHEME);
	url_error("s3://.abc", BAD_BUCKET);
	url_error("s3://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  BAD_BUCKET);
	url_error("s3://abc?x=1", BAD_BUCKET);
	url_error("s3://abc//x", BAD_PREFIX);
	url_error("s3://abc/a//b", BAD_PREFIX);
	url_error("s3://abc/a$b", BAD_PREFIX);
	url_error("s3://abc/a?b", BAD_PREFIX);

	url_error("azblob://", BAD_ACCOUNT);
	url_error("azblob://ab/cont", BAD_ACCOUNT);
	url_error("azblob://Acct/cont", BAD_ACCOUNT);
	url_error("azblob://my-acct/cont", BAD_ACCOUNT);
	url_error("azblob://aaaaaaaaaaaaaaaaaaaaaaaaa/cont", BAD_ACCOUNT); /* 25 */
	url_error("azblob://acct", BAD_CONTAINER);
	url_error("azblob://acct/", BAD_CONTAINER);
	url_error("azblob://acct/ab", BAD_CONTAINER);
	url_error("azblob://acct/Cont", BAD_CONTAINER);
	url_error("azblob://acct/-cont", BAD_CONTAINER);
	url_error("azblob://acct/co--nt", BAD_CONTAINER);
	url_error("azblob://acct/cont?sv=2024&sig=x", BAD_CONTAINER);
	url_error("azblob://acct/cont/a//b", BAD_PREFIX);
}

/* Both stores require a name to end with a letter or digit: a bucket or
 * container ending in '-' (or a bucket in '.') is refused when the file
 * is loaded, not by the store at the first upload. */
static void test_upload_names_end_with_letter_or_digit(void **state)
{
	url_error("s3://abc-", BAD_BUCKET);
	url_error("s3://abc./x", BAD_BUCKET);
	url_error("azblob://acct/cont-", BAD_CONTAINER);
	url_error("azblob://acct/cont-/x", BAD_CONTAINER);
}

static void test_upload_values_checked(void **state)
{
	static const struct {
		const char *keys, *want;
	} cases[] = {
		{ "url = https://h/in\nmethod = PUT\n",
		  "t.ini:3: [upload] method: bad value 'PUT': expected put or post\n" },
		{ "url = https://h/in\nmethod = patch\n",
		  "t.ini:3: [upload] method: bad value 'patch': expected put or post\n" },
		{ "url = s3://abc\n" S3_KEYS "endpoint = minio:9000\n",
		  "t.ini:5: [upload] endpoint: bad value 'minio:9000': expected "
		  "http(s)://HOST[:PORT][/PATH]\n" },
		{ "url = s3://abc\n" S3_KEYS "endpoint = https://\n",
		  "t.ini:5: [upload] endpoint: bad value 'https://': expected "
		  "http(s)://HOST[:PORT][/PATH]\n" },
		{ "url = s3://abc\n" S3_KEYS "endpoint = https://k:s@minio\n",
		  "t.ini:5: [upload] endpoint: bad value 'https://k:s@minio': expected "
		  "http(s)://HOST[:PORT][/PATH]\n" },
		{ "url = s3://abc\n" S3_KEYS "region = us east\n",
		  "t.ini:5: [upload] region: bad value 'us east': expected 1 to 64 printable "
		  "characters without spaces\n" },
		{ "url = s3://abc\naccess_key_id_env = 1KEY\nsecret_access_key_env = K\n",
		  "t.ini:3: [upload] access_key_id_env: bad value '1KEY': expected the name of an "
		  "environment variable (letters, digits and '_')\n" },
		{ "url = s3://abc\naccess_key_id_file = key\nsecret_access_key_env = K\n",
		  "t.ini:3: [upload] access_key_id_file: bad value 'key': expected an absolute "
		  "path (starting with '/') of at most 4095 bytes\n" },
		{ "url = s3://abc\nsecret_access_key_env = K\n",
		  "t.ini:1: [upload]: s3 needs access_key_id_file or access_key_id_env\n" },
		{ "url = s3://abc\n",
		  "t.ini:1: [upload]: s3 needs access_key_id_file or access_key_id_env\n"
		  "t.ini:1: [upload]: s3 needs secret_access_key_file or secret_access_key_env\n" },
		{ "url = s3://abc\n" S3_KEYS "secret_access_key_file = /k\n",
		  "t.ini:4: [upload] secret_access_key_env: secret_access_key_file is set too; use "
		  "one of them\n" },
		{ "url = azblob://abc/xyz\n",
		  "t.ini:1: [upload]: azblob needs sas_token_file or sas_token_env\n" },
		{ "url = azblob://abc/xyz\nsas_token_env = S\nsas_token_file = /s\n",
		  "t.ini:3: [upload] sas_token_env: sas_token_file is set too; use one of them\n" },
		{ "url = file:///x\nretry_min = 2m\nretry_max = 1m\n",
		  "t.ini:4: [upload] retry_max: is shorter than retry_min\n" },
		{ "url = file:///x\nmethod = put\n",
		  "t.ini:3: [upload] method: does not apply to file:// urls\n" },
		{ "url = https://h/in\npath_style = true\n",
		  "t.ini:3: [upload] path_style: does not apply to http:// urls\n" },
		{ "url = s3://abc\n" S3_KEYS "sas_token_env = S\n",
		  "t.ini:5: [upload] sas_token_env: does not apply to s3:// urls\n" },
		{ "url = azblob://abc/xyz\nsas_token_env = S\nsession_token_env = T\n",
		  "t.ini:4: [upload] session_token_env: does not apply to azblob:// urls\n" },
		{ "retry_min = 1s\n",
		  "t.ini:1: [upload]: no url; say where captures go (url = s3://BUCKET, ...) or "
		  "remove the section\n" },
		{ "",
		  "t.ini:1: [upload]: no url; say where captures go (url = s3://BUCKET, ...) or "
		  "remove the section\n" },
		{ "url = \n", "t.ini:2: [upload] url: bad value '': expected 1 to 2048 printable "
			      "characters without spaces\n" },
	};
	char text[512], got[2048], *msgs;
	struct rules *r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[upload]\n%s", cases[i].keys);
		r = parse_text("t.ini", text, strlen(text), &msgs);
		snprintf(got, sizeof(got), "%s", msgs);
		free(msgs);
		if (r) {
			rules__free(r);
			fail_msg("case %zu loads:\n%s", i, text);
		}
		if (strcmp(got, cases[i].want))
			fail_msg("case %zu:\n%s\ngave:\n%s\nexpected:\n%s", i, text, got,
				 cases[i].want);
	}
	/* retry_min above the default retry_max (5m) is an error too */
	snprintf(text, sizeof(text), "[upload]\nurl = file:///x\nretry_min = 10m\n");
	r = parse_text("t.ini", text, strlen(text), &msgs);
	assert_null(r);
	assert_non_null(strstr(msgs, "retry_min"));
	free(msgs);
}

/* Every [upload] key counts in rules_upload__equal (a reload must see a
 * change of any of them), and the print of each loads back equal. */
static void test_upload_equal_and_round_trip(void **state)
{
	static const char *const base[] = {
		"url = s3://abc/p\nendpoint = https://e\nregion = eu-west-1\npath_style = true\n"
		"access_key_id_file = /a\nsecret_access_key_env = S\nsession_token_env = T\n"
		"ca_file = /ca\ntls_verify = true\nconnect_timeout = 5s\nstall_timeout = 20s\n"
		"timeout = 5m\nretry_min = 2s\nretry_max = 4m\n",
		"url = https://h/in\nmethod = post\nauth_header_file = /auth\n",
		"url = azblob://abc/xyz\nsas_token_file = /sas\n",
	};
	static const char *const changes[][2] = {
		{ "url = s3://abc/p\n", "url = s3://abc/q\n" },
		{ "endpoint = https://e\n", "endpoint = https://f\n" },
		{ "region = eu-west-1\n", "region = eu-west-2\n" },
		{ "path_style = true\n", "path_style = false\n" },
		{ "access_key_id_file = /a\n", "access_key_id_file = /b\n" },
		{ "access_key_id_file = /a\n", "access_key_id_env = A\n" },
		{ "secret_access_key_env = S\n", "secret_access_key_env = S2\n" },
		{ "session_token_env = T\n", "session_token_file = /t\n" },
		{ "ca_file = /ca\n", "ca_file = /cb\n" },
		{ "tls_verify = true\n", "tls_verify = false\n" },
		{ "connect_timeout = 5s\n", "connect_timeout = 6s\n" },
		{ "stall_timeout = 20s\n", "stall_timeout = 21s\n" },
		{ "timeout = 5m\n", "timeout = 6m\n" },
		{ "retry_min = 2s\n", "retry_min = 3s\n" },
		{ "retry_max = 4m\n", "retry_max = 5m\n" },
		{ "method = post\n", "method = put\n" },
		{ "auth_header_file = /auth\n", "auth_header_env = AUTH\n" },
		{ "sas_token_file = /sas\n", "sas_token_env = SAS\n" },
	};
	char text[1024], other[1024], *printed, *msgs, *at;
	struct rules *r, *back, *o;
	size_t i, j, matched = 0;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		snprintf(text, sizeof(text), "[upload]\n%s", base[i]);
		r = parse_ok(text);
		printed = print_rules(r);
		back = parse_text("printed", printed, strlen(printed), &msgs);
		if (!back)
			fail_msg("the print does not load:\n%s\n%s", printed, msgs);
		free(msgs);
		assert_true(rules_upload__equal(&r->upload, &back->upload));
		assert_string_equal(r->upload.url, back->upload.url);
		for (j = 0; j < sizeof(changes) / sizeof(changes[0]); j++) {
			at = strstr(text, changes[j][0]);
			if (!at)
				continue;
			matched++;
			snprintf(other, sizeof(other), "%.*s%s%s", (int)(at - text), text,
				 changes[j][1], at + strlen(changes[j][0]));
			o = parse_ok(other);
			if (rules_upload__equal(&r->upload, &o->upload))
				fail_msg("'%s' -> '%s' changes nothing", changes[j][0],
					 changes[j][1]);
			rules__free(o);
		}
		rules__free(back);
		rules__free(r);
		free(printed);
	}
	assert_int_equal(matched, sizeof(changes) / sizeof(changes[0]));
}

/* --- latency signals ------------------------------------------------------- */

/* expect_errors - @text, as t.ini, does not load, and its messages are
 * exactly @want. */
static void expect_errors(const char *text, const char *want)
{
	char got[8192], *msgs;
	struct rules *r = parse_text("t.ini", text, strlen(text), &msgs);

	snprintf(got, sizeof(got), "%s", msgs);
	free(msgs);
	if (r) {
		rules__free(r);
		fail_msg("loads:\n%s", text);
	}
	if (strcmp(got, want))
		fail_msg("%s\ngave:\n%s\nexpected:\n%s", text, got, want);
}

/* assert_round_trip - the print of @r loads back to equal rules and
 * prints the same again. Returns the print (free it). */
static char *assert_round_trip(const struct rules *r)
{
	char *printed = print_rules(r), *again, *msgs;
	struct rules *back = parse_text("printed", printed, strlen(printed), &msgs);

	if (!back)
		fail_msg("the print does not load:\n%s\n%s", printed, msgs);
	free(msgs);
	assert_rules_equal(r, back);
	again = print_rules(back);
	assert_string_equal(printed, again);
	free(again);
	rules__free(back);
	return printed;
}

/* latency_rule - a one-rule file "[rule a]\nsignal = @signal\n@keys",
 * loaded; its rule in *rule. */
static struct rules *latency_rule(const char *signal, const char *keys, const struct rule **rule)
{
	char text[1024];
	struct rules *r;

	snprintf(text, sizeof(text), "[rule a]\nsignal = %s\n%s", signal, keys);
	r = parse_ok(text);
	assert_int_equal(r->nrules, 1);
	*rule = &r->rules[0];
	return r;
}

/* Every KIND.STAT loads to its kind and statistic, prints back exactly,
 * and round-trips. */
static void test_latency_signal_names(void **state)
{
	static const struct {
		const char *name;
		enum rule_latency_kind kind;
		const char *keys;
	} kinds[] = {
		{ "runqlat", RULE_LAT_RUNQ, "" },
		{ "syscall", RULE_LAT_SYSCALL, "" },
		{ "biolat", RULE_LAT_BIO, "" },
		{ "func", RULE_LAT_FUNC, "function = /usr/bin/api:handle\n" },
	};
	static const struct {
		const char *name;
		enum rule_latency_stat stat;
		const char *level;
	} stats[] = {
		{ "p50", RULE_LAT_P50, "5ms" },	  { "p90", RULE_LAT_P90, "5ms" },
		{ "p99", RULE_LAT_P99, "5ms" },	  { "p99.9", RULE_LAT_P999, "5ms" },
		{ "max", RULE_LAT_MAX, "5ms" },	  { "count", RULE_LAT_COUNT, "100" },
		{ "rate", RULE_LAT_RATE, "5/s" },
	};
	char name[32], keys[256], buf[32], *printed;
	const struct rule *rule;
	struct rules *r;
	size_t k, s, n = 0;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (s = 0; s < sizeof(stats) / sizeof(stats[0]); s++, n++) {
			snprintf(name, sizeof(name), "%s.%s", kinds[k].name, stats[s].name);
			snprintf(keys, sizeof(keys), "%sabove = %s\n", kinds[k].keys,
				 stats[s].level);
			r = latency_rule(name, keys, &rule);
			assert_int_equal(rule->signal, RULE_SIGNAL_LATENCY);
			assert_int_equal(rule->lat_kind, kinds[k].kind);
			assert_int_equal(rule->lat_stat, stats[s].stat);
			assert_string_equal(rule__signal_name(rule, buf, sizeof(buf)), name);
			printed = assert_round_trip(r);
			snprintf(keys, sizeof(keys), "\nsignal = %s\n", name);
			assert_non_null(strstr(printed, keys));
			free(printed);
			rules__free(r);
		}
	}
	assert_int_equal(n, 28);
}

/* Percentiles and max are durations, count a count, rate a rate: the
 * unit of the rule (rule__unit), not of the signal alone. */
static void test_latency_units(void **state)
{
	struct rule lat = { .signal = RULE_SIGNAL_LATENCY, .lat_stat = RULE_LAT_P999 };
	const struct rule *rule;
	struct rules *r;
	char buf[32];

	assert_int_equal(rule_signal__unit(RULE_SIGNAL_LATENCY), RULE_UNIT_NSEC);
	assert_int_equal(rule__unit(&lat), RULE_UNIT_NSEC);
	assert_string_equal(rule__format_value(&lat, 5000000, buf, sizeof(buf)), "5ms");
	assert_string_equal(rule__format_value(&lat, 250000, buf, sizeof(buf)), "250us");
	assert_string_equal(rule__format_value(&lat, 1500000000, buf, sizeof(buf)), "1.5s");
	assert_string_equal(rule__format_value(&lat, 7, buf, sizeof(buf)), "7ns");
	assert_string_equal(rule__format_value(&lat, 0, buf, sizeof(buf)), "0");
	assert_true(rule_unit__to_double(RULE_UNIT_NSEC, 5000000) == 5000000.0);
	lat.lat_stat = RULE_LAT_MAX;
	assert_int_equal(rule__unit(&lat), RULE_UNIT_NSEC);
	lat.lat_stat = RULE_LAT_COUNT;
	assert_int_equal(rule__unit(&lat), RULE_UNIT_COUNT);
	assert_string_equal(rule__format_value(&lat, 12, buf, sizeof(buf)), "12");
	lat.lat_stat = RULE_LAT_RATE;
	assert_int_equal(rule__unit(&lat), RULE_UNIT_MILLI_PER_SEC);
	assert_string_equal(rule__format_value(&lat, 2500, buf, sizeof(buf)), "2.5/s");
	lat.signal = RULE_SIGNAL_PROC_RSS; /* other signals: the signal's unit */
	assert_int_equal(rule__unit(&lat), RULE_UNIT_BYTES);

	r = latency_rule("syscall.p99.9", "above = 5ms\nclear = 250us\n", &rule);
	assert_int_equal(rule->threshold, 5000000);
	assert_int_equal(rule->clear, 250000);
	rules__free(r);
	r = latency_rule("runqlat.max", "above = 0\n", &rule);
	assert_int_equal(rule->threshold, 0);
	rules__free(r);
	r = latency_rule("runqlat.max", "above = 1h\n", &rule);
	assert_int_equal(rule->threshold, 3600000000000ll);
	rules__free(r);
	r = latency_rule("biolat.count", "above = 1000000\n", &rule);
	assert_int_equal(rule->threshold, 1000000);
	rules__free(r);
	r = latency_rule("func.rate", "function = /a:b\nabove = 0.5/s\n", &rule);
	assert_int_equal(rule->threshold, 500);
	rules__free(r);
	expect_errors("[rule a]\nsignal = syscall.p99.9\nabove = 1.5h\n",
		      "t.ini:3: [rule a] above: bad value '1.5h': expected a duration from 0 to "
		      "1h\n");
	expect_errors("[rule a]\nsignal = syscall.p99.9\nabove = 5 ms\n",
		      "t.ini:3: [rule a] above: bad value '5 ms': expected a duration like 5ms or "
		      "250us\n");
	expect_errors("[rule a]\nsignal = runqlat.p50\nbelow = 0\n",
		      "t.ini:3: [rule a] below: 0 never fires, as no value is below 0; expected "
		      "more than 0\n");
	expect_errors("[rule a]\nsignal = runqlat.count\nabove = 5ms\n",
		      "t.ini:3: [rule a] above: bad value '5ms': expected a whole number like "
		      "1000\n");
}

static void test_latency_window(void **state)
{
	const struct rule *rule;
	struct rules *r;
	char *printed;

	r = latency_rule("runqlat.p99", "above = 5ms\n", &rule);
	assert_int_equal(rule->lat_window_ns, 0); /* one poll interval */
	printed = assert_round_trip(r);
	assert_null(strstr(printed, "\nwindow ="));
	free(printed);
	rules__free(r);
	r = latency_rule("runqlat.p99", "window = 10s\nabove = 5ms\n", &rule);
	assert_int_equal(rule->lat_window_ns, 10000000000ull);
	printed = assert_round_trip(r);
	assert_non_null(strstr(printed, "\nwindow = 10s\n"));
	free(printed);
	rules__free(r);
	r = latency_rule("syscall.count", "window = 1s\nabove = 5\n", &rule);
	assert_int_equal(rule->lat_window_ns, 1000000000ull);
	rules__free(r);
	r = latency_rule("biolat.rate", "window = 600s\nabove = 5\n", &rule);
	assert_int_equal(rule->lat_window_ns, 600000000000ull);
	rules__free(r);
	expect_errors("[rule a]\nsignal = runqlat.p99\nwindow = 999ms\nabove = 5ms\n",
		      "t.ini:3: [rule a] window: bad value '999ms': expected a duration from 1s to "
		      "10m\n");
	expect_errors("[rule a]\nsignal = runqlat.p99\nwindow = 10m1s\nabove = 5ms\n",
		      "t.ini:3: [rule a] window: bad value '10m1s': expected a duration from 1s to "
		      "10m\n");
	expect_errors("[rule a]\nsignal = runqlat.p99\nwindow = 0\nabove = 5ms\n",
		      "t.ini:3: [rule a] window: bad value '0': expected a duration from 1s to "
		      "10m\n");
	expect_errors("[rule a]\nsignal = func.p99\nfunction = /a:b\nwindow = avg60\nabove = 5ms\n",
		      "t.ini:4: [rule a] window: bad value 'avg60': avg10, avg60 and avg300 are "
		      "windows of psi.* signals; expected a duration from 1s to 10m\n");
	expect_errors("[rule a]\nsignal = cpu\ncgroup = a\nwindow = 10s\nabove = 5%\n",
		      "t.ini:4: [rule a] window: not allowed with signal cpu; only psi.* and "
		      "latency signals have a window\n");
}

static void test_latency_min_count(void **state)
{
	const struct rule *rule;
	struct rules *r;
	char *printed;

	r = latency_rule("runqlat.p99", "above = 5ms\n", &rule);
	assert_int_equal(rule->lat_min_count, 1);
	printed = assert_round_trip(r);
	assert_non_null(strstr(printed, "\nmin_count = 1\n"));
	free(printed);
	rules__free(r);
	r = latency_rule("func.p99", "function = /a:b\nmin_count = 20\nabove = 50ms\n", &rule);
	assert_int_equal(rule->lat_min_count, 20);
	rules__free(r);
	r = latency_rule("syscall.rate", "min_count = 1000000\nabove = 5/s\n", &rule);
	assert_int_equal(rule->lat_min_count, 1000000);
	rules__free(r);
	r = latency_rule("cpu", "cgroup = a\nabove = 5%\n", &rule);
	assert_int_equal(rule->lat_min_count, 0);
	printed = assert_round_trip(r);
	assert_null(strstr(printed, "min_count"));
	free(printed);
	rules__free(r);
	expect_errors("[rule a]\nsignal = runqlat.p99\nmin_count = 0\nabove = 5ms\n",
		      "t.ini:3: [rule a] min_count: bad value '0': expected a whole number from 1 "
		      "to 1000000\n");
	expect_errors("[rule a]\nsignal = runqlat.p99\nmin_count = 1000001\nabove = 5ms\n",
		      "t.ini:3: [rule a] min_count: bad value '1000001': expected a whole number "
		      "from 1 to 1000000\n");
	expect_errors("[rule a]\nsignal = process.fds\npid = 1\nabove = 5\nmin_count = 3\n",
		      "t.ini:5: [rule a] min_count: not allowed with signal process.fds; only "
		      "runqlat.*, syscall.*, biolat.* and func.* signals take min_count\n");
}

static void test_latency_syscalls(void **state)
{
	const struct rule *rule;
	struct rules *r;
	char want[512], *printed;

	r = latency_rule("syscall.p99",
			 "syscalls = \" read , write,read,\topenat,write \"\n"
			 "above = 5ms\n",
			 &rule);
	assert_string_equal(rule->lat_syscalls, "read,write,openat");
	printed = assert_round_trip(r);
	assert_non_null(strstr(printed, "\nsyscalls = read,write,openat\n"));
	free(printed);
	rules__free(r);
	r = latency_rule("syscall.count", "above = 5\n", &rule);
	assert_null(rule->lat_syscalls); /* every system call */
	rules__free(r);
	snprintf(want, sizeof(want),
		 "t.ini:3: [rule a] syscalls: bad value 'read, readd': no system call 'readd' on "
		 "%s (see syscalls(2))\n",
		 syscall_table__arch());
	expect_errors("[rule a]\nsignal = syscall.p99\nsyscalls = read, readd\nabove = 5ms\n",
		      want);
	expect_errors("[rule a]\nsignal = syscall.p99\nsyscalls =\nabove = 5ms\n",
		      "t.ini:3: [rule a] syscalls: bad value '': expected system call names, "
		      "NAME[,NAME...] like read,write\n");
	expect_errors("[rule a]\nsignal = syscall.p99\nsyscalls = read,,write\nabove = 5ms\n",
		      "t.ini:3: [rule a] syscalls: bad value 'read,,write': name 2 is empty; "
		      "expected NAME[,NAME...] like read,write\n");
	expect_errors("[rule a]\nsignal = syscall.p99\nsyscalls = read,\nabove = 5ms\n",
		      "t.ini:3: [rule a] syscalls: bad value 'read,': name 2 is empty; expected "
		      "NAME[,NAME...] like read,write\n");
	expect_errors("[rule a]\nsignal = runqlat.p99\nsyscalls = read\nabove = 5ms\n",
		      "t.ini:3: [rule a] syscalls: not allowed with signal runqlat.p99; only "
		      "syscall.* signals take syscalls\n");
}

static void test_latency_device(void **state)
{
	static const char *const good[] = {
		"sda", "nvme0n1",   "loop0",	    "dm-0", "md_1.x",
		"8:0", "259:65536", "4095:1048575", "0:0",  "a-device-name-of-31-bytes-long_",
	};
	static const char *const bad[] = {
		".",	  "..",	       "a-device-name-of-thirty-two-byte",
		"4096:0", "8:1048576", "8:",
		":0",	  "8:0:0",     "/dev/sda",
		"sd a",	  "x:1",       "-1:0",
	};
	const struct rule *rule;
	struct rules *r;
	char keys[128], text[256], want[512];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(keys, sizeof(keys), "device = %s\nabove = 5ms\n", good[i]);
		r = latency_rule("biolat.p99", keys, &rule);
		assert_string_equal(rule->lat_device, good[i]);
		free(assert_round_trip(r));
		rules__free(r);
	}
	r = latency_rule("biolat.p99", "above = 5ms\n", &rule);
	assert_null(rule->lat_device); /* every device */
	rules__free(r);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "[rule a]\nsignal = biolat.max\ndevice = %s\n"
			 "above = 5ms\n",
			 bad[i]);
		snprintf(want, sizeof(want),
			 "t.ini:3: [rule a] device: bad value '%s': expected a block device name "
			 "like sda or nvme0n1 (1 to 31 letters, digits, '_', '.' or '-') or "
			 "MAJOR:MINOR like 8:0 (major below 4096, minor below 1048576)\n",
			 bad[i]);
		expect_errors(text, want);
	}
	expect_errors("[rule a]\nsignal = syscall.p99\ndevice = sda\nabove = 5ms\n",
		      "t.ini:3: [rule a] device: not allowed with signal syscall.p99; only "
		      "biolat.* signals take a device\n");
}

static void test_latency_function(void **state)
{
	static const char *const good[] = {
		"/usr/local/bin/api:handle_request",
		"/lib/x86_64-linux-gnu/libc.so.6:memcpy@@GLIBC_2.14",
		"/opt/app/server:_ZN3api7Handler6handleEv",
		"/srv/a:b/app:main.cold", /* split at the last ':' */
		"/x:$dollar$",
		"/:f",
	};
	const struct rule *rule;
	struct rules *r;
	char keys[512], sym[300];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(keys, sizeof(keys), "function = %s\nabove = 5ms\n", good[i]);
		r = latency_rule("func.p99", keys, &rule);
		assert_string_equal(rule->lat_function, good[i]);
		free(assert_round_trip(r));
		rules__free(r);
	}
	memset(sym, 'f', 255);
	sym[255] = '\0';
	snprintf(keys, sizeof(keys), "function = /a:%s\nabove = 5ms\n", sym);
	r = latency_rule("func.max", keys, &rule);
	assert_int_equal(strlen(rule->lat_function), 3 + 255);
	rules__free(r);
	expect_errors("[rule a]\nsignal = func.p99\nabove = 5ms\n",
		      "t.ini:1: [rule a] function: missing; signal func.p99 needs function = "
		      "/ABS/PATH:SYMBOL, like /usr/local/bin/api:handle_request\n");
	expect_errors("[rule a]\nsignal = func.p99\nfunction = api:handle\nabove = 5ms\n",
		      "t.ini:3: [rule a] function: bad value 'api:handle': expected "
		      "/ABS/PATH:SYMBOL, like /usr/local/bin/api:handle_request\n");
	expect_errors("[rule a]\nsignal = func.p99\nfunction = /a b:f\nabove = 5ms\n",
		      "t.ini:3: [rule a] function: bad value '/a b:f': the path has a blank or a "
		      "control character; expected /ABS/PATH:SYMBOL, like "
		      "/usr/local/bin/api:handle_request\n");
	expect_errors("[rule a]\nsignal = func.p99\nfunction = /a:ns::f\nabove = 5ms\n",
		      "t.ini:3: [rule a] function: bad value '/a:ns::f': a demangled C++ name "
		      "(ns::f) is not a symbol; expected the name the binary's symbol table has, "
		      "like _ZN2ns1fEv\n");
	sym[255] = 'f';
	sym[256] = '\0';
	snprintf(keys, sizeof(keys), "[rule a]\nsignal = func.p99\nfunction = /a:%s\nabove = 5ms\n",
		 sym);
	expect_errors(keys, "t.ini:3: [rule a] function: bad value "
			    "'/a:fffffffffffffffffffffffffffffffffffffffffffffffffffffffff...': "
			    "expected a symbol of 1 to 255 letters, digits, '_', '.', '$' or '@' "
			    "after the last ':', like /usr/local/bin/api:handle_request\n");
	expect_errors("[rule a]\nsignal = func.p99\nfunction = /a:\nabove = 5ms\n",
		      "t.ini:3: [rule a] function: bad value '/a:': expected a symbol of 1 to 255 "
		      "letters, digits, '_', '.', '$' or '@' after the last ':', like "
		      "/usr/local/bin/api:handle_request\n");
	expect_errors("[rule a]\nsignal = biolat.p99\nfunction = /a:b\nabove = 5ms\n",
		      "t.ini:3: [rule a] function: not allowed with signal biolat.p99; only func.* "
		      "signals take a function\n");
}

static void test_latency_scope(void **state)
{
	const struct rule *rule;
	struct rules *r;

	r = latency_rule("runqlat.p99", "cgroup = system.slice/api.service\nabove = 5ms\n", &rule);
	assert_int_equal(rule->scope.kind, RULE_SCOPE_CGROUP);
	assert_string_equal(rule->scope.cgroup, "system.slice/api.service");
	assert_int_equal(rule->sample.kind, RULE_SCOPE_CGROUP);
	rules__free(r);
	r = latency_rule("syscall.p99", "pid = 42\nabove = 5ms\n", &rule);
	assert_int_equal(rule->scope.kind, RULE_SCOPE_PID);
	assert_int_equal(rule->scope.pid, 42);
	assert_int_equal(rule->sample.kind, RULE_SCOPE_PID);
	rules__free(r);
	r = latency_rule("func.p99", "function = /a:b\nprocess = api\nabove = 5ms\n", &rule);
	assert_int_equal(rule->scope.kind, RULE_SCOPE_PROCESS);
	assert_string_equal(rule->sample.process, "api");
	rules__free(r);
	r = latency_rule("runqlat.max", "above = 5ms\n", &rule);
	assert_int_equal(rule->scope.kind, RULE_SCOPE_SYSTEM);
	assert_int_equal(rule->sample.kind, RULE_SCOPE_SYSTEM);
	rules__free(r);
	r = latency_rule("biolat.p99", "device = sda\nsample = rule\nabove = 5ms\n", &rule);
	assert_int_equal(rule->scope.kind, RULE_SCOPE_SYSTEM);
	assert_int_equal(rule->sample.kind, RULE_SCOPE_SYSTEM);
	rules__free(r);
	r = latency_rule("biolat.p99", "sample = cgroup:db.slice\nabove = 5ms\n", &rule);
	assert_int_equal(rule->sample.kind, RULE_SCOPE_CGROUP);
	rules__free(r);
	expect_errors("[rule a]\nsignal = runqlat.p99\npid = 1\ncgroup = a\nabove = 5ms\n",
		      "t.ini:4: [rule a] cgroup: pid is set too (line 3); a latency signal watches "
		      "one of cgroup = PATH, pid = N or process = NAME, or without them the whole "
		      "system\n");
	expect_errors("[rule a]\nsignal = biolat.p99\nprocess = db\nabove = 5ms\n",
		      "t.ini:3: [rule a] process: not allowed with signal biolat.p99; biolat is "
		      "measured per device; use device = NAME\n");
	expect_errors("[rule a]\nsignal = cpu\ncgroup = a\npid = 1\nabove = 5%\n",
		      "t.ini:4: [rule a] pid: not allowed with signal cpu; only process.* and "
		      "latency signals watch a process\n");
}

/* Every latency setting counts in rule__equal; the normalised syscalls
 * list is what is compared. */
static void test_latency_equal(void **state)
{
	static const char *const pairs[][2] = {
		{ "signal = runqlat.p99\n", "signal = runqlat.p90\n" },
		{ "signal = runqlat.p99\n", "signal = syscall.p99\n" },
		{ "signal = runqlat.p99\n", "signal = runqlat.p99\nwindow = 5s\n" },
		{ "signal = runqlat.p99\nwindow = 5s\n", "signal = runqlat.p99\nwindow = 6s\n" },
		{ "signal = runqlat.p99\n", "signal = runqlat.p99\nmin_count = 2\n" },
		{ "signal = syscall.p99\n", "signal = syscall.p99\nsyscalls = read\n" },
		{ "signal = syscall.p99\nsyscalls = read\n",
		  "signal = syscall.p99\nsyscalls = write\n" },
		{ "signal = biolat.p99\n", "signal = biolat.p99\ndevice = sda\n" },
		{ "signal = biolat.p99\ndevice = sda\n", "signal = biolat.p99\ndevice = 8:0\n" },
		{ "signal = func.p99\nfunction = /a:b\n", "signal = func.p99\nfunction = /a:c\n" },
		{ "signal = runqlat.p99\n", "signal = runqlat.p99\npid = 1\n" },
	};
	char text[256];
	struct rules *a, *b;
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		snprintf(text, sizeof(text), "[rule a]\n%sabove = 5ms\n", pairs[i][0]);
		a = parse_ok(text);
		snprintf(text, sizeof(text), "[rule a]\n%sabove = 5ms\n", pairs[i][1]);
		b = parse_ok(text);
		if (rule__equal(&a->rules[0], &b->rules[0]))
			fail_msg("'%s' -> '%s' changes nothing", pairs[i][0], pairs[i][1]);
		rules__free(b);
		rules__free(a);
	}
	a = parse_ok("[rule a]\nsignal = syscall.p99\nsyscalls = read,write\nabove = 5ms\n"
		     "min_count = 1\n");
	b = parse_ok("[rule a]\nsignal = syscall.p99\nsyscalls = read , write,read\n"
		     "above = 5ms\n");
	assert_true(rule__equal(&a->rules[0], &b->rules[0]));
	rules__free(b);
	rules__free(a);
}

/* unwind = and stack_copy = (and [global] manual_*): the three modes, the
 * default, the range 1KiB..32KiB and how `trapd check` prints them. */
static void test_unwind_keys(void **state)
{
	static const struct {
		const char *value;
		enum rule_unwind mode;
	} modes[] = {
		{ "auto", RULE_UNWIND_AUTO },
		{ "dwarf", RULE_UNWIND_DWARF },
		{ "fp", RULE_UNWIND_FP },
	};
	const char *base = "[rule a]\nsignal = cpu\ncgroup = x.slice\nabove = 80%\n";
	const struct rules_global *g;
	const struct rule *rule;
	struct rules *r;
	char text[512], want[128], *printed;
	size_t i;

	r = latency_rule("cpu", "cgroup = x.slice\nabove = 80%\n", &rule);
	assert_int_equal(rule->unwind, RULE_UNWIND_AUTO);
	assert_int_equal(rule->stack_copy_bytes, RULE_STACK_COPY_DEFAULT);
	printed = assert_round_trip(r);
	assert_non_null(strstr(printed, "\nunwind = auto\nstack_copy = 16KiB\n"));
	assert_non_null(strstr(printed, "\nmanual_unwind = auto\nmanual_stack_copy = 16KiB\n"));
	free(printed);
	rules__free(r);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(text, sizeof(text),
			 "%sunwind = %s\nstack_copy = 1KiB\n[global]\n"
			 "manual_unwind = %s\nmanual_stack_copy = 32KiB\n",
			 base, modes[i].value, modes[i].value);
		r = parse_ok(text);
		g = &r->global;
		assert_int_equal(r->rules[0].unwind, modes[i].mode);
		assert_int_equal(r->rules[0].stack_copy_bytes, 1024);
		assert_int_equal(g->manual_unwind, modes[i].mode);
		assert_int_equal(g->manual_stack_copy_bytes, RULE_STACK_COPY_MAX);
		assert_string_equal(rule_unwind__name(modes[i].mode), modes[i].value);
		printed = assert_round_trip(r);
		snprintf(want, sizeof(want), "\nunwind = %s\nstack_copy = 1KiB\n", modes[i].value);
		assert_non_null(strstr(printed, want));
		snprintf(want, sizeof(want), "\nmanual_unwind = %s\nmanual_stack_copy = 32KiB\n",
			 modes[i].value);
		assert_non_null(strstr(printed, want));
		free(printed);
		rules__free(r);
	}
	/* a size that is not a whole number of KiB prints exactly */
	snprintf(text, sizeof(text), "%sstack_copy = 10000\n", base);
	r = parse_ok(text);
	assert_int_equal(r->rules[0].stack_copy_bytes, 10000);
	free(assert_round_trip(r));
	rules__free(r);
	snprintf(text, sizeof(text), "%sunwind = sideways\n", base);
	expect_errors(text, "t.ini:5: [rule a] unwind: bad value 'sideways': expected auto, "
			    "dwarf or fp\n");
	snprintf(text, sizeof(text), "%sunwind = FP\nunwind = fp\n", base);
	expect_errors(text, "t.ini:5: [rule a] unwind: bad value 'FP': expected auto, dwarf or "
			    "fp\nt.ini:6: [rule a] unwind: set twice (first on line 5)\n");
	snprintf(text, sizeof(text), "%sstack_copy = 1023\n", base);
	expect_errors(text, "t.ini:5: [rule a] stack_copy: bad value '1023': expected a size "
			    "from 1KiB to 32KiB\n");
	snprintf(text, sizeof(text), "%sstack_copy = 32769\n", base);
	expect_errors(text, "t.ini:5: [rule a] stack_copy: bad value '32769': expected a size "
			    "from 1KiB to 32KiB\n");
	expect_errors("[global]\nmanual_unwind = \nmanual_stack_copy = 0\n",
		      "t.ini:2: [global] manual_unwind: bad value '': expected auto, dwarf or fp\n"
		      "t.ini:3: [global] manual_stack_copy: bad value '0': expected a size from "
		      "1KiB to 32KiB\n");
}

/* The generated table is this architecture's <sys/syscall.h>, sorted so
 * that every name is found. */
static void test_syscall_table(void **state)
{
	const char *name;
	int nr, found = 0;

	assert_int_equal(syscall_table__number("read"), SYS_read);
	assert_int_equal(syscall_table__number("write"), SYS_write);
	assert_int_equal(syscall_table__number("openat"), SYS_openat);
	assert_int_equal(syscall_table__number("futex"), SYS_futex);
	assert_string_equal(syscall_table__name(SYS_openat), "openat");
	assert_int_equal(syscall_table__number("readd"), -ENOENT);
	assert_int_equal(syscall_table__number(""), -ENOENT);
	assert_int_equal(syscall_table__number("READ"), -ENOENT);
	assert_int_equal(syscall_table__number("syscalls"), -ENOENT);
	assert_null(syscall_table__name(-1));
	assert_null(syscall_table__name(syscall_table__max() + 1));
	assert_true(syscall_table__max() >= SYS_openat);
	for (nr = 0; nr <= syscall_table__max(); nr++) {
		name = syscall_table__name(nr);
		if (!name)
			continue;
		assert_int_equal(syscall_table__number(name), nr);
		found++;
	}
	assert_true(found > 200);
	assert_true(strlen(syscall_table__arch()) > 0);
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

/* parse_ci - @text read as trapd ci -c reads it; it must load. */
static struct rules *parse_ci(const char *text)
{
	struct rules_errors errs;
	struct rules *r = NULL;

	if (rules__parse_for("ci.ini", text, strlen(text), RULES_FOR_CI, &r, &errs))
		fail_msg("does not load for trapd ci:\n%s\n%s", text, errs.n ? errs.msgs[0] : "");
	return r;
}

/* In a file for trapd ci, a cpu, PSI or latency rule without a scope
 * watches the run and samples it; named scopes, process signals and
 * biolat keep their meaning; the print loads back to equal rules. */
static void test_ci_run_scope(void **state)
{
	static const char text[] =
		"[rule busy]\nsignal = cpu\nabove = 50%\n"
		"[rule stall]\nsignal = psi.cpu.some\nwindow = 2s\nabove = 10%\n"
		"[rule queue]\nsignal = runqlat.p99\nabove = 5ms\n"
		"[rule disk]\nsignal = biolat.p99\nabove = 5ms\n"
		"[rule named]\nsignal = cpu\ncgroup = db.slice\nabove = 5%\nsample = run\n"
		"[rule rss]\nsignal = process.rss\nprocess = api\nabove = 1GiB\n";
	static const enum rule_scope_kind scope[] = { RULE_SCOPE_RUN,	 RULE_SCOPE_RUN,
						      RULE_SCOPE_RUN,	 RULE_SCOPE_SYSTEM,
						      RULE_SCOPE_CGROUP, RULE_SCOPE_PROCESS };
	static const enum rule_scope_kind sample[] = { RULE_SCOPE_RUN, RULE_SCOPE_RUN,
						       RULE_SCOPE_RUN, RULE_SCOPE_SYSTEM,
						       RULE_SCOPE_RUN, RULE_SCOPE_PROCESS };
	struct rules *r = parse_ci(text), *back;
	struct rules_errors errs;
	char buf[64], *printed;
	size_t i;

	assert_int_equal(r->use, RULES_FOR_CI);
	assert_int_equal(r->nrules, 6);
	for (i = 0; i < r->nrules; i++) {
		assert_int_equal(r->rules[i].scope.kind, scope[i]);
		assert_int_equal(r->rules[i].sample.kind, sample[i]);
	}
	assert_string_equal(rule_scope__format(&r->rules[0].scope, buf, sizeof(buf)), "the run");
	printed = print_rules(r);
	assert_non_null(strstr(printed, "[rule busy]\nsignal = cpu\n# no cgroup, pid or process: "
					"it watches the run of trapd ci\n"));
	assert_int_equal(rules__parse_for("ci.ini", printed, strlen(printed), RULES_FOR_CI, &back,
					  &errs),
			 0);
	assert_rules_equal(r, back);
	rules__free(back);
	free(printed);
	rules__free(r);
}

/* The daemon's rules have no run: a cpu rule still needs its cgroup, and
 * sample = run is refused with the reason. */
static void test_ci_run_scope_only_for_ci(void **state)
{
	expect_errors("[rule a]\nsignal = runqlat.p99\nabove = 5ms\nsample = run\n",
		      "t.ini:4: [rule a] sample: bad value 'run': run is the command trapd ci "
		      "runs: only in a rules file for trapd ci -c\n");
	expect_errors("[rule a]\nsignal = cpu\nabove = 5%\n",
		      "t.ini:1: [rule a] cgroup: missing; signal cpu reads a cgroup: cgroup = "
		      "PATH, like system.slice/nginx.service\n");
}

/* rules__resolve_run makes the run's scopes and samples its cgroup and
 * leaves the others alone. */
static void test_ci_resolve_run(void **state)
{
	struct rules *r = parse_ci("[rule busy]\nsignal = cpu\nabove = 50%\n"
				   "[rule other]\nsignal = cpu\ncgroup = db.slice\nabove = 5%\n"
				   "sample = run\n"
				   "[rule host]\nsignal = biolat.p99\nabove = 5ms\n");

	assert_int_equal(rules__resolve_run(r, "/sys/fs/cgroup/unified/trapd-ci-1"), 0);
	assert_int_equal(r->rules[0].scope.kind, RULE_SCOPE_CGROUP);
	assert_string_equal(r->rules[0].scope.cgroup, "/sys/fs/cgroup/unified/trapd-ci-1");
	assert_int_equal(r->rules[0].sample.kind, RULE_SCOPE_CGROUP);
	assert_string_equal(r->rules[0].sample.cgroup, "/sys/fs/cgroup/unified/trapd-ci-1");
	assert_string_equal(r->rules[1].scope.cgroup, "db.slice");
	assert_string_equal(r->rules[1].sample.cgroup, "/sys/fs/cgroup/unified/trapd-ci-1");
	assert_int_equal(r->rules[2].scope.kind, RULE_SCOPE_SYSTEM);
	assert_int_equal(r->rules[2].sample.kind, RULE_SCOPE_SYSTEM);
	rules__free(r);
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
		 "%s:1: [rulez]: unknown section; expected [global], [labels], [upload] or "
		 "[rule NAME]\n"
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

/* trapd check --ci reads the file as trapd ci -c does. */
static void test_cmd_check_ci(void **state)
{
	char path[128];
	struct result r;

	write_tmp(path, sizeof(path), "ci.ini", "[rule busy]\nsignal = cpu\nabove = 50%\n");
	r = check("--ci", "-c", path, NULL);
	assert_int_equal(r.status, TRAPD_EXIT_OK);
	assert_non_null(strstr(r.out, "sample = run\n"));
	assert_string_equal(r.err, "");
	result_free(&r);
	r = check("-c", path, NULL);
	assert_int_equal(r.status, TRAPD_EXIT_USAGE);
	assert_non_null(strstr(r.err, "cgroup: missing; signal cpu reads a cgroup"));
	result_free(&r);
	unlink(path);
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
			assert_int_equal(strncmp(r.out, "Usage: trapd check [--ci] -c RULES", 34),
					 0);
		result_free(&r);
	}
}

/* process_user, process_exe and process_cgroup: read, printed back,
 * compared; refused where no process is found by name. */
static void test_process_pins(void **state)
{
	struct rules *r, *r2;
	const struct rule *a;
	char *printed;

	r = parse_ok("[rule a]\nsignal = process.rss\nprocess = postgres\n"
		     "process_user = root\nprocess_exe = /usr/lib/postgresql/15/bin/postgres\n"
		     "process_cgroup = /system.slice/postgresql.service\nabove = 1GiB\n"
		     "[rule b]\nsignal = cpu\ncgroup = x\nabove = 50%\nsample = process:pg\n"
		     "process_user = 105\n");
	a = rules__find(r, "a");
	assert_string_equal(a->pin.user, "root");
	assert_int_equal(a->pin.uid, 0);
	assert_string_equal(a->pin.exe, "/usr/lib/postgresql/15/bin/postgres");
	assert_string_equal(a->pin.cgroup, "system.slice/postgresql.service");
	assert_false(rule__pinned_by_name_only(a));
	assert_int_equal(rules__find(r, "b")->pin.uid, 105);
	printed = assert_round_trip(r);
	assert_non_null(strstr(printed, "process = postgres\nprocess_user = root\n"
					"process_exe = /usr/lib/postgresql/15/bin/postgres\n"
					"process_cgroup = system.slice/postgresql.service\n"));
	assert_null(strstr(printed, "# warning"));
	free(printed);
	/* a pin is part of the rule: a reload that changes it starts afresh */
	r2 = parse_ok("[rule a]\nsignal = process.rss\nprocess = postgres\n"
		      "process_user = root\nprocess_exe = /usr/lib/postgresql/15/bin/postgres\n"
		      "process_cgroup = system.slice/postgresql.service\nabove = 1GiB\n");
	assert_true(rule__equal(a, rules__find(r2, "a")));
	rules__free(r2);
	r2 = parse_ok("[rule a]\nsignal = process.rss\nprocess = postgres\n"
		      "process_user = root\nprocess_exe = /usr/lib/postgresql/16/bin/postgres\n"
		      "process_cgroup = system.slice/postgresql.service\nabove = 1GiB\n");
	assert_false(rule__equal(a, rules__find(r2, "a")));
	rules__free(r2);
	rules__free(r);

	/* the name alone: check says so, in a comment that keeps the print a
	 * valid file */
	r = parse_ok("[rule a]\nsignal = process.fds\nprocess = my-app\nabove = 100\n");
	assert_true(rule__pinned_by_name_only(&r->rules[0]));
	printed = assert_round_trip(r);
	assert_non_null(strstr(printed, "process = my-app\n# warning: a process found by its "
					"name alone: any local user can name a process so;\n"
					"# pin it with process_user, process_exe or "
					"process_cgroup\n"));
	free(printed);
	rules__free(r);

	expect_errors("[rule a]\nsignal = cpu\ncgroup = x\nabove = 1%\nprocess_user = root\n",
		      "t.ini:5: [rule a] process_user: not allowed here; it pins a process found "
		      "by its name: the rule needs process = NAME or sample = process:NAME\n");
	expect_errors("[rule a]\nsignal = process.rss\npid = 1\nabove = 1\nprocess_exe = /x\n",
		      "t.ini:5: [rule a] process_exe: not allowed here; it pins a process found "
		      "by its name: the rule needs process = NAME or sample = process:NAME\n");
	expect_errors("[rule a]\nsignal = syscall.p99\nprocess = x\nabove = 1ms\n"
		      "process_cgroup = a\n",
		      "t.ini:5: [rule a] process_cgroup: not allowed here; the kernel filters a "
		      "latency rule's process by its comm alone; pins apply to process.* rules "
		      "and to sample = process:NAME\n");
	expect_errors("[rule a]\nsignal = process.rss\nprocess = x\nabove = 1\n"
		      "process_user = no-such-user-xyz\nprocess_exe = bin/x\n"
		      "process_cgroup = a/../b\n",
		      "t.ini:5: [rule a] process_user: bad value 'no-such-user-xyz': no such "
		      "user; expected a user name or a uid\n"
		      "t.ini:6: [rule a] process_exe: bad value 'bin/x': expected the absolute "
		      "path of the binary, as /proc/PID/exe names it\n"
		      "t.ini:7: [rule a] process_cgroup: bad value 'a/../b': expected a cgroup "
		      "below the root as /proc/PID/cgroup names it, like "
		      "system.slice/postgresql.service, without '.' or '..'\n");
	expect_errors("[rule a]\nsignal = process.rss\nprocess = x\nabove = 1\n"
		      "process_cgroup = /\n",
		      "t.ini:5: [rule a] process_cgroup: bad value '/': expected a cgroup below "
		      "the root as /proc/PID/cgroup names it, like "
		      "system.slice/postgresql.service, without '.' or '..'\n");
}

/* many_rules - a file of @n process rules (each different), as text. */
static char *many_rules(size_t n)
{
	size_t cap = n * 96 + 64, used = 0, i;
	char *t = malloc(cap);

	assert_non_null(t);
	t[0] = '\0';
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(t + used, cap - used,
					 "[rule r%zu]\nsignal = process.rss\nprocess = p%zu\n"
					 "above = 1GiB\n",
					 i, i % 1000);
	return t;
}

/* A file holds at most RULES_RULES_MAX rules: the one beyond is reported
 * once, at its header, and `trapd check` exits 2. */
static void test_rules_limit(void **state)
{
	char *text = many_rules(RULES_RULES_MAX), *msgs, path[128], want[256];
	struct rules *r = parse_text("t.ini", text, strlen(text), &msgs);
	struct result res;

	assert_non_null(r);
	assert_int_equal(r->nrules, RULES_RULES_MAX);
	rules__free(r);
	free(msgs);
	free(text);
	text = many_rules(10000);
	r = parse_text("t.ini", text, strlen(text), &msgs);
	assert_null(r);
	snprintf(want, sizeof(want),
		 "t.ini:%d: too many rules (limit %d); split the rules between hosts or merge "
		 "rules that watch the same thing\n",
		 RULES_RULES_MAX * 4 + 1, RULES_RULES_MAX);
	assert_string_equal(msgs, want);
	free(msgs);
	write_tmp(path, sizeof(path), "many.ini", text);
	res = check("-c", path, NULL);
	assert_int_equal(res.status, TRAPD_EXIT_USAGE);
	assert_string_equal(res.out, "");
	assert_non_null(strstr(res.err, "too many rules (limit 256)"));
	result_free(&res);
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process_pins),
		cmocka_unit_test(test_rules_limit),
		cmocka_unit_test(test_good_files),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_examples_load),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_rule_model),
		cmocka_unit_test(test_rule_equal),
		cmocka_unit_test(test_formatting),
		cmocka_unit_test(test_unwind_keys),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_upload_absent),
		cmocka_unit_test(test_upload_file),
		cmocka_unit_test(test_upload_http),
		cmocka_unit_test(test_upload_s3),
		cmocka_unit_test(test_upload_azblob),
		cmocka_unit_test(test_upload_azblob_prefix_with_double_dash),
		cmocka_unit_test(test_upload_url_errors),
		cmocka_unit_test(test_upload_names_end_with_letter_or_digit),
		cmocka_unit_test(test_upload_values_checked),
		cmocka_unit_test(test_upload_equal_and_round_trip),
		cmocka_unit_test(test_latency_signal_names),
		cmocka_unit_test(test_latency_units),
		cmocka_unit_test(test_latency_window),
		cmocka_unit_test(test_latency_min_count),
		cmocka_unit_test(test_latency_syscalls),
		cmocka_unit_test(test_latency_device),
		cmocka_unit_test(test_latency_function),
		cmocka_unit_test(test_latency_scope),
		cmocka_unit_test(test_latency_equal),
		cmocka_unit_test(test_syscall_table),
		cmocka_unit_test(test_ci_run_scope),
		cmocka_unit_test(test_ci_run_scope_only_for_ci),
		cmocka_unit_test(test_ci_resolve_run),
		cmocka_unit_test(test_cmd_check),
		cmocka_unit_test(test_cmd_check_ci),
		cmocka_unit_test(test_cmd_check_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
