// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

/**
 * The 64-bit tags of the RDM association protocol ({@code docs/ofi-rdm-protocol.md}, "Tags"): bits 63..62 the kind,
 * 61..32 the target (the receiving EP's id), 31..0 the receiving side's connection serial. A receive matches only
 * what it may take, and a message of an ended connection, whose serial is never reused, matches nothing.
 */
public final class RdmTags {

    /** Kind bits of a DAT send (an EP on an SRQ receives into buffers it was lent, as its own receives). */
    public static final long KIND_EP = 0L;
    /** Kind bits of a control message. */
    public static final long KIND_CONTROL = 2L << 62;
    /** The tag of every control message. */
    public static final long CONTROL = KIND_CONTROL;
    /** The largest EP id: 30 bits. */
    public static final int MAX_ID = (1 << 30) - 1;

    private static final long KIND_MASK = 3L << 62;

    private RdmTags() {
    }

    /**
     * The tag a sender puts on a DAT send, from the receiver's {@code target} field (its EP id) and serial.
     *
     * @param target the receiver's target field
     * @param receiverSerial the receiver's connection serial
     * @return the tag
     */
    public static long data(int target, int receiverSerial) {
        return KIND_EP | (long) (target & MAX_ID) << 32 | Integer.toUnsignedLong(receiverSerial);
    }

    /**
     * The target field for an EP's own receive queue.
     *
     * @param epId the EP's id
     * @return the target
     */
    public static int epTarget(int epId) {
        return checkId(epId);
    }

    /**
     * The serial bits of a received message's tag: with the target, which connection sent it.
     *
     * @param tag a received tag
     * @return the serial
     */
    public static int serial(long tag) {
        return (int) tag;
    }

    /**
     * The id bits of a received message's tag.
     *
     * @param tag a received tag
     * @return the EP id
     */
    public static int id(long tag) {
        return (int) (tag >>> 32) & MAX_ID;
    }

    /**
     * Whether a tag is a control message's.
     *
     * @param tag a received tag
     * @return whether it is
     */
    public static boolean isControl(long tag) {
        return (tag & KIND_MASK) == KIND_CONTROL;
    }

    private static int checkId(int id) {
        if (id <= 0 || id > MAX_ID) {
            throw new IllegalArgumentException("id " + id + " is outside 1.." + MAX_ID);
        }
        return id;
    }
}
