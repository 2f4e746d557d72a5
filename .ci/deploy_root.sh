# The deploy lane's machine (run by .ci/deploy-lane inside fresh namespaces): the host's root
# through an overlay on a tmpfs, its own /proc, /dev, /run and /tmp, /sys and /proc/sys
# read-only, WORK shared at IN and the checkout REPO read-only at its own path (it may lie under
# /tmp, which is fresh here); then systemd as PID 1 with only deploy-lane.target (no timers).
# usage: deploy_root.sh DIR WORK IN REPO
set -euo pipefail
R=$1 WORK=$2 IN=$3 REPO=$4
mount -t tmpfs ct-lane "$R"
mkdir -p "$R/up" "$R/wk" "$R/root"
mount -t overlay ct-lane -o lowerdir=/,upperdir="$R/up",workdir="$R/wk" "$R/root"
N=$R/root
mount -t proc proc "$N/proc"
mount --bind "$N/proc/sys" "$N/proc/sys"
mount -o remount,bind,ro "$N/proc/sys"
mount -t sysfs -o ro sysfs "$N/sys"
mount -t cgroup2 cgroup2 "$N/sys/fs/cgroup"           # this lane's own cgroup, as the root
mount -t tmpfs -o mode=755 ct-lane-dev "$N/dev"
for d in null zero full random urandom tty; do touch "$N/dev/$d"; mount --bind "/dev/$d" "$N/dev/$d"; done
mkdir -p "$N/dev/pts" "$N/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$N/dev/pts"
ln -s pts/ptmx "$N/dev/ptmx"
mount -t tmpfs ct-lane-shm "$N/dev/shm"
mount -t tmpfs ct-lane-run "$N/run"
mount -t tmpfs ct-lane-tmp "$N/tmp"
mkdir -p "$N$IN" "$N$REPO"
mount --bind "$WORK" "$N$IN"
mount --bind "$REPO" "$N$REPO"
mount -o remount,bind,ro "$N$REPO"
mkdir -p "$N/etc/systemd/system"
printf '[Unit]\nDescription=deploy lane\nWants=systemd-journald.service\n' >"$N/etc/systemd/system/deploy-lane.target"
ln -sf /dev/null "$N/etc/systemd/system/timers.target"
cd "$N"
mkdir -p .old
pivot_root . .old
umount -l /.old
rmdir /.old
ip link set lo up
exec env -i container=ct-deploy-lane PATH=/usr/sbin:/usr/bin:/sbin:/bin /lib/systemd/systemd --system --unit=deploy-lane.target
