// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_port_attr} (verbs.h): what {@code ibv_query_port} reports for one port.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type               field
 *      0    4  enum ibv_port_state  state
 *      4    4  enum ibv_mtu         max_mtu
 *      8    4  enum ibv_mtu         active_mtu
 *     12    4  int                  gid_tbl_len
 *     16    4  uint32_t             port_cap_flags
 *     20    4  uint32_t             max_msg_sz
 *     24    4  uint32_t             bad_pkey_cntr
 *     28    4  uint32_t             qkey_viol_cntr
 *     32    2  uint16_t             pkey_tbl_len
 *     34    2  uint16_t             lid
 *     36    2  uint16_t             sm_lid
 *     38    1  uint8_t              lmc
 *     39    1  uint8_t              max_vl_num
 *     40    1  uint8_t              sm_sl
 *     41    1  uint8_t              subnet_timeout
 *     42    1  uint8_t              init_type_reply
 *     43    1  uint8_t              active_width
 *     44    1  uint8_t              active_speed
 *     45    1  uint8_t              phys_state
 *     46    1  uint8_t              link_layer
 *     47    1  uint8_t              flags
 *     48    2  uint16_t             port_cap_flags2
 * sizeof 52, alignof 4</pre>
 */
public final class IbvPortAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("state"),
            JAVA_INT.withName("max_mtu"),
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            JAVA_INT.withName("bad_pkey_cntr"),
            JAVA_INT.withName("qkey_viol_cntr"),
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            JAVA_SHORT.withName("sm_lid"),
            JAVA_BYTE.withName("lmc"),
            JAVA_BYTE.withName("max_vl_num"),
            JAVA_BYTE.withName("sm_sl"),
            JAVA_BYTE.withName("subnet_timeout"),
            JAVA_BYTE.withName("init_type_reply"),
            JAVA_BYTE.withName("active_width"),
            JAVA_BYTE.withName("active_speed"),
            JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("port_cap_flags2"),
            MemoryLayout.paddingLayout(2)).withName("struct ibv_port_attr");

    /** {@code sizeof(struct ibv_port_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code state}. */
    public static final long STATE = NativeTypes.offset(LAYOUT, "state");

    /** Offset of {@code max_mtu}. */
    public static final long MAX_MTU = NativeTypes.offset(LAYOUT, "max_mtu");

    /** Offset of {@code active_mtu}. */
    public static final long ACTIVE_MTU = NativeTypes.offset(LAYOUT, "active_mtu");

    /** Offset of {@code gid_tbl_len}. */
    public static final long GID_TBL_LEN = NativeTypes.offset(LAYOUT, "gid_tbl_len");

    /** Offset of {@code port_cap_flags}. */
    public static final long PORT_CAP_FLAGS = NativeTypes.offset(LAYOUT, "port_cap_flags");

    /** Offset of {@code max_msg_sz}. */
    public static final long MAX_MSG_SZ = NativeTypes.offset(LAYOUT, "max_msg_sz");

    /** Offset of {@code bad_pkey_cntr}. */
    public static final long BAD_PKEY_CNTR = NativeTypes.offset(LAYOUT, "bad_pkey_cntr");

    /** Offset of {@code qkey_viol_cntr}. */
    public static final long QKEY_VIOL_CNTR = NativeTypes.offset(LAYOUT, "qkey_viol_cntr");

    /** Offset of {@code pkey_tbl_len}. */
    public static final long PKEY_TBL_LEN = NativeTypes.offset(LAYOUT, "pkey_tbl_len");

    /** Offset of {@code lid}. */
    public static final long LID = NativeTypes.offset(LAYOUT, "lid");

    /** Offset of {@code sm_lid}. */
    public static final long SM_LID = NativeTypes.offset(LAYOUT, "sm_lid");

    /** Offset of {@code lmc}. */
    public static final long LMC = NativeTypes.offset(LAYOUT, "lmc");

    /** Offset of {@code max_vl_num}. */
    public static final long MAX_VL_NUM = NativeTypes.offset(LAYOUT, "max_vl_num");

    /** Offset of {@code sm_sl}. */
    public static final long SM_SL = NativeTypes.offset(LAYOUT, "sm_sl");

    /** Offset of {@code subnet_timeout}. */
    public static final long SUBNET_TIMEOUT = NativeTypes.offset(LAYOUT, "subnet_timeout");

    /** Offset of {@code init_type_reply}. */
    public static final long INIT_TYPE_REPLY = NativeTypes.offset(LAYOUT, "init_type_reply");

    /** Offset of {@code active_width}. */
    public static final long ACTIVE_WIDTH = NativeTypes.offset(LAYOUT, "active_width");

    /** Offset of {@code active_speed}. */
    public static final long ACTIVE_SPEED = NativeTypes.offset(LAYOUT, "active_speed");

    /** Offset of {@code phys_state}. */
    public static final long PHYS_STATE = NativeTypes.offset(LAYOUT, "phys_state");

    /** Offset of {@code link_layer}. */
    public static final long LINK_LAYER = NativeTypes.offset(LAYOUT, "link_layer");

    /** Offset of {@code flags}. */
    public static final long FLAGS = NativeTypes.offset(LAYOUT, "flags");

    /** Offset of {@code port_cap_flags2}. */
    public static final long PORT_CAP_FLAGS2 = NativeTypes.offset(LAYOUT, "port_cap_flags2");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt STATE$LAYOUT = NativeTypes.member(LAYOUT, "state", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_MTU$LAYOUT = NativeTypes.member(LAYOUT, "max_mtu", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt ACTIVE_MTU$LAYOUT =
            NativeTypes.member(LAYOUT, "active_mtu", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt GID_TBL_LEN$LAYOUT =
            NativeTypes.member(LAYOUT, "gid_tbl_len", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt MAX_MSG_SZ$LAYOUT =
            NativeTypes.member(LAYOUT, "max_msg_sz", ValueLayout.OfInt.class);
    static final ValueLayout.OfByte LINK_LAYER$LAYOUT =
            NativeTypes.member(LAYOUT, "link_layer", ValueLayout.OfByte.class);

    /**
     * {@return {@code state} ({@code enum ibv_port_state})}
     *
     * @param struct a {@code struct ibv_port_attr}
     */
    public static int state(MemorySegment struct) {
        return struct.get(STATE$LAYOUT, STATE);
    }

    /**
     * Sets {@code state} ({@code enum ibv_port_state}).
     *
     * @param struct a {@code struct ibv_port_attr}
     * @param value the new value
     */
    public static void state(MemorySegment struct, int value) {
        struct.set(STATE$LAYOUT, STATE, value);
    }

    /**
     * {@return {@code max_mtu} ({@code enum ibv_mtu})}
     *
     * @param struct a {@code struct ibv_port_attr}
     */
    public static int maxMtu(MemorySegment struct) {
        return struct.get(MAX_MTU$LAYOUT, MAX_MTU);
    }

    /**
     * {@return {@code active_mtu} ({@code enum ibv_mtu})}
     *
     * @param struct a {@code struct ibv_port_attr}
     */
    public static int activeMtu(MemorySegment struct) {
        return struct.get(ACTIVE_MTU$LAYOUT, ACTIVE_MTU);
    }

    /**
     * Sets {@code active_mtu} ({@code enum ibv_mtu}).
     *
     * @param struct a {@code struct ibv_port_attr}
     * @param value the new value
     */
    public static void activeMtu(MemorySegment struct, int value) {
        struct.set(ACTIVE_MTU$LAYOUT, ACTIVE_MTU, value);
    }

    /**
     * {@return {@code gid_tbl_len} ({@code int})}
     *
     * @param struct a {@code struct ibv_port_attr}
     */
    public static int gidTblLen(MemorySegment struct) {
        return struct.get(GID_TBL_LEN$LAYOUT, GID_TBL_LEN);
    }

    /**
     * Sets {@code gid_tbl_len} ({@code int}).
     *
     * @param struct a {@code struct ibv_port_attr}
     * @param value the new value
     */
    public static void gidTblLen(MemorySegment struct, int value) {
        struct.set(GID_TBL_LEN$LAYOUT, GID_TBL_LEN, value);
    }

    /**
     * {@return {@code max_msg_sz} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_port_attr}
     */
    public static int maxMsgSz(MemorySegment struct) {
        return struct.get(MAX_MSG_SZ$LAYOUT, MAX_MSG_SZ);
    }

    /**
     * Sets {@code max_msg_sz} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_port_attr}
     * @param value the new value
     */
    public static void maxMsgSz(MemorySegment struct, int value) {
        struct.set(MAX_MSG_SZ$LAYOUT, MAX_MSG_SZ, value);
    }

    /**
     * {@return {@code link_layer} ({@code uint8_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_port_attr}
     */
    public static byte linkLayer(MemorySegment struct) {
        return struct.get(LINK_LAYER$LAYOUT, LINK_LAYER);
    }

    /**
     * Sets {@code link_layer} ({@code uint8_t}, unsigned).
     *
     * @param struct a {@code struct ibv_port_attr}
     * @param value the new value
     */
    public static void linkLayer(MemorySegment struct, byte value) {
        struct.set(LINK_LAYER$LAYOUT, LINK_LAYER, value);
    }

    private IbvPortAttr() {
    }
}
