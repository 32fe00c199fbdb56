// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.Dat;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatReturn;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** dat_cno_wait and the agent, independent of any provider. */
class CnoCoreTest {

    /** The bound of every wait here, for what takes microseconds: generous for a loaded 2-core machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    /** Joins {@code t} within {@link #BOUND}, or interrupts it and fails naming {@code what}. */
    private static void join(Thread t, String what) throws InterruptedException {
        if (!t.join(BOUND)) {
            t.interrupt();
            fail("timed out after " + BOUND.toSeconds() + " s waiting for " + what + " to return");
        }
    }

    private static DatEvd evd() {
        return (DatEvd) Proxy.newProxyInstance(DatEvd.class.getClassLoader(), new Class<?>[] {DatEvd.class},
                (proxy, method, args) -> method.getName().equals("hashCode") ? 1 : null);
    }

    @Test
    void aWaiterGetsTheFirstEvdThatTriggered() throws InterruptedException {
        CnoCore core = new CnoCore(null);
        DatEvd first = evd();
        DatEvd second = evd();
        AtomicReference<DatEvd> woke = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> woke.set(core.await(10_000_000)));
        core.trigger(first);
        core.trigger(second);
        join(waiter, "the waiter of a triggered CNO");
        assertSame(first, woke.get());
    }

    @Test
    void anAgentIsCalledInsteadOfWaking() {
        AtomicReference<DatEvd> called = new AtomicReference<>();
        CnoCore core = new CnoCore(called::set);
        DatEvd e = evd();
        core.trigger(e);
        assertSame(e, called.get());
        DatException timeout = assertThrows(DatException.class, () -> core.await(1000));
        assertSame(DatReturn.QUEUE_EMPTY, timeout.type(), "a trigger handed to the agent wakes no waiter");
        core.modifyAgent(null);
        core.trigger(e);
        assertSame(e, core.await(0));
    }

    /** Starts a thread in {@code core.await(DAT_TIMEOUT_INFINITE)} and returns once it blocks there. */
    private static Thread blockedWaiter(CnoCore core, AtomicReference<Object> outcome) {
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                DatEvd e = core.await(Dat.DAT_TIMEOUT_INFINITE);
                outcome.set(e == null ? "null" : e);
            } catch (DatException e) {
                outcome.set(e);
            }
        });
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (waiter.getState() != Thread.State.WAITING) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + BOUND.toSeconds() + " s waiting for the waiter to block in dat_cno_wait;"
                        + " it is " + waiter.getState());
            }
            Thread.onSpinWait();
        }
        return waiter;
    }

    @Test
    void closeUnblocksWithNoEvdAndBadTimeoutsAreReported() throws InterruptedException {
        CnoCore core = new CnoCore(null);
        assertSame(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> core.await(-1)).type());
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = blockedWaiter(core, outcome);
        core.close();
        join(waiter, "the waiter, unblocked by dat_ia_close");
        assertEquals("null", outcome.get(), "the CNO's end unblocks its waiter with a null EVD");
        Thread.currentThread().interrupt();
        assertSame(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, () -> core.await(1)).type());
        Thread.interrupted();
    }

    @Test
    void releaseUnblocksEveryWaiterAndCallsTheAgentWithNoEvd() throws InterruptedException {
        CnoCore core = new CnoCore(null);
        AtomicReference<Object> one = new AtomicReference<>();
        AtomicReference<Object> two = new AtomicReference<>();
        Thread first = blockedWaiter(core, one);
        Thread second = blockedWaiter(core, two);
        core.release();
        join(first, "the first waiter, unblocked by the free of the last EVD");
        join(second, "the second waiter, unblocked by the free of the last EVD");
        assertEquals("null", one.get());
        assertEquals("null", two.get());
        // A release is not remembered: a later wait times out as usual.
        assertSame(DatReturn.QUEUE_EMPTY, assertThrows(DatException.class, () -> core.await(1000)).type());
        AtomicReference<Object> called = new AtomicReference<>("not called");
        core.modifyAgent(called::set);
        core.release();
        assertNull(called.get(), "the agent is called with a null EVD");
    }
}
