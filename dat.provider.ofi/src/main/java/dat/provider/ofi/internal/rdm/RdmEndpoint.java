// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiAvAttr;
import dat.provider.ofi.internal.ffm.FiCqAttr;
import dat.provider.ofi.internal.ffm.FiCqDataEntry;
import dat.provider.ofi.internal.ffm.FiCqErrEntry;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiMsgTagged;
import dat.provider.ofi.internal.ffm.FiOpsCq;
import dat.provider.ofi.internal.ffm.FidAv;
import dat.provider.ofi.internal.ffm.FidCq;
import dat.provider.ofi.internal.ffm.FidEp;
import dat.provider.ofi.internal.ffm.Iovec;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One RDM endpoint with its own address vector and completion queue: what the protocol's control and listen
 * endpoints are (docs/ofi-rdm-protocol.md, "Endpoints and addresses"). It sends and receives tagged messages
 * ({@code fi_tsendmsg}, {@code fi_trecvmsg}) of at most {@link RdmControl#MAX_SIZE} bytes from buffers it owns, so a
 * caller never hands libfabric memory that may go away before the completion.
 *
 * <p>Not thread-safe: its IA's lock guards every call.
 */
// Restricted methods on purpose: reached only through an IA, which OfiProvider opens after checking native access.
@SuppressWarnings("restricted")
public final class RdmEndpoint implements AutoCloseable {

    /** The scheme of shm's string addresses ({@code FI_ADDR_STR}). */
    static final String SHM_SCHEME = "fi_shm://";

    /** Receive buffers kept posted, each {@link RdmControl#MAX_SIZE} bytes. */
    public static final int RECEIVES = 16;

    private static final int CQ_SIZE = 256;

    /** How many endpoints in a row a name shm picks may find left by an ended process ({@link #enabled}). */
    public static final int STALE_NAMES = 64;

    // Context of a receive: its slot with this bit set, so a completion tells receives from sends.
    private static final long RECEIVE_BIT = 1L << 62;

    // shm 1.17 reaches an endpoint of the same process through that endpoint's own region, not a mapping of its
    // own: a send to it after it closed touches unmapped memory (SIGSEGV in pthread_spin_lock, seen in
    // RdmControlPlaneTest). So the process keeps its endpoints' names with an incarnation number, and a send to a
    // name of this process whose endpoint closed (or was opened again since the insert) never reaches libfabric.
    private static final Map<String, Long> LIVE = new ConcurrentHashMap<>();
    private static final Set<String> LOCAL = ConcurrentHashMap.newKeySet();
    /**
     * Names given to this process's endpoints ({@code fi_setname}: listen names) that closed at least once (see
     * {@link #closedHere}); the names the fabric picks are never given twice, so they need no entry.
     */
    private static final Set<String> CLOSED = ConcurrentHashMap.newKeySet();
    private static final AtomicLong INCARNATIONS = new AtomicLong();
    /**
     * Moves on after every change of {@link #LIVE} or {@link #LOCAL} (a volatile write after the change): a
     * {@link Reach} that saw the same value knows its answer still holds.
     */
    private static final AtomicLong CHANGES = new AtomicLong();

    private final Map<Long, Inserted> inserted = new HashMap<>();
    private String key;

    /**
     * An inserted address: its key, the incarnation of this process's endpoint of that name at the insert, and whether
     * shm resolves it through the region's file (a spelling with {@code /} after the scheme, which shm's list of the
     * process's endpoint names never matches): such an entry is a mapping of its own, safe after any close.
     */
    private record Inserted(String key, Long incarnation, boolean viaFile) {
    }

    private final LibFabric fi;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment av;
    private final MemorySegment cq;
    private final MemorySegment cqRead;
    private final MemorySegment ep;
    private final MemorySegment tsend;
    private final MemorySegment trecv;
    private final MemorySegment msg;
    private final MemorySegment iov;
    private final MemorySegment entry;
    private final MemorySegment err;
    private final MemorySegment sendBuf;
    private final MemorySegment recvBufs;
    private final MemorySegment fiAddr;
    private final byte[] name;
    /** Whether the endpoint was given its name ({@code fi_setname}) rather than the fabric picking one. */
    private final boolean named;
    private boolean closed;

    /**
     * Opens the endpoint, bound to a new AV and CQ, named {@code name} when given ({@code fi_setname} before
     * {@code fi_enable}), with {@link #RECEIVES} control receives posted.
     *
     * @param fi libfabric
     * @param domain the IA's domain
     * @param info the IA's {@code fi_info} (an {@code FI_EP_RDM} entry)
     * @param name the endpoint's address in the fabric's format, or {@code null} for one the fabric picks
     * @throws FiException when libfabric refuses; nothing stays open then
     */
    public RdmEndpoint(LibFabric fi, MemorySegment domain, MemorySegment info, byte[] name) {
        this(fi, domain, info, name, false);
    }

    /**
     * Opens the endpoint as {@link #RdmEndpoint(LibFabric, MemorySegment, MemorySegment, byte[])} does.
     *
     * @param fi libfabric
     * @param domain the IA's domain
     * @param info the IA's {@code fi_info} (an {@code FI_EP_RDM} entry)
     * @param name the endpoint's address in the fabric's format, or {@code null} for one the fabric picks
     * @param staleName whether a file under {@code name} was found that no live process maps
     *     ({@link ShmIntroductions#holder}): shm refuses such a name once and removes the file, and the endpoint is
     *     opened again ({@link #enabled})
     * @throws FiException when libfabric refuses; nothing stays open then
     */
    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the endpoint: close() closes it
    public RdmEndpoint(LibFabric fi, MemorySegment domain, MemorySegment info, byte[] name, boolean staleName) {
        this.fi = fi;
        this.named = name != null;
        MemorySegment a = MemorySegment.NULL;
        MemorySegment c = MemorySegment.NULL;
        MemorySegment e = MemorySegment.NULL;
        try {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment avAttr = arena.allocate(FiAvAttr.LAYOUT);
            FiAvAttr.type(avAttr, LibFabric.FI_AV_UNSPEC);
            FiAvAttr.count(avAttr, 64);
            fi.check("fi_av_open", Fi.fi_av_open(domain, avAttr, out));
            a = out.get(ADDRESS, 0).reinterpret(FidAv.SIZEOF);
            MemorySegment cqAttr = arena.allocate(FiCqAttr.LAYOUT);
            FiCqAttr.size(cqAttr, CQ_SIZE);
            FiCqAttr.format(cqAttr, LibFabric.FI_CQ_FORMAT_DATA);
            FiCqAttr.waitObj(cqAttr, LibFabric.FI_WAIT_NONE);
            fi.check("fi_cq_open", Fi.fi_cq_open(domain, cqAttr, out));
            c = out.get(ADDRESS, 0).reinterpret(FidCq.SIZEOF);
            MemorySegment boundAv = a;
            MemorySegment boundCq = c;
            MemorySegment n = name == null ? null : arena.allocate(name.length + 1L);
            if (n != null) {
                n.copyFrom(MemorySegment.ofArray(name));
            }
            e = enabled(fi, domain, info, name == null ? STALE_NAMES : staleName ? 1 : 0, ep -> {
                fi.check("fi_ep_bind(av)", Fi.fi_ep_bind(ep, boundAv, 0));
                fi.check("fi_ep_bind(cq)", Fi.fi_ep_bind(ep, boundCq, LibFabric.FI_SEND | LibFabric.FI_RECV));
                if (n != null) {
                    fi.check("fi_setname", Fi.fi_setname(ep, n, n.byteSize()));
                }
            });
            this.name = getname(e);
            this.key = key(this.name);
            record(key);
        } catch (FiException | IllegalArgumentException x) {
            closeQuietly(e);
            closeQuietly(a);
            closeQuietly(c);
            arena.close();
            throw x;
        }
        this.av = a;
        this.cq = c;
        this.ep = e;
        this.cqRead = Fi.slot(c, FidCq.OPS, FiOpsCq.READ);
        this.tsend = Fi.tsendmsgOp(e);
        this.trecv = Fi.trecvmsgOp(e);
        this.msg = arena.allocate(FiMsgTagged.LAYOUT);
        this.iov = arena.allocate(Iovec.LAYOUT);
        this.entry = arena.allocate(FiCqDataEntry.LAYOUT);
        this.err = arena.allocate(FiCqErrEntry.LAYOUT);
        this.sendBuf = arena.allocate(RdmControl.MAX_SIZE, 64);
        this.recvBufs = arena.allocate((long) RdmControl.MAX_SIZE * RECEIVES, 64);
        this.fiAddr = arena.allocate(JAVA_LONG);
        for (int i = 0; i < RECEIVES; i++) {
            int rc = postReceive(i);
            if (rc < 0) {
                close();
                fi.check("fi_trecvmsg", rc);
            }
        }
    }

    /**
     * {@return an endpoint of {@code info} on {@code domain}, bound by {@code bind}, enabled} shm 1.17 refuses to
     * enable an endpoint whose region's file exists and records a live pid ({@code -FI_EBUSY}, {@code smr_retry_map})
     * and removes that file as it refuses. A name shm picks is the process's pid and a count, so a file under it is
     * one a process that had this pid left when it ended without closing (killed), once the host's pids came round to
     * this process (a JVM's threads take pids too); such a process left one file per endpoint it had, named in a row,
     * and each refusal here meets the next. An endpoint refused so is opened again, at most {@code reopen} times: an IA
     * whose first control endpoint met one could not open ({@code OfiShmEarlyCloseTest}'s listener, in CI).
     *
     * @param fi libfabric
     * @param domain the domain
     * @param info the {@code fi_info} to open
     * @param reopen how many times an endpoint refused EBUSY is opened again
     * @param bind binds the new endpoint (AV, CQs, name) before it is enabled
     * @throws FiException when libfabric refuses otherwise, or more often; the endpoint is closed then
     */
    public static MemorySegment enabled(LibFabric fi, MemorySegment domain, MemorySegment info, int reopen,
            Consumer<MemorySegment> bind) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            for (int tries = 0; ; tries++) {
                fi.check("fi_endpoint", Fi.fi_endpoint(domain, info, out));
                MemorySegment e = out.get(ADDRESS, 0).reinterpret(FidEp.SIZEOF);
                try {
                    bind.accept(e);
                    fi.check("fi_enable", Fi.fi_enable(e));
                    return e;
                } catch (FiException x) {
                    Fi.fi_close(e);
                    if (x.errno() != LibFabric.FI_EBUSY || tries >= reopen) {
                        throw x;
                    }
                }
            }
        }
    }

    /**
     * Records an endpoint of this process other than an {@code RdmEndpoint} (an EP's data endpoint), so a send to it
     * after it closed is refused as {@link #send} refuses one (see {@link Reach}).
     *
     * @param address its {@code fi_getname}
     */
    public static void opened(byte[] address) {
        record(key(address));
    }

    private static void record(String key) {
        LOCAL.add(key);
        LIVE.put(key, INCARNATIONS.incrementAndGet());
        CHANGES.incrementAndGet();
    }

    /**
     * The endpoint {@link #opened} recorded is closing: sends to it from now on are refused.
     *
     * @param address its {@code fi_getname}
     */
    public static void closing(byte[] address) {
        LIVE.remove(key(address));
        CHANGES.incrementAndGet();
    }

    /**
     * {@return whether the endpoint of this process named {@code key} closed, or was opened again, since
     * {@code incarnation} (its {@link #LIVE} number when the peer's address was inserted, {@code null} for none) was
     * taken} libfabric must not be handed a send to it (shm reaches it through freed memory).
     */
    private static boolean gone(String key, Long incarnation) {
        return LOCAL.contains(key) && (incarnation == null || !incarnation.equals(LIVE.get(key)));
    }

    /**
     * Whether a send to one peer address must not reach libfabric, for a data path that asks before every send: the
     * key made once, the answer kept until this process's endpoints next change, so a send costs a volatile read and
     * allocates nothing (the key's hashing and two map lookups per send were a sixth of a shm ping-pong's CPU). Not
     * thread-safe: its owner's lock guards it.
     */
    public static final class Reach {
        private final String key;
        private final Long incarnation;
        private long seen = -1;
        private boolean gone;

        /**
         * Takes the peer's incarnation now, as an insert of its address does.
         *
         * @param address the peer's address
         */
        public Reach(byte[] address) {
            this.key = key(address);
            this.incarnation = LIVE.get(key);
        }

        /** {@return whether a send to the peer must not reach libfabric} */
        public boolean gone() {
            // The count first: a change after the read moves it on, and the next call looks again.
            long changes = CHANGES.get();
            if (changes != seen) {
                gone = RdmEndpoint.gone(key, incarnation);
                seen = changes;
            }
            return gone;
        }
    }

    // An address without its trailing NULs, so fi_getname's and fi_av_insert's spellings of one shm name compare
    // equal, nor the '/' a listen name may carry after the scheme (RdmControlPlane#listenPeer); a binary address
    // (sockaddr_in) keeps every byte up to them, so two addresses never share a key.
    private static String key(byte[] address) {
        int n = address.length;
        while (n > 0 && address[n - 1] == 0) {
            n--;
        }
        String k = new String(address, 0, n, StandardCharsets.ISO_8859_1);
        int from = SHM_SCHEME.length();
        if (k.length() > from && k.charAt(from) == '/' && k.startsWith(SHM_SCHEME)) {
            int i = from;
            while (i < k.length() && k.charAt(i) == '/') {
                i++;
            }
            return SHM_SCHEME + k.substring(i);
        }
        return k;
    }


    private byte[] getname(MemorySegment e) {
        MemorySegment buf = arena.allocate(RdmControl.MAX_ADDRESS);
        MemorySegment len = arena.allocate(JAVA_LONG);
        len.set(JAVA_LONG, 0, RdmControl.MAX_ADDRESS);
        fi.check("fi_getname", Fi.fi_getname(e, buf, len));
        long n = len.get(JAVA_LONG, 0);
        if (n <= 0 || n > RdmControl.MAX_ADDRESS) {
            throw new IllegalArgumentException("fi_getname: address of " + n + " bytes, at most "
                    + RdmControl.MAX_ADDRESS + " carried by the protocol");
        }
        // A string address (shm) comes with its NUL: the protocol carries the bytes as fi_getname gave them.
        return buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }

    /** {@return the endpoint's address as {@code fi_getname} gives it: what a peer inserts to reach it} */
    public byte[] name() {
        return name.clone();
    }

    /**
     * Inserts a peer's address ({@code fi_av_insert}).
     *
     * @param address the peer's address as its {@link #name()} gave it
     * @return the peer's {@code fi_addr_t}
     * @throws FiException when the fabric refuses the address
     */
    public long insert(byte[] address) {
        check();
        MemorySegment a = arena.allocate(address.length);
        a.copyFrom(MemorySegment.ofArray(address));
        int rc = Fi.fi_av_insert(av, a, 1, fiAddr, 0);
        fi.check("fi_av_insert", rc == 1 ? 0 : rc < 0 ? rc : -LibFabric.FI_EINVAL);
        long peer = fiAddr.get(JAVA_LONG, 0);
        String k = key(address);
        inserted.put(peer, new Inserted(k, LIVE.get(k), viaFile(address)));
        return peer;
    }

    /**
     * Removes a peer's address ({@code fi_av_remove}).
     *
     * @param peer what {@link #insert} returned
     * @return 0 or -FI_E*
     */
    public int remove(long peer) {
        check();
        inserted.remove(peer);
        fiAddr.set(JAVA_LONG, 0, peer);
        return Fi.fi_av_remove(av, fiAddr, 1, 0);
    }

    /**
     * Sends {@code bytes} tagged {@code tag} to {@code peer} ({@code fi_tsendmsg} with {@code FI_COMPLETION}); the
     * bytes are copied, so the caller may reuse its array at once.
     *
     * @param peer what {@link #insert} returned
     * @param tag the message's tag
     * @param bytes at most {@link RdmControl#MAX_SIZE} bytes
     * @param context a number the send's completion returns ({@link Completion#context()})
     * @return 0, -FI_EAGAIN (try again after {@link #poll}), -FI_ENOTCONN for an endpoint of this process that
     *     closed since {@code peer} was inserted, -FI_EINVAL for a {@code peer} not inserted here, or -FI_E*
     */
    public long send(long peer, long tag, byte[] bytes, long context) {
        check();
        if (bytes.length > RdmControl.MAX_SIZE) {
            throw new IllegalArgumentException("send: " + bytes.length + " bytes, at most " + RdmControl.MAX_SIZE);
        }
        Inserted to = inserted.get(peer);
        if (to == null) {
            return -LibFabric.FI_EINVAL;
        }
        if (!to.viaFile() && gone(to.key(), to.incarnation())) {
            return -LibFabric.FI_ENOTCONN;
        }
        sendBuf.copyFrom(MemorySegment.ofArray(bytes));
        Iovec.iovBase(iov, sendBuf);
        Iovec.iovLen(iov, bytes.length);
        fill(peer, tag, 0, context);
        return Fi.post(tsend, ep.address(), msg.address(), LibFabric.FI_COMPLETION);
    }

    private int postReceive(int slot) {
        MemorySegment buf = recvBufs.asSlice((long) slot * RdmControl.MAX_SIZE, RdmControl.MAX_SIZE);
        Iovec.iovBase(iov, buf);
        Iovec.iovLen(iov, RdmControl.MAX_SIZE);
        fill(LibFabric.FI_ADDR_UNSPEC, RdmTags.CONTROL, 0, RECEIVE_BIT | slot);
        return (int) Fi.post(trecv, ep.address(), msg.address(), LibFabric.FI_COMPLETION);
    }

    private void fill(long peer, long tag, long ignore, long context) {
        FiMsgTagged.msgIov(msg, iov);
        FiMsgTagged.desc(msg, MemorySegment.NULL);
        FiMsgTagged.iovCount(msg, 1);
        FiMsgTagged.addr(msg, peer);
        FiMsgTagged.tag(msg, tag);
        FiMsgTagged.ignore(msg, ignore);
        FiMsgTagged.context(msg, MemorySegment.ofAddress(context));
        FiMsgTagged.data(msg, 0);
    }

    /**
     * A completion of this endpoint: a send's ({@code received} null) or a received message's.
     *
     * @param context the send's context (0 for a receive)
     * @param error 0, or the positive FI_E* the operation failed with
     * @param received the message's bytes, or {@code null} for a send
     */
    public record Completion(long context, int error, byte[] received) {
    }

    /**
     * Progresses the endpoint without taking a completion: a read of none, which libfabric's CQs answer by running
     * their endpoints' progress first.
     */
    public void progress() {
        check();
        Fi.cqRead(cqRead, cq.address(), entry.address(), 0);
    }

    /**
     * {@return whether {@code address} is a name this process gave an endpoint it closed, open again or not} shm 1.17
     * keeps the process's endpoint names with their regions after the close (its {@code smr_free} leaves the entry in
     * the list {@code smr_map_to_region} searches first, from the oldest), so that spelling of the name resolves to
     * unmapped memory for the life of the process, even while an endpoint of this process holds the name again; only
     * a spelling through the file reaches it (RdmControlPlane#listenPeer).
     *
     * @param address an endpoint's address
     */
    public static boolean closedHere(byte[] address) {
        return CLOSED.contains(key(address));
    }

    // Whether shm resolves the address through the region's file rather than the process's list of its endpoints:
    // a '/' after the scheme, which that list's names never start with.
    private static boolean viaFile(byte[] address) {
        int from = SHM_SCHEME.length();
        return address.length > from && address[from] == '/'
                && new String(address, 0, from, StandardCharsets.ISO_8859_1).equals(SHM_SCHEME);
    }

    /**
     * {@return whether {@code address} is an endpoint of this process that is open now}
     *
     * @param address an endpoint's address
     */
    public static boolean local(byte[] address) {
        return LIVE.containsKey(key(address));
    }

    /**
     * Reads one completion ({@code fi_cq_read}, {@code fi_cq_readerr}); a received message's buffer is posted again
     * before this returns.
     *
     * @return the completion, or {@code null} when there is none
     */
    public Completion poll() {
        check();
        long n = Fi.cqRead(cqRead, cq.address(), entry.address(), 1);
        if (n == 1) {
            return completed(FiCqDataEntry.opContext(entry).address(), 0, FiCqDataEntry.len(entry));
        }
        if (n == -LibFabric.FI_EAVAIL) {
            long r = Fi.fi_cq_readerr(cq, err);
            if (r < 1) {
                return null;
            }
            int e = FiCqErrEntry.err(err);
            return completed(FiCqErrEntry.opContext(err).address(), e == 0 ? LibFabric.FI_EIO : e, -1);
        }
        return null;
    }

    private Completion completed(long context, int error, long len) {
        if ((context & RECEIVE_BIT) == 0) {
            return new Completion(context, error, null);
        }
        int slot = (int) (context & ~RECEIVE_BIT);
        byte[] got = null;
        if (error == 0 && len >= 0 && len <= RdmControl.MAX_SIZE) {
            got = recvBufs.asSlice((long) slot * RdmControl.MAX_SIZE, len)
                    .toArray(ValueLayout.JAVA_BYTE);
        }
        int rc = closed ? 0 : postReceive(slot);
        if (rc < 0) {
            // The receive cannot be posted again: say so as the completion's error, the IA breaks what it carries.
            return new Completion(0, -rc, got);
        }
        return got == null ? new Completion(0, error == 0 ? LibFabric.FI_EIO : error, null)
                : new Completion(0, 0, got);
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("RDM endpoint closed");
        }
    }

    /** Closes the endpoint, its CQ and AV ({@code fi_close}); buffers are freed after libfabric let go of them. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (key != null) {
            if (named) {
                CLOSED.add(key);
            }
            LIVE.remove(key);
            CHANGES.incrementAndGet();
        }
        closeQuietly(ep);
        closeQuietly(cq);
        closeQuietly(av);
        arena.close();
    }

    private static void closeQuietly(MemorySegment fid) {
        if (fid.address() != 0) {
            Fi.fi_close(fid);
        }
    }
}
