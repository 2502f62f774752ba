#!/usr/bin/env python3
# swap_on_create.py DIR OTHER NAME READY: what an unprivileged user who may write the
# parent of DIR can do to a tool that checks DIR and then uses it by path. Watches DIR
# (inotify), and the moment a file NAME is created in it, exchanges DIR and OTHER
# atomically (renameat2 RENAME_EXCHANGE): whatever the tool opens by the path DIR/...
# afterwards is OTHER's. Writes READY once the watch is set; prints "swapped" when done.
# Python's os module has neither call: both through libc (ctypes).
import ctypes
import os
import struct
import sys

AT_FDCWD = -100
RENAME_EXCHANGE = 1 << 1
IN_CREATE = 0x100

libc = ctypes.CDLL(None, use_errno=True)


def check(ret, what):
    if ret < 0:
        err = ctypes.get_errno()
        sys.exit(f"swap_on_create: {what}: {os.strerror(err)}")
    return ret


def main():
    d, other, name, ready = (a.encode() for a in sys.argv[1:5])
    fd = check(libc.inotify_init1(0), "inotify_init1")
    check(libc.inotify_add_watch(fd, d, IN_CREATE), "inotify_add_watch")
    with open(ready, "wb"):
        pass
    while True:
        buf = os.read(fd, 4096)
        at = 0
        while at < len(buf):
            _, mask, _, n = struct.unpack_from("iIII", buf, at)
            got = buf[at + 16:at + 16 + n].rstrip(b"\0")
            at += 16 + n
            if mask & IN_CREATE and got == name:
                check(libc.renameat2(AT_FDCWD, d, AT_FDCWD, other, RENAME_EXCHANGE),
                      "renameat2")
                print("swapped", flush=True)
                return


main()
