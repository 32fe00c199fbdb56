// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatRmrParam;
import dat.provider.verbs.internal.ffm.Errno;
import dat.provider.verbs.internal.ffm.IbvMw;
import dat.provider.verbs.internal.ffm.IbvMwBind;
import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.AbstractRmr;
import dat.spi.ProviderHandle;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * A remote memory region ({@code dat_rmr_create}): a type 1 memory window of the PZ's PD ({@code ibv_alloc_mw}),
 * bound by {@code ibv_bind_mw} on the send queue of the EP the consumer names, as uDAPL's verbs provider does.
 * {@code rmr_context} is the window's rkey; each bind or unbind (a bind of length 0) gives it a new key byte, so
 * the previous context stops working once the bind executes. The HCA enforces the window's privileges.
 *
 * <h2>Bounds</h2>
 * Soft-RoCE (rxe's responder, {@code check_rkey}) checks an RDMA through a window against the range of the
 * window's region, not the window's own: in the guest a write just past a 256-byte window and a read one byte past a
 * 300-byte window both succeeded ({@code optional_rmr_bind_exposesExactlyTheWindow},
 * {@code optional_rmr_bind_peerReadsExactlyTheWindow}). So each bind first registers the window's
 * exact range as a region of its own ({@code ibv_reg_mr} over pages the LMR already pinned, with no remote rights
 * and {@code IBV_ACCESS_MW_BIND}), and binds the window to all of it: every device then bounds the window by its
 * region. That region's rkey grants nothing remotely; it is deregistered once no window can use it (a later bind
 * of the window completed, or the window was deallocated).
 *
 * <h2>Keys in flight</h2>
 * {@code ibv_bind_mw} computes the next rkey from {@code mw->rkey} and stores it there once posted; the HCA checks
 * the window's current key against the one the work request names. A bind is accepted ({@link #prepare}) before
 * it is posted ({@link #execute}): its EP may hold it back until the requests before it completed (see
 * {@link VerbsEpData#postBind}), yet {@code dat_rmr_bind} must hand out the new context at once. So the key is
 * computed when the bind is accepted, as rdma-core's providers compute it ({@code ibv_inc_rkey}: the low byte
 * counts up), and checked when it is posted; a provider that derived keys otherwise would make that bind complete
 * {@code DAT_RMR_OPERATION_FAILED}, its window replaced, rather than expose the region under a key nobody was
 * given. Binds on one send queue execute in order, so several may be in flight there; a bind over another EP waits
 * until the completions of the first EP's binds were seen (it finds out by taking that EP's completions, else
 * answers {@code DAT_INVALID_STATE}), because binds on two queues could execute in either order. A bind that fails
 * or is flushed did not execute, and the window may still expose what the consumer meant to replace: the window is
 * then deallocated and a fresh one allocated, so no key handed out before reaches anything. The same happens to
 * binds whose outcome can no longer be seen (their EP reset or freed before the completion was taken).
 *
 * <h2>Locking</h2>
 * This object's monitor guards the window and its bookkeeping. It is taken under an EP's lock (posting) and under
 * an EVD's lock (translating a completion), and nothing is locked while it is held.
 */
final class VerbsRmr extends AbstractRmr<VerbsIa, VerbsPz> {

    /**
     * What one bind asks the HCA to expose: {@code [address, address + length)} of {@code lmr} with
     * {@code privileges}, under {@code key}, through {@code region}, the window-sized region the bind registered.
     * An unbind has no LMR, length 0 and no region ({@code NULL}).
     */
    record Binding(VerbsLmr lmr, long address, long length, int privileges, int key, MemorySegment region,
                   boolean exact) {

        /** The same bind, posted under a key other than the one the consumer was given. */
        Binding inexact() {
            return new Binding(lmr, address, length, privileges, key, region, false);
        }
    }

    /** The {@code struct ibv_mw *}; {@code NULL} once freed, or when a replacement could not be allocated. */
    private MemorySegment mw;
    /** The rkey of the last bind posted: what the consumer gives the peer. */
    private volatile int context;
    /** What the HCA exposes, as far as completions tell; {@code null} when unbound. */
    private Binding applied;
    /** Binds posted on {@link #chainEp} whose completions were not yet seen, oldest first. */
    private final ArrayDeque<Binding> inFlight = new ArrayDeque<>();
    /** Binds {@link #chainEp} accepted but holds back, oldest first: they come after every bind in flight. */
    private final ArrayDeque<Binding> held = new ArrayDeque<>();
    private VerbsEp chainEp;
    /** The EP {@link #applied} was bound through: the window dies with that EP's connection. */
    private VerbsEp appliedEp;
    /** A bind of the current chain failed: the window was replaced, the rest of the chain is flushed. */
    private boolean chainFailed;

    VerbsRmr(VerbsPz pz) {
        super(pz);
        pz.windowAnchor();
        try {
            this.mw = IbvOps.ibv_alloc_mw(pz.pd, LibIbverbs.IBV_MW_TYPE_1);
        } catch (NativeCallException e) {
            throw VerbsIa.resources("dat_rmr_create", e);
        }
        this.context = IbvMw.rkey(mw);
    }

    /** The PZ, and every LMR a bind posted or applied may have tied the window to (dat_lmr_free waits for them). */
    @Override
    protected synchronized boolean dependsOn(ProviderHandle other) {
        if (other == pz() || (applied != null && applied.lmr() == other)) {
            return true;
        }
        for (Binding b : inFlight) {
            if (b.lmr() == other) {
                return true;
            }
        }
        for (Binding b : held) {
            if (b.lmr() == other) {
                return true;
            }
        }
        return false;
    }

    /**
     * dat_rmr_free: "If RMR is bound, dat_rmr_free() unbinds ... and then free RMR": deallocating the window
     * invalidates it at the HCA. A bind still in flight then fails at the HCA and breaks its connection. A bind its
     * EP still holds back keeps the window until it is posted ({@link #execute}), and then meets the same fate.
     */
    @Override
    protected synchronized void destroy() {
        markClosed();
        if (!held.isEmpty()) {
            return;
        }
        chainEp = null;
        deallocLocked();
        forgetAllLocked();
    }

    @Override
    public int rmrContext() {
        return context;
    }

    @Override
    public int bind(DatLmr lmr, long offset, long length, int memPrivileges, DatEp ep, long userCookie,
                    int completionFlags) {
        if (isClosed() || !(ep instanceof VerbsEp e) || !sibling(e) || !(lmr instanceof VerbsLmr l) || !sibling(l)) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return e.data.postBind(this, length == 0 ? null : l, offset, length, memPrivileges, userCookie,
                completionFlags);
    }

    @Override
    public int unbind(DatEp ep, long userCookie, int completionFlags) {
        if (isClosed() || !(ep instanceof VerbsEp e) || !sibling(e)) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return e.data.postBind(this, null, 0, 0, 0, userCookie, completionFlags);
    }

    /** {@return the EP whose binds of this window are in flight, if it is not {@code ep}; else {@code null}} */
    synchronized VerbsEp busyElsewhere(VerbsEp ep) {
        return chained() && chainEp != ep ? chainEp : null;
    }

    private boolean chained() {
        return !inFlight.isEmpty() || !held.isEmpty();
    }

    /**
     * Accepts a bind ({@code lmr == null}: the unbind) on {@code ep}'s send queue: registers the window-sized region
     * and gives the window the key the bind will carry, which {@link #rmrContext} reports from now on. The bind
     * reaches the HCA with {@link #execute}. Caller holds the EP's lock.
     *
     * @return a DAT return code
     */
    synchronized int prepare(VerbsEp ep, VerbsLmr lmr, long offset, long length, int privileges) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (mw == null) {
            return DatReturn.DAT_INSUFFICIENT_RESOURCES;
        }
        if (chained() && chainEp != ep) {
            return DatReturn.DAT_INVALID_STATE;
        }
        long address = lmr == null ? 0 : lmr.address() + offset;
        MemorySegment region = MemorySegment.NULL;
        if (lmr != null) {
            // C10-74: a writable window needs local write on its region (the LMR has it: it grants remote write).
            int access = LibIbverbs.IBV_ACCESS_MW_BIND
                    | ((privileges & DatMemPriv.REMOTE_WRITE) != 0 ? LibIbverbs.IBV_ACCESS_LOCAL_WRITE : 0);
            try {
                region = owner().verbs.ibv_reg_mr(pz().pd, MemorySegment.ofAddress(address), length, access);
            } catch (NativeCallException e) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
        }
        int key = nextKey(context);
        held.add(new Binding(lmr, address, lmr == null ? 0 : length, lmr == null ? 0 : privileges, key, region,
                true));
        chainEp = ep;
        context = key;
        return DatReturn.DAT_SUCCESS;
    }

    /** {@return the key {@code ibv_bind_mw} gives a type 1 window bound under {@code key}} ({@code ibv_inc_rkey}) */
    static int nextKey(int key) {
        return (key & ~0xFF) | ((key + 1) & 0xFF);
    }

    /**
     * Posts the oldest accepted bind with {@code ibv_bind_mw}; {@code args} carries its {@code wr_id} and
     * {@code send_flags}. From here on the bind counts as in flight, posted or not: a bind that could not be posted
     * must still complete (see {@link VerbsEpData}'s stand-in), or be withdrawn with {@link #withdraw}. Caller holds
     * the EP's send EVD lock.
     *
     * @return 0, or the errno of the failed post
     */
    synchronized int execute(MemorySegment qp, MemorySegment args) {
        Binding b = held.poll();
        int rc;
        if (mw == null) {
            // Replacing the window failed after a bind of this chain failed: nothing to bind.
            rc = Errno.ENOMEM;
        } else {
            // An unbind names the PZ's anchor region: rxe's provider reads the region's lkey even for length 0.
            IbvMwBind.bindInfoMr(args, b.lmr() == null ? pz().windowAnchor() : b.region());
            IbvMwBind.bindInfoAddr(args, b.address());
            IbvMwBind.bindInfoLength(args, b.length());
            IbvMwBind.bindInfoMwAccessFlags(args, b.lmr() == null ? 0 : access(b.privileges()));
            rc = IbvOps.ibv_bind_mw(qp, mw, args);
            if (rc == 0 && IbvMw.rkey(mw) != b.key()) {
                b = b.inexact();
            }
        }
        inFlight.add(b);
        if (isClosed() && held.isEmpty()) {
            // dat_rmr_free came while the EP held this bind back: it frees the window now (see destroy).
            chainEp = null;
            deallocLocked();
            forgetAllLocked();
        }
        return rc;
    }

    /**
     * The bind {@link #execute} just failed to post, on the consumer's own call: it never happened, and the call
     * fails. {@code previousContext} is the context before {@link #prepare}.
     */
    synchronized void withdraw(int previousContext) {
        Binding b = inFlight.pollLast();
        if (b != null) {
            deregister(b.region());
            context = previousContext;
        }
        if (!chained()) {
            chainEp = null;
        }
    }

    /**
     * The completion of this window's oldest bind in flight was seen. Called under the EVD's lock.
     *
     * @return whether the bind did what the consumer asked: {@code success}, unless it went out under another key
     */
    synchronized boolean completed(boolean success) {
        Binding b = inFlight.poll();
        if (b == null || isClosed()) {
            return success;
        }
        boolean took = success && b.exact();
        if (!chainFailed && took) {
            // The window left the previous binding's region when this bind executed.
            Binding old = applied;
            applied = b.length() == 0 ? null : b;
            appliedEp = applied == null ? null : chainEp;
            if (old != null) {
                deregister(old.region());
            }
            if (appliedEp != null) {
                // Registered before the state is read, as teardown writes the state before it drains the set: one of
                // the two sees the other, so a bind that completes as its connection ends is replaced either way.
                appliedEp.windows.add(this);
                DatEpState s = appliedEp.state;
                if (s != DatEpState.CONNECTED && s != DatEpState.DISCONNECT_PENDING) {
                    replaceLocked();
                }
            }
        } else {
            if (!chainFailed) {
                chainFailed = true;
                replaceLocked();
            }
            // Did not execute (or the window it would have bound is gone).
            deregister(b.region());
        }
        if (!chained()) {
            chainEp = null;
            chainFailed = false;
        }
        return took;
    }

    /**
     * {@code ep} was reset or freed with binds of this window in flight whose completions will never be seen: what
     * the window exposes is unknown, so it is replaced. Called under the EP's send EVD lock.
     */
    synchronized void abandon(VerbsEp ep) {
        if (chainEp != ep) {
            return;
        }
        chainEp = null;
        chainFailed = false;
        if (isClosed()) {
            // Freed while its EP held a bind back (see destroy): nothing will post it now.
            deallocLocked();
        } else {
            replaceLocked();
        }
        forgetAllLocked();
    }

    /**
     * The connection of {@code ep} ended (disconnected, broken, or the EP freed). A type 1 window belongs to the PD,
     * not to the QP, so the rkey it handed out would reach the region again through the next connection of the EP
     * (after dat_ep_reset and a new connect) or of another EP on the PZ; a window bound through a connection must not
     * outlive it ({@code optional_rmr_bind_windowDiesWithItsConnection}), so it is replaced. Binds of this window
     * still in flight on {@code ep} flush, and {@link #completed} or {@link #abandon} replaces it then. Caller holds
     * the EP's connection lock.
     */
    synchronized void connectionEnded(VerbsEp ep) {
        if (!isClosed() && appliedEp == ep && !chained()) {
            replaceLocked();
        }
    }

    /** Deallocates the window and allocates a fresh, unbound one with a new rkey. */
    private void replaceLocked() {
        deallocLocked();
        appliedEp = null;
        if (applied != null) {
            deregister(applied.region());
            applied = null;
        }
        try {
            mw = IbvOps.ibv_alloc_mw(pz().pd, LibIbverbs.IBV_MW_TYPE_1);
            context = IbvMw.rkey(mw);
        } catch (NativeCallException e) {
            // Later binds answer DAT_INSUFFICIENT_RESOURCES; the old contexts reach nothing.
            mw = null;
        }
    }

    private void deallocLocked() {
        if (mw == null) {
            return;
        }
        try {
            IbvOps.ibv_dealloc_mw(mw);
        } catch (NativeCallException e) {
            // The device is gone or the window already invalid: nothing can reach it either way.
        }
        mw = null;
    }

    /** After the window was deallocated: the regions of the binds in flight can go too. */
    private void forgetAllLocked() {
        for (Binding b : inFlight) {
            deregister(b.region());
        }
        inFlight.clear();
        for (Binding b : held) {
            deregister(b.region());
        }
        held.clear();
        if (applied != null) {
            deregister(applied.region());
            applied = null;
        }
        appliedEp = null;
    }

    private void deregister(MemorySegment region) {
        if (region.address() == 0) {
            return;
        }
        try {
            owner().verbs.ibv_dereg_mr(region);
        } catch (NativeCallException e) {
            // The device is gone: nothing can reach the region either way.
        }
    }

    /** DAT remote privileges as the window's {@code ibv_access_flags}. */
    static int access(int privileges) {
        return ((privileges & DatMemPriv.REMOTE_READ) != 0 ? LibIbverbs.IBV_ACCESS_REMOTE_READ : 0)
                | ((privileges & DatMemPriv.REMOTE_WRITE) != 0 ? LibIbverbs.IBV_ACCESS_REMOTE_WRITE : 0);
    }

    /** dat_rmr_query: what the last bind whose completion was seen exposes, and the current context. */
    @Override
    public DatRmrParam query() {
        requireOpen("dat_rmr_query");
        Binding b;
        synchronized (this) {
            b = applied;
        }
        if (b == null) {
            return new DatRmrParam(owner(), pz(), 0, 0, 0, 0, context);
        }
        return new DatRmrParam(owner(), pz(), b.lmr().lmrContext(), b.address(), b.length(), b.privileges(),
                context);
    }
}
