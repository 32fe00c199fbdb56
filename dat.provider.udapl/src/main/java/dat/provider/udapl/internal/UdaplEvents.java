// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;

import dat.api.DatCr;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatHandle;
import dat.api.DatRmr;
import dat.provider.udapl.internal.ffm.DatStructs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Translates a DAT 2.0 {@code DAT_EVENT} that libdat2 wrote into a jDAT (DAT 1.2) {@link DatEvent}.
 *
 * <p>Where DAT 2.0 and DAT 1.2 differ: {@code transfered_length} is a 32-bit {@code DAT_SEG_LENGTH} (read
 * unsigned); {@code operation}, {@code rmr_context}, {@code truncate_flag} and {@code event_extension_data} have
 * no DAT 1.2 field and are not carried; {@code DAT_DTO_ERR_LOCAL_MM_ERROR} (12, "kdat specific" in
 * {@code dat2/dat.h}) has no DAT 1.2 status and is refused rather than renamed; {@code DAT_HA_DOWN_TO_1},
 * {@code DAT_HA_UP_TO_MULTI_PATH} and the extension ranges are not DAT 1.2 events and are refused too, so the
 * caller reports them instead of the bridge hiding them. A software event's {@code pointer} is the 64-bit value
 * jDAT posted.
 *
 * <p>C handles become Java objects through {@link Handles}; a handle the bridge does not know (not created
 * through it, or already freed) is refused, never turned into a Java object.
 */
public final class UdaplEvents {

    /** Maps C handles (addresses) to the Java objects the bridge created for them. */
    public interface Handles {
        /**
         * {@return the EP with this C handle, or {@code null}}
         *
         * @param c the handle
         */
        DatEp ep(long c);

        /**
         * {@return the RMR with this C handle, or {@code null}}
         *
         * @param c the handle
         */
        DatRmr rmr(long c);

        /**
         * {@return the PSP or RSP with this C handle, or {@code null}}
         *
         * @param c the handle
         */
        DatHandle sp(long c);

        /**
         * {@return a new Java CR for this C handle (libdat2 creates one per connection request), or {@code null}
         * when it cannot be tracked}
         *
         * @param c the handle
         * @param sp the service point it arrived on
         */
        DatCr cr(long c, DatHandle sp);

        /**
         * {@return any object under the IA with this C handle, the IA itself for its handle, or {@code null}}
         *
         * @param c the handle
         */
        DatHandle any(long c);
    }

    /** What {@link #translate} found wrong, {@code null} when it succeeded. */
    public static final class Refusal {
        private String reason;
        private boolean unknownHandle;

        /** Creates one with no reason; one per EVD, reused by every translation. */
        public Refusal() {
        }

        /** {@return why the last translation was refused, or {@code null}} */
        public String reason() {
            return reason;
        }

        /**
         * {@return whether the last translation was refused only because the event names a C handle the bridge does
         * not hold: an object the consumer freed (its flushed work, its last connection event), whose events DAT
         * drops with it}
         */
        public boolean unknownHandle() {
            return unknownHandle;
        }
    }

    /** {@code DAT_IB_DTO_EVENT} ({@code dat2/dat_ib_extensions.h}): {@code DAT_IB_EXTENSION_RANGE_BASE}. */
    static final int DAT_IB_DTO_EVENT = 0x40000;

    /** The largest private data the bridge copies out of a connection event. */
    static final int MAX_PRIVATE_DATA = 65536;

