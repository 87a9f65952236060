#!/usr/bin/env bash
# Builds the local base image vrouter/base:bookworm (Debian bookworm, minbase, with a Java 17 runtime
# and Tomcat 10.1) from Debian's packages with debootstrap, since no image registry is reachable.
# Does nothing when the image exists already. Needs root, debootstrap and a running Docker engine.
set -euo pipefail
image=${1:-vrouter/base:bookworm}
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "$image exists"
  exit 0
fi
# The mirror apt already uses on this machine, else Debian's.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /tmp/vrouter-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
# A download the mirror drops fails debootstrap as a whole: try again from scratch, three times at most.
for attempt in 1 2 3; do
  debootstrap --variant=minbase \
    --include=openjdk-17-jre-headless,tomcat10,ca-certificates \
    bookworm "$root" "$mirror" >/tmp/vrouter-debootstrap.log 2>&1 && break
  [ "$attempt" -lt 3 ] || { tail -n 30 /tmp/vrouter-debootstrap.log >&2; exit 1; }
  echo "debootstrap failed (attempt $attempt), trying again" >&2
  rm -rf "$root" && mkdir -p "$root"
done
# Leave out what an image does not need: package lists and caches, docs, man pages.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/*
tar -C "$root" -c . | docker import \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  - "$image"
echo "built $image"
