// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_SERVICE_TYPE} of an EP.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatServiceType {
    /** {@code DAT_SERVICE_TYPE_RC} = 0: reliable connected, the only DAT 1.2 service. */
    RC;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
