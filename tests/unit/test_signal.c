// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_signal.c - every signal of signal.h read twice from a scratch copy
 * of the fixture trees (tests/data/sys), the kernel counters changed in
 * between, and the exact value checked, on pure v2, v1 (apart and
 * co-mounted) and hybrid layouts; the -EAGAIN, -ENOENT and -ENODATA cases
 * with their messages; PSI triggers; process names pinned by user, binary
 * and cgroup against renamed impostors; one /proc scan per poll shared by
 * every process-name rule (opendir counted); and a sanity read of the
 * live host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rules/proc_comms.h"
#include "rules/signal.h"

#define SEC 1000000000ll

/* opendir, counted per directory: this binary's definition takes the
 * place of libc's for every module linked in, so a test can tell how
 * often /proc itself was listed. */
static char opendir_watched[512];
static int opendir_count;

DIR *opendir(const char *name)
{
	int fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (opendir_watched[0] && !strcmp(name, opendir_watched))
		opendir_count++;
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

struct fix {
	char root[256];
	char prefix[320];
	char mountinfo[352];
	char proc[320];
	struct signal_env env;
	char err[1024];
};

static int setup(void **state)
{
	const char *d = getenv("TRAPD_TESTDATA");
	struct fix *f = calloc(1, sizeof(*f));
	char cmd[1024];

	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "/tmp/trapd-signal-XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/sys/.' '%s'", d ? d : "tests/data", f->root);
	if (system(cmd))
		return -1;
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->root);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

/* use - read layout @name of the scratch tree. */
static const struct signal_env *use(struct fix *f, const char *name)
{
	snprintf(f->prefix, sizeof(f->prefix), "%s/%s", f->root, name);
	snprintf(f->mountinfo, sizeof(f->mountinfo), "%s/mountinfo", f->prefix);
	f->env.proc_root = f->proc;
	f->env.mountinfo = f->mountinfo;
	f->env.fs_prefix = f->prefix;
	return &f->env;
}

__attribute__((format(printf, 3, 4))) static void put(struct fix *f, const char *file,
						      const char *fmt, ...)
{
	char path[1024];
	va_list ap;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->prefix, file);
	fp = fopen(path, "w");
	if (!fp)
		fail_msg("%s: cannot write", path);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fclose(fp);
}

/* run - shell command @what on the layout's file @file. */
static void run(struct fix *f, const char *what, const char *file)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s '%s/%s'", what, f->prefix, file);
	assert_int_equal(system(cmd), 0);
}

static struct rule rule(enum rule_signal sig, enum rule_scope_kind kind, const char *what)
{
	struct rule r;

	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "t");
	r.signal = sig;
	r.above = true;
	r.scope.kind = kind;
	if (kind == RULE_SCOPE_CGROUP)
		r.scope.cgroup = (char *)what;
	else if (kind == RULE_SCOPE_PROCESS)
		r.scope.process = (char *)what;
	else if (kind == RULE_SCOPE_PID)
		r.scope.pid = (pid_t)strtol(what, NULL, 10);
	return r;
}

static struct rule psi_rule(enum rule_psi_resource res, bool full, enum rule_psi_window win,
			    enum rule_scope_kind kind, const char *cgroup)
{
	struct rule r = rule(RULE_SIGNAL_PSI, kind, cgroup);

	r.psi_resource = res;
	r.psi_full = full;
	r.psi_window = win;
	return r;
}

/* expect - read @s at @now: @ret, and @value when @ret is 0; the message,
 * when @msg is given, must contain it. */
static void expect(struct fix *f, struct signal_source *s, int64_t now, int ret, int64_t value,
		   const char *msg)
{
	int64_t v = -12345;
	int got;

	f->err[0] = '\0';
	got = signal_source__read(s, now, &v, f->err, sizeof(f->err));
	if (got != ret || (ret == 0 && v != value))
		fail_msg("read: %d (%s) value %lld; wanted %d value %lld", got, f->err,
			 (long long)v, ret, (long long)value);
	if (msg && !strstr(f->err, msg))
		fail_msg("message '%s' lacks '%s'", f->err, msg);
}

/* once - one read at 1s of a source for @r on @layout, as expect. */
static void once(struct fix *f, const struct rule *r, const char *layout, int ret, int64_t value,
		 const char *msg)
{
	struct signal_source *s = signal_source__new(r, use(f, layout));

	assert_non_null(s);
	expect(f, s, SEC, ret, value, msg);
	signal_source__free(s);
}

static const enum rule_signal cpu_signals[] = {
	RULE_SIGNAL_CPU,
	RULE_SIGNAL_CPU_QUOTA,
	RULE_SIGNAL_THROTTLED,
	RULE_SIGNAL_THROTTLED_TIME,
	RULE_SIGNAL_THROTTLED_RATE,
};

/* cpu_round - the five cgroup signals of @cgroup, first read at 1s, then
 * @change applied, then read at 3s: 1.5s of CPU in 2s of wall time, 5 of
 * 20 periods throttled for 0.5s. @want holds the values in order. */
