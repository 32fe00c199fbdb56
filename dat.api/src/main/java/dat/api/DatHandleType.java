// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_HANDLE_TYPE}, as {@code dat_get_handle_type} reports it.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatHandleType {
    /** {@code DAT_HANDLE_TYPE_CR} = 0. */
    CR,
    /** {@code DAT_HANDLE_TYPE_EP} = 1. */
    EP,
    /** {@code DAT_HANDLE_TYPE_EVD} = 2. */
    EVD,
    /** {@code DAT_HANDLE_TYPE_IA} = 3. */
    IA,
    /** {@code DAT_HANDLE_TYPE_LMR} = 4. */
    LMR,
    /** {@code DAT_HANDLE_TYPE_PSP} = 5. */
    PSP,
    /** {@code DAT_HANDLE_TYPE_PZ} = 6. */
    PZ,
    /** {@code DAT_HANDLE_TYPE_RMR} = 7. */
    RMR,
    /** {@code DAT_HANDLE_TYPE_RSP} = 8. */
    RSP,
    /** {@code DAT_HANDLE_TYPE_CNO} = 9. */
    CNO,
    /** {@code DAT_HANDLE_TYPE_SRQ} = 10. */
    SRQ;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
