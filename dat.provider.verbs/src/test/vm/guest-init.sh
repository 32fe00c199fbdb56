#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# /init of the soft-RoCE guest that rxe-vm.sh boots (busybox ash, PID 1, no systemd, no udev).
#
# The initramfs is cached across runs, so nothing about a particular run is baked into it: the role and the
# network come on the kernel command line (jdat.role, jdat.net, jdat.ip, jdat.peer), the command and the host's
# output path come through the read-write 9p share, in vm-<role>/ of the output directory. Everything this
# script reports back travels through files in that directory (exit-code, setup-failed, setup.log, cmd.log),
# so the host never has to trust the serial console for a result.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run

arg() {
    # /proc/cmdline is one line of words: split on whitespace on purpose.
    # shellcheck disable=SC2013
    for w in $(cat /proc/cmdline); do
        case $w in jdat.$1=*) echo "${w#*=}" ;; esac
    done
}
ROLE=$(arg role)
DIR=$(arg dir)
NET=$(arg net)
IP4=$(arg ip)
PEER=$(arg peer)
: "${ROLE:=vm}" "${DIR:=vm}" "${NET:=dummy}" "${IP4:=192.0.2.1}"

uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "### [$ROLE $(uptime_s)s] $*"; }

VMDIR=
finish() {
    sync
    umount -a -t 9p 2>/dev/null
    say "power off"
    poweroff -f
}
# A set-up failure is reported to the host in a file of its own: it is not the command's exit status, and the
# host must not mistake it for a JVM crash or a test failure.
setup_failed() {
    say "SET-UP FAILED: $*"
    [ -n "$VMDIR" ] && echo "$*" > "$VMDIR/setup-failed"
    finish
}

say "kernel $(uname -r), role $ROLE, net $NET, ip $IP4${PEER:+, peer $PEER}"

KVER=$(uname -r)
while read -r ko; do
    insmod "/lib/modules/$KVER/$ko" || setup_failed "insmod $ko"
done < /etc/jdat/modules.order

mkdir -p /mnt/out /opt/dat
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 out /mnt/out || setup_failed "mount of the output share"
VMDIR=/mnt/out/$DIR
[ -f "$VMDIR/cmd.sh" ] || setup_failed "no $VMDIR/cmd.sh: the host did not prepare this run"
# Mount the output directory at the host's own path too, so paths the command prints (report locations, hs_err
# files) can be pasted on the host as they are.
OUT=/mnt/out
HOST_OUT=$(cat "$VMDIR/host-out" 2>/dev/null)
if [ -n "$HOST_OUT" ] && mkdir -p "$HOST_OUT" && mount -o bind /mnt/out "$HOST_OUT"; then
    OUT=$HOST_OUT
    VMDIR=$OUT/$DIR
fi
# The image is read-only and nothing changes it during a run: cache=loose lets the guest keep what it read
# instead of one 9p round trip per class file or jimage read (JVM start-up halves under TCG).
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,ro,cache=loose image /opt/dat \
    || setup_failed "mount of the runtime image share"
[ -x /opt/dat/bin/java ] || setup_failed "the runtime image share has no bin/java"

exec 3>"$VMDIR/setup.log"
log() { echo "$*"; echo "$*" >&3; }
run_logged() { log "+ $*"; "$@" > /tmp/out.txt 2>&1; r=$?; cat /tmp/out.txt; cat /tmp/out.txt >&3; return $r; }

hostname "jdat-$ROLE"
printf '127.0.0.1 localhost\n%s jdat-%s\n' "$IP4" "$ROLE" > /etc/hosts

# Debian's busybox-static runs its own applets before anything on PATH, and busybox ip cannot add an address to
# every device type: iproute2 by absolute path.
IP=/usr/bin/ip
$IP link set lo up
case $NET in
    dummy)
        # rxe on lo breaks rdma_cm address resolution; a dummy device keeps traffic in the guest and works.
        $IP link show dummy0 >/dev/null 2>&1 || $IP link add dummy0 type dummy
        DEV=dummy0 ;;
    virtio)
        DEV=
        for n in /sys/class/net/*; do
            [ -e "$n/device" ] && DEV=${n##*/} && break
        done
        [ -n "$DEV" ] || setup_failed "no virtio NIC" ;;
    *)  setup_failed "unknown jdat.net=$NET" ;;
esac
$IP addr add "$IP4/24" dev "$DEV" || setup_failed "ip addr add $IP4/24 dev $DEV"
$IP link set "$DEV" up || setup_failed "ip link set $DEV up"
run_logged rdma link add rxe0 type rxe netdev "$DEV" || setup_failed "rdma link add rxe0 type rxe netdev $DEV"

