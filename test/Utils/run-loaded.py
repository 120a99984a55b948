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


def spin():
    x = 0
    while True:
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.stderr.write("usage: run-loaded.py -- COMMAND [ARGS...]\n")
        return 2
    count = min(16, 2 * (os.cpu_count() or 1))
    burners = [multiprocessing.Process(target=spin, daemon=True)
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
