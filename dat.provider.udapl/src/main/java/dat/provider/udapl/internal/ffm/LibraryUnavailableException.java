// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

/** {@code libdat2.so.2} or one of its functions is not there; the message says how to install it. */
public final class LibraryUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    LibraryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
