// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_proc_events.c - the kernel's process events as "did anything
 * change" (rules/proc_events.h): which events count (a new process, not a
 * thread; exec; a leader's rename or exit; id changes), malformed
 * datagrams count as nothing, several messages in one datagram, and, as
 * root, the real connector: a fork and exit of a child is seen, a quiet
 * socket is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/proc_events.h"

struct datagram {
	struct nlmsghdr nh;
	struct cn_msg cn;
	struct proc_event ev;
} __attribute__((packed));

static struct datagram event(enum what what)
{
	struct datagram d;

	memset(&d, 0, sizeof(d));
	d.nh.nlmsg_len = sizeof(d);
	d.nh.nlmsg_type = NLMSG_DONE;
	d.cn.id.idx = CN_IDX_PROC;
	d.cn.id.val = CN_VAL_PROC;
	d.cn.len = sizeof(d.ev);
	d.ev.what = what;
	return d;
}

static void test_what_counts(void **state)
{
	struct datagram d = event(PROC_EVENT_FORK);

	d.ev.event_data.fork.child_pid = d.ev.event_data.fork.child_tgid = 42;
	assert_true(proc_events_parse(&d, sizeof(d))); /* a new process */
	d.ev.event_data.fork.child_pid = 43;
	assert_false(proc_events_parse(&d, sizeof(d))); /* a new thread of 42 */
	d = event(PROC_EVENT_EXEC);
	assert_true(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_UID);
	assert_true(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_COMM);
	d.ev.event_data.comm.process_pid = d.ev.event_data.comm.process_tgid = 7;
	assert_true(proc_events_parse(&d, sizeof(d)));
	d.ev.event_data.comm.process_pid = 8; /* a thread renamed: comm is its leader's */
	assert_false(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_EXIT);
	d.ev.event_data.exit.process_pid = d.ev.event_data.exit.process_tgid = 9;
	assert_true(proc_events_parse(&d, sizeof(d)));
	d.ev.event_data.exit.process_pid = 10;
	assert_false(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_SID);
	assert_false(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_NONE); /* the answer to the listen request */
	assert_false(proc_events_parse(&d, sizeof(d)));
}

static void test_malformed_counts_as_nothing(void **state)
{
	struct datagram d = event(PROC_EVENT_EXEC);

	assert_false(proc_events_parse(&d, sizeof(d.nh) - 1)); /* cut header */
	d.nh.nlmsg_len = sizeof(d) + 1;			       /* longer than what came */
	assert_false(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_EXEC);
	d.cn.id.idx = CN_IDX_PROC + 1; /* another connector */
	assert_false(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_EXEC);
	d.cn.len = sizeof(d.ev) + 100; /* data longer than the message */
	assert_false(proc_events_parse(&d, sizeof(d)));
	d = event(PROC_EVENT_EXEC);
	d.nh.nlmsg_type = NLMSG_ERROR;
	assert_false(proc_events_parse(&d, sizeof(d)));
	d.nh.nlmsg_len = 0; /* would loop for ever */
	assert_false(proc_events_parse(&d, sizeof(d)));
}

static void test_several_messages_in_a_datagram(void **state)
{
	struct datagram two[2] = { event(PROC_EVENT_SID), event(PROC_EVENT_EXEC) };

	assert_int_equal(sizeof(two[0]) % NLMSG_ALIGNTO, 0);
	assert_true(proc_events_parse(two, sizeof(two)));
	two[1] = event(PROC_EVENT_SID);
	assert_false(proc_events_parse(two, sizeof(two)));
}

/* The real connector (root): a child's fork and exit are seen, and after
 * they were read, nothing more. */
static void test_real_connector_sees_a_child(void **state)
{
	struct proc_events *e = NULL;
	pid_t pid;
	int ret = proc_events__open(&e);

	if (ret) {
		if (geteuid() != 0 || ret == -EPROTONOSUPPORT)
			skip();
		fail_msg("proc_events__open: %d", ret);
	}
	proc_events__changed(e); /* what came before */
	pid = fork();
	if (!pid)
		_exit(0);
	assert_true(pid > 0);
	waitpid(pid, NULL, 0);
	usleep(10000);
	assert_true(proc_events__changed(e));
	proc_events__close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_what_counts),
		cmocka_unit_test(test_malformed_counts_as_nothing),
		cmocka_unit_test(test_several_messages_in_a_datagram),
		cmocka_unit_test(test_real_connector_sees_a_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
