// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

/** The provider did something the model forbids. Thrown by {@link World}, caught and reported by {@link Campaign}. */
final class Violation extends RuntimeException {

    private static final long serialVersionUID = 1L;

    Violation(String message) {
        super(message, null, false, false);
    }

    Violation(String message, Throwable cause) {
        super(message, cause, false, true);
    }
}
