#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rxe-vm-selftest.sh: tests rxe-vm.sh itself, with real guests: exit codes coming back, the JUnit XML summary,
# the retry after a JVM crash (and only one), the hard timeout, both pair outcomes, and usage errors.
#
#   rxe-vm-selftest.sh [--image DIR] [--out DIR] [CASE...]
#
# CASE names: usage smoke exit crash-once crash-twice timeout interrupt pair pair-fail interop-retry (default: all;
# interop-retry runs interop.sh on the host, without guests). Every case checks
# what the harness promises and fails when it does not; exit 0 only when every selected case passed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
ROOT_DIR=$(cd "$HERE/../../../.." && pwd)
readonly ROOT_DIR
readonly VM=$HERE/rxe-vm.sh
readonly ALL_CASES=(usage smoke exit crash-once crash-twice timeout interrupt pair pair-fail interop-retry)

image=$ROOT_DIR/jlink-image/target/maven-jlink/default
base=$ROOT_DIR/dat.provider.verbs/target/rxe-vm-selftest
cases=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --image) image=$2; shift 2 ;;
        --out) base=$2; shift 2 ;;
        -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "rxe-vm-selftest.sh: unknown option '$1'" >&2; exit 2 ;;
        *)
            [[ " ${ALL_CASES[*]} " == *" $1 "* ]] \
                || { echo "rxe-vm-selftest.sh: unknown case '$1' (cases: ${ALL_CASES[*]})" >&2; exit 2; }
            cases+=("$1"); shift ;;
    esac
