// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Rules of the consumer notification object: {@code dat_cno_create}, {@code _wait}, {@code _modify_agent},
 * {@code _query}, {@code _free}, and the EVD calls that bind an EVD to a CNO or stop it triggering
 * ({@code dat_evd_create} with a CNO, {@code dat_evd_modify_cno}, {@code dat_evd_disable}/{@code _enable}).
 *
 * <p>DAT 1.2 has no attribute that denies CNOs: these are core calls of uDAPL, so every rule here is required, and
 * a provider whose {@code dat_cno_create} answers {@code DAT_MODEL_NOT_SUPPORTED} fails them. A provider may trigger
 * its CNOs from another thread a little after the event (ofi's progress thread does), so every wait for a trigger
 * is bounded by the kit's event timeout, and the waits that must time out are short: a late trigger can only make
 * them pass, never fail.
 */
public abstract class CnoRules extends RuleSupport {

    /** A wait that must end without a trigger. */
    private static final long SHORT_WAIT_MICROS = 100_000;
    /** How long a waiter that shows no blocked state (it waits in native code) is given to get into its wait. */
    private static final long NATIVE_HEAD_START_MILLIS = 5_000;

    /**
     * @param env the provider under test
     */
    protected CnoRules(TckEnvironment env) {
        super(env);
    }

    /** {@return an EVD for software events that triggers {@code cno}, or none when it is {@code null}} */
    private DatEvd softwareEvd(DatCno cno) {
        needs("max_evds", f.limits.maxEvds(), 1);
        return f.ia.createEvd(Math.min(8, f.limits.maxEvdQlen()), cno, DatEvdFlags.SOFTWARE);
    }

    /** {@return the EVD that triggered {@code cno} within the kit's event timeout} */
    private DatEvd triggered(DatCno cno, String what) {
        try {
            return cno.await(f.eventTimeoutMicros());
        } catch (DatException e) {
            return fail(what + ": dat_cno_wait: " + e.getMessage(), e);
        }
    }

    /** {@return the EVD the agent was next called with, failing after the kit's event timeout} */
    private DatEvd nextCall(BlockingQueue<DatEvd> calls, String what) throws InterruptedException {
        DatEvd evd = calls.poll(f.eventTimeoutMillis(), TimeUnit.MILLISECONDS);
        if (evd == null) {
            fail(what + ": the agent was not called within " + f.eventTimeoutMillis() + " ms");
        }
        return evd;
    }

    /** What a waiter's outcome holds when its call returned {@code null}. */
    private static final Object NONE = new Object();

    /** {@return a started daemon thread that puts what {@code call} returns or throws into {@code outcome}} */
    private static Thread waiter(String name, Supplier<Object> call, AtomicReference<Object> outcome) {
        Thread t = new Thread(() -> {
            try {
                Object r = call.get();
                outcome.set(r == null ? NONE : r);
            } catch (RuntimeException e) {
                outcome.set(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Waits until {@code thread} is seen blocked a few times in a row, so that it is inside the wait it was started
     * for. A provider that waits in native code (a bridge to C uDAPL, in C's {@code dat_cno_wait}) never shows a
     * blocked state: after {@link #NATIVE_HEAD_START_MILLIS} the thread is taken to be inside the wait.
     */
    private void blocked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                Math.min(f.eventTimeoutMillis(), NATIVE_HEAD_START_MILLIS));
        int seen = 0;
        while (seen < 3 && thread.isAlive() && System.nanoTime() < deadline) {
            Thread.State st = thread.getState();
            seen = st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING ? seen + 1 : 0;
            Thread.sleep(5);
        }
    }

    /** Takes the one queued software event off {@code evd}, checking its value. */
    private static void takeSoftwareEvent(DatEvd evd, long value) {
        DatEvent event = new DatEvent();
        assertStatus(DatReturn.DAT_SUCCESS, evd.dequeue(event), "dat_evd_dequeue after the trigger");
        assertEquals(value, event.softwareEventValue(), "the event that triggered stays on its EVD");
    }

    /**
     * dat_cno_query: "cno_param" holds the IA the CNO was created on and its wait proxy agent; a CNO created with
     * "DAT_OS_WAIT_PROXY_AGENT_NULL" has none.
     * If this fails, check that dat_cno_query reports the IA and the agent dat_cno_create was given.
     */
    @Test
    @DatRule(call = "dat_cno_query", section = "DESCRIPTION", rule = "reports the IA and the agent, or none")
    void required_cno_query_reportsIaAndAgent() {
        DatCno.Agent agent = evd -> { };
        DatCnoParam withAgent = f.ia.createCno(agent).query();
        assertSame(f.ia, withAgent.ia(), "ia_handle of a CNO with an agent");
        assertSame(agent, withAgent.agent(), "agent of a CNO created with one");
        DatCnoParam without = f.ia.createCno(null).query();
        assertSame(f.ia, without.ia(), "ia_handle of a CNO without an agent");
        assertNull(without.agent(), "agent of a CNO created without one");
    }

    /**
     * dat_cno_wait: "The Consumer blocks until notified"; the EVD handle returned is the EVD that triggered: here
     * a software event (dat_evd_post_se) on an enabled EVD created with the CNO. The event stays on the EVD.
     * If this fails, check that an EVD created with a CNO triggers it when an event is queued, and that
     * dat_cno_wait returns that EVD without dequeuing its event.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "DESCRIPTION", rule = "returns the EVD a software event triggered",
            returns = DatReturn.SUCCESS)
    void required_cno_wait_returnsTheEvdOfASoftwareEvent() {
        DatCno cno = f.ia.createCno(null);
        DatEvd evd = softwareEvd(cno);
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(7), "dat_evd_post_se");
        assertSame(evd, triggered(cno, "a software event"), "the EVD dat_cno_wait returns");
        takeSoftwareEvent(evd, 7);
    }

    /**
     * dat_cno_wait: a DTO completion triggers the CNO of its EVD too: a receive completing on a connected EP
     * whose receive EVD was created with the CNO.
     * If this fails, check that the data path, not only dat_evd_post_se, triggers the CNO of the EVD it completes
     * into.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "DESCRIPTION", rule = "a receive completion triggers too",
            returns = DatReturn.SUCCESS)
    void required_cno_wait_returnsTheEvdOfARecvCompletion() {
        needs("max_eps", f.limits.maxEps(), 2);
        needs("max_evds", f.limits.maxEvds(), 8);
        DatCno cno = f.ia.createCno(null);
        int qlen = Math.min(64, f.limits.maxEvdQlen());
        DatEvd recv = f.ia.createEvd(qlen, cno, DatEvdFlags.DTO);
        DatEvd request = f.ia.createEvd(qlen, null, DatEvdFlags.DTO | DatEvdFlags.RMR_BIND);
        DatEvd connect = f.ia.createEvd(qlen, null, DatEvdFlags.CONNECTION);
        TckFixture.Side passive = new TckFixture.Side(f.ia.createEp(f.pz, recv, request, connect, f.epAttr()),
                request, recv, connect);
        TckFixture.Connection c = f.connect(f.side(f.epAttr(), null), passive);
        TckFixture.Region dst = f.region(64, DatMemPriv.LOCAL_WRITE);
        TckFixture.Region src = f.region();
        assertStatus(DatReturn.DAT_SUCCESS, passive.ep().postRecv(1, f.iov(1).set(0, dst.lmr(), 0, 64), 1, 0),
                "dat_ep_post_recv");
        assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), 2, 0),
                "dat_ep_post_send");
        assertSame(recv, triggered(cno, "a receive completion"), "the EVD dat_cno_wait returns");
        assertEquals(1, f.completion(recv, DatDtoStatus.SUCCESS).userCookie(), "the receive's completion");
    }

    /**
     * dat_cno_wait: "DAT_QUEUE_EMPTY The operation timed out without a notification", after about the timeout; not
     * DAT_TIMEOUT_EXPIRED, which is dat_evd_wait's answer.
     * If this fails, check the timeout path of dat_cno_wait and the return code it gives.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "RETURN VALUES", rule = "DAT_QUEUE_EMPTY when nothing triggers",
            returns = DatReturn.QUEUE_EMPTY)
    void required_cno_wait_queueEmptyWhenNothingTriggers() {
        DatCno cno = f.ia.createCno(null);
        softwareEvd(cno);
        long start = System.nanoTime();
        assertThrowsDat(DatReturn.QUEUE_EMPTY, () -> cno.await(SHORT_WAIT_MICROS),
                "dat_cno_wait with nothing queued");
        assertTrue(System.nanoTime() - start >= TimeUnit.MICROSECONDS.toNanos(SHORT_WAIT_MICROS * 9 / 10),
                "waited about the timeout");
    }

    /**
     * dat_cno_wait: "All the waiters on the CNO, including the OS Wait Proxy Agent if it is associated with the CNO,
     * are unblocked with the NULL handle returns for an unblocking EVD evd_handle ... when all EVDs the CNO is
     * associated with are freed": a waiter stays blocked while one of two EVDs is freed, and returns DAT_SUCCESS
     * with no EVD when the other is; a CNO with an agent has it called with no EVD.
     * If this fails, check that dat_evd_free of the last EVD bound to a CNO unblocks its waiters and its agent.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "DESCRIPTION", rule = "freeing its last EVD unblocks it with null",
            returns = DatReturn.SUCCESS)
    void required_cno_wait_unblockedWithNullWhenItsLastEvdIsFreed() throws InterruptedException {
        needs("max_evds", f.limits.maxEvds(), 2);
        DatCno cno = f.ia.createCno(null);
        DatEvd first = softwareEvd(cno);
        DatEvd last = softwareEvd(cno);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = waiter("tck-cno-waiter", () -> cno.await(f.eventTimeoutMicros() * 4), outcome);
        blocked(waiter);
        first.close();
        Thread.sleep(TimeUnit.MICROSECONDS.toMillis(SHORT_WAIT_MICROS));
        assertTrue(waiter.isAlive(), "dat_cno_wait ended while an EVD was still bound: " + outcome.get());
        last.close();
        f.join(waiter, "dat_cno_wait after dat_evd_free of the last EVD bound to its CNO");
        if (outcome.get() != NONE) {
            fail("dat_cno_wait after the last EVD was freed: expected DAT_SUCCESS with a null evd_handle but got "
                    + outcome.get());
        }
        BlockingQueue<Optional<DatEvd>> calls = new LinkedBlockingQueue<>();
        DatCno withAgent = f.ia.createCno(evd -> calls.add(Optional.ofNullable(evd)));
        softwareEvd(withAgent).close();
        Optional<DatEvd> call = calls.poll(f.eventTimeoutMillis(), TimeUnit.MILLISECONDS);
        if (call == null || call.isPresent()) {
            fail("the agent after the last EVD was freed: expected a call with a null EVD but got "
                    + (call == null ? "no call" : call.get()));
        }
    }

    /**
     * dat_cno_wait: "An Event Dispatcher that is disabled or in the "Waited" state does not deliver notifications.
     * A uDAPL Consumer waiting directly upon an Event Dispatcher preempts the CNO": dat_evd_wait on an EVD bound to a
     * CNO is allowed and returns the event that arrives while it waits, and that event notifies no one else, so a
     * dat_cno_wait afterwards answers DAT_QUEUE_EMPTY.
     * If this fails, check that dat_evd_wait accepts an EVD with a CNO, and that an event queued while a thread
     * waits on its EVD does not trigger the EVD's CNO.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "DESCRIPTION", rule = "a waiter on the EVD preempts the CNO",
            returns = {DatReturn.SUCCESS, DatReturn.QUEUE_EMPTY})
    void required_cno_wait_evdWaiterPreemptsTheCno() throws InterruptedException {
        DatCno cno = f.ia.createCno(null);
        DatEvd evd = softwareEvd(cno);
        DatEvent event = new DatEvent();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = waiter("tck-evd-waiter", () -> evd.await(f.eventTimeoutMicros(), 1, event), outcome);
        blocked(waiter);
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(5), "dat_evd_post_se while a thread waits");
        f.join(waiter, "dat_evd_wait on an EVD bound to a CNO");
        if (!(outcome.get() instanceof Integer rc) || rc != DatReturn.DAT_SUCCESS) {
            fail("dat_evd_wait on an EVD bound to a CNO: expected DAT_SUCCESS but got " + outcome.get());
        }
        assertEquals(5, event.softwareEventValue(), "the event dat_evd_wait returns");
        assertThrowsDat(DatReturn.QUEUE_EMPTY, () -> cno.await(SHORT_WAIT_MICROS),
                "dat_cno_wait after the event went to the EVD's waiter");
    }

    /**
     * dat_cno_free: "A CNO cannot be deleted ... while a thread is blocked on it": "DAT_INVALID_STATE ... there is
     * a thread blocked on it", the CNO left as it was; once the wait has ended, the free succeeds.
     * If this fails, check that dat_cno_free counts the threads in dat_cno_wait.
     */
    @Test
    @DatRule(call = "dat_cno_free", section = "RETURN VALUES", rule = "refused while a thread waits on the CNO",
            returns = {DatReturn.INVALID_STATE, DatReturn.SUCCESS})
    void required_cno_free_invalidStateWhileAThreadWaits() throws InterruptedException {
        DatCno cno = f.ia.createCno(null);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = waiter("tck-cno-waiter", () -> cno.await(f.eventTimeoutMicros() * 4), outcome);
        blocked(waiter);
        assertThrowsDat(DatReturn.INVALID_STATE, cno::close, "dat_cno_free while a thread is in dat_cno_wait");
        assertFalse(cno.isClosed(), "the refused CNO stays open");
        DatEvd evd = softwareEvd(cno);
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(3), "dat_evd_post_se to end the wait");
        f.join(waiter, "dat_cno_wait, triggered after the refused free");
        assertSame(evd, outcome.get(), "the EVD the waiter got after the refused free");
        evd.close();
        cno.close();
        assertTrue(cno.isClosed(), "dat_cno_free once no thread waits and no EVD is bound");
    }

    /**
     * dat_cno_wait: "DAT_INVALID_PARAMETER ... the timeout parameter is invalid": a negative timeout, or one
     * beyond DAT_TIMEOUT_INFINITE.
     * If this fails, check the timeout validation of dat_cno_wait.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "RETURN VALUES", rule = "a bad timeout is invalid",
            returns = DatReturn.INVALID_PARAMETER)
    void required_cno_wait_invalidParameterForBadTimeout() {
        DatCno cno = f.ia.createCno(null);
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> cno.await(-1), "dat_cno_wait with timeout -1");
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> cno.await(Dat.DAT_TIMEOUT_INFINITE + 1),
                "dat_cno_wait with timeout DAT_TIMEOUT_INFINITE + 1");
    }

    /**
     * dat_cno_wait: a waiter blocked for ever ends with "DAT_INTERRUPTED_CALL The operation was interrupted by a
     * signal", which in Java is {@link Thread#interrupt}.
     * If this fails, check that dat_cno_wait's blocking wait answers an interrupt rather than swallowing it.
     */
    @Test
    @DatRule(call = "dat_cno_wait", section = "RETURN VALUES", rule = "an interrupt ends an infinite wait",
            returns = DatReturn.INTERRUPTED_CALL)
    void required_cno_wait_interruptEndsAnInfiniteWait() throws InterruptedException {
        DatCno cno = f.ia.createCno(null);
        softwareEvd(cno);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.set(cno.await(Dat.DAT_TIMEOUT_INFINITE));
            } catch (RuntimeException e) {
                outcome.set(e);
            }
        }, "tck-cno-waiter");
        waiter.setDaemon(true);
        waiter.start();
        // Interrupted before it blocks, the wait must end the same way; waiting until it blocks proves more.
        blocked(waiter);
        waiter.interrupt();
        f.join(waiter, "dat_cno_wait(DAT_TIMEOUT_INFINITE) after Thread.interrupt");
        if (!(outcome.get() instanceof DatException e) || e.type() != DatReturn.INTERRUPTED_CALL) {
            fail("the interrupted dat_cno_wait: expected DAT_INTERRUPTED_CALL but got " + outcome.get());
        }
    }

    /**
     * dat_cno_create: the wait proxy agent "is called instead of waking a waiter" on each trigger, with the EVD
     * that triggered: two events, one after the other, make two calls.
     * If this fails, check that every trigger of a CNO with an agent calls it with the EVD.
     */
    @Test
    @DatRule(call = "dat_cno_create", section = "DESCRIPTION", rule = "the agent is called on every trigger")
    void required_cno_create_agentCalledOnEveryTrigger() throws InterruptedException {
        BlockingQueue<DatEvd> calls = new LinkedBlockingQueue<>();
        DatCno cno = f.ia.createCno(calls::add);
        DatEvd evd = softwareEvd(cno);
        for (long v = 1; v <= 2; v++) {
            assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(v), "dat_evd_post_se " + v);
            assertSame(evd, nextCall(calls, "event " + v), "the EVD the agent is called with, event " + v);
        }
    }

    /**
     * dat_cno_modify_agent: the new agent is called from then on, not the old one; dat_cno_query reports it; with
     * no agent, triggers wake dat_cno_wait again.
     * If this fails, check that dat_cno_modify_agent replaces the agent the triggers call.
     */
    @Test
    @DatRule(call = "dat_cno_modify_agent", section = "DESCRIPTION", rule = "replaces the agent the triggers call")
    void required_cno_modify_agent_replacesTheAgent() throws InterruptedException {
        BlockingQueue<DatEvd> oldCalls = new LinkedBlockingQueue<>();
        BlockingQueue<DatEvd> newCalls = new LinkedBlockingQueue<>();
        DatCno cno = f.ia.createCno(oldCalls::add);
        DatEvd evd = softwareEvd(cno);
        DatCno.Agent replacement = newCalls::add;
        cno.modifyAgent(replacement);
        assertSame(replacement, cno.query().agent(), "dat_cno_query after dat_cno_modify_agent");
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(1), "dat_evd_post_se");
        assertSame(evd, nextCall(newCalls, "the new agent"), "the EVD the new agent is called with");
        assertTrue(oldCalls.isEmpty(), "the old agent was called after dat_cno_modify_agent: " + oldCalls);
        takeSoftwareEvent(evd, 1);
        cno.modifyAgent(null);
        assertNull(cno.query().agent(), "dat_cno_query after dat_cno_modify_agent(null)");
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(2), "dat_evd_post_se");
        assertSame(evd, triggered(cno, "no agent any more"), "the EVD dat_cno_wait returns");
        assertTrue(oldCalls.isEmpty() && newCalls.isEmpty(), "an agent was called after it was removed");
    }

    /**
     * dat_evd_disable: "An Event Dispatcher that is disabled ... does not deliver notifications" (dat_cno_wait);
     * dat_evd_enable lets the next event trigger the CNO again.
     * If this fails, check that a disabled EVD skips its CNO and an enabled one triggers it.
     */
    @Test
    @DatRule(call = "dat_evd_disable", section = "DESCRIPTION", rule = "a disabled EVD does not trigger its CNO",
            returns = DatReturn.QUEUE_EMPTY)
    void required_evd_disable_disabledEvdDoesNotTriggerItsCno() {
        DatCno cno = f.ia.createCno(null);
        DatEvd evd = softwareEvd(cno);
        evd.disable();
        assertTrue((evd.query().evdState() & DatEvdParam.STATE_DISABLED) != 0, "dat_evd_query after dat_evd_disable");
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(1), "dat_evd_post_se on a disabled EVD");
        assertThrowsDat(DatReturn.QUEUE_EMPTY, () -> cno.await(SHORT_WAIT_MICROS),
                "dat_cno_wait while its only EVD is disabled");
        // A disabled EVD still queues: the event is there. Taken, so that only the next one can trigger.
        takeSoftwareEvent(evd, 1);
        evd.enable();
        assertTrue((evd.query().evdState() & DatEvdParam.STATE_ENABLED) != 0, "dat_evd_query after dat_evd_enable");
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(2), "dat_evd_post_se once enabled");
        assertSame(evd, triggered(cno, "enabled again"), "the EVD dat_cno_wait returns");
    }

    /**
     * dat_evd_modify_cno: "the passed IN new CNO is used for notification": an EVD created without a CNO triggers
     * the one it is given, and none after DAT_HANDLE_NULL; dat_evd_query's "cno_handle" names the CNO.
     * If this fails, check that dat_evd_modify_cno changes the CNO the EVD triggers and reports.
     */
    @Test
    @DatRule(call = "dat_evd_modify_cno", section = "DESCRIPTION", rule = "binds and unbinds the CNO",
            returns = {DatReturn.SUCCESS, DatReturn.QUEUE_EMPTY})
    void required_evd_modify_cno_bindsAndUnbinds() {
        DatCno cno = f.ia.createCno(null);
        DatEvd evd = softwareEvd(null);
        assertNull(evd.query().cno(), "cno_handle of an EVD created without one");
        evd.modifyCno(cno);
        assertSame(cno, evd.query().cno(), "cno_handle after dat_evd_modify_cno");
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(1), "dat_evd_post_se");
        assertSame(evd, triggered(cno, "bound by dat_evd_modify_cno"), "the EVD dat_cno_wait returns");
        takeSoftwareEvent(evd, 1);
        evd.modifyCno(null);
        assertNull(evd.query().cno(), "cno_handle after dat_evd_modify_cno(DAT_HANDLE_NULL)");
        assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(2), "dat_evd_post_se");
        assertThrowsDat(DatReturn.QUEUE_EMPTY, () -> cno.await(SHORT_WAIT_MICROS),
                "dat_cno_wait after its EVD was unbound");
    }

    /**
     * dat_evd_modify_cno: "DAT_INVALID_HANDLE" for a CNO of another IA or one already freed; the EVD keeps its CNO.
     * If this fails, check that dat_evd_modify_cno resolves the CNO to an open CNO of the EVD's IA.
     */
    @Test
    @DatRule(call = "dat_evd_modify_cno", section = "RETURN VALUES", rule = "a foreign or freed CNO is refused",
            returns = DatReturn.INVALID_HANDLE)
    void required_evd_modify_cno_invalidHandleForForeignOrFreedCno() {
        DatCno mine = f.ia.createCno(null);
        DatEvd evd = softwareEvd(mine);
        DatCno freed = f.ia.createCno(null);
        freed.close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, () -> evd.modifyCno(freed), "dat_evd_modify_cno to a freed CNO");
        DatIa other = openIa();
        try {
            DatCno foreign = other.createCno(null);
            assertThrowsDat(DatReturn.INVALID_HANDLE, () -> evd.modifyCno(foreign),
                    "dat_evd_modify_cno to another IA's CNO");
        } finally {
            other.close(DatCloseFlags.ABRUPT);
        }
        assertSame(mine, evd.query().cno(), "the EVD keeps its CNO");
    }

    /**
     * dat_evd_create: "DAT_INVALID_HANDLE" for a cno_handle that is not an open CNO of the IA: one of another IA,
     * or one already freed.
     * If this fails, check that dat_evd_create resolves its CNO to an open CNO of the same IA.
     */
    @Test
    @DatRule(call = "dat_evd_create", section = "RETURN VALUES", rule = "a foreign or freed CNO is refused",
            returns = DatReturn.INVALID_HANDLE)
    void required_evd_create_invalidHandleForForeignOrFreedCno() {
        needs("max_evds", f.limits.maxEvds(), 1);
        DatCno freed = f.ia.createCno(null);
        freed.close();
        assertThrowsDat(DatReturn.INVALID_HANDLE, () -> f.ia.createEvd(4, freed, DatEvdFlags.SOFTWARE),
                "dat_evd_create with a freed CNO");
        DatIa other = openIa();
        try {
            DatCno foreign = other.createCno(null);
            assertThrowsDat(DatReturn.INVALID_HANDLE, () -> f.ia.createEvd(4, foreign, DatEvdFlags.SOFTWARE),
                    "dat_evd_create with another IA's CNO");
        } finally {
            other.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * dat_cno_free: "DAT_INVALID_STATE ... CNO is in use by an EVD"; once no EVD uses it (the EVD freed, or bound
     * elsewhere by dat_evd_modify_cno), the free succeeds.
     * If this fails, check that dat_cno_free counts the EVDs bound to the CNO, and forgets those freed or unbound.
     */
    @Test
    @DatRule(call = "dat_cno_free", section = "RETURN VALUES", rule = "refused while an EVD uses the CNO",
            returns = {DatReturn.INVALID_STATE, DatReturn.SUCCESS})
    void required_cno_free_invalidStateWhileAnEvdIsBound() {
        DatCno unbound = f.ia.createCno(null);
        DatEvd evd = softwareEvd(unbound);
        assertThrowsDat(DatReturn.INVALID_STATE, unbound::close, "dat_cno_free of a CNO an EVD triggers");
        assertFalse(unbound.isClosed(), "the refused CNO stays open");
        assertSame(f.ia, unbound.query().ia(), "dat_cno_query after the refused free");
        evd.modifyCno(null);
        unbound.close();
        assertTrue(unbound.isClosed(), "dat_cno_free once the EVD was unbound");
        DatCno orphaned = f.ia.createCno(null);
        DatEvd freedEvd = softwareEvd(orphaned);
        assertThrowsDat(DatReturn.INVALID_STATE, orphaned::close, "dat_cno_free of a CNO an EVD triggers");
        freedEvd.close();
        orphaned.close();
        assertTrue(orphaned.isClosed(), "dat_cno_free once the EVD was freed");
    }

    /**
     * dat_cno_free: the handle is gone: dat_cno_wait, dat_cno_query and dat_cno_modify_agent on it answer
     * "DAT_INVALID_HANDLE The cno_handle parameter is invalid"; freeing it again does nothing (jDAT's close is
     * idempotent, {@link dat.api.DatHandle}).
     * If this fails, a freed CNO still answers calls as if it were alive.
     */
    @Test
    @DatRule(call = "dat_cno_free", section = "DESCRIPTION", rule = "a freed CNO is an invalid handle",
            returns = DatReturn.INVALID_HANDLE)
    void required_cno_free_freedCnoIsInvalidHandle() {
        DatCno cno = f.ia.createCno(evd -> { });
        cno.close();
        assertTrue(cno.isClosed(), "isClosed after dat_cno_free");
        assertThrowsDat(DatReturn.INVALID_HANDLE, () -> cno.await(0), "dat_cno_wait on a freed CNO");
        assertThrowsDat(DatReturn.INVALID_HANDLE, cno::query, "dat_cno_query on a freed CNO");
        assertThrowsDat(DatReturn.INVALID_HANDLE, () -> cno.modifyAgent(null), "dat_cno_modify_agent on a freed CNO");
        cno.close();
    }
}
