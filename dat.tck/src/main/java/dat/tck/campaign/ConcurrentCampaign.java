// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.api.Iov;
import dat.tck.rules.TckFixture;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The campaign's concurrent half, for a provider that claims {@code is_thread_safe} and has SRQs: one sender thread
 * per connection, two threads posting buffers into one SRQ shared by every passive EP, two threads reaping one
 * receive EVD shared by them all, a thread querying, resizing and arming the SRQ, and a thread freeing an LMR while a
 * further connection RDMA-writes into it. Checked against the invariants the model keeps: every message received
 * exactly once, each reaper sees each connection's messages in send order, every completion SUCCESS with the
 * message's length and bytes, SRQ counts within their bounds, and no byte moving into the freed LMR once
 * {@code dat_lmr_free} returned.
 */
public final class ConcurrentCampaign {

    private static final int CONNECTIONS = 3;
    private static final int BUFFER = 512;
    private static final int SLOTS = 48;
    private static final int WINDOW = 8;
    private static final int TARGET = 64 * 1024;

    private final TckFixture f;
    private final long seed;
    private final long nanos;
    private final AtomicReference<String> violation = new AtomicReference<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    /** Set once the senders are done and everything sent was received: posters and reapers stop. */
    private final AtomicBoolean drained = new AtomicBoolean();
    private final AtomicLong received = new AtomicLong();
    private long sent;

    /**
     * @param f an open fixture; the caller closes it
     * @param seed seeds every thread's choices
     * @param seconds how long the senders send
     */
    public ConcurrentCampaign(TckFixture f, long seed, double seconds) {
        this.f = f;
        this.seed = seed;
        this.nanos = (long) (seconds * 1e9);
    }

