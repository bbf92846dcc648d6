#!/usr/bin/env bash
# Time per file of docorient's tag rewrite and bake against the usual tools, in one run, on the
# same 12-megapixel JPEG (4032x3024, 4:2:0, EXIF orientation 6, XMP, thumbnail).
#   tag:  docorient tag  vs  exiftool -overwrite_original -n -Orientation=N  vs  jhead -norot
#   bake: docorient bake vs  jpegtran -rotate 90 -perfect -copy all
# Usage: Benchmarks/metadata/bench.sh [FILES_PER_TOOL]   (default 20; needs a release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-20}
swift build -c release --product docorient >/dev/null
bin=$(swift build -c release --show-bin-path)/docorient
work=$(mktemp -d /tmp/docorient-bench-meta.XXXXXX)
trap 'rm -rf -- "$work"' EXIT

convert -size 4032x3024 plasma:fractal -seed 7 -sampling-factor 2x2 -quality 90 "$work/base.jpg" 2>/dev/null \
  || convert -size 4032x3024 gradient:red-blue -sampling-factor 2x2 -quality 90 "$work/base.jpg"
convert "$work/base.jpg" -resize 160x120 "$work/thumb.jpg"
exiftool -q -overwrite_original -n -Orientation=6 -XMP-tiff:Orientation=6 "-ThumbnailImage<=$work/thumb.jpg" "$work/base.jpg"
echo "input: $(identify -format '%wx%h' "$work/base.jpg"), $(du -k "$work/base.jpg" | cut -f1) KB, $n files per tool"

copies() { rm -rf "$work/$1"; mkdir "$work/$1"; for i in $(seq 1 "$n"); do cp "$work/base.jpg" "$work/$1/$i.jpg"; done; }
# Runs "$@ FILE" once per file (one process each, as a script would) and prints ms per file.
per_file() {
  local dir=$1; shift
  local start end
  start=$(date +%s%N)
  for f in "$work/$dir"/*.jpg; do "$@" "$f" >/dev/null 2>&1; done
  end=$(date +%s%N)
  echo $(( (end - start) / n / 1000 ))
}
ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

copies tag-docorient;  t_doc=$(per_file tag-docorient "$bin" tag 3)
copies tag-batch
start=$(date +%s%N); "$bin" tag 3 "$work"/tag-batch/*.jpg >/dev/null; end=$(date +%s%N); t_docb=$(( (end - start) / n / 1000 ))
copies tag-exiftool;   t_exif=$(per_file tag-exiftool exiftool -overwrite_original -n -Orientation=3)
copies tag-jhead;      t_jhead=$(per_file tag-jhead jhead -norot)
copies bake-docorient; t_bake=$(per_file bake-docorient "$bin" bake)
copies bake-jpegtran
start=$(date +%s%N)
for f in "$work/bake-jpegtran"/*.jpg; do jpegtran -rotate 90 -perfect -copy all -outfile "$f.out" "$f"; mv "$f.out" "$f"; done
end=$(date +%s%N); t_jt=$(( (end - start) / n / 1000 ))

printf '\n%-44s %10s %14s\n' "operation (one process per file)" "ms/file" "docorient is"
printf '%-44s %10s %14s\n' "docorient tag 3" "$(ms "$t_doc")" ""
printf '%-44s %10s %14s\n' "docorient tag 3 (all files in one process)" "$(ms "$t_docb")" ""
printf '%-44s %10s %14s\n' "exiftool -overwrite_original -Orientation=3" "$(ms "$t_exif")" "$(ratio "$t_exif" "$t_doc")x faster"
printf '%-44s %10s %14s\n' "jhead -norot" "$(ms "$t_jhead")" "$(ratio "$t_jhead" "$t_doc")x faster"
printf '%-44s %10s %14s\n' "docorient bake" "$(ms "$t_bake")" ""
printf '%-44s %10s %14s\n' "jpegtran -rotate 90 -perfect -copy all" "$(ms "$t_jt")" "ratio $(ratio "$t_bake" "$t_jt") (goal <= 1.2)"