static void cpu_round(struct fix *f, const char *layout, const char *cgroup,
		      void (*change)(struct fix *), const int64_t want[5])
{
	struct signal_source *s[5];
	struct rule r;
	size_t i;

	for (i = 0; i < 5; i++) {
		r = rule(cpu_signals[i], RULE_SCOPE_CGROUP, cgroup);
		s[i] = signal_source__new(&r, use(f, layout));
		assert_non_null(s[i]);
		expect(f, s[i], 1 * SEC, -EAGAIN, 0, "first reading of its counters");
		assert_int_equal(signal_source__pid(s[i]), 0);
	}
	change(f);
	for (i = 0; i < 5; i++) {
		expect(f, s[i], 3 * SEC, 0, want[i], NULL);
		signal_source__free(s[i]);
	}
}

static void change_v2(struct fix *f)
{
	put(f, "sys/fs/cgroup/system.slice/web.service/cpu.stat",
	    "usage_usec 2001500000\nuser_usec 1501000000\nsystem_usec 500500000\n"
	    "core_sched.force_idle_usec 0\nnr_periods 1020\nnr_throttled 55\n"
	    "throttled_usec 3000000\nnr_bursts 0\nburst_usec 0\n");
}

static void change_hybrid(struct fix *f)
{
	put(f, "sys/fs/cgroup/unified/system.slice/web.service/cpu.stat",
	    "usage_usec 2501500000\nuser_usec 2001000000\nsystem_usec 500500000\n");
	put(f, "sys/fs/cgroup/cpu/system.slice/web.service/cpu.stat",
	    "nr_periods 2020\nnr_throttled 105\nthrottled_time 2000000000\n");
	/* cpuacct is not read where v2 has the cgroup: a jump here is ignored */
	put(f, "sys/fs/cgroup/cpuacct/system.slice/web.service/cpuacct.usage", "99400000000\n");
}

static void change_v1(struct fix *f)
{
	put(f, "sys/fs/cgroup/cpuacct/system.slice/web.service/cpuacct.usage", "4500000000\n");
	put(f, "sys/fs/cgroup/cpu/system.slice/web.service/cpu.stat",
	    "nr_periods 4020\nnr_throttled 125\nthrottled_time 3500000000\nnr_bursts 0\n"
	    "burst_time 0\n");
}

static void change_comounted(struct fix *f)
{
	put(f, "sys/fs/cgroup/cpu,cpuacct/system.slice/web.service/cpuacct.usage", "8500000000\n");
	put(f, "sys/fs/cgroup/cpu,cpuacct/system.slice/web.service/cpu.stat",
	    "nr_periods 620\nnr_throttled 35\nthrottled_time 1400000000\n");
}

static void test_cgroup_cpu_on_each_layout(void **state)
{
	/* cpu 75%; of a 0.5 CPU quota 150%; 25% of periods; 25% of the
	 * time; 2.5 throttlings a second */
	static const int64_t half_cpu[5] = { 7500, 15000, 2500, 2500, 2500 };
	static const int64_t v1[5] = { 7500, 5000, 2500, 2500, 2500 };	    /* quota 1.5 */
	static const int64_t comount[5] = { 7500, 3750, 2500, 2500, 2500 }; /* quota 2 */
	struct fix *f = *state;

	cpu_round(f, "v2", "system.slice/web.service", change_v2, half_cpu);
	cpu_round(f, "hybrid", "system.slice/web.service", change_hybrid, half_cpu);
	cpu_round(f, "v1", "system.slice/web.service", change_v1, v1);
	cpu_round(f, "v1-comounted", "/sys/fs/cgroup/cpu/system.slice/web.service",
		  change_comounted, comount);
}

static void test_cgroup_absolute_paths_and_root(void **state)
{
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	/* a v1 directory: its usage comes from the v2 counterpart */
	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_CGROUP, "/sys/fs/cgroup/cpu/system.slice/web.service");
	s = signal_source__new(&r, use(f, "hybrid"));
	expect(f, s, 1 * SEC, -EAGAIN, 0, NULL);
	change_hybrid(f);
	expect(f, s, 3 * SEC, 0, 7500, NULL);
	signal_source__free(s);
	/* the system scope is the root cgroup: 2s of CPU in 1s */
	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_SYSTEM, NULL);
	s = signal_source__new(&r, use(f, "v2"));
	expect(f, s, 10 * SEC, -EAGAIN, 0, NULL);
	put(f, "sys/fs/cgroup/cpu.stat", "usage_usec 9002000000\nuser_usec 1\nsystem_usec 1\n");
	expect(f, s, 11 * SEC, 0, 20000, NULL);
	signal_source__free(s);
}

static void test_cgroup_no_data(void **state)
{
	struct fix *f = *state;
	struct rule r;

	/* the v2 cpu controller is not enabled for user.slice */
	r = rule(RULE_SIGNAL_THROTTLED, RULE_SCOPE_CGROUP, "user.slice");
	once(f, &r, "v2", -ENODATA, 0, "cgroup user.slice: no throttling counters");
	r = rule(RULE_SIGNAL_CPU_QUOTA, RULE_SCOPE_CGROUP, "system.slice"); /* "max 100000" */
	once(f, &r, "v2", -ENODATA, 0, "cgroup system.slice: no CPU quota set");
	/* hybrid: in the v2 tree only, so no v1 cpu controller over it */
	r = rule(RULE_SIGNAL_THROTTLED_RATE, RULE_SCOPE_CGROUP, "batch.slice");
	once(f, &r, "hybrid", -ENODATA, 0, "no throttling counters");
	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_CGROUP, "no/such.service");
	once(f, &r, "hybrid", -ENOENT, 0, "cgroup no/such.service: no such cgroup");
	/* a process signal needs a process */
	r = rule(RULE_SIGNAL_PROC_RSS, RULE_SCOPE_CGROUP, "x");
	once(f, &r, "hybrid", -EINVAL, 0, "needs a pid or process scope");
}

