#!/usr/bin/env bash
# Batch throughput on one folder, in one run:
#   docorient fix --jobs 1 and --jobs 2 (files/s, the scaling ratio, peak memory),
#   the same files through `tesseract FILE - --psm 0` driven by `xargs -P 2`,
#   and a second, no-work run over 1,000 already-handled files (journal only).
# Usage: Benchmarks/batch/bench.sh MANIFEST_DIR [FILES]   (e.g. /tmp/bench-set 120)
# The folder runs use --dry-run so both job counts do the same work on the same bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."
set_dir=${1:?usage: bench.sh MANIFEST_DIR [FILES]}
n=${2:-120}
swift build -c release --product docorient >/dev/null
bin=$(swift build -c release --show-bin-path)/docorient
work=$(mktemp -d /tmp/docorient-bench-batch.XXXXXX)
trap 'rm -rf -- "$work"' EXIT

mkdir -p "$work/set/a" "$work/set/b"
i=0
for f in $(tail -n +2 "$set_dir/manifest.csv" | cut -d, -f1 | head -n "$n"); do
  cp "$set_dir/$f" "$work/set/$([ $((i % 2)) -eq 0 ] && echo a || echo b)/"
  i=$((i + 1))
done
echo "folder: $i files from $set_dir, $(du -sh "$work/set" | cut -f1)"

now() { date +%s%N; }
run_docorient() {  # jobs -> "seconds maxrss_kb"
  local start end
  start=$(now)
  /usr/bin/time -f "%M" -o "$work/rss" "$bin" fix --dry-run --quiet --jobs "$1" "$work/set" >/dev/null 2>&1 || true
  end=$(now)
  echo "$(( (end - start) / 1000000 )) $(cat "$work/rss")"
}
read -r t1 m1 < <(run_docorient 1)
read -r t2 m2 < <(run_docorient 2)
start=$(now)
find "$work/set" -type f -name '*.*' -print0 | xargs -0 -P 2 -I{} sh -c 'tesseract "$1" - --psm 0 >/dev/null 2>&1 || true' _ {}
end=$(now); tx=$(( (end - start) / 1000000 ))

# No-work rerun: 1,000 small files (the cost measured is the journal check, not OCR), handled once, then timed.
mkdir -p "$work/thousand"
convert -size 120x90 xc:gray70 -attenuate 0.3 +noise Gaussian -quality 85 "$work/small.jpg"
for d in $(seq 1 10); do
  mkdir -p "$work/thousand/$d"
  for k in $(seq 1 100); do cp "$work/small.jpg" "$work/thousand/$d/$k.jpg"; done
done
"$bin" fix --quiet --jobs 2 "$work/thousand" >/dev/null 2>&1 || true
start=$(now); "$bin" fix --quiet --jobs 2 "$work/thousand" >/dev/null 2>&1 || true; end=$(now)
tr=$(( (end - start) / 1000000 ))

fps() { awk -v n="$i" -v ms="$1" 'BEGIN { printf "%.2f", n / (ms / 1000) }'; }
printf '\n%-40s %10s %10s %12s\n' "run" "seconds" "files/s" "peak MB"
printf '%-40s %10.1f %10s %12d\n' "docorient fix --jobs 1" "$(echo "$t1/1000" | bc -l)" "$(fps "$t1")" "$((m1 / 1024))"
printf '%-40s %10.1f %10s %12d\n' "docorient fix --jobs 2" "$(echo "$t2/1000" | bc -l)" "$(fps "$t2")" "$((m2 / 1024))"
printf '%-40s %10.1f %10s %12s\n' "tesseract --psm 0 via xargs -P 2" "$(echo "$tx/1000" | bc -l)" "$(fps "$tx")" "-"
echo
awk -v a="$t1" -v b="$t2" 'BEGIN { printf "scaling jobs 2 / jobs 1: %.2fx (goal >= 1.8x)\n", a / b }'
awk -v a="$tx" -v b="$t2" 'BEGIN { printf "docorient --jobs 2 vs tesseract psm 0 xargs -P 2: %.2fx faster (goal > 1)\n", a / b }'
echo "no-work rerun over 1,000 handled files: $(echo "$tr/1000" | bc -l | cut -c1-5) s (goal < 2 s)"
