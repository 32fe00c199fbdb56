// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static dat.api.DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
import static dat.api.DatEventType.CONNECTION_EVENT_BROKEN;
import static dat.api.DatEventType.CONNECTION_EVENT_DISCONNECTED;
import static dat.api.DatEventType.CONNECTION_EVENT_ESTABLISHED;
import static dat.api.DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED;
import static dat.api.DatEventType.CONNECTION_EVENT_PEER_REJECTED;
import static dat.api.DatEventType.CONNECTION_EVENT_TIMED_OUT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatEventType;
import dat.provider.ofi.internal.rdm.RdmAssociation.State;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The association state machine between two simulated sides: the documented exchanges one by one, then seeded
 * random schedules of deliveries, timeouts, disconnects and deaths, with the protocol's promises checked after
 * each: one outcome per association, one flush per end, and no side left connected to a peer that ended.
 */
class RdmAssociationTest {

    private static final RdmAssociation.Timeouts TIMEOUTS =
            new RdmAssociation.Timeouts(1_000, 5_000, 3_000, 4_000, 6_000);
    private static final long QUALIFIER = 4791;
    private static final Set<DatEventType> ALONE = EnumSet.of(CONNECTION_EVENT_PEER_REJECTED,
        CONNECTION_EVENT_NON_PEER_REJECTED, DatEventType.CONNECTION_EVENT_UNREACHABLE, CONNECTION_EVENT_TIMED_OUT,
        CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, CONNECTION_EVENT_DISCONNECTED);

    /** One side: its association, what it reported, and the wire towards the other side. */
    static final class Side implements RdmAssociation.Port {
        final String name;
        final List<Object> reported = new ArrayList<>();
        final List<byte[]> privateData = new ArrayList<>();
        final ArrayDeque<byte[]> outbox = new ArrayDeque<>();
        final ArrayDeque<byte[]> requests = new ArrayDeque<>();
        RdmAssociation association;
        boolean dead;

        Side(String name, int ep) {
            this.name = name;
            this.association = new RdmAssociation(this, TIMEOUTS, ep, RdmTags.epTarget(ep), new byte[16],
                                                  ("c" + name).getBytes(StandardCharsets.US_ASCII),
                                                  name.getBytes(StandardCharsets.US_ASCII), 8);
        }

        @Override
        public void sendRequest(RdmControl request) {
            requests.add(RdmControlTest.bytes(request));
        }

        @Override
        public void send(RdmControl message) {
            outbox.add(RdmControlTest.bytes(message));
        }

        @Override
        public void event(DatEventType type, byte[] data) {
            reported.add(type);
            privateData.add(data);
        }

        @Override
        public void flush() {
            reported.add("flush");
        }

        @Override
        public void exchange(RdmControl message) {
            reported.add(message.type() + (message.privateData().length > 0 ? " with " + message.privateData().length
                    + " bytes" : ""));
        }

        List<Object> events() {
            return reported.stream().filter(o -> o instanceof DatEventType).toList();
        }
    }

    private final Side a = new Side("a", 11);
    private final Side b = new Side("b", 22);
    private long now;

    /** The passive side's PSP takes a request and accepts it. */
    private void acceptRequest(byte[] pd) {
        RdmControl request = RdmControl.decode(ByteBuffer.wrap(a.requests.remove()));
        assertNotNull(request);
        assertEquals(QUALIFIER, request.qualifier());
        b.association.accept(request, 900, QUALIFIER, pd, now);
    }

    /** Delivers the oldest message from {@code from} to {@code to} as the IA would route it. */
    private void deliver(Side from, Side to) {
        RdmControl m = RdmControl.decode(ByteBuffer.wrap(from.outbox.remove()));
        assertNotNull(m);
        if (to.dead) {
            return;
        }
        if (!to.association.onControl(m, now)) {
            RdmControl answer = RdmAssociation.orphanAnswer(m, new byte[16]);
            if (answer != null) {
                to.outbox.add(RdmControlTest.bytes(answer));
            }
        }
    }

    private void connect() {
        a.association.connect(500, QUALIFIER, new byte[] {1, 2}, 10_000, now);
        acceptRequest(new byte[] {3});
        deliver(b, a);
        deliver(a, b);
    }

