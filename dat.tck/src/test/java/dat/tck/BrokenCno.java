// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static dat.tck.Faults.answer;
import static dat.tck.Faults.rewriteArgs;
import static dat.tck.Faults.rewriteResult;
import static dat.tck.Faults.swallow;
import static dat.tck.Faults.thrownSwap;

import dat.api.Dat;
import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.BrokenProviders.Broken;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Broken providers of the consumer notification object ({@code CnoRules}): CNOs that are not triggered, waits that
 * end too early, wrongly or never, agents called too rarely, frees and bindings that are not refused.
 */
final class BrokenCno {

    private BrokenCno() {
    }

    static List<Broken> all() {
        return List.of(
                new Broken("dat_cno_query forgets the agent", "required_cno_query_reportsIaAndAgent",
                        rewriteResult(DatCno.class, "query", r -> new DatCnoParam(((DatCnoParam) r).ia(), null))),
                new Broken("a software event does not trigger the CNO",
                        "required_cno_wait_returnsTheEvdOfASoftwareEvent", softwareEventsSkipTheCno()),
                new Broken("an EP's receive completions do not trigger the CNO",
                        "required_cno_wait_returnsTheEvdOfARecvCompletion",
                        rewriteArgs(DatIa.class, "createEp", args -> {
                            ((DatEvd) args[1]).disable();
                            return args;
                        })),
                new Broken("dat_cno_wait answers a timeout with DAT_TIMEOUT_EXPIRED",
                        "required_cno_wait_queueEmptyWhenNothingTriggers",
                        thrownSwap(DatCno.class, "await", DatReturn.QUEUE_EMPTY, DatReturn.TIMEOUT_EXPIRED)),
                new Broken("dat_cno_wait ignores its timeout and times out at once",
                        "required_cno_wait_queueEmptyWhenNothingTriggers",
                        rewriteArgs(DatCno.class, "await", args -> {
                            args[0] = (Long) args[0] == Dat.DAT_TIMEOUT_INFINITE ? args[0] : 0L;
                            return args;
                        })),
                new Broken("dat_cno_wait is not unblocked when its last EVD is freed",
                        "required_cno_wait_unblockedWithNullWhenItsLastEvdIsFreed", waitsOnAfterTheLastEvd()),
                new Broken("dat_evd_wait refuses an EVD bound to a CNO",
                        "required_cno_wait_evdWaiterPreemptsTheCno",
                        answer(DatEvd.class, "await", call -> ((DatEvd) call.target()).query().cno() != null,
                                DatReturn.DAT_INVALID_STATE)),
                new Broken("an event dat_evd_wait took still notifies the CNO",
                        "required_cno_wait_evdWaiterPreemptsTheCno", takenEventsStillNotify()),
                new Broken("dat_cno_free with a thread in dat_cno_wait answers success and frees nothing",
                        "required_cno_free_invalidStateWhileAThreadWaits",
                        swallow(DatCno.class, "close", DatReturn.INVALID_STATE)),
                new Broken("dat_cno_wait takes a negative timeout as 0",
                        "required_cno_wait_invalidParameterForBadTimeout",
                        rewriteArgs(DatCno.class, "await", args -> {
                            args[0] = Math.max(0L, (Long) args[0]);
                            return args;
                        })),
                new Broken("dat_cno_wait swallows an interrupt and waits on",
                        "required_cno_wait_interruptEndsAnInfiniteWait", new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatCno.class, "await") && thrown instanceof DatException d
                                        && d.type() == DatReturn.INTERRUPTED_CALL) {
                                    // Ended when the kit closes the IA (a null EVD).
                                    return ((DatCno) call.target()).await(Dat.DAT_TIMEOUT_INFINITE);
                                }
                                throw thrown;
                            }
                        }),
                new Broken("a CNO's agent is called on the first trigger only",
                        "required_cno_create_agentCalledOnEveryTrigger",
                        rewriteArgs(DatIa.class, "createCno", args -> {
                            DatCno.Agent agent = (DatCno.Agent) args[0];
                            AtomicBoolean called = new AtomicBoolean();
                            args[0] = agent == null ? null : (DatCno.Agent) evd -> {
                                if (!called.getAndSet(true)) {
                                    agent.triggered(evd);
                                }
                            };
                            return args;
                        })),
                new Broken("dat_cno_modify_agent is ignored", "required_cno_modify_agent_replacesTheAgent",
                        answer(DatCno.class, "modifyAgent", call -> true, null)),
                new Broken("dat_evd_disable is ignored", "required_evd_disable_disabledEvdDoesNotTriggerItsCno",
                        answer(DatEvd.class, "disable", call -> true, null)),
                new Broken("dat_evd_modify_cno cannot unbind", "required_evd_modify_cno_bindsAndUnbinds",
                        answer(DatEvd.class, "modifyCno", call -> call.args()[0] == null, null)),
                new Broken("dat_evd_modify_cno to a CNO it cannot use is silently ignored",
                        "required_evd_modify_cno_invalidHandleForForeignOrFreedCno",
                        swallow(DatEvd.class, "modifyCno", DatReturn.INVALID_HANDLE)),
                new Broken("dat_evd_create with a freed CNO makes an EVD without one",
                        "required_evd_create_invalidHandleForForeignOrFreedCno",
                        rewriteArgs(DatIa.class, "createEvd", args -> {
                            if (args[1] instanceof DatCno cno && cno.isClosed()) {
                                args[1] = null;
                            }
                            return args;
                        })),
                new Broken("dat_cno_free of a CNO in use is silently ignored",
                        "required_cno_free_invalidStateWhileAnEvdIsBound",
                        swallow(DatCno.class, "close", DatReturn.INVALID_STATE)),
                new Broken("a freed CNO still answers dat_cno_query", "required_cno_free_freedCnoIsInvalidHandle",
                        new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatCno.class, "query") && thrown instanceof DatException d
                                        && d.type() == DatReturn.INVALID_HANDLE) {
                                    return new DatCnoParam(null, null);
                                }
                                throw thrown;
                            }
                        }));
    }

    /** {@code dat_evd_post_se} queues the event with the EVD disabled for the moment: its CNO is never triggered. */
    private static Fault softwareEventsSkipTheCno() {
        return new Fault() {
            @Override
            public Object[] before(Call call) {
                if (call.is(DatEvd.class, "postSoftwareEvent")) {
                    ((DatEvd) call.target()).disable();
                }
                return call.args();
            }

            @Override
            public Object after(Call call, Object result) {
                if (call.is(DatEvd.class, "postSoftwareEvent")) {
                    ((DatEvd) call.target()).enable();
                }
                return result;
            }
        };
    }

    /** {@code dat_cno_wait} unblocked with no EVD waits on, until the kit closes the IA. */
    private static Fault waitsOnAfterTheLastEvd() {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (call.is(DatCno.class, "await") && result == null) {
                    return ((DatCno) call.target()).await(Dat.DAT_TIMEOUT_INFINITE);
                }
                return result;
            }
        };
    }

    /** An event {@code dat_evd_wait} took on an EVD with a CNO notifies the CNO all the same. */
    private static Fault takenEventsStillNotify() {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (call.is(DatEvd.class, "await") && (Integer) result == DatReturn.DAT_SUCCESS
                        && ((DatEvd) call.target()).query().cno() != null) {
                    // Queued once the waiter has gone, it triggers the CNO as if the taken event had.
                    ((DatEvd) call.target()).postSoftwareEvent(0);
                }
                return result;
            }
        };
    }
}
