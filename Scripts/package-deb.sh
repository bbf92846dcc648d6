#!/usr/bin/env bash
# Builds docorient's Debian package and checks it with lintian:
#   Scripts/package-deb.sh [OUTDIR]        (default .build-deb; prints the .deb's path last)
# The release binary with the Swift runtime linked in (the tree's own `swift build -c release
# --static-swift-stdlib`, stripped), Depends from dpkg-shlibdeps on that binary plus what it
# dlopen()s (Tesseract) and the language model, the classifier model in /usr/share/docorient and its
# runtime (onnxruntime's C library) in /usr/lib/docorient, a man
# page per command (swift-argument-parser's generate-manual on the binary's own help), bash, zsh and
# fish completion from the binary, a systemd unit for `docorient serve`, and a copyright file
# with every licence shipped (Packaging/copyright.py). The version is the command's own
# (Sources/DocOrientCLI/Version.swift). Needs: Scripts/bootstrap.sh's packages (dpkg-dev, lintian).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build-deb}
umask 022

version=$(sed -n 's/^let docorientVersion = "\([^"]*\)"$/\1/p' Sources/DocOrientCLI/Version.swift)
[ -n "$version" ] || { echo "package-deb: no docorientVersion in Sources/DocOrientCLI/Version.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
# Dates inside the package (man pages, changelog, file times) are the commit's, so two builds of
# one commit give the same files.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
maintainer="docorient maintainers <maintainers@users.noreply.a-seed-fb0ffa54.example>"

echo "package-deb: building docorient $version (release, Swift runtime linked in)" >&2
swift build -c release --static-swift-stdlib --product docorient >&2
bin_dir=$(swift build -c release --static-swift-stdlib --show-bin-path)
bin=$bin_dir/docorient
[ "$("$bin" --version)" = "$version" ] || { echo "package-deb: $bin --version is not $version" >&2; exit 1; }

# generate-manual is swift-argument-parser's own tool (what its GenerateManual plugin runs); built
# from the checkout this package resolved, on its own, so that the plugin's build of every product
# is not needed.
echo "package-deb: building swift-argument-parser's generate-manual" >&2
parser=.build/checkouts/swift-argument-parser
swift build --package-path "$parser" --scratch-path .build-manual --product generate-manual >&2
manual_tool=$(swift build --package-path "$parser" --scratch-path .build-manual --show-bin-path)/generate-manual

rm -rf -- "$out/root" "$out/control"
mkdir -p "$out"
root=$out/root
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/docorient" "$root/usr/share/doc/docorient" \
    "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
    "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" \
    "$root/lib/systemd/system"

# What dh_strip does for an executable: the symbols go, Swift's metadata sections stay.
strip --remove-section=.comment --remove-section=.note -o "$root/usr/bin/docorient" "$bin"
chmod 0755 "$root/usr/bin/docorient"
install -m 0644 Models/orientation/docorient_orientation.onnx "$root/usr/share/docorient/"
# The classifier's runtime, onnxruntime's C library (Models/runtime/README.md), kept private: the
# binary opens it with dlopen from here, and no other package may link it.
python3 Models/runtime/extract.py --check >&2
install -d "$root/usr/lib/docorient"
install -m 0644 Models/runtime/libonnxruntime.so.1 "$root/usr/lib/docorient/"
gzip -9n < Models/runtime/ThirdPartyNotices.txt > "$root/usr/share/doc/docorient/onnxruntime-ThirdPartyNotices.txt.gz"
# paperless-ngx's pre-consume hook (PAPERLESS_PRE_CONSUME_SCRIPT): README, "paperless-ngx and OCRmyPDF".
install -m 0755 Packaging/paperless/docorient-pre-consume "$root/usr/share/docorient/"
# The OCRmyPDF plugin (`ocrmypdf --plugin docorient_ocrmypdf --rotate-pages`), where Debian's own
# ocrmypdf (python3) imports it; one module, no bytecode (python3 writes none where it may not).
# It runs only inside ocrmypdf's python3, so python3 is suggested, not depended on (lintian's
# python-package-missing-depends-on-python counts Suggests).
install -d "$root/usr/lib/python3/dist-packages"
install -m 0644 Packaging/ocrmypdf/docorient_ocrmypdf.py "$root/usr/lib/python3/dist-packages/"

# One page per command, named as git names its commands' pages (docorient-fix(1)): the tool writes
# docorient.fix.1; Packaging/manpage.py renames it and makes the help text's blank lines and
# examples mdoc (see there).
pages=$out/man
rm -rf -- "$pages" && mkdir -p "$pages"
"$manual_tool" "$bin" --multi-page --section 1 --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)" \
    --authors "the docorient authors" --output-directory "$pages" >&2
