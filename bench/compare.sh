#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# jDAT's loopback provider beside UCX, libfabric, Aeron and a C floor, in one go on one machine.
#
#   bench/compare.sh [--quick] [--runs N] [--only GROUPS] [--skip PEERS] [--out DIR] [--cpus A,B]
#                    [--timeout SECONDS] [--no-pin] [--dry-run]
#
# Measures (GROUPS: latency, path, rate, bandwidth, alloc, fabric; all by default):
#   latency    one-way latency, 8 B .. 1 MiB: jDAT send and rdma_write (dat perf pingpong), UCX tag_lat (UCP) and
#              put_lat (UCT posix), fi_pingpong over shm and tcp, Aeron IPC, the C cache-line handoff
#   path       the provider path, post plus completion on one thread, 8 and 64 B: JMH
#              SingleThreadLatencyBenchmark (sendRecv, rdmaWrite), sampled, its median in ns; no peer
#   rate       64 B messages/s: jDAT send and rdma_write streams (dat perf rate), JMH MessageRateBenchmark.pair,
#              UCX tag_bw and put_bw
#   bandwidth  4 KiB .. 64 MiB: JMH BandwidthBenchmark (rdmaWrite, rdmaRead, memorySegmentCopy), UCX put_bw
#   alloc      JMH AllocationBenchmark -prof gc: bytes allocated per data-path call
#   fabric     jDAT's ofi provider beside libfabric's own program on the same fabric, two processes each: dat perf
#              serve and dat perf pingpong --peer on the IA ofi-tcp-lo (FI_EP_MSG over loopback TCP) against
#              fi_pingpong -p tcp -e msg, and on ofi-shm-shm-rdm (FI_EP_RDM over shm) against fi_pingpong -p shm
#              -e rdm, 8 B .. 64 KiB (an IA that is unavailable is skipped, with the reason)
# PEERS for --skip: ucx, fabric, aeron, cfloor.
#
# The goals judged (results.md's headline), each in one run: 64 B one-way p50 of send and rdma_write at or below
# Aeron IPC and within 2x of the C floor; post plus completion on one thread at most 50 ns at the median; 64 B send
# stream at or above UCX tag_bw and the JMH pair at 20 M msgs/s or more; rdma_write and rdma_read at 95% or more of
# MemorySegment.copy from 64 KiB up; 0 B/op on every data-path call; on ofi/tcp and ofi/shm a 64 B one-way mean
# within 1.2x of fi_pingpong's on the same fabric and a ping-pong message rate at 0.8x or more of its (fi_pingpong
# times only the whole loop, so the mean is what both report).
#
# Every measure runs --runs times (5; --quick: 2), round-robin so that each run of every peer sees the same
# stretch of machine load, and every run is bounded by timeout(1). Client and server (or the two threads) are
# pinned to the two CPUs of --cpus (0,1); the JMH benchmarks, all on one thread, are not. The script builds what is stale first: the jDAT runtime image and the
# JMH jar (Maven wrapper), the C floor (gcc), the Aeron ping-pong (Maven wrapper, Aeron from Maven Central); it
# installs ucx-utils, libfabric-bin and gcc with apt-get when they are missing and it runs as root, and otherwise
# skips the peer and says why.
#
# Output: bench/results/<UTC time>/ (--quick: <UTC time>-quick/; runs are not committed): results.json, results.md (the
# table: measure, size, jDAT, peer, unit, ratio jDAT/peer, goal met), latency.svg, latency-mean.svg,
# bandwidth.svg, the noise report, every command line (commands.txt) and every raw output (raw/). A full run
# with the default output directory also refreshes bench/results/latest/, which the README shows.
# Exit status: 0 when every run produced a figure, 1 when some run failed or timed out (the report lists them),
# 2 on a usage error or a failed build.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/.." && pwd)

usage() {
    sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

quote() { printf '%q ' "$@"; }
invocation="bench/compare.sh"
[ $# -eq 0 ] || invocation+=" $(quote "$@")"

quick=0
runs=""
only="latency,path,rate,bandwidth,alloc,fabric"
skip=""
out=""
cpus="0,1"
run_timeout=""
pin=1
dry_run=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --runs) runs="${2:?--runs needs a number}"; shift ;;
        --only) only="${2:?--only needs a list}"; shift ;;
        --skip) skip="${2:?--skip needs a list}"; shift ;;
        --out) out="${2:?--out needs a directory}"; shift ;;
        --cpus) cpus="${2:?--cpus needs A,B}"; shift ;;
        --timeout) run_timeout="${2:?--timeout needs seconds}"; shift ;;
        --no-pin) pin=0 ;;
        --dry-run) dry_run=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "compare.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

