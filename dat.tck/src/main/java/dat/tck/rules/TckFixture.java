// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatProviderAttr;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.Iov;
import dat.tck.TckContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;

/**
 * One test's world: an open IA with its attributes, a PZ, native memory, and helpers to register memory,
 * create EVDs and connect endpoint pairs through DAT's own calls (PSP, CR, accept), so the kit assumes nothing
 * about the provider beyond the API.
 */
public final class TckFixture implements AutoCloseable {

    /** Default of {@link TckContext#EVENT_TIMEOUT_MS}: how long the kit waits for an event it expects. */
    public static final long EVENT_TIMEOUT_MILLIS_DEFAULT = 10_000;
    /** How long the kit watches for an event it expects not to come. */
    public static final long QUIET_MILLIS = 200;

    /** The IA under test. */
    public final DatIa ia;
    /** Its provider attributes. */
    public final DatProviderAttr provider;
    /** Its limits. */
    public final DatIaAttr limits;
    /** A protection zone of {@link #ia}. */
    public final DatPz pz;
    /** Owns every buffer the test registers; closed after the IA. */
    public final Arena arena = Arena.ofShared();

    private final long eventTimeoutMillis;
    private final Consumer<String> deny;
    private int eps;
    private int evds;
    private int lmrs;

    /**
     * A fixture whose denied needs skip the rule (see {@link #TckFixture(DatIa, long, Consumer)}).
     *
     * @param ia the IA under test, closed abruptly by {@link #close()}
     * @param eventTimeoutMillis how long {@link #next} waits
     */
    public TckFixture(DatIa ia, long eventTimeoutMillis) {
        this(ia, eventTimeoutMillis, attribute -> Assumptions.abort(
                "provider attribute denies the feature this rule needs: " + attribute));
    }

    /**
     * @param ia the IA under test, closed abruptly by {@link #close()}
     * @param eventTimeoutMillis how long {@link #next} waits
     * @param deny called, instead of asking the provider, when the IA's limits deny what the fixture would create
     *     (an EP where {@code max_eps} is 0, an EVD past {@code max_evds}, ...), with the limit and what was
     *     needed; it must throw (skip or fail the rule)
     */
    public TckFixture(DatIa ia, long eventTimeoutMillis, Consumer<String> deny) {
        this.eventTimeoutMillis = eventTimeoutMillis;
        this.deny = deny;
        this.ia = ia;
        DatIaAttr attributes;
        try {
            this.provider = ia.providerAttr();
            attributes = ia.query();
            if (attributes.maxPzs() < 1) {
                deny.accept("max_pzs = " + attributes.maxPzs() + " (the kit needs a protection zone)");
            }
        } catch (RuntimeException | Error e) {
            ia.close(DatCloseFlags.ABRUPT);
            throw e;
        }
        this.limits = attributes;
        this.pz = ia.createPz();
    }

    /**
     * Asks the provider for the {@code count}-th object of a kind the IA limits (counting every one this fixture
     * made): never when the limit is 0; and a refusal for want of resources once the fixture made more than the
     * limit is the limit's doing, so it denies rather than fails.
     */
    private <T> T create(String limit, int max, int count, Supplier<T> call) {
        if (max < 1) {
            deny.accept(limit + " = " + max);
        }
        try {
            return call.get();
        } catch (DatException e) {
            if (e.is(DatReturn.INSUFFICIENT_RESOURCES) && count > max) {
                deny.accept(limit + " = " + max + ": the rule needs more (" + e.getMessage() + ")");
            }
            throw e;
        }
    }

    /** {@return how long {@link #next} waits, in milliseconds} */
    public long eventTimeoutMillis() {
        return eventTimeoutMillis;
    }

    /** {@return how long {@link #next} waits, in microseconds, as DAT timeouts are given} */
    public long eventTimeoutMicros() {
        return TimeUnit.MILLISECONDS.toMicros(eventTimeoutMillis);
    }

    /** A registered buffer: the LMR and the memory it covers. */
    public record Region(DatLmr lmr, MemorySegment memory) {

