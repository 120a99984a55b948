#!/usr/bin/env python3
"""Runs a command while the machine is loaded: starts busy processes (two per
CPU, at most 16) that spin until the command ends, so that anything in the
command that depends on wall-clock time sees a slower machine. Passes the
command's output and exit status through.

usage: run-loaded.py -- COMMAND [ARGS...]
"""
import multiprocessing
import os
import subprocess
import sys
import time


def spin(parent, lifetime):
    # Quiet, and never outliving the command: a burner stops when its parent
    # is gone (say lit killed it on a timeout) or after `lifetime` seconds.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    end = time.monotonic() + lifetime
    x = 0
    while os.getppid() == parent and time.monotonic() < end:
        for _ in range(100000):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.stderr.write("usage: run-loaded.py -- COMMAND [ARGS...]\n")
        return 2
    count = min(16, 2 * (os.cpu_count() or 1))
    burners = [multiprocessing.Process(target=spin, args=(os.getpid(), 300),
                                       daemon=True)
               for _ in range(count)]
    for b in burners:
        b.start()
    try:
        return subprocess.call(args)
    finally:
        for b in burners:
            b.terminate()
        for b in burners:
            b.join()


if __name__ == "__main__":
    sys.exit(main())
