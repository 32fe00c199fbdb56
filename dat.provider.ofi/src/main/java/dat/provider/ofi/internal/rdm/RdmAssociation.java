// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import dat.api.DatEventType;

/**
 * One DAT connection over two RDM endpoints: the state machine of {@code docs/ofi-rdm-protocol.md}, "The
 * association". It owns no native resource and reads no clock: the EP feeds it calls, control messages and the
 * time, and it answers through its {@link Port} (messages to send, DAT connection events, flushes). So every order
 * of messages, timeouts and peer deaths can be driven by a test without a fabric.
 *
 * <p>Every association reports exactly one outcome: {@link DatEventType#CONNECTION_EVENT_ESTABLISHED} followed by
 * one of {@code DISCONNECTED} or {@code BROKEN}, or one of {@code PEER_REJECTED}, {@code NON_PEER_REJECTED},
 * {@code UNREACHABLE}, {@code TIMED_OUT}, {@code ACCEPT_COMPLETION_ERROR} or {@code DISCONNECTED} alone; every
 * end flushes the EP once. Not thread safe: the EP's lock guards it.
 */
public final class RdmAssociation {

    /** Where an association is. */
    public enum State {
        /** Neither connecting nor connected. */
        IDLE,
        /** Active side: the request is out, no answer yet. */
        REQUESTED,
        /** Passive side: the accept is out, no {@code READY} yet. */
        ACCEPTING,
        /** Both sides may send. */
        CONNECTED,
        /** A graceful disconnect waits for the EP's sends or the peer's acknowledgement. */
        DISCONNECTING,
        /** Ended; the association is not used again (a new connection takes a new one). */
        CLOSED
    }

    /** What the association asks of its EP. */
    public interface Port {
        /**
         * Sends a request to the listen endpoint of the connection's remote address and qualifier.
         *
         * @param request a {@link RdmControl.Type#REQUEST}
         */
        void sendRequest(RdmControl request);

        /**
         * Sends a control message to the peer's control endpoint ({@link RdmAssociation#peerControl()}).
         *
         * @param message the message
         */
        void send(RdmControl message);

        /**
         * Reports a DAT connection event on the EP's connection EVD.
         *
         * @param type the event
         * @param privateData the peer's private data ({@code ESTABLISHED} on the active side), else {@code null}
         */
        void event(DatEventType type, byte[] privateData);

        /** Completes every request and receive the EP still has with {@code DAT_DTO_ERR_FLUSHED}. */
        void flush();

        /**
         * A {@code FENCE}, {@code FENCE_ACK}, {@code CHECK} or {@code CHECK_ACK} of the peer, for the EP to act on
         * and answer ({@link RdmAssociation#exchange}).
         *
         * @param message the message
         */
        void exchange(RdmControl message);
    }

    /**
     * The protocol's timeouts, in nanoseconds.
     *
     * @param keepAlive how long the peer may be silent before a {@code PING}
     * @param peerGone how long the peer may be silent before the connection is broken
     * @param disconnect how long a graceful disconnect waits for the EP's sends and the peer's acknowledgement
     * @param accept how long an accepted request waits for {@code READY}
     * @param linger how long a closing IA waits for a live peer process to take in its control endpoint's name
     *     ({@link ShmIntroductions})
     */
    public record Timeouts(long keepAlive, long peerGone, long disconnect, long accept, long linger) {
        /** Checks that every timeout is positive and the peer gets a probe before it is given up. */
        public Timeouts {
            if (keepAlive <= 0 || peerGone <= keepAlive || disconnect <= 0 || accept <= 0 || linger <= 0) {
                throw new IllegalArgumentException("timeouts must be positive and peerGone > keepAlive: " + keepAlive
                    + ", " + peerGone + ", " + disconnect + ", " + accept + ", " + linger);
            }
        }
    }

    private final Port port;
    private final Timeouts timeouts;
    private final int localEp;
    private final int localTarget;
    private final byte[] localIa;
    private final byte[] localControl;
    private final byte[] localData;
    private final int localReadDepth;

    private State state = State.IDLE;
    private int serial;
    private long qualifier;
    private int peerEp;
    private int peerSerial;
    private int peerTarget;
    private int peerReadDepth;
    private byte[] peerControl;
    private byte[] peerData;
    private byte[] peerIa;
    private long peerQualifier;
    private long deadline = Long.MAX_VALUE;
    private long lastHeard;
    private long lastPing;
    private boolean disconnectSent;
    private boolean ended;

