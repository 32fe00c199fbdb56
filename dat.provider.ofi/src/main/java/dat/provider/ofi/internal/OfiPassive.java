// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiEqAttr;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.FiWaitPollfd;
import dat.provider.ofi.internal.ffm.FidPep;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.ffm.Pollfd;
import dat.provider.ofi.internal.ffm.SockaddrIn;
import dat.provider.ofi.internal.ffm.Sockets;
import dat.provider.ofi.internal.rdm.RdmControl;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;

/**
 * The passive endpoint of a PSP or RSP ({@code fi_passive_ep} on the IA's address with the qualifier as its TCP port,
 * bound to an event queue of its own, {@code fi_listen}): each {@code FI_CONNREQ} becomes an {@link OfiCr} on the
 * listener's CR EVD. A request the EVD cannot take is rejected at once.
 *
 * <p><b>An event queue of its own.</b> tcp 1.17 accepts a TCP connection on the passive endpoint in an EQ read and
 * keeps it in that EQ's wait set, with a pointer to the passive endpoint, until its connection request arrives; a
 * later read builds the {@code FI_CONNREQ} from the passive endpoint ({@code fi_dupinfo} of its info, its EQ).
 * {@code fi_close} of the passive endpoint frees it and leaves those connections behind, so with the IA's shared EQ a
 * request arriving after the close was built from freed memory: a JVM crash in {@code strlen}, or the request
 * delivered on whichever PSP's passive endpoint got the memory next. With an EQ per passive endpoint, closed with
 * it, nothing reads those connections again. Before closing, the requests that already arrived are read and
 * rejected, and the connections whose request has not arrived are shut down (found in the EQ's wait set), so their
 * requesters hear that nobody listens and no descriptor is left behind ({@code OfiPassiveTest}).
 *
 * <p><b>{@code dat_psp_free}.</b> It has "no effect on previously generated Connection Requested Events. This includes
 * Connection Request instances": a request already delivered stays answerable, and {@code fi_reject} goes through
 * the passive endpoint, so the passive endpoint stays open (rejecting new requests as if nobody listened) until the
 * last of them is answered, and the port is free again then.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiPassive {

    /** A PSP or RSP. */
    interface Listener {
        OfiPassive passive();

        DatHandle handle();

        OfiEvd crEvd();

        /** {@return the EP an RSP reserved, or {@code null}} */
        OfiEp reservedEp();

        /** {@return whether it takes another request (an RSP takes one)} */
        boolean takesRequest();
    }

    /** The size asked for the EQ (libfabric's util EQs, tcp's among them, are lists that grow past it). */
    private static final int EQ_SIZE = 64;
    /** More descriptors than a wait set of one passive endpoint holds in any sane state: not read then. */
    private static final long MAX_WAIT_FDS = 1 << 16;

    final OfiIa ia;
    final Listener listener;
    final MemorySegment pep;
    final MemorySegment info;
    final int port;
    /** The passive endpoint's own event queue (see the class comment). */
    private final MemorySegment eq;
    private final OfiEq eqReader;
    /** Requests that came here and are not answered yet: the passive endpoint stays open while there are any. */
    final Set<OfiCr> pending = new HashSet<>();
    /** {@link #close} was called: no request is taken any more. */
    private boolean closing;
    /** The passive endpoint and its EQ are closed. */
    private boolean released;

    OfiPassive(OfiIa ia, Listener listener, String call, int port) {
        this.ia = ia;
        this.listener = listener;
        if (ia.rdm != null) {
            this.pep = MemorySegment.NULL;
            this.info = MemorySegment.NULL;
            this.eq = MemorySegment.NULL;
            this.eqReader = null;
            this.port = OfiRdmLink.listen(ia, call, port, this::requestRdm);
            // A listener of the RDM protocol has no fid: its key among the EQ's owners is its negated qualifier,
            // never a fid's address, so the IA's close and dat_cr_handoff find it as they find the others.
            ia.eqOwners.put(-(long) this.port, listener);
            return;
        }
        MemorySegment copy = ia.fi.fi_dupinfo(ia.info);
        MemorySegment src = FiInfo.srcAddr(copy);
        if (src.address() != 0) {
            short p = (short) port;
            SockaddrIn.sinPort(src.reinterpret(SockaddrIn.SIZEOF),
                    ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? p : Short.reverseBytes(p));
        }
        MemorySegment p;
        MemorySegment q;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment attr = arena.allocate(FiEqAttr.LAYOUT);
            FiEqAttr.size(attr, EQ_SIZE);
            FiEqAttr.waitObj(attr, LibFabric.FI_WAIT_NONE);
            int rc = Fi.fi_eq_open(ia.fabric, attr, out);
            if (rc != 0) {
                ia.fi.fi_freeinfo(copy);
                throw failed(call, "fi_eq_open", rc, port);
            }
            q = out.get(ADDRESS, 0);
            rc = Fi.fi_passive_ep(ia.fabric, copy, out);
            if (rc != 0) {
                Fi.fi_close(q);
                ia.fi.fi_freeinfo(copy);
                throw failed(call, "fi_passive_ep", rc, port);
            }
            p = out.get(ADDRESS, 0).reinterpret(FidPep.SIZEOF);
            rc = Fi.fi_ep_bind(p, q, 0);
            if (rc == 0) {
                rc = Fi.fi_listen(p);
            }
            if (rc != 0) {
                Fi.fi_close(p);
                Fi.fi_close(q);
                ia.fi.fi_freeinfo(copy);
                throw failed(call, "fi_listen", rc, port);
            }
            MemorySegment sa = arena.allocate(128, 8);
            MemorySegment len = arena.allocate(JAVA_LONG);
            len.set(JAVA_LONG, 0, 128);
            this.port = Fi.fi_getname(p, sa, len) == 0 ? OfiIa.port(sa) : port;
        }
        this.pep = p;
        this.info = copy;
        this.eq = q;
        this.eqReader = new OfiEq(ia, q);
        ia.eqOwners.put(p.address(), listener);
        ia.passives.add(this);
    }

    /**
     * Reads the passive endpoint's EQ: accepts the connections waiting, turns the requests that arrived into events.
     * Under the IA's lock.
     *
     * @return whether it found anything
     */
    boolean progress() {
        return !released && eqReader.drain();
    }

    private DatException failed(String call, String what, int rc, int port) {
        if (rc == -LibFabric.FI_EADDRINUSE) {
            return new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + port + " is in use on "
                    + ia.address().getHostAddress());
        }
        return new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE, call + ": "
                + what + " on port " + port + " failed: " + ia.fi.fi_strerror(-rc) + " (" + rc + ")");
    }

    /** FI_CONNREQ. Under the IA's lock. */
    void request(MemorySegment requestInfo, byte[] data) {
        MemorySegment ri = requestInfo.reinterpret(FiInfo.SIZEOF);
        if (closing || !listener.takesRequest()) {
            OfiCr.rejectRequest(ia, pep, ri, false);
            return;
        }
        OfiCr cr = new OfiCr(ia, this, ri, data);
        pending.add(cr);
        if (!listener.crEvd().request(listener.handle(), port, cr)) {
            cr.rejectQuietly();
        }
    }

    /** A request of the RDM protocol at this listener. Under the IA's lock. */
    private void requestRdm(RdmControl request) {
        if (closing || !listener.takesRequest()) {
            ia.rdm.reject(request);
            return;
        }
        OfiCr cr = new OfiCr(ia, this, request);
        pending.add(cr);
        if (!listener.crEvd().request(listener.handle(), port, cr)) {
            cr.rejectQuietly();
        }
    }

    /**
     * Stops listening ({@code dat_psp_free}, {@code dat_rsp_free}): a request that arrives from now on is rejected as
     * if nobody listened; one already delivered stays answerable, and the passive endpoint closes when the last of
     * them is answered (or the IA closes and rejects them). Under the IA's lock.
     */
    void close() {
        closing = true;
        if (ia.rdm != null) {
            // The protocol's requests for this qualifier are refused as if nobody listened from now on.
            ia.rdm.unlisten(port);
        }
        releaseWhenAnswered();
    }

    /**
     * Shuts down the TCP connections tcp accepted for this passive endpoint and keeps in its EQ's wait set until their
     * connection request arrives (a {@code FI_WAIT_POLLFD} wait object: tcp's). The wait set holds the listening
     * socket, libfabric's signalling socket pair (AF_UNIX) and those connections; only the connections are shut
     * down, and libfabric closes them when it reads them next.
     *
     * @return how many it shut down
     */
    private int shutDownWaitingConnections() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment obj = arena.allocate(JAVA_INT);
            if (Fi.fi_control(eq, LibFabric.FI_GETWAITOBJ, obj) != 0
                    || obj.get(JAVA_INT, 0) != LibFabric.FI_WAIT_POLLFD) {
                return 0;
            }
            MemorySegment set = arena.allocate(FiWaitPollfd.LAYOUT);
            int rc = Fi.fi_control(eq, LibFabric.FI_GETWAIT, set);
            long n = FiWaitPollfd.nfds(set);
            if ((rc != 0 && rc != -LibFabric.FI_ETOOSMALL) || n <= 0 || n > MAX_WAIT_FDS) {
                return 0;
            }
            MemorySegment fds = arena.allocate(Pollfd.LAYOUT, n);
            FiWaitPollfd.fd(set, fds);
            FiWaitPollfd.nfds(set, n);
            if (Fi.fi_control(eq, LibFabric.FI_GETWAIT, set) != 0) {
                return 0;
            }
            int ended = 0;
            for (long i = 0; i < Math.min(n, FiWaitPollfd.nfds(set)); i++) {
                int fd = Pollfd.fd(fds.asSlice(i * Pollfd.SIZEOF, Pollfd.SIZEOF));
                int family = Sockets.intOption(fd, Sockets.SOL_SOCKET, Sockets.SO_DOMAIN);
                if ((family == LibFabric.AF_INET || family == LibFabric.AF_INET6)
                        && Sockets.intOption(fd, Sockets.SOL_SOCKET, Sockets.SO_ACCEPTCONN) == 0
                        && Sockets.shutdown(fd, Sockets.SHUT_RDWR) == 0) {
                    ended++;
                }
            }
            return ended;
        }
    }

    /** A request that came here was answered. Under the IA's lock. */
    void answered(OfiCr cr) {
        pending.remove(cr);
        releaseWhenAnswered();
    }

    private void releaseWhenAnswered() {
        if (closing && pending.isEmpty() && !released && ia.rdm != null) {
            released = true;
            ia.eqOwners.remove(-(long) port, listener);
        } else if (closing && pending.isEmpty() && !released) {
            // Requests that already arrived are rejected now rather than left in an EQ nobody reads; a shut down
            // connection reads as ended in the next read, which frees it without touching the passive endpoint.
            eqReader.drain();
            // tcp 1.17's way of accepting (the class comment); another provider's EQ wait set is not known to be so
            // (libfabric 1.17's net crashed in fi_control of it).
            boolean tcp = "tcp".equals(ia.entry.provider());
            for (int round = 0; tcp && round < 4 && shutDownWaitingConnections() > 0; round++) {
                eqReader.drain();
            }
            released = true;
            ia.passives.remove(this);
            ia.eqOwners.remove(pep.address());
            Fi.fi_close(pep);
            Fi.fi_close(eq);
            eqReader.close();
            ia.fi.fi_freeinfo(info);
        }
    }
}
