#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The victim node's half of the fault suite (rxe-vm.sh --faults; busybox sh in the guest): one
# `dat tck-fault victim` per fault, in the order the survivor on the other guest expects them, and the faults a
# JVM cannot make itself. It strikes once the victim's marker file says traffic flows both ways:
#   kill   kill -9 of the victim's JVM
#   link   the RoCE netdev down for 30 s (twice the time the provider's ACK timeout and retries take to give a
#          silent peer up), then up again, rxe0 recreated and ACTIVE again before the next victim; a victim
#          whose connection no event ended gives it up 90 s after its marker (FaultDrill.giveUp)
#   close  the victim's own dat_ia_close(ABRUPT)
#   none   no fault: the survivor's closing check that a new connection works
# Exit 0 when every victim did what its fault asks; the survivor judges what the surviving side saw.
out=${DAT_VM_OUT:?}
dev=$(rdma link show rxe0/1 | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
[ -n "$dev" ] || { echo "fault-victim: no netdev under rxe0/1"; exit 1; }
status=0

wait_for_marker() {
    i=0
    while [ ! -e "$1" ] && [ $i -lt 300 ] && kill -0 "$2" 2>/dev/null; do
        sleep 1
        i=$((i + 1))
    done
    [ -e "$1" ]
}

for fault in kill link close none; do
    marker=$out/fault-$fault.flowing
    rm -f "$marker"
    dat tck-fault victim --provider verbs --conn-qual 7472 --fault $fault --marker "$marker" --timeout 300 &
    pid=$!
    case $fault in
        kill)
            if wait_for_marker "$marker" $pid; then
                # The JVM's own pid, from the marker: $pid is the launcher script, which does not exec java.
                jvm=$(sed -n 's/^pid //p' "$marker")
                kill -9 "$jvm"
                echo "fault-victim: kill -9 of the victim JVM (pid $jvm)"
            else
                echo "fault-victim: kill: traffic never flowed"
                status=1
            fi
            wait $pid
            rc=$?
            [ $rc -eq 137 ] || { echo "fault-victim: kill: the victim exited $rc, not 137"; status=1; } ;;
        link)
            if wait_for_marker "$marker" $pid; then
                ip link set "$dev" down
                echo "fault-victim: $dev down"
                sleep 30
                ip link set "$dev" up
                echo "fault-victim: $dev up"
            else
                echo "fault-victim: link: traffic never flowed"
                status=1
            fi
            wait $pid || { echo "fault-victim: link: the victim exited $?"; status=1; }
            # A fresh rxe0 for the next victims, once this one let go of the device. When the victim freed its
            # connection while the link was down (it does whenever a send of its own fails first), the kernel's
            # DREQ found no route, and rxe's GSI QP1 never sends again (6.1: sq-psn stays put while rdma shows QP1
            # in RTS): the node would answer no connection request for good. The survivor is under test, not this.
            if ! { rdma link delete rxe0 && rdma link add rxe0 type rxe netdev "$dev"; }; then
                echo "fault-victim: could not recreate rxe0"
                status=1
            fi
            i=0
            until rdma link show rxe0/1 | grep -q "state ACTIVE" || [ $i -ge 60 ]; do
                sleep 1
                i=$((i + 1))
            done ;;
        *)
            wait $pid || { echo "fault-victim: $fault: the victim exited $?"; status=1; } ;;
    esac
done
exit $status
