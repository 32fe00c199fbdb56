// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.tck.DatRule;
import dat.tck.TckEnvironment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Rules of the EVD calls: {@code dat_evd_create}, {@code _dequeue}, {@code _wait}, {@code _post_se},
 * {@code _set_unwaitable}, {@code _resize}, {@code _query}, {@code _free}, and overflow.
 */
public abstract class EvdRules extends RuleSupport {

    private static final long TIMEOUT_100MS = 100_000;

    /**
     * @param env the provider under test
     */
    protected EvdRules(TckEnvironment env) {
        super(env);
    }

    private DatEvd softwareEvd(int qlen) {
        needs("max_evds", f.limits.maxEvds(), 1);
        return f.ia.createEvd(qlen, null, DatEvdFlags.SOFTWARE);
    }

    /**
     * dat_evd_create: "DAT_INVALID_PARAMETER" for a queue length below 1 or above max_evd_qlen, or flags DAT
     * does not define.
     * If this fails, check the validation of evd_min_qlen and evd_flags.
     */
    @Test
    @DatRule(call = "dat_evd_create", section = "RETURN VALUES", rule = "bad qlen or flags are refused",
            returns = DatReturn.INVALID_PARAMETER)
    void required_evd_create_invalidParameterForBadQlenOrFlags() {
        needs("max_evds", f.limits.maxEvds(), 1);
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.ia.createEvd(0, null, DatEvdFlags.DTO), "qlen 0");
        if (f.limits.maxEvdQlen() < Integer.MAX_VALUE) {
            assertThrowsDat(DatReturn.INVALID_PARAMETER,
                    () -> f.ia.createEvd(f.limits.maxEvdQlen() + 1, null, DatEvdFlags.DTO), "qlen max_evd_qlen + 1");
        }
        assertThrowsDat(DatReturn.INVALID_PARAMETER, () -> f.ia.createEvd(4, null, 0x4000), "flag 0x4000");
    }

    /**
     * dat_evd_query: "evd_qlen" is at least what was asked; the flags are those given.
     * If this fails, check dat_evd_query's queue length and flags.
     */
    @Test
    @DatRule(call = "dat_evd_query", section = "DESCRIPTION", rule = "reports at least the qlen asked and the flags")
    void required_evd_query_reportsQlenAndFlags() {
        needs("max_evds", f.limits.maxEvds(), 1);
        DatEvd evd = f.ia.createEvd(7, null, DatEvdFlags.DTO | DatEvdFlags.SOFTWARE);
        DatEvdParam p = evd.query();
        assertTrue(p.evdQlen() >= 7, "evd_qlen " + p.evdQlen());
        assertEquals(DatEvdFlags.DTO | DatEvdFlags.SOFTWARE, p.evdFlags(), "evd_flags");
        assertSame(f.ia, p.ia(), "ia_handle");
        assertTrue((p.evdState() & DatEvdParam.STATE_ENABLED) != 0, "a new EVD is enabled");
    }

    /**
     * dat_evd_dequeue: "DAT_QUEUE_EMPTY There are no entries on the Event Dispatcher queue."
     * If this fails, an empty EVD returned something other than DAT_QUEUE_EMPTY.
     */
    @Test
    @DatRule(call = "dat_evd_dequeue", section = "RETURN VALUES", rule = "an empty EVD is QUEUE_EMPTY",
            returns = DatReturn.QUEUE_EMPTY)
    void required_evd_dequeue_queueEmptyWhenNothingQueued() {
        assertStatus(DatReturn.DAT_QUEUE_EMPTY, softwareEvd(4).dequeue(new DatEvent()), "dat_evd_dequeue");
    }

    /**
     * dat_evd_post_se: the event is dequeued with its pointer, in posting order.
     * If this fails, software events are lost, reordered or carry the wrong value.
     */
    @Test
    @DatRule(call = "dat_evd_post_se", section = "DESCRIPTION", rule = "software events come back in order",
            returns = DatReturn.SUCCESS)
    void required_evd_post_se_eventsComeBackInOrder() {
        DatEvd evd = softwareEvd(8);
        for (long v = 1; v <= 3; v++) {
            assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(v * 1000), "dat_evd_post_se");
        }
        DatEvent event = new DatEvent();
        for (long v = 1; v <= 3; v++) {
            assertStatus(DatReturn.DAT_SUCCESS, evd.dequeue(event), "dat_evd_dequeue");
            assertSame(DatEventType.SOFTWARE_EVENT, event.type());
            assertEquals(v * 1000, event.softwareEventValue());
            assertSame(evd, event.evd(), "evd_handle");
        }
    }

    /**
     * dat_evd_post_se: an EVD created without DAT_EVD_SOFTWARE_FLAG does not take software events.
     * If this fails, check the flag test of post_se.
     */
    @Test
    @DatRule(call = "dat_evd_post_se", section = "RETURN VALUES", rule = "an EVD without SOFTWARE refuses them",
            returns = DatReturn.INVALID_PARAMETER)
    void required_evd_post_se_invalidParameterWithoutSoftwareFlag() {
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, f.evd(DatEvdFlags.DTO).postSoftwareEvent(1),
                "dat_evd_post_se on a DTO EVD");
    }

    /**
     * dat_evd_post_se: "DAT_QUEUE_FULL" when the EVD has no room; the events already queued are kept.
     * If this fails, a full EVD grew, blocked, or dropped an earlier event to make room.
     */
    @Test
    @DatRule(call = "dat_evd_post_se", section = "RETURN VALUES", rule = "a full EVD refuses the event, keeps the rest",
            returns = DatReturn.QUEUE_FULL)
    void required_evd_post_se_queueFullKeepsQueuedEvents() {
        DatEvd evd = softwareEvd(2);
        int capacity = evd.query().evdQlen();
        for (int i = 0; i < capacity; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(i), "dat_evd_post_se " + i);
        }
        assertStatus(DatReturn.DAT_QUEUE_FULL, evd.postSoftwareEvent(capacity), "dat_evd_post_se on a full EVD");
        DatEvent event = new DatEvent();
        for (int i = 0; i < capacity; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, evd.dequeue(event), "queued events survive");
            assertEquals(i, event.softwareEventValue());
        }
        assertStatus(DatReturn.DAT_QUEUE_EMPTY, evd.dequeue(event), "nothing else was queued");
    }

    /**
     * dat_evd_create (overflow): a completion that does not fit in its EVD is lost, and
     * DAT_ASYNC_ERROR_EVD_OVERFLOW naming that EVD goes to the IA's async EVD.
     * If this fails, an overflowing EVD grew, blocked the sender, or overflowed silently.
     */
    @Test
    @DatRule(call = "dat_evd_create", section = "DESCRIPTION", rule = "overflow raises DAT_ASYNC_ERROR_EVD_OVERFLOW")
    void required_evd_create_overflowRaisesAsyncEvent() {
        needs("max_eps", f.limits.maxEps(), 2);
        needs("max_evds", f.limits.maxEvds(), 1);
        DatEvd small = f.ia.createEvd(2, null, DatEvdFlags.DTO);
        int capacity = small.query().evdQlen();
        applicableIf(capacity < 64, "the smallest EVD holds " + capacity + " events");
        DatEvd recv = f.evd(DatEvdFlags.DTO);
        DatEvd connect = f.evd(DatEvdFlags.CONNECTION);
        TckFixture.Side active = new TckFixture.Side(f.ia.createEp(f.pz, recv, small, connect, f.epAttr()), small,
                recv, connect);
        TckFixture.Connection c = f.connect(active, f.side(f.epAttr(), null));
        TckFixture.Region dst = f.region(64L * (capacity + 1), DatMemPriv.LOCAL_WRITE);
        TckFixture.Region src = f.region();
        for (int i = 0; i <= capacity; i++) {
            assertStatus(DatReturn.DAT_SUCCESS, c.passive().ep().postRecv(1, f.iov(1).set(0, dst.lmr(), 64L * i, 64),
                    i, 0), "dat_ep_post_recv");
            assertStatus(DatReturn.DAT_SUCCESS, c.active().ep().postSend(1, f.iov(1).set(0, src.lmr(), 0, 8), i, 0),
                    "dat_ep_post_send " + i);
        }
        DatEvent async = f.next(f.ia.asyncEvd());
        assertSame(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, async.type());
        assertSame(small, async.asyncHandle(), "the overflowed EVD is named");
    }

    /**
     * dat_evd_wait: "DAT_TIMEOUT_EXPIRED The operation timed out." and nmore counts what is left.
     * If this fails, check the timeout path and nmore.
     */
    @Test
    @DatRule(call = "dat_evd_wait", section = "RETURN VALUES",
            rule = "times out when nothing comes; nmore counts the rest",
            returns = {DatReturn.TIMEOUT_EXPIRED, DatReturn.SUCCESS})
    void required_evd_wait_timesOutAndCountsRemaining() {
        DatEvd evd = softwareEvd(8);
        DatEvent event = new DatEvent();
        long start = System.nanoTime();
        assertStatus(DatReturn.DAT_TIMEOUT_EXPIRED, evd.await(TIMEOUT_100MS, 1, event), "dat_evd_wait on nothing");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(90), "waited about the timeout");
        evd.postSoftwareEvent(1);
        evd.postSoftwareEvent(2);
        assertStatus(DatReturn.DAT_SUCCESS, evd.await(TIMEOUT_100MS, 1, event), "dat_evd_wait with 2 queued");
        assertEquals(1, event.softwareEventValue());
        assertEquals(1, event.nmore(), "nmore");
    }

    /**
     * dat_evd_wait: "DAT_INVALID_PARAMETER" for a threshold below 1 or above the queue length.
     * If this fails, check the threshold validation.
     */
    @Test
    @DatRule(call = "dat_evd_wait", section = "RETURN VALUES", rule = "a bad threshold is invalid",
            returns = DatReturn.INVALID_PARAMETER)
    void required_evd_wait_invalidParameterForBadThreshold() {
        DatEvd evd = softwareEvd(4);
        DatEvent event = new DatEvent();
        assertStatus(DatReturn.DAT_INVALID_PARAMETER, evd.await(TIMEOUT_100MS, 0, event), "threshold 0");
        assertStatus(DatReturn.DAT_INVALID_PARAMETER,
                evd.await(TIMEOUT_100MS, evd.query().evdQlen() + 1, event), "threshold above evd_qlen");
    }

    /**
     * dat_evd_wait: a waiter blocked in dat_evd_wait wakes when an event arrives from another thread.
     * If this fails, posting does not wake the waiter.
     */
    @Test
    @DatRule(call = "dat_evd_wait", section = "DESCRIPTION", rule = "a blocked waiter wakes on a new event")
    void required_evd_wait_wakesOnArrival() throws Exception {
        DatEvd evd = softwareEvd(4);
        CompletableFuture<long[]> waiter = CompletableFuture.supplyAsync(() -> {
            DatEvent event = new DatEvent();
            int rc = evd.await(Dat.DAT_TIMEOUT_INFINITE, 1, event);
            return new long[] {rc, event.softwareEventValue()};
        });
        Thread.sleep(100);
        evd.postSoftwareEvent(55);
        long[] result = waiter.get(f.eventTimeoutMillis(), TimeUnit.MILLISECONDS);
        assertStatus(DatReturn.DAT_SUCCESS, (int) result[0], "dat_evd_wait");
        assertEquals(55, result[1]);
    }

    /**
     * dat_evd_set_unwaitable: "threads already blocked in dat_evd_wait() are awakened and return with a
     * DAT_INVALID_STATE error", and "calls to dat_evd_wait(3DAT) return synchronously with a DAT_INVALID_STATE error"
     * until dat_evd_clear_unwaitable.
     * If this fails, the waiter stayed blocked, got another code (DAT_ABORT is dat_evd_wait's answer to a free or an
     * IA close, not to dat_evd_set_unwaitable), or a later wait blocked.
     */
    @Test
    @DatRule(call = "dat_evd_set_unwaitable", section = "DESCRIPTION", rule = "wakes waiters with DAT_INVALID_STATE",
            returns = DatReturn.INVALID_STATE)
    void required_evd_set_unwaitable_wakesWaitersWithInvalidState() throws Exception {
        DatEvd evd = softwareEvd(4);
        // Whether the waiter blocked before dat_evd_set_unwaitable or came after it, its answer is the same; the
        // head start only makes the first case the likely one.
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(
                () -> evd.await(Dat.DAT_TIMEOUT_INFINITE, 1, new DatEvent()));
        Thread.sleep(200);
        evd.setUnwaitable();
        assertStatus(DatReturn.DAT_INVALID_STATE, waiter.get(f.eventTimeoutMillis(), TimeUnit.MILLISECONDS),
                "the blocked dat_evd_wait");
        assertStatus(DatReturn.DAT_INVALID_STATE, evd.await(TIMEOUT_100MS, 1, new DatEvent()),
                "dat_evd_wait on an unwaitable EVD");
        evd.clearUnwaitable();
        assertStatus(DatReturn.DAT_TIMEOUT_EXPIRED, evd.await(TIMEOUT_100MS, 1, new DatEvent()),
                "dat_evd_wait after dat_evd_clear_unwaitable");
    }

    /**
     * dat_evd_resize: "DAT_INVALID_STATE" when more events are queued than the new length holds; else the EVD
     * keeps its events.
     * If this fails, a resize lost queued events or shrank below them.
     */
    @Test
    @DatRule(call = "dat_evd_resize", section = "RETURN VALUES", rule = "never below the queued events",
            returns = {DatReturn.INVALID_STATE, DatReturn.SUCCESS})
    void required_evd_resize_neverBelowQueuedEvents() {
        DatEvd evd = softwareEvd(8);
        for (int i = 0; i < 4; i++) {
            evd.postSoftwareEvent(i);
        }
        assertThrowsDat(DatReturn.INVALID_STATE, () -> evd.resize(3), "dat_evd_resize(3) with 4 queued");
        evd.resize(32);
        assertTrue(evd.query().evdQlen() >= 32, "evd_qlen after growing");
        DatEvent event = new DatEvent();
        List<Long> values = new ArrayList<>();
        while (evd.dequeue(event) == DatReturn.DAT_SUCCESS) {
            values.add(event.softwareEventValue());
        }
        assertEquals(List.of(0L, 1L, 2L, 3L), values, "events kept across resizes");
    }

    /**
     * dat_evd_free: "DAT_INVALID_STATE ... EVD is in use by an EP" (or other object).
     * If this fails, an EVD an EP still reports to was freed.
     */
    @Test
    @DatRule(call = "dat_evd_free", section = "RETURN VALUES", rule = "an EVD in use cannot be freed",
            returns = DatReturn.INVALID_STATE)
    void required_evd_free_refusedWhileInUse() {
        TckFixture.Side side = f.side(f.epAttr(), null);
        assertThrowsDat(DatReturn.INVALID_STATE, side.recvEvd()::close, "dat_evd_free of an EP's recv EVD");
        side.ep().close();
        side.recvEvd().close();
        assertStatus(DatReturn.DAT_INVALID_HANDLE, side.recvEvd().dequeue(new DatEvent()), "dequeue on a freed EVD");
    }
}
