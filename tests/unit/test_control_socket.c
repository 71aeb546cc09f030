// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_control_socket.c - the control socket's file, as an attacker would
 * meet it: loose or foreign directories, a symlink for a directory, a
 * file or symlink planted at the socket's name, and a race swapping the
 * name for a symlink to a root-only file while the daemon starts. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "trapd/daemon/control_socket.h"

#define NOBODY 65534
#define RACE_STARTS 2000

struct sock_dirs {
	char base[64]; /* mkdtemp: 0700 root */
	char dir[96];  /* base/run: the socket's directory */
	char path[128];
	char err[1024];
};

static int dirs_setup(void **state)
{
	static struct sock_dirs d;

	memset(&d, 0, sizeof(d));
	snprintf(d.base, sizeof(d.base), "/tmp/trapd-ctlsock-XXXXXX");
	if (!mkdtemp(d.base))
		return -1;
	snprintf(d.dir, sizeof(d.dir), "%s/run", d.base);
	snprintf(d.path, sizeof(d.path), "%s/ctl.sock", d.dir);
	*state = &d;
	return 0;
}

static int dirs_teardown(void **state)
{
	struct sock_dirs *d = *state;
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->base);
	return system(cmd) == 0 ? 0 : -1;
}

static int open_at(struct sock_dirs *d, struct control_socket *cs, gid_t gid)
{
	return control_socket__open(cs, d->path, gid, d->err, sizeof(d->err));
}

