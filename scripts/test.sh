#!/usr/bin/env bash
# The whole test suite: build memplan, check formatting, run `ninja check`
# (lit regression tests + GoogleTest unit tests), then print one line
#   N passed, N failed, N skipped
# counted from lit's results (unsupported tests count as skipped).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

status=0
fmt_failed=0
if command -v clang-format >/dev/null; then
  files=$(cd "$ROOT" && git ls-files '*.cpp' '*.h' 2>/dev/null)
  if [ -n "$files" ]; then
    bad=$(cd "$ROOT" && for f in $files; do
      clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
    if [ -n "$bad" ]; then
      echo "clang-format: these files need 'clang-format -i':" $bad
      fmt_failed=1
      status=1
    fi
  fi
fi

LOG="$ROOT/build/check.log"
ninja -C "$ROOT/build" check 2>&1 | tee "$LOG"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

python3 - "$LOG" "$fmt_failed" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
counts = {}
for name, n in re.findall(r"^\s+(Passed|Failed|Unsupported|Skipped|Excluded|Expectedly Failed|Unexpectedly Passed|Unresolved|Timed Out)\s*:\s*(\d+)", text, re.M):
    counts[name] = counts.get(name, 0) + int(n)
passed = counts.get("Passed", 0) + counts.get("Expectedly Failed", 0)
failed = (counts.get("Failed", 0) + counts.get("Unexpectedly Passed", 0)
          + counts.get("Unresolved", 0) + counts.get("Timed Out", 0) + int(sys.argv[2]))
skipped = counts.get("Unsupported", 0) + counts.get("Skipped", 0) + counts.get("Excluded", 0)
if not counts:
    failed += 1  # lit did not run: never report an empty success
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