for page in "$pages"/*.1; do
    name=$(basename "$page" .1)
    python3 Packaging/manpage.py "$page" | gzip -9n > "$root/usr/share/man/man1/${name//./-}.1.gz"
done

# bash-completion sources its files: a #! line would only mislead (lintian: bash-completion-with-hashbang).
"$bin" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/docorient"
"$bin" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_docorient"
"$bin" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/docorient.fish"

install -m 0644 Packaging/docorient.service "$root/lib/systemd/system/docorient.service"

python3 Packaging/copyright.py "$bin_dir/docorient.product/Objects.LinkFileList" .build/checkouts \
    > "$root/usr/share/doc/docorient/copyright"
{
    echo "docorient ($version) unstable; urgency=medium"
    echo
    echo "  * Built from commit $commit of the docorient repository."
    echo
    echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$root/usr/share/doc/docorient/changelog.gz"

# Depends: what the binary links, as dpkg-shlibdeps finds it, and what it loads itself: libtesseract (dlopen, so shlibdeps cannot see it; the soname is
# lazy.c's, the version floor that library's own shlibs entry) and the model Tesseract reads.
mkdir -p "$out/control/debian"
printf 'Source: docorient\n\nPackage: docorient\nArchitecture: any\n' > "$out/control/debian/control"
shlibs=$(cd "$out/control" && dpkg-shlibdeps -O -e"$(realpath "../root/usr/bin/docorient")" \
    -e"$(realpath "../root/usr/lib/docorient/libonnxruntime.so.1")" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
tess_soname=$(grep -o 'libtesseract\.so\.[0-9][0-9]*' Sources/CTesseract/lazy.c | head -1)
tess_package=$(dpkg-query -S "*/$tess_soname" | head -1 | cut -d: -f1)
tess_depends=$(awk -v major="${tess_soname##*.}" '$1 == "libtesseract" && $2 == major { $1 = $2 = ""; sub(/^ +/, ""); print }' \
    "$(dpkg-query --control-path "$tess_package" shlibs)")
[ -n "$tess_depends" ] || { echo "package-deb: no shlibs entry for $tess_soname in $tess_package" >&2; exit 1; }
depends="$shlibs, $tess_depends, tesseract-ocr-eng"

find "$root" -path "$root/DEBIAN" -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
    | (cd "$root" && xargs -0 md5sum) > "$root/DEBIAN/md5sums"
installed_size=$(du -s -k --apparent-size --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<EOF
Package: docorient
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Suggests: python3:any
Enhances: ocrmypdf
Section: graphics
Priority: optional
Description: put photographed documents the right way up
 A phone shooting a receipt lying flat on a table writes an EXIF orientation
 tag taken from how the phone was held a moment earlier, so the tag is often
 wrong. docorient reads the text instead (Tesseract OCR and a small image
 classifier), decides which way is up or says it cannot tell, and then
 rewrites the orientation tag (lossless, instant) or turns the pixels
 (lossless for JPEG). It reads JPEG, PNG, TIFF and HEIF.
 .
 The command fixes files and folders (in parallel, with a journal that
 resumes, reports and undoes a batch); "docorient serve" answers the same
 over HTTP, and a systemd unit for it is included (not enabled). For
 OCRmyPDF, "ocrmypdf --plugin docorient_ocrmypdf --rotate-pages" lets
 docorient decide which way each page is up.
EOF
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb=$out/docorient_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "package-deb: lintian" >&2
lintian --info --display-info --fail-on error,warning "$deb" | tee "$out/lintian.txt" >&2
echo "$deb"
