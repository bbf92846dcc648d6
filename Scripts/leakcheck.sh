#!/usr/bin/env bash
# Resident memory while one process resolves N files (default 1,000: copies of the committed
# samples): it must stay flat, not grow with the number of files.
#   Scripts/leakcheck.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
swift build -c release --product docorient >/dev/null
bin=$(swift build -c release --show-bin-path)/docorient
work=$(mktemp -d /tmp/docorient-leak.XXXXXX)
trap 'rm -rf -- "$work"' EXIT
samples=(Corpus/samples/*.jpg Corpus/samples/*.png)
for i in $(seq 1 "$n"); do
  s=${samples[$(( (i - 1) % ${#samples[@]} ))]}
  d="$work/$(( i / 100 ))"; mkdir -p "$d"; cp "$s" "$d/$i.${s##*.}"
done
"$bin" fix --dry-run --json --jobs 2 "$work" > "$work/out.jsonl" 2>/dev/null &
pid=$!
echo "files_done  rss_mb"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && printf '%10d  %6d\n' "$(wc -l < "$work/out.jsonl")" "$rss"
  sleep 5
done
wait "$pid" || true
echo "resolved $(wc -l < "$work/out.jsonl") files"
