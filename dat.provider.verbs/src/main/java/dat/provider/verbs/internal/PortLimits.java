// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.provider.verbs.internal.ffm.IbvPortAttr;
import java.lang.foreign.MemorySegment;

/**
 * The fields of {@code struct ibv_port_attr} a DAT IA's attributes come from.
 *
 * @param state {@code state} ({@code IBV_PORT_*})
 * @param maxMtu {@code max_mtu} ({@code IBV_MTU_*})
 * @param activeMtu {@code active_mtu}
 * @param gidTblLen {@code gid_tbl_len}
 * @param maxMsgSz {@code max_msg_sz} (unsigned 32 bits, widened)
 * @param linkLayer {@code link_layer} ({@code IBV_LINK_LAYER_*})
 */
record PortLimits(int state, int maxMtu, int activeMtu, int gidTblLen, long maxMsgSz, int linkLayer) {

    /**
     * {@return the limits read from {@code attr}}
     *
     * @param attr a filled {@link IbvPortAttr}
     */
    static PortLimits read(MemorySegment attr) {
        return new PortLimits(
                IbvPortAttr.state(attr),
                IbvPortAttr.maxMtu(attr),
                IbvPortAttr.activeMtu(attr),
                IbvPortAttr.gidTblLen(attr),
                Integer.toUnsignedLong(IbvPortAttr.maxMsgSz(attr)),
                Byte.toUnsignedInt(IbvPortAttr.linkLayer(attr)));
    }

    /** {@return the active MTU in bytes, 0 when unknown} */
    int activeMtuBytes() {
        return activeMtu >= 1 && activeMtu <= 5 ? 128 << activeMtu : 0;
    }
}
