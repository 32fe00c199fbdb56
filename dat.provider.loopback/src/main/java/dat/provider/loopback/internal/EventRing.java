// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.spi.Rings;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The lock-free ring behind a {@link LoopbackEvd}: many producers, many consumers, fixed preallocated slots,
 * no allocation and no lock on either side.
 *
 * <h2>Words</h2>
 * Positions count events since the ring was made and never wrap; position {@code p} lives in slot
 * {@code p & mask}. The slot array is the next power of two at or above the queue length, but never more than
 * {@link #capacity()} events are queued. Head and tail carry the position shifted left by two, and two flags:
 * <pre>
 *   tail   63                               2   1        0
 *          +--------------------------------+--------+--------+
 *          | next position to claim          | SEALED | WAITER |
 *          +--------------------------------+--------+--------+
 *   head   63                               2   1        0
 *          +--------------------------------+--------+----------+
 *          | next position to take           | SEALED | OVERFLOW |
 *          +--------------------------------+--------+----------+
 *   seq of slot p &amp; mask == p + 1  once the event at position p is published (0 in a fresh ring)
 * </pre>
 *
 * <h2>Slots</h2>
 * Slot {@code i} (of position {@code p}, {@code i = p & mask}) is spread over three arrays:
 * <pre>
 *   words[4i ..]   +-----------------+-----------------+--------------------------------------+--------+
 *                  | cookie, or a    | length          | flags: 63..8 status ordinal,         | seq    |
 *                  | receive ring's  |                 |        2 POSITION, 1 SIGNALLED, 0 DTO |        |
 *                  | position        |                 |                                      |        |
 *                  +-----------------+-----------------+--------------------------------------+--------+
 *   refs[2i ..]    | EP (DTO completion) | reaper, or the RecvRing of a POSITION completion |
 *   events[i]      the whole event, for anything but a DTO completion
 * </pre>
 * A DTO completion, the data path's event, lives in the words and refs: a producer writes those few fields
 * instead of every field of a {@link DatEvent}, and {@link #take} builds the consumer's event from them with
 * {@link DatEvent#setDtoCompletion} instead of copying a whole slot. Any other event is written into the slot's
 * preallocated {@link DatEvent} ({@link #slot}) and copied out whole. Either way the slot's fields are plain
 * stores ordered by the publishing store below.
 *
 * <p>The sequence sits in the slot's own 32 bytes, beside the completion it publishes, so the line a consumer polls
 * is the line that brings it the completion: a separate sequence array cost one more line per event, moved between
 * cores on every cross-thread completion. (The JVM aligns an array to 8 bytes, not 64, so some slots straddle two
 * lines; none needs the extra one any more.) The references rarely change ({@link #fillDto} and {@link #publish}
 * skip a store of the value already there), so their line stays shared in both caches.
 *
 * <p>A receive completion of an EP's own queue carries its {@link RecvRing} position instead of the cookie (flag
 * POSITION, the ring in the reaper's place): the delivering thread never reads the cookie, and the consumer reads it
 * from the ring while it copies the slot out, then, once its head CAS made the event its own, frees the ring's slot.
 * The cookie is read before the CAS, so before the slot can be refilled (see {@link RecvRing}).
 *
 * <h2>Producers ({@link #claim}, {@link #publish})</h2>
 * A producer claims position {@code p} with a CAS of the tail from {@code p} to {@code p + 1}, after checking
 * that fewer than {@code capacity} positions lie between head and tail. It then writes the slot's fields with
 * plain stores and publishes them with a <em>release</em> store of the slot's sequence, {@code p + 1}. A consumer
 * reads the sequence with an <em>acquire</em> load; seeing {@code p + 1} means the release store
 * synchronises-with that load, so every plain store the producer made to the slot before publishing
 * happens-before the consumer's reads of it. Nothing weaker would do (a plain store could become visible
 * before the fields), nothing stronger is needed: the consumer reads the fields only after it saw the
 * sequence. Producers claiming {@code p} and {@code p + 1} publish in either order; a consumer at {@code p}
 * simply sees the ring empty until {@code p} is published.
 *
 * <h2>Consumers ({@link #take})</h2>
 * A consumer reads head {@code h} (position {@code p}), checks that the slot's sequence is {@code p + 1} (acquire),
 * copies the slot out, and only then commits with a CAS of the head from {@code h} to {@code p + 1}. If the
 * CAS fails another consumer took {@code p} (or a flag changed) and the copy is thrown away. The copy is never
 * torn when the CAS succeeds: a producer may refill slot {@code p & mask} only for a position
 * {@code q >= p + size}, which it may claim only after reading a head above {@code p}, that is after our
 * CAS; so our reads happen-before its writes (CAS, a volatile write, synchronises-with its volatile read of
 * the head). Hence consumers never make producers wait and producers never make consumers wait.
 *
 * <h2>Overflow</h2>
 * A producer that finds the ring full sets OVERFLOW in the head with a CAS from the head it read: success
 * means the ring was full at that very head and no one had reported this episode, so it reports
 * ({@link #FULL_FIRST}); a head already flagged means the episode is reported ({@link #FULL}). Every take
 * writes a head without the flag, so the dequeue that makes room ends the episode, atomically with making
 * room: no report is lost or doubled however producers and consumers interleave.
 *
 * <h2>Waiter</h2>
 * The EVD's waiter sets WAITER in the tail (a CAS) after registering itself. A producer learns from the tail
 * value its claim CAS replaced whether a waiter was registered, so without a waiter it pays nothing but the
 * release store; with one, it publishes with a volatile store and then reads tail and head (see
 * {@link LoopbackEvd} for the wake-up argument). Events claimed before WAITER was set are awaited by the
 * waiter itself ({@link #awaitPublished}) before it first looks at the queue.
 *
 * <h2>Sealing</h2>
 * Resize and free set SEALED in tail and head ({@link #seal}): every later claim, take or CAS expecting an
 * unsealed word fails, in-flight producers (claimed, not yet published) are waited for, and the ring is then
 * stable for copying or reaping. Data-path callers that meet a sealed ring wait for the EVD to install its new
 * ring (or to be closed).
 */
final class EventRing extends EventRingHead {

    static final int SHIFT = 2;
    static final long ONE = 1L << SHIFT;
    static final long SEALED = 2;
    /** In the tail: an EVD waiter is registered. */
    static final long WAITER = 1;
    /** In the head: the current overflow episode has been reported. */
    static final long OVERFLOW = 1;

    /** {@link #claim}: the ring is full (the episode is already reported, or overflow is not wanted). */
    static final long FULL = -1;
    /** {@link #claim}: the ring is full and this caller opened the overflow episode: it must report it. */
    static final long FULL_FIRST = -2;
    /** {@link #claim}, {@link #markWaiter}: the ring is sealed. */
    static final long SEALED_RING = -3;

    /** {@link #take}: nothing is published at the head. */
    static final Reaper EMPTY = new Mark();
    /** {@link #take}: the ring is sealed. */
    static final Reaper SEALED_MARK = new Mark();
    /** {@link #take}: an event was taken and has no reaper. */
    static final Reaper NO_REAPER = new Mark();

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle HEAD_CACHE;
    /** The slot sequences, at {@code words[i * WORDS + SEQ_WORD]}. */
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(EventRingHead.class, "head", long.class);
            TAIL = lookup.findVarHandle(EventRingTail.class, "tail", long.class);
            HEAD_CACHE = lookup.findVarHandle(EventRingTail.class, "headCache", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param evd the EVD whose events these are (what {@link DatEvent#evd()} returns)
     * @param capacity events the ring holds
     */
    EventRing(DatEvd evd, int capacity) {
        super(evd, capacity);
    }

    int capacity() {
        return capacity;
    }

    // ---- producers ----

    /**
     * Claims the next position.
     *
     * @param markOverflow whether a full ring is an overflow (false for {@code dat_evd_post_se})
     * @return the tail word claimed ({@code >= 0}: position and the WAITER flag), or {@link #FULL},
     *     {@link #FULL_FIRST}, {@link #SEALED_RING}
     */
    long claim(boolean markOverflow) {
        while (true) {
            long t = (long) TAIL.getVolatile(this);
            if ((t & SEALED) != 0) {
                return SEALED_RING;
            }
            long p = t >>> SHIFT;
            // headCache is only ever a head some producer read, so never above the real head: when it says
            // there is room, there is. Only when it says full is the head itself read (a line consumers write).
            if (p - (long) HEAD_CACHE.getOpaque(this) >= capacity) {
                long h = (long) HEAD.getVolatile(this);
                HEAD_CACHE.setOpaque(this, h >>> SHIFT);
                if (p - (h >>> SHIFT) >= capacity) {
                    // The tail was read before the head, so the ring was full when the head was read.
                    if ((h & SEALED) != 0) {
                        Thread.onSpinWait();
                        continue;
                    }
                    if (!markOverflow || (h & OVERFLOW) != 0) {
                        return FULL;
                    }
                    if (HEAD.compareAndSet(this, h, h | OVERFLOW)) {
                        return FULL_FIRST;
                    }
                    continue;
                }
            }
            if (TAIL.compareAndSet(this, t, t + ONE)) {
                return t;
            }
        }
    }

    /** {@return the event to fill for a tail word returned by {@link #claim}, for any event but a DTO completion} */
    DatEvent slot(long claimed) {
        int i = (int) (claimed >>> SHIFT) & mask;
        words[i * WORDS + FLAGS] = 0;
        return events[i];
    }

    /** Fills the slot of a tail word returned by {@link #claim} with a DTO completion. */
    void fillDto(long claimed, DatEp ep, long cookie, DatDtoStatus status, long length) {
        fillDto(claimed, ep, cookie, status, length, DTO);
    }

    /**
     * Fills the slot of a tail word returned by {@link #claim} with a receive completion naming {@code position} of
     * the {@link RecvRing} then given to {@link #publish} as the reaper.
     */
    void fillRecv(long claimed, DatEp ep, long position, DatDtoStatus status, long length) {
        fillDto(claimed, ep, position, status, length, DTO | POSITION);
    }

    private void fillDto(long claimed, DatEp ep, long cookie, DatDtoStatus status, long length, long kind) {
        int i = (int) (claimed >>> SHIFT) & mask;
        int w = i * WORDS;
        words[w + COOKIE] = cookie;
        words[w + LENGTH] = length;
        words[w + FLAGS] = kind | ((long) status.ordinal() << STATUS_SHIFT);
        // A reference store costs a GC write barrier; on the data path the slot mostly holds this EP already.
        if (refs[i * REFS + EP] != ep) {
            refs[i * REFS + EP] = ep;
        }
    }

    /**
     * Publishes a claimed, filled slot; see the class comment for why a release store is enough.
     *
     * @param reaper a {@link Reaper}, the {@link RecvRing} of a {@link #fillRecv} completion, or {@code null}
     */
    void publish(long claimed, boolean signal, Object reaper) {
        long p = claimed >>> SHIFT;
        int i = (int) p & mask;
        if (signal) {
            // slot() and fillDto() wrote the whole flags word, SIGNALLED clear.
            words[i * WORDS + FLAGS] |= SIGNALLED;
        }
        if (refs[i * REFS + REAPER] != reaper) {
            refs[i * REFS + REAPER] = reaper;
        }
        if ((claimed & WAITER) != 0) {
            // A waiter is registered: the store must be ordered before the producer's later loads of tail and
            // head (the Dekker pattern in LoopbackEvd), which a release store does not give.
            SEQ.setVolatile(words, i * WORDS + SEQ_WORD, p + 1);
        } else {
            SEQ.setRelease(words, i * WORDS + SEQ_WORD, p + 1);
        }
    }

    // ---- consumers ----

    /**
     * Takes the head event into {@code into}.
     *
     * @return its reaper, {@link #NO_REAPER}, or {@link #EMPTY} / {@link #SEALED_MARK} when nothing was taken
     *     ({@code into} may then hold a copy another consumer won: its content is undefined)
     */
    Reaper take(DatEvent into) {
        while (true) {
            long h = (long) HEAD.getVolatile(this);
            if ((h & SEALED) != 0) {
                return SEALED_MARK;
            }
            long p = h >>> SHIFT;
            int i = (int) p & mask;
            long seq = (long) SEQ.getAcquire(words, i * WORDS + SEQ_WORD);
            if (seq != p + 1) {
                if (seq < p + 1) {
                    return EMPTY;
                }
                // A lap ahead: h is already stale.
                continue;
            }
            // Racy until the CAS below succeeds: a lost race may read a later lap's fields, never trusted.
            Object reaper = refs[i * REFS + REAPER];
            long word = copyOut(i, into, reaper);
            // The new head has no OVERFLOW flag: this take makes room, which ends an overflow episode.
            if (HEAD.compareAndSet(this, h, (p + 1) << SHIFT)) {
                if (reaper instanceof Reaper r) {
                    return r;
                }
                if (reaper instanceof RecvRing ring) {
                    // The cookie is copied: the receive's slot may now be refilled.
                    ring.release(word);
                }
                return NO_REAPER;
            }
        }
    }

    /**
     * Copies slot {@code i}, whose reaper word is {@code reaper}, into {@code into}.
     *
     * @return the slot's cookie word (a receive ring's position for a POSITION completion)
     */
    private long copyOut(int i, DatEvent into, Object reaper) {
        int w = i * WORDS;
        long flags = words[w + FLAGS];
        long word = words[w + COOKIE];
        if ((flags & DTO) != 0) {
            long cookie = word;
            if ((flags & POSITION) != 0) {
                // instanceof, not a cast: before the take's CAS the reaper word may belong to another lap.
                cookie = reaper instanceof RecvRing ring ? ring.cookieAt(word) : 0;
            }
            into.setDtoCompletion(evd, (DatEp) refs[i * REFS + EP], cookie,
                    STATUSES[(int) (flags >>> STATUS_SHIFT)], words[w + LENGTH]);
        } else {
            into.copyFrom(events[i]);
        }
        return word;
    }

    /** {@return claimed minus taken positions (claimed events are about to be published), at least 0} */
    int queued() {
        long t = (long) TAIL.getVolatile(this) >>> SHIFT;
        long h = (long) HEAD.getVolatile(this) >>> SHIFT;
        return (int) Math.max(0, t - h);
    }

    /**
     * The waiter's test ({@code dat_evd_wait}): at least {@code threshold} published events from the head on,
     * and one of those published signalled. Volatile loads: they take part in the Dekker pattern with
     * {@link #publish}.
     */
    boolean ready(int threshold) {
        long p = (long) HEAD.getVolatile(this) >>> SHIFT;
        boolean signal = false;
        for (int n = 0; n < capacity; n++) {
            int i = (int) (p + n) & mask;
            if ((long) SEQ.getVolatile(words, i * WORDS + SEQ_WORD) != p + n + 1) {
                return false;
            }
            signal |= (words[i * WORDS + FLAGS] & SIGNALLED) != 0;
            if (n + 1 >= threshold && signal) {
                return true;
            }
        }
        return false;
    }

    // ---- waiter ----

    /** Sets WAITER in the tail. @return the tail before (claims below it predate the flag), or SEALED_RING */
    long markWaiter() {
        while (true) {
            long t = (long) TAIL.getVolatile(this);
            if ((t & SEALED) != 0) {
                return SEALED_RING;
            }
            if (TAIL.compareAndSet(this, t, t | WAITER)) {
                return t;
            }
        }
    }

    /** Clears WAITER in the tail. @return false when the ring is sealed (the flag then moves with a resize) */
    boolean clearWaiter() {
        while (true) {
            long t = (long) TAIL.getVolatile(this);
            if ((t & SEALED) != 0) {
                return false;
            }
            if (TAIL.compareAndSet(this, t, t & ~WAITER)) {
                return true;
            }
        }
    }

    /**
     * Waits until every position below {@code tailWord}'s is published. Claimed positions are published within
     * a few stores, so this spins; a slot refilled for a later lap counts as published (sequences only grow).
     */
    void awaitPublished(long tailWord) {
        long end = tailWord >>> SHIFT;
        for (long p = (long) HEAD.getVolatile(this) >>> SHIFT; p < end; p++) {
            int i = (int) p & mask;
            for (int spins = 0; (long) SEQ.getAcquire(words, i * WORDS + SEQ_WORD) < p + 1; spins++) {
                backoff(spins);
            }
        }
    }

    // ---- control path (caller holds the EVD's control lock) ----

    /** {@return whether {@link #seal} was called and not undone} */
    boolean sealed() {
        return (((long) TAIL.getVolatile(this) | (long) HEAD.getVolatile(this)) & SEALED) != 0;
    }

    /** Stops claims and takes, then waits for claimed events to be published: the ring is then stable. */
    void seal() {
        TAIL.getAndBitwiseOr(this, SEALED);
        HEAD.getAndBitwiseOr(this, SEALED);
        awaitPublished((long) TAIL.getVolatile(this));
    }

    /** Undoes {@link #seal} (a resize that was refused). */
    void unseal() {
        HEAD.getAndBitwiseAnd(this, ~SEALED);
        TAIL.getAndBitwiseAnd(this, ~SEALED);
    }

    /** {@return events queued in a sealed ring} */
    int sealedCount() {
        return queued();
    }

    /**
     * Copies the events of this sealed ring into the fresh ring {@code to}, which must hold them, with the WAITER
     * flag, and the OVERFLOW flag when {@code to} is full (dat_evd_resize keeps an episode only if no room was
     * made). Plain stores: {@code to} is handed to other threads by a volatile write of the EVD's ring field.
     */
    void moveTo(EventRing to) {
        long t = (long) TAIL.getVolatile(this);
        long h = (long) HEAD.getVolatile(this);
        int n = (int) ((t >>> SHIFT) - (h >>> SHIFT));
        for (int k = 0; k < n; k++) {
            int from = (int) ((h >>> SHIFT) + k) & mask;
            System.arraycopy(words, from * WORDS, to.words, k * WORDS, SEQ_WORD);
            System.arraycopy(refs, from * REFS, to.refs, k * REFS, REFS);
            to.events[k].copyFrom(events[from]);
            to.words[k * WORDS + SEQ_WORD] = k + 1L;
        }
        to.tail = ((long) n << SHIFT) | (t & WAITER);
        to.head = n == to.capacity ? h & OVERFLOW : 0;
    }

    /** Calls the reaper of every event still queued in this sealed ring (dat_evd_free). */
    void reapAll() {
        long end = (long) TAIL.getVolatile(this) >>> SHIFT;
        for (long p = (long) HEAD.getVolatile(this) >>> SHIFT; p < end; p++) {
            int i = (int) p & mask;
            Object reaper = refs[i * REFS + REAPER];
            if (reaper instanceof Reaper r) {
                r.reaped();
            } else if (reaper instanceof RecvRing ring) {
                ring.release(words[i * WORDS + COOKIE]);
            }
        }
    }

    /** Spin first, then yield: what is waited for is a few stores away unless its thread was descheduled. */
    static void backoff(int spins) {
        if (spins < 128) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private static final class Mark implements Reaper {
        @Override
        public void reaped() {
        }
    }
}

/*
 * Padding by inheritance (Agrona's way): the JVM lays out superclass fields first, so the tail, written by
 * producers, and the head, written by consumers, sit on cache lines of their own instead of sharing one
 * and bouncing it between cores.
 */

/** Immutable configuration, read by everyone. */
abstract class EventRingConfig {

    /** Longs per slot in {@link #words}, and their offsets. */
    static final int WORDS = 4;
    static final int COOKIE = 0;
    static final int LENGTH = 1;
    static final int FLAGS = 2;
    /** The slot's sequence: written last, with release semantics, through EventRing's SEQ VarHandle. */
    static final int SEQ_WORD = 3;
    /** In a slot's flags: it holds a DTO completion (else the event is in {@link #events}). */
    static final long DTO = 1;
    /** In a slot's flags: the event is signalled. */
    static final long SIGNALLED = 2;
    /** In a slot's flags: the cookie word is a position of the {@link RecvRing} in the reaper's place. */
    static final long POSITION = 4;
    /** In a slot's flags: where the DTO status ordinal starts. */
    static final int STATUS_SHIFT = 8;
    static final DatDtoStatus[] STATUSES = DatDtoStatus.values();
    /** References per slot in {@link #refs}, and their offsets. */
    static final int REFS = 2;
    static final int EP = 0;
    /**
     * Who hears that a completion was reaped: the SRQ its receive buffer came from (the buffer stops being
     * outstanding) or the EP whose request slot it holds (a {@link Reaper}), the {@link RecvRing} whose slot a
     * POSITION completion holds, or {@code null} for no one.
     */
    static final int REAPER = 1;

    final DatEvd evd;
    final int capacity;
    final int mask;
    final long[] words;
    final Object[] refs;
    final DatEvent[] events;

    EventRingConfig(DatEvd evd, int capacity) {
        int size = Rings.size(capacity);
        this.evd = evd;
        this.capacity = capacity;
        this.mask = size - 1;
        this.words = new long[size * WORDS];
        this.refs = new Object[size * REFS];
        this.events = new DatEvent[size];
        for (int i = 0; i < size; i++) {
            events[i] = new DatEvent();
        }
    }
}

abstract class EventRingPad1 extends EventRingConfig {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;

    EventRingPad1(DatEvd evd, int capacity) {
        super(evd, capacity);
    }
}

/** Producer side. */
abstract class EventRingTail extends EventRingPad1 {
    /** Accessed through EventRing's TAIL VarHandle. */
    volatile long tail;
    /** A recent head position, so producers read the consumers' line only when the ring looks full. */
    long headCache;

    EventRingTail(DatEvd evd, int capacity) {
        super(evd, capacity);
    }
}

abstract class EventRingPad2 extends EventRingTail {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;

    EventRingPad2(DatEvd evd, int capacity) {
        super(evd, capacity);
    }
}

/** Consumer side. */
abstract class EventRingHead extends EventRingPad2 {
    /** Accessed through EventRing's HEAD VarHandle. */
    volatile long head;
    long p30, p31, p32, p33, p34, p35, p36, p37, p38, p39, p3a, p3b, p3c, p3d, p3e, p3f;

    EventRingHead(DatEvd evd, int capacity) {
        super(evd, capacity);
    }
}
