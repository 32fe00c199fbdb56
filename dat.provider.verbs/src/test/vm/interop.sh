#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# interop.sh: the guests' half of rxe-vm.sh --pair --interop. Both guests run it (DAT_VM_ROLE a or b); they walk
# the same list of checks in the same order and meet through files in $DAT_VM_OUT/interop/ (the output share both
# mount). In each check one guest serves and the other is the client:
#   the server writes <check>.ready once its program listens, runs to the end and writes <check>.server (its exit
#   code and whether its output says it passed); the client waits for .ready, runs, waits for .server and writes
#   <check>.verdict: PASS, or FAIL with the reason. rxe-vm.sh turns the verdicts into INTEROP lines.
# Controls (OFA's C programs against themselves) come first; a check whose control failed is OFA's, not counted.
set -u
ROLE=${DAT_VM_ROLE:?}
OUT=${DAT_VM_OUT:?}
DIR=$OUT/interop
A=192.0.2.1
# The dat.conf entry guest-init.sh writes (by the guest's own address, so the same name on both guests).
OFA=ofa-v2-cma-roe
# Sizes that keep TCG short: dtest's defaults (4 MiB x 1000 RDMA writes, 2 x 103 buffers of 4 MiB registered)
# are what made one write take about a second. dtestsrq's -b default is the provider's IB MTU; both sides need the
# same, so it is given.
DTEST_OPTS="-b 4096 -B 100 -S 10"
SRQ_OPTS="-b 1024 -t 3 -B 4"
STEP=${DAT_INTEROP_STEP_SECONDS:-240}
# C's stdout into a file is block-buffered and dtestsrq flushes little: line-buffered, its progress is visible
# (and survives the kill below). rxe-vm.sh --dapl carries stdbuf into the guest.
LB=
command -v stdbuf >/dev/null 2>&1 && LB="stdbuf -oL "
mkdir -p "$DIR"

# udapl_available: whether `dat info` lists an available udapl IA. Its output and errors stay in $DIR. A JVM that
# dies of a signal is started once more: once, in a pair guest under TCG, `dat info` died of SIGSEGV 14 s in, long
# before a provider loads, with no hs_err file (the JVM's handler not yet installed).
udapl_available() {
    for attempt in 1 2; do
        dat info > "$DIR/dat-info.txt" 2> "$DIR/dat-info.err"
        rc=$?
        [ $rc -lt 128 ] && break
        echo "interop: dat info died of signal $((rc - 128)) (attempt $attempt)"
    done
    awk '$2 == "udapl" && $4 == "available" { found = 1 } END { exit !found }' "$DIR/dat-info.txt"
}

# check NAME CONTROL SERVER_ROLE SERVER_KIND SERVER_CMD CLIENT_KIND CLIENT_CMD
# KIND says how a program's output tells it passed: cdtest, cdtestsrq, java (exit code alone).
CHECKS="$DIR/checks.txt"
if [ "$ROLE" = a ]; then
    {
        echo "c-dtest~c-dtest|-|a|cdtest|${LB}dtest -s -P $OFA $DTEST_OPTS|cdtest|${LB}dtest -h $A $DTEST_OPTS"
        echo "java-dtest-server~c-dtest-client|c-dtest~c-dtest|a|java|dat dtest -s --provider verbs -P $OFA $DTEST_OPTS|cdtest|${LB}dtest -h $A $DTEST_OPTS"
        echo "c-dtest-server~java-dtest-client|c-dtest~c-dtest|a|cdtest|${LB}dtest -s -P $OFA $DTEST_OPTS|java|dat dtest -h $A --provider verbs $DTEST_OPTS"
        echo "c-dtestsrq~c-dtestsrq|-|a|cdtestsrq|${LB}dtestsrq -v -s -P $OFA $SRQ_OPTS|cdtestsrq|${LB}dtestsrq -v -h $A -P $OFA $SRQ_OPTS"
        echo "java-dtestsrq-server~c-dtestsrq-client|c-dtestsrq~c-dtestsrq|a|java|dat dtestsrq -s --provider verbs $SRQ_OPTS|cdtestsrq|${LB}dtestsrq -v -h $A -P $OFA $SRQ_OPTS"
        echo "c-dtestsrq-server~java-dtestsrq-client|c-dtestsrq~c-dtestsrq|a|cdtestsrq|${LB}dtestsrq -v -s -P $OFA $SRQ_OPTS|java|dat dtestsrq -h $A --provider verbs $SRQ_OPTS"
        # The cross-node kit verbs<->udapl: the guest has OFA's libdat2, so the image's udapl provider must show an
        # available IA; if it does not, the check fails rather than vanish from the list.
        if udapl_available; then
            echo "kit-verbs~tck-peer-udapl|-|a|java|dat tck-peer --provider udapl --conn-qual 7481 --timeout 900|java|dat tck --provider verbs --only '*_crossNode*' --peer $A:7481 --reports $DIR/tck-verbs-udapl"
            echo "kit-udapl~tck-peer-verbs|-|a|java|dat tck-peer --provider verbs --conn-qual 7482 --timeout 900|java|dat tck --provider udapl --only '*_crossNode*' --peer $A:7482 --reports $DIR/tck-udapl-verbs"
        else
            echo "kit-udapl~no-available-udapl-ia|-|a|java|false|java|sh -c 'echo dat info: no available udapl IA, see $DIR/dat-info.txt; exit 1'"
        fi
    } > "$CHECKS.tmp"
    mv "$CHECKS.tmp" "$CHECKS"
