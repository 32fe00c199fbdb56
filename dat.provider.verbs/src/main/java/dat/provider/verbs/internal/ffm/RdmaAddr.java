// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;


import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct rdma_addr} (rdma_cma.h): source and destination of an rdma_cm id.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0   16  struct sockaddr          src_addr
 *      0   16  struct sockaddr_in       src_sin
 *      0   28  struct sockaddr_in6      src_sin6
 *      0  128  struct sockaddr_storage  src_storage
 *    128   16  struct sockaddr          dst_addr
 *    128   16  struct sockaddr_in       dst_sin
 *    128   28  struct sockaddr_in6      dst_sin6
 *    128  128  struct sockaddr_storage  dst_storage
 *    256   40  struct rdma_ib_addr      addr.ibaddr
 * sizeof 296, alignof 8</pre>
 */
public final class RdmaAddr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.unionLayout(
                    Sockaddr.LAYOUT.withName("src_addr"),
                    SockaddrIn.LAYOUT.withName("src_sin"),
                    SockaddrIn6.LAYOUT.withName("src_sin6"),
                    SockaddrStorage.LAYOUT.withName("src_storage")),
            MemoryLayout.unionLayout(
                    Sockaddr.LAYOUT.withName("dst_addr"),
                    SockaddrIn.LAYOUT.withName("dst_sin"),
                    SockaddrIn6.LAYOUT.withName("dst_sin6"),
                    SockaddrStorage.LAYOUT.withName("dst_storage")),
            MemoryLayout.unionLayout(
                    RdmaIbAddr.LAYOUT.withName("ibaddr")).withName("addr")).withName("struct rdma_addr");

    /** {@code sizeof(struct rdma_addr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code src_addr}. */
    public static final long SRC_ADDR = NativeTypes.offset(LAYOUT, "src_addr");

    /** Offset of {@code src_sin}. */
    public static final long SRC_SIN = NativeTypes.offset(LAYOUT, "src_sin");

    /** Offset of {@code src_sin6}. */
    public static final long SRC_SIN6 = NativeTypes.offset(LAYOUT, "src_sin6");

    /** Offset of {@code src_storage}. */
    public static final long SRC_STORAGE = NativeTypes.offset(LAYOUT, "src_storage");

    /** Offset of {@code dst_addr}. */
    public static final long DST_ADDR = NativeTypes.offset(LAYOUT, "dst_addr");

    /** Offset of {@code dst_sin}. */
    public static final long DST_SIN = NativeTypes.offset(LAYOUT, "dst_sin");

    /** Offset of {@code dst_sin6}. */
    public static final long DST_SIN6 = NativeTypes.offset(LAYOUT, "dst_sin6");

    /** Offset of {@code dst_storage}. */
    public static final long DST_STORAGE = NativeTypes.offset(LAYOUT, "dst_storage");

    /** Offset of {@code addr.ibaddr}. */
    public static final long ADDR_IBADDR = NativeTypes.offset(LAYOUT, "addr.ibaddr");

    private RdmaAddr() {
    }
}