fail_usage() {
    echo "compare.sh: $*" >&2
    exit 2
}

if [ -z "$runs" ]; then
    runs=$((quick ? 2 : 5))
fi
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || fail_usage "--runs '$runs' must be a whole number of at least 1"
[[ "$cpus" =~ ^[0-9]+,[0-9]+$ ]] || fail_usage "--cpus '$cpus' must be two CPU numbers, A,B (client, server)"
cpu_a=${cpus%,*}
cpu_b=${cpus#*,}
ncpu=$(nproc)
for c in "$cpu_a" "$cpu_b"; do
    [ "$c" -lt "$ncpu" ] || fail_usage "--cpus: CPU $c does not exist here (nproc says $ncpu)"
done
if [ -z "$run_timeout" ]; then
    run_timeout=$((quick ? 60 : 180))
fi
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] || fail_usage "--timeout '$run_timeout' must be a whole number of seconds"
for g in ${only//,/ }; do
    case "$g" in
        latency|path|rate|bandwidth|alloc|fabric) ;;
        *) fail_usage "--only: unknown group '$g' (latency, path, rate, bandwidth, alloc, fabric)" ;;
    esac
done
for p in ${skip//,/ }; do
    case "$p" in ucx|fabric|aeron|cfloor) ;; *) fail_usage "--skip: unknown peer '$p' (ucx, fabric, aeron, cfloor)" ;; esac
done

want() { [[ ",$only," == *",$1,"* ]]; }
skipped_by_user() { [[ ",$skip," == *",$1,"* ]]; }

# ---------------------------------------------------------------------------------------------------------------
# The plan. Iterations per size shrink from a base count so that one size moves a bounded number of bytes; the
# warm-up is half the timed count (the JVM peers need it for the JIT; the native ones get the same for fairness).
# The provider path is judged at 64 B; 8 B shows what the size itself costs.
path_sizes=(8 64)
fabric_ia=ofi-tcp-lo
fabric_shm_ia=ofi-shm-shm-rdm
if [ "$quick" -eq 1 ]; then
    lat_sizes=(8 64 4096 65536)
    fabric_sizes=(8 64 4096)
    lat_base=10000; lat_budget=$((64 << 20)); lat_min=100
    fi_cap=2000
    fabric_warmup=10000
    fabric_warmup_shm=100000
    rate_iters=200000
    bw_sizes=(4096 65536 1048576)
    bw_base=200000; bw_budget=$((1 << 30)); bw_min=16
    jmh_bw=(-f 1 -wi 1 -w 200ms -i 1 -r 300ms)
    jmh_path=(-f 1 -wi 1 -w 300ms -i 1 -r 500ms)
    jmh_rate=(-f 1 -wi 1 -w 300ms -i 1 -r 500ms)
    jmh_alloc=(-f 1 -wi 1 -w 500ms -i 1 -r 1s)
    jmh_timeout=300
else
    lat_sizes=(8 64 256 1024 4096 16384 65536 262144 1048576)
    fabric_sizes=(8 64 1024 4096 65536)
    lat_base=100000; lat_budget=$((1 << 30)); lat_min=200
    fi_cap=20000
    fabric_warmup=100000
    fabric_warmup_shm=1000000
    rate_iters=2000000
    bw_sizes=(4096 65536 262144 1048576 4194304 16777216 67108864)
    bw_base=1000000; bw_budget=$((8 << 30)); bw_min=32
    jmh_bw=(-f 1 -wi 2 -w 500ms -i 3 -r 500ms)
    jmh_path=(-f 1 -wi 3 -w 1s -i 5 -r 1s)
    jmh_rate=(-f 1 -wi 3 -w 1s -i 5 -r 1s)
    jmh_alloc=(-f 1 -wi 2 -w 1s -i 3 -r 1s)
    jmh_timeout=900
fi

