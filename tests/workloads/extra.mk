# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
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

# Two builds of spin.c, alike but for the name of the function that spins
# (spin_alpha_hot, spin_beta_hot), for the integration tests that put a
# binary where only its process can see it. The Makefile's integration
# target builds only the plain workloads, so these are added to it here.
SPIN_BINS := $(SYMTEST_OUT)/spin-alpha $(SYMTEST_OUT)/spin-beta
EXTRA_WORKLOADS += $(SPIN_BINS)

integration: $(SPIN_BINS)

$(SYMTEST_OUT)/spin-%: $(SYMTEST_SRC)/spin.c | $(SYMTEST_OUT)
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -DHOT_NAME=spin_$*_hot $< -o $@

# Stripped builds of spin.c with their symbols in separate debug files,
# as distributions ship them: spin-gamma has a build ID, its debug file is
# found in a .build-id tree; spin-delta has none, only a .gnu_debuglink
# naming spin-delta.debug (checked by CRC). Neither exports its functions
# (no -rdynamic), so without the debug file the hot function is unnamed.
DEBUG_BINS := $(SYMTEST_OUT)/spin-gamma $(SYMTEST_OUT)/spin-gamma.debug \
	$(SYMTEST_OUT)/spin-delta $(SYMTEST_OUT)/spin-delta.debug
EXTRA_WORKLOADS += $(DEBUG_BINS)
OBJCOPY ?= objcopy

integration: $(DEBUG_BINS)

$(SYMTEST_OUT)/spin-gamma.full: $(SYMTEST_SRC)/spin.c | $(SYMTEST_OUT)
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -DHOT_NAME=spin_gamma_hot $< -o $@

$(SYMTEST_OUT)/spin-delta.full: $(SYMTEST_SRC)/spin.c | $(SYMTEST_OUT)
	$(call msg,WORK,$@)$(CC) $(SYMTEST_CFLAGS) -Wl,--build-id=none \
		-DHOT_NAME=spin_delta_hot $< -o $@

$(SYMTEST_OUT)/spin-%.debug: $(SYMTEST_OUT)/spin-%.full
	$(call msg,OBJCOPY,$@)$(OBJCOPY) --only-keep-debug $< $@

$(SYMTEST_OUT)/spin-gamma: $(SYMTEST_OUT)/spin-gamma.full
	$(call msg,STRIP,$@)$(STRIP) --strip-all $< -o $@

$(SYMTEST_OUT)/spin-delta: $(SYMTEST_OUT)/spin-delta.full $(SYMTEST_OUT)/spin-delta.debug
	$(call msg,STRIP,$@)$(STRIP) --strip-all $< -o $@ && \
		cd $(SYMTEST_OUT) && $(OBJCOPY) --add-gnu-debuglink=spin-delta.debug spin-delta

# Code built as distributions build it: -O2, no frame pointers (the DWARF
# unwinding tests), and a stripped copy whose symbols are in a debug file
# found by build ID.
NOFP_SRC := tests/workloads/nofp
NOFP_OUT := $(BUILD)/workloads/nofp
EXTRA_WORKLOADS += $(NOFP_OUT)/chain

$(NOFP_OUT):
	@mkdir -p $@

$(NOFP_OUT)/chain: $(NOFP_SRC)/chain.c | $(NOFP_OUT)
	$(call msg,WORK,$@)$(CC) -O2 -g -fomit-frame-pointer -pthread -Wall $< -o $@

# A stack of a chosen depth (the unwinding benchmarks, deep walks).
EXTRA_WORKLOADS += $(NOFP_OUT)/deep

$(NOFP_OUT)/deep: $(NOFP_SRC)/deep.c | $(NOFP_OUT)
	$(call msg,WORK,$@)$(CC) -O2 -g -fomit-frame-pointer -Wall $< -o $@

# Hot code in a function inlined into its caller (the inline frames).
EXTRA_WORKLOADS += $(NOFP_OUT)/inl

$(NOFP_OUT)/inl: $(NOFP_SRC)/inl.c | $(NOFP_OUT)
	$(call msg,WORK,$@)$(CC) -O2 -g -fomit-frame-pointer -Wall $< -o $@

# A program that looks like a CPython interpreter to trapd's probe (a
# _PyRuntime, no Py_Version) and holds 2,000,000 absolute symbols for it
# to walk, each defined by a linker script: the flight recorder's
# fork-storm attack (test_daemon_recorder_outlives_a_python_lookalike).
LOOKALIKE := $(SYMTEST_OUT)/pylookalike
EXTRA_WORKLOADS += $(LOOKALIKE)

integration: $(LOOKALIKE)

$(SYMTEST_OUT)/pylookalike.ld: | $(SYMTEST_OUT)
	$(call msg,GEN,$@)awk 'BEGIN { for (i = 0; i < 2000000; i++) \
		printf "pylookalike_%07d = 0x%x;\n", i, 4096 + i }' >$@

$(LOOKALIKE): $(SYMTEST_SRC)/pylookalike.c $(SYMTEST_OUT)/pylookalike.ld
	$(call msg,WORK,$@)$(CC) -O1 -Wall $< $(SYMTEST_OUT)/pylookalike.ld -o $@
