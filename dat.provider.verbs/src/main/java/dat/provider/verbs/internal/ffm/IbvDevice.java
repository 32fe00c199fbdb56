// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_device} (verbs.h): one entry of {@code ibv_get_device_list}; only the identity fields are read.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0    8  void *                   _ops._dummy1
 *      8    8  void *                   _ops._dummy2
 *     16    4  enum ibv_node_type       node_type
 *     20    4  enum ibv_transport_type  transport_type
 *     24   64  char[64]                 name
 *     88   64  char[64]                 dev_name
 *    152  256  char[256]                dev_path
 *    408  256  char[256]                ibdev_path
 * sizeof 664, alignof 8</pre>
 */
public final class IbvDevice {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.structLayout(
                    ADDRESS.withName("_dummy1"),
                    ADDRESS.withName("_dummy2")).withName("_ops"),
            JAVA_INT.withName("node_type"),
            JAVA_INT.withName("transport_type"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("name"),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("dev_name"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("dev_path"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("ibdev_path")).withName("struct ibv_device");

    /** {@code sizeof(struct ibv_device)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code node_type}. */
    public static final long NODE_TYPE = NativeTypes.offset(LAYOUT, "node_type");

    /** Offset of {@code transport_type}. */
    public static final long TRANSPORT_TYPE = NativeTypes.offset(LAYOUT, "transport_type");

    /** Offset of {@code name}. */
    public static final long NAME = NativeTypes.offset(LAYOUT, "name");

    /** Offset of {@code dev_name}. */
    public static final long DEV_NAME = NativeTypes.offset(LAYOUT, "dev_name");

    /** Offset of {@code dev_path}. */
    public static final long DEV_PATH = NativeTypes.offset(LAYOUT, "dev_path");

    /** Offset of {@code ibdev_path}. */
    public static final long IBDEV_PATH = NativeTypes.offset(LAYOUT, "ibdev_path");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt TRANSPORT_TYPE$LAYOUT =
            NativeTypes.member(LAYOUT, "transport_type", ValueLayout.OfInt.class);

    /**
     * {@return {@code transport_type} ({@code enum ibv_transport_type})}
     *
     * @param struct a {@code struct ibv_device}
     */
    public static int transportType(MemorySegment struct) {
        return struct.get(TRANSPORT_TYPE$LAYOUT, TRANSPORT_TYPE);
    }

    private IbvDevice() {
    }
}