        /** {@return the first byte's virtual address} */
        public long address() {
            return lmr.address();
        }
    }

    /**
     * Registers {@code size} bytes of fresh native memory, aligned to the provider's optimal alignment.
     *
     * @param size bytes
     * @param privileges {@link DatMemPriv} flags
     * @return the region, zero-filled
     */
    public Region region(long size, int privileges) {
        return region(pz, size, privileges);
    }

    /**
     * {@return the region, zero-filled}
     *
     * @param zone the PZ to register in
     * @param size bytes
     * @param privileges {@link DatMemPriv} flags
     */
    public Region region(DatPz zone, long size, int privileges) {
        long align = Math.max(8, provider.optimalBufferAlignment());
        MemorySegment memory = arena.allocate(size, align);
        return new Region(create("max_lmrs", limits.maxLmrs(), ++lmrs, () -> ia.createLmr(zone, memory, privileges)),
                memory);
    }

    /** {@return a region of 4 KiB with every privilege} */
    public Region region() {
        return region(4096, DatMemPriv.ALL);
    }

    /**
     * A registered region between two unregistered guards, so a rule can show that a transfer touched no byte
     * just outside the region it names.
     *
     * @param region the registered part
     * @param whole the region with its guards, each {@code guard} bytes, filled with {@link #GUARD}
     * @param guard bytes of each guard
     */
    public record Guarded(Region region, MemorySegment whole, long guard) {

        /** What the guards hold. */
        public static final byte GUARD = (byte) 0xC3;

        /**
         * Asserts that no byte of either guard changed.
         *
         * @param what the transfer, for the failure message
         */
        public void assertGuardsIntact(String what) {
            assertFilled(whole.asSlice(0, guard), GUARD, what + ": the byte(s) just before the region");
            assertFilled(whole.asSlice(guard + region.memory().byteSize()), GUARD,
                    what + ": the byte(s) just after the region");
        }
    }

    /**
     * Registers {@code size} bytes that lie between two guards of unregistered memory.
     *
     * @param size bytes to register
     * @param privileges {@link DatMemPriv} flags
     * @return the region, zero-filled, and its guards
     */
    public Guarded guarded(long size, int privileges) {
        long guard = Math.max(64, provider.optimalBufferAlignment());
        MemorySegment whole = arena.allocate(size + 2 * guard, guard);
        whole.fill(Guarded.GUARD);
        MemorySegment inside = whole.asSlice(guard, size);
        inside.fill((byte) 0);
        return new Guarded(new Region(create("max_lmrs", limits.maxLmrs(), ++lmrs,
                () -> ia.createLmr(pz, inside, privileges)), inside), whole, guard);
    }

    /**
     * An IOV whose last of {@code n} triplets is the one under test and whose first {@code n - 1} are valid
     * 16-byte segments of {@code valid} (at offsets 0, 16, ...): a provider must check every triplet, not only the
     * first.
     *
     * @param n triplets, at least 1
     * @param valid a region the other triplets lie in
     * @param lastContext {@code lmr_context} of the last triplet
     * @param lastAddress its virtual address
     * @param lastLength its length
     * @return the IOV
     */
    public Iov iovEndingWith(int n, Region valid, int lastContext, long lastAddress, long lastLength) {
        Iov iov = iov(n);
        for (int i = 0; i < n - 1; i++) {
            iov.set(i, valid.lmr(), 16L * i, 16);
        }
        return iov.set(n - 1, lastContext, lastAddress, lastLength);
    }

    /**
     * {@return how many triplets a rule checking every triplet uses: 3, or fewer if the queue takes fewer}
     *
     * @param maxSegments what the queue takes
     */
    public static int triplets(int maxSegments) {
        return Math.max(1, Math.min(3, maxSegments));
    }

