/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pyruntime.h - find a CPython interpreter in a mapped file and say how
 * its frames are laid out.
 *
 * From 3.11 on, CPython runs a Python call to a Python function inside the
 * same C frame, so a native stack shows one _PyEval_EvalFrameDefault frame
 * for a whole chain of Python calls; the Python frames are records the
 * interpreter chains from each thread's state (bpf/sampler.h walks them).
 * Where those records and their fields are changes with every minor
 * version. The file says which version it is: it exports Py_Version
 * (PY_VERSION_HEX, 3.11+) and _PyRuntime, the interpreter's global state,
 * which 3.13 and later start with a table of their own offsets
 * (_Py_DebugOffsets, read from the file's initialised data). 3.11 and
 * 3.12 use the layouts below, taken from the interpreters' debug
 * information (the same for every x86-64 build of a minor version without
 * Py_DEBUG or Py_TRACE_REFS, which change the object header).
 *
 * The file is a target's file: every symbol, segment and value is checked,
 * and anything out of place yields "not supported" with a reason.
 */
#ifndef TRAPD_PYRUNTIME_H
#define TRAPD_PYRUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* Offsets in bytes into the interpreter's structures (0xffff: absent). */
struct pyruntime_layout {
	uint16_t interp_head;	/* _PyRuntime.interpreters.head */
	uint16_t threads_head;	/* PyInterpreterState.threads.head */
	uint16_t ts_next;	/* PyThreadState.next */
	uint16_t ts_native_tid; /* PyThreadState.native_thread_id */
	uint16_t ts_frame;	/* PyThreadState.cframe, or .current_frame (3.13+) */
	uint16_t cframe_frame;	/* _PyCFrame.current_frame; 0xffff for 3.13+ */
	uint16_t fr_code;	/* _PyInterpreterFrame.f_code / .f_executable */
	uint16_t fr_previous;
	uint16_t fr_instr; /* .prev_instr / .instr_ptr */
	uint16_t fr_entry; /* .is_entry (3.11); 0xffff: entry frames by .owner */
	uint16_t fr_owner;
	uint16_t co_firstlineno;
	uint16_t co_filename; /* co_name, co_qualname, co_linetable follow, 8 apart */
	uint16_t co_qualname;
	uint16_t co_code; /* co_code_adaptive: the first instruction */
	uint16_t str_state;
	uint16_t str_ascii_data;
	uint16_t str_compact_data;
	uint16_t bytes_data;
};

#define PYRUNTIME_ABSENT 0xffff

/* One interpreter as mapped in one process. Addresses are the process's. */
struct pyruntime {
	uint32_t version; /* PY_VERSION_HEX: 0x030b02f0 is 3.11.2 */
	struct pyruntime_layout layout;
	uint64_t runtime;      /* &_PyRuntime */
	uint64_t code_type;    /* &PyCode_Type */
	uint64_t unicode_type; /* &PyUnicode_Type */
	uint64_t bytes_type;   /* &PyBytes_Type */
	uint64_t eval_start;   /* _PyEval_EvalFrameDefault: its native frames */
	uint64_t eval_end;     /* ... hold the Python frames; 0 if unknown */
	uint64_t probe_bytes;  /* symbol table bytes the probe walked, found or not */
};

/* pyruntime__probe - whether the ELF file open at @fd, mapped with its
 * file offset @pgoff at @start (one of its mappings in the process), is a
 * CPython interpreter trapd can walk. Returns 0 with @out filled,
 * -ENOENT when it is no interpreter (no _PyRuntime), -ENOTSUP when it is
 * one trapd cannot walk (@out->version set when known), another negative
 * errno when the file cannot be read; in the last two cases @why says
 * what (for the sidecar and debug messages). */
int pyruntime__probe(int fd, uint64_t start, uint64_t pgoff, struct pyruntime *out, char *why,
		     size_t whylen);

/* pyruntime__probe_mem - the same for a file image in memory (tests, fuzzing). */
int pyruntime__probe_mem(const void *image, size_t size, uint64_t start, uint64_t pgoff,
			 struct pyruntime *out, char *why, size_t whylen);

/* pyruntime__version - "3.11.2" for @hex, written to @buf. */
const char *pyruntime__version(uint32_t hex, char *buf, size_t len);

#endif
