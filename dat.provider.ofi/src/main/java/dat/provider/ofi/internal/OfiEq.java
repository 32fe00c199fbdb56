// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiEqCmEntry;
import dat.provider.ofi.internal.ffm.FiEqErrEntry;
import dat.provider.ofi.internal.ffm.FiOpsEq;
import dat.provider.ofi.internal.ffm.FidEq;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The reader of an event queue: the IA's, which every EP's endpoint reports to ({@code FI_CONNECTED},
 * {@code FI_SHUTDOWN} and error entries go to the EP whose endpoint they name), or a passive endpoint's own
 * ({@code FI_CONNREQ} to its PSP or RSP; see {@link OfiPassive} for why each has its own). An event for an endpoint
 * jDAT already closed finds no owner and is dropped (a request's {@code fi_info} is freed). Under the IA's lock.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiEq {

    /** The entry and the largest cm_data any provider carries. */
    private static final long BUFFER = FiEqCmEntry.SIZEOF + 4096;

    private final OfiIa ia;
    private final MemorySegment eq;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment event = arena.allocate(JAVA_INT);
    private final MemorySegment buf = arena.allocate(BUFFER, 8);
    private final MemorySegment err = arena.allocate(FiEqErrEntry.LAYOUT);

    private final MemorySegment read;

    OfiEq(OfiIa ia, MemorySegment eq) {
        this.ia = ia;
        this.eq = eq;
        this.read = Fi.slot(eq, FidEq.OPS, FiOpsEq.READ);
    }

    void close() {
        arena.close();
    }

    /**
     * Reads every event the EQ holds.
     *
     * @return whether it read anything
     */
    boolean drain() {
        boolean found = false;
        while (true) {
            long rc = Fi.eqRead(read, eq, event, buf, BUFFER);
            if (rc > 0) {
                found = true;
                dispatch(event.get(JAVA_INT, 0), rc);
            } else if (rc == -LibFabric.FI_EAVAIL) {
                err.fill((byte) 0);
                if (Fi.fi_eq_readerr(eq, err) <= 0) {
                    return found;
                }
                found = true;
                error();
            } else {
                return found;
            }
        }
    }

    private void dispatch(int type, long length) {
        MemorySegment fid = FiEqCmEntry.fid(buf);
        Object owner = ia.eqOwners.get(fid.address());
        byte[] data = length > FiEqCmEntry.SIZEOF ? buf.asSlice(FiEqCmEntry.SIZEOF, length - FiEqCmEntry.SIZEOF)
                .toArray(JAVA_BYTE) : null;
        if (OfiConfig.TRACE) {
            OfiConfig.trace("eq event " + type + " fid 0x" + Long.toHexString(fid.address()) + " owner " + owner
                    + " data " + (data == null ? 0 : data.length));
        }
        switch (type) {
            case LibFabric.FI_CONNREQ -> {
                MemorySegment info = FiEqCmEntry.info(buf);
                if (owner instanceof OfiPassive.Listener l) {
                    l.passive().request(info, data == null ? new byte[0] : data);
                } else {
                    ia.fi.fi_freeinfo(info);
                }
            }
            case LibFabric.FI_CONNECTED -> {
                if (owner instanceof OfiEp ep) {
                    ep.connection.onConnected(data);
                }
            }
            case LibFabric.FI_SHUTDOWN -> {
                if (owner instanceof OfiEp ep) {
                    ep.connection.onShutdown();
                }
            }
            default -> {
            }
        }
    }

    private void error() {
        MemorySegment fid = FiEqErrEntry.fid(err);
        Object owner = ia.eqOwners.get(fid.address());
        long size = FiEqErrEntry.errDataSize(err);
        MemorySegment errData = FiEqErrEntry.errData(err);
        byte[] data = size > 0 && errData.address() != 0 ? errData.reinterpret(size).toArray(JAVA_BYTE) : null;
        if (OfiConfig.TRACE) {
            OfiConfig.trace("eq error " + FiEqErrEntry.err(err) + " fid 0x" + Long.toHexString(fid.address())
                    + " owner " + owner + " data " + (data == null ? 0 : data.length));
        }
        if (owner instanceof OfiEp ep) {
            ep.connection.onError(FiEqErrEntry.err(err), data);
        }
    }
}
