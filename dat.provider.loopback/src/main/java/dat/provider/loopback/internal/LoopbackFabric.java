// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The JVM-wide "network" of the loopback provider: which IA name has which address, and which PSP or RSP
 * listens at an (address, connection qualifier).
 *
 * <p>Each IA name gets a loopback address, {@code 127.0.1.1}, {@code 127.0.1.2}, ..., the lowest free one, for as
 * long as an IA of that name is open; two opens of the same name share it, and the last close frees it.
 *
 * <p>{@link #connLock} serialises every connection state change (connect, accept, reject, handoff,
 * disconnect, break, free) of every EP of the JVM: connection management is the control path, and one lock
 * makes the two-sided transitions atomic without an ordering protocol between EPs. Lock order, outermost
 * first: IA lifecycle lock, {@link #connLock}, EP send locks (lower {@link LoopbackEp#id} first), EP recv
 * lock or SRQ lock, EVD lock. The data path never takes {@link #connLock}: when it must break a connection
 * it marks the connection and breaks it after releasing its own locks.
 */
final class LoopbackFabric {

    static final LoopbackFabric INSTANCE = new LoopbackFabric();

    /** First qualifier {@code dat_psp_create_any} hands out; ports below are left to the consumer. */
    private static final long ANY_QUAL_BASE = 0x10000L;

    final ReentrantLock connLock = new ReentrantLock();

    /** 127.0.1.1 .. 127.0.254.254. */
    private static final int MAX_ADDRESSES = 254 * 254;

    private final Map<String, Lease> leases = new HashMap<>();
    private final Map<InetAddress, String> names = new HashMap<>();
    private final BitSet used = new BitSet();
    /** Every live EP of the JVM: each delivery runs under one of their send locks. */
    private final Set<LoopbackEp> eps = ConcurrentHashMap.newKeySet();
    /** Guarded by {@link #connLock}. */
    private final Map<Key, ServicePoint> listeners = new HashMap<>();
    private long nextAnyQual = ANY_QUAL_BASE;
    private long nextPortQual = 1;
    private ScheduledThreadPoolExecutor timer;

    private record Key(InetAddress address, long connQual) {
    }

    private LoopbackFabric() {
    }

    /** The address of an IA name while an IA of that name is open. */
    private static final class Lease {
        final InetAddress address;
        final int index;
        int users;

        Lease(InetAddress address, int index) {
            this.address = address;
            this.index = index;
        }
    }

    /**
     * Takes the address of an IA name for one open IA: the name's current address if an IA of that name is open,
     * else the lowest free one. Every open is matched by one {@link #release}.
     *
     * @param iaName an IA name
     * @return its address while any IA of that name is open
     * @throws DatException {@code DAT_INSUFFICIENT_RESOURCES} when 254 x 254 names are open at once
     */
    synchronized InetAddress acquire(String iaName) {
        Lease lease = leases.get(iaName);
        if (lease == null) {
            int index = used.nextClearBit(0);
            if (index >= MAX_ADDRESSES) {
                throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                        "no loopback address left for IA " + iaName + ": " + leases.size() + " IA names are open");
            }
            lease = new Lease(address(iaName, index), index);
            used.set(index);
            leases.put(iaName, lease);
            names.put(lease.address, iaName);
        }
        lease.users++;
        return lease.address;
    }

    /**
     * Gives back what {@link #acquire} took: when the last IA of a name closes, its address is free again.
     * (Regression: addresses were never returned, and after 64,516 distinct names every open was refused.)
     *
     * @param iaName the closed IA's name
     */
    synchronized void release(String iaName) {
        Lease lease = leases.get(iaName);
        if (lease != null && --lease.users == 0) {
            leases.remove(iaName);
            names.remove(lease.address);
            used.clear(lease.index);
        }
    }

    /**
     * {@return the address of the IA {@code iaName} if it is open, else the one an open would take now}
     *
     * @param iaName an IA name
     */
    synchronized InetAddress peek(String iaName) {
        Lease lease = leases.get(iaName);
        return lease != null ? lease.address : address(iaName, Math.min(used.nextClearBit(0), MAX_ADDRESSES - 1));
    }

    private static InetAddress address(String iaName, int index) {
        byte[] bytes = {127, 0, (byte) (1 + index / 254), (byte) (1 + index % 254)};
        try {
            return InetAddress.getByAddress(iaName, bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4-byte address is always valid", e);
        }
    }

    void addEp(LoopbackEp ep) {
        eps.add(ep);
    }

    void removeEp(LoopbackEp ep) {
        eps.remove(ep);
    }

    /**
     * Returns once every copy that was under way when it was called has finished. Every copy into or out of
     * registered memory (a send's delivery, an RDMA write or read) runs under the send lock of the EP that executes
     * it, and checks that its regions are open under that lock first: taking and releasing each live EP's send lock
     * after a region was marked closed therefore waits out the copies that saw it open, and later ones see it closed.
     * (Regression: dat_lmr_free returned while a 64 KiB delivery still wrote into the region.) Control path only;
     * the caller holds no send lock of another EP.
     */
    void quiesceDeliveries() {
        for (LoopbackEp ep : eps) {
            ep.sendLock.lock();
            try {
                // Nothing to do under it: having held it is the point.
            } finally {
                ep.sendLock.unlock();
            }
        }
    }

    /**
     * {@return whether some IA name of this JVM has {@code address}}
     *
     * @param address an address
     */
    synchronized boolean isKnown(InetAddress address) {
        return names.containsKey(address);
    }

    /**
     * Starts listening. Caller holds {@link #connLock}.
     *
     * @param sp the PSP or RSP
     * @param call the DAT call, for the message
     */
    void listen(ServicePoint sp, String call) {
        Key key = new Key(sp.owner().address(), sp.connQual());
        if (listeners.containsKey(key)) {
            throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + sp.connQual()
                    + " is already listened on at " + key.address().getHostAddress());
        }
        listeners.put(key, sp);
    }

    /**
     * Picks a free qualifier at {@code address}. Caller holds {@link #connLock}.
     *
     * @param address the IA address
     * @return a qualifier nothing listens on
     */
    long freeQualifier(InetAddress address) {
        while (listeners.containsKey(new Key(address, nextAnyQual))) {
            nextAnyQual++;
        }
        return nextAnyQual++;
    }

    /** Stops listening if {@code sp} is the listener there. Caller holds {@link #connLock}. */
    void unlisten(ServicePoint sp) {
        listeners.remove(new Key(sp.owner().address(), sp.connQual()), sp);
    }

    /** Caller holds {@link #connLock}. */
    ServicePoint listener(InetAddress address, long connQual) {
        return listeners.get(new Key(address, connQual));
    }

    /** {@return a fresh local port qualifier for an active EP. Caller holds {@link #connLock}.} */
    long nextPortQual() {
        return nextPortQual++;
    }

    /**
     * Runs {@code task} after {@code micros}, on a daemon thread: only connection timeouts use it, never the
     * data path.
     */
    synchronized Future<?> schedule(Runnable task, long micros) {
        if (timer == null) {
            timer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "dat-loopback-timer");
                t.setDaemon(true);
                return t;
            });
            timer.setRemoveOnCancelPolicy(true);
        }
        return timer.schedule(task, micros, TimeUnit.MICROSECONDS);
    }
}
