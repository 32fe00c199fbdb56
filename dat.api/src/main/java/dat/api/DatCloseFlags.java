// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_CLOSE_FLAGS} of {@code dat_ia_close} and {@code dat_ep_disconnect}.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatCloseFlags {
    /** {@code DAT_CLOSE_ABRUPT_FLAG} = 0 (also {@code DAT_CLOSE_DEFAULT}): tear down now,
            flushing what is outstanding. */
    ABRUPT,
    /** {@code DAT_CLOSE_GRACEFUL_FLAG} = 1: let outstanding work finish first. */
    GRACEFUL;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