static void test_cgroup_rate_restarts(void **state)
{
	const char *stat = "sys/fs/cgroup/system.slice/web.service/cpu.stat";
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_CGROUP, "system.slice/web.service");
	s = signal_source__new(&r, use(f, "v2"));
	expect(f, s, 1 * SEC, -EAGAIN, 0, NULL);
	put(f, stat, "usage_usec 2000500000\n");
	expect(f, s, 2 * SEC, 0, 5000, NULL);
	/* no time passed: no value, and the last reading is kept */
	expect(f, s, 2 * SEC, -EAGAIN, 0, "no time since the last reading");
	put(f, stat, "usage_usec 2001500000\n");
	expect(f, s, 4 * SEC, 0, 5000, NULL);
	/* recreated: the counter starts again low */
	put(f, stat, "usage_usec 1000\n");
	expect(f, s, 5 * SEC, -EAGAIN, 0, "CPU usage went backwards (cgroup recreated?)");
	put(f, stat, "usage_usec 251000\n");
	expect(f, s, 6 * SEC, 0, 2500, NULL);
	/* removed, then back */
	run(f, "rm -rf", "sys/fs/cgroup/system.slice/web.service");
	expect(f, s, 7 * SEC, -ENOENT, 0, "no such cgroup");
	run(f, "mkdir", "sys/fs/cgroup/system.slice/web.service");
	put(f, stat, "usage_usec 10\n");
	expect(f, s, 8 * SEC, -EAGAIN, 0, "first reading");
	put(f, stat, "usage_usec 100010\n");
	expect(f, s, 9 * SEC, 0, 1000, NULL);
	/* a bad file: the message names it */
	put(f, stat, "user_usec 10\n");
	expect(f, s, 10 * SEC, -EINVAL, 0,
	       "/sys/fs/cgroup/system.slice/web.service/cpu.stat: no 'usage_usec' line");
	signal_source__free(s);
}

static void test_cgroup_moves_between_hierarchies(void **state)
{
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	/* "legacy" is v1 only: usage from cpuacct.usage */
	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_CGROUP, "legacy");
	s = signal_source__new(&r, use(f, "hybrid"));
	expect(f, s, 1 * SEC, -EAGAIN, 0, NULL);
	put(f, "sys/fs/cgroup/cpuacct/legacy/cpuacct.usage", "1300000000\n");
	expect(f, s, 2 * SEC, 0, 3000, NULL);
	/* it appears in the v2 tree: seen when the cgroup is looked for
	 * again, 10 s after it was found (until then cpuacct, which stood
	 * still); usage then comes from v2, and the rate restarts */
	run(f, "mkdir", "sys/fs/cgroup/unified/legacy");
	put(f, "sys/fs/cgroup/unified/legacy/cpu.stat", "usage_usec 5\n");
	expect(f, s, 3 * SEC, 0, 0, NULL);
	expect(f, s, 10 * SEC, 0, 0, NULL);
	expect(f, s, 11 * SEC, -EAGAIN, 0, "moved to another hierarchy");
	put(f, "sys/fs/cgroup/unified/legacy/cpu.stat", "usage_usec 1000005\n");
	expect(f, s, 12 * SEC, 0, 10000, NULL);
	signal_source__free(s);
}

/* usage_at - web.service's cpu.stat in the v2 layout with @usec of CPU. */
static void usage_at(struct fix *f, long long usec)
{
	put(f, "sys/fs/cgroup/system.slice/web.service/cpu.stat", "usage_usec %lld\n", usec);
}

static void test_cgroup_quota_read_when_located(void **state)
{
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	/* 0.75 CPU against a limit of half a CPU: 150% */
	r = rule(RULE_SIGNAL_CPU_QUOTA, RULE_SCOPE_CGROUP, "system.slice/web.service");
	s = signal_source__new(&r, use(f, "v2"));
	usage_at(f, 2000000000);
	expect(f, s, 1 * SEC, -EAGAIN, 0, NULL);
	usage_at(f, 2000750000);
	expect(f, s, 2 * SEC, 0, 15000, NULL);
	/* the limit, configuration and not a counter, is read again when
	 * the cgroup is looked for again: 10 s after it was found */
	put(f, "sys/fs/cgroup/system.slice/web.service/cpu.max", "150000 100000\n");
	usage_at(f, 2001500000);
	expect(f, s, 3 * SEC, 0, 15000, NULL);
	usage_at(f, 2007500000);
	expect(f, s, 11 * SEC, 0, 5000, NULL);
	put(f, "sys/fs/cgroup/system.slice/web.service/cpu.max", "max 100000\n");
	usage_at(f, 2008250000);
	expect(f, s, 12 * SEC, 0, 5000, NULL);
	expect(f, s, 21 * SEC, -ENODATA, 0, "no CPU quota set");
	signal_source__free(s);
}

