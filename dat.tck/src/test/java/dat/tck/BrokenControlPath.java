// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static dat.tck.Faults.answer;
import static dat.tck.Faults.connectionEventSwap;
import static dat.tck.Faults.dropEvents;
import static dat.tck.Faults.iaAttr;
import static dat.tck.Faults.providerAttr;
import static dat.tck.Faults.remoteAddressShift;
import static dat.tck.Faults.rewriteArgs;
import static dat.tck.Faults.rewriteEvents;
import static dat.tck.Faults.rewriteResult;
import static dat.tck.Faults.statusSwap;
import static dat.tck.Faults.swallow;
import static dat.tck.Faults.swappedPairs;
import static dat.tck.Faults.thrownSwap;

import dat.api.Dat;
import dat.api.DatConnectFlags;
import dat.api.DatCr;
import dat.api.DatCrParam;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.Iov;
import dat.tck.Breaker.Answer;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.BrokenProviders.Broken;
import dat.tck.peer.TckPeer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Broken providers of the control path: IA, PZ, LMR, RMR, EVD, connection management and EP states, each with the
 * rule that must catch it. The broken providers of rules that need a remote peer are in {@link #crossNode()}.
 */
final class BrokenControlPath {

    private BrokenControlPath() {
    }

    private static DatEvdParam withFlags(DatEvdParam p, int flags) {
        return new DatEvdParam(p.ia(), p.evdQlen(), p.evdState(), p.cno(), flags);
    }

    static List<Broken> all() {
        List<Broken> all = new ArrayList<>(connects());
        all.addAll(endpoints());
        all.addAll(evds());
        all.addAll(objects());
        return all;
    }

    /** Accepting, handing off, rejecting and connecting: the private data and events of a connection. */
    private static List<Broken> connects() {
        return List.of(
                new Broken("the accept's private data never reaches the requester",
                        "required_cr_accept_connectsBothSidesWithPrivateData",
                        rewriteEvents(e -> e.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED,
                                e -> e.setConnectionEvent(e.type(), e.evd(), e.ep(), new byte[0]))),
                new Broken("a handed-off request loses its private data",
                        "required_cr_handoff_movesRequestToOtherPsp", new Fault() {
                            private boolean handedOff;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatCr.class, "handoff")) {
                                    handedOff = true;
                                }
                                if (handedOff && call.is(DatCr.class, "query")) {
                                    DatCrParam p = (DatCrParam) result;
                                    return new DatCrParam(p.remoteIaAddress(), p.remotePortQual(), new byte[0],
                                            p.localEp());
                                }
                                return result;
                            }
                        }),
                new Broken("freeing a PSP closes the requests it already delivered",
                        "required_psp_free_leavesDeliveredRequestsAcceptable", new Fault() {
                            private boolean freed;

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (freed && call.target() instanceof DatCr) {
                                    throw new DatException(DatReturn.INVALID_HANDLE,
                                            "broken: the PSP that delivered the request was freed");
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatPsp.class, "close")) {
                                    freed = true;
                                }
                                return result;
                            }
                        }),
                new Broken("a reject is reported as NON_PEER_REJECTED",
                        "required_cr_reject_requesterSeesPeerRejected",
                        connectionEventSwap(DatEventType.CONNECTION_EVENT_PEER_REJECTED,
                                DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED)),
                new Broken("a denied QoS or MULTIPATH is silently ignored at connect",
                        "required_ep_connect_deniedQosOrMultipathIsNotSupported",
                        rewriteArgs(DatEp.class, "connect", args -> {
                            args[4] = DatQos.BEST_EFFORT;
                            args[5] = (Integer) args[5] & ~DatConnectFlags.MULTIPATH;
                            return args;
                        })),
                new Broken("a connect to nobody is reported as BROKEN",
                        "required_ep_connect_noListenerFailsWithEvent",
                        connectionEventSwap(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED,
                                DatEventType.CONNECTION_EVENT_BROKEN)),
                new Broken("a connection request's private data is cut to 56 bytes",
                        "required_ep_connect_privateDataLimitHonoured",
                        rewriteResult(DatCr.class, "query", r -> {
                            DatCrParam p = (DatCrParam) r;
                            byte[] data = p.privateData();
                            return data == null || data.length <= 56 ? p : new DatCrParam(p.remoteIaAddress(),
                                    p.remotePortQual(), Arrays.copyOf(data, 56), p.localEp());
                        })),
                new Broken("a connect on a connected EP answers INVALID_PARAMETER",
                        "required_ep_connect_refusesOversizedPrivateDataAndBusyEp",
                        thrownSwap(DatEp.class, "connect", DatReturn.INVALID_STATE, DatReturn.INVALID_PARAMETER)));
    }

    /** EP attributes, queries, disconnects and resets, and the PSP and RSP that give an EP its connection. */
    private static List<Broken> endpoints() {
        return List.of(
                new Broken("EP attributes beyond the IA's limits are clamped instead of refused",
                        "required_ep_create_invalidParameterBeyondIaLimits", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (!call.is(DatIa.class, "createEp")) {
                                    return call.args();
                                }
                                DatIaAttr limits = ((DatIa) call.target()).query();
                                DatEpAttr a = (DatEpAttr) call.args()[4];
                                Object[] args = call.args().clone();
                                args[4] = a.toBuilder()
                                        .maxRecvDtos(Math.max(1, Math.min(a.maxRecvDtos(), limits.maxDtoPerEp())))
                                        .maxRequestIov(Math.min(a.maxRequestIov(), limits.maxIovSegmentsPerDto()))
                                        .build();
                                return args;
                            }
                        }),
                new Broken("dat_ep_query swaps the recv and request EVDs",
                        "required_ep_create_startsUnconnectedWithAttributes",
                        rewriteResult(DatEp.class, "query", r -> {
                            DatEpParam p = (DatEpParam) r;
                            return new DatEpParam(p.ia(), p.epState(), p.localIaAddress(), p.localPortQual(),
                                    p.remoteIaAddress(), p.remotePortQual(), p.pz(), p.requestEvd(), p.recvEvd(),
                                    p.connectEvd(), p.srq(), p.epAttr());
                        })),
                new Broken("an abrupt disconnect does not flush the peer's receives",
                        "required_ep_disconnect_abruptFlushesOutstandingReceives", BrokenProviders.peerKeepsReceives()),
                new Broken("a graceful disconnect is reported as BROKEN",
                        "required_ep_disconnect_gracefulDisconnectsBothSides",
                        connectionEventSwap(DatEventType.CONNECTION_EVENT_DISCONNECTED,
                                DatEventType.CONNECTION_EVENT_BROKEN)),
                new Broken("the peer of a freed EP is never told the connection ended",
                        "required_ep_free_disconnectsAConnectedEp",
                        dropEvents(e -> e.type() == DatEventType.CONNECTION_EVENT_DISCONNECTED
                                || e.type() == DatEventType.CONNECTION_EVENT_BROKEN)),
                new Broken("dat_ep_get_status reports both queues idle whatever is outstanding",
                        "required_ep_get_status_reportsOutstandingWork",
                        rewriteResult(DatEp.class, "getStatus",
                                r -> new DatEpStatus(((DatEpStatus) r).epState(), true, true))),
                new Broken("dat_ep_reset of a connected EP is silently ignored",
                        "required_ep_reset_refusedUnlessDisconnected",
                        swallow(DatEp.class, "reset", DatReturn.INVALID_STATE)),
                new Broken("EP watermarks are accepted and ignored though denied",
                        "required_ep_set_watermark_modelNotSupportedWhenDenied",
                        swallow(DatEp.class, "setWatermark", DatReturn.MODEL_NOT_SUPPORTED)),
                new Broken("a PSP on a qualifier in use is accepted",
                        "required_psp_create_connQualInUseIsRefused",
                        swallow(DatIa.class, "createPsp", DatReturn.CONN_QUAL_IN_USE)),
                new Broken("DAT_PSP_PROVIDER_FLAG is taken as CONSUMER though ep_creator is NEVER",
                        "required_psp_create_providerFlagNotSupportedWhenEpCreatorNever",
                        rewriteArgs(DatIa.class, "createPspAny", args -> {
                            args[1] = DatPspFlags.CONSUMER;
                            return args;
                        })),
                new Broken("an EP reserved by an RSP still reports UNCONNECTED",
                        "required_rsp_create_connectsReservedEp",
                        rewriteResult(DatEp.class, "state", r -> r == DatEpState.RESERVED ? DatEpState.UNCONNECTED
                                : r)));
    }

    private static List<Broken> evds() {
        return List.of(
                new Broken("evd_create rounds qlen 0 up to 1",
                        "required_evd_create_invalidParameterForBadQlenOrFlags",
                        rewriteArgs(DatIa.class, "createEvd", args -> {
                            args[0] = Math.max(1, (Integer) args[0]);
                            return args;
                        })),
                new Broken("an empty EVD answers SUCCESS with a stale event",
                        "required_evd_dequeue_queueEmptyWhenNothingQueued",
                        statusSwap(DatEvd.class, "dequeue", DatReturn.DAT_QUEUE_EMPTY, DatReturn.DAT_SUCCESS)),
                new Broken("an EVD an EP reports to is freed",
                        "required_evd_free_refusedWhileInUse",
                        swallow(DatEvd.class, "close", DatReturn.INVALID_STATE)),
                new Broken("software events come out in swapped pairs",
                        "required_evd_post_se_eventsComeBackInOrder",
                        swappedPairs(e -> e.type() == DatEventType.SOFTWARE_EVENT)),
                new Broken("an EVD without DAT_EVD_SOFTWARE_FLAG takes software events",
                        "required_evd_post_se_invalidParameterWithoutSoftwareFlag",
                        statusSwap(DatEvd.class, "postSoftwareEvent", DatReturn.DAT_INVALID_PARAMETER,
                                DatReturn.DAT_SUCCESS)),
                new Broken("a full EVD drops its oldest event to make room",
                        "required_evd_post_se_queueFullKeepsQueuedEvents", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "postSoftwareEvent")
                                        && (Integer) result == DatReturn.DAT_QUEUE_FULL) {
                                    DatEvd evd = (DatEvd) call.target();
                                    evd.dequeue(new DatEvent());
                                    return evd.postSoftwareEvent((Long) call.args()[0]);
                                }
                                return result;
                            }
                        }),
                new Broken("evd_query forgets DAT_EVD_SOFTWARE_FLAG",
                        "required_evd_query_reportsQlenAndFlags",
                        rewriteResult(DatEvd.class, "query",
                                r -> withFlags((DatEvdParam) r, ((DatEvdParam) r).evdFlags() & ~DatEvdFlags.SOFTWARE))),
                new Broken("a resize below the queued events is silently ignored",
                        "required_evd_resize_neverBelowQueuedEvents",
                        swallow(DatEvd.class, "resize", DatReturn.INVALID_STATE)),
                new Broken("dat_evd_set_unwaitable does not wake a blocked waiter",
                        "required_evd_set_unwaitable_wakesWaitersWithInvalidState",
                        answer(DatEvd.class, "setUnwaitable", call -> true, null)),
                new Broken("a waiter dat_evd_set_unwaitable woke answers DAT_ABORT",
                        "required_evd_set_unwaitable_wakesWaitersWithInvalidState",
                        rewriteResult(DatEvd.class, "await",
                                r -> (Integer) r == DatReturn.DAT_INVALID_STATE ? DatReturn.DAT_ABORT : r)),
                new Broken("dat_evd_wait clamps a bad threshold into range",
                        "required_evd_wait_invalidParameterForBadThreshold", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (!call.is(DatEvd.class, "await")) {
                                    return call.args();
                                }
                                Object[] args = call.args().clone();
                                int qlen = ((DatEvd) call.target()).query().evdQlen();
                                args[1] = Math.max(1, Math.min(qlen, (Integer) args[1]));
                                return args;
                            }
                        }),
                new Broken("dat_evd_wait's nmore counts the returned event too",
                        "required_evd_wait_timesOutAndCountsRemaining", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "await") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[2];
                                    e.nmore(e.nmore() + 1);
                                }
                                return result;
                            }
                        }),
                new Broken("a lost wake-up: a blocked waiter sees a new event only on its next poll, 3 s later",
                        "required_evd_wait_wakesOnArrival", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatEvd.class, "await")
                                        && (Long) call.args()[0] == Dat.DAT_TIMEOUT_INFINITE) {
                                    try {
                                        Thread.sleep(3000);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                }
                                return call.args();
                            }
                        }),
                new Broken("the async EVD lacks DAT_EVD_ASYNC_FLAG",
                        "required_ia_open_createsAsyncEvd",
                        rewriteResult(DatEvd.class, "query",
                                r -> withFlags((DatEvdParam) r, ((DatEvdParam) r).evdFlags() & ~DatEvdFlags.ASYNC))));
    }

    private static List<Broken> objects() {
        return List.of(
                new Broken("objects of an abruptly closed IA still report open",
                        "required_ia_close_abruptDestroysEveryObject",
                        rewriteResult(DatPz.class, "isClosed", r -> false)),
                new Broken("a lying attribute: optimal_buffer_alignment 96, not a power of two",
                        "required_ia_query_attributesAreCoherent",
                        providerAttr(b -> b.optimalBufferAlignment(96))),
                new Broken("a lying attribute: max_private_data_size 56, below DAT's 64",
                        "required_ia_query_privateDataAtLeastDatMinimum",
                        providerAttr(b -> b.maxPrivateDataSize(56))),
                new Broken("lmr_create masks off privilege bits DAT does not define",
                        "required_lmr_create_invalidParameterForBadRegionOrPrivileges",
                        rewriteArgs(DatIa.class, "createLmr", args -> {
                            args[2] = (Integer) args[2] & DatMemPriv.ALL;
                            return args;
                        })),
                new Broken("lmr_query reports every privilege",
                        "required_lmr_create_reportsRegionAndPrivileges",
                        rewriteResult(DatLmr.class, "query", r -> {
                            DatLmrParam p = (DatLmrParam) r;
                            return new DatLmrParam(p.ia(), p.memType(), p.region(), p.length(), p.pz(), DatMemPriv.ALL,
                                    p.lmrContext(), p.rmrContext(), p.registeredSize(), p.registeredAddress());
                        })),
                new Broken("a freed LMR still answers dat_lmr_query",
                        "required_lmr_free_makesTheHandleInvalid", new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatLmr.class, "query") && thrown instanceof DatException d
                                        && d.type() == DatReturn.INVALID_HANDLE) {
                                    DatLmr l = (DatLmr) call.target();
                                    return new DatLmrParam(null, Dat.DAT_MEM_TYPE_VIRTUAL, l.segment(), l.length(),
                                            l.pz(), l.privileges(), l.lmrContext(), l.rmrContext(), l.length(),
                                            l.address());
                                }
                                throw thrown;
                            }
                        }),
                new Broken("a lying limit: max_pzs one above the real one",
                        "required_pz_create_objectLimitsHonoured",
                        iaAttr(b -> b.maxPzs(b.build().maxPzs() + 1))),
                new Broken("a PZ with an LMR is freed",
                        "required_pz_free_refusedWhileInUse",
                        swallow(DatPz.class, "close", DatReturn.INVALID_STATE)),
                new Broken("a lying limit: max_rmrs = 0 while RMRs work",
                        "required_rmr_create_modelNotSupportedWhenDenied",
                        iaAttr(b -> b.maxRmrs(0))),
                new Broken("dat_rmr_free leaves the window bound",
                        "optional_rmr_free_revokesTheWindow", answer(DatRmr.class, "close", call -> true, null)),
                new Broken("an LMR an RMR is bound to is freed",
                        "optional_lmr_free_refusedWhileAnRmrIsBound", swallow(DatLmr.class, "close",
                                DatReturn.INVALID_STATE)),
                new Broken("an RDMA read lands one byte off its remote address",
                        "optional_rmr_bind_peerReadsExactlyTheWindow", remoteAddressShift("postRdmaRead", 1)),
                new Broken("dat_rmr_bind answers success and posts nothing: no bind completion ever comes",
                        "optional_rmr_bind_inOrderBehindASendAwaitingItsReceive",
                        answer(DatRmr.class, "bind", call -> true, DatReturn.DAT_SUCCESS)),
                new Broken("one consumer context shared by every handle",
                        "required_set_consumer_context_roundTrips", new Fault() {
                            private Object shared;

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.method().equals("consumerContext")) {
                                    if (call.args().length == 1) {
                                        shared = call.args()[0];
                                        throw new Answer(null);
                                    }
                                    throw new Answer(shared);
                                }
                                return call.args();
                            }
                        }));
    }

    /** Broken providers whose rule needs a remote peer ({@link TckPeer}); run with one by the self-test. */
    static List<Broken> crossNode() {
        return List.of(
                new Broken("sends to one remote qualifier all leave on the first EP connected to it",
                        "required_ep_connect_crossNodeSeveralConnectionsToOnePsp", new Fault() {
                            private final Map<Object, DatEp> first = new HashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (!call.is(DatEp.class, "postSend")) {
                                    return call.args();
                                }
                                DatEp ep = (DatEp) call.target();
                                DatEpParam p = ep.query();
                                if (p.epState() != DatEpState.CONNECTED) {
                                    return call.args();
                                }
                                DatEp chosen = first.computeIfAbsent(List.of(p.remoteIaAddress(), p.remotePortQual()),
                                        k -> ep);
                                if (chosen == ep || chosen.state() != DatEpState.CONNECTED) {
                                    return call.args();
                                }
                                Object[] a = call.args();
                                throw new Answer(chosen.postSend((Integer) a[0], (Iov) a[1], (Long) a[2],
                                        (Integer) a[3]));
                            }
                        }),
                new Broken("a disconnect tears the connection down locally only",
                        "required_ep_disconnect_crossNodeLocalDisconnectSeenByPeer", new Fault() {
                            private final IdentityHashMap<Object, DatEp> pretend = new IdentityHashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatEp.class, "disconnect")) {
                                    DatEp ep = (DatEp) call.target();
                                    pretend.put(ep.query().connectEvd(), ep);
                                    throw new Answer(null);
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_QUEUE_EMPTY) {
                                    DatEp ep = pretend.remove(call.target());
                                    if (ep != null) {
                                        ((DatEvent) call.args()[0]).setConnectionEvent(
                                                DatEventType.CONNECTION_EVENT_DISCONNECTED, (DatEvd) call.target(), ep,
                                                null);
                                        return DatReturn.DAT_SUCCESS;
                                    }
                                }
                                return result;
                            }
                        }));
    }
}