    /**
     * Creates an EP that stays in {@code DAT_EP_STATE_ACTIVE_CONNECTION_PENDING}: it connects to a PSP of this IA
     * whose connection request is never answered (the request waits on a CR EVD the fixture keeps).
     *
     * @return the side, its EP pending
     */
    public Side pendingSide() {
        Side side = side(epAttr(), null);
        DatPsp psp = ia.createPspAny(evd(DatEvdFlags.CR), DatPspFlags.CONSUMER);
        side.ep().connect(ia.address(), psp.connQual(), eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0);
        assertSame(DatEpState.ACTIVE_CONNECTION_PENDING, side.ep().state(), "state after dat_ep_connect");
        return side;
    }

    /**
     * Asserts that {@code evd} holds no event right now (one dequeue, no waiting); also lets a provider that
     * frees resources when it polls its completion queue do so.
     *
     * @param evd the EVD
     * @param why what the empty queue proves
     */
    public void noEventNow(DatEvd evd, String why) {
        DatEvent event = new DatEvent();
        int rc = evd.dequeue(event);
        if (rc == DatReturn.DAT_SUCCESS) {
            fail(why + ": unexpected " + event);
        }
        RuleSupport.assertStatus(DatReturn.DAT_QUEUE_EMPTY, rc, why);
    }

    /**
     * {@return a fresh IOV}
     *
     * @param capacity triplets
     */
    public Iov iov(int capacity) {
        return Iov.allocate(arena, capacity);
    }

    /**
     * {@return an EVD with a queue of up to 256 events (less if the IA allows less)}
     *
     * @param flags {@link DatEvdFlags}
     */
    public DatEvd evd(int flags) {
        if (limits.maxEvdQlen() < 1) {
            deny.accept("max_evd_qlen = " + limits.maxEvdQlen());
        }
        return create("max_evds", limits.maxEvds(), ++evds,
                () -> ia.createEvd(Math.min(256, limits.maxEvdQlen()), null, flags));
    }

    /** What one side of a connection is made of. */
    public record Side(DatEp ep, DatEvd requestEvd, DatEvd recvEvd, DatEvd connectEvd) {
    }

    /** Two connected endpoints. */
    public record Connection(Side active, Side passive) {
    }

    /**
     * {@return attributes with room for the kit's tests: 64-deep queues, up to 4 segments}
     */
    public DatEpAttr epAttr() {
        return epAttr(DatCompletionFlags.DEFAULT, DatCompletionFlags.DEFAULT);
    }

    /**
     * {@return attributes with room for the kit's tests}
     *
     * @param recvFlags {@code recv_completion_flags}
     * @param requestFlags {@code request_completion_flags}
     */
    public DatEpAttr epAttr(int recvFlags, int requestFlags) {
        if (limits.maxDtoPerEp() < 1 || limits.maxIovSegmentsPerDto() < 1) {
            deny.accept("max_dto_per_ep = " + limits.maxDtoPerEp() + ", max_iov_segments_per_dto = "
                    + limits.maxIovSegmentsPerDto() + " (an EP needs at least 1 of each)");
        }
        int iov = Math.min(4, limits.maxIovSegmentsPerDto());
        return DatEpAttr.builder()
                .maxMessageSize(Math.min(1 << 20, limits.maxMessageSize()))
                .maxRdmaSize(Math.min(1 << 20, limits.maxRdmaSize()))
                .maxRecvDtos(Math.min(64, limits.maxDtoPerEp()))
                .maxRequestDtos(Math.min(64, limits.maxDtoPerEp()))
                .maxRecvIov(iov).maxRequestIov(iov)
                .maxRdmaReadIov(Math.min(iov, limits.maxIovSegmentsPerRdmaRead()))
                .maxRdmaWriteIov(Math.min(iov, limits.maxIovSegmentsPerRdmaWrite()))
                .maxRdmaReadIn(Math.min(1, limits.maxRdmaReadIn()))
                .maxRdmaReadOut(Math.min(1, limits.maxRdmaReadOut()))
                .recvCompletionFlags(recvFlags).requestCompletionFlags(requestFlags)
                .build();
    }