    /** {@return {@code null} when every invariant held, else what broke} */
    public String run() throws InterruptedException {
        DatEpAttr attr = f.epAttr();
        int depth = Math.min(SLOTS, f.limits.maxRecvPerSrq() > 0 ? f.limits.maxRecvPerSrq() : SLOTS);
        DatSrq srq = f.ia.createSrq(f.pz, new DatSrqAttr(depth, 1, Dat.DAT_SRQ_LW_DEFAULT));
        DatEvd sharedRecv = f.evd(DatEvdFlags.DTO);
        TckFixture.Region buffers = f.region((long) SLOTS * BUFFER, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        List<TckFixture.Side> senders = new ArrayList<>();
        List<DatEp> receivers = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            TckFixture.Side active = f.side(attr, null);
            DatEvd request = f.evd(DatEvdFlags.DTO);
            DatEvd connect = f.evd(DatEvdFlags.CONNECTION);
            DatEp passive = f.ia.createEpWithSrq(f.pz, sharedRecv, request, connect, srq, attr);
            f.connect(active, new TckFixture.Side(passive, request, sharedRecv, connect));
            senders.add(active);
            receivers.add(passive);
        }
        Queue<Integer> freeSlots = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < depth; i++) {
            freeSlots.add(i);
        }
        AtomicLongArray count = new AtomicLongArray(CONNECTIONS);
        AtomicLongArray sentPer = new AtomicLongArray(CONNECTIONS);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            int conn = c;
            threads.add(start("sender-" + c, () -> send(senders.get(conn), conn, sentPer)));
        }
        for (int p = 0; p < 2; p++) {
            threads.add(start("srq-poster-" + p, () -> post(srq, buffers, freeSlots)));
        }
        for (int r = 0; r < 2; r++) {
            int reaper = r;
            threads.add(start("reaper-" + r, () -> reap(sharedRecv, buffers, freeSlots, reaper, count)));
        }
        threads.add(start("srq-disturber", () -> disturb(srq)));
        threads.add(start("lmr-free", this::freeUnderTraffic));
        long deadline = System.nanoTime() + nanos;
        while (System.nanoTime() < deadline && violation.get() == null) {
            Thread.sleep(20);
        }
        stop.set(true);
        // Senders stop first; the posters and reapers then drain what is in flight.
        for (Thread t : threads.subList(0, CONNECTIONS)) {
            t.join(f.eventTimeoutMillis() * 3);
        }
        for (int c = 0; c < CONNECTIONS; c++) {
            sent += sentPer.get(c);
        }
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.eventTimeoutMillis());
        while (received.get() < sent && violation.get() == null && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        drained.set(true);
        for (Thread t : threads) {
            t.join(f.eventTimeoutMillis() * 3);
            if (t.isAlive()) {
                fail(t.getName() + " did not finish: a call hangs");
            }
        }
        for (int c = 0; c < CONNECTIONS && violation.get() == null; c++) {
            if (count.get(c) != sentPer.get(c)) {
                fail("connection " + c + ": " + sentPer.get(c) + " messages sent and completed, " + count.get(c)
                        + " received");
            }
        }
        for (DatEp ep : receivers) {
            ep.disconnect(DatCloseFlags.ABRUPT);
        }
        return violation.get();
    }

    /** {@return messages sent and received, for the report} */
    public long messages() {
        return received.get();
    }

    private Thread start(String name, Runnable body) {
        return Thread.ofPlatform().daemon().name("dat-tck-concurrent-" + name).start(() -> {
            try {
                body.run();
            } catch (RuntimeException | AssertionError e) {
                fail(Thread.currentThread().getName() + " threw " + e);
            }
        });
    }

    private void fail(String what) {
        violation.compareAndSet(null, what);
        stop.set(true);
    }

    /** Sends {@code [connection, sequence]}-stamped messages with at most WINDOW outstanding, reaping its own. */
    private void send(TckFixture.Side side, int conn, AtomicLongArray sentPer) {
        SplittableRandom random = new SplittableRandom(seed + conn);
        TckFixture.Region src = f.region(WINDOW * BUFFER, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        Iov iov = f.iov(1);
        DatEvent event = new DatEvent();
        long seq = 0;
        long done = 0;
        while (!stop.get()) {
            if (seq - done < WINDOW) {
                int slot = (int) (seq % WINDOW);
                MemorySegment m = src.memory().asSlice((long) slot * BUFFER, BUFFER);
                int length = 16 + random.nextInt(BUFFER - 16 + 1);
                m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, conn);
                m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, seq);
                for (int i = 16; i < length; i++) {
                    m.set(ValueLayout.JAVA_BYTE, i, pattern(conn, seq, i));
                }
                int rc = side.ep().postSend(1, iov.set(0, src.lmr(), (long) slot * BUFFER, length), seq, 0);
                if (rc != DatReturn.DAT_SUCCESS) {
                    fail("connection " + conn + ": dat_ep_post_send returned " + DatReturn.toString(rc));
                    return;
                }
                seq++;
            }
            int rc = side.requestEvd().dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                if (event.type() != DatEventType.DTO_COMPLETION || event.dtoStatus() != DatDtoStatus.SUCCESS
                        || event.userCookie() != done) {
                    fail("connection " + conn + ": send completion " + event + ", expected send " + done + " SUCCESS");
                    return;
                }
                done++;
                sentPer.set(conn, done);
            } else if (seq - done >= WINDOW) {
                Thread.onSpinWait();
            }
        }
        // Everything posted completes: the receivers keep the SRQ stocked.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.eventTimeoutMillis());
        while (done < seq && System.nanoTime() < until && violation.get() == null) {
            if (side.requestEvd().dequeue(event) == DatReturn.DAT_SUCCESS) {
                if (event.dtoStatus() != DatDtoStatus.SUCCESS || event.userCookie() != done) {
                    fail("connection " + conn + ": send completion " + event + ", expected send " + done);
                    return;
                }
                done++;
                sentPer.set(conn, done);
            }
        }
        if (done < seq) {
            fail("connection " + conn + ": " + (seq - done) + " send(s) never completed");
        }
    }

    private static byte pattern(long conn, long seq, int i) {
        return (byte) (conn * 131 + seq * 31 + i);
    }

    /** Keeps the SRQ stocked from the free slots. */
    private void post(DatSrq srq, TckFixture.Region buffers, Queue<Integer> freeSlots) {
        Iov iov = f.iov(1);
        while (!drained.get() && violation.get() == null) {
            Integer slot = freeSlots.poll();
            if (slot == null) {
                Thread.onSpinWait();
                continue;
            }
            buffers.memory().asSlice((long) slot * BUFFER, BUFFER).fill((byte) 0xEE);
            int rc = srq.postRecv(1, iov.set(0, buffers.lmr(), (long) slot * BUFFER, BUFFER), slot);
            if (rc == DatReturn.DAT_INSUFFICIENT_RESOURCES) {
                freeSlots.add(slot);
                Thread.onSpinWait();
            } else if (rc != DatReturn.DAT_SUCCESS) {
                fail("dat_srq_post_recv returned " + DatReturn.toString(rc));
            }
        }
    }

    /** Reaps the shared receive EVD: each message once, each connection in order as this reaper sees it. */
    private void reap(DatEvd evd, TckFixture.Region buffers, Queue<Integer> freeSlots, int reaper,
                      AtomicLongArray count) {
        DatEvent event = new DatEvent();
        long[] last = new long[CONNECTIONS];
        Arrays.fill(last, -1);
        while (!drained.get() && violation.get() == null) {
            int rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_QUEUE_EMPTY) {
                Thread.onSpinWait();
                continue;
            }
            if (rc != DatReturn.DAT_SUCCESS) {
                fail("dat_evd_dequeue returned " + DatReturn.toString(rc));
                return;
            }
            if (event.type() != DatEventType.DTO_COMPLETION || event.dtoStatus() != DatDtoStatus.SUCCESS) {
                fail("on the shared receive EVD: " + event);
                return;
            }
            long cookie = event.userCookie();
            if (cookie < 0 || cookie >= SLOTS) {
                fail("receive completion with cookie " + cookie + ", which names no posted buffer");
                return;
            }
            MemorySegment m = buffers.memory().asSlice(cookie * BUFFER, BUFFER);
            long conn = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            long seq = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
            if (conn < 0 || conn >= CONNECTIONS) {
                fail("buffer " + cookie + " holds no message (connection field " + conn + ")");
                return;
            }
            long length = event.transferredLength();
            for (int i = 16; i < length; i++) {
                if (m.get(ValueLayout.JAVA_BYTE, i) != pattern(conn, seq, i)) {
                    fail("message " + seq + " of connection " + conn + ": byte " + i + " is wrong");
                    return;
                }
            }
            int c = (int) conn;
            if (seq <= last[c]) {
                fail("reaper " + reaper + " saw message " + seq + " of connection " + conn + " after message "
                        + last[c] + ": out of order or twice");
                return;
            }
            last[c] = seq;
            count.incrementAndGet(c);
            received.incrementAndGet();
            freeSlots.add((int) cookie);
        }
    }

    /** Queries, grows and arms the SRQ while traffic runs: counts must stay within their bounds. */
    private void disturb(DatSrq srq) {
        SplittableRandom random = new SplittableRandom(seed ^ 0xD15);
        while (!stop.get()) {
            DatSrqParam p = srq.query();
            int available = p.availableDtoCount();
            int outstanding = p.outstandingDtoCount();
            if (outstanding != Dat.DAT_VALUE_UNKNOWN && (outstanding < 0 || outstanding > p.maxRecvDtos())) {
                fail("dat_srq_query under traffic: outstanding_dto_count " + outstanding + " outside 0.."
                        + p.maxRecvDtos());
            }
            if (available != Dat.DAT_VALUE_UNKNOWN && (available < 0
                    || (outstanding != Dat.DAT_VALUE_UNKNOWN && available > outstanding))) {
                fail("dat_srq_query under traffic: available_dto_count " + available + " with outstanding "
                        + outstanding);
            }
            try {
                // Never below what it holds: a resize to its own size or more must succeed.
                srq.resize(Math.max(p.maxRecvDtos(), Math.min(2 * SLOTS, p.maxRecvDtos() + random.nextInt(2))));
            } catch (DatException e) {
                if (e.type() != DatReturn.INSUFFICIENT_RESOURCES) {
                    fail("dat_srq_resize to at least its size under traffic threw " + e.getMessage());
                }
            }
            Thread.yield();
        }
    }

    /** An LMR freed while a connection RDMA-writes into it: once the free returned, no byte may move. */
    private void freeUnderTraffic() {
        TckFixture.Side writer = f.side(f.epAttr(), null);
        TckFixture.Side target = f.side(f.epAttr(), null);
        f.connect(writer, target);
        TckFixture.Region region = f.region(TARGET, DatMemPriv.ALL);
        TckFixture.Region src = f.region(BUFFER, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
        Iov iov = f.iov(1).set(0, src.lmr(), 0, BUFFER);
        DatLmr lmr = region.lmr();
        AtomicBoolean freed = new AtomicBoolean();
        Thread writes = Thread.ofPlatform().daemon().start(() -> {
            DatEvent event = new DatEvent();
            long n = 0;
            while (!freed.get() && !stop.get()) {
                src.memory().fill((byte) n);
                int rc = writer.ep().postRdmaWrite(1, iov, n, lmr.rmrContext(),
                        region.address() + (n * BUFFER) % TARGET, BUFFER, 0);
                if (rc != DatReturn.DAT_SUCCESS) {
                    return;
                }
                while (writer.requestEvd().dequeue(event) != DatReturn.DAT_SUCCESS && !stop.get()) {
                    Thread.onSpinWait();
                }
                n++;
            }
        });
        SplittableRandom random = new SplittableRandom(seed ^ 0xF3EE);
        long pause = System.nanoTime() + random.nextLong(TimeUnit.MILLISECONDS.toNanos(20));
        while (System.nanoTime() < pause) {
            Thread.onSpinWait();
        }
        lmr.close();
        byte[] atFree = region.memory().toArray(ValueLayout.JAVA_BYTE);
        freed.set(true);
        try {
            writes.join(f.eventTimeoutMillis());
            if (writes.isAlive()) {
                fail("the RDMA writer racing dat_lmr_free did not end within " + f.eventTimeoutMillis() + " ms");
                return;
            }
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long changed = region.memory().mismatch(MemorySegment.ofArray(atFree));
        if (changed >= 0) {
            fail("byte " + changed + " of an LMR changed after dat_lmr_free returned");
        }
    }

    /** {@return messages sent, for the report} */
    public long sent() {
        return sent;
    }
}