fi
i=0
until [ -f "$CHECKS" ]; do
    i=$((i + 1))
    [ $i -gt 600 ] && { echo "interop: guest a wrote no $CHECKS"; exit 1; }
    sleep 1
done

# passed KIND LOG RC: whether a program's run passed, by its kind
passed() {
    case $1 in
        cdtest) [ "$3" = 0 ] && grep -q 'DAPL Test Complete. PASSED' "$2" ;;
        # Complete, or killed by run_prog in the teardown wait below with every burst checked (no ERR, no Error)
        # and its DISCONNECTED event in.
        cdtestsrq) { [ "$3" = 0 ] && grep -q 'DAPL RC SRQ Test Complete' "$2"; } || { [ -f "$2.teardown" ] \
            && grep -q 'disc event\[0\] complete' "$2" && ! grep -q ' ERR\|Error' "$2"; } ;;
        java) [ "$3" = 0 ] ;;
    esac
}

# stop_prog LOG WHY: stops the program whose standard output is LOG (busybox has no pgrep: /proc, by fd 1, not the
# shells and timeout around it) and records WHY in LOG.teardown.
stop_prog() {
    for d in /proc/[0-9]*; do
        case $(cat "$d/comm" 2>/dev/null) in sh | busybox | timeout | "") continue ;; esac
        case $(readlink "$d/fd/1" 2>/dev/null) in
            */"${1##*/}") kill "${d#/proc/}" 2>/dev/null && echo "$2" > "$1.teardown" ;;
        esac
    done
}

# run_prog KIND CMD LOG TAG: runs a check's program; writes its exit status to LOG.rc. Stopped early when the other
# guest's program in this attempt crashed (TAG.crashed.<role>): it would only wait for a peer that is gone. dtestsrq
# ends an SRQ EP by waiting without a timeout for DAT_ASYNC_ERROR_EP_BROKEN on the async EVD, which libdaplofa makes
# of the QP's IBV_EVENT_QP_LAST_WQE_REACHED; rxe in the guest's kernel raises none, so dtestsrq waits for ever
# whoever the peer is. Once its -v log says it waits for that ("Wait for EP async event") it is given 10 s, then
# stopped, and LOG.teardown records why.
run_prog() {
    rm -f "$3.rc" "$3.teardown"
    ( eval "timeout $STEP $2" < /dev/null > "$3" 2>&1; echo $? > "$3.rc" ) &
    asked=-1
    while [ ! -f "$3.rc" ]; do
        for f in "$DIR/$4".crashed.*; do
            [ -f "$f" ] && [ ! -f "$3.teardown" ] && stop_prog "$3" "the other guest's program crashed: stopped"
        done
        if [ "$1" = cdtestsrq ]; then
            [ $asked -ge 0 ] || ! grep -q 'Wait for EP async event' "$3" 2>/dev/null || asked=0
            if [ $asked -ge 0 ]; then
                asked=$((asked + 1))
                [ $asked -ne 11 ] || stop_prog "$3" \
                    "dtestsrq still waited for the async EP_BROKEN 10 s after its DISCONNECTED: stopped"
            fi
        fi
        sleep 1
    done
    wait
}

# The line a server prints once a client may come: C dtest's bootstrap listens right after its "waiting" line.
ready_pattern() {
    case $1 in
        cdtest) echo 'Server is waiting for client connection' ;;
        cdtestsrq) echo 'ready on port' ;;
        *) echo 'waiting on TCP port\|ready on conn_qual\|dat tck-peer: listening' ;;
    esac
}

wait_file() {
    wait_file_of "$1" "$1" "$2"
}

# wait_file_of FILE1 FILE2 SECONDS: waits until either file exists, at most SECONDS.
wait_file_of() {
    w=0
    while [ ! -f "$1" ] && [ ! -f "$2" ]; do
        w=$((w + 1))
        [ $w -gt "$3" ] && return 1
        sleep 1
    done
}

# crash_of RC: the signal a program died of when it crashed (SIGILL, SIGABRT: a JVM's fatal error after its hs_err
# file, SIGBUS, SIGFPE, SIGSEGV), or nothing. A timeout (124), dtestsrq's teardown (SIGTERM) and a clean failure are
# not crashes.
crash_of() {
    case $1 in
        132) echo SIGILL ;; 134) echo SIGABRT ;; 135) echo SIGBUS ;; 136) echo SIGFPE ;; 139) echo SIGSEGV ;;
    esac
}

