// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dat.api.DatCno;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrqAttr;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiCqAttr;
import dat.provider.ofi.internal.ffm.FiDomainAttr;
import dat.provider.ofi.internal.ffm.FiEqAttr;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.ffm.SockaddrIn;
import dat.provider.ofi.internal.ffm.SockaddrIn6;
import dat.provider.ofi.internal.rdm.RdmControlPlane;
import dat.provider.ofi.internal.rdm.RdmSerials;
import dat.spi.AbstractCno;
import dat.spi.AbstractIa;
import dat.spi.DatArgs;
import dat.spi.IntTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An interface adapter ({@code dat_ia_open}) over one {@code fi_info} entry: its fabric ({@code fi_fabric}), its
 * domain ({@code fi_domain}, the protection domain of every LMR), and one event queue ({@code fi_eq_open}) every
 * endpoint of the IA reports its connection events to (a passive endpoint has one of its own: {@link OfiPassive}).
 *
 * <p><b>One lock.</b> Every call on the IA's objects, and the progress thread, run under {@link #lock} (also the
 * shell's lifecycle lock): that is what {@code is_thread_safe} rests on, and it makes each connection transition one
 * step. A {@code dat_evd_wait} sleeps on a condition of its EVD's own ({@link OfiEvd}).
 *
 * <p><b>Progress.</b> {@link OfiProgress} reads the EQs and every CQ ({@code fi_cq_read} also drives the data
 * progress of providers that need it) and turns what it finds into DAT events. A dequeue or wait that finds a DTO
 * EVD empty reads that EVD's own CQs on the consumer's thread (a wait spins on them a little before it sleeps), so a
 * polling consumer never waits for the thread, and the thread leaves the CQs a consumer polls alone; on any other
 * EVD it runs the thread's whole step.
 *
 * <p><b>Memory keys.</b> The domain is opened from a copy of the entry with {@code FI_MR_VIRT_ADDR} added to its
 * {@code mr_mode}: a DAT RDMA names the target by virtual address, and libfabric's util providers (tcp, sockets,
 * shm) then address registrations by it rather than by offset.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiIa extends AbstractIa<OfiIa, OfiPz, OfiEvd, OfiSrq, OfiEp> {

    static final SecureRandom RANDOM = new SecureRandom();
    /** The smallest CQ an EVD with DTO events gets (OfiEvd rounds a smaller queue up to it). */
    static final int MIN_CQ = 64;
    /** Connection timeouts; a daemon so it never keeps a JVM alive. */
    static final ScheduledExecutorService TIMER = timer();

    final OfiEntry entry;
    final LibFabric fi;
    final ReentrantLock lock;
    final Arena arena = Arena.ofShared();
    /** The copy of the entry endpoints and passive endpoints are made from. */
    final MemorySegment info;
    final MemorySegment fabric;
    final MemorySegment domain;
    final MemorySegment eq;
    /** The CQ of EPs that have no EVD for one of their queues: its completions only free slots. */
    final OfiEvd orphanCq;
    /** Passive endpoints of PSPs and RSPs, each with an EQ of its own (OfiPassive). Guarded by {@link #lock}. */
    final List<OfiPassive> passives = new ArrayList<>();
    /** EQ fid address to its owner: an OfiEp, OfiPsp or OfiRsp. Guarded by {@link #lock}. */
    final Map<Long, Object> eqOwners = new HashMap<>();
    /** Every EVD with a CQ. Guarded by {@link #lock}. */
    final List<OfiEvd> cqEvds = new ArrayList<>();
    /** EP key (in every operation context) to EP. Guarded by {@link #lock}. */
    final IntTable<OfiEp> epsByKey = new IntTable<>();
    /** lmr_context to LMR. Guarded by {@link #lock}. */
    final IntTable<OfiLmr> lmrs = new IntTable<>();
    /** The open SRQs. Guarded by {@link #lock}. */
    final List<OfiSrq> srqs = new ArrayList<>();
    /** The control plane of an {@code FI_EP_RDM} entry's associations, {@code null} for {@code FI_EP_MSG}. */
    final RdmControlPlane rdm;
    /** The serials of the IA's RDM connections. */
    final RdmSerials serials = new RdmSerials();
    /** EPs whose RDM connection has work to look at in every progress step. Guarded by {@link #lock}. */
    final List<OfiRdmLink> rdmLinks = new ArrayList<>();
    /** OfiRdmLink#progress's copy of {@link #rdmLinks}, empty between steps. Guarded by {@link #lock}. */
    final List<OfiRdmLink> rdmLinksStepped = new ArrayList<>();
    /** The data paths of connections that count receiver credits (OfiCredit). Guarded by {@link #lock}. */
    final List<OfiEpData> creditEps = new ArrayList<>();
    private int nextEpKey;
    private int nextSrqKey;
    private final OfiProgress progress;
    private final OfiEq eqReader;

    private OfiIa(OfiEntry entry, LibFabric fi, int asyncQlen) {
        this(entry, fi, asyncQlen, new ReentrantLock());
    }

    private OfiIa(OfiEntry entry, LibFabric fi, int asyncQlen, ReentrantLock lock) {
        super(entry.iaName(), entry.address(), OfiAttributes.providerAttr(entry),
                OfiAttributes.iaAttr(entry).toBuilder().maxEvdQlen(largestCq(entry, fi)).build(), lock);
        this.entry = entry;
        this.fi = fi;
        this.lock = lock;
        MemorySegment copy = fi.fi_dupinfo(entry.info());
        MemorySegment fab = MemorySegment.NULL;
        MemorySegment dom = MemorySegment.NULL;
        MemorySegment q = MemorySegment.NULL;
        RdmControlPlane plane = null;
        try {
            MemorySegment da = FiInfo.domainAttr(copy).reinterpret(FiDomainAttr.SIZEOF);
            FiDomainAttr.mrMode(da, FiDomainAttr.mrMode(da) | LibFabric.FI_MR_VIRT_ADDR);
            fab = fi.fi_fabric(FiInfo.fabricAttr(copy), arena.allocate(ADDRESS));
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment f = fab;
            fi.check("fi_domain", fi.guarded(() -> Fi.fi_domain(f, copy, out)));
            dom = out.get(ADDRESS, 0);
            MemorySegment attr = arena.allocate(FiEqAttr.LAYOUT);
            FiEqAttr.size(attr, 256);
            FiEqAttr.waitObj(attr, LibFabric.FI_WAIT_NONE);
            fi.check("fi_eq_open", Fi.fi_eq_open(fab, attr, out));
            q = out.get(ADDRESS, 0);
            if (entry.limits().epType() == LibFabric.FI_EP_RDM) {
                plane = new RdmControlPlane(fi, dom, copy, OfiRdmLink.timeouts(), OfiRdmLink.iaBytes(entry.address()));
            }
        } catch (FiException | IllegalArgumentException e) {
            closeQuietly(q);
            closeQuietly(dom);
            closeQuietly(fab);
            fi.fi_freeinfo(copy);
            arena.close();
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "dat_ia_open: " + entry.iaName() + ": " + e.getMessage(), e);
        }
        this.info = copy;
        this.fabric = fab;
        this.domain = dom;
        this.eq = q;
        this.rdm = plane;
        this.eqReader = new OfiEq(this, q);
        initAsyncEvd(new OfiEvd(this, asyncQlen, DatEvdFlags.ASYNC, null));
        this.orphanCq = new OfiEvd(this, iaAttr().maxEvdQlen(), DatEvdFlags.DTO, null);
        this.progress = new OfiProgress(this);
        progress.start();
    }

    static OfiIa open(OfiEntry entry, LibFabric fi, int asyncQlen) {
        if (asyncQlen < 1 || asyncQlen > OfiAttributes.MAX_EVD_QLEN) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_ia_open: async_evd_qlen " + asyncQlen
                    + " is outside 1.." + OfiAttributes.MAX_EVD_QLEN);
        }
        return new OfiIa(entry, fi, asyncQlen);
    }

    /** The largest CQ each entry's domain accepts, by IA name, found at its first open. */
    private static final Map<String, Integer> LARGEST_CQ = new ConcurrentHashMap<>();

    /**
     * {@return the largest completion queue the entry's domain creates, at most {@link OfiAttributes#MAX_EVD_QLEN}:
     * the IA's max_evd_qlen} libfabric reports no CQ size limit in fi_info, and a provider passes the size to the
     * device (verbs: ibv_create_cq, which refuses more than the device's max_cqe: 32767 on rxe), so the first open of
     * an entry tries sizes from the largest down, each power of two and the one below it (devices' limits are of
     * either form), in a domain of its own, and the answer holds for the entry from then on.
     */
    private static int largestCq(OfiEntry entry, LibFabric fi) {
        Integer known = LARGEST_CQ.get(entry.iaName());
        if (known != null) {
            return known;
        }
        MemorySegment copy = fi.fi_dupinfo(entry.info());
        MemorySegment fab = MemorySegment.NULL;
        MemorySegment dom = MemorySegment.NULL;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            fab = fi.fi_fabric(FiInfo.fabricAttr(copy), out);
            MemorySegment f = fab;
            fi.check("fi_domain", fi.guarded(() -> Fi.fi_domain(f, copy, out)));
            dom = out.get(ADDRESS, 0);
            MemorySegment attr = local.allocate(FiCqAttr.LAYOUT);
            for (int size = OfiAttributes.MAX_EVD_QLEN; size >= MIN_CQ; size >>= 1) {
                for (int tried : new int[] {size, size - 1}) {
                    attr.fill((byte) 0);
                    FiCqAttr.size(attr, tried);
                    FiCqAttr.format(attr, LibFabric.FI_CQ_FORMAT_DATA);
                    FiCqAttr.waitObj(attr, LibFabric.FI_WAIT_NONE);
                    if (Fi.fi_cq_open(dom, attr, out) == 0) {
                        Fi.fi_close(out.get(ADDRESS, 0));
                        LARGEST_CQ.put(entry.iaName(), tried);
                        return tried;
                    }
                }
            }
        } catch (FiException e) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "dat_ia_open: " + entry.iaName() + ": " + e.getMessage(), e);
        } finally {
            closeQuietly(dom);
            closeQuietly(fab);
            fi.fi_freeinfo(copy);
        }
        throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE, "dat_ia_open: "
                + entry.iaName() + ": the domain creates no completion queue of " + MIN_CQ + " entries or more");
    }

    static void closeQuietly(MemorySegment fid) {
        if (fid.address() != 0) {
            Fi.fi_close(fid);
        }
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "dat-ofi-timer");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    /** {@return a fresh key naming an EP in its operation contexts, under {@link #lock}} */
    int newEpKey() {
        do {
            nextEpKey = (nextEpKey + 1) & 0x7fffffff;
        } while (nextEpKey == 0 || epsByKey.get(nextEpKey) != null);
        return nextEpKey;
    }

    /**
     * One progress step under {@link #lock}: the connection events of the IA's EQ and of every passive endpoint's,
     * then every CQ's completions.
     *
     * @return whether it found anything
     */
    boolean progressLocked() {
        return step(Long.MIN_VALUE);
    }

    /**
     * The progress thread's step under {@link #lock}: {@link #progressLocked()} but for the CQs a consumer read itself
     * since {@code polledSince} ({@link OfiEvd#dequeue}) and that no {@code dat_evd_wait} sleeps on: their consumer
     * makes their progress, and the thread leaves them, and the lock, to it.
     *
     * @param polledSince a {@link System#nanoTime()}
     * @return whether it found anything
     */
    boolean backgroundStep(long polledSince) {
        stepWanted = false;
        steppedAt = System.nanoTime();
        return step(polledSince);
    }

    /** When the last {@link #backgroundStep} began. Guarded by {@link #lock}. */
    private long steppedAt;

    /** {@return when the last {@link #backgroundStep} began (OfiProgressTest)} Under {@link #lock}. */
    long steppedAt() {
        return steppedAt;
    }

    /**
     * The progress thread found the lock held: the holder takes the thread's step on its way out of
     * {@code dat_evd_dequeue} ({@link #stepIfDue}).
     *
     * @return whether the last such request was still unserved
     */
    boolean wantStep() {
        boolean unserved = stepWanted;
        stepWanted = true;
        return unserved;
    }

    /**
     * Binds an endpoint's CQs (one binding when both are the same). The transmit side is bound
     * {@code FI_SELECTIVE_COMPLETION} where connections count receiver credits (all but libfabric's verbs): the sends
     * injected there and the credit writes write no completion (OfiEpData#injects); every other operation asks for
     * one.
     *
     * @param ep the endpoint, not yet enabled
     * @param txCq its transmit CQ
     * @param rxCq its receive CQ
     * @throws FiException when libfabric refuses a binding
     */
    void bindCqs(MemorySegment ep, MemorySegment txCq, MemorySegment rxCq) {
        long selective = entry.ibVerbs() ? 0 : LibFabric.FI_SELECTIVE_COMPLETION;
        if (txCq.address() == rxCq.address()) {
            fi.check("fi_ep_bind(cq)", Fi.fi_ep_bind(ep, txCq, LibFabric.FI_SEND | LibFabric.FI_RECV | selective));
        } else {
            fi.check("fi_ep_bind(tx cq)", Fi.fi_ep_bind(ep, txCq, LibFabric.FI_SEND | selective));
            fi.check("fi_ep_bind(rx cq)", Fi.fi_ep_bind(ep, rxCq, LibFabric.FI_RECV));
        }
    }

    /**
     * {@return whether a {@code dat_evd_wait} blocks on the CQs' wait descriptors ({@link OfiFdWait})} On tcp, whose
     * {@code FI_WAIT_FD} is an epoll descriptor over its endpoints' sockets. shm 1.17 has no CQ wait object; the
     * other fabrics keep the progress thread's wake-up until they are tried.
     */
    boolean waitsOnFds() {
        return "tcp".equals(entry.provider());
    }

    /**
     * A polling consumer's share of the background work: the step the progress thread asked for, or, while the thread
     * sees the consumer poll, the step due {@link OfiProgress#STEP_NANOS} after the last. Under {@link #lock}.
     *
     * @param now the consumer's {@link System#nanoTime()}
     */
    void stepIfDue(long now) {
        if (stepWanted || (delegated && now - steppedAt >= OfiProgress.STEP_NANOS)) {
            backgroundStep(now - OfiProgress.POLLED_NANOS);
        }
    }

    /**
     * Whether the progress thread sees a consumer poll, which then takes the IA's steps itself ({@link #stepIfDue});
     * never while the thread is stopped. Written by the thread, read by consumers, so volatile.
     */
    private volatile boolean delegated;

    /** The progress thread leaves its steps to a polling consumer, or takes them back. */
    void delegate(boolean toConsumer) {
        delegated = toConsumer;
    }

    /** The progress thread asked for a step while a consumer held the lock. Written outside the lock, so volatile. */
    private volatile boolean stepWanted;

    /** When a consumer last called {@code dat_evd_dequeue} ({@link System#nanoTime()}); read by the progress thread. */
    @SuppressWarnings("unused") // through CONSUMER_AT
    private long consumerAt = System.nanoTime() - 2 * OfiProgress.POLLED_NANOS;
    private static final VarHandle CONSUMER_AT;
    /**
     * {@code dat_evd_dequeue} calls: counted under {@link #lock} (an opaque store through DEQUEUES), read by the
     * progress thread for its back-off.
     */
    private long dequeues;
    private static final VarHandle DEQUEUES;

    static {
        try {
            CONSUMER_AT = MethodHandles.lookup().findVarHandle(OfiIa.class, "consumerAt", long.class);
            DEQUEUES = MethodHandles.lookup().findVarHandle(OfiIa.class, "dequeues", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A consumer is in {@code dat_evd_dequeue}. Under {@link #lock}; a release store, no fence on the data path. */
    void consumerPolled(long now) {
        CONSUMER_AT.setRelease(this, now);
        dequeued();
    }

    /** A {@code dat_evd_dequeue} returned an event already queued, without the clock. Under {@link #lock}. */
    void dequeued() {
        DEQUEUES.setOpaque(this, dequeues + 1);
    }

    /** {@return whether the progress thread asked for a step ({@link #wantStep})} */
    boolean stepWanted() {
        return stepWanted;
    }

    /** {@return how many {@code dat_evd_dequeue} calls the IA has seen} Any thread; an opaque read. */
    long dequeues() {
        return (long) DEQUEUES.getOpaque(this);
    }

    /** A {@code dat_evd_wait} goes to sleep: the progress thread looks now, whatever its back-off. */
    void waiterSleeps() {
        if (progress != null) {
            progress.wake();
        }
    }

    /** {@return whether a consumer dequeued in the last {@link OfiProgress#POLLED_NANOS}} Any thread. */
    boolean consumerActive(long now) {
        return now - (long) CONSUMER_AT.getAcquire(this) < OfiProgress.POLLED_NANOS;
    }

    /**
     * {@return whether the last step left a CQ to its consumer} Under {@link #lock}. The IA is busy then, and a
     * consumer that waits on memory (an RDMA write landing) needs the endpoints' progress soon, which on tcp only a
     * CQ read makes: the thread's next step comes after its shortest sleep.
     */
    boolean leftToConsumer() {
        return leftToConsumer;
    }

    /**
     * {@return whether the progress thread's next step should come after its shortest sleep} Under {@link #lock}: a CQ
     * was left to its consumer ({@link #leftToConsumer}), or a credit advert waits for its grace.
     */
    boolean busy() {
        return leftToConsumer || creditDue();
    }

    /**
     * The credit work after CQ reads (the consumer's and the progress step's): credit words read, held requests
     * released, due adverts written. Under {@link #lock}.
     *
     * @return whether it handed anything to the fabric
     */
    boolean creditProgress(long now) {
        creditSteps++;
        boolean any = false;
        if (!creditEps.isEmpty()) {
            for (int i = 0; i < creditEps.size(); i++) {
                any |= creditEps.get(i).creditStep(now);
            }
        }
        return any;
    }

    /** {@link #creditProgress} calls. Guarded by {@link #lock}. */
    private long creditSteps;

    /** {@return how often the credit work ran (OfiProgressTest)} Under {@link #lock}. */
    long creditSteps() {
        return creditSteps;
    }

    /** {@return whether an advert waits for its grace: the progress thread keeps to its shortest sleep} */
    private boolean creditDue() {
        for (int i = 0; i < creditEps.size(); i++) {
            if (creditEps.get(i).credit.due) {
                return true;
            }
        }
        return false;
    }

    /**
     * The clock reading of the consumer step under way ({@link OfiEvd}'s dequeue), valid while {@link
     * #inConsumerStep}: an advert falling due in the step stamps its grace from it ({@link OfiCredit#receivesChanged})
     * rather than read the clock again, which took 32 ns here, once per message received. Guarded by {@link #lock}.
     */
    private long consumerStepClock = System.nanoTime();
    /** Consumer polls in a row that returned what their first CQ read found (OfiEvd#QUICK_POLLS). Under the lock. */
    int quickPolls;
    /** Whether a consumer step is under way. Guarded by {@link #lock}. */
    private boolean inConsumerStep;

    /** A consumer step begins, its clock read at {@code now}. Under {@link #lock}. */
    void consumerStepBegins(long now) {
        consumerStepClock = now;
        inConsumerStep = true;
    }

    /**
     * A consumer's poll reads its CQs before it reads the clock ({@link OfiEvd}'s dequeue): the last consumer step's
     * reading stands for the clock, one empty poll old while the consumer polls back to back. A consumer that polls
     * seldom may so find an advert due at its next step rather than a grace later: one write the more, never one
     * fewer. Under {@link #lock}.
     */
    void consumerDrainBegins() {
        inConsumerStep = true;
    }

    /** The consumer step ended. Under {@link #lock}. */
    void consumerStepEnds() {
        inConsumerStep = false;
    }

    /**
     * {@return the clock reading of the consumer step under way, or {@link System#nanoTime()} outside one} Under
     * {@link #lock}. A step's reading is at most the step's own length old.
     */
    long stepClock() {
        return inConsumerStep ? consumerStepClock : System.nanoTime();
    }

    /** The last step left a CQ to its consumer. Guarded by {@link #lock}. */
    private boolean leftToConsumer;

    /**
     * Progress steps taken: the progress thread's, and each consumer's poll. A CQ read once in a step is not read again
     * for the credit work of the same step (OfiEpData#creditStep). Guarded by {@link #lock}.
     */
    long steps;

    private boolean step(long polledSince) {
        steps++;
        leftToConsumer = false;
        boolean found = eqReader.drain();
        for (int i = 0; i < passives.size(); i++) {
            found |= passives.get(i).progress();
        }
        for (int i = 0; i < cqEvds.size(); i++) {
            OfiEvd evd = cqEvds.get(i);
            long polledAt = evd.polledAt();
            if (polledSince == Long.MIN_VALUE || polledAt == Long.MIN_VALUE || polledAt - polledSince < 0) {
                found |= evd.drainCq();
            } else {
                leftToConsumer = true;
            }
        }
        if (rdm != null) {
            found |= OfiRdmLink.progress(this);
        }
        found |= creditProgress(System.nanoTime());
        return found;
    }

    /** {@return the progress thread (OfiProgressTest stops it to take its steps itself)} */
    OfiProgress progressThread() {
        return progress;
    }

    /**
     * {@return a {@code sockaddr_in} or {@code sockaddr_in6} in {@code arena}}
     *
     * @param arena where it lives
     * @param ip the address
     * @param port the TCP port
     */
    static MemorySegment sockaddr(Arena arena, InetAddress ip, int port) {
        byte[] raw = ip.getAddress();
        short netPort = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? (short) port
                : Short.reverseBytes((short) port);
        if (ip instanceof Inet4Address) {
            MemorySegment sa = arena.allocate(SockaddrIn.LAYOUT);
            SockaddrIn.sinFamily(sa, (short) LibFabric.AF_INET);
            SockaddrIn.sinPort(sa, netPort);
            MemorySegment.copy(raw, 0, sa, JAVA_BYTE, SockaddrIn.SIN_ADDR, 4);
            return sa;
        }
        MemorySegment sa = arena.allocate(SockaddrIn6.LAYOUT);
        SockaddrIn6.sin6Family(sa, (short) LibFabric.AF_INET6);
        SockaddrIn6.sin6Port(sa, netPort);
        MemorySegment.copy(raw, 0, sa, JAVA_BYTE, SockaddrIn6.SIN6_ADDR, 16);
        return sa;
    }

    /**
     * {@return the port of a socket address}
     *
     * @param sa a sockaddr_in or sockaddr_in6 (same port offset)
     */
    static int port(MemorySegment sa) {
        short p = sa.reinterpret(SockaddrIn.SIZEOF).get(JAVA_SHORT, SockaddrIn.SIN_PORT);
        return (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? p : Short.reverseBytes(p)) & 0xffff;
    }

    /**
     * {@return the IP of a socket address, or {@code null}}
     *
     * @param sa a sockaddr_in or sockaddr_in6
     */
    static InetAddress ip(MemorySegment sa) {
        if (sa.address() == 0) {
            return null;
        }
        MemorySegment s = sa.reinterpret(SockaddrIn6.SIZEOF);
        short family = s.get(JAVA_SHORT, 0);
        try {
            if (family == LibFabric.AF_INET) {
                byte[] raw = new byte[4];
                MemorySegment.copy(s, JAVA_BYTE, SockaddrIn.SIN_ADDR, raw, 0, 4);
                return InetAddress.getByAddress(raw);
            }
            if (family == LibFabric.AF_INET6) {
                byte[] raw = new byte[16];
                MemorySegment.copy(s, JAVA_BYTE, SockaddrIn6.SIN6_ADDR, raw, 0, 16);
                return InetAddress.getByAddress(raw);
            }
        } catch (UnknownHostException e) {
            return null;
        }
        return null;
    }

    @Override
    protected void implCloseLocked() {
        // The freed PSPs' passive endpoints that wait for their delivered requests close with the last reject.
        for (OfiPassive p : new ArrayList<>(passives)) {
            for (OfiCr cr : new ArrayList<>(p.pending)) {
                cr.rejectQuietly();
            }
        }
    }

    @Override
    protected void implClosed() {
        progress.stop();
        lock.lock();
        try {
            asyncEvd().destroy();
            orphanCq.destroy();
            if (rdm != null) {
                rdm.close();
            }
            eqReader.close();
            closeQuietly(eq);
            closeQuietly(domain);
            closeQuietly(fabric);
            fi.fi_freeinfo(info);
        } finally {
            lock.unlock();
        }
        arena.close();
    }

    @Override
    protected DatException unsupported(String call, DatHandleType kind) {
        return switch (kind) {
            case RMR -> new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": the ofi provider has no memory"
                    + " windows yet (max_rmrs 0); give the peer the LMR's rmr_context instead");
            case SRQ -> new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": IA " + name() + "'s fabric has no"
                    + " shared receive context (srq_supported false)");
            default -> super.unsupported(call, kind);
        };
    }

    @Override
    protected OfiPz implCreatePz() {
        return new OfiPz(this);
    }

    @Override
    protected void checkEvdCreate(int evdMinQlen, DatCno cno, int evdFlags) {
        super.checkEvdCreate(evdMinQlen, cno, evdFlags);
        if ((evdFlags & DatEvdFlags.ASYNC) != 0) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4,
                    "dat_evd_create: DAT_EVD_ASYNC_FLAG is the IA's own async EVD's; use dat_ia_query");
        }
    }

    @Override
    protected OfiEvd implCreateEvd(int evdMinQlen, AbstractCno<OfiIa> cno, int evdFlags) {
        return new OfiEvd(this, evdMinQlen, evdFlags, cno);
    }

    @Override
    protected OfiCno implCreateCno(DatCno.Agent agent) {
        return new OfiCno(this, agent);
    }

    /**
     * An event was queued on {@code evd}, which has a CNO: the progress thread triggers it, outside the lock, soon.
     * Under {@link #lock}.
     */
    void cnoPending(OfiEvd evd) {
        if (!cnoPending.contains(evd)) {
            cnoPending.add(evd);
            progress.wake();
        }
    }

    /** The progress thread takes the pending CNO triggers, to fire them once it let go of the lock. Under lock. */
    void takeCnoTriggers() {
        if (!cnoPending.isEmpty()) {
            // addAll copies into a new array even when empty: not on every step.
            cnoFiring.addAll(cnoPending);
            cnoPending.clear();
        }
    }

    /** Fires the triggers {@link #takeCnoTriggers} took; on the progress thread, outside {@link #lock}. */
    void fireCnoTriggers() {
        for (int i = 0; i < cnoFiring.size(); i++) {
            cnoFiring.get(i).fireCno();
        }
        cnoFiring.clear();
    }

    /** EVDs with a CNO that got an event since the progress thread last fired their triggers. Guarded by lock. */
    private final List<OfiEvd> cnoPending = new ArrayList<>();
    /** Triggers taken to be fired; the progress thread's alone. */
    private final List<OfiEvd> cnoFiring = new ArrayList<>();

    @Override
    protected OfiLmr implCreateLmr(OfiPz pz, MemorySegment region, int privileges) {
        OfiLmr lmr = new OfiLmr(pz, region, privileges);
        lmrs.put(lmr.lmrContext(), lmr);
        pz.keys.put(lmr.key, lmr);
        return lmr;
    }

    @Override
    protected OfiLmr lmrOf(int lmrContext) {
        lock.lock();
        try {
            return lmrs.get(lmrContext);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected OfiEp implCreateEp(String call, OfiPz pz, OfiEvd recvEvd, OfiEvd requestEvd, OfiEvd connectEvd,
                                 OfiSrq srq, DatEpAttr attr) {
        if (srq != null && srq.eps.size() >= iaAttr().maxEpPerSrq()) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, call
                    + ": the SRQ already has max_ep_per_srq " + iaAttr().maxEpPerSrq() + " EPs");
        }
        OfiEp ep = new OfiEp(this, pz, recvEvd, requestEvd, connectEvd, srq, attr, newEpKey());
        epsByKey.put(ep.key, ep);
        if (srq != null) {
            srq.eps.add(ep);
        }
        return ep;
    }

    @Override
    protected OfiSrq implCreateSrq(OfiPz pz, DatSrqAttr attr) {
        nextSrqKey = (nextSrqKey + 1) & 0x7fffffff;
        OfiSrq srq = new OfiSrq(pz, attr.maxRecvDtos(), attr.maxRecvIov(), nextSrqKey);
        srqs.add(srq);
        return srq;
    }

    /** A qualifier is a TCP port of the IA's address. */
    @Override
    protected void checkConnQual(String call, long connQual) {
        if (connQual < 1 || connQual > 0xffff) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": conn_qual " + connQual
                    + " is not a TCP port (1..65535) of the ofi provider");
        }
    }

    @Override
    protected OfiPsp implCreatePsp(String call, boolean any, long connQual, OfiEvd crEvd, DatPspFlags flags) {
        return new OfiPsp(this, call, any ? 0 : (int) connQual, crEvd, flags);
    }

    @Override
    protected OfiRsp implCreateRsp(String call, long connQual, OfiEp ep, OfiEvd crEvd) {
        if (ep.state != DatEpState.UNCONNECTED) {
            throw DatArgs.epState(call, "ep_handle", ep.state, "UNCONNECTED");
        }
        OfiRsp rsp = new OfiRsp(this, call, (int) connQual, ep, crEvd);
        ep.state = DatEpState.RESERVED;
        return rsp;
    }

    /** A libfabric failure of a create call: the resource it could not get. */
    static DatException resources(String call, FiException e) {
        return new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                call + ": " + e.getMessage(), e);
    }

    /** {@return a random context no live object of {@code used} holds, never 0} */
    static int randomContext(IntTable<?> used) {
        int c;
        do {
            c = RANDOM.nextInt();
        } while (c == 0 || used.get(c) != null);
        return c;
    }

    @Override
    public String toString() {
        return "OfiIa[" + name() + (isClosed() ? ", closed]" : "]");
    }
}
