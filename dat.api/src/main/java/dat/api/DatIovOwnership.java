// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_IOV_OWNERSHIP}: when the consumer may touch an IOV again after a post returns.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatIovOwnership {
    /** {@code DAT_IOV_CONSUMER} = 0: as soon as the post returns; the provider keeps no reference. */
    CONSUMER,
    /** {@code DAT_IOV_PROVIDER_NOMOD} = 1: only after completion; the provider does not modify it. */
    PROVIDER_NOMOD,
    /** {@code DAT_IOV_PROVIDER_MOD} = 2: only after completion; the provider may modify it. */
    PROVIDER_MOD;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
