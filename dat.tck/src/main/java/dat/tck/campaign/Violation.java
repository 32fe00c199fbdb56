// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

/**
 * The provider did something the model forbids. Thrown by {@link World} and its parts, caught and reported by
 * {@link Campaign} with the invariant it broke by name.
 */
final class Violation extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The campaign's invariants, named as a failure report prints them. */
    enum Invariant {
        /** Every call returns what its page says, the data path a status, never an exception. */
        STATUS("every call returns the status its page names"),
        /** The completion oracle's rule. */
        COMPLETIONS("every completion exactly once, in order per queue, with the cookie, status and length the"
                + " model allows"),
        /** What the model owes arrives in time. */
        OWED_EVENTS("every completion and event the model owes arrives"),
        /** Connection events. */
        CONNECTION_EVENTS("one DISCONNECTED or BROKEN event per side when a connection ends"),
        /** The shadow-memory invariant. */
        MEMORY("no byte of registered memory changes that no post held, also after dat_lmr_free"),
        /** A transfer's bytes. */
        BYTES("a transfer delivers the bytes it was given"),
        /** Counts reported by queries. */
        COUNTS("counts within the bounds the model knows"),
        /** Every step returns. */
        NO_HANG("no call hangs");

        private final String rule;

        Invariant(String rule) {
            this.rule = rule;
        }

        @Override
        public String toString() {
            return rule;
        }
    }

    private final Invariant invariant;

    Violation(String message) {
        this(Invariant.STATUS, message);
    }

    Violation(Invariant invariant, String message) {
        super(message, null, false, false);
        this.invariant = invariant;
    }

    Violation(String message, Throwable cause) {
        this(Invariant.STATUS, message, cause);
    }

    Violation(Invariant invariant, String message, Throwable cause) {
        super(message, cause, false, true);
        this.invariant = invariant;
    }

    /** {@return the invariant the provider broke} */
    Invariant invariant() {
        return invariant;
    }
}