    /**
     * An idle association of one EP.
     *
     * @param port where its messages, events and flushes go
     * @param timeouts the protocol's timeouts
     * @param localEp the EP's id
     * @param localTarget where the peer sends the EP's messages ({@link RdmTags#epTarget})
     * @param localIa the IA's address, 16 bytes
     * @param localControl the IA's control-endpoint address
     * @param localData the EP's data-endpoint address
     * @param localReadDepth the EP's incoming RDMA read depth
     */
    public RdmAssociation(Port port, Timeouts timeouts, int localEp, int localTarget, byte[] localIa,
                          byte[] localControl, byte[] localData, int localReadDepth) {
        this.port = port;
        this.timeouts = timeouts;
        this.localEp = localEp;
        this.localTarget = localTarget;
        this.localIa = localIa.clone();
        this.localControl = localControl.clone();
        this.localData = localData.clone();
        this.localReadDepth = localReadDepth;
    }

    /**
     * {@code dat_ep_connect}: sends the request and waits for its answer until {@code now + timeout}
     * ({@link Long#MAX_VALUE}: no timeout).
     *
     * @param newSerial the connection's serial, from the IA's {@link RdmSerials}
     * @param remoteQualifier the remote PSP's or RSP's qualifier
     * @param privateData the request's private data, or {@code null}
     * @param timeout nanoseconds to wait for the answer
     * @param now the time
     * @throws IllegalStateException when the association is not idle
     */
    public void connect(int newSerial, long remoteQualifier, byte[] privateData, long timeout, long now) {
        require(State.IDLE);
        serial = newSerial;
        qualifier = remoteQualifier;
        state = State.REQUESTED;
        deadline = timeout == Long.MAX_VALUE ? Long.MAX_VALUE : now + timeout;
        port.sendRequest(new RdmControl(RdmControl.Type.REQUEST, localEp, serial, 0, 0, localTarget,
                                        remoteQualifier, localIa, localReadDepth, localControl, localData,
                                        privateData));
    }

    /**
     * {@code dat_cr_accept}: answers {@code request} with an accept and waits for {@code READY}.
     *
     * @param request the request the CR carries
     * @param newSerial the connection's serial, from the IA's {@link RdmSerials}
     * @param localQualifier the PSP's or RSP's qualifier, sent back as the accept's qualifier
     * @param privateData the accept's private data, or {@code null}
     * @param now the time
     * @throws IllegalStateException when the association is not idle
     */
    public void accept(RdmControl request, int newSerial, long localQualifier, byte[] privateData, long now) {
        require(State.IDLE);
        if (request.type() != RdmControl.Type.REQUEST) {
            throw new IllegalArgumentException("not a request: " + request);
        }
        serial = newSerial;
        qualifier = localQualifier;
        learnPeer(request);
        state = State.ACCEPTING;
        deadline = now + timeouts.accept();
        lastHeard = now;
        port.send(new RdmControl(RdmControl.Type.ACCEPT, localEp, serial, peerEp, peerSerial, localTarget,
                                 localQualifier, localIa, localReadDepth, localControl, localData,
                                 privateData));
    }

    /**
     * A control message for this association (its receiver EP and serial are this association's, or it is the
     * accept of its request). Returns false when the message does not belong to the association's state or peer;
     * it is then dropped and changes nothing.
     *
     * @param m the message
     * @param now the time
     * @return whether the message belonged to the association
     */
    public boolean onControl(RdmControl m, long now) {
        if (m.receiverEp() != localEp || m.receiverSerial() != serial || serial == 0) {
            return false;
        }
        if (state == State.REQUESTED) {
            return onAnswer(m, now);
        }
        if (state == State.IDLE || state == State.CLOSED || m.senderEp() != peerEp || m.senderSerial() != peerSerial) {
            return false;
        }
        lastHeard = now;
        return switch (m.type()) {
            case READY -> state == State.ACCEPTING && established(null, now);
            case DISCONNECT -> {
                disconnectSent = true;
                // The flush first: the EP tells the peer what landed (its last advert) before the acknowledgement
                // ends the peer's side (docs/ofi-rdm-protocol.md, "Delivery").
                boolean ended = end(state == State.ACCEPTING
                    ? DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
                    : DatEventType.CONNECTION_EVENT_DISCONNECTED);
                port.send(reply(RdmControl.Type.DISCONNECT_ACK));
                yield ended;
            }
            case DISCONNECT_ACK -> state == State.DISCONNECTING && end(DatEventType.CONNECTION_EVENT_DISCONNECTED);
            case PING -> {
                port.send(reply(RdmControl.Type.PONG));
                yield true;
            }
            case PONG -> true;
            case FENCE, FENCE_ACK, CHECK, CHECK_ACK -> {
                port.exchange(m);
                yield true;
            }
            default -> false;
        };
    }

