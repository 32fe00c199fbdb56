// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_EP_CREATOR_FOR_PSP}: whether the provider creates EPs for PSP requests.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatEpCreator {
    /** {@code DAT_PSP_CREATES_EP_NEVER} = 0. */
    NEVER,
    /** {@code DAT_PSP_CREATES_EP_IFASKED} = 1: when the PSP has {@link DatPspFlags#PROVIDER}. */
    IFASKED,
    /** {@code DAT_PSP_CREATES_EP_ALWAYS} = 2. */
    ALWAYS;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
