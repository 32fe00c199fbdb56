// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import dat.api.DatEventType;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The control side of one IA's RDM associations (docs/ofi-rdm-protocol.md): the IA's control endpoint, one listen
 * endpoint per PSP or RSP, the associations of the IA's EPs, and the sends between them. {@link #progress} reads
 * every endpoint's completions, hands each control message to the association it names (or a request to its
 * listener), retries the sends the fabric could not take yet, and runs the associations' timers.
 *
 * <p>Not thread-safe: the IA's lock guards every call.
 */
public final class RdmControlPlane implements AutoCloseable {

    /** The shm name prefix of a listen endpoint: {@code fi_shm://jdat-<qualifier>}. */
    public static final String SHM_LISTEN_PREFIX = RdmEndpoint.SHM_SCHEME + "jdat-";

    /** The spellings of one listen name an IA tries, one per listener it found there (see listenPeer). */
    private static final int MAX_LISTEN_SPELLINGS = 64;
    /** A listen peer whose spelling must not be used again (see drain). */
    private static final Object SPENT = new Object();

    /** How long a closing plane sleeps between tries of a message the fabric refused (see settle). */
    private static final long SETTLE_PAUSE_NANOS = 50_000;
    /** How long a closing plane sleeps between reads of its region while a peer has not taken its name in. */
    private static final long NAME_PAUSE_NANOS = 2_000_000;

    private static final System.Logger LOG = System.getLogger(RdmControlPlane.class.getName());

    private final LibFabric fi;
    private final MemorySegment domain;
    private final MemorySegment info;
    private final RdmAssociation.Timeouts timeouts;
    private final byte[] iaAddress;
    private final RdmEndpoint control;
    private final Map<Long, Listen> listens = new HashMap<>();
    private final Map<Integer, RdmAssociation> associations = new HashMap<>();
    /** The values of {@link #listens} and {@link #associations}, which a step walks by index (no iterator). */
    private final List<Listen> listenList = new ArrayList<>();
    private final List<RdmAssociation> associationList = new ArrayList<>();
    private final Map<String, Long> peers = new HashMap<>();
    private final Map<Long, ListenPeer> listenPeers = new HashMap<>();
    /** The file behind each listen name this plane inserted, by its spelling, at the insert. */
    private final Map<String, Object> listenRegions = new HashMap<>();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Map<Long, Pending> inFlight = new HashMap<>();
    private long nextContext = 1;
    private long dropped;

    private record Listen(long qualifier, RdmEndpoint endpoint, Consumer<RdmControl> onRequest) {
    }

    /** A listen name as this plane reaches it: its address, the region behind the name then, the spelling used. */
    private record ListenPeer(long address, Object region, int spelling) {
    }

    // A message the fabric has not taken yet, or whose completion is awaited: who to tell when it fails.
    private static final class Pending {
        final long peer;
        final byte[] bytes;
        final long since;
        final RdmAssociation owner;
        final boolean request;

        Pending(long peer, byte[] bytes, long since, RdmAssociation owner, boolean request) {
            this.peer = peer;
            this.bytes = bytes;
            this.since = since;
            this.owner = owner;
            this.request = request;
        }
    }

    /**
     * Opens the IA's control endpoint.
     *
     * @param fi libfabric
     * @param domain the IA's domain
     * @param info the IA's {@code FI_EP_RDM} entry
     * @param timeouts the protocol's timeouts
     * @param iaAddress the IA's address, 16 bytes
     */
    public RdmControlPlane(LibFabric fi, MemorySegment domain, MemorySegment info, RdmAssociation.Timeouts timeouts,
            byte[] iaAddress) {
        this.fi = fi;
        this.domain = domain;
        this.info = info;
        this.timeouts = timeouts;
        this.iaAddress = iaAddress.clone();
        this.control = new RdmEndpoint(fi, domain, info, null);
    }

    /** {@return the control endpoint's address, which the IA's requests and accepts carry} */
    public byte[] controlAddress() {
        return control.name();
    }

    /** {@return the control messages dropped as malformed or naming no association} */
    public long dropped() {
        return dropped;
    }

    /**
     * {@return the shm name of the listen endpoint at {@code qualifier}, NUL-terminated as {@code fi_av_insert} of
     * an {@code FI_ADDR_STR} takes it}
     *
     * @param qualifier the connection qualifier
     */
    public static byte[] listenName(long qualifier) {
        return listenName(qualifier, 0);
    }

