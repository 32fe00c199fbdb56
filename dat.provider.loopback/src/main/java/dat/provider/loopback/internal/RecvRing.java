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
 *   completed, completion not reaped   posted, not yet completed         free (posters fill these)
 *   |&lt;-----------------------------&gt;|&lt;------------------------------&gt;|&lt;-----------------------&gt;|
 *   freed                             head                              tail            freed + capacity
 *   slot of position p: slots[p &amp; mask], cookies[p &amp; mask], done[p &amp; mask]
 *   (positions count from 0 and never wrap)
 * </pre>
 * A slot is held from its post until its completion is reaped, as a verbs receive queue holds a WQE until its CQE
 * is polled: the receive completion names the slot's position, not the cookie ({@link LoopbackEvd#postRecv}), and the
 * consumer that takes it from the EVD reads the cookie from {@link #cookies} ({@link #cookieAt}) and then frees the
 * slot ({@link #release}). So the cookie, which changes on every post, lives in an array only the receiving side
 * touches (the poster writes it, the EVD's consumer reads it), and a re-post of the same buffers writes nothing the
 * delivering thread reads except {@code tail}: the descriptor's segments, count, length and flags are stored only when
 * they change ({@link Dto#load}, {@link #setFlags}).
 *
 * <h2>Posting ({@link #postSlot}, {@link #setCookie}, {@link #publish}; caller holds the recv lock)</h2>
 * The poster fills the slot at {@code tail} with plain stores, then publishes it with a volatile store of
 * {@code tail + 1}. The deliverer reads {@code tail} with an acquire load, so seeing the new tail means the
 * release half of that store synchronises-with its load and every field of the descriptor is visible. The
 * store is volatile rather than release for the wake-up argument below. The cookie reaches the EVD's consumer through
 * the same chain: tail (release, acquire by the deliverer), the completion's publication (release, acquire by the
 * consumer).
 *
 * <h2>Delivering ({@link #claim}, {@link #finish}; one delivery at a time)</h2>
 * The deliverer reads the slot at {@code head} (after the acquire load of tail showed it published), copies the
 * message, reads what the completion needs, advances {@code head} and posts the completion naming the position. Only
 * the receiving side reads {@code head} (for counts and on the control path): posters never do.
 *
 * <h2>Freeing ({@link #release}, any thread)</h2>
 * Whoever ends a slot's life stores {@code p + 1} into {@code done[p & mask]} with a release store: the consumer
 * that took the completion from its EVD (after its head CAS, so after it read the cookie), the deliverer when no
 * completion is queued (SUPPRESS, no receive EVD, an EVD that overflowed or was freed), the EVD's free for the
 * events it drops. A poster frees nothing: it keeps {@code freed}, the first position not known to be free, and
 * advances it over {@code done} entries equal to their position + 1 (acquire loads) only when the ring looks full.
 * Slots may be freed in any order (a suppressed receive frees at delivery while an earlier completion waits in the
 * EVD); {@code freed} moves only over a gap-free run, so a slot is never refilled while its cookie is still to be
 * read, nor while a delivery reads its descriptor: the deliverer's reads happen-before the completion's release,
 * which happens-before the consumer's release of {@code done}, which happens-before the poster's acquire of it and
 * its writes. A {@code done} entry equal to {@code p + 1} cannot be stale: it held at most {@code p + 1 - size}
 * before, and {@code p + size} is never posted before {@code p} is freed.
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
 * The deliverer keeps the last tail it read ({@link RecvRingHead#tailCache}) and reads the poster's line only when its
 * copy says empty; a cached tail is never above the real tail, so the cache can only be pessimistic. Head and tail sit
 * on cache lines of their own (padding by inheritance, as in {@link EventRing}), so a poster and a deliverer on two
 * cores do not bounce one line.
 *
 * <h2>Control path</h2>
 * {@link #flushNext} and {@link #moveTo} run with the recv lock and both send locks of the connection held:
 * no poster and no deliverer is active. Moving {@code head} there must keep {@code tailCache} at or above it:
 * the deliverer's cache is otherwise the one word that may lag behind the head, and a stale cache below the head
 * once made {@link #claim} hand out a flushed slot as a posted receive (an old cookie, a buffer the application
 * had back, a negative count, and a flush that never ended). A flush's completions name positions too and hold their
 * slots until reaped; once the connection is gone the EP takes a fresh ring ({@link #fresh}), as a verbs QP's reset
 * empties its receive queue, so work posted after {@code dat_ep_reset} never waits for old completions to be reaped
 * and an old completion still reads its cookie from the ring it names.
 */
final class RecvRing extends RecvRingHead {

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle DONE = MethodHandles.arrayElementVarHandle(long[].class);

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
     * @param capacity receives that can be posted and not yet reaped ({@code max_recv_dtos})
     * @param maxSegments the segments of each descriptor ({@code max_recv_iov})
     */
    RecvRing(int capacity, int maxSegments) {
        super(capacity, maxSegments);
    }

    int capacity() {
        return capacity;
    }

    /** {@return an empty ring of the same size, every slot free} */
    RecvRing fresh() {
        return new RecvRing(capacity, spare.capacity());
    }

    // ---- posters (recv lock held) ----

    /**
     * {@return the free slot at the tail to validate a post into, or the spare when the ring is full (the post then
     * still validates, so a bad IOV is reported before a full queue, and is refused by {@link #full})}
     */
    Dto postSlot() {
        long t = tail;
        if (t - freed >= capacity) {
            advanceFreed();
            if (t - freed >= capacity) {
                return spare;
            }
        }
        return slots[(int) t & mask];
    }

    /** Moves {@link #freed} over the slots released since; acquire: their last readers' reads happen-before. */
    private void advanceFreed() {
        long f = freed;
        while ((long) DONE.getAcquire(done, (int) f & mask) == f + 1) {
            f++;
        }
        freed = f;
    }

    /** {@return whether every slot is posted, filled or held by an unreaped completion; after {@link #postSlot}} */
    boolean full() {
        return tail - freed >= capacity;
    }

    /** Sets the cookie of the slot {@link #postSlot} returned (not the spare). */
    void setCookie(long cookie) {
        cookies[(int) tail & mask] = cookie;
    }

    /**
     * Sets the completion flags of {@code d}, a slot {@link #postSlot} returned, storing only a change: the deliverer
     * reads them (SUPPRESS decides whether a completion is queued), and an unchanged store would still take the line.
     */
    static void setFlags(Dto d, int flags) {
        if (d.flags != flags) {
            d.flags = flags;
        }
        if (d.op != Dto.RECV) {
            d.op = Dto.RECV;
        }
    }

    /**
     * Publishes the slot {@link #postSlot} returned (not the spare). Volatile, not just release: the caller
     * reads the EP's recvWanted mark next (see the class comment).
     */
    void publish() {
        TAIL.setVolatile(this, tail + 1);
    }

    // ---- the deliverer (one at a time, serialised by the peer's send lock) ----

    /** {@return the oldest posted receive, which stays held until its completion is reaped; {@code null} when none} */
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

    /**
     * Completes the slot {@link #claim} returned: it stays held until {@link #release} of the position returned.
     *
     * @return the slot's position, which its completion names
     */
    long finish() {
        long h = head;
        HEAD.setRelease(this, h + 1);
        return h;
    }

    // ---- the receiving side (any thread) ----

    /**
     * {@return the cookie posted at {@code position}} Called by the EVD's consumer while the completion naming the
     * position is in its EVD; a consumer that loses the race for the event may read a newer cookie, which it
     * discards with its copy.
     */
    long cookieAt(long position) {
        return cookies[(int) position & mask];
    }

    /** Frees the slot of {@code position}: its completion was reaped, or will never be queued. Once per position. */
    void release(long position) {
        DONE.setRelease(done, (int) position & mask, position + 1);
    }

    /** {@return receives posted and not completed (the one being filled included)} */
    int allocated() {
        long h = (long) HEAD.getAcquire(this);
        long t = (long) TAIL.getAcquire(this);
        return (int) (t - h);
    }

    // ---- control path (recv lock and both send locks held) ----

    /** {@return whether a slot is held by a completion not yet reaped} Caller holds the recv lock. */
    boolean holdsCompletions() {
        advanceFreed();
        return freed != head;
    }

    /**
     * Removes the oldest posted receive from the ring: its slot stays held until its completion is reaped.
     *
     * @return its position, or {@code -1} when no receive is posted
     */
    long flushNext() {
        long h = head;
        if (h == (long) TAIL.getAcquire(this)) {
            return -1;
        }
        HEAD.setRelease(this, h + 1);
        // The deliverer is stopped (its send lock is held): keep its cache at or above the head it will see next.
        tailCache = Math.max(tailCache, h + 1);
        return h;
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

    /**
     * Moves the posted receives into the empty ring {@code to}, which holds them and whose segments fit. Completions
     * not yet reaped keep naming this ring, which they free and read their cookies from.
     */
    void moveTo(RecvRing to) {
        long t = (long) TAIL.getAcquire(this);
        long n = 0;
        for (long p = head; p < t; p++, n++) {
            to.slots[(int) n & to.mask].copyFrom(slots[(int) p & mask]);
            to.cookies[(int) n & to.mask] = cookies[(int) p & mask];
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
    /** The cookie of each slot's receive: written by posters, read by the EVD's consumer; never by the deliverer. */
    final long[] cookies;
    /** {@code done[p & mask] == p + 1} once position {@code p} is freed; through RecvRing's DONE VarHandle. */
    final long[] done;

    RecvRingConfig(int capacity, int maxSegments) {
        int size = Rings.size(capacity);
        this.capacity = capacity;
        this.mask = size - 1;
        this.slots = new Dto[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new Dto(maxSegments);
        }
        this.spare = new Dto(maxSegments);
        this.cookies = new long[size];
        this.done = new long[size];
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
    /** The first position not known to be freed; never above the real one. Guarded by the recv lock. */
    long freed;

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