static void test_psi_averages(void **state)
{
	static const struct {
		const char *layout;
		enum rule_psi_resource res;
		bool full;
		enum rule_psi_window win;
		enum rule_scope_kind kind;
		const char *cgroup;
		int64_t want;
	} w[] = {
		{ "hybrid", RULE_PSI_CPU, false, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL, 133 },
		{ "hybrid", RULE_PSI_CPU, false, RULE_PSI_AVG60, RULE_SCOPE_SYSTEM, NULL, 33 },
		{ "hybrid", RULE_PSI_IO, false, RULE_PSI_AVG300, RULE_SCOPE_SYSTEM, NULL, 307 },
		{ "hybrid", RULE_PSI_IO, true, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL, 1001 },
		{ "hybrid", RULE_PSI_MEMORY, true, RULE_PSI_AVG60, RULE_SCOPE_SYSTEM, NULL, 5 },
		{ "hybrid", RULE_PSI_CPU, false, RULE_PSI_AVG10, RULE_SCOPE_CGROUP,
		  "system.slice/web.service", 777 },
		{ "hybrid", RULE_PSI_CPU, true, RULE_PSI_AVG300, RULE_SCOPE_CGROUP,
		  "/sys/fs/cgroup/cpu/system.slice/web.service", 55 },
		{ "v2", RULE_PSI_IO, true, RULE_PSI_AVG60, RULE_SCOPE_CGROUP,
		  "system.slice/web.service", 999 },
		{ "v2", RULE_PSI_MEMORY, false, RULE_PSI_AVG10, RULE_SCOPE_CGROUP, ".", 0 },
		{ "v1-comounted", RULE_PSI_IO, false, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL,
		  1234 },
	};
	struct fix *f = *state;
	struct rule r;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		r = psi_rule(w[i].res, w[i].full, w[i].win, w[i].kind, w[i].cgroup);
		once(f, &r, w[i].layout, 0, w[i].want, NULL);
	}
}

static void test_psi_missing(void **state)
{
	struct fix *f = *state;
	struct rule r;

	/* v1 only: no PSI for the cgroup */
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_AVG10, RULE_SCOPE_CGROUP, "legacy");
	once(f, &r, "hybrid", -ENODATA, 0, "cgroup legacy: in no v2 tree (only cgroup v1");
	/* booted with psi=0 */
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL);
	once(f, &r, "v1", -ENODATA, 0, "/v1/proc/pressure/cpu: no such file (a kernel without PSI");
	/* a kernel before 5.13 has no "full" line for cpu */
	r = psi_rule(RULE_PSI_CPU, true, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL);
	once(f, &r, "v1-comounted", -ENODATA, 0, "/proc/pressure/cpu: no 'full' line");
	/* the cgroup is gone, or only its file */
	r = psi_rule(RULE_PSI_IO, false, RULE_PSI_AVG10, RULE_SCOPE_CGROUP, "gone.service");
	once(f, &r, "v2", -ENOENT, 0, "no such cgroup");
	run(f, "rm", "sys/fs/cgroup/user.slice/io.pressure");
	r = psi_rule(RULE_PSI_IO, false, RULE_PSI_AVG10, RULE_SCOPE_CGROUP, "user.slice");
	once(f, &r, "v2", -ENODATA, 0, "user.slice/io.pressure: no such file");
	/* PSI of a process is not a thing */
	r = psi_rule(RULE_PSI_IO, false, RULE_PSI_AVG10, RULE_SCOPE_PID, "1");
	once(f, &r, "v2", -EINVAL, 0, "PSI is read for the system or a cgroup");
}

static void test_psi_custom_window(void **state)
{
	const char *file = "sys/fs/cgroup/system.slice/web.service/memory.pressure";
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	r = psi_rule(RULE_PSI_MEMORY, true, RULE_PSI_CUSTOM, RULE_SCOPE_CGROUP,
		     "system.slice/web.service");
	r.psi_window_ns = 2 * SEC;
	s = signal_source__new(&r, use(f, "v2"));
	expect(f, s, 10 * SEC, -EAGAIN, 0, "no reading a whole window (2000 ms) old yet");
	expect(f, s, 11 * SEC, -EAGAIN, 0, NULL);
	/* 0.5s of "full" stall in the 2s window: 25% */
	put(f, file,
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=777000\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=500100\n");
	expect(f, s, 12 * SEC, 0, 2500, NULL);
	/* the cgroup recreated: total restarts */
	put(f, file,
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
	expect(f, s, 13 * SEC, -EAGAIN, 0, "total went backwards");
	expect(f, s, 14 * SEC, -EAGAIN, 0, NULL);
	put(f, file,
	    "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n"
	    "full avg10=0.00 avg60=0.00 avg300=0.00 total=2000007\n");
	expect(f, s, 15 * SEC, 0, 10000, NULL);
	signal_source__free(s);
}

/* set_stat - /proc/PID/stat of fixture process @pid with new counters. */
static void set_stat(struct fix *f, int pid, const char *comm, unsigned utime, unsigned stime,
		     unsigned long long start)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d/stat", f->proc, pid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp,
		"%d (%s) S 1 %d %d 0 -1 4194624 1530 0 2 0 %u %u 0 0 20 0 4 0 %llu 92274688 "
		"2560 18446744073709551615 0 0 0 0 0 0 0 4096 134234627 0 0 0 17 1 0 0\n",
		pid, comm, pid, pid, utime, stime, start);
	fclose(fp);
}

