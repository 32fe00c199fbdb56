// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.util.concurrent.TimeUnit;

/**
 * The bounds of the numeric options every command shares, checked before anything runs: a value the command
 * cannot hold (a timeout whose deadline overflows, a duration that is not a number) is refused with the option, the
 * value and the limit, exit 2.
 */
final class OptionChecks {

    /** Longest {@code --timeout} and campaign duration: a year, far above any run and far below a clock overflow. */
    static final long MAX_SECONDS = TimeUnit.DAYS.toSeconds(365);

    private OptionChecks() {
    }

    /**
     * {@return {@code seconds}, once it is a whole number of seconds from 1 to {@link #MAX_SECONDS}}
     *
     * @param option the option's name, for the message
     * @param seconds its value
     * @throws CommandFailure naming the option and the range
     */
    static long timeout(String option, long seconds) {
        if (seconds < 1) {
            throw new CommandFailure(option + " " + seconds + " must be at least 1 second");
        }
        if (seconds > MAX_SECONDS) {
            throw new CommandFailure(option + " " + seconds + " is above the limit of " + MAX_SECONDS
                    + " seconds (365 days)");
        }
        return seconds;
    }

    /**
     * {@return {@code seconds}, once it is a finite number from 0 to {@link #MAX_SECONDS}, or {@code null}}
     *
     * @param option the option's name, for the message
     * @param seconds its value, or {@code null} when not given
     * @throws CommandFailure naming the option and the range
     */
    static Double duration(String option, Double seconds) {
        if (seconds != null && !(seconds >= 0 && seconds <= MAX_SECONDS)) {
            throw new CommandFailure(option + " " + seconds + " must be from 0 to " + MAX_SECONDS
                    + " seconds (365 days)");
        }
        return seconds;
    }

    /**
     * {@return {@code value}, once it is not negative}
     *
     * @param option the option's name, for the message
     * @param value its value
     * @throws CommandFailure naming the option
     */
    static long notNegative(String option, long value) {
        if (value < 0) {
            throw new CommandFailure(option + " " + value + " must not be negative");
        }
        return value;
    }
}
