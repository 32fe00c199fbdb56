// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.FidPep;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.ffm.SockaddrIn;
import dat.provider.ofi.internal.rdm.RdmControl;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;

/**
 * The passive endpoint of a PSP or RSP ({@code fi_passive_ep} on the IA's address with the qualifier as its TCP port,
 * bound to the IA's EQ, {@code fi_listen}): each {@code FI_CONNREQ} becomes an {@link OfiCr} on the listener's CR
 * EVD. A request the EVD cannot take is rejected at once.
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

    final OfiIa ia;
    final Listener listener;
    final MemorySegment pep;
    final MemorySegment info;
    final int port;
    /** Requests that came here and are not answered yet: rejected before the passive endpoint closes. */
    final Set<OfiCr> pending = new HashSet<>();

    OfiPassive(OfiIa ia, Listener listener, String call, int port) {
        this.ia = ia;
        this.listener = listener;
        if (ia.rdm != null) {
            this.pep = MemorySegment.NULL;
            this.info = MemorySegment.NULL;
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
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = Fi.fi_passive_ep(ia.fabric, copy, out);
            if (rc != 0) {
                ia.fi.fi_freeinfo(copy);
                throw failed(call, "fi_passive_ep", rc, port);
            }
            p = out.get(ADDRESS, 0).reinterpret(FidPep.SIZEOF);
            rc = Fi.fi_ep_bind(p, ia.eq, 0);
            if (rc == 0) {
                rc = Fi.fi_listen(p);
            }
            if (rc != 0) {
                Fi.fi_close(p);
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
        ia.eqOwners.put(p.address(), listener);
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
        if (!listener.takesRequest()) {
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
        if (!listener.takesRequest()) {
            ia.rdm.reject(request);
            return;
        }
        OfiCr cr = new OfiCr(ia, this, request);
        pending.add(cr);
        if (!listener.crEvd().request(listener.handle(), port, cr)) {
            cr.rejectQuietly();
        }
    }

    /** Stops listening; requests already queued stay answerable until the IA closes. */
    void close() {
        for (OfiCr cr : new ArrayList<>(pending)) {
            cr.rejectQuietly();
        }
        if (ia.rdm != null) {
            ia.eqOwners.remove(-(long) port);
            ia.rdm.unlisten(port);
            return;
        }
        ia.eqOwners.remove(pep.address());
        Fi.fi_close(pep);
        ia.fi.fi_freeinfo(info);
    }
}