    /** {@return {@link #listenName(long)} with {@code spelling} {@code /} characters after the scheme} */
    private static byte[] listenName(long qualifier, int spelling) {
        return (RdmEndpoint.SHM_SCHEME + "/".repeat(spelling) + regionName(qualifier) + "\0")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** {@return the name of the shm region of the listen endpoint at {@code qualifier}: its name without scheme} */
    private static String regionName(long qualifier) {
        return SHM_LISTEN_PREFIX.substring(RdmEndpoint.SHM_SCHEME.length()) + Long.toUnsignedString(qualifier);
    }

    /**
     * Opens the listen endpoint of a PSP or RSP.
     *
     * @param qualifier its connection qualifier
     * @param onRequest called from {@link #progress} with every well-formed request that arrives
     * @return {@code null} when it listens, or why not: the IA listens there already, or a live process (this one
     *     included) holds the qualifier's name
     * @throws dat.provider.ofi.internal.ffm.FiException when the fabric refuses the name
     */
    public String listen(long qualifier, Consumer<RdmControl> onRequest) {
        if (listens.containsKey(qualifier)) {
            return "this IA listens there";
        }
        String region = regionName(qualifier);
        long holder = ShmIntroductions.holder(region);
        if (holder > 0) {
            // Asked first, as shm's refusal of a held name removes the holder's file (ShmIntroductions#holder).
            return "process " + holder + " listens there";
        }
        byte[] name = listenName(qualifier);
        RdmEndpoint ep = new RdmEndpoint(fi, domain, info, Arrays.copyOf(name, name.length - 1),
                holder == ShmIntroductions.STALE);
        Listen added = new Listen(qualifier, ep, onRequest);
        listens.put(qualifier, added);
        listenList.add(added);
        return null;
    }

    /**
     * Closes the listen endpoint at {@code qualifier}; requests in flight to it go unanswered.
     *
     * @param qualifier the qualifier
     */
    public void unlisten(long qualifier) {
        Listen l = listens.remove(qualifier);
        listenList.remove(l);
        if (l != null) {
            // The control endpoint reaps the answers to what it sent the listener first: shm 1.17 releases a
            // message's buffer in the receiver's region then, and an endpoint of this process reaches the listener
            // through the listener's own mapping, which the close removes (docs/ofi.md, "Open").
            control.progress();
            l.endpoint().close();
        }
    }

    /**
     * A new association of the EP {@code epId}, registered so the control messages naming the EP reach it.
     *
     * @param epId the EP's id
     * @param target where the peer sends the EP's messages ({@link RdmTags#epTarget})
     * @param dataAddress the EP's data-endpoint address
     * @param readDepth the EP's incoming RDMA read depth
     * @param events the EP's connection events
     * @param flush the EP's flush
     * @param exchanges the peer's fences, checks and answers ({@link RdmAssociation.Port#exchange})
     * @return the association
     */
    public RdmAssociation associate(int epId, int target, byte[] dataAddress, int readDepth,
            BiConsumer<DatEventType, byte[]> events, Runnable flush, Consumer<RdmControl> exchanges) {
        RdmAssociation[] self = new RdmAssociation[1];
        RdmAssociation.Port port = new RdmAssociation.Port() {
            @Override
            public void sendRequest(RdmControl request) {
                enqueue(listenPeer(request.qualifier()), request, self[0], true);
            }

            @Override
            public void send(RdmControl message) {
                byte[] to = self[0].peerControl();
                if (to.length > 0) {
                    enqueue(peer(to), message, self[0], false);
                }
            }

            @Override
            public void event(DatEventType type, byte[] privateData) {
                events.accept(type, privateData);
            }

            @Override
            public void flush() {
                flush.run();
            }

            @Override
            public void exchange(RdmControl message) {
                exchanges.accept(message);
            }
        };
        self[0] = new RdmAssociation(port, timeouts, epId, target, iaAddress, control.name(), dataAddress,
                readDepth);
        associationList.remove(associations.put(epId, self[0]));
        associationList.add(self[0]);
        return self[0];
    }

    /**
     * Forgets the association of {@code epId} (the EP is freed or connects anew).
     *
     * @param epId the EP's id
     */
    public void forget(int epId) {
        associationList.remove(associations.remove(epId));
    }

    /**
     * {@code dat_cr_reject}: answers a request with {@code REJECT}.
     *
     * @param request the request
     */
    public void reject(RdmControl request) {
        if (request.controlAddress().length > 0) {
            enqueue(peer(request.controlAddress()), RdmControl.answer(RdmControl.Type.REJECT, request, 0, 0,
                    iaAddress), null, false);
        }
    }

    /**
     * The address of the listen endpoint at {@code qualifier}. shm 1.17 keeps what an endpoint learned of a name (its
     * mapping of the region, whether its mapping request went) for the endpoint's life, and a listen name outlives
     * the process that held it: a listener restarted in another process has a new region under the old name, which
     * the control endpoint would never reach through its old entry (its requests landed in the old region, and timed
     * out: OfiShmEarlyCloseTest). So the region behind the name is identified by its file ({@code /dev/shm}), and a
     * new one is inserted under a new spelling of the name, {@code /} characters before it, which shm_open ignores
     * and shm's table of names does not. Entries are never removed: shm 1.17 leaves a removed entry's state to the
     * next name given its slot. A name this process listened at and closed is inserted with a {@code /} from the
     * first (RdmEndpoint#closedHere).
     */
    private long listenPeer(long qualifier) {
        Object region = regionOf(qualifier);
        ListenPeer known = listenPeers.get(qualifier);
        if (known != null && (region == null || region.equals(known.region())
                || known.spelling() + 1 >= MAX_LISTEN_SPELLINGS)) {
            // No region (nothing listens: the request fails as never taken), the same one, or no spelling left.
            return known.address();
        }
        // A name whose endpoint this process closed: its plain spelling resolves to the closed one's unmapped region.
        int spelling = known != null ? known.spelling() + 1
                : RdmEndpoint.closedHere(listenName(qualifier, 0)) ? 1 : 0;
        byte[] name = listenName(qualifier, spelling);
        long p = control.insert(name);
        listenPeers.put(qualifier, new ListenPeer(p, region, spelling));
        if (region != null) {
            listenRegions.put(new String(name, 0, name.length - 1, StandardCharsets.US_ASCII), region);
        }
        return p;
    }

    /**
     * {@return the file of the region named for a listen endpoint at {@code qualifier}, or {@code null} when there is
     * none, or when it cannot be told (a file that cannot be read): the plane then keeps the entry it has, as it did
     * before it looked}
     */
    private static Object regionOf(long qualifier) {
        return ShmIntroductions.regionKey(regionName(qualifier));
    }

    /**
     * {@return the file a listen name had when this plane inserted it, as the endpoint's peer table spells it, or
     * {@code null} for another name or a file not known} ({@link ShmIntroductions#awaitedBy})
     */
    private Object listenRegionSentTo(String spelled) {
        return listenRegions.get(spelled);
    }

    private long peer(byte[] address) {
        String key = new String(address, StandardCharsets.ISO_8859_1);
        Long known = peers.get(key);
        if (known != null) {
            return known;
        }
        long p = control.insert(address);
        peers.put(key, p);
        return p;
    }

    private void enqueue(long peer, RdmControl m, RdmAssociation owner, boolean request) {
        ByteBuffer b = ByteBuffer.allocate(m.size());
        m.encode(b);
        pending.add(new Pending(peer, b.array(), System.nanoTime(), owner, request));
        drain(System.nanoTime());
    }

    // Posts what the fabric takes, in order; a message it refuses with an error fails its association.
    private void drain(long now) {
        while (!pending.isEmpty()) {
            Pending p = pending.peek();
            long ctx = nextContext++;
            long rc = control.send(p.peer, RdmTags.CONTROL, p.bytes, ctx);
            if (rc == -LibFabric.FI_EAGAIN) {
                if (now - p.since < timeouts.keepAlive()) {
                    return;
                }
                // Not taken for a keep-alive interval: on shm, no process holds the name (nothing listens there,
                // or the peer is gone). Its association learns it; the rest of the queue moves on.
                pending.poll();
                failed(p, true);
                continue;
            }
            pending.poll();
            if (rc == -LibFabric.FI_ENOTCONN) {
                // An endpoint of this process that closed: its name may come back as a new endpoint, inserted anew.
                peers.values().removeIf(v -> v == p.peer);
                listenPeers.replaceAll((q, l) -> l.address() == p.peer ? new ListenPeer(l.address(), SPENT,
                        l.spelling()) : l);
                failed(p, true);
            } else if (rc < 0) {
                failed(p, false);
            } else {
                inFlight.put(ctx, p);
            }
        }
    }

    private void failed(Pending p, boolean neverTaken) {
        if (p.owner == null) {
            return;
        }
        if (p.request) {
            p.owner.requestFailed(neverTaken);
        } else {
            p.owner.sendFailed();
        }
    }

    /**
     * Reads every completion of the IA's control and listen endpoints, dispatches the messages, retries the sends
     * the fabric did not take and runs the associations' timers.
     *
     * @param now the time ({@link System#nanoTime()})
     */
    public void progress(long now) {
        for (RdmEndpoint.Completion c = control.poll(); c != null; c = control.poll()) {
            completed(c, null, now);
        }
        // Copies, as a message may add or end a listen or an association, and kept, so a step allocates no list;
        // each step appends its own and takes them off again, as a step a retry runs inside this one may come.
        int from = listening.size();
        for (int i = 0; i < listenList.size(); i++) {
            listening.add(listenList.get(i));
        }
        try {
            for (int i = from; i < listening.size(); i++) {
                Listen l = listening.get(i);
                for (RdmEndpoint.Completion c = l.endpoint().poll(); c != null; c = l.endpoint().poll()) {
                    completed(c, l, now);
                }
            }
        } finally {
            truncate(listening, from);
        }
        drain(now);
        from = ticking.size();
        for (int i = 0; i < associationList.size(); i++) {
            ticking.add(associationList.get(i));
        }
        try {
            for (int i = from; i < ticking.size(); i++) {
                ticking.get(i).tick(now);
            }
        } finally {
            truncate(ticking, from);
        }
    }

    /**
     * Takes a list back to its first {@code size} elements without allocating (a step's copies, see
     * {@link #progress}).
     *
     * @param list the list
     * @param size the size to keep
     */
    public static void truncate(List<?> list, int size) {
        for (int i = list.size() - 1; i >= size; i--) {
            list.remove(i);
        }
    }

    /** {@link #progress}'s copies of the listens and associations, empty between steps. */
    private final List<Listen> listening = new ArrayList<>();
    private final List<RdmAssociation> ticking = new ArrayList<>();

    private void completed(RdmEndpoint.Completion c, Listen on, long now) {
        if (c.received() == null) {
            Pending p = inFlight.remove(c.context());
            if (p != null && c.error() != 0) {
                failed(p, false);
            }
            return;
        }
        RdmControl m = RdmControl.decode(ByteBuffer.wrap(c.received()));
        if (m == null) {
            dropped++;
            return;
        }
        if (m.type() == RdmControl.Type.REQUEST) {
            if (on == null || m.qualifier() != on.qualifier()) {
                dropped++;
            } else {
                on.onRequest().accept(m);
            }
            return;
        }
        RdmAssociation a = associations.get(m.receiverEp());
        if (a != null && a.onControl(m, now)) {
            return;
        }
        dropped++;
        RdmControl answer = RdmAssociation.orphanAnswer(m, iaAddress);
        if (answer != null && m.controlAddress().length > 0) {
            enqueue(peer(m.controlAddress()), answer, null, false);
        }
    }

    /**
     * Waits, a bounded while, until the fabric took the messages it refused so far and every live peer took the
     * control endpoint's name in. shm 1.17 queues its mapping request ahead of the first message to an endpoint and
     * answers EAGAIN until that endpoint's process took the request in; a close with one queued leaves the peer to map
     * a region the close removed, and its {@code smr_progress_connreq} then reads through the missing mapping
     * (SIGSEGV in the peer's process). A refused message is retried for a keep-alive interval from its first try, as
     * {@link #drain} would; the name is waited for while its peer's process lives ({@link ShmIntroductions}), for at
     * most the linger timeout, even when the message it preceded was given up long ago (a peer stopped, or not
     * progressing, past the keep-alive interval). Received messages are dropped: the IA is closing. In-process
     * listeners of this plane are progressed here; another IA's progress thread takes care of its own.
     */
    private void settle() {
        long start = System.nanoTime();
        boolean told = false;
        while (true) {
            long now = System.nanoTime();
            while (!pending.isEmpty()) {
                Pending p = pending.peek();
                long rc = control.send(p.peer, RdmTags.CONTROL, p.bytes, nextContext++);
                if (rc == -LibFabric.FI_EAGAIN && now - p.since < timeouts.keepAlive()) {
                    break;
                }
                pending.poll();
            }
            long awaitedBy = pending.isEmpty()
                    ? ShmIntroductions.awaitedBy(control.name(), this::listenRegionSentTo) : 0;
            if (pending.isEmpty() && awaitedBy == 0) {
                return;
            }
            if (now - start >= timeouts.linger()) {
                if (awaitedBy != 0) {
                    LOG.log(System.Logger.Level.WARNING, () -> "closing after " + millis(timeouts.linger())
                            + " ms although process " + awaitedBy + " has not taken in this IA's shm name yet:"
                            + " if it resumes, libfabric 1.17's shm may crash it (docs/ofi.md)");
                }
                return;
            }
            if (awaitedBy != 0 && !told) {
                told = true;
                LOG.log(System.Logger.Level.INFO, () -> "closing: waiting up to " + millis(timeouts.linger())
                        + " ms for process " + awaitedBy + " to take in this IA's shm name (it is stopped, or not"
                        + " progressing)");
            }
            while (control.poll() != null) {
                // completions of a closing plane tell nobody
            }
            for (Listen l : listens.values()) {
                while (l.endpoint().poll() != null) {
                    // requests to a closing IA's listeners
                }
            }
            LockSupport.parkNanos(pending.isEmpty() ? NAME_PAUSE_NANOS : SETTLE_PAUSE_NANOS);
        }
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }

    /** Closes the listen endpoints and the control endpoint; associations are the EPs' to end first. */
    @Override
    public void close() {
        settle();
        for (Iterator<Listen> i = listens.values().iterator(); i.hasNext();) {
            i.next().endpoint().close();
            i.remove();
        }
        listenList.clear();
        control.close();
    }
}
