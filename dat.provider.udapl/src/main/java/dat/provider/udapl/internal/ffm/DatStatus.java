// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * A DAT 2.0 {@code DAT_RETURN} from libdat2, mapped to jDAT's DAT 1.2 codes. The types agree numerically except
 * {@code DAT_NOT_IMPLEMENTED} (0x3FFF0000 in 2.0, 0x0FFF0000 in 1.2) and the three 2.0 adds
 * ({@code DAT_RESERVED_LMR}, {@code DAT_PORT_IN_USE}, {@code DAT_COMM_NOT_SUPPORTED}); the subtypes agree by
 * name, not by number, since 2.0 inserted {@code DAT_INVALID_HANDLE_CSP} and
 * {@code DAT_INVALID_STATE_SRQ_SHUTDOWN}.
 */
public final class DatStatus {

    /** {@code DAT_RETURN_SUBTYPE} of {@code dat2/dat_error.h}, in declaration order (value = index). */
    static final String[] SUBTYPES_2_0 = {
            "DAT_NO_SUBTYPE",
            "DAT_SUB_INTERRUPTED",
            "DAT_RESOURCE_MEMORY",
            "DAT_RESOURCE_DEVICE",
            "DAT_RESOURCE_TEP",
            "DAT_RESOURCE_TEVD",
            "DAT_RESOURCE_PROTECTION_DOMAIN",
            "DAT_RESOURCE_MEMORY_REGION",
            "DAT_RESOURCE_ERROR_HANDLER",
            "DAT_RESOURCE_CREDITS",
            "DAT_RESOURCE_SRQ",
            "DAT_INVALID_HANDLE_IA",
            "DAT_INVALID_HANDLE_EP",
            "DAT_INVALID_HANDLE_LMR",
            "DAT_INVALID_HANDLE_RMR",
            "DAT_INVALID_HANDLE_PZ",
            "DAT_INVALID_HANDLE_PSP",
            "DAT_INVALID_HANDLE_RSP",
            "DAT_INVALID_HANDLE_CR",
            "DAT_INVALID_HANDLE_CNO",
            "DAT_INVALID_HANDLE_EVD_CR",
            "DAT_INVALID_HANDLE_EVD_REQUEST",
            "DAT_INVALID_HANDLE_EVD_RECV",
            "DAT_INVALID_HANDLE_EVD_CONN",
            "DAT_INVALID_HANDLE_EVD_ASYNC",
            "DAT_INVALID_HANDLE_SRQ",
            "DAT_INVALID_HANDLE_CSP",
            "DAT_INVALID_HANDLE1",
            "DAT_INVALID_HANDLE2",
            "DAT_INVALID_HANDLE3",
            "DAT_INVALID_HANDLE4",
            "DAT_INVALID_HANDLE5",
            "DAT_INVALID_HANDLE6",
            "DAT_INVALID_HANDLE7",
            "DAT_INVALID_HANDLE8",
            "DAT_INVALID_HANDLE9",
            "DAT_INVALID_HANDLE10",
            "DAT_INVALID_ARG1",
            "DAT_INVALID_ARG2",
            "DAT_INVALID_ARG3",
            "DAT_INVALID_ARG4",
            "DAT_INVALID_ARG5",
            "DAT_INVALID_ARG6",
            "DAT_INVALID_ARG7",
            "DAT_INVALID_ARG8",
            "DAT_INVALID_ARG9",
            "DAT_INVALID_ARG10",
            "DAT_INVALID_STATE_EP_UNCONNECTED",
            "DAT_INVALID_STATE_EP_ACTCONNPENDING",
            "DAT_INVALID_STATE_EP_PASSCONNPENDING",
            "DAT_INVALID_STATE_EP_TENTCONNPENDING",
            "DAT_INVALID_STATE_EP_CONNECTED",
            "DAT_INVALID_STATE_EP_DISCONNECTED",
            "DAT_INVALID_STATE_EP_RESERVED",
            "DAT_INVALID_STATE_EP_COMPLPENDING",
            "DAT_INVALID_STATE_EP_DISCPENDING",
            "DAT_INVALID_STATE_EP_PROVIDERCONTROL",
            "DAT_INVALID_STATE_EP_NOTREADY",
            "DAT_INVALID_STATE_EP_RECV_WATERMARK",
            "DAT_INVALID_STATE_EP_PZ",
            "DAT_INVALID_STATE_EP_EVD_REQUEST",
            "DAT_INVALID_STATE_EP_EVD_RECV",
            "DAT_INVALID_STATE_EP_EVD_CONNECT",
            "DAT_INVALID_STATE_EP_UNCONFIGURED",
            "DAT_INVALID_STATE_EP_UNCONFRESERVED",
            "DAT_INVALID_STATE_EP_UNCONFPASSIVE",
            "DAT_INVALID_STATE_EP_UNCONFTENTATIVE",
            "DAT_INVALID_STATE_CNO_IN_USE",
            "DAT_INVALID_STATE_CNO_DEAD",
            "DAT_INVALID_STATE_EVD_OPEN",
            "DAT_INVALID_STATE_EVD_ENABLED",
            "DAT_INVALID_STATE_EVD_DISABLED",
            "DAT_INVALID_STATE_EVD_WAITABLE",
            "DAT_INVALID_STATE_EVD_UNWAITABLE",
            "DAT_INVALID_STATE_EVD_IN_USE",
            "DAT_INVALID_STATE_EVD_CONFIG_NOTIFY",
            "DAT_INVALID_STATE_EVD_CONFIG_SOLICITED",
            "DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD",
            "DAT_INVALID_STATE_EVD_WAITER",
            "DAT_INVALID_STATE_EVD_ASYNC",
            "DAT_INVALID_STATE_IA_IN_USE",
            "DAT_INVALID_STATE_LMR_IN_USE",
            "DAT_INVALID_STATE_LMR_FREE",
            "DAT_INVALID_STATE_PZ_IN_USE",
            "DAT_INVALID_STATE_PZ_FREE",
            "DAT_INVALID_STATE_SRQ_OPERATIONAL",
            "DAT_INVALID_STATE_SRQ_ERROR",
            "DAT_INVALID_STATE_SRQ_IN_USE",
            "DAT_INVALID_STATE_SRQ_SHUTDOWN",
            "DAT_PRIVILEGES_READ",
            "DAT_PRIVILEGES_WRITE",
            "DAT_PRIVILEGES_RDMA_READ",
            "DAT_PRIVILEGES_RDMA_WRITE",
            "DAT_PROTECTION_READ",
            "DAT_PROTECTION_WRITE",
            "DAT_PROTECTION_RDMA_READ",
            "DAT_PROTECTION_RDMA_WRITE",
            "DAT_INVALID_ADDRESS_UNSUPPORTED",
            "DAT_INVALID_ADDRESS_UNREACHABLE",
            "DAT_INVALID_ADDRESS_MALFORMED",
            "DAT_NAME_NOT_REGISTERED",
            "DAT_MAJOR_NOT_FOUND",
            "DAT_MINOR_NOT_FOUND",
            "DAT_THREAD_SAFETY_NOT_FOUND",
    };

