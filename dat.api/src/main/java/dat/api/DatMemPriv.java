// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_MEM_PRIV_FLAGS}: what a DTO may do with registered memory.
 */
public final class DatMemPriv {

    private DatMemPriv() {
    }

    /** {@code DAT_MEM_PRIV_NONE_FLAG}. */
    public static final int NONE = 0x00;
    /** {@code DAT_MEM_PRIV_LOCAL_READ_FLAG}: sends and RDMA writes may read it. */
    public static final int LOCAL_READ = 0x01;
    /** {@code DAT_MEM_PRIV_REMOTE_READ_FLAG}: a peer may RDMA-read it. */
    public static final int REMOTE_READ = 0x02;
    /** {@code DAT_MEM_PRIV_LOCAL_WRITE_FLAG}: receives and RDMA reads may write it. */
    public static final int LOCAL_WRITE = 0x10;
    /** {@code DAT_MEM_PRIV_REMOTE_WRITE_FLAG}: a peer may RDMA-write it. */
    public static final int REMOTE_WRITE = 0x20;
    /** {@code DAT_MEM_PRIV_ALL_FLAG}. */
    public static final int ALL = LOCAL_READ | REMOTE_READ | LOCAL_WRITE | REMOTE_WRITE;
}
