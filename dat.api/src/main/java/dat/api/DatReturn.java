// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_RETURN_TYPE}: what kind of outcome a DAT call had.
 *
 * <p>A DAT status is a 32-bit value: bits 31-30 the class ({@link #CLASS_ERROR}), bits 29-16 the type,
 * bits 15-0 the {@link DatReturnSubtype}. Data-path calls return it as an {@code int}: {@link #DAT_SUCCESS}
 * is 0 and every error has the class-error bit set, so it is negative. The {@code DAT_*} int constants below
 * are the statuses with no subtype, ready to compare against; {@link #of(int)} maps any status back to its
 * type and {@link DatReturnSubtype#of(int)} to its subtype, neither allocating.
 *
 * <p>The control path throws {@link DatException}, which carries the same type and subtype.
 */
public enum DatReturn {
    /** {@code DAT_SUCCESS}. */
    SUCCESS(0x00000000),
    /** {@code DAT_ABORT}: the call was aborted, for example a wait woken by its EVD's free or its IA's close. */
    ABORT(0x00010000),
    /** {@code DAT_CONN_QUAL_IN_USE}: the connection qualifier is already listened on. */
    CONN_QUAL_IN_USE(0x00020000),
    /** {@code DAT_INSUFFICIENT_RESOURCES}: a queue, table or memory limit was reached. */
    INSUFFICIENT_RESOURCES(0x00030000),
    /** {@code DAT_INTERNAL_ERROR}: the provider failed in a way the consumer did not cause. */
    INTERNAL_ERROR(0x00040000),
    /** {@code DAT_INVALID_HANDLE}: a handle is closed, of the wrong type, or of another IA. */
    INVALID_HANDLE(0x00050000),
    /** {@code DAT_INVALID_PARAMETER}: an argument is out of range or malformed. */
    INVALID_PARAMETER(0x00060000),
    /** {@code DAT_INVALID_STATE}: the object is not in a state that allows the call. */
    INVALID_STATE(0x00070000),
    /** {@code DAT_LENGTH_ERROR}: a buffer is too small for the data, or data exceeds a size limit. */
    LENGTH_ERROR(0x00080000),
    /** {@code DAT_MODEL_NOT_SUPPORTED}: the provider does not support the requested model or feature. */
    MODEL_NOT_SUPPORTED(0x00090000),
    /** {@code DAT_PROVIDER_NOT_FOUND} (also {@code DAT_NAME_NOT_FOUND}): no provider offers that IA. */
    PROVIDER_NOT_FOUND(0x000A0000),
    /** {@code DAT_PRIVILEGES_VIOLATION}: memory lacks a privilege the access needs, or its LMR is unknown. */
    PRIVILEGES_VIOLATION(0x000B0000),
    /** {@code DAT_PROTECTION_VIOLATION}: memory and endpoint belong to different protection zones. */
    PROTECTION_VIOLATION(0x000C0000),
    /** {@code DAT_QUEUE_EMPTY}: no event to dequeue. */
    QUEUE_EMPTY(0x000D0000),
    /** {@code DAT_QUEUE_FULL}: the queue has no room. */
    QUEUE_FULL(0x000E0000),
    /** {@code DAT_TIMEOUT_EXPIRED}: a wait ran out of time. */
    TIMEOUT_EXPIRED(0x000F0000),
    /** {@code DAT_PROVIDER_ALREADY_REGISTERED}. */
    PROVIDER_ALREADY_REGISTERED(0x00100000),
    /** {@code DAT_PROVIDER_IN_USE}. */
    PROVIDER_IN_USE(0x00110000),
    /** {@code DAT_INVALID_ADDRESS}: an IA address no reachable IA has. */
    INVALID_ADDRESS(0x00120000),
    /** {@code DAT_INTERRUPTED_CALL}: a wait was interrupted ({@link Thread#interrupt()}). */
    INTERRUPTED_CALL(0x00130000),
    /** {@code DAT_CONN_QUAL_UNAVAILABLE}: no connection qualifier is free. */
    CONN_QUAL_UNAVAILABLE(0x00140000),
    /** {@code DAT_NOT_IMPLEMENTED}: the provider does not implement the call (DAT 1.2 value). */
    NOT_IMPLEMENTED(0x0FFF0000);

    /** {@code DAT_CLASS_ERROR}: set in every error status. */
    public static final int CLASS_ERROR = 0x80000000;
    /** {@code DAT_CLASS_WARNING}. */
    public static final int CLASS_WARNING = 0x40000000;
    /** {@code DAT_TYPE_MASK}. */
    public static final int TYPE_MASK = 0x3fff0000;
    /** {@code DAT_SUBTYPE_MASK}. */
    public static final int SUBTYPE_MASK = 0x0000ffff;

    /** Status of a successful call. */
    public static final int DAT_SUCCESS = 0;
    /** Error status {@link #ABORT}. */
    public static final int DAT_ABORT = CLASS_ERROR | 0x00010000;
    /** Error status {@link #CONN_QUAL_IN_USE}. */
    public static final int DAT_CONN_QUAL_IN_USE = CLASS_ERROR | 0x00020000;
    /** Error status {@link #INSUFFICIENT_RESOURCES}. */
    public static final int DAT_INSUFFICIENT_RESOURCES = CLASS_ERROR | 0x00030000;
    /** Error status {@link #INTERNAL_ERROR}. */
    public static final int DAT_INTERNAL_ERROR = CLASS_ERROR | 0x00040000;
    /** Error status {@link #INVALID_HANDLE}. */
    public static final int DAT_INVALID_HANDLE = CLASS_ERROR | 0x00050000;
    /** Error status {@link #INVALID_PARAMETER}. */
    public static final int DAT_INVALID_PARAMETER = CLASS_ERROR | 0x00060000;
    /** Error status {@link #INVALID_STATE}. */
    public static final int DAT_INVALID_STATE = CLASS_ERROR | 0x00070000;
    /** Error status {@link #LENGTH_ERROR}. */
    public static final int DAT_LENGTH_ERROR = CLASS_ERROR | 0x00080000;
    /** Error status {@link #MODEL_NOT_SUPPORTED}. */
    public static final int DAT_MODEL_NOT_SUPPORTED = CLASS_ERROR | 0x00090000;
    /** Error status {@link #PROVIDER_NOT_FOUND}. */
    public static final int DAT_PROVIDER_NOT_FOUND = CLASS_ERROR | 0x000A0000;
    /** Error status {@link #PRIVILEGES_VIOLATION}. */
    public static final int DAT_PRIVILEGES_VIOLATION = CLASS_ERROR | 0x000B0000;
    /** Error status {@link #PROTECTION_VIOLATION}. */
    public static final int DAT_PROTECTION_VIOLATION = CLASS_ERROR | 0x000C0000;
    /** Error status {@link #QUEUE_EMPTY}. */
    public static final int DAT_QUEUE_EMPTY = CLASS_ERROR | 0x000D0000;
    /** Error status {@link #QUEUE_FULL}. */
    public static final int DAT_QUEUE_FULL = CLASS_ERROR | 0x000E0000;
    /** Error status {@link #TIMEOUT_EXPIRED}. */
    public static final int DAT_TIMEOUT_EXPIRED = CLASS_ERROR | 0x000F0000;
    /** Error status {@link #INVALID_ADDRESS}. */
    public static final int DAT_INVALID_ADDRESS = CLASS_ERROR | 0x00120000;
    /** Error status {@link #INTERRUPTED_CALL}. */
    public static final int DAT_INTERRUPTED_CALL = CLASS_ERROR | 0x00130000;
    /** Error status {@link #NOT_IMPLEMENTED}. */
    public static final int DAT_NOT_IMPLEMENTED = CLASS_ERROR | 0x0FFF0000;

    /** Types indexed by {@code type >>> 16}, for the types numbered 0 to 0x14. */
    private static final DatReturn[] DENSE = new DatReturn[0x15];

    static {
        for (DatReturn r : values()) {
            int index = r.type >>> 16;
            if (index < DENSE.length) {
                DENSE[index] = r;
            }
        }
    }

    private final int type;

    DatReturn(int type) {
        this.type = type;
    }

    /** {@return the {@code DAT_RETURN_TYPE} value, without class bits} */
    public int type() {
        return type;
    }

    /** {@return the status a call returns for this type with no subtype ({@code DAT_CLASS_ERROR | type})} */
    public int code() {
        return this == SUCCESS ? 0 : CLASS_ERROR | type;
    }

    /**
     * The status for this type with a subtype, as C's {@code DAT_ERROR(type, subtype)}.
     *
     * @param subtype the subtype
     * @return the status
     */
    public int code(DatReturnSubtype subtype) {
        return this == SUCCESS ? 0 : CLASS_ERROR | type | subtype.value();
    }

    /**
     * Maps a status to its type, without allocating. The class bits are ignored, as some C providers
     * leave them out.
     *
     * @param status any DAT status
     * @return its type
     * @throws IllegalArgumentException when the type bits hold no DAT 1.2 type
     */
    public static DatReturn of(int status) {
        int type = status & TYPE_MASK;
        int index = type >>> 16;
        if (index < DENSE.length) {
            return DENSE[index];
        }
        if (type == NOT_IMPLEMENTED.type) {
            return NOT_IMPLEMENTED;
        }
        throw new IllegalArgumentException("not a DAT 1.2 status: 0x" + Integer.toHexString(status));
    }

    /**
     * Whether {@code status} is a success (its type bits are zero).
     *
     * @param status any DAT status
     * @return {@code true} for {@code DAT_SUCCESS}, with or without a warning class
     */
    public static boolean isSuccess(int status) {
        return (status & TYPE_MASK) == 0;
    }

    /**
     * A readable name for a status, for logs and messages: {@code DAT_INVALID_PARAMETER/INVALID_ARG2}.
     *
     * @param status any DAT status
     * @return its type and, when present, subtype name
     */
    public static String toString(int status) {
        String type;
        try {
            type = "DAT_" + of(status).name();
        } catch (IllegalArgumentException e) {
            return "0x" + Integer.toHexString(status);
        }
        DatReturnSubtype subtype = DatReturnSubtype.of(status);
        return subtype == DatReturnSubtype.NO_SUBTYPE ? type : type + "/" + subtype.name();
    }
}