clamp_iters() {  # base budget min size
    local n=$(($2 / $4))
    [ "$n" -gt "$1" ] && n=$1
    [ "$n" -lt "$3" ] && n=$3
    echo "$n"
}
lat_iters() { clamp_iters "$lat_base" "$lat_budget" "$lat_min" "$1"; }
fi_iters() {
    local n
    n=$(lat_iters "$1")
    [ "$n" -gt "$fi_cap" ] && n=$fi_cap
    echo "$n"
}
bw_iters() { clamp_iters "$bw_base" "$bw_budget" "$bw_min" "$1"; }

# SIZE:ITERS:WARMUP,... for the Aeron and C programs, which run every size in one process.
lat_plan() {
    local plan="" s n
    for s in "${lat_sizes[@]}"; do
        n=$(lat_iters "$s")
        plan+="${plan:+,}$s:$n:$((n / 2))"
    done
    echo "$plan"
}

stamp=$(date -u +%Y-%m-%dT%H%MZ)
mode=full
[ "$quick" -eq 0 ] || mode=quick
default_out=0
if [ -z "$out" ]; then
    default_out=1
    out="$here/results/$stamp"
    [ "$quick" -eq 0 ] || out+="-quick"
fi
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
manifest="$out/manifest.tsv"
commands="$out/commands.txt"
skipped="$out/skipped.tsv"
logfile="$out/run.log"
: > "$manifest"
: > "$commands"
: > "$skipped"
: > "$logfile"

log() {
    printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$logfile" >&2
}

skip_peer() {  # peer reason
    printf '%s\t%s\n' "$1" "$2" >> "$skipped"
    log "skipping $1: $2"
}

# ---------------------------------------------------------------------------------------------------------------
# Tools. timeout, taskset and python3 are needed by the script itself; the peers' tools are installed when
# missing and possible, otherwise that peer is skipped.
for tool in timeout taskset python3 ss; do
    command -v "$tool" >/dev/null 2>&1 || fail_usage "needs '$tool' (coreutils, util-linux, python3, iproute2)"
