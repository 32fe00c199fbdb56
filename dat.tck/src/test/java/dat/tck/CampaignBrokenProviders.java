// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static dat.tck.Faults.onSrq;
import static dat.tck.Faults.rewriteResult;
import static dat.tck.Faults.swallow;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqParam;
import dat.tck.Breaker.Answer;
import dat.tck.Breaker.Call;
import dat.tck.Breaker.Fault;
import dat.tck.BrokenProviders.Broken;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The defects the random campaign exists to find, reintroduced one at a time: each must be caught by
 * {@code required_campaign_randomSequencesAgreeWithTheModel} and by nothing less. They are the loopback defects of
 * the issue that brought the campaign (a stale receive cache, a write after free, dead memory registered, a data
 * path that throws) and the classic ways a provider loses track (a lost completion, a flush reported as success, an
 * SRQ resize that forgets held buffers, a count off by one).
 */
final class CampaignBrokenProviders {

    static final String CAMPAIGN = "required_campaign_randomSequencesAgreeWithTheModel";

    private CampaignBrokenProviders() {
    }

    static List<Broken> all() {
        return List.of(
                new Broken("campaign: a receive completes with the cookie of the receive before it (a stale cache)",
                        CAMPAIGN, new Fault() {
                            private long previous = -1;
                            private int seen;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    if (e.type() == DatEventType.DTO_COMPLETION && e.dtoStatus() == DatDtoStatus.SUCCESS
                                            && e.ep() != null && isReceive(e) && !onSrq(e.ep())) {
                                        long cookie = e.userCookie();
                                        if (++seen % 7 == 0 && previous >= 0) {
                                            e.setDtoCompletion(e.evd(), e.ep(), previous, e.dtoStatus(),
                                                    e.transferredLength());
                                        }
                                        previous = cookie;
                                    }
                                }
                                return result;
                            }
                        }),
                new Broken("campaign: bytes land in a region after dat_lmr_free returned", CAMPAIGN,
                        BrokenPostsAndWindows.bytesLandAfterFree(region -> 100)),
                new Broken("campaign: every 40th DTO completion is lost", CAMPAIGN, new Fault() {
                    private int seen;

                    @Override
                    public synchronized Object after(Call call, Object result) {
                        if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS
                                && ((DatEvent) call.args()[0]).type() == DatEventType.DTO_COMPLETION
                                && ++seen % 40 == 0) {
                            return DatReturn.DAT_QUEUE_EMPTY;
                        }
                        return result;
                    }
                }),
                new Broken("campaign: a flushed DTO is reported as a success", CAMPAIGN,
                        Faults.rewriteEvents(e -> e.type() == DatEventType.DTO_COMPLETION
                                        && e.dtoStatus() == DatDtoStatus.FLUSHED,
                                e -> e.setDtoCompletion(e.evd(), e.ep(), e.userCookie(), DatDtoStatus.SUCCESS,
                                        e.transferredLength()))),
                new Broken("campaign: dat_srq_resize below the outstanding buffers succeeds (forgetting them)",
                        CAMPAIGN, swallow(DatSrq.class, "resize", DatReturn.INVALID_STATE)),
                new Broken("campaign: outstanding_dto_count counts one buffer too many", CAMPAIGN,
                        rewriteResult(DatSrq.class, "query", r -> {
                            DatSrqParam p = (DatSrqParam) r;
                            return p.outstandingDtoCount() < 0 ? p : new DatSrqParam(p.ia(), p.srqState(), p.pz(),
                                    p.maxRecvDtos(), p.maxRecvIov(), p.lowWatermark(), p.availableDtoCount(),
                                    p.outstandingDtoCount() + 1);
                        })),
                new Broken("campaign: a malformed post throws instead of returning a status", CAMPAIGN, new Fault() {
                    @Override
                    public Object[] before(Call call) {
                        if (call.is(DatEp.class, "postSend") && (Integer) call.args()[0] < 0) {
                            throw new IllegalArgumentException("numSegments " + call.args()[0]);
                        }
                        return call.args();
                    }
                }),
                new Broken("campaign: under concurrency, every 97th receive completion is lost",
                        "optional_campaign_concurrentCallsKeepTheInvariants", new Fault() {
                            private int seen;

                            @Override
                            public synchronized Object after(Call call, Object result) {
                                if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_SUCCESS) {
                                    DatEvent e = (DatEvent) call.args()[0];
                                    if (e.type() == DatEventType.DTO_COMPLETION && isReceive(e) && ++seen % 97 == 0) {
                                        return DatReturn.DAT_QUEUE_EMPTY;
                                    }
                                }
                                return result;
                            }
                        }),
                new Broken("campaign: dat_lmr_create registers memory whose arena is closed", CAMPAIGN, new Fault() {
                    @Override
                    public Object thrown(Call call, RuntimeException thrown) {
                        if (call.is(DatIa.class, "createLmr") && thrown instanceof DatException d
                                && d.type() == DatReturn.INVALID_PARAMETER
                                && !((MemorySegment) call.args()[1]).scope().isAlive()) {
                            return ((DatIa) call.target()).createLmr((DatPz) call.args()[0],
                                    Arena.ofAuto().allocate(((MemorySegment) call.args()[1]).byteSize()),
                                    DatMemPriv.ALL);
                        }
                        throw thrown;
                    }
                }));
    }

    /**
     * What correct providers may do and the campaign must accept: each run of the campaign over one of these must
     * find no violation.
     */
    static List<Broken> legal() {
        return List.of(new Broken("legal: an RDMA write the target refuses fails when the target answers, not at its"
                + " post", CAMPAIGN, new LateRefusal()));
    }

    /**
     * Loopback refuses an RDMA write to memory without REMOTE_WRITE at its post (DAT_PRIVILEGES_VIOLATION); an HCA
     * accepts the post and learns of the refusal from the target's NAK, a while later: then the write completes
     * DAT_DTO_ERR_REMOTE_ACCESS and the connection breaks. Until then the peer's own posts still run. This fault
     * gives loopback that timing: the refusal waits until the refusing EP, its EVDs or any other object is next
     * called, or dequeues have found nothing for a while (time passes), while posts on other EPs and dequeues on
     * their EVDs go on.
     */
    static final class LateRefusal implements Fault {
        /** Writes refused late, over every instance: the self-test checks the variation took effect. */
        static final AtomicInteger LATE = new AtomicInteger();

        private record Refused(DatEp ep, DatEvd requestEvd, long cookie) {
        }

        private final IdentityHashMap<Object, List<Object>> evdsOf = new IdentityHashMap<>();
        private final IdentityHashMap<Object, Refused> pending = new IdentityHashMap<>();
        private static final Set<String> GETTERS = Set.of("lmrContext", "rmrContext", "segment",
                "address", "length", "query", "asyncEvd", "state", "handleType");
        /** Empty dequeues after which a refusal arrives by itself. */
        private static final int IDLE_DEQUEUES = 64;
        private int idle;
        /** Per request EVD: what it held when a refusal came, then the refused write's completion. */
        private final IdentityHashMap<Object, ArrayDeque<DatEvent>> queued = new IdentityHashMap<>();

        @Override
        public synchronized Object[] before(Call call) {
            for (Object ep : List.copyOf(pending.keySet())) {
                if (related(call, ep)) {
                    refuse(pending.remove(ep));
                }
            }
            ArrayDeque<DatEvent> q = queued.get(call.target());
            if (call.is(DatEvd.class, "dequeue") && q != null && !q.isEmpty()) {
                ((DatEvent) call.args()[0]).copyFrom(q.poll());
                throw new Answer(DatReturn.DAT_SUCCESS);
            }
            return call.args();
        }

        /**
         * The target's answer arrives: the write completes in error after everything the EP completed before it
         * and before the flushes of the break it causes (nothing was posted on the EP since).
         */
        private void refuse(Refused r) {
            ArrayDeque<DatEvent> q = queued.computeIfAbsent(r.requestEvd(), k -> new ArrayDeque<>());
            DatEvent e = new DatEvent();
            while (r.requestEvd().dequeue(e) == DatReturn.DAT_SUCCESS) {
                q.add(new DatEvent().copyFrom(e));
            }
            DatEvent failed = new DatEvent();
            failed.setDtoCompletion(r.requestEvd(), r.ep(), r.cookie(), DatDtoStatus.REMOTE_ACCESS_ERR, 0);
            q.add(failed);
            r.ep().disconnect(DatCloseFlags.ABRUPT);
        }

        @Override
        public synchronized Object after(Call call, Object result) {
            if (call.is(DatEvd.class, "dequeue") && (Integer) result == DatReturn.DAT_QUEUE_EMPTY
                    && !pending.isEmpty() && ++idle >= IDLE_DEQUEUES) {
                // A consumer that keeps finding nothing lets time pass: the target's answer arrives.
                idle = 0;
                for (Object ep : List.copyOf(pending.keySet())) {
                    refuse(pending.remove(ep));
                }
            }
            if (call.is(DatIa.class, "createEp") || call.is(DatIa.class, "createEpWithSrq")) {
                evdsOf.put(result, Arrays.asList(call.args()[1], call.args()[2], call.args()[3]));
            }
            if (call.is(DatEp.class, "postRdmaWrite") && (Integer) result == DatReturn.DAT_PRIVILEGES_VIOLATION
                    && ((DatEp) call.target()).state() == DatEpState.CONNECTED) {
                DatEp ep = (DatEp) call.target();
                pending.put(ep, new Refused(ep, (DatEvd) evdsOf.get(ep).get(1), (Long) call.args()[2]));
                LATE.incrementAndGet();
                return DatReturn.DAT_SUCCESS;
            }
            return result;
        }

        /** Whether {@code call} must first see the refusal of {@code ep}'s write: reading an attribute need not. */
        private boolean related(Call call, Object ep) {
            Object target = call.target();
            if (target instanceof DatEp) {
                return target == ep;
            }
            if (target instanceof DatEvd) {
                return evdsOf.getOrDefault(ep, List.of()).contains(target);
            }
            return !GETTERS.contains(call.method());
        }
    }

    /**
     * What a transport may do that DAT leaves open and loopback does not: the campaign must never demand loopback's
     * choice there. Named here so {@link BrokenLoopbackVerification} finds them; {@code CampaignZeroByteRdmaTest}
     * runs them.
     */
    static List<Broken> transportChoices() {
        return List.of(new Broken(UncheckedZeroByteWrite.NAME, CAMPAIGN, new UncheckedZeroByteWrite()));
    }

    /**
     * An HCA checks no key for an RDMA write of zero bytes (InfiniBand C9-88; rxe's {@code check_rkey} returns
     * before the lookup), so such a write to a region without {@code REMOTE_WRITE} succeeds there: the ofi provider
     * on rxe completed one, the campaign expected a refusal and waited for a break that never came (seed
     * 0xda727046cdffc788, episode 16, step 619). Loopback refuses it at its post; this variation gives loopback the
     * HCA's answer by aiming such a write at a live region that has the privilege: no byte moves either way.
     */
    static final class UncheckedZeroByteWrite implements Fault {
        static final String NAME = "transport: an RDMA write of zero bytes is not checked against the target";
        /** Zero-byte writes to an unwritable region let through, over every instance. */
        static final AtomicInteger UNCHECKED = new AtomicInteger();
        /** Writes of any length to an unwritable region, over every instance: the refusals the campaign tried. */
        static final AtomicInteger REFUSALS = new AtomicInteger();

        /** Privileges by rmr_context, of every live LMR. */
        private final Map<Integer, Integer> privilegesOf = new HashMap<>();
        /** Address by rmr_context, of the live LMRs with REMOTE_WRITE. */
        private final Map<Integer, Long> writable = new LinkedHashMap<>();

        @Override
        public synchronized Object[] before(Call call) {
            if (call.is(DatLmr.class, "free")) {
                DatLmr lmr = (DatLmr) call.target();
                privilegesOf.remove(lmr.rmrContext());
                writable.remove(lmr.rmrContext());
            }
            Integer privileges = call.is(DatEp.class, "postRdmaWrite") ? privilegesOf.get((Integer) call.args()[3])
                    : null;
            if (privileges != null && (privileges & DatMemPriv.REMOTE_WRITE) == 0) {
                REFUSALS.incrementAndGet();
                if ((Long) call.args()[5] == 0 && !writable.isEmpty()) {
                    Map.Entry<Integer, Long> target = writable.entrySet().iterator().next();
                    Object[] args = call.args().clone();
                    args[3] = target.getKey();
                    args[4] = target.getValue();
                    UNCHECKED.incrementAndGet();
                    return args;
                }
            }
            return call.args();
        }

        @Override
        public synchronized Object after(Call call, Object result) {
            if (call.is(DatIa.class, "createLmr") && result instanceof DatLmr lmr) {
                int privileges = (Integer) call.args()[2];
                privilegesOf.put(lmr.rmrContext(), privileges);
                if ((privileges & DatMemPriv.REMOTE_WRITE) != 0) {
                    writable.put(lmr.rmrContext(), lmr.address());
                }
            }
            return result;
        }
    }

    private static boolean isReceive(DatEvent e) {
        return e.evd() != null && (e.evd().query().evdFlags() & DatEvdFlags.RMR_BIND) == 0;
    }
}
