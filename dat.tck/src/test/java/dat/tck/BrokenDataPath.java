// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static dat.tck.Faults.alignedAddressRoundedDown;
import static dat.tck.Faults.answer;
import static dat.tck.Faults.dtoRewrite;
import static dat.tck.Faults.onSrq;
import static dat.tck.Faults.providerAttr;
import static dat.tck.Faults.reversedIov;
import static dat.tck.Faults.rewriteArgs;
import static dat.tck.Faults.rewriteEvents;
import static dat.tck.Faults.rewriteResult;
import static dat.tck.Faults.statusSwap;
import static dat.tck.Faults.statusSwapIf;
import static dat.tck.Faults.swappedPairs;
import static dat.tck.Faults.thrownSwap;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatCompletionFlags;
import dat.api.DatCr;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.tck.Breaker.Answer;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.BrokenProviders.Broken;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/**
 * Broken providers of the data path: posts (send, RDMA write and read, receive), the SRQ calls and
 * {@code dat_ep_recv_query}, each with the rule that must catch it.
 */
final class BrokenDataPath {

    private static final int SEND = 3;
    private static final int RDMA = 6;

    private BrokenDataPath() {
    }

    private static int segments(Call call) {
        return (Integer) call.args()[0];
    }

    private static DatEpAttr epAttr(Call call) {
        return ((DatEp) call.target()).query().epAttr();
    }

    /** {@code dat_ep_query} reports the EP's attributes changed by {@code lie}. */
    private static Fault epAttrLie(UnaryOperator<DatEpAttr.Builder> lie) {
        return rewriteResult(DatEp.class, "query", r -> {
            DatEpParam p = (DatEpParam) r;
            return new DatEpParam(p.ia(), p.epState(), p.localIaAddress(), p.localPortQual(), p.remoteIaAddress(),
                    p.remotePortQual(), p.pz(), p.recvEvd(), p.requestEvd(), p.connectEvd(), p.srq(),
                    lie.apply(p.epAttr().toBuilder()).build());
        });
    }

    /** {@code dat_srq_query} reports the SRQ's parameters changed by {@code lie}. */
    private static Fault srqQueryLie(UnaryOperator<DatSrqParam> lie) {
        return rewriteResult(DatSrq.class, "query", r -> lie.apply((DatSrqParam) r));
    }

    private static DatSrqParam withMax(DatSrqParam p, int max) {
        return new DatSrqParam(p.ia(), p.srqState(), p.pz(), max, p.maxRecvIov(), p.lowWatermark(),
                p.availableDtoCount(), p.outstandingDtoCount());
    }

    private static boolean successfulReceive(DatEvent e) {
        return e.type() == DatEventType.DTO_COMPLETION && e.dtoStatus() == DatDtoStatus.SUCCESS
                && e.evd() == e.ep().query().recvEvd();
    }

    static List<Broken> all() {
        List<Broken> all = new ArrayList<>(sends());
        all.addAll(rdmaWrites());
        all.addAll(readsAndReceives());
        all.addAll(waits());
        all.addAll(srqPostChecks());
        all.addAll(srqPostDelivery());
        all.addAll(srqPostCompletions());
        all.addAll(srqCreation());
        all.addAll(srqCreateChecks());
        all.addAll(srqFreeQueryResize());
        all.addAll(srqWatermarks());
        all.addAll(recvQuery());
        return all;
    }

    /** dat_evd_wait and the recv completion flags that decide when it wakes. */
    private static List<Broken> waits() {
        return List.of(
                new Broken("dat_evd_wait wakes for an unsolicited receive",
                        "optional_ep_post_send_solicitedWaitWakesOnlyForSolicitedSends", waitTakesWhatIsQueued()),
                new Broken("dat_evd_wait wakes below its threshold",
                        "optional_ep_post_send_evdThresholdReceiverWakesAtThreshold", waitTakesWhatIsQueued()),
                new Broken("dat_evd_wait wakes for an unsolicited SRQ receive",
                        "optional_srq_post_recv_solicitedWaitEpSignalsOnlySolicitedSends", waitTakesWhatIsQueued()),
                new Broken("dat_evd_wait wakes below its threshold (SRQ EP)",
                        "optional_srq_post_recv_evdThresholdEpWakesAtThreshold", waitTakesWhatIsQueued()));
    }

