// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_kernel_btf.c - the fields the kernel walk reads, found by trapd's
 * two-pass reader, are where libbpf's full parse of the same BTF puts
 * them (fields inside anonymous unions included); a missing struct or
 * field is named; a truncated or corrupted file is refused, never read
 * out of bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/kernel_btf.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

/* libbpf_offset - @member's byte offset in struct @type, by libbpf,
 * looking into anonymous members as the reader does. */
static long libbpf_offset_in(const struct btf *btf, int id, const char *member)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *mt;
	const struct btf_member *m = btf_members(t);
	long inner;
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		int mid = btf__resolve_type(btf, m->type);

		if (name && *name) {
			if (!strcmp(name, member))
				return btf_member_bit_offset(t, i) / 8;
			continue;
		}
		mt = mid > 0 ? btf__type_by_id(btf, mid) : NULL;
		if (mt && (btf_is_struct(mt) || btf_is_union(mt))) {
			inner = libbpf_offset_in(btf, mid, member);
			if (inner >= 0)
				return btf_member_bit_offset(t, i) / 8 + inner;
		}
	}
	return -1;
}

static void test_fields_agree_with_libbpf(void **state)
{
	struct kernel_btf_field f[] = {
		{ .type = "vm_area_struct", .member = "vm_start" },
		{ .type = "vm_area_struct", .member = "vm_end" },
		{ .type = "vm_area_struct", .member = "vm_pgoff" },
		{ .type = "vm_area_struct", .member = "vm_file" },
		{ .type = "file", .member = "f_inode" },
		{ .type = "inode", .member = "i_ino" },
		{ .type = "inode", .member = "i_sb" },
		{ .type = "super_block", .member = "s_dev" },
		{ .type = "task_struct", .member = "pid" },
	};
	struct btf *btf;
	char err[256] = "";
	size_t i;
	int id;

	(void)state;
	if (access(VMLINUX, R_OK))
		skip();
	assert_int_equal(kernel_btf__fields(f, sizeof(f) / sizeof(f[0]), err, sizeof(err)), 0);
	btf = btf__parse(VMLINUX, NULL);
	assert_non_null(btf);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		id = btf__find_by_name_kind(btf, f[i].type, BTF_KIND_STRUCT);
		assert_true(id > 0);
		assert_int_equal(f[i].offset, libbpf_offset_in(btf, id, f[i].member));
		assert_true(f[i].size == 4 || f[i].size == 8);
	}
	btf__free(btf);
}

static void test_missing_struct_and_field_are_named(void **state)
{
	struct kernel_btf_field nostruct = { .type = "no_such_struct_here", .member = "x" };
	struct kernel_btf_field nofield = { .type = "inode", .member = "no_such_field" };
	char err[256] = "";

	(void)state;
	if (access(VMLINUX, R_OK))
		skip();
	assert_int_equal(kernel_btf__fields(&nostruct, 1, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no struct no_such_struct_here"));
	assert_int_equal(kernel_btf__fields(&nofield, 1, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no field no_such_field"));
}

/* write_file - @len bytes of @data to a new temporary file; its path. */
static const char *write_file(const void *data, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_kernel_btf.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* The kernel's BTF cut short, or with a type count that runs past the
 * file, or not BTF at all: refused with -EINVAL. */
static void test_bad_files_are_refused(void **state)
{
	struct kernel_btf_field f = { .type = "inode", .member = "i_ino" };
	char err[256], *buf;
	const char *path;
	size_t len = 1u << 20, cuts[] = { 10, 24, 4096, 100000 };
	uint32_t huge = 0x7fffffff;
	int fd, i;

	(void)state;
	if (access(VMLINUX, R_OK))
		skip();
	buf = malloc(len);
	assert_non_null(buf);
	fd = open(VMLINUX, O_RDONLY);
	assert_true(fd >= 0);
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, buf + got, len - got);

		assert_true(n > 0);
		got += (size_t)n;
	}
	close(fd);
	for (i = 0; i < 4; i++) {
		path = write_file(buf, cuts[i]);
		assert_int_equal(kernel_btf__fields_from(path, &f, 1, err, sizeof(err)), -EINVAL);
		unlink(path);
	}
	/* the type section's length past the end of the file */
	memcpy(buf + 12, &huge, sizeof(huge));
	path = write_file(buf, len);
	assert_int_equal(kernel_btf__fields_from(path, &f, 1, err, sizeof(err)), -EINVAL);
	unlink(path);
	path = write_file("not btf at all, just text", 25);
	assert_int_equal(kernel_btf__fields_from(path, &f, 1, err, sizeof(err)), -EINVAL);
	unlink(path);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_agree_with_libbpf),
		cmocka_unit_test(test_missing_struct_and_field_are_named),
		cmocka_unit_test(test_bad_files_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
