// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatEventType;
import dat.api.DatQos;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import dat.spi.AbstractEp;
import dat.spi.DatArgs;
import dat.spi.ProviderHandle;
import java.net.InetAddress;

/**
 * An endpoint ({@code dat_ep_create}): one end of a reliable connection. This file is the handle the consumer holds
 * and the words every job reads (the EP state and the connected peer); the work of the DAT calls is split by job,
 * as in jDAT's reference providers, into final classes this one delegates to in one line each:
 * <ul>
 * <li>{@link ExampleEpData}: the data path, {@code dat_ep_post_send}, {@code dat_ep_post_recv},
 *     {@code dat_ep_post_rdma_read} and {@code dat_ep_post_rdma_write}: the two work queues, delivery,
 *     completions and flushes;</li>
 * <li>{@link ExampleEpConnection}: connection management, {@code dat_ep_connect}, {@code dat_ep_dup_connect},
 *     {@code dat_ep_disconnect}, {@code dat_ep_reset}, the establishment of {@code dat_cr_accept}, reservation by
 *     an RSP, the connect timeout, connection events and teardown;</li>
 * <li>{@link ExampleEpControl}: query and modify, {@code dat_ep_query}, {@code dat_ep_modify},
 *     {@code dat_ep_get_status}, and why {@code dat_ep_recv_query} and {@code dat_ep_set_watermark} are refused.</li>
 * </ul>
 * Each job has its own reason to change: a new transport rewrites the data path, a new connection manager the
 * connection, a new attribute the control; the split keeps each change in one file. The data path stays a small
 * final class, so the JIT inlines the one-line calls here and a post costs no more than before the split.
 *
 * <p>The shell ({@link AbstractEp}) answers the handle's return codes and opens {@code dat_ep_disconnect},
 * {@code dat_ep_modify}, {@code dat_ep_recv_query} and {@code dat_ep_set_watermark} with their checks.
 *
 * <h2>Locking</h2>
 * One lock guards everything: the provider-wide {@link Fabric#LOCK}, which is also the shell's lifecycle lock (so
 * {@link #destroy} runs under it). Every job takes it for its whole call, which keeps the two-sided transitions of
 * a connection atomic; a real HCA's provider would split it as the loopback provider does (a connection lock, and
 * send and receive locks per EP).
 */
final class ExampleEp extends AbstractEp<ExampleIa> {

    final ExamplePz pz;
    final ExampleEvd recvEvd;
    final ExampleEvd requestEvd;
    final ExampleEvd connectEvd;

    /** The EP state; guarded by {@link Fabric#LOCK}, written by {@link ExampleEpConnection}. */
    DatEpState state = DatEpState.UNCONNECTED;
    /** The connected peer, or {@code null}; written with {@link #state}. */
    ExampleEp peer;

    /** The data path: posts, queues, delivery, completions. */
    final ExampleEpData data;
    /** Connection management. */
    final ExampleEpConnection connection;
    /** Query and modify. */
    final ExampleEpControl control;

    ExampleEp(ExampleIa ia, ExamplePz pz, ExampleEvd recvEvd, ExampleEvd requestEvd, ExampleEvd connectEvd,
              DatEpAttr attr) {
        super(ia, false);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.data = new ExampleEpData(this, attr);
        this.connection = new ExampleEpConnection(this);
        this.control = new ExampleEpControl(this);
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd;
    }

    /** {@code dat_ep_free}: a connected EP is disconnected abruptly, the peer told; its queued work is dropped. */
    @Override
    protected void destroy() {
        if (state == DatEpState.CONNECTED) {
            connection.breakConnection(false, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        } else if (state == DatEpState.ACTIVE_CONNECTION_PENDING) {
            connection.abandon();
        }
        markClosed();
    }

    // ---- state, read by every job under Fabric.LOCK ----

    void requireState(String call, DatEpState wanted) {
        if (state != wanted) {
            throw DatArgs.epState(call, "ep_handle", state, wanted.toString());
        }
    }

    /** {@return {@code handle} as an open EP of this IA}: the shell's {@link #own} is for subclasses only. */
    ExampleEp ownEp(Object handle, String call, String arg) {
        return own(handle, ExampleEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, arg);
    }

    // ---- data path: ExampleEpData ----

    @Override
    public int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return data.postSend(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return data.postRecv(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                             long length, int completionFlags) {
        return data.postRdmaWrite(numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long length, int completionFlags) {
        return data.postRdmaRead(numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    // ---- connection management: ExampleEpConnection ----

    @Override
    public void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                        DatQos qos, int connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        connection.dupConnect(dupEp, timeoutMicros, privateData, qos);
    }

    @Override
    protected void implDisconnect(DatCloseFlags flags) {
        connection.disconnect(flags);
    }

    @Override
    public void reset() {
        connection.reset();
    }

    // ---- query and modify: ExampleEpControl ----

    @Override
    public DatEpState state() {
        return control.state();
    }

    @Override
    public DatEpStatus getStatus() {
        return control.getStatus();
    }

    @Override
    public DatEpParam query() {
        return control.query();
    }

    @Override
    protected void implModify(DatEpAttr newAttr) {
        control.modify(newAttr);
    }
}