    /**
     * A dat_evd_wait that would time out returns a queued event instead: it ignores the threshold and whether any
     * queued event is signalled.
     */
    private static Fault waitTakesWhatIsQueued() {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (call.is(DatEvd.class, "await") && (Integer) result == DatReturn.DAT_TIMEOUT_EXPIRED
                        && ((DatEvd) call.target()).dequeue((DatEvent) call.args()[2]) == DatReturn.DAT_SUCCESS) {
                    return DatReturn.DAT_SUCCESS;
                }
                return result;
            }
        };
    }

    /** dat_ep_post_send: its checks, its request slots and what it reads. */
    private static List<Broken> sends() {
        return List.of(
                new Broken("post_send on a freed EP is accepted",
                        "required_ep_post_send_invalidHandleAfterFree",
                        statusSwap(DatEp.class, "postSend", DatReturn.DAT_INVALID_HANDLE, DatReturn.DAT_SUCCESS)),
                new Broken("post_send ignores completion flag bits DAT does not define",
                        "required_ep_post_send_invalidParameterForSegmentOutsideLmr",
                        rewriteArgs(DatEp.class, "postSend", args -> {
                            args[SEND] = (Integer) args[SEND] & DatCompletionFlags.POST_FLAGS;
                            return args;
                        })),
                new Broken("request slots are never given back, reaped or not",
                        "required_ep_post_send_insufficientResourcesWhenRequestQueueFull", new Fault() {
                            private final IdentityHashMap<Object, Integer> posted = new IdentityHashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatEp.class, "postSend")
                                        && posted.getOrDefault(call.target(), 0) >= epAttr(call).maxRequestDtos()) {
                                    throw new Answer(DatReturn.DAT_INSUFFICIENT_RESOURCES);
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEp.class, "postSend") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    posted.merge(call.target(), 1, Integer::sum);
                                }
                                return result;
                            }
                        }),
                new Broken("a zero-segment send (NULL local_iov) is refused",
                        "required_ep_post_send_zeroSegmentsSendZeroSizeMessage",
                        answer(DatEp.class, "postSend", call -> segments(call) == 0, DatReturn.DAT_INVALID_PARAMETER)),
                new Broken("a send reads a cache-line-aligned segment one DAT_OPTIMAL_ALIGNMENT low",
                        "required_ep_post_send_alignedSegmentsSend",
                        alignedAddressRoundedDown(DatEp.class, "postSend", Dat.DAT_OPTIMAL_ALIGNMENT)),
                new Broken("a send of max_request_iov + 1 segments is accepted",
                        "required_ep_post_send_iovSegmentLimitHonoured",
                        statusSwapIf(DatEp.class, "postSend", DatReturn.DAT_INVALID_PARAMETER, DatReturn.DAT_SUCCESS,
                                call -> segments(call) > epAttr(call).maxRequestIov())));
    }

    /** dat_ep_post_rdma_write: its checks, privileges, limits and completions. */
    private static List<Broken> rdmaWrites() {
        return List.of(
                new Broken("post_rdma_write on a freed EP answers INVALID_STATE",
                        "required_ep_post_rdma_write_invalidHandleAfterFree",
                        statusSwap(DatEp.class, "postRdmaWrite", DatReturn.DAT_INVALID_HANDLE,
                                DatReturn.DAT_INVALID_STATE)),
                new Broken("an RDMA write checks the bounds of its first local triplet only",
                        "required_ep_post_rdma_write_invalidParameterForSegmentOutsideLmr",
                        statusSwapIf(DatEp.class, "postRdmaWrite", DatReturn.DAT_INVALID_PARAMETER,
                                DatReturn.DAT_SUCCESS, call -> segments(call) > 1)),
                new Broken("an RDMA write is accepted while the connect is pending",
                        "required_ep_post_rdma_write_invalidStateWhenUnconnected",
                        statusSwapIf(DatEp.class, "postRdmaWrite", DatReturn.DAT_INVALID_STATE, DatReturn.DAT_SUCCESS,
                                call -> ((DatEp) call.target()).state() == DatEpState.ACTIVE_CONNECTION_PENDING)),
                new Broken("dat_ep_query reports one more max_request_dtos than the queue holds",
                        "required_ep_post_rdma_write_insufficientResourcesWhenRequestQueueFull",
                        epAttrLie(b -> b.maxRequestDtos(b.build().maxRequestDtos() + 1))),
                new Broken("a remote access error is reported as a successful completion",
                        "required_ep_post_rdma_write_outsideRemoteRegionNeverLands",
                        dtoRewrite(e -> e.dtoStatus() == DatDtoStatus.REMOTE_ACCESS_ERR, DatDtoStatus.SUCCESS, 0)),
                new Broken("an RDMA write checks the local privilege of its first triplet only",
                        "required_ep_post_rdma_write_privilegesViolationForLocalLmr",
                        statusSwapIf(DatEp.class, "postRdmaWrite", DatReturn.DAT_PRIVILEGES_VIOLATION,
                                DatReturn.DAT_SUCCESS, call -> segments(call) > 1)),
                new Broken("a missing REMOTE_WRITE is reported as a protection violation",
                        "required_ep_post_rdma_write_privilegesViolationForRemoteWithoutRemoteWrite",
                        statusSwap(DatEp.class, "postRdmaWrite", DatReturn.DAT_PRIVILEGES_VIOLATION,
                                DatReturn.DAT_PROTECTION_VIOLATION)),
                new Broken("an RDMA write answers INVALID_PARAMETER for a local PZ mismatch",
                        "required_ep_post_rdma_write_protectionViolationForLocalLmrOfAnotherPz",
                        statusSwap(DatEp.class, "postRdmaWrite", DatReturn.DAT_PROTECTION_VIOLATION,
                                DatReturn.DAT_INVALID_PARAMETER)),
                new Broken("a remote PZ mismatch is reported as a privileges violation",
                        "required_ep_post_rdma_write_protectionViolationForRemoteContextOfAnotherPz",
                        statusSwap(DatEp.class, "postRdmaWrite", DatReturn.DAT_PROTECTION_VIOLATION,
                                DatReturn.DAT_PRIVILEGES_VIOLATION)),
                new Broken("a lying limit: max_rdma_size one byte above the real one",
                        "required_ep_post_rdma_write_rdmaSizeLimitHonoured",
                        epAttrLie(b -> b.maxRdmaSize(b.build().maxRdmaSize() + 1))),
                new Broken("an RDMA write gathers its IOV backwards",
                        "required_ep_post_rdma_write_successWritesAllDataInIovOrder",
                        reversedIov(DatEp.class, "postRdmaWrite")),
                new Broken("UNSIGNALLED accepted on an RDMA write of any EP",
                        "required_ep_post_rdma_write_unsignalledRefusedUnlessEpAllowsIt",
                        rewriteArgs(DatEp.class, "postRdmaWrite", args -> {
                            args[RDMA] = (Integer) args[RDMA] & ~DatCompletionFlags.UNSIGNALLED;
                            return args;
                        })),
                new Broken("an RDMA write reads a cache-line-aligned segment one DAT_OPTIMAL_ALIGNMENT low",
                        "required_ep_post_rdma_write_alignedSegmentsWrite",
                        alignedAddressRoundedDown(DatEp.class, "postRdmaWrite", Dat.DAT_OPTIMAL_ALIGNMENT)),
                new Broken("a flushed completion loses its cookie",
                        "required_ep_post_rdma_write_flushedAtOnceWhenDisconnected",
                        rewriteEvents(e -> e.type() == DatEventType.DTO_COMPLETION
                                && e.dtoStatus() == DatDtoStatus.FLUSHED,
                                e -> e.setDtoCompletion(e.evd(), e.ep(), 0, e.dtoStatus(), e.transferredLength()))));
    }

    /** An RDMA read and a receive into too small a buffer. */
    private static List<Broken> readsAndReceives() {
        return List.of(
                new Broken("an RDMA read scatters its IOV backwards",
                        "required_ep_post_rdma_read_readsRemoteDataAndChecksPrivilege",
                        reversedIov(DatEp.class, "postRdmaRead")),
                new Broken("an oversized message is truncated and completed as a success",
                        "required_ep_post_recv_oversizedMessageIsLocalLengthError",
                        rewriteEvents(e -> e.type() == DatEventType.DTO_COMPLETION
                                && e.dtoStatus() == DatDtoStatus.LOCAL_LENGTH_ERR,
                                e -> e.setDtoCompletion(e.evd(), e.ep(), e.userCookie(), DatDtoStatus.SUCCESS, 16))));
    }

    /** What srq_post_recv accepts and refuses. */
    private static List<Broken> srqPostChecks() {
        return List.of(
                new Broken("an empty SRQ refuses its first buffer",
                        "required_srq_post_recv_successForValidBuffer",
                        answer(DatSrq.class, "postRecv",
                                call -> ((DatSrq) call.target()).query().availableDtoCount() == 0,
                                DatReturn.DAT_INSUFFICIENT_RESOURCES)),
                new Broken("srq_post_recv on a freed SRQ is accepted",
                        "required_srq_post_recv_invalidHandleAfterFree",
                        statusSwap(DatSrq.class, "postRecv", DatReturn.DAT_INVALID_HANDLE, DatReturn.DAT_SUCCESS)),
                new Broken("srq_query reports one more max_recv_dtos than the SRQ holds",
                        "required_srq_post_recv_insufficientResourcesWhenFull",
                        srqQueryLie(p -> withMax(p, p.maxRecvDtos() + 1))),
                new Broken("srq_post_recv accepts num_segments above max_recv_iov",
                        "required_srq_post_recv_invalidParameterForSegmentOutsideLmr",
                        statusSwapIf(DatSrq.class, "postRecv", DatReturn.DAT_INVALID_PARAMETER, DatReturn.DAT_SUCCESS,
                                call -> segments(call) > ((DatSrq) call.target()).query().maxRecvIov())),
                new Broken("srq_post_recv checks the local write privilege of its first triplet only",
                        "required_srq_post_recv_privilegesViolationWithoutLocalWriteOrInvalidLmr",
                        statusSwapIf(DatSrq.class, "postRecv", DatReturn.DAT_PRIVILEGES_VIOLATION,
                                DatReturn.DAT_SUCCESS, call -> segments(call) > 1)),
                new Broken("a zero-segment SRQ buffer (NULL local_iov) is refused",
                        "required_srq_post_recv_zeroSegmentsReceiveZeroSizeMessage",
                        answer(DatSrq.class, "postRecv", call -> segments(call) == 0,
                                DatReturn.DAT_INVALID_PARAMETER)));
    }

    /** Which EP takes an SRQ buffer, and what its completion says. */
    private static List<Broken> srqPostDelivery() {
        return List.of(
                new Broken("a buffer whose cookie is already posted on the SRQ is dropped",
                        "required_srq_post_recv_cookieReturnedEvenWhenNotUnique", new Fault() {
                            private final Set<Long> cookies = new HashSet<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatSrq.class, "postRecv") && !cookies.add((Long) call.args()[2])) {
                                    throw new Answer(DatReturn.DAT_SUCCESS);
                                }
                                return call.args();
                            }
                        }),
                new Broken("an SRQ EP with UNSIGNALLED recv flags completes unsignalled",
                        "required_srq_post_recv_unsignalledEpRecvFlagStillSignals", new Fault() {
                            private final Set<Object> unsignalled = Collections.newSetFromMap(
                                    new IdentityHashMap<>());

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatIa.class, "createEpWithSrq") && ((DatEpAttr) call.args()[5])
                                        .recvCompletionFlags() == DatCompletionFlags.UNSIGNALLED) {
                                    unsignalled.add(call.args()[1]);
                                }
                                if (call.is(DatEvd.class, "await") && unsignalled.contains(call.target())) {
                                    throw new Answer(DatReturn.DAT_TIMEOUT_EXPIRED);
                                }
                                return call.args();
                            }
                        }),
                new Broken("SRQ receive completions report transfered_length 0",
                        "required_srq_post_recv_completionReportedByTheDequeuingEp",
                        dtoRewrite(e -> e.dtoStatus() == DatDtoStatus.SUCCESS && onSrq(e.ep())
                                && successfulReceive(e), DatDtoStatus.SUCCESS, 0)),
                new Broken("an SRQ refuses posts while no EP is attached to it",
                        "required_srq_post_recv_validWithoutAttachedEps", new Fault() {
                            private final IdentityHashMap<Object, Integer> attached = new IdentityHashMap<>();
                            private final IdentityHashMap<Object, Object> srqOf = new IdentityHashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatSrq.class, "postRecv") && attached.getOrDefault(call.target(), 0) == 0) {
                                    throw new Answer(DatReturn.DAT_INVALID_STATE);
                                }
                                if (call.is(DatEp.class, "close") && srqOf.containsKey(call.target())) {
                                    attached.merge(srqOf.remove(call.target()), -1, Integer::sum);
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatIa.class, "createEpWithSrq")) {
                                    attached.merge(call.args()[4], 1, Integer::sum);
                                    srqOf.put(result, call.args()[4]);
                                }
                                return result;
                            }
                        }),
                new Broken("an unconnected EP on the SRQ takes a buffer and flushes it",
                        "required_srq_post_recv_onlyConnectedEpsDequeue", new Fault() {
                            private final IdentityHashMap<Object, DatEp> recvEvds = new IdentityHashMap<>();

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatIa.class, "createEpWithSrq")) {
                                    recvEvds.put(call.args()[1], (DatEp) result);
                                }
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_QUEUE_EMPTY) {
                                    DatEp ep = recvEvds.get(call.target());
                                    if (ep != null && ep.state() == DatEpState.UNCONNECTED) {
                                        recvEvds.remove(call.target());
                                        ((DatEvent) call.args()[0]).setDtoCompletion((DatEvd) call.target(), ep, 42,
                                                DatDtoStatus.FLUSHED, 0);
                                        return DatReturn.DAT_SUCCESS;
                                    }
                                }
                                return result;
                            }
                        }));
    }

    /** SRQ buffers across a disconnect, an error, an alignment and a peer on another node. */
    private static List<Broken> srqPostCompletions() {
        return List.of(
                new Broken("a disconnect discards the receive completions still queued",
                        "required_srq_post_recv_disconnectKeepsCompletionsAndLeavesSrqBuffers", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatEp.class, "disconnect")) {
                                    Faults.drain(((DatEp) call.target()).query().recvEvd());
                                }
                                return call.args();
                            }
                        }),
                new Broken("an SRQ buffer completed in error stays counted after its completion is reaped",
                        "required_srq_post_recv_oversizedMessageCompletesItsBufferInError", new Fault() {
                            private boolean leaked;

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatSrq.class, "postRecv") && leaked) {
                                    leaked = false;
                                    throw new Answer(DatReturn.DAT_INSUFFICIENT_RESOURCES);
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    leaked |= e.type() == DatEventType.DTO_COMPLETION
                                            && e.dtoStatus() != DatDtoStatus.SUCCESS && onSrq(e.ep());
                                }
                                return result;
                            }
                        }),
                new Broken("an SRQ buffer on a cache line is filled one DAT_OPTIMAL_ALIGNMENT low",
                        "required_srq_post_recv_alignedBuffersReceive",
                        alignedAddressRoundedDown(DatSrq.class, "postRecv", Dat.DAT_OPTIMAL_ALIGNMENT)),
                new Broken("SRQ receive completions carry the previous message's transfered_length",
                        "required_srq_post_recv_crossNodeEchoIntoSrq", new Fault() {
                            private long previous;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    if (e.type() == DatEventType.DTO_COMPLETION && onSrq(e.ep())
                                            && successfulReceive(e)) {
                                        long length = e.transferredLength();
                                        e.setDtoCompletion(e.evd(), e.ep(), e.userCookie(), e.dtoStatus(), previous);
                                        previous = length;
                                    }
                                }
                                return result;
                            }
                        }));
    }

    /**
     * One successful receive of an SRQ EP is lost (its completion never comes): the first one, or with
     * {@code armedBy}, the first after a resize it accepts (requested size, size before).
     */
    private static Fault loseOneSrqReceive(BiPredicate<Integer, Integer> armedBy) {
        return new Fault() {
            private boolean lose = armedBy == null;

            @Override
            public synchronized Object[] before(Call call) {
                if (armedBy != null && call.is(DatSrq.class, "resize")) {
                    lose |= armedBy.test((Integer) call.args()[0], ((DatSrq) call.target()).query().maxRecvDtos());
                }
                return call.args();
            }

            @Override
            public synchronized Object after(Call call, Object result) {
                if (lose && call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                    DatEvent e = (DatEvent) call.args()[0];
                    if (e.type() == DatEventType.DTO_COMPLETION && onSrq(e.ep()) && successfulReceive(e)) {
                        lose = false;
                        return ((DatEvd) call.target()).dequeue(e);
                    }
                }
                return result;
            }
        };
    }

    /** What a new SRQ is and which EPs and receive EVDs may share it. */
    private static List<Broken> srqCreation() {
        return List.of(
                new Broken("a new SRQ cannot be freed: it starts out counted as in use",
                        "required_srq_create_createdUnattached", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatSrq.class, "close")) {
                                    throw new DatException(DatReturn.INVALID_STATE, "dat_srq_free: the SRQ is in use");
                                }
                                return call.args();
                            }
                        }),
                new Broken("creating an SRQ raises a low-watermark event",
                        "required_srq_create_defaultLowWatermarkRaisesNoEvent", new Fault() {
                            private DatSrq created;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatIa.class, "createSrq")) {
                                    created = (DatSrq) result;
                                }
                                if (created != null && call.is(DatEvd.class, "dequeue")
                                        && (Integer) result == DatReturn.DAT_QUEUE_EMPTY
                                        && call.target() == created.query().ia().asyncEvd()) {
                                    ((DatEvent) call.args()[0]).setAsyncEvent(
                                            DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK,
                                            (DatEvd) call.target(), created, DatAsyncReason.SRQ_LOW_WATERMARK_EVENT);
                                    created = null;
                                    return DatReturn.DAT_SUCCESS;
                                }
                                return result;
                            }
                        }),
                new Broken("the first message into an SRQ EP is lost",
                        "required_srq_create_emptySrqBehavesAsEmptyReceiveQueue", loseOneSrqReceive(null)),
                new Broken("a lying attribute: srq_ep_pz_difference_supported = false while EPs of another PZ work",
                        "required_srq_create_epOfAnotherPzRefusedWhenDifferenceDenied",
                        providerAttr(b -> b.srqEpPzDifferenceSupported(false))),
                new Broken("SRQ completions all name the SRQ's first EP",
                        "required_srq_create_epsMayUseDifferentRecvEvds", new Fault() {
                            private final IdentityHashMap<Object, DatEp> first = new IdentityHashMap<>();
                            private final IdentityHashMap<Object, Object> srqOf = new IdentityHashMap<>();

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatIa.class, "createEpWithSrq")) {
                                    first.putIfAbsent(call.args()[4], (DatEp) result);
                                    srqOf.put(result, call.args()[4]);
                                }
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    Object srq = srqOf.get(e.ep());
                                    if (e.type() == DatEventType.DTO_COMPLETION && srq != null) {
                                        e.setDtoCompletion(e.evd(), first.get(srq), e.userCookie(), e.dtoStatus(),
                                                e.transferredLength());
                                    }
                                }
                                return result;
                            }
                        }));
    }

    /** What srq_create refuses, and the sizes and order an SRQ it made keeps. */
    private static List<Broken> srqCreateChecks() {
        return List.of(
                new Broken("a lying limit: max_srqs one above the real one",
                        "required_srq_create_insufficientResourcesPastMaxSrqs",
                        Faults.iaAttr(b -> b.maxSrqs(b.build().maxSrqs() + 1))),
                new Broken("srq_create answers INVALID_PARAMETER for a bad PZ handle",
                        "required_srq_create_invalidHandleForFreedOrForeignPz",
                        thrownSwap(DatIa.class, "createSrq", DatReturn.INVALID_HANDLE, DatReturn.INVALID_PARAMETER)),
                new Broken("srq_create rounds max_recv_iov 0 up to 1",
                        "required_srq_create_invalidParameterForBadAttributes",
                        rewriteArgs(DatIa.class, "createSrq", args -> {
                            if (args[1] instanceof DatSrqAttr a && a.maxRecvIov() < 1) {
                                args[1] = new DatSrqAttr(a.maxRecvDtos(), 1, a.lowWatermark());
                            }
                            return args;
                        })),
                new Broken("srq_create refuses a max_recv_iov above 3 as a shortage (INSUFFICIENT_RESOURCES)",
                        "required_srq_create_everyAdvertisedRecvIovIsCreatedOrInvalid", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatIa.class, "createSrq") && call.args()[1] instanceof DatSrqAttr a
                                        && a.maxRecvIov() > 3) {
                                    throw new DatException(DatReturn.INSUFFICIENT_RESOURCES,
                                            "dat_srq_create: ibv_create_srq failed");
                                }
                                return call.args();
                            }
                        }),
                new Broken("srq_post_recv reports a PZ mismatch as a privileges violation",
                        "required_srq_create_onlyLmrsOfTheSrqPzArePosted",
                        statusSwap(DatSrq.class, "postRecv", DatReturn.DAT_PROTECTION_VIOLATION,
                                DatReturn.DAT_PRIVILEGES_VIOLATION)),
                new Broken("receive completions of SRQ EPs come out in swapped pairs",
                        "required_srq_create_perConnectionCompletionOrder",
                        swappedPairs(e -> e.type() == DatEventType.DTO_COMPLETION && onSrq(e.ep()))),
                new Broken("srq_query reports one max_recv_dtos less than the SRQ holds",
                        "required_srq_create_successWithAtLeastRequestedSizes",
                        srqQueryLie(p -> withMax(p, p.maxRecvDtos() - 1))));
    }

    /** Freeing, querying and resizing an SRQ. */
    private static List<Broken> srqFreeQueryResize() {
        return List.of(
                new Broken("an SRQ in use by an EP is freed",
                        "required_srq_free_refusedWhileEpsUseIt",
                        Faults.swallow(DatSrq.class, "close", DatReturn.INVALID_STATE)),
                new Broken("outstanding_dto_count forgets completions not yet reaped",
                        "required_srq_query_countsFollowTheExample",
                        srqQueryLie(p -> new DatSrqParam(p.ia(), p.srqState(), p.pz(), p.maxRecvDtos(), p.maxRecvIov(),
                                p.lowWatermark(), p.availableDtoCount(),
                                p.availableDtoCount() == Dat.DAT_VALUE_UNKNOWN || p.outstandingDtoCount()
                                        == Dat.DAT_VALUE_UNKNOWN ? p.outstandingDtoCount() : p.availableDtoCount()))),
                new Broken("a grow loses one posted buffer",
                        "required_srq_resize_growKeepsEveryPostedBuffer",
                        loseOneSrqReceive((size, max) -> size > max)),
                new Broken("a shrink loses one posted buffer",
                        "required_srq_resize_shrinkNeverLosesBuffers",
                        loseOneSrqReceive((size, max) -> size <= max)),
                new Broken("a resize loses a message that waited for an SRQ buffer",
                        "required_srq_resize_noIncomingMessageLostAcrossResize",
                        loseOneSrqReceive((size, max) -> true)),
                new Broken("a resize beyond max_recv_per_srq answers INVALID_PARAMETER",
                        "required_srq_resize_insufficientResourcesBeyondIaLimit",
                        thrownSwap(DatSrq.class, "resize", DatReturn.INSUFFICIENT_RESOURCES,
                                DatReturn.INVALID_PARAMETER)),
                new Broken("a resize of a freed SRQ is ignored",
                        "required_srq_resize_invalidHandleAfterFree",
                        Faults.swallow(DatSrq.class, "resize", DatReturn.INVALID_HANDLE)),
                new Broken("a resize below 1 is rounded up to 1",
                        "required_srq_resize_invalidParameterForSizeBelowOne",
                        rewriteArgs(DatSrq.class, "resize", args -> {
                            args[0] = Math.max(1, (Integer) args[0]);
                            return args;
                        })),
                new Broken("after a shrink srq_query reports one less than the SRQ holds",
                        "required_srq_resize_shrinkResultBetweenRequestAndOldSize", new Fault() {
                            private final Set<Object> shrunk = Collections.newSetFromMap(
                                    new IdentityHashMap<>());

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatSrq.class, "resize")) {
                                    shrunk.add(call.target());
                                }
                                if (call.is(DatSrq.class, "query") && shrunk.contains(call.target())) {
                                    DatSrqParam p = (DatSrqParam) result;
                                    return withMax(p, p.maxRecvDtos() - 1);
                                }
                                return result;
                            }
                        }),
                new Broken("a grow is accepted but changes nothing",
                        "required_srq_resize_successGrowsTheQueue",
                        answer(DatSrq.class, "resize",
                                call -> (Integer) call.args()[0] > ((DatSrq) call.target()).query().maxRecvDtos(),
                                        null)));
    }

    /** The SRQ's low watermark and the state of the EPs that take its buffers. */
    private static List<Broken> srqWatermarks() {
        return List.of(
                new Broken("dat_srq_set_lw checks the watermark only when a buffer is taken",
                        "required_srq_set_lw_firesAtOnceWhenAlreadyBelow", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatSrq.class, "setLowWatermark")) {
                                    Faults.drain(((DatSrq) call.target()).query().ia().asyncEvd());
                                }
                                return result;
                            }
                        }),
                new Broken("dat_srq_set_lw counts a taken buffer as on the SRQ until its completion is dequeued",
                        "required_srq_set_lw_buffersTakenButNotDequeuedAreOffTheSrq", new Fault() {
                            private int posted;
                            private int dequeued;
                            private boolean swallow;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatSrq.class, "postRecv") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    posted++;
                                } else if (call.is(DatSrq.class, "setLowWatermark")) {
                                    // The stale count says not below: the event raised at once is the one it misses.
                                    swallow = posted - dequeued >= (Integer) call.args()[0];
                                } else if (call.is(DatEvd.class, "dequeue")
                                        && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    if (e.type() == DatEventType.DTO_COMPLETION && onSrq(e.ep())) {
                                        dequeued++;
                                    } else if (swallow && e.type() == DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK) {
                                        swallow = false;
                                        return DatReturn.DAT_QUEUE_EMPTY;
                                    }
                                }
                                return result;
                            }
                        }),
                new Broken("an accepted EP reports PASSIVE_CONNECTION_PENDING until its ESTABLISHED is dequeued",
                        "required_srq_post_recv_anEpThatTookABufferIsConnected", new Fault() {
                            private final Set<Object> pending = Collections.newSetFromMap(
                                    new IdentityHashMap<>());

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatCr.class, "accept")) {
                                    pending.add(call.args()[0]);
                                } else if (call.is(DatEvd.class, "dequeue")
                                        && (Integer) result == DatReturn.DAT_SUCCESS
                                        && ((DatEvent) call.args()[0]).type()
                                        == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                                    pending.remove(((DatEvent) call.args()[0]).ep());
                                } else if (call.is(DatEp.class, "state") && pending.contains(call.target())
                                        && result == DatEpState.CONNECTED) {
                                    return DatEpState.PASSIVE_CONNECTION_PENDING;
                                }
                                return result;
                            }
                        }),
                new Broken("the low-watermark event is raised twice",
                        "required_srq_set_lw_oneEventWhenBuffersFallBelow", new Fault() {
                            private DatEvent again;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (!call.is(DatEvd.class, "dequeue")) {
                                    return result;
                                }
                                DatEvent e = (DatEvent) call.args()[0];
                                if ((Integer) result == DatReturn.DAT_SUCCESS) {
                                    if (e.type() == DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK) {
                                        again = new DatEvent().copyFrom(e);
                                    }
                                    return result;
                                }
                                if (again != null && again.evd() == call.target()) {
                                    e.copyFrom(again);
                                    again = null;
                                    return DatReturn.DAT_SUCCESS;
                                }
                                return result;
                            }
                        }),
                new Broken("a low watermark above max_recv_dtos is clamped to it",
                        "required_srq_set_lw_refusesOutOfRangeOrUnsupported",
                        new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (!call.is(DatSrq.class, "setLowWatermark")) {
                                    return call.args();
                                }
                                int max = ((DatSrq) call.target()).query().maxRecvDtos();
                                return new Object[] {Math.min(max, (Integer) call.args()[0])};
                            }
                        }));
    }

    private static List<Broken> recvQuery() {
        int both = Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN;
        return List.of(
                new Broken("a lying attribute: bufs_alloc_span denied but still given",
                        "required_ep_recv_query_deniedCountIsValueUnknown",
                        providerAttr(b -> b.epRecvInfoSupported(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED))),
                new Broken("recv_query on a freed EP answers zero counts",
                        "required_ep_recv_query_invalidHandleAfterFree", new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatEp.class, "recvQuery") && thrown instanceof DatException d
                                        && d.type() == DatReturn.INVALID_HANDLE) {
                                    return new DatEpRecvInfo(0, 0);
                                }
                                throw thrown;
                            }
                        }),
                new Broken("recv_query answers a mask of unknown bits as if both counts were asked",
                        "required_ep_recv_query_invalidParameterForNoOrUnknownCount",
                        rewriteArgs(DatEp.class, "recvQuery", args -> {
                            int which = (Integer) args[0];
                            args[0] = which != 0 && (which & both) == 0 ? both : which & both;
                            return args;
                        })),
                new Broken("a lying attribute: ep_recv_info_supported = 0 while both counts are given",
                        "required_ep_recv_query_modelNotSupportedWhenNoCountSupported",
                        providerAttr(b -> b.epRecvInfoSupported(0))),
                new Broken("bufs_alloc_span comes from the previous snapshot",
                        "required_ep_recv_query_spanNeverSmallerThanCountUnderTraffic", new Fault() {
                            private int previous;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEp.class, "recvQuery")) {
                                    DatEpRecvInfo info = (DatEpRecvInfo) result;
                                    DatEpRecvInfo stale = new DatEpRecvInfo(info.nbufsAllocated(), previous);
                                    previous = info.nbufsAllocated();
                                    return stale;
                                }
                                return result;
                            }
                        }),
                new Broken("an SRQ EP counts the SRQ's buffers as its own",
                        "required_ep_recv_query_srqEpCountsOnlyBuffersItTook",
                        new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                DatSrq srq = call.is(DatEp.class, "recvQuery") ? ((DatEp) call.target()).query().srq()
                                        : null;
                                if (srq == null) {
                                    return result;
                                }
                                int available = srq.query().availableDtoCount();
                                return new DatEpRecvInfo(available, available);
                            }
                        }));
    }
}
