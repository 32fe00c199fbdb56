// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static dat.tck.Faults.connectionEventSwap;
import static dat.tck.Faults.copyIov;
import static dat.tck.Faults.remoteAddressShift;
import static dat.tck.Faults.reversedIov;
import static dat.tck.Faults.statusSwap;
import static dat.tck.Faults.swappedPairs;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatProviderAttr;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.Iov;
import dat.tck.Breaker.Answer;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.peer.TckPeer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Deliberately broken providers: loopback with one rule broken each, and the TCK test that must catch it.
 */
final class BrokenProviders {

    private BrokenProviders() {
    }

    /**
     * One broken provider.
     *
     * @param name what is broken
     * @param catchingTest the TCK test that must fail on it
     * @param fault the breakage
     */
    record Broken(String name, String catchingTest, Fault fault) {
        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * The EPs that did not call dat_ep_disconnect keep their posted receives: their FLUSHED completions never come
     * (a disconnect that tears down the remote side without flushing it).
     *
     * @return the fault
     */
    static Fault peerKeepsReceives() {
        return new Fault() {
            private final IdentityHashMap<Object, Boolean> disconnectedHere = new IdentityHashMap<>();

            @Override
            public synchronized Object[] before(Call call) {
                if (call.is(DatEp.class, "disconnect")) {
                    disconnectedHere.put(call.target(), true);
                }
                return call.args();
            }

            @Override
            public synchronized Object after(Call call, Object result) {
                if (!call.is(DatEvd.class, "dequeue")) {
                    return result;
                }
                DatEvent e = (DatEvent) call.args()[0];
                int rc = (Integer) result;
                while (rc == DatReturn.DAT_SUCCESS && e.dtoStatus() == DatDtoStatus.FLUSHED
                        && !disconnectedHere.containsKey(e.ep())) {
                    rc = ((DatEvd) call.target()).dequeue(e);
                }
                return rc;
            }
        };
    }