static void test_creates_its_directory_0755_whatever_the_umask(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	struct stat st;
	mode_t old = umask(077);

	assert_int_equal(open_at(d, &cs, (gid_t)-1), 0);
	umask(old);
	assert_int_equal(stat(d->dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(lstat(d->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	control_socket__close(&cs);
	assert_int_equal(lstat(d->path, &st), -1); /* removed at exit */
}

static void test_group_gets_0660(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	struct stat st;

	if (geteuid() != 0)
		skip();
	assert_int_equal(open_at(d, &cs, NOBODY), 0);
	assert_int_equal(lstat(d->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, NOBODY);
	control_socket__close(&cs);
}

static void test_refuses_a_directory_others_can_write(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	static const mode_t loose[] = { 0777, 0775, 0757, 01777 };
	size_t i;

	assert_int_equal(mkdir(d->dir, 0755), 0);
	for (i = 0; i < sizeof(loose) / sizeof(loose[0]); i++) {
		assert_int_equal(chmod(d->dir, loose[i]), 0);
		assert_int_equal(open_at(d, &cs, (gid_t)-1), -EPERM);
		assert_non_null(strstr(d->err, d->dir));
		assert_non_null(strstr(d->err, "writable by no one else"));
		assert_non_null(strstr(d->err, "chmod 0755"));
		assert_int_equal(access(d->path, F_OK), -1);
	}
}

static void test_refuses_a_directory_another_user_owns(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;

	if (geteuid() != 0)
		skip();
	assert_int_equal(mkdir(d->dir, 0755), 0);
	assert_int_equal(chown(d->dir, NOBODY, NOBODY), 0);
	assert_int_equal(open_at(d, &cs, (gid_t)-1), -EPERM);
	assert_non_null(strstr(d->err, "owned by uid 65534"));
	assert_non_null(strstr(d->err, "chown root:root"));
}

static void test_refuses_a_symlink_for_its_directory(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	char real[128];

	snprintf(real, sizeof(real), "%s/real", d->base);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, d->dir), 0);
	assert_int_equal(open_at(d, &cs, (gid_t)-1), -EPERM);
	assert_non_null(strstr(d->err, "symbolic link"));
}

static void test_refuses_a_loose_directory_above(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;

	assert_int_equal(mkdir(d->dir, 0755), 0);
	assert_int_equal(chmod(d->base, 0777), 0); /* others could rename run/ away */
	assert_int_equal(open_at(d, &cs, (gid_t)-1), -EPERM);
	assert_non_null(strstr(d->err, d->base));
	assert_non_null(strstr(d->err, "above it"));
	assert_int_equal(chmod(d->base, 01777), 0); /* sticky, like /tmp: fine */
	assert_int_equal(open_at(d, &cs, (gid_t)-1), 0);
	control_socket__close(&cs);
}

static void test_replaces_a_stale_socket(void **state)
{
	struct sock_dirs *d = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct control_socket cs;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_int_equal(mkdir(d->dir, 0755), 0);
	assert_true(strlen(d->path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, d->path, strlen(d->path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd); /* a daemon that died: the file stays, nobody listens */
	assert_int_equal(open_at(d, &cs, (gid_t)-1), 0);
	control_socket__close(&cs);
}

static void test_never_removes_what_is_not_a_socket(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	struct stat st;
	char target[128];
	int fd;

	assert_int_equal(mkdir(d->dir, 0755), 0);
	fd = open(d->path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(open_at(d, &cs, (gid_t)-1), -EEXIST);
	assert_non_null(strstr(d->err, "is not a socket"));
	assert_int_equal(lstat(d->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	unlink(d->path);
	snprintf(target, sizeof(target), "%s/secret", d->base);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	close(fd);
	assert_int_equal(symlink(target, d->path), 0);
	assert_int_equal(open_at(d, &cs, NOBODY), -EEXIST);
	assert_int_equal(lstat(d->path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_gid, getegid());
}

static void test_close_leaves_a_file_that_replaced_ours(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	struct stat st;
	int fd;

	assert_int_equal(open_at(d, &cs, (gid_t)-1), 0);
	unlink(d->path);
	fd = open(d->path, O_WRONLY | O_CREAT, 0600);
	close(fd);
	control_socket__close(&cs);
	assert_int_equal(lstat(d->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* swapper - swap the socket's name for a symlink to @target as fast as
 * possible, until killed: a root attacker's best try (an unprivileged one
 * cannot write the directory at all, see the tests above). */
static pid_t swapper(const char *path, const char *target)
{
	char tmp[160];
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid)
		return pid;
	snprintf(tmp, sizeof(tmp), "%s.swap", path);
	for (;;) {
		struct stat st;

		/* the moment after bind: where the old daemon chmod'ed by path */
		if (lstat(path, &st) || !S_ISSOCK(st.st_mode))
			continue;
		unlink(tmp);
		if (!symlink(target, tmp))
			rename(tmp, path); /* atomically over the socket */
	}
}

static void test_symlink_race_never_changes_the_target(void **state)
{
	struct sock_dirs *d = *state;
	struct control_socket cs;
	struct stat st;
	char target[128];
	int fd, i, started = 0;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	assert_int_equal(mkdir(d->dir, 0755), 0);
	snprintf(target, sizeof(target), "%s/root-only", d->base);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	close(fd);
	pid = swapper(d->path, target);
	for (i = 0; i < RACE_STARTS; i++) {
		if (open_at(d, &cs, NOBODY) == 0) {
			started++;
			control_socket__close(&cs);
		}
		/* a daemon that fails leaves the name to the next start */
		unlink(d->path);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
	print_message("      %d of %d starts won against the swapper\n", started, RACE_STARTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_creates_its_directory_0755_whatever_the_umask,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_group_gets_0660, dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_refuses_a_directory_others_can_write,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_refuses_a_directory_another_user_owns,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_refuses_a_symlink_for_its_directory,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_refuses_a_loose_directory_above, dirs_setup,
						dirs_teardown),
		cmocka_unit_test_setup_teardown(test_replaces_a_stale_socket, dirs_setup,
						dirs_teardown),
		cmocka_unit_test_setup_teardown(test_never_removes_what_is_not_a_socket, dirs_setup,
						dirs_teardown),
		cmocka_unit_test_setup_teardown(test_close_leaves_a_file_that_replaced_ours,
						dirs_setup, dirs_teardown),
		cmocka_unit_test_setup_teardown(test_symlink_race_never_changes_the_target,
						dirs_setup, dirs_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