done
missing_pkgs=()
skipped_by_user ucx || command -v ucx_perftest >/dev/null 2>&1 || missing_pkgs+=(ucx-utils)
skipped_by_user fabric || command -v fi_pingpong >/dev/null 2>&1 || missing_pkgs+=(libfabric-bin)
skipped_by_user cfloor || command -v gcc >/dev/null 2>&1 || missing_pkgs+=(gcc)
if [ ${#missing_pkgs[@]} -gt 0 ] && [ "$dry_run" -eq 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "installing ${missing_pkgs[*]} with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}" \
            >> "$logfile" 2>&1 \
            || { DEBIAN_FRONTEND=noninteractive apt-get update -qq >> "$logfile" 2>&1 \
                 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                    "${missing_pkgs[@]}" >> "$logfile" 2>&1; } \
            || log "apt-get could not install ${missing_pkgs[*]} (see $logfile)"
    else
        log "missing ${missing_pkgs[*]}; not root or no apt-get, so not installing them"
    fi
fi
have_ucx=1; have_fabric=1; have_aeron=1; have_cfloor=1
if skipped_by_user ucx; then have_ucx=0; skip_peer ucx "--skip ucx"
elif ! command -v ucx_perftest >/dev/null 2>&1; then have_ucx=0; skip_peer ucx "ucx_perftest not found (Debian: ucx-utils)"; fi
if skipped_by_user fabric; then have_fabric=0; skip_peer fabric "--skip fabric"
elif ! command -v fi_pingpong >/dev/null 2>&1; then have_fabric=0; skip_peer fabric "fi_pingpong not found (Debian: libfabric-bin)"; fi
if skipped_by_user aeron; then have_aeron=0; skip_peer aeron "--skip aeron"; fi
if skipped_by_user cfloor; then have_cfloor=0; skip_peer cfloor "--skip cfloor"
elif ! command -v gcc >/dev/null 2>&1; then have_cfloor=0; skip_peer cfloor "gcc not found"; fi

# shellcheck source=tools/jdk25.sh
. "$root/tools/jdk25.sh"
jdat_use_jdk25 || exit 2
java="$JAVA_HOME/bin/java"

# ---------------------------------------------------------------------------------------------------------------
# Builds, each only when stale.
# shellcheck source=bench/lib/jdat-build.sh
. "$here/lib/jdat-build.sh"
cfloor_src="$here/cfloor/handoff.c"
cfloor_bin="$here/cfloor/target/handoff"
aeron_dir="$here/aeron"
aeron_class="$aeron_dir/target/classes/dat/bench/aeron/AeronIpcPingPong.class"

build_cfloor() {
    [ "$have_cfloor" -eq 1 ] || return 0
    if [ -x "$cfloor_bin" ] && [ "$cfloor_bin" -nt "$cfloor_src" ]; then
        return 0
    fi
    log "compiling the C floor (gcc -O2)"
    mkdir -p "$(dirname "$cfloor_bin")"
    if ! gcc -O2 -Wall -Wextra -Werror -pthread -o "$cfloor_bin" "$cfloor_src" >> "$logfile" 2>&1; then
        have_cfloor=0
        skip_peer cfloor "gcc failed to compile $cfloor_src (see run.log)"
    fi
}

build_aeron() {
    [ "$have_aeron" -eq 1 ] || return 0
    if [ -e "$aeron_class" ] && compgen -G "$aeron_dir/target/lib/aeron-all-*.jar" >/dev/null \
            && [ -z "$(find "$aeron_dir/src" "$aeron_dir/pom.xml" -newer "$aeron_class" -print -quit)" ]; then
        return 0
    fi
    log "building the Aeron ping-pong (./mvnw -f bench/aeron/pom.xml package; Aeron from Maven Central)"
    if ! (cd "$root" && ./mvnw -B -q --no-transfer-progress -f bench/aeron/pom.xml package) >> "$logfile" 2>&1; then
        have_aeron=0
        skip_peer aeron "building bench/aeron failed (offline? see run.log)"
    fi
}

if [ "$dry_run" -eq 0 ]; then
    build_jdat "$logfile"
    build_cfloor
    build_aeron
fi

have_ofi=0
have_ofi_shm=0
ofi_available() {  # IA: whether dat info lists it as available; says why not
    local row
    [ "$dry_run" -eq 1 ] && return 0
    row=$("$dat" info 2>/dev/null | awk -v ia="$1" '$1 == ia' || true)
    [[ "$row" == *" available"* ]] && return 0
    skip_peer "ofi $1" "dat info does not list $1 as available: ${row:-not listed}"
    return 1
}
if want fabric; then
    if [ "$have_fabric" -eq 0 ]; then
        skip_peer ofi "the fabric group needs fi_pingpong (see the fabric peer)"
    else
        ofi_available "$fabric_ia" && have_ofi=1
        ofi_available "$fabric_shm_ia" && have_ofi_shm=1
    fi
fi

# Agrona reads jdk.internal.misc.Unsafe (an IllegalAccessError without this export on JDK 25); the pinning is FFM.
aeron_java=("$java" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED
            -Xms256m -Xmx256m -cp "$aeron_dir/target/classes:$aeron_dir/target/lib/*"
            dat.bench.aeron.AeronIpcPingPong)

# ---------------------------------------------------------------------------------------------------------------
# Running. Every run: one raw output file, one manifest line (measure, series, size, run, exit status, seconds,
# 1-minute load average when it started, raw file), one line in commands.txt.
# Control ports for the two-process peers: a fresh one per run, starting from a base that differs between
# concurrent invocations, skipping any port something already listens on.
port=$((20000 + ($$ % 20000)))
next_port() {  # sets pp_port
    while :; do
        port=$((port + 1))
        [ "$port" -lt 65000 ] || port=20001
        if [ -z "$(ss -Htln "sport = :$port" 2>/dev/null)" ]; then
            pp_port=$port
            return
        fi
    done
}

wait_listen() {  # port: waits up to 10 s for a listener: a TCP port, or jDAT's shm name for it (jdat-<port>)
    local i
    for ((i = 0; i < 200; i++)); do
        [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ] && return 0
        [ -e "/dev/shm/jdat-$1" ] && return 0
        sleep 0.05
    done
    return 1
}

failures=0
record() {  # measure series size run rc seconds load raw
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$manifest"
    if [ "$5" -ne 0 ]; then
        failures=$((failures + 1))
        log "  FAILED ($( [ "$5" -eq 124 ] && echo "timed out after ${run_timeout}s" || echo "exit $5")): $1 $2 size $3 run $4; see ${8}"
    fi
}

load1() { cut -d' ' -f1 /proc/loadavg; }
since() {  # start in ns: seconds elapsed, three decimals
    local ms=$((($(date +%s%N) - $1) / 1000000))
    printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# run_single measure series size run raw bound -- command...: one process, bounded by bound seconds.
run_single() {
    local measure=$1 series=$2 size=$3 run=$4 raw=$5 bound=$6
    shift 7
    mkdir -p "$(dirname "$out/$raw")"
    echo "[$measure $series size $size run $run] $(quote timeout -k 10 "$bound" "$@")" >> "$commands"
    if [ "$dry_run" -eq 1 ]; then
        quote "$@"
        echo
        return
    fi
    local load t0 rc=0
    load=$(load1)
    t0=$(date +%s%N)
    timeout -k 10 "$bound" "$@" > "$out/$raw" 2> "$out/$raw.err" || rc=$?
    record "$measure" "$series" "$size" "$run" "$rc" "$(since "$t0")" "$load" "$raw"
    [ -s "$out/$raw.err" ] || rm -f "$out/$raw.err"
}

# run_pair measure series size run raw -- server command -- client command: server in the background, client
# once the server listens on $pp_port (set by the caller), both bounded.
run_pair() {
    local measure=$1 series=$2 size=$3 run=$4 raw=$5
    shift 6
    local server=() client=()
    while [ "$1" != "--" ]; do server+=("$1"); shift; done
    shift
    client=("$@")
    mkdir -p "$(dirname "$out/$raw")"
    echo "[$measure $series size $size run $run] server: $(quote timeout -k 10 "$run_timeout" "${server[@]}")" \
        >> "$commands"
    echo "[$measure $series size $size run $run] client: $(quote timeout -k 10 "$run_timeout" "${client[@]}")" \
        >> "$commands"
    if [ "$dry_run" -eq 1 ]; then
        echo "$(quote "${server[@]}") & $(quote "${client[@]}")"
        return
    fi
    local load t0 rc=0 spid
    load=$(load1)
    t0=$(date +%s%N)
    timeout -k 10 "$run_timeout" "${server[@]}" > "$out/$raw.server" 2>&1 &
    spid=$!
    if wait_listen "$pp_port"; then
        timeout -k 10 "$run_timeout" "${client[@]}" > "$out/$raw" 2> "$out/$raw.err" || rc=$?
    else
        rc=3
        echo "the server did not listen on port $pp_port within 10 s" > "$out/$raw.err"
    fi
    local src=0
    wait "$spid" || src=$?
    if [ "$rc" -eq 0 ] && [ "$src" -ne 0 ]; then
        rc=$src
        echo "the server exited with $src" >> "$out/$raw.err"
    fi
    record "$measure" "$series" "$size" "$run" "$rc" "$(since "$t0")" "$load" "$raw"
    [ -s "$out/$raw.err" ] || rm -f "$out/$raw.err"
}

# dat perf in the runtime image, its client and responder threads pinned like the other peers' two sides.
datperf() {  # measure series size run raw bound -- dat perf arguments...
    local a=("$1" "$2" "$3" "$4" "$5" "$6")
    shift 7
    local cmd=("$dat" perf "$@" --json --timeout "$run_timeout")
    if [ "$pin" -eq 1 ]; then
        cmd=(python3 "$here/lib/pinthreads.py" --pin "dat-perf-client=$cpu_a" --pin "dat-perf-respon=$cpu_b"
             --report "$out/${a[4]}.pin" -- "${cmd[@]}")
    fi
    run_single "${a[@]}" -- "${cmd[@]}"
}

ucx_pin() { [ "$pin" -eq 1 ] && printf -- '-c\n%s\n' "$1"; }

ucx() {  # measure series size run raw env -- client arguments...
    local measure=$1 series=$2 size=$3 run=$4 raw=$5 tls=$6
    shift 7
    next_port
    local sp=() cp=()
    mapfile -t sp < <(ucx_pin "$cpu_b")
    mapfile -t cp < <(ucx_pin "$cpu_a")
    run_pair "$measure" "$series" "$size" "$run" "$raw" -- \
        env "UCX_TLS=$tls" ucx_perftest -p "$pp_port" "${sp[@]}" -- \
        env "UCX_TLS=$tls" ucx_perftest 127.0.0.1 -p "$pp_port" "${cp[@]}" -f -v "$@"
}

fabric() {  # measure series size run raw provider iters
    local measure=$1 series=$2 size=$3 run=$4 raw=$5 prov=$6 iters=$7
    next_port
    local sp=() cp=()
    if [ "$pin" -eq 1 ]; then sp=(taskset -c "$cpu_b"); cp=(taskset -c "$cpu_a"); fi
    run_pair "$measure" "$series" "$size" "$run" "$raw" -- \
        "${sp[@]}" fi_pingpong -p "$prov" -e rdm -B "$pp_port" -I "$iters" -S "$size" -- \
        "${cp[@]}" fi_pingpong -p "$prov" -e rdm -P "$pp_port" -I "$iters" -S "$size" 127.0.0.1
}

# jDAT's ofi provider across two processes: dat perf serve on the conn-qual $pp_port (a TCP port on tcp, the name
# jdat-<conn-qual> on shm), dat perf pingpong --peer against it; pinned as fi_pingpong's two sides.
ofiperf() {  # measure series size run raw iters ia
    local measure=$1 series=$2 size=$3 run=$4 raw=$5 iters=$6 ia=$7
    next_port
    local sp=() cp=()
    if [ "$pin" -eq 1 ]; then sp=(taskset -c "$cpu_b"); cp=(taskset -c "$cpu_a"); fi
    run_pair "$measure" "$series" "$size" "$run" "$raw" -- \
        "${sp[@]}" "$dat" perf serve --ia "$ia" --conn-qual "$pp_port" --timeout "$run_timeout" -- \
        "${cp[@]}" "$dat" perf pingpong --ia "$ia" --peer "127.0.0.1:$pp_port" --op send --sizes "$size" \
        --iters "$iters" --warmup "$(ofi_warmup "$iters" "$ia")" --json --timeout "$run_timeout"
}

# The ofi ping-pong's untimed warm-up: half its iterations, and at least $fabric_warmup round trips
# ($fabric_warmup_shm on shm), so the JIT has compiled the data path before the clock starts (fi_pingpong's C has
# nothing to warm). Each process is pinned whole to one CPU, where the compiler threads run only when the spinning
# worker lets them, and a compilation that lands in the timed part stops the ping-pong for a millisecond or more: at
# 20,000 timed 64 B round trips on ofi-shm, a warm-up of 100,000 left the mean at 1.5 to 2.1 us and 1,000,000 at 0.75
# to 0.94 us, the median 0.50 to 0.54 us in both (2026-11-27). A shm round trip takes about a microsecond, so the
# million costs a second or two; on tcp, twenty times slower, 100,000 already take seconds.
ofi_warmup() {  # iters ia
    local w=$(($1 / 2)) min=$fabric_warmup
    [ "$2" = "$fabric_shm_ia" ] && min=$fabric_warmup_shm
    [ "$w" -lt "$min" ] && w=$min
    echo "$w"
}

# One run of the fabric group on one fabric: jDAT's ofi IA beside fi_pingpong, size by size ($run, $r: the run).
fabric_group() {  # ia jdat-series peer-series peer-function provider
    local ia=$1 jdat=$2 peer=$3 peerfn=$4 prov=$5 s n
    log "  fabric: ofi on $ia beside fi_pingpong -p $prov"
    for s in "${fabric_sizes[@]}"; do
        n=$(fi_iters "$s")
        ofiperf fabric "$jdat" "$s" "$run" "raw/fabric/$jdat/$s-$r.json" "$n" "$ia"
        "$peerfn" fabric "$peer" "$s" "$run" "raw/fabric/$peer/$s-$r.txt" "$prov" "$n"
    done
}

fabric_msg() {  # measure series size run raw provider iters: fi_pingpong over a connected (FI_EP_MSG) endpoint
    local measure=$1 series=$2 size=$3 run=$4 raw=$5 prov=$6 iters=$7
    next_port
    local sp=() cp=()
    if [ "$pin" -eq 1 ]; then sp=(taskset -c "$cpu_b"); cp=(taskset -c "$cpu_a"); fi
    run_pair "$measure" "$series" "$size" "$run" "$raw" -- \
        "${sp[@]}" fi_pingpong -p "$prov" -e msg -B "$pp_port" -I "$iters" -S "$size" -- \
        "${cp[@]}" fi_pingpong -p "$prov" -e msg -P "$pp_port" -I "$iters" -S "$size" 127.0.0.1
}

jmh() {  # measure series run raw bound -- jmh arguments...
    local measure=$1 series=$2 run=$3 raw=$4 bound=$5
    shift 6
    run_single "$measure" "$series" all "$run" "$raw" "$bound" -- \
        "$java" -jar "$bench_jar" "$@" -foe true -rf json -rff "$out/${raw%.log}.json"
}

snapshot() {  # file: what the noise report needs
    {
        echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "epoch $(date +%s.%N)"
        echo "nproc $(nproc)"
        echo "loadavg $(cat /proc/loadavg)"
        grep '^cpu ' /proc/stat
        grep -m1 'model name' /proc/cpuinfo | sed 's/^model name\s*:\s*/model /'
        echo "kernel $(uname -r)"
    } > "$1"
}

# ---------------------------------------------------------------------------------------------------------------
{
    echo "quick $quick"
    echo "runs $runs"
    echo "only $only"
    echo "cpus $cpu_a,$cpu_b"
    echo "pinned $pin"
    echo "timeout $run_timeout"
    echo "lat_sizes ${lat_sizes[*]}"
    echo "path_sizes ${path_sizes[*]}"
    echo "bw_sizes ${bw_sizes[*]}"
    echo "jdat_commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo '+changes')"
    echo "java $("$java" -version 2>&1 | head -n 1)"
    [ "$have_ucx" -eq 1 ] && echo "ucx $(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -n 1)"
    [ "$have_fabric" -eq 1 ] && echo "libfabric $(fi_info --version 2>/dev/null | sed -n 's/^libfabric: //p' | head -n 1)"
    [ "$have_aeron" -eq 1 ] && echo "aeron $(sed -n 's:.*<aeron.version>\(.*\)</aeron.version>.*:\1:p' "$aeron_dir/pom.xml")"
    [ "$have_cfloor" -eq 1 ] && echo "gcc $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion)"
    echo "command ${invocation% }"
} > "$out/setup.txt"

snapshot "$out/machine-before.txt"
log "results go to $out ($mode mode, $runs runs; load average $(cut -d' ' -f1-3 /proc/loadavg), $ncpu CPUs)"

ucx_tag_tls="sm"
for ((run = 1; run <= runs; run++)); do
    log "run $run of $runs"
    r="r$run"
    if want latency; then
        log "  latency"
        for s in "${lat_sizes[@]}"; do
            n=$(lat_iters "$s")
            datperf latency jdat_send "$s" "$run" "raw/latency/jdat_send/$s-$r.json" "$run_timeout" -- \
                pingpong --op send --sizes "$s" --iters "$n" --warmup $((n / 2))
            datperf latency jdat_write "$s" "$run" "raw/latency/jdat_write/$s-$r.json" "$run_timeout" -- \
                pingpong --op write --sizes "$s" --iters "$n" --warmup $((n / 2))
            if [ "$have_ucx" -eq 1 ]; then
                ucx latency ucx_tag_lat "$s" "$run" "raw/latency/ucx_tag_lat/$s-$r.csv" "$ucx_tag_tls" -- \
                    -t tag_lat -s "$s" -n "$n" -w $((n / 2))
                ucx latency ucx_put_lat "$s" "$run" "raw/latency/ucx_put_lat/$s-$r.csv" "posix" -- \
                    -t put_lat -x posix -d memory -s "$s" -n "$n" -w $((n / 2))
            fi
            if [ "$have_fabric" -eq 1 ]; then
                fabric latency fi_shm "$s" "$run" "raw/latency/fi_shm/$s-$r.txt" shm "$(fi_iters "$s")"
                fabric latency fi_tcp "$s" "$run" "raw/latency/fi_tcp/$s-$r.txt" tcp "$(fi_iters "$s")"
            fi
        done
        if [ "$have_aeron" -eq 1 ]; then
            run_single latency aeron_ipc all "$run" "raw/latency/aeron_ipc/all-$r.jsonl" $((run_timeout * 3)) -- \
                "${aeron_java[@]}" --plan "$(lat_plan)" --cpus "$cpu_a,$cpu_b"
        fi
        if [ "$have_cfloor" -eq 1 ]; then
            run_single latency c_floor all "$run" "raw/latency/c_floor/all-$r.jsonl" "$run_timeout" -- \
                "$cfloor_bin" --plan "$(lat_plan)" --cpus "$cpu_a,$cpu_b"
        fi
    fi
    if want path; then
        log "  provider path"
        jmh path jmh_path "$run" "raw/path/jmh_path/all-$r.log" "$jmh_timeout" -- \
            'SingleThreadLatencyBenchmark' -p "size=$(IFS=,; echo "${path_sizes[*]}")" "${jmh_path[@]}"
    fi
    if want rate; then
        log "  message rate"
        datperf rate jdat_send_rate 64 "$run" "raw/rate/jdat_send_rate/64-$r.json" "$run_timeout" -- \
            rate --op send --sizes 64 --iters "$rate_iters" --warmup $((rate_iters / 2))
        datperf rate jdat_write_rate 64 "$run" "raw/rate/jdat_write_rate/64-$r.json" "$run_timeout" -- \
            rate --op write --sizes 64 --iters "$rate_iters" --warmup $((rate_iters / 2))
        jmh rate jmh_pair "$run" "raw/rate/jmh_pair/all-$r.log" "$jmh_timeout" -- \
            'MessageRateBenchmark\.pair$' "${jmh_rate[@]}"
        if [ "$have_ucx" -eq 1 ]; then
            ucx rate ucx_tag_bw 64 "$run" "raw/rate/ucx_tag_bw/64-$r.csv" "$ucx_tag_tls" -- \
                -t tag_bw -s 64 -n "$rate_iters" -w $((rate_iters / 10))
            ucx rate ucx_put_bw_rate 64 "$run" "raw/rate/ucx_put_bw_rate/64-$r.csv" "posix" -- \
                -t put_bw -x posix -d memory -s 64 -n "$rate_iters" -w $((rate_iters / 10))
        fi
    fi
    if want bandwidth; then
        log "  bandwidth"
        jmh bandwidth jmh_bw "$run" "raw/bandwidth/jmh_bw/all-$r.log" "$jmh_timeout" -- \
            'BandwidthBenchmark' -p "size=$(IFS=,; echo "${bw_sizes[*]}")" "${jmh_bw[@]}"
        if [ "$have_ucx" -eq 1 ]; then
            for s in "${bw_sizes[@]}"; do
                n=$(bw_iters "$s")
                ucx bandwidth ucx_put_bw "$s" "$run" "raw/bandwidth/ucx_put_bw/$s-$r.csv" "posix" -- \
                    -t put_bw -x posix -d memory -s "$s" -n "$n" -w $((n / 10))
            done
        fi
    fi
    if want alloc; then
        log "  allocation"
        jmh alloc jmh_alloc "$run" "raw/alloc/jmh_alloc/all-$r.log" "$jmh_timeout" -- \
            'AllocationBenchmark' -prof gc "${jmh_alloc[@]}"
    fi
    if want fabric && [ "$have_ofi" -eq 1 ]; then
        fabric_group "$fabric_ia" jdat_ofi_tcp fi_tcp_msg fabric_msg tcp
    fi
    if want fabric && [ "$have_ofi_shm" -eq 1 ]; then
        fabric_group "$fabric_shm_ia" jdat_ofi_shm fi_shm fabric shm
    fi
done

snapshot "$out/machine-after.txt"
[ "$dry_run" -eq 1 ] && exit 0

log "writing the report"
python3 "$here/lib/compare.py" report "$out" || { echo "compare.sh: the report failed" >&2; exit 2; }
if [ "$default_out" -eq 1 ] && [ "$quick" -eq 0 ]; then
    rm -rf "$here/results/latest"
    mkdir -p "$here/results/latest"
    cp "$out"/results.json "$out"/results.md "$out"/*.svg "$out"/commands.txt "$out"/setup.txt "$here/results/latest/"
    echo "$stamp" > "$here/results/latest/RUN"
    log "bench/results/latest now holds this run ($stamp)"
fi
log "done: $out/results.md"
sed -n '/^## Headline/,/^## /p' "$out/results.md" | sed '$d' >&2
if [ "$failures" -gt 0 ]; then
    log "$failures run(s) failed or timed out; they are listed in results.md"
    exit 1
fi