    /**
     * Sends a {@code FENCE} ({@code dat_lmr_free} of a region the peer may write), a {@code CHECK} (an RDMA operation
     * that did not complete), or the answer to the peer's ({@link Port#exchange} brings the peer's).
     *
     * @param type {@code FENCE}, {@code FENCE_ACK}, {@code CHECK} or {@code CHECK_ACK}
     * @param payload the message's private data, or {@code null}
     * @return whether it went: the peer is known (accepting, connected or disconnecting), so it may write
     */
    public boolean exchange(RdmControl.Type type, byte[] payload) {
        if (state != State.ACCEPTING && state != State.CONNECTED && state != State.DISCONNECTING) {
            return false;
        }
        port.send(new RdmControl(type, localEp, serial, peerEp, peerSerial, localTarget, qualifier, localIa, 0, null,
                                 null, payload));
        return true;
    }

    private boolean onAnswer(RdmControl m, long now) {
        return switch (m.type()) {
            case ACCEPT -> {
                learnPeer(m);
                port.send(reply(RdmControl.Type.READY));
                yield established(m.privateData(), now);
            }
            case REJECT -> end(DatEventType.CONNECTION_EVENT_PEER_REJECTED);
            default -> false;
        };
    }

    /**
     * The request's send completed in error: {@code noListener} when the fabric said no endpoint has the listen
     * address (nothing listens at the qualifier), else the peer could not be reached.
     *
     * @param noListener whether the fabric said the listen address does not exist
     */
    public void requestFailed(boolean noListener) {
        if (state == State.REQUESTED) {
            end(noListener ? DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED
                           : DatEventType.CONNECTION_EVENT_UNREACHABLE);
        }
    }

