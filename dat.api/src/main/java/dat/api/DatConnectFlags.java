// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_CONNECT_FLAGS} of {@code dat_ep_connect}.
 */
public final class DatConnectFlags {

    private DatConnectFlags() {
    }

    /** {@code DAT_CONNECT_DEFAULT_FLAG}. */
    public static final int DEFAULT = 0x00;
    /** {@code DAT_CONNECT_MULTIPATH_FLAG}: only where {@code supports_multipath}. */
    public static final int MULTIPATH = 0x01;
}
