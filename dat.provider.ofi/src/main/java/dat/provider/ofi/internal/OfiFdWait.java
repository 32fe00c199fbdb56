// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.ffm.Poll;
import dat.provider.ofi.internal.ffm.Pollfd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What a {@code dat_evd_wait} blocks in when every CQ of its EVD has a wait descriptor ({@code FI_WAIT_FD}): one
 * {@code poll} over those descriptors and an {@code eventfd} of the EVD's that the EVD signals for an event that comes
 * another way (a connection event queued by the progress thread, a software event, an abort). The consumer is woken
 * by the fabric itself (on tcp the descriptor is readable when an endpoint's socket is) rather than by the progress
 * thread's next step, which is up to 2 ms away on an idle IA.
 *
 * <p>Its memory is the garbage collector's ({@link Arena#ofAuto()}): the poll runs outside the IA's lock, and the EVD
 * may be freed meanwhile; the eventfd is closed by whoever is last, the EVD's free or the poll that outlived it.
 * Guarded by the IA's lock, but for {@link #block}'s poll itself.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiFdWait {

    /** The longest single poll: how soon a {@code Thread.interrupt} is seen. */
    static final int SLICE_MS = 10;
    /** {@link #block} polled. */
    static final int BLOCKED = 0;
    /** {@link #block} did not: completions are waiting to be read. */
    static final int AGAIN = 1;
    /** {@link #block} did not: libfabric cannot say whether blocking is safe. */
    static final int CANNOT = 2;

    private final int wakeFd;
    private final MemorySegment scratch;
    private MemorySegment pollSet = MemorySegment.NULL;
    private MemorySegment fidSet = MemorySegment.NULL;
    private int cqs;
    /** A poll is under way (outside the lock). */
    private boolean polling;
    /** The EVD was freed: the eventfd is closed by the poll under way, or was closed. */
    private boolean ended;

    private OfiFdWait(int wakeFd) {
        this.wakeFd = wakeFd;
        this.scratch = Arena.ofAuto().allocate(JAVA_LONG);
    }

    /** {@return a wait, or {@code null} when the C library cannot make one (the EVD waits on its condition)} */
    static OfiFdWait open() {
        if (!Poll.available()) {
            return null;
        }
        int fd = Poll.eventfd();
        return fd < 0 ? null : new OfiFdWait(fd);
    }

    /**
     * Sets the CQs to wait on. Under the IA's lock.
     *
     * @param cqs the {@code fid_cq}s
     * @param fds their wait descriptors, each {@code >= 0}
     */
    void watch(MemorySegment[] cqs, int[] fds) {
        Arena arena = Arena.ofAuto();
        MemorySegment set = arena.allocate(Pollfd.LAYOUT, cqs.length + 1L);
        MemorySegment fids = arena.allocate(ADDRESS, Math.max(1, cqs.length));
        entry(set, 0, wakeFd);
        for (int i = 0; i < cqs.length; i++) {
            entry(set, i + 1, fds[i]);
            fids.setAtIndex(ADDRESS, i, cqs[i]);
        }
        this.pollSet = set;
        this.fidSet = fids;
        this.cqs = cqs.length;
    }

    private static void entry(MemorySegment set, long i, int fd) {
        MemorySegment e = set.asSlice(i * Pollfd.SIZEOF, Pollfd.SIZEOF);
        Pollfd.fd(e, fd);
        Pollfd.events(e, Poll.POLLIN);
        Pollfd.revents(e, (short) 0);
    }

    /** {@return whether there are CQs to wait on} Under the IA's lock. */
    boolean watching() {
        return cqs > 0 && !ended;
    }

    /** {@return whether a poll is under way} Under the IA's lock. */
    boolean polling() {
        return polling;
    }

    /** Wakes the poll under way, if any. Under the IA's lock. */
    void wake() {
        if (polling) {
            Poll.signal(wakeFd);
        }
    }

    /**
     * Blocks until a CQ's descriptor or the eventfd is readable, or {@code timeoutNanos} (at most {@link #SLICE_MS})
     * passed; called under the IA's lock, held once, which the poll itself runs without.
     *
     * @param ia the IA
     * @param timeoutNanos how long at most
     * @return {@link #BLOCKED}; {@link #AGAIN} when {@code fi_trywait} says completions are to be read first;
     *     {@link #CANNOT} when it fails otherwise (the caller waits on its condition instead)
     */
    int block(OfiIa ia, long timeoutNanos) {
        int rc = Fi.fi_trywait(ia.fabric, fidSet, cqs);
        if (rc != 0) {
            return rc == -LibFabric.FI_EAGAIN ? AGAIN : CANNOT;
        }
        int timeoutMs = (int) Math.max(1, Math.min(SLICE_MS, (timeoutNanos + 999_999) / 1_000_000));
        MemorySegment set = pollSet;
        long n = cqs + 1L;
        polling = true;
        ia.lock.unlock();
        try {
            Poll.poll(set, n, timeoutMs);
        } finally {
            ia.lock.lock();
            polling = false;
        }
        if (ended) {
            Poll.close(wakeFd);
        } else {
            Poll.drain(wakeFd, scratch);
        }
        return BLOCKED;
    }

    /** The EVD is freed: closes the eventfd now, or leaves it to the poll under way. Under the IA's lock. */
    void close() {
        if (ended) {
            return;
        }
        ended = true;
        cqs = 0;
        if (polling) {
            Poll.signal(wakeFd);
        } else {
            Poll.close(wakeFd);
        }
    }
}