/* ticks_share - @ticks of CPU over @secs as hundredths of a percent. */
static int64_t ticks_share(long long ticks, long long secs)
{
	return ticks * 10000 / (sysconf(_SC_CLK_TCK) * secs);
}

static void test_process_figures(void **state)
{
	static const struct {
		enum rule_signal sig;
		enum rule_scope_kind kind;
		const char *what;
		int64_t want;
		pid_t pid;
	} w[] = {
		{ RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PID, "4242", 10240 * 1024, 4242 },
		{ RULE_SIGNAL_PROC_THREADS, RULE_SCOPE_PID, "4242", 4, 4242 },
		{ RULE_SIGNAL_PROC_FDS, RULE_SCOPE_PID, "4242", 4, 4242 },
		{ RULE_SIGNAL_PROC_FDS, RULE_SCOPE_PID, "2", 0, 2 },
		{ RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PID, "2", 0, 2 }, /* a kernel thread */
		/* by name: the highest, and which process it is */
		{ RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PROCESS, "nginx", 20480 * 1024, 4243 },
		{ RULE_SIGNAL_PROC_THREADS, RULE_SCOPE_PROCESS, "nginx", 4, 4242 },
		{ RULE_SIGNAL_PROC_FDS, RULE_SCOPE_PROCESS, "nginx", 4, 4242 },
		{ RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PROCESS, "tricky) (comm", 1024 * 1024, 5150 },
		{ RULE_SIGNAL_PROC_FDS, RULE_SCOPE_PROCESS, "php-fpm: pool www", 5, 6001 },
	};
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		r = rule(w[i].sig, w[i].kind, w[i].what);
		s = signal_source__new(&r, use(f, "v2"));
		expect(f, s, SEC, 0, w[i].want, NULL);
		assert_int_equal(signal_source__pid(s), w[i].pid);
		signal_source__free(s);
	}
}

static void test_process_cpu(void **state)
{
	struct fix *f = *state;
	struct signal_source *pid, *name;
	struct rule r;

	r = rule(RULE_SIGNAL_PROC_CPU, RULE_SCOPE_PID, "4242");
	pid = signal_source__new(&r, use(f, "v2"));
	r = rule(RULE_SIGNAL_PROC_CPU, RULE_SCOPE_PROCESS, "nginx");
	name = signal_source__new(&r, use(f, "v2"));
	expect(f, pid, 1 * SEC, -EAGAIN, 0, "pid 4242: first reading of its CPU ticks");
	expect(f, name, 1 * SEC, -EAGAIN, 0, "process nginx: first reading of its CPU ticks");
	assert_int_equal(signal_source__pid(name), 0);
	set_stat(f, 4242, "nginx", 1230, 320, 123456); /* +50 ticks */
	set_stat(f, 4243, "nginx", 600, 150, 123460);  /* +150 ticks */
	expect(f, pid, 2 * SEC, 0, ticks_share(50, 1), NULL);
	expect(f, name, 2 * SEC, 0, ticks_share(150, 1), NULL);
	assert_int_equal(signal_source__pid(name), 4243);
	/* 4243 exits and its pid is reused: 4242 is the only one with a rate */
	set_stat(f, 4242, "nginx", 1330, 320, 123456); /* +100 in 2s */
	set_stat(f, 4243, "nginx", 0, 0, 999999);
	expect(f, pid, 4 * SEC, 0, ticks_share(100, 2), NULL);
	expect(f, name, 4 * SEC, 0, ticks_share(100, 2), NULL);
	assert_int_equal(signal_source__pid(name), 4242);
	/* 4242's pid is reused too: it starts again; 4243 idled */
	set_stat(f, 4242, "nginx", 1, 0, 555555);
	expect(f, pid, 5 * SEC, -EAGAIN, 0, "first reading");
	expect(f, name, 5 * SEC, 0, 0, NULL);
	assert_int_equal(signal_source__pid(name), 4243);
	set_stat(f, 4242, "nginx", 101, 0, 555555);
	set_stat(f, 4243, "nginx", 25, 25, 999999);
	expect(f, pid, 6 * SEC, 0, ticks_share(100, 1), NULL);
	expect(f, name, 6 * SEC, 0, ticks_share(100, 1), NULL);
	assert_int_equal(signal_source__pid(name), 4242);
	/* no time passed */
	expect(f, pid, 6 * SEC, -EAGAIN, 0, "no time since the last reading");
	/* gone */
	run(f, "rm -rf", "../proc/4242");
	expect(f, pid, 7 * SEC, -ENOENT, 0, "pid 4242: no such process");
	assert_int_equal(signal_source__pid(pid), 0);
	run(f, "rm -rf", "../proc/4243");
	expect(f, name, 7 * SEC, -ENOENT, 0, "process nginx: none running");
	signal_source__free(pid);
	signal_source__free(name);
}