    /**
     * Creates an unconnected EP with its own three EVDs.
     *
     * @param attr attributes
     * @param srq the SRQ to take receives from, or {@code null}
     * @return the EP and its EVDs
     */
    public Side side(DatEpAttr attr, DatSrq srq) {
        if (limits.maxEps() < 1) {
            deny.accept("max_eps = " + limits.maxEps() + " (this rule needs an endpoint)");
        }
        DatEvd request = evd(DatEvdFlags.DTO | DatEvdFlags.RMR_BIND);
        DatEvd recv = evd(DatEvdFlags.DTO);
        DatEvd connect = evd(DatEvdFlags.CONNECTION);
        DatEp ep;
        try {
            ep = create("max_eps", limits.maxEps(), ++eps, () -> srq == null
                    ? ia.createEp(pz, recv, request, connect, attr)
                    : ia.createEpWithSrq(pz, recv, request, connect, srq, attr));
        } catch (DatException e) {
            // Name what the kit asked for: the provider's message names only the field it refused.
            throw new DatException(e.type(), e.subtype(), "dat_ep_create" + (srq == null ? "" : "_with_srq")
                    + " with the kit's " + attr + " (IA limits: max_dto_per_ep " + limits.maxDtoPerEp()
                    + ", max_iov_segments_per_dto " + limits.maxIovSegmentsPerDto() + "): " + e.getMessage(), e);
        }
        return new Side(ep, request, recv, connect);
    }

    /** {@return a connected pair with the kit's default attributes} */
    public Connection connect() {
        return connect(side(epAttr(), null), side(epAttr(), null));
    }