    /** A send to the peer (a control message or a DAT operation) completed in error: the peer is gone. */
    public void sendFailed() {
        switch (state) {
            case REQUESTED -> end(DatEventType.CONNECTION_EVENT_UNREACHABLE);
            case ACCEPTING -> end(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            case CONNECTED, DISCONNECTING -> {
                disconnectSent = true; // the peer cannot take it
                end(DatEventType.CONNECTION_EVENT_BROKEN);
            }
            default -> {
            }
        }
    }

    /**
     * {@code dat_ep_disconnect}. Abrupt: ends now. Graceful on a connection: sends {@code DISCONNECT} once the
     * EP's sends completed ({@code sendsPending} false now, or {@link #sendsDrained} later) and ends on the peer's
     * acknowledgement or after the disconnect timeout. On a connection still being made: ends now.
     *
     * @param abrupt {@code DAT_CLOSE_ABRUPT_FLAG}
     * @param sendsPending whether the EP has sends not yet completed
     * @param now the time
     */
    public void disconnect(boolean abrupt, boolean sendsPending, long now) {
        switch (state) {
            case REQUESTED -> end(DatEventType.CONNECTION_EVENT_DISCONNECTED);
            case ACCEPTING -> end(DatEventType.CONNECTION_EVENT_DISCONNECTED);
            case CONNECTED -> {
                if (abrupt) {
                    end(DatEventType.CONNECTION_EVENT_DISCONNECTED);
                } else {
                    state = State.DISCONNECTING;
                    deadline = now + timeouts.disconnect();
                    if (!sendsPending) {
                        sendDisconnect();
                    }
                }
            }
            case DISCONNECTING -> {
                if (abrupt) {
                    end(DatEventType.CONNECTION_EVENT_DISCONNECTED);
                }
            }
            default -> {
            }
        }
    }

    /** The EP's sends completed while a graceful disconnect waited for them. */
    public void sendsDrained() {
        if (state == State.DISCONNECTING) {
            sendDisconnect();
        }
    }

    /**
     * A DAT message or RDMA completion from the peer: it is alive.
     *
     * @param now the time
     */
    public void heard(long now) {
        lastHeard = now;
    }

    /**
     * Runs the timers: ends a connection attempt, accept or graceful disconnect past its deadline, probes a silent
     * peer and gives it up after the peer-gone timeout.
     *
     * @param now the time
     * @return when it must be called again, {@link Long#MAX_VALUE} for never
     */
    public long tick(long now) {
        return switch (state) {
            case REQUESTED -> expire(now, DatEventType.CONNECTION_EVENT_TIMED_OUT);
            case ACCEPTING -> expire(now, DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            case DISCONNECTING -> expire(now, DatEventType.CONNECTION_EVENT_DISCONNECTED);
            case CONNECTED -> keepAlive(now);
            default -> Long.MAX_VALUE;
        };
    }

    private long expire(long now, DatEventType outcome) {
        if (now - deadline >= 0) {
            end(outcome);
            return Long.MAX_VALUE;
        }
        return deadline;
    }

    private long keepAlive(long now) {
        long silent = now - lastHeard;
        if (silent >= timeouts.peerGone()) {
            end(DatEventType.CONNECTION_EVENT_BROKEN);
            return Long.MAX_VALUE;
        }
        if (silent >= timeouts.keepAlive() && now - lastPing >= timeouts.keepAlive()) {
            lastPing = now;
            port.send(reply(RdmControl.Type.PING));
        }
        long nextPing = Math.max(lastHeard, lastPing) + timeouts.keepAlive();
        return Math.min(nextPing, lastHeard + timeouts.peerGone());
    }

    private boolean established(byte[] privateData, long now) {
        state = State.CONNECTED;
        deadline = Long.MAX_VALUE;
        lastHeard = now;
        lastPing = now;
        port.event(DatEventType.CONNECTION_EVENT_ESTABLISHED, privateData);
        return true;
    }

    private boolean end(DatEventType outcome) {
        boolean peerKnown = state == State.ACCEPTING || state == State.CONNECTED || state == State.DISCONNECTING;
        state = State.CLOSED;
        deadline = Long.MAX_VALUE;
        if (peerKnown && !disconnectSent) {
            // Best effort: a peer still alive releases its side at once rather than after its own timeout.
            sendDisconnect();
        }
        if (!ended) {
            ended = true;
            port.flush();
            port.event(outcome, null);
        }
        return true;
    }

    private void sendDisconnect() {
        if (!disconnectSent) {
            disconnectSent = true;
            port.send(reply(RdmControl.Type.DISCONNECT));
        }
    }

    private void learnPeer(RdmControl m) {
        peerEp = m.senderEp();
        peerSerial = m.senderSerial();
        peerTarget = m.senderTarget();
        peerReadDepth = m.readDepth();
        peerControl = m.controlAddress();
        peerData = m.dataAddress();
        peerIa = m.iaAddress();
        peerQualifier = m.qualifier();
    }

    private RdmControl reply(RdmControl.Type type) {
        return new RdmControl(type, localEp, serial, peerEp, peerSerial, localTarget, qualifier, localIa, 0, null,
                              null, null);
    }

    private void require(State expected) {
        if (state != expected) {
            throw new IllegalStateException("association is " + state + ", not " + expected);
        }
    }

    /**
     * The answer to a control message that named no association of the IA (its EP or serial is unknown or
     * ended): a late {@code ACCEPT} or {@code READY} is answered with {@code DISCONNECT}, so the peer releases a
     * half-open connection at once; anything else is dropped ({@code null}).
     *
     * @param m the message no association took
     * @param localIa the IA's address, 16 bytes
     * @return the answer to send to the message's sender, or {@code null}
     */
    public static RdmControl orphanAnswer(RdmControl m, byte[] localIa) {
        if (m.type() != RdmControl.Type.ACCEPT && m.type() != RdmControl.Type.READY) {
            return null;
        }
        return new RdmControl(RdmControl.Type.DISCONNECT, /* senderEp= */ m.receiverEp(),
                              /* senderSerial= */ m.receiverSerial(), /* receiverEp= */ m.senderEp(),
                              /* receiverSerial= */ m.senderSerial(), 0, 0, localIa, 0, null, null, null);
    }

    /**
     * The state.
     *
     * @return the state
     */
    public State state() {
        return state;
    }

    /**
     * This side's serial, 0 before the association connects or accepts.
     *
     * @return the serial
     */
    public int serial() {
        return serial;
    }

    /**
     * The tag this side's EP receives its messages on.
     *
     * @return the tag
     */
    public long receiveTag() {
        return RdmTags.data(localTarget, serial);
    }

    /**
     * The tag the EP's sends carry: the peer's target and serial. Valid from the accept on.
     *
     * @return the tag
     */
    public long sendTag() {
        return RdmTags.data(peerTarget, peerSerial);
    }

    /**
     * The peer IA's control-endpoint address (a copy), {@code null} before the peer is known: where
     * {@link Port#send} sends.
     *
     * @return the address
     */
    public byte[] peerControl() {
        return peerControl == null ? null : peerControl.clone();
    }

    /**
     * The peer EP's data-endpoint address (a copy), {@code null} before the peer is known: where the EP's DAT
     * operations go.
     *
     * @return the address
     */
    public byte[] peerData() {
        return peerData == null ? null : peerData.clone();
    }

    /**
     * The peer's IA address, 16 bytes (a copy), {@code null} before the peer is known.
     *
     * @return the address
     */
    public byte[] peerIa() {
        return peerIa == null ? null : peerIa.clone();
    }

    /**
     * The peer's qualifier: its PSP's (active side) or its EP's local one (passive side).
     *
     * @return the qualifier
     */
    public long peerQualifier() {
        return peerQualifier;
    }

    /**
     * The peer's incoming RDMA read depth: this side's outgoing read limit.
     *
     * @return the depth
     */
    public int peerReadDepth() {
        return peerReadDepth;
    }
}
