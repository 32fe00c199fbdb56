// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_PSP_FLAGS} of {@code dat_psp_create}.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatPspFlags {
    /** {@code DAT_PSP_CONSUMER_FLAG} = 0: the consumer supplies the EP at accept. */
    CONSUMER,
    /** {@code DAT_PSP_PROVIDER_FLAG} = 1: the provider creates an EP per request (see {@code ep_creator}). */
    PROVIDER;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
