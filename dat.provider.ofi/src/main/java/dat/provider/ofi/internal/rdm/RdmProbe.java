// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import java.nio.ByteBuffer;

/**
 * The private data of a {@code CHECK} and its {@code CHECK_ACK} (docs/ofi-rdm-protocol.md, "Remote protection"): the
 * remote part of an RDMA operation that has not completed, as the target's fabric checks it, and the target's verdict.
 * Network byte order, {@link #SIZE} bytes.
 *
 * @param order the operation's number among the sender EP's requests, which the answer names
 * @param key the {@code rmr_context}
 * @param address the remote virtual address
 * @param length the remote length
 * @param read whether the operation reads (else it writes)
 * @param verdict {@link #ASKED} in a {@code CHECK}; {@link #TAKEN} or {@link #REFUSED} in its answer
 */
public record RdmProbe(long order, long key, long address, long length, boolean read, byte verdict) {

    /** Bytes of a probe on the wire: four 8-byte fields, the direction and the verdict. */
    public static final int SIZE = 34;
    /** A question: the {@code CHECK}. */
    public static final byte ASKED = 0;
    /** The target's zone has a registration of the key with the access, covering the range. */
    public static final byte TAKEN = 1;
    /** The target's zone has none: its fabric refuses the operation, without a word to the sender. */
    public static final byte REFUSED = 2;

    /** {@return the probe's bytes} */
    public byte[] encode() {
        return ByteBuffer.allocate(SIZE).putLong(order).putLong(key).putLong(address).putLong(length)
                .put((byte) (read ? 1 : 0)).put(verdict).array();
    }

    /**
     * {@return the answer to this probe}
     *
     * @param taken whether the target's zone takes the operation
     */
    public RdmProbe answer(boolean taken) {
        return new RdmProbe(order, key, address, length, read, taken ? TAKEN : REFUSED);
    }

    /**
     * {@return the probe in {@code bytes}, or {@code null} when they are not one (a wrong length, direction or
     * verdict): such a message is dropped}
     *
     * @param bytes a {@code CHECK}'s or {@code CHECK_ACK}'s private data
     */
    public static RdmProbe decode(byte[] bytes) {
        if (bytes == null || bytes.length != SIZE) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long order = b.getLong();
        long key = b.getLong();
        long address = b.getLong();
        long length = b.getLong();
        byte read = b.get();
        byte verdict = b.get();
        if ((read != 0 && read != 1) || verdict < ASKED || verdict > REFUSED) {
            return null;
        }
        return new RdmProbe(order, key, address, length, read == 1, verdict);
    }
}