# rdma_cm resolves 192.0.2.x to the IPv4-mapped GID (::ffff:192.0.2.x, RoCE v2); it appears asynchronously after
# the address is up, and a command started before that sees an IA with no usable address.
GIDS=/sys/class/infiniband/rxe0/ports/1/gids
# shellcheck disable=SC2046,SC2183 # the four octets of the address, split on purpose into printf's four %02x
want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$IP4" | tr . ' '))
i=0
until grep -qx "$want" "$GIDS"/* 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 300 ] && setup_failed "rxe0 has no RoCE v2 GID $want after 30 s"
    sleep 0.1
done
GID_INDEX=$(grep -lx "$want" "$GIDS"/* | head -n 1)
GID_INDEX=${GID_INDEX##*/}
say "rxe0 on $DEV ($IP4), RoCE v2 GID $want at index $GID_INDEX"
run_logged rdma link show
# The table has hundreds of entries and a fork costs milliseconds under TCG: one grep for the ones in use.
grep -vx 0000:0000:0000:0000:0000:0000:0000:0000 "$GIDS"/* | while IFS=: read -r g v; do
    n=${g##*/}
    log "gid[$n] $v $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/"$n" 2>/dev/null)"
done
if command -v ibv_devinfo >/dev/null 2>&1; then
    run_logged ibv_devinfo -d rxe0 || setup_failed "ibv_devinfo cannot open rxe0 (libibverbs or its rxe plugin)"
fi

# OFA's C uDAPL (rxe-vm.sh --dapl): a dat.conf naming rxe0 through libdaplofa (rdma_cm), once by this guest's
# address and once by its netdev, read through DAT_OVERRIDE by libdat2 (and jDAT's udapl provider). A copy goes to
# the guest's directory for the record.
if [ -e /usr/lib/x86_64-linux-gnu/libdat2.so.2 ]; then
    {
        echo "ofa-v2-cma-roe u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"$IP4 0\" \"\""
        echo "ofa-v2-cma-roe-$DEV u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"$DEV 0\" \"\""
    } > /etc/dat.conf
    cp /etc/dat.conf "$VMDIR/dat.conf"
    export DAT_OVERRIDE=/etc/dat.conf
    log "dat.conf (DAT_OVERRIDE=$DAT_OVERRIDE):"
    log "$(cat /etc/dat.conf)"
fi

if [ -n "$PEER" ]; then
    # The other guest may still be booting: wait for it so the command does not start against an empty wire.
    i=0
    until ping -c 1 -W 1 "$PEER" >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -ge 180 ] && break
    done
    if [ $i -ge 180 ]; then log "peer $PEER does not answer ping after 180 tries; running the command anyway"
    else log "peer $PEER answers ping"; fi
fi
exec 3>&-

# busybox ash has ulimit -l and -c and set -o pipefail, which POSIX sh lacks.
# shellcheck disable=SC3045
ulimit -l unlimited
# shellcheck disable=SC3045
ulimit -c 0
export PATH=/opt/dat/bin:$PATH
export DAT_VM_OUT="$OUT" DAT_VM_ROLE="$ROLE" DAT_VM_IP="$IP4" DAT_VM_PEER="$PEER" DAT_VM_GID_INDEX="$GID_INDEX"
# A JVM that crashes leaves its hs_err file where the host looks for it to decide on a retry.
export JDK_JAVA_OPTIONS="-XX:ErrorFile=$VMDIR/hs_err_pid%p.log${JDK_JAVA_OPTIONS:+ $JDK_JAVA_OPTIONS}"
extra=$(cat "$VMDIR/java-options" 2>/dev/null)
[ -n "$extra" ] && JDK_JAVA_OPTIONS="$JDK_JAVA_OPTIONS $extra"

say "command: $(cat "$VMDIR/cmd.sh")"
cd "$OUT" || setup_failed "cd $OUT"
start=$(uptime_s)
# shellcheck disable=SC3040
set -o pipefail
sh "$VMDIR/cmd.sh" < /dev/null 2>&1 | tee "$VMDIR/cmd.log"
rc=$?
# shellcheck disable=SC3040
set +o pipefail
cd /
# What rxe saw (packets, retries, sequence errors) says whether a slow or failed run was the wire's doing.
grep -v '^0$' /sys/class/infiniband/rxe0/ports/1/hw_counters/* 2>/dev/null \
    | sed 's|.*/||' | tr '\n' ' ' > "$VMDIR/rxe-counters.txt"
echo >> "$VMDIR/rxe-counters.txt"
say "rxe0 counters: $(cat "$VMDIR/rxe-counters.txt")"
echo "$rc" > "$VMDIR/exit-code"
say "command exited $rc after $(awk -v a="$start" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s"
finish
