// SPDX-License-Identifier: Apache-2.0
package dat.cli;

/**
 * A command could not do what it was asked, for a reason its message gives in one line: bad usage, an unknown or
 * unavailable IA, a provider call that failed or did not return. {@link DatCommand} prints {@code dat COMMAND:
 * MESSAGE} and exits with {@link Exit#USAGE}. An {@link IllegalArgumentException}, as what the arguments
 * asked for cannot be had.
 */
class CommandFailure extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong, naming the argument, provider, IA or file
     */
    CommandFailure(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the argument, provider, IA or file
     * @param cause the failure behind it
     */
    CommandFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
