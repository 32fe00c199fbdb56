// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_QOS}: requested quality of service of a connection. A provider's {@code dat_qos_supported} is a
 * mask of these values ({@link #BEST_EFFORT} is 0 and always supported).
 */
public enum DatQos {
    /** {@code DAT_QOS_BEST_EFFORT} = 0x00. */
    BEST_EFFORT(0x00),
    /** {@code DAT_QOS_HIGH_THROUGHPUT} = 0x01. */
    HIGH_THROUGHPUT(0x01),
    /** {@code DAT_QOS_LOW_LATENCY} = 0x02. */
    LOW_LATENCY(0x02),
    /** {@code DAT_QOS_ECONOMY} = 0x04. */
    ECONOMY(0x04),
    /** {@code DAT_QOS_PREMIUM} = 0x08. */
    PREMIUM(0x08);

    private final int value;

    DatQos(int value) {
        this.value = value;
    }

    /** {@return the DAT 1.2 value} */
    public int value() {
        return value;
    }

    /**
     * {@return whether {@code supportedMask} includes this QoS}
     *
     * @param supportedMask a {@code dat_qos_supported} mask
     */
    public boolean isIn(int supportedMask) {
        return (supportedMask & value) == value;
    }
}