static void test_process_errors(void **state)
{
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	r = rule(RULE_SIGNAL_PROC_THREADS, RULE_SCOPE_PID, "4242");
	s = signal_source__new(&r, use(f, "v2"));
	put(f, "../proc/4242/status", "Name:\tnginx\n");
	expect(f, s, SEC, -EINVAL, 0, "/proc/4242/status: no valid 'Threads:' line");
	signal_source__free(s);
	r = rule(RULE_SIGNAL_PROC_FDS, RULE_SCOPE_PID, "31337");
	once(f, &r, "v2", -ENOENT, 0, "pid 31337: no such process");
	r = rule(RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PROCESS, "nobody");
	once(f, &r, "v2", -ENOENT, 0, "process nobody: none running (no ");
}

static void test_trigger_fd_refusals(void **state)
{
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;

	/* not a custom window, a below rule, not PSI */
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL);
	s = signal_source__new(&r, use(f, "hybrid"));
	assert_int_equal(signal_source__trigger_fd(s, f->err, sizeof(f->err)), -EOPNOTSUPP);
	signal_source__free(s);
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_CUSTOM, RULE_SCOPE_SYSTEM, NULL);
	r.psi_window_ns = 2 * SEC;
	r.threshold = 500;
	r.above = false;
	s = signal_source__new(&r, use(f, "hybrid"));
	assert_int_equal(signal_source__trigger_fd(s, f->err, sizeof(f->err)), -EOPNOTSUPP);
	signal_source__free(s);
	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_CGROUP, "x");
	s = signal_source__new(&r, use(f, "hybrid"));
	assert_int_equal(signal_source__trigger_fd(s, f->err, sizeof(f->err)), -EOPNOTSUPP);
	signal_source__free(s);
	/* a fixture file is no kernel pressure file; a v1-only cgroup has none */
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_CUSTOM, RULE_SCOPE_SYSTEM, NULL);
	r.psi_window_ns = 2 * SEC;
	r.threshold = 500;
	s = signal_source__new(&r, use(f, "hybrid"));
	assert_int_equal(signal_source__trigger_fd(s, f->err, sizeof(f->err)), -EOPNOTSUPP);
	assert_non_null(strstr(f->err, "not a kernel pressure file"));
	signal_source__free(s);
	r.scope.kind = RULE_SCOPE_CGROUP;
	r.scope.cgroup = "legacy";
	s = signal_source__new(&r, use(f, "hybrid"));
	assert_int_equal(signal_source__trigger_fd(s, f->err, sizeof(f->err)), -ENODATA);
	signal_source__free(s);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* the live host: a PSI trigger with the stall worked out from the rule */
static void test_trigger_fd_live(void **state)
{
	const struct signal_env live = SIGNAL_ENV_LIVE;
	struct fix *f = *state;
	struct signal_source *s;
	struct rule r;
	int fd;

	if (access("/proc/pressure/cpu", W_OK)) {
		skip(); /* no PSI, or not root */
		return;
	}
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_CUSTOM, RULE_SCOPE_SYSTEM, NULL);
	r.psi_window_ns = 2 * SEC;
	r.threshold = 500; /* 5% of 2s: 100ms of stall */
	s = signal_source__new(&r, &live);
	fd = signal_source__trigger_fd(s, f->err, sizeof(f->err));
	if (fd < 0)
		fail_msg("%s", f->err);
	assert_int_equal(signal_source__trigger_fd(s, f->err, sizeof(f->err)), fd);
	signal_source__free(s); /* closes it */
	r.psi_window_ns = SEC;
	s = signal_source__new(&r, &live);
	fd = signal_source__trigger_fd(s, f->err, sizeof(f->err));
	if (fd < 0) /* without CAP_SYS_RESOURCE: 2s multiples only */
		assert_non_null(strstr(f->err, "'some 50000 1000000'"));
	signal_source__free(s);
}

