// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The EP's receive ring on its own (one thread plays poster and deliverer, step by step), then under one
 * poster thread and one deliverer thread.
 */
class RecvRingTest {

    /** What a poster does under the recv lock: validate into the slot, then publish it. */
    private static boolean post(RecvRing ring, long cookie) {
        ring.postSlot();
        if (ring.full()) {
            return false;
        }
        ring.setCookie(cookie);
        ring.publish();
        return true;
    }

    /** What a delivery and the reaping of its completion do: {@return the cookie the consumer reads} */
    private static long deliverAndReap(RecvRing ring) {
        assertNotNull(ring.claim());
        long position = ring.finish();
        long cookie = ring.cookieAt(position);
        ring.release(position);
        return cookie;
    }

    @Test
    void receivesComeOutInPostingOrderAcrossLaps() {
        // Capacity 3 in 4 slots: positions wrap at a different point than the capacity limit.
        RecvRing ring = new RecvRing(3, 1);
        for (long c = 0; c < 50; c++) {
            assertTrue(post(ring, c));
            assertEquals(c, deliverAndReap(ring));
            assertNull(ring.claim());
        }
        assertEquals(0, ring.allocated());
    }

    @Test
    void aFlushedRingIsEmptyToTheDeliverer() {
        // The deliverer's cached tail is 0; a flush then moves head to 1, past that cache. The next claim must see
        // an empty ring (regression: it took "cache != head" for "not empty" and handed out slot 1, never posted;
        // once the positions went on, a lap of stale slots).
        RecvRing ring = new RecvRing(3, 1);
        for (long lap = 0; lap < 6; lap++) {
            assertTrue(post(ring, 10 + lap));
            long position = ring.flushNext();
            assertEquals(10 + lap, ring.cookieAt(position), "the control path flushes the receive");
            ring.release(position);
            assertEquals(-1, ring.flushNext());
            assertNull(ring.claim(), "after the flush there is nothing to deliver");
            assertEquals(0, ring.allocated());
        }
        assertTrue(post(ring, 2));
        assertEquals(2, deliverAndReap(ring), "a receive posted after the flushes is delivered");
        assertNull(ring.claim());
        assertEquals(0, ring.allocated());
    }

    @Test
    void aFullRingValidatesIntoTheSpareAndRefuses() {
        RecvRing ring = new RecvRing(3, 1);
        for (int i = 0; i < 3; i++) {
            assertTrue(post(ring, i));
        }
        Dto spare = ring.postSlot();
        assertTrue(ring.full());
        assertSame(ring.spare, spare, "a full ring hands out the spare, never a posted slot");
        assertFalse(post(ring, 99));
        assertEquals(3, ring.allocated());
        assertEquals(0, deliverAndReap(ring), "the refused post changed nothing");
    }

    @Test
    void aSlotIsHeldUntilItsCompletionIsReaped() {
        RecvRing ring = new RecvRing(2, 1);
        assertTrue(post(ring, 1));
        assertTrue(post(ring, 2));
        Dto filling = ring.claim();
        // The delivery is still copying into `filling`: the ring counts it and a post must not get its slot.
        assertEquals(2, ring.allocated());
        assertSame(ring.spare, ring.postSlot());
        assertTrue(ring.full());
        long position = ring.finish();
        assertEquals(0, position);
        assertEquals(1, ring.allocated(), "completed: no longer allocated to the EP");
        // The completion naming position 0 is not reaped yet: its cookie must stay, so its slot stays taken.
        assertSame(ring.spare, ring.postSlot(), "a completed, unreaped slot is not refilled");
        assertTrue(ring.full());
        assertEquals(1, ring.cookieAt(position));
        ring.release(position);
        Dto next = ring.postSlot();
        assertFalse(ring.full());
        assertSame(filling, next, "once reaped, the slot is the next to fill");
        assertNotSame(ring.spare, next);
    }

    @Test
    void slotsFreedOutOfOrderAreReusedOnlyOnceEveryEarlierOneIsFree() {
        // A suppressed receive frees its slot at delivery while the completion before it waits in the EVD: the slot
        // of that earlier completion, whose cookie is still to be read, must not be refilled (a count of frees would
        // have said "one slot free" and handed it out).
        RecvRing ring = new RecvRing(2, 1);
        assertTrue(post(ring, 10));
        assertTrue(post(ring, 11));
        ring.claim();
        long first = ring.finish();
        ring.claim();
        long second = ring.finish();
        ring.release(second);
        assertSame(ring.spare, ring.postSlot(), "position 0's completion is unreaped: no slot is free in order");
        assertFalse(post(ring, 12));
        assertEquals(10, ring.cookieAt(first), "the unreaped completion still reads its own cookie");
        ring.release(first);
        assertTrue(post(ring, 12));
        assertTrue(post(ring, 13), "both slots are free once the earlier one is too");
        assertFalse(post(ring, 14));
        assertEquals(12, deliverAndReap(ring));
        assertEquals(13, deliverAndReap(ring));
    }

