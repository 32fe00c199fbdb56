// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.spi.Rings;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An EP's own receive queue: preallocated descriptors in a ring, filled in place by {@code dat_ep_post_recv}
 * and taken, in posting order, by the delivery of the peer's sends. Posters are serialised by the EP's recv
 * lock, deliveries by the peer's send lock; the two sides never share a lock, so a delivery takes no lock of
 * the receiving EP at all (before this ring it took the recv lock twice per message, and a poster contending
 * with it parked).
 *
 * <h2>Words</h2>
 * <pre>
 *   posted, not yet completed          free (posters fill these)
 *   |&lt;------------------------------&gt;|&lt;-------------------------------&gt;|
 *   head                              tail                       head + capacity
 *   (slot being filled while a delivery runs)
 *   slot of position p: slots[p &amp; mask]; positions count from 0 and never wrap
 * </pre>
 *
 * <h2>Posting ({@link #postSlot}, {@link #publish}; caller holds the recv lock)</h2>
 * The poster fills the slot at {@code tail} with plain stores, then publishes it with a volatile store of
 * {@code tail + 1}. The deliverer reads {@code tail} with an acquire load, so seeing the new tail means the
 * release half of that store synchronises-with its load and every field of the descriptor is visible. The
 * store is volatile rather than release for the wake-up argument below.
 *
 * <h2>Delivering ({@link #claim}, {@link #finish}; one delivery at a time)</h2>
 * The deliverer reads the slot at {@code head} (after the acquire load of tail showed it published), copies
 * the message, reads what the completion needs, and only then releases the slot with a release store of
 * {@code head + 1}. A poster may refill slot {@code p & mask} only for a position {@code q >= p + capacity},
 * which it claims only after an acquire load of a head above {@code p}: the deliverer's reads of the slot
 * happen-before that release store, which happens-before the poster's writes. So a slot is never refilled
 * under a delivery, and nothing stronger than release/acquire is needed for it.
 *
 * <h2>Waking a waiting send</h2>
 * A send that finds the ring empty waits in the sender's request queue; the next poster must run it. Sender
 * and poster each write, then read the other's word (a Dekker pattern, which release/acquire does not
 * order): the sender sets the receiving EP's {@code recvWanted} mark with a volatile store, then reads
 * {@code tail} again with {@link #published} (volatile); the poster publishes {@code tail} (volatile), then
 * reads the mark (volatile). Volatile accesses are totally ordered: if the sender's second read missed the new
 * tail, it came before the poster's store, so the mark's store came before the poster's read, which sees it.
 * Either the sender delivers or the poster runs the sender's queue; see {@code LoopbackEpData#wantRecv}. The mark
 * is cleared only by a later successful claim, so it stays set for as long as a send waits.
 *
 * <h2>Caches</h2>
 * Each side keeps the last value it read of the other side's word ({@link RecvRingTail#headCache},
 * {@link RecvRingHead#tailCache}) and reads the other side's cache line only when its copy says full or
 * empty: a cached head is never above the real head, a cached tail never above the real tail, so the cache
 * can only be pessimistic. Head and tail sit on cache lines of their own (padding by inheritance, as in
 * {@link EventRing}), so a poster and a deliverer on two cores do not bounce one line.
 *
 * <h2>Control path</h2>
 * {@link #flushNext} and {@link #moveTo} run with the recv lock and both send locks of the connection held:
 * no poster and no deliverer is active. Moving {@code head} there must keep {@code tailCache} at or above it:
 * the deliverer's cache is otherwise the one word that may lag behind the head, and a stale cache below the head
 * once made {@link #claim} hand out a flushed slot as a posted receive (an old cookie, a buffer the application
 * had back, a negative count, and a flush that never ended).
 */
final class RecvRing extends RecvRingHead {

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(RecvRingHead.class, "head", long.class);
            TAIL = lookup.findVarHandle(RecvRingTail.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param capacity receives that can be posted and not yet completed ({@code max_recv_dtos})
     * @param maxSegments the segments of each descriptor ({@code max_recv_iov})
     */
    RecvRing(int capacity, int maxSegments) {
        super(capacity, maxSegments);
    }

    int capacity() {
        return capacity;
    }

    // ---- posters (recv lock held) ----

    /**
     * {@return the free slot at the tail to validate a post into, or the spare when the ring is full (the post then
     * still validates, so a bad IOV is reported before a full queue, and is refused by {@link #full})}
     */
    Dto postSlot() {
        long t = tail;
        if (t - headCache >= capacity) {
            // Acquire: the deliverer's reads of the slot we may now refill happen-before our writes.
            headCache = (long) HEAD.getAcquire(this);
            if (t - headCache >= capacity) {
                return spare;
            }
        }
        return slots[(int) t & mask];
    }

    /** {@return whether every slot is posted or being filled; call after {@link #postSlot}} */
    boolean full() {
        return tail - headCache >= capacity;
    }

    /**
     * Publishes the slot {@link #postSlot} returned (not the spare). Volatile, not just release: the caller
     * reads the EP's recvWanted mark next (see the class comment).
     */
    void publish() {
        TAIL.setVolatile(this, tail + 1);
    }

    // ---- the deliverer (one at a time, serialised by the peer's send lock) ----

    /** {@return the oldest posted receive, which stays allocated until {@link #finish}; {@code null} when none} */
    Dto claim() {
        long h = head;
        // "No cached tail above the head" rather than "cached tail == head": the control path moves head (flushNext)
        // without the deliverer, and a cache left below the head must read as empty, never as a lap of slots.
        if (tailCache - h <= 0) {
            tailCache = (long) TAIL.getAcquire(this);
            if (tailCache - h <= 0) {
                return null;
            }
        }
        return slots[(int) h & mask];
    }

    /**
     * The sender's re-check after it set the recvWanted mark (volatile load: the Dekker half of the
     * sender; see the class comment).
     *
     * @return whether a receive is posted
     */
    boolean published() {
        tailCache = (long) TAIL.getVolatile(this);
        return head != tailCache;
    }

    /** Frees the slot {@link #claim} returned; the caller has read everything it needs from it. */
    void finish() {
        HEAD.setRelease(this, head + 1);
    }

    // ---- anyone ----

    /** {@return receives posted and not completed (the one being filled included)} */
    int allocated() {
        long h = (long) HEAD.getAcquire(this);
        long t = (long) TAIL.getAcquire(this);
        return (int) (t - h);
    }

    // ---- control path (recv lock and both send locks held) ----

    /** {@return the oldest posted receive, removed from the ring; {@code null} when the ring is empty} */
    Dto flushNext() {
        long h = head;
        if (h == (long) TAIL.getAcquire(this)) {
            return null;
        }
        Dto d = slots[(int) h & mask];
        HEAD.setRelease(this, h + 1);
        // The deliverer is stopped (its send lock is held): keep its cache at or above the head it will see next.
        tailCache = Math.max(tailCache, h + 1);
        return d;
    }

    /**
     * {@return the oldest posted receive with more segments, or {@code null}}
     *
     * @param segments a new {@code max_recv_iov}
     */
    Dto firstWiderThan(int segments) {
        long t = (long) TAIL.getAcquire(this);
        for (long p = head; p < t; p++) {
            Dto d = slots[(int) p & mask];
            if (d.count > segments) {
                return d;
            }
        }
        return null;
    }

    /** Moves the posted receives into the empty ring {@code to}, which holds them and whose segments fit. */
    void moveTo(RecvRing to) {
        long t = (long) TAIL.getAcquire(this);
        long n = 0;
        for (long p = head; p < t; p++, n++) {
            to.slots[(int) n & to.mask].copyFrom(slots[(int) p & mask]);
        }
        // The new ring is published to other threads by the recv lock's release.
        to.tail = n;
        to.tailCache = n;
    }
}

/** Immutable configuration. */
abstract class RecvRingConfig {

    final int capacity;
    final int mask;
    final Dto[] slots;
    /** What a post validates into when the ring is full; guarded by the recv lock. */
    final Dto spare;

    RecvRingConfig(int capacity, int maxSegments) {
        int size = Rings.size(capacity);
        this.capacity = capacity;
        this.mask = size - 1;
        this.slots = new Dto[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new Dto(maxSegments);
        }
        this.spare = new Dto(maxSegments);
    }
}

abstract class RecvRingPad1 extends RecvRingConfig {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;

    RecvRingPad1(int capacity, int maxSegments) {
        super(capacity, maxSegments);
    }
}

/** Poster side. */
abstract class RecvRingTail extends RecvRingPad1 {
    /** Next position to post; written only by posters (recv lock), through RecvRing's TAIL VarHandle. */
    long tail;
    /** A head some poster read; never above the real head. Guarded by the recv lock. */
    long headCache;

    RecvRingTail(int capacity, int maxSegments) {
        super(capacity, maxSegments);
    }
}

abstract class RecvRingPad2 extends RecvRingTail {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;

    RecvRingPad2(int capacity, int maxSegments) {
        super(capacity, maxSegments);
    }
}

/** Deliverer side. */
abstract class RecvRingHead extends RecvRingPad2 {
    /** Next position to deliver; written only by the deliverer, through RecvRing's HEAD VarHandle. */
    long head;
    /** A tail the deliverer read; never above the real tail. Guarded by the peer's send lock. */
    long tailCache;
    long p30, p31, p32, p33, p34, p35, p36, p37, p38, p39, p3a, p3b, p3c, p3d, p3e, p3f;

    RecvRingHead(int capacity, int maxSegments) {
        super(capacity, maxSegments);
    }
}