/* the live host: only sanity */
static void test_live_host(void **state)
{
	const struct signal_env live = SIGNAL_ENV_LIVE;
	struct signal_source *cpu, *psi, *rss;
	char err[1024], pid[16];
	int64_t v, t;
	struct rule r;
	int ret;

	r = rule(RULE_SIGNAL_CPU, RULE_SCOPE_SYSTEM, NULL);
	cpu = signal_source__new(&r, &live);
	r = psi_rule(RULE_PSI_CPU, false, RULE_PSI_AVG10, RULE_SCOPE_SYSTEM, NULL);
	psi = signal_source__new(&r, &live);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	r = rule(RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PID, pid);
	rss = signal_source__new(&r, &live);
	t = now_ns();
	ret = signal_source__read(cpu, t, &v, err, sizeof(err));
	if (ret == -ENOENT || ret == -ENODATA) {
		skip(); /* no cgroup file system */
		goto cleanup;
	}
	assert_int_equal(ret, -EAGAIN);
	usleep(200000);
	t = now_ns();
	if (signal_source__read(cpu, t, &v, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(v >= 0 && v <= sysconf(_SC_NPROCESSORS_ONLN) * 12000);
	ret = signal_source__read(psi, t, &v, err, sizeof(err));
	assert_true(ret == -ENODATA || (ret == 0 && v >= 0 && v <= 10000));
	assert_int_equal(signal_source__read(rss, t, &v, err, sizeof(err)), 0);
	assert_true(v > 0);
	assert_int_equal(signal_source__pid(rss), getpid());
cleanup:
	signal_source__free(cpu);
	signal_source__free(psi);
	signal_source__free(rss);
}

/* add_proc - a fixture process @pid named @comm, run by @uid, of @rss_kb
 * resident, whose exe link reads @exe and whose cgroup file is @cgroup
 * (a "0::/PATH" line). */
static void add_proc(struct fix *f, int pid, const char *comm, unsigned uid, unsigned rss_kb,
		     const char *exe, const char *cgroup)
{
	char dir[512], path[1200];
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/%d", f->proc, pid);
	snprintf(path, sizeof(path), "mkdir -p '%s/fd' '%s/ns'", dir, dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/comm", dir);
	fp = fopen(path, "w");
	fprintf(fp, "%s\n", comm);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/status", dir);
	fp = fopen(path, "w");
	fprintf(fp, "Name:\t%s\nUid:\t%u\t%u\t%u\t%u\nVmRSS:\t%u kB\nThreads:\t1\n", comm, uid, uid,
		uid, uid, rss_kb);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/cgroup", dir);
	fp = fopen(path, "w");
	fprintf(fp, "%s\n", cgroup);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/exe", dir);
	assert_int_equal(symlink(exe, path), 0);
	snprintf(path, sizeof(path), "%s/ns/mnt", dir);
	assert_int_equal(symlink("mnt:[4026531841]", path), 0);
}

/* pinned_fix - the real postgres (7001, uid 105, its binary, its service's
 * cgroup, 100 MiB) and an impostor any user can start (7002, uid 65534,
 * python renamed postgres, a session scope, 900 MiB: it would win the
 * highest-value pick); both as seen from the v2 layout. */
static void pinned_fix(struct fix *f, char *pg, size_t len)
{
	char py[400], cmd[1024], ns[400];

	use(f, "v2");
	snprintf(pg, len, "%s/bin/postgres", f->root);
	snprintf(py, sizeof(py), "%s/bin/python3.11", f->root);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bin' && echo pg > '%s' && echo py > '%s'", f->root,
		 pg, py);
	assert_int_equal(system(cmd), 0);
	add_proc(f, 7001, "postgres", 105, 100 * 1024, pg, "0::/system.slice/postgresql.service");
	add_proc(f, 7002, "postgres", 65534, 900 * 1024, py,
		 "0::/user.slice/user-65534.slice/session-3.scope");
	/* the fixture's self (4242) is in the same mount namespace */
	snprintf(ns, sizeof(ns), "%s/4242/ns", f->proc);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && ln -sf 'mnt:[4026531841]' '%s/mnt'", ns, ns);
	assert_int_equal(system(cmd), 0);
}

static void expect_pid(struct fix *f, const struct rule *r, int ret, int64_t v, pid_t pid)
{
	struct signal_source *s = signal_source__new(r, &f->env);

	assert_non_null(s);
	expect(f, s, SEC, ret, v, NULL);
	assert_int_equal(signal_source__pid(s), pid);
	signal_source__free(s);
}

/* A user who renames a process after the rule's comm (prctl PR_SET_NAME
 * needs no privilege) takes a rule that trusts the name alone; with any
 * pin the rule sees only the real process. */
static void test_process_pins(void **state)
{
	struct fix *f = *state;
	char pg[400], link[600], cmd[1400];
	struct rule r = rule(RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PROCESS, "postgres");

	pinned_fix(f, pg, sizeof(pg));
	expect_pid(f, &r, 0, 900 << 20, 7002); /* the name alone: the impostor */
	r.pin.user = "postgres";
	r.pin.uid = 105;
	expect_pid(f, &r, 0, 100 << 20, 7001);
	r.pin.user = NULL;
	r.pin.exe = pg;
	expect_pid(f, &r, 0, 100 << 20, 7001);
	r.pin.exe = NULL;
	r.pin.cgroup = "system.slice"; /* the cgroup or below */
	expect_pid(f, &r, 0, 100 << 20, 7001);
	r.pin.cgroup = "system.slice/postgresql.service";
	expect_pid(f, &r, 0, 100 << 20, 7001);
	r.pin.cgroup = "system.slice/postgresql.serv"; /* not a prefix of a name */
	expect_pid(f, &r, -ENOENT, 0, 0);
	/* every pin must hold */
	r.pin.cgroup = "system.slice";
	r.pin.uid = 65534;
	r.pin.user = "nobody";
	expect_pid(f, &r, -ENOENT, 0, 0);
	r.pin.cgroup = NULL;
	r.pin.exe = NULL;
	expect_pid(f, &r, 0, 900 << 20, 7002);
	/* a binary upgraded under the process reads "PATH (deleted)": taken
	 * from our own mount namespace, not from another one */
	r.pin.user = NULL;
	r.pin.exe = pg;
	snprintf(link, sizeof(link), "%s/7001/exe", f->proc);
	snprintf(cmd, sizeof(cmd), "ln -sfn '%s (deleted)' '%s'", pg, link);
	assert_int_equal(system(cmd), 0);
	expect_pid(f, &r, 0, 100 << 20, 7001);
	snprintf(cmd, sizeof(cmd), "ln -sfn 'mnt:[4026532999]' '%s/7001/ns/mnt'", f->proc);
	assert_int_equal(system(cmd), 0);
	expect_pid(f, &r, -ENOENT, 0, 0);
	assert_non_null(strstr(f->err, "with its process_user, process_exe and process_cgroup"));
}

static void test_one_proc_scan_per_tick(void **state)
{
	struct proc_comms *comms = NULL;
	struct fix *f = *state;
	struct signal_source *s[60];
	struct rule r;
	char pg[400];
	int64_t v;
	size_t i;

	pinned_fix(f, pg, sizeof(pg));
	for (i = 0; i < 60; i++) {
		r = rule(i % 3 == 0 ? RULE_SIGNAL_PROC_RSS : RULE_SIGNAL_PROC_FDS,
			 RULE_SCOPE_PROCESS, i % 2 ? "nginx" : "postgres");
		if (i % 4 == 0) {
			r.pin.user = "105";
			r.pin.uid = 105;
		}
		s[i] = signal_source__new(&r, &f->env);
		assert_non_null(s[i]);
	}
	snprintf(opendir_watched, sizeof(opendir_watched), "%s", f->proc);
	opendir_count = 0;
	/* the comm files are kept open for the next tick (proc_comms.h) */
	assert_int_equal(signal_sources__scan(s, 60, f->proc, &comms, f->err, sizeof(f->err)), 0);
	assert_non_null(comms);
	assert_true(proc_comms__kept(comms) > 0);
	assert_int_equal(opendir_count, 1);
	for (i = 0; i < 60; i++) {
		f->err[0] = '\0';
		assert_int_equal(signal_source__read(s[i], SEC, &v, f->err, sizeof(f->err)), 0);
		if (i % 2)
			assert_true(signal_source__pid(s[i]) == 4242 ||
				    signal_source__pid(s[i]) == 4243);
		else if (i % 4 == 0)
			assert_int_equal(signal_source__pid(s[i]), 7001);
		else if (i % 3 == 0)
			assert_int_equal(signal_source__pid(s[i]), 7002); /* the most RSS */
	}
	assert_int_equal(opendir_count, 1); /* 60 rules, one listing of /proc */
	/* the next read without a tick's scan lists /proc itself */
	assert_int_equal(signal_source__read(s[0], 2 * SEC, &v, f->err, sizeof(f->err)), 0);
	assert_int_equal(opendir_count, 2);
	assert_int_equal(signal_source__pid(s[0]), 7001);
	/* the next tick, through the kept files: the same processes */
	assert_int_equal(signal_sources__scan(s, 60, f->proc, &comms, f->err, sizeof(f->err)), 0);
	assert_int_equal(opendir_count, 3);
	assert_int_equal(signal_source__read(s[1], 3 * SEC, &v, f->err, sizeof(f->err)), 0);
	assert_true(signal_source__pid(s[1]) == 4242 || signal_source__pid(s[1]) == 4243);
	assert_int_equal(opendir_count, 3);
	/* a tick at which no process changed: the last scan's pids again,
	 * /proc not listed (the kernel's process events said so) */
	assert_true(signal_sources__follow_names(s, 60));
	assert_int_equal(signal_sources__refeed(s, 60), 0);
	for (i = 0; i < 60; i += 2) {
		assert_int_equal(signal_source__read(s[i], 4 * SEC, &v, f->err, sizeof(f->err)), 0);
		if (i % 4 == 0)
			assert_int_equal(signal_source__pid(s[i]), 7001);
	}
	assert_int_equal(opendir_count, 3);
	opendir_watched[0] = '\0';
	proc_comms__free(comms);
	for (i = 0; i < 60; i++)
		signal_source__free(s[i]);
}

/* A source no shared scan has fed yet (a rule added by a reload) cannot
 * be refed: the tick must scan. Sources that follow no name need none. */
static void test_refeed_needs_a_scan_first(void **state)
{
	struct fix *f = *state;
	struct signal_source *s[2];
	struct rule r;
	char pg[400];

	pinned_fix(f, pg, sizeof(pg));
	r = rule(RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PROCESS, "nginx");
	s[0] = signal_source__new(&r, &f->env);
	r = rule(RULE_SIGNAL_PROC_RSS, RULE_SCOPE_PID, "4242");
	s[1] = signal_source__new(&r, &f->env);
	assert_non_null(s[0]);
	assert_non_null(s[1]);
	assert_false(signal_sources__follow_names(&s[1], 1));
	assert_int_equal(signal_sources__refeed(&s[1], 1), 0);
	assert_int_equal(signal_sources__refeed(s, 2), -EAGAIN);
	assert_int_equal(signal_sources__scan(s, 2, f->proc, NULL, f->err, sizeof(f->err)), 0);
	assert_int_equal(signal_sources__refeed(s, 2), 0);
	signal_source__free(s[0]);
	signal_source__free(s[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cgroup_cpu_on_each_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refeed_needs_a_scan_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_absolute_paths_and_root, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_no_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_rate_restarts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_moves_between_hierarchies, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_quota_read_when_located, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_psi_averages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psi_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_psi_custom_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_process_figures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_process_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_process_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigger_fd_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigger_fd_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_process_pins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_proc_scan_per_tick, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_host, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
