#!/bin/sh
# Runs a command as if on another router: in network namespace $1, with /sys showing that namespace
# (sysfs shows the namespace of whoever mounts it) and the host's cgroup hierarchies mounted again
# under it, while /run/netns stays shared with the host, so that the namespaces the command makes
# are the host's to see, as a router's own are. `ip netns exec` would remount /sys without the
# cgroups and make /run/netns a slave, which hides the namespaces it makes from the host.
set -eu
ns=$1
shift
cgroups=$(awk '{ for (i = 7; $i != "-"; i++) ; if (($(i+1) == "cgroup" || $(i+1) == "cgroup2") && $5 ~ "^/sys/fs/cgroup/")
    print $(i+1), ($(i+1) == "cgroup" ? $(i+3) : "rw"), $5 }' /proc/self/mountinfo)
exec nsenter --net="/run/netns/$ns" unshare --mount --propagation unchanged sh -eu -c '
mount --make-rprivate /sys
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup
echo "$0" | while read -r type opts dir; do
    [ -n "$type" ] || continue
    mkdir -p "$dir"
    mount -t "$type" -o "$opts" "$type" "$dir"
done
exec "$@"' "$cgroups" "$@"
