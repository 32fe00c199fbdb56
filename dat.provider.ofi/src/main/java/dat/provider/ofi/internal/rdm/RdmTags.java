// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

/**
 * The 64-bit tags of the RDM association protocol ({@code docs/ofi-rdm-protocol.md}, "Tags"): bits 63..62 the kind,
 * 61..32 the target (an EP or SRQ id), 31..0 the receiving side's connection serial. A receive matches only what it
 * may take, and a message of an ended connection, whose serial is never reused, matches nothing.
 */
public final class RdmTags {

    /** Kind bits of a DAT send to an EP with its own receive queue. */
    public static final long KIND_EP = 0L;
    /** Kind bits of a DAT send to an EP on an SRQ. */
    public static final long KIND_SRQ = 1L << 62;
    /** Kind bits of a control message. */
    public static final long KIND_CONTROL = 2L << 62;
    /** The tag of every control message. */
    public static final long CONTROL = KIND_CONTROL;
    /** The ignore mask of an SRQ's receives: any connection of the SRQ's EPs. */
    public static final long IGNORE_SERIAL = 0xFFFF_FFFFL;
    /** The largest EP or SRQ id: 30 bits. */
    public static final int MAX_ID = (1 << 30) - 1;
    /** In a control message's target field: the id is an SRQ's. */
    public static final int TARGET_SRQ = 1 << 31;

    private static final long KIND_MASK = 3L << 62;

    private RdmTags() {
    }

    /**
     * The tag a sender puts on a DAT send, from the receiver's {@code target} field (its id, with
     * {@link #TARGET_SRQ} set when it is an SRQ's) and serial.
     *
     * @param target the receiver's target field
     * @param receiverSerial the receiver's connection serial
     * @return the tag
     */
    public static long data(int target, int receiverSerial) {
        long kind = (target & TARGET_SRQ) != 0 ? KIND_SRQ : KIND_EP;
        return kind | (long) (target & MAX_ID) << 32 | Integer.toUnsignedLong(receiverSerial);
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
     * The target field for an SRQ's receives.
     *
     * @param srqId the SRQ's id
     * @return the target
     */
    public static int srqTarget(int srqId) {
        return checkId(srqId) | TARGET_SRQ;
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
     * @return the EP or SRQ id
     */
    public static int id(long tag) {
        return (int) (tag >>> 32) & MAX_ID;
    }

    /**
     * Whether a tag is a DAT send to an SRQ.
     *
     * @param tag a received tag
     * @return whether it is
     */
    public static boolean isSrq(long tag) {
        return (tag & KIND_MASK) == KIND_SRQ;
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
