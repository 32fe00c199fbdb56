// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import dat.api.Dat;
import dat.api.DatReturn;
import dat.provider.udapl.internal.ffm.DatStatus;

/**
 * A blocking C wait ({@code dat_evd_wait}, {@code dat_cno_wait}) cut into bounded slices, so no Java thread sits in
 * C for longer than one slice: between slices the deadline is checked and {@link Thread#interrupt()} is answered
 * with {@code DAT_INTERRUPTED_CALL} (the interrupt status is consumed, as an {@code InterruptedException} would),
 * and a caller's {@link Dat#DAT_TIMEOUT_INFINITE} never reaches C. The C call's own status is returned unchanged
 * for anything but its {@code DAT_TIMEOUT_EXPIRED} inside the caller's time.
 */
public final class UdaplWait {

    /** The longest single C wait, in microseconds: how late an interrupt or a free can be noticed. */
    public static final int SLICE_MICROS = 50_000;

    /** One C wait of at most the given time. */
    @FunctionalInterface
    public interface CWait {
        /**
         * {@return the C call's {@code DAT_RETURN}}
         *
         * @param timeoutMicros the slice, {@code 0..}{@link #SLICE_MICROS}
         */
        int await(int timeoutMicros);
    }

    private UdaplWait() {
    }

    /**
     * Waits in slices until the C call returns anything but a timeout, the caller's time runs out, or the thread
     * is interrupted.
     *
     * @param c the C wait
     * @param timeoutMicros the caller's timeout, {@code 0..}{@link Dat#DAT_TIMEOUT_INFINITE}
     * @param sliceMicros the slice, at least 1 ({@link #SLICE_MICROS} but in tests)
     * @return the C status, or {@code DAT_INTERRUPTED_CALL}
     */
    public static int await(CWait c, long timeoutMicros, int sliceMicros) {
        boolean infinite = timeoutMicros >= Dat.DAT_TIMEOUT_INFINITE;
        long deadline = infinite ? Long.MAX_VALUE : System.nanoTime() + timeoutMicros * 1000L;
        while (true) {
            if (Thread.interrupted()) {
                return DatReturn.DAT_INTERRUPTED_CALL;
            }
            long leftMicros = infinite ? Long.MAX_VALUE : Math.max(0, (deadline - System.nanoTime()) / 1000L);
            int slice = (int) Math.min(leftMicros, sliceMicros);
            int rc = c.await(slice);
            if (DatStatus.type(rc) != DatReturn.TIMEOUT_EXPIRED) {
                return rc;
            }
            if (!infinite && System.nanoTime() - deadline >= 0) {
                return rc;
            }
        }
    }
}