# keep_hs_err TAG: moves this guest's JVM crash files into interop/ as TAG's, so they stay with the check and the
# harness (which retries the whole pair when a guest directory has one) sees the crash was dealt with here.
keep_hs_err() {
    for f in "$OUT/vm-$ROLE"/hs_err_pid*.log; do
        [ -f "$f" ] && mv "$f" "$DIR/$1.$ROLE.${f##*/}"
    done
}

# retried: what ended a check's first attempt, when it ran twice, for its verdict.
retried() {
    [ ! -f "$DIR/$name.retried" ] || echo " in attempt 2 ($(cat "$DIR/$name.retried"))"
}

# A check runs at most twice: once more only when a program crashed in the first attempt (TCG has crashed the guest's
# JVM and OFA's programs in emulation: the harness's own retry after a JVM crash says so), its files then named
# <check>.2.*; the note of its verdict says what ended attempt 1. Any other failure is final. The server waits for the
# client's word on each attempt: <check>.verdict, or <tag>.again.
failed=0
while IFS='|' read -r name _control srole skind scmd ckind ccmd; do
    [ -n "$name" ] || continue
    attempt=1
    while :; do
        tag=$name
        [ $attempt = 1 ] || tag=$name.$attempt
        if [ "$ROLE" = "$srole" ]; then
            log=$DIR/$tag.server.log
            echo "interop: $tag: serving: $scmd"
            run_prog "$skind" "$scmd" "$log" "$tag" &
            pat=$(ready_pattern "$skind")
            w=0
            # Without stdbuf C's output may stay in its buffer: ready after 60 s at the latest.
            until grep -q "$pat" "$log" 2>/dev/null || [ -f "$log.rc" ] || [ $w -ge 60 ]; do
                w=$((w + 1))
                sleep 1
            done
            # C dtest binds its bootstrap port just after the line; give it a moment.
            sleep 2
            touch "$DIR/$tag.ready"
            wait
            rc=$(cat "$log.rc")
            crash=$(crash_of "$rc")
            [ -z "$crash" ] || echo "$crash" > "$DIR/$tag.crashed.$ROLE"
            keep_hs_err "$tag"
            if passed "$skind" "$log" "$rc"; then echo "ok" > "$DIR/$tag.server"
            else echo "exit $rc${crash:+ ($crash)}$(grep -q 'FAILED' "$log" && echo ', FAILED')" > "$DIR/$tag.server"; fi
            echo "interop: $tag: server $(cat "$DIR/$tag.server")"
            wait_file_of "$DIR/$name.verdict" "$DIR/$tag.again" $((STEP + 60)) || true
            [ -f "$DIR/$tag.again" ] || break
            attempt=2
        else
            log=$DIR/$tag.client.log
            if ! wait_file "$DIR/$tag.ready" "$STEP"; then
                echo "FAIL the server never became ready$(retried)" > "$DIR/$name.verdict"
                failed=1
                break
            fi
            echo "interop: $tag: client: $ccmd"
            run_prog "$ckind" "$ccmd" "$log" "$tag"
            rc=$(cat "$log.rc")
            crash=$(crash_of "$rc")
            [ -z "$crash" ] || echo "$crash" > "$DIR/$tag.crashed.$ROLE"
            keep_hs_err "$tag"
            if ! wait_file "$DIR/$tag.server" "$STEP"; then
                echo "FAIL the server did not end within ${STEP}s$(retried)" > "$DIR/$name.verdict"
                failed=1
                break
            fi
            server=$(cat "$DIR/$tag.server")
            if passed "$ckind" "$log" "$rc" && [ "$server" = ok ]; then
                cat "$DIR/$name".*.log.teardown "$DIR/$name.retried" > "$DIR/$name.note" 2>/dev/null
                [ -s "$DIR/$name.note" ] || rm -f "$DIR/$name.note"
                echo "PASS" > "$DIR/$name.verdict"
                echo "interop: $tag: PASS"
                break
            fi
            client=ok
            passed "$ckind" "$log" "$rc" || client="exit $rc${crash:+ ($crash)}"
            # Either side's crash file says a program of this attempt crashed.
            if [ $attempt = 1 ] && ls "$DIR/$tag".crashed.* >/dev/null 2>&1; then
                echo "attempt 1 crashed: client $client, server $server" > "$DIR/$name.retried"
                echo "interop: $tag: $(cat "$DIR/$name.retried"); running it again"
                touch "$DIR/$tag.again"
                attempt=2
                continue
            fi
            echo "FAIL client $client, server $server$(retried)" > "$DIR/$name.verdict"
            failed=1
            echo "interop: $tag: $(cat "$DIR/$name.verdict")"
            break
        fi
    done
done < "$CHECKS"
# The verdict files carry the result (a check whose control failed is OFA's, not this guest's failure).
echo "interop: done, $failed check(s) of this client failed"
exit 0
