#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# jDAT's verbs provider beside perftest (C) between the two soft-RoCE guests: one-way latency of send and RDMA write.
#
#   bench/verbs-guests.sh [--single] [--out DIR] [--image DIR] [--sizes "8 64 1024 4096"] [--iters N]
#                         [--conn-qual N] [--timeout SECONDS] [--report-only] [-- RXE_VM_OPTIONS...]
#
# Boots the guest pair of dat.provider.verbs/src/test/vm/rxe-vm.sh once (a is 192.0.2.1, b 192.0.2.2, rxe0 on
# each) and runs in it, server on a and client on b:
#   perftest   ib_send_lat and ib_write_lat, one run per size: -d rxe0 -x $DAT_VM_GID_INDEX (the IPv4-mapped
#              RoCE v2 GID of the guest's address), -n ITERS, -F; connection data over TCP (perftest's default)
#   jDAT       dat perf pingpong --provider verbs --op send, then --op write, --iters ITERS (warm-up 10%), each
#              against a dat perf serve on a (--conn-qual N, then N+1)
# With --single, one guest runs both ends, server and client as two processes on rxe0 and the client connecting to
# the guest's own address: rxe then hands each packet to itself without the emulated wire, whose retransmissions
# (see the test bed's known facts) weigh on every round trip of the pair.
# Either way it writes DIR/results.md: per op and size, perftest's t_typical (its median) and t_avg, dat perf's p50 and
# mean (usec/xfer), all one-way latencies in microseconds (RTT/2), the ratios jDAT/C and whether both meet the
# goal, within 1.2x of C; then each guest's rxe0 counters (retransmissions weigh on every round trip under TCG).
#
# Options:
#   --single         one guest, both ends in it (see above), instead of the pair
#   --out DIR        output directory (target/verbs-guests); cleared first. Raw outputs in DIR/perftest/ and
#                    DIR/dat/, the guests' logs in DIR/vm-a/ and DIR/vm-b/, the load average in DIR/load.txt
#   --image DIR      jDAT runtime image (jlink-image/target/maven-jlink/default)
#   --sizes LIST     message sizes in bytes, space- or comma-separated (8 64 1024 4096)
#   --iters N        timed round trips per size, both tools (200)
#   --conn-qual N    dat perf serve's connection qualifiers: N for send, N+1 for write (7480)
#   --timeout S      rxe-vm.sh's hard limit for the whole run (2400)
#   --report-only    boot nothing: write DIR/results.md again from an earlier run in DIR (same --sizes, --iters)
#   -- OPTIONS       passed on to rxe-vm.sh (e.g. --accel kvm, --java-options ...)
#
# Needs perftest on the host (apt-get install perftest): rxe-vm.sh copies ib_send_lat and ib_write_lat into the
# guests when the host has them. Under TCG every figure is emulated: compare the ratio, not the microseconds, and
# run on an idle machine (the load average before and after is recorded).
# Exit status: 0 when both guests' commands succeeded and every figure was found, 1 otherwise, 2 on bad usage.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/.." && pwd)

usage() {
    sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}
die_usage() {
    echo "verbs-guests.sh: $*" >&2
    exit 2
}

out="$root/target/verbs-guests"
image="$root/jlink-image/target/maven-jlink/default"
sizes="8 64 1024 4096"
iters=200
conn_qual=7480
timeout=2400
vm_args=()
report_only=0
single=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="${2:?--out needs a directory}"; shift ;;
        --image) image="${2:?--image needs a directory}"; shift ;;
        --sizes) sizes="${2:?--sizes needs a list}"; shift ;;
        --iters) iters="${2:?--iters needs a number}"; shift ;;
        --conn-qual) conn_qual="${2:?--conn-qual needs a number}"; shift ;;
        --timeout) timeout="${2:?--timeout needs seconds}"; shift ;;
        --report-only) report_only=1 ;;
        --single) single=1 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; vm_args=("$@"); break ;;
        *) die_usage "unknown option $1 (see --help)" ;;
    esac
    shift
