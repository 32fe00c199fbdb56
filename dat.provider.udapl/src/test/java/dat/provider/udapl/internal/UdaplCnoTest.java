// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatReturn;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What of the bridge's CNOs runs without a C provider: the sliced {@code dat_cno_wait} and C's call of an agent. The
 * CNO against OFA's C CNO is judged by the kit's CNO rules in the {@code --dapl} guest.
 */
@Timeout(30)
class UdaplCnoTest {

    private static final int SLICE = 1_000;

    /**
     * OFA answers a {@code dat_cno_wait} slice that ran out with {@code DAT_QUEUE_EMPTY}: the wait must go on to the
     * consumer's deadline (ending at the first slice would answer a 2 s wait after one millisecond).
     */
    @Test
    void aSliceCAnswersWithQueueEmptyDoesNotEndTheWait() {
        AtomicInteger slices = new AtomicInteger();
        int rc = UdaplCno.sliced(t -> slices.incrementAndGet() < 4 ? UdaplCno.C_QUEUE_EMPTY : 0, 2_000_000, SLICE);
        assertEquals(0, rc, "the trigger in the fourth slice");
        assertEquals(4, slices.get(), "slices");
    }

    /** At the deadline the answer is what C gave the last slice: OFA's {@code DAT_QUEUE_EMPTY} stays visible. */
    @Test
    void theDeadlineAnswersWithWhatCSaidOfTheLastSlice() {
        long start = System.nanoTime();
        int rc = UdaplCno.sliced(t -> sleepThen(t, UdaplCno.C_QUEUE_EMPTY), 20_000, SLICE);
        assertEquals(UdaplCno.C_QUEUE_EMPTY, rc, "OFA's timeout status");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20), "waited the consumer's 20 ms");
        assertEquals(UdaplCno.C_TIMEOUT, UdaplCno.sliced(t -> sleepThen(t, UdaplCno.C_TIMEOUT), 5_000, SLICE),
                "a C provider answering DAT_TIMEOUT_EXPIRED");
    }

    /** An infinite wait whose slices all come back empty still ends at an interrupt. */
    @Test
    void anInterruptEndsAnInfiniteWait() throws InterruptedException {
        AtomicInteger rc = new AtomicInteger(-1);
        Thread waiter = Thread.ofPlatform().start(() -> rc.set(UdaplCno.sliced(
                t -> sleepThen(t, UdaplCno.C_QUEUE_EMPTY), Dat.DAT_TIMEOUT_INFINITE, SLICE)));
        Thread.sleep(30);
        waiter.interrupt();
        waiter.join(5_000);
        assertEquals(DatReturn.DAT_INTERRUPTED_CALL, rc.get());
    }

    /** A C error passes through at once. */
    @Test
    void aCErrorEndsTheWait() {
        int invalidHandle = 0x80050000;
        assertEquals(invalidHandle, UdaplCno.sliced(t -> invalidHandle, 1_000_000, SLICE));
    }

    /**
     * C calls the one upcall with an {@code instance_data} the bridge gave it; whatever the Java side then finds
     * (an agent of no IA here, as a stale or corrupt entry would be), the upcall returns to C: an exception leaving
     * it would end the JVM, so this test's fork would die without the upcall's catch.
     */
    @Test
    @SuppressWarnings("restricted")
    void theUpcallReturnsToCWhateverItFinds() throws Throwable {
        MethodHandle call = Linker.nativeLinker().downcallHandle(UdaplCno.Upcall.STUB,
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        long id = Long.MAX_VALUE - 7;
        List<Object> seen = new ArrayList<>();
        UdaplCno.AGENTS.put(id, new UdaplCno.Binding(null, seen::add));
        try {
            call.invokeExact(MemorySegment.ofAddress(id), MemorySegment.NULL);
            call.invokeExact(MemorySegment.ofAddress(id + 1), MemorySegment.ofAddress(0x1000));
        } finally {
            UdaplCno.AGENTS.remove(id);
        }
        assertTrue(seen.isEmpty(), "no agent ran: " + seen);
    }

    /** Agents run one at a time in trigger order on the IA's thread, each failure logged and the next run. */
    @Test
    void agentsRunInOrderOnTheirThreadAndOneThrowingDoesNotStopTheNext() throws InterruptedException {
        UdaplAgents agents = new UdaplAgents("test-agents");
        List<Integer> order = new ArrayList<>();
        AtomicReference<String> thread = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        for (int i = 0; i < 5; i++) {
            int n = i;
            agents.run(() -> {
                order.add(n);
                if (n == 2) {
                    throw new IllegalStateException("agent 2 fails");
                }
            });
        }
        agents.run(() -> {
            thread.set(Thread.currentThread().getName());
            done.countDown();
        });
        assertTrue(done.await(5, TimeUnit.SECONDS), "the agent after a failing one ran");
        assertEquals(List.of(0, 1, 2, 3, 4), order);
        assertEquals("test-agents", thread.get());
        agents.end();
    }

    /** Queuing never waits for a running agent (C's thread is the caller), and after the IA's close nothing runs. */
    @Test
    void queuingDoesNotWaitForARunningAgentAndEndDropsTheRest() throws InterruptedException {
        UdaplAgents agents = new UdaplAgents("test-agents-2");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        agents.run(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(running.await(5, TimeUnit.SECONDS));
        long start = System.nanoTime();
        agents.run(ran::incrementAndGet);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "queuing returned at once");
        agents.end();
        agents.run(ran::incrementAndGet);
        release.countDown();
        Thread.sleep(100);
        assertEquals(1, ran.get(), "the call queued before the end ran, the one after it did not");
    }

    private static int sleepThen(int micros, int status) {
        try {
            TimeUnit.MICROSECONDS.sleep(micros);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return status;
    }
}
