// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dat.provider.verbs.internal.ffm.LibIbverbs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where each async event goes. The events no soft device raises ({@code IBV_EVENT_SRQ_ERR},
 * {@code IBV_EVENT_DEVICE_FATAL}) are raised here: the guest's rxe never sends them.
 */
class VerbsProgressRouteTest {

    /** Records each call as text. */
    private static final class Recorder implements VerbsProgress.AsyncTargets {
        final List<String> calls = new ArrayList<>();

        @Override
        public void srqLimitReached(int srqIndex) {
            calls.add("srqLimitReached " + srqIndex);
        }

        @Override
        public void srqFailed(int srqIndex) {
            calls.add("srqFailed " + srqIndex);
        }

        @Override
        public void qpFailed(int qpn, int type) {
            calls.add("qpFailed " + qpn + " " + type);
        }

        @Override
        public void communicationEstablished(int qpn) {
            calls.add("communicationEstablished " + qpn);
        }

        @Override
        public void cqFailed(long cqKey) {
            calls.add("cqFailed " + cqKey);
        }

        @Override
        public void deviceFailed() {
            calls.add("deviceFailed");
        }
    }

    private static List<String> route(int type) {
        Recorder r = new Recorder();
        VerbsProgress.route(type, 17, 5, 99L, r);
        return r.calls;
    }

    @Test
    void anSrqErrorReachesItsSrqByIndexAndNothingElse() {
        assertEquals(List.of("srqFailed 5"), route(LibIbverbs.IBV_EVENT_SRQ_ERR));
        assertEquals(List.of("srqLimitReached 5"), route(LibIbverbs.IBV_EVENT_SRQ_LIMIT_REACHED));
    }

    @Test
    void qpErrorsBreakTheirQpAndSayWhich() {
        for (int type : new int[] {LibIbverbs.IBV_EVENT_QP_FATAL, LibIbverbs.IBV_EVENT_QP_REQ_ERR,
                LibIbverbs.IBV_EVENT_QP_ACCESS_ERR}) {
            assertEquals(List.of("qpFailed 17 " + type), route(type));
        }
        assertEquals(List.of("communicationEstablished 17"), route(LibIbverbs.IBV_EVENT_COMM_EST));
    }

    @Test
    void cqAndDeviceErrorsReachTheirTargets() {
        assertEquals(List.of("cqFailed 99"), route(LibIbverbs.IBV_EVENT_CQ_ERR));
        assertEquals(List.of("deviceFailed"), route(LibIbverbs.IBV_EVENT_DEVICE_FATAL));
    }

    @Test
    void portAndLastWqeEventsAreDropped() {
        assertEquals(List.of(), route(LibIbverbs.IBV_EVENT_PORT_ACTIVE));
        assertEquals(List.of(), route(LibIbverbs.IBV_EVENT_QP_LAST_WQE_REACHED));
    }
}
