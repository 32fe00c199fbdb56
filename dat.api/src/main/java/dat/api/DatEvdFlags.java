// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_EVD_FLAGS}: which kinds of event an EVD accepts.
 */
public final class DatEvdFlags {

    private DatEvdFlags() {
    }

    /** {@code DAT_EVD_SOFTWARE_FLAG}: {@code dat_evd_post_se} events. */
    public static final int SOFTWARE = 0x001;
    /** {@code DAT_EVD_CR_FLAG}: connection requests of a PSP or RSP. */
    public static final int CR = 0x010;
    /** {@code DAT_EVD_DTO_FLAG}: DTO completions. */
    public static final int DTO = 0x020;
    /** {@code DAT_EVD_CONNECTION_FLAG}: connection events of an EP. */
    public static final int CONNECTION = 0x040;
    /** {@code DAT_EVD_RMR_BIND_FLAG}: RMR bind completions. */
    public static final int RMR_BIND = 0x080;
    /** {@code DAT_EVD_ASYNC_FLAG}: asynchronous events of an IA. */
    public static final int ASYNC = 0x100;
    /** {@code DAT_EVD_DEFAULT_FLAG}: every DAT event kind but software events. */
    public static final int DEFAULT = CR | DTO | CONNECTION | RMR_BIND | ASYNC;
    /** Every flag DAT 1.2 defines. */
    public static final int ALL = DEFAULT | SOFTWARE;
}
