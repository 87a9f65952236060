#!/usr/bin/env bash
# Builds vrouter's router appliance from Debian packages only: the kernel of linux-image-cloud-amd64
# (fetched with apt-get download, not installed on this host) and an initramfs of busybox-static,
# BIRD 2 (bird2, with the libraries it links) and the few kernel modules a QEMU guest needs. Its
# init (appliance/rc) reads the day-0 data from the kernel command line, names and addresses the
# interfaces, turns forwarding on and, for the bird template, starts BIRD with OSPF on every interface.
#
#   vr-libvirt-driver/appliance/build.sh [IMAGE_DIR]     (default /var/lib/vrouter/images)
#
# writes IMAGE_DIR/bird/{vmlinuz,initrd.img,disk.qcow2} and IMAGE_DIR/kernel/ (the same appliance, no routing
# daemon): the driver's templates. Needs root only to read what dpkg installed; run it again to rebuild.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-/var/lib/vrouter/images}"
work="${TMPDIR:-/tmp}/vrouter-appliance-build"

for cmd in busybox bird birdc depmod cpio apt-get dpkg-deb qemu-img; do
  command -v "$cmd" >/dev/null || { echo "build.sh: needs $cmd (busybox-static, bird2, kmod, cpio, apt, qemu-utils)" >&2; exit 1; }
done
busybox_bin="$(command -v busybox)"
file -b "$busybox_bin" 2>/dev/null | grep -q 'statically linked' || [ -x /bin/busybox ] \
  || { echo "build.sh: needs busybox-static" >&2; exit 1; }

# The kernel package that linux-image-cloud-amd64 currently depends on, fetched once into the work dir.
kpkg="$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')"
[ -n "$kpkg" ] || { echo "build.sh: apt knows no linux-image-cloud-amd64 (run apt-get update)" >&2; exit 1; }
mkdir -p "$work/deb"
if ! ls "$work/deb/${kpkg}_"*.deb >/dev/null 2>&1; then
  (cd "$work/deb" && apt-get -o Acquire::Retries=5 download -qq "$kpkg")
fi
rm -rf "$work/kernel" "$work/root"
dpkg-deb -x "$work/deb/${kpkg}_"*.deb "$work/kernel"
kver="${kpkg#linux-image-}"
vmlinuz="$work/kernel/boot/vmlinuz-$kver"

root="$work/root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,run,tmp,var/run,lib/modules/"$kver",etc/acpi/PWRF}
cp "$busybox_bin" "$root/bin/busybox"
ln -s bin/busybox "$root/init"            # the kernel runs /init: busybox's init, which reads /etc/inittab
ln -s busybox "$root/bin/sh"

# The modules a QEMU guest needs that the cloud kernel builds as modules: virtio PCI, NICs and disks, the
# balloon, and the ACPI power button (with evdev, for busybox's acpid).
mods="virtio_pci virtio_net virtio_blk virtio_balloon button evdev"
kmods="$work/kernel/lib/modules/$kver"
depmod -b "$work/kernel" "$kver"   # the package ships no modules.dep: dpkg's hooks make it on a real install
for m in $mods; do
  for dep in $(modprobe -d "$work/kernel" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'); do
    rel="${dep#"$kmods"/}"
    mkdir -p "$root/lib/modules/$kver/$(dirname "$rel")"
    cp "$dep" "$root/lib/modules/$kver/$rel"
  done
done
cp "$kmods"/modules.order "$kmods"/modules.builtin "$kmods"/modules.builtin.modinfo "$root/lib/modules/$kver/"
depmod -b "$root" "$kver"

# BIRD 2 and birdc with every library they link, at the same paths.
for bin in "$(command -v bird)" "$(command -v birdc)"; do
  install -D "$bin" "$root/sbin/$(basename "$bin")"
  for lib in $(ldd "$bin" | awk '/=> \// {print $3} /^[[:space:]]*\// {print $1}'); do
    [ -e "$root$lib" ] || install -D "$lib" "$root$lib"
  done
done

install -m 0755 "$here/rc" "$root/etc/rc"
printf '%s\n' '::sysinit:/etc/rc' 'ttyS0::respawn:-/bin/sh' '::shutdown:/etc/rc stop' > "$root/etc/inittab"
# busybox acpid runs ./PWRF/00000080 (relative to /etc/acpi) on the power button: the guest powers off.
printf 'PWRF PWRF/00000080\n' > "$root/etc/acpid.conf"
printf '#!/bin/sh\nexec poweroff\n' > "$root/etc/acpi/PWRF/00000080"
chmod 0755 "$root/etc/acpi/PWRF/00000080"
printf 'root:x:0:0:root:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"

mkdir -p "$out/bird" "$out/kernel"
(cd "$root" && find . | sort | cpio -o -H newc --quiet -R 0:0 | gzip -9) > "$out/bird/initrd.img.tmp"
mv "$out/bird/initrd.img.tmp" "$out/bird/initrd.img"
cp "$vmlinuz" "$out/bird/vmlinuz.tmp" && mv "$out/bird/vmlinuz.tmp" "$out/bird/vmlinuz"
# The kernel template: the same appliance; the driver's command line says which template it boots as.
# The templates' disk image, empty: each VR's disk is a qcow2 overlay on it that the driver makes. Made
# once, never again: rewriting it under the overlays of existing VRs would corrupt them.
[ -e "$out/bird/disk.qcow2" ] || qemu-img create -q -f qcow2 "$out/bird/disk.qcow2" 1G
for f in vmlinuz initrd.img disk.qcow2; do ln -sfn ../bird/$f "$out/kernel/$f"; done
echo "appliance ($kpkg, $(du -h "$out/bird/initrd.img" | cut -f1) initramfs) in $out/bird and $out/kernel"
