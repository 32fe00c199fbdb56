// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.DatException;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.Errno;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import dat.spi.AbstractPsp;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A public service point ({@code dat_psp_create}, {@code dat_psp_create_any}): an rdma_cm id listening on the IA's
 * address, on the rdma_cm TCP port {@code conn_qual} maps to ({@link CmWire#port}).
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsPsp extends AbstractPsp<VerbsIa, VerbsEvd> {

    private static final int BACKLOG = 128;

    private final VerbsIa ia;
    private final long key;
    private final MemorySegment id;
    private final long connQual;

    VerbsPsp(VerbsIa ia, String call, long connQual, VerbsEvd evd, DatPspFlags flags) {
        super(ia, evd, flags);
        this.ia = ia;
        this.key = ia.newKey();
        this.id = listen(ia, call, key, connQual);
        this.connQual = connQual != 0 ? connQual : ia.cm.rdma_get_src_port(id);
        ia.cmOwners.put(key, this);
    }

    /**
     * @param call the DAT call, for messages
     * @param connQual a connection qualifier
     * @throws DatException {@code DAT_INVALID_PARAMETER} unless it is a port rdma_cm can listen on
     */
    static void checkQualifier(String call, long connQual) {
        if (connQual == 0) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": conn_qual 0 names no rdma_cm"
                    + " TCP port (qualifiers map to ports as uDAPL maps them: 1..0xFFFF as they are, larger ones"
                    + " to 33534 + qual % 32001)");
        }
    }

    /**
     * Creates an id with {@code key} as its context, binds it to the IA's address and {@code connQual} (0: any
     * free port) and listens.
     *
     * @return the listening id
     */
    static MemorySegment listen(VerbsIa ia, String call, long key, long connQual) {
        MemorySegment listening = MemorySegment.NULL;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment out = scratch.allocate(ADDRESS);
            ia.cm.rdma_create_id(ia.cmChannel, out, MemorySegment.ofAddress(key), LibRdmacm.RDMA_PS_TCP);
            listening = out.get(ADDRESS, 0).reinterpret(RdmaCmId.SIZE);
            ia.cm.rdma_bind_addr(listening, VerbsIa.sockaddr(scratch, ia.address(), CmWire.port(connQual)));
            ia.cm.rdma_listen(listening, BACKLOG);
            return listening;
        } catch (NativeCallException e) {
            if (listening.address() != 0) {
                ia.cm.rdma_destroy_id(listening);
            }
            if (e.errno() == Errno.EADDRINUSE) {
                throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + connQual
                        + " is already listened on at " + ia.address().getHostAddress());
            }
            throw VerbsIa.resources(call, e);
        }
    }

    /** Stops listening; requests already delivered stay valid. */
    @Override
    protected void destroy() {
        markClosed();
        ia.cmOwners.remove(key);
        ia.cm.rdma_destroy_id(id);
    }

    /** A connection request arrived (progress thread). */
    void connectionRequest(VerbsProgress.CmEvent e) {
        VerbsCr cr = new VerbsCr(ia, null, connQual, e);
        crEvd().postConnectionRequest(this, connQual, cr);
    }

    @Override
    public long connQual() {
        return connQual;
    }
}
