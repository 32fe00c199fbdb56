// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static dat.tck.Faults.rewriteResult;
import static dat.tck.Faults.statusSwap;

import dat.api.Dat;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatRmr;
import dat.api.DatSrq;
import dat.api.Iov;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.BrokenProviders.Broken;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.ToLongFunction;

/**
 * Broken providers of the defects issue 24's held-out suite planted and the kit first missed: windows wider than
 * their memory or outliving their rebind, free or connection; posts that read past or into an IOV they may not;
 * queues one slot off; a free that returns under a delivery; recv_query counts asked alone; UNSIGNALLED successes
 * that never queue. Each is caught by the rule it names, which covers the whole class (every post call, every
 * privilege combination), so these are examples of it.
 */
final class BrokenPostsAndWindows {

    private static final String WIDER = "optional_rmr_bind_neverWiderThanItsLmr";
    private static final String OLDER = "optional_rmr_bind_olderContextsDieWithRebindAndFree";
    private static final String CONNECTION = "optional_rmr_bind_windowDiesWithItsConnection";
    private static final String BEYOND = "required_ep_post_send_everyPostRefusesSegmentsBeyondTheIov";
    private static final String UNREADABLE = "required_ep_post_send_everyPostRefusesAnIovItCannotRead";
    private static final String DEPTH = "required_ep_post_recv_everyQueueHoldsExactlyItsReportedDepth";
    private static final String UNSIGNALLED = "optional_ep_post_send_unsignalledSuccessesStillComplete";
    private static final String ALONE = "required_ep_recv_query_eachCountAskedAloneIsAnswered";
    private static final String FREE = "required_lmr_free_noByteLandsAfterItReturns";

    private BrokenPostsAndWindows() {
    }

    static List<Broken> all() {
        return List.of(
                new Broken("a bind asking REMOTE_READ|REMOTE_WRITE of a read-only LMR is accepted", WIDER,
                        widerBind((asked, held) -> asked == (DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE)
                                && (held & DatMemPriv.REMOTE_READ) != 0)),
                new Broken("a bind asking REMOTE_READ of an LMR without it is accepted", WIDER,
                        widerBind((asked, held) -> (asked & DatMemPriv.REMOTE_READ) != 0
                                && (held & DatMemPriv.REMOTE_READ) == 0)),
                new Broken("a rebind leaves the context it replaced reaching the new window", OLDER,
                        new StaleContexts(Stale.REBIND)),
                new Broken("dat_rmr_free leaves the freed RMR's contexts reaching its memory", OLDER,
                        new StaleContexts(Stale.FREE)),
                new Broken("a window survives the end of its connection and the reset", CONNECTION,
                        new StaleContexts(Stale.CONNECTION)),
                new Broken("dat_ep_post_rdma_read reads triplets past the consumer's IOV", BEYOND,
                        onPost(Set.of("postRdmaRead"), (n, iov) -> n > iov.capacity(),
                                (n, iov) -> iov.lmrContext(n - 1))),
                new Broken("dat_srq_post_recv reads triplets past the consumer's IOV", BEYOND,
                        onPost(Set.of("srq.postRecv"), (n, iov) -> n > iov.capacity(),
                                (n, iov) -> iov.lmrContext(n - 1))),
                new Broken("dat_ep_post_recv reads an IOV of a closed arena or of another thread", UNREADABLE,
                        onPost(Set.of("postRecv"), (n, iov) -> true,
                                (n, iov) -> iov.segment().get(ValueLayout.JAVA_BYTE, 0))),
                new Broken("dat_ep_post_rdma_write reads an IOV of a closed arena or of another thread", UNREADABLE,
                        onPost(Set.of("postRdmaWrite"), (n, iov) -> true,
                                (n, iov) -> iov.segment().get(ValueLayout.JAVA_BYTE, 0))),
                new Broken("dat_ep_query reports one max_recv_dtos less than the receive queue holds", DEPTH,
                        rewriteResult(DatEp.class, "query", r -> {
                            DatEpParam p = (DatEpParam) r;
                            return new DatEpParam(p.ia(), p.epState(), p.localIaAddress(), p.localPortQual(),
                                    p.remoteIaAddress(), p.remotePortQual(), p.pz(), p.recvEvd(), p.requestEvd(),
                                    p.connectEvd(), p.srq(), p.epAttr().toBuilder()
                                            .maxRecvDtos(p.epAttr().maxRecvDtos() - 1).build());
                        })),
                new Broken("a receive past a full receive queue is accepted and lost", DEPTH,
                        statusSwap(DatEp.class, "postRecv", DatReturn.DAT_INSUFFICIENT_RESOURCES,
                                DatReturn.DAT_SUCCESS)),
                new Broken("an RDMA read past a full request queue is accepted and lost", DEPTH,
                        statusSwap(DatEp.class, "postRdmaRead", DatReturn.DAT_INSUFFICIENT_RESOURCES,
                                DatReturn.DAT_SUCCESS)),
                new Broken("a buffer past a full SRQ is accepted and lost", DEPTH,
                        statusSwap(DatSrq.class, "postRecv", DatReturn.DAT_INSUFFICIENT_RESOURCES,
                                DatReturn.DAT_SUCCESS)),
                new Broken("successful UNSIGNALLED requests are never queued", UNSIGNALLED,
                        unsignalledNeverQueued(Set.of("postSend", "postRdmaWrite", "postRdmaRead"))),
                new Broken("successful UNSIGNALLED RDMA reads are never queued", UNSIGNALLED,
                        unsignalledNeverQueued(Set.of("postRdmaRead"))),
                recvQueryAlone("recv_query answers bufs_alloc_span only when nbufs_allocated is asked too",
                        Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN),
                recvQueryAlone("recv_query answers nbufs_allocated asked alone with the span too",
                        Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED),
                new Broken("dat_lmr_free returns while an RDMA write still copies into the region", FREE,
                        freeReturnsUnderADelivery()));
    }

