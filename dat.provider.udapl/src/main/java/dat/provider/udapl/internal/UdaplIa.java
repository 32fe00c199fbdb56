// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatCr;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatHandleType;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.AbstractCno;
import dat.spi.AbstractIa;
import dat.spi.DatArgs;
import dat.spi.DatIaInfo;
import dat.spi.NoSrq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An IA of a C uDAPL provider ({@code dat_ia_open} through libdat2): every DAT object under it is a C object that
 * one Java object owns, and every C call on it is made with the Java object checked open first.
 *
 * <p><b>Why no dead handle reaches C.</b> libdat2's wrappers check a handle only for NULL and then dereference it
 * into the provider, so a freed handle would be a use after free in C. Every Java object holds its C handle and
 * calls C only under {@link #lock} (also the shell's lifecycle lock) after {@code requireOpen}, and its free runs
 * under the same lock: once it is marked closed no call reaches its handle. The one C call made without the lock is
 * {@code dat_evd_wait} (it blocks); it runs in bounded slices under the EVD's own {@code use} lock, which the EVD's
 * free (and the free of an EP whose events it carries) takes before calling C.
 *
 * <p><b>C handles to Java objects.</b> Events name C handles; {@link #ep}, {@link #sp}, {@link #cr} and {@link #any}
 * resolve them through concurrent maps the objects enter at creation and leave at their free, so an event naming a
 * handle the bridge did not create, or one already freed, is never turned into a Java object.
 */
// Restricted methods on purpose: reached only after UdaplProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class UdaplIa extends AbstractIa<UdaplIa, UdaplPz, UdaplEvd, NoSrq<UdaplIa, UdaplPz>, UdaplEp>
        implements UdaplEvents.Handles {

    static final System.Logger LOG = System.getLogger("dat.provider.udapl");

    /** {@code AF_INET}. */
    static final short AF_INET = 2;
    /** {@code AF_INET6}. */
    static final short AF_INET6 = 10;

    final LibDat2 lib;
    final ReentrantLock lock;
    /** Lives until {@code dat_ia_close}: EVD scratch that a waiter may read. */
    final Arena arena = Arena.ofShared();
    /** The C IA handle. */
    final MemorySegment handle;
    final Map<Long, UdaplEp> eps = new ConcurrentHashMap<>();
    final Map<Long, DatHandle> sps = new ConcurrentHashMap<>();
    final Map<Long, UdaplCr> crs = new ConcurrentHashMap<>();
    final Map<Long, DatHandle> all = new ConcurrentHashMap<>();
    final Map<Integer, UdaplLmr> lmrs = new ConcurrentHashMap<>();
    final Map<Long, UdaplRmr> rmrs = new ConcurrentHashMap<>();
    /**
     * The first C free that failed, or {@code null}. OFA's {@code dapls_ia_free} asserts that every list of the IA is
     * empty, and an assertion aborts the process: once C kept an object the Java side has let go of, the C IA is
     * left allocated at {@code dat_ia_close} rather than closed into that abort. Guarded by {@link #lock}.
     */
    String leaked;
    private final UdaplAgents agents;

    private UdaplIa(String name, LibDat2 lib, MemorySegment handle, MemorySegment asyncEvd, DatIaInfo info,
                    ReentrantLock lock) {
        super(name, info.iaAttr().iaAddressPtr(), info.providerAttr(), info.iaAttr(), lock);
        this.lib = lib;
        this.lock = lock;
        this.handle = handle;
        this.agents = new UdaplAgents("dat-udapl-cno-agent-" + name);
        UdaplEvd async = new UdaplEvd(this, asyncEvd, UdaplEvd.ASYNC_FLAG, null, true);
        all.put(asyncEvd.address(), async);
        initAsyncEvd(async);
    }

    /**
     * {@code dat_ia_open} of a registry entry.
     *
     * @param lib libdat2
     * @param entry the entry, which opened at discovery
     * @param asyncQlen the async EVD's length
     * @return the open IA
     */
    static UdaplIa open(LibDat2 lib, UdaplProvider.Entry entry, int asyncQlen) {
        int max = entry.ia().iaAttr().maxEvdQlen();
        if (asyncQlen < 1 || asyncQlen > max) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_ia_open: async_evd_qlen " + asyncQlen
                    + " is outside 1.." + max);
        }
        MemorySegment ia;
        MemorySegment evd;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment name = local.allocateFrom(entry.iaName());
            MemorySegment evdOut = local.allocate(ADDRESS);
            MemorySegment iaOut = local.allocate(ADDRESS);
            int rc = lib.iaOpenv(name, asyncQlen, evdOut, iaOut,
                    entry.threadSafe() ? LibDat2.DAT_TRUE : LibDat2.DAT_FALSE);
            check("dat_ia_open", rc);
            ia = iaOut.get(ADDRESS, 0);
            evd = evdOut.get(ADDRESS, 0);
        }
        DatIaInfo info;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment iaAttr = local.allocate(DatStructs.DAT_IA_ATTR);
            MemorySegment providerAttr = local.allocate(DatStructs.DAT_PROVIDER_ATTR);
            MemorySegment evdOut = local.allocate(ADDRESS);
            int rc = lib.iaQuery(ia, evdOut, DatStructs.DAT_IA_FIELD_ALL, iaAttr, DatStructs.DAT_PROVIDER_FIELD_ALL,
                    providerAttr);
            if (!DatStatus.ok(rc)) {
                lib.iaClose(ia, LibDat2.DAT_CLOSE_ABRUPT_FLAG);
                throw DatStatus.exception("dat_ia_query", rc);
            }
            info = UdaplAttributes.windowsProbed(lib, ia, new DatIaInfo(entry.iaName(), "",
                    UdaplAttributes.providerAttr(providerAttr, UdaplConfig.PROVIDER_NAME),
                    UdaplAttributes.iaAttr(iaAttr, entry.ia().iaAttr().iaAddressPtr())));
        } catch (RuntimeException e) {
            lib.iaClose(ia, LibDat2.DAT_CLOSE_ABRUPT_FLAG);
            throw e;
        }
        return new UdaplIa(entry.iaName(), lib, ia, evd, info, new ReentrantLock());
    }

    /**
     * Throws the exception of a failed C call.
     *
     * @param call the C function
     * @param rc its status
     */
    static void check(String call, int rc) {
        if (!DatStatus.ok(rc)) {
            throw DatStatus.exception(call, rc);
        }
    }

    /**
     * {@return the jDAT status of a C status, for the data path}
     *
     * @param rc a DAT 2.0 status
     */
    static int status(int rc) {
        return DatStatus.ok(rc) ? DatReturn.DAT_SUCCESS : DatStatus.type(rc).code(DatStatus.subtype(rc));
    }

    /**
     * {@return the C handle an out parameter received}
     *
     * @param out a pointer-sized out parameter
     */
    static MemorySegment handleOut(MemorySegment out) {
        return out.get(ADDRESS, 0);
    }

    /**
     * {@return a {@code sockaddr_in} or {@code sockaddr_in6}, port 0, in {@code arena}}
     *
     * @param arena where it lives
     * @param ip the address
     */
    static MemorySegment sockaddr(Arena arena, InetAddress ip) {
        byte[] raw = ip.getAddress();
        if (ip instanceof Inet4Address) {
            MemorySegment sa = arena.allocate(16, 8);
            sa.set(JAVA_SHORT, 0, AF_INET);
            MemorySegment.copy(raw, 0, sa, JAVA_BYTE, 4, 4);
            return sa;
        }
        MemorySegment sa = arena.allocate(28, 8);
        sa.set(JAVA_SHORT, 0, AF_INET6);
        MemorySegment.copy(raw, 0, sa, JAVA_BYTE, 8, 16);
        return sa;
    }

    /**
     * {@return the port of a C socket address, 0 when none}
     *
     * @param sa a {@code sockaddr_in} or {@code sockaddr_in6}
     */
    static int port(MemorySegment sa) {
        if (sa.address() == 0) {
            return 0;
        }
        short p = sa.reinterpret(4).get(JAVA_SHORT, 2);
        return (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? p : Short.reverseBytes(p)) & 0xffff;
    }

    // ------------------------------------------------------------------ C handles to Java objects

    @Override
    public DatEp ep(long c) {
        return eps.get(c);
    }

    @Override
    public DatRmr rmr(long c) {
        return rmrs.get(c);
    }

    @Override
    public DatHandle sp(long c) {
        return sps.get(c);
    }

    /** A connection request libdat2 created: the Java CR that owns its handle from now on. */
    @Override
    public DatCr cr(long c, DatHandle sp) {
        if (isClosed()) {
            return null;
        }
        UdaplEp reserved = sp instanceof UdaplRsp rsp ? rsp.ep() : null;
        UdaplCr cr = new UdaplCr(this, MemorySegment.ofAddress(c), sp, reserved);
        UdaplCr old = crs.put(c, cr);
        if (old != null) {
            old.forget();
        }
        return cr;
    }

    @Override
    public DatHandle any(long c) {
        if (c == handle.address()) {
            return this;
        }
        return all.get(c);
    }

    /**
     * Records the outcome of a C free made by a Java object's free, which has let go of the handle either way.
     *
     * @param call the C free
     * @param rc its status
     */
    void freed(String call, int rc) {
        if (!DatStatus.ok(rc) && leaked == null) {
            leaked = call + " returned " + DatStatus.describe(rc);
        }
    }

    /** Enters an object's C handle into the maps events resolve. */
    void track(long c, DatHandle h) {
        all.put(c, h);
    }

    /** Takes an object's C handle out of them. */
    void untrack(long c) {
        all.remove(c);
    }

    /**
     * Queues a call of a CNO's agent for the IA's {@link UdaplAgents} thread; called from C's upcall.
     *
     * @param cno the CNO C triggered
     * @param agent the agent C called
     * @param evd the C EVD that triggered it, 0 for none
     */
    void runAgent(UdaplCno cno, DatCno.Agent agent, long evd) {
        agents.run(() -> {
            if (!cno.isClosed()) {
                agent.triggered(evd == 0 ? null : (DatEvd) any(evd));
            }
        });
    }

    // ------------------------------------------------------------------ close

    @Override
    protected void implCloseLocked() {
        for (UdaplCr cr : new ArrayList<>(crs.values())) {
            cr.rejectQuietly();
        }
        asyncEvd().destroy();
        if (leaked == null) {
            int rc = lib.iaClose(handle, LibDat2.DAT_CLOSE_GRACEFUL_FLAG);
            if (!DatStatus.ok(rc)) {
                // What C still holds that the bridge does not know (a PSP kept for its undecided requests) goes.
                lib.iaClose(handle, LibDat2.DAT_CLOSE_ABRUPT_FLAG);
            }
        }
        agents.end();
        eps.clear();
        sps.clear();
        crs.clear();
        all.clear();
        lmrs.clear();
        rmrs.clear();
        arena.close();
    }

    @Override
    protected DatException unsupported(String call, DatHandleType kind) {
        return switch (kind) {
            case SRQ -> new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": the C provider reports"
                    + " srq_supported false");
            default -> super.unsupported(call, kind);
        };
    }

    // ------------------------------------------------------------------ create hooks

    @Override
    protected UdaplPz implCreatePz() {
        return new UdaplPz(this);
    }

    @Override
    protected UdaplCno implCreateCno(DatCno.Agent agent) {
        UdaplCno cno = new UdaplCno(this, agent);
        track(cno.handle.address(), cno);
        return cno;
    }

    @Override
    protected UdaplEvd implCreateEvd(int evdMinQlen, AbstractCno<UdaplIa> cno, int evdFlags) {
        UdaplCno c = (UdaplCno) cno;
        MemorySegment evd;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            check("dat_evd_create", lib.evdCreate(handle, evdMinQlen, c == null ? MemorySegment.NULL : c.handle,
                    evdFlags, out));
            evd = handleOut(out);
        }
        UdaplEvd e = new UdaplEvd(this, evd, evdFlags, c, false);
        track(evd.address(), e);
        return e;
    }

    @Override
    protected UdaplLmr implCreateLmr(UdaplPz pz, MemorySegment region, int privileges) {
        UdaplLmr lmr = new UdaplLmr(pz, region, privileges);
        lmrs.put(lmr.lmrContext(), lmr);
        track(lmr.handle.address(), lmr);
        return lmr;
    }

    @Override
    protected UdaplRmr implCreateRmr(UdaplPz pz) {
        UdaplRmr rmr = new UdaplRmr(pz);
        rmrs.put(rmr.handle.address(), rmr);
        track(rmr.handle.address(), rmr);
        return rmr;
    }

    @Override
    protected UdaplLmr lmrOf(int lmrContext) {
        return lmrs.get(lmrContext);
    }

    /** DAT 2.0 carries sizes in 32 bits: a larger one would reach C cut to its low bits. */
    @Override
    protected void checkEpAttr(String call, DatEpAttr attr, boolean withSrq) {
        if (withSrq) {
            throw unsupported(call, DatHandleType.SRQ);
        }
        super.checkEpAttr(call, attr, withSrq);
        if (attr.maxMessageSize() > UdaplIov.MAX_SEGMENT || attr.maxRdmaSize() > UdaplIov.MAX_SEGMENT) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG6, call + ": max_message_size "
                    + attr.maxMessageSize() + " or max_rdma_size " + attr.maxRdmaSize()
                    + " exceeds DAT 2.0's 32-bit DAT_SEG_LENGTH");
        }
    }

    @Override
    protected UdaplEp implCreateEp(String call, UdaplPz pz, UdaplEvd recvEvd, UdaplEvd requestEvd,
                                   UdaplEvd connectEvd, NoSrq<UdaplIa, UdaplPz> srq, DatEpAttr attr) {
        UdaplEp ep = new UdaplEp(this, pz, recvEvd, requestEvd, connectEvd, attr);
        eps.put(ep.handle.address(), ep);
        track(ep.handle.address(), ep);
        return ep;
    }

    @Override
    protected UdaplPsp implCreatePsp(String call, boolean any, long connQual, UdaplEvd crEvd, DatPspFlags flags) {
        UdaplPsp psp = new UdaplPsp(this, any, connQual, crEvd, flags);
        sps.put(psp.handle.address(), psp);
        track(psp.handle.address(), psp);
        return psp;
    }

    @Override
    protected UdaplRsp implCreateRsp(String call, long connQual, UdaplEp ep, UdaplEvd crEvd) {
        DatEpState state = ep.stateLocked();
        if (state != DatEpState.UNCONNECTED) {
            throw DatArgs.epState(call, "ep_handle", state, "UNCONNECTED");
        }
        UdaplRsp rsp = new UdaplRsp(this, connQual, ep, crEvd);
        sps.put(rsp.handle.address(), rsp);
        track(rsp.handle.address(), rsp);
        return rsp;
    }

    /** {@return a C string of {@code data}, or NULL} */
    static MemorySegment bytes(Arena arena, byte[] data) {
        if (data == null || data.length == 0) {
            return MemorySegment.NULL;
        }
        return arena.allocateFrom(ValueLayout.JAVA_BYTE, data);
    }

    /** Checks private data against {@code max_private_data_size}. */
    void checkPrivateData(String call, byte[] data, DatReturnSubtype arg) {
        int max = providerAttr().maxPrivateDataSize();
        if (data != null && data.length > max) {
            throw DatArgs.invalidParameter(arg, call + ": private data of " + data.length
                    + " bytes exceeds max_private_data_size " + max);
        }
    }

    /** {@code dat_ia_close} with the flag C takes. */
    static int closeFlag(DatCloseFlags flags) {
        return flags == DatCloseFlags.ABRUPT ? LibDat2.DAT_CLOSE_ABRUPT_FLAG : LibDat2.DAT_CLOSE_GRACEFUL_FLAG;
    }

    @Override
    public String toString() {
        return "UdaplIa[" + name() + (isClosed() ? ", closed]" : "]");
    }
}