    private static final long NUMBER = offset(DatStructs.DAT_EVENT, "event_number");
    private static final long DATA = offset(DatStructs.DAT_EVENT, "event_data");
    private static final long DTO_EP = DATA + offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle");
    private static final long DTO_COOKIE = DATA + offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "user_cookie");
    private static final long DTO_STATUS = DATA + offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "status");
    private static final long DTO_LENGTH = DATA + offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA,
            "transfered_length");
    private static final long RMR_HANDLE = DATA + offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA,
            "rmr_handle");
    private static final long RMR_COOKIE = DATA + offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA,
            "user_cookie");
    private static final long RMR_STATUS = DATA + offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "status");
    private static final long CR_SP = DATA + offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "sp_handle");
    private static final long CR_QUAL = DATA + offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "conn_qual");
    private static final long CR_HANDLE = DATA + offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "cr_handle");
    private static final long CONN_EP = DATA + offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "ep_handle");
    private static final long CONN_SIZE = DATA + offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "private_data_size");
    private static final long CONN_DATA = DATA + offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "private_data");
    private static final long ASYNC_HANDLE = DATA + offset(DatStructs.DAT_ASYNCH_ERROR_EVENT_DATA, "dat_handle");
    private static final long ASYNC_REASON = DATA + offset(DatStructs.DAT_ASYNCH_ERROR_EVENT_DATA, "reason");

    private UdaplEvents() {
    }

    /**
     * Fills {@code out} from the {@code DAT_EVENT} at {@code event}.
     *
     * @param event a {@code DAT_EVENT}, at least {@code sizeof(DAT_EVENT)} bytes
     * @param evd the Java EVD the event was dequeued from
     * @param handles the bridge's handle map
     * @param out the event to fill
     * @param refusal where the reason goes when the event is refused
     * @return whether {@code out} holds the event
     */
    public static boolean translate(MemorySegment event, DatEvd evd, Handles handles, DatEvent out,
                                    Refusal refusal) {
        refusal.reason = null;
        refusal.unknownHandle = false;
        int number = event.get(ValueLayout.JAVA_INT, NUMBER);
        if (number == DAT_IB_DTO_EVENT) {
            return ibDto(event, evd, handles, out, refusal);
        }
        DatEventType type = type(number);
        if (type == null) {
            return refuse(refusal, "C event number 0x" + Integer.toHexString(number) + " has no DAT 1.2 event");
        }
        return switch (type) {
            case DTO_COMPLETION -> dto(event, evd, handles, out, refusal);
            case RMR_BIND_COMPLETION -> rmrBind(event, evd, handles, out, refusal);
            case CONNECTION_REQUEST_EVENT -> request(event, evd, handles, out, refusal);
            case SOFTWARE_EVENT -> {
                out.setSoftwareEvent(evd, event.get(ValueLayout.JAVA_LONG, DATA));
                yield true;
            }
            default -> type.evdFlag() == DatEvdFlags.CONNECTION ? connection(type, event, evd, handles, out,
                    refusal) : async(type, event, evd, handles, out, refusal);
        };
    }

    /**
     * {@return the DAT 1.2 event type of a DAT 2.0 event number, or {@code null} when DAT 1.2 has none}
     *
     * @param number {@code event_number}
     */
    static DatEventType type(int number) {
        for (DatEventType t : DatEventType.values()) {
            // 0x08006/0x08007 are jDAT's SRQ watermark events; DAT 2.0's dat.h numbers no event so (it reports
            // watermarks as async error reasons), so a C event with those numbers is not one of them.
            if (t.value() == number && number != 0x08006 && number != 0x08007) {
                return t;
            }
        }
        return null;
    }

    /**
     * {@return the DAT 1.2 DTO status, or {@code null} for DAT 2.0's kdat-only LOCAL_MM_ERROR or unknown}
     *
     * @param status {@code DAT_DTO_COMPLETION_STATUS}
     */
    static DatDtoStatus status(int status) {
        return status >= 0 && status < DatDtoStatus.values().length ? DatDtoStatus.of(status) : null;
    }

    private static boolean dto(MemorySegment e, DatEvd evd, Handles h, DatEvent out, Refusal r) {
        long c = e.get(ValueLayout.JAVA_LONG, DTO_EP);
        DatEp ep = h.ep(c);
        if (ep == null) {
            return unknown(r, "DTO completion names EP handle 0x" + Long.toHexString(c) + " the bridge does not know");
        }
        int code = e.get(ValueLayout.JAVA_INT, DTO_STATUS);
        DatDtoStatus status = status(code);
        if (status == null) {
            return refuse(r, "DTO completion status " + code + " has no DAT 1.2 status");
        }
        out.setDtoCompletion(evd, ep, e.get(ValueLayout.JAVA_LONG, DTO_COOKIE), status,
                Integer.toUnsignedLong(e.get(ValueLayout.JAVA_INT, DTO_LENGTH)));
        return true;
    }

    /**
     * OFA's IB extension DTO event. {@code dapli_evd_cqe_to_event} ({@code dapl/common/dapl_evd_util.c}) reports a
     * receive whose work completion's opcode is not a receive as {@code DAT_IB_DTO_EVENT}; verbs leaves the opcode
     * of a failed completion undefined, so every flushed or failed receive arrives so, with the EP, cookie and DAT
     * status in {@code dto_completion_event_data} ({@code dapls_cqe_to_event_extension}) and no length. Such an
     * event is the completion of the consumer's {@code dat_ep_post_recv}, and DAT 1.2 has no other event for it:
     * it becomes a DTO completion of length 0. A successful extension operation (immediate data, atomics), which
     * no jDAT call posts, is refused.
     */
    private static boolean ibDto(MemorySegment e, DatEvd evd, Handles h, DatEvent out, Refusal r) {
        int code = e.get(ValueLayout.JAVA_INT, DTO_STATUS);
        if (code == 0) {
            return refuse(r, "C event number 0x" + Integer.toHexString(DAT_IB_DTO_EVENT)
                    + " (DAT_IB_DTO_EVENT) of a successful IB extension operation has no DAT 1.2 event");
        }
        long c = e.get(ValueLayout.JAVA_LONG, DTO_EP);
        DatEp ep = h.ep(c);
        if (ep == null) {
            return unknown(r, "DAT_IB_DTO_EVENT names EP handle 0x" + Long.toHexString(c)
                    + " the bridge does not know");
        }
        DatDtoStatus status = status(code);
        if (status == null) {
            return refuse(r, "DAT_IB_DTO_EVENT status " + code + " has no DAT 1.2 status");
        }
        out.setDtoCompletion(evd, ep, e.get(ValueLayout.JAVA_LONG, DTO_COOKIE), status, 0);
        return true;
    }

    private static boolean rmrBind(MemorySegment e, DatEvd evd, Handles h, DatEvent out, Refusal r) {
        long c = e.get(ValueLayout.JAVA_LONG, RMR_HANDLE);
        DatRmr rmr = h.rmr(c);
        if (rmr == null) {
            return unknown(r, "RMR bind completion names RMR handle 0x" + Long.toHexString(c)
                    + " the bridge does not know");
        }
        int code = e.get(ValueLayout.JAVA_INT, RMR_STATUS);
        DatDtoStatus status = status(code);
        if (status == null) {
            return refuse(r, "RMR bind status " + code + " has no DAT 1.2 status");
        }
        out.setRmrBindCompletion(evd, rmr, e.get(ValueLayout.JAVA_LONG, RMR_COOKIE), status);
        return true;
    }

    private static boolean request(MemorySegment e, DatEvd evd, Handles h, DatEvent out, Refusal r) {
        long spHandle = e.get(ValueLayout.JAVA_LONG, CR_SP);
        DatHandle sp = h.sp(spHandle);
        if (sp == null) {
            return unknown(r, "connection request names service point 0x" + Long.toHexString(spHandle)
                    + " the bridge does not know");
        }
        long crHandle = e.get(ValueLayout.JAVA_LONG, CR_HANDLE);
        DatCr cr = crHandle == 0 ? null : h.cr(crHandle, sp);
        if (cr == null) {
            return refuse(r, "connection request with CR handle 0x" + Long.toHexString(crHandle)
                    + " cannot be tracked");
        }
        out.setConnectionRequest(evd, sp, e.get(ValueLayout.JAVA_LONG, CR_QUAL), cr);
        return true;
    }

    @SuppressWarnings("restricted") // private data libdat2 owns until the next dequeue; read within its size only
    private static boolean connection(DatEventType type, MemorySegment e, DatEvd evd, Handles h, DatEvent out,
                                      Refusal r) {
        long c = e.get(ValueLayout.JAVA_LONG, CONN_EP);
        DatEp ep = h.ep(c);
        if (ep == null) {
            return unknown(r, type + " names EP handle 0x" + Long.toHexString(c) + " the bridge does not know");
        }
        int size = e.get(ValueLayout.JAVA_INT, CONN_SIZE);
        long pointer = e.get(ValueLayout.JAVA_LONG, CONN_DATA);
        byte[] data = null;
        if (size > 0 && pointer != 0) {
            if (size > MAX_PRIVATE_DATA) {
                return refuse(r, type + " claims " + size + " bytes of private data, more than any DAT provider"
                        + " sends (" + MAX_PRIVATE_DATA + ")");
            }
            data = MemorySegment.ofAddress(pointer).reinterpret(size).toArray(ValueLayout.JAVA_BYTE);
        }
        out.setConnectionEvent(type, evd, ep, data);
        return true;
    }

    private static boolean async(DatEventType type, MemorySegment e, DatEvd evd, Handles h, DatEvent out,
                                 Refusal r) {
        long c = e.get(ValueLayout.JAVA_LONG, ASYNC_HANDLE);
        DatHandle handle = h.any(c);
        if (handle == null) {
            return unknown(r, type + " names handle 0x" + Long.toHexString(c) + " the bridge does not know");
        }
        out.setAsyncEvent(type, evd, handle, e.get(ValueLayout.JAVA_INT, ASYNC_REASON));
        return true;
    }

    private static boolean unknown(Refusal r, String reason) {
        r.reason = reason;
        r.unknownHandle = true;
        return false;
    }

    private static boolean refuse(Refusal r, String reason) {
        r.reason = reason;
        return false;
    }
}
