/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* symtest.h - what the symbolizer's test programs print about themselves. */
#ifndef SYMTEST_H
#define SYMTEST_H

/* lib_hot_function - a function of libsymtest.so; returns a checksum. */
unsigned long lib_hot_function(unsigned long n);

#endif
