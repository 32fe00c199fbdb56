// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.AbstractCr;
import dat.spi.DatArgs;

/**
 * A connection request on the passive side: created by {@code dat_ep_connect}, consumed by {@code dat_cr_accept}
 * or {@code dat_cr_reject}, moved by {@code dat_cr_handoff}. Not in the IA's handle set: it lives only until it is
 * answered, and freeing it unanswered rejects it (the shell's {@code close()} calls {@link #rejectQuietly()}).
 */
final class ExampleCr extends AbstractCr<ExampleIa, ExampleEp> {

    private final ExampleEp requester;
    /** The requester's port qualifier, {@code remote_port_qual} of the request. */
    private final long requesterQual;
    private final byte[] privateData;
    private Fabric.Listener listener;

    ExampleCr(Fabric.Listener listener, ExampleEp requester, long requesterQual, byte[] privateData) {
        super(listener.owner());
        this.listener = listener;
        this.requester = requester;
        this.requesterQual = requesterQual;
        this.privateData = privateData;
    }

    /** Queues the request on a listener's CR EVD; @return false when that EVD was full */
    boolean arrive(Fabric.Listener to, long connQual) {
        listener = to;
        if (to instanceof ExampleRsp rsp) {
            // An RSP serves one request; a second connect finds no listener.
            rsp.consumed();
        }
        return to.crEvd().request(to.handle(), connQual, this);
    }

    /** The requester gave up (timeout, disconnect, free): the request can no longer be answered. */
    void withdraw() {
        markClosed();
    }

    @Override
    public DatCrParam query() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_cr_query");
            return new DatCrParam(Fabric.ADDRESS, requesterQual, privateData.clone(),
                    listener.reservedEp());
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public void accept(DatEp ep, byte[] acceptData) {
        String call = "dat_cr_accept";
        Fabric.LOCK.lock();
        try {
            requireOpen(call);
            ExampleEp passive = acceptingEp(call, ep, listener.reservedEp());
            ExampleEpConnection.checkPrivateData(call, acceptData, DatReturnSubtype.INVALID_ARG4);
            passive.connection.requireAcceptable(call, listener.reservedEp() != null);
            markClosed();
            if (!requester.connection.awaits(this)) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.NO_SUBTYPE, call
                        + ": the requester no longer waits (it timed out, disconnected or was freed)");
            }
            requester.connection.established(passive, listener.qualifier(),
                    acceptData == null ? null : acceptData.clone());
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public void reject() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_cr_reject");
            markClosed();
            if (requester.connection.awaits(this)) {
                requester.connection.refused(DatEventType.CONNECTION_EVENT_PEER_REJECTED);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public void handoff(long handoffConnQual) {
        String call = "dat_cr_handoff";
        Fabric.LOCK.lock();
        try {
            requireOpen(call);
            Fabric.Listener to = Fabric.listener(handoffConnQual);
            if (!(to instanceof ExamplePsp) || to.owner() != owner()) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": no PSP of IA "
                        + owner().name() + " listens on conn_qual " + handoffConnQual);
            }
            if (!arrive(to, handoffConnQual)) {
                markClosed();
                if (requester.connection.awaits(this)) {
                    requester.connection.refused(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
                }
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** Freeing a request nobody answered rejects it, so the requester is not left waiting. */
    @Override
    protected void rejectQuietly() {
        Fabric.LOCK.lock();
        try {
            if (!isClosed()) {
                reject();
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }
}
