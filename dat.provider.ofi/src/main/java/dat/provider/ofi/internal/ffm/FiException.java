// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

/**
 * A libfabric control call failed: the call's name and its {@code -FI_E*} code, described by {@code fi_strerror}.
 * The data path never throws it; it returns the code.
 */
public final class FiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The positive FI_E* code. */
    private final int errno;

    FiException(String call, int errno, String text) {
        super(call + " failed: " + text + " (" + errno + ")");
        this.errno = errno;
    }

    /** {@return the positive FI_E* code} */
    public int errno() {
        return errno;
    }
}
