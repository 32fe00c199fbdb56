// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatReturn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The sliced C wait, against a fake C call that times out or answers: no device, no libdat2. */
class UdaplWaitTest {

    /** A C wait that sleeps its slice and times out, recording each slice. */
    private static UdaplWait.CWait timingOut(List<Integer> slices) {
        return t -> {
            slices.add(t);
            try {
                Thread.sleep(t / 1000, (t % 1000) * 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return DatReturn.DAT_TIMEOUT_EXPIRED;
        };
    }

    @Test
    void aZeroTimeoutCallsCOnceWithZero() {
        List<Integer> slices = new ArrayList<>();
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, UdaplWait.await(timingOut(slices), 0, 1000));
        assertEquals(List.of(0), slices);
    }

    @Test
    void theCallersTimeoutIsHonouredInSlicesNoneLongerThanTheSlice() {
        List<Integer> slices = new ArrayList<>();
        long start = System.nanoTime();
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, UdaplWait.await(timingOut(slices), 30_000, 5_000));
        long tookMicros = (System.nanoTime() - start) / 1000;
        assertTrue(tookMicros >= 30_000, "took " + tookMicros + " us");
        assertTrue(slices.size() >= 2, "slices " + slices); // sleeps overshoot, so not 6
        assertTrue(slices.stream().allMatch(s -> s >= 0 && s <= 5_000), "slices " + slices);
    }

    @Test
    void anAnswerEndsTheWaitWithTheCStatusUnchanged() {
        AtomicInteger calls = new AtomicInteger();
        int status = DatReturn.DAT_INVALID_STATE | 7;
        assertEquals(status, UdaplWait.await(t -> calls.incrementAndGet() < 3 ? DatReturn.DAT_TIMEOUT_EXPIRED
                : status, Dat.DAT_TIMEOUT_INFINITE, 1000));
        assertEquals(3, calls.get());
    }

    @Test
    void infiniteNeverReachesC() {
        List<Integer> slices = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        UdaplWait.await(t -> {
            slices.add(t);
            return calls.incrementAndGet() < 4 ? DatReturn.DAT_TIMEOUT_EXPIRED : DatReturn.DAT_SUCCESS;
        }, Dat.DAT_TIMEOUT_INFINITE, UdaplWait.SLICE_MICROS);
        assertEquals(List.of(UdaplWait.SLICE_MICROS, UdaplWait.SLICE_MICROS, UdaplWait.SLICE_MICROS,
                UdaplWait.SLICE_MICROS), slices);
    }

    @Test
    @Timeout(10)
    void anInterruptEndsAnInfiniteWaitWithinASlice() throws Exception {
        CountDownLatch inC = new CountDownLatch(1);
        AtomicInteger result = new AtomicInteger();
        Thread waiter = new Thread(() -> result.set(UdaplWait.await(t -> {
            inC.countDown();
            try {
                Thread.sleep(TimeUnit.MICROSECONDS.toMillis(t));
            } catch (InterruptedException e) {
                // C does not see Java interrupts: the slice runs out, the wrapper must notice.
                Thread.currentThread().interrupt();
            }
            return DatReturn.DAT_TIMEOUT_EXPIRED;
        }, Dat.DAT_TIMEOUT_INFINITE, 20_000)));
        waiter.start();
        assertTrue(inC.await(5, TimeUnit.SECONDS));
        waiter.interrupt();
        waiter.join(5000);
        assertFalse(waiter.isAlive());
        assertEquals(DatReturn.DAT_INTERRUPTED_CALL, result.get());
    }
}
