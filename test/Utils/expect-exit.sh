#!/usr/bin/env bash
# expect-exit.sh N COMMAND...: runs COMMAND and succeeds only when it exits
# with status N (lit's `not` accepts any non-zero status).
expected=$1
shift
"$@"
status=$?
if [ "$status" -ne "$expected" ]; then
  echo "expect-exit: '$*' exited with $status, expected $expected" >&2
  exit 1
fi
