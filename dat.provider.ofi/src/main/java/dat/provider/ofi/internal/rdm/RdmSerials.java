// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import java.security.SecureRandom;

/**
 * Connection serials of one IA: a 32-bit counter from a random start that skips 0 (the "no serial yet" of a
 * request). A serial is never reused within 2^32 - 1 connections, so a message of an ended connection matches no
 * receive of a later one; the random start keeps a restarted process from meeting its predecessor's serials.
 * Thread safe.
 */
public final class RdmSerials {

    private int next;

    /** Serials from a random start. */
    public RdmSerials() {
        this(new SecureRandom().nextInt());
    }

    /** Serials from {@code start} (0 is skipped). */
    RdmSerials(int start) {
        this.next = start;
    }

    /**
     * The next serial.
     *
     * @return a serial, never 0
     */
    public synchronized int next() {
        if (next == 0) {
            next = 1;
        }
        return next++;
    }
}
