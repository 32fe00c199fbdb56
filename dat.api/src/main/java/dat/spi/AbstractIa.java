// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpCreator;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatProviderAttr;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatRsp;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shell of a provider's IA ({@code dat_ia_open} ... {@code dat_ia_close}): the protocol every provider owes
 * its consumers, written once. A provider extends it and writes the {@code impl*} hooks that build its objects;
 * the DAT calls themselves are final here.
 *
 * <p>What the shell does, in the order every DAT create call makes it:
 * <ol>
 * <li>the IA must be open ({@code DAT_INVALID_HANDLE});</li>
 * <li>the arguments that depend only on themselves and the attributes ({@link DatArgs}; the {@code check*}
 *     hooks add a provider's own), before any lock;</li>
 * <li>under the lifecycle lock: the IA open again, the handle arguments resolved to this IA's open objects of the
 *     right kind (an EVD must also carry the event flag the call needs), the IA's limit for the new object
 *     ({@code max_pzs}, {@code max_evds}, ...: {@code DAT_INSUFFICIENT_RESOURCES});</li>
 * <li>the provider's {@code impl*} hook builds the object, still under the lock, and the shell registers it in the
 *     IA's {@link HandleSet}, which from then on runs its free protocol ({@link AbstractHandle#close()}).</li>
 * </ol>
 * {@code dat_ia_close} is here too: GRACEFUL refuses while objects live, ABRUPT destroys them users first (CRs,
 * service points and EPs before the memory, EVDs and PZs they use), then the hooks {@link #implCloseLocked()} and
 * {@link #implClosed()} release what the provider holds. {@code dat_lmr_sync_rdma_read} and
 * {@code dat_lmr_sync_rdma_write} check their segments against the LMRs {@link #lmrOf} finds.
 *
 * <p><b>Hooks.</b> The {@code implCreate*} hooks run with the lifecycle lock held, after every check above; they
 * may throw a {@link DatException} (a resource the device refused: {@code DAT_INSUFFICIENT_RESOURCES}), and nothing
 * is registered then. The {@code check*} hooks run before the lock with no lock held. {@link #implCloseLocked()}
 * runs under the lock, {@link #implClosed()} and {@link #implFreed} after it is released. The hooks of optional
 * features
 * ({@link #implCreateCno}, {@link #implCreateRmr}, {@link #implCreateSrq}) answer {@code DAT_MODEL_NOT_SUPPORTED}
 * until a provider overrides them; a provider whose attributes deny the feature writes nothing.
 *
 * <p><b>Types.</b> The type parameters name the provider's classes, so that hooks receive them resolved:
 * {@code final class LoopbackIa extends AbstractIa<LoopbackIa, LoopbackPz, LoopbackEvd, LoopbackSrq, LoopbackEp>}.
 * A provider without SRQs names {@link NoSrq}{@code <MyIa, MyPz>}, a type with no instance.
 *
 * @param <I> the provider's IA class itself
 * @param <P> its PZ class
 * @param <E> its EVD class
 * @param <S> its SRQ class
 * @param <T> its EP class
 */
public abstract class AbstractIa<I extends AbstractIa<I, P, E, S, T>, P extends AbstractPz<I>,
        E extends AbstractEvd<I>, S extends AbstractSrq<I, P>, T extends AbstractEp<I>>
        extends ProviderHandle implements DatIa {

    /** dat_ia_close(ABRUPT): users before what they use, so EP flushes reach EVDs that still exist. */
    private static final DatHandleType[] DESTROY_ORDER = {DatHandleType.CR, DatHandleType.RSP, DatHandleType.PSP,
        DatHandleType.EP, DatHandleType.RMR, DatHandleType.LMR, DatHandleType.SRQ, DatHandleType.EVD,
        DatHandleType.CNO, DatHandleType.PZ};

    private final String name;
    private final InetAddress address;
    private final DatProviderAttr providerAttr;
    private final DatIaAttr iaAttr;
    private final ReentrantLock lifecycle;
    /** Guarded by {@link #lifecycle}; insertion order, for readable messages. */
    private final HandleSet objects;
    /** Set once by the provider's constructor ({@link #initAsyncEvd}); volatile, as a final field would be safe. */
    private volatile E asyncEvd;

    /**
     * Creates the shell's part of an IA ({@code dat_ia_open}).
     *
     * @param name the IA's name, as {@code dat_ia_open} was given it
     * @param address the IA's address, which other IAs connect to
     * @param providerAttr the provider attributes this IA reports
     * @param iaAttr the IA attributes, whose limits the create calls enforce
     * @param lifecycle the lock that serialises the creation and free of this IA's objects: a new one per IA, or a
     *     provider-wide lock every call of the provider takes
     */
    protected AbstractIa(String name, InetAddress address, DatProviderAttr providerAttr, DatIaAttr iaAttr,
                         ReentrantLock lifecycle) {
        this.name = name;
        this.address = address;
        this.providerAttr = providerAttr;
        this.iaAttr = iaAttr;
        this.lifecycle = lifecycle;
        this.objects = new HandleSet(name);
    }

    // ------------------------------------------------------------------ the handle

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.IA;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_IA;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_IA_IN_USE;
    }

    @Override
    protected final String freeCall() {
        return "dat_ia_close";
    }

    /** Never called: an IA is not in a {@link HandleSet}; {@link #close(DatCloseFlags)} closes it. */
    @Override
    protected final void destroy() {
        throw new AssertionError("an IA is closed with close(flags)");
    }

    @Override
    public final String name() {
        return name;
    }

    /** {@return the IA's address ({@code ia_address_ptr})} */
    @Override
    public final InetAddress address() {
        return address;
    }

    /**
     * The IA's async EVD ({@code async_evd_handle} of {@code dat_ia_open}): not in the IA's handle set, so a graceful
     * close does not count it, and only {@code dat_ia_close} frees it ({@link #implCloseLocked} or
     * {@link #implClosed}).
     *
     * @return the async EVD
     */
    @Override
    public final E asyncEvd() {
        return asyncEvd;
    }

    /**
     * Sets the async EVD, once, from the provider's constructor (the EVD needs the IA, so the shell cannot make it).
     *
     * @param evd the IA's async EVD, made with {@code isAsync} true
     */
    protected final void initAsyncEvd(E evd) {
        if (asyncEvd != null) {
            throw new IllegalStateException("the async EVD is set once");
        }
        asyncEvd = evd;
    }

    /** {@code dat_ia_query}: the IA attributes. */
    @Override
    public final DatIaAttr query() {
        requireOpen("dat_ia_query");
        return iaAttr;
    }

    /** {@code dat_ia_query}: the provider attributes. */
    @Override
    public final DatProviderAttr providerAttr() {
        requireOpen("dat_ia_query");
        return providerAttr;
    }

    /** {@return the IA attributes, open or not: the limits the provider's objects check against} */
    public final DatIaAttr iaAttr() {
        return iaAttr;
    }

    /** {@return the lock that serialises the creation and free of this IA's objects} */
    protected final ReentrantLock lifecycle() {
        return lifecycle;
    }

    // ------------------------------------------------------------------ close and free

    /** {@code dat_ia_close(DAT_CLOSE_GRACEFUL_FLAG)}. */
    @Override
    public final void close() {
        close(DatCloseFlags.GRACEFUL);
    }

    /**
     * {@code dat_ia_close}. GRACEFUL refuses while objects live; ABRUPT destroys them in dependency order. Then
     * {@link #implCloseLocked()} under the lifecycle lock, the IA marked closed, and {@link #implClosed()} after the
     * lock is released. Closing a closed IA does nothing.
     */
    @Override
    public final void close(DatCloseFlags flags) {
        if (flags == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_ia_close: ia_flags is null");
        }
        lifecycle.lock();
        try {
            if (isClosed()) {
                return;
            }
            if (flags == DatCloseFlags.GRACEFUL) {
                objects.requireEmptyForGracefulClose();
            }
            objects.destroyAll(DESTROY_ORDER);
            implCloseLocked();
            markClosed();
        } finally {
            lifecycle.unlock();
        }
        implClosed();
    }

    /**
     * Releases, under the lifecycle lock, what the IA holds besides its registered objects (pending connection
     * requests, the async EVD), after they were destroyed and before the IA is marked closed. Must not throw.
     */
    protected void implCloseLocked() {
    }

    /**
     * Releases, with no lock held, what must outlive the lifecycle section of {@code dat_ia_close} (a progress
     * thread to stop and join, native resources, transfers to wait out). Runs once, after the IA is marked closed.
     */
    protected void implClosed() {
    }

    /** {@code dat_*_free} of an object: the {@link HandleSet} protocol under the lock, then {@link #implFreed}. */
    final void free(AbstractHandle<I> h) {
        lifecycle.lock();
        try {
            objects.free(h);
        } finally {
            lifecycle.unlock();
        }
        implFreed(h);
    }

    /**
     * {@return whether {@code h}, still open, is used by no other live object of this IA} Asked after a free, under the
     * lifecycle lock.
     *
     * @param h an object of this IA
     */
    final boolean openAndUnused(AbstractHandle<I> h) {
        lifecycle.lock();
        try {
            return !h.isClosed() && !isClosed() && !objects.isUsed(h);
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Called after {@code dat_*_free} of {@code h} returned from the free protocol, with no lock held: a provider
     * that must wait out transfers before the free call returns does it here ({@code dat_lmr_free}).
     *
     * @param h the object freed (or already closed before)
     */
    protected void implFreed(AbstractHandle<I> h) {
    }

    /** Opens the lifecycle section of a create call: the IA must still be open. */
    private void beginCreate(String call) {
        lifecycle.lock();
        if (isClosed()) {
            lifecycle.unlock();
            requireOpen(call);
        }
    }

    /** Ends it. */
    private void endCreate() {
        lifecycle.unlock();
    }

    // ------------------------------------------------------------------ handle arguments

    /** See {@link AbstractHandle#own}. */
    final <X extends AbstractHandle<I>> X own(Object handle, Class<X> type, DatReturnSubtype subtype, String call,
                                              String arg) {
        String why;
        if (handle == null) {
            why = "is null";
        } else if (!type.isInstance(handle) || type.cast(handle).owner() != this) {
            why = "belongs to another IA or provider";
        } else if (type.cast(handle).isClosed()) {
            why = "is closed";
        } else {
            return type.cast(handle);
        }
        throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " " + why);
    }

    /**
     * Resolves a handle argument to this IA's open object of {@code kind}. Every object of this IA of a kind came
     * from the hook that builds that kind, so it is of the class the type parameter names.
     */
    // The cast is the one the comment above justifies; P, E, S and T are erased, so no Class token can check it.
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    final <X> X resolve(Object handle, DatHandleType kind, DatReturnSubtype subtype, String call, String arg) {
        String why;
        if (handle == null) {
            why = "is null";
        } else if (!(handle instanceof AbstractHandle<?> h) || h.owner() != this || h.handleType() != kind) {
            why = "belongs to another IA or provider";
        } else if (h.isClosed()) {
            why = "is closed";
        } else {
            return (X) h;
        }
        throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " " + why);
    }

    /** {@link #resolve} of an EVD that must carry {@code flag} (DTO, CONNECTION or CR) for the call. */
    private E resolveEvd(DatEvd evd, int flag, DatReturnSubtype subtype, String call, String arg) {
        E e = resolve(evd, DatHandleType.EVD, subtype, call, arg);
        if ((e.flags() & flag) == 0) {
            throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " lacks the "
                    + flagName(flag) + " flag (evd_flags 0x" + Integer.toHexString(e.flags()) + ")");
        }
        return e;
    }

    private static String flagName(int flag) {
        return switch (flag) {
            case DatEvdFlags.DTO -> "DAT_EVD_DTO_FLAG";
            case DatEvdFlags.CONNECTION -> "DAT_EVD_CONNECTION_FLAG";
            case DatEvdFlags.CR -> "DAT_EVD_CR_FLAG";
            default -> "0x" + Integer.toHexString(flag);
        };
    }

    /**
     * The exception of a create call for an object kind this provider does not support. Override to say why in the
     * provider's terms (which device lacks it).
     *
     * @param call the DAT call
     * @param kind {@link DatHandleType#CNO}, {@link DatHandleType#RMR} or {@link DatHandleType#SRQ}
     * @return a {@code DAT_MODEL_NOT_SUPPORTED} exception
     */
    protected DatException unsupported(String call, DatHandleType kind) {
        String why = switch (kind) {
            case CNO -> "provider " + providerAttr.providerName() + " has no CNOs; wait on an EVD with dat_evd_wait";
            case RMR -> "provider " + providerAttr.providerName() + " has no memory windows (max_rmrs 0); give the"
                    + " peer an LMR's rmr_context instead";
            case SRQ -> "srq_supported is false";
            default -> "provider " + providerAttr.providerName() + " has no " + kind + "s";
        };
        return new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": " + why);
    }

    // ------------------------------------------------------------------ dat_pz_create, dat_cno_create

    /** {@code dat_pz_create}: {@code max_pzs}, then {@link #implCreatePz()}. */
    @Override
    public final DatPz createPz() {
        String call = "dat_pz_create";
        beginCreate(call);
        try {
            objects.requireRoom(DatHandleType.PZ, iaAttr.maxPzs(), call, "max_pzs");
            return objects.register(implCreatePz());
        } finally {
            endCreate();
        }
    }

    /**
     * Builds a PZ for {@code dat_pz_create}; lifecycle lock held.
     *
     * @return the new PZ
     */
    protected abstract P implCreatePz();

    /** {@code dat_cno_create}: {@link #implCreateCno}. */
    @Override
    public final DatCno createCno(DatCno.Agent agent) {
        String call = "dat_cno_create";
        beginCreate(call);
        try {
            return objects.register(implCreateCno(agent));
        } finally {
            endCreate();
        }
    }

    /**
     * Builds a CNO for {@code dat_cno_create}; lifecycle lock held. Without an override the provider has no CNOs.
     *
     * @param agent the agent, or {@code null}
     * @return the new CNO
     */
    protected AbstractCno<I> implCreateCno(DatCno.Agent agent) {
        throw unsupported("dat_cno_create", DatHandleType.CNO);
    }

    // ------------------------------------------------------------------ dat_evd_create

    /**
     * {@code dat_evd_create}: {@link #checkEvdCreate}, the CNO resolved, {@code max_evds}, then
     * {@link #implCreateEvd}.
     */
    @Override
    public final DatEvd createEvd(int evdMinQlen, DatCno cno, int evdFlags) {
        String call = "dat_evd_create";
        requireOpen(call);
        checkEvdCreate(evdMinQlen, cno, evdFlags);
        beginCreate(call);
        try {
            AbstractCno<I> c = cno == null ? null
                    : resolve(cno, DatHandleType.CNO, DatReturnSubtype.INVALID_HANDLE_CNO, call, "cno_handle");
            objects.requireRoom(DatHandleType.EVD, iaAttr.maxEvds(), call, "max_evds");
            return objects.register(implCreateEvd(evdMinQlen, c, evdFlags));
        } finally {
            endCreate();
        }
    }

    /**
     * The argument checks of {@code dat_evd_create}, no lock held: {@link DatArgs#evdCreate}. Override to refuse
     * more (call {@code super} first).
     *
     * @param evdMinQlen the requested queue length
     * @param cno the CNO handle, not yet resolved
     * @param evdFlags the requested event kinds
     */
    protected void checkEvdCreate(int evdMinQlen, DatCno cno, int evdFlags) {
        DatArgs.evdCreate(iaAttr, evdMinQlen, evdFlags);
    }

    /**
     * Builds an EVD for {@code dat_evd_create}; lifecycle lock held, arguments checked.
     *
     * @param evdMinQlen the queue length, within {@code 1..max_evd_qlen}
     * @param cno the CNO to trigger, an open CNO of this IA, or {@code null}
     * @param evdFlags the event kinds
     * @return the new EVD, enabled
     */
    protected abstract E implCreateEvd(int evdMinQlen, AbstractCno<I> cno, int evdFlags);

    // ------------------------------------------------------------------ dat_lmr_create, dat_rmr_create

    /** {@code dat_lmr_create}: {@link DatArgs#lmrCreate}, the PZ resolved, {@code max_lmrs}, {@link #implCreateLmr}. */
    @Override
    public final DatLmr createLmr(DatPz pz, MemorySegment region, int privileges) {
        String call = "dat_lmr_create";
        requireOpen(call);
        DatArgs.lmrCreate(iaAttr, region, privileges);
        beginCreate(call);
        try {
            P p = resolve(pz, DatHandleType.PZ, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            objects.requireRoom(DatHandleType.LMR, iaAttr.maxLmrs(), call, "max_lmrs");
            return objects.register(implCreateLmr(p, region, privileges));
        } finally {
            endCreate();
        }
    }

    /**
     * Registers memory for {@code dat_lmr_create}; lifecycle lock held.
     *
     * @param pz an open PZ of this IA
     * @param region native, alive, shared memory within {@code max_lmr_block_size}
     * @param privileges DAT privileges, none on read-only memory that it cannot grant
     * @return the new LMR
     */
    protected abstract AbstractLmr<I, P> implCreateLmr(P pz, MemorySegment region, int privileges);

    /** {@code dat_rmr_create} for {@link AbstractPz#createRmr()}: {@code max_rmrs} 0 is no RMRs at all. */
    final AbstractRmr<I, P> createRmr(AbstractPz<I> pz) {
        String call = "dat_rmr_create";
        beginCreate(call);
        try {
            P p = resolve(pz, DatHandleType.PZ, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            if (iaAttr.maxRmrs() == 0) {
                throw unsupported(call, DatHandleType.RMR);
            }
            objects.requireRoom(DatHandleType.RMR, iaAttr.maxRmrs(), call, "max_rmrs");
            return objects.register(implCreateRmr(p));
        } finally {
            endCreate();
        }
    }

    /**
     * Builds an RMR for {@code dat_rmr_create}; lifecycle lock held. Never called while {@code max_rmrs} is 0.
     *
     * @param pz an open PZ of this IA
     * @return the new RMR, unbound
     */
    protected AbstractRmr<I, P> implCreateRmr(P pz) {
        throw unsupported("dat_rmr_create", DatHandleType.RMR);
    }

    /**
     * The LMR of this IA that an {@code lmr_context} names, for {@code dat_lmr_sync_rdma_*}: a data-path lookup,
     * with no allocation and no lock a post may hold.
     *
     * @param lmrContext an {@code lmr_context}
     * @return the LMR (possibly freed meanwhile), or {@code null} when the context names none of this IA
     */
    protected abstract AbstractLmr<I, ?> lmrOf(int lmrContext);

    /** {@code dat_lmr_sync_rdma_read}: only the arguments are checked where {@code lmr_sync_req} is false. */
    @Override
    public final int lmrSyncRdmaRead(Iov localSegments, int numSegments) {
        return lmrSync(localSegments, numSegments);
    }

    /** {@code dat_lmr_sync_rdma_write}: only the arguments are checked where {@code lmr_sync_req} is false. */
    @Override
    public final int lmrSyncRdmaWrite(Iov localSegments, int numSegments) {
        return lmrSync(localSegments, numSegments);
    }

    private int lmrSync(Iov iov, int numSegments) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (DtoArgs.iov(numSegments, iov, Integer.MAX_VALUE) != DatReturn.DAT_SUCCESS) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        try {
            for (int i = 0; i < numSegments; i++) {
                AbstractLmr<I, ?> lmr = lmrOf(iov.lmrContext(i));
                if (lmr == null || lmr.isClosed() || !lmr.contains(iov.virtualAddress(i), iov.segmentLength(i))) {
                    return DatReturn.DAT_INVALID_PARAMETER;
                }
            }
        } catch (IllegalStateException | WrongThreadException e) {
            // The IOV's own memory is closed or confined to another thread (DatMemory).
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    // ------------------------------------------------------------------ dat_ep_create, dat_ep_create_with_srq

    /** {@code dat_ep_create}. */
    @Override
    public final DatEp createEp(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatEpAttr attr) {
        return newEp("dat_ep_create", pz, recvEvd, requestEvd, connectEvd, null, attr);
    }

    /** {@code dat_ep_create_with_srq}. */
    @Override
    public final DatEp createEpWithSrq(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatSrq srq,
                                       DatEpAttr attr) {
        if (srq == null) {
            throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ,
                    "dat_ep_create_with_srq: srq_handle is null");
        }
        return newEp("dat_ep_create_with_srq", pz, recvEvd, requestEvd, connectEvd, srq, attr);
    }

    private DatEp newEp(String call, DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatSrq srq,
                        DatEpAttr attr) {
        requireOpen(call);
        DatEpAttr a = attr != null ? attr : defaultEpAttr(srq != null);
        checkEpAttr(call, a, srq != null);
        beginCreate(call);
        try {
            P p = resolve(pz, DatHandleType.PZ, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            E recv = recvEvd == null ? null
                    : resolveEvd(recvEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV, call,
                    "recv_evd_handle");
            E request = requestEvd == null ? null
                    : resolveEvd(requestEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, call,
                    "request_evd_handle");
            E connect = connectEvd == null ? null
                    : resolveEvd(connectEvd, DatEvdFlags.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN, call,
                    "connect_evd_handle");
            S s = srq == null ? null
                    : resolve(srq, DatHandleType.SRQ, DatReturnSubtype.INVALID_HANDLE_SRQ, call, "srq_handle");
            if (s != null && s.pz() != p && !providerAttr.srqEpPzDifferenceSupported()) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call
                        + ": the SRQ is on another PZ than the EP; srq_ep_pz_difference_supported is false");
            }
            objects.requireRoom(DatHandleType.EP, iaAttr.maxEps(), call, "max_eps");
            return objects.register(implCreateEp(call, p, recv, request, connect, s, a));
        } finally {
            endCreate();
        }
    }

    /** The attributes of {@code createEp(..., null)}: the builder's portable values. */
    private static DatEpAttr defaultEpAttr(boolean withSrq) {
        DatEpAttr.Builder b = DatEpAttr.builder();
        if (withSrq) {
            // DAT's default recv completion flag of an SRQ EP: every receive completes signalled.
            b.recvCompletionFlags(DatCompletionFlags.UNSIGNALLED);
        }
        return b.build();
    }

    /**
     * The checks of EP attributes for {@code dat_ep_create}, {@code dat_ep_create_with_srq} and
     * {@code dat_ep_modify}, no lock held: {@link DatArgs#epAttr}. Override to refuse more (call {@code super}).
     *
     * @param call the DAT call, for messages
     * @param attr the attributes (the defaults when the consumer passed none)
     * @param withSrq whether the EP receives from an SRQ
     */
    protected void checkEpAttr(String call, DatEpAttr attr, boolean withSrq) {
        DatArgs.epAttr(call, iaAttr, providerAttr, attr, withSrq);
    }

    /**
     * Builds an EP for {@code dat_ep_create} or {@code dat_ep_create_with_srq}; lifecycle lock held, attributes
     * checked, every handle an open object of this IA (EVDs with the flag their events need), {@code max_eps}
     * checked. May throw {@code DAT_INSUFFICIENT_RESOURCES} (a limit of the SRQ, a queue the device refused).
     *
     * @param call the DAT call, for messages
     * @param pz the EP's PZ
     * @param recvEvd the receive EVD, or {@code null}
     * @param requestEvd the request EVD, or {@code null}
     * @param connectEvd the connection EVD, or {@code null}
     * @param srq the SRQ, or {@code null} for {@code dat_ep_create}
     * @param attr the attributes
     * @return the new EP, UNCONNECTED
     */
    protected abstract T implCreateEp(String call, P pz, E recvEvd, E requestEvd, E connectEvd, S srq,
                                      DatEpAttr attr);

    // ------------------------------------------------------------------ dat_srq_create

    /**
     * {@code dat_srq_create}: {@code srq_supported}, {@link #checkSrqCreate}, the PZ resolved, {@code max_srqs}, then
     * {@link #implCreateSrq}.
     */
    @Override
    public final DatSrq createSrq(DatPz pz, DatSrqAttr attr) {
        String call = "dat_srq_create";
        requireOpen(call);
        if (!providerAttr.srqSupported()) {
            throw unsupported(call, DatHandleType.SRQ);
        }
        checkSrqCreate(attr);
        beginCreate(call);
        try {
            P p = resolve(pz, DatHandleType.PZ, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            objects.requireRoom(DatHandleType.SRQ, iaAttr.maxSrqs(), call, "max_srqs");
            return objects.register(implCreateSrq(p, attr));
        } finally {
            endCreate();
        }
    }

    /**
     * The attribute checks of {@code dat_srq_create}, no lock held: {@link DatArgs#srqCreate}. Override to refuse
     * more (call {@code super} first).
     *
     * @param attr the requested attributes
     */
    protected void checkSrqCreate(DatSrqAttr attr) {
        DatArgs.srqCreate(iaAttr, attr);
    }

    /**
     * Builds an SRQ for {@code dat_srq_create}; lifecycle lock held. Called only where {@code srq_supported}.
     *
     * @param pz an open PZ of this IA
     * @param attr the attributes, checked
     * @return the new SRQ
     */
    protected S implCreateSrq(P pz, DatSrqAttr attr) {
        throw unsupported("dat_srq_create", DatHandleType.SRQ);
    }

    // ------------------------------------------------------------------ dat_psp_create, dat_rsp_create

    /** {@code dat_psp_create}. */
    @Override
    public final DatPsp createPsp(long connQual, DatEvd crEvd, DatPspFlags flags) {
        return newPsp("dat_psp_create", false, connQual, crEvd, flags);
    }

    /** {@code dat_psp_create_any}. */
    @Override
    public final DatPsp createPspAny(DatEvd crEvd, DatPspFlags flags) {
        return newPsp("dat_psp_create_any", true, 0, crEvd, flags);
    }

    private DatPsp newPsp(String call, boolean any, long connQual, DatEvd crEvd, DatPspFlags flags) {
        requireOpen(call);
        if (flags == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": psp_flags is null");
        }
        if (flags == DatPspFlags.PROVIDER && providerAttr.epCreator() == DatEpCreator.NEVER) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call
                    + ": psp_flags PROVIDER needs a provider-created EP; ep_creator is NEVER");
        }
        if (!any) {
            checkConnQual(call, connQual);
        }
        beginCreate(call);
        try {
            E evd = resolveEvd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call, "evd_handle");
            return objects.register(implCreatePsp(call, any, connQual, evd, flags));
        } finally {
            endCreate();
        }
    }

    /**
     * Checks a connection qualifier of {@code dat_psp_create} or {@code dat_rsp_create}, no lock held. The default
     * takes any; a transport with narrower qualifiers (16-bit ports) refuses the rest here.
     *
     * @param call the DAT call, for messages
     * @param connQual the consumer's qualifier
     */
    protected void checkConnQual(String call, long connQual) {
    }

    /**
     * Builds a PSP and starts listening, for {@code dat_psp_create} or {@code dat_psp_create_any}; lifecycle lock
     * held. A qualifier already listened on is {@code DAT_CONN_QUAL_IN_USE}.
     *
     * @param call the DAT call, for messages
     * @param any whether the provider picks the qualifier ({@code dat_psp_create_any})
     * @param connQual the consumer's qualifier, 0 when {@code any}
     * @param crEvd an open EVD of this IA with the CR flag
     * @param flags the PSP flags
     * @return the new PSP
     */
    protected abstract AbstractPsp<I, E> implCreatePsp(String call, boolean any, long connQual, E crEvd,
                                                       DatPspFlags flags);

    /** {@code dat_rsp_create}: {@link #checkConnQual}, the EP and EVD resolved, then {@link #implCreateRsp}. */
    @Override
    public final DatRsp createRsp(long connQual, DatEp ep, DatEvd crEvd) {
        String call = "dat_rsp_create";
        requireOpen(call);
        checkConnQual(call, connQual);
        beginCreate(call);
        try {
            T e = resolve(ep, DatHandleType.EP, DatReturnSubtype.INVALID_HANDLE_EP, call, "ep_handle");
            E evd = resolveEvd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call, "evd_handle");
            return objects.register(implCreateRsp(call, connQual, e, evd));
        } finally {
            endCreate();
        }
    }

    /**
     * Builds an RSP, reserves its EP and starts listening, for {@code dat_rsp_create}; lifecycle lock held. An EP
     * that is not UNCONNECTED is {@code DAT_INVALID_STATE}, a qualifier listened on {@code DAT_CONN_QUAL_IN_USE}.
     *
     * @param call the DAT call, for messages
     * @param connQual the qualifier
     * @param ep an open EP of this IA
     * @param crEvd an open EVD of this IA with the CR flag
     * @return the new RSP
     */
    protected abstract AbstractRsp<I, E, T> implCreateRsp(String call, long connQual, T ep, E crEvd);
}