done
[[ ${#cases[@]} -gt 0 ]] || cases=("${ALL_CASES[@]}")
mkdir -p "$base"
base=$(cd "$base" && pwd)

# A real JVM crash, not a simulated exit status: HotSpot calls fatal() when it sees the exception picocli throws
# for an unknown option, which writes hs_err_pid<pid>.log (where -XX:ErrorFile says) and aborts (status 134).
# shellcheck disable=SC2016 # run by the guest's shell, which sees the backslash-dollar
readonly CRASH='java -XX:+UnlockDiagnosticVMOptions "-XX:AbortVMOnException=picocli.CommandLine\$UnmatchedArgumentException" -m dat.cli/dat.cli.DatCommand --no-such-option'

failures=()
case_name='' case_out='' case_log='' case_rc='' case_secs=''
keep_out=false
# Runs the harness for the current case in its output directory (emptied first unless keep_out); the harness's
# own output goes to <case>.log.
harness() {
    case_out=$base/$case_name
    case_log=$base/$case_name.log
    $keep_out || rm -rf "$case_out"
    mkdir -p "$case_out"
    local started=$SECONDS
    set +e
    "$VM" --image "$image" --out "$case_out" "$@" > "$case_log" 2>&1
    case_rc=$?
    set -e
    case_secs=$((SECONDS - started))
}
fail() { failures+=("$case_name: $*"); echo "    FAIL: $*"; }
expect_rc() { [[ $case_rc == "$1" ]] || fail "harness exited $case_rc, expected $1 (see $case_log)"; }
expect_log() { grep -qE -- "$1" "$case_log" || fail "no line matching /$1/ in $case_log"; }
expect_no_log() { ! grep -qE -- "$1" "$case_log" || fail "unexpected line matching /$1/ in $case_log"; }
expect_file() { compgen -G "$case_out/$1" >/dev/null || fail "no $case_out/$1"; }
expect_no_file() { ! compgen -G "$case_out/$1" >/dev/null || fail "unexpected $case_out/$1"; }
expect_content() { grep -qE -- "$2" "$case_out/$1" 2>/dev/null || fail "$1 does not match /$2/"; }

case_usage() {
    harness --timeout 0
    expect_rc 2; expect_log -- '--timeout needs a whole number of seconds'
    harness --pair --cmd true
    expect_rc 2; expect_log -- '--cmd is for one guest'
    harness --cmd-a true
    expect_rc 2; expect_log -- '--cmd-a and --cmd-b need --pair'
    harness --mem 64
    expect_rc 2; expect_log -- '--mem needs a size'
    harness --no-such-option
    expect_rc 2; expect_log "unknown argument '--no-such-option'"
    harness --image "$base/no-such-image"
    expect_rc 2; expect_log 'no runtime image at'
}

# The guest has the verbs stack: the provider finds rxe0 through libibverbs with native access granted.
case_smoke() {
    harness --cmd 'dat info -v > info.txt 2>&1'
    expect_rc 0
    expect_content vm/exit-code '^0$'
    expect_content vm/setup.log 'link rxe0/1 state ACTIVE'
    expect_content vm/setup.log '0000:0000:0000:0000:0000:ffff:c000:0201'
    expect_content info.txt 'ofa-v2-rxe0-1'
    ! grep -qiE 'no RDMA device|native access' "$case_out/info.txt" 2>/dev/null \
        || fail "dat info -v in the guest reports the verbs provider without RDMA or without native access"
    expect_log 'RESULT: PASS'
}

# A failing command's own status comes back through the output directory, is not retried, and the summary adds
# up the JUnit XML this run wrote (not the stale file from before the run).
case_exit() {
    rm -rf "$base/exit"
    mkdir -p "$base/exit/reports"
    printf '<testsuite name="stale" tests="100" skipped="0" failures="9" errors="0">\n' \
        > "$base/exit/reports/TEST-stale.xml"
    touch -d '1 hour ago' "$base/exit/reports/TEST-stale.xml"
    keep_out=true
    harness --cmd 'printf "<?xml version=\"1.0\"?>\n<testsuite name=\"x\" tests=\"7\" skipped=\"2\" failures=\"1\" errors=\"1\">\n</testsuite>\n" > reports/TEST-x.xml; exit 3'
    keep_out=false
    expect_rc 1
    expect_content vm/exit-code '^3$'
    expect_log 'guest vm: command exited 3'
    expect_log 'TCK reports: 7 tests, 2 failures, 2 skipped \(1 JUnit XML files\)'
    expect_no_log 'RETR'
    expect_no_file 'vm.attempt1'
    expect_log 'RESULT: FAIL'
}

case_crash-once() {
    harness --cmd "if [ -e crashed-once ]; then exit 0; fi; touch crashed-once; $CRASH"
    expect_rc 0
    expect_log 'RETRY: attempt 1 .* JVM crash in guest vm: .*exited 134.*hs_err_pid'
    expect_log 'RETRIED: attempt 1'
    expect_file 'vm.attempt1/hs_err_pid*.log'
    expect_content vm.attempt1/exit-code '^134$'
    expect_content vm/exit-code '^0$'
    expect_log 'RESULT: PASS'
}

case_crash-twice() {
    harness --cmd "$CRASH"
    expect_rc 1
    expect_file 'vm.attempt1/hs_err_pid*.log'
    expect_file 'vm/hs_err_pid*.log'
    [[ $(grep -c '^\[rxe-vm.sh .*RETRY:' "$case_log") == 1 ]] || fail "expected exactly one RETRY line"
    expect_log 'guest vm: JVM crash: command exited 134'
    expect_log 'RESULT: FAIL'
}

case_timeout() {
    harness --timeout 45 --cmd 'sleep 600'
    expect_rc 1
    expect_log "guest vm: timed out: killed when --timeout 45s ran out"
    expect_no_log 'RETR'
    ((case_secs < 45 + 60)) || fail "a 45 s timeout took ${case_secs}s"
}

# A signal to the harness (what CI's outer timeout sends) stops its guest: no qemu outlives it.
case_interrupt() {
    case_out=$base/interrupt case_log=$base/interrupt.log
    rm -rf "$case_out"
    mkdir -p "$case_out"
    "$VM" --image "$image" --out "$case_out" --cmd 'sleep 600' > "$case_log" 2>&1 &
    local harness_pid=$! waited=0
    until [[ -s $case_out/vm/qemu.pid ]] && grep -q 'command: sleep 600' "$case_out/vm/console.log" 2>/dev/null; do
        sleep 1
        ((++waited < 300)) || { fail "the guest did not start its command within 300 s"; kill "$harness_pid"; return; }
    done
    local qemu_pid
    qemu_pid=$(cat "$case_out/vm/qemu.pid")
    kill -TERM "$harness_pid"
    wait "$harness_pid" && case_rc=0 || case_rc=$?
    expect_rc 130
    expect_log 'interrupted: stopping the guests'
    waited=0
    while kill -0 "$qemu_pid" 2>/dev/null; do
        sleep 1
        ((++waited < 30)) || { fail "qemu (pid $qemu_pid) still runs 30 s after the harness was stopped"; return; }
    done
}

# The two guests reach each other over the socket netdev, each with its own rxe0 and RoCE v2 GID, and (when the
# host has ibverbs-utils, whose ibv_rc_pingpong the harness then copies in) RC traffic crosses the wire.
case_pair() {
    # Guest commands: single quotes on purpose, the guest expands them.
    # shellcheck disable=SC2016
    local a='ping -c 3 -W 10 "$DAT_VM_PEER" && grep -qx 0000:0000:0000:0000:0000:ffff:c000:0201 /sys/class/infiniband/rxe0/ports/1/gids/*'
    # shellcheck disable=SC2016
    local b='ping -c 3 -W 10 "$DAT_VM_PEER" && grep -qx 0000:0000:0000:0000:0000:ffff:c000:0202 /sys/class/infiniband/rxe0/ports/1/gids/*'
    local rdma=false
    if command -v ibv_rc_pingpong >/dev/null; then
        rdma=true
        # shellcheck disable=SC2016
        a+=' && ibv_rc_pingpong -d rxe0 -g "$DAT_VM_GID_INDEX" -n 200'
        # The server in a may not listen yet: the client retries its TCP rendezvous.
        # shellcheck disable=SC2016
        b+=' && i=0 && until ibv_rc_pingpong -d rxe0 -g "$DAT_VM_GID_INDEX" -n 200 "$DAT_VM_PEER"; do i=$((i + 1)); [ $i -lt 30 ] || exit 1; sleep 2; done'
    else
        echo "    no ibv_rc_pingpong on this host (ibverbs-utils): checking IP and GIDs only"
    fi
    harness --pair --timeout 900 --cmd-a "$a" --cmd-b "$b"
    expect_rc 0
    if $rdma; then
        expect_content vm-a/cmd.log '200 iters in'
        expect_content vm-b/cmd.log '200 iters in'
    fi
    expect_content vm-a/exit-code '^0$'
    expect_content vm-b/exit-code '^0$'
    expect_content vm-b/setup.log 'peer 192.0.2.1 answers ping'
    expect_log 'RESULT: PASS'
}

# A failed side must not leave the other running until --timeout.
case_pair-fail() {
    harness --pair --timeout 900 --peer-grace 10 --cmd-a 'sleep 850' --cmd-b 'exit 5'
    expect_rc 1
    expect_log 'guest b: command exited 5'
    expect_log 'guest a: stopped 10s after the other'
    ((case_secs < 400)) || fail "guest a was not stopped after the grace period (run took ${case_secs}s)"
}

# interop.sh's retry, on the host without guests: both roles run against fake programs (dtest, dtestsrq, dat) that
# crash or fail where told. A check whose program crashed in attempt 1 runs once more and passes with a note; the
# crash file goes with the check, out of the guest's directory; the other guest's program waiting on a crashed peer
# is stopped rather than left to its timeout; a check that crashes twice fails; a plain failure is not retried.
case_interop-retry() {
    case_out=$base/interop-retry case_log=$base/interop-retry.log
    rm -rf "$case_out"
    mkdir -p "$case_out/bin" "$case_out/vm-a" "$case_out/vm-b"
    cat > "$case_out/bin/fake" <<'FAKE'
#!/bin/sh
me=${0##*/}
sub=
[ "$me" = dat ] && { sub=$1; shift; }
if [ "$sub" = info ]; then
    printf 'IA PROVIDER VERSION STATUS\nofa-v2-cma-roe udapl 2.0 available\n'
    exit 0
fi
role=client
case " $* " in *" -s "*) role=server ;; esac
[ "$sub" = tck-peer ] && role=server
key=$me:$sub:$role
count=$DAT_VM_OUT/fake-count.$(echo "$key" | tr ':' '_')
n=$(cat "$count" 2>/dev/null || echo 0)
echo $((n + 1)) > "$count"
for c in $FAKE_CRASH; do
    if [ "${c%=*}" = "$key" ] && [ "$n" -lt "${c#*=}" ]; then
        echo "fake: $key crashes" > "$DAT_VM_OUT/vm-$DAT_VM_ROLE/hs_err_pid$$.log"
        exit 134
    fi
done
# A client that fails ends its server's wait, as a real one's disconnect would.
for c in $FAKE_FAIL; do [ "$c" = "$key" ] && { touch "$DAT_VM_OUT/fake-served"; echo "fake: $key fails"; exit 1; }; done
if [ $role = server ]; then
    rm -f "$DAT_VM_OUT/fake-served"
    echo 'Server is waiting for client connection; ready on port; waiting on TCP port; dat tck-peer: listening'
    i=0
    until [ -f "$DAT_VM_OUT/fake-served" ]; do
        i=$((i + 1))
        [ $i -lt 300 ] || exit 9
        sleep 0.1
    done
    rm -f "$DAT_VM_OUT/fake-served"
else
    touch "$DAT_VM_OUT/fake-served"
fi
echo 'DAPL Test Complete. PASSED'
echo 'DAPL RC SRQ Test Complete'
FAKE
    chmod +x "$case_out/bin/fake"
    for p in dat dtest dtestsrq; do ln -s fake "$case_out/bin/$p"; done
    local started=$SECONDS pids=() r
    for r in a b; do
        DAT_VM_ROLE=$r DAT_VM_OUT=$case_out DAT_INTEROP_STEP_SECONDS=60 PATH=$case_out/bin:$PATH \
            FAKE_CRASH='dat:dtest:server=1 dat:dtestsrq:client=2 dtestsrq::client=1' FAKE_FAIL='dat:tck:client' \
            sh "$HERE/interop.sh" > "$case_log.$r" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$case_log.a" "$case_log.b" > "$case_log"
    case_secs=$((SECONDS - started))
    local d=interop
    expect_content $d/c-dtest~c-dtest.verdict '^PASS$'
    expect_content $d/java-dtest-server~c-dtest-client.verdict '^PASS$'
    expect_content $d/java-dtest-server~c-dtest-client.note \
        '^attempt 1 crashed: client (ok|exit 143), server exit 134 \(SIGABRT\)'
    expect_file "$d/java-dtest-server~c-dtest-client.a.hs_err_pid*.log"
    expect_file "$d/java-dtest-server~c-dtest-client.2.server.log"
    expect_no_file 'vm-a/hs_err_pid*.log'
    expect_no_file 'vm-b/hs_err_pid*.log'
    expect_content $d/c-dtest-server~java-dtest-client.verdict '^PASS$'
    expect_no_file "$d/c-dtest-server~java-dtest-client.note"
    # The C client crashed while the server waited for it: the server was stopped, not left to its 60 s.
    expect_content $d/c-dtestsrq~c-dtestsrq.verdict '^PASS$'
    expect_content $d/c-dtestsrq~c-dtestsrq.server.log.teardown "the other guest's program crashed: stopped"
    expect_content $d/c-dtestsrq~c-dtestsrq.note 'attempt 1 crashed: client exit 134 \(SIGABRT\), server exit 143'
    expect_content $d/java-dtestsrq-server~c-dtestsrq-client.verdict '^PASS$'
    expect_content $d/c-dtestsrq-server~java-dtestsrq-client.verdict \
        '^FAIL client exit 134 \(SIGABRT\), server exit 143 in attempt 2 \(attempt 1 crashed: client exit 134'
    expect_file "$d/c-dtestsrq-server~java-dtestsrq-client.b.hs_err_pid*.log"
    expect_file "$d/c-dtestsrq-server~java-dtestsrq-client.2.b.hs_err_pid*.log"
    expect_content $d/kit-verbs~tck-peer-udapl.verdict '^FAIL client exit 1, server ok$'
    expect_no_file "$d/kit-verbs~tck-peer-udapl.2.*"
    expect_content $d/kit-udapl~tck-peer-verbs.verdict '^FAIL client exit 1, server ok$'
    expect_content interop/checks.txt 'kit-udapl~tck-peer-verbs'
    ((case_secs < 150)) || fail "the checks took ${case_secs}s: a crashed peer's partner waited for its timeout"
}

for c in "${cases[@]}"; do
    case_name=$c
    echo "== $c"
    t=$SECONDS
    "case_$c"
    echo "   $c: $((SECONDS - t)) s"
done
echo
if [[ ${#failures[@]} -eq 0 ]]; then
    echo "rxe-vm self-test: ${#cases[@]} cases passed (${cases[*]})"
else
    echo "rxe-vm self-test: ${#failures[@]} failed check(s):"
    printf '  %s\n' "${failures[@]}"
    exit 1
fi
