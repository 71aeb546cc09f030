# extra.mk - workloads that need more than one plain compile, included by
# the Makefile (which provides BUILD, CC, msg).
#
# The symbolizer's test ELF files, all from tests/workloads/symtest/: a
# PIE and a non-PIE executable, a shared library and an executable using
# it, and a stripped copy of the PIE (only .dynsym left; -rdynamic puts its
# functions there). Frame pointers and no inlining keep every function a
# function of its own; the build ID is pinned to sha1 so the tests can
# compare it with readelf's.

SYMTEST_SRC := tests/workloads/symtest
SYMTEST_OUT := $(BUILD)/workloads/symtest
SYMTEST_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wl,--build-id=sha1
STRIP ?= strip

EXTRA_WORKLOADS += $(SYMTEST_OUT)/symtest-pie $(SYMTEST_OUT)/symtest-nopie \
	$(SYMTEST_OUT)/symtest-stripped $(SYMTEST_OUT)/libsymtest.so $(SYMTEST_OUT)/uselib

$(SYMTEST_OUT):
	@mkdir -p $@

$(SYMTEST_OUT)/symtest-pie: $(SYMTEST_SRC)/symtest.c | $(SYMTEST_OUT)
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -fPIE -pie -rdynamic $< -o $@

$(SYMTEST_OUT)/symtest-nopie: $(SYMTEST_SRC)/symtest.c | $(SYMTEST_OUT)
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -fno-pie -no-pie $< -o $@

$(SYMTEST_OUT)/symtest-stripped: $(SYMTEST_OUT)/symtest-pie
	$(call msg,STRIP,$@)$(STRIP) --strip-all $< -o $@

$(SYMTEST_OUT)/libsymtest.so: $(SYMTEST_SRC)/libsymtest.c $(SYMTEST_SRC)/symtest.h | $(SYMTEST_OUT)
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -fPIC -shared $< -o $@

$(SYMTEST_OUT)/uselib: $(SYMTEST_SRC)/uselib.c $(SYMTEST_SRC)/symtest.h $(SYMTEST_OUT)/libsymtest.so
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -fPIE -pie $< -L$(SYMTEST_OUT) -lsymtest \
		-Wl,-rpath,'$$ORIGIN' -o $@
