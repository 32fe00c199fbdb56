// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_PZ_SUPPORT}: how protection zones relate across IAs.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatPzSupport {
    /** {@code DAT_PZ_UNIQUE} = 0: a PZ belongs to one IA. */
    UNIQUE,
    /** {@code DAT_PZ_SAME} = 1. */
    SAME,
    /** {@code DAT_PZ_SHAREABLE} = 2. */
    SHAREABLE;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