    @Test
    void aFreshRingHasEverySlotFreeWhileTheOldOneKeepsItsCookies() {
        RecvRing ring = new RecvRing(2, 3);
        assertTrue(post(ring, 1));
        assertTrue(post(ring, 2));
        long a = ring.flushNext();
        long b = ring.flushNext();
        assertTrue(ring.holdsCompletions());
        RecvRing fresh = ring.fresh();
        assertEquals(2, fresh.capacity());
        assertEquals(3, fresh.spare.capacity());
        assertTrue(post(fresh, 7));
        assertTrue(post(fresh, 8));
        assertEquals(1, ring.cookieAt(a), "old completions read the ring they name");
        assertEquals(2, ring.cookieAt(b));
        ring.release(a);
        ring.release(b);
        assertFalse(ring.holdsCompletions());
        assertEquals(7, deliverAndReap(fresh));
    }

    @Test
    void theDelivererSeesAPostOnlyOnceItIsPublished() {
        RecvRing ring = new RecvRing(4, 1);
        ring.postSlot();
        ring.setCookie(7);
        assertNull(ring.claim(), "filled but unpublished");
        assertFalse(ring.published());
        ring.publish();
        assertTrue(ring.published(), "the sender's volatile re-check sees the post");
        assertEquals(7, deliverAndReap(ring));
    }

    @Test
    void flushTakesEveryPostedReceiveInOrder() {
        RecvRing ring = new RecvRing(4, 1);
        for (int i = 0; i < 3; i++) {
            assertTrue(post(ring, i));
        }
        for (int i = 0; i < 3; i++) {
            long position = ring.flushNext();
            assertEquals(i, position);
            assertEquals(i, ring.cookieAt(position));
            ring.release(position);
        }
        assertEquals(-1, ring.flushNext());
        assertEquals(0, ring.allocated());
        assertFalse(ring.holdsCompletions());
        assertTrue(post(ring, 5));
        assertEquals(5, deliverAndReap(ring));
    }

    @Test
    void moveKeepsPostedReceivesInOrder() {
        RecvRing ring = new RecvRing(4, 2);
        for (int i = 0; i < 4; i++) {
            assertTrue(post(ring, i));
        }
        assertEquals(0, deliverAndReap(ring));
        ring.slots[2].count = 2;
        assertSame(ring.slots[2], ring.firstWiderThan(1));
        assertNull(ring.firstWiderThan(2));
        RecvRing bigger = new RecvRing(8, 2);
        ring.moveTo(bigger);
        assertEquals(3, bigger.allocated());
        for (int i = 1; i < 4; i++) {
            assertEquals(i, deliverAndReap(bigger));
        }
        assertNull(bigger.claim());
    }

    /**
     * One poster, one deliverer, a ring much smaller than the run: every receive is delivered once, in order,
     * with the fields the poster wrote before publishing; the poster never gets a slot still being read.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void onePosterAndOneDelivererOverManyLaps() throws Exception {
        int total = 300_000;
        RecvRing ring = new RecvRing(5, 1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread deliverer = Thread.ofPlatform().start(() -> {
            try {
                Waits.Deadline run = Waits.deadline(Waits.BOUND, () -> "the poster's " + total + " receives");
                for (long expected = 0; expected < total && failure.get() == null; ) {
                    Dto d = ring.claim();
                    if (d == null) {
                        run.check();
                        Thread.yield();
                        continue;
                    }
                    long position = ring.finish();
                    long cookie = ring.cookieAt(position);
                    if (position != expected || cookie != expected || d.total != ~expected || d.flags != 1) {
                        throw new AssertionError("position " + position + " (expected " + expected + "): cookie "
                                + cookie + " total " + d.total + " flags " + d.flags);
                    }
                    // Marks the slot as read; a poster refilling it before release() would be caught below.
                    d.flags = 2;
                    ring.release(position);
                    expected++;
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        Waits.Deadline run = Waits.deadline(Waits.BOUND, () -> "the deliverer to free a slot of the full ring");
        for (long c = 0; c < total && failure.get() == null; ) {
            Dto d = ring.postSlot();
            if (ring.full()) {
                run.check();
                Thread.yield();
                continue;
            }
            // Position c refills the slot of c - slots.length, which the deliverer must have marked read.
            if (c >= ring.slots.length && d.flags != 2) {
                failure.compareAndSet(null, new AssertionError("slot of " + c + " handed out before it was read"));
                break;
            }
            ring.setCookie(c);
            d.total = ~c;
            d.flags = 1;
            ring.publish();
            c++;
        }
        Waits.join(deliverer, "the deliverer");
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(0, ring.allocated());
    }
}
