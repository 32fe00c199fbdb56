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

# run_prog KIND CMD LOG: runs a check's program; writes its exit status to LOG.rc. dtestsrq ends an SRQ EP by
# waiting without a timeout for DAT_ASYNC_ERROR_EP_BROKEN on the async EVD, which libdaplofa makes of the QP's
# IBV_EVENT_QP_LAST_WQE_REACHED; rxe in the guest's kernel raises none, so dtestsrq waits for ever whoever the
# peer is. Once its -v log says it waits for that ("Wait for EP async event") it is given 10 s, then stopped, and
# LOG.teardown records why.
run_prog() {
    rm -f "$3.rc" "$3.teardown"
    ( eval "timeout $STEP $2" < /dev/null > "$3" 2>&1; echo $? > "$3.rc" ) &
    if [ "$1" = cdtestsrq ]; then
        w=0
        until [ -f "$3.rc" ] || grep -q 'Wait for EP async event' "$3" 2>/dev/null || [ $w -ge "$STEP" ]; do
            w=$((w + 1))
            sleep 1
        done
        w=0
        until [ -f "$3.rc" ] || [ $w -ge 10 ]; do
            w=$((w + 1))
            sleep 1
        done
        if [ ! -f "$3.rc" ]; then
            # Our own program only: the dtestsrq whose standard output is this log (busybox has no pgrep).
            for d in /proc/[0-9]*; do
                [ "$(cat "$d/comm" 2>/dev/null)" = dtestsrq ] || continue
                case $(readlink "$d/fd/1") in
                    */"${3##*/}")
                        kill "${d#/proc/}" && echo "dtestsrq still waited for the async EP_BROKEN 10 s after its" \
                            "DISCONNECTED: stopped" > "$3.teardown" ;;
                esac
            done
        fi
    fi
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
    w=0
    while [ ! -f "$1" ]; do
        w=$((w + 1))
        [ $w -gt "$2" ] && return 1
        sleep 1
    done
}

failed=0
while IFS='|' read -r name _control srole skind scmd ckind ccmd; do
    [ -n "$name" ] || continue
    if [ "$ROLE" = "$srole" ]; then
        log=$DIR/$name.server.log
        echo "interop: $name: serving: $scmd"
        run_prog "$skind" "$scmd" "$log" &
        pat=$(ready_pattern "$skind")
        w=0
        # Without stdbuf C's output may stay in its buffer: ready after 60 s at the latest.
        until grep -q "$pat" "$log" 2>/dev/null || [ -f "$log.rc" ] || [ $w -ge 60 ]; do
            w=$((w + 1))
            sleep 1
        done
        # C dtest binds its bootstrap port just after the line; give it a moment.
        sleep 2
        touch "$DIR/$name.ready"
        wait
        rc=$(cat "$log.rc")
        if passed "$skind" "$log" "$rc"; then echo "ok" > "$DIR/$name.server"
        else echo "exit $rc$(grep -q 'FAILED' "$log" && echo ', FAILED')" > "$DIR/$name.server"; fi
        echo "interop: $name: server $(cat "$DIR/$name.server")"
    else
        log=$DIR/$name.client.log
        if ! wait_file "$DIR/$name.ready" "$STEP"; then
            echo "FAIL the server never became ready" > "$DIR/$name.verdict"
            failed=1
            continue
        fi
        echo "interop: $name: client: $ccmd"
        run_prog "$ckind" "$ccmd" "$log"
        rc=$(cat "$log.rc")
        if ! wait_file "$DIR/$name.server" "$STEP"; then
            echo "FAIL the server did not end within ${STEP}s" > "$DIR/$name.verdict"
            failed=1
            continue
        fi
        server=$(cat "$DIR/$name.server")
        if passed "$ckind" "$log" "$rc" && [ "$server" = ok ]; then
            echo "PASS" > "$DIR/$name.verdict"
            cat "$DIR/$name".*.log.teardown > "$DIR/$name.note" 2>/dev/null || rm -f "$DIR/$name.note"
        else
            client=ok
            passed "$ckind" "$log" "$rc" || client="exit $rc"
            echo "FAIL client $client, server $server" > "$DIR/$name.verdict"
            failed=1
        fi
        echo "interop: $name: $(cat "$DIR/$name.verdict")"
    fi
done < "$CHECKS"
# The verdict files carry the result (a check whose control failed is OFA's, not this guest's failure).
echo "interop: done, $failed check(s) of this client failed"
exit 0