    @Test
    void requestAcceptReadyEstablishesBothSidesWithThePrivateData() {
        Side active = new Side("x", 1);
        active.association.connect(500, QUALIFIER, new byte[] {1, 2}, 10_000, now);
        RdmControl request = RdmControl.decode(ByteBuffer.wrap(active.requests.remove()));
        assertArrayEquals(new byte[] {1, 2}, request.privateData());
        b.association.accept(request, 900, QUALIFIER, new byte[] {3}, now);
        assertTrue(active.association.onControl(RdmControl.decode(ByteBuffer.wrap(b.outbox.remove())), now));
        assertTrue(b.association.onControl(RdmControl.decode(ByteBuffer.wrap(active.outbox.remove())), now));
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED), active.events());
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED), b.events());
        assertArrayEquals(new byte[] {3}, active.privateData.get(0));
        assertEquals(RdmTags.data(RdmTags.epTarget(22), 900), active.association.sendTag());
        assertEquals(b.association.receiveTag(), active.association.sendTag());
        assertEquals(active.association.receiveTag(), b.association.sendTag());
        assertArrayEquals("x".getBytes(StandardCharsets.US_ASCII), b.association.peerData());
        assertArrayEquals("cx".getBytes(StandardCharsets.US_ASCII), b.association.peerControl());
    }

    /**
     * dat_lmr_free's fence and an RDMA operation's check: FENCE and CHECK reach the peer's EP, whose answers reach
     * this one, with their private data; none changes the connection, and an association that is not connected sends
     * none of them.
     */
    @Test
    void fencesAndChecksAreExchangedWithThePeer() {
        Side idle = new Side("y", 3);
        assertFalse(idle.association.exchange(RdmControl.Type.FENCE, null), "no connection, no fence");
        assertEquals(0, idle.outbox.size());
        connect();
        assertTrue(a.association.exchange(RdmControl.Type.FENCE, null));
        deliver(a, b);
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED, "FENCE"), b.reported);
        assertEquals(0, b.outbox.size(), "the answer waits for the EP's writes");
        assertTrue(b.association.exchange(RdmControl.Type.FENCE_ACK, null));
        deliver(b, a);
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED, "FENCE_ACK"), a.reported);
        byte[] probe = new RdmProbe(5, 6, 7, 8, false, RdmProbe.ASKED).encode();
        assertTrue(a.association.exchange(RdmControl.Type.CHECK, probe));
        deliver(a, b);
        assertEquals("CHECK with " + RdmProbe.SIZE + " bytes", b.reported.getLast());
        assertEquals(State.CONNECTED, a.association.state());
        assertEquals(State.CONNECTED, b.association.state());
    }

    @Test
    void aGracefulDisconnectWaitsForTheSendsThenForTheAcknowledgement() {
        connect();
        a.association.disconnect(false, true, now);
        assertEquals(0, a.outbox.size(), "DISCONNECT waits behind the EP's sends");
        a.association.sendsDrained();
        deliver(a, b);
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED, "flush", CONNECTION_EVENT_DISCONNECTED), b.reported);
        assertEquals(State.DISCONNECTING, a.association.state());
        deliver(b, a);
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED, "flush", CONNECTION_EVENT_DISCONNECTED), a.reported);
    }

    @Test
    void aGracefulDisconnectEndsAfterItsTimeoutWhenThePeerIsSilent() {
        connect();
        b.dead = true;
        a.association.disconnect(false, false, now);
        now += TIMEOUTS.disconnect() - 1;
        a.association.tick(now);
        assertEquals(State.DISCONNECTING, a.association.state());
        now += 1;
        a.association.tick(now);
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED, CONNECTION_EVENT_DISCONNECTED), a.events());
    }

    @Test
    void aSilentPeerIsProbedThenGivenUp() {
        connect();
        now += TIMEOUTS.keepAlive();
        a.association.tick(now);
        RdmControl ping = RdmControl.decode(ByteBuffer.wrap(a.outbox.peekLast()));
        assertEquals(RdmControl.Type.PING, ping.type());
        deliver(a, b);
        deliver(b, a);
        assertEquals(State.CONNECTED, a.association.state(), "a PONG keeps the connection");
        b.dead = true;
        now += TIMEOUTS.peerGone();
        a.association.tick(now);
        assertEquals(List.of(CONNECTION_EVENT_ESTABLISHED, CONNECTION_EVENT_BROKEN), a.events());
    }

    @Test
    void aLateAcceptAfterTheTimeoutIsAnsweredWithDisconnect() {
        a.association.connect(500, QUALIFIER, null, 1_000, now);
        now += 1_000;
        a.association.tick(now);
        assertEquals(List.of("flush", CONNECTION_EVENT_TIMED_OUT), a.reported);
        acceptRequest(null);
        deliver(b, a);
        deliver(a, b);
        assertEquals(List.of("flush", CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR), b.reported);
    }

    @Test
    void aRejectOrANonListenerEndsTheRequest() {
        a.association.connect(500, QUALIFIER, null, Long.MAX_VALUE, now);
        RdmControl request = RdmControl.decode(ByteBuffer.wrap(a.requests.remove()));
        RdmControl reject = RdmControl.answer(RdmControl.Type.REJECT, request, 0, 0, new byte[16]);
        assertTrue(a.association.onControl(reject, now));
        assertEquals(List.of("flush", CONNECTION_EVENT_PEER_REJECTED), a.reported);
        Side c = new Side("c", 3);
        c.association.connect(7, QUALIFIER, null, Long.MAX_VALUE, now);
        c.association.requestFailed(true);
        assertEquals(List.of(CONNECTION_EVENT_NON_PEER_REJECTED), c.events());
        assertEquals(Long.MAX_VALUE, c.association.tick(Long.MAX_VALUE - 1), "no timer on an ended association");
    }

    private static RdmControl disconnect(int senderEp, int senderSerial, int receiverEp, int receiverSerial) {
        return new RdmControl(RdmControl.Type.DISCONNECT, senderEp, senderSerial, receiverEp, receiverSerial, 0, 0,
                              new byte[16], 0, null, null, null);
    }

    @Test
    void messagesOfAnotherConnectionOrPeerChangeNothing() {
        connect();
        RdmControl stale = disconnect(22, 899, 11, 500);
        assertTrue(!a.association.onControl(stale, now), "an old serial of the peer");
        RdmControl other = disconnect(23, 900, 11, 500);
        assertTrue(!a.association.onControl(other, now), "another EP of the peer's IA");
        RdmControl mine = disconnect(22, 900, 11, 501);
        assertTrue(!a.association.onControl(mine, now), "this EP's next serial");
        assertEquals(State.CONNECTED, a.association.state());
        assertNull(RdmAssociation.orphanAnswer(stale, new byte[16]), "an orphan DISCONNECT is not answered");
    }

    @Test
    void randomSchedulesKeepEveryPromise() {
        long seed = Long.getLong("rdm.seed", System.nanoTime());
        SplittableRandom seeds = new SplittableRandom(seed);
        for (int run = 0; run < 3_000; run++) {
            long runSeed = seeds.nextLong();
            try {
                new Schedule(runSeed).run();
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", run " + run + " (run seed " + runSeed + "): "
                    + e.getMessage(), e);
            }
        }
    }

    /** One random schedule of the two sides. */
    private static final class Schedule {
        private final SplittableRandom r;
        private final Side x = new Side("x", 1);
        private final Side y = new Side("y", 2);
        private final boolean deathIsLoud;
        private long t;
        private boolean accepted;
        private final StringBuilder trace = new StringBuilder();

        Schedule(long seed) {
            r = new SplittableRandom(seed);
            deathIsLoud = r.nextBoolean();
        }

        void run() {
            x.association.connect(100, QUALIFIER, null, r.nextBoolean() ? Long.MAX_VALUE : r.nextLong(1, 8_000), t);
            for (int step = 0; step < 40; step++) {
                act();
                check();
            }
            for (int settle = 0; settle < 200; settle++) {
                if (!drainOne()) {
                    t += 700;
                    tick(x);
                    tick(y);
                }
            }
            settled();
        }

        private void act() {
            int what = r.nextInt(12);
            trace.append(what).append(' ');
            switch (what) {
                case 0, 1, 2, 3 -> drainOne();
                case 4 -> {
                    t += r.nextInt(3) == 0 ? r.nextLong(1, 6_000) : r.nextLong(1, 300);
                    tick(x);
                    tick(y);
                }
                case 5 -> passiveAnswer();
                case 6 -> disconnect(x);
                case 7 -> disconnect(y);
                case 8 -> kill(r.nextBoolean() ? x : y);
                case 9 -> {
                    alive(x).ifPresent(s -> s.association.sendsDrained());
                    alive(y).ifPresent(s -> s.association.sendsDrained());
                }
                case 10 -> heard(x, y);
                default -> heard(y, x);
            }
        }

        private Optional<Side> alive(Side s) {
            return s.dead ? Optional.empty() : Optional.of(s);
        }

        private void heard(Side to, Side from) {
            if (!to.dead && !from.dead && from.association.state() == State.CONNECTED) {
                to.association.heard(t);
            }
        }

        private void passiveAnswer() {
            if (x.requests.isEmpty()) {
                return;
            }
            RdmControl request = RdmControl.decode(ByteBuffer.wrap(x.requests.remove()));
            if (y.dead) {
                if (deathIsLoud) {
                    x.association.requestFailed(false);
                }
                return;
            }
            if (r.nextInt(4) == 0) {
                x.outbox.addFirst(RdmControlTest.bytes(RdmControl.answer(RdmControl.Type.REJECT, request, 0, 0,
                                                                         new byte[16])));
                deliverFrom(y, x, RdmControl.decode(ByteBuffer.wrap(x.outbox.removeFirst())));
            } else {
                accepted = true;
                y.association.accept(request, 200, QUALIFIER, null, t);
            }
        }

        private boolean drainOne() {
            boolean fromX = r.nextBoolean();
            Side from = fromX ? x : y;
            Side to = fromX ? y : x;
            if (from.outbox.isEmpty()) {
                from = to;
                to = fromX ? x : y;
            }
            if (from.outbox.isEmpty()) {
                return false;
            }
            RdmControl m = RdmControl.decode(ByteBuffer.wrap(from.outbox.remove()));
            if (from.dead) {
                return true;
            }
            deliverFrom(from, to, m);
            return true;
        }

        private void deliverFrom(Side from, Side to, RdmControl m) {
            if (to.dead) {
                if (deathIsLoud) {
                    from.association.sendFailed();
                }
                return;
            }
            if (!to.association.onControl(m, t)) {
                RdmControl answer = RdmAssociation.orphanAnswer(m, new byte[16]);
                if (answer != null) {
                    to.outbox.add(RdmControlTest.bytes(answer));
                }
            }
        }

        private void tick(Side s) {
            if (!s.dead) {
                s.association.tick(t);
            }
        }

        private void disconnect(Side s) {
            if (!s.dead && (s != y || accepted)) {
                s.association.disconnect(r.nextBoolean(), r.nextBoolean(), t);
            }
        }

        private void kill(Side s) {
            if (r.nextInt(3) == 0) {
                s.dead = true;
            }
        }

        private void check() {
            for (Side s : List.of(x, y)) {
                List<Object> rep = s.reported;
                List<Object> events = s.events();
                int flushes = rep.size() - events.size();
                boolean ended = !events.isEmpty() && events.getLast() != CONNECTION_EVENT_ESTABLISHED;
                if (flushes != (ended ? 1 : 0)) {
                    fail(s.name + " flushed " + flushes + " times: " + rep + " after " + trace);
                }
                if (ended && !rep.get(rep.size() - 2).equals("flush")) {
                    fail(s.name + " reported its end before flushing: " + rep);
                }
                boolean legal = events.isEmpty()
                    || events.equals(List.of(CONNECTION_EVENT_ESTABLISHED))
                    || (events.size() == 1 && ALONE.contains(events.get(0)))
                    || (events.size() == 2 && events.get(0) == CONNECTION_EVENT_ESTABLISHED
                        && (events.get(1) == CONNECTION_EVENT_DISCONNECTED
                            || events.get(1) == CONNECTION_EVENT_BROKEN));
                if (!legal) {
                    fail(s.name + " reported " + events + " after " + trace);
                }
                if (ended != (s.association.state() == State.CLOSED)) {
                    fail(s.name + " is " + s.association.state() + " having reported " + events);
                }
            }
            boolean yEstablished = y.events().contains(CONNECTION_EVENT_ESTABLISHED);
            if (yEstablished && !x.events().contains(CONNECTION_EVENT_ESTABLISHED)) {
                fail("the passive side is established, the active side never was: " + trace);
            }
        }

        private void settled() {
            check();
            State sx = x.association.state();
            State sy = y.association.state();
            boolean bothConnected = sx == State.CONNECTED && sy == State.CONNECTED && !x.dead && !y.dead;
            for (Side s : List.of(x, y)) {
                Side peer = s == x ? y : x;
                State st = s.association.state();
                boolean waitsForever = s == x && st == State.REQUESTED && noDeadline(s);
                if (!s.dead && st != State.CLOSED && st != State.IDLE && !bothConnected && !waitsForever) {
                    fail(s.name + " is left " + st + " while its peer is " + peer.association.state()
                        + (peer.dead ? " (dead)" : "") + " after " + trace);
                }
            }
        }

        private boolean noDeadline(Side s) {
            return s.association.tick(t) == Long.MAX_VALUE;
        }
    }
}
