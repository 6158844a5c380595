#!/bin/sh
# `pnpm start` builds what changed first. turbo has no option that leaves out its banner and summary
# (--output-logs only chooses the tasks' own output), so all it says is kept back, and shown on stderr
# only when the build fails: a start shows the service's own lines and nothing else.
output=$(turbo run build --filter @plant-store/api... --output-logs=errors-only 2>&1) && exit 0
status=$?
printf '%s\n' "$output" >&2
exit "$status"
