#!/usr/bin/env bash
# Makes docorient's service image (OCI) from a Debian root that has the package installed, with
# umoci: no daemon, no registry.
#   Scripts/package-image.sh ROOT [OUTDIR]     (default .build-deb)
# ROOT is the root the clean-root test (Tests/Package) installed and tested the .deb in; the test
# calls this script. It writes OUTDIR/oci (an OCI layout, tags VERSION and latest),
# OUTDIR/docorient-image_VERSION.oci.tar (the same as one archive: `podman load -i`,
# `skopeo copy oci-archive:FILE docker://REGISTRY/docorient:VERSION`), OUTDIR/image-config.json
# and OUTDIR/image.txt (sizes, the largest packages). Entrypoint `docorient serve --host 0.0.0.0`,
# as user 65534:65534 (nobody), port 8080, OMP_THREAD_LIMIT=1. OCI images have no HEALTHCHECK:
# docs/service.md's Kubernetes example probes GET /healthz.
set -euo pipefail
root=$(realpath "$1")
cd "$(dirname "$0")/.."
out=${2:-.build-deb}
version=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' docorient)
[ -n "$version" ] || { echo "package-image: docorient is not installed in $root" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)

layout=$out/oci
bundle=$out/image-bundle
rm -rf -- "$layout" "$bundle"
umoci init --layout "$layout"
umoci new --image "$layout:$version"
umoci unpack --image "$layout:$version" "$bundle" >/dev/null
# The root as tested, cut to what the service runs (Packaging/image_files.py: docorient and the
# packages its Depends reach, base-files, the loader's cache and the accounts; no shell, apt,
# dpkg or perl), with dpkg's status cut to the same packages.
admin=$out/image-dpkg  # the image's dpkg status, for image.txt
rm -rf -- "$admin" && mkdir -p "$admin"
python3 Packaging/image_files.py "$root" "$admin/status" \
    | tar -C "$root" --numeric-owner --no-recursion --null -T - -cf - | tar -C "$bundle/rootfs" --numeric-owner -xpf -
install -m 0644 "$admin/status" "$bundle/rootfs/var/lib/dpkg/status"
chmod 1777 "$bundle/rootfs/tmp"
umoci repack --image "$layout:$version" --history.created "$created" \
    --history.created_by "Scripts/package-image.sh: the clean-root test's root with docorient $version" "$bundle"
umoci config --image "$layout:$version" --created "$created" --history.created "$created" \
    --history.created_by "Scripts/package-image.sh: entrypoint, user, port" \
    --config.user 65534:65534 --config.workingdir /tmp \
    --config.env OMP_THREAD_LIMIT=1 --config.env "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --config.entrypoint /usr/bin/docorient --config.entrypoint serve --config.entrypoint=--host \
    --config.entrypoint 0.0.0.0 --config.exposedports 8080/tcp --config.stopsignal SIGTERM \
    --config.label org.opencontainers.image.title=docorient \
    --config.label "org.opencontainers.image.version=$version" \
    --config.label org.opencontainers.image.licenses=Apache-2.0 \
    --config.label "org.opencontainers.image.description=docorient serve: puts photographed documents the right way up, over HTTP"
umoci tag --image "$layout:$version" latest
umoci gc --layout "$layout"
unpacked=$(du -s -x -B1 --apparent-size "$bundle/rootfs" | cut -f1)
rm -rf -- "$bundle"

archive=$out/docorient-image_$version.oci.tar
tar -C "$layout" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner -cf "$archive" .

# The config blob, for the test and for people who read it.
manifest=$(jq -r --arg v "$version" '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $v) | .digest' \
    "$layout/index.json")
config=$(jq -r '.config.digest' "$layout/blobs/sha256/${manifest#sha256:}")
cp "$layout/blobs/sha256/${config#sha256:}" "$out/image-config.json"
layers=$(jq '[.layers[].size] | add' "$layout/blobs/sha256/${manifest#sha256:}")
{
    echo "docorient image $version ($(date -u -d "@$SOURCE_DATE_EPOCH" +%F))"
    awk -v b="$layers" 'BEGIN { printf "compressed layers  %7.1f MB\n", b / 1e6 }'
    awk -v b="$(stat -c %s "$archive")" -v a="$archive" 'BEGIN { printf "archive            %7.1f MB  %s\n", b / 1e6, a }'
    awk -v b="$unpacked" 'BEGIN { printf "unpacked root      %7.1f MB\n", b / 1e6 }'
    echo "packages: $(dpkg-query --admindir="$admin" -W -f='.\n' | wc -l); the largest (installed size, KiB):"
    dpkg-query --admindir="$admin" -W -f='${Installed-Size}\t${Package}\n' | sort -rn | head -15
} > "$out/image.txt"
cat "$out/image.txt"