    /**
     * Connects {@code active} to {@code passive} through a PSP on this IA: connect, connection request, accept,
     * and both ESTABLISHED events.
     *
     * @param active the side that calls {@code dat_ep_connect}
     * @param passive the side handed to {@code dat_cr_accept}
     * @return the connection
     */
    public Connection connect(Side active, Side passive) {
        DatEvd crEvd = evd(DatEvdFlags.CR);
        DatPsp psp = ia.createPspAny(crEvd, DatPspFlags.CONSUMER);
        try {
            active.ep().connect(ia.address(), psp.connQual(), eventTimeoutMicros(), null, DatQos.BEST_EFFORT, 0);
            DatEvent request = next(crEvd);
            assertSame(DatEventType.CONNECTION_REQUEST_EVENT, request.type(), "connection request on the CR EVD");
            request.cr().accept(passive.ep(), null);
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, next(active.connectEvd()).type(),
                    "active side established");
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, next(passive.connectEvd()).type(),
                    "passive side established");
        } finally {
            psp.close();
            crEvd.close();
        }
        return new Connection(active, passive);
    }

    /**
     * Posts {@code count} one-segment 64-byte buffers to {@code srq}, with cookies {@code firstCookie},
     * {@code firstCookie + 1}, ...
     *
     * @param srq the SRQ
     * @param count how many
     * @param firstCookie the first cookie
     * @return the region the buffers lie in, buffer {@code i} at offset {@code 64 * i}
     */
    public Region postSrqBuffers(DatSrq srq, int count, long firstCookie) {
        Region dst = region(64L * count, DatMemPriv.LOCAL_WRITE | DatMemPriv.LOCAL_READ);
        Iov iov = iov(1);
        for (int i = 0; i < count; i++) {
            RuleSupport.assertStatus(DatReturn.DAT_SUCCESS,
                    srq.postRecv(1, iov.set(0, dst.lmr(), 64L * i, 64), firstCookie + i), "dat_srq_post_recv " + i);
        }
        return dst;
    }

    /**
     * Sends {@code messages} 8-byte messages on the active side and reaps each send's successful completion.
     *
     * @param c the connection
     * @param messages how many
     */
    public void sendAndReap(Connection c, int messages) {
        Region src = region();
        Iov iov = iov(1).set(0, src.lmr(), 0, 8);
        for (int i = 0; i < messages; i++) {
            RuleSupport.assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, iov, i, 0), "dat_ep_post_send");
            completion(c.active().requestEvd(), DatDtoStatus.SUCCESS);
        }
    }

    /**
     * Waits for {@code thread} to end, failing after {@link #eventTimeoutMillis()}: no wait of the kit is unbounded.
     *
     * @param thread a thread of the rule
     * @param what what the thread does, for the failure message
     * @throws InterruptedException when interrupted while waiting
     */
    public void join(Thread thread, String what) throws InterruptedException {
        thread.join(eventTimeoutMillis);
        if (thread.isAlive()) {
            fail(what + " did not end within " + eventTimeoutMillis + " ms");
        }
    }

    /**
     * Waits for the next event of {@code evd}, failing after {@link #eventTimeoutMillis()}. Polls with
     * {@code dat_evd_dequeue}, so it does not depend on {@code dat_evd_wait} being right.
     *
     * @param evd the EVD
     * @return a fresh event holder with the event
     */
    public DatEvent next(DatEvd evd) {
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(eventTimeoutMillis);
        while (true) {
            int rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                return event;
            }
            if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                fail("dat_evd_dequeue returned " + DatReturn.toString(rc));
            }
            if (System.nanoTime() > deadline) {
                return fail("no event within " + eventTimeoutMillis + " ms on " + evd);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * Waits for a DTO completion and checks its status.
     *
     * @param evd the EVD
     * @param status the expected status
     * @return the event
     */
    public DatEvent completion(DatEvd evd, DatDtoStatus status) {
        DatEvent event = next(evd);
        assertSame(DatEventType.DTO_COMPLETION, event.type(), "expected a DTO completion, got " + event);
        assertSame(status, event.dtoStatus(), "completion status of " + event);
        return event;
    }

    /**
     * Asserts that {@code evd} stays empty for {@link #QUIET_MILLIS}.
     *
     * @param evd the EVD
     * @param why what the quiet proves, for the failure message
     */
    public void quiet(DatEvd evd, String why) {
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS);
        do {
            int rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                fail(why + ": unexpected " + event);
            }
            Thread.yield();
        } while (System.nanoTime() < deadline);
    }

    /**
     * Fills {@code memory} with a position-dependent pattern seeded by {@code seed}.
     *
     * @param memory the bytes
     * @param seed the seed
     */
    public static void pattern(MemorySegment memory, int seed) {
        for (long i = 0; i < memory.byteSize(); i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, patternByte(seed, i));
        }
    }

    /**
     * {@return the pattern byte at {@code index}}
     *
     * @param seed pattern seed
     * @param index byte index
     */
    public static byte patternByte(int seed, long index) {
        return (byte) (seed * 31L + index * 7 + (index >>> 8));
    }

    /**
     * Asserts that {@code actual} holds {@code expected}'s bytes.
     *
     * @param expected the source bytes
     * @param actual where they should be
     * @param what for the failure message
     */
    public static void assertSameBytes(MemorySegment expected, MemorySegment actual, String what) {
        assertEquals(expected.byteSize(), actual.byteSize(), what + ": sizes");
        long mismatch = expected.mismatch(actual);
        if (mismatch >= 0) {
            fail(what + ": first differing byte at " + mismatch + ": expected "
                    + expected.get(ValueLayout.JAVA_BYTE, mismatch) + " but was "
                    + actual.get(ValueLayout.JAVA_BYTE, mismatch));
        }
    }

    /**
     * Asserts every byte of {@code memory} equals {@code value}.
     *
     * @param memory the bytes
     * @param value the expected byte
     * @param what for the failure message
     */
    public static void assertFilled(MemorySegment memory, byte value, String what) {
        for (long i = 0; i < memory.byteSize(); i++) {
            byte b = memory.get(ValueLayout.JAVA_BYTE, i);
            if (b != value) {
                fail(what + ": byte " + i + " is " + b + ", expected " + value);
            }
        }
    }

    @Override
    public void close() {
        try {
            ia.close(DatCloseFlags.ABRUPT);
        } finally {
            arena.close();
        }
    }
}
