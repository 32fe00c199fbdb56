// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_EVENT}: a reusable holder one event is written into by {@link DatEvd#dequeue},
 * {@link DatEvd#await} or {@link DatEvd#poll}.
 *
 * <p>Like C's {@code DAT_EVENT}, it is one record with a union of event data: which accessors mean something
 * depends on {@link #type()}. Providers fill it through the {@code set*} methods, which overwrite every field
 * so nothing of an earlier event leaks into a later one. Filling allocates nothing (the private data of
 * connection events is the provider's own immutable copy, made on the control path).
 *
 * <table>
 * <caption>What each kind of event carries</caption>
 * <tr><th>{@link #type()}</th><th>fields</th></tr>
 * <tr><td>{@link DatEventType#DTO_COMPLETION}</td><td>{@link #ep()}, {@link #userCookie()},
 *     {@link #dtoStatus()}, {@link #transferredLength()}</td></tr>
 * <tr><td>{@link DatEventType#RMR_BIND_COMPLETION}</td><td>{@link #rmr()}, {@link #userCookie()},
 *     {@link #dtoStatus()}</td></tr>
 * <tr><td>{@link DatEventType#CONNECTION_REQUEST_EVENT}</td><td>{@link #sp()}, {@link #connQual()},
 *     {@link #cr()}</td></tr>
 * <tr><td>{@code CONNECTION_EVENT_*}</td><td>{@link #ep()}, {@link #privateData()}</td></tr>
 * <tr><td>{@code ASYNC_*}</td><td>{@link #asyncHandle()}, {@link #asyncReason()}</td></tr>
 * <tr><td>{@link DatEventType#SOFTWARE_EVENT}</td><td>{@link #softwareEventValue()}</td></tr>
 * </table>
 */
public final class DatEvent {

    private static final byte[] NO_DATA = new byte[0];

    private DatEventType type;
    private DatEvd evd;
    private DatEp ep;
    private long userCookie;
    private DatDtoStatus dtoStatus;
    private long transferredLength;
    private DatRmr rmr;
    private DatHandle sp;
    private long connQual;
    private DatCr cr;
    private byte[] privateData = NO_DATA;
    private DatHandle asyncHandle;
    private int asyncReason;
    private long softwareEventValue;
    private int nmore;

    /** Creates an empty holder; reuse it for every dequeue. */
    public DatEvent() {
    }

    /** {@return {@code event_number}; {@code null} before the first event was written} */
    public DatEventType type() {
        return type;
    }

    /** {@return {@code evd_handle}: the EVD the event came from} */
    public DatEvd evd() {
        return evd;
    }

    /** {@return the EP of a DTO completion or connection event} */
    public DatEp ep() {
        return ep;
    }

    /** {@return the {@code user_cookie} of a DTO or RMR bind completion} */
    public long userCookie() {
        return userCookie;
    }

    /** {@return the completion status of a DTO or RMR bind completion} */
    public DatDtoStatus dtoStatus() {
        return dtoStatus;
    }

    /**
     * {@return {@code transfered_length} of a DTO completion: the bytes received or sent; not defined when the status
     * is not {@link DatDtoStatus#SUCCESS}}
     */
    public long transferredLength() {
        return transferredLength;
    }

    /** {@return the RMR of an RMR bind completion} */
    public DatRmr rmr() {
        return rmr;
    }

    /** {@return the {@link DatPsp} or {@link DatRsp} of a connection request} */
    public DatHandle sp() {
        return sp;
    }

    /** {@return the connection qualifier a connection request arrived on} */
    public long connQual() {
        return connQual;
    }

    /** {@return the connection request of a {@link DatEventType#CONNECTION_REQUEST_EVENT}} */
    public DatCr cr() {
        return cr;
    }

    /**
     * {@return the private data of a connection event, never {@code null}; a shared read-only copy: do not modify it}
     */
    public byte[] privateData() {
        return privateData;
    }

    /** {@return {@code dat_handle} of an asynchronous event: the IA, EP, EVD or SRQ concerned} */
    public DatHandle asyncHandle() {
        return asyncHandle;
    }

    /** {@return {@code reason} of an asynchronous event, a {@link DatAsyncReason} value} */
    public int asyncReason() {
        return asyncReason;
    }

    /** {@return the value posted with {@code dat_evd_post_se}} */
    public long softwareEventValue() {
        return softwareEventValue;
    }

    /** {@return after {@link DatEvd#await}: how many events remained queued ({@code nmore})} */
    public int nmore() {
        return nmore;
    }

    /**
     * Writes a DTO completion.
     *
     * @param from the EVD
     * @param endpoint the EP the DTO was posted on
     * @param cookie the DTO's user cookie
     * @param status the completion status
     * @param length bytes transferred
     * @return this holder
     */
    public DatEvent setDtoCompletion(DatEvd from, DatEp endpoint, long cookie, DatDtoStatus status,
                                     long length) {
        if (type != DatEventType.DTO_COMPLETION) {
            clear(DatEventType.DTO_COMPLETION, from);
        } else {
            // The holder of a polling loop: every field a DTO completion does not carry is already clear (only the
            // set* methods write those, each after clear, and copyFrom copies a holder written the same way).
            evd = from;
            nmore = 0;
        }
        ep = endpoint;
        userCookie = cookie;
        dtoStatus = status;
        transferredLength = length;
        return this;
    }

    /**
     * Writes an RMR bind completion.
     *
     * @param from the EVD
     * @param region the RMR
     * @param cookie the bind's cookie
     * @param status the completion status
     * @return this holder
     */
    public DatEvent setRmrBindCompletion(DatEvd from, DatRmr region, long cookie, DatDtoStatus status) {
        clear(DatEventType.RMR_BIND_COMPLETION, from);
        this.rmr = region;
        this.userCookie = cookie;
        this.dtoStatus = status;
        return this;
    }

    /**
     * Writes a connection request arrival.
     *
     * @param from the EVD
     * @param servicePoint the PSP or RSP
     * @param qualifier the connection qualifier
     * @param request the request
     * @return this holder
     */
    public DatEvent setConnectionRequest(DatEvd from, DatHandle servicePoint, long qualifier, DatCr request) {
        clear(DatEventType.CONNECTION_REQUEST_EVENT, from);
        this.sp = servicePoint;
        this.connQual = qualifier;
        this.cr = request;
        return this;
    }

    /**
     * Writes a connection event.
     *
     * @param eventType one of the {@code CONNECTION_EVENT_*} types
     * @param from the EVD
     * @param endpoint the EP
     * @param data the private data, or {@code null}
     * @return this holder
     */
    public DatEvent setConnectionEvent(DatEventType eventType, DatEvd from, DatEp endpoint, byte[] data) {
        clear(eventType, from);
        this.ep = endpoint;
        this.privateData = data == null ? NO_DATA : data;
        return this;
    }

    /**
     * Writes an asynchronous event.
     *
     * @param eventType one of the {@code ASYNC_*} types
     * @param from the EVD
     * @param handle the object concerned
     * @param reason a {@link DatAsyncReason} value
     * @return this holder
     */
    public DatEvent setAsyncEvent(DatEventType eventType, DatEvd from, DatHandle handle, int reason) {
        clear(eventType, from);
        this.asyncHandle = handle;
        this.asyncReason = reason;
        return this;
    }

    /**
     * Writes a software event.
     *
     * @param from the EVD
     * @param value the posted value
     * @return this holder
     */
    public DatEvent setSoftwareEvent(DatEvd from, long value) {
        clear(DatEventType.SOFTWARE_EVENT, from);
        this.softwareEventValue = value;
        return this;
    }

    /**
     * Copies every field of {@code other} into this holder.
     *
     * @param other the event to copy
     * @return this holder
     */
    public DatEvent copyFrom(DatEvent other) {
        this.type = other.type;
        this.evd = other.evd;
        this.ep = other.ep;
        this.userCookie = other.userCookie;
        this.dtoStatus = other.dtoStatus;
        this.transferredLength = other.transferredLength;
        this.rmr = other.rmr;
        this.sp = other.sp;
        this.connQual = other.connQual;
        this.cr = other.cr;
        this.privateData = other.privateData;
        this.asyncHandle = other.asyncHandle;
        this.asyncReason = other.asyncReason;
        this.softwareEventValue = other.softwareEventValue;
        this.nmore = other.nmore;
        return this;
    }

    /**
     * Sets {@link #nmore()}; written by {@link DatEvd#await}.
     *
     * @param remaining events still queued
     * @return this holder
     */
    public DatEvent nmore(int remaining) {
        this.nmore = remaining;
        return this;
    }

    private void clear(DatEventType eventType, DatEvd from) {
        this.type = eventType;
        this.evd = from;
        this.ep = null;
        this.userCookie = 0;
        this.dtoStatus = null;
        this.transferredLength = 0;
        this.rmr = null;
        this.sp = null;
        this.connQual = 0;
        this.cr = null;
        this.privateData = NO_DATA;
        this.asyncHandle = null;
        this.asyncReason = 0;
        this.softwareEventValue = 0;
        this.nmore = 0;
    }

    @Override
    public String toString() {
        if (type == null) {
            return "DatEvent[empty]";
        }
        return switch (type) {
            case DTO_COMPLETION -> "DatEvent[" + type + " cookie=" + userCookie + " status=" + dtoStatus
                    + " length=" + transferredLength + "]";
            case RMR_BIND_COMPLETION -> "DatEvent[" + type + " cookie=" + userCookie + " status=" + dtoStatus + "]";
            case CONNECTION_REQUEST_EVENT -> "DatEvent[" + type + " conn_qual=" + connQual + "]";
            case SOFTWARE_EVENT -> "DatEvent[" + type + " value=" + softwareEventValue + "]";
            default -> type.name().startsWith("ASYNC")
                    ? "DatEvent[" + type + " handle=" + asyncHandle + " reason=" + asyncReason + "]"
                    : "DatEvent[" + type + " private_data=" + privateData.length + "B]";
        };
    }
}