    /** The kit's rules that need a remote peer; they run against a {@link TckPeer} on another loopback IA. */
    private static List<Broken> crossNode() {
        return List.of(
                new Broken("accept private data changed on the way",
                        "required_ep_connect_crossNodePrivateDataIntactBothWays", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    if (e.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED
                                            && e.privateData().length > 30) {
                                        byte[] changed = e.privateData().clone();
                                        changed[30] ^= 0x04;
                                        e.setConnectionEvent(e.type(), e.evd(), e.ep(), changed);
                                    }
                                }
                                return result;
                            }
                        }),
                new Broken("a peer's reject reported as NON_PEER_REJECTED",
                        "required_ep_connect_crossNodePeerRejectIsPeerRejected",
                        connectionEventSwap(DatEventType.CONNECTION_EVENT_PEER_REJECTED,
                                DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED)),
                new Broken("nobody listening reported as UNREACHABLE",
                        "required_ep_connect_crossNodeNoListenerIsNonPeerRejected",
                        connectionEventSwap(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED,
                                DatEventType.CONNECTION_EVENT_UNREACHABLE)),
                new Broken("a remote disconnect that does not flush posted receives",
                        "required_ep_disconnect_crossNodePeerDisconnectFlushesReceives", peerKeepsReceives()),
                new Broken("sends of a connection leave in swapped pairs",
                        "required_ep_post_send_crossNodeEchoInOrderWithFlags", new Fault() {
                            private Object[] held;

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (!call.is(DatEp.class, "postSend")) {
                                    return call.args();
                                }
                                Object[] args = call.args().clone();
                                args[1] = copyIov((Iov) args[1], (Integer) args[0]);
                                if (held == null) {
                                    held = args;
                                    throw new Answer(DatReturn.DAT_SUCCESS);
                                }
                                DatEp ep = (DatEp) call.target();
                                int rc = ep.postSend((Integer) args[0], (Iov) args[1], (Long) args[2],
                                        (Integer) args[3]);
                                Object[] first = held;
                                held = null;
                                ep.postSend((Integer) first[0], (Iov) first[1], (Long) first[2], (Integer) first[3]);
                                throw new Answer(rc);
                            }
                        }),
                new Broken("an RDMA write one byte past the remote address",
                        "required_ep_post_rdma_write_crossNodeWriteLandsInPeerRegion",
                        remoteAddressShift("postRdmaWrite", 1)),
                new Broken("an RDMA read one byte past the remote address",
                        "required_ep_post_rdma_read_crossNodeReadsPeerPattern",
                        remoteAddressShift("postRdmaRead", 1)),
                new Broken("an RDMA write lands 8 bytes before its remote address",
                        "optional_rmr_bind_crossNodeReadAndWriteThroughAWindow",
                        remoteAddressShift("postRdmaWrite", -8)));
    }

    /** {@return every broken provider of the self-test: those of the rules here and in the other files} */
    static List<Broken> all() {
        List<Broken> all = new ArrayList<>(postChecksAndOrder());
        all.addAll(srqAndRecvInfo());
        all.addAll(completionsAndIov());
        all.addAll(limitsAndContexts());
        all.addAll(connectionEnds());
        all.addAll(resetAndClose());
        all.addAll(BrokenDataPath.all());
        all.addAll(BrokenControlPath.all());
        all.addAll(BrokenCno.all());
        all.addAll(BrokenPostsAndWindows.all());
        all.addAll(crossNode());
        all.addAll(BrokenControlPath.crossNode());
        all.addAll(CampaignBrokenProviders.all());
        return List.copyOf(all);
    }

    /** Posts that ignore a PZ, a privilege or the EP state, and completions lost or reordered. */
    private static List<Broken> postChecksAndOrder() {
        return List.of(
                new Broken("post_send answers INVALID_PARAMETER for a PZ mismatch",
                        "required_ep_post_send_protectionViolationForLmrOfAnotherPz",
                        statusSwap(DatEp.class, "postSend", DatReturn.DAT_PROTECTION_VIOLATION,
                                DatReturn.DAT_INVALID_PARAMETER)),
                new Broken("post_send accepts memory without local read",
                        "required_ep_post_send_privilegesViolationWithoutLocalReadOrInvalidLmr",
                        statusSwap(DatEp.class, "postSend", DatReturn.DAT_PRIVILEGES_VIOLATION,
                                DatReturn.DAT_SUCCESS)),
                new Broken("post_send on an unconnected EP answers INVALID_PARAMETER",
                        "required_ep_post_send_invalidStateWhenUnconnected",
                        statusSwap(DatEp.class, "postSend", DatReturn.DAT_INVALID_STATE,
                                DatReturn.DAT_INVALID_PARAMETER)),
                new Broken("srq_post_recv accepts an LMR of another PZ",
                        "required_srq_post_recv_protectionViolationForLmrOfAnotherPz",
                        statusSwap(DatSrq.class, "postRecv", DatReturn.DAT_PROTECTION_VIOLATION,
                                DatReturn.DAT_SUCCESS)),
                new Broken("a lost completion: every second DTO completion vanishes",
                        "required_ep_post_send_messagesArriveInPostingOrder", new Fault() {
                            private final AtomicInteger seen = new AtomicInteger();

                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS
                                        && ((DatEvent) call.args()[0]).type() == DatEventType.DTO_COMPLETION
                                        && seen.incrementAndGet() % 2 == 0) {
                                    return ((DatEvd) call.target()).dequeue((DatEvent) call.args()[0]);
                                }
                                return result;
                            }
                        }),
                new Broken("a wrong order: DTO completions come out in swapped pairs",
                        "required_srq_post_recv_perConnectionCompletionOrderIsSendOrder",
                        swappedPairs(e -> e.type() == DatEventType.DTO_COMPLETION)));
    }

    /** Lying SRQ and receive-information attributes, and resizes and watermarks of an SRQ's buffers. */
    private static List<Broken> srqAndRecvInfo() {
        return List.of(
                new Broken("a lying attribute: srq_supported = false while SRQs work",
                        "required_srq_create_modelNotSupportedWhenSrqDenied", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                return call.is(DatIa.class, "providerAttr")
                                        ? ((DatProviderAttr) result).toBuilder().srqSupported(false).build() : result;
                            }
                        }),
                new Broken("a lying attribute: recv info claimed but never given",
                        "required_ep_recv_query_successCountsPostedBuffersOfEpWithoutSrq", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatIa.class, "providerAttr")) {
                                    return ((DatProviderAttr) result).toBuilder().epRecvInfoSupported(0x11).build();
                                }
                                return call.is(DatEp.class, "recvQuery")
                                        ? new DatEpRecvInfo(Dat.DAT_VALUE_UNKNOWN, Dat.DAT_VALUE_UNKNOWN) : result;
                            }
                        }),
                new Broken("a span smaller than n",
                        "required_ep_recv_query_successCountsPostedBuffersOfEpWithoutSrq", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEp.class, "recvQuery")) {
                                    DatEpRecvInfo info = (DatEpRecvInfo) result;
                                    return info.nbufsAllocated() > 0
                                            ? new DatEpRecvInfo(info.nbufsAllocated(), info.nbufsAllocated() - 1)
                                            : info;
                                }
                                return result;
                            }
                        }),
                new Broken("a resize that shrinks below the buffers on the SRQ",
                        "required_srq_resize_invalidStateBelowBuffersOnTheSrq", new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatSrq.class, "resize") && thrown instanceof DatException d
                                        && d.type() == DatReturn.INVALID_STATE) {
                                    return null;
                                }
                                throw thrown;
                            }
                        }),
                new Broken("a resize that forgets completed but unreaped buffers",
                        "required_srq_resize_invalidStateCountsCompletedUnreapedBuffers", new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatSrq.class, "resize") && thrown instanceof DatException d
                                        && d.type() == DatReturn.INVALID_STATE
                                        && (Integer) call.args()[0]
                                                >= ((DatSrq) call.target()).query().availableDtoCount()) {
                                    return null;
                                }
                                throw thrown;
                            }
                        }),
                new Broken("a low watermark that is never set",
                        "required_srq_resize_invalidStateBelowLowWatermark", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatSrq.class, "setLowWatermark")) {
                                    throw new Answer(null);
                                }
                                return call.args();
                            }
                        }));
    }

    /** Completions that never come or lie, IOVs traversed backwards and an overflow nobody hears of. */
    private static List<Broken> completionsAndIov() {
        return List.of(
                new Broken("a flush that never comes",
                        "required_ep_post_send_flushedAtOnceWhenDisconnected", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS
                                        && ((DatEvent) call.args()[0]).dtoStatus() == DatDtoStatus.FLUSHED) {
                                    return DatReturn.DAT_QUEUE_EMPTY;
                                }
                                return result;
                            }
                        }),
                new Broken("an RDMA write past the remote buffer's length",
                        "required_ep_post_rdma_write_lengthErrorWhenRemoteBufferTooSmall", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatEp.class, "postRdmaWrite")) {
                                    Object[] args = call.args().clone();
                                    Iov iov = (Iov) args[1];
                                    long local = iov == null ? 0 : iov.totalLength((Integer) args[0]);
                                    args[5] = Math.max((Long) args[5], local);
                                    return args;
                                }
                                return call.args();
                            }
                        }),
                new Broken("UNSIGNALLED accepted on any EP",
                        "required_ep_post_send_unsignalledRefusedUnlessEpAllowsIt", new Fault() {
                            @Override
                            public Object[] before(Call call) {
                                if (call.is(DatEp.class, "postSend")) {
                                    Object[] args = call.args().clone();
                                    args[3] = (Integer) args[3] & ~DatCompletionFlags.UNSIGNALLED;
                                    return args;
                                }
                                return call.args();
                            }
                        }),
                new Broken("a mangled cookie",
                        "required_ep_post_send_successTransfersAllDataAndReturnsCookie", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    if (e.type() == DatEventType.DTO_COMPLETION) {
                                        e.setDtoCompletion(e.evd(), e.ep(), e.userCookie() + 1, e.dtoStatus(),
                                                e.transferredLength());
                                    }
                                }
                                return result;
                            }
                        }),
                new Broken("a send that gathers the IOV backwards",
                        "required_ep_post_send_iovTraversedInOrder", reversedIov(DatEp.class, "postSend")),
                new Broken("an SRQ receive that scatters backwards",
                        "required_srq_post_recv_segmentsFilledInIovOrder", reversedIov(DatSrq.class, "postRecv")),
                new Broken("an EVD overflow nobody hears of",
                        "required_evd_create_overflowRaisesAsyncEvent", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS
                                        && ((DatEvent) call.args()[0]).type()
                                                == DatEventType.ASYNC_ERROR_EVD_OVERFLOW) {
                                    return DatReturn.DAT_QUEUE_EMPTY;
                                }
                                return result;
                            }
                        }));
    }

    /** Guessable contexts, a lying message size limit and a denied completion flag still accepted. */
    private static List<Broken> limitsAndContexts() {
        return List.of(
                new Broken("guessable contexts: counters instead of random tags",
                        "required_lmr_create_contextsAreNotCounters", new Fault() {
                            private final AtomicInteger next = new AtomicInteger(1000);

                            @Override
                            public Object after(Call call, Object result) {
                                return call.is(DatLmr.class, "rmrContext") ? next.getAndAdd(4) : result;
                            }
                        }),
                new Broken("a lying limit: max_message_size one byte above the real one",
                        "required_ep_post_send_messageSizeLimitHonoured", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                if (call.is(DatEp.class, "query")) {
                                    DatEpParam p = (DatEpParam) result;
                                    return new DatEpParam(p.ia(), p.epState(), p.localIaAddress(),
                                            p.localPortQual(), p.remoteIaAddress(), p.remotePortQual(), p.pz(),
                                            p.recvEvd(), p.requestEvd(), p.connectEvd(), p.srq(), p.epAttr()
                                            .toBuilder().maxMessageSize(p.epAttr().maxMessageSize() + 1).build());
                                }
                                return result;
                            }
                        }),
                new Broken("a denied completion flag that is still accepted",
                        "required_ep_post_send_deniedCompletionFlagIsInvalidParameter", new Fault() {
                            @Override
                            public Object after(Call call, Object result) {
                                return call.is(DatIa.class, "providerAttr") ? ((DatProviderAttr) result).toBuilder()
                                        .completionFlagsSupported(((DatProviderAttr) result).completionFlagsSupported()
                                                & ~DatCompletionFlags.BARRIER_FENCE).build() : result;
                            }
                        }));
    }

    /** A connection that ends without flushing or telling either consumer. */
    private static List<Broken> connectionEnds() {
        return List.of(
                new Broken("a receive posted after the connection ended is never flushed",
                        "required_ep_post_recv_flushedAtOnceWhenDisconnected", new Fault() {
                            private final IdentityHashMap<Object, Set<Long>> lost = new IdentityHashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatEp.class, "postRecv")
                                        && ((DatEp) call.target()).state() == DatEpState.DISCONNECTED) {
                                    lost.computeIfAbsent(call.target(), k -> new HashSet<>())
                                            .add((Long) call.args()[2]);
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (!call.is(DatEvd.class, "dequeue")) {
                                    return result;
                                }
                                DatEvent e = (DatEvent) call.args()[0];
                                int rc = (Integer) result;
                                while (rc == DatReturn.DAT_SUCCESS && e.type() == DatEventType.DTO_COMPLETION
                                        && lost.getOrDefault(e.ep(), Set.of()).contains(e.userCookie())) {
                                    rc = ((DatEvd) call.target()).dequeue(e);
                                }
                                return rc;
                            }
                        }),
                new Broken("a failed DTO ends the connection without telling either consumer",
                        "required_ep_post_recv_failedDtoBreaksTheConnectionAtBothEnds", new Fault() {
                            private final IdentityHashMap<Object, Boolean> disconnectedHere = new IdentityHashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatEp.class, "disconnect")) {
                                    disconnectedHere.put(call.target(), true);
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (!call.is(DatEvd.class, "dequeue")) {
                                    return result;
                                }
                                DatEvent e = (DatEvent) call.args()[0];
                                int rc = (Integer) result;
                                while (rc == DatReturn.DAT_SUCCESS && e.type() == DatEventType.CONNECTION_EVENT_BROKEN
                                        && !disconnectedHere.containsKey(e.ep())) {
                                    rc = ((DatEvd) call.target()).dequeue(e);
                                }
                                return rc;
                            }
                        }));
    }

    /** Completions across dat_ep_reset, posts during a graceful disconnect and a graceful IA close. */
    private static List<Broken> resetAndClose() {
        return List.of(
                new Broken("completions from before dat_ep_reset given to the DTOs posted after it",
                        "required_ep_reset_undequeuedCompletionsAreLostNeverMisreported", new Fault() {
                            // Per EP: cookies posted since its last reset; those of the epoch before.
                            private final IdentityHashMap<Object, List<Long>> current = new IdentityHashMap<>();
                            private final IdentityHashMap<Object, Set<Long>> previous = new IdentityHashMap<>();

                            @Override
                            public synchronized Object[] before(Call call) {
                                if (call.is(DatEp.class, "postRecv") || call.is(DatEp.class, "postSend")) {
                                    current.computeIfAbsent(call.target(), k -> new ArrayList<>())
                                            .add((Long) call.args()[2]);
                                } else if (call.is(DatEp.class, "reset")) {
                                    List<Long> before = current.remove(call.target());
                                    previous.put(call.target(), before == null ? Set.of()
                                            : new HashSet<>(before));
                                }
                                return call.args();
                            }

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    List<Long> now = current.get(e.ep());
                                    if (e.type() == DatEventType.DTO_COMPLETION && now != null && !now.isEmpty()
                                            && previous.getOrDefault(e.ep(), Set.of())
                                            .contains(e.userCookie())) {
                                        e.setDtoCompletion(e.evd(), e.ep(), now.get(0), e.dtoStatus(),
                                                e.transferredLength());
                                    }
                                }
                                return result;
                            }
                        }),
                new Broken("post_recv refused while a graceful disconnect is pending",
                        "required_ep_post_recv_validInEveryEndpointState",
                        Faults.answer(DatEp.class, "postRecv", call -> ((DatEp) call.target()).state()
                                == DatEpState.DISCONNECT_PENDING, DatReturn.DAT_INVALID_STATE)),
                new Broken("a graceful IA close that frees live objects",
                        "required_ia_close_gracefulRefusesWhileObjectsLive", new Fault() {
                            @Override
                            public Object thrown(Call call, RuntimeException thrown) {
                                if (call.is(DatIa.class, "close") && call.args().length == 1
                                        && call.args()[0] == DatCloseFlags.GRACEFUL) {
                                    ((DatIa) call.target()).close(DatCloseFlags.ABRUPT);
                                    return null;
                                }
                                throw thrown;
                            }
                        }));
    }
}
