// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

/** libfabric could not be loaded or lacks a function; the message is the fix. */
public final class LibraryUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    LibraryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
