#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where the loopback data path spends its time: CPU profiles of the runs bench/compare.sh judges, per thread.
#
#   bench/profile.sh [--only RUNS] [--out DIR] [--cpus A,B] [--interval MICROSECONDS] [--top N]
#
# RUNS (all by default):
#   pingpong  dat perf pingpong --op send, 64 B, client and responder pinned to the two CPUs of --cpus (0,1)
#   rate      dat perf rate --op send, 64 B, pinned the same way
#   path      JMH SingleThreadLatencyBenchmark (sendRecv, rdmaWrite) at 64 B, average time, one fork, one thread
#
# The profiler is async-profiler, fetched from Maven Central (tools.profiler:async-profiler) with the project's
# Maven wrapper into the local repository, and loaded as a JVM agent. It samples CPU time with timers, every
# --interval microseconds of CPU (default 1000), so it needs no hardware counters and runs in a VM that has
# none. A sample's leaf frame is where the CPU was, give or take skid: the stall of a fence or a cache miss often
# lands on the instruction after it, in the next method. Each sample is a signal and a stack walk that evicts some
# of the caches: at 100 µs the provider path ran at 100 instead of 60 ns, at the default it runs at about its own
# speed, and the shares agree. Still, the figures the tools print beside the profiles are not the benchmark's:
# bench/compare.sh measures, this explains.
#
# Output: DIR (default bench/results/profile-<UTC time>/; not committed): for each run its collapsed stacks
# (RUN.collapsed, one line per stack, thread first), the tool's output (RUN.out), and profile.md, every run's
# summary (bench/lib/profile.py): per thread, the share of samples by where the CPU was (kernel, poll loop, locks,
# atomics, copy, provider, API, tool), the top frames by self samples, the jDAT frames by inclusive samples.
# Exit status: 0, 1 when a run failed, 2 on a usage error or a failed build or download.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/.." && pwd)

usage() {
    sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

# The async-profiler release; its jar carries the agent for linux-x64 and linux-arm64.
profiler_version=4.6

only="pingpong,rate,path"
out=""
cpus="0,1"
interval=1000
top=15
while [ $# -gt 0 ]; do
    case "$1" in
        --only) only="${2:?--only needs a list}"; shift ;;
        --out) out="${2:?--out needs a directory}"; shift ;;
        --cpus) cpus="${2:?--cpus needs A,B}"; shift ;;
        --interval) interval="${2:?--interval needs microseconds}"; shift ;;
        --top) top="${2:?--top needs a number}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "profile.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

fail_usage() {
    echo "profile.sh: $*" >&2
    exit 2
}

for r in ${only//,/ }; do
    case "$r" in pingpong|rate|path) ;; *) fail_usage "--only: unknown run '$r' (pingpong, rate, path)" ;; esac
done
[[ "$cpus" =~ ^[0-9]+,[0-9]+$ ]] || fail_usage "--cpus '$cpus' must be two CPU numbers, A,B (client, responder)"
cpu_a=${cpus%,*}
cpu_b=${cpus#*,}
for c in "$cpu_a" "$cpu_b"; do
    [ "$c" -lt "$(nproc)" ] || fail_usage "--cpus: CPU $c does not exist here (nproc says $(nproc))"
done
[[ "$interval" =~ ^[1-9][0-9]*$ ]] || fail_usage "--interval '$interval' must be a whole number of microseconds"
[[ "$top" =~ ^[1-9][0-9]*$ ]] || fail_usage "--top '$top' must be a whole number of at least 1"
case "$(uname -m)" in
    x86_64) arch=linux-x64 ;;
    aarch64) arch=linux-arm64 ;;
    *) fail_usage "async-profiler has no agent for $(uname -m)" ;;
esac
want() { [[ ",$only," == *",$1,"* ]]; }

[ -n "$out" ] || out="$here/results/profile-$(date -u +%Y-%m-%dT%H%MZ)"
# JMH splits -jvmArgsAppend on blanks, and the agent's options name files under DIR.
[[ "$out" != *[[:space:]]* ]] || fail_usage "--out '$out' must not contain blanks (the profiler's options name it)"
mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ "$out" != *[[:space:]]* ]] || fail_usage "--out resolves to '$out', which contains blanks"
logfile="$out/run.log"
: > "$logfile"