    /** A recv_query fault: asked for {@code which} alone, the provider answers as described by the name. */
    private static Broken recvQueryAlone(String name, int which) {
        return new Broken(name, ALONE, new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (!call.is(DatEp.class, "recvQuery") || (Integer) call.args()[0] != which) {
                    return result;
                }
                DatEpRecvInfo both = ((DatEp) call.target()).recvQuery(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED
                        | Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN);
                return which == Dat.DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN
                        ? new DatEpRecvInfo(Dat.DAT_VALUE_UNKNOWN, Dat.DAT_VALUE_UNKNOWN) : both;
            }
        });
    }

    /** Which privileges a {@link #widerBind} lets through: those asked of an LMR holding {@code held}. */
    @FunctionalInterface
    private interface Wider {
        boolean test(int asked, int held);
    }

    /**
     * A bind the LMR's privileges should refuse goes through over a registration of the same memory with the asked
     * privileges added: the window grants what the LMR never had.
     */
    private static Fault widerBind(Wider when) {
        return new Fault() {
            private final IdentityHashMap<DatLmr, DatLmr> wider = new IdentityHashMap<>();

            @Override
            public synchronized Object[] before(Call call) {
                if (!call.is(DatRmr.class, "bind")) {
                    return call.args();
                }
                DatLmr lmr = (DatLmr) call.args()[0];
                int asked = (Integer) call.args()[3];
                if ((asked & ~lmr.privileges()) == 0 || !when.test(asked, lmr.privileges())) {
                    return call.args();
                }
                Object[] args = call.args().clone();
                args[0] = wider.computeIfAbsent(lmr, l -> l.query().ia().createLmr(l.pz(), l.segment(),
                        l.privileges() | asked));
                return args;
            }
        };
    }

    /** When a window's context wrongly stays valid. */
    private enum Stale { REBIND, FREE, CONNECTION }

    /**
     * A window's context stays valid past the event {@link Stale} names: an RDMA through it reaches the RMR's current
     * window (after a rebind) or the memory under it (after a free, or once the EP it was bound on was reset).
     */
    private static final class StaleContexts implements Fault {
        private final Stale when;
        private final IdentityHashMap<DatRmr, Integer> current = new IdentityHashMap<>();
        private final IdentityHashMap<DatRmr, DatLmr> memory = new IdentityHashMap<>();
        private final IdentityHashMap<DatRmr, DatEp> boundOn = new IdentityHashMap<>();
        private final IdentityHashMap<DatRmr, Set<Integer>> history = new IdentityHashMap<>();
        /** Dead context to the RMR whose memory it still reaches, and whether through the current window. */
        private final Map<Integer, DatRmr> stale = new HashMap<>();
        private final Set<Integer> toMemory = new HashSet<>();

        StaleContexts(Stale when) {
            this.when = when;
        }

        @Override
        public synchronized Object[] before(Call call) {
            if (call.is(DatRmr.class, "close") && when == Stale.FREE) {
                DatRmr rmr = (DatRmr) call.target();
                for (int context : history.getOrDefault(rmr, Set.of())) {
                    stale.put(context, rmr);
                    toMemory.add(context);
                }
            }
            if (call.is(DatEp.class, "reset") && when == Stale.CONNECTION) {
                boundOn.forEach((rmr, ep) -> {
                    if (ep == call.target() && current.containsKey(rmr)) {
                        stale.put(current.get(rmr), rmr);
                        toMemory.add(current.get(rmr));
                    }
                });
            }
            if ((call.is(DatEp.class, "postRdmaWrite") || call.is(DatEp.class, "postRdmaRead"))
                    && stale.containsKey((Integer) call.args()[3])) {
                int context = (Integer) call.args()[3];
                DatRmr rmr = stale.get(context);
                Object[] args = call.args().clone();
                args[3] = toMemory.contains(context) ? memory.get(rmr).rmrContext() : current.get(rmr);
                return args;
            }
            return call.args();
        }

        @Override
        public synchronized Object after(Call call, Object result) {
            if (call.is(DatRmr.class, "bind") && (Integer) result == DatReturn.DAT_SUCCESS
                    && (Long) call.args()[2] > 0) {
                DatRmr rmr = (DatRmr) call.target();
                Integer previous = current.get(rmr);
                if (previous != null && when == Stale.REBIND) {
                    stale.put(previous, rmr);
                }
                int context = rmr.rmrContext();
                current.put(rmr, context);
                memory.put(rmr, (DatLmr) call.args()[0]);
                boundOn.put(rmr, (DatEp) call.args()[4]);
                history.computeIfAbsent(rmr, r -> new HashSet<>()).add(context);
            }
            return result;
        }
    }

    /** What a post does with its arguments. */
    @FunctionalInterface
    private interface PostArgs {
        Object apply(int numSegments, Iov iov);
    }

    /** A matching post first reads its IOV carelessly ({@code read}), before the provider's own checks. */
    private static Fault onPost(Set<String> posts, BiPredicate<Integer, Iov> when, PostArgs read) {
        return new Fault() {
            @Override
            public Object[] before(Call call) {
                String name = call.target() instanceof DatSrq ? "srq." + call.method() : call.method();
                if (posts.contains(name) && call.args().length > 1 && call.args()[1] instanceof Iov iov
                        && when.test((Integer) call.args()[0], iov)) {
                    read.apply((Integer) call.args()[0], iov);
                }
                return call.args();
            }
        };
    }

    /** Requests of {@code posts} posted UNSIGNALLED that succeed never reach the request EVD. */
    private static Fault unsignalledNeverQueued(Set<String> posts) {
        return new Fault() {
            private final Set<List<Object>> unsignalled = new HashSet<>();

            @Override
            public synchronized Object after(Call call, Object result) {
                if (call.target() instanceof DatEp && posts.contains(call.method())
                        && (Integer) result == DatReturn.DAT_SUCCESS) {
                    Object[] a = call.args();
                    int flags = (Integer) a[a.length - 1];
                    if ((flags & DatCompletionFlags.UNSIGNALLED) != 0) {
                        unsignalled.add(List.of(System.identityHashCode(call.target()), a[2]));
                    }
                }
                if (call.is(DatEvd.class, "dequeue")) {
                    DatEvent e = (DatEvent) call.args()[0];
                    int rc = (Integer) result;
                    while (rc == DatReturn.DAT_SUCCESS && e.type() == DatEventType.DTO_COMPLETION
                            && e.dtoStatus() == DatDtoStatus.SUCCESS
                            && unsignalled.remove(List.of(System.identityHashCode(e.ep()), e.userCookie()))) {
                        rc = ((DatEvd) call.target()).dequeue(e);
                    }
                    return rc;
                }
                return result;
            }
        };
    }

    /** The free returns while a copy into the region still runs: it lands a moment later. */
    private static Fault freeReturnsUnderADelivery() {
        // 50 ms: the rule snapshots the region as the free returns and compares some 220 ms later; 2 ms was once
        // shorter than the snapshot's delay on a loaded machine (CI rehearsal, 2026-11-29), and no round caught it.
        return bytesLandAfterFree(region -> region.byteSize() / 2, 50);
    }

    /**
     * A delivery still under way when {@code dat_lmr_free} returns: it flips a byte of the region 2 ms later.
     *
     * @param where the offset of the byte, from the region
     */
    static Fault bytesLandAfterFree(ToLongFunction<MemorySegment> where) {
        return bytesLandAfterFree(where, 2);
    }

    /**
     * A delivery still under way when {@code dat_lmr_free} returns: it flips a byte of the region {@code millis}
     * later.
     *
     * @param where the offset of the byte, from the region
     * @param millis how long after the free
     */
    static Fault bytesLandAfterFree(ToLongFunction<MemorySegment> where, long millis) {
        return new Fault() {
            @Override
            public Object after(Call call, Object result) {
                if (call.is(DatLmr.class, "close")) {
                    MemorySegment region = ((DatLmr) call.target()).segment();
                    Thread.ofPlatform().daemon().start(() -> {
                        try {
                            Thread.sleep(millis);
                        } catch (InterruptedException e) {
                            return;
                        }
                        long at = where.applyAsLong(region);
                        region.set(ValueLayout.JAVA_BYTE, at, (byte) ~region.get(ValueLayout.JAVA_BYTE, at));
                    });
                }
                return result;
            }
        };
    }
}
