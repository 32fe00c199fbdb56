// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

/**
 * A native library could not be loaded or lacks a function jDAT binds; the message says which and how to
 * install it, and becomes the provider's unavailable reason.
 */
public final class LibraryUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception of a library that cannot be used.
     *
     * @param message what is missing and the fix
     * @param cause the loader's failure, or {@code null}
     */
    public LibraryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