log() {
    printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$logfile" >&2
}

# shellcheck source=tools/jdk25.sh
. "$root/tools/jdk25.sh"
jdat_use_jdk25 || exit 2
# shellcheck source=bench/lib/jdat-build.sh
. "$here/lib/jdat-build.sh"
build_jdat "$logfile"

# The agent: the jar from Maven Central through the project's wrapper (the local repository keeps it), its library
# unpacked next to the output.
log "copying async-profiler $profiler_version (Maven Central, through the local repository)"
if ! (cd "$root" && ./mvnw -N -B -q --no-transfer-progress \
        org.apache.maven.plugins:maven-dependency-plugin:3.11.0:copy \
        "-Dartifact=tools.profiler:async-profiler:$profiler_version" "-DoutputDirectory=$out/agent") \
        >> "$logfile" 2>&1; then
    echo "profile.sh: fetching async-profiler failed (offline? see $logfile)" >&2
    exit 2
fi
agent="$out/agent/$arch/libasyncProfiler.so"
python3 - "$out/agent/async-profiler-$profiler_version.jar" "$arch/libasyncProfiler.so" "$out/agent" <<'EOF'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])
EOF

agent_options() {  # collapsed-file: the -agentpath option that profiles the whole JVM into it
    printf -- '-agentpath:%s=start,event=cpu,interval=%dus,threads,collapsed,file=%s' "$agent" "$interval" "$1"
}

failed=0
summary="$out/profile.md"
{
    echo "# Where the loopback data path spends its time"
    echo
    echo "bench/profile.sh at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '(no git)'), $(date -u +%Y-%m-%dT%H:%MZ);"
    echo "async-profiler $profiler_version, CPU samples every ${interval} µs; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
} > "$summary"

datperf() {  # run title -- dat perf arguments: profiles one pinned dat perf run
    local run=$1 title=$2
    shift 3
    log "profiling $run: dat perf $*"
    if JDK_JAVA_OPTIONS="$(agent_options "$out/$run.collapsed")" \
            python3 "$here/lib/pinthreads.py" --pin "dat-perf-client=$cpu_a" --pin "dat-perf-respon=$cpu_b" \
            --report "$out/$run.pin" -- "$dat" perf "$@" > "$out/$run.out" 2>> "$logfile"; then
        python3 "$here/lib/profile.py" --threads dat-perf --top "$top" --title "$title" "$out/$run.collapsed" \
            >> "$summary" || failed=1
    else
        log "$run failed (see $out/$run.out and $logfile)"
        failed=1
    fi
}

if want pingpong; then
    datperf pingpong "pingpong: dat perf pingpong --op send, 64 B" -- \
        pingpong --op send --sizes 64 --iters 3000000 --warmup 500000 --timeout 300
fi
if want rate; then
    datperf rate "rate: dat perf rate --op send, 64 B" -- \
        rate --op send --sizes 64 --iters 12000000 --warmup 2000000 --timeout 300
fi
if want path; then
    for bench in sendRecv rdmaWrite; do
        log "profiling path: SingleThreadLatencyBenchmark.$bench, 64 B"
        if "$JAVA_HOME/bin/java" -jar "$bench_jar" "SingleThreadLatencyBenchmark\.$bench\$" -p size=64 -bm avgt \
                -f 1 -wi 3 -w 1s -i 5 -r 1s -jvmArgsAppend "$(agent_options "$out/path-$bench.collapsed")" \
                > "$out/path-$bench.out" 2>> "$logfile"; then
            # The JMH fork's benchmark thread, and only what runs under the benchmark method.
            python3 "$here/lib/profile.py" --threads "dat.bench.SingleThreadLatencyBenchmark" \
                --focus "SingleThreadLatencyBenchmark.$bench" --top "$top" \
                --title "path: SingleThreadLatencyBenchmark.$bench, 64 B" "$out/path-$bench.collapsed" \
                >> "$summary" || failed=1
        else
            log "path $bench failed (see $out/path-$bench.out and $logfile)"
            failed=1
        fi
    done
fi
log "summary: $summary"
exit "$failed"