done
sizes=${sizes//,/ }
for s in $sizes; do
    [[ $s =~ ^[1-9][0-9]*$ ]] || die_usage "--sizes: '$s' is not a number of bytes"
done
[[ -n ${sizes// /} ]] || die_usage "--sizes is empty"
[[ $iters =~ ^[1-9][0-9]*$ && $iters -ge 5 ]] || die_usage "--iters $iters: at least 5 (perftest's minimum)"
[[ $conn_qual =~ ^[0-9]+$ ]] || die_usage "--conn-qual $conn_qual is not a number"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die_usage "--timeout $timeout is not a number of seconds"
warmup=$(( iters / 10 ))

# Boots the pair and runs the guests' scripts; sets vm_rc to rxe-vm.sh's exit status.
run_guests() {
    for t in ib_send_lat ib_write_lat; do
        command -v "$t" >/dev/null || die_usage "$t is missing on the host: apt-get install perftest"
    done
    [[ -x $image/bin/dat ]] || die_usage "no runtime image at $image: build it with
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -q -pl jlink-image -am package -DskipTests"
    image=$(cd "$image" && pwd)

    rm -rf "$out"
    mkdir -p "$out/perftest" "$out/dat" "$out/sync"
    out=$(cd "$out" && pwd)
    dat_sizes=${sizes// /,}
    qual_send=$conn_qual
    qual_write=$(( conn_qual + 1 ))

    # The guests run busybox sh with DIR as their working directory; each script sources guest-lib.sh. In the pair,
    # a tells b through files in sync/ that a perftest server is up. A perftest client that came too early fails at
    # once and is run again; dat perf's client retries its connection itself until --timeout.
    cat > "$out/guest-lib.sh" <<EOF
# Shared by the guest scripts; rc collects failures.
rc=0
# OP SIZE: a perftest server in the background; pid is its process.
perftest_server() {
    ib_\${1}_lat -d rxe0 -x "\$DAT_VM_GID_INDEX" -s "\$2" -n $iters -F > "perftest/a-\$1-\$2.txt" 2>&1 &
    pid=\$!
}
# OP SIZE HOST: the perftest client, run again while its server is not up yet.
perftest_client() {
    try=1
    until ib_\${1}_lat -d rxe0 -x "\$DAT_VM_GID_INDEX" -s "\$2" -n $iters -F "\$3" > "perftest/b-\$1-\$2.txt" 2>&1; do
        if [ \$try -ge 10 ]; then echo "ib_\${1}_lat client, \$2 B: failed \$try times"; rc=1; return; fi
        try=\$((try + 1))
        sleep 2
    done
}
# OP: the server's exit status, waited for.
perftest_wait() {
    wait "\$pid" || { echo "ib_\${1}_lat server: exit \$?"; rc=1; }
}
# OP QUAL: dat perf serve, one client; fails (and says so) when the server does.
dat_server() {
    dat perf serve --provider verbs --conn-qual "\$2" --timeout 900 > "dat/a-serve-\$1.txt" 2>&1 \\
        || { echo "dat perf serve (\$1) failed"; rc=1; return 1; }
}
# OP HOST:QUAL: dat perf's client.
dat_client() {
    dat perf pingpong --provider verbs --op "\$1" --sizes $dat_sizes --iters $iters --warmup $warmup --timeout 900 \\
        --peer "\$2" > "dat/b-\$1.txt" 2>&1 || { echo "dat perf pingpong \$1 failed"; rc=1; }
}
# FUNC: FUNC OP SIZE for every perftest measure, in one order for every guest (the pair's sync files follow it).
each_measure() {
    for op in send write; do
        for s in $sizes; do
            "\$1" "\$op" "\$s"
        done
    done
}
EOF
    cat > "$out/guest-a.sh" <<EOF
# Guest a (192.0.2.1): the servers, one after another.
. ./guest-lib.sh
serve() {
    perftest_server "\$1" "\$2"
    sleep 1
    : > "sync/\$1-\$2"
    perftest_wait "\$1"
}
each_measure serve
dat_server send $qual_send
dat_server write $qual_write
exit \$rc
EOF
    cat > "$out/guest-b.sh" <<EOF
# Guest b (192.0.2.2): the clients.
. ./guest-lib.sh
measure() {
    n=0
    while [ ! -e "sync/\$1-\$2" ] && [ \$n -lt 300 ]; do sleep 1; n=\$((n + 1)); done
    perftest_client "\$1" "\$2" "\$DAT_VM_PEER"
}
each_measure measure
dat_client send "\$DAT_VM_PEER:$qual_send"
dat_client write "\$DAT_VM_PEER:$qual_write"
exit \$rc
EOF
    # One guest, both ends: each server in the background, its client against the guest's own address.
    cat > "$out/guest-single.sh" <<EOF
# One guest (192.0.2.1): server and client of each measure, two processes each.
. ./guest-lib.sh
measure() {
    perftest_server "\$1" "\$2"
    sleep 1
    perftest_client "\$1" "\$2" "\$DAT_VM_IP"
    perftest_wait "\$1"
}
each_measure measure
# OP QUAL: dat perf serve in the background (its failure reaches rc through wait), the client against it.
dat_both() {
    dat_server "\$1" "\$2" &
    pid=\$!
    dat_client "\$1" "\$DAT_VM_IP:\$2"
    wait "\$pid" || rc=1
}
dat_both send $qual_send
dat_both write $qual_write
exit \$rc
EOF

    load() { printf '%s %s\n' "$1" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"; }
    load before
    set +e
    if [[ $single -eq 1 ]]; then
        "$root/dat.provider.verbs/src/test/vm/rxe-vm.sh" --image "$image" --out "$out" --timeout "$timeout" \
            --cmd 'sh ./guest-single.sh' "${vm_args[@]}"
    else
        "$root/dat.provider.verbs/src/test/vm/rxe-vm.sh" --pair --image "$image" --out "$out" --timeout "$timeout" \
            --cmd-a 'sh ./guest-a.sh' --cmd-b 'sh ./guest-b.sh' "${vm_args[@]}"
    fi
    vm_rc=$?
    set -e
    load after
    echo "rxe-vm $vm_rc" >> "$out/load.txt"
}

if [[ $report_only -eq 1 ]]; then
    [[ -f $out/load.txt && -d $out/perftest ]] || die_usage "--report-only: no earlier run in $out"
    out=$(cd "$out" && pwd)
    vm_rc=$(sed -n 's/^rxe-vm //p' "$out/load.txt")
else
    run_guests
fi

# perftest's result line: #bytes #iterations t_min t_max t_typical t_avg ... (microseconds, one-way).
perftest_figure() { # FILE SIZE COLUMN
    [[ -f $1 ]] || return 0
    awk -v size="$2" -v col="$3" '$1 == size && NF >= 6 && $2 ~ /^[0-9]+$/ { print $col; exit }' "$1"
}
# dat perf's row: bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec p50 p99, bytes as 8, 64, 1k, 4k.
dat_figure() { # FILE SIZE COLUMN
    [[ -f $1 ]] || return 0
    awk -v size="$2" -v col="$3" '
        function bytes(s,  n) { n = s + 0; if (s ~ /k$/) n *= 1024; if (s ~ /m$/) n *= 1048576; return n }
        $0 !~ /^#/ && $1 != "bytes" && NF >= 10 && bytes($1) == size { print $col; exit }' "$1"
}
ratio() { # JDAT C
    if [[ -n $1 && -n $2 ]]; then awk -v j="$1" -v c="$2" 'BEGIN { if (c > 0) printf "%.2f", j / c; else print "-" }'
    else echo "-"; fi
}
goal() { # RATIO RATIO
    if [[ $1 == - || $2 == - ]]; then echo "-"
    else awk -v a="$1" -v b="$2" 'BEGIN { print (a <= 1.2 && b <= 1.2) ? "yes" : "no" }'; fi
}

missing=0
{
    if [[ -d $out/vm ]]; then
        echo "# jDAT verbs beside perftest, one soft-RoCE guest"
        echo
        echo "One-way latency in microseconds (RTT/2) in one qemu (TCG) guest, server and client as two processes on"
        echo "rxe0, the client connecting to the guest's own address; $iters timed round trips per size."
    else
        echo "# jDAT verbs beside perftest, soft-RoCE guest pair"
        echo
        echo "One-way latency in microseconds (RTT/2) between two qemu (TCG) guests on one virtual wire, server on"
        echo "a, client on b; $iters timed round trips per size."
    fi
    echo "perftest: ib_send_lat / ib_write_lat -d rxe0 -x GID -F;"
    echo "jDAT: dat perf pingpong --provider verbs --peer (warm-up $warmup). Goal: jDAT within 1.2x of C (ratio <= 1.2)."
    echo
    echo "Load average (1, 5, 15 min): $(sed -n 's/^before //p' "$out/load.txt") before,"\
        "$(sed -n 's/^after //p' "$out/load.txt") after. rxe-vm.sh exit status: $vm_rc."
    echo
    echo "| op | bytes | perftest t_typical | perftest t_avg | dat perf p50 | dat perf mean | p50 / t_typical |"\
        "mean / t_avg | within 1.2x |"
    echo "|----|------:|------:|------:|------:|------:|------:|------:|:---:|"
    for op in send write; do
        for s in $sizes; do
            c_typ=$(perftest_figure "$out/perftest/b-$op-$s.txt" "$s" 5)
            c_avg=$(perftest_figure "$out/perftest/b-$op-$s.txt" "$s" 6)
            j_p50=$(dat_figure "$out/dat/b-$op.txt" "$s" 9)
            j_avg=$(dat_figure "$out/dat/b-$op.txt" "$s" 7)
            for v in "$c_typ" "$c_avg" "$j_p50" "$j_avg"; do [[ -n $v ]] || missing=$((missing + 1)); done
            r50=$(ratio "$j_p50" "$c_typ")
            ravg=$(ratio "$j_avg" "$c_avg")
            echo "| $op | $s | ${c_typ:--} | ${c_avg:--} | ${j_p50:--} | ${j_avg:--} | $r50 | $ravg |"\
                "$(goal "$r50" "$ravg") |"
        done
    done
    echo
    for g in vm vm-a vm-b; do
        [[ -d $out/$g ]] || continue
        echo "rxe0 counters of $g after the run: $(cat "$out/$g/rxe-counters.txt" 2>/dev/null || echo none)"
        echo
    done
    echo "Raw outputs: perftest/ (a-* server, b-* client), dat/ (a-serve-*, b-*); guests: vm/ or vm-a/, vm-b/."
} > "$out/results.md"
cat "$out/results.md"
if [[ $vm_rc -ne 0 || $missing -ne 0 ]]; then
    echo "verbs-guests.sh: rxe-vm.sh exited $vm_rc; $missing figures missing (see $out)" >&2
    exit 1
fi