    /** DAT 2.0 {@code DAT_NOT_IMPLEMENTED}. */
    public static final int DAT2_NOT_IMPLEMENTED = 0x3FFF0000;
    /** DAT 2.0 {@code DAT_RESERVED_LMR} (kDAPL). */
    public static final int DAT2_RESERVED_LMR = 0x00150000;
    /** DAT 2.0 {@code DAT_PORT_IN_USE}. */
    public static final int DAT2_PORT_IN_USE = 0x00160000;
    /** DAT 2.0 {@code DAT_COMM_NOT_SUPPORTED}. */
    public static final int DAT2_COMM_NOT_SUPPORTED = 0x00170000;

    private static final DatReturnSubtype[] SUBTYPE_OF = new DatReturnSubtype[SUBTYPES_2_0.length];

    static {
        for (int i = 0; i < SUBTYPES_2_0.length; i++) {
            SUBTYPE_OF[i] = subtypeNamed(SUBTYPES_2_0[i].substring("DAT_".length()));
        }
    }

    private DatStatus() {
    }

    private static DatReturnSubtype subtypeNamed(String name) {
        for (DatReturnSubtype s : DatReturnSubtype.values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    /**
     * {@return whether a DAT 2.0 status is a success (type zero; a warning class with type zero counts)}
     *
     * @param status the status
     */
    public static boolean ok(int status) {
        return (status & 0x3fff0000) == 0;
    }

    /**
     * {@return the jDAT type of a DAT 2.0 status} {@code DAT_PORT_IN_USE} is a connection qualifier in use, the
     * 1.2 name of that; {@code DAT_RESERVED_LMR} and {@code DAT_COMM_NOT_SUPPORTED}, which 1.2 lacks, are
     * internal errors.
     *
     * @param status the DAT 2.0 status
     */
    public static DatReturn type(int status) {
        int type = status & 0x3fff0000;
        return switch (type) {
            case DAT2_NOT_IMPLEMENTED -> DatReturn.NOT_IMPLEMENTED;
            case DAT2_PORT_IN_USE -> DatReturn.CONN_QUAL_IN_USE;
            case DAT2_RESERVED_LMR, DAT2_COMM_NOT_SUPPORTED -> DatReturn.INTERNAL_ERROR;
            default -> {
                for (DatReturn r : DatReturn.values()) {
                    if (r.type() == type) {
                        yield r;
                    }
                }
                yield DatReturn.INTERNAL_ERROR;
            }
        };
    }

    /**
     * {@return the jDAT subtype of a DAT 2.0 status, {@code NO_SUBTYPE} for one 1.2 lacks}
     *
     * @param status the DAT 2.0 status
     */
    public static DatReturnSubtype subtype(int status) {
        int sub = status & 0xffff;
        DatReturnSubtype s = sub < SUBTYPE_OF.length ? SUBTYPE_OF[sub] : null;
        return s == null ? DatReturnSubtype.NO_SUBTYPE : s;
    }

    /**
     * {@return the DAT 2.0 name of a status, for example {@code DAT_INVALID_PARAMETER/DAT_INVALID_ARG2}}
     *
     * @param status the DAT 2.0 status
     */
    public static String describe(int status) {
        int sub = status & 0xffff;
        String subName = sub < SUBTYPES_2_0.length ? SUBTYPES_2_0[sub] : "subtype " + sub;
        int type = status & 0x3fff0000;
        String typeName = switch (type) {
            case DAT2_NOT_IMPLEMENTED -> "DAT_NOT_IMPLEMENTED";
            case DAT2_PORT_IN_USE -> "DAT_PORT_IN_USE";
            case DAT2_RESERVED_LMR -> "DAT_RESERVED_LMR";
            case DAT2_COMM_NOT_SUPPORTED -> "DAT_COMM_NOT_SUPPORTED";
            default -> "DAT_" + type(status).name();
        };
        return String.format("%s/%s (0x%08x)", typeName, subName, status);
    }

    /**
     * {@return the exception a failed C call becomes: its mapped type and subtype, the call and the C status}
     *
     * @param call the C function, for the message
     * @param status its DAT 2.0 status
     */
    public static DatException exception(String call, int status) {
        return new DatException(type(status), subtype(status), call + " (C uDAPL) returned " + describe(status));
    }
}
