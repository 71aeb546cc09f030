// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* tiny-python.c - the symbols trapd looks for in a CPython interpreter,
 * and nothing else: seeds of the pyruntime fuzz corpus
 * (make-python-seeds.sh). PY_MINOR picks the version; 3.13 starts
 * _PyRuntime with its debug offsets (the fields trapd reads). */
#ifndef PY_MINOR
#define PY_MINOR 11
#endif
const unsigned long Py_Version = 0x03000000ul | (PY_MINOR << 16) | 0x02f0;
unsigned long long _PyRuntime[64] = {
#if PY_MINOR >= 13
	[0] = 0x7970677562656478ull, /* "xdebugpy" */
	[1] = 0x03000000ul | (PY_MINOR << 16) | 0x02f0,
	[5] = 0x278,  /* interpreters.head */
	[9] = 0x1cb0, /* threads.head */
	[21] = 8,     /* thread state: next */
	[23] = 0x48,  /* current_frame */
	[25] = 0xa0,  /* native_thread_id */
	[29] = 8,     /* frame: previous */
	[30] = 0,     /* executable */
	[31] = 56,    /* instr_ptr */
	[33] = 70,    /* owner */
	[35] = 0x70,  /* code: filename */
	[36] = 0x78,  /* name */
	[37] = 0x80,  /* qualname */
	[38] = 0x88,  /* linetable */
	[39] = 0x44,  /* firstlineno */
	[43] = 0xc8,  /* co_code_adaptive */
#endif
};
unsigned long long PyCode_Type[8], PyUnicode_Type[8], PyBytes_Type[8];

int _PyEval_EvalFrameDefault(void)
{
	return (int)_PyRuntime[1];
}
