// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.util.Objects;

/**
 * The one exception of the control path: a DAT call that did not return {@code DAT_SUCCESS}.
 *
 * <p>It carries the {@link DatReturn} type and {@link DatReturnSubtype}, and a message that names the argument
 * at fault and why, for example {@code "dat_srq_resize: srq_max_recv_dto 4 is below the 6 outstanding
 * buffers"}. The data path never throws it: it returns {@link #code()}'s value instead.
 */
public class DatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The return type: what class of failure, with its DAT code. */
    private final DatReturn type;
    /** What exactly, {@link DatReturnSubtype#NO_SUBTYPE} when the return type has none. */
    private final DatReturnSubtype subtype;

    /**
     * Creates the exception of a failed control-path call.
     *
     * @param type the return type; not {@link DatReturn#SUCCESS}
     * @param subtype the subtype, {@link DatReturnSubtype#NO_SUBTYPE} when none applies
     * @param message what was wrong, naming the argument
     */
    public DatException(DatReturn type, DatReturnSubtype subtype, String message) {
        this(type, subtype, message, null);
    }

    /**
     * Creates the exception of a failed control-path call whose return type has no subtype.
     *
     * @param type the return type
     * @param message what was wrong, naming the argument
     */
    public DatException(DatReturn type, String message) {
        this(type, DatReturnSubtype.NO_SUBTYPE, message, null);
    }

    /**
     * Creates the exception of a call that failed because another did (a native call, a parse).
     *
     * @param type the return type
     * @param subtype the subtype
     * @param message what was wrong
     * @param cause the underlying failure, or {@code null}
     */
    public DatException(DatReturn type, DatReturnSubtype subtype, String message, Throwable cause) {
        super(message, cause);
        this.type = Objects.requireNonNull(type, "type");
        this.subtype = Objects.requireNonNull(subtype, "subtype");
        if (type == DatReturn.SUCCESS) {
            throw new IllegalArgumentException("a DatException cannot carry DAT_SUCCESS");
        }
    }

    /**
     * Turns a data-path status into an exception, for consumers that want to throw on failure.
     *
     * @param status a non-success status
     * @param what the call and context, used as the message
     * @return the exception (not thrown)
     */
    public static DatException of(int status, String what) {
        return new DatException(DatReturn.of(status), DatReturnSubtype.of(status),
                what + ": " + DatReturn.toString(status));
    }

    /** {@return the return type} */
    public DatReturn type() {
        return type;
    }

    /** {@return the subtype} */
    public DatReturnSubtype subtype() {
        return subtype;
    }

    /**
     * The full DAT status, as the C call would return it. It includes the subtype, so it equals a type constant
     * such as {@link DatReturn#DAT_INVALID_PARAMETER} only when the subtype is {@link DatReturnSubtype#NO_SUBTYPE}:
     * to ask for the type, use {@link #is(DatReturn)} ({@code DAT_GET_TYPE(status) == DAT_INVALID_PARAMETER} in C).
     *
     * @return {@code DAT_CLASS_ERROR | type | subtype}
     */
    public int code() {
        return type.code(subtype);
    }

    /**
     * Compares the DAT return type, whatever the subtype: {@code e.is(DatReturn.INVALID_PARAMETER)} holds for
     * {@code DAT_INVALID_PARAMETER} with or without {@code DAT_INVALID_ARG3}.
     *
     * @param expected the type
     * @return whether this exception carries that type
     */
    public boolean is(DatReturn expected) {
        return type == Objects.requireNonNull(expected, "expected");
    }

    @Override
    public String getMessage() {
        String detail = super.getMessage();
        String name = subtype == DatReturnSubtype.NO_SUBTYPE
                ? "DAT_" + type.name() : "DAT_" + type.name() + "/" + subtype.name();
        return detail == null ? name : name + ": " + detail;
    }
}
