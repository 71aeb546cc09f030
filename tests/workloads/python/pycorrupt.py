# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pycorrupt.py SECONDS - a Python 3.11 process that corrupts its own
# interpreter state, as a hostile or broken target would: one thread
# points its running frame's link to the caller at unmapped memory and
# spins in it, another runs a function whose code object's qualified name
# now points at an int. trapd must name neither wrongly, count both, and
# keep sampling the main thread's healthy frames. Ends with os._exit: the
# interpreter could not finalize what was broken.
import ctypes
import os
import sys
import threading
import time

assert sys.version_info[:2] == (3, 11), "the offsets below are 3.11's"
PTR = ctypes.c_void_p


def broken_link_loop(end, ready):
    # PyFrameObject.f_frame (at 24) -> _PyInterpreterFrame.previous (at 48)
    iframe = PTR.from_address(id(sys._getframe()) + 24).value
    PTR.from_address(iframe + 48).value = 0xDEAD0000
    ready.set()
    while time.monotonic() < end:
        pass


def misnamed_loop(end):
    while time.monotonic() < end:
        sum(range(1000))


def healthy_leaf(n):
    s = 0
    for i in range(n):
        s += i
    return s


def healthy_caller(n):
    return healthy_leaf(n)


def main():
    end = time.monotonic() + float(sys.argv[1])
    # co_qualname (at 128) of misnamed_loop's code object -> an int
    PTR.from_address(id(misnamed_loop.__code__) + 128).value = id(12345)
    ready = threading.Event()
    threading.Thread(target=broken_link_loop, args=(end, ready), daemon=True).start()
    threading.Thread(target=misnamed_loop, args=(end,), daemon=True).start()
    ready.wait()
    while time.monotonic() < end:
        healthy_caller(20000)
    sys.stdout.flush()
    os._exit(0)


main()
