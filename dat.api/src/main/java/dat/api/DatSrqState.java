// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_SRQ_STATE}.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatSrqState {
    /** {@code DAT_SRQ_STATE_OPERATIONAL} = 0. */
    OPERATIONAL,
    /** {@code DAT_SRQ_STATE_ERROR} = 1: the SRQ failed; posted buffers are flushed. */
    ERROR;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
