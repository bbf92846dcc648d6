#!/usr/bin/env bash
# Runs docorient's libFuzzer targets (address sanitizer on), each for SECONDS, seeded from Corpus/.
#   Scripts/fuzz.sh [SECONDS] [TARGET...]     targets: jpeg tiff png xmp turbojpeg heif pdf (default: all)
# Crashes land in .fuzz/crashes/TARGET/; copy each into Tests/Regressions/TARGET/ (the test suite
# replays every file there through `DocOrientFuzz TARGET FILE`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(jpeg tiff png xmp turbojpeg heif pdf)
scratch=.build-fuzz
swift build --scratch-path "$scratch" --product DocOrientFuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING >/dev/null
bin=$(swift build --scratch-path "$scratch" --show-bin-path)/DocOrientFuzz

seed_dir() {  # target -> a folder of seed inputs
  local t=$1 d=.fuzz/seeds/$1
  rm -rf "$d"; mkdir -p "$d"
  case $t in
    jpeg|turbojpeg) for f in Corpus/samples/*.jpg; do head -c 400000 "$f" > "$d/$(basename "$f")"; done ;;
    png) cp Corpus/samples/*.png "$d/" ;;
    tiff) cp Tests/Regressions/tiff/*.tif "$d/"  # multi-page TIFFs (LZW, G4, JPEG, tiled, untagged) and broken chains
          for f in Corpus/samples/*.jpg; do python3 - "$f" "$d/$(basename "$f").tiff" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
i = data.find(b'Exif\0\0')
if i >= 0:
    open(sys.argv[2], 'wb').write(data[i + 6:i + 6 + 65000])
PY
          done ;;
    heif) # small HEIC files made by libheif: one with a thumbnail (and the sample's EXIF), one a grid
          heif-enc -q 30 -t 32 -o "$d/thumb.heic" Corpus/samples/0003_letter.jpg >/dev/null
          cp Tests/Regressions/heif/*.heic "$d/" ;;
    pdf) # small scanned pages (img2pdf: a JPEG, and grey Flate samples) and the hostile test's files
          python3 - "$d" <<'PY'
import io, sys, img2pdf
from PIL import Image
d = sys.argv[1]
small = Image.open("Corpus/samples/0007_invoice.jpg").convert("L").resize((151, 201))
jpeg, png = io.BytesIO(), io.BytesIO()
small.save(jpeg, format="JPEG", quality=60)
small.save(png, format="PNG")
open(d + "/dct.pdf", "wb").write(img2pdf.convert(jpeg.getvalue()))
open(d + "/flate.pdf", "wb").write(img2pdf.convert(png.getvalue()))
PY
          if [ -d Tests/Regressions/pdf ]; then cp Tests/Regressions/pdf/* "$d/"; fi ;;
    xmp) printf '<x:xmpmeta><rdf:Description tiff:Orientation="6"/></x:xmpmeta>' > "$d/attr"
         printf '<tiff:Orientation>3</tiff:Orientation>' > "$d/element" ;;
  esac
  echo "$d"
}

printf '%-10s %10s %14s %10s %s\n' target seconds executions exec/s result
for t in "${targets[@]}"; do
  seeds=$(seed_dir "$t")
  mkdir -p ".fuzz/corpus/$t" ".fuzz/crashes/$t"
  log=.fuzz/$t.log
  DOCORIENT_FUZZ_TARGET=$t "$bin" ".fuzz/corpus/$t" "$seeds" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -max_len=500000 -timeout=10 -artifact_prefix=".fuzz/crashes/$t/" -print_final_stats=1 >"$log" 2>&1 || true
  runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -ao '[0-9]*$' || echo 0)
  speed=$(grep -ao 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | grep -ao '[0-9]*$' || echo 0)
  crashes=$(find ".fuzz/crashes/$t" -type f | wc -l)
  printf '%-10s %10s %14s %10s %s\n' "$t" "$seconds" "$runs" "$speed" "$([ "$crashes" -eq 0 ] && echo "no crash" || echo "$crashes crash file(s), see $log")"
done
