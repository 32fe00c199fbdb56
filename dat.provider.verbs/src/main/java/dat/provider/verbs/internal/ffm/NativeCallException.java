// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

/**
 * A libibverbs or librdmacm call on the control path failed: the C function's name, its errno and the C
 * library's text for it, for example {@code ibv_create_cq: ENOMEM (Cannot allocate memory)}. The DAT objects
 * turn it into a {@code DatException} with the matching {@code DatReturn}.
 */
public final class NativeCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The C function that failed. */
    private final String function;
    /** Its errno value, 0 when the library gave none. */
    private final int errno;

    /**
     * Creates the exception of a failed verbs or rdma_cm call.
     *
     * @param function the C function that failed
     * @param errno its errno value (0 when the library gave none)
     */
    public NativeCallException(String function, int errno) {
        super(function + ": " + Errno.describe(errno));
        this.function = function;
        this.errno = errno;
    }

    /** {@return the C function that failed} */
    public String function() {
        return function;
    }

    /** {@return the errno value, as in {@code <errno.h>}} */
    public int errno() {
        return errno;
    }
}
